//! `kvarn ladder`: chosen generations of a run and fixed baselines play each other, and
//! one Elo scale is fitted to all their games (see `kvarn_arena::ladder`).

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use kvarn_arena::agent::AgentFactory;
use kvarn_arena::ladder::{
    self, FitOptions, Ladder, LadderGames, Pairing, ScheduleOptions, fit, schedule,
};
use kvarn_game::Rules;
use kvarn_model::{DeviceChoice, file};
use kvarn_selfplay::net_agent;
use kvarn_storage::write_atomically;
use kvarn_train::ladder_plot::{LadderPoint, ladder_svg};
use kvarn_train::stages::evaluation;
use kvarn_train::{RunConfig, RunDir};

/// Arguments of `kvarn ladder`.
#[derive(Args, Debug)]
pub struct LadderArgs {
    /// The run's folder.
    run_dir: PathBuf,
    /// Generations to rate, e.g. `0,10,20` (default: about eleven, evenly spread from 0 to
    /// the last, the last included).
    #[arg(long, value_delimiter = ',', conflicts_with = "every")]
    generations: Option<Vec<u32>>,
    /// Every Nth generation from 0, and the last.
    #[arg(long)]
    every: Option<u32>,
    /// Fixed baselines, agent specifications separated by commas, e.g.
    /// `random,alphabeta:depth=2` (an item with `=` but no `:` belongs to the one before:
    /// `alphabeta:depth=2,threads=1`); `none` for no baselines (default: random and
    /// alpha-beta at the run's `loop.baseline_depths`).
    #[arg(long)]
    baselines: Option<String>,
    /// Games per pair (colours alternate; each opening is played twice).
    #[arg(long, default_value_t = 40)]
    games: usize,
    /// Player settings of the network players over the run's evaluation player
    /// (`[loop.player]`), e.g. `simulations=800,symmetries=16` (`kvarn config` lists them).
    #[arg(long)]
    player: Option<String>,
    /// Seed of the openings; pair (i, j) plays from seeds::derive(seed, i, j).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random decisions from the start before the agents take over.
    #[arg(long, default_value_t = 2)]
    opening_plies: usize,
    /// The player held at Elo 0: `gen-N`, `gen-NNNN` or a baseline's specification as
    /// given (default: the first baseline other than `random`, which plays every model and
    /// so ties the scale down best, else the first generation rated).
    #[arg(long)]
    anchor: Option<String>,
    /// Virtual draws of every player against the anchor, which keep a player that won or
    /// lost every game finite.
    #[arg(long, default_value_t = 1.0)]
    prior_draws: f64,
    /// Every pair plays when there are at most this many players.
    #[arg(long, default_value_t = 6)]
    round_robin_up_to: usize,
    /// Otherwise each generation plays the next this many generations rated.
    #[arg(long, default_value_t = 2)]
    neighbours: usize,
    /// Games played at once (default: one per core).
    #[arg(long)]
    parallel: Option<usize>,
    /// Where to write ladder.csv, ladder.md and ladder.svg (default: RUN_DIR/ladder).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// A player of the ladder.
struct Player {
    /// `gen-NNNN` or the baseline's specification.
    label: String,
    generation: Option<u32>,
    factory: Box<dyn AgentFactory>,
}

/// The generations to rate, of those with a model in `dir` up to `last`.
fn generations(args: &LadderArgs, dir: &RunDir, last: u32) -> anyhow::Result<Vec<u32>> {
    let mut gens = if let Some(list) = &args.generations {
        list.clone()
    } else {
        let every = match args.every {
            Some(0) => anyhow::bail!("--every must be at least 1"),
            Some(n) => n,
            None => last.div_ceil(10).max(1),
        };
        let mut g: Vec<u32> = (0..=last).step_by(every as usize).collect();
        g.push(last);
        g
    };
    gens.sort_unstable();
    gens.dedup();
    for &g in &gens {
        anyhow::ensure!(
            dir.model(g).exists(),
            "generation {g} has no model ({} is missing; the last is {last})",
            dir.model(g).display()
        );
    }
    anyhow::ensure!(!gens.is_empty(), "no generations to rate");
    Ok(gens)
}

/// Splits `random,alphabeta:depth=2,threads=1` into specifications.
fn baseline_specs(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match out.last_mut() {
            Some(last) if item.contains('=') && !item.contains(':') => {
                last.push(',');
                last.push_str(item);
            }
            _ => out.push(item.to_string()),
        }
    }
    out
}

/// The run's configuration with its evaluation player as the ladder plays it: the settings
/// of `--player` in place of the run's, checked as the run's are.
fn evaluation_config(args: &LadderArgs, config: &RunConfig) -> anyhow::Result<RunConfig> {
    let mut eval = config.clone();
    let given = args.player.as_deref().unwrap_or("");
    for (name, value) in kvarn_selfplay::player::pairs(given).context("--player")? {
        eval.run.set_player(name, value);
    }
    eval.run
        .player(&eval.search)
        .and_then(|p| {
            p.validate_for(&eval.rules)
                .map_err(|e| kvarn_storage::SettingError::new("--player", e.to_string()))
        })
        .map_err(|e| anyhow::anyhow!("--player: {e}"))?;
    Ok(eval)
}

/// The run's evaluation player (`kvarn_train::stages::evaluation::player`) with the model
/// at `path`.
fn network_player(
    eval: &RunConfig,
    path: &Path,
    label: &str,
) -> anyhow::Result<Box<dyn AgentFactory>> {
    let device = DeviceChoice::Cpu.device()?;
    let (network, _) = file::load_for_rules(path, &eval.rules, &device)
        .with_context(|| format!("loading {}", path.display()))?;
    Ok(Box::new(evaluation::player(eval, label.into(), &network)?))
}

/// The last generation with a model in the run's folder (the manifest is not needed:
/// models are written whole, and a run from an older version is rated too).
fn last_generation(dir: &RunDir) -> anyhow::Result<u32> {
    let folder = dir
        .model(0)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let entries = std::fs::read_dir(&folder)
        .with_context(|| format!("{} holds no models", folder.display()))?;
    let mut last = None;
    for e in entries {
        let name = e?.file_name();
        let g = name.to_str().and_then(|n| {
            n.strip_prefix("gen-")?
                .strip_suffix(".kvmodel")?
                .parse()
                .ok()
        });
        if let Some(g) = g.filter(|&g| dir.model(g).file_name() == Some(name.as_os_str())) {
            last = last.max(Some(g));
        }
    }
    last.with_context(|| format!("{} holds no models", folder.display()))
}

fn players(args: &LadderArgs, dir: &RunDir, eval: &RunConfig) -> anyhow::Result<Vec<Player>> {
    let last = last_generation(dir)?;
    let mut out = Vec::new();
    for g in generations(args, dir, last)? {
        let label = format!("gen-{g:04}");
        out.push(Player {
            factory: network_player(eval, &dir.model(g), &label)?,
            label,
            generation: Some(g),
        });
    }
    let specs = match args.baselines.as_deref() {
        Some("none") => Vec::new(),
        Some(text) => baseline_specs(text),
        None => std::iter::once("random".to_string())
            .chain(
                eval.run
                    .baseline_depths
                    .iter()
                    .map(|d| format!("alphabeta:depth={d}")),
            )
            .collect(),
    };
    for spec in specs {
        let factory = net_agent::factory(&spec, &eval.rules)
            .with_context(|| format!("reading the baseline `{spec}`"))?;
        out.push(Player {
            label: spec,
            generation: None,
            factory,
        });
    }
    Ok(out)
}

/// The index of the anchor named `name` (`gen-N` in any zero padding, or a label).
fn anchor_index(players: &[Player], name: Option<&str>) -> anyhow::Result<usize> {
    let Some(name) = name else {
        let fixed = players
            .iter()
            .position(|p| p.generation.is_none() && !p.label.starts_with("random"));
        return Ok(fixed.unwrap_or(0));
    };
    let generation = name
        .strip_prefix("gen-")
        .and_then(|n| n.parse::<u32>().ok());
    players
        .iter()
        .position(|p| p.label == name || (generation.is_some() && p.generation == generation))
        .with_context(|| {
            let names: Vec<&str> = players.iter().map(|p| p.label.as_str()).collect();
            format!("--anchor {name} is not a player: {}", names.join(", "))
        })
}

/// Runs `kvarn ladder`.
pub fn run(args: &LadderArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.games > 0, "--games must be at least 1");
    // Checked here, before any game, as the fit would check it after them all.
    anyhow::ensure!(
        args.prior_draws >= 0.0 && args.prior_draws.is_finite(),
        "--prior-draws must be a count >= 0, not {}",
        args.prior_draws
    );
    let dir = RunDir::new(&args.run_dir);
    anyhow::ensure!(
        dir.config().exists(),
        "{} holds no run (no config.toml)",
        dir.root().display()
    );
    let text = std::fs::read_to_string(dir.config())
        .with_context(|| format!("reading {}", dir.config().display()))?;
    let config = RunConfig::parse(&text, &dir.config().display().to_string())?;
    let config = evaluation_config(args, &config)?;
    let players = players(args, &dir, &config)?;
    let anchor = anchor_index(&players, args.anchor.as_deref())?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| dir.root().join("ladder"));
    let _lock = kvarn_storage::claim_folder(&out)?;
    let models = players.iter().filter(|p| p.generation.is_some()).count();
    let pairs = schedule(
        models,
        players.len() - models,
        &ScheduleOptions {
            round_robin_up_to: args.round_robin_up_to,
            neighbours: args.neighbours,
        },
    );
    let results = play(args, &config.rules, &players, &pairs)?;
    let names: Vec<String> = players.iter().map(|p| p.label.clone()).collect();
    let opts = FitOptions {
        anchor,
        prior_draws: args.prior_draws,
    };
    let ladder = fit(players.len(), &results, &opts)?;
    print_table(&names, &ladder);
    write_files(args, &config, &out, &players, &ladder, &results)?;
    outln!("written: {}", out.join("ladder.{csv,md,svg}").display());
    Ok(())
}

/// Plays the schedule with a progress bar; games that failed are reported and make the
/// command fail after the others are played and counted.
fn play(
    args: &LadderArgs,
    rules: &Rules,
    players: &[Player],
    pairs: &[(usize, usize)],
) -> anyhow::Result<Vec<Pairing>> {
    let total = (pairs.len() * args.games) as u64;
    outln!(
        "{} players, {} pairs, {} games each: {total} games of {rules}",
        players.len(),
        pairs.len(),
        args.games
    );
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games {elapsed} (eta {eta}) {msg}")
            .expect("a valid template"),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.parallel.unwrap_or(0))
        .build()
        .context("starting the game threads")?;
    let cfg = LadderGames {
        rules: *rules,
        games_per_pair: args.games,
        seed: args.seed,
        opening_plies: args.opening_plies,
    };
    let factories: Vec<&dyn AgentFactory> = players.iter().map(|p| p.factory.as_ref()).collect();
    let mut results = Vec::with_capacity(pairs.len());
    let mut failed = Vec::new();
    for &(a, b) in pairs {
        bar.set_message(format!("{} vs {}", players[a].label, players[b].label));
        let played = pool.install(|| ladder::play(&cfg, &factories, &[(a, b)], |_| bar.inc(1)))?;
        for p in played {
            bar.inc(p.failures.len() as u64);
            failed.extend(p.failures.iter().map(|f| {
                format!(
                    "{} vs {}: {f}",
                    players[p.pairing.a].label, players[b].label
                )
            }));
            results.push(p.pairing);
        }
    }
    bar.finish_and_clear();
    if !failed.is_empty() {
        for f in &failed {
            eprintln!("failed: {f}");
        }
        anyhow::bail!(
            "{} of {total} games failed; no scale is fitted to an incomplete schedule",
            failed.len()
        );
    }
    Ok(results)
}

fn print_table(names: &[String], ladder: &Ladder) {
    let width = names.iter().map(String::len).max().unwrap_or(6).max(6);
    outln!(
        "{:width$}  {:>6}  {:>15}  {:>5}  {:>6}",
        "player",
        "Elo",
        "95% interval",
        "games",
        "score"
    );
    for (name, r) in names.iter().zip(&ladder.ratings) {
        outln!(
            "{name:width$}  {:>+6.0}  {:>+6.0} .. {:>+5.0}  {:>5}  {:>5.1}%",
            r.elo,
            r.low,
            r.high,
            r.games,
            100.0 * r.score
        );
    }
    outln!(
        "Elo relative to {} (held at 0); the intervals are of the difference to it.",
        names[ladder.anchor]
    );
}

fn write_files(
    args: &LadderArgs,
    config: &RunConfig,
    out: &Path,
    players: &[Player],
    ladder: &Ladder,
    results: &[Pairing],
) -> anyhow::Result<()> {
    let names: Vec<String> = players.iter().map(|p| p.label.clone()).collect();
    let player = config.run.player(&config.search)?;
    let title = format!(
        "Kvarn ladder: {} ({}, {} simulations{})",
        args.run_dir.display(),
        config.rules.variant(),
        player.search_config().simulations,
        kvarn_train::run_config::player_note(&player)
    );
    let md = format!(
        "# {title}\n\nRules: {}. Maximum-likelihood Elo (Bradley–Terry, a draw as half a win and half a \
         loss), {} games per pair, seed {}, {} virtual draw(s) of every player against the \
         anchor; 95% intervals from the observed information.\n\n{}",
        config.rules,
        args.games,
        args.seed,
        args.prior_draws,
        ladder::markdown(&names, ladder, results)
    );
    let points: Vec<LadderPoint> = players
        .iter()
        .zip(&ladder.ratings)
        .map(|(p, r)| LadderPoint {
            label: p.label.clone(),
            generation: p.generation,
            elo: r.elo,
            low: r.low,
            high: r.high,
        })
        .collect();
    let svg = ladder_svg(&title, &points).map_err(|e| anyhow::anyhow!("drawing the plot: {e}"))?;
    for (name, text) in [
        ("ladder.csv", ladder::csv(&names, ladder)),
        ("ladder.md", md),
        ("ladder.svg", svg),
    ] {
        let path = out.join(name);
        write_atomically(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
