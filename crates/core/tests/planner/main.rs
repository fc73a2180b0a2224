//! Planner tests: the chosen variant and dispatch over a matrix of calls, and every error path.
//! The tensor-core families (coop, mma, mmap) are in `families.rs`.

mod families;

use nbits_mlp_core::coverage::variant_matrix;
use nbits_mlp_core::plan::Resource;
use nbits_mlp_core::{
    AttrValue, DType, DeviceProfile, MlpShape, PlanError, Planner, TensorInfo, Tunables,
};
use std::collections::BTreeMap;

fn none() -> Tunables {
    BTreeMap::new()
}

/// Tunable overrides from `(name, value)` pairs.
fn tunables(pairs: &[(&str, i64)]) -> Tunables {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// Tunables that keep calls of 2-16 rows off the multi-row gemv (`gemvr_*`) and off the
/// few-rows kernel on prepared weights (`gemvp_*`, both dtypes), and calls of 2-64 rows off the
/// few-rows tensor-core kernel (`mma_*`).
fn no_gemvr() -> Tunables {
    tunables(&[
        ("GEMV_MAX_ROWS", 1),
        ("MMA_MAX_ROWS", 1),
        ("GEMVP_MAX_ROWS", 0),
        ("GEMVP_F32_MAX_ROWS", 0),
    ])
}

/// Tunable overrides with the prepared-weights kernel (`mmap_*`) and the large-tile one
/// (`mmal_*`) off, so `mma_*` takes their rows.
fn no_mmap(pairs: &[(&str, i64)]) -> Tunables {
    let mut t = tunables(pairs);
    t.insert("MMAP_MAX_ROWS".into(), 0);
    t.insert("MMAL_MIN_ROWS".into(), 0);
    t
}

/// Tunable overrides with the few-rows kernel on prepared weights (`gemvp_*`, both dtypes) off,
/// so the kernels below it in priority (`gemvr_*`, `tiled_*`, `coop_*`) take its rows.
fn no_gemvp(pairs: &[(&str, i64)]) -> Tunables {
    let mut t = tunables(pairs);
    t.insert("GEMVP_MAX_ROWS".into(), 0);
    t.insert("GEMVP_F32_MAX_ROWS".into(), 0);
    t
}

fn big() -> Planner {
    Planner::project(DeviceProfile::discrete_gpu())
}

/// A planner over the seed manifest alone (the seed's 27 variants, no project overlay).
fn seed_planner(dev: DeviceProfile) -> Planner {
    Planner::new(
        std::sync::Arc::new(nbits_mlp_core::Manifest::seed()),
        std::sync::Arc::new(nbits_mlp_core::render::Templates::builtin()),
        dev,
    )
}

#[test]
fn matrix_pins_variant_and_dispatch() {
    for dev in [
        DeviceProfile::discrete_gpu(),
        DeviceProfile::builtin("discrete-gpu-8sb").unwrap(),
    ] {
        let planner = seed_planner(dev.clone());
        let sb = dev.limit("maxStorageBuffersPerShaderStage").unwrap();
        for dtype in [DType::F32, DType::F16] {
            for case in variant_matrix(dtype) {
                for rank3 in [false, true] {
                    let mut s = case.shape.clone();
                    if rank3 {
                        s.lead = vec![1, s.rows()];
                    }
                    let plan = planner
                        .plan(&s.call(), &none())
                        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
                    let storage = plan
                        .passes
                        .iter()
                        .map(|p| {
                            p.bindings
                                .iter()
                                .filter(|b| !matches!(b.resource, Resource::Uniform { .. }))
                                .count()
                        })
                        .max()
                        .unwrap() as u64;
                    assert!(
                        storage <= sb,
                        "{}: {storage} storage buffers on a device with {sb}",
                        case.name
                    );
                    let expect = if case.expect.starts_with("fused_") && storage > sb {
                        unreachable!()
                    } else {
                        case.expect.clone()
                    };
                    if sb >= 10 || !case.expect.starts_with("fused_") {
                        assert_eq!(plan.variant, expect, "{}", case.name);
                    } else {
                        // A fused variant that needs more storage buffers gives way to staged.
                        let needs = planner
                            .manifest()
                            .variants
                            .iter()
                            .find(|v| v.decl.id == case.expect)
                            .unwrap()
                            .decl
                            .requires
                            .as_ref()
                            .unwrap()
                            .limits["maxStorageBuffersPerShaderStage"];
                        if needs > sb {
                            assert_eq!(
                                plan.variant,
                                case.expect.replace("fused_", "staged_"),
                                "{}",
                                case.name
                            );
                        } else {
                            assert_eq!(plan.variant, case.expect, "{}", case.name);
                        }
                    }
                    // Output shape and dispatch follow the manifest's expressions.
                    let rows = s.rows();
                    let mut y = s.lead.clone();
                    y.push(s.n);
                    assert_eq!(plan.outputs[0].shape, y);
                    assert_eq!(plan.outputs[1].present, s.residual);
                    let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
                    let blob = s.blob_size();
                    let decode_vec = rows <= 1 && blob % 16 == 0;
                    let lane_split = decode_vec && s.k.div_ceil(s.block_size) * blob <= 64 * 16;
                    let cols = if rows <= 1 {
                        if lane_split {
                            8
                        } else {
                            4
                        }
                    } else {
                        8
                    };
                    let row_groups = if rows <= 1 {
                        rows
                    } else {
                        rows.div_ceil(rows.min(8))
                    };
                    let y_groups = if plan.variant.starts_with("fused_") {
                        rows
                    } else {
                        row_groups
                    };
                    assert_eq!(
                        main.dispatch,
                        [s.n.div_ceil(cols) as u32, y_groups as u32, 1],
                        "{}",
                        case.name
                    );
                    if let Some(norm) = plan.passes.iter().find(|p| p.id == "norm") {
                        assert_eq!(norm.dispatch, [rows as u32, 1, 1]);
                        assert_eq!(norm.workgroup_size, [128, 1, 1]);
                    }
                }
            }
        }
    }
}

#[test]
fn project_overlay_takes_many_rows() {
    // Seed variants stay selectable: single rows keep them, and so does a device without the
    // workgroup storage the tiled variants need (WebGPU's default 16 KiB).
    for dtype in [DType::F32, DType::F16] {
        for case in variant_matrix(dtype) {
            let plan = big().plan(&case.shape.call(), &none()).unwrap();
            assert_eq!(
                plan.variant,
                nbits_mlp_core::coverage::project_expect(&case),
                "{}",
                case.name
            );
            if plan.variant.starts_with("gemvr_") {
                // Row groups of GEMV_ROWS (2) along x, GEMV_COLS (16) columns along y.
                let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
                let rg = case.shape.rows().min(2);
                assert_eq!(
                    main.dispatch,
                    [
                        case.shape.rows().div_ceil(rg) as u32,
                        case.shape.n.div_ceil(16) as u32,
                        1
                    ]
                );
            } else if case.shape.rows() >= 2 {
                let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
                let rows_per_tile = 16
                    * if case.shape.rows() > 32 {
                        4
                    } else if case.shape.rows() > 16 {
                        2
                    } else {
                        1
                    };
                assert_eq!(
                    main.dispatch,
                    [
                        case.shape.n.div_ceil(64) as u32,
                        case.shape.rows().div_ceil(rows_per_tile) as u32,
                        1
                    ]
                );
                assert_eq!(main.workgroup_size, [256, 1, 1]);
            }
        }
    }
    let mut s = MlpShape::new(93, 37, 9);
    s.dtype = DType::F32;
    let small = Planner::project(DeviceProfile::webgpu_default())
        .plan(&s.call(), &none())
        .unwrap();
    // The multi-row gemv fits WebGPU's default limits; the tiled kernel does not.
    assert_eq!(small.variant, "gemvr_plain_nogb_noub");
    let v = small
        .verdicts
        .iter()
        .find(|v| v.variant == "tiled_nogb_noub")
        .unwrap();
    assert!(
        v.rejected_by
            .as_deref()
            .unwrap()
            .contains("maxComputeWorkgroupStorageSize"),
        "{v:?}"
    );
}

#[test]
fn bits_and_rows_and_empty_input() {
    let p = seed_planner(DeviceProfile::discrete_gpu());
    for bits in [2, 4, 8] {
        for rows in [0usize, 1, 2, 33, 200] {
            let mut s = MlpShape::new(96, 50, rows);
            s.bits = bits;
            let plan = p.plan(&s.call(), &none()).unwrap();
            assert_eq!(plan.rows, rows as u64);
            let main = &plan.passes[0];
            assert_eq!(main.skipped, rows == 0, "rows {rows}");
            let elem = &main
                .bindings
                .iter()
                .find(|b| b.key == "gate_b")
                .unwrap()
                .element_type;
            let blob = 32 * bits / 8;
            assert_eq!(
                elem,
                if rows <= 1 && blob % 16 == 0 {
                    "vec4<u32>"
                } else {
                    "u32"
                },
                "bits {bits} rows {rows}"
            );
        }
    }
}

#[test]
fn tunables_change_dispatch_and_unknown_is_error() {
    let p = seed_planner(DeviceProfile::discrete_gpu());
    let s = MlpShape::new(64, 100, 20);
    let t = tunables(&[("TILE_N", 16), ("ROW_TILE", 4)]);
    let plan = p.plan(&s.call(), &t).unwrap();
    assert_eq!(plan.passes[0].dispatch, [7, 5, 1]);
    assert_eq!(plan.passes[0].workgroup_size, [16 * 8, 1, 1]);
    let bad = tunables(&[("TILE_M", 16)]);
    let e = p.plan(&s.call(), &bad).unwrap_err();
    assert!(
        matches!(e, PlanError::UnknownTunable { .. }) && e.to_string().contains("TILE_M"),
        "{e}"
    );
    // The caller's fault (the CLI's exit 2, Python's ValueError): an unknown tunable, one out
    // of its limits.
    assert!(e.is_caller_error(), "{e}");
    let limited = Planner::project(DeviceProfile::discrete_gpu())
        .plan(&s.call(), &tunables(&[("MMA_PAIRS", 3)]))
        .unwrap_err();
    assert!(
        matches!(limited, PlanError::Tunable { .. }) && limited.is_caller_error(),
        "{limited}"
    );
    let lanes = tunables(&[("LANES", 6)]);
    let e = p.plan(&s.call(), &lanes).unwrap_err().to_string();
    assert!(e.contains("lanesPow2"), "{e}");
}

fn err(s: &MlpShape, edit: impl FnOnce(&mut nbits_mlp_core::OpCall)) -> String {
    let mut call = s.call();
    edit(&mut call);
    big().plan(&call, &none()).unwrap_err().to_string()
}

#[test]
fn error_paths_name_the_fault() {
    let mut s = MlpShape::new(20, 16, 3);
    s.block_size = 16;
    // skip without norm_scale: refused before variant selection, naming the tensor (overlay
    // `inputChecks`).
    let e = err(&s, |c| c.inputs[1] = c.inputs[0].clone());
    assert!(
        e.contains("input 1 `skip`") && e.contains("requires norm_scale"),
        "{e}"
    );
    // residual without skip.
    let mut n = s.clone();
    n.norm = true;
    let e = err(&n, |c| c.outputs = vec![true, true]);
    assert!(
        e.contains("output 1 `input_skip_bias_sum`") && e.contains("skip input must be present"),
        "{e}"
    );
    // wrong weight shape.
    let e = err(&s, |c| {
        c.inputs[3] = Some(TensorInfo::new(DType::U8, vec![16, 2, 7]))
    });
    assert!(
        e.contains("weightShapeOk") && e.contains("8 vs 7")
            || e.contains("(7 vs 8)")
            || e.contains("blobSize"),
        "{e}"
    );
    // wrong rank of weights.
    let e = err(&s, |c| {
        c.inputs[6] = Some(TensorInfo::new(DType::U8, vec![16, 16]))
    });
    assert!(e.contains("up_B") && e.contains("rank 3"), "{e}");
    // wrong scale shape.
    let e = err(&s, |c| {
        c.inputs[4] = Some(TensorInfo::new(DType::F32, vec![16, 3]))
    });
    assert!(e.contains("scaleShapeOk"), "{e}");
    // wrong bias shape.
    let e = err(&s, |c| {
        c.inputs[5] = Some(TensorInfo::new(DType::F32, vec![15]))
    });
    assert!(e.contains("biasShapeOk"), "{e}");
    // mixed T1.
    let e = err(&s, |c| {
        c.inputs[4] = Some(TensorInfo::new(DType::F16, vec![16, 2]))
    });
    assert!(
        e.contains("gate_scales") && e.contains("different types"),
        "{e}"
    );
    // bits 3.
    let e = err(&s, |c| {
        c.attrs.insert("bits".into(), AttrValue::Int(3));
    });
    assert!(e.contains("bits") && e.contains("not allowed"), "{e}");
    // unknown activation.
    let e = err(&s, |c| {
        c.attrs
            .insert("activation".into(), AttrValue::Str("gelu".into()));
    });
    assert!(e.contains("activation") && e.contains("gelu"), "{e}");
    // missing required attribute, unknown attribute.
    let e = err(&s, |c| {
        c.attrs.shift_remove("activation");
    });
    assert!(e.contains("activation") && e.contains("missing"), "{e}");
    let e = err(&s, |c| {
        c.attrs.insert("colour".into(), AttrValue::Int(1));
    });
    assert!(
        e.contains("colour") && e.contains("unknown attribute"),
        "{e}"
    );
    // missing required input.
    let e = err(&s, |c| c.inputs[3] = None);
    assert!(e.contains("gate_B") && e.contains("required"), "{e}");
    // uint8 scales.
    let e = err(&s, |c| {
        c.inputs[7] = Some(TensorInfo::new(DType::U8, vec![16, 2]))
    });
    assert!(e.contains("up_scales") && e.contains("uint8"), "{e}");
    // rank 4 A.
    let e = err(&s, |c| {
        c.inputs[0] = Some(TensorInfo::new(DType::F32, vec![1, 1, 3, 20]))
    });
    assert!(e.contains("ioShapeOk"), "{e}");
    // f16 on a device without shader-f16.
    let mut h = s.clone();
    h.dtype = DType::F16;
    let e = Planner::project(DeviceProfile::webgpu_default())
        .plan(&h.call(), &none())
        .unwrap_err()
        .to_string();
    assert!(e.contains("dtypeOk") && e.contains("f16Ok"), "{e}");
}

#[test]
fn eight_storage_buffers_give_way_to_staged() {
    let mut s = MlpShape::new(100, 37, 1);
    s.block_size = 16;
    s.skip = true;
    s.norm = true;
    s.residual = true;
    s.gate_bias = true;
    let big_plan = big().plan(&s.call(), &none()).unwrap();
    assert_eq!(big_plan.variant, "fused_skipsum_gb_noub");
    let small = Planner::project(DeviceProfile::webgpu_default());
    let plan = small.plan(&s.call(), &none()).unwrap();
    assert_eq!(plan.variant, "staged_skipsum_gb_noub");
    let v = plan
        .verdicts
        .iter()
        .find(|v| v.variant == "fused_skipsum_gb_noub")
        .unwrap();
    assert!(v
        .rejected_by
        .as_deref()
        .unwrap()
        .contains("maxStorageBuffersPerShaderStage"));
    let ex = small.explain(&s.call(), &none()).unwrap();
    assert_eq!(ex.len(), small.manifest().variants.len());
    assert_eq!(ex.iter().filter(|v| v.applies).count(), 1);
}

#[test]
fn dispatch_limit_and_cache() {
    let s = MlpShape::new(64, 65536 * 8 + 8, 2);
    let e = big().plan(&s.call(), &none()).unwrap_err().to_string();
    assert!(e.contains("gateUpDispatchFits"), "{e}");
    let p = big();
    let s = MlpShape::new(64, 64, 3);
    let a = p.plan(&s.call(), &none()).unwrap();
    let b = p.plan(&s.call(), &none()).unwrap();
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    assert_eq!(p.cached(), 1);
    let c = p.plan(&MlpShape::new(64, 64, 4).call(), &none()).unwrap();
    assert!(!std::sync::Arc::ptr_eq(&a, &c));
}

#[test]
fn manifest_checks_clean_and_finds_faults() {
    let m = nbits_mlp_core::Manifest::project();
    let t = nbits_mlp_core::render::Templates::builtin();
    m.check(&t.names()).unwrap();
    let seed = nbits_mlp_core::manifest::SEED_MANIFEST;
    // A misspelled key is an error with its JSON path.
    let bad = seed.replacen("\"priority\": 10", "\"priorty\": 10", 1);
    let e = nbits_mlp_core::Manifest::from_json(&bad, "bad")
        .unwrap_err()
        .to_string();
    assert!(e.contains("variants[0]") && e.contains("priorty"), "{e}");
    // Unknown derive name, missing template, missing binding, derive cycle.
    let bad = seed.replacen(
        "\"aRows\": \"numel(shapes.aT) / max(1, attrs.K)\"",
        "\"aRows\": \"numel(shapes.aT) / max(1, attrs.K) + rowGroups\"",
        1,
    );
    let e = nbits_mlp_core::Manifest::from_json(&bad, "bad")
        .unwrap()
        .check(&t.names())
        .unwrap_err()
        .to_string();
    assert!(e.contains("derive cycle") && e.contains("aRows"), "{e}");
    let bad = seed.replacen(
        "\"decodeWalk\": \"aRows <= 1\"",
        "\"decodeWalk\": \"aRowz <= 1\"",
        1,
    );
    let e = nbits_mlp_core::Manifest::from_json(&bad, "bad")
        .unwrap()
        .check(&t.names())
        .unwrap_err()
        .to_string();
    assert!(e.contains("aRowz"), "{e}");
    let e = nbits_mlp_core::Manifest::seed()
        .check(&["mlp-gate-up.wgsl.jinja"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("matmul-nbits-fused-rms-norm.wgsl.jinja"), "{e}");
    let bad = seed.replacen(
        "\"bindings\": [\"a\", \"gate_b\"",
        "\"bindings\": [\"a\", \"gate_bb\"",
        1,
    );
    let e = nbits_mlp_core::Manifest::from_json(&bad, "bad")
        .unwrap()
        .check(&t.names())
        .unwrap_err()
        .to_string();
    assert!(e.contains("gate_bb"), "{e}");
    let bad = seed.replacen("\"length\": \"$N_LEN\"", "\"length\": \"$N_LENGTH\"", 1);
    let e = nbits_mlp_core::Manifest::from_json(&bad, "bad")
        .unwrap()
        .check(&t.names())
        .unwrap_err()
        .to_string();
    assert!(e.contains("N_LENGTH"), "{e}");
    let bad = seed.replacen("\"scratch\": \"normedA\"", "\"scratch\": \"normedB\"", 1);
    let e = nbits_mlp_core::Manifest::from_json(&bad, "bad")
        .unwrap()
        .check(&t.names())
        .unwrap_err()
        .to_string();
    assert!(e.contains("normedB"), "{e}");
}

/// `op::values_overflow` on plans that stage float32 values as float16 pairs: the coop form
/// stages the dequantised weights as pairs too, so gate_scales / up_scales times the largest
/// code offset (8 for 4-bit codes) must stay below 32 768 (the coop form takes f32 calls past
/// `MMA_F32_MAX_ROWS`, set to 384 here; no cap by default); the `mmap` form stages only the
/// activations (its scales come after the products, at 64 and by default at 512 rows); float16
/// plans and the float32 ALU kernels (`op::without_f16_pairs`) stage none.
#[test]
fn f16_pair_overflow_names_the_input_past_the_pairs() {
    use nbits_mlp_core::op::{values_overflow, without_f16_pairs};
    use nbits_mlp_core::{Plan, Tensor};
    let f16_pair_overflow = |p: &Plan, inputs: &[Option<&Tensor>]| {
        values_overflow(p, inputs).map(|f| (f.index, f.message))
    };
    let plan = |rows: usize, dtype: DType, t: &Tunables| {
        let mut s = MlpShape::new(256, 70, rows);
        s.dtype = dtype;
        big().plan(&s.call(), t).unwrap()
    };
    let a = Tensor::from_f32(vec![4], &[1.0, -30000.0, f32::INFINITY, 2.0]);
    let scales = |v: f32| Tensor::from_f32(vec![2], &[0.5, v]);
    let (s5000, s3000) = (scales(-5000.0), scales(3000.0));
    fn inputs<'t>(a: &'t Tensor, gate: &'t Tensor, up: &'t Tensor) -> Vec<Option<&'t Tensor>> {
        vec![Some(a), None, None, None, Some(gate), None, None, Some(up)]
    }
    let none = Tunables::new();
    let coop = plan(512, DType::F32, &tunables(&[("MMA_F32_MAX_ROWS", 384)]));
    assert!(
        coop.f16_pairs() && coop.f16_pair_weights(),
        "{}",
        coop.variant
    );
    let (index, message) = f16_pair_overflow(&coop, &inputs(&a, &s5000, &s3000)).unwrap();
    assert_eq!(index, 4, "{message}");
    assert!(message.starts_with("gate_scales"), "{message}");
    assert_eq!(
        f16_pair_overflow(&coop, &inputs(&a, &s3000, &s5000)).map(|(i, _)| i),
        Some(7)
    );
    // A's infinity is not a range fault (it propagates as IEEE arithmetic gives).
    assert_eq!(f16_pair_overflow(&coop, &inputs(&a, &s3000, &s3000)), None);
    let mmap = plan(64, DType::F32, &none);
    assert!(
        mmap.f16_pairs() && !mmap.f16_pair_weights(),
        "{}",
        mmap.variant
    );
    assert_eq!(f16_pair_overflow(&mmap, &inputs(&a, &s5000, &s5000)), None);
    let mmap = plan(512, DType::F32, &none);
    assert!(mmap.variant.starts_with("mmap_"), "{}", mmap.variant);
    assert!(mmap.f16_pairs() && !mmap.f16_pair_weights());
    assert_eq!(f16_pair_overflow(&mmap, &inputs(&a, &s5000, &s5000)), None);
    for p in [
        plan(64, DType::F16, &none),
        plan(512, DType::F32, &without_f16_pairs(&none)),
        plan(64, DType::F32, &without_f16_pairs(&none)),
    ] {
        assert!(!p.f16_pairs(), "{}", p.variant);
        assert_eq!(f16_pair_overflow(&p, &inputs(&a, &s5000, &s5000)), None);
    }
}

/// `op::values_overflow` on float16 plans: where a plan sums products in float16 (the gemv with
/// `GEMV_F16_MATH`, the few-rows kernel) a row whose 16 largest activation magnitudes times the
/// largest code offset reach 32 768, or whose mean magnitude lies below `f16_sum_floor`, names A
/// (plain and normalised rows, whose range comes from A, skip and norm_scale); where it stages
/// dequantised weights as float16 (the tensor-core kernels) a scale times the largest code
/// offset at 65 504 names its scales tensor; the `without_*` tunables plan every such call
/// without those kernels (every profile, 1-16 and 9-512 rows, plain and normalised, 2 / 4 / 8
/// bits), and their plans take the same values.
#[test]
fn f16_ranges_name_the_input_past_the_float16_staging() {
    use nbits_mlp_core::op::{
        f16_sum_floor, values_overflow, without_f16_sums, without_f16_weights, ActivationRange,
    };
    use nbits_mlp_core::{Plan, Tensor};
    let fault = |p: &Plan, inputs: &[Option<&Tensor>]| {
        values_overflow(p, inputs).map(|f| (f.index, f.message))
    };
    let k = 256;
    let shape = |rows: usize, bits: u32, norm: bool| {
        let mut s = MlpShape::new(k, 70, rows);
        s.dtype = DType::F16;
        s.bits = bits;
        (s.norm, s.skip) = (norm, false);
        s
    };
    // A row of 256 values: `big` at 4 places, `small` elsewhere (f16).
    let row = |rows: usize, big: f32, small: f32| {
        let mut v = vec![small; rows * k];
        for r in 0..rows {
            for j in 0..4 {
                v[r * k + 60 * j + r % 3] = if j % 2 == 0 { big } else { -big };
            }
        }
        Tensor::from_f32_as_f16(vec![rows, k], &v)
    };
    let scales = |v: f32| Tensor::from_f32_as_f16(vec![70, k / 32], &vec![v; 70 * k / 32]);
    let ones = Tensor::from_f32_as_f16(vec![k], &vec![1.0; k]);
    fn inputs<'t>(a: &'t Tensor, ns: Option<&'t Tensor>, s: &'t Tensor) -> Vec<Option<&'t Tensor>> {
        vec![Some(a), None, ns, None, Some(s), None, None, Some(s)]
    }
    let none = Tunables::new();
    let s1 = scales(0.01);

    // The activations' range: 16 largest magnitudes of a row, smallest row mean.
    let a = row(2, 1000.0, 0.5);
    let r = ActivationRange::of(k, 1e-5, &a, None, None);
    assert_eq!(r.top_sum, 4.0 * 1000.0 + 12.0 * 0.5);
    assert!(
        (r.row_mean_min - (4000.0 + 252.0 * 0.5) / 256.0).abs() < 1e-9,
        "{r:?}"
    );
    // Normalised: the magnitudes are the values / the row's root mean square. Their 16 largest
    // sum to (4000 + 6) / rms ~ 32, below 256: the bound, 16 times the largest, stands for them
    // (no code offset takes it to 32768); norm_scale 64 takes the row past it: exact again.
    let rn = ActivationRange::of(k, 0.0, &a, None, Some(&ones));
    let rms = ((4.0 * 1e6 + 252.0 * 0.25) / 256.0f64).sqrt();
    assert!((rn.top_sum - 16.0 * 1000.0 / rms).abs() < 1e-3, "{rn:?}");
    let ns64 = Tensor::from_f32_as_f16(vec![k], &vec![64.0; k]);
    let r64 = ActivationRange::of(k, 0.0, &a, None, Some(&ns64));
    assert!(
        (r64.top_sum - 64.0 * r.top_sum / rms).abs() < 1e-3,
        "{r64:?}"
    );
    assert!(
        (rn.row_mean_min - r.row_mean_min / rms).abs() < 1e-6,
        "{rn:?}"
    );
    // Tensors that do not match the call (which `run_plan` refuses after this check) read as
    // far as they go, never past their end.
    let short = Tensor::from_f32_as_f16(vec![100], &vec![3.0; 100]);
    let r_short = ActivationRange::of(k, 1e-5, &a, Some(&short), Some(&short));
    assert!(r_short.top_sum > 0.0, "{r_short:?}");
    let u8s = Tensor::from_u8(vec![3], vec![1, 2, 3]);
    ActivationRange::of(k, 1e-5, &u8s, Some(&u8s), Some(&u8s));
    // Rows of zeros do not count towards the smallest mean; non-finite values are not counted.
    let z = Tensor::from_f32_as_f16(vec![2, k], &[vec![0.0; k], vec![2.0; k]].concat());
    assert_eq!(
        ActivationRange::of(k, 1e-5, &z, None, None).row_mean_min,
        2.0
    );

    for (bits, norm) in [(4, false), (4, true), (2, false), (8, true)] {
        let offset = 2f64.powi(bits as i32 - 1);
        for rows in [1, 4] {
            let what = format!("{bits}-bit norm {norm} rows {rows}");
            let p = big().plan(&shape(rows, bits, norm).call(), &none).unwrap();
            assert!(p.f16_accumulation(), "{what}: {}", p.variant);
            let ns = norm.then_some(&ones);
            // Past the sum: four values whose sum times the offset passes 32768 (with the norm,
            // the row's other values small, so each big one is ~sqrt(256 / 4) = 8 times the rms:
            // norm_scale carries them instead).
            let big_a = if norm {
                row(rows, 1.0, 0.0)
            } else {
                row(rows, (40000.0 / 4.0 / offset) as f32, 0.5)
            };
            let big_ns =
                Tensor::from_f32_as_f16(vec![k], &vec![(40000.0 / 32.0 / offset) as f32; k]);
            let ns_big = if norm { Some(&big_ns) } else { None };
            let (index, message) = fault(&p, &inputs(&big_a, ns_big, &s1)).expect(&what);
            assert_eq!(index, 0, "{what}: {message}");
            assert!(message.starts_with("A: its activations"), "{message}");
            assert!(message.contains("sum to"), "{message}");
            // Below the floor: every value a tenth of it (with the norm, norm_scale does).
            let floor = f16_sum_floor(bits) as f32;
            let (tiny_a, tiny_ns) = if norm {
                (
                    row(rows, 1.0, 1.0),
                    Tensor::from_f32_as_f16(vec![k], &vec![floor / 10.0; k]),
                )
            } else {
                (row(rows, floor / 10.0, floor / 10.0), ones.clone())
            };
            let (index, message) =
                fault(&p, &inputs(&tiny_a, norm.then_some(&tiny_ns), &s1)).expect(&what);
            assert_eq!(index, 0, "{what}: {message}");
            assert!(message.contains("mean magnitude"), "{message}");
            // Ordinary values fit.
            let fine = row(rows, 30.0, 0.5);
            assert_eq!(fault(&p, &inputs(&fine, ns, &s1)), None, "{what}");
            // Without float16 sums nothing is at fault.
            let q = big()
                .plan(&shape(rows, bits, norm).call(), &without_f16_sums(&none))
                .unwrap();
            assert!(!q.f16_accumulation(), "{what}: {}", q.variant);
            assert_eq!(fault(&q, &inputs(&big_a, ns_big, &s1)), None, "{what}");
            assert_eq!(
                fault(&q, &inputs(&tiny_a, norm.then_some(&tiny_ns), &s1)),
                None
            );
        }
        // Float16 weights: the tensor-core kernels at 64 rows; the scale at which the weights
        // overflow, on gate_scales then on up_scales.
        let what = format!("{bits}-bit norm {norm} 64 rows");
        let p = big().plan(&shape(64, bits, norm).call(), &none).unwrap();
        assert!(p.f16_weights(), "{what}: {}", p.variant);
        let a = row(64, 30.0, 0.5);
        let ns = norm.then_some(&ones);
        let past = scales((65504.0 / offset) as f32);
        let below = scales((60000.0 / offset) as f32);
        let gate_past = vec![
            Some(&a),
            None,
            ns,
            None,
            Some(&past),
            None,
            None,
            Some(&below),
        ];
        let (index, message) = fault(&p, &gate_past).expect(&what);
        assert_eq!(index, 4, "{message}");
        assert!(message.starts_with("gate_scales"), "{message}");
        let up_past = vec![
            Some(&a),
            None,
            ns,
            None,
            Some(&below),
            None,
            None,
            Some(&past),
        ];
        assert_eq!(fault(&p, &up_past).map(|f| f.0), Some(7), "{what}");
        assert_eq!(fault(&p, &inputs(&a, ns, &below)), None, "{what}");
        let q = big()
            .plan(&shape(64, bits, norm).call(), &without_f16_weights(&none))
            .unwrap();
        assert!(!q.f16_weights(), "{what}: {}", q.variant);
        assert_eq!(fault(&q, &gate_past), None, "{what}");
    }
    // The `without_*` tunables leave no such kernel anywhere.
    for dev in [
        DeviceProfile::discrete_gpu(),
        DeviceProfile::builtin("discrete-gpu-8sb").unwrap(),
        DeviceProfile::webgpu_default(),
    ] {
        let planner = Planner::project(dev);
        for bits in [2, 4, 8] {
            for norm in [false, true] {
                for rows in [1, 2, 5, 8, 9, 16, 17, 33, 64, 128, 512] {
                    let s = shape(rows, bits, norm);
                    let what = format!("{bits}-bit norm {norm} rows {rows}");
                    let Ok(p) = planner.plan(&s.call(), &without_f16_sums(&none)) else {
                        continue;
                    };
                    assert!(!p.f16_accumulation(), "{what}: {}", p.variant);
                    let p = planner
                        .plan(&s.call(), &without_f16_weights(&none))
                        .unwrap();
                    assert!(!p.f16_weights(), "{what}: {}", p.variant);
                }
            }
        }
    }
}

/// `op::f16_norm_fault`: the norm forms of float16 calls hold the normalised rows as float16 on
/// the gemv (float16 math, or the norm pass's T1 row), the few-rows kernel and the tensor-core
/// kernels (`Plan::f16_norm_rows`); each element of a normalised row is at most sqrt(K) times
/// norm_scale's largest magnitude, so a norm_scale from 65504 / sqrt(K) names norm_scale (below
/// it, nothing), and `without_f16_norm_rows` plans every such call with float32 rows: every
/// profile, with and without the shader-core count, 1-512 rows, norm and skip + norm, 2 / 4 / 8
/// bits. The float32 plans and the plain forms hold no normalised rows.
#[test]
fn f16_norm_rows_name_norm_scale_past_float16() {
    use nbits_mlp_core::op::{
        f16_norm_fault, values_overflow, without_f16_norm_rows, Magnitudes, F16_MAX,
    };
    use nbits_mlp_core::Tensor;
    let k = 1024usize;
    let edge = F16_MAX / (k as f64).sqrt();
    let at = |g: f64| Magnitudes {
        norm_scale: Some(g),
        ..Magnitudes::default()
    };
    let (mut kinds, mut flagged) = (BTreeMap::new(), 0);
    for (dev, cores) in [
        (DeviceProfile::discrete_gpu(), 0),
        (DeviceProfile::discrete_gpu(), 132),
        (DeviceProfile::builtin("discrete-gpu-8sb").unwrap(), 0),
        (DeviceProfile::webgpu_default(), 0),
    ] {
        let planner = Planner::project(dev);
        // The defaults, the gemv's two passes, `mma` in place of `mmap`, `mmal`, `coop` in place
        // of both, the gemv at one row (K 1024 takes the few-rows kernel there by default).
        for extra in [
            None,
            Some(("GEMV_INLINE_NORM", 0)),
            Some(("MMAP_MAX_ROWS", 0)),
            Some(("MMAL_MIN_ROWS", 17)),
            Some(("MMA_MIN_ROWS", 65535)),
            Some(("GEMVP_ONE_ROW", 1)),
        ] {
            let pairs: Vec<_> = [("SHADER_CORES", cores)].into_iter().chain(extra).collect();
            let t = tunables(&pairs);
            for dtype in [DType::F16, DType::F32] {
                for bits in [2, 4, 8] {
                    for (norm, skip) in [(false, false), (true, false), (true, true)] {
                        for rows in [1, 2, 5, 6, 8, 9, 16, 17, 33, 64, 128, 512] {
                            let mut s = MlpShape::new(k, 448, rows);
                            (s.dtype, s.bits, s.norm, s.skip) = (dtype, bits, norm, skip);
                            let what = format!(
                                "{dtype:?} {bits}-bit norm {norm} skip {skip} rows {rows} cores \
                             {cores} {extra:?}"
                            );
                            let Ok(p) = planner.plan(&s.call(), &t) else {
                                continue;
                            };
                            let holds = p.f16_norm_rows();
                            assert!(
                                !holds || (norm && dtype == DType::F16),
                                "{what}: {}",
                                p.variant
                            );
                            if holds {
                                flagged += 1;
                                let family = p.variant.split('_').next().unwrap().to_string();
                                *kinds.entry(family).or_insert(0) += 1;
                                let (index, message) = f16_norm_fault(&p, &at(edge)).expect(&what);
                                assert_eq!(index, 2, "{what}");
                                assert!(message.starts_with("norm_scale's largest"), "{message}");
                                assert!(message.contains("GEMV_INLINE_NORM=1"), "{message}");
                                assert_eq!(f16_norm_fault(&p, &at(edge * 0.999)), None, "{what}");
                            } else {
                                assert_eq!(f16_norm_fault(&p, &at(1e30)), None, "{what}");
                            }
                            let Ok(q) = planner.plan(&s.call(), &without_f16_norm_rows(&t)) else {
                                continue;
                            };
                            assert!(!q.f16_norm_rows(), "{what}: {}", q.variant);
                            assert_eq!(f16_norm_fault(&q, &at(1e30)), None, "{what}");
                        }
                    }
                }
            }
        }
    }
    // Every kind of kernel that holds them is flagged: the gemv, the few-rows kernel (fused and
    // two-pass) and the tensor-core kernels.
    for family in ["gemv", "gemvp", "mma", "mmap", "mmal", "coop"] {
        assert!(kinds.contains_key(family), "{kinds:?}");
    }
    assert!(flagged > 100, "{flagged} {kinds:?}");
    // End to end from host tensors: the tensor-core plan at 64 rows, norm_scale at the edge
    // (its one large value is all the bound needs: norm_scale's largest magnitude).
    let mut s = MlpShape::new(k, 448, 64);
    (s.dtype, s.norm) = (DType::F16, true);
    let p = big().plan(&s.call(), &none()).unwrap();
    assert!(p.f16_norm_rows() && !p.f16_accumulation(), "{}", p.variant);
    let a = Tensor::from_f32_as_f16(vec![64, k], &vec![0.5; 64 * k]);
    let mut g = vec![1f32; k];
    let sc = Tensor::from_f32_as_f16(vec![448, k / 32], &vec![0.01; 448 * k / 32]);
    let inputs = |ns: &Tensor| {
        values_overflow(
            &p,
            &[
                Some(&a),
                None,
                Some(ns),
                None,
                Some(&sc),
                None,
                None,
                Some(&sc),
            ],
        )
        .map(|f| (f.index, f.message))
    };
    g[7] = (edge * 1.001) as f32;
    let (index, message) = inputs(&Tensor::from_f32_as_f16(vec![k], &g)).expect("past");
    assert_eq!(index, 2, "{message}");
    g[7] = -(edge * 0.99) as f32;
    assert_eq!(inputs(&Tensor::from_f32_as_f16(vec![k], &g)), None);
}
