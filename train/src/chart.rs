//! The frame Kvarn's SVG charts share (a run's strength, the ladder, a reviewed game's
//! values): one font, margin, mesh and legend style, so that the charts look alike and
//! their look changes in one place.

use std::ops::Range;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// A chart's frame: its title, size in pixels, ranges and axis names.
#[derive(Clone, Debug)]
pub struct Frame<'a> {
    /// The caption above the plot.
    pub title: &'a str,
    /// Width and height in pixels.
    pub size: (u32, u32),
    /// The x range.
    pub x: Range<f64>,
    /// The y range.
    pub y: Range<f64>,
    /// What x measures.
    pub x_desc: &'a str,
    /// What y measures.
    pub y_desc: &'a str,
    /// Whole numbers on both axes, with at most this many x labels (x counting
    /// generations, say); `None`: plotters' labels.
    pub whole_labels: Option<usize>,
    /// Where the legend goes; `None`: no legend (nothing was labelled).
    pub legend: Option<SeriesLabelPosition>,
}

/// The plotting area a chart's series are drawn on.
pub type Chart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Plotters' drawing error as its message.
pub fn failed<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> String {
    e.to_string()
}

/// The chart as SVG text: `frame`'s axes, then what `draw` puts on them, then the legend.
///
/// # Errors
/// The chart cannot be drawn (plotters' message, or `draw`'s).
pub fn svg(
    frame: &Frame<'_>,
    draw: impl FnOnce(&mut Chart<'_, '_>) -> Result<(), String>,
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, frame.size).into_drawing_area();
        root.fill(&WHITE).map_err(failed)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(frame.title, ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(frame.x.clone(), frame.y.clone())
            .map_err(failed)?;
        let whole = |v: &f64| format!("{v:.0}");
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(frame.x_desc).y_desc(frame.y_desc);
        if let Some(labels) = frame.whole_labels {
            mesh.x_labels(labels)
                .x_label_formatter(&whole)
                .y_label_formatter(&whole);
        }
        mesh.draw().map_err(failed)?;
        draw(&mut chart)?;
        if let Some(position) = frame.legend.clone() {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .position(position)
                .draw()
                .map_err(failed)?;
        }
        root.present().map_err(failed)?;
    }
    Ok(svg)
}
