//! The batched simulator: many games stepped together, encoded together, so that a
//! network evaluates all of them in one batch.
//!
//! Positions are `Copy` values in one flat `Vec`; the rules are those of [`Position`],
//! so nothing here repeats them. A finished game is reported and restarted from the start
//! position in the same step, so every slot always holds a game in progress.

use std::collections::HashMap;

use ndarray::{Array2, ArrayView1, ArrayViewMut2};

use crate::encoding::{ActionSpace, encode_position, input_len};
use crate::moves::Move;
use crate::position::{Position, SetupError};
use crate::status::Status;
use crate::variant::Rules;

/// Why a batch step was refused. Nothing is changed when a step is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BatchError {
    /// The number of actions differs from the number of games.
    #[error("expected one action for each of the {expected} games, got {got}")]
    WrongLength {
        /// Games in the batch.
        expected: usize,
        /// Actions given.
        got: usize,
    },
    /// An action that is not legal in its game.
    #[error("game {game}: action {action} ({mv}) is illegal: {reason}")]
    IllegalAction {
        /// Index of the game in the batch.
        game: usize,
        /// The action index.
        action: usize,
        /// The action in notation, or `-` when it denotes no move.
        mv: String,
        /// Why it is illegal.
        reason: String,
    },
    /// The start position given is not a position of the rules.
    #[error("the start position does not fit the rules: {0}")]
    Start(SetupError),
    /// A game index past the end of the batch.
    #[error("there is no game {game} in a batch of {len}")]
    NoSuchGame {
        /// The index asked for.
        game: usize,
        /// Games in the batch.
        len: usize,
    },
    /// The start position given is already decided.
    #[error("the start position is already decided ({0}); games cannot start there")]
    StartIsOver(Status),
    /// An array given to `encode` has the wrong shape.
    #[error("{what} should have shape {expected:?}, got {got:?}")]
    Shape {
        /// Which array.
        what: &'static str,
        /// The shape required.
        expected: [usize; 2],
        /// The shape given.
        got: [usize; 2],
    },
}

/// A game that ended during a step (and was restarted in its slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finished {
    /// Index of the game's slot.
    pub game: usize,
    /// How it ended.
    pub status: Status,
    /// Number of decisions the game lasted.
    pub plies: u32,
}

/// Many games of the same rules, stepped one action each at a time.
#[derive(Clone, Debug)]
pub struct BatchSim {
    rules: Rules,
    actions: ActionSpace,
    start: Position,
    positions: Vec<Position>,
    occurrences: Vec<u32>,
    plies: Vec<u32>,
    /// How often each position (by key) of each game occurred since its last
    /// irreversible move (the only ones the current position can repeat), so that a
    /// move's repetition count is one look-up, however long the game.
    history: Vec<HashMap<u64, u32>>,
}

/// `position` as a game's first position: valid under `rules` and not already over.
fn checked_start(rules: &Rules, position: Position) -> Result<Position, BatchError> {
    let position = Position::from_setup(rules, &position.setup()).map_err(BatchError::Start)?;
    let status = position.status(rules, 1);
    if status.is_over() {
        return Err(BatchError::StartIsOver(status));
    }
    Ok(position)
}

impl BatchSim {
    /// `games` games from the empty board.
    pub fn new(rules: Rules, games: usize) -> BatchSim {
        BatchSim::from_position(rules, Position::start(&rules), games)
            .expect("the game goes on at the start position")
    }

    /// `games` games from `start`, which is also where finished games restart.
    ///
    /// # Errors
    /// [`BatchError::StartIsOver`] when the game is already over at `start`.
    pub fn from_position(
        rules: Rules,
        start: Position,
        games: usize,
    ) -> Result<BatchSim, BatchError> {
        let start = checked_start(&rules, start)?;
        Ok(BatchSim {
            rules,
            actions: ActionSpace::new(&rules),
            start,
            positions: vec![start; games],
            occurrences: vec![1; games],
            plies: vec![0; games],
            history: vec![HashMap::from([(start.key(), 1)]); games],
        })
    }

    /// Number of games.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the batch holds no game.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The action space.
    pub fn action_space(&self) -> &ActionSpace {
        &self.actions
    }

    /// The current positions, one per game.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// How often each game's current position has occurred.
    pub fn occurrences(&self) -> &[u32] {
        &self.occurrences
    }

    /// Decisions played so far in each game.
    pub fn plies(&self) -> &[u32] {
        &self.plies
    }

    /// Writes each game's `choose(n)`-th legal action into `out` (one per game; `n` is
    /// the game's count of legal moves, and `choose` answers below it): with a random
    /// `choose`, random play and exploration without a loop over the games in the
    /// caller's language.
    ///
    /// # Panics
    /// If `out` is shorter than the batch, or `choose` answers `n` or more.
    pub fn pick_actions(&self, mut choose: impl FnMut(usize) -> usize, out: &mut [usize]) {
        assert!(
            out.len() >= self.len(),
            "{} actions for {} games",
            out.len(),
            self.len()
        );
        for (a, pos) in out.iter_mut().zip(&self.positions) {
            let n = pos.legal_move_count(&self.rules);
            let mv = pos
                .nth_legal_move(&self.rules, choose(n))
                .expect("choose answers below the count of legal moves");
            *a = self.actions.index(mv);
        }
    }

    /// Restarts game `game` from the start position.
    ///
    /// # Errors
    /// [`BatchError::NoSuchGame`] for an index past the end.
    pub fn reset(&mut self, game: usize) -> Result<(), BatchError> {
        if game >= self.len() {
            return Err(BatchError::NoSuchGame {
                game,
                len: self.len(),
            });
        }
        self.restart(game);
        Ok(())
    }

    /// Restarts game `game` from `position` instead of the start position (a game that
    /// later ends restarts from the start position as usual).
    ///
    /// # Errors
    /// [`BatchError::NoSuchGame`] for an index past the end, [`BatchError::Start`] for a
    /// position the rules refuse, [`BatchError::StartIsOver`] for a finished one; the
    /// batch is then unchanged.
    pub fn reset_to(&mut self, game: usize, position: Position) -> Result<(), BatchError> {
        if game >= self.len() {
            return Err(BatchError::NoSuchGame {
                game,
                len: self.len(),
            });
        }
        let position = checked_start(&self.rules, position)?;
        self.place(game, position);
        Ok(())
    }

    fn restart(&mut self, game: usize) {
        self.place(game, self.start);
    }

    /// Game `game` begins afresh at `position`.
    fn place(&mut self, game: usize, position: Position) {
        self.positions[game] = position;
        self.occurrences[game] = 1;
        self.plies[game] = 0;
        self.history[game].clear();
        self.history[game].insert(position.key(), 1);
    }

    /// Plays `actions[i]` in game `i` for every game, restarts the games that end, and
    /// returns them. All actions are checked before any is played.
    ///
    /// # Errors
    /// [`BatchError`] for a wrong number of actions or an illegal one; the batch is then
    /// unchanged.
    pub fn step(&mut self, actions: &[usize]) -> Result<Vec<Finished>, BatchError> {
        if actions.len() != self.len() {
            return Err(BatchError::WrongLength {
                expected: self.len(),
                got: actions.len(),
            });
        }
        let moves = actions
            .iter()
            .enumerate()
            .map(|(game, &action)| self.check(game, action))
            .collect::<Result<Vec<Move>, BatchError>>()?;
        let finished = moves
            .into_iter()
            .enumerate()
            .filter_map(|(game, mv)| self.play(game, mv))
            .collect();
        Ok(finished)
    }

    /// Plays `action` in game `game` alone, the others standing still: for callers whose
    /// games move at different times (self-play, where each game's search ends when it
    /// ends). A game that ends is restarted and returned.
    ///
    /// # Errors
    /// [`BatchError::NoSuchGame`] or [`BatchError::IllegalAction`]; nothing changes then.
    pub fn step_one(&mut self, game: usize, action: usize) -> Result<Option<Finished>, BatchError> {
        if game >= self.len() {
            return Err(BatchError::NoSuchGame {
                game,
                len: self.len(),
            });
        }
        let mv = self.check(game, action)?;
        Ok(self.play(game, mv))
    }

    /// The move of `action` in game `game`, if it is legal there.
    fn check(&self, game: usize, action: usize) -> Result<Move, BatchError> {
        let illegal = |mv: String, reason: String| BatchError::IllegalAction {
            game,
            action,
            mv,
            reason,
        };
        let mv = self.actions.decode(action).ok_or_else(|| {
            illegal(
                "-".into(),
                format!("not a move of the {}-action space", self.actions.len()),
            )
        })?;
        self.positions[game]
            .check_move(&self.rules, mv)
            .map_err(|e| illegal(mv.to_string(), e.reason))?;
        Ok(mv)
    }

    /// Plays a checked move in `game`, counts the new position's occurrences since the
    /// last irreversible move, and restarts the game when it ends.
    fn play(&mut self, game: usize, mv: Move) -> Option<Finished> {
        let pos = &mut self.positions[game];
        pos.play_unchecked(&self.rules, mv);
        self.plies[game] += 1;
        let history = &mut self.history[game];
        if Position::is_irreversible(mv) {
            history.clear();
        }
        let key = pos.key();
        let count = history.entry(key).or_insert(0);
        *count += 1;
        let occurrences = *count;
        let status = pos.status(&self.rules, occurrences);
        self.occurrences[game] = occurrences;
        if !status.is_over() {
            return None;
        }
        let plies = self.plies[game];
        self.restart(game);
        Some(Finished {
            game,
            status,
            plies,
        })
    }

    /// Writes every game's input features (`[games, input_len]`) and legal-action mask
    /// (`[games, actions]`), as defined in [`crate::encoding`].
    ///
    /// # Errors
    /// [`BatchError::Shape`] when an array has the wrong shape.
    pub fn encode(
        &self,
        mut features: ArrayViewMut2<'_, f32>,
        mut mask: ArrayViewMut2<'_, bool>,
    ) -> Result<(), BatchError> {
        let want_f = [self.len(), input_len(&self.rules)];
        let want_m = [self.len(), self.actions.len()];
        let shape = |a: &[usize]| [a[0], a[1]];
        if shape(features.shape()) != want_f {
            return Err(BatchError::Shape {
                what: "features",
                expected: want_f,
                got: shape(features.shape()),
            });
        }
        if shape(mask.shape()) != want_m {
            return Err(BatchError::Shape {
                what: "mask",
                expected: want_m,
                got: shape(mask.shape()),
            });
        }
        // Rows of a view that is not row-major are written through a scratch buffer.
        let mut scratch_f = vec![0.0; want_f[1]];
        let mut scratch_m = vec![false; want_m[1]];
        for (game, pos) in self.positions.iter().enumerate() {
            let mut row = features.row_mut(game);
            match row.as_slice_mut() {
                Some(out) => encode_position(&self.rules, pos, self.occurrences[game], out),
                None => {
                    encode_position(&self.rules, pos, self.occurrences[game], &mut scratch_f);
                    row.assign(&ArrayView1::from(&scratch_f[..]));
                }
            }
            let mut mrow = mask.row_mut(game);
            match mrow.as_slice_mut() {
                Some(out) => self.actions.legal_mask(&self.rules, pos, out),
                None => {
                    self.actions.legal_mask(&self.rules, pos, &mut scratch_m);
                    mrow.assign(&ArrayView1::from(&scratch_m[..]));
                }
            }
        }
        Ok(())
    }

    /// Features and mask in new arrays (see [`BatchSim::encode`]).
    pub fn encoded(&self) -> (Array2<f32>, Array2<bool>) {
        let mut f = Array2::zeros((self.len(), input_len(&self.rules)));
        let mut m = Array2::from_elem((self.len(), self.actions.len()), false);
        self.encode(f.view_mut(), m.view_mut())
            .expect("arrays made with the right shapes");
        (f, m)
    }
}
