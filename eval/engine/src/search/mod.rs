//! The baseline engine: negamax alpha-beta with iterative deepening, aspiration windows,
//! principal-variation search, a shared transposition table, and move ordering by table
//! move, mills and removals, killers and history. Lazy SMP over several threads.
//!
//! Depth is counted in turns: a removal is searched at the depth of the move that earned
//! it, so a search never stops between closing a mill and removing a man. A removal is a
//! decision of the same player, so its score is not negated.

mod tt;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;
use kvarn_game::{ActionSpace, Game, MAX_MOVES, Move, MoveList, Rules, Status};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub use tt::{Bound, Entry, Tt};

use crate::evaluation::{Weights, evaluate};

/// A won game, in score units: a win in `n` decisions scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this (in absolute value) are forced wins or losses.
pub const MATE_BOUND: i32 = MATE - 1_000;
const INF: i32 = 31_000;
const MAX_PLY: usize = 256;

/// When a search must stop. With no limit at all it searches to depth 64.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration, in turns.
    pub depth: Option<u32>,
    /// Nodes to search at most (all threads together).
    pub nodes: Option<u64>,
    /// Wall time to search at most.
    pub movetime: Option<Duration>,
}

/// Engine settings that stay the same from move to move.
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// Search threads (Lazy SMP); 1 is deterministic with a seed.
    pub threads: usize,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Seed of the random choice among equally good moves; `None` draws one.
    pub seed: Option<u64>,
    /// Evaluation weights.
    pub weights: Arc<Weights>,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            threads: 1,
            hash_mb: 16,
            seed: None,
            weights: Arc::new(Weights::default()),
        }
    }
}

/// What an iteration of the search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// Depth completed, in turns.
    pub depth: u32,
    /// Score for the player to move, in hundredths of a man (or near [`MATE`]).
    pub score: i32,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search began.
    pub elapsed: Duration,
    /// Principal variation, starting with the best move.
    pub pv: Vec<Move>,
}

impl Info {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-6)) as u64
    }

    /// Decisions to a forced end when the score is a win (positive) or loss (negative).
    pub fn mate_in(&self) -> Option<i32> {
        if self.score > MATE_BOUND {
            Some(MATE - self.score)
        } else if self.score < -MATE_BOUND {
            Some(-(MATE + self.score))
        } else {
            None
        }
    }
}

/// The alpha-beta engine for one set of rules. Keep one per game or match side: the
/// transposition table carries over from move to move.
pub struct Engine {
    rules: Rules,
    options: EngineOptions,
    tt: Arc<Tt>,
    rng: Pcg64Mcg,
}

impl Engine {
    /// An engine for `rules`.
    pub fn new(rules: Rules, options: EngineOptions) -> Engine {
        let seed = options.seed.unwrap_or_else(|| rand::rng().next_u64());
        Engine {
            rules,
            tt: Arc::new(Tt::new(options.hash_mb)),
            rng: Pcg64Mcg::seed_from_u64(seed),
            options,
        }
    }

    /// The rules it plays by.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Forgets the previous game (clears the table, restarts the seed's sequence).
    pub fn new_game(&mut self) {
        self.tt.clear();
        if let Some(seed) = self.options.seed {
            self.rng = Pcg64Mcg::seed_from_u64(seed);
        }
    }

    /// Searches the current position of `game` within `limits`, calling `on_info` after
    /// every completed iteration, and returns the last completed one. `None` when the
    /// game is over. `stop` ends the search early when set (from another thread).
    pub fn search(
        &mut self,
        game: &Game,
        limits: Limits,
        stop: Option<&AtomicBool>,
        on_info: impl FnMut(&Info),
    ) -> Option<Info> {
        self.search_among(game, &[], limits, stop, on_info)
    }

    /// As [`Engine::search`], choosing only among `among` (the legal ones of them; every
    /// legal move where none is): the protocol's `go searchmoves`.
    pub fn search_among(
        &mut self,
        game: &Game,
        among: &[Move],
        limits: Limits,
        stop: Option<&AtomicBool>,
        mut on_info: impl FnMut(&Info),
    ) -> Option<Info> {
        let legal = game.legal_moves();
        let root_moves: Vec<Move> = if among.iter().any(|m| legal.contains(m)) {
            legal
                .iter()
                .copied()
                .filter(|m| among.contains(m))
                .collect()
        } else {
            legal.to_vec()
        };
        if root_moves.is_empty() {
            return None;
        }
        self.tt.new_search();
        let start = Instant::now();
        let local_stop = AtomicBool::new(false);
        let stop = stop.unwrap_or(&local_stop);
        let over = AtomicBool::new(false);
        let nodes = AtomicU64::new(0);
        let threads = self.options.threads.max(1);
        let seeds: Vec<u64> = (0..threads).map(|_| self.rng.next_u64()).collect();
        let shared = Shared {
            rules: self.rules,
            weights: &self.options.weights,
            tt: &self.tt,
            stop,
            over: &over,
            nodes: &nodes,
            limits,
            start,
            root_moves: &root_moves,
        };
        let mut result = None;
        std::thread::scope(|scope| {
            for (t, &seed) in seeds.iter().enumerate().skip(1) {
                let shared = &shared;
                let game = game.clone();
                scope.spawn(move || {
                    let mut w = Worker::new(shared, game, seed);
                    w.iterate(t as u32, |_| {});
                });
            }
            let mut w = Worker::new(&shared, game.clone(), seeds[0]);
            result = w.iterate(0, &mut on_info);
            over.store(true, Ordering::Relaxed);
        });
        // A search stopped before depth 1 completed still answers with a legal move.
        result.or_else(|| {
            Some(Info {
                depth: 0,
                score: 0,
                nodes: nodes.load(Ordering::Relaxed),
                elapsed: start.elapsed(),
                pv: vec![root_moves[0]],
            })
        })
    }
}

impl Shared<'_> {
    /// Whether the search must end: stopped from outside, or over.
    fn ended(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.over.load(Ordering::Relaxed)
    }
}

/// What all threads of one search share.
struct Shared<'a> {
    rules: Rules,
    weights: &'a Weights,
    tt: &'a Tt,
    /// The caller's stop, only read: set from outside to end the search.
    stop: &'a AtomicBool,
    /// Set when the search is over (a limit reached, or the main thread done), so that
    /// the helpers end too; the caller's flag is never written.
    over: &'a AtomicBool,
    nodes: &'a AtomicU64,
    limits: Limits,
    start: Instant,
    /// The moves searched at the root.
    root_moves: &'a [Move],
}

/// What the transposition table gives a node.
enum Probe {
    /// A score deep and bounded enough to stand for the node's own search.
    Cut(i32),
    /// Only the move it found best, to try first.
    Hint(Option<Move>),
}

/// One thread's search state.
struct Worker<'a> {
    shared: &'a Shared<'a>,
    game: Game,
    space: ActionSpace,
    killers: Vec<[Option<Move>; 2]>,
    /// History heuristic by colour and action index.
    history: Vec<i32>,
    /// Nodes searched by this thread and not yet added to the shared count.
    pending_nodes: u64,
    aborted: bool,
    rng: Pcg64Mcg,
    /// Decisions played in the game before the search began.
    root_ply: usize,
}

impl<'a> Worker<'a> {
    fn new(shared: &'a Shared<'a>, game: Game, seed: u64) -> Worker<'a> {
        let space = ActionSpace::new(&shared.rules);
        let root_ply = game.ply();
        Worker {
            shared,
            game,
            history: vec![0; 2 * space.len()],
            space,
            killers: vec![[None; 2]; MAX_PLY + 1],
            pending_nodes: 0,
            aborted: false,
            rng: Pcg64Mcg::seed_from_u64(seed),
            root_ply,
        }
    }

    /// Iterative deepening with aspiration windows. Helper threads (`id > 0`) start one
    /// iteration deeper on odd ids, so that threads spread over depths.
    fn iterate(&mut self, id: u32, mut on_info: impl FnMut(&Info)) -> Option<Info> {
        let max_depth = self.shared.limits.depth.unwrap_or(64).clamp(1, 64);
        let mut best: Option<Info> = None;
        let mut root: Vec<Move> = self.shared.root_moves.to_vec();
        // Equal moves are searched in a random (seeded) order, so ties break at random.
        root.shuffle(&mut self.rng);
        let mut depth = 1 + (id % 2);
        while depth <= max_depth {
            let guess = best.as_ref().map_or(0, |b| b.score);
            let (mut alpha, mut beta, mut delta) = if depth >= 3 && guess.abs() < MATE_BOUND {
                (guess - 40, guess + 40, 40)
            } else {
                (-INF, INF, 0)
            };
            let outcome = loop {
                let (score, best_move) = self.root_search(&mut root, depth as i32, alpha, beta);
                if self.aborted {
                    break None;
                }
                if score <= alpha && alpha > -INF {
                    delta *= 4;
                    alpha = (score - delta).max(-INF);
                } else if score >= beta && beta < INF {
                    delta *= 4;
                    beta = (score + delta).min(INF);
                } else {
                    break Some((score, best_move));
                }
            };
            let Some((score, best_move)) = outcome else {
                break;
            };
            // The best move goes first next iteration.
            if let Some(i) = root.iter().position(|&m| m == best_move) {
                root[..=i].rotate_right(1);
            }
            self.flush_nodes();
            let info = Info {
                depth,
                score,
                nodes: self.shared.nodes.load(Ordering::Relaxed),
                elapsed: self.shared.start.elapsed(),
                pv: self.principal_variation(best_move, depth as usize + 8),
            };
            on_info(&info);
            let decided = score.abs() > MATE_BOUND && (MATE - score.abs()) <= depth as i32 * 2;
            best = Some(info);
            if decided || self.shared.ended() {
                break;
            }
            // Not worth starting an iteration that cannot finish in time.
            if let Some(t) = self.shared.limits.movetime
                && self.shared.start.elapsed() * 2 > t
            {
                break;
            }
            depth += 1;
        }
        self.flush_nodes();
        best
    }

    fn root_search(
        &mut self,
        root: &mut [Move],
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> (i32, Move) {
        let original_alpha = alpha;
        let us = self.game.position().side_to_move();
        let mut best = (-INF, root[0]);
        for (i, &mv) in root.iter().enumerate() {
            self.game.play_unchecked(mv);
            let same = self.game.position().side_to_move() == us;
            let child = if mv.is_removal() { depth } else { depth - 1 };
            let score = if i == 0 {
                self.child_score(same, child, 1, alpha, beta)
            } else {
                let s = self.child_score(same, child, 1, alpha, alpha + 1);
                if s > alpha && s < beta && !self.aborted {
                    self.child_score(same, child, 1, alpha, beta)
                } else {
                    s
                }
            };
            self.game.undo();
            if self.aborted {
                break;
            }
            if score > best.0 {
                best = (score, mv);
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                break;
            }
        }
        if !self.aborted {
            let bound = if best.0 >= beta {
                Bound::Lower
            } else if best.0 <= original_alpha {
                Bound::Upper
            } else {
                Bound::Exact
            };
            let key = self.key();
            self.shared.tt.store(
                key,
                Some(self.space.index(best.1) as u16),
                best.0,
                depth,
                bound,
            );
        }
        best
    }

    /// The score of the child just played, from the parent's view.
    #[inline]
    fn child_score(
        &mut self,
        same_side: bool,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        if same_side {
            self.negamax(depth, ply, alpha, beta)
        } else {
            -self.negamax(depth, ply, -beta, -alpha)
        }
    }

    /// The table key: the position hash, with the no-capture counter mixed in while that
    /// rule is on (the same men with another count can have another value).
    #[inline]
    fn key(&self) -> u64 {
        let pos = self.game.position();
        let mut key = pos.hash();
        if self.shared.rules.no_capture_limit().is_some() {
            key ^= (pos.no_capture() as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        key
    }

    fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.pending_nodes, Ordering::Relaxed);
        self.pending_nodes = 0;
    }

    /// Checks the limits every 1024 nodes.
    #[inline]
    fn check_limits(&mut self) {
        self.pending_nodes += 1;
        if self.pending_nodes < 1024 {
            return;
        }
        self.flush_nodes();
        let s = self.shared;
        let over_nodes = s
            .limits
            .nodes
            .is_some_and(|n| s.nodes.load(Ordering::Relaxed) >= n);
        let over_time = s.limits.movetime.is_some_and(|t| s.start.elapsed() >= t);
        if over_nodes || over_time {
            s.over.store(true, Ordering::Relaxed);
        }
        if s.ended() {
            self.aborted = true;
        }
    }

    fn negamax(&mut self, depth: i32, ply: usize, alpha: i32, beta: i32) -> i32 {
        self.check_limits();
        if self.aborted {
            return 0;
        }
        if let Some(score) = self.decided(ply) {
            return score;
        }
        let pending = self.game.position().pending_removal();
        if (depth <= 0 && !pending) || ply >= MAX_PLY {
            return evaluate(
                &self.shared.rules,
                self.shared.weights,
                self.game.position(),
            );
        }
        let key = self.key();
        let tt_move = match self.probe(key, depth, ply, alpha, beta) {
            Probe::Cut(score) => return score,
            Probe::Hint(tt_move) => tt_move,
        };
        let (score, best) = self.search_moves(depth, ply, alpha, beta, tt_move);
        if self.aborted {
            return 0;
        }
        let bound = if score >= beta {
            Bound::Lower
        } else if score > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let action = best.map(|m| self.space.index(m) as u16);
        self.shared
            .tt
            .store(key, action, to_tt(score, ply), depth, bound);
        score
    }

    /// The score of a position the rules have already decided: a finished game, or a
    /// repetition inside the searched line (the draw the rule makes of it).
    #[inline]
    fn decided(&self, ply: usize) -> Option<i32> {
        let us = self.game.position().side_to_move();
        match self.game.status() {
            Status::Ongoing => {}
            Status::Draw { .. } => return Some(0),
            Status::Win { winner, .. } => {
                let mate = MATE - ply as i32;
                return Some(if winner == us { mate } else { -mate });
            }
        }
        self.game.twofold_since(self.root_ply).then_some(0)
    }

    /// What the table's entry for `key` gives this node.
    #[inline]
    fn probe(&self, key: u64, depth: i32, ply: usize, alpha: i32, beta: i32) -> Probe {
        let Some(e) = self.shared.tt.probe(key) else {
            return Probe::Hint(None);
        };
        if e.depth >= depth {
            let score = from_tt(e.score, ply);
            let cut = match e.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if cut {
                return Probe::Cut(score);
            }
        }
        Probe::Hint(e.action.and_then(|a| self.space.decode(a as usize)))
    }

    /// The best score among the legal moves and the move that gave it, by principal
    /// variation search (a null window after the first move, searched again on a
    /// surprise); a cut-off is remembered by the move-ordering tables.
    fn search_moves(
        &mut self,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        tt_move: Option<Move>,
    ) -> (i32, Option<Move>) {
        let us = self.game.position().side_to_move();
        let moves = self.game.legal_moves();
        let ordered = self.order(&moves, tt_move, ply, us);
        let mut best = (-INF, None);
        for (i, &(_, mv)) in ordered.iter().enumerate() {
            self.game.play_unchecked(mv);
            let same = self.game.position().side_to_move() == us;
            let child = if mv.is_removal() { depth } else { depth - 1 };
            let score = if i == 0 {
                self.child_score(same, child, ply + 1, alpha, beta)
            } else {
                let s = self.child_score(same, child, ply + 1, alpha, alpha + 1);
                if s > alpha && s < beta && !self.aborted {
                    self.child_score(same, child, ply + 1, alpha, beta)
                } else {
                    s
                }
            };
            self.game.undo();
            if self.aborted {
                return best;
            }
            if score > best.0 {
                best = (score, Some(mv));
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                self.remember_cutoff(mv, ply, us, depth);
                break;
            }
        }
        best
    }

    /// A move that cut the search off: a killer at its ply (removals excepted), and
    /// history credit growing with the depth it cut at.
    #[inline]
    fn remember_cutoff(&mut self, mv: Move, ply: usize, us: kvarn_game::Color, depth: i32) {
        if !mv.is_removal() {
            let k = &mut self.killers[ply];
            if k[0] != Some(mv) {
                k[1] = k[0];
                k[0] = Some(mv);
            }
        }
        let h = &mut self.history[us.index() * self.space.len() + self.space.index(mv)];
        *h = (*h + depth * depth).min(1 << 20);
    }

    /// Moves sorted best first: the table move, then moves that close a mill and
    /// removals, then killers, then by history.
    fn order(
        &self,
        moves: &MoveList,
        tt_move: Option<Move>,
        ply: usize,
        us: kvarn_game::Color,
    ) -> ArrayVec<(i32, Move), MAX_MOVES> {
        let rules = &self.shared.rules;
        let board = rules.board();
        let pos = self.game.position();
        let mut scored: ArrayVec<(i32, Move), MAX_MOVES> = moves
            .iter()
            .map(|&mv| {
                let score = if Some(mv) == tt_move {
                    1 << 30
                } else if mv.is_removal() {
                    // Prefer removing men that threaten to close a mill of their own.
                    let from = mv.from().expect("a removal has a point");
                    let theirs = pos.men(us.opposite());
                    let threat = board
                        .mills()
                        .iter()
                        .filter(|m| m.contains(from) && (theirs & **m).count() == 2)
                        .count() as i32;
                    (1 << 26) + threat * 1000 + self.history_of(us, mv)
                } else if closes_mill(rules, pos, mv) {
                    1 << 27
                } else if self.killers[ply][0] == Some(mv) {
                    1 << 25
                } else if self.killers[ply][1] == Some(mv) {
                    (1 << 25) - 1
                } else {
                    self.history_of(us, mv)
                };
                (score, mv)
            })
            .collect();
        scored.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
        scored
    }

    #[inline]
    fn history_of(&self, us: kvarn_game::Color, mv: Move) -> i32 {
        self.history[us.index() * self.space.len() + self.space.index(mv)]
    }

    /// The best line from the table, starting with `first`, stopping at a repetition.
    fn principal_variation(&mut self, first: Move, max: usize) -> Vec<Move> {
        let mut pv = vec![first];
        let mut played = 1;
        self.game.play_unchecked(first);
        while pv.len() < max && !self.game.status().is_over() && self.game.occurrences() < 2 {
            let Some(mv) = self
                .shared
                .tt
                .probe(self.key())
                .and_then(|e| e.action)
                .and_then(|a| self.space.decode(a as usize))
            else {
                break;
            };
            if self.game.check_move(mv).is_err() {
                break;
            }
            self.game.play_unchecked(mv);
            pv.push(mv);
            played += 1;
        }
        for _ in 0..played {
            self.game.undo();
        }
        pv
    }
}

/// Whether `mv` (a placement or shift) closes a mill of the mover.
fn closes_mill(rules: &Rules, pos: &kvarn_game::Position, mv: Move) -> bool {
    let Some(to) = mv.to() else {
        return false;
    };
    let mut after = *pos;
    after.play_unchecked(rules, mv);
    after.pending_removal() && after.men(pos.side_to_move()).contains(to)
}

/// A score as stored in the table: mate distances from the node, not the root.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A stored score read back at `ply`.
fn from_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
