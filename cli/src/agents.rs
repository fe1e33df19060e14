//! Agents named on the command line: every specification `kvarn-eval` reads (random,
//! alpha-beta, external engines, the perfect player) and network players,
//!
//! ```text
//! net:model=FILE[,simulations=N][,burn]
//! ```
//!
//! the model's tree search with `simulations` per move (default 64, no noise, greedy), on
//! the CPU; `burn` evaluates through burn instead of the fast CPU path.

use std::path::PathBuf;

use anyhow::Context;
use kvarn_eval::agent::{AgentFactory, AgentSpec};
use kvarn_game::Rules;
use kvarn_model::{DeviceChoice, Inference, InferencePath, file};
use kvarn_selfplay::{SearchConfig, SearchPlayer};

/// Reads an agent specification for games of `rules`.
pub fn factory(text: &str, rules: &Rules) -> anyhow::Result<Box<dyn AgentFactory>> {
    let Some(options) = text.strip_prefix("net:") else {
        let spec: AgentSpec = text.parse()?;
        return Ok(Box::new(spec));
    };
    let mut model = None;
    let mut simulations = 64u32;
    let mut path = InferencePath::Fastest;
    for item in options.split(',').filter(|s| !s.is_empty()) {
        match item.split_once('=') {
            Some(("model", v)) => model = Some(PathBuf::from(v)),
            Some(("simulations", v)) => {
                simulations = v
                    .parse()
                    .ok()
                    .filter(|&n| n >= 1)
                    .with_context(|| format!("net: simulations `{v}` is not a count >= 1"))?;
            }
            None if item == "burn" => path = InferencePath::Burn,
            _ => anyhow::bail!(
                "net: unknown option `{item}` (expected model=FILE, simulations=N or burn)"
            ),
        }
    }
    let model = model.context("net needs model=FILE (a .kvmodel or .safetensors file)")?;
    let device = DeviceChoice::Cpu.device()?;
    let (network, _) = file::load_for_rules(&model, rules, &device)?;
    let search = SearchConfig {
        simulations,
        ..SearchConfig::default()
    };
    Ok(Box::new(SearchPlayer::new(
        format!("net:model={},simulations={simulations}", model.display()),
        search,
        Inference::new(&network, path).single_threaded(),
    )))
}
