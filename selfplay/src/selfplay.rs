//! Self-play: threads of interleaved games, their leaves evaluated in shared batches, and
//! the finished games written as shards.
//!
//! Game `i` of a run is played by thread `i mod threads` with a random generator seeded
//! from the run's seed and `i`, so that a seed, the settings and the network give the same
//! games on every CPU run.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::ProgressBar;
use kvarn_game::{BatchError, BatchSim, Color, ENCODING_VERSION, Game, Move, Rules, Status};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::branch::BranchPool;
use crate::config::{RootSearch, SearchConfig, SelfPlayConfig, SettingError};
use crate::endgame::Endgame;
use crate::evaluator::{EvalCache, Evaluator};
use crate::search::{Advance, GameSearch, SearchContext};
use crate::shard::{
    GameSummary, SHARD_EXTENSION, Sample, SampleSource, ShardError, ShardHeader, write_shard,
};
use kvarn_arena::elo::Tally;
use kvarn_solver::Value;

/// A self-play run to make.
#[derive(Debug, Clone)]
pub struct SelfPlayJob {
    /// The rules.
    pub rules: Rules,
    /// Search settings.
    pub search: SearchConfig,
    /// Self-play settings.
    pub selfplay: SelfPlayConfig,
    /// Games to play: indices `0..games`.
    pub games: u64,
    /// Indices already played (a resumed run): skipped.
    pub skip: std::collections::BTreeSet<u64>,
    /// Seed of the run.
    pub seed: u64,
    /// Folder for shards (none: keep the games in memory only).
    pub out: Option<PathBuf>,
    /// Prefix of shard names, e.g. `gen-0003`.
    pub shard_prefix: String,
    /// The model's name, written into the shards.
    pub model: String,
    /// Endgame databases, for `selfplay.endgame` (required when it is on).
    pub endgame: Option<Arc<Endgame>>,
    /// Positions of the previous generation's games, for `selfplay.branch_starts`: empty
    /// (the first generation's, or a job without earlier games), every game that would
    /// branch starts as the others do.
    pub branch_from: Arc<BranchPool>,
}

/// One finished game.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayedGame {
    /// Index of the game in its run.
    pub index: u64,
    /// Result for White: +1, 0 or −1.
    pub result: i8,
    /// Plies played.
    pub plies: u32,
    /// Its searched positions.
    pub samples: Vec<Sample>,
    /// The men of White and Black on its final board (where the endgame databases
    /// adjudicated it, the board they judged).
    pub final_men: [kvarn_game::Bitboard; 2],
    /// Whether its result was taken from the endgame databases.
    pub adjudicated: bool,
    /// Whether it reached a position with a certain database value and was played on.
    pub played_out: bool,
    /// Whether it started from a random position (`selfplay.random_starts`).
    pub random_start: bool,
    /// Whether it started from a position of an earlier game (`selfplay.branch_starts`).
    pub branch_start: bool,
    /// The side that searched deeper (`selfplay.deep_side`), if one did.
    pub deep_side: Option<Color>,
}

/// What a run did and where its time went.
#[derive(Debug, Clone, Default)]
pub struct SelfPlayStats {
    /// Games played.
    pub games: u64,
    /// Searched positions (samples).
    pub positions: u64,
    /// White wins, draws, Black wins.
    pub results: [u64; 3],
    /// Plies in all games.
    pub plies: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Thread time spent in the network, summed over threads.
    pub network_time: Duration,
    /// Thread time in all, summed over threads.
    pub thread_time: Duration,
    /// Thread time preparing the search's leaves for the network (the symmetry key, the
    /// cache probe, the encoding), summed over threads: part of the tree's time.
    pub leaf_time: Duration,
    /// Network calls and positions evaluated.
    pub batches: u64,
    /// Positions evaluated by the network.
    pub evaluations: u64,
    /// Games whose result was taken from the endgame databases.
    pub adjudicated: u64,
    /// Games that reached a position with a certain database value and were played on
    /// (`selfplay.endgame.play_out_share`).
    pub played_out: u64,
    /// Games that started from a random position.
    pub random_starts: u64,
    /// Games that started from a position of an earlier game.
    pub branch_starts: u64,
    /// Wins, draws and losses of the deeper side in the games that had one.
    pub deep_side_results: Tally,
    /// Cache hits and misses.
    pub cache_hits: u64,
    /// Cache misses.
    pub cache_misses: u64,
    /// Shards written.
    pub shards: Vec<PathBuf>,
}

impl SelfPlayStats {
    /// Searched positions per second of wall time.
    pub fn positions_per_second(&self) -> f64 {
        self.positions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
    /// Share of thread time spent in the network.
    pub fn network_share(&self) -> f64 {
        self.network_time.as_secs_f64() / self.thread_time.as_secs_f64().max(1e-9)
    }

    /// The share of thread time spent preparing leaves for the network.
    pub fn leaf_share(&self) -> f64 {
        self.leaf_time.as_secs_f64() / self.thread_time.as_secs_f64().max(1e-9)
    }
    /// Counts a finished game.
    fn record(&mut self, game: &PlayedGame) {
        self.games += 1;
        self.positions += game.samples.len() as u64;
        self.plies += u64::from(game.plies);
        self.results[(1 - game.result) as usize] += 1;
        self.adjudicated += u64::from(game.adjudicated);
        self.played_out += u64::from(game.played_out);
        self.random_starts += u64::from(game.random_start);
        self.branch_starts += u64::from(game.branch_start);
        if let Some(deep) = game.deep_side {
            self.deep_side_results.record(result_for(game.result, deep));
        }
    }

    fn add(&mut self, o: &SelfPlayStats) {
        self.games += o.games;
        self.positions += o.positions;
        for i in 0..3 {
            self.results[i] += o.results[i];
        }
        self.plies += o.plies;
        self.network_time += o.network_time;
        self.leaf_time += o.leaf_time;
        self.thread_time += o.thread_time;
        self.batches += o.batches;
        self.evaluations += o.evaluations;
        self.cache_hits += o.cache_hits;
        self.adjudicated += o.adjudicated;
        self.played_out += o.played_out;
        self.random_starts += o.random_starts;
        self.branch_starts += o.branch_starts;
        self.deep_side_results += o.deep_side_results;
        self.cache_misses += o.cache_misses;
        self.shards.extend(o.shards.iter().cloned());
    }
}

/// Why self-play stopped.
#[derive(Debug, thiserror::Error)]
pub enum SelfPlayError {
    /// A setting is out of range.
    #[error(transparent)]
    Setting(#[from] crate::config::SettingError),
    /// The network does not fit the rules.
    #[error(
        "the network takes {network} inputs and {network_actions} actions; the rules need {rules} and {rules_actions}"
    )]
    Mismatch {
        /// Network inputs.
        network: usize,
        /// Network actions.
        network_actions: usize,
        /// Inputs the rules need.
        rules: usize,
        /// Actions the rules need.
        rules_actions: usize,
    },
    /// A shard could not be written.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The simulator refused a move the search chose (a bug: searches choose legal moves).
    #[error("the game simulator refused the search's move: {0}")]
    Simulator(#[from] BatchError),
    /// The simulator ended a game on a random opening move that the rules said does not
    /// end it (a bug: the two disagree).
    #[error("game {game}: the simulator ended the game on a random opening move")]
    OpeningEnded {
        /// The game's index in the run.
        game: u64,
    },
    /// A position of the branch pool is not a start the rules take (a bug: the pool keeps
    /// only those).
    #[error("game {game}: the branch start {position} is refused: {source}")]
    BranchStart {
        /// The game's index in the run.
        game: u64,
        /// The position, in the position-string notation.
        position: String,
        /// Why the rules refuse it.
        source: kvarn_game::SetupError,
    },
    /// A committed benchmark set, whose positions random starts avoid, does not read.
    #[error("the committed benchmark sets, which random starts avoid: {0}")]
    Benchmark(#[from] kvarn_solver::SolverError),
    /// Every random start drawn for a game was already over (not seen with any men
    /// counts the settings allow).
    #[error(
        "game {game}: every random starting position drawn was already over, or (for a \
         decisive start) not a certain win or loss in the databases: do they cover \
         selfplay.random_starts' men?"
    )]
    NoRandomStart {
        /// The game's index in the run.
        game: u64,
    },
    /// No position drawn for an exact sample was certain in the databases (or, for a
    /// decisive one, a win or loss far enough from its end).
    #[error(
        "exact sample {sample}: no position drawn in {draws} tries was certain in the \
         databases, or (for a decisive one) far enough from its end: do they cover \
         selfplay.random_starts' men, and can selfplay.endgame.decisive_min_turns be reached?"
    )]
    NoExactSample {
        /// The sample's index in its generation.
        sample: u64,
        /// Positions drawn.
        draws: usize,
    },
    /// The bank of exact samples (`selfplay.exact_bank`) cannot be used.
    #[error("{}: {reason}", path.display())]
    Bank {
        /// The bank.
        path: std::path::PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// The random generator of game `index` of a run.
pub fn game_rng(seed: u64, index: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(kvarn_game::seeds::derive(seed, 0, index))
}

/// Plays the job's games; returns what happened and, when no shard folder is given, the
/// games themselves.
///
/// # Errors
/// Bad settings, a network of the wrong size, or a shard that cannot be written.
pub fn run<E: Evaluator + Clone + Send>(
    job: &SelfPlayJob,
    evaluator: &E,
    progress: Option<&ProgressBar>,
) -> Result<(SelfPlayStats, Vec<PlayedGame>), SelfPlayError> {
    job.search.validate()?;
    job.selfplay.validate()?;
    let uses = &job.selfplay.endgame;
    if uses.in_games() && job.endgame.is_none() {
        return Err(SelfPlayError::Setting(SettingError::new(
            "selfplay.endgame",
            "probes, adjudication and decisive starts need endgame databases ([solver] db)",
        )));
    }
    let mut excluded = HashSet::new();
    if job.selfplay.random_starts.share > 0.0 {
        job.selfplay.random_starts.validate_for(&job.rules)?;
        excluded = kvarn_solver::benchmark::committed_keys(&job.rules)?;
    }
    let knowledge = Knowledge::pair(job);
    let ctx = &knowledge[0].ctx;
    if evaluator.input_len() != ctx.input_len() || evaluator.actions() != ctx.actions.len() {
        return Err(SelfPlayError::Mismatch {
            network: evaluator.input_len(),
            network_actions: evaluator.actions(),
            rules: ctx.input_len(),
            rules_actions: ctx.actions.len(),
        });
    }
    let start = Instant::now();
    let threads = job.selfplay.threads.min(job.games.max(1) as usize);
    let total = Mutex::new(SelfPlayStats::default());
    let games = Mutex::new(Vec::new());
    let first_error = Mutex::new(None);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (knowledge, total, games, first_error) = (&knowledge, &total, &games, &first_error);
            let excluded = &excluded;
            let mut evaluator = evaluator.clone();
            scope.spawn(move || {
                match worker(
                    job,
                    knowledge,
                    excluded,
                    &mut evaluator,
                    t,
                    threads,
                    progress,
                ) {
                    Ok((stats, played)) => {
                        total.lock().expect("stats").add(&stats);
                        games.lock().expect("games").extend(played);
                    }
                    Err(e) => {
                        first_error.lock().expect("error").get_or_insert(e);
                    }
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().expect("error") {
        return Err(e);
    }
    let mut stats = total.into_inner().expect("stats");
    stats.elapsed = start.elapsed();
    stats.shards.sort();
    let mut games = games.into_inner().expect("games");
    games.sort_by_key(|g| g.index);
    Ok((stats, games))
}

/// A game in flight: its index in the run, its search, its generator and its samples so
/// far. Its position lives in the thread's [`BatchSim`], in the slot of the same number.
struct Slot {
    index: u64,
    search: GameSearch,
    rng: Pcg64Mcg,
    samples: Vec<Sample>,
    full: bool,
    /// Played to the end even once the databases know its result.
    play_out: bool,
    /// Has reached a position with a certain database value.
    reached_databases: bool,
    /// Searches and is adjudicated with the whole game's tables
    /// (`selfplay.endgame.whole_game_share`).
    whole_game: bool,
    /// Started from a random position.
    random_start: bool,
    /// Started from a position of an earlier game.
    branch_start: bool,
    /// The side that searches deeper (`selfplay.deep_side`), if one does.
    deep_side: Option<Color>,
}

impl Slot {
    /// Whether the side to move is the game's deeper side (`selfplay.deep_side`).
    fn deeper_to_move(&self) -> bool {
        self.deep_side == Some(self.search.game.position().side_to_move())
    }
}

/// What a game's searches and adjudication know exactly: the endgame databases, with or
/// without the whole game's tables beside them.
struct Knowledge {
    ctx: SearchContext,
    endgame: Option<Arc<Endgame>>,
}

impl Knowledge {
    /// Without the whole game's tables (index 0) and with them where the run has them
    /// (index 1; else the same as index 0).
    fn pair(job: &SelfPlayJob) -> [Knowledge; 2] {
        let plain = job
            .endgame
            .as_ref()
            .map(|e| Arc::new(e.without_whole_game()));
        [plain, job.endgame.clone()].map(|endgame| Knowledge {
            ctx: SearchContext::new(job.rules, job.search.clone())
                .with_endgame(endgame.clone().filter(|_| job.selfplay.endgame.probes)),
            endgame,
        })
    }

    /// What slot `s`'s game knows.
    fn of<'k>(pair: &'k [Knowledge; 2], s: &Slot) -> &'k Knowledge {
        &pair[usize::from(s.whole_game)]
    }
}

/// Where a game starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StartKind {
    /// The empty board, after the random opening.
    Empty,
    /// A random position (`selfplay.random_starts`).
    Random,
    /// A position of an earlier game (`selfplay.branch_starts`), where there is one.
    Branch,
}

/// What one thread plays: the games it keeps in flight as one [`BatchSim`] (which steps,
/// counts repetitions for and restarts them), a search per game, and the network batch
/// their leaves share.
struct Worker<'a, E> {
    job: &'a SelfPlayJob,
    knowledge: &'a [Knowledge; 2],
    /// Canonical keys of the committed benchmark positions: never a random start.
    excluded: &'a HashSet<u64>,
    evaluator: &'a mut E,
    sim: BatchSim,
    slots: Vec<Option<Slot>>,
    cache: EvalCache,
    stats: SelfPlayStats,
    /// Slot of each row of the batch waiting for the network.
    waiting: Vec<usize>,
    features: Vec<f32>,
    logits: Vec<f32>,
    wdl: Vec<f32>,
    finished: Vec<PlayedGame>,
    kept: Vec<PlayedGame>,
    next_game: u64,
    step: u64,
}

fn worker<E: Evaluator>(
    job: &SelfPlayJob,
    knowledge: &[Knowledge; 2],
    excluded: &HashSet<u64>,
    evaluator: &mut E,
    thread: usize,
    threads: usize,
    progress: Option<&ProgressBar>,
) -> Result<(SelfPlayStats, Vec<PlayedGame>), SelfPlayError> {
    let began = Instant::now();
    let slots = job.selfplay.games_per_thread;
    let input = knowledge[0].ctx.input_len();
    let mut w = Worker {
        job,
        knowledge,
        excluded,
        evaluator,
        sim: BatchSim::new(job.rules, slots),
        slots: (0..slots).map(|_| None).collect(),
        cache: EvalCache::new(job.search.cache_entries),
        stats: SelfPlayStats::default(),
        waiting: Vec::with_capacity(slots),
        features: vec![0f32; slots * input],
        logits: Vec::new(),
        wdl: Vec::new(),
        finished: Vec::new(),
        kept: Vec::new(),
        next_game: thread as u64,
        step: threads as u64,
    };
    loop {
        w.fill_slots()?;
        if w.slots.iter().all(Option::is_none) {
            break;
        }
        w.advance_searches(progress)?;
        w.evaluate_waiting();
        if w.finished.len() >= job.selfplay.games_per_shard {
            flush(job, &mut w.finished, &mut w.kept, &mut w.stats)?;
        }
    }
    if !w.finished.is_empty() {
        flush(job, &mut w.finished, &mut w.kept, &mut w.stats)?;
    }
    w.stats.cache_hits = w.cache.hits;
    w.stats.cache_misses = w.cache.misses;
    w.stats.thread_time = began.elapsed();
    Ok((w.stats, w.kept))
}

impl<E: Evaluator> Worker<'_, E> {
    /// Starts the thread's next unplayed games in the empty slots, from the simulator's
    /// start position.
    fn fill_slots(&mut self) -> Result<(), SelfPlayError> {
        for i in 0..self.slots.len() {
            while self.next_game < self.job.games && self.job.skip.contains(&self.next_game) {
                self.next_game += self.step;
            }
            if self.slots[i].is_some() || self.next_game >= self.job.games {
                continue;
            }
            let mut s = self.new_game(i)?;
            start_search(
                &Knowledge::of(self.knowledge, &s).ctx,
                &self.job.selfplay,
                &mut s,
            );
            self.slots[i] = Some(s);
            self.next_game += self.step;
        }
        Ok(())
    }

    /// Game `next_game` in slot `i` of the simulator: from a random position (a share
    /// of the games, never adjudicated), from a position of the previous generation's
    /// games (another share), or from the empty board after its random opening.
    fn new_game(&mut self, i: usize) -> Result<Slot, SelfPlayError> {
        let (job, index) = (self.job, self.next_game);
        let mut rng = game_rng(job.seed, index);
        let start = self.start_kind(index);
        let branch = match start {
            StartKind::Branch => job.branch_from.draw(&mut rng),
            _ => None,
        };
        let game = match (start, branch) {
            (StartKind::Random, _) => self
                .draw_start(index, &mut rng)
                .ok_or(SelfPlayError::NoRandomStart { game: index })?,
            // The pool holds only positions the rules take as a start.
            (_, Some(position)) => Game::from_position(job.rules, position).map_err(|source| {
                SelfPlayError::BranchStart {
                    game: index,
                    position: position.to_position_string(&job.rules),
                    source,
                }
            })?,
            _ => Game::new(job.rules),
        };
        let random_start = start == StartKind::Random;
        let at_position = random_start || branch.is_some();
        if at_position {
            self.sim.reset_to(i, *game.position())?;
        } else {
            self.sim.reset(i)?;
        }
        let play_out = random_start || plays_out(job, index);
        let mut s = Slot {
            index,
            search: GameSearch::new(game),
            rng,
            samples: Vec::new(),
            full: true,
            play_out,
            reached_databases: false,
            whole_game: !play_out && uses_whole_game(job, index),
            random_start,
            branch_start: branch.is_some(),
            deep_side: deep_side_of(job, index),
        };
        if !at_position {
            play_random_opening(
                &Knowledge::of(self.knowledge, &s).ctx,
                job,
                &mut s,
                &mut self.sim,
                i,
            )?;
        }
        Ok(s)
    }

    /// Where game `index` starts, drawn from the run's seed and the index alone: the
    /// first `random_starts.share` of the draws start randomly, the next
    /// `branch_starts.share` from earlier games.
    fn start_kind(&self, index: u64) -> StartKind {
        let cfg = &self.job.selfplay;
        let draw = drawn(self.job.seed, RANDOM_START_STREAM, index);
        if draw < cfg.random_starts.share {
            StartKind::Random
        } else if draw < cfg.random_starts.share + cfg.branch_starts.share {
            StartKind::Branch
        } else {
            StartKind::Empty
        }
    }

    /// Game `index`'s random start: a decisive one (a certain win or loss in the
    /// databases, far enough from its end) for the share
    /// `selfplay.endgame.decisive_starts` of them, chosen from a seed stream of its own;
    /// never a committed benchmark position (nor its images or colour-swapped twin).
    fn draw_start(&self, index: u64, rng: &mut Pcg64Mcg) -> Option<Game> {
        let (job, starts) = (self.job, &self.job.selfplay.random_starts);
        let uses = &job.selfplay.endgame;
        let fresh = |g: &Game| {
            !self
                .excluded
                .contains(&g.position().canonical_key(&job.rules))
        };
        match &job.endgame {
            Some(endgame)
                if drawn(job.seed, DECISIVE_START_STREAM, index) < uses.decisive_starts =>
            {
                let decisive = |g: &Game| match endgame.probe(g) {
                    Some(Value::Win(d) | Value::Loss(d)) => d >= uses.decisive_min_turns,
                    _ => false,
                };
                starts.draw_where(job.rules, rng, DECISIVE_DRAWS, |g| decisive(g) && fresh(g))
            }
            _ => starts.draw_where(job.rules, rng, crate::starts::DRAWS, fresh),
        }
    }

    /// Runs each game's search until it needs the network (its features join the batch)
    /// or completes (its move is played, and a finished game leaves its slot).
    fn advance_searches(&mut self, progress: Option<&ProgressBar>) -> Result<(), SelfPlayError> {
        self.waiting.clear();
        let input = self.knowledge[0].ctx.input_len();
        for i in 0..self.slots.len() {
            let Some(s) = self.slots[i].as_mut() else {
                continue;
            };
            let knows = Knowledge::of(self.knowledge, s);
            let row = self.waiting.len();
            let features = &mut self.features[row * input..(row + 1) * input];
            loop {
                let advance = s
                    .search
                    .advance(&knows.ctx, &mut self.cache, &mut s.rng, features);
                self.stats.leaf_time += s.search.take_leaf_time();
                match advance {
                    Advance::NeedsEval => {
                        self.waiting.push(i);
                        break;
                    }
                    Advance::Complete => {
                        let Some(game) = finish_move(knows, self.job, s, &mut self.sim, i)? else {
                            continue;
                        };
                        self.stats.record(&game);
                        self.finished.push(game);
                        self.slots[i] = None;
                        if let Some(p) = progress {
                            p.inc(1);
                        }
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    /// Evaluates the waiting leaves in one network batch and hands each its result.
    fn evaluate_waiting(&mut self) {
        let n = self.waiting.len();
        if n == 0 {
            return;
        }
        let ctx = &self.knowledge[0].ctx;
        let (input, actions) = (ctx.input_len(), ctx.actions.len());
        let t = Instant::now();
        self.evaluator.evaluate(
            &self.features[..n * input],
            n,
            &mut self.logits,
            &mut self.wdl,
        );
        self.stats.network_time += t.elapsed();
        self.stats.batches += 1;
        self.stats.evaluations += n as u64;
        for (row, &i) in self.waiting.iter().enumerate() {
            let s = self.slots[i].as_mut().expect("a waiting slot");
            let v = [
                self.wdl[row * 3],
                self.wdl[row * 3 + 1],
                self.wdl[row * 3 + 2],
            ];
            let logits = &self.logits[row * actions..(row + 1) * actions];
            let ctx = &Knowledge::of(self.knowledge, s).ctx;
            s.search.supply(ctx, &mut self.cache, logits, v);
        }
    }
}

/// Plays game `i`'s random opening (`selfplay.random_opening_plies`) in the simulator and
/// in its search: uniformly random decisions, never one that ends the game.
fn play_random_opening(
    ctx: &SearchContext,
    job: &SelfPlayJob,
    s: &mut Slot,
    sim: &mut BatchSim,
    i: usize,
) -> Result<(), SelfPlayError> {
    let most = job.selfplay.random_opening_plies;
    if most == 0 {
        return Ok(());
    }
    for _ in 0..s.rng.random_range(0..=most) {
        let game = &s.search.game;
        let open: Vec<Move> = game
            .legal_moves()
            .iter()
            .copied()
            .filter(|&mv| {
                let mut after = game.clone();
                after.play_unchecked(mv);
                !after.status().is_over()
            })
            .collect();
        if open.is_empty() {
            break;
        }
        let action = ctx.actions.index(open[s.rng.random_range(0..open.len())]);
        if sim.step_one(i, action)?.is_some() {
            // The move was checked not to end the game: the simulator disagrees.
            return Err(SelfPlayError::OpeningEnded { game: s.index });
        }
        s.search.play(ctx, action, false);
    }
    Ok(())
}

/// Starts the search of the slot's next move: a full one (a training sample) or, under the
/// playout cap, maybe a cheap one. With probes, a position certain in the databases is
/// always searched fully: its leaves are database values, so a full search costs one
/// network call.
fn start_search(ctx: &SearchContext, cfg: &SelfPlayConfig, s: &mut Slot) {
    let certain = ctx
        .endgame
        .as_ref()
        .is_some_and(|e| e.outcome(&s.search.game).is_some());
    let search = &ctx.config;
    s.full = certain
        || !cfg.playout_cap.enabled
        || s.rng.random_range(0.0..1.0) < cfg.playout_cap.full_probability;
    let sims = if s.full {
        search.simulations
    } else {
        cfg.playout_cap.cheap_simulations
    };
    let factor = if s.deeper_to_move() {
        cfg.deep_side.factor
    } else {
        1
    };
    s.search.start(sims.saturating_mul(factor), s.full);
}

/// Records the finished search, plays its move in the simulator (slot `i`) and in the
/// search's tree, and either starts the next search or returns the finished game.
fn finish_move(
    knows: &Knowledge,
    job: &SelfPlayJob,
    s: &mut Slot,
    sim: &mut BatchSim,
    i: usize,
) -> Result<Option<PlayedGame>, SelfPlayError> {
    let (ctx, cfg) = (&knows.ctx, &job.selfplay);
    let ply = sim.plies()[i];
    // Plies from the game's start drawn at `search.temperature`: a branched game's own.
    let temperature_plies = if s.branch_start {
        cfg.branch_starts.temperature_plies
    } else {
        ctx.config.temperature_plies
    };
    let removal = sim.positions()[i].pending_removal();
    let temperature = match ctx.config.root {
        RootSearch::Puct if ply < temperature_plies => ctx.config.temperature,
        RootSearch::Puct if removal && !ctx.config.late_temperature_on_removals => 0.0,
        RootSearch::Puct => ctx.config.late_temperature,
        RootSearch::Gumbel => 0.0,
    };
    let result = s.search.result(ctx, temperature, &mut s.rng);
    debug_assert_eq!(s.search.game.position().key(), sim.positions()[i].key());
    s.samples.push(Sample {
        position: sim.positions()[i],
        occurrences: sim.occurrences()[i].min(255) as u8,
        full_search: s.full,
        result: 0,
        search_wdl: result.wdl,
        policy: result.policy,
        // Only the late temperature's: the opening's draws vary the starts, as the random
        // opening plies do, and are part of what the result is the result of.
        explored: result.explored && ply >= temperature_plies,
        surprise: result.surprise,
    });
    // The deeper side's tree is not handed on: the other side searches with its own
    // simulations alone.
    let deeper = s.deeper_to_move();
    let ended = sim.step_one(i, result.action)?;
    s.search
        .play(ctx, result.action, ctx.config.reuse_tree && !deeper);
    let (white, plies) = match ended {
        Some(f) => (white_score(f.status), f.plies),
        None => {
            if let Some(white) = adjudicate(job, knows.endgame.as_deref(), s) {
                let mut game = finished_game(s, white, sim.plies()[i]);
                game.adjudicated = true;
                return Ok(Some(game));
            }
            if sim.plies()[i] < cfg.max_plies {
                start_search(ctx, cfg, s);
                return Ok(None);
            }
            (0, sim.plies()[i])
        }
    };
    Ok(Some(finished_game(s, white, plies)))
}

/// The side of game `index` that searches deeper (`selfplay.deep_side`), if any: drawn
/// from the run's seed and the index alone, so that it does not disturb the game's moves.
fn deep_side_of(job: &SelfPlayJob, index: u64) -> Option<Color> {
    let deep = &job.selfplay.deep_side;
    (drawn(job.seed, DEEP_SIDE_STREAM, index) < deep.share).then(|| {
        if drawn(job.seed, DEEP_COLOUR_STREAM, index) < 0.5 {
            Color::White
        } else {
            Color::Black
        }
    })
}

/// Whether game `index` is one of the share played to the end past the databases: drawn
/// from the run's seed and the index alone, so that it does not disturb the game's moves.
fn plays_out(job: &SelfPlayJob, index: u64) -> bool {
    drawn(job.seed, PLAY_OUT_STREAM, index) < job.selfplay.endgame.play_out_share
}

/// Whether game `index` is one of the share that uses the whole game's tables, where the
/// run has them: drawn from the run's seed and the index alone.
fn uses_whole_game(job: &SelfPlayJob, index: u64) -> bool {
    job.endgame.as_ref().is_some_and(|e| e.has_whole_game())
        && drawn(job.seed, WHOLE_GAME_STREAM, index) < job.selfplay.endgame.whole_game_share
}

/// A number in `0..1` for game `index` from the run's seed and a stream of its own, apart
/// from the game's generator, so that choosing a game's kind does not disturb its moves.
pub(crate) fn drawn(seed: u64, stream: u64, index: u64) -> f64 {
    let draw = kvarn_game::seeds::derive(seed, stream, index);
    (draw >> 11) as f64 / (1u64 << 53) as f64
}

/// Seed stream of the play-out draw.
const PLAY_OUT_STREAM: u64 = 0x656e_6467;
/// Seed stream of the whole-game tables' draw.
const WHOLE_GAME_STREAM: u64 = 0x7768_6f6c;
/// Seed stream of the deep-side draw, and of its colour.
const DEEP_SIDE_STREAM: u64 = 0x6465_6570;
const DEEP_COLOUR_STREAM: u64 = 0x636f_6c6f;
/// Seed stream of the random-start draw.
const RANDOM_START_STREAM: u64 = 0x7374_6172;
/// Seed stream of the decisive-start draw.
const DECISIVE_START_STREAM: u64 = 0x6465_6369;
/// Draws of a decisive start before it gives up: a probe is cheap, so even a rare kind of
/// start is found; none is where the databases do not cover the men drawn.
const DECISIVE_DRAWS: usize = 100_000;

/// The game's result for White from the databases, when they know it for certain and the
/// game is not one of those played out (which are counted once instead).
fn adjudicate(job: &SelfPlayJob, endgame: Option<&Endgame>, s: &mut Slot) -> Option<i8> {
    if !job.selfplay.endgame.adjudicate {
        return None;
    }
    let white = endgame?.result_for_white(&s.search.game)?;
    if s.play_out {
        s.reached_databases = true;
        return None;
    }
    Some(white)
}

/// The result for White of a finished game: +1, 0 or −1.
fn white_score(status: Status) -> i8 {
    match status {
        Status::Win {
            winner: Color::White,
            ..
        } => 1,
        Status::Win { .. } => -1,
        Status::Ongoing | Status::Draw { .. } => 0,
    }
}

/// A game's result (`white`: 1, 0 or -1 for White) from `side`'s view.
fn result_for(white: i8, side: Color) -> i8 {
    if side == Color::White { white } else { -white }
}

/// The slot's game, each sample given the result from its mover's view.
fn finished_game(s: &mut Slot, white: i8, plies: u32) -> PlayedGame {
    let mut samples = std::mem::take(&mut s.samples);
    for sample in &mut samples {
        sample.result = result_for(white, sample.position.side_to_move());
    }
    PlayedGame {
        index: s.index,
        result: white,
        plies,
        samples,
        final_men: Color::BOTH.map(|c| s.search.game.position().men(c)),
        adjudicated: false,
        played_out: s.reached_databases && !s.random_start,
        random_start: s.random_start,
        branch_start: s.branch_start,
        deep_side: s.deep_side,
    }
}

fn flush(
    job: &SelfPlayJob,
    finished: &mut Vec<PlayedGame>,
    kept: &mut Vec<PlayedGame>,
    stats: &mut SelfPlayStats,
) -> Result<(), SelfPlayError> {
    let games = std::mem::take(finished);
    if let Some(dir) = &job.out {
        let first = games.iter().map(|g| g.index).min().expect("a game");
        let path = shard_path(dir, &job.shard_prefix, first);
        let samples: Vec<Sample> = games
            .iter()
            .flat_map(|g| g.samples.iter().cloned())
            .collect();
        let header = ShardHeader {
            encoding_version: ENCODING_VERSION,
            rules: job.rules,
            games: games.len() as u32,
            samples: samples.len() as u64,
            game_list: games
                .iter()
                .map(|g| GameSummary {
                    index: g.index,
                    result: g.result,
                    plies: g.plies,
                    samples: g.samples.len() as u32,
                    final_men: Some(g.final_men.map(|m| m.bits())),
                })
                .collect(),
            model: job.model.clone(),
            source: SampleSource::Games,
            seed: Some(job.seed),
        };
        write_shard(&path, &header, &samples)?;
        tracing::debug!(shard = %path.display(), games = games.len(), samples = samples.len(), "shard written");
        stats.shards.push(path);
    } else {
        kept.extend(games);
    }
    Ok(())
}

/// The name of the shard whose lowest game index is `first`: unique within a run, since
/// every game is in exactly one shard.
pub fn shard_path(dir: &Path, prefix: &str, first: u64) -> PathBuf {
    dir.join(format!("{prefix}-g{first:07}.{SHARD_EXTENSION}"))
}
