//! `kvarn probe`: a position's exact value, and each move's, from the solver databases.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use kvarn_game::Position;
use kvarn_solver::Value;
use kvarn_solver::db::Databases;

use crate::rules_args::RulesArgs;

/// Arguments of `kvarn probe`.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Folder of the database files.
    #[arg(long)]
    db: PathBuf,
    /// The position: `startpos`, a Kvarn position string or a Sanmill FEN.
    position: String,
}
/// A value in words: won or lost in so many turns, or drawn.
pub(crate) fn describe(v: Value) -> String {
    let turns = |d: u16| {
        if d == 1 {
            "1 turn".to_string()
        } else {
            format!("{d} turns")
        }
    };
    match v {
        Value::Loss(0) => "lost (the game is over)".to_string(),
        Value::Win(d) => format!("win in {} for the player to move", turns(d)),
        Value::Loss(d) => format!("loss in {} for the player to move", turns(d)),
        Value::Draw => "draw".to_string(),
    }
}

/// Runs `kvarn probe`.
pub fn run(args: &ProbeArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let text = args.position.trim();
    let pos = Position::from_text(&rules, text)
        .with_context(|| format!("reading the position `{text}`"))?;
    // A finished game has a result and no moves to value, databases or none.
    let status = kvarn_game::Game::from_position(rules, pos)?.status();
    if status.is_over() {
        let side = pos.side_to_move();
        let outcome = match status.winner() {
            Some(w) if w == side => "won",
            Some(_) => "lost",
            None => "drawn",
        };
        outln!("{}", pos.to_position_string(&rules));
        outln!("{side} to move: {outcome} (the game is over: {status})");
        return Ok(());
    }
    if kvarn_solver::db::has_wdl(&args.db, &rules) {
        return probe_wdl(args, rules, &pos);
    }
    let databases = Databases::open(&args.db, rules)?;
    // Only the subspaces of the position and of its moves are read.
    let mut needed = vec![pos];
    for &m in pos.legal_moves(&rules).iter() {
        let mut next = pos;
        next.play_unchecked(&rules, m);
        needed.push(next);
    }
    let solver = databases.load_for(&needed)?;
    let value = solver.value(&pos).with_context(|| {
        format!(
            "the databases in {} do not cover this position (solve it with `kvarn solve`)",
            args.db.display()
        )
    })?;
    outln!("{}", pos.to_position_string(&rules));
    outln!("{} to move: {}", pos.side_to_move(), describe(value));
    let space = kvarn_game::ActionSpace::new(&rules);
    let mut moves = solver.move_values(&pos);
    moves.sort_by_key(|&(m, _)| space.index(m));
    for (mv, v) in moves {
        let v = v.map_or("not in the databases".to_string(), describe);
        outln!("  {mv:>7}  {v}");
    }
    Ok(())
}

/// `kvarn probe` over win/draw/loss tables of the whole moving phase: a position of the
/// moving phase from its table, with its turns to the next removal; one with men in hand by
/// the placing search over the tables, with the time and positions the proof took; and
/// every move's value.
fn probe_wdl(args: &ProbeArgs, rules: kvarn_game::Rules, pos: &Position) -> anyhow::Result<()> {
    use kvarn_game::Color;
    use kvarn_game::Outcome;
    let loading = std::time::Instant::now();
    let judge = kvarn_solver::judge::WholeGame::open(&args.db, rules)?;
    tracing::info!(seconds = loading.elapsed().as_secs_f64(), "tables read");
    let started = std::time::Instant::now();
    let value = judge.value(pos);
    let moving = pos.in_hand(Color::White) + pos.in_hand(Color::Black) == 0;
    let how = if moving && !pos.pending_removal() {
        "from the moving phase's tables".to_string()
    } else {
        format!(
            "proved by the placing search in {:.2} s, {} positions",
            started.elapsed().as_secs_f64(),
            judge.positions_searched()
        )
    };
    let words = |v: Outcome| match v {
        Outcome::Win => "win for the player to move",
        Outcome::Draw => "draw",
        Outcome::Loss => "loss for the player to move",
    };
    outln!("{}", pos.to_position_string(&rules));
    outln!("{} to move: {} ({how})", pos.side_to_move(), words(value));
    let space = kvarn_game::ActionSpace::new(&rules);
    let mut moves = judge.move_outcomes(pos);
    moves.sort_by_key(|&(m, _, _)| space.index(m));
    for (m, v, _) in moves {
        outln!("  {m:>7}  {}", words(v));
    }
    Ok(())
}
