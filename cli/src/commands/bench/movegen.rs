//! `kvarn bench movegen`: random playouts and perft on one core.

use std::time::{Duration, Instant};

use clap::Args;
use kvarn_game::{Game, MoveList, Rules, Status, perft};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::budget::duration;
use crate::rules_args::RulesArgs;

/// Arguments of `kvarn bench movegen`.
#[derive(Args, Debug)]
pub struct MovegenArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Seconds of random playouts.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Perft depth from the start position (0 skips perft).
    #[arg(long, default_value_t = 5)]
    perft_depth: u32,
    /// Seed of the random playouts.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `kvarn bench movegen`.
pub fn run(args: &MovegenArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    outln!("bench movegen, {rules}, one thread");
    let budget = duration(args.seconds)? / 2;
    for mode in [Mode::List, Mode::Direct] {
        let r = playouts(rules, args.seed, budget, mode);
        outln!(
            "random playouts ({}): {} games, {} plies in {:.2} s: {:.2} M plies/s, {:.0} games/s, {:.1} plies/game; white {} / draw {} / black {}",
            mode.describe(),
            r.games,
            r.plies,
            r.secs,
            r.plies as f64 / r.secs / 1e6,
            r.games as f64 / r.secs,
            r.plies as f64 / r.games.max(1) as f64,
            r.results[0],
            r.results[1],
            r.results[2]
        );
    }
    if args.perft_depth > 0 {
        let mut game = Game::new(rules);
        let t = Instant::now();
        let nodes = perft(&mut game, args.perft_depth);
        let secs = t.elapsed().as_secs_f64();
        outln!(
            "perft {}: {nodes} nodes in {secs:.3} s: {:.2} M nodes/s",
            args.perft_depth,
            nodes as f64 / secs / 1e6
        );
    }
    Ok(())
}

/// How a playout chooses its random move.
#[derive(Clone, Copy)]
enum Mode {
    /// Build the list of legal moves, pick one: what any engine does.
    List,
    /// Count the legal moves, pick an index, find that move alone.
    Direct,
}

impl Mode {
    fn describe(self) -> &'static str {
        match self {
            Mode::List => "legal-move list + play",
            Mode::Direct => "count + nth move + play",
        }
    }
}

struct PlayoutFigures {
    games: u64,
    plies: u64,
    secs: f64,
    /// White wins, draws, Black wins.
    results: [u64; 3],
}

/// Plays random games under the full rules (repetition and no-capture included) for
/// `budget`, on this thread.
fn playouts(rules: Rules, seed: u64, budget: Duration, mode: Mode) -> PlayoutFigures {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut game = Game::new(rules);
    let mut moves = MoveList::new();
    let mut f = PlayoutFigures {
        games: 0,
        plies: 0,
        secs: 0.0,
        results: [0; 3],
    };
    let t = Instant::now();
    while t.elapsed() < budget {
        // Check the clock every 64 games, not every ply.
        for _ in 0..64 {
            game.restart();
            while !game.status().is_over() {
                let mv = match mode {
                    Mode::List => {
                        game.legal_moves_into(&mut moves);
                        moves[rng.random_range(0..moves.len())]
                    }
                    Mode::Direct => {
                        let p = game.position();
                        let n = p.legal_move_count(&rules);
                        p.nth_legal_move(&rules, rng.random_range(0..n))
                            .expect("an index below the count names a move")
                    }
                };
                game.play_unchecked(mv);
                f.plies += 1;
            }
            f.games += 1;
            let i = match game.status() {
                Status::Win { winner, .. } => 2 * winner.index(),
                _ => 1,
            };
            f.results[i] += 1;
        }
    }
    f.secs = t.elapsed().as_secs_f64();
    f
}
