//! Reading and writing a board as text, one character a point in groups of eight: the
//! part that Kvarn's position string and Sanmill's FEN share, with their own characters
//! and point orders.

use crate::bitboard::Bitboard;
use crate::color::Color;
use crate::square::Square;

/// The characters for a white man, a black man and an empty point.
pub(crate) struct Glyphs {
    pub white: char,
    pub black: char,
    pub empty: char,
}

/// What is wrong with a board text.
pub(crate) enum BoardTextError {
    /// Not as many `/`-separated groups as wanted.
    GroupCount { found: usize },
    /// A group without exactly 8 characters.
    GroupLength { group: String },
    /// A character that is none of the glyphs, at a point.
    Glyph { square: Square, glyph: char },
}

/// Writes the points of `groups` in order, groups separated by `/`.
pub(crate) fn write_board(men: [Bitboard; 2], groups: &[[Square; 8]], g: &Glyphs) -> String {
    let mut s = String::with_capacity(groups.len() * 9);
    for (i, group) in groups.iter().enumerate() {
        if i > 0 {
            s.push('/');
        }
        for &sq in group {
            s.push(if men[0].contains(sq) {
                g.white
            } else if men[1].contains(sq) {
                g.black
            } else {
                g.empty
            });
        }
    }
    s
}

/// Reads a board written as [`write_board`] writes it.
pub(crate) fn read_board(
    text: &str,
    groups: &[[Square; 8]],
    g: &Glyphs,
) -> Result<[Bitboard; 2], BoardTextError> {
    let parts: Vec<&str> = text.split('/').collect();
    if parts.len() != groups.len() {
        return Err(BoardTextError::GroupCount { found: parts.len() });
    }
    let mut men = [Bitboard::EMPTY; 2];
    for (part, squares) in parts.iter().zip(groups) {
        if part.chars().count() != 8 {
            return Err(BoardTextError::GroupLength {
                group: part.to_string(),
            });
        }
        for (ch, &sq) in part.chars().zip(squares) {
            match ch {
                c if c == g.white => men[0] |= Bitboard::from_square(sq),
                c if c == g.black => men[1] |= Bitboard::from_square(sq),
                c if c == g.empty => {}
                glyph => return Err(BoardTextError::Glyph { square: sq, glyph }),
            }
        }
    }
    Ok(men)
}

/// `w` or `b`.
pub(crate) fn side_char(c: Color) -> char {
    match c {
        Color::White => 'w',
        Color::Black => 'b',
    }
}

/// Reads `w` or `b`.
pub(crate) fn read_side(s: &str) -> Result<Color, String> {
    match s {
        "w" => Ok(Color::White),
        "b" => Ok(Color::Black),
        other => Err(format!("`{other}` is neither w nor b")),
    }
}
