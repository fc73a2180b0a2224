//! Cold planning in a loop, for profilers: `cargo run --release -p nbits-mlp-core --example coldplan`.
use nbits_mlp_core::{DType, DeviceProfile, MlpShape, Planner, Tunables};
fn main() {
    let planner = Planner::project(DeviceProfile::discrete_gpu());
    let mut s = MlpShape::new(4096, 14336, 1);
    s.dtype = DType::F16;
    s.skip = true;
    s.norm = true;
    s.residual = true;
    let call = s.call();
    let t = Tunables::new();
    let n = 3000;
    let t0 = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(planner.plan_uncached(&call, &t).unwrap());
    }
    println!("cold plan: {:?}", t0.elapsed() / n);
}
