//! Elo differences from match results, with a 95% confidence interval.
//!
//! The score is `s = (wins + draws / 2) / games`; the difference is
//! `-400 log10(1 / s - 1)`. The interval maps `s ± 1.96 σ` through the same formula,
//! where `σ² = Σ (result − s)² / games²` over the games (results 1, ½, 0): the usual
//! normal approximation, which counts draws as the information they are.

use serde::{Deserialize, Serialize};

/// Wins, draws and losses of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Tally {
    /// Counts one game by its result from this side's view: 1 won, 0 drawn, -1 lost.
    pub fn record(&mut self, result: i8) {
        match result.signum() {
            1 => self.wins += 1,
            0 => self.draws += 1,
            _ => self.losses += 1,
        }
    }

    /// Number of games.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points per game, 0..1.
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / n as f64
    }

    /// Elo difference for the score (infinite for a clean sweep).
    pub fn elo(&self) -> f64 {
        elo_of_score(self.score())
    }

    /// The 95% confidence interval of the Elo difference.
    pub fn elo_interval(&self) -> (f64, f64) {
        let n = self.games() as f64;
        if n == 0.0 {
            return (f64::NEG_INFINITY, f64::INFINITY);
        }
        let s = self.score();
        let mut var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        if var == 0.0 {
            // Every game had the same result: the spread of the results says nothing, so
            // take that of a win-or-loss game at a score half a game from the edge.
            let c = s.clamp(0.5 / n, 1.0 - 0.5 / n);
            var = c * (1.0 - c);
        }
        let sigma = (var / n).sqrt();
        (
            elo_of_score(s - 1.96 * sigma),
            elo_of_score(s + 1.96 * sigma),
        )
    }
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
    }
}

/// The Elo difference that predicts score `s` (0..1).
pub fn elo_of_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_counted_and_added() {
        let mut t = Tally::default();
        for r in [1, 0, 0, -1, 1, 1] {
            t.record(r);
        }
        let mut sum = t;
        sum += t;
        assert_eq!((t.wins, t.draws, t.losses), (3, 2, 1));
        assert_eq!((sum.wins, sum.draws, sum.losses), (6, 4, 2));
        assert_eq!(sum.score(), t.score());
    }

    #[test]
    fn textbook_figures() {
        // 75% is +190.85 Elo; 50% is 0.
        let t = Tally {
            wins: 60,
            draws: 30,
            losses: 10,
        };
        assert!((t.score() - 0.75).abs() < 1e-12);
        assert!((t.elo() - 190.848_501_887_864_9).abs() < 1e-6);
        // σ² per game = (60·0.0625 + 30·0.0625 + 10·0.5625)/100 = 0.1125; σ = sqrt(0.1125/100).
        let sigma = (0.1125f64 / 100.0).sqrt();
        let (lo, hi) = t.elo_interval();
        assert!((lo - elo_of_score(0.75 - 1.96 * sigma)).abs() < 1e-9);
        assert!((hi - elo_of_score(0.75 + 1.96 * sigma)).abs() < 1e-9);
        assert!((lo - 134.36).abs() < 0.01, "{lo}");
        assert!((hi - 258.45).abs() < 0.01, "{hi}");
        let even = Tally {
            wins: 10,
            draws: 0,
            losses: 10,
        };
        assert_eq!(even.elo(), 0.0);
        let sweep = Tally {
            wins: 10,
            draws: 0,
            losses: 0,
        };
        assert_eq!(sweep.elo(), f64::INFINITY);
        // A sweep still has a finite lower bound: s = 1 is taken as 0.95 for the spread.
        let (lo, hi) = sweep.elo_interval();
        let sigma = (0.95f64 * 0.05 / 10.0).sqrt();
        assert!((lo - elo_of_score(1.0 - 1.96 * sigma)).abs() < 1e-9, "{lo}");
        assert_eq!(hi, f64::INFINITY);
        let draws = Tally {
            wins: 0,
            draws: 6,
            losses: 0,
        };
        let (lo, hi) = draws.elo_interval();
        assert!(lo < -100.0 && hi > 100.0, "{lo} {hi}");
    }
}
