//! Matrix products in reduced precision for inference: bf16 (8 bits of mantissa, 32-bit
//! sums) and 8-bit integers (unsigned activations times signed weights, 32-bit integer
//! sums). The weights are packed once ([`PackedWeights`]); each product converts its
//! activations (bf16 by rounding; int8 with a scale per row, so that each row uses all
//! 255 levels), multiplies, and writes 32-bit floats.
//!
//! The products run on Intel's AMX tiles ([`super::amx`]) where the CPU has them, and
//! int8 also on AVX-512 VNNI ([`super::vnni`]: AMD's Zen 4 and later, Intel's Ice Lake
//! and later), which reads the same layout.

use super::packed::{Operand, PackedWeights};
use super::{amx, kernels, vnni};

/// Scratch of the calling thread: converted activations, row scales and 32-bit sums.
#[derive(Default)]
struct Scratch {
    /// The operand, as bf16 bit patterns or (viewed as bytes) u8 codes.
    a: Vec<u16>,
    row_scales: Vec<f32>,
    sums: Vec<f32>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

impl PackedWeights {
    /// `out[rows, n] = input[rows, k] · w`. For int8 the inputs must not be negative
    /// (they are ReLU outputs): each row is scaled to 0..=255.
    pub(crate) fn product(&self, rows: usize, input: &[f32], out: &mut [f32]) {
        let (k, n) = (self.k, self.n);
        assert!(input.len() >= rows * k, "input shorter than {rows}×{k}");
        assert!(out.len() >= rows * n, "output shorter than {rows}×{n}");
        if rows == 0 {
            return;
        }
        SCRATCH.with_borrow_mut(|s| {
            self.convert(rows, input, s);
            if self.operand == Operand::Bf16 && n == self.n_pad {
                // The sums are the output: written in place.
                return multiply(self, rows, as_bytes_mut(&mut s.a), out);
            }
            s.sums.resize(rows * self.n_pad, 0.0);
            multiply(self, rows, as_bytes_mut(&mut s.a), &mut s.sums);
            let stride = self.n_pad;
            for (i, row) in out.chunks_exact_mut(n).take(rows).enumerate() {
                let sums = &s.sums[i * stride..i * stride + n];
                match self.operand {
                    Operand::Bf16 => row.copy_from_slice(sums),
                    Operand::Int8 => kernels::dequantize(
                        row,
                        bytemuck_i32(sums),
                        s.row_scales[i],
                        &self.column_scales,
                    ),
                }
            }
        });
    }

    /// Converts `rows` rows of `input` into the scratch's operand, its columns padded
    /// with zeros to `k_pad`.
    fn convert(&self, rows: usize, input: &[f32], s: &mut Scratch) {
        let (k, k_pad) = (self.k, self.k_pad);
        s.a.clear();
        s.a.resize((rows * k_pad * self.operand.bytes()).div_ceil(2), 0);
        s.row_scales.clear();
        let rows_in = input.chunks_exact(k).take(rows).enumerate();
        match self.operand {
            Operand::Bf16 => {
                for (i, x) in rows_in {
                    kernels::to_bf16(&mut s.a[i * k_pad..i * k_pad + k], x);
                }
            }
            Operand::Int8 => {
                let codes = as_bytes_mut(&mut s.a);
                for (i, x) in rows_in {
                    let scale = kernels::quantize_u8(&mut codes[i * k_pad..i * k_pad + k], x);
                    s.row_scales.push(scale);
                }
            }
        }
    }
}

impl Operand {
    /// Whether this machine multiplies in it: bf16 on the AMX tiles, int8 on them or on
    /// AVX-512 VNNI.
    pub(crate) fn runs_here(self) -> bool {
        match self {
            Operand::Bf16 => amx::available(),
            Operand::Int8 => amx::available() || vnni::available(),
        }
    }
}

/// `sums[rows, n_pad] = a[rows, k_pad] · w` on the widest instructions the CPU has.
fn multiply(w: &PackedWeights, rows: usize, a: &[u8], sums: &mut [f32]) {
    assert!(
        a.len() >= rows * w.k_pad * w.operand.bytes(),
        "operand too short"
    );
    assert!(sums.len() >= rows * w.n_pad, "sums too short");
    if amx::available() {
        // SAFETY: the CPU has AMX and the process its permission (`available`); the
        // lengths are checked above.
        unsafe { amx::multiply(w, rows, a, sums) }
    } else {
        assert!(
            w.operand == Operand::Int8 && vnni::available(),
            "{:?} products on a CPU without them",
            w.operand
        );
        // SAFETY: the CPU has AVX-512 VNNI (checked); the lengths are checked above.
        unsafe { vnni::multiply(w, rows, a, sums) }
    }
}

/// The bytes of a `u16` buffer.
fn as_bytes_mut(a: &mut [u16]) -> &mut [u8] {
    // SAFETY: u8 has alignment 1 and every bit pattern is valid; the length covers the
    // same memory.
    unsafe { std::slice::from_raw_parts_mut(a.as_mut_ptr().cast(), a.len() * 2) }
}

/// The sums of an int8 product, which the tiles wrote as `i32` into an `f32` buffer.
fn bytemuck_i32(sums: &[f32]) -> &[i32] {
    // SAFETY: f32 and i32 have the same size and alignment, and every bit pattern is a
    // valid i32.
    unsafe { std::slice::from_raw_parts(sums.as_ptr().cast(), sums.len()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A matrix of small integers from a simple generator, so that every product is exact
    /// in both precisions.
    fn integers(len: usize, seed: u64, low: i32, high: i32) -> Vec<f32> {
        let mut s = seed | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (low + (s % (high - low + 1) as u64) as i32) as f32
            })
            .collect()
    }

    fn reference(rows: usize, k: usize, n: usize, a: &[f32], w: &[f32]) -> Vec<f32> {
        let mut out = vec![0.0; rows * n];
        for i in 0..rows {
            for j in 0..n {
                out[i * n + j] = (0..k)
                    .map(|r| f64::from(a[i * k + r] * w[r * n + j]))
                    .sum::<f64>() as f32;
            }
        }
        out
    }

    /// Shapes of products: one row, rows by 32, 16 and the rest, `k` and `n` padded.
    const SHAPES: [(usize, usize, usize); 7] = [
        (1, 80, 384),
        (33, 384, 624),
        (64, 384, 384),
        (5, 70, 17),
        (31, 96, 32),
        (49, 64, 48),
        (16, 64, 32),
    ];

    /// Weights and activations of small integers whose int8 scales are 1 (each weight
    /// column holds 127, each activation row 255), so that the codes are the integers
    /// themselves and every product is exact, and their product.
    fn exact_case(rows: usize, k: usize, n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let mut w = integers(k * n, 7, -127, 127);
        w[..n].fill(127.0);
        let mut a = integers(rows * k, 11, 0, 255);
        for row in a.chunks_exact_mut(k) {
            row[0] = 255.0;
        }
        let want = reference(rows, k, n, &a, &w);
        (w, a, want)
    }

    #[test]
    fn reduced_products_of_small_integers_are_exact() {
        if !Operand::Int8.runs_here() {
            eprintln!("no AMX or VNNI on this machine: the reduced products are not exercised");
            return;
        }
        for (rows, k, n) in SHAPES {
            let (w, a, want) = exact_case(rows, k, n);
            // bf16 holds integers up to 256 exactly, and sums of them are exact in f32.
            for operand in [Operand::Int8, Operand::Bf16]
                .into_iter()
                .filter(|o| o.runs_here())
            {
                let packed = PackedWeights::new(&w, k, n, operand);
                let mut got = vec![f32::NAN; rows * n];
                packed.product(rows, &a, &mut got);
                assert_eq!(got, want, "{operand:?} {rows}×{k}×{n}");
            }
        }
    }

    /// The VNNI kernel, which a CPU with AMX does not take, called directly.
    #[test]
    fn vnni_int8_products_are_exact() {
        if !vnni::available() {
            eprintln!("no AVX-512 VNNI on this machine: its kernel is not exercised");
            return;
        }
        for (rows, k, n) in SHAPES {
            let (w, a, want) = exact_case(rows, k, n);
            let packed = PackedWeights::new(&w, k, n, Operand::Int8);
            let mut codes = vec![0u8; rows * packed.k_pad];
            for (i, row) in a.chunks_exact(k).enumerate() {
                for (c, x) in codes[i * packed.k_pad..].iter_mut().zip(row) {
                    *c = *x as u8;
                }
            }
            let mut sums = vec![0f32; rows * packed.n_pad];
            // SAFETY: the CPU has VNNI; the buffers have the extents `multiply` needs.
            unsafe { vnni::multiply(&packed, rows, &codes, &mut sums) };
            let got: Vec<f32> = (0..rows)
                .flat_map(|i| bytemuck_i32(&sums[i * packed.n_pad..i * packed.n_pad + n]))
                .map(|&s| s as f32)
                .collect();
            assert_eq!(got, want, "{rows}×{k}×{n}");
        }
    }
}
