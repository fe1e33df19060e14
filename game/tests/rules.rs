//! One test per rule of RULES.md, named after the sentence it checks, each built from
//! concrete positions.

mod common;

use common::{at, game_at, legal_set};
use kvarn_game::{
    Bitboard, Board, BoardKind, Color, DrawReason, Game, Move, Position, Rules, RulesError,
    SYMMETRY_COUNT, Square, Status, Variant, WinReason,
};

fn nine() -> Rules {
    Rules::new(Variant::Nine)
}
fn six() -> Rules {
    Rules::new(Variant::Six)
}
fn five() -> Rules {
    Rules::new(Variant::Five)
}
fn sq(s: &str) -> Square {
    s.parse().unwrap()
}
fn mv(s: &str) -> Move {
    s.parse().unwrap()
}
fn names(bb: Bitboard) -> Vec<String> {
    let mut v: Vec<String> = bb.into_iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}
fn sorted(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.split_whitespace().map(String::from).collect();
    v.sort();
    v
}

// ----- Boards -----

#[test]
fn points_are_named_on_a_7x7_grid_files_a_to_g_ranks_1_to_7() {
    assert_eq!(sq("a7").grid(), (0, 6));
    assert_eq!(sq("g1").grid(), (6, 0));
    assert_eq!(sq("d5").grid(), (3, 4));
    assert!(
        "d4".parse::<Square>().is_err(),
        "there is no point in the centre"
    );
    assert!("b1".parse::<Square>().is_err());
    assert!("h8".parse::<Square>().is_err());
}

#[test]
fn twenty_four_point_board_has_three_squares_listed_clockwise() {
    let b = Board::get(BoardKind::TwentyFour);
    let listed = "a7 d7 g7 g4 g1 d1 a1 a4 b6 d6 f6 f4 f2 d2 b2 b4 c5 d5 e5 e4 e3 d3 c3 c4";
    let ours: Vec<&str> = b.squares().map(Square::name).collect();
    assert_eq!(ours.join(" "), listed);
}

#[test]
fn twenty_four_point_board_has_16_mills_sides_and_cross_lines() {
    let b = Board::get(BoardKind::TwentyFour);
    let mut mills: Vec<Vec<String>> = b.mills().iter().map(|&m| names(m)).collect();
    mills.sort();
    let mut listed: Vec<Vec<String>> =
        "a7 d7 g7,g7 g4 g1,g1 d1 a1,a1 a4 a7,b6 d6 f6,f6 f4 f2,f2 d2 b2,b2 b4 b6,\
         c5 d5 e5,e5 e4 e3,e3 d3 c3,c3 c4 c5,d7 d6 d5,g4 f4 e4,d1 d2 d3,a4 b4 c4"
            .split(',')
            .map(sorted)
            .collect();
    listed.sort();
    assert_eq!(mills, listed);
}

#[test]
fn adjacency_is_along_drawn_lines_only_corners_2_midpoints_3_or_4() {
    let b = Board::get(BoardKind::TwentyFour);
    assert_eq!(names(b.adjacent(sq("a7"))), sorted("d7 a4"));
    assert_eq!(names(b.adjacent(sq("d7"))), sorted("a7 g7 d6"));
    assert_eq!(names(b.adjacent(sq("d6"))), sorted("b6 f6 d7 d5"));
    assert_eq!(names(b.adjacent(sq("c4"))), sorted("c5 c3 b4"));
    // A man cannot slide along a diagonal that is not drawn.
    let g = at(nine(), "a7 g1 b2 f2", "d1 c3 e3 f6", "w 0/0 - 0 40");
    assert!(g.check_move(mv("a7-b6")).is_err());
}

#[test]
fn sixteen_point_board_is_the_24_point_board_without_its_outer_square() {
    let b = Board::get(BoardKind::Sixteen);
    let ours: Vec<&str> = b.squares().map(Square::name).collect();
    assert_eq!(
        ours.join(" "),
        "b6 d6 f6 f4 f2 d2 b2 b4 c5 d5 e5 e4 e3 d3 c3 c4"
    );
    let mut g = Game::new(six());
    let e = g.play(mv("a7")).unwrap_err();
    assert!(e.reason.contains("not a point"), "{e}");
}

#[test]
fn sixteen_point_board_has_8_mills_only_the_sides_of_the_two_squares() {
    let b = Board::get(BoardKind::Sixteen);
    let mut mills: Vec<Vec<String>> = b.mills().iter().map(|&m| names(m)).collect();
    mills.sort();
    let mut listed: Vec<Vec<String>> =
        "b6 d6 f6,f6 f4 f2,f2 d2 b2,b2 b4 b6,c5 d5 e5,e5 e4 e3,e3 d3 c3,c3 c4 c5"
            .split(',')
            .map(sorted)
            .collect();
    listed.sort();
    assert_eq!(mills, listed);
}

#[test]
fn four_short_connecting_lines_join_neighbours_but_form_no_mill() {
    let b = Board::get(BoardKind::Sixteen);
    for (x, y) in [("b4", "c4"), ("d6", "d5"), ("f4", "e4"), ("d2", "d3")] {
        assert!(b.adjacent(sq(x)).contains(sq(y)), "{x}-{y}");
    }
    // White slides along d6-d5 and closes nothing: the turn passes to Black.
    let mut g = at(six(), "d6 b6 c3", "f2 e3 b2", "w 0/0 - 0 20");
    g.play(mv("d6-d5")).unwrap();
    assert!(!g.position().pending_removal());
    assert_eq!(g.position().side_to_move(), Color::Black);
}

#[test]
fn three_men_that_merely_look_aligned_are_no_mill() {
    // a7 b6 c5 lie on a diagonal that is not drawn.
    let mut g = Game::new(nine());
    g.play_text("a7 g1 b6 g4").unwrap();
    g.play(mv("c5")).unwrap();
    assert!(!g.position().pending_removal());
    assert_eq!(g.position().side_to_move(), Color::Black);
}

#[test]
fn both_boards_have_16_symmetries() {
    assert_eq!(SYMMETRY_COUNT, 16);
    // Swapping inner and outer square maps a7 to c5 and keeps the middle square.
    let b = Board::get(BoardKind::TwentyFour);
    let swap = (0..16)
        .find(|&s| b.map_square(s, sq("a7")) == sq("c5") && b.map_square(s, sq("d7")) == sq("d5"))
        .expect("a ring swap exists");
    assert_eq!(b.map_square(swap, sq("b6")), sq("b6"));
}

// ----- Variants -----

#[test]
fn variants_have_the_boards_and_men_of_the_table() {
    assert_eq!(Variant::Nine.men(), 9);
    assert_eq!(Variant::Six.men(), 6);
    assert_eq!(Variant::Five.men(), 5);
    assert_eq!(Variant::Nine.board().len(), 24);
    assert_eq!(Variant::Six.board().len(), 16);
    assert_eq!(Variant::Five.board().len(), 16);
}

#[test]
fn flying_is_on_by_default_in_nine_and_never_offered_in_six_or_five() {
    assert!(nine().flying());
    assert!(nine().with_flying(false).is_ok());
    assert!(!six().flying());
    assert_eq!(
        six().with_flying(true),
        Err(RulesError::FlyingNotOffered(Variant::Six))
    );
    assert_eq!(
        five().with_flying(true),
        Err(RulesError::FlyingNotOffered(Variant::Five))
    );
}

#[test]
fn white_moves_first_and_the_board_starts_empty() {
    for rules in [nine(), six(), five()] {
        let g = Game::new(rules);
        let p = g.position();
        assert_eq!(p.side_to_move(), Color::White);
        assert!(p.occupied().is_empty());
        assert_eq!(p.in_hand(Color::White), rules.men());
        assert_eq!(p.in_hand(Color::Black), rules.men());
    }
}

// ----- A turn -----

#[test]
fn placing_puts_one_man_on_any_empty_point() {
    let mut g = Game::new(nine());
    g.play_text("d6 d2").unwrap();
    assert_eq!(g.legal_moves().len(), 22);
    assert!(
        g.legal_moves()
            .iter()
            .all(|m| matches!(m, Move::Place { .. }))
    );
    assert!(g.play(mv("d6")).unwrap_err().reason.contains("occupied"));
}

/// Places men alternately, never closing a mill, until both hands are empty.
fn place_without_mills(rules: Rules) -> Game {
    let mut g = Game::new(rules);
    while g.position().in_hand(g.position().side_to_move()) > 0 {
        let moves = g.legal_moves();
        let quiet = moves.iter().copied().find(|&m| {
            let mut p = *g.position();
            p.play_unchecked(&rules, m);
            !p.pending_removal()
        });
        g.play(quiet.expect("a quiet placement exists")).unwrap();
    }
    g
}

#[test]
fn placing_takes_two_times_men_per_player_turns_alternating() {
    for rules in [nine(), six(), five()] {
        let g = place_without_mills(rules);
        assert_eq!(g.ply(), 2 * rules.men() as usize);
        assert_eq!(g.position().turns(), 2 * rules.men() as u16);
        let p = g.position();
        assert_eq!(p.men_in_hand(), 0);
        assert_eq!(p.side_to_move(), Color::White);
        // Replay: the players alternate, White first, one man from the mover's hand a turn.
        let mut replay = Game::new(rules);
        for (i, mv) in g.moves().enumerate() {
            let before = *replay.position();
            let mover = if i % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            assert_eq!(before.side_to_move(), mover, "turn {i}");
            replay.play(mv).unwrap();
            let after = replay.position();
            assert_eq!(after.in_hand(mover), before.in_hand(mover) - 1);
            assert_eq!(
                after.in_hand(mover.opposite()),
                before.in_hand(mover.opposite())
            );
        }
    }
}

#[test]
fn moving_phase_slides_to_an_adjacent_empty_point_no_jumping_no_passing() {
    let g = at(
        nine().with_flying(false).unwrap(),
        "a7 g1 b2 f2",
        "d1 c3 e3 f6",
        "w 0/0 - 0 30",
    );
    assert_eq!(
        legal_set(&g),
        sorted("a7-d7 a7-a4 g1-g4 b2-b4 b2-d2 f2-f4 f2-d2")
    );
    let e = g.check_move(mv("a7-g7")).unwrap_err();
    assert!(e.reason.contains("not joined"), "{e}");
    assert!(
        g.check_move(mv("b2"))
            .unwrap_err()
            .reason
            .contains("no men in hand")
    );
}

#[test]
fn a_player_with_exactly_three_men_and_none_in_hand_flies_to_any_empty_point() {
    let g = at(nine(), "a7 g1 b2", "d1 c3 e3 f6", "w 0/0 - 0 30");
    assert_eq!(g.legal_moves().len(), 3 * (24 - 7));
    assert!(g.check_move(mv("a7-e5")).is_ok());
}

#[test]
fn flying_off_means_three_men_still_slide() {
    let g = at(
        nine().with_flying(false).unwrap(),
        "a7 g1 b2",
        "d1 c3 e3 f6",
        "w 0/0 - 0 30",
    );
    assert_eq!(legal_set(&g), sorted("a7-d7 a7-a4 g1-g4 b2-b4 b2-d2"));
    assert!(
        g.check_move(mv("a7-e5"))
            .unwrap_err()
            .reason
            .contains("flying is off")
    );
}

#[test]
fn the_opponent_keeps_sliding_while_it_has_more_than_three() {
    // White flies (3 men); Black, with 4, slides.
    let g = at(nine(), "a7 g1 b2", "d1 c3 e3 f6", "b 0/0 - 0 31");
    assert_eq!(
        legal_set(&g),
        sorted("d1-a1 d1-d2 c3-d3 c3-c4 e3-d3 e3-e4 f6-d6 f6-f4")
    );
}

#[test]
fn a_player_with_men_in_hand_does_not_fly() {
    let g = at(nine(), "a7 g1 b2", "d1 c3 e3 f6", "w 1/0 - 0 30");
    assert!(
        g.legal_moves()
            .iter()
            .all(|m| matches!(m, Move::Place { .. }))
    );
}

#[test]
fn closing_a_mill_lets_the_mover_remove_one_opposing_man_in_the_same_turn() {
    let mut g = Game::new(six());
    g.play_text("b6 b2 d6 d2 f6").unwrap();
    let p = g.position();
    assert!(p.pending_removal());
    assert_eq!(p.side_to_move(), Color::White, "the removal is the mover's");
    assert_eq!(legal_set(&g), sorted("xb2 xd2"));
    g.play(mv("xd2")).unwrap();
    assert_eq!(g.position().side_to_move(), Color::Black);
    assert!(!g.position().men(Color::Black).contains(sq("d2")));
    assert_eq!(
        g.position().turns(),
        5,
        "placement and removal are one turn"
    );
}

#[test]
fn completing_two_mills_with_one_move_removes_only_one_man() {
    // g7 closes a7-d7-g7 and g7-g4-g1 at once.
    let mut g = at(nine(), "a7 d7 g4 g1", "b2 d2 c3 e3", "w 5/5 - 0 8");
    g.play(mv("g7")).unwrap();
    assert!(g.position().pending_removal());
    g.play(mv("xb2")).unwrap();
    assert_eq!(g.position().side_to_move(), Color::Black);
    assert!(!g.position().pending_removal());
    assert!(legal_set(&g).iter().all(|m| !m.starts_with('x')));
}

#[test]
fn a_removed_man_never_returns() {
    let mut g = Game::new(six());
    g.play_text("b6 b2 d6 d2 f6 xd2").unwrap();
    let p = g.position();
    assert_eq!(
        p.in_hand(Color::Black),
        4,
        "the removed man is not back in hand"
    );
    assert_eq!(p.men_left(Color::Black), 5);
}

#[test]
fn a_man_in_a_mill_may_not_be_removed_while_its_owner_has_men_outside_mills() {
    let g = at(nine(), "c5 d5 e5", "a7 d7 g7 b2", "w 0/0 x 0 40");
    assert_eq!(legal_set(&g), sorted("xb2"));
    let e = g.check_move(mv("xd7")).unwrap_err();
    assert!(e.reason.contains("stands in a black mill"), "{e}");
}

#[test]
fn when_every_opposing_man_stands_in_a_mill_any_may_be_removed() {
    let g = at(nine(), "c5 d5 e5", "a7 d7 g7 g4 g1", "w 0/0 x 0 40");
    assert_eq!(legal_set(&g), sorted("xa7 xd7 xg7 xg4 xg1"));
}

#[test]
fn a_mill_opened_and_closed_again_removes_again() {
    // White opens b6-d6-f6 by d6-d5 and closes it again by d5-d6.
    let mut g = at(six(), "b6 d6 f6", "c3 e3 f2 b2", "w 0/0 - 0 20");
    g.play_text("d6-d5 f2-f4 d5-d6").unwrap();
    assert!(g.position().pending_removal());
}

#[test]
fn a_double_mill_closes_a_mill_on_every_move() {
    // a7-d7-g7 and g4-f4-e4 share no man; g7 and g4 are adjacent.
    let rules = nine();
    let mut g = at(
        rules,
        "a7 d7 g7 f4 e4",
        "b2 d2 c3 e3 a1 f6 b4",
        "w 0/0 - 0 30",
    );
    g.play_text("g7-g4 xb2 d2-b2 g4-g7 xb2 e3-d3 g7-g4")
        .unwrap();
    assert!(g.position().pending_removal());
    assert_eq!(g.position().men(Color::Black).count(), 5);
}

// ----- End of the game -----

#[test]
fn a_player_with_fewer_than_three_men_loses() {
    let mut g = at(nine(), "c5 d5 e5 a7", "b2 f2 g1", "w 0/0 x 0 40");
    g.play(mv("xb2")).unwrap();
    assert_eq!(
        g.status(),
        Status::Win {
            winner: Color::White,
            reason: WinReason::TooFewMen
        }
    );
    assert!(g.legal_moves().is_empty());
    assert!(
        g.play(mv("f2-f4"))
            .unwrap_err()
            .reason
            .contains("game is over")
    );
}

#[test]
fn men_in_hand_count_so_a_player_can_lose_during_placing() {
    // Black: two on the board and one in hand; after the removal, two men left.
    let mut g = at(five(), "b6 d6 f6", "c3 e3", "w 1/1 x 0 7");
    assert_eq!(g.status(), Status::Ongoing);
    g.play(mv("xc3")).unwrap();
    assert_eq!(
        g.status(),
        Status::Win {
            winner: Color::White,
            reason: WinReason::TooFewMen
        }
    );
}

#[test]
fn a_player_to_move_with_no_legal_move_loses_at_once() {
    let g = at(nine(), "d7 a4 g4 d1", "a7 g7 a1 g1", "b 0/0 - 0 40");
    assert_eq!(
        g.status(),
        Status::Win {
            winner: Color::White,
            reason: WinReason::Blocked
        }
    );
    // Blocked during the game: White's slide d6-d7 shuts Black in.
    let mut g = at(nine(), "d6 a4 g4 d1", "a7 g7 a1 g1", "w 0/0 - 0 40");
    assert_eq!(g.status(), Status::Ongoing);
    g.play(mv("d6-d7")).unwrap();
    assert_eq!(g.status().winner(), Some(Color::White));
}

#[test]
fn a_player_who_may_fly_always_has_a_move() {
    let g = at(nine(), "d7 a4 g4 d1", "a7 g7 a1", "b 0/0 - 0 40");
    assert_eq!(g.status(), Status::Ongoing);
    let g = at(
        nine().with_flying(false).unwrap(),
        "d7 a4 g4 d1",
        "a7 g7 a1",
        "b 0/0 - 0 40",
    );
    assert_eq!(g.status().winner(), Some(Color::White));
}

#[test]
fn the_third_occurrence_of_a_position_draws_and_the_start_position_counts() {
    let rules = nine();
    let mut g = at(rules, "a7 b6 f2 e3", "g1 c4 d3 b4", "w 0/0 - 0 40");
    g.play_text("a7-d7 g1-g4 d7-a7 g4-g1").unwrap();
    assert_eq!(g.occurrences(), 2);
    assert_eq!(g.status(), Status::Ongoing);
    g.play_text("a7-d7 g1-g4 d7-a7").unwrap();
    assert_eq!(g.status(), Status::Ongoing);
    g.play(mv("g4-g1")).unwrap();
    assert_eq!(g.occurrences(), 3);
    assert_eq!(
        g.status(),
        Status::Draw {
            reason: DrawReason::Repetition
        }
    );
}

#[test]
fn same_position_means_same_men_side_men_in_hand_and_pending_removal() {
    let rules = nine();
    let base = common::pos(
        &rules,
        &common::at_string(&rules, "c5 d5 e5", "a7", "w 3/4 - 0 9"),
    );
    let other_side = common::pos(
        &rules,
        &common::at_string(&rules, "c5 d5 e5", "a7", "b 3/4 - 0 9"),
    );
    let other_hand = common::pos(
        &rules,
        &common::at_string(&rules, "c5 d5 e5", "a7", "w 3/3 - 0 9"),
    );
    let pending = common::pos(
        &rules,
        &common::at_string(&rules, "c5 d5 e5", "a7", "w 3/4 x 0 9"),
    );
    let counters = common::pos(
        &rules,
        &common::at_string(&rules, "c5 d5 e5", "a7", "w 3/4 - 5 20"),
    );
    for other in [other_side, other_hand, pending] {
        assert_ne!(base.key(), other.key());
        assert_ne!(base.hash(), other.hash());
    }
    assert_eq!(
        base.key(),
        counters.key(),
        "counters are not part of the identity"
    );
}

#[test]
fn repetition_draw_can_be_switched_off() {
    let rules = nine().with_repetition(false);
    let mut g = at(rules, "a7 b6 f2 e3", "g1 c4 d3 b4", "w 0/0 - 0 0");
    g.play_text("a7-d7 g1-g4 d7-a7 g4-g1 a7-d7 g1-g4 d7-a7 g4-g1")
        .unwrap();
    assert_eq!(g.occurrences(), 3);
    assert_eq!(g.status(), Status::Ongoing);
}

#[test]
fn fifty_turns_without_a_removal_draw_and_the_count_starts_with_placing() {
    let rules = nine();
    let g = place_without_mills(rules);
    assert_eq!(g.position().no_capture(), 18, "placements are turns");
    let mut g = at(rules, "a7 b6 f2 e3", "g1 c4 d3 b4", "w 0/0 - 48 60");
    g.play(mv("a7-d7")).unwrap();
    assert_eq!(g.status(), Status::Ongoing);
    g.play(mv("g1-g4")).unwrap();
    assert_eq!(g.position().no_capture(), 50);
    assert_eq!(
        g.status(),
        Status::Draw {
            reason: DrawReason::NoCapture
        }
    );
}

#[test]
fn the_no_capture_count_restarts_at_every_removal() {
    // On the 50th turn White closes a mill: the removal comes first, and restarts the count.
    let mut g = at(six(), "b6 f6 d5 c3", "f2 e3 b2 c5", "w 0/0 - 49 60");
    g.play(mv("d5-d6")).unwrap();
    assert!(g.position().pending_removal());
    assert_eq!(g.status(), Status::Ongoing);
    g.play(mv("xf2")).unwrap();
    assert_eq!(g.position().no_capture(), 0);
    assert_eq!(g.status(), Status::Ongoing);
}

#[test]
fn the_no_capture_limit_can_be_changed_or_switched_off() {
    let short = nine().with_no_capture_limit(Some(10)).unwrap();
    let mut g = at(short, "a7 b6 f2 e3", "g1 c4 d3 b4", "w 0/0 - 9 60");
    g.play(mv("a7-d7")).unwrap();
    assert_eq!(
        g.status(),
        Status::Draw {
            reason: DrawReason::NoCapture
        }
    );
    let off = nine().with_no_capture_limit(None).unwrap();
    let mut g = at(off, "a7 b6 f2 e3", "g1 c4 d3 b4", "w 0/0 - 900 960");
    g.play(mv("a7-d7")).unwrap();
    assert_eq!(g.status(), Status::Ongoing);
    assert!(nine().with_no_capture_limit(Some(0)).is_err());
}

#[test]
fn a_win_comes_before_a_draw_reached_on_the_same_turn() {
    // White's 50th quiet turn also blocks Black.
    let mut g = at(nine(), "d6 a4 g4 d1", "a7 g7 a1 g1", "w 0/0 - 49 60");
    g.play(mv("d6-d7")).unwrap();
    assert_eq!(g.status().winner(), Some(Color::White));
}

#[test]
fn closing_a_mill_with_no_opposing_man_on_the_board_ends_the_turn() {
    // Only reachable from a set-up position: Black has men in hand but none on the board.
    let mut g = at(six(), "b6 d6", "", "w 4/6 - 0 4");
    g.play(mv("f6")).unwrap();
    assert!(!g.position().pending_removal());
    assert_eq!(g.position().side_to_move(), Color::Black);
}

#[test]
fn position_has_pending_removal_only_with_a_mill() {
    let rules = six();
    let e = Position::from_position_string(
        &rules,
        &common::at_string(&rules, "b6 d6", "b2", "w 4/5 x 0 4"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("no mill"), "{e}");
}

#[test]
fn a_position_of_one_variant_is_refused_by_another() {
    let nine_pos = common::pos(&nine(), "W......./......../........ b 8/9 - 0 1");
    let e = Game::from_position(six(), nine_pos).unwrap_err();
    assert!(e.to_string().contains("a7 is not a point"), "{e}");
    assert!(kvarn_game::BatchSim::from_position(six(), nine_pos, 2).is_err());
    assert!(Bitboard::from_bits(1 << 30).is_none());
    assert_eq!(
        Bitboard::from_bits(1).map(names),
        Some(vec!["a7".to_string()])
    );
}

#[test]
fn game_from_a_position_string_counts_it_as_an_occurrence() {
    let g = game_at(nine(), "W.W.W.../B.B.B.../........ w 0/0 - 0 40");
    assert_eq!(g.occurrences(), 1);
}
