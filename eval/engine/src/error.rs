//! Errors of the alpha-beta engine.

use thiserror::Error;

/// What can go wrong in the engine.
#[derive(Debug, Error)]
pub enum EngineError {
    /// A weights file that cannot be read or parsed.
    #[error("weights file {path}: {reason}")]
    Weights {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}
