//! What a benchmark run records: its settings, one [`Measurement`] per shape and the
//! [`Report`] around them (the JSON files `bench --out` writes and `bench --results` reads).

use crate::measure::exceeds_check;
use crate::suites::BenchShape;
use nbits_mlp_core::Tunables;
use serde::{Deserialize, Serialize};

/// Benchmark settings.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchConfig {
    /// Independent weight sets rotated through (at least 4 so the weights exceed the L2).
    pub weight_sets: usize,
    /// Timed rounds (each one submission running every weight set once, back to back).
    pub rounds: usize,
    /// Layers in the peers' wall-clock measurement (0 to skip it).
    pub layers: usize,
    /// Calls for the host-overhead measurement.
    pub host_reps: usize,
    /// Tunable overrides.
    pub tunables: Tunables,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            weight_sets: 4,
            rounds: 50,
            layers: 16,
            host_reps: 200,
            tunables: Tunables::new(),
        }
    }
}

/// Result for one shape.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measurement {
    /// The shape.
    pub shape: BenchShape,
    /// Variant that ran.
    pub variant: String,
    /// Median GPU time per call, µs.
    pub gpu_us: f64,
    /// 10th percentile, µs.
    pub gpu_us_p10: f64,
    /// 90th percentile, µs.
    pub gpu_us_p90: f64,
    /// Timed calls.
    pub samples: usize,
    /// Weight + scale bytes per call.
    pub weight_bytes: u64,
    /// Weight GB/s at the median.
    pub weight_gbps: f64,
    /// Fraction of the measured copy bandwidth (read + write).
    pub copy_fraction: f64,
    /// Cross-check of `gpu_us` by the host clock: one submission of dependent runs over the
    /// weight sets lasting about [`SUSTAINED_SPAN_US`](crate::SUSTAINED_SPAN_US), timed from
    /// the submission's return to the device's idle, divided by the runs; median of
    /// [`SUSTAINED_TRIALS`](crate::SUSTAINED_TRIALS). It has no
    /// timestamp queries and keeps the GPU busy, so a `gpu_us` well above it (see
    /// [`Measurement::inflated`]) is a timestamp span to distrust. µs per call.
    #[serde(default)]
    pub gpu_us_sustained: Option<f64>,
    /// Median host time per call on a cached plan (record + submit), µs.
    pub host_us: f64,
    /// 10th percentile of the same calls, µs: the host's cost with its noise mostly left out
    /// (on the H200's host the median jumps between ~13 and 40-70 µs from run to run while this
    /// stays low). Absent in reports from before session 5.
    #[serde(default)]
    pub host_us_p10: Option<f64>,
    /// Peers' measure: wall-clock per node of a stack of `layers` layers, µs: per iteration,
    /// upload A and skip, run every layer in one submission, read every `Y` back into host
    /// tensors kept across iterations; median iteration time / layers (see
    /// [`wall_per_node`](crate::wall_per_node)).
    pub wall_per_node_us: Option<f64>,
    /// Error of the worst checked element against the float64 reference (the largest error;
    /// with float16 accumulation, the largest relative to its per-element tolerance).
    pub max_abs_err: f64,
    /// That element's tolerance (`compare::worst_error`).
    pub tolerance: f64,
    /// Rows checked against the reference.
    pub checked_rows: usize,
    /// Tunables a tuning cache changed for this shape (empty: defaults or explicit overrides).
    #[serde(default, skip_serializing_if = "Tunables::is_empty")]
    pub tuned: Tunables,
    /// Timestamp medians set aside because they exceeded their own host-clock cross-check by
    /// more than 20 % (see [`Measurement::inflated`]): the shape was timed again, up to
    /// [`RETIME_ATTEMPTS`](crate::RETIME_ATTEMPTS) more times, and `gpu_us` is the last
    /// attempt's (still flagged if that one is inflated too). Empty when the first timing held.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub discarded_gpu_us: Vec<f64>,
    /// With `NBITS_MLP_BENCH_PER_SET` set: the GPU time per call of each allocated weight set
    /// timed alone (the same set every run; sets that fit the L2 then read low), a diagnostic
    /// for rotations that read long (notes/PERF.md row 68). Empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_set_gpu_us: Vec<f64>,
    /// TFLOP/s achieved at the median GPU time ([`Measurement::tflops`]), kept in the report
    /// for its readers; absent in reports written before it was added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_tflops: Option<f64>,
    /// Milliseconds the runtime took to build the prepared weight copies the variant reads
    /// (`nbits_mlp_core::layout`, built on the GPU by the runtime's repack kernels; every
    /// weight set, once, before timing, until the device is idle: not in the GPU time).
    /// Absent for variants that read the op's own layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepare_ms: Option<f64>,
}

impl Measurement {
    /// TFLOP/s achieved at the median GPU time:
    /// [`MlpShape::flops`](nbits_mlp_core::MlpShape::flops) / `gpu_us` (computed from the
    /// shape, so reports without [`Measurement::gpu_tflops`] have it too).
    pub fn tflops(&self) -> f64 {
        self.shape.mlp.flops() / (self.gpu_us * 1e6)
    }

    /// Whether the timestamp median exceeds the host-clock cross-check
    /// ([`Measurement::gpu_us_sustained`]) by more than 20 %.
    pub fn inflated(&self) -> bool {
        exceeds_check(self.gpu_us, self.gpu_us_sustained)
    }

    /// Whether the GPU time per call exceeds the wall-clock time per node of the layer stack
    /// ([`Measurement::wall_per_node_us`]), although every node of that stack runs the same
    /// kernel on the same shape (and reads its `Y` back on top): then one of the two measures
    /// is wrong for this shape, whatever the host-clock cross-check says.
    pub fn above_wall(&self) -> bool {
        self.wall_per_node_us
            .is_some_and(|w| w > 0.0 && self.gpu_us > w)
    }

    /// Whether the GPU time is a span to distrust: [`Measurement::inflated`] or
    /// [`Measurement::above_wall`] (the tables mark it `!`, the rows plot draws it off the line).
    pub fn distrusted(&self) -> bool {
        self.inflated() || self.above_wall()
    }

    /// Whether the result was off the float64 reference: its error above its tolerance, or
    /// not a number (the tables mark it `x`, the plot draws it red, the bench exits 1).
    pub fn off_reference(&self) -> bool {
        self.max_abs_err.is_nan() || self.max_abs_err > self.tolerance
    }
}

/// A whole benchmark run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// Adapter name.
    pub gpu: String,
    /// Backend.
    pub backend: String,
    /// Driver and its info.
    pub driver: String,
    /// Commit the binary was built from.
    pub commit: String,
    /// UTC date and time of the run.
    pub date: String,
    /// Settings.
    pub config: BenchConfig,
    /// Buffer-to-buffer copy bandwidth, read + write, GB/s.
    pub copy_gbps: f64,
    /// How the copy was timed.
    pub copy_method: String,
    /// One entry per shape.
    pub measurements: Vec<Measurement>,
    /// The tuning cache the runtime used, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tuning_cache: Option<String>,
}

impl Report {
    /// One report of several runs of one binary on one GPU (e.g. a row curve timed one row count
    /// per process, so that no reading depends on what ran before it in the same process): the
    /// first report's header, every report's measurements in order. Errors when the list is
    /// empty or the runs differ in GPU, driver or commit (their times would not be comparable).
    pub fn merge(reports: Vec<Report>) -> anyhow::Result<Report> {
        let mut it = reports.into_iter();
        let Some(mut merged) = it.next() else {
            anyhow::bail!("no report to merge");
        };
        for (i, r) in it.enumerate() {
            for (what, a, b) in [
                ("GPU", &merged.gpu, &r.gpu),
                ("driver", &merged.driver, &r.driver),
                ("commit", &merged.commit, &r.commit),
            ] {
                if a != b {
                    anyhow::bail!(
                        "report {} was run with {what} {b:?}, the first with {a:?}: only runs of \
                         one binary on one GPU merge",
                        i + 2
                    );
                }
            }
            merged.measurements.extend(r.measurements);
        }
        Ok(merged)
    }
}

/// A measurement of `shape` for the crate's tests: `variant` at `gpu_us` (its percentiles and
/// host-clock check the same), the rest neutral (an exact result, no wall per node); each test
/// sets what it needs with struct update syntax.
#[cfg(test)]
pub(crate) fn test_measurement(shape: &BenchShape, variant: &str, gpu_us: f64) -> Measurement {
    Measurement {
        shape: shape.clone(),
        variant: variant.into(),
        gpu_us,
        gpu_us_p10: gpu_us,
        gpu_us_p90: gpu_us,
        gpu_us_sustained: Some(gpu_us),
        samples: 1,
        weight_bytes: shape.mlp.weight_bytes(),
        weight_gbps: 1.0,
        copy_fraction: 0.0,
        host_us: 1.0,
        host_us_p10: None,
        wall_per_node_us: None,
        max_abs_err: 0.0,
        tolerance: 1.0,
        checked_rows: 1,
        tuned: Tunables::new(),
        discarded_gpu_us: Vec::new(),
        per_set_gpu_us: Vec::new(),
        gpu_tflops: None,
        prepare_ms: None,
    }
}

/// A report of `measurements` for the crate's tests (GPU `G` on Vulkan, commit `c`).
#[cfg(test)]
pub(crate) fn test_report(measurements: Vec<Measurement>) -> Report {
    Report {
        gpu: "G".into(),
        backend: "Vulkan".into(),
        driver: "D".into(),
        commit: "c".into(),
        date: "d".into(),
        config: BenchConfig::default(),
        copy_gbps: 1.0,
        copy_method: String::new(),
        measurements,
        tuning_cache: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{time_checked, RETIME_ATTEMPTS};
    use anyhow::anyhow;

    fn measurement(gpu: f64, sustained: Option<f64>, wall: Option<f64>) -> Measurement {
        let shape = &crate::suite("smoke").expect("smoke suite")[0];
        Measurement {
            gpu_us_sustained: sustained,
            wall_per_node_us: wall,
            ..test_measurement(shape, "v", gpu)
        }
    }

    #[test]
    fn contradicted_timings_are_retried_and_kept_aside() {
        // (samples, host-clock check) per attempt.
        let run = |attempts: Vec<(Vec<f64>, f64)>| {
            let mut it = attempts.into_iter();
            let mut retries = Vec::new();
            let c = time_checked(
                || it.next().ok_or_else(|| anyhow!("no more attempts")),
                |g, s| retries.push((g, s)),
            )
            .unwrap();
            (c.gpu_us, c.sustained, c.discarded_gpu_us, retries)
        };
        // Consistent at once: one attempt, nothing set aside.
        assert_eq!(
            run(vec![(vec![10.0, 11.0, 12.0], 10.5)]),
            (11.0, 10.5, vec![], vec![])
        );
        // Contradicted once, then consistent.
        assert_eq!(
            run(vec![(vec![30.0], 10.0), (vec![11.0], 10.0)]),
            (11.0, 10.0, vec![30.0], vec![(30.0, 10.0)])
        );
        // Contradicted every time: the third attempt is kept (still flagged by `inflated`).
        let (g, s, aside, retries) = run(vec![
            (vec![30.0], 10.0),
            (vec![40.0], 10.0),
            (vec![50.0], 10.0),
        ]);
        assert_eq!(
            (g, s, aside, retries.len()),
            (50.0, 10.0, vec![30.0, 40.0], RETIME_ATTEMPTS)
        );
        assert!(measurement(g, Some(s), None).inflated());
    }

    #[test]
    fn suspicious_spans_are_flagged() {
        // Within 20 % of the host-clock check: fine; beyond: inflated.
        assert!(!measurement(119.0, Some(100.0), None).inflated());
        assert!(measurement(121.0, Some(100.0), None).inflated());
        assert!(!measurement(121.0, None, None).inflated());
        // Above the wall time per node (which holds the same kernel): flagged even when the
        // host-clock check agrees with the span (Llama-3.1-70B rows 1, notes/PERF.md row 47).
        let m = measurement(296.1, Some(303.2), Some(157.4));
        assert!(!m.inflated());
        assert!(m.above_wall());
        assert!(!measurement(99.7, Some(105.2), Some(157.4)).above_wall());
        assert!(!measurement(99.7, None, None).above_wall());
    }

    #[test]
    fn results_off_the_reference_are_named() {
        let at = |err: f64| Measurement {
            max_abs_err: err,
            tolerance: 1e-3,
            ..measurement(1.0, None, None)
        };
        assert!(!at(0.0).off_reference());
        assert!(!at(1e-3).off_reference());
        assert!(at(1.1e-3).off_reference());
        assert!(at(f64::NAN).off_reference());
    }

    fn report(gpu: &str, commit: &str, times: &[f64]) -> Report {
        Report {
            gpu: gpu.into(),
            backend: "vulkan".into(),
            commit: commit.into(),
            date: "2026-12-01".into(),
            copy_method: "m".into(),
            ..test_report(times.iter().map(|&t| measurement(t, None, None)).collect())
        }
    }

    #[test]
    fn merge_keeps_every_measurement_of_one_binary_on_one_gpu() {
        let m = Report::merge(vec![
            report("H200", "abc", &[1.0, 2.0]),
            report("H200", "abc", &[3.0]),
        ])
        .unwrap();
        let times: Vec<f64> = m.measurements.iter().map(|m| m.gpu_us).collect();
        assert_eq!(times, [1.0, 2.0, 3.0]);
        let e = Report::merge(vec![
            report("H200", "abc", &[1.0]),
            report("H200", "def", &[2.0]),
        ])
        .unwrap_err()
        .to_string();
        assert!(e.contains("report 2") && e.contains("commit"), "{e}");
        let e = Report::merge(vec![
            report("H200", "abc", &[1.0]),
            report("A100", "abc", &[2.0]),
        ])
        .unwrap_err()
        .to_string();
        assert!(e.contains("GPU"), "{e}");
        assert!(Report::merge(Vec::new()).is_err());
    }
}
