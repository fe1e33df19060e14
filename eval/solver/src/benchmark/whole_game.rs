//! A benchmark set of a whole game from its moving phase's win/draw/loss tables and the
//! placing search ([`WholeGame`]): positions with men in hand from random games, every
//! count of men placed alike; positions of the moving and flying phases drawn from the
//! tables, every unit (men a side) alike and the outcomes balanced; each with every legal
//! move's exact value.

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use kvarn_game::{Color, Outcome, Phase, Position, Rules, Status};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

use super::BenchPosition;
use crate::error::SolverError;
use crate::judge::WholeGame;
use crate::wdl::Unit;

/// What a whole-game set is drawn from.
#[derive(Clone, Copy, Debug)]
pub struct WholeGameSpec {
    /// Positions with men in hand (placing, and removals while placing).
    pub placing: usize,
    /// Positions of the moving phase (moving and flying).
    pub moving: usize,
    /// Seed of the draws.
    pub seed: u64,
    /// Time the placing search may take for one position's moves (`None`: no limit).
    pub limit: Option<Duration>,
}

/// A whole-game set and what was left out to make it.
pub struct WholeGameSet {
    /// The positions: placing first, by men placed, then the moving phase.
    pub positions: Vec<BenchPosition>,
    /// Placing positions left out because their moves were not all proved within the
    /// limit, by men placed: the set is thinner there, and says so.
    pub out_of_time: BTreeMap<u8, usize>,
}

/// Draws a whole-game set from `judge`, reproducibly from the seed where no limit leaves
/// positions out; `progress(done, total)` follows the placing searches.
///
/// # Errors
/// [`SolverError::BenchmarkSet`] when a position's value from the tables is not the best
/// of its moves' (damaged or inconsistent tables).
pub fn sample_whole_game(
    judge: &WholeGame,
    spec: &WholeGameSpec,
    progress: impl Fn(usize, usize) + Sync,
) -> Result<WholeGameSet, SolverError> {
    let rules = *judge.rules();
    let mut rng = Pcg64Mcg::seed_from_u64(spec.seed);
    let mut seen = HashSet::new();
    let placing = placing_candidates(&rules, spec.placing, &mut rng, &mut seen);
    let done = std::sync::atomic::AtomicUsize::new(0);
    let valued: Vec<Option<BenchPosition>> = placing
        .par_iter()
        .map(|pos| {
            let deadline = spec.limit.map(|l| Instant::now() + l);
            let row = judge
                .move_outcomes_by(pos, deadline)
                .ok()
                .map(|moves| row_of(&rules, pos, &moves));
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(n, placing.len());
            row
        })
        .collect();
    let mut out_of_time = BTreeMap::new();
    let mut positions = Vec::new();
    for (pos, row) in placing.iter().zip(valued) {
        match row {
            Some(row) => positions.push(row),
            None => *out_of_time.entry(men_placed(&rules, pos)).or_default() += 1,
        }
    }
    positions.extend(moving_positions(judge, spec.moving, &mut rng, &mut seen)?);
    Ok(WholeGameSet {
        positions,
        out_of_time,
    })
}

/// Men placed so far, both sides.
pub fn men_placed(rules: &Rules, pos: &Position) -> u8 {
    2 * rules.men() - pos.in_hand(Color::White) - pos.in_hand(Color::Black)
}

/// `n` distinct positions with men in hand (up to symmetry), from uniformly random games
/// stopped at the first decision with a number of men placed drawn uniformly.
fn placing_candidates(
    rules: &Rules,
    n: usize,
    rng: &mut Pcg64Mcg,
    seen: &mut HashSet<u64>,
) -> Vec<Position> {
    let mut out = Vec::with_capacity(n);
    let mut tries = 0;
    while out.len() < n && tries < 100 * n + 1000 {
        tries += 1;
        let placed = rng.random_range(0..2 * rules.men());
        let Some(pos) = random_game_until(rules, placed, rng) else {
            continue;
        };
        if seen.insert(pos.canonical(rules).0.key()) {
            out.push(pos);
        }
    }
    out.sort_by_key(|p| men_placed(rules, p));
    out
}

/// A uniformly random game from the start to its first decision with `placed` men
/// placed, if the game lasts that long.
fn random_game_until(rules: &Rules, placed: u8, rng: &mut Pcg64Mcg) -> Option<Position> {
    let mut pos = Position::start(rules);
    loop {
        if matches!(pos.status(rules, 1), Status::Win { .. }) {
            return None;
        }
        if men_placed(rules, &pos) == placed {
            return Some(pos);
        }
        let moves = pos.legal_moves(rules);
        let m = *moves.get(rng.random_range(0..moves.len()))?;
        pos.play_unchecked(rules, m);
    }
}

/// `n` distinct positions of the moving phase: a unit drawn uniformly, then an index in
/// it, as evenly as the draws allow over the (phase, outcome) kinds.
fn moving_positions(
    judge: &WholeGame,
    n: usize,
    rng: &mut Pcg64Mcg,
    seen: &mut HashSet<u64>,
) -> Result<Vec<BenchPosition>, SolverError> {
    let rules = *judge.rules();
    let tables = judge.tables();
    let men = rules.men();
    let units: Vec<Unit> = (3..=men)
        .flat_map(|white| (3..=men).map(move |black| Unit { white, black }))
        .collect();
    let per_kind = n.div_ceil(6).max(1);
    let mut kinds: BTreeMap<(Phase, Outcome), Vec<BenchPosition>> = BTreeMap::new();
    let (mut accepted, mut tries) = (0, 0);
    while accepted < n && tries < 1000 * n + 10_000 {
        tries += 1;
        let unit = units[rng.random_range(0..units.len())];
        let i = rng.random_range(0..tables.size(unit));
        let Some(value) = tables.table(unit).and_then(|t| t.get(i)) else {
            continue;
        };
        let Some(pos) = tables.indexer().position_at(&rules, &unit.subspace(), i) else {
            continue;
        };
        if pos.status(&rules, 1).is_over() || !seen.insert(pos.canonical(&rules).0.key()) {
            continue;
        }
        let phase = Phase::of(&rules, &pos);
        let slot = kinds.entry((phase, value)).or_default();
        if tries < 500 * n && slot.len() >= per_kind {
            continue;
        }
        let row = row_of(&rules, &pos, &judge.move_outcomes(&pos));
        if row.value != value {
            return Err(SolverError::BenchmarkSet {
                path: format!("position {}", row.position),
                reason: format!(
                    "the tables value it {value:?} but its best move {:?}",
                    row.value
                ),
            });
        }
        slot.push(row);
        accepted += 1;
    }
    Ok(kinds.into_values().flatten().collect())
}

/// The benchmark row of `pos` from every move's value: the position's value is the best.
fn row_of(
    rules: &Rules,
    pos: &Position,
    moves: &[(kvarn_game::Move, Outcome, Position)],
) -> BenchPosition {
    let value = moves
        .iter()
        .map(|m| m.1)
        .max_by_key(|v| v.score())
        .unwrap_or(Outcome::Loss);
    BenchPosition {
        position: pos.to_position_string(rules),
        phase: Phase::of(rules, pos),
        value,
        distance: 0,
        preserving: moves
            .iter()
            .filter(|m| m.1 == value)
            .map(|m| m.0.to_string())
            .collect(),
        legal: moves.len() as u16,
        move_values: moves.iter().map(|m| (m.0.to_string(), m.1)).collect(),
    }
}
