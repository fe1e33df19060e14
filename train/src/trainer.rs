//! The optimiser loop's single step: losses on a mini-batch, gradients by burn's
//! autodiff, an AdamW update.

use kvarn_model::Network;
use kvarn_model::burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use kvarn_model::burn::tensor::{Bool, Tensor, TensorData};

use crate::config::TrainConfig;
use crate::replay::Batch;

/// Losses of one batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Losses {
    /// Policy cross-entropy against the search policy (rows with a full search).
    pub policy: f32,
    /// Win/draw/loss cross-entropy against the value target.
    pub value: f32,
    /// `policy + value_weight × value`.
    pub total: f32,
    /// Share of rows with a full search whose most likely move is the search's most
    /// visited one.
    pub policy_accuracy: f32,
    /// Share of rows whose most likely win/draw/loss is the target's.
    pub value_accuracy: f32,
    /// Learning rate of the step (0 when no step was taken).
    pub learning_rate: f64,
}

/// A network being trained, with its optimiser state.
pub struct Trainer {
    network: Network,
    optimizer: ModuleOptimizer,
    config: TrainConfig,
    /// Optimiser steps taken over the whole run.
    pub step: u64,
}

impl Trainer {
    /// A trainer for `network` (moved to its device's autodiff form).
    pub fn new(network: &Network, config: TrainConfig) -> Trainer {
        let optimizer = AdamWConfig::new()
            .with_weight_decay(config.weight_decay)
            .init();
        Trainer {
            network: network.for_training(),
            optimizer,
            config,
            step: 0,
        }
    }

    /// The network as trained so far (on the autodiff device; call
    /// [`Network::for_inference`] to play with it).
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// The settings.
    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    /// The optimiser state in burn's record format, for checkpoints.
    ///
    /// # Errors
    /// The state cannot be serialised.
    pub fn optimizer_bytes(&self) -> Result<Vec<u8>, String> {
        self.optimizer
            .into_bytes()
            .map(|b| b.to_vec())
            .map_err(|e| e.to_string())
    }

    /// Restores optimiser state saved by [`Trainer::optimizer_bytes`].
    ///
    /// # Errors
    /// The bytes are not an optimiser record for this network.
    pub fn load_optimizer(&mut self, bytes: Vec<u8>) -> Result<(), String> {
        let optimizer = std::mem::replace(&mut self.optimizer, AdamWConfig::new().init());
        self.optimizer = optimizer
            .from_bytes(kvarn_model::burn::tensor::Bytes::from_bytes_vec(bytes))
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Total, policy and value losses, and the policy and value accuracies.
    fn loss(&self, batch: &Batch) -> (Tensor<1>, Tensor<1>, Tensor<1>, f32, f32) {
        let dims = self.network.dims();
        let device = self.network.device();
        let n = batch.size;
        let x = Tensor::<2>::from_data(
            TensorData::new(batch.features.clone(), [n, dims.input]),
            device,
        );
        let legal = Tensor::<2, Bool>::from_data(
            TensorData::new(batch.legal.clone(), [n, dims.actions]),
            device,
        );
        let (log_policy, log_value) = self.network.forward_log_probs(x, legal);
        let target = Tensor::<2>::from_data(
            TensorData::new(batch.policy.clone(), [n, dims.actions]),
            device,
        );
        let weight_sum: f32 = batch.policy_weight.iter().sum();
        let weight =
            Tensor::<1>::from_data(TensorData::new(batch.policy_weight.clone(), [n]), device);
        let policy_hits = log_policy
            .clone()
            .detach()
            .argmax(1)
            .equal(target.clone().argmax(1))
            .float()
            .reshape([n])
            * weight.clone();
        let policy_accuracy = scalar(policy_hits.sum().div_scalar(weight_sum.max(1.0)));
        let policy = (target * log_policy).sum_dim(1).reshape([n]).neg() * weight;
        let policy = policy.sum().div_scalar(weight_sum.max(1.0));
        let value_target =
            Tensor::<2>::from_data(TensorData::new(batch.value.clone(), [n, 3]), device);
        let value_accuracy = scalar(
            log_value
                .clone()
                .detach()
                .argmax(1)
                .equal(value_target.clone().argmax(1))
                .float()
                .reshape([n])
                .mean(),
        );
        let value = (value_target * log_value)
            .sum_dim(1)
            .reshape([n])
            .neg()
            .mean();
        let total = policy.clone() + value.clone().mul_scalar(self.config.value_weight);
        (total, policy, value, policy_accuracy, value_accuracy)
    }

    /// Losses of `batch` without training.
    pub fn losses(&self, batch: &Batch) -> Losses {
        let (total, policy, value, policy_accuracy, value_accuracy) = self.loss(batch);
        Losses {
            policy: scalar(policy),
            value: scalar(value),
            total: scalar(total),
            policy_accuracy,
            value_accuracy,
            learning_rate: 0.0,
        }
    }

    /// One optimiser step on `batch`; returns its losses before the step.
    pub fn train_step(&mut self, batch: &Batch) -> Losses {
        let (total, policy, value, policy_accuracy, value_accuracy) = self.loss(batch);
        let losses = Losses {
            policy: scalar(policy),
            value: scalar(value),
            total: scalar(total.clone()),
            policy_accuracy,
            value_accuracy,
            learning_rate: self.config.learning_rate_at(self.step),
        };
        let grads = total.backward();
        let grads = GradientsParams::from_grads(grads, &self.network.model);
        let model = self.network.model.clone();
        let model = self.optimizer.step(losses.learning_rate, model, grads);
        self.network = self.network.clone().with_model(model);
        self.step += 1;
        losses
    }
}

fn scalar(t: Tensor<1>) -> f32 {
    t.into_data().try_to_vec::<f32>().expect("f32 loss")[0]
}
