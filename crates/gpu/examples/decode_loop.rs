//! A decode loop through the library API, as an inference engine would drive the operator:
//! weights uploaded once, then per step the new activation row written into the same device
//! tensors, every layer recorded into one submission, and every layer's output read back into
//! host tensors that live across steps. The last step is checked against the float64 reference.
//!
//! ```sh
//! cargo run --release -p nbits-mlp-gpu --example decode_loop            # best adapter
//! NBITS_MLP_BACKENDS=vulkan cargo run --release -p nbits-mlp-gpu --example decode_loop -- 4096 14336
//! ```
//!
//! Arguments: `[K N [LAYERS [STEPS]]]` (default 1024 2816 4 8: small enough for a CPU driver).

use nbits_mlp_core::{DType, MlpShape, Tensor, Tunables};
use nbits_mlp_gpu::{GpuOptions, GpuTensor, PlanRun, Runtime};
use nbits_mlp_reference::compare;
use nbits_mlp_reference::gen::generate;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse::<usize>()
                .map_err(|e| format!("argument `{a}`: {e}"))
        })
        .collect::<Result<_, _>>()?;
    let arg = |i: usize, default: usize| args.get(i).copied().unwrap_or(default);
    let (k, n, layers, steps) = (
        arg(0, 1024),
        arg(1, 2816),
        arg(2, 4).max(1),
        arg(3, 8).max(1),
    );

    let rt = Runtime::open(&GpuOptions::from_env()?)?;
    println!("adapter: {}", rt.gpu().info().name);

    // One case per layer: its own weights (different seeds); every layer reads the same A and skip.
    let shape = MlpShape {
        dtype: DType::F16,
        skip: true,
        norm: true,
        residual: true,
        ..MlpShape::new(k, n, 1)
    };
    let cases: Vec<_> = (0..layers as u64)
        .map(|l| generate(&shape, l + 1))
        .collect();
    let call = cases[0].call();
    let plan = rt.plan(&call, &Tunables::new())?;
    println!(
        "plan: {} ({} passes), K={k} N={n}, {layers} layers, {steps} steps",
        plan.variant,
        plan.passes.len()
    );

    // Upload once: A and skip shared (inputs 0 and 1), each layer's weights and norm_scale.
    let upload = |t: &Option<Tensor>| -> Result<Option<GpuTensor>, Box<dyn std::error::Error>> {
        Ok(match t {
            Some(t) => Some(rt.upload(t)?),
            None => None,
        })
    };
    let a = upload(&cases[0].inputs[0])?.ok_or("the case has no A")?;
    let skip = upload(&cases[0].inputs[1])?.ok_or("the case has no skip")?;
    let mut weights = Vec::with_capacity(layers);
    let mut outputs = Vec::with_capacity(layers);
    for c in &cases {
        let mut w = Vec::with_capacity(c.inputs.len());
        for (i, t) in c.inputs.iter().enumerate() {
            w.push(if i < 2 { None } else { upload(t)? });
        }
        weights.push(w);
        outputs.push(rt.alloc_outputs(&plan)?);
    }
    let ins: Vec<Vec<Option<&GpuTensor>>> = weights
        .iter()
        .map(|w| {
            w.iter()
                .enumerate()
                .map(|(i, t)| match i {
                    0 => Some(&a),
                    1 => Some(&skip),
                    _ => t.as_ref(),
                })
                .collect()
        })
        .collect();
    let outs: Vec<Vec<Option<&GpuTensor>>> = outputs
        .iter()
        .map(|o| o.iter().map(Option::as_ref).collect())
        .collect();
    let runs: Vec<PlanRun<'_>> = ins
        .iter()
        .zip(&outs)
        .map(|(i, o)| (&*plan, i.as_slice(), o.as_slice()))
        .collect();
    let ys: Vec<&GpuTensor> = outputs
        .iter()
        .map(|o| o[0].as_ref().ok_or("the plan has no Y"))
        .collect::<Result<_, _>>()?;
    // Host outputs, allocated once and reused every step.
    let mut host_ys = rt.download_many(&ys)?;

    // The loop: a new row each step (here the same one, so the last step can be checked).
    let a_host = cases[0].inputs[0].as_ref().ok_or("the case has no A")?;
    let skip_host = cases[0].inputs[1].as_ref().ok_or("the case has no skip")?;
    let mut step_ms = Vec::with_capacity(steps);
    for _ in 0..steps {
        let t0 = Instant::now();
        rt.write_tensor(&a, a_host)?;
        rt.write_tensor(&skip, skip_host)?;
        rt.run_many(&runs)?;
        rt.download_into(&ys, &mut host_ys)?;
        step_ms.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    step_ms.sort_by(f64::total_cmp);
    println!(
        "step (write A + skip, {layers} layers in one submission, read {layers} outputs): median {:.2} ms, {:.1} us per layer",
        step_ms[step_ms.len() / 2],
        step_ms[step_ms.len() / 2] * 1e3 / layers as f64
    );

    // Every layer's output of the last step against the float64 reference.
    for (l, (c, y)) in cases.iter().zip(&host_ys).enumerate() {
        // This layer's weights with the shared A and skip (layer 0's) that every layer ran on.
        let mut c = c.clone();
        c.inputs[0] = cases[0].inputs[0].clone();
        c.inputs[1] = cases[0].inputs[1].clone();
        let want = c.run_reference()?;
        compare::check_scaled(&want.y_f64, &want.y_err_scale, y, plan.f16_accumulation())
            .map_err(|e| format!("layer {l}: {e}"))?;
    }
    println!("check: every layer's Y within tolerance of the float64 reference");
    Ok(())
}
