//! The residual multi-layer perceptron: the plain, fast baseline architecture.

use burn::module::{Module, Param};
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, TensorData};

use crate::config::Dims;

/// Stem, residual layers and two heads over the flat input, and the training-only
/// ownership head where configured (see [`crate::NetConfig::Mlp`]).
#[derive(Module, Debug)]
pub struct ResidualMlp {
    stem: Linear,
    blocks: Vec<Linear>,
    policy: Linear,
    value: Linear,
    ownership: Option<Linear>,
}

impl ResidualMlp {
    /// A freshly initialised network.
    pub fn new(
        dims: Dims,
        hidden: usize,
        blocks: usize,
        ownership_head: bool,
        device: &Device,
    ) -> ResidualMlp {
        ResidualMlp {
            stem: LinearConfig::new(dims.input, hidden).init(device),
            blocks: (0..blocks)
                .map(|_| LinearConfig::new(hidden, hidden).init(device))
                .collect(),
            policy: LinearConfig::new(hidden, dims.actions).init(device),
            value: LinearConfig::new(hidden, 3).init(device),
            ownership: ownership_head
                .then(|| LinearConfig::new(hidden, 3 * dims.points).init(device)),
        }
    }

    /// Policy logits `[batch, actions]` and win/draw/loss logits `[batch, 3]`.
    pub fn forward(&self, input: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let h = self.trunk(input);
        (self.policy.forward(h.clone()), self.value.forward(h))
    }

    /// [`ResidualMlp::forward`]'s logits and, where the network has the head, ownership
    /// logits `[batch, 3 × points]` in the point planes' layout (own, opponent, empty).
    pub fn forward_training(&self, input: Tensor<2>) -> (Tensor<2>, Tensor<2>, Option<Tensor<2>>) {
        let h = self.trunk(input);
        let ownership = self.ownership.as_ref().map(|o| o.forward(h.clone()));
        (
            self.policy.forward(h.clone()),
            self.value.forward(h),
            ownership,
        )
    }

    /// The last hidden layer.
    fn trunk(&self, input: Tensor<2>) -> Tensor<2> {
        let mut h = relu(self.stem.forward(input));
        for block in &self.blocks {
            h = relu(h.clone() + block.forward(h));
        }
        h
    }

    /// The same network with other parameter values, given per layer in
    /// [`ResidualMlp::training_layers`] order as (weights `[in, out]` row-major, bias);
    /// parameter ids are kept, so an optimiser's state still applies.
    ///
    /// # Panics
    /// When the values do not have the layers' shapes.
    pub fn with_parameters<'a>(
        &self,
        values: impl IntoIterator<Item = (&'a [f32], &'a [f32])>,
    ) -> ResidualMlp {
        let mut values = values.into_iter();
        let mut next = |linear: &Linear| {
            let (w, b) = values.next().expect("values for every layer");
            replace_linear(linear, w, b)
        };
        ResidualMlp {
            stem: next(&self.stem),
            blocks: self.blocks.iter().map(&mut next).collect(),
            policy: next(&self.policy),
            value: next(&self.value),
            ownership: self.ownership.as_ref().map(next),
        }
    }

    /// The linear layers that play, in order, with the names an exporter gives them: no
    /// ownership head.
    pub fn layers(&self) -> Vec<(String, &Linear)> {
        let mut out = vec![("stem".to_string(), &self.stem)];
        for (i, b) in self.blocks.iter().enumerate() {
            out.push((format!("blocks.{i}"), b));
        }
        out.push(("policy".to_string(), &self.policy));
        out.push(("value".to_string(), &self.value));
        out
    }

    /// [`ResidualMlp::layers`] and the ownership head where there is one: every layer a
    /// trainer updates.
    pub fn training_layers(&self) -> Vec<(String, &Linear)> {
        let mut out = self.layers();
        if let Some(o) = &self.ownership {
            out.push(("ownership".to_string(), o));
        }
        out
    }

    /// Whether the network has the ownership head.
    pub fn has_ownership_head(&self) -> bool {
        self.ownership.is_some()
    }
}

/// `linear` with weights `w` and bias `b`, on its device and with its parameter ids.
fn replace_linear(linear: &Linear, w: &[f32], b: &[f32]) -> Linear {
    let weight = linear.weight.val();
    let dims = weight.dims();
    assert_eq!(w.len(), dims[0] * dims[1], "weights of a {dims:?} layer");
    assert_eq!(b.len(), dims[1], "bias of a {dims:?} layer");
    let device = weight.device();
    let weight = Tensor::<2>::from_data(TensorData::new(w.to_vec(), dims), &device);
    let bias = Tensor::<1>::from_data(TensorData::new(b.to_vec(), [dims[1]]), &device);
    let mut bias = Param::from_tensor(bias);
    if let Some(old) = &linear.bias {
        bias.id = old.id;
    }
    let mut weight = Param::from_tensor(weight);
    weight.id = linear.weight.id;
    Linear {
        weight,
        bias: Some(bias),
    }
}
