//! Kvarn's trainer: what turns self-play records into a better network.
//!
//! - [`replay`]: the replay window over the most recent shards, mini-batches with a random
//!   board symmetry applied to each sample.
//! - [`trainer`]: losses (policy cross-entropy against the search policy, win/draw/loss
//!   cross-entropy against the result), AdamW with weight decay and a learning-rate
//!   schedule, on burn's autodiff over the network's device.
//! - [`run`]: the generation loop (self-play, training, evaluation, promotion) with
//!   everything on disk for resuming; [`run_config`] is its configuration file and
//!   [`report`] the summary and plot it leaves in the run folder.

pub mod bench;
pub mod checkpoint;
pub mod config;
pub mod metrics;
pub mod replay;
pub mod report;
pub mod run;
pub mod run_config;
pub mod trainer;

pub use config::{Schedule, TrainConfig};
pub use metrics::Metrics;
pub use replay::{Batch, ReplayWindow};
pub use run_config::{ConfigError, LoopConfig, RunConfig, SolverConfig};
pub use trainer::{Losses, Trainer};
