//! The evaluation stage: the new model against the self-play model, random play, the
//! alpha-beta baseline at each configured depth and, where the run has databases, the
//! solver benchmark and the perfect player. Also the run's benchmark set, sampled once.

use std::collections::BTreeMap;

use indicatif::ProgressBar;
use kvarn_arena::agent::{AgentFactory, AgentSpec};
use kvarn_arena::benchmark::{self as scoring, PhaseScore};
use kvarn_arena::matches::{
    GameRecord, MatchConfig, MatchReport, run_from_positions, run_match, run_sprt,
};
use kvarn_arena::sprt::SprtStatus;
use kvarn_engine::search::Limits;
use kvarn_game::Game;
use kvarn_game::Outcome;
use kvarn_game::Phase;
use kvarn_game::seeds::derive;
use kvarn_model::Network;
use kvarn_solver::benchmark::{self, BenchPosition, Part};
use kvarn_solver::db::{self, Databases};
use kvarn_solver::{Solver, plan_for};
use rayon::prelude::*;

use super::stream;
use crate::error::RunError;
use crate::manifest::{Evaluation, MatchResult, Opponent, PhaseCritical, SolverFigures};
use crate::run_config::{GateConfig, RunConfig};
use crate::run_dir::RunDir;

/// What the evaluation stage needs.
pub struct EvaluationStage<'a> {
    /// The run's configuration.
    pub config: &'a RunConfig,
    /// The generation evaluated.
    pub generation: u32,
    /// The new model.
    pub model: &'a Network,
    /// The self-play model it is measured against, and its generation.
    pub previous: (&'a Network, u32),
    /// The run's solver benchmark set, where it has databases.
    pub bench_set: Option<&'a [BenchPosition]>,
}

/// The opponents a run with `config` plays each generation, in the order played.
pub fn opponents(config: &RunConfig) -> Vec<Opponent> {
    let r = &config.run;
    let mut out = Vec::new();
    if r.games_vs_previous > 0 || r.gate.is_some() {
        out.push(Opponent::Previous);
    }
    if r.games_vs_random > 0 {
        out.push(Opponent::Random);
    }
    if r.games_vs_baseline > 0 {
        out.extend(
            r.baseline_depths
                .iter()
                .map(|&depth| Opponent::AlphaBeta { depth }),
        );
    }
    if config.solver.db.is_some() && config.solver.games_vs_perfect > 0 {
        out.push(Opponent::Perfect);
    }
    if config.solver.db.is_some() && config.solver.games_from_positions > 0 {
        out.extend([Opponent::PerfectFromDrawn, Opponent::PerfectFromWon]);
    }
    out
}

/// How a match against `opponent` is played: games, seed salt and random opening plies.
fn match_plan(config: &RunConfig, opponent: &Opponent) -> (usize, u64, usize) {
    let r = &config.run;
    match opponent {
        Opponent::Previous => (r.gate.map_or(r.games_vs_previous, |g| g.max_games), 0, 2),
        Opponent::Random => (r.games_vs_random, 100, 0),
        Opponent::AlphaBeta { depth } => {
            let i = r
                .baseline_depths
                .iter()
                .position(|d| d == depth)
                .unwrap_or(0);
            (r.games_vs_baseline, 1 + i as u64, 2)
        }
        Opponent::Perfect => (config.solver.games_vs_perfect, 200, 0),
        Opponent::PerfectFromDrawn => (config.solver.games_from_positions, 300, 0),
        Opponent::PerfectFromWon => (config.solver.games_from_positions, 301, 0),
    }
}

/// The agent specification of a fixed opponent (the previous model is a network player).
fn opponent_spec(config: &RunConfig, opponent: &Opponent) -> Option<AgentSpec> {
    match opponent {
        Opponent::Previous => None,
        Opponent::Random => Some(AgentSpec::random()),
        Opponent::AlphaBeta { depth } => Some(AgentSpec::alphabeta(
            Limits {
                depth: Some(*depth),
                ..Limits::default()
            },
            1,
        )),
        Opponent::Perfect | Opponent::PerfectFromDrawn | Opponent::PerfectFromWon => config
            .solver
            .db
            .clone()
            .map(|db| AgentSpec::Perfect { db, seed: None }),
    }
}

/// The network player of evaluation: the run's `[loop.player]` (see
/// [`crate::run_config::LoopConfig::player`]) with `network`, named `name`.
///
/// # Errors
/// A player setting refused (a configuration that was not validated).
pub fn player(
    config: &RunConfig,
    name: String,
    network: &Network,
) -> Result<impl AgentFactory + use<>, RunError> {
    let settings = config.run.player(&config.search)?;
    Ok(settings.player(name, network, None)?)
}

/// Plays every match and scores the benchmark set.
///
/// # Errors
/// A match or the benchmark fails.
pub fn evaluate(
    stage: &EvaluationStage<'_>,
    progress: Option<&ProgressBar>,
) -> Result<Evaluation, RunError> {
    let config = stage.config;
    let g = stage.generation;
    let me = player(config, format!("gen-{g}"), stage.model)?;
    let (previous, champion) = stage.previous;
    let prev = player(config, format!("gen-{champion}"), previous)?;
    let opponents = opponents(config);
    let games: usize = opponents.iter().map(|o| match_plan(config, o).0).sum();
    super::show_stage(
        progress,
        g,
        config.run.generations,
        "evaluation games",
        games as u64,
        0,
    );
    let mut evaluation = Evaluation::default();
    for opponent in opponents {
        let spec = opponent_spec(config, &opponent);
        let factory: &dyn AgentFactory = spec.as_ref().map_or(&prev, |s| s);
        let result = match (opponent, config.run.gate) {
            (Opponent::Previous, Some(gate)) => {
                gated_match(config, g, &gate, &me, factory, progress)?
            }
            _ => {
                let starts = match start_value(&opponent) {
                    Some(value) => {
                        let set = stage.bench_set.unwrap_or_default();
                        let n = config.solver.games_from_positions;
                        let starts = benchmark::critical_starts(&config.rules, set, value, n);
                        Some(starts.map_err(RunError::solver)?)
                    }
                    None => None,
                };
                let report = play_match(
                    config,
                    g,
                    &opponent,
                    starts.as_deref(),
                    &me,
                    factory,
                    progress,
                )?;
                MatchResult {
                    opponent,
                    tally: report.tally,
                    failures: report.failures,
                    sequential: None,
                }
            }
        };
        for failure in &result.failures {
            tracing::warn!(generation = g, opponent = %opponent.label(), "a game failed: {failure}");
        }
        evaluation.matches.push(result);
    }
    if let Some(set) = stage.bench_set {
        let seed = derive(config.seed, stream::SOLVER_SCORE, 0);
        evaluation.solver = Some(score_on_set(config, set, &me, seed)?);
    }
    Ok(evaluation)
}

/// The new model against the self-play model in game pairs until the sequential test
/// decides, or the gate's games run out.
fn gated_match(
    config: &RunConfig,
    g: u32,
    gate: &GateConfig,
    me: &dyn AgentFactory,
    previous: &dyn AgentFactory,
    progress: Option<&ProgressBar>,
) -> Result<MatchResult, RunError> {
    let (games, salt, opening_plies) = match_plan(config, &Opponent::Previous);
    let cfg = MatchConfig {
        rules: config.rules,
        games,
        seed: derive(config.seed, stream::MATCHES + salt, u64::from(g)),
        opening_plies,
    };
    let on_pair = |_: &SprtStatus| {
        if let Some(p) = progress {
            p.inc(2);
        }
    };
    let run = run_sprt(&cfg, me, previous, &gate.params(), on_pair);
    let r = run.map_err(|source| RunError::Match {
        opponent: Opponent::Previous.label(),
        source,
    })?;
    tracing::info!(generation = g, "gate: {}", r.status);
    Ok(MatchResult {
        opponent: Opponent::Previous,
        tally: r.report.tally,
        failures: r.report.failures,
        sequential: Some(r.status),
    })
}

/// The exact value of the benchmark positions the games against `opponent` start from,
/// where they start from benchmark positions.
fn start_value(opponent: &Opponent) -> Option<Outcome> {
    match opponent {
        Opponent::PerfectFromDrawn => Some(Outcome::Draw),
        Opponent::PerfectFromWon => Some(Outcome::Win),
        _ => None,
    }
}

/// One match of the new model against `opponent`: from `starts` where given, the model
/// to move, else from random openings.
fn play_match(
    config: &RunConfig,
    g: u32,
    opponent: &Opponent,
    starts: Option<&[Game]>,
    me: &dyn AgentFactory,
    factory: &dyn AgentFactory,
    progress: Option<&ProgressBar>,
) -> Result<MatchReport, RunError> {
    let (games, salt, opening_plies) = match_plan(config, opponent);
    let cfg = MatchConfig {
        rules: config.rules,
        games,
        seed: derive(config.seed, stream::MATCHES + salt, u64::from(g)),
        opening_plies,
    };
    let tick = |_: &GameRecord| {
        if let Some(p) = progress {
            p.inc(1);
        }
    };
    match starts {
        Some(starts) => run_from_positions(&cfg, starts, me, factory, tick),
        None => run_match(&cfg, me, factory, tick),
    }
    .map_err(|source| RunError::Match {
        opponent: opponent.label(),
        source,
    })
}

/// Scores the network player on the benchmark set, both halves in parallel.
fn score_on_set(
    config: &RunConfig,
    set: &[BenchPosition],
    player: &dyn AgentFactory,
    seed: u64,
) -> Result<SolverFigures, RunError> {
    let rules = config.rules;
    let halves: Vec<&[BenchPosition]> = set.chunks(set.len().div_ceil(2).max(1)).collect();
    let scores: Vec<_> = halves
        .par_iter()
        .enumerate()
        .map(|(i, part)| {
            let mut agent = player.build(rules, seed ^ i as u64)?;
            scoring::score(&rules, part, agent.as_mut())
        })
        .collect();
    let mut by_phase: BTreeMap<Option<Phase>, PhaseScore> = BTreeMap::new();
    for s in scores {
        for (phase, score) in s.map_err(RunError::solver)? {
            by_phase.entry(phase).or_default().add(&score);
        }
    }
    let all = by_phase.remove(&None).unwrap_or_default();
    let critical_by_phase = by_phase
        .into_iter()
        .filter_map(|(phase, s)| {
            Some(PhaseCritical {
                phase: phase?,
                positions: s.critical,
                value_keeping: s.critical_preserving_rate()?,
            })
        })
        .collect();
    let (random, random_critical) = all.random_preserving_rates();
    Ok(SolverFigures {
        positions: all.positions,
        value_accuracy: all.value_accuracy(),
        value_keeping: all.preserving_rate(),
        blunders: all.blunder_rate(),
        critical_positions: all.critical,
        critical_value_keeping: all.critical_preserving_rate(),
        random_value_keeping: random,
        random_critical_value_keeping: random_critical,
        critical_by_phase,
    })
}

/// The solver benchmark set of the run: read from the run folder, or sampled from the
/// databases (solved first where the configuration asks) and written there. `None` when
/// the configuration names no databases. The databases come back too where they had to
/// be loaded, so that self-play's probes need not load them again.
///
/// # Errors
/// The set or the databases are unreadable, or hold positions of other rules.
pub fn bench_set(
    config: &RunConfig,
    dir: &RunDir,
    progress: Option<&ProgressBar>,
) -> Result<(Option<Vec<BenchPosition>>, Option<Solver>), RunError> {
    let Some(db_dir) = &config.solver.db else {
        return Ok((None, None));
    };
    let path = dir.solver_set();
    if path.exists() {
        let (rules, set) = benchmark::read_set(&path).map_err(RunError::solver)?;
        if rules != config.rules {
            return Err(RunError::SetRules {
                path,
                found: rules,
                expected: config.rules,
            });
        }
        return Ok((Some(set), None));
    }
    // The perfect player needs the databases even where the set is the committed one.
    let solver = if config.solver.build_if_missing {
        Some(databases(config, db_dir, progress)?)
    } else {
        None
    };
    let (set, solver) = match benchmark::committed(&config.rules, Part::Tuning) {
        Some(committed) => {
            let committed = committed.map_err(RunError::solver)?;
            let name = benchmark::committed_name(&config.rules, Part::Tuning);
            tracing::info!(set = %name, "solver benchmark from the committed set");
            (
                benchmark::subset(&committed, config.solver.positions),
                solver,
            )
        }
        None => {
            let solver = match solver {
                Some(s) => s,
                None => databases(config, db_dir, progress)?,
            };
            let seed = derive(config.seed, stream::SOLVER_SET, 0);
            (
                benchmark::sample(&solver, config.solver.positions, seed),
                Some(solver),
            )
        }
    };
    benchmark::write_set(&path, &config.rules, &set).map_err(RunError::solver)?;
    tracing::info!(positions = set.len(), file = %path.display(), "solver benchmark set written");
    Ok((Some(set), solver))
}

/// The run's databases: solved where the configuration asks (which reuses every valid
/// file and solves the rest), otherwise opened as they are.
pub(crate) fn databases(
    config: &RunConfig,
    db_dir: &std::path::Path,
    progress: Option<&ProgressBar>,
) -> Result<Solver, RunError> {
    let (rules, max_men) = (config.rules, config.solver.max_men);
    if !config.solver.build_if_missing {
        let opened = Databases::open(db_dir, rules).and_then(|d| d.load(Some(max_men)));
        return opened.map_err(RunError::solver);
    }
    let plan = plan_for(&rules, max_men);
    tracing::info!(folder = %db_dir.display(), steps = plan.len(), "solving the databases");
    if let Some(p) = progress {
        p.set_length(plan.len() as u64);
        p.set_position(0);
        p.set_message(format!("solving {rules} into {}", db_dir.display()));
    }
    let solved = db::solve_into(db_dir, rules, &plan, |_, _, _, _| {
        if let Some(p) = progress {
            p.inc(1);
        }
    });
    solved.map_err(RunError::solver)
}
