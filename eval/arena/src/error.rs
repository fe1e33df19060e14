//! Errors of the arena.

use kvarn_engine::EngineError;
use kvarn_solver::SolverError;
use kvarn_solver::db::DbError;
use thiserror::Error;

/// What can go wrong in engines, agents and matches.
#[derive(Debug, Error)]
pub enum ArenaError {
    /// The alpha-beta engine's failure (a weights file that cannot be read or parsed).
    #[error(transparent)]
    AlphaBeta(#[from] EngineError),
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
        source: Box<ArenaError>,
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
    /// The solver's failure: databases that cannot be opened, read, trusted or written,
    /// or a benchmark set that cannot be read.
    #[error(transparent)]
    Solver(#[from] SolverError),
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

impl From<DbError> for ArenaError {
    fn from(e: DbError) -> ArenaError {
        ArenaError::Solver(SolverError::Database(e))
    }
}
