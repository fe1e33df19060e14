//! Training the residual MLP on the CPU without burn's autodiff: a forward pass that keeps
//! its activations, the backward pass written out layer by layer, and AdamW as burn
//! computes it, all over one flat parameter vector so that the optimiser is a single
//! pass. The loss itself is the trainer's: it hands back the gradients of the logits.

use super::kernels::{self, AdamWStep, Product, Transpose};
use super::sparse_head::{self, Head, RowActions};
use crate::mlp::ResidualMlp;

/// AdamW's settings; the defaults are burn's `AdamWConfig`'s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamW {
    /// Decay of the first moment.
    pub beta_1: f32,
    /// Decay of the second moment.
    pub beta_2: f32,
    /// Added to the root of the second moment.
    pub epsilon: f32,
    /// Decoupled weight decay, per unit of learning rate.
    pub weight_decay: f32,
}

impl Default for AdamW {
    fn default() -> AdamW {
        AdamW {
            beta_1: 0.9,
            beta_2: 0.999,
            epsilon: 1e-5,
            weight_decay: 1e-4,
        }
    }
}

/// Why saved optimiser state does not load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptimizerStateError {
    /// The bytes are not this path's optimiser state.
    #[error("not Kvarn's MLP optimiser state (burn's own format, or damaged)")]
    NotOurs,
    /// The state is for a network of another size.
    #[error("optimiser state for {found} parameters, the network has {expected}")]
    Size {
        /// Parameters in the state.
        found: usize,
        /// Parameters of the network.
        expected: usize,
    },
}

/// Magic prefix of [`MlpTraining::optimizer_bytes`].
const STATE_MAGIC: &[u8; 12] = b"kvarn-adamw1";

/// Where one linear layer's parameters sit in the flat vector.
#[derive(Debug, Clone, Copy)]
struct Layer {
    at: usize,
    inputs: usize,
    outputs: usize,
}

impl Layer {
    fn weights(self) -> std::ops::Range<usize> {
        self.at..self.at + self.inputs * self.outputs
    }
    fn bias(self) -> std::ops::Range<usize> {
        let w = self.weights().end;
        w..w + self.outputs
    }
}

/// A residual MLP being trained: parameters, gradients, AdamW moments and the activations
/// of the last forward pass. Layers are in [`ResidualMlp::training_layers`] order: stem,
/// residual layers, policy head, value head, and the ownership head where there is one.
#[derive(Debug, Clone)]
pub struct MlpTraining {
    layers: Vec<Layer>,
    params: Vec<f32>,
    grads: Vec<f32>,
    moment_1: Vec<f32>,
    moment_2: Vec<f32>,
    /// AdamW steps taken.
    time: u32,
    /// The heads: the last layers, each fed by the last hidden layer.
    heads: usize,
    rows: usize,
    input: Vec<f32>,
    /// Output of the stem and of each residual layer.
    hidden: Vec<Vec<f32>>,
    /// Each head's logits of the last forward pass: policy `rows × actions`, win/draw/loss
    /// `rows × 3`, ownership `rows × 3n`.
    logits: Vec<Vec<f32>>,
    d_hidden: Vec<f32>,
    scratch: Vec<f32>,
    /// The policy head's actions of the last forward pass (its logits are theirs alone).
    policy_actions: RowActions,
    /// The policy weights transposed (a row per action), as the sparse head reads them;
    /// and their gradient in that layout.
    policy_t: Vec<f32>,
    policy_grad_t: Vec<f32>,
    /// The policy head's logits or their gradients, `rows × actions`, where the listed
    /// actions are dense enough for the dense products.
    policy_dense: Vec<f32>,
}

impl MlpTraining {
    /// Copies the parameters of a burn MLP, with fresh optimiser state.
    pub fn from_burn(mlp: &ResidualMlp) -> MlpTraining {
        let mut layers = Vec::new();
        let mut params = Vec::new();
        for (_, linear) in mlp.training_layers() {
            let w = linear.weight.val();
            let [inputs, outputs] = w.dims();
            layers.push(Layer {
                at: params.len(),
                inputs,
                outputs,
            });
            params.extend(w.into_data().iter::<f32>());
            match &linear.bias {
                Some(b) => params.extend(b.val().into_data().iter::<f32>()),
                None => params.extend(std::iter::repeat_n(0.0, outputs)),
            }
        }
        let n = params.len();
        MlpTraining {
            layers,
            params,
            grads: vec![0.0; n],
            moment_1: vec![0.0; n],
            moment_2: vec![0.0; n],
            time: 0,
            heads: if mlp.has_ownership_head() { 3 } else { 2 },
            rows: 0,
            input: Vec::new(),
            hidden: Vec::new(),
            logits: Vec::new(),
            d_hidden: Vec::new(),
            scratch: Vec::new(),
            policy_actions: RowActions::default(),
            policy_t: Vec::new(),
            policy_grad_t: Vec::new(),
            policy_dense: Vec::new(),
        }
    }

    /// The parameters as a burn MLP shaped like `like` (whose parameter ids it keeps).
    pub fn to_burn(&self, like: &ResidualMlp) -> ResidualMlp {
        like.with_parameters(
            self.layers
                .iter()
                .map(|&l| (&self.params[l.weights()], &self.params[l.bias()])),
        )
    }

    /// Trainable parameters.
    pub fn parameter_count(&self) -> usize {
        self.params.len()
    }

    /// Input features per row.
    pub fn input_len(&self) -> usize {
        self.layers[0].inputs
    }

    /// Policy outputs per row.
    pub fn actions(&self) -> usize {
        self.layers[self.layers.len() - self.heads].outputs
    }

    /// Whether the network has the ownership head.
    pub fn has_ownership_head(&self) -> bool {
        self.heads == 3
    }

    /// The ownership logits of the last forward pass (`rows × 3n`, the point planes'
    /// layout), where the network has the head.
    pub fn ownership_logits(&self) -> Option<&[f32]> {
        self.logits.get(2).map(Vec::as_slice)
    }

    fn width(&self) -> usize {
        self.layers[0].outputs
    }

    /// Runs `rows` encoded positions (`x`, row-major) forward, keeping what the backward
    /// pass needs; returns the policy logits of the actions `policy` lists for each row
    /// (the legal ones: the loss masks the others), one per entry, and the win/draw/loss
    /// logits (`rows × 3`).
    ///
    /// # Panics
    /// When `x` does not hold `rows` rows of the input size, or `policy` lists another
    /// number of rows or an action beyond the head.
    pub fn forward(&mut self, x: &[f32], rows: usize, policy: &RowActions) -> (&[f32], &[f32]) {
        assert_eq!(x.len(), rows * self.input_len(), "feature rows");
        assert_eq!(policy.rows(), rows, "policy action rows");
        let actions = self.actions() as u32;
        assert!(
            policy.actions().iter().all(|&a| a < actions),
            "policy actions in the head"
        );
        self.policy_actions.clone_from(policy);
        let width = self.width();
        let blocks = self.layers.len() - 1 - self.heads;
        self.rows = rows;
        self.input.clear();
        self.input.extend_from_slice(x);
        self.hidden.resize_with(blocks + 1, Vec::new);
        self.scratch.resize(rows * width, 0.0);
        let stem = self.layers[0];
        let h0 = &mut self.hidden[0];
        h0.resize(rows * width, 0.0);
        Product::new(rows, width, stem.inputs).with_parallel().run(
            x,
            &self.params[stem.weights()],
            h0,
        );
        kernels::bias_relu(h0, &self.params[stem.bias()]);
        for k in 0..blocks {
            let layer = self.layers[1 + k];
            let (done, next) = self.hidden.split_at_mut(k + 1);
            Product::new(rows, width, width).with_parallel().run(
                &done[k],
                &self.params[layer.weights()],
                &mut self.scratch,
            );
            next[0].clear();
            next[0].extend_from_slice(&done[k]);
            kernels::residual_bias_relu(&mut next[0], &self.scratch, &self.params[layer.bias()]);
        }
        self.heads_forward();
        (&self.logits[0], &self.logits[1])
    }

    fn heads_forward(&mut self) {
        let rows = self.rows;
        let first = self.layers.len() - self.heads;
        self.logits.resize_with(self.heads, Vec::new);
        self.policy_forward();
        let last = &self.hidden[self.hidden.len() - 1];
        for (&layer, out) in self.layers[first + 1..].iter().zip(&mut self.logits[1..]) {
            out.resize(rows * layer.outputs, 0.0);
            Product::new(rows, layer.outputs, layer.inputs)
                .with_parallel()
                .run(last, &self.params[layer.weights()], out);
            kernels::add_bias(out, &self.params[layer.bias()]);
        }
    }

    /// Gradients of every parameter from the gradients of the last forward pass's logits,
    /// one slice per head in order (policy, value, ownership where there is the head),
    /// each of its logits' shape.
    ///
    /// # Panics
    /// When the gradients do not match the last forward pass's heads and shapes.
    pub fn backward(&mut self, d_logits: &[&[f32]]) {
        assert_eq!(d_logits.len(), self.heads, "a gradient for every head");
        for (d, l) in d_logits.iter().zip(&self.logits) {
            assert_eq!(d.len(), l.len(), "head gradient rows");
        }
        let rows = self.rows;
        let width = self.width();
        self.d_hidden.resize(rows * width, 0.0);
        self.heads_backward(d_logits);
        for k in (1..self.hidden.len()).rev() {
            let layer = self.layers[k];
            kernels::relu_backward(&mut self.d_hidden, &self.hidden[k]);
            self.weight_gradients(layer, k - 1);
            // The input gradient: through the skip connection and through the product.
            self.scratch.clear();
            self.scratch.extend_from_slice(&self.d_hidden);
            Product {
                b: Transpose::Yes,
                accumulate: true,
                ..Product::new(rows, width, width)
            }
            .with_parallel()
            .run(
                &self.d_hidden,
                &self.params[layer.weights()],
                &mut self.scratch,
            );
            std::mem::swap(&mut self.d_hidden, &mut self.scratch);
        }
        kernels::relu_backward(&mut self.d_hidden, &self.hidden[0]);
        let stem = self.layers[0];
        let (grads, input) = (&mut self.grads, &self.input);
        Product {
            a: Transpose::Yes,
            ..Product::new(stem.inputs, stem.outputs, rows)
        }
        .with_parallel()
        .run(input, &self.d_hidden, &mut grads[stem.weights()]);
        kernels::column_sums(&mut grads[stem.bias()], &self.d_hidden);
    }

    /// Head gradients, and the gradient of the last hidden layer into `d_hidden`.
    fn heads_backward(&mut self, d_logits: &[&[f32]]) {
        let rows = self.rows;
        let first = self.layers.len() - self.heads;
        self.policy_backward(d_logits[0]);
        let last = &self.hidden[self.hidden.len() - 1];
        for (&layer, &d) in self.layers[first + 1..].iter().zip(&d_logits[1..]) {
            Product {
                a: Transpose::Yes,
                ..Product::new(layer.inputs, layer.outputs, rows)
            }
            .with_parallel()
            .run(last, d, &mut self.grads[layer.weights()]);
            kernels::column_sums(&mut self.grads[layer.bias()], d);
            Product {
                b: Transpose::Yes,
                accumulate: true,
                ..Product::new(rows, layer.inputs, layer.outputs)
            }
            .with_parallel()
            .run(d, &self.params[layer.weights()], &mut self.d_hidden);
        }
    }

    /// The policy head's layer.
    fn policy_layer(&self) -> Layer {
        self.layers[self.layers.len() - self.heads]
    }

    /// Whether the last forward pass listed so many policy actions that the head's dense
    /// products beat the sparse passes (more than a quarter of them, as in a benchmark's
    /// batch with every action legal).
    fn policy_is_dense(&self) -> bool {
        4 * self.policy_actions.len() > self.rows * self.policy_layer().outputs
    }

    /// The policy logits of the listed actions, from the last hidden layer.
    fn policy_forward(&mut self) {
        let policy = self.policy_layer();
        let last = &self.hidden[self.hidden.len() - 1];
        let list = &self.policy_actions;
        if self.policy_is_dense() {
            let dense = &mut self.policy_dense;
            dense.resize(self.rows * policy.outputs, 0.0);
            Product::new(self.rows, policy.outputs, policy.inputs)
                .with_parallel()
                .run(last, &self.params[policy.weights()], dense);
            kernels::add_bias(dense, &self.params[policy.bias()]);
            let logits = &mut self.logits[0];
            logits.clear();
            for r in 0..self.rows {
                let row = &dense[r * policy.outputs..(r + 1) * policy.outputs];
                logits.extend(list.actions()[list.row(r)].iter().map(|&a| row[a as usize]));
            }
            return;
        }
        self.policy_t.resize(policy.inputs * policy.outputs, 0.0);
        sparse_head::transpose(
            &self.params[policy.weights()],
            policy.inputs,
            policy.outputs,
            &mut self.policy_t,
        );
        let head = Head {
            weights_t: &self.policy_t,
            bias: &self.params[policy.bias()],
            width: policy.inputs,
        };
        sparse_head::forward(&head, last, list, &mut self.logits[0]);
    }

    /// The policy head's gradients from its logits' (`d`, one per listed action), and the
    /// last hidden layer's into `d_hidden` (overwritten).
    fn policy_backward(&mut self, d: &[f32]) {
        let policy = self.policy_layer();
        let last = &self.hidden[self.hidden.len() - 1];
        let list = &self.policy_actions;
        let dense_path = self.policy_is_dense();
        let (weights, bias) = self.grads[policy.weights().start..policy.bias().end]
            .split_at_mut(policy.inputs * policy.outputs);
        if dense_path {
            let dense = &mut self.policy_dense;
            dense.clear();
            dense.resize(self.rows * policy.outputs, 0.0);
            for r in 0..self.rows {
                for k in list.row(r) {
                    dense[r * policy.outputs + list.actions()[k] as usize] = d[k];
                }
            }
            Product {
                a: Transpose::Yes,
                ..Product::new(policy.inputs, policy.outputs, self.rows)
            }
            .with_parallel()
            .run(last, dense, weights);
            kernels::column_sums(bias, dense);
            Product {
                b: Transpose::Yes,
                ..Product::new(self.rows, policy.inputs, policy.outputs)
            }
            .with_parallel()
            .run(dense, &self.params[policy.weights()], &mut self.d_hidden);
            return;
        }
        let head = Head {
            weights_t: &self.policy_t,
            bias: &self.params[policy.bias()],
            width: policy.inputs,
        };
        self.policy_grad_t
            .resize(policy.inputs * policy.outputs, 0.0);
        sparse_head::backward(
            &head,
            last,
            list,
            d,
            &mut self.policy_grad_t,
            bias,
            &mut self.d_hidden,
        );
        sparse_head::transpose(&self.policy_grad_t, policy.outputs, policy.inputs, weights);
    }

    /// A residual layer's weight and bias gradients from its output gradient (in
    /// `d_hidden`, already through the ReLU) and its input, `hidden[input]`.
    fn weight_gradients(&mut self, layer: Layer, input: usize) {
        Product {
            a: Transpose::Yes,
            ..Product::new(layer.inputs, layer.outputs, self.rows)
        }
        .with_parallel()
        .run(
            &self.hidden[input],
            &self.d_hidden,
            &mut self.grads[layer.weights()],
        );
        kernels::column_sums(&mut self.grads[layer.bias()], &self.d_hidden);
    }

    /// The gradients of the last backward pass, per layer: (weights `[in, out]`, bias).
    pub fn gradients(&self) -> Vec<(&[f32], &[f32])> {
        self.layers
            .iter()
            .map(|&l| (&self.grads[l.weights()], &self.grads[l.bias()]))
            .collect()
    }

    /// One AdamW step with the gradients of the last backward pass.
    pub fn step(&mut self, adamw: &AdamW, learning_rate: f64) {
        self.time += 1;
        let t = i32::try_from(self.time).unwrap_or(i32::MAX);
        let step = AdamWStep {
            beta_1: adamw.beta_1,
            beta_2: adamw.beta_2,
            epsilon: adamw.epsilon,
            correction_1: 1.0 - adamw.beta_1.powi(t),
            correction_2: 1.0 - adamw.beta_2.powi(t),
            learning_rate: learning_rate as f32,
            decay: (1.0 - learning_rate * f64::from(adamw.weight_decay)) as f32,
        };
        const CHUNK: usize = 1 << 14;
        use rayon::prelude::*;
        self.params
            .par_chunks_mut(CHUNK)
            .zip(self.grads.par_chunks(CHUNK))
            .zip(self.moment_1.par_chunks_mut(CHUNK))
            .zip(self.moment_2.par_chunks_mut(CHUNK))
            .for_each(|(((p, g), m), v)| kernels::adamw(p, g, m, v, &step));
    }

    /// The optimiser state (steps taken and both moments), for checkpoints.
    pub fn optimizer_bytes(&self) -> Vec<u8> {
        let n = self.params.len();
        let mut out = Vec::with_capacity(STATE_MAGIC.len() + 12 + 8 * n);
        out.extend_from_slice(STATE_MAGIC);
        out.extend_from_slice(&self.time.to_le_bytes());
        out.extend_from_slice(&(n as u64).to_le_bytes());
        for v in self.moment_1.iter().chain(&self.moment_2) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Whether `bytes` are state written by [`MlpTraining::optimizer_bytes`].
    pub fn is_optimizer_state(bytes: &[u8]) -> bool {
        bytes.starts_with(STATE_MAGIC)
    }

    /// Restores state written by [`MlpTraining::optimizer_bytes`].
    ///
    /// # Errors
    /// The bytes are not such state, or are for another network size.
    pub fn load_optimizer(&mut self, bytes: &[u8]) -> Result<(), OptimizerStateError> {
        let rest = bytes
            .strip_prefix(STATE_MAGIC.as_slice())
            .ok_or(OptimizerStateError::NotOurs)?;
        let (time, rest) = rest
            .split_at_checked(4)
            .ok_or(OptimizerStateError::NotOurs)?;
        let (count, rest) = rest
            .split_at_checked(8)
            .ok_or(OptimizerStateError::NotOurs)?;
        let count = u64::from_le_bytes(count.try_into().expect("8 bytes"));
        let expected = self.params.len();
        if count != expected as u64 {
            return Err(OptimizerStateError::Size {
                found: usize::try_from(count).unwrap_or(usize::MAX),
                expected,
            });
        }
        if rest.len() != 8 * expected {
            return Err(OptimizerStateError::NotOurs);
        }
        let values: Vec<f32> = rest
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        let (m, v) = values.split_at(expected);
        self.moment_1.copy_from_slice(m);
        self.moment_2.copy_from_slice(v);
        self.time = u32::from_le_bytes(time.try_into().expect("4 bytes"));
        Ok(())
    }
}
