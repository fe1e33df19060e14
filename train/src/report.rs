//! What people read and look at after a run: `summary.md` (the run's settings and a table
//! by generation), `summary.csv` (every figure by generation, for spreadsheets and
//! scripts), `strength.svg` (strength by generation as a plot) and the line printed per
//! generation. All take their figures' names from [`crate::metric`]; the files are
//! rewritten after each generation, atomically.

use std::fmt::Write as _;
use std::path::Path;

use kvarn_storage::write_atomically;
use plotters::prelude::*;

use crate::chart::{self, Frame, failed};
use crate::error::RunError;
use crate::manifest::{GenerationRecord, Manifest, Opponent};
use crate::metric::{Metric, metrics_of};
use crate::run_config::RunConfig;
use crate::run_dir::RunDir;
use crate::stages::evaluation::opponents;

/// The CSV table: a `generation` column, then every figure by its name; one row per
/// generation, empty cells for figures not measured.
pub fn csv(config: &RunConfig, manifest: &Manifest) -> String {
    let metrics = metrics_of(config);
    let mut out = String::from("generation");
    for m in &metrics {
        let _ = write!(out, ",{}", m.name());
    }
    out.push('\n');
    for r in &manifest.history {
        let _ = write!(out, "{}", r.generation);
        for m in &metrics {
            let cell = m.value(r).map_or(String::new(), |v| m.file_text(v));
            let _ = write!(out, ",{cell}");
        }
        out.push('\n');
    }
    out
}

/// A column of the tables people read: one figure, or a match's wins, draws and losses.
enum Column {
    Figure(Metric),
    Tally(Opponent),
}

impl Column {
    fn label(&self) -> String {
        match self {
            Column::Figure(m) => m.label(),
            Column::Tally(o) => format!("vs {} (W-D-L)", o.label()),
        }
    }

    fn text(&self, r: &GenerationRecord) -> String {
        match self {
            Column::Figure(m) => m.value(r).map_or("–".into(), |v| m.human_text(v)),
            Column::Tally(o) => r.result_vs(o).map_or("–".into(), |t| {
                format!("{}-{}-{}", t.wins, t.draws, t.losses)
            }),
        }
    }
}

/// The columns of the Markdown table and the terminal line.
fn columns(config: &RunConfig) -> Vec<Column> {
    let mut out = vec![
        Column::Figure(Metric::LossPolicy),
        Column::Figure(Metric::LossValue),
    ];
    for o in opponents(config) {
        out.push(if o.shown_as_tally() {
            Column::Tally(o)
        } else {
            Column::Figure(Metric::Score(o))
        });
    }
    if config.solver.db.is_some() {
        out.push(Column::Figure(Metric::SolverValueAccuracy));
        out.push(Column::Figure(Metric::SolverValueKeeping));
        out.push(Column::Figure(Metric::SolverCriticalValueKeeping));
        out.extend(
            crate::metric::phases_of(config)
                .map(|p| Column::Figure(Metric::SolverCriticalValueKeepingIn(p))),
        );
        out.push(Column::Figure(Metric::SolverRandomCriticalValueKeeping));
    }
    out
}

/// Where the self-play games were played: this machine, or the Ray cluster and how many
/// of its nodes.
fn played_where(config: &RunConfig, manifest: &Manifest) -> String {
    let sp = &config.selfplay;
    match sp.backend {
        kvarn_selfplay::Backend::Local => {
            format!("- self-play: this machine, {} threads", sp.threads)
        }
        kvarn_selfplay::Backend::Ray => {
            let nodes = manifest
                .history
                .iter()
                .filter_map(|r| r.selfplay.cluster_nodes)
                .max()
                .unwrap_or(0);
            format!(
                "- self-play: Ray cluster at {} (tasks of {} games, {} thread(s) each; up to {nodes} nodes in a generation)",
                sp.ray.address, sp.ray.games_per_task, sp.ray.threads_per_task
            )
        }
    }
}

/// The Markdown summary: settings, then a table by generation.
pub fn markdown(config: &RunConfig, manifest: &Manifest) -> String {
    let mut out = String::new();
    // A loaded configuration was validated; a default player stands in for one that was not.
    let player = config
        .run
        .player(&config.search)
        .unwrap_or_else(|_| kvarn_selfplay::PlayerSettings::from_search(&config.search));
    let _ = writeln!(out, "# Kvarn run: {}\n", config.rules);
    let _ = writeln!(
        out,
        "- network: {}\n- search: {} simulations ({} in evaluation{})\n- per generation: {} self-play games, {} training steps of {} samples\n- generations: {} of {}\n- total time: {:.1} min",
        serde_json::to_string(&config.network).unwrap_or_default(),
        config.search.simulations,
        player.search_config().simulations,
        crate::run_config::player_note(&player),
        config.run.games_per_generation,
        config.train.steps_per_generation,
        config.train.batch_size,
        manifest.generations_done(),
        config.run.generations,
        manifest.history.iter().map(|r| r.seconds).sum::<f64>() / 60.0,
    );
    let _ = writeln!(out, "{}\n", played_where(config, manifest));
    let columns = columns(config);
    let mut head = String::from("| gen | steps | promoted |");
    let mut rule = String::from("|---:|---:|:---:|");
    for c in &columns {
        let _ = write!(head, " {} |", c.label());
        rule.push_str("---:|");
    }
    let _ = writeln!(out, "{head}\n{rule}");
    for r in &manifest.history {
        let promoted = Metric::Promoted.human_text(f64::from(u8::from(r.promoted)));
        let _ = write!(out, "| {} | {} | {promoted} |", r.generation, r.step);
        for c in &columns {
            let _ = write!(out, " {} |", c.text(r));
        }
        out.push('\n');
    }
    for r in &manifest.history {
        for m in r
            .evaluation
            .matches
            .iter()
            .filter(|m| !m.failures.is_empty())
        {
            let _ = writeln!(
                out,
                "\n**Generation {}: {} games against {} failed** and are not in its score; the first: {}",
                r.generation,
                m.failures.len(),
                m.opponent.label(),
                m.failures[0]
            );
        }
    }
    for resume in &manifest.state.inexact_resumes {
        let _ = writeln!(
            out,
            "\n**Inexact resume in generation {}**: {}",
            resume.generation, resume.reason
        );
    }
    for amendment in &manifest.state.amendments {
        let _ = writeln!(
            out,
            "\n**Settings changed from generation {}**: `--set {}`",
            amendment.generation,
            amendment.settings.join(" --set ")
        );
    }
    out.push_str(
        "\nScores are the network's share of points (a draw is half). `strength.svg` plots them by generation; `summary.csv` holds every figure; `tensorboard --logdir tb` shows them with the losses by step.\n",
    );
    out
}

/// One line per generation for the terminal and the log.
pub fn terminal_line(config: &RunConfig, r: &GenerationRecord) -> String {
    let mut parts = Vec::new();
    for c in columns(config) {
        parts.push(format!("{} {}", c.label(), c.text(r)));
    }
    for m in r
        .evaluation
        .matches
        .iter()
        .filter(|m| !m.failures.is_empty())
    {
        parts.push(format!(
            "FAILED: {} games vs {} ({})",
            m.failures.len(),
            m.opponent.label(),
            m.failures[0]
        ));
    }
    let gate = r
        .evaluation
        .matches
        .iter()
        .find_map(|m| m.sequential.as_ref());
    if let Some(status) = gate {
        parts.push(format!("gate: {status}"));
    }
    if r.result_vs(&Opponent::Previous).is_some() {
        parts.push(
            if r.promoted {
                "promoted"
            } else {
                "kept the previous model"
            }
            .into(),
        );
    }
    for m in [Metric::SelfPlayPositionsPerSecond, Metric::Seconds] {
        let v = m.value(r).map_or("–".into(), |v| m.human_text(v));
        parts.push(format!("{} {v}", m.label()));
    }
    format!("generation {}: {}", r.generation, parts.join(", "))
}

/// The figures the strength plot draws: scores against fixed opponents and the solver
/// figures, all on one 0..1 axis.
fn plotted(config: &RunConfig) -> Vec<Metric> {
    metrics_of(config)
        .into_iter()
        .filter(|m| match m {
            Metric::Score(o) => *o != Opponent::Previous,
            Metric::SolverValueAccuracy
            | Metric::SolverValueKeeping
            | Metric::SolverCriticalValueKeeping => true,
            _ => false,
        })
        .collect()
}

/// The strength plot as SVG: scores against each opponent and the solver figures, by
/// generation, on one 0..1 axis.
///
/// # Errors
/// The plot cannot be drawn (plotters' message).
pub fn strength_svg(config: &RunConfig, history: &[GenerationRecord]) -> Result<String, String> {
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for m in plotted(config) {
        let points: Vec<(f64, f64)> = history
            .iter()
            .filter_map(|r| m.value(r).map(|v| (f64::from(r.generation), v)))
            .collect();
        if !points.is_empty() {
            series.push((m.label(), points));
        }
    }
    let last = history.last().map_or(1, |r| r.generation).max(1);
    let title = format!("Kvarn: strength by generation ({})", config.rules);
    let frame = Frame {
        title: &title,
        size: (960, 540),
        x: 0f64..f64::from(last),
        y: 0f64..1f64,
        x_desc: "generation",
        y_desc: "score or share",
        whole_labels: None,
        legend: (!series.is_empty()).then_some(SeriesLabelPosition::LowerRight),
    };
    chart::svg(&frame, |chart| {
        for (i, (name, points)) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
                .map_err(failed)?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(failed)?;
        }
        Ok(())
    })
}

/// Writes the three files into the run folder.
///
/// # Errors
/// A file cannot be written or the plot cannot be drawn.
pub fn write(dir: &RunDir, config: &RunConfig, manifest: &Manifest) -> Result<(), RunError> {
    let svg = strength_svg(config, &manifest.history).map_err(|reason| RunError::Report {
        path: dir.strength_plot(),
        reason,
    })?;
    for (path, text) in [
        (dir.summary_markdown(), markdown(config, manifest)),
        (dir.summary_csv(), csv(config, manifest)),
        (dir.strength_plot(), svg),
    ] {
        write_text(&path, &text)?;
    }
    Ok(())
}

fn write_text(path: &Path, text: &str) -> Result<(), RunError> {
    write_atomically(path, text.as_bytes()).map_err(|e| RunError::io(path, e))
}
