//! The self-play stage: the generation's games by the self-play model, into shards,
//! skipping the games a killed run already wrote.

use std::path::Path;
use std::sync::Arc;

use indicatif::ProgressBar;
use kvarn_game::ENCODING_VERSION;
use kvarn_model::{Inference, InferencePath, Network};
use kvarn_selfplay::{
    Backend, BankSampling, BranchPool, Endgame, ExactSampling, Sample, SampleSource, SelfPlayJob,
    SelfPlayStats, ShardHeader, write_shard,
};
use kvarn_solver::wdl::WdlSolver;

use super::stream;
use crate::binding::games_in_shards;
use crate::cluster::{self, ClusterFigures, ClusterJob};
use crate::error::RunError;
use crate::replay;
use crate::run_config::RunConfig;
use crate::run_dir::RunDir;

/// What the self-play stage needs.
pub struct SelfPlayStage<'a> {
    /// The run's configuration.
    pub config: &'a RunConfig,
    /// The run folder.
    pub dir: &'a RunDir,
    /// The generation being played.
    pub generation: u32,
    /// The self-play model and its file (named in the shards).
    pub model: (&'a Network, &'a Path),
    /// Endgame databases, when `selfplay.endgame` uses them.
    pub endgame: Option<&'a Arc<Endgame>>,
    /// The bank of exact samples, when `selfplay.exact_bank` draws from one.
    pub bank: Option<&'a BankSampling>,
}

/// Checks that generation `g`'s shards hold each of its `games` games exactly once.
///
/// # Errors
/// A shard is unreadable or not the run's, or a game is missing.
fn check_complete(config: &RunConfig, dir: &RunDir, g: u32, games: u64) -> Result<(), RunError> {
    let found = games_in_shards(dir, config, g)?;
    if found.len() as u64 != games {
        return Err(RunError::Cluster(format!(
            "generation {g}'s shards hold {} of its {games} games",
            found.len()
        )));
    }
    Ok(())
}

/// Plays the games of the generation not yet in its shards, here or on the Ray cluster
/// (whose figures come back as well).
///
/// # Errors
/// A shard is unreadable or cannot be written, the network does not fit the rules, or
/// the cluster failed.
pub fn play(
    stage: &SelfPlayStage<'_>,
    progress: Option<&ProgressBar>,
) -> Result<(SelfPlayStats, Option<ClusterFigures>), RunError> {
    let SelfPlayStage {
        config,
        dir,
        generation: g,
        model: (network, file),
        endgame,
        ..
    } = *stage;
    let skip = games_in_shards(dir, config, g)?;
    let games = config.run.games_per_generation;
    super::show_stage(
        progress,
        g,
        config.run.generations,
        "self-play games",
        games,
        skip.len() as u64,
    );
    let seed = crate::binding::selfplay_seed(config, g);
    if config.selfplay.backend == Backend::Ray {
        let job = ClusterJob {
            config,
            dir,
            generation: g,
            model: file,
            seed,
            pending: (0..games).filter(|i| !skip.contains(i)).collect(),
        };
        let (stats, figures) = cluster::play(&job, progress)?;
        check_complete(config, dir, g, games)?;
        exact_samples(stage)?;
        bank_samples(stage)?;
        return Ok((stats, Some(figures)));
    }
    let job = SelfPlayJob {
        rules: config.rules,
        search: config.search.clone(),
        selfplay: config.selfplay.clone(),
        games,
        skip,
        seed,
        out: Some(dir.shards(g)),
        shard_prefix: "selfplay".into(),
        model: file.display().to_string(),
        endgame: endgame.cloned(),
        branch_from: Arc::new(branch_pool(config, dir, g, endgame.map(Arc::as_ref))?),
    };
    let engine = Inference::new(network, InferencePath::Fastest, config.selfplay.precision)?
        .single_threaded();
    let (stats, _) = kvarn_selfplay::run(&job, &engine, progress)?;
    exact_samples(stage)?;
    bank_samples(stage)?;
    Ok((stats, None))
}

/// The positions generation `g`'s branch starts are drawn from (`selfplay.branch_starts`):
/// the moving-phase positions of generation `g − 1`'s games, in the order of the games'
/// indices (so that a resumed generation draws the same); none without branch starts or
/// before the first generation.
///
/// # Errors
/// Generation `g − 1`'s shards are gone (a resumed generation would play other games) or
/// unreadable.
fn branch_pool(
    config: &RunConfig,
    dir: &RunDir,
    g: u32,
    endgame: Option<&Endgame>,
) -> Result<BranchPool, RunError> {
    if config.selfplay.branch_starts.share == 0.0 || g <= 1 {
        return Ok(BranchPool::default());
    }
    let folder = dir.shards(g - 1);
    let files = dir
        .shard_files(g - 1)
        .map_err(|e| RunError::io(&folder, e))?;
    if files.is_empty() {
        return Err(RunError::NoBranchShards(folder));
    }
    let pool = replay::branch_pool(
        config.rules,
        &files,
        endgame,
        &config.selfplay.branch_starts,
    )?;
    tracing::debug!(
        generation = g,
        positions = pool.len(),
        closing_mills = pool.closing_len(),
        "branch starts drawn from"
    );
    Ok(pool)
}

/// Writes the generation's exact samples from the endgame databases
/// (`selfplay.endgame.exact_samples`) as a shard of no games, unless a killed run already
/// did. They are drawn from a seed stream of their own, never from the committed
/// benchmark sets' positions.
///
/// # Errors
/// A committed benchmark set is unreadable, or the shard cannot be written.
fn exact_samples(stage: &SelfPlayStage<'_>) -> Result<(), RunError> {
    let SelfPlayStage {
        config,
        dir,
        generation: g,
        endgame,
        ..
    } = *stage;
    let n = config.selfplay.endgame.exact_samples;
    let path = dir.exact_shard(g);
    let Some(endgame) = endgame.filter(|_| n > 0) else {
        return Ok(());
    };
    if path.exists() {
        return Ok(());
    }
    let began = std::time::Instant::now();
    let excluded =
        kvarn_solver::benchmark::committed_keys(&config.rules).map_err(RunError::solver)?;
    let sampling = ExactSampling {
        rules: config.rules,
        starts: &config.selfplay.random_starts,
        uses: &config.selfplay.endgame,
        endgame,
        excluded: &excluded,
    };
    let seed = kvarn_game::seeds::derive(config.seed, stream::EXACT_SAMPLES, u64::from(g));
    let samples = sampling.samples(seed, n)?;
    write_exact_shard(config, &path, "endgame databases".into(), seed, &samples)?;
    tracing::info!(
        generation = g,
        samples = samples.len(),
        drawn = n,
        seconds = began.elapsed().as_secs_f64(),
        "exact samples written"
    );
    Ok(())
}

/// Writes exact samples drawn with `seed` from `model` (the tables or the bank they came
/// from) as a shard of no games.
fn write_exact_shard(
    config: &RunConfig,
    path: &Path,
    model: String,
    seed: u64,
    samples: &[Sample],
) -> Result<(), RunError> {
    let header = ShardHeader {
        encoding_version: ENCODING_VERSION,
        rules: config.rules,
        games: 0,
        samples: samples.len() as u64,
        game_list: Vec::new(),
        model,
        source: SampleSource::Databases,
        seed: Some(seed),
    };
    write_shard(path, &header, samples)?;
    Ok(())
}

/// The moving phase's win/draw/loss tables of `solver.whole_game_db` (up to
/// `solver.whole_game_max_men` a side), read once for the run, when it names them.
///
/// # Errors
/// A unit's file is missing, damaged or of other rules.
pub fn open_whole_game(config: &RunConfig) -> Result<Option<Arc<WdlSolver>>, RunError> {
    let Some(dir) = &config.solver.whole_game_db else {
        return Ok(None);
    };
    let began = std::time::Instant::now();
    let max_men = config.solver.whole_game_max_men;
    let tables = kvarn_solver::db::load_wdl_values_up_to(dir, config.rules, max_men)
        .map_err(RunError::solver)?;
    tracing::info!(
        folder = %dir.display(),
        max_men,
        seconds = began.elapsed().as_secs_f64(),
        "whole-game tables read"
    );
    Ok(Some(Arc::new(tables)))
}

/// The bank of exact samples that `selfplay.exact_bank` draws from, read once for the
/// run, without the committed benchmark sets' positions.
///
/// # Errors
/// A committed benchmark set or the bank is unreadable, or the bank is of other rules.
pub fn open_bank(config: &RunConfig) -> Result<Option<BankSampling>, RunError> {
    let bank = &config.selfplay.exact_bank;
    let paths = bank.paths();
    if paths.is_empty() || bank.samples == 0 {
        return Ok(None);
    }
    let excluded =
        kvarn_solver::benchmark::committed_keys(&config.rules).map_err(RunError::solver)?;
    let sampling = BankSampling::open(&paths, &config.rules, &excluded)?;
    let strata: Vec<String> = sampling
        .strata()
        .iter()
        .map(|(phase, men, n)| format!("{} {n} in {men} counts of men", phase.name()))
        .collect();
    tracing::info!(
        banks = %paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
        excluded = sampling.excluded,
        strata = %strata.join(", "),
        "bank of exact samples read"
    );
    Ok(Some(sampling))
}

/// Writes the generation's exact samples from the bank (`selfplay.exact_bank`) as a
/// shard of no games, unless a killed run already did, from a seed stream of their own.
///
/// # Errors
/// The shard cannot be written.
fn bank_samples(stage: &SelfPlayStage<'_>) -> Result<(), RunError> {
    let (config, g) = (stage.config, stage.generation);
    let n = config.selfplay.exact_bank.samples;
    let path = stage.dir.bank_shard(g);
    let Some(bank) = stage.bank.filter(|_| n > 0) else {
        return Ok(());
    };
    if path.exists() {
        return Ok(());
    }
    let seed = kvarn_game::seeds::derive(config.seed, stream::BANK_SAMPLES, u64::from(g));
    let samples = bank.samples(seed, n);
    let sources: Vec<String> = config
        .selfplay
        .exact_bank
        .paths()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let model = format!("sample bank {}", sources.join(" + "));
    write_exact_shard(config, &path, model, seed, &samples)?;
    tracing::info!(
        generation = g,
        samples = samples.len(),
        "exact samples from the bank written"
    );
    Ok(())
}
