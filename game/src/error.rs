//! Text that could not be read. Each error of the crate says what was wrong and where, so
//! a front end can show it to a person as it is; the others live beside what they are
//! about ([`crate::RulesError`] with the variants, [`crate::IllegalMove`] with moves,
//! [`crate::PlayError`] with games).

use thiserror::Error;

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
