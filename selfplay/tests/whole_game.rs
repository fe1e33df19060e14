//! The moving phase's win/draw/loss tables in self-play (`Endgame::with_whole_game`): their
//! values where the distance databases stop, and games that end as the placing phase does.

use std::sync::Arc;

use kvarn_game::{ActionSpace, Game, Rules, Variant, encoding};
use kvarn_selfplay::{
    Endgame, EndgameUse, SearchConfig, SelfPlayConfig, SelfPlayJob, UniformEvaluator, run,
};
use kvarn_solver::Solver;
use kvarn_solver::wdl::WdlSolver;
use rand::prelude::*;

fn five() -> Rules {
    Rules::new(Variant::Five)
}

/// Five Men's Morris's moving phase, every unit, as win/draw/loss tables.
fn five_tables() -> Arc<WdlSolver> {
    let mut tables = WdlSolver::new(five());
    for (unit, _) in WdlSolver::plan(five().men()) {
        tables.solve_pair(unit);
    }
    Arc::new(tables)
}

/// Distance databases up to 3 men a side, and the whole moving phase's tables beside them.
fn three_and_tables() -> Endgame {
    Endgame::new(Arc::new(Solver::solve_endgames(five(), 3, |_, _| {})))
        .with_whole_game(five_tables())
}

/// Games of random moves, each position along them.
fn random_positions(games: usize, seed: u64) -> Vec<Game> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut game = Game::new(five());
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
    let whole = Solver::solve_endgames(five(), 5, |_, _| {});
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

fn job(endgame: Endgame) -> SelfPlayJob {
    SelfPlayJob {
        rules: five(),
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
                play_out_share: 0.0,
                ..EndgameUse::default()
            },
            ..SelfPlayConfig::default()
        },
        games: 24,
        skip: Default::default(),
        seed: 11,
        out: None,
        shard_prefix: "test".into(),
        model: "uniform".into(),
        endgame: Some(Arc::new(endgame)),
        branch_from: Default::default(),
    }
}

#[test]
fn with_the_tables_a_game_ends_as_the_placing_phase_does_with_their_value() {
    let eval = UniformEvaluator {
        input_len: encoding::input_len(&five()),
        actions: ActionSpace::new(&five()).len(),
    };
    // The distance databases of the whole moving phase adjudicate where their value is
    // certain under the draw rules; the tables where the men are all placed.
    let whole = Endgame::new(Arc::new(Solver::solve_endgames(five(), 5, |_, _| {})));
    let (_, reference) = run(&job(whole), &eval, None).unwrap();
    let (stats, games) = run(&job(three_and_tables()), &eval, None).unwrap();
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
