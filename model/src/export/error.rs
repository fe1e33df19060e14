//! Why an export failed.

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Writing a file failed.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// What failed.
        message: String,
    },
    /// Serialising failed.
    #[error("{0}")]
    Encode(String),
}
