//! Game records of matches on disk: JSON Lines with a header that names the format and
//! its version and a last line that holds a CRC-32 of everything before it. Written to a
//! temporary file, flushed to disk and renamed, so a file is either whole or absent; read
//! back only when the version and the checksum agree.

use std::path::Path;

use kvarn_game::Color;
use serde::{Deserialize, Serialize};

use crate::error::ArenaError;
use kvarn_game::Outcome;
use kvarn_storage::{read_jsonl, write_jsonl};

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
    /// The position the game started from, where not the start of the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// The opening decisions, played before the agents took over.
    pub opening: Vec<String>,
    /// Every decision of the game, the opening included, in notation.
    pub moves: Vec<String>,
    /// `white_wins`, `black_wins` or `draw`.
    pub result: String,
    /// `too_few_men`, `blocked`, `repetition`, `no_capture` or `move_cap`.
    pub reason: String,
}

impl GameRecord {
    /// The side that won, read from `result` (`None` for a draw).
    pub fn winner(&self) -> Option<Color> {
        match self.result.as_str() {
            "white_wins" => Some(Color::White),
            "black_wins" => Some(Color::Black),
            _ => None,
        }
    }

    /// Whether `agent` kept `value` in this game: won it from a won start, did not lose it
    /// from a drawn one (from a lost start anything is kept).
    pub fn kept(&self, agent: Color, value: Outcome) -> bool {
        match value {
            Outcome::Win => self.winner() == Some(agent),
            Outcome::Draw => self.winner() != Some(agent.opposite()),
            Outcome::Loss => true,
        }
    }
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

fn io_err(path: &Path, e: impl std::fmt::Display) -> ArenaError {
    ArenaError::Records {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

/// Writes `records` under `header` to `path` atomically.
///
/// # Errors
/// [`ArenaError::Records`] when the file cannot be written.
pub fn write_records(
    path: &Path,
    header: &Header,
    records: &[GameRecord],
) -> Result<(), ArenaError> {
    write_jsonl(path, header, records).map_err(|e| io_err(path, e))
}

/// Reads a records file, refusing one of another format or version, or a damaged one.
///
/// # Errors
/// [`ArenaError::Records`] saying what is wrong.
pub fn read_records(path: &Path) -> Result<(Header, Vec<GameRecord>), ArenaError> {
    let (header, records): (Header, Vec<GameRecord>) =
        read_jsonl(path).map_err(|e| io_err(path, e))?;
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
    Ok((header, records))
}
