//! Positions numbered within a subspace by combinatorial ranking, reduced by the board's
//! 16 symmetries (see [`Indexer`]).

use std::sync::OnceLock;

use kvarn_game::{Bitboard, Board, Color, Position, Rules, SYMMETRY_COUNT, Setup};

use crate::subspace::Subspace;

/// `BINOMIAL[n][k]` = n choose k, for n, k ≤ 24.
static BINOMIAL: [[u64; 25]; 25] = {
    let mut t = [[0u64; 25]; 25];
    let mut n = 0;
    while n < 25 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// n choose k.
pub fn choose(n: usize, k: usize) -> u64 {
    if k > n { 0 } else { BINOMIAL[n][k] }
}

/// `RANK_BYTES[k][v][t]`: what the set bits of byte `k` (value `v`) add to the colex rank
/// of a set of which `t` bits lie in the lower bytes (each bit at point p, the j-th of the
/// set, adds C(p, j)).
static RANK_BYTES: [[[u64; 25]; 256]; 3] = {
    let mut t = [[[0u64; 25]; 256]; 3];
    let mut k = 0;
    while k < 3 {
        let mut v = 0;
        while v < 256 {
            let mut before = 0;
            while before < 25 {
                let (mut sum, mut j, mut q) = (0u64, before + 1, 0);
                while q < 8 {
                    if v & (1 << q) != 0 {
                        let n = 8 * k + q;
                        if j <= n && j < 25 {
                            sum += BINOMIAL[n][j];
                        }
                        j += 1;
                    }
                    q += 1;
                }
                t[k][v][before] = sum;
                before += 1;
            }
            v += 1;
        }
        k += 1;
    }
    t
};

/// Colex rank of a set of bit positions among all sets of the same size.
fn rank(bits: u32) -> u64 {
    let (b0, b1, b2) = (
        (bits & 0xff) as usize,
        ((bits >> 8) & 0xff) as usize,
        ((bits >> 16) & 0xff) as usize,
    );
    let c0 = b0.count_ones() as usize;
    let c1 = c0 + b1.count_ones() as usize;
    RANK_BYTES[0][b0][0] + RANK_BYTES[1][b1][c0] + RANK_BYTES[2][b2][c1]
}

/// The `k`-element set of colex rank `r`.
fn unrank(mut r: u64, k: usize) -> u32 {
    let mut bits = 0;
    for i in (1..=k).rev() {
        // The largest p with C(p, i) <= r.
        let mut p = i - 1;
        while choose(p + 1, i) <= r {
            p += 1;
        }
        r -= choose(p, i);
        bits |= 1 << p;
    }
    bits
}

/// The bits of `x` at the positions of `mask`, packed to the low end: one instruction
/// (`pext`) where the processor has BMI2.
#[inline]
fn extract(x: u32, mask: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("bmi2") {
        // SAFETY: the processor has BMI2, checked just above.
        return unsafe { pext(x, mask) };
    }
    extract_by_bits(x, mask)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn pext(x: u32, mask: u32) -> u32 {
    core::arch::x86_64::_pext_u32(x, mask)
}

/// [`extract`] bit by bit.
fn extract_by_bits(x: u32, mask: u32) -> u32 {
    let (mut out, mut m, mut i) = (0, mask, 0);
    while m != 0 {
        let low = m & m.wrapping_neg();
        if x & low != 0 {
            out |= 1 << i;
        }
        m ^= low;
        i += 1;
    }
    out
}

/// The low bits of `x` spread to the positions of `mask` (the inverse of [`extract`]).
fn deposit(x: u32, mask: u32) -> u32 {
    let (mut out, mut m, mut i) = (0, mask, 0);
    while m != 0 {
        let low = m & m.wrapping_neg();
        if x & (1 << i) != 0 {
            out |= low;
        }
        m ^= low;
        i += 1;
    }
    out
}

/// Dense bits of the board's points (bit i = point of local index i).
fn dense(board: &Board, bb: Bitboard) -> u32 {
    bb.bits() >> (24 - board.len())
}

fn sparse(board: &Board, bits: u32) -> Bitboard {
    Bitboard::from_bits(bits << (24 - board.len())).expect("dense bits stay on the board")
}

/// The canonical White sets of one size, and how every White set maps onto one.
struct WhiteTable {
    /// Canonical sets (the least image under the 16 symmetries), in increasing order.
    canonical: Vec<u32>,
    /// For each set, by colex rank: the index of its canonical set and, as a bit mask, the
    /// symmetries that map it there (more than one when the canonical set is symmetric).
    by_rank: Vec<(u32, u16)>,
}

/// Numbers positions of one board within subspaces, up to the 16 board symmetries: the
/// rank of White's canonical set, times the number of Black sets, plus the rank of
/// Black's set among the free points, taken at its least over the symmetries that keep
/// White's set canonical. Every symmetry class of positions gets exactly one index;
/// indices of other arrangements are unused ([`Indexer::position_at`] answers `None`).
pub struct Indexer {
    board: &'static Board,
    /// `images[s][k][v]`: the image under symmetry `s` of the points of byte `k` of a dense
    /// set whose byte is `v`, so that a set's image is three lookups.
    images: Box<[[[u32; 256]; 3]; SYMMETRY_COUNT]>,
    tables: [OnceLock<WhiteTable>; 25],
}

impl Indexer {
    /// The indexer of a board.
    pub fn new(board: &'static Board) -> Indexer {
        let mut perm = [[0u8; 24]; SYMMETRY_COUNT];
        for (s, row) in perm.iter_mut().enumerate() {
            for sq in board.squares() {
                row[board.local_index(sq)] = board.local_index(board.map_square(s, sq)) as u8;
            }
        }
        let mut images = Box::new([[[0u32; 256]; 3]; SYMMETRY_COUNT]);
        for (s, row) in perm.iter().enumerate() {
            for k in 0..3 {
                for v in 0..256 {
                    images[s][k][v] = (0..8)
                        .filter(|q| v & (1 << q) != 0 && 8 * k + q < board.len())
                        .fold(0, |m, q| m | 1 << row[8 * k + q]);
                }
            }
        }
        Indexer {
            board,
            images,
            tables: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    fn transform(&self, sym: usize, bits: u32) -> u32 {
        let t = &self.images[sym];
        t[0][(bits & 0xff) as usize]
            | t[1][((bits >> 8) & 0xff) as usize]
            | t[2][((bits >> 16) & 0xff) as usize]
    }

    fn table(&self, whites: usize) -> &WhiteTable {
        self.tables[whites].get_or_init(|| {
            let n = self.board.len();
            let count = choose(n, whites) as usize;
            let mut canonical = Vec::new();
            let mut id_of_rank = vec![u32::MAX; count];
            let mut by_rank = Vec::with_capacity(count);
            for r in 0..count {
                let set = unrank(r as u64, whites);
                let least = (0..SYMMETRY_COUNT)
                    .map(|s| self.transform(s, set))
                    .min()
                    .unwrap_or(set);
                let mask = (0..SYMMETRY_COUNT)
                    .filter(|&s| self.transform(s, set) == least)
                    .fold(0u16, |m, s| m | 1 << s);
                if least == set {
                    id_of_rank[r] = canonical.len() as u32;
                    canonical.push(set);
                }
                // Colex order is numeric order, so the least image ranks no later than r.
                by_rank.push((id_of_rank[rank(least) as usize], mask));
            }
            WhiteTable { canonical, by_rank }
        })
    }

    /// Number of indices of a subspace.
    pub fn size(&self, s: &Subspace) -> usize {
        let n = self.board.len();
        self.table(s.w_on as usize).canonical.len()
            * choose(n - s.w_on as usize, s.b_on as usize) as usize
    }

    /// The index of the position with these men within its subspace.
    pub fn index_of_men(&self, white: Bitboard, black: Bitboard) -> usize {
        let n = self.board.len();
        let w = dense(self.board, white);
        let b = dense(self.board, black);
        let w_count = w.count_ones() as usize;
        let b_count = b.count_ones() as usize;
        let table = self.table(w_count);
        let (id, mut syms) = table.by_rank[rank(w) as usize];
        let free = !table.canonical[id as usize] & ((1u32 << n) - 1);
        let mut best = u64::MAX;
        while syms != 0 {
            let s = syms.trailing_zeros() as usize;
            syms &= syms - 1;
            best = best.min(rank(extract(self.transform(s, b), free)));
        }
        (id as u64 * choose(n - w_count, b_count) + best) as usize
    }

    /// The men of the representative at index `i` of the subspaces with `w_on` White and
    /// `b_on` Black men on the board; `None` for an unused index.
    pub fn men_at(&self, w_on: u8, b_on: u8, i: usize) -> Option<(Bitboard, Bitboard)> {
        let n = self.board.len();
        let per_white = choose(n - w_on as usize, b_on as usize);
        let table = self.table(w_on as usize);
        let w = *table.canonical.get(i / per_white as usize)?;
        let free = !w & ((1u32 << n) - 1);
        let b = deposit(unrank(i as u64 % per_white, b_on as usize), free);
        let (white, black) = (sparse(self.board, w), sparse(self.board, b));
        (self.index_of_men(white, black) == i).then_some((white, black))
    }

    /// The index of `pos` within its subspace.
    pub fn index_of(&self, pos: &Position) -> usize {
        self.index_of_men(pos.men(Color::White), pos.men(Color::Black))
    }

    /// The position with index `i` of subspace `s`: the representative of its symmetry
    /// class. `None` for an unused index or one that is not a position of the rules (a
    /// pending removal without a mill, say).
    pub fn position_at(&self, rules: &Rules, s: &Subspace, i: usize) -> Option<Position> {
        let n = self.board.len();
        let per_white = choose(n - s.w_on as usize, s.b_on as usize);
        let table = self.table(s.w_on as usize);
        let w = *table.canonical.get(i / per_white as usize)?;
        let free = !w & ((1u32 << n) - 1);
        let b = deposit(unrank(i as u64 % per_white, s.b_on as usize), free);
        if self.index_of_men(sparse(self.board, w), sparse(self.board, b)) != i {
            return None;
        }
        let setup = Setup {
            men: [sparse(self.board, w), sparse(self.board, b)],
            in_hand: [s.w_hand, s.b_hand],
            side: s.side,
            pending_removal: s.pending,
            no_capture: 0,
            turns: 0,
        };
        Position::from_setup(rules, &setup).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranking_is_a_bijection() {
        for (n, most) in [(12, 5), (24, 3)] {
            for k in 0..most {
                let total = choose(n, k);
                for r in 0..total {
                    let bits = unrank(r, k);
                    assert_eq!(bits.count_ones() as usize, k);
                    assert!(bits < 1 << n);
                    assert_eq!(rank(bits), r);
                }
            }
        }
        // The nine men of the last sets of 24 points: the byte tables reach their ends.
        let top = unrank(choose(24, 9) - 1, 9);
        assert_eq!(top, 0b1111_1111_1000_0000_0000_0000);
        assert_eq!(rank(top), choose(24, 9) - 1);
        assert_eq!(extract(0b1010_0110, 0b1111_0000), 0b1010);
        for (x, mask) in [
            (0xabcdefu32, 0xf0f0f0u32),
            (0x123456, 0xffffff),
            (0xffffff, 0x10101),
        ] {
            assert_eq!(extract(x, mask), extract_by_bits(x, mask));
        }
        assert_eq!(deposit(0b1010, 0b1111_0000), 0b1010_0000);
    }
}

#[cfg(test)]
mod symmetry_tests {
    use super::*;
    use kvarn_game::Variant;

    #[test]
    fn every_symmetry_class_has_one_index() {
        let rules = Rules::new(Variant::Six);
        let ix = Indexer::new(rules.board());
        let s = Subspace {
            w_on: 3,
            b_on: 2,
            w_hand: 3,
            b_hand: 4,
            side: Color::Black,
            pending: false,
        };
        let mut used = 0;
        for i in 0..ix.size(&s) {
            let Some(p) = ix.position_at(&rules, &s, i) else {
                continue;
            };
            used += 1;
            for sym in 0..SYMMETRY_COUNT {
                assert_eq!(ix.index_of(&p.transformed(&rules, sym)), i);
            }
        }
        // 16 choose 3 times 13 choose 2 arrangements, about a sixteenth of them up to symmetry.
        let all = choose(16, 3) * choose(13, 2);
        assert!(
            used as u64 * 16 >= all && (used as u64) < all / 8,
            "{used} of {all}"
        );
    }
}
