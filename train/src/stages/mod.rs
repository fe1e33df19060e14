//! The three stages of a generation, each a function with its own inputs and outputs:
//! [`selfplay`] plays the generation's games, [`training`] takes the optimiser steps on
//! the replay window, [`evaluation`] measures the new model.

pub mod evaluation;
pub mod selfplay;
pub mod training;

use indicatif::ProgressBar;

/// Sets the progress bar up for one stage of generation `g` of `of`.
pub(crate) fn show_stage(
    progress: Option<&ProgressBar>,
    g: u32,
    of: u32,
    what: &str,
    len: u64,
    done: u64,
) {
    if let Some(p) = progress {
        p.set_length(len);
        p.set_position(done);
        p.reset_eta();
        p.set_message(format!("generation {g}/{of}: {what}"));
    }
}

/// Seed streams of a run (see [`kvarn_game::seeds::derive`]); each use of randomness has
/// its own, so that adding one never changes another.
pub(crate) mod stream {
    /// Self-play games, by generation.
    pub const SELFPLAY: u64 = 1;
    /// Training batches, by step.
    pub const TRAINING: u64 = 2;
    /// Matches: `MATCHES + salt`, by generation.
    pub const MATCHES: u64 = 3;
    /// Sampling the solver benchmark set.
    pub const SOLVER_SET: u64 = 9;
    /// The network player on the benchmark set.
    pub const SOLVER_SCORE: u64 = 10;
    /// Exact samples from the endgame databases, by generation.
    pub const EXACT_SAMPLES: u64 = 1_000;
    /// Exact samples from the bank of solved positions, by generation.
    pub const BANK_SAMPLES: u64 = 1_001;
}
