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
