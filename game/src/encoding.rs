//! The network's view of the game: the input encoding and the fixed action space.
//!
//! Everything that a network, the trainer, the evaluator and exported models must agree
//! on is defined here, and versioned by [`ENCODING_VERSION`]: change either and bump it.
//!
//! # Input features
//! Seen from the player to move ("own" = the player to move), `3n + 8` floats for a board
//! of `n` points (80 for Nine Men's Morris, 56 for Six and Five), points in the dense
//! order of [`crate::Board::local_index`] (ring by ring, outer first, each clockwise from
//! the top-left corner):
//!
//! | range | feature |
//! |---|---|
//! | `0..n` | own man on the point (1/0) |
//! | `n..2n` | opponent man on the point |
//! | `2n..3n` | empty point |
//! | `3n` | own men in hand / men per player |
//! | `3n+1` | opponent men in hand / men per player |
//! | `3n+2` | the player to move is Black (1/0) |
//! | `3n+3` | a removal is pending (1/0) |
//! | `3n+4` | the player to move may fly (1/0) |
//! | `3n+5` | the opponent may fly (1/0) |
//! | `3n+6` | no-capture counter / limit (0 when the rule is off) |
//! | `3n+7` | (occurrences of this position − 1) / 2 when the repetition rule is on, else 0 |
//!
//! # Actions
//! `n + n² + n` indices (624 for Nine Men's Morris, 288 for Six and Five), the same in
//! every position; a position's legal actions are a subset:
//!
//! | range | action |
//! |---|---|
//! | `0..n` | place on point `i` |
//! | `n..n+n²` | shift (slide or fly) from point `(a-n) / n` to point `(a-n) % n` |
//! | `n+n²..n+n²+n` | remove the opposing man on point `a-n-n²` |
//!
//! Indices with from = to never denote a move.

use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::color::Color;
use crate::moves::Move;
use crate::position::Position;
use crate::variant::Rules;

/// Version of the input encoding and action space; stored with models and game records.
pub const ENCODING_VERSION: u32 = 1;

/// Number of scalar features after the three point planes.
pub const SCALAR_FEATURES: usize = 8;

/// Names of the scalar features, in order.
pub const SCALAR_NAMES: [&str; SCALAR_FEATURES] = [
    "own_in_hand",
    "opponent_in_hand",
    "black_to_move",
    "pending_removal",
    "own_may_fly",
    "opponent_may_fly",
    "no_capture_fraction",
    "repetition",
];

/// Length of the input vector for `rules`.
pub fn input_len(rules: &Rules) -> usize {
    3 * rules.board().len() + SCALAR_FEATURES
}

/// Names of the input features in order (`own:d6`, ..., `scalar:own_in_hand`, ...), for
/// model cards and debugging.
pub fn feature_names(rules: &Rules) -> Vec<String> {
    let board = rules.board();
    let mut names = Vec::with_capacity(input_len(rules));
    for plane in ["own", "opponent", "empty"] {
        names.extend(board.squares().map(|sq| format!("{plane}:{sq}")));
    }
    names.extend(SCALAR_NAMES.iter().map(|s| format!("scalar:{s}")));
    names
}

/// Writes the features of `pos` (which has occurred `occurrences` times) into `out`,
/// whose length must be [`input_len`].
///
/// # Panics
/// If `out` has the wrong length.
pub fn encode_position(rules: &Rules, pos: &Position, occurrences: u32, out: &mut [f32]) {
    let board = rules.board();
    let n = board.len();
    assert_eq!(out.len(), 3 * n + SCALAR_FEATURES, "feature buffer length");
    let us = pos.side_to_move();
    let them = us.opposite();
    encode_points(board, pos.men(us), pos.men(them), &mut out[..3 * n]);
    let men = f32::from(rules.men());
    let s = &mut out[3 * n..];
    s[0] = f32::from(pos.in_hand(us)) / men;
    s[1] = f32::from(pos.in_hand(them)) / men;
    s[2] = f32::from(u8::from(us == Color::Black));
    s[3] = f32::from(u8::from(pos.pending_removal()));
    s[4] = f32::from(u8::from(pos.can_fly(rules, us)));
    s[5] = f32::from(u8::from(pos.can_fly(rules, them)));
    s[6] = match rules.no_capture_limit() {
        Some(limit) => f32::from(pos.no_capture().min(limit)) / f32::from(limit),
        None => 0.0,
    };
    s[7] = if rules.repetition() {
        (occurrences.saturating_sub(1) as f32 / 2.0).min(1.0)
    } else {
        0.0
    };
}

/// Writes the three point planes (own, opponent, empty; `3n` floats, the first features of
/// [`encode_position`]) of a board whose men are `own` and `opponent` into `out`. Also the
/// layout of the training target of the game's final board (`network.ownership_head`).
///
/// # Panics
/// If `out` is not `3n` long.
pub fn encode_points(board: &Board, own: Bitboard, opponent: Bitboard, out: &mut [f32]) {
    let n = board.len();
    assert_eq!(out.len(), 3 * n, "point planes length");
    out.fill(0.0);
    for sq in board.squares() {
        let plane = if own.contains(sq) {
            0
        } else if opponent.contains(sq) {
            1
        } else {
            2
        };
        out[plane * n + board.local_index(sq)] = 1.0;
    }
}

/// `perm[i]` is the index of input feature `i`'s image under board symmetry `sym`: the
/// features of a position's image are those of the position moved to these indices (the
/// scalars stay), so that an evaluator can look at every image of a position it is given
/// in features only.
pub fn feature_permutation(rules: &Rules, sym: usize) -> Vec<usize> {
    let board = rules.board();
    let n = board.len();
    let mut perm: Vec<usize> = (0..input_len(rules)).collect();
    for sq in board.squares() {
        let (from, to) = (
            board.local_index(sq),
            board.local_index(board.map_square(sym, sq)),
        );
        for plane in 0..3 {
            perm[plane * n + from] = plane * n + to;
        }
    }
    perm
}

/// The fixed action space of a board.
#[derive(Clone, Copy, Debug)]
pub struct ActionSpace {
    board: &'static Board,
}

impl ActionSpace {
    /// The action space of the rules' board.
    pub fn new(rules: &Rules) -> ActionSpace {
        ActionSpace {
            board: rules.board(),
        }
    }

    /// Number of actions: `n + n² + n`.
    #[inline]
    pub fn len(&self) -> usize {
        let n = self.board.len();
        n + n * n + n
    }

    /// Always false; present because `len` is.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The index of a move.
    ///
    /// # Panics
    /// When a point of the move is not on this board (a move of another variant).
    #[inline]
    pub fn index(&self, mv: Move) -> usize {
        for sq in [mv.from(), mv.to()].into_iter().flatten() {
            assert!(
                self.board.has(sq),
                "{mv} is not a move of the {}-point board",
                self.board.len()
            );
        }
        let n = self.board.len();
        let i = |sq| self.board.local_index(sq);
        match mv {
            Move::Place { to } => i(to),
            Move::Shift { from, to } => n + i(from) * n + i(to),
            Move::Remove { from } => n + n * n + i(from),
        }
    }

    /// The move an index denotes; `None` out of range or for from = to.
    pub fn decode(&self, index: usize) -> Option<Move> {
        let n = self.board.len();
        let sq = |i| self.board.square_at(i);
        if index < n {
            Some(Move::Place { to: sq(index)? })
        } else if index < n + n * n {
            let (from, to) = ((index - n) / n, (index - n) % n);
            (from != to).then_some(Move::Shift {
                from: sq(from)?,
                to: sq(to)?,
            })
        } else if index < self.len() {
            Some(Move::Remove {
                from: sq(index - n - n * n)?,
            })
        } else {
            None
        }
    }

    /// Writes the legal-action mask of `pos` into `out` (length [`ActionSpace::len`]).
    /// The caller clears it first when the game is over, which `pos` does not know.
    ///
    /// # Panics
    /// If `out` has the wrong length.
    pub fn legal_mask(&self, rules: &Rules, pos: &Position, out: &mut [bool]) {
        assert_eq!(out.len(), self.len(), "mask buffer length");
        out.fill(false);
        pos.for_each_legal_move(rules, |m| out[self.index(m)] = true);
    }

    /// `perm[a]` is the index of the image of action `a` under symmetry `sym`, for
    /// mapping policy targets along with positions (indices that denote no move map to
    /// themselves).
    pub fn symmetry_permutation(&self, sym: usize) -> Vec<usize> {
        (0..self.len())
            .map(|a| match self.decode(a) {
                Some(m) => self.index(m.transformed(self.board, sym)),
                None => a,
            })
            .collect()
    }

    /// The notation of every action index (`"-"` for indices that denote no move).
    pub fn names(&self) -> Vec<String> {
        (0..self.len())
            .map(|a| {
                self.decode(a)
                    .map_or_else(|| "-".to_string(), |m| m.to_string())
            })
            .collect()
    }
}
