//! Errors of the evaluation crate.

use thiserror::Error;

/// What can go wrong in engines, agents and matches.
#[derive(Debug, Error)]
pub enum EvalError {
    /// A weights file that cannot be read or parsed.
    #[error("weights file {path}: {reason}")]
    Weights {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// An agent specification that cannot be read.
    #[error("agent `{spec}`: {reason}")]
    Spec {
        /// The specification as given.
        spec: String,
        /// What is wrong.
        reason: String,
    },
    /// An agent that could not answer during play (a finished game, no move found, a
    /// position its databases do not cover), as opposed to a specification it could not
    /// be built from.
    #[error("{agent}: {reason}")]
    Play {
        /// The agent's name.
        agent: String,
        /// What went wrong.
        reason: String,
    },
    /// A game of a match that could not be played to the end.
    #[error("game {game}: {source}")]
    Game {
        /// Index of the game in its match.
        game: usize,
        /// Why it stopped.
        source: Box<EvalError>,
    },
    /// An external engine that failed or broke the protocol.
    #[error("engine `{cmd}`: {reason}")]
    Engine {
        /// The command.
        cmd: String,
        /// What happened.
        reason: String,
    },
    /// An agent chose a move that is not legal.
    #[error("{agent} chose an illegal move: {source}")]
    IllegalChoice {
        /// The agent's name.
        agent: String,
        /// Why the move is illegal.
        source: kvarn_game::IllegalMove,
    },
    /// Solver databases that cannot be opened, read, trusted or written.
    #[error(transparent)]
    Database(#[from] crate::solver::db::DbError),
    /// A benchmark set (of `kvarn bench-set`) that cannot be written or read, or one of
    /// its positions.
    #[error("benchmark set {path}: {reason}")]
    BenchmarkSet {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// Parameters of a sequential test that make no test.
    #[error("sequential test: {reason}")]
    Sprt {
        /// What is wrong.
        reason: String,
    },
    /// A game record file that cannot be written or read.
    #[error("game records {path}: {reason}")]
    Records {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}
