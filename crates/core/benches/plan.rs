//! Planning cost: a cold plan (no cache) and a cached plan for the Llama-3.1-8B gate/up decode
//! call (f16, 4-bit block 32, skip + norm + residual) on the discrete-GPU profile.
//! `cargo bench -p nbits-mlp-core --bench plan`

use criterion::{criterion_group, criterion_main, Criterion};
use nbits_mlp_core::{DType, DeviceProfile, MlpShape, Planner, Tunables};
use std::hint::black_box;

fn shape(rows: usize) -> MlpShape {
    let mut s = MlpShape::new(4096, 14336, rows);
    s.dtype = DType::F16;
    s.skip = true;
    s.norm = true;
    s.residual = true;
    s
}

fn bench(c: &mut Criterion) {
    let planner = Planner::project(DeviceProfile::discrete_gpu());
    let t = Tunables::new();
    for rows in [1, 128] {
        let call = shape(rows).call();
        c.bench_function(&format!("cold plan, Llama-8B rows {rows}"), |b| {
            b.iter(|| planner.plan_uncached(black_box(&call), &t).unwrap())
        });
        planner.plan(&call, &t).unwrap();
        c.bench_function(&format!("cached plan, Llama-8B rows {rows}"), |b| {
            b.iter(|| planner.plan(black_box(&call), &t).unwrap())
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
