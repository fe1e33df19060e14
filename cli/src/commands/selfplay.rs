//! `kvarn selfplay`: games of the network against itself, written as shards.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use kvarn_model::{DeviceChoice, Inference, InferencePath, Network, file};
use kvarn_selfplay::shard::SHARD_EXTENSION;
use kvarn_selfplay::{BranchPool, Endgame, SelfPlayJob, SelfPlayStats, run};

use kvarn_train::RunConfig;
use kvarn_train::replay;

/// Arguments of `kvarn selfplay`.
#[derive(Args, Debug)]
pub struct SelfPlayArgs {
    #[command(flatten)]
    play: PlayArgs,
    /// Folder for the shards. One that already holds shards is refused unless --overwrite
    /// is given.
    #[arg(long)]
    out: PathBuf,
    /// Write into a folder that already holds shards: the shards `kvarn selfplay` wrote
    /// there (`selfplay-g*`) are deleted first, so that the folder holds only this run's.
    #[arg(long)]
    overwrite: bool,
    /// Also write what was played (games, positions, plies, results, adjudicated and
    /// played-out games, seconds) to this JSON file, for the programs that run it (a Ray
    /// task does).
    #[arg(long)]
    stats: Option<PathBuf>,
}

/// What plays and how: shared by `kvarn selfplay` and `kvarn bench selfplay`.
#[derive(Args, Debug, Clone)]
pub struct PlayArgs {
    /// Run configuration (TOML): rules, `[search]`, `[selfplay]`, and `[network]` when no
    /// model is given.
    #[arg(long)]
    config: PathBuf,
    /// The model that plays (default: a freshly initialised network of the configuration).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Games to play: indices 0 to GAMES − 1.
    #[arg(long, default_value_t = 64)]
    games: u64,
    /// Play only these game indices (e.g. `0-31,64-95`) of the seed's games instead: a
    /// share of a generation, as a Ray task plays it.
    #[arg(long, conflicts_with = "games", value_parser = parse_indices)]
    indices: Option<std::collections::BTreeSet<u64>>,
    /// The model's name written into the shards (default: its path).
    #[arg(long)]
    model_name: Option<String>,
    /// Folder of the endgame databases (default: the configuration's `solver.db`).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Folder of earlier games' shards (a run's `shards/gen-NNNN`) that the
    /// configuration's `[selfplay.branch_starts]` draw their positions from (required
    /// when it has a share).
    #[arg(long)]
    branch_from: Option<PathBuf>,
    /// Seed (default: the configuration's).
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads (default: the configuration's).
    #[arg(long)]
    threads: Option<usize>,
    /// Simulations per full search (default: the configuration's).
    #[arg(long)]
    simulations: Option<u32>,
    /// Evaluate through burn even where the CPU MLP path applies.
    #[arg(long)]
    burn: bool,
    /// Arithmetic of the network: auto, f32, bf16 or int8 (default: the configuration's
    /// `selfplay.precision`).
    #[arg(long)]
    precision: Option<String>,
    /// Leave the endgame databases out even where the configuration's
    /// `[selfplay.endgame]` uses them (to measure what they change).
    #[arg(long)]
    no_endgame: bool,
    /// Device: cpu, or a GPU backend built in by feature (default: the configuration's).
    #[arg(long)]
    device: Option<DeviceChoice>,
}

/// A configured self-play job and the evaluator that plays it.
struct Prepared {
    job: SelfPlayJob,
    engine: Inference,
}

/// Loads the configuration and the model, and sets up the job (`out`: where shards go).
fn prepare(args: &PlayArgs, out: Option<PathBuf>) -> anyhow::Result<Prepared> {
    let mut config = RunConfig::load(&args.config)?;
    if let Some(t) = args.threads {
        config.selfplay.threads = t;
    }
    if let Some(s) = args.simulations {
        config.search.simulations = s;
    }
    if args.no_endgame {
        config.selfplay.endgame = kvarn_selfplay::EndgameUse::default();
    }
    if let Some(db) = &args.db {
        config.solver.db = Some(db.clone());
    }
    let endgame = endgame(&config)?;
    let seed = args.seed.unwrap_or(config.seed);
    let device = args.device.unwrap_or(config.device).device()?;
    let (network, model_name) = match &args.model {
        Some(path) => {
            let (network, _) = file::load_for_rules(path, &config.rules, &device)?;
            let name = args.model_name.clone();
            (network, name.unwrap_or_else(|| path.display().to_string()))
        }
        None => {
            tracing::warn!("no --model: playing with a freshly initialised network");
            (
                Network::new(config.rules, config.network.clone(), seed, &device)?,
                format!("untrained {}", config.network.describe()),
            )
        }
    };
    let path = if args.burn {
        InferencePath::Burn
    } else {
        InferencePath::Fastest
    };
    if let Some(text) = &args.precision {
        config.selfplay.precision = kvarn_model::Precision::parse_request(text)?;
    }
    let mut engine = Inference::new(&network, path, config.selfplay.precision)
        .context("--precision, or the configuration's selfplay.precision")?;
    if config.selfplay.threads > 1 {
        // One evaluator per worker thread already uses every core.
        engine = engine.single_threaded();
    }
    let (games, skip) = match &args.indices {
        None => (args.games, Default::default()),
        Some(set) => {
            let games = set.last().map_or(0, |&last| last + 1);
            (games, (0..games).filter(|i| !set.contains(i)).collect())
        }
    };
    let job = SelfPlayJob {
        rules: config.rules,
        search: config.search.clone(),
        selfplay: config.selfplay.clone(),
        games,
        skip,
        seed,
        out,
        shard_prefix: "selfplay".into(),
        model: model_name,
        branch_from: Arc::new(branch_pool(args, &config, endgame.as_deref())?),
        endgame,
    };
    Ok(Prepared { job, engine })
}

/// The configuration's endgame databases (`[solver] db`, up to `max_men`), when its
/// `[selfplay.endgame]` uses them.
fn endgame(config: &RunConfig) -> anyhow::Result<Option<Arc<Endgame>>> {
    if !config.selfplay.endgame.in_games() {
        return Ok(None);
    }
    let db = config
        .solver
        .db
        .as_ref()
        .context("[selfplay.endgame] needs the [solver] databases: set solver.db")?;
    let endgame = Endgame::open(db, config.rules, Some(config.solver.max_men))
        .with_context(|| format!("loading the endgame databases in {}", db.display()))?;
    let tables = kvarn_train::stages::selfplay::open_whole_game(config)
        .context("loading the whole-game tables (solver.whole_game_db)")?;
    Ok(Some(Arc::new(endgame.with_whole_game(tables))))
}

/// Plays the job with a progress bar.
fn play_games(prepared: &Prepared) -> anyhow::Result<SelfPlayStats> {
    let bar = ProgressBar::new(prepared.job.games).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {elapsed_precise} eta {eta}")
            .expect("template"),
    );
    bar.enable_steady_tick(Duration::from_millis(500));
    let (stats, _) = run(&prepared.job, &prepared.engine, Some(&bar))?;
    bar.finish_and_clear();
    Ok(stats)
}

/// Plays the games.
pub fn run_selfplay(args: &SelfPlayArgs) -> anyhow::Result<()> {
    // The folder is this process's until it ends: a second `kvarn selfplay` into it is
    // refused rather than mixing its games with these.
    let _lock = kvarn_storage::claim_folder(&args.out)?;
    let existing = shards_in(&args.out)?;
    anyhow::ensure!(
        existing.is_empty() || args.overwrite,
        "{} already holds {} shards (*.{SHARD_EXTENSION}); new games would overwrite or mix \
         with them: choose another --out, or pass --overwrite to replace them",
        args.out.display(),
        existing.len()
    );
    let prepared = prepare(&args.play, Some(args.out.clone()))?;
    for old in existing.iter().filter(|p| written_here(p)) {
        std::fs::remove_file(old).with_context(|| format!("removing {}", old.display()))?;
    }
    let stats = play_games(&prepared)?;
    print_stats(&stats, &prepared.engine);
    outln!("{} shards in {}", stats.shards.len(), args.out.display());
    if let Some(path) = &args.stats {
        let figures = serde_json::json!({
            "games": stats.games,
            "positions": stats.positions,
            "plies": stats.plies,
            "results": stats.results,
            "adjudicated": stats.adjudicated,
            "played_out": stats.played_out,
            "random_starts": stats.random_starts,
            "branch_starts": stats.branch_starts,
            "deep_side_results": stats.deep_side_results,
            "seconds": stats.elapsed.as_secs_f64(),
        });
        std::fs::write(path, figures.to_string())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Arguments of `kvarn bench selfplay`.
#[derive(Args, Debug)]
pub struct BenchSelfPlayArgs {
    #[command(flatten)]
    play: PlayArgs,
    /// Precisions compared back to back on the same games (e.g. `f32,bf16,int8`), the
    /// first the reference of the ratios (default: --precision, or the configuration's).
    #[arg(long, value_delimiter = ',', conflicts_with = "precision")]
    precisions: Vec<String>,
    /// Times each precision plays the games, in turns (f32, bf16, f32, bf16, ...), so
    /// that a machine's drift falls on all of them alike.
    #[arg(long, default_value_t = 1)]
    rounds: u32,
}

/// `kvarn bench selfplay`: the games of `kvarn selfplay` without writing shards, and the
/// figures that say where the time went, for each precision asked for.
pub fn bench_selfplay(args: &BenchSelfPlayArgs) -> anyhow::Result<()> {
    let mut runs: Vec<(String, Vec<SelfPlayStats>)> = Vec::new();
    let precisions: Vec<Option<&str>> = if args.precisions.is_empty() {
        vec![args.play.precision.as_deref()]
    } else {
        args.precisions.iter().map(|p| Some(p.as_str())).collect()
    };
    for round in 0..args.rounds.max(1) {
        for (i, precision) in precisions.iter().enumerate() {
            let play = PlayArgs {
                precision: precision.map(str::to_string),
                ..args.play.clone()
            };
            let prepared = prepare(&play, None)?;
            if round == 0 {
                print_job(&play, &prepared);
                runs.push((prepared.engine.precision().to_string(), Vec::new()));
            }
            let stats = play_games(&prepared)?;
            print_stats(&stats, &prepared.engine);
            print_shares(&stats);
            runs[i].1.push(stats);
        }
    }
    if runs.len() > 1 || args.rounds > 1 {
        print_comparison(&runs);
    }
    Ok(())
}

fn print_job(play: &PlayArgs, prepared: &Prepared) {
    let job = &prepared.job;
    outln!(
        "bench selfplay, {}: {}, {} simulations, {} threads, {} games, kernels {}, precision {}",
        play.config.display(),
        job.model,
        job.search.simulations,
        job.selfplay.threads,
        job.games,
        kvarn_model::cpu::KernelPath::detected(),
        prepared.engine.precision()
    );
}

fn print_shares(stats: &SelfPlayStats) {
    outln!(
        "thread time: network {:.0}%, leaves (symmetry key, cache, encoding) {:.0}%, the rest \
         of the tree {:.0}%",
        100.0 * stats.network_share(),
        100.0 * stats.leaf_share(),
        100.0 * (1.0 - stats.network_share() - stats.leaf_share())
    );
}

/// A line per precision: positions per second over all its rounds, its ratio to the
/// first's, and its shares of thread time.
fn print_comparison(runs: &[(String, Vec<SelfPlayStats>)]) {
    let total = |all: &[SelfPlayStats]| {
        let secs =
            |f: fn(&SelfPlayStats) -> Duration| all.iter().map(|s| f(s).as_secs_f64()).sum::<f64>();
        let positions: u64 = all.iter().map(|s| s.positions).sum();
        let thread = secs(|s| s.thread_time).max(1e-9);
        (
            positions as f64 / secs(|s| s.elapsed).max(1e-9),
            secs(|s| s.network_time) / thread,
            secs(|s| s.leaf_time) / thread,
        )
    };
    let reference = total(&runs[0].1).0;
    outln!(
        "precision  positions/s  ratio  network  leaves  rest of tree  ({} rounds)",
        runs[0].1.len()
    );
    for (precision, all) in runs {
        let (rate, network, leaves) = total(all);
        outln!(
            "{precision:9}  {rate:11.0}  {:5.2}  {:6.0}%  {:5.0}%  {:11.0}%",
            rate / reference,
            100.0 * network,
            100.0 * leaves,
            100.0 * (1.0 - network - leaves)
        );
    }
}

fn print_stats(stats: &SelfPlayStats, engine: &Inference) {
    outln!(
        "{} games, {} positions in {:.1} s: {:.0} positions/s, {:.1} plies/game",
        stats.games,
        stats.positions,
        stats.elapsed.as_secs_f64(),
        stats.positions_per_second(),
        stats.plies as f64 / stats.games.max(1) as f64
    );
    outln!(
        "results: White {} / draws {} / Black {}",
        stats.results[0],
        stats.results[1],
        stats.results[2]
    );
    outln!(
        "network: {} calls, {:.1} positions/call, {:.0}% of thread time ({}); cache hits {:.0}%",
        stats.batches,
        stats.evaluations as f64 / stats.batches.max(1) as f64,
        100.0 * stats.network_share(),
        engine.path_name(),
        100.0 * stats.cache_hits as f64 / (stats.cache_hits + stats.cache_misses).max(1) as f64
    );
    let share = |n: u64| 100.0 * n as f64 / stats.games.max(1) as f64;
    if stats.adjudicated + stats.played_out > 0 {
        outln!(
            "endgame databases: {:.1}% of games adjudicated, {:.1}% reached them and played on",
            share(stats.adjudicated),
            share(stats.played_out)
        );
    }
    if stats.random_starts > 0 {
        outln!(
            "{:.1}% of games started from random positions",
            share(stats.random_starts)
        );
    }
    if stats.branch_starts > 0 {
        outln!(
            "{:.1}% of games started from positions of earlier games",
            share(stats.branch_starts)
        );
    }
    let deep = &stats.deep_side_results;
    if deep.games() > 0 {
        outln!(
            "{:.1}% of games with a deeper side; it won {}, drew {} and lost {}",
            share(u64::from(deep.games())),
            deep.wins,
            deep.draws,
            deep.losses
        );
    }
}

/// The positions of `--branch-from`'s games, for `[selfplay.branch_starts]`.
fn branch_pool(
    args: &PlayArgs,
    config: &RunConfig,
    endgame: Option<&Endgame>,
) -> anyhow::Result<BranchPool> {
    let share = config.selfplay.branch_starts.share;
    let Some(dir) = &args.branch_from else {
        anyhow::ensure!(
            share == 0.0,
            "{}: selfplay.branch_starts.share is {share}: give --branch-from with a folder of \
             earlier games' shards to draw the starts from (or set the share to 0)",
            args.config.display()
        );
        return Ok(BranchPool::default());
    };
    let files = shards_in(dir)?;
    anyhow::ensure!(
        !files.is_empty(),
        "--branch-from {}: no shards",
        dir.display()
    );
    replay::branch_pool(
        config.rules,
        &files,
        endgame,
        &config.selfplay.branch_starts,
    )
    .with_context(|| format!("--branch-from {}", dir.display()))
}

/// The shard files in `dir` (none where it does not exist).
fn shards_in(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", dir.display())),
    };
    let mut shards = Vec::new();
    for entry in entries {
        let path = entry
            .with_context(|| format!("reading {}", dir.display()))?
            .path();
        if path.extension().is_some_and(|e| e == SHARD_EXTENSION) && path.is_file() {
            shards.push(path);
        }
    }
    shards.sort();
    Ok(shards)
}

/// Whether `path` is a shard `kvarn selfplay` writes (`selfplay-g<first game>.kvsp`).
fn written_here(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("selfplay-g"))
}

/// Reads `--indices`: comma-separated indices and inclusive ranges, e.g. `0-31,40`.
fn parse_indices(text: &str) -> Result<std::collections::BTreeSet<u64>, String> {
    let mut out = std::collections::BTreeSet::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let number = |s: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| format!("`{s}` in `{part}` is not a game index"))
        };
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(part)?, number(part)?),
        };
        if a > b || b - a >= 1 << 24 {
            return Err(format!("`{part}` is not a range of game indices"));
        }
        out.extend(a..=b);
    }
    if out.is_empty() {
        return Err("no game indices given".into());
    }
    Ok(out)
}
