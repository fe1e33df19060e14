//! Moves and their notation.
//!
//! A turn that closes a mill is two decisions of the same player: the placement or move,
//! then the removal. Keeping them apart (as Sanmill and OpenSpiel do) keeps the action
//! space small: 24 + 24x24 + 24 actions instead of every combination.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayVec;

use crate::error::ParseError;
use crate::square::Square;

/// One decision of the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Move {
    /// Put a man from hand on an empty point: `d6`.
    Place {
        /// Target point.
        to: Square,
    },
    /// Move a man from one point to another: `a1-a4`. A slide when the points are
    /// adjacent, a fly otherwise (legal only for a player allowed to fly).
    Shift {
        /// Point the man leaves.
        from: Square,
        /// Point the man lands on.
        to: Square,
    },
    /// Remove an opposing man after closing a mill: `xd2`.
    Remove {
        /// Point of the man removed.
        from: Square,
    },
}

impl Move {
    /// Whether the move is a removal.
    pub const fn is_removal(self) -> bool {
        matches!(self, Move::Remove { .. })
    }

    /// The point a man lands on, for placements and shifts.
    pub const fn to(self) -> Option<Square> {
        match self {
            Move::Place { to } | Move::Shift { to, .. } => Some(to),
            Move::Remove { .. } => None,
        }
    }

    /// The point a man leaves, for shifts and removals.
    pub const fn from(self) -> Option<Square> {
        match self {
            Move::Shift { from, .. } | Move::Remove { from } => Some(from),
            Move::Place { .. } => None,
        }
    }

    /// The same move with every point mapped by `f` (used for symmetries).
    pub fn map_squares(self, mut f: impl FnMut(Square) -> Square) -> Move {
        match self {
            Move::Place { to } => Move::Place { to: f(to) },
            Move::Shift { from, to } => Move::Shift {
                from: f(from),
                to: f(to),
            },
            Move::Remove { from } => Move::Remove { from: f(from) },
        }
    }

    /// Reads one token, which may hold one decision or, in the combined form `b2xf4` or
    /// `a1-a4xd2`, a placement or shift followed by the removal it earns.
    ///
    /// # Errors
    /// [`ParseError::Move`] naming what is wrong with the token.
    pub fn parse_token(text: &str) -> Result<ArrayVec<Move, 2>, ParseError> {
        let t = text.trim();
        let err = |reason: &str| ParseError::Move {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        if t.is_empty() {
            return Err(err("it is empty"));
        }
        let sq = |s: &str| -> Result<Square, ParseError> {
            s.parse::<Square>().map_err(|_| ParseError::Move {
                text: text.to_string(),
                reason: format!("`{s}` is not a point name"),
            })
        };
        let mut out = ArrayVec::new();
        let (head, removal) = match t.find(['x', 'X']) {
            Some(0) => {
                let rest = &t[1..];
                if rest.contains(['x', 'X', '-']) {
                    return Err(err("a removal names one point"));
                }
                out.push(Move::Remove { from: sq(rest)? });
                return Ok(out);
            }
            Some(i) => (&t[..i], Some(&t[i + 1..])),
            None => (t, None),
        };
        let first = match head.split_once('-') {
            Some((from, to)) => {
                let (from, to) = (sq(from)?, sq(to)?);
                if from == to {
                    return Err(err("a man must move to another point"));
                }
                Move::Shift { from, to }
            }
            None => Move::Place { to: sq(head)? },
        };
        out.push(first);
        if let Some(r) = removal {
            if r.contains(['x', 'X', '-']) {
                return Err(err("only one removal may follow a move"));
            }
            out.push(Move::Remove { from: sq(r)? });
        }
        Ok(out)
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Place { to } => write!(f, "{to}"),
            Move::Shift { from, to } => write!(f, "{from}-{to}"),
            Move::Remove { from } => write!(f, "x{from}"),
        }
    }
}

impl FromStr for Move {
    type Err = ParseError;

    /// Reads a single decision (`d6`, `a1-a4`, `xd2`). The combined form is refused here;
    /// use [`Move::parse_token`] for it.
    fn from_str(s: &str) -> Result<Move, ParseError> {
        let moves = Move::parse_token(s)?;
        if moves.len() != 1 {
            return Err(ParseError::Move {
                text: s.to_string(),
                reason: "it holds two decisions; write them as two moves".to_string(),
            });
        }
        Ok(moves[0])
    }
}

/// Capacity of a [`MoveList`]. The largest choice is a fly: 3 men to at most 21 empty
/// points, 63 moves. Placements and removals are at most 24, slides at most 32 (one per
/// line segment).
pub const MAX_MOVES: usize = 64;

/// The legal moves of a position, on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;
