//! The policy head of a training step over the legal actions only. A masked action's logit
//! takes no part in the loss and gets no gradient, so computing it is waste: a mill
//! position has about 5 to 30 legal actions of 288 (Six) or 624 (Nine), and the head's
//! three dense products, about 30% of a step's arithmetic, shrink to a few percent.
//!
//! The weights' gradient is summed action by action over the rows in order (through an
//! index from actions to their entries), so it does not depend on how the rows are split
//! among threads: training stays reproducible.

use std::ops::Range;

use rayon::prelude::*;

use super::kernels;

/// Rows handled by one task of the row-parallel loops.
const ROWS_PER_TASK: usize = 32;

/// The actions whose logits a step needs, row by row, in increasing order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowActions {
    /// Row `r`'s entries are `offsets[r]..offsets[r + 1]`.
    offsets: Vec<usize>,
    /// The action of each entry.
    actions: Vec<u32>,
}

impl RowActions {
    /// The actions marked in `mask` (`rows × actions`, row-major).
    ///
    /// # Panics
    /// When `actions` is 0 or does not divide the mask's length.
    pub fn from_mask(mask: &[bool], actions: usize) -> RowActions {
        assert!(
            actions > 0 && mask.len().is_multiple_of(actions),
            "a mask of whole rows of {actions} actions"
        );
        let mut offsets = Vec::with_capacity(mask.len() / actions + 1);
        let mut list = Vec::new();
        offsets.push(0);
        for row in mask.chunks_exact(actions) {
            list.extend((0..actions as u32).filter(|&a| row[a as usize]));
            offsets.push(list.len());
        }
        RowActions {
            offsets,
            actions: list,
        }
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Entries over all rows.
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    /// Whether no row lists an action.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// Row `r`'s entries.
    pub fn row(&self, r: usize) -> Range<usize> {
        self.offsets[r]..self.offsets[r + 1]
    }

    /// The action of each entry.
    pub fn actions(&self) -> &[u32] {
        &self.actions
    }

    /// `data` (one value per entry) cut into consecutive runs of at most `rows_per` rows:
    /// each with its first row, for loops that write row by row in parallel.
    ///
    /// # Panics
    /// When `data` does not hold one value per entry.
    pub fn split_rows_mut<'a, T>(
        &self,
        mut data: &'a mut [T],
        rows_per: usize,
    ) -> Vec<(usize, &'a mut [T])> {
        assert_eq!(data.len(), self.len(), "one value per entry");
        let mut parts = Vec::with_capacity(self.rows().div_ceil(rows_per.max(1)));
        let mut first = 0;
        while first < self.rows() {
            let end = (first + rows_per.max(1)).min(self.rows());
            let take = self.offsets[end] - self.offsets[first];
            let (head, rest) = std::mem::take(&mut data).split_at_mut(take);
            parts.push((first, head));
            data = rest;
            first = end;
        }
        parts
    }

    /// Entries grouped by action: `(starts, entries)` where action `a`'s entries, in row
    /// order, are `entries[starts[a]..starts[a + 1]]`.
    fn by_action(&self, actions: usize) -> (Vec<usize>, Vec<(u32, u32)>) {
        let mut starts = vec![0usize; actions + 1];
        for &a in &self.actions {
            starts[a as usize + 1] += 1;
        }
        for a in 0..actions {
            starts[a + 1] += starts[a];
        }
        let mut next = starts.clone();
        let mut entries = vec![(0u32, 0u32); self.len()];
        for r in 0..self.rows() {
            for k in self.row(r) {
                let a = self.actions[k] as usize;
                entries[next[a]] = (r as u32, k as u32);
                next[a] += 1;
            }
        }
        (starts, entries)
    }
}

/// A policy head's parameters as the sparse passes read them: the weights transposed,
/// one row of `width` per action.
pub(super) struct Head<'a> {
    pub weights_t: &'a [f32],
    pub bias: &'a [f32],
    pub width: usize,
}

/// `logits[k] = bias[a] + hidden[r] · weights_t[a]` for each entry `k` (action `a`) of
/// each row `r`.
pub(super) fn forward(head: &Head<'_>, hidden: &[f32], list: &RowActions, logits: &mut Vec<f32>) {
    logits.clear();
    logits.resize(list.len(), 0.0);
    let w = head.width;
    list.split_rows_mut(logits, ROWS_PER_TASK)
        .into_par_iter()
        .for_each(|(first, out)| {
            let base = list.offsets[first];
            for r in first..(first + ROWS_PER_TASK).min(list.rows()) {
                let h = &hidden[r * w..(r + 1) * w];
                for k in list.row(r) {
                    let a = list.actions[k] as usize;
                    out[k - base] =
                        head.bias[a] + kernels::dot(h, &head.weights_t[a * w..(a + 1) * w]);
                }
            }
        });
}

/// The gradients from `d` (one per entry): the transposed weights' and the bias's
/// (overwritten, 0 for actions no row lists) and the last hidden layer's (`d_hidden`,
/// `rows × width`, overwritten).
pub(super) fn backward(
    head: &Head<'_>,
    hidden: &[f32],
    list: &RowActions,
    d: &[f32],
    grad_weights_t: &mut [f32],
    grad_bias: &mut [f32],
    d_hidden: &mut [f32],
) {
    let w = head.width;
    d_hidden
        .par_chunks_mut(ROWS_PER_TASK * w)
        .enumerate()
        .for_each(|(c, out)| {
            out.fill(0.0);
            for (i, dh) in out.chunks_exact_mut(w).enumerate() {
                for k in list.row(c * ROWS_PER_TASK + i) {
                    let a = list.actions[k] as usize;
                    kernels::axpy(dh, d[k], &head.weights_t[a * w..(a + 1) * w]);
                }
            }
        });
    let (starts, entries) = list.by_action(grad_bias.len());
    grad_weights_t
        .par_chunks_mut(w)
        .zip(grad_bias.par_iter_mut())
        .enumerate()
        .for_each(|(a, (g, b))| {
            g.fill(0.0);
            *b = 0.0;
            for &(r, k) in &entries[starts[a]..starts[a + 1]] {
                let (r, k) = (r as usize, k as usize);
                kernels::axpy(g, d[k], &hidden[r * w..(r + 1) * w]);
                *b += d[k];
            }
        });
}

/// `out[j × rows + i] = m[i × cols + j]`: `m` (`rows × cols`) transposed into `out`.
///
/// # Panics
/// When `m` or `out` does not hold `rows × cols` values.
pub(super) fn transpose(m: &[f32], rows: usize, cols: usize, out: &mut [f32]) {
    assert_eq!(
        (m.len(), out.len()),
        (rows * cols, rows * cols),
        "a {rows}×{cols} matrix"
    );
    const TILE: usize = 32;
    for i0 in (0..rows).step_by(TILE) {
        for j0 in (0..cols).step_by(TILE) {
            for i in i0..(i0 + TILE).min(rows) {
                for j in j0..(j0 + TILE).min(cols) {
                    out[j * rows + i] = m[i * cols + j];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_list_their_marked_actions_and_split_at_row_boundaries() {
        let mask = [
            true, false, true, //
            false, false, false, //
            false, true, true, //
        ];
        let list = RowActions::from_mask(&mask, 3);
        assert_eq!(list.rows(), 3);
        assert_eq!(list.actions(), &[0, 2, 1, 2]);
        assert_eq!((list.row(0), list.row(1), list.row(2)), (0..2, 2..2, 2..4));
        let mut data = [1, 2, 3, 4];
        let parts = list.split_rows_mut(&mut data, 2);
        let shapes: Vec<(usize, usize)> = parts.iter().map(|(r, s)| (*r, s.len())).collect();
        assert_eq!(shapes, [(0, 2), (2, 2)]);
        let (starts, entries) = list.by_action(3);
        assert_eq!(starts, [0, 1, 2, 4]);
        assert_eq!(entries, [(0, 0), (2, 2), (0, 1), (2, 3)]);
    }

    /// The sparse passes against the dense products they replace, on the listed actions.
    #[test]
    fn the_sparse_head_computes_the_dense_heads_values_on_the_listed_actions() {
        let (rows, width, actions) = (70, 5, 4);
        let value = |i: usize, s: usize| ((i * 37 + s * 11) % 17) as f32 / 8.0 - 1.0;
        let hidden: Vec<f32> = (0..rows * width).map(|i| value(i, 1)).collect();
        let weights: Vec<f32> = (0..width * actions).map(|i| value(i, 2)).collect();
        let bias: Vec<f32> = (0..actions).map(|i| value(i, 3)).collect();
        let mask: Vec<bool> = (0..rows * actions).map(|i| i % 3 != 1).collect();
        let list = RowActions::from_mask(&mask, actions);
        let mut weights_t = vec![0.0; width * actions];
        transpose(&weights, width, actions, &mut weights_t);
        let head = Head {
            weights_t: &weights_t,
            bias: &bias,
            width,
        };
        let mut logits = Vec::new();
        forward(&head, &hidden, &list, &mut logits);
        let d: Vec<f32> = (0..list.len()).map(|k| value(k, 4)).collect();
        let mut dense_d = vec![0.0; rows * actions];
        for r in 0..rows {
            for k in list.row(r) {
                let a = list.actions()[k] as usize;
                let expected: f32 = bias[a]
                    + (0..width)
                        .map(|i| hidden[r * width + i] * weights[i * actions + a])
                        .sum::<f32>();
                assert!((logits[k] - expected).abs() < 1e-5, "row {r} action {a}");
                dense_d[r * actions + a] = d[k];
            }
        }
        let (mut gw_t, mut gb, mut dh) = (
            vec![9.0; actions * width],
            vec![9.0; actions],
            vec![9.0; rows * width],
        );
        backward(&head, &hidden, &list, &d, &mut gw_t, &mut gb, &mut dh);
        for a in 0..actions {
            let sum: f32 = (0..rows).map(|r| dense_d[r * actions + a]).sum();
            assert!((gb[a] - sum).abs() < 1e-4);
            for i in 0..width {
                let g: f32 = (0..rows)
                    .map(|r| hidden[r * width + i] * dense_d[r * actions + a])
                    .sum();
                assert!((gw_t[a * width + i] - g).abs() < 1e-4, "weight {i},{a}");
            }
        }
        for r in 0..rows {
            for i in 0..width {
                let g: f32 = (0..actions)
                    .map(|a| dense_d[r * actions + a] * weights[i * actions + a])
                    .sum();
                assert!((dh[r * width + i] - g).abs() < 1e-4, "hidden {r},{i}");
            }
        }
    }
}
