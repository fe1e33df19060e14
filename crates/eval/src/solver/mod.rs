//! The retrograde solver: exact game-theoretic values (win, draw, loss for the player to
//! move, with the distance to the end in decisions) under RULES.md's "Solved values", that
//! is with both draw rules ignored.
//!
//! Positions are grouped in subspaces by men on the board and in hand per side, the side
//! to move and whether a removal is pending ([`Subspace`]), and numbered within a subspace
//! by combinatorial ranking ([`index`]). Subspaces are solved in dependency order:
//! placements lower the men in hand and removals the men on the board, so both lead to
//! subspaces solved before. Only slides stay inside their counts; those positions (the
//! moving phase, both sides to move) are solved together by retrograde analysis with
//! successor counters ([`retro`]); every other subspace takes each position's value from
//! its successors directly.
//!
//! In progress: the values live in memory. Database files, probing from the command
//! line, symmetry reduction and Nine Men's Morris endgames are still to come.

pub mod index;
mod retro;

use std::collections::HashMap;

use kvarn_game::{Color, Move, Position, Rules, Variant};

/// An exact value for the player to move, with the number of decisions to the end of the
/// game under perfect play (fastest win, slowest loss).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The player to move wins in this many decisions.
    Win(u16),
    /// Neither side can force a win.
    Draw,
    /// The player to move loses in this many decisions.
    Loss(u16),
}

impl Value {
    /// Packs the value in 16 bits: 0 draw, 2d+1 loss in d, 2d+2 win in d.
    pub fn pack(self) -> u16 {
        match self {
            Value::Draw => 0,
            Value::Loss(d) => 2 * d + 1,
            Value::Win(d) => 2 * d + 2,
        }
    }

    /// The inverse of [`Value::pack`].
    pub fn unpack(v: u16) -> Value {
        match v {
            0 => Value::Draw,
            v if v % 2 == 1 => Value::Loss((v - 1) / 2),
            v => Value::Win((v - 2) / 2),
        }
    }

    /// The value one decision earlier, for the player who made it: negated when the turn
    /// passed to the other player, kept when the same player decides again (a removal).
    pub fn back(self, same_player: bool) -> Value {
        match (self, same_player) {
            (Value::Draw, _) => Value::Draw,
            (Value::Win(d), true) => Value::Win(d + 1),
            (Value::Loss(d), true) => Value::Loss(d + 1),
            (Value::Win(d), false) => Value::Loss(d + 1),
            (Value::Loss(d), false) => Value::Win(d + 1),
        }
    }

    /// Whether `self` is better than `other` for the player to move: any win beats a draw,
    /// a draw beats any loss, a faster win and a slower loss are better.
    pub fn better_than(self, other: Value) -> bool {
        let key = |v: Value| match v {
            Value::Win(d) => (2, -(d as i32)),
            Value::Draw => (1, 0),
            Value::Loss(d) => (0, d as i32),
        };
        key(self) > key(other)
    }
}

/// A set of positions that share men on the board and in hand, side and pending removal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Subspace {
    /// White men on the board.
    pub w_on: u8,
    /// Black men on the board.
    pub b_on: u8,
    /// White men in hand.
    pub w_hand: u8,
    /// Black men in hand.
    pub b_hand: u8,
    /// The player to move.
    pub side: Color,
    /// Whether the player to move must remove a man.
    pub pending: bool,
}

impl Subspace {
    /// The subspace of a position.
    pub fn of(pos: &Position) -> Subspace {
        Subspace {
            w_on: pos.men(Color::White).count() as u8,
            b_on: pos.men(Color::Black).count() as u8,
            w_hand: pos.in_hand(Color::White),
            b_hand: pos.in_hand(Color::Black),
            side: pos.side_to_move(),
            pending: pos.pending_removal(),
        }
    }
}

/// Solved subspaces and the rules they were solved for.
pub struct Solver {
    rules: Rules,
    indexer: index::Indexer,
    tables: HashMap<Subspace, Vec<u16>>,
}

/// Marks an index that is not a position (a pending removal without a mill).
const NOT_A_POSITION: u16 = u16::MAX;

impl Solver {
    /// Solves every position of Six or Five Men's Morris that play from the start can
    /// reach, placing phase included, calling `progress` after each subspace.
    ///
    /// # Panics
    /// For Nine Men's Morris, whose full solution is out of reach here.
    pub fn solve_whole_game(
        variant: Variant,
        mut progress: impl FnMut(&Subspace, &[u16]),
    ) -> Solver {
        assert!(
            variant != Variant::Nine,
            "Nine Men's Morris is solved only in endgames"
        );
        let rules = Rules::new(variant);
        let mut solver = Solver {
            rules,
            indexer: index::Indexer::new(rules.board()),
            tables: HashMap::new(),
        };
        let m = rules.men();
        // Hands in play from the start: White to move holds as many as Black; Black to
        // move holds one more than White. Fewer men in hand first: placements lead there.
        for total in 0..=2 * m {
            let (w_hand, b_hand, side) = if total % 2 == 0 {
                (total / 2, total / 2, Color::White)
            } else {
                (total / 2, total / 2 + 1, Color::Black)
            };
            let mut counts = Vec::new();
            for w_on in 0..=m - w_hand {
                for b_on in 0..=m - b_hand {
                    counts.push((w_on, b_on));
                }
            }
            counts.sort_by_key(|&(w, b)| w + b);
            let alive = |w_on: u8, b_on: u8| w_on + w_hand >= 3 && b_on + b_hand >= 3;
            if total == 0 {
                for &(w_on, b_on) in &counts {
                    if !alive(w_on, b_on) {
                        continue;
                    }
                    for side in Color::BOTH {
                        let s = Subspace {
                            w_on,
                            b_on,
                            w_hand: 0,
                            b_hand: 0,
                            side,
                            pending: true,
                        };
                        solver.solve_directly(s, &mut progress);
                    }
                    let unit = [Color::White, Color::Black].map(|side| Subspace {
                        w_on,
                        b_on,
                        w_hand: 0,
                        b_hand: 0,
                        side,
                        pending: false,
                    });
                    let tables = retro::solve_unit(&solver, unit);
                    for (s, t) in unit.into_iter().zip(tables) {
                        progress(&s, &t);
                        solver.tables.insert(s, t);
                    }
                }
                continue;
            }
            // The player to move places; then, after a placement that closed a mill, the
            // pending removal of whoever placed last (the other side, same hands).
            for &(w_on, b_on) in &counts {
                if alive(w_on, b_on) {
                    let s = Subspace {
                        w_on,
                        b_on,
                        w_hand,
                        b_hand,
                        side,
                        pending: false,
                    };
                    solver.solve_directly(s, &mut progress);
                }
            }
            for &(w_on, b_on) in &counts {
                if alive(w_on, b_on) {
                    let s = Subspace {
                        w_on,
                        b_on,
                        w_hand,
                        b_hand,
                        side: side.opposite(),
                        pending: true,
                    };
                    solver.solve_directly(s, &mut progress);
                }
            }
        }
        solver
    }

    /// The rules the values hold for (draw rules are ignored).
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Solved subspaces and their value tables (packed, [`Value::pack`]).
    pub fn tables(&self) -> &HashMap<Subspace, Vec<u16>> {
        &self.tables
    }

    /// The value of `pos`, if its subspace is solved.
    pub fn value(&self, pos: &Position) -> Option<Value> {
        if let Some(v) = terminal_value(&self.rules, pos) {
            return Some(v);
        }
        let t = self.tables.get(&Subspace::of(pos))?;
        let v = t[self.indexer.index_of(pos)];
        (v != NOT_A_POSITION).then(|| Value::unpack(v))
    }

    /// Every legal move of `pos` with the value of the position it leads to, seen from the
    /// player to move in `pos`.
    pub fn move_values(&self, pos: &Position) -> Vec<(Move, Option<Value>)> {
        pos.legal_moves(&self.rules)
            .iter()
            .map(|&m| {
                let mut next = *pos;
                next.play_unchecked(&self.rules, m);
                let same = next.side_to_move() == pos.side_to_move();
                (m, self.value(&next).map(|v| v.back(same)))
            })
            .collect()
    }

    /// Checks every stored value against the values of its successors: a win in d has a
    /// move to a position lost in d - 1 and none faster; a loss in d has only moves to won
    /// positions, the slowest in d - 1; a draw has no move to a lost position and at least
    /// one to a draw. Returns the number of positions checked.
    ///
    /// # Errors
    /// The first position that breaks a rule, as its position string and what is wrong.
    pub fn check_consistency(&self) -> Result<u64, String> {
        let mut checked = 0;
        for (s, table) in &self.tables {
            for (i, &v) in table.iter().enumerate() {
                if v == NOT_A_POSITION {
                    continue;
                }
                let pos = self
                    .indexer
                    .position_at(&self.rules, s, i)
                    .ok_or("a stored index is no position")?;
                let stored = Value::unpack(v);
                let expected =
                    terminal_value(&self.rules, &pos).unwrap_or_else(|| self.best_move_value(&pos));
                if stored != expected {
                    return Err(format!(
                        "{}: stored {stored:?}, its moves give {expected:?}",
                        pos.to_position_string(&self.rules)
                    ));
                }
                checked += 1;
            }
        }
        Ok(checked)
    }

    /// The best value over the moves of `pos`, all of whose successors must be solved.
    fn best_move_value(&self, pos: &Position) -> Value {
        let mut best = None::<Value>;
        for (_, v) in self.move_values(pos) {
            let v = v.expect("successor subspaces are solved first");
            if best.is_none_or(|b| v.better_than(b)) {
                best = Some(v);
            }
        }
        best.expect("a position that is not terminal has a move")
    }

    /// Solves a subspace none of whose positions leads back into it.
    fn solve_directly(&mut self, s: Subspace, progress: &mut impl FnMut(&Subspace, &[u16])) {
        let n = self.indexer.size(&s);
        let table: Vec<u16> = (0..n)
            .map(|i| match self.indexer.position_at(&self.rules, &s, i) {
                None => NOT_A_POSITION,
                Some(pos) => terminal_value(&self.rules, &pos)
                    .unwrap_or_else(|| self.best_move_value(&pos))
                    .pack(),
            })
            .collect();
        progress(&s, &table);
        self.tables.insert(s, table);
    }
}

/// The value of a position where the game is already over, from the player to move: a
/// loss in 0 (the side to move has lost by too few men or by being blocked).
fn terminal_value(rules: &Rules, pos: &Position) -> Option<Value> {
    match pos.status(rules, 1) {
        kvarn_game::Status::Win { winner, .. } => Some(if winner == pos.side_to_move() {
            Value::Win(0)
        } else {
            Value::Loss(0)
        }),
        _ => None,
    }
}
