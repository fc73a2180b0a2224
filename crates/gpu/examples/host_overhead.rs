//! Host overhead of `Runtime::run_on_device` on a cached plan, for three shapes: a small decode
//! shape (no norm), the same with skip + norm + residual, and Llama-3.1-8B's gate/up at one row
//! with skip + norm + residual (a real kernel: its WGSL is ~30 KB).
//!
//! ```text
//! cargo run --release -p nbits-mlp-gpu --example host_overhead [-- REPS]
//! ```

use nbits_mlp_core::{DType, MlpShape, Tunables};
use nbits_mlp_gpu::{GpuOptions, Runtime};
use nbits_mlp_reference::gen::generate;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let rt = Runtime::open(&GpuOptions::from_env()?)?;
    println!("adapter: {}", rt.gpu().info().name);
    for (name, norm, k, n) in [
        ("decode K=64 N=32 plain", false, 64, 32),
        ("decode K=64 N=32 skip+norm", true, 64, 32),
        ("Llama-3.1-8B K=4096 N=14336 skip+norm", true, 4096, 14336),
    ] {
        let shape = MlpShape {
            dtype: DType::F16,
            skip: norm,
            norm,
            residual: norm,
            ..MlpShape::new(k, n, 1)
        };
        let case = generate(&shape, 0);
        let refs = case.input_refs();
        let call = case.call();
        let plan = rt.plan(&call, &Tunables::new())?;
        let inputs = refs
            .iter()
            .map(|t| t.map(|t| rt.upload(t)).transpose())
            .collect::<Result<Vec<_>, _>>()?;
        let outputs = rt.alloc_outputs(&plan)?;
        let ins: Vec<_> = inputs.iter().map(Option::as_ref).collect();
        let outs: Vec<_> = outputs.iter().map(Option::as_ref).collect();
        let mut best = f64::MAX;
        let mut meds = Vec::new();
        for _ in 0..3 {
            let mut v = rt.host_overhead_us(&plan, &ins, &outs, reps)?;
            v.sort_by(f64::total_cmp);
            let med = v[v.len() / 2];
            meds.push(format!("{med:.1}"));
            best = best.min(med);
        }
        // The same with the device idle at every call (the wait is not timed).
        let mut idle = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t0 = std::time::Instant::now();
            rt.run_on_device(&plan, &ins, &outs)?;
            idle.push(t0.elapsed().as_secs_f64() * 1e6);
            rt.wait_idle()?;
        }
        idle.sort_by(f64::total_cmp);
        println!(
            "{name}: idle device: median {:.1} us, p10 {:.1}, p90 {:.1}",
            idle[reps / 2],
            idle[reps / 10],
            idle[reps * 9 / 10]
        );
        println!(
            "{name}: variant {} ({} passes): host us/call median of {reps}: {} (best {best:.1})",
            plan.variant,
            plan.active_passes().count(),
            meds.join(" / ")
        );
    }
    Ok(())
}
