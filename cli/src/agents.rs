//! Agents named on the command line: every specification `kvarn-eval` reads (random,
//! alpha-beta, external engines, the perfect player) and network players,
//!
//! ```text
//! net:model=FILE[,simulations=N][,movetime=MS][,contempt=C][,burn][,db=DIR[,db_men=M]]
//! ```
//!
//! the model's tree search with `simulations` per move (default 64, no noise, greedy), on
//! the CPU; `movetime` limits it by time instead (with `simulations` too: whichever ends
//! first), as `alphabeta:movetime=MS` is, so that the two compare at equal time; a draw
//! is worth `-contempt` to it (-1..1, default 0); `burn` evaluates through burn instead
//! of the fast CPU path; `db` probes the endgame databases in DIR (`kvarn solve`, up to
//! `db_men` men a side, default all there) in the search: exact leaves, and a root move
//! that keeps a certain value.

use std::path::PathBuf;
use std::sync::Arc;

use std::time::Duration;

use anyhow::Context;
use kvarn_eval::agent::{AgentFactory, AgentSpec};
use kvarn_eval::search::Limits;
use kvarn_game::Rules;
use kvarn_model::{DeviceChoice, Inference, InferencePath, file};
use kvarn_selfplay::{Endgame, SearchConfig, SearchPlayer};

/// Reads an agent specification for games of `rules`.
pub fn factory(text: &str, rules: &Rules) -> anyhow::Result<Box<dyn AgentFactory>> {
    let Some(options) = text.strip_prefix("net:") else {
        let spec: AgentSpec = text.parse()?;
        return Ok(Box::new(spec));
    };
    let mut model = None;
    let mut simulations = None;
    let mut movetime = None;
    let mut contempt = 0f32;
    let mut path = InferencePath::Fastest;
    let (mut db, mut db_men) = (None, None);
    for item in options.split(',').filter(|s| !s.is_empty()) {
        match item.split_once('=') {
            Some(("model", v)) => model = Some(PathBuf::from(v)),
            Some(("simulations", v)) => {
                simulations = Some(
                    v.parse::<u32>()
                        .ok()
                        .filter(|&n| n >= 1)
                        .with_context(|| format!("net: simulations `{v}` is not a count >= 1"))?,
                );
            }
            Some(("movetime", v)) => {
                let ms = v.parse::<u64>().ok().filter(|&n| n >= 1);
                let ms =
                    ms.with_context(|| format!("net: movetime `{v}` is not milliseconds >= 1"))?;
                movetime = Some(Duration::from_millis(ms));
            }
            Some(("contempt", v)) => {
                contempt = v
                    .parse::<f32>()
                    .ok()
                    .filter(|c| (-1.0..=1.0).contains(c))
                    .with_context(|| format!("net: contempt `{v}` is not a number in -1..1"))?;
            }
            Some(("db", v)) => db = Some(PathBuf::from(v)),
            Some(("db_men", v)) => {
                db_men = Some(
                    v.parse::<u8>()
                        .ok()
                        .filter(|n| (3..=9).contains(n))
                        .with_context(|| format!("net: db_men `{v}` is not a count in 3..=9"))?,
                );
            }
            None if item == "burn" => path = InferencePath::Burn,
            _ => anyhow::bail!(
                "net: unknown option `{item}` (expected model=FILE, simulations=N, movetime=MS, contempt=C, burn, db=DIR or db_men=M)"
            ),
        }
    }
    let model = model.context("net needs model=FILE (a .kvmodel or .safetensors file)")?;
    let device = DeviceChoice::Cpu.device()?;
    let (network, _) = file::load_for_rules(&model, rules, &device)?;
    let search = SearchConfig {
        simulations: simulations.unwrap_or(64),
        contempt,
        // Bounded per game: a match keeps a player for each game in flight.
        cache_entries: 100_000,
        ..SearchConfig::default()
    };
    let limits = Limits {
        nodes: (simulations.is_some() || movetime.is_none())
            .then_some(u64::from(search.simulations)),
        movetime,
        depth: None,
    };
    let mut name = format!("net:model={}", model.display());
    if let Some(n) = limits.nodes {
        name.push_str(&format!(",simulations={n}"));
    }
    if let Some(t) = movetime {
        name.push_str(&format!(",movetime={}", t.as_millis()));
    }
    if contempt != 0.0 {
        name.push_str(&format!(",contempt={contempt}"));
    }
    let endgame = match &db {
        Some(dir) => {
            name.push_str(&format!(",db={}", dir.display()));
            let endgame = Endgame::open(dir, *rules, db_men).with_context(|| {
                format!("net: loading the endgame databases in {}", dir.display())
            })?;
            Some(Arc::new(endgame))
        }
        None => None,
    };
    let player = SearchPlayer::new(
        name,
        search,
        Inference::new(&network, path).single_threaded(),
    );
    Ok(Box::new(player.with_limits(limits).with_endgame(endgame)))
}
