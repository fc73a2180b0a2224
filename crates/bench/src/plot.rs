//! The report as a PNG: weight GB/s per shape against the measured copy ceiling.

use crate::Report;
use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

fn register_font() -> Result<()> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        let env = std::env::var("NBITS_MLP_FONT").ok();
        let bytes = env
            .iter()
            .map(String::as_str)
            .chain(FONT_PATHS.iter().copied())
            .find_map(|p| std::fs::read(p).ok())
            .ok_or_else(|| format!("no TrueType font found for the plot (tried {}; set NBITS_MLP_FONT, or install fonts-dejavu-core)", FONT_PATHS.join(", ")))?;
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).map_err(|_| "the font file is not a valid TrueType font".to_string())
    })
    .clone()
    .map_err(|e| anyhow!(e))
}

/// Draws the report's weight GB/s per shape as horizontal bars, with the copy bandwidth
/// (read + write) as a vertical line, to a PNG at `path`.
pub fn plot(report: &Report, path: &Path) -> Result<()> {
    register_font()?;
    let n = report.measurements.len().max(1);
    let labels: Vec<String> = report
        .measurements
        .iter()
        .map(|m| format!("{}  {:.0} us", m.shape.label(), m.gpu_us))
        .collect();
    let xmax = report
        .measurements
        .iter()
        .map(|m| m.weight_gbps)
        .fold(report.copy_gbps, f64::max)
        * 1.1;
    let height = 120 + 26 * n as u32;
    let root = BitMapBackend::new(path, (1200, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow!("plot: {e}"))?;
    let caption = format!(
        "nbits-mlp on {} ({}), {}",
        report.gpu, report.backend, report.date
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(380)
        .build_cartesian_2d(0f64..xmax, (0..n).into_segmented())
        .map_err(|e| anyhow!("plot: {e}"))?;
    chart
        .configure_mesh()
        .y_labels(n)
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .x_desc("weight GB/s (packed weights + scales read per call; GPU timestamps, median)")
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| anyhow!("plot: {e}"))?;
    chart
        .draw_series(report.measurements.iter().enumerate().map(|(i, m)| {
            let color = if m.max_abs_err <= m.tolerance {
                RGBColor(40, 100, 200)
            } else {
                RGBColor(200, 40, 40)
            };
            Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(i)),
                    (m.weight_gbps, SegmentValue::Exact(i + 1)),
                ],
                color.filled(),
            )
        }))
        .map_err(|e| anyhow!("plot: {e}"))?
        .label("weight GB/s")
        .legend(|(x, y)| {
            Rectangle::new(
                [(x, y - 5), (x + 14, y + 5)],
                RGBColor(40, 100, 200).filled(),
            )
        });
    chart
        .draw_series(LineSeries::new(
            vec![
                (report.copy_gbps, SegmentValue::Exact(0)),
                (report.copy_gbps, SegmentValue::Exact(n)),
            ],
            RED.stroke_width(2),
        ))
        .map_err(|e| anyhow!("plot: {e}"))?
        .label(format!(
            "copy ceiling, read+write: {:.0} GB/s",
            report.copy_gbps
        ))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], RED.stroke_width(2)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| anyhow!("plot: {e}"))?;
    root.present()
        .map_err(|e| anyhow!("plot {}: {e}", path.display()))?;
    Ok(())
}
