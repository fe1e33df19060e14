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
//! value away; [`verify`] checks the tables without the retrograde code; [`tables`] answers
//! a position's and its moves' exact values from whichever tables a folder holds.

pub mod adjudication;
pub mod benchmark;
pub mod blunders;
pub mod db;
mod error;
pub mod index;
pub mod judge;
pub mod placing;
mod plan;
pub mod proof_table;
mod retro;
mod solve;
mod solver;
mod subspace;
pub mod tables;
mod unmove;
mod value;
pub mod verify;
pub mod wdl;

pub use error::SolverError;
pub use plan::{Step, endgame_plan, plan_for, whole_game_plan};
pub use solver::Solver;
pub use subspace::Subspace;
pub use value::Value;
