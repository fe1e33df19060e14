//! Search and self-play settings, read from the `[search]` and `[selfplay]` tables of a
//! run configuration. Every field has a default; unknown keys are refused.

pub use kvarn_storage::SettingError;
use serde::{Deserialize, Serialize};

use crate::branch::BranchStarts;
use crate::setting;
use crate::starts::RandomStarts;

/// How the root chooses where simulations go.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RootSearch {
    /// PUCT everywhere, Dirichlet noise at the root, moves drawn from visit counts with a
    /// temperature; the policy target is the visit distribution.
    #[default]
    Puct,
    /// Gumbel-Top-k with sequential halving at the root, the completed-Q policy target and
    /// deterministic interior selection (Danihelka et al. 2022).
    Gumbel,
}

/// What a finished search says the root's win/draw/loss is: the value estimate that
/// benchmarks judge, and the search part of the training value target.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RootValue {
    /// The mean over all simulations, the moves explored and not chosen among them.
    #[default]
    Mean,
    /// The most visited move's mean: the value of the move the search would play, not
    /// diluted by the moves explored beside it (where one move of many keeps a win, the
    /// mean drifts towards a draw).
    Best,
}

impl std::str::FromStr for RootValue {
    type Err = String;

    /// `mean` or `best`, as in configurations.
    fn from_str(v: &str) -> Result<RootValue, String> {
        match v {
            "mean" => Ok(RootValue::Mean),
            "best" => Ok(RootValue::Best),
            _ => Err(format!("`{v}` is not `mean` or `best`")),
        }
    }
}

/// How a search picks the move it plays where no temperature draws it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MoveChoice {
    /// The most visited move (AlphaZero).
    #[default]
    Visits,
    /// The move whose value has the highest lower confidence bound (its mean less
    /// `search.lcb_stdevs` standard errors), among the moves with at least
    /// [`LCB_MIN_VISIT_SHARE`] of the most visited one's visits (KataGo, Leela Chess
    /// Zero): a move that took its visits on a high prior before the search found it worse
    /// keeps them, so visits lag behind values in a short search.
    Lcb,
}

impl MoveChoice {
    /// Whether the choice goes with a `root` search: the bound needs PUCT, since a Gumbel
    /// root plays the move its halving kept.
    pub fn fits(self, root: RootSearch) -> bool {
        self == MoveChoice::Visits || root == RootSearch::Puct
    }
}

impl std::str::FromStr for MoveChoice {
    type Err = String;

    /// `visits` or `lcb`, as in configurations.
    fn from_str(v: &str) -> Result<MoveChoice, String> {
        match v {
            "visits" => Ok(MoveChoice::Visits),
            "lcb" => Ok(MoveChoice::Lcb),
            _ => Err(format!("`{v}` is not `visits` or `lcb`")),
        }
    }
}

/// Why `MoveChoice::Lcb` is refused with a Gumbel root, for the configuration keys that set
/// it.
pub const LCB_NEEDS_PUCT: &str =
    "\"lcb\" needs search.root = \"puct\": a Gumbel root plays the move its halving kept";

/// A move needs this share of the most visited move's visits for `MoveChoice::Lcb` to
/// consider it (KataGo's `minVisitPropForLCB`): fewer visits say too little of its value.
pub const LCB_MIN_VISIT_SHARE: f32 = 0.15;

/// Which root moves forced playouts (`search.forced_playouts`) force.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ForcedScope {
    /// Every root move, visited or not: a move that holds a draw but that the network
    /// ranks low is searched too. Forcing then takes up to about
    /// `sqrt(k * simulations * moves)` of a search's simulations.
    #[default]
    All,
    /// Only moves that already have a visit (from the noise or PUCT), as KataGo does:
    /// far fewer simulations forced.
    Visited,
}

/// Tree-search settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// Root algorithm.
    pub root: RootSearch,
    /// Simulations per move in a full search (the ones that make training targets).
    #[schemars(range(min = 1, max = 1_000_000))]
    pub simulations: u32,
    /// PUCT exploration constant.
    #[schemars(transform = setting::bounds(setting::C_PUCT))]
    pub c_puct: f32,
    /// First-play urgency: an unvisited child is valued at the parent's value minus this
    /// times the square root of the prior mass already visited.
    #[schemars(transform = setting::bounds(setting::FPU_REDUCTION))]
    pub fpu_reduction: f32,
    /// Dirichlet noise concentration at the root (PUCT self-play); scaled by 10 / legal
    /// moves, as AlphaZero's 0.3 for chess is with about 30 moves.
    #[schemars(extend("exclusiveMinimum" = 0.0))]
    pub dirichlet_alpha: f32,
    /// Share of the root prior replaced by noise (0 turns noise off).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub dirichlet_epsilon: f32,
    /// Move temperature for the first `temperature_plies` plies.
    #[schemars(extend("exclusiveMinimum" = 0.0))]
    pub temperature: f32,
    /// Plies played with `temperature` (in games started from an earlier game's position,
    /// `selfplay.branch_starts.temperature_plies` instead).
    pub temperature_plies: u32,
    /// Move temperature after those plies (0: the most visited move). A low one varies
    /// only among moves the search cannot tell apart: where the network calls every move
    /// a draw, greedy self-play repeats the same moves and ends by repetition, and never
    /// learns which of them loses or which line wins.
    #[schemars(range(min = 0.0))]
    pub late_temperature: f32,
    /// Whether `late_temperature` also draws removal decisions (true: every decision
    /// after the opening plies). A removal is a short tactic whose best choice the search
    /// usually sees, and a worse one drawn at random changes the game's result that the
    /// positions before it learn from; false keeps the most visited removal and varies
    /// only the moves, where the late temperature is meant to vary drawn shuffles.
    pub late_temperature_on_removals: bool,
    /// A move drawn with either temperature must have a value (from -1, lost, to 1, won)
    /// within this of the most visited move's: the temperature then varies the moves the
    /// search finds about equal, not those it knows are worse, such as a removal that
    /// leaves a mill to the opponent (Leela Chess Zero's `TempValueCutoff`). 2, the whole
    /// range, is off.
    #[schemars(range(min = 0.0))]
    pub temperature_value_cutoff: f32,
    /// A move the late temperature drew counts as explored ([`crate::Sample::explored`],
    /// where training may cut the game's result) when its value is below the most visited
    /// move's by more than this: a move the search finds as good says as much of the
    /// position as the search's choice, and its game's result is kept.
    #[schemars(range(min = 0.0))]
    pub explored_value_gap: f32,
    /// Forced playouts with policy-target pruning (after KataGo; its `k`, 2 there; 0 is
    /// off). In self-play's full searches (those asked for with root noise; PUCT), each
    /// root move of `forced_playouts_scope` gets at least `sqrt(k * prior * root visits)`
    /// simulations, so that it is looked at long enough to show whether it is good. The
    /// visits so forced that did not earn themselves (at most the forced number, rounded
    /// down) are taken back out of the policy target and the visit counts the move is
    /// drawn from, so the target keeps what the search concluded.
    #[schemars(range(min = 0.0))]
    pub forced_playouts: f32,
    /// Which root moves `forced_playouts` forces.
    pub forced_playouts_scope: ForcedScope,
    /// Gumbel: actions sampled at the root (k of Gumbel-Top-k).
    #[schemars(transform = setting::bounds(setting::GUMBEL_ACTIONS))]
    pub gumbel_actions: u32,
    /// Gumbel: `c_visit` of the completed-Q transform.
    #[schemars(transform = setting::bounds(setting::GUMBEL_C_VISIT))]
    pub gumbel_c_visit: f32,
    /// Gumbel: `c_scale` of the completed-Q transform.
    #[schemars(transform = setting::bounds(setting::GUMBEL_C_SCALE))]
    pub gumbel_c_scale: f32,
    /// Keep the chosen child's subtree for the next move.
    pub reuse_tree: bool,
    /// Network results kept per thread (0 turns the cache off).
    pub cache_entries: usize,
    /// The most nodes a search tree holds: a player's memory budget (its `hash`) sets it,
    /// so that analysis without a limit stays within the budget; no key of its own, since
    /// self-play's trees hold a few thousand nodes.
    #[serde(skip)]
    #[schemars(skip)]
    pub tree_nodes: usize,
    /// Contempt: a draw is worth `-contempt` to the player at the root of the search and
    /// `+contempt` to its opponent (wins are 1, losses -1). Nine is a draw with perfect
    /// play, and a search that values every draw at 0 settles for repetitions against
    /// weaker opponents; 0 keeps self-play's values symmetric.
    #[schemars(transform = setting::bounds(setting::CONTEMPT))]
    pub contempt: f32,
    /// What the search reports as the root's win/draw/loss.
    pub root_value: RootValue,
    /// A position met again inside the searched line is a draw (where the rules draw by
    /// repetition): whoever steered into the cycle can steer into it once more. Without
    /// it a search sees a draw by repetition only at a third occurrence, deeper than its
    /// simulations reach, so it values a fortress by the network alone. A subtree kept for
    /// the next move keeps the draws found in it.
    pub twofold_draws: bool,
    /// How the move played is picked where no temperature draws it (PUCT only).
    pub move_choice: MoveChoice,
    /// Standard errors taken off a move's value for `MoveChoice::Lcb`.
    #[schemars(transform = setting::bounds(setting::LCB_STDEVS))]
    pub lcb_stdevs: f32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            root: RootSearch::Puct,
            simulations: 64,
            c_puct: 1.5,
            fpu_reduction: 0.25,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            temperature: 1.0,
            temperature_plies: 12,
            late_temperature: 0.0,
            late_temperature_on_removals: true,
            temperature_value_cutoff: 2.0,
            explored_value_gap: 0.0,
            forced_playouts: 0.0,
            forced_playouts_scope: ForcedScope::All,
            gumbel_actions: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 0.1,
            reuse_tree: true,
            cache_entries: 200_000,
            tree_nodes: usize::MAX,
            contempt: 0.0,
            root_value: RootValue::Mean,
            twofold_draws: false,
            move_choice: MoveChoice::Visits,
            lcb_stdevs: 2.0,
        }
    }
}

/// Playout cap randomisation (KataGo): a minority of moves get a full search and make
/// training targets, the rest get a cheap search and only move the game on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PlayoutCap {
    /// Whether to randomise at all; off means every move is a full search.
    pub enabled: bool,
    /// Probability of a full search.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub full_probability: f32,
    /// Simulations of a cheap search.
    #[schemars(range(min = 1))]
    pub cheap_simulations: u32,
}

impl Default for PlayoutCap {
    fn default() -> Self {
        PlayoutCap {
            enabled: false,
            full_probability: 0.25,
            cheap_simulations: 16,
        }
    }
}

/// Games in which one side searches deeper than the other (`[selfplay.deep_side]`).
///
/// Self-play learns that a move loses only from a game in which the other side finds the
/// win. Where the win is a long attack that the run's own search does not read out, equal
/// sides walk past it for ever: the losing move is played, the game is drawn, and the
/// value of the position after it is learnt as a draw. A side with `factor` times the
/// simulations reads further; its searches make the value targets of the positions the
/// shallower side walks into. The same network plays both sides: nothing but self-play.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DeepSide {
    /// Share of the games with a deeper side (its colour drawn per game).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub share: f64,
    /// The deeper side's simulations, full and cheap, as a multiple of the others'.
    #[schemars(range(min = 1, max = 64))]
    pub factor: u32,
}

impl Default for DeepSide {
    fn default() -> Self {
        DeepSide {
            share: 0.0,
            factor: 4,
        }
    }
}

/// Endgame databases in self-play (the run's `[solver]` databases): exact leaves in the
/// search, and games ended by them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EndgameUse {
    /// Positions with a certain database value are search leaves with that value.
    pub probes: bool,
    /// A game reaching a position with a certain database value ends with that result.
    pub adjudicate: bool,
    /// Share of the games that would be adjudicated that are played to the end instead,
    /// so that the network keeps seeing endgames.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub play_out_share: f64,
    /// Share of the random starts (`selfplay.random_starts`) drawn again until the
    /// databases know them as a certain win or loss for the player to move, at least
    /// `decisive_min_turns` turns from its end. Uniform starts are mostly draws or quick
    /// wins (Nine's 3 v 4 with the flier to move: 87% drawn; 4 v 4: all but 0.005%
    /// drawn), so the long wins that the network must learn to find, and to defend
    /// against, are otherwise rarely played.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub decisive_starts: f64,
    /// Fewest turns to the end of a decisive start's win or loss (1: any).
    #[schemars(range(min = 1))]
    pub decisive_min_turns: u16,
    /// Share of the games whose searches and adjudication use the whole game's tables,
    /// where the run has them (`solver.whole_game_db`); the others, and every game played
    /// out or from a random start, play the moving phase by search with the endgame
    /// databases alone. The tables end a game as its placing phase does, so without such
    /// a share the network no longer plays the moving phase itself, nor sees its late
    /// no-capture counters.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub whole_game_share: f64,
    /// Positions drawn from the databases each generation as exact training samples
    /// (see [`crate::exact`]), with the random starts' men counts; the share
    /// `decisive_starts` of them decisive, as the starts are. 0: none.
    #[schemars(range(min = 0, max = 10_000_000))]
    pub exact_samples: u64,
}

impl Default for EndgameUse {
    fn default() -> Self {
        EndgameUse {
            probes: false,
            adjudicate: false,
            play_out_share: 0.25,
            decisive_starts: 0.0,
            decisive_min_turns: 1,
            whole_game_share: 1.0,
            exact_samples: 0,
        }
    }
}

impl EndgameUse {
    /// Whether anything needs the databases: the games, or the exact samples drawn beside
    /// them.
    pub fn enabled(&self) -> bool {
        self.in_games() || self.exact_samples > 0
    }

    /// Whether the games themselves need the databases (exact samples are drawn apart
    /// from them, by the training run).
    pub fn in_games(&self) -> bool {
        self.probes || self.adjudicate || self.decisive_starts > 0.0
    }
}

/// Self-play settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// Worker threads, each running its own interleaved games.
    #[schemars(range(min = 1, max = 256))]
    pub threads: usize,
    /// Games each thread keeps in flight; their leaves share one network batch.
    #[schemars(range(min = 1, max = 65536))]
    pub games_per_thread: usize,
    /// Games per shard file.
    #[schemars(range(min = 1))]
    pub games_per_shard: usize,
    /// A game still going after this many plies is scored a draw.
    #[schemars(range(min = 1))]
    pub max_plies: u32,
    /// Each game opens with a number of uniformly random decisions drawn from 0 to this
    /// (never one that ends the game), not kept as samples: varied starting positions,
    /// unbalanced ones among them, so that self-play also sees won and lost games. They
    /// count as plies of the game, for `temperature_plies` and `max_plies` alike.
    #[schemars(range(min = 0, max = 200))]
    pub random_opening_plies: u32,
    /// Playout cap randomisation.
    pub playout_cap: PlayoutCap,
    /// Games started from random positions of the moving phase (none by default).
    pub random_starts: RandomStarts,
    /// Games started from positions of the previous generation's games (none by default).
    pub branch_starts: BranchStarts,
    /// Games in which one side searches deeper (none by default).
    pub deep_side: DeepSide,
    /// Endgame databases (off by default).
    pub endgame: EndgameUse,
    /// Where a training run's self-play games are played: on this machine, or on a Ray
    /// cluster (`[selfplay.ray]`).
    pub backend: Backend,
    /// The Ray cluster, for `backend = "ray"`.
    pub ray: RayConfig,
    /// Exact samples drawn each generation from a bank of solved positions of every
    /// phase (none by default).
    pub exact_bank: ExactBank,
    /// The arithmetic of the network in self-play: "auto" (bf16 on CPUs with AMX tiles,
    /// 32-bit elsewhere), or forced: "f32", "bf16" or "int8". Training stays 32-bit.
    #[serde(with = "kvarn_model::cpu::precision_request")]
    #[schemars(with = "String")]
    pub precision: Option<kvarn_model::Precision>,
}

/// Where a training run's self-play games are played.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// The threads of this machine.
    #[default]
    Local,
    /// Tasks on a Ray cluster, each running the `kvarn` binary on a share of the games.
    Ray,
}

/// A Ray cluster that plays self-play games (`[selfplay.ray]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RayConfig {
    /// The cluster's address as `ray.init` takes it: "auto" (a cluster started on this
    /// machine with `ray start`), "HOST:6379", or "ray://HOST:10001" (Ray Client).
    pub address: String,
    /// Games per task: the unit that a worker plays and that is retried when it dies.
    #[schemars(range(min = 1, max = 1 << 20))]
    pub games_per_task: u64,
    /// Times a task whose worker or node died is tried again.
    #[schemars(range(min = 0, max = 100))]
    pub max_retries: u32,
    /// Threads (and CPUs reserved) per task.
    #[schemars(range(min = 1, max = 256))]
    pub threads_per_task: usize,
    /// The Python that runs the driver, with the `ray` package.
    pub python: String,
}

impl Default for RayConfig {
    fn default() -> Self {
        RayConfig {
            address: "auto".into(),
            games_per_task: 64,
            max_retries: 3,
            threads_per_task: 1,
            python: "python3".into(),
        }
    }
}

impl RayConfig {
    /// Checks the settings no bound declares.
    ///
    /// # Errors
    /// The first unusable setting.
    pub fn validate(&self) -> Result<(), SettingError> {
        SettingError::check(
            !self.address.trim().is_empty(),
            "selfplay.ray.address",
            "must name the cluster (\"auto\", HOST:PORT or ray://HOST:PORT)",
        )?;
        SettingError::check(
            !self.python.trim().is_empty(),
            "selfplay.ray.python",
            "must name a Python",
        )
    }
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            threads: 2,
            games_per_thread: 64,
            games_per_shard: 64,
            max_plies: 400,
            random_opening_plies: 0,
            playout_cap: PlayoutCap::default(),
            random_starts: RandomStarts::default(),
            branch_starts: BranchStarts::default(),
            deep_side: DeepSide::default(),
            endgame: EndgameUse::default(),
            backend: Backend::Local,
            ray: RayConfig::default(),
            exact_bank: ExactBank::default(),
            precision: None,
        }
    }
}

impl SearchConfig {
    /// Checks every setting: each against the bounds its declaration states, then the
    /// rules between settings.
    ///
    /// # Errors
    /// The first setting out of range.
    pub fn validate(&self) -> Result<(), SettingError> {
        kvarn_storage::check_declared(self, "search")?;
        SettingError::check(
            self.forced_playouts == 0.0 || self.root == RootSearch::Puct,
            "search.forced_playouts",
            "needs search.root = \"puct\": a Gumbel root plans its own visits",
        )?;
        SettingError::check(
            self.move_choice.fits(self.root),
            "search.move_choice",
            LCB_NEEDS_PUCT,
        )
    }
}

impl SelfPlayConfig {
    /// Checks every setting: each against the bounds its declaration states, then the
    /// rules between settings.
    ///
    /// # Errors
    /// The first setting out of range.
    pub fn validate(&self) -> Result<(), SettingError> {
        kvarn_storage::check_declared(self, "selfplay")?;
        SettingError::check(
            self.random_opening_plies < self.max_plies,
            "selfplay.random_opening_plies",
            "must be less than selfplay.max_plies: a game needs plies left to play",
        )?;
        self.random_starts.validate()?;
        SettingError::check(
            self.random_starts.share + self.branch_starts.share <= 1.0,
            "selfplay.branch_starts.share",
            "and selfplay.random_starts.share add up to more than 1",
        )?;
        SettingError::check(
            self.endgame.decisive_starts == 0.0 || self.random_starts.share > 0.0,
            "selfplay.endgame.decisive_starts",
            "is a share of the random starts: set selfplay.random_starts.share too",
        )?;
        SettingError::check(
            self.random_starts.moving_only()
                || (self.endgame.decisive_starts == 0.0 && self.endgame.exact_samples == 0),
            "selfplay.random_starts.phases",
            "must be [\"moving\"] with decisive starts or exact samples: the databases value \
             only the moving phase",
        )?;
        SettingError::check(
            self.exact_bank.samples == 0 || self.exact_bank.path.is_some(),
            "selfplay.exact_bank.samples",
            "needs selfplay.exact_bank.path: the bank to draw from",
        )?;
        SettingError::check(
            self.exact_bank.also.is_empty() || self.exact_bank.path.is_some(),
            "selfplay.exact_bank.also",
            "needs selfplay.exact_bank.path: the bank the others are read with",
        )?;
        self.ray.validate()
    }
}

/// Exact samples from a bank of solved positions (`kvarn sample-bank`;
/// `docs/results/nine-solve/sample-bank.kvbank` for Nine): every phase of the game, no
/// tables needed (`[selfplay.exact_bank]`; see `kvarn_selfplay::BankSampling`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ExactBank {
    /// The bank (a path from the folder the run starts in).
    pub path: Option<std::path::PathBuf>,
    /// Further banks read with it as one, each drawn away from the others' positions
    /// (`kvarn sample-bank --beside`): a position in two of them is refused.
    pub also: Vec<std::path::PathBuf>,
    /// Samples drawn from it each generation, spread evenly over the phases and within
    /// each over its counts of men. 0: none.
    #[schemars(range(min = 0, max = 10_000_000))]
    pub samples: u64,
}

impl ExactBank {
    /// Every bank read: `path`, then `also`.
    pub fn paths(&self) -> Vec<&std::path::Path> {
        self.path
            .iter()
            .chain(&self.also)
            .map(|p| p.as_path())
            .collect()
    }
}
