//! `kvarn bench replay`: a run's training stage taken apart.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use super::budget::duration;

/// Arguments of `kvarn bench replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The run's folder.
    run_dir: PathBuf,
    /// The generation whose window and model are measured (default: the last one done).
    #[arg(long)]
    generation: Option<u32>,
    /// Seconds of each measurement.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
}

/// `kvarn bench replay`: what a training step of the run costs, in its parts, so that the
/// batch drawing's share shows (it grows with the window; the trainer's does not).
pub fn run(args: &ReplayArgs) -> anyhow::Result<()> {
    let dir = kvarn_train::RunDir::new(&args.run_dir);
    let manifest = kvarn_train::Manifest::read(&dir)?;
    let done = manifest.generations_done();
    let g = args.generation.unwrap_or(done);
    anyhow::ensure!(
        (1..=done).contains(&g),
        "--generation {g}: the run has done 1 to {done}"
    );
    let config = kvarn_train::resume::config_at(&dir, &manifest, g)?;
    let time = duration(args.seconds)?;
    let began = Instant::now();
    let window = kvarn_train::stages::training::window(&config, &dir, g)?;
    let load = began.elapsed().as_secs_f64();
    let t = &config.train;
    outln!(
        "bench replay, {}: the window of generation {g} ({} generations at most): {} samples, loaded in {load:.2} s",
        dir.root().display(),
        t.window_generations,
        window.len(),
    );
    let batches = kvarn_train::bench::replay_batches(&window, t, time);
    outln!("batches of {}: {batches:8.1}/s", t.batch_size);
    let device = kvarn_model::DeviceChoice::Cpu.device()?;
    let model = dir.model(g);
    let (network, _) = kvarn_model::file::load(&model, &device)
        .with_context(|| format!("loading {}", model.display()))?;
    let mut trainer = kvarn_train::Trainer::new(&network, t.clone());
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let batch = window.batch(&mut rng, t.batch_size, t.augment, t.search_value_share);
    let steps = kvarn_train::bench::steps_on(&mut trainer, &batch, time).per_second;
    outln!(
        "optimiser steps on one batch: {steps:8.1}/s ({}); with their batches drawn: {:8.1}/s",
        trainer.engine_name(),
        1.0 / (1.0 / steps + 1.0 / batches),
    );
    outln!(
        "a generation's {} steps: {:.2} s drawing batches, {:.2} s stepping, {load:.2} s loading the window",
        t.steps_per_generation,
        t.steps_per_generation as f64 / batches,
        t.steps_per_generation as f64 / steps,
    );
    Ok(())
}
