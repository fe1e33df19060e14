//! `kvarn analyze`: its marks against the value-keeping moves the committed held-out Six
//! set stores (computed by the set's own sampling from the databases), for every legal
//! move of every position; its game reports; and its refusals.

use std::collections::HashMap;

mod common;
use common::{kvarn, ok_in};

#[path = "../../testing/paths.rs"]
mod paths;

/// `kvarn analyze` of Six with `agent` on `input`, then `extra`.
fn analyze<'a>(agent: &'a str, input: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "analyze",
        "--variant",
        "six",
        "--agent",
        agent,
        "--input",
        input,
    ];
    args.extend_from_slice(extra);
    args
}

/// Every legal move of every position of the held-out Six set, as a one-move game, is
/// marked as keeping the value exactly where the set lists it among the value-keeping
/// moves: 0 mismatches, and no move unknown.
#[test]
fn marks_agree_with_the_held_out_sets_value_keeping_moves() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("six");
    let (ok, _, err) = kvarn(&[
        "solve",
        "--variant",
        "six",
        "--wdl",
        "--out",
        db.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let set = std::fs::read_to_string(
        paths::workspace().join("eval/solver/benchmarks/six-heldout.jsonl"),
    )
    .unwrap();
    let rules = kvarn_game::Rules::new(kvarn_game::Variant::Six);
    let mut input = String::new();
    let mut expected: HashMap<String, bool> = HashMap::new();
    for line in set.lines().skip(1) {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let Some(text) = row["position"].as_str() else {
            continue;
        };
        let pos = kvarn_game::Position::from_position_string(&rules, text).unwrap();
        let keeping: Vec<&str> = row["preserving"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        for m in pos.legal_moves(&rules).iter() {
            let id = format!("{}|{m}", expected.len());
            expected.insert(id.clone(), keeping.contains(&m.to_string().as_str()));
            input.push_str(
                &serde_json::json!({"id": id, "position": text, "moves": m.to_string()})
                    .to_string(),
            );
            input.push('\n');
        }
    }
    assert!(expected.len() > 5000, "{} moves", expected.len());
    std::fs::write(dir.path().join("in.jsonl"), input).unwrap();
    let model = paths::workspace().join("models/six.kvmodel");
    let agent = format!("net:model={},simulations=1,symmetries=1", model.display());
    ok_in(
        dir.path(),
        &analyze(
            &agent,
            "in.jsonl",
            &["--db", "six", "--out", "out.jsonl", "--lines", "1"],
        ),
    );
    let out = std::fs::read_to_string(dir.path().join("out.jsonl")).unwrap();
    let mut checked = 0;
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let Some(mark) = v["mark"].as_str() else {
            continue;
        };
        let want = expected[v["id"].as_str().unwrap()];
        assert_ne!(mark, "unknown", "{line}");
        assert_eq!(mark == "keeps", want, "{line}");
        checked += 1;
    }
    assert_eq!(checked, expected.len());
}

/// A game reviewed: a line a position, then its summary; the report folder gets its
/// value graph and report. Bad input is refused with where it is.
#[test]
fn a_game_is_reviewed_with_a_graph_and_a_report_and_bad_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = paths::workspace().join("models/six.kvmodel");
    let agent = format!("net:model={},simulations=8", model.display());
    std::fs::write(
        dir.path().join("in.jsonl"),
        "{\"id\": \"g\", \"moves\": \"b6 d6 f6 f4 f2\"}\n{\"position\": \"startpos\"}\n",
    )
    .unwrap();
    let out = ok_in(
        dir.path(),
        &analyze(&agent, "in.jsonl", &["--report", "rep"]),
    );
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines.len(),
        5 + 1 + 1,
        "five decisions, the summary, the lone position"
    );
    assert_eq!(lines[0]["played"], "b6");
    assert_eq!(lines[4]["mark"], "unknown", "no tables: nothing known");
    assert_eq!(lines[5]["type"], "game");
    assert_eq!(lines[6]["id"], "2");
    assert!(lines[6]["analysis"]["moves"].as_array().unwrap().len() <= 5);
    let svg = std::fs::read_to_string(dir.path().join("rep/g.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(
        std::fs::read_to_string(dir.path().join("rep/g.md"))
            .unwrap()
            .contains("accuracy")
    );
    std::fs::write(dir.path().join("bad.jsonl"), "{\"moves\": \"b6 b6\"}\n").unwrap();
    let (ok, _, err) = common::kvarn_in(dir.path(), &analyze(&agent, "bad.jsonl", &[]));
    assert!(
        !ok && err.contains("bad.jsonl line 1") && err.contains("b6 b6"),
        "{err}"
    );
    let timed = format!("{agent},movetime=100");
    let (ok, _, err) = common::kvarn_in(dir.path(), &analyze(&timed, "in.jsonl", &[]));
    assert!(!ok && err.contains("movetime"), "{err}");
}
