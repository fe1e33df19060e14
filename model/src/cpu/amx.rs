//! Matrix products in reduced precision on Intel's AMX tiles: bf16 (`tdpbf16ps`, 32-bit
//! sums) and 8-bit integers (`tdpbusd`, unsigned activations times signed weights, 32-bit
//! integer sums). On the processors that have them, a tile instruction does 16 × 16 × 32
//! (bf16) or 16 × 16 × 64 (int8) multiply-adds, several times what 512-bit `vfmadd` does,
//! which is why self-play's network runs in them where it can.
//!
//! The weights are packed once into the tiles' layout ([`PackedWeights`]); each product
//! converts its activations (bf16 by rounding; int8 with a scale per row, so that each row
//! uses all 255 levels), multiplies tile by tile, and writes 32-bit floats. The tile
//! instructions are written in inline assembly because Rust's AMX intrinsics are not
//! stable; the operating system's permission to use the tile state is asked once per
//! process (Linux's `arch_prctl(ARCH_REQ_XCOMP_PERM)`).

use super::kernels;

/// The reduced precisions the tiles compute in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TileType {
    /// bf16 operands, f32 sums.
    Bf16,
    /// u8 activations, i8 weights, i32 sums.
    Int8,
}

impl TileType {
    /// Operand bytes per element.
    fn bytes(self) -> usize {
        match self {
            TileType::Bf16 => 2,
            TileType::Int8 => 1,
        }
    }
}

/// Columns of output a block computes: two tiles of 16. Rows go by two tiles of 16, then
/// one, then one of the rows left (a tile may hold fewer than 16 rows), so that a small
/// batch costs what its rows cost.
const BLOCK: usize = 32;
/// Bytes of a tile row.
const TILE_ROW_BYTES: usize = 64;

/// Whether this CPU has AMX with bf16 and int8, and the operating system lets this
/// process use the tiles (asked once).
pub(crate) fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(detect)
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn detect() -> bool {
    // CPUID leaf 7: EDX bit 22 AMX-BF16, bit 24 AMX-TILE, bit 25 AMX-INT8.
    let leaf = std::arch::x86_64::__cpuid_count(7, 0);
    let bits = (1 << 22) | (1 << 24) | (1 << 25);
    if leaf.edx & bits != bits {
        return false;
    }
    const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
    const XFEATURE_XTILEDATA: libc::c_long = 18;
    // SAFETY: arch_prctl with these arguments only asks the kernel for permission to use
    // the tile data state; it touches no memory of ours.
    unsafe {
        libc::syscall(
            libc::SYS_arch_prctl,
            ARCH_REQ_XCOMP_PERM,
            XFEATURE_XTILEDATA,
        ) == 0
    }
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn detect() -> bool {
    false
}

/// A weight matrix `[k, n]` in the tiles' layout: for each block of 16 columns, rows of
/// 64 bytes holding, column by column, the 2 (bf16) or 4 (int8) consecutive `k` that one
/// 32-bit lane multiplies. `k` and `n` are padded with zeros to whole tiles.
#[derive(Debug, Clone)]
pub(crate) struct PackedWeights {
    tile: TileType,
    k: usize,
    n: usize,
    k_pad: usize,
    n_pad: usize,
    /// The packed operand: bf16 bit patterns or i8, as bytes.
    data: Vec<u8>,
    /// int8: each column's scale (its largest magnitude over 127); empty for bf16.
    column_scales: Vec<f32>,
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
    /// Packs `w` (`[k, n]`, row-major). Only call where [`available`] is true.
    pub(crate) fn new(w: &[f32], k: usize, n: usize, tile: TileType) -> PackedWeights {
        assert_eq!(w.len(), k * n, "weights are not {k}×{n}");
        let k_group = TILE_ROW_BYTES / 16 / tile.bytes(); // k per 32-bit lane
        let k_pad = k.next_multiple_of(TILE_ROW_BYTES / tile.bytes());
        let n_pad = n.next_multiple_of(BLOCK);
        let column_scales = match tile {
            TileType::Bf16 => Vec::new(),
            TileType::Int8 => (0..n)
                .map(|j| (0..k).fold(0f32, |m, r| m.max(w[r * n + j].abs())) / 127.0)
                .collect(),
        };
        let mut data = vec![0u8; k_pad * n_pad * tile.bytes()];
        for r in 0..k {
            for j in 0..n {
                // Block of 16 columns, row of the tile (k group), lane, place in the lane.
                let lane_row = (j / 16) * (k_pad / k_group) + r / k_group;
                let element = (lane_row * 16 + j % 16) * k_group + r % k_group;
                let x = w[r * n + j];
                match tile {
                    TileType::Bf16 => {
                        let bits = kernels::bf16_bits(x).to_ne_bytes();
                        data[2 * element..2 * element + 2].copy_from_slice(&bits);
                    }
                    TileType::Int8 => {
                        let scale = column_scales[j];
                        let q = if scale > 0.0 {
                            (x / scale).round()
                        } else {
                            0.0
                        };
                        data[element] = (q.clamp(-127.0, 127.0) as i8) as u8;
                    }
                }
            }
        }
        PackedWeights {
            tile,
            k,
            n,
            k_pad,
            n_pad,
            data,
            column_scales,
        }
    }

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
            s.sums.resize(rows * self.n_pad, 0.0);
            // SAFETY: `PackedWeights` exist only where `available()` (the CPU has AMX and
            // the kernel allows it); `a` holds `rows × k_pad` elements and `sums`
            // `rows × n_pad`, the extents the kernel reads and writes.
            unsafe { self.tiles(rows, as_bytes_mut(&mut s.a), &mut s.sums) };
            let stride = self.n_pad;
            for (i, row) in out.chunks_exact_mut(n).take(rows).enumerate() {
                let sums = &s.sums[i * stride..i * stride + n];
                match self.tile {
                    TileType::Bf16 => row.copy_from_slice(sums),
                    TileType::Int8 => kernels::dequantize(
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
        s.a.resize((rows * k_pad * self.tile.bytes()).div_ceil(2), 0);
        s.row_scales.clear();
        let rows_in = input.chunks_exact(k).take(rows).enumerate();
        match self.tile {
            TileType::Bf16 => {
                for (i, x) in rows_in {
                    kernels::to_bf16(&mut s.a[i * k_pad..i * k_pad + k], x);
                }
            }
            TileType::Int8 => {
                let codes = as_bytes_mut(&mut s.a);
                for (i, x) in rows_in {
                    let scale = kernels::quantize_u8(&mut codes[i * k_pad..i * k_pad + k], x);
                    s.row_scales.push(scale);
                }
            }
        }
    }

    /// The tile loop: every block of 32 columns of the output, for 32 rows at a time,
    /// then 16, then the rows left, summed over `k` in tiles.
    ///
    /// # Safety
    /// The CPU must have AMX and the process the permission to use it; `a` must hold
    /// `rows × k_pad` elements and `sums` `rows × n_pad`.
    unsafe fn tiles(&self, rows: usize, a: &[u8], sums: &mut [f32]) {
        let lda = self.k_pad * self.tile.bytes();
        // SAFETY (whole body): the row ranges below cover `0..rows` and stay inside `a`
        // and `sums` by the extents the caller guarantees; the tile registers belong to
        // no Rust value.
        unsafe {
            configure_tiles(16);
            let mut i0 = 0;
            while rows - i0 >= 32 {
                self.row_block(a.as_ptr().add(i0 * lda), sums, i0, true);
                i0 += 32;
            }
            if rows - i0 >= 16 {
                self.row_block(a.as_ptr().add(i0 * lda), sums, i0, false);
                i0 += 16;
            }
            if rows > i0 {
                configure_tiles(rows - i0);
                self.row_block(a.as_ptr().add(i0 * lda), sums, i0, false);
            }
            std::arch::asm!("tilerelease", options(nostack));
        }
    }

    /// Every block of 32 columns of the rows from `i0`: 32 of them (`two`: two tiles of
    /// activations) or as many as the loaded configuration's tiles hold.
    ///
    /// # Safety
    /// As [`PackedWeights::tiles`], with the rows from `i0` in `a` (at `a`) and `sums`.
    unsafe fn row_block(&self, a: *const u8, sums: &mut [f32], i0: usize, two: bool) {
        let lda = self.k_pad * self.tile.bytes();
        let ldc = self.n_pad * 4;
        let block_bytes = lda * 16; // one block of 16 columns of packed weights
        let chunks = lda / TILE_ROW_BYTES;
        // SAFETY: see `tiles`.
        unsafe {
            for j0 in (0..self.n_pad).step_by(BLOCK) {
                zero_accumulators();
                let b0 = self.data.as_ptr().add(j0 / 16 * block_bytes);
                for c in 0..chunks {
                    let a = a.add(c * TILE_ROW_BYTES);
                    let b = b0.add(c * 16 * TILE_ROW_BYTES);
                    match (self.tile, two) {
                        (TileType::Bf16, true) => multiply_bf16(a, lda, b, block_bytes),
                        (TileType::Int8, true) => multiply_int8(a, lda, b, block_bytes),
                        (TileType::Bf16, false) => multiply_bf16_one(a, lda, b, block_bytes),
                        (TileType::Int8, false) => multiply_int8_one(a, lda, b, block_bytes),
                    }
                }
                let c = sums.as_mut_ptr().add(i0 * self.n_pad + j0).cast();
                store_accumulators(c, ldc, two);
            }
        }
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

/// The tile configuration: palette 1, eight tiles of 16 rows of 64 bytes.
#[repr(C, align(64))]
struct TileConfig {
    palette: u8,
    start_row: u8,
    reserved: [u8; 14],
    column_bytes: [u16; 16],
    rows: [u8; 16],
}

/// Loads the tile configuration: tiles 0–3 accumulate a block of 32 columns, 4–5 hold
/// rows of activations and 6–7 columns of weights; tiles 0, 1 and 4 hold `rows` rows
/// (16, or fewer for the last rows of a product), the others 16.
unsafe fn configure_tiles(rows: usize) {
    let mut config = TileConfig {
        palette: 1,
        start_row: 0,
        reserved: [0; 14],
        column_bytes: [0; 16],
        rows: [0; 16],
    };
    config.column_bytes[..8].fill(TILE_ROW_BYTES as u16);
    config.rows[..8].fill(16);
    for tile in [0, 1, 4] {
        config.rows[tile] = rows as u8;
    }
    // SAFETY: the caller guarantees AMX; the configuration is valid for palette 1.
    unsafe {
        std::arch::asm!("ldtilecfg [{}]", in(reg) &config as *const TileConfig, options(nostack));
    }
}

unsafe fn zero_accumulators() {
    // SAFETY: the caller guarantees AMX and a loaded configuration.
    unsafe {
        std::arch::asm!(
            "tilezero tmm0",
            "tilezero tmm1",
            "tilezero tmm2",
            "tilezero tmm3",
            options(nostack)
        );
    }
}

/// Stores the accumulators at `c` (row stride `ldc` bytes): tiles 0 and 1 side by side,
/// and below them tiles 2 and 3 where `two`.
unsafe fn store_accumulators(c: *mut u8, ldc: usize, two: bool) {
    // SAFETY: the caller guarantees AMX and the rows of the loaded configuration, 128
    // bytes each, at `c` with stride `ldc` (16 more rows where `two`).
    unsafe {
        std::arch::asm!(
            "tilestored [{c00} + {ldc}*1], tmm0",
            "tilestored [{c01} + {ldc}*1], tmm1",
            c00 = in(reg) c,
            c01 = in(reg) c.add(TILE_ROW_BYTES),
            ldc = in(reg) ldc,
            options(nostack)
        );
        if two {
            std::arch::asm!(
                "tilestored [{c10} + {ldc}*1], tmm2",
                "tilestored [{c11} + {ldc}*1], tmm3",
                c10 = in(reg) c.add(16 * ldc),
                c11 = in(reg) c.add(16 * ldc + TILE_ROW_BYTES),
                ldc = in(reg) ldc,
                options(nostack)
            );
        }
    }
}

/// One step of the tile loop for an instruction: loads 32 rows of activations (`a`, row
/// stride `lda` bytes) and two blocks of 16 weight columns (`b`, the next block
/// `block_bytes` on), and multiply-adds them into the four accumulators.
macro_rules! multiply {
    ($name:ident, $instruction:literal) => {
        unsafe fn $name(a: *const u8, lda: usize, b: *const u8, block_bytes: usize) {
            // SAFETY: the caller guarantees AMX, a loaded configuration, and 16 rows of
            // 64 bytes at each of the four addresses with their strides.
            unsafe {
                std::arch::asm!(
                    "tileloadd tmm4, [{a0} + {lda}*1]",
                    "tileloadd tmm5, [{a1} + {lda}*1]",
                    "tileloadd tmm6, [{b0} + {ldb}*1]",
                    "tileloadd tmm7, [{b1} + {ldb}*1]",
                    concat!($instruction, " tmm0, tmm4, tmm6"),
                    concat!($instruction, " tmm1, tmm4, tmm7"),
                    concat!($instruction, " tmm2, tmm5, tmm6"),
                    concat!($instruction, " tmm3, tmm5, tmm7"),
                    a0 = in(reg) a,
                    a1 = in(reg) a.add(16 * lda),
                    b0 = in(reg) b,
                    b1 = in(reg) b.add(block_bytes),
                    lda = in(reg) lda,
                    ldb = in(reg) TILE_ROW_BYTES,
                    options(nostack)
                );
            }
        }
    };
}

multiply!(multiply_bf16, "tdpbf16ps");
multiply!(multiply_int8, "tdpbusd");

/// As `multiply!`, for one tile of activations (16 rows or fewer) into tiles 0 and 1.
macro_rules! multiply_one {
    ($name:ident, $instruction:literal) => {
        unsafe fn $name(a: *const u8, lda: usize, b: *const u8, block_bytes: usize) {
            // SAFETY: the caller guarantees AMX, a loaded configuration, and the rows of
            // tile 4 at `a` and 16 rows of 64 bytes at each weight address.
            unsafe {
                std::arch::asm!(
                    "tileloadd tmm4, [{a0} + {lda}*1]",
                    "tileloadd tmm6, [{b0} + {ldb}*1]",
                    "tileloadd tmm7, [{b1} + {ldb}*1]",
                    concat!($instruction, " tmm0, tmm4, tmm6"),
                    concat!($instruction, " tmm1, tmm4, tmm7"),
                    a0 = in(reg) a,
                    b0 = in(reg) b,
                    b1 = in(reg) b.add(block_bytes),
                    lda = in(reg) lda,
                    ldb = in(reg) TILE_ROW_BYTES,
                    options(nostack)
                );
            }
        }
    };
}

multiply_one!(multiply_bf16_one, "tdpbf16ps");
multiply_one!(multiply_int8_one, "tdpbusd");

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

    #[test]
    fn tiles_compute_exact_products_of_small_integers() {
        if !available() {
            eprintln!("no AMX on this machine: the tile products are not exercised");
            return;
        }
        let shapes = [
            (1, 80, 384),
            (33, 384, 624),
            (64, 384, 384),
            (5, 70, 17),
            (31, 96, 32),
            (49, 64, 48),
            (16, 64, 32),
        ];
        for (rows, k, n) in shapes {
            // Each weight column holds ±127 and each activation row 255, so that the int8
            // scales are 1 and its codes the integers themselves.
            let mut w = integers(k * n, 7, -127, 127);
            w[..n].fill(127.0);
            let mut a = integers(rows * k, 11, 0, 255);
            for row in a.chunks_exact_mut(k) {
                row[0] = 255.0;
            }
            let want = reference(rows, k, n, &a, &w);
            // bf16 holds integers up to 256 exactly, and sums of them are exact in f32.
            for tile in [TileType::Int8, TileType::Bf16] {
                let packed = PackedWeights::new(&w, k, n, tile);
                let mut got = vec![f32::NAN; rows * n];
                packed.product(rows, &a, &mut got);
                let worst = want
                    .iter()
                    .zip(&got)
                    .map(|(x, y)| (x - y).abs())
                    .fold(0.0, f32::max);
                assert_eq!(worst, 0.0, "{tile:?} {rows}×{k}×{n}");
            }
        }
    }
}
