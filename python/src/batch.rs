//! `kvarn.BatchSim`: many games stepped together. Observations and legal-action masks
//! are written into NumPy arrays the caller owns, without copies; finished games restart
//! in their slots, as Kvarn's self-play does.

use numpy::{PyArray1, PyReadonlyArray1, PyReadwriteArray2};
use pyo3::prelude::*;

use crate::error::refused;
use crate::game::Rules;

/// `games` games under `rules`, from the start position (or `position`).
#[pyclass(module = "kvarn")]
pub struct BatchSim(kvarn_game::BatchSim);

#[pymethods]
impl BatchSim {
    #[new]
    #[pyo3(signature = (rules, games, position = "startpos"))]
    fn new(rules: PyRef<'_, Rules>, games: usize, position: &str) -> PyResult<BatchSim> {
        let start = kvarn_game::Position::from_text(&rules.0, position).map_err(refused)?;
        kvarn_game::BatchSim::from_position(rules.0, start, games)
            .map(BatchSim)
            .map_err(refused)
    }

    fn __len__(&self) -> usize {
        self.0.len()
    }

    #[getter]
    fn rules(&self) -> Rules {
        Rules(*self.0.rules())
    }

    /// Writes every game's observation (`float32[games, input_len]`) and legal-action
    /// mask (`bool[games, actions]`) into the arrays given (C-contiguous, of those shapes).
    fn observe(
        &self,
        mut observations: PyReadwriteArray2<'_, f32>,
        mut masks: PyReadwriteArray2<'_, bool>,
    ) -> PyResult<()> {
        self.0
            .encode(observations.as_array_mut(), masks.as_array_mut())
            .map_err(refused)
    }

    /// Plays one action in every game (`int64[games]`). Returns, for each game, 0 while it
    /// goes on, or its result for White where it ended in this step (1 won, 0.5 drawn —
    /// reported as 2 to tell it from going on — and -1 lost), the game then restarted: an
    /// `int8[games]` array. Raises `KvarnError` (nothing played) where an action is illegal.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'_, i64>,
    ) -> PyResult<Bound<'py, PyArray1<i8>>> {
        let actions: Vec<usize> = actions
            .as_array()
            .iter()
            .map(|&a| usize::try_from(a).map_err(|_| refused(format!("action {a} is negative"))))
            .collect::<PyResult<_>>()?;
        let finished = self.0.step(&actions).map_err(refused)?;
        let mut results = vec![0i8; self.0.len()];
        for f in finished {
            results[f.game] = match f.status.winner() {
                Some(kvarn_game::Color::White) => 1,
                Some(kvarn_game::Color::Black) => -1,
                None => 2,
            };
        }
        Ok(PyArray1::from_vec(py, results))
    }

    /// Restarts game `game` from the start position.
    fn reset(&mut self, game: usize) -> PyResult<()> {
        self.0.reset(game).map_err(refused)
    }

    /// Decisions played in each game since its start.
    fn plies<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        PyArray1::from_slice(py, self.0.plies())
    }

    /// The position string of game `game`.
    fn position(&self, game: usize) -> PyResult<String> {
        let rules = self.0.rules();
        self.0
            .positions()
            .get(game)
            .map(|p| p.to_position_string(rules))
            .ok_or_else(|| {
                refused(format!(
                    "there is no game {game} in a batch of {}",
                    self.0.len()
                ))
            })
    }
}
