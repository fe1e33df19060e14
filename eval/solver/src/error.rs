//! Errors of the solver.

use thiserror::Error;

use crate::db::DbError;

/// What can go wrong with the solver's databases and benchmark sets.
#[derive(Debug, Error)]
pub enum SolverError {
    /// Solver databases that cannot be opened, read, trusted or written.
    #[error(transparent)]
    Database(#[from] DbError),
    /// A benchmark set (of `kvarn bench-set`) that cannot be written or read, or one of
    /// its positions.
    #[error("benchmark set {path}: {reason}")]
    BenchmarkSet {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}
