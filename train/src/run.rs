//! The generation loop behind `kvarn train`: self-play with the current model, training
//! on the replay window, evaluation, and the next generation, with everything on disk so
//! that a killed run resumes where it stopped.
//!
//! A run folder holds:
//!
//! | path | content |
//! |---|---|
//! | `manifest.json` | the generations done and their figures (written atomically) |
//! | `config.toml` | the configuration the run started with |
//! | `models/gen-NNNN.kvmodel` | the model after generation N (0: the initial one) |
//! | `checkpoint.kvckpt` | network, optimiser state and step count |
//! | `shards/gen-NNNN/` | the self-play games of generation N |
//! | `tb/` | TensorBoard event files |
//!
//! Resuming reads the manifest and goes on with the next generation: its games already
//! in shards are skipped, training continues from the checkpoint's step (batches are
//! drawn from generators seeded by step, so the resumed steps are the ones the killed run
//! would have taken), and the evaluation is simply made again.

use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::ProgressBar;
use kvarn_eval::EvalError;
use kvarn_eval::agent::{AgentFactory, AgentSpec};
use kvarn_eval::elo::Tally;
use kvarn_eval::matches::{MatchConfig, run_match_with};
use kvarn_eval::solver::benchmark::{self, BenchPosition};
use kvarn_eval::solver::{db, plan_for};
use kvarn_game::Rules;
use kvarn_model::{Inference, InferencePath, Network, Provenance, file};
use kvarn_selfplay::{SearchConfig, SearchPlayer, SelfPlayJob, read_shard};
use kvarn_storage::write_atomically;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::checkpoint;
use crate::metrics::Metrics;
use crate::replay::ReplayWindow;
use crate::report;
pub use crate::run_config::{LoopConfig, RunConfig, SolverConfig};
use crate::trainer::Trainer;

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A setting is out of range.
    #[error("{0}")]
    Config(String),
    /// A file of the run could not be read or written.
    #[error("{path}: {reason}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// Self-play, training or evaluation failed.
    #[error("{0}")]
    Step(String),
}

/// The network on the solver benchmark set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SolverFigures {
    /// Positions scored.
    pub positions: u32,
    /// Share of positions whose exact outcome the search's win/draw/loss estimate named.
    pub value_accuracy: Option<f64>,
    /// Share of won or drawn positions where the chosen move kept the value.
    pub value_keeping: f64,
    /// Share of won or drawn positions where the chosen move threw it away.
    pub blunders: f64,
}

/// One generation's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerationRecord {
    /// The generation (1-based).
    pub generation: u32,
    /// Optimiser steps at its end.
    pub step: u64,
    /// The generation whose model played this generation's self-play games.
    pub selfplay_model: u32,
    /// Whether this generation's model became the self-play model.
    pub promoted: bool,
    /// Self-play positions per second.
    pub selfplay_positions_per_second: f64,
    /// Optimiser steps per second.
    pub train_steps_per_second: f64,
    /// Samples in the replay window.
    pub window_samples: usize,
    /// Mean losses over its steps: policy, value.
    pub loss: (f64, f64),
    /// Score against the self-play model (0..1) and its Elo difference.
    pub vs_previous: Option<(f64, f64)>,
    /// Score against random play and its Elo difference.
    pub vs_random: Option<(f64, f64)>,
    /// Per baseline depth: score and Elo difference.
    pub vs_baseline: Vec<(u32, f64, f64)>,
    /// The solver benchmark, where the run has databases.
    pub solver: Option<SolverFigures>,
    /// Games against the perfect player.
    pub vs_perfect: Option<Tally>,
    /// Seconds the generation took.
    pub seconds: f64,
}

/// What `manifest.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Always `kvarn-run`.
    pub format: String,
    /// Layout version.
    pub version: u32,
    /// Generations finished.
    pub generations_done: u32,
    /// The generation whose model plays self-play (the last promoted one).
    pub selfplay_model: u32,
    /// Their figures.
    pub history: Vec<GenerationRecord>,
}

/// The layout version this Kvarn writes and reads.
pub const MANIFEST_VERSION: u32 = 2;

/// The solver benchmark set of a run, sampled once when the run first needs it.
pub const SOLVER_SET: &str = "solver-set.jsonl";

fn file_err(path: &Path, e: impl std::fmt::Display) -> RunError {
    RunError::File {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

/// The model file of generation `g`.
pub fn model_path(dir: &Path, g: u32) -> PathBuf {
    dir.join("models").join(format!("gen-{g:04}.kvmodel"))
}

fn shard_dir(dir: &Path, g: u32) -> PathBuf {
    dir.join("shards").join(format!("gen-{g:04}"))
}

fn shards_in(dir: &Path) -> Result<Vec<PathBuf>, RunError> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries {
            let p = e.map_err(|e| file_err(dir, e))?.path();
            if p.extension()
                .is_some_and(|x| x == kvarn_selfplay::shard::SHARD_EXTENSION)
            {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn write_manifest(dir: &Path, m: &Manifest) -> Result<(), RunError> {
    let path = dir.join("manifest.json");
    let bytes = serde_json::to_vec_pretty(m).map_err(|e| file_err(&path, e))?;
    write_atomically(&path, &bytes).map_err(|e| file_err(&path, e))
}

/// Reads a run's manifest.
///
/// # Errors
/// Missing or unreadable.
pub fn read_manifest(dir: &Path) -> Result<Manifest, RunError> {
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).map_err(|e| file_err(&path, e))?;
    let m: Manifest = serde_json::from_str(&text).map_err(|e| file_err(&path, e))?;
    if m.format != "kvarn-run" || m.version != MANIFEST_VERSION {
        return Err(file_err(
            &path,
            format!(
                "format {} version {}; this Kvarn reads kvarn-run version {MANIFEST_VERSION}",
                m.format, m.version
            ),
        ));
    }
    Ok(m)
}

/// The Elo difference of a tally, a clean sweep counted as half a game short of one so
/// that the figure stays finite (for JSON and plots).
fn finite_elo(t: &kvarn_eval::elo::Tally) -> f64 {
    let n = f64::from(t.games().max(1));
    kvarn_eval::elo::elo_of_score(t.score().clamp(0.5 / n, 1.0 - 0.5 / n))
}

/// A seed for the `n`-th use of kind `tag` in a run seeded with `seed` (splitmix64).
fn seed_for(seed: u64, tag: u64, n: u64) -> u64 {
    let mut z =
        seed ^ tag.wrapping_mul(0xa076_1d64_78bd_642f) ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Starts a run in `dir` (which must not hold one), writing the initial model.
///
/// # Errors
/// The folder holds a run already, or cannot be written.
pub fn start(config: &RunConfig, config_text: &str, dir: &Path) -> Result<(), RunError> {
    if dir.join("manifest.json").exists() {
        return Err(RunError::Config(format!(
            "{} already holds a run: resume it with --resume, or choose another folder",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| file_err(dir, e))?;
    let device = config
        .device
        .device()
        .map_err(|e| RunError::Config(e.to_string()))?;
    device.seed(config.seed);
    let network = Network::new(config.rules, config.network.clone(), &device)
        .map_err(|e| RunError::Config(e.to_string()))?;
    let provenance = Provenance {
        run: Some(dir.display().to_string()),
        generation: Some(0),
        steps: Some(0),
        note: Some("initial weights".into()),
    };
    let path = model_path(dir, 0);
    file::save(&network, &provenance, &path).map_err(|e| file_err(&path, e))?;
    let cfg_path = dir.join("config.toml");
    write_atomically(&cfg_path, config_text.as_bytes()).map_err(|e| file_err(&cfg_path, e))?;
    write_manifest(
        dir,
        &Manifest {
            format: "kvarn-run".into(),
            version: MANIFEST_VERSION,
            generations_done: 0,
            selfplay_model: 0,
            history: Vec::new(),
        },
    )
}

/// Sets the bar up for one stage of generation `g`.
fn stage(progress: Option<&ProgressBar>, g: u32, of: u32, what: &str, len: u64, done: u64) {
    if let Some(p) = progress {
        p.set_length(len);
        p.set_position(done);
        p.reset_eta();
        p.set_message(format!("generation {g}/{of}: {what}"));
    }
}

/// The solver benchmark set of the run: read from the run folder, or sampled from the
/// databases (solved first where the configuration asks) and written there. `None` when
/// the configuration names no databases.
fn solver_set(
    config: &RunConfig,
    dir: &Path,
    progress: Option<&ProgressBar>,
) -> Result<Option<Vec<BenchPosition>>, RunError> {
    let Some(db_dir) = &config.solver.db else {
        return Ok(None);
    };
    let set_path = dir.join(SOLVER_SET);
    if set_path.exists() {
        let (rules, set) =
            benchmark::read_set(&set_path).map_err(|e| RunError::Step(e.to_string()))?;
        if rules != config.rules {
            return Err(file_err(&set_path, format!("holds positions of {rules}")));
        }
        return Ok(Some(set));
    }
    let plan = plan_for(&config.rules, config.solver.max_men);
    let solver = if !config.solver.databases_present() && config.solver.build_if_missing {
        tracing::info!(folder = %db_dir.display(), steps = plan.len(), "solving the databases");
        if let Some(p) = progress {
            p.set_length(plan.len() as u64);
            p.set_position(0);
            p.set_message(format!(
                "solving {} into {}",
                config.rules,
                db_dir.display()
            ));
        }
        db::solve_into(db_dir, config.rules, &plan, |_, _, _, _| {
            if let Some(p) = progress {
                p.inc(1);
            }
        })
        .map_err(|e| RunError::Step(e.to_string()))?
    } else {
        db::load(db_dir, config.rules, &plan).map_err(|e| RunError::Step(e.to_string()))?
    };
    if solver.tables().is_empty() {
        return Err(RunError::Config(format!(
            "solver.db: {} holds no databases of {}",
            db_dir.display(),
            config.rules
        )));
    }
    let set = benchmark::sample(
        &solver,
        config.solver.positions,
        seed_for(config.seed, 9, 0),
    );
    benchmark::write_set(&set_path, &config.rules, &set)
        .map_err(|e| RunError::Step(e.to_string()))?;
    tracing::info!(positions = set.len(), file = %set_path.display(), "solver benchmark set sampled");
    Ok(Some(set))
}

/// Scores the network player on the benchmark set, both halves in parallel.
fn score_on_set(
    rules: &Rules,
    set: &[BenchPosition],
    player: &dyn AgentFactory,
    seed: u64,
) -> Result<SolverFigures, RunError> {
    let halves: Vec<&[BenchPosition]> = set.chunks(set.len().div_ceil(2).max(1)).collect();
    let scores: Vec<Result<_, EvalError>> = halves
        .par_iter()
        .enumerate()
        .map(|(i, part)| {
            let mut agent = player.build(*rules, seed ^ i as u64)?;
            benchmark::score(rules, part, agent.as_mut())
        })
        .collect();
    let mut all = benchmark::PhaseScore::default();
    for s in scores {
        let s = s.map_err(|e| RunError::Step(e.to_string()))?;
        if let Some(a) = s.get(&None) {
            all.add(a);
        }
    }
    Ok(SolverFigures {
        positions: all.positions,
        value_accuracy: all.value_accuracy(),
        value_keeping: all.preserving_rate(),
        blunders: all.blunder_rate(),
    })
}

/// Runs generations until the configuration's count is reached, resuming from what `dir`
/// holds; `on_generation` sees each finished generation and `progress`, when given,
/// shows the stage and its rate. With `max_steps`, it stops (after a checkpoint) once
/// training reaches that many optimiser steps in all, and a later call goes on from there.
///
/// # Errors
/// A file cannot be read or written, or a step fails.
pub fn run(
    config: &RunConfig,
    dir: &Path,
    max_steps: Option<u64>,
    progress: Option<&ProgressBar>,
    mut on_generation: impl FnMut(&GenerationRecord),
) -> Result<Manifest, RunError> {
    let mut manifest = read_manifest(dir)?;
    let device = config
        .device
        .device()
        .map_err(|e| RunError::Config(e.to_string()))?;
    let bench_set = solver_set(config, dir, progress)?;
    let mut metrics = Metrics::open(&dir.join("tb")).map_err(|e| file_err(&dir.join("tb"), e))?;
    let ckpt_path = dir.join("checkpoint.kvckpt");
    let (mut trainer, _) = if ckpt_path.exists() {
        checkpoint::load(&ckpt_path, config.train.clone(), &device)
            .map_err(|e| file_err(&ckpt_path, e))?
    } else {
        let path = model_path(dir, manifest.generations_done);
        let (network, header) = file::load(&path, &device).map_err(|e| file_err(&path, e))?;
        (
            Trainer::new(&network, config.train.clone()),
            header.provenance,
        )
    };
    let steps_per_gen = config.train.steps_per_generation;
    let of = config.run.generations;
    while manifest.generations_done < of {
        let g = manifest.generations_done + 1;
        let began = Instant::now();
        let champion = manifest.selfplay_model;
        let champion_path = model_path(dir, champion);
        let (previous, _) =
            file::load(&champion_path, &device).map_err(|e| file_err(&champion_path, e))?;
        // Self-play, skipping the games a killed run already wrote.
        let sdir = shard_dir(dir, g);
        let mut skip = std::collections::BTreeSet::new();
        for p in shards_in(&sdir)? {
            let (h, _) = read_shard(&p).map_err(|e| file_err(&p, e))?;
            skip.extend(h.game_list.iter().map(|x| x.index));
        }
        let engine = Inference::new(&previous, InferencePath::Fastest).single_threaded();
        let games = config.run.games_per_generation;
        stage(progress, g, of, "self-play games", games, skip.len() as u64);
        let job = SelfPlayJob {
            rules: config.rules,
            search: config.search.clone(),
            selfplay: config.selfplay.clone(),
            games,
            skip,
            seed: seed_for(config.seed, 1, u64::from(g)),
            out: Some(sdir.clone()),
            shard_prefix: "selfplay".into(),
            model: champion_path.display().to_string(),
        };
        let (sp, _) = kvarn_selfplay::run(&job, &engine, progress)
            .map_err(|e| RunError::Step(e.to_string()))?;
        // Training on the window of recent generations.
        let first = g
            .saturating_sub(config.train.window_generations.saturating_sub(1))
            .max(1);
        let mut shards = Vec::new();
        for h in first..=g {
            shards.extend(shards_in(&shard_dir(dir, h))?);
        }
        let window = ReplayWindow::load(config.rules, &shards, config.train.window_samples)
            .map_err(|e| RunError::Step(e.to_string()))?;
        let target = u64::from(g) * steps_per_gen;
        let first_step = target - steps_per_gen;
        stage(
            progress,
            g,
            of,
            "training steps",
            steps_per_gen,
            trainer.step.saturating_sub(first_step),
        );
        let (mut policy_sum, mut value_sum, mut n) = (0.0, 0.0, 0u64);
        let training = Instant::now();
        while trainer.step < target {
            let mut rng = Pcg64Mcg::seed_from_u64(seed_for(config.seed, 2, trainer.step));
            let batch = window.batch(
                &mut rng,
                config.train.batch_size,
                config.train.augment,
                config.train.search_value_share,
            );
            let l = trainer.train_step(&batch);
            policy_sum += f64::from(l.policy);
            value_sum += f64::from(l.value);
            n += 1;
            metrics.scalar("train/loss_policy", trainer.step, f64::from(l.policy));
            metrics.scalar("train/loss_value", trainer.step, f64::from(l.value));
            metrics.scalar("train/learning_rate", trainer.step, l.learning_rate);
            metrics.scalar(
                "train/policy_accuracy",
                trainer.step,
                f64::from(l.policy_accuracy),
            );
            metrics.scalar(
                "train/value_accuracy",
                trainer.step,
                f64::from(l.value_accuracy),
            );
            if let Some(p) = progress {
                p.inc(1);
            }
            let stop = max_steps.is_some_and(|m| trainer.step >= m);
            if trainer.step % config.run.checkpoint_every == 0 || trainer.step == target || stop {
                let provenance = Provenance {
                    run: Some(dir.display().to_string()),
                    generation: Some(g),
                    steps: Some(trainer.step),
                    note: None,
                };
                checkpoint::save(&trainer, &provenance, &ckpt_path)
                    .map_err(|e| file_err(&ckpt_path, e))?;
            }
            if stop {
                metrics.flush();
                return Ok(manifest);
            }
        }
        let train_seconds = training.elapsed().as_secs_f64();
        let current = trainer.network().for_inference();
        let path = model_path(dir, g);
        let provenance = Provenance {
            run: Some(dir.display().to_string()),
            generation: Some(g),
            steps: Some(trainer.step),
            note: None,
        };
        file::save(&current, &provenance, &path).map_err(|e| file_err(&path, e))?;
        // Evaluation.
        let eval_search = SearchConfig {
            simulations: config.run.eval_simulations,
            ..config.search.clone()
        };
        let player = |name: String, net: &Network| {
            SearchPlayer::new(
                name,
                eval_search.clone(),
                Inference::new(net, InferencePath::Fastest).single_threaded(),
            )
        };
        let me = player(format!("gen-{g}"), &current);
        let random: AgentSpec = "random".parse().expect("random agent");
        let mcfg = |games: usize, salt: u64, opening_plies: usize| MatchConfig {
            rules: config.rules,
            a: random.clone(),
            b: random.clone(),
            games,
            seed: seed_for(config.seed, 3 + salt, u64::from(g)),
            opening_plies,
        };
        let eval_games = config.run.games_vs_previous
            + config.run.games_vs_random
            + config.run.baseline_depths.len() * config.run.games_vs_baseline
            + if bench_set.is_some() {
                config.solver.games_vs_perfect
            } else {
                0
            };
        stage(progress, g, of, "evaluation games", eval_games as u64, 0);
        let tick = |_: &kvarn_eval::matches::GameRecord| {
            if let Some(p) = progress {
                p.inc(1);
            }
        };
        let play = |opponent: &dyn AgentFactory, games: usize, salt: u64, opening: usize| {
            run_match_with(&mcfg(games, salt, opening), &me, opponent, tick)
                .map_err(|e| RunError::Step(e.to_string()))
        };
        let vs_previous = if config.run.games_vs_previous > 0 {
            let prev = player(format!("gen-{champion}"), &previous);
            let r = play(&prev, config.run.games_vs_previous, 0, 2)?;
            Some((r.tally.score(), finite_elo(&r.tally)))
        } else {
            None
        };
        let vs_random = if config.run.games_vs_random > 0 {
            let r = play(&random, config.run.games_vs_random, 100, 0)?;
            Some((r.tally.score(), finite_elo(&r.tally)))
        } else {
            None
        };
        let mut vs_baseline = Vec::new();
        for (i, &d) in config.run.baseline_depths.iter().enumerate() {
            let spec: AgentSpec = format!("alphabeta:depth={d},threads=1")
                .parse()
                .map_err(|e: EvalError| RunError::Config(e.to_string()))?;
            let r = play(&spec, config.run.games_vs_baseline, 1 + i as u64, 2)?;
            vs_baseline.push((d, r.tally.score(), finite_elo(&r.tally)));
        }
        let (solver, vs_perfect) = match (&bench_set, &config.solver.db) {
            (Some(set), Some(db_dir)) => {
                let figures = score_on_set(&config.rules, set, &me, seed_for(config.seed, 10, 0))?;
                let perfect = if config.solver.games_vs_perfect > 0 {
                    let spec = AgentSpec::Perfect {
                        db: db_dir.clone(),
                        seed: None,
                    };
                    let r = play(&spec, config.solver.games_vs_perfect, 200, 0)?;
                    Some(r.tally)
                } else {
                    None
                };
                (Some(figures), perfect)
            }
            _ => (None, None),
        };
        let promoted = vs_previous.is_none_or(|(s, _)| s >= config.run.promotion_score);
        if let Some(p) = progress {
            p.set_message(format!("generation {g}/{of}: done"));
        }
        let record = GenerationRecord {
            generation: g,
            step: trainer.step,
            selfplay_model: champion,
            promoted,
            selfplay_positions_per_second: sp.positions_per_second(),
            train_steps_per_second: n as f64 / train_seconds.max(1e-9),
            window_samples: window.len(),
            loss: (policy_sum / n.max(1) as f64, value_sum / n.max(1) as f64),
            vs_previous,
            vs_random,
            vs_baseline,
            solver,
            vs_perfect,
            seconds: began.elapsed().as_secs_f64(),
        };
        log_generation(&mut metrics, &record);
        manifest.generations_done = g;
        if promoted {
            manifest.selfplay_model = g;
        }
        manifest.history.push(record.clone());
        write_manifest(dir, &manifest)?;
        report::write(dir, config, &manifest)?;
        on_generation(&record);
    }
    Ok(manifest)
}

/// A generation's figures as TensorBoard scalars, by generation.
fn log_generation(metrics: &mut Metrics, r: &GenerationRecord) {
    let g = u64::from(r.generation);
    metrics.scalar(
        "selfplay/positions_per_second",
        g,
        r.selfplay_positions_per_second,
    );
    metrics.scalar("train/steps_per_second", g, r.train_steps_per_second);
    metrics.scalar("train/window_samples", g, r.window_samples as f64);
    metrics.scalar("train/loss_policy_generation", g, r.loss.0);
    metrics.scalar("train/loss_value_generation", g, r.loss.1);
    metrics.scalar("eval/promoted", g, f64::from(u8::from(r.promoted)));
    if let Some((s, e)) = r.vs_previous {
        metrics.scalar("eval/score_vs_previous", g, s);
        metrics.scalar("eval/elo_vs_previous", g, e);
    }
    if let Some((s, e)) = r.vs_random {
        metrics.scalar("eval/score_vs_random", g, s);
        metrics.scalar("eval/elo_vs_random", g, e);
    }
    for (d, s, e) in &r.vs_baseline {
        metrics.scalar(&format!("eval/score_vs_alphabeta_depth{d}"), g, *s);
        metrics.scalar(&format!("eval/elo_vs_alphabeta_depth{d}"), g, *e);
    }
    if let Some(s) = &r.solver {
        if let Some(a) = s.value_accuracy {
            metrics.scalar("solver/value_accuracy", g, a);
        }
        metrics.scalar("solver/value_keeping_moves", g, s.value_keeping);
        metrics.scalar("solver/blunders", g, s.blunders);
    }
    if let Some(p) = &r.vs_perfect {
        metrics.scalar("solver/score_vs_perfect", g, p.score());
        metrics.scalar("solver/losses_vs_perfect", g, f64::from(p.losses));
    }
    metrics.flush();
}
