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
    let done = export_with(format, out, &[model.to_path_buf()]);
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

#[test]
fn the_pages_player_plays_the_settings_its_model_was_measured_with() {
    if !have_node() {
        return;
    }
    // Six records its measured player (LCB choice, 16 symmetric images, twofold draws);
    // Nine records none.
    for name in ["six", "nine"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join(name);
        export(&repo().join(format!("models/{name}.kvmodel")), "onnx", &out);
        println!("{}", node_script("player.mjs", &[out.as_os_str()]));
    }
}

/// The shipped Nine model exported as a web site into `dir`.
fn shipped_site(dir: &Path) -> PathBuf {
    let site = dir.join("site");
    export(&repo().join("models/nine.kvmodel"), "web", &site);
    site
}

/// `kvarn export --format FORMAT --out OUT` of `models` (onnxruntime-web's files from
/// `web/node_modules`, which only `web` reads); its output.
fn export_with(format: &str, out: &Path, models: &[PathBuf]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kvarn"));
    command
        .args(["export", "--format", format, "--out"])
        .arg(out)
        .arg("--ort-dist")
        .arg(repo().join("web/node_modules/onnxruntime-web/dist"));
    for m in models {
        command.arg("--model").arg(m);
    }
    command.output().unwrap()
}

#[test]
fn one_site_holds_several_models_with_a_manifest() {
    if !have_node() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let models = [
        repo().join("models/nine.kvmodel"),
        repo().join("models/six.kvmodel"),
    ];
    let site = dir.path().join("site");
    let done = export_with("web", &site, &models);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(site.join("models.json")).unwrap()).unwrap();
    let entries = manifest["models"].as_array().unwrap();
    let names: Vec<&str> = entries
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["nine", "six"], "{manifest}");
    for (entry, variant) in entries.iter().zip(["nine", "six"]) {
        let folder = site.join(entry["dir"].as_str().unwrap());
        let card: serde_json::Value =
            serde_json::from_slice(&std::fs::read(folder.join("model-card.json")).unwrap())
                .unwrap();
        assert_eq!(card["rules"]["variant"], variant);
        assert_eq!(entry["variant"], variant);
        assert!(folder.join("model.onnx").is_file());
    }
    assert!(site.join("src/worker.js").is_file() && site.join("index.html").is_file());

    // One model: beside the page, the manifest naming the site's own folder.
    let one = dir.path().join("one");
    assert!(export_with("web", &one, &models[..1]).status.success());
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(one.join("models.json")).unwrap()).unwrap();
    assert_eq!(manifest["models"][0]["dir"], ".");
    assert!(one.join("model-card.json").is_file());

    // Several models are for the web site only, and two of one name are refused.
    let refused = export_with("onnx", &dir.path().join("onnx"), &models);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("only --format web takes several"));
    let twice = export_with(
        "web",
        &dir.path().join("twice"),
        &[models[0].clone(), models[0].clone()],
    );
    assert!(!twice.status.success());
    assert!(String::from_utf8_lossy(&twice.stderr).contains("two models are named nine"));
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

/// Checks a game the page played: every move legal by Kvarn's rules, and the game ended
/// as the page says.
fn check_game(game: &serde_json::Value, rules: Rules) {
    let mut kvarn = Game::new(rules);
    kvarn
        .play_text(game["moves"].as_str().unwrap())
        .unwrap_or_else(|e| panic!("{e}: {game}"));
    assert_eq!(
        kvarn.status().result_name(),
        game["result"].as_str().unwrap(),
        "{game}"
    );
}

#[test]
fn the_page_in_headless_chromium_at_desktop_and_phone_sizes() {
    if !outside::node_with(
        &repo().join("web"),
        &["onnxruntime-web", "playwright-core", "axe-core"],
    ) || !outside::chromium_present()
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let models = [
        repo().join("models/nine.kvmodel"),
        repo().join("models/six.kvmodel"),
    ];
    let done = export_with("web", &site, &models);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let shots = dir.path().join("shots");
    std::fs::create_dir(&shots).unwrap();
    let kvarn = Path::new(env!("CARGO_BIN_EXE_kvarn"));
    let text = node_script(
        "browser.mjs",
        &[site.as_os_str(), kvarn.as_os_str(), shots.as_os_str()],
    );
    let line = text.lines().rev().find(|l| l.starts_with('{')).unwrap();
    let figures: serde_json::Value = serde_json::from_str(line).unwrap();
    println!("{figures}");
    // A game by clicks at the desktop size and one by the keyboard at the phone size.
    let nine = Rules::new(Variant::Nine);
    check_game(&figures["clicked_game"], nine);
    check_game(&figures["keyboard_game"], nine);
    assert!(figures["undo_while_thinking_ms"].as_f64().unwrap() < 100.0);
    assert!(figures["phone_smallest_point_px"].as_f64().unwrap() >= 44.0);
    for shot in ["web-desktop.png", "web-phone.png"] {
        assert!(
            std::fs::metadata(shots.join(shot)).unwrap().len() > 10_000,
            "no screenshot {shot}"
        );
    }
}
