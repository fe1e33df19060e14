//! The optimiser step through burn: losses as tensor operations, gradients by burn's
//! autodiff, burn's AdamW. It trains any network on any device.

use kvarn_model::Network;
use kvarn_model::burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use kvarn_model::burn::tensor::{Bool, Tensor, TensorData};

use super::losses::{LossWeights, Losses};
use crate::replay::Batch;

/// A network on its device's autodiff form, with burn's optimiser state.
pub(super) struct Autodiff {
    network: Network,
    optimizer: ModuleOptimizer,
}

/// The loss tensors of one batch and the accuracies.
struct LossTensors {
    total: Tensor<1>,
    policy: Tensor<1>,
    value: Tensor<1>,
    /// None without the ownership head.
    ownership: Option<Tensor<1>>,
    policy_accuracy: f32,
    value_accuracy: f32,
}

impl LossTensors {
    fn figures(&self, learning_rate: f64) -> Losses {
        Losses {
            policy: scalar(self.policy.clone()),
            value: scalar(self.value.clone()),
            ownership: self.ownership.clone().map_or(0.0, scalar),
            total: scalar(self.total.clone()),
            policy_accuracy: self.policy_accuracy,
            value_accuracy: self.value_accuracy,
            learning_rate,
        }
    }
}

impl Autodiff {
    pub(super) fn new(network: &Network, weight_decay: f32) -> Autodiff {
        Autodiff {
            network: network.for_training(),
            optimizer: AdamWConfig::new().with_weight_decay(weight_decay).init(),
        }
    }

    pub(super) fn network(&self) -> &Network {
        &self.network
    }

    pub(super) fn optimizer_bytes(&self) -> Result<Vec<u8>, String> {
        self.optimizer
            .into_bytes()
            .map(|b| b.to_vec())
            .map_err(|e| e.to_string())
    }

    pub(super) fn load_optimizer(&mut self, bytes: Vec<u8>) -> Result<(), String> {
        let optimizer = std::mem::replace(&mut self.optimizer, AdamWConfig::new().init());
        self.optimizer = optimizer
            .from_bytes(kvarn_model::burn::tensor::Bytes::from_bytes_vec(bytes))
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Total, policy, value and ownership losses, and the policy and value accuracies.
    fn loss(&self, batch: &Batch, weights: LossWeights) -> LossTensors {
        let dims = self.network.dims();
        let device = self.network.device();
        let n = batch.size;
        let tensor = |data: &[f32], cols: usize| {
            Tensor::<2>::from_data(TensorData::new(data.to_vec(), [n, cols]), device)
        };
        let legal = Tensor::<2, Bool>::from_data(
            TensorData::new(batch.legal.clone(), [n, dims.actions]),
            device,
        );
        let (log_policy, log_value, log_ownership) = self
            .network
            .forward_training(tensor(&batch.features, dims.input), legal);
        let target = tensor(&batch.policy, dims.actions);
        let weight_sum = batch.policy_weight.iter().sum::<f32>().max(1.0);
        let weight =
            Tensor::<1>::from_data(TensorData::new(batch.policy_weight.clone(), [n]), device);
        let policy_hits = hits(&log_policy, &target, n) * weight.clone();
        let policy_accuracy = scalar(policy_hits.sum().div_scalar(weight_sum));
        let policy = (target * log_policy).sum_dim(1).reshape([n]).neg() * weight;
        let policy = policy.sum().div_scalar(weight_sum);
        let value_target = tensor(&batch.value, 3);
        let value_accuracy = scalar(hits(&log_value, &value_target, n).mean());
        let value = (value_target * log_value)
            .sum_dim(1)
            .reshape([n])
            .neg()
            .mean();
        let ownership = log_ownership.map(|log_ownership| {
            let target = Tensor::<3>::from_data(
                TensorData::new(batch.ownership.clone(), [n, 3, dims.points]),
                device,
            );
            let weight = Tensor::<1>::from_data(
                TensorData::new(batch.ownership_weight.clone(), [n]),
                device,
            );
            let per_row = (target * log_ownership)
                .sum_dim(1)
                .reshape([n, dims.points])
                .mean_dim(1)
                .reshape([n])
                .neg();
            (per_row * weight).mean()
        });
        let mut total = policy.clone() + value.clone().mul_scalar(weights.value);
        if let Some(o) = &ownership {
            total = total + o.clone().mul_scalar(weights.ownership);
        }
        LossTensors {
            total,
            policy,
            value,
            ownership,
            policy_accuracy,
            value_accuracy,
        }
    }

    pub(super) fn losses(&self, batch: &Batch, weights: LossWeights) -> Losses {
        self.loss(batch, weights).figures(0.0)
    }

    pub(super) fn train_step(
        &mut self,
        batch: &Batch,
        weights: LossWeights,
        learning_rate: f64,
    ) -> Losses {
        let loss = self.loss(batch, weights);
        let losses = loss.figures(learning_rate);
        let grads = loss.total.backward();
        let grads = GradientsParams::from_grads(grads, &self.network.model);
        let model = self.network.model.clone();
        let model = self.optimizer.step(learning_rate, model, grads);
        self.network = self.network.clone().with_model(model);
        losses
    }
}

#[cfg(test)]
impl Autodiff {
    /// The gradients of every parameter on `batch`, per layer (weights, bias) in
    /// `ResidualMlp::training_layers` order (for tests of the fast path).
    pub(super) fn gradients(&self, batch: &Batch, weights: LossWeights) -> Vec<Vec<f32>> {
        let kvarn_model::Model::Mlp(mlp) = &self.network.model else {
            panic!("gradients are compared for MLPs");
        };
        let grads = self.loss(batch, weights).total.backward();
        let grad =
            |t: Option<Tensor<2>>| t.expect("a gradient").into_data().iter::<f32>().collect();
        let grad1 =
            |t: Option<Tensor<1>>| t.expect("a gradient").into_data().iter::<f32>().collect();
        mlp.training_layers()
            .into_iter()
            .flat_map(|(_, l)| {
                let bias = l.bias.as_ref().expect("biased layers").val();
                [grad(l.weight.val().grad(&grads)), grad1(bias.grad(&grads))]
            })
            .collect()
    }
}

/// 1 for rows whose most likely entry of `log_probs` is the target's, else 0.
fn hits(log_probs: &Tensor<2>, target: &Tensor<2>, n: usize) -> Tensor<1> {
    log_probs
        .clone()
        .detach()
        .argmax(1)
        .equal(target.clone().argmax(1))
        .float()
        .reshape([n])
}

fn scalar(t: Tensor<1>) -> f32 {
    t.into_data().try_to_vec::<f32>().expect("f32 loss")[0]
}
