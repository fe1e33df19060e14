//! Endgame databases inside the search and self-play: exact leaves, value-keeping play
//! against the perfect player, and adjudicated games; and the moving phase's win/draw/loss
//! tables beside them (`Endgame::with_whole_game`).

use std::sync::Arc;

use kvarn_arena::agent::{AgentFactory, PerfectAgent};
use kvarn_game::{ActionSpace, Color, Game, Rules, Variant, encoding};
use kvarn_selfplay::tree::NodeState;
use kvarn_selfplay::{
    Advance, BranchPool, BranchStarts, EndgameUse, EvalCache, Evaluator, GameSearch, RandomStarts,
    SearchConfig, SearchContext, SearchPlayer, SelfPlayConfig, SelfPlayJob, UniformEvaluator, run,
    selfplay::game_rng,
};
use kvarn_solver::adjudication::certain;
use kvarn_solver::{Solver, Subspace, Value};

fn uniform(rules: &Rules) -> UniformEvaluator {
    UniformEvaluator {
        input_len: encoding::input_len(rules),
        actions: ActionSpace::new(rules).len(),
    }
}

fn nine_three_against_three() -> (Rules, Arc<Solver>) {
    let rules = Rules::new(Variant::Nine);
    (rules, Arc::new(Solver::solve_endgames(rules, 3, |_, _| {})))
}

/// Positions of the 3 v 3 table, White to move, spread over it.
fn positions(solver: &Solver, n: usize) -> Vec<kvarn_game::Position> {
    let s = Subspace::moving(3, 3, Color::White, false);
    let size = solver.size(&s);
    (0..size)
        .step_by(size / (4 * n))
        .filter_map(|i| solver.position_at(&s, i))
        .filter(|p| !p.status(solver.rules(), 1).is_over())
        .take(n)
        .collect()
}

#[test]
fn a_database_position_is_a_leaf_with_its_exact_value() {
    let (rules, solver) = nine_three_against_three();
    let endgame = Arc::new(kvarn_selfplay::Endgame::new(solver.clone()));
    let config = SearchConfig {
        simulations: 48,
        ..SearchConfig::default()
    };
    let ctx = SearchContext::new(rules, config).with_endgame(Some(endgame));
    let mut checked = 0;
    for pos in positions(&solver, 20) {
        let game = Game::from_position(rules, pos).unwrap();
        let mut search = GameSearch::new(game.clone());
        let (mut cache, mut rng) = (EvalCache::new(1000), game_rng(1, 0));
        let mut eval = uniform(&rules);
        let mut feats = vec![0f32; ctx.input_len()];
        let (mut logits, mut wdl) = (Vec::new(), Vec::new());
        search.start(48, false);
        while let Advance::NeedsEval = search.advance(&ctx, &mut cache, &mut rng, &mut feats) {
            eval.evaluate(&feats, 1, &mut logits, &mut wdl);
            search.supply(&ctx, &mut cache, &logits, [wdl[0], wdl[1], wdl[2]]);
        }
        for child in search.tree().children(0) {
            let node = *search.tree().node(child);
            if node.visits == 0 {
                continue;
            }
            assert_eq!(
                node.state,
                NodeState::Terminal,
                "a visited database child is a leaf"
            );
            let mv = ctx.actions.decode(usize::from(node.action)).unwrap();
            let mut next = game.clone();
            next.play(mv).unwrap();
            let exact = match next.status() {
                kvarn_game::Status::Win { winner, .. } if winner == node.side => Value::Win(0),
                kvarn_game::Status::Win { .. } => Value::Loss(0),
                _ => {
                    let v = solver.value(next.position()).unwrap();
                    certain(&rules, next.position(), v, false).unwrap()
                }
            };
            assert_eq!(node.value, kvarn_selfplay::Endgame::wdl(exact));
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} leaves checked");
}

#[test]
fn a_player_with_probes_never_throws_a_database_value_away_against_perfect_play() {
    let (rules, solver) = nine_three_against_three();
    let endgame = Arc::new(kvarn_selfplay::Endgame::new(solver.clone()));
    // A uniform network: whatever it keeps, the databases kept.
    let player = SearchPlayer::new(
        "probes",
        SearchConfig {
            simulations: 16,
            ..SearchConfig::default()
        },
        uniform(&rules),
    )
    .with_endgame(Some(endgame));
    let (mut games, mut won) = (0, 0);
    for (i, pos) in positions(&solver, 40).into_iter().enumerate() {
        let mut agent = player.build(rules, i as u64).unwrap();
        let mut perfect = PerfectAgent::new(solver.clone(), i as u64, "perfect".into());
        let mut game = Game::from_position(rules, pos).unwrap();
        let ours = Color::White;
        let start = solver.value(game.position()).unwrap();
        while !game.status().is_over() && game.ply() < 300 {
            let mover = game.position().side_to_move();
            let before = solver.value(game.position()).unwrap();
            let mv = if mover == ours {
                kvarn_arena::agent::Agent::choose(agent.as_mut(), &game).unwrap()
            } else {
                kvarn_arena::agent::Agent::choose(&mut perfect, &game).unwrap()
            };
            game.play(mv).unwrap();
            if mover == ours && !game.status().is_over() {
                let same = game.position().side_to_move() == mover;
                let after = solver.value(game.position()).unwrap().back(same);
                let class = |v: Value| match v {
                    Value::Win(_) => 2,
                    Value::Draw => 1,
                    Value::Loss(_) => 0,
                };
                assert!(
                    class(after) >= class(before),
                    "game {i}: {before:?} became {after:?}"
                );
            }
        }
        if let Value::Win(_) = start {
            assert!(
                matches!(
                    game.status(),
                    kvarn_game::Status::Win {
                        winner: Color::White,
                        ..
                    }
                ),
                "game {i}: a won start ended {:?}",
                game.status()
            );
            won += 1;
        }
        games += 1;
    }
    assert!(
        games >= 30 && won >= 10,
        "{games} games, {won} from won positions"
    );
}

fn five_job(play_out_share: f64) -> SelfPlayJob {
    let rules = Rules::new(Variant::Five);
    // The whole moving phase: games are adjudicated once the men are all placed.
    let solver = Arc::new(Solver::solve_endgames(rules, 5, |_, _| {}));
    SelfPlayJob {
        rules,
        search: SearchConfig {
            simulations: 8,
            cache_entries: 1000,
            ..SearchConfig::default()
        },
        selfplay: SelfPlayConfig {
            threads: 1,
            games_per_thread: 8,
            games_per_shard: 8,
            max_plies: 200,
            endgame: EndgameUse {
                probes: false,
                adjudicate: true,
                play_out_share,
                ..EndgameUse::default()
            },
            ..SelfPlayConfig::default()
        },
        games: 24,
        skip: Default::default(),
        seed: 3,
        out: None,
        shard_prefix: "test".into(),
        model: "uniform".into(),
        endgame: Some(Arc::new(kvarn_selfplay::Endgame::new(solver))),
        branch_from: Default::default(),
    }
}

#[test]
fn self_play_games_end_when_the_databases_know_their_result_but_a_share_plays_on() {
    let eval = uniform(&Rules::new(Variant::Five));
    let (ended, short) = run(&five_job(0.0), &eval, None).unwrap();
    let (on, long) = run(&five_job(1.0), &eval, None).unwrap();
    assert!(
        ended.adjudicated >= 3,
        "{} of 24 games adjudicated",
        ended.adjudicated
    );
    assert_eq!(ended.played_out, 0);
    assert_eq!(on.adjudicated, 0);
    // Without probes the search never looks at the databases, so the same games reach
    // them; played on, each is at least as long.
    assert_eq!(on.played_out, ended.adjudicated);
    for (a, b) in short.iter().zip(&long) {
        assert_eq!(a.index, b.index);
        assert_eq!(a.adjudicated, b.played_out);
        assert!(a.plies <= b.plies);
        if !a.adjudicated {
            assert_eq!(a, b);
        }
    }
    let mut without = five_job(0.0);
    without.endgame = None;
    assert!(
        run(&without, &eval, None).is_err(),
        "adjudication without databases is refused"
    );
}

#[test]
fn games_played_on_through_certain_positions_with_probes_and_a_reused_tree_finish() {
    // With probes, a child whose value is certain is a terminal node; a game played on
    // moves into it, and the reused tree must not keep it as a root that never expands.
    let mut job = five_job(1.0);
    job.search.reuse_tree = true;
    job.selfplay.endgame.probes = true;
    job.games = 8;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let eval = uniform(&Rules::new(Variant::Five));
        let _ = tx.send(run(&job, &eval, None).map(|(stats, _)| stats.played_out));
    });
    let played_out = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("self-play hung on a certain position")
        .unwrap();
    assert!(played_out >= 1, "no game reached the databases");
}

#[test]
fn random_starts_play_to_the_end_and_search_certain_positions_fully() {
    let mut job = five_job(0.0);
    job.selfplay.endgame.probes = true;
    job.selfplay.random_starts = RandomStarts {
        share: 0.5,
        min_men: 3,
        max_men: 4,
        ..RandomStarts::default()
    };
    job.selfplay.playout_cap.enabled = true;
    job.selfplay.playout_cap.full_probability = 0.0;
    let eval = uniform(&job.rules);
    let (stats, games) = run(&job, &eval, None).unwrap();
    let starts: Vec<_> = games.iter().filter(|g| g.random_start).collect();
    assert_eq!(stats.random_starts, starts.len() as u64);
    assert!(
        (4..=20).contains(&starts.len()),
        "{} of 24 games started from random positions",
        starts.len()
    );
    let endgame = job.endgame.as_ref().unwrap();
    let mut first_positions = std::collections::HashSet::new();
    for g in &starts {
        let first = g.samples[0].position;
        assert_eq!(first.men_in_hand(), 0);
        for c in [Color::White, Color::Black] {
            assert!((3..=4).contains(&first.men(c).count()));
        }
        first_positions.insert(first.key());
        // Inside Five's databases from the start, yet never adjudicated.
        assert!(!g.adjudicated && !g.played_out);
        assert_eq!(g.samples.len() as u32, g.plies);
    }
    assert_eq!(first_positions.len(), starts.len(), "starts repeat");
    // With probes, positions certain in the databases are searched fully, although the
    // playout cap asks for no full search at all: a random start (nothing repeated yet)
    // whose value is certain, and any drawn position (a draw is certain whatever repeated).
    let mut full = 0;
    for g in &games {
        for (i, sample) in g.samples.iter().enumerate() {
            let game = Game::from_position(job.rules, sample.position).unwrap();
            let certain = match endgame.probe(&game) {
                Some(Value::Draw) => true,
                Some(_) => g.random_start && i == 0,
                None => false,
            };
            if certain {
                assert!(sample.full_search, "game {} ply {i}", g.index);
                full += 1;
            }
        }
    }
    assert!(full >= starts.len(), "{full} full searches");
    // The other games are those of a run without random starts: choosing a game's kind
    // does not disturb the games themselves.
    let mut without = job.clone();
    without.selfplay.random_starts.share = 0.0;
    let (_, plain) = run(&without, &eval, None).unwrap();
    assert_only_random_starts_differ_and_a_seed_repeats(&job, &games, &plain);
}

/// The games of `job` that did not start from a random position are those of `plain`
/// (the same job without some setting), and running `job` again gives `games` again.
fn assert_only_random_starts_differ_and_a_seed_repeats(
    job: &SelfPlayJob,
    games: &[kvarn_selfplay::PlayedGame],
    plain: &[kvarn_selfplay::PlayedGame],
) {
    for (a, b) in games.iter().zip(plain) {
        if !a.random_start {
            assert_eq!(a, b);
        }
    }
    let (_, again) = run(job, &uniform(&job.rules), None).unwrap();
    assert_eq!(
        games,
        again.as_slice(),
        "the same seed gives the same games"
    );
}

/// Branch starts leave out positions whose value the databases know: with adjudication
/// their games would end before a move.
#[test]
fn branch_pools_leave_out_positions_the_databases_know() {
    let job = five_job(1.0);
    let (_, games) = run(&job, &uniform(&job.rules), None).unwrap();
    let samples = || games.iter().flat_map(|g| &g.samples);
    let endgame = job.endgame.as_deref().unwrap();
    let all = BranchPool::from_samples(&job.rules, samples(), None, &BranchStarts::default());
    let open = BranchPool::from_samples(
        &job.rules,
        samples(),
        Some(endgame),
        &BranchStarts::default(),
    );
    assert!(
        open.len() < all.len() && !open.is_empty(),
        "{} of {} moving-phase positions open",
        open.len(),
        all.len()
    );
    let mut rng = game_rng(1, 0);
    for _ in 0..200 {
        let p = open.draw(&mut rng).unwrap();
        let game = Game::from_position(job.rules, p).unwrap();
        assert_eq!(endgame.probe(&game), None, "{p:?}");
    }
}

#[test]
fn at_a_lost_root_the_databases_choose_a_slowest_loss() {
    let (rules, solver) = nine_three_against_three();
    let endgame = kvarn_selfplay::Endgame::new(solver.clone());
    let (mut lost, mut faster) = (0, 0);
    for pos in positions(&solver, 200) {
        let game = Game::from_position(rules, pos).unwrap();
        let Some(Value::Loss(d)) = endgame.probe(&game) else {
            continue;
        };
        let any = game.legal_moves()[0];
        let chosen = endgame
            .root_move(&game, any)
            .expect("a lost root has a move");
        let values = solver.move_values(game.position());
        let value_of = |m| values.iter().find(|&&(x, _)| x == m).unwrap().1;
        // The best defence loses in exactly the root's distance (values are backed up to
        // the mover), where other moves may lose sooner.
        assert_eq!(value_of(chosen), Some(Value::Loss(d)), "{pos:?}");
        faster += usize::from(
            values
                .iter()
                .any(|&(_, v)| matches!(v, Some(Value::Loss(e)) if e < d)),
        );
        lost += 1;
    }
    assert!(
        lost >= 5 && faster >= 1,
        "{lost} lost positions, {faster} with a faster loss"
    );
}

fn decisive_job(decisive_starts: f64, decisive_min_turns: u16) -> SelfPlayJob {
    let mut job = five_job(0.0);
    job.selfplay.endgame = EndgameUse {
        probes: true,
        adjudicate: true,
        play_out_share: 0.0,
        decisive_starts,
        decisive_min_turns,
        ..EndgameUse::default()
    };
    job.selfplay.random_starts = RandomStarts {
        share: 0.5,
        min_men: 3,
        max_men: 4,
        ..RandomStarts::default()
    };
    job
}

#[test]
fn decisive_starts_are_certain_wins_or_losses_far_enough_from_their_end() {
    let job = decisive_job(1.0, 5);
    let eval = uniform(&job.rules);
    let (_, games) = run(&job, &eval, None).unwrap();
    let endgame = job.endgame.as_ref().unwrap();
    let starts: Vec<_> = games.iter().filter(|g| g.random_start).collect();
    assert!(starts.len() >= 4, "{} random starts", starts.len());
    for g in &starts {
        let game = Game::from_position(job.rules, g.samples[0].position).unwrap();
        let value = endgame.probe(&game);
        assert!(
            matches!(value, Some(Value::Win(d) | Value::Loss(d)) if d >= 5),
            "game {}: {value:?}",
            g.index
        );
        // Played by the databases' choices on both sides, the start's result holds.
        let white_moves = g.samples[0].position.side_to_move() == Color::White;
        let won = matches!(value, Some(Value::Win(_))) == white_moves;
        assert_eq!(g.result, if won { 1 } else { -1 }, "game {}", g.index);
    }
    // The games of other kinds are those of a run without decisive starts.
    let (_, plain) = run(&decisive_job(0.0, 5), &eval, None).unwrap();
    for (a, b) in games.iter().zip(&plain) {
        assert_eq!(a.random_start, b.random_start);
    }
    assert_only_random_starts_differ_and_a_seed_repeats(&job, &games, &plain);
}

#[test]
fn decisive_starts_are_refused_without_databases_or_random_starts() {
    let eval = uniform(&Rules::new(Variant::Five));
    let mut without_db = decisive_job(0.5, 1);
    without_db.endgame = None;
    let err = run(&without_db, &eval, None).unwrap_err().to_string();
    assert!(err.contains("decisive starts"), "{err}");
    let mut without_starts = decisive_job(0.5, 1);
    without_starts.selfplay.random_starts.share = 0.0;
    let err = run(&without_starts, &eval, None).unwrap_err().to_string();
    assert!(err.contains("selfplay.endgame.decisive_starts"), "{err}");
    let err = run(&decisive_job(1.5, 1), &eval, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("selfplay.endgame.decisive_starts: 1.5 is outside [0, 1]"),
        "{err}"
    );
    // The databases value only the moving phase's starts.
    let mut placing = decisive_job(0.5, 1);
    placing.selfplay.random_starts.phases =
        vec![kvarn_game::Phase::Moving, kvarn_game::Phase::Placing];
    let err = run(&placing, &eval, None).unwrap_err().to_string();
    assert!(err.contains("selfplay.random_starts.phases"), "{err}");
    let err = run(&decisive_job(0.5, 0), &eval, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("decisive_min_turns"), "{err}");
}

fn exact_sampling_of<'a>(
    rules: Rules,
    endgame: &'a kvarn_selfplay::Endgame,
    starts: &'a RandomStarts,
    uses: &'a EndgameUse,
    excluded: &'a std::collections::HashSet<u64>,
) -> kvarn_selfplay::ExactSampling<'a> {
    kvarn_selfplay::ExactSampling {
        rules,
        starts,
        uses,
        endgame,
        excluded,
    }
}

#[test]
fn exact_samples_carry_the_databases_values_and_their_value_keeping_moves() {
    let (rules, solver) = nine_three_against_three();
    let endgame = kvarn_selfplay::Endgame::new(solver.clone());
    let starts = RandomStarts {
        share: 0.5,
        min_men: 3,
        max_men: 3,
        ..RandomStarts::default()
    };
    let actions = ActionSpace::new(&rules);
    let excluded = std::collections::HashSet::new();
    for (decisive_starts, min_turns) in [(0.0, 1), (1.0, 4)] {
        let uses = EndgameUse {
            decisive_starts,
            decisive_min_turns: min_turns,
            ..EndgameUse::default()
        };
        let sampling = exact_sampling_of(rules, &endgame, &starts, &uses, &excluded);
        let samples = sampling.samples(5, 300).unwrap();
        assert_eq!(samples.len(), 300);
        let mut outcomes = [0; 3];
        for s in &samples {
            let value = solver.value(&s.position).unwrap();
            let result = match value {
                Value::Win(_) => 1,
                Value::Draw => 0,
                Value::Loss(_) => -1,
            };
            assert_eq!(s.result, result, "{value:?}");
            assert_eq!(
                s.search_wdl,
                kvarn_selfplay::Endgame::wdl(value),
                "{value:?}"
            );
            assert!(s.full_search);
            outcomes[(1 - result) as usize] += 1;
            if decisive_starts == 1.0 {
                assert!(
                    matches!(value, Value::Win(d) | Value::Loss(d) if d >= min_turns),
                    "{value:?} is not decisive {min_turns} turns or more from its end"
                );
            }
            let total: f32 = s.policy.iter().map(|p| p.1).sum();
            assert!((total - 1.0).abs() < 1e-4, "{total}");
            let moves = solver.move_values(&s.position);
            let value_of = |a: u16| {
                let m = actions.decode(usize::from(a)).unwrap();
                moves.iter().find(|x| x.0 == m).unwrap().1.unwrap()
            };
            for &(a, _) in &s.policy {
                match (value, value_of(a)) {
                    (Value::Win(_), Value::Win(_)) | (Value::Draw, Value::Draw) => {}
                    (Value::Loss(d), Value::Loss(e)) => assert_eq!(d, e, "a slowest loss"),
                    (v, m) => panic!("{m:?} does not keep {v:?}"),
                }
            }
        }
        if decisive_starts == 0.0 {
            assert!(outcomes[1] > 0, "certain draws are drawn too: {outcomes:?}");
        }
        // Sample i depends on the seed and i alone.
        assert_eq!(sampling.samples(5, 20).unwrap()[..], samples[..20]);
        assert_ne!(sampling.samples(6, 20).unwrap()[..], samples[..20]);
    }
}

#[test]
fn exact_samples_never_draw_an_excluded_position_its_images_or_its_colour_swapped_twins() {
    let (rules, solver) = nine_three_against_three();
    let endgame = kvarn_selfplay::Endgame::new(solver);
    let starts = RandomStarts {
        share: 0.5,
        min_men: 3,
        max_men: 3,
        ..RandomStarts::default()
    };
    let uses = EndgameUse::default();
    let none = std::collections::HashSet::new();
    let key = |p: &kvarn_game::Position| p.canonical_key(&rules);
    // Every form of a position, by raw key: its 16 images, with and without the colours
    // swapped (the other player to move, each with the other's men).
    let forms = |p: &kvarn_game::Position| -> Vec<u64> {
        let mut s = p.setup();
        s.men.swap(0, 1);
        s.side = s.side.opposite();
        let twin = kvarn_game::Position::from_setup(&rules, &s).unwrap();
        (0..kvarn_game::SYMMETRY_COUNT)
            .flat_map(|sym| [p.transformed(&rules, sym), twin.transformed(&rules, sym)])
            .map(|q| q.key())
            .collect()
    };
    let first = exact_sampling_of(rules, &endgame, &starts, &uses, &none)
        .samples(9, 200)
        .unwrap();
    let excluded: std::collections::HashSet<u64> = first.iter().map(|s| key(&s.position)).collect();
    // One key for every form: a twin drawn later would be excluded by it.
    for s in &first {
        let mut setup = s.position.setup();
        setup.men.swap(0, 1);
        setup.side = setup.side.opposite();
        let twin = kvarn_game::Position::from_setup(&rules, &setup).unwrap();
        for sym in 0..kvarn_game::SYMMETRY_COUNT {
            assert_eq!(key(&twin.transformed(&rules, sym)), key(&s.position));
        }
    }
    let all_forms: std::collections::HashSet<u64> =
        first.iter().flat_map(|s| forms(&s.position)).collect();
    let again = exact_sampling_of(rules, &endgame, &starts, &uses, &excluded)
        .samples(9, 200)
        .unwrap();
    assert_eq!(again.len(), 200);
    for s in &again {
        assert!(
            !all_forms.contains(&s.position.key()),
            "{} is a form of an excluded position",
            s.position.to_position_string(&rules)
        );
    }
}

#[test]
fn exact_samples_the_databases_cannot_give_are_an_error_not_a_short_shard() {
    let (rules, solver) = nine_three_against_three();
    let endgame = kvarn_selfplay::Endgame::new(solver);
    let none = std::collections::HashSet::new();
    let three = RandomStarts {
        share: 0.5,
        min_men: 3,
        max_men: 3,
        ..RandomStarts::default()
    };
    let uses = EndgameUse {
        decisive_starts: 1.0,
        decisive_min_turns: 1000,
        ..EndgameUse::default()
    };
    let e = exact_sampling_of(rules, &endgame, &three, &uses, &none)
        .samples(1, 5)
        .unwrap_err();
    assert!(e.to_string().contains("decisive_min_turns"), "{e}");
    let five = RandomStarts {
        share: 0.5,
        min_men: 5,
        max_men: 5,
        ..RandomStarts::default()
    };
    let e = exact_sampling_of(rules, &endgame, &five, &EndgameUse::default(), &none)
        .samples(1, 5)
        .unwrap_err();
    assert!(e.to_string().contains("random_starts"), "{e}");
}

#[test]
fn random_starts_are_never_committed_benchmark_positions() {
    let rules = Rules::new(Variant::Five);
    let keys = kvarn_solver::benchmark::committed_keys(&rules).unwrap();
    let three = RandomStarts {
        share: 1.0,
        min_men: 3,
        max_men: 3,
        ..RandomStarts::default()
    };
    let benchmark = |p: &kvarn_game::Position| keys.contains(&p.canonical_key(&rules));
    // Unfiltered draws land on Five's 3 v 3 benchmark positions now and then...
    let games = 3000;
    let hits = (0..games)
        .filter(|&i| benchmark(three.draw(rules, &mut game_rng(5, i)).unwrap().position()))
        .count();
    assert!(hits >= 5, "{hits} of {games} plain draws");
    // ... and self-play's never do.
    let job = SelfPlayJob {
        rules,
        search: SearchConfig {
            simulations: 1,
            ..SearchConfig::default()
        },
        selfplay: SelfPlayConfig {
            threads: 1,
            games_per_thread: 100,
            games_per_shard: 100,
            max_plies: 1,
            random_starts: three,
            ..SelfPlayConfig::default()
        },
        games,
        skip: Default::default(),
        seed: 5,
        out: None,
        shard_prefix: "test".into(),
        model: "uniform".into(),
        endgame: None,
        branch_from: Default::default(),
    };
    let (_, played) = run(&job, &uniform(&rules), None).unwrap();
    assert_eq!(played.len() as u64, games);
    for g in &played {
        assert!(
            g.random_start && !benchmark(&g.samples[0].position),
            "game {}",
            g.index
        );
    }
}

/// A shard of `positions` (one game, uniform policies) at `path`.
fn write_positions(path: &std::path::Path, rules: Rules, positions: &[kvarn_game::Position]) {
    use kvarn_selfplay::shard::GameSummary;
    let space = ActionSpace::new(&rules);
    let samples: Vec<kvarn_selfplay::Sample> = positions
        .iter()
        .map(|p| {
            let legal = Game::from_position(rules, *p).unwrap().legal_moves();
            let share = 1.0 / legal.len() as f32;
            kvarn_selfplay::Sample {
                position: *p,
                occurrences: 1,
                full_search: true,
                result: 0,
                search_wdl: [0.0, 1.0, 0.0],
                policy: legal
                    .iter()
                    .map(|&m| (space.index(m) as u16, share))
                    .collect(),
                explored: false,
                surprise: 0.0,
            }
        })
        .collect();
    let header = kvarn_selfplay::ShardHeader {
        encoding_version: kvarn_game::ENCODING_VERSION,
        rules,
        games: 1,
        samples: samples.len() as u64,
        game_list: vec![GameSummary {
            index: 0,
            result: 0,
            plies: samples.len() as u32,
            samples: samples.len() as u32,
            final_men: None,
        }],
        model: "m.kvmodel".into(),
        source: Default::default(),
        seed: None,
    };
    kvarn_selfplay::write_shard(path, &header, &samples).unwrap();
}

#[test]
fn shard_keys_are_the_positions_of_every_shard_under_a_folder() {
    use kvarn_selfplay::exact::shard_keys;
    let rules = Rules::new(Variant::Five);
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("shards").join("gen-0001");
    std::fs::create_dir_all(&nested).unwrap();
    let mut game = Game::new(rules);
    let mut positions = Vec::new();
    while positions.len() < 30 && !game.status().is_over() {
        positions.push(*game.position());
        let legal = game.legal_moves();
        game.play_unchecked(legal[positions.len() * 7 % legal.len()]);
    }
    write_positions(&nested.join("a.kvsp"), rules, &positions[..15]);
    write_positions(&dir.path().join("b.kvsp"), rules, &positions[15..]);
    std::fs::write(dir.path().join("summary.md"), "not a shard").unwrap();
    let keys = shard_keys(&rules, dir.path()).unwrap();
    assert!(!keys.is_empty() && keys.len() <= positions.len());
    for p in &positions {
        // Any image of a position the shards hold is known by its key.
        assert!(keys.contains(&p.transformed(&rules, 5).canonical_key(&rules)));
    }
    // A folder with a shard of other rules is refused, naming the shard.
    let six = Rules::new(Variant::Six);
    let other = tempfile::tempdir().unwrap();
    write_positions(
        &other.path().join("c.kvsp"),
        six,
        &[*Game::new(six).position()],
    );
    let e = shard_keys(&rules, other.path()).unwrap_err().to_string();
    assert!(e.contains("c.kvsp") && e.contains("Six"), "{e}");
}

/// Five Men's Morris's moving phase, every unit, as win/draw/loss tables.
fn five_tables() -> Arc<kvarn_solver::wdl::WdlSolver> {
    let mut tables = kvarn_solver::wdl::WdlSolver::new(Rules::new(Variant::Five));
    for (unit, _) in kvarn_solver::wdl::WdlSolver::plan(5) {
        tables.solve_pair(unit);
    }
    Arc::new(tables)
}

/// Five's distance databases up to 3 men a side, and the whole moving phase's tables
/// beside them.
fn three_and_tables() -> kvarn_selfplay::Endgame {
    let rules = Rules::new(Variant::Five);
    kvarn_selfplay::Endgame::new(Arc::new(Solver::solve_endgames(rules, 3, |_, _| {})))
        .with_whole_game(Some(five_tables()))
}

/// Five's games of random moves, each position along them.
fn random_positions(games: usize, seed: u64) -> Vec<Game> {
    use rand::prelude::*;
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut game = Game::new(Rules::new(Variant::Five));
        while !game.status().is_over() && game.ply() < 120 {
            out.push(game.clone());
            let moves = game.legal_moves();
            let m = moves[rng.random_range(0..moves.len())];
            game.play(m).unwrap();
        }
    }
    out
}

#[test]
fn where_the_databases_stop_the_tables_give_the_whole_solutions_value() {
    let whole = Solver::solve_endgames(Rules::new(Variant::Five), 5, |_, _| {});
    let endgame = three_and_tables();
    let (mut from_tables, mut placing) = (0, 0);
    for game in random_positions(60, 7) {
        let pos = game.position();
        let outcome = endgame.outcome(&game);
        if pos.men_in_hand() > 0 {
            assert_eq!(outcome, None, "{pos:?} is not in the moving phase's tables");
            placing += 1;
            continue;
        }
        if pos.pending_removal() {
            // Between turns only: a removal pending is the databases' or the search's.
            assert_eq!(
                outcome,
                endgame.probe(&game).map(|v| v.outcome()),
                "{pos:?}"
            );
            continue;
        }
        let exact = whole.value(pos).expect("Five's moving phase solved whole");
        assert_eq!(outcome, Some(exact.outcome()), "{pos:?}");
        from_tables += usize::from(endgame.probe(&game).is_none());
    }
    assert!(
        from_tables >= 200 && placing >= 200,
        "{from_tables} positions from the tables alone, {placing} placing"
    );
    assert!(endgame.has_whole_game());
}

#[test]
fn with_the_tables_a_game_ends_as_the_placing_phase_does_with_their_value() {
    let eval = uniform(&Rules::new(Variant::Five));
    // The distance databases of the whole moving phase adjudicate where their value is
    // certain under the draw rules; the tables where the men are all placed.
    let (_, reference) = run(&five_job(0.0), &eval, None).unwrap();
    let mut with_tables = five_job(0.0);
    with_tables.endgame = Some(Arc::new(three_and_tables()));
    let (stats, games) = run(&with_tables, &eval, None).unwrap();
    let mut same = 0;
    for (a, b) in reference.iter().zip(&games) {
        assert_eq!(a.index, b.index);
        // Without probes the searches never look at the databases: the same moves until
        // the tables end the game, no later than the certain databases do, or one ply
        // after them where those ended it with a removal pending (which the tables leave
        // to the search).
        if !b.adjudicated {
            // Over before the moving phase: neither databases nor tables were reached.
            assert_eq!(a, b);
        }
        assert!(b.plies <= a.plies + 1, "game {}", a.index);
        if a.adjudicated && (a.plies..=a.plies + 1).contains(&b.plies) {
            assert_eq!(a.result, b.result, "game {}", a.index);
            same += 1;
        }
        for s in &b.samples {
            let p = &s.position;
            assert!(
                p.men_in_hand() > 0 || p.pending_removal(),
                "a searched position in the tables: {p:?}"
            );
        }
    }
    assert!(same >= 12, "{same} of 24 games ended alike");
    assert!(stats.adjudicated >= 20, "{} adjudicated", stats.adjudicated);
}

#[test]
fn a_share_of_the_games_uses_the_tables_and_the_others_play_on_as_without_them() {
    let eval = uniform(&Rules::new(Variant::Five));
    let job = |share: f64, endgame: kvarn_selfplay::Endgame| {
        let mut job = five_job(0.0);
        job.selfplay.endgame.probes = true;
        job.selfplay.endgame.whole_game_share = share;
        job.endgame = Some(Arc::new(endgame));
        job
    };
    let tables = three_and_tables();
    let (_, plain) = run(&job(1.0, tables.without_whole_game()), &eval, None).unwrap();
    let (_, all) = run(&job(1.0, three_and_tables()), &eval, None).unwrap();
    let (_, mixed) = run(&job(0.5, tables), &eval, None).unwrap();
    let (mut as_plain, mut as_tables) = (0, 0);
    for ((m, p), t) in mixed.iter().zip(&plain).zip(&all) {
        // Each game is played as the run that it drew plays it: with the tables
        // everywhere, or without them.
        assert!(m == p || m == t, "game {} is neither", m.index);
        as_plain += usize::from(m == p && m != t);
        as_tables += usize::from(m == t && m != p);
    }
    assert!(
        as_plain >= 4 && as_tables >= 4,
        "{as_plain} games without the tables, {as_tables} with them, of 24"
    );
}
