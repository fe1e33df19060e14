//! The moving phase solved lean: win/draw/loss in two bits a position, with the number of
//! turns to the next removal in one byte, so that the units of Nine Men's Morris with up
//! to nine men a side fit a machine of a few gigabytes (the distance tables of
//! [`crate::Solver`] take two bytes a position and keep counters and queues besides).
//!
//! A unit holds the positions with White to move and no men in hand, by men on the board
//! ([`Unit`]); a position with Black to move is its colour-swapped twin in the unit of the
//! swapped counts, so no table is kept twice. A slide that closes no mill leads from unit
//! (a, b) to unit (b, a); the two are solved together by retrograde analysis with a
//! counter of successor classes a position, level by level in turns to the next removal,
//! the levels kept as bitmaps. A slide that closes a mill leaves the pair: its value is
//! the best removal's, read from the units with one man fewer, solved before.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use kvarn_game::{Bitboard, Outcome, Rules};
use rayon::prelude::*;

use crate::index::Indexer;
use crate::subspace::Subspace;
use crate::unmove::for_each_origin;

/// The positions with White to move, `white` and `black` men on the board and none in
/// hand, no removal pending.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unit {
    /// Men of the player to move.
    pub white: u8,
    /// Men of the other player.
    pub black: u8,
}

impl Unit {
    /// The unit of a position's colour-swapped twin with the other player to move.
    pub fn swapped(self) -> Unit {
        Unit {
            white: self.black,
            black: self.white,
        }
    }

    /// The indexer's subspace of the unit.
    pub fn subspace(self) -> Subspace {
        Subspace::moving(self.white, self.black, kvarn_game::Color::White, false)
    }
}

/// Two-bit codes: what a packed table holds.
const DRAW: u8 = 0;
const WIN: u8 = 1;
const LOSS: u8 = 2;
/// An index that is no position (not its symmetry class's representative).
const UNUSED: u8 = 3;
/// While solving: not yet known (a draw if still unknown at the end).
const UNKNOWN: u8 = 0;
/// While solving, beside the value: a move leaving the pair draws, so the position cannot
/// be lost.
const CANNOT_LOSE: u8 = 4;

fn decode(code: u8) -> Option<Outcome> {
    match code {
        DRAW => Some(Outcome::Draw),
        WIN => Some(Outcome::Win),
        LOSS => Some(Outcome::Loss),
        _ => None,
    }
}

/// A solved unit: values packed four to a byte, turns to the next removal a byte each
/// (saturating at 255; 0 for positions that are draws or no positions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WdlTable {
    /// The unit.
    pub unit: Unit,
    /// Number of indices.
    pub len: usize,
    /// Two bits an index.
    pub packed: Vec<u8>,
    /// Turns to the next removal under perfect play (fastest for the winner, slowest for
    /// the loser), by index; empty where only the values are kept in memory.
    pub to_removal: Vec<u8>,
}

impl WdlTable {
    /// The value at index `i`; `None` for an unused index.
    pub fn get(&self, i: usize) -> Option<Outcome> {
        decode(self.code(i))
    }

    fn code(&self, i: usize) -> u8 {
        (self.packed[i / 4] >> (2 * (i % 4))) & 3
    }

    /// The most turns to the next removal of a won and of a lost position (0 where there
    /// is none, or the turns are not in memory).
    pub fn longest(&self) -> [u8; 2] {
        let mut most = [0u8; 2];
        for (i, &t) in self.to_removal.iter().enumerate() {
            match self.get(i) {
                Some(Outcome::Win) => most[0] = most[0].max(t),
                Some(Outcome::Loss) => most[1] = most[1].max(t),
                _ => {}
            }
        }
        most
    }

    /// SHA-256 of the table (its packed values, then its turns to the next removal), in
    /// hexadecimal: what a rebuild must reproduce bit for bit. Only while the turns are in
    /// memory; `None` after [`WdlSolver::keep_values_only`].
    pub fn digest(&self) -> Option<String> {
        use sha2::{Digest, Sha256};
        if self.to_removal.len() != self.len {
            return None;
        }
        let mut h = Sha256::new();
        h.update(&self.packed);
        h.update(&self.to_removal);
        Some(format!("{:x}", h.finalize()))
    }

    /// Wins, draws and losses.
    pub fn counts(&self) -> [u64; 3] {
        let mut c = [0u64; 3];
        for i in 0..self.len {
            match self.get(i) {
                Some(Outcome::Win) => c[0] += 1,
                Some(Outcome::Draw) => c[1] += 1,
                Some(Outcome::Loss) => c[2] += 1,
                None => {}
            }
        }
        c
    }
}

/// The tables solved so far, and what a solve needs of the rules.
pub struct WdlSolver {
    rules: Rules,
    indexer: Indexer,
    tables: std::collections::BTreeMap<Unit, WdlTable>,
}

/// One side of a pair while it is solved.
struct Side {
    unit: Unit,
    /// Value code and [`CANNOT_LOSE`], by index.
    state: Vec<AtomicU8>,
    /// Successor classes in the pair not yet known to be won for the opponent.
    counter: Vec<AtomicU8>,
    to_removal: Vec<AtomicU8>,
    /// Positions decided at the level being passed back, and at the next.
    current: Vec<AtomicU64>,
    next: Vec<AtomicU64>,
}

impl Side {
    fn new(unit: Unit, len: usize) -> Side {
        let atomics = |n: usize| (0..n).map(|_| AtomicU8::new(0)).collect::<Vec<_>>();
        let bits = |n: usize| {
            (0..n.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect::<Vec<_>>()
        };
        Side {
            unit,
            state: atomics(len),
            counter: atomics(len),
            to_removal: atomics(len),
            current: bits(len),
            next: bits(len),
        }
    }

    fn mark(level: &[AtomicU64], i: usize) {
        level[i / 64].fetch_or(1 << (i % 64), Ordering::Relaxed);
    }

    /// Sets an unknown position to `code` at `turns`, marking it in `level`; false where it
    /// was known already.
    fn decide(&self, i: usize, code: u8, turns: u32, level: &[AtomicU64]) -> bool {
        let s = &self.state[i];
        let mut old = s.load(Ordering::Relaxed);
        loop {
            if old & 3 != UNKNOWN {
                return false;
            }
            match s.compare_exchange_weak(old, old | code, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => break,
                Err(now) => old = now,
            }
        }
        self.to_removal[i].store(turns.min(255) as u8, Ordering::Relaxed);
        Side::mark(level, i);
        true
    }
}

/// Indices of a position's successor or predecessor classes, on the stack: a position has
/// at most 3 × 21 flights or 9 × 4 slides.
struct Classes {
    items: [u32; 64],
    len: usize,
}

impl Classes {
    fn new() -> Classes {
        Classes {
            items: [0; 64],
            len: 0,
        }
    }

    fn push(&mut self, i: usize) {
        self.items[self.len] = i as u32;
        self.len += 1;
    }

    /// Each class once.
    fn distinct(&mut self) -> &[u32] {
        let items = &mut self.items[..self.len];
        items.sort_unstable();
        let mut n = 0;
        for k in 0..items.len() {
            if k == 0 || items[k] != items[n - 1] {
                items[n] = items[k];
                n += 1;
            }
        }
        &self.items[..n]
    }
}

/// What the first look at a position finds.
struct FirstLook {
    /// A move that leaves the pair (a mill and its best removal) wins.
    exit_win: bool,
    /// A move that leaves the pair draws.
    exit_draw: bool,
    /// Successor classes inside the pair.
    inside: usize,
    /// Any legal move at all.
    moves: bool,
}

impl WdlSolver {
    /// A solver for `rules` with nothing solved.
    pub fn new(rules: Rules) -> WdlSolver {
        WdlSolver {
            rules,
            indexer: Indexer::new(rules.board()),
            tables: std::collections::BTreeMap::new(),
        }
    }

    /// The rules the tables hold for.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The numbering of positions within units.
    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// The solved table of `unit`, if any.
    pub fn table(&self, unit: Unit) -> Option<&WdlTable> {
        self.tables.get(&unit)
    }

    /// Drops a solved unit's turns to the next removal from memory, keeping its values
    /// (what later units read): the turns are in its file.
    pub fn keep_values_only(&mut self, unit: Unit) {
        if let Some(t) = self.tables.get_mut(&unit) {
            t.to_removal = Vec::new();
        }
    }

    /// Adds a table solved before (read from a file).
    pub fn insert(&mut self, table: WdlTable) {
        self.tables.insert(table.unit, table);
    }

    /// The number of indices of `unit`.
    pub fn size(&self, unit: Unit) -> usize {
        self.indexer.size(&unit.subspace())
    }

    /// The units from 3 against 3 up to `max_men` a side, in an order where every unit
    /// comes after those its mills lead to (one man fewer) and with its twin of swapped
    /// counts (which slides lead to); each pair once, its lesser unit first.
    pub fn plan(max_men: u8) -> Vec<(Unit, Unit)> {
        let mut pairs = Vec::new();
        for total in 6..=2 * max_men {
            for a in 3..=max_men {
                let Some(b) = total.checked_sub(a) else {
                    continue;
                };
                if (3..=max_men).contains(&b) && a <= b {
                    pairs.push((Unit { white: a, black: b }, Unit { white: b, black: a }));
                }
            }
        }
        pairs
    }

    /// The value of the position with White men `white` and Black men `black`, White to
    /// move, if its unit is solved.
    pub fn value_of(&self, white: Bitboard, black: Bitboard) -> Option<Outcome> {
        let (unit, i) = self.locate(white, black);
        self.tables.get(&unit)?.get(i)
    }

    /// Where the position with men `mover` (the player to move, White in the tables) and
    /// `other` stands: its unit and its index there.
    pub fn locate(&self, mover: Bitboard, other: Bitboard) -> (Unit, usize) {
        let unit = Unit {
            white: mover.count() as u8,
            black: other.count() as u8,
        };
        (unit, self.indexer.index_of_men(mover, other))
    }

    /// Solves the pair `(unit, unit.swapped())`, whose units with one man fewer must be
    /// solved, and keeps both tables.
    pub fn solve_pair(&mut self, unit: Unit) {
        let units = if unit.white == unit.black {
            vec![unit]
        } else {
            vec![unit, unit.swapped()]
        };
        let mut sides: Vec<Side> = units.iter().map(|&u| Side::new(u, self.size(u))).collect();
        self.first_look(&sides);
        // Level by level, until a level decides nothing at the next.
        for level in 0.. {
            self.pass_back(&sides, level);
            for side in &mut sides {
                std::mem::swap(&mut side.current, &mut side.next);
            }
            let more = sides
                .iter()
                .any(|s| s.current.iter().any(|w| w.load(Ordering::Relaxed) != 0));
            if !more {
                break;
            }
        }
        for side in sides {
            let table = finish(side);
            self.tables.insert(table.unit, table);
        }
    }

    /// The partner of side `k`: the side slides of its positions lead to.
    fn partner(sides: &[Side], k: usize) -> usize {
        if sides.len() == 1 { 0 } else { 1 - k }
    }

    /// Counts every position's successors, decides what its moves leaving the pair and its
    /// lack of moves decide, and marks those decisions at their levels (0: no move, lost;
    /// 1: a mill whose removal wins, or every move a mill whose removal loses).
    fn first_look(&self, sides: &[Side]) {
        for (k, side) in sides.iter().enumerate() {
            let partner = &sides[Self::partner(sides, k)];
            (0..side.state.len()).into_par_iter().for_each(|i| {
                let Some((white, black)) = self.indexer.men_at(side.unit.white, side.unit.black, i)
                else {
                    side.state[i].store(UNUSED, Ordering::Relaxed);
                    return;
                };
                let look = self.look(white, black, partner.unit);
                debug_assert!(look.inside < 256, "{} successor classes", look.inside);
                side.counter[i].store(look.inside as u8, Ordering::Relaxed);
                if look.exit_draw {
                    side.state[i].fetch_or(CANNOT_LOSE, Ordering::Relaxed);
                }
                if !look.moves {
                    side.decide(i, LOSS, 0, &side.current);
                } else if look.exit_win {
                    side.decide(i, WIN, 1, &side.next);
                } else if look.inside == 0 && !look.exit_draw {
                    side.decide(i, LOSS, 1, &side.next);
                }
            });
        }
    }

    /// White's moves in the position (`white`, `black`): what leaving the pair gives and
    /// how many classes of positions inside it (of `partner`, the swapped unit) they reach.
    fn look(&self, white: Bitboard, black: Bitboard, partner: Unit) -> FirstLook {
        let board = self.rules.board();
        let empty = board.points() & !(white | black);
        let flying = self.rules.flying() && white.count() == 3;
        let mut look = FirstLook {
            exit_win: false,
            exit_draw: false,
            inside: 0,
            moves: false,
        };
        let mut inside = Classes::new();
        for from in white {
            let targets = if flying {
                empty
            } else {
                board.adjacent(from) & empty
            };
            for to in targets {
                look.moves = true;
                let moved = white ^ Bitboard::from_square(from) ^ Bitboard::from_square(to);
                if board.closes_mill(moved, to) {
                    match self.best_removal(moved, black) {
                        Outcome::Win => look.exit_win = true,
                        Outcome::Draw => look.exit_draw = true,
                        Outcome::Loss => {}
                    }
                } else {
                    debug_assert_eq!(black.count() as u8, partner.white);
                    inside.push(self.indexer.index_of_men(black, moved));
                }
            }
        }
        look.inside = inside.distinct().len();
        look
    }

    /// The value for White, who has just closed a mill with men `white`, of its best
    /// removal of a man of `black`: a win where Black is left with two men, else the
    /// negated value of the position with Black to move, read from the unit with one
    /// Black man fewer.
    fn best_removal(&self, white: Bitboard, black: Bitboard) -> Outcome {
        if black.count() <= 3 {
            return Outcome::Win;
        }
        let board = self.rules.board();
        let in_mills = board.men_in_mills(black);
        let removable = if in_mills == black {
            black
        } else {
            black & !in_mills
        };
        let mut best = Outcome::Loss;
        for r in removable {
            let left = black ^ Bitboard::from_square(r);
            let theirs = self
                .value_of(left, white)
                .expect("the units with one man fewer are solved first");
            match theirs.negate() {
                Outcome::Win => return Outcome::Win,
                Outcome::Draw => best = Outcome::Draw,
                Outcome::Loss => {}
            }
        }
        best
    }

    /// Passes the positions decided at `level` back to their predecessors, deciding some at
    /// `level + 1`.
    fn pass_back(&self, sides: &[Side], level: u32) {
        for (k, side) in sides.iter().enumerate() {
            let partner = &sides[Self::partner(sides, k)];
            side.current.par_iter().enumerate().for_each(|(w, word)| {
                let mut bits = word.swap(0, Ordering::Relaxed);
                while bits != 0 {
                    let i = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    self.tell_predecessors(side, i, partner, level);
                }
            });
        }
    }

    /// The predecessors (in `partner`) of position `i` of `side`, decided at `level`: a
    /// loss makes each a win; a win takes one from each counter, and a counter at zero
    /// makes a loss unless a move leaving the pair draws.
    fn tell_predecessors(&self, side: &Side, i: usize, partner: &Side, level: u32) {
        let code = side.state[i].load(Ordering::Relaxed) & 3;
        let (white, black) = self
            .indexer
            .men_at(side.unit.white, side.unit.black, i)
            .expect("decided positions exist");
        let mut before = Classes::new();
        // Black moved last: each of its origins, White to move after the colours swap.
        for_each_origin(&self.rules, black, white, |origin| {
            before.push(self.indexer.index_of_men(origin, white));
        });
        for &j in before.distinct() {
            let j = j as usize;
            match code {
                LOSS => {
                    partner.decide(j, WIN, level + 1, &partner.next);
                }
                WIN => {
                    let left = partner.counter[j]
                        .fetch_sub(1, Ordering::Relaxed)
                        .wrapping_sub(1);
                    let state = partner.state[j].load(Ordering::Relaxed);
                    if left == 0 && state & CANNOT_LOSE == 0 {
                        partner.decide(j, LOSS, level + 1, &partner.next);
                    }
                }
                _ => {}
            }
        }
    }
}

/// The table of a solved side: unknown positions are draws. The side's working arrays
/// are given back as the table is made, so that a large unit does not hold both.
fn finish(side: Side) -> WdlTable {
    let Side {
        unit,
        state,
        counter,
        to_removal,
        current,
        next,
    } = side;
    drop((counter, current, next));
    let len = state.len();
    let mut packed = vec![0u8; len.div_ceil(4)];
    for (i, s) in state.iter().enumerate() {
        packed[i / 4] |= (s.load(Ordering::Relaxed) & 3) << (2 * (i % 4));
    }
    drop(state);
    // In place (an atomic byte is a byte); only wins and losses were given turns, so
    // draws and unused indices keep 0.
    let to_removal: Vec<u8> = to_removal.into_iter().map(AtomicU8::into_inner).collect();
    WdlTable {
        unit,
        len,
        packed,
        to_removal,
    }
}
