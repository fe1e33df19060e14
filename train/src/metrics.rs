//! What people look at: scalars written as TensorBoard event files (through
//! `tensorboard-rs`), one series per tag, by step.

use std::io;
use std::path::{Path, PathBuf};

use tensorboard_rs::summary_writer::SummaryWriter;

/// A TensorBoard log folder being written.
pub struct Metrics {
    dir: PathBuf,
    writer: SummaryWriter,
}

impl Metrics {
    /// Starts a new event file in `dir` (created if missing). A resumed run opens a new
    /// file beside the old ones; TensorBoard reads them as one run.
    ///
    /// # Errors
    /// The folder cannot be created or written.
    pub fn open(dir: &Path) -> io::Result<Metrics> {
        std::fs::create_dir_all(dir)?;
        // tensorboard-rs panics when it cannot create its file: find out first.
        let probe = dir.join(".kvarn-write-probe");
        std::fs::write(&probe, b"")?;
        std::fs::remove_file(&probe)?;
        Ok(Metrics {
            dir: dir.to_path_buf(),
            writer: SummaryWriter::new(dir),
        })
    }

    /// The log folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Records `value` of series `tag` at `step`.
    pub fn scalar(&mut self, tag: &str, step: u64, value: f64) {
        self.writer.add_scalar(tag, value as f32, step as usize);
    }

    /// Pushes what was recorded to the file.
    pub fn flush(&mut self) {
        self.writer.flush();
    }
}

impl Drop for Metrics {
    fn drop(&mut self) {
        self.writer.flush();
    }
}
