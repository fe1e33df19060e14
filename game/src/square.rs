//! The 24 point names a1..g7 shared by both boards.

use std::fmt;
use std::str::FromStr;

use crate::error::ParseError;

/// One point of the mill boards, named on a 7x7 grid (files a-g, ranks 1-7).
///
/// Squares are numbered ring by ring, outer square first, each ring clockwise from its
/// top-left corner: 0..8 = a7 d7 g7 g4 g1 d1 a1 a4, 8..16 = b6 d6 f6 f4 f2 d2 b2 b4,
/// 16..24 = c5 d5 e5 e4 e3 d3 c3 c4. The 16-point board is squares 8..24, so a point keeps
/// its name and number on both boards.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

/// Names of the squares in index order.
const NAMES: [&str; 24] = [
    "a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4", // outer
    "b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4", // middle
    "c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4", // inner
];

impl Square {
    /// Number of squares in the 24-point naming.
    pub const COUNT: usize = 24;
    /// Bit mask of all 24 squares.
    pub const ALL_MASK: u32 = (1 << 24) - 1;

    /// The square with index `index` (0..24).
    pub const fn new(index: u8) -> Option<Square> {
        if (index as usize) < Self::COUNT {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square with index `index`; the caller guarantees `index < 24`.
    #[inline]
    pub(crate) const fn from_index_unchecked(index: u8) -> Square {
        debug_assert!((index as usize) < Self::COUNT);
        Square(index)
    }

    /// The square on ring `ring` (0 outer, 1 middle, 2 inner) at clockwise position `pos`
    /// (0 = top-left corner, odd = side midpoints).
    #[inline]
    pub const fn from_ring(ring: u8, pos: u8) -> Square {
        Square(ring * 8 + pos % 8)
    }

    /// Index 0..24.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Ring: 0 outer, 1 middle, 2 inner.
    #[inline]
    pub const fn ring(self) -> u8 {
        self.0 / 8
    }

    /// Clockwise position on the ring, 0 = top-left corner; odd positions are midpoints.
    #[inline]
    pub const fn ring_pos(self) -> u8 {
        self.0 % 8
    }

    /// The name, e.g. `"d6"`.
    pub const fn name(self) -> &'static str {
        NAMES[self.0 as usize]
    }

    /// File (0 = a) and rank (0 = 1) on the 7x7 grid.
    pub const fn grid(self) -> (u8, u8) {
        let d = 3 - self.ring() as i8; // distance from the centre d4
        let (x, y): (i8, i8) = match self.ring_pos() {
            0 => (-d, d),
            1 => (0, d),
            2 => (d, d),
            3 => (d, 0),
            4 => (d, -d),
            5 => (0, -d),
            6 => (-d, -d),
            _ => (-d, 0),
        };
        ((3 + x) as u8, (3 + y) as u8)
    }

    /// All 24 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..Self::COUNT as u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Square {
    type Err = ParseError;

    /// Parses a point name such as `d6` (case-insensitive).
    fn from_str(s: &str) -> Result<Square, ParseError> {
        let lower = s.trim().to_ascii_lowercase();
        NAMES
            .iter()
            .position(|&n| n == lower)
            .map(|i| Square(i as u8))
            .ok_or_else(|| ParseError::Square(s.to_string()))
    }
}
