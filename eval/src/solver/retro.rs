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

use super::{Solver, Subspace, Value, terminal_value};

/// A result waiting at its distance: which side's table, which index, which value.
type Pending = (usize, u32, Value);

/// Solves the two subspaces of `unit` (White to move, Black to move; same counts, no men
/// in hand, no pending removal), returning their packed tables.
pub(super) fn solve_unit(solver: &Solver, unit: [Subspace; 2]) -> [Vec<u16>; 2] {
    let rules = solver.rules;
    let ix = &solver.indexer;
    let n = ix.size(&unit[0]);
    let mut value: [Vec<Option<Value>>; 2] = [vec![None; n], vec![None; n]];
    let mut counter: [Vec<u16>; 2] = [vec![0; n], vec![0; n]];
    let mut slowest: [Vec<u16>; 2] = [vec![0; n], vec![0; n]];
    let mut cannot_lose: [Vec<bool>; 2] = [vec![false; n], vec![false; n]];
    let mut levels: Vec<Vec<Pending>> = Vec::new();

    // The first look at every position, in parallel: terminal or not, successors inside
    // the pair (counted once per symmetry class), and what the moves leaving it give.
    let starts: [Vec<Start>; 2] = [0, 1].map(|side| {
        (0..n)
            .into_par_iter()
            .map(|i| first_look(solver, &unit[side], i))
            .collect()
    });
    for side in 0..2 {
        for (i, st) in starts[side].iter().enumerate() {
            if let Some(v) = st.terminal {
                schedule(&mut levels, distance(v), (side, i as u32, v));
                continue;
            }
            counter[side][i] = st.counter;
            slowest[side][i] = st.slowest;
            cannot_lose[side][i] = st.cannot_lose;
            if let Some(d) = st.fastest_win {
                schedule(&mut levels, d, (side, i as u32, Value::Win(d)));
            }
            if st.valid && st.counter == 0 && !st.cannot_lose {
                schedule(
                    &mut levels,
                    st.slowest,
                    (side, i as u32, Value::Loss(st.slowest)),
                );
            }
        }
    }

    let mut level = 0;
    while level < levels.len() {
        let todo = std::mem::take(&mut levels[level]);
        for (side, i, v) in todo {
            let i = i as usize;
            if value[side][i].is_some() {
                continue;
            }
            value[side][i] = Some(v);
            let pos = ix
                .position_at(&rules, &unit[side], i)
                .expect("scheduled positions exist");
            let prev = 1 - side;
            let mut before: Vec<usize> = Vec::new();
            for_each_predecessor(&rules, &pos, |white, black| {
                before.push(ix.index_of_men(white, black));
            });
            before.sort_unstable();
            before.dedup();
            for j in before {
                if value[prev][j].is_some() {
                    continue;
                }
                match v {
                    Value::Loss(d) => {
                        schedule(&mut levels, d + 1, (prev, j as u32, Value::Win(d + 1)))
                    }
                    Value::Win(d) => {
                        counter[prev][j] -= 1;
                        slowest[prev][j] = slowest[prev][j].max(d + 1);
                        if counter[prev][j] == 0 && !cannot_lose[prev][j] {
                            let l = slowest[prev][j];
                            schedule(&mut levels, l, (prev, j as u32, Value::Loss(l)));
                        }
                    }
                    // Draws are what is left at the end; none is ever scheduled.
                    Value::Draw => {}
                }
            }
        }
        level += 1;
    }

    // Unused indices stay marked as such; every other unresolved position is a draw.
    let mut tables = value.map(|t| {
        t.into_iter()
            .map(|v| v.unwrap_or(Value::Draw).pack())
            .collect::<Vec<u16>>()
    });
    for (side, table) in tables.iter_mut().enumerate() {
        for (v, st) in table.iter_mut().zip(&starts[side]) {
            if !st.valid {
                *v = super::NOT_A_POSITION;
            }
        }
    }
    tables
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
/// by a slide or fly that closed no mill (one that closed a mill would have left a
/// removal pending).
fn for_each_predecessor(
    rules: &kvarn_game::Rules,
    pos: &Position,
    mut f: impl FnMut(Bitboard, Bitboard),
) {
    let board = rules.board();
    let mover = pos.side_to_move().opposite();
    let theirs = pos.men(mover);
    let empty = pos.empty(board);
    let in_mills = board.men_in_mills(theirs);
    let flew = rules.flying() && theirs.count() == 3;
    for x in theirs & !in_mills {
        let origins = if flew {
            empty
        } else {
            board.adjacent(x) & empty
        };
        for y in origins {
            let moved = theirs ^ Bitboard::from_square(x) ^ Bitboard::from_square(y);
            let (white, black) = match mover {
                Color::White => (moved, pos.men(Color::Black)),
                Color::Black => (pos.men(Color::White), moved),
            };
            f(white, black);
        }
    }
}
