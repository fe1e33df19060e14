//! Checking the tables without the retrograde code: an exhaustive forward search from a
//! position proves or refutes its stored value within a horizon.

use kvarn_game::{Outcome, Position, Rules, Status};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::solver::{NOT_A_POSITION, Solver};
use crate::subspace::Subspace;
use crate::value::Value;

/// Whether the player to move forces a win (`Some(true)`) or the opponent does
/// (`Some(false)`) within `depth` decisions, by
/// exhaustive search with both draw rules ignored; `None` when neither is forced so soon.
pub fn forced_within(rules: &Rules, pos: &Position, depth: u32) -> Option<bool> {
    if let Status::Win { winner, .. } = pos.status(rules, 1) {
        return Some(winner == pos.side_to_move());
    }
    if depth == 0 {
        return None;
    }
    let mut all_lose = true;
    for &m in pos.legal_moves(rules).iter() {
        let mut next = *pos;
        next.play_unchecked(rules, m);
        let same = next.side_to_move() == pos.side_to_move();
        match forced_within(rules, &next, depth - 1).map(|w| w == same) {
            Some(true) => return Some(true),
            Some(false) => {}
            None => all_lose = false,
        }
    }
    if all_lose { Some(false) } else { None }
}

/// Checks one stored value against a forward search of `depth` decisions. A game of `d`
/// turns takes between `d` and `2d` decisions, so: a value won or lost in `d` turns with
/// `2d <= depth` must be proved by the search; any result the search proves must be the
/// stored one; and a win in `d` turns must not be provable in fewer than `d` decisions.
///
/// # Errors
/// What disagrees, in words.
pub fn check_position(
    rules: &Rules,
    pos: &Position,
    stored: Value,
    depth: u32,
) -> Result<(), String> {
    let found = forced_within(rules, pos, depth);
    let fail = |what: String| {
        Err(format!(
            "{}: stored {stored:?}, {what}",
            pos.to_position_string(rules)
        ))
    };
    match (stored, found) {
        // Proved within `depth` decisions means within `depth` turns.
        (Value::Win(d), Some(true)) | (Value::Loss(d), Some(false)) if u32::from(d) <= depth => {}
        (Value::Win(_), Some(true)) | (Value::Loss(_), Some(false)) => {
            return fail(format!("but the search ends it within {depth} decisions"));
        }
        (_, Some(w)) => {
            return fail(format!(
                "but the search forces a {}",
                if w { "win" } else { "loss" }
            ));
        }
        (Value::Win(d) | Value::Loss(d), None) if 2 * u32::from(d) <= depth => {
            return fail(format!(
                "but the search proves nothing within {depth} decisions"
            ));
        }
        _ => {}
    }
    if let Value::Win(d) = stored
        && (1..=depth).contains(&u32::from(d))
        && forced_within(rules, pos, u32::from(d) - 1) == Some(true)
    {
        return fail(format!("but a win comes in fewer than {d} decisions"));
    }
    Ok(())
}

/// Checks `n` positions drawn at random from the solver's tables (reproducibly from
/// `seed`) with a forward search of `depth` decisions. Returns how many had a win or loss
/// the search proved.
///
/// # Errors
/// The first disagreement.
pub fn check_random_positions(
    solver: &Solver,
    n: usize,
    depth: u32,
    seed: u64,
) -> Result<usize, String> {
    let mut tables: Vec<(&Subspace, &Vec<u16>)> = solver.tables().iter().collect();
    tables.sort_by_key(|(s, _)| **s);
    let total: usize = tables.iter().map(|(_, t)| t.len()).sum();
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let (mut checked, mut proved) = (0, 0);
    while checked < n && total > 0 {
        let mut r = rng.random_range(0..total);
        let Some((s, t)) = tables.iter().find(|(_, t)| {
            let here = r < t.len();
            if !here {
                r -= t.len();
            }
            here
        }) else {
            break;
        };
        if t[r] == NOT_A_POSITION {
            continue;
        }
        let Some(pos) = solver.position_at(s, r) else {
            continue;
        };
        let v = Value::unpack(t[r]);
        check_position(solver.rules(), &pos, v, depth)?;
        checked += 1;
        if matches!(v, Value::Win(d) | Value::Loss(d) if 2 * u32::from(d) <= depth) {
            proved += 1;
        }
    }
    Ok(proved)
}

/// Checks `samples` random positions of a win/draw/loss unit (all where it holds fewer)
/// against their moves, with the game's own move generator rather than the solver's: a
/// position's value must be the best over its moves (a mill's move valued by its best
/// removal), and its turns to the next removal must be what perfect play gives (the
/// fewest over the winning moves, the most over the moves of a lost position, a mill's
/// move counting 1), so that false wins supporting each other around a cycle are caught.
/// `solver` must hold the unit's and its twin's turns to the next removal (read from
/// their files) and the values of the units with one man fewer. Returns the positions
/// checked.
///
/// # Errors
/// The first position that breaks a rule, as its position string and what is wrong.
pub fn check_wdl_unit(
    solver: &crate::wdl::WdlSolver,
    unit: crate::wdl::Unit,
    samples: usize,
    seed: u64,
) -> Result<u64, String> {
    use rayon::prelude::*;
    let table = solver.table(unit).ok_or("the unit is not loaded")?;
    if table.to_removal.len() != table.len {
        return Err("the unit's turns to the next removal are not loaded".into());
    }
    let all = table.len <= samples;
    let indices: Vec<usize> = if all {
        (0..table.len).collect()
    } else {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        (0..samples)
            .map(|_| rng.random_range(0..table.len))
            .collect()
    };
    let checked = indices
        .par_iter()
        .map(|&i| check_wdl_position(solver, unit, i).map(u64::from))
        .try_reduce(|| 0, |a, b| Ok(a + b))?;
    Ok(checked)
}

/// Checks index `i` of `unit`: `Ok(false)` for an unused index.
fn check_wdl_position(
    solver: &crate::wdl::WdlSolver,
    unit: crate::wdl::Unit,
    i: usize,
) -> Result<bool, String> {
    let rules = *solver.rules();
    let table = solver.table(unit).expect("checked by the caller");
    let Some(pos) = solver.indexer().position_at(&rules, &unit.subspace(), i) else {
        return Ok(false);
    };
    let stored = table.get(i).ok_or("an unused index at a position")?;
    let turns = u32::from(table.to_removal[i]);
    // Each move: its value for the player to move here, and its turns to the next removal.
    let mut moves: Vec<(Outcome, u32)> = Vec::new();
    for &m in pos.legal_moves(&rules).iter() {
        let mut next = pos;
        next.play_unchecked(&rules, m);
        if next.side_to_move() == pos.side_to_move() {
            moves.push((best_removal(solver, &next)?, 1));
        } else {
            let (v, d) = wdl_for_mover(solver, &next)?;
            moves.push((v.negate(), d + 1));
        }
    }
    let best = moves
        .iter()
        .map(|m| m.0)
        .max_by_key(|&v| v.score())
        .unwrap_or(Outcome::Loss);
    let expected_turns = match best {
        Outcome::Win => moves
            .iter()
            .filter(|m| m.0 == Outcome::Win)
            .map(|m| m.1)
            .min(),
        Outcome::Loss => Some(moves.iter().map(|m| m.1).max().unwrap_or(0)),
        Outcome::Draw => None,
    };
    let fits = best == stored && expected_turns.is_none_or(|t| t.min(255) == turns);
    if fits {
        Ok(true)
    } else {
        Err(format!(
            "{}: stored {stored:?} in {turns} turns to the next removal, its moves give \
             {best:?} in {expected_turns:?}",
            pos.to_position_string(&rules)
        ))
    }
}

/// The value for the player to move in `pos` (no removal pending) and its turns to the
/// next removal (0 for a finished game), from the tables: a position with Black to move
/// is read as its colour-swapped twin.
fn wdl_for_mover(solver: &crate::wdl::WdlSolver, pos: &Position) -> Result<(Outcome, u32), String> {
    if let Status::Win { winner, .. } = pos.status(solver.rules(), 1) {
        let v = if winner == pos.side_to_move() {
            Outcome::Win
        } else {
            Outcome::Loss
        };
        return Ok((v, 0));
    }
    let side = pos.side_to_move();
    let (unit, i) = solver.locate(pos.men(side), pos.men(side.opposite()));
    let table = solver
        .table(unit)
        .ok_or_else(|| format!("unit {unit:?} is not loaded"))?;
    let v = table.get(i).ok_or("a position at an unused index")?;
    let turns = table.to_removal.get(i).map_or(0, |&t| u32::from(t));
    Ok((v, turns))
}

/// The best removal's value for the player who closed a mill in `pos` (removal pending).
fn best_removal(solver: &crate::wdl::WdlSolver, pos: &Position) -> Result<Outcome, String> {
    let rules = *solver.rules();
    let mut best = Outcome::Loss;
    for &m in pos.legal_moves(&rules).iter() {
        let mut next = *pos;
        next.play_unchecked(&rules, m);
        match wdl_for_mover(solver, &next)?.0.negate() {
            Outcome::Win => return Ok(Outcome::Win),
            Outcome::Draw => best = Outcome::Draw,
            Outcome::Loss => {}
        }
    }
    Ok(best)
}
