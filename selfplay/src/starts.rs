//! Random starting positions: a share of the self-play games begins from a position whose
//! men stand on uniformly random points (of the moving phase by default; of the placing
//! phase, or with a removal pending, where asked), so that self-play also visits the
//! positions, endgames above all, that games from the empty board reach rarely, or leave
//! at once where endgame databases adjudicate them. Such games are played to the end:
//! their result is self-play's own, never a database's.

use kvarn_game::{Bitboard, Color, Game, Phase, Position, Rules, Setup, Square};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use kvarn_storage::SettingError;

/// Games started from random positions (`[selfplay.random_starts]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RandomStarts {
    /// Share of the games that start from a random position instead of the empty board.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub share: f64,
    /// Fewest men a side has on the board at a start of the moving phase (at least 3).
    #[schemars(range(min = 3, max = 12))]
    pub min_men: u8,
    /// Most men a side has on the board at a start of the moving phase (at most the
    /// variant's men).
    #[schemars(range(min = 3, max = 12))]
    pub max_men: u8,
    /// The kinds of position a start is drawn from, each start one of them uniformly:
    /// `moving` (no men in hand, `min_men..=max_men` men a side on the board; with three
    /// men and flying on, that is the flying endgame), `placing` (men still in hand: after
    /// 1 to all but one of the game's placements, uniformly, each side with any number of
    /// its placed men still on the board that leaves it three men on the board and in
    /// hand), `removal` (a removal pending: a position of the placing phase, the
    /// placements made including the one that closed the mill, or of the moving phase,
    /// men as `moving`, half each, whose player to move has a mill). Not `flying`.
    pub phases: Vec<Phase>,
}

impl Default for RandomStarts {
    fn default() -> Self {
        RandomStarts {
            share: 0.0,
            min_men: 3,
            max_men: 4,
            phases: vec![Phase::Moving],
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
        kvarn_storage::check_declared(self, "selfplay.random_starts")?;
        SettingError::check(
            self.max_men >= self.min_men,
            "selfplay.random_starts.max_men",
            format!(
                "{} is less than selfplay.random_starts.min_men ({})",
                self.max_men, self.min_men
            ),
        )?;
        SettingError::check(
            !self.phases.is_empty(),
            "selfplay.random_starts.phases",
            "must name at least one of \"moving\", \"placing\", \"removal\"",
        )?;
        SettingError::check(
            !self.phases.contains(&Phase::Flying),
            "selfplay.random_starts.phases",
            "`flying` is no kind of start: moving starts with 3 men fly where flying is on",
        )?;
        SettingError::check(
            (1..self.phases.len()).all(|i| !self.phases[..i].contains(&self.phases[i])),
            "selfplay.random_starts.phases",
            "names a phase twice",
        )
    }

    /// Whether every start is of the moving phase (what endgame databases can value).
    pub fn moving_only(&self) -> bool {
        self.phases == [Phase::Moving]
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

    /// A random start: its phase drawn uniformly from `phases`, then the men counts as
    /// [`RandomStarts::phases`] says, then the men on distinct points drawn uniformly (around a mill
    /// of the player to move where a removal is pending); drawn again where the game is
    /// already over. `None` only when [`DRAWS`] draws all end the game at once.
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
        // A single phase draws nothing, so that moving-phase runs keep their games.
        let phase = match self.phases.as_slice() {
            [one] => *one,
            many => many[rng.random_range(0..many.len())],
        };
        for _ in 0..tries {
            let (counts, side, pending_removal) = self.draw_counts(phase, rules, rng);
            let men = if pending_removal {
                men_with_a_mill(rules, counts.on, side, rng)
            } else {
                men_anywhere(rules, counts.on, rng)
            };
            let setup = Setup {
                men,
                in_hand: counts.in_hand,
                side,
                pending_removal,
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

    /// The men of a start of `phase` (White's, Black's), the player to move, and whether
    /// a removal is pending.
    fn draw_counts(&self, phase: Phase, rules: Rules, rng: &mut impl Rng) -> (Counts, Color, bool) {
        match phase {
            // Refused by `validate`; the draw of a moving start is what flying men get.
            Phase::Moving | Phase::Flying => {
                let counts = self.moving_counts(rng);
                (counts, random_side(rng), false)
            }
            Phase::Placing => {
                let placed = rng.random_range(1..2 * rules.men());
                let next = if placed % 2 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                (placing_counts(rules, placed, [0, 0], rng), next, false)
            }
            Phase::Removal if rng.random_bool(0.5) => {
                // The player who placed last closed the mill, so placed three men or more.
                let placed = rng.random_range(5..=2 * rules.men());
                let (last, least) = if placed % 2 == 1 {
                    (Color::White, [3, 0])
                } else {
                    (Color::Black, [0, 3])
                };
                (placing_counts(rules, placed, least, rng), last, true)
            }
            Phase::Removal => (self.moving_counts(rng), random_side(rng), true),
        }
    }

    /// Men on the board for the moving phase: each side's drawn from `min_men..=max_men`.
    fn moving_counts(&self, rng: &mut impl Rng) -> Counts {
        let white = usize::from(rng.random_range(self.min_men..=self.max_men));
        let black = usize::from(rng.random_range(self.min_men..=self.max_men));
        Counts {
            on: [white, black],
            in_hand: [0, 0],
        }
    }
}

/// How many men each side (White, Black) has on the board and in hand.
struct Counts {
    on: [usize; 2],
    in_hand: [u8; 2],
}

/// White or Black, evenly.
fn random_side(rng: &mut impl Rng) -> Color {
    if rng.random_bool(0.5) {
        Color::White
    } else {
        Color::Black
    }
}

/// The men after `placed` placements (White placed first): each side's hand, and on the
/// board any number of its placed men, at least `least` and enough to leave it three on
/// the board and in hand.
fn placing_counts(rules: Rules, placed: u8, least: [u8; 2], rng: &mut impl Rng) -> Counts {
    let men = rules.men();
    let placed_by = [placed.div_ceil(2), placed / 2];
    let in_hand = placed_by.map(|p| men - p);
    let on = [0, 1].map(|c| {
        let fewest = 3u8
            .saturating_sub(in_hand[c])
            .max(least[c])
            .min(placed_by[c]);
        usize::from(rng.random_range(fewest..=placed_by[c]))
    });
    Counts { on, in_hand }
}

/// `on` men (White's, Black's) on distinct points drawn uniformly.
fn men_anywhere(rules: Rules, on: [usize; 2], rng: &mut impl Rng) -> [Bitboard; 2] {
    let points: Vec<_> = rules.board().squares().collect();
    men_among(&points, on, rng)
}

/// `on` men (White's, Black's) on distinct points of `points` drawn uniformly.
fn men_among(points: &[Square], on: [usize; 2], rng: &mut impl Rng) -> [Bitboard; 2] {
    let chosen: Vec<_> = rand::seq::index::sample(rng, points.len(), on[0] + on[1])
        .into_iter()
        .map(|i| points[i])
        .collect();
    let (w, b) = chosen.split_at(on[0]);
    [w.iter().copied().collect(), b.iter().copied().collect()]
}

/// `on` men (White's, Black's) where `mover` has a mill drawn uniformly and the rest
/// stand on distinct points drawn uniformly: a position where `mover` may remove a man.
/// `mover` needs three men; with fewer, the men fall anywhere (and the setup is refused).
fn men_with_a_mill(
    rules: Rules,
    on: [usize; 2],
    mover: Color,
    rng: &mut impl Rng,
) -> [Bitboard; 2] {
    let board = rules.board();
    let m = mover.index();
    if on[m] < 3 {
        return men_anywhere(rules, on, rng);
    }
    let mill = board.mills()[rng.random_range(0..board.mills().len())];
    let free: Vec<_> = board.squares().filter(|&sq| !mill.contains(sq)).collect();
    let mut rest = on;
    rest[m] -= 3;
    let mut men = men_among(&free, rest, rng);
    men[m] |= mill;
    men
}

#[cfg(test)]
mod tests {
    use super::*;
    use kvarn_game::Variant;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    const EXPECTED_SEED_11: &str = "..BW...B/.W....W./..B.BW.. w 0/0 - 0 0";

    fn starts(min_men: u8, max_men: u8) -> RandomStarts {
        RandomStarts {
            share: 0.5,
            min_men,
            max_men,
            ..RandomStarts::default()
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
    fn starts_of_every_phase_have_hands_that_play_from_the_start_gives() {
        let rules = Rules::new(Variant::Six);
        let mut s = starts(3, 6);
        s.phases = vec![Phase::Moving, Phase::Placing, Phase::Removal];
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let mut kinds = std::collections::BTreeMap::new();
        for _ in 0..900 {
            let game = s.draw(rules, &mut rng).unwrap();
            let pos = game.position();
            assert!(!game.status().is_over());
            let [w, b] = [Color::White, Color::Black].map(|c| pos.in_hand(c));
            let white = pos.side_to_move() == Color::White;
            let kind = match (pos.pending_removal(), pos.is_placing() || w + b > 0) {
                (false, false) => "moving",
                (false, true) => "placing",
                (true, false) => "removal, moving",
                (true, true) => "removal, placing",
            };
            *kinds.entry(kind).or_insert(0) += 1;
            if pos.pending_removal() {
                let mover = pos.men(pos.side_to_move());
                assert!(rules.board().men_in_mills(mover).any());
            }
            if w + b == 0 {
                // The moving phase: any player to move.
            } else if pos.pending_removal() {
                // Whoever removes placed last.
                assert_eq!(b, if white { w + 1 } else { w }, "{pos:?}");
            } else {
                // White places first: its turn when the hands are equal.
                assert_eq!(b, if white { w } else { w + 1 }, "{pos:?}");
            }
            if kind == "moving" || kind == "removal, moving" {
                let men = [Color::White, Color::Black].map(|c| pos.men(c).count());
                assert!(men.iter().all(|m| (3..=6).contains(m)), "{men:?}");
            }
        }
        // A phase each third of the starts; a removal of each phase each half of those.
        assert_eq!(kinds.len(), 4, "{kinds:?}");
        assert!(kinds["moving"] > 250 && kinds["placing"] > 250, "{kinds:?}");
        assert!(kinds["removal, moving"] > 100, "{kinds:?}");
        assert!(kinds["removal, placing"] > 100, "{kinds:?}");
    }

    #[test]
    fn moving_starts_draw_as_before_phases_existed() {
        // The first start of seed 11 with the default phases, as drawn before a start
        // could be of another phase: runs of the moving phase keep their games.
        let rules = Rules::new(Variant::Nine);
        let game = starts(3, 5)
            .draw(rules, &mut Pcg64Mcg::seed_from_u64(11))
            .unwrap();
        assert_eq!(game.position().to_position_string(&rules), EXPECTED_SEED_11);
    }

    #[test]
    fn settings_out_of_range_are_named() {
        let bad = |s: RandomStarts| s.validate().unwrap_err().key;
        assert_eq!(bad(starts(2, 4)), "selfplay.random_starts.min_men");
        assert_eq!(bad(starts(5, 4)), "selfplay.random_starts.max_men");
        let mut s = starts(3, 4);
        s.share = 1.5;
        assert_eq!(bad(s), "selfplay.random_starts.share");
        let mut s = starts(3, 4);
        s.phases.clear();
        assert_eq!(bad(s), "selfplay.random_starts.phases");
        let mut s = starts(3, 4);
        s.phases = vec![Phase::Placing, Phase::Placing];
        assert_eq!(bad(s), "selfplay.random_starts.phases");
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
