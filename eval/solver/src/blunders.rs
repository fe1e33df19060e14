//! Where a game was lost: the first decision of one side that threw its exact value away
//! (a win or a draw given up), with its phase, so that a lost draw against the perfect
//! player points at the kind of decision to train rather than only at the result.

use kvarn_game::{Color, Game, Move, Outcome, Phase, Position, Rules};
use serde::{Serialize, Serializer};

use crate::judge::{WholeGame, back_to};
use crate::solver::Solver;

/// Exact values, whichever tables hold them: a position's outcome for the player to move,
/// `None` where they do not reach.
pub trait ExactOutcome {
    /// The outcome of `pos` for the player to move.
    fn outcome(&self, pos: &Position) -> Option<Outcome>;

    /// Whether `mv` keeps at least `floor` for the player to move in `pos`: where values
    /// come from a search, one side of a value costs far less than the value.
    fn keeps(&self, pos: &Position, mv: Move, floor: Outcome) -> Option<bool>;
}

/// The outcome of `mv` for the player who makes it, from the outcome of where it leads.
fn move_outcome(
    exact: &dyn ExactOutcome,
    rules: &Rules,
    pos: &Position,
    mv: Move,
) -> Option<Outcome> {
    let mut next = *pos;
    next.play_unchecked(rules, mv);
    Some(back_to(pos, &next, exact.outcome(&next)?))
}

impl ExactOutcome for Solver {
    fn outcome(&self, pos: &Position) -> Option<Outcome> {
        self.value(pos).map(|v| v.outcome())
    }

    fn keeps(&self, pos: &Position, mv: Move, floor: Outcome) -> Option<bool> {
        let v = move_outcome(self, self.rules(), pos, mv)?;
        Some(v.score() >= floor.score())
    }
}

impl ExactOutcome for WholeGame {
    fn outcome(&self, pos: &Position) -> Option<Outcome> {
        Some(self.value(pos))
    }

    fn keeps(&self, pos: &Position, mv: Move, floor: Outcome) -> Option<bool> {
        Some(self.move_keeps(pos, mv, floor))
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
///
/// The value is walked along the game: the start's, then whether each decision keeps it
/// (a null-window search early in Nine's placing, where exact values cost minutes), and
/// an exact value only after a decision that did not.
pub fn first_blunder(
    exact: &dyn ExactOutcome,
    start: &Game,
    moves: impl IntoIterator<Item = Move>,
    side: Color,
) -> Option<Blunder> {
    let rules = *start.rules();
    let mut game = start.clone();
    let mut value = exact.outcome(game.position())?;
    for (decision, mv) in moves.into_iter().enumerate() {
        let pos = *game.position();
        let after = if exact.keeps(&pos, mv, value)? {
            value
        } else {
            let after = move_outcome(exact, &rules, &pos, mv)?;
            if pos.side_to_move() == side {
                return Some(Blunder {
                    decision,
                    phase: Phase::of(&rules, &pos),
                    position: pos.to_position_string(&rules),
                    chosen: mv,
                    before: value,
                    after,
                });
            }
            after
        };
        game.play(mv).ok()?;
        value = back_to(&pos, game.position(), after);
    }
    None
}
