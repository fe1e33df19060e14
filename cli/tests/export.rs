//! `kvarn export` against onnxruntime: the ONNX file passes `onnx.checker`, gives burn's
//! outputs within 1e-4 on a few hundred positions, and the reference consumer
//! (`scripts/onnx_consumer.py`) encodes positions, lists legal moves and picks the same
//! best move as Kvarn with the same network.
//!
//! Needs a Python with `onnx`, `onnxruntime` and `numpy` (`KVARN_PYTHON`, default
//! `python3`); skipped without it (`testing/outside.rs`); `scripts/test.sh` and CI provide
//! one.

use std::path::{Path, PathBuf};
use std::process::Command;

use kvarn_game::{ActionSpace, Game, Rules, Variant, encoding};
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

/// True where the tests' Python has onnx, onnxruntime and numpy (else the test is skipped).
fn have_python_packages() -> bool {
    outside::python_with("onnx, onnxruntime, numpy")
}

fn check(rules: Rules, config: NetConfig, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let device = Device::flex();
    let net = Network::new(rules, config, seed, &device).unwrap();
    let model = dir.path().join("m.kvmodel");
    file::save(&net, &Provenance::default(), &model).unwrap();
    let out = dir.path().join("export");
    let status = Command::new(env!("CARGO_BIN_EXE_kvarn"))
        .args(["export", "--format", "onnx", "--model"])
        .arg(&model)
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    compare(rules, &net, &out, seed);
}

/// Compares the ONNX export in `out` with `net` on positions from seeded random games
/// (repetitions included) through onnxruntime and the reference consumer.
fn compare(rules: Rules, net: &Network, out: &Path, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let space = ActionSpace::new(&rules);
    let input = encoding::input_len(&rules);
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let mut game = Game::new(rules);
    let (mut features, mut positions) = (Vec::new(), Vec::new());
    let mut rows = Vec::new();
    for _ in 0..300 {
        if game.status().is_over() {
            game = Game::new(rules);
        }
        let mut x = vec![0f32; input];
        encoding::encode_position(&rules, game.position(), game.occurrences(), &mut x);
        let mut mask = vec![false; space.len()];
        space.legal_mask(&rules, game.position(), &mut mask);
        rows.push((
            x.clone(),
            mask,
            game.position().to_position_string(&rules),
            game.occurrences(),
        ));
        features.extend(x);
        let moves = game.legal_moves();
        game.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    let outs = net.evaluate(&features, None, rows.len());
    let names = space.names();
    for (i, (x, mask, text, occurrences)) in rows.iter().enumerate() {
        let logits = &outs.policy_logits[i * space.len()..(i + 1) * space.len()];
        let legal: Vec<usize> = (0..space.len()).filter(|&a| mask[a]).collect();
        let best = legal
            .iter()
            .copied()
            .max_by(|&a, &b| logits[a].total_cmp(&logits[b]).then(b.cmp(&a)))
            .unwrap();
        positions.push(serde_json::json!({
            "position": text,
            "occurrences": occurrences,
            "features": x,
            "legal_logits": legal.iter().map(|&a| logits[a]).collect::<Vec<_>>(),
            "legal": legal,
            "best": names[best],
        }));
    }
    let data = serde_json::json!({
        "features": features.chunks(input).collect::<Vec<_>>(),
        "policy_logits": outs.policy_logits.chunks(space.len()).collect::<Vec<_>>(),
        "wdl": outs.wdl.chunks(3).collect::<Vec<_>>(),
        "positions": positions,
    });
    let data_path = dir.path().join("data.json");
    std::fs::write(&data_path, serde_json::to_vec(&data).unwrap()).unwrap();
    let result = Command::new(outside::python())
        .arg(repo().join("scripts/check_onnx_export.py"))
        .arg(out)
        .arg(&data_path)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    );
    assert!(
        result.status.success(),
        "{rules} {:?}:\n{text}",
        net.config()
    );
    println!("{rules}, {}: {text}", net.config().describe());
}

#[test]
fn onnx_export_matches_burn_and_the_reference_consumer() {
    if !have_python_packages() {
        return;
    }
    check(
        Rules::new(Variant::Nine),
        NetConfig::Mlp {
            hidden: 32,
            blocks: 2,
            ownership_head: false,
        },
        1,
    );
    check(
        Rules::new(Variant::Six),
        NetConfig::Mlp {
            hidden: 16,
            blocks: 1,
            ownership_head: false,
        },
        2,
    );
    check(
        Rules::new(Variant::Nine).with_flying(false).unwrap(),
        NetConfig::Graph {
            channels: 16,
            layers: 2,
            value_hidden: 16,
        },
        3,
    );
    check(
        Rules::new(Variant::Five),
        NetConfig::Graph {
            channels: 8,
            layers: 1,
            value_hidden: 8,
        },
        4,
    );
}

/// A shipped model `models/NAME.kvmodel` and its committed export `models/NAME-onnx/`
/// give the same outputs: the export was made from the file beside it.
fn shipped_model_matches_its_export(variant: Variant, name: &str) {
    if !have_python_packages() {
        return;
    }
    let rules = Rules::new(variant);
    let model = repo().join(format!("models/{name}.kvmodel"));
    let (net, _) = file::load_for_rules(&model, &rules, &Device::flex())
        .unwrap_or_else(|e| panic!("the shipped model {}: {e}", model.display()));
    compare(rules, &net, &repo().join(format!("models/{name}-onnx")), 7);
}

#[test]
fn the_shipped_nine_model_matches_its_committed_onnx_export() {
    shipped_model_matches_its_export(Variant::Nine, "nine");
}

#[test]
fn the_shipped_six_model_matches_its_committed_onnx_export() {
    shipped_model_matches_its_export(Variant::Six, "six");
}
