//! Runs repeated, empty and at a real size.

use crate::calls::{seed, Call};
use crate::check::run_checked;
use crate::common::check::check_tensor;
use nbits_mlp_core::op::without_f16_pairs;
use nbits_mlp_core::MlpShape;
use nbits_mlp_core::{DType, Tensor, Tunables};
use nbits_mlp_gpu::{testing, RunOptions, RuntimeStats};
use nbits_mlp_reference::compare;

// ---- 6. repeatability -----------------------------------------------------------------------

/// One plan run 1000 times on device tensors gives the same bits every time and grows nothing
/// in the runtime after the first run; 20 host runs of it give the same bits too.
#[test]
fn repeatable_and_no_growth() {
    let Some(rt) = testing::runtime() else { return };
    // Staged: two passes, an intermediate and a uniform buffer; both outputs.
    let call = Call::rank3(
        MlpShape {
            k: 200,
            n: 37,
            lead: vec![9],
            norm: true,
            skip: true,
            residual: true,
            gate_bias: true,
            up_bias: true,
            ..Default::default()
        },
        seed(6, 0),
    );
    let case = call.case();
    let want = case.run_reference().unwrap();
    // Without the float32 tensor-core forms, which take these 9 rows in one pass on a GPU with
    // cooperative matrices (the H100's plan is `mmap_*`), so the plan is the same everywhere.
    let plan = rt
        .plan(&case.call(), &without_f16_pairs(&Tunables::new()))
        .unwrap();
    // A two-pass plan with an intermediate and a uniform: with the project overlay the few-rows
    // kernel's float32 form `gemvp_f32_*` (on prepared weights, built on the first run), or
    // `gemvr_*` / `tiled_*` where it is off; `staged_*` on the seed manifest alone.
    assert!(
        (plan.variant.starts_with("staged_")
            || plan.variant.starts_with("tiled_")
            || plan.variant.starts_with("gemvr_")
            || plan.variant.starts_with("gemvp_f32_"))
            && !plan.intermediates.is_empty(),
        "{}",
        plan.variant
    );
    let inputs: Vec<_> = case
        .inputs
        .iter()
        .map(|t| t.as_ref().map(|t| rt.upload(t).unwrap()))
        .collect();
    let outputs = rt.alloc_outputs(&plan).unwrap();
    let ins: Vec<_> = inputs.iter().map(Option::as_ref).collect();
    let outs: Vec<_> = outputs.iter().map(Option::as_ref).collect();
    for o in outs.iter().flatten() {
        rt.fill(o, 0xFF).unwrap();
    }
    let download = || -> Vec<Tensor> {
        outs.iter()
            .flatten()
            .map(|o| rt.download(o).unwrap())
            .collect()
    };
    rt.run_on_device(&plan, &ins, &outs).unwrap();
    let first = download();
    compare::check(&want.y_f64, &first[0]).unwrap_or_else(|e| panic!("{call}: Y {e}"));
    compare::check(want.residual_f64.as_ref().unwrap(), &first[1])
        .unwrap_or_else(|e| panic!("{call}: residual {e}"));
    let after_first: RuntimeStats = rt.stats();
    assert!(
        after_first.pipelines >= 2 && after_first.prepared_plans == 1,
        "{after_first:?}"
    );
    for i in 1..1000 {
        rt.run_on_device(&plan, &ins, &outs).unwrap();
        if i == 500 {
            assert_eq!(download(), first, "after {} runs", i + 1);
        }
    }
    assert_eq!(download(), first, "after 1000 runs");
    assert_eq!(download(), first, "downloaded again");
    assert_eq!(rt.stats(), after_first, "the runtime grew");

    // Host runs of the same plan: the same bits as on device tensors, no growth after the first.
    let run = || {
        rt.run_plan(&plan, &case.input_refs(), &RunOptions { poison: true })
            .unwrap()
            .into_iter()
            .map(|t| t.unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(run(), first, "host run vs device run");
    let after_host = rt.stats();
    assert_eq!(
        (after_host.pipelines, after_host.prepared_plans),
        (after_first.pipelines, after_first.prepared_plans)
    );
    for i in 0..20 {
        assert_eq!(run(), first, "host run {i}");
        assert_eq!(rt.stats(), after_host, "host run {i}: the runtime grew");
    }
}

// ---- 7. empty input -------------------------------------------------------------------------

/// No rows (`[0, K]`, `[2, 0, K]`): empty outputs of the right shapes, and nothing runs (no
/// pipeline compiled, no plan prepared, no pooled buffer), on host and device tensors.
#[test]
fn empty_input() {
    let Some(rt) = testing::runtime() else { return };
    let mut i = 0;
    for dtype in [DType::F32, DType::F16] {
        for (norm, skip, residual, gb, ub) in [
            (false, false, false, false, false),
            (true, false, false, true, false),
            (true, true, true, true, true),
        ] {
            let shape = MlpShape {
                k: 93,
                n: 37,
                lead: vec![0],
                dtype,
                norm,
                skip,
                residual,
                gate_bias: gb,
                up_bias: ub,
                ..Default::default()
            };
            let call_seed = seed(7, i);
            i += 1;
            for call in [
                Call::rank2(shape.clone(), call_seed),
                Call::rank3(shape, call_seed),
            ] {
                let c = run_checked(&rt, &call, &Tunables::new(), "empty");
                let at = format!("{call} (variant {})", c.plan.variant);
                assert_eq!(c.plan.active_passes().count(), 0, "{at}: a pass would run");
                assert!(c.y.data.is_empty(), "{at}");
                assert_eq!(c.residual.is_some(), residual, "{at}");
                // Device tensors: nothing runs, downloads are empty.
                let case = call.case();
                let inputs: Vec<_> = case
                    .inputs
                    .iter()
                    .map(|t| t.as_ref().map(|t| rt.upload(t).unwrap()))
                    .collect();
                let outputs = rt.alloc_outputs(&c.plan).unwrap();
                let ins: Vec<_> = inputs.iter().map(Option::as_ref).collect();
                let outs: Vec<_> = outputs.iter().map(Option::as_ref).collect();
                rt.run_on_device(&c.plan, &ins, &outs).unwrap();
                let y = rt.download(outs[0].unwrap()).unwrap();
                check_tensor(
                    &y,
                    dtype,
                    &call.shape_with(37),
                    &format!("{at}: Y on device"),
                );
                if let Some(r) = outs[1] {
                    let r = rt.download(r).unwrap();
                    check_tensor(
                        &r,
                        dtype,
                        &call.shape_with(93),
                        &format!("{at}: residual on device"),
                    );
                }
            }
        }
    }
    let s = rt.stats();
    assert_eq!(
        (s.pipelines, s.prepared_plans, s.pool.created),
        (0, 0, 0),
        "something ran: {s:?}"
    );
}

// ---- real size (ignored) --------------------------------------------------------------------

/// A decode step at a real model's size (K 4096, N 14336, float16): correctness, and the GPU
/// time of the plan on device tensors where timestamps exist. Slow on a software device.
#[test]
#[ignore = "slow on a software device; run with --ignored"]
fn real_size_decode() {
    let Some(rt) = testing::runtime() else { return };
    let call = Call::rank2(
        MlpShape {
            k: 4096,
            n: 14336,
            lead: vec![1],
            dtype: DType::F16,
            norm: true,
            skip: true,
            residual: true,
            ..Default::default()
        },
        1,
    );
    let c = run_checked(&rt, &call, &Tunables::new(), "real size");
    let case = call.case();
    let inputs: Vec<_> = case
        .inputs
        .iter()
        .map(|t| t.as_ref().map(|t| rt.upload(t).unwrap()))
        .collect();
    let outputs = rt.alloc_outputs(&c.plan).unwrap();
    let ins: Vec<_> = inputs.iter().map(Option::as_ref).collect();
    let outs: Vec<_> = outputs.iter().map(Option::as_ref).collect();
    if rt.gpu().has_timestamps() {
        let mut t = rt.time_plan(&c.plan, &ins, &outs, 5).unwrap();
        t.sort_by(f64::total_cmp);
        println!(
            "{}: {:.0} us per decode step (median of 5)",
            c.plan.variant, t[2]
        );
    }
}

/// Float32 activations past what the tensor-core kernels' float16 hi / lo pairs hold (32 768 or
/// more: `op::values_overflow`): `run_plan` with a plan that stages them (Llama-wide f32 calls
/// planned for the `discrete-gpu` profile, 48 and 64 rows: `mmap_*`; 512 rows: `coop_*`) refuses
/// them, naming A (plain) or norm_scale (skip + norm, whose normalised rows are bounded by
/// sqrt(K) times it), before anything runs; `run` plans them again without those kernels and
/// returns the reference's values (on the device's own plans: a GPU with cooperative matrices
/// would take the pairs for these calls). Values just below the limit keep the pairs.
#[test]
fn float32_values_past_the_f16_pairs() {
    let Some(rt) = testing::runtime() else { return };
    let planner = nbits_mlp_core::Planner::project(nbits_mlp_core::DeviceProfile::discrete_gpu());
    let t = Tunables::new();
    for (i, (rows, norm)) in [(48, false), (64, true), (512, false)]
        .into_iter()
        .enumerate()
    {
        let mut shape = MlpShape::new(256, 70, rows);
        shape.dtype = DType::F32;
        (shape.norm, shape.skip) = (norm, norm);
        let call = Call::rank2(shape, seed(44, i));
        let mut case = call.case();
        // Plain: one element of A past the limit. Norm: norm_scale 4100 (sqrt(256) * 4100 =
        // 65 600), or 2000 (32 000: below the limit).
        let set = |case: &mut nbits_mlp_reference::gen::Case, big: bool| {
            let index = if norm { 2 } else { 0 };
            let t = case.inputs[index].as_mut().unwrap();
            let mut v = t.to_f32();
            if norm {
                v.iter_mut()
                    .for_each(|x| *x = if big { 4100.0 } else { 2000.0 });
            } else {
                v[37] = if big { 40000.0 } else { 32000.0 };
            }
            *t = Tensor::from_f32(t.shape.clone(), &v);
        };
        set(&mut case, true);
        let inputs = case.input_refs();
        let what = format!("#{i} {call}");
        let plan = planner.plan(&case.call(), &t).unwrap();
        assert!(plan.f16_pairs(), "{what}: {}", plan.variant);
        let opts = RunOptions { poison: true };
        let err = rt.run_plan(&plan, &inputs, &opts).unwrap_err().to_string();
        let want = if norm {
            "input 2 `norm_scale`"
        } else {
            "input 0 `A`"
        };
        assert!(
            err.starts_with(want) && err.contains(&plan.variant) && err.contains("COOP_F32=0"),
            "{what}: {err}"
        );
        let c = crate::common::check::run_checked(&rt, &case.attrs, &inputs, false, &t, &what);
        assert!(!c.plan.f16_pairs(), "{what}: {}", c.plan.variant);
        // Below the limit the pairs stay (the planner's choice, not run's).
        set(&mut case, false);
        let inputs = case.input_refs();
        assert_eq!(
            nbits_mlp_core::op::values_overflow(&plan, &inputs).map(|f| f.message),
            None,
            "{what}"
        );
        let own = rt.plan(&case.call(), &t).unwrap();
        let out = rt
            .run(&case.attrs, &inputs, &[true, false], &t, &opts)
            .unwrap();
        assert_eq!(out.plan.variant, own.variant, "{what}");
    }
}

/// Float16 values past what the kernels' float16 staging holds (`op::values_overflow`), on the
/// device's own plans where they sum products in float16 (the gemv at 1 row, the few-rows
/// kernel at 4; 2-, 4- and 8-bit codes, plain and normalised): activations whose 16 largest
/// magnitudes times the largest code offset pass 32 768 (the float16 sum would be an infinity),
/// or rows whose mean magnitude lies below `f16_sum_floor` (subnormal products); `run_plan`
/// refuses such values naming A, `run` plans them again without float16 sums and returns the
/// reference's values within the float32-accumulation tolerance. And scales whose dequantised
/// float16 weights would overflow (the tensor-core kernels of the `discrete-gpu` profile at 64
/// rows): `run_plan` refuses them naming the scales tensor, `run` returns the reference's values.
#[test]
fn float16_values_past_the_float16_staging() {
    use nbits_mlp_core::op::{f16_sum_floor, values_overflow};
    let Some(rt) = testing::runtime() else { return };
    let t = Tunables::new();
    let opts = RunOptions { poison: true };
    let scale_all = |t: &mut Tensor, by: f64| {
        let v: Vec<f32> = t.to_f64().iter().map(|x| (x * by) as f32).collect();
        *t = Tensor::from_f32_as_f16(t.shape.clone(), &v);
    };
    let max_abs = |t: &Tensor| t.to_f64().iter().fold(0f64, |m, v| m.max(v.abs()));
    let mut i = 0;
    // (8-bit codes: high only; their floor, 2^-20, is float16's smallest subnormal over 16.)
    for (bits, high) in [(2u32, true), (2, false), (4, true), (4, false), (8, true)] {
        let offset = 2f64.powi(bits as i32 - 1);
        for norm in [false, true] {
            for rows in [1usize, 4] {
                {
                    i += 1;
                    let mut shape = MlpShape::new(256, 64, rows);
                    shape.dtype = DType::F16;
                    shape.bits = bits;
                    shape.norm = norm;
                    let call = Call::rank2(shape, seed(45, i));
                    let mut case = call.case();
                    // High: every activation (after the norm) 3 x 32768 / (16 x offset) and
                    // every code 0 (code - zero = -offset), so every float16 sum of 16 products
                    // is 3 x 32768 in magnitude, an infinity (without the guard every such
                    // call's Y held infinite errors); the scales keep g and u near -5. Low: the activations a
                    // sixteenth of the floor (the 4-bit gemv's error was 1.3 x its tolerance
                    // without the guard), the scales keeping g and u near 10.
                    let want = if high {
                        3.0 * 32768.0 / (16.0 * offset)
                    } else {
                        f16_sum_floor(bits) / 16.0
                    };
                    let index = if norm { 2 } else { 0 };
                    if high {
                        for j in [0usize, 2, 3, 6] {
                            if let Some(t) = case.inputs[j].as_mut() {
                                let v = match j {
                                    0 | 2 => {
                                        let v = if j == index { want } else { 1.0 };
                                        vec![v as f32; t.numel()]
                                    }
                                    _ => {
                                        let zeros = vec![0u8; t.numel()];
                                        *t = Tensor::from_bytes(t.dtype, t.shape.clone(), zeros)
                                            .unwrap();
                                        continue;
                                    }
                                };
                                *t = Tensor::from_f32_as_f16(t.shape.clone(), &v);
                            }
                        }
                    } else {
                        let m = max_abs(case.inputs[index].as_ref().unwrap());
                        let by = if norm { want / 3.0 / m } else { want / m };
                        scale_all(case.inputs[index].as_mut().unwrap(), by);
                    }
                    let s = if high {
                        5.0 / (want * offset * 256.0)
                    } else {
                        10.0 / (want * offset * 16.0)
                    };
                    for j in [4usize, 7] {
                        let t = case.inputs[j].as_mut().unwrap();
                        let m = max_abs(t);
                        scale_all(t, s / m);
                    }
                    let what = format!("#{i} {call} high {high}");
                    let inputs = case.input_refs();
                    let plan = rt.plan(&case.call(), &t).unwrap();
                    assert!(plan.f16_accumulation(), "{what}: {}", plan.variant);
                    let fault = values_overflow(&plan, &inputs).expect(&what);
                    assert_eq!(fault.index, 0, "{what}: {}", fault.message);
                    let err = rt.run_plan(&plan, &inputs, &opts).unwrap_err().to_string();
                    assert!(
                        err.starts_with("input 0 `A`") && err.contains("GEMV_F16_MATH=0"),
                        "{what}: {err}"
                    );
                    let c = crate::common::check::run_checked(
                        &rt,
                        &case.attrs,
                        &inputs,
                        false,
                        &t,
                        &what,
                    );
                    assert!(!c.plan.f16_accumulation(), "{what}: {}", c.plan.variant);
                }
            }
        }
    }
    // Float16 weights of the tensor-core kernels (planned for `discrete-gpu`): gate_scales
    // past 65504 / 8 (4-bit codes); lavapipe's own plan takes the call.
    let planner = nbits_mlp_core::Planner::project(nbits_mlp_core::DeviceProfile::discrete_gpu());
    let mut shape = MlpShape::new(256, 64, 64);
    shape.dtype = DType::F16;
    let call = Call::rank2(shape, seed(45, 100));
    let mut case = call.case();
    let g = case.inputs[4].as_mut().unwrap();
    let m = max_abs(g);
    scale_all(g, 9000.0 / m);
    scale_all(case.inputs[0].as_mut().unwrap(), 1e-4);
    let inputs = case.input_refs();
    let plan = planner.plan(&case.call(), &t).unwrap();
    assert!(plan.f16_weights(), "{}", plan.variant);
    let err = rt.run_plan(&plan, &inputs, &opts).unwrap_err().to_string();
    assert!(
        err.starts_with("input 4 `gate_scales`") && err.contains("COOP_F16=0"),
        "{err}"
    );
    let c = crate::common::check::run_checked(&rt, &case.attrs, &inputs, false, &t, "f16 weights");
    assert!(!c.plan.f16_weights(), "{}", c.plan.variant);
}

/// Normalised rows past float16's range (`op::f16_norm_fault`): a float16 call whose rows have
/// one large value, where norm_scale takes that value, normalised, past 65504 while Y stays
/// small. On the gemv's two passes in float32 math (the norm pass writes the T1 row: the
/// caller's GEMV_F16_MATH=0, GEMV_INLINE_NORM=0 and GEMVP_ONE_ROW=1) the row held an infinity
/// and Y infinities without the guard; `run_plan` refuses such values naming norm_scale and
/// `run` plans them with float32 rows and returns the reference's values. Also on lavapipe's own
/// plans (their float16 sums take such rows elsewhere first), with the skip, and the
/// tensor-core plan of `discrete-gpu` at 64 rows refused naming norm_scale.
#[test]
fn float16_normalised_rows_past_float16() {
    use nbits_mlp_core::op::values_overflow;
    let Some(rt) = testing::runtime() else { return };
    let opts = RunOptions { poison: true };
    let k = 256usize;
    let two_pass = {
        let mut t = Tunables::new();
        t.insert("GEMV_F16_MATH".into(), 0);
        t.insert("GEMV_INLINE_NORM".into(), 0);
        // (K 256 takes the few-rows kernel at one row by default)
        t.insert("GEMVP_ONE_ROW".into(), 1);
        t
    };
    let set = |t: &mut Tensor, v: &[f32]| *t = Tensor::from_f32_as_f16(t.shape.clone(), v);
    let mut i = 0;
    for (rows, skip, t) in [
        (1usize, false, &two_pass),
        (1, true, &two_pass),
        (1, false, &Tunables::new()),
        (4, true, &Tunables::new()),
        (64, false, &Tunables::new()),
    ] {
        i += 1;
        let mut shape = MlpShape::new(k, 64, rows);
        shape.dtype = DType::F16;
        shape.norm = true;
        shape.skip = skip;
        let call = Call::rank2(shape, seed(47, i));
        let mut case = call.case();
        // Each row: 1000 at column 37 + r, 0.01 elsewhere (the skip adds 0 there: A carries
        // it), so the row's root mean square is ~1000 / 16 and its large value normalises to
        // ~16; norm_scale 8000 there (1 elsewhere) makes it ~128 000. Scales of 1e-5 keep g
        // and u within ~10.
        let mut a = vec![0.01f32; rows * k];
        for r in 0..rows {
            a[r * k + 37 + r % 4] = 1000.0;
        }
        set(case.inputs[0].as_mut().unwrap(), &a);
        if skip {
            let n = case.inputs[1].as_ref().unwrap().numel();
            set(case.inputs[1].as_mut().unwrap(), &vec![0.0; n]);
        }
        let mut g = vec![1f32; k];
        (37..41).for_each(|j| g[j] = 8000.0);
        set(case.inputs[2].as_mut().unwrap(), &g);
        for j in [4usize, 7] {
            let n = case.inputs[j].as_ref().unwrap().numel();
            set(case.inputs[j].as_mut().unwrap(), &vec![1e-5; n]);
        }
        let what = format!("#{i} {call}");
        let inputs = case.input_refs();
        let plan = if rows == 64 {
            nbits_mlp_core::Planner::project(nbits_mlp_core::DeviceProfile::discrete_gpu())
                .plan(&case.call(), t)
                .unwrap()
        } else {
            rt.plan(&case.call(), t).unwrap()
        };
        if t.is_empty() && rows < 64 {
            // Lavapipe's own plans: whichever check comes first, the call is planned away.
            assert!(values_overflow(&plan, &inputs).is_some(), "{what}");
        } else {
            assert!(plan.f16_norm_rows(), "{what}: {}", plan.variant);
            let fault = values_overflow(&plan, &inputs).expect(&what);
            assert_eq!(fault.index, 2, "{what}: {}", fault.message);
            let err = rt.run_plan(&plan, &inputs, &opts).unwrap_err().to_string();
            assert!(
                err.starts_with("input 2 `norm_scale`") && err.contains("GEMV_INLINE_NORM=1"),
                "{what}: {err}"
            );
        }
        let c = crate::common::check::run_checked(&rt, &case.attrs, &inputs, false, t, &what);
        assert!(!c.plan.f16_norm_rows(), "{what}: {}", c.plan.variant);
    }
}
