//! Agents named on the command line: every specification `kvarn-arena` reads (random,
//! alpha-beta, external engines, the perfect player) and network players,
//!
//! ```text
//! net:model=FILE[,SETTING=VALUE...]
//! ```
//!
//! the model's tree search on the CPU, with the player settings of
//! `kvarn_selfplay::player::SETTINGS` (`simulations`, `movetime`, `symmetries`,
//! `move_choice`, `contempt`, `db`, ...; `kvarn config` lists them with their ranges). A
//! model file that records the player its figures were measured with plays as that player
//! unless a setting says otherwise, so `net:model=models/nine.kvmodel` plays as the README
//! measures it. Without `simulations` or `movetime` a move gets 64 simulations; with
//! `movetime` alone, the time bounds it, as `alphabeta:movetime=MS` is bounded, so that the
//! two compare at equal time; with both, whichever ends first.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use kvarn_arena::agent::{AgentFactory, AgentSpec};
use kvarn_game::Rules;
use kvarn_model::{DeviceChoice, ModelHeader, file};
use kvarn_selfplay::{Endgame, PlayerSettings, player};

/// Reads an agent specification for games of `rules`.
pub fn factory(text: &str, rules: &Rules) -> anyhow::Result<Box<dyn AgentFactory>> {
    if !text.starts_with("net:") {
        let kind = text.split_once(':').map_or(text, |(k, _)| k);
        anyhow::ensure!(
            AgentSpec::KINDS.contains(&kind),
            "agent `{text}`: unknown agent `{kind}` (expected {} or net)",
            AgentSpec::KINDS.join(", ")
        );
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
pub fn net_player(text: &str, rules: &Rules) -> anyhow::Result<NetPlayer> {
    let options = text
        .strip_prefix("net:")
        .with_context(|| format!("agent `{text}`: expected net:model=FILE[,SETTING=VALUE...]"))?;
    let spec = NetSpec::parse(options)?;
    let device = DeviceChoice::Cpu.device()?;
    let (network, header) = file::load_for_rules(&spec.model, rules, &device)?;
    let settings = model_player(&header, rules, &spec.settings).context("net")?;
    let endgame = open_endgame(&settings, rules)?;
    Ok(settings.player(spec.name(&settings), &network, endgame)?)
}

/// A network player as `net:` agents build it.
pub type NetPlayer =
    kvarn_selfplay::SearchPlayer<kvarn_selfplay::SymmetryAveraged<kvarn_model::Inference>>;

/// The databases a player's `db` names, opened for `rules`.
///
/// # Errors
/// They do not open.
pub fn open_endgame(
    settings: &PlayerSettings,
    rules: &Rules,
) -> anyhow::Result<Option<Arc<Endgame>>> {
    let Some(dir) = &settings.db else {
        return Ok(None);
    };
    let endgame = Endgame::open(dir, *rules, settings.db_men)
        .with_context(|| format!("net: loading the endgame databases in {}", dir.display()))?;
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
) -> anyhow::Result<PlayerSettings> {
    let mut player = PlayerSettings::default();
    if let Some(recorded) = &header.provenance.player {
        player
            .apply(recorded)
            .with_context(|| format!("the model's recorded player `{recorded}`"))?;
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
    fn parse(options: &str) -> anyhow::Result<NetSpec> {
        let mut model = None;
        let mut settings = Vec::new();
        for (key, value) in player::pairs(options).context("net")? {
            match key {
                "model" => model = Some(PathBuf::from(value)),
                _ => settings.push(format!("{key}={value}")),
            }
        }
        let settings = settings.join(",");
        // Settings are checked before the model is read, so that a typo fails at once.
        PlayerSettings::default().apply(&settings).context("net")?;
        let model = model.context("net needs model=FILE (a .kvmodel or .safetensors file)")?;
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

    fn settings(text: &str) -> anyhow::Result<(NetSpec, PlayerSettings)> {
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
