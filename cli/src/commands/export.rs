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
    /// The model file (`.kvmodel` or `.safetensors`). With `--format web` it may be given
    /// more than once (`--model nine.kvmodel --model six.kvmodel`): one site then holds
    /// every model, each in a folder named after its file, and the page offers a choice.
    #[arg(long, required = true, num_args = 1..)]
    model: Vec<PathBuf>,
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
const SITE: [(&str, &str); 6] = [
    ("index.html", include_str!("../../../web/index.html")),
    ("src/app.js", include_str!("../../../web/src/app.js")),
    ("src/model.js", include_str!("../../../web/src/model.js")),
    ("src/rules.js", include_str!("../../../web/src/rules.js")),
    ("src/search.js", include_str!("../../../web/src/search.js")),
    ("src/worker.js", include_str!("../../../web/src/worker.js")),
];

/// The site's list of models, which the page reads to offer a choice.
const MANIFEST: &str = "models.json";

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
    if !web {
        anyhow::ensure!(
            args.model.len() == 1,
            "--format {} writes one model; only --format web takes several --model",
            args.format
        );
    }
    let names = folder_names(&args.model)?;
    let _lock = kvarn_storage::claim_folder(&args.out)?;
    let mut manifest = Vec::new();
    let device = DeviceChoice::Cpu.device()?;
    // One model sits beside the page; several each get a folder of their own.
    let single = args.model.len() == 1;
    for (path, name) in args.model.iter().zip(&names) {
        let (dir, folder) = if single {
            (args.out.clone(), ".")
        } else {
            (args.out.join(name), name.as_str())
        };
        let (network, header) =
            file::load(path, &device).with_context(|| format!("reading {}", path.display()))?;
        let mut provenance = header.provenance;
        if provenance.run.is_none() {
            provenance.run = Some(path.display().to_string());
        }
        for written in export(&network, &provenance, format, &dir)? {
            outln!("{}", written.display());
        }
        manifest.push(serde_json::json!({
            "name": name,
            "dir": folder,
            "label": format!("{} ({name})", header.rules.variant()),
            "variant": header.rules.variant().key(),
        }));
    }
    if web {
        write_site(&args.out, &args.ort_dist)?;
        let text = serde_json::to_string_pretty(&serde_json::json!({ "models": manifest }))?;
        write(&args.out.join(MANIFEST), text.as_bytes())?;
        outln!(
            "the site is in {}: serve it, e.g. python3 -m http.server --directory {} 8000, and open http://localhost:8000",
            args.out.display(),
            args.out.display()
        );
    }
    Ok(())
}

/// The site's name of each model: its file's stem, which names its folder and the
/// `game=` of a shared link; two models of one stem are refused rather than renamed. A
/// single model has no folder of its own, so any file name does (`model` where its stem
/// is not a plain name).
fn folder_names(models: &[PathBuf]) -> anyhow::Result<Vec<String>> {
    let plain = |s: &&str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    };
    if let [only] = models {
        let stem = only.file_stem().and_then(|s| s.to_str()).filter(plain);
        return Ok(vec![stem.unwrap_or("model").to_string()]);
    }
    let mut names: Vec<String> = Vec::new();
    for path in models {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .filter(plain)
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "{}: the site names a model after its file, which needs letters, digits, '-', '_' or '.'",
                    path.display()
                )
            })?;
        anyhow::ensure!(
            !names.iter().any(|n| n == name),
            "two models are named {name}: the site names each model after its file, so give them files of different names",
        );
        anyhow::ensure!(
            !["src", "ort"].contains(&name),
            "{}: a model named {name} would share the page's folder {name}/; rename the file",
            path.display()
        );
        names.push(name.to_string());
    }
    Ok(names)
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
