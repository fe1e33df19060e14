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
    /// Seconds the placing search may take for the position and its moves together, over
    /// win/draw/loss tables (0: no limit). A probe that runs out says so and fails.
    #[arg(long, default_value_t = 0.0, value_name = "SECONDS")]
    time_limit: f64,
    /// Memory of the placing search's transposition table, in MiB.
    #[arg(long, default_value_t = 1024, value_name = "MIB")]
    hash: usize,
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
/// moving phase from its table; one with men in hand by the placing search over the
/// tables, with the time and positions the proof took; and every move's value.
fn probe_wdl(args: &ProbeArgs, rules: kvarn_game::Rules, pos: &Position) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.time_limit.is_finite() && args.time_limit >= 0.0,
        "--time-limit must be a number of seconds, 0 or more (got {})",
        args.time_limit
    );
    let loading = std::time::Instant::now();
    let judge = kvarn_solver::judge::WholeGame::open_with(&args.db, rules, args.hash << 20)?;
    tracing::info!(seconds = loading.elapsed().as_secs_f64(), "tables read");
    let started = std::time::Instant::now();
    let deadline = (args.time_limit > 0.0)
        .then(|| started + std::time::Duration::from_secs_f64(args.time_limit));
    let out_of_time = |_| {
        anyhow::anyhow!(
            "the placing search did not finish within --time-limit {} s ({} positions searched)",
            args.time_limit,
            judge.positions_searched()
        )
    };
    let value = judge.value_by(pos, deadline).map_err(out_of_time)?;
    let proof = started.elapsed().as_secs_f64();
    let mut moves = judge.move_outcomes_by(pos, deadline).map_err(out_of_time)?;
    outln!("{}", pos.to_position_string(&rules));
    outln!(
        "{} to move: {} ({})",
        pos.side_to_move(),
        outcome_words(value),
        how_known(pos, proof, &judge)
    );
    let space = kvarn_game::ActionSpace::new(&rules);
    moves.sort_by_key(|&(m, _, _)| space.index(m));
    for (m, v, _) in moves {
        outln!("  {m:>7}  {}", outcome_words(v));
    }
    Ok(())
}

/// Where a value came from: the tables, or the placing search with its cost.
fn how_known(pos: &Position, seconds: f64, judge: &kvarn_solver::judge::WholeGame) -> String {
    let moving = pos.men_in_hand() == 0;
    if moving && !pos.pending_removal() {
        return "from the moving phase's tables".to_string();
    }
    let (used, bytes) = judge.table_use();
    format!(
        "proved by the placing search in {seconds:.2} s, {} positions, {used} of {} table entries",
        judge.positions_searched(),
        bytes / 8
    )
}

/// An outcome in words, for the player to move.
fn outcome_words(v: kvarn_game::Outcome) -> &'static str {
    match v {
        kvarn_game::Outcome::Win => "win for the player to move",
        kvarn_game::Outcome::Draw => "draw",
        kvarn_game::Outcome::Loss => "loss for the player to move",
    }
}
