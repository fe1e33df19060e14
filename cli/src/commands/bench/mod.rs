//! `kvarn bench ...`: speed measurements that print figures.

use clap::Subcommand;
use kvarn_game::{Game, Rules};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

mod batch;
mod budget;
mod infer;
mod movegen;
mod movetime;
mod precision;
mod replay;
mod search;
mod train;

/// The benchmarks.
#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Random playouts and perft on one core: plies/s and nodes/s.
    Movegen(movegen::MovegenArgs),
    /// The batched simulator on one core: random steps, and encoding of features and masks.
    Batch(batch::BatchArgs),
    /// The alpha-beta baseline on middle-game positions: time per move and nodes/s by depth.
    Search(search::SearchArgs),
    /// Network inference on the CPU: evaluations per second by batch size.
    Infer(infer::InferArgs),
    /// The network in each reduced precision against 32-bit on the same positions: the
    /// largest and mean differences of its outputs, and the best move's agreement.
    Precision(precision::PrecisionArgs),
    /// Training steps per second of a network (default: the reference MLP on Nine).
    Train(train::TrainArgs),
    /// A run's training stage taken apart: loading its replay window, drawing batches
    /// from it and the optimiser steps on them.
    Replay(replay::ReplayArgs),
    /// Self-play of a run configuration without writing shards: positions/s, network
    /// calls, mean batch, and the shares of thread time of the network, the leaves'
    /// encoding and the rest of the tree, for one precision or several back to back.
    Selfplay(super::selfplay::BenchSelfPlayArgs),
    /// An agent limited by time per move on positions from seeded random games (placing
    /// and moving): how far past its budget each move runs.
    Movetime(movetime::MovetimeArgs),
}

/// Runs a benchmark.
pub fn run(cmd: &BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::Movegen(args) => movegen::run(args),
        BenchCommand::Batch(args) => batch::run(args),
        BenchCommand::Search(args) => search::run(args),
        BenchCommand::Infer(args) => infer::run(args),
        BenchCommand::Precision(args) => precision::run(args),
        BenchCommand::Train(args) => train::run(args),
        BenchCommand::Replay(args) => replay::run(args),
        BenchCommand::Selfplay(args) => super::selfplay::bench_selfplay(args),
        BenchCommand::Movetime(args) => movetime::run(args),
    }
}

/// Positions from seeded random games at every stage: each game is cut after a random
/// number of plies below `max_plies`, and kept while it is still going.
fn varied_positions(rules: Rules, n: usize, seed: u64, max_plies: usize) -> Vec<Game> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut game = Game::new(rules);
        let plies = rng.random_range(0..max_plies);
        while game.ply() < plies && !game.status().is_over() {
            let moves = game.legal_moves();
            game.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        if !game.status().is_over() {
            out.push(game);
        }
    }
    out
}
