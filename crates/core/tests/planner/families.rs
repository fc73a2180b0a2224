//! Planner tests of the tensor-core families (coop, mma, mmap): each needs its device feature,
//! and is chosen where its `when` rules say.

use crate::{big, no_gemvp, no_gemvr, no_mmap, none, tunables};
use nbits_mlp_core::coverage::WaveLimits;
use nbits_mlp_core::{DType, DeviceProfile, MlpShape, Planner, Tunables};

/// The discrete GPU profile's one-wave limits (1024 invocations, 48 KiB) with `cores` shader
/// cores (the H200's 132).
fn discrete_wave(cores: usize) -> WaveLimits {
    WaveLimits::of(&DeviceProfile::discrete_gpu(), cores)
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
            let t = no_gemvp(&[
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
        // form: the tiled variant (the few-rows kernel's float32 form, which takes f32 calls
        // of up to 64 rows by default, kept off).
        let two = no_gemvp(&[
            ("COOP_WARPS_M", 2),
            ("GEMV_MAX_ROWS", 1),
            ("MMA_MAX_ROWS", 1),
        ]);
        let p = big().plan(&f32_case.shape.call(), &two).unwrap();
        assert_eq!(p.variant, tiled, "{} f32, COOP_WARPS_M=2", case.name);
        // f32 models with COOP_F32=0, and fewer than 16 rows, take what the project takes
        // without cooperative matrices: the few-rows kernel on prepared weights (f32: its
        // float32 form, up to 64 rows) or the multi-row gemv where rows and K suit them, else
        // the tiled variant.
        let without_coop = |edit: &dyn Fn(&mut MlpShape), t: &Tunables| {
            let mut c = case.clone();
            edit(&mut c.shape);
            let want = nbits_mlp_core::coverage::project_expect(&c);
            assert!(
                want == tiled || want.starts_with("gemvr_") || want.starts_with("gemvp_"),
                "{want}"
            );
            assert_eq!(big().plan(&c.shape.call(), t).unwrap().variant, want);
        };
        let no_f32 = tunables(&[("COOP_F32", 0), ("MMA_F32_MAX_ROWS", 0)]);
        without_coop(&|s| s.dtype = DType::F32, &no_f32);
        without_coop(&|s| s.lead = vec![15], &tunables(&[("MMA_MAX_ROWS", 1)]));
    }
    assert_eq!(reached.len(), 16, "{reached:?}");
}

/// The overlay's `mma_*` variants (9 rows or more of an f16 model on tensor cores, one pass over
/// the weights for all rows of a tile): every case of the coverage matrix takes its variant on a
/// device with cooperative matrices, one workgroup per tile of 16 x (1-4 row blocks) rows
/// (dispatch x) by 16 columns per subgroup (dispatch y; for one row block 7 subgroups where that
/// makes 128 column ranges or more, else 8; 4 for more row blocks: workgroup storage);
/// `MMA_ROW_BLOCKS` sets the tile's row blocks; K in
/// slices (`MMA_SPLIT_K`) takes `mma_split_*` with the reduce pass; without either feature,
/// with too little workgroup storage, below `MMA_MIN_ROWS` (7), past `MMA_MAX_ROWS` (0: no
/// limit) or with K not a multiple of 8 the others run. f32 models take none by default
/// (`MMA_F32_MAX_ROWS` 0: the few-rows kernel's float32 form takes them); opened, f32 calls of
/// `MMA_F32_MIN_ROWS` (16) to `MMA_F32_MAX_ROWS` rows take the same variants in the split-f16
/// form: tiles of one 16-row block, 4 subgroups (twice the slab and tile storage); other f32
/// calls the others.
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
        t1_norm_row(&plan, s, &no_mmap(&[]), &case.name);
        reached.insert(plan.variant.clone());
        let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
        // Tiles of 16-64 rows; 8 subgroups (128 columns) for 16-row tiles (7 from 128 column
        // ranges of 112, wider than any case here), else 4 (64).
        let tm = 16 * rows.div_ceil(16).min(4);
        assert!(s.n.div_ceil(112) < 128, "{}", case.name);
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
        t1_norm_row(&split, s, &no_mmap(&[("MMA_SPLIT_K", 3)]), &case.name);
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
        // By default this kernel's float32 form takes f32 calls from `MMA_F32_MIN_ROWS` (9) rows
        // on (`MMA_F32_MAX_ROWS` no cap), the few-rows kernel's float32 form those below (all of
        // these have 2-64 rows and K a multiple of 8), and all of them with the form closed.
        assert!((2..=64).contains(&rows), "{}", case.name);
        let p = big().plan(&f32_shape.call(), &no_mmap(&[])).unwrap();
        if rows >= 9 {
            assert!(p.variant.starts_with("mma_"), "f32: {}", p.variant);
        } else {
            assert!(p.variant.starts_with("gemvp_f32_"), "f32: {}", p.variant);
        }
        let p = big()
            .plan(&f32_shape.call(), &no_mmap(&[("MMA_F32_MAX_ROWS", 0)]))
            .unwrap();
        assert!(
            p.variant.starts_with("gemvp_f32_"),
            "f32, closed: {}",
            p.variant
        );
        not_mma(
            &big()
                .plan(&f32_shape.call(), &no_mmap(&[("MMA_F32_MAX_ROWS", 0)]))
                .unwrap(),
            "f32, MMA_F32_MAX_ROWS=0",
        );
        mma_f32_form(&f32_shape, &case.expect, false);
        let mut odd_k = s.clone();
        odd_k.k += 4;
        not_mma(
            &big().plan(&odd_k.call(), &no_mmap(&[])).unwrap(),
            "K % 8 == 4",
        );
        let mut few = s.clone();
        for rows in [1, 6] {
            few.lead = vec![rows];
            not_mma(
                &big().plan(&few.call(), &no_mmap(&[])).unwrap(),
                "rows 1, 6",
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
    // Llama-3.1-8B at 16 rows: 128 column ranges (7 subgroups); 64-256 tiles fill the GPU about
    // once, so K stays whole (PERF row 108). With N 6144 (48 tiles of 128 columns) K is split to fill it:
    // 1024 workgroups wanted (22 slices), at most one slice per 4 chunks (16 of 64 chunks).
    s.lead = vec![16];
    let p = big().plan(&s.call(), &no_mmap(&[])).unwrap();
    assert_eq!(p.variant, "mma_nogb_noub");
    let main = p.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(main.dispatch, [1, 128, 1]);
    let mut few = s.clone();
    few.n = 6144;
    let p = big().plan(&few.call(), &no_mmap(&[])).unwrap();
    assert_eq!(p.variant, "mma_split_nogb_noub");
    let main = p.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(main.dispatch, [1, 48, 16]);
}

/// The norm row of a tensor-core plan (families `mma`, `mmap`, `mmal`: flag `t1Row`), for a
/// call `s` planned with `t`: the RMSNorm pass writes `normedA` in the call's type T1 (float16,
/// 2 bytes an element, for f16 calls: `f16(...)` of the f32 value; float32 for f32 calls, as
/// before), and the main pass reads it as T1's vec4, so its WGSL is the plain form's (same call
/// without the norm inputs, same tunables) with `a` renamed `normed`: no conversion when staged.
/// Plain calls: nothing to check.
fn t1_norm_row(plan: &nbits_mlp_core::Plan, s: &MlpShape, t: &Tunables, what: &str) {
    if !s.norm {
        assert!(
            plan.intermediates.iter().all(|i| i.id != "normedA"),
            "{what}: {:?}",
            plan.intermediates
        );
        return;
    }
    let (scalar, size) = match s.dtype {
        DType::F16 => ("f16", 2),
        _ => ("f32", 4),
    };
    let row = plan
        .intermediates
        .iter()
        .find(|i| i.id == "normedA")
        .expect("the norm row");
    assert_eq!(row.dtype, s.dtype, "{what}");
    assert_eq!(row.bytes, (size * s.rows() * s.k) as u64, "{what}");
    let normed = |pass: &nbits_mlp_core::plan::PassPlan| {
        let b = pass
            .bindings
            .iter()
            .find(|b| b.name == "normed")
            .unwrap_or_else(|| panic!("{what}: pass `{}` binds no `normed`", pass.id));
        assert_eq!(
            b.bytes,
            row.bytes.div_ceil(4) * 4,
            "{what}: pass `{}`",
            pass.id
        );
        b.element_type.clone()
    };
    let norm = plan.passes.iter().find(|p| p.id == "norm").unwrap();
    assert_eq!(normed(norm), scalar, "{what}: the norm pass's row");
    // The pass writes each value (held in a register `s<j>`, or read again with `load_s`) times
    // 1/rms and the scale, rounded to f16 for an f16 row and not converted for an f32 one.
    let writes = norm
        .wgsl
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("normed[base + k] = "))
        .collect::<Vec<_>>();
    assert!(
        !writes.is_empty(),
        "{what}: no write of `normed` in\n{}",
        norm.wgsl
    );
    for w in &writes {
        let value = w.trim_start_matches("normed[base + k] = ");
        let ok = if scalar == "f16" {
            value.starts_with("f16(") && value.ends_with(" * inv * f32(norm_scale[k]));")
        } else {
            !value.contains("f16") && value.ends_with(" * inv * f32(norm_scale[k]);")
        };
        assert!(ok, "{what}: the norm pass writes `{w}` for a {scalar} row");
    }
    let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(
        normed(main),
        format!("vec4<{scalar}>"),
        "{what}: the main pass's row"
    );
    let mut plain_shape = s.clone();
    (plain_shape.norm, plain_shape.skip, plain_shape.residual) = (false, false, false);
    let plain = big().plan(&plain_shape.call(), t).unwrap();
    let plain_main = plain.passes.iter().find(|p| p.id == "main").unwrap();
    let form = match (s.skip, s.residual) {
        (_, true) => "skipsum_",
        (true, false) => "skip_",
        (false, false) => "norm_",
    };
    assert_eq!(plan.variant.replacen(form, "", 1), plain.variant, "{what}");
    assert_eq!(main.dispatch, plain_main.dispatch, "{what}");
    assert!(
        main.wgsl.replace("normed", "a") == *plain_main.wgsl,
        "{what}: the norm form's main pass is not the plain form's reading `normed`:\n{}",
        main.wgsl
    );
}

/// An f32 call's plan with the float32 form of the `mma` template open (`MMA_F32_MIN_ROWS` 1,
/// `MMA_F32_MAX_ROWS` at the call's rows, K whole; the prepared-weights kernel off unless
/// `prepared`): variant `expect`, tiles of one 16-row block up to 16 rows and of two above (the
/// rows shared evenly on prepared weights), 7 subgroups staged together (112 columns: the
/// discrete profile's 48 KiB hold them), the form's activation tiles and unit flush in its WGSL
/// and no f16 scales, A bound as `vec4<f32>`; with 4 subgroups and 2 row blocks, gate and up in
/// turns where the tiles are many (`MMA_SEQ_MIN_TILES` 0); closed one row below the call's rows
/// or above them, or with 8 subgroups of 2 row blocks (more than 48 KiB), the others run.
fn mma_f32_form(s: &MlpShape, expect: &str, prepared: bool) {
    assert_eq!(s.dtype, DType::F32);
    let rows = s.rows();
    let open = |extra: &[(&str, i64)]| {
        let mut t = tunables(extra);
        t.insert("MMA_F32_MIN_ROWS".into(), 1);
        t.insert("MMA_F32_MAX_ROWS".into(), rows as i64);
        t.insert("MMA_SPLIT_K".into(), 1);
        t.insert("MMAP_SPLIT_K".into(), 1);
        if !prepared {
            t.insert("MMAP_MAX_ROWS".into(), 0);
        }
        t
    };
    let p = big().plan(&s.call(), &open(&[])).unwrap();
    assert_eq!(p.variant, expect, "f32 {s:?}");
    t1_norm_row(&p, s, &open(&[]), &format!("f32 {s:?}"));
    let main = p.passes.iter().find(|p| p.id == "main").unwrap();
    // (prepared weights: 17-32 rows in two 16-row tiles where one 32-row tile would make fewer
    // than `MMA_SEQ_MIN_TILES` tiles, as for f16 calls)
    let tile_rows = if rows <= 16 || (prepared && rows <= 32 && s.n.div_ceil(64) < 144) {
        16
    } else if prepared {
        rows.div_ceil(rows.div_ceil(32)).div_ceil(16) * 16
    } else {
        32
    };
    assert_eq!(
        main.dispatch[..2],
        [rows.div_ceil(tile_rows) as u32, s.n.div_ceil(112) as u32],
        "f32 {s:?}"
    );
    assert_eq!(main.workgroup_size, [224, 1, 1]);
    for part in [
        "var<workgroup> act_lo",
        "fn hi4(",
        "czero",
        " * RLOH;",
        // The unit's sums stored transposed, read back by permuted lanes (PERF row 241).
        "coopStoreT(acc_g0, &cscr[scr], 4u);",
        "let fc = 4u * (lane / 8u)",
    ] {
        assert!(main.wgsl.contains(part), "f32 {s:?}: no `{part}`");
    }
    assert!(!main.wgsl.contains("slab_lo"), "f32 {s:?}: one slab");
    assert!(!main.wgsl.contains("accx"), "f32 {s:?}: one accumulator");
    if !s.norm {
        assert!(
            main.wgsl.contains("var<storage, read> a: array<vec4<f32>>"),
            "f32 {s:?}: A as vec4<f32>"
        );
    }
    // In turns with 4 subgroups and 2 row blocks: each half flushes its own matrix.
    let t = open(&[
        ("MMA_SUBGROUPS", 4),
        ("MMA_ROW_BLOCKS", 2),
        ("MMA_SEQ_MIN_TILES", 0),
    ]);
    let turns = big().plan(&s.call(), &t).unwrap();
    assert_eq!(turns.variant, expect, "f32 {s:?} in turns");
    let main = turns.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(main.workgroup_size, [128, 1, 1]);
    assert!(
        main.wgsl.contains("coopStoreT(acc_u1, &cscr[scr], 4u);")
            && main
                .wgsl
                .contains("acc_u1 = coopMultiplyAdd(wl1_0, xl0_1, acc_u1);")
            && main.wgsl.contains("let xl0_1 = ")
            && main.wgsl.contains("subgroupBarrier();"),
        "f32 {s:?} in turns"
    );
    let family = if prepared { "mmap" } else { "mma" };
    let not_it = |t: &Tunables, what: &str| {
        let p = big().plan(&s.call(), t).unwrap();
        assert!(
            !p.variant.starts_with(family),
            "f32 {s:?} {what}: {}",
            p.variant
        );
    };
    let mut closed = open(&[]);
    closed.insert("MMA_F32_MAX_ROWS".into(), rows as i64 - 1);
    not_it(&closed, "MMA_F32_MAX_ROWS below the rows");
    let mut closed = open(&[]);
    closed.insert("MMA_F32_MIN_ROWS".into(), rows as i64 + 1);
    not_it(&closed, "MMA_F32_MIN_ROWS above the rows");
    // (Staged together: gate and up apart, `MMA_F32_SEPARATE`'s rule at 33-48 rows, runs in
    // turns, whose 16-row slabs fit.)
    not_it(
        &open(&[
            ("MMA_ROW_BLOCKS", 2),
            ("MMA_SUBGROUPS", 8),
            ("MMA_SEQ_MIN_TILES", 65535),
            ("MMA_F32_SEPARATE", 1),
        ]),
        "8 subgroups of 2 row blocks",
    );
}

/// The overlay's `mmap_*` variants (the `mma` kernel on prepared weights): every case of their
/// coverage matrix takes its variant on a device with cooperative matrices (9 to 32 rows by
/// default), its weight bindings are the caller's weights in the prepared `mma-tiles` layouts
/// with the op's geometry and the prepared sizes (N and K padded to the 16 x 64 tiles), and
/// elsewhere the others run: past `MMAP_MAX_ROWS` (`mma_*`), with it 0, past `MMA_MAX_ROWS`,
/// below `MMA_MIN_ROWS`, without either feature. f32 calls of `MMA_F32_MIN_ROWS` (9) rows or more
/// (`MMA_F32_MAX_ROWS`, no cap) take the same variants in the float32 form (f32 scales copied),
/// none with the form closed (`MMA_F32_MAX_ROWS` 0).
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
        t1_norm_row(&whole, s, &tunables(&[("MMAP_SPLIT_K", 1)]), &case.name);
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
                    bits: s.bits,
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
        assert_eq!(
            p.variant.starts_with("mmap"),
            s.rows() >= 9,
            "f32, default: {}",
            p.variant
        );
        let p = big()
            .plan(&f32_shape.call(), &tunables(&[("MMA_F32_MAX_ROWS", 0)]))
            .unwrap();
        assert!(!p.variant.starts_with("mmap"), "f32, off: {}", p.variant);
        // Opened, the float32 form on prepared weights: the scales' copy has 4-byte elements.
        mma_f32_form(&f32_shape, &case.expect, true);
        let t = tunables(&[
            ("MMA_F32_MIN_ROWS", 1),
            ("MMA_F32_MAX_ROWS", 65535),
            ("MMAP_SPLIT_K", 1),
        ]);
        let p = big().plan(&f32_shape.call(), &t).unwrap();
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        let scales: Vec<usize> = main
            .bindings
            .iter()
            .filter_map(|b| match &b.resource {
                Resource::Prepared { weights, .. } if !weights.layout.is_codes() => {
                    Some(weights.elem_bytes)
                }
                _ => None,
            })
            .collect();
        assert_eq!(scales, [4, 4], "{} f32", case.name);
    }
    assert_eq!(reached.len(), 32, "{reached:?}");
    // Llama-3.1-8B: 2-6 rows on prepared weights through `gemvp`, 7 and more through `mmap`, one
    // slice of K: 16-row tiles of 7 subgroups (128 column ranges) up to 16 rows; then tiles of 4
    // subgroups (224 column ranges) with gate and up in turns, of 32 rows at 17-32, up to 64 rows
    // above, the rows shared evenly by the fewest tiles (80 rows: two of 48).
    let mut s = MlpShape::new(4096, 14336, 16);
    s.dtype = DType::F16;
    for (rows, want) in [(2, "gemvp_plain_nogb_noub"), (6, "gemvp_plain_nogb_noub")] {
        s.lead = vec![rows];
        let p = big().plan(&s.call(), &none()).unwrap();
        assert_eq!(p.variant, want, "rows {rows}");
    }
    // (rows, dispatch, row blocks, in turns, chunks per activation block: ping-pong's 4 for
    // these 4-bit codes in turns)
    for (rows, dispatch, row_blocks, seq, block) in [
        (7, [1, 128, 1], 1, true, 4),
        (9, [1, 128, 1], 1, true, 4),
        (16, [1, 128, 1], 1, true, 4),
        (17, [1, 224, 1], 2, true, 0),
        (32, [1, 224, 1], 2, true, 0),
        (33, [1, 224, 1], 3, true, 0),
        (64, [1, 224, 1], 4, true, 0),
        (65, [2, 224, 1], 3, true, 0),
        (80, [2, 224, 1], 3, true, 0),
        (100, [2, 224, 1], 4, true, 0),
        (128, [2, 224, 1], 4, true, 0),
        (512, [8, 224, 1], 4, true, 0),
    ] {
        s.lead = vec![rows];
        let p = big().plan(&s.call(), &none()).unwrap();
        assert_eq!(p.variant, "mmap_nogb_noub", "rows {rows}");
        mma_tile(
            &p,
            dispatch,
            row_blocks,
            seq,
            block,
            &format!("Llama-8B, {rows} rows"),
        );
    }
    // Activation blocks: 16-row tiles of f16 calls (whole K or in slices), one chunk per request,
    // not stream-K, where the workgroup memory holds them; MMA_ACT_BLOCK sets the chunks per
    // block, 0 turns them off (gate and up together again, one shared chunk at a time).
    s.lead = vec![16];
    for (t, block, seq) in [
        (tunables(&[("MMA_ACT_BLOCK", 3)]), 3, true),
        (tunables(&[("MMA_ACT_BLOCK", 0)]), 0, false),
        (tunables(&[("MMA_FETCH_GROUP", 2)]), 0, false),
        (
            tunables(&[
                ("MMAP_STREAM_K", 2),
                ("SHADER_CORES", 64),
                ("MMA_SK_PER_CORE", 1),
            ]),
            0,
            false,
        ),
    ] {
        let p = big().plan(&s.call(), &t).unwrap();
        assert!(p.variant.starts_with("mmap_"), "{t:?}: {}", p.variant);
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(
            main.context["mmaActBlock"],
            serde_json::json!(block),
            "{t:?}"
        );
        assert_eq!(main.context["mmaSeq"], serde_json::json!(seq), "{t:?}");
        assert_eq!(main.wgsl.contains("const LDA: u32"), block > 0, "{t:?}");
    }
    // ... and the blocks fit the workgroup memory or are not taken: 7 subgroups in turns take
    // 7 x 3328 bytes, the block of 8 chunks 16 x 1040 (39 936 in all).
    for (storage, block) in [(39936, 8), (39935, 0)] {
        let p = Planner::project(
            DeviceProfile::discrete_gpu().with_limit("maxComputeWorkgroupStorageSize", storage),
        )
        .plan(&s.call(), &none())
        .unwrap();
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        let got = main.context.get("mmaActBlock").and_then(|v| v.as_i64());
        assert_eq!(got.unwrap_or(0), block, "{storage}: {}", p.variant);
    }
    // f32 calls (the float32 form) take theirs from `MMA_F32_ACT_BLOCK`, not this tunable
    // (`mmap_f32_act_blocks_where_measured_and_fitting`); none on the op's layout (`mma`, which
    // keeps codes in the slab's order).
    let mut f = s.clone();
    f.dtype = DType::F32;
    for (t, block) in [
        (tunables(&[("MMA_ACT_BLOCK", 2)]), 4),
        (
            tunables(&[("MMA_F32_ACT_BLOCK", 0), ("MMA_ACT_BLOCK", 8)]),
            0,
        ),
    ] {
        let p = big().plan(&f.call(), &t).unwrap();
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(
            main.context["mmaActBlock"],
            serde_json::json!(block),
            "f32 {t:?}"
        );
    }
    let p = big()
        .plan(&s.call(), &tunables(&[("MMAP_MAX_ROWS", 0)]))
        .unwrap();
    assert_eq!(p.variant, "mma_nogb_noub");
    let main = p.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(main.context["mmaActBlock"], serde_json::json!(0), "mma");
    // Qwen2.5-7B (N 18944) at 32 rows: 296 tiles of 2 row blocks, one activation tile.
    let mut q7 = MlpShape::new(3584, 18944, 32);
    q7.dtype = DType::F16;
    let p = big().plan(&q7.call(), &none()).unwrap();
    mma_tile(&p, [1, 296, 1], 2, true, 0, "Qwen2.5-7B, 32 rows");
    // 16-row tiles: 7 subgroups where that makes 128 column ranges or more (Qwen2.5-7B: 170,
    // Llama-70B: 256), else 8 and the K split fills the GPU (Llama-3.2-1B: 64 ranges, 2 slices);
    // MMA_SUBGROUPS picks any count from 4 to 8 (workgroups of 32 invocations each).
    for (k, n, subgroups, dispatch, variant) in [
        (3584, 18944, 7, [1, 170, 1], "mmap_nogb_noub"),
        (8192, 28672, 7, [1, 256, 1], "mmap_nogb_noub"),
        (2048, 8192, 8, [1, 64, 2], "mmap_split_nogb_noub"),
    ] {
        let mut m = MlpShape::new(k, n, 16);
        m.dtype = DType::F16;
        let p = big().plan(&m.call(), &none()).unwrap();
        assert_eq!(p.variant, variant, "{k}x{n}, 16 rows");
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(main.dispatch, dispatch, "{k}x{n}, 16 rows");
        assert_eq!(main.workgroup_size, [32 * subgroups, 1, 1], "{k}x{n}");
    }
    for subgroups in 4..=8u32 {
        s.lead = vec![12];
        let p = big()
            .plan(&s.call(), &tunables(&[("MMA_SUBGROUPS", subgroups as i64)]))
            .unwrap();
        assert_eq!(p.variant, "mmap_nogb_noub", "MMA_SUBGROUPS={subgroups}");
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(main.workgroup_size, [32 * subgroups, 1, 1]);
        assert_eq!(main.dispatch, [1, 14336u32.div_ceil(16 * subgroups), 1]);
    }
    // The slab's barriers in turns: workgroup barriers with MMA_SUBGROUP_BARRIER=0, on a device
    // without wgpu's subgroup barrier, or without subgroups (WGSL's subgroupBarrier needs both;
    // a plan with it failed validation there, found on the H200 in session 32); the rest of the
    // plan unchanged.
    s.lead = vec![32];
    let mut no_sgb = DeviceProfile::discrete_gpu();
    no_sgb.features.remove("wgpu-subgroup-barrier");
    let no_subgroups = DeviceProfile::discrete_gpu().without_feature("subgroups");
    let with = big().plan(&s.call(), &none()).unwrap();
    for (p, what) in [
        (
            Planner::project(no_subgroups.clone())
                .plan(&s.call(), &none())
                .unwrap(),
            "no subgroups",
        ),
        (
            big()
                .plan(&s.call(), &tunables(&[("MMA_SUBGROUP_BARRIER", 0)]))
                .unwrap(),
            "MMA_SUBGROUP_BARRIER=0",
        ),
        (
            Planner::project(no_sgb).plan(&s.call(), &none()).unwrap(),
            "no wgpu-subgroup-barrier",
        ),
    ] {
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        let main_with = with.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(p.variant, with.variant, "{what}");
        assert_eq!(main.dispatch, main_with.dispatch, "{what}");
        assert_eq!(main.context["mmaSeq"], serde_json::json!(true), "{what}");
        assert_eq!(
            main.context["mmaSubgroupBarrier"],
            serde_json::json!(false),
            "{what}"
        );
        assert!(!main.wgsl.contains("subgroupBarrier"), "{what}");
        assert_eq!(
            main.wgsl.to_string(),
            main_with
                .wgsl
                .replace("subgroupBarrier();", "workgroupBarrier();"),
            "{what}"
        );
    }
    // The float32 form's flush barriers likewise (16 rows, together).
    let mut f32_call = MlpShape {
        dtype: DType::F32,
        ..MlpShape::new(4096, 14336, 16)
    };
    for (t, profile, barrier) in [
        (none(), DeviceProfile::discrete_gpu(), true),
        (none(), no_subgroups, false),
        (
            tunables(&[("MMA_SUBGROUP_BARRIER", 0)]),
            DeviceProfile::discrete_gpu(),
            false,
        ),
    ] {
        f32_call.lead = vec![16];
        let p = Planner::project(profile)
            .plan(&f32_call.call(), &t)
            .unwrap();
        assert!(p.variant.starts_with("mmap_"), "{}", p.variant);
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(
            main.context["mmaSubgroupBarrier"],
            serde_json::json!(barrier)
        );
        assert_eq!(main.wgsl.contains("subgroupBarrier"), barrier);
    }
    // Where tiles of 2-4 row blocks number fewer than MMA_SEQ_MIN_TILES (144), gate and up stay
    // together and 17-32 rows take two 16-row tiles: Llama-3.2-1B (N 8192) at 32 and 64 rows;
    // Qwen2.5-0.5B (N 4864) at 128 rows makes 2 x 76 tiles, in turns.
    // (The 16-row tiles of Llama-3.2-1B at 32 rows take activation blocks, so in turns.)
    for (k, n, rows, dispatch, row_blocks, seq, block) in [
        (2048, 8192, 32, [2, 64, 1], 1, true, 8),
        (2048, 8192, 64, [1, 128, 1], 4, false, 0),
        (896, 4864, 128, [2, 76, 1], 4, true, 0),
    ] {
        let mut small = MlpShape::new(k, n, rows);
        small.dtype = DType::F16;
        let p = big().plan(&small.call(), &none()).unwrap();
        assert_eq!(p.variant, "mmap_nogb_noub", "{k}x{n}, {rows} rows");
        mma_tile(
            &p,
            dispatch,
            row_blocks,
            seq,
            block,
            &format!("{k}x{n}, {rows} rows"),
        );
        let never = big()
            .plan(
                &small.call(),
                &tunables(&[("MMA_SEQ_MIN_TILES", 65535), ("MMA_ACT_BLOCK", 0)]),
            )
            .unwrap();
        let main = never.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(main.context["mmaSeq"], serde_json::json!(false));
    }
    s.lead = vec![6];
    let p = big().plan(&s.call(), &no_gemvp(&[])).unwrap();
    assert_eq!(
        p.variant, "gemvr_plain_nogb_noub",
        "6 rows, GEMVP_MAX_ROWS=0"
    );
    let p = big()
        .plan(&s.call(), &tunables(&[("MMA_MIN_ROWS", 6)]))
        .unwrap();
    assert_eq!(p.variant, "mmap_nogb_noub", "6 rows, MMA_MIN_ROWS=6");
    s.lead = vec![16];
    let p = big().plan(&s.call(), &none()).unwrap();
    let main = p.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(main.dispatch, [1, 128, 1]);
    // Llama-3.1-8B in f32 (PERF rows 156-159, 283): by default the few-rows kernel's float32
    // form up to 8 rows, the weights-once kernel's float32 form on prepared weights from 9 rows
    // on (`MMA_F32_MIN_ROWS`; `MMA_F32_MAX_ROWS` no cap); capped at 384 rows (the default until
    // session 51), the coop kernel's float32 form past it; with that form closed
    // (`MMA_F32_MAX_ROWS` 0) the few-rows kernel up to 64 rows (`GEMVP_F32_MAX_ROWS`), then
    // coop; with the few-rows kernel off the gemv up to 8 rows; opened from 8 to 128 rows
    // (MMA_MIN_ROWS too), those rows.
    let mut s = MlpShape::new(4096, 14336, 16);
    s.dtype = DType::F32;
    let closed = tunables(&[("MMA_F32_MAX_ROWS", 0)]);
    let capped = tunables(&[("MMA_F32_MAX_ROWS", 384)]);
    let no_gemvp_f32 = tunables(&[("GEMVP_F32_MAX_ROWS", 0)]);
    let wide = tunables(&[
        ("MMA_MIN_ROWS", 8),
        ("MMA_F32_MIN_ROWS", 8),
        ("MMA_F32_MAX_ROWS", 128),
    ]);
    // (the few-rows kernel's float32 form, the gemv, the weights-once tile, coop)
    let (g, r, m, c) = ("gemvp_f32_", "gemvr_", "mmap_", "coop_");
    for (rows, default, capped_at, off, without, opened) in [
        (2, g, g, g, r, g),
        (7, g, g, g, r, g),
        (8, g, g, g, r, m),
        (9, m, m, g, m, m),
        (16, m, m, g, m, m),
        (21, m, m, g, m, m),
        (33, m, m, g, m, m),
        (64, m, m, g, m, m),
        (65, m, m, c, m, m),
        (128, m, m, c, m, m),
        (129, m, m, c, m, c),
        (384, m, m, c, m, c),
        (385, m, c, c, m, c),
        (1024, m, c, c, m, c),
    ] {
        s.lead = vec![rows];
        for (t, want, what) in [
            (none(), default, "defaults"),
            (capped.clone(), capped_at, "MMA_F32_MAX_ROWS=384"),
            (closed.clone(), off, "MMA_F32_MAX_ROWS=0"),
            (no_gemvp_f32.clone(), without, "GEMVP_F32_MAX_ROWS=0"),
            (wide.clone(), opened, "8-128"),
        ] {
            let p = big().plan(&s.call(), &t).unwrap();
            assert!(
                p.variant.starts_with(want) && (want == "mmap_" || !p.variant.starts_with("mmap")),
                "f32 rows {rows}, {what}: {}",
                p.variant
            );
        }
    }
    // A small model: few column ranges, so K is split (128 workgroups wanted).
    let mut s = MlpShape::new(896, 4864, 16);
    s.dtype = DType::F16;
    let p = big().plan(&s.call(), &none()).unwrap();
    assert_eq!(p.variant, "mmap_split_nogb_noub");
    let main = p.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(main.dispatch, [1, 38, 3]);
}

/// f32 calls in 16-row tiles split K by whole waves where the device reports its shader cores
/// (`SHADER_CORES`): the 1-4 slices whose workgroups (column ranges x slices, one per SM) make
/// the fewest waves per slice, the fewest slices on a tie, at most a slice per 4 chunks. On an
/// H200-like profile (132 cores) the suite's shapes at 16 rows: 74 column ranges (Llama-3.2-1B,
/// Phi-3-mini) 3 slices, 55 (Qwen3-1.7B) 2, 44 (Qwen2.5-0.5B) 3, 170 (Qwen2.5-7B) 3, 128
/// (Llama-8B) and 256 (Llama-70B) none, and two 16-row tiles of 74 column ranges 4; without the
/// core count the f16 form's rule (slices for ~128 workgroups); f16 calls and f32 tiles of 2 row
/// blocks keep it too; `MMAP_SPLIT_K` wins.
/// Subgroup pairs (`mmaPairs`, `mlp-mma`'s PAIR): 16-row tiles of f16 calls (2-, 4- and 8-bit)
/// with activation blocks and K whole, where the column ranges make at most one wave of the known
/// shader cores, run two subgroups per column range (gate rows, up rows) with the largest block
/// that still fits (4 chunks for 7 pairs in 48 KiB: 48 896 bytes), and from 6 rows instead of
/// 7 where the few-rows kernel's one-wave tile does not take the call in one pass; everywhere
/// else the tile is as before. K pairs (`MMA_PAIRS=2`, `mmaPairs` 2: the pair's subgroups take
/// the even and the odd chunks) only where asked, in the same places, with the same workgroup
/// memory and invocations and an even block (5 chunks asked: 4; 3 asked: 2, too short for pairs).
#[test]
fn mmap_subgroup_pairs_where_one_wave() {
    let mut s = MlpShape::new(4096, 14336, 16);
    s.dtype = DType::F16;
    let h200 = |extra: &[(&str, i64)]| {
        let mut pairs = vec![("SHADER_CORES", 132)];
        pairs.extend_from_slice(extra);
        tunables(&pairs)
    };
    // (shape tweak, tunables, pairs, block, what)
    let cases: Vec<(MlpShape, Tunables, i64, i64, &str)> = vec![
        (s.clone(), h200(&[]), 1, 4, "Llama-8B, 16 rows"),
        (
            MlpShape {
                lead: vec![7],
                ..s.clone()
            },
            h200(&[]),
            1,
            4,
            "7 rows",
        ),
        (
            MlpShape {
                bits: 8,
                ..s.clone()
            },
            h200(&[]),
            1,
            4,
            "8-bit",
        ),
        (
            MlpShape {
                bits: 2,
                ..s.clone()
            },
            h200(&[]),
            1,
            4,
            "2-bit",
        ),
        // In turns, 4-bit codes: ping-pong by default (32-row slabs, blocks of 4).
        (s.clone(), none(), 0, 4, "shader cores unknown"),
        (s.clone(), h200(&[("MMA_PAIRS", 0)]), 0, 4, "MMA_PAIRS=0"),
        (
            s.clone(),
            h200(&[("MMA_PAIRS", 0), ("MMA_PING_PONG", 1)]),
            0,
            8,
            "MMA_PAIRS=0, no ping-pong",
        ),
        (
            s.clone(),
            h200(&[("MMA_ACT_BLOCK", 3)]),
            0,
            3,
            "blocks of 3",
        ),
        (s.clone(), h200(&[("MMAP_SPLIT_K", 2)]), 0, 4, "K in slices"),
        (
            MlpShape::new(8192, 28672, 16),
            h200(&[]),
            0,
            4,
            "Llama-70B: 256 ranges",
        ),
        (
            MlpShape::new(8192, 28672, 16),
            tunables(&[("SHADER_CORES", 256)]),
            1,
            4,
            "256 cores",
        ),
        (
            MlpShape::new(8192, 28672, 16),
            tunables(&[("SHADER_CORES", 255)]),
            0,
            4,
            "255 cores",
        ),
        (s.clone(), h200(&[("MMA_PAIRS", 2)]), 2, 4, "K pairs"),
        (
            MlpShape {
                lead: vec![7],
                bits: 2,
                ..s.clone()
            },
            h200(&[("MMA_PAIRS", 2)]),
            2,
            4,
            "K pairs, 2-bit, 7 rows",
        ),
        (
            MlpShape {
                bits: 8,
                ..s.clone()
            },
            h200(&[("MMA_PAIRS", 2), ("MMA_ACT_BLOCK", 5)]),
            2,
            4,
            "K pairs, 8-bit, blocks of 5 asked",
        ),
        (
            s.clone(),
            h200(&[("MMA_PAIRS", 2), ("MMA_ACT_BLOCK", 3)]),
            0,
            3,
            "K pairs, blocks of 3 asked",
        ),
        (
            MlpShape::new(8192, 28672, 16),
            h200(&[("MMA_PAIRS", 2)]),
            0,
            4,
            "K pairs, Llama-70B: 256 ranges",
        ),
    ];
    for (mut shape, t, pairs, block, what) in cases {
        shape.dtype = DType::F16;
        let p = big().plan(&shape.call(), &t).unwrap();
        assert!(p.variant.starts_with("mmap_"), "{what}: {}", p.variant);
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(main.context["mmaPairs"], serde_json::json!(pairs), "{what}");
        assert_eq!(
            main.context["mmaActBlock"],
            serde_json::json!(block),
            "{what}"
        );
        let threads = if pairs > 0 {
            448
        } else {
            32 * main.context["mmaSubgroups"].as_u64().unwrap() as u32
        };
        assert_eq!(main.workgroup_size, [threads, 1, 1], "{what}");
        assert_eq!(
            main.wgsl.contains("let hm = sgt % 2u;"),
            pairs > 0,
            "{what}"
        );
        // K pairs walk two chunks a step and add the odd chunks' sums into the even ones'.
        assert_eq!(
            main.wgsl
                .contains("for (var kc = kbeg; kc < kend; kc = kc + 128u)"),
            pairs == 2,
            "{what}"
        );
        if pairs > 0 {
            assert_eq!(
                main.context["mmaSharedBytes"],
                serde_json::json!(48896),
                "{what}"
            );
        }
    }
    // With pairs the tile takes 6 rows too (`mmaMinRows`) unless the few-rows kernel's one-wave
    // tile takes them in one pass (plain: `gemvp_staged_*`, norm forms: `gemvp_fused_*`);
    // without pairs, and at 5 rows, the few-rows kernel does (on the op's layout `mma` keeps 7).
    let no_stage = &[("GEMVP_STAGE_MIN_COLS", 0)];
    for (rows, norm, t, expect) in [
        (6, false, h200(&[]), "gemvp_staged_nogb_noub"),
        (6, false, h200(no_stage), "mmap_nogb_noub"),
        (6, true, h200(&[]), "gemvp_fused_skip_nogb_noub"),
        (
            6,
            true,
            h200(&[("GEMVP_FUSED_COLS", 64)]),
            "mmap_skip_nogb_noub",
        ),
        (5, false, h200(no_stage), "gemvp_plain_nogb_noub"),
        (6, false, none(), "gemvp_plain_nogb_noub"),
        (
            6,
            false,
            h200(&[("MMA_PAIRS", 0), no_stage[0]]),
            "gemvp_plain_nogb_noub",
        ),
        (
            6,
            false,
            h200(&[("MMAP_MAX_ROWS", 0), no_stage[0]]),
            "gemvp_plain_nogb_noub",
        ),
    ] {
        let shape = MlpShape {
            lead: vec![rows],
            norm,
            skip: norm,
            ..s.clone()
        };
        let p = big().plan(&shape.call(), &t).unwrap();
        assert_eq!(p.variant, expect, "{rows} rows, {t:?}");
        if expect.starts_with("mmap_") {
            let main = p.passes.iter().find(|p| p.id == "main").unwrap();
            assert_eq!(
                main.context["mmaPairs"],
                serde_json::json!(1),
                "{rows} rows"
            );
        }
    }
    // Neither for f32 calls, nor past 16 rows (tiles of two row blocks).
    for (dtype, rows) in [(DType::F32, 16), (DType::F16, 17)] {
        let shape = MlpShape {
            dtype,
            lead: vec![rows],
            ..s.clone()
        };
        let p = big().plan(&shape.call(), &h200(&[])).unwrap();
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(
            main.context["mmaPairs"],
            serde_json::json!(0),
            "{dtype:?} {rows}"
        );
    }
    // The pair's block must fit: one byte less than 48 896 leaves 3 chunks, too few for pairs,
    // and the tile goes in turns with ping-pong's blocks of 4 (47 872 bytes).
    for (storage, pairs, block) in [(48896, 1, 4), (48895, 0, 4)] {
        let p = Planner::project(
            DeviceProfile::discrete_gpu().with_limit("maxComputeWorkgroupStorageSize", storage),
        )
        .plan(&s.call(), &h200(&[]))
        .unwrap();
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(
            main.context["mmaPairs"],
            serde_json::json!(pairs),
            "{storage}"
        );
        assert_eq!(
            main.context["mmaActBlock"],
            serde_json::json!(block),
            "{storage}"
        );
    }
}

/// Early fetch (`mmaEarlyFetch`, `mlp-mma`'s EFD / EFG: the next chunks requested into their own
/// registers before the current chunk is staged) where the H200 measured it faster: 4-bit tiles
/// in subgroup pairs (two chunks ahead) and float32 16-row tiles (the next group of 4), split or
/// not where each slice walks at least two groups; not 2- or 8-bit pairs, tiles in turns, f16 tiles of 2+ row blocks, f32 tiles of 32 rows
/// or stream-K. `MMA_EARLY_FETCH` 1 turns it off, 2 on; the WGSL requests early where the context
/// says so and only there.
#[test]
fn mmap_early_fetch_where_measured_faster() {
    let shape = |k: usize, n: usize, rows: usize, dtype: DType, bits: u32| MlpShape {
        dtype,
        bits,
        ..MlpShape::new(k, n, rows)
    };
    let h200 = |extra: &[(&str, i64)]| {
        let mut pairs = vec![("SHADER_CORES", 132)];
        pairs.extend_from_slice(extra);
        tunables(&pairs)
    };
    let (f16, f32) = (DType::F16, DType::F32);
    let stream_k = tunables(&[
        ("SHADER_CORES", 64),
        ("MMAP_STREAM_K", 2),
        ("MMA_SK_PER_CORE", 1),
    ]);
    // (shape, tunables, early, what)
    let cases: Vec<(MlpShape, Tunables, i64, &str)> = vec![
        (
            shape(4096, 14336, 16, f16, 4),
            h200(&[]),
            1,
            "Llama-8B 16 rows, pairs",
        ),
        (shape(4096, 14336, 8, f16, 4), h200(&[]), 1, "8 rows, pairs"),
        (shape(4096, 14336, 16, f16, 2), h200(&[]), 0, "2-bit pairs"),
        (shape(4096, 14336, 16, f16, 8), h200(&[]), 0, "8-bit pairs"),
        (
            shape(4096, 14336, 16, f16, 4),
            h200(&[("MMA_PAIRS", 0), ("MMA_PING_PONG", 1)]),
            0,
            "in turns",
        ),
        // In turns, 4-bit codes: ping-pong by default, which needs the early fetch.
        (
            shape(4096, 14336, 16, f16, 4),
            h200(&[("MMA_PAIRS", 0)]),
            1,
            "in turns, ping-pong",
        ),
        (
            shape(4096, 14336, 16, f16, 4),
            none(),
            1,
            "no core count: no pairs, ping-pong",
        ),
        (
            shape(4096, 14336, 16, f16, 4),
            tunables(&[("MMA_PING_PONG", 1)]),
            0,
            "no core count, no ping-pong",
        ),
        (
            shape(3584, 18944, 16, f16, 4),
            h200(&[]),
            1,
            "Qwen2.5-7B: two waves, no pairs, ping-pong",
        ),
        (
            shape(3584, 18944, 16, f16, 8),
            h200(&[]),
            0,
            "Qwen2.5-7B 8-bit: in turns",
        ),
        (shape(4096, 14336, 32, f16, 4), h200(&[]), 0, "f16 32 rows"),
        (shape(4096, 14336, 64, f16, 4), h200(&[]), 0, "f16 64 rows"),
        (shape(4096, 14336, 16, f32, 4), h200(&[]), 1, "f32 16 rows"),
        (shape(4096, 14336, 9, f32, 4), h200(&[]), 1, "f32 9 rows"),
        (
            shape(4096, 14336, 16, f32, 4),
            none(),
            1,
            "f32, no core count",
        ),
        (
            shape(1536, 8960, 16, f32, 4),
            h200(&[]),
            1,
            "f32 16 rows, K split",
        ),
        (shape(4096, 14336, 16, f32, 2), h200(&[]), 1, "f32 2-bit"),
        // Qwen2.5-0.5B: three slices of 5 chunks, fewer than two groups of 4 each (without
        // activation blocks), two chunks of one each (with them, the default).
        (
            shape(896, 4864, 16, f32, 4),
            h200(&[("MMA_F32_ACT_BLOCK", 0)]),
            0,
            "f32, short slices",
        ),
        (
            shape(896, 4864, 16, f32, 4),
            h200(&[("MMA_F32_ACT_BLOCK", 0), ("MMA_EARLY_FETCH", 2)]),
            1,
            "f32, short slices, forced on",
        ),
        (
            shape(896, 4864, 16, f32, 4),
            h200(&[]),
            1,
            "f32, short slices, blocks",
        ),
        (shape(4096, 14336, 32, f32, 4), h200(&[]), 0, "f32 32 rows"),
        (
            shape(4096, 14336, 16, f16, 4),
            h200(&[("MMA_EARLY_FETCH", 1)]),
            0,
            "forced off",
        ),
        (
            shape(4096, 14336, 16, f32, 4),
            h200(&[("MMA_EARLY_FETCH", 1)]),
            0,
            "f32 forced off",
        ),
        (
            shape(4096, 14336, 64, f16, 4),
            h200(&[("MMA_EARLY_FETCH", 2)]),
            1,
            "forced on",
        ),
        (shape(4096, 14336, 16, f32, 4), stream_k, 0, "stream-K"),
    ];
    for (s, t, early, what) in cases {
        let p = big().plan(&s.call(), &t).unwrap();
        assert!(p.variant.starts_with("mmap_"), "{what}: {}", p.variant);
        assert_eq!(
            p.variant.contains("_sk_"),
            what == "stream-K",
            "{what}: {}",
            p.variant
        );
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(
            main.context["mmaEarlyFetch"],
            serde_json::json!(early),
            "{what}"
        );
        let wgsl_early = main.wgsl.contains("before this chunk is staged")
            || main.wgsl.contains("before this group is staged");
        assert_eq!(wgsl_early, early == 1, "{what}");
    }
}

/// The main pass of an `mmap_*` plan (asserted) for `s` on the project's large-GPU profile with
/// 132 shader cores (`SHADER_CORES`, as the H100 / H200 report) and the tunables `extra` beside.
fn mmap_main(s: &MlpShape, extra: &[(&str, i64)]) -> nbits_mlp_core::plan::PassPlan {
    let mut pairs = vec![("SHADER_CORES", 132)];
    pairs.extend_from_slice(extra);
    let p = big().plan(&s.call(), &tunables(&pairs)).unwrap();
    assert!(p.variant.starts_with("mmap_"), "{}", p.variant);
    p.passes.iter().find(|p| p.id == "main").unwrap().clone()
}

/// Early fetch's depth (`MMA_EARLY_FETCH_CHUNKS`, `mlp-mma`'s EFD): with one chunk per request
/// the WGSL requests that many chunks ahead into that many register sets more (2 by default,
/// what row 216 measured); where early fetch is off (2-bit pairs by rule) or requests whole
/// groups (fetch groups of 4: the float32 32-row tile) the tunable changes nothing.
#[test]
fn mmap_early_fetch_depth_where_asked() {
    let plan = |rows: usize, dtype: DType, bits: u32, depth: Option<i64>| {
        let s = MlpShape {
            dtype,
            bits,
            ..MlpShape::new(4096, 14336, rows)
        };
        let extra: Vec<(&str, i64)> = depth
            .map(|d| ("MMA_EARLY_FETCH_CHUNKS", d))
            .into_iter()
            .collect();
        mmap_main(&s, &extra)
    };
    let (f16, f32) = (DType::F16, DType::F32);
    for (rows, dtype) in [(16, f16), (8, f16), (16, f32)] {
        let default = plan(rows, dtype, 4, None);
        assert_eq!(default.context["mmaEarlyFetchChunks"], serde_json::json!(2));
        assert!(default
            .wgsl
            .contains("Request chunk + 2 into its own registers"));
        assert_eq!(default.wgsl, plan(rows, dtype, 4, Some(2)).wgsl);
        for depth in [3, 4] {
            let main = plan(rows, dtype, 4, Some(depth));
            assert_eq!(main.context["mmaEarlyFetch"], serde_json::json!(1));
            let ahead = format!("Request chunk + {depth} into its own registers");
            assert!(
                main.wgsl.contains(&ahead),
                "{rows} rows {dtype:?}: no '{ahead}'"
            );
            // One register set per chunk in flight: p0 .. p{depth}, declared once each.
            for set in 0..=depth {
                assert!(
                    main.wgsl.contains(&format!("var p{set}")),
                    "{rows} rows {dtype:?} depth {depth}: no set p{set}"
                );
            }
            assert!(!main.wgsl.contains(&format!("var p{}", depth + 1)));
        }
    }
    // Early fetch off (2-bit pairs) or by groups (f32 32 rows): the same WGSL at any depth.
    for (rows, dtype, bits) in [(16, f16, 2), (32, f32, 4), (64, f16, 4)] {
        let default = plan(rows, dtype, bits, None);
        for depth in [3, 4] {
            assert_eq!(
                default.wgsl,
                plan(rows, dtype, bits, Some(depth)).wgsl,
                "{rows} rows {dtype:?} {bits}-bit, depth {depth}"
            );
        }
    }
}

/// Ping-pong everywhere it applies (`MMA_PING_PONG=2`, `mlp-mma`'s PP / PK):
/// 16-row tiles of f16 calls with activation blocks and the early fetch not turned off; in turns
/// without pairs (2-bit codes in half rows too) where a block of at least 4 chunks fits beside
/// the 32-row slabs (7 subgroups on the H200's 48 KiB: 4; 8 subgroups: 1, so none) and within a
/// slice of K; in matrix pairs of 2- and 4-bit codes by halves of K (not 8-bit, not K pairs). Where it applies,
/// the early fetch is on, the workgroup memory fits and the WGSL stages beside the products;
/// elsewhere the WGSL is what it is with ping-pong never (`MMA_PING_PONG=1`).
#[test]
fn mmap_ping_pong_only_where_asked_and_fitting() {
    let shape = |k: usize, n: usize, rows: usize, dtype: DType, bits: u32| MlpShape {
        dtype,
        bits,
        ..MlpShape::new(k, n, rows)
    };
    let ping = [("MMA_PAIRS", 0), ("MMA_PING_PONG", 2)];
    let (f16, f32) = (DType::F16, DType::F32);
    let llama = |rows: usize, bits: u32| shape(4096, 14336, rows, f16, bits);
    // (shape, tunables beside ping-pong's, applies, block, what)
    type Case<'a> = (MlpShape, Vec<(&'a str, i64)>, bool, i64, &'a str);
    let cases: Vec<Case> = vec![
        (llama(16, 4), vec![], true, 4, "Llama-8B 16 rows"),
        (llama(9, 8), vec![], true, 4, "8-bit, 9 rows"),
        (
            llama(16, 4),
            vec![("MMA_EARLY_FETCH_CHUNKS", 3)],
            true,
            4,
            "three ahead",
        ),
        (llama(16, 2), vec![], true, 4, "2-bit: half rows in turns"),
        (
            llama(16, 4),
            vec![("MMA_SUBGROUPS", 8)],
            false,
            8,
            "8 subgroups: no room",
        ),
        (
            llama(16, 4),
            vec![("MMA_EARLY_FETCH", 1)],
            false,
            8,
            "early fetch off",
        ),
        (
            llama(16, 4),
            vec![("MMA_PAIRS", 1)],
            true,
            4,
            "matrix pairs: halves of K",
        ),
        (
            llama(8, 4),
            vec![("MMA_PAIRS", 1)],
            true,
            4,
            "matrix pairs, 8 rows",
        ),
        (
            llama(16, 2),
            vec![("MMA_PAIRS", 1)],
            true,
            4,
            "2-bit matrix pairs",
        ),
        (
            llama(16, 8),
            vec![("MMA_PAIRS", 1)],
            false,
            4,
            "8-bit matrix pairs",
        ),
        (llama(16, 4), vec![("MMA_PAIRS", 2)], false, 4, "K pairs"),
        (llama(32, 4), vec![], false, 0, "32 rows"),
        (shape(4096, 14336, 16, f32, 4), vec![], false, 4, "f32"),
        (
            shape(896, 4864, 16, f16, 4),
            vec![],
            false,
            0,
            "Qwen2.5-0.5B: 8 subgroups, K in slices of 5",
        ),
        (
            shape(896, 4864, 16, f16, 4),
            vec![("MMA_SUBGROUPS", 7)],
            true,
            4,
            "Qwen2.5-0.5B, 7 subgroups: K in slices of 7",
        ),
        (
            shape(4096, 14336, 16, f16, 4),
            vec![("MMAP_SPLIT_K", 22)],
            false,
            0,
            "slices of 3 chunks",
        ),
    ];
    for (s, extra, applies, block, what) in cases {
        let mut t: Vec<(&str, i64)> = ping.to_vec();
        t.extend_from_slice(&extra);
        let main = mmap_main(&s, &t);
        let got = |key: &str| main.context[key].as_i64().unwrap();
        assert_eq!(got("mmaPingPong"), i64::from(applies), "{what}");
        assert_eq!(got("mmaActBlock"), block, "{what}");
        let halves = main
            .wgsl
            .contains("Gate's products, and up's rows staged beside them");
        let k_halves = main
            .wgsl
            .contains("Steps 0 and 2's products, and steps 1 and 3 staged");
        let pairs = got("mmaPairs");
        assert_eq!(halves, applies && pairs == 0, "{what}");
        assert_eq!(k_halves, applies && pairs == 1, "{what}");
        if applies {
            assert_eq!(got("mmaEarlyFetch"), 1, "{what}");
            assert!(
                got("mmaSharedBytes") <= 49152,
                "{what}: {}",
                got("mmaSharedBytes")
            );
        } else {
            // With ping-pong never: the same kernel.
            let never: Vec<(&str, i64)> = t
                .iter()
                .map(|&(k, v)| (k, if k == "MMA_PING_PONG" { 1 } else { v }))
                .collect();
            assert_eq!(main.wgsl, mmap_main(&s, &never).wgsl, "{what}");
        }
    }
}

/// Ping-pong by default (`MMA_PING_PONG=0`) where it was measured faster: 16-row tiles of 4-bit
/// codes in turns (Qwen2.5-7B and Llama-3.1-70B at 9-16 rows on a 132-core profile, Llama-3.1-8B
/// where pairs are off), both forms; not in matrix pairs (Llama-3.1-8B's default), not for 2- or
/// 8-bit codes, not f32. The rule's choice is byte for byte the kernel asked for everywhere
/// (`MMA_PING_PONG=2`), and where it does not choose it, the kernel with ping-pong never (1).
#[test]
fn mmap_ping_pong_by_default_where_measured() {
    let shape = |k: usize, n: usize, rows: usize, bits: u32, norm: bool, dtype: DType| {
        let mut s = MlpShape {
            dtype,
            bits,
            ..MlpShape::new(k, n, rows)
        };
        (s.norm, s.skip) = (norm, norm);
        s
    };
    let f16 = DType::F16;
    // (shape, tunables, on by default, what)
    type Case<'a> = (MlpShape, Vec<(&'a str, i64)>, bool, &'a str);
    let cases: Vec<Case> = vec![
        (
            shape(3584, 18944, 16, 4, false, f16),
            vec![],
            true,
            "Qwen2.5-7B 16 rows",
        ),
        (
            shape(3584, 18944, 12, 4, true, f16),
            vec![],
            true,
            "Qwen2.5-7B 12 rows, norm",
        ),
        (
            shape(8192, 28672, 8, 4, false, f16),
            vec![],
            true,
            "Llama-70B 8 rows",
        ),
        (
            shape(8192, 28672, 16, 4, true, f16),
            vec![],
            true,
            "Llama-70B 16 rows, norm",
        ),
        (
            shape(4096, 14336, 16, 4, false, f16),
            vec![],
            false,
            "Llama-8B: matrix pairs",
        ),
        (
            shape(4096, 14336, 16, 4, false, f16),
            vec![("MMA_PAIRS", 0)],
            true,
            "Llama-8B in turns",
        ),
        (
            shape(8192, 28672, 16, 2, false, f16),
            vec![],
            false,
            "2-bit in turns",
        ),
        (
            shape(8192, 28672, 16, 8, false, f16),
            vec![],
            false,
            "8-bit in turns",
        ),
        (
            shape(8192, 28672, 16, 4, false, DType::F32),
            vec![],
            false,
            "f32",
        ),
        (
            shape(8192, 28672, 32, 4, false, f16),
            vec![],
            false,
            "32 rows",
        ),
        (
            shape(8192, 28672, 16, 4, false, f16),
            vec![("MMA_PING_PONG", 1)],
            false,
            "never",
        ),
    ];
    for (s, extra, on, what) in cases {
        let main = mmap_main(&s, &extra);
        assert_eq!(
            main.context["mmaPingPong"],
            serde_json::json!(i64::from(on)),
            "{what}"
        );
        let mut forced = extra.clone();
        forced.push(("MMA_PING_PONG", if on { 2 } else { 1 }));
        assert_eq!(main.wgsl, mmap_main(&s, &forced).wgsl, "{what}");
    }
}

#[test]
fn mmap_f32_split_fills_whole_waves() {
    let cores = tunables(&[("SHADER_CORES", 132)]);
    let split = |k: usize, n: usize, rows: usize, dtype: DType, t: &Tunables| {
        let mut s = MlpShape::new(k, n, rows);
        s.dtype = dtype;
        let p = big().plan(&s.call(), t).unwrap();
        assert!(p.variant.starts_with("mmap_"), "{k}x{n}: {}", p.variant);
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        main.dispatch[2]
    };
    for (k, n, want) in [
        (2048, 8192, 3),
        (3072, 8192, 3),
        (2048, 6144, 2),
        (896, 4864, 3),
        (3584, 18944, 3),
        (4096, 14336, 1),
        (8192, 28672, 1),
    ] {
        assert_eq!(split(k, n, 16, DType::F32, &cores), want, "{k}x{n}");
    }
    // Unknown cores: the f16 rule (128 / tiles): 74 column ranges unsplit, 44 in 2.
    assert_eq!(split(2048, 8192, 16, DType::F32, &none()), 1);
    assert_eq!(split(896, 4864, 16, DType::F32, &none()), 2);
    // At most a slice per 4 chunks (K 512: 8 chunks, 2 slices), and the tunable wins.
    assert_eq!(split(512, 8192, 16, DType::F32, &cores), 2);
    let mut forced = cores.clone();
    forced.insert("MMAP_SPLIT_K".into(), 1);
    assert_eq!(split(2048, 8192, 16, DType::F32, &forced), 1);
    // Two 16-row tiles (32 rows, where one 32-row tile would make too few tiles): 148
    // workgroups, 4 slices. f16 calls (8 subgroups, 64 tiles: 2 slices) and f32 tiles of 2 row
    // blocks (48 rows with gate and up together: 148 tiles) keep the old rule.
    assert_eq!(split(2048, 8192, 32, DType::F32, &cores), 4);
    assert_eq!(split(2048, 8192, 16, DType::F16, &cores), 2);
    let mut together = cores.clone();
    together.insert("MMA_F32_SEPARATE".into(), 1);
    assert_eq!(split(2048, 8192, 48, DType::F32, &together), 1);
    assert_eq!(split(2048, 8192, 64, DType::F32, &cores), 1);
}

/// The float32 form's activation blocks (`MMA_F32_ACT_BLOCK`, 4 chunks by default in calls of at
/// most `MMA_F32_ACT_BLOCK_MAX_ROWS`, 32, rows: where they were measured faster): the 16-row f32
/// tile stages the hi and lo parts of that many chunks at a time, gate and up in turns with one
/// chunk per request (and the early fetch two chunks ahead), where the block fits the workgroup
/// memory beside 7 slabs of 16 rows and scratch blocks (6 chunks: 48 384 bytes of 49 152; 7 do
/// not fit) and each K slice holds a whole block; never in pairs; elsewhere (0, more rows than
/// the limit, tiles of 2 row blocks) the f32 tile is as before (together, fetch groups of 4).
#[test]
fn mmap_f32_act_blocks_where_measured_and_fitting() {
    let cores = |extra: &[(&str, i64)]| {
        let mut pairs = vec![("SHADER_CORES", 132)];
        pairs.extend_from_slice(extra);
        tunables(&pairs)
    };
    // (K, N, rows, tunables, block, fetch group, seq, what)
    type Case = (usize, usize, usize, Tunables, i64, i64, bool, &'static str);
    let cases: Vec<Case> = vec![
        (4096, 14336, 16, cores(&[]), 4, 1, true, "default"),
        (4096, 14336, 9, cores(&[]), 4, 1, true, "default, 9 rows"),
        (
            4096,
            14336,
            16,
            cores(&[("MMA_F32_ACT_BLOCK", 0)]),
            0,
            4,
            false,
            "off",
        ),
        // Qwen2.5-0.5B: 17-32 rows are two row groups of the same 16-row tile, within the
        // default's 32 rows (measured faster there); past it, or under a lower limit, none.
        (896, 4864, 16, cores(&[]), 4, 1, true, "0.5B 16 rows"),
        (896, 4864, 17, cores(&[]), 4, 1, true, "0.5B 17 rows"),
        (896, 4864, 32, cores(&[]), 4, 1, true, "0.5B 32 rows"),
        (
            896,
            4864,
            33,
            cores(&[("MMA_F32_SEPARATE", 1)]),
            0,
            4,
            false,
            "0.5B 33 rows, together",
        ),
        (896, 4864, 49, cores(&[]), 0, 4, false, "0.5B 49 rows"),
        (
            896,
            4864,
            17,
            cores(&[("MMA_F32_ACT_BLOCK_MAX_ROWS", 16)]),
            0,
            4,
            false,
            "0.5B 17 rows, limit 16",
        ),
        (
            4096,
            14336,
            16,
            cores(&[("MMA_F32_ACT_BLOCK_MAX_ROWS", 15)]),
            0,
            4,
            false,
            "limit 15",
        ),
        (
            4096,
            14336,
            16,
            cores(&[("MMA_F32_ACT_BLOCK", 6)]),
            6,
            1,
            true,
            "6 chunks",
        ),
        (
            4096,
            14336,
            9,
            cores(&[("MMA_F32_ACT_BLOCK", 4)]),
            4,
            1,
            true,
            "9 rows, 4",
        ),
        (
            4096,
            14336,
            16,
            cores(&[("MMA_F32_ACT_BLOCK", 7)]),
            0,
            4,
            false,
            "7 do not fit",
        ),
        (
            4096,
            14336,
            16,
            cores(&[("MMA_F32_ACT_BLOCK", 4), ("MMA_PAIRS", 2)]),
            4,
            1,
            true,
            "no pairs in f32",
        ),
        (
            4096,
            14336,
            16,
            cores(&[("MMA_F32_ACT_BLOCK", 4), ("MMA_FETCH_GROUP", 2)]),
            0,
            2,
            false,
            "fetch groups asked",
        ),
        // Qwen2.5-0.5B: 3 slices of 5 chunks hold a block of 4, not one of 6.
        (
            896,
            4864,
            16,
            cores(&[("MMA_F32_ACT_BLOCK", 4)]),
            4,
            1,
            true,
            "slices of 5, 4",
        ),
        (
            896,
            4864,
            16,
            cores(&[("MMA_F32_ACT_BLOCK", 6)]),
            0,
            4,
            false,
            "slices of 5, 6",
        ),
        // 32 rows: tiles of 2 row blocks take no blocks, whatever the limit.
        (4096, 14336, 32, cores(&[]), 0, 4, false, "32 rows"),
        (
            4096,
            14336,
            32,
            cores(&[("MMA_F32_ACT_BLOCK_MAX_ROWS", 64)]),
            0,
            4,
            false,
            "32 rows, limit 64",
        ),
    ];
    for (k, n, rows, t, block, fg, seq, what) in cases {
        let mut s = MlpShape::new(k, n, rows);
        s.dtype = DType::F32;
        let p = big().plan(&s.call(), &t).unwrap();
        assert!(p.variant.starts_with("mmap_"), "{what}: {}", p.variant);
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        let c = &main.context;
        assert_eq!(c["mmaActBlock"], serde_json::json!(block), "{what}");
        assert_eq!(c["mmaFetchGroup"], serde_json::json!(fg), "{what}");
        assert_eq!(c["mmaSeq"], serde_json::json!(seq), "{what}");
        assert_eq!(c["mmaPairs"], serde_json::json!(0), "{what}");
        // The block's staging splits the parts into both tiles.
        assert_eq!(main.wgsl.contains("act_lo[(q / "), block > 0, "{what}");
        if block > 0 {
            let bytes = 7 * (16 * 144 + 1024) + 16 * (128 * block + 16) * 2;
            assert_eq!(c["mmaSharedBytes"], serde_json::json!(bytes), "{what}");
        }
    }
}

/// Gate and up in workgroups of their own for float32 calls (`MMA_F32_SEPARATE`: 0 = where
/// measured faster, 4- and 8-bit codes at 33-48 rows; 1 = never; 2 = wherever it applies): asked, 4- and
/// 8-bit float32 calls whose tiles take 2 row blocks or more (past 16 rows; past 32 where the
/// 16-row tile's row groups take them) run the K-slice variant with the matrices apart: tiles of
/// up to 4 row blocks in turns, the grid's depth twice the slices, the partials and the reduce
/// pass; elsewhere (f16, 2-bit codes, 16 rows, the small models' 17-32 rows, 1, and 0 outside
/// its rows) the plan and its WGSL are those of never. The rule's boundaries: 32 / 49 rows
/// (outside) and 33 / 48 (inside, both forms), 8-bit codes at 40 rows (inside) and 130 (outside).
#[test]
fn mmap_f32_separate_only_where_asked() {
    let with = |x: i64| tunables(&[("SHADER_CORES", 132), ("MMA_F32_SEPARATE", x)]);
    // (K, N, rows, dtype, bits, skip + norm, applies: (row blocks, slices) where 2 takes it,
    // whether 0 (the rule) takes it too)
    type Case = (
        usize,
        usize,
        usize,
        DType,
        u32,
        bool,
        Option<(i64, u32)>,
        bool,
    );
    let cases: [Case; 17] = [
        (4096, 14336, 64, DType::F32, 4, false, Some((4, 1)), false),
        (4096, 14336, 49, DType::F32, 4, false, Some((4, 1)), false),
        (4096, 14336, 48, DType::F32, 4, false, Some((3, 1)), true),
        (4096, 14336, 48, DType::F32, 4, true, Some((3, 1)), true),
        (4096, 14336, 40, DType::F32, 4, false, Some((3, 1)), true),
        (4096, 14336, 33, DType::F32, 4, false, Some((3, 1)), true),
        (4096, 14336, 32, DType::F32, 4, false, Some((2, 1)), false),
        (4096, 14336, 24, DType::F32, 4, false, Some((2, 1)), false),
        (4096, 14336, 40, DType::F32, 8, false, Some((3, 1)), true),
        (4096, 14336, 130, DType::F32, 8, false, Some((3, 1)), false),
        (896, 4864, 64, DType::F32, 4, false, Some((4, 2)), false),
        (896, 4864, 40, DType::F32, 4, false, Some((3, 2)), true),
        (4096, 14336, 16, DType::F32, 4, false, None, false),
        (896, 4864, 24, DType::F32, 4, false, None, false),
        (4096, 14336, 40, DType::F32, 2, false, None, false),
        (4096, 14336, 40, DType::F16, 4, false, None, false),
        (4096, 14336, 64, DType::F16, 8, false, None, false),
    ];
    for (k, n, rows, dtype, bits, norm, applies, rule) in cases {
        let mut s = MlpShape::new(k, n, rows);
        s.dtype = dtype;
        s.bits = bits;
        (s.norm, s.skip) = (norm, norm);
        let what = format!("{k}x{n} {rows} rows {dtype:?} {bits}-bit norm {norm}");
        let never = big().plan(&s.call(), &with(1)).unwrap();
        let asked = big().plan(&s.call(), &with(2)).unwrap();
        let by_rule = big().plan(&s.call(), &with(0)).unwrap();
        let same = |p: &nbits_mlp_core::Plan, q: &nbits_mlp_core::Plan, x: i64| {
            assert_eq!(p.variant, q.variant, "{what}, {x}");
            assert_eq!(p.passes.len(), q.passes.len(), "{what}, {x}");
            for (a, b) in p.passes.iter().zip(&q.passes) {
                assert_eq!((a.dispatch, &a.wgsl), (b.dispatch, &b.wgsl), "{what}, {x}");
            }
        };
        same(&by_rule, if rule { &asked } else { &never }, 0);
        assert!(
            applies.is_some() || !rule,
            "{what}: the rule only where the form applies"
        );
        let p = asked;
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        let c = &main.context;
        match applies {
            Some((blocks, slices)) => {
                assert!(
                    p.variant.starts_with("mmap_split_"),
                    "{what}: {}",
                    p.variant
                );
                assert_eq!(c["mmaSeparate"], serde_json::json!(1), "{what}");
                assert_eq!(c["mmaRowBlocks"], serde_json::json!(blocks), "{what}");
                assert_eq!(c["mmaSeq"], serde_json::json!(true), "{what}");
                assert_eq!(c["splitK"], serde_json::json!(slices), "{what}");
                assert_eq!(main.dispatch[2], 2 * slices, "{what}");
                let rows_per_tile = 16 * blocks as usize;
                assert_eq!(
                    main.dispatch[0] as usize,
                    rows.div_ceil(rows_per_tile),
                    "{what}"
                );
                let reduce = p.passes.iter().find(|p| p.id == "reduce").unwrap();
                assert!(reduce.wgsl.contains("silu_mul(g, u)"), "{what}");
                assert!(main.wgsl.contains("let mz = wid.z % 2u;"), "{what}");
                assert!(
                    !never.passes[main_index(&never)]
                        .wgsl
                        .contains("let mz = wid.z % 2u;"),
                    "{what}"
                );
            }
            None => {
                assert_eq!(p.variant, never.variant, "{what}");
                assert_eq!(main.wgsl, never.passes[main_index(&never)].wgsl, "{what}");
            }
        }
    }
}

fn main_index(p: &nbits_mlp_core::Plan) -> usize {
    p.passes.iter().position(|p| p.id == "main").unwrap()
}

/// `MMAP_STREAM_K`'s automatic rule (its default is 1, never, until stream-K is measured faster).
const AUTO: i64 = 0;

/// The few-rows kernel at 7-8 rows where the tensor-core 16-row tile runs without subgroup
/// pairs and its grid is short (`mmaGridShort`: K split, or the last wave of `SHADER_CORES` at
/// most three quarters full): on an H200-like profile (132 cores) the suite's f16 shapes, both
/// forms, take `gemvp_*` at 7-8 rows exactly where `mma_grid_short` says (Qwen2.5-7B: 170 column
/// ranges; the 1-4B models: K split) and the tile from 9; Llama-3.1-8B (pairs) and Llama-3.1-70B
/// (256 ranges, the last wave 94 % full) keep the tile at 7. The last-wave boundary (N of 231 or
/// 232 column ranges of 112: 99 or 100 in the last wave of 132), and where it does not apply:
/// without the core count, with `MMA_MIN_ROWS` given, f32 calls (the tile from
/// `MMA_F32_MIN_ROWS`, 9, as before).
#[test]
fn gemvp_at_7_8_rows_where_the_tile_grid_is_short() {
    use nbits_mlp_core::coverage::mma_grid_short;
    let cores = tunables(&[("SHADER_CORES", 132)]);
    let shape = |k: usize, n: usize, rows: usize, norm: bool| {
        let mut s = MlpShape::new(k, n, rows);
        s.dtype = DType::F16;
        (s.norm, s.skip) = (norm, norm);
        s
    };
    let mut short_seen = std::collections::BTreeSet::new();
    for (k, n) in SUITE_SHAPES {
        let pairs = (k, n) == (4096, 14336);
        let short = mma_grid_short(k, n, 132);
        short_seen.insert((k, n, short));
        for rows in [6, 7, 8, 9] {
            for norm in [false, true] {
                let p = big().plan(&shape(k, n, rows, norm).call(), &cores).unwrap();
                let what = format!("K {k} N {n} rows {rows} norm {norm}: {}", p.variant);
                let few = rows == 6 || (rows <= 8 && short && !pairs);
                assert_eq!(p.variant.starts_with("gemvp_"), few, "{what}");
                if !few {
                    assert!(p.variant.starts_with("mmap_"), "{what}");
                }
            }
        }
    }
    for want in [
        (3584, 18944, true),
        (2048, 8192, true),
        (896, 4864, true),
        (8192, 28672, false),
        (4096, 14336, false),
    ] {
        assert!(short_seen.contains(&want), "{want:?}: {short_seen:?}");
    }
    for (ranges, few) in [(231usize, true), (232, false)] {
        let s = shape(4096, 112 * ranges, 7, false);
        assert_eq!(mma_grid_short(4096, 112 * ranges, 132), few);
        let p = big().plan(&s.call(), &cores).unwrap();
        assert_eq!(
            p.variant.starts_with("gemvp_"),
            few,
            "{ranges} ranges: {}",
            p.variant
        );
    }
    let qwen = shape(3584, 18944, 7, false);
    let p = big().plan(&qwen.call(), &none()).unwrap();
    assert_eq!(p.variant, "mmap_nogb_noub", "no core count");
    let t = tunables(&[("SHADER_CORES", 132), ("MMA_MIN_ROWS", 7)]);
    let p = big().plan(&qwen.call(), &t).unwrap();
    assert_eq!(p.variant, "mmap_nogb_noub", "MMA_MIN_ROWS=7");
    for (rows, family) in [(8, "gemvp_f32_"), (9, "mmap_")] {
        let mut f32_shape = shape(3584, 18944, rows, false);
        f32_shape.dtype = DType::F32;
        let p = big().plan(&f32_shape.call(), &cores).unwrap();
        assert!(
            p.variant.starts_with(family),
            "f32 {rows} rows: {}",
            p.variant
        );
    }
}

/// Float32 calls on the weights-once tile from 6 rows (`mmaF32MinRows`, `MMA_F32_MIN_ROWS` 0)
/// in blocks of 64 or more where its grid is not short, from 5 there for 4- and 8-bit codes in
/// blocks of 128 or more, else from 9: on an H200-like profile (132 cores) every shape of the
/// suite, 2-, 4- and 8-bit codes in blocks of 32 to 256, 4 / 5 / 6 / 8 / 9 rows (4-bit codes in
/// both forms), takes the tile exactly from `coverage::mma_f32_min_rows` rows and the few-rows
/// kernel's float32 form below (Llama-3.1-8B and -70B from 5 or 6 in blocks of 64+; the models
/// whose tile splits K from 9); without the core count from 9; `MMA_F32_MIN_ROWS` given wins (9:
/// the rule before; 6 on a split grid: the split tile), and `MMA_MIN_ROWS` given raises the
/// float32 floor, not lowers it.
#[test]
fn f32_tile_from_5_or_6_rows_in_blocks_of_64_on_a_full_grid() {
    use nbits_mlp_core::coverage::{mma_f32_grid_short, mma_f32_min_rows};
    let cores = tunables(&[("SHADER_CORES", 132)]);
    let shape = |k: usize, n: usize, rows: usize, bits: u32, block: usize, norm: bool| {
        let mut s = MlpShape::new(k, n, rows);
        s.dtype = DType::F32;
        (s.bits, s.block_size) = (bits, block);
        (s.norm, s.skip) = (norm, norm);
        s
    };
    let family = |s: &MlpShape, t: &Tunables| {
        let p = big().plan(&s.call(), t).unwrap();
        if p.variant.starts_with("mmap_") {
            "tile"
        } else if p.variant.starts_with("gemvp_f32_") {
            "few"
        } else {
            panic!("{s:?}: {}", p.variant)
        }
    };
    let (mut at_five, mut at_six) = (
        std::collections::BTreeSet::new(),
        std::collections::BTreeSet::new(),
    );
    for (k, n) in SUITE_SHAPES {
        for bits in [2, 4, 8] {
            for block in [32, 64, 128, 256] {
                let from = mma_f32_min_rows(k, n, bits, block, 132);
                match from {
                    5 => at_five.insert((k, n, bits, block)),
                    6 => at_six.insert((k, n, bits, block)),
                    _ => false,
                };
                for rows in [4, 5, 6, 8, 9] {
                    // (the norm forms where the rule moves a call)
                    for norm in [false, true]
                        .into_iter()
                        .take(if bits == 4 { 2 } else { 1 })
                    {
                        let s = shape(k, n, rows, bits, block, norm);
                        let want = if rows >= from { "tile" } else { "few" };
                        assert_eq!(
                            family(&s, &cores),
                            want,
                            "K {k} N {n} {bits}-bit blocks of {block}, {rows} rows, norm {norm}"
                        );
                    }
                }
            }
        }
    }
    // Exactly the two unsplit Llama-3.1 grids (128 and 256 column ranges), blocks 64+: from 5
    // for 4- and 8-bit codes in blocks of 128+, from 6 for the rest.
    let grids = [(4096, 14336), (8192, 28672)];
    let want_five: std::collections::BTreeSet<_> = grids
        .into_iter()
        .flat_map(|(k, n)| [4, 8].map(|bits| (k, n, bits)))
        .flat_map(|(k, n, bits)| [128, 256].map(|b| (k, n, bits, b)))
        .collect();
    let want_six: std::collections::BTreeSet<_> = grids
        .into_iter()
        .flat_map(|(k, n)| [2, 4, 8].map(|bits| (k, n, bits)))
        .flat_map(|(k, n, bits)| [64, 128, 256].map(|b| (k, n, bits, b)))
        .filter(|t| !want_five.contains(t))
        .collect();
    assert_eq!(at_five, want_five);
    assert_eq!(at_six, want_six);
    for (k, n, short) in [
        (4096, 14336, false),
        (8192, 28672, false),
        (3584, 18944, true),
        (3072, 8192, true),
        (896, 4864, true),
    ] {
        assert_eq!(mma_f32_grid_short(k, n, 132), short, "{k}x{n}");
    }
    assert!(!mma_f32_grid_short(4096, 14336, 0));
    assert_eq!(mma_f32_min_rows(4096, 14336, 4, 128, 0), 9);
    assert_eq!(mma_f32_min_rows(4096, 14336, 4, 32, 132), 9);
    assert_eq!(mma_f32_min_rows(4096, 14336, 2, 128, 132), 6);
    assert_eq!(mma_f32_min_rows(4096, 14336, 8, 64, 132), 6);
    // The boundaries at 4 / 5 rows (Llama-8B, 4-bit codes in blocks of 128; 5 / 6 for 2-bit
    // codes) and where the rule does not apply or a tunable wins.
    let llama = |rows: usize| shape(4096, 14336, rows, 4, 128, false);
    let with = |extra: &[(&str, i64)]| {
        let mut pairs = vec![("SHADER_CORES", 132)];
        pairs.extend_from_slice(extra);
        tunables(&pairs)
    };
    for (rows, t, want, what) in [
        (4, cores.clone(), "few", "default"),
        (5, cores.clone(), "tile", "default"),
        (8, none(), "few", "no core count"),
        (9, none(), "tile", "no core count"),
        (
            8,
            with(&[("MMA_F32_MIN_ROWS", 9)]),
            "few",
            "MMA_F32_MIN_ROWS=9",
        ),
        (
            9,
            with(&[("MMA_F32_MIN_ROWS", 9)]),
            "tile",
            "MMA_F32_MIN_ROWS=9",
        ),
        (7, with(&[("MMA_MIN_ROWS", 8)]), "few", "MMA_MIN_ROWS=8"),
        (8, with(&[("MMA_MIN_ROWS", 8)]), "tile", "MMA_MIN_ROWS=8"),
        (4, with(&[("MMA_MIN_ROWS", 3)]), "few", "MMA_MIN_ROWS=3"),
        (5, with(&[("MMA_MIN_ROWS", 3)]), "tile", "MMA_MIN_ROWS=3"),
        (
            4,
            with(&[("MMA_MIN_ROWS", 4), ("MMA_F32_MIN_ROWS", 4)]),
            "tile",
            "both 4",
        ),
    ] {
        assert_eq!(family(&llama(rows), &t), want, "{rows} rows, {what}");
    }
    let two = |rows: usize| shape(4096, 14336, rows, 2, 128, false);
    assert_eq!(
        family(&two(5), &cores),
        "few",
        "2-bit blocks of 128, 5 rows"
    );
    assert_eq!(
        family(&two(6), &cores),
        "tile",
        "2-bit blocks of 128, 6 rows"
    );
    let eight = shape(8192, 28672, 6, 8, 64, true);
    assert_eq!(
        family(&eight, &cores),
        "tile",
        "Llama-70B 8-bit blocks of 64, 6 rows"
    );
    let phi = shape(3072, 8192, 6, 4, 128, false);
    assert_eq!(family(&phi, &cores), "few");
    let p = big()
        .plan(&phi.call(), &with(&[("MMA_F32_MIN_ROWS", 6)]))
        .unwrap();
    assert_eq!(
        p.variant, "mmap_split_nogb_noub",
        "Phi-3-mini, MMA_F32_MIN_ROWS=6"
    );
}

/// Stream-K on prepared weights (`mmap_sk_*`): only where the profile knows the shader cores
/// (`SHADER_CORES`, a device tunable default: the GPU runtime's profile sets it from the
/// driver), and by default only where whole tiles would leave the last wave of about
/// SHADER_CORES x 2 workgroups at most three quarters full. On an H200-like profile (132 cores)
/// Llama-8B's 224 column ranges of 2 row tiles (80 and 128 rows) make 132 groups of 2
/// workgroups (last wave 70 % full), of 4 row tiles (256 rows) 66 groups of 4 (39 %): stream-K;
/// not at 64 rows (one row tile: 224 tiles, one wave of 264) nor 512 (8 row tiles, 33 groups:
/// 79 %). The grid is (row tiles, groups) and the fix-up pass follows. A call's own
/// SHADER_CORES or MMAP_STREAM_K wins over the profile; a profile value the tunable's limits
/// refuse is ignored.
#[test]
fn mmap_stream_k_where_the_last_wave_is_part_empty() {
    let h200 = Planner::project(
        DeviceProfile::discrete_gpu()
            .with_tunable("SHADER_CORES", 132)
            .with_tunable("MMAP_STREAM_K", AUTO),
    );
    let main = |p: &nbits_mlp_core::Plan| p.passes.iter().find(|q| q.id == "main").unwrap().clone();
    for (rows, sk) in [
        (64, None),
        (80, Some([2, 132, 1])),
        (128, Some([2, 132, 1])),
        (256, Some([4, 66, 1])),
        (512, None),
    ] {
        for norm in [false, true] {
            let mut s = MlpShape::new(4096, 14336, rows);
            s.dtype = DType::F16;
            s.norm = norm;
            s.skip = norm;
            let what = format!("{rows} rows, norm {norm}");
            let p = h200.plan(&s.call(), &none()).unwrap();
            let form = if norm { "skip_" } else { "" };
            let want = if sk.is_some() {
                format!("mmap_sk_{form}nogb_noub")
            } else {
                format!("mmap_{form}nogb_noub")
            };
            assert_eq!(p.variant, want, "{what}");
            let ids: Vec<&str> = p.passes.iter().map(|q| q.id.as_str()).collect();
            if let Some(grid) = sk {
                assert_eq!(main(&p).dispatch, grid, "{what}");
                assert_eq!(*ids.last().unwrap(), "fixup", "{what}");
                assert_eq!(p.passes.last().unwrap().dispatch, grid, "{what}");
                let g = format!("const G: u32 = {}u;", grid[1]);
                assert!(main(&p).wgsl.contains(&g), "{what}");
            } else {
                assert!(!ids.contains(&"fixup"), "{what}");
            }
            // Without the cores (the built-in profile), or with stream-K off: whole tiles.
            let off = big().plan(&s.call(), &none()).unwrap();
            assert_eq!(off.variant, format!("mmap_{form}nogb_noub"), "{what}");
            let off = h200
                .plan(&s.call(), &tunables(&[("MMAP_STREAM_K", 1)]))
                .unwrap();
            assert_eq!(off.variant, format!("mmap_{form}nogb_noub"), "{what}");
            assert_eq!(main(&off).dispatch[1], 224, "{what}: 64 columns a tile");
        }
    }
    let mut s = MlpShape::new(4096, 14336, 128);
    s.dtype = DType::F16;
    let with = |pairs: &[(&str, i64)]| h200.plan(&s.call(), &tunables(pairs)).unwrap();
    // The call's SHADER_CORES wins over the profile's: 64 cores make 64 groups of 2, and 224
    // column ranges leave the last of four waves 50 % full.
    let p = with(&[("SHADER_CORES", 64)]);
    assert_eq!(p.variant, "mmap_sk_nogb_noub");
    assert_eq!(main(&p).dispatch, [2, 64, 1]);
    // 112 cores: 112 groups, 224 column ranges are two whole waves.
    assert_eq!(with(&[("SHADER_CORES", 112)]).variant, "mmap_nogb_noub");
    // Forced (MMAP_STREAM_K 2) it takes every call with as many column ranges as groups.
    let forced = with(&[("SHADER_CORES", 112), ("MMAP_STREAM_K", 2)]);
    assert_eq!(forced.variant, "mmap_sk_nogb_noub");
    let p = with(&[("SHADER_CORES", 225), ("MMAP_STREAM_K", 2)]);
    assert_eq!(
        p.variant, "mmap_nogb_noub",
        "225 groups for 224 column ranges"
    );
    // By default (MMAP_STREAM_K 1) never, even where the cores are known.
    let cores = Planner::project(DeviceProfile::discrete_gpu().with_tunable("SHADER_CORES", 132));
    assert_eq!(
        cores.plan(&s.call(), &none()).unwrap().variant,
        "mmap_nogb_noub"
    );
    // A profile value outside the tunable's limits is ignored (the manifest's 0: unknown).
    let bad = Planner::project(
        DeviceProfile::discrete_gpu()
            .with_tunable("SHADER_CORES", -5)
            .with_tunable("MMAP_STREAM_K", AUTO),
    );
    assert_eq!(
        bad.plan(&s.call(), &none()).unwrap().variant,
        "mmap_nogb_noub"
    );
    // So is a name the manifest does not declare.
    let odd = Planner::project(DeviceProfile::discrete_gpu().with_tunable("NO_SUCH_TUNABLE", 1));
    assert!(odd.plan(&s.call(), &none()).is_ok());
}

/// The overlay's `mmal_*` variants (large tiles on tensor cores): off by default
/// (`MMAL_MIN_ROWS` 0), so f16 calls of every row count keep the other kernels; with
/// `MMAL_MIN_ROWS` set, every case of the coverage matrix takes its variant on a device with
/// cooperative matrices, one workgroup of 2 x 2 subgroups (128 invocations) per tile of 64
/// columns (dispatch y) x 32-128 rows (2 row groups x 1-4 row blocks of 16, by rows; dispatch
/// x); K in slices (`MMAL_SPLIT_K`) takes `mmal_split_*` with the reduce pass; the tile
/// tunables shape the workgroup, and a tile that does not fit 8 subgroups or the workgroup
/// storage leaves the call to the others; without either feature, for f32 models, below
/// `MMAL_MIN_ROWS`, past `MMAL_MAX_ROWS` or with too little workgroup storage the others run.
#[test]
fn mmal_variants_large_tiles() {
    use nbits_mlp_core::coverage::mmal_matrix;
    let with = DeviceProfile::discrete_gpu();
    let on = |pairs: &[(&str, i64)]| {
        let mut t = tunables(pairs);
        t.entry("MMAL_MIN_ROWS".into()).or_insert(2);
        t
    };
    let not_mmal = |p: &nbits_mlp_core::Plan, what: &str| {
        assert!(!p.variant.starts_with("mmal"), "{what}: {}", p.variant);
    };
    let mut reached = std::collections::BTreeSet::new();
    for case in mmal_matrix() {
        let s = &case.shape;
        let rows = s.rows();
        // Off with MMAL_MIN_ROWS 0.
        not_mmal(
            &big()
                .plan(&s.call(), &tunables(&[("MMAL_MIN_ROWS", 0)]))
                .unwrap(),
            &case.name,
        );
        let plan = big().plan(&s.call(), &on(&[("MMAL_SPLIT_K", 1)])).unwrap();
        assert_eq!(plan.variant, case.expect, "{}", case.name);
        t1_norm_row(&plan, s, &on(&[("MMAL_SPLIT_K", 1)]), &case.name);
        reached.insert(plan.variant.clone());
        let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
        let tm = 32 * rows.div_ceil(32).clamp(1, 4);
        assert_eq!(
            main.dispatch,
            [rows.div_ceil(tm) as u32, s.n.div_ceil(64) as u32, 1],
            "{}",
            case.name
        );
        assert_eq!(main.workgroup_size, [256, 1, 1]);
        assert!(main
            .wgsl
            .starts_with("enable f16;\nenable wgpu_cooperative_matrix;\n"));
        assert_eq!(
            plan.passes.len(),
            if s.norm { 2 } else { 1 },
            "{}",
            case.name
        );
        // K in 3 slices: the split variant and its reduce pass.
        let split = big().plan(&s.call(), &on(&[("MMAL_SPLIT_K", 3)])).unwrap();
        assert_eq!(
            split.variant,
            case.expect.replacen("mmal_", "mmal_split_", 1),
            "{}",
            case.name
        );
        reached.insert(split.variant.clone());
        let main = split.passes.iter().find(|p| p.id == "main").unwrap();
        // (3 slices wanted; whole chunks of 32 codes per slice, so K 120's 4 chunks take 2.)
        let chunks = s.k.div_ceil(32);
        let slices = chunks.div_ceil(chunks.div_ceil(3.min(chunks)));
        assert_eq!(main.dispatch[2] as usize, slices, "{}", case.name);
        assert_eq!(split.passes.last().unwrap().id, "reduce");
        // The tile tunables: (col blocks, col groups, row groups, row blocks) -> workgroup size
        // and dispatch; 8 subgroups of 2 x 16 columns and 4 x 16 rows would need more than
        // 48 KiB, and more than 8 subgroups are refused: the others run.
        for (cb, wc, wr, rb, fits) in [
            (1, 1, 1, 1, true),
            (2, 1, 1, 4, true),
            (1, 2, 4, 1, true),
            (1, 4, 2, 4, true),
            (2, 4, 2, 4, false),
            (2, 4, 4, 1, false),
        ] {
            let t = on(&[
                ("MMAL_COL_BLOCKS", cb),
                ("MMAL_COL_GROUPS", wc),
                ("MMAL_ROW_GROUPS", wr),
                ("MMAL_ROW_BLOCKS", rb),
                ("MMAL_SPLIT_K", 1),
            ]);
            let p = big().plan(&s.call(), &t).unwrap();
            let what = format!("{} {cb} {wc} {wr} {rb}", case.name);
            if !fits {
                not_mmal(&p, &what);
                continue;
            }
            assert_eq!(p.variant, case.expect, "{what}");
            let main = p.passes.iter().find(|p| p.id == "main").unwrap();
            let (tn, tm) = (16 * cb * wc, 16 * rb * wr);
            assert_eq!(main.workgroup_size, [32 * (wc * wr) as u32, 1, 1], "{what}");
            assert_eq!(
                main.dispatch,
                [
                    rows.div_ceil(tm as usize) as u32,
                    s.n.div_ceil(tn as usize) as u32,
                    1
                ],
                "{what}"
            );
        }
        // A value the template cannot render is refused up front, naming the tunable.
        let e = big()
            .plan(&s.call(), &on(&[("MMAL_COL_GROUPS", 3)]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("MMAL_COL_GROUPS"), "{e}");
        // Without either feature, for f32 models, or with too little workgroup storage for
        // the smallest default tile (64 columns x 32 rows: 33 792 bytes), another kernel.
        for missing in ["coop-f16-16x16x16-f32", "subgroup-size-32"] {
            let p = Planner::project(with.without_feature(missing))
                .plan(&s.call(), &on(&[]))
                .unwrap();
            not_mmal(&p, &format!("{} without {missing}", case.name));
        }
        let p = Planner::project(with.with_limit("maxComputeWorkgroupStorageSize", 32768))
            .plan(&s.call(), &on(&[]))
            .unwrap();
        not_mmal(&p, &format!("{} with 32 KiB", case.name));
        let mut f32_shape = s.clone();
        f32_shape.dtype = DType::F32;
        not_mmal(
            &big().plan(&f32_shape.call(), &on(&[])).unwrap(),
            &format!("{} f32", case.name),
        );
        // The row range.
        let min = rows as i64 + 1;
        not_mmal(
            &big()
                .plan(&s.call(), &on(&[("MMAL_MIN_ROWS", min)]))
                .unwrap(),
            &format!("{} below MMAL_MIN_ROWS", case.name),
        );
        not_mmal(
            &big()
                .plan(&s.call(), &on(&[("MMAL_MAX_ROWS", rows as i64 - 1)]))
                .unwrap(),
            &format!("{} past MMAL_MAX_ROWS", case.name),
        );
    }
    assert_eq!(reached.len(), 32, "{reached:?}");
    // Llama-3.1-8B with MMAL_MIN_ROWS=65: 64 rows keep mmap, 65 and more take mmal in tiles of
    // 96 rows (65-96 rows) or 128 rows (more), one slice of K (224 column ranges already fill the
    // GPU); by default (MMAL_MIN_ROWS 0) mmap everywhere, and `plan --explain` says why.
    let mut s = MlpShape::new(4096, 14336, 64);
    s.dtype = DType::F16;
    let t = tunables(&[("MMAL_MIN_ROWS", 65)]);
    for (rows, want, dispatch) in [
        (64, "mmap_nogb_noub", Some([1, 224, 1])),
        (65, "mmal_nogb_noub", Some([1, 224, 1])),
        (96, "mmal_nogb_noub", Some([1, 224, 1])),
        (128, "mmal_nogb_noub", Some([1, 224, 1])),
        (256, "mmal_nogb_noub", Some([2, 224, 1])),
        (512, "mmal_nogb_noub", Some([4, 224, 1])),
    ] {
        s.lead = vec![rows];
        let p = big().plan(&s.call(), &t).unwrap();
        assert_eq!(p.variant, want, "rows {rows}");
        if let Some(d) = dispatch {
            let main = p.passes.iter().find(|p| p.id == "main").unwrap();
            assert_eq!(main.dispatch, d, "rows {rows}");
        }
        let off = big().plan(&s.call(), &none()).unwrap();
        assert!(
            off.variant.starts_with("mmap_"),
            "rows {rows}: {}",
            off.variant
        );
        let v = off
            .verdicts
            .iter()
            .find(|v| v.variant == "mmal_nogb_noub")
            .unwrap();
        assert!(!v.applies);
        assert!(
            v.rejected_by.as_deref().unwrap_or("").contains("mmalFits"),
            "{v:?}"
        );
    }
    // Small models at 65 rows: 76 column ranges stay whole (128 / 76 rounds to one slice); 32
    // are split in 3 (128 workgroups wanted, at most one slice per 8 chunks of K: 28 chunks).
    let mut s = MlpShape::new(896, 4864, 65);
    s.dtype = DType::F16;
    let p = big().plan(&s.call(), &t).unwrap();
    assert_eq!(p.variant, "mmal_nogb_noub");
    let mut s = MlpShape::new(896, 2048, 65);
    s.dtype = DType::F16;
    let p = big().plan(&s.call(), &t).unwrap();
    assert_eq!(p.variant, "mmal_split_nogb_noub");
    let main = p.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(main.dispatch, [1, 32, 3]);
}

/// Asserts the tile of a `mma`/`mmap` plan's main pass: its dispatch, its 16-row blocks per
/// tile, whether gate and up are staged in turns (`mmaSeq`) and its chunks per activation block
/// (`mmaActBlock`, 0 for none).
fn mma_tile(
    plan: &nbits_mlp_core::Plan,
    dispatch: [u32; 3],
    row_blocks: i64,
    seq: bool,
    act_block: i64,
    what: &str,
) {
    let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(main.dispatch, dispatch, "{what}");
    assert_eq!(
        main.context["mmaRowBlocks"],
        serde_json::json!(row_blocks),
        "{what}"
    );
    assert_eq!(main.context["mmaSeq"], serde_json::json!(seq), "{what}");
    // In turns, the slab's two barriers are subgroup barriers on a device that has them (the
    // discrete-gpu profile does) at the default MMA_SUBGROUP_BARRIER.
    assert_eq!(
        main.context["mmaSubgroupBarrier"],
        serde_json::json!(seq),
        "{what}"
    );
    assert_eq!(main.wgsl.contains("subgroupBarrier();"), seq, "{what}");
    assert_eq!(
        main.context["mmaActBlock"],
        serde_json::json!(act_block),
        "{what}"
    );
    // Two activation tiles in turns where tiles of 2 row blocks fit one wave (256 tiles), but
    // with activation blocks.
    let tiles = dispatch[0] * dispatch[1];
    let tiles2 = seq && act_block == 0 && row_blocks <= 2 && tiles <= 256;
    assert_eq!(
        main.context["mmaActBuffers"],
        serde_json::json!(if tiles2 { 2 } else { 1 }),
        "{what}"
    );
}

/// A `gemvp` plan's main pass at the default tunables: one workgroup per 8 rows (dispatch x) by
/// 16 columns (dispatch y), 16 x 16 slices invocations, the four weight bindings (indices 3, 4,
/// 6, 7: codes and scales of gate and of up) in the prepared layouts. Returns the pass and the
/// prepared bindings' (index, element bytes), in index order.
fn gemvp_main_pass<'p>(
    plan: &'p nbits_mlp_core::Plan,
    s: &MlpShape,
    name: &str,
) -> (&'p nbits_mlp_core::plan::PassPlan, Vec<(usize, usize)>) {
    use nbits_mlp_core::plan::Resource;
    let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
    assert_eq!(
        main.dispatch,
        [s.rows().div_ceil(8) as u32, s.n.div_ceil(16) as u32, 1],
        "{name}"
    );
    assert_eq!(main.workgroup_size, [256, 1, 1], "{name}");
    let mut prepared: Vec<(usize, usize)> = main
        .bindings
        .iter()
        .filter_map(|b| match &b.resource {
            Resource::Prepared { index, weights, .. } => Some((*index, weights.elem_bytes)),
            _ => None,
        })
        .collect();
    prepared.sort();
    assert_eq!(
        prepared.iter().map(|p| p.0).collect::<Vec<_>>(),
        [3, 4, 6, 7],
        "{name}"
    );
    (main, prepared)
}

/// (K, N) of the bench suite's models: Qwen2.5-0.5B, Llama-3.2-1B, Qwen3-1.7B, Phi-3-mini,
/// Qwen2.5-7B, Llama-3.1-8B, Llama-3.1-70B.
const SUITE_SHAPES: [(usize, usize); 7] = [
    (896, 4864),
    (2048, 8192),
    (2048, 6144),
    (3072, 8192),
    (3584, 18944),
    (4096, 14336),
    (8192, 28672),
];

/// The main pass of the plan for a `k` x `n` call of `rows` rows and `dtype` on a device without
/// cooperative matrices (with the tunables `t`), which must take a `gemvp` variant.
fn gemvp_main(
    k: usize,
    n: usize,
    rows: usize,
    dtype: DType,
    t: &Tunables,
) -> nbits_mlp_core::plan::PassPlan {
    let planner =
        Planner::project(DeviceProfile::discrete_gpu().without_feature("coop-f16-16x16x16-f32"));
    let mut s = MlpShape::new(k, n, rows);
    s.dtype = dtype;
    let p = planner.plan(&s.call(), t).unwrap();
    assert!(
        p.variant.starts_with("gemvp_"),
        "{k} x {n}, {rows} rows {dtype:?}: {}",
        p.variant
    );
    p.passes.iter().find(|p| p.id == "main").unwrap().clone()
}

/// `gemvp`'s rows per workgroup (`gemvpRows`, GEMVP_ROWS 0): all the rows up to 8 in one
/// group, but 6 rows in two groups of 3 (dispatch x 2), f16 and f32 calls alike; an explicit
/// GEMVP_ROWS is taken as it is.
#[test]
fn gemvp_rows_per_workgroup() {
    for (rows, dtype, t, groups) in [
        (5, DType::F16, none(), 1),
        (6, DType::F16, none(), 2),
        (7, DType::F16, none(), 1),
        (8, DType::F16, none(), 1),
        (9, DType::F16, none(), 2),
        (6, DType::F32, none(), 2),
        (7, DType::F32, none(), 1),
        (6, DType::F16, tunables(&[("GEMVP_ROWS", 6)]), 1),
        (6, DType::F16, tunables(&[("GEMVP_ROWS", 4)]), 2),
    ] {
        let main = gemvp_main(3584, 18944, rows, dtype, &t);
        assert_eq!(main.dispatch[0], groups, "{rows} rows {dtype:?} {t:?}");
    }
}

/// The float32 form's block scales folded into each decoded weight (`gemvpFold`, tunable
/// `GEMVP_F32_FOLD` 0 = the rule): where a workgroup holds 5-7 rows, so not at 4 or 8 rows, nor at
/// 6 rows (two workgroups of 3), nor in the f16 form; 1 never, 2 always (a row group of 3 too).
#[test]
fn gemvp_f32_fold_where_a_workgroup_holds_5_to_7_rows() {
    for (rows, dtype, t, fold) in [
        (2, DType::F32, none(), false),
        (4, DType::F32, none(), false),
        (5, DType::F32, none(), true),
        (6, DType::F32, none(), false),
        (7, DType::F32, none(), true),
        (8, DType::F32, none(), false),
        (12, DType::F32, none(), false),
        (6, DType::F32, tunables(&[("GEMVP_ROWS", 6)]), true),
        (10, DType::F32, tunables(&[("GEMVP_ROWS", 5)]), true),
        (5, DType::F32, tunables(&[("GEMVP_F32_FOLD", 1)]), false),
        (3, DType::F32, tunables(&[("GEMVP_F32_FOLD", 2)]), true),
        (6, DType::F32, tunables(&[("GEMVP_F32_FOLD", 2)]), true),
        (5, DType::F16, none(), false),
        (5, DType::F16, tunables(&[("GEMVP_F32_FOLD", 2)]), false),
    ] {
        let main = gemvp_main(3584, 18944, rows, dtype, &t);
        assert_eq!(
            main.context["gemvpFold"],
            serde_json::json!(fold),
            "{rows} rows {dtype:?} {t:?}"
        );
    }
}

/// The float32 form's one-wave tile (`GEMVP_COLS` / `GEMVP_SLICES` 0 where the device reports
/// its shader cores): at 2-8 rows one workgroup of the call's rows (6 rows two of 3, 8 two of 4),
/// each with the columns and slices of `gemvp_f32_wave_tile` (at most one workgroup per core, the
/// slices' sums within the workgroup memory, at most 32 chunks a slice) for every model shape of
/// the suite and a few odd core counts; 9 rows, f16 calls, no cores, explicit tiles, rows per
/// workgroup or columns per invocation keep the 16 x 16 tile.
#[test]
fn gemvp_f32_one_wave() {
    use nbits_mlp_core::coverage::gemvp_f32_wave_tile;
    let plan = |k: usize, n: usize, rows: usize, dtype: DType, t: &[(&str, i64)]| {
        let main = gemvp_main(k, n, rows, dtype, &tunables(t));
        (main.workgroup_size[0] as usize, main.dispatch)
    };
    let mut waves = 0;
    for (k, n) in SUITE_SHAPES.into_iter().chain([(200, 40)]) {
        for cores in [132usize, 7, 1] {
            for rows in 2..=9 {
                let t = [("SHADER_CORES", cores as i64)];
                let (wg, dispatch) = plan(k, n, rows, DType::F32, &t);
                let what = format!("K {k} N {n} rows {rows} {cores} cores");
                let lim = discrete_wave(cores);
                match gemvp_f32_wave_tile(rows, k, n, &lim) {
                    Some((rg, cols, slices)) => {
                        waves += 1;
                        assert_eq!(wg, cols * slices, "{what}");
                        let groups = rows.div_ceil(rg);
                        assert_eq!(
                            dispatch,
                            [groups as u32, n.div_ceil(cols) as u32, 1],
                            "{what}"
                        );
                        assert!(
                            cols * slices <= lim.max_invocations
                                && 8 * slices * rg * cols <= lim.storage,
                            "{what}"
                        );
                        if cols < 1024 {
                            assert!(
                                groups * n.div_ceil(cols) <= cores.max(groups),
                                "{what}: one wave"
                            );
                        }
                        assert_eq!(rg, [0, 0, 2, 3, 4, 5, 3, 7, 4][rows], "{what}");
                    }
                    None => {
                        assert_eq!(wg, 256, "{what}: 16 x 16");
                    }
                }
            }
        }
        // Not on the one-wave tile: f16, no cores, the tile or the rows per workgroup given.
        for t in [
            vec![],
            vec![("SHADER_CORES", 132), ("GEMVP_COLS", 16)],
            vec![("SHADER_CORES", 132), ("GEMVP_ROWS", 4)],
            vec![("SHADER_CORES", 132), ("GEMVP_LANE_COLS", 2)],
        ] {
            let (wg, _) = plan(k, n, 4, DType::F32, &t);
            assert_eq!(wg, 256, "K {k} N {n} {t:?}");
        }
        let (wg, _) = plan(
            k,
            n,
            4,
            DType::F16,
            &[
                ("SHADER_CORES", 132),
                ("GEMVP_INLINE_NORM", 0),
                ("GEMVP_STAGE_MIN_COLS", 0),
            ],
        );
        assert_eq!(wg, 256, "K {k} N {n} f16");
    }
    // An explicit slice count keeps the one-wave columns.
    let (wg, dispatch) = plan(
        4096,
        14336,
        4,
        DType::F32,
        &[("SHADER_CORES", 132), ("GEMVP_SLICES", 2)],
    );
    assert_eq!((wg, dispatch), (224, [1, 128, 1]));
    // Llama-8B: 112 x 8 at 2-5 rows, 112 x 7 at 7, 224 x 4 in groups of 3 / 4 at 6 / 8 rows.
    let t = [("SHADER_CORES", 132)];
    assert_eq!(plan(4096, 14336, 7, DType::F32, &t), (784, [1, 128, 1]));
    assert_eq!(plan(4096, 14336, 6, DType::F32, &t), (896, [2, 64, 1]));
    assert_eq!(plan(4096, 14336, 5, DType::F32, &t), (896, [1, 128, 1]));
    assert_eq!(plan(4096, 14336, 8, DType::F32, &t), (896, [2, 64, 1]));
    // Llama-70B: 224 x 4 at 2-5 rows; at 7 / 8 rows 224 x 3 / 448 x 2 would walk 43 / 64 chunks
    // a slice: 16 x 16.
    assert_eq!(plan(8192, 28672, 7, DType::F32, &t), (256, [1, 1792, 1]));
    assert_eq!(plan(8192, 28672, 5, DType::F32, &t), (896, [1, 128, 1]));
    assert_eq!(plan(8192, 28672, 8, DType::F32, &t), (256, [1, 1792, 1]));
    assert!(waves >= 60, "{waves}");
}

/// The overlay's `gemvp_*` variants (a few rows of an f16 model on the prepared `mma-tiles`
/// weights, one invocation per column): on a device with `shader-f16` and without cooperative
/// matrices every case of their coverage matrix takes its variant (2-16 rows by default), its
/// weight bindings are the caller's weights in the prepared layouts, one workgroup per group of
/// rows (`gemvpRows`: up to 8; dispatch x) by 16 columns (dispatch y), 16 x 16 slices invocations; the
/// norm forms write the normalised rows as f16 in their first pass. With cooperative matrices
/// the tensor-core kernels (priority above) take the rows from `MMA_MIN_ROWS` (7): `gemvp` keeps
/// 2-6. Elsewhere the others: one row, past `GEMVP_MAX_ROWS`, with it 0, K not a multiple of 8;
/// f32 models take the float32 form of the same form and bias (`gemvp_f32_*`) where their own
/// row range (`GEMVP_F32_MAX_ROWS`, 64) has the rows.
#[test]
fn gemvp_variants_read_prepared_weights() {
    use nbits_mlp_core::coverage::{gemvp_f32_rows, gemvp_matrix, gemvp_one_row, gemvp_rows};
    let no_coop =
        || Planner::project(DeviceProfile::discrete_gpu().without_feature("coop-f16-16x16x16-f32"));
    // The norm forms in two passes (one pass by default: `gemvp_fused_*`, tested below).
    let two_pass = || tunables(&[("GEMVP_INLINE_NORM", 0)]);
    let mut reached = std::collections::BTreeSet::new();
    for case in gemvp_matrix() {
        let s = &case.shape;
        let plan = no_coop().plan(&s.call(), &two_pass()).unwrap();
        assert_eq!(plan.variant, case.expect, "{}", case.name);
        reached.insert(plan.variant.clone());
        // With cooperative matrices: below MMA_MIN_ROWS only (or with it raised).
        let with = big().plan(&s.call(), &two_pass()).unwrap();
        assert_eq!(
            with.variant.starts_with("gemvp_"),
            s.rows() < 7,
            "{}: {}",
            case.name,
            with.variant
        );
        let raised = big()
            .plan(
                &s.call(),
                &tunables(&[("MMA_MIN_ROWS", 17), ("GEMVP_INLINE_NORM", 0)]),
            )
            .unwrap();
        assert_eq!(
            raised.variant, case.expect,
            "{} with MMA_MIN_ROWS=17",
            case.name
        );
        gemvp_main_pass(&plan, s, &case.name);
        assert_eq!(
            plan.passes.len(),
            if s.norm { 2 } else { 1 },
            "{}",
            case.name
        );
        if s.norm {
            assert!(
                plan.passes[0].wgsl.contains("normed[base + k] = f16("),
                "{}: the norm pass writes f16",
                case.name
            );
        }
        // The tunables: rows per group, invocations along the columns, slices, columns per
        // invocation.
        let t = tunables(&[
            ("GEMVP_ROWS", 3),
            ("GEMVP_COLS", 64),
            ("GEMVP_SLICES", 4),
            ("GEMVP_LANE_COLS", 2),
            ("GEMVP_INLINE_NORM", 0),
        ]);
        let p = no_coop().plan(&s.call(), &t).unwrap();
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(
            main.dispatch,
            [s.rows().div_ceil(3) as u32, s.n.div_ceil(128) as u32, 1]
        );
        assert_eq!(main.workgroup_size, [256, 1, 1]);
        // Elsewhere the others.
        let not_gemvp = |shape: &MlpShape, t: &Tunables, what: &str| {
            let p = no_coop().plan(&shape.call(), t).unwrap();
            assert!(
                !p.variant.starts_with("gemvp"),
                "{} {what}: {}",
                case.name,
                p.variant
            );
        };
        not_gemvp(s, &tunables(&[("GEMVP_MAX_ROWS", 0)]), "GEMVP_MAX_ROWS=0");
        let mut other = s.clone();
        other.lead = vec![*gemvp_rows().end() + 1];
        not_gemvp(&other, &none(), "past GEMVP_MAX_ROWS");
        // One row: where gemvp_one_row says (GEMVP_ONE_ROW 0), never with GEMVP_ONE_ROW 1.
        other.lead = vec![1];
        not_gemvp(
            &other,
            &tunables(&[("GEMVP_ONE_ROW", 1)]),
            "one row, GEMVP_ONE_ROW=1",
        );
        let one = no_coop().plan(&other.call(), &none()).unwrap();
        assert_eq!(
            one.variant.starts_with("gemvp"),
            gemvp_one_row(s.bits, s.k, s.block_size),
            "{} one row: {}",
            case.name,
            one.variant
        );
        let mut f32_shape = s.clone();
        f32_shape.dtype = DType::F32;
        if gemvp_f32_rows().contains(&s.rows()) {
            let p = no_coop().plan(&f32_shape.call(), &none()).unwrap();
            assert_eq!(
                p.variant,
                case.expect.replacen("gemvp_", "gemvp_f32_", 1),
                "{} f32",
                case.name
            );
        } else {
            not_gemvp(&f32_shape, &none(), "f32 past GEMVP_F32_MAX_ROWS");
        }
        let mut odd_k = s.clone();
        odd_k.k += 4;
        not_gemvp(&odd_k, &none(), "K % 8 != 0");
    }
    assert_eq!(reached.len(), 16, "{reached:?}");
}

/// The norm forms of the few-rows kernel in one pass (`gemvp_fused_*`, f16 calls): every case of
/// its coverage matrix takes its variant on a device with `shader-f16` without cooperative
/// matrices (with them, below `MMA_MIN_ROWS`, 7), in one pass (no RMSNorm pass, no
/// intermediate) on `gemvp`'s row groups with its own tile (64 columns x 8 slices, or
/// `GEMVP_FUSED_COLS` x `GEMVP_FUSED_SLICES`: at 16 x 16 `gemvp`'s grid), binding A, skip, norm_scale
/// and the residual output as the call has them and the weights in the prepared layouts, with
/// the workgroup's rows in workgroup memory. The boundaries of `gemvpFusedOk` with this fixed
/// tile (the profile reports no shader cores): the rows a workgroup normalises at most 20 KiB
/// (`GEMVP_FUSED_ROW_BYTES` 0, the default, or 20480): 2 rows with K 5120 and 6 rows (two groups
/// of 3) with K 3408 take one pass, 8 more values per row two; with that raised, the discrete
/// GPU's 48 KiB of workgroup memory: 2 rows with K 12248 fit (4 * 12248 rows' bytes, which the
/// slices' sums share, + 136 = 49128), 12256 do not. Those, `GEMVP_INLINE_NORM=0` and every f32
/// call take `gemvp`'s two passes.
#[test]
fn gemvp_fused_where_the_rows_fit() {
    use nbits_mlp_core::coverage::{
        gemvp_fused_bytes, gemvp_fused_matrix, gemvp_group_rows, GEMVP_FUSED_ROW_BYTES,
    };
    use nbits_mlp_core::plan::Resource;
    let no_coop =
        || Planner::project(DeviceProfile::discrete_gpu().without_feature("coop-f16-16x16x16-f32"));
    let mut reached = std::collections::BTreeSet::new();
    for case in gemvp_fused_matrix() {
        let s = &case.shape;
        let plan = no_coop().plan(&s.call(), &none()).unwrap();
        assert_eq!(plan.variant, case.expect, "{}", case.name);
        reached.insert(plan.variant.clone());
        assert_eq!(plan.passes.len(), 1, "{}: one pass", case.name);
        assert!(plan.intermediates.is_empty(), "{}", case.name);
        let two = no_coop()
            .plan(&s.call(), &tunables(&[("GEMVP_INLINE_NORM", 0)]))
            .unwrap();
        assert_eq!(
            two.variant,
            case.expect.replacen("gemvp_fused_", "gemvp_", 1),
            "{}",
            case.name
        );
        // Its own tile: 64 columns (GEMVP_FUSED_COLS) x 8 slices (GEMVP_FUSED_SLICES); the
        // row groups of `gemvp`.
        let main = &plan.passes[0];
        let two_main = two.passes.iter().find(|p| p.id == "main").unwrap();
        let rg = gemvp_group_rows(s.rows());
        assert_eq!(
            main.dispatch,
            [s.rows().div_ceil(rg) as u32, s.n.div_ceil(64) as u32, 1],
            "{}",
            case.name
        );
        assert_eq!(main.dispatch[0], two_main.dispatch[0], "{}", case.name);
        assert_eq!(main.workgroup_size, [512, 1, 1], "{}", case.name);
        let p = no_coop()
            .plan(
                &s.call(),
                &tunables(&[("GEMVP_FUSED_COLS", 16), ("GEMVP_FUSED_SLICES", 16)]),
            )
            .unwrap();
        assert_eq!(p.variant, case.expect, "{}", case.name);
        assert_eq!(p.passes[0].dispatch, two_main.dispatch, "{}", case.name);
        assert_eq!(p.passes[0].workgroup_size, [256, 1, 1], "{}", case.name);
        let names: Vec<&str> = main.bindings.iter().map(|b| b.name.as_str()).collect();
        let mut want = vec!["a"];
        if s.skip {
            want.push("skip");
        }
        want.push("norm_scale");
        if s.residual {
            want.push("residual");
        }
        want.extend(["gate_b", "gate_scales"]);
        if s.gate_bias {
            want.push("gate_bias");
        }
        want.extend(["up_b", "up_scales"]);
        if s.up_bias {
            want.push("up_bias");
        }
        want.push("y");
        assert_eq!(names, want, "{}", case.name);
        let prepared = main
            .bindings
            .iter()
            .filter(|b| matches!(b.resource, Resource::Prepared { .. }))
            .count();
        assert_eq!(prepared, 4, "{}", case.name);
        assert!(
            main.wgsl.contains(&format!(
                "var<workgroup> xs: array<vec4<u32>, {}>",
                (rg * s.k / 8).max(8 * 8 * rg * 64 / 16)
            )),
            "{}: the rows in workgroup memory",
            case.name
        );
        // With cooperative matrices: below MMA_MIN_ROWS only.
        let with = big().plan(&s.call(), &none()).unwrap();
        assert_eq!(
            with.variant == case.expect,
            s.rows() < 7,
            "{}: {}",
            case.name,
            with.variant
        );
        // f32 calls: the float32 form's two passes (one row: the gemv's, in one pass or two).
        let mut f32_shape = s.clone();
        f32_shape.dtype = DType::F32;
        let p = no_coop().plan(&f32_shape.call(), &none()).unwrap();
        let f32_family = if s.rows() == 1 { "gemv_" } else { "gemvp_f32_" };
        assert_eq!(
            p.variant.replacen("gemv_fused_", "gemv_", 1),
            case.expect.replacen("gemvp_fused_", f32_family, 1),
            "{} f32",
            case.name
        );
    }
    assert_eq!(reached.len(), 12, "{reached:?}");
    // The boundaries: the normalised rows at 20 KiB (`GEMVP_FUSED_ROW_BYTES` at its default and
    // set to that), and with that raised, the workgroup memory (48 KiB on the discrete GPU).
    // (The reduction's levels go into the rows' memory where they do not fit beside it: 2 rows
    // of K 12288 fill the 48 KiB.)
    assert_eq!(gemvp_fused_bytes(2, 12288), 49152);
    assert_eq!(gemvp_fused_bytes(2, 12296), 49184);
    let cap = GEMVP_FUSED_ROW_BYTES as i64;
    for (rows, k_fit, cap) in [
        (2usize, 5120usize, None),
        (6, 3408, None),
        (2, 5120, Some(cap)),
        (6, 3408, Some(cap)),
        (2, 12288, Some(65536)),
    ] {
        for (k, one_pass) in [(k_fit, true), (k_fit + 8, false)] {
            let mut s = MlpShape::new(k, 40, rows);
            s.dtype = DType::F16;
            (s.norm, s.skip) = (true, true);
            let t = cap.map_or_else(none, |c| tunables(&[("GEMVP_FUSED_ROW_BYTES", c)]));
            let p = no_coop().plan(&s.call(), &t).unwrap();
            let want = if one_pass {
                "gemvp_fused_skip_nogb_noub"
            } else {
                "gemvp_skip_nogb_noub"
            };
            assert_eq!(p.variant, want, "{rows} rows K {k} cap {cap:?}");
        }
    }
}

/// The one pass's one-wave tile (`GEMVP_FUSED_COLS` and `_SLICES` 0, the defaults, on a device
/// that reports its shader cores, `SHADER_CORES`): the suite's models at 2-5 rows of the
/// discrete GPU with 132 cores take `gemvp_fused_*` with the columns and slices of
/// `gemvp_fused_wave_tile` (Llama-3.1-8B 112 x 8 in 128 workgroups, Qwen2.5-7B 144 x 7 in 132,
/// Llama-3.1-70B 224 x 4 at 2 rows), with no 20 KiB cap on the rows (Llama-8B's 5 rows hold 40
/// KiB) but the workgroup memory (Llama-70B at 3 rows, exactly 48 KiB of rows, in one pass with
/// the reduction's levels in the rows' memory, `gemvp_fused_alias`; at 4 rows two passes), `xs`
/// the larger of the rows and the slices' sums. An explicit cap (`GEMVP_FUSED_ROW_BYTES`) or columns
/// (`GEMVP_FUSED_COLS` 64: the fixed tile, its 8 slices and its cap) still apply; WebGPU's
/// default limit of 256 invocations holds the workgroup to 256; the memory boundary at 5 rows of
/// N 14336 follows `gemvp_fused_tile_bytes` on both sides; 6 rows (two groups of 3) count the
/// groups in the wave.
#[test]
fn gemvp_fused_one_wave() {
    use nbits_mlp_core::coverage::{
        gemvp_fused_alias, gemvp_fused_tile_bytes, gemvp_fused_wave_tile, gemvp_group_rows,
    };
    let dev = DeviceProfile::discrete_gpu().without_feature("coop-f16-16x16x16-f32");
    let planner = Planner::project(dev.clone());
    let cores = 132usize;
    let wave = |extra: &[(&str, i64)]| {
        let mut t = tunables(&[("SHADER_CORES", cores as i64)]);
        t.extend(tunables(extra));
        t
    };
    let norm_shape = |k: usize, n: usize, rows: usize| {
        let mut s = MlpShape::new(k, n, rows);
        s.dtype = DType::F16;
        (s.norm, s.skip, s.residual) = (true, true, true);
        s
    };
    let mut seen = std::collections::BTreeSet::new();
    for (k, n) in SUITE_SHAPES {
        for rows in 2..=6 {
            let s = norm_shape(k, n, rows);
            let p = planner.plan(&s.call(), &wave(&[])).unwrap();
            let rg = gemvp_group_rows(rows);
            let lim = WaveLimits::of(&dev, cores);
            let (cols, slices) = gemvp_fused_wave_tile(rows, k, n, &lim);
            let bytes = gemvp_fused_tile_bytes(rg, k, cols, slices, 1);
            let what = format!("K {k} N {n} rows {rows}: {}", p.variant);
            if bytes > lim.storage {
                assert_eq!(p.variant, "gemvp_skipsum_nogb_noub", "{what}");
                continue;
            }
            assert_eq!(p.variant, "gemvp_fused_skipsum_nogb_noub", "{what}");
            let main = &p.passes[0];
            assert_eq!(
                main.workgroup_size,
                [(cols * slices) as u32, 1, 1],
                "{what}"
            );
            let groups = rows.div_ceil(rg);
            assert_eq!(
                main.dispatch,
                [groups as u32, n.div_ceil(cols) as u32, 1],
                "{what}"
            );
            assert!(groups * n.div_ceil(cols) <= cores, "{what}: one wave");
            assert!(cols * slices <= 1024, "{what}");
            let xs = (rg * k / 8).max((8 * slices * rg * cols).div_ceil(16));
            assert!(
                main.wgsl
                    .contains(&format!("var<workgroup> xs: array<vec4<u32>, {xs}>")),
                "{what}: xs of {xs} vectors"
            );
            let alias = gemvp_fused_alias(rg, k, cols, slices, lim.storage);
            assert_eq!(main.wgsl.contains("const XSS: u32"), alias, "{what}");
            assert_eq!(main.wgsl.contains("var<workgroup> xss"), !alias, "{what}");
            seen.insert((k, n, rows, cols, slices, alias));
        }
    }
    for want in [
        (4096, 14336, 4, 112, 8, false),
        (4096, 14336, 5, 112, 8, false),
        (3584, 18944, 2, 144, 7, false),
        (8192, 28672, 2, 224, 4, false),
        (8192, 28672, 3, 224, 4, true),
        (8192, 28672, 6, 448, 2, true),
        (2048, 8192, 3, 64, 16, false),
    ] {
        assert!(seen.contains(&want), "{want:?} not planned: {seen:?}");
    }
    // Llama-70B at 3 rows (exactly 48 KiB of rows) fits with the reduction's levels in the
    // rows' memory; at 4 rows it does not: two passes.
    let p = planner
        .plan(&norm_shape(8192, 28672, 3).call(), &wave(&[]))
        .unwrap();
    assert_eq!(p.variant, "gemvp_fused_skipsum_nogb_noub");
    assert!(p.passes[0].wgsl.contains("const XSS: u32"));
    let p = planner
        .plan(&norm_shape(8192, 28672, 4).call(), &wave(&[]))
        .unwrap();
    assert_eq!(p.variant, "gemvp_skipsum_nogb_noub");
    // An explicit cap or tile still applies.
    let s = norm_shape(4096, 14336, 3);
    let p = planner
        .plan(&s.call(), &wave(&[("GEMVP_FUSED_ROW_BYTES", 20480)]))
        .unwrap();
    assert_eq!(p.variant, "gemvp_skipsum_nogb_noub");
    let p = planner
        .plan(&s.call(), &wave(&[("GEMVP_FUSED_COLS", 64)]))
        .unwrap();
    assert_eq!(
        p.variant, "gemvp_skipsum_nogb_noub",
        "the fixed tile's 20 KiB"
    );
    let s2 = norm_shape(4096, 14336, 2);
    let p = planner
        .plan(&s2.call(), &wave(&[("GEMVP_FUSED_COLS", 64)]))
        .unwrap();
    assert_eq!(p.variant, "gemvp_fused_skipsum_nogb_noub");
    assert_eq!(p.passes[0].workgroup_size, [512, 1, 1]);
    // Without the cores (0): the fixed tile.
    let p = planner.plan(&s2.call(), &none()).unwrap();
    assert_eq!(p.passes[0].workgroup_size, [512, 1, 1]);
    // WebGPU's default limits on invocations: at most 256 per workgroup.
    let small_dev = dev
        .with_limit("maxComputeInvocationsPerWorkgroup", 256)
        .with_limit("maxComputeWorkgroupSizeX", 256);
    let small = Planner::project(small_dev.clone());
    let s = norm_shape(512, 14336, 2);
    let p = small.plan(&s.call(), &wave(&[])).unwrap();
    let (cols, slices) = gemvp_fused_wave_tile(2, 512, 14336, &WaveLimits::of(&small_dev, cores));
    assert_eq!((cols, slices), (112, 2));
    assert_eq!(p.variant, "gemvp_fused_skipsum_nogb_noub");
    assert_eq!(p.passes[0].workgroup_size, [224, 1, 1]);
    one_wave_memory_boundary(&planner, true, "gemvp_fused_");
}

/// The one-wave tile's workgroup memory boundary at 5 rows of N 14336 on 132 cores (the discrete
/// GPU's 48 KiB), from both sides: the norm forms (`norm`, skip + residual) or the plain ones
/// take `family` exactly where `gemvp_fused_tile_bytes` (both forms: the norm forms' reduction
/// goes into the rows' memory where it does not fit beside it) says the tile of
/// `gemvp_fused_wave_tile` fits, at K 4800-4960.
fn one_wave_memory_boundary(planner: &Planner, norm: bool, family: &str) {
    use nbits_mlp_core::coverage::{gemvp_fused_tile_bytes, gemvp_fused_wave_tile};
    let mut outcomes = std::collections::BTreeSet::new();
    for k in (4800..=4960).step_by(8) {
        let lim = discrete_wave(132);
        let (cols, slices) = gemvp_fused_wave_tile(5, k, 14336, &lim);
        let fits = gemvp_fused_tile_bytes(5, k, cols, slices, 1) <= lim.storage;
        let mut s = MlpShape::new(k, 14336, 5);
        s.dtype = DType::F16;
        (s.norm, s.skip, s.residual) = (norm, norm, norm);
        let p = planner
            .plan(&s.call(), &tunables(&[("SHADER_CORES", 132)]))
            .unwrap();
        assert_eq!(p.variant.starts_with(family), fits, "K {k}: {}", p.variant);
        outcomes.insert(fits);
    }
    assert_eq!(outcomes.len(), 2, "both sides of the boundary");
}

/// The plain forms with each workgroup's rows of A staged in workgroup memory
/// (`gemvp_staged_*`, f16 calls): every case of its coverage matrix takes its variant under
/// `GEMVP_STAGED_TUNABLES` (four shader cores, staging from 16 columns) on a device with
/// `shader-f16` without cooperative matrices (with them below `MMA_MIN_ROWS` only), in one pass
/// on the one-wave tile, binding A, the prepared weights, the biases and Y, with the rows in
/// `xs`; by default (no shader cores reported), with `GEMVP_STAGE_MIN_COLS` 0, and f32 calls,
/// `gemvp`'s. On the discrete GPU with 132 cores, the suite: Llama-3.1-8B, Qwen2.5-7B and
/// Llama-3.1-70B (112-224 columns) stage (Llama-70B up to 3 rows, exactly 48 KiB of rows: the
/// plain form has no reduction arrays), the 1-2B models and Phi-3-mini (48-64) do not; the
/// 96-column boundary (N of 660 stripes: 80 columns, `gemvp`; 661: 96, staged) and the memory
/// boundary at 5 rows, from both sides.
#[test]
fn gemvp_staged_where_the_tile_is_wide() {
    use nbits_mlp_core::coverage::{
        gemvp_fused_tile_bytes, gemvp_stage_min_cols, gemvp_staged_matrix, gemvp_staged_wave_tile,
        mma_grid_short, GEMVP_STAGED_TUNABLES,
    };
    use nbits_mlp_core::plan::Resource;
    let dev = DeviceProfile::discrete_gpu().without_feature("coop-f16-16x16x16-f32");
    let planner = Planner::project(dev.clone());
    let staged = tunables(&GEMVP_STAGED_TUNABLES);
    let mut reached = std::collections::BTreeSet::new();
    for case in gemvp_staged_matrix() {
        let s = &case.shape;
        let plan = planner.plan(&s.call(), &staged).unwrap();
        assert_eq!(plan.variant, case.expect, "{}", case.name);
        reached.insert(plan.variant.clone());
        assert_eq!(plan.passes.len(), 1, "{}", case.name);
        let main = &plan.passes[0];
        let [cores, min_cols] = GEMVP_STAGED_TUNABLES;
        assert_eq!(
            (cores.0, min_cols.0),
            ("SHADER_CORES", "GEMVP_STAGE_MIN_COLS")
        );
        let (rg, cols, slices) = gemvp_staged_wave_tile(
            s.rows(),
            s.k,
            s.n,
            &WaveLimits::of(&dev, cores.1 as usize),
            min_cols.1 as usize,
        );
        assert!(
            gemvp_fused_tile_bytes(rg, s.k, cols, slices, 1) <= 32768,
            "{}: within lavapipe's 32 KiB",
            case.name
        );
        assert_eq!(
            main.workgroup_size,
            [(cols * slices) as u32, 1, 1],
            "{}",
            case.name
        );
        assert_eq!(
            main.dispatch,
            [s.rows().div_ceil(rg) as u32, s.n.div_ceil(cols) as u32, 1],
            "{}",
            case.name
        );
        let names: Vec<&str> = main.bindings.iter().map(|b| b.name.as_str()).collect();
        let mut want = vec!["a", "gate_b", "gate_scales"];
        if s.gate_bias {
            want.push("gate_bias");
        }
        want.extend(["up_b", "up_scales"]);
        if s.up_bias {
            want.push("up_bias");
        }
        want.push("y");
        assert_eq!(names, want, "{}", case.name);
        let prepared = main
            .bindings
            .iter()
            .filter(|b| matches!(b.resource, Resource::Prepared { .. }))
            .count();
        assert_eq!(prepared, 4, "{}", case.name);
        let xs = (rg * s.k / 8).max((8 * slices * rg * cols).div_ceil(16));
        assert!(
            main.wgsl
                .contains(&format!("var<workgroup> xs: array<vec4<u32>, {xs}>")),
            "{}: the rows in workgroup memory",
            case.name
        );
        assert!(!main.wgsl.contains("norm_scale"), "{}", case.name);
        let plain = case.expect.replacen("gemvp_staged_", "gemvp_plain_", 1);
        for t in [
            none(),
            tunables(&[("SHADER_CORES", 4), ("GEMVP_STAGE_MIN_COLS", 0)]),
        ] {
            let p = planner.plan(&s.call(), &t).unwrap();
            assert_eq!(p.variant, plain, "{} {t:?}", case.name);
        }
        // With cooperative matrices below the tensor-core tile's rows: 7, or 9 where its grid is
        // short (none of these small K holds a whole activation block, so no pairs).
        let with = big().plan(&s.call(), &staged).unwrap();
        let short = s.rows() <= 8 && mma_grid_short(s.k, s.n, cores.1 as usize);
        assert_eq!(
            with.variant == case.expect,
            s.rows() < 7 || short,
            "{}",
            case.name
        );
        let mut f32_shape = s.clone();
        f32_shape.dtype = DType::F32;
        let p = planner.plan(&f32_shape.call(), &staged).unwrap();
        let f32_plain = if s.rows() == 1 {
            "gemv_plain_"
        } else {
            "gemvp_f32_plain_"
        };
        assert!(
            p.variant.starts_with(f32_plain),
            "{}: {}",
            case.name,
            p.variant
        );
    }
    assert_eq!(reached.len(), 4, "{reached:?}");
    // The suite on 132 cores.
    let cores = tunables(&[("SHADER_CORES", 132)]);
    let plain_shape = |k: usize, n: usize, rows: usize| {
        let mut s = MlpShape::new(k, n, rows);
        s.dtype = DType::F16;
        s
    };
    // (K, N, rows, staged, rows per workgroup): 6 rows in one group where that group's tile
    // fits (Llama-8B exactly 48 KiB of rows, Qwen2.5-7B 48 384 bytes of slices' sums), else
    // two of 3 (Llama-70B: 96 KiB of rows; Phi-3-mini, the 1-2B models: one group's tile is
    // narrower than 96 columns).
    for (k, n, rows, stage, rg) in [
        (4096usize, 14336usize, 2usize, true, 2usize),
        (4096, 14336, 5, true, 5),
        (4096, 14336, 6, true, 6),
        (3584, 18944, 4, true, 4),
        (3584, 18944, 6, true, 6),
        (8192, 28672, 2, true, 2),
        (8192, 28672, 3, true, 3),
        (8192, 28672, 4, false, 4),
        (8192, 28672, 6, true, 3),
        (3072, 8192, 4, false, 4),
        (3072, 8192, 6, true, 3),
        (2048, 8192, 4, false, 4),
        (2048, 6144, 3, false, 3),
        (2048, 6144, 6, true, 3),
        (896, 4864, 5, false, 5),
        (896, 4864, 6, false, 3),
    ] {
        let p = planner
            .plan(&plain_shape(k, n, rows).call(), &cores)
            .unwrap();
        let want = if stage {
            "gemvp_staged_nogb_noub"
        } else {
            "gemvp_plain_nogb_noub"
        };
        assert_eq!(p.variant, want, "K {k} N {n} rows {rows}");
        assert_eq!(
            p.passes[0].dispatch[0] as usize,
            rows.div_ceil(rg),
            "K {k} N {n} rows {rows}: groups of {rg}"
        );
        if stage {
            let (want_rg, cols, slices) =
                gemvp_staged_wave_tile(rows, k, n, &discrete_wave(132), gemvp_stage_min_cols());
            assert_eq!(want_rg, rg, "K {k} N {n} rows {rows}");
            assert_eq!(p.passes[0].workgroup_size[0] as usize, cols * slices);
        }
    }
    assert_eq!(
        gemvp_stage_min_cols(),
        96,
        "the column boundary cases below (660 / 661 stripes) are for the default 96"
    );
    // The one group of 6 rows: its rows' bytes (K 4096 fills 48 KiB, K 4104 passes it: two
    // groups of 3, still staged), its 96 columns (N of 660 stripes: 80 columns in one group,
    // so two of 3 with 160; 661: 96), the norm forms (two groups of 3: their reduction arrays
    // do not fit beside the rows), f32 calls, an explicit GEMVP_ROWS or GEMVP_LANE_COLS, and
    // devices without the shader cores.
    for (k, n, norm, extra, rg) in [
        (4096usize, 14336usize, false, vec![], 6usize),
        (4104, 14336, false, vec![], 3),
        (256, 16 * 660, false, vec![], 3),
        (256, 16 * 661, false, vec![], 6),
        (3584, 18944, true, vec![], 3),
        (4096, 14336, false, vec![("GEMVP_ROWS", 3)], 3),
        (4096, 14336, false, vec![("GEMVP_STAGE_MIN_COLS", 0)], 3),
        (4096, 14336, false, vec![("GEMVP_LANE_COLS", 2)], 3),
    ] {
        let mut s = plain_shape(k, n, 6);
        (s.norm, s.skip, s.residual) = (norm, norm, norm);
        let mut t = tunables(&[("SHADER_CORES", 132)]);
        t.extend(tunables(&extra));
        let p = planner.plan(&s.call(), &t).unwrap();
        let what = format!("K {k} N {n} norm {norm} {extra:?}: {}", p.variant);
        assert_eq!(p.passes[0].dispatch[0] as usize, 6 / rg, "{what}");
        if extra.is_empty() && !norm {
            assert!(p.variant.starts_with("gemvp_staged_"), "{what}");
            let (want_rg, cols, slices) =
                gemvp_staged_wave_tile(6, k, n, &discrete_wave(132), gemvp_stage_min_cols());
            assert_eq!(want_rg, rg, "{what}");
            assert_eq!(
                p.passes[0].workgroup_size[0] as usize,
                cols * slices,
                "{what}"
            );
        }
    }
    let mut f32_six = plain_shape(4096, 14336, 6);
    f32_six.dtype = DType::F32;
    let p = planner.plan(&f32_six.call(), &cores).unwrap();
    assert!(p.variant.starts_with("gemvp_f32_"), "{}", p.variant);
    assert_eq!(p.passes[0].dispatch[0], 2, "f32: two groups of 3");
    let p = planner
        .plan(&plain_shape(4096, 14336, 6).call(), &none())
        .unwrap();
    assert_eq!(
        (p.variant.as_str(), p.passes[0].dispatch[0]),
        ("gemvp_plain_nogb_noub", 2),
        "no shader cores: two passes' tile, groups of 3"
    );
    // The 96-column boundary.
    for (stripes, stage) in [(660usize, false), (661, true)] {
        let p = planner
            .plan(&plain_shape(256, 16 * stripes, 2).call(), &cores)
            .unwrap();
        assert_eq!(
            p.variant.starts_with("gemvp_staged_"),
            stage,
            "{stripes} stripes"
        );
    }
    one_wave_memory_boundary(&planner, false, "gemvp_staged_");
}

/// The float32 form of the few-rows kernel (`gemvp_f32_*`, f32 models): every case of its
/// coverage matrix takes its variant on the discrete GPU with the tensor-core kernels' float32
/// form closed (`MMA_F32_MAX_ROWS` 0), without cooperative matrices, without `shader-f16` (the
/// form is f32 throughout: no f16 in its WGSL) and within WebGPU's default limits, with the
/// prepared layouts' f32 scales, the same grid and workgroup as the f16 form, and the norm
/// forms' row written as f32. The boundaries: 1 row, 65 rows (with the form closed coop with
/// cooperative matrices, tiled without), K not a multiple of 8 and `GEMVP_F32_MAX_ROWS` 0 leave
/// it to the others, and so do 9+ rows on tensor cores by default (mmap, priority above;
/// 8 rows stay, and 15 with `MMA_F32_MIN_ROWS` 16); `GEMVP_F32_MAX_ROWS` moves the f32 end only,
/// `GEMVP_MAX_ROWS` the f16 one only.
#[test]
fn gemvp_f32_variants_take_f32_calls() {
    use nbits_mlp_core::coverage::{gemvp_f32_matrix, gemvp_f32_rows, project_expect};
    let no_coop = DeviceProfile::discrete_gpu().without_feature("coop-f16-16x16x16-f32");
    let no_f16 = DeviceProfile::discrete_gpu().without_feature("shader-f16");
    let closed = tunables(&[("MMA_F32_MAX_ROWS", 0)]);
    let mut reached = std::collections::BTreeSet::new();
    for case in gemvp_f32_matrix() {
        let s = &case.shape;
        assert_eq!(s.dtype, DType::F32);
        assert!(case.expect.starts_with("gemvp_f32_"), "{}", case.name);
        assert_eq!(project_expect(&case), case.expect, "{}", case.name);
        // (with cooperative matrices the tensor-core kernels take f32 calls from 9 rows unless
        // their float32 form is closed)
        for (dev, t) in [
            (DeviceProfile::discrete_gpu(), closed.clone()),
            (no_coop.clone(), none()),
            (no_f16.clone(), none()),
            (DeviceProfile::builtin("webgpu-default").unwrap(), none()),
        ] {
            let plan = Planner::project(dev).plan(&s.call(), &t).unwrap();
            assert_eq!(plan.variant, case.expect, "{}", case.name);
            reached.insert(plan.variant.clone());
            let (main, prepared) = gemvp_main_pass(&plan, s, &case.name);
            // f32 throughout: no f16 type, literal or directive in the kernel.
            assert!(!main.wgsl.contains("f16"), "{}:\n{}", case.name, main.wgsl);
            assert!(main.wgsl.contains("vec2<f32>"), "{}", case.name);
            // The scales' prepared copies keep f32 (4 bytes).
            assert_eq!((prepared[1].1, prepared[3].1), (4, 4), "{}", case.name);
            assert_eq!(
                plan.passes.len(),
                if s.norm { 2 } else { 1 },
                "{}",
                case.name
            );
            if s.norm {
                let norm = &plan.passes[0].wgsl;
                assert!(
                    norm.contains("normed[base + k] = ") && !norm.contains("f16"),
                    "{}: the norm pass writes f32:\n{norm}",
                    case.name
                );
                let row = plan
                    .intermediates
                    .iter()
                    .find(|i| i.id == "normedA")
                    .expect("the norm row");
                assert_eq!(row.dtype, DType::F32, "{}", case.name);
                assert_eq!(row.bytes, 4 * (s.rows() * s.k) as u64, "{}", case.name);
                // ... read as vec4<f32> (`mma_normed`, the f32 row's view for any call).
                let normed = main.bindings.iter().find(|b| b.name == "normed").unwrap();
                assert_eq!(normed.element_type, "vec4<f32>", "{}", case.name);
            }
        }
        // The tunables shape it as they shape the f16 form.
        let t = tunables(&[
            ("GEMVP_ROWS", 3),
            ("GEMVP_COLS", 64),
            ("GEMVP_SLICES", 4),
            ("GEMVP_LANE_COLS", 2),
            ("MMA_F32_MAX_ROWS", 0),
        ]);
        let p = big().plan(&s.call(), &t).unwrap();
        assert_eq!(p.variant, case.expect, "{} {t:?}", case.name);
        let main = p.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(
            main.dispatch,
            [s.rows().div_ceil(3) as u32, s.n.div_ceil(128) as u32, 1]
        );
        // Elsewhere the others.
        let other =
            |edit: &dyn Fn(&mut MlpShape), t: &Tunables, dev: &DeviceProfile, want: &str| {
                let mut c = s.clone();
                edit(&mut c);
                let p = Planner::project(dev.clone()).plan(&c.call(), t).unwrap();
                assert!(
                    p.variant.starts_with(want)
                        && (want.starts_with("gemvp") || !p.variant.starts_with("gemvp")),
                    "{}: {c:?} {t:?}: {} (want {want}*)",
                    case.name,
                    p.variant
                );
            };
        let big_dev = DeviceProfile::discrete_gpu();
        let off = tunables(&[("GEMVP_F32_MAX_ROWS", 0)]);
        let off_closed = tunables(&[("GEMVP_F32_MAX_ROWS", 0), ("MMA_F32_MAX_ROWS", 0)]);
        // Below it: the multi-row gemv where it fits (padded K a multiple of 32), else tiled.
        let below = |k: usize| {
            if (k.div_ceil(s.block_size) * s.block_size).is_multiple_of(32) {
                "gemvr_"
            } else {
                "tiled_"
            }
        };
        other(&|_| {}, &off_closed, &big_dev, below(s.k));
        other(&|_| {}, &off, &no_coop, below(s.k));
        other(
            &|_| {},
            &tunables(&[("GEMVP_MAX_ROWS", 0), ("MMA_F32_MAX_ROWS", 0)]),
            &big_dev,
            "gemvp_f32_",
        );
        other(&|c| c.lead = vec![1], &none(), &big_dev, "");
        for rows in [15, 16, 20, 21, 64] {
            other(&|c| c.lead = vec![rows], &closed, &big_dev, "gemvp_f32_");
            other(&|c| c.lead = vec![rows], &none(), &no_coop, "gemvp_f32_");
        }
        other(&|c| c.lead = vec![65], &closed, &big_dev, "coop_");
        other(&|c| c.lead = vec![65], &none(), &no_coop, "tiled_");
        // With cooperative matrices the tensor-core kernels' float32 form takes 9+ rows
        // (`MMA_F32_MIN_ROWS`; `MMA_F32_MAX_ROWS` no cap, coop past it when set), this kernel 2-8.
        other(&|c| c.lead = vec![8], &none(), &big_dev, "gemvp_f32_");
        for rows in [9, 16, 65, 384, 385] {
            other(&|c| c.lead = vec![rows], &none(), &big_dev, "mmap_");
        }
        let capped = tunables(&[("MMA_F32_MAX_ROWS", 384)]);
        other(&|c| c.lead = vec![384], &capped, &big_dev, "mmap_");
        other(&|c| c.lead = vec![385], &capped, &big_dev, "coop_");
        let from16 = tunables(&[("MMA_F32_MIN_ROWS", 16)]);
        other(&|c| c.lead = vec![15], &from16, &big_dev, "gemvp_f32_");
        other(&|c| c.lead = vec![16], &from16, &big_dev, "mmap_");
        other(&|c| c.lead = vec![16], &from16, &no_coop, "gemvp_f32_");
        let three = tunables(&[("GEMVP_F32_MAX_ROWS", 3)]);
        other(&|c| c.lead = vec![4], &three, &big_dev, below(s.k));
        other(&|c| c.lead = vec![3], &three, &big_dev, "gemvp_f32_");
        other(&|c| c.k += 4, &none(), &big_dev, below(s.k + 4));
        // f16 calls of the same shape keep the f16 form, whatever GEMVP_F32_MAX_ROWS says.
        other(&|c| c.dtype = DType::F16, &off, &no_coop, "gemvp_");
        let mut f16 = s.clone();
        f16.dtype = DType::F16;
        let p = Planner::project(no_coop.clone())
            .plan(&f16.call(), &none())
            .unwrap();
        assert!(
            !p.variant.starts_with("gemvp_f32_"),
            "{}: {}",
            case.name,
            p.variant
        );
    }
    assert_eq!(reached.len(), 16, "{reached:?}");
    assert_eq!(*gemvp_f32_rows().end(), 64);
    // `plan --explain`: past GEMVP_F32_MAX_ROWS the float32 form says so, naming the tunable
    // and both values; the f16 form says the call is not f16.
    let mut s = MlpShape::new(4096, 14336, 65);
    s.dtype = DType::F32;
    let verdicts = big().explain(&s.call(), &none()).unwrap();
    let verdict = |id: &str| verdicts.iter().find(|v| v.variant == id).unwrap().clone();
    let f32_form = verdict("gemvp_f32_plain_nogb_noub");
    assert!(!f32_form.applies);
    let why = f32_form.why.unwrap_or_default();
    assert!(
        why.contains("gemvpF32Fits")
            && why.contains("GEMVP_F32_MAX_ROWS")
            && why.contains("65 vs 64"),
        "{why}"
    );
    // (16 rows, within the f16 form's own GEMVP_MAX_ROWS, so the dtype is what it names.)
    s.lead = vec![16];
    let verdicts = big().explain(&s.call(), &none()).unwrap();
    let f16_form = verdicts
        .iter()
        .find(|v| v.variant == "gemvp_plain_nogb_noub")
        .unwrap()
        .clone();
    assert!(!f16_form.applies);
    let why = f16_form.why.unwrap_or_default();
    assert!(
        why.contains("gemvpFits") && why.contains("float16"),
        "{why}"
    );
    s.lead = vec![64];
    let verdicts = big().explain(&s.call(), &none()).unwrap();
    let applying: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.applies && v.variant.starts_with("gemvp"))
        .map(|v| v.variant.as_str())
        .collect();
    assert_eq!(applying, ["gemvp_f32_plain_nogb_noub"]);
}
