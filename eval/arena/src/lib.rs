//! Kvarn's arena, where players meet: agents, matches with Elo, sequential tests, the
//! ladder, game records, and the scoring of agents on the solver's benchmark sets.
//!
//! - [`agent`]: one trait for anything that chooses moves, and specifications such as
//!   `random`, `alphabeta:depth=4`, `perfect:db=FOLDER` or `engine:cmd=PATH`;
//!   [`external`]: the client that plays any program speaking the engine's protocol.
//! - [`matches`]: games in parallel from varied openings, with [`records`], and [`elo`];
//!   [`sprt`]: sequential tests over game pairs (fishtest's pentanomial SPRT).
//! - [`ladder`]: one Elo scale for many players, fitted by maximum likelihood, and the
//!   schedule of who plays whom.
//! - [`benchmark`]: an agent's figures on a benchmark set of exact values.
//!
//! The alpha-beta engine is `kvarn-engine`'s and the exact values `kvarn-solver`'s.

pub mod agent;
pub mod benchmark;
pub mod elo;
mod error;
pub mod external;
pub mod ladder;
pub mod matches;
pub mod records;
pub mod sprt;

pub use error::ArenaError;
