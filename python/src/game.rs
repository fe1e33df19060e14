//! `kvarn.Rules` and `kvarn.Game`: a variant with its rule switches, and a game played
//! under them with the referee's legal moves, status, notation and position strings.

use kvarn_game::{Move, Position, SYMMETRY_COUNT};
use numpy::PyArray1;
use pyo3::prelude::*;

use crate::error::refused;

/// A variant and its rule switches (`docs/RULES.md`): `Rules("nine")`,
/// `Rules("six", flying=False)`, `Rules("nine", no_capture_limit=None)`.
#[pyclass(frozen, eq, hash, module = "kvarn")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules(pub kvarn_game::Rules);

#[pymethods]
impl Rules {
    #[new]
    #[pyo3(signature = (variant = "nine", flying = None, repetition = true, no_capture_limit = Some(50)))]
    fn new(
        variant: &str,
        flying: Option<bool>,
        repetition: bool,
        no_capture_limit: Option<u16>,
    ) -> PyResult<Rules> {
        let variant: kvarn_game::Variant = variant.parse().map_err(refused)?;
        let mut rules = kvarn_game::Rules::new(variant).with_repetition(repetition);
        if let Some(f) = flying {
            rules = rules.with_flying(f).map_err(refused)?;
        }
        let rules = rules
            .with_no_capture_limit(no_capture_limit)
            .map_err(refused)?;
        Ok(Rules(rules))
    }

    /// `nine`, `six` or `five`.
    #[getter]
    fn variant(&self) -> String {
        self.0.variant().key().to_string()
    }

    #[getter]
    fn flying(&self) -> bool {
        self.0.flying()
    }

    #[getter]
    fn repetition(&self) -> bool {
        self.0.repetition()
    }

    #[getter]
    fn no_capture_limit(&self) -> Option<u16> {
        self.0.no_capture_limit()
    }

    /// Points of the board.
    #[getter]
    fn points(&self) -> usize {
        self.0.board().len()
    }

    /// Length of the network's input vector (`kvarn_game::encoding::input_len`).
    #[getter]
    fn input_len(&self) -> usize {
        kvarn_game::encoding::input_len(&self.0)
    }

    /// Size of the action space: placements, moves from each point to each point, and
    /// removals.
    #[getter]
    fn actions(&self) -> usize {
        kvarn_game::ActionSpace::new(&self.0).len()
    }

    /// The action index of a move in notation (`d6`, `a1-a4`, `xd2`).
    fn action(&self, notation: &str) -> PyResult<usize> {
        let mv: Move = notation.parse().map_err(refused)?;
        let board = self.0.board();
        for sq in [mv.from(), mv.to()].into_iter().flatten() {
            if !board.has(sq) {
                return Err(refused(format!("{mv} is not a move of {}", self.0)));
            }
        }
        Ok(kvarn_game::ActionSpace::new(&self.0).index(mv))
    }

    /// The move of an action index, in notation.
    fn move_of(&self, action: usize) -> PyResult<String> {
        kvarn_game::ActionSpace::new(&self.0)
            .decode(action)
            .map(|m| m.to_string())
            .ok_or_else(|| refused(format!("{action} is no action of {}", self.0)))
    }

    fn __repr__(&self) -> String {
        format!(
            "Rules({:?}, flying={}, repetition={}, no_capture_limit={})",
            self.variant(),
            py_bool(self.0.flying()),
            py_bool(self.0.repetition()),
            self.0
                .no_capture_limit()
                .map_or("None".to_string(), |n| n.to_string())
        )
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }
}

fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// A game under `rules` (default Nine's), from the start or from a position (`startpos`,
/// a Kvarn position string or a Sanmill FEN), with its history: repetitions count, and
/// `undo` takes decisions back.
#[pyclass(module = "kvarn")]
#[derive(Clone)]
pub struct Game(pub kvarn_game::Game);

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (rules = None, position = "startpos"))]
    fn new(rules: Option<PyRef<'_, Rules>>, position: &str) -> PyResult<Game> {
        let rules = rules.map_or(kvarn_game::Rules::new(kvarn_game::Variant::Nine), |r| r.0);
        let pos = Position::from_text(&rules, position).map_err(refused)?;
        kvarn_game::Game::from_position(rules, pos)
            .map(Game)
            .map_err(refused)
    }

    #[getter]
    fn rules(&self) -> Rules {
        Rules(*self.0.rules())
    }

    /// The legal decisions, in notation.
    fn legal_moves(&self) -> Vec<String> {
        self.0.legal_moves().iter().map(|m| m.to_string()).collect()
    }

    /// The legal decisions as action indices.
    fn legal_actions(&self) -> Vec<usize> {
        let space = kvarn_game::ActionSpace::new(self.0.rules());
        self.0
            .legal_moves()
            .iter()
            .map(|&m| space.index(m))
            .collect()
    }

    /// Plays one decision in notation, or several separated by spaces (`b2xf4` is a
    /// placement and its removal). Raises `KvarnError` with the referee's reason where one
    /// is illegal, the game then as it was before that one.
    fn play(&mut self, moves: &str) -> PyResult<()> {
        self.0.play_text(moves).map_err(refused)
    }

    /// Plays an action index.
    fn play_action(&mut self, action: usize) -> PyResult<()> {
        let space = kvarn_game::ActionSpace::new(self.0.rules());
        let mv = space
            .decode(action)
            .ok_or_else(|| refused(format!("{action} is no action")))?;
        self.0.play(mv).map_err(refused)
    }

    /// Takes the last decision back; returns it, or `None` at the start.
    fn undo(&mut self) -> Option<String> {
        self.0.undo().map(|m| m.to_string())
    }

    /// `ongoing`, or how the game ended (`white wins: ...`, `draw: ...`).
    #[getter]
    fn status(&self) -> String {
        self.0.status().to_string()
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.0.status().is_over()
    }

    /// `white`, `black`, or `None` (going on, or drawn).
    #[getter]
    fn winner(&self) -> Option<String> {
        self.0.status().winner().map(|c| c.to_string())
    }

    /// `white` or `black`.
    #[getter]
    fn to_move(&self) -> String {
        self.0.position().side_to_move().to_string()
    }

    /// Whether the player to move must remove an opposing man.
    #[getter]
    fn pending_removal(&self) -> bool {
        self.0.position().pending_removal()
    }

    /// Decisions played since the start position.
    #[getter]
    fn ply(&self) -> usize {
        self.0.ply()
    }

    /// The decisions played, in notation.
    fn moves(&self) -> Vec<String> {
        self.0.moves().map(|m| m.to_string()).collect()
    }

    /// Kvarn's position string of the current position.
    fn position_string(&self) -> String {
        self.0.position().to_position_string(self.0.rules())
    }

    /// The current position as a Sanmill FEN.
    fn fen(&self) -> PyResult<String> {
        self.0.position().to_fen(self.0.rules()).map_err(refused)
    }

    /// The position strings of the current position's images under the board's
    /// symmetries (rotations, reflections, the swap of the rings), symmetry 0 first.
    fn symmetries(&self) -> Vec<String> {
        let rules = self.0.rules();
        (0..SYMMETRY_COUNT)
            .map(|s| {
                self.0
                    .position()
                    .transformed(rules, s)
                    .to_position_string(rules)
            })
            .collect()
    }

    /// The network's input for the current position (`float32[input_len]`, the encoding
    /// of Kvarn's models, from the player to move's side).
    fn observation<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        let rules = self.0.rules();
        let mut out = vec![0f32; kvarn_game::encoding::input_len(rules)];
        kvarn_game::encoding::encode_position(
            rules,
            self.0.position(),
            self.0.occurrences(),
            &mut out,
        );
        PyArray1::from_vec(py, out)
    }

    /// The legal actions as a mask (`bool[actions]`).
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let rules = self.0.rules();
        let space = kvarn_game::ActionSpace::new(rules);
        let mut mask = vec![false; space.len()];
        if !self.0.status().is_over() {
            space.legal_mask(rules, self.0.position(), &mut mask);
        }
        PyArray1::from_vec(py, mask)
    }

    /// The game as it stands, a copy.
    fn copy(&self) -> Game {
        self.clone()
    }

    fn __repr__(&self) -> String {
        format!("Game({:?}, ply={})", self.position_string(), self.0.ply())
    }
}
