//! The weights of a reduced-precision product, packed once into the layout that the AMX
//! tiles and AVX-512 VNNI both read ([`super::reduced`] multiplies with them).

use super::kernels;

/// The operands' type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operand {
    /// bf16 operands, f32 sums.
    Bf16,
    /// u8 activations, i8 weights, i32 sums.
    Int8,
}

impl Operand {
    /// Bytes per element.
    pub(super) fn bytes(self) -> usize {
        match self {
            Operand::Bf16 => 2,
            Operand::Int8 => 1,
        }
    }
}

/// Bytes of a row of a tile, and of the 16 lanes of a 512-bit register: the packed
/// weights hold, for each block of 16 columns, rows of this many bytes.
pub(super) const ROW_BYTES: usize = 64;
/// Columns of the output are computed in blocks of two times 16.
pub(super) const BLOCK: usize = 32;

/// A weight matrix `[k, n]` in the tiles' (and VNNI's) layout: for each block of 16 columns, rows of
/// 64 bytes holding, column by column, the 2 (bf16) or 4 (int8) consecutive `k` that one
/// 32-bit lane multiplies. `k` and `n` are padded with zeros to whole tiles.
#[derive(Debug, Clone)]
pub(crate) struct PackedWeights {
    pub(super) operand: Operand,
    pub(super) k: usize,
    pub(super) n: usize,
    pub(super) k_pad: usize,
    pub(super) n_pad: usize,
    /// The packed operand: bf16 bit patterns or i8, as bytes.
    pub(super) data: Vec<u8>,
    /// int8: each column's scale (its largest magnitude over 127); empty for bf16.
    pub(super) column_scales: Vec<f32>,
}

impl PackedWeights {
    /// Packs `w` (`[k, n]`, row-major). Only call where [`Operand::runs_here`].
    pub(crate) fn new(w: &[f32], k: usize, n: usize, operand: Operand) -> PackedWeights {
        assert_eq!(w.len(), k * n, "weights are not {k}×{n}");
        let k_group = ROW_BYTES / 16 / operand.bytes(); // k per 32-bit lane
        let k_pad = k.next_multiple_of(ROW_BYTES / operand.bytes());
        let n_pad = n.next_multiple_of(BLOCK);
        let column_scales = match operand {
            Operand::Bf16 => Vec::new(),
            Operand::Int8 => (0..n)
                .map(|j| (0..k).fold(0f32, |m, r| m.max(w[r * n + j].abs())) / 127.0)
                .collect(),
        };
        let mut data = vec![0u8; k_pad * n_pad * operand.bytes()];
        for r in 0..k {
            for j in 0..n {
                // Block of 16 columns, row of the tile (k group), lane, place in the lane.
                let lane_row = (j / 16) * (k_pad / k_group) + r / k_group;
                let element = (lane_row * 16 + j % 16) * k_group + r % k_group;
                let x = w[r * n + j];
                match operand {
                    Operand::Bf16 => {
                        let bits = kernels::bf16_bits(x).to_ne_bytes();
                        data[2 * element..2 * element + 2].copy_from_slice(&bits);
                    }
                    Operand::Int8 => {
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
            operand,
            k,
            n,
            k_pad,
            n_pad,
            data,
            column_scales,
        }
    }
}
