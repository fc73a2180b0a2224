//! `nbits-mlp demo`: one realistic layer (Llama-3.1-8B gate/up) on the best adapter, checked
//! against the CPU reference, with its GPU time and weight bandwidth.

use crate::args::{gpu_options, parse_float_dtype};
use crate::report::{duration_us, median, tolerance};
use crate::EXIT_FAILED;
use anyhow::{anyhow, bail, Context as _, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nbits_mlp_core::{DType, MlpShape, Tensor, Tunables};
use nbits_mlp_gpu::{GpuTensor, Runtime};
use nbits_mlp_reference::compare::{self, max_abs};
use nbits_mlp_reference::mlp::INPUT_NAMES;
use std::io::IsTerminal as _;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Llama-3.1-8B's gate/up projection: hidden size 4096, intermediate size 14336.
const LLAMA_8B: (usize, usize, &str) = (4096, 14336, "Llama-3.1-8B gate/up");
/// Wall-clock budget of the timed runs, in seconds.
const TIMING_BUDGET_S: f64 = 2.0;

/// Run a realistic fused MLP layer on the best GPU adapter: Llama-3.1-8B gate/up (K=4096,
/// N=14336), float16, 4-bit weights in blocks of 32, with skip, norm_scale and the residual
/// output; check it against the CPU float64 reference and report the GPU time and weight
/// bandwidth.
#[derive(Args, Debug)]
#[command(after_help = "EXAMPLES:
  nbits-mlp demo
  nbits-mlp demo --rows 8 --dtype f32
  nbits-mlp demo --adapter llvmpipe            # software Vulkan: about 10 s on 2 cores (release)
  nbits-mlp demo --k 896 --n 4864              # Qwen2.5-0.5B's gate/up

GPU time is the median of several runs (about 2 s of them, 3 to 100) from timestamp queries
when the device has them, else wall clock (submit to idle). Weight GB/s counts the packed
weights and scales of gate and up, read once per run.
Exit 1 if the result is outside the default tolerance (float16 2e-3*max|Y| + 2^-24, float32
1e-5*max|Y| + 1e-6).")]
pub struct DemoArgs {
    /// GPU adapter: case-insensitive substring of its name [default: the best adapter].
    #[arg(long, value_name = "NAME")]
    pub adapter: Option<String>,
    /// Rows of A (tokens).
    #[arg(long, value_name = "M", default_value_t = 1, value_parser = parse_positive)]
    pub rows: usize,
    /// T1: f16 or f32.
    #[arg(long, value_name = "f16|f32", default_value = "f16", value_parser = parse_float_dtype)]
    pub dtype: DType,
    /// Hidden size K instead of the model shape (with --n).
    #[arg(long, requires = "n")]
    pub k: Option<usize>,
    /// Output size N instead of the model shape (with --k).
    #[arg(long, requires = "k")]
    pub n: Option<usize>,
    /// Seed of the random weights and activations.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

fn parse_positive(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(v) if v > 0 => Ok(v),
        _ => Err(format!("`{s}` is not a positive integer")),
    }
}

/// Progress through the demo's steps: a spinner on a terminal, plain lines otherwise.
struct Steps {
    bar: ProgressBar,
    plain: bool,
    total: usize,
    index: usize,
    name: &'static str,
    started: Instant,
}

impl Steps {
    fn new(total: usize) -> Steps {
        let plain = !std::io::stderr().is_terminal();
        let bar = if plain {
            ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden())
        } else {
            ProgressBar::new(total as u64)
        };
        if let Ok(style) = ProgressStyle::with_template("{spinner:.green} {msg} {elapsed:.dim}") {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(100));
        Steps {
            bar,
            plain,
            total,
            index: 0,
            name: "",
            started: Instant::now(),
        }
    }

    fn start(&mut self, name: &'static str) {
        self.index += 1;
        self.name = name;
        self.started = Instant::now();
        self.bar
            .set_message(format!("[{}/{}] {name}", self.index, self.total));
    }

    fn done(&mut self, detail: &str) {
        let line = format!(
            "[{}/{}] {}: {detail} ({:.2} s)",
            self.index,
            self.total,
            self.name,
            self.started.elapsed().as_secs_f64()
        );
        if self.plain {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
        }
        self.bar.inc(1);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The outcome of comparing one output.
struct Checked {
    name: &'static str,
    err: f64,
    tol: f64,
}

/// The worst element's error and tolerance (per element from the reference's error `scale`
/// when the kernel accumulated in float16; `compare::worst_error`).
fn check(
    name: &'static str,
    expected: &[f64],
    scale: &[f64],
    got: &Tensor,
    f16_accumulation: bool,
) -> Checked {
    let (err, tol) = compare::worst_error(expected, scale, got, f16_accumulation)
        .unwrap_or((f64::NAN, tolerance(got.dtype, expected, None, false)));
    Checked { name, err, tol }
}

pub fn run(args: DemoArgs) -> Result<ExitCode> {
    let mut steps = Steps::new(7);
    let result = run_steps(&args, &mut steps);
    steps.finish();
    result
}

fn run_steps(args: &DemoArgs, steps: &mut Steps) -> Result<ExitCode> {
    steps.start("open adapter");
    let rt = Runtime::open(&gpu_options(args.adapter.as_deref())?)?;
    let info = rt.gpu().info().clone();
    steps.done(&format!(
        "{} ({:?}, {:?})",
        info.name, info.backend, info.device_type
    ));

    let (k, n, label) = match (args.k, args.n) {
        (Some(k), Some(n)) => (k, n, "custom shape"),
        _ => LLAMA_8B,
    };
    let spec = MlpShape {
        dtype: args.dtype,
        bits: 4,
        block_size: 32,
        skip: true,
        norm: true,
        residual: true,
        ..MlpShape::new(k, n, args.rows)
    };
    nbits_mlp_reference::gen::check(&spec).map_err(|e| anyhow!("K={k} N={n}: {e}"))?;

    steps.start("generate weights");
    let case = nbits_mlp_reference::generate(&spec, args.seed);
    let wbytes = spec.weight_bytes();
    steps.done(&format!(
        "{:.1} MB of 4-bit weights and scales",
        wbytes as f64 / 1e6
    ));

    steps.start("CPU reference (multi-threaded)");
    let expected = case
        .run_reference()
        .map_err(|e| anyhow!("reference: {e}"))?;
    steps.done(&format!("max|Y| = {:.4}", max_abs(&expected.y_f64)));

    steps.start("upload");
    let device_inputs: Vec<Option<GpuTensor>> = case
        .inputs
        .iter()
        .zip(INPUT_NAMES)
        .map(|(t, name)| t.as_ref().map(|t| rt.upload_labeled(t, name)).transpose())
        .collect::<Result<_, _>>()?;
    rt.wait_idle()?;
    steps.done(&format!(
        "{} tensors",
        device_inputs.iter().flatten().count()
    ));

    steps.start("plan + compile");
    let call = case.call();
    let plan = rt.plan(&call, &Tunables::new())?;
    let outputs = rt.alloc_outputs(&plan)?;
    let ins: Vec<Option<&GpuTensor>> = device_inputs.iter().map(Option::as_ref).collect();
    let outs: Vec<Option<&GpuTensor>> = outputs.iter().map(Option::as_ref).collect();
    // The first run compiles the pipelines.
    rt.run_on_device(&plan, &ins, &outs)?;
    rt.wait_idle()?;
    steps.done(&format!(
        "variant {}, {} pass{}",
        plan.variant,
        plan.active_passes().count(),
        if plan.active_passes().count() == 1 {
            ""
        } else {
            "es"
        }
    ));

    steps.start("GPU run");
    let t0 = Instant::now();
    rt.run_on_device(&plan, &ins, &outs)?;
    rt.wait_idle()?;
    let once = t0.elapsed().as_secs_f64();
    let reps = ((TIMING_BUDGET_S / once.max(1e-6)) as usize).clamp(3, 100);
    let timestamps = rt
        .gpu()
        .has_timestamps()
        .then(|| rt.time_plan(&plan, &ins, &outs, reps))
        .transpose()?;
    let (times, method) = if let Some(t) = timestamps {
        (t, "timestamp queries")
    } else {
        let mut v = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t = Instant::now();
            rt.run_on_device(&plan, &ins, &outs)?;
            rt.wait_idle()?;
            v.push(t.elapsed().as_secs_f64() * 1e6);
        }
        (v, "wall clock")
    };
    let gpu_us = median(&times);
    let y = rt.download(outs[0].context("the plan produces no Y")?)?;
    let residual = match outs.get(1).copied().flatten() {
        Some(t) => Some(rt.download(t)?),
        None => None,
    };
    steps.done(&format!(
        "{} median of {} ({method})",
        duration_us(gpu_us),
        times.len()
    ));

    steps.start("compare");
    let mut checks = vec![check(
        "Y",
        &expected.y_f64,
        &expected.y_err_scale,
        &y,
        plan.f16_accumulation(),
    )];
    if let (Some(exp), Some(got)) = (&expected.residual_f64, &residual) {
        checks.push(check("input_skip_bias_sum", exp, &[], got, false));
    } else if spec.residual {
        bail!("the GPU did not produce input_skip_bias_sum");
    }
    let ok = checks.iter().all(|c| c.err <= c.tol);
    steps.done(if ok {
        "within tolerance"
    } else {
        "OUTSIDE TOLERANCE"
    });
    steps.finish();

    println!(
        "adapter:   {} ({:?}, {:?})",
        info.name, info.backend, info.device_type
    );
    println!(
        "layer:     {label}: K={k} N={n} rows={} {}, 4-bit weights block 32, skip + norm_scale + residual",
        spec.rows(),
        spec.dtype
    );
    println!("variant:   {}", plan.variant);
    for c in &checks {
        println!(
            "check:     {} max_abs_err={:.3e} tol={:.3e} {}",
            c.name,
            c.err,
            c.tol,
            if c.err <= c.tol { "ok" } else { "FAIL" }
        );
    }
    println!(
        "GPU time:  {} (median of {} runs, {method})",
        duration_us(gpu_us),
        times.len()
    );
    let gbps = wbytes as f64 / (gpu_us * 1e-6) / 1e9;
    println!(
        "weights:   {:.1} MB, {} GB/s",
        wbytes as f64 / 1e6,
        if gbps < 10.0 {
            format!("{gbps:.3}")
        } else {
            format!("{gbps:.1}")
        }
    );
    println!("result:    {}", if ok { "PASS" } else { "FAIL" });
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FAILED)
    })
}
