//! The training stage: optimiser steps on the replay window of the most recent
//! generations, with a checkpoint every `loop.checkpoint_every` steps. Batches are drawn
//! from generators seeded by step, so a resumed run takes the steps the killed one would
//! have.

use indicatif::ProgressBar;
use kvarn_model::Provenance;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use super::stream;
use crate::binding::RunTag;
use crate::checkpoint::{self, TrainingProgress};
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
    /// The run, as its checkpoints name it.
    pub run: &'a RunTag,
}

/// How the stage ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Trained {
    /// The generation's steps are done.
    Finished(TrainingFigures),
    /// Stopped at `max_steps`, checkpoint written.
    Stopped,
}

/// The replay window of generation `g`: the shards of the last `window_generations`, with
/// ownership targets only for a network with the head.
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
    let mut window = ReplayWindow::load(config.rules, &generations, &config.train)?;
    if !config.network.has_ownership_head() {
        window.forget_ownership_boards();
    }
    window.weigh(config.train.removal_weight);
    Ok(window)
}

/// Trains `trainer` up to the generation's last step. `done` is what the checkpoint says
/// of training so far; a generation's losses are summed on from it, so that a resumed
/// generation reports the figures of an uninterrupted one.
///
/// # Errors
/// The window cannot be filled or the checkpoint cannot be written.
pub fn train(
    stage: &TrainingStage<'_>,
    trainer: &mut Trainer,
    done: TrainingProgress,
    metrics: &mut Metrics,
    progress: Option<&ProgressBar>,
) -> Result<Trained, RunError> {
    let TrainingStage {
        config,
        dir,
        generation: g,
        max_steps,
        run,
    } = *stage;
    let window = window(config, dir, g)?;
    let per_gen = config.train.steps_per_generation;
    let target = u64::from(g) * per_gen;
    let taken = trainer.step.saturating_sub(target - per_gen);
    let of = config.run.generations;
    super::show_stage(progress, g, of, "training steps", per_gen, taken);
    let mut sums = if done.generation == g {
        done
    } else {
        TrainingProgress {
            generation: g,
            ..TrainingProgress::default()
        }
    };
    let mut began = std::time::Instant::now();
    while trainer.step < target {
        let l = step(config, &window, trainer);
        sums.policy_sum += f64::from(l.policy);
        sums.value_sum += f64::from(l.value);
        sums.ownership_sum += f64::from(l.ownership);
        sums.steps += 1;
        log_step(metrics, trainer.step, &l);
        if let Some(p) = progress {
            p.inc(1);
        }
        let stop = max_steps.is_some_and(|m| trainer.step >= m);
        let every = config.run.checkpoint_every;
        if trainer.step.is_multiple_of(every) || trainer.step == target || stop {
            sums.seconds += began.elapsed().as_secs_f64();
            began = std::time::Instant::now();
            save_checkpoint(dir, run, g, trainer, &sums)?;
        }
        if stop {
            metrics.flush();
            return Ok(Trained::Stopped);
        }
    }
    let n = sums.steps.max(1) as f64;
    Ok(Trained::Finished(TrainingFigures {
        steps_per_second: sums.steps as f64 / sums.seconds.max(1e-9),
        window_samples: window.len(),
        loss_policy: sums.policy_sum / n,
        loss_value: sums.value_sum / n,
        loss_ownership: config
            .network
            .has_ownership_head()
            .then_some(sums.ownership_sum / n),
        surprise_by_phase: window.surprise_by_phase(),
    }))
}

/// One optimiser step on a batch drawn with the generator of the trainer's step.
fn step(config: &RunConfig, window: &ReplayWindow, trainer: &mut Trainer) -> Losses {
    let seed = kvarn_game::seeds::derive(config.seed, stream::TRAINING, trainer.step);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let t = &config.train;
    let batch = window.batch(&mut rng, t.batch_size, t.augment, t.search_value_share);
    trainer.train_step(&batch)
}

/// Where a model of generation `g` at `trainer`'s step came from.
pub fn provenance(dir: &RunDir, g: u32, step: u64) -> Provenance {
    Provenance {
        run: Some(dir.root().display().to_string()),
        generation: Some(g),
        steps: Some(step),
        note: None,
        kernels: Some(kvarn_model::cpu::KernelPath::detected().name().to_string()),
        selfplay_precision: None,
        player: None,
    }
}

fn save_checkpoint(
    dir: &RunDir,
    run: &RunTag,
    g: u32,
    trainer: &Trainer,
    sums: &TrainingProgress,
) -> Result<(), RunError> {
    let provenance = provenance(dir, g, trainer.step);
    checkpoint::save(trainer, &provenance, sums, run, &dir.checkpoint())?;
    Ok(())
}

/// One step's losses, learning rate and accuracies as TensorBoard scalars, by step.
fn log_step(metrics: &mut Metrics, step: u64, l: &Losses) {
    metrics.scalar("train/loss_policy", step, f64::from(l.policy));
    metrics.scalar("train/loss_value", step, f64::from(l.value));
    if l.ownership > 0.0 {
        metrics.scalar("train/loss_ownership", step, f64::from(l.ownership));
    }
    metrics.scalar("train/learning_rate", step, l.learning_rate);
    metrics.scalar("train/policy_accuracy", step, f64::from(l.policy_accuracy));
    metrics.scalar("train/value_accuracy", step, f64::from(l.value_accuracy));
}
