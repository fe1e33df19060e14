//! Why a run stopped, with the error underneath kept as the source.

use std::path::{Path, PathBuf};

use kvarn_arena::ArenaError;
use kvarn_game::Rules;
use kvarn_model::ModelFileError;
use kvarn_model::device::DeviceUnavailable;
use kvarn_selfplay::{SelfPlayError, ShardError};

use crate::checkpoint::CheckpointError;
use crate::replay::ReplayError;

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Self-play on the Ray cluster failed.
    #[error("self-play on the Ray cluster: {0}")]
    Cluster(String),
    /// A new run was asked for in a folder that holds one.
    #[error("{} already holds a run: resume it with --resume, or choose another folder", .0.display())]
    AlreadyARun(PathBuf),
    /// A new run was asked for in a folder that holds other files.
    #[error("{} holds files but no run: start a new run in an empty or new folder", .0.display())]
    NotEmpty(PathBuf),
    /// Another process works on the run.
    #[error("{} is in use by another kvarn ({holder}); wait for it to end, or stop it", dir.display())]
    Locked {
        /// The run folder.
        dir: PathBuf,
        /// What the lock file says of its holder.
        holder: String,
    },
    /// The run's configuration was edited after it started.
    #[error(
        "{} was changed after the run started (checksum {recorded:08x} recorded, {found:08x} now): \
         restore it, and change settings with --resume DIR --set KEY=VALUE, which the manifest records",
        path.display()
    )]
    ConfigEdited {
        /// The run's `config.toml`.
        path: PathBuf,
        /// Its checksum when the run started.
        recorded: u32,
        /// Its checksum now.
        found: u32,
    },
    /// A resume asked to change a setting that is fixed for a run's life.
    #[error(
        "--set {0}: fixed for a run's life (the rules, the network, the steps per generation); start a new run"
    )]
    FixedSetting(String),
    /// The configuration, with the settings of a resume, cannot be used.
    #[error(transparent)]
    Config(#[from] crate::run_config::ConfigError),
    /// The previous generation's shards, which branch starts are drawn from, are gone.
    #[error(
        "{}: no shards of the previous generation to draw selfplay.branch_starts from (a \
         resumed generation must draw from the same games)",
        .0.display()
    )]
    NoBranchShards(PathBuf),
    /// A file in the run folder that is not the run's: another run's checkpoint, an older
    /// one, a replaced model, a stray or repeated shard.
    #[error(
        "{}: {reason}; it is not this run's file: move it away (a checkpoint may be left out \
         with --inexact, which the manifest records)",
        path.display()
    )]
    Foreign {
        /// The file.
        path: PathBuf,
        /// What it holds that the run did not write there.
        reason: String,
    },
    /// A resume that cannot reproduce the uninterrupted run, not allowed.
    #[error("{0}; resume with --inexact to go on anyway (the manifest records it)")]
    Inexact(String),
    /// The configured device is not built in.
    #[error(transparent)]
    Device(#[from] DeviceUnavailable),
    /// A setting cannot be used (the key is named in the error).
    #[error(transparent)]
    Setting(#[from] kvarn_storage::SettingError),
    /// A file of the run could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The manifest is unreadable or of another layout.
    #[error("{}: {reason}", path.display())]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A model file could not be written or read.
    #[error(transparent)]
    Model(#[from] ModelFileError),
    /// The checkpoint could not be written or read.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A self-play shard is unreadable.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The network cannot run in the precision asked for (`selfplay.precision`).
    #[error("selfplay.precision: {0}")]
    Precision(#[from] kvarn_model::PrecisionError),
    /// The evaluation player cannot be built (its precision, on this machine).
    #[error("evaluation player: {0}")]
    Player(#[from] kvarn_selfplay::PlayerError),
    /// Self-play failed.
    #[error("self-play: {0}")]
    SelfPlay(#[from] SelfPlayError),
    /// The replay window could not be filled.
    #[error("replay window: {0}")]
    Replay(#[from] ReplayError),
    /// The solver databases or the benchmark set failed.
    #[error("solver benchmark: {0}")]
    Solver(#[source] ArenaError),
    /// The run's benchmark set holds positions of other rules.
    #[error("{}: holds positions of {found}, the run plays {expected}", path.display())]
    SetRules {
        /// The set.
        path: PathBuf,
        /// Its rules.
        found: Rules,
        /// The run's.
        expected: Rules,
    },
    /// A match of the evaluation failed.
    #[error("evaluation against {opponent}: {source}")]
    Match {
        /// The opponent.
        opponent: String,
        /// What failed.
        source: ArenaError,
    },
    /// The model a new run was to start from is not the configuration's network.
    #[error("{}: {reason}", path.display())]
    InitialModel {
        /// The model file.
        path: PathBuf,
        /// How it differs.
        reason: String,
    },
    /// The summary or the plot could not be made.
    #[error("{}: {reason}", path.display())]
    Report {
        /// The file.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
}

impl RunError {
    /// An I/O failure on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> RunError {
        RunError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A manifest at `path` that cannot be used, and why.
    pub fn manifest(path: &Path, reason: impl std::fmt::Display) -> RunError {
        RunError::Manifest {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        }
    }

    /// A failure of the solver databases, a benchmark set or the scoring on it.
    pub fn solver(source: impl Into<ArenaError>) -> RunError {
        RunError::Solver(source.into())
    }
}
