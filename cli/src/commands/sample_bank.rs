//! `kvarn sample-bank`: a bank of exact training samples of the whole game, drawn over the
//! moving phase's win/draw/loss tables and the placing search, away from the committed
//! benchmark sets; or, given `--check`, a bank read back and summed up without tables,
//! and with `--as-set`, written as a benchmark set, so that `kvarn eval solver --set`
//! scores a model on positions it trained on: how well it fits them, beside how well it
//! does on the held-out set, says whether more samples or a larger network is missing.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use kvarn_solver::benchmark::bank::{self, BankHeader, BankSpec};
use kvarn_solver::benchmark::whole_game::{WholeGameSpec, men_placed};
use kvarn_solver::benchmark::{BenchPosition, committed_keys, subset, write_set};

use crate::rules_args::RulesArgs;

/// Arguments of `kvarn sample-bank`.
#[derive(Args, Debug)]
pub struct SampleBankArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Folder of the win/draw/loss tables of the whole moving phase (`kvarn solve --wdl`).
    #[arg(long, required_unless_present = "check")]
    db: Option<PathBuf>,
    /// The bank file to write.
    #[arg(long, required_unless_present = "check")]
    out: Option<PathBuf>,
    /// Read this bank, check every row against its position and the committed sets, and
    /// print what it holds; no tables needed.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["db", "out"])]
    check: Option<PathBuf>,
    /// With --check: also write the bank's rows as a benchmark set (`kvarn eval solver
    /// --set FILE`). An existing file is refused.
    #[arg(long, value_name = "FILE", requires = "check")]
    as_set: Option<PathBuf>,
    /// With --as-set: only this many rows, spread as evenly as the bank allows over its
    /// phases and outcomes (default: every row).
    #[arg(long, value_name = "N", requires = "as_set")]
    as_set_positions: Option<usize>,
    /// Positions with men in hand, from random games, every count of men placed alike.
    #[arg(long, default_value_t = 10_000)]
    placing: usize,
    /// Positions of the moving and flying phases, every unit alike, outcomes balanced.
    #[arg(long, default_value_t = 500_000)]
    moving: usize,
    /// Positions of the moving phase with a removal pending.
    #[arg(long, default_value_t = 100_000)]
    removals: usize,
    /// Men placed at least in the positions with men in hand.
    #[arg(long, default_value_t = 1)]
    placing_from: u8,
    /// Seconds the placing search may take for one position's moves; a position not
    /// proved in time is left out and counted in the header (0: no limit).
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    placing_limit: f64,
    /// Draw away from this bank's positions too (repeatable), so that the banks can be
    /// read together (`selfplay.exact_bank.also`).
    #[arg(long, value_name = "FILE", conflicts_with = "check")]
    beside: Vec<PathBuf>,
    /// Memory of the placing search's transposition table, in MiB: positions of one
    /// opening share much of their search, so a larger table proves later ones sooner.
    #[arg(long, default_value_t = 1024, value_name = "MIB")]
    hash: usize,
    /// Seed of the draws.
    #[arg(long, default_value_t = 63)]
    seed: u64,
}

/// Runs `kvarn sample-bank`.
pub fn run(args: &SampleBankArgs) -> anyhow::Result<()> {
    if let Some(path) = &args.check {
        if let Some(out) = &args.as_set {
            anyhow::ensure!(
                !out.exists(),
                "{} exists: give a new file for --as-set",
                out.display()
            );
        }
        let (header, rows) = bank::read_bank(path)?;
        let excluded = committed_keys(&header.rules)?;
        bank::check_bank(&header, &rows, &excluded)?;
        outln!(
            "{}: {} positions of {}, every row agreeing with its position, none a \
             committed benchmark position",
            path.display(),
            rows.len(),
            header.rules
        );
        summary(&header, &rows);
        if let Some(out) = &args.as_set {
            write_as_set(&header, &rows, out, args.as_set_positions)?;
        }
        return Ok(());
    }
    let (Some(db), Some(out)) = (&args.db, &args.out) else {
        anyhow::bail!("give --db and --out, or --check FILE");
    };
    draw(args, db, out)
}

/// Draws the bank into `out` and reads it back.
fn draw(args: &SampleBankArgs, db: &std::path::Path, out: &std::path::Path) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    anyhow::ensure!(
        args.placing_limit.is_finite() && args.placing_limit >= 0.0,
        "--placing-limit must be a number of seconds, 0 or more (got {})",
        args.placing_limit
    );
    let _lock = kvarn_storage::claim_folder(&super::bench_set::folder_of(out))?;
    let mut excluded = committed_keys(&rules)?;
    for path in &args.beside {
        excluded.extend(
            bank::bank_keys(path, &rules)
                .with_context(|| format!("--beside {}", path.display()))?,
        );
    }
    let judge = kvarn_solver::judge::WholeGame::open_with(db, rules, args.hash << 20)?;
    let spec = BankSpec {
        whole: WholeGameSpec {
            placing: args.placing,
            moving: args.moving,
            min_critical: 0,
            min_placed: args.placing_from,
            seed: args.seed,
            limit: (args.placing_limit > 0.0).then(|| Duration::from_secs_f64(args.placing_limit)),
        },
        removals: args.removals,
    };
    let started = Instant::now();
    let bar = indicatif::ProgressBar::new(args.placing as u64).with_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} placing positions valued {elapsed} (eta {eta})",
        )
        .expect("a valid template"),
    );
    let (header, rows) = bank::draw_bank(&judge, &spec, &excluded, |done, _| {
        bar.set_position(done as u64)
    })?;
    bar.finish_and_clear();
    let drawn = started.elapsed().as_secs_f64();
    bank::write_bank(out, &header, &rows)?;
    let (header, rows) = bank::read_bank(out)?;
    bank::check_bank(&header, &rows, &excluded)?;
    outln!(
        "{} positions drawn in {drawn:.1} s (the placing search visited {}), written to {} \
         ({} bytes) and read back",
        rows.len(),
        judge.positions_searched(),
        out.display(),
        std::fs::metadata(out)?.len()
    );
    summary(&header, &rows);
    Ok(())
}

/// The bank's rows (or `positions` of them, evenly over phases and outcomes) as a
/// benchmark set in `out` (which the caller checked is new).
fn write_as_set(
    header: &BankHeader,
    rows: &[BenchPosition],
    out: &std::path::Path,
    positions: Option<usize>,
) -> anyhow::Result<()> {
    let part;
    let set = match positions {
        Some(n) => {
            part = subset(rows, n);
            &part[..]
        }
        None => rows,
    };
    write_set(out, &header.rules, set)?;
    outln!(
        "{} of its rows written as a benchmark set to {} (`kvarn eval solver --set`)",
        set.len(),
        out.display()
    );
    Ok(())
}

/// Positions by phase and stage (men placed while placing, men on the board after) and
/// by value, and those left out of time.
fn summary(header: &BankHeader, rows: &[BenchPosition]) {
    let rules = header.rules;
    let mut by: BTreeMap<(String, u8), [u64; 3]> = BTreeMap::new();
    for row in rows {
        let Ok(game) = row.game(&rules) else { continue };
        let pos = game.position();
        let stage = if pos.men_in_hand() > 0 {
            ("placed".to_string(), men_placed(&rules, pos))
        } else {
            let men = pos.men(kvarn_game::Color::White).count()
                + pos.men(kvarn_game::Color::Black).count();
            (format!("{} men", row.phase.name()), men as u8)
        };
        let v = &mut by.entry(stage).or_default();
        v[(1 - row.value.score()) as usize] += 1;
    }
    outln!("stage            positions      won    drawn     lost");
    for ((what, n), [w, d, l]) in by {
        outln!(
            "{:<16} {:>9} {w:>8} {d:>8} {l:>8}",
            format!("{what} {n}"),
            w + d + l
        );
    }
    for (placed, n) in &header.out_of_time {
        outln!("left out: {n} positions with {placed} men placed, not proved within the limit");
    }
}
