//! Export for front ends that do not run burn: the network as ONNX, the weights as
//! safetensors with PyTorch's names, and a model card that says what every input and
//! output means.

pub mod card;
mod error;
pub mod onnx;
pub mod torch;

use crate::network::Network;
pub use error::ExportError;

/// The export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `model.onnx`.
    Onnx,
    /// `model.safetensors` with PyTorch names.
    Safetensors,
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "onnx" => Ok(Format::Onnx),
            "safetensors" => Ok(Format::Safetensors),
            other => Err(format!(
                "unknown export format `{other}` (onnx or safetensors)"
            )),
        }
    }
}

/// Writes `network` in `format` and its model card (`model-card.json`) into `dir`,
/// atomically; returns the paths written.
///
/// # Errors
/// A file cannot be written.
pub fn export(
    network: &Network,
    provenance: &crate::file::Provenance,
    format: Format,
    dir: &std::path::Path,
) -> Result<Vec<std::path::PathBuf>, ExportError> {
    let card_name = "model-card.json";
    let (name, bytes) = match format {
        Format::Onnx => {
            let meta = vec![
                ("kvarn.model_card".to_string(), card_name.to_string()),
                ("kvarn.rules".to_string(), network.rules().to_string()),
                (
                    "kvarn.encoding_version".to_string(),
                    kvarn_game::ENCODING_VERSION.to_string(),
                ),
            ];
            ("model.onnx", onnx::to_onnx(network, &meta)?)
        }
        Format::Safetensors => {
            let mut meta = std::collections::HashMap::new();
            meta.insert("format".to_string(), "pt".to_string());
            meta.insert("kvarn.model_card".to_string(), card_name.to_string());
            ("model.safetensors", torch::to_safetensors(network, meta)?)
        }
    };
    let card = card::model_card(network, provenance, vec![name.to_string()]);
    let card = serde_json::to_vec_pretty(&card).map_err(|e| ExportError::Encode(e.to_string()))?;
    let mut written = Vec::new();
    for (file, data) in [(name, bytes), (card_name, card)] {
        let path = dir.join(file);
        kvarn_storage::write_atomically(&path, &data).map_err(|e| ExportError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        written.push(path);
    }
    Ok(written)
}
