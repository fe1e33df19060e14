//! The plot of `kvarn ladder`: Elo by generation with 95% interval bars, and the fixed
//! baselines as horizontal lines.

use plotters::prelude::*;

use crate::chart::{self, Frame, failed};

/// One player on the plot.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderPoint {
    /// The player's name (used in the legend for baselines).
    pub label: String,
    /// The generation of a model; `None` for a fixed baseline.
    pub generation: Option<u32>,
    /// Elo on the ladder's scale.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

/// The y range: every interval, with a margin.
fn y_range(points: &[LadderPoint]) -> (f64, f64) {
    let lo = points
        .iter()
        .map(|p| p.low.min(p.elo))
        .fold(f64::MAX, f64::min);
    let hi = points
        .iter()
        .map(|p| p.high.max(p.elo))
        .fold(f64::MIN, f64::max);
    if !(lo.is_finite() && hi.is_finite()) {
        return (-100.0, 100.0);
    }
    let margin = ((hi - lo) * 0.08).max(20.0);
    (lo - margin, hi + margin)
}

/// The ladder as SVG: models by generation with interval bars joined by a line, each
/// baseline a horizontal line across the plot.
///
/// # Errors
/// The plot cannot be drawn (plotters' message).
pub fn ladder_svg(title: &str, points: &[LadderPoint]) -> Result<String, String> {
    let models: Vec<&LadderPoint> = points.iter().filter(|p| p.generation.is_some()).collect();
    let baselines: Vec<&LadderPoint> = points.iter().filter(|p| p.generation.is_none()).collect();
    let gens: Vec<f64> = models
        .iter()
        .filter_map(|p| p.generation.map(f64::from))
        .collect();
    let (x0, x1) = match (gens.first(), gens.last()) {
        (Some(&a), Some(&b)) if b > a => (a, b),
        (Some(&a), _) => (a - 1.0, a + 1.0),
        _ => (0.0, 1.0),
    };
    let pad = (x1 - x0) * 0.03;
    let (y0, y1) = y_range(points);
    let frame = Frame {
        title,
        size: (960, 540),
        x: (x0 - pad)..(x1 + pad),
        y: y0..y1,
        x_desc: "generation",
        y_desc: "Elo (95% interval)",
        // Whole generations: at most one label per generation.
        whole_labels: Some(((x1 - x0) as usize + 1).clamp(2, 12)),
        legend: Some(SeriesLabelPosition::LowerRight),
    };
    chart::svg(&frame, |chart| {
        for (i, b) in baselines.iter().enumerate() {
            let color = Palette99::pick(i + 1).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    [(x0 - pad, b.elo), (x1 + pad, b.elo)],
                    color.stroke_width(1),
                ))
                .map_err(failed)?
                .label(format!("{} ({:.0})", b.label, b.elo))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
        let line: Vec<(f64, f64)> = models
            .iter()
            .map(|p| (p.generation.map_or(0.0, f64::from), p.elo))
            .collect();
        let blue = BLUE.stroke_width(2);
        chart
            .draw_series(LineSeries::new(line.clone(), blue))
            .map_err(failed)?
            .label("models")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], blue));
        let cap = (x1 - x0 + 2.0 * pad) * 0.006;
        let bars = models.iter().flat_map(|p| {
            let x = p.generation.map_or(0.0, f64::from);
            [
                PathElement::new(vec![(x, p.low), (x, p.high)], BLUE),
                PathElement::new(vec![(x - cap, p.low), (x + cap, p.low)], BLUE),
                PathElement::new(vec![(x - cap, p.high), (x + cap, p.high)], BLUE),
            ]
        });
        chart.draw_series(bars).map_err(failed)?;
        chart
            .draw_series(line.iter().map(|&p| Circle::new(p, 3, BLUE.filled())))
            .map_err(failed)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_models_and_baselines() {
        let p = |label: &str, generation, elo: f64| LadderPoint {
            label: label.into(),
            generation,
            elo,
            low: elo - 50.0,
            high: elo + 50.0,
        };
        let points = [
            p("gen-0000", Some(0), 0.0),
            p("gen-0010", Some(10), 250.0),
            p("gen-0020", Some(20), 400.0),
            p("random", None, -300.0),
            p("alphabeta:depth=2", None, 200.0),
        ];
        let svg = ladder_svg("ladder", &points).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("alphabeta:depth=2 (200)") && svg.contains("random (-300)"));
        // Only baselines, or one model: still a plot.
        assert!(ladder_svg("x", &points[3..]).is_ok());
        assert!(ladder_svg("x", &points[..1]).is_ok());
    }
}
