//! A network player for matches and the engine protocol: tree search with the network at
//! every move, no noise, the most visited move, limited by simulations, time or both. It
//! implements the `kvarn-arena` agent traits, so matches, benchmarks and Elo treat it like
//! any other player, and [`ProtocolEngine`], so that `kvarn engine --model` serves it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kvarn_arena::ArenaError;
use kvarn_arena::agent::{Agent, AgentFactory};
use kvarn_engine::protocol::{ProtocolEngine, Request};
use kvarn_engine::search::Limits;
use kvarn_game::Outcome;
use kvarn_game::{Game, Move, Rules};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::config::{RootSearch, SearchConfig};
use crate::endgame::Endgame;
use crate::evaluator::{EvalCache, Evaluator};
use crate::search::{Advance, GameSearch, SearchContext, SearchResult};
use crate::tree::{NodeId, flip};

/// Simulations added at a time to a search limited by time or `stop`.
const STEP: u32 = 32;

/// How often a search sends `info` lines through the protocol.
const INFO_EVERY: Duration = Duration::from_millis(500);

/// Makes [`SearchAgent`]s for matches.
pub struct SearchPlayer<E> {
    name: String,
    config: SearchConfig,
    evaluator: E,
    endgame: Option<Arc<Endgame>>,
    limits: Limits,
}

impl<E: Evaluator + Clone + Send + Sync + 'static> SearchPlayer<E> {
    /// A player named `name` searching with `config` (noise is never used in matches),
    /// `config.simulations` per move.
    pub fn new(name: impl Into<String>, config: SearchConfig, evaluator: E) -> SearchPlayer<E> {
        let limits = Limits {
            nodes: Some(u64::from(config.simulations)),
            ..Limits::default()
        };
        SearchPlayer {
            name: name.into(),
            config,
            evaluator,
            endgame: None,
            limits,
        }
    }

    /// The same player with other limits per move: `nodes` counts simulations, and with
    /// `movetime` as well whichever ends first (`depth` is not a limit of this search).
    /// A timed search grows in steps, which Gumbel's halving does not allow: its root is
    /// PUCT.
    pub fn with_limits(mut self, mut limits: Limits) -> SearchPlayer<E> {
        if limits.movetime.is_some() {
            self.config.root = RootSearch::Puct;
        } else if limits.nodes.is_none() {
            limits.nodes = Some(u64::from(self.config.simulations));
        }
        SearchPlayer { limits, ..self }
    }

    /// The same player probing endgame databases: exact leaves, and a root move that
    /// keeps a certain value.
    pub fn with_endgame(self, endgame: Option<Arc<Endgame>>) -> SearchPlayer<E> {
        SearchPlayer { endgame, ..self }
    }

    /// The search context of its agents for `rules`.
    pub(crate) fn context(&self, rules: Rules) -> SearchContext {
        SearchContext::new(rules, self.config.clone()).with_endgame(self.endgame.clone())
    }

    /// Its evaluator.
    pub(crate) fn evaluator(&self) -> &E {
        &self.evaluator
    }

    /// Simulations a move where they alone limit it (`None` with a time limit).
    pub fn node_limit(&self) -> Option<u32> {
        if self.limits.movetime.is_some() {
            return None;
        }
        let nodes = self.limits.nodes?;
        Some(u32::try_from(nodes).unwrap_or(u32::MAX))
    }

    /// One game's agent, its random choices seeded by `game_seed`.
    pub fn agent(&self, rules: Rules, game_seed: u64) -> SearchAgent<E> {
        SearchAgent {
            name: self.name.clone(),
            ctx: Arc::new(self.context(rules)),
            evaluator: self.evaluator.clone(),
            cache: EvalCache::new(self.config.cache_entries),
            rng: Pcg64Mcg::seed_from_u64(game_seed),
            limits: self.limits,
            last: None,
        }
    }
}

impl<E: Evaluator + Clone + Send + Sync + 'static> AgentFactory for SearchPlayer<E> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn build(&self, rules: Rules, game_seed: u64) -> Result<Box<dyn Agent>, ArenaError> {
        Ok(Box::new(self.agent(rules, game_seed)))
    }
}

/// One game's network player.
pub struct SearchAgent<E> {
    name: String,
    ctx: Arc<SearchContext>,
    evaluator: E,
    cache: EvalCache,
    rng: Pcg64Mcg,
    limits: Limits,
    /// The last search, by position: `outcome` and `choose` on one position (as the
    /// solver benchmark asks) search once.
    last: Option<(PositionKey, SearchResult)>,
}

/// What identifies a position within a game: its key, the ply and how often it occurred.
type PositionKey = (u64, usize, u32);

impl<E: Evaluator> SearchAgent<E> {
    /// The search of `game`'s position, reused when asked twice in a row.
    fn search(&mut self, game: &Game) -> SearchResult {
        let key = (game.position().key(), game.ply(), game.occurrences());
        if let Some((k, result)) = &self.last
            && *k == key
        {
            return result.clone();
        }
        let result = self.limited_search(game, &Request::within(self.limits), None, None);
        self.last = Some((key, result.clone()));
        result
    }

    /// Searches `game` until the request's limits (simulations, time) or `stop` end it,
    /// among its `searchmoves` where it names some, calling `info` with its `multipv`
    /// lines about every [`INFO_EVERY`] and once at the end. With no limit it runs until
    /// `stop`.
    ///
    /// # Panics
    /// Where `game` is over (there is nothing to search).
    pub fn limited_search(
        &mut self,
        game: &Game,
        request: &Request,
        stop: Option<&AtomicBool>,
        mut info: Option<&mut dyn FnMut(&str)>,
    ) -> SearchResult {
        let limits = request.limits;
        let started = Instant::now();
        let mut cap = limits.nodes.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        if self.ctx.config.root == RootSearch::Gumbel {
            // Gumbel's halving is planned for a fixed number of simulations: it cannot grow.
            cap = Some(cap.unwrap_or(self.ctx.config.simulations));
        }
        let grows = (limits.movetime.is_some() || cap.is_none())
            && self.ctx.config.root != RootSearch::Gumbel;
        let mut search = GameSearch::new(game.clone());
        search.restrict_root(
            request
                .searchmoves
                .iter()
                .map(|&m| self.ctx.actions.index(m) as u16)
                .collect(),
        );
        search.start(
            if grows {
                cap.unwrap_or(STEP).min(STEP)
            } else {
                cap.unwrap_or(1)
            },
            false,
        );
        let mut features = vec![0f32; self.ctx.input_len()];
        let (mut logits, mut wdl) = (Vec::new(), Vec::new());
        let mut next_info = INFO_EVERY;
        loop {
            match search.advance(&self.ctx, &mut self.cache, &mut self.rng, &mut features) {
                Advance::NeedsEval => {
                    self.evaluator.evaluate(&features, 1, &mut logits, &mut wdl);
                    let wdl = [wdl[0], wdl[1], wdl[2]];
                    search.supply(&self.ctx, &mut self.cache, &logits, wdl);
                }
                Advance::Complete if search.saturated() => {
                    // Nothing more to count: an analysis without limits waits for `stop`.
                    if cap.is_none() && limits.movetime.is_none() {
                        while !stop.is_none_or(|s| s.load(Ordering::Relaxed)) {
                            std::thread::sleep(Duration::from_millis(10));
                        }
                    }
                    break;
                }
                Advance::Complete => {
                    let left = cap.map_or(STEP, |n| n.saturating_sub(search.simulations()));
                    if !grows || left == 0 || search.tree().node(0).children <= 1 {
                        break;
                    }
                    search.extend(left.min(STEP));
                }
            }
            let elapsed = started.elapsed();
            if limits.movetime.is_some_and(|t| elapsed >= t)
                || stop.is_some_and(|s| s.load(Ordering::Relaxed))
            {
                break;
            }
            if let Some(f) = info.as_mut()
                && elapsed >= next_info
            {
                for line in info_lines(&self.ctx, &search, elapsed, request.multipv) {
                    f(&line);
                }
                next_info += INFO_EVERY;
            }
        }
        if let Some(f) = info.as_mut() {
            for line in info_lines(&self.ctx, &search, started.elapsed(), request.multipv) {
                f(&line);
            }
        }
        search.result(&self.ctx, 0.0, &mut self.rng)
    }

    fn decode(&self, result: &SearchResult) -> Result<Move, ArenaError> {
        self.ctx
            .actions
            .decode(result.action)
            .ok_or_else(|| ArenaError::Play {
                agent: self.name.clone(),
                reason: format!(
                    "the search chose action {}, which is no move",
                    result.action
                ),
            })
    }
}

/// The protocol's `info` lines for a search standing at its root: with `multipv` 1 one
/// line for the search (simulations as nodes, the principal variation by visits, the
/// root's value as a score in centipawns, Leela Chess Zero's mapping of an expected score
/// to pawns, and as win/draw/loss per mille); with more, one `multipv K` line for each
/// of the K most visited root moves (those visited, best first), each with its own
/// score, win/draw/loss, visits, prior, value (expected score, -1 to 1) and lower
/// confidence bound, and its own principal variation.
fn info_lines(
    ctx: &SearchContext,
    search: &GameSearch,
    elapsed: Duration,
    multipv: usize,
) -> Vec<String> {
    let tree = search.tree();
    let nodes = search.simulations();
    let ms = elapsed.as_millis().max(1);
    // The share of the tree's budget in use, per mille, as engines report their hash.
    let full = (tree.nodes.len() as u128 * 1000 / tree.max_nodes.max(1) as u128).min(1000);
    let head = format!(
        "nodes {nodes} nps {} hashfull {full} time {}",
        u128::from(nodes) * 1000 / ms,
        elapsed.as_millis()
    );
    if multipv <= 1 {
        let pv = principal_variation(ctx, search, 0);
        let wdl = tree.node(0).mean_wdl();
        return vec![format!(
            "info depth {} {head} {} pv {}",
            pv.len(),
            score_words(wdl),
            pv.join(" ")
        )];
    }
    let root = tree.node(0);
    search
        .ranked_root_children(ctx)
        .into_iter()
        .filter(|&c| tree.node(c).visits > 0)
        .take(multipv)
        .enumerate()
        .map(|(k, c)| {
            let child = tree.node(c);
            let wdl = if child.side == root.side {
                child.mean_wdl()
            } else {
                flip(child.mean_wdl())
            };
            let draw = 0.0;
            let mut pv = vec![ctx.actions.decode(usize::from(child.action)).map_or_else(String::new, |m| m.to_string())];
            pv.extend(principal_variation(ctx, search, c));
            format!(
                "info multipv {} depth {} {head} {} visits {} prior {:.4} value {:.4} lcb {:.4} pv {}",
                k + 1,
                pv.len(),
                score_words(wdl),
                child.visits,
                child.prior,
                child.q_for(root.side, draw),
                child.lower_bound(root.side, draw, ctx.config.lcb_stdevs),
                pv.join(" ")
            )
        })
        .collect()
}

/// The most visited line below node `id`, as moves.
fn principal_variation(ctx: &SearchContext, search: &GameSearch, mut id: NodeId) -> Vec<String> {
    let tree = search.tree();
    let mut pv = Vec::new();
    while let Some(best) = search.most_visited_child(ctx, id) {
        if tree.node(best).visits == 0 {
            break;
        }
        match ctx.actions.decode(usize::from(tree.node(best).action)) {
            Some(m) => pv.push(m.to_string()),
            None => break,
        }
        id = best;
    }
    pv
}

/// `score cp X wdl W D L` for a win/draw/loss of the player to move.
fn score_words(wdl: [f32; 3]) -> String {
    let [w, _, l] = wdl;
    let q = (w - l).clamp(-0.999, 0.999);
    let cp = (90.0 * (1.563_754_2 * q).tan()).round() as i64;
    let permille = |x: f32| (x * 1000.0).round() as i64;
    let (w, l) = (permille(w), permille(l));
    format!("score cp {cp} wdl {w} {} {l}", 1000 - w - l)
}

impl<E: Evaluator + Send> Agent for SearchAgent<E> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) -> Result<(), ArenaError> {
        self.last = None;
        Ok(())
    }

    fn choose(&mut self, game: &Game) -> Result<Move, ArenaError> {
        let result = self.search(game);
        self.decode(&result)
    }

    fn outcome(&mut self, game: &Game) -> Result<Option<Outcome>, ArenaError> {
        Ok(Some(Outcome::named_by(self.search(game).wdl)))
    }
}

impl<E: Evaluator + Send> ProtocolEngine for SearchAgent<E> {
    fn rules(&self) -> Rules {
        self.ctx.rules
    }

    fn new_game(&mut self) {
        self.last = None;
        self.cache.clear();
    }

    fn search(
        &mut self,
        game: &Game,
        request: &Request,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&str),
    ) -> Option<Move> {
        if game.status().is_over() {
            return None;
        }
        let mut request = request.clone();
        let limits = &mut request.limits;
        if limits.depth.is_some() && limits.nodes.is_none() && limits.movetime.is_none() {
            // A tree search has no depth to stop at: it makes its default simulations.
            info("info string depth is no limit of the network's search: searching by nodes");
            limits.nodes = Some(u64::from(self.ctx.config.simulations));
        }
        let result = self.limited_search(game, &request, Some(stop), Some(info));
        self.decode(&result).ok()
    }
}
