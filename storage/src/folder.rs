//! The folders a process writes (a run, a self-play output, databases): made with a plain
//! message where a file stands in the way, and locked while written. The lock is a file
//! inside the folder, locked by the operating system, which releases it however the
//! process ends; the file names the holding process, so that a refusal can say who holds it.

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

/// The lock file of a folder a command writes its output into (`selfplay`, `solve`,
/// `bench-set`, `export`, `ladder`).
pub const OUTPUT_LOCK: &str = ".kvarn-output.lock";

/// Makes the output folder `dir` where missing and locks it for this process, so that a
/// second command writing into it is refused rather than mixing its files with these.
///
/// # Errors
/// A file stands where the folder should be, the folder cannot be made, or another
/// process holds it ([`LockError::Held`], naming the holder).
pub fn claim_folder(dir: &Path) -> Result<FolderLock, LockError> {
    make_folder(dir).map_err(|source| LockError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    lock_folder(dir, OUTPUT_LOCK)
}

/// Makes the folder `dir` and its parents where missing, or says plainly that a file
/// stands where the folder should be (the operating system says only "File exists").
///
/// # Errors
/// The path or one of its parents is a file, or the folder cannot be made.
pub fn make_folder(dir: &Path) -> Result<(), std::io::Error> {
    let mut ancestor = Some(dir);
    while let Some(p) = ancestor {
        if p.exists() && !p.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!(
                    "{} is a file where a folder is expected{}",
                    p.display(),
                    if p == dir {
                        ""
                    } else {
                        " (a parent of the folder asked for)"
                    }
                ),
            ));
        }
        ancestor = p.parent();
    }
    std::fs::create_dir_all(dir)
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

    #[test]
    fn a_file_where_a_folder_is_expected_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("shards");
        std::fs::write(&file, b"x").unwrap();
        let e = make_folder(&file).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("shards is a file where a folder is expected"),
            "{e}"
        );
        let e = make_folder(&file.join("inner")).unwrap_err();
        assert!(
            e.to_string().contains("(a parent of the folder asked for)"),
            "{e}"
        );
        make_folder(&dir.path().join("a/b")).unwrap();
    }
}
