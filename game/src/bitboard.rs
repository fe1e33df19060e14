//! A set of points as a 32-bit mask: bit `i` is [`Square`] `i`.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use crate::square::Square;

/// A set of squares, one bit per point of the 24-point naming (bits 24..32 stay clear).
///
/// Both boards fit: the 16-point board uses bits 8..24, so one type serves every variant.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Bitboard(pub(crate) u32);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// The set with bit `i` for square `i`; `None` when a bit above 23 is set.
    pub const fn from_bits(bits: u32) -> Option<Bitboard> {
        if bits & !Square::ALL_MASK == 0 {
            Some(Bitboard(bits))
        } else {
            None
        }
    }

    /// The bits of the set: bit `i` for square `i`.
    #[inline]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The set holding one square.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// Whether the set holds `sq`.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set holds at least one square.
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// Number of squares in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether every square of `other` is in `self`.
    #[inline]
    pub const fn contains_all(self, other: Bitboard) -> bool {
        self.0 & other.0 == other.0
    }

    /// The lowest square of the set, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(self.0.trailing_zeros() as u8))
        }
    }

    /// The `n`-th lowest square of the set (0-based), if the set has that many.
    ///
    /// Random playouts use it to pick a square without building a list.
    #[inline]
    pub fn nth(self, n: u32) -> Option<Square> {
        #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
        {
            if n >= 32 {
                return None;
            }
            // SAFETY: the `bmi2` target feature is enabled for this build.
            let bit = unsafe { std::arch::x86_64::_pdep_u32(1 << n, self.0) };
            Bitboard(bit).first()
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
        {
            let mut bits = self.0;
            for _ in 0..n {
                if bits == 0 {
                    return None;
                }
                bits &= bits - 1;
            }
            Bitboard(bits).first()
        }
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;

    #[inline]
    fn into_iter(self) -> Squares {
        Squares(self.0)
    }
}

/// The squares of a [`Bitboard`], lowest index first.
#[derive(Clone, Copy, Debug)]
pub struct Squares(u32);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        let sq = Bitboard(self.0).first()?;
        self.0 &= self.0 - 1;
        Some(sq)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(*self).finish()
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Self {
        iter.into_iter()
            .fold(Bitboard::EMPTY, |bb, sq| bb | Bitboard::from_square(sq))
    }
}

macro_rules! bitop {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bitop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bitop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bitop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Square::ALL_MASK)
    }
}

/// A 64-bit set of bit indices, for the combined slide sets of [`crate::Board::slides`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bitboard64(pub u64);

impl Bitboard64 {
    /// Index of the `n`-th lowest set bit (0-based), if there are that many.
    #[inline]
    pub(crate) fn nth(self, n: u32) -> Option<u32> {
        if n >= self.0.count_ones() {
            return None;
        }
        #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
        {
            // SAFETY: the `bmi2` target feature is enabled for this build.
            let bit = unsafe { std::arch::x86_64::_pdep_u64(1 << n, self.0) };
            Some(bit.trailing_zeros())
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
        {
            let mut bits = self.0;
            for _ in 0..n {
                bits &= bits - 1;
            }
            Some(bits.trailing_zeros())
        }
    }
}
