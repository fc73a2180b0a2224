//! Differential test over the op's whole accepted space: random legal calls (every bits, block
//! sizes 16-1024, awkward K and N, rows around every boundary the planner uses, every optional
//! input and output, float16 and float32, rank 2 and 3, three device profiles, with and without a
//! reported count of shader cores) run on the GPU
//! with poisoned outputs and compared with the float64 reference (a quarter of the calls with
//! activations past what the kernels' float16 staging holds); random illegal calls are
//! refused with a planning error, never computed. Also the op's chosen semantics for edge
//! values: a row whose sum of squares overflows float32 normalises to zeros on every variant and
//! in the reference (ONNX Runtime's float32 accumulation), and non-finite scales are refused.
//!
//! A fixed seed runs in CI; `NBITS_MLP_FUZZ_SEED=<n>` explores other calls and
//! `NBITS_MLP_FUZZ_CASES=<n>` runs more (default 40). A failure prints the call and its seed.

mod common;

use common::check::run_checked;
use common::env_u64;
use nbits_mlp_core::{DType, MlpShape, Tensor, Tunables};
use nbits_mlp_gpu::{testing, GpuError, RunOptions, Runtime};
use nbits_mlp_reference::gen::{generate, Case};
use nbits_mlp_reference::MlpAttrs;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The CI seed.
const DEFAULT_SEED: u64 = 13;

/// Row counts at and around every boundary the planner uses (the few-rows kernel's 2-6 and 2-8,
/// its one-wave tiles' groups of 3 and 6, multi-row gemv 2-16 / 2-20, split kernels up to 32,
/// tiles of 16 / 32 / 64 rows, the many-rows boundary of the tensor-core kernels at 128 rows,
/// which the device profiles with cooperative matrices use, and 385 rows, one past the float32
/// form's cap of sessions 21-50).
const ROWS: &[usize] = &[
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 19, 20, 21, 31, 32, 33, 40, 63, 64, 65, 128, 129, 385,
];

/// A random legal call (A of rank 2 or 3).
fn legal_call(rng: &mut ChaCha8Rng) -> MlpShape {
    let bits = [2u32, 4, 8][rng.gen_range(0..3)];
    let block_size = [16usize, 32, 32, 64, 128, 256, 512, 1024][rng.gen_range(0..8)];
    // K: small and awkward, a multiple of the block (or 32) give or take a few, or larger.
    let k = match rng.gen_range(0..4) {
        0 => rng.gen_range(1..=96),
        1 => (block_size * rng.gen_range(1..=6)).saturating_add_signed(rng.gen_range(-3..=3)),
        2 => 32 * rng.gen_range(1..=24),
        _ => rng.gen_range(97..=1100),
    }
    .max(1);
    // N: tiny, awkward, whole tiles, or wide enough for the few-rows kernel's staged one-wave
    // tile (at least GEMVP_STAGE_MIN_COLS columns a workgroup with few cores).
    let n = match rng.gen_range(0..4) {
        0 => rng.gen_range(1..=9),
        1 => rng.gen_range(10..=70),
        2 => 16 * rng.gen_range(1..=5),
        _ => rng.gen_range(96..=300),
    };
    let rows = ROWS[rng.gen_range(0..ROWS.len())];
    let norm = rng.gen_bool(0.6);
    let skip = norm && rng.gen_bool(0.6);
    let residual = skip && rng.gen_bool(0.5);
    let mut shape = MlpShape {
        k,
        n,
        lead: vec![rows],
        dtype: if rng.gen_bool(0.5) {
            DType::F16
        } else {
            DType::F32
        },
        bits,
        block_size,
        skip,
        norm,
        residual,
        gate_bias: rng.gen_bool(0.3),
        up_bias: rng.gen_bool(0.3),
    };
    if rng.gen_bool(0.3) && rows > 0 {
        let b = (2..=rows).find(|d| rows.is_multiple_of(*d)).unwrap_or(1);
        shape.lead = vec![b, rows / b];
    }
    shape
}

/// The shader cores a case's device reports, drawn from the case's own seed (so the calls
/// `legal_call` draws do not depend on it): none for half the cases (lavapipe reports none), 1 to
/// 16 or the H200's 132 for the other half, so that the kernels sized by the core count (the
/// few-rows kernel's one-wave tiles, stream-K grids) run at random shapes too, with the odd
/// column and slice counts few cores give small calls and the narrow tiles many cores give them.
fn shader_cores(case_seed: u64) -> Option<i64> {
    let mut rng = ChaCha8Rng::seed_from_u64(case_seed ^ 0x5eed_c0de);
    rng.gen_bool(0.5).then(|| {
        // Few cores more often: the staged one-wave tile needs 96+ columns a workgroup.
        [1, 1, 2, 3, 4, 6, 7, 9, 12, 16, 132, 132][rng.gen_range(0..12)]
    })
}

/// Sometimes (a quarter of the cases, drawn from `case_seed` alone, so the other calls stay as
/// they were) activations past what the kernels' float16 staging holds (`op::values_overflow`),
/// as `(activations' factor, scales' factor)`: float32 calls A times 2^17 (plain) or
/// norm_scale times 2^13 (with the norm, whose rows are then bounded by sqrt(K) times it), past
/// the tensor-core kernels' float16 hi / lo pairs; float16 calls, half of them activations
/// times 2^-14 and scales times 2^14 (rows whose mean magnitude lies below the float16 sums'
/// floor: subnormal float16 products), half activations times 2^9 and scales times 2^-9 (wide
/// float16 sums). Such calls are planned again without the kernels at fault.
fn wide(shape: &MlpShape, case_seed: u64) -> Option<(f64, f64)> {
    let mut rng = ChaCha8Rng::seed_from_u64(case_seed ^ 0x00f3_2b16);
    if !rng.gen_bool(0.25) {
        return None;
    }
    match shape.dtype {
        DType::F32 => Some((if shape.norm { 8192.0 } else { 131072.0 }, 1.0)),
        _ if rng.gen_bool(0.5) => Some((1.0 / 16384.0, 16384.0)),
        _ => Some((512.0, 1.0 / 512.0)),
    }
}

/// Generates the case (its activations widened by [`wide`]), runs it poisoned with
/// `tunables`, checks Y and the residual against the reference ([`run_checked`]). Returns the
/// variant.
fn run_and_check(
    rt: &Runtime,
    shape: &MlpShape,
    seed: u64,
    tunables: &Tunables,
    what: &str,
) -> String {
    let mut case = generate(shape, seed);
    if let Some((by, scales_by)) = wide(shape, seed) {
        for (index, by) in [
            (if shape.norm { 2 } else { 0 }, by),
            (4, scales_by),
            (7, scales_by),
        ] {
            let t = case.inputs[index].as_mut().unwrap();
            let v: Vec<f32> = t.to_f64().iter().map(|x| (*x * by) as f32).collect();
            *t = match t.dtype {
                DType::F16 => Tensor::from_f32_as_f16(t.shape.clone(), &v),
                _ => Tensor::from_f32(t.shape.clone(), &v),
            };
        }
    }
    run_checked(
        rt,
        &case.attrs,
        &case.input_refs(),
        shape.residual,
        tunables,
        what,
    )
    .plan
    .variant
    .clone()
}

#[test]
fn random_legal_calls_match_the_reference() {
    let seed = env_u64("NBITS_MLP_FUZZ_SEED", DEFAULT_SEED);
    let cases = env_u64("NBITS_MLP_FUZZ_CASES", 40) as usize;
    let Some(granted) = testing::runtime() else {
        return;
    };
    let profiles: Vec<(&str, Runtime)> = vec![
        ("granted", granted),
        (
            "8 storage buffers",
            testing::runtime_with(|p| {
                let mut p = p;
                p.limits.insert("maxStorageBuffersPerShaderStage".into(), 8);
                p
            })
            .unwrap()
            .unwrap(),
        ),
        (
            "no subgroups",
            testing::runtime_with(|p| p.without_feature("subgroups"))
                .unwrap()
                .unwrap(),
        ),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut variants = std::collections::BTreeMap::<String, usize>::new();
    let mut widened = 0;
    for i in 0..cases {
        let spec = legal_call(&mut rng);
        let case_seed = seed.wrapping_mul(1000).wrapping_add(i as u64);
        let (pname, rt) = &profiles[i % profiles.len()];
        let cores = shader_cores(case_seed);
        let tunables: Tunables = cores
            .map(|c| ("SHADER_CORES".to_string(), c))
            .into_iter()
            .collect();
        let what = format!(
            "NBITS_MLP_FUZZ_SEED={seed} case {i} [{pname}{}{}] {} A{:?}x{} N={} bits={} block={}{}{}{}{}{}",
            cores.map(|c| format!(", {c} cores")).unwrap_or_default(),
            wide(&spec, case_seed)
                .map(|(by, s)| format!(", activations x{by}, scales x{s}"))
                .unwrap_or_default(),
            spec.dtype,
            spec.lead,
            spec.k,
            spec.n,
            spec.bits,
            spec.block_size,
            if spec.norm { " +norm" } else { "" },
            if spec.skip { " +skip" } else { "" },
            if spec.residual { " +residual" } else { "" },
            if spec.gate_bias { " +gate_bias" } else { "" },
            if spec.up_bias { " +up_bias" } else { "" },
        );
        let v = run_and_check(rt, &spec, case_seed, &tunables, &what);
        *variants.entry(v).or_default() += 1;
        widened += usize::from(wide(&spec, case_seed).is_some());
    }
    println!(
        "seed {seed}: {cases} calls ({widened} with wide activations), variants reached: \
         {variants:?}"
    );
}

#[test]
fn random_illegal_block_sizes_are_refused() {
    let Some(rt) = testing::runtime() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(env_u64("NBITS_MLP_FUZZ_SEED", DEFAULT_SEED));
    for _ in 0..12 {
        let block_size = loop {
            let b: usize = rng.gen_range(1..=300);
            if b < 16 || !b.is_power_of_two() {
                break b;
            }
        };
        let bits = [2u32, 4, 8][rng.gen_range(0..3)];
        if !(block_size * bits as usize).is_multiple_of(8) {
            continue; // no whole-byte blob: such weights cannot even be built
        }
        let shape = MlpShape {
            k: rng.gen_range(1..=200),
            n: rng.gen_range(1..=20),
            lead: vec![ROWS[rng.gen_range(0..ROWS.len())]],
            bits,
            block_size,
            ..MlpShape::default()
        };
        let case = generate(&shape, 0);
        let e = rt
            .run(
                &case.attrs,
                &case.input_refs(),
                &[true],
                &Tunables::new(),
                &RunOptions { poison: true },
            )
            .err()
            .unwrap_or_else(|| panic!("block_size {block_size} bits {bits} was computed"));
        assert!(
            matches!(&e, GpuError::Plan(p) if p.to_string().contains("block_size")),
            "block_size {block_size}: {e}"
        );
    }
}

/// Rows whose sum of squares overflows float32 normalise to zeros (ONNX Runtime's semantics),
/// on every kernel family that takes a float32 norm call, and the reference agrees; the other
/// rows are unaffected.
#[test]
fn norm_overflow_gives_zero_rows_everywhere() {
    let Some(rt) = testing::runtime() else { return };
    for rows in [1usize, 3, 17, 40] {
        for skip in [false, true] {
            let shape = MlpShape {
                k: 256,
                n: 24,
                lead: vec![rows],
                norm: true,
                skip,
                residual: skip,
                gate_bias: true,
                up_bias: true,
                ..MlpShape::default()
            };
            let mut case = generate(&shape, 77 + rows as u64);
            // Row 0 (and every third row) at |x| ~ 2e18: x^2 ~ 4e36, the sum of 256 overflows.
            let a = case.inputs[0].as_mut().unwrap();
            let mut v: Vec<f32> = a.to_f64().iter().map(|x| *x as f32).collect();
            for r in (0..rows).step_by(3) {
                for x in &mut v[r * 256..(r + 1) * 256] {
                    *x *= 2e18;
                }
            }
            *a = Tensor::from_f32(a.shape.clone(), &v);
            let refs = case.input_refs();
            let want = nbits_mlp_reference::mlp::run(
                &MlpAttrs::from_attrs(&case.attrs).unwrap(),
                &refs,
                skip,
            )
            .unwrap();
            // The overflowing row's Y is silu(gate_bias) * up_bias, finite.
            assert!(want.y_f64[..24].iter().all(|y| y.is_finite()));
            let what = format!("norm overflow rows {rows} skip {skip}");
            let c = run_checked(&rt, &case.attrs, &refs, skip, &Tunables::new(), &what);
            println!("{what}: {}", c.plan.variant);
        }
    }
}

/// `t` times `by`, rounded to float16.
fn scale_f16(t: &mut Tensor, by: f64) {
    let v: Vec<f32> = t.to_f64().iter().map(|x| (*x * by) as f32).collect();
    *t = Tensor::from_f32_as_f16(t.shape.clone(), &v);
}

/// A float16 call of K x N at `rows` rows, plain or with the norm, generated with `seed`, its
/// activations `by` times larger: A, or with the norm (which undoes A's size) norm_scale.
fn f16_case_scaled(k: usize, n: usize, rows: usize, norm: bool, seed: u64, by: f64) -> Case {
    let shape = MlpShape {
        k,
        n,
        lead: vec![rows],
        dtype: DType::F16,
        norm,
        ..MlpShape::default()
    };
    let mut case = generate(&shape, seed);
    scale_f16(case.inputs[if norm { 2 } else { 0 }].as_mut().unwrap(), by);
    case
}

/// Float16 models whose scales (and so Y) lie in float16's subnormal range (scales ~3e-6,
/// below float16's smallest normal 6.1e-5): every kernel family that takes such calls keeps the
/// subnormals (a kernel flushing them to zero returns zeros, an error of max|Y| against a
/// tolerance of about a third of it), plain and with the norm, at 1 / 4 / 40 rows.
#[test]
fn float16_subnormal_scales_and_outputs() {
    let Some(rt) = testing::runtime() else { return };
    for rows in [1usize, 4, 40] {
        for norm in [false, true] {
            // Scales 1e-4 of the generated ones (subnormal in float16); A 50 times larger (or
            // norm_scale 25 times), so that g and u are ~1e-3 and Y ~1e-5, subnormal too but
            // many float16 steps above zero.
            let by = if norm { 25.0 } else { 50.0 };
            let mut case = f16_case_scaled(512, 256, rows, norm, 91 + rows as u64, by);
            for index in [4usize, 7] {
                let t = case.inputs[index].as_mut().unwrap();
                scale_f16(t, 1e-4);
                assert!(
                    t.to_f64().iter().all(|x| x.abs() < 6.1e-5),
                    "subnormal in float16"
                );
            }
            let what = format!("float16 subnormal scales rows {rows} norm {norm}");
            let c = run_checked(
                &rt,
                &case.attrs,
                &case.input_refs(),
                false,
                &Tunables::new(),
                &what,
            );
            let max_y = c.y.to_f64().iter().fold(0f64, |m, y| m.max(y.abs()));
            println!(
                "{what}: {} max|Y| {max_y:.2e} err {:.2e}",
                c.plan.variant, c.y_err
            );
            assert!(max_y > 1e-6 && max_y < 6.1e-5, "{what}: max|Y| {max_y:e}");
        }
    }
}

/// Float16 models whose exact Y passes float16's largest finite value (65504) in some elements:
/// every kernel family that takes such calls returns the infinity of the element's sign there
/// (the exact value rounded to float16) and the right values elsewhere, plain and with the norm,
/// at 1 / 4 / 40 rows.
#[test]
fn float16_outputs_past_the_range_are_infinities() {
    let Some(rt) = testing::runtime() else { return };
    for rows in [1usize, 4, 40] {
        for norm in [false, true] {
            // A (or norm_scale) 300 times larger: g and u in the hundreds, Y past 65504 in a
            // fraction of the elements.
            let case = f16_case_scaled(256, 64, rows, norm, 57 + rows as u64, 300.0);
            let what = format!("float16 outputs past 65504 rows {rows} norm {norm}");
            let c = run_checked(
                &rt,
                &case.attrs,
                &case.input_refs(),
                false,
                &Tunables::new(),
                &what,
            );
            let y = c.y.to_f64();
            let inf = y.iter().filter(|v| v.is_infinite()).count();
            println!("{what}: {} {inf} of {} infinite", c.plan.variant, y.len());
            assert!(
                inf > 0 && inf < y.len() / 2,
                "{what}: {inf} of {} infinite",
                y.len()
            );
        }
    }
}

#[test]
fn non_finite_scales_are_refused_on_every_backend() {
    let Some(rt) = testing::runtime() else { return };
    for (index, bad) in [
        (4usize, f32::INFINITY),
        (7, f32::NAN),
        (2, f32::NEG_INFINITY),
    ] {
        let shape = MlpShape {
            norm: true,
            ..MlpShape::default()
        };
        let mut case = generate(&shape, 0);
        let t = case.inputs[index].as_mut().unwrap();
        let mut v: Vec<f32> = t.to_f64().iter().map(|x| *x as f32).collect();
        v[1] = bad;
        *t = Tensor::from_f32(t.shape.clone(), &v);
        let refs = case.input_refs();
        let Err(gpu) = rt.run(
            &case.attrs,
            &refs,
            &[true],
            &Tunables::new(),
            &RunOptions::default(),
        ) else {
            panic!("non-finite input {index} was computed on the GPU");
        };
        let gpu = gpu.to_string();
        let attrs = MlpAttrs::from_attrs(&case.attrs).unwrap();
        let Err(cpu) = nbits_mlp_reference::mlp::run(&attrs, &refs, false) else {
            panic!("non-finite input {index} was computed by the reference");
        };
        let cpu = cpu.to_string();
        let name = ["", "", "norm_scale", "", "gate_scales", "", "", "up_scales"][index];
        assert!(
            gpu.contains(name) && gpu.contains("must be finite"),
            "{gpu}"
        );
        assert!(gpu.ends_with(&cpu), "GPU `{gpu}` vs reference `{cpu}`");
    }
}
