//! Where a game was lost: the first decision of one side that threw its exact value away
//! (a win or a draw given up), with its phase, so that a lost draw against the perfect
//! player points at the kind of decision to train rather than only at the result.

use kvarn_game::{Color, Game, Move, Outcome, Phase, Position};
use serde::{Serialize, Serializer};

use crate::judge::WholeGame;
use crate::solver::Solver;

/// Exact values, whichever tables hold them: a position's outcome for the player to move,
/// `None` where they do not reach.
pub trait ExactOutcome {
    /// The outcome of `pos` for the player to move.
    fn outcome(&self, pos: &Position) -> Option<Outcome>;
}

impl ExactOutcome for Solver {
    fn outcome(&self, pos: &Position) -> Option<Outcome> {
        self.value(pos).map(|v| v.outcome())
    }
}

impl ExactOutcome for WholeGame {
    fn outcome(&self, pos: &Position) -> Option<Outcome> {
        Some(self.value(pos))
    }
}

/// A decision that threw the value away (serialised with the move in notation, as
/// `kvarn eval solver --thrown-away` writes it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Blunder {
    /// Decisions played from the start position before it (0: the first).
    pub decision: usize,
    /// What the player was doing.
    pub phase: Phase,
    /// The position string before it.
    pub position: String,
    /// The move chosen.
    #[serde(serialize_with = "in_notation")]
    pub chosen: Move,
    /// The exact outcome before it and after it, for the player who chose it.
    pub before: Outcome,
    /// See [`Blunder::before`].
    pub after: Outcome,
}

/// A move as its notation (`d2-d3`, `xe5`).
fn in_notation<S: Serializer>(mv: &Move, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(mv)
}

/// The first decision of `side` in `moves` (played on from `start`) whose position after
/// it has a worse exact value for `side` than the position before it; `None` when every
/// decision of `side` kept its value or a position is outside the solver's tables from
/// there on (Nine's middle game without its whole tables), since nothing can be said of it.
pub fn first_blunder(
    exact: &dyn ExactOutcome,
    start: &Game,
    moves: impl IntoIterator<Item = Move>,
    side: Color,
) -> Option<Blunder> {
    let rules = *start.rules();
    let mut game = start.clone();
    for (decision, mv) in moves.into_iter().enumerate() {
        let pos = *game.position();
        if pos.side_to_move() == side {
            let before = exact.outcome(&pos)?;
            let mut next = pos;
            next.play_unchecked(&rules, mv);
            let after = exact.outcome(&next)?;
            let after = if next.side_to_move() == side {
                after
            } else {
                after.negate()
            };
            // Outcomes order from Win to Loss.
            if after > before {
                return Some(Blunder {
                    decision,
                    phase: Phase::of(&rules, &pos),
                    position: pos.to_position_string(&rules),
                    chosen: mv,
                    before,
                    after,
                });
            }
        }
        game.play(mv).ok()?;
    }
    None
}
