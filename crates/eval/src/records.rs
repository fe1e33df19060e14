//! Game records of matches on disk: JSON Lines with a header that names the format and
//! its version and a last line that holds a CRC-32 of everything before it. Written to a
//! temporary file, flushed to disk and renamed, so a file is either whole or absent; read
//! back only when the version and the checksum agree.

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::EvalError;
use crate::storage::write_atomically;

/// The format name in the header.
pub const FORMAT: &str = "kvarn-match-records";
/// The format version written, and the only one read.
pub const VERSION: u32 = 1;

/// One game of a match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Index of the game in the match.
    pub game: usize,
    /// The agent that played White.
    pub white: String,
    /// The agent that played Black.
    pub black: String,
    /// The opening decisions, played before the agents took over.
    pub opening: Vec<String>,
    /// Every decision of the game, the opening included, in notation.
    pub moves: Vec<String>,
    /// `white_wins`, `black_wins` or `draw`.
    pub result: String,
    /// `too_few_men`, `blocked`, `repetition`, `no_capture` or `move_cap`.
    pub reason: String,
}

/// The first line of a records file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`] when written.
    pub version: u32,
    /// The rules, as the `kvarn-game` crate serialises them.
    pub rules: kvarn_game::Rules,
    /// Free-form description (the agents, the seed).
    pub description: String,
}

#[derive(Serialize, Deserialize)]
struct Trailer {
    crc32: String,
}

fn io_err(path: &Path, e: impl std::fmt::Display) -> EvalError {
    EvalError::Records {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

/// Writes `records` under `header` to `path` atomically.
///
/// # Errors
/// [`EvalError::Records`] when the file cannot be written.
pub fn write_records(
    path: &Path,
    header: &Header,
    records: &[GameRecord],
) -> Result<(), EvalError> {
    let mut body = String::new();
    body += &serde_json::to_string(header).map_err(|e| io_err(path, e))?;
    body.push('\n');
    for r in records {
        body += &serde_json::to_string(r).map_err(|e| io_err(path, e))?;
        body.push('\n');
    }
    let crc = crc32fast::hash(body.as_bytes());
    body += &serde_json::to_string(&Trailer {
        crc32: format!("{crc:08x}"),
    })
    .map_err(|e| io_err(path, e))?;
    body.push('\n');
    write_atomically(path, body.as_bytes()).map_err(|e| io_err(path, e))
}

/// Reads a records file, refusing one of another format or version, or a damaged one.
///
/// # Errors
/// [`EvalError::Records`] saying what is wrong.
pub fn read_records(path: &Path) -> Result<(Header, Vec<GameRecord>), EvalError> {
    let text = fs::read_to_string(path).map_err(|e| io_err(path, e))?;
    let body_end = text
        .trim_end_matches('\n')
        .rfind('\n')
        .map(|i| i + 1)
        .ok_or_else(|| io_err(path, "too short to be a records file"))?;
    let (body, last) = text.split_at(body_end);
    let trailer: Trailer = serde_json::from_str(last.trim()).map_err(|_| {
        io_err(
            path,
            "the last line is not the checksum line: the file is cut short or damaged",
        )
    })?;
    let crc = format!("{:08x}", crc32fast::hash(body.as_bytes()));
    if crc != trailer.crc32 {
        return Err(io_err(
            path,
            format!(
                "checksum mismatch (file says {}, content gives {crc}): the file is damaged",
                trailer.crc32
            ),
        ));
    }
    let mut lines = body.lines();
    let header: Header = serde_json::from_str(lines.next().unwrap_or(""))
        .map_err(|e| io_err(path, format!("bad header: {e}")))?;
    if header.format != FORMAT {
        return Err(io_err(
            path,
            format!("format `{}` is not {FORMAT}", header.format),
        ));
    }
    if header.version != VERSION {
        return Err(io_err(
            path,
            format!(
                "version {} cannot be read by this Kvarn (it reads version {VERSION})",
                header.version
            ),
        ));
    }
    let records = lines
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| io_err(path, format!("line {}: {e}", i + 2)))
        })
        .collect::<Result<Vec<GameRecord>, EvalError>>()?;
    Ok((header, records))
}
