//! Helpers shared by the integration tests.

#![allow(dead_code)]

pub mod plain;

use std::sync::LazyLock;

use plain::{PlainBoard, PlainGame, PlainRules};

use kvarn_game::{Game, Move, Position, Rules, Variant};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Every rule configuration worth testing: each variant, flying on and off where offered,
/// draw rules on, off and with a short limit (so that draws happen in random games).
pub fn rule_sets() -> Vec<Rules> {
    let mut out = Vec::new();
    for v in Variant::ALL {
        let flying: &[bool] = if v.offers_flying() {
            &[true, false]
        } else {
            &[false]
        };
        for &f in flying {
            let base = Rules::new(v).with_flying(f).unwrap();
            out.push(base);
            out.push(
                base.with_repetition(false)
                    .with_no_capture_limit(None)
                    .unwrap(),
            );
            out.push(base.with_no_capture_limit(Some(14)).unwrap());
        }
    }
    out
}

/// A position string, parsed for `rules`, panicking with the parser's message.
pub fn pos(rules: &Rules, s: &str) -> Position {
    Position::from_position_string(rules, s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// A game from a position string.
pub fn game_at(rules: Rules, s: &str) -> Game {
    Game::from_position(rules, pos(&rules, s)).expect("the position was parsed for these rules")
}

/// Legal moves as sorted notation strings.
pub fn legal_set(game: &Game) -> Vec<String> {
    let mut v: Vec<String> = game.legal_moves().iter().map(Move::to_string).collect();
    v.sort();
    v
}

/// A random game played to its end (or `max_plies`), calling `visit` before every move
/// with the game and the move about to be played, and once at the end with `None`.
///
/// Two in five times the mover takes back its previous shift when it can, so that
/// positions repeat and the repetition rule is exercised, not just the rest.
pub fn random_game(
    rules: Rules,
    seed: u64,
    max_plies: usize,
    mut visit: impl FnMut(&Game, Option<Move>),
) -> Game {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut game = Game::new(rules);
    for _ in 0..max_plies {
        let moves = game.legal_moves();
        if moves.is_empty() {
            break;
        }
        let back = game
            .moves()
            .rev()
            .nth(1)
            .and_then(|m| match m {
                Move::Shift { from, to } => Some(Move::Shift { from: to, to: from }),
                _ => None,
            })
            .filter(|m| moves.contains(m));
        let mv = match back {
            Some(m) if rng.random_bool(0.4) => m,
            _ => moves[rng.random_range(0..moves.len())],
        };
        visit(&game, Some(mv));
        game.play(mv).expect("a generated move is legal");
    }
    visit(&game, None);
    game
}

/// A position string built from lists of points: `at(&rules, "a7 d7", "g1", "w 0/0 - 0 40")`
/// puts white men on a7 and d7, a black man on g1, and appends the other fields as given.
pub fn at_string(rules: &Rules, white: &str, black: &str, rest: &str) -> String {
    let board = rules.board();
    let w: Vec<&str> = white.split_whitespace().collect();
    let b: Vec<&str> = black.split_whitespace().collect();
    let first_ring = if board.len() == 24 { 0 } else { 1 };
    let mut s = String::new();
    for ring in first_ring..3u8 {
        if ring > first_ring {
            s.push('/');
        }
        for p in 0..8 {
            let name = kvarn_game::Square::from_ring(ring, p).name();
            s.push(if w.contains(&name) {
                'W'
            } else if b.contains(&name) {
                'B'
            } else {
                '.'
            });
        }
    }
    for name in w.iter().chain(&b) {
        assert!(
            name.parse::<kvarn_game::Square>()
                .is_ok_and(|sq| board.has(sq)),
            "test error: {name} is not on the board"
        );
    }
    format!("{s} {rest}")
}

/// The game at the position [`at_string`] describes.
pub fn at(rules: Rules, white: &str, black: &str, rest: &str) -> Game {
    game_at(rules, &at_string(&rules, white, black, rest))
}

static PLAIN_24: LazyLock<PlainBoard> = LazyLock::new(PlainBoard::twenty_four);
static PLAIN_16: LazyLock<PlainBoard> = LazyLock::new(PlainBoard::sixteen);

/// The plain implementation's game at the start, under the same rules.
pub fn plain_for(rules: &Rules) -> PlainGame {
    let board: &'static PlainBoard = match rules.variant().board_kind() {
        kvarn_game::BoardKind::TwentyFour => &PLAIN_24,
        kvarn_game::BoardKind::Sixteen => &PLAIN_16,
    };
    PlainGame::new(
        board,
        PlainRules {
            men: rules.men() as u32,
            flying: rules.flying(),
            repetition: rules.repetition(),
            no_capture_limit: rules.no_capture_limit().map(u32::from),
        },
    )
}

/// The plain game reached by playing `game`'s moves from the plain start.
pub fn plain_replay(game: &Game) -> PlainGame {
    let mut g = plain_for(game.rules());
    for mv in game.moves() {
        g.play(&mv.to_string());
    }
    g
}

/// The plain implementation's game at `game`'s current position, which it starts from
/// (set-up positions too).
pub fn plain_from_setup(game: &Game) -> PlainGame {
    let rules = game.rules();
    let p = game.position();
    let mut g = plain_for(rules);
    g.men.clear();
    for (c, side) in [
        (kvarn_game::Color::White, 'W'),
        (kvarn_game::Color::Black, 'B'),
    ] {
        for sq in p.men(c) {
            let name: &'static str = g
                .board
                .points
                .iter()
                .copied()
                .find(|n| *n == sq.name())
                .unwrap();
            g.men.push((name, side));
        }
    }
    g.hand_w = p.in_hand(kvarn_game::Color::White) as u32;
    g.hand_b = p.in_hand(kvarn_game::Color::Black) as u32;
    g.to_move = if p.side_to_move() == kvarn_game::Color::White {
        'W'
    } else {
        'B'
    };
    g.must_remove = p.pending_removal();
    g.turns_without_removal = p.no_capture() as u32;
    g.seen = vec![g.describe()];
    g
}
