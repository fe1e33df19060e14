//! Run configurations (TOML): the rules, the network, the search and self-play settings.
//! Every table and key is optional except where noted; unknown keys are refused with
//! their name, and values are checked before any work starts.

use std::path::Path;

use anyhow::Context;
use kvarn_game::Rules;
use kvarn_model::NetConfig;
use kvarn_selfplay::{SearchConfig, SelfPlayConfig};
use serde::Deserialize;

/// A run configuration file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Seed of everything random in the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// The rules (`variant`, `flying`, `repetition`, `no_capture_limit`).
    pub rules: Rules,
    /// The network's architecture.
    #[serde(default)]
    pub network: NetConfig,
    /// Tree search.
    #[serde(default)]
    pub search: SearchConfig,
    /// Self-play.
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
}

fn default_seed() -> u64 {
    1
}

impl RunConfig {
    /// Reads and checks a configuration file.
    pub fn load(path: &Path) -> anyhow::Result<RunConfig> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the configuration {}", path.display()))?;
        let config: RunConfig = toml::from_str(&text)
            .with_context(|| format!("in the configuration {}", path.display()))?;
        config
            .network
            .validate()
            .with_context(|| format!("in the configuration {}", path.display()))?;
        config
            .search
            .validate()
            .with_context(|| format!("in the configuration {}", path.display()))?;
        config
            .selfplay
            .validate()
            .with_context(|| format!("in the configuration {}", path.display()))?;
        Ok(config)
    }
}
