//! `kvarn bench ...`: speed measurements that print figures.

use clap::Subcommand;

mod batch;
mod budget;
mod infer;
mod movegen;
mod movetime;
mod positions;
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
