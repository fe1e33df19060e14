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
    let solver = Databases::open(&args.db, rules)?.load(None)?;
    let held = benchmark::capacity(&solver);
    anyhow::ensure!(
        args.n <= held,
        "--n {} is more positions than the databases in {} hold ({held}): ask for fewer, or \
         solve more (kvarn solve --max-men)",
        args.n,
        args.db.display()
    );
    let mut set = benchmark::sample(&solver, args.n, args.seed);
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
fn folder_of(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
