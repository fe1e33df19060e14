//! The run folder: the one place that knows where a run keeps each of its files. The
//! loop, the report, the command line and the tests all ask it for paths.
//!
//! | path | content |
//! |---|---|
//! | `manifest.json` | the generations done and their figures (written atomically) |
//! | `config.toml` | the configuration the run started with |
//! | `models/gen-NNNN.kvmodel` | the model after generation N (0: the initial one) |
//! | `checkpoint.kvckpt` | network, optimiser state and step count |
//! | `shards/gen-NNNN/` | the self-play games of generation N |
//! | `solver-set.jsonl` | the run's solver benchmark set, sampled once |
//! | `tb/` | TensorBoard event files |
//! | `summary.md`, `summary.csv`, `strength.svg` | what people read and look at |
//! | `run.lock` | held by the process working on the run (with its id inside) |

use std::io;
use std::path::{Path, PathBuf};

use crate::error::RunError;

/// The run folder's lock file (see [`RunDir::lock`]).
const LOCK_FILE: &str = "run.lock";

/// A run's folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunDir {
    root: PathBuf,
}

impl RunDir {
    /// The run in folder `root` (which need not exist yet).
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }

    /// The folder itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The manifest: generations done and their figures.
    pub fn manifest(&self) -> PathBuf {
        self.root.join("manifest.json")
    }

    /// The configuration the run started with.
    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }

    /// The training checkpoint: network, optimiser state, step.
    pub fn checkpoint(&self) -> PathBuf {
        self.root.join("checkpoint.kvckpt")
    }

    /// The model after generation `g` (0: the initial weights).
    pub fn model(&self, g: u32) -> PathBuf {
        self.root.join("models").join(format!("gen-{g:04}.kvmodel"))
    }

    /// The folder of generation `g`'s self-play shards.
    pub fn shards(&self, g: u32) -> PathBuf {
        self.root.join("shards").join(format!("gen-{g:04}"))
    }

    /// Generation `g`'s shard of exact samples from the endgame databases
    /// (`selfplay.endgame.exact_samples`), among its self-play shards.
    pub fn exact_shard(&self, g: u32) -> PathBuf {
        self.shards(g)
            .join(format!("exact.{}", kvarn_selfplay::shard::SHARD_EXTENSION))
    }

    /// Generation `g`'s shard of exact samples from the bank of solved positions
    /// (`selfplay.exact_bank`), among its self-play shards.
    pub fn bank_shard(&self, g: u32) -> PathBuf {
        self.shards(g).join(format!(
            "exact-bank.{}",
            kvarn_selfplay::shard::SHARD_EXTENSION
        ))
    }

    /// Generation `g`'s shard files, sorted by name (none when the folder is missing).
    ///
    /// # Errors
    /// The folder exists but cannot be listed.
    pub fn shard_files(&self, g: u32) -> io::Result<Vec<PathBuf>> {
        let dir = self.shards(g);
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut out = Vec::new();
        for e in entries {
            let p = e?.path();
            if p.extension()
                .is_some_and(|x| x == kvarn_selfplay::shard::SHARD_EXTENSION)
            {
                out.push(p);
            }
        }
        out.sort();
        Ok(out)
    }

    /// The Ray driver and its task files, one per generation played on a cluster.
    pub fn cluster(&self) -> PathBuf {
        self.root.join("ray")
    }

    /// The run's solver benchmark set.
    pub fn solver_set(&self) -> PathBuf {
        self.root.join("solver-set.jsonl")
    }

    /// TensorBoard's log folder.
    pub fn tensorboard(&self) -> PathBuf {
        self.root.join("tb")
    }

    /// The Markdown summary.
    pub fn summary_markdown(&self) -> PathBuf {
        self.root.join("summary.md")
    }

    /// Every figure by generation, as CSV.
    pub fn summary_csv(&self) -> PathBuf {
        self.root.join("summary.csv")
    }

    /// The strength plot.
    pub fn strength_plot(&self) -> PathBuf {
        self.root.join("strength.svg")
    }

    /// Whether the folder holds a run (a manifest).
    pub fn holds_run(&self) -> bool {
        self.manifest().exists()
    }

    /// A temporary folder beside the run's, where a new run is made before it is renamed
    /// into place.
    pub fn staging(&self) -> RunDir {
        let name = self
            .root
            .file_name()
            .map_or("run".into(), |n| n.to_string_lossy().into_owned());
        let parent = self.root.parent().unwrap_or(Path::new(""));
        RunDir::new(parent.join(format!(".{name}.starting-{}", std::process::id())))
    }

    /// The lock file.
    pub fn lock_file(&self) -> PathBuf {
        self.root.join(LOCK_FILE)
    }

    /// Takes the run's exclusive lock, held until the returned value is dropped or the
    /// process ends, however it ends (the operating system releases it), so that two
    /// processes never work on one run.
    ///
    /// # Errors
    /// [`RunError::Locked`] naming the process that holds it, or an I/O failure.
    pub fn lock(&self) -> Result<RunLock, RunError> {
        match kvarn_storage::lock_folder(&self.root, LOCK_FILE) {
            Ok(lock) => Ok(RunLock { _lock: lock }),
            Err(kvarn_storage::LockError::Held { dir, holder }) => {
                Err(RunError::Locked { dir, holder })
            }
            Err(kvarn_storage::LockError::Io { path, source }) => Err(RunError::io(&path, source)),
        }
    }
}

/// The exclusive lock on a run folder; released when dropped.
#[derive(Debug)]
pub struct RunLock {
    _lock: kvarn_storage::FolderLock,
}
