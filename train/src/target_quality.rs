//! How good training's value targets are, judged by the solver: for every self-play sample
//! whose exact value the databases hold, whether each part of its value target names that
//! value. Only a judge: nothing here flows back into training.

use std::collections::BTreeMap;

use kvarn_game::Outcome;
use kvarn_game::Phase;
use kvarn_solver::Solver;

use crate::replay::{ReplayWindow, value_target};

/// The value-target parts that are judged, in the order of [`PartCounts::named`].
pub const PARTS: [&str; 5] = [
    "own search",
    "next full search",
    "outcome",
    "target, own",
    "target, next full",
];

/// Samples of one kind, and how many of them each part of [`PARTS`] names right.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartCounts {
    /// Samples with an exact value.
    pub samples: u64,
    /// Of them, those whose part names the exact value (largest of win, draw, loss).
    pub named: [u64; PARTS.len()],
}

impl PartCounts {
    /// Adds another kind's counts.
    pub fn add(&mut self, o: &PartCounts) {
        self.samples += o.samples;
        for (a, b) in self.named.iter_mut().zip(o.named) {
            *a += b;
        }
    }
}

/// Which samples a count is of: their phase, their exact value, whether their search
/// was full.
pub type Kind = (Phase, Outcome, bool);

/// Counts by phase, exact value and whether the sample's search was full.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetQuality {
    /// Counts of each kind that occurred.
    pub kinds: BTreeMap<Kind, PartCounts>,
    /// Samples whose position the databases do not hold.
    pub unsolved: u64,
}

impl TargetQuality {
    /// Judges every sample of `window`, which must have been loaded with
    /// `train.cheap_search_value = "next_full"` (its search parts are then the next full
    /// search's for cheap samples, and each sample's own search is in the sample);
    /// `search_value_share` mixes the parts into the targets as training does.
    pub fn judge(window: &ReplayWindow, solver: &Solver, search_value_share: f32) -> Self {
        let rules = *solver.rules();
        let mut q = TargetQuality::default();
        for (i, s) in window.samples().iter().enumerate() {
            let Some(exact) = solver.value(&s.position).map(|v| v.outcome()) else {
                q.unsolved += 1;
                continue;
            };
            let (outcome, next) = window.value_parts(i);
            let mix = |search| value_target(outcome, search, search_value_share);
            let parts = [s.search_wdl, next, outcome, mix(s.search_wdl), mix(next)];
            let c = q
                .kinds
                .entry((Phase::of(&rules, &s.position), exact, s.full_search))
                .or_default();
            c.samples += 1;
            for (n, part) in c.named.iter_mut().zip(parts) {
                *n += u64::from(Outcome::named_by(part) == exact);
            }
        }
        q
    }

    /// The kinds that match together (`None`: any phase, value or search).
    pub fn total(
        &self,
        phase: Option<Phase>,
        exact: Option<Outcome>,
        full: Option<bool>,
    ) -> PartCounts {
        let mut t = PartCounts::default();
        let chosen = self.kinds.iter().filter(|((p, e, f), _)| {
            phase.is_none_or(|x| x == *p)
                && exact.is_none_or(|x| x == *e)
                && full.is_none_or(|x| x == *f)
        });
        for (_, c) in chosen {
            t.add(c);
        }
        t
    }
}
