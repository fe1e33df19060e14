//! The retrograde solver: consistent values, agreement with exhaustive forward search.

use kvarn_game::{Game, Position, Rules, Variant};
use kvarn_solver::{Solver, Value};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::sync::LazyLock;

static FIVE: LazyLock<Solver> =
    LazyLock::new(|| Solver::solve_whole_game(Variant::Five, |_, _| {}));

#[test]
fn five_mens_morris_values_are_consistent() {
    let checked = FIVE.check_consistency().unwrap();
    assert!(checked > 100_000, "{checked}");
    let start = FIVE.value(&Position::start(FIVE.rules())).unwrap();
    println!("Five Men's Morris from the start: {start:?}");
}

#[test]
fn values_agree_with_forward_search() {
    use kvarn_solver::verify::{check_position, check_random_positions};
    let rules = *FIVE.rules();
    // Positions of random games, most of them in the placing phase.
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let mut proved = 0;
    for _ in 0..150 {
        let mut g = Game::new(rules);
        let plies = rng.random_range(4..40);
        for _ in 0..plies {
            let moves = g.legal_moves();
            if moves.is_empty() {
                break;
            }
            g.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        let pos = *g.position();
        let v = FIVE
            .value(&pos)
            .unwrap_or_else(|| panic!("unsolved: {}", pos.to_position_string(&rules)));
        check_position(&rules, &pos, v, 6).unwrap();
        proved += usize::from(matches!(v, Value::Win(d) | Value::Loss(d) if d <= 3));
    }
    assert!(proved > 10, "only {proved} positions proved");
    // Positions drawn from the tables themselves, every phase.
    let proved = check_random_positions(&FIVE, 800, 4, 9).unwrap();
    assert!(proved > 10, "only {proved} proved");
}

#[test]
fn nine_mens_morris_three_against_three_with_flying_is_mostly_won_by_the_mover() {
    // Gasser: with flying, the side to move wins about 83% of 3 v 3 positions.
    let rules = Rules::new(Variant::Nine);
    let solver = Solver::solve_endgames(rules, 3, |_, _| {});
    solver.check_consistency().unwrap();
    let s = kvarn_solver::Subspace::moving(3, 3, kvarn_game::Color::White, false);
    let table = solver.table(&s).unwrap();
    let (mut won, mut total) = (0, 0);
    for &v in table.iter().filter(|&&v| v != u16::MAX) {
        total += 1;
        won += u32::from(matches!(Value::unpack(v), Value::Win(_)));
    }
    let share = won as f64 / total as f64;
    assert!((0.80..0.86).contains(&share), "{share}");
}

#[test]
fn databases_round_trip_and_refuse_damage() {
    use kvarn_solver::{db, endgame_plan};
    let rules = Rules::new(Variant::Nine).with_flying(false).unwrap();
    let solver = Solver::solve_endgames(rules, 3, |_, _| {});
    let dir = tempfile::tempdir().unwrap();
    let plan = endgame_plan(&rules, 3);
    for step in &plan {
        for s in step.subspaces() {
            db::write(dir.path(), &rules, &s, solver.table(&s).unwrap()).unwrap();
        }
    }
    let back = db::Databases::open(dir.path(), rules)
        .unwrap()
        .load(None)
        .unwrap();
    for step in &plan {
        for s in step.subspaces() {
            assert_eq!(back.table(&s), solver.table(&s));
        }
    }
    let s = plan[2].subspaces()[0];
    let path = db::path(dir.path(), &rules, &s);
    let good = std::fs::read(&path).unwrap();
    // One flipped byte.
    let mut bytes = good.clone();
    let i = bytes.len() / 2;
    bytes[i] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let e = db::read(dir.path(), &rules, &s, solver.size(&s)).unwrap_err();
    assert!(e.to_string().contains("damaged"), "{e}");
    // Cut short.
    std::fs::write(&path, &good[..good.len() - 100]).unwrap();
    assert!(db::read(dir.path(), &rules, &s, solver.size(&s)).is_err());
    // A newer version, checksum made to match.
    let mut bytes = good.clone();
    bytes[8] = 3;
    let n = bytes.len() - 4;
    let crc = crc32fast::hash(&bytes[..n]);
    bytes[n..].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let e = db::read(dir.path(), &rules, &s, solver.size(&s)).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("version 3") && text.contains("newer"),
        "{text}"
    );
    // Other rules: the file of the no-flying solve read as if for flying.
    std::fs::write(&path, &good).unwrap();
    let flying = Rules::new(Variant::Nine);
    std::fs::copy(&path, db::path(dir.path(), &flying, &s)).unwrap();
    let e = db::read(dir.path(), &flying, &s, solver.size(&s)).unwrap_err();
    assert!(e.to_string().contains("expected"), "{e}");
    // Absent is not an error.
    let other = kvarn_solver::Subspace { w_on: 9, ..s };
    assert!(db::read(dir.path(), &rules, &other, 1).unwrap().is_none());
}

/// Nine Men's Morris without flying, 3 against 3.
static NINE_THREE: LazyLock<Solver> = LazyLock::new(|| {
    let rules = Rules::new(Variant::Nine).with_flying(false).unwrap();
    Solver::solve_endgames(rules, 3, |_, _| {})
});

/// A temporary folder with the tables of `solver`.
fn written(solver: &Solver) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (s, table) in solver.tables() {
        kvarn_solver::db::write(dir.path(), solver.rules(), s, table).unwrap();
    }
    dir
}

#[test]
fn databases_open_reads_all_or_a_few_tables() {
    use kvarn_solver::db::Databases;
    let solver = &*NINE_THREE;
    let dir = written(solver);
    let rules = *solver.rules();
    let dbs = Databases::open(dir.path(), rules).unwrap();
    for max_men in [None, Some(3), Some(9)] {
        let all = dbs.load(max_men).unwrap();
        assert_eq!(all.tables().len(), solver.tables().len(), "{max_men:?}");
    }
    // A position and its moves: only their subspaces are read.
    let pos =
        Position::from_position_string(&rules, "WW.W..../......B./B...B... w 0/0 - 0 40").unwrap();
    let mut needed = vec![pos];
    for &m in pos.legal_moves(&rules).iter() {
        let mut next = pos;
        next.play_unchecked(&rules, m);
        needed.push(next);
    }
    let few = dbs.load_for(&needed).unwrap();
    assert!(few.tables().len() < solver.tables().len());
    assert_eq!(few.value(&pos), solver.value(&pos));
    assert_eq!(few.move_values(&pos), solver.move_values(&pos));
}

#[test]
fn databases_open_names_a_missing_folder_a_file_and_other_rules() {
    use kvarn_solver::db::{Databases, DbError};
    let solver = &*NINE_THREE;
    let dir = written(solver);
    let rules = *solver.rules();
    let absent = dir.path().join("absent");
    let e = Databases::open(&absent, rules).unwrap_err();
    assert!(matches!(e, DbError::NoFolder { .. }), "{e}");
    assert!(e.to_string().contains("kvarn solve"), "{e}");
    let file = kvarn_solver::db::path(dir.path(), &rules, solver.tables().keys().next().unwrap());
    let e = Databases::open(&file, rules).unwrap_err();
    assert!(matches!(e, DbError::NotAFolder { .. }), "{e}");
    // The folder holds databases without flying: none of them serve the game with it.
    let e = Databases::open(dir.path(), Rules::new(Variant::Nine)).unwrap_err();
    assert!(matches!(e, DbError::NoDatabases { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("Nine Men's Morris with flying") && text.contains("nine-fly_"),
        "{text}"
    );
    let e = Databases::open(dir.path(), Rules::new(Variant::Six)).unwrap_err();
    assert!(e.to_string().contains("Six Men's Morris (six_"), "{e}");
}

/// A file of the current format rewritten in the first one (version 1: no payload length,
/// its own framing before the shared container).
fn first_format(file: &[u8]) -> Vec<u8> {
    let header_len = u32::from_le_bytes(file[12..16].try_into().unwrap()) as usize;
    let mut old = file[..16 + header_len].to_vec();
    old[8..12].copy_from_slice(&1u32.to_le_bytes());
    old.extend_from_slice(&file[16 + header_len + 8..file.len() - 4]);
    let crc = crc32fast::hash(&old);
    old.extend_from_slice(&crc.to_le_bytes());
    old
}

#[test]
fn a_database_of_the_first_format_is_refused_as_old_and_rewritten_by_solve() {
    use kvarn_solver::{db, endgame_plan};
    let solver = &*NINE_THREE;
    let rules = *solver.rules();
    let dir = written(solver);
    let plan = endgame_plan(&rules, 3);
    let path = db::path(dir.path(), &rules, &plan[2].subspaces()[0]);
    let current = std::fs::read(&path).unwrap();
    std::fs::write(&path, first_format(&current)).unwrap();
    let Err(e) = db::Databases::open(dir.path(), rules).unwrap().load(None) else {
        panic!("a file of version 1 was read");
    };
    let text = e.to_string();
    assert!(
        text.contains("version 1") && text.contains("kvarn solve") && !text.contains("damaged"),
        "{text}"
    );
    let mut solved = Vec::new();
    db::solve_into(dir.path(), rules, &plan, |_, step, resumed, _| {
        if !resumed {
            solved.push(*step);
        }
    })
    .unwrap();
    assert_eq!(solved, vec![plan[2]]);
    assert_eq!(std::fs::read(&path).unwrap(), current);
}

#[test]
fn the_committed_five_sets_agree_with_the_databases_and_do_not_overlap() {
    use kvarn_solver::benchmark::{Part, committed};
    let rules = *FIVE.rules();
    let tuning = committed(&rules, Part::Tuning)
        .expect("a committed set")
        .unwrap();
    let held_out = committed(&rules, Part::HeldOut)
        .expect("a committed set")
        .unwrap();
    assert!(tuning.len() >= 1000 && held_out.len() >= 990);
    let names: std::collections::HashSet<&String> = tuning.iter().map(|b| &b.position).collect();
    assert!(
        held_out.iter().all(|b| !names.contains(&b.position)),
        "disjoint halves"
    );
    for b in tuning.iter().chain(&held_out) {
        let pos = Position::from_position_string(&rules, &b.position).unwrap();
        assert_eq!(
            FIVE.value(&pos).unwrap().outcome(),
            b.value,
            "{}",
            b.position
        );
        let moves = FIVE.move_values(&pos);
        assert_eq!(usize::from(b.legal), moves.len());
        let keeping: Vec<String> = moves
            .iter()
            .filter(|(_, v)| v.unwrap().outcome() == b.value)
            .map(|(m, _)| m.to_string())
            .collect();
        assert_eq!(keeping, b.preserving, "{}", b.position);
    }
    let critical = tuning.iter().filter(|b| b.critical()).count();
    assert!(critical > 300, "{critical} critical positions");
    for flying in [true, false] {
        let nine = kvarn_game::Rules::new(kvarn_game::Variant::Nine)
            .with_flying(flying)
            .unwrap();
        for part in [Part::Tuning, Part::HeldOut] {
            let set = committed(&nine, part)
                .expect("Nine's endgame sets")
                .unwrap();
            assert!((990..=1010).contains(&set.len()));
            let placing = kvarn_game::Phase::Placing;
            assert!(set.iter().all(|b| b.phase != placing));
        }
    }
}

#[test]
fn the_first_blunder_is_the_first_decision_of_the_side_that_worsens_its_value() {
    use kvarn_game::Outcome;
    use kvarn_game::Phase;
    use kvarn_solver::benchmark::{critical_starts, sample};
    use kvarn_solver::blunders::first_blunder;
    let rules = *FIVE.rules();
    let set = sample(&FIVE, 300, 11);
    let starts = critical_starts(&rules, &set, Outcome::Draw, 20).unwrap();
    assert_eq!(starts.len(), 20);
    let with = |pos: &Position, outcome: Outcome| {
        FIVE.move_values(pos)
            .into_iter()
            .find(|(_, v)| v.unwrap().outcome() == outcome)
            .map(|(m, _)| m)
    };
    let mut later = 0;
    for start in &starts {
        let side = start.position().side_to_move();
        let keep = with(start.position(), Outcome::Draw).unwrap();
        let lose = with(start.position(), Outcome::Loss).unwrap();
        assert_eq!(first_blunder(&*FIVE, start, [keep], side), None);
        let b = first_blunder(&*FIVE, start, [lose], side).unwrap();
        assert_eq!(b.decision, 0);
        assert_eq!(
            (b.chosen, b.before, b.after),
            (lose, Outcome::Draw, Outcome::Loss)
        );
        assert_eq!(b.phase, Phase::of(&rules, start.position()));
        assert_eq!(b.position, start.position().to_position_string(&rules));
        // Only the side asked about is judged.
        assert_eq!(first_blunder(&*FIVE, start, [lose], side.opposite()), None);
        // After a kept move and perfect replies, the side's next losing move is found.
        let mut game = start.clone();
        let mut moves = vec![keep];
        game.play(keep).unwrap();
        while !game.status().is_over() && game.position().side_to_move() != side {
            let reply = with(game.position(), Outcome::Draw).unwrap();
            game.play(reply).unwrap();
            moves.push(reply);
        }
        if game.status().is_over() {
            continue;
        }
        if let Some(lose) = with(game.position(), Outcome::Loss) {
            let b = first_blunder(&*FIVE, start, moves.iter().copied().chain([lose]), side);
            assert_eq!(b.map(|b| (b.decision, b.chosen)), Some((moves.len(), lose)));
            later += 1;
        }
    }
    assert!(
        later >= 5,
        "only {later} positions with a later losing move"
    );
}

/// Nine's committed whole-game set: over 1,000 critical positions with men in hand, in the
/// moving and in the flying phase, in each half; every position's value the best of its
/// moves' values, its value-keeping moves those of that value; no position in both halves.
#[test]
fn the_committed_whole_game_set_of_nine_is_whole_consistent_and_split() {
    use kvarn_game::{Outcome, Phase, Rules, Variant};
    use kvarn_solver::benchmark::{Part, committed_whole};
    let rules = Rules::new(Variant::Nine);
    let mut keys = std::collections::HashSet::new();
    for part in [Part::Tuning, Part::HeldOut] {
        let set = committed_whole(&rules, part)
            .expect("Nine's whole-game set")
            .unwrap();
        let critical = |phases: &[Phase]| {
            set.iter()
                .filter(|b| b.critical() && phases.contains(&b.phase))
                .count()
        };
        assert!(critical(&[Phase::Placing, Phase::Removal]) >= 1000);
        assert!(critical(&[Phase::Moving]) >= 1000);
        assert!(critical(&[Phase::Flying]) >= 1000);
        for b in &set {
            let best = b.move_values.values().max_by_key(|v| v.score()).copied();
            assert_eq!(best, Some(b.value), "{}", b.position);
            assert_eq!(b.move_values.len(), usize::from(b.legal), "{}", b.position);
            let keeping: Vec<&String> = b
                .move_values
                .iter()
                .filter(|(_, v)| **v == b.value)
                .map(|(m, _)| m)
                .collect();
            let mut preserving: Vec<&String> = b.preserving.iter().collect();
            preserving.sort();
            assert_eq!(keeping, preserving, "{}", b.position);
            let key = b.game(&rules).unwrap().position().canonical_key(&rules);
            assert!(keys.insert(key), "{} twice", b.position);
        }
        assert!(set.iter().any(|b| b.value == Outcome::Loss));
    }
}
