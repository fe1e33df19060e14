//! Error types of the crate. Each says what was wrong and where, so a front end can show
//! it to a person as it is.

use thiserror::Error;

use crate::moves::Move;
use crate::variant::Variant;

/// Text that could not be read: a point name, a move, a position string or a FEN.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    /// Not one of the 24 point names.
    #[error("`{0}` is not a point name (points are a1..g7 on the drawn lines, e.g. d6)")]
    Square(String),
    /// Not a move in Kvarn's notation.
    #[error(
        "`{text}` is not a move: {reason} (write d6 to place, a1-a4 to slide or fly, xd2 to remove, b2xf4 to place and remove)"
    )]
    Move {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A malformed Kvarn position string.
    #[error("bad position string, {field}: {reason}")]
    PositionString {
        /// The field that is wrong.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A malformed Sanmill FEN.
    #[error("bad FEN, {field}: {reason}")]
    Fen {
        /// The field that is wrong.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// Text that is none of `startpos`, a position string and a FEN, with what each
    /// reader found (see [`crate::Position::from_text`]).
    #[error(
        "`{text}` is neither `startpos`, a position string nor a FEN: {as_position_string}; {as_fen}"
    )]
    Position {
        /// The text as given.
        text: String,
        /// Why it is no position string.
        as_position_string: Box<ParseError>,
        /// Why it is no FEN.
        as_fen: Box<ParseError>,
    },
}

/// A rule configuration the variant does not allow.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RulesError {
    /// Unknown variant name.
    #[error("unknown variant `{0}` (expected nine, six or five)")]
    UnknownVariant(String),
    /// Flying asked for in Six or Five Men's Morris.
    #[error("{0} does not offer flying; it can only be switched on for Nine Men's Morris")]
    FlyingNotOffered(Variant),
    /// A no-capture limit of zero.
    #[error("the no-capture limit must be at least 1 turn (or `off`)")]
    ZeroNoCaptureLimit,
}

/// A move that is not legal in the position it was played in.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("illegal move {mv}: {reason}")]
pub struct IllegalMove {
    /// The move.
    pub mv: Move,
    /// Why it is illegal, in words.
    pub reason: String,
}

/// A failure while playing a list of moves given as text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlayError {
    /// The token at `index` could not be read.
    #[error("move {index} (`{text}`): {source}")]
    Parse {
        /// 0-based index of the token in the list.
        index: usize,
        /// The token.
        text: String,
        /// Why it could not be read.
        source: ParseError,
    },
    /// The token at `index` is not legal where it was played.
    #[error("move {index} (`{text}`): {source}")]
    Illegal {
        /// 0-based index of the token in the list.
        index: usize,
        /// The token.
        text: String,
        /// Why it is illegal.
        source: IllegalMove,
    },
}

impl PlayError {
    /// 0-based index of the offending token.
    pub fn index(&self) -> usize {
        match self {
            PlayError::Parse { index, .. } | PlayError::Illegal { index, .. } => *index,
        }
    }

    /// The offending token as given.
    pub fn text(&self) -> &str {
        match self {
            PlayError::Parse { text, .. } | PlayError::Illegal { text, .. } => text,
        }
    }
}
