//! Writing files that matter: whole or not at all, even when the process is killed, and
//! refused loudly when damaged.
//!
//! Two framings serve every Kvarn file: JSON Lines with a CRC-32 trailer (match records,
//! benchmark sets) and a binary container (models, self-play shards) laid out as
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic, naming the kind of file |
//! | 4 | format version (little-endian u32) |
//! | 4 | header length `h` (u32) |
//! | `h` | header, JSON |
//! | 8 | payload length `p` (u64) |
//! | `p` | payload |
//! | 4 | CRC-32 of everything before it |
//!
//! The magic and version are checked before the checksum, so that a file of another kind
//! or version is named as such rather than called damaged.
//!
//! Configuration files are such files too: [`SettingError`] is the one error for a setting
//! in them that cannot be used, named by its key.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

mod folder;
pub mod machine;
mod setting;

pub use folder::{FolderLock, LockError, OUTPUT_LOCK, claim_folder, lock_folder, make_folder};
pub use setting::{Bounds, SettingError, check_declared, number_text, resolve_ref};

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

/// Writes JSON Lines: `header` on the first line, one line per row, and a last line with
/// the CRC-32 of everything before it, atomically.
///
/// # Errors
/// Any serialisation or I/O failure.
pub fn write_jsonl<H: serde::Serialize, R: serde::Serialize>(
    path: &Path,
    header: &H,
    rows: &[R],
) -> io::Result<()> {
    let mut body = serde_json::to_string(header).map_err(io::Error::other)?;
    body.push('\n');
    for r in rows {
        body += &serde_json::to_string(r).map_err(io::Error::other)?;
        body.push('\n');
    }
    let crc = crc32fast::hash(body.as_bytes());
    body += &format!("{{\"crc32\":\"{crc:08x}\"}}\n");
    write_atomically(path, body.as_bytes())
}

/// Reads what [`write_jsonl`] wrote: the header and the rows, after checking the checksum.
///
/// # Errors
/// A message saying what is wrong: unreadable, cut short or damaged, a bad line.
pub fn read_jsonl<H: serde::de::DeserializeOwned, R: serde::de::DeserializeOwned>(
    path: &Path,
) -> Result<(H, Vec<R>), String> {
    let text = fs::read_to_string(path).map_err(|e| e.to_string())?;
    parse_jsonl(&text)
}

/// Parses the text of a file [`write_jsonl`] wrote (one read from disk, or one built into
/// the program), after checking the checksum.
///
/// # Errors
/// A message saying what is wrong: empty, cut short or damaged, a bad line.
pub fn parse_jsonl<H: serde::de::DeserializeOwned, R: serde::de::DeserializeOwned>(
    text: &str,
) -> Result<(H, Vec<R>), String> {
    #[derive(serde::Deserialize)]
    struct Trailer {
        crc32: String,
    }
    if text.is_empty() {
        return Err("the file is empty (0 bytes): it was cut short or never written".into());
    }
    let body_end = text
        .trim_end_matches('\n')
        .rfind('\n')
        .map(|i| i + 1)
        .ok_or("too short to hold a header and a checksum")?;
    let (body, last) = text.split_at(body_end);
    let trailer: Trailer = serde_json::from_str(last.trim())
        .map_err(|_| "the last line is not the checksum line: the file is cut short or damaged")?;
    let crc = format!("{:08x}", crc32fast::hash(body.as_bytes()));
    if crc != trailer.crc32 {
        return Err(format!(
            "checksum mismatch (file says {}, content gives {crc}): the file is damaged",
            trailer.crc32
        ));
    }
    let mut lines = body.lines();
    let header: H =
        serde_json::from_str(lines.next().unwrap_or("")).map_err(|e| format!("bad header: {e}"))?;
    let rows = lines
        .enumerate()
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| format!("line {}: {e}", i + 2)))
        .collect::<Result<Vec<R>, String>>()?;
    Ok((header, rows))
}

/// Why a container file was refused.
#[derive(Debug, thiserror::Error)]
pub enum ContainerError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying failure.
        source: io::Error,
    },
    /// The file is not of the expected kind.
    #[error("{path}: not a {kind} file (wrong magic bytes)")]
    WrongKind {
        /// The file.
        path: String,
        /// The kind expected.
        kind: String,
    },
    /// The file is of a format version this build cannot read.
    #[error("{path}: {kind} format version {found}, this build reads version {expected}")]
    Version {
        /// The file.
        path: String,
        /// The kind of file.
        kind: String,
        /// The version in the file.
        found: u32,
        /// The version this build reads.
        expected: u32,
    },
    /// The file is cut short or its checksum does not match.
    #[error("{path}: {reason}; the file is damaged")]
    Damaged {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The header is not what the reader expects.
    #[error("{path}: bad header: {reason}")]
    Header {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// Builds a container's bytes: magic, version, JSON header, payload and CRC-32.
///
/// # Errors
/// The header fails to serialise.
pub fn container_bytes<H: serde::Serialize>(
    magic: &[u8; 8],
    version: u32,
    header: &H,
    payload: &[u8],
) -> Result<Vec<u8>, serde_json::Error> {
    let header = serde_json::to_vec(header)?;
    let mut out = Vec::with_capacity(28 + header.len() + payload.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// Writes a container atomically (see [`write_atomically`]).
///
/// # Errors
/// The header fails to serialise or the file cannot be written.
pub fn write_container<H: serde::Serialize>(
    path: &Path,
    magic: &[u8; 8],
    version: u32,
    header: &H,
    payload: &[u8],
) -> Result<(), ContainerError> {
    let io_err = |source| ContainerError::Io {
        path: path.display().to_string(),
        source,
    };
    let bytes = container_bytes(magic, version, header, payload)
        .map_err(|e| io_err(io::Error::other(e)))?;
    write_atomically(path, &bytes).map_err(io_err)
}

/// Parses container bytes read from `path` (named in errors only): checks the magic,
/// the version and the checksum, then returns the header and the payload.
///
/// # Errors
/// A [`ContainerError`] naming the file and what is wrong with it.
pub fn parse_container<H: serde::de::DeserializeOwned>(
    path: &Path,
    bytes: &[u8],
    magic: &[u8; 8],
    kind: &str,
    version: u32,
) -> Result<(H, Vec<u8>), ContainerError> {
    split_container(path, bytes, magic, kind, version).map(|(h, p)| (h, p.to_vec()))
}

/// [`parse_container`] without copying the payload: the header and the payload as a
/// slice of `bytes`, for files large enough that a second copy matters (solver
/// databases run to gigabytes).
///
/// # Errors
/// A [`ContainerError`] naming the file and what is wrong with it.
pub fn split_container<'a, H: serde::de::DeserializeOwned>(
    path: &Path,
    bytes: &'a [u8],
    magic: &[u8; 8],
    kind: &str,
    version: u32,
) -> Result<(H, &'a [u8]), ContainerError> {
    let name = path.display().to_string();
    let damaged = |reason: &str| ContainerError::Damaged {
        path: name.clone(),
        reason: reason.to_string(),
    };
    // An empty file, or one that stops inside the magic bytes, is cut short rather than
    // of another kind.
    if bytes.len() < magic.len() && magic.starts_with(bytes) {
        return Err(damaged(&if bytes.is_empty() {
            "empty (0 bytes), cut short or never written".to_string()
        } else {
            format!("cut short after {} bytes", bytes.len())
        }));
    }
    if bytes.len() < 8 || &bytes[..8] != magic {
        return Err(ContainerError::WrongKind {
            path: name,
            kind: kind.to_string(),
        });
    }
    let u32_at = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    let found = u32_at(8).ok_or_else(|| damaged("cut short in the version"))?;
    if found != version {
        return Err(ContainerError::Version {
            path: name,
            kind: kind.to_string(),
            found,
            expected: version,
        });
    }
    if bytes.len() < 4 {
        return Err(damaged("cut short"));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    let stored = u32::from_le_bytes(crc.try_into().expect("4 bytes"));
    if crc32fast::hash(body) != stored {
        return Err(damaged("checksum mismatch"));
    }
    let header_len = u32_at(12).ok_or_else(|| damaged("cut short in the header"))? as usize;
    let header_end = 16usize
        .checked_add(header_len)
        .filter(|&e| e + 8 <= body.len())
        .ok_or_else(|| damaged("header length past the end"))?;
    let payload_len = u64::from_le_bytes(
        body[header_end..header_end + 8]
            .try_into()
            .expect("8 bytes"),
    );
    if payload_len != (body.len() - header_end - 8) as u64 {
        return Err(damaged("payload length does not match the file size"));
    }
    let header =
        serde_json::from_slice(&body[16..header_end]).map_err(|e| ContainerError::Header {
            path: name.clone(),
            reason: e.to_string(),
        })?;
    Ok((header, &body[header_end + 8..]))
}

/// Reads and checks a container file (see [`parse_container`]).
///
/// # Errors
/// A [`ContainerError`] naming the file and what is wrong with it.
pub fn read_container<H: serde::de::DeserializeOwned>(
    path: &Path,
    magic: &[u8; 8],
    kind: &str,
    version: u32,
) -> Result<(H, Vec<u8>), ContainerError> {
    let bytes = fs::read(path).map_err(|source| ContainerError::Io {
        path: path.display().to_string(),
        source,
    })?;
    parse_container(path, &bytes, magic, kind, version)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAGIC: &[u8; 8] = b"KVTEST\0\0";

    /// A killed run resumes from sums kept in a header; were a float to come back one
    /// unit in the last place off, the resumed run's figures would differ from an
    /// uninterrupted one's. (serde_json parses exactly only with `float_roundtrip`.)
    #[test]
    fn floats_in_a_header_come_back_bit_for_bit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let floats: Vec<f64> = (0..20_000)
            .map(|i| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let unit = (x >> 11) as f64 / (1u64 << 53) as f64;
                unit * f64::from(i % 97 + 1) * 10f64.powi(i % 9 - 4)
            })
            .collect();
        write_container(&path, MAGIC, 1, &floats, b"").unwrap();
        let (back, _): (Vec<f64>, Vec<u8>) = read_container(&path, MAGIC, "test", 1).unwrap();
        let differ = floats
            .iter()
            .zip(&back)
            .filter(|(a, b)| a.to_bits() != b.to_bits())
            .count();
        assert_eq!(differ, 0, "{differ} of {} floats changed", floats.len());
    }

    #[test]
    fn container_round_trips_and_refuses_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.bin");
        write_container(&path, MAGIC, 3, &vec![1, 2, 3], b"payload").unwrap();
        let (h, p): (Vec<u32>, Vec<u8>) = read_container(&path, MAGIC, "test", 3).unwrap();
        assert_eq!(h, vec![1, 2, 3]);
        assert_eq!(p, b"payload");
        let good = fs::read(&path).unwrap();
        let (h, p): (Vec<u32>, &[u8]) = split_container(&path, &good, MAGIC, "test", 3).unwrap();
        assert_eq!((h, p), (vec![1, 2, 3], &b"payload"[..]));

        for i in 16..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x40;
            let err = parse_container::<Vec<u32>>(&path, &bad, MAGIC, "test", 3).unwrap_err();
            assert!(
                matches!(err, ContainerError::Damaged { .. }),
                "byte {i}: {err}"
            );
        }
        for cut in [0, 5, 10, 20, good.len() - 1] {
            assert!(parse_container::<Vec<u32>>(&path, &good[..cut], MAGIC, "test", 3).is_err());
        }
        let err = parse_container::<Vec<u32>>(&path, &good, MAGIC, "test", 4).unwrap_err();
        assert!(err.to_string().contains("version 3"), "{err}");
        let err =
            parse_container::<Vec<u32>>(&path, &good, b"OTHER\0\0\0", "other", 3).unwrap_err();
        assert!(err.to_string().contains("not a other file"), "{err}");
    }

    #[test]
    fn empty_and_cut_files_are_called_so_not_of_another_kind() {
        let path = Path::new("x.bin");
        let err = parse_container::<Vec<u32>>(path, b"", MAGIC, "test", 3).unwrap_err();
        assert!(matches!(err, ContainerError::Damaged { .. }), "{err}");
        assert!(err.to_string().contains("empty"), "{err}");
        assert!(!err.to_string().contains("magic"), "{err}");
        let err = parse_container::<Vec<u32>>(path, b"KVT", MAGIC, "test", 3).unwrap_err();
        assert!(err.to_string().contains("cut short after 3 bytes"), "{err}");
        let err = parse_container::<Vec<u32>>(path, b"XY", MAGIC, "test", 3).unwrap_err();
        assert!(matches!(err, ContainerError::WrongKind { .. }), "{err}");

        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.jsonl");
        fs::write(&empty, "").unwrap();
        let err = read_jsonl::<u32, u32>(&empty).unwrap_err();
        assert!(err.contains("empty"), "{err}");
    }
}
