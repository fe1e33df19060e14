//! What the search asks of a network, and the cache in front of it.

use std::collections::HashMap;

use rustc_hash::FxBuildHasher;

use kvarn_model::Inference;

/// Evaluates batches of encoded positions. The search only needs this, so tests can give
/// it a uniform or scripted evaluator, and front ends any network they like.
pub trait Evaluator {
    /// Input features per position.
    fn input_len(&self) -> usize;
    /// Policy logits per position (the action space's size).
    fn actions(&self) -> usize;
    /// Evaluates `batch` positions (`features` row-major): writes policy logits
    /// (`batch × actions`, illegal entries ignored by the caller) and win/draw/loss
    /// probabilities for the player to move (`batch × 3`).
    fn evaluate(
        &mut self,
        features: &[f32],
        batch: usize,
        logits: &mut Vec<f32>,
        wdl: &mut Vec<f32>,
    );
}

impl Evaluator for Inference {
    fn input_len(&self) -> usize {
        self.network().dims().input
    }
    fn actions(&self) -> usize {
        self.network().dims().actions
    }
    fn evaluate(
        &mut self,
        features: &[f32],
        batch: usize,
        logits: &mut Vec<f32>,
        wdl: &mut Vec<f32>,
    ) {
        self.evaluate_into(features, batch, logits, wdl);
    }
}

/// Equal logits for every action and an even win/draw/loss: a search with it is driven by
/// the rules alone (terminal positions), which is what the tactical tests want.
#[derive(Debug, Clone)]
pub struct UniformEvaluator {
    /// Input features per position.
    pub input_len: usize,
    /// Actions.
    pub actions: usize,
}

impl Evaluator for UniformEvaluator {
    fn input_len(&self) -> usize {
        self.input_len
    }
    fn actions(&self) -> usize {
        self.actions
    }
    fn evaluate(&mut self, _: &[f32], batch: usize, logits: &mut Vec<f32>, wdl: &mut Vec<f32>) {
        logits.clear();
        logits.resize(batch * self.actions, 0.0);
        wdl.clear();
        for _ in 0..batch {
            wdl.extend_from_slice(&[1.0 / 3.0; 3]);
        }
    }
}

/// A network result kept for a canonical position: the logits of its legal actions (in
/// the canonical frame) and its win/draw/loss.
#[derive(Debug, Clone, Copy)]
pub struct CachedEval<'a> {
    /// `(canonical action, logit)` for each legal action.
    pub logits: &'a [(u16, f32)],
    /// Win/draw/loss for the player to move.
    pub wdl: [f32; 3],
}

/// Network results by canonical position (and the counters the encoding reads). Entries
/// live in one arena, so keeping one allocates nothing; when full, the cache is emptied,
/// which costs re-evaluations but never a wrong answer.
#[derive(Debug, Default)]
pub struct EvalCache {
    map: HashMap<u128, (u32, u16, [f32; 3]), FxBuildHasher>,
    arena: Vec<(u16, f32)>,
    capacity: usize,
    /// Lookups answered.
    pub hits: u64,
    /// Lookups not answered.
    pub misses: u64,
}

impl EvalCache {
    /// A cache holding at most `capacity` results (0: no caching).
    pub fn new(capacity: usize) -> EvalCache {
        EvalCache {
            map: HashMap::with_capacity_and_hasher(capacity.min(1 << 16), FxBuildHasher),
            arena: Vec::new(),
            capacity,
            hits: 0,
            misses: 0,
        }
    }

    /// The result for `key`, if kept.
    pub fn get(&mut self, key: u128) -> Option<CachedEval<'_>> {
        match self.map.get(&key) {
            Some(&(at, len, wdl)) => {
                self.hits += 1;
                Some(CachedEval {
                    logits: &self.arena[at as usize..at as usize + usize::from(len)],
                    wdl,
                })
            }
            None => {
                self.misses += 1;
                None
            }
        }
    }

    /// Forgets every result (a new game of the engine protocol).
    pub fn clear(&mut self) {
        self.map.clear();
        self.arena.clear();
    }

    /// Keeps a result.
    pub fn insert(&mut self, key: u128, logits: &[(u16, f32)], wdl: [f32; 3]) {
        if self.capacity == 0 {
            return;
        }
        if self.map.len() >= self.capacity || self.arena.len() + logits.len() > u32::MAX as usize {
            self.map.clear();
            self.arena.clear();
        }
        let at = self.arena.len() as u32;
        self.arena.extend_from_slice(logits);
        self.map.insert(key, (at, logits.len() as u16, wdl));
    }
}
