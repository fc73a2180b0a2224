//! Planner tests: the chosen variant and dispatch over a matrix of calls, and every error path.

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

/// Tunables that keep calls of 2-16 rows off the multi-row gemv (`gemvr_*`) and calls of 2-64
/// rows off the few-rows tensor-core kernel (`mma_*`).
fn no_gemvr() -> Tunables {
    tunables(&[("GEMV_MAX_ROWS", 1), ("MMA_MAX_ROWS", 1)])
}

/// Tunable overrides with the prepared-weights kernel (`mmap_*`) off, so `mma_*` takes its rows.
fn no_mmap(pairs: &[(&str, i64)]) -> Tunables {
    let mut t = tunables(pairs);
    t.insert("MMAP_MAX_ROWS".into(), 0);
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

#[test]
fn coop_variants_need_the_cooperative_matrix_feature() {
    use nbits_mlp_core::coverage::coop_matrix;
    let with = DeviceProfile::discrete_gpu();
    let cases = coop_matrix();
    let mut reached = std::collections::BTreeSet::new();
    for case in &cases {
        // (16-row calls take the multi-row gemv by default: kept off here.)
        let plan = big().plan(&case.shape.call(), &no_gemvr()).unwrap();
        assert_eq!(plan.variant, case.expect, "{}", case.name);
        reached.insert(plan.variant.clone());
        let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
        let rows = case.shape.rows();
        // (rows, columns) of a workgroup's tile: 32 x 128, 64 x 128, then 128 x 64.
        let tile = match rows {
            0..=32 => (32, 128),
            33..=64 => (64, 128),
            _ => (128, 64),
        };
        assert_eq!(
            main.dispatch,
            [
                case.shape.n.div_ceil(tile.1) as u32,
                rows.div_ceil(tile.0) as u32,
                1
            ],
            "{}",
            case.name
        );
        assert_eq!(main.workgroup_size, [256, 1, 1]);
        assert!(main
            .wgsl
            .starts_with("enable f16;\nenable wgpu_cooperative_matrix;\n"));
        // The tile tunables: subgroups along the rows (2 or 4) x row blocks per subgroup (1 or 2).
        for (wm, rb) in [(2, 1), (2, 2), (4, 1), (4, 2)] {
            let t = tunables(&[
                ("COOP_WARPS_M", wm),
                ("COOP_ROW_BLOCKS", rb),
                ("GEMV_MAX_ROWS", 1),
                ("MMA_MAX_ROWS", 1),
            ]);
            let p = big().plan(&case.shape.call(), &t).unwrap();
            assert_eq!(p.variant, case.expect, "{} {wm}x{rb}", case.name);
            let main = p.passes.iter().find(|p| p.id == "main").unwrap();
            let (tm, tn) = (16 * wm as usize * rb as usize, 256 / wm as usize);
            assert_eq!(
                main.dispatch,
                [
                    case.shape.n.div_ceil(tn) as u32,
                    rows.div_ceil(tm) as u32,
                    1
                ]
            );
        }
        // A value the coop template cannot render is refused up front, naming the tunable.
        let bad = tunables(&[
            ("COOP_WARPS_M", 3),
            ("GEMV_MAX_ROWS", 1),
            ("MMA_MAX_ROWS", 1),
        ]);
        let e = big()
            .plan(&case.shape.call(), &bad)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("COOP_WARPS_M") && e.contains("one of [0, 2, 4]"),
            "{e}"
        );
        // Without either feature the same call takes the register-tiled variant.
        let tiled = case.expect.replacen("coop_", "tiled_", 1);
        for missing in ["coop-f16-16x16x16-f32", "subgroup-size-32"] {
            let p = Planner::project(with.without_feature(missing))
                .plan(&case.shape.call(), &no_gemvr())
                .unwrap();
            assert_eq!(p.variant, tiled, "{} without {missing}", case.name);
        }
        // Too little workgroup storage: tiled too.
        let p = Planner::project(with.with_limit("maxComputeWorkgroupStorageSize", 24832))
            .plan(&case.shape.call(), &no_gemvr())
            .unwrap();
        assert_eq!(
            p.variant, tiled,
            "{} with the tiled kernel's storage",
            case.name
        );
        // f32 models take the same variant in its float32 form (COOP_F32, on by default): split
        // f16 tiles, twice the workgroup storage, so 4 subgroups along the rows (64 x 64 tiles,
        // 128 x 64 past 64 rows) to fit 48 KiB.
        let mut f32_case = case.clone();
        f32_case.shape.dtype = DType::F32;
        let p = big().plan(&f32_case.shape.call(), &no_gemvr()).unwrap();
        assert_eq!(p.variant, case.expect, "{} f32", case.name);
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        let f32_rows = if rows > 64 { 128 } else { 64 };
        assert_eq!(
            main.dispatch,
            [
                case.shape.n.div_ceil(64) as u32,
                rows.div_ceil(f32_rows) as u32,
                1
            ],
            "{} f32",
            case.name
        );
        assert!(main
            .wgsl
            .starts_with("enable f16;\nenable wgpu_cooperative_matrix;\n"));
        assert!(main.wgsl.contains("var<workgroup> a_lo"), "{}", case.name);
        // 2 subgroups along the rows (tiles of 128 columns) need more than 48 KiB in that
        // form: the tiled variant.
        let two = tunables(&[
            ("COOP_WARPS_M", 2),
            ("GEMV_MAX_ROWS", 1),
            ("MMA_MAX_ROWS", 1),
        ]);
        let p = big().plan(&f32_case.shape.call(), &two).unwrap();
        assert_eq!(p.variant, tiled, "{} f32, COOP_WARPS_M=2", case.name);
        // f32 models with COOP_F32=0, and fewer than 16 rows, take what the project takes
        // without cooperative matrices: the multi-row gemv where rows and K suit it, else the
        // tiled variant.
        let without_coop = |edit: &dyn Fn(&mut MlpShape), t: &Tunables| {
            let mut c = case.clone();
            edit(&mut c.shape);
            let want = nbits_mlp_core::coverage::project_expect(&c);
            assert!(want == tiled || want.starts_with("gemvr_"), "{want}");
            assert_eq!(big().plan(&c.shape.call(), t).unwrap().variant, want);
        };
        let no_f32 = tunables(&[("COOP_F32", 0)]);
        without_coop(&|s| s.dtype = DType::F32, &no_f32);
        without_coop(&|s| s.lead = vec![15], &tunables(&[("MMA_MAX_ROWS", 1)]));
    }
    assert_eq!(reached.len(), 16, "{reached:?}");
}

/// The overlay's `mma_*` variants (8 rows or more of an f16 model on tensor cores, one pass over
/// the weights for all rows of a tile): every case of the coverage matrix takes its variant on a
/// device with cooperative matrices, one workgroup per tile of 16 x (1-4 row blocks) rows
/// (dispatch x) by 16 columns per subgroup (dispatch y; 8 subgroups for one row block, else 4:
/// workgroup storage); `MMA_ROW_BLOCKS` sets the tile's row blocks; K in
/// slices (`MMA_SPLIT_K`) takes `mma_split_*` with the reduce pass; without either feature,
/// with too little workgroup storage, for f32 models, below `MMA_MIN_ROWS` (8), past
/// `MMA_MAX_ROWS` (0: no limit) or with K not a multiple of 8 the others run.
#[test]
fn mma_variants_need_the_cooperative_matrix_feature() {
    use nbits_mlp_core::coverage::{mma_matrix, project_expect};
    let with = DeviceProfile::discrete_gpu();
    let mut reached = std::collections::BTreeSet::new();
    let not_mma = |p: &nbits_mlp_core::Plan, what: &str| {
        assert!(!p.variant.starts_with("mma"), "{what}: {}", p.variant);
    };
    for case in mma_matrix() {
        let s = &case.shape;
        let rows = s.rows();
        let plan = big().plan(&s.call(), &no_mmap(&[])).unwrap();
        assert_eq!(plan.variant, case.expect, "{}", case.name);
        reached.insert(plan.variant.clone());
        let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
        // Tiles of 16-64 rows; 8 subgroups (128 columns) for 16-row tiles, else 4 (64).
        let tm = 16 * rows.div_ceil(16).min(4);
        let sgs = if tm == 16 { 8 } else { 4 };
        assert_eq!(
            main.dispatch,
            [rows.div_ceil(tm) as u32, s.n.div_ceil(16 * sgs) as u32, 1],
            "{}",
            case.name
        );
        assert_eq!(main.workgroup_size, [32 * sgs as u32, 1, 1]);
        assert!(main
            .wgsl
            .starts_with("enable f16;\nenable wgpu_cooperative_matrix;\n"));
        assert_eq!(plan.passes.len(), if s.norm { 2 } else { 1 });
        for rb in [1usize, 2, 4] {
            let t = no_mmap(&[("MMA_ROW_BLOCKS", rb as i64)]);
            let p = big().plan(&s.call(), &t).unwrap();
            assert_eq!(p.variant, case.expect, "{} row blocks {rb}", case.name);
            let main = p.passes.iter().find(|p| p.id == "main").unwrap();
            assert_eq!(main.dispatch[0], rows.div_ceil(16 * rb) as u32);
        }
        // K in slices of whole 64-code chunks: 3 asked, at most one per chunk.
        let split = big()
            .plan(&s.call(), &no_mmap(&[("MMA_SPLIT_K", 3)]))
            .unwrap();
        assert_eq!(
            split.variant,
            case.expect.replacen("mma_", "mma_split_", 1),
            "{}",
            case.name
        );
        reached.insert(split.variant.clone());
        let chunks = s.k.div_ceil(64);
        let slices = chunks.div_ceil(chunks.div_ceil(3.min(chunks)));
        let main = split.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(main.dispatch[2], slices as u32, "{}", case.name);
        assert!(split.passes.iter().any(|p| p.id == "reduce"));
        // Elsewhere the others: without either feature, or the workgroup storage, what the
        // project takes without cooperative matrices (the multi-row gemv or the tiled kernel).
        let want = project_expect(&case);
        for missing in ["coop-f16-16x16x16-f32", "subgroup-size-32"] {
            let p = Planner::project(with.without_feature(missing))
                .plan(&s.call(), &no_mmap(&[]))
                .unwrap();
            assert_eq!(p.variant, want, "{} without {missing}", case.name);
        }
        let p = Planner::project(with.with_limit("maxComputeWorkgroupStorageSize", 24000))
            .plan(&s.call(), &no_mmap(&[]))
            .unwrap();
        not_mma(&p, &case.name);
        let p = big()
            .plan(&s.call(), &no_mmap(&[("MMA_MAX_ROWS", 1)]))
            .unwrap();
        not_mma(&p, &case.name);
        let mut f32_shape = s.clone();
        f32_shape.dtype = DType::F32;
        not_mma(
            &big().plan(&f32_shape.call(), &no_mmap(&[])).unwrap(),
            "f32",
        );
        let mut odd_k = s.clone();
        odd_k.k += 4;
        not_mma(
            &big().plan(&odd_k.call(), &no_mmap(&[])).unwrap(),
            "K % 8 == 4",
        );
        let mut few = s.clone();
        for rows in [1, 7] {
            few.lead = vec![rows];
            not_mma(
                &big().plan(&few.call(), &no_mmap(&[])).unwrap(),
                "rows 1, 7",
            );
        }
        few.lead = vec![2];
        let p = big()
            .plan(&few.call(), &no_mmap(&[("MMA_MIN_ROWS", 2)]))
            .unwrap();
        assert_eq!(p.variant, case.expect, "{} at 2 rows", case.name);
    }
    assert_eq!(reached.len(), 32, "{reached:?}");
    // Many rows: tiles of 64 rows along x, 64 columns along y (448 tiles for Llama-3.1-8B at
    // 65 rows: K in 3 slices for ~1024 workgroups); MMA_MAX_ROWS caps the rows.
    let mut s = MlpShape::new(4096, 14336, 65);
    s.dtype = DType::F16;
    assert!(big()
        .plan(&s.call(), &no_mmap(&[("MMA_MAX_ROWS", 64)]))
        .unwrap()
        .variant
        .starts_with("coop_"));
    let p = big().plan(&s.call(), &no_mmap(&[])).unwrap();
    assert_eq!(p.variant, "mma_split_nogb_noub");
    let main = p.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(main.dispatch, [2, 224, 3]);
    assert_eq!(main.workgroup_size, [128, 1, 1]);
    // Llama-3.1-8B at 16 rows: 112 column ranges, K split to fill the GPU (1024 workgroups
    // wanted, at most one slice per 4 chunks of K): 10 slices of 7 chunks.
    s.lead = vec![16];
    let p = big().plan(&s.call(), &no_mmap(&[])).unwrap();
    assert_eq!(p.variant, "mma_split_nogb_noub");
    let main = p.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(main.dispatch, [1, 112, 10]);
}

/// The overlay's `mmap_*` variants (the `mma` kernel on prepared weights): every case of their
/// coverage matrix takes its variant on a device with cooperative matrices (8 to 32 rows by
/// default), its weight bindings are the caller's weights in the prepared `mma-tiles` layouts
/// with the op's geometry and the prepared sizes (N and K padded to the 16 x 64 tiles), and
/// elsewhere the others run: past `MMAP_MAX_ROWS` (`mma_*`), with it 0, past `MMA_MAX_ROWS`,
/// below `MMA_MIN_ROWS`, for f32 models, without either feature.
#[test]
fn mmap_variants_read_prepared_weights() {
    use nbits_mlp_core::coverage::{mmap_matrix, project_expect};
    use nbits_mlp_core::layout::{PreparedLayout, PreparedWeights};
    use nbits_mlp_core::plan::Resource;
    let mut reached = std::collections::BTreeSet::new();
    for case in mmap_matrix() {
        let s = &case.shape;
        let plan = big().plan(&s.call(), &none()).unwrap();
        let whole = big()
            .plan(&s.call(), &tunables(&[("MMAP_SPLIT_K", 1)]))
            .unwrap();
        assert_eq!(whole.variant, case.expect, "{}", case.name);
        assert!(
            plan.variant.starts_with("mmap_"),
            "{}: {}",
            case.name,
            plan.variant
        );
        reached.insert(whole.variant.clone());
        let split = big()
            .plan(&s.call(), &tunables(&[("MMAP_SPLIT_K", 3)]))
            .unwrap();
        assert_eq!(
            split.variant,
            case.expect.replacen("mmap_", "mmap_split_", 1)
        );
        reached.insert(split.variant.clone());
        let main = whole.passes.iter().find(|p| p.id == "main").unwrap();
        let mut prepared = Vec::new();
        for b in &main.bindings {
            if let Resource::Prepared { index, weights, .. } = &b.resource {
                let codes = weights.layout == PreparedLayout::MmaTileCodes;
                assert_eq!(codes, [3, 6].contains(index), "{}: {}", case.name, b.name);
                let want = PreparedWeights {
                    layout: weights.layout,
                    n: s.n,
                    k: s.k,
                    bits: s.bits as u32,
                    block_size: s.block_size,
                    elem_bytes: if codes { 1 } else { 2 },
                };
                assert_eq!(*weights, want, "{}", case.name);
                assert_eq!(b.bytes, want.prepared_bytes() as u64);
                prepared.push(*index);
            } else {
                assert!(
                    !matches!(
                        b.resource,
                        Resource::Input {
                            index: 3 | 4 | 6 | 7,
                            ..
                        }
                    ),
                    "{}: {} binds the original weights",
                    case.name,
                    b.name
                );
            }
        }
        prepared.sort();
        assert_eq!(prepared, [3, 4, 6, 7], "{}", case.name);
        assert!(main.wgsl.contains("Prepared layout"), "{}", case.name);
        // Elsewhere the others.
        let not_mmap = |t: &Tunables, what: &str| {
            let p = big().plan(&s.call(), t).unwrap();
            assert!(
                !p.variant.starts_with("mmap"),
                "{} {what}: {}",
                case.name,
                p.variant
            );
        };
        not_mmap(&tunables(&[("MMAP_MAX_ROWS", 0)]), "MMAP_MAX_ROWS=0");
        not_mmap(&tunables(&[("MMA_MAX_ROWS", 1)]), "MMA_MAX_ROWS=1");
        not_mmap(&tunables(&[("MMA_MIN_ROWS", 64)]), "MMA_MIN_ROWS=64");
        for missing in ["coop-f16-16x16x16-f32", "subgroup-size-32"] {
            let p = Planner::project(DeviceProfile::discrete_gpu().without_feature(missing))
                .plan(&s.call(), &none())
                .unwrap();
            // The family the project takes without cooperative matrices (split or not).
            let family = project_expect(&case);
            let family = family.split('_').next().unwrap();
            assert!(
                p.variant.starts_with(family),
                "{} without {missing}: {}",
                case.name,
                p.variant
            );
        }
        let mut f32_shape = s.clone();
        f32_shape.dtype = DType::F32;
        let p = big().plan(&f32_shape.call(), &none()).unwrap();
        assert!(!p.variant.starts_with("mmap"), "f32: {}", p.variant);
    }
    assert_eq!(reached.len(), 32, "{reached:?}");
    // Llama-3.1-8B: 8-32 rows on prepared weights, one slice of K (112 column ranges fill the
    // GPU at 16 rows); 33 rows and more the mma kernel on the original layout.
    let mut s = MlpShape::new(4096, 14336, 16);
    s.dtype = DType::F16;
    for (rows, want) in [
        (7, "gemvr_plain_nogb_noub"),
        (8, "mmap_nogb_noub"),
        (16, "mmap_nogb_noub"),
        (32, "mmap_nogb_noub"),
        (33, "mma_split_nogb_noub"),
    ] {
        s.lead = vec![rows];
        let p = big().plan(&s.call(), &none()).unwrap();
        assert_eq!(p.variant, want, "rows {rows}");
    }
    s.lead = vec![16];
    let p = big().plan(&s.call(), &none()).unwrap();
    let main = p.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(main.dispatch, [1, 112, 1]);
    // A small model: few column ranges, so K is split (128 workgroups wanted).
    let mut s = MlpShape::new(896, 4864, 16);
    s.dtype = DType::F16;
    let p = big().plan(&s.call(), &none()).unwrap();
    assert_eq!(p.variant, "mmap_split_nogb_noub");
    let main = p.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(main.dispatch, [1, 38, 3]);
}
