//! The perfect player over win/draw/loss tables: from won positions of the moving phase it
//! wins every game, against itself and against the alpha-beta baseline, never repeating a
//! position (its turns to the next removal fall with each of its moves), and from the start
//! it holds the draw.

use std::sync::Arc;

use kvarn_arena::agent::{Agent, AgentSpec, PerfectAgent, load_whole_game};
use kvarn_game::{Color, Game, Outcome, Position, Rules, Variant};
use kvarn_solver::wdl::{Unit, WdlSolver};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Plays `game` out between `white` and `black` (at most 600 plies); the winner, if any.
fn play_out(mut game: Game, white: &mut dyn Agent, black: &mut dyn Agent) -> Option<Color> {
    for _ in 0..600 {
        if game.status().is_over() {
            return game.status().winner();
        }
        let agent: &mut dyn Agent = match game.position().side_to_move() {
            Color::White => &mut *white,
            Color::Black => &mut *black,
        };
        let m = agent.choose(&game).unwrap();
        game.play(m).unwrap();
    }
    None
}

#[test]
fn won_positions_are_won_against_itself_and_the_baseline_and_the_start_is_held() {
    // Six: its whole moving phase solves in about a second. No no-capture rule, so that a
    // draw could only come from a repeated position or a failure to make progress.
    let rules = Rules::new(Variant::Six)
        .with_no_capture_limit(None)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    kvarn_solver::db::solve_wdl_into(dir.path(), rules, rules.men(), |_, _, _, _| {}).unwrap();
    let judge = load_whole_game(dir.path(), rules).unwrap();
    let tables = kvarn_solver::db::load_wdl_values(dir.path(), rules).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let units: Vec<Unit> = WdlSolver::plan(rules.men())
        .into_iter()
        .flat_map(|(u, t)| [u, t])
        .collect();
    let baseline: AgentSpec = "alphabeta:depth=3".parse().unwrap();
    let (mut won, mut games) = (0, 0);
    while games < 200 {
        let unit = units[rng.random_range(0..units.len())];
        let table = tables.table(unit).unwrap();
        let i = rng.random_range(0..table.len);
        if table.get(i) != Some(Outcome::Win) {
            continue;
        }
        let pos = tables
            .indexer()
            .position_at(&rules, &unit.subspace(), i)
            .unwrap();
        let start = Game::from_position(rules, pos).unwrap();
        let mut perfect = PerfectAgent::over_tables(Arc::clone(&judge), 1, "perfect".into());
        let mut other = PerfectAgent::over_tables(Arc::clone(&judge), 2, "perfect".into());
        let mut base = baseline.build(rules, 3).unwrap();
        let against_itself = play_out(start.clone(), &mut perfect, &mut other);
        let against_baseline = play_out(start, &mut perfect, base.as_mut());
        won += usize::from(against_itself == Some(Color::White));
        won += usize::from(against_baseline == Some(Color::White));
        games += 2;
    }
    assert_eq!(won, games, "every won position won");
    // From the start, against itself: a draw by repetition, never a loss.
    let start = Game::from_position(rules, Position::start(&rules)).unwrap();
    let mut a = PerfectAgent::over_tables(Arc::clone(&judge), 3, "a".into());
    let mut b = PerfectAgent::over_tables(Arc::clone(&judge), 4, "b".into());
    assert_eq!(play_out(start, &mut a, &mut b), None);
}
