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
    let mut search = PlacingSearch::new(std::sync::Arc::new(tables));
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
