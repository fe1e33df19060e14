//! The web page's rules (`web/src/rules.js`, run by Node) agree with Kvarn's on the legal
//! moves and status of every position of 300 seeded random games per rule set, each rule
//! set read from the model card of an exported model, as the page reads it.
//!
//! The page's network (its encoder, and onnxruntime-web under Node) gives Kvarn's outputs.
//!
//! Needs Node.js (`node` on the path, or `KVARN_NODE`) and the page's npm packages
//! (`npm ci --prefix web`), and Chromium for the browser test; skipped without them
//! (`testing/outside.rs`), and `scripts/test.sh` provides them.

use std::path::{Path, PathBuf};
use std::process::Command;

use kvarn_game::{Game, Rules, Variant, encoding};
use kvarn_model::burn::tensor::Device;
use kvarn_model::{NetConfig, Network, Provenance, file};
use rand::{RngExt, SeedableRng};

#[path = "../../testing/outside.rs"]
mod outside;
#[path = "../../testing/paths.rs"]
mod paths;

fn repo() -> PathBuf {
    paths::workspace()
}

/// True where Node.js and the page's packages are here (else the test is skipped).
fn have_node() -> bool {
    outside::node_with(&repo().join("web"), &["onnxruntime-web", "playwright-core"])
}

/// Runs a script of web/test with `args`; its output, after asserting success.
fn node_script(script: &str, args: &[&std::ffi::OsStr]) -> String {
    let out = Command::new(outside::node())
        .arg(repo().join("web/test").join(script))
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{script}:\n{text}");
    text
}

/// `kvarn export --format FORMAT` of `model` into `out` (`web` with the page's runtime
/// from web/node_modules), asserting success.
fn export(model: &Path, format: &str, out: &Path) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kvarn"));
    command
        .args(["export", "--format", format, "--model"])
        .arg(model)
        .arg("--out")
        .arg(out);
    if format == "web" {
        command
            .arg("--ort-dist")
            .arg(repo().join("web/node_modules/onnxruntime-web/dist"));
    }
    let done = command.output().unwrap();
    assert!(
        done.status.success(),
        "kvarn export --format {format} (for web, run npm ci --prefix web first): {}",
        String::from_utf8_lossy(&done.stderr)
    );
}

/// Exports a tiny model of `rules` into `dir`; the card's path.
fn card(rules: Rules, dir: &Path) -> PathBuf {
    let device = Device::flex();
    let config = NetConfig::Mlp {
        hidden: 8,
        blocks: 1,
        ownership_head: false,
    };
    let net = Network::new(rules, config, 0, &device).unwrap();
    let model = dir.join("m.kvmodel");
    file::save(&net, &Provenance::default(), &model).unwrap();
    let out = dir.join("export");
    export(&model, "onnx", &out);
    out.join("model-card.json")
}

#[test]
fn the_pages_rules_agree_with_kvarns_on_random_games() {
    if !have_node() {
        return;
    }
    let nine = Rules::new(Variant::Nine);
    for (i, rules) in [
        nine,
        nine.with_flying(false).unwrap(),
        nine.with_repetition(false)
            .with_no_capture_limit(Some(20))
            .unwrap(),
        Rules::new(Variant::Six),
        Rules::new(Variant::Five),
    ]
    .into_iter()
    .enumerate()
    {
        let dir = tempfile::tempdir().unwrap();
        let card = card(rules, dir.path());
        // Shown with the script's output should it fail.
        println!("{rules}");
        let seed = (i + 1).to_string();
        let kvarn = Path::new(env!("CARGO_BIN_EXE_kvarn"));
        let args = [
            card.as_os_str(),
            kvarn.as_os_str(),
            "300".as_ref(),
            seed.as_ref(),
        ];
        println!("{}", node_script("rules-agree.mjs", &args));
    }
}

#[test]
fn the_pages_network_gives_kvarns_outputs() {
    if !have_node() {
        return;
    }
    let rules = Rules::new(Variant::Nine);
    let dir = tempfile::tempdir().unwrap();
    let device = Device::flex();
    let config = NetConfig::Mlp {
        hidden: 32,
        blocks: 2,
        ownership_head: false,
    };
    let net = Network::new(rules, config, 3, &device).unwrap();
    let model = dir.path().join("m.kvmodel");
    file::save(&net, &Provenance::default(), &model).unwrap();
    let site = dir.path().join("site");
    export(&model, "web", &site);
    // Positions of seeded random games, repetitions and removals included.
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(4);
    let mut cases = Vec::new();
    let mut game = Game::new(rules);
    for _ in 0..300 {
        if game.status().is_over() {
            game = Game::new(rules);
        }
        let mut x = vec![0f32; encoding::input_len(&rules)];
        encoding::encode_position(&rules, game.position(), game.occurrences(), &mut x);
        let out = net.evaluate(&x, None, 1);
        let moves: Vec<String> = game.moves().map(|m| m.to_string()).collect();
        cases.push(serde_json::json!({
            "moves": moves,
            "features": x,
            "policy_logits": out.policy_logits,
            "wdl": out.wdl,
        }));
        let legal = game.legal_moves();
        game.play_unchecked(legal[rng.random_range(0..legal.len())]);
    }
    let path = dir.path().join("cases.json");
    std::fs::write(&path, serde_json::to_vec(&cases).unwrap()).unwrap();
    let text = node_script("outputs.mjs", &[site.as_os_str(), path.as_os_str()]);
    println!("{text}");
}

/// The shipped Nine model exported as a web site into `dir`.
fn shipped_site(dir: &Path) -> PathBuf {
    let site = dir.join("site");
    export(&repo().join("models/nine.kvmodel"), "web", &site);
    site
}

#[test]
fn the_pages_search_beats_its_raw_policy_over_200_games() {
    if !have_node() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let site = shipped_site(dir.path());
    let text = node_script(
        "search-vs-policy.mjs",
        &[site.as_os_str(), "200".as_ref(), "64".as_ref()],
    );
    println!("{text}");
    let score: f64 = text
        .split("score ")
        .nth(1)
        .and_then(|t| t.split('%').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no score in {text}"));
    assert!(score >= 60.0, "{text}");
}

#[test]
fn a_whole_game_against_the_shipped_model_by_clicks_in_headless_chromium() {
    if !have_node() || !outside::chromium_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let site = shipped_site(dir.path());
    let shot = dir.path().join("page.png");
    let text = node_script("browser.mjs", &[site.as_os_str(), shot.as_os_str()]);
    let line = text.lines().rev().find(|l| l.starts_with('{')).unwrap();
    let played: serde_json::Value = serde_json::from_str(line).unwrap();
    // Every move the page showed is legal by Kvarn's rules, and the game ended as it says.
    let mut game = Game::new(Rules::new(Variant::Nine));
    game.play_text(played["moves"].as_str().unwrap())
        .unwrap_or_else(|e| panic!("{e}: {played}"));
    assert_eq!(
        game.status().result_name(),
        played["result"].as_str().unwrap(),
        "{played}"
    );
    assert!(
        std::fs::metadata(&shot).unwrap().len() > 10_000,
        "no screenshot"
    );
}
