//! A bank of exact training samples of a whole game: positions drawn as the whole-game
//! benchmark set draws them ([`super::whole_game`]), from every phase, every count of men
//! placed and every unit of the moving phase, plus removals of the moving phase, each
//! with its exact value and the moves that keep it. Never a position of a committed
//! benchmark set, its symmetric images or its colour-swapped twin, so that a network
//! trained on the bank is still judged on positions it was never shown.
//!
//! One file, written atomically: a container (magic, version, JSON header, CRC-32) whose
//! payload is the rows as JSON Lines compressed with zstd, so that a bank of a million
//! positions commits in tens of megabytes and needs no tables to read.

use std::collections::{BTreeMap, HashSet};
use std::io::Read;
use std::path::Path;

use kvarn_game::{Phase, Position, Rules};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use super::BenchPosition;
use super::whole_game::{WholeGameSpec, draw_moving, moving_units, row_of, sample_whole_game};
use crate::error::SolverError;
use crate::judge::WholeGame;

/// Magic bytes of a bank file.
const MAGIC: &[u8; 8] = b"KVBANK\0\0";
/// Format version written and read.
pub const BANK_VERSION: u32 = 1;
/// The kind named in errors.
const KIND: &str = "exact sample bank";
/// zstd level: the bank is written once and read by every run that uses it.
const LEVEL: i32 = 19;

/// What a bank is drawn from.
#[derive(Clone, Copy, Debug)]
pub struct BankSpec {
    /// Positions with men in hand, and of the moving phase, as a whole-game set draws them
    /// (`min_critical` 0: a bank teaches every position, not only the critical ones).
    pub whole: WholeGameSpec,
    /// Positions of the moving phase with a removal pending.
    pub removals: usize,
}

/// The header of a bank file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BankHeader {
    /// The rules the values hold for (draw rules ignored).
    pub rules: Rules,
    /// The seed the positions were drawn from.
    pub seed: u64,
    /// Positions in the bank.
    pub positions: u64,
    /// Positions by phase name (`placing`, `moving`, `flying`, `removal`).
    pub by_phase: BTreeMap<String, u64>,
    /// Positions with men in hand left out because the placing search ran out of time,
    /// by men placed.
    pub out_of_time: BTreeMap<u8, u64>,
}

/// Draws a bank from `judge`, never a position whose canonical key
/// ([`Position::canonical_key`]) is in `excluded`; `progress(done, total)` follows the
/// placing searches.
///
/// # Errors
/// As [`sample_whole_game`].
pub fn draw_bank(
    judge: &WholeGame,
    spec: &BankSpec,
    excluded: &HashSet<u64>,
    progress: impl Fn(usize, usize) + Sync,
) -> Result<(BankHeader, Vec<BenchPosition>), SolverError> {
    let rules = *judge.rules();
    let set = sample_whole_game(judge, &spec.whole, excluded, progress)?;
    let mut rows = set.positions;
    let seed = kvarn_game::seeds::derive(spec.whole.seed, 1, 0);
    rows.extend(moving_removals(judge, spec.removals, seed, excluded));
    for row in &mut rows {
        row.move_values.clear();
    }
    let mut by_phase = BTreeMap::new();
    for row in &rows {
        *by_phase.entry(row.phase.name().to_string()).or_default() += 1;
    }
    let header = BankHeader {
        rules,
        seed: spec.whole.seed,
        positions: rows.len() as u64,
        by_phase,
        out_of_time: set
            .out_of_time
            .into_iter()
            .map(|(k, v)| (k, v as u64))
            .collect(),
    };
    Ok((header, rows))
}

/// `n` distinct positions of the moving phase with a removal pending: a position drawn
/// from the tables as the whole-game set draws them, then one of its moves that closes a
/// mill, at random.
fn moving_removals(
    judge: &WholeGame,
    n: usize,
    seed: u64,
    excluded: &HashSet<u64>,
) -> Vec<BenchPosition> {
    let rules = *judge.rules();
    let units = moving_units(&rules);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(n);
    let mut tries = 0;
    while out.len() < n && tries < 1000 * n + 1000 {
        tries += 1;
        let Some((pos, _)) = draw_moving(judge, &units, &mut rng) else {
            continue;
        };
        let Some(pos) = after_a_mill(&rules, &pos, &mut rng) else {
            continue;
        };
        let key = pos.canonical_key(&rules);
        if excluded.contains(&key) || !seen.insert(key) {
            continue;
        }
        out.push(row_of(&rules, &pos, &judge.move_outcomes(&pos)));
    }
    out
}

/// The position after one of `pos`'s moves that closes a mill, drawn at random, if any.
fn after_a_mill(rules: &Rules, pos: &Position, rng: &mut Pcg64Mcg) -> Option<Position> {
    let closing: Vec<Position> = pos
        .legal_moves(rules)
        .iter()
        .map(|&m| {
            let mut next = *pos;
            next.play_unchecked(rules, m);
            next
        })
        .filter(|next| next.pending_removal() && !next.status(rules, 1).is_over())
        .collect();
    (!closing.is_empty()).then(|| closing[rng.random_range(0..closing.len())])
}

/// Writes a bank atomically.
///
/// # Errors
/// [`SolverError::BenchmarkSet`] when it cannot be written.
pub fn write_bank(
    path: &Path,
    header: &BankHeader,
    rows: &[BenchPosition],
) -> Result<(), SolverError> {
    let err = |reason: String| SolverError::BenchmarkSet {
        path: path.display().to_string(),
        reason,
    };
    let mut text = Vec::new();
    for row in rows {
        serde_json::to_writer(&mut text, row).map_err(|e| err(e.to_string()))?;
        text.push(b'\n');
    }
    let payload = zstd::bulk::compress(&text, LEVEL).map_err(|e| err(e.to_string()))?;
    kvarn_storage::write_container(path, MAGIC, BANK_VERSION, header, &payload)
        .map_err(|e| err(e.to_string()))
}

/// Reads a bank, refusing a damaged file, one of another kind or version, or a row that
/// does not agree with its position.
///
/// # Errors
/// [`SolverError::BenchmarkSet`] saying what is wrong and where.
pub fn read_bank(path: &Path) -> Result<(BankHeader, Vec<BenchPosition>), SolverError> {
    let err = |reason: String| SolverError::BenchmarkSet {
        path: path.display().to_string(),
        reason,
    };
    let (header, payload): (BankHeader, Vec<u8>) =
        kvarn_storage::read_container(path, MAGIC, KIND, BANK_VERSION)
            .map_err(|e| err(e.to_string()))?;
    let mut text = String::new();
    zstd::stream::Decoder::new(payload.as_slice())
        .and_then(|mut d| d.read_to_string(&mut text))
        .map_err(|e| err(format!("the rows do not decompress: {e}")))?;
    let rows = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str::<BenchPosition>(line)
                .map_err(|e| err(format!("row {}: {e}", i + 1)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if rows.len() as u64 != header.positions {
        return Err(err(format!(
            "the header counts {} positions, the file holds {}",
            header.positions,
            rows.len()
        )));
    }
    Ok((header, rows))
}

/// The canonical keys ([`Position::canonical_key`]) of the positions of the bank at
/// `path`, which must hold positions of `rules`: what a bank drawn beside it leaves out.
///
/// # Errors
/// [`SolverError::BenchmarkSet`] when the bank does not read, is of other rules, or a
/// row's position does not read.
pub fn bank_keys(path: &Path, rules: &Rules) -> Result<Vec<u64>, SolverError> {
    let (header, rows) = read_bank(path)?;
    if header.rules != *rules {
        return Err(SolverError::BenchmarkSet {
            path: path.display().to_string(),
            reason: format!("holds positions of {}, not {rules}", header.rules),
        });
    }
    rows.iter()
        .map(|row| Ok(row.game(rules)?.position().canonical_key(rules)))
        .collect()
}

/// Checks a bank's rows against its rules without tables: every position reads, its
/// phase and legal moves are the position's, its value-keeping moves are legal and
/// (unless it is lost) some, and no position is in `excluded` (canonical keys).
///
/// # Errors
/// [`SolverError::BenchmarkSet`] naming the first row that fails.
pub fn check_bank(
    header: &BankHeader,
    rows: &[BenchPosition],
    excluded: &HashSet<u64>,
) -> Result<(), SolverError> {
    let rules = header.rules;
    let mut seen = HashSet::new();
    for (i, row) in rows.iter().enumerate() {
        let fail = |reason: String| SolverError::BenchmarkSet {
            path: format!("bank row {} ({})", i + 1, row.position),
            reason,
        };
        let game = row.game(&rules)?;
        let pos = game.position();
        let legal: HashSet<String> = pos
            .legal_moves(&rules)
            .iter()
            .map(|m| m.to_string())
            .collect();
        if Phase::of(&rules, pos) != row.phase || legal.len() != usize::from(row.legal) {
            return Err(fail(
                "its phase or legal moves are not the position's".into(),
            ));
        }
        if row.preserving.is_empty() || row.preserving.iter().any(|m| !legal.contains(m)) {
            return Err(fail("its value-keeping moves are none or not legal".into()));
        }
        let key = pos.canonical_key(&rules);
        if excluded.contains(&key) {
            return Err(fail("it is a committed benchmark position".into()));
        }
        if !seen.insert(key) {
            return Err(fail(
                "it is in the bank twice (up to symmetry and colours)".into(),
            ));
        }
    }
    Ok(())
}
