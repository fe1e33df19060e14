//! Moves and their notation.
//!
//! A turn that closes a mill is two decisions of the same player: the placement or move,
//! then the removal. Keeping them apart (as Sanmill and OpenSpiel do) keeps the action
//! space small: 24 + 24x24 + 24 actions instead of every combination.

use std::fmt;
use std::str::FromStr;

use std::mem::MaybeUninit;

use arrayvec::ArrayVec;
use thiserror::Error;

use crate::error::ParseError;
use crate::square::Square;

/// One decision of the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(align(4))]
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
            if s.is_empty() {
                return Err(err("a point name is missing"));
            }
            s.parse::<Square>().map_err(|_| ParseError::Move {
                text: text.to_string(),
                reason: if s.contains('-') {
                    "a move names two points, from-to".to_string()
                } else {
                    format!("`{s}` is not a point name")
                },
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

/// The legal moves of a position, on the stack: derefs to `[Move]`.
///
/// A fixed array and a length rather than a general-purpose vector, so that move
/// generation can keep the length in a register while it writes.
#[derive(Clone, Copy)]
pub struct MoveList {
    len: u8,
    /// Entries `..len` are initialised.
    moves: [MaybeUninit<Move>; MAX_MOVES],
}

impl MoveList {
    /// An empty list.
    #[inline]
    pub const fn new() -> MoveList {
        MoveList {
            len: 0,
            moves: [MaybeUninit::uninit(); MAX_MOVES],
        }
    }

    /// Appends a move.
    ///
    /// # Panics
    /// When the list is full, which no position's moves can make it.
    #[inline]
    pub fn push(&mut self, mv: Move) {
        self.moves[self.len as usize] = MaybeUninit::new(mv);
        self.len += 1;
    }

    /// Clears the list, then lets `fill` write moves from index 0 on; `fill` returns how
    /// many it wrote. Writing into a list the caller owns avoids copying a new one out.
    #[inline]
    pub(crate) fn refill(
        &mut self,
        fill: impl FnOnce(&mut [MaybeUninit<Move>; MAX_MOVES]) -> usize,
    ) {
        let n = fill(&mut self.moves);
        debug_assert!(n <= MAX_MOVES);
        self.len = n as u8;
    }

    /// Removes every move.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];

    #[inline]
    fn deref(&self) -> &[Move] {
        let init = &self.moves[..self.len as usize];
        // SAFETY: the first `len` entries are initialised (`push`, `fill_with`), and
        // `MaybeUninit<Move>` has the layout of `Move`.
        unsafe { &*(init as *const [MaybeUninit<Move>] as *const [Move]) }
    }
}

impl std::fmt::Debug for MoveList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for MoveList {
    fn eq(&self, other: &MoveList) -> bool {
        **self == **other
    }
}

impl Eq for MoveList {}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for MoveList {
    type Item = Move;
    type IntoIter = MoveListIter;

    fn into_iter(self) -> MoveListIter {
        MoveListIter {
            list: self,
            next: 0,
        }
    }
}

/// The moves of a [`MoveList`], by value.
#[derive(Clone, Debug)]
pub struct MoveListIter {
    list: MoveList,
    next: u8,
}

impl Iterator for MoveListIter {
    type Item = Move;

    #[inline]
    fn next(&mut self) -> Option<Move> {
        let m = self.list.get(self.next as usize).copied()?;
        self.next += 1;
        Some(m)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.list.len - self.next) as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for MoveListIter {}

/// A move that is not legal in the position it was played in.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("illegal move {mv}: {reason}")]
pub struct IllegalMove {
    /// The move.
    pub mv: Move,
    /// Why it is illegal, in words.
    pub reason: String,
}
