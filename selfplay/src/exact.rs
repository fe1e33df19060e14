//! Exact samples: positions drawn from the endgame databases and labelled with their
//! certain value and value-keeping moves, training samples that cost no search.
//!
//! Self-play sees an endgame kind only along its games' lines, a few hundred positions a
//! generation; a table covers the kind evenly. Nine's long flying wins (3 v 4, won for
//! the side with three men in 20 turns and more) are where a network trained on games
//! alone still misjudges positions, and these samples show it such positions by the ten
//! thousand. Positions of the committed benchmark sets are never drawn, nor their
//! symmetric images or colour-swapped twins, so that the sets still judge positions the
//! network has not been shown.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use kvarn_game::{ActionSpace, Game, Move, Outcome, Phase, Position, Rules};
use kvarn_solver::Value;
use kvarn_solver::benchmark::BenchPosition;
use rand::RngExt;

use crate::config::EndgameUse;
use crate::endgame::Endgame;
use crate::selfplay::{SelfPlayError, drawn, game_rng};
use crate::shard::{SHARD_EXTENSION, Sample, ShardError, read_shard};
use crate::starts::RandomStarts;

/// Seed stream of the choice between a decisive and any certain position.
const DECISIVE_STREAM: u64 = 0x6578_6163;
/// Draws of one sample before the sampling fails: a probe is cheap, and only settings
/// the databases cannot meet (men they do not cover, a decisive distance no win
/// reaches) exhaust them.
const DRAWS: usize = 100_000;

/// What the exact samples of one generation are drawn from.
pub struct ExactSampling<'a> {
    /// The rules of the games (and of the databases).
    pub rules: Rules,
    /// Men counts and sides, as for random starts.
    pub starts: &'a RandomStarts,
    /// The share that must be decisive, and how far from the end (`decisive_starts`,
    /// `decisive_min_turns`).
    pub uses: &'a EndgameUse,
    /// The databases.
    pub endgame: &'a Endgame,
    /// Canonical keys of positions never to draw (see [`Position::canonical_key`]).
    pub excluded: &'a HashSet<u64>,
}

/// Canonical keys of every position that the self-play shards under `dir` (searched
/// through its sub-folders, e.g. a run folder) hold, games and exact samples alike: the
/// positions a model of that run was trained on, to leave out of a set that judges it.
///
/// # Errors
/// A folder cannot be read, a shard is damaged, or holds positions of other rules.
pub fn shard_keys(rules: &Rules, dir: &Path) -> Result<HashSet<u64>, ShardError> {
    let mut keys = HashSet::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries =
            std::fs::read_dir(&folder).map_err(|e| ShardError::invalid(&folder, e.to_string()))?;
        for entry in entries {
            let path = entry
                .map_err(|e| ShardError::invalid(&folder, e.to_string()))?
                .path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|x| x == SHARD_EXTENSION) {
                let (header, samples) = read_shard(&path)?;
                if header.rules != *rules {
                    let why = format!("holds games of {}, not {rules}", header.rules);
                    return Err(ShardError::invalid(&path, why));
                }
                keys.extend(samples.iter().map(|s| s.position.canonical_key(rules)));
            }
        }
    }
    Ok(keys)
}

impl ExactSampling<'_> {
    /// `n` samples, sample `i` from its own generator of `seed` (so any part of them can
    /// be drawn again alike). A position no move of which keeps its value with certainty
    /// is left out (rare: the count is the caller's to report).
    ///
    /// # Errors
    /// A sample's draws all failed: the databases do not cover the men counts, or no
    /// win or loss lasts `decisive_min_turns` turns.
    pub fn samples(&self, seed: u64, n: u64) -> Result<Vec<Sample>, SelfPlayError> {
        let actions = ActionSpace::new(&self.rules);
        let mut out = Vec::with_capacity(n as usize);
        for i in 0..n {
            let game = self.draw(seed, i).ok_or(SelfPlayError::NoExactSample {
                sample: i,
                draws: DRAWS,
            })?;
            out.extend(self.endgame.exact_sample(&game, &actions));
        }
        Ok(out)
    }

    /// Sample `i`'s position: certain in the databases, decisive where its draw says so,
    /// never an excluded one. `None` when every draw failed.
    fn draw(&self, seed: u64, i: u64) -> Option<Game> {
        let mut rng = game_rng(seed, i);
        let decisive = drawn(seed, DECISIVE_STREAM, i) < self.uses.decisive_starts;
        let accept = |g: &Game| {
            let wanted = match self.endgame.probe(g) {
                None => false,
                Some(Value::Win(d) | Value::Loss(d)) => {
                    !decisive || d >= self.uses.decisive_min_turns
                }
                Some(Value::Draw) => !decisive,
            };
            wanted
                && !self
                    .excluded
                    .contains(&g.position().canonical_key(&self.rules))
        };
        self.starts.draw_where(self.rules, &mut rng, DRAWS, accept)
    }
}

/// Exact samples of every phase from a bank of solved positions (`kvarn sample-bank`),
/// which needs no tables: each row's exact value, and the moves that keep it as the
/// policy target (lost positions, where every move keeps the loss, teach the value
/// alone). The rows are grouped by phase and, within a phase, by men (men placed while
/// placing, men a side after), and a generation's samples are spread evenly over the
/// phases and within each over its counts of men: the placing positions, 2% of Nine's
/// bank, are then taught as much as the moving phase's.
pub struct BankSampling {
    /// Samples by phase, then by count of men.
    strata: Vec<(Phase, Vec<Vec<Sample>>)>,
    /// Rows of the banks left out because a committed benchmark set holds them (or one of
    /// their images): 0 for a bank drawn as `kvarn sample-bank` draws them.
    pub excluded: u64,
}

impl BankSampling {
    /// Reads the banks at `paths` as one, of `rules`, leaving out the positions whose
    /// canonical keys are in `excluded`.
    ///
    /// # Errors
    /// A bank is unreadable, damaged or of other rules, a row does not read, or a
    /// position is in two banks (or twice in one).
    pub fn open(
        paths: &[&Path],
        rules: &Rules,
        excluded: &HashSet<u64>,
    ) -> Result<BankSampling, SelfPlayError> {
        let mut groups: BTreeMap<(Phase, u16), Vec<Sample>> = BTreeMap::new();
        let mut seen = HashSet::new();
        let mut left_out = 0;
        for path in paths {
            left_out += read_into(path, rules, excluded, &mut seen, &mut groups)?;
        }
        let mut strata: Vec<(Phase, Vec<Vec<Sample>>)> = Vec::new();
        for ((phase, _), samples) in groups {
            match strata.last_mut() {
                Some((p, by_men)) if *p == phase => by_men.push(samples),
                _ => strata.push((phase, vec![samples])),
            }
        }
        if strata.is_empty() {
            return Err(SelfPlayError::Bank {
                path: paths.first().map(|p| p.to_path_buf()).unwrap_or_default(),
                reason: "holds no position to draw".into(),
            });
        }
        Ok(BankSampling {
            strata,
            excluded: left_out,
        })
    }

    /// `n` samples, sample `i` from its own generator of `seed`: its phase in turn, its
    /// count of men and its row at random.
    pub fn samples(&self, seed: u64, n: u64) -> Vec<Sample> {
        (0..n)
            .map(|i| {
                let mut rng = game_rng(seed, i);
                let (_, by_men) = &self.strata[(i % self.strata.len() as u64) as usize];
                let rows = &by_men[rng.random_range(0..by_men.len())];
                rows[rng.random_range(0..rows.len())].clone()
            })
            .collect()
    }

    /// Each phase with its counts of men and positions.
    pub fn strata(&self) -> Vec<(Phase, usize, usize)> {
        self.strata
            .iter()
            .map(|(p, by_men)| (*p, by_men.len(), by_men.iter().map(Vec::len).sum()))
            .collect()
    }
}

/// Reads the bank at `path` into `groups` (by phase and men), skipping the positions in
/// `excluded` and refusing one already `seen`; returns how many were skipped.
fn read_into(
    path: &Path,
    rules: &Rules,
    excluded: &HashSet<u64>,
    seen: &mut HashSet<u64>,
    groups: &mut BTreeMap<(Phase, u16), Vec<Sample>>,
) -> Result<u64, SelfPlayError> {
    let (header, rows) = kvarn_solver::benchmark::bank::read_bank(path)?;
    let bad = |reason: String| SelfPlayError::Bank {
        path: path.to_path_buf(),
        reason,
    };
    if header.rules != *rules {
        return Err(bad(format!(
            "holds positions of {}, not {rules}",
            header.rules
        )));
    }
    let actions = ActionSpace::new(rules);
    let mut left_out = 0;
    for (i, row) in rows.iter().enumerate() {
        let sample = bank_sample(rules, &actions, row)
            .map_err(|reason| bad(format!("row {}: {reason}", i + 1)))?;
        let key = sample.position.canonical_key(rules);
        if excluded.contains(&key) {
            left_out += 1;
            continue;
        }
        if !seen.insert(key) {
            return Err(bad(format!(
                "row {} ({}) is a position of another bank read with it, or of this one \
                 twice: draw a bank beside the others (`kvarn sample-bank --beside`)",
                i + 1,
                row.position
            )));
        }
        let key = (
            Phase::of(rules, &sample.position),
            men_key(rules, &sample.position),
        );
        groups.entry(key).or_default().push(sample);
    }
    Ok(left_out)
}

/// The men a position is grouped by: men placed while placing (from 100 up, apart from
/// the rest), else the mover's and the opponent's men.
fn men_key(rules: &Rules, pos: &Position) -> u16 {
    let (us, them) = (pos.side_to_move(), pos.side_to_move().opposite());
    if pos.is_placing() {
        let in_hand = u16::from(pos.in_hand(us)) + u16::from(pos.in_hand(them));
        100 + 2 * u16::from(rules.men()) - in_hand
    } else {
        (pos.men(us).count() * 10 + pos.men(them).count()) as u16
    }
}

/// A bank row as a training sample.
fn bank_sample(
    rules: &Rules,
    actions: &ActionSpace,
    row: &BenchPosition,
) -> Result<Sample, String> {
    let game = row.game(rules).map_err(|e| e.to_string())?;
    let keeping = row
        .preserving
        .iter()
        .map(|m| m.parse::<Move>().map_err(|e| format!("move {m}: {e}")))
        .collect::<Result<Vec<Move>, String>>()?;
    if keeping.is_empty() {
        return Err("no move keeps its value".into());
    }
    let share = 1.0 / keeping.len() as f32;
    let (result, wdl) = match row.value {
        Outcome::Win => (1, [1.0, 0.0, 0.0]),
        Outcome::Draw => (0, [0.0, 1.0, 0.0]),
        Outcome::Loss => (-1, [0.0, 0.0, 1.0]),
    };
    Ok(Sample {
        position: *game.position(),
        occurrences: 1,
        full_search: row.value != Outcome::Loss,
        result,
        search_wdl: wdl,
        policy: keeping
            .iter()
            .map(|&m| (actions.index(m) as u16, share))
            .collect(),
        explored: false,
        surprise: 0.0,
    })
}
