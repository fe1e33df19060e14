//! What a database value means in a game played under Kvarn's draw rules.
//!
//! The solver's values ignore both draw rules (as published solutions do). A database draw
//! is a draw under them too: the draw rules only ever end games early as draws, so they
//! cannot give either side a forced win. A database win in `d` turns is a win under them
//! exactly when the no-capture rule leaves room for it and no repetition can intervene:
//!
//! - **No capture**: the counter `c` (turns since the last removal) grows by one each turn
//!   without a removal, and the game is drawn once it reaches the limit `L`, unless that
//!   same turn wins (a win is checked before the draw rules, RULES.md and
//!   `Position::status`). Along the winner's fastest line the positions after turns
//!   `1..d−1` must stand below the limit; without a removal on the way they stand at
//!   `c+1 .. c+d−1`, so the win is certain when `d ≤ L − c`. With a removal pending, this
//!   turn ends with the removal (counter 0) and `d − 1` turns follow: `d ≤ L + 1`. A loser's
//!   deviation only shortens the line, so the bound holds against any defence. A longer
//!   win may still be a win (removals on the way restart the count), but it is not
//!   certain, and the game plays on.
//! - **Repetition**: along a fastest win every position has a smaller distance than the one
//!   before, so none recurs within the line; a position of the line can only be a third
//!   occurrence if it already occurred twice in the game. Positions before the last
//!   removal have more men and cannot recur, so the win is certain when no position since
//!   the last removal has occurred twice.

use kvarn_game::{Position, Rules};

use crate::value::Value;

/// The game-theoretic value `value` of `pos` (for the player to move), as a certain result
/// under `rules`' draw rules: `Some` when the game will end that way with perfect play
/// whatever happens before, `None` when the draw rules might intervene.
/// `repeated_since_removal`: some position since the last removal occurred twice.
pub fn certain(
    rules: &Rules,
    pos: &Position,
    value: Value,
    repeated_since_removal: bool,
) -> Option<Value> {
    let d = match value {
        Value::Draw => return Some(Value::Draw),
        Value::Win(d) | Value::Loss(d) => d,
    };
    if rules.repetition() && repeated_since_removal {
        return None;
    }
    let fits = match rules.no_capture_limit() {
        None => true,
        Some(limit) => d <= turns_allowed(pos, limit),
    };
    fits.then_some(value)
}

/// The most turns a win may take from `pos` and still end before the no-capture rule can
/// draw it (see the module's documentation).
pub fn turns_allowed(pos: &Position, limit: u16) -> u16 {
    if pos.pending_removal() {
        limit.saturating_add(1)
    } else {
        limit.saturating_sub(pos.no_capture())
    }
}
