//! Board tables: points, adjacency, mills and symmetries, built once from the ring geometry.
//!
//! Both boards are concentric squares ("rings") of 8 points. The 24-point board has three
//! rings and mills along the four cross lines; the 16-point board is the same board without
//! its outer ring, and its short cross lines join neighbours but form no mill. Everything
//! else follows from those two facts, so the tables are computed, not typed in.

use std::sync::LazyLock;

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

/// The four ways a man slides: clockwise or counter-clockwise along its ring, or across a
/// side midpoint to the next ring inward or outward. Move generation works by direction,
/// on whole sets of men at once, instead of man by man.
pub const SLIDE_DIRECTIONS: usize = 4;

/// Points at odd ring positions (side midpoints) on every ring: where cross lines run.
const MIDPOINTS: u32 = 0x00AA_AAAA;

/// Each ring's 8 points rotated one step clockwise (position p to p + 1).
#[inline]
const fn rotate_clockwise(x: u32) -> u32 {
    ((x << 1) & 0x00FE_FEFE) | ((x >> 7) & 0x0001_0101)
}

/// Each ring's 8 points rotated one step counter-clockwise (position p to p - 1).
#[inline]
const fn rotate_counter_clockwise(x: u32) -> u32 {
    ((x >> 1) & 0x007F_7F7F) | ((x << 7) & 0x0080_8080)
}

/// `SLIDE_TARGETS[32 * dir + from]`: where a slide from `from` in direction `dir` lands
/// (entries for impossible slides are never read).
static SLIDE_TARGETS: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut dir = 0;
    while dir < SLIDE_DIRECTIONS {
        let mut i = 0u8;
        while i < 24 {
            t[dir * 32 + i as usize] = match dir {
                0 => (i & !7) | ((i + 1) & 7),
                1 => (i & !7) | ((i + 7) & 7),
                2 => (i + 8) % 32,
                _ => i.wrapping_sub(8) % 32,
            };
            i += 1;
        }
        dir += 1;
    }
    t
};

/// `SIDE_MILL_MEN[byte]`: the men of one ring (`byte`, bit p = position p) that stand in a
/// complete side of that ring (positions p, p+1, p+2 for even p).
static SIDE_MILL_MEN: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let x = b as u32 | (b as u32) << 8; // doubled, so sides wrap around
        let mut out = 0u32;
        let mut p = 0;
        while p < 8 {
            let side = 0b111 << p;
            if x & side == side {
                out |= side;
            }
            p += 2;
        }
        t[b] = ((out | out >> 8) & 0xff) as u8;
        b += 1;
    }
    t
};

/// Mask that can never be covered by men: pads the second mill slot of points on one mill.
const NO_MILL: Bitboard = Bitboard(u32::MAX);

/// The tables of one board. Obtain them with [`Board::get`].
#[derive(Debug)]
pub struct Board {
    kind: BoardKind,
    first_ring: u8,
    cross_mills: bool,
    points: Bitboard,
    adjacent: [Bitboard; Square::COUNT],
    mills: [Bitboard; 16],
    mill_count: usize,
    /// The (at most two) mills through each point; a missing one is [`NO_MILL`].
    mills_through: [[Bitboard; 2]; Square::COUNT],
    /// `neighbours[ring][byte]`: the union of the neighbours of the men that `byte` places
    /// on ring `ring`, so the neighbours of any set of men take three lookups.
    neighbours: [[Bitboard; 256]; 3],
    /// `symmetries[s][sq]` is the image of square `sq` under symmetry `s`.
    symmetries: [[u8; Square::COUNT]; SYMMETRY_COUNT],
    inverse: [u8; SYMMETRY_COUNT],
}

/// The points of the rings `first_ring..=last_ring`, each point's neighbours (along its
/// ring, and across the side midpoints to the next ring), and the mills along the sides
/// of the rings with their count.
const fn ring_lines(
    first_ring: u8,
    last_ring: u8,
) -> (u32, [Bitboard; Square::COUNT], [Bitboard; 16], usize) {
    let mut points = 0u32;
    let mut adjacent = [Bitboard::EMPTY; Square::COUNT];
    let mut mills = [Bitboard::EMPTY; 16];
    let mut mill_count = 0;
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
            if pos.is_multiple_of(2) {
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
    (points, adjacent, mills, mill_count)
}

/// Appends the mills along the four cross lines (on the 24-point board only: the
/// 16-point board's short cross lines form no mill).
const fn add_cross_mills(
    first_ring: u8,
    last_ring: u8,
    mills: &mut [Bitboard; 16],
    mill_count: &mut usize,
) {
    let mut pos = 1u8;
    while pos < 8 {
        let mut m = 0u32;
        let mut r = first_ring;
        while r <= last_ring {
            m |= 1 << Square::from_ring(r, pos).index();
            r += 1;
        }
        mills[*mill_count] = Bitboard(m);
        *mill_count += 1;
        pos += 2;
    }
}

/// The (at most two) mills through each point, a missing one [`NO_MILL`].
const fn mills_through_table(
    mills: &[Bitboard; 16],
    mill_count: usize,
) -> [[Bitboard; 2]; Square::COUNT] {
    let mut mills_through = [[NO_MILL; 2]; Square::COUNT];
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
    mills_through
}

/// `[ring][byte]`: the union of the neighbours of the men that `byte` places on `ring`.
const fn neighbour_table(adjacent: &[Bitboard; Square::COUNT]) -> [[Bitboard; 256]; 3] {
    let mut neighbours = [[Bitboard::EMPTY; 256]; 3];
    let mut r = 0;
    while r < 3 {
        let mut byte = 1;
        while byte < 256 {
            // The set `byte` is the set `byte & (byte - 1)` plus its lowest point.
            let low = (byte as u32).trailing_zeros() as usize;
            neighbours[r][byte] =
                Bitboard(neighbours[r][byte & (byte - 1)].0 | adjacent[r * 8 + low].0);
            byte += 1;
        }
        r += 1;
    }
    neighbours
}

/// `[s][sq]`: the image of square `sq` under symmetry `s`, which rotates by `s & 3`
/// quarter turns after reflecting (bit 2) and swapping the inner and outer ring (bit 3).
/// Squares off the board stay fixed.
const fn symmetry_table(first_ring: u8, last_ring: u8) -> [[u8; Square::COUNT]; SYMMETRY_COUNT] {
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
    symmetries
}

/// `[s]`: the symmetry that undoes symmetry `s`.
const fn inverse_table(symmetries: &[[u8; Square::COUNT]; SYMMETRY_COUNT]) -> [u8; SYMMETRY_COUNT] {
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
    inverse
}

/// Byte tables of the symmetries (see `Board::symmetry_bytes`).
type SymmetryBytes = Box<[[[u32; 256]; 3]; SYMMETRY_COUNT]>;

fn symmetry_bytes_of(board: &Board) -> SymmetryBytes {
    let mut t = Box::new([[[0u32; 256]; 3]; SYMMETRY_COUNT]);
    for (sym, bytes) in t.iter_mut().enumerate() {
        for (byte, table) in bytes.iter_mut().enumerate() {
            for (value, image) in table.iter_mut().enumerate() {
                for bit in 0..8 {
                    if value & (1 << bit) != 0 {
                        *image |= 1 << board.symmetries[sym][byte * 8 + bit];
                    }
                }
            }
        }
    }
    t
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

    /// The tables of `kind`, computed at compile time from the ring geometry, one table
    /// per stage below.
    const fn build(kind: BoardKind) -> Board {
        let (first_ring, cross_mills) = match kind {
            BoardKind::TwentyFour => (0u8, true),
            BoardKind::Sixteen => (1u8, false),
        };
        let last_ring = 2u8;
        let (points, adjacent, mut mills, mut mill_count) = ring_lines(first_ring, last_ring);
        if cross_mills {
            add_cross_mills(first_ring, last_ring, &mut mills, &mut mill_count);
        }
        let symmetries = symmetry_table(first_ring, last_ring);
        Board {
            kind,
            first_ring,
            cross_mills,
            points: Bitboard(points),
            adjacent,
            mills,
            mill_count,
            mills_through: mills_through_table(&mills, mill_count),
            neighbours: neighbour_table(&adjacent),
            symmetries,
            inverse: inverse_table(&symmetries),
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

    /// The points joined by a line to at least one point of `men`.
    #[inline]
    pub fn neighbours(&self, men: Bitboard) -> Bitboard {
        let m = men.0;
        Bitboard(
            self.neighbours[0][(m & 0xff) as usize].0
                | self.neighbours[1][((m >> 8) & 0xff) as usize].0
                | self.neighbours[2][((m >> 16) & 0xff) as usize].0,
        )
    }

    /// The men of `men` that can slide in direction `dir` (0..[`SLIDE_DIRECTIONS`]) onto a
    /// point of `empty` (which must lie on this board).
    #[inline]
    pub fn slide_sources(&self, dir: usize, men: Bitboard, empty: Bitboard) -> Bitboard {
        let e = empty.0;
        Bitboard(
            men.0
                & match dir {
                    0 => rotate_counter_clockwise(e),
                    1 => rotate_clockwise(e),
                    2 => (e >> 8) & MIDPOINTS,
                    _ => (e << 8) & MIDPOINTS,
                },
        )
    }

    /// The point a man on `from` reaches by sliding in direction `dir`; `from` must be one
    /// of [`Board::slide_sources`] for that direction.
    #[inline]
    pub fn slide_target(&self, dir: usize, from: Square) -> Square {
        Square::from_index_unchecked(SLIDE_TARGETS[dir * 32 + from.index()])
    }

    /// Every slide of `men` onto `empty` as one set: bit `32 * dir + from` is set when the
    /// man on `from` can slide in direction `dir`. One loop over this set emits all slides,
    /// with one loop exit to mispredict instead of one per direction or per man.
    #[inline]
    pub fn slides(&self, men: Bitboard, empty: Bitboard) -> u128 {
        let mut set = 0u128;
        let mut dir = 0;
        while dir < SLIDE_DIRECTIONS {
            set |= (self.slide_sources(dir, men, empty).0 as u128) << (32 * dir);
            dir += 1;
        }
        set
    }

    /// All mills of the board, each as the set of its three points.
    pub fn mills(&self) -> &[Bitboard] {
        &self.mills[..self.mill_count]
    }

    /// The mills through `sq` (at most two), each as the set of its three points.
    pub fn mills_through(&self, sq: Square) -> impl Iterator<Item = Bitboard> + '_ {
        self.mills_through[sq.index()]
            .into_iter()
            .filter(|m| m.0 != NO_MILL.0)
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
        // Ring sides by table, one byte per ring; cross lines where all three rings hold a
        // man at the same midpoint. No branches: completeness is random to a predictor.
        let m = men.0;
        let mut out = SIDE_MILL_MEN[(m & 0xff) as usize] as u32
            | (SIDE_MILL_MEN[((m >> 8) & 0xff) as usize] as u32) << 8
            | (SIDE_MILL_MEN[((m >> 16) & 0xff) as usize] as u32) << 16;
        if self.cross_mills {
            let cross = m & (m >> 8) & (m >> 16) & (MIDPOINTS & 0xff);
            out |= cross | cross << 8 | cross << 16;
        }
        Bitboard(out)
    }

    /// Dense index 0..len of a point, used by the action space and the input encoding.
    /// `sq` must be a point of this board ([`Board::has`]).
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
        let t = &self.symmetry_bytes()[sym];
        let b = bb.0 as usize;
        Bitboard(t[0][b & 0xff] | t[1][(b >> 8) & 0xff] | t[2][(b >> 16) & 0xff])
    }

    /// `[sym][byte][value]`: the image of the men that `value` places in byte `byte` of a
    /// bitboard, so a whole set maps in three lookups (canonical forms are computed for
    /// every leaf of a tree search).
    fn symmetry_bytes(&self) -> &'static SymmetryBytes {
        static TABLES: [LazyLock<SymmetryBytes>; 2] = [
            LazyLock::new(|| symmetry_bytes_of(Board::get(BoardKind::TwentyFour))),
            LazyLock::new(|| symmetry_bytes_of(Board::get(BoardKind::Sixteen))),
        ];
        match self.kind {
            BoardKind::TwentyFour => &TABLES[0],
            BoardKind::Sixteen => &TABLES[1],
        }
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
                let pair =
                    Bitboard::from_square(sq) | Bitboard::from_square(Square::new(20).unwrap());
                let union = b.adjacent(sq) | b.adjacent(Square::new(20).unwrap());
                assert_eq!(b.neighbours(pair), union);
            }
        }
    }

    #[test]
    fn men_in_mills_agrees_with_the_mill_list() {
        let mut x = 0x9E37_79B9u32;
        for kind in [BoardKind::TwentyFour, BoardKind::Sixteen] {
            let b = Board::get(kind);
            for _ in 0..20_000 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let men = Bitboard(x) & b.points();
                let naive: Bitboard = b
                    .mills()
                    .iter()
                    .filter(|&&m| men.contains_all(m))
                    .fold(Bitboard::EMPTY, |acc, &m| acc | m);
                assert_eq!(b.men_in_mills(men), naive, "{men:?}");
            }
        }
    }

    #[test]
    fn slide_directions_reach_exactly_the_adjacent_points() {
        for kind in [BoardKind::TwentyFour, BoardKind::Sixteen] {
            let b = Board::get(kind);
            for from in b.squares() {
                let me = Bitboard::from_square(from);
                let empty = b.points() & Bitboard(!me.0);
                let reached: Bitboard = (0..SLIDE_DIRECTIONS)
                    .filter(|&d| b.slide_sources(d, me, empty).any())
                    .map(|d| b.slide_target(d, from))
                    .collect();
                assert_eq!(reached, b.adjacent(from), "{from} on {kind:?}");
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
