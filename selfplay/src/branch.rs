//! Branch starts: a share of the self-play games begins from a position of the moving phase
//! (and, where asked, of the placing phase) that the previous generation's games reached,
//! and goes its own way from there (its first moves drawn at the opening temperature).
//! Self-play then meets the long moving-phase positions, where drawn positions are held
//! or lost, more often, as a late move temperature makes it do, while every game after its
//! branch point is played by the search's own choices, so that its result is the result
//! of those choices: the forks of KataGo's self-play, taken from the last generation's
//! games instead of the game in flight so that each game stays one index with one seed.
//!
//! A share of the branches may start one move further, after a move that closes a mill,
//! with its removal pending: crowded, balanced boards with a mill just closed, which
//! self-play from the empty board rarely reaches (the players avoid them) and uniformly
//! random positions rarely are (their men are rarely balanced), while they are a third of
//! the removal decisions of a benchmark balanced over values.

use kvarn_game::{Color, Game, Position, Rules};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::endgame::Endgame;
use crate::shard::Sample;

/// Games started from positions of earlier games (`[selfplay.branch_starts]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BranchStarts {
    /// Share of all games that start from a position of the previous generation's games
    /// (with `random_starts.share`, at most 1: the rest start from the empty board).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub share: f64,
    /// Plies after the branch point whose moves are drawn at `search.temperature` (the
    /// branch itself), before the game turns greedy (or to `search.late_temperature`);
    /// in place of `search.temperature_plies` for these games. The Gumbel root draws no
    /// moves at a temperature, so it ignores both.
    #[schemars(range(min = 0, max = 200))]
    pub temperature_plies: u32,
    /// Also branch from positions of the placing phase (men still in hand), not only from
    /// the moving phase's.
    pub placing: bool,
    /// Share of the branch starts that begin after a move closing a mill (drawn uniformly
    /// among every such move of every position of the pool), with its removal pending.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub closing_mills: f64,
}

impl Default for BranchStarts {
    fn default() -> Self {
        BranchStarts {
            share: 0.0,
            temperature_plies: 2,
            placing: false,
            closing_mills: 0.0,
        }
    }
}

/// The positions branch starts are drawn from: each position of the given games' samples
/// of the phases the settings take, once per time a game searched it (so that the
/// positions games spend long in are drawn as often as they are played), and, where the
/// settings ask for them, each position after a move of theirs that closes a mill.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BranchPool {
    positions: Vec<Position>,
    closing: Vec<Position>,
    closing_share: f64,
}

impl BranchPool {
    /// The positions among `samples`, in their order, of the moving phase (no man in hand
    /// on either side; also of the placing phase where `settings.placing`) that the rules
    /// take as a start, that are not over, and whose value `endgame`'s databases (where
    /// given) do not already know: a game from those would be adjudicated at once, or
    /// searched to an exact value the network learns from exact samples more cheaply.
    /// With `settings.closing_mills`, also the positions after each of their moves that
    /// closes a mill, kept on the same terms.
    pub fn from_samples<'a>(
        rules: &Rules,
        samples: impl IntoIterator<Item = &'a Sample>,
        endgame: Option<&Endgame>,
        settings: &BranchStarts,
    ) -> Self {
        let open =
            |g: &Game| !g.status().is_over() && endgame.is_none_or(|e| e.outcome(g).is_none());
        let phase = |p: &Position| {
            settings.placing || (p.in_hand(Color::White) == 0 && p.in_hand(Color::Black) == 0)
        };
        let playable = |p: &Position| Game::from_position(*rules, *p).is_ok_and(|g| open(&g));
        let positions: Vec<Position> = samples
            .into_iter()
            .map(|s| s.position)
            .filter(phase)
            .filter(playable)
            .collect();
        let closing = if settings.closing_mills > 0.0 {
            positions
                .iter()
                .flat_map(|p| closing_mills(rules, p))
                .filter(playable)
                .collect()
        } else {
            Vec::new()
        };
        BranchPool {
            positions,
            closing,
            closing_share: settings.closing_mills,
        }
    }

    /// Positions in the pool.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the pool has no position (the first generation's: no earlier games).
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Positions after a move that closes a mill, in the pool.
    pub fn closing_len(&self) -> usize {
        self.closing.len()
    }

    /// A position drawn uniformly: with the settings' `closing_mills` share one after a
    /// move closing a mill (where the pool has one), else one of the games'; `None` from
    /// an empty pool. Without closing mills the generator advances as it always did, so
    /// that runs keep their games.
    pub fn draw(&self, rng: &mut impl Rng) -> Option<Position> {
        if self.closing_share > 0.0
            && !self.closing.is_empty()
            && rng.random_bool(self.closing_share)
        {
            return Some(self.closing[rng.random_range(0..self.closing.len())]);
        }
        (!self.positions.is_empty())
            .then(|| self.positions[rng.random_range(0..self.positions.len())])
    }
}

/// The positions after each legal move of `position` that closes a mill (the mover then
/// has a removal pending); none where a removal is already pending.
fn closing_mills(rules: &Rules, position: &Position) -> Vec<Position> {
    if position.pending_removal() {
        return Vec::new();
    }
    let mut after = Vec::new();
    position.for_each_legal_move(rules, |mv| {
        let mut next = *position;
        next.play_unchecked(rules, mv);
        if next.pending_removal() {
            after.push(next);
        }
    });
    after
}
