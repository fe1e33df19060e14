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

use kvarn_eval::agent::AgentSpec;
use kvarn_eval::matches::{MatchConfig, run_match_with};
use kvarn_game::Rules;
use kvarn_model::burn::tensor::Device;
use kvarn_model::{Inference, InferencePath, NetConfig, Network, Provenance, file};
use kvarn_selfplay::{SearchConfig, SearchPlayer, SelfPlayConfig, SelfPlayJob, read_shard};
use kvarn_storage::write_atomically;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use crate::checkpoint;
use crate::config::TrainConfig;
use crate::metrics::Metrics;
use crate::replay::ReplayWindow;
use crate::trainer::Trainer;

/// How the loop runs and evaluates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LoopConfig {
    /// Generations to run.
    pub generations: u32,
    /// Self-play games per generation.
    pub games_per_generation: u64,
    /// Optimiser steps between checkpoints.
    pub checkpoint_every: u64,
    /// Games against the previous generation's model.
    pub games_vs_previous: usize,
    /// Depths of the alpha-beta baseline to play each generation.
    pub baseline_depths: Vec<u32>,
    /// Games against each baseline depth.
    pub games_vs_baseline: usize,
    /// Simulations per move of the network player in evaluation games.
    pub eval_simulations: u32,
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig {
            generations: 10,
            games_per_generation: 128,
            checkpoint_every: 50,
            games_vs_previous: 20,
            baseline_depths: vec![2],
            games_vs_baseline: 20,
            eval_simulations: 64,
        }
    }
}

/// A whole run configuration file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Seed of everything random in the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// The rules.
    pub rules: Rules,
    /// The network's architecture.
    #[serde(default)]
    pub network: NetConfig,
    /// Tree search.
    #[serde(default)]
    pub search: SearchConfig,
    /// Self-play.
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
    /// Training.
    #[serde(default)]
    pub train: TrainConfig,
    /// The generation loop and its evaluation.
    #[serde(default, rename = "loop")]
    pub run: LoopConfig,
}

fn default_seed() -> u64 {
    1
}

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

/// One generation's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerationRecord {
    /// The generation (1-based).
    pub generation: u32,
    /// Optimiser steps at its end.
    pub step: u64,
    /// Self-play positions per second.
    pub selfplay_positions_per_second: f64,
    /// Samples in the replay window.
    pub window_samples: usize,
    /// Mean losses over its steps: policy, value.
    pub loss: (f64, f64),
    /// Score against the previous model (0..1) and its Elo difference.
    pub vs_previous: Option<(f64, f64)>,
    /// Per baseline depth: score and Elo difference.
    pub vs_baseline: Vec<(u32, f64, f64)>,
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
    /// Their figures.
    pub history: Vec<GenerationRecord>,
}

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
    serde_json::from_str(&text).map_err(|e| file_err(&path, e))
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
    let device = Device::flex();
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
            version: 1,
            generations_done: 0,
            history: Vec::new(),
        },
    )
}

/// Runs generations until the configuration's count is reached, resuming from what `dir`
/// holds; `on_generation` sees each finished generation. With `max_steps`, it stops (after
/// a checkpoint) once training reaches that many optimiser steps in all, and a later call
/// goes on from there.
///
/// # Errors
/// A file cannot be read or written, or a step fails.
pub fn run(
    config: &RunConfig,
    dir: &Path,
    max_steps: Option<u64>,
    mut on_generation: impl FnMut(&GenerationRecord),
) -> Result<Manifest, RunError> {
    let mut manifest = read_manifest(dir)?;
    let device = Device::flex();
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
    while manifest.generations_done < config.run.generations {
        let g = manifest.generations_done + 1;
        let began = Instant::now();
        let prev_path = model_path(dir, g - 1);
        let (previous, _) = file::load(&prev_path, &device).map_err(|e| file_err(&prev_path, e))?;
        // Self-play, skipping the games a killed run already wrote.
        let sdir = shard_dir(dir, g);
        let mut skip = std::collections::BTreeSet::new();
        for p in shards_in(&sdir)? {
            let (h, _) = read_shard(&p).map_err(|e| file_err(&p, e))?;
            skip.extend(h.game_list.iter().map(|x| x.index));
        }
        let engine = Inference::new(&previous, InferencePath::Fastest).single_threaded();
        let job = SelfPlayJob {
            rules: config.rules,
            search: config.search.clone(),
            selfplay: config.selfplay.clone(),
            games: config.run.games_per_generation,
            skip,
            seed: seed_for(config.seed, 1, u64::from(g)),
            out: Some(sdir.clone()),
            shard_prefix: "selfplay".into(),
            model: prev_path.display().to_string(),
        };
        let (sp, _) =
            kvarn_selfplay::run(&job, &engine, None).map_err(|e| RunError::Step(e.to_string()))?;
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
        let (mut policy_sum, mut value_sum, mut n) = (0.0, 0.0, 0u64);
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
            let stop = max_steps.is_some_and(|m| trainer.step >= m);
            if trainer.step % config.run.checkpoint_every.max(1) == 0
                || trainer.step == target
                || stop
            {
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
        let mcfg = |games: usize, salt: u64| MatchConfig {
            rules: config.rules,
            a: random.clone(),
            b: random.clone(),
            games,
            seed: seed_for(config.seed, 3 + salt, u64::from(g)),
            opening_plies: 2,
        };
        let vs_previous = if config.run.games_vs_previous > 0 {
            let prev = player(format!("gen-{}", g - 1), &previous);
            let r = run_match_with(&mcfg(config.run.games_vs_previous, 0), &me, &prev, |_| {})
                .map_err(|e| RunError::Step(e.to_string()))?;
            Some((r.tally.score(), finite_elo(&r.tally)))
        } else {
            None
        };
        let mut vs_baseline = Vec::new();
        for (i, &d) in config.run.baseline_depths.iter().enumerate() {
            let spec: AgentSpec = format!("alphabeta:depth={d},threads=1")
                .parse()
                .map_err(|e: kvarn_eval::EvalError| RunError::Config(e.to_string()))?;
            let r = run_match_with(
                &mcfg(config.run.games_vs_baseline, 1 + i as u64),
                &me,
                &spec,
                |_| {},
            )
            .map_err(|e| RunError::Step(e.to_string()))?;
            vs_baseline.push((d, r.tally.score(), finite_elo(&r.tally)));
        }
        let record = GenerationRecord {
            generation: g,
            step: trainer.step,
            selfplay_positions_per_second: sp.positions_per_second(),
            window_samples: window.len(),
            loss: (policy_sum / n.max(1) as f64, value_sum / n.max(1) as f64),
            vs_previous,
            vs_baseline: vs_baseline.clone(),
            seconds: began.elapsed().as_secs_f64(),
        };
        let gs = u64::from(g);
        metrics.scalar(
            "selfplay/positions_per_second",
            gs,
            record.selfplay_positions_per_second,
        );
        metrics.scalar("train/loss_policy_generation", gs, record.loss.0);
        metrics.scalar("train/loss_value_generation", gs, record.loss.1);
        if let Some((s, e)) = vs_previous {
            metrics.scalar("eval/score_vs_previous", gs, s);
            metrics.scalar("eval/elo_vs_previous", gs, e);
        }
        for (d, s, e) in &vs_baseline {
            metrics.scalar(&format!("eval/score_vs_alphabeta_depth{d}"), gs, *s);
            metrics.scalar(&format!("eval/elo_vs_alphabeta_depth{d}"), gs, *e);
        }
        metrics.flush();
        manifest.generations_done = g;
        manifest.history.push(record.clone());
        write_manifest(dir, &manifest)?;
        on_generation(&record);
    }
    Ok(manifest)
}
