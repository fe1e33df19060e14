//! `kvarn.Tables`: exact values from the solver's tables (`kvarn solve`; Nine's whole
//! tables from scripts/solve-nine.sh).

use std::time::Duration;

use kvarn_game::Position;
use kvarn_solver::tables::ExactTables;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::error::refused;
use crate::game::Rules;

/// The tables in a folder, for `rules`: `Tables("db/six", Rules("six"))`.
#[pyclass(frozen, module = "kvarn")]
pub struct Tables {
    rules: kvarn_game::Rules,
    tables: ExactTables,
}

#[pymethods]
impl Tables {
    #[new]
    #[pyo3(signature = (path, rules, hash_mib = 1024))]
    fn new(
        py: Python<'_>,
        path: std::path::PathBuf,
        rules: PyRef<'_, Rules>,
        hash_mib: usize,
    ) -> PyResult<Tables> {
        let rules = rules.0;
        let tables = py
            .detach(|| ExactTables::open(&path, rules, hash_mib << 20))
            .map_err(refused)?;
        Ok(Tables { rules, tables })
    }

    /// The exact value (`win`, `draw` or `loss` for the player to move) of a position
    /// (`startpos`, a position string or a FEN) and of each legal move: `(value, {move:
    /// value})`. `None` where the tables do not reach it, or the placing search ran past
    /// `time_limit` seconds.
    #[pyo3(signature = (position, time_limit = None))]
    fn probe(
        &self,
        py: Python<'_>,
        position: &str,
        time_limit: Option<f64>,
    ) -> PyResult<Option<(String, std::collections::BTreeMap<String, String>)>> {
        let pos = Position::from_text(&self.rules, position).map_err(refused)?;
        let limit = match time_limit {
            Some(t) if t.is_finite() && t > 0.0 => Some(Duration::from_secs_f64(t)),
            Some(t) => return Err(refused(format!("time_limit {t}: seconds above 0"))),
            None => None,
        };
        let values = py.detach(|| self.tables.values(&pos, limit));
        Ok(values.map(|(v, moves)| {
            let moves = moves
                .into_iter()
                .map(|(m, o)| (m.to_string(), o.name().to_string()))
                .collect();
            (v.name().to_string(), moves)
        }))
    }

    /// `n` positions drawn from the tables, as evenly as they allow over every (phase,
    /// value) pair, reproducibly from `seed`, as `kvarn.benchmark` gives them. Endgame
    /// databases and Six's and Five's whole solutions only: a placing position of Nine
    /// takes a search to value (`kvarn bench-set --whole` draws those).
    #[pyo3(signature = (n, seed = 1))]
    fn sample<'py>(&self, py: Python<'py>, n: usize, seed: u64) -> PyResult<Bound<'py, PyList>> {
        let ExactTables::Endgames(solver) = &self.tables else {
            return Err(refused(
                "sampling Nine's whole-game tables takes a placing search a position: use \
                 kvarn bench-set --whole",
            ));
        };
        let set = py.detach(|| kvarn_solver::benchmark::sample(solver, n, seed));
        crate::benchmark::dicts(py, &set)
    }
}
