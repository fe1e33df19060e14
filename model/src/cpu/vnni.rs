//! The int8 products of [`super::reduced`] on AVX-512 VNNI (`vpdpbusd`: 16 lanes, each
//! the sum of four u8 × i8 products added to 32 bits), for CPUs without the AMX tiles
//! (AMD's Zen 4 and later, Intel's Ice Lake and later). The packed weights' rows of 64
//! bytes are exactly one register: 16 columns of 4 consecutive `k`.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{
    __m512i, _mm512_dpbusd_epi32, _mm512_loadu_si512, _mm512_set1_epi32, _mm512_setzero_si512,
    _mm512_storeu_si512,
};

use super::packed::{BLOCK, PackedWeights, ROW_BYTES};

/// Rows of the output a step computes (with two registers of 16 columns each: 16
/// accumulators).
const ROWS: usize = 8;

/// Whether this CPU has AVX-512 VNNI (with F and BW), and `KVARN_VNNI=off` does not set
/// it aside (to measure the AVX2 kernel on such a CPU).
pub(crate) fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| std::env::var("KVARN_VNNI").map_or(true, |v| v != "off") && detect())
}

fn detect() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `sums[rows, n_pad]` (as i32) `= a[rows, k_pad] · w` for int8 weights.
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VNNI; `a` must hold `rows × k_pad` bytes and
/// `sums` `rows × n_pad` elements.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
pub(super) unsafe fn multiply(w: &PackedWeights, rows: usize, a: &[u8], sums: &mut [f32]) {
    let quads = w.k_pad / 4;
    let block_bytes = quads * ROW_BYTES;
    for i0 in (0..rows).step_by(ROWS) {
        let height = ROWS.min(rows - i0);
        for j0 in (0..w.n_pad).step_by(BLOCK) {
            let mut acc = [[_mm512_setzero_si512(); 2]; ROWS];
            // SAFETY: the weights' blocks `j0 / 16` and the next one hold `quads` rows
            // of 64 bytes; rows `i0..i0 + height` of `a` hold `k_pad` bytes each.
            unsafe {
                let b0 = w.data.as_ptr().add(j0 / 16 * block_bytes);
                let b1 = b0.add(block_bytes);
                for q in 0..quads {
                    let w0 = _mm512_loadu_si512(b0.add(q * ROW_BYTES).cast());
                    let w1 = _mm512_loadu_si512(b1.add(q * ROW_BYTES).cast());
                    for (r, acc) in acc.iter_mut().enumerate().take(height) {
                        let at = a.as_ptr().add((i0 + r) * w.k_pad + 4 * q);
                        let x = _mm512_set1_epi32(at.cast::<i32>().read_unaligned());
                        acc[0] = _mm512_dpbusd_epi32(acc[0], x, w0);
                        acc[1] = _mm512_dpbusd_epi32(acc[1], x, w1);
                    }
                }
                for (r, acc) in acc.iter().enumerate().take(height) {
                    let out = sums.as_mut_ptr().add((i0 + r) * w.n_pad + j0);
                    _mm512_storeu_si512(out.cast::<__m512i>(), acc[0]);
                    _mm512_storeu_si512(out.add(16).cast::<__m512i>(), acc[1]);
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
    unreachable!("AVX-512 VNNI off x86-64")
}
