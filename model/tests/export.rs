//! Exports that need no Python: the model card's action space and board against the game
//! crate, and the PyTorch-named safetensors against burn's weights.

use burn::tensor::Device;
use kvarn_game::{ActionSpace, Move, Rules, Variant};
use kvarn_model::export::{card::model_card, torch::torch_tensors};
use kvarn_model::{NetConfig, Network, Provenance};

fn rule_sets() -> Vec<Rules> {
    vec![
        Rules::new(Variant::Nine),
        Rules::new(Variant::Nine).with_flying(false).unwrap(),
        Rules::new(Variant::Six),
        Rules::new(Variant::Five),
    ]
}

#[test]
fn model_card_action_space_agrees_with_the_game_crate() {
    for rules in rule_sets() {
        let net = Network::new(
            rules,
            NetConfig::Mlp {
                hidden: 8,
                blocks: 0,
                ownership_head: false,
            },
            0,
            &Device::flex(),
        )
        .unwrap();
        let card = model_card(&net, &Provenance::default(), vec![]);
        let space = ActionSpace::new(&rules);
        let n = rules.board().len();
        assert_eq!(card.actions.length, space.len());
        assert_eq!(card.actions.names.len(), space.len());
        let mut moves = 0;
        for (i, name) in card.actions.names.iter().enumerate() {
            if name == "-" {
                assert!(space.decode(i).is_none(), "{rules}: index {i}");
                continue;
            }
            let parsed = Move::parse_token(name).unwrap();
            assert_eq!(parsed.len(), 1, "{name}");
            assert_eq!(space.index(parsed[0]), i, "{rules}: {name}");
            moves += 1;
        }
        assert_eq!(
            moves,
            n + n * (n - 1) + n,
            "{rules}: every point, pair and removal once"
        );
        // The board as the card gives it is the game's board.
        let board = rules.board();
        for (i, name) in card.board.points.iter().enumerate() {
            let sq = board.square_at(i).unwrap();
            assert_eq!(&sq.to_string(), name);
            let adjacent: Vec<String> = card.board.adjacency[i]
                .iter()
                .map(|&j| card.board.points[j].clone())
                .collect();
            let mut expected: Vec<String> = board
                .adjacent(sq)
                .into_iter()
                .map(|t| t.to_string())
                .collect();
            let mut got = adjacent.clone();
            got.sort();
            expected.sort();
            assert_eq!(got, expected, "{rules}: neighbours of {name}");
        }
        assert_eq!(card.board.mills.len(), board.mills().len());
        assert_eq!(
            card.input.features,
            kvarn_game::encoding::feature_names(&rules)
        );
        assert_eq!(card.men_per_player, rules.men());
    }
}

#[test]
fn torch_tensors_are_burns_weights_transposed() {
    let rules = Rules::new(Variant::Six);
    let net = Network::new(
        rules,
        NetConfig::Mlp {
            hidden: 16,
            blocks: 1,
            ownership_head: false,
        },
        0,
        &Device::flex(),
    )
    .unwrap();
    let tensors = torch_tensors(&net);
    let names: Vec<&str> = tensors.iter().map(|t| t.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "stem.weight",
            "stem.bias",
            "blocks.0.weight",
            "blocks.0.bias",
            "policy.weight",
            "policy.bias",
            "value.weight",
            "value.bias"
        ]
    );
    let (_, shape, data) = &tensors[0];
    assert_eq!(shape, &vec![16, 56]);
    let kvarn_model::Model::Mlp(mlp) = &net.model else {
        panic!()
    };
    let w = mlp.layers()[0]
        .1
        .weight
        .val()
        .into_data()
        .try_to_vec::<f32>()
        .unwrap();
    for i in 0..56 {
        for o in 0..16 {
            assert_eq!(data[o * 56 + i], w[i * 16 + o]);
        }
    }
    let graph = Network::new(
        rules,
        NetConfig::Graph {
            channels: 8,
            layers: 2,
            value_hidden: 8,
        },
        0,
        &Device::flex(),
    )
    .unwrap();
    let bytes = kvarn_model::export::torch::to_safetensors(&graph, Default::default()).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    assert_eq!(st.tensor("layers.1.mill.weight").unwrap().shape(), &[8, 8]);
    assert_eq!(st.tensor("embed.weight").unwrap().shape(), &[8, 11]);
    assert_eq!(st.tensor("board.adjacency").unwrap().shape(), &[16, 16]);
}
