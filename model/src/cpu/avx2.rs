//! The int8 products of [`super::reduced`] on AVX2 alone, for CPUs with neither the AMX
//! tiles nor AVX-512 VNNI (AMD's Zen 2 and Zen 3, Intel before Ice Lake): `vpmaddubsw`
//! multiplies u8 activations by i8 weights and adds each pair in 16 bits, `vpmaddwd` adds
//! those pairs into 32 bits, the way NNUE engines run on such CPUs. A pair of products
//! must fit 16 bits, so the activations take codes `0..=127` here ([`TOP_CODE`]), not
//! `0..=255`. The packed weights are the same: a row of 64 bytes (16 columns of 4
//! consecutive `k`) is two registers of 8 columns.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_madd_epi16, _mm256_maddubs_epi16,
    _mm256_set1_epi16, _mm256_set1_epi32, _mm256_setzero_si256, _mm256_storeu_si256,
};

use super::packed::{PackedWeights, ROW_BYTES};

/// The largest activation code: 127 · 127 · 2 = 32,258 fits a 16-bit lane, where
/// 255 · 127 · 2 would saturate it.
pub(super) const TOP_CODE: u8 = 127;

/// Rows of the output a step computes: with two registers of 8 columns each, 12
/// accumulators, the two weight registers, the broadcast row and the ones leave none of
/// the 16 registers over.
const ROWS: usize = 6;

/// Columns of a block of the packed weights.
const COLUMNS: usize = 16;

/// Whether this CPU has AVX2.
pub(crate) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `sums[rows, n_pad]` (as i32) `= a[rows, k_pad] · w` for int8 weights, the codes of `a`
/// at most [`TOP_CODE`].
///
/// # Safety
/// The CPU must have AVX2; `a` must hold `rows × k_pad` bytes and `sums` `rows × n_pad`
/// elements.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn multiply(w: &PackedWeights, rows: usize, a: &[u8], sums: &mut [f32]) {
    let quads = w.k_pad / 4;
    let block_bytes = quads * ROW_BYTES;
    let ones = _mm256_set1_epi16(1);
    for i0 in (0..rows).step_by(ROWS) {
        let height = ROWS.min(rows - i0);
        for j0 in (0..w.n_pad).step_by(COLUMNS) {
            let mut acc = [[_mm256_setzero_si256(); 2]; ROWS];
            // SAFETY: the weights' block `j0 / 16` holds `quads` rows of 64 bytes; rows
            // `i0..i0 + height` of `a` hold `k_pad` bytes each.
            unsafe {
                let block = w.data.as_ptr().add(j0 / COLUMNS * block_bytes);
                for q in 0..quads {
                    let w0 = _mm256_loadu_si256(block.add(q * ROW_BYTES).cast());
                    let w1 = _mm256_loadu_si256(block.add(q * ROW_BYTES + 32).cast());
                    for (r, acc) in acc.iter_mut().enumerate().take(height) {
                        let at = a.as_ptr().add((i0 + r) * w.k_pad + 4 * q);
                        let x = _mm256_set1_epi32(at.cast::<i32>().read_unaligned());
                        let p0 = _mm256_madd_epi16(_mm256_maddubs_epi16(x, w0), ones);
                        let p1 = _mm256_madd_epi16(_mm256_maddubs_epi16(x, w1), ones);
                        acc[0] = _mm256_add_epi32(acc[0], p0);
                        acc[1] = _mm256_add_epi32(acc[1], p1);
                    }
                }
                for (r, acc) in acc.iter().enumerate().take(height) {
                    let out = sums.as_mut_ptr().add((i0 + r) * w.n_pad + j0);
                    _mm256_storeu_si256(out.cast::<__m256i>(), acc[0]);
                    _mm256_storeu_si256(out.add(8).cast::<__m256i>(), acc[1]);
                }
            }
        }
    }
}

/// Never called: [`available`] is false off x86-64.
///
/// # Safety
/// None needed.
#[cfg(not(target_arch = "x86_64"))]
pub(super) unsafe fn multiply(_: &PackedWeights, _: usize, _: &[u8], _: &mut [f32]) {
    unreachable!("AVX2 off x86-64")
}
