//! Agents named on the command line: every specification `kvarn-eval` reads (random,
//! alpha-beta, external engines, the perfect player) and network players,
//!
//! ```text
//! net:model=FILE[,simulations=N][,movetime=MS][,contempt=C][,c_puct=X][,fpu=X]
//!     [,root=puct|gumbel][,root_value=mean|best][,twofold_draws=true|false]
//!     [,move_choice=visits|lcb][,lcb_stdevs=X][,symmetries=K][,burn][,db=DIR[,db_men=M]]
//! ```
//!
//! the model's tree search with `simulations` per move (default 64, no noise, greedy), on
//! the CPU; `movetime` limits it by time instead (with `simulations` too: whichever ends
//! first), as `alphabeta:movetime=MS` is, so that the two compare at equal time; a draw
//! is worth `-contempt` to it (-1..1, default 0); `c_puct`, `fpu` (first-play urgency
//! reduction) and `root` override the search's defaults (1.5, 0.25, puct), so that a
//! benchmark can tune them; `root_value`, `twofold_draws`, `move_choice` and `lcb_stdevs`
//! set the search's keys of the same names; `symmetries` answers each leaf with the mean
//! of the network's answers for K of the position's 16 symmetric images (default 1, the
//! position alone; 4 rotations, 8 with reflections, 16 with the rings swapped), K network
//! evaluations a leaf; `burn` evaluates through burn instead of the fast CPU path;
//! `db` probes the endgame databases in DIR (`kvarn solve`, up to `db_men` men a side,
//! default all there) in the search: exact leaves, and a root move that keeps a certain
//! value.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use std::time::Duration;

use anyhow::Context;
use kvarn_eval::agent::{AgentFactory, AgentSpec};
use kvarn_eval::search::Limits;
use kvarn_game::{Rules, SYMMETRY_COUNT};
use kvarn_model::{DeviceChoice, Inference, InferencePath, file};
use kvarn_selfplay::{
    Endgame, MoveChoice, RootSearch, RootValue, SearchConfig, SearchPlayer, SymmetryAveraged,
};

/// Reads an agent specification for games of `rules`.
pub fn factory(text: &str, rules: &Rules) -> anyhow::Result<Box<dyn AgentFactory>> {
    let Some(options) = text.strip_prefix("net:") else {
        let spec: AgentSpec = text.parse()?;
        return Ok(Box::new(spec));
    };
    let spec = NetSpec::parse(options)?;
    let device = DeviceChoice::Cpu.device()?;
    let (network, _) = file::load_for_rules(&spec.model, rules, &device)?;
    let endgame = match &spec.db {
        Some(dir) => {
            let endgame = Endgame::open(dir, *rules, spec.db_men).with_context(|| {
                format!("net: loading the endgame databases in {}", dir.display())
            })?;
            Some(Arc::new(endgame))
        }
        None => None,
    };
    let limits = spec.limits();
    let player = SearchPlayer::new(
        spec.name(&limits),
        spec.search.clone(),
        SymmetryAveraged::new(
            Inference::new(&network, spec.path).single_threaded(),
            rules,
            spec.symmetries,
        ),
    );
    Ok(Box::new(player.with_limits(limits).with_endgame(endgame)))
}

/// The options of a `net:` specification.
struct NetSpec {
    model: PathBuf,
    /// Whether `simulations` was given (otherwise a time limit alone bounds the search).
    simulations_given: bool,
    movetime: Option<Duration>,
    search: SearchConfig,
    path: InferencePath,
    /// Symmetric images averaged at each leaf.
    symmetries: usize,
    db: Option<PathBuf>,
    db_men: Option<u8>,
}

impl NetSpec {
    fn parse(options: &str) -> anyhow::Result<NetSpec> {
        let mut model = None;
        let mut spec = NetSpec::defaults();
        for item in options.split(',').filter(|s| !s.is_empty()) {
            match item.split_once('=') {
                Some(("model", v)) => model = Some(PathBuf::from(v)),
                Some((key, v)) => spec.set(key, v)?,
                None if item == "burn" => spec.path = InferencePath::Burn,
                None => anyhow::bail!("net: unknown option `{item}` ({OPTIONS})"),
            }
        }
        if !spec.search.move_choice.fits(spec.search.root) {
            anyhow::bail!(
                "net: move_choice=lcb needs root=puct: a Gumbel root plays the move its \
                 halving kept"
            );
        }
        spec.model = model.context("net needs model=FILE (a .kvmodel or .safetensors file)")?;
        Ok(spec)
    }

    /// Every option at its default; the model still to be named.
    fn defaults() -> NetSpec {
        NetSpec {
            model: PathBuf::new(),
            simulations_given: false,
            movetime: None,
            search: SearchConfig {
                simulations: 64,
                // Bounded per game: a match keeps a player for each game in flight.
                cache_entries: 100_000,
                ..SearchConfig::default()
            },
            path: InferencePath::Fastest,
            symmetries: 1,
            db: None,
            db_men: None,
        }
    }

    /// Sets option `key` to the text `v`, or says why it cannot.
    fn set(&mut self, key: &str, v: &str) -> anyhow::Result<()> {
        let search = &mut self.search;
        match key {
            "simulations" => {
                search.simulations = number(key, v, 1..=u32::MAX, "a count >= 1")?;
                self.simulations_given = true;
            }
            "movetime" => {
                let ms = number(key, v, 1..=u64::MAX, "milliseconds >= 1")?;
                self.movetime = Some(Duration::from_millis(ms));
            }
            "contempt" => search.contempt = number(key, v, -1.0..=1.0, "a number in -1..1")?,
            "c_puct" => search.c_puct = number(key, v, 0.0..=100.0, "a number in 0..100")?,
            "fpu" => search.fpu_reduction = number(key, v, 0.0..=2.0, "a number in 0..2")?,
            "root" => {
                search.root = match v {
                    "puct" => RootSearch::Puct,
                    "gumbel" => RootSearch::Gumbel,
                    _ => anyhow::bail!("net: root `{v}` is not `puct` or `gumbel`"),
                }
            }
            "root_value" => {
                search.root_value = v
                    .parse()
                    .map_err(|e| anyhow::anyhow!("net: root_value {e}"))?;
            }
            "twofold_draws" => {
                search.twofold_draws = match v {
                    "true" => true,
                    "false" => false,
                    _ => anyhow::bail!("net: twofold_draws `{v}` is not `true` or `false`"),
                }
            }
            "move_choice" => {
                search.move_choice = v
                    .parse()
                    .map_err(|e| anyhow::anyhow!("net: move_choice {e}"))?;
            }
            "lcb_stdevs" => search.lcb_stdevs = number(key, v, 0.0..=100.0, "a number in 0..100")?,
            "symmetries" => {
                let what = format!("a count in 1..={SYMMETRY_COUNT}");
                self.symmetries = number(key, v, 1..=SYMMETRY_COUNT, &what)?;
            }
            "db" => self.db = Some(PathBuf::from(v)),
            "db_men" => self.db_men = Some(number(key, v, 3..=9, "a count in 3..=9")?),
            _ => anyhow::bail!("net: unknown option `{key}={v}` ({OPTIONS})"),
        }
        Ok(())
    }

    /// Simulations bound the search where given, or where no time limit is.
    fn limits(&self) -> Limits {
        Limits {
            nodes: (self.simulations_given || self.movetime.is_none())
                .then_some(u64::from(self.search.simulations)),
            movetime: self.movetime,
            depth: None,
        }
    }

    /// The player's name in match reports: the model and every setting that differs.
    fn name(&self, limits: &Limits) -> String {
        let mut name = format!("net:model={}", self.model.display());
        if let Some(n) = limits.nodes {
            name.push_str(&format!(",simulations={n}"));
        }
        if let Some(t) = self.movetime {
            name.push_str(&format!(",movetime={}", t.as_millis()));
        }
        let defaults = SearchConfig::default();
        let search = &self.search;
        if search.contempt != defaults.contempt {
            name.push_str(&format!(",contempt={}", search.contempt));
        }
        if search.c_puct != defaults.c_puct {
            name.push_str(&format!(",c_puct={}", search.c_puct));
        }
        if search.fpu_reduction != defaults.fpu_reduction {
            name.push_str(&format!(",fpu={}", search.fpu_reduction));
        }
        if search.root == RootSearch::Gumbel {
            name.push_str(",root=gumbel");
        }
        if search.root_value == RootValue::Best {
            name.push_str(",root_value=best");
        }
        if search.twofold_draws {
            name.push_str(",twofold_draws=true");
        }
        if search.move_choice == MoveChoice::Lcb {
            name.push_str(&format!(
                ",move_choice=lcb,lcb_stdevs={}",
                search.lcb_stdevs
            ));
        }
        if self.symmetries > 1 {
            name.push_str(&format!(",symmetries={}", self.symmetries));
        }
        if let Some(dir) = &self.db {
            name.push_str(&format!(",db={}", dir.display()));
        }
        name
    }
}

/// What a `net:` specification accepts, for error messages.
const OPTIONS: &str = "expected model=FILE, simulations=N, movetime=MS, contempt=C, c_puct=X, \
                       fpu=X, root=puct|gumbel, root_value=mean|best, twofold_draws=true|false, \
                       move_choice=visits|lcb, lcb_stdevs=X, symmetries=K, burn, db=DIR or db_men=M";

/// Option `key`'s value `v`, which must parse and lie in `range` (`what` says how).
fn number<T: FromStr + PartialOrd>(
    key: &str,
    v: &str,
    range: std::ops::RangeInclusive<T>,
    what: &str,
) -> anyhow::Result<T> {
    v.parse::<T>()
        .ok()
        .filter(|x| range.contains(x))
        .with_context(|| format!("net: {key} `{v}` is not {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_settings_are_read_and_named() {
        let spec = NetSpec::parse(
            "model=m.kvmodel,simulations=800,c_puct=2.5,fpu=0,root=gumbel,root_value=best,\
             twofold_draws=true,symmetries=8",
        )
        .unwrap();
        assert_eq!(spec.symmetries, 8);
        assert_eq!(spec.search.simulations, 800);
        assert_eq!(spec.search.c_puct, 2.5);
        assert_eq!(spec.search.fpu_reduction, 0.0);
        assert_eq!(spec.search.root, RootSearch::Gumbel);
        assert_eq!(spec.search.root_value, RootValue::Best);
        assert!(spec.search.twofold_draws);
        let name = spec.name(&spec.limits());
        assert_eq!(
            name,
            "net:model=m.kvmodel,simulations=800,c_puct=2.5,fpu=0,root=gumbel,root_value=best,\
             twofold_draws=true,symmetries=8"
        );
        let lcb = NetSpec::parse("model=m.kvmodel,move_choice=lcb,lcb_stdevs=3").unwrap();
        assert_eq!(lcb.search.move_choice, MoveChoice::Lcb);
        assert_eq!(lcb.search.lcb_stdevs, 3.0);
        assert!(
            lcb.name(&lcb.limits())
                .ends_with(",move_choice=lcb,lcb_stdevs=3")
        );
        let plain = NetSpec::parse("model=m.kvmodel,movetime=200").unwrap();
        assert_eq!(plain.limits().nodes, None);
        assert_eq!(
            plain.name(&plain.limits()),
            "net:model=m.kvmodel,movetime=200"
        );
    }

    #[test]
    fn bad_options_are_named() {
        let error = |text: &str| NetSpec::parse(text).err().unwrap().to_string();
        assert!(error("model=m,c_puct=-1").contains("c_puct `-1`"));
        assert!(error("model=m,fpu=x").contains("fpu `x`"));
        assert!(error("model=m,root=mcts").contains("root `mcts`"));
        assert!(error("model=m,simulations=0").contains("simulations `0`"));
        assert!(
            error("model=m,symmetries=17").contains("symmetries `17` is not a count in 1..=16")
        );
        assert!(error("model=m,move_choice=best").contains("move_choice `best`"));
        assert!(error("model=m,lcb_stdevs=-1").contains("lcb_stdevs `-1`"));
        assert!(error("model=m,root=gumbel,move_choice=lcb").contains("needs root=puct"));
        assert!(error("model=m,depth=3").contains("unknown option `depth=3`"));
        assert!(error("simulations=3").contains("needs model=FILE"));
    }
}
