//! The lean win/draw/loss solver of the moving phase against the distance tables: the same
//! value for every position, and turns to the next removal that a perfect player can
//! follow (each won position has a move to a position lost for the opponent one turn
//! nearer, or a mill that wins at once).

use kvarn_game::Outcome;
use kvarn_game::{Bitboard, Color, Rules, Variant};
use kvarn_solver::wdl::{Unit, WdlSolver};
use kvarn_solver::{Solver, Subspace, Value};

/// Every unit up to `max_men` a side solved both ways agrees position by position.
fn agree(rules: Rules, max_men: u8) -> u64 {
    let old = Solver::solve_endgames(rules, max_men, |_, _| {});
    let mut new = WdlSolver::new(rules);
    for (unit, _) in WdlSolver::plan(max_men) {
        new.solve_pair(unit);
    }
    let mut compared = 0;
    for (unit, _) in WdlSolver::plan(max_men) {
        for u in [unit, unit.swapped()] {
            let table = new.table(u).unwrap();
            let s = Subspace::moving(u.white, u.black, Color::White, false);
            for i in 0..table.len {
                let Some(pos) = old.position_at(&s, i) else {
                    assert_eq!(table.get(i), None, "{u:?} index {i}: unused in both");
                    continue;
                };
                let expected = match old.value(&pos).unwrap() {
                    Value::Win(_) => Outcome::Win,
                    Value::Draw => Outcome::Draw,
                    Value::Loss(_) => Outcome::Loss,
                };
                assert_eq!(
                    table.get(i),
                    Some(expected),
                    "{u:?}: {}",
                    pos.to_position_string(&rules)
                );
                compared += 1;
            }
        }
    }
    compared
}

#[test]
fn nine_with_flying_agrees_with_the_distance_tables_up_to_four_men() {
    let compared = agree(Rules::new(Variant::Nine), 4);
    assert!(compared > 1_000_000, "{compared}");
}

/// The comparison the solving issue asks for, 3 to 5 men a side (about two minutes in a
/// release build): `cargo test --release -p kvarn-solver --test wdl -- --ignored`.
#[test]
#[ignore = "minutes: run on purpose"]
fn nine_with_flying_agrees_with_the_distance_tables_up_to_five_men() {
    let compared = agree(Rules::new(Variant::Nine), 5);
    assert!(compared > 60_000_000, "{compared}");
}

#[test]
fn nine_without_flying_and_six_agree_with_the_distance_tables() {
    agree(Rules::new(Variant::Nine).with_flying(false).unwrap(), 4);
    agree(Rules::new(Variant::Six), 4);
}

#[test]
fn a_won_position_has_a_move_one_turn_nearer_the_removal() {
    let rules = Rules::new(Variant::Nine);
    let mut solver = WdlSolver::new(rules);
    for (unit, _) in WdlSolver::plan(4) {
        solver.solve_pair(unit);
    }
    let ix = kvarn_solver::index::Indexer::new(rules.board());
    let mut checked = 0;
    for unit in [
        Unit { white: 4, black: 4 },
        Unit { white: 4, black: 3 },
        Unit { white: 3, black: 4 },
    ] {
        let table = solver.table(unit).unwrap();
        let flying = unit.white == 3;
        for i in 0..table.len {
            if table.get(i) != Some(Outcome::Win) {
                continue;
            }
            let (white, black) = ix.men_at(unit.white, unit.black, i).unwrap();
            let d = table.to_removal[i];
            let board = rules.board();
            let empty = board.points() & !(white | black);
            let progress = white.into_iter().any(|from| {
                let targets = if flying {
                    empty
                } else {
                    board.adjacent(from) & empty
                };
                targets.into_iter().any(|to| {
                    let moved = white ^ Bitboard::from_square(from) ^ Bitboard::from_square(to);
                    if board.closes_mill(moved, to) {
                        return d == 1;
                    }
                    let j = ix.index_of_men(black, moved);
                    let twin = solver.table(unit.swapped()).unwrap();
                    twin.get(j) == Some(Outcome::Loss) && twin.to_removal[j] + 1 == d
                })
            });
            assert!(
                progress,
                "{unit:?} index {i}: won in {d} turns with no move nearer"
            );
            checked += 1;
        }
    }
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn tables_round_trip_through_their_files_resume_and_refuse_damage() {
    use kvarn_solver::db;
    let rules = Rules::new(Variant::Nine);
    let dir = tempfile::tempdir().unwrap();
    let mut fresh = 0;
    let solved = db::solve_wdl_into(dir.path(), rules, 4, |_, units, resumed, _| {
        fresh += usize::from(!resumed) * units.len();
    })
    .unwrap();
    assert_eq!(fresh, 4, "3v3, 3v4, 4v3 and 4v4");
    let unit = Unit { white: 3, black: 4 };
    let len = solved.size(unit);
    let read = db::read_wdl(dir.path(), &rules, unit, len)
        .unwrap()
        .unwrap();
    assert_eq!(read.packed, solved.table(unit).unwrap().packed);
    assert_eq!(read.counts(), [102_281, 658_117, 0]);
    let mut resumed = 0;
    db::solve_wdl_into(dir.path(), rules, 4, |_, units, r, _| {
        resumed += usize::from(r) * units.len();
    })
    .unwrap();
    assert_eq!(resumed, 4, "a second solve reads every unit back");
    let path = dir.path().join(db::wdl_file_name(&rules, unit));
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let e = db::read_wdl(dir.path(), &rules, unit, len).unwrap_err();
    assert!(e.to_string().contains("w3b4"), "{e}");
}
