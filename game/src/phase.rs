//! What a position is about, in the words that benchmarks, reports and training share:
//! the phase of the player to move, and the game-theoretic outcome for it.

use serde::{Deserialize, Serialize};

use crate::position::Position;
use crate::variant::Rules;

/// What the player to move is doing.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Placing a man from hand.
    Placing,
    /// Sliding a man.
    Moving,
    /// Flying a man (three left, flying on).
    Flying,
    /// Removing an opposing man after a mill.
    Removal,
}

impl Phase {
    /// The phase in names and tables: `placing`, `moving`, `flying`, `removal`.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Placing => "placing",
            Phase::Moving => "moving",
            Phase::Flying => "flying",
            Phase::Removal => "removal",
        }
    }

    /// The phase of the player to move in `pos`.
    pub fn of(rules: &Rules, pos: &Position) -> Phase {
        if pos.pending_removal() {
            Phase::Removal
        } else if pos.is_placing() {
            Phase::Placing
        } else if pos.can_fly(rules, pos.side_to_move()) {
            Phase::Flying
        } else {
            Phase::Moving
        }
    }
}

/// A game-theoretic outcome for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The player to move wins with perfect play.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The player to move loses with perfect play.
    Loss,
}

impl Outcome {
    /// `win`, `draw` or `loss`: its name in reports, as its serialised form writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
        }
    }

    /// The outcome as a score for the player to move: 1 a win, 0 a draw, -1 a loss, so
    /// that the better of two outcomes is the larger.
    pub fn score(self) -> i8 {
        match self {
            Outcome::Win => 1,
            Outcome::Draw => 0,
            Outcome::Loss => -1,
        }
    }

    /// The outcome for the other player.
    pub fn negate(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Loss => Outcome::Win,
            Outcome::Draw => Outcome::Draw,
        }
    }

    /// The outcome a win/draw/loss estimate names: its largest share, ties to the draw
    /// (the call that claims least), then to the win. One rule for the agents' estimates
    /// and for the judge of value targets, so that both count the same calls right.
    pub fn named_by(wdl: [f32; 3]) -> Outcome {
        let [w, d, l] = wdl;
        if d >= w && d >= l {
            Outcome::Draw
        } else if w >= l {
            Outcome::Win
        } else {
            Outcome::Loss
        }
    }
}
