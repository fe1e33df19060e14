//! `kvarn.BatchSim`: many games stepped together. Observations and legal-action masks
//! are written into NumPy arrays the caller owns, without copies; finished games restart
//! in their slots, as Kvarn's self-play does.

use numpy::{PyArray1, PyReadonlyArray1, PyReadwriteArray2};
use pyo3::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::error::refused;
use crate::game::Rules;

/// `games` games under `rules`, from the start position (or `position`); `seed` seeds
/// `random_actions`.
#[pyclass(module = "kvarn")]
pub struct BatchSim {
    sim: kvarn_game::BatchSim,
    rng: Pcg64Mcg,
    /// `random_actions`' buffer, reused.
    actions: Vec<usize>,
}

#[pymethods]
impl BatchSim {
    #[new]
    #[pyo3(signature = (rules, games, position = "startpos", seed = 0))]
    fn new(rules: PyRef<'_, Rules>, games: usize, position: &str, seed: u64) -> PyResult<BatchSim> {
        let start = kvarn_game::Position::from_text(&rules.0, position).map_err(refused)?;
        let sim = kvarn_game::BatchSim::from_position(rules.0, start, games).map_err(refused)?;
        Ok(BatchSim {
            sim,
            rng: Pcg64Mcg::seed_from_u64(seed),
            actions: vec![0; games],
        })
    }

    /// A uniformly random legal action of every game (`int64[games]`), drawn in Rust:
    /// random play and exploration without a Python loop over the games.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let rng = &mut self.rng;
        self.sim
            .pick_actions(|n| rng.random_range(0..n), &mut self.actions);
        PyArray1::from_iter(py, self.actions.iter().map(|&a| a as i64))
    }

    fn __len__(&self) -> usize {
        self.sim.len()
    }

    #[getter]
    fn rules(&self) -> Rules {
        Rules(*self.sim.rules())
    }

    /// Writes every game's observation (`float32[games, input_len]`) and legal-action
    /// mask (`bool[games, actions]`) into the arrays given (C-contiguous, of those shapes).
    fn observe(
        &self,
        mut observations: PyReadwriteArray2<'_, f32>,
        mut masks: PyReadwriteArray2<'_, bool>,
    ) -> PyResult<()> {
        self.sim
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
        let finished = self.sim.step(&actions).map_err(refused)?;
        let mut results = vec![0i8; self.sim.len()];
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
        self.sim.reset(game).map_err(refused)
    }

    /// Decisions played in each game since its start.
    fn plies<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        PyArray1::from_slice(py, self.sim.plies())
    }

    /// Whose decision it is in each game: 0 White, 1 Black (`uint8[games]`). After a
    /// mill the same side decides again (its removal), so ply parity does not tell.
    fn to_move<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        PyArray1::from_iter(
            py,
            self.sim
                .positions()
                .iter()
                .map(|p| p.side_to_move().index() as u8),
        )
    }

    /// The position string of game `game`.
    fn position(&self, game: usize) -> PyResult<String> {
        let rules = self.sim.rules();
        self.sim
            .positions()
            .get(game)
            .map(|p| p.to_position_string(rules))
            .ok_or_else(|| {
                refused(format!(
                    "there is no game {game} in a batch of {}",
                    self.sim.len()
                ))
            })
    }
}
