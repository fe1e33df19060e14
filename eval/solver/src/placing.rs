//! The placing phase searched, as Gasser proved Nine Men's Morris a draw: an alpha-beta
//! search over win, draw and loss with a transposition table, down to the end of placing,
//! where the moving phase's win/draw/loss tables ([`crate::wdl`]) value every position.
//! Values ignore both draw rules, as the tables' do.
//!
//! The table ([`ProofTable`]) has a fixed size and takes no lock, so that a long proof
//! stays within its memory and several threads can share what each proved.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use kvarn_game::{Move, Outcome, Position, Rules, Status};

use crate::proof_table::{Bound, ProofTable};
use crate::wdl::WdlSolver;

/// Transposition table memory when none is asked for.
pub const DEFAULT_TABLE_BYTES: usize = 1 << 30;

/// A search of positions with men in hand over the moving phase's tables, keeping what it
/// proved between calls.
pub struct PlacingSearch {
    rules: Rules,
    tables: Arc<WdlSolver>,
    known: ProofTable,
    nodes: AtomicU64,
}

/// A search stopped at its deadline before it proved the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfTime;

/// One call's state: its deadline, its node count and its history of good moves.
struct Walk {
    deadline: Option<Instant>,
    nodes: u64,
    /// Cut-offs each point caused, by the colour that moved there.
    history: [[u32; 32]; 2],
}

impl PlacingSearch {
    /// A search over `tables`, which must hold every unit of the moving phase the rules
    /// can reach, with a transposition table of about `table_bytes`.
    pub fn new(tables: Arc<WdlSolver>, table_bytes: usize) -> PlacingSearch {
        PlacingSearch {
            rules: *tables.rules(),
            tables,
            known: ProofTable::with_bytes(table_bytes),
            nodes: AtomicU64::new(0),
        }
    }

    /// The value of `pos` for the player to move.
    pub fn value(&self, pos: &Position) -> Outcome {
        match self.value_by(pos, None) {
            Ok(v) => v,
            Err(OutOfTime) => unreachable!("a search without a deadline runs to its end"),
        }
    }

    /// The value of `pos` for the player to move, if proved before `deadline` (`None`:
    /// no deadline).
    ///
    /// # Errors
    /// [`OutOfTime`] when the deadline passed first; what was proved is kept.
    pub fn value_by(
        &self,
        pos: &Position,
        deadline: Option<Instant>,
    ) -> Result<Outcome, OutOfTime> {
        let mut walk = Walk {
            deadline,
            nodes: 0,
            history: [[0; 32]; 2],
        };
        let v = self.search(&mut walk, pos, -1, 1);
        self.nodes.fetch_add(walk.nodes, Ordering::Relaxed);
        Ok(match v? {
            1 => Outcome::Win,
            -1 => Outcome::Loss,
            _ => Outcome::Draw,
        })
    }

    /// Whether the value of `pos` for the player to move is at least `floor`, if proved
    /// before `deadline`: a null-window search, much cheaper than the exact value where
    /// only one side of it matters (does a move keep the draw?).
    ///
    /// # Errors
    /// [`OutOfTime`] when the deadline passed first; what was proved is kept.
    pub fn at_least_by(
        &self,
        pos: &Position,
        floor: Outcome,
        deadline: Option<Instant>,
    ) -> Result<bool, OutOfTime> {
        let floor = floor.score();
        if floor == -1 {
            return Ok(true);
        }
        let mut walk = Walk {
            deadline,
            nodes: 0,
            history: [[0; 32]; 2],
        };
        let v = self.search(&mut walk, pos, floor - 1, floor);
        self.nodes.fetch_add(walk.nodes, Ordering::Relaxed);
        Ok(v? >= floor)
    }

    /// Positions searched so far by every call (table hits included).
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    /// Entries of the transposition table in use, and its size in bytes.
    pub fn table_use(&self) -> (usize, usize) {
        (self.known.used(), self.known.bytes())
    }

    /// The value of `pos` for the player to move, as -1, 0 or 1, exact where it lies
    /// inside (`alpha`, `beta`), else a bound on the side it fell (fail-soft).
    fn search(
        &self,
        walk: &mut Walk,
        pos: &Position,
        mut alpha: i8,
        mut beta: i8,
    ) -> Result<i8, OutOfTime> {
        walk.nodes += 1;
        if walk.nodes & 0xFFF == 0 && walk.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(OutOfTime);
        }
        if let Some(v) = self.settled(pos) {
            return Ok(v);
        }
        let key = pos.canonical(&self.rules).0.key();
        if let Some((v, bound)) = self.known.get(key) {
            match bound {
                Bound::Exact => return Ok(v),
                Bound::AtLeast => alpha = alpha.max(v),
                Bound::AtMost => beta = beta.min(v),
            }
            if alpha >= beta {
                return Ok(v);
            }
        }
        let (alpha0, beta0) = (alpha, beta);
        let side = pos.side_to_move().index();
        let mut best = -2;
        for m in self.ordered_moves(walk, pos) {
            let mut next = *pos;
            next.play_unchecked(&self.rules, m);
            let v = if next.side_to_move() == pos.side_to_move() {
                self.search(walk, &next, alpha, beta)?
            } else {
                -self.search(walk, &next, -beta, -alpha)?
            };
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                let h = &mut walk.history[side][target(m).index()];
                *h = h.saturating_add(1 + moves_left(pos));
                break;
            }
        }
        // A player who cannot move loses (placing always has a point free; kept for safety).
        let best = best.max(-1);
        let bound = if best <= alpha0 {
            Bound::AtMost
        } else if best >= beta0 {
            Bound::AtLeast
        } else {
            Bound::Exact
        };
        self.known.put(key, best, bound);
        Ok(best)
    }

    /// The value of a finished game, or of a position of the moving phase from its table.
    fn settled(&self, pos: &Position) -> Option<i8> {
        if let Status::Win { winner, .. } = pos.status(&self.rules, 1) {
            return Some(if winner == pos.side_to_move() { 1 } else { -1 });
        }
        let in_hand = pos.men_in_hand();
        if in_hand > 0 || pos.pending_removal() {
            return None;
        }
        let side = pos.side_to_move();
        let v = self
            .tables
            .value_of(pos.men(side), pos.men(side.opposite()))
            .expect("the moving phase's tables hold every unit the placing phase reaches");
        Some(v.score())
    }

    /// The moves of `pos`, likeliest cut-offs first: mills closed, then the points that
    /// the history of cut-offs and the mills around them favour.
    fn ordered_moves(&self, walk: &Walk, pos: &Position) -> Vec<Move> {
        let us = pos.side_to_move();
        let history = &walk.history[us.index()];
        let mut scored: Vec<(u32, Move)> = pos
            .legal_moves(&self.rules)
            .iter()
            .map(|&m| {
                let sq = target(m);
                let lines = self.line_score(pos, m);
                (lines.saturating_add(history[sq.index()]), m)
            })
            .collect();
        scored.sort_by_key(|s| std::cmp::Reverse(s.0));
        scored.into_iter().map(|(_, m)| m).collect()
    }

    /// How much a move does along the mills through its point: closing one, blocking (or,
    /// for a removal, breaking) two of the opponent's men, making two of one's own.
    fn line_score(&self, pos: &Position, m: Move) -> u32 {
        let us = pos.side_to_move();
        let (own, theirs) = (pos.men(us), pos.men(us.opposite()));
        let sq = target(m);
        let mut score = 0;
        for line in self.rules.board().mills_through(sq) {
            let mine = (line.bits() & own.bits()).count_ones();
            let other = (line.bits() & theirs.bits()).count_ones();
            score += match (m, mine, other) {
                (Move::Remove { .. }, 0, 2) => 1 << 20,
                (Move::Remove { .. }, _, _) => other,
                (_, 2, 0) => 1 << 24,
                (_, 0, 2) => 1 << 20,
                (_, 1, 0) => 1 << 8,
                (_, 0, 0) => 1 << 4,
                _ => 0,
            };
        }
        score
    }
}

/// The point a move acts on: where a man lands, or the man removed.
fn target(m: Move) -> kvarn_game::Square {
    m.to()
        .or(m.from())
        .expect("every move lands on a point or removes from one")
}

/// Men still to place, both sides: how much of the search lies below a position, so
/// that cut-offs high in the tree count for more in the history.
fn moves_left(pos: &Position) -> u32 {
    let n = pos.men_in_hand();
    u32::from(n) * u32::from(n)
}
