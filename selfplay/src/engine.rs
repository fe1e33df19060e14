//! The network player behind the engine protocol, for `kvarn engine --model FILE`: the
//! alpha-beta engine's commands and time controls, with `Weights` naming the model, an
//! option for each of the player's settings ([`crate::player::SETTINGS`]: `Hash` in MiB,
//! `Contempt` in -1..1, `MoveChoice`, `Symmetries`, ... with the same names, units and
//! ranges as everywhere else, the model's measured player as their defaults), and `wdl`
//! in its `info` lines.

use std::path::PathBuf;
use std::sync::Arc;

use kvarn_engine::protocol::{EngineMaker, ProtocolEngine, seed_option, whole_number};
use kvarn_game::Rules;
use kvarn_model::burn::tensor::Device;
use kvarn_model::file;

use crate::endgame::Endgame;
use crate::player::{PlayerSettings, SETTINGS, Setting, find_setting};
use crate::setting::Kind;

/// The player's settings that the protocol sets otherwise: the limits come with each `go`,
/// and the databases are opened once, from the command line.
const NOT_OPTIONS: [&str; 4] = ["simulations", "movetime", "db", "db_men"];

/// Makes the protocol's network searchers from a model file and the protocol's options.
pub struct NetEngineMaker {
    model: PathBuf,
    device: Device,
    seed: Option<u64>,
    /// The player: the one the model records as measured, then the options set.
    player: PlayerSettings,
    endgame: Option<Arc<Endgame>>,
}

impl NetEngineMaker {
    /// A maker for the model in `model`, evaluated on `device`, playing as `player` (the
    /// model's measured player with the command line's settings), probing `endgame`
    /// where given.
    pub fn new(
        model: PathBuf,
        device: Device,
        player: PlayerSettings,
        endgame: Option<Arc<Endgame>>,
    ) -> NetEngineMaker {
        NetEngineMaker {
            model,
            device,
            seed: None,
            player,
            endgame,
        }
    }

    /// The protocol's option line for `setting`, with its value in the current player.
    fn option_line(&self, setting: &Setting) -> String {
        let name = setting.option_name();
        let value = setting.value(&self.player).unwrap_or_default();
        match setting.kind {
            Kind::Count(min, max) => {
                format!("option name {name} type spin default {value} min {min} max {max}")
            }
            Kind::Flag => format!("option name {name} type check default {value}"),
            Kind::Choice(words) => {
                let vars: String = words.iter().map(|w| format!(" var {w}")).collect();
                format!("option name {name} type combo default {value}{vars}")
            }
            Kind::Real { .. } | Kind::Path => {
                format!("option name {name} type string default {value}")
            }
        }
    }
}

impl EngineMaker for NetEngineMaker {
    fn name(&self) -> String {
        let file = self.model.file_name().unwrap_or_default().to_string_lossy();
        format!("Kvarn {} (network {file})", env!("CARGO_PKG_VERSION"))
    }

    fn options(&self) -> Vec<String> {
        let mut lines = vec![
            "option name Threads type spin default 1 min 1 max 1".to_string(),
            "option name Seed type string default <random>".into(),
            format!(
                "option name Weights type string default {}",
                self.model.display()
            ),
        ];
        lines.extend(
            SETTINGS
                .iter()
                .filter(|s| !NOT_OPTIONS.contains(&s.name))
                .map(|s| self.option_line(s)),
        );
        lines
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<bool, String> {
        match name {
            "threads" if whole_number(value)? == 1 => {}
            "threads" => return Err("the network player searches with one thread".into()),
            "seed" => self.seed = seed_option(value)?,
            "weights" => {
                let path = PathBuf::from(value.trim());
                file::load(&path, &self.device).map_err(|e| e.to_string())?;
                self.model = path;
            }
            _ => {
                let Some(setting) = find_setting(name).filter(|s| !NOT_OPTIONS.contains(&s.name))
                else {
                    return Ok(false);
                };
                let mut player = self.player.clone();
                player.set(setting.name, value).map_err(|e| e.to_string())?;
                player.validate().map_err(|e| e.to_string())?;
                self.player = player;
            }
        }
        Ok(true)
    }

    fn make(&self, rules: Rules) -> Result<Box<dyn ProtocolEngine>, String> {
        let (network, _) =
            file::load_for_rules(&self.model, &rules, &self.device).map_err(|e| e.to_string())?;
        let player = self
            .player
            .player(self.name(), &network, self.endgame.clone())
            .map_err(|e| e.to_string())?;
        let seed = self.seed.unwrap_or_else(rand::random);
        Ok(Box::new(player.agent(rules, seed)))
    }
}
