//! Network configurations: which architecture, how big, and for which variant.

use kvarn_game::{ActionSpace, Rules, encoding};
use kvarn_storage::SettingError;
use serde::{Deserialize, Serialize};

/// A network's shape. Together with the rules it fixes every tensor's size, so a model
/// file stores it and refuses to load into a network of another shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum NetConfig {
    /// A residual multi-layer perceptron over the flat input vector: a stem layer, then
    /// `blocks` residual layers `h <- relu(h + W h + b)`, then the two heads.
    Mlp {
        /// Width of every hidden layer.
        #[schemars(range(min = 1, max = 8192))]
        hidden: usize,
        /// Residual layers after the stem.
        #[schemars(range(min = 0, max = 64))]
        blocks: usize,
        /// A third head, for training only: the owner of each point on the game's final
        /// board (KataGo's ownership target), a dense signal about where the game goes
        /// that the trunk shares with the value head. Play and export ignore it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        ownership_head: bool,
    },
    /// A graph network over the board: one vector per point, updated by message passing
    /// along the board's lines (adjacent points) and its mills (points sharing a mill).
    /// Placements and removals are scored per point, shifts per (from, to) pair by a
    /// bilinear form, so the policy head itself follows the board's structure.
    Graph {
        /// Width of each point's vector.
        #[schemars(range(min = 1, max = 1024))]
        channels: usize,
        /// Message-passing layers.
        #[schemars(range(min = 0, max = 64))]
        layers: usize,
        /// Width of the value head's hidden layer.
        #[schemars(range(min = 1, max = 8192))]
        value_hidden: usize,
    },
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig::Mlp {
            hidden: 128,
            blocks: 2,
            ownership_head: false,
        }
    }
}

impl NetConfig {
    /// A lower bound on the network's parameters, from its square weight matrices alone:
    /// a file whose parameters are fewer bytes than this needs is refused before the
    /// network is allocated (a damaged header could otherwise ask for gigabytes).
    pub fn min_parameters(&self) -> u64 {
        match *self {
            NetConfig::Mlp { hidden, blocks, .. } => (blocks as u64)
                .saturating_mul(hidden as u64)
                .saturating_mul(hidden as u64),
            NetConfig::Graph {
                channels, layers, ..
            } => 4u64
                .saturating_mul(layers as u64)
                .saturating_mul(channels as u64)
                .saturating_mul(channels as u64),
        }
    }

    /// Checks that every size is usable.
    ///
    /// # Errors
    /// The first size out of range, as `network.<key>`.
    pub fn validate(&self) -> Result<(), SettingError> {
        kvarn_storage::check_declared(self, "network")
    }

    /// Whether the network has the training-only ownership head.
    pub fn has_ownership_head(&self) -> bool {
        matches!(
            self,
            NetConfig::Mlp {
                ownership_head: true,
                ..
            }
        )
    }

    /// A one-line description, e.g. `mlp 3x256` or `graph 6x64`.
    pub fn describe(&self) -> String {
        match self {
            NetConfig::Mlp {
                hidden,
                blocks,
                ownership_head,
            } => {
                let head = if *ownership_head { " +ownership" } else { "" };
                format!("mlp {}x{hidden}{head}", blocks + 1)
            }
            NetConfig::Graph {
                channels, layers, ..
            } => format!("graph {layers}x{channels}"),
        }
    }
}

/// The sizes a network over `rules` has at its ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dims {
    /// Board points.
    pub points: usize,
    /// Input features (see `kvarn_game::encoding`).
    pub input: usize,
    /// Policy outputs, one per action index.
    pub actions: usize,
}

impl Dims {
    /// The sizes for a rule set.
    pub fn of(rules: &Rules) -> Dims {
        Dims {
            points: rules.board().len(),
            input: encoding::input_len(rules),
            actions: ActionSpace::new(rules).len(),
        }
    }
}
