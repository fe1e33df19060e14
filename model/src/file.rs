//! Model files: the parameters with the rules, the network configuration and the
//! encoding version inside, so that a file is never loaded into a network it does not fit.
//!
//! Two formats:
//! - `.kvmodel` (the default): a Kvarn container (`kvarn_storage`: magic `KVARNMDL`,
//!   version, JSON header, CRC-32) whose payload is burn's own record (burnpack);
//! - `.safetensors`: the same parameters in the safetensors format, the header in its
//!   `__metadata__` under the key `kvarn`, for tools outside Kvarn.
//!
//! Both are written atomically.

use std::path::Path;

use burn::module::Module;
use burn::store::{ModuleRecord, ModuleSnapshot, SafetensorsStore};
use burn::tensor::{Bytes, Device};
use kvarn_game::{ENCODING_VERSION, Rules};
use kvarn_storage::{ContainerError, container_bytes, parse_container, write_atomically};
use serde::{Deserialize, Serialize};

use crate::config::NetConfig;
use crate::network::Network;

/// Magic bytes of a `.kvmodel` file.
pub const MODEL_MAGIC: &[u8; 8] = b"KVARNMDL";
/// Version of the `.kvmodel` layout.
pub const MODEL_FORMAT_VERSION: u32 = 1;
/// Key of the Kvarn header in a safetensors file's metadata.
pub const SAFETENSORS_KEY: &str = "kvarn";

/// Where a model came from, carried along for model cards and reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Provenance {
    /// The training run's folder or name.
    pub run: Option<String>,
    /// The generation within the run.
    pub generation: Option<u32>,
    /// Training steps behind the parameters.
    pub steps: Option<u64>,
    /// Free text: how it was made, evaluation figures.
    pub note: Option<String>,
}

/// What a model file says about its contents, besides the parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelHeader {
    /// `kvarn_game::ENCODING_VERSION` of the encoding the network was trained on.
    pub encoding_version: u32,
    /// The rules it plays.
    pub rules: Rules,
    /// Its architecture.
    pub network: NetConfig,
    /// Where it came from.
    #[serde(default)]
    pub provenance: Provenance,
}

/// Why a model file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ModelFileError {
    /// The container is unreadable, of another kind or version, or damaged.
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// Reading or writing failed.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// What failed.
        message: String,
    },
    /// The file was made for another encoding.
    #[error(
        "{path}: the model uses input encoding version {found}, this build uses {expected}; retrain or export it with a matching build"
    )]
    Encoding {
        /// The file.
        path: String,
        /// The file's encoding version.
        found: u32,
        /// This build's.
        expected: u32,
    },
    /// The parameters do not fit the architecture the header names.
    #[error("{path}: the parameters do not fit the network {network}: {message}")]
    Mismatch {
        /// The file.
        path: String,
        /// The architecture from the header.
        network: String,
        /// What did not fit.
        message: String,
    },
    /// The model plays other rules than the games it was asked for: another variant or
    /// other rule switches change what its input and moves mean.
    #[error("{path} was trained for {trained}, not {wanted}")]
    WrongRules {
        /// The file.
        path: String,
        /// The rules in its header.
        trained: Rules,
        /// The rules asked for.
        wanted: Rules,
    },
    /// The header names an impossible network.
    #[error("{path}: {message}")]
    Config {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

impl ModelHeader {
    /// Checks that the model plays `rules`; `path` names it in the error.
    ///
    /// # Errors
    /// [`ModelFileError::WrongRules`].
    pub fn check_rules(&self, path: &Path, rules: &Rules) -> Result<(), ModelFileError> {
        if self.rules == *rules {
            Ok(())
        } else {
            Err(ModelFileError::WrongRules {
                path: path.display().to_string(),
                trained: self.rules,
                wanted: *rules,
            })
        }
    }
}

/// The file format, chosen by extension: `.safetensors`, anything else `.kvmodel`.
fn is_safetensors(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "safetensors")
}

fn header_of(network: &Network, provenance: &Provenance) -> ModelHeader {
    ModelHeader {
        encoding_version: ENCODING_VERSION,
        rules: *network.rules(),
        network: network.config().clone(),
        provenance: provenance.clone(),
    }
}

/// Saves `network` to `path` (format by extension, see the module documentation).
///
/// # Errors
/// The parameters cannot be serialised or the file written.
pub fn save(network: &Network, provenance: &Provenance, path: &Path) -> Result<(), ModelFileError> {
    let bytes = to_bytes(network, provenance, is_safetensors(path), path)?;
    write_atomically(path, &bytes).map_err(|e| ModelFileError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

/// The bytes of a model file, `.safetensors` layout when `safetensors`, else `.kvmodel`
/// (`name` only names the file in errors); for files that hold a model among other things,
/// such as training checkpoints.
///
/// # Errors
/// The parameters cannot be serialised.
pub fn to_bytes(
    network: &Network,
    provenance: &Provenance,
    safetensors: bool,
    name: &Path,
) -> Result<Vec<u8>, ModelFileError> {
    let name = name.display().to_string();
    let io = |message: String| ModelFileError::Io {
        path: name.clone(),
        message,
    };
    let header = header_of(network, provenance);
    if safetensors {
        let json = serde_json::to_string(&header).map_err(|e| io(e.to_string()))?;
        let mut store = SafetensorsStore::from_bytes(None).metadata(SAFETENSORS_KEY, json);
        network
            .model
            .save_into(&mut store)
            .map_err(|e| io(e.to_string()))?;
        store.get_bytes().map_err(|e| io(e.to_string()))
    } else {
        let record = network
            .model
            .clone()
            .into_record()
            .into_bytes()
            .map_err(|e| io(e.to_string()))?;
        container_bytes(MODEL_MAGIC, MODEL_FORMAT_VERSION, &header, &record[..])
            .map_err(|e| io(e.to_string()))
    }
}

/// Reads only the header of a model file.
///
/// # Errors
/// The file is unreadable, damaged, or not a model file.
pub fn read_header(path: &Path) -> Result<ModelHeader, ModelFileError> {
    Ok(read_parts(path)?.0)
}

enum Params {
    Record(Vec<u8>),
    Safetensors(Vec<u8>),
}

fn read_parts(path: &Path) -> Result<(ModelHeader, Params), ModelFileError> {
    let bytes = std::fs::read(path).map_err(|e| ModelFileError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    parse_parts(path, bytes, is_safetensors(path))
}

fn parse_parts(
    path: &Path,
    bytes: Vec<u8>,
    safetensors: bool,
) -> Result<(ModelHeader, Params), ModelFileError> {
    let name = path.display().to_string();
    let (header, params) = if safetensors {
        let bad = |message: String| ModelFileError::Config {
            path: name.clone(),
            message,
        };
        let (_, meta) = safetensors::SafeTensors::read_metadata(&bytes)
            .map_err(|e| bad(format!("not a readable safetensors file: {e}")))?;
        let json = meta
            .metadata()
            .as_ref()
            .and_then(|m| m.get(SAFETENSORS_KEY))
            .ok_or_else(|| {
                bad(format!(
                    "no `{SAFETENSORS_KEY}` entry in the metadata: not a Kvarn model"
                ))
            })?;
        let header: ModelHeader =
            serde_json::from_str(json).map_err(|e| bad(format!("bad Kvarn header: {e}")))?;
        (header, Params::Safetensors(bytes))
    } else {
        let (header, payload) = parse_container(
            path,
            &bytes,
            MODEL_MAGIC,
            "Kvarn model",
            MODEL_FORMAT_VERSION,
        )?;
        (header, Params::Record(payload))
    };
    let header: ModelHeader = header;
    if header.encoding_version != ENCODING_VERSION {
        return Err(ModelFileError::Encoding {
            path: name,
            found: header.encoding_version,
            expected: ENCODING_VERSION,
        });
    }
    Ok((header, params))
}

/// Loads a model file onto `device`, after checking its encoding version and that every
/// parameter fits the architecture its header names.
///
/// # Errors
/// See [`ModelFileError`].
pub fn load(path: &Path, device: &Device) -> Result<(Network, ModelHeader), ModelFileError> {
    let (header, params) = read_parts(path)?;
    build(path, header, params, device)
}

/// Loads a model file for games of `rules`, as [`load`] does, refusing a model trained
/// for other rules before its parameters are read into a network.
///
/// # Errors
/// See [`ModelFileError`]; [`ModelFileError::WrongRules`] for other rules.
pub fn load_for_rules(
    path: &Path,
    rules: &Rules,
    device: &Device,
) -> Result<(Network, ModelHeader), ModelFileError> {
    let (header, params) = read_parts(path)?;
    header.check_rules(path, rules)?;
    build(path, header, params, device)
}

/// Loads a model from the bytes of a model file (`name` names it in errors), as
/// [`load`] does from a file.
///
/// # Errors
/// See [`ModelFileError`].
pub fn from_bytes(
    name: &Path,
    bytes: Vec<u8>,
    safetensors: bool,
    device: &Device,
) -> Result<(Network, ModelHeader), ModelFileError> {
    let (header, params) = parse_parts(name, bytes, safetensors)?;
    build(name, header, params, device)
}

fn build(
    path: &Path,
    header: ModelHeader,
    params: Params,
    device: &Device,
) -> Result<(Network, ModelHeader), ModelFileError> {
    let name = path.display().to_string();
    let network = Network::new(header.rules, header.network.clone(), device).map_err(|e| {
        ModelFileError::Config {
            path: name.clone(),
            message: e.to_string(),
        }
    })?;
    let mismatch = |message: String| ModelFileError::Mismatch {
        path: name.clone(),
        network: header.network.describe(),
        message,
    };
    let model = match params {
        Params::Record(bytes) => {
            let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes))
                .map_err(|e| mismatch(e.to_string()))?;
            network
                .model
                .clone()
                .try_load_record(record)
                .map_err(|e| mismatch(e.to_string()))?
        }
        Params::Safetensors(bytes) => {
            let mut store = SafetensorsStore::from_bytes(Some(bytes));
            let mut model = network.model.clone();
            let result = model
                .load_from(&mut store)
                .map_err(|e| mismatch(e.to_string()))?;
            if !result.is_success() || !result.missing.is_empty() || !result.unused.is_empty() {
                return Err(mismatch(format!("{result}")));
            }
            model
        }
    };
    Ok((network.with_model(model), header))
}
