//! Reports as pictures: [`plot`] (weight GB/s per shape against the copy ceiling),
//! [`plot_rows`] (time against rows, log-log, for one shape beside the peers) and [`plot_map`]
//! (which kernel runs at which rows: `nbits-mlp map`).
//!
//! Text is laid out with DejaVu Sans embedded in the binary (the `dejavu` crate), so the plots
//! come out the same on machines without system fonts (the H200 machine has none). The format
//! follows the file's extension: `.svg` (text as `<text>` elements, no font needed to view it)
//! or `.png`.

use crate::table::PeerLine;
use crate::Report;
use anyhow::{anyhow, bail, Result};
use indexmap::IndexMap;
use nbits_mlp_core::map::MapLine;
use nbits_mlp_core::DType;
use plotters::coord::ranged1d::SegmentValue;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

/// Registers the embedded font as plotters' `sans-serif` (once per process).
fn register_font() -> Result<()> {
    static LOADED: OnceLock<bool> = OnceLock::new();
    let loaded = *LOADED.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .is_ok()
    });
    if loaded {
        Ok(())
    } else {
        bail!("the embedded DejaVu Sans font is not a valid TrueType font")
    }
}

/// A plotters error as ours.
fn plot_err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("plot: {e}")
}

/// The picture formats, from a path's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Svg,
    Png,
}

/// Whether `path` names a picture format the plots write (its extension `.svg` or `.png`): a
/// command checks it before it computes what to draw.
pub fn check_picture_path(path: &Path) -> Result<()> {
    format_of(path).map(|_| ())
}

fn format_of(path: &Path) -> Result<Format> {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("svg") => Ok(Format::Svg),
        Some(e) if e.eq_ignore_ascii_case("png") => Ok(Format::Png),
        _ => bail!(
            "plot file {}: the name must end in .svg or .png",
            path.display()
        ),
    }
}

/// Draws with `draw` into an SVG document held in a string.
fn svg_string(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<()>,
) -> Result<String> {
    register_font()?;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        draw(&root)?;
        root.present().map_err(plot_err)?;
    }
    Ok(out)
}

/// Draws with `draw` into a PNG file.
fn png_file(
    path: &Path,
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<BitMapBackend<'_>, Shift>) -> Result<()>,
) -> Result<()> {
    register_font()?;
    let root = BitMapBackend::new(path, size).into_drawing_area();
    draw(&root)?;
    root.present()
        .map_err(|e| anyhow!("plot {}: {e}", path.display()))
}

fn write_svg(path: &Path, svg: &str) -> Result<()> {
    std::fs::write(path, svg).map_err(|e| anyhow!("writing {}: {e}", path.display()))
}

/// The size of [`plot`]'s picture for `n` shapes.
fn bandwidth_size(n: usize) -> (u32, u32) {
    (1200, 120 + 26 * n.max(1) as u32)
}

/// Draws the report's weight GB/s per shape as horizontal bars, with the copy bandwidth
/// (read + write) as a vertical line, to `path` (`.svg` or `.png`).
pub fn plot(report: &Report, path: &Path) -> Result<()> {
    match format_of(path)? {
        Format::Svg => write_svg(path, &plot_svg(report)?),
        Format::Png => png_file(path, bandwidth_size(report.measurements.len()), |root| {
            draw_bandwidth(root, report)
        }),
    }
}

/// [`plot`]'s picture as an SVG document.
pub fn plot_svg(report: &Report) -> Result<String> {
    svg_string(bandwidth_size(report.measurements.len()), |root| {
        draw_bandwidth(root, report)
    })
}

fn draw_bandwidth<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    report: &Report,
) -> Result<()> {
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
    root.fill(&WHITE).map_err(plot_err)?;
    let caption = format!(
        "nbits-mlp on {} ({}), {}",
        report.gpu, report.backend, report.date
    );
    let mut chart = ChartBuilder::on(root)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(380)
        .build_cartesian_2d(0f64..xmax, (0..n).into_segmented())
        .map_err(plot_err)?;
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
        .map_err(plot_err)?;
    chart
        .draw_series(report.measurements.iter().enumerate().map(|(i, m)| {
            let color = if !m.off_reference() {
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
        .map_err(plot_err)?
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
        .map_err(plot_err)?
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
        .map_err(plot_err)?;
    Ok(())
}

/// Which measurements of a report make the rows plot (and which peer lines go beside them).
#[derive(Clone, Debug, Default)]
pub struct RowsFilter {
    /// Case-insensitive substring of the model name.
    pub model: Option<String>,
    /// Activation type (peer lines that state another are left out).
    pub dtype: Option<DType>,
    /// `Some(true)`: the skip + norm forms only, `Some(false)`: the plain forms only (peer lines
    /// of the other form are left out).
    pub norm: Option<bool>,
    /// Bits per weight.
    pub bits: Option<u32>,
}

/// What a curve of the rows plot measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Measure {
    /// Time per call on the GPU (our timestamps; the PyTorch peers' CUDA events).
    GpuTime,
    /// Wall clock per node of a layer stack, read-back included (ours and ONNX Runtime's).
    WallPerNode,
}

impl Measure {
    fn text(self) -> &'static str {
        match self {
            Measure::GpuTime => "GPU time",
            Measure::WallPerNode => "wall per node",
        }
    }
}

/// One curve of the rows plot: µs per call at each row count, in rising rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// Legend text (who, which form, which measure).
    pub name: String,
    /// nbits-mlp's own (else a peer's).
    pub ours: bool,
    /// What the times are.
    pub measure: Measure,
    /// (rows, µs) points.
    pub points: Vec<(usize, f64)>,
    /// Row counts whose time is a span to distrust (ours: [`crate::Measurement::distrusted`],
    /// the table's `!`): drawn as a cross off the line.
    pub flagged: Vec<usize>,
}

/// The rows plot's content: one shape's curves, ours and the peers'.
#[derive(Clone, Debug, PartialEq)]
pub struct RowsPlot {
    /// The caption (model, K x N, block size, device, date, commit).
    pub title: String,
    /// The curves, ours first.
    pub curves: Vec<Curve>,
}

/// The form a peer line's `norm` names, in our words (`skip` is skip + norm, `none` plain).
fn peer_form(norm: &str) -> &str {
    match norm {
        "skip" => "skip+norm",
        "none" => "plain",
        other => other,
    }
}

/// The rows plot of one shape (model, K, N, block size) of `report` selected by `filter`: our
/// GPU time per (form, dtype, bits) against rows; the peers' lines for the same K and N beside
/// them (a line with `us`, PyTorch's script, as GPU time; a line with `per_node_us`, ONNX
/// Runtime's, as wall per node, and then our wall per node too, so like is drawn beside like).
/// For a peer's (name, form, dtype) and row count, the last line counts. Our GPU times that
/// the table marks `!` stay in the curve as [`Curve::flagged`]. Errors when the
/// selection is empty, holds several shapes, or spans fewer than two row counts.
pub fn rows_curves(
    report: &Report,
    peers: &[(usize, PeerLine)],
    filter: &RowsFilter,
) -> Result<RowsPlot> {
    let model = filter.model.as_ref().map(|m| m.to_lowercase());
    let chosen: Vec<&crate::Measurement> = report
        .measurements
        .iter()
        .filter(|m| {
            let s = &m.shape;
            model
                .as_ref()
                .is_none_or(|f| s.model.to_lowercase().contains(f))
                && filter.dtype.is_none_or(|d| s.mlp.dtype == d)
                && filter.norm.is_none_or(|n| s.mlp.norm == n)
                && filter.bits.is_none_or(|b| s.mlp.bits == b)
        })
        .collect();
    let Some(first) = chosen.first() else {
        bail!(
            "the report has no measurement of model {:?}, dtype {:?}, form {:?}, bits {:?}",
            filter.model,
            filter.dtype.map(DType::short_name),
            filter.norm.map(|n| if n { "norm" } else { "plain" }),
            filter.bits
        );
    };
    let shape_of = |m: &crate::Measurement| {
        let s = &m.shape;
        (s.model.clone(), s.mlp.k, s.mlp.n, s.mlp.block_size)
    };
    let shape = shape_of(first);
    let mut others: Vec<String> = chosen
        .iter()
        .map(|m| shape_of(m))
        .filter(|s| *s != shape)
        .map(|s| format!("{} ({} x {}, blocks of {})", s.0, s.1, s.2, s.3))
        .collect();
    if !others.is_empty() {
        others.sort();
        others.dedup();
        bail!(
            "a rows plot shows one shape, and the selection holds {} ({} x {}, blocks of {}) and {}: choose one with --model",
            shape.0,
            shape.1,
            shape.2,
            shape.3,
            others.join(", ")
        );
    }
    let (model_name, k, n, block) = shape;
    let rows: std::collections::BTreeSet<usize> =
        chosen.iter().map(|m| m.shape.mlp.rows()).collect();
    if rows.len() < 2 {
        bail!(
            "a rows plot needs at least two row counts; the selection has only rows {:?}",
            rows
        );
    }
    let wall_peers = |p: &PeerLine| p.per_node_us.is_some();
    let matching: Vec<&PeerLine> = peers
        .iter()
        .map(|(_, p)| p)
        .filter(|p| {
            p.k == Some(k)
                && p.n == Some(n)
                && p.m.is_some()
                && p.bs.is_none_or(|bs| bs == block)
                && match (&p.dtype, filter.dtype) {
                    (Some(d), Some(want)) => d == want.short_name(),
                    _ => true,
                }
                && match (&p.norm, filter.norm) {
                    (Some(f), Some(want)) => f == if want { "skip" } else { "none" },
                    _ => true,
                }
        })
        .collect();
    let with_wall = matching.iter().any(|p| wall_peers(p));

    let mut ours: IndexMap<(String, Measure), BTreeMap<usize, f64>> = IndexMap::new();
    let mut flagged: IndexMap<String, Vec<usize>> = IndexMap::new();
    for m in &chosen {
        let s = &m.shape;
        let form = format!(
            "nbits-mlp {} {}{}",
            s.form_label(),
            s.mlp.dtype.short_name(),
            if s.mlp.bits == 4 {
                String::new()
            } else {
                format!(" q{}", s.mlp.bits)
            }
        );
        ours.entry((form.clone(), Measure::GpuTime))
            .or_default()
            .insert(s.mlp.rows(), m.gpu_us);
        if m.distrusted() {
            flagged.entry(form.clone()).or_default().push(s.mlp.rows());
        }
        if with_wall {
            if let Some(w) = m.wall_per_node_us {
                ours.entry((form, Measure::WallPerNode))
                    .or_default()
                    .insert(s.mlp.rows(), w);
            }
        }
    }
    // Each form's GPU time, then its wall per node.
    ours.sort_by(|a, _, b, _| (&a.0, a.1 as u8).cmp(&(&b.0, b.1 as u8)));
    let mut theirs: IndexMap<(String, Measure), BTreeMap<usize, f64>> = IndexMap::new();
    for p in matching {
        let Some(rows) = p.m else { continue };
        let (measure, us) = match (p.us, p.per_node_us) {
            (_, Some(w)) => (Measure::WallPerNode, w),
            (Some(t), None) => (Measure::GpuTime, t),
            (None, None) => continue,
        };
        let mut name = p.peer.clone();
        if let Some(norm) = &p.norm {
            name = format!("{name} {}", peer_form(norm));
        }
        if let Some(d) = &p.dtype {
            name = format!("{name} {d}");
        }
        theirs.entry((name, measure)).or_default().insert(rows, us);
    }
    let curve = |ours: bool| {
        let flagged = &flagged;
        move |((name, measure), points): ((String, Measure), BTreeMap<usize, f64>)| {
            let mut bad = match (ours, measure) {
                (true, Measure::GpuTime) => flagged.get(&name).cloned().unwrap_or_default(),
                _ => Vec::new(),
            };
            bad.sort_unstable();
            Curve {
                name: format!("{name}: {}", measure.text()),
                ours,
                measure,
                points: points.into_iter().collect(),
                flagged: bad,
            }
        }
    };
    let curves = ours
        .into_iter()
        .map(curve(true))
        .chain(theirs.into_iter().map(curve(false)))
        .collect();
    Ok(RowsPlot {
        title: format!(
            "{model_name} gate+up ({k} x {n}, blocks of {block}), {} ({}), {}, commit {}",
            report.gpu, report.backend, report.date, report.commit
        ),
        curves,
    })
}

/// The size of the rows plot.
const ROWS_SIZE: (u32, u32) = (1100, 700);

/// [`rows_curves`] drawn to `path` (`.svg` or `.png`).
pub fn plot_rows(plot: &RowsPlot, path: &Path) -> Result<()> {
    match format_of(path)? {
        Format::Svg => write_svg(path, &rows_svg(plot)?),
        Format::Png => png_file(path, ROWS_SIZE, |root| draw_rows(root, plot)),
    }
}

/// [`rows_curves`] drawn as an SVG document.
pub fn rows_svg(plot: &RowsPlot) -> Result<String> {
    svg_string(ROWS_SIZE, |root| draw_rows(root, plot))
}

/// Colours of our forms (GPU time solid, wall per node dashed in the same colour).
const OURS: [RGBColor; 6] = [
    RGBColor(31, 90, 190),
    RGBColor(0, 150, 160),
    RGBColor(90, 60, 180),
    RGBColor(40, 140, 60),
    RGBColor(120, 120, 120),
    RGBColor(0, 70, 110),
];
/// Colours of the peers.
const PEERS: [RGBColor; 6] = [
    RGBColor(210, 50, 40),
    RGBColor(230, 130, 20),
    RGBColor(170, 40, 130),
    RGBColor(150, 100, 40),
    RGBColor(220, 90, 150),
    RGBColor(110, 30, 30),
];

fn draw_rows<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plot: &RowsPlot) -> Result<()> {
    let all = plot.curves.iter().flat_map(|c| c.points.iter());
    let (mut r0, mut r1, mut t0, mut t1) = (usize::MAX, 0usize, f64::INFINITY, 0f64);
    for &(r, t) in all {
        r0 = r0.min(r);
        r1 = r1.max(r);
        t0 = t0.min(t);
        t1 = t1.max(t);
    }
    if plot.curves.is_empty() || r0 == 0 || t0.is_nan() || t0 <= 0.0 {
        bail!("rows plot: no positive rows and times to draw on log axes");
    }
    root.fill(&WHITE).map_err(plot_err)?;
    let mut chart = ChartBuilder::on(root)
        .caption(&plot.title, ("sans-serif", 17))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(
            (r0 as f64 / 1.25..r1 as f64 * 1.25).log_scale().base(2.0),
            // From a power of ten, where the log axis puts its first tick.
            (10f64.powf((t0 / 1.4).log10().floor())..t1 * 1.4).log_scale(),
        )
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc("rows (log scale)")
        .y_desc("µs per call (log scale)")
        .x_label_formatter(&|v| format!("{}", v.round()))
        // A grid line at every 1..9 x 10^k, a label at 1, 2 and 5 x 10^k.
        .y_labels(40)
        .y_label_formatter(&|v| {
            let mantissa = v / 10f64.powf(v.log10().floor());
            let shown = [1.0, 2.0, 5.0].iter().any(|m| (mantissa - m).abs() < 1e-6);
            match (shown, *v >= 10.0) {
                (false, _) => String::new(),
                (true, true) => format!("{v:.0}"),
                (true, false) => format!("{v:.1}"),
            }
        })
        .label_style(("sans-serif", 14))
        .bold_line_style(RGBColor(222, 222, 222))
        .light_line_style(TRANSPARENT)
        .draw()
        .map_err(plot_err)?;
    // Our forms keep one colour for both measures.
    let mut our_colours: IndexMap<String, RGBColor> = IndexMap::new();
    let mut peer_no = 0;
    for c in &plot.curves {
        let colour = if c.ours {
            let form = c.name.split(':').next().unwrap_or_default().to_string();
            let next = OURS[our_colours.len() % OURS.len()];
            *our_colours.entry(form).or_insert(next)
        } else {
            peer_no += 1;
            PEERS[(peer_no - 1) % PEERS.len()]
        };
        // The line joins the trusted points; a flagged one is a cross beside it.
        let points: Vec<(f64, f64)> = c
            .points
            .iter()
            .filter(|(r, _)| !c.flagged.contains(r))
            .map(|&(r, t)| (r as f64, t))
            .collect();
        let crosses: Vec<(f64, f64)> = c
            .points
            .iter()
            .filter(|(r, _)| c.flagged.contains(r))
            .map(|&(r, t)| (r as f64, t))
            .collect();
        chart
            .draw_series(
                crosses
                    .iter()
                    .map(|&p| Cross::new(p, 7, colour.stroke_width(2))),
            )
            .map_err(plot_err)?;
        let width = if c.ours { 3 } else { 2 };
        let style = colour.stroke_width(width);
        let legend_style = style;
        let anno = if c.measure == Measure::GpuTime {
            chart
                .draw_series(LineSeries::new(points.clone(), style).point_size(4))
                .map_err(plot_err)?
        } else {
            chart
                .draw_series(DashedLineSeries::new(points.clone(), 10, 6, style))
                .map_err(plot_err)?;
            chart
                .draw_series(
                    points
                        .iter()
                        .map(|&p| TriangleMarker::new(p, 5, colour.filled())),
                )
                .map_err(plot_err)?
        };
        let dashed = c.measure == Measure::WallPerNode;
        anno.label(&c.name).legend(move |(x, y)| {
            if dashed {
                PathElement::new(vec![(x, y), (x + 7, y)], legend_style)
            } else {
                PathElement::new(vec![(x, y), (x + 18, y)], legend_style)
            }
        });
    }
    if plot.curves.iter().any(|c| !c.flagged.is_empty()) {
        chart
            .draw_series(std::iter::empty::<Cross<(f64, f64), i32>>())
            .map_err(plot_err)?
            .label("x: a GPU time its host-clock check or wall contradicts (! in the table)")
            .legend(|(x, y)| Cross::new((x + 7, y), 5, BLACK.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(plot_err)?;
    Ok(())
}

/// Colours of the kernel families, in the order they first appear in a map.
const FAMILIES: [RGBColor; 10] = [
    RGBColor(120, 170, 230),
    RGBColor(240, 170, 90),
    RGBColor(130, 200, 130),
    RGBColor(220, 120, 120),
    RGBColor(170, 140, 210),
    RGBColor(200, 200, 110),
    RGBColor(110, 200, 200),
    RGBColor(230, 150, 200),
    RGBColor(170, 170, 170),
    RGBColor(190, 150, 110),
];

/// The size of the map's picture for `n` bands.
fn map_size(n: usize) -> (u32, u32) {
    (1200, 150 + 34 * n.max(1) as u32)
}

/// The kernel map (`nbits-mlp map`, [`nbits_mlp_core::map`]) drawn to `path` (`.svg` or
/// `.png`): rows on a log axis, one band per line of the map, each span a box coloured by its
/// kernel family (the legend names them), labelled with its variant where the box is wide
/// enough. `device` names the device profile in the title.
pub fn plot_map(lines: &[MapLine], device: &str, path: &Path) -> Result<()> {
    match format_of(path)? {
        Format::Svg => write_svg(path, &map_svg(lines, device)?),
        Format::Png => png_file(path, map_size(lines.len()), |root| {
            draw_map(root, lines, device)
        }),
    }
}

/// [`plot_map`] as an SVG document.
pub fn map_svg(lines: &[MapLine], device: &str) -> Result<String> {
    svg_string(map_size(lines.len()), |root| draw_map(root, lines, device))
}

fn draw_map<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    bands: &[MapLine],
    device: &str,
) -> Result<()> {
    let one_model = bands.windows(2).all(|w| w[0].model == w[1].model);
    let label = |l: &MapLine| {
        if one_model {
            format!("{} {}", l.dtype, l.form)
        } else {
            l.title()
        }
    };
    let title = match bands.first() {
        Some(l) if one_model => format!("{}: {}, device {device}", l.model, l.weights_text()),
        Some(l) => format!("kernel map: {}, device {device}", l.weights_text()),
        None => String::new(),
    };
    let spans = || bands.iter().flat_map(|b| b.spans.iter());
    let (Some(r0), Some(r1)) = (
        spans().map(|s| s.first).min(),
        spans().map(|s| s.last).max(),
    ) else {
        bail!("map plot: no spans to draw");
    };
    let mut colours: IndexMap<String, RGBColor> = IndexMap::new();
    for s in spans() {
        let next = FAMILIES[colours.len() % FAMILIES.len()];
        colours.entry(s.family.clone()).or_insert(next);
    }
    let label_width = bands.iter().map(|b| label(b).len()).max().unwrap_or(0) as u32 * 8 + 16;
    root.fill(&WHITE).map_err(plot_err)?;
    // The legend below the chart: one row of families per 5.
    let legend_rows = colours.len().div_ceil(5) as u32;
    let (chart_area, legend_area) =
        root.split_vertically(root.dim_in_pixel().1 - 14 - 22 * legend_rows);
    let n = bands.len();
    let x_range = (r0 as f64)..((r1 + 1) as f64);
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(&title, ("sans-serif", 17))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(label_width)
        .build_cartesian_2d(
            x_range.clone().log_scale().base(2.0),
            (0..n as i32 - 1).into_segmented(),
        )
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc("rows (log scale)")
        .x_label_formatter(&|v| format!("{}", v.round()))
        .y_labels(n)
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => usize::try_from(*i)
                .ok()
                .and_then(|i| bands.get(n.checked_sub(1 + i)?))
                .map(label)
                .unwrap_or_default(),
            _ => String::new(),
        })
        .label_style(("sans-serif", 14))
        .bold_line_style(RGBColor(222, 222, 222))
        .light_line_style(TRANSPARENT)
        .disable_y_mesh()
        .draw()
        .map_err(plot_err)?;
    let plot_px = chart.plotting_area().dim_in_pixel().0 as f64;
    let span_log = (x_range.end / x_range.start).log2().max(1e-9);
    for (i, band) in bands.iter().enumerate() {
        // The first band on top.
        let y = (n - 1 - i) as i32;
        for s in &band.spans {
            let colour = colours[&s.family];
            let (x0, x1) = (s.first as f64, (s.last + 1) as f64);
            let rect = Rectangle::new(
                [
                    (x0, SegmentValue::Exact(y)),
                    (x1, SegmentValue::Exact(y + 1)),
                ],
                colour.filled(),
            );
            chart.draw_series(std::iter::once(rect)).map_err(plot_err)?;
            let outline = Rectangle::new(
                [
                    (x0, SegmentValue::Exact(y)),
                    (x1, SegmentValue::Exact(y + 1)),
                ],
                WHITE.stroke_width(2),
            );
            chart
                .draw_series(std::iter::once(outline))
                .map_err(plot_err)?;
            // The variant's name inside its box where about 7 px a character fit.
            let px = plot_px * (x1 / x0).log2() / span_log;
            let name = &s.variant;
            if px > 7.0 * name.len() as f64 + 8.0 {
                let mid = (x0 * x1).sqrt();
                let text = Text::new(
                    name.clone(),
                    (mid, SegmentValue::CenterOf(y)),
                    ("sans-serif", 12).into_font().color(&BLACK).pos(
                        plotters::style::text_anchor::Pos::new(
                            plotters::style::text_anchor::HPos::Center,
                            plotters::style::text_anchor::VPos::Center,
                        ),
                    ),
                );
                chart.draw_series(std::iter::once(text)).map_err(plot_err)?;
            }
        }
    }
    // The legend: a swatch and the family's name.
    let (lw, _) = legend_area.dim_in_pixel();
    let per_row = 5usize;
    let cell = (lw as i32 - 40) / per_row as i32;
    for (j, (family, colour)) in colours.iter().enumerate() {
        let (row, col) = ((j / per_row) as i32, (j % per_row) as i32);
        let (x, y) = (20 + col * cell, 4 + row * 22);
        legend_area
            .draw(&Rectangle::new([(x, y), (x + 18, y + 14)], colour.filled()))
            .map_err(plot_err)?;
        legend_area
            .draw(&Text::new(
                family.clone(),
                (x + 24, y),
                ("sans-serif", 14).into_font().color(&BLACK),
            ))
            .map_err(plot_err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::read_peer_lines;
    use crate::{at_rows, suite, Measurement};

    /// Llama-3.1-8B f16 4-bit at rows 1, 16 and 128, both forms, with made-up times.
    fn report() -> Report {
        let shapes: Vec<_> = suite("llama8b")
            .unwrap()
            .into_iter()
            .filter(|s| s.mlp.dtype == DType::F16 && s.mlp.bits == 4 && s.mlp.rows() == 1)
            .collect();
        let shapes = at_rows(&shapes, &[1, 16, 128]);
        let measurements = shapes
            .iter()
            .map(|s| {
                let gpu_us = 30.0 * s.mlp.rows() as f64 + if s.mlp.norm { 7.0 } else { 0.0 };
                Measurement {
                    gpu_us_p10: 1.0,
                    gpu_us_p90: 1.0,
                    gpu_us_sustained: None,
                    weight_gbps: 1000.0,
                    copy_fraction: 0.25,
                    host_us: 10.0,
                    wall_per_node_us: Some(100.0 * s.mlp.rows() as f64),
                    ..crate::report::test_measurement(s, "v", gpu_us)
                }
            })
            .collect();
        Report {
            commit: "c0ffee".into(),
            copy_gbps: 4000.0,
            ..crate::report::test_report(measurements)
        }
    }

    /// Lines as `torch_baselines.py` and `ort_webgpu_layers.py` print them (abridged).
    const TORCH: &str = r#"{"peer": "torch-fp16-cublas+silu", "m": 1, "k": 4096, "n": 14336, "us": 68.6, "GBps": 1712.0}
{"peer": "torch-int4-tinygemm+silu", "m": 1, "k": 4096, "n": 14336, "us": 48.9, "GBps": 600.0}
{"peer": "d2d-copy", "GBps_read_plus_write": 4246.0}
{"peer": "torch-fp16-cublas+silu", "m": 128, "k": 4096, "n": 14336, "us": 88.8, "GBps": 1300.0}
{"peer": "torch-int4-tinygemm+silu", "m": 128, "k": 4096, "n": 14336, "us": 1064.9, "GBps": 60.0}
{"peer": "torch-int4-tinygemm", "error": "no kernel"}
{"peer": "torch-fp16-cublas+silu", "m": 16, "k": 896, "n": 4864, "us": 9.0, "GBps": 1.0}
"#;
    const ORT: &str = r#"warming up
{"peer": "ort-webgpu-ep", "sum": false, "m": 1, "k": 4096, "n": 14336, "bs": 32, "dtype": "f16", "norm": "skip", "layers": 16, "run_median_us": 10000.0, "per_node_us": 630.0}
{"peer": "ort-webgpu-ep", "sum": false, "m": 128, "k": 4096, "n": 14336, "bs": 32, "dtype": "f16", "norm": "skip", "layers": 16, "run_median_us": 40000.0, "per_node_us": 2635.0}
{"peer": "ort-webgpu-ep", "sum": false, "m": 128, "k": 4096, "n": 14336, "bs": 32, "dtype": "f32", "norm": "skip", "layers": 16, "run_median_us": 40000.0, "per_node_us": 4457.0}
"#;

    #[test]
    fn the_rows_plot_holds_our_forms_and_the_peers_of_the_same_shape() {
        let files = vec![
            ("torch.jsonl".to_string(), TORCH.to_string()),
            ("ort.jsonl".to_string(), ORT.to_string()),
        ];
        let peers = read_peer_lines(&files).unwrap();
        let filter = RowsFilter {
            dtype: Some(DType::F16),
            ..Default::default()
        };
        let mut r = report();
        // Skip+norm at 16 rows: a span far above its host-clock check.
        let bad = r
            .measurements
            .iter_mut()
            .find(|m| m.shape.mlp.norm && m.shape.mlp.rows() == 16)
            .unwrap();
        bad.gpu_us_sustained = Some(100.0);
        let plot = rows_curves(&r, &peers, &filter).unwrap();
        let names: Vec<&str> = plot.curves.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "nbits-mlp plain f16: GPU time",
                "nbits-mlp plain f16: wall per node",
                "nbits-mlp skip+norm f16: GPU time",
                "nbits-mlp skip+norm f16: wall per node",
                "torch-fp16-cublas+silu: GPU time",
                "torch-int4-tinygemm+silu: GPU time",
                "ort-webgpu-ep skip+norm f16: wall per node",
            ]
        );
        // Our points in rising rows; the peers' points for this K and N only (not the
        // 896 x 4864 line, not the f32 line, not the copy or error lines).
        assert_eq!(
            plot.curves[2].points,
            [(1, 37.0), (16, 487.0), (128, 3847.0)]
        );
        assert_eq!(plot.curves[2].flagged, [16]);
        assert!(plot.curves.iter().filter(|c| !c.flagged.is_empty()).count() == 1);
        assert_eq!(plot.curves[4].points, [(1, 68.6), (128, 88.8)]);
        assert_eq!(plot.curves[6].points, [(1, 630.0), (128, 2635.0)]);
        assert!(plot.title.contains("Llama-3.1-8B") && plot.title.contains("commit c0ffee"));

        let svg = rows_svg(&plot).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80.min(svg.len())]);
        for name in &names {
            // The legend's text, as the SVG writes it (`+` stays, nothing else to escape).
            assert!(svg.contains(name), "{name} missing from the SVG");
        }
        assert!(svg.contains("rows (log scale)"));
        assert!(svg.contains("x: a GPU time its host-clock check"));
        // Drawn twice, the same document: what the committed README plot's check relies on.
        assert_eq!(svg, rows_svg(&plot).unwrap());

        // To a file by extension; anything else is refused by name.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("rows.svg");
        plot_rows(&plot, &file).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), svg);
        let png = dir.path().join("rows.png");
        plot_rows(&plot, &png).unwrap();
        assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
        let e = plot_rows(&plot, &dir.path().join("rows.pdf"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("rows.pdf") && e.contains(".svg or .png"), "{e}");
    }

    #[test]
    fn without_wall_peers_only_gpu_times_and_selections_are_checked() {
        let files = vec![("torch.jsonl".to_string(), TORCH.to_string())];
        let peers = read_peer_lines(&files).unwrap();
        let plain = RowsFilter {
            norm: Some(false),
            ..Default::default()
        };
        let plot = rows_curves(&report(), &peers, &plain).unwrap();
        assert!(plot.curves.iter().all(|c| c.measure == Measure::GpuTime));
        assert_eq!(plot.curves[0].name, "nbits-mlp plain f16: GPU time");
        assert_eq!(plot.curves.len(), 3);

        let none = RowsFilter {
            model: Some("qwen".into()),
            ..Default::default()
        };
        let e = rows_curves(&report(), &peers, &none)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no measurement") && e.contains("qwen"), "{e}");

        let mut one_row = report();
        one_row.measurements.retain(|m| m.shape.mlp.rows() == 16);
        let e = rows_curves(&one_row, &peers, &RowsFilter::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("two row counts") && e.contains("16"), "{e}");

        let mut two_models = report();
        let mut other = two_models.measurements[0].clone();
        other.shape.model = "Qwen2.5-0.5B".into();
        other.shape.mlp.k = 896;
        other.shape.mlp.n = 4864;
        two_models.measurements.push(other);
        let e = rows_curves(&two_models, &peers, &RowsFilter::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--model") && e.contains("Qwen2.5-0.5B (896 x 4864"),
            "{e}"
        );
    }

    #[test]
    fn the_bandwidth_plot_needs_no_system_font() {
        // The font is compiled in: the SVG lays out its labels wherever it runs.
        let r = report();
        let svg = plot_svg(&r).unwrap();
        assert!(svg.contains("copy ceiling, read+write: 4000 GB/s"));
        assert!(svg.contains(&r.measurements[0].shape.label()));
    }
}
