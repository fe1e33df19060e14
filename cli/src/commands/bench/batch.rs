//! `kvarn bench batch`: the batched simulator on one core.

use std::time::Instant;

use clap::Args;
use kvarn_game::BatchSim;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::budget::duration;
use crate::rules_args::RulesArgs;

/// Arguments of `kvarn bench batch`.
#[derive(Args, Debug)]
pub struct BatchArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Games in the batch.
    #[arg(long, default_value_t = 256)]
    games: usize,
    /// Seconds of stepping, then as many of encoding.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Seed of the random actions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `kvarn bench batch`.
pub fn run(args: &BatchArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.games > 0, "--games must be at least 1");
    let rules = args.rules.rules()?;
    outln!("bench batch, {rules}, {} games, one thread", args.games);
    let mut sim = BatchSim::new(rules, args.games);
    let mut rng = Pcg64Mcg::seed_from_u64(args.seed);
    let mut actions = vec![0usize; args.games];
    let budget = duration(args.seconds)?;
    let (mut steps, mut finished) = (0u64, 0u64);
    let t = Instant::now();
    while t.elapsed() < budget {
        sim.pick_actions(|n| rng.random_range(0..n), &mut actions);
        finished += sim.step(&actions)?.len() as u64;
        steps += 1;
    }
    let secs = t.elapsed().as_secs_f64();
    let plies = steps * args.games as u64;
    outln!(
        "step (random legal actions, checked): {:.2} M plies/s, {finished} games finished",
        plies as f64 / secs / 1e6
    );
    let (mut features, mut mask) = sim.encoded();
    let mut encodes = 0u64;
    let t = Instant::now();
    while t.elapsed() < budget {
        sim.encode(features.view_mut(), mask.view_mut())?;
        encodes += 1;
    }
    let secs = t.elapsed().as_secs_f64();
    let encode_rate = (encodes * args.games as u64) as f64 / secs / 1e6;
    outln!(
        "encode features [{}x{}] and masks [{}x{}]: {:.2} M positions/s",
        features.nrows(),
        features.ncols(),
        mask.nrows(),
        mask.ncols(),
        encode_rate
    );
    let mut loops = 0u64;
    let t = Instant::now();
    while t.elapsed() < budget {
        sim.encode(features.view_mut(), mask.view_mut())?;
        sim.pick_actions(|n| rng.random_range(0..n), &mut actions);
        sim.step(&actions)?;
        loops += 1;
    }
    outln!(
        "a learner's step (encode, random legal actions, step): {:.2} M plies/s",
        (loops * args.games as u64) as f64 / t.elapsed().as_secs_f64() / 1e6
    );
    Ok(())
}
