//! Every figure a generation records, named once. TensorBoard tags, CSV columns, the
//! Markdown table, the plot's legend and the terminal line all take their names and
//! formats from here, so the same figure is called the same everywhere.

use kvarn_arena::elo::{Tally, elo_of_score};
use kvarn_game::Phase;

use crate::manifest::{GenerationRecord, Opponent};
use crate::run_config::RunConfig;
use crate::stages::evaluation::opponents;

/// One figure of a generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Optimiser steps at the generation's end.
    Step,
    /// Whether the new model became the self-play model (1 or 0).
    Promoted,
    /// Seconds the generation took.
    Seconds,
    /// Self-play positions per second.
    SelfPlayPositionsPerSecond,
    /// Share of the generation's self-play games whose result the endgame databases gave.
    SelfPlayAdjudicated,
    /// Share of them that reached a certain database position and were played on.
    SelfPlayPlayedOut,
    /// Share of points the deeper side took in the games that had one (a draw is half).
    SelfPlayDeepSideScore,
    /// Optimiser steps per second.
    TrainStepsPerSecond,
    /// Samples in the replay window.
    WindowSamples,
    /// Mean policy loss over the generation's steps.
    LossPolicy,
    /// Mean value loss over the generation's steps.
    LossValue,
    /// Mean ownership loss over the generation's steps (networks with the head).
    LossOwnership,
    /// The window's mean policy surprise in one phase.
    WindowSurpriseIn(Phase),
    /// Share of points against an opponent (a draw is half).
    Score(Opponent),
    /// The Elo difference that score means (a clean sweep counted half a game short).
    Elo(Opponent),
    /// Games won against an opponent.
    Wins(Opponent),
    /// Games drawn against an opponent.
    Draws(Opponent),
    /// Games lost against an opponent.
    Losses(Opponent),
    /// Games against an opponent that could not be played (an agent failed).
    Failed(Opponent),
    /// Share of benchmark positions whose exact outcome the search named.
    SolverValueAccuracy,
    /// Share of won or drawn benchmark positions where the chosen move kept the value.
    SolverValueKeeping,
    /// Share of won or drawn benchmark positions where the chosen move threw it away.
    SolverBlunders,
    /// Share of critical benchmark positions (some move throws the value away) where the
    /// chosen move kept it.
    SolverCriticalValueKeeping,
    /// What a uniformly random player keeps on the won or drawn benchmark positions.
    SolverRandomValueKeeping,
    /// What a uniformly random player keeps on the critical benchmark positions.
    SolverRandomCriticalValueKeeping,
    /// Critical value-keeping in one phase.
    SolverCriticalValueKeepingIn(Phase),
}

/// How a figure is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A whole number.
    Count,
    /// A number with this many decimals in files (at most three for people).
    Fixed(usize),
    /// A share, 0..1: four decimals in files, a percentage for people.
    Share,
    /// Yes or no (1 or 0).
    YesNo,
}

impl Opponent {
    /// The opponent in names: `previous`, `random`, `alphabeta_depth4`, `perfect`.
    pub fn slug(&self) -> String {
        match self {
            Opponent::Previous => "previous".into(),
            Opponent::Random => "random".into(),
            Opponent::AlphaBeta { depth } => format!("alphabeta_depth{depth}"),
            Opponent::Perfect => "perfect".into(),
            Opponent::PerfectFromDrawn => "perfect_from_drawn".into(),
            Opponent::PerfectFromWon => "perfect_from_won".into(),
        }
    }

    /// The opponent for people.
    pub fn label(&self) -> String {
        match self {
            Opponent::Previous => "previous".into(),
            Opponent::Random => "random".into(),
            Opponent::AlphaBeta { depth } => format!("alpha-beta depth {depth}"),
            Opponent::Perfect => "perfect player".into(),
            Opponent::PerfectFromDrawn => "perfect player from drawn positions".into(),
            Opponent::PerfectFromWon => "perfect player from won positions".into(),
        }
    }

    /// Whether the games against this opponent are shown as wins, draws and losses
    /// rather than a score: those against the perfect player.
    pub fn shown_as_tally(&self) -> bool {
        matches!(
            self,
            Opponent::Perfect | Opponent::PerfectFromDrawn | Opponent::PerfectFromWon
        )
    }
}

impl Metric {
    /// The figure's name: its TensorBoard tag and CSV column.
    pub fn name(&self) -> String {
        match self {
            Metric::Step => "train/step".into(),
            Metric::Promoted => "eval/promoted".into(),
            Metric::Seconds => "run/generation_seconds".into(),
            Metric::SelfPlayPositionsPerSecond => "selfplay/positions_per_second".into(),
            Metric::SelfPlayAdjudicated => "selfplay/adjudicated_share".into(),
            Metric::SelfPlayPlayedOut => "selfplay/played_out_share".into(),
            Metric::SelfPlayDeepSideScore => "selfplay/deep_side_score".into(),
            Metric::TrainStepsPerSecond => "train/steps_per_second".into(),
            Metric::WindowSamples => "train/window_samples".into(),
            Metric::WindowSurpriseIn(p) => format!("train/window_policy_surprise_{}", p.name()),
            Metric::LossPolicy => "train/loss_policy_generation".into(),
            Metric::LossValue => "train/loss_value_generation".into(),
            Metric::LossOwnership => "train/loss_ownership_generation".into(),
            Metric::Score(o) => format!("eval/score_vs_{}", o.slug()),
            Metric::Elo(o) => format!("eval/elo_vs_{}", o.slug()),
            Metric::Wins(o) => format!("eval/wins_vs_{}", o.slug()),
            Metric::Draws(o) => format!("eval/draws_vs_{}", o.slug()),
            Metric::Losses(o) => format!("eval/losses_vs_{}", o.slug()),
            Metric::Failed(o) => format!("eval/failed_vs_{}", o.slug()),
            Metric::SolverValueAccuracy => "solver/value_accuracy".into(),
            Metric::SolverValueKeeping => "solver/value_keeping_moves".into(),
            Metric::SolverBlunders => "solver/blunders".into(),
            Metric::SolverCriticalValueKeeping => "solver/critical_value_keeping_moves".into(),
            Metric::SolverRandomValueKeeping => "solver/random_value_keeping_moves".into(),
            Metric::SolverRandomCriticalValueKeeping => {
                "solver/random_critical_value_keeping_moves".into()
            }
            Metric::SolverCriticalValueKeepingIn(p) => {
                format!("solver/critical_value_keeping_moves_{}", p.name())
            }
        }
    }

    /// The figure for people: table headers, the plot's legend, the terminal.
    pub fn label(&self) -> String {
        match self {
            Metric::Step => "steps".into(),
            Metric::Promoted => "promoted".into(),
            Metric::Seconds => "seconds".into(),
            Metric::SelfPlayPositionsPerSecond => "self-play positions/s".into(),
            Metric::SelfPlayAdjudicated => "games adjudicated".into(),
            Metric::SelfPlayPlayedOut => "games played on from the databases".into(),
            Metric::SelfPlayDeepSideScore => "deeper side's self-play score".into(),
            Metric::TrainStepsPerSecond => "training steps/s".into(),
            Metric::WindowSamples => "window samples".into(),
            Metric::WindowSurpriseIn(p) => format!("window policy surprise, {}", p.name()),
            Metric::LossPolicy => "policy loss".into(),
            Metric::LossValue => "value loss".into(),
            Metric::LossOwnership => "ownership loss".into(),
            Metric::Score(o) => format!("score vs {}", o.label()),
            Metric::Elo(o) => format!("Elo vs {}", o.label()),
            Metric::Wins(o) => format!("wins vs {}", o.label()),
            Metric::Draws(o) => format!("draws vs {}", o.label()),
            Metric::Losses(o) => format!("losses vs {}", o.label()),
            Metric::Failed(o) => format!("failed games vs {}", o.label()),
            Metric::SolverValueAccuracy => "solver value accuracy".into(),
            Metric::SolverValueKeeping => "solver value-keeping moves".into(),
            Metric::SolverBlunders => "solver blunders".into(),
            Metric::SolverCriticalValueKeeping => "critical value-keeping moves".into(),
            Metric::SolverRandomValueKeeping => "random play's value-keeping".into(),
            Metric::SolverRandomCriticalValueKeeping => {
                "random play's critical value-keeping".into()
            }
            Metric::SolverCriticalValueKeepingIn(p) => {
                format!("critical value-keeping, {}", p.name())
            }
        }
    }

    /// How the figure is written.
    pub fn format(&self) -> Format {
        match self {
            Metric::Step | Metric::WindowSamples => Format::Count,
            Metric::Wins(_) | Metric::Draws(_) | Metric::Losses(_) | Metric::Failed(_) => {
                Format::Count
            }
            Metric::Promoted => Format::YesNo,
            Metric::Seconds | Metric::Elo(_) => Format::Fixed(1),
            Metric::SelfPlayPositionsPerSecond => Format::Fixed(0),
            Metric::SelfPlayAdjudicated
            | Metric::SelfPlayPlayedOut
            | Metric::SelfPlayDeepSideScore => Format::Share,
            Metric::TrainStepsPerSecond => Format::Fixed(2),
            Metric::LossPolicy
            | Metric::LossValue
            | Metric::LossOwnership
            | Metric::WindowSurpriseIn(_) => Format::Fixed(4),
            Metric::Score(_)
            | Metric::SolverValueAccuracy
            | Metric::SolverValueKeeping
            | Metric::SolverBlunders
            | Metric::SolverCriticalValueKeeping
            | Metric::SolverRandomValueKeeping
            | Metric::SolverRandomCriticalValueKeeping
            | Metric::SolverCriticalValueKeepingIn(_) => Format::Share,
        }
    }

    /// The figure in `record`, where it was measured.
    pub fn value(&self, record: &GenerationRecord) -> Option<f64> {
        let solver = record.evaluation.solver.as_ref();
        match self {
            Metric::Step => Some(record.step as f64),
            Metric::Promoted => Some(f64::from(u8::from(record.promoted))),
            Metric::Seconds => Some(record.seconds),
            Metric::SelfPlayPositionsPerSecond => Some(record.selfplay.positions_per_second),
            Metric::SelfPlayAdjudicated | Metric::SelfPlayPlayedOut => {
                let s = &record.selfplay;
                let n = if *self == Metric::SelfPlayAdjudicated {
                    s.adjudicated
                } else {
                    s.played_out
                };
                (s.games > 0).then(|| n as f64 / s.games as f64)
            }
            Metric::SelfPlayDeepSideScore => {
                let t = &record.selfplay.deep_side_results;
                (t.games() > 0).then(|| t.score())
            }
            Metric::TrainStepsPerSecond => Some(record.training.steps_per_second),
            Metric::WindowSamples => Some(record.training.window_samples as f64),
            Metric::LossPolicy => Some(record.training.loss_policy),
            Metric::WindowSurpriseIn(p) => record
                .training
                .surprise_by_phase
                .iter()
                .find(|s| s.phase == *p)
                .map(|s| s.mean),
            Metric::LossValue => Some(record.training.loss_value),
            Metric::LossOwnership => record.training.loss_ownership,
            Metric::Score(o) => record.result_vs(o).map(Tally::score),
            Metric::Elo(o) => record.result_vs(o).map(finite_elo),
            Metric::Wins(o) => record.result_vs(o).map(|t| f64::from(t.wins)),
            Metric::Draws(o) => record.result_vs(o).map(|t| f64::from(t.draws)),
            Metric::Losses(o) => record.result_vs(o).map(|t| f64::from(t.losses)),
            Metric::Failed(o) => record
                .evaluation
                .matches
                .iter()
                .find(|m| &m.opponent == o)
                .map(|m| m.failures.len() as f64),
            Metric::SolverValueAccuracy => solver.and_then(|s| s.value_accuracy),
            Metric::SolverValueKeeping => solver.map(|s| s.value_keeping),
            Metric::SolverBlunders => solver.map(|s| s.blunders),
            Metric::SolverCriticalValueKeeping => solver.and_then(|s| s.critical_value_keeping),
            Metric::SolverRandomValueKeeping => solver.map(|s| s.random_value_keeping),
            Metric::SolverRandomCriticalValueKeeping => {
                solver.and_then(|s| s.random_critical_value_keeping)
            }
            Metric::SolverCriticalValueKeepingIn(p) => solver.and_then(|s| {
                s.critical_by_phase
                    .iter()
                    .find(|c| c.phase == *p)
                    .map(|c| c.value_keeping)
            }),
        }
    }

    /// `value` as written in files (CSV): full precision for the format.
    pub fn file_text(&self, value: f64) -> String {
        match self.format() {
            Format::Count => format!("{value:.0}"),
            Format::Fixed(d) => format!("{value:.d$}"),
            Format::Share => format!("{value:.4}"),
            Format::YesNo => (value != 0.0).to_string(),
        }
    }

    /// `value` as shown to people: shares as percentages.
    pub fn human_text(&self, value: f64) -> String {
        match self.format() {
            Format::Count => format!("{value:.0}"),
            Format::Fixed(d) => format!("{value:.*}", d.min(3)),
            Format::Share => format!("{:.1}%", 100.0 * value),
            Format::YesNo => if value != 0.0 { "yes" } else { "no" }.into(),
        }
    }
}

/// The Elo difference of a tally, a clean sweep counted as half a game short of one so
/// that the figure stays finite (for JSON and plots).
pub fn finite_elo(t: &Tally) -> f64 {
    let n = f64::from(t.games().max(1));
    elo_of_score(t.score().clamp(0.5 / n, 1.0 - 0.5 / n))
}

/// Every figure a run with `config` records per generation, in the CSV's order.
pub fn metrics_of(config: &RunConfig) -> Vec<Metric> {
    let mut out = vec![
        Metric::Step,
        Metric::Promoted,
        Metric::Seconds,
        Metric::SelfPlayPositionsPerSecond,
        Metric::TrainStepsPerSecond,
        Metric::WindowSamples,
        Metric::LossPolicy,
        Metric::LossValue,
    ];
    if config.network.has_ownership_head() {
        out.push(Metric::LossOwnership);
    }
    out.extend(phases_of(config).map(Metric::WindowSurpriseIn));
    if config.selfplay.endgame.in_games() {
        out.extend([Metric::SelfPlayAdjudicated, Metric::SelfPlayPlayedOut]);
    }
    if config.selfplay.deep_side.share > 0.0 {
        out.push(Metric::SelfPlayDeepSideScore);
    }
    for o in opponents(config) {
        out.extend([Metric::Score(o), Metric::Elo(o), Metric::Failed(o)]);
        if o.shown_as_tally() {
            out.extend([Metric::Wins(o), Metric::Draws(o), Metric::Losses(o)]);
        }
    }
    if config.solver.db.is_some() {
        out.extend([
            Metric::SolverValueAccuracy,
            Metric::SolverValueKeeping,
            Metric::SolverBlunders,
            Metric::SolverCriticalValueKeeping,
            Metric::SolverRandomValueKeeping,
            Metric::SolverRandomCriticalValueKeeping,
        ]);
        out.extend(phases_of(config).map(Metric::SolverCriticalValueKeepingIn));
    }
    out
}

/// The phases of the rules' game, in play order: flying only where the rules fly.
pub fn phases_of(config: &RunConfig) -> impl Iterator<Item = Phase> + use<> {
    let flying = config.rules.flying();
    [Phase::Placing, Phase::Moving, Phase::Flying, Phase::Removal]
        .into_iter()
        .filter(move |p| *p != Phase::Flying || flying)
}
