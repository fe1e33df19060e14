//! The variant and rule switches, taken the same way by every command.

use anyhow::Context;
use clap::{Args, ValueEnum};
use kvarn_game::{Game, Position, Rules, Variant};

/// `on` or `off`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum OnOff {
    /// Switched on.
    On,
    /// Switched off.
    Off,
}

impl OnOff {
    fn on(self) -> bool {
        matches!(self, OnOff::On)
    }
}

/// Variant and rule switches.
#[derive(Args, Debug, Clone)]
pub struct RulesArgs {
    /// Which game: nine, six or five (Men's Morris).
    #[arg(long, default_value = "nine", value_parser = parse_variant)]
    pub variant: Variant,
    /// Flying with three men (default: on where the variant offers it).
    #[arg(long)]
    pub flying: Option<OnOff>,
    /// Draw on the third occurrence of a position.
    #[arg(long, default_value = "on")]
    pub repetition: OnOff,
    /// Turns without a removal that draw the game: a number, or `off`.
    #[arg(long, default_value = "50", value_parser = parse_limit)]
    pub no_capture_limit: Limit,
}

/// A no-capture limit as given on the command line.
#[derive(Clone, Copy, Debug)]
pub struct Limit(pub Option<u16>);

fn parse_variant(s: &str) -> Result<Variant, String> {
    s.parse().map_err(|e: kvarn_game::RulesError| e.to_string())
}

fn parse_limit(s: &str) -> Result<Limit, String> {
    if s.eq_ignore_ascii_case("off") {
        return Ok(Limit(None));
    }
    s.parse::<u16>()
        .map(|n| Limit(Some(n)))
        .map_err(|_| format!("`{s}` is neither a number of turns (1..65535) nor `off`"))
}

impl RulesArgs {
    /// The checked rules.
    pub fn rules(&self) -> anyhow::Result<Rules> {
        let mut rules = Rules::new(self.variant).with_repetition(self.repetition.on());
        if let Some(f) = self.flying {
            rules = rules.with_flying(f.on())?;
        }
        Ok(rules.with_no_capture_limit(self.no_capture_limit.0)?)
    }
}

/// Where a command starts: the start position, a position string or a FEN.
#[derive(Args, Debug, Clone)]
pub struct StartArgs {
    /// Start from this position instead of the empty board: a Kvarn position string
    /// (e.g. "......../......../........ w 9/9 - 0 0"), `startpos` or a Sanmill FEN.
    #[arg(long, conflicts_with = "fen")]
    pub position: Option<String>,
    /// Start from this Sanmill FEN (Nine Men's Morris only).
    #[arg(long)]
    pub fen: Option<String>,
}

impl StartArgs {
    /// The game at the chosen start. Both options are read by
    /// [`Position::from_text`], so they differ only in the option named in errors.
    pub fn game(&self, rules: Rules) -> anyhow::Result<Game> {
        let pos = match (&self.position, &self.fen) {
            (Some(s), _) => Position::from_text(&rules, s)
                .with_context(|| format!("reading --position \"{s}\""))?,
            (None, Some(f)) => {
                Position::from_text(&rules, f).with_context(|| format!("reading --fen \"{f}\""))?
            }
            (None, None) => Position::start(&rules),
        };
        Ok(Game::from_position(rules, pos)?)
    }
}
