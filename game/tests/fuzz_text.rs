//! Fuzzing the readers of text from outside: position strings, Sanmill FEN,
//! `Position::from_text` (either, or `startpos`), single move tokens and move lists
//! (`Game::play_text`, what `kvarn moves` and `--stdin` use). Random bytes and mutations
//! of valid inputs (bit flips, changed, inserted and deleted bytes, truncations, splices,
//! tokens of the grammar) must be read or refused, never panic; what is read is then
//! used (written back, its moves generated and played) and must not panic either.
//!
//! Runs for a fixed budget: `KVARN_FUZZ_SECONDS` (default 20) for the file, split between
//! its tests, from the seed `KVARN_FUZZ_SEED` (default 1); a failing case names its
//! seed, its case number and its input.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use kvarn_game::{Game, Move, Position, Rules, Variant};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[path = "../../testing/fuzz.rs"]
mod fuzz_support;
use fuzz_support::env_or;

/// Tests in this file, which share its budget.
const TESTS: u32 = 2;

/// Runs `case` on fresh seeds until this test's share of the budget is spent; returns the
/// number of cases. A panic is reported with the case's seed and the input it built.
fn fuzz(name: &str, mut case: impl FnMut(&mut Pcg64Mcg, &mut String)) -> u64 {
    let budget = Duration::from_secs_f64(env_or("KVARN_FUZZ_SECONDS", 20) as f64 / TESTS as f64);
    let seed = env_or("KVARN_FUZZ_SEED", 1);
    let started = Instant::now();
    let mut n = 0u64;
    while started.elapsed() < budget {
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ (n << 20) ^ 0x5eed);
        let mut input = String::new();
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| case(&mut rng, &mut input))) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{name}: seed {seed} case {n} panicked ({msg}) on input {input:?}");
        }
        n += 1;
    }
    eprintln!(
        "{name}: {n} cases in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    n
}

/// Pieces of the grammars, for insertions.
const TOKENS: &[&str] = &[
    " ",
    "/",
    "-",
    "x",
    "w",
    "b",
    "W",
    "B",
    ".",
    "O",
    "@",
    "*",
    "X",
    "startpos",
    "0",
    "9",
    "65535",
    "65536",
    "4294967296",
    "99999999999999999999",
    "-1",
    "p",
    "m",
    "r",
    "s",
    "c",
    "a1",
    "g7",
    "d4",
    "h8",
    "a0",
    "xd2",
    "a1-a4",
    "b2xf4",
    "\u{e9}",
    "\n",
    "\t",
    "\0",
];

/// `input` changed by one to four random edits.
fn mutate(rng: &mut Pcg64Mcg, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let at = rng.random_range(0..=v.len());
        match rng.random_range(0..8) {
            0 if at < v.len() => v[at] ^= 1 << rng.random_range(0..8),
            1 if at < v.len() => v[at] = rng.random(),
            2 => v.truncate(at),
            3 => {
                let end = rng.random_range(at..=v.len());
                v.drain(at..end);
            }
            4 => {
                let bytes: Vec<u8> = (0..rng.random_range(1..8)).map(|_| rng.random()).collect();
                v.splice(at..at, bytes);
            }
            5 => {
                let t = TOKENS[rng.random_range(0..TOKENS.len())].as_bytes();
                v.splice(at..at, t.iter().copied());
            }
            6 => {
                let from = rng.random_range(0..=other.len());
                v.truncate(at);
                v.extend_from_slice(&other[from..]);
            }
            _ if at < v.len() => {
                let end = rng.random_range(at..=v.len().min(at + 16));
                let piece = v[at..end].to_vec();
                v.splice(at..at, piece);
            }
            _ => {}
        }
    }
    v
}

fn random_rules(rng: &mut Pcg64Mcg) -> Rules {
    let v = Variant::ALL[rng.random_range(0..Variant::ALL.len())];
    let mut rules = Rules::new(v).with_repetition(rng.random_bool(0.5));
    if v.offers_flying() {
        rules = rules.with_flying(rng.random_bool(0.5)).unwrap();
    }
    let limit = [None, Some(1), Some(14), Some(50)][rng.random_range(0..4)];
    rules.with_no_capture_limit(limit).unwrap()
}

/// A random game of up to `plies` decisions.
fn random_game(rng: &mut Pcg64Mcg, rules: Rules, plies: usize) -> Game {
    let mut g = Game::new(rules);
    for _ in 0..rng.random_range(0..=plies) {
        let legal = g.legal_moves();
        if legal.is_empty() {
            break;
        }
        g.play_unchecked(legal[rng.random_range(0..legal.len())]);
    }
    g
}

/// Uses a position that was read: written back, read again, its moves generated and a
/// few played.
fn exercise(rng: &mut Pcg64Mcg, rules: &Rules, p: Position) {
    let text = p.to_position_string(rules);
    Position::from_position_string(rules, &text).expect("a written position string reads back");
    if let Ok(fen) = p.to_fen(rules) {
        let _ = Position::from_fen(rules, &fen);
    }
    let _ = p.status(rules, 1);
    if let Ok(mut g) = Game::from_position(*rules, p) {
        for _ in 0..8 {
            let legal = g.legal_moves();
            if legal.is_empty() {
                break;
            }
            g.play_unchecked(legal[rng.random_range(0..legal.len())]);
        }
    }
}

/// A valid text of one of the three forms, for a random position of `rules`.
fn valid_position_text(rng: &mut Pcg64Mcg, rules: &Rules) -> String {
    let g = random_game(rng, *rules, 60);
    let p = g.position();
    match rng.random_range(0..5) {
        0 => "startpos".into(),
        1 | 2 => p
            .to_fen(rules)
            .unwrap_or_else(|_| p.to_position_string(rules)),
        _ => p.to_position_string(rules),
    }
}

#[test]
fn position_texts_never_panic() {
    let n = fuzz("position texts", |rng, input| {
        let rules = random_rules(rng);
        let bytes = if rng.random_bool(0.1) {
            (0..rng.random_range(0..80)).map(|_| rng.random()).collect()
        } else {
            let good = valid_position_text(rng, &rules);
            let other_rules = random_rules(rng);
            let other = valid_position_text(rng, &other_rules);
            mutate(rng, good.as_bytes(), other.as_bytes())
        };
        *input = String::from_utf8_lossy(&bytes).into_owned();
        for read in [
            Position::from_text,
            Position::from_position_string,
            Position::from_fen,
        ] {
            if let Ok(p) = read(&rules, input) {
                exercise(rng, &rules, p);
            }
        }
    });
    assert!(n > 0);
}

#[test]
fn move_lists_never_panic() {
    let n = fuzz("move lists", |rng, input| {
        let rules = random_rules(rng);
        let game = random_game(rng, rules, 120);
        let moves: Vec<String> = game.moves().map(|m| m.to_string()).collect();
        let other_rules = random_rules(rng);
        let other = random_game(rng, other_rules, 40);
        let other: Vec<String> = other.moves().map(|m| m.to_string()).collect();
        let bytes = if rng.random_bool(0.1) {
            (0..rng.random_range(0..200))
                .map(|_| rng.random())
                .collect()
        } else {
            mutate(rng, moves.join(" ").as_bytes(), other.join(" ").as_bytes())
        };
        *input = String::from_utf8_lossy(&bytes).into_owned();
        for token in input.split_whitespace() {
            let _ = Move::parse_token(token);
            let _ = token.parse::<Move>();
        }
        let mut g = Game::new(rules);
        let result = g.play_text(input);
        let _ = g.legal_moves();
        if result.is_err() {
            assert!(g.ply() <= input.split_whitespace().count() * 2);
        }
        // Played again from a position in the middle of a game, as `--position` does.
        let start = random_game(rng, rules, 30);
        if let Ok(mut g) = Game::from_position(rules, *start.position()) {
            let _ = g.play_text(input);
            while g.undo().is_some() {}
        }
    });
    assert!(n > 0);
}
