//! `kvarn.KvarnError`: every refusal of Kvarn's, with its message.

pyo3::create_exception!(
    kvarn,
    KvarnError,
    pyo3::exceptions::PyValueError,
    "Kvarn refused something: an illegal move, a position that does not read, a wrong shape."
);

/// Any of Kvarn's errors as a `KvarnError` with its message.
pub(crate) fn refused(e: impl std::fmt::Display) -> pyo3::PyErr {
    KvarnError::new_err(e.to_string())
}
