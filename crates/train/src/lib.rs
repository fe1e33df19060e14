//! Kvarn's trainer: what turns self-play records into a better network.
//!
//! - [`replay`]: the replay window over the most recent shards, mini-batches with a random
//!   board symmetry applied to each sample.
//! - [`trainer`]: losses (policy cross-entropy against the search policy, win/draw/loss
//!   cross-entropy against the result), AdamW with weight decay and a learning-rate
//!   schedule, on burn's autodiff over the network's device.

pub mod checkpoint;
pub mod config;
pub mod metrics;
pub mod replay;
pub mod run;
pub mod trainer;

pub use config::{Schedule, TrainConfig};
pub use metrics::Metrics;
pub use replay::{Batch, ReplayWindow};
pub use trainer::{Losses, Trainer};
