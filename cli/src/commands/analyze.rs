//! `kvarn analyze`: batch analysis in JSON Lines, in the spirit of KataGo's analysis
//! engine. Positions and whole games go in (JSON Lines, or a `kvarn match` records file);
//! one answer per position comes out: the model's win/draw/loss and its best moves with
//! visits, prior and value, and where tables are given, the exact value of the position
//! and of every move. A game's moves are marked as keeping the value, throwing it away
//! (with what was lost) or unknown, with each side's accuracy, a value graph (SVG) and a
//! short report.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use kvarn_game::{Color, Game, Move, Outcome, Position, Rules};
use kvarn_selfplay::analysis::PositionAnalysis;
use kvarn_solver::tables::ExactTables;
use serde::Deserialize;
use serde_json::json;

use crate::rules_args::RulesArgs;

/// Arguments of `kvarn analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// The network player: `net:model=FILE[,SETTING=VALUE...]` (the one-player settings;
    /// its `simulations` count, a `movetime` is refused: a batch shares one budget).
    #[arg(long)]
    agent: String,
    /// Positions and games, one JSON object a line: `{"id": "g1", "position": "...",
    /// "moves": "d6 d2 ..."}`; `position` (default the start) is where `moves` start, and
    /// an item with moves is a game whose every decision is analysed. `-` reads standard
    /// input.
    #[arg(long, conflicts_with = "records", required_unless_present = "records")]
    input: Option<PathBuf>,
    /// A `kvarn match` records file: every game of it reviewed.
    #[arg(long)]
    records: Option<PathBuf>,
    /// Tables of exact values: the endgame databases of `kvarn solve`, or a variant's
    /// whole win/draw/loss tables (Nine's from scripts/solve-nine.sh).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Seconds the placing search may take for one position's exact values (0: no
    /// limit); a position it cannot value in time is marked unknown.
    #[arg(long, default_value_t = 10.0)]
    exact_time: f64,
    /// Memory of the placing search's transposition table, in MiB.
    #[arg(long, default_value_t = 1024)]
    hash: usize,
    /// Positions searched together, their leaves sharing network batches.
    #[arg(long, default_value_t = 64)]
    batch: usize,
    /// Root moves reported for each position.
    #[arg(long, default_value_t = 5)]
    lines: usize,
    /// Where the answers go (default: standard output).
    #[arg(long)]
    out: Option<PathBuf>,
    /// A folder for each game's value graph (`ID.svg`) and report (`ID.md`).
    #[arg(long)]
    report: Option<PathBuf>,
}

/// One input line.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Item {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    position: Option<String>,
    #[serde(default)]
    moves: Option<String>,
}

/// A position or a game to analyse.
struct Task {
    id: String,
    start: Game,
    /// The decisions of a game (empty: the start position alone).
    moves: Vec<Move>,
}

impl Task {
    /// The positions analysed: before each decision of a game, or the one position.
    fn positions(&self) -> Vec<Game> {
        let mut game = self.start.clone();
        let mut out = vec![game.clone()];
        for &m in &self.moves {
            game.play_unchecked(m);
            out.push(game.clone());
        }
        if !self.moves.is_empty() {
            out.pop();
        }
        out.retain(|g| !g.status().is_over());
        out
    }
}

/// Runs `kvarn analyze`.
pub fn run(args: &AnalyzeArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    anyhow::ensure!(args.batch > 0, "--batch must be at least 1");
    anyhow::ensure!(
        args.exact_time.is_finite() && args.exact_time >= 0.0,
        "--exact-time must be a number of seconds, 0 or more"
    );
    let tasks = match (&args.input, &args.records) {
        (_, Some(path)) => record_tasks(path, rules)?,
        (Some(path), None) => input_tasks(path, rules)?,
        (None, None) => anyhow::bail!("give --input or --records"),
    };
    let player = kvarn_selfplay::net_agent::net_player(&args.agent, &rules)?;
    anyhow::ensure!(
        player.node_limit().is_some(),
        "--agent {}: an analysis counts simulations; a movetime is refused (a batch of \
         searches shares one budget of simulations)",
        args.agent
    );
    let exact = match &args.db {
        Some(db) => {
            let started = Instant::now();
            let tables = ExactTables::open(db, rules, args.hash << 20)
                .with_context(|| format!("reading the tables in {}", db.display()))?;
            eprintln!("tables read in {:.1} s", started.elapsed().as_secs_f64());
            Some(tables)
        }
        None => None,
    };
    let games: Vec<Game> = tasks.iter().flat_map(Task::positions).collect();
    anyhow::ensure!(
        !games.is_empty(),
        "nothing to analyse: every position is over"
    );
    let (analyses, stats) = player.analyze(&games, args.batch, args.lines);
    let secs = stats.elapsed.as_secs_f64().max(1e-9);
    eprintln!(
        "{} positions in {:.1} s: {:.1} positions/s, {} network calls of {:.1} positions",
        stats.positions,
        secs,
        stats.positions as f64 / secs,
        stats.batches,
        stats.evaluations as f64 / stats.batches.max(1) as f64
    );
    let limit = (args.exact_time > 0.0).then(|| Duration::from_secs_f64(args.exact_time));
    let mut writer = Output::open(args.out.as_deref())?;
    let mut answers = analyses.into_iter();
    for task in &tasks {
        let review = review(task, &mut answers, exact.as_ref(), limit);
        for line in &review.lines {
            writer.line(line)?;
        }
        if !task.moves.is_empty() {
            writer.line(&review.summary(task))?;
            if let Some(dir) = &args.report {
                write_report(dir, task, &review)?;
            }
        }
    }
    writer.finish()
}

/// Reads the JSON Lines input.
fn input_tasks(path: &Path, rules: Rules) -> anyhow::Result<Vec<Task>> {
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file =
            std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        Box::new(std::io::BufReader::new(file))
    };
    let mut tasks = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let at = || format!("{} line {}", path.display(), i + 1);
        let line = line.with_context(at)?;
        if line.trim().is_empty() {
            continue;
        }
        let item: Item = serde_json::from_str(&line).with_context(at)?;
        tasks.push(task_of(item, rules, tasks.len()).with_context(at)?);
    }
    Ok(tasks)
}

fn task_of(item: Item, rules: Rules, index: usize) -> anyhow::Result<Task> {
    let text = item.position.as_deref().unwrap_or("startpos");
    let pos = Position::from_text(&rules, text).with_context(|| format!("position `{text}`"))?;
    let start = Game::from_position(rules, pos)?;
    let mut game = start.clone();
    if let Some(moves) = &item.moves {
        game.play_text(moves)
            .with_context(|| format!("moves `{moves}`"))?;
    }
    Ok(Task {
        id: item.id.unwrap_or_else(|| (index + 1).to_string()),
        moves: game.moves().skip(start.ply()).collect(),
        start,
    })
}

/// Every game of a `kvarn match` records file.
fn record_tasks(path: &Path, rules: Rules) -> anyhow::Result<Vec<Task>> {
    let (_, records) = kvarn_arena::records::read_records(path)?;
    records
        .into_iter()
        .map(|r| {
            let item = Item {
                id: Some(format!("game-{}", r.game)),
                position: r.start.clone(),
                moves: Some(r.moves.join(" ")),
            };
            task_of(item, rules, r.game)
                .with_context(|| format!("{}: game {}", path.display(), r.game))
        })
        .collect()
}

/// How a decision stands against the exact values.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mark {
    Keeps,
    /// Threw the value away: from, to.
    Blunder(Outcome, Outcome),
    Unknown,
}

/// One task's answers, and its decisions' marks by side.
struct Review {
    lines: Vec<serde_json::Value>,
    /// (ply, side, mark, the model's expected score for White, the exact value for White).
    points: Vec<(usize, Color, Mark, f32, Option<Outcome>)>,
}

impl Review {
    /// The game's summary line: decisions, accuracy by side, blunders.
    fn summary(&self, task: &Task) -> serde_json::Value {
        let side = |c: Color| {
            let known: Vec<_> = self
                .points
                .iter()
                .filter(|p| p.1 == c && p.2 != Mark::Unknown)
                .collect();
            let kept = known.iter().filter(|p| p.2 == Mark::Keeps).count();
            json!({
                "decisions": self.points.iter().filter(|p| p.1 == c).count(),
                "known": known.len(),
                "kept": kept,
                "accuracy": (!known.is_empty()).then(|| kept as f64 / known.len() as f64),
            })
        };
        let blunders: Vec<_> = self
            .points
            .iter()
            .filter_map(|&(ply, c, mark, _, _)| match mark {
                Mark::Blunder(from, to) => Some(json!({
                    "ply": ply,
                    "side": c.to_string(),
                    "move": task.moves.get(ply - task.start.ply()).map(|m| m.to_string()),
                    "lost": format!("{} to {}", from.name(), to.name()),
                })),
                _ => None,
            })
            .collect();
        json!({
            "id": task.id,
            "type": "game",
            "white": side(Color::White),
            "black": side(Color::Black),
            "blunders": blunders,
        })
    }
}

/// The task's answer lines, one per position, with the marks of its decisions.
fn review(
    task: &Task,
    answers: &mut impl Iterator<Item = PositionAnalysis>,
    exact: Option<&ExactTables>,
    limit: Option<Duration>,
) -> Review {
    let mut review = Review {
        lines: Vec::new(),
        points: Vec::new(),
    };
    for game in task.positions() {
        let a = answers.next().expect("an analysis for every position");
        let pos = *game.position();
        let mover = pos.side_to_move();
        let played = task.moves.get(game.ply() - task.start.ply()).copied();
        let values = exact.and_then(|e| e.values(&pos, limit));
        let mark = match (&values, played) {
            (Some((v, moves)), Some(m)) => match moves.iter().find(|(x, _)| *x == m) {
                Some(&(_, u)) if u.score() >= v.score() => Mark::Keeps,
                Some(&(_, u)) => Mark::Blunder(*v, u),
                None => Mark::Unknown,
            },
            _ => Mark::Unknown,
        };
        let mut line = json!({
            "id": task.id,
            "ply": game.ply(),
            "position": pos.to_position_string(game.rules()),
            "to_move": mover.to_string(),
            "analysis": a,
        });
        if let Some((v, moves)) = &values {
            let by_move: serde_json::Map<String, serde_json::Value> = moves
                .iter()
                .map(|(m, o)| (m.to_string(), json!(o.name())))
                .collect();
            line["exact"] = json!({ "value": v.name(), "moves": by_move });
        }
        if let Some(m) = played {
            line["played"] = json!(m.to_string());
            line["mark"] = json!(match mark {
                Mark::Keeps => "keeps".to_string(),
                Mark::Blunder(from, to) => format!("blunder: {} to {}", from.name(), to.name()),
                Mark::Unknown => "unknown".to_string(),
            });
            let white = |x: f32| if mover == Color::White { x } else { -x };
            let exact_white = values.as_ref().map(|(v, _)| {
                if mover == Color::White {
                    *v
                } else {
                    v.negate()
                }
            });
            review.points.push((
                game.ply(),
                mover,
                mark,
                white(a.wdl[0] - a.wdl[2]),
                exact_white,
            ));
        }
        review.lines.push(line);
    }
    review
}

/// Where the answers go: a file written whole (atomically) at the end, or standard output
/// line by line.
enum Output {
    Stdout(std::io::Stdout),
    File(PathBuf, Vec<u8>),
}

impl Output {
    fn open(path: Option<&Path>) -> anyhow::Result<Output> {
        Ok(match path {
            None => Output::Stdout(std::io::stdout()),
            Some(p) => Output::File(p.to_path_buf(), Vec::new()),
        })
    }

    fn line(&mut self, v: &serde_json::Value) -> anyhow::Result<()> {
        match self {
            Output::Stdout(out) => writeln!(out.lock(), "{v}")?,
            Output::File(_, buf) => writeln!(buf, "{v}")?,
        }
        Ok(())
    }

    fn finish(self) -> anyhow::Result<()> {
        if let Output::File(path, buf) = self {
            kvarn_storage::write_atomically(&path, &buf)
                .with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(())
    }
}

/// A game's value graph and its short report, in `dir`.
fn write_report(dir: &Path, task: &Task, review: &Review) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name: String = task
        .id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let svg = value_graph(&task.id, &review.points)
        .map_err(|e| anyhow::anyhow!("the value graph: {e}"))?;
    kvarn_storage::write_atomically(&dir.join(format!("{name}.svg")), svg.as_bytes())?;
    kvarn_storage::write_atomically(
        &dir.join(format!("{name}.md")),
        report_text(task, review).as_bytes(),
    )?;
    Ok(())
}

/// The report a person reads: accuracy by side and each blunder with what it lost.
fn report_text(task: &Task, review: &Review) -> String {
    let summary = review.summary(task);
    let mut text = format!(
        "# {}\n\n{} decisions analysed.\n\n",
        task.id,
        review.points.len()
    );
    for side in ["white", "black"] {
        let s = &summary[side];
        let accuracy = s["accuracy"]
            .as_f64()
            .map_or("unknown (no exact values)".to_string(), |a| {
                format!("{:.1}%", 100.0 * a)
            });
        text.push_str(&format!(
            "- {side}: {} decisions, {} with exact values, {} kept them: accuracy {accuracy}\n",
            s["decisions"], s["known"], s["kept"]
        ));
    }
    let blunders = summary["blunders"].as_array().cloned().unwrap_or_default();
    if blunders.is_empty() {
        text.push_str("\nNo decision known to throw the value away.\n");
    } else {
        text.push_str("\n| ply | side | move | lost |\n|---:|---|---|---|\n");
        for b in blunders {
            text.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                b["ply"],
                b["side"].as_str().unwrap_or(""),
                b["move"].as_str().unwrap_or(""),
                b["lost"].as_str().unwrap_or("")
            ));
        }
    }
    text.push_str("\nThe graph (`.svg`) plots the model's expected score for White after its search, and the exact value where known.\n");
    text
}

/// The model's expected score for White at each decision, and the exact values as
/// points (1 a White win, 0 a draw, −1 a loss), blunders ringed.
fn value_graph(
    title: &str,
    points: &[(usize, Color, Mark, f32, Option<Outcome>)],
) -> Result<String, String> {
    use kvarn_train::chart::{self, Frame, failed};
    use plotters::prelude::*;
    let x1 = points.last().map_or(1, |p| p.0 + 1) as f64;
    let x0 = points.first().map_or(0, |p| p.0) as f64;
    let frame = Frame {
        title,
        size: (960, 400),
        x: x0..x1.max(x0 + 1.0),
        y: -1.05f64..1.05,
        x_desc: "ply",
        y_desc: "expected score for White",
        whole_labels: None,
        legend: Some(SeriesLabelPosition::LowerLeft),
    };
    chart::svg(&frame, |chart| {
        let line: Vec<(f64, f64)> = points
            .iter()
            .map(|p| (p.0 as f64, f64::from(p.3)))
            .collect();
        chart
            .draw_series(LineSeries::new(line, BLUE.stroke_width(2)))
            .map_err(failed)?
            .label("model")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
        let exact = points
            .iter()
            .filter_map(|p| p.4.map(|o| (p.0 as f64, f64::from(o.score()))));
        chart
            .draw_series(exact.map(|p| Circle::new(p, 3, BLACK.filled())))
            .map_err(failed)?
            .label("exact value")
            .legend(|(x, y)| Circle::new((x + 10, y), 3, BLACK.filled()));
        let blunders = points.iter().filter(|p| matches!(p.2, Mark::Blunder(..)));
        chart
            .draw_series(
                blunders.map(|p| Circle::new((p.0 as f64, f64::from(p.3)), 7, RED.stroke_width(2))),
            )
            .map_err(failed)?
            .label("blunder")
            .legend(|(x, y)| Circle::new((x + 10, y), 6, RED.stroke_width(2)));
        Ok(())
    })
}
