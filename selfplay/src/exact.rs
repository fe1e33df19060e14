//! Exact samples: positions drawn from the endgame databases and labelled with their
//! certain value and value-keeping moves, training samples that cost no search.
//!
//! Self-play sees an endgame kind only along its games' lines, a few hundred positions a
//! generation; a table covers the kind evenly. Nine's long flying wins (3 v 4, won for
//! the side with three men in 20 turns and more) are where a network trained on games
//! alone still misjudges positions, and these samples show it such positions by the ten
//! thousand. Positions of the committed benchmark sets are never drawn, so that the sets
//! still judge positions the network has not been shown.

use std::collections::HashSet;

use kvarn_eval::solver::Value;
use kvarn_game::{ActionSpace, Game, Position, Rules};

use crate::config::EndgameUse;
use crate::endgame::Endgame;
use crate::selfplay::{drawn, game_rng};
use crate::shard::Sample;
use crate::starts::RandomStarts;

/// Seed stream of the choice between a decisive and any certain position.
const DECISIVE_STREAM: u64 = 0x6578_6163;
/// Draws of one sample before it is given up: a probe is cheap, and only a men range
/// without a single decisive position exhausts them.
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
    /// Canonical keys of positions never to draw (see [`canonical_key`]).
    pub excluded: &'a HashSet<u64>,
}

/// The key of `pos`'s canonical form under the board's symmetries: one key for a
/// position and all its images.
pub fn canonical_key(rules: &Rules, pos: &Position) -> u64 {
    pos.canonical(rules).0.key()
}

impl ExactSampling<'_> {
    /// `n` samples, sample `i` from its own generator of `seed` (so any part of them can
    /// be drawn again alike). A sample whose draws all fail is left out; only a men range
    /// outside the databases does that.
    pub fn samples(&self, seed: u64, n: u64) -> Vec<Sample> {
        let actions = ActionSpace::new(&self.rules);
        (0..n)
            .filter_map(|i| self.sample(&actions, seed, i))
            .collect()
    }

    fn sample(&self, actions: &ActionSpace, seed: u64, i: u64) -> Option<Sample> {
        let mut rng = game_rng(seed, i);
        let decisive = drawn(seed, DECISIVE_STREAM, i) < self.uses.decisive_starts;
        let accept = |g: &Game| {
            let value = self.endgame.probe(g);
            let wanted = match value {
                None => false,
                Some(Value::Win(d) | Value::Loss(d)) => {
                    !decisive || d >= self.uses.decisive_min_turns
                }
                Some(Value::Draw) => !decisive,
            };
            wanted
                && !self
                    .excluded
                    .contains(&canonical_key(&self.rules, g.position()))
        };
        let game = self
            .starts
            .draw_where(self.rules, &mut rng, DRAWS, accept)?;
        self.endgame.exact_sample(&game, actions)
    }
}
