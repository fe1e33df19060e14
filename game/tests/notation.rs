//! Notation, position strings and Sanmill FEN: examples, and clear errors for bad input.

mod common;

use kvarn_game::{Color, Game, Move, ParseError, PlayError, Position, Rules, Square, Variant};

fn nine() -> Rules {
    Rules::new(Variant::Nine)
}

#[test]
fn moves_are_written_d6_a1_a4_and_xd2() {
    let sq = |s: &str| s.parse::<Square>().unwrap();
    assert_eq!(Move::Place { to: sq("d6") }.to_string(), "d6");
    assert_eq!(
        Move::Shift {
            from: sq("a1"),
            to: sq("a4")
        }
        .to_string(),
        "a1-a4"
    );
    assert_eq!(Move::Remove { from: sq("d2") }.to_string(), "xd2");
    for s in ["d6", "a1-a4", "xd2"] {
        assert_eq!(s.parse::<Move>().unwrap().to_string(), s);
    }
    assert_eq!("D6".parse::<Move>().unwrap().to_string(), "d6");
}

#[test]
fn the_combined_form_places_or_moves_then_removes() {
    let parsed = Move::parse_token("b2xf4").unwrap();
    assert_eq!(parsed.len(), 2);
    assert_eq!(parsed[0].to_string(), "b2");
    assert_eq!(parsed[1].to_string(), "xf4");
    let parsed = Move::parse_token("a1-a4xd2").unwrap();
    assert_eq!(parsed[0].to_string(), "a1-a4");
    assert_eq!(parsed[1].to_string(), "xd2");
    let mut g = Game::new(Rules::new(Variant::Six));
    g.play_text("b6 b2 d6 d2 f6xd2").unwrap();
    assert_eq!(g.position().side_to_move(), Color::Black);
    assert_eq!(g.ply(), 6);
    assert!(
        "b2xf4".parse::<Move>().is_err(),
        "a single move is one decision"
    );
}

#[test]
fn malformed_moves_are_refused_with_the_reason() {
    for (text, needle) in [
        ("", "empty"),
        ("z9", "not a point name"),
        ("d4", "not a point name"),
        ("a1-a1", "another point"),
        ("xd2-d3", "one point"),
        ("a1-a4xd2xd3", "only one removal"),
        ("a1-", "point name is missing"),
        ("x", "point name is missing"),
        ("d6x", "point name is missing"),
        ("a1-a4-a7", "two points"),
    ] {
        let e = Move::parse_token(text).unwrap_err();
        assert!(e.to_string().contains(needle), "{text}: {e}");
    }
}

#[test]
fn an_illegal_move_in_a_list_names_its_index_and_keeps_what_came_before() {
    let mut g = Game::new(nine());
    let e = g.play_text("d6 d2 d6").unwrap_err();
    assert_eq!(e.index(), 2);
    assert_eq!(e.text(), "d6");
    assert!(matches!(e, PlayError::Illegal { .. }));
    assert!(e.to_string().contains("occupied"), "{e}");
    assert_eq!(g.ply(), 2);
    // A combined token is all or nothing.
    let mut g = Game::new(Rules::new(Variant::Six));
    let e = g.play_text("b6 b2 d6 d2 f6xf4").unwrap_err();
    assert_eq!(e.index(), 4);
    assert_eq!(g.ply(), 4);
}

#[test]
fn the_start_position_string_and_fen() {
    let rules = nine();
    let p = Position::start(&rules);
    assert_eq!(
        p.to_position_string(&rules),
        "......../......../........ w 9/9 - 0 0"
    );
    assert_eq!(
        p.to_fen(&rules).unwrap(),
        "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1"
    );
    let six = Rules::new(Variant::Six);
    assert_eq!(
        Position::start(&six).to_position_string(&six),
        "......../........ w 6/6 - 0 0"
    );
    assert_eq!(
        Position::from_fen(
            &rules,
            "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1"
        )
        .unwrap(),
        p
    );
}

#[test]
fn fen_groups_run_inner_middle_outer_from_d5_d6_d7_clockwise() {
    let rules = nine();
    // From Sanmill's own tests: a black man on d3 and a white man on d2.
    let p = Position::from_fen(
        &rules,
        "****@***/****O***/******** w p p 1 8 1 8 0 0 0 0 0 0 0 0 1",
    )
    .unwrap();
    let sq = |s: &str| s.parse::<Square>().unwrap();
    assert!(p.men(Color::Black).contains(sq("d3")));
    assert!(p.men(Color::White).contains(sq("d2")));
    let mut g = Game::new(rules);
    g.play_text("d5 e5 d6 g7 a1").unwrap();
    let fen = g.position().to_fen(&rules).unwrap();
    assert_eq!(
        fen,
        "O@******/O*******/*@***O** b p p 3 6 2 7 0 0 0 0 0 0 0 5 3"
    );
    // Sanmill's older layout with 8 numbers is read too.
    let old =
        Position::from_fen(&rules, "O@******/O*******/*@***O** b p p 3 6 2 7 0 0 5 3").unwrap();
    assert_eq!(old, *g.position());
}

#[test]
fn bad_position_strings_are_refused_with_the_field_named() {
    let rules = nine();
    for (text, field) in [
        ("", "layout"),
        ("......../......../........ w 9/9 -", "layout"),
        ("......../........ w 9/9 - 0 0", "board"),
        ("......../......../.......  w 9/9 - 0 0", "board"),
        ("......../......../.......Q w 9/9 - 0 0", "board"),
        ("......../......../........ x 9/9 - 0 0", "side"),
        ("......../......../........ w 99 - 0 0", "men in hand"),
        ("......../......../........ w 10/9 - 0 0", "men"),
        ("......../......../........ w 9/9 r 0 0", "action"),
        ("......../......../........ w 9/9 x 0 0", "pending removal"),
        ("......../......../........ w 9/9 - -1 0", "no-capture"),
        ("......../......../........ w 9/9 - 0 99999", "turns"),
        ("......../......../........ w +9/9 - 0 0", "men in hand"),
        ("......../......../........ w 9/9 - +1 0", "no-capture"),
        ("WWWWWWWW/WW....../........ w 0/0 - 0 0", "men"),
    ] {
        match Position::from_position_string(&rules, text) {
            Err(ParseError::PositionString { field: f, reason }) => {
                assert_eq!(f, field, "{text}: {reason}")
            }
            other => panic!("{text}: expected an error in {field}, got {other:?}"),
        }
    }
}

#[test]
fn bad_fens_are_refused_with_the_field_named() {
    let rules = nine();
    for (text, field) in [
        ("********/********/******** w p p 0 9 0 9", "layout"),
        ("********/********/******* w p p 0 9 0 9 0 0", "board"),
        ("X*******/********/******** w p p 0 9 0 9 0 0", "board"),
        ("********/********/******** q p p 0 9 0 9 0 0", "side"),
        ("********/********/******** w z p 0 9 0 9 0 0", "phase"),
        ("********/********/******** w p z 0 9 0 9 0 0", "action"),
        (
            "O*******/********/******** w p p 0 9 0 9 0 0",
            "white on board",
        ),
        (
            "********/********/******** w p p 0 12 0 9 0 0",
            "white in hand",
        ),
        ("********/********/******** w p r 0 9 0 9 2 0", "to remove"),
        ("********/********/******** w p p 0 9 0 9 0 1", "to remove"),
        ("********/********/******** w p s 0 9 0 9 0 0", "action"),
        ("********/********/******** w m p 0 9 0 9 0 0", "phase"),
        ("O*******/********/******** b r p 1 8 0 9 0 0", "phase"),
        ("OOO*****/@@@*****/******** w p s 3 0 3 0 0 0", "phase"),
        (
            "********/********/******** w p p 0 9 0 9 0 0 0 0",
            "full-move number",
        ),
    ] {
        match Position::from_fen(&rules, text) {
            Err(ParseError::Fen { field: f, reason }) => assert_eq!(f, field, "{text}: {reason}"),
            other => panic!("{text}: expected an error in {field}, got {other:?}"),
        }
    }
    let six = Rules::new(Variant::Six);
    assert!(Position::start(&six).to_fen(&six).is_err());
}

#[test]
fn startpos_position_strings_and_fens_are_read_by_one_function() {
    let rules = nine();
    let start = Position::start(&rules);
    for text in [
        "startpos",
        " startpos ",
        "......../......../........ w 9/9 - 0 0",
        "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1",
    ] {
        assert_eq!(Position::from_text(&rules, text), Ok(start), "{text}");
    }
    // The board's characters tell which form was meant, and only its complaint is shown.
    match Position::from_text(&rules, "......../........ w 9/9 - 0 0") {
        Err(ParseError::PositionString { field, .. }) => assert_eq!(field, "board"),
        other => panic!("expected a position string error, got {other:?}"),
    }
    let six = Rules::new(Variant::Six);
    match Position::from_text(&six, "********/********/******** w p p 0 9 0 9 0 0") {
        Err(ParseError::Fen { field, .. }) => assert_eq!(field, "variant"),
        other => panic!("expected a FEN error, got {other:?}"),
    }
    // Neither form: both complaints.
    let e = Position::from_text(&rules, "hello").unwrap_err();
    assert!(matches!(e, ParseError::Position { .. }), "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("`hello`")
            && text.contains("bad position string")
            && text.contains("bad FEN"),
        "{text}"
    );
}

#[test]
fn rules_deserialise_with_checks() {
    #[derive(Debug, serde::Deserialize)]
    struct Wrap {
        #[allow(dead_code)]
        rules: Rules,
    }
    let ok: Rules =
        serde_json::from_str(r#"{"variant":"nine","flying":false,"no_capture_limit":"off"}"#)
            .unwrap();
    assert!(!ok.flying());
    assert_eq!(ok.no_capture_limit(), None);
    let e = serde_json::from_str::<Rules>(r#"{"variant":"six","flying":true}"#).unwrap_err();
    assert!(e.to_string().contains("does not offer flying"), "{e}");
    let e = serde_json::from_str::<Rules>(r#"{"variant":"six","flyng":true}"#).unwrap_err();
    assert!(e.to_string().contains("flyng"), "{e}");
    let e = serde_json::from_str::<Wrap>(r#"{"rules":{"variant":"six","no_capture_limit":0}}"#)
        .unwrap_err();
    assert!(e.to_string().contains("at least 1"), "{e}");
    let back: Rules = serde_json::from_str(&serde_json::to_string(&ok).unwrap()).unwrap();
    assert_eq!(back, ok);
}
