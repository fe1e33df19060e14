//! The training stage: optimiser steps on the replay window of the most recent
//! generations, with a checkpoint every `loop.checkpoint_every` steps. Batches are drawn
//! from generators seeded by step, so a resumed run takes the steps the killed one would
//! have.

use indicatif::ProgressBar;
use kvarn_model::Provenance;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use super::stream;
use crate::checkpoint;
use crate::error::RunError;
use crate::manifest::TrainingFigures;
use crate::metrics::Metrics;
use crate::replay::ReplayWindow;
use crate::run_config::RunConfig;
use crate::run_dir::RunDir;
use crate::trainer::{Losses, Trainer};

/// What the training stage needs.
pub struct TrainingStage<'a> {
    /// The run's configuration.
    pub config: &'a RunConfig,
    /// The run folder.
    pub dir: &'a RunDir,
    /// The generation being trained.
    pub generation: u32,
    /// Stop (after a checkpoint) once training reaches this many steps in all.
    pub max_steps: Option<u64>,
}

/// How the stage ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Trained {
    /// The generation's steps are done.
    Finished(TrainingFigures),
    /// Stopped at `max_steps`, checkpoint written.
    Stopped,
}

/// The replay window of generation `g`: the shards of the last `window_generations`.
///
/// # Errors
/// A shard is unreadable, damaged or of other rules.
pub fn window(config: &RunConfig, dir: &RunDir, g: u32) -> Result<ReplayWindow, RunError> {
    let first = g
        .saturating_sub(config.train.window_generations.saturating_sub(1))
        .max(1);
    let generations = (first..=g)
        .map(|h| {
            dir.shard_files(h)
                .map_err(|e| RunError::io(&dir.shards(h), e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ReplayWindow::load(
        config.rules,
        &generations,
        config.train.window_samples,
    )?)
}

/// Trains `trainer` up to the generation's last step.
///
/// # Errors
/// The window cannot be filled or the checkpoint cannot be written.
pub fn train(
    stage: &TrainingStage<'_>,
    trainer: &mut Trainer,
    metrics: &mut Metrics,
    progress: Option<&ProgressBar>,
) -> Result<Trained, RunError> {
    let TrainingStage {
        config,
        dir,
        generation: g,
        max_steps,
    } = *stage;
    let window = window(config, dir, g)?;
    let per_gen = config.train.steps_per_generation;
    let target = u64::from(g) * per_gen;
    let done = trainer.step.saturating_sub(target - per_gen);
    let of = config.run.generations;
    super::show_stage(progress, g, of, "training steps", per_gen, done);
    let (mut policy, mut value, mut n) = (0.0, 0.0, 0u64);
    let began = std::time::Instant::now();
    while trainer.step < target {
        let mut rng = Pcg64Mcg::seed_from_u64(kvarn_game::seeds::derive(
            config.seed,
            stream::TRAINING,
            trainer.step,
        ));
        let t = &config.train;
        let batch = window.batch(&mut rng, t.batch_size, t.augment, t.search_value_share);
        let l = trainer.train_step(&batch);
        (policy, value, n) = (
            policy + f64::from(l.policy),
            value + f64::from(l.value),
            n + 1,
        );
        log_step(metrics, trainer.step, &l);
        if let Some(p) = progress {
            p.inc(1);
        }
        let stop = max_steps.is_some_and(|m| trainer.step >= m);
        if trainer.step.is_multiple_of(config.run.checkpoint_every)
            || trainer.step == target
            || stop
        {
            save_checkpoint(dir, g, trainer)?;
        }
        if stop {
            metrics.flush();
            return Ok(Trained::Stopped);
        }
    }
    let seconds = began.elapsed().as_secs_f64();
    Ok(Trained::Finished(TrainingFigures {
        steps_per_second: n as f64 / seconds.max(1e-9),
        window_samples: window.len(),
        loss_policy: policy / n.max(1) as f64,
        loss_value: value / n.max(1) as f64,
    }))
}

/// Where a model of generation `g` at `trainer`'s step came from.
pub fn provenance(dir: &RunDir, g: u32, step: u64) -> Provenance {
    Provenance {
        run: Some(dir.root().display().to_string()),
        generation: Some(g),
        steps: Some(step),
        note: None,
    }
}

fn save_checkpoint(dir: &RunDir, g: u32, trainer: &Trainer) -> Result<(), RunError> {
    let provenance = provenance(dir, g, trainer.step);
    checkpoint::save(trainer, &provenance, &dir.checkpoint())?;
    Ok(())
}

/// One step's losses, learning rate and accuracies as TensorBoard scalars, by step.
fn log_step(metrics: &mut Metrics, step: u64, l: &Losses) {
    metrics.scalar("train/loss_policy", step, f64::from(l.policy));
    metrics.scalar("train/loss_value", step, f64::from(l.value));
    metrics.scalar("train/learning_rate", step, l.learning_rate);
    metrics.scalar("train/policy_accuracy", step, f64::from(l.policy_accuracy));
    metrics.scalar("train/value_accuracy", step, f64::from(l.value_accuracy));
}
