//! What the commands write, and where: a closed standard output, records and shards that
//! are not overwritten unless asked, a match whose games failed.

use std::path::Path;
use std::process::{Command, Stdio};

#[path = "../../testing/paths.rs"]
mod paths;

mod common;
use common::kvarn;

/// Runs `kvarn` with `args` and a standard output whose reader has already gone, as in
/// `kvarn ... | head -0`; returns the exit status and standard error.
fn kvarn_into_a_closed_pipe(args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_kvarn"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("kvarn runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_standard_output_ends_commands_quietly() {
    for args in [
        &["perft", "--variant", "six", "--depth", "3", "--divide"][..],
        &["moves", "--variant", "six", "--moves", "b6 b2 d6"],
    ] {
        let (code, err) = kvarn_into_a_closed_pipe(args);
        assert_eq!(code, Some(141), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("Broken pipe"), "{args:?}: {err}");
    }
}

/// The small self-play configuration the tests play.
fn selfplay_config() -> String {
    let config = paths::workspace().join("configs/selfplay-six.toml");
    config.to_str().unwrap().to_string()
}

/// `kvarn selfplay` of two games of Six at 2 simulations on one thread into `out`.
fn small_selfplay<'a>(config: &'a str, out: &'a Path) -> Vec<&'a str> {
    let mut args = vec!["selfplay", "--config", config];
    args.extend(["--games", "2", "--simulations", "2", "--threads", "1"]);
    args.extend(["--out", out.to_str().unwrap()]);
    args
}

#[test]
fn selfplay_refuses_a_folder_that_holds_shards_unless_told_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("shards");
    std::fs::create_dir(&out).unwrap();
    let old = out.join("selfplay-g0000000.kvsp");
    std::fs::write(&old, b"an earlier run's games").unwrap();
    std::fs::write(out.join("selfplay-g0000064.kvsp"), b"more").unwrap();
    let config = selfplay_config();
    let args = small_selfplay(&config, &out);
    let (ok, _, err) = kvarn(&args);
    assert!(!ok);
    assert!(err.contains(out.to_str().unwrap()), "{err}");
    assert!(
        err.contains("holds 2 shards") && err.contains("--overwrite"),
        "{err}"
    );
    assert_eq!(std::fs::read(&old).unwrap(), b"an earlier run's games");
    let mut again = args.to_vec();
    again.push("--overwrite");
    let (ok, _, err) = kvarn(&again);
    assert!(ok, "{err}");
    assert!(
        !out.join("selfplay-g0000064.kvsp").exists(),
        "old shards go"
    );
    assert_ne!(std::fs::read(&old).unwrap(), b"an earlier run's games");
}

#[test]
fn selfplay_refuses_a_folder_another_process_writes() {
    // The folder is locked as `kvarn selfplay` locks it while it plays: a second one into
    // it is refused by name and writes nothing (two at once used to mix their shards).
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("shards");
    std::fs::create_dir(&out).unwrap();
    let _held = kvarn_storage::lock_folder(&out, kvarn_storage::OUTPUT_LOCK).unwrap();
    let config = selfplay_config();
    let (ok, _, err) = kvarn(&small_selfplay(&config, &out));
    assert!(!ok);
    assert!(err.contains("is in use by another kvarn (process"), "{err}");
    let shards = std::fs::read_dir(&out)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "kvsp")
        })
        .count();
    assert_eq!(shards, 0);
}

#[test]
fn a_file_where_an_output_folder_is_expected_is_named_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out");
    std::fs::write(&file, b"not a folder").unwrap();
    let config = paths::workspace().join("configs/selfplay-six.toml");
    let file = file.to_str().unwrap();
    let commands: [&[&str]; 2] = [
        &[
            "selfplay",
            "--config",
            config.to_str().unwrap(),
            "--games",
            "2",
            "--out",
            file,
        ],
        &["solve", "--variant", "five", "--out", file],
    ];
    for args in commands {
        let (ok, _, err) = kvarn(args);
        assert!(!ok, "{args:?}");
        assert!(
            err.contains("out is a file where a folder is expected"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(std::fs::read(file).unwrap(), b"not a folder");
}

#[test]
fn selfplay_branches_from_the_shards_it_is_given_and_asks_for_them() {
    let dir = tempfile::tempdir().unwrap();
    let base = paths::workspace().join("configs/selfplay-six.toml");
    let config = dir.path().join("branch.toml");
    let text = std::fs::read_to_string(&base).unwrap();
    std::fs::write(&config, text + "\n[selfplay.branch_starts]\nshare = 1.0\n").unwrap();
    let (earlier, later, stats) = (
        dir.path().join("earlier"),
        dir.path().join("later"),
        dir.path().join("stats.json"),
    );
    let play = |config: &Path, out: &Path, extra: &[&str]| {
        let mut args = vec!["selfplay", "--config", config.to_str().unwrap()];
        args.extend(["--games", "4", "--simulations", "2", "--threads", "1"]);
        args.extend(["--out", out.to_str().unwrap()]);
        args.extend(extra);
        kvarn(&args)
    };
    let (ok, _, err) = play(&config, &later, &[]);
    assert!(!ok);
    assert!(
        err.contains("--branch-from") && err.contains("branch.toml"),
        "{err}"
    );
    let (ok, _, err) = play(
        &config,
        &later,
        &["--branch-from", earlier.to_str().unwrap()],
    );
    assert!(
        !ok && err.contains("earlier") && err.contains("no shards"),
        "{err}"
    );
    let (ok, _, err) = play(&base, &earlier, &[]);
    assert!(ok, "{err}");
    let from = ["--branch-from", earlier.to_str().unwrap(), "--stats"];
    let (ok, out, err) = play(
        &config,
        &later,
        &[&from[..], &[stats.to_str().unwrap()]].concat(),
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("100.0% of games started from positions of earlier games"),
        "{out}"
    );
    let figures: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(figures["branch_starts"], 4, "{figures}");
}

/// `kvarn match` of two quick agents in Five, writing to `out`, with `extra` arguments.
fn quick_match(out: &Path, extra: &[&str]) -> (bool, String, String) {
    let mut args = vec![
        "match",
        "--variant",
        "five",
        "--a",
        "alphabeta:depth=1,seed=1",
        "--b",
        "random:seed=2",
        "--games",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    kvarn(&args)
}

#[test]
fn match_checks_its_records_file_before_playing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("games.jsonl");
    let (ok, stdout, err) = quick_match(&out, &[]);
    assert!(ok, "{err}");
    assert!(stdout.contains("score"), "{stdout}");
    let first = std::fs::read(&out).unwrap();
    // An existing file is refused before any game, naming what it holds.
    let (ok, stdout, err) = quick_match(&out, &[]);
    assert!(!ok);
    assert!(!stdout.contains("score"), "{stdout}");
    assert!(err.contains("exists (the records of 2 games"), "{err}");
    assert!(err.contains("--overwrite"), "{err}");
    std::fs::write(&out, "notes").unwrap();
    let (ok, _, err) = quick_match(&out, &[]);
    assert!(!ok && err.contains("not match records"), "{err}");
    let (ok, _, err) = quick_match(&out, &["--overwrite"]);
    assert!(ok, "{err}");
    assert_eq!(
        std::fs::read(&out).unwrap(),
        first,
        "the same seed, the same games"
    );
    // A folder that cannot be written is found before any game is played.
    let blocked = dir.path().join("a-file");
    std::fs::write(&blocked, "").unwrap();
    let (ok, stdout, err) = quick_match(&blocked.join("games.jsonl"), &[]);
    assert!(!ok);
    assert!(err.contains("nothing was played"), "{err}");
    assert!(!stdout.contains("score"), "{stdout}");
}

#[test]
fn a_match_whose_games_fail_says_so_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    // Databases of three men a side only: the perfect player cannot play a whole game.
    let rules = ["--variant", "nine", "--flying", "off"];
    let mut solve = vec!["solve", "--max-men", "3", "--out", db.to_str().unwrap()];
    solve.extend(rules);
    let (ok, _, err) = kvarn(&solve);
    assert!(ok, "{err}");
    // `kvarn probe ... | head -1` ends quietly too.
    let mut probe = vec!["probe", "--db", db.to_str().unwrap()];
    probe.extend(rules);
    probe.push("WW.W..../......B./B...B... w 0/0 - 0 40");
    let (code, err) = kvarn_into_a_closed_pipe(&probe);
    assert_eq!(code, Some(141), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let out = dir.path().join("games.jsonl");
    let spec = format!("perfect:db={}", db.display());
    let mut args = vec!["match", "--a", &spec, "--b", "random", "--games", "2"];
    args.extend(rules);
    args.extend(["--out", out.to_str().unwrap()]);
    let (ok, stdout, err) = kvarn(&args);
    assert!(!ok, "{stdout}");
    assert!(stdout.contains("2 FAILED"), "{stdout}");
    assert!(!stdout.contains("score 50"), "{stdout}");
    assert!(stdout.contains("no game finished"), "{stdout}");
    assert!(err.contains("2 of 2 games failed"), "{err}");
    assert!(err.contains("do not cover"), "{err}");
    assert!(!out.exists(), "no records file of no games");
    // Games that keep failing stop the match after a run of them, not after every game.
    let mut args = vec!["match", "--a", &spec, "--b", "random", "--games", "40"];
    args.extend(rules);
    args.extend(["--out", out.to_str().unwrap()]);
    let (ok, _, err) = kvarn(&args);
    assert!(!ok);
    assert!(
        err.contains("stopped after 8 games in a row failed"),
        "{err}"
    );
    assert!(
        !err.contains("of 40 games failed"),
        "the rest were not played: {err}"
    );
}

#[test]
fn solve_export_and_bench_set_refuse_a_folder_another_process_writes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let _held = kvarn_storage::lock_folder(&out, kvarn_storage::OUTPUT_LOCK).unwrap();
    let model = paths::workspace().join("models/six.kvmodel");
    let (out_s, model_s) = (out.to_str().unwrap(), model.to_str().unwrap());
    let set = out.join("set.jsonl");
    let db = dir.path().join("db");
    let commands: [Vec<&str>; 3] = [
        vec!["solve", "--variant", "five", "--out", out_s],
        vec![
            "export", "--model", model_s, "--format", "onnx", "--out", out_s,
        ],
        vec![
            "bench-set",
            "--variant",
            "five",
            "--db",
            db.to_str().unwrap(),
            "--n",
            "10",
            "--out",
            set.to_str().unwrap(),
        ],
    ];
    for args in commands {
        let (ok, _, err) = kvarn(&args);
        assert!(!ok, "{args:?}");
        assert!(
            err.contains("is in use by another kvarn (process"),
            "{args:?}: {err}"
        );
    }
    let written: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != kvarn_storage::OUTPUT_LOCK)
        .collect();
    assert!(written.is_empty(), "{written:?}");
}
