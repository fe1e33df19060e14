//! `kvarn model ...`: make and inspect model files.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use kvarn_model::{DeviceChoice, Network, Provenance, file};

use kvarn_train::RunConfig;

/// Model file commands.
#[derive(Subcommand, Debug)]
pub enum ModelCommand {
    /// A freshly initialised network from a configuration's rules and `[network]`.
    New(NewArgs),
    /// What a model file holds: rules, architecture, encoding, provenance, parameters.
    Info(InfoArgs),
}

/// Arguments of `kvarn model new`.
#[derive(Args, Debug)]
pub struct NewArgs {
    /// Run configuration (TOML).
    #[arg(long)]
    config: PathBuf,
    /// Where to write it (`.kvmodel`, or `.safetensors`).
    #[arg(long)]
    out: PathBuf,
    /// Seed of the initial weights (default: the configuration's seed).
    #[arg(long)]
    seed: Option<u64>,
}

/// Arguments of `kvarn model info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The model file.
    model: PathBuf,
}

/// Runs a model command.
pub fn run(cmd: &ModelCommand) -> anyhow::Result<()> {
    match cmd {
        ModelCommand::New(args) => {
            let config = RunConfig::load(&args.config)?;
            let device = DeviceChoice::Cpu.device()?;
            device.seed(args.seed.unwrap_or(config.seed));
            let network = Network::new(config.rules, config.network, &device)?;
            file::save(&network, &Provenance::default(), &args.out)
                .with_context(|| "writing the model")?;
            outln!(
                "{}: {} for {}, {} parameters",
                args.out.display(),
                network.config().describe(),
                network.rules(),
                network.parameter_count()
            );
            Ok(())
        }
        ModelCommand::Info(args) => {
            let (network, header) = file::load(&args.model, &DeviceChoice::Cpu.device()?)?;
            outln!("{}", serde_json::to_string_pretty(&header)?);
            outln!("parameters: {}", network.parameter_count());
            Ok(())
        }
    }
}
