//! `kvarn train`: the generation loop from a configuration file, or a stopped run resumed.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{ArgGroup, Args};
use indicatif::{ProgressBar, ProgressStyle};
use kvarn_model::file;
use kvarn_train::report::terminal_line;
use kvarn_train::run::{InitialModel, RunOptions};
use kvarn_train::{Manifest, RunConfig, RunDir, run};

/// Arguments of `kvarn train`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("source").required(true).args(["config", "resume"])))]
pub struct TrainArgs {
    /// Run configuration (TOML), e.g. configs/quickstart.toml.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Folder of the new run (default: runs/<configuration name>); it must not hold a run.
    #[arg(long, requires = "config", conflicts_with = "resume")]
    out: Option<PathBuf>,
    /// A setting on top of the configuration's, as `KEY=VALUE` with a dotted key, e.g.
    /// `--set seed=2 --set train.learning_rate=0.001`; repeatable. A new run stores the
    /// configuration it runs with; a resumed one goes on with the settings changed from
    /// its next generation, recorded in its manifest and summary (the rules, the network
    /// and the steps per generation cannot change). A run that already has its generations
    /// runs nothing and records nothing.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    settings: Vec<String>,
    /// Start the new run from this model's weights (a trained model, or one made wider by
    /// `kvarn model widen`) rather than fresh ones; it must have the configuration's rules
    /// and network.
    #[arg(long, requires = "config", conflicts_with = "resume")]
    init: Option<PathBuf>,
    /// Resume the run in this folder, with the configuration it started with and the
    /// settings changed on earlier resumes; an edited config.toml is refused.
    #[arg(long)]
    resume: Option<PathBuf>,
    /// Run until this many generations in all (default: the configuration's); with
    /// --resume, extends a finished run.
    #[arg(long)]
    generations: Option<u32>,
    /// With --resume: go on even where the run cannot be reproduced exactly (its
    /// checkpoint or old self-play games are gone); the manifest records it.
    #[arg(long, requires = "resume")]
    inexact: bool,
}

/// Starts the run that `args.config` asks for, with its settings, and returns its folder.
fn start(args: &TrainArgs, path: &Path) -> anyhow::Result<RunDir> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the configuration {}", path.display()))?;
    let origin = path.display().to_string();
    let text = RunConfig::with_settings(&text, &origin, &args.settings)?;
    let config = RunConfig::parse(&text, &origin)?;
    let dir = RunDir::new(args.out.clone().unwrap_or_else(|| {
        let name = path.file_stem().map_or("run".into(), |s| s.to_os_string());
        PathBuf::from("runs").join(name)
    }));
    let initial = match &args.init {
        Some(path) => {
            let device = config.device.device()?;
            let (network, _) = file::load(path, &device)
                .with_context(|| format!("loading the initial model {}", path.display()))?;
            Some((path, network))
        }
        None => None,
    };
    let initial = initial
        .as_ref()
        .map(|(path, network)| InitialModel { path, network });
    run::start(&config, &text, &dir, initial.as_ref())?;
    tracing::info!(folder = %dir.root().display(), rules = %config.rules, "run started");
    Ok(dir)
}

/// Runs `kvarn train`.
pub fn run(args: &TrainArgs) -> anyhow::Result<()> {
    if let Some(g) = args.generations {
        anyhow::ensure!(g >= 1, "--generations must be at least 1");
    }
    let (dir, settings) = match (&args.config, &args.resume) {
        (Some(path), _) => (start(args, path)?, Vec::new()),
        (None, Some(dir)) => {
            let dir = RunDir::new(dir);
            let m = Manifest::read(&dir)?;
            tracing::info!(
                folder = %dir.root().display(),
                generations_done = m.generations_done(),
                "run resumed"
            );
            (dir, args.settings.clone())
        }
        (None, None) => anyhow::bail!("give --config FILE or --resume DIR"),
    };
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template(
            "{spinner} {msg} [{bar:30}] {pos}/{len} {per_sec} eta {eta} (run {elapsed})",
        )
        .expect("a valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let began = Instant::now();
    let options = RunOptions {
        generations: args.generations,
        settings,
        allow_inexact: args.inexact,
        ..RunOptions::default()
    };
    let mut ran = 0;
    let manifest = run::run(&dir, &options, Some(&bar), |config, r| {
        ran += 1;
        let line = terminal_line(config, r);
        bar.suspend(|| outln!("{line}"));
        tracing::debug!(generation = r.generation, "{line}");
    })?;
    bar.finish_and_clear();
    outln!(
        "{} generations ({} run now, in {:.1} min); the self-play model is {}",
        manifest.generations_done(),
        ran,
        began.elapsed().as_secs_f64() / 60.0,
        dir.model(manifest.selfplay_model()).display()
    );
    outln!(
        "summary: {}  plot: {}  figures: {}",
        dir.summary_markdown().display(),
        dir.strength_plot().display(),
        dir.summary_csv().display()
    );
    outln!(
        "TensorBoard: tensorboard --logdir {}",
        dir.tensorboard().display()
    );
    Ok(())
}
