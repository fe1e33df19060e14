//! The placing phase searched over the moving phase's win/draw/loss tables against the
//! whole solutions of Six and Five Men's Morris: the start's value and 10,000 random
//! positions with men in hand, none different.

use kvarn_game::Outcome;
use kvarn_game::{Position, Rules, Variant};
use kvarn_solver::placing::PlacingSearch;
use kvarn_solver::wdl::WdlSolver;
use kvarn_solver::{Solver, Value};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn wdl(v: Value) -> Outcome {
    match v {
        Value::Win(_) => Outcome::Win,
        Value::Draw => Outcome::Draw,
        Value::Loss(_) => Outcome::Loss,
    }
}

fn agrees_with_the_whole_solution(variant: Variant, samples: usize) {
    let rules = Rules::new(variant);
    let whole = Solver::solve_whole_game(variant, |_, _| {});
    let mut tables = WdlSolver::new(rules);
    for (unit, _) in WdlSolver::plan(rules.men()) {
        tables.solve_pair(unit);
    }
    let search = PlacingSearch::new(std::sync::Arc::new(tables), 1 << 26);
    let start = Position::start(&rules);
    assert_eq!(search.value(&start), Outcome::Draw, "{variant}: the start");
    assert_eq!(wdl(whole.value(&start).unwrap()), Outcome::Draw);
    let placing: Vec<_> = whole
        .tables()
        .keys()
        .filter(|s| s.w_hand + s.b_hand > 0)
        .copied()
        .collect();
    let mut rng = Pcg64Mcg::seed_from_u64(61);
    let mut compared = 0;
    while compared < samples {
        let s = placing[rng.random_range(0..placing.len())];
        let Some(pos) = whole.position_at(&s, rng.random_range(0..whole.size(&s))) else {
            continue;
        };
        let expected = wdl(whole.value(&pos).unwrap());
        assert_eq!(
            search.value(&pos),
            expected,
            "{variant}: {}",
            pos.to_position_string(&rules)
        );
        // The null-window search agrees with the exact value on both of its sides.
        for floor in [Outcome::Draw, Outcome::Win] {
            assert_eq!(
                search.at_least_by(&pos, floor, None),
                Ok(expected.score() >= floor.score()),
                "{variant}: {} at least {floor:?}",
                pos.to_position_string(&rules)
            );
        }
        compared += 1;
    }
}

/// Six solved whole (distance tables) and its moving phase as win/draw/loss tables in a
/// temporary folder (kept alive by the returned handle), opened as a judge.
fn six_solved_both_ways() -> (
    Rules,
    Solver,
    tempfile::TempDir,
    kvarn_solver::judge::WholeGame,
) {
    let variant = Variant::Six;
    let rules = Rules::new(variant);
    let whole = Solver::solve_whole_game(variant, |_, _| {});
    let dir = tempfile::tempdir().unwrap();
    kvarn_solver::db::solve_wdl_into(dir.path(), rules, rules.men(), |_, _, _, _| {}).unwrap();
    let judge = kvarn_solver::judge::WholeGame::open(dir.path(), rules).unwrap();
    (rules, whole, dir, judge)
}

#[test]
fn five_mens_morris_placing_agrees_with_its_whole_solution() {
    agrees_with_the_whole_solution(Variant::Five, 10_000);
}

#[test]
fn six_mens_morris_placing_agrees_with_its_whole_solution() {
    agrees_with_the_whole_solution(Variant::Six, 10_000);
}

/// A whole-game benchmark set drawn over Six's win/draw/loss tables gives every move of
/// every position the value of Six's whole solution, placing and moving alike.
#[test]
fn a_whole_game_set_holds_every_moves_value_of_the_whole_solution() {
    use kvarn_solver::benchmark::whole_game::{WholeGameSpec, sample_whole_game};
    let (rules, whole, _dir, judge) = six_solved_both_ways();
    let spec = WholeGameSpec {
        placing: 300,
        moving: 300,
        min_placed: 0,
        min_critical: 0,
        seed: 7,
        limit: None,
    };
    let set = sample_whole_game(&judge, &spec, &Default::default(), |_, _| {}).unwrap();
    assert!(set.out_of_time.is_empty());
    assert_eq!(set.positions.len(), 600);
    let placing = set
        .positions
        .iter()
        .filter(|b| b.position.contains(" 0/0 "))
        .count();
    assert_eq!(
        set.positions.len() - placing,
        300,
        "positions without men in hand"
    );
    let mut critical = 0;
    for b in &set.positions {
        let pos = Position::from_position_string(&rules, &b.position).unwrap();
        assert_eq!(wdl(whole.value(&pos).unwrap()), b.value, "{}", b.position);
        assert_eq!(b.move_values.len(), usize::from(b.legal), "{}", b.position);
        for (m, v) in whole.move_values(&pos) {
            assert_eq!(
                b.move_values[&m.to_string()],
                wdl(v.unwrap()),
                "{} {m}",
                b.position
            );
            assert_eq!(
                b.preserving.contains(&m.to_string()),
                wdl(v.unwrap()) == b.value
            );
            for floor in [Outcome::Loss, Outcome::Draw, Outcome::Win] {
                assert_eq!(
                    judge.move_keeps_by(&pos, m, floor, None),
                    Ok(wdl(v.unwrap()).score() >= floor.score()),
                    "{} {m} keeps {floor:?}",
                    b.position
                );
            }
        }
        critical += usize::from(b.critical());
    }
    assert!(critical > 100, "{critical} critical positions");
}

/// A bank of exact samples drawn over Six's win/draw/loss tables: every row's value and
/// value-keeping moves are the whole solution's, removals of the moving phase are there,
/// no excluded position is drawn, and the file reads back whole or is refused when
/// damaged.
#[test]
fn a_sample_bank_holds_the_whole_solutions_values_and_refuses_damage() {
    use kvarn_solver::benchmark::bank::{BankSpec, check_bank, draw_bank, read_bank, write_bank};
    use kvarn_solver::benchmark::whole_game::WholeGameSpec;
    let (rules, whole, dir, judge) = six_solved_both_ways();
    let spec = BankSpec {
        whole: WholeGameSpec {
            placing: 150,
            moving: 150,
            min_placed: 0,
            min_critical: 0,
            seed: 9,
            limit: None,
        },
        removals: 60,
    };
    let none = Default::default();
    let (_, first) = draw_bank(&judge, &spec, &none, |_, _| {}).unwrap();
    // Leave out a third of what was drawn: none of it, nor its twins, comes back.
    let excluded: std::collections::HashSet<u64> = first
        .iter()
        .step_by(3)
        .map(|b| b.game(&rules).unwrap().position().canonical_key(&rules))
        .collect();
    let (header, rows) = draw_bank(&judge, &spec, &excluded, |_, _| {}).unwrap();
    assert_eq!(header.positions as usize, rows.len());
    assert_eq!(header.by_phase.values().sum::<u64>() as usize, rows.len());
    check_bank(&header, &rows, &excluded).unwrap();
    let mut moving_removals = 0;
    for b in &rows {
        let pos = Position::from_position_string(&rules, &b.position).unwrap();
        assert!(
            !excluded.contains(&pos.canonical_key(&rules)),
            "{}",
            b.position
        );
        let value = wdl(whole.value(&pos).unwrap());
        assert_eq!(value, b.value, "{}", b.position);
        let keeping: Vec<String> = whole
            .move_values(&pos)
            .into_iter()
            .filter(|(_, v)| wdl(v.unwrap()) == value)
            .map(|(m, _)| m.to_string())
            .collect();
        assert_eq!(keeping, b.preserving, "{}", b.position);
        assert!(b.move_values.is_empty(), "a bank keeps no move values");
        moving_removals += usize::from(pos.pending_removal() && pos.men_in_hand() == 0);
    }
    assert_eq!(moving_removals, 60);
    let file = dir.path().join("six.kvbank");
    write_bank(&file, &header, &rows).unwrap();
    assert_eq!(read_bank(&file).unwrap(), (header.clone(), rows.clone()));
    // A damaged copy is refused with its name and what is wrong, never read in part.
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x20;
    std::fs::write(&file, &bytes).unwrap();
    let err = read_bank(&file).unwrap_err().to_string();
    assert!(
        err.contains("six.kvbank") && err.contains("damaged"),
        "{err}"
    );
    // A bank that holds an excluded position fails its check.
    let key = rows[0]
        .game(&rules)
        .unwrap()
        .position()
        .canonical_key(&rules);
    let err = check_bank(&header, &rows, &[key].into_iter().collect()).unwrap_err();
    assert!(err.to_string().contains("committed benchmark"), "{err}");
}

/// The value walked along a game (the start's, then each move's null-window test) is the
/// exact value at every step of random games of Six, placing and moving alike.
#[test]
fn values_walked_along_random_games_are_the_exact_values() {
    let (rules, whole, _dir, judge) = six_solved_both_ways();
    let mut rng = Pcg64Mcg::seed_from_u64(63);
    let mut steps = 0;
    for _ in 0..30 {
        let mut game = kvarn_game::Game::new(rules);
        while !game.status().is_over() && game.ply() < 40 {
            let moves = game.legal_moves();
            game.play(moves[rng.random_range(0..moves.len())]).unwrap();
            let walked = judge.value_along(game.start_position(), game.moves());
            let exact = wdl(whole.value(game.position()).unwrap());
            assert_eq!(
                walked,
                exact,
                "{}",
                game.position().to_position_string(&rules)
            );
            steps += 1;
        }
    }
    assert!(steps > 300, "{steps} steps");
}
