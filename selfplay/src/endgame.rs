//! Endgame databases inside the search and self-play: a position whose database value is
//! certain under Kvarn's draw rules (`kvarn_solver::adjudication`) is a leaf with its
//! exact win/draw/loss, a root in the databases plays a move that keeps its value, and a
//! self-play game that reaches such a position can take its result from them.

use kvarn_solver::adjudication::certain;
use kvarn_solver::{Solver, Value};
use std::path::Path;
use std::sync::Arc;

use kvarn_solver::db::{Databases, DbError};

use kvarn_game::{ActionSpace, Game, Move, Rules, Status};

use crate::shard::Sample;

/// Loaded databases, shared by every search of a run.
pub struct Endgame {
    solver: Arc<Solver>,
}

impl std::fmt::Debug for Endgame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endgame")
            .field("rules", self.solver.rules())
            .field("tables", &self.solver.tables().len())
            .finish()
    }
}

impl Endgame {
    /// Probes into `solver`'s tables (their rules must be the games'; the draw rules are
    /// the games' own).
    pub fn new(solver: Arc<Solver>) -> Endgame {
        Endgame { solver }
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

    /// The game's result for White (+1, 0, −1) when the databases know it for certain.
    pub fn result_for_white(&self, game: &Game) -> Option<i8> {
        let for_mover = Self::score(self.probe(game)?);
        let white_moves = game.position().side_to_move() == kvarn_game::Color::White;
        Some(if white_moves { for_mover } else { -for_mover })
    }

    /// A certain value as a game result for the player to move: 1, 0 or -1.
    fn score(value: Value) -> i8 {
        match value {
            Value::Win(_) => 1,
            Value::Draw => 0,
            Value::Loss(_) => -1,
        }
    }

    /// Win/draw/loss probabilities of a certain value, for the player to move.
    pub fn wdl(value: Value) -> [f32; 3] {
        match value {
            Value::Win(_) => [1.0, 0.0, 0.0],
            Value::Draw => [0.0, 1.0, 0.0],
            Value::Loss(_) => [0.0, 0.0, 1.0],
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
            result: Self::score(value),
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
