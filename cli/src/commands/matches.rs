//! `kvarn match`: two agents play a match; results, Elo and records. With `--sprt` the
//! match is a sequential test: game pairs until fishtest's pentanomial SPRT decides.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use kvarn_arena::agent::AgentFactory;
use kvarn_arena::matches::{MatchConfig, MatchReport, SprtReport, run_match, run_sprt};
use kvarn_arena::records::{FORMAT, Header, VERSION, write_records};
use kvarn_arena::sprt::{SprtParams, SprtStatus, Verdict};
use kvarn_game::Color;
use kvarn_selfplay::net_agent;

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
    #[arg(long, default_value_t = 20, conflicts_with = "sprt")]
    games: usize,
    /// A sequential test instead of a fixed number of games: H0 "the first agent is ELO0
    /// stronger" against H1 "it is ELO1 stronger" (logistic Elo), over game pairs (the
    /// same opening, colours swapped) until fishtest's pentanomial SPRT decides or
    /// --max-games is reached; e.g. `--sprt 0,10`.
    #[arg(long, value_name = "ELO0,ELO1", allow_hyphen_values = true)]
    sprt: Option<String>,
    /// The test's chance of accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    alpha: f64,
    /// The test's chance of accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    beta: f64,
    /// The most games a sequential test plays (rounded up to whole pairs) before it stops
    /// undecided.
    #[arg(long, default_value_t = 1000, requires = "sprt")]
    max_games: usize,
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
    /// Games played at once (default: the cores divided by the threads of the agent that
    /// uses more; never more than the cores).
    #[arg(long)]
    parallel: Option<usize>,
}

/// Runs `kvarn match`.
pub fn run(args: &MatchArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let sprt = args
        .sprt
        .as_deref()
        .map(|t| sprt_params(t, args))
        .transpose()?;
    let games = if sprt.is_some() {
        args.max_games
    } else {
        args.games
    };
    anyhow::ensure!(games > 0, "--games and --max-games must be at least 1");
    let a = net_agent::factory(&args.a, &rules).context("reading --a")?;
    let b = net_agent::factory(&args.b, &rules).context("reading --b")?;
    check_out(&args.out, args.overwrite)?;
    let (a_name, b_name) = (a.name(), b.name());
    let cfg = MatchConfig {
        rules,
        games,
        seed: args.seed,
        opening_plies: args.opening_plies,
    };
    let parallel = games_at_once(args.parallel, a.as_ref(), b.as_ref())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(parallel)
        .build()
        .context("starting the game threads")?;
    let (report, verdict) = match sprt {
        Some(params) => {
            outln!(
                "{a_name} vs {b_name}, sequential test of {rules}: H0 {:+} Elo, H1 {:+} Elo, \
                 alpha {}, beta {}, at most {games} games",
                params.elo0,
                params.elo1,
                params.alpha,
                params.beta
            );
            print_threads(a.as_ref(), b.as_ref(), parallel);
            let r = pool.install(|| run_sprt(&cfg, a.as_ref(), b.as_ref(), &params, print_pair))?;
            print_sprt(&r, games);
            let verdict = format!(
                "; {} after {} games",
                r.status.verdict,
                r.status.counts.games()
            );
            (r.report, verdict)
        }
        None => {
            outln!("{a_name} vs {b_name}, {games} games of {rules}");
            print_threads(a.as_ref(), b.as_ref(), parallel);
            let bar = ProgressBar::new(games as u64).with_style(
                ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} games {elapsed} (eta {eta}) {msg}",
                )
                .expect("a valid template"),
            );
            let report =
                pool.install(|| run_match(&cfg, a.as_ref(), b.as_ref(), |_| bar.inc(1)))?;
            bar.finish_and_clear();
            (report, String::new())
        }
    };
    finish(args, &report, &a_name, &b_name, &verdict)
}

/// Reads `--sprt ELO0,ELO1` with `--alpha` and `--beta`.
fn sprt_params(text: &str, args: &MatchArgs) -> anyhow::Result<SprtParams> {
    let (e0, e1) = text
        .split_once(',')
        .with_context(|| format!("--sprt `{text}` should be ELO0,ELO1, e.g. 0,10"))?;
    let number = |v: &str| -> anyhow::Result<f64> {
        v.trim()
            .parse::<f64>()
            .with_context(|| format!("--sprt: `{v}` is not a number"))
    };
    Ok(SprtParams::new(
        number(e0)?,
        number(e1)?,
        args.alpha,
        args.beta,
    )?)
}

/// Games at once: `--parallel`, or the cores divided by the agents' threads. More games
/// at once than cores are refused; games × threads beyond the cores are warned of.
fn games_at_once(
    parallel: Option<usize>,
    a: &dyn AgentFactory,
    b: &dyn AgentFactory,
) -> anyhow::Result<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = a.threads().max(b.threads()).max(1);
    let Some(n) = parallel else {
        return Ok((cores / threads).max(1));
    };
    anyhow::ensure!(n >= 1, "--parallel must be at least 1");
    anyhow::ensure!(
        n <= cores,
        "--parallel {n} is more games at once than the {cores} cores: games would share \
         cores and the times per move (and time-limited play) would not be fair"
    );
    if n * threads > cores {
        eprintln!(
            "warning: {n} games at once with {threads} threads per agent use more threads \
             than the {cores} cores"
        );
    }
    Ok(n)
}

/// Each agent's threads and the games at once.
fn print_threads(a: &dyn AgentFactory, b: &dyn AgentFactory, parallel: usize) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    outln!(
        "threads per agent: {} {}, {} {}; {parallel} games at once on {cores} cores",
        a.name(),
        a.threads(),
        b.name(),
        b.threads()
    );
}

/// One line per pair for the first ten, then every tenth, and every pair that decides.
fn print_pair(status: &SprtStatus) {
    let pairs = status.counts.pairs();
    if pairs <= 10 || pairs.is_multiple_of(10) || status.verdict.is_decided() {
        outln!("{status}");
    }
}

/// The test's verdict and figures.
fn print_sprt(r: &SprtReport, max_games: usize) {
    let s = &r.status;
    let games = s.counts.games();
    let what = match s.verdict {
        Verdict::AcceptH1 => format!(
            "H1 accepted: the first agent is stronger than {:+} Elo (LLR {:.2} above {:.2}; \
             at {:+} Elo this happens with probability {} at most)",
            r.params.elo0, s.llr, s.upper_bound, r.params.elo0, r.params.alpha
        ),
        Verdict::AcceptH0 => format!(
            "H0 accepted: the first agent is not {:+} Elo stronger (LLR {:.2} below {:.2}; \
             at {:+} Elo this happens with probability {} at most)",
            r.params.elo1, s.llr, s.lower_bound, r.params.elo1, r.params.beta
        ),
        Verdict::Continue => format!(
            "undecided: the cap of {max_games} games was reached (LLR {:.2} within {:.2} to {:.2})",
            s.llr, s.lower_bound, s.upper_bound
        ),
    };
    outln!("{what}, after {games} games ({} pairs)", s.counts.pairs());
    outln!(
        "pentanomial (pairs scoring 0, 1/2, 1, 3/2, 2): {}; Elo {}",
        s.counts,
        s.elo
    );
    if r.uncounted_pairs > 0 {
        outln!(
            "{} pairs played after the decision in the same batch are not counted",
            r.uncounted_pairs
        );
    }
    if r.failed_pairs > 0 {
        outln!("{} pairs left out: a game failed", r.failed_pairs);
    }
}

/// Writes the records and prints the report; fails when games failed.
fn finish(
    args: &MatchArgs,
    report: &MatchReport,
    a_name: &str,
    b_name: &str,
    verdict: &str,
) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let failed = report.failures.len();
    let played = report.records.len() + failed;
    let mut description = format!("{a_name} vs {b_name}, seed {}{verdict}", args.seed);
    if failed > 0 {
        description += &format!("; {failed} of {played} games failed and are not recorded");
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
    print_report(report, a_name, b_name);
    if !report.records.is_empty() {
        outln!("records: {}", args.out.display());
    }
    if failed > 0 {
        for f in &report.failures {
            eprintln!("failed: {f}");
        }
        let stopped = report
            .stopped
            .as_ref()
            .map_or(String::new(), |why| format!("; {why}"));
        anyhow::bail!(
            "{failed} of {played} games failed{stopped}: the match is incomplete and its score \
             covers only the {} finished games",
            report.records.len()
        );
    }
    Ok(())
}

/// Refuses an existing records file unless `overwrite`, and checks that the file can be
/// written (creating its folder), before any game is played.
fn check_out(path: &Path, overwrite: bool) -> anyhow::Result<()> {
    if !overwrite && path.exists() {
        let what = match kvarn_arena::records::read_records(path) {
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
    kvarn_storage::make_folder(dir).with_context(|| {
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
    outln!("{}", endings(report, a_name));
}

/// How the finished games ended, by reason, and who won them: `too_few_men 12 (A 9, B
/// 3), repetition 4, ...`.
fn endings(report: &MatchReport, a_name: &str) -> String {
    let mut by_reason: std::collections::BTreeMap<&str, [u32; 2]> = Default::default();
    for r in &report.records {
        let winner = r.winner().map(|c| match c {
            Color::White => &r.white,
            Color::Black => &r.black,
        });
        let entry = by_reason.entry(r.reason.as_str()).or_default();
        match winner {
            Some(w) if w == a_name => entry[0] += 1,
            Some(_) => entry[1] += 1,
            None => {}
        }
    }
    let parts: Vec<String> = by_reason
        .iter()
        .map(|(reason, [a, b])| {
            let total = report
                .records
                .iter()
                .filter(|r| r.reason == *reason)
                .count();
            if a + b > 0 {
                format!("{reason} {total} (A won {a}, B won {b})")
            } else {
                format!("{reason} {total}")
            }
        })
        .collect();
    format!("how the games ended: {}", parts.join(", "))
}
