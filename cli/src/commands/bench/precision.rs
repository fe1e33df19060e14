//! `kvarn bench precision`: how far a model's outputs move in each reduced precision, on
//! positions from every stage of seeded random games, against its 32-bit outputs.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use kvarn_game::{ActionSpace, Game, encoding};
use kvarn_model::{DeviceChoice, Inference, InferencePath, Outputs, Precision, file};

/// Arguments of `kvarn bench precision`.
#[derive(Args, Debug)]
pub struct PrecisionArgs {
    /// The model.
    #[arg(long)]
    model: PathBuf,
    /// Positions compared.
    #[arg(long, default_value_t = 10_000)]
    positions: usize,
    /// Positions evaluated together.
    #[arg(long, default_value_t = 64)]
    batch: usize,
    /// Seed of the random games the positions come from.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The differences of one precision's outputs from 32-bit ones.
#[derive(Debug, Default)]
struct Differences {
    /// Largest and summed absolute difference of a legal move's probability.
    policy_max: f32,
    policy_sum: f64,
    policy_count: u64,
    /// Largest and summed absolute difference of a win, draw or loss probability.
    wdl_max: f32,
    wdl_sum: f64,
    /// Positions whose most probable move is the same.
    same_best: u64,
    positions: u64,
}

/// Runs `kvarn bench precision`.
pub fn run(args: &PrecisionArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.positions > 0, "--positions must be at least 1");
    anyhow::ensure!(args.batch > 0, "--batch must be at least 1");
    let device = DeviceChoice::Cpu.device()?;
    let (network, _) = file::load(&args.model, &device)
        .with_context(|| format!("loading {}", args.model.display()))?;
    let rules = *network.rules();
    let games = super::positions::varied_positions(rules, args.positions, args.seed, 120);
    let (features, masks) = encode(&games);
    let reference = evaluate(&network, Precision::F32, &features, args.batch, games.len())?;
    outln!(
        "bench precision, {}: {} positions of random games (0 to 119 plies), batches of {}; \
         32-bit: {:.0} evals/s",
        args.model.display(),
        games.len(),
        args.batch,
        reference.1
    );
    outln!("precision  evals/s  ratio  policy max  policy mean  wdl max  wdl mean  same best move");
    for precision in [Precision::Bf16, Precision::Int8] {
        if !precision.is_available() {
            outln!("{precision:9}  not on this machine (needs the AMX tiles)");
            continue;
        }
        let (outputs, rate) = evaluate(&network, precision, &features, args.batch, games.len())?;
        let d = compare(
            &reference.0,
            &outputs,
            &masks,
            ActionSpace::new(&rules).len(),
        );
        outln!(
            "{precision:9}  {rate:7.0}  {:5.2}  {:10.4}  {:11.5}  {:7.4}  {:8.5}  {:.2}%",
            rate / reference.1,
            d.policy_max,
            d.policy_sum / d.policy_count.max(1) as f64,
            d.wdl_max,
            d.wdl_sum / (3 * d.positions).max(1) as f64,
            100.0 * d.same_best as f64 / d.positions.max(1) as f64
        );
    }
    Ok(())
}

/// The positions' features and legal-move masks, row after row.
fn encode(games: &[Game]) -> (Vec<f32>, Vec<bool>) {
    let Some(first) = games.first() else {
        return (Vec::new(), Vec::new());
    };
    let rules = *first.rules();
    let space = ActionSpace::new(&rules);
    let input = encoding::input_len(&rules);
    let mut features = vec![0.0; games.len() * input];
    let mut masks = vec![false; games.len() * space.len()];
    for (i, game) in games.iter().enumerate() {
        let row = &mut features[i * input..(i + 1) * input];
        encoding::encode_position(&rules, game.position(), game.occurrences(), row);
        let mask = &mut masks[i * space.len()..(i + 1) * space.len()];
        space.legal_mask(&rules, game.position(), mask);
    }
    (features, masks)
}

/// Every position's outputs in `precision`, batch by batch on this thread, and the
/// evaluations per second.
fn evaluate(
    network: &kvarn_model::Network,
    precision: Precision,
    features: &[f32],
    batch: usize,
    positions: usize,
) -> anyhow::Result<(Outputs, f64)> {
    let engine =
        Inference::new(network, InferencePath::Fastest, Some(precision))?.single_threaded();
    let input = features.len() / positions.max(1);
    let mut all = Outputs {
        batch: 0,
        policy_logits: Vec::new(),
        wdl: Vec::new(),
    };
    let started = Instant::now();
    for rows in features.chunks(batch * input) {
        let n = rows.len() / input;
        let out = engine.evaluate(rows, n);
        all.batch += n;
        all.policy_logits.extend(out.policy_logits);
        all.wdl.extend(out.wdl);
    }
    Ok((
        all,
        positions as f64 / started.elapsed().as_secs_f64().max(1e-9),
    ))
}

/// The differences of `got` from `want` over the legal moves of each position.
fn compare(want: &Outputs, got: &Outputs, masks: &[bool], actions: usize) -> Differences {
    let mut d = Differences::default();
    let rows = want
        .policy_logits
        .chunks(actions)
        .zip(got.policy_logits.chunks(actions))
        .zip(masks.chunks(actions));
    for ((a, b), mask) in rows {
        let (pa, pb) = (probabilities(a, mask), probabilities(b, mask));
        for (x, y) in pa.iter().zip(&pb) {
            d.policy_max = d.policy_max.max((x - y).abs());
            d.policy_sum += f64::from((x - y).abs());
        }
        d.policy_count += pa.len() as u64;
        d.same_best += u64::from(best(&pa) == best(&pb));
        d.positions += 1;
    }
    for (x, y) in want.wdl.iter().zip(&got.wdl) {
        d.wdl_max = d.wdl_max.max((x - y).abs());
        d.wdl_sum += f64::from((x - y).abs());
    }
    d
}

/// The legal moves' probabilities, in the order of the action space.
fn probabilities(logits: &[f32], mask: &[bool]) -> Vec<f32> {
    let legal: Vec<f32> = logits
        .iter()
        .zip(mask)
        .filter(|(_, m)| **m)
        .map(|(l, _)| *l)
        .collect();
    let mut out = vec![0.0; legal.len()];
    kvarn_model::masked_softmax(&legal, &mut out);
    out
}

fn best(p: &[f32]) -> usize {
    p.iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map_or(0, |(i, _)| i)
}
