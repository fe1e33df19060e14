//! What the fuzz targets of every crate share: the budget and seed from the environment,
//! and the mutations of bytes and of JSON that turn valid inputs into nearly valid ones.
//! Each target includes this file (`#[path = "../../testing/fuzz.rs"] mod
//! fuzz_support;`), so that there is one copy; a target uses what it needs.
#![allow(dead_code)]

use rand::RngExt;
use rand_pcg::Pcg64Mcg;
use serde_json::Value;

/// The number in environment variable `name` (a budget in seconds, a seed), else `default`.
pub fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `input` changed by one to four random edits; `other` is spliced from.
pub fn mutate(rng: &mut Pcg64Mcg, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let at = rng.random_range(0..=v.len());
        match rng.random_range(0..7) {
            0 if at < v.len() => v[at] ^= 1 << rng.random_range(0..8),
            1 if at < v.len() => v[at] = rng.random(),
            2 => v.truncate(at),
            3 => {
                let end = rng.random_range(at..=v.len().min(at + 64));
                v.drain(at..end);
            }
            4 => {
                let bytes: Vec<u8> = (0..rng.random_range(1..8)).map(|_| rng.random()).collect();
                v.splice(at..at, bytes);
            }
            5 => {
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

/// A JSON value with one leaf replaced, removed, or a key added. Numbers stay small or
/// far out of range, so that no mutated network is big enough to fill the memory.
pub fn mutate_json(rng: &mut Pcg64Mcg, v: &mut Value) {
    fn replacement(rng: &mut Pcg64Mcg) -> Value {
        let options = [
            "0",
            "1",
            "2",
            "3",
            "7",
            "-1",
            "1e12",
            "4294967297",
            "\"x\"",
            "null",
            "true",
            "[]",
            "{}",
            "\"six\"",
            "\"nine\"",
            "\"five\"",
            "\"mlp\"",
            "\"graph\"",
            "1.5",
        ];
        serde_json::from_str(options[rng.random_range(0..options.len())]).unwrap()
    }
    match v {
        Value::Object(map) if !map.is_empty() => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let k = &keys[rng.random_range(0..keys.len())];
            match rng.random_range(0..6) {
                0 => {
                    map.remove(k);
                }
                1 => {
                    map.insert("extra".into(), replacement(rng));
                }
                _ => mutate_json(rng, map.get_mut(k).unwrap()),
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let i = rng.random_range(0..items.len());
            mutate_json(rng, &mut items[i]);
        }
        _ => *v = replacement(rng),
    }
}
