//! The residual multi-layer perceptron: the plain, fast baseline architecture.

use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor};

use crate::config::Dims;

/// Stem, residual layers and two heads over the flat input (see [`crate::NetConfig::Mlp`]).
#[derive(Module, Debug)]
pub struct ResidualMlp {
    stem: Linear,
    blocks: Vec<Linear>,
    policy: Linear,
    value: Linear,
}

impl ResidualMlp {
    /// A freshly initialised network.
    pub fn new(dims: Dims, hidden: usize, blocks: usize, device: &Device) -> ResidualMlp {
        ResidualMlp {
            stem: LinearConfig::new(dims.input, hidden).init(device),
            blocks: (0..blocks)
                .map(|_| LinearConfig::new(hidden, hidden).init(device))
                .collect(),
            policy: LinearConfig::new(hidden, dims.actions).init(device),
            value: LinearConfig::new(hidden, 3).init(device),
        }
    }

    /// Policy logits `[batch, actions]` and win/draw/loss logits `[batch, 3]`.
    pub fn forward(&self, input: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let mut h = relu(self.stem.forward(input));
        for block in &self.blocks {
            h = relu(h.clone() + block.forward(h));
        }
        (self.policy.forward(h.clone()), self.value.forward(h))
    }

    /// The linear layers in order, with the names an exporter gives them.
    pub fn layers(&self) -> Vec<(String, &Linear)> {
        let mut out = vec![("stem".to_string(), &self.stem)];
        for (i, b) in self.blocks.iter().enumerate() {
            out.push((format!("blocks.{i}"), b));
        }
        out.push(("policy".to_string(), &self.policy));
        out.push(("value".to_string(), &self.value));
        out
    }
}
