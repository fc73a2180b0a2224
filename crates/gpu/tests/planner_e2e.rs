//! The real planner, manifest and templates end to end against the float64 reference, on a few
//! cases. Ignored by default while the templates are being written: run with `--ignored`.
//! (The full variant coverage belongs to the end-to-end suite.)

use nbits_mlp_core::{DType, Tunables};
use nbits_mlp_gpu::{testing, RunOptions, Runtime};
use nbits_mlp_reference::compare;
use nbits_mlp_reference::gen::{generate, CaseSpec};

fn check(rt: &Runtime, spec: &CaseSpec) -> String {
    let case = generate(spec);
    let want = case.run_reference().expect("reference");
    let out = rt
        .run(
            &case.attrs,
            &case.input_refs(),
            &[true, case.want_residual],
            &Tunables::new(),
            &RunOptions { poison: true },
        )
        .unwrap_or_else(|e| panic!("{spec:?}: {e}"));
    let y = out.outputs[0].as_ref().expect("Y");
    assert_eq!(y.shape, want.y.shape, "{spec:?}");
    compare::check(&want.y_f64, y)
        .unwrap_or_else(|e| panic!("{spec:?} variant {}: Y {e}", out.plan.variant));
    if let Some(r) = &want.residual_f64 {
        let got = out.outputs[1].as_ref().expect("residual");
        compare::check(r, got)
            .unwrap_or_else(|e| panic!("{spec:?} variant {}: residual {e}", out.plan.variant));
    }
    out.plan.variant.clone()
}

fn specs() -> Vec<CaseSpec> {
    let mut v = Vec::new();
    for dtype in [DType::F32, DType::F16] {
        for rows in [1, 5] {
            for (norm, skip, residual, gb, ub) in [
                (false, false, false, false, false),
                (true, false, false, true, false),
                (true, true, true, false, true),
                (true, true, false, true, true),
            ] {
                v.push(CaseSpec {
                    k: 96,
                    n: 40,
                    rows,
                    dtype,
                    norm,
                    skip,
                    residual,
                    gate_bias: gb,
                    up_bias: ub,
                    seed: 7,
                    ..Default::default()
                });
            }
        }
    }
    v.push(CaseSpec {
        k: 100,
        n: 17,
        rows: 3,
        bits: 8,
        block_size: 16,
        norm: true,
        ..Default::default()
    });
    v.push(CaseSpec {
        k: 64,
        n: 9,
        rows: 0,
        ..Default::default()
    });
    // Blobs of 8 bytes: not `decodeVec`, so single rows take the fused variants.
    for (skip, residual) in [(false, false), (true, false), (true, true)] {
        v.push(CaseSpec {
            k: 128,
            n: 24,
            rows: 1,
            rank3: true,
            block_size: 16,
            norm: true,
            skip,
            residual,
            dtype: DType::F16,
            ..Default::default()
        });
    }
    v.push(CaseSpec {
        k: 200,
        n: 33,
        rows: 1,
        bits: 2,
        block_size: 32,
        norm: true,
        skip: true,
        gate_bias: true,
        ..Default::default()
    });
    v
}

#[test]
#[ignore = "needs the finished templates; run with --ignored"]
fn planner_runs_match_the_reference() {
    let Some(rt) = testing::runtime() else { return };
    for s in specs() {
        println!("{} {s:?}", check(&rt, &s));
    }
}

/// A decode step at a real model's size (K 4096, N 14336, f16): correctness, and the GPU time
/// of the plan on device tensors.
#[test]
#[ignore = "needs the finished templates; slow on a software device; run with --ignored"]
fn real_size_decode() {
    let Some(rt) = testing::runtime() else { return };
    let spec = CaseSpec {
        k: 4096,
        n: 14336,
        rows: 1,
        dtype: DType::F16,
        norm: true,
        skip: true,
        residual: true,
        seed: 1,
        ..Default::default()
    };
    let variant = check(&rt, &spec);
    let case = generate(&spec);
    let plan = rt
        .plan(
            &Runtime::op_call(&case.attrs, &case.input_refs(), &[true, true]),
            &Tunables::new(),
        )
        .unwrap();
    assert_eq!(plan.variant, variant);
    let inputs: Vec<_> = case
        .inputs
        .iter()
        .map(|t| t.as_ref().map(|t| rt.upload(t).unwrap()))
        .collect();
    let outputs = rt.alloc_outputs(&plan).unwrap();
    let ins: Vec<_> = inputs.iter().map(Option::as_ref).collect();
    let outs: Vec<_> = outputs.iter().map(Option::as_ref).collect();
    if rt.gpu().has_timestamps() {
        let mut t = rt.time_plan(&plan, &ins, &outs, 5).unwrap();
        t.sort_by(f64::total_cmp);
        println!("{variant}: {:.0} us per decode step (median of 5)", t[2]);
    }
}

#[test]
#[ignore = "needs the finished templates; run with --ignored"]
fn planner_runs_without_subgroups_and_with_8_storage_buffers() {
    let Some(rt) = testing::runtime_with(|p| {
        p.without_feature("subgroups")
            .with_limit("maxStorageBuffersPerShaderStage", 8)
    }) else {
        return;
    };
    let rt = rt.unwrap();
    for s in specs() {
        println!("{} {s:?}", check(&rt, &s));
    }
}
