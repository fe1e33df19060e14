//! An exclusive lock on a folder that a process writes (a run, a self-play output, a solve):
//! a lock file inside it, locked by the operating system, which releases it however the
//! process ends. The file names the holding process, so that a refusal can say who holds it.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Why a folder could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock.
    #[error("{} is in use by another kvarn ({holder}); wait for it to end, or stop it", dir.display())]
    Held {
        /// The folder.
        dir: PathBuf,
        /// What the lock file says of its holder.
        holder: String,
    },
    /// The lock file could not be made or locked.
    #[error("{}: {source}", path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
}

/// The exclusive lock on a folder; released when dropped.
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
}

/// Takes the exclusive lock of folder `dir` (which must exist) through its lock file
/// `name`, or says which process holds it.
///
/// # Errors
/// [`LockError::Held`] naming the holder, or an I/O failure.
pub fn lock_folder(dir: &Path, name: &str) -> Result<FolderLock, LockError> {
    let path = dir.join(name);
    let io = |source| LockError::Io {
        path: path.clone(),
        source,
    };
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            return Err(LockError::Held {
                dir: dir.to_path_buf(),
                holder: holder.trim().to_string(),
            });
        }
        Err(TryLockError::Error(e)) => return Err(io(e)),
    }
    file.set_len(0).map_err(io)?;
    file.rewind().map_err(io)?;
    writeln!(file, "process {}", std::process::id()).map_err(io)?;
    Ok(FolderLock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_folder_is_refused_with_its_holder_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock_folder(dir.path(), "out.lock").unwrap();
        let e = lock_folder(dir.path(), "out.lock").unwrap_err();
        assert!(
            e.to_string().contains(&format!(
                "in use by another kvarn (process {})",
                std::process::id()
            )),
            "{e}"
        );
        drop(first);
        lock_folder(dir.path(), "out.lock").unwrap();
    }
}
