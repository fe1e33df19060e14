//! Database values under Kvarn's draw rules: where a database win stops being certain.

use kvarn_game::{Color, Game, Position, Rules, Status, Variant};
use kvarn_solver::adjudication::{certain, turns_allowed};
use kvarn_solver::{Solver, Subspace, Value};

const LIMIT: u16 = 10;

/// Plays perfectly from the game's position: the winner takes a fastest win, the loser a
/// slowest loss, a drawn side any drawing move.
fn play_perfectly(solver: &Solver, game: &mut Game) -> Status {
    while !game.status().is_over() {
        let pos = *game.position();
        let moves = solver.move_values(&pos);
        let (mv, _) = moves
            .iter()
            .map(|&(m, v)| (m, v.expect("a solved move")))
            .reduce(|a, b| if b.1.better_than(a.1) { b } else { a })
            .expect("a legal move");
        game.play(mv).expect("legal");
    }
    game.status()
}

fn with_counter(rules: &Rules, pos: &Position, no_capture: u16) -> Position {
    let mut setup = pos.setup();
    setup.no_capture = no_capture;
    setup.turns = setup.turns.max(40);
    Position::from_setup(rules, &setup).expect("a valid position")
}

#[test]
fn a_database_win_is_certain_exactly_while_it_fits_in_the_no_capture_count() {
    let solved_rules = Rules::new(Variant::Nine);
    let solver = Solver::solve_endgames(solved_rules, 3, |_, _| {});
    let rules = solved_rules.with_no_capture_limit(Some(LIMIT)).unwrap();
    let s = Subspace::moving(3, 3, Color::White, false);
    let (mut checked, mut drawn_past_the_bound) = (0, 0);
    for i in (0..solver.size(&s)).step_by(97) {
        let Some(pos) = solver.position_at(&s, i) else {
            continue;
        };
        let Some(Value::Win(d)) = solver.value(&pos) else {
            continue;
        };
        if !(2..=LIMIT).contains(&d) {
            continue;
        }
        // At the bound: certain, and perfect play wins.
        let at = with_counter(&rules, &pos, LIMIT - d);
        assert_eq!(turns_allowed(&at, LIMIT), d);
        assert_eq!(
            certain(&rules, &at, Value::Win(d), false),
            Some(Value::Win(d))
        );
        assert_eq!(
            certain(&rules, &at, Value::Loss(d), false),
            Some(Value::Loss(d))
        );
        let mut game = Game::from_position(rules, at).unwrap();
        match play_perfectly(&solver, &mut game) {
            Status::Win {
                winner: Color::White,
                ..
            } => {}
            other => panic!(
                "{}: a certain win in {d} ended {other:?}",
                at.to_position_string(&rules)
            ),
        }
        // One turn past it: not certain; the same play is drawn when the line has no
        // removal before its last turn.
        let past = with_counter(&rules, &pos, LIMIT - d + 1);
        assert_eq!(certain(&rules, &past, Value::Win(d), false), None);
        let mut game = Game::from_position(rules, past).unwrap();
        if let Status::Draw { .. } = play_perfectly(&solver, &mut game) {
            drawn_past_the_bound += 1;
        }
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} positions checked");
    assert!(drawn_past_the_bound > 0, "the bound was never tight");
}

#[test]
fn draws_stay_draws_and_repetitions_or_pending_removals_move_the_bound() {
    let solved_rules = Rules::new(Variant::Nine);
    let solver = Solver::solve_endgames(solved_rules, 3, |_, _| {});
    let rules = solved_rules.with_no_capture_limit(Some(LIMIT)).unwrap();
    let subspace = |pending| Subspace::moving(3, 3, Color::White, pending);
    let first = |pending| {
        (0..solver.size(&subspace(pending)))
            .find_map(|i| solver.position_at(&subspace(pending), i))
            .expect("a position")
    };
    let pos = with_counter(&rules, &first(false), LIMIT - 1);
    assert_eq!(certain(&rules, &pos, Value::Draw, true), Some(Value::Draw));
    assert_eq!(
        certain(&rules, &pos, Value::Win(1), false),
        Some(Value::Win(1))
    );
    assert_eq!(certain(&rules, &pos, Value::Win(2), false), None);
    assert_eq!(
        certain(&rules, &pos, Value::Win(1), true),
        None,
        "a repetition since the last removal"
    );
    let no_repetition = rules.with_repetition(false);
    assert_eq!(
        certain(&no_repetition, &pos, Value::Win(1), true),
        Some(Value::Win(1))
    );
    let unlimited = rules.with_no_capture_limit(None).unwrap();
    assert_eq!(
        certain(&unlimited, &pos, Value::Loss(500), false),
        Some(Value::Loss(500))
    );
    // With a removal pending, this turn restarts the count.
    let pending = with_counter(&rules, &first(true), LIMIT - 1);
    assert!(pending.pending_removal());
    assert_eq!(turns_allowed(&pending, LIMIT), LIMIT + 1);
    assert_eq!(
        certain(&rules, &pending, Value::Win(LIMIT + 1), false),
        Some(Value::Win(LIMIT + 1))
    );
    assert_eq!(
        certain(&rules, &pending, Value::Win(LIMIT + 2), false),
        None
    );
}
