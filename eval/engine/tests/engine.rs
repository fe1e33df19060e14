//! The baseline engine: forced wins, legality, limits, determinism, the protocol.

use std::io::Cursor;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kvarn_engine::search::{Engine, EngineOptions, Info, Limits, MATE_BOUND};
use kvarn_game::{Game, Move, Position, Rules, Variant};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn game(rules: Rules, s: &str) -> Game {
    let p = Position::from_position_string(&rules, s).unwrap_or_else(|e| panic!("{s}: {e}"));
    Game::from_position(rules, p).unwrap()
}

fn seeded(rules: Rules, seed: u64) -> Engine {
    Engine::new(
        rules,
        EngineOptions {
            seed: Some(seed),
            ..EngineOptions::default()
        },
    )
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

fn best(engine: &mut Engine, g: &Game, limits: Limits) -> Info {
    engine
        .search(g, limits, None, |_| {})
        .expect("the game goes on")
}

#[test]
fn closes_the_mill_that_wins_the_game() {
    // White (a7 d7 g4) slides g4-g7 to close a7-d7-g7; Black, with three men and no
    // flying, is then reduced to two.
    let rules = Rules::new(Variant::Nine).with_flying(false).unwrap();
    let g = game(rules, "WW.W..../......B./B...B... w 0/0 - 0 40");
    let info = best(&mut seeded(rules, 1), &g, depth(3));
    assert_eq!(info.pv[0].to_string(), "g4-g7", "{info:?}");
    assert_eq!(info.mate_in(), Some(2), "the move and the removal");
    assert!(info.score > MATE_BOUND, "{info:?}");
}

#[test]
fn finds_the_blocking_win() {
    let rules = Rules::new(Variant::Nine);
    // Black on a7 g7 g1 a1, White on g4 d1 a4 d6: White's d6-d7 leaves Black no move.
    let g = game(rules, "B.BWBWBW/.W....../........ w 0/0 - 0 40");
    let info = best(&mut seeded(rules, 1), &g, depth(2));
    assert_eq!(info.pv[0].to_string(), "d6-d7", "{info:?}");
    assert_eq!(info.mate_in(), Some(1));
}

#[test]
fn wins_with_a_double_mill() {
    // a7-d7-g7 and g4-f4-e4 share no man; g7 and g4 are adjacent: every swing removes a man.
    let rules = Rules::new(Variant::Nine).with_flying(false).unwrap();
    // White a7 d7 g7 f4 e4; Black a1 b2 c3 c4, too far away to block g4.
    let g = game(rules, "WWW...B./...W..B./...W..BB w 0/0 - 0 30");
    let info = best(&mut seeded(rules, 1), &g, depth(6));
    assert!(info.score > MATE_BOUND, "{info:?}");
    assert_eq!(info.pv[0].to_string(), "g7-g4", "{info:?}");
}

#[test]
fn never_returns_an_illegal_move() {
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    for variant in Variant::ALL {
        let rules = Rules::new(variant);
        let mut engine = seeded(rules, 2);
        for _ in 0..12 {
            let mut g = Game::new(rules);
            let plies = rng.random_range(0..60);
            for _ in 0..plies {
                let moves = g.legal_moves();
                if moves.is_empty() {
                    break;
                }
                g.play_unchecked(moves[rng.random_range(0..moves.len())]);
            }
            if g.status().is_over() {
                assert!(engine.search(&g, depth(2), None, |_| {}).is_none());
                continue;
            }
            let info = best(&mut engine, &g, depth(3));
            g.check_move(info.pv[0]).unwrap();
            // The whole principal variation is playable.
            let mut line = g.clone();
            for &m in &info.pv {
                line.play(m).unwrap();
            }
        }
    }
}

#[test]
fn respects_depth_node_and_time_limits() {
    let rules = Rules::new(Variant::Nine);
    let mut g = Game::new(rules);
    g.play_text("d6 d2 b6 f4 f6 xd2 d7 b4 g4 e4").unwrap();
    let mut engine = seeded(rules, 3);
    let mut depths = Vec::new();
    engine.search(&g, depth(4), None, |i| depths.push(i.depth));
    assert_eq!(depths, [1, 2, 3, 4]);
    let info = best(
        &mut engine,
        &g,
        Limits {
            nodes: Some(5_000),
            ..Limits::default()
        },
    );
    // Limits are checked every 1024 nodes.
    assert!(info.nodes <= 5_000 + 1_024, "{}", info.nodes);
    let t = Instant::now();
    let info = best(
        &mut engine,
        &g,
        Limits {
            movetime: Some(Duration::from_millis(150)),
            ..Limits::default()
        },
    );
    assert!(
        t.elapsed() < Duration::from_millis(600),
        "{:?}",
        t.elapsed()
    );
    g.check_move(info.pv[0]).unwrap();
}

#[test]
fn is_deterministic_with_a_seed() {
    let rules = Rules::new(Variant::Six);
    let mut g = Game::new(rules);
    g.play_text("b6 d2 f6 c3").unwrap();
    let run = |seed| {
        let mut e = seeded(rules, seed);
        let infos: Vec<(Move, u64, i32)> = (1..=5)
            .map(|d| {
                let i = best(&mut e, &g, depth(d));
                (i.pv[0], i.nodes, i.score)
            })
            .collect();
        infos
    };
    assert_eq!(run(7), run(7));
}

/// A writer the test can read after the protocol is done with it.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_protocol_answers_a_script() {
    let script = "uci\nisready\nsetoption name Variant value six\nsetoption name Seed value 3\n\
                  ucinewgame\nposition startpos moves b6 b2 d6 d2 f6\ngo depth 2\n\
                  position startpos moves b6 b2 d6 d2\ngo depth 3\n\
                  setoption name Flying value true\nsetoption name Bogus value 1\n\
                  position startpos moves b6 b6\ngo nodes 500\nquit\n";
    let out = Shared::default();
    kvarn_engine::protocol::serve(Rules::new(Variant::Nine), Cursor::new(script), out.clone())
        .unwrap();
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.contains(&"uciok"), "{text}");
    assert!(lines.contains(&"readyok"), "{text}");
    let best: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("bestmove"))
        .copied()
        .collect();
    assert_eq!(best.len(), 3, "{text}");
    // After b6 b2 d6 d2 f6 White must remove: the answer is a removal of its own.
    assert!(
        best[0] == "bestmove xb2" || best[0] == "bestmove xd2",
        "{text}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 3 score")),
        "{text}"
    );
    assert!(text.contains("does not offer flying"), "{text}");
    assert!(text.contains("unknown option `bogus`"), "{text}");
    assert!(text.contains("b6 is occupied"), "{text}");
}

#[test]
fn takes_a_repetition_draw_when_behind() {
    // White a7 b6 f2 c5 e3, Black g1 d3 c4: Black, two men down and unable to fly, can
    // make the position occur a third time.
    let rules = Rules::new(Variant::Nine).with_flying(false).unwrap();
    let mut g = game(rules, "W...B.../W...W.../W...WB.B w 0/0 - 0 40");
    g.play_text("a7-d7 g1-g4 d7-a7 g4-g1 a7-d7 g1-g4 d7-a7")
        .unwrap();
    assert_eq!(g.occurrences(), 2);
    let info = best(&mut seeded(rules, 1), &g, depth(4));
    assert_eq!(info.pv[0].to_string(), "g4-g1", "{info:?}");
    assert_eq!(info.score, 0, "{info:?}");
}

#[test]
fn sees_the_no_capture_draw_coming() {
    // White is two men up but cannot remove a man this turn: at 49 quiet turns the next
    // quiet turn draws, so the position is worth a draw; without the rule it is not.
    let with_rule = Rules::new(Variant::Nine).with_flying(false).unwrap();
    let s = "W...B.../W...W.../W...WB.B w 0/0 - 49 80";
    let info = best(&mut seeded(with_rule, 1), &game(with_rule, s), depth(3));
    assert_eq!(info.score, 0, "{info:?}");
    let without = with_rule.with_no_capture_limit(None).unwrap();
    let info = best(&mut seeded(without, 1), &game(without, s), depth(3));
    assert!(info.score > 100, "{info:?}");
}

#[test]
fn weights_load_from_a_file_and_bad_files_are_refused() {
    use kvarn_engine::evaluation::Weights;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.toml");
    let text = toml::to_string(&Weights::default()).unwrap();
    std::fs::write(&path, &text).unwrap();
    assert_eq!(Weights::load(&path).unwrap(), Weights::default());
    std::fs::write(&path, text.replace("mobility", "mobilty")).unwrap();
    let e = Weights::load(&path).unwrap_err();
    assert!(e.to_string().contains("mobilty"), "{e}");
    let e = Weights::load(&dir.path().join("missing.toml")).unwrap_err();
    assert!(e.to_string().contains("missing.toml"), "{e}");
}

/// Drives `serve` through a pipe, as a GUI would: sends lines and waits for answers.
struct Driver {
    input: std::io::PipeWriter,
    out: Shared,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Driver {
    fn start(rules: Rules) -> Driver {
        let (reader, input) = std::io::pipe().unwrap();
        let out = Shared::default();
        let out2 = out.clone();
        let thread = std::thread::spawn(move || {
            kvarn_engine::protocol::serve(rules, std::io::BufReader::new(reader), out2).unwrap();
        });
        Driver {
            input,
            out,
            thread: Some(thread),
        }
    }

    fn send(&mut self, line: &str) {
        use std::io::Write;
        writeln!(self.input, "{line}").unwrap();
    }

    fn lines(&self) -> Vec<String> {
        String::from_utf8(self.out.0.lock().unwrap().clone())
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    }

    /// Waits until `n` lines start with `prefix`; returns the last of them.
    fn wait(&self, prefix: &str, n: usize) -> String {
        let t = Instant::now();
        loop {
            let found: Vec<String> = self
                .lines()
                .into_iter()
                .filter(|l| l.starts_with(prefix))
                .collect();
            if found.len() >= n {
                return found[n - 1].clone();
            }
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "no {prefix} #{n} in {:?}",
                self.lines()
            );
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn quit(mut self) {
        self.send("quit");
        self.thread.take().unwrap().join().unwrap();
    }
}

#[test]
fn the_protocol_plays_a_whole_game() {
    let rules = Rules::new(Variant::Six);
    let mut d = Driver::start(rules);
    d.send("setoption name Variant value six");
    d.send("setoption name Seed value 5");
    let mut game = Game::new(rules);
    let mut answers = 0;
    while !game.status().is_over() {
        let moves: Vec<String> = game.moves().map(|m| m.to_string()).collect();
        d.send(&format!("position startpos moves {}", moves.join(" ")));
        d.send("go depth 2");
        answers += 1;
        let line = d.wait("bestmove", answers);
        let mv: Move = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        game.play(mv).unwrap();
    }
    let moves: Vec<String> = game.moves().map(|m| m.to_string()).collect();
    d.send(&format!("position startpos moves {}", moves.join(" ")));
    d.send("go depth 1");
    assert_eq!(d.wait("bestmove", answers + 1), "bestmove (none)");
    d.quit();
}

#[test]
fn stop_ends_an_infinite_search_and_other_commands_do_not_hang() {
    let mut d = Driver::start(Rules::new(Variant::Nine));
    d.send("position startpos moves d6 d2");
    d.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !d.lines().iter().any(|l| l.starts_with("bestmove")),
        "waits for stop"
    );
    d.send("isready");
    d.wait("readyok", 1);
    d.send("stop");
    let best = d.wait("bestmove", 1);
    assert_ne!(best, "bestmove (none)");
    // Another command during an infinite search stops it rather than waiting forever.
    d.send("go infinite");
    d.send("position startpos");
    d.wait("bestmove", 2);
    d.quit();
}

#[test]
fn a_failed_position_leaves_nothing_to_search() {
    let mut d = Driver::start(Rules::new(Variant::Nine));
    d.send("position startpos moves d6 d2 f6");
    d.send("position startpos moves d6 d6");
    d.send("go depth 2");
    assert_eq!(d.wait("bestmove", 1), "bestmove (none)");
    assert!(d.lines().iter().any(|l| l.contains("d6 is occupied")));
    d.quit();
}

#[test]
fn switching_variants_restores_each_variants_flying_default() {
    let mut d = Driver::start(Rules::new(Variant::Six));
    d.send("setoption name Variant value nine");
    // White has three men and no men in hand: with flying on it may fly anywhere.
    d.send("position fen WW.W..../......../B...B.B. w 0/0 - 0 40 moves a7-e5");
    d.send("go depth 1");
    assert_ne!(d.wait("bestmove", 1), "bestmove (none)", "{:?}", d.lines());
    assert!(
        !d.lines()
            .iter()
            .any(|l| l.contains("a7 and e5 are not joined")),
        "flying is on again in Nine: {:?}",
        d.lines()
    );
    d.quit();
}

#[test]
fn threads_search_within_a_node_limit() {
    let rules = Rules::new(Variant::Nine);
    let mut g = Game::new(rules);
    g.play_text("d6 d2 b6 f4 f6 xd2 d7 b4 g4 e4").unwrap();
    let mut engine = Engine::new(
        rules,
        EngineOptions {
            threads: 2,
            seed: Some(1),
            ..EngineOptions::default()
        },
    );
    for nodes in [3_000, 30_000] {
        let info = best(
            &mut engine,
            &g,
            Limits {
                nodes: Some(nodes),
                ..Limits::default()
            },
        );
        assert!(info.nodes <= nodes + 2 * 1_024, "{} > {nodes}", info.nodes);
        g.check_move(info.pv[0]).unwrap();
    }
    let info = best(&mut engine, &g, depth(6));
    assert!(info.depth >= 6);
    g.check_move(info.pv[0]).unwrap();
}

/// Runs `serve` on `input` in a thread; returns its output once it ends, or `None` when
/// it has not ended within `limit`.
fn serve_within(input: Vec<u8>, limit: Duration) -> Option<(std::io::Result<()>, String)> {
    let out = Shared::default();
    let out2 = out.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let result =
            kvarn_engine::protocol::serve(Rules::new(Variant::Nine), Cursor::new(input), out2);
        let _ = tx.send(result);
    });
    let result = rx.recv_timeout(limit).ok()?;
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    Some((result, text))
}

#[test]
fn a_line_of_invalid_utf8_is_answered_and_the_engine_goes_on() {
    let input =
        b"isready\n\xff\xfe go\nposition startpos moves d6\xc3\ngo depth 1\nisready\nquit\n";
    let (result, text) = serve_within(input.to_vec(), Duration::from_secs(20)).expect("ends");
    result.expect("a bad line is not fatal");
    assert_eq!(text.matches("readyok").count(), 2, "{text}");
    assert_eq!(text.matches("not UTF-8").count(), 2, "{text}");
    assert!(text.lines().any(|l| l.starts_with("bestmove ")), "{text}");
}

#[test]
fn the_end_of_the_input_stops_a_search_and_ends_the_session() {
    for script in [
        "go depth 99999\n",
        "position startpos\ngo depth 99999\nisready\nposition startpos moves d6\n",
        "setoption name MoveTime value 0\ngo\n",
        "setoption name MoveTime value 0\ngo\nposition startpos\ngo\n",
        "go depth 99999\r\nucinewgame\n\nquit \n",
    ] {
        let t = Instant::now();
        let (result, text) = serve_within(script.into(), Duration::from_secs(15))
            .unwrap_or_else(|| panic!("{script:?} did not end within 15 s"));
        result.unwrap();
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "{script:?}: {:?}",
            t.elapsed()
        );
        assert!(
            text.lines().all(|l| !l.contains("error")),
            "{script:?}: {text}"
        );
    }
    // A script that ends in `quit` has each search that another command follows run to
    // its limit.
    let (_, text) = serve_within(
        "go depth 3\nposition startpos moves d6\ngo depth 3\nucinewgame\nquit\n".into(),
        Duration::from_secs(30),
    )
    .expect("ends");
    assert_eq!(text.matches("info depth 3 ").count(), 2, "{text}");
    assert_eq!(text.matches("bestmove").count(), 2, "{text}");
}

#[test]
fn movetime_zero_is_no_limit_and_stop_ends_it() {
    let mut d = Driver::start(Rules::new(Variant::Nine));
    d.send("setoption name MoveTime value 0");
    d.send("position startpos moves d6 d2");
    d.send("go");
    std::thread::sleep(Duration::from_millis(150));
    assert!(
        !d.lines().iter().any(|l| l.starts_with("bestmove")),
        "no limit: searches until stop: {:?}",
        d.lines()
    );
    d.send("isready");
    d.wait("readyok", 1);
    d.send("stop");
    assert_ne!(d.wait("bestmove", 1), "bestmove (none)");
    // Like `go infinite`, another command stops it rather than waiting forever.
    d.send("go");
    d.send("position startpos moves d6");
    d.send("isready");
    d.wait("readyok", 2);
    d.wait("bestmove", 2);
    d.send("setoption name MoveTime value 50");
    d.send("go");
    d.wait("bestmove", 3);
    d.quit();
}

#[test]
fn isready_is_answered_while_a_command_waits_for_a_search() {
    let mut d = Driver::start(Rules::new(Variant::Nine));
    d.send("position startpos");
    d.send("go depth 99999");
    // `position` waits for the search; `isready` behind it is answered meanwhile.
    d.send("position startpos moves d6");
    d.send("isready");
    d.wait("readyok", 1);
    assert!(!d.lines().iter().any(|l| l.starts_with("bestmove")));
    d.send("stop");
    d.wait("bestmove", 1);
    // The waiting `position` was carried out after the search: d6 is taken.
    d.send("go depth 1");
    let best = d.wait("bestmove", 2);
    assert_ne!(best, "bestmove d6", "{:?}", d.lines());
    d.send("position startpos moves d6 d6");
    d.send("isready");
    d.wait("readyok", 2);
    assert!(d.lines().iter().any(|l| l.contains("d6 is occupied")));
    d.quit();
}

#[test]
fn every_go_is_answered_with_a_legal_bestmove_even_a_malformed_one() {
    // A clock past zero, a negative or unreadable limit, a missing value and an unknown
    // parameter: each is named in an `info string` and the search still answers.
    let gos = [
        "go movetime -5",
        "go wtime -100 btime -100",
        "go movetime x depth 1",
        "go depth",
        "go frobnicate 3 depth 1",
        "go nodes 200 movestogo -1",
    ];
    for go in gos {
        let input = format!("position startpos\n{go}\nisready\nquit\n");
        let (result, text) =
            serve_within(input.into_bytes(), Duration::from_secs(30)).expect("ends");
        result.expect("a malformed go is not fatal");
        let best: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("bestmove "))
            .collect();
        assert_eq!(best.len(), 1, "{go}:\n{text}");
        let mv = best[0].split_whitespace().nth(1).unwrap();
        assert_ne!(mv, "(none)", "{go}:\n{text}");
        let rules = Rules::new(Variant::Nine);
        Game::new(rules)
            .check_move(mv.parse().unwrap())
            .unwrap_or_else(|e| panic!("{go}: {mv}: {e}"));
        assert!(text.contains("info string error:"), "{go}:\n{text}");
    }
}

#[test]
fn an_out_of_range_option_is_refused_by_name_and_keeps_its_value() {
    let input = "setoption name Depth value 2\nsetoption name Depth value 65\n\
                 setoption name Hash value 0\nsetoption name Threads value 300\n\
                 setoption name NoCaptureLimit value 70000\n\
                 position startpos\ngo\nucinewgame\nquit\n";
    let (result, text) =
        serve_within(input.as_bytes().to_vec(), Duration::from_secs(30)).expect("ends");
    result.expect("a bad option is not fatal");
    for refused in [
        "65 is not in 0..=64",
        "0 is not in 1..=4096",
        "300 is not in 1..=256",
        "70000 is not in 0..=65535",
    ] {
        assert!(
            text.lines()
                .any(|l| l.starts_with("info string error") && l.contains(refused)),
            "{refused}:\n{text}"
        );
    }
    // Depth kept its value, 2: the search without limits (`ucinewgame` waits for it) stops
    // at depth 2.
    let deepest = text
        .lines()
        .filter_map(|l| l.strip_prefix("info depth "))
        .filter_map(|l| l.split_whitespace().next()?.parse::<u32>().ok())
        .max();
    assert_eq!(deepest, Some(2), "{text}");
    assert!(text.lines().any(|l| l.starts_with("bestmove ")), "{text}");
}

/// Positions of seeded random games, with the moves that reach them.
fn random_positions(rules: Rules, count: usize, seed: u64) -> Vec<Game> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            loop {
                let mut g = Game::new(rules);
                let plies = rng.random_range(0..40);
                while g.ply() < plies && !g.status().is_over() {
                    let moves = g.legal_moves();
                    g.play(moves[rng.random_range(0..moves.len())]).unwrap();
                }
                if !g.status().is_over() {
                    break g;
                }
            }
        })
        .collect()
}

fn position_command(g: &Game) -> String {
    let moves: Vec<String> = g.moves().map(|m| m.to_string()).collect();
    format!("position startpos moves {}", moves.join(" "))
}

#[test]
fn searchmoves_are_the_only_moves_chosen() {
    let rules = Rules::new(Variant::Nine);
    let mut d = Driver::start(rules);
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    for (i, g) in random_positions(rules, 30, 11).iter().enumerate() {
        let legal = g.legal_moves();
        let mut named: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|_| rng.random_range(0..3) == 0)
            .collect();
        if named.is_empty() {
            named.push(legal[rng.random_range(0..legal.len())]);
        }
        let words: Vec<String> = named.iter().map(|m| m.to_string()).collect();
        d.send(&position_command(g));
        d.send(&format!("go searchmoves {} depth 2", words.join(" ")));
        let line = d.wait("bestmove", i + 1);
        let best: Move = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!(named.contains(&best), "{line} is not among {words:?}");
    }
    // A move that is not legal is named and left out; with none legal, all are searched.
    d.send("position startpos moves d6");
    d.send("go depth 1 searchmoves d6 a1");
    let best = d.wait("bestmove", 31);
    assert_eq!(best, "bestmove a1");
    assert!(
        d.lines()
            .iter()
            .any(|l| l.contains("searchmoves: d6 is not legal here"))
    );
    d.send("go depth 1 searchmoves d6");
    let best = d.wait("bestmove", 32);
    assert_ne!(best, "bestmove (none)");
    assert!(
        d.lines()
            .iter()
            .any(|l| l.contains("no legal move named, searching them all"))
    );
    d.quit();
}

/// `go ponder` then `ponderhit` or `stop`, in every state the search can be in: each
/// `go` is answered by exactly one legal `bestmove`.
#[test]
fn ponder_ponderhit_and_stop_in_every_state_answer_with_one_legal_move() {
    let rules = Rules::new(Variant::Nine);
    let mut d = Driver::start(rules);
    // Early in the game, where no search ends before its time; and a position whose
    // search ends by itself (a forced win found).
    let mut early = Game::new(rules);
    early.play_text("d6 d2").unwrap();
    let g = &random_positions(rules, 1, 5)[0];
    let legal: Vec<String> = early
        .legal_moves()
        .iter()
        .chain(g.legal_moves().iter())
        .map(|m| m.to_string())
        .collect();
    let answers = std::cell::Cell::new(0);
    let expect_one = |d: &mut Driver, before: &[&str]| {
        answers.set(answers.get() + 1);
        for line in before {
            d.send(line);
        }
        let best = d.wait("bestmove", answers.get());
        let mv = best.split_whitespace().nth(1).unwrap().to_string();
        assert!(legal.contains(&mv), "{best} after {before:?}");
        std::thread::sleep(Duration::from_millis(30));
        let count = d
            .lines()
            .iter()
            .filter(|l| l.starts_with("bestmove"))
            .count();
        assert_eq!(count, answers.get(), "one bestmove for {before:?}");
    };
    d.send("position startpos moves d6 d2");
    // Stopped while pondering.
    expect_one(&mut d, &["go ponder movetime 5000", "isready", "stop"]);
    // Pondering on after ponderhit for the go's time.
    let t = Instant::now();
    expect_one(&mut d, &["go ponder movetime 200", "ponderhit"]);
    assert!(t.elapsed() >= Duration::from_millis(200));
    // A depth alone: ponderhit answers at once.
    expect_one(&mut d, &["go ponder depth 3", "ponderhit"]);
    // Clock times: the mover's share of them after ponderhit; then stop changes nothing.
    expect_one(
        &mut d,
        &["go ponder wtime 2000 btime 2000", "ponderhit", "stop"],
    );
    // A search that ends by itself while pondering holds its answer until ponderhit.
    d.send(&position_command(g));
    let first = g.legal_moves()[0].to_string();
    d.send(&format!("go ponder depth 1 searchmoves {first}"));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        d.lines()
            .iter()
            .filter(|l| l.starts_with("bestmove"))
            .count(),
        answers.get(),
        "no answer before ponderhit: {} {:?}",
        position_command(g),
        d.lines()
    );
    expect_one(&mut d, &["ponderhit"]);
    // Another command while pondering stops the search, which answers.
    expect_one(&mut d, &["go ponder", &position_command(g)]);
    // ponderhit and stop with nothing running are answered without a bestmove.
    d.send("ponderhit");
    d.send("stop");
    d.send("isready");
    d.wait("readyok", 2);
    assert!(
        d.lines()
            .iter()
            .any(|l| l.contains("ponderhit without a go ponder"))
    );
    d.quit();
}

#[test]
fn the_multipv_option_is_offered_and_checked() {
    let mut d = Driver::start(Rules::new(Variant::Nine));
    d.send("uci");
    d.wait("uciok", 1);
    assert!(
        d.lines()
            .iter()
            .any(|l| l.starts_with("option name MultiPV type spin default 1"))
    );
    d.send("setoption name MultiPV value 0");
    d.send("setoption name MultiPV value 3");
    d.send("position startpos moves d6 d2");
    d.send("go depth 3");
    let best = d.wait("bestmove", 1);
    assert!(d.lines().iter().any(|l| l.contains("0 is not in 1..=64")));
    // After the search, the three best moves, each its own line, the first the move played.
    let first_moves: Vec<String> = (1..=3)
        .map(|k| {
            let line = d.wait(&format!("info multipv {k} "), 1);
            let at = line.find(" pv ").expect("a pv");
            line[at + 4..]
                .split_whitespace()
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(format!("bestmove {}", first_moves[0]), best);
    let distinct: std::collections::HashSet<&String> = first_moves.iter().collect();
    assert_eq!(distinct.len(), 3, "{first_moves:?}");
    d.quit();
}
