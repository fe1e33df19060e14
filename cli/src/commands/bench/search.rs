//! `kvarn bench search`: the alpha-beta baseline on middle-game positions.

use std::time::{Duration, Instant};

use clap::Args;
use kvarn_engine::search::{Engine, EngineOptions, Limits};
use kvarn_game::{Game, Rules};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::rules_args::RulesArgs;

/// Arguments of `kvarn bench search`.
#[derive(Args, Debug)]
pub struct SearchArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Depths to search, e.g. 2,4,6,8.
    #[arg(long, value_delimiter = ',', default_value = "2,4,6,8")]
    depths: Vec<u32>,
    /// Number of middle-game positions (from seeded random games, after placing).
    #[arg(long, default_value_t = 20)]
    positions: usize,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Seed of the positions and the engine.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Middle-game positions: random games played a few turns past the placing phase,
/// keeping those still going with no removal pending.
fn middle_games(rules: Rules, n: usize, seed: u64) -> Vec<Game> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut game = Game::new(rules);
        let mut after_placing = 4 + rng.random_range(0..10);
        while after_placing > 0 && !game.status().is_over() {
            let moves = game.legal_moves();
            game.play_unchecked(moves[rng.random_range(0..moves.len())]);
            let p = game.position();
            if p.in_hand(kvarn_game::Color::White) + p.in_hand(kvarn_game::Color::Black) == 0 {
                after_placing -= 1;
            }
        }
        if !game.status().is_over() && !game.position().pending_removal() {
            out.push(game);
        }
    }
    out
}

/// Runs `kvarn bench search`.
pub fn run(args: &SearchArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    anyhow::ensure!(args.positions > 0, "--positions must be at least 1");
    outln!(
        "bench search, {rules}, {} middle-game positions, {} thread(s)",
        args.positions,
        args.threads
    );
    let games = middle_games(rules, args.positions, args.seed);
    for &depth in &args.depths {
        anyhow::ensure!(
            (1..=64).contains(&depth),
            "depth {depth} is not between 1 and 64"
        );
        let (mut nodes, mut time, mut longest) = (0u64, Duration::ZERO, Duration::ZERO);
        for game in &games {
            let mut engine = Engine::new(
                rules,
                EngineOptions {
                    threads: args.threads,
                    seed: Some(args.seed),
                    ..EngineOptions::default()
                },
            );
            let t = Instant::now();
            let limits = Limits {
                depth: Some(depth),
                ..Limits::default()
            };
            if let Some(info) = engine.search(game, limits, None, |_| {}) {
                nodes += info.nodes;
            }
            let spent = t.elapsed();
            time += spent;
            longest = longest.max(spent);
        }
        outln!(
            "depth {depth:>2}: {:>9.2} ms per move (longest {:>8.2} ms), {:>10} nodes per move, {:>6.2} M nodes/s",
            time.as_secs_f64() * 1e3 / games.len() as f64,
            longest.as_secs_f64() * 1e3,
            nodes / games.len() as u64,
            nodes as f64 / time.as_secs_f64().max(1e-9) / 1e6
        );
    }
    Ok(())
}
