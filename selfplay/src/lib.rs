//! Kvarn's self-play: tree search guided by the network, many games at a time, and the
//! game records the trainer learns from.
//!
//! - [`search`]: PUCT with win/draw/loss backup, first-play urgency, Dirichlet noise,
//!   temperature and tree reuse, or Gumbel root search with sequential halving; one
//!   game's search as a state machine that can wait for the network.
//! - [`evaluator`]: what the search asks of a network, and the cache of its results keyed
//!   by canonical position.
//! - [`selfplay`]: threads of interleaved games sharing network batches, playout cap
//!   randomisation, shards.
//! - [`starts`]: random starting positions of the moving phase.
//! - [`branch`]: starts from positions of the previous generation's games.
//! - [`exact`]: training samples drawn from the endgame databases, labelled exactly.
//! - [`shard`]: the record format.

pub mod agent;
pub mod analysis;
pub mod branch;
pub mod config;
pub mod endgame;
pub mod engine;
pub mod evaluator;
pub mod exact;
pub mod net_agent;
pub mod player;
pub mod search;
pub mod selfplay;
pub mod setting;
pub mod shard;
pub mod starts;
pub mod tree;

pub use agent::{SearchAgent, SearchPlayer};
pub use branch::{BranchPool, BranchStarts};
pub use config::{
    Backend, DeepSide, EndgameUse, ExactBank, ForcedScope, LCB_MIN_VISIT_SHARE, LCB_NEEDS_PUCT,
    MoveChoice, PlayoutCap, RayConfig, RootSearch, RootValue, SearchConfig, SelfPlayConfig,
    SettingError,
};
pub use endgame::Endgame;
pub use engine::NetEngineMaker;
pub use evaluator::{EvalCache, Evaluator, SymmetryAveraged, UniformEvaluator};
pub use exact::{BankSampling, ExactSampling};
pub use player::{PlayerError, PlayerSettings, PlayerTable};
pub use search::{Advance, GameSearch, SearchContext, SearchResult, policy_surprise};
pub use selfplay::{PlayedGame, SelfPlayError, SelfPlayJob, SelfPlayStats, run};
pub use shard::{Sample, SampleSource, ShardError, ShardHeader, read_shard, write_shard};
pub use starts::RandomStarts;
