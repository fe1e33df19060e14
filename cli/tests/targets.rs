//! `kvarn eval targets` on a tiny Five run with Five solved whole: every sample judged,
//! the table printed by phase, search and exact value; a generation the run has not done
//! refused by name. `kvarn bench replay` on such a run: the window it measures is the one
//! the run trained on.

mod common;
use common::{kvarn_in, ok_in};

const CONFIG: &str = r#"
seed = 5
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
max_plies = 60
[selfplay.playout_cap]
enabled = true
full_probability = 0.5
cheap_simulations = 2
[train]
batch_size = 16
steps_per_generation = 4
search_value_share = 0.5
[loop]
generations = 2
games_per_generation = 4
games_vs_previous = 0
games_vs_random = 0
baseline_depths = []
[solver]
db = "db"
build_if_missing = false
positions = 12
games_vs_perfect = 0
games_from_positions = 0
"#;

/// A folder with Five solved whole in `db/` and the tiny run of [`CONFIG`] in `run/`.
fn five_run() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("run.toml"), CONFIG).unwrap();
    ok_in(dir, &["solve", "--variant", "five", "--out", "db"]);
    ok_in(dir, &["train", "--config", "run.toml", "--out", "run"]);
    tmp
}

#[test]
fn a_runs_value_targets_are_judged_against_the_databases() {
    let tmp = five_run();
    let dir = tmp.path();
    let table = ok_in(dir, &["eval", "targets", "run", "--db", "db"]);
    eprintln!("{table}");
    assert!(table.contains("generations 1 to 2"), "{table}");
    assert!(table.contains("search_value_share = 0.5"), "{table}");
    assert!(table.contains("0 samples not in the databases"), "{table}");
    let rows: Vec<Vec<&str>> = table
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let samples = |phase: &str, kind: &str| -> u64 {
        let r = rows
            .iter()
            .find(|r| r.len() == 8 && r[0] == phase && r[1] == kind);
        r.map_or(0, |r| r[2].parse().unwrap())
    };
    let all = samples("all", "all");
    assert!(all > 0, "{table}");
    assert_eq!(samples("all", "full") + samples("all", "cheap"), all);
    let by_value = samples("all", "won") + samples("all", "drawn") + samples("all", "lost");
    assert_eq!(by_value, all, "{table}");
    // Full searches are their own next full search.
    let full = rows
        .iter()
        .find(|r| r.len() == 8 && r[0] == "all" && r[1] == "full");
    let full = full.expect("full searches");
    assert_eq!(full[3], full[4], "{table}");
    let (ok, _, err) = kvarn_in(
        dir,
        &["eval", "targets", "run", "--db", "db", "--last", "3"],
    );
    assert!(!ok);
    assert!(err.contains("the run has done 1 to 2"), "{err}");
}

#[test]
fn bench_replay_measures_the_window_the_run_trained_on() {
    let tmp = five_run();
    let dir = tmp.path();
    let summary = std::fs::read_to_string(dir.join("run/summary.csv")).unwrap();
    let mut lines = summary.lines().map(|l| l.split(',').collect::<Vec<_>>());
    let header = lines.next().unwrap();
    let col = header
        .iter()
        .position(|&h| h == "train/window_samples")
        .unwrap();
    let trained: Vec<String> = lines.map(|r| r[col].to_string()).collect();
    for (g, samples) in [(1, &trained[0]), (2, &trained[1])] {
        let out = ok_in(
            dir,
            &[
                "bench",
                "replay",
                "run",
                "--generation",
                &g.to_string(),
                "--seconds",
                "0.05",
            ],
        );
        let want =
            format!("the window of generation {g} (4 generations at most): {samples} samples");
        assert!(out.contains(&want), "{want}\n{out}");
        assert!(out.contains("optimiser steps on one batch"), "{out}");
        assert!(out.contains("a generation's 4 steps"), "{out}");
    }
    let (ok, _, err) = kvarn_in(dir, &["bench", "replay", "run", "--generation", "3"]);
    assert!(!ok);
    assert!(err.contains("the run has done 1 to 2"), "{err}");
}
