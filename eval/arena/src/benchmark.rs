//! The scoring of any agent on a solver benchmark set (positions with exact values and
//! the moves that keep them, sampled by [`kvarn_solver::benchmark`]).

use std::collections::BTreeMap;

use kvarn_game::{Outcome, Phase, Rules};
use kvarn_solver::benchmark::BenchPosition;
use serde::Serialize;

use crate::agent::Agent;
use crate::error::ArenaError;

/// An agent's figures on one phase of a benchmark set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PhaseScore {
    /// Positions of the phase.
    pub positions: u32,
    /// Positions where the agent gave an outcome estimate.
    pub estimated: u32,
    /// Estimates equal to the exact outcome.
    pub correct: u32,
    /// Chosen moves, in won or drawn positions, that keep the outcome.
    pub preserved: u32,
    /// Won or drawn positions.
    pub winning_or_drawn: u32,
    /// Moves that threw a win or a draw away.
    pub blunders: u32,
    /// Critical positions (see [`BenchPosition::critical`]).
    pub critical: u32,
    /// Chosen moves, in critical positions, that keep the outcome.
    pub critical_preserved: u32,
    /// What a uniformly random player is expected to keep, summed over won or drawn
    /// positions, and over critical ones.
    pub random_preserved: f64,
    /// See [`PhaseScore::random_preserved`].
    pub random_critical_preserved: f64,
}

impl PhaseScore {
    /// Adds another score's counts (two halves of a set scored apart).
    pub fn add(&mut self, o: &PhaseScore) {
        self.positions += o.positions;
        self.estimated += o.estimated;
        self.correct += o.correct;
        self.preserved += o.preserved;
        self.winning_or_drawn += o.winning_or_drawn;
        self.blunders += o.blunders;
        self.critical += o.critical;
        self.critical_preserved += o.critical_preserved;
        self.random_preserved += o.random_preserved;
        self.random_critical_preserved += o.random_critical_preserved;
    }

    /// Share of estimates that were right (`None` without estimates).
    pub fn value_accuracy(&self) -> Option<f64> {
        (self.estimated > 0).then(|| self.correct as f64 / self.estimated as f64)
    }

    /// Share of won or drawn positions where the move kept the outcome (in a lost position
    /// every move does, so those are left out).
    pub fn preserving_rate(&self) -> f64 {
        self.preserved as f64 / self.winning_or_drawn.max(1) as f64
    }

    /// Share of critical positions where the move kept the outcome (`None` without any).
    pub fn critical_preserving_rate(&self) -> Option<f64> {
        (self.critical > 0).then(|| f64::from(self.critical_preserved) / f64::from(self.critical))
    }

    /// What a uniformly random player keeps, in expectation: over won or drawn
    /// positions, and over critical ones.
    pub fn random_preserving_rates(&self) -> (f64, Option<f64>) {
        let all = self.random_preserved / f64::from(self.winning_or_drawn.max(1));
        let critical =
            (self.critical > 0).then(|| self.random_critical_preserved / f64::from(self.critical));
        (all, critical)
    }

    /// Share of won or drawn positions where the move threw the result away.
    pub fn blunder_rate(&self) -> f64 {
        self.blunders as f64 / self.winning_or_drawn.max(1) as f64
    }
}

/// Scores `agent` on `set`: per phase, and all phases together under `None`.
///
/// # Errors
/// A position that does not read under `rules`, or an agent failure.
pub fn score(
    rules: &Rules,
    set: &[BenchPosition],
    agent: &mut dyn Agent,
) -> Result<BTreeMap<Option<Phase>, PhaseScore>, ArenaError> {
    score_each(rules, set, agent, |_| {})
}

/// What an agent did on one benchmark position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Answer {
    /// The position, its exact value and the moves that keep it.
    #[serde(flatten)]
    pub position: BenchPosition,
    /// The move the agent chose.
    pub chose: String,
    /// Whether that move keeps the value.
    pub kept: bool,
    /// The agent's own estimate of the outcome, where it gives one.
    pub estimate: Option<Outcome>,
}

impl Answer {
    /// The answer's contribution to a score.
    pub fn score(&self) -> PhaseScore {
        position_score(&self.position, self.estimate, self.kept)
    }
}

/// [`score`], handing `seen` the agent's answer on each position as it comes (to list the
/// positions it misses, say).
///
/// # Errors
/// As [`score`].
pub fn score_each(
    rules: &Rules,
    set: &[BenchPosition],
    agent: &mut dyn Agent,
    mut seen: impl FnMut(&Answer),
) -> Result<BTreeMap<Option<Phase>, PhaseScore>, ArenaError> {
    let mut out: BTreeMap<Option<Phase>, PhaseScore> = BTreeMap::new();
    for b in set {
        let game = b.game(rules)?;
        agent.new_game()?;
        let estimate = agent.outcome(&game)?;
        let chose = agent.choose(&game)?.to_string();
        // The legal moves counted here, not trusted from the file.
        let b = BenchPosition {
            legal: game.legal_moves().len() as u16,
            ..b.clone()
        };
        let kept = b.preserving.contains(&chose);
        let s = position_score(&b, estimate, kept);
        out.entry(Some(b.phase)).or_default().add(&s);
        out.entry(None).or_default().add(&s);
        seen(&Answer {
            position: b,
            chose,
            kept,
            estimate,
        });
    }
    Ok(out)
}

/// One position's contribution to a score.
fn position_score(b: &BenchPosition, estimate: Option<Outcome>, kept: bool) -> PhaseScore {
    let open = b.value != Outcome::Loss;
    let critical = b.critical();
    let random = if open { b.random_keeps() } else { 0.0 };
    PhaseScore {
        positions: 1,
        estimated: u32::from(estimate.is_some()),
        correct: u32::from(estimate == Some(b.value)),
        preserved: u32::from(kept && open),
        winning_or_drawn: u32::from(open),
        blunders: u32::from(open && !kept),
        critical: u32::from(critical),
        critical_preserved: u32::from(critical && kept),
        random_preserved: random,
        random_critical_preserved: if critical { random } else { 0.0 },
    }
}
