//! Training settings, the `[train]` table of a run configuration.

use kvarn_storage::SettingError;
use serde::{Deserialize, Serialize};

/// How the learning rate changes over training steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Schedule {
    /// The same rate throughout.
    Constant,
    /// Multiplied by `factor` every `every` steps.
    Step {
        /// Steps between drops.
        #[schemars(range(min = 1))]
        every: u64,
        /// Factor of each drop.
        #[schemars(range(max = 1.0), extend("exclusiveMinimum" = 0.0))]
        factor: f64,
    },
    /// Cosine decay from the rate to `min_fraction` of it over `steps` from step `start`,
    /// then flat. A `start` past 0 restarts the decay in a resumed run (set with
    /// `--resume DIR --set train.schedule=...`), a warm restart.
    Cosine {
        /// Steps of the decay.
        #[schemars(range(min = 1))]
        steps: u64,
        /// Where it ends, as a fraction of the starting rate.
        #[schemars(range(min = 0.0, max = 1.0))]
        min_fraction: f64,
        /// The optimiser step where the decay begins (the full rate before it).
        #[serde(default)]
        start: u64,
    },
}

/// Training settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Samples per mini-batch.
    #[schemars(range(min = 1, max = 1 << 16))]
    pub batch_size: usize,
    /// Optimiser steps per generation.
    #[schemars(range(min = 1))]
    pub steps_per_generation: u64,
    /// Starting learning rate.
    #[schemars(extend("exclusiveMinimum" = 0.0, "exclusiveMaximum" = 10.0))]
    pub learning_rate: f64,
    /// Learning-rate schedule over all steps of the run.
    pub schedule: Schedule,
    /// AdamW's decoupled weight decay.
    #[schemars(range(min = 0.0), extend("exclusiveMaximum" = 1.0))]
    pub weight_decay: f32,
    /// Weight of the value loss against the policy loss.
    #[schemars(range(min = 0.0, max = 1000.0))]
    pub value_weight: f32,
    /// Weight of the ownership head's loss (mean over points) against the policy loss,
    /// where the network has the head (`network.ownership_head`).
    #[schemars(range(min = 0.0, max = 1000.0))]
    pub ownership_weight: f32,
    /// Which games' final boards are ownership targets.
    pub ownership_games: OwnershipGames,
    /// The ownership target is the board this many decisions after the sample (the final
    /// board where the game ends sooner) instead of the final board: KataGo's future
    /// position target, which a drawn game's last board (wherever repetition stopped it)
    /// does not muddy. None: the final board.
    #[schemars(range(min = 1, max = 1000))]
    pub ownership_horizon: Option<u32>,
    /// Share of the value target taken from the search's win/draw/loss rather than the
    /// game's result (0: the result only).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub search_value_share: f32,
    /// Before a move that self-play marked explored (drawn by the late temperature, worse
    /// than the search's choice), the outcome part of the value target is that move's
    /// search win/draw/loss, not the game's result (see
    /// [`crate::replay::outcome_targets`]).
    pub bootstrap_explored: bool,
    /// The search part of the value target of a sample whose search was cheap (playout
    /// cap randomisation): that search's own win/draw/loss, or the game's next full
    /// search's (see [`crate::replay::search_targets`]).
    pub cheap_search_value: CheapSearchValue,
    /// Removal decisions are drawn this many times as often as other samples (1:
    /// uniformly).
    #[schemars(range(min = 0.01, max = 100.0))]
    pub removal_weight: f32,
    /// Share of each game's full-search draws given in proportion to their policy
    /// surprise, the rest evenly (KataGo's policy surprise weighting, which uses 0.5; 0:
    /// off). See [`crate::replay::surprise_frequencies`].
    #[schemars(range(min = 0.0, max = 1.0))]
    pub policy_surprise_share: f32,
    /// What the policy surprise weighs: how often a full search is drawn, value target
    /// and all (KataGo's), or only its policy loss.
    pub policy_surprise_weighs: SurpriseWeighs,
    /// Shards of the most recent generations kept in the replay window.
    #[schemars(range(min = 1))]
    pub window_generations: u32,
    /// At most this many samples in the window (the newest kept).
    #[schemars(range(min = 1))]
    pub window_samples: usize,
    /// Apply a random board symmetry to each sample.
    pub augment: bool,
    /// Which implementation takes the optimiser steps.
    pub engine: TrainEngine,
}

/// Where a cheap search's sample takes the search part of its value target from. Most
/// samples are cheap (`selfplay.playout_cap`): a search of a fifth as many simulations
/// names fewer values right, and its error would be most of the value target.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CheapSearchValue {
    /// Its own search's win/draw/loss.
    #[default]
    Own,
    /// The win/draw/loss of the game's next full search, for the player to move here (a
    /// few plies on, a deeper search of the line self-play went on with); the sample's
    /// outcome target where no full search follows.
    NextFull,
}

/// Which games' final boards train the ownership head (`network.ownership_head`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OwnershipGames {
    /// Every game's.
    #[default]
    All,
    /// Only won and lost games': a drawn game ends wherever repetition or the no-capture
    /// limit stopped it, a board that says little about the positions before it.
    Decisive,
}

/// What policy surprise weighting (`train.policy_surprise_share`) changes.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SurpriseWeighs {
    /// How often each full search is drawn: its value target too (KataGo's).
    #[default]
    Draws,
    /// Only the weight of its policy loss in the batches it is drawn in; the value head
    /// sees every sample as often as without the weighting.
    PolicyLoss,
}

/// Which implementation trains the network. Both compute the same losses, gradients and
/// AdamW updates (tested equal within rounding); they differ in speed and in the format
/// of their optimiser state, so a run resumes on the engine its checkpoint was written by.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TrainEngine {
    /// The fast CPU path for an MLP on the CPU (`kvarn_model::cpu`), burn otherwise.
    #[default]
    Auto,
    /// burn's autodiff and optimiser, whatever the network and device.
    Burn,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 256,
            steps_per_generation: 200,
            learning_rate: 1e-3,
            schedule: Schedule::Constant,
            weight_decay: 1e-4,
            value_weight: 1.0,
            ownership_weight: 1.0,
            ownership_games: OwnershipGames::All,
            ownership_horizon: None,
            search_value_share: 0.0,
            bootstrap_explored: false,
            cheap_search_value: CheapSearchValue::Own,
            removal_weight: 1.0,
            policy_surprise_share: 0.0,
            policy_surprise_weighs: SurpriseWeighs::Draws,
            window_generations: 4,
            window_samples: 500_000,
            augment: true,
            engine: TrainEngine::Auto,
        }
    }
}

impl TrainConfig {
    /// Checks every setting against the bounds its declaration states.
    ///
    /// # Errors
    /// The first setting out of range.
    pub fn validate(&self) -> Result<(), SettingError> {
        kvarn_storage::check_declared(self, "train")
    }

    /// The learning rate at optimiser step `step` (counted over the whole run).
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        let lr = self.learning_rate;
        match self.schedule {
            Schedule::Constant => lr,
            Schedule::Step { every, factor } => lr * factor.powi((step / every) as i32),
            Schedule::Cosine {
                steps,
                min_fraction,
                start,
            } => {
                let t = (step.saturating_sub(start).min(steps) as f64) / steps as f64;
                let min = lr * min_fraction;
                min + (lr - min) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
            }
        }
    }
}
