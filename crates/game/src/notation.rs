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

use crate::bitboard::Bitboard;
use crate::color::Color;
use crate::error::ParseError;
use crate::position::{Position, Setup};
use crate::square::Square;
use crate::variant::Rules;

fn rings(rules: &Rules) -> std::ops::RangeInclusive<u8> {
    let first = (Square::COUNT - rules.board().len()) as u8 / 8;
    first..=2
}

impl Position {
    /// Writes the position string (module [`crate::notation`]).
    pub fn to_position_string(&self, rules: &Rules) -> String {
        let mut s = String::with_capacity(40);
        for (i, ring) in rings(rules).enumerate() {
            if i > 0 {
                s.push('/');
            }
            for pos in 0..8 {
                let sq = Square::from_ring(ring, pos);
                s.push(if self.men(Color::White).contains(sq) {
                    'W'
                } else if self.men(Color::Black).contains(sq) {
                    'B'
                } else {
                    '.'
                });
            }
        }
        let side = match self.side_to_move() {
            Color::White => 'w',
            Color::Black => 'b',
        };
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
        let groups: Vec<&str> = fields[0].split('/').collect();
        let ring_range = rings(rules);
        let want = ring_range.clone().count();
        if groups.len() != want {
            return Err(err(
                "board",
                format!(
                    "{} is played on {want} rings, so the board needs {want} groups of 8 separated by `/`, found {}",
                    rules.variant(),
                    groups.len()
                ),
            ));
        }
        let mut men = [Bitboard::EMPTY; 2];
        for (group, ring) in groups.iter().zip(ring_range) {
            if group.chars().count() != 8 {
                return Err(err(
                    "board",
                    format!(
                        "group `{group}` has {} characters, not 8",
                        group.chars().count()
                    ),
                ));
            }
            for (pos, ch) in group.chars().enumerate() {
                let sq = Square::from_ring(ring, pos as u8);
                match ch {
                    'W' => men[0] |= Bitboard::from_square(sq),
                    'B' => men[1] |= Bitboard::from_square(sq),
                    '.' => {}
                    other => {
                        return Err(err(
                            "board",
                            format!("`{other}` at {sq}: use W (white), B (black) or . (empty)"),
                        ));
                    }
                }
            }
        }
        let side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(err("side", format!("`{other}` is neither w nor b"))),
        };
        let (w, b) = fields[2].split_once('/').ok_or_else(|| {
            err(
                "men in hand",
                format!("`{}` should be <white>/<black>, e.g. 9/9", fields[2]),
            )
        })?;
        let hand = |v: &str, who: &str| {
            v.parse::<u8>().map_err(|_| {
                err(
                    "men in hand",
                    format!("{who}'s `{v}` is not a number 0..255"),
                )
            })
        };
        let in_hand = [hand(w, "white")?, hand(b, "black")?];
        let pending_removal = match fields[3] {
            "-" => false,
            "x" => true,
            other => return Err(err("action", format!("`{other}` is neither - nor x"))),
        };
        let counter = |v: &str, field: &'static str| {
            v.parse::<u16>()
                .map_err(|_| err(field, format!("`{v}` is not a number 0..65535")))
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
