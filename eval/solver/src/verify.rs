//! Checking the tables without the retrograde code: an exhaustive forward search from a
//! position proves or refutes its stored value within a horizon.

use kvarn_game::{Position, Rules, Status};
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
