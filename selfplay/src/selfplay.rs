//! Self-play: threads of interleaved games, their leaves evaluated in shared batches, and
//! the finished games written as shards.
//!
//! Game `i` of a run is played by thread `i mod threads` with a random generator seeded
//! from the run's seed and `i`, so that a seed, the settings and the network give the same
//! games on every CPU run.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::ProgressBar;
use kvarn_game::{ENCODING_VERSION, Game, Rules, Status};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::config::{RootSearch, SearchConfig, SelfPlayConfig};
use crate::evaluator::{EvalCache, Evaluator};
use crate::search::{Advance, GameSearch, SearchContext};
use crate::shard::{GameSummary, SHARD_EXTENSION, Sample, ShardError, ShardHeader, write_shard};

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
    /// Network calls and positions evaluated.
    pub batches: u64,
    /// Positions evaluated by the network.
    pub evaluations: u64,
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
    fn add(&mut self, o: &SelfPlayStats) {
        self.games += o.games;
        self.positions += o.positions;
        for i in 0..3 {
            self.results[i] += o.results[i];
        }
        self.plies += o.plies;
        self.network_time += o.network_time;
        self.thread_time += o.thread_time;
        self.batches += o.batches;
        self.evaluations += o.evaluations;
        self.cache_hits += o.cache_hits;
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
}

/// The random generator of game `index` of a run.
pub fn game_rng(seed: u64, index: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(kvarn_game::seeds::derive(seed, 0, index))
}

struct Slot {
    index: u64,
    search: GameSearch,
    rng: Pcg64Mcg,
    samples: Vec<Sample>,
    full: bool,
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
    let ctx = SearchContext::new(job.rules, job.search.clone());
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
            let (ctx, total, games, first_error) = (&ctx, &total, &games, &first_error);
            let mut evaluator = evaluator.clone();
            scope.spawn(
                move || match worker(job, ctx, &mut evaluator, t, threads, progress) {
                    Ok((stats, played)) => {
                        total.lock().expect("stats").add(&stats);
                        games.lock().expect("games").extend(played);
                    }
                    Err(e) => {
                        first_error.lock().expect("error").get_or_insert(e);
                    }
                },
            );
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

fn worker<E: Evaluator>(
    job: &SelfPlayJob,
    ctx: &SearchContext,
    evaluator: &mut E,
    thread: usize,
    threads: usize,
    progress: Option<&ProgressBar>,
) -> Result<(SelfPlayStats, Vec<PlayedGame>), SelfPlayError> {
    let began = Instant::now();
    let input = ctx.input_len();
    let actions = ctx.actions.len();
    let cfg = &job.selfplay;
    let mut stats = SelfPlayStats::default();
    let mut cache = EvalCache::new(job.search.cache_entries);
    let mut next_game = thread as u64;
    let mut slots: Vec<Option<Slot>> = (0..cfg.games_per_thread).map(|_| None).collect();
    let mut features = vec![0f32; cfg.games_per_thread * input];
    let (mut logits, mut wdl) = (Vec::new(), Vec::new());
    let mut waiting = Vec::with_capacity(cfg.games_per_thread);
    let mut finished: Vec<PlayedGame> = Vec::new();
    let mut kept: Vec<PlayedGame> = Vec::new();
    loop {
        for slot in slots.iter_mut() {
            while next_game < job.games && job.skip.contains(&next_game) {
                next_game += threads as u64;
            }
            if slot.is_none() && next_game < job.games {
                let mut s = Slot {
                    index: next_game,
                    search: GameSearch::new(Game::new(job.rules)),
                    rng: game_rng(job.seed, next_game),
                    samples: Vec::new(),
                    full: true,
                };
                start_search(&job.search, cfg, &mut s);
                *slot = Some(s);
                next_game += threads as u64;
            }
        }
        if slots.iter().all(Option::is_none) {
            break;
        }
        waiting.clear();
        for (i, slot) in slots.iter_mut().enumerate() {
            let Some(s) = slot.as_mut() else { continue };
            let row = waiting.len();
            loop {
                match s.search.advance(
                    ctx,
                    &mut cache,
                    &mut s.rng,
                    &mut features[row * input..(row + 1) * input],
                ) {
                    Advance::NeedsEval => {
                        waiting.push(i);
                        break;
                    }
                    Advance::Complete => {
                        if let Some(game) = finish_move(ctx, cfg, s) {
                            stats.games += 1;
                            stats.positions += game.samples.len() as u64;
                            stats.plies += u64::from(game.plies);
                            stats.results[(1 - game.result) as usize] += 1;
                            finished.push(game);
                            *slot = None;
                            if let Some(p) = progress {
                                p.inc(1);
                            }
                            break;
                        }
                    }
                }
            }
        }
        if !waiting.is_empty() {
            let n = waiting.len();
            let t = Instant::now();
            evaluator.evaluate(&features[..n * input], n, &mut logits, &mut wdl);
            stats.network_time += t.elapsed();
            stats.batches += 1;
            stats.evaluations += n as u64;
            for (row, &i) in waiting.iter().enumerate() {
                let s = slots[i].as_mut().expect("a waiting slot");
                let v = [wdl[row * 3], wdl[row * 3 + 1], wdl[row * 3 + 2]];
                s.search.supply(
                    ctx,
                    &mut cache,
                    &logits[row * actions..(row + 1) * actions],
                    v,
                );
            }
        }
        if finished.len() >= cfg.games_per_shard {
            flush(job, &mut finished, &mut kept, &mut stats)?;
        }
    }
    if !finished.is_empty() {
        flush(job, &mut finished, &mut kept, &mut stats)?;
    }
    stats.cache_hits = cache.hits;
    stats.cache_misses = cache.misses;
    stats.thread_time = began.elapsed();
    Ok((stats, kept))
}

fn start_search(search: &SearchConfig, cfg: &SelfPlayConfig, s: &mut Slot) {
    s.full =
        !cfg.playout_cap.enabled || s.rng.random_range(0.0..1.0) < cfg.playout_cap.full_probability;
    let sims = if s.full {
        search.simulations
    } else {
        cfg.playout_cap.cheap_simulations
    };
    s.search.start(sims, s.full);
}

/// Records the finished search, plays its move, and either starts the next search or
/// returns the finished game.
fn finish_move(ctx: &SearchContext, cfg: &SelfPlayConfig, s: &mut Slot) -> Option<PlayedGame> {
    let ply = s.search.game.ply() as u32;
    let temperature = if ctx.config.root == RootSearch::Puct && ply < ctx.config.temperature_plies {
        ctx.config.temperature
    } else {
        0.0
    };
    let result = s.search.result(ctx, temperature, &mut s.rng);
    let game = &s.search.game;
    s.samples.push(Sample {
        position: *game.position(),
        occurrences: game.occurrences().min(255) as u8,
        full_search: s.full,
        result: 0,
        search_wdl: result.wdl,
        policy: result.policy,
    });
    s.search.play(ctx, result.action, ctx.config.reuse_tree);
    let status = s.search.status();
    let plies = s.search.game.ply() as u32;
    let white = match status {
        Status::Ongoing if plies < cfg.max_plies => {
            start_search(&ctx.config, cfg, s);
            return None;
        }
        Status::Ongoing | Status::Draw { .. } => 0,
        Status::Win { winner, .. } => {
            if winner == kvarn_game::Color::White {
                1
            } else {
                -1
            }
        }
    };
    let mut samples = std::mem::take(&mut s.samples);
    for sample in &mut samples {
        sample.result = if sample.position.side_to_move() == kvarn_game::Color::White {
            white
        } else {
            -white
        };
    }
    Some(PlayedGame {
        index: s.index,
        result: white,
        plies,
        samples,
    })
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
                })
                .collect(),
            model: job.model.clone(),
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
