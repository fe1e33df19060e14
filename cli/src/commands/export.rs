//! `kvarn export`: a model for front ends that do not run burn, or a static web site that
//! plays it in the browser.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use kvarn_model::export::{Format, export};
use kvarn_model::{DeviceChoice, file};

/// Arguments of `kvarn export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The model file (`.kvmodel` or `.safetensors`).
    #[arg(long)]
    model: PathBuf,
    /// `onnx` (opset 17, `features` -> `policy_logits`, `wdl`), `safetensors` (PyTorch
    /// names and layouts), or `web`: the ONNX export with a page that plays it in the
    /// browser (any static server can host the folder).
    #[arg(long)]
    format: String,
    /// Folder to write the model and its card (`model-card.json`) into.
    #[arg(long)]
    out: PathBuf,
    /// With `--format web`: the `dist` folder of the npm package onnxruntime-web, whose
    /// runtime files the site carries (`npm ci --prefix web` puts it in the default).
    #[arg(long, default_value = "web/node_modules/onnxruntime-web/dist")]
    ort_dist: PathBuf,
}

/// The page's own files, built into the binary: (path in the site, contents).
const SITE: [(&str, &str); 5] = [
    ("index.html", include_str!("../../../web/index.html")),
    ("src/app.js", include_str!("../../../web/src/app.js")),
    ("src/model.js", include_str!("../../../web/src/model.js")),
    ("src/rules.js", include_str!("../../../web/src/rules.js")),
    ("src/search.js", include_str!("../../../web/src/search.js")),
];

/// The files of onnxruntime-web the page loads: its ES module and WebAssembly runtime.
const ORT_FILES: [&str; 3] = [
    "ort.wasm.min.mjs",
    "ort-wasm-simd-threaded.mjs",
    "ort-wasm-simd-threaded.wasm",
];

/// Exports the model.
pub fn run(args: &ExportArgs) -> anyhow::Result<()> {
    let (format, web) = match args.format.as_str() {
        "web" => (Format::Onnx, true),
        other => (
            other
                .parse::<Format>()
                .map_err(|e| anyhow::anyhow!("{e}; or web (a page that plays the model)"))?,
            false,
        ),
    };
    if web {
        // Checked first, so that nothing is written when the runtime is missing.
        for f in ORT_FILES {
            let path = args.ort_dist.join(f);
            anyhow::ensure!(
                path.is_file(),
                "{} is missing: the web site needs onnxruntime-web's files; run `npm ci --prefix web` \
                 in the repository, or give --ort-dist the package's dist folder",
                path.display()
            );
        }
    }
    let (network, header) = file::load(&args.model, &DeviceChoice::Cpu.device()?)?;
    let _lock = kvarn_storage::claim_folder(&args.out)?;
    let mut provenance = header.provenance;
    if provenance.run.is_none() {
        provenance.run = Some(args.model.display().to_string());
    }
    for path in export(&network, &provenance, format, &args.out)? {
        outln!("{}", path.display());
    }
    if web {
        write_site(&args.out, &args.ort_dist)?;
        outln!(
            "the site is in {}: serve it, e.g. python3 -m http.server --directory {} 8000, and open http://localhost:8000",
            args.out.display(),
            args.out.display()
        );
    }
    Ok(())
}

/// Writes the page and the runtime beside the exported model.
fn write_site(out: &Path, ort_dist: &Path) -> anyhow::Result<()> {
    for (name, text) in SITE {
        let path = out.join(name);
        write(&path, text.as_bytes())?;
    }
    for f in ORT_FILES {
        let from = ort_dist.join(f);
        let bytes = std::fs::read(&from).with_context(|| format!("reading {}", from.display()))?;
        write(&out.join("ort").join(f), &bytes)?;
    }
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        kvarn_storage::make_folder(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    kvarn_storage::write_atomically(path, bytes)
        .with_context(|| format!("writing {}", path.display()))?;
    outln!("{}", path.display());
    Ok(())
}
