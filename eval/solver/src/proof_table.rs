//! A transposition table of fixed size for the placing search: what is proved of a
//! position (its value, or a bound on it) under the position's exact 58-bit key, so that
//! no two positions ever share an entry. One 64-bit word an entry, written atomically,
//! lets several threads search over one table without locks; a full bucket gives up the
//! entry with the most men on the board, the cheapest to prove again.

use std::sync::atomic::{AtomicU64, Ordering};

/// Entries a bucket holds: a bucket is half a cache line.
const WAYS: usize = 4;
/// Bits below the key: the value (2) and the kind of bound (2).
const KEY_SHIFT: u32 = 6;

/// What the table knows of a position's value for the player to move: exactly, at least
/// or at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The value itself.
    Exact,
    /// The value is at least the one stored.
    AtLeast,
    /// The value is at most the one stored.
    AtMost,
}

/// Proved values by exact position key, in a fixed amount of memory.
pub struct ProofTable {
    slots: Vec<AtomicU64>,
    buckets: usize,
}

impl ProofTable {
    /// A table of about `bytes` (at least one bucket; the bucket count a power of two).
    pub fn with_bytes(bytes: usize) -> ProofTable {
        let wanted = (bytes / (8 * WAYS)).max(1);
        let buckets = if wanted.is_power_of_two() {
            wanted
        } else {
            wanted.next_power_of_two() / 2
        };
        ProofTable {
            slots: zeroed_atomics(buckets * WAYS),
            buckets,
        }
    }

    /// Memory the table takes, in bytes.
    pub fn bytes(&self) -> usize {
        self.slots.len() * 8
    }

    /// What is stored for `key` (a [`kvarn_game::Position::key`], never 0).
    pub fn get(&self, key: u64) -> Option<(i8, Bound)> {
        self.bucket(key)
            .iter()
            .map(|s| s.load(Ordering::Relaxed))
            .find(|&e| e >> KEY_SHIFT == key)
            .map(decode)
    }

    /// Stores `value` with its `bound` for `key`, over what was stored for it, else in an
    /// empty slot, else over the entry with the most men on the board.
    pub fn put(&self, key: u64, value: i8, bound: Bound) {
        let bucket = self.bucket(key);
        let entries: [u64; WAYS] = std::array::from_fn(|i| bucket[i].load(Ordering::Relaxed));
        let slot = entries
            .iter()
            .position(|&e| e >> KEY_SHIFT == key)
            .or_else(|| entries.iter().position(|&e| e == 0))
            .unwrap_or_else(|| {
                (0..WAYS)
                    .max_by_key(|&i| men_on_board(entries[i] >> KEY_SHIFT))
                    .unwrap_or(0)
            });
        bucket[slot].store(encode(key, value, bound), Ordering::Relaxed);
    }

    /// Entries in use, counted (for reports).
    pub fn used(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.load(Ordering::Relaxed) != 0)
            .count()
    }

    fn bucket(&self, key: u64) -> &[AtomicU64] {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20;
        let b = (h as usize) & (self.buckets - 1);
        &self.slots[b * WAYS..(b + 1) * WAYS]
    }
}

// A vector of `u64` is one of `AtomicU64` only where their layouts agree.
const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());

/// `n` atomics at 0 from the allocator's zeroed pages, so that a table of gigabytes costs
/// nothing until its entries are used (building one entry by entry writes every page).
fn zeroed_atomics(n: usize) -> Vec<AtomicU64> {
    let mut zeroed = std::mem::ManuallyDrop::new(vec![0u64; n]);
    let (ptr, len, cap) = (zeroed.as_mut_ptr(), zeroed.len(), zeroed.capacity());
    // SAFETY: `AtomicU64` has the size and bit validity of `u64` (its documentation), and
    // the alignment too (asserted above); the allocation is handed over whole, once.
    unsafe { Vec::from_raw_parts(ptr.cast::<AtomicU64>(), len, cap) }
}

/// Men on the board of a position key (its two 24-bit point sets).
fn men_on_board(key: u64) -> u32 {
    (key & 0xFFFF_FFFF_FFFF).count_ones()
}

fn encode(key: u64, value: i8, bound: Bound) -> u64 {
    let b = match bound {
        Bound::Exact => 0,
        Bound::AtLeast => 1,
        Bound::AtMost => 2,
    };
    key << KEY_SHIFT | b << 2 | (value + 1) as u64
}

fn decode(entry: u64) -> (i8, Bound) {
    let bound = match (entry >> 2) & 3 {
        0 => Bound::Exact,
        1 => Bound::AtLeast,
        _ => Bound::AtMost,
    };
    ((entry & 3) as i8 - 1, bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_come_back_exactly_and_full_buckets_give_up_the_most_men() {
        let t = ProofTable::with_bytes(64);
        assert_eq!(t.buckets, 2);
        t.put(0b111, 1, Bound::AtLeast);
        assert_eq!(t.get(0b111), Some((1, Bound::AtLeast)));
        t.put(0b111, -1, Bound::Exact);
        assert_eq!(t.get(0b111), Some((-1, Bound::Exact)));
        assert_eq!(t.get(0b1011), None);
        // Fill every slot of the bucket of key 1 << 50 (no men) and then some: the keys
        // with men go first.
        let same_bucket: Vec<u64> = (1u64..4096)
            .map(|k| k | 1 << 50)
            .filter(|&k| std::ptr::eq(t.bucket(k).as_ptr(), t.bucket(1 << 50).as_ptr()))
            .take(WAYS + 1)
            .collect();
        t.put(1 << 50, 0, Bound::Exact);
        for &k in &same_bucket {
            t.put(k, 0, Bound::AtMost);
        }
        assert_eq!(t.get(1 << 50), Some((0, Bound::Exact)));
    }
}
