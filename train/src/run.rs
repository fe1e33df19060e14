//! The generation loop behind `kvarn train`: self-play with the current model, training
//! on the replay window, evaluation, and the next generation, with everything on disk (see
//! [`RunDir`]) so that a killed run resumes where it stopped.
//!
//! Resuming reads the manifest and goes on with the next generation: its games already
//! in shards are skipped, training continues from the checkpoint's step (batches are
//! drawn from generators seeded by step, so the resumed steps are the ones the killed run
//! would have taken), and the evaluation is simply made again.

use std::time::Instant;

use indicatif::ProgressBar;
use kvarn_eval::solver::benchmark::BenchPosition;
use kvarn_model::burn::tensor::Device;
use kvarn_model::{Network, Provenance, file};
use kvarn_storage::write_atomically;

use crate::checkpoint;
use crate::error::RunError;
use crate::manifest::{GenerationRecord, Manifest, Opponent, SelfPlayFigures};
use crate::metric::metrics_of;
use crate::metrics::Metrics;
use crate::report;
use crate::run_config::RunConfig;
use crate::run_dir::RunDir;
use crate::stages::evaluation::{self, EvaluationStage};
use crate::stages::selfplay::{self, SelfPlayStage};
use crate::stages::training::{self, Trained, TrainingStage};
use crate::trainer::Trainer;

/// Starts a run in `dir` (which must not hold one), writing the initial model, the
/// configuration and an empty manifest.
///
/// # Errors
/// The folder holds a run already, or cannot be written.
pub fn start(config: &RunConfig, config_text: &str, dir: &RunDir) -> Result<(), RunError> {
    if dir.holds_run() {
        return Err(RunError::AlreadyARun(dir.root().to_path_buf()));
    }
    std::fs::create_dir_all(dir.root()).map_err(|e| RunError::io(dir.root(), e))?;
    let device = config.device.device()?;
    device.seed(config.seed);
    let network = Network::new(config.rules, config.network.clone(), &device)?;
    let provenance = Provenance {
        note: Some("initial weights".into()),
        ..training::provenance(dir, 0, 0)
    };
    file::save(&network, &provenance, &dir.model(0))?;
    let cfg_path = dir.config();
    write_atomically(&cfg_path, config_text.as_bytes()).map_err(|e| RunError::io(&cfg_path, e))?;
    Manifest::new().write(dir)
}

/// What every generation of a run shares.
struct Run<'a> {
    config: &'a RunConfig,
    dir: &'a RunDir,
    device: Device,
    bench_set: Option<Vec<BenchPosition>>,
    metrics: Metrics,
    trainer: Trainer,
    progress: Option<&'a ProgressBar>,
}

/// Runs generations until the configuration's count is reached, resuming from what `dir`
/// holds; `on_generation` sees each finished generation and `progress`, when given,
/// shows the stage and its rate. With `max_steps`, it stops (after a checkpoint) once
/// training reaches that many optimiser steps in all, and a later call goes on from there.
///
/// # Errors
/// A file cannot be read or written, or a stage fails.
pub fn run(
    config: &RunConfig,
    dir: &RunDir,
    max_steps: Option<u64>,
    progress: Option<&ProgressBar>,
    mut on_generation: impl FnMut(&GenerationRecord),
) -> Result<Manifest, RunError> {
    let mut manifest = Manifest::read(dir)?;
    let mut run = Run::open(config, dir, &manifest, progress)?;
    while manifest.generations_done < config.run.generations {
        let Some(record) = run.generation(&manifest, max_steps)? else {
            return Ok(manifest);
        };
        log_generation(&mut run.metrics, config, &record);
        manifest.push(record.clone());
        manifest.write(dir)?;
        report::write(dir, config, &manifest)?;
        on_generation(&record);
    }
    Ok(manifest)
}

impl<'a> Run<'a> {
    /// The device, the benchmark set, the TensorBoard log and the trainer (from the
    /// checkpoint, or from the last generation's model when there is none yet).
    fn open(
        config: &'a RunConfig,
        dir: &'a RunDir,
        manifest: &Manifest,
        progress: Option<&'a ProgressBar>,
    ) -> Result<Run<'a>, RunError> {
        let device = config.device.device()?;
        let bench_set = evaluation::bench_set(config, dir, progress)?;
        let tb = dir.tensorboard();
        let metrics = Metrics::open(&tb).map_err(|e| RunError::io(&tb, e))?;
        let trainer = if dir.checkpoint().exists() {
            checkpoint::load(&dir.checkpoint(), config.train.clone(), &device)?.0
        } else {
            let (network, _) = file::load(&dir.model(manifest.generations_done), &device)?;
            Trainer::new(&network, config.train.clone())
        };
        Ok(Run {
            config,
            dir,
            device,
            bench_set,
            metrics,
            trainer,
            progress,
        })
    }

    /// The next generation: self-play, training, evaluation. `None` when training
    /// stopped at `max_steps`.
    fn generation(
        &mut self,
        manifest: &Manifest,
        max_steps: Option<u64>,
    ) -> Result<Option<GenerationRecord>, RunError> {
        let (config, dir) = (self.config, self.dir);
        let g = manifest.generations_done + 1;
        let began = Instant::now();
        let champion = manifest.selfplay_model;
        let champion_path = dir.model(champion);
        let (previous, _) = file::load(&champion_path, &self.device)?;
        let selfplay = SelfPlayStage {
            config,
            dir,
            generation: g,
            model: (&previous, &champion_path),
        };
        let sp = selfplay::play(&selfplay, self.progress)?;
        let stage = TrainingStage {
            config,
            dir,
            generation: g,
            max_steps,
        };
        let trained = training::train(&stage, &mut self.trainer, &mut self.metrics, self.progress)?;
        let Trained::Finished(training) = trained else {
            return Ok(None);
        };
        let current = self.trainer.network().for_inference();
        let provenance = training::provenance(dir, g, self.trainer.step);
        file::save(&current, &provenance, &dir.model(g))?;
        let stage = EvaluationStage {
            config,
            generation: g,
            model: &current,
            previous: (&previous, champion),
            bench_set: self.bench_set.as_deref(),
        };
        let evaluation = evaluation::evaluate(&stage, self.progress)?;
        if let Some(p) = self.progress {
            p.set_message(format!("generation {g}/{}: done", config.run.generations));
        }
        let promoted = evaluation
            .result_vs(&Opponent::Previous)
            .is_none_or(|t| t.score() >= config.run.promotion_score);
        Ok(Some(GenerationRecord {
            generation: g,
            step: self.trainer.step,
            selfplay_model: champion,
            promoted,
            seconds: began.elapsed().as_secs_f64(),
            selfplay: SelfPlayFigures {
                positions_per_second: sp.positions_per_second(),
            },
            training,
            evaluation,
        }))
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
