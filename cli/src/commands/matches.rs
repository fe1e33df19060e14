//! `kvarn match`: two agents play a match; results, Elo and records.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use kvarn_eval::matches::{MatchConfig, MatchReport, run_match};

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
    /// Where to write the game records (JSON Lines with a checksum). An existing file is
    /// refused, before any game is played, unless --overwrite is given.
    #[arg(long, default_value = "match-games.jsonl")]
    out: PathBuf,
    /// Replace the records file at --out if it exists.
    #[arg(long)]
    overwrite: bool,
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
    check_out(&args.out, args.overwrite)?;
    let (a_name, b_name) = (a.name(), b.name());
    let cfg = MatchConfig {
        rules,
        games: args.games,
        seed: args.seed,
        opening_plies: args.opening_plies,
    };
    outln!("{a_name} vs {b_name}, {} games of {rules}", args.games);
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
    let failed = report.failures.len();
    let mut description = format!("{a_name} vs {b_name}, seed {}", args.seed);
    if failed > 0 {
        description += &format!(
            "; {failed} of {} games failed and are not recorded",
            args.games
        );
    }
    let header = Header {
        format: FORMAT.into(),
        version: VERSION,
        rules,
        description,
    };
    // Only finished games are recorded; a match in which none finished leaves no file.
    if !report.records.is_empty() {
        write_records(&args.out, &header, &report.records)?;
        tracing::info!(games = report.records.len(), file = %args.out.display(), "wrote game records");
    }
    print_report(&report, &a_name, &b_name);
    if !report.records.is_empty() {
        outln!("records: {}", args.out.display());
    }
    if failed > 0 {
        for f in &report.failures {
            eprintln!("failed: {f}");
        }
        anyhow::bail!(
            "{failed} of {} games failed: the match is incomplete and its score covers only \
             the {} finished games",
            args.games,
            report.records.len()
        );
    }
    Ok(())
}

/// Refuses an existing records file unless `overwrite`, and checks that the file can be
/// written (creating its folder), before any game is played.
fn check_out(path: &Path, overwrite: bool) -> anyhow::Result<()> {
    if !overwrite && path.exists() {
        let what = match kvarn_eval::records::read_records(path) {
            Ok((h, games)) => format!("the records of {} games ({})", games.len(), h.description),
            Err(_) => "a file that is not match records".into(),
        };
        anyhow::bail!(
            "{} exists ({what}); pass --overwrite to replace it, or --out to write elsewhere",
            path.display()
        );
    }
    anyhow::ensure!(
        !path.is_dir(),
        "--out {} is a folder, not a file",
        path.display()
    );
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| {
        format!(
            "the records cannot be written: no folder {} can be made (nothing was played)",
            dir.display()
        )
    })?;
    let name = path
        .file_name()
        .map_or_else(|| "records".into(), |n| n.to_string_lossy().into_owned());
    let probe = dir.join(format!(".{name}.{}.probe", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .and_then(|_| std::fs::remove_file(&probe))
        .with_context(|| {
            format!(
                "the records cannot be written in {} (nothing was played)",
                dir.display()
            )
        })
}

/// The tally, every failed game counted beside it, the Elo difference and the times.
fn print_report(report: &MatchReport, a_name: &str, b_name: &str) {
    let t = report.tally;
    let failed = report.failures.len();
    let finished = report.records.len();
    let failed_part = if failed > 0 {
        format!(", {failed} FAILED (not counted)")
    } else {
        String::new()
    };
    let wdl = format!(
        "{a_name}: {} wins, {} draws, {} losses{failed_part}",
        t.wins, t.draws, t.losses
    );
    if finished == 0 {
        outln!("{wdl}; no game finished, so no score");
        return;
    }
    let over = if failed > 0 {
        format!(" over the {finished} finished games")
    } else {
        String::new()
    };
    outln!("{wdl}; score {:.1}%{over}", 100.0 * t.score());
    let (lo, hi) = t.elo_interval();
    outln!(
        "Elo difference {:+.0} (95% interval {:+.0} to {:+.0})",
        t.elo(),
        lo,
        hi
    );
    outln!(
        "mean time per move: {a_name} {:.2} ms, {b_name} {:.2} ms",
        report.mean_time_a().as_secs_f64() * 1e3,
        report.mean_time_b().as_secs_f64() * 1e3
    );
}
