//! Two bench reports side by side (`bench --compare BASE OTHER`): every shape timed in both,
//! its variant and GPU time in each and the change, then how many shapes got faster or slower.
//! The A/B of a tunable, an edited template or overlay, or two commits, read off two runs'
//! `bench.json` instead of by hand. With [`Across`] (`--across dtype`, `bits`, `block-size`,
//! `form`) the pairs are shapes that differ in that one respect instead: float32 against
//! float16, 2-bit codes against 4-bit beside their weight bytes, skip+norm against plain, the
//! ratios issue 15's targets are written in.

use crate::{BenchShape, Measurement, Report};
use anyhow::{bail, Result};
use std::fmt::Write as _;

/// The one respect in which `--compare --across` lets paired shapes differ (everything else
/// equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// float32 against float16 (T1).
    Dtype,
    /// Code widths (2 / 4 / 8 bits).
    Bits,
    /// Codes per quantization block.
    BlockSize,
    /// The input form: skip, norm_scale and the residual output.
    Form,
}

impl Key {
    /// Every key, as `--across` spells it.
    pub const NAMES: [&'static str; 4] = ["dtype", "bits", "block-size", "form"];

    /// The key's name as `--across` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Key::Dtype => Self::NAMES[0],
            Key::Bits => Self::NAMES[1],
            Key::BlockSize => Self::NAMES[2],
            Key::Form => Self::NAMES[3],
        }
    }

    /// `shape` with this key's fields taken from `from` (the rest its own).
    fn with_key_of(self, shape: &BenchShape, from: &BenchShape) -> BenchShape {
        let mut s = shape.clone();
        let (m, f) = (&mut s.mlp, &from.mlp);
        match self {
            Key::Dtype => m.dtype = f.dtype,
            Key::Bits => m.bits = f.bits,
            Key::BlockSize => m.block_size = f.block_size,
            Key::Form => (m.skip, m.norm, m.residual) = (f.skip, f.norm, f.residual),
        }
        s
    }

    /// Whether `base` and `other` differ in this key and in nothing else.
    pub fn pairs(self, base: &BenchShape, other: &BenchShape) -> bool {
        base != other && self.with_key_of(base, other) == *other
    }

    /// A shape's value of this key as a table cell and as `--across KEY=VALUE` spells it:
    /// `f32`, `2`, `128`, `plain` or the inputs present (`skip+norm+residual`, `norm`).
    pub fn cell(self, s: &BenchShape) -> String {
        let m = &s.mlp;
        match self {
            Key::Dtype => m.dtype.short_name().to_string(),
            Key::Bits => m.bits.to_string(),
            Key::BlockSize => m.block_size.to_string(),
            Key::Form => form_cell(m.skip, m.norm, m.residual),
        }
    }

    /// A value of this key as [`Key::cell`] writes it, or an error saying what it takes.
    fn value(self, v: &str) -> Result<String, String> {
        let v = v.trim().to_ascii_lowercase();
        let ok = match self {
            Key::Dtype => ["f16", "f32"].contains(&v.as_str()),
            Key::Bits => ["2", "4", "8"].contains(&v.as_str()),
            Key::BlockSize => match v.parse::<usize>() {
                Ok(b) if b >= 16 && b.is_power_of_two() => return Ok(b.to_string()),
                _ => false,
            },
            Key::Form => {
                let parts: Vec<&str> = v.split('+').collect();
                if v == "plain" {
                    true
                } else if parts
                    .iter()
                    .all(|p| ["skip", "norm", "residual"].contains(p))
                {
                    let has = |w: &str| parts.contains(&w);
                    return Ok(form_cell(has("skip"), has("norm"), has("residual")));
                } else {
                    false
                }
            }
        };
        if ok {
            Ok(v)
        } else {
            Err(format!(
                "`{v}` is no value of {} ({})",
                self.name(),
                match self {
                    Key::Dtype => "f16 or f32",
                    Key::Bits => "2, 4 or 8",
                    Key::BlockSize => "a power of two of at least 16",
                    Key::Form => "plain, or skip, norm and residual joined by +",
                }
            ))
        }
    }
}

/// The form as [`Key::cell`] writes it: `plain`, or the inputs present joined by `+`.
fn form_cell(skip: bool, norm: bool, residual: bool) -> String {
    let on: Vec<&str> = [(skip, "skip"), (norm, "norm"), (residual, "residual")]
        .into_iter()
        .filter_map(|(b, w)| b.then_some(w))
        .collect();
    if on.is_empty() {
        "plain".to_string()
    } else {
        on.join("+")
    }
}

/// `--across KEY[=VALUE]`: pair shapes that differ in [`Key`] only; with a value, only base
/// shapes of that value (`bits=4`: every other code width against 4 bits, one way round, even
/// where BASE and OTHER are one report).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Across {
    /// What the paired shapes differ in.
    pub key: Key,
    /// The base shapes' value of it ([`Key::cell`]'s spelling), or every value.
    pub base: Option<String>,
}

impl Across {
    /// Whether `base` and `other` make a pair.
    pub fn pairs(&self, base: &BenchShape, other: &BenchShape) -> bool {
        self.key.pairs(base, other) && self.on_base_side(base)
    }

    /// Whether a shape of the base report is one to pair (of the base's value, if given).
    pub fn on_base_side(&self, s: &BenchShape) -> bool {
        self.base.as_ref().is_none_or(|v| self.key.cell(s) == *v)
    }

    /// Whether a shape of the other report is one to pair (not of the base's value, if given).
    pub fn on_other_side(&self, s: &BenchShape) -> bool {
        self.base.as_ref().is_none_or(|v| self.key.cell(s) != *v)
    }
}

impl std::str::FromStr for Across {
    type Err = String;
    /// Parses `KEY` or `KEY=VALUE`, KEY one of [`Key::NAMES`] (case-insensitive; `block_size`
    /// too), VALUE one of the key's values.
    fn from_str(s: &str) -> Result<Across, String> {
        let (k, v) = match s.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (s, None),
        };
        let key = match k.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "dtype" => Key::Dtype,
            "bits" => Key::Bits,
            "block-size" => Key::BlockSize,
            "form" => Key::Form,
            _ => {
                return Err(format!(
                    "unknown key `{k}` (one of: {}; optionally =VALUE, e.g. bits=4)",
                    Key::NAMES.join(", ")
                ))
            }
        };
        let base = v.map(|v| key.value(v)).transpose()?;
        Ok(Across { key, base })
    }
}

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

    /// The other shape's weight (and scale) bytes over the base's.
    pub fn bytes_ratio(&self) -> f64 {
        self.other.weight_bytes as f64 / self.base.weight_bytes as f64
    }

    /// Whether the other takes at most the base's time scaled by the weight bytes (issue 15's
    /// target for 2- and 8-bit codes against 4-bit).
    pub fn within_bytes(&self) -> bool {
        self.ratio() <= self.bytes_ratio()
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
        Comparison::across(base, other, None)
    }

    /// [`Comparison::new`], or with `across` the shapes that differ in that key only: each base
    /// shape paired with every such shape of `other` (in `other`'s order), so a base shape can
    /// have several partners (4-bit against both 2- and 8-bit codes). With the base's value
    /// given, shapes of the base report of another value and of the other report of that value
    /// are left out, also from the lists of shapes without a partner.
    pub fn across(base: &'a Report, other: &'a Report, across: Option<&Across>) -> Comparison<'a> {
        let partners = |b: &BenchShape, o: &BenchShape| match across {
            None => b == o,
            Some(a) => a.pairs(b, o),
        };
        let last =
            |r: &'a Report, s: &BenchShape| r.measurements.iter().rev().find(|x| x.shape == *s);
        let mut pairs: Vec<Pair<'a>> = Vec::new();
        let mut only_base = Vec::new();
        let mut seen: Vec<&BenchShape> = Vec::new();
        for m in &base.measurements {
            if seen.contains(&&m.shape) || across.is_some_and(|a| !a.on_base_side(&m.shape)) {
                continue;
            }
            seen.push(&m.shape);
            let mut taken: Vec<&BenchShape> = Vec::new();
            for o in &other.measurements {
                if !partners(&m.shape, &o.shape) || taken.contains(&&o.shape) {
                    continue;
                }
                taken.push(&o.shape);
                pairs.push(Pair {
                    base: last(base, &m.shape).unwrap_or(m),
                    other: last(other, &o.shape).unwrap_or(o),
                });
            }
            if taken.is_empty() && !only_base.contains(&m.shape.label()) {
                only_base.push(m.shape.label());
            }
        }
        let mut only_other = Vec::new();
        for m in &other.measurements {
            if across.is_some_and(|a| !a.on_other_side(&m.shape)) {
                continue;
            }
            let paired = base
                .measurements
                .iter()
                .any(|b| partners(&b.shape, &m.shape));
            if !paired && !only_other.contains(&m.shape.label()) {
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
    markdown_across(base, other, names, None)
}

/// [`markdown`], or with `across` the pairs of [`Comparison::across`]: the shape cells are the
/// base's, followed by the other's value of the key and the other's weight bytes over the
/// base's (the scale issue 15 holds 2- and 8-bit codes to), then the columns of [`markdown`].
/// An error where no pair differs in that key only.
pub fn markdown_across(
    base: &Report,
    other: &Report,
    names: [&str; 2],
    across: Option<&Across>,
) -> Result<String> {
    let c = Comparison::across(base, other, across);
    if c.pairs.is_empty() {
        match across {
            None => bail!(
                "{} and {} have no shape in common (model, K, N, rows, dtype, bits, block size and form): nothing to compare",
                names[0],
                names[1]
            ),
            Some(a) => bail!(
                "{} and {} have no two shapes that differ in {} only{} (model, K, N, rows, dtype, bits, block size and form otherwise equal): nothing to compare",
                names[0],
                names[1],
                a.key.name(),
                a.base.as_ref().map(|v| format!(", the base's {} {v}", a.key.name())).unwrap_or_default()
            ),
        }
    }
    let key_head = match across {
        None => String::new(),
        Some(a) => format!(" other {} | weight bytes |", a.key.name()),
    };
    let mut t = crate::table::head(&format!(
        "| {} |{key_head} base variant | base GPU time | other variant | other GPU time | change |",
        crate::BenchShape::TABLE_COLUMNS
    ));
    for p in &c.pairs {
        let other_variant = if p.other.variant == p.base.variant {
            "=".to_string()
        } else {
            format!("`{}`", p.other.variant)
        };
        let key_cells = match across {
            None => String::new(),
            Some(a) => format!(
                " {} | {:.3}x |",
                a.key.cell(&p.other.shape),
                p.bytes_ratio()
            ),
        };
        let _ = writeln!(
            t,
            "| {} |{key_cells} `{}` | {} | {} | {} | {:+.1} % |",
            p.base.shape.table_cells(),
            p.base.variant,
            time_cell(p.base),
            other_variant,
            time_cell(p.other),
            100.0 * (p.ratio() - 1.0),
        );
    }
    let (faster, level, slower) = c.counts();
    let what = match across {
        None => "shapes in both".to_string(),
        Some(a) => format!("pairs that differ in {} only", a.key.name()),
    };
    let _ = writeln!(
        t,
        "\n{} {what}: other / base {:.3}x (geometric mean); {faster} faster, {level} within {:.0} %, {slower} slower.",
        c.pairs.len(),
        c.geomean(),
        100.0 * LEVEL
    );
    if let Some(a) = across {
        let (lo, hi) = c
            .pairs
            .iter()
            .map(Pair::ratio)
            .fold((f64::MAX, 0f64), |(lo, hi), r| (lo.min(r), hi.max(r)));
        let _ = write!(t, "Ratios {lo:.3}x to {hi:.3}x");
        if a.key == Key::Bits {
            let within = c.pairs.iter().filter(|p| p.within_bytes()).count();
            let _ = write!(
                t,
                "; {within} of {} pairs within the base's time scaled by their weight bytes",
                c.pairs.len()
            );
        }
        t.push_str(".\n");
    }
    for (which, labels) in [("base", &c.only_base), ("other", &c.only_other)] {
        if !labels.is_empty() {
            let shown = labels.len().min(ONLY_SHOWN);
            let more = match labels.len() - shown {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            let _ = writeln!(
                t,
                "{} ({}): {}{more}.",
                match across {
                    None => format!("Only in the {which} report"),
                    Some(_) => format!("Without a partner in the {which} report"),
                },
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
    use nbits_mlp_core::DType;

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

    /// A copy of `s` changed by `f`.
    fn with(s: &BenchShape, f: impl FnOnce(&mut nbits_mlp_core::MlpShape)) -> BenchShape {
        let mut s = s.clone();
        f(&mut s.mlp);
        s
    }

    #[test]
    fn across_parses_a_key_and_a_base_value() {
        let p = |s: &str| s.parse::<Across>();
        assert_eq!(
            p("dtype"),
            Ok(Across {
                key: Key::Dtype,
                base: None
            })
        );
        assert_eq!(
            p("Block_Size=128"),
            Ok(Across {
                key: Key::BlockSize,
                base: Some("128".into())
            })
        );
        // (a form in any order, spelled as the table's cell)
        assert_eq!(
            p("form=norm+skip").unwrap().base.as_deref(),
            Some("skip+norm")
        );
        assert_eq!(p("form=PLAIN").unwrap().base.as_deref(), Some("plain"));
        assert_eq!(p("bits=8").unwrap().base.as_deref(), Some("8"));
        assert_eq!(p("block-size=064").unwrap().base.as_deref(), Some("64"));
        for (bad, says) in [
            (
                "colour",
                "unknown key `colour` (one of: dtype, bits, block-size, form",
            ),
            ("bits=3", "`3` is no value of bits (2, 4 or 8)"),
            ("dtype=bf16", "no value of dtype (f16 or f32)"),
            ("block-size=24", "a power of two of at least 16"),
            ("form=skip+bias", "plain, or skip, norm and residual"),
            ("form=", "no value of form"),
        ] {
            let e = p(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn across_pairs_shapes_that_differ_in_one_key() {
        // Llama-8B f16, 4-bit codes in blocks of 32, plain.
        let plain = with(&suite("llama8b").unwrap()[0], |m| {
            (m.skip, m.norm, m.residual) = (false, false, false);
            (m.dtype, m.bits, m.block_size) = (DType::F16, 4, 32);
        });
        let rows = |r: usize| with(&plain, |m| m.lead = vec![r]);
        let f32 = |s: &BenchShape| with(s, |m| m.dtype = DType::F32);
        // Base: f16 at 1 / 16 rows. Other: f32 at 16 / 1 / 128 rows, f16 at 1 row (the base's
        // own shape: no pair across dtype), f32 at 1 row in blocks of 128 (differs twice).
        let base = report(
            "G",
            "a",
            vec![
                measurement(&rows(1), "g", 30.0),
                measurement(&rows(16), "t", 50.0),
            ],
        );
        let other = report(
            "G",
            "b",
            vec![
                measurement(&f32(&rows(16)), "t", 100.0),
                measurement(&f32(&rows(1)), "g", 45.0),
                measurement(&f32(&rows(128)), "t", 500.0),
                measurement(&rows(1), "g", 31.0),
                measurement(&with(&f32(&rows(1)), |m| m.block_size = 128), "g", 44.0),
            ],
        );
        let dtype: Across = "dtype".parse().unwrap();
        let c = Comparison::across(&base, &other, Some(&dtype));
        let got: Vec<(usize, DType, f64)> = c
            .pairs
            .iter()
            .map(|p| (p.base.shape.mlp.rows(), p.other.shape.mlp.dtype, p.ratio()))
            .collect();
        assert_eq!(got, vec![(1, DType::F32, 1.5), (16, DType::F32, 2.0)]);
        assert!(c.only_base.is_empty());
        // (the other's f16 row pairs with no f32 base shape; with dtype=f16 it is not asked to)
        assert_eq!(c.only_other.len(), 3, "{:?}", c.only_other);
        let f16: Across = "dtype=f16".parse().unwrap();
        let c = Comparison::across(&base, &other, Some(&f16));
        assert_eq!(c.pairs.len(), 2);
        assert_eq!(c.only_other.len(), 2, "{:?}", c.only_other);
        // Without --across: the one equal shape.
        let c = Comparison::new(&base, &other);
        assert_eq!(c.pairs.len(), 1);
        assert_eq!(c.pairs[0].ratio(), 31.0 / 30.0);

        let md = markdown_across(&base, &other, ["a", "b"], Some(&dtype)).unwrap();
        let lines: Vec<&str> = md.lines().collect();
        assert!(
            lines[0].contains("| form | other dtype | weight bytes | base variant |"),
            "{}",
            lines[0]
        );
        assert_eq!(lines[1].matches("---").count(), 12);
        // f32 scales: 4 bytes against 2 beside each block's 16 bytes of codes.
        assert!(
            lines[2].contains("| f32 | 1.111x | `g` | 30.0 µs | = | 45.0 µs | +50.0 % |"),
            "{}",
            lines[2]
        );
        assert!(
            md.contains("2 pairs that differ in dtype only: other / base 1.732x"),
            "{md}"
        );
        assert!(md.contains("Ratios 1.500x to 2.000x."), "{md}");
        assert!(
            md.contains("Without a partner in the other report (3): "),
            "{md}"
        );

        // One report, 4-bit codes the base: 2 bits within their bytes' scaling (25 against
        // 50 x 0.556), 8 bits not (99 against 50 x 1.889).
        let q = |bits: u32, us: f64| measurement(&with(&rows(16), |m| m.bits = bits), "t", us);
        let one = report("G", "c", vec![q(2, 25.0), q(4, 50.0), q(8, 99.0)]);
        let bits4: Across = "bits=4".parse().unwrap();
        let md = markdown_across(&one, &one, ["r", "r"], Some(&bits4)).unwrap();
        let rows_of = |md: &str| md.lines().filter(|l| l.contains(" µs |")).count();
        assert_eq!(rows_of(&md), 2, "{md}");
        assert!(
            md.contains("| 2 | 0.556x | `t` | 50.0 µs | = | 25.0 µs | -50.0 % |"),
            "{md}"
        );
        assert!(
            md.contains("| 8 | 1.889x | `t` | 50.0 µs | = | 99.0 µs | +98.0 % |"),
            "{md}"
        );
        assert!(
            md.contains("Ratios 0.500x to 1.980x; 1 of 2 pairs within the base's time scaled by their weight bytes."),
            "{md}"
        );
        assert!(!md.contains("Without a partner"), "{md}");
        // Every way round without the value: 6 pairs.
        let bits: Across = "bits".parse().unwrap();
        let md = markdown_across(&one, &one, ["r", "r"], Some(&bits)).unwrap();
        assert_eq!(rows_of(&md), 6, "{md}");

        // No pair: the error names the key and the base's value.
        let form: Across = "form=plain".parse().unwrap();
        let e = markdown_across(&one, &one, ["r.json", "s.json"], Some(&form))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("r.json and s.json have no two shapes that differ in form only, the base's form plain"),
            "{e}"
        );
    }

    proptest::proptest! {
        /// `--across`'s parser on any text: no panic; what parses prints back as itself (a
        /// key of [`Key::NAMES`], a value [`Key::cell`] can write), what does not names the
        /// key or the value at fault.
        #[test]
        fn across_parses_any_text_or_says_why(
            key in proptest::sample::select(vec!["dtype", "Bits", "block_size", "form", "rows", ""]),
            value in proptest::option::of(proptest::prop_oneof![
                "(skip|norm|residual|plain|bias)(\\+(skip|norm|residual|plain)){0,3}",
                "f16|f32|bf16|[0-9]{1,4}",
                "[a-zA-Z_=+0-9-]{0,12}",
            ]),
        ) {
            let s = match &value {
                Some(v) => format!("{key}={v}"),
                None => key.to_string(),
            };
            match s.parse::<Across>() {
                Ok(a) => {
                    let again = match &a.base {
                        Some(v) => format!("{}={v}", a.key.name()),
                        None => a.key.name().to_string(),
                    };
                    proptest::prop_assert_eq!(again.parse::<Across>(), Ok(a));
                }
                Err(e) => proptest::prop_assert!(
                    e.contains("unknown key") || e.contains("is no value of"),
                    "{}",
                    e
                ),
            }
        }
    }
}
