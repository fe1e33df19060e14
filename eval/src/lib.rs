//! Kvarn's judges: the alpha-beta baseline engine that every model is measured against,
//! the text protocol that lets other programs play it, agents, and matches with Elo.
//!
//! - [`search::Engine`]: negamax alpha-beta with iterative deepening, aspiration windows,
//!   principal-variation search, a transposition table, killer and history ordering, and
//!   depth, node and time limits.
//! - [`evaluation`]: the weighted terms it judges positions by, one weight set per phase.
//! - [`agent`]: one trait for anything that chooses moves, and specifications such as
//!   `random`, `alphabeta:depth=4` or `engine:cmd=PATH`.
//! - [`protocol`]: the UCI-style protocol of `kvarn engine`, and [`external`]: the client
//!   that plays any program speaking it.
//! - [`matches`]: games in parallel from varied openings, with records, and [`elo`];
//!   [`sprt`]: sequential tests over game pairs (fishtest's pentanomial SPRT).
//! - [`ladder`]: one Elo scale for many players, fitted by maximum likelihood, and the
//!   schedule of who plays whom.
//!
//! No neural network is involved.

pub mod agent;
pub mod elo;
mod error;
pub mod evaluation;
pub mod external;
pub mod ladder;
pub mod matches;
pub mod protocol;
pub mod records;
pub mod search;
pub mod solver;
pub mod sprt;
/// Atomic, checksummed files (shared with the other crates).
pub use kvarn_storage as storage;

pub use error::EvalError;
