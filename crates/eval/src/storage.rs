//! Writing files that matter: whole or not at all, even when the process is killed.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` through a temporary file in the same folder: write, fsync,
/// rename, then fsync the folder. A reader sees the old file or the new one, never a part.
///
/// # Errors
/// Any I/O failure; `path` is then untouched and the temporary file removed.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?
        .to_string_lossy();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        // The rename itself is durable once the folder is synced; some file systems
        // refuse to sync a folder, which loses nothing written so far.
        File::open(dir).and_then(|d| d.sync_all()).or(Ok(()))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}
