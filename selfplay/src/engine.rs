//! The network player behind the engine protocol, for `kvarn engine --model FILE`: the
//! alpha-beta engine's commands, options and time controls, with `Weights` naming the
//! model, `Contempt`, `Symmetries`, `MoveChoice`, `RootValue` and `TwofoldDraws` options
//! (with the last four a shipped model plays as its run's evaluation player), and `wdl` in
//! its `info` lines.

use std::path::PathBuf;
use std::sync::Arc;

use kvarn_eval::protocol::{EngineMaker, ProtocolEngine, flag_option, seed_option, whole_number};
use kvarn_game::{Rules, SYMMETRY_COUNT};
use kvarn_model::burn::tensor::Device;
use kvarn_model::{Inference, InferencePath, file};

use crate::agent::SearchPlayer;
use crate::config::{MoveChoice, RootValue, SearchConfig};
use crate::endgame::Endgame;
use crate::evaluator::SymmetryAveraged;

/// Evaluation cache entries per MiB of `Hash`: an entry holds the value and the logits of
/// the legal moves, about 200 bytes.
const CACHE_ENTRIES_PER_MB: usize = 5000;

/// Makes the protocol's network searchers from a model file and the protocol's options.
pub struct NetEngineMaker {
    model: PathBuf,
    device: Device,
    hash_mb: usize,
    seed: Option<u64>,
    /// Hundredths of a draw's value (the `Contempt` option).
    contempt: i64,
    /// Symmetric images averaged at each leaf (the `Symmetries` option).
    symmetries: usize,
    /// The move played: the most visited or the best-proven (the `MoveChoice` option).
    move_choice: MoveChoice,
    /// The root's value reported and backed up: the mean or the most visited move's (the
    /// `RootValue` option).
    root_value: RootValue,
    /// A position met again inside the searched line counts as a draw (the `TwofoldDraws`
    /// option).
    twofold_draws: bool,
    endgame: Option<Arc<Endgame>>,
}

impl NetEngineMaker {
    /// A maker for the model in `model`, evaluated on `device`, probing `endgame` where
    /// given.
    pub fn new(model: PathBuf, device: Device, endgame: Option<Arc<Endgame>>) -> NetEngineMaker {
        NetEngineMaker {
            model,
            device,
            hash_mb: 64,
            seed: None,
            contempt: 0,
            symmetries: 1,
            move_choice: MoveChoice::Visits,
            root_value: RootValue::Mean,
            twofold_draws: false,
            endgame,
        }
    }
}

impl EngineMaker for NetEngineMaker {
    fn name(&self) -> String {
        let file = self.model.file_name().unwrap_or_default().to_string_lossy();
        format!("Kvarn {} (network {file})", env!("CARGO_PKG_VERSION"))
    }

    fn options(&self) -> Vec<String> {
        vec![
            "option name Threads type spin default 1 min 1 max 1".into(),
            "option name Hash type spin default 64 min 1 max 4096".into(),
            "option name Seed type string default <random>".into(),
            format!(
                "option name Weights type string default {}",
                self.model.display()
            ),
            "option name Contempt type spin default 0 min -100 max 100".into(),
            format!("option name Symmetries type spin default 1 min 1 max {SYMMETRY_COUNT}"),
            "option name MoveChoice type combo default visits var visits var lcb".into(),
            "option name RootValue type combo default mean var mean var best".into(),
            "option name TwofoldDraws type check default false".into(),
        ]
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<bool, String> {
        match name {
            "threads" if whole_number(value)? == 1 => {}
            "threads" => return Err("the network player searches with one thread".into()),
            "hash" => self.hash_mb = whole_number(value)?.clamp(1, 4096) as usize,
            "seed" => self.seed = seed_option(value)?,
            "contempt" => {
                let c: i64 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{value}` is not a whole number"))?;
                self.contempt = c.clamp(-100, 100);
            }
            "symmetries" => {
                self.symmetries = whole_number(value)?.clamp(1, SYMMETRY_COUNT as u64) as usize;
            }
            "movechoice" => self.move_choice = value.trim().parse()?,
            "rootvalue" => self.root_value = value.trim().parse()?,
            "twofolddraws" => self.twofold_draws = flag_option(value)?,
            "weights" => {
                let path = PathBuf::from(value.trim());
                file::load(&path, &self.device).map_err(|e| e.to_string())?;
                self.model = path;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn make(&self, rules: Rules) -> Result<Box<dyn ProtocolEngine>, String> {
        let (network, _) =
            file::load_for_rules(&self.model, &rules, &self.device).map_err(|e| e.to_string())?;
        let config = SearchConfig {
            cache_entries: self.hash_mb * CACHE_ENTRIES_PER_MB,
            contempt: self.contempt as f32 / 100.0,
            move_choice: self.move_choice,
            root_value: self.root_value,
            twofold_draws: self.twofold_draws,
            ..SearchConfig::default()
        };
        let inference = SymmetryAveraged::new(
            Inference::new(&network, InferencePath::Fastest).single_threaded(),
            &rules,
            self.symmetries,
        );
        let player =
            SearchPlayer::new(self.name(), config, inference).with_endgame(self.endgame.clone());
        let seed = self.seed.unwrap_or_else(rand::random);
        Ok(Box::new(player.agent(rules, seed)))
    }
}
