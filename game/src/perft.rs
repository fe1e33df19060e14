//! Perft: the number of decision sequences of a given length, the standard check of a
//! move generator. A removal is its own decision; a finished game has no continuation.

use crate::game::Game;
use crate::moves::Move;

/// Number of leaf nodes `depth` decisions below the current position of `game`.
pub fn perft(game: &mut Game, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = game.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for mv in moves {
        game.play_unchecked(mv);
        nodes += perft(game, depth - 1);
        game.undo();
    }
    nodes
}

/// Perft split by first move, for finding where two generators disagree.
pub fn perft_divide(game: &mut Game, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    game.legal_moves()
        .into_iter()
        .map(|mv| {
            game.play_unchecked(mv);
            let n = perft(game, depth - 1);
            game.undo();
            (mv, n)
        })
        .collect()
}
