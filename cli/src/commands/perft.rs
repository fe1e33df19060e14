//! `kvarn perft`: decision counts by depth, the check that move generators agree.

use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use kvarn_game::{Game, Move, perft};

use crate::rules_args::{RulesArgs, StartArgs};

/// Arguments of `kvarn perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    rules: RulesArgs,
    #[command(flatten)]
    start: StartArgs,
    /// Deepest depth to count (every depth from 1 is printed).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=20))]
    depth: u32,
    /// Also print the count below each first move at the deepest depth.
    #[arg(long)]
    divide: bool,
}

/// Runs `kvarn perft`.
pub fn run(args: &PerftArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let mut game = args.start.game(rules)?;
    outln!("perft, {rules}");
    for depth in 1..=args.depth {
        let t = Instant::now();
        // The deepest depth is counted first move by first move, with a progress bar
        // (shown only on a terminal) and the split kept for --divide.
        let split = if depth == args.depth {
            divide_with_progress(&mut game, depth)
        } else {
            vec![(None, perft(&mut game, depth))]
        };
        let nodes: u64 = split.iter().map(|(_, n)| n).sum();
        let secs = t.elapsed().as_secs_f64();
        outln!(
            "depth {depth:>2}: {nodes:>14} nodes  {secs:>8.3} s  {:>8.2} M nodes/s",
            nodes as f64 / secs.max(1e-9) / 1e6
        );
        if args.divide && depth == args.depth {
            for (mv, n) in split {
                if let Some(mv) = mv {
                    outln!("{mv:>8}: {n}");
                }
            }
        }
    }
    Ok(())
}

fn divide_with_progress(game: &mut Game, depth: u32) -> Vec<(Option<Move>, u64)> {
    let moves = game.legal_moves();
    let bar = ProgressBar::new(moves.len() as u64).with_style(
        ProgressStyle::with_template("perft {msg} [{bar:30}] {pos}/{len} first moves, {elapsed}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_message(format!("depth {depth}"));
    let split = moves
        .iter()
        .map(|&mv| {
            game.play_unchecked(mv);
            let n = perft(game, depth - 1);
            game.undo();
            bar.inc(1);
            (Some(mv), n)
        })
        .collect();
    bar.finish_and_clear();
    split
}
