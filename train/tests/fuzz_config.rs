//! Fuzzing the run configuration reader (`RunConfig::parse`): random bytes and mutations
//! of the shipped configurations (bit flips, changed, inserted and deleted bytes,
//! truncations, splices, pieces of TOML and of Kvarn's keys and values) must be read or
//! refused, never panic.
//!
//! Runs for a fixed budget: `KVARN_FUZZ_SECONDS` (default 20) from the seed
//! `KVARN_FUZZ_SEED` (default 1); a failing case names its seed, case number and text.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use kvarn_train::RunConfig;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[path = "../../testing/fuzz.rs"]
mod fuzz_support;
use fuzz_support::{env_or, mutate};

#[path = "../../testing/paths.rs"]
mod paths;

/// Pieces of TOML and of the configuration's vocabulary, for insertions.
const TOKENS: &[&str] = &[
    "\n",
    "=",
    "[",
    "]",
    "[[",
    "\"",
    "'",
    "#",
    ".",
    ",",
    "{",
    "}",
    "inf",
    "-inf",
    "nan",
    "0",
    "-1",
    "1e300",
    "18446744073709551616",
    "true",
    "[train]",
    "[search]",
    "[loop]",
    "[selfplay]",
    "[network]",
    "[solver]",
    "[rules]",
    "kind = \"graph\"",
    "variant = \"five\"",
    "flying = true",
    "db = \"/\"",
    "db = \"\"",
    "device = \"wgpu\"",
    "value_weight = ",
    "steps_per_generation = ",
    "baseline_depths = []",
    "max_men = 200",
    "\u{e9}",
];

/// One of the mutations of `mutate`, or a token of [`TOKENS`] inserted.
fn mutate_text(rng: &mut Pcg64Mcg, good: &str, other: &str) -> String {
    let mut bytes = good.as_bytes().to_vec();
    if rng.random_bool(0.5) {
        for _ in 0..rng.random_range(1..4) {
            let at = rng.random_range(0..=bytes.len());
            let t = TOKENS[rng.random_range(0..TOKENS.len())].as_bytes();
            bytes.splice(at..at, t.iter().copied());
        }
    }
    if rng.random_bool(0.7) {
        bytes = mutate(rng, &bytes, other.as_bytes());
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn configurations_never_panic() {
    let budget = Duration::from_secs(env_or("KVARN_FUZZ_SECONDS", 20));
    let seed = env_or("KVARN_FUZZ_SEED", 1);
    let dir = paths::workspace().join("configs");
    let mut bases: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    bases.sort();
    bases.push("[rules]\nvariant = \"six\"\n".into());
    let started = Instant::now();
    let (mut n, mut read) = (0u64, 0u64);
    while started.elapsed() < budget {
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ (n << 20) ^ 0xc0f);
        let good = &bases[rng.random_range(0..bases.len())];
        let other = &bases[rng.random_range(0..bases.len())];
        let text = if rng.random_bool(0.05) {
            let bytes: Vec<u8> = (0..rng.random_range(0..200))
                .map(|_| rng.random())
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            mutate_text(&mut rng, good, other)
        };
        match catch_unwind(AssertUnwindSafe(|| {
            RunConfig::parse(&text, "fuzz.toml").is_ok()
        })) {
            Ok(ok) => read += u64::from(ok),
            Err(_) => panic!("seed {seed} case {n} panicked on {text:?}"),
        }
        n += 1;
    }
    eprintln!(
        "configurations: {n} cases ({read} read) in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
