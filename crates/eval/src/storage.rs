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
    #[derive(serde::Deserialize)]
    struct Trailer {
        crc32: String,
    }
    let text = fs::read_to_string(path).map_err(|e| e.to_string())?;
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
