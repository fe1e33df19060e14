//! Tree search and self-play: tactics with a uniform network, batching that changes
//! nothing, games started from earlier games' positions, and shards that round-trip and
//! refuse damage.

use std::sync::Arc;

use kvarn_game::{
    ActionSpace, Bitboard, Color, Game, Position, Rules, Setup, Square, Variant, encoding,
};
use kvarn_selfplay::tree::NodeState;
use kvarn_selfplay::{
    Advance, BranchPool, BranchStarts, DeepSide, EvalCache, Evaluator, ForcedScope, GameSearch,
    LCB_MIN_VISIT_SHARE, MoveChoice, PlayoutCap, RootSearch, RootValue, Sample, SearchConfig,
    SearchContext, SearchResult, SelfPlayConfig, SelfPlayJob, SymmetryAveraged, UniformEvaluator,
    policy_surprise, read_shard, run, selfplay::game_rng,
};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

fn six() -> Rules {
    Rules::new(Variant::Six)
}

fn uniform(rules: &Rules) -> UniformEvaluator {
    UniformEvaluator {
        input_len: encoding::input_len(rules),
        actions: ActionSpace::new(rules).len(),
    }
}

/// Logits and values from a hash of each row's features: deterministic, not uniform, and
/// independent of the batch a row comes in.
#[derive(Clone)]
struct HashEvaluator(UniformEvaluator);

impl Evaluator for HashEvaluator {
    fn input_len(&self) -> usize {
        self.0.input_len
    }
    fn actions(&self) -> usize {
        self.0.actions
    }
    fn evaluate(
        &mut self,
        features: &[f32],
        batch: usize,
        logits: &mut Vec<f32>,
        wdl: &mut Vec<f32>,
    ) {
        logits.clear();
        wdl.clear();
        for row in features.chunks(self.0.input_len).take(batch) {
            let mut h = 0xcbf2_9ce4_8422_2325u64;
            for v in row {
                h = (h ^ u64::from(v.to_bits())).wrapping_mul(0x100_0000_01b3);
            }
            for a in 0..self.0.actions {
                let x = h.wrapping_add(a as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
                logits.push((x as f32 / (1u64 << 24) as f32) * 2.0 - 1.0);
            }
            let w = ((h >> 8) % 100) as f32 / 200.0;
            let l = ((h >> 20) % 100) as f32 / 200.0;
            wdl.extend_from_slice(&[w, 1.0 - w - l, l]);
        }
    }
}

/// Runs one search to completion, one leaf at a time.
fn search(
    game: Game,
    config: SearchConfig,
    eval: &mut impl Evaluator,
    seed: u64,
) -> (usize, GameSearch) {
    let (result, s) = search_with(game, config, eval, seed, false);
    (result.action, s)
}

/// Runs one search to completion, with root noise (as self-play's full searches) or
/// without (as matches), and returns its result at temperature 0.
fn search_with(
    game: Game,
    config: SearchConfig,
    eval: &mut impl Evaluator,
    seed: u64,
    noise: bool,
) -> (SearchResult, GameSearch) {
    let ctx = SearchContext::new(*game.rules(), config.clone());
    let mut s = GameSearch::new(game);
    let mut cache = EvalCache::new(1000);
    let mut rng = game_rng(seed, 0);
    let mut feats = vec![0f32; ctx.input_len()];
    let (mut logits, mut wdl) = (Vec::new(), Vec::new());
    s.start(config.simulations, noise);
    while let Advance::NeedsEval = s.advance(&ctx, &mut cache, &mut rng, &mut feats) {
        eval.evaluate(&feats, 1, &mut logits, &mut wdl);
        s.supply(&ctx, &mut cache, &logits, [wdl[0], wdl[1], wdl[2]]);
    }
    (s.result(&ctx, 0.0, &mut rng), s)
}

/// A game from men named by point, men in hand, side to move and turns.
fn game_at(rules: Rules, white: &str, black: &str, hand: [u8; 2], side: Color, turns: u16) -> Game {
    let men = |s: &str| {
        s.split_whitespace()
            .map(|n| n.parse::<Square>().unwrap())
            .collect::<Bitboard>()
    };
    let setup = Setup {
        men: [men(white), men(black)],
        in_hand: hand,
        side,
        pending_removal: false,
        no_capture: 0,
        turns,
    };
    Game::from_position(rules, Position::from_setup(&rules, &setup).unwrap()).unwrap()
}

/// Six Men's Morris, moving: White closes b6-d6-f6 with f4-f6 and, taking one of Black's
/// three men, wins.
fn win_in_one() -> Game {
    game_at(six(), "b6 d6 f4", "c3 e3 b2", [0, 0], Color::White, 20)
}

/// Six Men's Morris, placing: Black has two men and one in hand; unless Black places on
/// f6, White places there, closes b6-d6-f6, takes a man and wins.
fn must_block() -> Game {
    game_at(six(), "b6 d6", "c3 e5", [1, 1], Color::Black, 9)
}

fn name(rules: &Rules, action: usize) -> String {
    ActionSpace::new(rules).decode(action).unwrap().to_string()
}

#[test]
fn finds_a_winning_mill_with_a_uniform_network() {
    for root in [RootSearch::Puct, RootSearch::Gumbel] {
        let config = SearchConfig {
            root,
            simulations: 200,
            ..SearchConfig::default()
        };
        let rules = six();
        let (action, s) = search(win_in_one(), config, &mut uniform(&rules), 1);
        assert_eq!(name(&rules, action), "f4-f6", "{root:?}");
        // The search knows the move wins.
        let tree = s.tree();
        let root_side = tree.node(0).side;
        let child = tree
            .children(0)
            .find(|&c| usize::from(tree.node(c).action) == action)
            .unwrap();
        let q = tree.node(child).q_for(root_side, 0.0);
        assert!(q > 0.9, "{root:?}: {q}");
    }
}

#[test]
fn the_best_root_value_is_the_chosen_moves_not_the_mean_of_all_explored() {
    let rules = six();
    let value_of = |game: Game, root_value| {
        let config = SearchConfig {
            simulations: 200,
            root_value,
            ..SearchConfig::default()
        };
        let ctx = SearchContext::new(rules, config.clone());
        let (_, s) = search(game, config, &mut uniform(&rules), 1);
        (s.result(&ctx, 0.0, &mut game_rng(1, 0)).wdl, s)
    };
    // White wins with f4-f6 and moves again to remove: the child's side is the root's.
    let (mean, _) = value_of(win_in_one(), RootValue::Mean);
    let (best, _) = value_of(win_in_one(), RootValue::Best);
    assert!(
        best[0] > mean[0] && best[2] < mean[2],
        "the other moves explored dilute the mean: {mean:?}, the best move's {best:?}"
    );
    assert!(best[0] > 0.97, "{best:?}");
    // Black must block on f6, after which White moves: the child's value is flipped.
    let (best, s) = value_of(must_block(), RootValue::Best);
    let tree = s.tree();
    let most = tree
        .children(0)
        .max_by_key(|&c| tree.node(c).visits)
        .unwrap();
    let child = tree.node(most);
    assert_ne!(child.side, tree.node(0).side);
    let [w, d, l] = child.mean_wdl();
    assert_eq!(best, [l, d, w]);
}

#[test]
fn a_search_at_its_node_budget_goes_on_inside_its_tree_and_still_finds_the_win() {
    let rules = six();
    let config = |simulations, tree_nodes| SearchConfig {
        simulations,
        tree_nodes,
        ..SearchConfig::default()
    };
    let start = || Game::new(rules);
    let budget = 400;
    let (_, unbounded) = search(start(), config(5_000, usize::MAX), &mut uniform(&rules), 1);
    assert!(
        unbounded.tree().nodes.len() > 10 * budget,
        "the search would grow past it"
    );
    let (action, s) = search(start(), config(5_000, budget), &mut uniform(&rules), 1);
    let tree = s.tree();
    assert!(tree.nodes.len() <= budget, "{} nodes", tree.nodes.len());
    assert_eq!(s.simulations(), 5_000, "every simulation made");
    assert_eq!(tree.node(0).visits, 5_000);
    assert!(
        tree.nodes.iter().any(|n| n.state == NodeState::Capped),
        "leaves at the budget answer with their values"
    );
    assert!(
        start()
            .legal_moves()
            .iter()
            .any(|m| m.to_string() == name(&rules, action))
    );
    // A tree of a few dozen nodes still sees the mill that wins.
    let (action, s) = search(win_in_one(), config(2_000, 40), &mut uniform(&rules), 1);
    assert!(s.tree().nodes.len() <= 40);
    assert_eq!(name(&rules, action), "f4-f6");
}

/// Root children's visits and priors, in the tree's order.
fn root_visits(s: &GameSearch) -> Vec<(u32, f32)> {
    let tree = s.tree();
    tree.children(0)
        .map(|c| (tree.node(c).visits, tree.node(c).prior))
        .collect()
}

#[test]
fn forced_playouts_look_at_every_noised_move_and_prune_them_from_the_target() {
    let rules = six();
    let config = |forced_playouts| SearchConfig {
        simulations: 400,
        forced_playouts,
        ..SearchConfig::default()
    };
    let mut eval = HashEvaluator(uniform(&rules));
    let (plain, plain_s) = search_with(win_in_one(), config(0.0), &mut eval, 3, true);
    let (forced, forced_s) = search_with(win_in_one(), config(2.0), &mut eval, 3, true);
    // Both find the win.
    assert_eq!(name(&rules, plain.action), "f4-f6");
    assert_eq!(name(&rules, forced.action), "f4-f6");
    // Every root move got about its forced visits, sqrt(2 * prior * 400); without forcing
    // some of them get almost none beside a winning move.
    let forced_visits = root_visits(&forced_s);
    for &(visits, prior) in &forced_visits {
        let owed = (2.0 * prior * 400.0).sqrt();
        assert!(visits as f32 >= owed - 2.0, "{visits} visits, owed {owed}");
    }
    let fewest = |v: &[(u32, f32)]| v.iter().map(|&(n, _)| n).min().unwrap();
    assert!(fewest(&forced_visits) > fewest(&root_visits(&plain_s)));
    // The target takes the forced visits back: the losing moves keep no more of it than
    // their raw share of the visits, and the win keeps all of its own.
    let share = |r: &SearchResult| {
        r.policy
            .iter()
            .find(|&&(a, _)| usize::from(a) == forced.action)
            .unwrap()
            .1
    };
    let win_visits = forced_visits.iter().map(|&(n, _)| n).max().unwrap() as f32;
    let raw_share = win_visits / forced_visits.iter().map(|&(n, _)| n as f32).sum::<f32>();
    assert!(
        share(&forced) > raw_share,
        "{} against {raw_share}",
        share(&forced)
    );
    let total: f32 = forced.policy.iter().map(|&(_, p)| p).sum();
    assert!((total - 1.0).abs() < 1e-5, "{total}");
    // A move left with a single visit after pruning is cut from the target entirely.
    assert!(
        forced
            .policy
            .iter()
            .all(|&(_, p)| p == 0.0 || p * win_visits / share(&forced) > 1.5)
    );
}

/// [`HashEvaluator`] with its logits eight times as steep: a network sure of a few moves,
/// whose other moves a short search never visits.
#[derive(Clone)]
struct SharpEvaluator(HashEvaluator);

impl Evaluator for SharpEvaluator {
    fn input_len(&self) -> usize {
        self.0.input_len()
    }
    fn actions(&self) -> usize {
        self.0.actions()
    }
    fn evaluate(
        &mut self,
        features: &[f32],
        batch: usize,
        logits: &mut Vec<f32>,
        wdl: &mut Vec<f32>,
    ) {
        self.0.evaluate(features, batch, logits, wdl);
        logits.iter_mut().for_each(|l| *l *= 8.0);
    }
}

#[test]
fn forced_playouts_of_the_visited_scope_force_only_moves_with_a_visit() {
    let rules = six();
    let config = |forced_playouts_scope| SearchConfig {
        simulations: 64,
        forced_playouts: 2.0,
        forced_playouts_scope,
        ..SearchConfig::default()
    };
    let mut eval = SharpEvaluator(HashEvaluator(uniform(&rules)));
    let start = || Game::new(rules);
    let (_, all) = search_with(start(), config(ForcedScope::All), &mut eval, 4, true);
    let (_, visited) = search_with(start(), config(ForcedScope::Visited), &mut eval, 4, true);
    // Every move of the empty board is forced into the search, or only those PUCT reached.
    assert!(root_visits(&all).iter().all(|&(n, _)| n > 0));
    let visited = root_visits(&visited);
    assert!(visited.iter().any(|&(n, _)| n == 0), "{visited:?}");
    let root_total: u32 = visited.iter().map(|&(n, _)| n).sum::<u32>() + 1;
    for &(n, prior) in &visited {
        let owed = (2.0 * prior * root_total as f32).sqrt();
        assert!(n == 0 || n as f32 >= owed - 2.0, "{n} visits, owed {owed}");
    }
}

#[test]
fn policy_surprise_is_the_divergence_of_the_target_from_the_softmax_of_the_logits() {
    assert!(policy_surprise(&[0.5, 0.5], &[3.0, 3.0]).abs() < 1e-6);
    assert!((policy_surprise(&[1.0, 0.0], &[0.0, 0.0]) - 2f32.ln()).abs() < 1e-6);
    // softmax([ln 3, 0]) = [0.75, 0.25]; KL([0.25, 0.75] ‖ [0.75, 0.25]) = 0.5 ln 3.
    let kl = policy_surprise(&[0.25, 0.75], &[3f32.ln(), 0.0]);
    assert!((kl - 0.5 * 3f32.ln()).abs() < 1e-6, "{kl}");
}

#[test]
fn the_search_measures_its_surprise_against_the_networks_prior_before_noise() {
    let rules = six();
    let config = SearchConfig {
        simulations: 200,
        ..SearchConfig::default()
    };
    let mut eval = HashEvaluator(uniform(&rules));
    // Without noise the root's priors are the network's own.
    let (_, plain) = search_with(win_in_one(), config.clone(), &mut eval, 5, false);
    let (noised, noised_s) = search_with(win_in_one(), config, &mut eval, 5, true);
    assert_eq!(name(&rules, noised.action), "f4-f6");
    let kl = |priors: &[(u32, f32)]| -> f32 {
        noised
            .policy
            .iter()
            .zip(priors)
            .filter(|((_, p), _)| *p > 0.0)
            .map(|(&(_, p), &(_, q))| p * (p / q).ln())
            .sum()
    };
    let (raw, with_noise) = (kl(&root_visits(&plain)), kl(&root_visits(&noised_s)));
    assert!(
        (noised.surprise - raw).abs() < 1e-4,
        "{} against {raw}",
        noised.surprise
    );
    assert!(
        (raw - with_noise).abs() > 1e-3,
        "the noise changed the priors"
    );
    // The search found a win the network's prior spread thin: a large surprise.
    assert!(raw > 0.5, "{raw}");
}

#[test]
fn forced_playouts_leave_moves_as_good_as_the_best_all_their_visits() {
    // The empty board with a uniform network: every move is worth the same, so none of
    // the visits forcing gave is taken back, and the target is the visits as they fell.
    let rules = six();
    let config = SearchConfig {
        simulations: 300,
        forced_playouts: 2.0,
        dirichlet_epsilon: 0.0,
        ..SearchConfig::default()
    };
    let (result, s) = search_with(Game::new(rules), config, &mut uniform(&rules), 2, true);
    let visits = root_visits(&s);
    let total: f32 = visits.iter().map(|&(n, _)| n as f32).sum();
    assert_eq!(visits.len(), result.policy.len());
    for (&(n, _), &(_, p)) in visits.iter().zip(&result.policy) {
        assert!(
            (p - n as f32 / total).abs() < 1e-6,
            "{p} against {n} of {total}"
        );
    }
}

#[test]
fn the_move_temperature_draws_from_the_pruned_visits() {
    let rules = six();
    let config = SearchConfig {
        simulations: 400,
        forced_playouts: 2.0,
        ..SearchConfig::default()
    };
    let ctx = SearchContext::new(rules, config.clone());
    let mut eval = HashEvaluator(uniform(&rules));
    let (result, s) = search_with(win_in_one(), config, &mut eval, 3, true);
    // The moves beside the win, by the pruned target and by the raw visits.
    let others_pruned = 1.0 - result.policy.iter().map(|&(_, p)| p).fold(0.0, f32::max);
    let visits = root_visits(&s);
    let total: u32 = visits.iter().map(|&(n, _)| n).sum();
    let most = visits.iter().map(|&(n, _)| n).max().unwrap();
    let others_raw = 1.0 - most as f32 / total as f32;
    assert!(
        others_raw > others_pruned + 0.05,
        "{others_raw} {others_pruned}"
    );
    // At temperature 1 the other moves are drawn as often as the pruned target says.
    let draws = 4000;
    let others_drawn = (0..draws)
        .filter(|&seed| s.result(&ctx, 1.0, &mut game_rng(seed, 7)).action != result.action)
        .count() as f32
        / draws as f32;
    assert!(
        (others_drawn - others_pruned).abs() < 0.03,
        "drawn {others_drawn}, pruned target {others_pruned}, raw visits {others_raw}"
    );
}

#[test]
fn forced_playouts_change_nothing_without_root_noise() {
    // Matches and evaluation search without noise: forcing is self-play's exploration.
    let rules = six();
    let run = |forced_playouts| {
        let config = SearchConfig {
            simulations: 300,
            forced_playouts,
            ..SearchConfig::default()
        };
        let (result, s) = search_with(
            must_block(),
            config,
            &mut HashEvaluator(uniform(&rules)),
            5,
            false,
        );
        (result.policy, root_visits(&s))
    };
    assert_eq!(run(0.0), run(2.0));
}

/// Uniform logits, and every position even: a win or a loss, each half the time, never a
/// draw. Only a drawn game then has a value that contempt changes.
#[derive(Clone)]
struct EvenEvaluator(UniformEvaluator);

impl Evaluator for EvenEvaluator {
    fn input_len(&self) -> usize {
        self.0.input_len
    }
    fn actions(&self) -> usize {
        self.0.actions
    }
    fn evaluate(&mut self, _: &[f32], batch: usize, logits: &mut Vec<f32>, wdl: &mut Vec<f32>) {
        logits.clear();
        logits.resize(batch * self.0.actions, 0.0);
        wdl.clear();
        for _ in 0..batch {
            wdl.extend_from_slice(&[0.5, 0.0, 0.5]);
        }
    }
}

/// Nine Men's Morris, moving, no mill within reach: each side can shuttle a man to and
/// fro, so positions repeat after four plies.
fn shuttle() -> Game {
    game_at(
        Rules::new(Variant::Nine),
        "a1 g1 b4 f6",
        "g7 a7 d3 e5",
        [0, 0],
        Color::White,
        20,
    )
}

#[test]
fn contempt_avoids_a_draw_by_repetition_and_negative_contempt_takes_it() {
    let rules = Rules::new(Variant::Nine);
    let mut game = shuttle();
    // The start occurs twice and Black to move after d1-a1 twice: d7-g7 repeats the
    // start a third time, a draw.
    game.play_text("a1-d1 g7-d7 d1-a1 d7-g7 a1-d1 g7-d7 d1-a1")
        .unwrap();
    let repeat = ActionSpace::new(&rules).index("d7-g7".parse().unwrap());
    for (contempt, takes_draw) in [(0.5, false), (-0.5, true)] {
        let config = SearchConfig {
            simulations: 400,
            contempt,
            ..SearchConfig::default()
        };
        let (action, _) = search(game.clone(), config, &mut EvenEvaluator(uniform(&rules)), 3);
        assert_eq!(
            action == repeat,
            takes_draw,
            "contempt {contempt}: {}",
            name(&rules, action)
        );
    }
}

/// The draws a search's tree holds at its terminal nodes, and whether `line`'s node is
/// one of them.
fn draws_in_tree(s: &GameSearch, rules: &Rules, line: &str) -> (usize, bool) {
    let tree = s.tree();
    let draw = |id| {
        let n = tree.node(id);
        n.state == NodeState::Terminal && n.value == [0.0, 1.0, 0.0]
    };
    let all = (1..tree.nodes.len() as u32).filter(|&id| draw(id)).count();
    let actions = ActionSpace::new(rules);
    let mut id = 0;
    for mv in line.split_whitespace() {
        let a = actions.index(mv.parse().unwrap());
        id = tree
            .children(id)
            .find(|&c| usize::from(tree.node(c).action) == a)
            .expect("the line is in the tree");
    }
    (all, draw(id))
}

#[test]
fn twofold_draws_score_a_repetition_inside_the_searched_line_only() {
    let rules = Rules::new(Variant::Nine);
    let back = "a1-d1 g7-d7 d1-a1 d7-g7";
    let tree_draws = |game: Game, twofold_draws, line| {
        let config = SearchConfig {
            simulations: 3000,
            twofold_draws,
            ..SearchConfig::default()
        };
        let (_, s) = search(game, config, &mut EvenEvaluator(uniform(&rules)), 4);
        draws_in_tree(&s, &rules, line)
    };
    // From a fresh game, the start met again four plies down is a draw, and only then.
    assert_eq!(tree_draws(shuttle(), false, back), (0, false));
    let (draws, back_is_draw) = tree_draws(shuttle(), true, back);
    assert!(back_is_draw && draws > 1, "{draws} draws");
    // Once the game has shuttled, the first move repeats a position of the game before
    // the search began: not a draw yet.
    let mut game = shuttle();
    game.play_text(back).unwrap();
    let (_, first_is_draw) = tree_draws(game, true, "a1-d1");
    assert!(!first_is_draw);
}

#[test]
fn avoids_losing_in_one_with_a_uniform_network() {
    for root in [RootSearch::Puct, RootSearch::Gumbel] {
        let config = SearchConfig {
            root,
            simulations: 400,
            gumbel_actions: 16,
            ..SearchConfig::default()
        };
        let rules = six();
        let (action, _) = search(must_block(), config, &mut uniform(&rules), 2);
        assert_eq!(name(&rules, action), "f6", "{root:?}");
    }
}

fn job(
    games: u64,
    games_per_thread: usize,
    threads: usize,
    root: RootSearch,
    out: Option<std::path::PathBuf>,
) -> SelfPlayJob {
    SelfPlayJob {
        rules: six(),
        search: SearchConfig {
            root,
            simulations: 24,
            cache_entries: 500,
            ..SearchConfig::default()
        },
        selfplay: SelfPlayConfig {
            threads,
            games_per_thread,
            games_per_shard: 3,
            max_plies: 80,
            playout_cap: PlayoutCap {
                enabled: true,
                full_probability: 0.5,
                cheap_simulations: 8,
            },
            ..SelfPlayConfig::default()
        },
        games,
        skip: Default::default(),
        seed: 7,
        out,
        shard_prefix: "test".into(),
        model: "hash".into(),
        endgame: None,
        branch_from: Default::default(),
    }
}

#[test]
fn batched_and_unbatched_self_play_give_the_same_games() {
    let rules = six();
    let eval = HashEvaluator(uniform(&rules));
    for root in [RootSearch::Puct, RootSearch::Gumbel] {
        let (_, one) = run(&job(6, 1, 1, root, None), &eval, None).unwrap();
        let (stats, many) = run(&job(6, 6, 1, root, None), &eval, None).unwrap();
        let (_, threads) = run(&job(6, 3, 2, root, None), &eval, None).unwrap();
        assert_eq!(one.len(), 6);
        assert_eq!(one, many, "{root:?}: one game at a time vs six interleaved");
        assert_eq!(one, threads, "{root:?}: one thread vs two");
        assert!(
            stats.evaluations as f64 / stats.batches as f64 > 1.5,
            "leaves share batches"
        );
        // Playout cap randomisation made both kinds of search.
        let samples: Vec<_> = one.iter().flat_map(|g| &g.samples).collect();
        assert!(samples.iter().any(|s| s.full_search) && samples.iter().any(|s| !s.full_search));
        for s in samples {
            let total: f32 = s.policy.iter().map(|p| p.1).sum();
            assert!((total - 1.0).abs() < 1e-4, "policy sums to 1");
            assert!((-1..=1).contains(&s.result));
        }
    }
    // Another seed gives other games.
    let mut other = job(6, 6, 1, RootSearch::Puct, None);
    other.seed = 8;
    let (_, a) = run(&job(6, 6, 1, RootSearch::Puct, None), &eval, None).unwrap();
    let (_, b) = run(&other, &eval, None).unwrap();
    assert_ne!(a, b);
}

#[test]
fn random_openings_vary_the_starts_are_not_samples_and_stay_reproducible() {
    let rules = six();
    let eval = HashEvaluator(uniform(&rules));
    let opening = |games_per_thread, threads| {
        let mut j = job(12, games_per_thread, threads, RootSearch::Puct, None);
        j.selfplay.random_opening_plies = 6;
        run(&j, &eval, None).unwrap().1
    };
    let one = opening(1, 1);
    assert_eq!(
        one,
        opening(4, 2),
        "the same games however they are interleaved"
    );
    let start = Game::new(rules).position().key();
    let mut skipped = 0;
    for g in &one {
        let opened = g.plies as usize - g.samples.len();
        assert!(
            opened <= 6,
            "game {}: {opened} plies without a sample",
            g.index
        );
        // Samples begin where the opening ended: at the start only after none.
        let first = g.samples[0].position.key();
        assert_eq!(first == start, opened == 0, "game {}", g.index);
        skipped += opened;
    }
    assert!(skipped > 12, "openings of 0..=6 plies, {skipped} in all");
    let (_, plain) = run(&job(12, 1, 1, RootSearch::Puct, None), &eval, None).unwrap();
    assert!(plain.iter().all(|g| g.plies as usize == g.samples.len()));
}

/// The branch pool of a plain job's games, and the keys of every position they searched.
fn earlier_games(eval: &HashEvaluator) -> (BranchPool, std::collections::HashSet<u64>) {
    let (_, earlier) = run(&job(8, 4, 1, RootSearch::Puct, None), eval, None).unwrap();
    let samples = || earlier.iter().flat_map(|g| &g.samples);
    let keys = samples().map(|s| s.position.key()).collect();
    (
        BranchPool::from_samples(&six(), samples(), None, &BranchStarts::default()),
        keys,
    )
}

#[test]
fn branch_starts_begin_at_earlier_games_moving_positions_and_skip_the_opening() {
    let rules = six();
    let eval = HashEvaluator(uniform(&rules));
    let (pool, searched) = earlier_games(&eval);
    let pool = Arc::new(pool);
    assert!(pool.len() > 50, "{} moving-phase positions", pool.len());
    let branching = |pool: Arc<BranchPool>, games_per_thread, threads| {
        let mut j = job(16, games_per_thread, threads, RootSearch::Puct, None);
        j.selfplay.random_opening_plies = 6;
        j.selfplay.branch_starts.share = 0.5;
        j.branch_from = pool;
        run(&j, &eval, None).unwrap()
    };
    let (stats, games) = branching(pool.clone(), 1, 1);
    let branched: Vec<_> = games.iter().filter(|g| g.branch_start).collect();
    assert_eq!(stats.branch_starts, branched.len() as u64);
    assert!(
        (3..=13).contains(&branched.len()),
        "{} of 16 games branched",
        branched.len()
    );
    for g in &branched {
        let first = g.samples[0].position;
        assert_eq!(first.men_in_hand(), 0);
        assert!(
            searched.contains(&first.key()),
            "game {}: not an earlier position",
            g.index
        );
        // No random opening before a branch: every ply is a sample.
        assert_eq!(g.plies as usize, g.samples.len(), "game {}", g.index);
        assert!(!g.random_start);
    }
    // Choosing a game's kind disturbs no other game; the games repeat however they are
    // interleaved; an empty pool (a run's first generation) starts every game as usual.
    let (none, plain) = branching(Arc::default(), 1, 1);
    assert_eq!(none.branch_starts, 0);
    for (a, b) in games.iter().zip(&plain) {
        if !a.branch_start {
            assert_eq!(a, b);
        }
    }
    assert_eq!(
        games,
        branching(pool, 4, 2).1,
        "the same games however interleaved"
    );
}

/// `placing` adds the placing phase's positions to the pool; `closing_mills` starts that
/// share of the branches after a move that closes a mill, with its removal pending:
/// each a position one legal move from a pooled one, drawn by the same seed alike.
#[test]
fn branch_starts_take_placing_positions_and_closed_mills_where_asked() {
    let rules = six();
    let eval = HashEvaluator(uniform(&rules));
    let (_, earlier) = run(&job(8, 4, 1, RootSearch::Puct, None), &eval, None).unwrap();
    let samples = || earlier.iter().flat_map(|g| &g.samples);
    let pool = |placing, closing_mills| {
        let settings = BranchStarts {
            placing,
            closing_mills,
            ..BranchStarts::default()
        };
        BranchPool::from_samples(&rules, samples(), None, &settings)
    };
    let (moving, all) = (pool(false, 0.0), pool(true, 0.0));
    let in_hand = |p: &Position| p.men_in_hand() > 0;
    let placing = samples().filter(|s| in_hand(&s.position)).count();
    assert!(placing > 20, "{placing} placing samples");
    assert_eq!(
        all.len(),
        moving.len() + placing,
        "every open position of both phases"
    );
    assert_eq!(moving.closing_len(), 0);
    // Every position after a mill-closing move of a pooled position, and only those.
    let mut after = std::collections::HashSet::new();
    for s in samples().filter(|s| !s.position.pending_removal()) {
        for mv in s.position.legal_moves(&rules) {
            let mut next = s.position;
            next.play_unchecked(&rules, mv);
            if next.pending_removal() {
                after.insert(next.key());
            }
        }
    }
    let closing = pool(true, 1.0);
    assert!(closing.closing_len() > 10, "{}", closing.closing_len());
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    for _ in 0..200 {
        let p = closing.draw(&mut rng).unwrap();
        assert!(p.pending_removal() && after.contains(&p.key()));
    }
    // With a share of 0.5, half the draws come after a closed mill, the other half from
    // the pool as without the setting (where removal decisions are pending too).
    let pending = |pool: &BranchPool| {
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        (0..400)
            .filter(|_| pool.draw(&mut rng).unwrap().pending_removal())
            .count()
    };
    let (plain, half) = (pending(&all), pending(&pool(true, 0.5)));
    let expected = 200 + plain / 2;
    assert!(
        half.abs_diff(expected) <= 40,
        "{half} of 400 with a removal pending, about {expected} expected"
    );
}

#[test]
fn branch_games_draw_their_first_moves_at_the_opening_temperature_only() {
    let rules = six();
    let eval = HashEvaluator(uniform(&rules));
    let mut j = job(16, 4, 1, RootSearch::Puct, None);
    j.branch_from = Arc::new(earlier_games(&eval).0);
    j.selfplay.branch_starts.share = 1.0;
    j.selfplay.branch_starts.temperature_plies = 2;
    j.search.temperature_plies = 200;
    j.search.late_temperature = 1.0;
    let (_, games) = run(&j, &eval, None).unwrap();
    assert!(games.iter().all(|g| g.branch_start));
    // Moves drawn after the branch's own temperature plies are the late temperature's,
    // marked where worse than the search's choice; the two before are not.
    let marked: usize = games
        .iter()
        .flat_map(|g| g.samples.iter().skip(2))
        .filter(|s| s.explored)
        .count();
    assert!(marked > 0, "no late move marked after the branch");
    assert!(
        games
            .iter()
            .all(|g| g.samples.iter().take(2).all(|s| !s.explored))
    );
}

#[test]
fn shards_round_trip_and_damage_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let rules = six();
    let eval = HashEvaluator(uniform(&rules));
    let (_, games) = run(&job(5, 5, 1, RootSearch::Puct, None), &eval, None).unwrap();
    let (stats, _) = run(
        &job(5, 5, 1, RootSearch::Puct, Some(dir.path().to_path_buf())),
        &eval,
        None,
    )
    .unwrap();
    assert_eq!(stats.shards.len(), 2, "5 games at 3 per shard");
    let mut read = Vec::new();
    let mut results = Vec::new();
    for path in &stats.shards {
        let (header, samples) = read_shard(path).unwrap();
        assert_eq!(header.rules, rules);
        assert_eq!(header.samples as usize, samples.len());
        results.extend(header.game_list.iter().map(|g| g.index));
        read.extend(samples);
    }
    let mut sorted = games.clone();
    sorted.sort_by_key(|g| g.index);
    let expected: Vec<_> = sorted.iter().flat_map(|g| g.samples.clone()).collect();
    assert_eq!(read.len(), expected.len());
    // Shards hold games in the order they finished; compare as sets of samples.
    for s in &expected {
        assert!(read.contains(s));
    }
    results.sort_unstable();
    assert_eq!(results, [0, 1, 2, 3, 4], "every game in exactly one shard");

    // A resumed run skips the games already played and writes only the others.
    let dir2 = tempfile::tempdir().unwrap();
    let mut resumed = job(5, 5, 1, RootSearch::Puct, Some(dir2.path().to_path_buf()));
    resumed.skip = [0, 1, 3].into_iter().collect();
    let (stats2, _) = run(&resumed, &eval, None).unwrap();
    assert_eq!(stats2.games, 2);
    let (_, again) = read_shard(&stats2.shards[0]).unwrap();
    let expected2: Vec<_> = sorted
        .iter()
        .filter(|g| g.index == 2 || g.index == 4)
        .flat_map(|g| g.samples.clone())
        .collect();
    assert_eq!(
        again.len(),
        expected2.len(),
        "the same games as in the first run"
    );
    for s in &again {
        assert!(expected2.contains(s));
    }

    let path = &stats.shards[0];
    let good = std::fs::read(path).unwrap();
    let mut bad = good.clone();
    let at = good.len() / 2;
    bad[at] ^= 0x10;
    std::fs::write(path, &bad).unwrap();
    let err = read_shard(path).unwrap_err().to_string();
    assert!(
        err.contains("damaged") && err.contains("test-g0000000"),
        "{err}"
    );
    std::fs::write(path, &good[..good.len() - 7]).unwrap();
    assert!(read_shard(path).is_err());
}

#[test]
fn shards_record_each_games_final_board_and_refuse_a_false_one() {
    use kvarn_selfplay::shard::{SHARD_FORMAT_VERSION, SHARD_MAGIC};
    let dir = tempfile::tempdir().unwrap();
    let rules = six();
    let eval = HashEvaluator(uniform(&rules));
    let (stats, _) = run(
        &job(4, 4, 1, RootSearch::Puct, Some(dir.path().to_path_buf())),
        &eval,
        None,
    )
    .unwrap();
    let path = &stats.shards[0];
    let (mut header, samples) = read_shard(path).unwrap();
    let mut rest = samples.iter();
    for g in &header.game_list {
        let game: Vec<_> = rest.by_ref().take(g.samples as usize).collect();
        let [white, black] = g.final_board(&rules).unwrap().expect("recorded");
        // The final board is the last searched position after one of its legal moves.
        let last = game.last().expect("a searched position").position;
        let before = Game::from_position(rules, last).unwrap();
        let reached = before.legal_moves().into_iter().any(|mv| {
            let mut g = before.clone();
            g.play_unchecked(mv);
            let p = g.position();
            p.men(Color::White) == white && p.men(Color::Black) == black
        });
        assert!(reached, "game {}: final board not one move on", g.index);
    }
    // Overlapping men, or men off the board, are refused by name.
    let (_, payload): (serde_json::Value, Vec<u8>) =
        kvarn_storage::read_container(path, SHARD_MAGIC, "shard", SHARD_FORMAT_VERSION).unwrap();
    header.game_list[0].final_men = Some([0b11, 0b10]);
    kvarn_storage::write_container(path, SHARD_MAGIC, SHARD_FORMAT_VERSION, &header, &payload)
        .unwrap();
    let err = read_shard(path).unwrap_err().to_string();
    assert!(
        err.contains("final men") && err.contains("not disjoint"),
        "{err}"
    );
}

#[test]
fn shards_written_before_the_surprise_was_recorded_read_with_none() {
    use kvarn_selfplay::shard::{SHARD_FORMAT_VERSION, SHARD_MAGIC};
    let dir = tempfile::tempdir().unwrap();
    let rules = six();
    let eval = HashEvaluator(uniform(&rules));
    let (stats, _) = run(
        &job(1, 1, 1, RootSearch::Puct, Some(dir.path().to_path_buf())),
        &eval,
        None,
    )
    .unwrap();
    let path = &stats.shards[0];
    let (header, samples) = read_shard(path).unwrap();
    assert!(samples.iter().any(|s| s.surprise > 0.0));
    // The same samples in the layout before: flag bit 2 clear, no surprise after the
    // search value (flags at byte 17 of a sample, the surprise at 31..35).
    let (_, payload): (serde_json::Value, Vec<u8>) =
        kvarn_storage::read_container(path, SHARD_MAGIC, "shard", SHARD_FORMAT_VERSION).unwrap();
    let (mut old, mut at) = (Vec::new(), 0);
    for s in &samples {
        let len = 35 + 2 + 6 * s.policy.len();
        let sample = &payload[at..at + len];
        assert_eq!(sample[17] & 4, 4, "the surprise flag is set");
        old.extend_from_slice(&sample[..17]);
        old.push(sample[17] & !4);
        old.extend_from_slice(&sample[18..31]);
        old.extend_from_slice(&sample[35..]);
        at += len;
    }
    assert_eq!(at, payload.len());
    kvarn_storage::write_container(path, SHARD_MAGIC, SHARD_FORMAT_VERSION, &header, &old).unwrap();
    let (_, read) = read_shard(path).unwrap();
    assert_eq!(read.len(), samples.len());
    for (r, s) in read.iter().zip(&samples) {
        assert_eq!(r.surprise, 0.0);
        assert_eq!(
            Sample {
                surprise: s.surprise,
                ..r.clone()
            },
            *s
        );
    }
}

#[test]
fn a_search_player_beats_random_play_in_a_match() {
    use kvarn_arena::matches::{MatchConfig, run_match};
    let rules = six();
    let player = kvarn_selfplay::SearchPlayer::new(
        "search64",
        SearchConfig {
            simulations: 64,
            ..SearchConfig::default()
        },
        uniform(&rules),
    );
    let random = kvarn_arena::agent::AgentSpec::random();
    let cfg = MatchConfig {
        rules,
        games: 8,
        seed: 3,
        opening_plies: 2,
    };
    let report = run_match(&cfg, &player, &random, |_| {}).unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert_eq!(report.records[0].white, "search64");
    let t = report.tally;
    assert!(
        t.wins > t.losses + 3,
        "search with a uniform network against random: {t:?}"
    );
}

/// Plies of `games` whose move was not the one the search visited most.
fn moves_off_the_most_visited(rules: &Rules, games: &[kvarn_selfplay::PlayedGame]) -> usize {
    decisions_off_the_most_visited(rules, games, |_| true)
}

/// Decisions of `games` whose position passes `which` where the move played was not the
/// most visited.
fn decisions_off_the_most_visited(
    rules: &Rules,
    games: &[kvarn_selfplay::PlayedGame],
    which: impl Fn(&Position) -> bool,
) -> usize {
    let actions = ActionSpace::new(rules);
    let mut off = 0;
    for g in games {
        for pair in g.samples.windows(2) {
            let (before, after) = (&pair[0], &pair[1]);
            if !which(&before.position) {
                continue;
            }
            let played = before
                .position
                .legal_moves(rules)
                .iter()
                .copied()
                .find(|&m| {
                    let mut p = before.position;
                    p.play_unchecked(rules, m);
                    p.key() == after.position.key()
                });
            let played = actions.index(played.expect("consecutive samples are one move apart"));
            let most = before.policy.iter().map(|p| p.1).fold(0f32, f32::max);
            let share = before
                .policy
                .iter()
                .find(|p| usize::from(p.0) == played)
                .unwrap()
                .1;
            off += usize::from(share < most);
        }
    }
    off
}

#[test]
fn a_deeper_side_searches_with_more_simulations_in_its_share_of_the_games() {
    let rules = six();
    let eval = HashEvaluator(uniform(&rules));
    let play = |share: f64, factor: u32, games_per_thread: usize, threads: usize| {
        let mut j = job(12, games_per_thread, threads, RootSearch::Puct, None);
        j.selfplay.deep_side = DeepSide { share, factor };
        run(&j, &eval, None).unwrap()
    };
    let per_ply = |stats: &kvarn_selfplay::SelfPlayStats| {
        stats.evaluations as f64 / stats.plies.max(1) as f64
    };
    let (plain, plain_games) = play(0.0, 4, 3, 1);
    assert!(plain_games.iter().all(|g| g.deep_side.is_none()));
    assert_eq!(plain.deep_side_results.games(), 0);

    let (deep, deep_games) = play(1.0, 4, 3, 1);
    let sides: Vec<_> = deep_games.iter().filter_map(|g| g.deep_side).collect();
    assert_eq!(sides.len(), 12, "every game has a deeper side");
    assert!(sides.contains(&Color::White) && sides.contains(&Color::Black));
    assert_eq!(deep.deep_side_results.games(), 12);
    // Half the moves at four times the simulations: about 2.5 times the network calls.
    assert!(
        per_ply(&deep) > 1.8 * per_ply(&plain),
        "{} against {} network calls a ply",
        per_ply(&deep),
        per_ply(&plain)
    );
    assert_eq!(
        deep_games,
        play(1.0, 4, 4, 2).1,
        "the same games however interleaved"
    );

    let (_, half) = play(0.5, 4, 3, 1);
    let with = half.iter().filter(|g| g.deep_side.is_some()).count();
    assert!(
        (2..=10).contains(&with),
        "{with} of 12 games with a deeper side"
    );
}

#[test]
fn late_temperature_varies_moves_after_the_temperature_plies_reproducibly() {
    let rules = six();
    let eval = HashEvaluator(uniform(&rules));
    let games = |late: f32, games_per_thread: usize, threads: usize| {
        let mut j = job(8, games_per_thread, threads, RootSearch::Puct, None);
        j.search.temperature_plies = 0;
        j.search.late_temperature = late;
        j.selfplay.playout_cap.enabled = false;
        run(&j, &eval, None).unwrap().1
    };
    let greedy = games(0.0, 1, 1);
    assert_eq!(moves_off_the_most_visited(&rules, &greedy), 0);
    let late = games(1.0, 1, 1);
    let off = moves_off_the_most_visited(&rules, &late);
    let plies: usize = late.iter().map(|g| g.samples.len() - 1).sum();
    assert!(
        off * 10 > plies,
        "{off} of {plies} moves off the most visited"
    );
    assert_eq!(late, games(1.0, 4, 2), "the same games however interleaved");
}

#[test]
fn late_temperature_off_removals_keeps_their_most_visited_choice_and_varies_the_moves() {
    let rules = six();
    let eval = HashEvaluator(uniform(&rules));
    let games = |on_removals: bool| {
        let mut j = job(12, 1, 1, RootSearch::Puct, None);
        j.search.temperature_plies = 0;
        j.search.late_temperature = 1.0;
        j.search.late_temperature_on_removals = on_removals;
        j.selfplay.playout_cap.enabled = false;
        run(&j, &eval, None).unwrap().1
    };
    let removals = |p: &Position| p.pending_removal();
    let others = |p: &Position| !p.pending_removal();
    let all = games(true);
    assert!(decisions_off_the_most_visited(&rules, &all, removals) > 0);
    let moves_only = games(false);
    assert_eq!(
        decisions_off_the_most_visited(&rules, &moves_only, removals),
        0
    );
    let removal_decisions: usize = moves_only
        .iter()
        .map(|g| {
            g.samples
                .iter()
                .filter(|s| s.position.pending_removal())
                .count()
        })
        .sum();
    assert!(removal_decisions > 5, "{removal_decisions} removals played");
    assert!(decisions_off_the_most_visited(&rules, &moves_only, others) > 20);
}

#[test]
fn the_lowest_temperature_plays_a_most_visited_move_and_never_fails() {
    let rules = six();
    let config = SearchConfig {
        simulations: 300,
        ..SearchConfig::default()
    };
    let ctx = SearchContext::new(rules, config.clone());
    let (_, s) = search(Game::new(rules), config, &mut uniform(&rules), 3);
    let visits: Vec<(usize, u32)> = s
        .tree()
        .children(0)
        .map(|c| {
            (
                usize::from(s.tree().node(c).action),
                s.tree().node(c).visits,
            )
        })
        .collect();
    let most = visits.iter().map(|v| v.1).max().unwrap();
    let mut rng = game_rng(5, 0);
    let mut chosen = std::collections::BTreeSet::new();
    for _ in 0..50 {
        let tiny = s.result(&ctx, 1e-4, &mut rng).action;
        assert!(
            visits.contains(&(tiny, most)),
            "{tiny} is not a most visited move"
        );
        chosen.insert(s.result(&ctx, 1.0, &mut rng).action);
    }
    assert!(chosen.len() > 3, "temperature 1 played only {chosen:?}");
}

/// A temperature with `temperature_value_cutoff` draws only moves whose value is within the
/// cutoff of the most visited move's: in `must_block`, where every placement but the block
/// loses, never one the search knows loses; without the cutoff the same temperature does.
#[test]
fn the_temperature_value_cutoff_draws_only_moves_near_the_best_value() {
    let rules = six();
    let config = |cutoff| SearchConfig {
        simulations: 300,
        temperature_value_cutoff: cutoff,
        ..SearchConfig::default()
    };
    let (_, s) = search(must_block(), config(2.0), &mut uniform(&rules), 3);
    let tree = s.tree();
    let side = tree.node(0).side;
    let q = |action: usize| {
        let child = tree
            .children(0)
            .find(|&c| usize::from(tree.node(c).action) == action)
            .unwrap();
        tree.node(child).q_for(side, 0.0)
    };
    let ctx = SearchContext::new(rules, config(2.0));
    let best = q(s.result(&ctx, 0.0, &mut game_rng(1, 0)).action);
    let lowest = |cutoff: f32| {
        let ctx = SearchContext::new(rules, config(cutoff));
        let mut rng = game_rng(5, 0);
        (0..200)
            .map(|_| q(s.result(&ctx, 5.0, &mut rng).action))
            .fold(f32::INFINITY, f32::min)
    };
    assert!(
        lowest(2.0) < best - 0.2,
        "without a cutoff a losing placement is drawn"
    );
    for cutoff in [0.0, 0.1, 0.2] {
        let low = lowest(cutoff);
        assert!(
            low >= best - cutoff,
            "cutoff {cutoff}: drew a move of value {low}, the best is {best}"
        );
    }
}

/// A move drawn off the most visited one is marked explored when its value is below the
/// most visited move's by more than `explored_value_gap`, and only then: in `must_block`
/// the temperature draws placements the search knows lose.
#[test]
fn a_drawn_move_is_marked_explored_by_its_value_gap() {
    let rules = six();
    let config = |gap| SearchConfig {
        simulations: 300,
        explored_value_gap: gap,
        ..SearchConfig::default()
    };
    let (_, s) = search(must_block(), config(0.0), &mut uniform(&rules), 3);
    let tree = s.tree();
    let side = tree.node(0).side;
    let q = |action: usize| {
        let child = tree
            .children(0)
            .find(|&c| usize::from(tree.node(c).action) == action)
            .unwrap();
        tree.node(child).q_for(side, 0.0)
    };
    let ctx = SearchContext::new(rules, config(0.0));
    let greedy = s.result(&ctx, 0.0, &mut game_rng(1, 0));
    assert!(!greedy.explored, "the most visited move is not explored");
    let (most, best) = (greedy.action, q(greedy.action));
    for gap in [0.0, 0.2, 2.0] {
        let ctx = SearchContext::new(rules, config(gap));
        let mut rng = game_rng(5, 0);
        let mut marked = 0;
        for _ in 0..200 {
            let r = s.result(&ctx, 5.0, &mut rng);
            let worse = r.action != most && q(r.action) < best - gap;
            assert_eq!(
                r.explored,
                worse,
                "gap {gap}, move {}",
                name(&rules, r.action)
            );
            marked += usize::from(r.explored);
        }
        assert_eq!(marked > 0, gap < 2.0, "gap {gap}: {marked} of 200 marked");
    }
}

/// Self-play marks only the late temperature's moves: the opening's vary the starts.
#[test]
fn self_play_marks_only_the_late_moves_drawn_off_the_searchs_choice() {
    let rules = six();
    let eval = HashEvaluator(uniform(&rules));
    let games = |late: f32| {
        let mut j = job(8, 1, 1, RootSearch::Puct, None);
        j.search.temperature_plies = 4;
        j.search.late_temperature = late;
        run(&j, &eval, None).unwrap().1
    };
    let marked = |games: &[kvarn_selfplay::PlayedGame]| -> usize {
        games
            .iter()
            .flat_map(|g| &g.samples)
            .filter(|s| s.explored)
            .count()
    };
    let late = games(1.0);
    assert!(
        marked(&late) > 0,
        "a late temperature of 1 draws worse moves"
    );
    assert!(
        late.iter()
            .all(|g| g.samples[..4].iter().all(|s| !s.explored))
    );
    assert_eq!(marked(&games(0.0)), 0, "greedy late moves are never marked");
}

/// Evaluates one position's features with `evaluator`.
fn evaluate_one(
    evaluator: &mut impl Evaluator,
    rules: &Rules,
    pos: &Position,
) -> (Vec<f32>, Vec<f32>) {
    let mut features = vec![0.0; encoding::input_len(rules)];
    encoding::encode_position(rules, pos, 1, &mut features);
    let (mut logits, mut wdl) = (Vec::new(), Vec::new());
    evaluator.evaluate(&features, 1, &mut logits, &mut wdl);
    (logits, wdl)
}

#[test]
fn the_mean_over_every_image_is_the_same_for_every_image() {
    let rules = six();
    let space = ActionSpace::new(&rules);
    let mut averaged = SymmetryAveraged::new(HashEvaluator(uniform(&rules)), &rules, 16);
    let pos = *must_block().position();
    let (logits, wdl) = evaluate_one(&mut averaged, &rules, &pos);
    let (plain_logits, plain_wdl) = evaluate_one(&mut HashEvaluator(uniform(&rules)), &rules, &pos);
    assert_ne!(wdl, plain_wdl, "the mean differs from one image's answer");
    assert_ne!(logits, plain_logits);
    for sym in 1..kvarn_game::SYMMETRY_COUNT {
        let image = pos.transformed(&rules, sym);
        let (image_logits, image_wdl) = evaluate_one(&mut averaged, &rules, &image);
        for (a, b) in wdl.iter().zip(&image_wdl) {
            assert!(
                (a - b).abs() < 1e-5,
                "symmetry {sym}: {wdl:?} against {image_wdl:?}"
            );
        }
        let perm = space.symmetry_permutation(sym);
        for mv in pos.legal_moves(&rules) {
            let a = space.index(mv);
            let (x, y) = (logits[a], image_logits[perm[a]]);
            assert!(
                (x - y).abs() < 1e-5,
                "symmetry {sym}, {mv}: {x} against {y}"
            );
        }
    }
}

#[test]
fn one_image_is_the_evaluator_alone_and_a_batch_is_its_rows() {
    let rules = six();
    let rows: Vec<Position> = [win_in_one(), must_block(), Game::new(rules)]
        .iter()
        .map(|g| *g.position())
        .collect();
    let len = encoding::input_len(&rules);
    let mut features = vec![0.0; rows.len() * len];
    for (pos, out) in rows.iter().zip(features.chunks_exact_mut(len)) {
        encoding::encode_position(&rules, pos, 1, out);
    }
    let run = |evaluator: &mut dyn Evaluator| {
        let (mut logits, mut wdl) = (Vec::new(), Vec::new());
        evaluator.evaluate(&features, rows.len(), &mut logits, &mut wdl);
        (logits, wdl)
    };
    let plain = run(&mut HashEvaluator(uniform(&rules)));
    assert_eq!(
        run(&mut SymmetryAveraged::new(
            HashEvaluator(uniform(&rules)),
            &rules,
            1
        )),
        plain
    );
    let mut eight = SymmetryAveraged::new(HashEvaluator(uniform(&rules)), &rules, 8);
    let batched = run(&mut eight);
    let actions = ActionSpace::new(&rules).len();
    for (i, pos) in rows.iter().enumerate() {
        let (logits, wdl) = evaluate_one(&mut eight, &rules, pos);
        assert_eq!(logits, batched.0[i * actions..][..actions]);
        assert_eq!(wdl, batched.1[i * 3..][..3]);
    }
}

/// Positions `plies` random decisions from the start, one per seed, still in play.
fn random_positions(rules: Rules, plies: usize, count: u64) -> Vec<Game> {
    use rand::RngExt;
    (0..count)
        .filter_map(|seed| {
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            let mut game = Game::new(rules);
            for _ in 0..plies {
                let moves = game.legal_moves();
                if game.status() != kvarn_game::Status::Ongoing || moves.is_empty() {
                    return None;
                }
                let mv = moves[rng.random_range(0..moves.len())];
                game.play(mv).unwrap();
            }
            (game.status() == kvarn_game::Status::Ongoing).then_some(game)
        })
        .collect()
}

#[test]
fn the_lower_confidence_bound_plays_the_best_proven_move_of_those_searched_enough() {
    let rules = six();
    let lcb = SearchConfig {
        simulations: 96,
        move_choice: MoveChoice::Lcb,
        ..SearchConfig::default()
    };
    let by_visits = SearchContext::new(
        rules,
        SearchConfig {
            move_choice: MoveChoice::Visits,
            ..lcb.clone()
        },
    );
    let mut changed = 0;
    let mut eval = SharpEvaluator(HashEvaluator(uniform(&rules)));
    for game in random_positions(rules, 14, 40) {
        let (result, s) = search_with(game, lcb.clone(), &mut eval, 3, false);
        let side = s.tree().node(0).side;
        let most = s.result(&by_visits, 0.0, &mut game_rng(3, 0)).action;
        let tree = s.tree();
        let node_of = |action: usize| {
            tree.children(0)
                .map(|c| tree.node(c))
                .find(|n| usize::from(n.action) == action)
                .unwrap()
        };
        let (chosen, most_visited) = (node_of(result.action), node_of(most));
        let bound = |n: &kvarn_selfplay::tree::Node| n.lower_bound(side, 0.0, lcb.lcb_stdevs);
        let floor = LCB_MIN_VISIT_SHARE * most_visited.visits as f32;
        assert!(chosen.visits as f32 >= floor);
        for c in tree.children(0).map(|c| tree.node(c)) {
            if c.visits as f32 >= floor {
                assert!(
                    bound(c) <= bound(chosen),
                    "a move of a higher bound was passed over"
                );
            }
        }
        if result.action != most {
            changed += 1;
            assert!(bound(chosen) > bound(most_visited));
            assert!(chosen.q_for(side, 0.0) > most_visited.q_for(side, 0.0));
            assert!(chosen.visits < most_visited.visits);
        }
    }
    assert!(
        changed > 0,
        "the bound never chose another move than the most visited"
    );
}

#[test]
fn the_lower_confidence_bound_takes_standard_errors_of_a_win_draw_loss_draw() {
    let rules = six();
    let (_, s) = search(
        win_in_one(),
        SearchConfig::default(),
        &mut uniform(&rules),
        1,
    );
    let tree = s.tree();
    let root = tree.node(0);
    for c in tree
        .children(0)
        .map(|c| tree.node(c))
        .filter(|n| n.visits > 1)
    {
        let q = c.q_for(root.side, 0.0);
        let [w, _, l] = c.mean_wdl();
        let error = ((w + l - q * q).max(0.0) / c.visits as f32).sqrt();
        assert!((c.lower_bound(root.side, 0.0, 2.0) - (q - 2.0 * error)).abs() < 1e-5);
        assert_eq!(c.lower_bound(root.side, 0.0, 0.0), q);
    }
    let unvisited = tree
        .children(0)
        .map(|c| tree.node(c))
        .find(|n| n.visits == 0);
    if let Some(n) = unvisited {
        assert_eq!(n.lower_bound(root.side, 0.0, 2.0), f32::NEG_INFINITY);
    }
}

/// The network engine's MultiPV lines: the most visited root moves in order, each with
/// the visits the search gave it (its policy target, visits over their sum), the first
/// the move it plays; and `searchmoves` keeps the search, and its move, within the list.
#[test]
fn multipv_lines_agree_with_the_search_and_searchmoves_restrict_it() {
    use kvarn_engine::protocol::Request;
    use kvarn_engine::search::Limits;
    let rules = Rules::new(Variant::Nine);
    let player = kvarn_selfplay::SearchPlayer::new(
        "hash",
        SearchConfig::default(),
        HashEvaluator(uniform(&rules)),
    );
    let space = ActionSpace::new(&rules);
    for (i, game) in random_positions(rules, 24, 12).iter().enumerate() {
        let mut agent = player.agent(rules, 7);
        let legal = game.legal_moves();
        let searchmoves: Vec<_> = if i % 2 == 0 {
            Vec::new()
        } else {
            legal.iter().copied().step_by(2).collect()
        };
        let request = Request {
            limits: Limits {
                nodes: Some(300),
                ..Limits::default()
            },
            searchmoves: searchmoves.clone(),
            multipv: 4,
        };
        let mut lines = Vec::new();
        let result = agent.limited_search(
            game,
            &request,
            None,
            Some(&mut |l: &str| {
                lines.push(l.to_string());
            }),
        );
        let chosen = space.decode(result.action).unwrap();
        if !searchmoves.is_empty() {
            assert!(
                searchmoves.contains(&chosen),
                "{chosen} outside {searchmoves:?}"
            );
            for &(a, p) in &result.policy {
                let m = space.decode(usize::from(a)).unwrap();
                assert!(searchmoves.contains(&m) || p == 0.0, "{m} searched");
            }
        }
        // The last report: its multipv lines in order.
        let last: Vec<&String> = lines
            .iter()
            .rev()
            .take_while(|l| l.starts_with("info multipv"))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        assert!(!last.is_empty() && last.len() <= 4, "{lines:?}");
        let field = |l: &str, name: &str| -> String {
            let w: Vec<&str> = l.split_whitespace().collect();
            let at = w.iter().position(|x| *x == name).unwrap();
            w[at + 1].to_string()
        };
        let visits: Vec<u32> = last
            .iter()
            .map(|l| field(l, "visits").parse().unwrap())
            .collect();
        assert!(visits.windows(2).all(|w| w[0] >= w[1]), "{visits:?}");
        // The policy target is each root move's visits over their sum.
        let share_of = |l: &str| {
            let mv: kvarn_game::Move = field(l, "pv").parse().unwrap();
            result
                .policy
                .iter()
                .find(|(a, _)| usize::from(*a) == space.index(mv))
                .map(|(_, p)| *p)
                .unwrap()
        };
        let per_visit = share_of(last[0]) / visits[0] as f32;
        for (k, l) in last.iter().enumerate() {
            assert_eq!(field(l, "multipv"), (k + 1).to_string());
            let want = visits[k] as f32 * per_visit;
            assert!((share_of(l) - want).abs() < 1e-4, "{l}: {}", share_of(l));
        }
        let first: kvarn_game::Move = field(last[0], "pv").parse().unwrap();
        assert_eq!(first, chosen, "the first line is the move played");
    }
}

/// Batched analysis gives each position the search the player's own agent makes: the same
/// move, root value and visits, whatever batch the position is searched in.
#[test]
fn batched_analysis_plays_the_agents_moves() {
    use kvarn_arena::agent::Agent;
    let rules = Rules::new(Variant::Nine);
    let player = kvarn_selfplay::SearchPlayer::new(
        "hash",
        SearchConfig {
            simulations: 96,
            ..SearchConfig::default()
        },
        HashEvaluator(uniform(&rules)),
    );
    let games = random_positions(rules, 30, 40);
    let (together, stats) = player.analyze(&games, 16, 3);
    let (alone, _) = player.analyze(&games, 1, 3);
    assert_eq!(together, alone, "the batch changes nothing");
    assert_eq!(stats.positions, games.len() as u64);
    assert!(stats.evaluations > 0 && stats.batches < stats.evaluations);
    for (game, a) in games.iter().zip(&together) {
        let mut agent = player.agent(rules, 1);
        assert_eq!(agent.choose(game).unwrap(), a.best);
        assert!(a.moves.len() <= 3 && a.moves[0].mv == a.best);
        assert!(a.moves.windows(2).all(|w| w[0].visits >= w[1].visits));
    }
}
