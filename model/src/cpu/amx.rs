//! The AMX tiles' products of [`super::reduced`]: bf16 (`tdpbf16ps`) and int8
//! (`tdpbusd`). On the processors that have them, a tile instruction does 16 × 16 × 32
//! (bf16) or 16 × 16 × 64 (int8) multiply-adds, several times what 512-bit `vfmadd` does.
//! The instructions are written in inline assembly because Rust's AMX intrinsics are not
//! stable; the operating system's permission to use the tile state is asked once per
//! process (Linux's `arch_prctl(ARCH_REQ_XCOMP_PERM)`).

/// Whether this CPU has AMX with bf16 and int8, and the operating system lets this
/// process use the tiles (asked once). `KVARN_AMX=off` in the environment says no, so
/// that the paths of CPUs without the tiles can be measured on one that has them.
pub(crate) fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(detect)
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn detect() -> bool {
    if std::env::var("KVARN_AMX").is_ok_and(|v| v == "off") {
        return false;
    }
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

#[cfg(target_arch = "x86_64")]
pub(super) use tiles::multiply;

/// Never called off x86-64, where [`available`] is false.
///
/// # Safety
/// None needed: it is never called.
#[cfg(not(target_arch = "x86_64"))]
pub(super) unsafe fn multiply(_: &super::packed::PackedWeights, _: usize, _: &[u8], _: &mut [f32]) {
    unreachable!("AMX off x86-64")
}

/// The tiles' instructions, x86-64 only.
#[cfg(target_arch = "x86_64")]
mod tiles {
    use crate::cpu::packed::{BLOCK, Operand, PackedWeights, ROW_BYTES};

    /// Bytes of a tile row.
    const TILE_ROW_BYTES: usize = ROW_BYTES;

    /// The tile loop: every block of 32 columns of the output, for 32 rows at a time (two
    /// tiles of activations, each weight tile loaded once for both), the rows left in one
    /// more such block whose tiles hold fewer rows, summed over `k` in tiles.
    ///
    /// # Safety
    /// The CPU must have AMX and the process the permission to use it; `a` must hold
    /// `rows × k_pad` elements and `sums` `rows × n_pad`.
    pub(in crate::cpu) unsafe fn multiply(
        w: &PackedWeights,
        rows: usize,
        a: &[u8],
        sums: &mut [f32],
    ) {
        let lda = w.k_pad * w.operand.bytes();
        // SAFETY (whole body): the row ranges below cover `0..rows` and stay inside `a`
        // and `sums` by the extents the caller guarantees; the tile registers belong to
        // no Rust value.
        unsafe {
            configure_tiles(16, 16);
            let mut i0 = 0;
            while rows - i0 >= 32 {
                row_block(w, a.as_ptr().add(i0 * lda), sums, i0, true);
                i0 += 32;
            }
            let left = rows - i0;
            if left > 16 {
                configure_tiles(16, left - 16);
                row_block(w, a.as_ptr().add(i0 * lda), sums, i0, true);
            } else if left > 0 {
                configure_tiles(left, 16);
                row_block(w, a.as_ptr().add(i0 * lda), sums, i0, false);
            }
            std::arch::asm!("tilerelease", options(nostack));
        }
    }

    /// Every block of 32 columns of the rows from `i0`: as many as the loaded
    /// configuration's tiles of activations hold, in two tiles (`two`) or one.
    ///
    /// # Safety
    /// As [`multiply`], with the rows from `i0` in `a` (at `a`) and `sums`.
    unsafe fn row_block(w: &PackedWeights, a: *const u8, sums: &mut [f32], i0: usize, two: bool) {
        let lda = w.k_pad * w.operand.bytes();
        let ldc = w.n_pad * 4;
        let block_bytes = lda * 16; // one block of 16 columns of packed weights
        let chunks = lda / TILE_ROW_BYTES;
        // SAFETY: see `tiles`.
        unsafe {
            for j0 in (0..w.n_pad).step_by(BLOCK) {
                zero_accumulators();
                let b0 = w.data.as_ptr().add(j0 / 16 * block_bytes);
                for c in 0..chunks {
                    let a = a.add(c * TILE_ROW_BYTES);
                    let b = b0.add(c * 16 * TILE_ROW_BYTES);
                    match (w.operand, two) {
                        (Operand::Bf16, true) => multiply_bf16(a, lda, b, block_bytes),
                        (Operand::Int8, true) => multiply_int8(a, lda, b, block_bytes),
                        (Operand::Bf16, false) => multiply_bf16_one(a, lda, b, block_bytes),
                        (Operand::Int8, false) => multiply_int8_one(a, lda, b, block_bytes),
                    }
                }
                let c = sums.as_mut_ptr().add(i0 * w.n_pad + j0).cast();
                store_accumulators(c, ldc, two);
            }
        }
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
    /// rows of activations and 6–7 columns of weights (16 rows of them); tiles 0, 1 and 4
    /// hold `first` rows and tiles 2, 3 and 5 `second` (16, or fewer for the last rows of a
    /// product).
    unsafe fn configure_tiles(first: usize, second: usize) {
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
            config.rows[tile] = first as u8;
        }
        for tile in [2, 3, 5] {
            config.rows[tile] = second as u8;
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
}
