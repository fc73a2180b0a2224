//! Running a suite: each shape planned, uploaded, timed, cross-checked and checked against the
//! reference, into a [`Report`].

use crate::bandwidth::copy_bandwidth;
use crate::inputs::{DeviceInputs, ShapeInputs};
use crate::measure::{
    check_reference, median, percentile, sustained_gpu_us, time_checked, time_plan, time_sets,
    wall_per_node, Checked,
};
use crate::report::{BenchConfig, Measurement, Report};
use crate::suites::BenchShape;
use crate::COMMIT;
use anyhow::{Context, Result};
use nbits_mlp_gpu::Runtime;

/// Benchmarks one shape. With no tunable overrides in `cfg`, a tuning cache attached to the
/// runtime applies ([`Measurement::tuned`] lists what it changed).
pub fn bench_shape(
    rt: &Runtime,
    s: &BenchShape,
    cfg: &BenchConfig,
    copy_gbps: f64,
    log: &mut dyn FnMut(&str),
) -> Result<Measurement> {
    let sets = cfg.weight_sets.max(cfg.layers).max(1);
    log(&format!(
        "{}: generating {} weight sets ({:.0} MB each)",
        s.label(),
        sets,
        s.mlp.weight_bytes() as f64 / 1e6
    ));
    let inputs = ShapeInputs::new(&s.mlp, sets);
    let call = inputs.call();
    let planned = rt
        .plan_tuned(&call, &cfg.tunables)
        .with_context(|| format!("planning {}", s.label()))?;
    if let Some(w) = planned.warning() {
        log(&format!("{}: warning: {w}", s.label()));
    }
    let (plan, tuned) = (planned.plan, planned.tuned);
    log(&format!(
        "{}: variant {}{}, uploading",
        s.label(),
        plan.variant,
        if tuned.is_empty() {
            String::new()
        } else {
            format!(
                " (tuned: {})",
                nbits_mlp_core::tuning::tunables_text(&tuned)
            )
        }
    ));
    let dev = DeviceInputs::upload(rt, &inputs, &plan)?;
    // Prepared weights (variants reading a prepared layout): built once per weight set, as a
    // model's initializers would be, and reported apart from the GPU time. The runtime builds
    // them on the GPU without waiting, so the clock starts once the uploads are done (an empty
    // submission flushes the queued writes) and stops once the device is idle.
    rt.gpu().queue().submit([]);
    rt.wait_idle()?;
    let started = std::time::Instant::now();
    let mut built = 0;
    for set in 0..dev.sets() {
        built += rt.prepare_inputs(&plan, &dev.inputs(set))?;
    }
    if built > 0 {
        rt.wait_idle()?;
    }
    let prepare_ms = (built > 0).then(|| started.elapsed().as_secs_f64() * 1e3);
    if let Some(ms) = prepare_ms {
        log(&format!(
            "{}: {built} prepared weight copies built in {ms:.1} ms",
            s.label()
        ));
    }
    log(&format!("{}: timing", s.label()));
    let Checked {
        mut times,
        gpu_us,
        sustained,
        discarded_gpu_us,
    } = time_checked(
        || {
            let mut times = time_plan(rt, &plan, &dev, cfg.weight_sets.max(1), cfg.rounds)?;
            let gpu_us = median(&mut times);
            let sustained = sustained_gpu_us(rt, &plan, &dev, cfg.weight_sets.max(1), gpu_us)?;
            Ok((times, sustained))
        },
        |gpu_us, sustained| {
            log(&format!(
                "{}: timestamps {gpu_us:.1} us against {sustained:.1} us by the host clock: timing again",
                s.label()
            ))
        },
    )?;
    let gpu_us_sustained = Some(sustained);
    let p10 = percentile(&mut times, 0.1);
    let p90 = percentile(&mut times, 0.9);
    let mut per_set_gpu_us = Vec::new();
    if std::env::var_os("NBITS_MLP_BENCH_PER_SET").is_some() {
        // Diagnostic for the long spans: each allocated weight set timed alone.
        for i in 0..dev.sets() {
            let mut t = time_sets(rt, &plan, &dev, i..i + 1, cfg.rounds)?;
            per_set_gpu_us.push(median(&mut t));
        }
        let text: Vec<String> = per_set_gpu_us.iter().map(|v| format!("{v:.1}")).collect();
        log(&format!("{}: per set us: {}", s.label(), text.join(" ")));
    }
    let mut host = rt.host_overhead_us(&plan, &dev.inputs(0), &dev.outputs(0), cfg.host_reps)?;
    let host_us = median(&mut host);
    let host_us_p10 = Some(percentile(&mut host, 0.1));
    let wall_per_node_us = if cfg.layers > 0 {
        Some(wall_per_node(rt, &plan, &inputs, &dev, cfg.layers)?)
    } else {
        None
    };
    // Check a few rows of set 0 against the float64 reference.
    log(&format!("{}: checking against the reference", s.label()));
    let check = check_reference(rt, &plan, &inputs, &dev)?;
    let weight_gbps = s.mlp.weight_bytes() as f64 / (gpu_us * 1e3);
    let mut m = Measurement {
        shape: s.clone(),
        variant: plan.variant.clone(),
        gpu_us,
        gpu_us_p10: p10,
        gpu_us_p90: p90,
        gpu_us_sustained,
        samples: times.len(),
        weight_bytes: s.mlp.weight_bytes(),
        weight_gbps,
        copy_fraction: weight_gbps / copy_gbps,
        host_us,
        host_us_p10,
        wall_per_node_us,
        max_abs_err: check.max_abs_err,
        tolerance: check.tolerance,
        checked_rows: check.checked_rows,
        tuned,
        discarded_gpu_us,
        per_set_gpu_us,
        gpu_tflops: None,
        prepare_ms,
    };
    m.gpu_tflops = Some(m.tflops());
    Ok(m)
}

/// Runs a suite.
pub fn run(
    rt: &Runtime,
    shapes: &[BenchShape],
    cfg: &BenchConfig,
    date: &str,
    log: &mut dyn FnMut(&str),
) -> Result<Report> {
    let info = rt.gpu().info().clone();
    log("measuring the copy bandwidth");
    let (copy_gbps, copy_method) = copy_bandwidth(rt)?;
    log(&format!(
        "copy bandwidth {copy_gbps:.0} GB/s (read + write); {copy_method}"
    ));
    let mut measurements = Vec::new();
    for s in shapes {
        // Each shape starts from released buffers: pooled buffers of earlier shapes otherwise
        // stay allocated, and on the H200 later shapes of a long suite ran up to 3x slower.
        rt.clear_caches();
        rt.wait_idle()?;
        let m = bench_shape(rt, s, cfg, copy_gbps, log)?;
        log(&format!(
            "{}: {} {:.1} us  {:.0} GB/s ({:.0}% of copy)  host {:.1} us (p10 {:.1})  wall/node {}  err {:.2e} (tol {:.2e})",
            s.label(),
            m.variant,
            m.gpu_us,
            m.weight_gbps,
            100.0 * m.copy_fraction,
            m.host_us,
            m.host_us_p10.unwrap_or(f64::NAN),
            m.wall_per_node_us.map(|w| format!("{w:.1} us")).unwrap_or_else(|| "-".into()),
            m.max_abs_err,
            m.tolerance
        ));
        measurements.push(m);
        rt.clear_caches();
    }
    Ok(Report {
        gpu: info.name.clone(),
        backend: format!("{:?}", info.backend),
        driver: format!("{} {}", info.driver, info.driver_info),
        commit: COMMIT.into(),
        date: date.into(),
        config: cfg.clone(),
        copy_gbps,
        copy_method,
        measurements,
        tuning_cache: rt
            .tuning()
            .and_then(|t| t.source.as_ref())
            .map(|p| p.display().to_string()),
    })
}
