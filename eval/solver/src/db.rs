//! Solver databases on disk: one file per subspace, and [`Databases::open`], the one way
//! in for everything that reads them (`kvarn probe`, the perfect player, the benchmarks,
//! the training loop), so that a missing folder, a folder without databases for the rules
//! asked and a damaged file are told apart the same way everywhere.
//!
//! Each file is a Kvarn container ([`kvarn_storage`], shared with models and self-play
//! shards) with magic `KVARNDB\0`, format version [`VERSION`], a JSON header (variant,
//! flying, subspace, count of values) and as payload the values, u16 little-endian: 0
//! draw, 2d+1 lost in d, 2d+2 won in d (d turns to the end), 65535 an index that is no
//! position.
//!
//! Files are written atomically and read whole into a compact table; a file that is
//! damaged, cut short or of other rules is refused, naming why. A file of version 1 (its
//! own framing, before the shared container) has the same magic and version field, so it
//! is refused as an older version to solve again, not as damaged; `kvarn solve` rewrites
//! it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use kvarn_game::{Position, Rules, Variant};
use serde::{Deserialize, Serialize};

use crate::plan::{Step, plan_for};
use crate::solver::Solver;
use crate::subspace::Subspace;
use crate::wdl::{Unit, WdlSolver, WdlTable};
use kvarn_storage::{ContainerError, split_container, write_container};

/// The first bytes of every database file.
pub const MAGIC: &[u8; 8] = b"KVARNDB\0";
/// The format version written, and the only one read: 2 since the shared container,
/// whose payload length field shifts the values.
pub const VERSION: u32 = 2;
/// The kind of file, as the container's errors name it.
const KIND: &str = "Kvarn solver database";

/// Why solver databases could not be opened, read or written. Each names the folder or
/// file, so that the message alone says what to fix.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// Nothing exists at the path: no databases were made there.
    #[error(
        "{}: no such folder of solver databases; make them with `kvarn solve --out {}`",
        .dir.display(), .dir.display()
    )]
    NoFolder {
        /// The path given.
        dir: PathBuf,
    },
    /// The path is a file, not a folder.
    #[error("{}: not a folder (solver databases are a folder of .kvdb files)", .dir.display())]
    NotAFolder {
        /// The path given.
        dir: PathBuf,
    },
    /// The folder holds no database file for the rules asked (perhaps for other rules).
    #[error(
        "{} holds no solver databases of {} ({}*.kvdb){}; make them with `kvarn solve`",
        .dir.display(), rules_name(.rules), prefix(.rules), up_to(*.max_men)
    )]
    NoDatabases {
        /// The folder.
        dir: PathBuf,
        /// The rules asked for.
        rules: Rules,
        /// Nine Men's Morris: the most men a side asked for, when fewer than nine.
        max_men: Option<u8>,
    },
    /// A file of another format version: written by another Kvarn, not damaged.
    #[error(
        "{}: solver database format version {found}, this Kvarn reads version {expected}; {}",
        .path.display(), version_advice(*.found, *.expected)
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
        /// The version this build reads.
        expected: u32,
    },
    /// A file that is cut short, fails its checksum or cannot be parsed.
    #[error("{}: {reason}; the file is damaged", .path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A sound file that holds another subspace or rules than its name says.
    #[error("{}: holds {found}, expected {expected}", .path.display())]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// What the header says.
        found: String,
        /// What the file name and the rules call for.
        expected: String,
    },
    /// A file or folder that cannot be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying failure.
        source: std::io::Error,
    },
}

/// The rules as far as the databases care: the variant and, where offered, flying (the
/// draw rules are ignored by solved values).
fn rules_name(rules: &Rules) -> String {
    match (rules.variant().offers_flying(), rules.flying()) {
        (false, _) => rules.variant().to_string(),
        (true, true) => format!("{} with flying", rules.variant()),
        (true, false) => format!("{} without flying", rules.variant()),
    }
}

fn up_to(max_men: Option<u8>) -> String {
    max_men.map_or(String::new(), |m| format!(" up to {m} men a side"))
}

fn version_advice(found: u32, expected: u32) -> &'static str {
    if found < expected {
        "solve again with `kvarn solve`, which rewrites files of older versions"
    } else {
        "it was written by a newer Kvarn"
    }
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    variant: Variant,
    flying: bool,
    subspace: Subspace,
    count: u64,
}

/// The start of every file name of `rules`, e.g. `nine-fly_` or `six_`.
fn prefix(rules: &Rules) -> String {
    let fly = if rules.variant().offers_flying() {
        if rules.flying() { "-fly" } else { "-nofly" }
    } else {
        ""
    };
    format!("{}{fly}_", rules.variant().key())
}

/// The file name of a subspace, e.g. `nine-fly_w3b4_h0-0_white.kvdb` or
/// `six_w2b3_h3-4_black_x.kvdb` (`x`: a removal is pending).
pub fn file_name(rules: &Rules, s: &Subspace) -> String {
    format!(
        "{}w{}b{}_h{}-{}_{}{}.kvdb",
        prefix(rules),
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

fn damaged(path: &Path, reason: impl Into<String>) -> DbError {
    DbError::Damaged {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> DbError {
    let path = path.to_path_buf();
    move |source| DbError::Io { path, source }
}

/// The container's refusal in the databases' terms: another version is not damage.
fn container_error(e: ContainerError) -> DbError {
    match e {
        ContainerError::Version {
            path,
            found,
            expected,
            ..
        } => DbError::Version {
            path: path.into(),
            found,
            expected,
        },
        ContainerError::Io { path, source } => DbError::Io {
            path: path.into(),
            source,
        },
        ContainerError::WrongKind { path, .. } => DbError::Damaged {
            path: path.into(),
            reason: format!("not a {KIND} (wrong magic bytes)"),
        },
        ContainerError::Damaged { path, reason } => DbError::Damaged {
            path: path.into(),
            reason,
        },
        ContainerError::Header { path, reason } => DbError::Damaged {
            path: path.into(),
            reason: format!("bad header: {reason}"),
        },
    }
}

/// Writes a subspace's table to `dir`.
///
/// # Errors
/// [`DbError::Io`] when the file cannot be written.
pub fn write(dir: &Path, rules: &Rules, s: &Subspace, table: &[u16]) -> Result<(), DbError> {
    let header = Header {
        variant: rules.variant(),
        flying: rules.flying(),
        subspace: *s,
        count: table.len() as u64,
    };
    let payload: Vec<u8> = table.iter().flat_map(|v| v.to_le_bytes()).collect();
    write_container(&path(dir, rules, s), MAGIC, VERSION, &header, &payload)
        .map_err(container_error)
}

/// Reads a subspace's table from `dir`: `Ok(None)` when there is no file for it.
///
/// # Errors
/// [`DbError::Version`] for a file of another format
/// version, [`DbError::Damaged`] for one that is cut short or fails its checksum,
/// [`DbError::Mismatch`] for one of other rules, another subspace or another size than
/// `expected_len`, [`DbError::Io`] for one that cannot be read.
pub fn read(
    dir: &Path,
    rules: &Rules,
    s: &Subspace,
    expected_len: usize,
) -> Result<Option<Vec<u16>>, DbError> {
    let path = path(dir, rules, s);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(&path)(e)),
    };
    let (header, data): (Header, &[u8]) =
        split_container(&path, &bytes, MAGIC, KIND, VERSION).map_err(container_error)?;
    check_header(&path, &header, rules, s, expected_len)?;
    if data.len() != 2 * expected_len {
        return Err(damaged(
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

/// Checks that a file's header is for `rules`, subspace `s` and `len` values.
fn check_header(
    path: &Path,
    header: &Header,
    rules: &Rules,
    s: &Subspace,
    len: usize,
) -> Result<(), DbError> {
    let want = Header {
        variant: rules.variant(),
        flying: rules.flying(),
        subspace: *s,
        count: len as u64,
    };
    if *header != want {
        return Err(DbError::Mismatch {
            path: path.to_path_buf(),
            found: format!("{header:?}"),
            expected: format!("{want:?}"),
        });
    }
    Ok(())
}

/// The subspaces of [`plan_for`]`(rules, max_men)`, in plan order.
fn plan_subspaces(rules: &Rules, max_men: u8) -> Vec<Subspace> {
    plan_for(rules, max_men)
        .iter()
        .flat_map(Step::subspaces)
        .collect()
}

/// Reads the tables of `subspaces` found in `dir` into a solver for `rules`.
fn read_tables(
    dir: &Path,
    rules: Rules,
    subspaces: impl IntoIterator<Item = Subspace>,
) -> Result<Solver, DbError> {
    let mut solver = Solver::new(rules);
    for s in subspaces {
        if let Some(t) = read(dir, &rules, &s, solver.size(&s))? {
            solver.insert(s, t);
        }
    }
    Ok(solver)
}

/// A folder of solver databases for one set of rules, checked but not read yet: a caller
/// may need a few tables (`kvarn probe`) of a folder that holds gigabytes (Nine's larger
/// endgames), or all of them (the perfect player, the benchmarks, training).
#[derive(Debug)]
pub struct Databases {
    dir: PathBuf,
    rules: Rules,
    /// The subspaces that have a file, in plan order.
    present: Vec<Subspace>,
}

impl Databases {
    /// Opens `dir` as the databases of `rules`: every file Kvarn's plan for those rules
    /// names ([`plan_for`], all men for Nine). Files are checked when read.
    ///
    /// # Errors
    /// [`DbError::NoFolder`] when nothing is at `dir`,
    /// [`DbError::NotAFolder`] when it is a file, [`DbError::NoDatabases`] when it holds
    /// no file of `rules`, [`DbError::Io`] when it cannot be looked into.
    pub fn open(dir: &Path, rules: Rules) -> Result<Databases, DbError> {
        match std::fs::metadata(dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(DbError::NotAFolder { dir: dir.into() }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(DbError::NoFolder { dir: dir.into() });
            }
            Err(e) => return Err(io_error(dir)(e)),
        }
        let mut present = Vec::new();
        for s in plan_subspaces(&rules, rules.men()) {
            let file = path(dir, &rules, &s);
            if file.try_exists().map_err(io_error(&file))? {
                present.push(s);
            }
        }
        if present.is_empty() {
            return Err(DbError::NoDatabases {
                dir: dir.into(),
                rules,
                max_men: None,
            });
        }
        Ok(Databases {
            dir: dir.into(),
            rules,
            present,
        })
    }

    /// Reads every table, or for Nine Men's Morris those of up to `max_men` men a side
    /// (`None`: all; Six and Five are solved whole and ignore it).
    ///
    /// # Errors
    /// [`DbError::NoDatabases`] when none is within
    /// `max_men`; the errors of [`read`] for the first file that cannot be trusted.
    pub fn load(&self, max_men: Option<u8>) -> Result<Solver, DbError> {
        let limit =
            max_men.filter(|&m| self.rules.variant() == Variant::Nine && m < self.rules.men());
        let wanted: Vec<Subspace> = match limit {
            None => self.present.clone(),
            Some(m) => {
                let within: HashSet<Subspace> =
                    plan_subspaces(&self.rules, m).into_iter().collect();
                self.present
                    .iter()
                    .filter(|s| within.contains(s))
                    .copied()
                    .collect()
            }
        };
        if wanted.is_empty() {
            return Err(DbError::NoDatabases {
                dir: self.dir.clone(),
                rules: self.rules,
                max_men: limit,
            });
        }
        read_tables(&self.dir, self.rules, wanted)
    }

    /// Reads the tables that value `positions`, where there are files for them: enough
    /// for the values of a position and its moves without reading the whole folder.
    ///
    /// # Errors
    /// The errors of [`read`] for the first file that cannot be trusted.
    pub fn load_for(&self, positions: &[Position]) -> Result<Solver, DbError> {
        let wanted: HashSet<Subspace> = positions.iter().map(Subspace::of).collect();
        let chosen = self.present.iter().filter(|s| wanted.contains(s)).copied();
        read_tables(&self.dir, self.rules, chosen)
    }
}

/// The tables of `subspaces` in `dir` that can be reused: present and valid. Files of an
/// older format version are left out, so that the step is solved again and they are
/// rewritten.
fn reusable(
    dir: &Path,
    solver: &Solver,
    subspaces: &[Subspace],
) -> Result<Vec<(Subspace, Vec<u16>)>, DbError> {
    let rules = solver.rules();
    let mut tables = Vec::new();
    for s in subspaces {
        match read(dir, rules, s, solver.size(s)) {
            Ok(Some(t)) => tables.push((*s, t)),
            Ok(None) => {}
            Err(DbError::Version { path, found, .. }) if found < VERSION => {
                let file = path.display();
                tracing::info!(%file, version = found, "rewriting an older database");
            }
            Err(e) => return Err(e),
        }
    }
    Ok(tables)
}

/// Solves `plan` for `rules` into `dir` (created if missing), reusing each step whose
/// files are all present and valid, so that a killed solve resumes where it stopped;
/// files of an older format version are solved again and rewritten.
/// `on_step` sees each step after it is solved or loaded: whether it was loaded, and the
/// seconds it took.
///
/// # Errors
/// The errors of [`read`] and [`write`] for a file that cannot be read, trusted or
/// written.
pub fn solve_into(
    dir: &Path,
    rules: Rules,
    plan: &[Step],
    mut on_step: impl FnMut(&Solver, &Step, bool, f64),
) -> Result<Solver, DbError> {
    kvarn_storage::make_folder(dir).map_err(io_error(dir))?;
    let mut solver = Solver::new(rules);
    for step in plan {
        let began = std::time::Instant::now();
        let subspaces = step.subspaces();
        let loaded = reusable(dir, &solver, &subspaces)?;
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

/// The first bytes of every win/draw/loss table file ([`crate::wdl`]).
pub const WDL_MAGIC: &[u8; 8] = b"KVARNWDL";
/// The format version of win/draw/loss table files.
pub const WDL_VERSION: u32 = 1;
const WDL_KIND: &str = "Kvarn win/draw/loss table";

/// What a win/draw/loss table file says of itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WdlHeader {
    variant: Variant,
    flying: bool,
    /// Men of the player to move (White) and of the other.
    white: u8,
    black: u8,
    /// Indices.
    count: u64,
    /// Wins, draws and losses.
    values: [u64; 3],
    /// Bytes of the compressed payload before compression: the packed values, then the
    /// turns to the next removal.
    raw_bytes: u64,
}

/// The file name of a unit's win/draw/loss table, e.g. `nine-fly_w5b6.kvwdl`.
pub fn wdl_file_name(rules: &Rules, unit: Unit) -> String {
    format!("{}w{}b{}.kvwdl", prefix(rules), unit.white, unit.black)
}

/// Writes a unit's win/draw/loss table to `dir`, its payload compressed (zstd).
///
/// # Errors
/// [`DbError::Io`] when the file cannot be written.
pub fn write_wdl(dir: &Path, rules: &Rules, table: &WdlTable) -> Result<(), DbError> {
    let path = dir.join(wdl_file_name(rules, table.unit));
    // Compressed as one stream, without a copy of the two parts side by side.
    let mut encoder = zstd::stream::Encoder::new(Vec::new(), 3).map_err(io_error(&path))?;
    std::io::Write::write_all(&mut encoder, &table.packed).map_err(io_error(&path))?;
    std::io::Write::write_all(&mut encoder, &table.to_removal).map_err(io_error(&path))?;
    let payload = encoder.finish().map_err(io_error(&path))?;
    let raw_len = table.packed.len() + table.to_removal.len();
    let header = WdlHeader {
        variant: rules.variant(),
        flying: rules.flying(),
        white: table.unit.white,
        black: table.unit.black,
        count: table.len as u64,
        values: table.counts(),
        raw_bytes: raw_len as u64,
    };
    write_container(&path, WDL_MAGIC, WDL_VERSION, &header, &payload).map_err(container_error)
}

/// Reads a unit's win/draw/loss table from `dir`, checked against `rules`, the unit and
/// `len` indices: `Ok(None)` when there is no file for it.
///
/// # Errors
/// A file of another version, damaged, of other rules or another size, or unreadable.
pub fn read_wdl(
    dir: &Path,
    rules: &Rules,
    unit: Unit,
    len: usize,
) -> Result<Option<WdlTable>, DbError> {
    let path = dir.join(wdl_file_name(rules, unit));
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(&path)(e)),
    };
    let (header, data): (WdlHeader, &[u8]) =
        split_container(&path, &bytes, WDL_MAGIC, WDL_KIND, WDL_VERSION)
            .map_err(container_error)?;
    let (variant, flying) = (rules.variant(), rules.flying());
    if (
        header.variant,
        header.flying,
        header.white,
        header.black,
        header.count,
    ) != (variant, flying, unit.white, unit.black, len as u64)
    {
        return Err(DbError::Mismatch {
            path,
            found: format!("{header:?}"),
            expected: format!("{variant} flying {flying}, {unit:?}, {len} indices"),
        });
    }
    let raw_len = len.div_ceil(4) + len;
    if header.raw_bytes != raw_len as u64 {
        return Err(damaged(&path, "its size does not fit its count"));
    }
    let raw = zstd::bulk::decompress(data, raw_len)
        .map_err(|e| damaged(&path, format!("the payload does not decompress: {e}")))?;
    if raw.len() != raw_len {
        return Err(damaged(&path, "the payload is cut short"));
    }
    let (packed, to_removal) = raw.split_at(len.div_ceil(4));
    let table = WdlTable {
        unit,
        len,
        packed: packed.to_vec(),
        to_removal: to_removal.to_vec(),
    };
    if table.counts() != header.values {
        return Err(damaged(
            &path,
            "its counts of wins, draws and losses differ from its header",
        ));
    }
    Ok(Some(table))
}

/// Solves the units of the moving phase from 3 against 3 up to `max_men` a side into
/// `dir` as win/draw/loss tables ([`crate::wdl`]), reusing each pair whose files are
/// present and valid, so that a killed solve resumes where it stopped. Only the values
/// stay in memory (the turns to the next removal go to the files). `on_pair` sees each
/// pair's units after they are solved or loaded: whether they were loaded, and the
/// seconds they took.
///
/// # Errors
/// The errors of [`read_wdl`] and [`write_wdl`].
pub fn solve_wdl_into(
    dir: &Path,
    rules: Rules,
    max_men: u8,
    mut on_pair: impl FnMut(&WdlSolver, &[Unit], bool, f64),
) -> Result<WdlSolver, DbError> {
    kvarn_storage::make_folder(dir).map_err(io_error(dir))?;
    let mut solver = WdlSolver::new(rules);
    for (unit, twin) in WdlSolver::plan(max_men) {
        let began = std::time::Instant::now();
        let units: Vec<Unit> = if unit == twin {
            vec![unit]
        } else {
            vec![unit, twin]
        };
        let mut found = Vec::new();
        for &u in &units {
            found.extend(read_wdl(dir, &rules, u, solver.size(u))?);
        }
        let resumed = found.len() == units.len();
        if resumed {
            for table in found {
                solver.insert(table);
            }
        } else {
            solver.solve_pair(unit);
            for &u in &units {
                write_wdl(dir, &rules, solver.table(u).expect("just solved"))?;
            }
        }
        on_pair(&solver, &units, resumed, began.elapsed().as_secs_f64());
        for &u in &units {
            solver.keep_values_only(u);
        }
    }
    Ok(solver)
}

/// Whether `dir` holds win/draw/loss tables of `rules` ([`solve_wdl_into`]).
pub fn has_wdl(dir: &Path, rules: &Rules) -> bool {
    let start = prefix(rules);
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(&start) && name.ends_with(".kvwdl")
        })
    })
}

/// The values of every unit of the moving phase of `rules`, from 3 against 3 up to the
/// variant's men a side, read from `dir` (the turns to the next removal are left out:
/// [`read_wdl`] reads a unit whole).
///
/// # Errors
/// A unit's file is missing, damaged or of other rules.
pub fn load_wdl_values(dir: &Path, rules: Rules) -> Result<WdlSolver, DbError> {
    load_wdl_values_up_to(dir, rules, rules.men())
}

/// [`load_wdl_values`] for the units with at most `max_men` a side, what a machine that
/// solved only part of the moving phase (`kvarn solve --wdl --max-men N`) has; a position
/// with more men is looked up as unknown.
///
/// # Errors
/// A unit's file is missing, damaged or of other rules.
pub fn load_wdl_values_up_to(dir: &Path, rules: Rules, max_men: u8) -> Result<WdlSolver, DbError> {
    use rayon::prelude::*;
    let mut solver = WdlSolver::new(rules);
    let mut units: Vec<Unit> = WdlSolver::plan(max_men.min(rules.men()))
        .into_iter()
        .flat_map(|(unit, twin)| [unit, twin])
        .collect();
    units.dedup();
    // Units read side by side: decompressing and checking them is most of the time.
    let tables: Vec<WdlTable> = units
        .par_iter()
        .map(|&u| {
            let mut table =
                read_wdl(dir, &rules, u, solver.size(u))?.ok_or_else(|| DbError::Damaged {
                    path: dir.join(wdl_file_name(&rules, u)),
                    reason: format!(
                        "missing: the moving phase is not solved up to {max_men} men a side \
                         (kvarn solve --wdl --max-men {max_men})"
                    ),
                })?;
            table.to_removal = Vec::new();
            Ok(table)
        })
        .collect::<Result<_, DbError>>()?;
    for table in tables {
        solver.insert(table);
    }
    Ok(solver)
}
