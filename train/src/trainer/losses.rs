//! What a training step reports and how its losses are weighed.

use crate::config::TrainConfig;

/// Losses of one batch.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Losses {
    /// Policy cross-entropy against the search policy (rows with a full search).
    pub policy: f32,
    /// Win/draw/loss cross-entropy against the value target.
    pub value: f32,
    /// The ownership head's cross-entropy against the ownership board (the final board,
    /// or the board `train.ownership_horizon` decisions on), per point (0 without the head).
    pub ownership: f32,
    /// `policy + value_weight × value + ownership_weight × ownership`.
    pub total: f32,
    /// Share of rows with a full search whose most likely move is the search's most
    /// visited one.
    pub policy_accuracy: f32,
    /// Share of rows whose most likely win/draw/loss is the target's.
    pub value_accuracy: f32,
    /// Learning rate of the step (0 when no step was taken).
    pub learning_rate: f64,
}

/// The weights of the losses against the policy loss (`train.value_weight`,
/// `train.ownership_weight`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LossWeights {
    pub value: f32,
    pub ownership: f32,
}

impl LossWeights {
    pub(super) fn of(config: &TrainConfig) -> LossWeights {
        LossWeights {
            value: config.value_weight,
            ownership: config.ownership_weight,
        }
    }
}
