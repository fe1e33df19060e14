//! The retrograde solver: consistent values, agreement with exhaustive forward search.

use kvarn_eval::solver::{Solver, Value};
use kvarn_game::{Game, Position, Rules, Variant};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::sync::LazyLock;

static FIVE: LazyLock<Solver> =
    LazyLock::new(|| Solver::solve_whole_game(Variant::Five, |_, _| {}));

/// Exhaustive search to `depth` decisions, draw rules ignored: `Some(true)` if the player
/// to move forces a win within the depth, `Some(false)` if the opponent does, `None` if
/// neither is forced so soon.
fn forced(rules: &Rules, pos: &Position, depth: u32) -> Option<bool> {
    if let kvarn_game::Status::Win { winner, .. } = pos.status(rules, 1) {
        return Some(winner == pos.side_to_move());
    }
    if depth == 0 {
        return None;
    }
    let mut all_lose = true;
    for &m in pos.legal_moves(rules).iter() {
        let mut next = *pos;
        next.play_unchecked(rules, m);
        let same = next.side_to_move() == pos.side_to_move();
        let r = forced(rules, &next, depth - 1).map(|w| w == same);
        match r {
            Some(true) => return Some(true),
            Some(false) => {}
            None => all_lose = false,
        }
    }
    if all_lose { Some(false) } else { None }
}

#[test]
fn five_mens_morris_values_are_consistent() {
    let checked = FIVE.check_consistency().unwrap();
    assert!(checked > 100_000, "{checked}");
    let start = FIVE.value(&Position::start(FIVE.rules())).unwrap();
    println!("Five Men's Morris from the start: {start:?}");
}

#[test]
fn values_agree_with_forward_search() {
    let rules = *FIVE.rules();
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let mut proved = 0;
    for _ in 0..400 {
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
        let Some(v) = FIVE.value(&pos) else {
            panic!("unsolved: {}", pos.to_position_string(&rules))
        };
        let depth = 7;
        let f = forced(&rules, &pos, depth);
        match v {
            Value::Win(d) if u32::from(d) <= depth => {
                assert_eq!(f, Some(true), "{v:?} at {}", pos.to_position_string(&rules));
                if d > 0 {
                    // The distance is exact: no faster forced win exists.
                    assert_eq!(
                        forced(&rules, &pos, u32::from(d) - 1),
                        None,
                        "faster than {v:?}"
                    );
                }
                proved += 1;
            }
            Value::Loss(d) if u32::from(d) <= depth => {
                assert_eq!(
                    f,
                    Some(false),
                    "{v:?} at {}",
                    pos.to_position_string(&rules)
                );
                proved += 1;
            }
            _ => assert_eq!(
                f,
                None,
                "{v:?} but forced {f:?} within {depth} at {}",
                pos.to_position_string(&rules)
            ),
        }
    }
    assert!(proved > 20, "only {proved} positions proved");
}
