//! Widening: a network with more hidden units per layer that computes exactly what a
//! trained one computes, so that a larger network can go on from a trained player rather
//! than start again from nothing (Net2WiderNet, Chen, Goodfellow and Shlens 2016, in its
//! zero form). Each new unit gets fresh incoming weights and zero outgoing weights: it is
//! active, so training reaches it from the first step, yet it adds nothing to any output
//! until training gives it a use.

use burn::tensor::Device;

use crate::config::NetConfig;
use crate::file::ModelFileError;
use crate::layer::linear_parts;
use crate::network::{Model, Network};

/// `network` with `hidden` units in each layer, its outputs unchanged. The new units'
/// incoming weights are drawn as a fresh network's are, with `seed`.
///
/// # Errors
/// [`ModelFileError::Widen`] for a network other than the MLP, or a width not above
/// the network's.
pub fn widen(
    network: &Network,
    hidden: usize,
    seed: u64,
    device: &Device,
) -> Result<Network, ModelFileError> {
    let (
        Model::Mlp(old),
        &NetConfig::Mlp {
            hidden: had,
            blocks,
            ownership_head,
        },
    ) = (&network.model, network.config())
    else {
        return Err(refuse(format!(
            "only the MLP can be widened, not {}",
            network.config().describe()
        )));
    };
    if hidden <= had {
        return Err(refuse(format!(
            "the network already has {had} units a layer; give a width above it"
        )));
    }
    let config = NetConfig::Mlp {
        hidden,
        blocks,
        ownership_head,
    };
    let fresh =
        Network::new(*network.rules(), config, seed, device).map_err(|e| refuse(e.to_string()))?;
    let Model::Mlp(new) = &fresh.model else {
        unreachable!("an MLP configuration makes an MLP");
    };
    let old_layers = old.training_layers();
    let layers: Vec<(Vec<f32>, Vec<f32>)> = new
        .training_layers()
        .iter()
        .zip(&old_layers)
        .map(|((_, wide), (_, narrow))| embed(linear_parts(narrow), linear_parts(wide)))
        .collect();
    let model = Model::Mlp(new.with_parameters(layers.iter().map(|(w, b)| (&w[..], &b[..]))));
    Ok(fresh.with_model(model))
}

/// The wide layer's parameters with the narrow layer's in their top-left corner, and
/// zeros where a new input unit would feed an old output (so old units, and the heads,
/// see only old units); a new output unit keeps its fresh weights and bias.
fn embed(
    (nw, [nin, nout], nb): (Vec<f32>, [usize; 2], Vec<f32>),
    (mut w, [win, wout], mut b): (Vec<f32>, [usize; 2], Vec<f32>),
) -> (Vec<f32>, Vec<f32>) {
    for i in 0..win {
        for j in 0..nout {
            w[i * wout + j] = if i < nin { nw[i * nout + j] } else { 0.0 };
        }
    }
    b[..nout].copy_from_slice(&nb);
    (w, b)
}

fn refuse(reason: String) -> ModelFileError {
    ModelFileError::Widen { reason }
}
