//! The graph network: one vector per board point, message passing along the board's lines
//! and mills, and a policy head that scores points and (from, to) pairs.
//!
//! The input encoding is split back into per-point features (own, opponent, empty) and the
//! scalars, which every point also sees. A layer updates each point from itself, the mean
//! of its neighbours, the mean of the points it shares a mill with, and the mean of the
//! whole board:
//!
//! `h_i <- relu(h_i + S h_i + A mean_adj(h)_i + M mean_mill(h)_i + G mean(h))`
//!
//! Placement and removal logits are linear in `h_i`; the shift logit from `i` to `j` is
//! `q_i . k_j / sqrt(c)`, so the output keeps the action space's order (place, shift
//! from-major, remove).

use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, TensorData, s};
use kvarn_game::{Board, encoding::SCALAR_FEATURES};

use crate::config::Dims;

/// One message-passing layer.
#[derive(Module, Debug)]
pub struct GraphLayer {
    pub(crate) own: Linear,
    pub(crate) adjacent: Linear,
    pub(crate) mill: Linear,
    pub(crate) global: Linear,
}

/// The graph network (see the module documentation and [`crate::NetConfig::Graph`]).
#[derive(Module, Debug)]
pub struct GraphNet {
    pub(crate) embed: Linear,
    pub(crate) layers: Vec<GraphLayer>,
    pub(crate) place: Linear,
    pub(crate) remove: Linear,
    pub(crate) shift_from: Linear,
    pub(crate) shift_to: Linear,
    pub(crate) value_hidden: Linear,
    pub(crate) value: Linear,
    /// Row-normalised adjacency `[1, n, n]` (a constant, rebuilt from the board).
    adjacency: Tensor<3>,
    /// Row-normalised "shares a mill" matrix `[1, n, n]` (a constant).
    mill_mates: Tensor<3>,
}

/// Row-normalised `[n, n]` matrices of the board's lines and of its mill partners, points
/// in the encoding's dense order.
pub fn board_matrices(board: &Board) -> (Vec<f32>, Vec<f32>) {
    let n = board.len();
    let mut adj = vec![0f32; n * n];
    let mut mill = vec![0f32; n * n];
    for i in 0..n {
        let sq = board.square_at(i).expect("dense index");
        for t in board.adjacent(sq) {
            adj[i * n + board.local_index(t)] = 1.0;
        }
        for m in board.mills() {
            if m.contains(sq) {
                for t in *m {
                    if t != sq {
                        mill[i * n + board.local_index(t)] += 1.0;
                    }
                }
            }
        }
    }
    for mat in [&mut adj, &mut mill] {
        for row in mat.chunks_mut(n) {
            let sum: f32 = row.iter().sum();
            if sum > 0.0 {
                row.iter_mut().for_each(|v| *v /= sum);
            }
        }
    }
    (adj, mill)
}

impl GraphNet {
    /// A freshly initialised network for `board`.
    pub fn new(
        board: &Board,
        dims: Dims,
        channels: usize,
        layers: usize,
        value_hidden: usize,
        device: &Device,
    ) -> GraphNet {
        let n = dims.points;
        let linear = |i, o| LinearConfig::new(i, o).init(device);
        let (adj, mill) = board_matrices(board);
        let constant = |v: Vec<f32>| Tensor::<3>::from_data(TensorData::new(v, [1, n, n]), device);
        GraphNet {
            embed: linear(3 + SCALAR_FEATURES, channels),
            layers: (0..layers)
                .map(|_| GraphLayer {
                    own: linear(channels, channels),
                    adjacent: LinearConfig::new(channels, channels)
                        .with_bias(false)
                        .init(device),
                    mill: LinearConfig::new(channels, channels)
                        .with_bias(false)
                        .init(device),
                    global: LinearConfig::new(channels, channels)
                        .with_bias(false)
                        .init(device),
                })
                .collect(),
            place: linear(channels, 1),
            remove: linear(channels, 1),
            shift_from: linear(channels, channels),
            shift_to: linear(channels, channels),
            value_hidden: linear(2 * channels, value_hidden),
            value: linear(value_hidden, 3),
            adjacency: constant(adj),
            mill_mates: constant(mill),
        }
    }

    /// Policy logits `[batch, actions]` and win/draw/loss logits `[batch, 3]`.
    pub fn forward(&self, input: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let [batch, _] = input.dims();
        let [_, n, _] = self.adjacency.dims();
        let planes: Tensor<3> = input
            .clone()
            .slice(s![.., 0..3 * n])
            .reshape([batch, 3, n])
            .swap_dims(1, 2);
        let scalars: Tensor<3> = input
            .slice(s![.., 3 * n..3 * n + SCALAR_FEATURES])
            .reshape([batch, 1, SCALAR_FEATURES])
            .repeat_dim(1, n);
        let mut h = relu(self.embed.forward(Tensor::cat(vec![planes, scalars], 2)));
        for layer in &self.layers {
            let adjacent = self.adjacency.clone().matmul(h.clone());
            let mill = self.mill_mates.clone().matmul(h.clone());
            let global = h.clone().mean_dim(1);
            let update = layer.own.forward(h.clone())
                + layer.adjacent.forward(adjacent)
                + layer.mill.forward(mill)
                + layer.global.forward(global);
            h = relu(h + update);
        }
        let channels = h.dims()[2];
        let place: Tensor<2> = self.place.forward(h.clone()).reshape([batch, n]);
        let remove: Tensor<2> = self.remove.forward(h.clone()).reshape([batch, n]);
        let q = self.shift_from.forward(h.clone());
        let k = self.shift_to.forward(h.clone());
        let shift: Tensor<2> = q
            .matmul(k.swap_dims(1, 2))
            .mul_scalar(1.0 / (channels as f32).sqrt())
            .reshape([batch, n * n]);
        let policy = Tensor::cat(vec![place, shift, remove], 1);
        let pooled = Tensor::cat(
            vec![
                h.clone().mean_dim(1).reshape([batch, channels]),
                h.max_dim(1).reshape([batch, channels]),
            ],
            1,
        );
        let value = self.value.forward(relu(self.value_hidden.forward(pooled)));
        (policy, value)
    }
}
