//! Property tests over random games of every variant and rule set: the fast move
//! generator against the plain one, conservation of men, symmetries, round-trips.

mod common;

use common::{legal_set, plain_for, random_game, rule_sets};
use kvarn_game::{
    ActionSpace, BoardKind, Color, Game, Move, Position, SYMMETRY_COUNT, Status, encoding,
};
use proptest::prelude::*;

fn status_string(s: Status) -> String {
    match s.reason_name() {
        None => "ongoing".into(),
        Some(r) => match s.winner() {
            Some(w) => format!("{w}_wins:{r}"),
            None => format!("draw:{r}"),
        },
    }
}

const GAMES_PER_CASE: usize = 1;

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The bitboard generator and the plain one agree on the legal moves and the status
    /// of every position of random games, for every rule set.
    #[test]
    fn fast_generator_agrees_with_plain_one(seed in any::<u64>()) {
        for rules in rule_sets() {
            for g in 0..GAMES_PER_CASE {
                let mut plain = plain_for(&rules);
                random_game(rules, seed ^ g as u64, 400, |game, mv| {
                    let fast: Vec<String> = legal_set(game);
                    let slow: Vec<String> = plain.legal().into_iter().collect();
                    assert_eq!(fast, slow, "{rules}: legal moves differ at {}",
                        game.position().to_position_string(&rules));
                    assert_eq!(status_string(game.status()), plain.status(),
                        "{rules}: status differs at {}", game.position().to_position_string(&rules));
                    if let Some(mv) = mv {
                        plain.play(&mv.to_string());
                    }
                });
            }
        }
    }

    /// Men on board + in hand + removed is the variant's number for each player, and the
    /// incremental hash equals the one computed from scratch.
    #[test]
    fn men_are_conserved_and_hash_is_incremental(seed in any::<u64>()) {
        for rules in rule_sets() {
            let mut removed = [0u32; 2];
            random_game(rules, seed, 400, |game, mv| {
                let p = game.position();
                for c in Color::BOTH {
                    assert_eq!(p.men_left(c) + removed[c.index()], rules.men() as u32);
                }
                let rebuilt = Position::from_setup(&rules, &p.setup()).unwrap();
                assert_eq!(rebuilt.hash(), p.hash());
                if let Some(Move::Remove { .. }) = mv {
                    removed[p.side_to_move().opposite().index()] += 1;
                }
            });
        }
    }

    /// Legal moves commute with all 16 symmetries, and so does playing a move.
    #[test]
    fn move_generation_commutes_with_symmetries(seed in any::<u64>()) {
        for rules in rule_sets().into_iter().step_by(3) {
            let board = rules.board();
            random_game(rules, seed, 300, |game, mv| {
                let p = game.position();
                let moves = p.legal_moves(&rules);
                for sym in 0..SYMMETRY_COUNT {
                    let image = p.transformed(&rules, sym);
                    let mut mapped: Vec<Move> = moves.iter().map(|m| m.transformed(board, sym)).collect();
                    let mut direct: Vec<Move> = image.legal_moves(&rules).to_vec();
                    mapped.sort();
                    direct.sort();
                    assert_eq!(mapped, direct, "symmetry {sym}");
                    if let Some(mv) = mv {
                        let mut a = *p;
                        a.play_unchecked(&rules, mv);
                        let mut b = image;
                        b.play_unchecked(&rules, mv.transformed(board, sym));
                        assert_eq!(a.transformed(&rules, sym), b);
                    }
                }
                let (canon, sym) = p.canonical(&rules);
                assert_eq!(p.transformed(&rules, sym), canon);
                for s in 0..SYMMETRY_COUNT {
                    assert_eq!(p.transformed(&rules, s).canonical(&rules).0, canon);
                }
            });
        }
    }

    /// Position strings round-trip every position reached; FEN round-trips every
    /// 24-point position.
    #[test]
    fn position_strings_and_fen_round_trip(seed in any::<u64>()) {
        for rules in rule_sets() {
            random_game(rules, seed, 400, |game, _| {
                let p = *game.position();
                let s = p.to_position_string(&rules);
                assert_eq!(Position::from_position_string(&rules, &s).unwrap(), p, "{s}");
                if rules.variant().board_kind() == BoardKind::TwentyFour {
                    let fen = p.to_fen(&rules).unwrap();
                    assert_eq!(Position::from_fen(&rules, &fen).unwrap(), p, "{fen}");
                }
            });
        }
    }

    /// The action space maps every legal move to an index and back, and the symmetry
    /// permutation of actions agrees with transforming the moves.
    #[test]
    fn action_indices_round_trip(seed in any::<u64>()) {
        for rules in rule_sets().into_iter().step_by(3) {
            let space = ActionSpace::new(&rules);
            let perms: Vec<Vec<usize>> = (0..SYMMETRY_COUNT).map(|s| space.symmetry_permutation(s)).collect();
            random_game(rules, seed, 300, |game, _| {
                for mv in game.legal_moves() {
                    let a = space.index(mv);
                    assert!(a < space.len());
                    assert_eq!(space.decode(a), Some(mv));
                    for (s, perm) in perms.iter().enumerate() {
                        assert_eq!(perm[a], space.index(mv.transformed(rules.board(), s)));
                    }
                }
            });
        }
    }

    /// The feature permutation of a symmetry moves a position's features to those of its
    /// image.
    #[test]
    fn feature_permutation_encodes_the_image(seed in any::<u64>()) {
        for rules in rule_sets().into_iter().step_by(3) {
            let len = encoding::input_len(&rules);
            let perms: Vec<Vec<usize>> =
                (0..SYMMETRY_COUNT).map(|s| encoding::feature_permutation(&rules, s)).collect();
            let (mut features, mut image, mut moved) = (vec![0.0; len], vec![0.0; len], vec![0.0; len]);
            random_game(rules, seed, 200, |game, _| {
                let p = game.position();
                encoding::encode_position(&rules, p, game.occurrences(), &mut features);
                for (s, perm) in perms.iter().enumerate() {
                    encoding::encode_position(&rules, &p.transformed(&rules, s), game.occurrences(), &mut image);
                    for (i, &to) in perm.iter().enumerate() {
                        moved[to] = features[i];
                    }
                    assert_eq!(moved, image, "symmetry {s} of {}", p.to_position_string(&rules));
                }
            });
        }
    }

    /// `check_move` accepts exactly the generated moves, among all moves of the action
    /// space.
    #[test]
    fn check_move_agrees_with_generator(seed in any::<u64>()) {
        for rules in rule_sets().into_iter().step_by(3) {
            let space = ActionSpace::new(&rules);
            random_game(rules, seed, 200, |game, _| {
                let p = game.position();
                let legal = p.legal_moves(&rules);
                for a in 0..space.len() {
                    if let Some(mv) = space.decode(a) {
                        assert_eq!(p.check_move(&rules, mv).is_ok(), legal.contains(&mv), "{mv}");
                    }
                }
            });
        }
    }
}

/// Undo restores every earlier state exactly.
#[test]
fn undo_restores_the_game() {
    for rules in rule_sets() {
        let mut snapshots: Vec<(Position, Status)> = Vec::new();
        let mut game: Game = random_game(rules, 7, 300, |g, _| {
            snapshots.push((*g.position(), g.status()));
        });
        snapshots.pop();
        while let Some((p, s)) = snapshots.pop() {
            game.undo().unwrap();
            assert_eq!((*game.position(), game.status()), (p, s));
        }
        assert!(game.undo().is_none());
    }
}

/// The random games above reach every way a game can end, so the agreement test covers
/// each of them (and is not vacuous).
#[test]
fn random_games_reach_every_ending() {
    let mut seen = std::collections::BTreeSet::new();
    for rules in rule_sets() {
        for seed in 0..60 {
            let g = random_game(rules, seed, 400, |_, _| {});
            seen.insert(status_string(g.status()));
        }
    }
    for want in [
        "white_wins:too_few_men",
        "black_wins:too_few_men",
        "white_wins:blocked",
        "black_wins:blocked",
        "draw:repetition",
        "draw:no_capture",
    ] {
        assert!(seen.contains(want), "no random game ended {want}: {seen:?}");
    }
}
