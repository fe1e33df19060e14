//! The trainer: augmentation keeps targets attached to their moves, and training steps
//! lower the loss.

use kvarn_game::{ActionSpace, Game, Rules, SYMMETRY_COUNT, Variant};
use kvarn_model::burn::tensor::Device;
use kvarn_model::{NetConfig, Network};
use kvarn_selfplay::Sample;
use kvarn_train::{
    CheapSearchValue, ReplayWindow, Schedule, SurpriseWeighs, TrainConfig, Trainer,
    outcome_targets, search_targets, surprise_frequencies,
};
use rand::{RngExt, SeedableRng};

/// Samples from seeded random games, with random policies over the legal moves.
fn samples(rules: Rules, n: usize, seed: u64) -> Vec<Sample> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let space = ActionSpace::new(&rules);
    let mut out = Vec::new();
    let mut game = Game::new(rules);
    while out.len() < n {
        if game.status().is_over() {
            game = Game::new(rules);
        }
        let moves = game.legal_moves();
        let weights: Vec<f32> = moves
            .iter()
            .map(|_| rng.random_range(0.0..1.0f32))
            .collect();
        let sum: f32 = weights.iter().sum();
        out.push(Sample {
            position: *game.position(),
            occurrences: game.occurrences() as u8,
            full_search: rng.random_range(0..4) != 0,
            result: rng.random_range(-1..=1),
            search_wdl: [0.3, 0.4, 0.3],
            policy: moves
                .iter()
                .zip(&weights)
                .map(|(&m, w)| (space.index(m) as u16, w / sum))
                .collect(),
            explored: false,
            surprise: 0.0,
        });
        game.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    out
}

#[test]
fn weighed_removals_are_drawn_that_much_more_often() {
    let rules = Rules::new(Variant::Six);
    let mut window = ReplayWindow::new(rules);
    window.extend(samples(rules, 4000, 9));
    let removal = |s: &Sample| s.position.pending_removal();
    let share = window.samples().iter().filter(|s| removal(s)).count() as f64 / 4000.0;
    assert!(share > 0.02, "the games hold removals: {share}");
    let drawn_share = |window: &ReplayWindow| {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
        let n = 20_000;
        (0..n)
            .filter(|_| removal(&window.samples()[window.draw(&mut rng)]))
            .count() as f64
            / f64::from(n)
    };
    assert!((drawn_share(&window) - share).abs() < 0.01);
    window.weigh(4.0);
    let expected = 4.0 * share / (4.0 * share + 1.0 - share);
    let got = drawn_share(&window);
    assert!(
        (got - expected).abs() < 0.015,
        "{got} drawn, {expected} expected"
    );
    window.weigh(1.0);
    assert!((drawn_share(&window) - share).abs() < 0.01);
}

#[test]
fn augmentation_maps_policy_targets_with_the_position() {
    for rules in [Rules::new(Variant::Nine), Rules::new(Variant::Six)] {
        let mut window = ReplayWindow::new(rules);
        window.extend(samples(rules, 60, 1));
        let space = ActionSpace::new(&rules);
        let board = rules.board();
        let n = board.len();
        for (i, sample) in window.samples().iter().enumerate() {
            let (f0, _, p0, _) = window.row(i, 0, 0.0);
            for sym in 0..SYMMETRY_COUNT {
                let (f, legal, p, v) = window.row(i, sym, 0.0);
                // Every target action is legal in the transformed position, mass kept.
                for (a, &mass) in p.iter().enumerate() {
                    assert!(
                        mass == 0.0 || legal[a],
                        "{rules} sym {sym}: target on an illegal action"
                    );
                }
                assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
                // The move a target names is the image of the original move.
                for (a, &mass) in p0.iter().enumerate() {
                    if mass > 0.0 {
                        let image = space.index(space.decode(a).unwrap().transformed(board, sym));
                        assert_eq!(p[image], mass, "{rules} sym {sym}");
                    }
                }
                // Point features move with the points; scalars stay.
                for sq in board.squares() {
                    let i = board.local_index(sq);
                    let j = board.local_index(board.map_square(sym, sq));
                    for plane in 0..3 {
                        assert_eq!(f0[plane * n + i], f[plane * n + j]);
                    }
                }
                assert_eq!(f0[3 * n..], f[3 * n..]);
                let target = match sample.result {
                    1 => [1.0, 0.0, 0.0],
                    0 => [0.0, 1.0, 0.0],
                    _ => [0.0, 0.0, 1.0],
                };
                assert_eq!(v, target);
            }
        }
    }
}

#[test]
fn training_steps_lower_the_loss_on_a_fixed_batch() {
    for config in [
        NetConfig::Mlp {
            hidden: 64,
            blocks: 1,
            ownership_head: false,
        },
        NetConfig::Graph {
            channels: 16,
            layers: 2,
            value_hidden: 16,
        },
    ] {
        let rules = Rules::new(Variant::Six);
        let device = Device::flex();
        let net = Network::new(rules, config.clone(), 5, &device).unwrap();
        let mut window = ReplayWindow::new(rules);
        window.extend(samples(rules, 64, 2));
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let batch = window.batch(&mut rng, 64, true, 0.25);
        let train = TrainConfig {
            learning_rate: 3e-3,
            schedule: Schedule::Cosine {
                steps: 200,
                min_fraction: 0.1,
                start: 0,
            },
            ..TrainConfig::default()
        };
        train.validate().unwrap();
        let mut trainer = Trainer::new(&net, train);
        let before = trainer.losses(&batch);
        for _ in 0..100 {
            trainer.train_step(&batch);
        }
        let after = trainer.losses(&batch);
        assert!(
            after.total < 0.85 * before.total
                && after.policy < before.policy
                && after.value < 0.8 * before.value,
            "{config:?}: {before:?} -> {after:?}"
        );
        assert_eq!(trainer.step, 100);
        // Fitting one batch makes the network agree with its targets more often.
        for l in [&before, &after] {
            assert!((0.0..=1.0).contains(&l.policy_accuracy), "{l:?}");
            assert!((0.0..=1.0).contains(&l.value_accuracy), "{l:?}");
        }
        assert!(
            after.policy_accuracy > before.policy_accuracy
                && after.value_accuracy > before.value_accuracy,
            "{config:?}: {before:?} -> {after:?}"
        );
        // The trained network plays: inference form, finite outputs.
        let played = trainer.network().for_inference();
        let out = played.evaluate(&batch.features[..played.dims().input], None, 1);
        assert!(out.wdl.iter().all(|p| p.is_finite()));
        // Optimiser state survives a round trip.
        let bytes = trainer.optimizer_bytes().unwrap();
        let mut again = Trainer::new(&trainer.network(), trainer.config().clone());
        again.load_optimizer(bytes).unwrap();
    }
}

#[test]
fn learning_rate_schedules() {
    let base = TrainConfig {
        learning_rate: 1.0,
        ..TrainConfig::default()
    };
    let step = TrainConfig {
        schedule: Schedule::Step {
            every: 10,
            factor: 0.5,
        },
        ..base.clone()
    };
    assert_eq!(step.learning_rate_at(9), 1.0);
    assert_eq!(step.learning_rate_at(10), 0.5);
    assert_eq!(step.learning_rate_at(25), 0.25);
    let cosine = TrainConfig {
        schedule: Schedule::Cosine {
            steps: 100,
            min_fraction: 0.1,
            start: 0,
        },
        ..base.clone()
    };
    assert!((cosine.learning_rate_at(0) - 1.0).abs() < 1e-12);
    assert!((cosine.learning_rate_at(50) - 0.55).abs() < 1e-9);
    assert!((cosine.learning_rate_at(1000) - 0.1).abs() < 1e-12);
    // A warm restart: the full rate again at `start`, the same decay from there.
    let restarted = TrainConfig {
        schedule: Schedule::Cosine {
            steps: 100,
            min_fraction: 0.1,
            start: 400,
        },
        ..base
    };
    assert!((restarted.learning_rate_at(400) - 1.0).abs() < 1e-12);
    assert!((restarted.learning_rate_at(450) - 0.55).abs() < 1e-9);
    assert!((restarted.learning_rate_at(1000) - 0.1).abs() < 1e-12);
    let bad = TrainConfig {
        batch_size: 0,
        ..TrainConfig::default()
    };
    assert!(
        bad.validate()
            .unwrap_err()
            .to_string()
            .contains("train.batch_size")
    );
}

#[test]
fn a_checkpoint_resumes_training_exactly() {
    let rules = Rules::new(Variant::Six);
    let device = Device::flex();
    let net = Network::new(
        rules,
        NetConfig::Mlp {
            hidden: 32,
            blocks: 1,
            ownership_head: false,
        },
        9,
        &device,
    )
    .unwrap();
    let mut window = ReplayWindow::new(rules);
    window.extend(samples(rules, 40, 4));
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
    let batches: Vec<_> = (0..6)
        .map(|_| window.batch(&mut rng, 32, true, 0.0))
        .collect();
    let config = TrainConfig::default();
    let mut trainer = Trainer::new(&net, config.clone());
    for b in &batches[..3] {
        trainer.train_step(b);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ckpt");
    let provenance = kvarn_model::Provenance {
        generation: Some(2),
        ..Default::default()
    };
    let progress = kvarn_train::checkpoint::TrainingProgress {
        generation: 2,
        policy_sum: 1.5,
        value_sum: 0.5,
        ownership_sum: 0.25,
        steps: 3,
        seconds: 0.25,
    };
    let run = kvarn_train::binding::RunTag {
        run_id: Some("0123456789abcdef".into()),
        config_crc32: Some(7),
    };
    kvarn_train::checkpoint::save(&trainer, &provenance, &progress, &run, &path).unwrap();
    let restored = kvarn_train::checkpoint::load(&path, config, &device).unwrap();
    assert_eq!(
        (restored.provenance, restored.progress, restored.run),
        (provenance, progress, run)
    );
    let mut resumed = restored.trainer;
    assert_eq!(resumed.step, 3);
    for b in &batches[3..] {
        let a = trainer.train_step(b);
        let r = resumed.train_step(b);
        assert!((a.total - r.total).abs() < 1e-6, "{a:?} vs {r:?}");
    }
    let probe = &batches[0];
    let (x, y) = (trainer.losses(probe), resumed.losses(probe));
    assert!(
        (x.total - y.total).abs() < 1e-5,
        "{x:?} vs {y:?}: optimiser state restored"
    );

    // Damage is refused.
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() / 3;
    bytes[at] ^= 4;
    std::fs::write(&path, &bytes).unwrap();
    let err = kvarn_train::checkpoint::load(&path, TrainConfig::default(), &device)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("damaged"), "{err}");
}

#[test]
fn outcomes_are_cut_at_moves_the_late_temperature_drew() {
    let rules = Rules::new(Variant::Six);
    let mut game = samples(rules, 14, 5);
    let one_hot = |r: i8| match r {
        1 => [1.0, 0.0, 0.0],
        0 => [0.0, 1.0, 0.0],
        _ => [0.0, 0.0, 1.0],
    };
    let results: Vec<[f32; 3]> = game.iter().map(|s| one_hot(s.result)).collect();
    // Without explored moves, or without the cut, the outcome is each sample's result.
    assert_eq!(outcome_targets(&game, true), results);
    for i in [3, 9] {
        game[i].explored = true;
        game[i].search_wdl = [0.5 + i as f32 / 100.0, 0.3, 0.2 - i as f32 / 100.0];
    }
    assert_eq!(outcome_targets(&game, false), results);
    let cut = outcome_targets(&game, true);
    // After the last explored move: the game's result.
    assert_eq!(cut[10..], results[10..]);
    // Up to each explored move: its search value, turned for the other side.
    let (mut same, mut other) = (0, 0);
    for (range, at) in [(0..=3, 3), (4..=9, 9)] {
        let [w, d, l] = game[at].search_wdl;
        let side = game[at].position.side_to_move();
        for i in range {
            if game[i].position.side_to_move() == side {
                assert_eq!(cut[i], [w, d, l], "sample {i}");
                same += 1;
            } else {
                assert_eq!(cut[i], [l, d, w], "sample {i}");
                other += 1;
            }
        }
    }
    assert!(same > 0 && other > 0);
}

/// Writes `game`'s samples as a shard of one game.
fn one_game_shard(path: &std::path::Path, rules: Rules, game: &[Sample]) {
    let header = kvarn_selfplay::ShardHeader {
        encoding_version: kvarn_game::ENCODING_VERSION,
        rules,
        games: 1,
        samples: game.len() as u64,
        game_list: vec![kvarn_selfplay::shard::GameSummary {
            index: 0,
            result: 0,
            plies: game.len() as u32,
            samples: game.len() as u32,
            final_men: None,
        }],
        model: "test".into(),
        source: kvarn_selfplay::SampleSource::Games,
        seed: None,
    };
    kvarn_selfplay::write_shard(path, &header, game).unwrap();
}

/// The settings the replay window reads, all samples kept.
fn window_config(bootstrap_explored: bool, policy_surprise_share: f32) -> TrainConfig {
    TrainConfig {
        bootstrap_explored,
        policy_surprise_share,
        window_samples: usize::MAX,
        ..TrainConfig::default()
    }
}

#[test]
fn the_window_loaded_with_the_cut_trains_on_the_cut_outcomes() {
    let rules = Rules::new(Variant::Six);
    let mut game = samples(rules, 12, 8);
    game[6].explored = true;
    game[6].search_wdl = [0.7, 0.2, 0.1];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.kvsp");
    one_game_shard(&path, rules, &game);
    for cut in [false, true] {
        let window =
            ReplayWindow::load(rules, &[vec![path.clone()]], &window_config(cut, 0.0)).unwrap();
        assert_eq!(window.samples(), &game[..], "the flag survives the shard");
        let expected = outcome_targets(&game, cut);
        for (i, want) in expected.iter().enumerate() {
            // A search share of 0: the value target is the outcome alone.
            let (.., value) = window.row(i, 0, 0.0);
            assert_eq!(&value, want, "sample {i}, cut {cut}");
        }
        // The first sample's outcome is the explored move's search value only with the cut.
        assert_eq!(expected[0] != outcome_targets(&game, false)[0], cut);
    }
}

/// A replay window of one game, loaded from its shard with cheap searches valued by the
/// next full search.
fn next_full_window(rules: Rules, game: &[Sample]) -> ReplayWindow {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.kvsp");
    one_game_shard(&path, rules, game);
    let config = TrainConfig {
        cheap_search_value: CheapSearchValue::NextFull,
        ..window_config(false, 0.0)
    };
    ReplayWindow::load(rules, &[vec![path]], &config).unwrap()
}

#[test]
fn cheap_searches_take_the_next_full_searchs_value_for_their_own_side() {
    let rules = Rules::new(Variant::Six);
    let mut game = samples(rules, 40, 13);
    for (i, s) in game.iter_mut().enumerate() {
        // Lopsided, and different for every sample, so that any mix-up shows.
        let w = 0.5 + i as f32 / 100.0;
        s.search_wdl = [w, 0.1, 0.9 - w];
    }
    // The game ends with cheap searches, which no full search follows.
    game[38].full_search = false;
    game[39].full_search = false;
    let outcomes = outcome_targets(&game, false);
    let own = search_targets(&game, &outcomes, CheapSearchValue::Own);
    assert!(own.iter().zip(&game).all(|(t, s)| *t == s.search_wdl));
    let next = search_targets(&game, &outcomes, CheapSearchValue::NextFull);
    let (mut same_side, mut other_side) = (0, 0);
    for (i, s) in game.iter().enumerate() {
        if s.full_search {
            assert_eq!(
                next[i], s.search_wdl,
                "a full search keeps its own, sample {i}"
            );
            continue;
        }
        let Some(j) = (i + 1..game.len()).find(|&j| game[j].full_search) else {
            assert_eq!(next[i], outcomes[i], "no full search follows sample {i}");
            continue;
        };
        let [w, d, l] = game[j].search_wdl;
        if game[j].position.side_to_move() == s.position.side_to_move() {
            same_side += 1;
            assert_eq!(next[i], [w, d, l], "sample {i} from {j}");
        } else {
            other_side += 1;
            assert_eq!(next[i], [l, d, w], "sample {i} from {j}, turned");
        }
    }
    assert!(same_side > 0 && other_side > 0, "{same_side} {other_side}");
    // The window trains on them: with a search share of 1 the value target is this part.
    let window = next_full_window(rules, &game);
    for (i, want) in next.iter().enumerate() {
        let (.., value) = window.row(i, 0, 1.0);
        assert_eq!(&value, want, "sample {i}");
    }
}

/// `samples` with seeded random policy surprises in `0..2` (the helper above leaves them
/// at 0, so that the tests drawing from it keep their random streams).
fn with_surprises(mut samples: Vec<Sample>, seed: u64) -> Vec<Sample> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    for s in &mut samples {
        s.surprise = rng.random_range(0.0..2.0);
    }
    samples
}

#[test]
fn surprising_full_searches_are_drawn_more_and_a_games_full_searches_as_often_in_all() {
    let rules = Rules::new(Variant::Six);
    let game = with_surprises(samples(rules, 40, 11), 11);
    let full = game.iter().filter(|s| s.full_search).count();
    assert!(full > 10 && full < 40, "both kinds of sample: {full}");
    assert!(surprise_frequencies(&game, 0.0).iter().all(|&f| f == 1.0));
    let f = surprise_frequencies(&game, 0.5);
    let full_total: f64 = game
        .iter()
        .zip(&f)
        .filter(|(s, _)| s.full_search)
        .map(|(_, &w)| f64::from(w))
        .sum();
    assert!(
        (full_total - full as f64).abs() < 1e-3,
        "{full_total} against {full}"
    );
    let surprise_sum: f32 = game
        .iter()
        .filter(|s| s.full_search)
        .map(|s| s.surprise)
        .sum();
    for (s, &w) in game.iter().zip(&f) {
        if s.full_search {
            let want = 0.5 + 0.5 * full as f32 * s.surprise / surprise_sum;
            assert!((w - want).abs() < 1e-4, "{w} against {want}");
        } else {
            assert_eq!(w, 1.0, "samples without a full search keep their draws");
        }
    }
    // A game none of whose searches surprised: every sample as often as before.
    let mut dull = game.clone();
    dull.iter_mut().for_each(|s| s.surprise = 0.0);
    assert!(surprise_frequencies(&dull, 0.5).iter().all(|&w| w == 1.0));
}

#[test]
fn the_window_draws_by_surprise_times_the_removal_weight() {
    let rules = Rules::new(Variant::Six);
    let mut game = samples(rules, 30, 12);
    for s in &mut game {
        s.full_search = true;
        s.surprise = 0.0;
    }
    // One sample holds all the game's surprise: with share 1 it takes every draw.
    let (hot, removal) = (7, game.iter().position(|s| s.position.pending_removal()));
    game[hot].surprise = 1.5;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.kvsp");
    one_game_shard(&path, rules, &game);
    let drawn = |share: f32, removal_weight: f32| {
        let mut window =
            ReplayWindow::load(rules, &[vec![path.clone()]], &window_config(false, share)).unwrap();
        window.weigh(removal_weight);
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(4);
        let mut counts = vec![0u32; game.len()];
        for _ in 0..30_000 {
            counts[window.draw(&mut rng)] += 1;
        }
        counts
    };
    let all = drawn(1.0, 1.0);
    assert_eq!(all[hot], 30_000, "{all:?}");
    // Half the share: the hot sample gets 0.5 + 0.5 * 30 of the game's 30 draws.
    let half = drawn(0.5, 1.0);
    let want = (0.5 + 15.0) / 30.0;
    let got = f64::from(half[hot]) / 30_000.0;
    assert!((got - want).abs() < 0.01, "{got} against {want}");
    // The removal weight multiplies the surprise frequency.
    let r = removal.expect("the seeded game holds a removal");
    assert_ne!(r, hot);
    let weight = |i: usize| {
        let f = if i == hot { 15.5 } else { 0.5 };
        f * if game[i].position.pending_removal() {
            4.0
        } else {
            1.0
        }
    };
    let total: f64 = (0..game.len()).map(weight).sum();
    let got = f64::from(drawn(0.5, 4.0)[r]) / 30_000.0;
    assert!(
        (got - weight(r) / total).abs() < 0.01,
        "{got} against {}",
        weight(r) / total
    );
}

#[test]
fn surprise_on_the_policy_loss_leaves_the_draws_uniform_and_weighs_each_rows_policy() {
    let rules = Rules::new(Variant::Six);
    let game = with_surprises(samples(rules, 40, 14), 14);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.kvsp");
    one_game_shard(&path, rules, &game);
    let load = |weighs| {
        let config = TrainConfig {
            policy_surprise_weighs: weighs,
            ..window_config(false, 0.5)
        };
        let mut window = ReplayWindow::load(rules, &[vec![path.clone()]], &config).unwrap();
        window.weigh(1.0);
        window
    };
    let frequencies = surprise_frequencies(&game, 0.5);
    let full: Vec<f32> = game
        .iter()
        .map(|s| f32::from(u8::from(s.full_search)))
        .collect();
    // Each row's policy weight, and how often each sample is drawn, over many batches.
    let weights_and_draws = |window: &ReplayWindow| {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(6);
        let mut weight = vec![None; game.len()];
        let mut drawn = vec![0u32; game.len()];
        for _ in 0..60 {
            let b = window.batch(&mut rng, 500, false, 0.75);
            for r in 0..b.size {
                // Rows are told apart by their features and policy targets: one game's
                // positions, no two alike.
                let i = (0..game.len())
                    .find(|&i| {
                        let (f, _, p, _) = window.row(i, 0, 0.75);
                        f == b.features[r * f.len()..(r + 1) * f.len()]
                            && p == b.policy[r * p.len()..(r + 1) * p.len()]
                    })
                    .expect("a row of the game");
                weight[i] = Some(b.policy_weight[r]);
                drawn[i] += 1;
            }
        }
        (weight, drawn)
    };
    let (loss_weights, loss_draws) = weights_and_draws(&load(SurpriseWeighs::PolicyLoss));
    let (draw_weights, draw_draws) = weights_and_draws(&load(SurpriseWeighs::Draws));
    let n = f64::from(loss_draws.iter().sum::<u32>());
    for i in 0..game.len() {
        assert_eq!(
            loss_weights[i],
            Some(full[i] * frequencies[i]),
            "sample {i}"
        );
        assert_eq!(draw_weights[i], Some(full[i]), "sample {i}");
        // Drawn uniformly with the weighting on the policy loss, by surprise without.
        let uniform = f64::from(loss_draws[i]) / n;
        assert!(
            (uniform - 1.0 / game.len() as f64).abs() < 0.01,
            "sample {i}: {uniform}"
        );
        let weighed = f64::from(draw_draws[i]) / n;
        let want = f64::from(frequencies[i]) / f64::from(frequencies.iter().sum::<f32>());
        assert!(
            (weighed - want).abs() < 0.01,
            "sample {i}: {weighed} against {want}"
        );
    }
}

#[test]
fn the_windows_surprise_is_the_mean_of_its_full_searches_by_phase() {
    use kvarn_game::Phase;
    let rules = Rules::new(Variant::Six);
    let game = with_surprises(samples(rules, 300, 13), 13);
    let mut window = ReplayWindow::new(rules);
    window.extend(game.clone());
    let figures = window.surprise_by_phase();
    let phases: Vec<Phase> = figures.iter().map(|f| f.phase).collect();
    assert_eq!(phases, [Phase::Placing, Phase::Moving, Phase::Removal]);
    for f in &figures {
        let of_phase: Vec<f32> = game
            .iter()
            .filter(|s| s.full_search && Phase::of(&rules, &s.position) == f.phase)
            .map(|s| s.surprise)
            .collect();
        assert_eq!(f.searches, of_phase.len() as u64);
        let mean = of_phase.iter().map(|&x| f64::from(x)).sum::<f64>() / of_phase.len() as f64;
        assert!((f.mean - mean).abs() < 1e-9, "{f:?} against {mean}");
    }
    // Samples without a full search are not searches that could surprise.
    let full: u64 = figures.iter().map(|f| f.searches).sum();
    assert_eq!(full, game.iter().filter(|s| s.full_search).count() as u64);
    assert!(full < game.len() as u64);
}

#[test]
fn value_targets_are_judged_part_by_part_against_the_exact_values() {
    use kvarn_game::Outcome;
    use kvarn_game::Phase;
    use kvarn_solver::{Solver, Subspace, Value};
    use kvarn_train::target_quality::TargetQuality;
    let rules = Rules::new(Variant::Six);
    let solver = Solver::solve_endgames(rules, 3, |_, _| {});
    let s = Subspace::moving(3, 3, kvarn_game::Color::White, false);
    let won: Vec<_> = (0..solver.size(&s))
        .filter_map(|i| solver.position_at(&s, i))
        .filter(|p| matches!(solver.value(p), Some(Value::Win(_))) && !p.pending_removal())
        .take(2)
        .collect();
    assert_eq!(won.len(), 2, "two won positions, White to move");
    let space = ActionSpace::new(&rules);
    let sample = |i: usize, full_search: bool, result: i8, search_wdl: [f32; 3]| {
        let first = won[i].legal_moves(&rules)[0];
        Sample {
            position: won[i],
            occurrences: 1,
            full_search,
            result,
            search_wdl,
            policy: vec![(space.index(first) as u16, 1.0)],
            explored: false,
            surprise: 0.0,
        }
    };
    // A cheap search that calls the win a draw, with the game won; then a full search
    // that calls it won, with the game drawn.
    let game = [
        sample(0, false, 1, [0.1, 0.8, 0.1]),
        sample(1, true, 0, [0.9, 0.05, 0.05]),
    ];
    let window = next_full_window(rules, &game);
    let q = TargetQuality::judge(&window, &solver, 0.75);
    assert_eq!(q.unsolved, 0);
    let named = |full| q.kinds[&(Phase::Moving, Outcome::Win, full)].named;
    // Parts: own search, next full search, outcome, target (own), target (next full). The
    // cheap sample's target with its own search is 0.25 win + 0.75 draw-heavy: a draw.
    assert_eq!(named(false), [0, 1, 1, 0, 1]);
    assert_eq!(named(true), [1, 1, 0, 1, 1]);
    assert_eq!(q.total(None, None, None).samples, 2);
    assert_eq!(q.total(Some(Phase::Removal), None, None).samples, 0);
}
