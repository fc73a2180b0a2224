//! Runs repeated, empty and at a real size.

use crate::calls::{seed, Call};
use crate::check::run_checked;
use crate::common::check::check_tensor;
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
    let plan = rt.plan(&case.call(), &Tunables::new()).unwrap();
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
