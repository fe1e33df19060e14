//! What people read and look at after a run: `summary.md` (the run's settings and a table
//! by generation), `summary.csv` (every figure by generation, for spreadsheets and
//! scripts) and `strength.svg` (strength by generation as a plot). All three are rewritten
//! after each generation, atomically.

use std::fmt::Write as _;
use std::path::Path;

use kvarn_storage::write_atomically;
use plotters::prelude::*;

use crate::run::{GenerationRecord, Manifest, RunError};
use crate::run_config::RunConfig;

/// File names in the run folder.
pub const SUMMARY_MARKDOWN: &str = "summary.md";
/// See [`SUMMARY_MARKDOWN`].
pub const SUMMARY_CSV: &str = "summary.csv";
/// See [`SUMMARY_MARKDOWN`].
pub const STRENGTH_PLOT: &str = "strength.svg";

fn opt(v: Option<f64>, scale: f64, digits: usize) -> String {
    v.map_or(String::new(), |x| format!("{:.*}", digits, x * scale))
}

/// The CSV table: one row per generation, empty cells for figures not measured.
pub fn csv(config: &RunConfig, manifest: &Manifest) -> String {
    let mut out = String::from(
        "generation,step,promoted,seconds,selfplay_positions_per_second,train_steps_per_second,window_samples,loss_policy,loss_value,score_vs_previous,elo_vs_previous,score_vs_random",
    );
    for d in &config.run.baseline_depths {
        let _ = write!(out, ",score_vs_alphabeta_d{d},elo_vs_alphabeta_d{d}");
    }
    out.push_str(
        ",solver_value_accuracy,solver_value_keeping,solver_blunders,perfect_wins,perfect_draws,perfect_losses\n",
    );
    for r in &manifest.history {
        let _ = write!(
            out,
            "{},{},{},{:.1},{:.0},{:.2},{},{:.4},{:.4},{},{},{}",
            r.generation,
            r.step,
            r.promoted,
            r.seconds,
            r.selfplay_positions_per_second,
            r.train_steps_per_second,
            r.window_samples,
            r.loss.0,
            r.loss.1,
            opt(r.vs_previous.map(|v| v.0), 1.0, 4),
            opt(r.vs_previous.map(|v| v.1), 1.0, 1),
            opt(r.vs_random.map(|v| v.0), 1.0, 4),
        );
        for d in &config.run.baseline_depths {
            let b = r.vs_baseline.iter().find(|b| b.0 == *d);
            let _ = write!(
                out,
                ",{},{}",
                opt(b.map(|b| b.1), 1.0, 4),
                opt(b.map(|b| b.2), 1.0, 1)
            );
        }
        let s = r.solver.as_ref();
        let p = r.vs_perfect.as_ref();
        let _ = writeln!(
            out,
            ",{},{},{},{},{},{}",
            opt(s.and_then(|s| s.value_accuracy), 1.0, 4),
            opt(s.map(|s| s.value_keeping), 1.0, 4),
            opt(s.map(|s| s.blunders), 1.0, 4),
            p.map_or(String::new(), |p| p.wins.to_string()),
            p.map_or(String::new(), |p| p.draws.to_string()),
            p.map_or(String::new(), |p| p.losses.to_string()),
        );
    }
    out
}

fn pct(v: Option<f64>) -> String {
    v.map_or("–".to_string(), |x| format!("{:.1}%", 100.0 * x))
}

/// The Markdown summary: settings, then a table by generation, then the last figures.
pub fn markdown(config: &RunConfig, manifest: &Manifest) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Kvarn run: {}\n", config.rules);
    let _ = writeln!(
        out,
        "- network: {}\n- search: {} simulations ({} in evaluation)\n- per generation: {} self-play games, {} training steps of {} samples\n- generations: {} of {}\n- total time: {:.1} min\n",
        serde_json::to_string(&config.network).unwrap_or_default(),
        config.search.simulations,
        config.run.eval_simulations,
        config.run.games_per_generation,
        config.train.steps_per_generation,
        config.train.batch_size,
        manifest.generations_done,
        config.run.generations,
        manifest.history.iter().map(|r| r.seconds).sum::<f64>() / 60.0,
    );
    let mut head =
        String::from("| gen | steps | promoted | policy loss | value loss | vs previous |");
    let mut rule = String::from("|---:|---:|:---:|---:|---:|---:|");
    if config.run.games_vs_random > 0 {
        head.push_str(" vs random |");
        rule.push_str("---:|");
    }
    for d in &config.run.baseline_depths {
        let _ = write!(head, " vs alpha-beta {d} |");
        rule.push_str("---:|");
    }
    if config.solver.db.is_some() {
        head.push_str(" solver value accuracy | value-keeping moves |");
        rule.push_str("---:|---:|");
        if config.solver.games_vs_perfect > 0 {
            head.push_str(" vs perfect (W-D-L) |");
            rule.push_str(":---:|");
        }
    }
    let _ = writeln!(out, "{head}\n{rule}");
    for r in &manifest.history {
        let _ = write!(
            out,
            "| {} | {} | {} | {:.3} | {:.3} | {} |",
            r.generation,
            r.step,
            if r.promoted { "yes" } else { "no" },
            r.loss.0,
            r.loss.1,
            pct(r.vs_previous.map(|v| v.0)),
        );
        if config.run.games_vs_random > 0 {
            let _ = write!(out, " {} |", pct(r.vs_random.map(|v| v.0)));
        }
        for d in &config.run.baseline_depths {
            let b = r.vs_baseline.iter().find(|b| b.0 == *d);
            let _ = write!(out, " {} |", pct(b.map(|b| b.1)));
        }
        if config.solver.db.is_some() {
            let s = r.solver.as_ref();
            let _ = write!(
                out,
                " {} | {} |",
                pct(s.and_then(|s| s.value_accuracy)),
                pct(s.map(|s| s.value_keeping))
            );
            if config.solver.games_vs_perfect > 0 {
                let p = r.vs_perfect.as_ref();
                let _ = write!(
                    out,
                    " {} |",
                    p.map_or("–".to_string(), |p| format!(
                        "{}-{}-{}",
                        p.wins, p.draws, p.losses
                    ))
                );
            }
        }
        out.push('\n');
    }
    out.push_str(
        "\nScores are the network's share of points (a draw is half). `strength.svg` plots them by generation; `summary.csv` holds every figure; `tensorboard --logdir tb` shows them with the losses by step.\n",
    );
    out
}

/// The strength plot as SVG: scores against each opponent and the solver figures, by
/// generation, on one 0..1 axis.
///
/// # Errors
/// The plot cannot be drawn (plotters' message).
pub fn strength_svg(config: &RunConfig, history: &[GenerationRecord]) -> Result<String, String> {
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let mut add = |name: String, f: &dyn Fn(&GenerationRecord) -> Option<f64>| {
        let points: Vec<(f64, f64)> = history
            .iter()
            .filter_map(|r| f(r).map(|v| (f64::from(r.generation), v)))
            .collect();
        if !points.is_empty() {
            series.push((name, points));
        }
    };
    add("score vs random".into(), &|r| r.vs_random.map(|v| v.0));
    for &d in &config.run.baseline_depths {
        add(format!("score vs alpha-beta depth {d}"), &move |r| {
            r.vs_baseline.iter().find(|b| b.0 == d).map(|b| b.1)
        });
    }
    add("solver value accuracy".into(), &|r| {
        r.solver.as_ref().and_then(|s| s.value_accuracy)
    });
    add("solver value-keeping moves".into(), &|r| {
        r.solver.as_ref().map(|s| s.value_keeping)
    });
    add("score vs perfect player".into(), &|r| {
        r.vs_perfect.as_ref().map(|p| p.score())
    });
    let last = history.last().map_or(1, |r| r.generation).max(1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 540)).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("Kvarn: strength by generation ({})", config.rules),
                ("sans-serif", 22),
            )
            .margin(16)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..f64::from(last), 0f64..1f64)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("generation")
            .y_desc("score or share")
            .draw()
            .map_err(e)?;
        for (i, (name, points)) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
                .map_err(e)?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(e)?;
        }
        if !series.is_empty() {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .position(SeriesLabelPosition::LowerRight)
                .draw()
                .map_err(e)?;
        }
        root.present().map_err(e)?;
    }
    Ok(svg)
}

/// Writes the three files into the run folder.
///
/// # Errors
/// A file cannot be written or the plot cannot be drawn.
pub fn write(dir: &Path, config: &RunConfig, manifest: &Manifest) -> Result<(), RunError> {
    let svg = strength_svg(config, &manifest.history).map_err(|reason| RunError::File {
        path: dir.join(STRENGTH_PLOT).display().to_string(),
        reason,
    })?;
    for (name, text) in [
        (SUMMARY_MARKDOWN, markdown(config, manifest)),
        (SUMMARY_CSV, csv(config, manifest)),
        (STRENGTH_PLOT, svg),
    ] {
        let path = dir.join(name);
        write_atomically(&path, text.as_bytes()).map_err(|e| RunError::File {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
    }
    Ok(())
}
