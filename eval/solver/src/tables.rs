//! Exact values from whichever tables a folder holds: the distance tables of the
//! endgames (`kvarn solve`), or a variant's whole win/draw/loss tables with the placing
//! search before them ([`crate::judge::WholeGame`]). What `kvarn analyze` and the Python
//! package ask of the solver: a position's value and every move's.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kvarn_game::{Move, Outcome, Position, Rules};

use crate::db::{self, DbError};
use crate::judge::WholeGame;
use crate::solver::Solver;

/// The tables of a folder.
#[derive(Clone)]
pub enum ExactTables {
    /// Distance tables of the endgames.
    Endgames(Arc<Solver>),
    /// Win/draw/loss tables of a whole moving phase, the placing search before it.
    Whole(Arc<WholeGame>),
}

impl ExactTables {
    /// The tables in `dir` for `rules`: the whole win/draw/loss tables where the folder
    /// holds them (the placing search's table taking `table_bytes`), else every distance
    /// table it holds.
    ///
    /// # Errors
    /// The folder holds no tables of `rules`, or one is damaged.
    pub fn open(dir: &Path, rules: Rules, table_bytes: usize) -> Result<ExactTables, DbError> {
        Ok(if db::has_wdl(dir, &rules) {
            ExactTables::Whole(Arc::new(WholeGame::open_with(dir, rules, table_bytes)?))
        } else {
            ExactTables::Endgames(Arc::new(db::Databases::open(dir, rules)?.load(None)?))
        })
    }

    /// The position's outcome and every legal move's, for the player to move; `None`
    /// where the tables do not reach it, or the placing search ran past `limit`.
    pub fn values(
        &self,
        pos: &Position,
        limit: Option<Duration>,
    ) -> Option<(Outcome, Vec<(Move, Outcome)>)> {
        match self {
            ExactTables::Endgames(solver) => {
                let value = solver.value(pos)?.outcome();
                let moves = solver
                    .move_values(pos)
                    .into_iter()
                    .map(|(m, v)| Some((m, v?.outcome())))
                    .collect::<Option<Vec<_>>>()?;
                Some((value, moves))
            }
            ExactTables::Whole(judge) => {
                let deadline = limit.map(|l| Instant::now() + l);
                let value = judge.value_by(pos, deadline).ok()?;
                let moves = judge.move_outcomes_by(pos, deadline).ok()?;
                Some((value, moves.into_iter().map(|(m, v, _)| (m, v)).collect()))
            }
        }
    }
}
