//! `kvarn match`: two agents play a match; results, Elo and records.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use kvarn_eval::matches::{MatchConfig, run_match};

use crate::agents;
use kvarn_eval::records::{FORMAT, Header, VERSION, write_records};

use crate::rules_args::RulesArgs;

/// Arguments of `kvarn match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// The first agent, e.g. `alphabeta:depth=4`, `random`, `engine:cmd=PATH`,
    /// `perfect:db=DIR`, `net:model=FILE,simulations=N`.
    #[arg(long)]
    a: String,
    /// The second agent.
    #[arg(long)]
    b: String,
    /// Number of games; colours alternate and each opening is played twice.
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// Random decisions from the start before the agents take over (varies the games).
    #[arg(long, default_value_t = 2)]
    opening_plies: usize,
    /// Seed of the openings and of agents that have no seed of their own.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where to write the game records (JSON Lines with a checksum).
    #[arg(long, default_value = "match-games.jsonl")]
    out: PathBuf,
    /// Games played at once (default: one per core).
    #[arg(long)]
    parallel: Option<usize>,
}

/// Runs `kvarn match`.
pub fn run(args: &MatchArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    anyhow::ensure!(args.games > 0, "--games must be at least 1");
    let a = agents::factory(&args.a, &rules).context("reading --a")?;
    let b = agents::factory(&args.b, &rules).context("reading --b")?;
    let (a_name, b_name) = (a.name(), b.name());
    let cfg = MatchConfig {
        rules,
        games: args.games,
        seed: args.seed,
        opening_plies: args.opening_plies,
    };
    println!("{a_name} vs {b_name}, {} games of {rules}", args.games);
    let bar = ProgressBar::new(args.games as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games {elapsed} (eta {eta}) {msg}")
            .expect("a valid template"),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.parallel.unwrap_or(0))
        .build()
        .context("starting the game threads")?;
    let report = pool.install(|| run_match(&cfg, a.as_ref(), b.as_ref(), |_| bar.inc(1)))?;
    bar.finish_and_clear();
    let header = Header {
        format: FORMAT.into(),
        version: VERSION,
        rules,
        description: format!("{a_name} vs {b_name}, seed {}", args.seed),
    };
    write_records(&args.out, &header, &report.records)?;
    tracing::info!(games = report.records.len(), file = %args.out.display(), "wrote game records");
    let t = report.tally;
    let (lo, hi) = t.elo_interval();
    println!(
        "{a_name}: {} wins, {} draws, {} losses; score {:.1}%",
        t.wins,
        t.draws,
        t.losses,
        100.0 * t.score()
    );
    println!(
        "Elo difference {:+.0} (95% interval {:+.0} to {:+.0})",
        t.elo(),
        lo,
        hi
    );
    println!(
        "mean time per move: {a_name} {:.2} ms, {b_name} {:.2} ms",
        report.mean_time_a().as_secs_f64() * 1e3,
        report.mean_time_b().as_secs_f64() * 1e3
    );
    println!("records: {}", args.out.display());
    if !report.failures.is_empty() {
        for f in &report.failures {
            eprintln!("failed: {f}");
        }
        anyhow::bail!(
            "{} of {} games failed and are not counted",
            report.failures.len(),
            args.games
        );
    }
    Ok(())
}
