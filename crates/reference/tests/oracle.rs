//! `run` against an independent, deliberately naive formulation: the full weight matrices from
//! `pack::dequantize`, separate norm code, a plain triple-loop f64 matmul.

use nbits_mlp_core::{DType, MlpShape, Tensor};
use nbits_mlp_reference::gen::{self, generate, Case};
use nbits_mlp_reference::mlp::{self, MlpAttrs};
use nbits_mlp_reference::{compare, pack, round};
use rand::{Rng, SeedableRng};

/// Y (and A + skip when requested, and Y's error scale) computed the slow, obvious way.
fn independent(case: &Case) -> (Vec<f64>, Option<Vec<f64>>, Vec<f64>) {
    let attrs = MlpAttrs::from_attrs(&case.attrs).unwrap();
    let (k, n) = (attrs.k, attrs.n);
    let input = |i: usize| case.inputs[i].as_ref().map(Tensor::to_f64);
    let a = input(mlp::A).unwrap();
    let rows = a.len() / k;

    let s: Vec<f64> = match input(mlp::SKIP) {
        // The op adds in float32 (op-semantics: ONNX Runtime's order of operations).
        Some(skip) => a
            .iter()
            .zip(&skip)
            .map(|(x, y)| ((*x as f32) + (*y as f32)) as f64)
            .collect(),
        None => a.clone(),
    };
    let residual = case.want_residual.then(|| s.clone());

    let mut x = vec![0.0; rows * k];
    for r in 0..rows {
        let row = &s[r * k..(r + 1) * k];
        match input(mlp::NORM_SCALE) {
            Some(gamma) => {
                let mut sum_sq = 0.0;
                for v in row {
                    sum_sq += v * v;
                }
                let rms = (sum_sq / k as f64 + attrs.epsilon).sqrt();
                for j in 0..k {
                    x[r * k + j] = row[j] / rms * gamma[j];
                }
            }
            None => x[r * k..(r + 1) * k].copy_from_slice(row),
        }
    }

    let weights = |b: usize, s: usize| {
        let packed = &case.inputs[b].as_ref().unwrap().data;
        pack::dequantize(
            packed,
            &input(s).unwrap(),
            n,
            k,
            attrs.bits,
            attrs.block_size,
        )
        .unwrap()
    };
    let wg = weights(mlp::GATE_B, mlp::GATE_SCALES);
    let wu = weights(mlp::UP_B, mlp::UP_SCALES);
    let gate_bias = input(mlp::GATE_BIAS).unwrap_or(vec![0.0; n]);
    let up_bias = input(mlp::UP_BIAS).unwrap_or(vec![0.0; n]);

    let mut y = vec![0.0; rows * n];
    let mut scale = vec![0.0; rows * n];
    for r in 0..rows {
        for c in 0..n {
            let mut g = gate_bias[c];
            let mut u = up_bias[c];
            let (mut g_abs, mut u_abs) = (0.0f64, 0.0f64);
            for j in 0..k {
                g += x[r * k + j] * wg[c * k + j];
                u += x[r * k + j] * wu[c * k + j];
                g_abs += (x[r * k + j] * wg[c * k + j]).abs();
                u_abs += (x[r * k + j] * wu[c * k + j]).abs();
            }
            let sig = 1.0 / (1.0 + (-g).exp());
            y[r * n + c] = g * sig * u;
            // d(silu(g) u)/dg = (sig + g sig (1 - sig)) u; d/du = silu(g).
            let dy_dg = (sig + g * sig * (1.0 - sig)) * u;
            scale[r * n + c] = dy_dg.abs() * g_abs + (g * sig).abs() * u_abs;
        }
    }
    (y, residual, scale)
}

/// Runs a case of `shape` (values from `seed`) both ways and compares.
fn check(shape: &MlpShape, seed: u64) {
    let spec = (shape, seed);
    let case = generate(shape, seed);
    let out = case
        .run_reference()
        .unwrap_or_else(|e| panic!("{spec:?}: {e}"));
    let (want, want_residual, want_scale) = independent(&case);

    // Same values up to summation order.
    let max_y = compare::max_abs(&want);
    assert_eq!(out.y_f64.len(), want.len(), "{spec:?}");
    for (i, (g, w)) in out.y_f64.iter().zip(&want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-12 * (1.0 + max_y),
            "{spec:?}: Y[{i}] = {g}, independent {w}"
        );
    }
    assert_eq!(out.y_err_scale.len(), want_scale.len(), "{spec:?}");
    for (i, (g, w)) in out.y_err_scale.iter().zip(&want_scale).enumerate() {
        assert!(
            (g - w).abs() <= 1e-9 * w.abs() + 1e-300,
            "{spec:?}: error scale [{i}] = {g}, independent {w}"
        );
    }
    assert_eq!(out.y.shape, shape.y_shape(), "{spec:?}");
    assert_eq!(out.y.dtype, shape.dtype);
    // The rounded output is the correctly rounded f64 output and passes the tolerance.
    let rounded: Vec<f64> = out
        .y_f64
        .iter()
        .map(|&v| round::round_to(shape.dtype, v))
        .collect();
    assert_eq!(out.y.to_f64(), rounded, "{spec:?}");
    compare::check(&want, &out.y).unwrap_or_else(|e| panic!("{spec:?}: {e}"));

    match (want_residual, out.residual, out.residual_f64) {
        (None, None, None) => {}
        (Some(want), Some(got), Some(got_f64)) => {
            assert_eq!(got_f64, want, "{spec:?}");
            assert_eq!(got.shape, shape.a_shape());
            let rounded: Vec<f64> = want
                .iter()
                .map(|&v| round::round_to(shape.dtype, v))
                .collect();
            assert_eq!(got.to_f64(), rounded, "{spec:?}");
        }
        other => panic!(
            "{spec:?}: residual presence differs: {:?}",
            (other.0.is_some(), other.1.is_some())
        ),
    }
}

/// The valid combinations of optional inputs: (skip, norm, residual, gate_bias, up_bias).
fn combos() -> Vec<(bool, bool, bool, bool, bool)> {
    let mut v = Vec::new();
    for (skip, norm, residual) in [
        (false, false, false),
        (false, true, false),
        (true, true, false),
        (true, true, true),
    ] {
        for gate_bias in [false, true] {
            for up_bias in [false, true] {
                v.push((skip, norm, residual, gate_bias, up_bias));
            }
        }
    }
    v
}

fn with_combo(
    shape: MlpShape,
    (skip, norm, residual, gate_bias, up_bias): (bool, bool, bool, bool, bool),
) -> MlpShape {
    MlpShape {
        skip,
        norm,
        residual,
        gate_bias,
        up_bias,
        ..shape
    }
}

#[test]
fn every_dtype_bits_block_and_shape() {
    let combos = combos();
    let mut index = 0;
    for dtype in [DType::F32, DType::F16] {
        for bits in [2u32, 4, 8] {
            for block_size in [16usize, 32, 64, 128] {
                // (K, N, rows, rank3): K not a multiple of block_size, N not a multiple of the
                // tile, 0/1/7 rows, rank 3.
                for (k, n, rows, rank3) in [
                    (93, 5, 7, false),
                    (1234, 3, 1, true),
                    (2 * block_size, 9, 0, false),
                    (64, 17, 7, true),
                ] {
                    let shape = MlpShape {
                        k,
                        n,
                        lead: if rank3 { vec![1, rows] } else { vec![rows] },
                        dtype,
                        bits,
                        block_size,
                        ..Default::default()
                    };
                    check(
                        &with_combo(shape, combos[index % combos.len()]),
                        index as u64,
                    );
                    index += 1;
                }
            }
        }
    }
}

#[test]
fn every_optional_combination() {
    for dtype in [DType::F32, DType::F16] {
        for (i, combo) in combos().into_iter().enumerate() {
            let shape = MlpShape {
                k: 200,
                n: 12,
                lead: vec![3],
                dtype,
                block_size: 64,
                ..Default::default()
            };
            let seed = 100 + i as u64;
            check(&with_combo(shape.clone(), combo), seed);
            check(
                &with_combo(
                    MlpShape {
                        lead: vec![1, 1],
                        ..shape
                    },
                    combo,
                ),
                seed,
            );
        }
    }
}

#[test]
fn default_spec() {
    check(&MlpShape::default(), 0);
}

/// Random padding codes (past K) must not change Y at all.
#[test]
fn padding_is_ignored() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(99);
    for bits in [2u32, 4, 8] {
        for block_size in [16usize, 32, 64, 128] {
            let shape = MlpShape {
                k: 93,
                n: 6,
                lead: vec![2],
                bits,
                block_size,
                norm: true,
                ..Default::default()
            };
            let case = generate(&shape, 0);
            let before = case.run_reference().unwrap();
            let layout = gen::layout(&shape).unwrap();
            let mut changed = case.clone();
            for b in [mlp::GATE_B, mlp::UP_B] {
                let packed = &mut changed.inputs[b].as_mut().unwrap().data;
                for n in 0..shape.n {
                    for k in shape.k..layout.k_blocks() * block_size {
                        let old = layout.code_at(packed, n, k);
                        // A code that differs from the current one.
                        let new = old.wrapping_add(rng.gen_range(1..=layout.max_code()))
                            & layout.max_code();
                        layout.set_code(packed, n, k, new);
                    }
                }
                assert_ne!(changed.inputs[b], case.inputs[b]);
            }
            let after = changed.run_reference().unwrap();
            assert_eq!(after, before, "bits {bits} block {block_size}");
        }
    }
}

/// A shorter input list means trailing inputs omitted; results do not depend on threading.
#[test]
fn trailing_inputs_and_determinism() {
    let shape = MlpShape {
        k: 100,
        n: 40,
        lead: vec![5],
        gate_bias: true,
        block_size: 16,
        ..Default::default()
    };
    let case = generate(&shape, 0);
    let attrs = MlpAttrs::from_attrs(&case.attrs).unwrap();
    let refs = case.input_refs();
    let full = mlp::run(&attrs, &refs, false).unwrap();
    assert_eq!(mlp::run(&attrs, &refs[..8], false).unwrap(), full);
    assert_eq!(mlp::run(&attrs, &refs, false).unwrap(), full);
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    assert_eq!(
        one_thread
            .install(|| mlp::run(&attrs, &refs, false))
            .unwrap(),
        full
    );
}
