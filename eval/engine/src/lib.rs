//! Kvarn's alpha-beta baseline engine, the one every model is measured against, and the
//! text protocol that lets other programs play it.
//!
//! - [`search::Engine`]: negamax alpha-beta with iterative deepening, aspiration windows,
//!   principal-variation search, a transposition table, killer and history ordering, and
//!   depth, node and time limits.
//! - [`evaluation`]: the weighted terms it judges positions by, one weight set per phase.
//! - [`protocol`]: the UCI-style protocol of `kvarn engine`, served by the alpha-beta
//!   engine or by any other searcher behind an [`protocol::EngineMaker`].
//!
//! No neural network is involved.

mod error;
pub mod evaluation;
pub mod protocol;
pub mod search;

pub use error::EngineError;
