//! Matrix products in reduced precision for inference: bf16 (8 bits of mantissa, 32-bit
//! sums) and 8-bit integers (unsigned activations times signed weights, 32-bit integer
//! sums). The weights are packed once ([`PackedWeights`]); each product converts its
//! activations (bf16 by rounding; int8 with a scale per row, so that each row uses all
//! 255 levels), multiplies, and writes 32-bit floats.
//!
//! The products run on Intel's AMX tiles ([`super::amx`]) where the CPU has them, and
//! int8 also on AVX-512 VNNI ([`super::vnni`]: AMD's Zen 4 and later, Intel's Ice Lake
//! and later) or on AVX2 alone ([`super::avx2`], with activations of 7 bits), which read
//! the same layout.

use super::packed::{Operand, PackedWeights};
use super::{amx, avx2, kernels, vnni};

/// The instructions that multiply an operand here ([`Kernel::for_operand`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kernel {
    /// Intel's AMX tiles: bf16 and int8.
    Amx,
    /// AVX-512 VNNI: int8.
    Vnni,
    /// AVX2's `vpmaddubsw`: int8, activations of 7 bits.
    Avx2,
}

impl Kernel {
    /// The widest kernel this CPU runs `operand` on, if any.
    fn for_operand(operand: Operand) -> Option<Kernel> {
        if amx::available() {
            return Some(Kernel::Amx);
        }
        match operand {
            Operand::Bf16 => None,
            Operand::Int8 if vnni::available() => Some(Kernel::Vnni),
            Operand::Int8 if avx2::available() => Some(Kernel::Avx2),
            Operand::Int8 => None,
        }
    }

    /// The largest code of an int8 activation: the tiles and VNNI add u8 × i8 products in
    /// 32 bits and take all 255 levels; AVX2 adds two of them in 16 bits first.
    fn top_code(self) -> u8 {
        match self {
            Kernel::Amx | Kernel::Vnni => u8::MAX,
            Kernel::Avx2 => avx2::TOP_CODE,
        }
    }
}

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
    /// (they are ReLU outputs): each row is scaled to the kernel's codes (0..=255, or
    /// 0..=127 on AVX2).
    pub(crate) fn product(&self, rows: usize, input: &[f32], out: &mut [f32]) {
        let (k, n) = (self.k, self.n);
        assert!(input.len() >= rows * k, "input shorter than {rows}×{k}");
        assert!(out.len() >= rows * n, "output shorter than {rows}×{n}");
        if rows == 0 {
            return;
        }
        let kernel = self.kernel();
        SCRATCH.with_borrow_mut(|s| {
            self.convert(kernel, rows, input, s);
            if self.operand == Operand::Bf16 && n == self.n_pad {
                // The sums are the output: written in place.
                return multiply(kernel, self, rows, as_bytes_mut(&mut s.a), out);
            }
            s.sums.resize(rows * self.n_pad, 0.0);
            multiply(kernel, self, rows, as_bytes_mut(&mut s.a), &mut s.sums);
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

    /// Converts `rows` rows of `input` into the scratch's operand for `kernel`, its
    /// columns padded with zeros to `k_pad`.
    fn convert(&self, kernel: Kernel, rows: usize, input: &[f32], s: &mut Scratch) {
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
                let top = kernel.top_code();
                let codes = as_bytes_mut(&mut s.a);
                for (i, x) in rows_in {
                    let scale = kernels::quantize_u8(&mut codes[i * k_pad..i * k_pad + k], x, top);
                    s.row_scales.push(scale);
                }
            }
        }
    }

    /// The kernel that multiplies these weights here.
    fn kernel(&self) -> Kernel {
        Kernel::for_operand(self.operand)
            .unwrap_or_else(|| panic!("{:?} products on a CPU without them", self.operand))
    }
}

impl Operand {
    /// Whether this machine multiplies in it: bf16 on the AMX tiles, int8 on them, on
    /// AVX-512 VNNI or on AVX2.
    pub(crate) fn runs_here(self) -> bool {
        Kernel::for_operand(self).is_some()
    }
}

/// `sums[rows, n_pad] = a[rows, k_pad] · w` on `kernel` (`w.kernel()`: the widest
/// instructions the CPU has).
fn multiply(kernel: Kernel, w: &PackedWeights, rows: usize, a: &[u8], sums: &mut [f32]) {
    assert!(
        a.len() >= rows * w.k_pad * w.operand.bytes(),
        "operand too short"
    );
    assert!(sums.len() >= rows * w.n_pad, "sums too short");
    match kernel {
        // SAFETY: the CPU has AMX and the process its permission (`amx::available`); the
        // lengths are checked above.
        Kernel::Amx => unsafe { amx::multiply(w, rows, a, sums) },
        // SAFETY: the CPU has AVX-512 VNNI (`vnni::available`); the lengths are checked.
        Kernel::Vnni => unsafe { vnni::multiply(w, rows, a, sums) },
        // SAFETY: the CPU has AVX2 (`avx2::available`); the lengths are checked.
        Kernel::Avx2 => unsafe { avx2::multiply(w, rows, a, sums) },
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
    /// column holds 127, each activation row `top`, the kernel's largest code), so that
    /// the codes are the integers themselves and every product is exact, and their product.
    fn exact_case(rows: usize, k: usize, n: usize, top: u8) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let mut w = integers(k * n, 7, -127, 127);
        w[..n].fill(127.0);
        let mut a = integers(rows * k, 11, 0, i32::from(top));
        for row in a.chunks_exact_mut(k) {
            row[0] = f32::from(top);
        }
        let want = reference(rows, k, n, &a, &w);
        (w, a, want)
    }

    #[test]
    fn reduced_products_of_small_integers_are_exact() {
        for operand in [Operand::Int8, Operand::Bf16] {
            let Some(kernel) = Kernel::for_operand(operand) else {
                eprintln!("no kernel for {operand:?} products on this machine: not exercised");
                continue;
            };
            for (rows, k, n) in SHAPES {
                // bf16 holds integers up to 256 exactly, and sums of them are exact in f32.
                let (w, a, want) = exact_case(rows, k, n, kernel.top_code());
                let packed = PackedWeights::new(&w, k, n, operand);
                let mut got = vec![f32::NAN; rows * n];
                packed.product(rows, &a, &mut got);
                assert_eq!(got, want, "{operand:?} on {kernel:?} {rows}×{k}×{n}");
            }
        }
    }

    /// An int8 kernel called directly, as a CPU with a wider one would not call it.
    fn direct_int8_products_are_exact(
        top: u8,
        multiply: unsafe fn(&PackedWeights, usize, &[u8], &mut [f32]),
    ) {
        for (rows, k, n) in SHAPES {
            let (w, a, want) = exact_case(rows, k, n, top);
            let packed = PackedWeights::new(&w, k, n, Operand::Int8);
            let mut codes = vec![0u8; rows * packed.k_pad];
            for (i, row) in a.chunks_exact(k).enumerate() {
                for (c, x) in codes[i * packed.k_pad..].iter_mut().zip(row) {
                    *c = *x as u8;
                }
            }
            let mut sums = vec![0f32; rows * packed.n_pad];
            // SAFETY: the caller checked the CPU; the buffers have the extents the
            // kernels need.
            unsafe { multiply(&packed, rows, &codes, &mut sums) };
            let got: Vec<f32> = (0..rows)
                .flat_map(|i| bytemuck_i32(&sums[i * packed.n_pad..i * packed.n_pad + n]))
                .map(|&s| s as f32)
                .collect();
            assert_eq!(got, want, "{rows}×{k}×{n}");
        }
    }

    /// Each int8 kernel this CPU has, called directly (a CPU with a wider one never calls
    /// the narrower).
    #[test]
    fn each_int8_kernel_called_directly_is_exact() {
        type Multiply = unsafe fn(&PackedWeights, usize, &[u8], &mut [f32]);
        let kernels: [(&str, bool, Kernel, Multiply); 2] = [
            (
                "AVX-512 VNNI",
                vnni::available(),
                Kernel::Vnni,
                vnni::multiply,
            ),
            ("AVX2", avx2::available(), Kernel::Avx2, avx2::multiply),
        ];
        for (name, here, kernel, multiply) in kernels {
            if !here {
                eprintln!("no {name} on this machine: its kernel is not exercised");
                continue;
            }
            direct_int8_products_are_exact(kernel.top_code(), multiply);
        }
    }

    /// The largest products AVX2's 16-bit pairs meet (every code 127, every weight ±127)
    /// stay exact: none saturates.
    #[test]
    fn avx2_pairs_of_the_largest_codes_do_not_saturate() {
        if !avx2::available() {
            eprintln!("no AVX2 on this machine: its kernel is not exercised");
            return;
        }
        let (rows, k, n) = (7, 128, 32);
        let codes = vec![avx2::TOP_CODE; rows * k];
        for sign in [1.0, -1.0] {
            let w = vec![127.0 * sign; k * n];
            let packed = PackedWeights::new(&w, k, n, Operand::Int8);
            let mut sums = vec![0f32; rows * packed.n_pad];
            // SAFETY: the CPU has AVX2; the buffers have the extents `multiply` needs.
            unsafe { avx2::multiply(&packed, rows, &codes, &mut sums) };
            let want = (sign * 127.0 * 127.0 * k as f32) as i32;
            assert!(bytemuck_i32(&sums).iter().all(|&s| s == want), "{sign}");
        }
    }
}
