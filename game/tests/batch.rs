//! The batched simulator and the encoding: agreement with single games, refusal of bad
//! input without damage, and the documented layout.

mod common;

use kvarn_game::encoding::{SCALAR_FEATURES, encode_position, feature_names, input_len};
use kvarn_game::{ActionSpace, BatchError, BatchSim, Game, Position, Rules, Variant};
use ndarray::{Array2, ShapeBuilder};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[test]
fn sizes_of_the_encoding_and_action_space() {
    let nine = Rules::new(Variant::Nine);
    let six = Rules::new(Variant::Six);
    assert_eq!(input_len(&nine), 80);
    assert_eq!(input_len(&six), 56);
    assert_eq!(ActionSpace::new(&nine).len(), 624);
    assert_eq!(ActionSpace::new(&six).len(), 288);
    assert_eq!(feature_names(&nine).len(), 80);
    assert_eq!(feature_names(&nine)[0], "own:a7");
    assert_eq!(feature_names(&six)[0], "own:b6");
    assert_eq!(feature_names(&nine)[72], "scalar:own_in_hand");
    let names = ActionSpace::new(&nine).names();
    assert_eq!(names[0], "a7");
    assert_eq!(names[24], "-", "a7 to a7 is no move");
    assert_eq!(names[25], "a7-d7");
    assert_eq!(names[600], "xa7");
}

#[test]
fn batch_games_step_exactly_like_single_games() {
    for rules in common::rule_sets() {
        let games = 24;
        let mut sim = BatchSim::new(rules, games);
        let mut singles: Vec<Game> = (0..games).map(|_| Game::new(rules)).collect();
        let space = ActionSpace::new(&rules);
        let mut rng = Pcg64Mcg::seed_from_u64(11);
        let mut finished_total = 0;
        for _ in 0..600 {
            let (features, mask) = sim.encoded();
            let mut actions = Vec::with_capacity(games);
            for (i, g) in singles.iter().enumerate() {
                let legal: Vec<usize> = g.legal_moves().iter().map(|&m| space.index(m)).collect();
                let from_mask: Vec<usize> = (0..space.len()).filter(|&a| mask[[i, a]]).collect();
                let mut sorted = legal.clone();
                sorted.sort();
                assert_eq!(from_mask, sorted, "mask of game {i}");
                let mut want = vec![0.0; input_len(&rules)];
                encode_position(&rules, g.position(), g.occurrences(), &mut want);
                assert_eq!(features.row(i).to_vec(), want, "features of game {i}");
                actions.push(legal[rng.random_range(0..legal.len())]);
            }
            let finished = sim.step(&actions).unwrap();
            for (i, g) in singles.iter_mut().enumerate() {
                g.play(space.decode(actions[i]).unwrap()).unwrap();
                let report = finished.iter().find(|f| f.game == i);
                if g.status().is_over() {
                    let f = report.expect("the batch reports every finished game");
                    assert_eq!(f.status, g.status());
                    assert_eq!(f.plies as usize, g.ply());
                    *g = Game::new(rules);
                    finished_total += 1;
                } else {
                    assert!(report.is_none());
                }
                assert_eq!(sim.positions()[i], *g.position());
                assert_eq!(sim.occurrences()[i], g.occurrences());
            }
        }
        assert!(finished_total > 0, "{rules}: no game finished");
    }
}

#[test]
fn a_bad_step_is_refused_and_changes_nothing() {
    let rules = Rules::new(Variant::Six);
    let mut sim = BatchSim::new(rules, 3);
    sim.step(&[0, 1, 2]).unwrap();
    let before = sim.positions().to_vec();
    assert_eq!(
        sim.step(&[3, 4]),
        Err(BatchError::WrongLength {
            expected: 3,
            got: 2
        })
    );
    // Game i holds a white man on point i; action 1 places on d6, taken in game 1.
    let e = sim.step(&[5, 1, 17]).unwrap_err();
    match &e {
        BatchError::IllegalAction { game, action, .. } => assert_eq!((*game, *action), (1, 1)),
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("occupied"), "{e}");
    // Action 17 is the shift b6-d6, illegal while placing; 16 (b6-b6) denotes no move.
    let e = sim.step(&[5, 6, 17]).unwrap_err();
    assert!(
        e.to_string().contains("game 2") && e.to_string().contains("in hand"),
        "{e}"
    );
    let e = sim.step(&[5, 6, 16]).unwrap_err();
    assert!(e.to_string().contains("not a move"), "{e}");
    let e = sim.step(&[5, 6, 9999]).unwrap_err();
    assert!(e.to_string().contains("not a move"), "{e}");
    assert_eq!(sim.positions(), &before[..]);
}

#[test]
fn encode_checks_shapes_and_accepts_any_layout() {
    let rules = Rules::new(Variant::Nine);
    let mut sim = BatchSim::new(rules, 4);
    sim.step(&[0, 1, 2, 3]).unwrap();
    let (f, m) = sim.encoded();
    let mut f_col = Array2::<f32>::zeros((4, 80).f());
    let mut m_col = Array2::from_elem((4, 624).f(), false);
    sim.encode(f_col.view_mut(), m_col.view_mut()).unwrap();
    assert_eq!(f, f_col);
    assert_eq!(m, m_col);
    let mut bad = Array2::<f32>::zeros((4, 79));
    let e = sim.encode(bad.view_mut(), m_col.view_mut()).unwrap_err();
    assert!(e.to_string().contains("features"), "{e}");
}

#[test]
fn features_of_a_position_follow_the_documented_layout() {
    let rules = Rules::new(Variant::Nine);
    // Black to move, White has a man on a7, Black on d7; 8 and 8 in hand... as a position string.
    let p =
        Position::from_position_string(&rules, "WB....../......../........ b 8/8 - 1 1").unwrap();
    let mut f = vec![0.0; 80];
    encode_position(&rules, &p, 1, &mut f);
    assert_eq!(f[1], 1.0, "own (black) man on d7");
    assert_eq!(f[24], 1.0, "opponent (white) man on a7");
    assert_eq!(f[48..72].iter().sum::<f32>(), 22.0, "22 empty points");
    let s = &f[72..];
    assert_eq!(s.len(), SCALAR_FEATURES);
    assert_eq!(s[0], 8.0 / 9.0);
    assert_eq!(s[1], 8.0 / 9.0);
    assert_eq!(s[2], 1.0, "black to move");
    assert_eq!(s[3], 0.0);
    assert_eq!(s[6], 1.0 / 50.0);
    assert_eq!(s[7], 0.0);
}

#[test]
fn a_start_position_already_decided_is_refused() {
    let rules = Rules::new(Variant::Nine);
    let over =
        Position::from_position_string(&rules, "WWW...../B......./........ b 0/0 - 0 40").unwrap();
    assert!(matches!(
        BatchSim::from_position(rules, over, 2),
        Err(BatchError::StartIsOver(_))
    ));
}

#[test]
fn games_stepped_one_at_a_time_agree_with_single_games() {
    for rules in common::rule_sets() {
        let games = 8;
        let mut sim = BatchSim::new(rules, games);
        let mut singles: Vec<Game> = (0..games).map(|_| Game::new(rules)).collect();
        let space = ActionSpace::new(&rules);
        let mut rng = Pcg64Mcg::seed_from_u64(12);
        let mut finished_total = 0;
        for _ in 0..4000 {
            // A random game moves; the others stand still, as in self-play.
            let i = rng.random_range(0..games);
            let legal = singles[i].legal_moves();
            let action = space.index(legal[rng.random_range(0..legal.len())]);
            let ended = sim.step_one(i, action).unwrap();
            singles[i].play(space.decode(action).unwrap()).unwrap();
            if singles[i].status().is_over() {
                let f = ended.expect("a finished game is reported");
                assert_eq!((f.game, f.status), (i, singles[i].status()));
                assert_eq!(f.plies as usize, singles[i].ply());
                singles[i] = Game::new(rules);
                finished_total += 1;
            } else {
                assert!(ended.is_none());
            }
            for (j, g) in singles.iter().enumerate() {
                assert_eq!(sim.positions()[j], *g.position(), "game {j}");
                assert_eq!(sim.occurrences()[j], g.occurrences(), "game {j}");
                assert_eq!(sim.plies()[j] as usize, g.ply(), "game {j}");
            }
        }
        assert!(finished_total > 0, "{rules}: some games ended");
        let mut mask = vec![false; space.len()];
        space.legal_mask(&rules, &sim.positions()[0], &mut mask);
        if let Some(a) = mask.iter().position(|&legal| !legal) {
            let before = sim.positions()[0];
            assert!(sim.step_one(0, a).is_err());
            assert_eq!(sim.positions()[0], before, "a refused step changes nothing");
        }
        assert!(matches!(
            sim.step_one(games, 0),
            Err(BatchError::NoSuchGame { .. })
        ));
    }
}

#[test]
fn a_game_reset_to_a_position_goes_on_from_there_and_later_restarts_from_the_start() {
    let rules = Rules::new(Variant::Nine);
    let mut sim = BatchSim::new(rules, 2);
    let pos =
        Position::from_position_string(&rules, "WW....../B......./W...B.B. w 0/0 - 0 40").unwrap();
    sim.reset_to(1, pos).unwrap();
    assert_eq!(sim.positions()[1].key(), pos.key());
    assert_eq!((sim.plies()[1], sim.occurrences()[1]), (0, 1));
    assert_eq!(
        sim.positions()[0],
        Position::start(&rules),
        "game 0 untouched"
    );
    // Play it to its end, as a single game does, then it restarts from the empty board.
    let space = ActionSpace::new(&rules);
    let mut single = Game::from_position(rules, pos).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    loop {
        let legal = single.legal_moves();
        let action = space.index(legal[rng.random_range(0..legal.len())]);
        let ended = sim.step_one(1, action).unwrap();
        single.play(space.decode(action).unwrap()).unwrap();
        if let Some(f) = ended {
            assert_eq!(f.status, single.status());
            assert_eq!(f.plies as usize, single.ply());
            break;
        }
        assert_eq!(sim.positions()[1], *single.position());
        assert_eq!(sim.occurrences()[1], single.occurrences());
    }
    assert_eq!(sim.positions()[1], Position::start(&rules));
    let over =
        Position::from_position_string(&rules, "WWW...../B......./........ b 0/0 - 0 40").unwrap();
    assert!(matches!(
        sim.reset_to(0, over),
        Err(BatchError::StartIsOver(_))
    ));
    assert!(matches!(
        sim.reset_to(2, pos),
        Err(BatchError::NoSuchGame { .. })
    ));
    assert_eq!(
        sim.positions()[0],
        Position::start(&rules),
        "refusals change nothing"
    );
}

#[test]
fn picked_actions_are_the_chosen_legal_moves() {
    for variant in [Variant::Nine, Variant::Six, Variant::Five] {
        let rules = Rules::new(variant);
        let mut sim = BatchSim::new(rules, 16);
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let mut actions = vec![0; 16];
        for _ in 0..300 {
            let mut counts = Vec::new();
            sim.pick_actions(
                |n| {
                    counts.push(n);
                    rng.random_range(0..n)
                },
                &mut actions,
            );
            for ((pos, &a), &n) in sim.positions().iter().zip(&actions).zip(&counts) {
                assert_eq!(pos.legal_move_count(&rules), n);
                let mv = sim.action_space().decode(a).expect("an action");
                assert!(pos.legal_moves(&rules).contains(&mv), "{mv} not legal");
            }
            sim.step(&actions).expect("legal actions step");
        }
    }
}
