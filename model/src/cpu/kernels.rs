//! The arithmetic of the CPU path: matrix products by the `gemm` crate and the fused
//! element-wise passes around them, each compiled twice (for AVX2, the program's baseline,
//! and for AVX-512) and chosen at run time by what the CPU offers.
//!
//! Results are bitwise reproducible only on the same [`KernelPath`]: the two paths sum in
//! other orders, so runs and model cards record the path they used.

use serde::{Deserialize, Serialize};

/// The instruction set the kernels run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KernelPath {
    /// AVX-512 (F, BW, DQ, VL): gemm's 512-bit kernels and 512-bit element-wise passes.
    Avx512,
    /// AVX2 with FMA, the x86-64-v3 baseline the program is built for.
    Avx2,
    /// Whatever the target offers without run-time detection (non-x86 targets).
    Portable,
}

impl KernelPath {
    /// The path this CPU takes (the same test as the `gemm` crate's, so that products
    /// and element-wise passes agree).
    pub fn detected() -> KernelPath {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512dq")
                && std::arch::is_x86_feature_detected!("avx512vl")
            {
                return KernelPath::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return KernelPath::Avx2;
            }
        }
        KernelPath::Portable
    }

    /// The name runs and model cards record: `avx512`, `avx2` or `portable`.
    pub fn name(self) -> &'static str {
        match self {
            KernelPath::Avx512 => "avx512",
            KernelPath::Avx2 => "avx2",
            KernelPath::Portable => "portable",
        }
    }
}

impl std::fmt::Display for KernelPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The path, detected once.
fn current() -> KernelPath {
    static PATH: std::sync::OnceLock<KernelPath> = std::sync::OnceLock::new();
    *PATH.get_or_init(KernelPath::detected)
}

/// Defines a function compiled for the baseline and for AVX-512, calling the AVX-512 copy
/// where the CPU has it. The body must be plain loops over slices that the compiler
/// vectorises.
macro_rules! dispatched {
    ($(#[$meta:meta])* pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$meta])*
        pub fn $name($($arg: $ty),*) $(-> $ret)? {
            #[inline(always)]
            fn portable($($arg: $ty),*) $(-> $ret)? $body
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl")]
            fn avx512($($arg: $ty),*) $(-> $ret)? {
                portable($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            if current() == KernelPath::Avx512 {
                // SAFETY: the CPU has the features `avx512` is compiled for (checked by
                // `KernelPath::detected`).
                return unsafe { avx512($($arg),*) };
            }
            portable($($arg),*)
        }
    };
}

/// Whether an operand of a product is stored transposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transpose {
    /// Stored as the product reads it, row-major.
    No,
    /// Stored row-major as its transpose.
    Yes,
}

impl Transpose {
    /// (column stride, row stride) of a logical `rows × cols` operand.
    fn strides(self, rows: usize, cols: usize) -> (isize, isize) {
        match self {
            Transpose::No => (1, cols as isize),
            Transpose::Yes => (rows as isize, 1),
        }
    }
}

/// Shapes of a product `out[m, n] (+)= a[m, k] · b[k, n]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Product {
    /// Rows of `a` and `out`.
    pub m: usize,
    /// Columns of `b` and `out`.
    pub n: usize,
    /// Columns of `a`, rows of `b`.
    pub k: usize,
    /// How `a` is stored.
    pub a: Transpose,
    /// How `b` is stored.
    pub b: Transpose,
    /// Add to `out` instead of overwriting it.
    pub accumulate: bool,
    /// Let gemm split the product across the rayon pool.
    pub parallel: bool,
}

impl Product {
    /// `out[m, n] = a[m, k] · b[k, n]`, all row-major, on the calling thread.
    pub fn new(m: usize, n: usize, k: usize) -> Product {
        Product {
            m,
            n,
            k,
            a: Transpose::No,
            b: Transpose::No,
            accumulate: false,
            parallel: false,
        }
    }

    /// The same product, split by gemm across the rayon pool where that pays.
    pub fn with_parallel(self) -> Product {
        Product {
            parallel: true,
            ..self
        }
    }

    /// Computes the product into `out` (row-major `m × n`).
    ///
    /// # Panics
    /// When a slice is shorter than its operand.
    pub fn run(self, a: &[f32], b: &[f32], out: &mut [f32]) {
        let Product { m, n, k, .. } = self;
        assert!(a.len() >= m * k, "left operand shorter than {m}×{k}");
        assert!(b.len() >= k * n, "right operand shorter than {k}×{n}");
        assert!(out.len() >= m * n, "output shorter than {m}×{n}");
        if m == 0 || n == 0 {
            return;
        }
        let (a_cs, a_rs) = self.a.strides(m, k);
        let (b_cs, b_rs) = self.b.strides(k, n);
        let parallelism = if self.parallel {
            gemm::Parallelism::Rayon(0)
        } else {
            gemm::Parallelism::None
        };
        // SAFETY: the lengths checked above cover every element gemm reads or writes with
        // these strides; `out` is borrowed mutably, so it aliases neither input.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                out.as_mut_ptr(),
                1,
                n as isize,
                self.accumulate,
                a.as_ptr(),
                a_cs,
                a_rs,
                b.as_ptr(),
                b_cs,
                b_rs,
                1.0,
                1.0,
                false,
                false,
                false,
                parallelism,
            );
        }
    }
}

dispatched! {
    /// `row = max(row + bias, 0)` for each row of `rows`.
    pub fn bias_relu(rows: &mut [f32], bias: &[f32]) {
        for row in rows.chunks_exact_mut(bias.len()) {
            for (v, b) in row.iter_mut().zip(bias) {
                *v = (*v + b).max(0.0);
            }
        }
    }
}

dispatched! {
    /// `h = max(h + t + bias, 0)` row by row: a residual layer's output from its input
    /// `h` and its product `t`.
    pub fn residual_bias_relu(h: &mut [f32], t: &[f32], bias: &[f32]) {
        let n = bias.len();
        for (hr, tr) in h.chunks_exact_mut(n).zip(t.chunks_exact(n)) {
            for ((v, d), b) in hr.iter_mut().zip(tr).zip(bias) {
                *v = (*v + d + b).max(0.0);
            }
        }
    }
}

dispatched! {
    /// `row += bias` for each row of `rows`.
    pub fn add_bias(rows: &mut [f32], bias: &[f32]) {
        for row in rows.chunks_exact_mut(bias.len()) {
            for (v, b) in row.iter_mut().zip(bias) {
                *v += b;
            }
        }
    }
}

dispatched! {
    /// `grad = 0` where the ReLU's output was not positive (its derivative there).
    pub fn relu_backward(grad: &mut [f32], output: &[f32]) {
        for (g, &o) in grad.iter_mut().zip(output) {
            if o <= 0.0 {
                *g = 0.0;
            }
        }
    }
}

dispatched! {
    /// `sums = Σ rows`: a bias's gradient from its layer's output gradients.
    pub fn column_sums(sums: &mut [f32], rows: &[f32]) {
        sums.iter_mut().for_each(|s| *s = 0.0);
        for row in rows.chunks_exact(sums.len()) {
            for (s, v) in sums.iter_mut().zip(row) {
                *s += v;
            }
        }
    }
}

dispatched! {
    /// `a += b`.
    pub fn add_assign(a: &mut [f32], b: &[f32]) {
        for (x, y) in a.iter_mut().zip(b) {
            *x += y;
        }
    }
}

/// `e^x` to within two units in the last place for x ≥ −87 (0 below), in plain arithmetic
/// that the compiler vectorises, unlike the C library's `expf` (Cephes' polynomial).
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    const ROUND: f32 = 12_582_912.0; // 1.5 × 2^23: adding it rounds to an integer.
    let clamped = x.clamp(-87.0, 88.0);
    let n = (clamped * LOG2E + ROUND) - ROUND;
    let r = clamped - n * LN2_HI - n * LN2_LO;
    let mut p = 1.987_569_1e-4;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 0.166_666_65;
    p = p * r + 0.5;
    let y = p * r * r + r + 1.0;
    let scale = f32::from_bits(((n as i32 + 127) as u32) << 23);
    if x < -87.0 { 0.0 } else { y * scale }
}

dispatched! {
    /// `row = e^(row − max)`, returning the sum: a softmax's numerators.
    pub fn exp_shifted(row: &mut [f32], max: f32, sum: &mut f32) {
        for v in row.iter_mut() {
            *v = exp(*v - max);
        }
        // Sixteen running sums, so that the additions vectorise too.
        let mut lanes = [0.0f32; 16];
        let mut chunks = row.chunks_exact(16);
        for c in &mut chunks {
            for (l, v) in lanes.iter_mut().zip(c) {
                *l += v;
            }
        }
        *sum = lanes.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>();
    }
}

dispatched! {
    /// `a · b`, in sixteen running sums (a fixed order, whatever the CPU).
    pub fn dot(a: &[f32], b: &[f32]) -> f32 {
        let mut lanes = [0.0f32; 16];
        let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
        let tail: f32 = ca
            .remainder()
            .iter()
            .zip(cb.remainder())
            .map(|(x, y)| x * y)
            .sum();
        for (x, y) in ca.zip(cb) {
            for ((l, x), y) in lanes.iter_mut().zip(x).zip(y) {
                *l += x * y;
            }
        }
        lanes.iter().sum::<f32>() + tail
    }
}

dispatched! {
    /// `y += alpha × x`.
    pub fn axpy(y: &mut [f32], alpha: f32, x: &[f32]) {
        for (y, x) in y.iter_mut().zip(x) {
            *y += alpha * x;
        }
    }
}

/// One AdamW update's numbers, as burn's `AdamW` computes them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamWStep {
    /// `β1`.
    pub beta_1: f32,
    /// `β2`.
    pub beta_2: f32,
    /// `ε`, added to the root of the corrected second moment.
    pub epsilon: f32,
    /// `1 − β1^t`.
    pub correction_1: f32,
    /// `1 − β2^t`.
    pub correction_2: f32,
    /// The learning rate.
    pub learning_rate: f32,
    /// `1 − lr × weight decay`.
    pub decay: f32,
}

dispatched! {
    /// One decoupled-weight-decay Adam step over `params` with `grads`, updating the
    /// moments `m` and `v` in place.
    pub fn adamw(params: &mut [f32], grads: &[f32], m: &mut [f32], v: &mut [f32], s: &AdamWStep) {
        let (f1, f2) = (1.0 - s.beta_1, 1.0 - s.beta_2);
        for (((p, &g), m), v) in params.iter_mut().zip(grads).zip(m.iter_mut()).zip(v.iter_mut()) {
            *m = *m * s.beta_1 + g * f1;
            *v = *v * s.beta_2 + g * g * f2;
            let delta = (*m / s.correction_1) / ((*v / s.correction_2).sqrt() + s.epsilon);
            *p = *p * s.decay - delta * s.learning_rate;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(m: usize, n: usize, k: usize, a: &[f32], b: &[f32]) -> Vec<f32> {
        let mut out = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                out[i * n + j] = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
            }
        }
        out
    }

    fn transpose(rows: usize, cols: usize, x: &[f32]) -> Vec<f32> {
        let mut t = vec![0.0; x.len()];
        for i in 0..rows {
            for j in 0..cols {
                t[j * rows + i] = x[i * cols + j];
            }
        }
        t
    }

    #[test]
    fn products_with_transposed_operands_and_accumulation_match_the_definition() {
        let (m, n, k) = (7, 5, 11);
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 37) % 17) as f32 - 8.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| ((i * 23) % 13) as f32 - 6.0).collect();
        let want = naive(m, n, k, &a, &b);
        let (at, bt) = (transpose(m, k, &a), transpose(k, n, &b));
        for (a_t, b_t) in [
            (Transpose::No, Transpose::No),
            (Transpose::Yes, Transpose::No),
            (Transpose::No, Transpose::Yes),
            (Transpose::Yes, Transpose::Yes),
        ] {
            let product = Product {
                a: a_t,
                b: b_t,
                ..Product::new(m, n, k)
            };
            let left = if a_t == Transpose::Yes { &at } else { &a };
            let right = if b_t == Transpose::Yes { &bt } else { &b };
            let mut out = vec![0.0; m * n];
            product.run(left, right, &mut out);
            assert_eq!(out, want, "{a_t:?} {b_t:?}");
            let accumulate = Product {
                accumulate: true,
                parallel: true,
                ..product
            };
            accumulate.run(left, right, &mut out);
            let twice: Vec<f32> = want.iter().map(|v| 2.0 * v).collect();
            assert_eq!(out, twice, "{a_t:?} {b_t:?} accumulated");
        }
    }

    #[test]
    fn fused_passes_compute_what_they_say() {
        let mut rows = vec![-1.0, 0.5, 2.0, -3.0];
        bias_relu(&mut rows, &[0.5, -1.0]);
        assert_eq!(rows, [0.0, 0.0, 2.5, 0.0]);
        let mut h = vec![1.0, -1.0];
        residual_bias_relu(&mut h, &[0.5, 0.25], &[0.25, 0.5]);
        assert_eq!(h, [1.75, 0.0]);
        let mut sums = vec![9.0; 2];
        column_sums(&mut sums, &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(sums, [4.0, 6.0]);
        let mut grad = vec![1.0, 2.0, 3.0];
        relu_backward(&mut grad, &[0.0, 1.0, -1.0]);
        assert_eq!(grad, [0.0, 2.0, 0.0]);
    }

    #[test]
    fn exp_is_within_two_ulps_of_the_c_librarys() {
        for i in -87_000..=88_000 {
            let x = i as f32 / 1000.0;
            let (want, got) = (x.exp(), exp(x));
            let ulp = (want.to_bits() as i64 - got.to_bits() as i64).abs();
            assert!(ulp <= 2, "exp({x}) = {got}, the C library says {want}");
        }
        assert_eq!(exp(-1.0e9), 0.0);
        let mut row = vec![1.0, 2.0, -1.0e9];
        let mut sum = 0.0;
        exp_shifted(&mut row, 2.0, &mut sum);
        assert_eq!(row[2], 0.0);
        assert!((sum - (1.0 + (-1.0f32).exp())).abs() < 1e-6);
    }

    /// `scripts/test-avx2.sh` sets `KVARN_EXPECT_KERNELS` to check that the emulated CPU
    /// really takes the path it is meant to test.
    #[test]
    fn the_detected_path_is_the_expected_one() {
        if let Ok(expected) = std::env::var("KVARN_EXPECT_KERNELS") {
            assert_eq!(KernelPath::detected().name(), expected);
        }
    }

    /// Each code is the value over the scale rounded half up, the largest value takes the
    /// top code, and what should not come (negative, NaN) becomes 0, at every length.
    #[test]
    fn quantized_rows_round_to_their_codes() {
        for len in [0, 1, 7, 8, 9, 70, 384] {
            for top in [127u8, 255] {
                let mut x: Vec<f32> = (0..len).map(|i| ((i * 37) % 101) as f32 * 0.013).collect();
                if len > 2 {
                    x[1] = -0.5;
                    x[2] = f32::NAN;
                }
                let mut codes = vec![9u8; len];
                let scale = quantize_u8(&mut codes, &x, top);
                let max = x.iter().copied().filter(|v| *v > 0.0).fold(0.0, f32::max);
                assert_eq!(scale, max / f32::from(top), "{len} {top}");
                for (&code, &v) in codes.iter().zip(&x) {
                    let want = if v > 0.0 {
                        (v * (f32::from(top) / max) + 0.5)
                            .floor()
                            .min(f32::from(top)) as u8
                    } else {
                        0
                    };
                    assert_eq!(code, want, "{v} of {len}, top {top}");
                }
                if max > 0.0 {
                    assert!(codes.contains(&top));
                }
            }
        }
    }

    #[test]
    fn the_detected_path_is_named() {
        let path = KernelPath::detected();
        assert!(["avx512", "avx2", "portable"].contains(&path.name()));
        assert_eq!(path.to_string(), path.name());
    }
}

/// The bf16 bit pattern nearest to `x` (ties to even).
#[inline(always)]
pub fn bf16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    ((b + 0x7fff + ((b >> 16) & 1)) >> 16) as u16
}

dispatched! {
    /// `out[i] = bf16(x[i])`, rounded to nearest.
    pub fn to_bf16(out: &mut [u16], x: &[f32]) {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = bf16_bits(v);
        }
    }
}

dispatched! {
    /// Quantizes a row of non-negative values (ReLU outputs) to `0..=top` so that its
    /// largest value is `top`; returns the scale (`x ≈ code · scale`; 0 for a row of
    /// zeros). Written with comparisons the compiler turns into vector max, convert and
    /// pack instructions (a saturating `as u8` stays scalar).
    pub fn quantize_u8(out: &mut [u8], x: &[f32], top: u8) -> f32 {
        let max = largest(x);
        if max <= 0.0 {
            out.fill(0);
            return 0.0;
        }
        let top = f32::from(top);
        let inverse = top / max;
        for (o, &v) in out.iter_mut().zip(x) {
            let y = v * inverse + 0.5;
            // Into 0..=top, a NaN (none should come) to 0.
            let y = if y > 0.0 { y } else { 0.0 };
            let y = if y < top { y } else { top };
            // SAFETY: `y` is finite and within 0..=255.
            *o = unsafe { y.to_int_unchecked::<i32>() } as u8;
        }
        max / top
    }
}

/// The largest of `x` and 0, in eight lanes so that it vectorizes.
#[inline(always)]
fn largest(x: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let chunks = x.chunks_exact(8);
    let tail = chunks.remainder();
    for chunk in chunks {
        for (m, &v) in lanes.iter_mut().zip(chunk) {
            *m = if v > *m { v } else { *m };
        }
    }
    let max = tail.iter().fold(0f32, |m, &v| if v > m { v } else { m });
    lanes.iter().fold(max, |m, &v| if v > m { v } else { m })
}

dispatched! {
    /// `row[j] = sums[j] · row_scale · column_scales[j]`: an int8 product's sums back in
    /// the activations' units.
    pub fn dequantize(row: &mut [f32], sums: &[i32], row_scale: f32, column_scales: &[f32]) {
        for ((o, &s), &c) in row.iter_mut().zip(sums).zip(column_scales) {
            *o = s as f32 * (row_scale * c);
        }
    }
}
