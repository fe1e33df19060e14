//! The 16 symmetries of the boards applied to positions and moves, and a canonical form
//! (the least image), so that equivalent positions share one table entry.

use crate::board::{Board, SYMMETRY_COUNT};
use crate::color::Color;
use crate::moves::Move;
use crate::position::{Position, Setup};
use crate::variant::Rules;

impl Move {
    /// The move's image under board symmetry `sym` (0..16).
    pub fn transformed(self, board: &Board, sym: usize) -> Move {
        self.map_squares(|sq| board.map_square(sym, sq))
    }
}

impl Position {
    /// One key for this position, its images under the board's symmetries, and the same
    /// positions with the colours swapped (the other player to move, each with the other's
    /// men): a network sees all of them from the player to move, alike but for one input,
    /// so benchmark positions are kept out of training samples by this key.
    pub fn canonical_key(&self, rules: &Rules) -> u64 {
        let own = self.canonical(rules).0.key();
        let mut s = self.setup();
        s.men.swap(0, 1);
        s.in_hand.swap(0, 1);
        s.side = s.side.opposite();
        match Position::from_setup(rules, &s) {
            Ok(swapped) => own.min(swapped.canonical(rules).0.key()),
            Err(_) => own,
        }
    }

    /// The position's image under board symmetry `sym` (0..16): same men in hand, side,
    /// pending removal and counters, men moved to the image points.
    pub fn transformed(&self, rules: &Rules, sym: usize) -> Position {
        let board = rules.board();
        let mut setup: Setup = self.setup();
        for c in Color::BOTH {
            setup.men[c.index()] = board.map_bitboard(sym, self.men(c));
        }
        // Symmetries keep points on the board, mills mills and counts counts: the image
        // of a position of `rules` is one too.
        Position::from_setup_unchecked(&setup)
    }

    /// The canonical representative of the position's symmetry class, with the symmetry
    /// that maps this position onto it: the image with the least [`Position::key`].
    pub fn canonical(&self, rules: &Rules) -> (Position, usize) {
        // Images differ only in their men, and the key orders them by Black's set, then
        // White's: compare those and build only the winning image.
        let board = rules.board();
        let (white, black) = (self.men(Color::White).bits(), self.men(Color::Black).bits());
        let mut best = (black, white, 0);
        for sym in 1..SYMMETRY_COUNT {
            let b = board.map_bitboard(sym, self.men(Color::Black)).bits();
            if b > best.0 {
                continue;
            }
            let w = board.map_bitboard(sym, self.men(Color::White)).bits();
            if (b, w) < (best.0, best.1) {
                best = (b, w, sym);
            }
        }
        match best.2 {
            0 => (*self, 0),
            sym => (self.transformed(rules, sym), sym),
        }
    }
}
