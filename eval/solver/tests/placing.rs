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
        compared += 1;
    }
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
    let variant = Variant::Six;
    let rules = Rules::new(variant);
    let whole = Solver::solve_whole_game(variant, |_, _| {});
    let dir = tempfile::tempdir().unwrap();
    kvarn_solver::db::solve_wdl_into(dir.path(), rules, rules.men(), |_, _, _, _| {}).unwrap();
    let judge = kvarn_solver::judge::WholeGame::open(dir.path(), rules).unwrap();
    let spec = WholeGameSpec {
        placing: 300,
        moving: 300,
        min_placed: 0,
        min_critical: 0,
        seed: 7,
        limit: None,
    };
    let set = sample_whole_game(&judge, &spec, |_, _| {}).unwrap();
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
        }
        critical += usize::from(b.critical());
    }
    assert!(critical > 100, "{critical} critical positions");
}
