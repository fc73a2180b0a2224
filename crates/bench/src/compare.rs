//! Two bench reports side by side (`bench --compare BASE OTHER`): every shape timed in both,
//! its variant and GPU time in each and the change, then how many shapes got faster or slower.
//! The A/B of a tunable, an edited template or overlay, or two commits, read off two runs'
//! `bench.json` instead of by hand.

use crate::{Measurement, Report};
use anyhow::{bail, Result};
use std::fmt::Write as _;

/// A change of at most this fraction either way counts as level in the summary (the spread of
/// two interleaved passes of one binary is ~1 %, notes/PERF.md).
pub const LEVEL: f64 = 0.02;

/// The most labels of shapes timed in one report only that the table names (then a count).
pub const ONLY_SHOWN: usize = 12;

/// One shape timed in both reports.
#[derive(Clone, Copy, Debug)]
pub struct Pair<'a> {
    /// Its measurement in the base report.
    pub base: &'a Measurement,
    /// Its measurement in the other report.
    pub other: &'a Measurement,
}

impl Pair<'_> {
    /// The other report's GPU time over the base's (below 1: faster).
    pub fn ratio(&self) -> f64 {
        self.other.gpu_us / self.base.gpu_us
    }
}

/// The two reports' shapes matched: those timed in both, in the base report's order, and the
/// labels of those timed in one only.
#[derive(Debug)]
pub struct Comparison<'a> {
    /// Shapes timed in both (a shape timed twice in one report: its last measurement).
    pub pairs: Vec<Pair<'a>>,
    /// Labels ([`crate::BenchShape::label`]) of shapes timed only in the base report.
    pub only_base: Vec<String>,
    /// Labels of shapes timed only in the other report.
    pub only_other: Vec<String>,
}

impl<'a> Comparison<'a> {
    /// Matches the shapes of `base` and `other` (equal [`crate::BenchShape`]s: model, K, N,
    /// rows, dtype, bits, block size, form and biases).
    pub fn new(base: &'a Report, other: &'a Report) -> Comparison<'a> {
        let last = |r: &'a Report, m: &Measurement| {
            r.measurements.iter().rev().find(|x| x.shape == m.shape)
        };
        let mut pairs: Vec<Pair<'a>> = Vec::new();
        let mut only_base = Vec::new();
        for m in &base.measurements {
            if pairs.iter().any(|p| p.base.shape == m.shape) {
                continue;
            }
            match last(other, m) {
                Some(o) => pairs.push(Pair {
                    base: last(base, m).unwrap_or(m),
                    other: o,
                }),
                None if !only_base.contains(&m.shape.label()) => only_base.push(m.shape.label()),
                None => {}
            }
        }
        let mut only_other = Vec::new();
        for m in &other.measurements {
            if last(base, m).is_none() && !only_other.contains(&m.shape.label()) {
                only_other.push(m.shape.label());
            }
        }
        Comparison {
            pairs,
            only_base,
            only_other,
        }
    }

    /// The geometric mean of the pairs' ratios (NaN without pairs).
    pub fn geomean(&self) -> f64 {
        let n = self.pairs.len() as f64;
        (self.pairs.iter().map(|p| p.ratio().ln()).sum::<f64>() / n).exp()
    }

    /// How many pairs got faster, stayed level (within [`LEVEL`]) and got slower.
    pub fn counts(&self) -> (usize, usize, usize) {
        let faster = self
            .pairs
            .iter()
            .filter(|p| p.ratio() < 1.0 - LEVEL)
            .count();
        let slower = self
            .pairs
            .iter()
            .filter(|p| p.ratio() > 1.0 + LEVEL)
            .count();
        (faster, self.pairs.len() - faster - slower, slower)
    }
}

/// A GPU time as a cell: `!` where it is a span to distrust ([`Measurement::distrusted`]), `x`
/// where its result was off the reference ([`Measurement::off_reference`]).
fn time_cell(m: &Measurement) -> String {
    let mut s = format!("{:.1} µs", m.gpu_us);
    if m.distrusted() {
        s.push_str(" !");
    }
    if m.off_reference() {
        s.push_str(" x");
    }
    s
}

/// The two reports as one Markdown table (`names`: how to call them, e.g. their paths): per
/// shape timed in both, the base's variant and GPU time, the other's (`=` for the same
/// variant) and the change in per cent (negative: faster); then the summary (geometric mean of
/// the ratios; faster, level within [`LEVEL`], slower), the shapes timed in one report only (up
/// to [`ONLY_SHOWN`] named), a warning where the reports come from different GPUs, and each
/// report's GPU, commit and date. An error where no shape was timed in both.
pub fn markdown(base: &Report, other: &Report, names: [&str; 2]) -> Result<String> {
    let c = Comparison::new(base, other);
    if c.pairs.is_empty() {
        bail!(
            "{} and {} have no shape in common (model, K, N, rows, dtype, bits, block size and form): nothing to compare",
            names[0],
            names[1]
        );
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "| {} | base variant | base GPU time | other variant | other GPU time | change |",
        crate::BenchShape::TABLE_COLUMNS
    );
    t.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
    for p in &c.pairs {
        let other_variant = if p.other.variant == p.base.variant {
            "=".to_string()
        } else {
            format!("`{}`", p.other.variant)
        };
        let _ = writeln!(
            t,
            "| {} | `{}` | {} | {} | {} | {:+.1} % |",
            p.base.shape.table_cells(),
            p.base.variant,
            time_cell(p.base),
            other_variant,
            time_cell(p.other),
            100.0 * (p.ratio() - 1.0),
        );
    }
    let (faster, level, slower) = c.counts();
    let _ = writeln!(
        t,
        "\n{} shapes in both: other / base {:.3}x (geometric mean); {faster} faster, {level} within {:.0} %, {slower} slower.",
        c.pairs.len(),
        c.geomean(),
        100.0 * LEVEL
    );
    for (which, labels) in [("base", &c.only_base), ("other", &c.only_other)] {
        if !labels.is_empty() {
            let shown = labels.len().min(ONLY_SHOWN);
            let more = match labels.len() - shown {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            let _ = writeln!(
                t,
                "Only in the {which} report ({}): {}{more}.",
                labels.len(),
                labels[..shown].join(", ")
            );
        }
    }
    if base.gpu != other.gpu {
        let _ = writeln!(
            t,
            "Different GPUs ({} against {}): compare times of one GPU only.",
            base.gpu, other.gpu
        );
    }
    let marks = c.pairs.iter().any(|p| {
        [p.base, p.other]
            .iter()
            .any(|m| m.distrusted() || m.off_reference())
    });
    if marks {
        t.push_str("! a span to distrust (above the host-clock check by more than 20 % or above the wall per node); x a result off the reference by more than its tolerance.\n");
    }
    for (which, name, r) in [("base", names[0], base), ("other", names[1], other)] {
        let _ = writeln!(
            t,
            "{which}: {name}: {} on {}, commit {}, {}.",
            r.gpu, r.backend, r.commit, r.date
        );
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{suite, BenchShape};

    fn measurement(s: &BenchShape, variant: &str, gpu_us: f64) -> Measurement {
        crate::report::test_measurement(s, variant, gpu_us)
    }

    fn report(gpu: &str, commit: &str, measurements: Vec<Measurement>) -> Report {
        Report {
            gpu: gpu.into(),
            commit: commit.into(),
            ..crate::report::test_report(measurements)
        }
    }

    #[test]
    fn shapes_pair_by_identity_and_the_table_says_the_change() {
        // llama8b: rows 1 / 16 / 128 / 512, each plain and with norm (8 shapes).
        let shapes = suite("llama8b").unwrap();
        assert_eq!(shapes.len(), 8);
        // Base: shapes 0-5, shape 2 twice (its last reading counts); other: shapes 1-7 in
        // reverse order, shape 1 with another variant, one shape off the reference.
        let mut b: Vec<Measurement> = (0..6)
            .map(|i| measurement(&shapes[i], &format!("v{i}"), 100.0))
            .collect();
        b.push(measurement(&shapes[2], "v2", 50.0));
        let mut o: Vec<Measurement> = (1..8)
            .rev()
            .map(|i| measurement(&shapes[i], &format!("v{i}"), 10.0 * i as f64))
            .collect();
        let one = o.iter_mut().find(|m| m.shape == shapes[1]).unwrap();
        one.variant = "w1".into();
        one.gpu_us = 99.0;
        one.gpu_us_sustained = Some(99.0);
        o.iter_mut()
            .find(|m| m.shape == shapes[5])
            .unwrap()
            .max_abs_err = 2.0;
        // Shape 3's time above its host-clock check: a span to distrust.
        o.iter_mut()
            .find(|m| m.shape == shapes[3])
            .unwrap()
            .gpu_us_sustained = Some(1.0);
        let (base, other) = (report("G", "a", b), report("G", "b", o));
        let c = Comparison::new(&base, &other);
        let order: Vec<&BenchShape> = c.pairs.iter().map(|p| &p.base.shape).collect();
        assert_eq!(order, (1..6).map(|i| &shapes[i]).collect::<Vec<_>>());
        // Ratios: shape 1 99 / 100, 2 20 / 50 (the base's last reading), 3-5 (10 i) / 100.
        let ratios: Vec<f64> = c.pairs.iter().map(Pair::ratio).collect();
        assert_eq!(ratios, vec![0.99, 0.4, 0.3, 0.4, 0.5]);
        assert_eq!(c.counts(), (4, 1, 0));
        assert_eq!(c.only_base, vec![shapes[0].label()]);
        assert_eq!(c.only_other, vec![shapes[7].label(), shapes[6].label()]);
        let want = (0.99f64 * 0.4 * 0.3 * 0.4 * 0.5).powf(0.2);
        assert!((c.geomean() - want).abs() < 1e-12);

        let md = markdown(&base, &other, ["a.json", "b.json"]).unwrap();
        let lines: Vec<&str> = md.lines().collect();
        assert!(
            lines[0].starts_with("| model (K x N) | rows |") && lines[0].ends_with("| change |")
        );
        assert_eq!(lines.iter().filter(|l| l.contains("µs")).count(), 5);
        assert!(
            lines[2].contains("| `v1` | 100.0 µs | `w1` | 99.0 µs | -1.0 % |"),
            "{}",
            lines[2]
        );
        assert!(
            lines[3].contains("| `v2` | 50.0 µs | = | 20.0 µs | -60.0 % |"),
            "{}",
            lines[3]
        );
        assert!(lines[6].contains("| 50.0 µs x | -50.0 % |"), "{}", lines[6]);
        assert!(md.contains("5 shapes in both: other / base"), "{md}");
        assert!(md.contains("4 faster, 1 within 2 %, 0 slower."), "{md}");
        assert!(md.contains(&format!(
            "Only in the base report (1): {}.",
            shapes[0].label()
        )));
        assert!(md.contains("Only in the other report (2): "));
        assert!(lines[4].contains("| 30.0 µs ! | -70.0 % |"), "{}", lines[4]);
        assert!(md.contains("! a span to distrust") && md.contains("x a result off the reference"));
        assert!(md.contains("base: a.json: G on Vulkan, commit a") && md.contains("commit b"));
        assert!(!md.contains("Different GPUs"));

        // Another GPU is said; no shape in common is an error naming both reports.
        let elsewhere = report("H", "b", other.measurements.clone());
        let md = markdown(&base, &elsewhere, ["a.json", "h.json"]).unwrap();
        assert!(md.contains("Different GPUs (G against H)"), "{md}");
        let disjoint = report("G", "c", vec![measurement(&shapes[7], "v", 1.0)]);
        let only0 = report("G", "d", vec![measurement(&shapes[0], "v", 1.0)]);
        let e = markdown(&only0, &disjoint, ["x.json", "y.json"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("x.json and y.json have no shape in common"),
            "{e}"
        );
    }
}
