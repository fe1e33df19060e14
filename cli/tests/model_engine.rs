//! `kvarn engine --model`: a model's search behind the engine protocol plays legal moves
//! under node and time limits, reports win/draw/loss, takes its options, plays the same
//! games as `net:model=FILE` in `kvarn match`, and refuses a model of other rules.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use kvarn_game::{Game, Rules, Variant};
use kvarn_model::burn::tensor::Device;
use kvarn_model::{NetConfig, Network, Provenance, file};

#[path = "../../testing/paths.rs"]
mod paths;

/// A small untrained Nine model, saved in `dir`.
fn nine_model(dir: &Path) -> PathBuf {
    let device = Device::flex();
    let config = NetConfig::Mlp {
        hidden: 32,
        blocks: 1,
        ownership_head: false,
    };
    let net = Network::new(Rules::new(Variant::Nine), config, 5, &device).unwrap();
    let path = dir.join("nine.kvmodel");
    file::save(&net, &Provenance::default(), &path).unwrap();
    path
}

/// Runs `kvarn engine` with `args` on `script`; its success, output and errors.
fn engine(args: &[&str], script: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kvarn"))
        .arg("engine")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let written = child.stdin.take().unwrap().write_all(script.as_bytes());
    // An engine that refuses its arguments exits before it reads its input.
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bestmoves(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_model_plays_legal_moves_by_nodes_and_by_time_and_reports_wdl() {
    let dir = tempfile::tempdir().unwrap();
    let model = nine_model(dir.path());
    let model = model.to_str().unwrap();
    // A first move by nodes, then a reply by time. A command after `go` waits for the
    // search to reach its limit (the end of the input, like `quit`, would stop it).
    let first = "uci\nsetoption name Contempt value 0.3\nsetoption name Seed value 3\n\
                 setoption name Symmetries value 4\nsetoption name MoveChoice value lcb\n\
                 setoption name MoveChoice value best\nsetoption name RootValue value best\n\
                 setoption name TwofoldDraws value true\nsetoption name RootValue value median\n\
                 setoption name TwofoldDraws value maybe\nposition startpos\ngo nodes 40\nucinewgame\n";
    let (ok, text, err) = engine(&["--model", model], first);
    assert!(ok, "{err}");
    assert!(text.contains("option name Contempt"), "{text}");
    assert!(
        text.contains("option name Symmetries type spin default 1"),
        "{text}"
    );
    assert!(
        text.contains("option name Weights type string default"),
        "{text}"
    );
    assert!(
        text.contains("option name MoveChoice type combo default visits var visits var lcb"),
        "{text}"
    );
    assert!(
        text.contains("info string error") && text.contains("`best` is not visits|lcb"),
        "{text}"
    );
    assert!(
        text.contains("option name RootValue type combo default mean var mean var best")
            && text.contains("option name TwofoldDraws type check default false"),
        "{text}"
    );
    assert!(
        text.contains("`median` is not mean|best") && text.contains("`maybe` is not true|false"),
        "{text}"
    );
    let info = text.lines().find(|l| l.starts_with("info depth")).unwrap();
    let wdl: Vec<i64> = info
        .split(" wdl ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .take(3)
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(wdl.iter().sum::<i64>(), 1000, "{info}");
    assert!(info.contains("nodes 40 "), "{info}");
    let m1 = bestmoves(&text).pop().unwrap();
    let script = format!("position startpos moves {m1}\ngo movetime 60\nucinewgame\n");
    let (ok, text, err) = engine(&["--model", model], &script);
    assert!(ok, "{err}");
    let m2 = bestmoves(&text).pop().unwrap();
    // A depth limit, which a tree search does not have, is answered by nodes.
    let script = format!("position startpos moves {m1} {m2}\ngo depth 3\nucinewgame\n");
    let (ok, text, err) = engine(&["--model", model], &script);
    assert!(ok, "{err}");
    assert!(text.contains("info string depth is no limit"), "{text}");
    assert_eq!(bestmoves(&text).len(), 1, "{text}");
    let mut game = Game::new(Rules::new(Variant::Nine));
    game.play_text(&format!("{m1} {m2}"))
        .unwrap_or_else(|e| panic!("{m1} {m2}: {e}"));
}

#[test]
fn the_engine_plays_the_same_games_as_the_net_agent_in_a_match() {
    let dir = tempfile::tempdir().unwrap();
    let model = nine_model(dir.path());
    let m = model.to_str().unwrap();
    let exe = env!("CARGO_BIN_EXE_kvarn");
    let moves_with = |agent: &str, name: &str| {
        let out = dir.path().join(name);
        let status = Command::new(exe)
            .args(["match", "--a", agent, "--b", "alphabeta:depth=1,seed=1"])
            .args(["--games", "2", "--seed", "9", "--parallel", "1", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        let text = std::fs::read_to_string(&out).unwrap();
        let games: Vec<serde_json::Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v.get("moves").is_some())
            .collect();
        assert_eq!(games.len(), 2, "{text}");
        games
            .iter()
            .map(|g| (g["moves"].clone(), g["result"].clone()))
            .collect::<Vec<_>>()
    };
    let net = moves_with(&format!("net:model={m},simulations=24"), "net.jsonl");
    let served = moves_with(
        &format!("engine:cmd={exe} engine --model {m},nodes=24"),
        "engine.jsonl",
    );
    assert_eq!(net, served);
}

#[test]
fn a_model_of_other_rules_is_refused_before_the_protocol_starts() {
    let dir = tempfile::tempdir().unwrap();
    let model = nine_model(dir.path());
    let (ok, _, err) = engine(
        &["--variant", "six", "--model", model.to_str().unwrap()],
        "uci\nquit\n",
    );
    assert!(!ok);
    assert!(err.contains("Six") || err.contains("six"), "{err}");
}

/// Eight decisions of a shipped model through the engine (`kvarn engine --variant
/// VARIANT`), each checked by the referee; `options` are setoption lines sent before each
/// search.
fn shipped_model_plays_legal_moves(variant: Variant, name: &str, options: &str) {
    let model = paths::workspace().join(format!("models/{name}.kvmodel"));
    let model = model.to_str().unwrap();
    let mut game = Game::new(Rules::new(variant));
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..8 {
        let script = format!(
            "{options}position startpos moves {}\ngo nodes 32\nucinewgame\n",
            moves.join(" ")
        );
        let (ok, text, err) = engine(&["--variant", variant.key(), "--model", model], &script);
        assert!(ok, "{err}");
        let m = bestmoves(&text).pop().unwrap();
        game.play_text(&m)
            .unwrap_or_else(|e| panic!("{m} after {moves:?}: {e}"));
        moves.push(m);
    }
}

#[test]
fn the_shipped_nine_model_plays_legal_moves_through_the_engine() {
    shipped_model_plays_legal_moves(Variant::Nine, "nine", "");
}

#[test]
fn the_shipped_six_model_plays_legal_moves_as_its_evaluation_player() {
    let options = "setoption name Symmetries value 16\nsetoption name MoveChoice value lcb\n\
                   setoption name RootValue value best\nsetoption name TwofoldDraws value true\n";
    shipped_model_plays_legal_moves(Variant::Six, "six", options);
}

/// Resident memory of process `pid`, in KiB (Linux).
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// A field of an `info` line: `nodes`, `hashfull`.
fn info_field(line: &str, name: &str) -> Option<u64> {
    let mut words = line.split_whitespace();
    words.find(|w| *w == name)?;
    words.next()?.parse().ok()
}

#[test]
#[cfg(target_os = "linux")]
fn go_infinite_stays_within_its_hash_and_still_answers_stop() {
    use std::io::{BufRead, BufReader};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let model = nine_model(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_kvarn"))
        .args(["engine", "--model"])
        .arg(&model)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let (send, lines) = std::sync::mpsc::channel::<String>();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = send.send(line);
        }
    });
    // A hash of 1 MiB: a tree of about 16,000 nodes, full within a second or two.
    stdin
        .write_all(b"setoption name Hash value 1\nposition startpos\ngo infinite\n")
        .unwrap();
    let began = Instant::now();
    let (mut full_at, mut nodes_full, mut nodes_last) = (None, 0, 0);
    let (mut rss_full, mut rss_most) = (0, 0);
    while began.elapsed() < Duration::from_secs(60) {
        for line in lines.try_iter() {
            let (Some(full), Some(nodes)) =
                (info_field(&line, "hashfull"), info_field(&line, "nodes"))
            else {
                continue;
            };
            if full >= 990 && full_at.is_none() {
                full_at = Some(Instant::now());
                nodes_full = nodes;
                rss_full = resident_kib(pid);
            }
            nodes_last = nodes;
        }
        if full_at.is_some() {
            rss_most = rss_most.max(resident_kib(pid));
        }
        if full_at.is_some_and(|t| t.elapsed() > Duration::from_secs(3)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    stdin.write_all(b"stop\n").unwrap();
    let bestmove = lines
        .recv_timeout(Duration::from_secs(10))
        .into_iter()
        .chain(lines.iter())
        .find(|l| l.starts_with("bestmove"));
    stdin.write_all(b"quit\n").unwrap();
    child.wait().unwrap();
    assert!(full_at.is_some(), "the tree never reached its budget");
    assert!(
        nodes_last > nodes_full,
        "the search goes on at its budget: {nodes_full} then {nodes_last} simulations"
    );
    assert!(
        rss_most <= rss_full + 8 * 1024,
        "resident memory grew from {rss_full} KiB to {rss_most} KiB with the tree full"
    );
    let bestmove = bestmove.expect("a bestmove after stop");
    let m = bestmove
        .strip_prefix("bestmove ")
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    Game::new(Rules::new(Variant::Nine)).play_text(m).unwrap();
}
