//! Kvarn's trainer: what turns self-play records into a better network.
//!
//! - [`replay`]: the replay window over the most recent shards, mini-batches with a random
//!   board symmetry applied to each sample.
//! - [`trainer`]: losses (policy cross-entropy against the search policy, win/draw/loss
//!   cross-entropy against the result), AdamW with weight decay and a learning-rate
//!   schedule, on burn's autodiff over the network's device.
//! - [`run`]: the generation loop, built from the [`stages`] (self-play, training,
//!   evaluation), with everything on disk for resuming: [`run_dir`] knows the folder's
//!   layout, [`manifest`] holds the generations done and their figures, [`metric`] names
//!   every figure once for all the writers ([`metrics`] for TensorBoard, [`report`] for
//!   the summary, the CSV, the plot and the terminal); [`run_config`] is the
//!   configuration file, [`resume`] what a resumed run goes on with, and [`error`] says
//!   why a run stopped.
//! - [`target_quality`]: the value targets of a run's samples judged against the solver's
//!   exact values.

pub mod bench;
pub mod binding;
pub mod chart;
pub mod checkpoint;
pub mod cluster;
pub mod config;
pub mod config_reference;
pub mod error;
pub mod ladder_plot;
pub mod manifest;
pub mod metric;
pub mod metrics;
pub mod replay;
pub mod report;
pub mod resume;
pub mod run;
pub mod run_config;
pub mod run_dir;
pub mod stages;
pub mod target_quality;
pub mod trainer;

pub use config::{
    CheapSearchValue, OwnershipGames, Schedule, SurpriseWeighs, TrainConfig, TrainEngine,
};
pub use error::RunError;
pub use manifest::{GenerationRecord, Manifest};
pub use metrics::Metrics;
pub use replay::{Batch, ReplayWindow, outcome_targets, search_targets, surprise_frequencies};
pub use run_config::{ConfigError, LoopConfig, RunConfig, SolverConfig};
pub use run_dir::RunDir;
pub use trainer::{Losses, Trainer};
