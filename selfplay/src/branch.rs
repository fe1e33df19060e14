//! Branch starts: a share of the self-play games begins from a position of the moving phase
//! that the previous generation's games reached, and goes its own way from there (its
//! first moves drawn at the opening temperature). Self-play then meets the long
//! moving-phase positions, where drawn positions are held or lost, more often, as a late
//! move temperature makes it do, while every game after its branch point is played by the
//! search's own choices, so that its result is the result of those choices: the forks of
//! KataGo's self-play, taken from the last generation's games instead of the game in
//! flight so that each game stays one index with one seed.

use kvarn_game::{Color, Game, Position, Rules};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::config::SettingError;
use crate::endgame::Endgame;
use crate::shard::Sample;

/// Games started from positions of earlier games (`[selfplay.branch_starts]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BranchStarts {
    /// Share of all games that start from a position of the previous generation's games
    /// (with `random_starts.share`, at most 1: the rest start from the empty board).
    pub share: f64,
    /// Plies after the branch point whose moves are drawn at `search.temperature` (the
    /// branch itself), before the game turns greedy (or to `search.late_temperature`);
    /// in place of `search.temperature_plies` for these games. The Gumbel root draws no
    /// moves at a temperature, so it ignores both.
    pub temperature_plies: u32,
}

impl Default for BranchStarts {
    fn default() -> Self {
        BranchStarts {
            share: 0.0,
            temperature_plies: 2,
        }
    }
}

impl BranchStarts {
    /// Checks the settings.
    ///
    /// # Errors
    /// The first setting out of range.
    pub fn validate(&self) -> Result<(), SettingError> {
        SettingError::check(
            (0.0..=1.0).contains(&self.share),
            "selfplay.branch_starts.share",
            "must be in 0..=1",
        )?;
        SettingError::check_range(
            "selfplay.branch_starts.temperature_plies",
            self.temperature_plies,
            0..=200,
        )
    }
}

/// The positions branch starts are drawn from: each moving-phase position of the given
/// games' samples, once per time a game searched it (so that the positions games spend
/// long in are drawn as often as they are played).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BranchPool {
    positions: Vec<Position>,
}

impl BranchPool {
    /// The moving-phase positions (no man in hand on either side) among `samples`, in
    /// their order, that the rules take as a start, that are not over, and whose value
    /// `endgame`'s databases (where given) do not already know: a game from those would
    /// be adjudicated at once, or searched to an exact value the network learns from
    /// exact samples more cheaply.
    pub fn from_samples<'a>(
        rules: &Rules,
        samples: impl IntoIterator<Item = &'a Sample>,
        endgame: Option<&Endgame>,
    ) -> Self {
        let open = |g: &Game| !g.status().is_over() && endgame.is_none_or(|e| e.probe(g).is_none());
        let positions = samples
            .into_iter()
            .map(|s| s.position)
            .filter(|p| p.in_hand(Color::White) == 0 && p.in_hand(Color::Black) == 0)
            .filter(|p| Game::from_position(*rules, *p).is_ok_and(|g| open(&g)))
            .collect();
        BranchPool { positions }
    }

    /// Positions in the pool.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the pool has no position (the first generation's: no earlier games).
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// A position drawn uniformly, or `None` from an empty pool.
    pub fn draw(&self, rng: &mut impl Rng) -> Option<Position> {
        (!self.positions.is_empty())
            .then(|| self.positions[rng.random_range(0..self.positions.len())])
    }
}
