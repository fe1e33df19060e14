//! Fuzzing the self-play shard reader (`read_shard`): random bytes, mutations of valid
//! shards (bit flips, changed, inserted and deleted bytes, truncations, splices), and
//! mutations made behind the checksum (the container written afresh around a changed
//! header or changed samples), so that the sample decoder and the header checks are
//! reached. Each must be read or refused, never panic.
//!
//! Runs for a fixed budget: `KVARN_FUZZ_SECONDS` (default 20) from the seed
//! `KVARN_FUZZ_SEED` (default 1); a failing case names its seed and case number.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use kvarn_game::{ActionSpace, ENCODING_VERSION, Game, Rules, Variant};
use kvarn_selfplay::shard::{GameSummary, SHARD_FORMAT_VERSION, SHARD_MAGIC};
use kvarn_selfplay::{Sample, ShardHeader, read_shard, write_shard};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde_json::Value;

#[path = "../../testing/fuzz.rs"]
mod fuzz_support;
use fuzz_support::{env_or, mutate, mutate_json};

/// A valid shard's header and payload: samples of random games of `rules`.
fn valid_shard(rng: &mut Pcg64Mcg, rules: Rules) -> (Value, Vec<u8>) {
    let space = ActionSpace::new(&rules);
    let mut samples = Vec::new();
    let mut game_list = Vec::new();
    for index in 0..rng.random_range(1..4u64) {
        let mut g = Game::new(rules);
        let mut n = 0u32;
        for _ in 0..rng.random_range(1..40) {
            let legal = g.legal_moves();
            if legal.is_empty() {
                break;
            }
            let p = 1.0 / legal.len() as f32;
            samples.push(Sample {
                position: *g.position(),
                occurrences: g.occurrences().min(255) as u8,
                full_search: rng.random_bool(0.5),
                result: rng.random_range(-1..=1),
                search_wdl: [0.5, 0.25, 0.25],
                policy: legal.iter().map(|&m| (space.index(m) as u16, p)).collect(),
                explored: rng.random_bool(0.2),
                surprise: rng.random_range(0.0..3.0),
            });
            n += 1;
            g.play_unchecked(legal[rng.random_range(0..legal.len())]);
        }
        game_list.push(GameSummary {
            index,
            result: 0,
            plies: g.ply() as u32,
            samples: n,
            final_men: Some(kvarn_game::Color::BOTH.map(|c| g.position().men(c).bits())),
        });
    }
    let header = ShardHeader {
        encoding_version: ENCODING_VERSION,
        rules,
        games: game_list.len() as u32,
        samples: samples.len() as u64,
        game_list,
        model: "m.kvmodel".into(),
        source: Default::default(),
        seed: None,
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.kvsp");
    write_shard(&path, &header, &samples).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let (header, payload): (Value, Vec<u8>) =
        kvarn_storage::parse_container(&path, &bytes, SHARD_MAGIC, "shard", SHARD_FORMAT_VERSION)
            .unwrap();
    (header, payload)
}

#[test]
fn shards_never_panic() {
    let budget = Duration::from_secs(env_or("KVARN_FUZZ_SECONDS", 20));
    let seed = env_or("KVARN_FUZZ_SEED", 1);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let bases: Vec<(Value, Vec<u8>)> = (0..12)
        .map(|i| valid_shard(&mut rng, Rules::new(Variant::ALL[i % Variant::ALL.len()])))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fuzz.kvsp");
    let started = Instant::now();
    let (mut n, mut read) = (0u64, 0u64);
    while started.elapsed() < budget {
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ (n << 20) ^ 0x5a4d);
        let (header, payload) = &bases[rng.random_range(0..bases.len())];
        let (_, other) = &bases[rng.random_range(0..bases.len())];
        let whole =
            kvarn_storage::container_bytes(SHARD_MAGIC, SHARD_FORMAT_VERSION, header, payload)
                .unwrap();
        let bytes = match rng.random_range(0..10) {
            0 => (0..rng.random_range(0..200))
                .map(|_| rng.random())
                .collect(),
            1 | 2 => mutate(&mut rng, &whole, other),
            // Behind the checksum: the header or the samples.
            mode => {
                let mut header = header.clone();
                let payload = if mode < 5 {
                    mutate_json(&mut rng, &mut header);
                    payload.clone()
                } else {
                    mutate(&mut rng, payload, other)
                };
                kvarn_storage::container_bytes(SHARD_MAGIC, SHARD_FORMAT_VERSION, &header, &payload)
                    .unwrap()
            }
        };
        std::fs::write(&path, &bytes).unwrap();
        match catch_unwind(AssertUnwindSafe(|| read_shard(&path).is_ok())) {
            Ok(ok) => read += u64::from(ok),
            Err(_) => panic!(
                "seed {seed} case {n} panicked on {} bytes: {:?}",
                bytes.len(),
                String::from_utf8_lossy(&bytes[..bytes.len().min(600)])
            ),
        }
        n += 1;
    }
    eprintln!(
        "shards: {n} cases ({read} read) in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
