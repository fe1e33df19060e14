//! Perft counts: fixed figures for the start positions (also in the README), and
//! agreement with the plain reference implementation on varied positions.

mod common;

use common::plain::{PlainBoard, PlainGame, PlainRules};
use common::{at_string, game_at};
use kvarn_game::{BoardKind, Game, Rules, Variant, perft};
use std::sync::LazyLock;

static PLAIN_24: LazyLock<PlainBoard> = LazyLock::new(PlainBoard::twenty_four);
static PLAIN_16: LazyLock<PlainBoard> = LazyLock::new(PlainBoard::sixteen);

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

/// The plain game reached by playing `game`'s moves from the plain start.
fn plain_replay(rules: &Rules, game: &Game) -> PlainGame {
    let board: &'static PlainBoard = match rules.variant().board_kind() {
        BoardKind::TwentyFour => &PLAIN_24,
        BoardKind::Sixteen => &PLAIN_16,
    };
    let mut g = PlainGame::new(
        board,
        PlainRules {
            men: rules.men() as u32,
            flying: rules.flying(),
            repetition: rules.repetition(),
            no_capture_limit: rules.no_capture_limit().map(u32::from),
        },
    );
    for mv in game.moves() {
        g.play(&mv.to_string());
    }
    g
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
        let plain = plain_replay(&rules, &g);
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
                let plain = plain_replay(&rules, &g);
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
