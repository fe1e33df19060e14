//! A network player for matches: tree search with the network at every move, no noise,
//! the most visited move. It implements the `kvarn-eval` agent traits, so matches,
//! benchmarks and Elo treat it like any other player.

use std::sync::Arc;

use kvarn_eval::EvalError;
use kvarn_eval::agent::Outcome;
use kvarn_eval::agent::{Agent, AgentFactory};
use kvarn_game::{Game, Move, Rules};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::config::SearchConfig;
use crate::endgame::Endgame;
use crate::evaluator::{EvalCache, Evaluator};
use crate::search::{Advance, GameSearch, SearchContext, SearchResult};

/// Makes [`SearchAgent`]s for matches.
pub struct SearchPlayer<E> {
    name: String,
    config: SearchConfig,
    evaluator: E,
    endgame: Option<Arc<Endgame>>,
}

impl<E: Evaluator + Clone + Send + Sync + 'static> SearchPlayer<E> {
    /// A player named `name` searching with `config` (noise is never used in matches).
    pub fn new(name: impl Into<String>, config: SearchConfig, evaluator: E) -> SearchPlayer<E> {
        SearchPlayer {
            name: name.into(),
            config,
            evaluator,
            endgame: None,
        }
    }

    /// The same player probing endgame databases: exact leaves, and a root move that
    /// keeps a certain value.
    pub fn with_endgame(self, endgame: Option<Arc<Endgame>>) -> SearchPlayer<E> {
        SearchPlayer { endgame, ..self }
    }
}

impl<E: Evaluator + Clone + Send + Sync + 'static> AgentFactory for SearchPlayer<E> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn build(&self, rules: Rules, game_seed: u64) -> Result<Box<dyn Agent>, EvalError> {
        Ok(Box::new(SearchAgent {
            name: self.name.clone(),
            ctx: Arc::new(
                SearchContext::new(rules, self.config.clone()).with_endgame(self.endgame.clone()),
            ),
            evaluator: self.evaluator.clone(),
            cache: EvalCache::new(self.config.cache_entries.min(100_000)),
            rng: Pcg64Mcg::seed_from_u64(game_seed),
            last: None,
        }))
    }
}

/// One game's network player.
pub struct SearchAgent<E> {
    name: String,
    ctx: Arc<SearchContext>,
    evaluator: E,
    cache: EvalCache,
    rng: Pcg64Mcg,
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
        let result = self.fresh_search(game);
        self.last = Some((key, result.clone()));
        result
    }

    fn fresh_search(&mut self, game: &Game) -> SearchResult {
        let mut search = GameSearch::new(game.clone());
        search.start(self.ctx.config.simulations, false);
        let mut features = vec![0f32; self.ctx.input_len()];
        let (mut logits, mut wdl) = (Vec::new(), Vec::new());
        while let Advance::NeedsEval =
            search.advance(&self.ctx, &mut self.cache, &mut self.rng, &mut features)
        {
            self.evaluator.evaluate(&features, 1, &mut logits, &mut wdl);
            search.supply(
                &self.ctx,
                &mut self.cache,
                &logits,
                [wdl[0], wdl[1], wdl[2]],
            );
        }
        search.result(&self.ctx, 0.0, &mut self.rng)
    }
}

impl<E: Evaluator + Send> Agent for SearchAgent<E> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) -> Result<(), EvalError> {
        self.last = None;
        Ok(())
    }

    fn choose(&mut self, game: &Game) -> Result<Move, EvalError> {
        let result = self.search(game);
        self.ctx
            .actions
            .decode(result.action)
            .ok_or_else(|| EvalError::Play {
                agent: self.name.clone(),
                reason: format!(
                    "the search chose action {}, which is no move",
                    result.action
                ),
            })
    }

    fn outcome(&mut self, game: &Game) -> Result<Option<Outcome>, EvalError> {
        let wdl = self.search(game).wdl;
        let best = (0..3)
            .max_by(|&a, &b| wdl[a].total_cmp(&wdl[b]))
            .unwrap_or(1);
        Ok(Some([Outcome::Win, Outcome::Draw, Outcome::Loss][best]))
    }
}
