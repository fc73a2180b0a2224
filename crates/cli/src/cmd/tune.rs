//! `nbits-mlp tune`: search the manifest's tunable candidates per shape class on the live
//! adapter and store the winners in its tuning cache, which `run`, `test`, `bench` and
//! `plan --device gpu` then apply.

use crate::args::{gpu_options, parse_shape, ShapeFlags};
use crate::EXIT_FAILED;
use anyhow::{bail, Context as _, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nbits_mlp_bench::tune::{self, TuneConfig, TuneResult};
use nbits_mlp_core::tuning::{
    self, manifest_fingerprint, tunables_text, Candidate, DescentLimits, TuningCache,
};
use nbits_mlp_core::MlpShape;
use nbits_mlp_gpu::Runtime;
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Tune the manifest's tunables on the live adapter: for each shape, a coordinate descent over
/// the candidate values of the project overlay (`tunableValues`), timed with GPU timestamps;
/// the winner, checked against the float64 reference, is stored in the adapter's tuning cache
/// when it beats the defaults by more than --min-gain.
#[derive(Args, Debug)]
#[command(after_help = "EXAMPLES:
  nbits-mlp tune                                           # the decode suite (Llama-3.1-8B rows 1 and 128)
  nbits-mlp tune --suite quick --rounds 30
  nbits-mlp tune --shape 4096,14336,1 --dtype f16 --skip --norm --residual
  nbits-mlp tune --shape 4096,14336,1 --dtype f16 --dry-run   # which candidates change the plan
  nbits-mlp tune --shape 896,4864,1 --out /tmp/tuned.json     # write elsewhere than the cache

Only values that change what runs are timed: each candidate is planned, and one whose rendered
passes (WGSL, dispatch, bindings) equal an already timed plan reuses that time; values that do
not plan (e.g. a workgroup too large for the adapter) are skipped.

Entries are keyed by shape class: dtype, bits, block size, K, N, rows bucket (1, 2-16, 17-128,
>128) and whether skip / norm_scale are given. The cache is one JSON file per adapter in
$NBITS_MLP_TUNE_CACHE (a directory, or a .json file), else $XDG_CACHE_HOME/nbits-mlp/ or
~/.cache/nbits-mlp/; NBITS_MLP_TUNE_CACHE=off disables it. A cache made for another adapter,
driver or manifest is ignored with a warning. Explicit --tunable values always win over it.
Exit 1 if a winner fails the reference check (it is not stored).")]
pub struct TuneArgs {
    /// Bench suite to tune (smoke, decode, llama8b, quick, full) [default: decode].
    #[arg(long, conflicts_with = "shape")]
    pub suite: Option<String>,
    /// Tune one shape instead of a suite (see --dtype, --bits, --skip, --norm, ...).
    #[arg(long, value_name = "K,N,ROWS", value_parser = parse_shape)]
    pub shape: Option<(usize, usize, usize)>,
    #[command(flatten)]
    pub shape_flags: ShapeFlags,
    /// GPU adapter: case-insensitive substring of its name [default: the best adapter].
    #[arg(long, value_name = "NAME")]
    pub adapter: Option<String>,
    /// Timed rounds per candidate (each runs every weight set once); the median is its time.
    #[arg(long, default_value_t = 20)]
    pub rounds: usize,
    /// Independent weight sets rotated through (>= 4 keeps weights out of the L2 cache).
    #[arg(long, default_value_t = 4)]
    pub sets: usize,
    /// Distinct plans timed at most per shape (the defaults included).
    #[arg(long, default_value_t = 40)]
    pub max_trials: usize,
    /// Sweeps over all tunables at most per shape.
    #[arg(long, default_value_t = 4)]
    pub max_sweeps: usize,
    /// Percent a winner must beat the defaults by to be applied.
    #[arg(long, value_name = "PERCENT", default_value_t = 2.0)]
    pub min_gain: f64,
    /// Cache file to update instead of the adapter's default cache.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Only list each shape's candidates and which of them change the plan; time nothing,
    /// write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Progress: a spinner with the latest step on a terminal, plain lines otherwise (the bench's
/// log lines).
struct Progress {
    bar: ProgressBar,
    plain: bool,
}

impl Progress {
    fn new(total: usize) -> Progress {
        let plain = !std::io::stderr().is_terminal();
        let bar = if plain {
            ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden())
        } else {
            ProgressBar::new(total as u64)
        };
        if let Ok(style) =
            ProgressStyle::with_template("{spinner:.green} [{pos}/{len}] {msg} {elapsed:.dim}")
        {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(100));
        Progress { bar, plain }
    }

    /// A step: the spinner's message on a terminal, a line otherwise.
    fn step(&self, line: &str) {
        if self.plain {
            eprintln!("{line}");
        } else {
            self.bar.set_message(line.to_string());
        }
    }

    /// A line that stays (above the spinner on a terminal).
    fn line(&self, line: &str) {
        if self.plain {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
        }
    }
}

/// The shapes to tune, labelled.
fn shapes(a: &TuneArgs) -> Result<Vec<(String, MlpShape)>> {
    if let Some((k, n, rows)) = a.shape {
        let s = a
            .shape_flags
            .checked_shape(k, n, rows)
            .with_context(|| format!("--shape {k},{n},{rows}"))?;
        let mut label = format!("K={k} N={n} r{rows} {} q{}", s.dtype.short_name(), s.bits);
        for (on, name) in [
            (s.skip, "skip"),
            (s.norm, "norm"),
            (s.residual, "residual"),
            (s.gate_bias, "gate_bias"),
            (s.up_bias, "up_bias"),
        ] {
            if on {
                label.push(' ');
                label.push_str(name);
            }
        }
        return Ok(vec![(label, s)]);
    }
    let given = a.shape_flags.given();
    if !given.is_empty() {
        bail!("{}: allowed only with --shape", given.join(", "));
    }
    let suite = a.suite.as_deref().unwrap_or("decode");
    Ok(nbits_mlp_bench::suite(suite)?
        .iter()
        .map(|b| (b.label(), b.mlp.clone()))
        .collect())
}

pub fn run(a: TuneArgs) -> Result<ExitCode> {
    let shapes = shapes(&a)?;
    if !a.min_gain.is_finite() {
        bail!("--min-gain {}: not a number", a.min_gain);
    }
    // A runtime without any tuning attached: every plan is made from explicit values.
    let rt = Runtime::open(&gpu_options(a.adapter.as_deref())?)?;
    let device = rt.device_id();
    eprintln!("adapter: {} ({})", device.adapter, device.backend);
    if a.dry_run {
        for (label, s) in &shapes {
            dry_run(&rt, label, s)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let path = match &a.out {
        Some(p) => p.clone(),
        None => tuning::cache_path(&device).with_context(|| {
            format!(
                "no tuning cache location ({}=off, or neither XDG_CACHE_HOME nor HOME is set): \
                 give --out FILE",
                tuning::ENV_TUNE_CACHE
            )
        })?,
    };
    let fingerprint = manifest_fingerprint(rt.planner().manifest());
    let (mut cache, replaced) = TuningCache::for_update(&path, &device, &fingerprint)?;
    if let Some(e) = replaced {
        eprintln!("warning: {e}; replacing it");
    }
    let cfg = TuneConfig {
        weight_sets: a.sets.max(1),
        rounds: a.rounds.max(1),
        limits: DescentLimits {
            max_trials: a.max_trials.max(1),
            max_sweeps: a.max_sweeps.max(1),
        },
        min_gain: a.min_gain / 100.0,
    };
    let progress = Progress::new(shapes.len());
    let started = Instant::now();
    let mut results: Vec<TuneResult> = Vec::new();
    let mut failed = 0;
    for (i, (label, s)) in shapes.iter().enumerate() {
        progress.step(&format!("[{}/{}] {label}", i + 1, shapes.len()));
        let r = tune::tune_shape(&rt, s, label, &cfg, &mut |line| progress.step(line));
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                progress.bar.finish_and_clear();
                return Err(e);
            }
        };
        progress.line(&summary(&r));
        match r.entry(s) {
            Some(entry) => {
                cache.insert(entry);
                cache.write(&path)?;
            }
            None => {
                failed += 1;
                progress.line(&format!(
                    "{label}: the winner fails the reference check (max abs err {:.3e}, \
                     tolerance {:.3e}): not stored",
                    r.check.max_abs_err, r.check.tolerance
                ));
            }
        }
        results.push(r);
        progress.bar.inc(1);
        rt.clear_caches();
    }
    progress.bar.finish_and_clear();
    print_table(&results);
    println!(
        "tuning cache: {} ({} entr{}; {:.1} s)",
        path.display(),
        cache.entries.len(),
        if cache.entries.len() == 1 { "y" } else { "ies" },
        started.elapsed().as_secs_f64()
    );
    Ok(if failed > 0 {
        eprintln!("{failed} winner(s) outside the reference tolerance");
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// One line per tuned shape, for the progress log.
fn summary(r: &TuneResult) -> String {
    format!(
        "{}: defaults {:.1} us, best {:.1} us ({:+.1} %) with {}: {} ({} plans timed{})",
        r.label,
        r.default_us,
        r.best_us,
        100.0 * r.gain(),
        tunables_text(&r.descent.best),
        if r.applied { "applied" } else { "not applied" },
        r.descent.trials.len(),
        if r.descent.capped { ", capped" } else { "" }
    )
}

fn print_table(results: &[TuneResult]) {
    let w = results
        .iter()
        .map(|r| r.label.len())
        .max()
        .unwrap_or(0)
        .max(5);
    let vw = results
        .iter()
        .map(|r| {
            r.descent
                .best_variant
                .len()
                .max(r.descent.default_variant.len())
        })
        .max()
        .unwrap_or(0)
        .max(7);
    println!(
        "{:<w$}  {:<vw$}  {:>10}  {:>10}  {:>7}  tunables",
        "shape", "variant", "default us", "best us", "gain"
    );
    for r in results {
        let variant = if r.applied {
            &r.descent.best_variant
        } else {
            &r.descent.default_variant
        };
        let tunables = if r.applied {
            tunables_text(&r.descent.best)
        } else if r.descent.best.is_empty() {
            "defaults".to_string()
        } else {
            format!("defaults (not applied: {})", tunables_text(&r.descent.best))
        };
        println!(
            "{:<w$}  {:<vw$}  {:>10.1}  {:>10.1}  {:>6.1}%  {tunables}",
            r.label,
            variant,
            r.default_us,
            r.best_us,
            100.0 * r.gain()
        );
    }
}

/// `--dry-run` for one shape: every candidate and what planning it gives.
fn dry_run(rt: &Runtime, label: &str, s: &MlpShape) -> Result<()> {
    let class = tune::shape_class(rt, s)?;
    let default = rt
        .planner()
        .plan(&s.call(), &Default::default())
        .with_context(|| format!("planning {label}"))?;
    println!("{label}: class {class}, variant {}", default.variant);
    let report = tune::dry_run(rt, s)?;
    if report.is_empty() {
        println!("  no tunable has candidate values");
    }
    let mut timed = 1;
    let width = report
        .iter()
        .map(|c| c.name.len() + 1 + c.value.to_string().len())
        .max()
        .unwrap_or(0);
    for c in &report {
        let what = match &c.outcome {
            Candidate::Default => "default".to_string(),
            Candidate::Distinct { variant } => {
                timed += 1;
                format!("changes the plan ({variant})")
            }
            Candidate::SameAsDefault => "same plan as the default".into(),
            Candidate::SameAs(v) => format!("same plan as {}={v}", c.name),
            Candidate::Illegal(e) => format!("does not plan: {}", first_line(e)),
        };
        let nv = format!("{}={}", c.name, c.value);
        println!("  {nv:<width$}  {what}");
    }
    println!("  {timed} distinct plans at the default point");
    Ok(())
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}
