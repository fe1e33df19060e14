//! Times the parts of a ply on positions from random games.
use kvarn_game::{Game, Move, Position, Rules, Variant};
use std::time::Instant;
fn main() {
    let rules = Rules::new(Variant::Nine);
    let mut g = Game::new(rules);
    let mut x = 12345u64;
    let mut samples: Vec<(Position, Move)> = Vec::new();
    while samples.len() < 2_000_000 {
        g.restart();
        while !g.status().is_over() {
            let m = g.legal_moves();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mv = m[(x % m.len() as u64) as usize];
            samples.push((*g.position(), mv));
            g.play_unchecked(mv);
        }
    }
    let n = samples.len() as f64;
    for (name, k) in [("remove", 0), ("place", 1), ("fly", 2), ("slide", 3)] {
        let sub: Vec<&(Position, Move)> = samples
            .iter()
            .filter(|(p, _)| {
                let kind = if p.pending_removal() {
                    0
                } else if p.is_placing() {
                    1
                } else if p.can_fly(&rules, p.side_to_move()) {
                    2
                } else {
                    3
                };
                kind == k
            })
            .collect();
        let t = Instant::now();
        let mut acc = 0usize;
        for (p, _) in &sub {
            acc += p.legal_moves(&rules).len();
        }
        let ns = t.elapsed().as_nanos() as f64 / sub.len() as f64;
        println!(
            "legal_moves[{name}]: {ns:.1} ns for {:.1} moves, {:.1}% of plies",
            acc as f64 / sub.len() as f64,
            100.0 * sub.len() as f64 / n
        );
    }
    let t = Instant::now();
    let mut acc = 0usize;
    for (p, _) in &samples {
        acc += p.legal_moves(&rules).len();
    }
    println!(
        "legal_moves: {:.1} ns ({acc})",
        t.elapsed().as_nanos() as f64 / n
    );
    let t = Instant::now();
    let mut acc = 0usize;
    for (p, _) in &samples {
        p.for_each_legal_move(&rules, |m| acc += m.to().map_or(0, |s| s.index()));
    }
    println!(
        "for_each_legal_move: {:.1} ns ({acc})",
        t.elapsed().as_nanos() as f64 / n
    );
    let t = Instant::now();
    let mut acc = 0usize;
    for (p, _) in &samples {
        acc += p.legal_move_count(&rules);
    }
    println!(
        "legal_move_count: {:.1} ns ({acc})",
        t.elapsed().as_nanos() as f64 / n
    );
    let t = Instant::now();
    let mut acc = 0u64;
    for (p, m) in &samples {
        let mut q = *p;
        q.play_unchecked(&rules, *m);
        acc ^= q.hash();
    }
    println!(
        "play_unchecked: {:.1} ns ({acc})",
        t.elapsed().as_nanos() as f64 / n
    );
    let t = Instant::now();
    let mut acc = 0usize;
    for (p, _) in &samples {
        acc += p.status(&rules, 1).is_over() as usize;
    }
    println!(
        "status: {:.1} ns ({acc})",
        t.elapsed().as_nanos() as f64 / n
    );
    let t = Instant::now();
    let mut acc = 0usize;
    for (p, _) in &samples {
        acc += p.has_legal_move(&rules) as usize;
    }
    println!(
        "has_legal_move: {:.1} ns ({acc})",
        t.elapsed().as_nanos() as f64 / n
    );
}
