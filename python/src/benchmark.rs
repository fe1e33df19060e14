//! Benchmark positions with their exact values, as Python dictionaries: the committed sets
//! (`kvarn.benchmark`), a set file, or fresh draws from loaded tables (`Tables.sample`).

use std::path::PathBuf;

use kvarn_solver::benchmark as sets;
use kvarn_solver::benchmark::{BenchPosition, Part};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::error::refused;
use crate::game::Rules;

/// Positions as dictionaries: `position`, `phase`, `value` (for the player to move),
/// `distance`, `preserving` (the moves that keep the value), `legal` (how many moves),
/// `critical` (some move throws the value away) and `move_values` (every move's value,
/// in sets of the whole game).
pub(crate) fn dicts<'py>(py: Python<'py>, set: &[BenchPosition]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for b in set {
        let d = PyDict::new(py);
        d.set_item("position", &b.position)?;
        d.set_item("phase", b.phase.name())?;
        d.set_item("value", b.value.name())?;
        d.set_item("distance", b.distance)?;
        d.set_item("preserving", &b.preserving)?;
        d.set_item("legal", b.legal)?;
        d.set_item("critical", b.critical())?;
        let moves = PyDict::new(py);
        for (m, o) in &b.move_values {
            moves.set_item(m, o.name())?;
        }
        d.set_item("move_values", moves)?;
        list.append(d)?;
    }
    Ok(list)
}

/// A benchmark set: the committed one of `rules` (`part` `heldout` or `tuning`; with
/// `whole`, Nine's whole-game set rather than its endgame set), or the set file at `path`
/// (`kvarn bench-set`), whose own rules it checks against `rules`.
#[pyfunction]
#[pyo3(signature = (rules, part = "heldout", whole = false, path = None))]
pub(crate) fn benchmark<'py>(
    py: Python<'py>,
    rules: PyRef<'_, Rules>,
    part: &str,
    whole: bool,
    path: Option<PathBuf>,
) -> PyResult<Bound<'py, PyList>> {
    let rules = rules.0;
    if let Some(path) = path {
        let (set_rules, set) = sets::read_set(&path).map_err(refused)?;
        if set_rules.variant() != rules.variant() || set_rules.flying() != rules.flying() {
            return Err(refused(format!(
                "{} holds positions of {set_rules}, not {rules}",
                path.display()
            )));
        }
        return dicts(py, &set);
    }
    let part = match part {
        "heldout" => Part::HeldOut,
        "tuning" => Part::Tuning,
        other => {
            return Err(refused(format!(
                "part {other:?}: expected heldout or tuning"
            )));
        }
    };
    let set = if whole {
        sets::committed_whole(&rules, part)
    } else {
        sets::committed(&rules, part)
    };
    let set = set
        .ok_or_else(|| {
            refused(format!(
                "no committed {}set for {rules}",
                if whole { "whole-game " } else { "" }
            ))
        })?
        .map_err(refused)?;
    dicts(py, &set)
}
