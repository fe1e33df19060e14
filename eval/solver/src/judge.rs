//! The exact value of any position of a variant from its moving phase's win/draw/loss
//! tables alone: a table lookup in the moving phase, the placing search before it
//! ([`crate::placing`]), and each move's value with the turns to the next removal it
//! leaves, so that a perfect player makes progress. The turns of a unit are read from its
//! file when a move first needs them (all of Nine's would take 9 GB), a few units kept.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use kvarn_game::{Move, Position, Rules, Status};

use crate::db::{self, DbError};
use crate::placing::{DEFAULT_TABLE_BYTES, OutOfTime, PlacingSearch};
use crate::wdl::{Unit, WdlSolver};
use kvarn_game::Outcome;

/// Bytes of turns to the next removal kept in memory at most, and at least: half the
/// memory available when the tables are opened, within these bounds. All of Nine's turns
/// take 8.9 GB; won games walk down chains of a dozen units, the largest a gigabyte, and
/// games played side by side walk different chains, so a few units are not enough.
const TURNS_BYTES: (u64, u64) = (1 << 30, 12 << 30);

/// A unit's turns to the next removal, and when they were last used.
type KeptTurns = (Arc<Vec<u8>>, u64);

/// An outcome for the player to move in `next`, turned into one for the player to move
/// in `pos`, the position before it: the same where a removal keeps the turn.
pub(crate) fn back_to(pos: &Position, next: &Position, v: Outcome) -> Outcome {
    if next.side_to_move() == pos.side_to_move() {
        v
    } else {
        v.negate()
    }
}

/// A move's exact value for the player who makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: Move,
    /// Its value for the player to move before it.
    pub value: Outcome,
    /// Turns to the next removal it leaves, for the player to move before it: 1 for a
    /// move that closes a mill, the position's turns + 1 after a slide; `None` in the
    /// placing phase (which ends within 2 × men turns anyway) and for draws.
    pub turns: Option<u32>,
}

/// Exact values from a folder of win/draw/loss tables.
pub struct WholeGame {
    rules: Rules,
    dir: PathBuf,
    tables: Arc<WdlSolver>,
    placing: PlacingSearch,
    /// Turns to the next removal of the units read so far, with when each was last used.
    turns: Mutex<HashMap<Unit, KeptTurns>>,
    /// Uses of the turns so far, the clock of [`WholeGame::turns_of`]'s recency.
    uses: std::sync::atomic::AtomicU64,
    /// Bytes of turns kept at most ([`TURNS_BYTES`]).
    turns_budget: u64,
}

impl WholeGame {
    /// The tables of `rules` in `dir`, every unit of the moving phase.
    ///
    /// # Errors
    /// A unit's file is missing, damaged or of other rules.
    pub fn open(dir: &Path, rules: Rules) -> Result<WholeGame, DbError> {
        WholeGame::open_with(dir, rules, DEFAULT_TABLE_BYTES)
    }

    /// [`WholeGame::open`] with a transposition table of about `table_bytes` for the
    /// placing search.
    ///
    /// # Errors
    /// A unit's file is missing, damaged or of other rules.
    pub fn open_with(dir: &Path, rules: Rules, table_bytes: usize) -> Result<WholeGame, DbError> {
        let tables = Arc::new(db::load_wdl_values(dir, rules)?);
        Ok(WholeGame {
            rules,
            dir: dir.to_path_buf(),
            placing: PlacingSearch::new(Arc::clone(&tables), table_bytes),
            tables,
            turns: Mutex::new(HashMap::new()),
            uses: std::sync::atomic::AtomicU64::new(0),
            turns_budget: kvarn_storage::machine::available_memory_mib()
                .map_or(TURNS_BYTES.0, |mib| (mib << 20) / 2)
                .clamp(TURNS_BYTES.0, TURNS_BYTES.1),
        })
    }

    /// The moving phase's tables.
    pub fn tables(&self) -> &WdlSolver {
        &self.tables
    }

    /// The rules the values hold for (draw rules ignored).
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The value of `pos` for the player to move.
    pub fn value(&self, pos: &Position) -> Outcome {
        self.placing.value(pos)
    }

    /// The value of `pos` for the player to move, if the placing search proves it before
    /// `deadline` (`None`: no deadline; the moving phase is a lookup).
    ///
    /// # Errors
    /// [`OutOfTime`] when the deadline passed first.
    pub fn value_by(
        &self,
        pos: &Position,
        deadline: Option<Instant>,
    ) -> Result<Outcome, OutOfTime> {
        self.placing.value_by(pos, deadline)
    }

    /// Whether `mv` keeps at least `floor` for the player to move in `pos`.
    pub fn move_keeps(&self, pos: &Position, mv: Move, floor: Outcome) -> bool {
        match self.move_keeps_by(pos, mv, floor, None) {
            Ok(keeps) => keeps,
            Err(OutOfTime) => unreachable!("a search without a deadline runs to its end"),
        }
    }

    /// Whether `mv` keeps at least `floor` for the player to move in `pos`, if proved
    /// before `deadline`: one null-window search of where it leads (a lookup in the
    /// moving phase), which is how a perfect player picks among good moves early in
    /// placing, where exact values of every move cost minutes.
    ///
    /// # Errors
    /// [`OutOfTime`] when the deadline passed first.
    pub fn move_keeps_by(
        &self,
        pos: &Position,
        mv: Move,
        floor: Outcome,
        deadline: Option<Instant>,
    ) -> Result<bool, OutOfTime> {
        let mut next = *pos;
        next.play_unchecked(&self.rules, mv);
        if next.side_to_move() == pos.side_to_move() {
            return self.placing.at_least_by(&next, floor, deadline);
        }
        // At least `floor` for us is at most its opposite for the opponent: the
        // opponent's value does not reach one step above it.
        let above = match floor.negate() {
            Outcome::Loss => Outcome::Draw,
            Outcome::Draw => Outcome::Win,
            Outcome::Win => return Ok(true),
        };
        Ok(!self.placing.at_least_by(&next, above, deadline)?)
    }

    /// The value, for the player to move, of the position that `moves` lead to from
    /// `start`, walked along them: the start's value, then whether each move keeps it (a
    /// null-window search), a second test only where a win was given up. Early in placing
    /// this costs a fraction of the position's exact value, since the table already holds
    /// most of each step from the moves before; the start's own value is searched once.
    pub fn value_along(&self, start: &Position, moves: impl IntoIterator<Item = Move>) -> Outcome {
        let mut pos = *start;
        let mut value = self.value(start);
        for mv in moves {
            let after = if self.move_keeps(&pos, mv, value) {
                value
            } else if value == Outcome::Win && self.move_keeps(&pos, mv, Outcome::Draw) {
                Outcome::Draw
            } else {
                Outcome::Loss
            };
            let mut next = pos;
            next.play_unchecked(&self.rules, mv);
            value = back_to(&pos, &next, after);
            pos = next;
        }
        value
    }

    /// Positions the placing search has visited so far (table hits included).
    pub fn positions_searched(&self) -> u64 {
        self.placing.nodes()
    }

    /// The placing search's transposition table: entries in use, and its size in bytes.
    pub fn table_use(&self) -> (usize, usize) {
        self.placing.table_use()
    }

    /// Every legal move of `pos` with its value for the player to move in `pos`, and the
    /// position it leads to.
    pub fn move_outcomes(&self, pos: &Position) -> Vec<(Move, Outcome, Position)> {
        match self.move_outcomes_by(pos, None) {
            Ok(moves) => moves,
            Err(OutOfTime) => unreachable!("a search without a deadline runs to its end"),
        }
    }

    /// [`WholeGame::move_outcomes`] if every value is proved before `deadline`.
    ///
    /// # Errors
    /// [`OutOfTime`] when the deadline passed first.
    pub fn move_outcomes_by(
        &self,
        pos: &Position,
        deadline: Option<Instant>,
    ) -> Result<Vec<(Move, Outcome, Position)>, OutOfTime> {
        pos.legal_moves(&self.rules)
            .iter()
            .map(|&mv| {
                let mut next = *pos;
                next.play_unchecked(&self.rules, mv);
                let v = self.value_by(&next, deadline)?;
                Ok((mv, back_to(pos, &next, v), next))
            })
            .collect()
    }

    /// Every legal move of `pos` with its value and the turns it leaves.
    ///
    /// # Errors
    /// A unit's file cannot be read for its turns.
    pub fn move_values(&self, pos: &Position) -> Result<Vec<MoveValue>, DbError> {
        let moving = pos.men_in_hand() == 0;
        let mut out = Vec::new();
        for (mv, value, next) in self.move_outcomes(pos) {
            let same = next.side_to_move() == pos.side_to_move();
            let turns = match (moving, value) {
                (false, _) | (_, Outcome::Draw) => None,
                (true, _) if same || next.pending_removal() => Some(1),
                (true, _) => Some(self.turns_of(&next)? + 1),
            };
            out.push(MoveValue { mv, value, turns });
        }
        Ok(out)
    }

    /// Turns to the next removal of a position of the moving phase, for the side that
    /// wins it with perfect play (0 for a finished game; a drawn position's count means
    /// nothing).
    ///
    /// # Errors
    /// The unit's file cannot be read for its turns.
    pub fn turns_of(&self, pos: &Position) -> Result<u32, DbError> {
        if matches!(pos.status(&self.rules, 1), Status::Win { .. }) {
            return Ok(0);
        }
        let side = pos.side_to_move();
        let (unit, i) = self.tables.locate(pos.men(side), pos.men(side.opposite()));
        Ok(u32::from(self.unit_turns(unit)?[i]))
    }

    /// A unit's turns to the next removal, read from its file on first use (outside the
    /// lock, so that other units' lookups go on meanwhile).
    fn unit_turns(&self, unit: Unit) -> Result<Arc<Vec<u8>>, DbError> {
        let now = self.uses.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let lock = || self.turns.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((t, used)) = lock().get_mut(&unit) {
            *used = now;
            return Ok(Arc::clone(t));
        }
        let len = self.tables.size(unit);
        let table =
            db::read_wdl(&self.dir, &self.rules, unit, len)?.ok_or_else(|| DbError::Damaged {
                path: self.dir.join(db::wdl_file_name(&self.rules, unit)),
                reason: "missing".into(),
            })?;
        let turns = Arc::new(table.to_removal);
        let mut kept = lock();
        let bytes = |kept: &HashMap<Unit, KeptTurns>| -> u64 {
            kept.values().map(|(t, _)| t.len() as u64).sum()
        };
        while !kept.is_empty() && bytes(&kept) + turns.len() as u64 > self.turns_budget {
            let oldest = kept
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(u, _)| *u);
            if let Some(u) = oldest {
                kept.remove(&u);
            }
        }
        kept.insert(unit, (Arc::clone(&turns), now));
        Ok(turns)
    }
}
