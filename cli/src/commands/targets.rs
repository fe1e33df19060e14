//! `kvarn eval targets`: a run's value targets judged against the solver's exact values
//! (see `kvarn_train::target_quality`).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use kvarn_game::Outcome;
use kvarn_game::Phase;
use kvarn_solver::db::Databases;
use kvarn_train::resume::config_at;
use kvarn_train::target_quality::{PARTS, PartCounts, TargetQuality};
use kvarn_train::{CheapSearchValue, Manifest, ReplayWindow, RunConfig, RunDir, TrainConfig};

/// Arguments of `kvarn eval targets`.
#[derive(Args, Debug)]
pub struct EvalTargetsArgs {
    /// The run's folder.
    run_dir: PathBuf,
    /// First generation whose self-play samples are judged (default: ten before the last).
    #[arg(long)]
    first: Option<u32>,
    /// Last generation judged (default: the last one done).
    #[arg(long)]
    last: Option<u32>,
    /// The solver's databases of the run's rules (`kvarn solve`).
    #[arg(long)]
    db: PathBuf,
}

/// Runs `kvarn eval targets`.
pub fn run(args: &EvalTargetsArgs) -> anyhow::Result<()> {
    let dir = RunDir::new(&args.run_dir);
    let manifest = Manifest::read(&dir)?;
    let done = manifest.generations_done();
    let last = args.last.unwrap_or(done);
    let first = args.first.unwrap_or(last.saturating_sub(9)).max(1);
    anyhow::ensure!(
        first <= last && last <= done,
        "generations {first} to {last}: the run has done 1 to {done}"
    );
    // The settings the last generation judged was made with, resumes' changes included.
    let config = config_at(&dir, &manifest, last)?;
    let generations = (first..=last)
        .map(|g| {
            dir.shard_files(g)
                .with_context(|| format!("reading {}", dir.shards(g).display()))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let train = TrainConfig {
        cheap_search_value: CheapSearchValue::NextFull,
        window_samples: usize::MAX,
        ..config.train.clone()
    };
    let window = ReplayWindow::load(config.rules, &generations, &train)?;
    let solver = Databases::open(&args.db, config.rules)?.load(None)?;
    let quality = TargetQuality::judge(&window, &solver, config.train.search_value_share);
    print(&quality, first, last, &config);
    Ok(())
}

fn print(q: &TargetQuality, first: u32, last: u32, config: &RunConfig) {
    outln!(
        "value targets of generations {first} to {last}: the share of samples whose part \
         names the exact value (the largest of win, draw and loss); targets mix in the \
         search part with train.search_value_share = {}",
        config.train.search_value_share
    );
    let mut header = format!("{:<9} {:<6} {:>9}", "phase", "kind", "samples");
    for part in PARTS {
        header.push_str(&format!(" {part:>17}"));
    }
    outln!("{header}");
    let phases = [Phase::Placing, Phase::Moving, Phase::Flying, Phase::Removal];
    let values = [Outcome::Win, Outcome::Draw, Outcome::Loss];
    for phase in phases.into_iter().map(Some).chain([None]) {
        let name = phase.map_or("all", Phase::name);
        for full in [Some(true), Some(false)] {
            let search = if full == Some(true) { "full" } else { "cheap" };
            print_row(name, search, &q.total(phase, None, full));
        }
        for exact in values {
            print_row(
                name,
                outcome_name(exact),
                &q.total(phase, Some(exact), None),
            );
        }
        print_row(name, "all", &q.total(phase, None, None));
    }
    outln!(
        "{} samples not in the databases left out; the databases ignore the draw rules \
         (repetition, no-capture limit), which a game's outcome follows",
        q.unsolved
    );
}

/// One line of the table: the samples of a kind (a search, full or cheap, or an exact
/// value) and the share each part names; nothing for a kind without samples.
fn print_row(phase: &str, kind: &str, c: &PartCounts) {
    if c.samples == 0 {
        return;
    }
    let mut line = format!("{phase:<9} {kind:<6} {:>9}", c.samples);
    for n in c.named {
        let pct = 100.0 * n as f64 / c.samples as f64;
        line.push_str(&format!(" {:>16.1}%", pct));
    }
    outln!("{line}");
}

fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Win => "won",
        Outcome::Draw => "drawn",
        Outcome::Loss => "lost",
    }
}
