//! The `kvarn` program as a user and other programs drive it.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

#[path = "../../testing/paths.rs"]
mod paths;

mod common;
use common::kvarn;

/// Runs `kvarn` with `input` on its standard input; returns success and standard output.
fn kvarn_with_input(args: &[&str], input: &[u8]) -> (bool, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kvarn"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("kvarn runs");
    // A command that refuses its arguments exits before it reads its input.
    if let Err(e) = child.stdin.take().unwrap().write_all(input) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The `legal` list of a `kvarn moves` answer.
fn legal_of(v: &Value) -> Vec<&str> {
    v["legal"]
        .as_array()
        .expect("a legal list")
        .iter()
        .map(|m| m.as_str().expect("moves are strings"))
        .collect()
}

#[test]
fn moves_reports_legal_moves_status_side_and_position() {
    let (ok, out, err) = kvarn(&["moves", "--variant", "six", "--moves", "b6 b2 d6 d2 f6"]);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["status"], "ongoing");
    assert_eq!(v["to_move"], "white");
    assert_eq!(v["pending_removal"], true);
    let legal = legal_of(&v);
    assert_eq!(legal, ["xd2", "xb2"], "in action-index order");
    assert_eq!(v["position"], "WWW..BB./........ w 3/4 x 4 4");
}

#[test]
fn moves_reports_a_finished_game_with_its_reason() {
    let (ok, out, err) = kvarn(&[
        "moves",
        "--position",
        "....W.../WW....../......B. b 0/0 - 0 40",
        "--moves",
        "",
    ]);
    // Black has one man left: White has already won.
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["status"], "white_wins");
    assert_eq!(v["reason"], "too_few_men");
    assert_eq!(v["legal"].as_array().unwrap().len(), 0);
}

#[test]
fn stdin_mode_answers_every_line_and_names_the_bad_move() {
    let (ok, out) = kvarn_with_input(
        &["moves", "--stdin"],
        b"d6 d2\nd6 d6\n\nd6 zz\n\xff\xfe d6\nd6\n",
    );
    assert!(ok);
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0]["legal"].as_array().unwrap().len(), 22);
    assert_eq!(lines[1]["index"], 1);
    assert_eq!(lines[1]["move"], "d6");
    assert!(lines[1]["error"].as_str().unwrap().contains("occupied"));
    assert_eq!(lines[2]["legal"].as_array().unwrap().len(), 24);
    assert_eq!(lines[3]["index"], 1);
    assert!(lines[3]["error"].as_str().unwrap().contains("not a point"));
    assert_eq!(
        lines[4]["index"], 0,
        "a line that is not UTF-8 is answered too"
    );
    assert_eq!(lines[5]["legal"].as_array().unwrap().len(), 23);
}

#[test]
fn an_illegal_move_list_fails_with_the_reason() {
    let (ok, out, err) = kvarn(&["moves", "--moves", "d6 d6"]);
    assert!(!ok);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["index"], 1);
    assert!(err.contains("occupied"), "{err}");
}

#[test]
fn forbidden_rule_switches_and_bad_positions_are_refused_clearly() {
    let (ok, _, err) = kvarn(&["moves", "--variant", "six", "--flying", "on"]);
    assert!(!ok);
    assert!(
        err.contains("Six Men's Morris does not offer flying"),
        "{err}"
    );
    let (ok, _, err) = kvarn(&["moves", "--variant", "seven"]);
    assert!(!ok);
    assert!(err.contains("unknown variant"), "{err}");
    let (ok, _, err) = kvarn(&["moves", "--no-capture-limit", "0"]);
    assert!(!ok);
    assert!(err.contains("at least 1"), "{err}");
    let (ok, _, err) = kvarn(&["moves", "--no-capture-limit", "many"]);
    assert!(!ok);
    assert!(err.contains("neither a number"), "{err}");
    let (ok, _, err) = kvarn(&["moves", "--position", "......../........ w 9/9 - 0 0"]);
    assert!(!ok);
    assert!(err.contains("board") && err.contains("3 groups"), "{err}");
    let (ok, _, err) = kvarn(&[
        "moves",
        "--variant",
        "six",
        "--fen",
        "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1",
    ]);
    assert!(!ok);
    assert!(err.contains("24-point"), "{err}");
}

#[test]
fn fen_input_and_output() {
    let (ok, out, err) = kvarn(&[
        "moves",
        "--fen",
        "****@***/****O***/******** w p p 1 8 1 8 0 0 0 0 0 0 0 0 1",
    ]);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["fen"],
        "****@***/****O***/******** w p p 1 8 1 8 0 0 0 0 0 0 0 0 1"
    );
    assert_eq!(v["legal"].as_array().unwrap().len(), 22);
}

#[test]
fn perft_prints_counts_by_depth() {
    let (ok, out, err) = kvarn(&["perft", "--variant", "five", "--depth", "4"]);
    assert!(ok, "{err}");
    assert!(out.contains("depth  4:          43680 nodes"), "{out}");
    let (ok, out, _) = kvarn(&["perft", "--depth", "2", "--divide"]);
    assert!(ok);
    assert!(out.lines().any(|l| l.trim() == "a7: 23"), "{out}");
}

#[test]
fn bench_movegen_prints_figures() {
    let (ok, out, err) = kvarn(&["bench", "movegen", "--seconds", "0.2", "--perft-depth", "3"]);
    assert!(ok, "{err}");
    assert!(out.contains("M plies/s"), "{out}");
    assert!(out.contains("perft 3: 12144 nodes"), "{out}");
}

#[test]
fn legal_moves_come_in_action_index_order() {
    let (ok, out, err) = kvarn(&[
        "moves",
        "--flying",
        "off",
        "--position",
        "W.....W./.W....W./B.B.B... w 0/0 - 0 40",
    ]);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let legal = legal_of(&v);
    assert_eq!(
        legal,
        [
            "a7-d7", "a7-a4", "a1-d1", "a1-a4", "d6-d7", "d6-b6", "d6-f6", "d6-d5", "b2-d2",
            "b2-b4"
        ]
    );
}

#[test]
fn bench_refuses_a_time_that_is_no_duration() {
    let (ok, _, err) = kvarn(&["bench", "movegen", "--seconds", "1e300"]);
    assert!(!ok);
    assert!(err.contains("not a duration"), "{err}");
}

#[test]
fn a_match_against_the_engine_protocol_and_its_records() {
    let dir = std::env::temp_dir().join(format!("kvarn-cli-match-{}", std::process::id()));
    let out = dir.join("games.jsonl");
    let engine = format!("engine:cmd={} engine,depth=2", env!("CARGO_BIN_EXE_kvarn"));
    let (ok, stdout, err) = kvarn(&[
        "match",
        "--variant",
        "six",
        "--a",
        &engine,
        "--b",
        "alphabeta:depth=2,seed=1",
        "--games",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(stdout.contains("Elo difference"), "{stdout}");
    assert!(stdout.contains("mean time per move"), "{stdout}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 4, "header, two games, checksum");
    assert!(text.lines().next().unwrap().contains("kvarn-match-records"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_agent_spec_is_refused() {
    let (ok, _, err) = kvarn(&["match", "--a", "alphabeta", "--b", "random"]);
    assert!(!ok);
    assert!(err.contains("give a limit"), "{err}");
    // The list of kinds in the refusal names every kind the command line takes.
    let (ok, _, err) = kvarn(&["match", "--a", "minimax:depth=2", "--b", "random"]);
    assert!(!ok);
    assert!(
        err.contains(
            "unknown agent `minimax` (expected random, alphabeta, perfect, engine or net)"
        ),
        "{err}"
    );
}

#[test]
fn play_answers_a_bad_move_with_the_reason_and_the_legal_moves() {
    let (ok, text) = kvarn_with_input(
        &[
            "play",
            "--variant",
            "six",
            "--vs",
            "random",
            "--as",
            "white",
        ],
        b"a7\nb6 d6\nb6\nquit\n",
    );
    assert!(ok);
    assert!(
        text.contains("a7 is not a point of the Six Men's Morris"),
        "{text}"
    );
    assert!(text.contains("legal moves: b6 d6 f6"), "{text}");
    assert!(text.contains("one move at a time"), "{text}");
    assert!(text.contains("random plays"), "{text}");
    assert!(
        text.contains("W"),
        "the board shows the man placed:\n{text}"
    );
}

#[test]
fn solve_writes_databases_that_probe_reads_and_a_second_run_resumes() {
    let dir = std::env::temp_dir().join(format!("kvarn-cli-solve-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let args = [
        "solve",
        "--variant",
        "nine",
        "--flying",
        "off",
        "--max-men",
        "3",
        "--out",
        d,
    ];
    solve_verifies_and_resumes(&args);
    probe_reads_the_databases(d);
    the_perfect_player_scores_a_bench_set(&dir, d);
    a_damaged_database_is_refused(&dir, &args);
    std::fs::remove_dir_all(&dir).ok();
    // Five is solved whole: a count of men for Nine's endgames is refused, not ignored.
    let five = dir.join("five");
    let (ok, _, err) = kvarn(&[
        "solve",
        "--variant",
        "five",
        "--max-men",
        "4",
        "--out",
        five.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        err.contains("--max-men is for Nine Men's Morris's endgames"),
        "{err}"
    );
    assert!(!five.exists(), "refused before any work");
}

/// The solve test's first stage: a verified solve of `args`, then a second run that
/// resumes.
fn solve_verifies_and_resumes(args: &[&str]) {
    let mut first = args.to_vec();
    first.extend(["--verify", "50"]);
    let (ok, out, err) = kvarn(&first);
    assert!(ok, "{err}");
    assert!(out.contains("consistency: all"), "{out}");
    assert!(
        out.contains("forward search: 50 random positions agree"),
        "{out}"
    );
    assert!(
        out.contains("nine-nofly_w3b3_h0-0_white.kvdb: won 90842 drawn 38622 lost 40162"),
        "{out}"
    );
    let (ok, out, err) = kvarn(args);
    assert!(ok, "{err}");
    assert!(out.contains("(resumed)"), "{out}");
}

/// The solve test's second stage: `probe` reads values and best moves from the databases
/// in `d`, and refuses a position they do not cover.
fn probe_reads_the_databases(d: &str) {
    // White (a7 d7 g4) closes a7-d7-g7 and removes: Black is left with two men.
    let (ok, out, err) = kvarn(&[
        "probe",
        "--variant",
        "nine",
        "--flying",
        "off",
        "--db",
        d,
        "WW.W..../......B./B...B... w 0/0 - 0 40",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("white to move: win in 1 turn for"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.trim() == "g4-g7  win in 1 turn for the player to move"),
        "{out}"
    );
    // A pending removal: any removal leaves Black with two men.
    let probe = |position: &str| {
        kvarn(&[
            "probe",
            "--variant",
            "nine",
            "--flying",
            "off",
            "--db",
            d,
            position,
        ])
    };
    let (ok, out, err) = probe("WWW...../......B./B...B... w 0/0 x 0 40");
    assert!(ok, "{err}");
    assert!(out.contains("white to move: win in 1 turn for"), "{out}");
    assert!(out.contains("xb2  win in 1 turn"), "{out}");
    // Black on a7 d7 g7 is shut in by a4, d6 and g4: lost, and no move to show.
    let (ok, out, err) = probe("BBBW...W/.W....../........ b 0/0 - 0 40");
    assert!(ok, "{err}");
    assert!(
        out.contains("black to move: lost (the game is over: "),
        "{out}"
    );
    assert_eq!(
        out.lines().count(),
        2,
        "a finished game lists no moves: {out}"
    );
    // Black down to two men (a7, d7) has moves, but the game is over: none are listed,
    // and no database is needed for them.
    let (ok, out, err) = probe("BB.W...W/.W....../........ b 0/0 - 0 40");
    assert!(ok, "{err}");
    assert!(
        out.contains("black to move: lost (the game is over: "),
        "{out}"
    );
    assert_eq!(out.lines().count(), 2, "{out}");
    // A position the databases do not cover is refused with the reason.
    let (ok, _, err) = kvarn(&[
        "probe",
        "--variant",
        "nine",
        "--flying",
        "off",
        "--db",
        d,
        "startpos",
    ]);
    assert!(!ok);
    assert!(err.contains("do not cover"), "{err}");
}

/// Every line of a JSON-lines file (a benchmark set's header and trailer too), parsed.
fn json_lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `kvarn bench-set` of `n` positions of Nine without flying from the databases in `d`,
/// with `extra` arguments, into `out`.
fn bench_set(d: &str, n: &str, extra: &[&str], out: &std::path::Path) -> (bool, String, String) {
    let mut args = vec![
        "bench-set",
        "--variant",
        "nine",
        "--flying",
        "off",
        "--db",
        d,
    ];
    args.extend(["--n", n, "--out", out.to_str().unwrap()]);
    args.extend(extra);
    kvarn(&args)
}

/// The solve test's third stage: a benchmark set drawn from the databases in `d`, which
/// the perfect player scores perfectly.
fn the_perfect_player_scores_a_bench_set(dir: &std::path::Path, d: &str) {
    // A benchmark set from the databases, and the perfect player's perfect score on it.
    let set = dir.join("set.jsonl");
    let (ok, out, err) = bench_set(d, "60", &[], &set);
    assert!(ok, "{err}");
    assert!(out.contains("60 positions written"), "{out}");
    let (ok, out, err) = kvarn(&[
        "eval",
        "solver",
        "--set",
        set.to_str().unwrap(),
        "--agent",
        &format!("perfect:db={d}"),
        "--games-from",
        "4",
        "--db",
        d,
    ]);
    assert!(ok, "{err}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("all") && l.contains("100.0%") && l.ends_with("0.0%")),
        "{out}"
    );
    // Its outcome estimates are all right, each exact value's row of the table included.
    let table = estimate_rows(&out);
    assert!(table.len() >= 3, "{out}");
    assert!(table.iter().all(|l| l.ends_with(" 100.0%")), "{out}");
    // From drawn and won positions the perfect player, to move, never loses.
    assert!(
        out.contains("from 4 Draw critical positions against the perfect player: held 4 ("),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("from 4 Win critical") && l.ends_with("-0 W-D-L)")),
        "{out}"
    );
    the_misses_are_a_benchmark_set(dir, d, &set);
    the_misnamed_are_a_benchmark_set(dir, &set);
    a_random_players_lost_games_are_listed(dir, d, &set);
    a_further_set_is_critical_and_beside_the_committed(dir, d);
}

/// `--out` and `--heldout` naming one file (however spelt) are refused before any work and
/// nothing is written; so is a set that `--critical` leaves empty.
fn a_bench_set_refuses_one_file_for_both_halves_and_an_empty_set(dir: &std::path::Path, d: &str) {
    let both = dir.join("both.jsonl");
    let spelt_otherwise = dir.join(".").join("both.jsonl");
    let extra = ["--heldout", spelt_otherwise.to_str().unwrap()];
    let (ok, _, err) = bench_set(d, "40", &extra, &both);
    assert!(!ok);
    assert!(
        err.contains("--out and --heldout name the same file"),
        "{err}"
    );
    assert!(!both.exists(), "nothing is written");
    // More positions than the databases hold is refused at once, not sought for ever.
    let (ok, _, err) = bench_set(d, "100000000", &[], &both);
    assert!(!ok);
    assert!(
        err.contains("is more positions than the databases in"),
        "{err}"
    );
    assert!(!both.exists(), "nothing is written");
    // Of single positions drawn with seeds 1 to 20 some are not critical: each such draw
    // is refused, and writes nothing.
    let mut refused = 0;
    for seed in 1..=20 {
        let empty = dir.join(format!("empty-{seed}.jsonl"));
        let (ok, _, err) = bench_set(d, "1", &["--critical", "--seed", &seed.to_string()], &empty);
        if !ok {
            assert!(
                err.contains("no position is left of the 1 sampled that is critical"),
                "{err}"
            );
            assert!(!empty.exists(), "no empty set is written");
            refused += 1;
        }
    }
    assert!(refused > 0, "every single position drawn was critical");
}

/// `--critical --beside-committed`: only critical positions, none of the committed sets'.
fn a_further_set_is_critical_and_beside_the_committed(dir: &std::path::Path, d: &str) {
    let set = dir.join("further.jsonl");
    let extra = ["--seed", "4", "--critical", "--beside-committed"];
    let (ok, out, err) = bench_set(d, "300", &extra, &set);
    assert!(ok, "{err}");
    assert!(
        out.contains(" of 300 positions are the committed sets'"),
        "{out}"
    );
    a_bench_set_refuses_one_file_for_both_halves_and_an_empty_set(dir, d);
    let committed: std::collections::HashSet<String> = ["heldout", "tuning"]
        .iter()
        .flat_map(|part| {
            let path = paths::workspace().join(format!(
                "eval/solver/benchmarks/nine-nofly-endgame-{part}.jsonl"
            ));
            json_lines(&path)
                .into_iter()
                .filter_map(|v| v["position"].as_str().map(String::from))
        })
        .collect();
    assert!(committed.len() > 500);
    let rows: Vec<serde_json::Value> = json_lines(&set)
        .into_iter()
        .filter(|v| v.get("position").is_some())
        .collect();
    assert!(rows.len() > 20 && rows.len() < 300, "{} rows", rows.len());
    for r in &rows {
        let keeping = r["preserving"].as_array().unwrap().len() as u64;
        assert!(keeping < r["legal"].as_u64().unwrap(), "not critical: {r}");
        assert_ne!(r["value"], "loss", "{r}");
        assert!(!committed.contains(r["position"].as_str().unwrap()), "{r}");
    }
}

/// `--misses`: a random player's missed critical positions, with its moves, make a set
/// that the perfect player then scores perfectly on.
fn the_misses_are_a_benchmark_set(dir: &std::path::Path, d: &str, set: &std::path::Path) {
    let misses = dir.join("misses.jsonl");
    let m = misses.to_str().unwrap();
    let eval = |set: &str, agent: &str, misses: Option<&str>| {
        let mut args = vec!["eval", "solver", "--set", set, "--agent", agent];
        args.extend(misses.map(|m| ["--misses", m]).into_iter().flatten());
        kvarn(&args)
    };
    let (ok, out, err) = eval(set.to_str().unwrap(), "random", Some(m));
    assert!(ok, "{err}");
    // A player without outcome estimates gets no table of them.
    assert!(!out.contains("outcome estimates"), "{out}");
    let written: usize = out
        .lines()
        .find_map(|l| l.strip_suffix(&format!(" missed critical positions written to {m}")))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(written > 0, "{out}");
    let rows: Vec<serde_json::Value> = json_lines(&misses)
        .into_iter()
        .filter(|r| r.get("chose").is_some())
        .collect();
    assert_eq!(rows.len(), written);
    for r in &rows {
        let keep: Vec<&str> = r["preserving"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert!(!keep.contains(&r["chose"].as_str().unwrap()), "{r}");
        assert_eq!(r["kept"], false);
    }
    let (ok, out, err) = eval(m, &format!("perfect:db={d}"), None);
    assert!(ok, "{err}");
    assert!(out.contains(&format!("on {written} positions")), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("all") && l.contains("100.0%") && l.ends_with("0.0%")),
        "{out}"
    );
}

/// `--thrown-away`: a random player, from drawn and won positions against the perfect
/// player, loses games; each game the summary counts has one row, at a decision that made
/// its exact value worse. Without `--games-from` the option is refused.
fn a_random_players_lost_games_are_listed(dir: &std::path::Path, d: &str, set: &std::path::Path) {
    let file = dir.join("thrown-away.jsonl");
    let f = file.to_str().unwrap();
    let set = set.to_str().unwrap();
    let args = [
        "eval",
        "solver",
        "--set",
        set,
        "--agent",
        "random",
        "--thrown-away",
        f,
    ];
    let (ok, _, err) = kvarn(&args);
    assert!(!ok);
    assert!(
        err.contains("give --games-from N or --games-from-start N too"),
        "{err}"
    );
    let (ok, out, err) = kvarn(&[&args[..], &["--games-from", "6", "--db", d]].concat());
    assert!(ok, "{err}");
    let counted: usize = out
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("values thrown away by the agent in the ")
        })
        .map(|l| {
            l.split_whitespace()
                .next()
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert!(counted > 0, "{out}");
    assert!(
        out.contains(&format!(
            "{counted} games' first values thrown away written to {f}"
        )),
        "{out}"
    );
    let rows: Vec<serde_json::Value> = json_lines(&file)
        .into_iter()
        .filter(|r| r.get("chosen").is_some())
        .collect();
    assert_eq!(rows.len(), counted);
    let rank = |v: &serde_json::Value| ["win", "draw", "loss"].iter().position(|o| v == o);
    for r in &rows {
        assert!(rank(&r["after"]) > rank(&r["before"]), "{r}");
        assert!(
            ["win", "draw"].contains(&r["start"].as_str().unwrap()),
            "{r}"
        );
    }
}

/// The rows of `kvarn eval solver`'s table of outcome estimates by exact value.
fn estimate_rows(out: &str) -> Vec<&str> {
    out.lines()
        .skip_while(|l| !l.starts_with("outcome estimates by exact value"))
        .skip(2)
        .take_while(|l| l.ends_with('%'))
        .collect()
}

/// `--misnamed`: the positions whose value an alpha-beta player's estimate misnamed, each
/// with that estimate, as many as its table of estimates counts off the diagonal.
fn the_misnamed_are_a_benchmark_set(dir: &std::path::Path, set: &std::path::Path) {
    let misnamed = dir.join("misnamed.jsonl");
    let m = misnamed.to_str().unwrap();
    let (ok, out, err) = kvarn(&[
        "eval",
        "solver",
        "--set",
        set.to_str().unwrap(),
        "--agent",
        "alphabeta:depth=1",
        "--misnamed",
        m,
    ]);
    assert!(ok, "{err}");
    let off_diagonal: u64 = estimate_rows(&out)
        .into_iter()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let counts: Vec<u64> = f[2..5].iter().map(|c| c.parse().unwrap()).collect();
            let right = ["win", "draw", "loss"]
                .iter()
                .position(|v| *v == f[1])
                .unwrap();
            counts.iter().sum::<u64>() - counts[right]
        })
        .sum();
    assert!(off_diagonal > 0, "{out}");
    assert!(
        out.contains(&format!(
            "{off_diagonal} positions whose value was misnamed written to {m}"
        )),
        "{out}"
    );
    let rows: Vec<serde_json::Value> = json_lines(&misnamed)
        .into_iter()
        .filter(|r| r.get("estimate").is_some())
        .collect();
    assert_eq!(rows.len() as u64, off_diagonal);
    assert!(rows.iter().all(|r| r["estimate"] != r["value"]), "{rows:?}");
}

/// The solve test's last stage: a solve over a damaged database file fails loudly.
fn a_damaged_database_is_refused(dir: &std::path::Path, args: &[&str]) {
    // A damaged file is refused loudly.
    let file = dir.join("nine-nofly_w3b3_h0-0_white.kvdb");
    let mut bytes = std::fs::read(&file).unwrap();
    let i = bytes.len() / 2;
    bytes[i] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let (ok, _, err) = kvarn(args);
    assert!(!ok);
    assert!(err.contains("damaged"), "{err}");
}

/// A tiny training configuration of Five Men's Morris with its databases in `db`.
fn tiny_training_config(db: &std::path::Path) -> String {
    format!(
        r#"
seed = 2
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
[train]
batch_size = 16
steps_per_generation = 4
[loop]
generations = 1
games_per_generation = 4
checkpoint_every = 2
games_vs_previous = 2
games_vs_random = 2
baseline_depths = [1]
games_vs_baseline = 2
player = {{ simulations = 8 }}
[solver]
db = {:?}
build_if_missing = true
positions = 12
games_vs_perfect = 2
"#,
        db.display().to_string()
    )
}

#[test]
fn train_runs_resumes_extends_and_refuses_bad_configurations_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("tiny.toml");
    std::fs::write(&cfg, tiny_training_config(&dir.path().join("db"))).unwrap();
    let run = dir.path().join("run");
    let (c, r) = (cfg.to_str().unwrap(), run.to_str().unwrap());
    let (ok, out, err) = kvarn(&["train", "--config", c, "--out", r]);
    assert!(ok, "{err}");
    assert!(
        out.contains("generation 1:") && out.contains("value-keeping moves"),
        "{out}"
    );
    let run_dir = kvarn_train::RunDir::new(&run);
    assert!(run_dir.model(1).exists());
    assert!(run_dir.summary_markdown().exists() && run_dir.strength_plot().exists());
    // A second start in the same folder is refused; a resume extends the run.
    let (ok, _, err) = kvarn(&["train", "--config", c, "--out", r]);
    assert!(!ok && err.contains("already holds a run"), "{err}");
    let (ok, out, err) = kvarn(&["train", "--resume", r, "--generations", "2"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("generation 2:") && !out.contains("generation 1:"),
        "{out}"
    );
    let manifest = kvarn_train::Manifest::read(&run_dir).unwrap();
    assert_eq!(manifest.generations_done(), 2);
    // The trained model plays matches and is scored on the run's benchmark set.
    let net = format!("net:model={},simulations=8", run_dir.model(2).display());
    let records = dir.path().join("games.jsonl");
    let net_vs_random = |variant: &str| {
        kvarn(&[
            "match",
            "--variant",
            variant,
            "--a",
            &net,
            "--b",
            "random",
            "--games",
            "2",
            "--out",
            records.to_str().unwrap(),
        ])
    };
    let (ok, out, err) = net_vs_random("five");
    assert!(ok, "{err}");
    assert!(out.contains("net:model=") && out.contains("score"), "{out}");
    let set = run.join("solver-set.jsonl");
    let (ok, out, err) = kvarn(&[
        "eval",
        "solver",
        "--set",
        set.to_str().unwrap(),
        "--agent",
        &net,
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("value accuracy") && out.contains("all"),
        "{out}"
    );
    let (ok, _, err) = net_vs_random("six");
    assert!(!ok && err.contains("was trained for Five"), "{err}");
    // Bad configurations are refused before any work, with the key named.
    for (from, to, key) in [
        (
            "batch_size = 16",
            "batch_size = 16\nbatch_sise = 3",
            "batch_sise",
        ),
        ("generations = 1", "generations = 0", "loop.generations"),
        ("simulations = 8", "simulations = 0", "search.simulations"),
        (
            "build_if_missing = true",
            "build_if_missing = false",
            "solver.db",
        ),
    ] {
        let text = tiny_training_config(&dir.path().join("elsewhere")).replace(from, to);
        std::fs::write(&cfg, text).unwrap();
        let fresh = dir.path().join(format!("refused-{key}"));
        let (ok, _, err) = kvarn(&["train", "--config", c, "--out", fresh.to_str().unwrap()]);
        assert!(!ok && err.contains(key), "{key}: {err}");
        assert!(
            !fresh.exists(),
            "nothing written for a refused configuration"
        );
    }
}

#[test]
fn bench_train_prints_training_throughput() {
    let (ok, out, err) = kvarn(&[
        "bench",
        "train",
        "--variant",
        "six",
        "--hidden",
        "16",
        "--blocks",
        "1",
        "--batches",
        "8",
        "--seconds",
        "0.2",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("steps/s") && out.contains("samples/s"),
        "{out}"
    );
    let (ok, _, err) = kvarn(&["bench", "train", "--batches", "0", "--seconds", "0.1"]);
    assert!(!ok && err.contains("--batches"), "{err}");
}

#[test]
fn a_resume_refuses_the_options_of_a_new_run() {
    // `--init` and `--out` only shape a new run; a resume used to ignore them silently.
    let run = paths::workspace().join("runs/quickstart");
    for extra in [["--init", "models/six.kvmodel"], ["--out", "elsewhere"]] {
        let mut args = vec!["train", "--resume", run.to_str().unwrap()];
        args.extend(extra);
        let (ok, _, err) = kvarn(&args);
        assert!(!ok, "{args:?}");
        assert!(
            err.contains(extra[0]) && err.contains("cannot be used with"),
            "{err}"
        );
    }
}

/// `--games-from-start`: over Six's win/draw/loss tables, the perfect player against
/// itself from the start holds every game, colours alternating; a random player loses,
/// and each game it lost has one row in `--thrown-away`, from the start position, at a
/// decision that made its value worse.
#[test]
fn games_from_the_start_against_the_perfect_player_count_losses_and_where_they_began() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("six");
    let d = db.to_str().unwrap();
    let (ok, _, err) = kvarn(&["solve", "--variant", "six", "--wdl", "--out", d]);
    assert!(ok, "{err}");
    let games = |agent: &str, extra: &[&str]| {
        let mut args = vec![
            "eval",
            "solver",
            "--variant",
            "six",
            "--agent",
            agent,
            "--games-from-start",
            "4",
            "--db",
            d,
        ];
        args.extend(extra);
        kvarn(&args)
    };
    let (ok, out, err) = games(&format!("perfect:db={d}"), &[]);
    assert!(ok, "{err}");
    assert!(
        out.contains("from the start position (Draw for White) against the perfect player: 4 games, 0-4-0 W-D-L (as White 0-2-0, as Black 0-2-0)"),
        "{out}"
    );
    let file = dir.path().join("thrown.jsonl");
    let f = file.to_str().unwrap();
    let (ok, out, err) = games("random", &["--thrown-away", f]);
    assert!(ok, "{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("from the start position"))
        .unwrap_or_else(|| panic!("{out}"));
    let lost: usize = line
        .split(" W-D-L")
        .next()
        .and_then(|l| l.rsplit('-').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(lost > 0, "{line}");
    let rows: Vec<serde_json::Value> = json_lines(&file)
        .into_iter()
        .filter(|r| r.get("chosen").is_some())
        .collect();
    assert_eq!(rows.len(), lost, "{out}");
    let rank = |v: &serde_json::Value| ["win", "draw", "loss"].iter().position(|o| v == o);
    for r in &rows {
        assert_eq!(r["from"], "start position", "{r}");
        assert_eq!(r["start"], "draw", "{r}");
        assert!(rank(&r["after"]) > rank(&r["before"]), "{r}");
    }
}

/// `kvarn eval convert`: over Six's win/draw/loss tables the perfect player wins every won
/// position drawn (within the no-capture limit) against itself and the baseline, a random
/// player does not and the command fails saying so; a folder without such tables is
/// refused by name.
#[test]
fn the_perfect_player_converts_every_won_position_and_a_random_player_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("six");
    let d = db.to_str().unwrap();
    let (ok, _, err) = kvarn(&["solve", "--variant", "six", "--wdl", "--out", d]);
    assert!(ok, "{err}");
    let convert = |extra: &[&str]| {
        let mut args = vec![
            "eval",
            "convert",
            "--variant",
            "six",
            "--db",
            d,
            "--positions",
            "100",
        ];
        args.extend(extra);
        kvarn(&args)
    };
    let (ok, out, err) = convert(&[]);
    assert!(ok, "{err}");
    assert!(out.contains("100 won positions of Six"), "{out}");
    assert!(
        out.contains(&format!(
            "against perfect:db={d}: won 100 of 100 (100-0-0 W-D-L)"
        )),
        "{out}"
    );
    assert!(
        out.contains("against alphabeta:depth=3: won 100 of 100 (100-0-0 W-D-L)"),
        "{out}"
    );
    let (ok, out, err) = convert(&["--agent", "random", "--opponent", "alphabeta:depth=2"]);
    assert!(!ok, "{out}");
    assert!(
        err.contains("games from won positions were not won"),
        "{err}"
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (ok, _, err) = kvarn(&[
        "eval",
        "convert",
        "--variant",
        "six",
        "--db",
        empty.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(err.contains("holds no win/draw/loss tables"), "{err}");
}

/// `kvarn sample-bank --check BANK --as-set FILE` writes rows of the bank as a benchmark
/// set that `kvarn eval solver --set` reads, spread over the bank's phases, and refuses
/// to overwrite a file.
#[test]
fn the_committed_bank_is_written_as_a_benchmark_set() {
    let dir = tempfile::tempdir().unwrap();
    let bank = paths::workspace().join("docs/results/nine-solve/sample-bank.kvbank");
    let bank = bank.to_str().unwrap();
    let set = dir.path().join("bank-set.jsonl");
    let set = set.to_str().unwrap();
    let args = [
        "sample-bank",
        "--check",
        bank,
        "--as-set",
        set,
        "--as-set-positions",
        "120",
    ];
    let (ok, out, err) = kvarn(&args);
    assert!(ok, "{err}");
    assert!(
        out.contains("120 of its rows written as a benchmark set"),
        "{out}"
    );
    let (_, rows) = kvarn_solver::benchmark::read_set(std::path::Path::new(set)).unwrap();
    assert_eq!(rows.len(), 120);
    for phase in ["placing", "moving", "flying", "removal"] {
        assert!(
            rows.iter().filter(|r| r.phase.name() == phase).count() >= 10,
            "{phase}"
        );
    }
    let (ok, _, err) = kvarn(&args);
    assert!(!ok && err.contains("exists"), "{err}");
}

/// `kvarn sample-bank --beside A` draws away from bank A's positions: drawn from the same
/// seed, the second bank shares no position with the first (up to symmetry and colours),
/// so that a run reads both as one; a bank of other rules beside is refused.
#[test]
fn a_bank_drawn_beside_another_shares_none_of_its_positions() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("six");
    let d = db.to_str().unwrap();
    let (ok, _, err) = kvarn(&["solve", "--variant", "six", "--wdl", "--out", d]);
    assert!(ok, "{err}");
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (first, second) = (path("first.kvbank"), path("second.kvbank"));
    let draw = |out: &str, beside: &[&str]| {
        let mut args = vec![
            "sample-bank",
            "--variant",
            "six",
            "--db",
            d,
            "--placing",
            "40",
            "--moving",
            "40",
            "--removals",
            "10",
            "--seed",
            "5",
            "--hash",
            "64",
            "--out",
            out,
        ];
        for b in beside {
            args.extend(["--beside", b]);
        }
        kvarn(&args)
    };
    let (ok, _, err) = draw(&first, &[]);
    assert!(ok, "{err}");
    let (ok, _, err) = draw(&second, &[&first]);
    assert!(ok, "{err}");
    let rules = kvarn_game::Rules::new(kvarn_game::Variant::Six);
    let keys = |p: &str| -> std::collections::HashSet<u64> {
        kvarn_solver::benchmark::bank::bank_keys(std::path::Path::new(p), &rules)
            .unwrap()
            .into_iter()
            .collect()
    };
    let (a, b) = (keys(&first), keys(&second));
    assert!(a.len() >= 80 && b.len() >= 80, "{} {}", a.len(), b.len());
    assert!(a.is_disjoint(&b));
    let nine = paths::workspace().join("docs/results/nine-solve/sample-bank.kvbank");
    let (ok, _, err) = draw(&path("third.kvbank"), &[nine.to_str().unwrap()]);
    assert!(!ok && err.contains("holds positions of"), "{err}");
}
