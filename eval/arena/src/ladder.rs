//! One Elo scale for many players, fitted by maximum likelihood to the results of the
//! games they played against each other, and the schedule that says which pairs play.
//!
//! # The model
//!
//! Bradley–Terry on the logistic Elo curve: player `i` scores against player `j` with
//! expectation `p(i, j) = 1 / (1 + 10^((r_j − r_i) / 400))`. A draw counts as half a win
//! and half a loss, so a pair's results enter the likelihood only through the points
//! `s_ij = wins + draws / 2` out of `n_ij` games:
//!
//! ```text
//! log L(r) = Σ_{i<j} s_ij ln p(i, j) + (n_ij − s_ij) ln (1 − p(i, j))
//! ```
//!
//! One player, the anchor, is held at 0 (the likelihood only sees differences). The fit
//! is Newton's method on this concave function, with the step halved until the likelihood
//! does not fall; it starts with every rating at 0.
//!
//! # The prior
//!
//! A player that won (or lost) every game has no finite maximum. So that the fit always
//! stays finite, every player is given [`FitOptions::prior_draws`] virtual draws
//! (default 1) against the anchor. Then every player has scored against the anchor and
//! the anchor against every player, which is enough for a finite maximum whenever the
//! games link every player to the anchor. The virtual draw pulls each rating toward the
//! anchor's by the weight of one game: a player known only from 20 wins in 20 games
//! against the anchor is rated at the score 20.5 of 21 (+645 Elo) rather than infinitely
//! high, and a player known from a few hundred games is moved by a few Elo at most. A
//! virtual draw per pair that played (BayesElo's choice) was tried and pulls much harder
//! on a ladder where models sweep a weak baseline: every sweep is drawn in toward 0.
//! With `prior_draws = 0` the fit is the plain maximum-likelihood one and fails on a
//! sweep.
//!
//! # Intervals
//!
//! The 95% interval of each rating is `r ± 1.96 σ`, where `σ²` is the diagonal of the
//! inverse observed Fisher information (minus the Hessian of `log L` at the optimum, the
//! virtual draws included), with the anchor held fixed: intervals are of the difference
//! to the anchor. Counting a draw as half a win and half a loss gives each game the
//! variance of a win-or-loss game, so with many draws the intervals are on the wide side.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use kvarn_game::Rules;
use kvarn_game::seeds::derive;
use thiserror::Error;

use crate::agent::AgentFactory;
use crate::elo::Tally;
use crate::error::ArenaError;
use crate::matches::{GameRecord, MatchConfig, run_match};

/// Elo points per natural-log unit of the odds: `400 / ln 10`.
pub const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// The results of player `a` against player `b`, from `a`'s point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// The first player's index.
    pub a: usize,
    /// The second player's index.
    pub b: usize,
    /// Wins, draws and losses of `a` against `b`.
    pub tally: Tally,
}

/// How the scale is fitted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitOptions {
    /// The player held at Elo 0.
    pub anchor: usize,
    /// Virtual draws of every player against the anchor (see the module's documentation).
    pub prior_draws: f64,
}

impl Default for FitOptions {
    fn default() -> FitOptions {
        FitOptions {
            anchor: 0,
            prior_draws: 1.0,
        }
    }
}

/// One player's place on the scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// Elo relative to the anchor.
    pub elo: f64,
    /// Standard error of `elo` (0 for the anchor).
    pub std_error: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
    /// Games played (virtual draws not counted).
    pub games: u32,
    /// Points per game over those games, 0..1.
    pub score: f64,
}

/// A fitted scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Ladder {
    /// One rating per player, in the players' order.
    pub ratings: Vec<Rating>,
    /// The player held at 0.
    pub anchor: usize,
    /// `log L` at the optimum (virtual draws included).
    pub log_likelihood: f64,
    /// Newton iterations taken.
    pub iterations: usize,
}

/// Why a scale cannot be fitted.
#[derive(Debug, Error, PartialEq)]
pub enum FitError {
    /// No players.
    #[error("no players to rate")]
    NoPlayers,
    /// A pairing names a player that does not exist, or a player against itself.
    #[error("pairing {a} vs {b} does not name two different players of {players}")]
    BadPairing {
        /// First index.
        a: usize,
        /// Second index.
        b: usize,
        /// Number of players.
        players: usize,
    },
    /// The anchor is not one of the players.
    #[error("anchor {anchor} is not one of the {players} players")]
    BadAnchor {
        /// The anchor asked for.
        anchor: usize,
        /// Number of players.
        players: usize,
    },
    /// Some players are not linked to the anchor by any chain of games.
    #[error("players {0:?} are not linked to the anchor by any chain of games")]
    Disconnected(Vec<usize>),
    /// No finite maximum (a sweep with no prior) or a prior that is not a count.
    #[error(
        "the fit did not converge: {0} (a player that won or lost every game needs prior draws)"
    )]
    NoConvergence(String),
}

/// Points and games between every two players (virtual draws included once added).
struct Counts {
    /// `points[i][j]`: points of `i` against `j`.
    points: Vec<Vec<f64>>,
    /// `games[i][j] = games[j][i]`.
    games: Vec<Vec<f64>>,
}

impl Counts {
    fn new(players: usize, results: &[Pairing]) -> Result<Counts, FitError> {
        let mut points = vec![vec![0.0; players]; players];
        let mut games = vec![vec![0.0; players]; players];
        for r in results {
            if r.a >= players || r.b >= players || r.a == r.b {
                return Err(FitError::BadPairing {
                    a: r.a,
                    b: r.b,
                    players,
                });
            }
            let (n, s) = (f64::from(r.tally.games()), r.tally.score());
            points[r.a][r.b] += s * n;
            points[r.b][r.a] += (1.0 - s) * n;
            games[r.a][r.b] += n;
            games[r.b][r.a] += n;
        }
        Ok(Counts { points, games })
    }

    /// Adds `draws` virtual draws between `anchor` and every other player.
    fn add_prior(&mut self, anchor: usize, draws: f64) {
        for i in (0..self.len()).filter(|&i| i != anchor) {
            self.points[i][anchor] += draws / 2.0;
            self.points[anchor][i] += draws / 2.0;
            self.games[i][anchor] += draws;
            self.games[anchor][i] += draws;
        }
    }

    fn len(&self) -> usize {
        self.games.len()
    }

    /// `log L` at ratings `t` (natural units).
    fn log_likelihood(&self, t: &[f64]) -> f64 {
        let mut ll = 0.0;
        for i in 0..self.len() {
            for j in 0..self.len() {
                if self.points[i][j] > 0.0 {
                    ll += self.points[i][j] * log_sigmoid(t[i] - t[j]);
                }
            }
        }
        ll
    }

    /// Gradient and minus the Hessian of `log L` at `t`.
    fn derivatives(&self, t: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
        let n = self.len();
        let mut grad = vec![0.0; n];
        let mut info = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..n {
                if i == j || self.games[i][j] == 0.0 {
                    continue;
                }
                let p = sigmoid(t[i] - t[j]);
                grad[i] += self.points[i][j] - self.games[i][j] * p;
                let w = self.games[i][j] * p * (1.0 - p);
                info[i][i] += w;
                info[i][j] -= w;
            }
        }
        (grad, info)
    }

    /// Players with no chain of games to `anchor`.
    fn unlinked(&self, anchor: usize) -> Vec<usize> {
        let mut seen = vec![false; self.len()];
        let mut stack = vec![anchor];
        seen[anchor] = true;
        while let Some(i) = stack.pop() {
            for (j, seen) in seen.iter_mut().enumerate() {
                if !*seen && self.games[i][j] > 0.0 {
                    *seen = true;
                    stack.push(j);
                }
            }
        }
        (0..self.len()).filter(|&i| !seen[i]).collect()
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `ln σ(x)`, without overflow for large `|x|`.
fn log_sigmoid(x: f64) -> f64 {
    if x > 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// The Cholesky factor `L` of a symmetric positive definite matrix (`None` if it is not).
fn cholesky(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            if i == j {
                let d = a[i][i] - s;
                if d <= 0.0 || !d.is_finite() {
                    return None;
                }
                l[i][i] = d.sqrt();
            } else {
                l[i][j] = (a[i][j] - s) / l[j][j];
            }
        }
    }
    Some(l)
}

/// Solves `L Lᵀ x = b`.
fn cholesky_solve(l: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let n = l.len();
    let mut y = vec![0.0; n];
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l[i][k] * y[k]).sum();
        y[i] = (b[i] - s) / l[i][i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[k][i] * x[k]).sum();
        x[i] = (y[i] - s) / l[i][i];
    }
    x
}

/// The rows and columns of `m` for `free` players.
fn reduce(m: &[Vec<f64>], free: &[usize]) -> Vec<Vec<f64>> {
    free.iter()
        .map(|&i| free.iter().map(|&j| m[i][j]).collect())
        .collect()
}

const MAX_ITERATIONS: usize = 200;

/// Newton's method with step halving; returns the ratings (natural units) and iterations.
fn maximise(counts: &Counts, anchor: usize) -> Result<(Vec<f64>, usize), FitError> {
    let n = counts.len();
    let free: Vec<usize> = (0..n).filter(|&i| i != anchor).collect();
    let mut t = vec![0.0; n];
    let mut ll = counts.log_likelihood(&t);
    for iteration in 1..=MAX_ITERATIONS {
        let (grad, info) = counts.derivatives(&t);
        let l = cholesky(&reduce(&info, &free))
            .ok_or_else(|| FitError::NoConvergence("singular information matrix".into()))?;
        let g: Vec<f64> = free.iter().map(|&i| grad[i]).collect();
        let step = cholesky_solve(&l, &g);
        let mut scale = 1.0;
        loop {
            let mut next = t.clone();
            for (k, &i) in free.iter().enumerate() {
                next[i] += scale * step[k];
            }
            let next_ll = counts.log_likelihood(&next);
            if next_ll >= ll - 1e-12 * ll.abs().max(1.0) || scale < 1e-6 {
                t = next;
                ll = next_ll;
                break;
            }
            scale /= 2.0;
        }
        let moved = step.iter().fold(0.0f64, |m, s| m.max((scale * s).abs()));
        if t.iter().any(|x| x.abs() > 50.0) {
            return Err(FitError::NoConvergence(
                "ratings beyond ±8000 Elo: no finite maximum".into(),
            ));
        }
        if moved < 1e-10 {
            return Ok((t, iteration));
        }
    }
    Err(FitError::NoConvergence(format!(
        "no convergence in {MAX_ITERATIONS} Newton steps"
    )))
}

/// Fits one Elo scale to the results of `players` players (see the module's
/// documentation). Pairings may repeat and may name a pair either way round.
///
/// # Errors
/// No players, a pairing or anchor out of range, players not linked to the anchor by any
/// chain of games, or no finite maximum.
pub fn fit(players: usize, results: &[Pairing], opts: &FitOptions) -> Result<Ladder, FitError> {
    if players == 0 {
        return Err(FitError::NoPlayers);
    }
    if opts.anchor >= players {
        return Err(FitError::BadAnchor {
            anchor: opts.anchor,
            players,
        });
    }
    if !(opts.prior_draws >= 0.0 && opts.prior_draws.is_finite()) {
        return Err(FitError::NoConvergence(format!(
            "prior draws {} is not a count >= 0",
            opts.prior_draws
        )));
    }
    let mut counts = Counts::new(players, results)?;
    let unlinked = counts.unlinked(opts.anchor);
    if !unlinked.is_empty() {
        return Err(FitError::Disconnected(unlinked));
    }
    counts.add_prior(opts.anchor, opts.prior_draws);
    let (t, iterations) = if players == 1 {
        (vec![0.0], 0)
    } else {
        maximise(&counts, opts.anchor)?
    };
    let free: Vec<usize> = (0..players).filter(|&i| i != opts.anchor).collect();
    let mut variance = vec![0.0; players];
    if !free.is_empty() {
        let (_, info) = counts.derivatives(&t);
        let l = cholesky(&reduce(&info, &free))
            .ok_or_else(|| FitError::NoConvergence("singular information matrix".into()))?;
        for (k, &i) in free.iter().enumerate() {
            let mut unit = vec![0.0; free.len()];
            unit[k] = 1.0;
            variance[i] = cholesky_solve(&l, &unit)[k];
        }
    }
    let mut games = vec![0u32; players];
    let mut points = vec![0.0; players];
    for r in results {
        let n = r.tally.games();
        games[r.a] += n;
        games[r.b] += n;
        points[r.a] += r.tally.score() * f64::from(n);
        points[r.b] += (1.0 - r.tally.score()) * f64::from(n);
    }
    let ratings = (0..players)
        .map(|i| {
            let elo = t[i] * ELO_PER_NAT;
            let std_error = variance[i].sqrt() * ELO_PER_NAT;
            Rating {
                elo,
                std_error,
                low: elo - 1.96 * std_error,
                high: elo + 1.96 * std_error,
                games: games[i],
                score: if games[i] == 0 {
                    0.5
                } else {
                    points[i] / f64::from(games[i])
                },
            }
        })
        .collect();
    Ok(Ladder {
        ratings,
        anchor: opts.anchor,
        log_likelihood: counts.log_likelihood(&t),
        iterations,
    })
}

/// Which pairs play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduleOptions {
    /// Every pair plays when there are at most this many players in all.
    pub round_robin_up_to: usize,
    /// Otherwise each model plays the next this many models (on the generation axis),
    /// every baseline, and each baseline the next baseline.
    pub neighbours: usize,
}

impl Default for ScheduleOptions {
    fn default() -> ScheduleOptions {
        ScheduleOptions {
            round_robin_up_to: 6,
            neighbours: 2,
        }
    }
}

/// The pairs `(i, j)`, `i < j`, that play, for `models` models (players `0..models`, in
/// generation order) and `baselines` fixed baselines (players `models..`, in the order
/// given): a round-robin when there are few players, else neighbours on the generation
/// axis, every model against every baseline, and neighbouring baselines.
pub fn schedule(models: usize, baselines: usize, opts: &ScheduleOptions) -> Vec<(usize, usize)> {
    let n = models + baselines;
    let mut pairs = BTreeSet::new();
    if n <= opts.round_robin_up_to {
        for i in 0..n {
            for j in i + 1..n {
                pairs.insert((i, j));
            }
        }
        return pairs.into_iter().collect();
    }
    for i in 0..models {
        for j in i + 1..=(i + opts.neighbours.max(1)).min(models - 1) {
            pairs.insert((i, j));
        }
        for b in models..n {
            pairs.insert((i, b));
        }
    }
    for b in models..n.saturating_sub(1) {
        pairs.insert((b, b + 1));
    }
    pairs.into_iter().collect()
}

/// How the ladder's matches are played.
#[derive(Clone, Copy, Debug)]
pub struct LadderGames {
    /// The rules.
    pub rules: Rules,
    /// Games per pair (colours alternate, each opening played twice).
    pub games_per_pair: usize,
    /// Seed: pair `(i, j)` plays its match with seed `derive(seed, i, j)`.
    pub seed: u64,
    /// Random decisions from the start before the agents take over.
    pub opening_plies: usize,
}

/// One pair's match.
#[derive(Clone, Debug)]
pub struct PairPlayed {
    /// The results (finished games only).
    pub pairing: Pairing,
    /// Games that could not be finished, with the reason.
    pub failures: Vec<String>,
}

/// Plays `pairs` between `players` with [`run_match`], one pair after another (each
/// match's games in parallel), calling `on_game` as each game ends.
///
/// # Errors
/// A match that fails as a whole.
pub fn play(
    cfg: &LadderGames,
    players: &[&dyn AgentFactory],
    pairs: &[(usize, usize)],
    on_game: impl Fn(&GameRecord) + Sync,
) -> Result<Vec<PairPlayed>, ArenaError> {
    let mut out = Vec::with_capacity(pairs.len());
    for &(a, b) in pairs {
        let mc = MatchConfig {
            rules: cfg.rules,
            games: cfg.games_per_pair,
            seed: derive(cfg.seed, a as u64, b as u64),
            opening_plies: cfg.opening_plies,
        };
        let report = run_match(&mc, players[a], players[b], &on_game)?;
        out.push(PairPlayed {
            pairing: Pairing {
                a,
                b,
                tally: report.tally,
            },
            failures: report.failures,
        });
    }
    Ok(out)
}

/// The players' ratings, highest first, as rows `(index, rating)`.
pub fn ranked(ladder: &Ladder) -> Vec<(usize, Rating)> {
    let mut rows: Vec<(usize, Rating)> = ladder.ratings.iter().copied().enumerate().collect();
    rows.sort_by(|x, y| y.1.elo.total_cmp(&x.1.elo).then(x.0.cmp(&y.0)));
    rows
}

/// The scale as a Markdown table (players in the order given), then every pair's results.
pub fn markdown(names: &[String], ladder: &Ladder, results: &[Pairing]) -> String {
    let mut s = String::new();
    let anchor = &names[ladder.anchor];
    let _ = writeln!(
        s,
        "| player | Elo | 95% interval | ± | games | score |\n|---|---:|---|---:|---:|---:|"
    );
    for (i, r) in ladder.ratings.iter().enumerate() {
        let _ = writeln!(
            s,
            "| {} | {:.0} | {:.0} .. {:.0} | {:.0} | {} | {:.1}% |",
            names[i],
            r.elo,
            r.low,
            r.high,
            1.96 * r.std_error,
            r.games,
            100.0 * r.score
        );
    }
    let _ = writeln!(
        s,
        "\nElo relative to {anchor} (held at 0); intervals are of the difference to it.\n\n\
         | pair | wins | draws | losses | score |\n|---|---:|---:|---:|---:|"
    );
    for r in results {
        let t = r.tally;
        let _ = writeln!(
            s,
            "| {} vs {} | {} | {} | {} | {:.1}% |",
            names[r.a],
            names[r.b],
            t.wins,
            t.draws,
            t.losses,
            100.0 * t.score()
        );
    }
    s
}

/// The scale as CSV: `player,elo,low,high,std_error,games,score`, players in the order
/// given.
pub fn csv(names: &[String], ladder: &Ladder) -> String {
    let mut s = String::from("player,elo,low,high,std_error,games,score\n");
    for (i, r) in ladder.ratings.iter().enumerate() {
        let name = if names[i].contains([',', '"']) {
            format!("\"{}\"", names[i].replace('"', "\"\""))
        } else {
            names[i].clone()
        };
        let _ = writeln!(
            s,
            "{name},{:.1},{:.1},{:.1},{:.2},{},{:.4}",
            r.elo, r.low, r.high, r.std_error, r.games, r.score
        );
    }
    s
}
