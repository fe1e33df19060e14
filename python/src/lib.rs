//! Kvarn for Python (`import kvarn`): the rules of the mill games as Kvarn's referee plays
//! them, and the batched simulator, which writes the network's observations and legal
//! masks straight into NumPy arrays, the solver's exact values, models and agents (the
//! alpha-beta baseline, the network player, the perfect player). Every error is a Python exception with Kvarn's
//! message; nothing panics across the boundary.

use pyo3::prelude::*;

mod agent;
mod batch;
mod benchmark;
mod error;
mod game;
mod model;
mod tables;

#[pymodule]
fn _kvarn(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("KvarnError", m.py().get_type::<error::KvarnError>())?;
    m.add_class::<game::Rules>()?;
    m.add_class::<game::Game>()?;
    m.add_class::<batch::BatchSim>()?;
    m.add_class::<tables::Tables>()?;
    m.add_class::<model::Model>()?;
    m.add_class::<agent::Agent>()?;
    m.add_function(wrap_pyfunction!(benchmark::benchmark, m)?)?;
    m.add("ENCODING_VERSION", kvarn_game::ENCODING_VERSION)?;
    Ok(())
}
