//! Training settings, the `[train]` table of a run configuration.

use serde::{Deserialize, Serialize};

/// How the learning rate changes over training steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Schedule {
    /// The same rate throughout.
    Constant,
    /// Multiplied by `factor` every `every` steps.
    Step {
        /// Steps between drops.
        every: u64,
        /// Factor of each drop.
        factor: f64,
    },
    /// Cosine decay from the rate to `min_fraction` of it over `steps`, then flat.
    Cosine {
        /// Steps of the decay.
        steps: u64,
        /// Where it ends, as a fraction of the starting rate.
        min_fraction: f64,
    },
}

/// Training settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Samples per mini-batch.
    pub batch_size: usize,
    /// Optimiser steps per generation.
    pub steps_per_generation: u64,
    /// Starting learning rate.
    pub learning_rate: f64,
    /// Learning-rate schedule over all steps of the run.
    pub schedule: Schedule,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f32,
    /// Weight of the value loss against the policy loss.
    pub value_weight: f32,
    /// Share of the value target taken from the search's win/draw/loss rather than the
    /// game's result (0: the result only).
    pub search_value_share: f32,
    /// Shards of the most recent generations kept in the replay window.
    pub window_generations: u32,
    /// At most this many samples in the window (the newest kept).
    pub window_samples: usize,
    /// Apply a random board symmetry to each sample.
    pub augment: bool,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 256,
            steps_per_generation: 200,
            learning_rate: 1e-3,
            schedule: Schedule::Constant,
            weight_decay: 1e-4,
            value_weight: 1.0,
            search_value_share: 0.0,
            window_generations: 4,
            window_samples: 500_000,
            augment: true,
        }
    }
}

/// A setting out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct TrainSettingError {
    /// The setting, as `train.key`.
    pub field: &'static str,
    /// What is wrong.
    pub reason: String,
}

impl TrainConfig {
    /// Checks every setting.
    ///
    /// # Errors
    /// The first setting out of range.
    pub fn validate(&self) -> Result<(), TrainSettingError> {
        let bad = |field, reason: &str| {
            Err(TrainSettingError {
                field,
                reason: reason.to_string(),
            })
        };
        if !(1..=1 << 16).contains(&self.batch_size) {
            return bad("train.batch_size", "must be 1..=65536");
        }
        if !(self.learning_rate > 0.0 && self.learning_rate < 10.0) {
            return bad("train.learning_rate", "must be in (0, 10)");
        }
        if !(0.0..1.0).contains(&self.weight_decay) {
            return bad("train.weight_decay", "must be in [0, 1)");
        }
        if self.value_weight.is_nan() || self.value_weight < 0.0 {
            return bad("train.value_weight", "must be >= 0");
        }
        if !(0.0..=1.0).contains(&self.search_value_share) {
            return bad("train.search_value_share", "must be in [0, 1]");
        }
        if self.window_generations == 0 || self.window_samples == 0 {
            return bad("train.window_generations", "the window must hold something");
        }
        match self.schedule {
            Schedule::Step { every, factor } if every == 0 || !(factor > 0.0 && factor <= 1.0) => {
                bad(
                    "train.schedule",
                    "step needs every >= 1 and factor in (0, 1]",
                )
            }
            Schedule::Cosine {
                steps,
                min_fraction,
            } if steps == 0 || !(0.0..=1.0).contains(&min_fraction) => bad(
                "train.schedule",
                "cosine needs steps >= 1 and min_fraction in [0, 1]",
            ),
            _ => Ok(()),
        }
    }

    /// The learning rate at optimiser step `step` (counted over the whole run).
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        let lr = self.learning_rate;
        match self.schedule {
            Schedule::Constant => lr,
            Schedule::Step { every, factor } => lr * factor.powi((step / every) as i32),
            Schedule::Cosine {
                steps,
                min_fraction,
            } => {
                let t = (step.min(steps) as f64) / steps as f64;
                let min = lr * min_fraction;
                min + (lr - min) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
            }
        }
    }
}
