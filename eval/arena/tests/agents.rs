//! Agent specifications, records on disk, and a small match.

use kvarn_arena::agent::AgentSpec;
use kvarn_arena::matches::{MatchConfig, openings, run_match};
use kvarn_arena::records::{FORMAT, Header, VERSION, read_records, write_records};
use kvarn_engine::search::Limits;
use kvarn_game::Outcome;
use kvarn_game::{Game, Rules, Variant};
use std::time::Duration;

#[test]
fn specifications_parse_and_print() {
    let spec: AgentSpec = "alphabeta:depth=4".parse().unwrap();
    assert_eq!(spec.to_string(), "alphabeta:depth=4");
    match "alphabeta:movetime=100,seed=3,threads=2"
        .parse::<AgentSpec>()
        .unwrap()
    {
        AgentSpec::AlphaBeta {
            limits,
            seed,
            threads,
            ..
        } => {
            assert_eq!(
                limits,
                Limits {
                    movetime: Some(Duration::from_millis(100)),
                    ..Limits::default()
                }
            );
            assert_eq!((seed, threads), (Some(3), 2));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        "random".parse::<AgentSpec>().unwrap(),
        AgentSpec::Random { seed: None }
    );
    match "engine:cmd=kvarn engine,depth=3"
        .parse::<AgentSpec>()
        .unwrap()
    {
        AgentSpec::Engine { cmd, limits } => {
            assert_eq!(cmd, "kvarn engine");
            assert_eq!(limits.depth, Some(3));
        }
        other => panic!("{other:?}"),
    }
    for (bad, needle) in [
        ("alphabeta", "give a limit"),
        ("alphabeta:depth=0", "between 1 and 64"),
        ("alphabeta:depth=x", "not a whole number"),
        (
            "alphabeta:depth=1,hash=999999999",
            "not between 1 and 4096 MB",
        ),
        ("alphabeta:depth=1,hash=30000", "not between 1 and 4096 MB"),
        ("alphabeta:depth=1,hash=0", "not between 1 and 4096 MB"),
        ("alphabeta:speed=3", "not an option"),
        ("alphabeta:depth", "key=value"),
        ("engine:depth=3", "needs cmd"),
        ("minimax:depth=3", "unknown agent"),
        ("random:depth=3", "not an option"),
    ] {
        let e = bad.parse::<AgentSpec>().unwrap_err();
        assert!(e.to_string().contains(needle), "{bad}: {e}");
    }
}

#[test]
fn a_missing_engine_program_is_reported() {
    let spec: AgentSpec = "engine:cmd=/nonexistent/engine".parse().unwrap();
    let e = spec.build(Rules::new(Variant::Nine), 1).err().unwrap();
    assert!(e.to_string().contains("cannot start"), "{e}");
}

#[test]
fn openings_differ_and_do_not_end_the_game() {
    let rules = Rules::new(Variant::Nine);
    let lines = openings(&rules, 20, 4, 9);
    assert_eq!(lines.len(), 20);
    let mut keys = std::collections::HashSet::new();
    for line in &lines {
        let mut g = Game::new(rules);
        for &m in line {
            g.play(m).unwrap();
        }
        assert!(!g.status().is_over());
        keys.insert(g.position().canonical(&rules).0.key());
    }
    assert_eq!(keys.len(), 20, "distinct up to symmetry");
}

#[test]
fn the_baseline_beats_random_play_and_records_round_trip() {
    let rules = Rules::new(Variant::Six);
    let cfg = MatchConfig {
        rules,
        games: 8,
        seed: 4,
        opening_plies: 2,
    };
    let (a, b): (AgentSpec, AgentSpec) = (
        "alphabeta:depth=3".parse().unwrap(),
        "random".parse().unwrap(),
    );
    let report = run_match(&cfg, &a, &b, |_| {}).unwrap();
    assert_eq!(report.records.len(), 8);
    assert!(report.tally.wins >= 7, "{:?}", report.tally);
    // Colours alternate.
    assert_eq!(report.records[0].white, "alphabeta:depth=3");
    assert_eq!(report.records[1].white, "random");
    // Every record replays to its result.
    for r in &report.records {
        let mut g = Game::new(rules);
        g.play_text(&r.moves.join(" ")).unwrap();
        assert_eq!(g.status().result_name(), r.result);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.jsonl");
    let header = Header {
        format: FORMAT.into(),
        version: VERSION,
        rules,
        description: "test".into(),
    };
    write_records(&path, &header, &report.records).unwrap();
    let (h, back) = read_records(&path).unwrap();
    assert_eq!(h, header);
    assert_eq!(back, report.records);
    // A damaged file is refused loudly.
    let mut bytes = std::fs::read(&path).unwrap();
    let i = bytes.len() / 2;
    bytes[i] = if bytes[i] == b'1' { b'2' } else { b'1' };
    std::fs::write(&path, &bytes).unwrap();
    let e = read_records(&path).unwrap_err();
    assert!(e.to_string().contains("damaged"), "{e}");
    // So is a file cut short.
    let text = std::fs::read_to_string(dir.path().join("games.jsonl")).unwrap();
    std::fs::write(&path, &text[..text.len() / 3]).unwrap();
    assert!(read_records(&path).is_err());
    // And a file of another version.
    let header2 = Header {
        version: VERSION + 1,
        ..header
    };
    write_records(&path, &header2, &report.records).unwrap();
    let e = read_records(&path).unwrap_err();
    assert!(e.to_string().contains("version"), "{e}");
}

#[test]
fn a_match_is_reproducible_from_its_seed() {
    let cfg = MatchConfig {
        rules: Rules::new(Variant::Five),
        games: 4,
        seed: 11,
        opening_plies: 2,
    };
    let (a, b): (AgentSpec, AgentSpec) = (
        "alphabeta:depth=2".parse().unwrap(),
        "random".parse().unwrap(),
    );
    let first = run_match(&cfg, &a, &b, |_| {}).unwrap().records;
    let second = run_match(&cfg, &a, &b, |_| {}).unwrap().records;
    assert_eq!(first, second);
    let other = run_match(&MatchConfig { seed: 12, ..cfg }, &a, &b, |_| {})
        .unwrap()
        .records;
    assert_ne!(first, other);
}

#[test]
fn openings_longer_than_games_stop_before_the_end() {
    let rules = Rules::new(Variant::Six);
    let lines = openings(&rules, 3, 400, 1);
    assert_eq!(lines.len(), 3);
    for line in lines {
        let mut g = Game::new(rules);
        for m in line {
            g.play(m).unwrap();
        }
        assert!(!g.status().is_over());
    }
}

#[test]
fn a_game_is_kept_when_the_start_s_value_is_reached() {
    use kvarn_arena::matches::GameRecord;
    use kvarn_game::Color;
    use kvarn_game::Outcome;
    let record = |result: &str| GameRecord {
        game: 0,
        white: "a".into(),
        black: "b".into(),
        start: None,
        opening: Vec::new(),
        moves: Vec::new(),
        result: result.into(),
        reason: "no_capture".into(),
    };
    let (white, black, draw) = (record("white_wins"), record("black_wins"), record("draw"));
    // From a won start only a win keeps the value; from a drawn one anything but a loss.
    assert!(white.kept(Color::White, Outcome::Win));
    assert!(!draw.kept(Color::White, Outcome::Win));
    assert!(!black.kept(Color::White, Outcome::Win));
    assert!(black.kept(Color::Black, Outcome::Win));
    assert!(draw.kept(Color::Black, Outcome::Draw));
    assert!(black.kept(Color::Black, Outcome::Draw));
    assert!(!white.kept(Color::Black, Outcome::Draw));
    assert!(white.kept(Color::White, Outcome::Draw));
    assert!(black.kept(Color::White, Outcome::Loss));
    assert_eq!(white.winner(), Some(Color::White));
    assert_eq!(black.winner(), Some(Color::Black));
    assert_eq!(draw.winner(), None);
}

#[test]
fn an_estimate_names_its_largest_share_and_ties_go_to_the_draw_then_the_win() {
    assert_eq!(Outcome::named_by([0.7, 0.2, 0.1]), Outcome::Win);
    assert_eq!(Outcome::named_by([0.1, 0.2, 0.7]), Outcome::Loss);
    assert_eq!(Outcome::named_by([0.2, 0.5, 0.3]), Outcome::Draw);
    assert_eq!(Outcome::named_by([0.4, 0.4, 0.2]), Outcome::Draw);
    assert_eq!(Outcome::named_by([0.2, 0.4, 0.4]), Outcome::Draw);
    assert_eq!(Outcome::named_by([0.45, 0.1, 0.45]), Outcome::Win);
    assert_eq!(Outcome::named_by([1.0 / 3.0; 3]), Outcome::Draw);
}
