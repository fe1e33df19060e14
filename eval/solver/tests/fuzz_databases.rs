//! Fuzzing the solver database reader (`db::read`, and `Databases::open` then `load`
//! over a folder holding the file): random bytes, mutations of a valid database (bit
//! flips, changed, inserted and deleted bytes, truncations, splices), and mutations made
//! behind the checksum (the container written afresh around a changed header or values).
//! Each must be read or refused, never panic.
//!
//! Runs for a fixed budget: `KVARN_FUZZ_SECONDS` (default 20) from the seed
//! `KVARN_FUZZ_SEED` (default 1); a failing case names its seed and case number.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use kvarn_game::{Color, Rules, Variant};
use kvarn_solver::db::{self, Databases};
use kvarn_solver::{Solver, Subspace};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde_json::Value;

#[path = "../../../testing/fuzz.rs"]
mod fuzz_support;
use fuzz_support::{env_or, mutate, mutate_json};

#[test]
fn databases_never_panic() {
    let budget = Duration::from_secs(env_or("KVARN_FUZZ_SECONDS", 20));
    let seed = env_or("KVARN_FUZZ_SEED", 1);
    let rules = Rules::new(Variant::Five);
    let s = Subspace::moving(3, 3, Color::White, false);
    let len = Solver::new(rules).size(&s);
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let table: Vec<u16> = (0..len).map(|_| rng.random_range(0..600)).collect();
    db::write(dir.path(), &rules, &s, &table).unwrap();
    let path = db::path(dir.path(), &rules, &s);
    let good = std::fs::read(&path).unwrap();
    let (header, payload): (Value, Vec<u8>) =
        kvarn_storage::parse_container(&path, &good, db::MAGIC, "db", db::VERSION).unwrap();
    let started = Instant::now();
    let (mut n, mut read) = (0u64, 0u64);
    while started.elapsed() < budget {
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ (n << 20) ^ 0xdb);
        let bytes = match rng.random_range(0..10) {
            0 => (0..rng.random_range(0..200))
                .map(|_| rng.random())
                .collect(),
            1..=4 => mutate(&mut rng, &good, &payload),
            mode => {
                let mut header = header.clone();
                let payload = if mode < 8 {
                    mutate_json(&mut rng, &mut header);
                    payload.clone()
                } else {
                    mutate(&mut rng, &payload, &good)
                };
                kvarn_storage::container_bytes(db::MAGIC, db::VERSION, &header, &payload).unwrap()
            }
        };
        std::fs::write(&path, &bytes).unwrap();
        let whole = n % 50 == 0;
        let result = catch_unwind(AssertUnwindSafe(|| {
            let ok = db::read(dir.path(), &rules, &s, len).is_ok_and(|t| t.is_some());
            if whole && let Ok(d) = Databases::open(dir.path(), rules) {
                let _ = d.load(None);
            }
            ok
        }));
        match result {
            Ok(ok) => read += u64::from(ok),
            Err(_) => panic!("seed {seed} case {n} panicked on {} bytes", bytes.len()),
        }
        n += 1;
    }
    eprintln!(
        "databases: {n} cases ({read} read) in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
