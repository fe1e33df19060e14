//! `kvarn perft`: decision counts by depth, the check that move generators agree.

use std::time::Instant;

use clap::Args;
use kvarn_game::{perft, perft_divide};

use crate::rules_args::{RulesArgs, StartArgs};

/// Arguments of `kvarn perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    rules: RulesArgs,
    #[command(flatten)]
    start: StartArgs,
    /// Deepest depth to count (every depth from 1 is printed).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=20))]
    depth: u32,
    /// Also print the count below each first move at the deepest depth.
    #[arg(long)]
    divide: bool,
}

/// Runs `kvarn perft`.
pub fn run(args: &PerftArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let mut game = args.start.game(rules)?;
    println!("perft, {rules}");
    for depth in 1..=args.depth {
        let t = Instant::now();
        let nodes = perft(&mut game, depth);
        let secs = t.elapsed().as_secs_f64();
        println!(
            "depth {depth:>2}: {nodes:>14} nodes  {secs:>8.3} s  {:>8.2} M nodes/s",
            nodes as f64 / secs.max(1e-9) / 1e6
        );
    }
    if args.divide {
        for (mv, n) in perft_divide(&mut game, args.depth) {
            println!("{mv:>8}: {n}");
        }
    }
    Ok(())
}
