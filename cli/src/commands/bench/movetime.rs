//! `kvarn bench movetime`: how far past its time budget an agent's moves run.

use std::time::{Duration, Instant};

use clap::Args;

use crate::rules_args::RulesArgs;

/// Arguments of `kvarn bench movetime`.
#[derive(Args, Debug)]
pub struct MovetimeArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// The agent, without its time limit: `net:model=FILE`, `alphabeta`, ...
    #[arg(long)]
    agent: String,
    /// Milliseconds per move, added to the agent as `movetime=MS`.
    #[arg(long, default_value_t = 50)]
    movetime: u64,
    /// Positions (moves) to time.
    #[arg(long, default_value_t = 1000)]
    positions: usize,
    /// Seed of the positions and the agent.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `kvarn bench movetime`.
pub fn run(args: &MovetimeArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    anyhow::ensure!(args.positions > 0, "--positions must be at least 1");
    anyhow::ensure!(args.movetime > 0, "--movetime must be at least 1 ms");
    let joiner = if args.agent.contains(':') { ',' } else { ':' };
    let spec = format!("{}{joiner}movetime={}", args.agent, args.movetime);
    let factory = kvarn_selfplay::net_agent::factory(&spec, &rules)?;
    let mut agent = factory.build(rules, args.seed)?;
    outln!(
        "bench movetime, {rules}, {spec}, {} positions (placing and moving)",
        args.positions
    );
    let budget = Duration::from_millis(args.movetime);
    let mut over: Vec<f64> = Vec::with_capacity(args.positions);
    for game in super::positions::varied_positions(rules, args.positions, args.seed, 60) {
        let t = Instant::now();
        agent.choose(&game)?;
        over.push((t.elapsed().as_secs_f64() - budget.as_secs_f64()) * 1e3);
    }
    over.sort_by(f64::total_cmp);
    let at = |q: f64| over[((over.len() - 1) as f64 * q).round() as usize];
    let late = over.iter().filter(|&&x| x > 20.0).count();
    outln!(
        "time past the budget (ms): median {:.2}, 99% {:.2}, 99.9% {:.2}, most {:.2}",
        at(0.5),
        at(0.99),
        at(0.999),
        over[over.len() - 1]
    );
    outln!(
        "moves more than 20 ms late: {late} of {} ({:.2}%)",
        over.len(),
        100.0 * late as f64 / over.len() as f64
    );
    Ok(())
}
