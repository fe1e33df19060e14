//! One game's tree search, written as a state machine so that a thread can interleave many
//! of them and evaluate all their leaves in one network batch.
//!
//! [`GameSearch::advance`] runs simulations until one needs the network (it returns the
//! leaf's request and waits, the game standing at the leaf) or the search is complete;
//! [`GameSearch::supply`] expands the leaf with the network's answer. Leaves that are
//! terminal or already in the cache are resolved on the spot. A search never depends on
//! which other searches share its batches, so batched and one-at-a-time searches with the
//! same seed choose the same moves.

use kvarn_game::{ActionSpace, Color, Game, Position, Rules, Status, encoding};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, Gamma};

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::{
    ForcedScope, LCB_MIN_VISIT_SHARE, MoveChoice, RootSearch, RootValue, SearchConfig,
};
use crate::endgame::Endgame;
use crate::evaluator::{CachedEval, EvalCache};
use crate::tree::{NodeId, NodeState, Tree, flip};

/// Tables shared by every search of one rule set.
#[derive(Debug)]
pub struct SearchContext {
    /// The rules.
    pub rules: Rules,
    /// The action space.
    pub actions: ActionSpace,
    /// Settings.
    pub config: SearchConfig,
    /// `perms[s][a]`: action `a` under symmetry `s`.
    perms: Vec<Vec<u16>>,
    /// Endgame databases probed at new leaves and at the root, if any.
    pub endgame: Option<Arc<Endgame>>,
}

impl SearchContext {
    /// Tables for `rules` and `config`.
    pub fn new(rules: Rules, config: SearchConfig) -> SearchContext {
        let actions = ActionSpace::new(&rules);
        let perms = (0..kvarn_game::SYMMETRY_COUNT)
            .map(|s| {
                actions
                    .symmetry_permutation(s)
                    .into_iter()
                    .map(|a| a as u16)
                    .collect()
            })
            .collect();
        SearchContext {
            rules,
            actions,
            config,
            perms,
            endgame: None,
        }
    }

    /// The same context with endgame databases to probe.
    pub fn with_endgame(self, endgame: Option<Arc<Endgame>>) -> SearchContext {
        SearchContext { endgame, ..self }
    }

    /// Input features per position.
    pub fn input_len(&self) -> usize {
        encoding::input_len(&self.rules)
    }
}

/// A leaf waiting for the network: its features go into the batch.
#[derive(Debug, Clone)]
pub struct Request {
    /// Cache key of the leaf.
    key: u128,
    /// Symmetry that maps the leaf onto its canonical form (features are of that form).
    sym: usize,
}

/// What [`GameSearch::advance`] stopped at.
#[derive(Debug)]
pub enum Advance {
    /// A leaf needs the network; its features were written to the buffer given.
    NeedsEval,
    /// The search has used its simulations; call [`GameSearch::result`].
    Complete,
}

/// The result of a finished search.
#[derive(Debug, Clone)]
pub struct SearchResult {
    /// Move chosen (action index).
    pub action: usize,
    /// Policy target: `(action, probability)` over the root's legal actions.
    pub policy: Vec<(u16, f32)>,
    /// Root value (win/draw/loss for the player to move) after the search.
    pub wdl: [f32; 3],
    /// Simulations made.
    pub simulations: u32,
    /// Whether the temperature drew another move than the most visited one, worse by the
    /// search's values by more than `search.explored_value_gap`.
    pub explored: bool,
    /// How much the search taught the network here: the Kullback-Leibler divergence (nats)
    /// of the policy target from the network's own prior at the root, before any noise.
    /// Training can draw such positions more often (`train.policy_surprise_share`).
    pub surprise: f32,
}

/// Sequential-halving state of a Gumbel root.
#[derive(Debug, Clone, Default)]
struct GumbelRoot {
    /// Gumbel noise per root child (0 without noise).
    gumbel: Vec<f32>,
    /// Root children still considered (child offsets).
    remaining: Vec<usize>,
    /// Root children to simulate next, in order (child offsets).
    queue: Vec<usize>,
    /// Phases of halving in all, and done.
    phases: u32,
    phase: u32,
}

/// The search of one game's current position.
#[derive(Debug)]
pub struct GameSearch {
    /// The game; it stands at the root between simulations, at the leaf while waiting.
    pub game: Game,
    tree: Tree,
    path: Vec<NodeId>,
    waiting: Option<Request>,
    simulations: u32,
    target: u32,
    noise: bool,
    gumbel: Option<GumbelRoot>,
    root_ready: bool,
    /// The game's ply at the root: repetitions from here on are inside the searched line.
    root_ply: usize,
    /// Reused buffers: edges of a node being expanded, logits by canonical action.
    edges: Vec<(u16, f32)>,
    entry: Vec<(u16, f32)>,
    scratch: Vec<f32>,
    /// Time spent preparing leaves for the network (symmetry key, cache probe, encoding)
    /// since [`GameSearch::take_leaf_time`] last took it: one leaf in
    /// [`LEAF_TIME_SAMPLE`] is timed, and counts for them all, so that reading the clock
    /// costs little.
    leaf_time: Duration,
    /// Leaves prepared, for the sampling of `leaf_time`.
    leaves: u32,
    /// The root's actions the search chooses among (`go searchmoves`); all where `None`.
    root_actions: Option<Vec<u16>>,
}

/// One leaf in this many has its preparation timed ([`GameSearch::take_leaf_time`]).
const LEAF_TIME_SAMPLE: u32 = 8;

/// The time since `started`, for all the leaves it stands for (none where it is `None`).
fn sampled(started: Option<Instant>) -> Duration {
    started.map_or(Duration::ZERO, |t| t.elapsed() * LEAF_TIME_SAMPLE)
}

/// A certain draw as win/draw/loss.
const DRAW: [f32; 3] = [0.0, 1.0, 0.0];

fn terminal_value(status: Status, side: Color) -> Option<[f32; 3]> {
    match status {
        Status::Ongoing => None,
        Status::Draw { .. } => Some(DRAW),
        Status::Win { winner, .. } => Some(if winner == side {
            [1.0, 0.0, 0.0]
        } else {
            [0.0, 0.0, 1.0]
        }),
    }
}

/// Whether `game`'s position repeats one of the line searched from `root_ply` and
/// `search.twofold_draws` makes that a draw. The endgame databases go first: their values
/// are exact whatever the line.
fn repeated_in_line(ctx: &SearchContext, game: &Game, root_ply: usize) -> bool {
    ctx.config.twofold_draws && game.twofold_since(root_ply)
}

/// Simulations a search makes at most (half the range of the 32-bit counters).
pub const MAX_VISITS: u32 = 1 << 31;

impl GameSearch {
    /// A search over `game`'s current position (which must not be over).
    pub fn new(game: Game) -> GameSearch {
        let mut tree = Tree::new();
        tree.node_mut(0).side = game.position().side_to_move();
        GameSearch {
            root_ply: game.ply(),
            game,
            tree,
            path: Vec::new(),
            waiting: None,
            simulations: 0,
            target: 0,
            noise: false,
            gumbel: None,
            root_ready: false,
            edges: Vec::new(),
            entry: Vec::new(),
            scratch: Vec::new(),
            leaf_time: Duration::ZERO,
            leaves: 0,
            root_actions: None,
        }
    }

    /// The tree (for inspection).
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Starts a search of `simulations` simulations; `noise` adds root exploration noise
    /// (Dirichlet for PUCT, Gumbel samples for Gumbel search).
    pub fn start(&mut self, simulations: u32, noise: bool) {
        self.simulations = 0;
        self.target = simulations.max(1);
        self.noise = noise;
        self.gumbel = None;
        self.root_ready = false;
        self.root_ply = self.game.ply();
    }

    /// Raises the target of a running PUCT search by `more` simulations (a search limited
    /// by time goes on in such steps; Gumbel's halving plans for a fixed number).
    pub fn extend(&mut self, more: u32) {
        self.target = self.target.saturating_add(more);
    }

    /// The time spent preparing leaves for the network (the symmetry key, the cache
    /// probe, the encoding) since the last call, estimated from one leaf in
    /// [`LEAF_TIME_SAMPLE`].
    pub fn take_leaf_time(&mut self) -> Duration {
        std::mem::take(&mut self.leaf_time)
    }

    /// Chooses only among these root actions (legal ones; `go searchmoves`): the root is
    /// expanded with them alone, so the search never visits, and never plays, another.
    /// Call before the root is expanded (a new search); an empty list leaves all.
    pub fn restrict_root(&mut self, actions: Vec<u16>) {
        self.root_actions = (!actions.is_empty()).then_some(actions);
    }

    /// The edges of node `id` that the search may take: all but, at a restricted root,
    /// those outside its list.
    fn keep_allowed(&self, id: NodeId, edges: &mut Vec<(u16, f32)>) {
        if let (0, Some(allowed)) = (id, &self.root_actions) {
            edges.retain(|(a, _)| allowed.contains(a));
        }
    }

    /// Simulations made so far.
    pub fn simulations(&self) -> u32 {
        self.simulations
    }

    /// Runs simulations until one needs the network (its canonical features are written
    /// to `features`) or the search is complete.
    pub fn advance(
        &mut self,
        ctx: &SearchContext,
        cache: &mut EvalCache,
        rng: &mut impl Rng,
        features: &mut [f32],
    ) -> Advance {
        assert!(
            self.waiting.is_none(),
            "advance while waiting for the network"
        );
        self.tree.max_nodes = ctx.config.tree_nodes;
        loop {
            if self.tree.node(0).state == NodeState::Expanded && !self.root_ready {
                self.prepare_root(ctx, rng);
            }
            if self.done() {
                return Advance::Complete;
            }
            self.path.clear();
            self.path.push(0);
            let mut id = 0;
            loop {
                let node = *self.tree.node(id);
                match node.state {
                    NodeState::Terminal | NodeState::Capped => {
                        self.finish_simulation(node.value, node.side);
                        break;
                    }
                    NodeState::Unexpanded => {
                        self.leaves = self.leaves.wrapping_add(1);
                        let started = self
                            .leaves
                            .is_multiple_of(LEAF_TIME_SAMPLE)
                            .then(Instant::now);
                        let pos = *self.game.position();
                        let occurrences = self.game.occurrences();
                        let (key, sym, canonical) = cache_key(ctx, &pos, occurrences);
                        if let Some(hit) = cache.get(key) {
                            self.leaf_time += sampled(started);
                            let wdl = hit.wdl;
                            self.expand_cached(ctx, id, &hit, sym);
                            self.finish_simulation(wdl, node.side);
                            break;
                        }
                        encoding::encode_position(&ctx.rules, &canonical, occurrences, features);
                        self.leaf_time += sampled(started);
                        self.waiting = Some(Request { key, sym });
                        return Advance::NeedsEval;
                    }
                    NodeState::Expanded => {
                        let child = self.select(ctx, id);
                        let action = self.tree.node(child).action;
                        let mv = ctx
                            .actions
                            .decode(usize::from(action))
                            .expect("legal action");
                        self.game.play_unchecked(mv);
                        self.path.push(child);
                        let c = self.tree.node(child);
                        if c.visits == 0 && c.state == NodeState::Unexpanded {
                            self.reach(ctx, child);
                        }
                        id = child;
                    }
                }
            }
        }
    }

    /// Sets up `child`, reached for the first time with the game standing at it: its side
    /// to move, and its value where that is certain (the game is over, the endgame
    /// databases know it, or it repeats the searched line under `search.twofold_draws`).
    fn reach(&mut self, ctx: &SearchContext, child: NodeId) {
        let side = self.game.position().side_to_move();
        let exact = terminal_value(self.game.status(), side)
            .or_else(|| {
                let endgame = ctx.endgame.as_ref()?;
                endgame.outcome(&self.game).map(Endgame::outcome_wdl)
            })
            .or_else(|| repeated_in_line(ctx, &self.game, self.root_ply).then_some(DRAW));
        let c = self.tree.node_mut(child);
        c.side = side;
        if let Some(v) = exact {
            c.state = NodeState::Terminal;
            c.value = v;
        }
    }

    /// Expands the waiting leaf with the network's answer for its canonical features:
    /// `logits` over the action space and the win/draw/loss.
    pub fn supply(
        &mut self,
        ctx: &SearchContext,
        cache: &mut EvalCache,
        logits: &[f32],
        wdl: [f32; 3],
    ) {
        let request = self.waiting.take().expect("supply without a waiting leaf");
        let perm = &ctx.perms[request.sym];
        let mut edges = std::mem::take(&mut self.edges);
        edges.clear();
        let mut entry = std::mem::take(&mut self.entry);
        entry.clear();
        self.game.position().for_each_legal_move(&ctx.rules, |m| {
            let a = ctx.actions.index(m);
            let canonical = usize::from(perm[a]);
            edges.push((a as u16, logits[canonical]));
            entry.push((canonical as u16, logits[canonical]));
        });
        let id = *self.path.last().expect("a path");
        self.keep_allowed(id, &mut edges);
        self.tree.expand(id, &edges, wdl);
        self.edges = edges;
        let side = self.tree.node(id).side;
        cache.insert(request.key, &entry, wdl);
        self.entry = entry;
        self.finish_simulation(wdl, side);
    }

    fn done(&self) -> bool {
        if self.tree.node(0).state != NodeState::Expanded {
            return false;
        }
        if self.saturated() {
            return true;
        }
        if self.tree.node(0).children <= 1 && self.simulations >= 1 {
            return true;
        }
        match &self.gumbel {
            Some(g) => g.queue.is_empty() && g.phase >= g.phases,
            None => self.simulations >= self.target,
        }
    }

    /// Whether the root's counts are as high as they go: a search at its memory budget
    /// runs its cheap simulations fast, and the counters are 32 bits.
    pub fn saturated(&self) -> bool {
        self.tree.node(0).visits >= MAX_VISITS
    }

    fn finish_simulation(&mut self, wdl: [f32; 3], side: Color) {
        self.tree.backup(&self.path, wdl, side);
        for _ in 1..self.path.len() {
            self.game.undo();
        }
        self.simulations += 1;
    }

    /// Expands node `id` (the game standing at it) from a cached evaluation of its
    /// canonical form, actions mapped back through `sym`.
    fn expand_cached(
        &mut self,
        ctx: &SearchContext,
        id: NodeId,
        eval: &CachedEval<'_>,
        sym: usize,
    ) {
        let perm = &ctx.perms[sym];
        let scratch = &mut self.scratch;
        scratch.resize(ctx.actions.len(), 0.0);
        for &(a, l) in eval.logits {
            scratch[usize::from(a)] = l;
        }
        let mut edges = std::mem::take(&mut self.edges);
        edges.clear();
        self.game.position().for_each_legal_move(&ctx.rules, |m| {
            let a = ctx.actions.index(m);
            edges.push((a as u16, scratch[usize::from(perm[a])]));
        });
        self.keep_allowed(id, &mut edges);
        self.tree.expand(id, &edges, eval.wdl);
        self.edges = edges;
    }

    /// Root set-up once its children exist: noise, Gumbel samples and halving schedule.
    fn prepare_root(&mut self, ctx: &SearchContext, rng: &mut impl Rng) {
        self.root_ready = true;
        let children: Vec<NodeId> = self.tree.children(0).collect();
        let cfg = &ctx.config;
        match cfg.root {
            RootSearch::Puct => {
                if self.noise && cfg.dirichlet_epsilon > 0.0 && children.len() > 1 {
                    let alpha = cfg.dirichlet_alpha * 10.0 / children.len() as f32;
                    let gamma = Gamma::new(alpha.max(1e-3), 1.0).expect("valid gamma");
                    let noise: Vec<f32> = children.iter().map(|_| gamma.sample(rng)).collect();
                    let sum: f32 = noise.iter().sum::<f32>().max(1e-20);
                    for (c, n) in children.iter().zip(noise) {
                        let node = self.tree.node_mut(*c);
                        node.prior = (1.0 - cfg.dirichlet_epsilon) * node.prior
                            + cfg.dirichlet_epsilon * n / sum;
                    }
                }
            }
            RootSearch::Gumbel => {
                let gumbel: Vec<f32> = children
                    .iter()
                    .map(|_| {
                        if self.noise {
                            let u: f32 = rng.random_range(1e-20f32..1.0);
                            -(-u.ln()).ln()
                        } else {
                            0.0
                        }
                    })
                    .collect();
                let m = (cfg.gumbel_actions as usize).min(children.len()).max(1);
                let mut order: Vec<usize> = (0..children.len()).collect();
                let score = |i: usize| gumbel[i] + self.tree.node(children[i]).logit;
                order.sort_by(|&a, &b| score(b).total_cmp(&score(a)).then(a.cmp(&b)));
                order.truncate(m);
                let phases = if m <= 1 {
                    1
                } else {
                    (m as f32).log2().ceil() as u32
                };
                let remaining_sims = self.target.saturating_sub(self.simulations).max(1);
                let mut g = GumbelRoot {
                    gumbel,
                    remaining: order,
                    queue: Vec::new(),
                    phases,
                    phase: 0,
                };
                self.fill_gumbel_queue(&mut g, remaining_sims);
                self.gumbel = Some(g);
            }
        }
    }

    /// Queues the visits of the next halving phase.
    fn fill_gumbel_queue(&self, g: &mut GumbelRoot, remaining_sims: u32) {
        let phases_left = (g.phases - g.phase).max(1);
        let per_phase = remaining_sims / phases_left;
        let per_action = (per_phase as usize / g.remaining.len()).max(1);
        g.queue.clear();
        for _ in 0..per_action {
            g.queue.extend(g.remaining.iter().rev());
        }
        g.phase += 1;
    }

    /// The root child to simulate next under Gumbel search, advancing the halving.
    fn gumbel_root_child(&mut self, ctx: &SearchContext) -> NodeId {
        let mut g = self.gumbel.take().expect("gumbel root");
        if g.queue.is_empty() {
            // Halve: keep the better half by g + logit + sigma(q).
            let scores = self.gumbel_scores(ctx, &g);
            let mut remaining = g.remaining.clone();
            remaining.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
            remaining.truncate(remaining.len().div_ceil(2).max(1));
            g.remaining = remaining;
            let left = self.target.saturating_sub(self.simulations).max(1);
            self.fill_gumbel_queue(&mut g, left);
        }
        let offset = g.queue.pop().expect("a queued root action");
        self.gumbel = Some(g);
        self.tree.node(0).first_child + offset as NodeId
    }

    /// Completed Q values of `id`'s children, for `id`'s side, rescaled to 0..1 and
    /// transformed by sigma (Danihelka et al. 2022, as in mctx).
    fn sigma_completed_q(&self, ctx: &SearchContext, id: NodeId) -> Vec<f32> {
        let node = self.tree.node(id);
        let side = node.side;
        let draw = self.draw_value(ctx, side);
        let children: Vec<_> = self.tree.children(id).map(|c| *self.tree.node(c)).collect();
        let raw_value = node.value[0] - node.value[2] + draw * node.value[1];
        let mut visited_prior = 0.0;
        let mut weighted_q = 0.0;
        let mut sum_visits = 0u32;
        let mut max_visits = 0u32;
        for c in &children {
            if c.visits > 0 {
                visited_prior += c.prior;
                weighted_q += c.prior * c.q_for(side, draw);
                sum_visits += c.visits;
                max_visits = max_visits.max(c.visits);
            }
        }
        let v_mix = if visited_prior > 0.0 {
            (raw_value + sum_visits as f32 * weighted_q / visited_prior) / (1.0 + sum_visits as f32)
        } else {
            raw_value
        };
        let q: Vec<f32> = children
            .iter()
            .map(|c| {
                if c.visits > 0 {
                    c.q_for(side, draw)
                } else {
                    v_mix
                }
            })
            .collect();
        let lo = q.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = q.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let scale = (ctx.config.gumbel_c_visit + max_visits as f32) * ctx.config.gumbel_c_scale;
        q.iter()
            .map(|&x| {
                let norm = if hi > lo { (x - lo) / (hi - lo) } else { 0.5 };
                scale * norm
            })
            .collect()
    }

    fn gumbel_scores(&self, ctx: &SearchContext, g: &GumbelRoot) -> Vec<f32> {
        let sigma = self.sigma_completed_q(ctx, 0);
        let first = self.tree.node(0).first_child;
        (0..g.gumbel.len())
            .map(|i| g.gumbel[i] + self.tree.node(first + i as NodeId).logit + sigma[i])
            .collect()
    }

    /// The improved policy softmax(logit + sigma(completed Q)) over `id`'s children.
    fn improved_policy(&self, ctx: &SearchContext, id: NodeId) -> Vec<f32> {
        let sigma = self.sigma_completed_q(ctx, id);
        let logits: Vec<f32> = self
            .tree
            .children(id)
            .zip(&sigma)
            .map(|(c, s)| self.tree.node(c).logit + s)
            .collect();
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exp: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
        let sum: f32 = exp.iter().sum();
        exp.into_iter().map(|e| e / sum).collect()
    }

    /// What a draw is worth to `side` under the search's contempt: less to the player at
    /// the root, as much more to its opponent.
    fn draw_value(&self, ctx: &SearchContext, side: Color) -> f32 {
        let c = ctx.config.contempt;
        if side == self.tree.node(0).side {
            -c
        } else {
            c
        }
    }

    fn select(&mut self, ctx: &SearchContext, id: NodeId) -> NodeId {
        let cfg = &ctx.config;
        if cfg.root == RootSearch::Gumbel {
            if id == 0 {
                return self.gumbel_root_child(ctx);
            }
            // Deterministic interior selection: argmax pi'(a) - N(a) / (1 + sum N).
            let policy = self.improved_policy(ctx, id);
            let total: u32 = self
                .tree
                .children(id)
                .map(|c| self.tree.node(c).visits)
                .sum();
            let mut best = (f32::NEG_INFINITY, self.tree.node(id).first_child);
            for (c, p) in self.tree.children(id).zip(policy) {
                let score = p - self.tree.node(c).visits as f32 / (1.0 + total as f32);
                if score > best.0 {
                    best = (score, c);
                }
            }
            return best.1;
        }
        if id == 0
            && let Some(forced) = self.forced_child(ctx)
        {
            return forced;
        }
        let node = *self.tree.node(id);
        let side = node.side;
        let sqrt_n = (node.visits.max(1) as f32).sqrt();
        let mut visited_prior = 0.0;
        for c in self.tree.children(id) {
            let c = self.tree.node(c);
            if c.visits > 0 {
                visited_prior += c.prior;
            }
        }
        let draw = self.draw_value(ctx, side);
        let fpu = node.q_for(side, draw) - cfg.fpu_reduction * visited_prior.sqrt();
        let mut best = (f32::NEG_INFINITY, node.first_child);
        for c in self.tree.children(id) {
            let child = self.tree.node(c);
            let q = if child.visits > 0 {
                child.q_for(side, draw)
            } else {
                fpu
            };
            let u = cfg.c_puct * child.prior * sqrt_n / (1.0 + child.visits as f32);
            if q + u > best.0 {
                best = (q + u, c);
            }
        }
        best.1
    }

    /// Whether forced playouts are on in this search: asked for, in a search asked for
    /// with root noise (self-play's full searches, even where `dirichlet_epsilon` is 0).
    fn forcing(&self, ctx: &SearchContext) -> bool {
        self.noise && ctx.config.forced_playouts > 0.0 && ctx.config.root == RootSearch::Puct
    }

    /// Visits root child `child` is forced to: `sqrt(k * prior * root visits)`.
    fn forced_visits(&self, ctx: &SearchContext, child: NodeId) -> f32 {
        let root_visits = self.tree.node(0).visits as f32;
        (ctx.config.forced_playouts * self.tree.node(child).prior * root_visits).sqrt()
    }

    /// The first root child of `search.forced_playouts_scope` with fewer visits than it
    /// is forced to, if forcing.
    fn forced_child(&self, ctx: &SearchContext) -> Option<NodeId> {
        if !self.forcing(ctx) {
            return None;
        }
        let visited_only = ctx.config.forced_playouts_scope == ForcedScope::Visited;
        self.tree.children(0).find(|&c| {
            let visits = self.tree.node(c).visits;
            (visits > 0 || !visited_only) && (visits as f32) < self.forced_visits(ctx, c)
        })
    }

    /// PUCT score of root child `child` as if it had `visits` visits.
    fn root_puct(&self, ctx: &SearchContext, child: NodeId, visits: f32) -> f32 {
        let root = self.tree.node(0);
        let draw = self.draw_value(ctx, root.side);
        let c = self.tree.node(child);
        let sqrt_n = (root.visits.max(1) as f32).sqrt();
        c.q_for(root.side, draw) + ctx.config.c_puct * c.prior * sqrt_n / (1.0 + visits)
    }

    /// The root children's visits with forced playouts taken back (KataGo's policy-target
    /// pruning): each move but the most visited loses up to its forced visits (rounded
    /// down, so a visit it earned is never taken), as many as leave its PUCT score below
    /// the most visited move's, so that what remains is what it would have had without
    /// forcing; a move left with one visit keeps none.
    fn pruned_visits(&self, ctx: &SearchContext, children: &[NodeId], best: NodeId) -> Vec<f32> {
        let best_puct = self.root_puct(ctx, best, self.tree.node(best).visits as f32);
        children
            .iter()
            .map(|&c| {
                let visits = self.tree.node(c).visits as f32;
                if c == best || visits == 0.0 {
                    return visits;
                }
                let floor = (visits - self.forced_visits(ctx, c).floor()).max(0.0);
                let mut kept = visits;
                while kept > floor && self.root_puct(ctx, c, kept - 1.0) < best_puct {
                    kept -= 1.0;
                }
                if kept <= 1.0 { 0.0 } else { kept }
            })
            .collect()
    }

    /// The child of `id` with the most visits, ties broken by value, then by prior (so
    /// that a search stopped before it visited anything plays the policy's move), then by
    /// the lower index: the greedy move, and each step of the principal variation.
    pub fn most_visited_child(&self, ctx: &SearchContext, id: NodeId) -> Option<NodeId> {
        self.tree
            .children(id)
            .max_by(|&a, &b| self.visit_order(ctx, id, a, b))
    }

    /// The root's children, the most visited first, in the order of
    /// [`GameSearch::most_visited_child`] (so the first is the one it names).
    pub fn ranked_root_children(&self, ctx: &SearchContext) -> Vec<NodeId> {
        let mut children: Vec<NodeId> = self.tree.children(0).collect();
        children.sort_by(|&a, &b| self.visit_order(ctx, 0, b, a));
        children
    }

    /// How children `a` and `b` of `id` rank: by visits, then value, then prior, then
    /// the lower index first.
    fn visit_order(
        &self,
        ctx: &SearchContext,
        id: NodeId,
        a: NodeId,
        b: NodeId,
    ) -> std::cmp::Ordering {
        let side = self.tree.node(id).side;
        let draw = self.draw_value(ctx, side);
        let (na, nb) = (self.tree.node(a), self.tree.node(b));
        na.visits
            .cmp(&nb.visits)
            .then(na.q_for(side, draw).total_cmp(&nb.q_for(side, draw)))
            .then(na.prior.total_cmp(&nb.prior))
            .then(b.cmp(&a))
    }

    /// The root's win/draw/loss for its player to move, as `search.root_value` asks.
    fn root_value(&self, ctx: &SearchContext) -> [f32; 3] {
        let root = self.tree.node(0);
        let best = match ctx.config.root_value {
            RootValue::Mean => None,
            RootValue::Best => self.most_visited_child(ctx, 0).map(|c| self.tree.node(c)),
        };
        match best {
            Some(child) if child.visits > 0 && child.side == root.side => child.mean_wdl(),
            Some(child) if child.visits > 0 => flip(child.mean_wdl()),
            _ => root.mean_wdl(),
        }
    }

    /// The move and targets of the finished search. `temperature` > 0 draws the move from
    /// visit counts (PUCT); Gumbel search plays the action its halving kept.
    pub fn result(
        &self,
        ctx: &SearchContext,
        temperature: f32,
        rng: &mut impl Rng,
    ) -> SearchResult {
        let children: Vec<NodeId> = self.tree.children(0).collect();
        assert!(
            !children.is_empty(),
            "result of a search without legal moves"
        );
        let wdl = self.root_value(ctx);
        let (action, policy, mut explored) = match (&self.gumbel, ctx.config.root) {
            (Some(g), RootSearch::Gumbel) => {
                let scores = self.gumbel_scores(ctx, g);
                let best = *g
                    .remaining
                    .iter()
                    .max_by(|&&a, &&b| scores[a].total_cmp(&scores[b]).then(b.cmp(&a)))
                    .expect("a remaining action");
                let policy = self.improved_policy(ctx, 0);
                (children[best], policy, false)
            }
            _ => self.puct_choice(ctx, &children, temperature, rng),
        };
        let mut action = usize::from(self.tree.node(action).action);
        if let Some(endgame) = ctx.endgame.as_ref().filter(|_| self.root_actions.is_none()) {
            let preferred = ctx.actions.decode(action).expect("a legal action");
            if let Some(m) = endgame.root_move(&self.game, preferred) {
                action = ctx.actions.index(m);
                // A move the databases chose (or confirmed) keeps the exact value.
                explored = false;
            }
        }
        let logits: Vec<f32> = children.iter().map(|&c| self.tree.node(c).logit).collect();
        SearchResult {
            action,
            surprise: policy_surprise(&policy, &logits),
            policy: children
                .iter()
                .zip(policy)
                .map(|(&c, p)| (self.tree.node(c).action, p))
                .collect(),
            wdl,
            simulations: self.simulations,
            explored,
        }
    }

    /// A PUCT search's move (drawn from the visits at `temperature`, or the most visited),
    /// its policy target (the visits, forced playouts taken back) and whether the move
    /// drawn is worse than the most visited one (see [`SearchResult::explored`]).
    fn puct_choice(
        &self,
        ctx: &SearchContext,
        children: &[NodeId],
        temperature: f32,
        rng: &mut impl Rng,
    ) -> (NodeId, Vec<f32>, bool) {
        let best = self.most_visited_child(ctx, 0).expect("a child");
        let visits: Vec<f32> = if self.forcing(ctx) {
            self.pruned_visits(ctx, children, best)
        } else {
            children
                .iter()
                .map(|&c| self.tree.node(c).visits as f32)
                .collect()
        };
        let total: f32 = visits.iter().sum();
        let policy: Vec<f32> = if total > 0.0 {
            visits.iter().map(|v| v / total).collect()
        } else {
            children.iter().map(|&c| self.tree.node(c).prior).collect()
        };
        let chosen = if temperature > 0.0 && total > 0.0 {
            children[self.temperature_pick(ctx, children, &visits, best, temperature, rng)]
        } else {
            self.greedy_choice(ctx, best)
        };
        let explored = chosen != best && self.worse_than(ctx, chosen, best);
        (chosen, policy, explored)
    }

    /// The move played without a temperature, as `search.move_choice` asks: `best`, the
    /// most visited, or the root child of the highest lower confidence bound among those
    /// with enough visits (`best` on ties).
    fn greedy_choice(&self, ctx: &SearchContext, best: NodeId) -> NodeId {
        if ctx.config.move_choice == MoveChoice::Visits {
            return best;
        }
        let side = self.tree.node(0).side;
        let draw = self.draw_value(ctx, side);
        let bound = |c: NodeId| {
            self.tree
                .node(c)
                .lower_bound(side, draw, ctx.config.lcb_stdevs)
        };
        let floor = LCB_MIN_VISIT_SHARE * self.tree.node(best).visits as f32;
        self.tree
            .children(0)
            .filter(|&c| self.tree.node(c).visits as f32 >= floor)
            .fold(
                best,
                |chosen, c| {
                    if bound(c) > bound(chosen) { c } else { chosen }
                },
            )
    }

    /// Index of a root child drawn with weight `visits ^ (1 / temperature)`, among those
    /// whose value is within `search.temperature_value_cutoff` of the most visited one's,
    /// `best`. Weights are relative to `best`, whose weight is 1: however low the
    /// temperature, they cannot all underflow to 0.
    fn temperature_pick(
        &self,
        ctx: &SearchContext,
        children: &[NodeId],
        visits: &[f32],
        best: NodeId,
        temperature: f32,
        rng: &mut impl Rng,
    ) -> usize {
        let side = self.tree.node(0).side;
        let draw = self.draw_value(ctx, side);
        let best = self.tree.node(best);
        let floor = best.q_for(side, draw) - ctx.config.temperature_value_cutoff;
        let most = best.visits as f32;
        let weights: Vec<f64> = children
            .iter()
            .zip(visits)
            .map(|(&c, &v)| {
                if self.tree.node(c).q_for(side, draw) < floor {
                    0.0
                } else {
                    f64::from(v / most).powf(1.0 / f64::from(temperature))
                }
            })
            .collect();
        let sum: f64 = weights.iter().sum();
        let mut x = rng.random_range(0.0..sum);
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights
            .iter()
            .rposition(|&w| w > 0.0)
            .expect("the most visited child")
    }

    /// Whether root child `chosen` is worse than `best` by more than
    /// `search.explored_value_gap`, by the search's values for the player to move.
    fn worse_than(&self, ctx: &SearchContext, chosen: NodeId, best: NodeId) -> bool {
        let side = self.tree.node(0).side;
        let draw = self.draw_value(ctx, side);
        let q = |c: NodeId| self.tree.node(c).q_for(side, draw);
        q(chosen) < q(best) - ctx.config.explored_value_gap
    }

    /// Plays `action` and keeps its subtree (when `reuse`) for the next search.
    pub fn play(&mut self, ctx: &SearchContext, action: usize, reuse: bool) {
        let mv = ctx.actions.decode(action).expect("a legal action");
        let child = self
            .tree
            .children(0)
            .find(|&c| usize::from(self.tree.node(c).action) == action);
        self.game.play_unchecked(mv);
        self.tree = match child {
            // Only an expanded child has a subtree; a terminal one (a position certain in
            // the endgame databases, played on) must be searched afresh.
            Some(c) if reuse && self.tree.node(c).state == NodeState::Expanded => {
                self.tree.subtree(c)
            }
            _ => Tree::new(),
        };
        self.tree.node_mut(0).side = self.game.position().side_to_move();
        self.waiting = None;
    }

    /// Whether the game is over.
    pub fn status(&self) -> Status {
        self.game.status()
    }
}

/// The cache key of a position: its canonical form and the counters the encoding reads,
/// with the symmetry that maps it there and the canonical form itself.
pub fn cache_key(ctx: &SearchContext, pos: &Position, occurrences: u32) -> (u128, usize, Position) {
    let (canonical, sym) = pos.canonical(&ctx.rules);
    let no_capture = if ctx.rules.no_capture_limit().is_some() {
        u128::from(pos.no_capture())
    } else {
        0
    };
    let occ = if ctx.rules.repetition() {
        u128::from(occurrences.min(3))
    } else {
        0
    };
    (
        u128::from(canonical.key()) | no_capture << 64 | occ << 80,
        sym,
        canonical,
    )
}

/// The Kullback-Leibler divergence (nats) of `target` from the softmax of `logits`, both
/// over the same moves: KataGo's policy surprise. Moves the target leaves at 0 add nothing.
pub fn policy_surprise(target: &[f32], logits: &[f32]) -> f32 {
    debug_assert_eq!(target.len(), logits.len());
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let log_sum = logits.iter().map(|l| (l - max).exp()).sum::<f32>().ln() + max;
    let kl: f32 = target
        .iter()
        .zip(logits)
        .filter(|&(&p, _)| p > 0.0)
        .map(|(&p, &l)| p * (p.ln() - (l - log_sum)))
        .sum();
    kl.max(0.0)
}
