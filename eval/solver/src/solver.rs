//! Solved tables in memory and what can be read from them: values of positions and moves.

use std::collections::HashMap;

use kvarn_game::{Move, Position, Rules};

use crate::index::Indexer;
use crate::subspace::Subspace;
use crate::value::{Value, terminal_value};

/// Solved subspaces and the rules they were solved for.
pub struct Solver {
    pub(crate) rules: Rules,
    pub(crate) indexer: Indexer,
    pub(crate) tables: HashMap<Subspace, Vec<u16>>,
}

/// Marks an index that is not a position (a pending removal without a mill).
pub(crate) const NOT_A_POSITION: u16 = u16::MAX;

impl Solver {
    /// An empty solver for `rules` (draw rules are ignored).
    pub fn new(rules: Rules) -> Solver {
        Solver {
            rules,
            indexer: Indexer::new(rules.board()),
            tables: HashMap::new(),
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
    pub(crate) fn best_move_value(&self, pos: &Position) -> Value {
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
