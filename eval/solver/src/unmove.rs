//! The slides that led to a position of the moving phase, which retrograde analysis walks
//! backwards: one rule for both solvers of the moving phase ([`crate::retro`] and
//! [`crate::wdl`]).

use kvarn_game::{Bitboard, Rules};

/// Calls `f(before)` for each set of men the player who just moved (`mover`, now with
/// these men, the other player with `other`) had before a slide or fly that closed no mill
/// (one that closed a mill would have left a removal pending): a man outside every mill
/// came from an empty point joined to its own, or from any empty point where the mover
/// flies.
pub(crate) fn for_each_origin(
    rules: &Rules,
    mover: Bitboard,
    other: Bitboard,
    mut f: impl FnMut(Bitboard),
) {
    let board = rules.board();
    let empty = board.points() & !(mover | other);
    let in_mills = board.men_in_mills(mover);
    let flew = rules.flying() && mover.count() == 3;
    for to in mover & !in_mills {
        let origins = if flew {
            empty
        } else {
            board.adjacent(to) & empty
        };
        for from in origins {
            f(mover ^ Bitboard::from_square(to) ^ Bitboard::from_square(from));
        }
    }
}
