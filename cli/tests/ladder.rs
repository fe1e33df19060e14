//! `kvarn ladder` on a tiny run: every generation and the baselines on one scale, the table
//! printed, ladder.csv / ladder.md / ladder.svg written, the same files from the same seed,
//! symmetric images at the leaves, and a generation without a model refused.

use std::path::Path;

mod common;
use common::{kvarn_in, ok_in};

const CONFIG: &str = r#"
seed = 3
[rules]
variant = "five"
[network]
kind = "mlp"
hidden = 16
blocks = 1
[search]
simulations = 8
[selfplay]
threads = 1
games_per_thread = 4
games_per_shard = 4
max_plies = 40
[train]
batch_size = 16
steps_per_generation = 4
[loop]
generations = 2
games_per_generation = 4
games_vs_previous = 2
games_vs_random = 2
baseline_depths = [1]
games_vs_baseline = 2
player = { simulations = 4 }
"#;

#[test]
fn a_tiny_run_on_one_scale() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("tiny.toml"), CONFIG).unwrap();
    ok_in(dir, &["train", "--config", "tiny.toml", "--out", "run"]);
    let csv = defaults(dir);
    // The same seed, the same games, the same scale.
    ok_in(
        dir,
        &[
            "ladder", "run", "--games", "4", "--seed", "7", "--out", "again",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("again/ladder.csv")).unwrap(),
        csv
    );
    options(dir);
}

/// Three generations (0, 1, 2), random and alpha-beta at depth 1 (the run's baselines):
/// five players, so every pair plays. Returns ladder.csv.
fn defaults(dir: &Path) -> String {
    let table = ok_in(dir, &["ladder", "run", "--games", "4", "--seed", "7"]);
    eprintln!("{table}");
    assert!(table.contains("5 players, 10 pairs, 4 games each: 40 games"));
    for name in [
        "gen-0000",
        "gen-0001",
        "gen-0002",
        "random",
        "alphabeta:depth=1",
    ] {
        assert!(table.contains(name), "{name} missing from\n{table}");
    }
    // Anchored at the first baseline other than random.
    assert!(
        table.contains("Elo relative to alphabeta:depth=1"),
        "{table}"
    );
    let out = dir.join("run/ladder");
    let csv = std::fs::read_to_string(out.join("ladder.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 5, "{csv}");
    assert_eq!(rows[0][0], "gen-0000");
    assert_eq!(rows[4][0], "alphabeta:depth=1");
    assert_eq!(rows[4][1..4], ["0.0", "0.0", "0.0"]);
    for r in &rows {
        let (elo, lo, hi): (f64, f64, f64) = (
            r[1].parse().unwrap(),
            r[2].parse().unwrap(),
            r[3].parse().unwrap(),
        );
        assert!(
            lo <= elo && elo <= hi && hi.is_finite() && lo.is_finite(),
            "{r:?}"
        );
        // Each player meets the four others for four games each.
        assert_eq!(r[5], "16");
    }
    let md = std::fs::read_to_string(out.join("ladder.md")).unwrap();
    assert!(md.contains("| gen-0001 vs gen-0002 |"), "{md}");
    let svg = std::fs::read_to_string(out.join("ladder.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("random ("));

    csv
}

/// Chosen generations, baselines and anchors; a missing generation.
fn options(dir: &Path) {
    let other = ok_in(
        dir,
        &[
            "ladder",
            "run",
            "--generations",
            "0,2",
            "--baselines",
            "random",
            "--anchor",
            "random",
            "--player",
            "simulations=2",
            "--games",
            "2",
            "--out",
            "other",
        ],
    );
    assert!(
        other.contains("3 players, 3 pairs, 2 games each"),
        "{other}"
    );
    assert!(other.contains("Elo relative to random"), "{other}");
    let csv = std::fs::read_to_string(dir.join("other/ladder.csv")).unwrap();
    assert!(csv.contains("\nrandom,0.0,0.0,0.0,"), "{csv}");
    // Generations, baselines of several options, and an anchor named by generation.
    let named = ok_in(
        dir,
        &[
            "ladder",
            "run",
            "--every",
            "2",
            "--baselines",
            "alphabeta:depth=1,threads=1,random",
            "--anchor",
            "gen-2",
            "--games",
            "2",
            "--out",
            "named",
        ],
    );
    assert!(named.contains("4 players, 6 pairs"), "{named}");
    assert!(named.contains("Elo relative to gen-0002"), "{named}");
    assert!(named.contains("alphabeta:depth=1,threads=1"), "{named}");

    let (ok, _, err) = kvarn_in(dir, &["ladder", "run", "--generations", "0,5"]);
    assert!(!ok);
    assert!(err.contains("generation 5 has no model"), "{err}");
    symmetries(dir);
}

/// The network players answer each leaf with the mean of `--player symmetries=K` images
/// (the run's `loop.player` by default), and say so; a count out of range is refused.
fn symmetries(dir: &Path) {
    let md = |out: &str| std::fs::read_to_string(dir.join(out).join("ladder.md")).unwrap();
    assert!(!md("run/ladder").contains("symmetric images"), "one image");
    ok_in(
        dir,
        &[
            "ladder",
            "run",
            "--generations",
            "0,2",
            "--baselines",
            "none",
            "--player",
            "symmetries=16",
            "--games",
            "2",
            "--out",
            "images",
        ],
    );
    let images = md("images");
    assert!(
        images.contains("4 simulations, each leaf the mean of 16 symmetric images"),
        "{images}"
    );
    let (ok, _, err) = kvarn_in(dir, &["ladder", "run", "--prior-draws=-1", "--out", "neg"]);
    assert!(!ok);
    assert!(
        err.contains("--prior-draws must be a count >= 0, not -1"),
        "{err}"
    );
    assert!(!dir.join("neg").exists(), "refused before any game");
    let (ok, _, err) = kvarn_in(dir, &["ladder", "run", "--player", "symmetries=17"]);
    assert!(!ok);
    assert!(
        err.contains("symmetries: `17` is not a whole number in 1..=16"),
        "{err}"
    );
}
