//! Inference for the residual MLP on the CPU: the weights copied into `ndarray` matrices,
//! bias, residual and ReLU fused into one pass after each product, and the batch split
//! across threads by rows. This is what self-play and network players use for MLPs on
//! the CPU; tests check it against burn's forward pass. In bf16 ([`Precision`]) every
//! product runs in bf16; in int8 the hidden layers and the policy head do, and the stem
//! (whose inputs are not ReLU outputs) and the three-output value head run in bf16 where
//! the machine has it, 32-bit elsewhere.

use ndarray::{Array2, ArrayView2, ArrayViewMut2, Axis};
use rayon::prelude::*;

use super::kernels::{self, Product};
use super::packed::{Operand, PackedWeights};
use super::precision::{Precision, PrecisionError};
use crate::mlp::ResidualMlp;

/// One dense layer: `out = in · w + b`, `w` stored `[in, out]`.
#[derive(Debug, Clone)]
struct Dense {
    w: Array2<f32>,
    b: Vec<f32>,
    /// The weights in the tiles' layout, where this layer runs in reduced precision.
    packed: Option<PackedWeights>,
}

impl Dense {
    /// `out = input · w` for `rows` rows, on the calling thread; the bias is added by the
    /// fused pass that follows.
    fn product(&self, rows: usize, input: &[f32], out: &mut [f32]) {
        if let Some(packed) = &self.packed {
            return packed.product(rows, input, out);
        }
        let (k, n) = self.w.dim();
        let w = self.w.as_slice().expect("row-major weights");
        Product::new(rows, n, k).run(input, w, out);
    }

    /// The same layer with its product in `operand` (`None`: 32-bit), which the caller
    /// checked this machine runs.
    fn in_precision(&self, operand: Option<Operand>) -> Dense {
        let (k, n) = self.w.dim();
        let w = self.w.as_slice().expect("row-major weights");
        let packed = operand.map(|o| PackedWeights::new(w, k, n, o));
        Dense {
            packed,
            ..self.clone()
        }
    }

    fn from_burn(layer: &burn::nn::Linear) -> Dense {
        let (w, [rows, cols], b) = crate::layer::linear_parts(layer);
        Dense {
            w: Array2::from_shape_vec((rows, cols), w).expect("weight shape"),
            b,
            packed: None,
        }
    }
}

/// The residual MLP's weights, ready for CPU inference.
#[derive(Debug, Clone)]
pub struct CpuMlp {
    stem: Dense,
    blocks: Vec<Dense>,
    policy: Dense,
    value: Dense,
    precision: Precision,
    /// Rows per thread below which the batch is not split.
    pub min_rows_per_thread: usize,
}

thread_local! {
    /// Hidden activations of the calling thread, reused from call to call.
    static SCRATCH: std::cell::RefCell<(Vec<f32>, Vec<f32>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// Rows at which splitting a batch across threads starts to pay.
const DEFAULT_MIN_ROWS: usize = 32;

impl CpuMlp {
    /// Copies the weights of a burn MLP, for 32-bit inference.
    pub fn from_burn(mlp: &ResidualMlp) -> CpuMlp {
        let layers = mlp.layers();
        let n = layers.len();
        CpuMlp {
            stem: Dense::from_burn(layers[0].1),
            blocks: layers[1..n - 2]
                .iter()
                .map(|l| Dense::from_burn(l.1))
                .collect(),
            policy: Dense::from_burn(layers[n - 2].1),
            value: Dense::from_burn(layers[n - 1].1),
            precision: Precision::F32,
            min_rows_per_thread: DEFAULT_MIN_ROWS,
        }
    }

    /// The same network evaluated in `precision`: its hidden layers and policy head
    /// packed for the reduced products, or back in 32-bit.
    ///
    /// # Errors
    /// [`PrecisionError::Unavailable`] where this machine cannot run `precision`.
    pub fn with_precision(&self, precision: Precision) -> Result<CpuMlp, PrecisionError> {
        if !precision.is_available() {
            return Err(PrecisionError::Unavailable(precision));
        }
        // The stem's inputs are not ReLU outputs, and the value head has 3 outputs: in
        // int8 both stay bf16 where the machine has it, 32-bit elsewhere.
        let (hidden, ends) = match precision {
            Precision::F32 => (None, None),
            Precision::Bf16 => (Some(Operand::Bf16), Some(Operand::Bf16)),
            Precision::Int8 => (
                Some(Operand::Int8),
                Some(Operand::Bf16).filter(|o| o.runs_here()),
            ),
        };
        Ok(CpuMlp {
            stem: self.stem.in_precision(ends),
            blocks: self.blocks.iter().map(|b| b.in_precision(hidden)).collect(),
            policy: self.policy.in_precision(hidden),
            value: self.value.in_precision(ends),
            precision,
            ..self.clone()
        })
    }

    /// The precision of its products.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// Input features.
    pub fn input_len(&self) -> usize {
        self.stem.w.nrows()
    }

    /// Policy outputs.
    pub fn actions(&self) -> usize {
        self.policy.w.ncols()
    }

    /// Evaluates the rows of `x` (`[batch, input]`) into `policy` (`[batch, actions]`,
    /// logits) and `wdl` (`[batch, 3]`, probabilities), splitting the rows across the
    /// rayon pool when the batch is large enough.
    pub fn forward(
        &self,
        x: ArrayView2<f32>,
        mut policy: ArrayViewMut2<f32>,
        mut wdl: ArrayViewMut2<f32>,
    ) {
        let rows = x.nrows();
        let threads = rayon::current_num_threads().max(1);
        let chunk = rows.div_ceil(threads).max(self.min_rows_per_thread);
        if rows <= chunk {
            self.forward_rows(x, policy, wdl);
            return;
        }
        let xs: Vec<_> = x.axis_chunks_iter(Axis(0), chunk).collect();
        let ps: Vec<_> = policy.axis_chunks_iter_mut(Axis(0), chunk).collect();
        let ws: Vec<_> = wdl.axis_chunks_iter_mut(Axis(0), chunk).collect();
        xs.into_par_iter()
            .zip(ps)
            .zip(ws)
            .for_each(|((x, p), w)| self.forward_rows(x, p, w));
        let _ = (&mut policy, &mut wdl);
    }

    fn forward_rows(
        &self,
        x: ArrayView2<f32>,
        mut policy: ArrayViewMut2<f32>,
        mut wdl: ArrayViewMut2<f32>,
    ) {
        let rows = x.nrows();
        let hidden = self.stem.w.ncols();
        SCRATCH.with_borrow_mut(|(hb, tb)| {
            hb.resize(rows * hidden, 0.0);
            tb.resize(rows * hidden, 0.0);
            let h = ArrayViewMut2::from_shape((rows, hidden), &mut hb[..]).expect("scratch");
            let t = ArrayViewMut2::from_shape((rows, hidden), &mut tb[..]).expect("scratch");
            self.forward_with(x, h, t, policy.view_mut(), wdl.view_mut());
        });
    }

    fn forward_with(
        &self,
        x: ArrayView2<f32>,
        mut h: ArrayViewMut2<f32>,
        mut t: ArrayViewMut2<f32>,
        mut policy: ArrayViewMut2<f32>,
        mut wdl: ArrayViewMut2<f32>,
    ) {
        let hs = h.as_slice_mut().expect("row-major scratch");
        let ts = t.as_slice_mut().expect("row-major scratch");
        let ps = policy.as_slice_mut().expect("row-major policy rows");
        let ws = wdl.as_slice_mut().expect("row-major wdl rows");
        let xs = x.as_slice().expect("row-major feature rows");
        let rows = x.nrows();
        self.stem.product(rows, xs, hs);
        kernels::bias_relu(hs, &self.stem.b);
        for block in &self.blocks {
            block.product(rows, hs, ts);
            kernels::residual_bias_relu(hs, ts, &block.b);
        }
        self.policy.product(rows, hs, ps);
        kernels::add_bias(ps, &self.policy.b);
        self.value.product(rows, hs, ws);
        kernels::add_bias(ws, &self.value.b);
        for row in ws.chunks_exact_mut(3) {
            let max = row[0].max(row[1]).max(row[2]);
            let mut sum = 0.0;
            for v in row.iter_mut() {
                *v = (*v - max).exp();
                sum += *v;
            }
            for v in row.iter_mut() {
                *v /= sum;
            }
        }
    }
}
