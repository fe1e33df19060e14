//! A benchmark set of a whole game from its moving phase's win/draw/loss tables and the
//! placing search ([`WholeGame`]): positions with men in hand from random games, every
//! count of men placed alike; positions of the moving and flying phases drawn from the
//! tables, every unit (men a side) alike and the outcomes balanced; each with every legal
//! move's exact value.

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use kvarn_game::{Outcome, Phase, Position, Rules, Status};
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
    /// Positions of the moving phase (moving and flying), balanced over (phase, outcome).
    pub moving: usize,
    /// Critical positions wanted in each of the moving and flying phases: further
    /// critical positions are drawn beyond the balanced share until each phase has them,
    /// so that a critical value-keeping figure rests on enough positions.
    pub min_critical: usize,
    /// Men placed at least, in the positions with men in hand: the opening's first
    /// placements cost the placing search the most.
    pub min_placed: u8,
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
/// positions out, never a position whose canonical key ([`Position::canonical_key`]) is in
/// `excluded`; `progress(done, total)` follows the placing searches.
///
/// # Errors
/// [`SolverError::BenchmarkSet`] when a position's value from the tables is not the best
/// of its moves' (damaged or inconsistent tables).
pub fn sample_whole_game(
    judge: &WholeGame,
    spec: &WholeGameSpec,
    excluded: &HashSet<u64>,
    progress: impl Fn(usize, usize) + Sync,
) -> Result<WholeGameSet, SolverError> {
    let rules = *judge.rules();
    let mut rng = Pcg64Mcg::seed_from_u64(spec.seed);
    let mut seen = Seen {
        drawn: HashSet::new(),
        excluded,
    };
    let placing = placing_candidates(&rules, spec, &mut rng, &mut seen);
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
    positions.extend(moving_positions(judge, spec, &mut rng, &mut seen)?);
    Ok(WholeGameSet {
        positions,
        out_of_time,
    })
}

/// The positions drawn so far (keys up to symmetry) and those never to draw.
struct Seen<'a> {
    drawn: HashSet<u64>,
    excluded: &'a HashSet<u64>,
}

impl Seen<'_> {
    /// Whether `pos` is new and not excluded, noting it drawn if so.
    fn take(&mut self, rules: &Rules, pos: &Position) -> bool {
        !self.excluded.contains(&pos.canonical_key(rules))
            && self.drawn.insert(pos.canonical(rules).0.key())
    }
}

/// Men placed so far, both sides.
pub fn men_placed(rules: &Rules, pos: &Position) -> u8 {
    2 * rules.men() - pos.men_in_hand()
}

/// `spec.placing` distinct positions with men in hand (up to symmetry), from uniformly
/// random games stopped at the first decision with a number of men placed drawn uniformly
/// from `spec.min_placed` on.
fn placing_candidates(
    rules: &Rules,
    spec: &WholeGameSpec,
    rng: &mut Pcg64Mcg,
    seen: &mut Seen<'_>,
) -> Vec<Position> {
    let n = spec.placing;
    let mut out = Vec::with_capacity(n);
    let mut tries = 0;
    let first = spec.min_placed.min(2 * rules.men() - 1);
    while out.len() < n && tries < 100 * n + 1000 {
        tries += 1;
        let placed = rng.random_range(first..2 * rules.men());
        let Some(pos) = random_game_until(rules, placed, rng) else {
            continue;
        };
        if seen.take(rules, &pos) {
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

/// `spec.moving` distinct positions of the moving phase: a unit drawn uniformly, then an
/// index in it, as evenly as the draws allow over the (phase, outcome) kinds; then more
/// critical ones until each phase has `spec.min_critical`.
fn moving_positions(
    judge: &WholeGame,
    spec: &WholeGameSpec,
    rng: &mut Pcg64Mcg,
    seen: &mut Seen<'_>,
) -> Result<Vec<BenchPosition>, SolverError> {
    let rules = *judge.rules();
    let units = moving_units(&rules);
    let n = spec.moving;
    let per_kind = n.div_ceil(6).max(1);
    let mut kinds: BTreeMap<(Phase, Outcome), Vec<BenchPosition>> = BTreeMap::new();
    let mut critical: BTreeMap<Phase, usize> = BTreeMap::new();
    let wanted = |critical: &BTreeMap<Phase, usize>, phase| {
        critical.get(&phase).copied().unwrap_or(0) < spec.min_critical
    };
    let (mut accepted, mut tries) = (0, 0);
    let budget = 1000 * (n + 2 * spec.min_critical) + 10_000;
    while (accepted < n
        || [Phase::Moving, Phase::Flying]
            .iter()
            .any(|&p| wanted(&critical, p)))
        && tries < budget
    {
        tries += 1;
        let Some((pos, value)) = draw_moving(judge, &units, rng) else {
            continue;
        };
        if !seen.take(&rules, &pos) {
            continue;
        }
        let phase = Phase::of(&rules, &pos);
        let slot = kinds.entry((phase, value)).or_default();
        let balanced = (slot.len() < per_kind || tries >= budget / 2) && accepted < n;
        // Beyond the balanced share only a critical position of a phase short of them
        // is taken: its moves are valued only when it could be.
        if !balanced && !wanted(&critical, phase) {
            continue;
        }
        let row = row_of(&rules, &pos, &judge.move_outcomes(&pos));
        if !balanced && !row.critical() {
            continue;
        }
        if row.value != value {
            return Err(SolverError::BenchmarkSet {
                path: format!("position {}", row.position),
                reason: format!(
                    "the tables value it {value:?} but its best move {:?}",
                    row.value
                ),
            });
        }
        *critical.entry(phase).or_default() += usize::from(row.critical());
        slot.push(row);
        accepted += 1;
    }
    Ok(kinds.into_values().flatten().collect())
}

/// Every unit of the moving phase: 3 to the rules' men a side.
pub(super) fn moving_units(rules: &Rules) -> Vec<Unit> {
    let men = rules.men();
    (3..=men)
        .flat_map(|white| (3..=men).map(move |black| Unit { white, black }))
        .collect()
}

/// A position of the moving phase drawn from the tables (a unit uniformly, then an index),
/// with its value; `None` for an index that is no position or a finished game.
pub(super) fn draw_moving(
    judge: &WholeGame,
    units: &[Unit],
    rng: &mut Pcg64Mcg,
) -> Option<(Position, Outcome)> {
    let rules = judge.rules();
    let tables = judge.tables();
    let unit = units[rng.random_range(0..units.len())];
    let i = rng.random_range(0..tables.size(unit));
    let value = tables.table(unit)?.get(i)?;
    let pos = tables.indexer().position_at(rules, &unit.subspace(), i)?;
    (!pos.status(rules, 1).is_over()).then_some((pos, value))
}

/// The benchmark row of `pos` from every move's value: the position's value is the best.
pub(super) fn row_of(
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

/// `n` distinct won positions of the moving phase (up to symmetry), drawn from the tables
/// every unit alike, whose turns to the next removal are at most `limit`: positions that a
/// perfect player must win under a no-capture rule of that many turns. Returned sorted by
/// unit, so that each unit's turns are read once and games played in that order share them.
///
/// # Errors
/// A unit's file cannot be read for its turns.
pub fn won_within(
    judge: &WholeGame,
    n: usize,
    limit: u32,
    seed: u64,
) -> Result<Vec<Position>, crate::db::DbError> {
    let rules = *judge.rules();
    let units = moving_units(&rules);
    let unit_of = |pos: &Position| {
        let side = pos.side_to_move();
        judge
            .tables()
            .locate(pos.men(side), pos.men(side.opposite()))
            .0
    };
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(n);
    let mut tries = 0;
    while out.len() < n && tries < 1000 * n + 1000 {
        let mut batch = Vec::new();
        while batch.len() < n - out.len() && tries < 1000 * n + 1000 {
            tries += 1;
            if let Some((pos, Outcome::Win)) = draw_moving(judge, &units, &mut rng)
                && seen.insert(pos.canonical(&rules).0.key())
            {
                batch.push(pos);
            }
        }
        batch.sort_by_key(|p| std::cmp::Reverse(unit_of(p)));
        for pos in batch {
            if judge.turns_of(&pos)? <= limit {
                out.push(pos);
            }
        }
    }
    out.sort_by_key(|p| std::cmp::Reverse(unit_of(p)));
    Ok(out)
}
