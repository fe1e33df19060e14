//! `kvarn eval solver`: an agent scored on a benchmark set of exact values, and games
//! from its critical positions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use kvarn_arena::agent::{AgentFactory, AgentSpec, load_solver, load_whole_game_with};
use kvarn_arena::benchmark::{self as scoring, PhaseScore};
use kvarn_arena::elo::Tally;
use kvarn_arena::matches::{GameRecord, MatchConfig, MatchReport, run_from_positions, run_match};
use kvarn_game::Outcome;
use kvarn_game::{Color, Game, Move, Rules};
use kvarn_solver::benchmark;
use kvarn_solver::blunders::{self, Blunder};

use crate::rules_args::RulesArgs;

/// Arguments of `kvarn eval solver`.
#[derive(Args, Debug)]
pub struct EvalSolverArgs {
    /// The benchmark file (from `kvarn bench-set`); its rules are used. Default: the
    /// committed held-out set of the rules given (`--variant`, `--flying`).
    #[arg(long)]
    set: Option<PathBuf>,
    /// The committed set's half to use without --set: `heldout` (default) or `tuning`.
    #[arg(long, default_value = "heldout", conflicts_with = "set")]
    part: String,
    /// Without --set: the committed whole-game set (Nine with flying: placing, moving and
    /// flying, valued by the whole moving phase's tables) rather than the endgame set.
    #[arg(long, conflicts_with = "set")]
    whole: bool,
    #[command(flatten)]
    rules: RulesArgs,
    /// The agent to score, e.g. `alphabeta:depth=4`, `perfect:db=DIR` or
    /// `net:model=FILE,simulations=N`.
    #[arg(long)]
    agent: String,
    /// Seed of agents without one of their own.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also play this many games against the perfect player from drawn critical positions
    /// of the set, and as many from won ones, the agent to move: does it hold the draw,
    /// and win the won game? Says where the agent first threw the value away in the games
    /// it did not keep. Needs `--db`.
    #[arg(long, default_value_t = 0, requires = "db")]
    games_from: usize,
    /// Which starts `--games-from` plays from: `draw`, `win` or both.
    #[arg(long, value_delimiter = ',', default_value = "draw,win", value_parser = start_value)]
    games_values: Vec<Outcome>,
    /// Also play this many games against the perfect player from the start position,
    /// colours alternating (the agent White in the first), the perfect player drawing
    /// among its moves that keep the value: how many the agent loses, and where it first
    /// threw the value away. Needs `--db`.
    #[arg(long, default_value_t = 0, requires = "db")]
    games_from_start: usize,
    /// MiB of the placing search's transposition table for the games (win/draw/loss
    /// tables): games from the start reach the first placements, whose proofs need
    /// gigabytes.
    #[arg(long, default_value_t = 1024, value_name = "MIB")]
    hash: usize,
    /// The databases of the perfect player (`kvarn solve`), for `--games-from`.
    #[arg(long)]
    db: Option<PathBuf>,
    /// Write the critical positions whose value the agent threw away to this file, with
    /// the move it chose and its estimate of the outcome: a benchmark set itself, so that
    /// `--set FILE` scores another agent on them.
    #[arg(long)]
    misses: Option<PathBuf>,
    /// Write the positions whose value the agent's estimate misnamed, with that estimate
    /// (a benchmark set too): where value accuracy is lost.
    #[arg(long)]
    misnamed: Option<PathBuf>,
    /// Write, for each game of `--games-from` that the agent did not keep, its first
    /// decision that threw the value away (position, move, phase, values before and after)
    /// to this file: the positions to look at when a drawn start is lost.
    #[arg(long)]
    thrown_away: Option<PathBuf>,
}

/// The header of a `--thrown-away` file.
#[derive(serde::Serialize)]
struct ThrownAwayHeader<'a> {
    format: &'a str,
    version: u32,
    rules: Rules,
    agent: &'a str,
}

/// One row of a `--thrown-away` file: a game from a benchmark position that the agent
/// did not keep, and where it first threw the value away.
#[derive(serde::Serialize)]
struct ThrownAway {
    /// Where the game began: `critical position` (of the set) or `start position`.
    from: &'static str,
    /// The exact value of the game's start for the agent: a draw to hold, a win to win.
    start: Outcome,
    /// The game's number among those from positions of that value.
    game: usize,
    /// The decision, its position and the exact values before and after it.
    #[serde(flatten)]
    blunder: Blunder,
}

/// The set `kvarn eval solver` scores on: the file given, or the committed one.
fn eval_set(args: &EvalSolverArgs) -> anyhow::Result<(Rules, Vec<benchmark::BenchPosition>)> {
    if let Some(path) = &args.set {
        return Ok(benchmark::read_set(path)?);
    }
    let rules = args.rules.rules()?;
    let part = match args.part.as_str() {
        "heldout" => benchmark::Part::HeldOut,
        "tuning" => benchmark::Part::Tuning,
        other => anyhow::bail!("--part {other}: expected heldout or tuning"),
    };
    let (name, set) = if args.whole {
        let name = benchmark::committed_whole_name(&rules, part).with_context(|| {
            format!("no committed whole-game set for {rules} beside its committed set: leave out --whole")
        })?;
        (name, benchmark::committed_whole(&rules, part))
    } else {
        let name = benchmark::committed_name(&rules, part);
        (name, benchmark::committed(&rules, part))
    };
    let set =
        set.with_context(|| format!("no committed set {name} for {rules}: give --set FILE"))??;
    outln!("the committed set {name}");
    Ok((rules, set))
}

/// How an agent's outcome estimates fall against the exact values, by phase: where its
/// value accuracy is lost (a won position called a draw, or a lost one a win).
#[derive(Default)]
struct Estimates {
    /// (phase, exact value) -> how many estimates of a win, a draw, a loss, and none.
    counts: BTreeMap<(kvarn_game::Phase, Outcome), [u32; 4]>,
}

impl Estimates {
    /// The column of an estimate: a win, a draw, a loss, or none.
    fn column(estimate: Option<Outcome>) -> usize {
        match estimate {
            Some(Outcome::Win) => 0,
            Some(Outcome::Draw) => 1,
            Some(Outcome::Loss) => 2,
            None => 3,
        }
    }

    fn add(&mut self, a: &scoring::Answer) {
        let key = (a.position.phase, a.position.value);
        self.counts.entry(key).or_default()[Self::column(a.estimate)] += 1;
    }

    fn print(&self) {
        if self.counts.values().all(|c| c[3] == c.iter().sum::<u32>()) {
            return;
        }
        outln!("outcome estimates by exact value (positions)");
        outln!(
            "{:<10} {:<6} {:>9} {:>9} {:>9} {:>9}",
            "phase",
            "exact",
            "est. win",
            "est. draw",
            "est. loss",
            "right"
        );
        for ((phase, exact), c) in &self.counts {
            let known = c[0] + c[1] + c[2];
            let right = c[Self::column(Some(*exact))];
            outln!(
                "{:<10} {:<6} {:>9} {:>9} {:>9} {:>8.1}%",
                phase.name(),
                format!("{exact:?}").to_lowercase(),
                c[0],
                c[1],
                c[2],
                100.0 * f64::from(right) / f64::from(known.max(1))
            );
        }
    }
}

/// Runs `kvarn eval solver`.
pub fn run(args: &EvalSolverArgs) -> anyhow::Result<()> {
    if args.thrown_away.is_some() && args.games_from + args.games_from_start == 0 {
        anyhow::bail!(
            "--thrown-away lists where games from positions were lost: give --games-from N \
             or --games-from-start N too"
        );
    }
    let (rules, set) = eval_set(args)?;
    let factory =
        kvarn_selfplay::net_agent::factory(&args.agent, &rules).context("reading --agent")?;
    let spec = factory.name();
    let mut agent = factory.build(rules, args.seed)?;
    let (mut misses, mut misnamed) = (Vec::new(), Vec::new());
    let mut estimates = Estimates::default();
    let mut stages: BTreeMap<(u8, String), PhaseScore> = BTreeMap::new();
    let scores = scoring::score_each(&rules, &set, agent.as_mut(), |a| {
        if let Ok(game) = a.position.game(&rules) {
            stages
                .entry(stage(&rules, game.position()))
                .or_default()
                .add(&a.score());
        }
        if a.position.critical() && !a.kept {
            misses.push(a.clone());
        }
        if a.estimate.is_some_and(|e| e != a.position.value) {
            misnamed.push(a.clone());
        }
        estimates.add(a);
    })?;
    outln!("{spec} on {} positions of {rules}", set.len());
    print_scores(&scores);
    if stages.len() > 1 {
        print_stages(&stages);
    }
    estimates.print();
    write_answers(
        args.misses.as_deref(),
        &rules,
        &misses,
        "missed critical positions",
    )?;
    write_answers(
        args.misnamed.as_deref(),
        &rules,
        &misnamed,
        "positions whose value was misnamed",
    )?;
    if let Some(db) = &args.db
        && args.games_from + args.games_from_start > 0
    {
        games_against_perfect(args, &rules, &set, factory.as_ref(), db)?;
    }
    Ok(())
}

/// A start value for `--games-values`: `draw` or `win`.
fn start_value(s: &str) -> Result<Outcome, String> {
    match s {
        "draw" => Ok(Outcome::Draw),
        "win" => Ok(Outcome::Win),
        other => Err(format!("`{other}`: expected draw or win")),
    }
}

/// The score table of `kvarn eval solver`: one row for all positions, one per phase.
fn print_scores(scores: &BTreeMap<Option<kvarn_game::Phase>, PhaseScore>) {
    outln!(
        "{:<10} {:>9} {:>15} {:>14} {:>8} {:>9} {:>17} {:>16} {:>9}",
        "phase",
        "positions",
        "value accuracy",
        "value-keeping",
        "random",
        "critical",
        "critical keeping",
        "random critical",
        "blunders"
    );
    for (phase, s) in scores {
        let name = phase.map_or("all", |p| p.name());
        let pct = |v: Option<f64>| v.map_or("n/a".to_string(), |a| format!("{:.1}%", 100.0 * a));
        let (random, random_critical) = s.random_preserving_rates();
        outln!(
            "{name:<10} {:>9} {:>15} {:>14} {:>8} {:>9} {:>17} {:>16} {:>9}",
            s.positions,
            pct(s.value_accuracy()),
            pct(Some(s.preserving_rate())),
            pct(Some(random)),
            s.critical,
            pct(s.critical_preserving_rate()),
            pct(random_critical),
            pct(Some(s.blunder_rate()))
        );
    }
    outln!(
        "value-keeping: moves that keep the value (won or drawn positions); critical: \
         positions where some move throws the value away; random: what uniformly random \
         moves keep, in expectation; blunders: moves that throw a win or a draw away"
    );
}

/// Where in the game a position stands, in an order that follows the game: men placed, by
/// fours, while placing; men on the board after.
fn stage(rules: &Rules, pos: &kvarn_game::Position) -> (u8, String) {
    use kvarn_game::Color;
    let placed = kvarn_solver::benchmark::whole_game::men_placed(rules, pos);
    if placed < 2 * rules.men() {
        let from = placed / 4 * 4;
        let to = (from + 3).min(2 * rules.men() - 1);
        return (from, format!("placed {from}-{to}"));
    }
    let men = pos.men(Color::White).count() + pos.men(Color::Black).count();
    (100 - men as u8, format!("{men} men"))
}

/// The scores by stage of the game: critical value-keeping where the set has positions
/// of more than one stage.
fn print_stages(stages: &BTreeMap<(u8, String), PhaseScore>) {
    outln!("by stage (men placed while placing; men on the board after)");
    outln!(
        "{:<14} {:>9} {:>15} {:>9} {:>17} {:>16}",
        "stage",
        "positions",
        "value accuracy",
        "critical",
        "critical keeping",
        "random critical"
    );
    let pct = |v: Option<f64>| v.map_or("n/a".to_string(), |a| format!("{:.1}%", 100.0 * a));
    for ((_, name), s) in stages {
        outln!(
            "{name:<14} {:>9} {:>15} {:>9} {:>17} {:>16}",
            s.positions,
            pct(s.value_accuracy()),
            s.critical,
            pct(s.critical_preserving_rate()),
            pct(s.random_preserving_rates().1)
        );
    }
}

/// Writes `answers` as a benchmark set to `path`, where one is given, and says how many
/// `what` it wrote there.
fn write_answers(
    path: Option<&Path>,
    rules: &Rules,
    answers: &[scoring::Answer],
    what: &str,
) -> anyhow::Result<()> {
    if let Some(path) = path {
        benchmark::write_set(path, rules, answers)?;
        outln!("{} {what} written to {}", answers.len(), path.display());
    }
    Ok(())
}

/// `--games-from` and `--games-from-start`: the agent against the perfect player from
/// drawn and from won critical positions of the set, and from the start position.
fn games_against_perfect(
    args: &EvalSolverArgs,
    rules: &Rules,
    set: &[benchmark::BenchPosition],
    agent: &dyn AgentFactory,
    db: &std::path::Path,
) -> anyhow::Result<()> {
    let perfect = AgentSpec::Perfect {
        db: db.to_path_buf(),
        seed: None,
    };
    let cfg = MatchConfig {
        rules: *rules,
        games: 0,
        seed: args.seed,
        opening_plies: 0,
    };
    // The perfect player's values (loaded once and shared with the perfect players), to
    // find where games went.
    let exact: Arc<dyn blunders::ExactOutcome + Send + Sync> =
        if kvarn_solver::db::has_wdl(db, rules) {
            load_whole_game_with(db, *rules, args.hash << 20)?
        } else {
            load_solver(db, *rules)?
        };
    let mut thrown_away = Vec::new();
    let from_positions = [(Outcome::Draw, "held"), (Outcome::Win, "won")]
        .into_iter()
        .filter(|(v, _)| args.games_from > 0 && args.games_values.contains(v));
    for (value, aim) in from_positions {
        let starts = benchmark::critical_starts(rules, set, value, args.games_from)?;
        let report = run_from_positions(&cfg, &starts, agent, &perfect, |_| {})?;
        let blunders = first_blunders(exact.as_ref(), &starts, &report.records, value)?;
        outln!("{}", games_line(&report, starts.len(), value, aim));
        if !blunders.is_empty() {
            outln!("  {}", blunder_summary(blunders.iter().map(|b| &b.1)));
        }
        thrown_away.extend(blunders.into_iter().map(|(game, blunder)| ThrownAway {
            from: "critical position",
            start: value,
            game,
            blunder,
        }));
    }
    if args.games_from_start > 0 {
        let cfg = MatchConfig {
            games: args.games_from_start,
            ..cfg
        };
        thrown_away.extend(games_from_start(&cfg, agent, &perfect, exact.as_ref())?);
    }
    if let Some(path) = &args.thrown_away {
        let header = ThrownAwayHeader {
            format: "kvarn-thrown-away",
            version: 2,
            rules: *rules,
            agent: &args.agent,
        };
        kvarn_storage::write_jsonl(path, &header, &thrown_away)
            .with_context(|| format!("writing {}", path.display()))?;
        outln!(
            "{} games' first values thrown away written to {}",
            thrown_away.len(),
            path.display()
        );
    }
    Ok(())
}

/// `--games-from-start`: `cfg.games` games from the start position against the perfect
/// player, colours alternating; prints what the agent kept and returns where it first
/// threw the value away in the games it did not keep.
fn games_from_start(
    cfg: &MatchConfig,
    agent: &dyn AgentFactory,
    perfect: &AgentSpec,
    exact: &dyn blunders::ExactOutcome,
) -> anyhow::Result<Vec<ThrownAway>> {
    let started = std::time::Instant::now();
    let report = run_match(cfg, agent, perfect, |r| {
        tracing::info!(game = r.game, white = %r.white, result = %r.result, reason = %r.reason,
            decisions = r.moves.len(), "game from the start played");
    })?;
    let start = Game::new(cfg.rules);
    // Proved once by the perfect player's first move as White; kept in its table since.
    let value = exact
        .outcome(start.position())
        .context("the start position is outside the perfect player's tables")?;
    let mut by_colour = [Tally::default(); 2];
    let mut thrown = Vec::new();
    for r in &report.records {
        // The agent is White in even games (the names may be alike: perfect against itself).
        let side = if r.game.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        };
        let own = if side == Color::White {
            value
        } else {
            value.negate()
        };
        by_colour[side.index()].record(match r.winner() {
            None => 0,
            Some(w) if w == side => 1,
            Some(_) => -1,
        });
        if r.kept(side, own) {
            continue;
        }
        let moves = record_moves(r)?;
        if let Some(blunder) = blunders::first_blunder(exact, &start, moves, side) {
            thrown.push(ThrownAway {
                from: "start position",
                start: own,
                game: r.game,
                blunder,
            });
        }
    }
    let t = report.tally;
    outln!(
        "from the start position ({value:?} for White) against the perfect player: {} games, \
         {}-{}-{} W-D-L (as White {}, as Black {}) in {:.0} s{}",
        report.records.len(),
        t.wins,
        t.draws,
        t.losses,
        wdl(&by_colour[0]),
        wdl(&by_colour[1]),
        started.elapsed().as_secs_f64(),
        match report.failures.first() {
            None => String::new(),
            Some(first) => format!(", {} games failed: {first}", report.failures.len()),
        }
    );
    if !thrown.is_empty() {
        outln!("  {}", blunder_summary(thrown.iter().map(|b| &b.blunder)));
    }
    Ok(thrown)
}

/// The decisions of a game record, read from their notation.
fn record_moves(r: &GameRecord) -> anyhow::Result<Vec<Move>> {
    r.moves
        .iter()
        .map(|m| m.parse::<Move>())
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("reading the moves of game {}", r.game))
}

/// A tally as `W-D-L`.
fn wdl(t: &Tally) -> String {
    format!("{}-{}-{}", t.wins, t.draws, t.losses)
}

/// What the agent kept of the games from `starts` positions of `value`.
fn games_line(report: &MatchReport, starts: usize, value: Outcome, aim: &str) -> String {
    let t = report.tally;
    let kept = if value == Outcome::Draw {
        t.wins + t.draws
    } else {
        t.wins
    };
    let failures = match report.failures.first() {
        None => String::new(),
        Some(first) => format!(", {} games failed: {first}", report.failures.len()),
    };
    format!(
        "from {starts} {value:?} critical positions against the perfect player: {aim} {kept} \
         ({}-{}-{} W-D-L){failures}",
        t.wins, t.draws, t.losses
    )
}

/// The first decision of the agent (the side to move at the start) that threw the value
/// away, in each game of `records` that it did not keep at `value`. The databases ignore
/// the draw rules, so in a game the agent kept, a decision they call value-losing is one
/// that the no-capture rule made harmless (a loss too long to finish before the limit):
/// such games are left out rather than counted as thrown away.
fn first_blunders(
    exact: &dyn blunders::ExactOutcome,
    starts: &[Game],
    records: &[GameRecord],
    value: Outcome,
) -> anyhow::Result<Vec<(usize, Blunder)>> {
    let mut found = Vec::new();
    for r in records {
        let start = &starts[r.game];
        if r.kept(start.position().side_to_move(), value) {
            continue;
        }
        let moves = record_moves(r)?;
        let side = start.position().side_to_move();
        if let Some(b) = blunders::first_blunder(exact, start, moves, side) {
            tracing::debug!(game = r.game, decision = b.decision, phase = b.phase.name(),
                position = %b.position, chosen = %b.chosen, "first value thrown away");
            found.push((r.game, b));
        }
    }
    Ok(found)
}

/// Where the values were thrown away: by phase, and how many decisions into the game.
fn blunder_summary<'a>(blunders: impl Iterator<Item = &'a Blunder>) -> String {
    let mut by_phase: BTreeMap<&str, usize> = BTreeMap::new();
    let mut decisions = Vec::new();
    for b in blunders {
        *by_phase.entry(b.phase.name()).or_default() += 1;
        decisions.push(b.decision);
    }
    decisions.sort_unstable();
    let phases: Vec<String> = by_phase.iter().map(|(p, n)| format!("{p} {n}")).collect();
    format!(
        "values thrown away by the agent in the {} games not kept: {}; at its decision {} of the game \
         (median; first {}, last {})",
        decisions.len(),
        phases.join(", "),
        decisions[decisions.len() / 2],
        decisions[0],
        decisions[decisions.len() - 1]
    )
}
