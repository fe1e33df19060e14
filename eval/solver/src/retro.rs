//! Retrograde analysis of the moving phase of one pair of men counts: White to move and
//! Black to move together, since slides lead from one to the other and back.
//!
//! Every position starts with a counter of its successors inside the pair. Results spread
//! backwards level by level, in order of distance: a position with a successor lost for
//! the opponent is won one decision later; one whose successors are all won for the
//! opponent is lost one decision after the slowest of them. Successors outside the pair
//! (a slide that closes a mill leads to a removal, already solved) enter as results at
//! their own distance. Whatever is left when no level has news is a draw.

use kvarn_game::{Bitboard, Color, Position};
use rayon::prelude::*;

use crate::solver::{NOT_A_POSITION, Solver};
use crate::subspace::Subspace;
use crate::unmove::for_each_origin;
use crate::value::{Value, terminal_value};

/// A result waiting at its distance: which side's table, which index, which value.
type Pending = (usize, u32, Value);

/// Solves the two subspaces of `unit` (White to move, Black to move; same counts, no men
/// in hand, no pending removal), returning their packed tables.
pub(super) fn solve_unit(solver: &Solver, unit: [Subspace; 2]) -> [Vec<u16>; 2] {
    let n = solver.indexer.size(&unit[0]);
    // The first look at every position, in parallel: terminal or not, successors inside
    // the pair (counted once per symmetry class), and what the moves leaving it give.
    let starts: [Vec<Start>; 2] = [0, 1].map(|side| {
        (0..n)
            .into_par_iter()
            .map(|i| first_look(solver, &unit[side], i))
            .collect()
    });
    let mut pair = Pair::new(n);
    pair.seed(&starts);
    pair.propagate(solver, &unit);
    pair.tables(&starts)
}

/// The two tables of a pair while results spread through them.
struct Pair {
    /// The value found so far, per side and index.
    value: [Vec<Option<Value>>; 2],
    /// Successor classes inside the pair not yet known to be won for the opponent.
    counter: [Vec<u16>; 2],
    /// The slowest loss among the successors known so far.
    slowest: [Vec<u16>; 2],
    /// Whether a move leaving the pair draws or wins.
    cannot_lose: [Vec<bool>; 2],
    /// Results waiting, by distance.
    levels: Vec<Vec<Pending>>,
}

impl Pair {
    fn new(n: usize) -> Self {
        Self {
            value: [vec![None; n], vec![None; n]],
            counter: [vec![0; n], vec![0; n]],
            slowest: [vec![0; n], vec![0; n]],
            cannot_lose: [vec![false; n], vec![false; n]],
            levels: Vec::new(),
        }
    }

    /// Takes in the first looks: finished games and the results that moves leaving the
    /// pair already decide are scheduled at their distance.
    fn seed(&mut self, starts: &[Vec<Start>; 2]) {
        for (side, starts) in starts.iter().enumerate() {
            for (i, st) in starts.iter().enumerate() {
                let at = |v| (side, i as u32, v);
                if let Some(v) = st.terminal {
                    schedule(&mut self.levels, distance(v), at(v));
                    continue;
                }
                self.counter[side][i] = st.counter;
                self.slowest[side][i] = st.slowest;
                self.cannot_lose[side][i] = st.cannot_lose;
                if let Some(d) = st.fastest_win {
                    schedule(&mut self.levels, d, at(Value::Win(d)));
                }
                if st.valid && st.counter == 0 && !st.cannot_lose {
                    schedule(&mut self.levels, st.slowest, at(Value::Loss(st.slowest)));
                }
            }
        }
    }

    /// Settles the levels in order of distance; a level may schedule results further on.
    fn propagate(&mut self, solver: &Solver, unit: &[Subspace; 2]) {
        let mut level = 0;
        while level < self.levels.len() {
            for (side, i, v) in std::mem::take(&mut self.levels[level]) {
                let i = i as usize;
                if self.value[side][i].is_none() {
                    self.value[side][i] = Some(v);
                    self.tell_predecessors(solver, &unit[side], side, i, v);
                }
            }
            level += 1;
        }
    }

    /// Passes the value `v` of position `i` of `side`'s table back to the positions of the
    /// other side's table that slide into it.
    fn tell_predecessors(
        &mut self,
        solver: &Solver,
        s: &Subspace,
        side: usize,
        i: usize,
        v: Value,
    ) {
        let rules = solver.rules;
        let ix = &solver.indexer;
        let pos = ix
            .position_at(&rules, s, i)
            .expect("scheduled positions exist");
        let prev = 1 - side;
        let mut before: Vec<usize> = Vec::new();
        for_each_predecessor(&rules, &pos, |white, black| {
            before.push(ix.index_of_men(white, black));
        });
        before.sort_unstable();
        before.dedup();
        for j in before {
            if self.value[prev][j].is_some() {
                continue;
            }
            let at = |v| (prev, j as u32, v);
            match v {
                Value::Loss(d) => schedule(&mut self.levels, d + 1, at(Value::Win(d + 1))),
                Value::Win(d) => {
                    self.counter[prev][j] -= 1;
                    self.slowest[prev][j] = self.slowest[prev][j].max(d + 1);
                    if self.counter[prev][j] == 0 && !self.cannot_lose[prev][j] {
                        let l = self.slowest[prev][j];
                        schedule(&mut self.levels, l, at(Value::Loss(l)));
                    }
                }
                // Draws are what is left at the end; none is ever scheduled.
                Value::Draw => {}
            }
        }
    }

    /// The packed tables, White to move first.
    fn tables(self, starts: &[Vec<Start>; 2]) -> [Vec<u16>; 2] {
        let [white, black] = self.value;
        [packed(white, &starts[0]), packed(black, &starts[1])]
    }
}

/// One side's packed table: unused indices stay marked as such; every other unresolved
/// position is a draw.
fn packed(values: Vec<Option<Value>>, starts: &[Start]) -> Vec<u16> {
    values
        .into_iter()
        .zip(starts)
        .map(|(v, st)| {
            if st.valid {
                v.unwrap_or(Value::Draw).pack()
            } else {
                NOT_A_POSITION
            }
        })
        .collect()
}

/// What the first look at a position finds.
#[derive(Clone, Copy, Default)]
struct Start {
    /// Whether the index is a position (not an unused index).
    valid: bool,
    /// The value of a finished game.
    terminal: Option<Value>,
    /// Successor classes inside the pair.
    counter: u16,
    /// The slowest loss among moves leaving the pair.
    slowest: u16,
    /// Whether a move leaving the pair draws or wins.
    cannot_lose: bool,
    /// The fastest win among moves leaving the pair.
    fastest_win: Option<u16>,
}

fn first_look(solver: &Solver, s: &Subspace, i: usize) -> Start {
    let rules = solver.rules;
    let Some(pos) = solver.indexer.position_at(&rules, s, i) else {
        return Start::default();
    };
    let mut st = Start {
        valid: true,
        terminal: terminal_value(&rules, &pos),
        ..Start::default()
    };
    if st.terminal.is_some() {
        return st;
    }
    let mut inside: Vec<usize> = Vec::new();
    for &m in pos.legal_moves(&rules).iter() {
        let mut next = pos;
        next.play_unchecked(&rules, m);
        let outside = if next.pending_removal() {
            // The removal subspaces are solved before the pair (see the plans).
            Some(
                solver
                    .value(&next)
                    .expect("removals lead to subspaces solved before the pair"),
            )
        } else {
            terminal_value(&rules, &next)
        };
        match outside {
            None => inside.push(solver.indexer.index_of(&next)),
            Some(v) => match v.back(next.side_to_move() == pos.side_to_move()) {
                Value::Win(d) => {
                    st.cannot_lose = true;
                    st.fastest_win = Some(st.fastest_win.map_or(d, |f| f.min(d)));
                }
                Value::Draw => st.cannot_lose = true,
                Value::Loss(d) => st.slowest = st.slowest.max(d),
            },
        }
    }
    inside.sort_unstable();
    inside.dedup();
    st.counter = inside.len() as u16;
    st
}

/// Puts `item` in the level of distance `d`.
fn schedule(levels: &mut Vec<Vec<Pending>>, d: u16, item: Pending) {
    let d = d as usize;
    if levels.len() <= d {
        levels.resize_with(d + 1, Vec::new);
    }
    levels[d].push(item);
}

fn distance(v: Value) -> u16 {
    match v {
        Value::Win(d) | Value::Loss(d) => d,
        Value::Draw => 0,
    }
}

/// Calls `f(white, black)` for each position from which the previous mover reached `pos`
/// by a slide or fly that closed no mill.
fn for_each_predecessor(
    rules: &kvarn_game::Rules,
    pos: &Position,
    mut f: impl FnMut(Bitboard, Bitboard),
) {
    let mover = pos.side_to_move().opposite();
    let other = pos.men(mover.opposite());
    for_each_origin(rules, pos.men(mover), other, |moved| match mover {
        Color::White => f(moved, other),
        Color::Black => f(other, moved),
    });
}
