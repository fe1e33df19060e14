//! `kvarn bench infer`: network inference on the CPU by batch size.

use clap::Args;

use super::budget::duration;
use crate::rules_args::RulesArgs;

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
    /// Arithmetic of the products: auto, f32, bf16 or int8 (the last two on CPUs with
    /// AMX tiles).
    #[arg(long, default_value = "auto")]
    precision: String,
}

/// Runs `kvarn bench infer`.
pub fn run(args: &InferArgs) -> anyhow::Result<()> {
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
    let precision = kvarn_model::Precision::parse_request(&args.precision)?;
    let engine = kvarn_model::Inference::new(&network, path, precision)?;
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
