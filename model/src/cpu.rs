//! A CPU inference path for the residual MLP, outside burn: the same arithmetic with the
//! weights copied into `ndarray` matrices, matrix products by the `gemm` crate (AVX2/FMA,
//! chosen at run time), bias, residual and ReLU fused into one pass, and the batch split
//! across threads by rows.
//!
//! burn's `flex` backend runs every layer as separate tensor operations with their own
//! allocations and passes over memory, which costs about three times PyTorch's speed on
//! the reference network (see the README's figures); this path is what self-play uses for
//! MLPs on the CPU. Tests check it against burn's forward pass.

use ndarray::{Array1, Array2, ArrayView2, ArrayViewMut2, Axis};
use rayon::prelude::*;

use crate::mlp::ResidualMlp;

/// One dense layer: `out = in · w + b`, `w` stored `[in, out]`.
#[derive(Debug, Clone)]
struct Dense {
    w: Array2<f32>,
    b: Array1<f32>,
}

impl Dense {
    fn from_burn(layer: &burn::nn::Linear) -> Dense {
        let w = layer.weight.val();
        let [rows, cols] = w.dims();
        let w: Vec<f32> = w.into_data().try_to_vec::<f32>().expect("f32 weights");
        let b = match &layer.bias {
            Some(b) => b.val().into_data().try_to_vec::<f32>().expect("f32 bias"),
            None => vec![0.0; cols],
        };
        Dense {
            w: Array2::from_shape_vec((rows, cols), w).expect("weight shape"),
            b: Array1::from_vec(b),
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
    /// Copies the weights of a burn MLP.
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
            min_rows_per_thread: DEFAULT_MIN_ROWS,
        }
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
        // The element-wise passes run over contiguous slices, which the compiler
        // vectorises; the views are row-major (checked by `matmul`).
        matmul(x, self.stem.w.view(), h.view_mut());
        let hs = h.as_slice_mut().expect("row-major");
        for row in hs.chunks_exact_mut(self.stem.b.len()) {
            for (v, b) in row.iter_mut().zip(&self.stem.b) {
                *v = (*v + b).max(0.0);
            }
        }
        for block in &self.blocks {
            matmul(h.view(), block.w.view(), t.view_mut());
            let ts = t.as_slice().expect("row-major");
            let hs = h.as_slice_mut().expect("row-major");
            let n = block.b.len();
            for (hr, tr) in hs.chunks_exact_mut(n).zip(ts.chunks_exact(n)) {
                for ((v, d), b) in hr.iter_mut().zip(tr).zip(&block.b) {
                    *v = (*v + d + b).max(0.0);
                }
            }
        }
        matmul(h.view(), self.policy.w.view(), policy.view_mut());
        let ps = policy.as_slice_mut().expect("row-major");
        for row in ps.chunks_exact_mut(self.policy.b.len()) {
            for (v, b) in row.iter_mut().zip(&self.policy.b) {
                *v += b;
            }
        }
        matmul(h.view(), self.value.w.view(), wdl.view_mut());
        let ws = wdl.as_slice_mut().expect("row-major");
        for row in ws.chunks_exact_mut(3) {
            for (v, b) in row.iter_mut().zip(&self.value.b) {
                *v += b;
            }
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

/// `out = a · b` for row-major matrices, by the `gemm` crate on the calling thread.
fn matmul(a: ArrayView2<f32>, b: ArrayView2<f32>, mut out: ArrayViewMut2<f32>) {
    let (m, k) = a.dim();
    let (k2, n) = b.dim();
    assert_eq!(k, k2, "inner dimensions");
    assert_eq!(out.dim(), (m, n), "output shape");
    assert!(
        a.is_standard_layout() && b.is_standard_layout() && out.is_standard_layout(),
        "row-major operands"
    );
    // SAFETY: the three views are row-major with the dimensions checked above, so every
    // element gemm reads or writes (strides n, k, 1) lies inside them; `out` is borrowed
    // mutably and does not alias the inputs.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            out.as_mut_ptr(),
            1,
            n as isize,
            false,
            a.as_ptr(),
            1,
            k as isize,
            b.as_ptr(),
            1,
            n as isize,
            0.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}
