//! Exact values and how they pass from a position to the one before it.

use kvarn_game::{Position, Rules};

/// An exact value for the player to move, with the number of turns to the end of the game
/// under perfect play (fastest win, slowest loss). A turn is a placement or move together
/// with the removal it earns, as RULES.md counts turns for the no-capture rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The player to move wins in this many turns.
    Win(u16),
    /// Neither side can force a win.
    Draw,
    /// The player to move loses in this many turns.
    Loss(u16),
}

impl Value {
    /// Packs the value in 16 bits: 0 draw, 2d+1 loss in d turns, 2d+2 win in d turns.
    pub fn pack(self) -> u16 {
        match self {
            Value::Draw => 0,
            Value::Loss(d) => 2 * d + 1,
            Value::Win(d) => 2 * d + 2,
        }
    }

    /// The inverse of [`Value::pack`].
    pub fn unpack(v: u16) -> Value {
        match v {
            0 => Value::Draw,
            v if v % 2 == 1 => Value::Loss((v - 1) / 2),
            v => Value::Win((v - 2) / 2),
        }
    }

    /// The value one decision earlier, for the player who made it: when the turn passed
    /// to the other player, negated and one turn further; when the same player decides
    /// again (the removal that completes its turn), unchanged.
    pub fn back(self, same_player: bool) -> Value {
        match (self, same_player) {
            (v, true) => v,
            (Value::Draw, false) => Value::Draw,
            (Value::Win(d), false) => Value::Loss(d + 1),
            (Value::Loss(d), false) => Value::Win(d + 1),
        }
    }

    /// Whether `self` is better than `other` for the player to move: any win beats a draw,
    /// a draw beats any loss, a faster win and a slower loss are better.
    pub fn better_than(self, other: Value) -> bool {
        let key = |v: Value| match v {
            Value::Win(d) => (2, -(d as i32)),
            Value::Draw => (1, 0),
            Value::Loss(d) => (0, d as i32),
        };
        key(self) > key(other)
    }
}

/// The value of a position where the game is already over, from the player to move: a
/// loss in 0 turns (the side to move has lost by too few men or by being blocked).
pub(crate) fn terminal_value(rules: &Rules, pos: &Position) -> Option<Value> {
    match pos.status(rules, 1) {
        kvarn_game::Status::Win { winner, .. } => Some(if winner == pos.side_to_move() {
            Value::Win(0)
        } else {
            Value::Loss(0)
        }),
        _ => None,
    }
}
