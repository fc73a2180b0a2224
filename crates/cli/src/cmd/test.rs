//! `nbits-mlp test`: run ONNX node-test cases and compare with their expected outputs.

use crate::args::{load_manifest, BackendArgs, TunableArgs};
use crate::backend::{Backend, FailureKind};
use crate::report::tolerance;
use crate::{EXIT_ERROR, EXIT_FAILED};
use anyhow::{bail, Result};
use clap::Args;
use nbits_mlp_core::Tensor;
use nbits_mlp_onnx::ValueInfo;
use nbits_mlp_reference::compare::max_abs_error;
use std::path::PathBuf;
use std::process::ExitCode;

/// Run ONNX node-test cases (`model.onnx` + `test_data_set_<n>/{input,output}_<i>.pb`) and
/// compare every output with the expected one.
#[derive(Args, Debug)]
#[command(after_help = "EXAMPLES:
  nbits-mlp gen-case /tmp/c1 --k 256 --n 64 --rows 3 --skip --norm --residual
  nbits-mlp test /tmp/c1                      # on the best GPU adapter
  nbits-mlp test /tmp/c1 /tmp/c2 --backend cpu
  nbits-mlp test /tmp/c1 --rtol 1e-3 --atol 1e-4

One line per case and data set:
  PASS|FAIL <case>/<data set> max_abs_err=<e> tol=<t> variant=<id> (<backend>)
(the output with the largest error relative to its tolerance). Default tolerance per output:
float32 1e-5*max|expected| + 1e-6, float16 2e-3*max|expected| + 2^-24; --rtol/--atol give
atol + rtol*max|expected| instead. Exit 0 if all pass, 1 if any fails, 2 on bad input.")]
pub struct TestArgs {
    /// Test case directories.
    #[arg(value_name = "CASE_DIR", required = true)]
    pub cases: Vec<PathBuf>,
    #[command(flatten)]
    pub backend: BackendArgs,
    #[command(flatten)]
    pub tunables: TunableArgs,
    /// Relative tolerance (times max|expected|) [default: per dtype, see below; 0 with --atol].
    #[arg(long, value_name = "R")]
    pub rtol: Option<f64>,
    /// Absolute tolerance [default: per dtype, see below; 0 with --rtol].
    #[arg(long, value_name = "A")]
    pub atol: Option<f64>,
}

/// How one output compares.
struct OutputCheck {
    name: String,
    err: f64,
    tol: f64,
    /// Set when the output cannot be compared at all (dtype or shape differ).
    mismatch: Option<String>,
}

impl OutputCheck {
    fn passed(&self) -> bool {
        self.mismatch.is_none() && self.err <= self.tol
    }
    /// err / tol, for picking the worst output (infinite when it cannot pass).
    fn ratio(&self) -> f64 {
        if self.mismatch.is_some() || self.err.is_nan() {
            f64::INFINITY
        } else if self.tol > 0.0 {
            self.err / self.tol
        } else if self.err > 0.0 {
            f64::INFINITY
        } else {
            0.0
        }
    }
}

fn check_output(
    vi: &ValueInfo,
    expected: &Tensor,
    got: &Tensor,
    tol: Option<(f64, f64)>,
    f16_accumulation: bool,
) -> OutputCheck {
    let expected_f64 = expected.to_f64();
    let tol = tolerance(expected.dtype, &expected_f64, tol, f16_accumulation);
    let mismatch = if got.dtype != expected.dtype || got.shape != expected.shape {
        Some(format!(
            "got {} {:?}, expected {} {:?}",
            got.dtype, got.shape, expected.dtype, expected.shape
        ))
    } else {
        None
    };
    let err = if mismatch.is_some() {
        f64::INFINITY
    } else {
        max_abs_error(&expected_f64, got)
    };
    OutputCheck {
        name: vi.name.clone(),
        err,
        tol,
        mismatch,
    }
}

pub fn run(args: TestArgs) -> Result<ExitCode> {
    let tol = match (args.rtol, args.atol) {
        (None, None) => None,
        (r, a) => {
            let (r, a) = (r.unwrap_or(0.0), a.unwrap_or(0.0));
            if !(r.is_finite() && a.is_finite() && r >= 0.0 && a >= 0.0) {
                bail!("--rtol {r} --atol {a}: tolerances must be finite and non-negative");
            }
            Some((r, a))
        }
    };
    let tunables = args.tunables.resolve(&load_manifest(None, None)?)?;
    let mut backend: Option<Backend> = None;
    let (mut passed, mut failed, mut errors) = (0usize, 0usize, 0usize);

    for dir in &args.cases {
        let case = match nbits_mlp_onnx::load_case(dir) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: {e}");
                errors += 1;
                continue;
            }
        };
        if case.data_sets.is_empty() {
            eprintln!("error: {}: no test_data_set_<n> directory", dir.display());
            errors += 1;
            continue;
        }
        // Opened once, on the first case that loads.
        let backend = match &backend {
            Some(b) => b,
            None => {
                let b = Backend::open(&args.backend)?;
                if let Some(p) = b.tuning_cache() {
                    eprintln!("tuned cache {p} (see `nbits-mlp tune`)");
                }
                backend.insert(b)
            }
        };
        for ds in &case.data_sets {
            let name = ds.dir.display();
            let (outputs, variants, f16_accumulation) =
                match backend.run_model_tuned(&case.model, &ds.inputs, &tunables) {
                    Ok(r) => (r.outputs, r.variants, r.f16_accumulation),
                    Err(e) if e.kind == FailureKind::Invalid => {
                        eprintln!("error: {name}: {e}");
                        errors += 1;
                        continue;
                    }
                    Err(e) => {
                        println!("FAIL {name} error: {e} ({})", backend.name());
                        failed += 1;
                        continue;
                    }
                };
            let checks: Vec<OutputCheck> = case
                .model
                .outputs
                .iter()
                .zip(&ds.outputs)
                .zip(&outputs)
                .map(|((vi, expected), got)| check_output(vi, expected, got, tol, f16_accumulation))
                .collect();
            let ok = checks.iter().all(OutputCheck::passed);
            let worst = checks.iter().max_by(|a, b| a.ratio().total_cmp(&b.ratio()));
            let (err, t) = worst.map_or((0.0, 0.0), |w| (w.err, w.tol));
            println!(
                "{} {name} max_abs_err={err:.3e} tol={t:.3e} variant={} ({})",
                if ok { "PASS" } else { "FAIL" },
                variants.join(","),
                backend.name()
            );
            for c in checks.iter().filter(|c| !c.passed()) {
                match &c.mismatch {
                    Some(m) => println!("    output '{}': {m}", c.name),
                    None => println!(
                        "    output '{}': max_abs_err={:.3e} > tol={:.3e}",
                        c.name, c.err, c.tol
                    ),
                }
            }
            if ok {
                passed += 1;
            } else {
                failed += 1;
            }
        }
    }
    let mut summary = format!("test result: {passed} passed, {failed} failed");
    if errors > 0 {
        summary.push_str(&format!(", {errors} with bad input"));
    }
    println!("{summary}");
    Ok(ExitCode::from(if errors > 0 {
        EXIT_ERROR
    } else if failed > 0 {
        EXIT_FAILED
    } else {
        0
    }))
}
