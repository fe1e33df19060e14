//! The generation loop behind `kvarn train`: self-play with the current model, training
//! on the replay window, evaluation, and the next generation, with everything on disk (see
//! [`RunDir`]) so that a killed run resumes where it stopped.
//!
//! Resuming reads the manifest and goes on with the next generation: its games already
//! in shards are skipped, training continues from the checkpoint's step (batches are
//! drawn from generators seeded by step, so the resumed steps are the ones the killed run
//! would have taken), and the evaluation is simply made again.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use indicatif::ProgressBar;
use kvarn_model::burn::tensor::Device;
use kvarn_model::{Network, Provenance, file};
use kvarn_selfplay::{BankSampling, Endgame};
use kvarn_solver::benchmark::BenchPosition;
use kvarn_solver::db::Databases;
use kvarn_storage::write_atomically;

use crate::binding::{self, CheckpointFacts, RunTag};
use crate::checkpoint::{self, TrainingProgress};
use crate::error::RunError;
use crate::manifest::{
    Compute, GenerationRecord, Manifest, Opponent, SelfPlayDone, SelfPlayFigures,
    relative_working_dir,
};
use crate::metric::metrics_of;
use crate::metrics::Metrics;
use crate::report;
use crate::resume;
use crate::run_config::RunConfig;
use crate::run_dir::RunDir;
use crate::stages::evaluation::{self, EvaluationStage};
use crate::stages::selfplay::{self, SelfPlayStage};
use crate::stages::training::{self, Trained, TrainingStage};
use crate::trainer::Trainer;

/// Starts a run in `dir`, which must be missing or empty (a folder with an old run's
/// files but no manifest is refused rather than mixed into the new run), with the initial
/// model, the configuration and an empty manifest. The run is made in a temporary folder
/// beside `dir` and renamed into place, so that a start killed half-way leaves no partial
/// run behind. Databases the configuration names and will not build are checked before
/// anything is written. With `initial`, the run starts from that model's weights (a
/// trained or widened model) rather than fresh ones, with a fresh optimiser.
///
/// # Errors
/// The folder holds a run or other files, the initial model is not of the configuration's
/// rules and network, the databases cannot be opened, or the folder cannot be written.
pub fn start(
    config: &RunConfig,
    config_text: &str,
    dir: &RunDir,
    initial: Option<&InitialModel>,
) -> Result<(), RunError> {
    if dir.holds_run() {
        return Err(RunError::AlreadyARun(dir.root().to_path_buf()));
    }
    if std::fs::read_dir(dir.root()).is_ok_and(|mut d| d.next().is_some()) {
        return Err(RunError::NotEmpty(dir.root().to_path_buf()));
    }
    if let Some(initial) = initial {
        initial.check(config)?;
    }
    if let (Some(db), false) = (&config.solver.db, config.solver.build_if_missing) {
        Databases::open(db, config.rules).map_err(RunError::solver)?;
    }
    let staging = dir.staging();
    let _ = std::fs::remove_dir_all(staging.root());
    std::fs::create_dir_all(staging.root()).map_err(|e| RunError::io(staging.root(), e))?;
    let made = write_new_run(config, config_text, initial, &staging, dir);
    let moved = made.and_then(|()| {
        std::fs::rename(staging.root(), dir.root()).map_err(|e| RunError::io(dir.root(), e))
    });
    if moved.is_err() {
        let _ = std::fs::remove_dir_all(staging.root());
    }
    moved
}

/// The files of a new run, written into `staging` for the run that will live in `dir`.
fn write_new_run(
    config: &RunConfig,
    config_text: &str,
    initial: Option<&InitialModel>,
    staging: &RunDir,
    dir: &RunDir,
) -> Result<(), RunError> {
    let provenance = |note: String| Provenance {
        note: Some(note),
        ..training::provenance(dir, 0, 0)
    };
    let path = staging.model(0);
    if let Some(initial) = initial {
        let note = format!("initial weights: {}", initial.path.display());
        file::save(initial.network, &provenance(note), &path)?;
    } else {
        let device = config.device.device()?;
        let network = Network::new(config.rules, config.network.clone(), config.seed, &device)?;
        file::save(&network, &provenance("initial weights".into()), &path)?;
    }
    let cfg_path = staging.config();
    write_atomically(&cfg_path, config_text.as_bytes()).map_err(|e| RunError::io(&cfg_path, e))?;
    let here = std::env::current_dir().map_err(|e| RunError::io(Path::new("."), e))?;
    let run = std::path::absolute(dir.root()).map_err(|e| RunError::io(dir.root(), e))?;
    let working_dir = relative_working_dir(&here, &run).unwrap_or(here);
    let mut manifest = Manifest::new(working_dir, crc32fast::hash(config_text.as_bytes()));
    binding::record_model(staging, &mut manifest, 0)?;
    manifest.write(staging)
}

/// A model a new run starts from in place of fresh weights.
pub struct InitialModel<'a> {
    /// Its file, named in generation 0's provenance.
    pub path: &'a Path,
    /// The network.
    pub network: &'a Network,
}

impl InitialModel<'_> {
    /// Refuses a model of other rules or another network than `config`'s.
    fn check(&self, config: &RunConfig) -> Result<(), RunError> {
        let (rules, net) = (self.network.rules(), self.network.config());
        if *rules == config.rules && *net == config.network {
            return Ok(());
        }
        Err(RunError::InitialModel {
            path: self.path.to_path_buf(),
            reason: format!(
                "the model is {} for {rules}, the configuration's network is {} for {}",
                net.describe(),
                config.network.describe(),
                config.rules
            ),
        })
    }
}

/// How [`run`] goes on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Run until this many generations in all, in place of the configuration's count.
    pub generations: Option<u32>,
    /// Settings changed from the next generation on, as `KEY=VALUE`; recorded in the
    /// manifest (see [`crate::resume`]).
    pub settings: Vec<String>,
    /// Stop (after a checkpoint) once training reaches this many optimiser steps in all;
    /// a later call goes on from there.
    pub max_steps: Option<u64>,
    /// Go on where an exact resume is impossible (the checkpoint or games of the replay
    /// window are gone), recording it in the manifest; refused otherwise.
    pub allow_inexact: bool,
}

impl RunOptions {
    /// Run until `generations` in all, otherwise as the configuration says.
    pub fn until(generations: u32) -> RunOptions {
        RunOptions {
            generations: Some(generations),
            ..RunOptions::default()
        }
    }
}

/// What every generation of a run shares.
struct Run<'a> {
    config: RunConfig,
    dir: &'a RunDir,
    device: Device,
    bench_set: Option<Vec<BenchPosition>>,
    /// Endgame databases for self-play, when `selfplay.endgame` uses them.
    endgame: Option<Arc<Endgame>>,
    /// The bank of exact samples, when `selfplay.exact_bank` draws from one.
    bank: Option<Arc<BankSampling>>,
    metrics: Metrics,
    trainer: Trainer,
    /// The checkpoint's account of training so far.
    trained: TrainingProgress,
    progress: Option<&'a ProgressBar>,
}

/// Runs generations until the configuration's count is reached, resuming from what `dir`
/// holds (its configuration with the settings changed on resumes, checked by
/// [`resume::resumed_config`]), with the folder locked against any other process;
/// `on_generation` sees the configuration and each finished generation, and `progress`,
/// when given, shows the stage and its rate. A run that already has its generations is
/// left as it is, settings given or not.
///
/// # Errors
/// Another process holds the run, its configuration was edited or a setting cannot be
/// changed, a resume cannot be exact (unless allowed), a file cannot be read or written,
/// or a stage fails.
pub fn run(
    dir: &RunDir,
    options: &RunOptions,
    progress: Option<&ProgressBar>,
    mut on_generation: impl FnMut(&RunConfig, &GenerationRecord),
) -> Result<Manifest, RunError> {
    let _lock = dir.lock()?;
    let mut manifest = Manifest::read(dir)?;
    if manifest.make_relocatable(dir) {
        manifest.write(dir)?;
    }
    let on_disk = manifest.clone();
    let resumed = resume::resumed_config(dir, &mut manifest, &options.settings)?;
    let mut config = resumed.config;
    // The count asked for now, else the one asked for last: a target is part of the run.
    if let Some(g) = options.generations.or(manifest.state.generations_target) {
        config.run.generations = g;
    }
    let generations = config.run.generations;
    if manifest.generations_done() >= generations {
        let crc = manifest.state.config_crc32;
        // The report says "done of asked", as a run's own report does.
        let mut recorded = resumed.recorded;
        recorded.run.generations = generations;
        return nothing_to_run(dir, on_disk, crc, &recorded, options);
    }
    let new_target =
        options.generations.is_some() && options.generations != manifest.state.generations_target;
    if new_target {
        manifest.state.generations_target = options.generations;
    }
    if resumed.changed || new_target {
        manifest.write(dir)?;
    }
    let mut run = Run::open(config, dir, &mut manifest, options, progress)?;
    while manifest.generations_done() < generations {
        let Some(record) = run.generation(&mut manifest, options.max_steps)? else {
            return Ok(manifest);
        };
        log_generation(&mut run.metrics, &run.config, &record);
        binding::record_model(dir, &mut manifest, record.generation)?;
        manifest.push(record.clone());
        manifest.write(dir)?;
        report::write(dir, &run.config, &manifest)?;
        on_generation(&run.config, &record);
    }
    Ok(manifest)
}

/// A run that already has its generations: the settings given now are not recorded (a
/// finished stage of a script run again must not change the stages after it), but a
/// version-3 manifest still gets its configuration's checksum, and the report is
/// rewritten as a resume's is, in case a kill came between the manifest and it.
fn nothing_to_run(
    dir: &RunDir,
    mut manifest: Manifest,
    config_crc32: Option<u32>,
    recorded: &RunConfig,
    options: &RunOptions,
) -> Result<Manifest, RunError> {
    if !options.settings.is_empty() {
        tracing::warn!(
            generations_done = manifest.generations_done(),
            "the run has its generations already: nothing to run, and the settings given \
             are not recorded"
        );
    }
    if manifest.state.config_crc32.is_none() {
        manifest.state.config_crc32 = config_crc32;
        manifest.write(dir)?;
    }
    if !manifest.history.is_empty() {
        report::write(dir, recorded, &manifest)?;
    }
    Ok(manifest)
}

impl<'a> Run<'a> {
    /// The device, the benchmark set, the TensorBoard log and the trainer (from the
    /// checkpoint, or from the last generation's model when there is none yet); the
    /// report is rewritten, since a kill may have come between the manifest and it.
    /// `config`'s relative paths are already read from the folder the run started in.
    fn open(
        config: RunConfig,
        dir: &'a RunDir,
        manifest: &mut Manifest,
        options: &RunOptions,
        progress: Option<&'a ProgressBar>,
    ) -> Result<Run<'a>, RunError> {
        let device = config.device.device()?;
        if !manifest.history.is_empty() {
            report::write(dir, &config, manifest)?;
        }
        exact::check_window(&config, dir, manifest, options.allow_inexact)?;
        let (trainer, trained) = trainer(&config, dir, manifest, options, &device)?;
        let (bench_set, loaded) = evaluation::bench_set(&config, dir, progress)?;
        let endgame = match (&config.solver.db, config.selfplay.endgame.enabled()) {
            (Some(db), true) => {
                let solver = match loaded {
                    Some(solver) => solver,
                    None => evaluation::databases(&config, db, progress)?,
                };
                let tables = selfplay::open_whole_game(&config)?;
                Some(Arc::new(
                    Endgame::new(Arc::new(solver)).with_whole_game(tables),
                ))
            }
            _ => None,
        };
        let bank = selfplay::open_bank(&config)?.map(Arc::new);
        let tb = dir.tensorboard();
        let metrics = Metrics::open(&tb).map_err(|e| RunError::io(&tb, e))?;
        Ok(Run {
            config,
            dir,
            device,
            bench_set,
            endgame,
            bank,
            metrics,
            trainer,
            trained,
            progress,
        })
    }

    /// The next generation: self-play, training, evaluation. `None` when training
    /// stopped at `max_steps`.
    fn generation(
        &mut self,
        manifest: &mut Manifest,
        max_steps: Option<u64>,
    ) -> Result<Option<GenerationRecord>, RunError> {
        let (config, dir) = (&self.config, self.dir);
        let g = manifest.generations_done() + 1;
        let began = Instant::now();
        let champion = manifest.selfplay_model();
        let champion_path = dir.model(champion);
        let previous = binding::load_model(dir, manifest, config, champion, &self.device)?;
        let selfplay = self.selfplay(manifest, g, (&previous, &champion_path))?;
        let run = RunTag::of(manifest);
        let stage = TrainingStage {
            config,
            dir,
            generation: g,
            max_steps,
            run: &run,
        };
        let done = self.trained;
        let trained = training::train(
            &stage,
            &mut self.trainer,
            done,
            &mut self.metrics,
            self.progress,
        )?;
        let Trained::Finished(training) = trained else {
            return Ok(None);
        };
        let current = self.trainer.network().for_inference();
        let provenance = Provenance {
            player: measured_player(config),
            selfplay_precision: Some(selfplay_precision(config)),
            ..training::provenance(dir, g, self.trainer.step)
        };
        file::save(&current, &provenance, &dir.model(g))?;
        let stage = EvaluationStage {
            config,
            generation: g,
            model: &current,
            previous: (&previous, champion),
            bench_set: self.bench_set.as_deref(),
        };
        let evaluation = if config.run.evaluates(g) {
            evaluation::evaluate(&stage, self.progress)?
        } else {
            crate::manifest::Evaluation::default()
        };
        if let Some(p) = self.progress {
            p.set_message(format!("generation {g}/{}: done", config.run.generations));
        }
        let promoted = promoted(config, &evaluation);
        Ok(Some(GenerationRecord {
            generation: g,
            step: self.trainer.step,
            selfplay_model: champion,
            promoted,
            seconds: began.elapsed().as_secs_f64(),
            selfplay,
            training,
            evaluation,
            compute: Some(Compute {
                kernels: kvarn_model::cpu::KernelPath::detected().name().to_string(),
                trainer: self.trainer.engine_name().to_string(),
                precision: Some(selfplay_precision(config)),
            }),
        }))
    }

    /// The self-play stage of generation `g`, its figures kept in the manifest so that a
    /// generation resumed after it still reports them.
    fn selfplay(
        &self,
        manifest: &mut Manifest,
        g: u32,
        model: (&Network, &Path),
    ) -> Result<SelfPlayFigures, RunError> {
        let stage = SelfPlayStage {
            config: &self.config,
            dir: self.dir,
            generation: g,
            model,
            endgame: self.endgame.as_ref(),
            bank: self.bank.as_deref(),
        };
        let (stats, cluster) = selfplay::play(&stage, self.progress)?;
        if let Some(done) = manifest.state.selfplay_done
            && done.generation == g
            && stats.games == 0
        {
            return Ok(done.figures);
        }
        let figures = SelfPlayFigures {
            positions_per_second: stats.positions_per_second(),
            games: stats.games,
            adjudicated: stats.adjudicated,
            played_out: stats.played_out,
            deep_side_results: stats.deep_side_results,
            cluster_nodes: cluster.map(|c| c.nodes.len() as u32),
        };
        manifest.state.selfplay_done = Some(SelfPlayDone {
            generation: g,
            figures,
        });
        manifest.write(self.dir)?;
        Ok(figures)
    }
}

/// Whether the new model takes over self-play: the gate's test accepted it, or it scored
/// at least `loop.promotion_score` against the self-play model (always without a match).
fn promoted(config: &RunConfig, evaluation: &crate::manifest::Evaluation) -> bool {
    let previous = evaluation
        .matches
        .iter()
        .find(|m| m.opponent == Opponent::Previous);
    match previous {
        None => true,
        Some(m) => match &m.sequential {
            Some(status) => status.verdict == kvarn_arena::sprt::Verdict::AcceptH1,
            None => m.tally.score() >= config.run.promotion_score,
        },
    }
}

/// The trainer to go on with: the checkpoint's, or a new one from the last generation's
/// model when no training has happened yet. A checkpoint missing after that makes the
/// resume inexact (the optimiser state is gone).
fn trainer(
    config: &RunConfig,
    dir: &RunDir,
    manifest: &mut Manifest,
    options: &RunOptions,
    device: &Device,
) -> Result<(Trainer, TrainingProgress), RunError> {
    let done = manifest.generations_done();
    let path = dir.checkpoint();
    if path.exists() {
        let restored = checkpoint::load(&path, config.train.clone(), device)?;
        let network = restored.trainer.network().for_inference();
        let facts = CheckpointFacts {
            tag: &restored.run,
            step: restored.trainer.step,
            network: &network,
        };
        match binding::check_checkpoint(&path, facts, manifest, config) {
            Ok(()) => return Ok((restored.trainer, restored.progress)),
            Err(RunError::Foreign { path, reason }) if options.allow_inexact => {
                let reason = format!(
                    "{}: {reason}: left out, training restarts it from generation {done}'s model",
                    path.display()
                );
                exact::allow(dir, manifest, true, reason)?;
            }
            Err(refused) => return Err(refused),
        }
    } else if done > 0 {
        let reason = format!(
            "{} is missing: the optimiser state is lost, training restarts it from generation {done}'s model",
            path.display()
        );
        exact::allow(dir, manifest, options.allow_inexact, reason)?;
    }
    let network = binding::load_model(dir, manifest, config, done, device)?;
    let mut trainer = Trainer::new(&network, config.train.clone());
    trainer.step = u64::from(done) * config.train.steps_per_generation;
    Ok((trainer, TrainingProgress::default()))
}

/// Whether a resume can reproduce the uninterrupted run.
mod exact {
    use super::{Manifest, RunConfig, RunDir, RunError};
    use crate::binding::games_in_shards;
    use crate::manifest::InexactResume;

    /// Checks that every earlier generation of the next one's replay window still has
    /// all its games, and its exact samples where it drew them (old shards may be gone
    /// on another machine).
    pub(super) fn check_window(
        config: &RunConfig,
        dir: &RunDir,
        manifest: &mut Manifest,
        allow_inexact: bool,
    ) -> Result<(), RunError> {
        let g = manifest.generations_done() + 1;
        let first = g
            .saturating_sub(config.train.window_generations.saturating_sub(1))
            .max(1);
        let games = config.run.games_per_generation;
        for h in first..g {
            let config_h = crate::resume::config_at(dir, manifest, h)?;
            let found = games_in_shards(dir, &config_h, h)?.len() as u64;
            if found < games {
                let reason = format!(
                    "generation {h} has {found} of its {games} self-play games in {}: the replay window differs",
                    dir.shards(h).display()
                );
                allow(dir, manifest, allow_inexact, reason)?;
            }
            let kinds = [
                (dir.exact_shard(h), config_h.selfplay.endgame.exact_samples),
                (dir.bank_shard(h), config_h.selfplay.exact_bank.samples),
            ];
            for (exact, drawn) in kinds {
                if drawn > 0 && !exact.exists() {
                    let reason = format!(
                        "generation {h}'s {drawn} exact samples ({}) are missing: the replay window differs",
                        exact.display()
                    );
                    allow(dir, manifest, allow_inexact, reason)?;
                }
            }
        }
        Ok(())
    }

    /// Records an inexact resume in the manifest when allowed, refuses it otherwise.
    pub(super) fn allow(
        dir: &RunDir,
        manifest: &mut Manifest,
        allowed: bool,
        reason: String,
    ) -> Result<(), RunError> {
        if !allowed {
            return Err(RunError::Inexact(reason));
        }
        tracing::warn!("{reason}; going on as asked, and recording it in the manifest");
        let generation = manifest.generations_done() + 1;
        let resume = InexactResume { generation, reason };
        // A resume of the same generation tried again finds the same gap: recorded once.
        if manifest.state.inexact_resumes.contains(&resume) {
            return Ok(());
        }
        manifest.state.inexact_resumes.push(resume);
        manifest.write(dir)
    }
}

/// A generation's figures as TensorBoard scalars, by generation.
fn log_generation(metrics: &mut Metrics, config: &RunConfig, r: &GenerationRecord) {
    let g = u64::from(r.generation);
    for m in metrics_of(config) {
        if let Some(v) = m.value(r) {
            metrics.scalar(&m.name(), g, v);
        }
    }
    metrics.flush();
}

/// The precision self-play's network ran at on this machine (the run stops before
/// self-play where a forced one is unavailable, so this names what ran).
fn selfplay_precision(config: &RunConfig) -> String {
    kvarn_model::Precision::resolve(config.selfplay.precision)
        .map_or_else(|e| format!("unavailable ({e})"), |p| p.name().to_string())
}

/// The player a generation's figures are measured with, as its model file records it: the
/// run's evaluation player without its limits, which the users of the model give.
fn measured_player(config: &RunConfig) -> Option<String> {
    let mut player = config.run.player(&config.search).ok()?;
    player.simulations = None;
    player.movetime = None;
    Some(player.spec())
}
