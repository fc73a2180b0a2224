//! The project manifest's own kernel families (gemv, gemvr, tiled, split-K, coop, mma, mmap;
//! mmal in `mmal.rs`): each reached where its `when` rules say, and right.

use crate::calls::{
    overrides, padded_tile_shape, seed, shape_of, wide_magnitudes, Call, Cycle, Rng, SkGrid,
    SpecCycles, PADDED_TILES,
};
use crate::check::{max_diff, run_checked, tensor_core_runtime, took};
use nbits_mlp_core::coverage::{forms, variant_matrix};
use nbits_mlp_core::MlpShape;
use nbits_mlp_core::{DType, Tunables};
use nbits_mlp_gpu::{testing, GpuTensor, Runtime};
use nbits_mlp_reference::compare;
use nbits_mlp_reference::gen::Case;
use std::collections::BTreeSet;

// ---- 8. the project's own variants -----------------------------------------------------------

/// With the project manifest (seed + overlay), every single row whose padded K is a multiple of
/// 32 takes a `gemv_*` variant (the float16 norm forms the one-pass `gemv_fused_*`; with
/// `GEMV_INLINE_NORM` 0 or 1 the two-pass or the one-pass ones for either dtype), 2-16 such rows
/// (2-20 for float32) the multi-row `gemvr_*`, and every call of two rows or more the
/// register-tiled `tiled_*` when the multi-row gemv is off (`GEMV_MAX_ROWS=1`; `tiled_split_*`
/// with K split in slices, `TILED_SPLIT_K=3`); all 76 are reached and right.
#[test]
fn project_overlay_variants() {
    let Some(rt) = testing::runtime() else { return };
    let ours: BTreeSet<String> = rt
        .planner()
        .manifest()
        .variants
        .iter()
        .map(|v| v.decl.id.clone())
        .filter(|v| v.starts_with("tiled_") || v.starts_with("gemv"))
        // (the few-rows kernel on prepared weights has its own test: `gemvp`)
        .filter(|v| !v.starts_with("gemvp_"))
        .collect();
    assert_eq!(
        ours.len(),
        76,
        "the overlay has 16 tiled, 16 split tiled, 16 gemv, 12 fused gemv and 16 multi-row gemv \
         variants"
    );
    let mut reached = BTreeSet::new();
    let mut i = 0;
    for dtype in [DType::F32, DType::F16] {
        for case in variant_matrix(dtype) {
            let s = &case.shape;
            // (tunables, expected variant): the defaults (no split: these K are small), then
            // each norm form both ways for single rows, or K split in 3 slices for many rows.
            // One row on the gemv (`GEMVP_ONE_ROW` 1): the few-rows kernel's one-row forms,
            // which it takes for some of these K by default, have their own tests (`gemvp`).
            let gemv = |inline: bool| nbits_mlp_core::coverage::project_expect_gemv(&case, inline);
            let mut runs = vec![(
                overrides(&[("TILED_SPLIT_K", 1), ("GEMVP_ONE_ROW", 1)]),
                gemv(dtype == DType::F16),
            )];
            if s.norm && s.rows() == 1 {
                for inline_norm in [false, true] {
                    runs.push((
                        overrides(&[
                            ("GEMV_INLINE_NORM", i64::from(inline_norm)),
                            ("GEMVP_ONE_ROW", 1),
                        ]),
                        gemv(inline_norm),
                    ));
                }
            }
            if s.rows() >= 2 {
                let rest = case.expect.split_once('_').map_or("", |(_, r)| r);
                runs.push((
                    overrides(&[
                        ("GEMVP_MAX_ROWS", 0),
                        ("GEMVP_F32_MAX_ROWS", 0),
                        ("TILED_SPLIT_K", 1),
                        ("GEMV_MAX_ROWS", 1),
                    ]),
                    format!("tiled_{rest}"),
                ));
                if s.k > 32 {
                    runs.push((
                        overrides(&[
                            ("GEMVP_MAX_ROWS", 0),
                            ("GEMVP_F32_MAX_ROWS", 0),
                            ("TILED_SPLIT_K", 3),
                            ("GEMV_MAX_ROWS", 1),
                        ]),
                        format!("tiled_split_{rest}"),
                    ));
                }
            }
            for (t, expect) in runs {
                i += 1;
                let call = Call::rank2(shape_of(&case), seed(8, i));
                let c = run_checked(&rt, &call, &t, &case.name);
                assert_eq!(c.plan.variant, expect, "{} ({call}, {t:?})", case.name);
                reached.insert(c.plan.variant.clone());
            }
        }
    }
    let missing: Vec<&String> = ours.difference(&reached).collect();
    assert!(
        missing.is_empty(),
        "overlay variants never reached: {missing:?}"
    );
}

/// The single-row `gemv_*` kernel across bit widths, block sizes, K not a multiple of the block,
/// N not a multiple of the columns per workgroup, both dtypes, every norm form, and its tunables
/// (workgroup size, columns per workgroup, columns per batch, inline norm or the norm pass),
/// against the reference with poisoned outputs.
#[test]
fn gemv_sweep() {
    let Some(rt) = testing::runtime() else { return };
    const RUNS: usize = 36;
    let mut rng = Rng(0x6e3f);
    let mut lists = SpecCycles::new(&[93, 200, 256, 1234, 4096, 5000], &[1, 9, 37, 300], &[1]);
    let mut wgs = Cycle::new(&[32i64, 64, 128, 256]);
    let mut cols = Cycle::new(&[1i64, 3, 8, 16, 24]);
    let mut batch = Cycle::new(&[1i64, 2, 4, 8]);
    let mut inline_norm = Cycle::new(&[0i64, 1]);
    let mut gemv = 0;
    for i in 0..RUNS {
        let spec = lists.next(&mut rng, 4);
        let wg = wgs.next(&mut rng);
        let t = overrides(&[
            ("GEMV_WORKGROUP_SIZE", wg),
            ("GEMV_COLS", cols.next(&mut rng)),
            ("GEMV_BATCH", batch.next(&mut rng)),
            ("GEMV_INLINE_NORM", inline_norm.next(&mut rng)),
            // (f16 rows of some of these K take the few-rows kernel by default)
            ("GEMVP_ONE_ROW", 1),
        ]);
        let padded_k = spec.k.div_ceil(spec.block_size) * spec.block_size;
        // The kernel takes up to 4 units of 32 codes per thread.
        let units = padded_k.div_ceil(32);
        let threads = (wg as usize).min(units.next_power_of_two().max(32));
        let fits = padded_k.is_multiple_of(32) && units.div_ceil(threads) <= 4;
        let call = Call::rank2(spec, seed(9, i));
        let c = run_checked(&rt, &call, &t, &format!("gemv #{i} {t:?}"));
        if took(&c, "gemv_", fits, &format!("gemv #{i:<3} {call} {t:?}")) {
            gemv += 1;
        }
    }
    assert!(
        gemv >= RUNS / 2,
        "only {gemv} of {RUNS} runs took a gemv variant"
    );
}

/// The single-row norm forms on activations of very different magnitudes: A and skip in f16 with
/// a few entries near the f16 limit (at different places, so S = A + skip stays finite in f16)
/// among values ~1e-3, so that most threads hold only small values. The one-pass form scales
/// each thread's units by its own 1/rms estimate for the f16 math and applies the row's 1/rms
/// to the sums at the end, the two-pass form reads the norm pass's f16 row: both must match the
/// float64 reference (with the thread scale removed, the one-pass form overflows f16: inf).
#[test]
fn gemv_norm_wide_magnitudes() {
    let Some(rt) = testing::runtime() else { return };
    for (i, (k, inline)) in [(4096usize, 1i64), (4096, 0), (1234, 1), (1234, 0)]
        .into_iter()
        .enumerate()
    {
        let shape = MlpShape {
            k,
            n: 77,
            lead: vec![1],
            dtype: DType::F16,
            bits: 4,
            block_size: 32,
            skip: true,
            norm: true,
            residual: true,
            ..MlpShape::default()
        };
        let call = Call::rank2(shape, seed(31, i));
        let mut case = call.case();
        wide_magnitudes(&mut case, 0x51de + i as u64);
        let t = overrides(&[("GEMV_INLINE_NORM", inline)]);
        let what = format!("gemv wide magnitudes #{i} K={k} inline={inline}");
        let c = crate::common::check::run_checked(
            &rt,
            &case.attrs,
            &case.input_refs(),
            true,
            &t,
            &what,
        );
        let family = if inline == 1 { "gemv_fused_" } else { "gemv_" };
        assert!(
            c.plan.variant.starts_with(family),
            "{what}: {}",
            c.plan.variant
        );
        println!("{what}: {} (err {:.2e})", c.plan.variant, c.y_err);
    }
}

/// The multi-row gemv (`gemvr_*`, 2-20 rows, `GEMV_MAX_ROWS=20`): row groups that do not divide
/// the rows, K not a multiple of the block, N not a multiple of the columns per workgroup, both
/// dtypes, every norm form, rank 3, its tunables, against the reference with poisoned outputs.
#[test]
fn gemvr_sweep() {
    let Some(rt) = testing::runtime() else { return };
    const RUNS: usize = 28;
    let mut rng = Rng(0x6e37);
    let mut lists = SpecCycles::new(
        &[93, 256, 1234, 4096, 5000],
        &[1, 9, 37, 300],
        &[2, 3, 7, 16, 20],
    );
    let mut groups = Cycle::new(&[1i64, 2, 4, 8]);
    let mut cols = Cycle::new(&[1i64, 3, 16, 24]);
    let mut batch = Cycle::new(&[0i64, 1, 2]);
    let mut gemvr = 0;
    for i in 0..RUNS {
        let spec = lists.next(&mut rng, 3);
        let t = overrides(&[
            ("GEMVP_MAX_ROWS", 0),
            ("GEMVP_F32_MAX_ROWS", 0),
            ("GEMV_ROWS", groups.next(&mut rng)),
            ("GEMV_COLS", cols.next(&mut rng)),
            ("GEMV_BATCH", batch.next(&mut rng)),
            // Up to 20 rows for both dtypes (the default stops float16 at 16); float16 calls
            // off the mma kernel, which takes them where cooperative matrices run.
            ("GEMV_MAX_ROWS", 20),
            ("MMA_MAX_ROWS", 1),
        ]);
        let padded_k = spec.k.div_ceil(spec.block_size) * spec.block_size;
        let call = if i % 5 == 4 {
            Call::rank3(spec, seed(23, i))
        } else {
            Call::rank2(spec, seed(23, i))
        };
        let c = run_checked(&rt, &call, &t, &format!("gemvr #{i} {t:?}"));
        // Every K here is at most 4 units of 32 codes per thread of 256.
        let what = format!("gemvr #{i:<3} {call} {t:?}");
        if took(&c, "gemvr_", padded_k.is_multiple_of(32), &what) {
            gemvr += 1;
        }
    }
    assert!(gemvr >= RUNS / 2, "only {gemvr} of {RUNS} runs took gemvr");
}

/// Split K (`tiled_split_*`, and `coop_split_*` where cooperative matrices run): K not a
/// multiple of the 32-code chunk or of the block, slices that do not divide the chunks, rows
/// around the tiles, N not a multiple of a tile, both dtypes, every norm form, against the
/// reference with poisoned outputs (the reduce pass must write every element).
#[test]
fn split_k_sweep() {
    let Some(rt) = testing::runtime() else { return };
    const RUNS: usize = 24;
    let mut rng = Rng(0x5711);
    let mut lists = SpecCycles::new(&[93, 200, 1234, 4096], &[1, 37, 300], &[2, 7, 16, 33, 70]);
    let mut splits = Cycle::new(&[2i64, 3, 5, 8]);
    for i in 0..RUNS {
        let spec = lists.next(&mut rng, 3);
        let s = splits.next(&mut rng);
        let t = overrides(&[
            ("GEMVP_MAX_ROWS", 0),
            ("GEMVP_F32_MAX_ROWS", 0),
            ("TILED_SPLIT_K", s),
            ("COOP_SPLIT_K", s),
            ("GEMV_MAX_ROWS", 1),
            ("MMA_MAX_ROWS", 1),
        ]);
        let call = Call::rank2(spec, seed(22, i));
        let c = run_checked(&rt, &call, &t, &format!("split #{i} {t:?}"));
        assert!(
            c.plan.variant.starts_with("tiled_split_") || c.plan.variant.starts_with("coop_split_"),
            "split #{i} {call}: {}",
            c.plan.variant
        );
        println!(
            "#{i:<3} {call} {t:?}: {} (err {:.2e})",
            c.plan.variant, c.y_err
        );
    }
}

/// The overlay's `coop_*` variants (cooperative matrices, f16 16x16x16 with f32 accumulators):
/// all 16 reached and right against the reference with poisoned outputs at awkward sizes (rows
/// around the 32/64-row tiles, N not a multiple of 128, K a partial block and not a multiple of
/// the 32-code chunk, bits 2/4/8, rank 3), plus a few larger shapes, each unsplit and with K
/// split in 3 slices (the 16 `coop_split_*`); each result is also compared with the
/// register-tiled variant's on the same device (both within tolerance of the reference). Every
/// call runs with float16 and with float32 activations: the float32 form (`COOP_F32`, split f16
/// tiles) is held to the float32 tolerance.
/// Skipped, with a note, on an adapter without cooperative matrices (lavapipe).
#[test]
fn coop_variants() {
    let Some(rt) = tensor_core_runtime("coop_variants") else {
        return;
    };
    let tiled = testing::runtime_with(|p| p.without_feature("coop-f16-16x16x16-f32"))
        .expect("a GPU")
        .expect("a restriction of the device");
    let mut calls: Vec<(String, Call, String)> = Vec::new();
    for (i, case) in nbits_mlp_core::coverage::coop_matrix().iter().enumerate() {
        let shape = shape_of(case);
        calls.push((
            case.name.clone(),
            Call::rank2(shape.clone(), seed(20, i)),
            case.expect.clone(),
        ));
        if i % 4 == 1 {
            calls.push((
                format!("{} rank 3", case.name),
                Call::rank3(shape, seed(20, i)),
                case.expect.clone(),
            ));
        }
    }
    // (K, N, rows, bits, block, norm): larger shapes, row counts around the tiles.
    let big: &[(usize, usize, usize, u32, usize, bool)] = &[
        (512, 1000, 100, 4, 32, true),
        (4096, 384, 128, 4, 32, true),
        (1024, 640, 65, 8, 32, false),
        (768, 256, 31, 2, 64, true),
        (4096, 512, 512, 4, 32, true),
    ];
    for (j, &(k, n, rows, bits, block_size, norm)) in big.iter().enumerate() {
        let shape = MlpShape {
            k,
            n,
            lead: vec![rows],
            dtype: DType::F16,
            bits,
            block_size,
            skip: norm,
            norm,
            residual: norm,
            gate_bias: j % 2 == 1,
            up_bias: j % 3 == 1,
        };
        let call = Call::rank2(shape, seed(21, j));
        let prefix = if norm { "coop_skipsum_" } else { "coop_" };
        let expect = format!(
            "{prefix}{}_{}",
            if call.shape.gate_bias { "gb" } else { "nogb" },
            if call.shape.up_bias { "ub" } else { "noub" }
        );
        calls.push((format!("big {j}"), call, expect));
    }
    // The same calls with float32 activations.
    let f32_calls: Vec<(String, Call, String)> = calls
        .iter()
        .map(|(name, call, expect)| {
            let mut c = call.clone();
            c.shape.dtype = DType::F32;
            (format!("{name} f32"), c, expect.clone())
        })
        .collect();
    calls.extend(f32_calls);
    let mut reached = BTreeSet::new();
    // Each call unsplit, and with K in 3 slices (`coop_split_*`) where K has 2 chunks or more;
    // the tiled variant it is compared with runs unsplit.
    let unsplit = overrides(&[
        ("GEMVP_MAX_ROWS", 0),
        ("GEMVP_F32_MAX_ROWS", 0),
        ("COOP_SPLIT_K", 1),
        ("TILED_SPLIT_K", 1),
        ("GEMV_MAX_ROWS", 1),
        ("MMA_MAX_ROWS", 1),
    ]);
    let split = overrides(&[
        ("GEMVP_MAX_ROWS", 0),
        ("GEMVP_F32_MAX_ROWS", 0),
        ("COOP_SPLIT_K", 3),
        ("GEMV_MAX_ROWS", 1),
        ("MMA_MAX_ROWS", 1),
    ]);
    let runs: Vec<(&String, &Call, String, &Tunables)> = calls
        .iter()
        .flat_map(|(name, call, expect)| {
            let mut v = vec![(name, call, expect.clone(), &unsplit)];
            if call.shape.k > 32 {
                v.push((
                    name,
                    call,
                    expect.replacen("coop_", "coop_split_", 1),
                    &split,
                ));
            }
            v
        })
        .collect();
    for (name, call, expect, tunables) in runs {
        let c = run_checked(&rt, call, tunables, name);
        assert_eq!(c.plan.variant, expect, "{name} ({call}, {tunables:?})");
        reached.insert(c.plan.variant.clone());
        let t = run_checked(&tiled, call, &unsplit, name);
        assert!(
            t.plan.variant.starts_with("tiled_"),
            "{name}: {}",
            t.plan.variant
        );
        let tol = compare::default_tolerance(call.shape.dtype, {
            let y = t.y.to_f64();
            y.iter().fold(0f64, |m, v| m.max(v.abs()))
        });
        eprintln!(
            "coop_variants: {name} ({call}): {} err {:.3e}, {} err {:.3e}, |coop - tiled| {:.3e}, tol {tol:.3e}",
            c.plan.variant,
            c.y_err,
            t.plan.variant,
            t.y_err,
            max_diff(&c.y, &t.y)
        );
    }
    assert_eq!(reached.len(), 32, "coop variants reached: {reached:?}");
}

/// Tunables for coverage call `i` of the tensor-core kernels: calls stage gate and up in turns
/// on even calls (`MMA_SEQ_MIN_TILES=0`, tiles of 2 row blocks, which that form needs), with
/// subgroup barriers around the slab (and, float16, two activation tiles) on calls 0 mod 4,
/// workgroup barriers and one tile on 2 mod 4 (`MMA_SUBGROUP_BARRIER`, `MMA_ACT_BUFFERS`),
/// together on odd ones (65535), so each form meets both. Float16 calls also take workgroups of
/// 7 subgroups on calls 0 mod 4, 5 on 2 mod 4 and 6 on odd ones (`MMA_SUBGROUPS`; the defaults,
/// 4 and 8, are the sweeps' and the other families'); float32 calls 4 or 5 in turns and 6
/// together.
fn seq(i: usize, dtype: DType) -> Tunables {
    if i.is_multiple_of(2) && dtype == DType::F32 {
        let (sgb, subgroups) = if i.is_multiple_of(4) { (1, 4) } else { (0, 5) };
        overrides(&[
            ("MMA_SEQ_MIN_TILES", 0),
            ("MMA_ROW_BLOCKS", 2),
            ("MMA_SUBGROUP_BARRIER", sgb),
            ("MMA_SUBGROUPS", subgroups),
        ])
    } else if dtype == DType::F32 {
        overrides(&[("MMA_SEQ_MIN_TILES", 65535), ("MMA_SUBGROUPS", 6)])
    } else if i.is_multiple_of(2) {
        let (sgb, tiles, subgroups) = if i.is_multiple_of(4) {
            (1, 2, 7)
        } else {
            (0, 1, 5)
        };
        overrides(&[
            ("MMA_SEQ_MIN_TILES", 0),
            ("MMA_ROW_BLOCKS", 2),
            ("MMA_SUBGROUP_BARRIER", sgb),
            ("MMA_ACT_BUFFERS", tiles),
            ("MMA_SUBGROUPS", subgroups),
        ])
    } else {
        overrides(&[("MMA_SEQ_MIN_TILES", 65535), ("MMA_SUBGROUPS", 6)])
    }
}

/// The sweeps' draws for gate and up in turns (`mma_*` and `mmap_*` alike): in turns from 0,
/// never (65535) or from 160 tiles, subgroup or workgroup barriers around the slab, activation
/// tiles by tile (0), one or two.
struct SeqSweep {
    seqs: Cycle<i64>,
    slab_barriers: Cycle<i64>,
    act_tiles: Cycle<i64>,
}

impl SeqSweep {
    fn new() -> SeqSweep {
        SeqSweep {
            seqs: Cycle::new(&[0, 65535, 160]),
            slab_barriers: Cycle::new(&[1, 0]),
            act_tiles: Cycle::new(&[0, 1, 2]),
        }
    }

    /// The next call's three tunables, drawn in that order.
    fn next(&mut self, rng: &mut Rng) -> Tunables {
        overrides(&[
            ("MMA_SEQ_MIN_TILES", self.seqs.next(rng)),
            ("MMA_SUBGROUP_BARRIER", self.slab_barriers.next(rng)),
            ("MMA_ACT_BUFFERS", self.act_tiles.next(rng)),
        ])
    }
}

/// The overlay's `mma_*` variants (float16 models from 9 rows on tensor cores, one pass over the
/// weights for every row of a tile): all 32 (16 forms, K whole and in 3 slices) reached and right
/// against the reference with poisoned outputs at the coverage matrix's awkward sizes (rank 3
/// for some), then a sweep: rows around the 16-row blocks and the 64-row tile (2 to 130, with
/// `MMA_MIN_ROWS=2`), N not a multiple of 16 or 128, K with a partial chunk and block, bits
/// 2/4/8, blocks 16-128, row blocks per tile, chunks per fetch and K slices by tunable (odd
/// chunk counts per slice for the fetch groups), every norm form. Gate and up staged together
/// or in turns (`MMA_SEQ_MIN_TILES`, [`seq`]; in turns with subgroup or workgroup barriers
/// around the slab, `MMA_SUBGROUP_BARRIER`, and one or two activation tiles, `MMA_ACT_BUFFERS`)
/// on alternate coverage calls and in the sweep ([`SeqSweep`]). Every coverage call runs with
/// float16 and with float32 activations: the float32 form (split f16 slabs and tiles, opened by
/// `MMA_F32_MAX_ROWS`) is held to the float32 tolerance, then swept on its own ([`mma_f32_sweep`]).
/// Skipped, with a note, on an adapter without cooperative matrices (lavapipe).
#[test]
fn mma_variants() {
    let Some(rt) = tensor_core_runtime("mma_variants") else {
        return;
    };
    let mut reached = BTreeSet::new();
    let mut reached_f32 = BTreeSet::new();
    for (i, case) in nbits_mlp_core::coverage::mma_matrix().iter().enumerate() {
        for dtype in [DType::F16, DType::F32] {
            let mut shape = shape_of(case);
            shape.dtype = dtype;
            let call = if i % 4 == 1 {
                Call::rank3(shape, seed(24, i))
            } else {
                Call::rank2(shape, seed(24, i))
            };
            // (float32: the form opened for every row count.)
            let open = if dtype == DType::F32 { 65535 } else { 0 };
            let from = if dtype == DType::F32 { 1 } else { 16 };
            let runs = [
                (
                    overrides(&[
                        ("MMAP_MAX_ROWS", 0),
                        ("MMAL_MIN_ROWS", 0),
                        ("MMA_F32_MAX_ROWS", open),
                        ("MMA_F32_MIN_ROWS", from),
                    ])
                    .into_iter()
                    .chain(seq(i, dtype))
                    .collect(),
                    case.expect.clone(),
                ),
                (
                    overrides(&[
                        ("MMA_SPLIT_K", 3),
                        ("MMAP_MAX_ROWS", 0),
                        ("MMAL_MIN_ROWS", 0),
                        ("MMA_F32_MAX_ROWS", open),
                        ("MMA_F32_MIN_ROWS", from),
                    ])
                    .into_iter()
                    .chain(seq(i + 1, dtype))
                    .collect(),
                    case.expect.replacen("mma_", "mma_split_", 1),
                ),
            ];
            for (t, expect) in runs {
                let c = run_checked(&rt, &call, &t, &case.name);
                assert_eq!(c.plan.variant, expect, "{} ({call}, {t:?})", case.name);
                eprintln!(
                    "mma_variants: {} ({call}): {} err {:.3e}",
                    case.name, c.plan.variant, c.y_err
                );
                if dtype == DType::F32 {
                    reached_f32.insert(c.plan.variant.clone());
                } else {
                    reached.insert(c.plan.variant.clone());
                }
            }
        }
    }
    assert_eq!(reached.len(), 32, "mma variants reached: {reached:?}");
    assert_eq!(
        reached_f32, reached,
        "mma variants reached by float32 calls"
    );
    const RUNS: usize = 30;
    let mut rng = Rng(0x3a3a);
    let mut lists = SpecCycles::new(
        &[64, 200, 328, 1000, 4096],
        &[16, 37, 130, 300],
        &[2, 15, 16, 17, 31, 48, 64, 65, 130],
    );
    let mut row_blocks = Cycle::new(&[0i64, 1, 2, 4]);
    let mut splits = Cycle::new(&[0i64, 1, 2, 5]);
    let mut groups = Cycle::new(&[0i64, 1, 2, 4]);
    // Subgroups per workgroup: by tile (4 or 7-8) or 4-7 (8 with tiles of 2+ row blocks staged
    // together would not fit 48 KiB).
    let mut subgroups = Cycle::new(&[0i64, 4, 5, 6, 7]);
    let mut in_turns = SeqSweep::new();
    let mut mma = 0;
    for i in 0..RUNS {
        let mut spec = lists.next(&mut rng, 3);
        spec.dtype = DType::F16;
        let t = overrides(&[
            ("MMA_MIN_ROWS", 2),
            ("MMA_ROW_BLOCKS", row_blocks.next(&mut rng)),
            ("MMA_SPLIT_K", splits.next(&mut rng)),
            ("MMA_FETCH_GROUP", groups.next(&mut rng)),
            ("MMA_SUBGROUPS", subgroups.next(&mut rng)),
            ("MMAP_MAX_ROWS", 0),
            ("MMAL_MIN_ROWS", 0),
        ])
        .into_iter()
        .chain(in_turns.next(&mut rng))
        .collect();
        // A weight row must be a whole number of 16-byte vectors (every K here is a multiple
        // of 8, every block a power of two from 16).
        let row_bytes = spec.k_blocks() * spec.blob_size();
        let fits = row_bytes.is_multiple_of(16);
        let call = if i % 5 == 4 {
            Call::rank3(spec, seed(25, i))
        } else {
            Call::rank2(spec, seed(25, i))
        };
        let c = run_checked(&rt, &call, &t, &format!("mma #{i} {t:?}"));
        if took(&c, "mma_", fits, &format!("mma #{i:<3} {call} {t:?}")) {
            mma += 1;
        }
    }
    assert!(mma >= RUNS / 2, "only {mma} of {RUNS} runs took mma");
    mma_f32_sweep(&rt, false);
}

/// The float32 form of the `mma` template (exact codes staged once, activations split into hi
/// and lo f16 tiles, block scales applied to each unit's sums in f32) swept on its own, against the reference at the float32 tolerance with
/// poisoned outputs: `MMA_MIN_ROWS=8`, `MMA_F32_MIN_ROWS=8`, `MMA_F32_MAX_ROWS=40`, so rows around every boundary (7/8 `MMA_MIN_ROWS`,
/// 16/17 a 16-row block, 20/21 the multi-row gemv's float32 limit, 32/33 `MMAP_MAX_ROWS`, 40/41)
/// check the selection too: 8-40 rows take the weights-once kernels (`mmap_*` up to 32 rows
/// when `prepared`, else `mma_*`), the others not; N not a multiple of 16 or 64, K with a partial
/// chunk and block, bits 2/4/8, blocks 16-256, fetch groups and K slices by tunable, every norm
/// form, rank 3 for some; activation blocks of 2-6 chunks (`MMA_F32_ACT_BLOCK`) where the
/// prepared 16-row tiles take them (counted in the output).
fn mma_f32_sweep(rt: &Runtime, prepared: bool) {
    const RUNS: usize = 33;
    let (family, test) = if prepared {
        ("mmap_", 29)
    } else {
        ("mma_", 30)
    };
    let mut rng = Rng(if prepared { 0x3d3d } else { 0x3c3c });
    let mut lists = SpecCycles::new(
        &[64, 200, 328, 1000, 4096],
        &[16, 37, 130, 300],
        &[7, 8, 9, 16, 17, 20, 21, 32, 33, 40, 41],
    );
    let mut blocks = Cycle::new(&[16usize, 32, 64, 128, 256]);
    let mut splits = Cycle::new(&[0i64, 1, 2, 5]);
    let mut groups = Cycle::new(&[0i64, 1, 2, 4]);
    let mut row_blocks = Cycle::new(&[0i64, 1, 2]);
    // Subgroups: by tile (7 for 16-row tiles, 4 above) or 4 / 6 (7 with tiles of 2 row blocks
    // staged together would need 48 640 bytes of workgroup memory, more than some devices grant).
    let mut subgroups = Cycle::new(&[0i64, 4, 6]);
    let mut in_turns = SeqSweep::new();
    let mut taken = 0;
    let mut blocked = 0;
    for i in 0..RUNS {
        let mut spec = lists.next(&mut rng, 3);
        spec.dtype = DType::F32;
        spec.block_size = blocks.next(&mut rng);
        let split = splits.next(&mut rng);
        let t = overrides(&[
            ("MMA_MIN_ROWS", 8),
            ("MMA_F32_MIN_ROWS", 8),
            ("MMA_F32_MAX_ROWS", 40),
            ("MMAP_MAX_ROWS", if prepared { 32 } else { 0 }),
            ("MMA_ROW_BLOCKS", row_blocks.next(&mut rng)),
            ("MMA_SPLIT_K", split),
            ("MMAP_SPLIT_K", split),
            ("MMA_FETCH_GROUP", groups.next(&mut rng)),
            ("MMA_SUBGROUPS", subgroups.next(&mut rng)),
            // Activation blocks of the prepared 16-row tiles (hi and lo parts), where they
            // apply (one chunk per request, a whole block per slice, the memory fits).
            ("MMA_F32_ACT_BLOCK", [0, 4, 6, 2][i % 4]),
        ])
        .into_iter()
        .chain(in_turns.next(&mut rng))
        .collect();
        let rows = spec.rows();
        // The original layout needs whole 16-byte vectors per weight row; the prepared one pads.
        let row_ok = (spec.k_blocks() * spec.blob_size()).is_multiple_of(16);
        let want = if !(8..=40).contains(&rows) {
            None
        } else if prepared && rows <= 32 {
            Some("mmap_")
        } else if row_ok {
            Some("mma_")
        } else {
            None
        };
        let call = if i % 5 == 4 {
            Call::rank3(spec, seed(test, i))
        } else {
            Call::rank2(spec, seed(test, i))
        };
        let what = format!("{family}f32 #{i:<3} {call} {t:?}");
        let c = run_checked(rt, &call, &t, &what);
        let got = ["mmap_", "mma_"]
            .into_iter()
            .find(|f| c.plan.variant.starts_with(f));
        assert_eq!(got, want, "{what}: {}", c.plan.variant);
        println!("{what}: {} (err {:.2e})", c.plan.variant, c.y_err);
        if got == Some(family) {
            taken += 1;
        }
        let main = c.plan.passes.iter().find(|p| p.id == "main");
        if main.and_then(|p| p.context.get("mmaActBlock")?.as_i64()) > Some(0) {
            blocked += 1;
        }
    }
    println!("{family}f32: {blocked} of {RUNS} runs with activation blocks");
    assert!(
        taken >= RUNS / 3,
        "only {taken} of {RUNS} float32 runs took {family}"
    );
}

/// The overlay's `mmap_*` variants (the `mma` kernel on prepared weights, `core::layout`'s
/// `mma-tiles`, which the runtime builds from the caller's tensors): all 32 (16 forms, K whole
/// and in 3 slices) reached and right against the reference with poisoned outputs at the
/// coverage matrix's awkward sizes (N and K padded to the tiles, weight rows that are not whole
/// 16-byte vectors), then a sweep with `MMA_MIN_ROWS=2` and `MMAP_MAX_ROWS` open: rows around
/// every 16-row block and tile (2 to 130), N not a multiple of 16 or 128, K with a partial chunk
/// and block, bits 2/4/8, blocks 16-256, row blocks, fetch groups, K slices and gate and up in
/// turns ([`SeqSweep`]; also alternating on the coverage calls, [`seq`]) by tunable, every
/// norm form; then device tensors: the prepared copies are built on the first run, kept
/// with the weight tensors (none built on the next runs) and rebuilt after `write_tensor`.
/// Every coverage call runs with float16 and with float32 activations (the float32 form, f32
/// scales in the prepared layout, `MMA_F32_MAX_ROWS` open, float32 tolerance), and the float32
/// form is swept on its own ([`mma_f32_sweep`]).
/// Skipped, with a note, on an adapter without cooperative matrices (lavapipe).
#[test]
fn mmap_variants() {
    let Some(rt) = tensor_core_runtime("mmap_variants") else {
        return;
    };
    let mut reached = BTreeSet::new();
    let mut reached_f32 = BTreeSet::new();
    for (i, case) in nbits_mlp_core::coverage::mmap_matrix().iter().enumerate() {
        for dtype in [DType::F16, DType::F32] {
            let mut shape = shape_of(case);
            shape.dtype = dtype;
            let call = if i % 4 == 1 {
                Call::rank3(shape, seed(26, i))
            } else {
                Call::rank2(shape, seed(26, i))
            };
            let open = if dtype == DType::F32 { 65535 } else { 0 };
            let from = if dtype == DType::F32 { 1 } else { 16 };
            let runs = [
                (
                    overrides(&[
                        ("MMAP_SPLIT_K", 1),
                        ("MMA_F32_MAX_ROWS", open),
                        ("MMA_F32_MIN_ROWS", from),
                    ])
                    .into_iter()
                    .chain(seq(i, dtype))
                    .collect(),
                    case.expect.clone(),
                ),
                (
                    overrides(&[
                        ("MMAP_SPLIT_K", 3),
                        ("MMA_F32_MAX_ROWS", open),
                        ("MMA_F32_MIN_ROWS", from),
                    ])
                    .into_iter()
                    .chain(seq(i + 1, dtype))
                    .collect(),
                    case.expect.replacen("mmap_", "mmap_split_", 1),
                ),
            ];
            for (t, expect) in runs {
                let c = run_checked(&rt, &call, &t, &case.name);
                assert_eq!(c.plan.variant, expect, "{} ({call}, {t:?})", case.name);
                eprintln!(
                    "mmap_variants: {} ({call}): {} err {:.3e}",
                    case.name, c.plan.variant, c.y_err
                );
                if dtype == DType::F32 {
                    reached_f32.insert(c.plan.variant.clone());
                } else {
                    reached.insert(c.plan.variant.clone());
                }
            }
        }
    }
    assert_eq!(reached.len(), 32, "mmap variants reached: {reached:?}");
    assert_eq!(
        reached_f32, reached,
        "mmap variants reached by float32 calls"
    );
    const RUNS: usize = 30;
    let mut rng = Rng(0x3b3b);
    let mut lists = SpecCycles::new(
        &[64, 200, 328, 1000, 4096],
        &[16, 37, 130, 300],
        &[2, 15, 16, 17, 31, 33, 48, 64, 65, 130],
    );
    let mut row_blocks = Cycle::new(&[0i64, 1, 2, 4]);
    let mut splits = Cycle::new(&[0i64, 1, 2, 5]);
    let mut groups = Cycle::new(&[0i64, 1, 2, 4]);
    // Subgroups per workgroup: by tile (4 or 7-8) or 4-7 (8 with tiles of 2+ row blocks staged
    // together would not fit 48 KiB).
    let mut subgroups = Cycle::new(&[0i64, 4, 5, 6, 7]);
    // Chunks per activation block of the 16-row tiles: 8 (the default), 2 and 3 (blocks cut by
    // K and by the slices), 0 (none).
    let mut act_blocks = Cycle::new(&[8i64, 2, 3, 0]);
    let mut in_turns = SeqSweep::new();
    let mut mmap = 0;
    for i in 0..RUNS {
        let mut shape = lists.next(&mut rng, 3);
        shape.dtype = DType::F16;
        let t = overrides(&[
            ("MMA_MIN_ROWS", 2),
            ("MMAP_MAX_ROWS", 65535),
            // (the large-tile kernel, priority above, stays off as by default)
            ("MMAL_MIN_ROWS", 0),
            ("MMA_ROW_BLOCKS", row_blocks.next(&mut rng)),
            ("MMAP_SPLIT_K", splits.next(&mut rng)),
            ("MMA_FETCH_GROUP", groups.next(&mut rng)),
            ("MMA_SUBGROUPS", subgroups.next(&mut rng)),
            ("MMA_ACT_BLOCK", act_blocks.next(&mut rng)),
        ])
        .into_iter()
        .chain(in_turns.next(&mut rng))
        .collect();
        let call = if i % 5 == 4 {
            Call::rank3(shape, seed(27, i))
        } else {
            Call::rank2(shape, seed(27, i))
        };
        // Every K here is a multiple of 8 and every block a power of two from 16: all fit.
        let c = run_checked(&rt, &call, &t, &format!("mmap #{i} {t:?}"));
        if took(&c, "mmap_", true, &format!("mmap #{i:<3} {call} {t:?}")) {
            mmap += 1;
        }
    }
    assert_eq!(mmap, RUNS);
    // Subgroup pairs (`mmaPairs`: 16-row tiles, 4- and 8-bit codes, K whole, the column ranges
    // one wave of the shader cores given): 4-7 pairs, blocks of 4-8 chunks, K ending mid-chunk
    // and mid-block, N past the last column range, every norm form, the biases; each call by
    // matrix pairs (`MMA_PAIRS=1`) and by K pairs (`MMA_PAIRS=2`, odd chunk counts among them).
    let mut pair_subgroups = Cycle::new(&[7i64, 4, 5, 6]);
    let mut pair_blocks = Cycle::new(&[4i64, 8, 5]);
    for (i, (k, n, rows, bits, block)) in [
        (4096, 1000, 16, 4, 32),
        (200, 37, 9, 8, 64),
        (1000, 300, 12, 4, 16),
        (1096, 130, 16, 8, 128),
        (648, 16, 10, 4, 32),
        (3584, 700, 16, 4, 64),
    ]
    .into_iter()
    .enumerate()
    {
        let mut shape = MlpShape::new(k, n, rows);
        shape.dtype = DType::F16;
        shape.bits = bits;
        shape.block_size = block;
        let forms = [
            (false, false, false),
            (true, false, false),
            (true, true, true),
        ];
        let (norm, skip, residual) = forms[i % 3];
        shape.norm = norm;
        shape.skip = skip;
        shape.residual = residual;
        shape.gate_bias = i % 2 == 0;
        shape.up_bias = i % 4 == 1;
        let subgroups = pair_subgroups.next(&mut rng);
        let block = pair_blocks.next(&mut rng);
        // Then matrix pairs with the early fetch three or four chunks ahead
        // (`MMA_EARLY_FETCH_CHUNKS`; the 8-bit calls have no early fetch by rule), ping-pong
        // (`MMA_PING_PONG`) without pairs (32-row slabs, one half staged beside the other's
        // products; its block is what fits beside the slabs, at least 4 chunks) and in matrix
        // pairs (2- and 4-bit codes: halves of K in the one slab; 8-bit calls plan without it).
        // (`MMA_PING_PONG` 1 = never, 2 = wherever it applies.)
        for (pairs, depth, ping) in [
            (1i64, 2i64, 1i64),
            (2, 2, 1),
            (1, 3 + i as i64 % 2, 1),
            (0, 2, 2),
            (1, 2, 2),
        ] {
            let t = overrides(&[
                ("MMA_MIN_ROWS", 2),
                ("SHADER_CORES", 132),
                ("MMAP_SPLIT_K", 1),
                ("MMA_SUBGROUPS", subgroups),
                ("MMA_ACT_BLOCK", block),
                ("MMA_PAIRS", pairs),
                ("MMA_EARLY_FETCH_CHUNKS", depth),
                ("MMA_PING_PONG", ping),
            ]);
            let call = Call::rank2(shape.clone(), seed(28, i));
            let c = run_checked(&rt, &call, &t, &format!("mmap pairs #{i} {t:?}"));
            let main = c.plan.passes.iter().find(|p| p.id == "main").unwrap();
            let got = |key: &str| main.context.get(key).and_then(|v| v.as_i64());
            // Asked everywhere (2), ping-pong runs but in 8-bit matrix pairs.
            let runs = ping == 2 && !(pairs == 1 && bits == 8);
            assert_eq!(
                (got("mmaPairs"), got("mmaPingPong")),
                (Some(pairs), Some(i64::from(runs))),
                "mmap pairs #{i} ({call}, {t:?}): {}",
                c.plan.variant
            );
            eprintln!(
                "mmap_variants: pairs #{i} ({call}, {t:?}): {} err {:.3e}",
                c.plan.variant, c.y_err
            );
        }
    }
    mma_f32_sweep(&rt, true);
    prepared_device_tensors(&rt, "mmap_", 19);
}

/// The float32 form with gate and up in workgroups of their own (`MMA_F32_SEPARATE=2`,
/// `mlp-mma`'s ONE) on tensor cores: twelve calls of 17-130 rows (tiles of 2-4 row blocks, rows
/// around every 16-row block and 64-row tile), N not a multiple of 16 or of the column ranges, K
/// with a partial chunk and block, 4- and 8-bit codes in blocks of 16-256, K whole or in 2-3
/// slices, 4 or 7 subgroups, fetch groups of 1 or 2, every norm form and bias, rank 3 for some;
/// each must plan the matrices apart (the grid's depth twice its slices) and match the reference
/// with poisoned outputs. Skipped, with a note, on an adapter without cooperative matrices
/// (lavapipe; `mmap_f32_separate_emulated` runs the kernel there).
#[test]
fn mmap_f32_separate_variants() {
    let Some(rt) = tensor_core_runtime("mmap_f32_separate_variants") else {
        return;
    };
    // plain, norm, skip, skipsum
    let forms = forms();
    let calls: [(usize, usize, usize, u32, usize, i64); 12] = [
        (4096, 1000, 64, 4, 32, 1),
        (1000, 130, 17, 4, 32, 1),
        (200, 37, 33, 8, 64, 2),
        (328, 300, 48, 4, 16, 1),
        (64, 16, 65, 4, 256, 1),
        (1096, 650, 100, 8, 128, 3),
        (4096, 700, 128, 4, 32, 1),
        (648, 70, 130, 4, 32, 2),
        (512, 130, 32, 8, 16, 1),
        (1000, 37, 24, 4, 64, 1),
        (3584, 300, 96, 8, 32, 1),
        (256, 650, 80, 4, 128, 2),
    ];
    for (i, (k, n, rows, bits, block, split)) in calls.into_iter().enumerate() {
        let mut shape = MlpShape::new(k, n, rows);
        shape.dtype = DType::F32;
        shape.bits = bits;
        shape.block_size = block;
        let f = &forms[i % 4];
        (shape.norm, shape.skip, shape.residual) = (f.norm, f.skip, f.residual);
        shape.gate_bias = i % 3 == 0;
        shape.up_bias = i % 5 == 1;
        let t = overrides(&[
            ("MMA_F32_SEPARATE", 2),
            ("MMA_F32_MAX_ROWS", 65535),
            ("MMA_SEQ_MIN_TILES", 0),
            ("SHADER_CORES", 132),
            ("MMAP_SPLIT_K", split),
            ("MMA_SUBGROUPS", [0, 4, 7][i % 3]),
            ("MMA_FETCH_GROUP", [0, 1, 2][(i / 3) % 3]),
        ]);
        let call = if i % 4 == 2 {
            Call::rank3(shape, seed(42, i))
        } else {
            Call::rank2(shape, seed(42, i))
        };
        let what = format!("mmap f32 separate #{i} {t:?}");
        let c = run_checked(&rt, &call, &t, &what);
        let main = c.plan.passes.iter().find(|p| p.id == "main").unwrap();
        assert_eq!(
            (
                main.context.get("mmaSeparate").and_then(|v| v.as_i64()),
                main.dispatch[2]
            ),
            (Some(1), 2 * split as u32),
            "{what} ({call}): {}",
            c.plan.variant
        );
        eprintln!(
            "mmap_f32_separate_variants: #{i} ({call}): {} err {:.3e}",
            c.plan.variant, c.y_err
        );
    }
}

/// Stream-K on prepared weights (`mmap_sk_*`) on tensor cores: every form and bias combination
/// of the `mmap` coverage calls (K, bits and blocks as there; N at least 650 and 4 subgroups, so
/// there are 11 column ranges or more) with float16 and float32 activations, forced on grids of
/// 4, 6 or 10 workgroups that cut tiles between their shares (tiles of 1, 2 or 4 row blocks,
/// fetch groups 1 / 2 / 4, gate and up in turns or together); then a Llama-8B-wide call of 128
/// rows (448 tiles) where the device's own shader-core count makes the automatic rule
/// (`MMAP_STREAM_K` 0) choose stream-K (on the H200). Against the reference with poisoned
/// outputs. Skipped, with a note, on an adapter without cooperative matrices (lavapipe;
/// `mmap_sk_emulated` runs the kernel there).
#[test]
fn mmap_sk_variants() {
    let Some(rt) = tensor_core_runtime("mmap_sk_variants") else {
        return;
    };
    let mut reached = BTreeSet::new();
    let mut cuts = 0;
    let grids = [(2i64, 2i64), (3, 2), (5, 2)];
    let tiles = [(1i64, 1i64, false), (2, 2, true), (4, 4, false)];
    for (i, case) in nbits_mlp_core::coverage::mmap_matrix().iter().enumerate() {
        for dtype in [DType::F16, DType::F32] {
            let mut shape = shape_of(case);
            shape.dtype = dtype;
            shape.n = shape.n.max(650);
            let j = i + usize::from(dtype == DType::F32);
            let (cores, per_core) = grids[j % 3];
            // The float32 form stages gate and up together, in 16-row tiles (workgroup storage).
            let (row_blocks, fetch_group, in_turns) = if dtype == DType::F32 {
                (1, [1, 4][j % 2], false)
            } else {
                tiles[(j / 3) % 3]
            };
            let grid = SkGrid {
                cores,
                per_core,
                row_blocks,
                fetch_group,
                in_turns,
            };
            let mut t = grid.tunables();
            t.extend(overrides(&[
                ("MMA_F32_MAX_ROWS", 65535),
                ("MMA_F32_MIN_ROWS", 1),
            ]));
            let (cut, n_tiles, g) = grid.cuts(shape.rows(), shape.k, shape.n);
            cuts += cut;
            let call = if i % 4 == 1 {
                Call::rank3(shape, seed(29, i))
            } else {
                Call::rank2(shape, seed(29, i))
            };
            let c = run_checked(&rt, &call, &t, &format!("{} sk", case.name));
            let expect = case.expect.replacen("mmap_", "mmap_sk_", 1);
            assert_eq!(c.plan.variant, expect, "{} ({call}, {t:?})", case.name);
            eprintln!(
                "mmap_sk_variants: {} ({call}, {g} groups, {n_tiles} tiles): {} err {:.3e}",
                case.name, c.plan.variant, c.y_err
            );
            reached.insert(c.plan.variant.clone());
        }
    }
    assert_eq!(reached.len(), 16, "mmap_sk variants reached: {reached:?}");
    assert!(cuts >= 8, "only {cuts} tiles cut");
    // The automatic rule with the device's own SHADER_CORES, at a width with a part-empty last
    // wave.
    let cores = rt.profile().tunables.get("SHADER_CORES").copied();
    let shape = MlpShape {
        k: 1024,
        n: 14336,
        lead: vec![128],
        dtype: DType::F16,
        ..MlpShape::default()
    };
    let call = Call::rank2(shape, seed(29, 99));
    let auto = overrides(&[("MMAP_STREAM_K", 0)]);
    let c = run_checked(&rt, &call, &auto, "llama-wide 128 rows");
    eprintln!(
        "mmap_sk_variants: {call} with SHADER_CORES {cores:?}: {} err {:.3e}",
        c.plan.variant, c.y_err
    );
    if cores == Some(132) {
        assert_eq!(c.plan.variant, "mmap_sk_nogb_noub");
    }
}

/// Float32 calls of many rows on the planner's defaults: since session 51 the weights-once
/// tile's float32 form takes every f32 call from 9 rows (`MMA_F32_MAX_ROWS` no cap; `coop` took
/// 385+ rows before), so calls past 384 rows (several 32-row tiles, K whole or in slices by the
/// 132-core profile's rule, blocks of 32-256 where a unit is one or two chunks, every norm form,
/// N not a multiple of the 16-column stripes) take `mmap_*` and match the float64 reference with
/// poisoned outputs. Skipped, with a note, on an adapter without cooperative matrices (lavapipe).
#[test]
fn mmap_f32_many_rows() {
    let Some(rt) = tensor_core_runtime("mmap_f32_many_rows") else {
        return;
    };
    // (K, N, rows, bits, block, norm form)
    let calls: [(usize, usize, usize, u32, usize, usize); 4] = [
        (4096, 300, 385, 4, 32, 0),
        (1000, 130, 520, 4, 128, 3),
        (3584, 37, 1024, 8, 64, 1),
        (2048, 200, 449, 2, 256, 2),
    ];
    // plain, norm, skip, skipsum
    let forms = forms();
    for (i, (k, n, rows, bits, block, form)) in calls.into_iter().enumerate() {
        let mut shape = MlpShape::new(k, n, rows);
        shape.dtype = DType::F32;
        shape.bits = bits;
        shape.block_size = block;
        let f = &forms[form];
        (shape.norm, shape.skip, shape.residual) = (f.norm, f.skip, f.residual);
        shape.up_bias = i % 2 == 1;
        let call = if i == 2 {
            Call::rank3(shape, seed(53, i))
        } else {
            Call::rank2(shape, seed(53, i))
        };
        let t = overrides(&[("SHADER_CORES", 132)]);
        let c = run_checked(&rt, &call, &t, "mmap_f32_many_rows");
        assert!(
            c.plan.variant.starts_with("mmap_"),
            "{call}: {}",
            c.plan.variant
        );
        eprintln!(
            "mmap_f32_many_rows: {call}: {} err {:.3e}",
            c.plan.variant, c.y_err
        );
    }
}

/// Float32 calls at the fewest-rows rule's boundaries on the planner's defaults (132-core
/// profile): on a full grid (K 256 unsplit, N 14 331: 128 column ranges, not a multiple of the
/// 16-column stripes) the weights-once tile's float32 form takes 4- and 8-bit codes in blocks of
/// 128+ from 5 rows, the rest of blocks 64+ from 6, blocks of 32 from 9
/// (`coverage::mma_f32_min_rows`, the manifest's `mmaF32MinRows`), the few-rows kernel's float32
/// form the rows below; each call matches the float64 reference with poisoned outputs, every
/// norm form in turn. Skipped, with a note, on an adapter without cooperative matrices.
#[test]
fn mmap_f32_fewest_rows() {
    let Some(rt) = tensor_core_runtime("mmap_f32_fewest_rows") else {
        return;
    };
    let (k, n) = (256, 14331);
    // (bits, block, rows)
    let calls: [(u32, usize, &[usize]); 6] = [
        (4, 128, &[4, 5, 6]),
        (8, 256, &[4, 5]),
        (2, 128, &[5, 6]),
        (4, 64, &[5, 6]),
        (8, 64, &[5, 6]),
        (4, 32, &[8, 9]),
    ];
    let forms = forms();
    let t = overrides(&[("SHADER_CORES", 132)]);
    let mut i = 0;
    for (bits, block, rows) in calls {
        let from = nbits_mlp_core::coverage::mma_f32_min_rows(k, n, bits, block, 132);
        for &rows in rows {
            let mut shape = MlpShape::new(k, n, rows);
            shape.dtype = DType::F32;
            (shape.bits, shape.block_size) = (bits, block);
            let f = &forms[i % forms.len()];
            (shape.norm, shape.skip, shape.residual) = (f.norm, f.skip, f.residual);
            shape.gate_bias = i % 3 == 2;
            let call = Call::rank2(shape, seed(57, i));
            i += 1;
            let c = run_checked(&rt, &call, &t, "mmap_f32_fewest_rows");
            let want = if rows >= from { "mmap_" } else { "gemvp_f32_" };
            assert!(
                c.plan.variant.starts_with(want),
                "{call} ({bits}-bit blocks of {block}, from {from}): {}",
                c.plan.variant
            );
            eprintln!(
                "mmap_f32_fewest_rows: {call}: {} err {:.3e}",
                c.plan.variant, c.y_err
            );
        }
    }
}

/// A kernel on prepared weights (`family`: `mmap_`, `gemvp_`) on device tensors of `rows` rows:
/// prepared copies built once per weight tensor, rebuilt after the tensor is overwritten,
/// results right against the reference each time.
pub fn prepared_device_tensors(rt: &Runtime, family: &str, rows: usize) {
    prepared_device_tensors_of(rt, family, rows, DType::F16);
}

/// [`prepared_device_tensors`] for a model of `dtype` (`gemvp_f32_`: float32).
pub fn prepared_device_tensors_of(rt: &Runtime, family: &str, rows: usize, dtype: DType) {
    let shape = MlpShape {
        k: 328,
        n: 130,
        lead: vec![rows],
        dtype,
        bits: 2,
        block_size: 16,
        ..MlpShape::default()
    };
    let mut case = Call::rank2(shape.clone(), seed(28, 0)).case();
    let plan = rt.plan(&case.call(), &Tunables::new()).expect("plan");
    assert!(plan.variant.starts_with(family), "{}", plan.variant);
    let dev: Vec<Option<GpuTensor>> = case
        .input_refs()
        .iter()
        .map(|t| t.map(|t| rt.upload(t).expect("upload")))
        .collect();
    let dev_refs: Vec<Option<&GpuTensor>> = dev.iter().map(Option::as_ref).collect();
    assert_eq!(
        rt.prepare_inputs(&plan, &dev_refs).expect("prepare"),
        4,
        "gate_B, gate_scales, up_B, up_scales prepared"
    );
    assert_eq!(rt.prepare_inputs(&plan, &dev_refs).expect("again"), 0);
    let outs = rt.alloc_outputs(&plan).expect("outputs");
    let out_refs: Vec<Option<&GpuTensor>> = outs.iter().map(Option::as_ref).collect();
    let check = |what: &str, case: &Case| {
        let want = case.run_reference().expect("reference");
        let y = out_refs[0].expect("Y");
        rt.fill(y, 0xff).expect("poison");
        rt.run_on_device(&plan, &dev_refs, &out_refs).expect("run");
        let y = rt.download(y).expect("download");
        compare::check_scaled(&want.y_f64, &want.y_err_scale, &y, plan.f16_accumulation())
            .unwrap_or_else(|e| panic!("{family} on device tensors, {what}: {e}"));
    };
    check("first run", &case);
    check("second run", &case);
    // Overwriting a weight tensor drops its prepared copies: the next run rebuilds them.
    let other = Call::rank2(shape, seed(28, 1)).case();
    let gate_b = other.inputs[3].clone().expect("gate_B");
    rt.write_tensor(dev_refs[3].expect("gate_B"), &gate_b)
        .expect("write gate_B");
    case.inputs[3] = Some(gate_b);
    assert_eq!(rt.prepare_inputs(&plan, &dev_refs).expect("after write"), 1);
    check("after write_tensor", &case);
}

/// The tensor-core kernels (`mma_*` on the original layout, `mmap_*` on the prepared one, the
/// large-tile `mmal_*`) with K a multiple of 64 whose last block is padded past K by a whole
/// 64-code chunk or more (K 192 in blocks of 128, K 320 and 384 in blocks of 256; K 256 in
/// blocks of 256 has none): the padding codes (nonzero, times the block's scale) must meet zero
/// activations, not the next row's, as `gemvp` once did not (`gemvp_padded_tiles`). Every norm
/// form, both biases, K whole and in 2 slices, against the reference with poisoned outputs.
/// Skipped, with a note, on an adapter without cooperative matrices (lavapipe).
#[test]
fn tensor_core_padded_tiles() {
    let Some(rt) = tensor_core_runtime("tensor_core_padded_tiles") else {
        return;
    };
    // (family, rows, tunables that give it the call)
    type Family<'a> = (&'a str, usize, &'a [(&'a str, i64)]);
    let families: [Family; 3] = [
        ("mma_", 20, &[("MMAP_MAX_ROWS", 0)]),
        ("mmap_", 20, &[]),
        ("mmal_", 70, &[("MMAL_MIN_ROWS", 65)]),
    ];
    let mut i = 0;
    for (family, rows, extra) in families {
        for j in 0..PADDED_TILES.len() {
            for split in [1i64, 2] {
                let shape = padded_tile_shape(j, 150, rows, DType::F16);
                let mut t: Vec<(&str, i64)> = extra.to_vec();
                t.extend([
                    ("MMA_SPLIT_K", split),
                    ("MMAP_SPLIT_K", split),
                    ("MMAL_SPLIT_K", split),
                ]);
                let call = Call::rank2(shape, seed(47, i));
                i += 1;
                let what = format!("{family} padded tiles, K in {split}");
                let c = run_checked(&rt, &call, &overrides(&t), &what);
                took(&c, family, true, &what);
            }
        }
    }
}
