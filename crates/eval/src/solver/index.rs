//! Positions numbered within a subspace by combinatorial ranking: the rank of White's
//! point set among the board's `n` points, times the number of Black sets, plus the rank
//! of Black's set among the `n - w` points White leaves free.

use kvarn_game::{Bitboard, Board, Color, Position, Rules, Setup};

use super::Subspace;

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

/// Colex rank of a set of bit positions among all sets of the same size.
fn rank(mut bits: u32) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while bits != 0 {
        let p = bits.trailing_zeros() as usize;
        r += choose(p, i);
        bits &= bits - 1;
        i += 1;
    }
    r
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

/// The bits of `x` at the positions of `mask`, packed to the low end.
fn extract(x: u32, mask: u32) -> u32 {
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

/// Number of positions in a subspace.
pub fn size(board: &Board, s: &Subspace) -> usize {
    let n = board.len();
    (choose(n, s.w_on as usize) * choose(n - s.w_on as usize, s.b_on as usize)) as usize
}

/// Dense bits of the board's points (bit i = point of local index i).
fn dense(board: &Board, bb: Bitboard) -> u32 {
    bb.bits() >> (24 - board.len())
}

fn sparse(board: &Board, bits: u32) -> Bitboard {
    Bitboard::from_bits(bits << (24 - board.len())).expect("dense bits stay on the board")
}

/// The index of `pos` within its subspace.
pub fn index_of(board: &Board, pos: &Position) -> usize {
    index_of_men(board, pos.men(Color::White), pos.men(Color::Black))
}

/// The index of the position with these men within its subspace.
pub fn index_of_men(board: &Board, white: Bitboard, black: Bitboard) -> usize {
    let n = board.len();
    let w = dense(board, white);
    let b = dense(board, black);
    let free = !w & ((1u32 << n) - 1);
    let b_count = b.count_ones() as usize;
    let w_count = w.count_ones() as usize;
    (rank(w) * choose(n - w_count, b_count) + rank(extract(b, free))) as usize
}

/// The position with index `i` of subspace `s`, or `None` when it is not a position of the
/// rules (a pending removal without a mill, say).
pub fn position_at(rules: &Rules, s: &Subspace, i: usize) -> Option<Position> {
    let board = rules.board();
    let n = board.len();
    let per_white = choose(n - s.w_on as usize, s.b_on as usize);
    let w = unrank(i as u64 / per_white, s.w_on as usize);
    let free = !w & ((1u32 << n) - 1);
    let b = deposit(unrank(i as u64 % per_white, s.b_on as usize), free);
    let setup = Setup {
        men: [sparse(board, w), sparse(board, b)],
        in_hand: [s.w_hand, s.b_hand],
        side: s.side,
        pending_removal: s.pending,
        no_capture: 0,
        turns: 0,
    };
    Position::from_setup(rules, &setup).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranking_is_a_bijection() {
        for k in 0..5 {
            let total = choose(12, k);
            for r in 0..total {
                let bits = unrank(r, k);
                assert_eq!(bits.count_ones() as usize, k);
                assert!(bits < 1 << 12);
                assert_eq!(rank(bits), r);
            }
        }
        assert_eq!(extract(0b1010_0110, 0b1111_0000), 0b1010);
        assert_eq!(deposit(0b1010, 0b1111_0000), 0b1010_0000);
    }
}
