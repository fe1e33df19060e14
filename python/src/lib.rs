//! Kvarn for Python (`import kvarn`): the rules of the mill games as Kvarn's referee plays
//! them, and the batched simulator, which writes the network's observations and legal
//! masks straight into NumPy arrays. Every error is a Python exception with Kvarn's
//! message; nothing panics across the boundary.

use pyo3::prelude::*;

mod batch;
mod game;
mod tables;

pyo3::create_exception!(
    kvarn,
    KvarnError,
    pyo3::exceptions::PyValueError,
    "Kvarn refused something: an illegal move, a position that does not read, a wrong shape."
);

/// Any of Kvarn's errors as a `KvarnError` with its message.
pub(crate) fn refused(e: impl std::fmt::Display) -> PyErr {
    KvarnError::new_err(e.to_string())
}

#[pymodule]
fn _kvarn(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("KvarnError", m.py().get_type::<KvarnError>())?;
    m.add_class::<game::Rules>()?;
    m.add_class::<game::Game>()?;
    m.add_class::<batch::BatchSim>()?;
    m.add_class::<tables::Tables>()?;
    m.add("ENCODING_VERSION", kvarn_game::ENCODING_VERSION)?;
    Ok(())
}
