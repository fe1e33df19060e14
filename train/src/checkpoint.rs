//! Training checkpoints: the network, the optimiser state, the step count and the
//! generation's running losses in one file (a Kvarn container, magic `KVCKPT01`, written
//! atomically), so that a killed run goes on from its last checkpoint with the same
//! optimiser state and reports the same mean losses as an uninterrupted one.

use std::path::Path;

use kvarn_model::burn::tensor::Device;
use kvarn_model::{ModelFileError, Provenance, file};
use kvarn_storage::{ContainerError, read_container, write_container};
use serde::{Deserialize, Serialize};

use crate::binding::RunTag;
use crate::config::TrainConfig;
use crate::trainer::Trainer;

/// Magic bytes of a checkpoint.
pub const CHECKPOINT_MAGIC: &[u8; 8] = b"KVCKPT01";
/// Version of the checkpoint layout.
pub const CHECKPOINT_VERSION: u32 = 2;

/// The training of one generation so far: what its figures are made of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainingProgress {
    /// The generation being trained.
    pub generation: u32,
    /// Sum of the policy losses of its steps.
    pub policy_sum: f64,
    /// Sum of the value losses of its steps.
    pub value_sum: f64,
    /// Sum of the ownership losses of its steps (0 without the head, and in checkpoints
    /// written before it was recorded).
    #[serde(default)]
    pub ownership_sum: f64,
    /// Steps taken.
    pub steps: u64,
    /// Seconds spent taking them (over every process that trained it).
    pub seconds: f64,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    step: u64,
    model_bytes: u64,
    provenance: Provenance,
    progress: TrainingProgress,
    /// The run that wrote it (absent in checkpoints written before it was recorded).
    #[serde(default)]
    run: RunTag,
}

/// Why a checkpoint could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The container is unreadable, of another kind or version, or damaged.
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// The model inside is unreadable or does not fit.
    #[error(transparent)]
    Model(#[from] ModelFileError),
    /// The parts do not add up.
    #[error("{path}: {reason}")]
    Invalid {
        /// The checkpoint.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// Writes `trainer`'s network, optimiser state and step to `path`, atomically.
///
/// # Errors
/// Serialisation or writing failed.
pub fn save(
    trainer: &Trainer,
    provenance: &Provenance,
    progress: &TrainingProgress,
    run: &RunTag,
    path: &Path,
) -> Result<(), CheckpointError> {
    let invalid = |reason: String| CheckpointError::Invalid {
        path: path.display().to_string(),
        reason,
    };
    let model = file::to_bytes(&trainer.network().for_inference(), provenance, false, path)?;
    let optimizer = trainer.optimizer_bytes().map_err(invalid)?;
    let header = Header {
        step: trainer.step,
        model_bytes: model.len() as u64,
        provenance: provenance.clone(),
        progress: *progress,
        run: run.clone(),
    };
    let mut payload = model;
    payload.extend_from_slice(&optimizer);
    write_container(
        path,
        CHECKPOINT_MAGIC,
        CHECKPOINT_VERSION,
        &header,
        &payload,
    )?;
    Ok(())
}

/// What a checkpoint restores.
pub struct Restored {
    /// The trainer, in its autodiff form for training.
    pub trainer: Trainer,
    /// The provenance of its network.
    pub provenance: Provenance,
    /// The training of the generation so far.
    pub progress: TrainingProgress,
    /// The run that wrote it.
    pub run: RunTag,
}

/// A trainer restored from a checkpoint, on `device`, with what the checkpoint says of
/// itself (the caller checks that it belongs to the run, [`crate::binding`]).
///
/// # Errors
/// The checkpoint is damaged, of another version, or its model does not load.
pub fn load(
    path: &Path,
    config: TrainConfig,
    device: &Device,
) -> Result<Restored, CheckpointError> {
    let invalid = |reason: String| CheckpointError::Invalid {
        path: path.display().to_string(),
        reason,
    };
    let (header, payload): (Header, Vec<u8>) = read_container(
        path,
        CHECKPOINT_MAGIC,
        "Kvarn training checkpoint",
        CHECKPOINT_VERSION,
    )?;
    let split = usize::try_from(header.model_bytes)
        .ok()
        .filter(|&n| n <= payload.len())
        .ok_or_else(|| invalid("model length past the end".into()))?;
    let (model, optimizer) = payload.split_at(split);
    let (network, _) = file::from_bytes(path, model.to_vec(), false, device)?;
    let mut trainer = Trainer::new(&network, config);
    trainer
        .load_optimizer(optimizer.to_vec())
        .map_err(invalid)?;
    trainer.step = header.step;
    Ok(Restored {
        trainer,
        provenance: header.provenance,
        progress: header.progress,
        run: header.run,
    })
}
