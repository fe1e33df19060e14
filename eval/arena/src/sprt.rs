//! Sequential probability ratio tests over game pairs, as chess engine testing does them
//! (fishtest).
//!
//! A match is played in pairs: the same opening twice, colours swapped. Each pair scores
//! 0, ½, 1, 1½ or 2 points for the first agent; the counts of the five are the
//! *pentanomial* frequencies. Pairs, not games, are the independent samples: the opening's
//! bias cancels within a pair, and the variance of the pair scores is what the test uses.
//!
//! The test is the generalised SPRT of fishtest with logistic-Elo bounds: H0 "the first
//! agent is `elo0` stronger", H1 "it is `elo1` stronger", with `s = 1 / (1 + 10^(-elo/400))`
//! the expected score per game. [`llr`] is fishtest's `LLR_logistic(elo0, elo1, results)`
//! (`server/fishtest/stats/LLRcalc.py`), the exact maximum-likelihood form, not its
//! `N/2 (…)` approximation (`LLR_alt2`, here [`llr_approx`]):
//!
//! - zero counts are replaced by 0.001 (`regularize`) and the pair scores mapped to
//!   `a = 0, ¼, ½, ¾, 1` with frequencies `p_i = n_i / N` (`results_to_pdf`);
//! - for `s` in `{s0, s1}`, the distribution over the same five values closest to the
//!   observed one with expectation `s` is `q_i = p_i / (1 + x (a_i − s))`, where `x` solves
//!   `Σ p_i (a_i − s) / (1 + x (a_i − s)) = 0` (`MLE_expected`, `secular`; solved here by
//!   bisection, which the function's monotonicity allows);
//! - `LLR = N Σ p_i ln(q1_i / q0_i)`.
//!
//! The test stops when the LLR leaves `(ln(β / (1 − α)), ln((1 − β) / α))` (fishtest's
//! `sprt.py` bounds, without its overshoot correction): below, H0 is accepted ("rejected"
//! in fishtest's words), above, H1.
//!
//! The Elo estimate and its 95% interval are fishtest's `get_elo` in
//! `server/fishtest/stats/stat_util.py` on the pentanomial counts: the mean score per game
//! `μ`, its standard error from the variance of the pair scores, and
//! `elo(μ ± 1.96 σ / √games)` with scores clamped to `[0.001, 0.999]`, so that a sweep is
//! reported as about +1200 rather than infinity.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::ArenaError;

/// The 0.975 quantile of the standard normal distribution.
const Z975: f64 = 1.959_963_984_540_054;

/// What fishtest puts in place of a zero count.
const REGULARIZER: f64 = 1e-3;

/// The hypotheses and error rates of a test.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtParams {
    /// Elo difference of H0 (logistic Elo, first agent minus second).
    pub elo0: f64,
    /// Elo difference of H1, above `elo0`.
    pub elo1: f64,
    /// The probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The probability of accepting H0 when H1 holds.
    pub beta: f64,
}

/// The largest Elo difference a test's bounds may name: beyond it the expected score is
/// so near 0 or 1 that the likelihoods overflow and the test never decides.
pub const MAX_ELO: f64 = 1000.0;

impl SprtParams {
    /// A test of `elo0` against `elo1` at error rates `alpha` and `beta`.
    ///
    /// # Errors
    /// When `elo0 >= elo1`, a bound is not finite, or an error rate is outside (0, 1) or
    /// their sum is not below 1.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<SprtParams, ArenaError> {
        let p = SprtParams {
            elo0,
            elo1,
            alpha,
            beta,
        };
        p.validate()?;
        Ok(p)
    }

    /// Checks the parameters (fields may be set directly, or read from a file).
    ///
    /// # Errors
    /// As [`SprtParams::new`].
    pub fn validate(&self) -> Result<(), ArenaError> {
        let fail = |reason: String| Err(ArenaError::Sprt { reason });
        if !(self.elo0.is_finite() && self.elo1.is_finite()) {
            return fail(format!(
                "the Elo bounds {} and {} must be finite",
                self.elo0, self.elo1
            ));
        }
        if self.elo0.abs() > MAX_ELO || self.elo1.abs() > MAX_ELO {
            return fail(format!(
                "the Elo bounds {} and {} must lie within ±{MAX_ELO} (an expected score of \
                 99.7%): the test cannot tell scores nearer 0 or 1 apart",
                self.elo0, self.elo1
            ));
        }
        if self.elo0 >= self.elo1 {
            return fail(format!(
                "elo0 ({}) must be below elo1 ({})",
                self.elo0, self.elo1
            ));
        }
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v > 0.0 && v < 1.0) {
                return fail(format!("{name} ({v}) must be between 0 and 1"));
            }
        }
        if self.alpha + self.beta >= 1.0 {
            return fail(format!(
                "alpha + beta ({}) must be below 1",
                self.alpha + self.beta
            ));
        }
        Ok(())
    }

    /// The LLR below which H0 is accepted: `ln(β / (1 − α))`.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The LLR above which H1 is accepted: `ln((1 − β) / α)`.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The verdict for a log-likelihood ratio.
    pub fn verdict(&self, llr: f64) -> Verdict {
        if llr < self.lower_bound() {
            Verdict::AcceptH0
        } else if llr > self.upper_bound() {
            Verdict::AcceptH1
        } else {
            Verdict::Continue
        }
    }
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Undecided: play more pairs.
    Continue,
    /// H0 accepted (fishtest's "rejected"): the first agent is not `elo1` stronger.
    AcceptH0,
    /// H1 accepted (fishtest's "accepted"): the first agent is not only `elo0` stronger.
    AcceptH1,
}

impl Verdict {
    /// Whether the test has decided.
    pub fn is_decided(self) -> bool {
        self != Verdict::Continue
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Continue => "undecided",
            Verdict::AcceptH0 => "H0 accepted",
            Verdict::AcceptH1 => "H1 accepted",
        })
    }
}

/// Game pairs counted by the first agent's score over the pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pentanomial {
    /// Pairs that scored 0, ½, 1, 1½ and 2 points (index: half-points).
    pub counts: [u32; 5],
}

impl Pentanomial {
    /// Counts of pairs that scored 0, ½, 1, 1½ and 2 points.
    pub fn new(counts: [u32; 5]) -> Pentanomial {
        Pentanomial { counts }
    }

    /// Counts a pair whose games gave the first agent `first` and `second` half-points
    /// each (0 a loss, 1 a draw, 2 a win); values above 2 are read as 2.
    pub fn add_pair(&mut self, first: u8, second: u8) {
        let half_points = usize::from(first.min(2) + second.min(2));
        self.counts[half_points] += 1;
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Number of games (two per pair).
    pub fn games(&self) -> u32 {
        2 * self.pairs()
    }

    /// The first agent's mean score per game, 0..1 (½ when no pair was played).
    pub fn score(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.5;
        }
        let half_points: u32 = self.counts.iter().zip(0..).map(|(c, i)| c * i).sum();
        f64::from(half_points) / (4.0 * f64::from(n))
    }

    /// Fishtest's log-likelihood ratio of `elo1` against `elo0` ([`llr`]).
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        llr(&self.counts, elo0, elo1)
    }

    /// The Elo difference and its 95% interval (fishtest's `get_elo`).
    pub fn elo(&self) -> EloEstimate {
        let c = regularized(&self.counts);
        let n: f64 = c.iter().sum();
        let games = 2.0 * n;
        let mu = c
            .iter()
            .zip(0..)
            .map(|(c, i)| c * f64::from(i))
            .sum::<f64>()
            / (2.0 * games);
        let var = c
            .iter()
            .zip(0..)
            .map(|(c, i)| c * (f64::from(i) / 2.0 - 2.0 * mu).powi(2))
            .sum::<f64>()
            / games;
        let half_width = Z975 * var.sqrt() / games.sqrt();
        EloEstimate {
            elo: clamped_elo(mu),
            lower: clamped_elo(mu - half_width),
            upper: clamped_elo(mu + half_width),
        }
    }

    /// Where a test with `params` stands after these pairs.
    pub fn status(&self, params: &SprtParams) -> SprtStatus {
        let llr = if self.pairs() == 0 {
            0.0
        } else {
            self.llr(params.elo0, params.elo1)
        };
        SprtStatus {
            counts: *self,
            llr,
            lower_bound: params.lower_bound(),
            upper_bound: params.upper_bound(),
            verdict: params.verdict(llr),
            elo: self.elo(),
        }
    }
}

impl fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e] = self.counts;
        write!(f, "[{a}, {b}, {c}, {d}, {e}]")
    }
}

/// An Elo difference with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// The estimate.
    pub elo: f64,
    /// Lower end of the interval.
    pub lower: f64,
    /// Upper end of the interval.
    pub upper: f64,
}

impl fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:+.1} (95% {:+.1} to {:+.1})",
            self.elo, self.lower, self.upper
        )
    }
}

/// A test's state after some pairs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtStatus {
    /// The pairs so far.
    pub counts: Pentanomial,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// The LLR at which H0 is accepted.
    pub lower_bound: f64,
    /// The LLR at which H1 is accepted.
    pub upper_bound: f64,
    /// The decision.
    pub verdict: Verdict,
    /// The Elo difference so far.
    pub elo: EloEstimate,
}

impl fmt::Display for SprtStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "pairs {} LLR {:.2} ({:.2}, {:.2}) pentanomial {} Elo {}",
            self.counts.pairs(),
            self.llr,
            self.lower_bound,
            self.upper_bound,
            self.counts,
            self.elo
        )
    }
}

/// The expected score per game of a logistic Elo difference (fishtest's `L_`).
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of a score, clamped to `[0.001, 0.999]` (fishtest's `elo`).
fn clamped_elo(score: f64) -> f64 {
    let s = score.clamp(1e-3, 1.0 - 1e-3);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The counts with zeros replaced by fishtest's 0.001.
fn regularized(counts: &[u32; 5]) -> [f64; 5] {
    counts.map(|c| if c == 0 { REGULARIZER } else { f64::from(c) })
}

/// The pair scores `a_i` (per game, 0..1) and frequencies `p_i`, and the number of pairs
/// (fishtest's `results_to_pdf`).
fn pdf(counts: &[u32; 5]) -> (f64, [(f64, f64); 5]) {
    let c = regularized(counts);
    let n: f64 = c.iter().sum();
    let mut out = [(0.0, 0.0); 5];
    for (i, (o, c)) in out.iter_mut().zip(c).enumerate() {
        *o = (i as f64 / 4.0, c / n);
    }
    (n, out)
}

/// `x` with `Σ p_i d_i / (1 + x d_i) = 0`, where `d_i = a_i − s` (fishtest's `secular`).
/// The sum falls strictly with `x` on `(−1 / max d, −1 / min d)`, from +∞ to −∞.
fn secular(pdf: &[(f64, f64); 5], s: f64) -> f64 {
    let f = |x: f64| -> f64 {
        pdf.iter()
            .map(|&(a, p)| p * (a - s) / (1.0 + x * (a - s)))
            .sum()
    };
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    for _ in 0..2_000 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The generalised log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`) for pentanomial
/// counts: fishtest's `LLR_logistic(elo0, elo1, results)` (`server/fishtest/stats/LLRcalc.py`),
/// the exact maximum-likelihood form (see the module's documentation). No pairs give a
/// ratio near 0 (fishtest's regularisation of empty counts).
pub fn llr(counts: &[u32; 5], elo0: f64, elo1: f64) -> f64 {
    let (n, pdf) = pdf(counts);
    let (s0, s1) = (expected_score(elo0), expected_score(elo1));
    let (x0, x1) = (secular(&pdf, s0), secular(&pdf, s1));
    n * pdf
        .iter()
        .map(|&(a, p)| p * ((1.0 + x0 * (a - s0)).ln() - (1.0 + x1 * (a - s1)).ln()))
        .sum::<f64>()
}

/// Fishtest's approximation of [`llr`], `LLR_alt2`:
/// `N (s1 − s0) (2μ − s0 − s1) / (2 σ²)` with `μ` and `σ²` the mean and variance of the pair
/// scores (per game). Close to the exact ratio while the counts are many and the score
/// near the bounds; far from it for lopsided results.
pub fn llr_approx(counts: &[u32; 5], elo0: f64, elo1: f64) -> f64 {
    let (n, pdf) = pdf(counts);
    let (s0, s1) = (expected_score(elo0), expected_score(elo1));
    let mu: f64 = pdf.iter().map(|&(a, p)| a * p).sum();
    let var: f64 = pdf.iter().map(|&(a, p)| p * (a - mu).powi(2)).sum();
    n * (s1 - s0) * (2.0 * mu - s0 - s1) / var / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_multiplier_solves_the_secular_equation() {
        let (_, pdf) = pdf(&[3, 10, 25, 14, 8]);
        for s in [0.3, 0.5, 0.514, 0.9] {
            let x = secular(&pdf, s);
            let q: Vec<f64> = pdf.iter().map(|&(a, p)| p / (1.0 + x * (a - s))).collect();
            let total: f64 = q.iter().sum();
            let mean: f64 = q.iter().zip(&pdf).map(|(q, &(a, _))| q * a).sum();
            assert!((total - 1.0).abs() < 1e-9, "{total}");
            assert!((mean - s).abs() < 1e-9, "{mean} {s}");
        }
    }

    #[test]
    fn bounds_and_verdicts() {
        let p = SprtParams::new(0.0, 10.0, 0.05, 0.05).unwrap();
        assert!((p.lower_bound() + 2.944_438_979).abs() < 1e-8);
        assert!((p.upper_bound() - 2.944_438_979).abs() < 1e-8);
        assert_eq!(p.verdict(3.0), Verdict::AcceptH1);
        assert_eq!(p.verdict(-3.0), Verdict::AcceptH0);
        assert_eq!(p.verdict(0.0), Verdict::Continue);
        assert!(SprtParams::new(10.0, 0.0, 0.05, 0.05).is_err());
        assert!(SprtParams::new(0.0, 10.0, 0.0, 0.05).is_err());
        assert!(SprtParams::new(0.0, 10.0, 0.6, 0.5).is_err());
    }
}
