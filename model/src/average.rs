//! Weight averaging: one network whose parameters are the mean of several networks' of the
//! same architecture, such as a run's last generations. Along a run's trajectory at a low
//! learning rate consecutive generations lie in one basin, and their mean is a smoother,
//! usually stronger player than any single one (stochastic weight averaging; KataGo ships
//! averaged networks). The MLP and the graph network have no normalisation statistics, so
//! the mean of the parameters is the whole model.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use burn::tensor::Device;
use safetensors::{Dtype, SafeTensors, tensor::TensorView};

use crate::file::{
    self, ModelFileError, ModelHeader, Provenance, SAFETENSORS_KEY, reseal_safetensors,
};
use crate::network::Network;

/// The network whose parameters are the mean of `networks`' (each counted once), with
/// `provenance` in its header.
///
/// # Errors
/// [`ModelFileError::Average`] when there is no network, or they differ in rules or
/// architecture; other errors only where the parameters cannot be serialised.
pub fn average(
    networks: &[&Network],
    provenance: &Provenance,
    device: &Device,
) -> Result<Network, ModelFileError> {
    let first = networks
        .first()
        .ok_or_else(|| refuse("no model given".into()))?;
    for (i, n) in networks.iter().enumerate() {
        if n.rules() != first.rules() || n.config() != first.config() {
            return Err(refuse(format!(
                "model {} is {} for {}, model 1 is {} for {}",
                i + 1,
                n.config().describe(),
                n.rules(),
                first.config().describe(),
                first.rules()
            )));
        }
    }
    let mut sums: BTreeMap<String, (Vec<usize>, Vec<f64>)> = BTreeMap::new();
    for network in networks {
        add_parameters(network, &mut sums)?;
    }
    let scale = 1.0 / networks.len() as f64;
    let means: Vec<(String, Vec<usize>, Vec<u8>)> = sums
        .into_iter()
        .map(|(name, (shape, sum))| {
            let bytes = sum
                .iter()
                .flat_map(|s| ((s * scale) as f32).to_le_bytes())
                .collect();
            (name, shape, bytes)
        })
        .collect();
    let header = ModelHeader {
        encoding_version: kvarn_game::ENCODING_VERSION,
        rules: *first.rules(),
        network: first.config().clone(),
        provenance: provenance.clone(),
    };
    let bytes = safetensors_of(&means, &header)?;
    Ok(file::from_bytes(Path::new("the averaged model"), bytes, true, device)?.0)
}

/// Adds `network`'s parameters, by name, to `sums`.
fn add_parameters(
    network: &Network,
    sums: &mut BTreeMap<String, (Vec<usize>, Vec<f64>)>,
) -> Result<(), ModelFileError> {
    let name = Path::new("a model to average");
    let bytes = file::to_bytes(network, &Provenance::default(), true, name)?;
    let tensors = SafeTensors::deserialize(&bytes).map_err(|e| refuse(e.to_string()))?;
    for (tensor, view) in tensors.tensors() {
        if view.dtype() != Dtype::F32 {
            return Err(refuse(format!("{tensor} is {:?}, not F32", view.dtype())));
        }
        let (shape, sum) = sums
            .entry(tensor)
            .or_insert_with(|| (view.shape().to_vec(), vec![0.0; view.data().len() / 4]));
        if shape != view.shape() {
            return Err(refuse(format!("shapes {shape:?} and {:?}", view.shape())));
        }
        for (s, b) in sum.iter_mut().zip(view.data().chunks_exact(4)) {
            *s += f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
    }
    Ok(())
}

/// A sealed safetensors model file of `tensors` (name, shape, little-endian F32 bytes).
fn safetensors_of(
    tensors: &[(String, Vec<usize>, Vec<u8>)],
    header: &ModelHeader,
) -> Result<Vec<u8>, ModelFileError> {
    let views = tensors
        .iter()
        .map(|(name, shape, bytes)| {
            TensorView::new(Dtype::F32, shape.clone(), bytes)
                .map(|v| (name.clone(), v))
                .map_err(|e| refuse(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let json = serde_json::to_string(header).map_err(|e| refuse(e.to_string()))?;
    let metadata = HashMap::from([(SAFETENSORS_KEY.to_string(), json)]);
    let bytes = safetensors::serialize(views, Some(metadata)).map_err(|e| refuse(e.to_string()))?;
    reseal_safetensors(&bytes)
}

fn refuse(reason: String) -> ModelFileError {
    ModelFileError::Average { reason }
}
