//! Variants and rule switches: the numbers and flags that make Nine, Six and Five Men's
//! Morris differ. Everything variant-specific is read from here.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::board::{Board, BoardKind};

/// One of the three games of the mill family that Kvarn plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Nine Men's Morris: 24 points, 9 men a side, flying on by default.
    Nine,
    /// Six Men's Morris: 16 points, 6 men a side, no flying.
    Six,
    /// Five Men's Morris: 16 points, 5 men a side, no flying.
    Five,
}

impl Variant {
    /// All variants.
    pub const ALL: [Variant; 3] = [Variant::Nine, Variant::Six, Variant::Five];

    /// The board the variant is played on.
    pub const fn board_kind(self) -> BoardKind {
        match self {
            Variant::Nine => BoardKind::TwentyFour,
            Variant::Six | Variant::Five => BoardKind::Sixteen,
        }
    }

    /// The board tables.
    pub fn board(self) -> &'static Board {
        Board::get(self.board_kind())
    }

    /// Men per player at the start (all in hand).
    pub const fn men(self) -> u8 {
        match self {
            Variant::Nine => 9,
            Variant::Six => 6,
            Variant::Five => 5,
        }
    }

    /// Whether the variant lets a player with three men fly (RULES.md: Nine only).
    pub const fn offers_flying(self) -> bool {
        matches!(self, Variant::Nine)
    }

    /// The short key used on the command line and in configs: `nine`, `six`, `five`.
    pub const fn key(self) -> &'static str {
        match self {
            Variant::Nine => "nine",
            Variant::Six => "six",
            Variant::Five => "five",
        }
    }

    /// The full name, e.g. "Nine Men's Morris".
    pub const fn full_name(self) -> &'static str {
        match self {
            Variant::Nine => "Nine Men's Morris",
            Variant::Six => "Six Men's Morris",
            Variant::Five => "Five Men's Morris",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.full_name())
    }
}

impl FromStr for Variant {
    type Err = RulesError;

    fn from_str(s: &str) -> Result<Variant, RulesError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "nine" | "9" => Ok(Variant::Nine),
            "six" | "6" => Ok(Variant::Six),
            "five" | "5" => Ok(Variant::Five),
            _ => Err(RulesError::UnknownVariant(s.to_string())),
        }
    }
}

/// The default no-capture limit of RULES.md: 50 turns.
pub const DEFAULT_NO_CAPTURE_LIMIT: u16 = 50;

/// A variant together with its rule switches. Constructed only through checked methods,
/// so a `Rules` value never asks for something its variant forbids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RulesSpec", into = "RulesSpec")]
pub struct Rules {
    variant: Variant,
    flying: bool,
    repetition: bool,
    no_capture_limit: Option<u16>,
}

impl Rules {
    /// The variant with the default switches of RULES.md (flying where offered, both draw
    /// rules on, no-capture limit 50).
    pub const fn new(variant: Variant) -> Rules {
        Rules {
            variant,
            flying: variant.offers_flying(),
            repetition: true,
            no_capture_limit: Some(DEFAULT_NO_CAPTURE_LIMIT),
        }
    }

    /// Switches flying on or off.
    ///
    /// # Errors
    /// [`RulesError::FlyingNotOffered`] when asking for flying in a variant without it.
    pub fn with_flying(mut self, on: bool) -> Result<Rules, RulesError> {
        if on && !self.variant.offers_flying() {
            return Err(RulesError::FlyingNotOffered(self.variant));
        }
        self.flying = on;
        Ok(self)
    }

    /// Switches the draw by threefold repetition on or off.
    pub fn with_repetition(mut self, on: bool) -> Rules {
        self.repetition = on;
        self
    }

    /// Sets the no-capture limit in turns, or switches the rule off with `None`.
    ///
    /// # Errors
    /// [`RulesError::ZeroNoCaptureLimit`] for `Some(0)`, which would draw every game at once.
    pub fn with_no_capture_limit(mut self, limit: Option<u16>) -> Result<Rules, RulesError> {
        if limit == Some(0) {
            return Err(RulesError::ZeroNoCaptureLimit);
        }
        self.no_capture_limit = limit;
        Ok(self)
    }

    /// The variant.
    #[inline]
    pub const fn variant(&self) -> Variant {
        self.variant
    }

    /// Whether a player with exactly three men, none in hand, may fly.
    #[inline]
    pub const fn flying(&self) -> bool {
        self.flying
    }

    /// Whether the third occurrence of a position draws.
    #[inline]
    pub const fn repetition(&self) -> bool {
        self.repetition
    }

    /// Turns without a removal after which the game is drawn, if that rule is on.
    #[inline]
    pub const fn no_capture_limit(&self) -> Option<u16> {
        self.no_capture_limit
    }

    /// The board tables of the variant.
    #[inline]
    pub fn board(&self) -> &'static Board {
        self.variant.board()
    }

    /// Men per player at the start.
    #[inline]
    pub const fn men(&self) -> u8 {
        self.variant.men()
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::new(Variant::Nine)
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let onoff = |b: bool| if b { "on" } else { "off" };
        write!(
            f,
            "{} (flying {}, repetition {}, no-capture limit {})",
            self.variant,
            onoff(self.flying),
            onoff(self.repetition),
            match self.no_capture_limit {
                Some(n) => n.to_string(),
                None => "off".to_string(),
            }
        )
    }
}

/// The serialised form of [`Rules`] (configs, model cards), checked on the way in.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RulesSpec {
    /// The game: `nine`, `six` or `five` Men's Morris.
    variant: Variant,
    /// Whether a side down to three men may fly to any empty point (default: on where the
    /// variant offers it, Nine only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flying: Option<bool>,
    /// Whether the third occurrence of a position draws.
    #[serde(default = "default_true")]
    repetition: bool,
    /// Turns without a removal that draw (50), or `"off"`.
    #[serde(default)]
    no_capture_limit: NoCaptureLimit,
}

/// The configuration's form of the rules: [`RulesSpec`]'s keys.
impl schemars::JsonSchema for Rules {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Rules".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        RulesSpec::json_schema(generator)
    }
}

fn default_true() -> bool {
    true
}

/// `no_capture_limit = 50` or `no_capture_limit = "off"`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
enum NoCaptureLimit {
    Turns(u16),
    Off(Off),
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Off {
    Off,
}

impl Default for NoCaptureLimit {
    fn default() -> Self {
        NoCaptureLimit::Turns(DEFAULT_NO_CAPTURE_LIMIT)
    }
}

impl TryFrom<RulesSpec> for Rules {
    type Error = RulesError;

    fn try_from(spec: RulesSpec) -> Result<Rules, RulesError> {
        let mut rules = Rules::new(spec.variant).with_repetition(spec.repetition);
        if let Some(f) = spec.flying {
            rules = rules.with_flying(f)?;
        }
        rules.with_no_capture_limit(match spec.no_capture_limit {
            NoCaptureLimit::Turns(n) => Some(n),
            NoCaptureLimit::Off(Off::Off) => None,
        })
    }
}

impl From<Rules> for RulesSpec {
    fn from(r: Rules) -> RulesSpec {
        RulesSpec {
            variant: r.variant,
            flying: Some(r.flying),
            repetition: r.repetition,
            no_capture_limit: match r.no_capture_limit {
                Some(n) => NoCaptureLimit::Turns(n),
                None => NoCaptureLimit::Off(Off::Off),
            },
        }
    }
}

/// A rule configuration the variant does not allow.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RulesError {
    /// Unknown variant name.
    #[error("unknown variant `{0}` (expected nine, six or five)")]
    UnknownVariant(String),
    /// Flying asked for in Six or Five Men's Morris.
    #[error("{0} does not offer flying; it can only be switched on for Nine Men's Morris")]
    FlyingNotOffered(Variant),
    /// A no-capture limit of zero.
    #[error("the no-capture limit must be at least 1 turn (or `off`)")]
    ZeroNoCaptureLimit,
}
