//! Board tables: points, adjacency, mills and symmetries, built once from the ring geometry.
//!
//! Both boards are concentric squares ("rings") of 8 points. The 24-point board has three
//! rings and mills along the four cross lines; the 16-point board is the same board without
//! its outer ring, and its short cross lines join neighbours but form no mill. Everything
//! else follows from those two facts, so the tables are computed, not typed in.

use crate::bitboard::Bitboard;
use crate::square::Square;

/// Which board a variant is played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardKind {
    /// 24 points, 16 mills (Nine Men's Morris).
    TwentyFour,
    /// 16 points, 8 mills (Six and Five Men's Morris).
    Sixteen,
}

/// Number of board symmetries: the 8 of the square times swapping inner and outer ring.
pub const SYMMETRY_COUNT: usize = 16;

/// Mask that can never be covered by men: pads the second mill slot of points on one mill.
const NO_MILL: Bitboard = Bitboard(u32::MAX);

/// The tables of one board. Obtain them with [`Board::get`].
#[derive(Debug)]
pub struct Board {
    kind: BoardKind,
    first_ring: u8,
    points: Bitboard,
    adjacent: [Bitboard; Square::COUNT],
    mills: [Bitboard; 16],
    mill_count: usize,
    /// The (at most two) mills through each point; a missing one is [`NO_MILL`].
    mills_through: [[Bitboard; 2]; Square::COUNT],
    /// `symmetries[s][sq]` is the image of square `sq` under symmetry `s`.
    symmetries: [[u8; Square::COUNT]; SYMMETRY_COUNT],
    inverse: [u8; SYMMETRY_COUNT],
}

static TWENTY_FOUR: Board = Board::build(BoardKind::TwentyFour);
static SIXTEEN: Board = Board::build(BoardKind::Sixteen);

impl Board {
    /// The tables of a board kind.
    pub fn get(kind: BoardKind) -> &'static Board {
        match kind {
            BoardKind::TwentyFour => &TWENTY_FOUR,
            BoardKind::Sixteen => &SIXTEEN,
        }
    }

    const fn build(kind: BoardKind) -> Board {
        let (first_ring, cross_mills) = match kind {
            BoardKind::TwentyFour => (0u8, true),
            BoardKind::Sixteen => (1u8, false),
        };
        let last_ring = 2u8;
        let mut points = 0u32;
        let mut adjacent = [Bitboard::EMPTY; Square::COUNT];
        let mut mills = [Bitboard::EMPTY; 16];
        let mut mill_count = 0;
        let mut mills_through = [[NO_MILL; 2]; Square::COUNT];

        let mut ring = first_ring;
        while ring <= last_ring {
            let mut pos = 0u8;
            while pos < 8 {
                let sq = Square::from_ring(ring, pos).index();
                points |= 1 << sq;
                // Neighbours along the ring.
                let mut adj = (1u32 << Square::from_ring(ring, pos + 1).index())
                    | (1u32 << Square::from_ring(ring, pos + 7).index());
                // Neighbours along the cross lines, at side midpoints.
                if pos % 2 == 1 {
                    if ring > first_ring {
                        adj |= 1 << Square::from_ring(ring - 1, pos).index();
                    }
                    if ring < last_ring {
                        adj |= 1 << Square::from_ring(ring + 1, pos).index();
                    }
                }
                adjacent[sq] = Bitboard(adj);
                // One mill per side of the ring: corner, midpoint, next corner.
                if pos % 2 == 0 {
                    let m = (1u32 << sq)
                        | (1 << Square::from_ring(ring, pos + 1).index())
                        | (1 << Square::from_ring(ring, pos + 2).index());
                    mills[mill_count] = Bitboard(m);
                    mill_count += 1;
                }
                pos += 1;
            }
            ring += 1;
        }
        if cross_mills {
            let mut pos = 1u8;
            while pos < 8 {
                let mut m = 0u32;
                let mut r = first_ring;
                while r <= last_ring {
                    m |= 1 << Square::from_ring(r, pos).index();
                    r += 1;
                }
                mills[mill_count] = Bitboard(m);
                mill_count += 1;
                pos += 2;
            }
        }
        let mut i = 0;
        while i < mill_count {
            let mut bits = mills[i].0;
            while bits != 0 {
                let sq = bits.trailing_zeros() as usize;
                if mills_through[sq][0].0 == NO_MILL.0 {
                    mills_through[sq][0] = mills[i];
                } else {
                    mills_through[sq][1] = mills[i];
                }
                bits &= bits - 1;
            }
            i += 1;
        }

        let mut symmetries = [[0u8; Square::COUNT]; SYMMETRY_COUNT];
        let mut s = 0;
        while s < SYMMETRY_COUNT {
            let rot = (s & 3) as u8;
            let reflect = (s >> 2) & 1 == 1;
            let swap = (s >> 3) & 1 == 1;
            let mut sq = 0;
            while sq < Square::COUNT {
                let ring = (sq / 8) as u8;
                let pos = (sq % 8) as u8;
                if ring < first_ring {
                    symmetries[s][sq] = sq as u8; // not on this board: fixed
                } else {
                    let r2 = if swap {
                        first_ring + last_ring - ring
                    } else {
                        ring
                    };
                    let p1 = if reflect { (10 - pos) % 8 } else { pos };
                    let p2 = (p1 + 2 * rot) % 8;
                    symmetries[s][sq] = Square::from_ring(r2, p2).index() as u8;
                }
                sq += 1;
            }
            s += 1;
        }
        let mut inverse = [0u8; SYMMETRY_COUNT];
        let mut s = 0;
        while s < SYMMETRY_COUNT {
            let mut t = 0;
            while t < SYMMETRY_COUNT {
                let mut undoes = true;
                let mut sq = 0;
                while sq < Square::COUNT {
                    if symmetries[t][symmetries[s][sq] as usize] as usize != sq {
                        undoes = false;
                    }
                    sq += 1;
                }
                if undoes {
                    inverse[s] = t as u8;
                }
                t += 1;
            }
            s += 1;
        }

        Board {
            kind,
            first_ring,
            points: Bitboard(points),
            adjacent,
            mills,
            mill_count,
            mills_through,
            symmetries,
            inverse,
        }
    }

    /// Which board this is.
    pub fn kind(&self) -> BoardKind {
        self.kind
    }

    /// The set of the board's points.
    #[inline]
    pub fn points(&self) -> Bitboard {
        self.points
    }

    /// Number of points (24 or 16).
    #[inline]
    pub fn len(&self) -> usize {
        self.points.count() as usize
    }

    /// Always false: a board has points. Present because `len` is.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Whether `sq` is a point of this board.
    #[inline]
    pub fn has(&self, sq: Square) -> bool {
        self.points.contains(sq)
    }

    /// The points joined to `sq` by a drawn line.
    #[inline]
    pub fn adjacent(&self, sq: Square) -> Bitboard {
        self.adjacent[sq.index()]
    }

    /// All mills of the board, each as the set of its three points.
    pub fn mills(&self) -> &[Bitboard] {
        &self.mills[..self.mill_count]
    }

    /// Whether the men `men` form a mill through `sq` (which they must include).
    #[inline]
    pub fn closes_mill(&self, men: Bitboard, sq: Square) -> bool {
        let [a, b] = self.mills_through[sq.index()];
        men.contains_all(a) || men.contains_all(b)
    }

    /// The men of `men` that stand in at least one complete mill.
    #[inline]
    pub fn men_in_mills(&self, men: Bitboard) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for &m in self.mills() {
            if men.contains_all(m) {
                out |= m;
            }
        }
        out
    }

    /// Dense index 0..len of a point, used by the action space and the input encoding.
    #[inline]
    pub fn local_index(&self, sq: Square) -> usize {
        sq.index() - 8 * self.first_ring as usize
    }

    /// The point with dense index `i` (inverse of [`Board::local_index`]).
    #[inline]
    pub fn square_at(&self, i: usize) -> Option<Square> {
        if i < self.len() {
            Some(Square::from_index_unchecked(
                (i + 8 * self.first_ring as usize) as u8,
            ))
        } else {
            None
        }
    }

    /// The board's points in dense index order.
    pub fn squares(&self) -> impl Iterator<Item = Square> + '_ {
        self.points.into_iter()
    }

    /// Image of `sq` under symmetry `sym` (0..16; 0 is the identity).
    #[inline]
    pub fn map_square(&self, sym: usize, sq: Square) -> Square {
        Square::from_index_unchecked(self.symmetries[sym][sq.index()])
    }

    /// Image of a set of points under symmetry `sym`.
    pub fn map_bitboard(&self, sym: usize, bb: Bitboard) -> Bitboard {
        bb.into_iter().map(|sq| self.map_square(sym, sq)).collect()
    }

    /// The symmetry that undoes `sym`.
    pub fn inverse_symmetry(&self, sym: usize) -> usize {
        self.inverse[sym] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_have_the_sizes_of_rules_md() {
        let b24 = Board::get(BoardKind::TwentyFour);
        assert_eq!(b24.len(), 24);
        assert_eq!(b24.mills().len(), 16);
        let b16 = Board::get(BoardKind::Sixteen);
        assert_eq!(b16.len(), 16);
        assert_eq!(b16.mills().len(), 8);
        for b in [b24, b16] {
            for sq in b.squares() {
                let n = b.adjacent(sq).count();
                assert!((2..=4).contains(&n), "{sq} has {n} neighbours");
                assert!(b.points().contains_all(b.adjacent(sq)));
                for other in b.adjacent(sq) {
                    assert!(b.adjacent(other).contains(sq), "adjacency is symmetric");
                }
            }
        }
    }

    #[test]
    fn symmetries_are_sixteen_distinct_automorphisms() {
        for kind in [BoardKind::TwentyFour, BoardKind::Sixteen] {
            let b = Board::get(kind);
            let mut images = std::collections::HashSet::new();
            for s in 0..SYMMETRY_COUNT {
                let image: Vec<Square> = b.squares().map(|sq| b.map_square(s, sq)).collect();
                assert!(images.insert(image), "symmetry {s} repeats another");
                assert_eq!(b.map_bitboard(s, b.points()), b.points());
                for sq in b.squares() {
                    let inv = b.inverse_symmetry(s);
                    assert_eq!(b.map_square(inv, b.map_square(s, sq)), sq);
                    let adj: Bitboard = b.map_bitboard(s, b.adjacent(sq));
                    assert_eq!(adj, b.adjacent(b.map_square(s, sq)));
                }
                let mut mills: Vec<Bitboard> =
                    b.mills().iter().map(|&m| b.map_bitboard(s, m)).collect();
                let mut orig = b.mills().to_vec();
                mills.sort();
                orig.sort();
                assert_eq!(mills, orig, "symmetry {s} maps mills to mills");
            }
        }
    }
}
