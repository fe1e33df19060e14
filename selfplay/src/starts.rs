//! Random starting positions: a share of the self-play games begins from a position of the
//! moving phase whose men stand on uniformly random points, so that self-play also visits
//! the positions, endgames above all, that games from the empty board reach rarely, or
//! leave at once where endgame databases adjudicate them. Such games are played to the
//! end: their result is self-play's own, never a database's.

use kvarn_game::{Bitboard, Color, Game, Position, Rules, Setup};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::config::SettingError;

/// Games started from random positions of the moving phase (`[selfplay.random_starts]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RandomStarts {
    /// Share of the games that start from a random position instead of the empty board.
    pub share: f64,
    /// Fewest men a side has on the board at the start (at least 3).
    pub min_men: u8,
    /// Most men a side has on the board at the start (at most the variant's men).
    pub max_men: u8,
}

impl Default for RandomStarts {
    fn default() -> Self {
        RandomStarts {
            share: 0.0,
            min_men: 3,
            max_men: 4,
        }
    }
}

/// Draws of [`RandomStarts::draw`] before it gives up: a position where the player to
/// move is blocked is drawn again, and that is rare for any men counts allowed.
pub(crate) const DRAWS: usize = 1000;

impl RandomStarts {
    /// Checks the settings that do not depend on the variant.
    ///
    /// # Errors
    /// The first setting out of range.
    pub fn validate(&self) -> Result<(), SettingError> {
        SettingError::check(
            (0.0..=1.0).contains(&self.share),
            "selfplay.random_starts.share",
            "must be in 0..=1",
        )?;
        SettingError::check_range("selfplay.random_starts.min_men", self.min_men, 3..=12)?;
        SettingError::check_range(
            "selfplay.random_starts.max_men",
            self.max_men,
            self.min_men..=12,
        )
    }

    /// Checks that the variant has as many men as the starts place.
    ///
    /// # Errors
    /// `max_men` above the variant's men.
    pub fn validate_for(&self, rules: &Rules) -> Result<(), SettingError> {
        SettingError::check(
            self.max_men <= rules.men(),
            "selfplay.random_starts.max_men",
            format!(
                "{} is more than the {} men of {}",
                self.max_men,
                rules.men(),
                rules.variant()
            ),
        )
    }

    /// A random start: each side's men on the board drawn uniformly from
    /// `min_men..=max_men`, the player to move uniformly, then the men on distinct points
    /// drawn uniformly; drawn again where the game is already over. `None` only when
    /// [`DRAWS`] draws all end the game at once.
    pub fn draw(&self, rules: Rules, rng: &mut impl Rng) -> Option<Game> {
        self.draw_where(rules, rng, DRAWS, |_| true)
    }

    /// [`RandomStarts::draw`], drawn again also where `accept` refuses the game, at most
    /// `tries` draws in all. The generator advances exactly as `draw`'s where `accept`
    /// takes every game, so that a run without a condition keeps its games.
    pub fn draw_where(
        &self,
        rules: Rules,
        rng: &mut impl Rng,
        tries: usize,
        accept: impl Fn(&Game) -> bool,
    ) -> Option<Game> {
        let points: Vec<_> = rules.board().squares().collect();
        for _ in 0..tries {
            let white = usize::from(rng.random_range(self.min_men..=self.max_men));
            let black = usize::from(rng.random_range(self.min_men..=self.max_men));
            let side = if rng.random_bool(0.5) {
                Color::White
            } else {
                Color::Black
            };
            let chosen: Vec<_> = rand::seq::index::sample(rng, points.len(), white + black)
                .into_iter()
                .map(|i| points[i])
                .collect();
            let (w, b) = chosen.split_at(white);
            let men: [Bitboard; 2] = [w.iter().copied().collect(), b.iter().copied().collect()];
            let setup = Setup {
                men,
                in_hand: [0, 0],
                side,
                pending_removal: false,
                no_capture: 0,
                turns: 0,
            };
            let Ok(pos) = Position::from_setup(&rules, &setup) else {
                continue;
            };
            match Game::from_position(rules, pos) {
                Ok(game) if !game.status().is_over() && accept(&game) => return Some(game),
                _ => continue,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kvarn_game::Variant;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn starts(min_men: u8, max_men: u8) -> RandomStarts {
        RandomStarts {
            share: 0.5,
            min_men,
            max_men,
        }
    }

    #[test]
    fn a_start_has_the_men_asked_for_all_on_the_board_and_goes_on() {
        let rules = Rules::new(Variant::Nine);
        let s = starts(3, 5);
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        let mut counts = std::collections::BTreeSet::new();
        let mut sides = std::collections::BTreeSet::new();
        for _ in 0..400 {
            let game = s.draw(rules, &mut rng).unwrap();
            let pos = game.position();
            assert!(!game.status().is_over());
            assert_eq!(
                (pos.in_hand(Color::White), pos.in_hand(Color::Black)),
                (0, 0)
            );
            assert!(!pos.pending_removal());
            let men = [Color::White, Color::Black].map(|c| pos.men(c).count());
            assert!(men.iter().all(|m| (3..=5).contains(m)), "{men:?}");
            counts.insert(men);
            sides.insert(pos.side_to_move() == Color::White);
        }
        assert_eq!(counts.len(), 9, "every pair of men counts turns up");
        assert_eq!(sides.len(), 2);
    }

    #[test]
    fn the_same_generator_gives_the_same_start() {
        let rules = Rules::new(Variant::Six);
        let s = starts(3, 6);
        let draw = |seed| {
            *s.draw(rules, &mut Pcg64Mcg::seed_from_u64(seed))
                .unwrap()
                .position()
        };
        assert_eq!(draw(1), draw(1));
        assert_ne!(draw(1), draw(2));
    }

    #[test]
    fn settings_out_of_range_are_named() {
        let bad = |s: RandomStarts| s.validate().unwrap_err().key;
        assert_eq!(bad(starts(2, 4)), "selfplay.random_starts.min_men");
        assert_eq!(bad(starts(5, 4)), "selfplay.random_starts.max_men");
        let mut s = starts(3, 4);
        s.share = 1.5;
        assert_eq!(bad(s), "selfplay.random_starts.share");
        let e = starts(3, 7)
            .validate_for(&Rules::new(Variant::Six))
            .unwrap_err();
        assert_eq!(e.key, "selfplay.random_starts.max_men");
        assert!(e.reason.contains("6 men"), "{}", e.reason);
        assert!(
            starts(3, 9)
                .validate_for(&Rules::new(Variant::Nine))
                .is_ok()
        );
    }
}
