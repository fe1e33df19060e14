//! Kvarn's position string: one line of text that holds everything a [`Position`] holds,
//! so that any reachable position can be written, read back and shared.
//!
//! ```text
//! <board> <side> <white in hand>/<black in hand> <action> <no-capture> <turns>
//! ```
//!
//! - **board**: one group of 8 characters per ring, outer ring first, separated by `/`;
//!   each group runs clockwise from the ring's top-left corner (outer ring: a7 d7 g7 g4 g1
//!   d1 a1 a4; middle: b6 d6 f6 f4 f2 d2 b2 b4; inner: c5 d5 e5 e4 e3 d3 c3 c4). `W` is a
//!   white man, `B` a black man, `.` an empty point. Nine Men's Morris has three groups,
//!   Six and Five Men's Morris two (middle and inner ring).
//! - **side**: `w` or `b`, the player to move (and to remove, if a removal is pending).
//! - **men in hand**: White's and Black's, e.g. `9/9`.
//! - **action**: `-`, or `x` when the player to move has closed a mill and must remove.
//! - **no-capture**: turns completed since the last removal (or the start).
//! - **turns**: turns completed since the start of the game.
//!
//! The start of Nine Men's Morris is `......../......../........ w 9/9 - 0 0`.

use crate::board_text::{BoardTextError, Glyphs, read_board, read_side, side_char, write_board};
use crate::color::Color;
use crate::error::ParseError;
use crate::position::{Position, Setup};
use crate::square::Square;
use crate::variant::Rules;

/// The board's rings as groups of points, outer ring first, each clockwise from its
/// top-left corner.
fn ring_groups(rules: &Rules) -> Vec<[Square; 8]> {
    let first = (Square::COUNT - rules.board().len()) as u8 / 8;
    (first..=2)
        .map(|ring| std::array::from_fn(|pos| Square::from_ring(ring, pos as u8)))
        .collect()
}

const GLYPHS: Glyphs = Glyphs {
    white: 'W',
    black: 'B',
    empty: '.',
};

impl Position {
    /// Writes the position string (module [`crate::notation`]).
    pub fn to_position_string(&self, rules: &Rules) -> String {
        let s = write_board(
            [self.men(Color::White), self.men(Color::Black)],
            &ring_groups(rules),
            &GLYPHS,
        );
        let side = side_char(self.side_to_move());
        let action = if self.pending_removal() { 'x' } else { '-' };
        format!(
            "{s} {side} {}/{} {action} {} {}",
            self.in_hand(Color::White),
            self.in_hand(Color::Black),
            self.no_capture(),
            self.turns()
        )
    }

    /// Reads a position string (module [`crate::notation`]) for the given rules.
    ///
    /// # Errors
    /// [`ParseError::PositionString`] naming the field that is wrong.
    pub fn from_position_string(rules: &Rules, text: &str) -> Result<Position, ParseError> {
        let err =
            |field: &'static str, reason: String| ParseError::PositionString { field, reason };
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 6 {
            return Err(err(
                "layout",
                format!(
                    "expected 6 space-separated fields (board side hands action no-capture turns), found {}",
                    fields.len()
                ),
            ));
        }
        let groups = ring_groups(rules);
        let men = read_board(fields[0], &groups, &GLYPHS)
            .map_err(|e| err("board", board_error(rules, groups.len(), e)))?;
        let side = read_side(fields[1]).map_err(|r| err("side", r))?;
        let in_hand = read_hands(fields[2]).map_err(|r| err("men in hand", r))?;
        let pending_removal = match fields[3] {
            "-" => false,
            "x" => true,
            other => return Err(err("action", format!("`{other}` is neither - nor x"))),
        };
        let counter = |v: &str, field: &'static str| {
            v.parse::<u16>()
                .ok()
                .filter(|_| is_decimal(v))
                .ok_or_else(|| err(field, format!("`{v}` is not a number 0..65535")))
        };
        let no_capture = counter(fields[4], "no-capture")?;
        let turns = counter(fields[5], "turns")?;
        let setup = Setup {
            men,
            in_hand,
            side,
            pending_removal,
            no_capture,
            turns,
        };
        Position::from_setup(rules, &setup).map_err(|e| err(e.field, e.reason))
    }
}

/// Plain decimal digits only, so that a position string reads back as it was written.
fn is_decimal(v: &str) -> bool {
    !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())
}

/// The men in hand, `<white>/<black>`.
fn read_hands(field: &str) -> Result<[u8; 2], String> {
    let (w, b) = field
        .split_once('/')
        .ok_or_else(|| format!("`{field}` should be <white>/<black>, e.g. 9/9"))?;
    let hand = |v: &str, who: &str| {
        v.parse::<u8>()
            .ok()
            .filter(|_| is_decimal(v))
            .ok_or_else(|| format!("{who}'s `{v}` is not a number 0..255"))
    };
    Ok([hand(w, "white")?, hand(b, "black")?])
}

/// What is wrong with a board field, for a reader who sees the string.
fn board_error(rules: &Rules, rings: usize, e: BoardTextError) -> String {
    match e {
        BoardTextError::GroupCount { found } => format!(
            "{} is played on {rings} rings, so the board needs {rings} groups of 8 separated by `/`, found {found}",
            rules.variant()
        ),
        BoardTextError::GroupLength { group } => format!(
            "group `{group}` has {} characters, not 8",
            group.chars().count()
        ),
        BoardTextError::Glyph { square, glyph } => {
            format!("`{glyph}` at {square}: use W (white), B (black) or . (empty)")
        }
    }
}
