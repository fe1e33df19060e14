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
    /// One model whose parameters are the mean of several models' of one architecture
    /// (a run's last generations, say: stochastic weight averaging).
    Average(AverageArgs),
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

/// Arguments of `kvarn model average`.
#[derive(Args, Debug)]
pub struct AverageArgs {
    /// The models, each counted once.
    #[arg(required = true, num_args = 1..)]
    models: Vec<PathBuf>,
    /// Where to write the mean (`.kvmodel`, or `.safetensors`).
    #[arg(long)]
    out: PathBuf,
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
        ModelCommand::Average(args) => average(args),
        ModelCommand::Info(args) => {
            let (network, header) = file::load(&args.model, &DeviceChoice::Cpu.device()?)?;
            outln!("{}", serde_json::to_string_pretty(&header)?);
            outln!("parameters: {}", network.parameter_count());
            Ok(())
        }
    }
}

/// `kvarn model average`: the mean model, its provenance the last model's run, generation
/// and steps, with the models averaged named in its note.
fn average(args: &AverageArgs) -> anyhow::Result<()> {
    let device = DeviceChoice::Cpu.device()?;
    let mut loaded = Vec::with_capacity(args.models.len());
    for path in &args.models {
        let model =
            file::load(path, &device).with_context(|| format!("loading {}", path.display()))?;
        loaded.push(model);
    }
    let names: Vec<String> = args
        .models
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let last = &loaded[loaded.len() - 1].1.provenance;
    let provenance = Provenance {
        note: Some(format!(
            "the mean of the parameters of {} models: {}",
            names.len(),
            names.join(", ")
        )),
        ..last.clone()
    };
    let networks: Vec<&Network> = loaded.iter().map(|(n, _)| n).collect();
    let mean = kvarn_model::average::average(&networks, &provenance, &device)?;
    file::save(&mean, &provenance, &args.out).with_context(|| "writing the averaged model")?;
    outln!(
        "{}: the mean of {} models, {} for {}",
        args.out.display(),
        names.len(),
        mean.config().describe(),
        mean.rules()
    );
    Ok(())
}
