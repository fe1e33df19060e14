//! Prints the mean number of legal moves per ply in random games, by kind of decision.
use kvarn_game::{Game, Rules, Variant};
fn main() {
    let rules = Rules::new(Variant::Nine);
    let mut g = Game::new(rules);
    let mut x = 12345u64;
    let (mut plies, mut total) = (0u64, 0u64);
    let mut by = [(0u64, 0u64); 4];
    for _ in 0..20000 {
        g.restart();
        while !g.status().is_over() {
            let m = g.legal_moves();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mv = m[(x % m.len() as u64) as usize];
            let p = g.position();
            let k = if p.pending_removal() {
                0
            } else if p.is_placing() {
                1
            } else if p.can_fly(&rules, p.side_to_move()) {
                2
            } else {
                3
            };
            by[k].0 += 1;
            by[k].1 += m.len() as u64;
            plies += 1;
            total += m.len() as u64;
            g.play_unchecked(mv);
        }
    }
    println!(
        "mean {:.1} moves/ply over {plies} plies",
        total as f64 / plies as f64
    );
    for (name, (n, t)) in ["remove", "place", "fly", "slide"].iter().zip(by) {
        println!(
            "{name}: {:.1}% of plies, {:.1} moves",
            100.0 * n as f64 / plies as f64,
            t as f64 / n.max(1) as f64
        );
    }
}
