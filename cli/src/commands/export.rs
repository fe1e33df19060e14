//! `kvarn export`: a model for front ends that do not run burn.

use std::path::PathBuf;

use clap::Args;
use kvarn_model::export::{Format, export};
use kvarn_model::{DeviceChoice, file};

/// Arguments of `kvarn export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The model file (`.kvmodel` or `.safetensors`).
    #[arg(long)]
    model: PathBuf,
    /// `onnx` (opset 17, `features` -> `policy_logits`, `wdl`) or `safetensors` (PyTorch
    /// names and layouts).
    #[arg(long)]
    format: Format,
    /// Folder to write the model and its card (`model-card.json`) into.
    #[arg(long)]
    out: PathBuf,
}

/// Exports the model.
pub fn run(args: &ExportArgs) -> anyhow::Result<()> {
    let (network, header) = file::load(&args.model, &DeviceChoice::Cpu.device()?)?;
    let mut provenance = header.provenance;
    if provenance.run.is_none() {
        provenance.run = Some(args.model.display().to_string());
    }
    for path in export(&network, &provenance, args.format, &args.out)? {
        outln!("{}", path.display());
    }
    Ok(())
}
