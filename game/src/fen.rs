//! The FEN of the Sanmill mill program, for exchanging 24-point positions with it.
//!
//! ```text
//! ********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1
//! ```
//!
//! Three groups of 8 characters for the inner, middle and outer ring, each starting at
//! d5, d6 and d7 and going clockwise (`O` white, `@` black, `*` empty); then side (`w`/`b`),
//! phase (`r` ready, `p` placing, `m` moving, `o` over), action (`p` place, `s` select,
//! `r` remove), White on board, White in hand, Black on board, Black in hand, White to
//! remove, Black to remove, four last-mill squares, a formed-mills bit mask, a move
//! counter and the full-move number.
//!
//! Kvarn writes the last-mill squares and the mill mask as 0 (they serve rules Kvarn does
//! not have), writes its no-capture counter (turns since the last removal) in the move
//! counter field, and the full-move number as 1 + completed turns / 2. On reading, it also
//! accepts Sanmill's older layouts (6 or 8 numbers), and refuses what its rules cannot
//! represent (marked points, several removals at once, removals of one's own men).

use crate::bitboard::Bitboard;
use crate::board::BoardKind;
use crate::board_text::{BoardTextError, Glyphs, read_board, read_side, side_char, write_board};
use crate::color::Color;
use crate::error::ParseError;
use crate::position::{Position, Setup};
use crate::square::Square;
use crate::variant::Rules;

/// The FEN's groups: inner, middle and outer ring, each from its top midpoint clockwise.
fn fen_groups() -> [[Square; 8]; 3] {
    std::array::from_fn(|g| {
        std::array::from_fn(|i| Square::from_ring(2 - g as u8, (i as u8 + 1) % 8))
    })
}

const GLYPHS: Glyphs = Glyphs {
    white: 'O',
    black: '@',
    empty: '*',
};

fn require_24(rules: &Rules, what: &'static str) -> Result<(), ParseError> {
    if rules.variant().board_kind() != BoardKind::TwentyFour {
        return Err(ParseError::Fen {
            field: what,
            reason: format!(
                "Sanmill's FEN describes the 24-point board; {} is played on 16 points (use Kvarn's position string)",
                rules.variant()
            ),
        });
    }
    Ok(())
}

impl Position {
    /// Writes the position as a Sanmill FEN (24-point board only).
    ///
    /// # Errors
    /// [`ParseError::Fen`] for a variant on the 16-point board.
    pub fn to_fen(&self, rules: &Rules) -> Result<String, ParseError> {
        require_24(rules, "variant")?;
        let s = write_board(
            [self.men(Color::White), self.men(Color::Black)],
            &fen_groups(),
            &GLYPHS,
        );
        let side = side_char(self.side_to_move());
        let over = matches!(self.status(rules, 1), crate::Status::Win { .. });
        let phase = if over {
            'o'
        } else if self.men_in_hand() > 0 {
            'p'
        } else {
            'm'
        };
        let action = if self.pending_removal() {
            'r'
        } else if self.is_placing() {
            'p'
        } else {
            's'
        };
        let remove = |c: Color| u8::from(self.pending_removal() && self.side_to_move() == c);
        Ok(format!(
            "{s} {side} {phase} {action} {} {} {} {} {} {} 0 0 0 0 0 {} {}",
            self.men(Color::White).count(),
            self.in_hand(Color::White),
            self.men(Color::Black).count(),
            self.in_hand(Color::Black),
            remove(Color::White),
            remove(Color::Black),
            self.no_capture(),
            1 + self.turns() / 2
        ))
    }

    /// Reads a Sanmill FEN (24-point board only).
    ///
    /// # Errors
    /// [`ParseError::Fen`] naming the field that is wrong or that Kvarn cannot represent.
    pub fn from_fen(rules: &Rules, text: &str) -> Result<Position, ParseError> {
        require_24(rules, "variant")?;
        let f: Vec<&str> = text.split_whitespace().collect();
        if !matches!(f.len(), 10 | 12 | 17) {
            return Err(fen_err(
                "layout",
                format!(
                    "expected the board, side, phase, action and 6, 8 or 13 numbers (10, 12 or 17 fields), found {} fields",
                    f.len()
                ),
            ));
        }
        let men = fen_men(f[0])?;
        let side = read_side(f[1]).map_err(|r| fen_err("side", r))?;
        let phase = f[2];
        if !matches!(phase, "r" | "p" | "m" | "o") {
            return Err(fen_err(
                "phase",
                format!("`{phase}` is not one of r, p, m, o"),
            ));
        }
        let action = f[3];
        if !matches!(action, "p" | "s" | "r") {
            return Err(fen_err(
                "action",
                format!("`{action}` is not one of p, s, r"),
            ));
        }
        let w_on = fen_number(&f, 4, "white on board")?;
        let w_hand = fen_number(&f, 5, "white in hand")?;
        let b_on = fen_number(&f, 6, "black on board")?;
        let b_hand = fen_number(&f, 7, "black in hand")?;
        let w_rm = fen_number(&f, 8, "white to remove")?;
        let b_rm = fen_number(&f, 9, "black to remove")?;
        check_fen_on_board(&men, w_on, b_on)?;
        let in_hand = fen_in_hand(rules, w_hand, b_hand)?;
        let pending_removal = fen_pending_removal(side, action, in_hand, w_rm, b_rm)?;
        check_fen_phase(phase, &men, in_hand)?;
        let (no_capture, turns) = fen_counters(&f, side)?;
        let setup = Setup {
            men,
            in_hand,
            side,
            pending_removal,
            no_capture,
            turns,
        };
        Position::from_setup(rules, &setup).map_err(|e| fen_err(e.field, e.reason))
    }
}

/// The error for a FEN field that is wrong.
fn fen_err(field: &'static str, reason: String) -> ParseError {
    ParseError::Fen { field, reason }
}

/// Field `i` of the FEN `f` as a number.
fn fen_number(f: &[&str], i: usize, field: &'static str) -> Result<i64, ParseError> {
    f[i].parse::<i64>()
        .map_err(|_| fen_err(field, format!("`{}` is not a number", f[i])))
}

/// The FEN's board field: the men of White and of Black.
fn fen_men(board: &str) -> Result<[Bitboard; 2], ParseError> {
    read_board(board, &fen_groups(), &GLYPHS).map_err(|e| {
        fen_err(
            "board",
            match e {
                BoardTextError::GroupCount { .. } | BoardTextError::GroupLength { .. } => {
                    format!("`{board}` should be three groups of 8 characters separated by `/`")
                }
                BoardTextError::Glyph { square, glyph: 'X' } => {
                    format!("{square} is marked (X), which Kvarn's rules do not have")
                }
                BoardTextError::Glyph { square, glyph } => {
                    format!("`{glyph}` at {square}: use O (white), @ (black) or * (empty)")
                }
            },
        )
    })
}

/// The counts of men on the board (`w_on`, `b_on`) must be what the board shows.
fn check_fen_on_board(men: &[Bitboard; 2], w_on: i64, b_on: i64) -> Result<(), ParseError> {
    for (count, field, c) in [
        (w_on, "white on board", Color::White),
        (b_on, "black on board", Color::Black),
    ] {
        if count != men[c.index()].count() as i64 {
            return Err(fen_err(
                field,
                format!(
                    "says {count}, but the board shows {}",
                    men[c.index()].count()
                ),
            ));
        }
    }
    Ok(())
}

/// The men in hand of White and Black, each between 0 and the rules' men.
fn fen_in_hand(rules: &Rules, w_hand: i64, b_hand: i64) -> Result<[u8; 2], ParseError> {
    let hand = |v: i64, field: &'static str| -> Result<u8, ParseError> {
        u8::try_from(v)
            .ok()
            .filter(|&h| h <= rules.men())
            .ok_or_else(|| fen_err(field, format!("{v} is not between 0 and {}", rules.men())))
    };
    Ok([
        hand(w_hand, "white in hand")?,
        hand(b_hand, "black in hand")?,
    ])
}

/// Whether the side to move has a removal pending, from the to-remove counts (Kvarn's
/// rules allow only the mover one removal), which the action must agree with.
fn fen_pending_removal(
    side: Color,
    action: &str,
    in_hand: [u8; 2],
    w_rm: i64,
    b_rm: i64,
) -> Result<bool, ParseError> {
    let (mine, theirs) = match side {
        Color::White => (w_rm, b_rm),
        Color::Black => (b_rm, w_rm),
    };
    if theirs != 0 {
        return Err(fen_err(
            "to remove",
            format!(
                "{} is not to move but has {theirs} to remove",
                side.opposite()
            ),
        ));
    }
    if !(0..=1).contains(&mine) {
        return Err(fen_err(
            "to remove",
            format!(
                "{side} has {mine} to remove; Kvarn's rules remove exactly one opposing man per mill turn"
            ),
        ));
    }
    let pending_removal = mine == 1;
    if pending_removal != (action == "r") {
        return Err(fen_err(
            "action",
            format!("`{action}` disagrees with the to-remove count {mine}"),
        ));
    }
    if !pending_removal && (action == "p") != (in_hand[side.index()] > 0) {
        return Err(fen_err(
            "action",
            format!(
                "`{action}` but {side} has {} men in hand",
                in_hand[side.index()]
            ),
        ));
    }
    Ok(pending_removal)
}

/// The phase must agree with the men in hand and on the board (`o`, over, is checked
/// by the position itself).
fn check_fen_phase(phase: &str, men: &[Bitboard; 2], in_hand: [u8; 2]) -> Result<(), ParseError> {
    let hands_empty = in_hand.iter().all(|&h| h == 0);
    match phase {
        "m" if !hands_empty => Err(fen_err(
            "phase",
            "moving phase with men still in hand".to_string(),
        )),
        "p" if hands_empty => Err(fen_err(
            "phase",
            "placing phase with no men in hand".to_string(),
        )),
        "r" if (men[0] | men[1]).any() => Err(fen_err(
            "phase",
            "ready (before the first move) with men on the board".to_string(),
        )),
        _ => Ok(()),
    }
}

/// The no-capture counter and the turns played, from the move counter and the full-move
/// number (the last two of 8 or 13 numbers; 0 and 1 where the older layout of 6 has none).
fn fen_counters(f: &[&str], side: Color) -> Result<(u16, u16), ParseError> {
    let (no_capture, fullmove) = match f.len() {
        10 => (0, 1),
        12 => (
            fen_number(f, 10, "move counter")?,
            fen_number(f, 11, "full-move number")?,
        ),
        _ => (
            fen_number(f, 15, "move counter")?,
            fen_number(f, 16, "full-move number")?,
        ),
    };
    let no_capture = u16::try_from(no_capture)
        .map_err(|_| fen_err("move counter", format!("{no_capture} is out of range")))?;
    if !(1..=32768).contains(&fullmove) {
        return Err(fen_err(
            "full-move number",
            format!("{fullmove} is not between 1 and 32768"),
        ));
    }
    let turns = (2 * (fullmove - 1) + i64::from(side == Color::Black)) as u16;
    Ok((no_capture, turns))
}
