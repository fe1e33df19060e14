//! The model card: everything a front end needs to use an exported network without
//! reading Kvarn's code: the rules, the board, the input encoding feature by feature, the
//! action index space in Kvarn's notation, the network and where it came from.

use kvarn_game::{ActionSpace, ENCODING_VERSION, Rules, encoding};
use serde::{Deserialize, Serialize};

use crate::config::NetConfig;
use crate::file::Provenance;
use crate::network::Network;

/// Version of the card's layout.
pub const CARD_VERSION: u32 = 1;

/// The board as a front end needs it: points in the encoding's order, lines, mills.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardCard {
    /// Point names, in the dense order the encoding and the action space use.
    pub points: Vec<String>,
    /// For each point (by index), the indices of the points joined to it by a line.
    pub adjacency: Vec<Vec<usize>>,
    /// Each mill as three point indices.
    pub mills: Vec<Vec<usize>>,
}

/// The input vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputCard {
    /// Its length.
    pub length: usize,
    /// Each feature's name, in order: `own:<point>`, `opponent:<point>`, `empty:<point>`
    /// (1 or 0, seen from the player to move), then `scalar:<name>`.
    pub features: Vec<String>,
    /// How each scalar is computed.
    pub scalars: Vec<(String, String)>,
}

/// The action index space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionCard {
    /// Its length.
    pub length: usize,
    /// How indices are laid out, in words.
    pub layout: String,
    /// Each index's move in Kvarn's notation (`d6` placement, `a1-a4` move, `xd2`
    /// removal, `-` for indices that denote no move).
    pub names: Vec<String>,
}

/// The model card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelCard {
    /// Always `kvarn-model-card`.
    pub format: String,
    /// [`CARD_VERSION`].
    pub version: u32,
    /// The rules the network plays.
    pub rules: Rules,
    /// Men each player has at the start.
    pub men_per_player: u8,
    /// `kvarn_game::ENCODING_VERSION`.
    pub encoding_version: u32,
    /// The board.
    pub board: BoardCard,
    /// The input.
    pub input: InputCard,
    /// The outputs, by name, in words.
    pub outputs: Vec<(String, String)>,
    /// The actions.
    pub actions: ActionCard,
    /// The network's architecture.
    pub network: NetConfig,
    /// Trainable parameters.
    pub parameters: usize,
    /// Where it came from.
    pub provenance: Provenance,
    /// Files exported beside the card.
    pub files: Vec<String>,
}

const SCALARS: [(&str, &str); 8] = [
    (
        "own_in_hand",
        "men in hand of the player to move / men per player",
    ),
    (
        "opponent_in_hand",
        "opponent's men in hand / men per player",
    ),
    ("black_to_move", "1 when Black is to move, else 0"),
    (
        "pending_removal",
        "1 when the player to move has closed a mill and must remove a man",
    ),
    (
        "own_may_fly",
        "1 when flying is on and the player to move has exactly 3 men, none in hand",
    ),
    ("opponent_may_fly", "the same for the opponent"),
    (
        "no_capture_fraction",
        "turns since the last removal / no-capture limit, capped at 1 (0 when the rule is off)",
    ),
    (
        "repetition",
        "(occurrences of this position - 1) / 2, capped at 1, when the repetition rule is on, else 0",
    ),
];

/// The card of `network` with `provenance`, listing `files`.
pub fn model_card(network: &Network, provenance: &Provenance, files: Vec<String>) -> ModelCard {
    let rules = *network.rules();
    let board = rules.board();
    let n = board.len();
    let points: Vec<String> = (0..n)
        .map(|i| board.square_at(i).expect("dense index").to_string())
        .collect();
    let adjacency = (0..n)
        .map(|i| {
            let sq = board.square_at(i).expect("dense index");
            let mut v: Vec<usize> = board
                .adjacent(sq)
                .into_iter()
                .map(|t| board.local_index(t))
                .collect();
            v.sort_unstable();
            v
        })
        .collect();
    let mills = board
        .mills()
        .iter()
        .map(|m| m.into_iter().map(|t| board.local_index(t)).collect())
        .collect();
    let space = ActionSpace::new(&rules);
    debug_assert_eq!(encoding::SCALAR_NAMES.len(), SCALARS.len());
    ModelCard {
        format: "kvarn-model-card".into(),
        version: CARD_VERSION,
        rules,
        men_per_player: rules.men(),
        encoding_version: ENCODING_VERSION,
        board: BoardCard {
            points,
            adjacency,
            mills,
        },
        input: InputCard {
            length: encoding::input_len(&rules),
            features: encoding::feature_names(&rules),
            scalars: SCALARS
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        },
        outputs: vec![
            (
                "policy_logits".into(),
                "one logit per action index; mask illegal actions before the softmax".into(),
            ),
            (
                "wdl".into(),
                "probabilities of a win, a draw and a loss for the player to move".into(),
            ),
        ],
        actions: ActionCard {
            length: space.len(),
            layout: format!(
                "0..{n}: place on point i; {n}..{}: move (slide or fly) from point (a-{n})/{n} to point (a-{n})%{n}; {}..{}: remove the opposing man on point a-{}",
                n + n * n,
                n + n * n,
                space.len(),
                n + n * n
            ),
            names: space.names(),
        },
        network: network.config().clone(),
        parameters: network.parameter_count(),
        provenance: provenance.clone(),
        files,
    }
}
