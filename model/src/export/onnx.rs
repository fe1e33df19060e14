//! The network as an ONNX graph (opset 17): input `features` `[batch, input]`, outputs
//! `policy_logits` `[batch, actions]` (raw logits over the whole action space; a front end
//! masks the illegal ones) and `wdl` `[batch, 3]` (win/draw/loss probabilities for the
//! player to move), the batch dimension dynamic and the weights inside. Built with the
//! `onnx-protobuf` messages and serialised by the `protobuf` crate.

use onnx_protobuf::attribute_proto::AttributeType;
use onnx_protobuf::tensor_proto::DataType;
use onnx_protobuf::tensor_shape_proto::{Dimension, dimension};
use onnx_protobuf::type_proto::{self, Tensor as TensorType};
use onnx_protobuf::{
    AttributeProto, GraphProto, Message, ModelProto, NodeProto, OperatorSetIdProto,
    StringStringEntryProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};

use kvarn_game::Board;

use super::error::ExportError;
use crate::config::Dims;
use crate::graph::{GraphNet, board_matrices};
use crate::layer::linear_parts;
use crate::mlp::ResidualMlp;
use crate::network::{Model, Network};

/// The opset the graph is written for.
pub const OPSET: i64 = 17;
/// The ONNX IR version that goes with [`OPSET`].
pub const IR_VERSION: i64 = 8;

struct Builder {
    nodes: Vec<NodeProto>,
    initializers: Vec<TensorProto>,
    next: usize,
}

fn attr_int(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        type_: AttributeType::INT.into(),
        i: v,
        ..Default::default()
    }
}

fn attr_ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        type_: AttributeType::INTS.into(),
        ints: v.to_vec(),
        ..Default::default()
    }
}

impl Builder {
    fn new() -> Builder {
        Builder {
            nodes: Vec::new(),
            initializers: Vec::new(),
            next: 0,
        }
    }

    /// A float constant.
    fn weight(&mut self, name: &str, dims: &[usize], data: &[f32]) -> String {
        assert_eq!(dims.iter().product::<usize>(), data.len(), "{name}");
        self.initializers.push(TensorProto {
            name: name.into(),
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type: DataType::FLOAT as i32,
            raw_data: data.iter().flat_map(|v| v.to_le_bytes()).collect(),
            ..Default::default()
        });
        name.into()
    }

    /// A 1-D int64 constant (shapes, axes).
    fn ints(&mut self, name: &str, data: &[i64]) -> String {
        self.initializers.push(TensorProto {
            name: name.into(),
            dims: vec![data.len() as i64],
            data_type: DataType::INT64 as i32,
            raw_data: data.iter().flat_map(|v| v.to_le_bytes()).collect(),
            ..Default::default()
        });
        name.into()
    }

    /// A node; returns its (generated or given) output name.
    fn node(
        &mut self,
        op: &str,
        inputs: &[&str],
        output: Option<&str>,
        attrs: Vec<AttributeProto>,
    ) -> String {
        let out = output.map_or_else(
            || {
                self.next += 1;
                format!("{}_{}", op.to_lowercase(), self.next)
            },
            str::to_string,
        );
        self.nodes.push(NodeProto {
            name: format!("{op}_{}", self.nodes.len()),
            op_type: op.into(),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![out.clone()],
            attribute: attrs,
            ..Default::default()
        });
        out
    }

    /// `x · W + b` for a burn linear layer named `name`.
    fn linear(&mut self, name: &str, layer: &burn::nn::Linear, x: &str) -> String {
        let (w, dims, b) = linear_parts(layer);
        let w = self.weight(&format!("{name}.weight"), &dims, &w);
        let b = self.weight(&format!("{name}.bias"), &[dims[1]], &b);
        let m = self.node("MatMul", &[x, &w], None, vec![]);
        self.node("Add", &[&m, &b], None, vec![])
    }
}

fn float_value(name: &str, dims: &[Option<usize>]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| Dimension {
            value: Some(match d {
                Some(v) => dimension::Value::DimValue(*v as i64),
                None => dimension::Value::DimParam("batch".into()),
            }),
            ..Default::default()
        })
        .collect();
    ValueInfoProto {
        name: name.into(),
        type_: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(TensorType {
                elem_type: DataType::FLOAT as i32,
                shape: Some(TensorShapeProto {
                    dim,
                    ..Default::default()
                })
                .into(),
                ..Default::default()
            })),
            ..Default::default()
        })
        .into(),
        ..Default::default()
    }
}

/// The ONNX model of `network`, serialised; `metadata` goes into its metadata properties.
///
/// # Errors
/// Serialisation failed.
pub fn to_onnx(network: &Network, metadata: &[(String, String)]) -> Result<Vec<u8>, ExportError> {
    let graph = graph_proto(network);
    model_proto(graph, metadata)
        .write_to_bytes()
        .map_err(|e| ExportError::Encode(e.to_string()))
}

/// The graph: the architecture's layers up to the policy logits and the win/draw/loss
/// logits, then the two named outputs, with the input and outputs declared.
fn graph_proto(network: &Network) -> GraphProto {
    let dims = network.dims();
    let mut b = Builder::new();
    let (policy, value) = match &network.model {
        Model::Mlp(mlp) => mlp_heads(&mut b, mlp),
        Model::Graph(g) => graph_net_heads(&mut b, g, network),
    };
    b.node("Identity", &[&policy], Some("policy_logits"), vec![]);
    b.node("Softmax", &[&value], Some("wdl"), vec![attr_int("axis", 1)]);
    GraphProto {
        name: format!("kvarn_{}", network.config().describe().replace(' ', "_")),
        node: b.nodes,
        initializer: b.initializers,
        input: vec![float_value("features", &[None, Some(dims.input)])],
        output: vec![
            float_value("policy_logits", &[None, Some(dims.actions)]),
            float_value("wdl", &[None, Some(3)]),
        ],
        ..Default::default()
    }
}

/// The model around `graph`: IR version, opset, producer and `metadata`.
fn model_proto(graph: GraphProto, metadata: &[(String, String)]) -> ModelProto {
    ModelProto {
        ir_version: IR_VERSION,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: OPSET,
            ..Default::default()
        }],
        producer_name: "kvarn".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        graph: Some(graph).into(),
        metadata_props: metadata
            .iter()
            .map(|(k, v)| StringStringEntryProto {
                key: k.clone(),
                value: v.clone(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// The residual MLP: the stem, the residual blocks, and the policy and value layers;
/// returns the policy and win/draw/loss logits.
fn mlp_heads(b: &mut Builder, mlp: &ResidualMlp) -> (String, String) {
    let layers = mlp.layers();
    let n = layers.len();
    let stem = b.linear(&layers[0].0, layers[0].1, "features");
    let mut h = b.node("Relu", &[&stem], None, vec![]);
    for (name, layer) in &layers[1..n - 2] {
        let t = b.linear(name, layer, &h);
        let s = b.node("Add", &[&h, &t], None, vec![]);
        h = b.node("Relu", &[&s], None, vec![]);
    }
    let p = b.linear(&layers[n - 2].0, layers[n - 2].1, &h);
    let v = b.linear(&layers[n - 1].0, layers[n - 1].1, &h);
    (p, v)
}

/// The graph network, in the order of its forward pass: the input split into planes and
/// scalars, the embedding, the message-passing layers and the two heads; returns the
/// policy and win/draw/loss logits.
fn graph_net_heads(b: &mut Builder, g: &GraphNet, network: &Network) -> (String, String) {
    let dims = network.dims();
    let (planes, scalars) = split_features(b, dims);
    let (h, c) = graph_embedding(b, g, &planes, &scalars);
    let h = graph_layers(b, g, network.rules().board(), dims.points, h);
    let policy = graph_policy(b, g, dims.points, c, &h);
    let value = graph_value(b, g, &h);
    (policy, value)
}

/// The input `[batch, input]` as the per-point planes `[batch, points, 3]` and the
/// scalars `[batch, scalars]`.
fn split_features(b: &mut Builder, dims: Dims) -> (String, String) {
    let n = dims.points;
    let planes_flat = {
        let starts = b.ints("planes.starts", &[0]);
        let ends = b.ints("planes.ends", &[3 * n as i64]);
        let axes = b.ints("axis1", &[1]);
        b.node("Slice", &["features", &starts, &ends, &axes], None, vec![])
    };
    let shape = b.ints("planes.shape", &[-1, 3, n as i64]);
    let planes = b.node("Reshape", &[&planes_flat, &shape], None, vec![]);
    let planes = b.node(
        "Transpose",
        &[&planes],
        None,
        vec![attr_ints("perm", &[0, 2, 1])],
    );
    let scalars = {
        let starts = b.ints("scalars.starts", &[3 * n as i64]);
        let ends = b.ints("scalars.ends", &[dims.input as i64]);
        b.node(
            "Slice",
            &["features", &starts, &ends, "axis1"],
            None,
            vec![],
        )
    };
    (planes, scalars)
}

/// embed(concat(planes, scalars)) split into the planes' and the scalars' parts, the
/// scalars' broadcast over the points; returns the points' vectors `[batch, points, c]`
/// after the ReLU, and their width `c`.
fn graph_embedding(b: &mut Builder, g: &GraphNet, planes: &str, scalars: &str) -> (String, usize) {
    let (w, wd, bias) = linear_parts(&g.embed);
    let c = wd[1];
    let wp = b.weight("embed.weight.planes", &[3, c], &w[..3 * c]);
    let ws = b.weight("embed.weight.scalars", &[wd[0] - 3, c], &w[3 * c..]);
    let eb = b.weight("embed.bias", &[c], &bias);
    let from_planes = b.node("MatMul", &[planes, &wp], None, vec![]);
    let from_scalars = b.node("MatMul", &[scalars, &ws], None, vec![]);
    let from_scalars = b.node("Add", &[&from_scalars, &eb], None, vec![]);
    let from_scalars = b.node("Unsqueeze", &[&from_scalars, "axis1"], None, vec![]);
    let e = b.node("Add", &[&from_planes, &from_scalars], None, vec![]);
    (b.node("Relu", &[&e], None, vec![]), c)
}

/// The message-passing layers over the board's row-normalised adjacency and mill-mate
/// matrices (constants of the graph), each `relu(h + own + adjacent + mill + global)`.
fn graph_layers(b: &mut Builder, g: &GraphNet, board: &Board, n: usize, mut h: String) -> String {
    let (adj, mill) = board_matrices(board);
    let adj = b.weight("board.adjacency", &[n, n], &adj);
    let mill = b.weight("board.mill_mates", &[n, n], &mill);
    for (i, layer) in g.layers.iter().enumerate() {
        let own = b.linear(&format!("layers.{i}.own"), &layer.own, &h);
        let a = b.node("MatMul", &[&adj, &h], None, vec![]);
        let a = b.linear(&format!("layers.{i}.adjacent"), &layer.adjacent, &a);
        let m = b.node("MatMul", &[&mill, &h], None, vec![]);
        let m = b.linear(&format!("layers.{i}.mill"), &layer.mill, &m);
        let gm = b.node(
            "ReduceMean",
            &[&h],
            None,
            vec![attr_ints("axes", &[1]), attr_int("keepdims", 1)],
        );
        let gm = b.linear(&format!("layers.{i}.global"), &layer.global, &gm);
        let u = b.node("Add", &[&own, &a], None, vec![]);
        let u = b.node("Add", &[&u, &m], None, vec![]);
        let u = b.node("Add", &[&u, &gm], None, vec![]);
        let s = b.node("Add", &[&h, &u], None, vec![]);
        h = b.node("Relu", &[&s], None, vec![]);
    }
    h
}

/// The policy logits in the action space's order: placements, shifts (`q_i . k_j /
/// sqrt(c)`, from-major) and removals.
fn graph_policy(b: &mut Builder, g: &GraphNet, n: usize, c: usize, h: &str) -> String {
    let flat = b.ints("points.shape", &[-1, n as i64]);
    let place = b.linear("place", &g.place, h);
    let place = b.node("Reshape", &[&place, &flat], None, vec![]);
    let remove = b.linear("remove", &g.remove, h);
    let remove = b.node("Reshape", &[&remove, &flat], None, vec![]);
    let q = b.linear("shift_from", &g.shift_from, h);
    let k = b.linear("shift_to", &g.shift_to, h);
    let kt = b.node(
        "Transpose",
        &[&k],
        None,
        vec![attr_ints("perm", &[0, 2, 1])],
    );
    let qk = b.node("MatMul", &[&q, &kt], None, vec![]);
    let scale = b.weight("shift.scale", &[1], &[1.0 / (c as f32).sqrt()]);
    let qk = b.node("Mul", &[&qk, &scale], None, vec![]);
    let pairs = b.ints("pairs.shape", &[-1, (n * n) as i64]);
    let shift = b.node("Reshape", &[&qk, &pairs], None, vec![]);
    b.node(
        "Concat",
        &[&place, &shift, &remove],
        None,
        vec![attr_int("axis", 1)],
    )
}

/// The win/draw/loss logits from the points' mean and maximum through the value MLP.
fn graph_value(b: &mut Builder, g: &GraphNet, h: &str) -> String {
    let mean = b.node(
        "ReduceMean",
        &[h],
        None,
        vec![attr_ints("axes", &[1]), attr_int("keepdims", 0)],
    );
    let max = b.node(
        "ReduceMax",
        &[h],
        None,
        vec![attr_ints("axes", &[1]), attr_int("keepdims", 0)],
    );
    let pooled = b.node("Concat", &[&mean, &max], None, vec![attr_int("axis", 1)]);
    let vh = b.linear("value_hidden", &g.value_hidden, &pooled);
    let vh = b.node("Relu", &[&vh], None, vec![]);
    b.linear("value", &g.value, &vh)
}
