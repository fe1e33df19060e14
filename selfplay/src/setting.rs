//! What values a setting takes, declared once: the parser, the range shown to people and
//! the engine protocol's option type all come from a setting's [`Kind`]. The ranges of the
//! tree-search settings that the `[search]` table and the player share are here, so that
//! both check them alike.

use std::path::PathBuf;

/// What values a setting takes: the parser, the range shown to people and the engine
/// protocol's option type all come from it.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A whole number in `min..=max`.
    Count(u64, u64),
    /// A real number in `min..=max`, `min` itself excluded where `above`.
    Real {
        /// The least value.
        min: f32,
        /// The greatest value.
        max: f32,
        /// Whether `min` itself is refused.
        above: bool,
    },
    /// One of these words.
    Choice(&'static [&'static str]),
    /// `true` or `false`.
    Flag,
    /// A path.
    Path,
}

/// A kind's range as the bounds of a configuration key's JSON Schema, for the keys of
/// `[search]` that the player shares (`#[schemars(transform = setting::bounds(C_PUCT))]`):
/// the checks of [`kvarn_storage::check_declared`] and `kvarn config` then read the ranges
/// declared here.
pub fn bounds(kind: Kind) -> impl FnMut(&mut schemars::Schema) {
    move |schema| match kind {
        Kind::Count(min, max) => {
            schema.insert("minimum".into(), min.into());
            schema.insert("maximum".into(), max.into());
        }
        Kind::Real { min, max, above } => {
            let bound = if above { "exclusiveMinimum" } else { "minimum" };
            schema.insert(bound.into(), f64::from(min).into());
            schema.insert("maximum".into(), f64::from(max).into());
        }
        Kind::Choice(_) | Kind::Flag | Kind::Path => {}
    }
}

/// A value read by its [`Kind`].
pub(crate) enum Parsed<'a> {
    Count(u64),
    Real(f32),
    Word(&'a str),
    Flag(bool),
    Path(PathBuf),
}

impl Kind {
    /// The values taken, in words: `1..=16`, `(0, 100]`, `puct|gumbel`.
    pub fn range(self) -> String {
        match self {
            Kind::Count(min, max) => format!("{min}..={max}"),
            Kind::Real { min, max, above } => {
                format!("{}{min}, {max}]", if above { "(" } else { "[" })
            }
            Kind::Choice(words) => words.join("|"),
            Kind::Flag => "true|false".into(),
            Kind::Path => "a path".into(),
        }
    }

    /// Reads `text`, or says why it is not one of the values.
    pub(crate) fn parse(self, text: &str) -> Result<Parsed<'_>, String> {
        let bad = || format!("`{text}` is not {}", self.range());
        match self {
            Kind::Count(min, max) => text
                .parse::<u64>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .map(Parsed::Count)
                .ok_or_else(|| format!("`{text}` is not a whole number in {min}..={max}")),
            Kind::Real { min, max, above } => text
                .parse::<f32>()
                .ok()
                .filter(|x| x.is_finite() && *x <= max && (*x > min || (!above && *x == min)))
                .map(Parsed::Real)
                .ok_or_else(|| format!("`{text}` is not a number in {}", self.range())),
            Kind::Choice(words) => words
                .iter()
                .find(|w| **w == text)
                .map(|w| Parsed::Word(w))
                .ok_or_else(bad),
            Kind::Flag => match text {
                "true" => Ok(Parsed::Flag(true)),
                "false" => Ok(Parsed::Flag(false)),
                _ => Err(bad()),
            },
            Kind::Path if text.is_empty() => Err("an empty path".into()),
            Kind::Path => Ok(Parsed::Path(PathBuf::from(text))),
        }
    }
}

/// `c_puct`: the PUCT exploration constant.
pub const C_PUCT: Kind = Kind::Real {
    min: 0.0,
    max: 100.0,
    above: true,
};
/// `fpu_reduction`: first-play urgency.
pub const FPU_REDUCTION: Kind = Kind::Real {
    min: 0.0,
    max: 2.0,
    above: false,
};
/// `gumbel_actions`: moves sampled at a Gumbel root.
pub const GUMBEL_ACTIONS: Kind = Kind::Count(1, 1000);
/// `gumbel_c_visit`.
pub const GUMBEL_C_VISIT: Kind = Kind::Real {
    min: 0.0,
    max: 1e6,
    above: false,
};
/// `gumbel_c_scale`.
pub const GUMBEL_C_SCALE: Kind = Kind::Real {
    min: 0.0,
    max: 1e6,
    above: true,
};
/// `contempt`: a draw's value to the player, negated.
pub const CONTEMPT: Kind = Kind::Real {
    min: -1.0,
    max: 1.0,
    above: false,
};
/// `lcb_stdevs`: standard errors of the lower confidence bound.
pub const LCB_STDEVS: Kind = Kind::Real {
    min: 0.0,
    max: 100.0,
    above: false,
};
