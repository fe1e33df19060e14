//! `kvarn solve` and `kvarn probe`: the retrograde solver's databases.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use kvarn_arena::agent::{AgentFactory, AgentSpec, load_solver};
use kvarn_arena::benchmark::{self as scoring, PhaseScore};
use kvarn_arena::matches::{GameRecord, MatchConfig, MatchReport, run_from_positions};
use kvarn_game::Outcome;
use kvarn_game::{Game, Move, Position, Rules, SYMMETRY_COUNT, Variant};
use kvarn_selfplay::exact;
use kvarn_solver::benchmark::BenchPosition;
use kvarn_solver::blunders::{self, Blunder};
use kvarn_solver::db::{self, Databases};
use kvarn_solver::{Solver, Subspace, Value, benchmark, plan_for};

use crate::rules_args::RulesArgs;

/// Arguments of `kvarn solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Nine Men's Morris: solve the moving phase up to this many men a side (from 3).
    /// Six and Five are solved whole.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(3..=9))]
    max_men: u8,
    /// Folder of the database files (created if missing; existing files are reused).
    #[arg(long)]
    out: PathBuf,
    /// Afterwards, check every value against its moves and this many random positions
    /// against an exhaustive forward search of 4 decisions (0: no checks).
    #[arg(long, default_value_t = 0)]
    verify: usize,
}

/// Arguments of `kvarn probe`.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Folder of the database files.
    #[arg(long)]
    db: PathBuf,
    /// The position: `startpos`, a Kvarn position string or a Sanmill FEN.
    position: String,
}

/// Won, drawn and lost counts of a table, symmetry-reduced and over all positions (each
/// class counted as many times as it has distinct images), and the longest win.
fn counts(solver: &Solver, s: &Subspace, table: &[u16]) -> ([u64; 3], [u64; 3], u16) {
    use rayon::prelude::*;
    let rules = *solver.rules();
    table
        .par_iter()
        .enumerate()
        .filter(|&(_, &v)| v != u16::MAX)
        .filter_map(|(i, &v)| solver.position_at(s, i).map(|pos| (pos, Value::unpack(v))))
        .map(|(pos, v)| {
            let (k, longest) = match v {
                Value::Win(d) => (0, d),
                Value::Draw => (1, 0),
                Value::Loss(_) => (2, 0),
            };
            let same = (0..SYMMETRY_COUNT)
                .filter(|&sym| pos.transformed(&rules, sym).key() == pos.key())
                .count();
            let mut reduced = [0u64; 3];
            let mut all = [0u64; 3];
            reduced[k] = 1;
            all[k] = (SYMMETRY_COUNT / same) as u64;
            (reduced, all, longest)
        })
        .reduce(
            || ([0; 3], [0; 3], 0),
            |a, b| {
                (
                    [a.0[0] + b.0[0], a.0[1] + b.0[1], a.0[2] + b.0[2]],
                    [a.1[0] + b.1[0], a.1[1] + b.1[1], a.1[2] + b.1[2]],
                    a.2.max(b.2),
                )
            },
        )
}

/// Runs `kvarn solve`.
pub fn run_solve(args: &SolveArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let plan = plan_for(&rules, args.max_men);
    outln!("solving {rules} into {}", args.out.display());
    let bar = ProgressBar::new(plan.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} steps {elapsed} {msg}")
            .expect("a valid template"),
    );
    let start = Instant::now();
    let mut total = [0u64; 3];
    let solver = db::solve_into(&args.out, rules, &plan, |solver, step, resumed, secs| {
        let subspaces = step.subspaces();
        let pair = subspaces.len() > 1;
        for s in &subspaces {
            let table = solver.table(s).expect("solved or loaded");
            let c = counts(solver, s, table);
            for (t, n) in total.iter_mut().zip(c.1) {
                *t += n;
            }
            let line = subspace_line(&args.out, &rules, s, &c, resumed, secs, pair);
            bar.suspend(|| outln!("{line}"));
        }
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    tracing::info!(steps = plan.len(), folder = %args.out.display(), "solved");
    outln!(
        "done in {:.1} s: {} positions won, {} drawn, {} lost for the player to move",
        start.elapsed().as_secs_f64(),
        total[0],
        total[1],
        total[2]
    );
    if rules.variant() != Variant::Nine {
        let v = solver
            .value(&Position::start(&rules))
            .expect("the start is solved");
        outln!("value of the start position: {}", describe(v));
    }
    if args.verify > 0 {
        verify(&solver, args.verify)?;
    }
    Ok(())
}

/// One solved subspace's line: its counts (`counts`' reduced and whole), longest win,
/// time (shared with its mirror pair where `pair`) and file size.
fn subspace_line(
    out: &Path,
    rules: &Rules,
    s: &Subspace,
    (reduced, all, longest): &([u64; 3], [u64; 3], u16),
    resumed: bool,
    secs: f64,
    pair: bool,
) -> String {
    let bytes = std::fs::metadata(db::path(out, rules, s)).map_or(0, |m| m.len());
    format!(
        "{}{}: won {} drawn {} lost {} (all positions: {} / {} / {}); longest win {longest} turns; {:.2} s{}, {} KiB",
        db::file_name(rules, s),
        if resumed { " (resumed)" } else { "" },
        reduced[0],
        reduced[1],
        reduced[2],
        all[0],
        all[1],
        all[2],
        secs,
        if pair { " for the pair" } else { "" },
        bytes / 1024,
    )
}

/// `--verify N`: every stored value against its moves, then `n` random positions against
/// a forward search.
fn verify(solver: &Solver, n: usize) -> anyhow::Result<()> {
    let t = Instant::now();
    let stored = solver
        .check_consistency()
        .map_err(|e| anyhow::anyhow!("inconsistent value: {e}"))?;
    outln!(
        "consistency: all {stored} stored values agree with their moves ({:.1} s)",
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let proved = kvarn_solver::verify::check_random_positions(solver, n, 4, 1)
        .map_err(|e| anyhow::anyhow!("forward search disagrees: {e}"))?;
    outln!(
        "forward search: {n} random positions agree, {proved} of them proved won or lost within 4 decisions ({:.1} s)",
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

fn describe(v: Value) -> String {
    let turns = |d: u16| {
        if d == 1 {
            "1 turn".to_string()
        } else {
            format!("{d} turns")
        }
    };
    match v {
        Value::Loss(0) => "lost (the game is over)".to_string(),
        Value::Win(d) => format!("win in {} for the player to move", turns(d)),
        Value::Loss(d) => format!("loss in {} for the player to move", turns(d)),
        Value::Draw => "draw".to_string(),
    }
}

/// Runs `kvarn probe`.
pub fn run_probe(args: &ProbeArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let text = args.position.trim();
    let pos = Position::from_text(&rules, text)
        .with_context(|| format!("reading the position `{text}`"))?;
    let databases = Databases::open(&args.db, rules)?;
    // Only the subspaces of the position and of its moves are read.
    let mut needed = vec![pos];
    for &m in pos.legal_moves(&rules).iter() {
        let mut next = pos;
        next.play_unchecked(&rules, m);
        needed.push(next);
    }
    let solver = databases.load_for(&needed)?;
    let value = solver.value(&pos).with_context(|| {
        format!(
            "the databases in {} do not cover this position (solve it with `kvarn solve`)",
            args.db.display()
        )
    })?;
    outln!("{}", pos.to_position_string(&rules));
    outln!("{} to move: {}", pos.side_to_move(), describe(value));
    let space = kvarn_game::ActionSpace::new(&rules);
    let mut moves = solver.move_values(&pos);
    moves.sort_by_key(|&(m, _)| space.index(m));
    for (mv, v) in moves {
        let v = v.map_or("not in the databases".to_string(), describe);
        outln!("  {mv:>7}  {v}");
    }
    Ok(())
}

/// Arguments of `kvarn bench-set`.
#[derive(Args, Debug)]
pub struct BenchSetArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Folder of the database files.
    #[arg(long)]
    db: PathBuf,
    /// Number of positions.
    #[arg(long, default_value_t = 1000)]
    n: usize,
    /// Seed of the sampling.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The benchmark file to write.
    #[arg(long)]
    out: PathBuf,
    /// Split the set in two halves alike: the tuning half into --out, the held-out half
    /// into this file.
    #[arg(long)]
    heldout: Option<PathBuf>,
    /// Leave out the positions of the rules' committed sets (both halves), their
    /// symmetric images and colour-swapped twins: a further set to choose settings on,
    /// independent of the committed held-out half that reports the result.
    #[arg(long)]
    beside_committed: bool,
    /// Leave out the positions that the self-play shards under this folder hold (a run
    /// folder: its games and exact samples, with their images and twins), so that the
    /// run's models are judged on positions they were never trained on; repeatable.
    #[arg(long, value_name = "DIR")]
    unseen_in: Vec<PathBuf>,
    /// Keep only critical positions (where some legal move throws the value away), the
    /// ones critical value-keeping is scored on.
    #[arg(long)]
    critical: bool,
}

/// Runs `kvarn bench-set`.
pub fn run_bench_set(args: &BenchSetArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    anyhow::ensure!(args.n > 0, "--n must be at least 1");
    let solver = Databases::open(&args.db, rules)?.load(None)?;
    let mut set = benchmark::sample(&solver, args.n, args.seed);
    if args.beside_committed {
        let committed = kvarn_solver::benchmark::committed_keys(&rules)?;
        set = leave_out(set, &rules, &committed, "the committed sets'")?;
    }
    for dir in &args.unseen_in {
        let seen = exact::shard_keys(&rules, dir)?;
        set = leave_out(set, &rules, &seen, &format!("in {}", dir.display()))?;
    }
    if args.critical {
        set.retain(BenchPosition::critical);
    }
    if let Some(path) = &args.heldout {
        let (tuning, held_out) = benchmark::split(&set);
        benchmark::write_set(path, &rules, &held_out)?;
        outln!(
            "{} held-out positions written to {}",
            held_out.len(),
            path.display()
        );
        set = tuning;
    }
    benchmark::write_set(&args.out, &rules, &set)?;
    let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
    for b in &set {
        *kinds
            .entry(format!("{:?}/{:?}", b.phase, b.value))
            .or_default() += 1;
    }
    outln!("{} positions written to {}", set.len(), args.out.display());
    for (k, n) in kinds {
        outln!("  {k}: {n}");
    }
    Ok(())
}

/// `set` without the positions whose canonical keys (see [`kvarn_game::Position::canonical_key`]) are in
/// `keys`, saying how many were `whose`.
fn leave_out(
    set: Vec<BenchPosition>,
    rules: &Rules,
    keys: &std::collections::HashSet<u64>,
    whose: &str,
) -> anyhow::Result<Vec<BenchPosition>> {
    let before = set.len();
    let mut kept = Vec::with_capacity(before);
    for b in set {
        if !keys.contains(&b.game(rules)?.position().canonical_key(rules)) {
            kept.push(b);
        }
    }
    outln!("{} of {before} positions are {whose}", before - kept.len());
    Ok(kept)
}

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
    let name = benchmark::committed_name(&rules, part);
    let set = benchmark::committed(&rules, part)
        .with_context(|| format!("no committed set {name} for {rules}: give --set FILE"))??;
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
pub fn run_eval_solver(args: &EvalSolverArgs) -> anyhow::Result<()> {
    if args.thrown_away.is_some() && args.games_from == 0 {
        anyhow::bail!(
            "--thrown-away lists where games from positions were lost: give --games-from N too"
        );
    }
    let (rules, set) = eval_set(args)?;
    let factory = crate::agents::factory(&args.agent, &rules).context("reading --agent")?;
    let spec = factory.name();
    let mut agent = factory.build(rules, args.seed)?;
    let (mut misses, mut misnamed) = (Vec::new(), Vec::new());
    let mut estimates = Estimates::default();
    let scores = scoring::score_each(&rules, &set, agent.as_mut(), |a| {
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
    if let Some(db) = args.db.as_ref().filter(|_| args.games_from > 0) {
        games_from_positions(args, &rules, &set, factory.as_ref(), db)?;
    }
    Ok(())
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

/// `--games-from`: the agent against the perfect player from drawn and from won critical
/// positions of the set.
fn games_from_positions(
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
    // The perfect player's solver (loaded once and shared), to find where games went.
    let solver = load_solver(db, *rules)?;
    let mut thrown_away = Vec::new();
    for (value, aim) in [(Outcome::Draw, "held"), (Outcome::Win, "won")] {
        let starts = benchmark::critical_starts(rules, set, value, args.games_from)?;
        let report = run_from_positions(&cfg, &starts, agent, &perfect, |_| {})?;
        let blunders = first_blunders(&solver, &starts, &report.records, value)?;
        outln!("{}", games_line(&report, starts.len(), value, aim));
        if !blunders.is_empty() {
            outln!("  {}", blunder_summary(blunders.iter().map(|b| &b.1)));
        }
        thrown_away.extend(blunders.into_iter().map(|(game, blunder)| ThrownAway {
            start: value,
            game,
            blunder,
        }));
    }
    if let Some(path) = &args.thrown_away {
        let header = ThrownAwayHeader {
            format: "kvarn-thrown-away",
            version: 1,
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
    solver: &Solver,
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
        let moves = r
            .moves
            .iter()
            .map(|m| m.parse::<Move>())
            .collect::<Result<Vec<_>, _>>()
            .with_context(|| format!("reading the moves of game {}", r.game))?;
        let side = start.position().side_to_move();
        if let Some(b) = blunders::first_blunder(solver, start, moves, side) {
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
