//! Batched analysis: many positions searched together, their leaves evaluated in shared
//! network batches as self-play's are, each answered with the root's win/draw/loss, the
//! move the player would play and the statistics of its best moves (for `kvarn
//! analyze`). Each position gets the search the player's own agent makes
//! ([`SearchPlayer::agent`], limited by simulations), so that where the network's answer
//! for a position does not depend on the batch it comes in, the move is the agent's.

use std::time::{Duration, Instant};

use kvarn_game::{Game, Move};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::agent::SearchPlayer;
use crate::evaluator::{EvalCache, Evaluator};
use crate::search::{Advance, GameSearch, SearchContext};
use crate::tree::flip;

/// One root move's statistics.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MoveLine {
    /// The move, in notation.
    #[serde(rename = "move", serialize_with = "in_notation")]
    pub mv: Move,
    /// Simulations through it.
    pub visits: u32,
    /// The network's probability of it.
    pub prior: f32,
    /// Its win/draw/loss for the player to move at the root; `None` where it was not
    /// visited.
    pub wdl: Option<[f32; 3]>,
}

/// A searched position.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PositionAnalysis {
    /// The root's win/draw/loss for the player to move.
    pub wdl: [f32; 3],
    /// The move the player plays.
    #[serde(serialize_with = "in_notation")]
    pub best: Move,
    /// Simulations made.
    pub simulations: u32,
    /// The best root moves, most visited first (as many as asked for).
    pub moves: Vec<MoveLine>,
}

fn in_notation<S: serde::Serializer>(mv: &Move, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(mv)
}

/// What a batched analysis did.
#[derive(Debug, Clone, Copy, Default)]
pub struct AnalysisStats {
    /// Positions searched.
    pub positions: u64,
    /// Network calls, and the positions they evaluated.
    pub batches: u64,
    /// See [`AnalysisStats::batches`].
    pub evaluations: u64,
    /// Wall time.
    pub elapsed: Duration,
}

impl<E: Evaluator + Clone + Send + Sync + 'static> SearchPlayer<E> {
    /// Searches each of `games`' current positions (none may be over), `together` of
    /// them at a time sharing network batches, reporting `lines` root moves each.
    ///
    /// # Panics
    /// Where a game is over, or the player is limited by time alone (a batch of searches
    /// has one count of simulations).
    pub fn analyze(
        &self,
        games: &[Game],
        together: usize,
        lines: usize,
    ) -> (Vec<PositionAnalysis>, AnalysisStats) {
        let started = Instant::now();
        let mut stats = AnalysisStats::default();
        let Some(first) = games.first() else {
            return (Vec::new(), stats);
        };
        let simulations = self
            .node_limit()
            .expect("an analysis counts simulations (nodes or simulations), not time");
        let ctx = self.context(*first.rules());
        let mut evaluator = self.evaluator().clone();
        let mut cache = EvalCache::new(ctx.config.cache_entries);
        let mut out = Vec::with_capacity(games.len());
        for chunk in games.chunks(together.max(1)) {
            let mut searches: Vec<GameSearch> = chunk
                .iter()
                .map(|g| {
                    assert!(!g.status().is_over(), "analysis of a finished game");
                    let mut s = GameSearch::new(g.clone());
                    s.start(simulations, false);
                    s
                })
                .collect();
            run_together(&ctx, &mut evaluator, &mut cache, &mut searches, &mut stats);
            out.extend(searches.iter().map(|s| report(&ctx, s, lines)));
        }
        stats.positions = out.len() as u64;
        stats.elapsed = started.elapsed();
        (out, stats)
    }
}

/// Advances every search until all are complete, evaluating the leaves that wait in one
/// batch per round.
fn run_together<E: Evaluator>(
    ctx: &SearchContext,
    evaluator: &mut E,
    cache: &mut EvalCache,
    searches: &mut [GameSearch],
    stats: &mut AnalysisStats,
) {
    let input = ctx.input_len();
    let mut features = vec![0f32; searches.len() * input];
    let (mut logits, mut wdl) = (Vec::new(), Vec::new());
    // Random choices are not made without noise and temperature; a generator is needed.
    let mut rng = Pcg64Mcg::seed_from_u64(0);
    let mut done = vec![false; searches.len()];
    loop {
        let mut waiting = Vec::new();
        for (i, (s, done)) in searches.iter_mut().zip(done.iter_mut()).enumerate() {
            if *done {
                continue;
            }
            let row = &mut features[waiting.len() * input..(waiting.len() + 1) * input];
            match s.advance(ctx, cache, &mut rng, row) {
                Advance::NeedsEval => waiting.push(i),
                Advance::Complete => *done = true,
            }
        }
        if waiting.is_empty() {
            return;
        }
        let n = waiting.len();
        evaluator.evaluate(&features[..n * input], n, &mut logits, &mut wdl);
        stats.batches += 1;
        stats.evaluations += n as u64;
        let actions = ctx.actions.len();
        for (row, &i) in waiting.iter().enumerate() {
            let v = [wdl[row * 3], wdl[row * 3 + 1], wdl[row * 3 + 2]];
            searches[i].supply(ctx, cache, &logits[row * actions..(row + 1) * actions], v);
        }
    }
}

/// A complete search's answer: the move its result plays, its root value and its best
/// `lines` moves.
fn report(ctx: &SearchContext, search: &GameSearch, lines: usize) -> PositionAnalysis {
    let mut rng = Pcg64Mcg::seed_from_u64(0);
    let result = search.result(ctx, 0.0, &mut rng);
    let tree = search.tree();
    let root = tree.node(0);
    let moves = search
        .ranked_root_children(ctx)
        .into_iter()
        .take(lines)
        .filter_map(|c| {
            let child = tree.node(c);
            let mv = ctx.actions.decode(usize::from(child.action))?;
            let wdl = (child.visits > 0).then(|| {
                if child.side == root.side {
                    child.mean_wdl()
                } else {
                    flip(child.mean_wdl())
                }
            });
            Some(MoveLine {
                mv,
                visits: child.visits,
                prior: child.prior,
                wdl,
            })
        })
        .collect();
    PositionAnalysis {
        wdl: result.wdl,
        best: ctx.actions.decode(result.action).expect("a legal move"),
        simulations: search.simulations(),
        moves,
    }
}
