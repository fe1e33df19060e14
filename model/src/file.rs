//! Model files: the parameters with the rules, the network configuration and the
//! encoding version inside, so that a file is never loaded into a network it does not fit.
//!
//! Two formats:
//! - `.kvmodel` (the default): a Kvarn container (`kvarn_storage`: magic `KVARNMDL`,
//!   version, JSON header, CRC-32) whose payload is burn's own record (burnpack);
//! - `.safetensors`: the same parameters in the safetensors format, the header in its
//!   `__metadata__` under the key `kvarn`, for tools outside Kvarn, and beside it, under
//!   `kvarn_crc32`, a CRC-32 of that header and of every tensor (name, dtype, shape and
//!   bytes, in name order), so that a changed weight is refused like a damaged `.kvmodel`.
//!   A file without it (written before the checksum existed, or not by Kvarn) is refused
//!   too, with the key named: no compatibility was promised, and loading unchecked weights
//!   quietly is what the checksum is there to prevent.
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
use crate::network::{Model, Network};

/// Magic bytes of a `.kvmodel` file.
pub const MODEL_MAGIC: &[u8; 8] = b"KVARNMDL";
/// Version of the `.kvmodel` layout.
pub const MODEL_FORMAT_VERSION: u32 = 1;
/// Key of the Kvarn header in a safetensors file's metadata.
pub const SAFETENSORS_KEY: &str = "kvarn";
/// Key of the checksum (CRC-32 as 8 hex digits) in a safetensors file's metadata.
pub const SAFETENSORS_CRC_KEY: &str = "kvarn_crc32";

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
    /// The CPU kernel path it was trained on (`avx512`, `avx2`): training is bitwise
    /// reproducible only on the same path.
    pub kernels: Option<String>,
    /// The precision of the network in the self-play that made its training games
    /// (`f32`, `bf16`, `int8`; training itself is 32-bit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selfplay_precision: Option<String>,
    /// The search player its figures were measured with, as the player settings that
    /// differ from their defaults (`simulations=800,symmetries=16,...`): `net:` agents and
    /// the engine start from it, so that the model plays as its figures say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
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
    /// A `.safetensors` file whose checksum does not match its contents, or that has none.
    #[error("{path} is damaged: {message}")]
    Damaged {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// Models that cannot be averaged (none, or of other rules or architectures).
    #[error("cannot average the models: {reason}")]
    Average {
        /// Why.
        reason: String,
    },
    /// A network that cannot be widened as asked (not an MLP, or not wider).
    #[error("cannot widen the model: {reason}")]
    Widen {
        /// Why.
        reason: String,
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
        let mut store = SafetensorsStore::from_bytes(None).metadata(SAFETENSORS_KEY, &json);
        network
            .model
            .save_into(&mut store)
            .map_err(|e| io(e.to_string()))?;
        let bytes = store.get_bytes().map_err(|e| io(e.to_string()))?;
        seal_safetensors(&bytes, &json).map_err(io)
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

/// The checksum of a safetensors model: CRC-32 of the Kvarn header and of every tensor's
/// name, dtype, shape and bytes, in name order (so it does not depend on the layout).
fn safetensors_crc(kvarn_json: &str, tensors: &safetensors::SafeTensors) -> u32 {
    let mut views = tensors.tensors();
    views.sort_by(|a, b| a.0.cmp(&b.0));
    let mut h = crc32fast::Hasher::new();
    h.update(&(kvarn_json.len() as u64).to_le_bytes());
    h.update(kvarn_json.as_bytes());
    for (name, view) in &views {
        h.update(&(name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update(format!("{:?}", view.dtype()).as_bytes());
        h.update(&(view.shape().len() as u64).to_le_bytes());
        for &d in view.shape() {
            h.update(&(d as u64).to_le_bytes());
        }
        h.update(&(view.data().len() as u64).to_le_bytes());
        h.update(view.data());
    }
    h.finalize()
}

/// `bytes` (a safetensors file with `kvarn_json` under [`SAFETENSORS_KEY`]) again, with
/// its checksum added under [`SAFETENSORS_CRC_KEY`].
fn seal_safetensors(bytes: &[u8], kvarn_json: &str) -> Result<Vec<u8>, String> {
    let tensors = safetensors::SafeTensors::deserialize(bytes).map_err(|e| e.to_string())?;
    let (_, meta) = safetensors::SafeTensors::read_metadata(bytes).map_err(|e| e.to_string())?;
    let mut metadata = meta.metadata().clone().unwrap_or_default();
    metadata.insert(
        SAFETENSORS_CRC_KEY.to_string(),
        format!("{:08x}", safetensors_crc(kvarn_json, &tensors)),
    );
    safetensors::serialize(tensors.tensors(), Some(metadata)).map_err(|e| e.to_string())
}

/// `bytes`, a safetensors model file, with its checksum computed afresh from what it
/// holds now: for a tool that edits such a file on purpose, and for tests that need
/// damaged files which pass the checksum, to reach the checks behind it.
///
/// # Errors
/// [`ModelFileError::Config`] when `bytes` are not a safetensors file with a Kvarn header.
pub fn reseal_safetensors(bytes: &[u8]) -> Result<Vec<u8>, ModelFileError> {
    let bad = |message: String| ModelFileError::Config {
        path: "safetensors bytes".into(),
        message,
    };
    let (_, meta) =
        safetensors::SafeTensors::read_metadata(bytes).map_err(|e| bad(e.to_string()))?;
    let json = meta
        .metadata()
        .as_ref()
        .and_then(|m| m.get(SAFETENSORS_KEY))
        .ok_or_else(|| bad(format!("no `{SAFETENSORS_KEY}` entry in the metadata")))?;
    seal_safetensors(bytes, json).map_err(bad)
}

/// Checks the checksum of a safetensors model file.
fn check_safetensors(
    name: &str,
    bytes: &[u8],
    metadata: Option<&std::collections::HashMap<String, String>>,
    kvarn_json: &str,
) -> Result<(), ModelFileError> {
    let damaged = |message: String| ModelFileError::Damaged {
        path: name.to_string(),
        message,
    };
    let stored = metadata
        .and_then(|m| m.get(SAFETENSORS_CRC_KEY))
        .ok_or_else(|| {
            damaged(format!(
                "no `{SAFETENSORS_CRC_KEY}` checksum in its safetensors metadata, so its weights cannot be checked (written before Kvarn checked safetensors models?); save it again with this build, e.g. from a .kvmodel copy"
            ))
        })?;
    let tensors = safetensors::SafeTensors::deserialize(bytes)
        .map_err(|e| damaged(format!("its tensors cannot be read: {e}")))?;
    let actual = format!("{:08x}", safetensors_crc(kvarn_json, &tensors));
    if *stored == actual {
        Ok(())
    } else {
        Err(damaged(format!(
            "the weights or the header do not match their checksum ({SAFETENSORS_CRC_KEY} {stored}, contents {actual})"
        )))
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
        check_safetensors(&name, &bytes, meta.metadata().as_ref(), json)?;
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
    let stored = match &params {
        Params::Record(b) | Params::Safetensors(b) => b.len() as u64,
    };
    // Two bytes a parameter at the least (half precision), before anything is allocated.
    if stored < header.network.min_parameters().saturating_mul(2) {
        return Err(ModelFileError::Mismatch {
            path: name,
            network: header.network.describe(),
            message: format!(
                "{stored} bytes of parameters cannot hold its {} weights at least",
                header.network.min_parameters()
            ),
        });
    }
    // A network of the header's shape, whose drawn parameters the file's then replace.
    let network = Network::new(header.rules, header.network.clone(), 0, device).map_err(|e| {
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
    // burn's loaders panic on some well-formed but wrong records (a tensor of an integer
    // type where a float one belongs): such a file is refused like any other mismatch.
    let model = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        load_params(network.model.clone(), params)
    }))
    .map_err(|_| {
        mismatch("the parameters cannot be read into it (a tensor of another type?)".into())
    })?
    .map_err(mismatch)?;
    Ok((network.with_model(model), header))
}

/// Reads `params` into `model`, saying what did not fit.
fn load_params(model: Model, params: Params) -> Result<Model, String> {
    match params {
        Params::Record(bytes) => {
            let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes))
                .map_err(|e| e.to_string())?;
            model.try_load_record(record).map_err(|e| e.to_string())
        }
        Params::Safetensors(bytes) => {
            let mut store = SafetensorsStore::from_bytes(Some(bytes));
            let mut model = model;
            let result = model.load_from(&mut store).map_err(|e| e.to_string())?;
            if !result.is_success() || !result.missing.is_empty() || !result.unused.is_empty() {
                return Err(format!("{result}"));
            }
            Ok(model)
        }
    }
}
