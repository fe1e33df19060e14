//! The replay window does not depend on how self-play grouped its games into shards: a
//! resumed self-play writes the same games in other shards, and training must not see a
//! difference.

use std::collections::BTreeSet;

use kvarn_game::{ActionSpace, Color, Rules, SYMMETRY_COUNT, Variant, encoding};
use kvarn_selfplay::{SearchConfig, SelfPlayConfig, SelfPlayJob, UniformEvaluator};
use kvarn_train::{ReplayWindow, TrainConfig};
use rand::SeedableRng;

/// Default training settings with a window of `window_samples`.
fn keep(window_samples: usize) -> TrainConfig {
    TrainConfig {
        window_samples,
        ..TrainConfig::default()
    }
}

fn shards(rules: Rules, games_per_shard: usize, skip: &[u64], dir: &std::path::Path) {
    let job = SelfPlayJob {
        rules,
        search: SearchConfig {
            simulations: 8,
            ..SearchConfig::default()
        },
        selfplay: SelfPlayConfig {
            threads: 2,
            games_per_thread: 3,
            games_per_shard,
            max_plies: 60,
            ..SelfPlayConfig::default()
        },
        games: 9,
        skip: skip.iter().copied().collect::<BTreeSet<u64>>(),
        seed: 3,
        out: Some(dir.to_path_buf()),
        shard_prefix: "selfplay".into(),
        model: "uniform".into(),
        endgame: None,
        branch_from: Default::default(),
    };
    let eval = UniformEvaluator {
        input_len: kvarn_game::encoding::input_len(&rules),
        actions: ActionSpace::new(&rules).len(),
    };
    kvarn_selfplay::run(&job, &eval, None).unwrap();
}

fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn the_window_is_the_same_however_games_were_grouped_into_shards() {
    let rules = Rules::new(Variant::Six);
    let whole = tempfile::tempdir().unwrap();
    shards(rules, 4, &[], whole.path());
    // The same games as a killed run and its resume would write them: some first, the
    // rest later, in other groups.
    let resumed = tempfile::tempdir().unwrap();
    shards(rules, 1, &[1, 3, 4, 6, 7, 8], resumed.path());
    shards(rules, 2, &[0, 2, 5], resumed.path());
    assert_ne!(files(whole.path()).len(), files(resumed.path()).len());
    // Read shard after shard, as the window once did, the two differ.
    let concatenated = |dir: &std::path::Path| -> Vec<kvarn_selfplay::Sample> {
        let shards = files(dir).into_iter();
        shards
            .flat_map(|p| kvarn_selfplay::read_shard(&p).unwrap().1)
            .collect()
    };
    assert_ne!(concatenated(whole.path()), concatenated(resumed.path()));
    for max in [usize::MAX, 50] {
        let a = ReplayWindow::load(rules, &[files(whole.path())], &keep(max)).unwrap();
        let b = ReplayWindow::load(rules, &[files(resumed.path())], &keep(max)).unwrap();
        assert!(!a.is_empty());
        assert_eq!(a.samples(), b.samples(), "window of at most {max} samples");
    }
}

/// A shard of `samples` drawn from databases (here: the games' own samples, relabelled).
fn database_shard(rules: Rules, path: &std::path::Path, samples: &[kvarn_selfplay::Sample]) {
    let header = kvarn_selfplay::ShardHeader {
        encoding_version: kvarn_game::ENCODING_VERSION,
        rules,
        games: 0,
        samples: samples.len() as u64,
        game_list: Vec::new(),
        model: "endgame databases".into(),
        source: kvarn_selfplay::SampleSource::Databases,
        seed: None,
    };
    kvarn_selfplay::write_shard(path, &header, samples).unwrap();
}

#[test]
fn samples_from_the_databases_follow_their_generations_games_in_the_window() {
    let rules = Rules::new(Variant::Six);
    let dir = tempfile::tempdir().unwrap();
    shards(rules, 4, &[], dir.path());
    let games = ReplayWindow::load(rules, &[files(dir.path())], &keep(usize::MAX)).unwrap();
    let exact: Vec<_> = games.samples()[..7].to_vec();
    // Named to sort first among the files: the window still puts them after the games.
    database_shard(rules, &dir.path().join("a-exact.kvsp"), &exact);
    let window = ReplayWindow::load(rules, &[files(dir.path())], &keep(usize::MAX)).unwrap();
    let n = games.len();
    assert_eq!(window.len(), n + 7);
    assert_eq!(window.samples()[..n], games.samples()[..]);
    assert_eq!(window.samples()[n..], exact[..]);
    // Samples from the databases have no game, and so no final board to own.
    assert!(window.ownership_target(n - 1, 0).is_some());
    assert!((n..n + 7).all(|i| window.ownership_target(i, 0).is_none()));
    // A shard of games keeps its header as before: no source named.
    let bytes = std::fs::read(&files(dir.path())[1]).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("game_list") && !text.contains("\"source\""));
    let (header, _) = kvarn_selfplay::read_shard(&dir.path().join("a-exact.kvsp")).unwrap();
    assert_eq!(header.source, kvarn_selfplay::SampleSource::Databases);
}

#[test]
fn ownership_targets_are_the_final_board_seen_by_the_mover_under_each_symmetry() {
    let rules = Rules::new(Variant::Six);
    let dir = tempfile::tempdir().unwrap();
    shards(rules, 4, &[], dir.path());
    let (games, _) = kvarn_train::replay::read_generation(rules, &files(dir.path())).unwrap();
    let window = ReplayWindow::load(rules, &[files(dir.path())], &keep(usize::MAX)).unwrap();
    let board = rules.board();
    let n = board.len();
    let mut i = 0;
    for game in &games {
        let final_men = game.final_men.expect("recorded");
        for sample in &game.samples {
            let want = planes_seen_by(rules, sample.position.side_to_move(), final_men);
            assert_eq!(window.ownership_target(i, 0).as_ref(), Some(&want));
            for sym in 0..SYMMETRY_COUNT {
                let image = window.ownership_target(i, sym).unwrap();
                for sq in board.squares() {
                    let from = board.local_index(sq);
                    let to = board.local_index(board.map_square(sym, sq));
                    for plane in 0..3 {
                        assert_eq!(image[plane * n + to], want[plane * n + from]);
                    }
                }
            }
            i += 1;
        }
    }
    assert_eq!(i, window.len());
    // A batch carries each row's target, one plane per point, with weight 1.
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
    let batch = window.batch(&mut rng, 64, true, 0.5);
    assert_eq!(batch.ownership_weight, vec![1.0; 64]);
    for row in batch.ownership.chunks_exact(3 * n) {
        assert!((0..n).all(|p| row[p] + row[n + p] + row[2 * n + p] == 1.0));
    }
}

#[test]
fn ownership_from_decisive_games_leaves_the_drawn_games_without_a_target() {
    let rules = Rules::new(Variant::Six);
    let dir = tempfile::tempdir().unwrap();
    shards(rules, 4, &[], dir.path());
    let decisive = TrainConfig {
        ownership_games: kvarn_train::OwnershipGames::Decisive,
        ..keep(usize::MAX)
    };
    let window = ReplayWindow::load(rules, &[files(dir.path())], &decisive).unwrap();
    let (mut drawn, mut won_or_lost) = (0, 0);
    for (i, sample) in window.samples().iter().enumerate() {
        let target = window.ownership_target(i, 0);
        if sample.result == 0 {
            assert!(target.is_none(), "sample {i} of a drawn game");
            drawn += 1;
        } else {
            assert!(target.is_some(), "sample {i} of a decisive game");
            won_or_lost += 1;
        }
    }
    assert!(
        drawn > 0 && won_or_lost > 0,
        "{drawn} drawn, {won_or_lost} decisive"
    );
}

#[test]
fn ownership_with_a_horizon_is_the_board_that_many_decisions_on_or_the_final_one() {
    let rules = Rules::new(Variant::Six);
    let dir = tempfile::tempdir().unwrap();
    shards(rules, 4, &[], dir.path());
    let (games, _) = kvarn_train::replay::read_generation(rules, &files(dir.path())).unwrap();
    let horizon = 3;
    let config = TrainConfig {
        ownership_horizon: Some(horizon),
        ..keep(usize::MAX)
    };
    let window = ReplayWindow::load(rules, &[files(dir.path())], &config).unwrap();
    let (mut i, mut unlike_final) = (0, 0);
    for game in &games {
        let final_men = game.final_men.expect("recorded");
        for (j, sample) in game.samples.iter().enumerate() {
            let mover = sample.position.side_to_move();
            let on = game
                .samples
                .get(j + horizon as usize)
                .map_or(final_men, |s| {
                    [Color::White, Color::Black].map(|c| s.position.men(c))
                });
            let want = planes_seen_by(rules, mover, on);
            assert_eq!(
                window.ownership_target(i, 0),
                Some(want.clone()),
                "sample {i}"
            );
            unlike_final += usize::from(want != planes_seen_by(rules, mover, final_men));
            i += 1;
        }
    }
    assert_eq!(i, window.len());
    assert!(unlike_final > 0, "every target was the final board");
}

/// The point planes (own, opponent, empty) of the board with White's and Black's `men`,
/// seen by `mover`: an ownership target.
fn planes_seen_by(
    rules: Rules,
    mover: Color,
    [white, black]: [kvarn_game::Bitboard; 2],
) -> Vec<f32> {
    let (own, theirs) = match mover {
        Color::White => (white, black),
        Color::Black => (black, white),
    };
    let mut planes = vec![0.0; 3 * rules.board().len()];
    encoding::encode_points(rules.board(), own, theirs, &mut planes);
    planes
}
