//! Positions for the benchmarks that time or compare on positions rather than games.

use kvarn_game::{Game, Rules};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Positions from seeded random games at every stage: each game is cut after a random
/// number of plies below `max_plies`, and kept while it is still going.
pub(super) fn varied_positions(rules: Rules, n: usize, seed: u64, max_plies: usize) -> Vec<Game> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut game = Game::new(rules);
        let plies = rng.random_range(0..max_plies);
        while game.ply() < plies && !game.status().is_over() {
            let moves = game.legal_moves();
            game.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        if !game.status().is_over() {
            out.push(game);
        }
    }
    out
}
