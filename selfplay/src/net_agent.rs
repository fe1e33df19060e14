//! Agents named by text, network players included: every specification `kvarn-arena`
//! reads (random, alpha-beta, external engines, the perfect player) and
//!
//! ```text
//! net:model=FILE[,SETTING=VALUE...]
//! ```
//!
//! the model's tree search on the CPU, with the player settings of
//! [`crate::player::SETTINGS`] (`simulations`, `movetime`, `symmetries`, `move_choice`,
//! `contempt`, `db`, ...; `kvarn config` lists them with their ranges). A model file that
//! records the player its figures were measured with plays as that player unless a setting
//! says otherwise, so `net:model=models/nine.kvmodel` plays as the README measures it.
//! Without `simulations` or `movetime` a move gets 64 simulations; with `movetime` alone,
//! the time bounds it, as `alphabeta:movetime=MS` is bounded, so that the two compare at
//! equal time; with both, whichever ends first.
//!
//! The command line and the Python package both read agents here, so that one text names
//! the same player everywhere.

use std::path::PathBuf;
use std::sync::Arc;

use kvarn_arena::ArenaError;
use kvarn_arena::agent::{AgentFactory, AgentSpec};
use kvarn_game::Rules;
use kvarn_model::device::DeviceUnavailable;
use kvarn_model::{DeviceChoice, ModelFileError, ModelHeader, file};
use kvarn_solver::db::DbError;

use crate::player::{self, PlayerError, PlayerSettings};
use crate::{Endgame, SearchPlayer, SymmetryAveraged};

/// A network player as `net:` agents build it.
pub type NetPlayer = SearchPlayer<SymmetryAveraged<kvarn_model::Inference>>;

/// Why an agent's text does not give an agent.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// Neither a kind `kvarn-arena` knows nor `net`.
    #[error("agent `{text}`: unknown agent `{kind}` (expected {} or net)", AgentSpec::KINDS.join(", "))]
    UnknownKind {
        /// The whole text.
        text: String,
        /// The kind it names, before its `:`.
        kind: String,
    },
    /// A `kvarn-arena` specification it refused.
    #[error(transparent)]
    Arena(#[from] ArenaError),
    /// Not a `net:` specification where one was needed.
    #[error("agent `{0}`: expected net:model=FILE[,SETTING=VALUE...]")]
    NotNet(String),
    /// A `net:` specification without its model.
    #[error("net needs model=FILE (a .kvmodel or .safetensors file)")]
    NoModel,
    /// A setting given that is refused.
    #[error("net: {0}")]
    Setting(#[from] PlayerError),
    /// A setting the model file records that this Kvarn refuses.
    #[error("net: the model's recorded player `{recorded}`: {source}")]
    Recorded {
        /// The settings the file records.
        recorded: String,
        /// What is wrong with them.
        source: PlayerError,
    },
    /// The model does not load, or is for other rules.
    #[error(transparent)]
    Model(#[from] ModelFileError),
    /// The device is not built in.
    #[error(transparent)]
    Device(#[from] DeviceUnavailable),
    /// The databases of `db` do not open.
    #[error("net: loading the endgame databases in {}: {source}", dir.display())]
    Endgame {
        /// The folder.
        dir: PathBuf,
        /// Why.
        source: DbError,
    },
}

/// Reads an agent specification for games of `rules`.
///
/// # Errors
/// See [`AgentError`].
pub fn factory(text: &str, rules: &Rules) -> Result<Box<dyn AgentFactory>, AgentError> {
    if !text.starts_with("net:") {
        let kind = text.split_once(':').map_or(text, |(k, _)| k);
        if !AgentSpec::KINDS.contains(&kind) {
            return Err(AgentError::UnknownKind {
                text: text.into(),
                kind: kind.into(),
            });
        }
        let spec: AgentSpec = text.parse()?;
        return Ok(Box::new(spec));
    }
    Ok(Box::new(net_player(text, rules)?))
}

/// The network player a `net:model=FILE[,SETTING=VALUE...]` specification names, for
/// games of `rules`.
///
/// # Errors
/// Not a `net:` specification, a setting refused, or a model that does not load.
pub fn net_player(text: &str, rules: &Rules) -> Result<NetPlayer, AgentError> {
    let options = text
        .strip_prefix("net:")
        .ok_or_else(|| AgentError::NotNet(text.into()))?;
    let spec = NetSpec::parse(options)?;
    let device = DeviceChoice::Cpu.device()?;
    let (network, header) = file::load_for_rules(&spec.model, rules, &device)?;
    let settings = model_player(&header, rules, &spec.settings)?;
    let endgame = open_endgame(&settings, rules)?;
    Ok(settings.player(spec.name(&settings), &network, endgame)?)
}

/// The databases a player's `db` names, opened for `rules`.
///
/// # Errors
/// They do not open.
pub fn open_endgame(
    settings: &PlayerSettings,
    rules: &Rules,
) -> Result<Option<Arc<Endgame>>, AgentError> {
    let Some(dir) = &settings.db else {
        return Ok(None);
    };
    let endgame =
        Endgame::open(dir, *rules, settings.db_men).map_err(|source| AgentError::Endgame {
            dir: dir.clone(),
            source,
        })?;
    Ok(Some(Arc::new(endgame)))
}

/// The player a model file records as measured (the defaults where it records none), with
/// `settings` (`key=value,...`) over it, checked for `rules`: how `net:` agents and
/// `kvarn engine --model` play a model.
///
/// # Errors
/// A recorded or given setting this Kvarn refuses.
pub fn model_player(
    header: &ModelHeader,
    rules: &Rules,
    settings: &str,
) -> Result<PlayerSettings, AgentError> {
    let mut player = PlayerSettings::default();
    if let Some(recorded) = &header.provenance.player {
        player
            .apply(recorded)
            .map_err(|source| AgentError::Recorded {
                recorded: recorded.clone(),
                source,
            })?;
    }
    player.apply(settings)?;
    player.validate_for(rules)?;
    Ok(player)
}

/// The options of a `net:` specification.
struct NetSpec {
    model: PathBuf,
    /// The player settings given, as `key=value,...`.
    settings: String,
}

impl NetSpec {
    fn parse(options: &str) -> Result<NetSpec, AgentError> {
        let mut model = None;
        let mut settings = Vec::new();
        for (key, value) in player::pairs(options)? {
            match key {
                "model" => model = Some(PathBuf::from(value)),
                _ => settings.push(format!("{key}={value}")),
            }
        }
        let settings = settings.join(",");
        // Settings are checked before the model is read, so that a typo fails at once.
        PlayerSettings::default().apply(&settings)?;
        let model = model.ok_or(AgentError::NoModel)?;
        Ok(NetSpec { model, settings })
    }

    /// The player's name in match reports: the model, its limits, and every other setting
    /// that differs from the defaults.
    fn name(&self, settings: &PlayerSettings) -> String {
        let mut name = format!("net:model={}", self.model.display());
        let limits = settings.limits();
        if let Some(n) = limits.nodes {
            name.push_str(&format!(",simulations={n}"));
        }
        if let Some(t) = limits.movetime {
            name.push_str(&format!(",movetime={}", t.as_millis()));
        }
        let mut plain = settings.clone();
        plain.simulations = None;
        plain.movetime = None;
        let rest = plain.spec();
        if !rest.is_empty() {
            name.push(',');
            name.push_str(&rest);
        }
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(text: &str) -> Result<(NetSpec, PlayerSettings), AgentError> {
        let spec = NetSpec::parse(text)?;
        let mut s = PlayerSettings::default();
        s.apply(&spec.settings)?;
        Ok((spec, s))
    }

    #[test]
    fn search_settings_are_read_and_named() {
        let (spec, s) = settings(
            "model=m.kvmodel,simulations=800,c_puct=2.5,fpu_reduction=0,root=gumbel,\
             root_value=best,twofold_draws=true,symmetries=8",
        )
        .unwrap();
        assert_eq!(s.symmetries, 8);
        assert_eq!(s.search_config().simulations, 800);
        assert_eq!(
            spec.name(&s),
            "net:model=m.kvmodel,simulations=800,root=gumbel,c_puct=2.5,fpu_reduction=0,\
             root_value=best,twofold_draws=true,symmetries=8"
        );
        let (spec, lcb) = settings("model=m.kvmodel,move_choice=lcb,lcb_stdevs=3").unwrap();
        assert!(spec.name(&lcb).ends_with(",move_choice=lcb,lcb_stdevs=3"));
        let (spec, plain) = settings("model=m.kvmodel,movetime=200").unwrap();
        assert_eq!(plain.limits().nodes, None);
        assert_eq!(spec.name(&plain), "net:model=m.kvmodel,movetime=200");
    }

    #[test]
    fn bad_options_are_named() {
        let error = |text: &str| format!("{:#}", NetSpec::parse(text).err().unwrap());
        assert!(error("model=m,c_puct=-1").contains("c_puct: `-1`"));
        assert!(error("model=m,c_puct=0").contains("c_puct: `0`"));
        assert!(error("model=m,fpu=0").contains("it is now `fpu_reduction`"));
        assert!(error("model=m,root=mcts").contains("`mcts` is not puct|gumbel"));
        assert!(error("model=m,simulations=0").contains("simulations: `0`"));
        assert!(error("model=m,symmetries=17").contains("in 1..=16"));
        assert!(error("model=m,move_choice=best").contains("`best` is not visits|lcb"));
        assert!(error("model=m,lcb_stdevs=-1").contains("lcb_stdevs"));
        assert!(error("model=m,root=gumbel,move_choice=lcb").contains("root=puct"));
        assert!(error("model=m,depth=3").contains("unknown player setting `depth`"));
        assert!(error("model=m,burn").contains("`burn` is not SETTING=VALUE"));
        assert!(error("simulations=3").contains("needs model=FILE"));
    }
}
