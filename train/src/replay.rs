//! The replay window: the samples of the most recent self-play shards, and mini-batches
//! drawn from them with a random board symmetry applied to each sample.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kvarn_game::Phase;
use kvarn_game::{ActionSpace, Bitboard, Color, Rules, SYMMETRY_COUNT, encoding};
use kvarn_selfplay::{
    BranchPool, BranchStarts, Endgame, Sample, SampleSource, ShardError, ShardHeader, read_shard,
};
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use rand::{Rng, RngExt};

use crate::config::{CheapSearchValue, OwnershipGames, SurpriseWeighs, TrainConfig};

/// A mini-batch, row-major, ready for the trainer.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// Rows.
    pub size: usize,
    /// Encoded positions, `size × input`.
    pub features: Vec<f32>,
    /// Legal actions, `size × actions`.
    pub legal: Vec<bool>,
    /// Search policy targets, `size × actions` (0 on illegal actions).
    pub policy: Vec<f32>,
    /// The weight of each row's policy loss: 0 where the policy is no training target
    /// (cheap searches), else 1, or the search's surprise frequency
    /// (`train.policy_surprise_weighs = "policy_loss"`).
    pub policy_weight: Vec<f32>,
    /// Win/draw/loss targets for the player to move, `size × 3`.
    pub value: Vec<f32>,
    /// The point planes of the row's ownership board (its game's final board, or the board
    /// `train.ownership_horizon` decisions on) seen from the row's player to move
    /// (own, opponent, empty: `kvarn_game::encoding::encode_points`), `size × 3n`: the
    /// target of the ownership head (`network.ownership_head`); zeros where unknown.
    pub ownership: Vec<f32>,
    /// 1 where the row's ownership board is known, else 0.
    pub ownership_weight: Vec<f32>,
}

/// One game's samples from the shards, with its final board where recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct GameSamples {
    /// The searched positions, in the game's order.
    pub samples: Vec<Sample>,
    /// The men of White and Black on the game's final board (absent in shards written
    /// before it was recorded).
    pub final_men: Option<[Bitboard; 2]>,
}

/// Why the window could not be filled.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// A shard is damaged or unreadable.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// A shard was played under other rules.
    #[error("{path}: played under {found}, the run plays {expected}")]
    Rules {
        /// The shard.
        path: String,
        /// Its rules.
        found: Rules,
        /// The run's.
        expected: Rules,
    },
    /// A game is in two shards of one generation (a stray copy or another run's shard).
    #[error("{path}: game {index} is in another shard of the generation too")]
    RepeatedGame {
        /// The second shard that holds it.
        path: String,
        /// The game's index.
        index: u64,
    },
}

/// The samples training draws from.
#[derive(Debug, Clone)]
pub struct ReplayWindow {
    rules: Rules,
    space: ActionSpace,
    perms: Vec<Vec<u16>>,
    samples: Vec<Sample>,
    /// The outcome part of each sample's value target (see [`outcome_targets`]).
    outcomes: Vec<[f32; 3]>,
    /// The search part of each sample's value target (see [`search_targets`]).
    searches: Vec<[f32; 3]>,
    /// Each sample's surprise frequency (see [`surprise_frequencies`]; 1: no weighting).
    frequencies: Vec<f32>,
    /// The men of White and Black on each sample's ownership board (its game's final
    /// board, or the board `train.ownership_horizon` decisions on), where known.
    ownership_boards: Vec<Option<[Bitboard; 2]>>,
    /// Whether the frequencies weigh the draws or the policy losses.
    surprise_weighs: SurpriseWeighs,
    /// Draws samples by weight (see [`ReplayWindow::weigh`]); none: uniformly.
    weighted: Option<WeightedIndex<f64>>,
}

impl ReplayWindow {
    /// An empty window for `rules`.
    pub fn new(rules: Rules) -> ReplayWindow {
        let space = ActionSpace::new(&rules);
        let perms = (0..SYMMETRY_COUNT)
            .map(|s| {
                space
                    .symmetry_permutation(s)
                    .into_iter()
                    .map(|a| a as u16)
                    .collect()
            })
            .collect();
        ReplayWindow {
            rules,
            space,
            perms,
            samples: Vec::new(),
            outcomes: Vec::new(),
            searches: Vec::new(),
            frequencies: Vec::new(),
            ownership_boards: Vec::new(),
            surprise_weighs: SurpriseWeighs::Draws,
            weighted: None,
        }
    }

    /// Draws each sample by its surprise frequency (as loaded, where the frequencies weigh
    /// the draws: `train.policy_surprise_weighs`), and removal decisions
    /// `removal_weight` times as often again, from now on (all 1: uniformly): removals
    /// are a small share of the samples, and the phase the network learns worst. Samples
    /// added later are drawn uniformly until this is called again.
    pub fn weigh(&mut self, removal_weight: f32) {
        let draws = self.surprise_weighs == SurpriseWeighs::Draws;
        let uniform =
            removal_weight == 1.0 && (!draws || self.frequencies.iter().all(|&f| f == 1.0));
        self.weighted = if uniform || self.samples.is_empty() {
            None
        } else {
            // f64: in f32 the running total of 10^5..10^6 weights is too coarse to draw
            // each sample with its own share.
            let w = self.samples.iter().zip(&self.frequencies).map(|(s, &f)| {
                let removal = if s.position.pending_removal() {
                    removal_weight
                } else {
                    1.0
                };
                let surprise = if draws { f } else { 1.0 };
                f64::from(surprise) * f64::from(removal)
            });
            WeightedIndex::new(w).ok()
        };
    }

    /// The samples of `generations` (each one generation's shards, oldest generation
    /// first), keeping the newest `train.window_samples`. Within a generation the games
    /// are taken in the order of their index, whatever shards they were written in, so
    /// that the window does not depend on how games were grouped (a resumed self-play
    /// groups them differently); samples from the databases follow them. The value
    /// targets' parts follow `train.bootstrap_explored` ([`outcome_targets`]) and
    /// `train.cheap_search_value` ([`search_targets`]); `train.policy_surprise_share`
    /// ([`surprise_frequencies`]) weighs the draws (once [`ReplayWindow::weigh`] is
    /// called) or the policy losses, as `train.policy_surprise_weighs` says.
    ///
    /// # Errors
    /// A shard is damaged or of other rules.
    pub fn load(
        rules: Rules,
        generations: &[Vec<PathBuf>],
        train: &TrainConfig,
    ) -> Result<ReplayWindow, ReplayError> {
        let mut w = ReplayWindow::new(rules);
        w.surprise_weighs = train.policy_surprise_weighs;
        for shards in generations {
            let (games, exact) = read_generation(rules, shards)?;
            for game in games {
                w.add_game(game, train);
            }
            w.extend(exact);
        }
        if w.samples.len() > train.window_samples {
            let cut = w.samples.len() - train.window_samples;
            w.samples.drain(..cut);
            w.outcomes.drain(..cut);
            w.searches.drain(..cut);
            w.frequencies.drain(..cut);
            w.ownership_boards.drain(..cut);
        }
        Ok(w)
    }

    /// Adds one game's samples, in order, with their value-target parts, their surprise
    /// frequencies as [`ReplayWindow::load`] says, and their ownership boards where
    /// `train.ownership_games` takes the game.
    fn add_game(&mut self, game: GameSamples, train: &TrainConfig) {
        let GameSamples { samples, final_men } = game;
        let decisive = samples.first().is_some_and(|s| s.result != 0);
        let final_men = match train.ownership_games {
            OwnershipGames::All => final_men,
            OwnershipGames::Decisive => final_men.filter(|_| decisive),
        };
        self.ownership_boards.extend(ownership_boards(
            &samples,
            final_men,
            train.ownership_horizon,
        ));
        let outcomes = outcome_targets(&samples, train.bootstrap_explored);
        let searches = search_targets(&samples, &outcomes, train.cheap_search_value);
        self.searches.extend(searches);
        self.outcomes.extend(outcomes);
        self.frequencies
            .extend(surprise_frequencies(&samples, train.policy_surprise_share));
        self.samples.extend(samples);
    }

    /// Adds samples, each with its own result as the outcome target (no game's order is
    /// known to cut at).
    pub fn extend(&mut self, samples: impl IntoIterator<Item = Sample>) {
        self.weighted = None;
        for sample in samples {
            self.outcomes.push(result_wdl(sample.result));
            self.searches.push(sample.search_wdl);
            self.frequencies.push(1.0);
            self.ownership_boards.push(None);
            self.samples.push(sample);
        }
    }

    /// Forgets every sample's ownership board, so that batches carry no ownership target:
    /// for a network without the ownership head, whose trainer would not read them
    /// (building them costs a sixth of the batches' drawing time).
    pub fn forget_ownership_boards(&mut self) {
        self.ownership_boards.fill(None);
    }

    /// Samples held.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether the window is empty.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The mean policy surprise of the window's full searches in each phase that has
    /// any, in the phases' order, with their count (see [`PhaseSurprise`]).
    /// Samples from the databases, which no search made, are left out.
    pub fn surprise_by_phase(&self) -> Vec<PhaseSurprise> {
        let mut sums: BTreeMap<Phase, (u64, f64)> = BTreeMap::new();
        for s in self.samples.iter().filter(|s| s.full_search) {
            let e = sums.entry(Phase::of(&self.rules, &s.position)).or_default();
            *e = (e.0 + 1, e.1 + f64::from(s.surprise));
        }
        sums.into_iter()
            .map(|(phase, (searches, sum))| PhaseSurprise {
                phase,
                searches,
                mean: sum / searches as f64,
            })
            .collect()
    }

    /// The samples.
    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }

    /// The weight of sample `i`'s policy loss: 0 for a cheap search (no policy target),
    /// else 1, or its surprise frequency where that weighs the policy losses.
    fn policy_weight(&self, i: usize) -> f32 {
        match (self.samples[i].full_search, self.surprise_weighs) {
            (false, _) => 0.0,
            (true, SurpriseWeighs::Draws) => 1.0,
            (true, SurpriseWeighs::PolicyLoss) => self.frequencies[i],
        }
    }

    /// The two parts of sample `i`'s value target, for the player to move: the outcome
    /// part ([`outcome_targets`]) and the search part ([`search_targets`]).
    ///
    /// # Panics
    /// When `i` is out of range.
    pub fn value_parts(&self, i: usize) -> ([f32; 3], [f32; 3]) {
        (self.outcomes[i], self.searches[i])
    }

    /// Sample `i` as training rows under board symmetry `sym`: features, legal mask,
    /// policy target and value target (`search_value_share` of the search part mixed into
    /// the outcome part).
    ///
    /// # Panics
    /// When `i` is out of range.
    pub fn row(
        &self,
        i: usize,
        sym: usize,
        search_value_share: f32,
    ) -> (Vec<f32>, Vec<bool>, Vec<f32>, [f32; 3]) {
        let sample = &self.samples[i];
        let pos = sample.position.transformed(&self.rules, sym);
        let mut features = vec![0f32; encoding::input_len(&self.rules)];
        encoding::encode_position(
            &self.rules,
            &pos,
            u32::from(sample.occurrences.max(1)),
            &mut features,
        );
        let mut legal = vec![false; self.space.len()];
        self.space.legal_mask(&self.rules, &pos, &mut legal);
        let mut policy = vec![0f32; self.space.len()];
        let perm = &self.perms[sym];
        for &(a, p) in &sample.policy {
            policy[usize::from(perm[usize::from(a)])] += p;
        }
        let (outcome, search) = self.value_parts(i);
        let value = value_target(outcome, search, search_value_share);
        (features, legal, policy, value)
    }

    /// The ownership target of sample `i` under board symmetry `sym`: the point planes
    /// (own, opponent, empty) of its ownership board (see [`ownership_boards`]), seen from
    /// the sample's player to move; none where that board is unknown (samples from the
    /// databases, shards written before final boards were recorded).
    ///
    /// # Panics
    /// When `i` is out of range.
    pub fn ownership_target(&self, i: usize, sym: usize) -> Option<Vec<f32>> {
        let men = self.ownership_boards[i]?;
        let board = self.rules.board();
        let us = self.samples[i].position.side_to_move();
        let image = |c: Color| board.map_bitboard(sym, men[c.index()]);
        let mut planes = vec![0f32; 3 * board.len()];
        encoding::encode_points(board, image(us), image(us.opposite()), &mut planes);
        Some(planes)
    }

    /// The index of one sample, drawn uniformly or by the weights of
    /// [`ReplayWindow::weigh`].
    ///
    /// # Panics
    /// When the window is empty.
    pub fn draw(&self, rng: &mut impl Rng) -> usize {
        match &self.weighted {
            Some(w) => w.sample(rng),
            None => rng.random_range(0..self.samples.len()),
        }
    }

    /// A mini-batch of `size` samples drawn with replacement (uniformly, or by the weights
    /// of [`ReplayWindow::weigh`]), each under a random symmetry when `augment`.
    ///
    /// # Panics
    /// When the window is empty.
    pub fn batch(
        &self,
        rng: &mut impl Rng,
        size: usize,
        augment: bool,
        search_value_share: f32,
    ) -> Batch {
        assert!(
            !self.samples.is_empty(),
            "batch from an empty replay window"
        );
        let mut b = Batch {
            size,
            features: Vec::with_capacity(size * encoding::input_len(&self.rules)),
            legal: Vec::with_capacity(size * self.space.len()),
            policy: Vec::with_capacity(size * self.space.len()),
            policy_weight: Vec::with_capacity(size),
            value: Vec::with_capacity(size * 3),
            ownership: Vec::with_capacity(size * 3 * self.rules.board().len()),
            ownership_weight: Vec::with_capacity(size),
        };
        for _ in 0..size {
            let i = self.draw(rng);
            let sym = if augment {
                rng.random_range(0..SYMMETRY_COUNT)
            } else {
                0
            };
            let (f, l, p, v) = self.row(i, sym, search_value_share);
            b.features.extend(f);
            b.legal.extend(l);
            b.policy.extend(p);
            b.policy_weight.push(self.policy_weight(i));
            b.value.extend(v);
            match self.ownership_target(i, sym) {
                Some(planes) => {
                    b.ownership.extend(planes);
                    b.ownership_weight.push(1.0);
                }
                None => {
                    let n = 3 * self.rules.board().len();
                    b.ownership.extend(std::iter::repeat_n(0.0, n));
                    b.ownership_weight.push(0.0);
                }
            }
        }
        b
    }
}

/// How often each of one game's samples is drawn in training, for KataGo's policy surprise
/// weighting: among the full searches (the policy targets), `1 - share` of their draws
/// are spread evenly and `share` in proportion to each one's surprise
/// ([`Sample::surprise`]), so that the game's full searches are drawn as often in all as
/// without it, and the positions where the search taught the network most, more often.
/// Other samples, and every sample where `share` is 0 or no full search was surprising,
/// get 1.
pub fn surprise_frequencies(samples: &[Sample], share: f32) -> Vec<f32> {
    let full = samples.iter().filter(|s| s.full_search);
    let (count, total) = full.fold((0usize, 0f64), |(n, t), s| {
        (n + 1, t + f64::from(s.surprise))
    });
    samples
        .iter()
        .map(|s| {
            if share == 0.0 || total <= 0.0 || !s.full_search {
                1.0
            } else {
                let part = count as f64 * f64::from(s.surprise) / total;
                (f64::from(1.0 - share) + f64::from(share) * part) as f32
            }
        })
        .collect()
}

/// The ownership board of each of one game's samples, in the game's order: the game's
/// final board, or with a `horizon` of k the board of the sample k decisions on (the
/// final board where the game ends sooner). Every decision after the random opening is a
/// searched sample, so the sample k on is the board k decisions on. None for every sample
/// where the final board is not taken (unrecorded, or a drawn game under
/// `train.ownership_games = "decisive"`).
pub fn ownership_boards(
    samples: &[Sample],
    final_men: Option<[Bitboard; 2]>,
    horizon: Option<u32>,
) -> Vec<Option<[Bitboard; 2]>> {
    let men = |s: &Sample| [Color::White, Color::Black].map(|c| s.position.men(c));
    (0..samples.len())
        .map(|j| {
            let on = horizon.and_then(|k| samples.get(j + k as usize));
            final_men.map(|f| on.map_or(f, men))
        })
        .collect()
}

/// The outcome part of the value targets of one game's samples, in the game's order: each
/// sample's result, or, with `bootstrap_explored`, for the samples up to a move that the
/// late temperature drew off the search's choice ([`Sample::explored`]), that move's
/// search win/draw/loss, from each sample's own side. The cut that n-step returns make at
/// an exploratory action: a move the search would not have played says nothing of the
/// positions before it, and what it lost (or won) is charged to it alone.
pub fn outcome_targets(samples: &[Sample], bootstrap_explored: bool) -> Vec<[f32; 3]> {
    carried_back(
        samples,
        |s| bootstrap_explored && s.explored,
        |_, s| result_wdl(s.result),
    )
}

/// The search part of the value targets of one game's samples, in order: a full search's
/// own win/draw/loss; a cheap search's own too, or with [`CheapSearchValue::NextFull`]
/// that of the game's next full search, turned to the player to move here, and
/// `outcomes[i]` (the sample's outcome target) where no full search follows. A cheap search's value is the weakest part of
/// the value targets (a fifth of the simulations); the next full search values the line
/// that self-play went on with, a few plies later.
///
/// # Panics
/// When `outcomes` is not as long as `samples`.
pub fn search_targets(
    samples: &[Sample],
    outcomes: &[[f32; 3]],
    cheap: CheapSearchValue,
) -> Vec<[f32; 3]> {
    assert_eq!(samples.len(), outcomes.len(), "an outcome for every sample");
    match cheap {
        CheapSearchValue::Own => samples.iter().map(|s| s.search_wdl).collect(),
        // A full search is the nearest full search at or after itself: its own value.
        CheapSearchValue::NextFull => carried_back(samples, |s| s.full_search, |i, _| outcomes[i]),
    }
}

/// For each of one game's samples, in order: the search win/draw/loss of the nearest
/// sample at or after it for which `from` holds, turned to its own player to move
/// (removals keep the mover, so sides need not alternate), or `otherwise(i, sample)`
/// where none follows.
fn carried_back(
    samples: &[Sample],
    from: impl Fn(&Sample) -> bool,
    otherwise: impl Fn(usize, &Sample) -> [f32; 3],
) -> Vec<[f32; 3]> {
    let mut carried: Option<(Color, [f32; 3])> = None;
    let mut out: Vec<[f32; 3]> = samples
        .iter()
        .enumerate()
        .rev()
        .map(|(i, s)| {
            let side = s.position.side_to_move();
            if from(s) {
                carried = Some((side, s.search_wdl));
            }
            match carried {
                Some((at, wdl)) if at == side => wdl,
                Some((_, [w, d, l])) => [l, d, w],
                None => otherwise(i, s),
            }
        })
        .collect();
    out.reverse();
    out
}

/// A value target: `search_value_share` of the search part mixed into the outcome part.
pub fn value_target(outcome: [f32; 3], search: [f32; 3], search_value_share: f32) -> [f32; 3] {
    let s = search_value_share;
    std::array::from_fn(|k| (1.0 - s) * outcome[k] + s * search[k])
}

/// A result (+1, 0, −1 for the player to move) as a win/draw/loss.
fn result_wdl(result: i8) -> [f32; 3] {
    match result {
        1 => [1.0, 0.0, 0.0],
        0 => [0.0, 1.0, 0.0],
        _ => [0.0, 0.0, 1.0],
    }
}

/// A shard, refused when played under other rules than `rules`.
fn read_rules_shard(rules: Rules, path: &Path) -> Result<(ShardHeader, Vec<Sample>), ReplayError> {
    let (header, samples) = read_shard(path)?;
    if header.rules != rules {
        return Err(ReplayError::Rules {
            path: path.display().to_string(),
            found: header.rules,
            expected: rules,
        });
    }
    Ok((header, samples))
}

/// One generation's shards: each game's samples and final board, the games in the order
/// of their index whatever shards they were written in, and the samples from the
/// databases.
///
/// # Errors
/// A shard is damaged or of other rules.
pub fn read_generation(
    rules: Rules,
    shards: &[PathBuf],
) -> Result<(Vec<GameSamples>, Vec<Sample>), ReplayError> {
    let (mut games, mut exact) = (Vec::new(), Vec::new());
    let mut seen = std::collections::HashSet::new();
    for path in shards {
        let (header, samples) = read_rules_shard(rules, path)?;
        if let Some(game) = header.game_list.iter().find(|g| !seen.insert(g.index)) {
            return Err(ReplayError::RepeatedGame {
                path: path.display().to_string(),
                index: game.index,
            });
        }
        match header.source {
            SampleSource::Games => games.extend(games_of_shard(rules, path, &header, samples)?),
            SampleSource::Databases => exact.extend(samples),
        }
    }
    games.sort_by_key(|(index, _)| *index);
    Ok((games.into_iter().map(|(_, g)| g).collect(), exact))
}

/// The branch starts' pool of one generation's `shards` (`selfplay.branch_starts`): its
/// games' positions of the phases `settings` take, in the order of the games' indices, so
/// that the same shards give the same pool however they were written; warns when there is
/// none.
///
/// # Errors
/// A shard is damaged or of other rules.
pub fn branch_pool(
    rules: Rules,
    shards: &[PathBuf],
    endgame: Option<&Endgame>,
    settings: &BranchStarts,
) -> Result<BranchPool, ReplayError> {
    let (games, _) = read_generation(rules, shards)?;
    let samples = games.iter().flat_map(|g| &g.samples);
    let pool = BranchPool::from_samples(&rules, samples, endgame, settings);
    if pool.is_empty() {
        tracing::warn!(
            shards = shards.len(),
            folder = ?shards.first().and_then(|p| p.parent()),
            "no position to branch from in these games: branch starts begin from the empty board"
        );
    }
    Ok(pool)
}

/// The games of a shard of games: each game's index, samples and final board.
///
/// # Errors
/// A final board is not one of `rules`' boards.
fn games_of_shard(
    rules: Rules,
    path: &Path,
    header: &ShardHeader,
    samples: Vec<Sample>,
) -> Result<Vec<(u64, GameSamples)>, ReplayError> {
    let mut rest = samples.into_iter();
    header
        .game_list
        .iter()
        .map(|g| {
            let final_men = g
                .final_board(&rules)
                .map_err(|reason| ShardError::invalid(path, reason))?;
            let samples = rest.by_ref().take(g.samples as usize).collect();
            Ok((g.index, GameSamples { samples, final_men }))
        })
        .collect()
}

/// How much the searches of one phase overruled the network: the mean policy surprise
/// ([`kvarn_selfplay::Sample::surprise`]) of the replay window's full searches there.
/// Where it stays high the search still teaches the network that phase; where it falls
/// to nothing, self-play only confirms what the network believes.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PhaseSurprise {
    /// The phase.
    pub phase: Phase,
    /// Its full searches in the window.
    pub searches: u64,
    /// Their mean surprise (nats).
    pub mean: f64,
}
