//! The repetition count of [`Game`] against a plain recount over the whole history, on
//! random games with long stretches without captures and random take-backs, and its cost
//! on a very long game without captures.

mod common;

use std::time::{Duration, Instant};

use common::rule_sets;
use kvarn_game::{Game, Move, Position, Rules, Variant};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// How often the current position has occurred, counted plainly: every earlier position of
/// the game with the same key. (A placement or a removal lowers `2 * in hand + on board`,
/// so positions on both sides of one are never equal: the whole game may be counted.)
fn plain_occurrences(history: &[Position]) -> u32 {
    let key = history[history.len() - 1].key();
    history.iter().filter(|p| p.key() == key).count() as u32
}

/// Whether the current position occurred at or after `ply` before now, counted plainly.
fn plain_repeats_since(history: &[Position], ply: usize) -> bool {
    let (now, earlier) = history.split_last().expect("never empty");
    earlier.iter().skip(ply).any(|p| p.key() == now.key())
}

/// Plays a random legal move of `game`, avoiding (nine times in ten) one that closes a
/// mill so that stretches without captures grow long. Returns false when none is left.
fn play_random(game: &mut Game, rng: &mut Pcg64Mcg) -> bool {
    let mut legal = game.legal_moves().to_vec();
    while !legal.is_empty() {
        let mv = legal.swap_remove(rng.random_range(0..legal.len()));
        game.play_unchecked(mv);
        if !game.position().pending_removal() || legal.is_empty() || rng.random_bool(0.1) {
            return true;
        }
        game.undo();
    }
    false
}

/// Checks the game's count, `repeats_since` and `twofold_since` against the plain ones.
fn check(game: &Game, history: &[Position], rng: &mut Pcg64Mcg) {
    let plain = plain_occurrences(history);
    assert_eq!(
        game.occurrences(),
        plain,
        "occurrences at ply {}",
        game.ply()
    );
    let rules = game.rules();
    assert_eq!(game.status(), game.position().status(rules, plain));
    let ply = rng.random_range(0..=game.ply());
    assert_eq!(
        game.repeats_since(ply),
        plain_repeats_since(history, ply),
        "repeats_since({ply}) at ply {}",
        game.ply()
    );
    assert_eq!(
        game.twofold_since(ply),
        rules.repetition() && plain_repeats_since(history, ply),
        "twofold_since({ply}) at ply {}",
        game.ply()
    );
}

/// A random game of `rules` with take-backs (of up to 80 decisions, so that undo crosses
/// captures and the index's reach), checked at every step.
fn checked_game(rules: Rules, seed: u64, steps: usize) {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut game = Game::new(rules);
    let mut history = vec![*game.position()];
    for _ in 0..steps {
        if rng.random_bool(0.03) {
            for _ in 0..rng.random_range(1..80) {
                if game.undo().is_none() {
                    break;
                }
                history.pop();
            }
        } else if rng.random_bool(0.002) {
            game.restart();
            history.truncate(1);
        } else if !play_random(&mut game, &mut rng) {
            if game.undo().is_some() {
                history.pop();
            }
        } else {
            history.push(*game.position());
        }
        assert_eq!(history.len(), game.ply() + 1);
        check(&game, &history, &mut rng);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// The incremental count equals the plain recount on random games of every rule set,
    /// with take-backs and restarts, through stretches without captures long enough
    /// (hundreds of plies) to use the hash index.
    #[test]
    fn occurrences_equal_a_plain_recount(seed in any::<u64>()) {
        for rules in rule_sets() {
            checked_game(rules, seed, 1500);
        }
    }
}

/// A combined token that fails halfway is taken back whole, and the count stays right.
#[test]
fn failed_combined_token_keeps_the_count() {
    let rules = Rules::new(Variant::Six)
        .with_repetition(false)
        .with_no_capture_limit(None)
        .unwrap();
    let mut game = Game::new(rules);
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let mut history = vec![*game.position()];
    for _ in 0..400 {
        if !play_random(&mut game, &mut rng) {
            break;
        }
        history.push(*game.position());
        if game.position().pending_removal() {
            continue;
        }
        assert!(game.play_text("a7xg1").is_err() || game.undo().is_some());
        assert_eq!(game.ply() + 1, history.len());
        check(&game, &history, &mut rng);
    }
}

/// A game of Nine Men's Morris of `plies` decisions with no capture after the placing:
/// placements and shifts that close no mill, with the draw rules off.
fn capture_free_moves(plies: usize, seed: u64) -> Vec<Move> {
    let rules = Rules::new(Variant::Nine)
        .with_repetition(false)
        .with_no_capture_limit(None)
        .unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut game = Game::new(rules);
    while game.ply() < plies {
        let mut legal = game.legal_moves().to_vec();
        let mut played = false;
        while !legal.is_empty() {
            let mv = legal.swap_remove(rng.random_range(0..legal.len()));
            game.play_unchecked(mv);
            if !game.position().pending_removal() && !game.status().is_over() {
                played = true;
                break;
            }
            game.undo();
        }
        if !played {
            // Stuck: go back a little and try another way.
            for _ in 0..rng.random_range(1..6) {
                game.undo();
            }
        }
    }
    game.moves().collect()
}

/// 160,000 decisions without a capture: the count must not rescan the game each move
/// (that took 33 s through `kvarn moves`); checked against the plain count at the end.
#[test]
fn long_game_without_captures_is_fast() {
    let moves = capture_free_moves(160_000, 3);
    let rules = Rules::new(Variant::Nine)
        .with_repetition(false)
        .with_no_capture_limit(None)
        .unwrap();
    let text: Vec<String> = moves.iter().map(Move::to_string).collect();
    let started = Instant::now();
    let mut game = Game::new(rules);
    game.play_text(&text.join(" ")).unwrap();
    let took = started.elapsed();
    assert_eq!(game.ply(), 160_000);
    assert!(
        took < Duration::from_secs(10),
        "160,000 decisions took {took:?}"
    );
    let mut replay = Game::new(rules);
    let mut history = vec![*replay.position()];
    for &mv in &moves {
        replay.play_unchecked(mv);
        history.push(*replay.position());
    }
    assert_eq!(game.occurrences(), plain_occurrences(&history));
}
