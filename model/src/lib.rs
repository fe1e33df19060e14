//! Kvarn's networks: a policy over the variant's action space and a win/draw/loss value,
//! over the input encoding of `kvarn_game::encoding`, written with burn.
//!
//! - [`NetConfig`]: the architectures (a residual MLP and a graph network over the board)
//!   and their sizes.
//! - [`Network`]: a model with its rules and configuration; batched evaluation without
//!   autodiff bookkeeping, and log-probabilities for training.
//! - [`file`]: model files that carry their configuration and encoding version.
//! - [`device`]: choosing the CPU (`flex`, the default) or a GPU backend built in by feature.
//! - [`bench`]: evaluations per second by batch size.

pub mod average;
pub mod bench;
pub mod config;
pub mod cpu;
pub mod device;
pub mod export;
pub mod file;
pub mod graph;
pub mod inference;
mod layer;
pub mod mlp;
pub mod network;
pub mod widen;

pub use config::{Dims, NetConfig};
pub use cpu::{Precision, PrecisionError};
pub use device::DeviceChoice;
pub use file::{ModelFileError, ModelHeader, Provenance};
pub use inference::{Inference, InferencePath};
pub use network::{Model, Network, Outputs, masked_softmax};

/// Burn's tensor and device types, re-exported for crates that train or run networks.
pub use burn;
