//! Zobrist keys: fixed pseudo-random numbers whose XOR identifies a position, so that
//! search tables can be keyed by a hash updated in O(1) per move.

use crate::square::Square;

/// SplitMix64, evaluated at compile time: fixed keys, the same on every machine.
const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// Keys for every (colour, square), (colour, men in hand), side and pending removal.
pub(crate) struct Keys {
    pub men: [[u64; Square::COUNT]; 2],
    pub hand: [[u64; 16]; 2],
    pub black_to_move: u64,
    pub pending_removal: u64,
}

pub(crate) static KEYS: Keys = {
    let mut state = 0x4B76_6172_6E00_0001u64; // "Kvarn"
    let mut men = [[0u64; Square::COUNT]; 2];
    let mut hand = [[0u64; 16]; 2];
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < Square::COUNT {
            let (s, k) = splitmix(state);
            state = s;
            men[c][i] = k;
            i += 1;
        }
        let mut h = 0;
        while h < 16 {
            let (s, k) = splitmix(state);
            state = s;
            hand[c][h] = k;
            h += 1;
        }
        c += 1;
    }
    let (s, black_to_move) = splitmix(state);
    let (_, pending_removal) = splitmix(s);
    Keys {
        men,
        hand,
        black_to_move,
        pending_removal,
    }
};
