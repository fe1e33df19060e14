//! Whether a game goes on, and how it ended.

use std::fmt;

use serde::Serialize;

use crate::color::Color;

/// Why a game was won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WinReason {
    /// The loser has fewer than three men, on the board and in hand together.
    TooFewMen,
    /// The loser was to move and had no legal move.
    Blocked,
}

/// Why a game was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DrawReason {
    /// The same position occurred for the third time.
    Repetition,
    /// The no-capture limit of turns passed without a removal.
    NoCapture,
}

/// The state of a game: going on, won or drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The game goes on.
    Ongoing,
    /// A player has won.
    Win {
        /// Who won.
        winner: Color,
        /// How.
        reason: WinReason,
    },
    /// The game is drawn.
    Draw {
        /// By which rule.
        reason: DrawReason,
    },
}

impl Status {
    /// Whether the game has ended.
    #[inline]
    pub fn is_over(self) -> bool {
        self != Status::Ongoing
    }

    /// The winner, if someone won.
    pub fn winner(self) -> Option<Color> {
        match self {
            Status::Win { winner, .. } => Some(winner),
            _ => None,
        }
    }

    /// The result for `color`: 1 for a win, 0 for a draw, -1 for a loss; `None` while the
    /// game goes on.
    pub fn score_for(self, color: Color) -> Option<i8> {
        match self {
            Status::Ongoing => None,
            Status::Draw { .. } => Some(0),
            Status::Win { winner, .. } => Some(if winner == color { 1 } else { -1 }),
        }
    }

    /// A one-word summary: `ongoing`, `white_wins`, `black_wins` or `draw`.
    pub fn result_name(self) -> &'static str {
        match self {
            Status::Ongoing => "ongoing",
            Status::Win {
                winner: Color::White,
                ..
            } => "white_wins",
            Status::Win {
                winner: Color::Black,
                ..
            } => "black_wins",
            Status::Draw { .. } => "draw",
        }
    }

    /// The reason in snake case (`too_few_men`, `blocked`, `repetition`, `no_capture`), if
    /// the game is over.
    pub fn reason_name(self) -> Option<&'static str> {
        match self {
            Status::Ongoing => None,
            Status::Win { reason, .. } => Some(match reason {
                WinReason::TooFewMen => "too_few_men",
                WinReason::Blocked => "blocked",
            }),
            Status::Draw { reason } => Some(match reason {
                DrawReason::Repetition => "repetition",
                DrawReason::NoCapture => "no_capture",
            }),
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Ongoing => f.write_str("ongoing"),
            Status::Win { winner, reason } => match reason {
                WinReason::TooFewMen => write!(
                    f,
                    "{winner} wins: {} has fewer than three men",
                    winner.opposite()
                ),
                WinReason::Blocked => {
                    write!(f, "{winner} wins: {} cannot move", winner.opposite())
                }
            },
            Status::Draw { reason } => match reason {
                DrawReason::Repetition => f.write_str("draw by threefold repetition"),
                DrawReason::NoCapture => f.write_str("draw: no man removed within the limit"),
            },
        }
    }
}
