//! The solver's values at play: the perfect player, and agents scored on benchmark sets.

use kvarn_game::{Position, Rules, Variant};
use kvarn_solver::Solver;
use std::sync::LazyLock;

static FIVE: LazyLock<Solver> =
    LazyLock::new(|| Solver::solve_whole_game(Variant::Five, |_, _| {}));

#[test]
fn the_perfect_player_never_loses() {
    use kvarn_arena::matches::{MatchConfig, run_match};
    use kvarn_solver::{db, whole_game_plan};
    let dir = tempfile::tempdir().unwrap();
    let rules = *FIVE.rules();
    for step in whole_game_plan(Variant::Five) {
        for s in step.subspaces() {
            db::write(dir.path(), &rules, &s, FIVE.table(&s).unwrap()).unwrap();
        }
    }
    let perfect = kvarn_arena::agent::AgentSpec::Perfect {
        db: dir.path().to_path_buf(),
        seed: None,
    };
    for opponent in ["alphabeta:depth=4", "random"] {
        let cfg = MatchConfig {
            rules,
            games: 6,
            seed: 2,
            opening_plies: 0,
        };
        let b: kvarn_arena::agent::AgentSpec = opponent.parse().unwrap();
        let report = run_match(&cfg, &perfect, &b, |_| {}).unwrap();
        assert!(report.failures.is_empty(), "{:?}", report.failures);
        assert_eq!(report.tally.losses, 0, "{opponent}: {:?}", report.tally);
    }
}

#[test]
fn benchmark_sets_balance_round_trip_and_score_agents() {
    use kvarn_arena::agent::AgentSpec;
    use kvarn_arena::benchmark::score;
    use kvarn_game::Outcome;
    use kvarn_solver::benchmark::{read_set, sample, write_set};
    let rules = *FIVE.rules();
    let set = sample(&FIVE, 90, 7);
    assert_eq!(set.len(), 90);
    for outcome in [Outcome::Win, Outcome::Draw, Outcome::Loss] {
        let n = set.iter().filter(|b| b.value == outcome).count();
        assert!(n >= 20, "{outcome:?}: {n}");
    }
    // Every position's preserving moves really keep its value.
    for b in set.iter().take(30) {
        let pos = Position::from_position_string(&rules, &b.position).unwrap();
        assert_eq!(FIVE.value(&pos).unwrap().outcome(), b.value);
        assert!(!b.preserving.is_empty());
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("set.jsonl");
    write_set(&path, &rules, &set).unwrap();
    let (r, back) = read_set(&path).unwrap();
    assert_eq!((r, &back), (rules, &set));
    let mut random = "random:seed=1"
        .parse::<AgentSpec>()
        .unwrap()
        .build(rules, 1)
        .unwrap();
    let scores = score(&rules, &set, random.as_mut()).unwrap();
    let all = scores[&None];
    assert_eq!(all.positions, 90);
    assert_eq!(all.estimated, 0, "random players estimate nothing");
    assert!(all.blunders > 0);
}

#[test]
fn a_bad_benchmark_set_is_named_as_one() {
    use kvarn_arena::records::{FORMAT, Header, VERSION, write_records};
    use kvarn_solver::benchmark::read_set;
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let e = read_set(&empty).unwrap_err().to_string();
    assert!(e.starts_with("benchmark set "), "{e}");
    assert!(e.contains("empty"), "{e}");
    // Match records are not a benchmark set, and are not called game records here.
    let records = dir.path().join("games.jsonl");
    let header = Header {
        format: FORMAT.into(),
        version: VERSION,
        rules: Rules::new(Variant::Five),
        description: String::new(),
    };
    write_records(&records, &header, &[]).unwrap();
    let e = read_set(&records).unwrap_err().to_string();
    assert!(e.starts_with("benchmark set "), "{e}");
    assert!(!e.contains("game records"), "{e}");
}

#[test]
fn critical_flags_and_the_random_players_figure_agree_with_the_databases() {
    use kvarn_arena::agent::AgentSpec;
    use kvarn_arena::benchmark::score;
    use kvarn_game::Outcome;
    use kvarn_solver::benchmark::sample;
    let rules = *FIVE.rules();
    let set = sample(&FIVE, 120, 3);
    let mut critical = 0;
    for b in &set {
        let pos = Position::from_position_string(&rules, &b.position).unwrap();
        let moves = FIVE.move_values(&pos);
        assert_eq!(usize::from(b.legal), moves.len());
        // Critical: some legal move's exact outcome differs from the position's.
        let changes = moves
            .iter()
            .any(|(_, v)| v.expect("covered").outcome() != b.value);
        assert_eq!(b.critical(), changes, "{}", b.position);
        assert!(!b.critical() || b.value != Outcome::Loss);
        critical += usize::from(b.critical());
    }
    assert!(critical > 10 && critical < set.len(), "{critical} critical");
    // The random player's expected figure, against many random players' mean.
    let mut kept = 0.0;
    let trials = 40;
    for seed in 0..trials {
        let spec = AgentSpec::Random { seed: Some(seed) };
        let mut agent = spec.build(rules, seed).unwrap();
        let all = score(&rules, &set, agent.as_mut()).unwrap()[&None];
        kept += all.preserving_rate();
        assert_eq!(all.critical as usize, critical);
    }
    let mut agent = AgentSpec::Random { seed: Some(0) }.build(rules, 0).unwrap();
    let all = score(&rules, &set, agent.as_mut()).unwrap()[&None];
    let (expected, expected_critical) = all.random_preserving_rates();
    let measured = kept / trials as f64;
    assert!(
        (measured - expected).abs() < 0.03,
        "{measured} vs {expected}"
    );
    assert!(
        expected_critical.unwrap() < expected,
        "critical positions are harder"
    );
}

#[test]
fn games_from_benchmark_positions_start_there_with_the_first_agent_to_move() {
    use kvarn_arena::agent::AgentSpec;
    use kvarn_arena::matches::{MatchConfig, run_from_positions};
    use kvarn_game::Outcome;
    use kvarn_solver::benchmark::{critical_starts, sample};
    use kvarn_solver::{db, whole_game_plan};
    let rules = *FIVE.rules();
    let set = sample(&FIVE, 300, 11);
    let dir = tempfile::tempdir().unwrap();
    for step in whole_game_plan(Variant::Five) {
        for s in step.subspaces() {
            db::write(dir.path(), &rules, &s, FIVE.table(&s).unwrap()).unwrap();
        }
    }
    let perfect = AgentSpec::Perfect {
        db: dir.path().to_path_buf(),
        seed: None,
    };
    let random: AgentSpec = "random".parse().unwrap();
    let cfg = MatchConfig {
        rules,
        games: 0,
        seed: 3,
        opening_plies: 0,
    };
    for value in [Outcome::Draw, Outcome::Win] {
        let critical = set
            .iter()
            .filter(|b| b.value == value && b.critical())
            .count();
        assert!(
            critical >= 6,
            "{value:?}: only {critical} critical positions"
        );
        let starts = critical_starts(&rules, &set, value, 6).unwrap();
        assert_eq!(starts.len(), 6);
        for g in &starts {
            assert_eq!(FIVE.value(g.position()).unwrap().outcome(), value);
        }
        // More asked than there are: all of them, none twice.
        let all = critical_starts(&rules, &set, value, 10_000).unwrap();
        assert_eq!(all.len(), critical);
        // The perfect player to move keeps every value against random play.
        let report = run_from_positions(&cfg, &starts, &perfect, &random, |_| {}).unwrap();
        assert!(report.failures.is_empty(), "{:?}", report.failures);
        assert_eq!(report.tally.losses, 0, "{value:?}: {:?}", report.tally);
        if value == Outcome::Win {
            assert_eq!(report.tally.wins, 6, "{:?}", report.tally);
        }
        for (r, g) in report.records.iter().zip(&starts) {
            let at = g.position().to_position_string(&rules);
            assert_eq!(r.start.as_deref(), Some(at.as_str()));
            let mover_white = g.position().side_to_move() == kvarn_game::Color::White;
            let perfect_name = kvarn_arena::agent::AgentFactory::name(&perfect);
            assert_eq!(r.white == perfect_name, mover_white, "{r:?}");
            assert!(r.opening.is_empty());
        }
    }
}
