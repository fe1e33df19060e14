//! Training throughput: optimiser steps per second on the network's device, with the
//! batch built as the reference PyTorch script builds its own (random inputs, one-hot
//! policy and value targets, every action legal), so the two figures compare, or with as
//! many legal actions as a game's positions have; and the
//! parts of a run's training stage (`kvarn bench replay`).

use std::time::{Duration, Instant};

use kvarn_model::Network;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::config::{TrainConfig, TrainEngine};
use crate::replay::{Batch, ReplayWindow};
use crate::trainer::Trainer;

/// A measured training run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainThroughput {
    /// Samples per step.
    pub batch: usize,
    /// Steps taken in the measured time.
    pub steps: u64,
    /// Steps per second.
    pub steps_per_second: f64,
    /// Samples per second.
    pub samples_per_second: f64,
    /// Total loss of the last step.
    pub final_loss: f32,
    /// The engine that took the steps (`cpu-mlp`, `burn-autodiff`).
    pub engine: &'static str,
}

/// The benchmark batch: pseudo-random inputs, row `i` aiming its policy at action
/// `31 i mod actions`, its value at outcome `i mod 3` and point `p`'s ownership at plane
/// `(i + p) mod 3` (used where the network has an ownership head). Every action is legal,
/// or `legal` of them per row (the target's and others evenly spaced after it), as in a
/// game's positions, where the policy head works on the legal ones alone.
pub fn reference_batch(network: &Network, batch: usize, legal: Option<usize>) -> Batch {
    let dims = network.dims();
    let per_row = legal.unwrap_or(dims.actions).clamp(1, dims.actions);
    let spacing = dims.actions / per_row;
    let mut mask = vec![false; batch * dims.actions];
    for (i, row) in mask.chunks_exact_mut(dims.actions).enumerate() {
        for j in 0..per_row {
            row[(i * 31 + j * spacing) % dims.actions] = true;
        }
    }
    let mut policy = vec![0.0; batch * dims.actions];
    let mut value = vec![0.0; batch * 3];
    let n = dims.points;
    let mut ownership = vec![0.0; batch * 3 * n];
    for i in 0..batch {
        policy[i * dims.actions + (i * 31) % dims.actions] = 1.0;
        value[i * 3 + i % 3] = 1.0;
        for p in 0..n {
            ownership[i * 3 * n + ((i + p) % 3) * n + p] = 1.0;
        }
    }
    Batch {
        size: batch,
        features: kvarn_model::bench::pseudo_random_inputs(batch * dims.input, 0x2545_f491),
        legal: mask,
        policy,
        policy_weight: vec![1.0; batch],
        value,
        ownership,
        ownership_weight: vec![1.0; batch],
    }
}

/// Trains `network` (a copy) on the reference batch (with `legal` actions a row, or all)
/// with AdamW at learning rate 1e-3 for about `time`, after three warm-up steps.
pub fn training(
    network: &Network,
    batch: usize,
    legal: Option<usize>,
    time: Duration,
    engine: TrainEngine,
) -> TrainThroughput {
    let config = TrainConfig {
        batch_size: batch,
        learning_rate: 1e-3,
        weight_decay: 0.01,
        engine,
        ..TrainConfig::default()
    };
    let mut trainer = Trainer::new(network, config);
    let data = reference_batch(network, batch, legal);
    let steps = steps_on(&mut trainer, &data, time);
    TrainThroughput {
        batch,
        steps: steps.steps,
        steps_per_second: steps.per_second,
        samples_per_second: steps.per_second * batch as f64,
        final_loss: steps.final_loss,
        engine: trainer.engine_name(),
    }
}

/// Optimiser steps measured on one batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepsOn {
    /// Steps taken in the measured time.
    pub steps: u64,
    /// Steps per second.
    pub per_second: f64,
    /// Total loss of the last step.
    pub final_loss: f32,
}

/// `trainer`'s steps on `batch` for about `time` (at least five), after three warm-up
/// steps.
pub fn steps_on(trainer: &mut Trainer, batch: &Batch, time: Duration) -> StepsOn {
    for _ in 0..3 {
        trainer.train_step(batch);
    }
    let start = Instant::now();
    let mut steps = 0u64;
    let mut final_loss = 0.0;
    while start.elapsed() < time || steps < 5 {
        final_loss = trainer.train_step(batch).total;
        steps += 1;
    }
    StepsOn {
        steps,
        per_second: steps as f64 / start.elapsed().as_secs_f64(),
        final_loss,
    }
}

/// Mini-batches per second drawn from `window` as the training stage draws them
/// (`train`'s batch size, augmentation and value-target mix), for about `time` (at least
/// three).
pub fn replay_batches(window: &ReplayWindow, train: &TrainConfig, time: Duration) -> f64 {
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let start = Instant::now();
    let mut batches = 0u64;
    while start.elapsed() < time || batches < 3 {
        let b = window.batch(
            &mut rng,
            train.batch_size,
            train.augment,
            train.search_value_share,
        );
        std::hint::black_box(b);
        batches += 1;
    }
    batches as f64 / start.elapsed().as_secs_f64()
}
