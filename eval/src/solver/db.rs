//! Solver databases on disk: one file per subspace.
//!
//! ```text
//! 8 bytes   magic "KVARNDB\0"
//! 4 bytes   format version, little-endian (1)
//! 4 bytes   header length N, little-endian
//! N bytes   header, JSON: variant, flying, subspace, count of values
//! 2×count   values, u16 little-endian: 0 draw, 2d+1 lost in d, 2d+2 won in d
//!           (d turns to the end), 65535 an index that is no position
//! 4 bytes   CRC-32 of everything before it
//! ```
//!
//! Files are written atomically and read whole into a compact table; a file that is
//! damaged, cut short, of another version or of other rules is refused, naming why.

use std::path::{Path, PathBuf};

use kvarn_game::{Rules, Variant};
use serde::{Deserialize, Serialize};

use super::{Solver, Subspace};
use crate::error::EvalError;
use crate::storage::write_atomically;

/// The first bytes of every database file.
pub const MAGIC: &[u8; 8] = b"KVARNDB\0";
/// The format version written, and the only one read.
pub const VERSION: u32 = 1;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    variant: Variant,
    flying: bool,
    subspace: Subspace,
    count: u64,
}

/// The file name of a subspace, e.g. `nine-fly_w3b4_h0-0_white.kvdb` or
/// `six_w2b3_h3-4_black_x.kvdb` (`x`: a removal is pending).
pub fn file_name(rules: &Rules, s: &Subspace) -> String {
    let fly = if rules.variant().offers_flying() {
        if rules.flying() { "-fly" } else { "-nofly" }
    } else {
        ""
    };
    format!(
        "{}{fly}_w{}b{}_h{}-{}_{}{}.kvdb",
        rules.variant().key(),
        s.w_on,
        s.b_on,
        s.w_hand,
        s.b_hand,
        s.side,
        if s.pending { "_x" } else { "" }
    )
}

/// The path of a subspace's file in `dir`.
pub fn path(dir: &Path, rules: &Rules, s: &Subspace) -> PathBuf {
    dir.join(file_name(rules, s))
}

fn bad(path: &Path, reason: impl Into<String>) -> EvalError {
    EvalError::Database {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

/// Writes a subspace's table to `dir`.
///
/// # Errors
/// [`EvalError::Database`] when the file cannot be written.
pub fn write(dir: &Path, rules: &Rules, s: &Subspace, table: &[u16]) -> Result<(), EvalError> {
    let path = path(dir, rules, s);
    let header = serde_json::to_vec(&Header {
        variant: rules.variant(),
        flying: rules.flying(),
        subspace: *s,
        count: table.len() as u64,
    })
    .map_err(|e| bad(&path, e.to_string()))?;
    let mut bytes = Vec::with_capacity(20 + header.len() + 2 * table.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&header);
    for v in table {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    write_atomically(&path, &bytes).map_err(|e| bad(&path, e.to_string()))
}

/// Reads a subspace's table from `dir`: `Ok(None)` when there is no file for it.
///
/// # Errors
/// [`EvalError::Database`] for a file that is damaged, cut short, of another version, of
/// other rules or of another size than `expected_len`.
pub fn read(
    dir: &Path,
    rules: &Rules,
    s: &Subspace,
    expected_len: usize,
) -> Result<Option<Vec<u16>>, EvalError> {
    let path = path(dir, rules, s);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(bad(&path, e.to_string())),
    };
    if bytes.len() < 20 || &bytes[..8] != MAGIC {
        return Err(bad(
            &path,
            "not a Kvarn solver database (wrong magic bytes)",
        ));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("four bytes"));
    if version != VERSION {
        return Err(bad(
            &path,
            format!("format version {version}; this Kvarn reads version {VERSION}"),
        ));
    }
    let (body, tail) = bytes.split_at(bytes.len() - 4);
    let stored = u32::from_le_bytes(tail.try_into().expect("four bytes"));
    if crc32fast::hash(body) != stored {
        return Err(bad(
            &path,
            "checksum mismatch: the file is damaged or cut short",
        ));
    }
    let header_len = u32::from_le_bytes(body[12..16].try_into().expect("four bytes")) as usize;
    let header_end = 16usize
        .checked_add(header_len)
        .filter(|&e| e <= body.len())
        .ok_or_else(|| bad(&path, "header length past the end of the file"))?;
    let header: Header = serde_json::from_slice(&body[16..header_end])
        .map_err(|e| bad(&path, format!("bad header: {e}")))?;
    let want = Header {
        variant: rules.variant(),
        flying: rules.flying(),
        subspace: *s,
        count: expected_len as u64,
    };
    if header != want {
        return Err(bad(&path, format!("holds {header:?}, expected {want:?}")));
    }
    let data = &body[header_end..];
    if data.len() != 2 * expected_len {
        return Err(bad(
            &path,
            format!("{} value bytes, expected {}", data.len(), 2 * expected_len),
        ));
    }
    Ok(Some(
        data.chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect(),
    ))
}

/// Loads every subspace of `plan` found in `dir` into a solver for `rules`.
///
/// # Errors
/// [`EvalError::Database`] for the first file that cannot be trusted.
pub fn load(dir: &Path, rules: Rules, plan: &[super::Step]) -> Result<Solver, EvalError> {
    let mut solver = Solver::new(rules);
    for step in plan {
        for s in step.subspaces() {
            if let Some(t) = read(dir, &rules, &s, solver.size(&s))? {
                solver.insert(s, t);
            }
        }
    }
    Ok(solver)
}

/// Solves `plan` for `rules` into `dir` (created if missing), reusing each step whose
/// files are all present and valid, so that a killed solve resumes where it stopped.
/// `on_step` sees each step after it is solved or loaded: whether it was loaded, and the
/// seconds it took.
///
/// # Errors
/// [`EvalError::Database`] for a file that cannot be read, trusted or written.
pub fn solve_into(
    dir: &Path,
    rules: Rules,
    plan: &[super::Step],
    mut on_step: impl FnMut(&Solver, &super::Step, bool, f64),
) -> Result<Solver, EvalError> {
    std::fs::create_dir_all(dir).map_err(|e| bad(dir, e.to_string()))?;
    let mut solver = Solver::new(rules);
    for step in plan {
        let began = std::time::Instant::now();
        let subspaces = step.subspaces();
        let mut loaded = Vec::new();
        for s in &subspaces {
            if let Some(t) = read(dir, &rules, s, solver.size(s))? {
                loaded.push((*s, t));
            }
        }
        let resumed = loaded.len() == subspaces.len();
        if resumed {
            for (s, t) in loaded {
                solver.insert(s, t);
            }
        } else {
            solver.run_step(step);
            for s in &subspaces {
                let table = solver.table(s).expect("the step just solved it");
                write(dir, &rules, s, table)?;
            }
        }
        on_step(&solver, step, resumed, began.elapsed().as_secs_f64());
    }
    Ok(solver)
}
