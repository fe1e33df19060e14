//! The weights as safetensors with the names and layouts of the equivalent PyTorch
//! modules: `nn.Linear` weights are `[out, in]` (burn keeps `[in, out]`), biases `[out]`,
//! named by the module path (`stem.weight`, `blocks.0.bias`, `layers.1.mill.weight`, ...).
//! The graph network's board matrices are included as buffers (`board.adjacency`,
//! `board.mill_mates`).

use std::collections::HashMap;

use safetensors::tensor::{Dtype, TensorView};

use super::error::ExportError;
use crate::graph::board_matrices;
use crate::layer::linear_parts;
use crate::network::{Model, Network};

/// The tensors in PyTorch's layout, by name: `(shape, data)`.
pub fn torch_tensors(network: &Network) -> Vec<(String, Vec<usize>, Vec<f32>)> {
    let mut out = Vec::new();
    let mut linear = |name: &str, layer: &burn::nn::Linear, bias: bool| {
        let (w, [i, o], b) = linear_parts(layer);
        let mut t = vec![0f32; w.len()];
        for r in 0..i {
            for c in 0..o {
                t[c * i + r] = w[r * o + c];
            }
        }
        out.push((format!("{name}.weight"), vec![o, i], t));
        if bias {
            out.push((format!("{name}.bias"), vec![o], b));
        }
    };
    match &network.model {
        Model::Mlp(mlp) => {
            for (name, layer) in mlp.layers() {
                linear(&name, layer, true);
            }
        }
        Model::Graph(g) => {
            linear("embed", &g.embed, true);
            for (i, l) in g.layers.iter().enumerate() {
                linear(&format!("layers.{i}.own"), &l.own, true);
                linear(&format!("layers.{i}.adjacent"), &l.adjacent, false);
                linear(&format!("layers.{i}.mill"), &l.mill, false);
                linear(&format!("layers.{i}.global"), &l.global, false);
            }
            linear("place", &g.place, true);
            linear("remove", &g.remove, true);
            linear("shift_from", &g.shift_from, true);
            linear("shift_to", &g.shift_to, true);
            linear("value_hidden", &g.value_hidden, true);
            linear("value", &g.value, true);
            let n = network.dims().points;
            let (adj, mill) = board_matrices(network.rules().board());
            out.push(("board.adjacency".into(), vec![n, n], adj));
            out.push(("board.mill_mates".into(), vec![n, n], mill));
        }
    }
    out
}

/// The safetensors file of [`torch_tensors`], with `metadata` in its header.
///
/// # Errors
/// Serialisation failed.
pub fn to_safetensors(
    network: &Network,
    metadata: HashMap<String, String>,
) -> Result<Vec<u8>, ExportError> {
    let tensors = torch_tensors(network);
    let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = tensors
        .into_iter()
        .map(|(n, s, d)| (n, s, d.iter().flat_map(|v| v.to_le_bytes()).collect()))
        .collect();
    let views = bytes
        .iter()
        .map(|(n, s, d)| {
            TensorView::new(Dtype::F32, s.clone(), d)
                .map(|v| (n.clone(), v))
                .map_err(|e| ExportError::Encode(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    safetensors::serialize(views, Some(metadata)).map_err(|e| ExportError::Encode(e.to_string()))
}
