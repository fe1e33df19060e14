//! Inference throughput: evaluations per second by batch size, the figure that decides
//! whether the network or the tree search is self-play's bottleneck.

use std::time::{Duration, Instant};

use crate::inference::Inference;

/// One measured batch size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Throughput {
    /// Positions per call.
    pub batch: usize,
    /// Calls made.
    pub calls: usize,
    /// Positions evaluated per second.
    pub evals_per_second: f64,
    /// Mean time per call.
    pub call: Duration,
}

/// `n` pseudo-random values in [0, 1) from a xorshift generator seeded with `seed`:
/// benchmark inputs, the same on every run.
pub fn pseudo_random_inputs(n: usize, seed: u32) -> Vec<f32> {
    let mut state = seed | 1;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state >> 8) as f32 / (1 << 24) as f32
        })
        .collect()
}

/// Evaluates batches of pseudo-random inputs for about `time` per batch size, outputs
/// copied back to the CPU as self-play uses them, after a short warm-up.
pub fn inference(engine: &Inference, batches: &[usize], time: Duration) -> Vec<Throughput> {
    let input = engine.network().dims().input;
    let (mut logits, mut wdl) = (Vec::new(), Vec::new());
    batches
        .iter()
        .map(|&batch| {
            let features = pseudo_random_inputs(batch * input, 0x9e37_79b9);
            for _ in 0..3 {
                engine.evaluate_into(&features, batch, &mut logits, &mut wdl);
                std::hint::black_box(&logits);
            }
            let start = Instant::now();
            let mut calls = 0;
            while calls < 3 || start.elapsed() < time {
                engine.evaluate_into(&features, batch, &mut logits, &mut wdl);
                std::hint::black_box(&logits);
                calls += 1;
            }
            let elapsed = start.elapsed();
            Throughput {
                batch,
                calls,
                evals_per_second: (batch * calls) as f64 / elapsed.as_secs_f64(),
                call: elapsed / calls as u32,
            }
        })
        .collect()
}
