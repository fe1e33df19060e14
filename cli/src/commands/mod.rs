//! One module per command.

pub mod analyze;
pub mod bench;
pub mod bench_set;
pub mod config;
pub mod convert;
pub mod engine;
pub mod eval_solver;
pub mod export;
pub mod ladder;
pub mod matches;
pub mod model;
pub mod moves;
pub mod perft;
pub mod play;
pub mod probe;
pub mod sample_bank;
pub mod selfplay;
pub mod solve;
pub mod targets;
pub mod train;
