//! Fuzzing the model file readers (`file::from_bytes`, which `file::load` uses, for
//! `.kvmodel` and `.safetensors`): random bytes, mutations of valid files (bit flips,
//! changed, inserted and deleted bytes, truncations, splices), and mutations made behind
//! the checksum (the container or the safetensors checksum computed afresh, so that the
//! header, burn's record and the tensors themselves are reached). Each must be loaded or
//! refused, never panic.
//!
//! Runs for a fixed budget: `KVARN_FUZZ_SECONDS` (default 20) from the seed
//! `KVARN_FUZZ_SEED` (default 1); a failing case names its seed and case number.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::{Duration, Instant};

use burn::tensor::Device;
use kvarn_game::{Rules, Variant};
use kvarn_model::{NetConfig, Network, Provenance, file};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde_json::Value;

#[path = "../../testing/fuzz.rs"]
mod fuzz_support;
use fuzz_support::{env_or, mutate, mutate_json};

/// Valid model files: (bytes, whether safetensors).
fn valid_files() -> Vec<(Vec<u8>, bool)> {
    let mut out = Vec::new();
    let configs = [
        NetConfig::Mlp {
            hidden: 8,
            blocks: 1,
            ownership_head: false,
        },
        NetConfig::Graph {
            channels: 4,
            layers: 1,
            value_hidden: 4,
        },
    ];
    for variant in [Variant::Six, Variant::Nine] {
        for config in &configs {
            let net =
                Network::new(Rules::new(variant), config.clone(), 0, &Device::flex()).unwrap();
            for st in [false, true] {
                let bytes =
                    file::to_bytes(&net, &Provenance::default(), st, Path::new("m")).unwrap();
                out.push((bytes, st));
            }
        }
    }
    out
}

/// A `.kvmodel` file changed behind its checksum: its header or its payload.
fn resealed_kvmodel(rng: &mut Pcg64Mcg, good: &[u8], other: &[u8]) -> Vec<u8> {
    let (mut header, payload): (Value, Vec<u8>) = kvarn_storage::parse_container(
        Path::new("m"),
        good,
        file::MODEL_MAGIC,
        "model",
        file::MODEL_FORMAT_VERSION,
    )
    .unwrap();
    let payload = if rng.random_bool(0.5) {
        mutate_json(rng, &mut header);
        payload
    } else {
        mutate(rng, &payload, other)
    };
    kvarn_storage::container_bytes(
        file::MODEL_MAGIC,
        file::MODEL_FORMAT_VERSION,
        &header,
        &payload,
    )
    .unwrap()
}

/// A `.safetensors` file changed behind its checksum: its Kvarn header, or its bytes
/// (tensor table, offsets, data).
fn resealed_safetensors(rng: &mut Pcg64Mcg, good: &[u8], other: &[u8]) -> Vec<u8> {
    let changed = if rng.random_bool(0.4) {
        let st = safetensors::SafeTensors::deserialize(good).unwrap();
        let (_, meta) = safetensors::SafeTensors::read_metadata(good).unwrap();
        let mut metadata = meta.metadata().clone().unwrap();
        let header = metadata.get_mut(file::SAFETENSORS_KEY).unwrap();
        let mut json: Value = serde_json::from_str(header).unwrap();
        mutate_json(rng, &mut json);
        *header = json.to_string();
        safetensors::serialize(st.tensors(), Some(metadata)).unwrap()
    } else {
        mutate(rng, good, other)
    };
    file::reseal_safetensors(&changed).unwrap_or(changed)
}

#[test]
fn model_files_never_panic() {
    let budget = Duration::from_secs(env_or("KVARN_FUZZ_SECONDS", 20));
    let seed = env_or("KVARN_FUZZ_SEED", 1);
    let files = valid_files();
    let device = Device::flex();
    let started = Instant::now();
    let (mut n, mut loaded) = (0u64, 0u64);
    while started.elapsed() < budget {
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ (n << 20) ^ 0x30de1);
        let (good, st) = &files[rng.random_range(0..files.len())];
        let (other, _) = &files[rng.random_range(0..files.len())];
        let bytes = match rng.random_range(0..10) {
            0 => (0..rng.random_range(0..300))
                .map(|_| rng.random())
                .collect(),
            1..=3 => mutate(&mut rng, good, other),
            _ if *st => resealed_safetensors(&mut rng, good, other),
            _ => resealed_kvmodel(&mut rng, good, other),
        };
        let safetensors = if rng.random_bool(0.05) { !st } else { *st };
        let result = catch_unwind(AssertUnwindSafe(|| {
            file::from_bytes(Path::new("fuzz"), bytes.clone(), safetensors, &device).is_ok()
        }));
        match result {
            Ok(ok) => loaded += u64::from(ok),
            Err(_) => panic!(
                "seed {seed} case {n} panicked on a {} file of {} bytes: {:?}",
                if safetensors {
                    "safetensors"
                } else {
                    "kvmodel"
                },
                bytes.len(),
                String::from_utf8_lossy(&bytes[..bytes.len().min(600)])
            ),
        }
        n += 1;
    }
    eprintln!(
        "model files: {n} cases ({loaded} loaded) in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
