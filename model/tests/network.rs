//! The networks: shapes and masks, the CPU inference path against burn, model files and
//! weight averaging and widening.

use burn::tensor::Device;
use kvarn_game::{ActionSpace, Game, Rules, Variant, encoding};
use kvarn_model::average::average;
use kvarn_model::widen::widen;
use kvarn_model::{
    Inference, InferencePath, NetConfig, Network, Precision, PrecisionError, Provenance, file,
};
use rand::{RngExt, SeedableRng};

#[path = "../../testing/paths.rs"]
mod paths;

fn configs() -> Vec<NetConfig> {
    vec![
        NetConfig::Mlp {
            hidden: 32,
            blocks: 2,
            ownership_head: false,
        },
        NetConfig::Graph {
            channels: 16,
            layers: 2,
            value_hidden: 16,
        },
        NetConfig::Mlp {
            hidden: 24,
            blocks: 1,
            ownership_head: true,
        },
    ]
}

/// Encoded positions and legal masks from seeded random games.
fn positions(rules: &Rules, n: usize, seed: u64) -> (Vec<f32>, Vec<bool>) {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let space = ActionSpace::new(rules);
    let input = encoding::input_len(rules);
    let (mut feats, mut mask) = (vec![0f32; n * input], vec![false; n * space.len()]);
    let mut game = Game::new(*rules);
    for i in 0..n {
        if game.status().is_over() {
            game = Game::new(*rules);
        }
        encoding::encode_position(
            rules,
            game.position(),
            game.occurrences(),
            &mut feats[i * input..(i + 1) * input],
        );
        space.legal_mask(
            rules,
            game.position(),
            &mut mask[i * space.len()..(i + 1) * space.len()],
        );
        let moves = game.legal_moves();
        let mv = moves[rng.random_range(0..moves.len())];
        game.play_unchecked(mv);
    }
    (feats, mask)
}

#[test]
fn outputs_have_the_right_shapes_and_masks() {
    for variant in [Variant::Nine, Variant::Six] {
        let rules = Rules::new(variant);
        for config in configs() {
            let net = Network::new(rules, config.clone(), 0, &Device::flex()).unwrap();
            let dims = net.dims();
            let (feats, mask) = positions(&rules, 7, 1);
            let out = net.evaluate(&feats, Some(&mask), 7);
            assert_eq!(out.policy_logits.len(), 7 * dims.actions, "{config:?}");
            assert_eq!(out.wdl.len(), 7 * 3);
            for (l, m) in out.policy_logits.iter().zip(&mask) {
                assert_eq!(*m, l.is_finite(), "legal actions finite, illegal -inf");
            }
            for row in out.wdl.chunks(3) {
                assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
                assert!(row.iter().all(|p| *p >= 0.0));
            }
        }
    }
}

#[test]
fn cpu_path_equals_burn() {
    // The plain MLP, and one with the ownership head, which play ignores.
    let mlps = [configs()[0].clone(), configs()[2].clone()];
    for (variant, config) in [Variant::Nine, Variant::Five].into_iter().zip(mlps) {
        let rules = Rules::new(variant);
        let net = Network::new(rules, config, 0, &Device::flex()).unwrap();
        let fast = Inference::new(&net, InferencePath::Fastest, Some(Precision::F32)).unwrap();
        assert!(matches!(fast, Inference::CpuMlp(..)));
        let slow = Inference::new(&net, InferencePath::Burn, None).unwrap();
        for batch in [1, 5, 100] {
            let (feats, _) = positions(&rules, batch, 2);
            let a = fast.evaluate(&feats, batch);
            let b = slow.evaluate(&feats, batch);
            for (x, y) in a
                .policy_logits
                .iter()
                .zip(&b.policy_logits)
                .chain(a.wdl.iter().zip(&b.wdl))
            {
                assert!((x - y).abs() < 1e-4, "{x} vs {y} at batch {batch}");
            }
        }
    }
}

#[test]
fn saved_models_load_back_identical() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::new(Variant::Six)
        .with_no_capture_limit(Some(30))
        .unwrap();
    for config in configs() {
        let net = Network::new(rules, config.clone(), 0, &Device::flex()).unwrap();
        let (feats, _) = positions(&rules, 9, 3);
        let before = net.evaluate(&feats, None, 9);
        let provenance = Provenance {
            run: Some("test".into()),
            generation: Some(3),
            ..Provenance::default()
        };
        for name in ["m.kvmodel", "m.safetensors"] {
            let path = dir.path().join(name);
            file::save(&net, &provenance, &path).unwrap();
            let (loaded, header) = file::load(&path, &Device::flex()).unwrap();
            assert_eq!(header.network, config);
            assert_eq!(header.rules, rules);
            assert_eq!(header.provenance, provenance);
            assert_eq!(
                loaded.evaluate(&feats, None, 9),
                before,
                "{name} {config:?}"
            );
            // Every parameter, the ownership head's among them.
            assert_eq!(parameters(&loaded), parameters(&net), "{name} {config:?}");
        }
    }
}

#[test]
fn bad_model_files_are_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::new(Variant::Nine);
    let net = Network::new(rules, configs()[0].clone(), 0, &Device::flex()).unwrap();
    let path = dir.path().join("m.kvmodel");
    file::save(&net, &Provenance::default(), &path).unwrap();
    let good = std::fs::read(&path).unwrap();

    // A flipped byte in the parameters.
    let mut bad = good.clone();
    let at = bad.len() - 100;
    bad[at] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    let err = file::load(&path, &Device::flex()).unwrap_err().to_string();
    assert!(
        err.contains("damaged") && err.contains("m.kvmodel"),
        "{err}"
    );

    // Cut short.
    std::fs::write(&path, &good[..good.len() / 2]).unwrap();
    assert!(file::load(&path, &Device::flex()).is_err());

    // Another encoding version, and a header naming another architecture.
    let (mut header, payload): (kvarn_model::ModelHeader, Vec<u8>) =
        kvarn_storage::parse_container(
            &path,
            &good,
            file::MODEL_MAGIC,
            "model",
            file::MODEL_FORMAT_VERSION,
        )
        .unwrap();
    // Rewrites the file with `header` over the good payload; the loader's complaint.
    let refusal_with = |header: &kvarn_model::ModelHeader| {
        kvarn_storage::write_container(
            &path,
            file::MODEL_MAGIC,
            file::MODEL_FORMAT_VERSION,
            header,
            &payload,
        )
        .unwrap();
        file::load(&path, &Device::flex()).unwrap_err().to_string()
    };
    header.encoding_version += 1;
    let err = refusal_with(&header);
    assert!(err.contains("encoding version"), "{err}");
    header.encoding_version -= 1;
    header.network = NetConfig::Mlp {
        hidden: 64,
        blocks: 2,
        ownership_head: false,
    };
    let err = refusal_with(&header);
    assert!(err.contains("do not fit"), "{err}");
    // A header asking for a network of gigabytes is refused before it is allocated.
    header.network = NetConfig::Mlp {
        hidden: 8192,
        blocks: 64,
        ownership_head: false,
    };
    let began = std::time::Instant::now();
    let err = refusal_with(&header);
    assert!(err.contains("cannot hold"), "{err}");
    assert!(began.elapsed().as_secs() < 5, "refused without allocating");

    // A safetensors file without Kvarn's header.
    let st = dir.path().join("m.safetensors");
    std::fs::write(&st, b"\x10\0\0\0\0\0\0\0{}              ").unwrap();
    let err = file::load(&st, &Device::flex()).unwrap_err().to_string();
    assert!(
        err.contains("not a Kvarn model") || err.contains("safetensors"),
        "{err}"
    );

    // A model file that is not a model at all.
    std::fs::write(&path, b"hello").unwrap();
    let err = file::load(&path, &Device::flex()).unwrap_err().to_string();
    assert!(err.contains("not a Kvarn model"), "{err}");
}

/// `.safetensors` files carry a checksum of the header and the weights: one changed
/// weight byte, a changed header, or no checksum at all is refused, naming the file.
#[test]
fn a_changed_safetensors_weight_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::new(Variant::Six);
    let net = Network::new(rules, configs()[0].clone(), 0, &Device::flex()).unwrap();
    let path = dir.path().join("m.safetensors");
    file::save(&net, &Provenance::default(), &path).unwrap();
    let good = std::fs::read(&path).unwrap();
    let st = safetensors::SafeTensors::deserialize(&good).unwrap();
    let (_, meta) = safetensors::SafeTensors::read_metadata(&good).unwrap();
    let metadata = meta.metadata().clone().unwrap();
    assert!(metadata.contains_key(file::SAFETENSORS_CRC_KEY));
    let refusal = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        file::load(&path, &Device::flex()).unwrap_err().to_string()
    };

    // Each of several weight bytes changed in turn (the last bytes of the file are weights).
    for back in [1, 7, 100, 1000] {
        let mut bad = good.clone();
        let at = bad.len() - back;
        bad[at] ^= 0x10;
        let err = refusal(&bad);
        assert!(
            err.contains("m.safetensors") && err.contains("damaged"),
            "{err}"
        );
    }

    // The Kvarn header changed (another provenance note) but still readable.
    let mut edited = metadata.clone();
    let header = edited.get_mut(file::SAFETENSORS_KEY).unwrap();
    *header = header.replace("\"note\":null", "\"note\":\"x\"");
    let bytes = safetensors::serialize(st.tensors(), Some(edited)).unwrap();
    let err = refusal(&bytes);
    assert!(err.contains("damaged") && err.contains("checksum"), "{err}");

    // No checksum (a file from before it existed): refused, naming the missing key.
    let mut old = metadata.clone();
    old.remove(file::SAFETENSORS_CRC_KEY);
    let bytes = safetensors::serialize(st.tensors(), Some(old)).unwrap();
    let err = refusal(&bytes);
    assert!(err.contains(file::SAFETENSORS_CRC_KEY), "{err}");

    // The same tensors in another layout with the checksum kept: still accepted.
    let bytes = safetensors::serialize(st.tensors(), Some(metadata)).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    file::load(&path, &Device::flex()).unwrap();
}

#[test]
fn a_model_is_refused_for_rules_it_was_not_trained_for() {
    let dir = tempfile::tempdir().unwrap();
    let five = Rules::new(Variant::Five);
    let net = Network::new(five, configs()[0].clone(), 0, &Device::flex()).unwrap();
    let path = dir.path().join("five.kvmodel");
    file::save(&net, &Provenance::default(), &path).unwrap();
    let (loaded, _) = file::load_for_rules(&path, &five, &Device::flex()).unwrap();
    assert_eq!(loaded.rules(), &five);
    let six = Rules::new(Variant::Six);
    let err = file::load_for_rules(&path, &six, &Device::flex()).unwrap_err();
    assert!(
        matches!(err, file::ModelFileError::WrongRules { trained, wanted, .. }
            if trained == five && wanted == six),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(text.contains("five.kvmodel was trained for Five"), "{text}");
}

/// A Six MLP whose parameters come from a seeded generator, and 16 positions' outputs on
/// the fast path: what `tests/data/cpu-reference.json` holds.
fn reference_outputs() -> Vec<f32> {
    let rules = Rules::new(Variant::Six);
    let config = NetConfig::Mlp {
        hidden: 64,
        blocks: 2,
        ownership_head: false,
    };
    let net = Network::new(rules, config, 0, &Device::flex()).unwrap();
    let kvarn_model::Model::Mlp(mlp) = &net.model else {
        unreachable!()
    };
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(2026);
    let values: Vec<(Vec<f32>, Vec<f32>)> = mlp
        .layers()
        .iter()
        .map(|(_, l)| {
            let [i, o] = l.weight.val().dims();
            let scale = 1.5 / (i as f32).sqrt();
            let mut draw = |n: usize| -> Vec<f32> {
                (0..n).map(|_| rng.random_range(-scale..scale)).collect()
            };
            (draw(i * o), draw(o))
        })
        .collect();
    let mlp = mlp.with_parameters(values.iter().map(|(w, b)| (&w[..], &b[..])));
    let net = net.with_model(kvarn_model::Model::Mlp(mlp));
    let (feats, _) = positions(&rules, 16, 9);
    let out = Inference::new(&net, InferencePath::Fastest, Some(Precision::F32))
        .unwrap()
        .evaluate(&feats, 16);
    out.policy_logits.into_iter().chain(out.wdl).collect()
}

/// The fast path gives the same outputs on every kernel path (AVX-512 where the reference
/// was written, AVX2 under `scripts/test-avx2.sh`) to within rounding.
/// `KVARN_WRITE_REFERENCE=1` rewrites the file.
#[test]
fn cpu_outputs_match_the_reference_on_every_kernel_path() {
    let path = paths::crate_dir().join("tests/data/cpu-reference.json");
    let got = reference_outputs();
    if std::env::var_os("KVARN_WRITE_REFERENCE").is_some() {
        let text = serde_json::json!({
            "kernels": kvarn_model::cpu::KernelPath::detected().name(),
            "outputs": got,
        });
        std::fs::write(&path, text.to_string()).unwrap();
    }
    let text = std::fs::read_to_string(&path).expect("the reference file");
    let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
    let want: Vec<f32> = serde_json::from_value(reference["outputs"].clone()).unwrap();
    assert_eq!(want.len(), got.len());
    let worst = want
        .iter()
        .zip(&got)
        .map(|(a, b)| (a - b).abs() / a.abs().max(1.0))
        .fold(0.0f32, f32::max);
    eprintln!(
        "kernel path {} against the reference's {}: largest difference {worst:e}",
        kvarn_model::cpu::KernelPath::detected(),
        reference["kernels"]
    );
    assert!(worst < 1e-5, "outputs differ from the reference by {worst}");
}

/// Each parameter tensor of `network`, by name, as f32 values.
fn parameters(network: &Network) -> std::collections::BTreeMap<String, Vec<f32>> {
    let bytes = file::to_bytes(
        network,
        &Provenance::default(),
        true,
        std::path::Path::new("t"),
    )
    .unwrap();
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

#[test]
fn a_seed_gives_its_network_even_while_other_threads_make_networks() {
    let rules = Rules::new(Variant::Six);
    let config = configs()[0].clone();
    let device = Device::flex();
    let alone: Vec<_> = (0..4)
        .map(|seed| parameters(&Network::new(rules, config.clone(), seed, &device).unwrap()))
        .collect();
    assert_ne!(alone[0], alone[1], "seeds give different networks");
    std::thread::scope(|s| {
        for seed in 0..4u64 {
            let (config, device, want) = (config.clone(), device.clone(), &alone[seed as usize]);
            s.spawn(move || {
                for _ in 0..25 {
                    let net = Network::new(rules, config.clone(), seed, &device).unwrap();
                    assert!(
                        parameters(&net) == *want,
                        "seed {seed} drew another network"
                    );
                }
            });
        }
    });
}

#[test]
fn the_average_holds_the_mean_of_every_parameter() {
    let rules = Rules::new(Variant::Six);
    for config in configs() {
        let device = Device::flex();
        let nets: Vec<Network> = (0..3)
            .map(|seed| Network::new(rules, config.clone(), seed, &device).unwrap())
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
    let configs = configs();
    let (mlp, graph) = (&configs[0], &configs[1]);
    let a = Network::new(six, mlp.clone(), 0, &device).unwrap();
    let b = Network::new(six, graph.clone(), 0, &device).unwrap();
    let c = Network::new(Rules::new(Variant::Five), mlp.clone(), 0, &device).unwrap();
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

#[test]
fn a_widened_network_computes_what_it_was_widened_from() {
    let rules = Rules::new(Variant::Nine);
    let device = Device::flex();
    let narrow = Network::new(rules, configs()[0].clone(), 3, &device).unwrap();
    let wide = widen(&narrow, 48, 4, &device).unwrap();
    assert_eq!(
        wide.config(),
        &NetConfig::Mlp {
            hidden: 48,
            blocks: 2,
            ownership_head: false,
        }
    );
    assert!(wide.parameter_count() > narrow.parameter_count());
    let (feats, mask) = positions(&rules, 50, 4);
    let (a, b) = (
        narrow.evaluate(&feats, Some(&mask), 50),
        wide.evaluate(&feats, Some(&mask), 50),
    );
    for (x, y) in a
        .policy_logits
        .iter()
        .zip(&b.policy_logits)
        .chain(a.wdl.iter().zip(&b.wdl))
    {
        assert!(x == y || (x - y).abs() < 1e-5, "{x} vs {y}");
    }
    // The new units are live: their incoming stem weights were drawn, not zeroed.
    let params = parameters(&wide);
    let (_, stem) = params
        .iter()
        .find(|(name, _)| name.ends_with("stem.weight"))
        .expect("the stem's weights");
    let new_columns = stem
        .chunks_exact(48)
        .flat_map(|row| &row[32..])
        .filter(|w| **w != 0.0)
        .count();
    assert!(
        new_columns > 100,
        "{new_columns} new stem weights are non-zero"
    );
}

#[test]
fn only_an_mlp_widens_and_only_wider() {
    let device = Device::flex();
    let six = Rules::new(Variant::Six);
    let configs = configs();
    let mlp = Network::new(six, configs[0].clone(), 0, &device).unwrap();
    let graph = Network::new(six, configs[1].clone(), 0, &device).unwrap();
    for (net, hidden, says) in [
        (&graph, 64, "only the MLP"),
        (&mlp, 32, "already has 32 units"),
        (&mlp, 8, "already has 32 units"),
    ] {
        let e = widen(net, hidden, 0, &device).unwrap_err().to_string();
        assert!(e.contains("cannot widen") && e.contains(says), "{e}");
    }
}

/// The largest differences between two evaluations of the same positions: in the legal
/// moves' probabilities and in the win/draw/loss probabilities.
fn largest_differences(
    a: &kvarn_model::Outputs,
    b: &kvarn_model::Outputs,
    mask: &[bool],
    actions: usize,
) -> (f32, f32) {
    let probabilities = |o: &kvarn_model::Outputs| {
        let mut all = vec![0.0; o.policy_logits.len()];
        for ((logits, m), out) in o
            .policy_logits
            .chunks(actions)
            .zip(mask.chunks(actions))
            .zip(all.chunks_mut(actions))
        {
            let masked: Vec<f32> = logits
                .iter()
                .zip(m)
                .map(|(l, &legal)| if legal { *l } else { f32::NEG_INFINITY })
                .collect();
            kvarn_model::masked_softmax(&masked, out);
        }
        all
    };
    let worst = |x: &[f32], y: &[f32]| {
        x.iter()
            .zip(y)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f32::max)
    };
    (
        worst(&probabilities(a), &probabilities(b)),
        worst(&a.wdl, &b.wdl),
    )
}

/// The shipped Nine player evaluated in bf16 and int8 stays close to its 32-bit outputs
/// on positions of random games; where the machine lacks the AMX tiles, forcing either is
/// refused with a reason.
#[test]
fn reduced_precision_stays_close_to_32_bit() {
    let path = paths::workspace().join("models/nine.kvmodel");
    let (net, _) = file::load(&path, &Device::flex()).unwrap();
    let rules = Rules::new(Variant::Nine);
    let actions = ActionSpace::new(&rules).len();
    let batch = 500;
    let (feats, mask) = positions(&rules, batch, 5);
    let exact = Inference::new(&net, InferencePath::Fastest, Some(Precision::F32)).unwrap();
    let want = exact.evaluate(&feats, batch);
    // The worst of 500 positions: int8 gives 0.059 (moves) and 0.092 (win/draw/loss) for
    // the 384-wide generation 365, 0.112 and 0.093 for the 416-wide shipped player.
    for (precision, policy_bound, wdl_bound) in
        [(Precision::Bf16, 0.05, 0.05), (Precision::Int8, 0.15, 0.12)]
    {
        let reduced = match Inference::new(&net, InferencePath::Fastest, Some(precision)) {
            Ok(reduced) => reduced,
            Err(e) => {
                assert!(!precision.is_available());
                assert_eq!(e, PrecisionError::Unavailable(precision));
                eprintln!("{precision}: {e}");
                continue;
            }
        };
        assert_eq!(reduced.precision(), precision);
        let got = reduced.evaluate(&feats, batch);
        let (policy, wdl) = largest_differences(&want, &got, &mask, actions);
        eprintln!(
            "{precision}: largest difference {policy:.4} in move probabilities, {wdl:.4} in win/draw/loss"
        );
        assert!(
            policy < policy_bound && wdl < wdl_bound,
            "{precision}: {policy} {wdl}"
        );
    }
    let refused = Inference::new(&net, InferencePath::Burn, Some(Precision::Int8));
    assert!(matches!(
        refused,
        Err(PrecisionError::NotOnBurn(Precision::Int8))
    ));
}
