//! `kvarn train`: the generation loop from a configuration file, or a stopped run resumed.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{ArgGroup, Args};
use indicatif::{ProgressBar, ProgressStyle};
use kvarn_train::RunConfig;
use kvarn_train::run::{self, GenerationRecord, model_path};

/// Arguments of `kvarn train`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("source").required(true).args(["config", "resume"])))]
pub struct TrainArgs {
    /// Run configuration (TOML), e.g. configs/quickstart.toml.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Folder of the new run (default: runs/<configuration name>); it must not hold a run.
    #[arg(long, requires = "config")]
    out: Option<PathBuf>,
    /// Resume the run in this folder, with the configuration it started with.
    #[arg(long)]
    resume: Option<PathBuf>,
    /// Run until this many generations in all (default: the configuration's); with
    /// --resume, extends a finished run.
    #[arg(long)]
    generations: Option<u32>,
}

fn pct(v: f64) -> String {
    format!("{:.0}%", 100.0 * v)
}

/// One line per generation for the terminal and the log.
fn describe(r: &GenerationRecord) -> String {
    let mut parts = vec![format!(
        "generation {}: loss {:.3} policy {:.3} value, {:.0} self-play positions/s",
        r.generation, r.loss.0, r.loss.1, r.selfplay_positions_per_second
    )];
    if let Some((s, _)) = r.vs_previous {
        parts.push(format!(
            "vs previous {}{}",
            pct(s),
            if r.promoted {
                " (promoted)"
            } else {
                " (kept the previous model)"
            }
        ));
    }
    if let Some((s, _)) = r.vs_random {
        parts.push(format!("vs random {}", pct(s)));
    }
    for (d, s, _) in &r.vs_baseline {
        parts.push(format!("vs alpha-beta {d} {}", pct(*s)));
    }
    if let Some(s) = &r.solver {
        if let Some(a) = s.value_accuracy {
            parts.push(format!("solver value accuracy {:.1}%", 100.0 * a));
        }
        parts.push(format!(
            "value-keeping moves {:.1}%",
            100.0 * s.value_keeping
        ));
    }
    if let Some(p) = &r.vs_perfect {
        parts.push(format!(
            "vs perfect {}-{}-{} (W-D-L)",
            p.wins, p.draws, p.losses
        ));
    }
    parts.push(format!("{:.0} s", r.seconds));
    parts.join(", ")
}

/// Runs `kvarn train`.
pub fn run(args: &TrainArgs) -> anyhow::Result<()> {
    let (dir, text, origin) = match (&args.config, &args.resume) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading the configuration {}", path.display()))?;
            let dir = args.out.clone().unwrap_or_else(|| {
                let name = path.file_stem().map_or("run".into(), |s| s.to_os_string());
                PathBuf::from("runs").join(name)
            });
            (dir, text, path.display().to_string())
        }
        (None, Some(dir)) => {
            let path = dir.join("config.toml");
            anyhow::ensure!(
                path.exists(),
                "{} holds no run to resume (no config.toml)",
                dir.display()
            );
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            (dir.clone(), text, path.display().to_string())
        }
        (None, None) => anyhow::bail!("give --config FILE or --resume DIR"),
    };
    let mut config = RunConfig::parse(&text, &origin)?;
    if let Some(g) = args.generations {
        anyhow::ensure!(g >= 1, "--generations must be at least 1");
        config.run.generations = g;
    }
    if args.config.is_some() {
        run::start(&config, &text, &dir)?;
        tracing::info!(folder = %dir.display(), rules = %config.rules, "run started");
    } else {
        let m = run::read_manifest(&dir)?;
        tracing::info!(
            folder = %dir.display(),
            generations_done = m.generations_done,
            "run resumed"
        );
    }
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template(
            "{spinner} {msg} [{bar:30}] {pos}/{len} {per_sec} eta {eta} (run {elapsed})",
        )
        .expect("a valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let began = Instant::now();
    let manifest = run::run(&config, &dir, None, Some(&bar), |r| {
        let line = describe(r);
        bar.suspend(|| println!("{line}"));
        tracing::debug!(generation = r.generation, "{line}");
    })?;
    bar.finish_and_clear();
    println!(
        "{} generations in {:.1} min; the self-play model is {}",
        manifest.generations_done,
        began.elapsed().as_secs_f64() / 60.0,
        model_path(&dir, manifest.selfplay_model).display()
    );
    println!(
        "summary: {}  plot: {}  figures: {}",
        dir.join(kvarn_train::report::SUMMARY_MARKDOWN).display(),
        dir.join(kvarn_train::report::STRENGTH_PLOT).display(),
        dir.join(kvarn_train::report::SUMMARY_CSV).display()
    );
    println!(
        "TensorBoard: tensorboard --logdir {}",
        dir.join("tb").display()
    );
    Ok(())
}
