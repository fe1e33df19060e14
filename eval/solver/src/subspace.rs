//! The unit the tables are kept in: positions that share their counts of men.

use kvarn_game::{Color, Position};

/// A set of positions that share men on the board and in hand, side and pending removal.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Subspace {
    /// White men on the board.
    pub w_on: u8,
    /// Black men on the board.
    pub b_on: u8,
    /// White men in hand.
    pub w_hand: u8,
    /// Black men in hand.
    pub b_hand: u8,
    /// The player to move.
    pub side: Color,
    /// Whether the player to move must remove a man.
    pub pending: bool,
}

impl Subspace {
    /// A subspace of the moving phase: no men in hand.
    pub fn moving(w_on: u8, b_on: u8, side: Color, pending: bool) -> Subspace {
        Subspace {
            w_on,
            b_on,
            w_hand: 0,
            b_hand: 0,
            side,
            pending,
        }
    }

    /// The subspace of a position.
    pub fn of(pos: &Position) -> Subspace {
        Subspace {
            w_on: pos.men(Color::White).count() as u8,
            b_on: pos.men(Color::Black).count() as u8,
            w_hand: pos.in_hand(Color::White),
            b_hand: pos.in_hand(Color::Black),
            side: pos.side_to_move(),
            pending: pos.pending_removal(),
        }
    }
}
