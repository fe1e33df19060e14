//! Agents: anything that chooses moves. A random player, the alpha-beta baseline at a
//! depth or budget, external engines, and later the perfect player and network search,
//! all behind one trait and one specification syntax:
//!
//! ```text
//! random[:seed=N]
//! alphabeta[:depth=N][,movetime=MS][,nodes=N][,threads=N][,hash=MB][,seed=N][,weights=FILE]
//! engine:cmd=PROGRAM ARGS...[,depth=N][,movetime=MS][,nodes=N]
//! perfect:db=FOLDER[,seed=N]
//! ```

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use kvarn_game::{Game, Move, Outcome, Rules};
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use kvarn_engine::evaluation::Weights;
use kvarn_engine::search::{Engine, EngineOptions, Info, Limits};
use kvarn_solver::judge::WholeGame;
use kvarn_solver::{Solver, Value};

use crate::error::ArenaError;
use crate::external::ExternalEngine;

/// The largest transposition table an `alphabeta` agent may ask for, in MB: the engine
/// protocol's `Hash` range, and well within the memory of the machines Kvarn runs on (a
/// larger one aborted the process when its allocation failed).
pub const MAX_HASH_MB: u64 = 4096;

/// Transposition table size of `alphabeta` agents unless `hash=` says otherwise.
const DEFAULT_HASH_MB: usize = 16;

/// Anything that chooses moves.
pub trait Agent: Send {
    /// A short name for reports.
    fn name(&self) -> String;

    /// Called before each game.
    ///
    /// # Errors
    /// When the agent cannot start a game (an external engine that died, say).
    fn new_game(&mut self) -> Result<(), ArenaError> {
        Ok(())
    }

    /// The move to play in `game`'s current position, which is not over.
    ///
    /// # Errors
    /// When the agent cannot answer.
    fn choose(&mut self, game: &Game) -> Result<Move, ArenaError>;

    /// The agent's estimate of the outcome for the player to move, if it makes one.
    ///
    /// # Errors
    /// When the agent cannot answer.
    fn outcome(&mut self, _game: &Game) -> Result<Option<Outcome>, ArenaError> {
        Ok(None)
    }
}

/// Makes a fresh agent for each game of a match. [`AgentSpec`] is one; crates with players
/// of their own (network players) implement it too.
pub trait AgentFactory: Send + Sync {
    /// The agent's name in reports and records.
    fn name(&self) -> String;

    /// An agent for one game of `rules`; `game_seed` varies from game to game.
    ///
    /// # Errors
    /// When the agent cannot be made.
    fn build(&self, rules: Rules, game_seed: u64) -> Result<Box<dyn Agent>, ArenaError>;

    /// Threads one of its agents computes on while choosing (1 unless it says otherwise),
    /// so that a match can keep games at once × threads within the cores. An external
    /// engine counts as 1: its own threads are not known.
    fn threads(&self) -> usize {
        1
    }
}

impl AgentFactory for AgentSpec {
    fn name(&self) -> String {
        self.to_string()
    }
    fn threads(&self) -> usize {
        match self {
            AgentSpec::AlphaBeta { threads, .. } => (*threads).max(1),
            _ => 1,
        }
    }
    fn build(&self, rules: Rules, game_seed: u64) -> Result<Box<dyn Agent>, ArenaError> {
        AgentSpec::build(self, rules, game_seed)
    }
}

/// Plays a uniformly random legal move.
pub struct RandomAgent {
    rng: Pcg64Mcg,
    seed: u64,
}

impl RandomAgent {
    /// A random player with its own seed.
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent {
            rng: Pcg64Mcg::seed_from_u64(seed),
            seed,
        }
    }
}

impl Agent for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }

    fn new_game(&mut self) -> Result<(), ArenaError> {
        self.rng = Pcg64Mcg::seed_from_u64(self.seed);
        Ok(())
    }

    fn choose(&mut self, game: &Game) -> Result<Move, ArenaError> {
        let moves = game.legal_moves();
        if moves.is_empty() {
            return Err(ArenaError::Play {
                agent: "random".into(),
                reason: "asked to move in a finished game".into(),
            });
        }
        Ok(moves[self.rng.random_range(0..moves.len())])
    }
}

/// The alpha-beta baseline within fixed limits.
pub struct AlphaBetaAgent {
    engine: Engine,
    limits: Limits,
    name: String,
    /// The last search, by position key: `outcome` and `choose` on one position search
    /// once.
    last: Option<(u64, Info)>,
}

impl AlphaBetaAgent {
    /// The baseline for `rules` with these options and limits.
    pub fn new(
        rules: Rules,
        options: EngineOptions,
        limits: Limits,
        name: String,
    ) -> AlphaBetaAgent {
        AlphaBetaAgent {
            engine: Engine::new(rules, options),
            limits,
            name,
            last: None,
        }
    }
}

impl AlphaBetaAgent {
    /// The search of `game`'s position, reused when asked twice in a row.
    fn search(&mut self, game: &Game) -> Result<Info, ArenaError> {
        let key = game.position().key() ^ (game.ply() as u64) << 58;
        if let Some((k, info)) = &self.last
            && *k == key
        {
            return Ok(info.clone());
        }
        let info = self
            .engine
            .search(game, self.limits, None, |_| {})
            .ok_or_else(|| ArenaError::Play {
                agent: self.name.clone(),
                reason: "asked to move in a finished game".into(),
            })?;
        self.last = Some((key, info.clone()));
        Ok(info)
    }
}

impl Agent for AlphaBetaAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) -> Result<(), ArenaError> {
        self.engine.new_game();
        self.last = None;
        Ok(())
    }

    fn choose(&mut self, game: &Game) -> Result<Move, ArenaError> {
        let info = self.search(game)?;
        info.pv.first().copied().ok_or_else(|| ArenaError::Play {
            agent: self.name.clone(),
            reason: "the search found no move".into(),
        })
    }

    /// The search's score read as an outcome: a forced result as such, otherwise a win or
    /// loss beyond a man and a half of advantage, a draw within it (a heuristic: the engine
    /// knows no draws but by rule).
    fn outcome(&mut self, game: &Game) -> Result<Option<Outcome>, ArenaError> {
        let info = self.search(game)?;
        Ok(Some(if info.score > 150 {
            Outcome::Win
        } else if info.score < -150 {
            Outcome::Loss
        } else {
            Outcome::Draw
        }))
    }
}

/// How a perfect player draws among equally good moves: a sequence of its own each game,
/// so that games against the same opponent differ, and the same games from the same seed.
struct TieBreak {
    rng: Pcg64Mcg,
    seed: u64,
    games: u64,
}

impl TieBreak {
    fn new(seed: u64) -> TieBreak {
        TieBreak {
            rng: Pcg64Mcg::seed_from_u64(seed),
            seed,
            games: 0,
        }
    }

    fn new_game(&mut self) {
        self.games += 1;
        self.rng = Pcg64Mcg::seed_from_u64(kvarn_game::seeds::derive(self.seed, 0, self.games));
    }

    /// One of `n` equally good choices.
    fn pick(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n)
    }

    /// `moves` in a uniformly random order.
    fn shuffle(&mut self, moves: &mut [Move]) {
        moves.shuffle(&mut self.rng);
    }
}

/// Where a perfect player reads exact values.
enum Exact {
    /// Distance tables of the whole game (Six, Five).
    Distances(Arc<Solver>),
    /// Win/draw/loss tables of the moving phase with the placing search before it
    /// ([`kvarn_solver::judge`]).
    Tables(Arc<WholeGame>),
}

/// Plays value-optimal moves: from distance tables the fastest win and the slowest loss;
/// from win/draw/loss tables a move of the best value and among those the fewest turns to
/// the next removal when winning, the most when losing, so that it makes progress and never
/// repeats a won line. Ties are drawn at random, so that games against it vary.
pub struct PerfectAgent {
    exact: Exact,
    ties: TieBreak,
    name: String,
}

impl PerfectAgent {
    /// The perfect player over a solver's distance tables.
    pub fn new(solver: Arc<Solver>, seed: u64, name: String) -> PerfectAgent {
        PerfectAgent {
            exact: Exact::Distances(solver),
            ties: TieBreak::new(seed),
            name,
        }
    }

    /// The perfect player over win/draw/loss tables.
    pub fn over_tables(judge: Arc<WholeGame>, seed: u64, name: String) -> PerfectAgent {
        PerfectAgent {
            exact: Exact::Tables(judge),
            ties: TieBreak::new(seed),
            name,
        }
    }

    fn refusal(&self, reason: String) -> ArenaError {
        ArenaError::Play {
            agent: self.name.clone(),
            reason,
        }
    }

    /// The moves of the best value by the distance tables.
    fn best_by_distance(&self, solver: &Solver, game: &Game) -> Result<Vec<Move>, ArenaError> {
        let mut best: Vec<(Move, Value)> = Vec::new();
        for (m, v) in solver.move_values(game.position()) {
            let v = v.ok_or_else(|| {
                self.refusal(format!(
                    "the databases do not cover the position after {m} ({})",
                    game.position().to_position_string(game.rules())
                ))
            })?;
            match best.first() {
                Some(&(_, b)) if b.better_than(v) => {}
                Some(&(_, b)) if v.better_than(b) => best = vec![(m, v)],
                _ => best.push((m, v)),
            }
        }
        Ok(best.into_iter().map(|(m, _)| m).collect())
    }

    /// A move that keeps the value of a position with men in hand, drawn uniformly from
    /// those that do: the position's value (walked along the game, [`WholeGame::value_along`]),
    /// then its moves in a random order until one keeps it, each by a null-window search.
    /// Early in placing every move's exact value would cost minutes; this costs about as
    /// many searches as one in a few moves keeps.
    fn keeping_by_search(&mut self, judge: &WholeGame, game: &Game) -> Result<Move, ArenaError> {
        let pos = game.position();
        let value = judge.value_along(game.start_position(), game.moves());
        let mut moves = game.legal_moves().to_vec();
        self.ties.shuffle(&mut moves);
        for m in moves {
            if judge.move_keeps(pos, m, value) {
                return Ok(m);
            }
        }
        Err(self.refusal(format!(
            "no move keeps the value of {}: the tables are inconsistent",
            pos.to_position_string(game.rules())
        )))
    }

    /// The moves of the best value by win/draw/loss tables, and among those the best for
    /// progress: fewer turns to the next removal when winning, more otherwise.
    fn best_by_tables(&self, judge: &WholeGame, game: &Game) -> Result<Vec<Move>, ArenaError> {
        let moves = judge
            .move_values(game.position())
            .map_err(|e| self.refusal(e.to_string()))?;
        let key = |m: &kvarn_solver::judge::MoveValue| {
            let turns = i64::from(m.turns.unwrap_or(0));
            let progress = if m.value == Outcome::Win {
                -turns
            } else {
                turns
            };
            (m.value.score(), progress)
        };
        let best = moves.iter().map(key).max();
        Ok(moves
            .iter()
            .filter(|m| Some(key(m)) == best)
            .map(|m| m.mv)
            .collect())
    }
}

impl Agent for PerfectAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) -> Result<(), ArenaError> {
        self.ties.new_game();
        Ok(())
    }

    fn choose(&mut self, game: &Game) -> Result<Move, ArenaError> {
        let best = match &self.exact {
            Exact::Distances(solver) => self.best_by_distance(solver, game)?,
            Exact::Tables(judge) if game.position().men_in_hand() > 0 => {
                let judge = Arc::clone(judge);
                return self.keeping_by_search(&judge, game);
            }
            Exact::Tables(judge) => self.best_by_tables(judge, game)?,
        };
        if best.is_empty() {
            return Err(self.refusal("asked to move in a finished game".into()));
        }
        Ok(best[self.ties.pick(best.len())])
    }

    fn outcome(&mut self, game: &Game) -> Result<Option<Outcome>, ArenaError> {
        Ok(match &self.exact {
            Exact::Distances(solver) => solver.value(game.position()).map(Value::outcome),
            Exact::Tables(judge) => Some(judge.value(game.position())),
        })
    }
}

/// The win/draw/loss tables of a folder under `rules`, opened once per process and
/// shared, as [`load_solver`] shares distance tables.
///
/// # Errors
/// What [`WholeGame::open`] reports.
pub fn load_whole_game(dir: &Path, rules: Rules) -> Result<Arc<WholeGame>, ArenaError> {
    load_whole_game_with(dir, rules, kvarn_solver::placing::DEFAULT_TABLE_BYTES)
}

/// [`load_whole_game`] whose placing search, if this call opens the tables, keeps a
/// transposition table of about `table_bytes`: games from the start position stay
/// early in placing, where a proof needs gigabytes (the perfect players of the process
/// share it, so what one proved the others find).
///
/// # Errors
/// What [`WholeGame::open`] reports.
pub fn load_whole_game_with(
    dir: &Path,
    rules: Rules,
    table_bytes: usize,
) -> Result<Arc<WholeGame>, ArenaError> {
    static CACHE: OnceLock<Shared<WholeGame>> = OnceLock::new();
    shared(&CACHE, dir, rules, || {
        Ok(WholeGame::open_with(dir, rules, table_bytes)?)
    })
}

/// What a folder of tables opened under some rules gives, once per process.
type Shared<T> = Mutex<HashMap<(PathBuf, Rules), Arc<T>>>;

/// The value `open` makes for `dir` and `rules`, made once and shared.
fn shared<T>(
    cache: &OnceLock<Shared<T>>,
    dir: &Path,
    rules: Rules,
    open: impl FnOnce() -> Result<T, ArenaError>,
) -> Result<Arc<T>, ArenaError> {
    let cache = cache.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (dir.to_path_buf(), rules);
    if let Some(t) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(Arc::clone(t));
    }
    let opened = Arc::new(open()?);
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, Arc::clone(&opened));
    Ok(opened)
}

/// The solver of a database folder under `rules`, loaded once per process and shared (by
/// every perfect player, and by whatever else judges games).
///
/// # Errors
/// What [`kvarn_solver::db::Databases::open`] and its `load` report.
pub fn load_solver(dir: &Path, rules: Rules) -> Result<Arc<Solver>, ArenaError> {
    static CACHE: OnceLock<Shared<Solver>> = OnceLock::new();
    shared(&CACHE, dir, rules, || {
        Ok(kvarn_solver::db::Databases::open(dir, rules)?.load(None)?)
    })
}

/// A parsed agent specification, from which agents are built (one per game, so that
/// games can run in parallel).
#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    /// `random[:seed=N]`.
    Random {
        /// Seed; varied per game by the match when absent.
        seed: Option<u64>,
    },
    /// `alphabeta:...`.
    AlphaBeta {
        /// Search limits.
        limits: Limits,
        /// Threads per search.
        threads: usize,
        /// Table size in MiB.
        hash_mb: usize,
        /// Seed of the tie-breaking; random when absent.
        seed: Option<u64>,
        /// Weights file; the built-in weights when absent.
        weights: Option<PathBuf>,
    },
    /// `perfect:db=DIR`.
    Perfect {
        /// Folder of the solver's database files.
        db: PathBuf,
        /// Seed of the choice among drawing moves.
        seed: Option<u64>,
    },
    /// `engine:cmd=...`.
    Engine {
        /// Program and arguments, split at spaces.
        cmd: String,
        /// Limits sent with each `go`.
        limits: Limits,
    },
}

impl AgentSpec {
    /// The kinds of agent a specification names, before its `:`.
    pub const KINDS: [&str; 4] = ["random", "alphabeta", "perfect", "engine"];
}

impl FromStr for AgentSpec {
    type Err = ArenaError;

    fn from_str(text: &str) -> Result<AgentSpec, ArenaError> {
        let err = |reason: String| ArenaError::Spec {
            spec: text.to_string(),
            reason,
        };
        let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
        if !AgentSpec::KINDS.contains(&kind) {
            return Err(err(format!(
                "unknown agent `{kind}` (expected random, alphabeta, perfect or engine)"
            )));
        }
        let mut options: Vec<(&str, &str)> = Vec::new();
        for part in rest.split(',').filter(|p| !p.trim().is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| err(format!("`{part}` should be key=value")))?;
            options.push((k.trim(), v.trim()));
        }
        let number = |k: &str, v: &str| -> Result<u64, ArenaError> {
            v.parse::<u64>()
                .map_err(|_| err(format!("{k}=`{v}` is not a whole number")))
        };
        let mut limits = Limits::default();
        let mut seed = None;
        let mut threads = 1;
        let mut hash_mb = DEFAULT_HASH_MB;
        let mut weights = None;
        let mut cmd = None;
        let mut db = None;
        for &(k, v) in &options {
            match (kind, k) {
                (_, "seed") if kind != "engine" => seed = Some(number(k, v)?),
                ("alphabeta" | "engine", "depth") => {
                    let d = number(k, v)?;
                    if !(1..=64).contains(&d) {
                        return Err(err(format!("depth={d} is not between 1 and 64")));
                    }
                    limits.depth = Some(d as u32);
                }
                ("alphabeta" | "engine", "movetime") => {
                    limits.movetime = Some(Duration::from_millis(number(k, v)?.max(1)))
                }
                ("alphabeta" | "engine", "nodes") => limits.nodes = Some(number(k, v)?.max(1)),
                ("alphabeta", "threads") => threads = number(k, v)?.clamp(1, 256) as usize,
                ("alphabeta", "hash") => {
                    let mb = number(k, v)?;
                    if !(1..=MAX_HASH_MB).contains(&mb) {
                        return Err(err(format!(
                            "hash={mb} is not between 1 and {MAX_HASH_MB} MB (the engine's \
                             Hash range)"
                        )));
                    }
                    if let Some(reason) = kvarn_storage::machine::beyond_memory(mb) {
                        return Err(err(format!("hash={mb}: {reason}")));
                    }
                    hash_mb = mb as usize;
                }
                ("alphabeta", "weights") => weights = Some(PathBuf::from(v)),
                ("engine", "cmd") => cmd = Some(v.to_string()),
                ("perfect", "db") => db = Some(PathBuf::from(v)),
                _ => return Err(err(format!("`{k}` is not an option of `{kind}`"))),
            }
        }
        match kind {
            "random" => Ok(AgentSpec::Random { seed }),
            "perfect" => Ok(AgentSpec::Perfect {
                db: db.ok_or_else(|| {
                    err("perfect needs db=FOLDER (made by kvarn solve)".to_string())
                })?,
                seed,
            }),
            "alphabeta" => {
                if limits == Limits::default() {
                    return Err(err(
                        "give a limit: depth=N, movetime=MS or nodes=N".to_string()
                    ));
                }
                Ok(AgentSpec::AlphaBeta {
                    limits,
                    threads,
                    hash_mb,
                    seed,
                    weights,
                })
            }
            _ => {
                let cmd = cmd.ok_or_else(|| err("engine needs cmd=PROGRAM".to_string()))?;
                if limits == Limits::default() {
                    limits.movetime = Some(Duration::from_millis(100));
                }
                Ok(AgentSpec::Engine { cmd, limits })
            }
        }
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let limits = |l: &Limits| {
            let mut parts = Vec::new();
            if let Some(d) = l.depth {
                parts.push(format!("depth={d}"));
            }
            if let Some(t) = l.movetime {
                parts.push(format!("movetime={}", t.as_millis()));
            }
            if let Some(n) = l.nodes {
                parts.push(format!("nodes={n}"));
            }
            parts
        };
        match self {
            AgentSpec::Random { seed: None } => f.write_str("random"),
            AgentSpec::Random { seed: Some(s) } => write!(f, "random:seed={s}"),
            AgentSpec::AlphaBeta {
                limits: l,
                threads,
                hash_mb,
                seed,
                weights,
            } => {
                let mut parts = limits(l);
                if *threads > 1 {
                    parts.push(format!("threads={threads}"));
                }
                if *hash_mb != DEFAULT_HASH_MB {
                    parts.push(format!("hash={hash_mb}"));
                }
                if let Some(s) = seed {
                    parts.push(format!("seed={s}"));
                }
                if let Some(w) = weights {
                    parts.push(format!("weights={}", w.display()));
                }
                write!(f, "alphabeta:{}", parts.join(","))
            }
            AgentSpec::Perfect { db, seed } => {
                write!(f, "perfect:db={}", db.display())?;
                match seed {
                    Some(s) => write!(f, ",seed={s}"),
                    None => Ok(()),
                }
            }
            AgentSpec::Engine { cmd, limits: l } => {
                let mut parts = vec![format!("cmd={cmd}")];
                parts.extend(limits(l));
                write!(f, "engine:{}", parts.join(","))
            }
        }
    }
}

impl AgentSpec {
    /// Uniformly random play, its seed varied from game to game by the match.
    pub fn random() -> AgentSpec {
        AgentSpec::Random { seed: None }
    }

    /// The baseline within `limits` on `threads` threads, with the default table, the
    /// built-in weights and the match's per-game seed.
    pub fn alphabeta(limits: Limits, threads: usize) -> AgentSpec {
        AgentSpec::AlphaBeta {
            limits,
            threads,
            hash_mb: DEFAULT_HASH_MB,
            seed: None,
            weights: None,
        }
    }

    /// Builds an agent for `rules`. `game_seed` varies the agent's randomness from game to
    /// game where the specification gives no seed of its own.
    ///
    /// # Errors
    /// When a weights file cannot be read or an external engine cannot be started.
    pub fn build(&self, rules: Rules, game_seed: u64) -> Result<Box<dyn Agent>, ArenaError> {
        Ok(match self {
            AgentSpec::Random { seed } => Box::new(RandomAgent::new(seed.unwrap_or(game_seed))),
            AgentSpec::AlphaBeta {
                limits,
                threads,
                hash_mb,
                seed,
                weights,
            } => {
                let weights = match weights {
                    Some(path) => Weights::load(path)?,
                    None => Weights::default(),
                };
                let options = EngineOptions {
                    threads: *threads,
                    hash_mb: *hash_mb,
                    seed: Some(seed.unwrap_or(game_seed)),
                    weights: Arc::new(weights),
                };
                Box::new(AlphaBetaAgent::new(
                    rules,
                    options,
                    *limits,
                    self.to_string(),
                ))
            }
            // Win/draw/loss tables where the folder has them (Nine's whole moving phase),
            // else distance tables.
            AgentSpec::Perfect { db, seed } if kvarn_solver::db::has_wdl(db, &rules) => {
                Box::new(PerfectAgent::over_tables(
                    load_whole_game(db, rules)?,
                    seed.unwrap_or(game_seed),
                    self.to_string(),
                ))
            }
            AgentSpec::Perfect { db, seed } => Box::new(PerfectAgent::new(
                load_solver(db, rules)?,
                seed.unwrap_or(game_seed),
                self.to_string(),
            )),
            AgentSpec::Engine { cmd, limits } => {
                Box::new(ExternalEngine::start(cmd, rules, *limits)?)
            }
        })
    }
}

impl Agent for ExternalEngine {
    fn name(&self) -> String {
        ExternalEngine::name(self)
    }

    fn new_game(&mut self) -> Result<(), ArenaError> {
        ExternalEngine::new_game(self)
    }

    fn choose(&mut self, game: &Game) -> Result<Move, ArenaError> {
        ExternalEngine::choose(self, game)
    }
}
