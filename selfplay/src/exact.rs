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

use std::collections::HashSet;
use std::path::Path;

use kvarn_game::{ActionSpace, Game, Rules};
use kvarn_solver::Value;

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
