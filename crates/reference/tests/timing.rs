//! How long the reference takes on a Llama-3.1-8B MLP layer. Run with
//! `cargo test -p nbits-mlp-reference --release --test timing -- --ignored --nocapture`.

use nbits_mlp_core::MlpShape;
use nbits_mlp_reference::gen::{self, generate};
use nbits_mlp_reference::mlp::{self, MlpAttrs};
use nbits_mlp_reference::pack;
use std::time::Instant;

#[test]
#[ignore = "slow in debug builds; run with --release"]
fn llama_8b_layer() {
    let spec = MlpShape {
        k: 4096,
        n: 14336,
        lead: vec![128],
        bits: 4,
        block_size: 32,
        skip: true,
        norm: true,
        residual: true,
        ..Default::default()
    };
    let t0 = Instant::now();
    let case = generate(&spec, 0);
    let t_gen = t0.elapsed();
    let attrs = MlpAttrs::from_attrs(&case.attrs).unwrap();
    let t1 = Instant::now();
    let out = mlp::run(&attrs, &case.input_refs(), true).unwrap();
    let t_run = t1.elapsed();
    let max_y = nbits_mlp_reference::compare::max_abs(&out.y_f64);
    println!(
        "K={} N={} rows={} bits={} block={}: generate {:.2?}, run {:.2?} on {} threads, max|Y| = {max_y:.3}",
        spec.k,
        spec.n,
        spec.rows(),
        spec.bits,
        spec.block_size,
        t_gen,
        t_run,
        rayon::current_num_threads()
    );
    assert!(out.y_f64.iter().all(|v| v.is_finite()));

    // Spot-check a few outputs against a direct computation of one row and column.
    let layout = gen::layout(&spec).unwrap();
    let (k, n) = (spec.k, spec.n);
    let input = |i: usize| case.inputs[i].as_ref().unwrap().to_f64();
    let (a, skip, gamma) = (input(mlp::A), input(mlp::SKIP), input(mlp::NORM_SCALE));
    for (r, c) in [(0, 0), (77, 14335), (127, 5000)] {
        let s: Vec<f64> = (0..k).map(|j| a[r * k + j] + skip[r * k + j]).collect();
        let rms = (s.iter().map(|v| v * v).sum::<f64>() / k as f64 + attrs.epsilon).sqrt();
        let dot = |b: usize, sc: usize| {
            let packed = &case.inputs[b].as_ref().unwrap().data;
            let scales = input(sc);
            let row = &packed[c * layout.row_bytes()..(c + 1) * layout.row_bytes()];
            let w = pack::dequantize(
                row,
                &scales[c * layout.k_blocks()..(c + 1) * layout.k_blocks()],
                1,
                k,
                4,
                32,
            )
            .unwrap();
            (0..k).map(|j| s[j] / rms * gamma[j] * w[j]).sum::<f64>()
        };
        let (g, u) = (
            dot(mlp::GATE_B, mlp::GATE_SCALES),
            dot(mlp::UP_B, mlp::UP_SCALES),
        );
        let want = g / (1.0 + (-g).exp()) * u;
        let got = out.y_f64[r * n + c];
        assert!(
            (got - want).abs() <= 1e-12 * (1.0 + max_y),
            "Y[{r}, {c}] = {got}, want {want}"
        );
    }
}
