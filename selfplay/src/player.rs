//! The search player: one type says everything that makes a network player play as it
//! does (the tree search, the symmetric images at each leaf, the move choice, contempt,
//! node and time limits, memory, database probes), and every surface that builds a player
//! goes through it: `net:` agent specifications, the engine's options, the run
//! configuration's `[loop.player]` table (the evaluation player), `kvarn ladder --player`,
//! and the player a model file records as the one its figures were measured with.
//!
//! Each setting is declared once, in [`SETTINGS`], with its name, unit, range, default and
//! meaning; one parser ([`PlayerSettings::set`]) and one validator
//! ([`PlayerSettings::validate`]) stand behind every surface; the ranges of the settings
//! that the `[search]` table shares are declared in [`crate::setting`], for both.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use kvarn_engine::search::Limits;
use kvarn_game::{Rules, SYMMETRY_COUNT};
use kvarn_model::{Inference, InferencePath, Network, Precision};
use serde::{Deserialize, Serialize};

use crate::agent::SearchPlayer;
use crate::config::{LCB_NEEDS_PUCT, MoveChoice, RootSearch, RootValue, SearchConfig};
use crate::endgame::Endgame;
use crate::evaluator::SymmetryAveraged;
use crate::setting::{self, Kind, Parsed};
use crate::tree::NODE_BYTES;

/// Network results kept per MiB of the cache's share of `hash`: an entry holds the value
/// and the logits of the legal moves, about 200 bytes.
pub const CACHE_ENTRIES_PER_MIB: usize = 5000;

/// The share of `hash` the network cache takes, in quarters; the search tree takes the
/// rest.
const CACHE_QUARTERS: usize = 1;

/// `hash` where none is given, MiB: an analysis without limits stops growing its tree at
/// about 4 million nodes, and the process stays within about 400 MB.
pub const DEFAULT_HASH_MIB: usize = 256;

/// Simulations a move where neither `simulations` nor `movetime` is given.
pub const DEFAULT_SIMULATIONS: u32 = 64;

/// A search player's settings. Build one with [`PlayerSettings::default`] and
/// [`PlayerSettings::set`] (or [`PlayerSettings::apply`] on `key=value,...` text).
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerSettings {
    /// The tree search; of its fields, those [`SETTINGS`] names are the player's (the
    /// others, noise and temperatures, belong to self-play and stay at their defaults).
    pub search: SearchConfig,
    /// Simulations a move; `None`: [`DEFAULT_SIMULATIONS`] unless `movetime` bounds the
    /// search alone.
    pub simulations: Option<u32>,
    /// Time a move.
    pub movetime: Option<Duration>,
    /// Symmetric images whose mean answers each leaf (1: the position alone).
    pub symmetries: usize,
    /// Memory of the network cache, in MiB.
    pub hash_mib: usize,
    /// How the network is evaluated.
    pub inference: InferencePath,
    /// The arithmetic of the network's products (`None`: the fastest this machine has).
    pub precision: Option<Precision>,
    /// Endgame databases probed in the search.
    pub db: Option<PathBuf>,
    /// The most men a side of the databases probed (all there where `None`).
    pub db_men: Option<u8>,
}

impl Default for PlayerSettings {
    fn default() -> Self {
        PlayerSettings {
            search: SearchConfig::default(),
            simulations: None,
            movetime: None,
            symmetries: 1,
            hash_mib: DEFAULT_HASH_MIB,
            inference: InferencePath::Fastest,
            precision: None,
            db: None,
            db_men: None,
        }
    }
}

/// One setting of the player, declared once.
pub struct Setting {
    /// Its name everywhere: `net:` options, `[loop.player]` keys, `--player`, and (without
    /// the underscores, in any case) the engine's option names.
    pub name: &'static str,
    /// The values it takes.
    pub kind: Kind,
    /// Its unit, where it has one.
    pub unit: &'static str,
    /// What it does, in one line.
    pub meaning: &'static str,
    set: fn(&mut PlayerSettings, Parsed<'_>),
    get: fn(&PlayerSettings) -> Option<String>,
}

impl Setting {
    /// Its value in `settings`, as text that [`PlayerSettings::set`] reads back (`None`:
    /// unset).
    pub fn value(&self, settings: &PlayerSettings) -> Option<String> {
        (self.get)(settings)
    }

    /// Its default, in words.
    pub fn default_text(&self) -> String {
        (self.get)(&PlayerSettings::default()).unwrap_or_else(|| "none".into())
    }

    /// Its name in the engine protocol: `move_choice` is `MoveChoice`.
    pub fn option_name(&self) -> String {
        self.name
            .split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next().map_or(String::new(), |f| {
                    f.to_ascii_uppercase().to_string() + c.as_str()
                })
            })
            .collect()
    }
}

// The setters are called with the value their `Kind` parsed; the casts are within the
// kinds' ranges.
macro_rules! setting {
    ($name:literal, $kind:expr, $unit:literal, $meaning:literal,
     |$s:ident, $v:pat_param| $set:expr, |$g:ident| $get:expr) => {
        Setting {
            name: $name,
            kind: $kind,
            unit: $unit,
            meaning: $meaning,
            set: |$s, parsed| {
                #[allow(irrefutable_let_patterns)]
                if let $v = parsed {
                    $set;
                }
            },
            get: |$g| $get,
        }
    };
}

const ROOTS: &[&str] = &["puct", "gumbel"];
const ROOT_VALUES: &[&str] = &["mean", "best"];
const MOVE_CHOICES: &[&str] = &["visits", "lcb"];
const INFERENCE: &[&str] = &["fast", "burn"];
const PRECISIONS: &[&str] = &["auto", "f32", "bf16", "int8"];
#[allow(clippy::cast_possible_truncation)]
const MAX_SYMMETRIES: u64 = SYMMETRY_COUNT as u64;

/// Every setting of the search player, in the order reports name them.
pub static SETTINGS: &[Setting] = &[
    setting!(
        "simulations",
        Kind::Count(1, 1_000_000),
        "simulations a move",
        "tree-search simulations a move (default 64 unless movetime alone bounds the search)",
        |s, Parsed::Count(n)| s.simulations = Some(n as u32),
        |s| s.simulations.map(|n| n.to_string())
    ),
    setting!(
        "movetime",
        Kind::Count(1, 86_400_000),
        "ms",
        "time a move; with simulations too, whichever ends first",
        |s, Parsed::Count(ms)| s.movetime = Some(Duration::from_millis(ms)),
        |s| s.movetime.map(|t| t.as_millis().to_string())
    ),
    setting!(
        "root",
        Kind::Choice(ROOTS),
        "",
        "root algorithm: PUCT, or Gumbel-Top-k with sequential halving",
        |s, Parsed::Word(w)| s.search.root = if w == "gumbel" {
            RootSearch::Gumbel
        } else {
            RootSearch::Puct
        },
        |s| Some(ROOTS[usize::from(s.search.root == RootSearch::Gumbel)].into())
    ),
    setting!(
        "c_puct",
        setting::C_PUCT,
        "",
        "PUCT exploration constant",
        |s, Parsed::Real(x)| s.search.c_puct = x,
        |s| Some(s.search.c_puct.to_string())
    ),
    setting!(
        "fpu_reduction",
        setting::FPU_REDUCTION,
        "",
        "first-play urgency: an unvisited child is valued at its parent's value less this \
         times the square root of the prior mass already visited",
        |s, Parsed::Real(x)| s.search.fpu_reduction = x,
        |s| Some(s.search.fpu_reduction.to_string())
    ),
    setting!(
        "gumbel_actions",
        setting::GUMBEL_ACTIONS,
        "moves",
        "Gumbel root: moves sampled (k of Gumbel-Top-k)",
        |s, Parsed::Count(n)| s.search.gumbel_actions = n as u32,
        |s| Some(s.search.gumbel_actions.to_string())
    ),
    setting!(
        "gumbel_c_visit",
        setting::GUMBEL_C_VISIT,
        "",
        "Gumbel root: c_visit of the completed-Q transform",
        |s, Parsed::Real(x)| s.search.gumbel_c_visit = x,
        |s| Some(s.search.gumbel_c_visit.to_string())
    ),
    setting!(
        "gumbel_c_scale",
        setting::GUMBEL_C_SCALE,
        "",
        "Gumbel root: c_scale of the completed-Q transform",
        |s, Parsed::Real(x)| s.search.gumbel_c_scale = x,
        |s| Some(s.search.gumbel_c_scale.to_string())
    ),
    setting!(
        "contempt",
        setting::CONTEMPT,
        "a win's value",
        "a draw is worth -contempt to the player (wins are 1, losses -1)",
        |s, Parsed::Real(x)| s.search.contempt = x,
        |s| Some(s.search.contempt.to_string())
    ),
    setting!(
        "root_value",
        Kind::Choice(ROOT_VALUES),
        "",
        "the root's reported win/draw/loss: the mean over all simulations, or the most \
         visited move's",
        |s, Parsed::Word(w)| s.search.root_value = if w == "best" {
            RootValue::Best
        } else {
            RootValue::Mean
        },
        |s| Some(ROOT_VALUES[usize::from(s.search.root_value == RootValue::Best)].into())
    ),
    setting!(
        "twofold_draws",
        Kind::Flag,
        "",
        "a position met again inside the searched line is a draw",
        |s, Parsed::Flag(b)| s.search.twofold_draws = b,
        |s| Some(s.search.twofold_draws.to_string())
    ),
    setting!(
        "move_choice",
        Kind::Choice(MOVE_CHOICES),
        "",
        "the move played: the most visited, or the highest lower confidence bound (PUCT only)",
        |s, Parsed::Word(w)| s.search.move_choice = if w == "lcb" {
            MoveChoice::Lcb
        } else {
            MoveChoice::Visits
        },
        |s| Some(MOVE_CHOICES[usize::from(s.search.move_choice == MoveChoice::Lcb)].into())
    ),
    setting!(
        "lcb_stdevs",
        setting::LCB_STDEVS,
        "standard errors",
        "standard errors taken off a move's value for move_choice = lcb",
        |s, Parsed::Real(x)| s.search.lcb_stdevs = x,
        |s| Some(s.search.lcb_stdevs.to_string())
    ),
    setting!(
        "symmetries",
        Kind::Count(1, MAX_SYMMETRIES),
        "images",
        "symmetric images whose mean answers each leaf (4 rotations, 8 with reflections, 16 \
         with the rings swapped), one network evaluation each",
        |s, Parsed::Count(n)| s.symmetries = n as usize,
        |s| Some(s.symmetries.to_string())
    ),
    setting!(
        "hash",
        Kind::Count(1, 4096),
        "MiB",
        "memory of the search: three quarters for its tree, which stops growing there (the \
         search goes on inside it), one for the network cache",
        |s, Parsed::Count(n)| s.hash_mib = n as usize,
        |s| Some(s.hash_mib.to_string())
    ),
    setting!(
        "inference",
        Kind::Choice(INFERENCE),
        "",
        "how the network is evaluated: the fast CPU path where it applies, or always burn",
        |s, Parsed::Word(w)| s.inference = if w == "burn" {
            InferencePath::Burn
        } else {
            InferencePath::Fastest
        },
        |s| Some(INFERENCE[usize::from(s.inference == InferencePath::Burn)].into())
    ),
    setting!(
        "precision",
        Kind::Choice(PRECISIONS),
        "",
        "arithmetic of the network's products: auto (bf16 on CPUs with AMX tiles, 32-bit \
         elsewhere), or forced: f32, bf16 (needs AMX) or int8 (needs AMX, AVX-512 VNNI or AVX2)",
        |s, Parsed::Word(w)| s.precision = Precision::parse_request(w).unwrap_or(None),
        |s| Some(s.precision.map_or("auto", Precision::name).into())
    ),
    setting!(
        "db",
        Kind::Path,
        "folder",
        "endgame databases (kvarn solve) probed in the search: exact leaves, and a root move \
         that keeps a certain value",
        |s, Parsed::Path(p)| s.db = Some(p),
        |s| s.db.as_ref().map(|p| p.display().to_string())
    ),
    setting!(
        "db_men",
        Kind::Count(3, 9),
        "men a side",
        "the most men a side of the databases probed (default: all there)",
        |s, Parsed::Count(n)| s.db_men = Some(n as u8),
        |s| s.db_men.map(|n| n.to_string())
    ),
];

/// The setting called `name`: its name as declared, or the engine's spelling of it (any
/// case, without underscores).
pub fn find_setting(name: &str) -> Option<&'static Setting> {
    let plain = |s: &str| s.replace('_', "").to_ascii_lowercase();
    SETTINGS
        .iter()
        .find(|s| s.name == name)
        .or_else(|| SETTINGS.iter().find(|s| plain(s.name) == plain(name)))
}

/// The `key=value` items of a comma-separated settings list (`net:` options, `--player`,
/// a model's recorded player), in order, each trimmed; empty items are passed over.
///
/// # Errors
/// [`PlayerError::NotAPair`] for an item without `=`.
pub fn pairs(text: &str) -> Result<Vec<(&str, &str)>, PlayerError> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|item| {
            item.split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| PlayerError::NotAPair(item.into()))
        })
        .collect()
}

/// Names some earlier surfaces used for a setting, for the message that refuses them.
const FORMER_NAMES: &[(&str, &str)] = &[
    ("fpu", "fpu_reduction"),
    ("burn", "inference=burn"),
    ("eval_simulations", "simulations"),
    ("eval_symmetries", "symmetries"),
    ("eval_move_choice", "move_choice"),
];

/// Why a setting was refused: its name and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayerError {
    /// No such setting.
    #[error("unknown player setting `{name}`{hint} (settings: {})", names())]
    Unknown {
        /// The name given.
        name: String,
        /// What it is called now, where it was once called so.
        hint: String,
    },
    /// A value out of the setting's range.
    #[error("player setting {name}: {reason}")]
    Value {
        /// The setting.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// Settings that do not go together.
    #[error("player settings: {0}")]
    Conflict(String),
    /// An item of a settings list that is not `SETTING=VALUE`.
    #[error("`{0}` is not SETTING=VALUE")]
    NotAPair(String),
}

fn names() -> String {
    SETTINGS
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(", ")
}

impl PlayerSettings {
    /// The evaluation player of a run before `[loop.player]`: the run's tree search
    /// (`[search]`, whose noise and temperatures a player never uses) but for its count of
    /// simulations and its move choice, which are self-play's, and every other setting at
    /// its default.
    pub fn from_search(search: &SearchConfig) -> PlayerSettings {
        let mut settings = PlayerSettings {
            search: search.clone(),
            ..PlayerSettings::default()
        };
        // `[search]`'s count and move choice are self-play's; the player has its own.
        settings.search.simulations = DEFAULT_SIMULATIONS;
        settings.search.move_choice = MoveChoice::default();
        settings
    }

    /// Sets `name` to the text `value`.
    ///
    /// # Errors
    /// [`PlayerError`] naming an unknown setting or a value out of range.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), PlayerError> {
        let Some(setting) = find_setting(name) else {
            let hint = FORMER_NAMES
                .iter()
                .find(|(old, _)| *old == name)
                .map_or(String::new(), |(_, new)| format!(": it is now `{new}`"));
            return Err(PlayerError::Unknown {
                name: name.into(),
                hint,
            });
        };
        let parsed = setting
            .kind
            .parse(value.trim())
            .map_err(|reason| PlayerError::Value {
                name: setting.name.into(),
                reason,
            })?;
        (setting.set)(self, parsed);
        Ok(())
    }

    /// Applies `key=value` settings separated by commas, then checks the whole.
    ///
    /// # Errors
    /// The first setting refused, or settings that do not go together.
    pub fn apply(&mut self, text: &str) -> Result<(), PlayerError> {
        for (key, value) in pairs(text)? {
            self.set(key, value)?;
        }
        self.validate()
    }

    /// Checks the settings together (each alone was checked when set).
    ///
    /// # Errors
    /// [`PlayerError::Conflict`] for settings that do not go together.
    pub fn validate(&self) -> Result<(), PlayerError> {
        if !self.search.move_choice.fits(self.search.root) {
            return Err(PlayerError::Conflict(
                LCB_NEEDS_PUCT.replace("search.root = \"puct\"", "root=puct"),
            ));
        }
        if self.movetime.is_some() && self.search.root == RootSearch::Gumbel {
            return Err(PlayerError::Conflict(
                "movetime needs root=puct: a timed search grows in steps, which Gumbel's \
                 halving does not allow"
                    .into(),
            ));
        }
        if self.db.is_none() && self.db_men.is_some() {
            return Err(PlayerError::Conflict("db_men needs db=DIR".into()));
        }
        if let Some(precision) = self.precision {
            if let Err(e) = Precision::resolve(Some(precision)) {
                return Err(PlayerError::Value {
                    name: "precision".into(),
                    reason: e.to_string(),
                });
            }
            if self.inference == InferencePath::Burn && precision != Precision::F32 {
                return Err(PlayerError::Conflict(format!(
                    "precision={precision} needs inference=fast: burn computes in 32-bit"
                )));
            }
        }
        if let Some(reason) = kvarn_storage::machine::beyond_memory(self.hash_mib as u64) {
            return Err(PlayerError::Value {
                name: "hash".into(),
                reason,
            });
        }
        Ok(())
    }

    /// Checks the settings against `rules`.
    ///
    /// # Errors
    /// `db_men` above the variant's men.
    pub fn validate_for(&self, rules: &Rules) -> Result<(), PlayerError> {
        self.validate()?;
        match self.db_men {
            Some(m) if m > rules.men() => Err(PlayerError::Value {
                name: "db_men".into(),
                reason: format!("{m} is more than the {} men of {rules}", rules.men()),
            }),
            _ => Ok(()),
        }
    }

    /// Every setting that differs from `base`, as `key=value,...` text that
    /// [`PlayerSettings::apply`] reads back.
    pub fn differences(&self, base: &PlayerSettings) -> String {
        SETTINGS
            .iter()
            .filter_map(|s| {
                let value = s.value(self)?;
                (s.value(base).as_ref() != Some(&value)).then(|| format!("{}={value}", s.name))
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Every setting that differs from the defaults (see [`PlayerSettings::differences`]).
    pub fn spec(&self) -> String {
        self.differences(&PlayerSettings::default())
    }

    /// The search's limits: the simulations where given or where no time limit is.
    pub fn limits(&self) -> Limits {
        Limits {
            nodes: match (self.simulations, self.movetime) {
                (Some(n), _) => Some(u64::from(n)),
                (None, None) => Some(u64::from(DEFAULT_SIMULATIONS)),
                (None, Some(_)) => None,
            },
            movetime: self.movetime,
            depth: None,
        }
    }

    /// The tree search as the player runs it.
    pub fn search_config(&self) -> SearchConfig {
        let mut search = self.search.clone();
        search.simulations = self.simulations.unwrap_or(DEFAULT_SIMULATIONS);
        let cache_mib = self.hash_mib * CACHE_QUARTERS / 4;
        search.cache_entries = cache_mib.max(1) * CACHE_ENTRIES_PER_MIB;
        search.tree_nodes = (self.hash_mib - cache_mib) * (1 << 20) / NODE_BYTES;
        search
    }

    /// The player of `network` with these settings, named `name`, probing `endgame` (the
    /// databases of `db`, opened by the caller, which knows where relative paths start).
    /// Its evaluations run on the calling thread: a match runs many games in parallel.
    ///
    /// # Errors
    /// A forced precision that the network's path cannot run (a network on a GPU in bf16).
    pub fn player(
        &self,
        name: impl Into<String>,
        network: &Network,
        endgame: Option<Arc<Endgame>>,
    ) -> Result<SearchPlayer<SymmetryAveraged<Inference>>, PlayerError> {
        let inference = Inference::new(network, self.inference, self.precision).map_err(|e| {
            PlayerError::Value {
                name: "precision".into(),
                reason: e.to_string(),
            }
        })?;
        let inference = SymmetryAveraged::new(
            inference.single_threaded(),
            network.rules(),
            self.symmetries,
        );
        Ok(SearchPlayer::new(name, self.search_config(), inference)
            .with_limits(self.limits())
            .with_endgame(endgame))
    }
}

/// A `[loop.player]` table: settings by name, each a TOML string, number or boolean,
/// applied in the order given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct PlayerTable(pub std::collections::BTreeMap<String, Scalar>);

/// A TOML or JSON scalar, as a setting's text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Scalar {
    /// true or false.
    Flag(bool),
    /// A whole number.
    Whole(i64),
    /// A real number.
    Real(f64),
    /// Text.
    Text(String),
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Flag(b) => write!(f, "{b}"),
            Scalar::Whole(n) => write!(f, "{n}"),
            Scalar::Real(x) => write!(f, "{x}"),
            Scalar::Text(t) => f.write_str(t),
        }
    }
}

impl PlayerTable {
    /// Applies every setting of the table to `settings`.
    ///
    /// # Errors
    /// The first setting refused.
    pub fn apply_to(&self, settings: &mut PlayerSettings) -> Result<(), PlayerError> {
        for (key, value) in &self.0 {
            settings.set(key, &value.to_string())?;
        }
        settings.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_reads_back_its_own_value_and_default() {
        let defaults = PlayerSettings::default();
        for s in SETTINGS {
            if let Some(v) = s.value(&defaults) {
                let mut again = PlayerSettings::default();
                again.set(s.name, &v).unwrap();
                assert_eq!(again, defaults, "{}", s.name);
            }
        }
    }

    #[test]
    fn settings_are_read_and_written_back() {
        let mut s = PlayerSettings::default();
        s.apply(
            "simulations=800,c_puct=2.5,fpu_reduction=0,root_value=best,twofold_draws=true,\
             symmetries=8,move_choice=lcb,lcb_stdevs=3",
        )
        .unwrap();
        assert_eq!(s.symmetries, 8);
        assert_eq!(s.search_config().simulations, 800);
        assert_eq!(s.search.fpu_reduction, 0.0);
        assert_eq!(s.search.move_choice, MoveChoice::Lcb);
        assert_eq!(
            s.spec(),
            "simulations=800,c_puct=2.5,fpu_reduction=0,root_value=best,twofold_draws=true,\
             move_choice=lcb,lcb_stdevs=3,symmetries=8"
        );
        let mut again = PlayerSettings::default();
        again.apply(&s.spec()).unwrap();
        assert_eq!(again, s);
    }

    #[test]
    fn limits_follow_simulations_and_movetime() {
        let mut s = PlayerSettings::default();
        assert_eq!(s.limits().nodes, Some(64));
        s.set("movetime", "200").unwrap();
        assert_eq!(s.limits().nodes, None);
        s.set("simulations", "100").unwrap();
        assert_eq!(s.limits().nodes, Some(100));
    }

    #[test]
    fn bad_settings_are_named() {
        let error = |text: &str| {
            PlayerSettings::default()
                .apply(text)
                .unwrap_err()
                .to_string()
        };
        assert!(error("c_puct=0").contains("c_puct: `0` is not a number in (0, 100]"));
        assert!(error("c_puct=-1").contains("c_puct"));
        assert!(error("fpu=0").contains("it is now `fpu_reduction`"));
        assert!(error("root=mcts").contains("`mcts` is not puct|gumbel"));
        assert!(error("simulations=0").contains("simulations: `0` is not a whole number"));
        assert!(error("symmetries=17").contains("in 1..=16"));
        assert!(error("lcb_stdevs=inf").contains("lcb_stdevs"));
        assert!(error("root=gumbel,move_choice=lcb").contains("root=puct"));
        assert!(error("depth=3").contains("unknown player setting `depth`"));
        assert!(error("db_men=4").contains("db_men needs db"));
    }

    #[test]
    fn engine_spellings_find_their_settings() {
        assert_eq!(find_setting("movechoice").unwrap().name, "move_choice");
        assert_eq!(find_setting("MoveChoice").unwrap().name, "move_choice");
        assert_eq!(
            find_setting("move_choice").unwrap().option_name(),
            "MoveChoice"
        );
        assert_eq!(find_setting("hash").unwrap().option_name(), "Hash");
    }

    #[test]
    fn a_table_of_toml_scalars_sets_the_player() {
        let table: PlayerTable = toml::from_str(
            "simulations = 160\nmove_choice = \"lcb\"\ntwofold_draws = true\ncontempt = 0.5",
        )
        .unwrap();
        let mut s = PlayerSettings::default();
        table.apply_to(&mut s).unwrap();
        assert_eq!(s.simulations, Some(160));
        assert_eq!(s.search.move_choice, MoveChoice::Lcb);
        assert!(s.search.twofold_draws);
        assert_eq!(s.search.contempt, 0.5);
    }
}
