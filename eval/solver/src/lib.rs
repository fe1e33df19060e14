//! The retrograde solver: exact game-theoretic values (win, draw, loss for the player to
//! move, with the distance to the end in turns) under RULES.md's "Solved values", that is
//! with both draw rules ignored.
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
//! [`db`] keeps the tables on disk, one file per subspace; [`benchmark`] samples positions
//! with exact values (the arena scores agents on them); [`blunders`] finds where a game threw its
//! value away; [`verify`] checks the tables without the retrograde code.

pub mod adjudication;
pub mod benchmark;
pub mod blunders;
pub mod db;
mod error;
pub mod index;
mod retro;
pub mod verify;

use std::collections::HashMap;

use kvarn_game::{Color, Move, Position, Rules, Variant};
use rayon::prelude::*;

pub use error::SolverError;

/// An exact value for the player to move, with the number of turns to the end of the game
/// under perfect play (fastest win, slowest loss). A turn is a placement or move together
/// with the removal it earns, as RULES.md counts turns for the no-capture rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The player to move wins in this many turns.
    Win(u16),
    /// Neither side can force a win.
    Draw,
    /// The player to move loses in this many turns.
    Loss(u16),
}

impl Value {
    /// Packs the value in 16 bits: 0 draw, 2d+1 loss in d turns, 2d+2 win in d turns.
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

    /// The value one decision earlier, for the player who made it: when the turn passed
    /// to the other player, negated and one turn further; when the same player decides
    /// again (the removal that completes its turn), unchanged.
    pub fn back(self, same_player: bool) -> Value {
        match (self, same_player) {
            (v, true) => v,
            (Value::Draw, false) => Value::Draw,
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
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
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
    /// A subspace of the moving phase: no men in hand.
    pub fn moving(w_on: u8, b_on: u8, side: Color, pending: bool) -> Subspace {
        Subspace {
            w_on,
            b_on,
            w_hand: 0,
            b_hand: 0,
            side,
            pending,
        }
    }

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

/// One step of a solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A subspace none of whose positions leads back into it: each position takes its
    /// value from its successors, all solved before.
    Direct(Subspace),
    /// The moving phase of one count of men, both sides to move, by retrograde analysis.
    Moving {
        /// White men on the board.
        w_on: u8,
        /// Black men on the board.
        b_on: u8,
    },
}

impl Step {
    fn moving_unit(w_on: u8, b_on: u8) -> [Subspace; 2] {
        [Color::White, Color::Black].map(|side| Subspace::moving(w_on, b_on, side, false))
    }

    /// The subspaces the step solves.
    pub fn subspaces(&self) -> Vec<Subspace> {
        match *self {
            Step::Direct(s) => vec![s],
            Step::Moving { w_on, b_on } => Step::moving_unit(w_on, b_on).to_vec(),
        }
    }
}

/// The moving phase of one count of men: the positions with a removal pending (they lead
/// to fewer men), then both sides to move together.
fn moving_steps(w_on: u8, b_on: u8, plan: &mut Vec<Step>) {
    for side in Color::BOTH {
        plan.push(Step::Direct(Subspace::moving(w_on, b_on, side, true)));
    }
    plan.push(Step::Moving { w_on, b_on });
}

/// The steps that solve every position of Six or Five Men's Morris that play from the
/// start can reach, in dependency order.
///
/// Hands in play from the start: White to move holds as many men as Black, Black to move
/// one more than White. Fewer men in hand first, since placements lead there; within
/// equal hands, fewer men on the board first, since removals lead there.
pub fn whole_game_plan(variant: Variant) -> Vec<Step> {
    let m = variant.men();
    let mut plan = Vec::new();
    for total in 0..=2 * m {
        let (w_hand, b_hand, side) = if total % 2 == 0 {
            (total / 2, total / 2, Color::White)
        } else {
            (total / 2, total / 2 + 1, Color::Black)
        };
        let mut counts = Vec::new();
        for w_on in 0..=m - w_hand {
            for b_on in 0..=m - b_hand {
                if w_on + w_hand >= 3 && b_on + b_hand >= 3 {
                    counts.push((w_on, b_on));
                }
            }
        }
        counts.sort_by_key(|&(w, b)| w + b);
        if total == 0 {
            for &(w_on, b_on) in &counts {
                moving_steps(w_on, b_on, &mut plan);
            }
            continue;
        }
        // The player to move places; then the pending removals of whoever placed last
        // (the other side, same hands), which lead to the placing positions above.
        for pending in [false, true] {
            for &(w_on, b_on) in &counts {
                plan.push(Step::Direct(Subspace {
                    w_on,
                    b_on,
                    w_hand,
                    b_hand,
                    side: if pending { side.opposite() } else { side },
                    pending,
                }));
            }
        }
    }
    plan
}

/// The steps that solve the moving phase from 3 against 3 up to `max_men` a side.
pub fn endgame_plan(rules: &Rules, max_men: u8) -> Vec<Step> {
    let max_men = max_men.min(rules.men());
    let mut plan = Vec::new();
    for total in 6..=2 * max_men {
        for w_on in 3..=max_men {
            if let Some(b_on) = total.checked_sub(w_on)
                && (3..=max_men).contains(&b_on)
            {
                moving_steps(w_on, b_on, &mut plan);
            }
        }
    }
    plan
}

/// The plan Kvarn solves for `rules`: the whole game of Six and Five, the moving phase
/// of Nine up to `max_men` a side.
pub fn plan_for(rules: &Rules, max_men: u8) -> Vec<Step> {
    match rules.variant() {
        Variant::Nine => endgame_plan(rules, max_men),
        v => whole_game_plan(v),
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
    /// An empty solver for `rules` (draw rules are ignored).
    pub fn new(rules: Rules) -> Solver {
        Solver {
            rules,
            indexer: index::Indexer::new(rules.board()),
            tables: HashMap::new(),
        }
    }

    /// Solves every position of Six or Five Men's Morris that play from the start can
    /// reach, placing phase included, calling `progress` after each subspace.
    pub fn solve_whole_game(
        variant: Variant,
        mut progress: impl FnMut(&Subspace, &[u16]),
    ) -> Solver {
        let mut solver = Solver::new(Rules::new(variant));
        for step in whole_game_plan(variant) {
            for s in solver.run_step(&step) {
                progress(&s, &solver.tables[&s]);
            }
        }
        solver
    }

    /// Solves the moving phase for every count of men from 3 against 3 up to `max_men`
    /// against `max_men`, none in hand, with flying as `rules` say.
    pub fn solve_endgames(
        rules: Rules,
        max_men: u8,
        mut progress: impl FnMut(&Subspace, &[u16]),
    ) -> Solver {
        let mut solver = Solver::new(rules);
        for step in endgame_plan(&rules, max_men) {
            for s in solver.run_step(&step) {
                progress(&s, &solver.tables[&s]);
            }
        }
        solver
    }

    /// Solves one step of a plan, whose earlier steps must be solved (or loaded), and
    /// returns the subspaces it added.
    pub fn run_step(&mut self, step: &Step) -> Vec<Subspace> {
        match *step {
            Step::Direct(s) => {
                let n = self.indexer.size(&s);
                let table: Vec<u16> = (0..n)
                    .into_par_iter()
                    .map(|i| match self.indexer.position_at(&self.rules, &s, i) {
                        None => NOT_A_POSITION,
                        Some(pos) => terminal_value(&self.rules, &pos)
                            .unwrap_or_else(|| self.best_move_value(&pos))
                            .pack(),
                    })
                    .collect();
                self.tables.insert(s, table);
                vec![s]
            }
            Step::Moving { w_on, b_on } => {
                let unit = Step::moving_unit(w_on, b_on);
                let tables = retro::solve_unit(self, unit);
                for (s, t) in unit.into_iter().zip(tables) {
                    self.tables.insert(s, t);
                }
                unit.to_vec()
            }
        }
    }

    /// Adds a table solved earlier (read from a database file).
    pub fn insert(&mut self, s: Subspace, table: Vec<u16>) {
        self.tables.insert(s, table);
    }

    /// The stored table of a subspace, if solved or loaded.
    pub fn table(&self, s: &Subspace) -> Option<&[u16]> {
        self.tables.get(s).map(Vec::as_slice)
    }

    /// The number of indices of a subspace.
    pub fn size(&self, s: &Subspace) -> usize {
        self.indexer.size(s)
    }

    /// The position at index `i` of subspace `s`, if that index is a position.
    pub fn position_at(&self, s: &Subspace, i: usize) -> Option<Position> {
        self.indexer.position_at(&self.rules, s, i)
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
            .map(|&m| (m, self.move_value(pos, m)))
            .collect()
    }

    /// The value of the position legal move `m` leads to, seen from the player to move in
    /// `pos`, if its subspace is solved.
    pub fn move_value(&self, pos: &Position, m: Move) -> Option<Value> {
        let mut next = *pos;
        next.play_unchecked(&self.rules, m);
        let same = next.side_to_move() == pos.side_to_move();
        self.value(&next).map(|v| v.back(same))
    }

    /// Checks every stored value against the best value over its moves (see
    /// [`Value::back`]): a win in d turns has a move that wins in d and none faster; a loss
    /// in d has only losing moves, the slowest in d; a draw has no winning move and at
    /// least one drawing one. Returns the number of positions checked.
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
}

/// The value of a position where the game is already over, from the player to move: a
/// loss in 0 turns (the side to move has lost by too few men or by being blocked).
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
