//! Weight averaging: the mean of the parameters, of networks that fit together only.

use std::collections::BTreeMap;
use std::path::Path;

use burn::tensor::Device;
use kvarn_game::{Rules, Variant};
use kvarn_model::average::average;
use kvarn_model::{NetConfig, Network, Provenance, file};

/// Each parameter tensor of `network`, by name, as f32 values.
fn parameters(network: &Network) -> BTreeMap<String, Vec<f32>> {
    let bytes = file::to_bytes(network, &Provenance::default(), true, Path::new("t")).unwrap();
    let tensors = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    tensors
        .tensors()
        .into_iter()
        .map(|(name, view)| {
            let values = view
                .data()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            (name, values)
        })
        .collect()
}

fn configs() -> [NetConfig; 2] {
    [
        NetConfig::Mlp {
            hidden: 32,
            blocks: 2,
        },
        NetConfig::Graph {
            channels: 16,
            layers: 2,
            value_hidden: 16,
        },
    ]
}

#[test]
fn the_average_holds_the_mean_of_every_parameter() {
    let rules = Rules::new(Variant::Six);
    for config in configs() {
        let device = Device::flex();
        let nets: Vec<Network> = (0..3)
            .map(|seed| {
                device.seed(seed);
                Network::new(rules, config.clone(), &device).unwrap()
            })
            .collect();
        let provenance = Provenance {
            generation: Some(7),
            ..Provenance::default()
        };
        let mean = average(&nets.iter().collect::<Vec<_>>(), &provenance, &device).unwrap();
        let each: Vec<_> = nets.iter().map(parameters).collect();
        let got = parameters(&mean);
        assert_eq!(got.len(), each[0].len(), "{config:?}");
        let mut differ = 0;
        for (name, values) in &got {
            for (i, v) in values.iter().enumerate() {
                let xs: Vec<f32> = each.iter().map(|p| p[name][i]).collect();
                let want = xs.iter().sum::<f32>() / 3.0;
                assert!(
                    (v - want).abs() < 1e-6,
                    "{config:?} {name}[{i}]: {v} != {want}"
                );
                differ += usize::from(xs[0] != xs[1]);
            }
        }
        assert!(differ > 100, "the seeds gave different networks");
        // One model averages to itself, exactly.
        let one = average(&[&nets[0]], &provenance, &device).unwrap();
        assert_eq!(parameters(&one), each[0]);
    }
}

#[test]
fn models_of_other_architectures_or_rules_or_none_are_refused() {
    let device = Device::flex();
    let six = Rules::new(Variant::Six);
    let [mlp, graph] = configs();
    let a = Network::new(six, mlp.clone(), &device).unwrap();
    let b = Network::new(six, graph, &device).unwrap();
    let c = Network::new(Rules::new(Variant::Five), mlp, &device).unwrap();
    let p = Provenance::default();
    for (models, says) in [
        (vec![&a, &b], "model 2 is"),
        (vec![&a, &c], "model 2 is"),
        (vec![], "no model given"),
    ] {
        let e = average(&models, &p, &device).unwrap_err().to_string();
        assert!(e.contains("cannot average") && e.contains(says), "{e}");
    }
}
