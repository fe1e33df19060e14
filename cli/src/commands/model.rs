//! `kvarn model ...`: make and inspect model files.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use kvarn_model::{DeviceChoice, Network, Provenance, file};
use kvarn_selfplay::PlayerSettings;

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
    /// The same model with more units in each layer (an MLP), its outputs unchanged: a
    /// larger network that goes on training from a trained one (`kvarn train --init`).
    Widen(WidenArgs),
    /// Records in a model file the search player its figures were measured with: the
    /// player `net:model=FILE` and `kvarn engine --model FILE` start from.
    Player(PlayerArgs),
}

/// Arguments of `kvarn model player`.
#[derive(Args, Debug)]
pub struct PlayerArgs {
    /// The model file, rewritten in place unless `--out` says otherwise.
    model: PathBuf,
    /// The player settings that differ from their defaults, e.g.
    /// `symmetries=16,move_choice=lcb` (`kvarn config` lists them); empty for the defaults.
    /// Leave the limits (`simulations`, `movetime`) to the users of the model.
    #[arg(long, allow_hyphen_values = true)]
    set: String,
    /// Where to write the model (default: in place).
    #[arg(long)]
    out: Option<PathBuf>,
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

/// Arguments of `kvarn model widen`.
#[derive(Args, Debug)]
pub struct WidenArgs {
    /// The model to widen.
    model: PathBuf,
    /// Units in each layer of the widened model (above the model's).
    #[arg(long)]
    hidden: usize,
    /// Where to write it (`.kvmodel`, or `.safetensors`).
    #[arg(long)]
    out: PathBuf,
    /// Seed of the new units' incoming weights.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs a model command.
pub fn run(cmd: &ModelCommand) -> anyhow::Result<()> {
    match cmd {
        ModelCommand::New(args) => {
            let config = RunConfig::load(&args.config)?;
            let device = DeviceChoice::Cpu.device()?;
            let network = Network::new(
                config.rules,
                config.network,
                args.seed.unwrap_or(config.seed),
                &device,
            )?;
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
        ModelCommand::Widen(args) => widen(args),
        ModelCommand::Player(args) => record_player(args),
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

/// `kvarn model widen`: the widened model, with the original's provenance and a note
/// saying what it was widened from.
fn widen(args: &WidenArgs) -> anyhow::Result<()> {
    let device = DeviceChoice::Cpu.device()?;
    let (network, header) = file::load(&args.model, &device)
        .with_context(|| format!("loading {}", args.model.display()))?;
    let wide = kvarn_model::widen::widen(&network, args.hidden, args.seed, &device)?;
    let provenance = Provenance {
        note: Some(format!(
            "{} widened from {} ({})",
            wide.config().describe(),
            args.model.display(),
            network.config().describe()
        )),
        ..header.provenance
    };
    file::save(&wide, &provenance, &args.out).with_context(|| "writing the widened model")?;
    outln!(
        "{}: {} for {}, {} parameters (from {})",
        args.out.display(),
        wide.config().describe(),
        wide.rules(),
        wide.parameter_count(),
        network.parameter_count()
    );
    Ok(())
}

/// `kvarn model player`: the same model with the measured player recorded (as the settings
/// that differ from the defaults, in the order of their declaration).
fn record_player(args: &PlayerArgs) -> anyhow::Result<()> {
    let device = DeviceChoice::Cpu.device()?;
    let (network, header) = file::load(&args.model, &device)
        .with_context(|| format!("loading {}", args.model.display()))?;
    let mut player = PlayerSettings::default();
    player.apply(&args.set).context("--set")?;
    player.validate_for(network.rules()).context("--set")?;
    anyhow::ensure!(
        player.simulations.is_none() && player.movetime.is_none(),
        "--set: leave simulations and movetime out: the limits are given where the model plays"
    );
    let spec = player.spec();
    let provenance = Provenance {
        player: Some(spec.clone()),
        ..header.provenance
    };
    let out = args.out.as_ref().unwrap_or(&args.model);
    file::save(&network, &provenance, out).with_context(|| format!("writing {}", out.display()))?;
    let shown = if spec.is_empty() {
        "the defaults"
    } else {
        &spec
    };
    outln!("{}: measured player {shown}", out.display());
    Ok(())
}
