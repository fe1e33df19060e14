//! The optimiser step for an MLP on the CPU through `kvarn_model::cpu`: the same losses as
//! [`super::autodiff`], with the gradients of the logits written out (softmax minus target)
//! and the rest of the backward pass and AdamW on the fast kernels.

use kvarn_model::burn::tensor::Device;
use kvarn_model::cpu::{AdamW, MlpTraining, OptimizerStateError, RowActions, kernels};
use kvarn_model::{Model, Network};
use rayon::prelude::*;

use super::losses::{LossWeights, Losses};
use crate::replay::Batch;

/// An MLP being trained on the fast CPU path.
pub(super) struct FastMlp {
    /// The network the parameters came from (its architecture and rules).
    network: Network,
    training: MlpTraining,
    adamw: AdamW,
    d_policy: Vec<f32>,
    d_value: Vec<f32>,
    d_ownership: Vec<f32>,
}

impl FastMlp {
    /// The fast path for `network`, if it is an MLP on the CPU.
    pub(super) fn new(network: &Network, weight_decay: f32) -> Option<FastMlp> {
        let network = network.for_inference();
        let Model::Mlp(mlp) = &network.model else {
            return None;
        };
        if *network.device() != Device::flex() {
            return None;
        }
        let training = MlpTraining::from_burn(mlp);
        Some(FastMlp {
            training,
            network,
            adamw: AdamW {
                weight_decay,
                ..AdamW::default()
            },
            d_policy: Vec::new(),
            d_value: Vec::new(),
            d_ownership: Vec::new(),
        })
    }

    /// The network with the parameters as trained so far.
    pub(super) fn network(&self) -> Network {
        let Model::Mlp(mlp) = &self.network.model else {
            unreachable!("FastMlp holds an MLP");
        };
        let trained = self.training.to_burn(mlp);
        self.network.clone().with_model(Model::Mlp(trained))
    }

    pub(super) fn optimizer_bytes(&self) -> Vec<u8> {
        self.training.optimizer_bytes()
    }

    pub(super) fn load_optimizer(&mut self, bytes: &[u8]) -> Result<(), OptimizerStateError> {
        self.training.load_optimizer(bytes)
    }

    /// Forward pass and loss; the logits' gradients are left in `d_policy`, `d_value` and
    /// `d_ownership`.
    fn loss(&mut self, batch: &Batch, weights: LossWeights) -> Losses {
        let legal = RowActions::from_mask(&batch.legal, self.training.actions());
        let (policy, value) = self.training.forward(&batch.features, batch.size, &legal);
        let mut losses = policy_loss(policy, &legal, batch, &mut self.d_policy);
        let (value_loss, value_accuracy) =
            value_loss(value, batch, weights.value, &mut self.d_value);
        losses.value = value_loss;
        losses.value_accuracy = value_accuracy;
        if let Some(logits) = self.training.ownership_logits() {
            let points = self.network.dims().points;
            losses.ownership = ownership_loss(
                logits,
                batch,
                points,
                weights.ownership,
                &mut self.d_ownership,
            );
        }
        losses.total =
            losses.policy + weights.value * value_loss + weights.ownership * losses.ownership;
        losses
    }

    /// The logits' gradients of the last [`FastMlp::loss`], one per head.
    fn backward(&mut self) {
        let mut heads = vec![self.d_policy.as_slice(), self.d_value.as_slice()];
        if self.training.has_ownership_head() {
            heads.push(&self.d_ownership);
        }
        self.training.backward(&heads);
    }

    pub(super) fn losses(&mut self, batch: &Batch, weights: LossWeights) -> Losses {
        self.loss(batch, weights)
    }

    pub(super) fn train_step(
        &mut self,
        batch: &Batch,
        weights: LossWeights,
        learning_rate: f64,
    ) -> Losses {
        let losses = Losses {
            learning_rate,
            ..self.loss(batch, weights)
        };
        self.backward();
        self.training.step(&self.adamw, learning_rate);
        losses
    }

    /// The gradients of the last step's backward pass, per layer (for tests).
    #[cfg(test)]
    pub(super) fn gradients(&mut self, batch: &Batch, weights: LossWeights) -> Vec<Vec<f32>> {
        self.loss(batch, weights);
        self.backward();
        self.training
            .gradients()
            .into_iter()
            .flat_map(|(w, b)| [w.to_vec(), b.to_vec()])
            .collect()
    }
}

/// One row's cross-entropy against `target` and its logits' gradient: `grad` gets
/// `scale × (softmax × Σ target − target)` and the row's loss `−Σ target × log softmax`
/// and whether its most likely entry is the target's come back (nothing for an empty row).
fn row_loss(logits: &[f32], target: &[f32], scale: f32, grad: &mut [f32]) -> (f64, bool) {
    if logits.is_empty() {
        return (0.0, false);
    }
    grad.copy_from_slice(logits);
    let best = argmax(grad);
    let max = grad[best];
    let dot: f32 = grad.iter().zip(target).map(|(l, t)| l * t).sum();
    let mass: f32 = target.iter().sum();
    let mut sum = 0.0;
    kernels::exp_shifted(grad, max, &mut sum);
    let loss = f64::from(mass) * (f64::from(max) + f64::from(sum).ln()) - f64::from(dot);
    let k = scale * mass / sum;
    for (g, &t) in grad.iter_mut().zip(target) {
        *g = k * *g - scale * t;
    }
    (loss, best == argmax(target))
}

/// Index of the first largest entry.
fn argmax(values: &[f32]) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v > values[best] {
            best = i;
        }
    }
    best
}

/// Rows handled by one task of the loss's parallel loop.
const ROWS_PER_TASK: usize = 32;

/// Weighted policy cross-entropy over the rows with a full search, its accuracy, and the
/// logits' gradients into `grad`; `logits` and `grad` hold one value per legal action
/// (`legal`'s entries).
fn policy_loss(logits: &[f32], legal: &RowActions, batch: &Batch, grad: &mut Vec<f32>) -> Losses {
    let actions = batch.policy.len() / batch.size.max(1);
    let weight_sum = batch.policy_weight.iter().sum::<f32>().max(1.0);
    grad.clear();
    grad.resize(logits.len(), 0.0);
    let (loss, hits) = legal
        .split_rows_mut(grad, ROWS_PER_TASK)
        .into_par_iter()
        .map(|(first, grad)| {
            let (mut loss, mut hits) = (0.0f64, 0.0f64);
            let base = legal.row(first).start;
            let mut target = Vec::new();
            for r in first..(first + ROWS_PER_TASK).min(batch.size) {
                let entries = legal.row(r);
                let policy = &batch.policy[r * actions..(r + 1) * actions];
                target.clear();
                target.extend(
                    legal.actions()[entries.clone()]
                        .iter()
                        .map(|&a| policy[a as usize]),
                );
                let w = batch.policy_weight[r];
                let (l, hit) = row_loss(
                    &logits[entries.clone()],
                    &target,
                    w / weight_sum,
                    &mut grad[entries.start - base..entries.end - base],
                );
                loss += f64::from(w) * l;
                hits += if hit { f64::from(w) } else { 0.0 };
            }
            (loss, hits)
        })
        .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
    Losses {
        policy: (loss / f64::from(weight_sum)) as f32,
        policy_accuracy: (hits / f64::from(weight_sum)) as f32,
        ..Losses::default()
    }
}

/// Mean win/draw/loss cross-entropy, its accuracy, and the logits' gradients (scaled by
/// the value weight) into `grad`.
fn value_loss(logits: &[f32], batch: &Batch, value_weight: f32, grad: &mut Vec<f32>) -> (f32, f32) {
    let n = batch.size.max(1) as f32;
    grad.resize(logits.len(), 0.0);
    let (mut loss, mut hits) = (0.0f64, 0usize);
    for (r, (row, g)) in logits
        .chunks_exact(3)
        .zip(grad.chunks_exact_mut(3))
        .enumerate()
    {
        let (l, hit) = row_loss(row, &batch.value[3 * r..3 * r + 3], value_weight / n, g);
        loss += l;
        hits += usize::from(hit);
    }
    ((loss / f64::from(n)) as f32, hits as f32 / n)
}

/// The ownership head's loss: per row, the mean over the `points` points of the
/// cross-entropy of the softmax over each point's three logits (own, opponent, empty, in
/// the point planes' layout) against the row's ownership board, times the row's ownership
/// weight; averaged over the rows. The logits' gradients, scaled by `weight`, go into
/// `grad`.
fn ownership_loss(
    logits: &[f32],
    batch: &Batch,
    points: usize,
    weight: f32,
    grad: &mut Vec<f32>,
) -> f32 {
    let width = 3 * points;
    let cells = batch.size.max(1) as f32 * points as f32;
    grad.resize(logits.len(), 0.0);
    let loss: f64 = grad
        .par_chunks_mut(ROWS_PER_TASK * width)
        .enumerate()
        .map(|(c, grad)| {
            let mut loss = 0.0f64;
            for (i, g) in grad.chunks_exact_mut(width).enumerate() {
                let r = c * ROWS_PER_TASK + i;
                let w = batch.ownership_weight[r];
                let row = r * width..(r + 1) * width;
                let l = points_loss(
                    &logits[row.clone()],
                    &batch.ownership[row],
                    weight * w / cells,
                    g,
                );
                loss += f64::from(w) * l;
            }
            loss
        })
        .sum();
    (loss / f64::from(cells)) as f32
}

/// One row of the ownership head: the sum over its points of each point's three-way
/// cross-entropy against `target` (both in the point planes' layout), each point's
/// gradients scaled by `scale` into `grad`.
fn points_loss(logits: &[f32], target: &[f32], scale: f32, grad: &mut [f32]) -> f64 {
    let points = logits.len() / 3;
    let mut loss = 0.0f64;
    for p in 0..points {
        let at = [p, points + p, 2 * points + p];
        let mut d = [0.0f32; 3];
        let (l, _) = row_loss(
            &at.map(|i| logits[i]),
            &at.map(|i| target[i]),
            scale,
            &mut d,
        );
        loss += l;
        for (&i, d) in at.iter().zip(d) {
            grad[i] = d;
        }
    }
    loss
}
