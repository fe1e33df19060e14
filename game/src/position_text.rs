//! One way in for a position given as text: `startpos`, Kvarn's position string
//! ([`crate::notation`]) or Sanmill's FEN ([`crate::fen`]). Command-line options, the
//! solver probe and the engine protocol all take positions this way, so they accept the
//! same texts and refuse bad ones with the same messages.

use crate::error::ParseError;
use crate::position::Position;
use crate::variant::Rules;

/// The written forms of a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    PositionString,
    Fen,
}

/// The form the board (the first field) is written in. The two forms share no board
/// character (`W B .` against `O @ *`, and Sanmill's `X`), so the board tells which
/// parser's complaint is the one to show; `None` when it is neither or a mixture.
fn written_as(text: &str) -> Option<Form> {
    let board: Vec<char> = text
        .split_whitespace()
        .next()?
        .chars()
        .filter(|&c| c != '/')
        .collect();
    if board.is_empty() {
        None
    } else if board.iter().all(|c| "WB.".contains(*c)) {
        Some(Form::PositionString)
    } else if board.iter().all(|c| "O@*X".contains(*c)) {
        Some(Form::Fen)
    } else {
        None
    }
}

impl Position {
    /// Reads `startpos` (the variant's start position), a position string or a Sanmill
    /// FEN, whichever `text` is.
    ///
    /// # Errors
    /// [`ParseError::PositionString`] or [`ParseError::Fen`] naming the wrong field when
    /// the board's characters show which form was meant, else [`ParseError::Position`]
    /// with what each parser found.
    pub fn from_text(rules: &Rules, text: &str) -> Result<Position, ParseError> {
        let text = text.trim();
        if text == "startpos" {
            return Ok(Position::start(rules));
        }
        match written_as(text) {
            Some(Form::PositionString) => Position::from_position_string(rules, text),
            Some(Form::Fen) => Position::from_fen(rules, text),
            None => either(rules, text),
        }
    }
}

/// Tries both forms on a text whose board shows neither, for the one that reads or both
/// complaints.
fn either(rules: &Rules, text: &str) -> Result<Position, ParseError> {
    let as_position_string = match Position::from_position_string(rules, text) {
        Ok(p) => return Ok(p),
        Err(e) => e,
    };
    let as_fen = match Position::from_fen(rules, text) {
        Ok(p) => return Ok(p),
        Err(e) => e,
    };
    Err(ParseError::Position {
        text: text.to_string(),
        as_position_string: Box::new(as_position_string),
        as_fen: Box::new(as_fen),
    })
}
