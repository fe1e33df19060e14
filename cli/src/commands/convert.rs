//! `kvarn eval convert`: does an agent win won positions? Won positions of Nine's moving
//! phase drawn from the win/draw/loss tables, each close enough to its next removal for
//! the no-capture rule, played out under the game's draw rules against each opponent.
//! The perfect player must win every one: no repetition, no no-capture draw.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use kvarn_arena::agent::{AgentFactory, load_whole_game};
use kvarn_arena::matches::{MatchConfig, run_from_positions};
use kvarn_game::Game;
use kvarn_solver::benchmark::whole_game::won_within;

use crate::rules_args::RulesArgs;

/// Arguments of `kvarn eval convert`.
#[derive(Args, Debug)]
pub struct EvalConvertArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Folder of the win/draw/loss tables of the whole moving phase (`kvarn solve --wdl`).
    #[arg(long)]
    db: PathBuf,
    /// Won positions to play from.
    #[arg(long, default_value_t = 1000)]
    positions: usize,
    /// The agent that must win (default: the perfect player over --db).
    #[arg(long)]
    agent: Option<String>,
    /// An opponent, playing every position; repeatable (default: the perfect player over
    /// --db, then `alphabeta:depth=3`).
    #[arg(long = "opponent")]
    opponents: Vec<String>,
    /// Seed of the draws and of agents without one of their own.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `kvarn eval convert`.
pub fn run(args: &EvalConvertArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    anyhow::ensure!(args.positions > 0, "--positions must be at least 1");
    anyhow::ensure!(
        kvarn_solver::db::has_wdl(&args.db, &rules),
        "{} holds no win/draw/loss tables of {rules} (kvarn solve --wdl)",
        args.db.display()
    );
    let perfect = format!("perfect:db={}", args.db.display());
    let agent =
        kvarn_selfplay::net_agent::factory(args.agent.as_deref().unwrap_or(&perfect), &rules)
            .context("reading --agent")?;
    let opponents = if args.opponents.is_empty() {
        vec![perfect.clone(), "alphabeta:depth=3".to_string()]
    } else {
        args.opponents.clone()
    };
    let judge = load_whole_game(&args.db, rules)?;
    let limit = rules.no_capture_limit().map_or(u32::MAX, u32::from);
    let started = Instant::now();
    let starts: Vec<Game> = won_within(&judge, args.positions, limit, args.seed)?
        .into_iter()
        .map(|p| Game::from_position(rules, p))
        .collect::<Result<_, _>>()?;
    outln!(
        "{} won positions of {rules} drawn from the tables (turns to the next removal at most \
         {limit}) in {:.1} s",
        starts.len(),
        started.elapsed().as_secs_f64()
    );
    let mut not_won = 0;
    for spec in &opponents {
        let opponent =
            kvarn_selfplay::net_agent::factory(spec, &rules).context("reading --opponent")?;
        not_won += play_against(args, &starts, agent.as_ref(), opponent.as_ref())?;
    }
    anyhow::ensure!(
        not_won == 0,
        "{not_won} games from won positions were not won"
    );
    Ok(())
}

/// Plays every start against `opponent`, the agent to move; prints the tally with the
/// reasons of the games not won, and returns how many those were.
fn play_against(
    args: &EvalConvertArgs,
    starts: &[Game],
    agent: &dyn AgentFactory,
    opponent: &dyn AgentFactory,
) -> anyhow::Result<usize> {
    let cfg = MatchConfig {
        rules: *starts[0].rules(),
        games: 0,
        seed: args.seed,
        opening_plies: 0,
    };
    let started = Instant::now();
    let report = run_from_positions(&cfg, starts, agent, opponent, |_| {})?;
    let mut reasons: std::collections::BTreeMap<&str, usize> = Default::default();
    for r in &report.records {
        let mover = starts[r.game].position().side_to_move();
        if r.winner() != Some(mover) {
            *reasons.entry(r.reason.as_str()).or_default() += 1;
            tracing::warn!(game = r.game, start = %starts[r.game].position().to_position_string(&cfg.rules),
                result = %r.result, reason = %r.reason, "a won position not won");
        }
    }
    let t = report.tally;
    outln!(
        "against {}: won {} of {} ({}-{}-{} W-D-L{}) in {:.1} s{}",
        opponent.name(),
        t.wins,
        starts.len(),
        t.wins,
        t.draws,
        t.losses,
        if reasons.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = reasons.iter().map(|(r, n)| format!("{n} by {r}")).collect();
            format!("; not won: {}", list.join(", "))
        },
        started.elapsed().as_secs_f64(),
        match report.failures.first() {
            None => String::new(),
            Some(first) => format!(", {} games failed: {first}", report.failures.len()),
        }
    );
    Ok(starts.len() - t.wins as usize)
}
