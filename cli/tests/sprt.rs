//! `kvarn match --sprt`: sequential tests from the command line, and the threads and games
//! at once that every match states.

mod common;
use common::kvarn;

#[test]
fn a_sequential_test_accepts_a_clearly_stronger_agent() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("games.jsonl");
    let (ok, stdout, stderr) = kvarn(&[
        "match",
        "--variant",
        "five",
        "--a",
        "alphabeta:depth=3",
        "--b",
        "random",
        "--sprt",
        "0,50",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("H1 accepted"), "{stdout}");
    assert!(stdout.contains("LLR"), "{stdout}");
    assert!(stdout.contains("(-2.94, 2.94)"), "{stdout}");
    assert!(stdout.contains("pentanomial"), "{stdout}");
    assert!(stdout.contains("Elo +"), "{stdout}");
    assert!(
        stdout.contains("threads per agent: alphabeta:depth=3 1, random 1"),
        "{stdout}"
    );
    // The counted games are recorded, whole pairs of them.
    let (header, games) = kvarn_arena::records::read_records(&out).unwrap();
    assert_eq!(games.len() % 2, 0);
    assert!(!games.is_empty());
    assert!(header.description.contains("H1 accepted"), "{header:?}");
    for pair in games.chunks(2) {
        assert_eq!(pair[0].opening, pair[1].opening);
        assert_eq!(pair[0].white, pair[1].black);
    }
}

#[test]
fn an_agent_against_itself_is_not_accepted_and_the_cap_holds() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("games.jsonl");
    let (ok, stdout, stderr) = kvarn(&[
        "match",
        "--variant",
        "five",
        "--a",
        "random",
        "--b",
        "random",
        "--sprt",
        "0,50",
        "--alpha",
        "0.05",
        "--beta",
        "0.05",
        "--max-games",
        "30",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(!stdout.contains("H1 accepted"), "{stdout}");
    assert!(
        stdout.contains("undecided") || stdout.contains("H0 accepted"),
        "{stdout}"
    );
    let (_, games) = kvarn_arena::records::read_records(&out).unwrap();
    assert!(games.len() <= 30);
}

#[test]
fn tests_that_make_no_sense_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("games.jsonl");
    let out = out.to_str().unwrap();
    let base = [
        "match",
        "--variant",
        "five",
        "--a",
        "random",
        "--b",
        "random",
    ];
    for (extra, needle) in [
        (&["--sprt", "10,0"][..], "elo0"),
        (&["--sprt=-1e308,1e308"][..], "must lie within ±1000"),
        (&["--sprt", "5"][..], "ELO0,ELO1"),
        (&["--sprt", "0,x"][..], "not a number"),
        (&["--sprt", "0,5", "--alpha", "1.5"][..], "alpha"),
        (
            &["--sprt", "0,5", "--games", "10"][..],
            "cannot be used with",
        ),
        (&["--alpha", "0.1"][..], "--sprt"),
        (&["--parallel", "100000"][..], "cores"),
    ] {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--out", out]);
        let (ok, stdout, stderr) = kvarn(&args);
        assert!(!ok, "{extra:?}: {stdout}");
        assert!(stderr.contains(needle), "{extra:?}: {stderr}");
    }
    assert!(!std::path::Path::new(out).exists());
}

#[test]
fn a_match_states_threads_and_games_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("games.jsonl");
    let (ok, stdout, stderr) = kvarn(&[
        "match",
        "--variant",
        "five",
        "--a",
        "random",
        "--b",
        "alphabeta:depth=1",
        "--games",
        "4",
        "--parallel",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("threads per agent: random 1, alphabeta:depth=1 1; 1 games at once on"),
        "{stdout}"
    );
}
