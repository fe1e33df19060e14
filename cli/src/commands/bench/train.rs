//! `kvarn bench train`: training steps per second of a network.

use clap::Args;

use super::budget::duration;
use crate::rules_args::RulesArgs;

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
    /// Legal actions per row (default: every action, as the reference PyTorch script's
    /// batch). A game's positions have about 5 to 30, and the policy head then works on
    /// those alone; GFLOP/s still counts the whole head.
    #[arg(long)]
    legal: Option<usize>,
}

/// Runs `kvarn bench train`.
pub fn run(args: &TrainArgs) -> anyhow::Result<()> {
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
    anyhow::ensure!(
        args.legal != Some(0),
        "--legal: at least 1 legal action a row"
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
        let t = kvarn_train::bench::training(
            &network,
            batch,
            args.legal,
            duration(args.seconds)?,
            engine,
        );
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
