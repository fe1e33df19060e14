//! Endgame databases inside the search and self-play: a position whose database value is
//! certain under Kvarn's draw rules (`kvarn_solver::adjudication`) is a leaf with its
//! exact win/draw/loss, a root in the databases plays a move that keeps its value, and a
//! self-play game that reaches such a position can take its result from them.
//!
//! Beside them, a run may hold the moving phase's win/draw/loss tables (`kvarn solve
//! --wdl`, [`Endgame::with_whole_game`]): the whole game's values, without distances. A
//! position they hold is a leaf with its table value, and a game that reaches one ends
//! with it, so that self-play spends its searches on the placing phase and every placing
//! position learns the exact value the game reached. Those values ignore the draw rules:
//! a draw is certain under them, a win almost always (997 of 1,000 won positions converted
//! by the perfect player, `docs/results/nine-solve/README.md`); they are the values the
//! whole-game benchmark judges by.

use kvarn_solver::adjudication::certain;
use kvarn_solver::wdl::WdlSolver;
use kvarn_solver::{Solver, Value};
use std::path::Path;
use std::sync::Arc;

use kvarn_solver::db::{Databases, DbError};

use kvarn_game::{ActionSpace, Game, Move, Outcome, Rules, Status};

use crate::shard::Sample;

/// Loaded databases, shared by every search of a run.
pub struct Endgame {
    solver: Arc<Solver>,
    /// The moving phase's win/draw/loss tables, if the run has them.
    whole: Option<Arc<WdlSolver>>,
}

impl std::fmt::Debug for Endgame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endgame")
            .field("rules", self.solver.rules())
            .field("tables", &self.solver.tables().len())
            .field("whole_game", &self.whole.is_some())
            .finish()
    }
}

impl Endgame {
    /// Probes into `solver`'s tables (their rules must be the games'; the draw rules are
    /// the games' own).
    pub fn new(solver: Arc<Solver>) -> Endgame {
        Endgame {
            solver,
            whole: None,
        }
    }

    /// The same databases with the moving phase's win/draw/loss tables beside them, if
    /// the run has them (see the module's documentation); `tables`' rules must be the
    /// games'.
    pub fn with_whole_game(self, tables: Option<Arc<WdlSolver>>) -> Endgame {
        Endgame {
            whole: tables,
            ..self
        }
    }

    /// The same databases without the whole-game tables: what a game outside
    /// `selfplay.endgame.whole_game_share` searches and is adjudicated with.
    pub fn without_whole_game(&self) -> Endgame {
        Endgame::new(Arc::clone(&self.solver))
    }

    /// Whether the moving phase's win/draw/loss tables are loaded.
    pub fn has_whole_game(&self) -> bool {
        self.whole.is_some()
    }

    /// The value of `game`'s position for the player to move where the databases know it
    /// for certain ([`Endgame::probe`]), else where the whole-game tables hold it: a
    /// position of the moving phase whose men they cover, between turns. A removal pending
    /// is left to the search: its leaves are the tables' values, so that a self-play game
    /// ending in one plays the removal with an exact search, a cheap exact sample of the
    /// removals that close the placing phase.
    pub fn outcome(&self, game: &Game) -> Option<Outcome> {
        if let Some(value) = self.probe(game) {
            return Some(value.outcome());
        }
        let tables = self.whole.as_ref()?;
        let pos = game.position();
        if game.status().is_over() || pos.men_in_hand() > 0 || pos.pending_removal() {
            return None;
        }
        let side = pos.side_to_move();
        tables.value_of(pos.men(side), pos.men(side.opposite()))
    }

    /// Opens the databases for `rules` in `dir` and loads them up to `max_men` a side
    /// (all there are when `None`).
    ///
    /// # Errors
    /// The folder holds no databases for `rules`, or one is damaged.
    pub fn open(dir: &Path, rules: Rules, max_men: Option<u8>) -> Result<Endgame, DbError> {
        let solver = Databases::open(dir, rules)?.load(max_men)?;
        Ok(Endgame::new(Arc::new(solver)))
    }

    /// The certain value of `game`'s position for the player to move, if it lies in the
    /// loaded databases and the draw rules cannot change it.
    pub fn probe(&self, game: &Game) -> Option<Value> {
        if game.status().is_over() {
            return None;
        }
        let pos = game.position();
        let value = self.solver.value(pos)?;
        certain(game.rules(), pos, value, game.repeated_since_irreversible())
    }

    /// The game's result for White (+1, 0, −1) when the databases know it for certain, or
    /// the whole-game tables hold it ([`Endgame::outcome`]).
    pub fn result_for_white(&self, game: &Game) -> Option<i8> {
        let for_mover = self.outcome(game)?.score();
        let white_moves = game.position().side_to_move() == kvarn_game::Color::White;
        Some(if white_moves { for_mover } else { -for_mover })
    }

    /// Win/draw/loss probabilities of a certain value, for the player to move.
    pub fn wdl(value: Value) -> [f32; 3] {
        Self::outcome_wdl(value.outcome())
    }

    /// Win/draw/loss probabilities of an outcome, for the player to move.
    pub fn outcome_wdl(outcome: Outcome) -> [f32; 3] {
        match outcome {
            Outcome::Win => [1.0, 0.0, 0.0],
            Outcome::Draw => [0.0, 1.0, 0.0],
            Outcome::Loss => [0.0, 0.0, 1.0],
        }
    }

    /// `game`'s position as a training sample whose every target is exact: its certain
    /// value as the result and the search value, and as the policy the moves that keep a
    /// win or a draw with certainty, in equal shares (at a lost position the slowest
    /// losses, the best defence, as [`Endgame::root_move`] plays). `None` where the value
    /// is not certain, or no move keeps it with certainty.
    pub fn exact_sample(&self, game: &Game, actions: &ActionSpace) -> Option<Sample> {
        let value = self.probe(game)?;
        let moves = self.certain_move_values(game);
        let keeps = |v: Option<Value>| match (value, v) {
            (Value::Win(_), Some(Value::Win(_))) => true,
            (Value::Draw, Some(Value::Draw | Value::Win(_))) => true,
            (Value::Loss(d), Some(Value::Loss(e))) => e == d,
            _ => false,
        };
        let best: Vec<Move> = moves
            .iter()
            .filter(|&&(_, v)| keeps(v))
            .map(|&(m, _)| m)
            .collect();
        if best.is_empty() {
            return None;
        }
        let share = 1.0 / best.len() as f32;
        Some(Sample {
            position: *game.position(),
            occurrences: game.occurrences().min(255) as u8,
            full_search: true,
            result: value.outcome().score(),
            search_wdl: Endgame::wdl(value),
            policy: best
                .iter()
                .map(|&m| (actions.index(m) as u16, share))
                .collect(),
            explored: false,
            surprise: 0.0,
        })
    }

    /// Every legal move of `game` with the certain value, for the player to move, of
    /// where it leads (the game's own result where it ends the game); `None` where the
    /// draw rules leave that value uncertain (a win too long for the no-capture turns
    /// left, say).
    fn certain_move_values(&self, game: &Game) -> Vec<(Move, Option<Value>)> {
        let mover = game.position().side_to_move();
        game.legal_moves()
            .iter()
            .map(|&m| {
                let mut next = game.clone();
                next.play(m).expect("a legal move");
                let value = match next.status() {
                    Status::Win { winner, .. } if winner == mover => Some(Value::Win(0)),
                    Status::Win { .. } => Some(Value::Loss(0)),
                    Status::Draw { .. } => Some(Value::Draw),
                    Status::Ongoing => {
                        let same = next.position().side_to_move() == mover;
                        self.probe(&next).map(|v| v.back(same))
                    }
                };
                (m, value)
            })
            .collect()
    }

    /// At a root with a certain value, the move to play: `preferred` (the search's choice)
    /// when it keeps a win or draw, else a fastest win or a drawing move; at a lost root a
    /// slowest loss, the best defence, so that the winner's play is learnt along the whole
    /// of a long win rather than against a collapse; `None` when the root is not certain.
    pub fn root_move(&self, game: &Game, preferred: Move) -> Option<Move> {
        let value = self.probe(game)?;
        let moves = self.solver.move_values(game.position());
        let value_of = |m: Move| moves.iter().find(|&&(x, _)| x == m).and_then(|&(_, v)| v);
        match value {
            Value::Loss(_) => moves
                .iter()
                .filter_map(|&(m, v)| match v {
                    Some(Value::Loss(d)) => Some((d, m)),
                    _ => None,
                })
                .max_by_key(|&(d, _)| d)
                .map(|(_, m)| m),
            Value::Draw => {
                let keeps = |m: Move| matches!(value_of(m), Some(Value::Draw | Value::Win(_)));
                if keeps(preferred) {
                    return Some(preferred);
                }
                moves.iter().map(|&(m, _)| m).find(|&m| keeps(m))
            }
            // A fastest win, so that the line ends within the turns the draw rules allow.
            Value::Win(_) => moves
                .iter()
                .filter_map(|&(m, v)| match v {
                    Some(Value::Win(d)) => Some((d, m)),
                    _ => None,
                })
                .min_by_key(|&(d, _)| d)
                .map(|(_, m)| m),
        }
    }
}
