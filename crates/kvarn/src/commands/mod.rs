//! One module per command.

pub mod bench;
pub mod engine;
pub mod matches;
pub mod moves;
pub mod perft;
pub mod play;
pub mod solve;
