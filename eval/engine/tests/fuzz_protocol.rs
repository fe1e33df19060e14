//! Fuzzing the protocol of `kvarn engine`: random bytes, broken lines and random but
//! well-formed commands go into `serve`, which must neither panic (in any of its threads)
//! nor hang, and must end when its input ends.
//!
//! Runs for a fixed budget: `KVARN_FUZZ_SECONDS` (default 20) from the seed
//! `KVARN_FUZZ_SEED` (default 1); a failing case names its seed and its input.

use std::io::Cursor;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kvarn_game::{Game, Rules, Variant};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[path = "../../../testing/fuzz.rs"]
mod fuzz_support;
use fuzz_support::env_or;

/// Panics seen in any thread since the hook was installed.
static PANICS: AtomicUsize = AtomicUsize::new(0);

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

fn pick<'a>(rng: &mut Pcg64Mcg, items: &[&'a str]) -> &'a str {
    items[rng.random_range(0..items.len())]
}

/// Moves of a random game from the start, some of them garbled.
fn moves(rng: &mut Pcg64Mcg, rules: Rules) -> String {
    let mut g = Game::new(rules);
    let mut out = Vec::new();
    for _ in 0..rng.random_range(0..40) {
        let legal = g.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.random_range(0..legal.len())];
        g.play_unchecked(m);
        out.push(m.to_string());
    }
    if rng.random_bool(0.3) && !out.is_empty() {
        let i = rng.random_range(0..out.len());
        out[i] = pick(
            rng,
            &["d6", "xz9", "a1-a1", "", "-", "x", "g7-a1", "\u{e9}"],
        )
        .into();
    }
    out.join(" ")
}

/// One command, well formed or nearly so, with limits small enough to end quickly.
fn command(rng: &mut Pcg64Mcg) -> String {
    let rules = Rules::new(Variant::ALL[rng.random_range(0..Variant::ALL.len())]);
    let n = rng.random_range(0..2000u64);
    match rng.random_range(0..12) {
        0 => "uci".into(),
        1 => "isready".into(),
        2 => "ucinewgame".into(),
        3 => "stop".into(),
        4 => format!(
            "setoption name {} value {}",
            pick(
                rng,
                &[
                    "Variant",
                    "Flying",
                    "Repetition",
                    "NoCaptureLimit",
                    "Depth",
                    "Nodes"
                ]
            ),
            pick(
                rng,
                &[
                    "six", "nine", "five", "true", "false", "0", "1", "3", "x", ""
                ]
            )
        ),
        5 => format!(
            "setoption name {} value {}",
            pick(
                rng,
                &["MoveTime", "Threads", "Hash", "Seed", "Weights", "Bogus"]
            ),
            [n % 30, n % 4 + 1, n % 8 + 1, n, n, n][rng.random_range(0..6usize)]
        ),
        6 | 7 => format!("position startpos moves {}", moves(rng, rules)),
        8 => format!(
            "position fen {} moves {}",
            pick(
                rng,
                &[
                    "WW.W..../......B./B...B... w 0/0 - 0 40",
                    "W...B.../W...W.../W...WB.B w 0/0 - 49 80",
                    "********/********/******** w",
                    "x",
                ]
            ),
            moves(rng, rules)
        ),
        9 => format!(
            "go {}",
            pick(
                rng,
                &[
                    "depth 1",
                    "depth 2",
                    "nodes 300",
                    "movetime 5",
                    "infinite",
                    "depth",
                    "wtime 40 btime 40",
                    "depth -1",
                    "nodes 99999999999999999999"
                ]
            )
        ),
        // A search that would not end by itself, rarely: once the input has ended, a
        // command waiting for it waits up to `CLOSED_WAIT`.
        10 if rng.random_bool(0.1) => "go depth 99999".into(),
        _ => pick(
            rng,
            &[
                "go",
                "quit",
                "position",
                "setoption",
                "setoption name value",
                "\t",
                "go movetime 0",
            ],
        )
        .into(),
    }
}

/// A random input: lines of commands, with random bytes, cut lines and bad UTF-8 mixed in.
fn input(rng: &mut Pcg64Mcg) -> Vec<u8> {
    let mut bytes = Vec::new();
    // Mostly short searches by default, so that more cases fit in the budget.
    if rng.random_bool(0.9) {
        bytes.extend_from_slice(b"setoption name MoveTime value 10\n");
    }
    for _ in 0..rng.random_range(0..16) {
        match rng.random_range(0..10) {
            0 => (0..rng.random_range(0..64)).for_each(|_| bytes.push(rng.random())),
            1 => {
                let mut c = command(rng).into_bytes();
                let at = rng.random_range(0..=c.len());
                c.insert(at, [0xff, 0xc3, 0x80, 0x00][rng.random_range(0..4usize)]);
                bytes.extend_from_slice(&c);
            }
            2 => {
                let c = command(rng).into_bytes();
                bytes.extend_from_slice(&c[..rng.random_range(0..=c.len())]);
            }
            _ => bytes.extend_from_slice(command(rng).as_bytes()),
        }
        bytes
            .extend_from_slice([&b"\n"[..], b"\r\n", b"\n\n", b" \n"][rng.random_range(0..4usize)]);
    }
    if rng.random_bool(0.2) {
        bytes.pop();
    }
    bytes
}

/// Serves `bytes`; the answer, or `None` when the session has not ended within `limit`.
fn serve(bytes: Vec<u8>, limit: Duration) -> Option<(std::io::Result<()>, String)> {
    let out = Shared::default();
    let out2 = out.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = kvarn_engine::protocol::serve(Rules::new(Variant::Nine), Cursor::new(bytes), out2);
        let _ = tx.send(r);
    });
    let result = rx.recv_timeout(limit).ok()?;
    let text = String::from_utf8_lossy(&out.0.lock().unwrap()).into_owned();
    Some((result, text))
}

#[test]
fn random_input_never_panics_or_hangs_the_protocol() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.fetch_add(1, Ordering::SeqCst);
        default_hook(info);
    }));
    let budget = Duration::from_secs(env_or("KVARN_FUZZ_SECONDS", 20));
    let base = env_or("KVARN_FUZZ_SEED", 1);
    let start = Instant::now();
    let mut cases = 0u64;
    while start.elapsed() < budget {
        let seed = base.wrapping_mul(1_000_003).wrapping_add(cases);
        let bytes = input(&mut Pcg64Mcg::seed_from_u64(seed));
        let shown = String::from_utf8_lossy(&bytes).into_owned();
        let (result, text) = serve(bytes, Duration::from_secs(30))
            .unwrap_or_else(|| panic!("case {seed}: no end within 30 s of input {shown:?}"));
        assert!(result.is_ok(), "case {seed}: {result:?} for {shown:?}");
        assert_eq!(
            PANICS.load(Ordering::SeqCst),
            0,
            "case {seed}: a panic for input {shown:?}; output {text}"
        );
        cases += 1;
    }
    eprintln!("{cases} cases in {:.1} s", start.elapsed().as_secs_f64());
    assert!(cases > 0);
}
