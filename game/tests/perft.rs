//! Perft counts: fixed figures for the start positions (also in docs/CLI.md), and
//! agreement with the plain reference implementation on varied positions.

mod common;

use common::plain::PlainGame;
use common::{at_string, game_at, plain_replay};
use kvarn_game::{Game, Rules, Variant, perft};

fn plain_perft(g: &PlainGame, depth: u32) -> u64 {
    let moves = g.legal();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|m| {
            let mut next = g.clone();
            next.play(m);
            plain_perft(&next, depth - 1)
        })
        .sum()
}

#[test]
fn perft_of_the_start_positions() {
    let cases: [(Variant, &[u64]); 3] = [
        (
            Variant::Nine,
            &[24, 552, 12_144, 255_024, 5_100_480, 96_223_680],
        ),
        (
            Variant::Six,
            &[16, 240, 3_360, 43_680, 524_160, 5_698_368, 56_447_136],
        ),
        (
            Variant::Five,
            &[16, 240, 3_360, 43_680, 524_160, 5_698_368, 56_447_136],
        ),
    ];
    for (variant, counts) in cases {
        let mut g = Game::new(Rules::new(variant));
        for (d, &want) in counts.iter().enumerate() {
            assert_eq!(
                perft(&mut g, d as u32 + 1),
                want,
                "{variant} depth {}",
                d + 1
            );
        }
    }
}

#[test]
fn perft_agrees_with_the_plain_implementation_from_the_start() {
    for variant in Variant::ALL {
        let rules = Rules::new(variant);
        let mut g = Game::new(rules);
        let plain = plain_replay(&g);
        for depth in 1..=4 {
            assert_eq!(
                perft(&mut g, depth),
                plain_perft(&plain, depth),
                "{variant} {depth}"
            );
        }
    }
}

#[test]
fn perft_agrees_with_the_plain_implementation_in_the_middle_of_games() {
    // Positions of random games: placing, moving, flying and pending removals.
    let mut checked = 0;
    for rules in common::rule_sets().into_iter().step_by(3) {
        for seed in 0..4 {
            let mut snapshots = Vec::new();
            common::random_game(rules, seed, 120, |g, _| {
                if g.ply() % 15 == 7 {
                    snapshots.push(g.clone());
                }
            });
            for mut g in snapshots {
                let plain = plain_replay(&g);
                for depth in 1..=3 {
                    assert_eq!(
                        perft(&mut g, depth),
                        plain_perft(&plain, depth),
                        "{rules}: {} depth {depth}",
                        g.position().to_position_string(&rules)
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} positions checked");
    // A flying endgame set up from a position string.
    let rules = Rules::new(Variant::Nine);
    let mut g = game_at(
        rules,
        &at_string(&rules, "a7 g1 b2", "d1 c3 e3 f6", "w 0/0 - 0 40"),
    );
    assert_eq!(perft(&mut g, 1), 51);
    assert_eq!(perft(&mut g, 2), perft_via_moves(&mut g));
}

/// Perft 2 summed move by move, as a second way to count.
fn perft_via_moves(g: &mut Game) -> u64 {
    let mut n = 0;
    for mv in g.legal_moves() {
        g.play_unchecked(mv);
        n += g.legal_moves().len() as u64;
        g.undo();
    }
    n
}

#[test]
fn perft_divide_splits_perft_by_first_move() {
    let mut g = Game::new(Rules::new(Variant::Six));
    let split = kvarn_game::perft_divide(&mut g, 3);
    assert_eq!(split.len(), 16);
    assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), perft(&mut g, 3));
}

/// The deepest figure of the perft table in docs/CLI.md: about 4 s in a release build, so run on demand
/// (`cargo test --release -- --ignored`).
#[test]
#[ignore = "slow in the test profile; run with --ignored"]
fn perft_7_of_nine_mens_morris() {
    let mut g = Game::new(Rules::new(Variant::Nine));
    assert_eq!(perft(&mut g, 7), 1_720_800_000);
}

/// Late in the placing phase Six and Five differ (Five runs out of men first); fixed
/// figures, each also checked against the plain implementation.
#[test]
fn perft_late_in_the_placing_phase_tells_five_from_six() {
    for (variant, hands, want) in [
        (Variant::Six, "w 2/2 - 8 8", [8u64, 53, 326, 1_694]),
        (Variant::Five, "w 1/1 - 8 8", [8u64, 53, 314, 1_827]),
    ] {
        let rules = Rules::new(variant);
        let s = at_string(&rules, "b6 f6 f2 c3", "d6 b2 e3 c5", hands);
        let mut g = game_at(rules, &s);
        let plain_start = common::plain_from_setup(&g);
        for (d, &n) in want.iter().enumerate() {
            let depth = d as u32 + 1;
            assert_eq!(
                perft(&mut g, depth),
                plain_perft(&plain_start, depth),
                "{variant} {depth}"
            );
            assert_eq!(perft(&mut g, depth), n, "{variant} depth {depth}");
        }
    }
}
