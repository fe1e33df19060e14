//! What the search asks of a network, and the cache in front of it.

use std::collections::HashMap;

use rustc_hash::FxBuildHasher;

use kvarn_game::{ActionSpace, Rules, SYMMETRY_COUNT, encoding};
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

/// An evaluator that answers for a position with the mean over several of its symmetric
/// images: win/draw/loss and policy logits (mapped back to the position's frame) averaged,
/// as Leela Zero and KataGo can at play time. A network trained on random symmetries still
/// answers each image a little differently; the mean has less of that noise, at the cost
/// of one evaluation per image.
#[derive(Debug, Clone)]
pub struct SymmetryAveraged<E> {
    inner: E,
    /// `features[k][i]`: where input feature `i` goes in image `k`.
    features: Vec<Vec<usize>>,
    /// `actions[k][a]`: the index of action `a` in image `k`.
    actions: Vec<Vec<usize>>,
    scratch: Scratch,
}

/// Buffers of the images' batch, kept between calls.
#[derive(Debug, Clone, Default)]
struct Scratch {
    features: Vec<f32>,
    logits: Vec<f32>,
    wdl: Vec<f32>,
}

impl<E: Evaluator> SymmetryAveraged<E> {
    /// `inner` answering for the mean of the first `images` symmetries (1 to 16, in the
    /// board's order: 4 are the rotations, 8 add the reflections, 16 the swap of the inner
    /// and outer ring); 1 is `inner` alone.
    ///
    /// # Panics
    /// If `images` is not in 1..=16.
    pub fn new(inner: E, rules: &Rules, images: usize) -> SymmetryAveraged<E> {
        assert!(
            (1..=SYMMETRY_COUNT).contains(&images),
            "symmetry images must be 1 to {SYMMETRY_COUNT}"
        );
        let space = ActionSpace::new(rules);
        SymmetryAveraged {
            features: (0..images)
                .map(|s| encoding::feature_permutation(rules, s))
                .collect(),
            actions: (0..images).map(|s| space.symmetry_permutation(s)).collect(),
            inner,
            scratch: Scratch::default(),
        }
    }

    /// The images averaged.
    pub fn images(&self) -> usize {
        self.features.len()
    }

    /// The features of every image of every position: image `k` of position `b` at row
    /// `b * images + k`.
    fn fill_images(&mut self, features: &[f32], batch: usize) {
        let len = self.inner.input_len();
        let images = self.images();
        let out = &mut self.scratch.features;
        out.clear();
        out.resize(batch * images * len, 0.0);
        for (b, row) in features.chunks_exact(len).take(batch).enumerate() {
            for (k, perm) in self.features.iter().enumerate() {
                let image = &mut out[(b * images + k) * len..][..len];
                for (&x, &to) in row.iter().zip(perm) {
                    image[to] = x;
                }
            }
        }
    }
}

impl<E: Evaluator> Evaluator for SymmetryAveraged<E> {
    fn input_len(&self) -> usize {
        self.inner.input_len()
    }
    fn actions(&self) -> usize {
        self.inner.actions()
    }
    fn evaluate(
        &mut self,
        features: &[f32],
        batch: usize,
        logits: &mut Vec<f32>,
        wdl: &mut Vec<f32>,
    ) {
        let images = self.images();
        if images == 1 {
            return self.inner.evaluate(features, batch, logits, wdl);
        }
        self.fill_images(features, batch);
        let Scratch {
            features: image_features,
            logits: image_logits,
            wdl: image_wdl,
        } = &mut self.scratch;
        self.inner
            .evaluate(image_features, batch * images, image_logits, image_wdl);
        self.mean_of_images(batch, logits, wdl);
    }
}

impl<E: Evaluator> SymmetryAveraged<E> {
    /// Each position's answer: the mean of its images' answers in the scratch buffers,
    /// their logits read through the images' action permutations.
    fn mean_of_images(&self, batch: usize, logits: &mut Vec<f32>, wdl: &mut Vec<f32>) {
        let (images, actions) = (self.images(), self.inner.actions());
        let share = 1.0 / images as f32;
        logits.clear();
        logits.resize(batch * actions, 0.0);
        wdl.clear();
        wdl.resize(batch * 3, 0.0);
        for b in 0..batch {
            let mean_logits = &mut logits[b * actions..][..actions];
            for (k, perm) in self.actions.iter().enumerate() {
                let row = b * images + k;
                let image = &self.scratch.logits[row * actions..][..actions];
                for (mean, &at) in mean_logits.iter_mut().zip(perm) {
                    *mean += image[at] * share;
                }
                let image_wdl = &self.scratch.wdl[row * 3..][..3];
                for (mean, &x) in wdl[b * 3..][..3].iter_mut().zip(image_wdl) {
                    *mean += x * share;
                }
            }
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
