//! One module per command.

pub mod bench;
pub mod moves;
pub mod perft;
