//! `kvarn solve`: the retrograde solver, writing its databases.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use kvarn_game::{Position, Rules, SYMMETRY_COUNT, Variant};
use kvarn_solver::db;
use kvarn_solver::wdl::Unit;
use kvarn_solver::{Solver, Subspace, Value, plan_for};

use crate::commands::probe::describe;
use crate::rules_args::RulesArgs;

/// Arguments of `kvarn solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Nine Men's Morris: solve the moving phase up to this many men a side (from 3;
    /// default 4). Six and Five are solved whole, and refuse it.
    #[arg(long, value_parser = clap::value_parser!(u8).range(3..=9))]
    max_men: Option<u8>,
    /// Folder of the database files (created if missing; existing files are reused).
    #[arg(long)]
    out: PathBuf,
    /// Afterwards, check every value against its moves and this many random positions
    /// against an exhaustive forward search of 4 decisions; with --wdl, this many random
    /// positions of every unit (all of a smaller one) against their moves, turns to the
    /// next removal included (0: no checks).
    #[arg(long, default_value_t = 0)]
    verify: usize,
    /// The moving phase as win/draw/loss tables of two bits a position with the turns to
    /// the next removal (`*.kvwdl`), unit by unit from 3 v 3 up to --max-men, the way the
    /// larger units of Nine fit in memory.
    #[arg(long)]
    wdl: bool,
}

/// Won, drawn and lost counts of a table, symmetry-reduced and over all positions (each
/// class counted as many times as it has distinct images), and the longest win.
fn counts(solver: &Solver, s: &Subspace, table: &[u16]) -> ([u64; 3], [u64; 3], u16) {
    use rayon::prelude::*;
    let rules = *solver.rules();
    table
        .par_iter()
        .enumerate()
        .filter(|&(_, &v)| v != u16::MAX)
        .filter_map(|(i, &v)| solver.position_at(s, i).map(|pos| (pos, Value::unpack(v))))
        .map(|(pos, v)| {
            let (k, longest) = match v {
                Value::Win(d) => (0, d),
                Value::Draw => (1, 0),
                Value::Loss(_) => (2, 0),
            };
            let same = (0..SYMMETRY_COUNT)
                .filter(|&sym| pos.transformed(&rules, sym).key() == pos.key())
                .count();
            let mut reduced = [0u64; 3];
            let mut all = [0u64; 3];
            reduced[k] = 1;
            all[k] = (SYMMETRY_COUNT / same) as u64;
            (reduced, all, longest)
        })
        .reduce(
            || ([0; 3], [0; 3], 0),
            |a, b| {
                (
                    [a.0[0] + b.0[0], a.0[1] + b.0[1], a.0[2] + b.0[2]],
                    [a.1[0] + b.1[0], a.1[1] + b.1[1], a.1[2] + b.1[2]],
                    a.2.max(b.2),
                )
            },
        )
}

/// Runs `kvarn solve`.
pub fn run(args: &SolveArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    anyhow::ensure!(
        args.max_men.is_none() || rules.variant() == kvarn_game::Variant::Nine,
        "--max-men is for Nine Men's Morris's endgames: {} is solved whole",
        rules.variant()
    );
    // The folder is this process's until it ends: a second solve into it is refused.
    let _lock = kvarn_storage::claim_folder(&args.out)?;
    if args.wdl {
        return solve_wdl(args, rules);
    }
    let plan = plan_for(&rules, args.max_men.unwrap_or(4));
    outln!("solving {rules} into {}", args.out.display());
    let bar = ProgressBar::new(plan.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} steps {elapsed} {msg}")
            .expect("a valid template"),
    );
    let start = Instant::now();
    let mut total = [0u64; 3];
    let solver = db::solve_into(&args.out, rules, &plan, |solver, step, resumed, secs| {
        let subspaces = step.subspaces();
        let pair = subspaces.len() > 1;
        for s in &subspaces {
            let table = solver.table(s).expect("solved or loaded");
            let c = counts(solver, s, table);
            for (t, n) in total.iter_mut().zip(c.1) {
                *t += n;
            }
            let line = subspace_line(&args.out, &rules, s, &c, resumed, secs, pair);
            bar.suspend(|| outln!("{line}"));
        }
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    tracing::info!(steps = plan.len(), folder = %args.out.display(), "solved");
    outln!(
        "done in {:.1} s: {} positions won, {} drawn, {} lost for the player to move",
        start.elapsed().as_secs_f64(),
        total[0],
        total[1],
        total[2]
    );
    if rules.variant() != Variant::Nine {
        let v = solver
            .value(&Position::start(&rules))
            .expect("the start is solved");
        outln!("value of the start position: {}", describe(v));
    }
    if args.verify > 0 {
        verify(&solver, args.verify)?;
    }
    Ok(())
}

/// `kvarn solve --wdl`: the moving phase's units as win/draw/loss tables, with a line a
/// pair, a progress bar weighed by positions and an estimate of the time left.
fn solve_wdl(args: &SolveArgs, rules: Rules) -> anyhow::Result<()> {
    use kvarn_solver::wdl::WdlSolver;
    let max_men = args.max_men.unwrap_or(rules.men());
    let sizer = WdlSolver::new(rules);
    let plan = WdlSolver::plan(max_men);
    let units = |(u, t): &(Unit, Unit)| if u == t { vec![*u] } else { vec![*u, *t] };
    let total: u64 = plan
        .iter()
        .flat_map(units)
        .map(|u| sizer.size(u) as u64)
        .sum();
    outln!(
        "solving the moving phase of {rules} up to {max_men} men a side into {}: {} units, \
         {total} indices",
        args.out.display(),
        plan.iter().flat_map(units).count()
    );
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template("{bar:30} {percent}% {elapsed} left {eta} {msg}")
            .expect("a valid template"),
    );
    let start = Instant::now();
    let mut sums = [0u64; 3];
    let mut solver =
        db::solve_wdl_into(&args.out, rules, max_men, |solver, units, resumed, secs| {
            for &u in units {
                let table = solver.table(u).expect("solved or loaded");
                let c = table.counts();
                for (t, n) in sums.iter_mut().zip(c) {
                    *t += n;
                }
                let [win, loss] = table.longest();
                let digest = table.digest().unwrap_or_default();
                let line = format!(
                    "{}v{}: {} positions, {} won, {} drawn, {} lost; longest win {win}, loss \
                     {loss} turns to the next removal; {secs:.1} s{}; sha256 {digest}",
                    u.white,
                    u.black,
                    c.iter().sum::<u64>(),
                    c[0],
                    c[1],
                    c[2],
                    if resumed { " (read from its file)" } else { "" }
                );
                bar.suspend(|| outln!("{line}"));
                bar.inc(table.len as u64);
            }
        })?;
    bar.finish_and_clear();
    outln!(
        "done in {:.1} s: {} positions won, {} drawn, {} lost for the player to move",
        start.elapsed().as_secs_f64(),
        sums[0],
        sums[1],
        sums[2]
    );
    if args.verify > 0 {
        verify_wdl(args, &mut solver, &plan)?;
    }
    Ok(())
}

/// Checks `--verify` random positions of every unit (all of a smaller one) against their
/// moves with the game's move generator, the turns to the next removal included.
fn verify_wdl(
    args: &SolveArgs,
    solver: &mut kvarn_solver::wdl::WdlSolver,
    plan: &[(Unit, Unit)],
) -> anyhow::Result<()> {
    let rules = *solver.rules();
    let started = Instant::now();
    let mut total = 0;
    for (unit, twin) in plan {
        let units = if unit == twin {
            vec![*unit]
        } else {
            vec![*unit, *twin]
        };
        for &u in &units {
            let table = db::read_wdl(&args.out, &rules, u, solver.size(u))?
                .with_context(|| format!("the table of {u:?} is missing"))?;
            solver.insert(table);
        }
        for &u in &units {
            let seed = u64::from(u.white) << 8 | u64::from(u.black);
            let n = kvarn_solver::verify::check_wdl_unit(solver, u, args.verify, seed)
                .map_err(|e| anyhow::anyhow!("{}v{}: {e}", u.white, u.black))?;
            outln!(
                "verified {}v{}: {n} positions agree with their moves",
                u.white,
                u.black
            );
            total += n;
        }
        for &u in &units {
            solver.keep_values_only(u);
        }
    }
    outln!(
        "verified {total} positions in {:.1} s: every value and every count of turns to \
         the next removal agrees with the moves",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// One solved subspace's line: its counts (`counts`' reduced and whole), longest win,
/// time (shared with its mirror pair where `pair`) and file size.
fn subspace_line(
    out: &Path,
    rules: &Rules,
    s: &Subspace,
    (reduced, all, longest): &([u64; 3], [u64; 3], u16),
    resumed: bool,
    secs: f64,
    pair: bool,
) -> String {
    let bytes = std::fs::metadata(db::path(out, rules, s)).map_or(0, |m| m.len());
    format!(
        "{}{}: won {} drawn {} lost {} (all positions: {} / {} / {}); longest win {longest} turns; {:.2} s{}, {} KiB",
        db::file_name(rules, s),
        if resumed { " (resumed)" } else { "" },
        reduced[0],
        reduced[1],
        reduced[2],
        all[0],
        all[1],
        all[2],
        secs,
        if pair { " for the pair" } else { "" },
        bytes / 1024,
    )
}

/// `--verify N`: every stored value against its moves, then `n` random positions against
/// a forward search.
fn verify(solver: &Solver, n: usize) -> anyhow::Result<()> {
    let t = Instant::now();
    let stored = solver
        .check_consistency()
        .map_err(|e| anyhow::anyhow!("inconsistent value: {e}"))?;
    outln!(
        "consistency: all {stored} stored values agree with their moves ({:.1} s)",
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let proved = kvarn_solver::verify::check_random_positions(solver, n, 4, 1)
        .map_err(|e| anyhow::anyhow!("forward search disagrees: {e}"))?;
    outln!(
        "forward search: {n} random positions agree, {proved} of them proved won or lost within 4 decisions ({:.1} s)",
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
