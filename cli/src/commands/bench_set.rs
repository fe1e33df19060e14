//! `kvarn bench-set`: a benchmark set of exact values sampled from the solver databases.

use std::path::{Path, PathBuf};

use clap::Args;
use kvarn_game::Rules;
use kvarn_selfplay::exact;
use kvarn_solver::benchmark;
use kvarn_solver::benchmark::BenchPosition;
use kvarn_solver::db::Databases;

use crate::rules_args::RulesArgs;

/// Arguments of `kvarn bench-set`.
#[derive(Args, Debug)]
pub struct BenchSetArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Folder of the database files.
    #[arg(long)]
    db: PathBuf,
    /// Number of positions.
    #[arg(long, default_value_t = 1000)]
    n: usize,
    /// Seed of the sampling.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The benchmark file to write.
    #[arg(long)]
    out: PathBuf,
    /// Split the set in two halves alike: the tuning half into --out, the held-out half
    /// into this file.
    #[arg(long)]
    heldout: Option<PathBuf>,
    /// Leave out the positions of the rules' committed sets (both halves), their
    /// symmetric images and colour-swapped twins: a further set to choose settings on,
    /// independent of the committed held-out half that reports the result.
    #[arg(long)]
    beside_committed: bool,
    /// Leave out the positions that the self-play shards under this folder hold (a run
    /// folder: its games and exact samples, with their images and twins), so that the
    /// run's models are judged on positions they were never trained on; repeatable.
    #[arg(long, value_name = "DIR")]
    unseen_in: Vec<PathBuf>,
    /// Keep only critical positions (where some legal move throws the value away), the
    /// ones critical value-keeping is scored on.
    #[arg(long)]
    critical: bool,
    /// Over win/draw/loss tables of the whole moving phase (`kvarn solve --wdl`): how many
    /// of the --n positions have men in hand, from random games and valued by the placing
    /// search, every count of men placed alike (default: a third).
    #[arg(long)]
    placing: Option<usize>,
    /// Over win/draw/loss tables: critical positions wanted in each of the moving and
    /// flying phases, drawn beyond --n until each has them.
    #[arg(long, default_value_t = 0)]
    min_critical: usize,
    /// Over win/draw/loss tables: men placed at least in the positions with men in hand
    /// (the first placements cost the placing search the most).
    #[arg(long, default_value_t = 0)]
    placing_from: u8,
    /// Over win/draw/loss tables: seconds the placing search may take for one position's
    /// moves; a position it does not prove in time is left out and counted (0: no limit,
    /// and the set is the same on every machine).
    #[arg(long, default_value_t = 0.0, value_name = "SECONDS")]
    placing_limit: f64,
}

/// Runs `kvarn bench-set`.
pub fn run(args: &BenchSetArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    anyhow::ensure!(args.n > 0, "--n must be at least 1");
    if let Some(heldout) = &args.heldout {
        anyhow::ensure!(
            !same_file(&args.out, heldout),
            "--out and --heldout name the same file ({}): the held-out half would be \
             overwritten by the tuning half",
            heldout.display()
        );
    }
    let _locks = claim_folders(&args.out, args.heldout.as_deref())?;
    let mut set = if kvarn_solver::db::has_wdl(&args.db, &rules) {
        sample_whole_game(args, rules)?
    } else {
        anyhow::ensure!(
            args.placing.is_none(),
            "--placing needs win/draw/loss tables of the whole moving phase in {} \
             (kvarn solve --wdl)",
            args.db.display()
        );
        sample_databases(args, rules)?
    };
    if args.beside_committed {
        let committed = kvarn_solver::benchmark::committed_keys(&rules)?;
        set = leave_out(set, &rules, &committed, "the committed sets'")?;
    }
    for dir in &args.unseen_in {
        let seen = exact::shard_keys(&rules, dir)?;
        set = leave_out(set, &rules, &seen, &format!("in {}", dir.display()))?;
    }
    if args.critical {
        set.retain(BenchPosition::critical);
    }
    anyhow::ensure!(
        !set.is_empty(),
        "no position is left of the {} sampled{}: ask for more with --n",
        args.n,
        if args.critical {
            " that is critical"
        } else {
            ""
        }
    );
    if let Some(path) = &args.heldout {
        let (tuning, held_out) = benchmark::split(&set);
        benchmark::write_set(path, &rules, &held_out)?;
        outln!(
            "{} held-out positions written to {}",
            held_out.len(),
            path.display()
        );
        set = tuning;
    }
    benchmark::write_set(&args.out, &rules, &set)?;
    let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
    for b in &set {
        *kinds
            .entry(format!("{:?}/{:?}", b.phase, b.value))
            .or_default() += 1;
    }
    outln!("{} positions written to {}", set.len(), args.out.display());
    for (k, n) in kinds {
        outln!("  {k}: {n}");
    }
    Ok(())
}

/// `--n` positions drawn from distance databases.
fn sample_databases(args: &BenchSetArgs, rules: Rules) -> anyhow::Result<Vec<BenchPosition>> {
    let solver = Databases::open(&args.db, rules)?.load(None)?;
    let held = benchmark::capacity(&solver);
    anyhow::ensure!(
        args.n <= held,
        "--n {} is more positions than the databases in {} hold ({held}): ask for fewer, or \
         solve more (kvarn solve --max-men)",
        args.n,
        args.db.display()
    );
    Ok(benchmark::sample(&solver, args.n, args.seed))
}

/// `--n` positions of the whole game over win/draw/loss tables, `--placing` of them with
/// men in hand; says how long the placing searches took and what they left out.
fn sample_whole_game(args: &BenchSetArgs, rules: Rules) -> anyhow::Result<Vec<BenchPosition>> {
    use kvarn_solver::benchmark::whole_game::{WholeGameSpec, sample_whole_game};
    let placing = args.placing.unwrap_or(args.n / 3);
    anyhow::ensure!(
        placing <= args.n,
        "--placing {placing} is more than --n {}",
        args.n
    );
    anyhow::ensure!(
        args.placing_limit.is_finite() && args.placing_limit >= 0.0,
        "--placing-limit must be a number of seconds, 0 or more (got {})",
        args.placing_limit
    );
    let judge = kvarn_solver::judge::WholeGame::open(&args.db, rules)?;
    let spec = WholeGameSpec {
        placing,
        moving: args.n - placing,
        min_placed: args.placing_from,
        min_critical: args.min_critical,
        seed: args.seed,
        limit: (args.placing_limit > 0.0)
            .then(|| std::time::Duration::from_secs_f64(args.placing_limit)),
    };
    let started = std::time::Instant::now();
    let bar = indicatif::ProgressBar::new(placing as u64).with_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} placing positions valued {elapsed} (eta {eta})",
        )
        .expect("a valid template"),
    );
    let none = std::collections::HashSet::new();
    let set = sample_whole_game(&judge, &spec, &none, |done, _| {
        bar.set_position(done as u64)
    })?;
    bar.finish_and_clear();
    outln!(
        "{} positions valued in {:.1} s; the placing search visited {} positions",
        set.positions.len(),
        started.elapsed().as_secs_f64(),
        judge.positions_searched()
    );
    for (placed, n) in &set.out_of_time {
        outln!("  left out: {n} positions with {placed} men placed, not proved within the limit");
    }
    Ok(set.positions)
}

/// Locks the folders the sets are written into, each once, so that a second `bench-set`
/// writing there is refused while this one runs.
fn claim_folders(
    out: &Path,
    heldout: Option<&Path>,
) -> anyhow::Result<Vec<kvarn_storage::FolderLock>> {
    let mut folders = vec![folder_of(out)];
    if let Some(h) = heldout.map(folder_of)
        && !same_file(&folders[0], &h)
    {
        folders.push(h);
    }
    Ok(folders
        .iter()
        .map(|d| kvarn_storage::claim_folder(d))
        .collect::<Result<_, _>>()?)
}

/// `set` without the positions whose canonical keys (see [`kvarn_game::Position::canonical_key`]) are in
/// `keys`, saying how many were `whose`.
fn leave_out(
    set: Vec<BenchPosition>,
    rules: &Rules,
    keys: &std::collections::HashSet<u64>,
    whose: &str,
) -> anyhow::Result<Vec<BenchPosition>> {
    let before = set.len();
    let mut kept = Vec::with_capacity(before);
    for b in set {
        if !keys.contains(&b.game(rules)?.position().canonical_key(rules)) {
            kept.push(b);
        }
    }
    outln!("{} of {before} positions are {whose}", before - kept.len());
    Ok(kept)
}

/// Whether `a` and `b` name the same file, whether or not it exists yet (their folders
/// compared as the file system resolves them).
fn same_file(a: &Path, b: &Path) -> bool {
    let resolved = |p: &Path| {
        let parent = folder_of(p);
        let dir = parent.canonicalize().unwrap_or(parent);
        p.file_name().map(|name| dir.join(name))
    };
    resolved(a).is_some_and(|x| Some(x) == resolved(b))
}

/// The folder a file is written into (`.` for a bare name).
pub(crate) fn folder_of(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
