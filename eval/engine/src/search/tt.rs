//! The transposition table: a fixed-size hash table of search results, shared between
//! search threads without locks (each entry stores its key XOR its data, so a torn
//! write is detected and ignored).

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The exact value.
    Exact,
    /// At least this (the search failed high).
    Lower,
    /// At most this (the search failed low).
    Upper,
}

/// A search result found in the table.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Action index of the best move, if one was found.
    pub action: Option<u16>,
    /// Score, with mate distances relative to the stored node.
    pub score: i32,
    /// Remaining depth the score was searched to.
    pub depth: i32,
    /// How the score bounds the value.
    pub bound: Bound,
}

/// The table.
pub struct Tt {
    entries: Vec<[AtomicU64; 2]>,
    generation: AtomicU8,
}

impl Tt {
    /// A table of about `megabytes` MiB (at least 1024 entries, a power of two).
    pub fn new(megabytes: usize) -> Tt {
        let wanted = ((megabytes.max(1) << 20) / 16).max(1024);
        let n = if wanted.is_power_of_two() {
            wanted
        } else {
            wanted.next_power_of_two() / 2
        };
        Tt {
            entries: (0..n)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
            generation: AtomicU8::new(0),
        }
    }

    /// Forgets everything (a new game).
    pub fn clear(&self) {
        for e in &self.entries {
            e[0].store(0, Ordering::Relaxed);
            e[1].store(0, Ordering::Relaxed);
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Marks entries stored from now on as newer (a new search).
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    fn slot(&self, key: u64) -> &[AtomicU64; 2] {
        &self.entries[(key as usize) & (self.entries.len() - 1)]
    }

    /// The entry for `key`, if one is stored.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let slot = self.slot(key);
        let data = slot[1].load(Ordering::Relaxed);
        let check = slot[0].load(Ordering::Relaxed);
        if data == 0 || check ^ data != key {
            return None;
        }
        let action = (data & 0xFFFF) as u16;
        Some(Entry {
            action: action.checked_sub(1),
            score: ((data >> 16) & 0xFFFF) as u16 as i16 as i32,
            depth: ((data >> 32) & 0xFF) as i32,
            bound: match (data >> 40) & 3 {
                0 => Bound::Exact,
                1 => Bound::Lower,
                _ => Bound::Upper,
            },
        })
    }

    /// Stores a result, replacing an entry of another position, an older search or a
    /// shallower depth.
    #[inline]
    pub fn store(&self, key: u64, action: Option<u16>, score: i32, depth: i32, bound: Bound) {
        let slot = self.slot(key);
        let generation = self.generation.load(Ordering::Relaxed) as u64;
        let old = slot[1].load(Ordering::Relaxed);
        if old != 0 && slot[0].load(Ordering::Relaxed) ^ old == key {
            let old_depth = ((old >> 32) & 0xFF) as i32;
            let old_gen = (old >> 48) & 0xFF;
            if old_gen == generation && old_depth > depth && bound != Bound::Exact {
                return;
            }
        }
        let action = action.map_or(0, |a| a as u64 + 1);
        let score = (score.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16) as u64;
        let depth = depth.clamp(0, 255) as u64;
        let bound = match bound {
            Bound::Exact => 0,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        let data = action | score << 16 | depth << 32 | bound << 40 | generation << 48;
        slot[0].store(key ^ data, Ordering::Relaxed);
        slot[1].store(data, Ordering::Relaxed);
    }
}
