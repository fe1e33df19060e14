//! `kvarn bench ...`: speed measurements that print figures.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, Subcommand};
use kvarn_engine::search::{Engine, EngineOptions, Limits};
use kvarn_game::{BatchSim, Game, MoveList, Rules, Status, perft};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::rules_args::RulesArgs;

/// The benchmarks.
#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Random playouts and perft on one core: plies/s and nodes/s.
    Movegen(MovegenArgs),
    /// The batched simulator on one core: random steps, and encoding of features and masks.
    Batch(BatchArgs),
    /// The alpha-beta baseline on middle-game positions: time per move and nodes/s by depth.
    Search(SearchArgs),
    /// Network inference on the CPU: evaluations per second by batch size.
    Infer(InferArgs),
    /// Training steps per second of a network (default: the reference MLP on Nine).
    Train(TrainArgs),
    /// A run's training stage taken apart: loading its replay window, drawing batches
    /// from it and the optimiser steps on them.
    Replay(ReplayArgs),
    /// Self-play of a run configuration without writing shards: positions/s, network
    /// calls, mean batch, and the network's share of thread time.
    Selfplay(super::selfplay::PlayArgs),
    /// An agent limited by time per move on positions from seeded random games (placing
    /// and moving): how far past its budget each move runs.
    Movetime(MovetimeArgs),
}

/// Arguments of `kvarn bench movetime`.
#[derive(Args, Debug)]
pub struct MovetimeArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// The agent, without its time limit: `net:model=FILE`, `alphabeta`, ...
    #[arg(long)]
    agent: String,
    /// Milliseconds per move, added to the agent as `movetime=MS`.
    #[arg(long, default_value_t = 50)]
    movetime: u64,
    /// Positions (moves) to time.
    #[arg(long, default_value_t = 1000)]
    positions: usize,
    /// Seed of the positions and the agent.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Arguments of `kvarn bench train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// MLP width (the reference network: 3 layers of 256 for --hidden 256 --blocks 2).
    #[arg(long, default_value_t = 256)]
    hidden: usize,
    /// MLP residual layers after the stem.
    #[arg(long, default_value_t = 2)]
    blocks: usize,
    /// Batch sizes.
    #[arg(long, value_delimiter = ',', default_value = "256")]
    batches: Vec<usize>,
    /// Seconds per batch size.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Device: cpu, or a GPU backend built in by feature (wgpu, cuda).
    #[arg(long, default_value = "cpu")]
    device: kvarn_model::DeviceChoice,
    /// Train through burn's autodiff even where the fast CPU MLP path applies.
    #[arg(long)]
    burn: bool,
    /// Give the network the training-only ownership head (`network.ownership_head`).
    #[arg(long)]
    ownership_head: bool,
}

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

/// Arguments of `kvarn bench infer`.
#[derive(Args, Debug)]
pub struct InferArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Architecture: `mlp` (the reference network: 3 layers of 256 for --hidden 256
    /// --blocks 2) or `graph`.
    #[arg(long, default_value = "mlp")]
    net: String,
    /// MLP width, or graph channels.
    #[arg(long, default_value_t = 256)]
    hidden: usize,
    /// MLP residual layers after the stem, or graph layers.
    #[arg(long, default_value_t = 2)]
    blocks: usize,
    /// Batch sizes.
    #[arg(long, value_delimiter = ',', default_value = "1,16,64,256,1024")]
    batches: Vec<usize>,
    /// Seconds per batch size.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Device: cpu, or a GPU backend built in by feature (wgpu, cuda).
    #[arg(long, default_value = "cpu")]
    device: kvarn_model::DeviceChoice,
    /// Evaluate through burn even where the CPU MLP path applies.
    #[arg(long)]
    burn: bool,
}

/// Arguments of `kvarn bench search`.
#[derive(Args, Debug)]
pub struct SearchArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Depths to search, e.g. 2,4,6,8.
    #[arg(long, value_delimiter = ',', default_value = "2,4,6,8")]
    depths: Vec<u32>,
    /// Number of middle-game positions (from seeded random games, after placing).
    #[arg(long, default_value_t = 20)]
    positions: usize,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Seed of the positions and the engine.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Arguments of `kvarn bench batch`.
#[derive(Args, Debug)]
pub struct BatchArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Games in the batch.
    #[arg(long, default_value_t = 256)]
    games: usize,
    /// Seconds of stepping, then as many of encoding.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Seed of the random actions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Arguments of `kvarn bench movegen`.
#[derive(Args, Debug)]
pub struct MovegenArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Seconds of random playouts.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Perft depth from the start position (0 skips perft).
    #[arg(long, default_value_t = 5)]
    perft_depth: u32,
    /// Seed of the random playouts.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs a benchmark.
pub fn run(cmd: &BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::Movegen(args) => movegen(args),
        BenchCommand::Batch(args) => batch(args),
        BenchCommand::Search(args) => search(args),
        BenchCommand::Infer(args) => infer(args),
        BenchCommand::Train(args) => train(args),
        BenchCommand::Replay(args) => replay(args),
        BenchCommand::Selfplay(args) => super::selfplay::bench_selfplay(args),
        BenchCommand::Movetime(args) => movetime(args),
    }
}

/// Positions from seeded random games at every stage: each game is cut after a random
/// number of plies, and kept while it is still going.
fn varied_positions(rules: Rules, n: usize, seed: u64) -> Vec<Game> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut game = Game::new(rules);
        let plies = rng.random_range(0..60);
        while game.ply() < plies && !game.status().is_over() {
            let moves = game.legal_moves();
            game.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        if !game.status().is_over() {
            out.push(game);
        }
    }
    out
}

fn movetime(args: &MovetimeArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    anyhow::ensure!(args.positions > 0, "--positions must be at least 1");
    anyhow::ensure!(args.movetime > 0, "--movetime must be at least 1 ms");
    let joiner = if args.agent.contains(':') { ',' } else { ':' };
    let spec = format!("{}{joiner}movetime={}", args.agent, args.movetime);
    let factory = crate::agents::factory(&spec, &rules)?;
    let mut agent = factory.build(rules, args.seed)?;
    outln!(
        "bench movetime, {rules}, {spec}, {} positions (placing and moving)",
        args.positions
    );
    let budget = Duration::from_millis(args.movetime);
    let mut over: Vec<f64> = Vec::with_capacity(args.positions);
    for game in varied_positions(rules, args.positions, args.seed) {
        let t = Instant::now();
        agent.choose(&game)?;
        over.push((t.elapsed().as_secs_f64() - budget.as_secs_f64()) * 1e3);
    }
    over.sort_by(f64::total_cmp);
    let at = |q: f64| over[((over.len() - 1) as f64 * q).round() as usize];
    let late = over.iter().filter(|&&x| x > 20.0).count();
    outln!(
        "time past the budget (ms): median {:.2}, 99% {:.2}, 99.9% {:.2}, most {:.2}",
        at(0.5),
        at(0.99),
        at(0.999),
        over[over.len() - 1]
    );
    outln!(
        "moves more than 20 ms late: {late} of {} ({:.2}%)",
        over.len(),
        100.0 * late as f64 / over.len() as f64
    );
    Ok(())
}

fn movegen(args: &MovegenArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    outln!("bench movegen, {rules}, one thread");
    let budget = duration(args.seconds)? / 2;
    for mode in [Mode::List, Mode::Direct] {
        let r = playouts(rules, args.seed, budget, mode);
        outln!(
            "random playouts ({}): {} games, {} plies in {:.2} s: {:.2} M plies/s, {:.0} games/s, {:.1} plies/game; white {} / draw {} / black {}",
            mode.describe(),
            r.games,
            r.plies,
            r.secs,
            r.plies as f64 / r.secs / 1e6,
            r.games as f64 / r.secs,
            r.plies as f64 / r.games.max(1) as f64,
            r.results[0],
            r.results[1],
            r.results[2]
        );
    }
    if args.perft_depth > 0 {
        let mut game = Game::new(rules);
        let t = Instant::now();
        let nodes = perft(&mut game, args.perft_depth);
        let secs = t.elapsed().as_secs_f64();
        outln!(
            "perft {}: {nodes} nodes in {secs:.3} s: {:.2} M nodes/s",
            args.perft_depth,
            nodes as f64 / secs / 1e6
        );
    }
    Ok(())
}

/// How a playout chooses its random move.
#[derive(Clone, Copy)]
enum Mode {
    /// Build the list of legal moves, pick one: what any engine does.
    List,
    /// Count the legal moves, pick an index, find that move alone.
    Direct,
}

impl Mode {
    fn describe(self) -> &'static str {
        match self {
            Mode::List => "legal-move list + play",
            Mode::Direct => "count + nth move + play",
        }
    }
}

struct PlayoutFigures {
    games: u64,
    plies: u64,
    secs: f64,
    /// White wins, draws, Black wins.
    results: [u64; 3],
}

/// Plays random games under the full rules (repetition and no-capture included) for
/// `budget`, on this thread.
fn playouts(rules: Rules, seed: u64, budget: Duration, mode: Mode) -> PlayoutFigures {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut game = Game::new(rules);
    let mut moves = MoveList::new();
    let mut f = PlayoutFigures {
        games: 0,
        plies: 0,
        secs: 0.0,
        results: [0; 3],
    };
    let t = Instant::now();
    while t.elapsed() < budget {
        // Check the clock every 64 games, not every ply.
        for _ in 0..64 {
            game.restart();
            while !game.status().is_over() {
                let mv = match mode {
                    Mode::List => {
                        game.legal_moves_into(&mut moves);
                        moves[rng.random_range(0..moves.len())]
                    }
                    Mode::Direct => {
                        let p = game.position();
                        let n = p.legal_move_count(&rules);
                        p.nth_legal_move(&rules, rng.random_range(0..n))
                            .expect("an index below the count names a move")
                    }
                };
                game.play_unchecked(mv);
                f.plies += 1;
            }
            f.games += 1;
            let i = match game.status() {
                Status::Win { winner, .. } => 2 * winner.index(),
                _ => 1,
            };
            f.results[i] += 1;
        }
    }
    f.secs = t.elapsed().as_secs_f64();
    f
}

fn batch(args: &BatchArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.games > 0, "--games must be at least 1");
    let rules = args.rules.rules()?;
    outln!("bench batch, {rules}, {} games, one thread", args.games);
    let mut sim = BatchSim::new(rules, args.games);
    let mut rng = Pcg64Mcg::seed_from_u64(args.seed);
    let space = *sim.action_space();
    let mut actions = vec![0usize; args.games];
    let budget = duration(args.seconds)?;
    let (mut steps, mut finished) = (0u64, 0u64);
    let t = Instant::now();
    while t.elapsed() < budget {
        for (a, pos) in actions.iter_mut().zip(sim.positions()) {
            let n = pos.legal_move_count(&rules);
            let mv = pos
                .nth_legal_move(&rules, rng.random_range(0..n))
                .expect("an index below the count names a move");
            *a = space.index(mv);
        }
        finished += sim.step(&actions)?.len() as u64;
        steps += 1;
    }
    let secs = t.elapsed().as_secs_f64();
    let plies = steps * args.games as u64;
    outln!(
        "step (random legal actions, checked): {:.2} M plies/s, {finished} games finished",
        plies as f64 / secs / 1e6
    );
    let (mut features, mut mask) = sim.encoded();
    let mut encodes = 0u64;
    let t = Instant::now();
    while t.elapsed() < budget {
        sim.encode(features.view_mut(), mask.view_mut())?;
        encodes += 1;
    }
    let secs = t.elapsed().as_secs_f64();
    outln!(
        "encode features [{}x{}] and masks [{}x{}]: {:.2} M positions/s",
        features.nrows(),
        features.ncols(),
        mask.nrows(),
        mask.ncols(),
        (encodes * args.games as u64) as f64 / secs / 1e6
    );
    Ok(())
}

/// A time budget from `--seconds`, refusing what is not a duration.
fn duration(seconds: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(seconds).map_err(|_| {
        anyhow::anyhow!("--seconds {seconds} is not a duration (a number from 0 up, finite)")
    })
}

/// Middle-game positions: random games played a few turns past the placing phase,
/// keeping those still going with no removal pending.
fn middle_games(rules: Rules, n: usize, seed: u64) -> Vec<Game> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut game = Game::new(rules);
        let mut after_placing = 4 + rng.random_range(0..10);
        while after_placing > 0 && !game.status().is_over() {
            let moves = game.legal_moves();
            game.play_unchecked(moves[rng.random_range(0..moves.len())]);
            let p = game.position();
            if p.in_hand(kvarn_game::Color::White) + p.in_hand(kvarn_game::Color::Black) == 0 {
                after_placing -= 1;
            }
        }
        if !game.status().is_over() && !game.position().pending_removal() {
            out.push(game);
        }
    }
    out
}

fn search(args: &SearchArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    anyhow::ensure!(args.positions > 0, "--positions must be at least 1");
    outln!(
        "bench search, {rules}, {} middle-game positions, {} thread(s)",
        args.positions,
        args.threads
    );
    let games = middle_games(rules, args.positions, args.seed);
    for &depth in &args.depths {
        anyhow::ensure!(
            (1..=64).contains(&depth),
            "depth {depth} is not between 1 and 64"
        );
        let (mut nodes, mut time, mut longest) = (0u64, Duration::ZERO, Duration::ZERO);
        for game in &games {
            let mut engine = Engine::new(
                rules,
                EngineOptions {
                    threads: args.threads,
                    seed: Some(args.seed),
                    ..EngineOptions::default()
                },
            );
            let t = Instant::now();
            let limits = Limits {
                depth: Some(depth),
                ..Limits::default()
            };
            if let Some(info) = engine.search(game, limits, None, |_| {}) {
                nodes += info.nodes;
            }
            let spent = t.elapsed();
            time += spent;
            longest = longest.max(spent);
        }
        outln!(
            "depth {depth:>2}: {:>9.2} ms per move (longest {:>8.2} ms), {:>10} nodes per move, {:>6.2} M nodes/s",
            time.as_secs_f64() * 1e3 / games.len() as f64,
            longest.as_secs_f64() * 1e3,
            nodes / games.len() as u64,
            nodes as f64 / time.as_secs_f64().max(1e-9) / 1e6
        );
    }
    Ok(())
}

fn infer(args: &InferArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let config = match args.net.as_str() {
        "mlp" => kvarn_model::NetConfig::Mlp {
            hidden: args.hidden,
            blocks: args.blocks,
            ownership_head: false,
        },
        "graph" => kvarn_model::NetConfig::Graph {
            channels: args.hidden,
            layers: args.blocks,
            value_hidden: args.hidden,
        },
        other => anyhow::bail!("--net {other}: expected mlp or graph"),
    };
    let device = args.device.device()?;
    let network = kvarn_model::Network::new(rules, config.clone(), 0, &device)?;
    let dims = network.dims();
    let path = if args.burn {
        kvarn_model::InferencePath::Burn
    } else {
        kvarn_model::InferencePath::Fastest
    };
    let engine = kvarn_model::Inference::new(&network, path);
    let threads = std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "all cores".into());
    outln!(
        "bench infer, {rules}, {} ({} -> {} policy + 3 value, {} parameters), device {}, path {}, threads {threads}, kernels {}",
        config.describe(),
        dims.input,
        dims.actions,
        network.parameter_count(),
        args.device,
        engine.path_name(),
        kvarn_model::cpu::KernelPath::detected(),
    );
    let flops = network.forward_flops();
    for t in kvarn_model::bench::inference(&engine, &args.batches, duration(args.seconds)?) {
        outln!(
            "batch {:5}: {:10.0} evals/s  {:9.1} us/call  {:6.1} GFLOP/s  ({} calls)",
            t.batch,
            t.evals_per_second,
            t.call.as_secs_f64() * 1e6,
            t.evals_per_second * flops / 1e9,
            t.calls
        );
    }
    Ok(())
}

fn train(args: &TrainArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let config = kvarn_model::NetConfig::Mlp {
        hidden: args.hidden,
        blocks: args.blocks,
        ownership_head: args.ownership_head,
    };
    config.validate()?;
    anyhow::ensure!(
        args.batches.iter().all(|&b| (1..=1 << 16).contains(&b)),
        "--batches: each size must be 1..=65536"
    );
    let device = args.device.device()?;
    let network = kvarn_model::Network::new(rules, config.clone(), 0, &device)?;
    let dims = network.dims();
    let threads = std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "all cores".into());
    outln!(
        "bench train, {rules}, {} ({} -> {} policy + 3 value, {} parameters), AdamW, device {}, threads {threads}, kernels {}",
        config.describe(),
        dims.input,
        dims.actions,
        network.parameter_count(),
        args.device,
        kvarn_model::cpu::KernelPath::detected(),
    );
    let engine = if args.burn {
        kvarn_train::TrainEngine::Burn
    } else {
        kvarn_train::TrainEngine::Auto
    };
    // A step is a forward and a backward pass: about three forward passes of arithmetic.
    let flops_per_sample = 3.0 * network.forward_flops();
    for &batch in &args.batches {
        let t = kvarn_train::bench::training(&network, batch, duration(args.seconds)?, engine);
        outln!(
            "batch {:5}: {:8.1} steps/s  {:9.0} samples/s  {:6.1} GFLOP/s  ({} steps, final loss {:.3}, {})",
            t.batch,
            t.steps_per_second,
            t.samples_per_second,
            t.samples_per_second * flops_per_sample / 1e9,
            t.steps,
            t.final_loss,
            t.engine
        );
    }
    Ok(())
}

/// `kvarn bench replay`: what a training step of the run costs, in its parts, so that the
/// batch drawing's share shows (it grows with the window; the trainer's does not).
fn replay(args: &ReplayArgs) -> anyhow::Result<()> {
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
