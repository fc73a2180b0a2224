//! The few-rows kernel on prepared weights (`gemvp_*`, overlay family `gemvp`): every variant
//! reached where its `when` rules say, and right, on any adapter with `shader-f16` (lavapipe
//! included: the kernel needs no cooperative matrices nor subgroups).

use crate::calls::{
    overrides, padded_tile_shape, seed, shape_of, wide_magnitudes, Call, Cycle, Rng, SpecCycles,
    PADDED_TILES,
};
use crate::check::{run_checked, took};
use crate::families::{prepared_device_tensors, prepared_device_tensors_of};
use nbits_mlp_core::coverage::{
    gemvp_f32_matrix, gemvp_f32_rows, gemvp_f32_wave_tile, gemvp_fused_bytes, gemvp_fused_matrix,
    gemvp_fused_tile_bytes, gemvp_fused_wave_tile, gemvp_group_rows, gemvp_matrix, gemvp_one_row,
    gemvp_rows, gemvp_stage_min_cols, gemvp_staged_matrix, gemvp_staged_wave_tile, WaveLimits,
    GEMVP_FUSED_ROW_BYTES, GEMVP_STAGED_TUNABLES,
};
use nbits_mlp_core::DType;
use nbits_mlp_gpu::testing;
use std::collections::BTreeSet;

/// The overlay's 16 `gemvp_*` variants (every form and bias) reached and right against the
/// reference with poisoned outputs at the coverage matrix's awkward sizes (rank 3 for some),
/// with the default tunables and with row groups of 3, one stripe per workgroup, K unsplit and
/// two columns per invocation (the norm forms in two passes, `GEMVP_INLINE_NORM=0`; the one-pass
/// forms have their own test below); then a sweep: rows 2-16 around the row groups, K with a partial
/// 64-code tile and block (and fewer tiles than slices), N not a multiple of 16 or 32, bits
/// 2/4/8, blocks 16-128, every norm form, every value of the tunables (rows per group,
/// invocations along the columns, slices, columns per invocation); the planner boundaries
/// (`GEMVP_MAX_ROWS` and one past it, one row, K not a multiple of 8; float32 models take the
/// float32 form, `gemvp_f32_*`, tested below); and
/// device tensors whose prepared copies the runtime builds on the GPU and rebuilds after a
/// write. `MMA_MIN_ROWS=17` throughout, so adapters with cooperative matrices (whose kernels
/// take f16 calls from 9 rows by default) run `gemvp` on the same rows as the others. Skipped,
/// with a note, without `shader-f16`.
#[test]
fn gemvp_variants() {
    let Some(rt) = testing::runtime() else { return };
    if !rt.profile().has_feature("shader-f16") {
        eprintln!(
            "gemvp_variants: skipped: {} has no `shader-f16`",
            rt.gpu().info().name
        );
        return;
    }
    let mut reached = BTreeSet::new();
    for (i, case) in gemvp_matrix().iter().enumerate() {
        let shape = shape_of(case);
        let call = if i % 4 == 1 {
            Call::rank3(shape, seed(40, i))
        } else {
            Call::rank2(shape, seed(40, i))
        };
        for t in [
            overrides(&[("MMA_MIN_ROWS", 17), ("GEMVP_INLINE_NORM", 0)]),
            overrides(&[
                ("MMA_MIN_ROWS", 17),
                ("GEMVP_INLINE_NORM", 0),
                ("GEMVP_ROWS", 3),
                ("GEMVP_COLS", 16),
                ("GEMVP_SLICES", 1),
                ("GEMVP_LANE_COLS", 2),
            ]),
        ] {
            let c = run_checked(&rt, &call, &t, &case.name);
            assert_eq!(c.plan.variant, case.expect, "{} ({call}, {t:?})", case.name);
            eprintln!(
                "gemvp_variants: {} ({call}, {t:?}): err {:.3e}",
                case.name, c.y_err
            );
            reached.insert(c.plan.variant.clone());
        }
    }
    assert_eq!(reached.len(), 16, "gemvp variants reached: {reached:?}");

    const RUNS: usize = 36;
    let mut rng = Rng(0x9e37);
    let mut lists = SpecCycles::new(
        &[8, 72, 104, 200, 520, 1000, 1032],
        &[1, 17, 37, 130, 300],
        &[2, 3, 5, 7, 8, 9, 15, 16],
    );
    let mut tiles = TileCycles::new();
    let mut gemvp = 0;
    for i in 0..RUNS {
        let mut shape = lists.next(&mut rng, 3);
        shape.dtype = DType::F16;
        let (mut pairs, fits) = tiles.next(&mut rng, &rt, shape.rows());
        // (the one pass's fixed tile, as on adapters that do not report their shader cores:
        // its one-wave tile, tested in `gemvp_fused_variants`, would take some calls whose
        // two-pass tile does not fit)
        pairs.extend([("MMA_MIN_ROWS", 17), ("GEMVP_FUSED_COLS", 64)]);
        let t = overrides(&pairs);
        let call = if i % 5 == 4 {
            Call::rank3(shape, seed(41, i))
        } else {
            Call::rank2(shape, seed(41, i))
        };
        // Every K here is a multiple of 8 and every row count at most 16: all fit where the
        // workgroup's memory and size allow.
        let c = run_checked(&rt, &call, &t, &format!("gemvp #{i} {t:?}"));
        if took(&c, "gemvp_", fits, &format!("gemvp #{i:<3} {call} {t:?}")) {
            gemvp += 1;
        }
    }
    assert!(
        gemvp >= RUNS * 2 / 3,
        "only {gemvp} of {RUNS} runs took gemvp"
    );

    // The planner's boundaries: the last row count it takes; one past it, one row of K 4096
    // in blocks of 32 (the gemv's whole units: `gemvp_one_row`), K not a multiple of 8 go
    // elsewhere (and are right); one row of K 200, and of K 4096 in blocks of 64, take it;
    // float32 models take the float32 form.
    let last = *gemvp_rows().end();
    assert!(gemvp_one_row(4, 200, 64) && gemvp_one_row(4, 4096, 64));
    assert!(!gemvp_one_row(4, 4096, 32));
    let block = shape_of(&gemvp_matrix()[0]).block_size;
    for (i, (rows, dtype, k, block, expected)) in [
        (last, DType::F16, 200, block, "gemvp_"),
        (last + 1, DType::F16, 200, block, ""),
        (1, DType::F16, 200, block, "gemvp_"),
        (1, DType::F16, 4096, 32, ""),
        (1, DType::F16, 4096, 64, "gemvp_"),
        (4, DType::F32, 200, block, "gemvp_f32_"),
        (4, DType::F16, 204, block, ""),
    ]
    .into_iter()
    .enumerate()
    {
        let mut shape = shape_of(&gemvp_matrix()[0]);
        shape.lead = vec![rows];
        shape.dtype = dtype;
        shape.k = k;
        shape.block_size = block;
        let call = Call::rank2(shape, seed(42, i));
        let t = overrides(&[("MMA_MIN_ROWS", 17)]);
        let c = run_checked(&rt, &call, &t, &format!("boundary {call}"));
        if expected.is_empty() {
            took(&c, "gemvp_", false, &format!("boundary {call}"));
        } else {
            took(&c, expected, true, &format!("boundary {call}"));
        }
    }
    prepared_device_tensors(&rt, "gemvp_", 5);
}

/// The few-rows kernel's norm forms of float16 calls in one pass (`gemvp_fused_*`, each
/// workgroup normalising its rows of A (+ skip) into workgroup memory): its 12 variants (every
/// norm form and bias) reached and right against the reference with poisoned outputs (the
/// residual output too) at the coverage matrix's awkward sizes (rank 3 for some), with the
/// default tunables and with row groups of 3, one stripe per workgroup, K unsplit and two
/// columns per invocation, and each call again in two passes (`GEMVP_INLINE_NORM=0`: `gemvp_*`);
/// a sweep of every norm form at rows 2-16, K multiples of 8 up to 4096 (rows that fit the
/// workgroup memory and `GEMVP_FUSED_ROW_BYTES` or not: `gemvp_fused_*` exactly where they fit,
/// else others), every value of the tile's tunables (`GEMVP_FUSED_COLS` and `_SLICES` for the
/// one pass); the boundaries of the fixed tile (K where the rows just reach
/// `GEMVP_FUSED_ROW_BYTES`, or with that raised the workgroup memory, and 8 more); the one-wave
/// tile (`SHADER_CORES` set: 1-13 cores, so that lavapipe runs its odd column counts and slice
/// counts, 2-6 rows, N and K awkward) exactly where its workgroup memory
/// fits, with the workgroup `gemvp_fused_wave_tile` says; and rows of very different magnitudes
/// (a few values near the f16 limit among values ~1e-3), where the sums of squares and the
/// normalised row must stay in range. Skipped, with a note, without `shader-f16`.
#[test]
fn gemvp_fused_variants() {
    let Some(rt) = testing::runtime() else { return };
    if !rt.profile().has_feature("shader-f16") {
        eprintln!(
            "gemvp_fused_variants: skipped: {} has no `shader-f16`",
            rt.gpu().info().name
        );
        return;
    }
    let storage = rt
        .profile()
        .limit("maxComputeWorkgroupStorageSize")
        .unwrap_or(0) as usize;
    let mut reached = BTreeSet::new();
    for (i, case) in gemvp_fused_matrix().iter().enumerate() {
        let shape = shape_of(case);
        let call = if i % 4 == 1 {
            Call::rank3(shape, seed(47, i))
        } else {
            Call::rank2(shape, seed(47, i))
        };
        let two_pass = case.expect.replacen("gemvp_fused_", "gemvp_", 1);
        for (t, want) in [
            (overrides(&[("MMA_MIN_ROWS", 17)]), &case.expect),
            (
                overrides(&[
                    ("MMA_MIN_ROWS", 17),
                    ("GEMVP_ROWS", 3),
                    ("GEMVP_FUSED_COLS", 16),
                    ("GEMVP_FUSED_SLICES", 1),
                    ("GEMVP_LANE_COLS", 2),
                ]),
                &case.expect,
            ),
            (
                overrides(&[("MMA_MIN_ROWS", 17), ("GEMVP_INLINE_NORM", 0)]),
                &two_pass,
            ),
        ] {
            let c = run_checked(&rt, &call, &t, &case.name);
            assert_eq!(&c.plan.variant, want, "{} ({call}, {t:?})", case.name);
            eprintln!(
                "gemvp_fused_variants: {} ({call}, {t:?}): err {:.3e}",
                case.name, c.y_err
            );
            reached.insert(c.plan.variant.clone());
        }
    }
    let fused = reached
        .iter()
        .filter(|v| v.starts_with("gemvp_fused_"))
        .count();
    assert_eq!(fused, 12, "gemvp_fused variants reached: {reached:?}");

    // The sweep: every norm form, the tile's tunables at random; one pass exactly where the
    // rows fit beside the slices' sums.
    const RUNS: usize = 30;
    let mut rng = Rng(0x7a11);
    let mut lists = SpecCycles::new(
        &[8, 72, 200, 520, 1032, 2056, 4096],
        &[1, 17, 37, 130],
        &[2, 3, 5, 6, 7, 8, 9, 16],
    );
    let mut tiles = TileCycles::new();
    let mut one_pass = 0;
    for i in 0..RUNS {
        let mut shape = lists.next(&mut rng, 1000);
        shape.dtype = DType::F16;
        (shape.norm, shape.skip, shape.residual) = [
            (true, false, false),
            (true, true, false),
            (true, true, true),
        ][i % 3];
        let rows = shape.rows();
        // The tile's tunables drawn twice: the one pass's (`GEMVP_FUSED_*`) and the two passes'.
        let (fused_tile, fits) = tiles.next(&mut rng, &rt, rows);
        let (mut pairs, _) = tiles.next(&mut rng, &rt, rows);
        let get = |name: &str| fused_tile.iter().find(|p| p.0 == name).unwrap().1 as usize;
        let (g, w, sl, lc) = (
            get("GEMVP_ROWS").min(rows),
            get("GEMVP_COLS"),
            get("GEMVP_SLICES"),
            get("GEMVP_LANE_COLS"),
        );
        pairs.retain(|p| p.0 == "GEMVP_COLS" || p.0 == "GEMVP_SLICES");
        pairs.extend([
            ("GEMVP_ROWS", g as i64),
            ("GEMVP_LANE_COLS", lc as i64),
            ("GEMVP_FUSED_COLS", w as i64),
            ("GEMVP_FUSED_SLICES", sl as i64),
        ]);
        let fused = fits
            && gemvp_fused_tile_bytes(g, shape.k, w, sl, lc) <= storage
            && 2 * g * shape.k <= GEMVP_FUSED_ROW_BYTES;
        pairs.push(("MMA_MIN_ROWS", 17));
        let t = overrides(&pairs);
        let call = if i % 5 == 4 {
            Call::rank3(shape, seed(48, i))
        } else {
            Call::rank2(shape, seed(48, i))
        };
        let what = format!("gemvp_fused #{i:<3} {call} {t:?}");
        let c = run_checked(&rt, &call, &t, &what);
        if fused {
            took(&c, "gemvp_", true, &what);
        }
        if took(&c, "gemvp_fused_", fused, &what) {
            one_pass += 1;
        }
    }
    assert!(
        one_pass >= RUNS / 2,
        "only {one_pass} of {RUNS} runs took gemvp_fused"
    );

    // The boundaries at 2 rows, the fixed tile (64 x 8, also where the adapter reports its
    // shader cores): the normalised rows at 20 KiB (`GEMVP_FUSED_ROW_BYTES`, K 5120: one pass)
    // and 8 values more per row (two passes); with that cap raised, K where the rows fill the
    // workgroup's memory (the reduction's levels in it too), and 8 more.
    let k_fit = (8..)
        .step_by(8)
        .take_while(|&k| gemvp_fused_bytes(2, k) <= storage)
        .last()
        .unwrap();
    assert!(gemvp_fused_bytes(2, k_fit + 8) > storage);
    let cap = GEMVP_FUSED_ROW_BYTES as i64;
    for (i, (k, cap, family)) in [
        (5120, cap, "gemvp_fused_"),
        (5128, cap, "gemvp_skip_"),
        (k_fit, 65536, "gemvp_fused_"),
        (k_fit + 8, 65536, "gemvp_skip_"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut shape = shape_of(&gemvp_fused_matrix()[0]);
        (shape.k, shape.n, shape.lead) = (k, 40, vec![2]);
        (shape.norm, shape.skip, shape.residual) = (true, true, false);
        let call = Call::rank2(shape, seed(49, i));
        let t = overrides(&[
            ("MMA_MIN_ROWS", 17),
            ("GEMVP_FUSED_ROW_BYTES", cap),
            ("GEMVP_FUSED_COLS", 64),
        ]);
        let c = run_checked(&rt, &call, &t, &format!("boundary {call}"));
        took(&c, family, true, &format!("boundary {call}"));
        if k == k_fit {
            // The rows fill the memory: the reduction's levels live in it too.
            assert!(
                c.plan.passes[0].wgsl.contains("const XSS: u32"),
                "boundary {call}: the reduction in the rows' memory"
            );
        }
    }

    // The one-wave tile: the cores set, so that small calls make the odd column counts and
    // slices of large GPUs; one pass exactly where its workgroup memory fits (no cap on the rows).
    let norm_forms = [
        (true, false, false),
        (true, true, false),
        (true, true, true),
    ];
    let (wave_runs, _) = one_wave_sweep(&rt, 51, 0x0e1a, 24, &norm_forms, "gemvp_fused_", &[]);
    assert!(
        wave_runs >= 12,
        "only {wave_runs} of 24 runs took the one-wave tile"
    );

    // Rows of very different magnitudes: A and skip with a few values near the f16 limit (at
    // different places, so S = A + skip stays finite) among values ~1e-3.
    for (i, k) in [3072usize, 1032].into_iter().enumerate() {
        let shape = nbits_mlp_core::MlpShape {
            k,
            n: 77,
            lead: vec![3],
            dtype: DType::F16,
            bits: 4,
            block_size: 32,
            skip: true,
            norm: true,
            residual: true,
            ..nbits_mlp_core::MlpShape::default()
        };
        let call = Call::rank2(shape, seed(50, i));
        let mut case = call.case();
        wide_magnitudes(&mut case, 0x51df + i as u64);
        let t = overrides(&[("MMA_MIN_ROWS", 17)]);
        let what = format!("gemvp_fused wide magnitudes #{i} K={k}");
        let c = crate::common::check::run_checked(
            &rt,
            &case.attrs,
            &case.input_refs(),
            true,
            &t,
            &what,
        );
        assert!(
            c.plan.variant.starts_with("gemvp_fused_"),
            "{what}: {}",
            c.plan.variant
        );
        println!("{what}: {} (err {:.2e})", c.plan.variant, c.y_err);
    }
}

/// The few-rows kernel's plain forms with each workgroup's rows of A staged in workgroup memory
/// (`gemvp_staged_*`, f16 calls, on the one-wave tile): its 4 variants reached and right against
/// the reference with poisoned outputs at the coverage matrix's awkward sizes (rank 3 for some)
/// under `GEMVP_STAGED_TUNABLES`, and each call again by default (`gemvp_plain_*`: the adapter's
/// cores, if it reports them, make too few columns per workgroup for these small N); a sweep
/// (1-13 cores, staging from 16 columns, 2-6 rows, K and N awkward, every code width and block)
/// that stages exactly where the tile's workgroup memory fits, with the workgroup and row groups
/// `gemvp_staged_wave_tile` says (6 rows in one group at least once). Skipped, with a note, without `shader-f16`.
#[test]
fn gemvp_staged_variants() {
    let Some(rt) = testing::runtime() else { return };
    if !rt.profile().has_feature("shader-f16") {
        eprintln!(
            "gemvp_staged_variants: skipped: {} has no `shader-f16`",
            rt.gpu().info().name
        );
        return;
    }
    let mut staged = GEMVP_STAGED_TUNABLES.to_vec();
    staged.push(("MMA_MIN_ROWS", 17));
    let mut reached = BTreeSet::new();
    for (i, case) in gemvp_staged_matrix().iter().enumerate() {
        let shape = shape_of(case);
        let call = if i % 2 == 1 {
            Call::rank3(shape, seed(52, i))
        } else {
            Call::rank2(shape, seed(52, i))
        };
        let plain = case.expect.replacen("gemvp_staged_", "gemvp_plain_", 1);
        for (t, want) in [
            (overrides(&staged), &case.expect),
            (overrides(&[("MMA_MIN_ROWS", 17)]), &plain),
        ] {
            let c = run_checked(&rt, &call, &t, &case.name);
            assert_eq!(&c.plan.variant, want, "{} ({call}, {t:?})", case.name);
            println!(
                "gemvp_staged_variants: {} ({call}): err {:.3e}",
                c.plan.variant, c.y_err
            );
            reached.insert(c.plan.variant.clone());
        }
    }
    let n_staged = reached
        .iter()
        .filter(|v| v.starts_with("gemvp_staged_"))
        .count();
    assert_eq!(n_staged, 4, "gemvp_staged variants reached: {reached:?}");

    let plain = [(false, false, false)];
    let extra = [("GEMVP_STAGE_MIN_COLS", 16)];
    let (runs, six) = one_wave_sweep(&rt, 53, 0x57a9, 20, &plain, "gemvp_staged_", &extra);
    assert!(runs >= 10, "only {runs} of 20 runs staged");
    assert!(six >= 1, "no run staged 6 rows in one group");
}

/// A sweep of the few-rows kernel's one-wave tile: `runs` f16 calls of 2-6 rows, awkward K and N,
/// every code width and block, `forms` (norm, skip, residual) in turn, rank 3 every fourth,
/// `SHADER_CORES` cycling through 1-13 (so that small calls make the odd column and slice counts
/// of large GPUs) and `extra` tunables. Each is checked against the reference with poisoned
/// outputs, takes `family` (a variant-name prefix) exactly where the tile of
/// `gemvp_fused_wave_tile` (norm forms) or `gemvp_staged_wave_tile` (plain: 6 rows in one group
/// where it fits) fits the adapter's workgroup memory, and then has that tile's workgroup and
/// row groups. Returns how many took `family`, and how many of those in one group of 6 rows.
fn one_wave_sweep(
    rt: &nbits_mlp_gpu::Runtime,
    seed_base: u64,
    rng_seed: u64,
    runs: usize,
    forms: &[(bool, bool, bool)],
    family: &str,
    extra: &[(&str, i64)],
) -> (usize, usize) {
    let mut rng = Rng(rng_seed);
    let mut lists = SpecCycles::new(
        &[8, 136, 448, 960, 1216, 2056, 3072],
        &[1, 23, 100, 300, 777],
        &[2, 3, 4, 5, 6],
    );
    let mut cores = Cycle::new(&[1usize, 2, 3, 5, 7, 13]);
    let (mut taken, mut six) = (0, 0);
    for i in 0..runs {
        let mut shape = lists.next(&mut rng, 1000);
        shape.dtype = DType::F16;
        (shape.norm, shape.skip, shape.residual) = forms[i % forms.len()];
        let n_cores = cores.next(&mut rng);
        let limits = WaveLimits::of(rt.profile(), n_cores);
        let storage = limits.storage;
        let rows = shape.rows();
        let (k, n) = (shape.k, shape.n);
        let (rg, cols, slices, fits) = if shape.norm {
            let (cols, slices) = gemvp_fused_wave_tile(rows, k, n, &limits);
            let rg = gemvp_group_rows(rows);
            let fits = gemvp_fused_tile_bytes(rg, k, cols, slices, 1) <= storage;
            (rg, cols, slices, fits)
        } else {
            let min_cols = extra
                .iter()
                .find(|(name, _)| *name == "GEMVP_STAGE_MIN_COLS")
                .map_or(gemvp_stage_min_cols(), |&(_, v)| v as usize);
            let (rg, cols, slices) = gemvp_staged_wave_tile(rows, k, n, &limits, min_cols);
            let fits =
                cols >= min_cols && gemvp_fused_tile_bytes(rg, k, cols, slices, 1) <= storage;
            (rg, cols, slices, fits)
        };
        let mut pairs = vec![("MMA_MIN_ROWS", 17), ("SHADER_CORES", n_cores as i64)];
        pairs.extend_from_slice(extra);
        let t = overrides(&pairs);
        let call = if i % 4 == 3 {
            Call::rank3(shape, seed(seed_base, i))
        } else {
            Call::rank2(shape, seed(seed_base, i))
        };
        let what =
            format!("{family} wave #{i:<2} {n_cores} cores {rg} rows x {cols} x {slices} {call}");
        let c = run_checked(rt, &call, &t, &what);
        if took(&c, family, fits, &what) {
            let main = &c.plan.passes[0];
            assert_eq!(
                main.workgroup_size,
                [(cols * slices) as u32, 1, 1],
                "{what}"
            );
            assert_eq!(main.dispatch[0] as usize, rows.div_ceil(rg), "{what}");
            taken += 1;
            if rg == 6 {
                six += 1;
            }
        }
    }
    (taken, six)
}

/// K a multiple of 64 whose last block is padded past K by a whole 64-code tile or more (K 192
/// in blocks of 128, K 320 and 384 in blocks of 256; K 256 in blocks of 256 has no padding):
/// the tiles past K must meet zero activations (the bound check), not the next row's, nor the
/// padding codes' nonzero value times the block's scale. Every norm form, both biases; the
/// float32 form (`gemvp_f32_*`) on every adapter, the f16 form where `shader-f16` is.
#[test]
fn gemvp_padded_tiles() {
    let Some(rt) = testing::runtime() else { return };
    padded_tiles(&rt, DType::F32, "gemvp_f32_");
    if rt.profile().has_feature("shader-f16") {
        padded_tiles(&rt, DType::F16, "gemvp_");
    } else {
        eprintln!("gemvp_padded_tiles: f16 skipped: no `shader-f16`");
    }
}

/// [`gemvp_padded_tiles`] for one dtype; `family`: the variant prefix the calls must take.
fn padded_tiles(rt: &nbits_mlp_gpu::Runtime, dtype: DType, family: &str) {
    for i in 0..PADDED_TILES.len() {
        let shape = padded_tile_shape(i, 150, 5, dtype);
        let call = Call::rank2(shape, seed(46, i));
        let t = overrides(&[("MMA_MIN_ROWS", 17)]);
        let c = run_checked(rt, &call, &t, &format!("padded tiles {call}"));
        took(&c, family, true, &format!("padded tiles {call}"));
    }
}

/// The few-rows kernel's float32 form (`gemvp_f32_*`, float32 models): its 16 variants (every
/// form and bias) reached and right against the reference, at the float32 tolerance, with
/// poisoned outputs at the coverage matrix's awkward sizes (rank 3 for some), with the default
/// tunables and with row groups of 3, one stripe per workgroup, K unsplit and two columns per
/// invocation; then a sweep: every row count from 2 to 16 (across the 8-row groups) with every
/// value of the tunables, then 20, 31-33, 48, 63 and 64 (`GEMVP_F32_MAX_ROWS`) at the default
/// tile, K a multiple of 8 but not of 64 (a partial tile, fewer tiles than slices) and a
/// multiple of 64 (no bound check), N not a multiple of 16 or 32, bits 2/4/8, blocks 16-256,
/// every norm form, biases, rank 3; the planner boundaries
/// (`GEMVP_F32_MAX_ROWS` and one past it, one row, K not a multiple of 8, the tunable at 0); and
/// device tensors with prepared copies. Needs no `shader-f16` (f32 throughout), so it runs on
/// any adapter; with cooperative matrices too, with the weights-once tensor-core kernels' float32
/// form closed (`MMA_F32_MAX_ROWS` 0; by default they take 9+ rows, 6+ in blocks of 64+ on a grid
/// neither split nor short, 5+ there for 4- and 8-bit codes in blocks of 128+).
#[test]
fn gemvp_f32_variants() {
    let Some(rt) = testing::runtime() else { return };
    // The weights-once tensor-core kernels take f32 calls of 9+ (or 6+, 5+) rows where the
    // adapter has cooperative matrices (`mmaF32MinRows`, `MMA_F32_MAX_ROWS`): closed here, so
    // this kernel's whole range is tested on every adapter.
    let overrides = |pairs: &[(&str, i64)]| {
        let mut all = pairs.to_vec();
        all.push(("MMA_F32_MAX_ROWS", 0));
        overrides(&all)
    };
    let mut reached = BTreeSet::new();
    for (i, case) in gemvp_f32_matrix().iter().enumerate() {
        let shape = shape_of(case);
        assert_eq!(shape.dtype, DType::F32);
        let call = if i % 4 == 1 {
            Call::rank3(shape, seed(43, i))
        } else {
            Call::rank2(shape, seed(43, i))
        };
        for t in [
            overrides(&[]),
            overrides(&[
                ("GEMVP_ROWS", 3),
                ("GEMVP_COLS", 16),
                ("GEMVP_SLICES", 1),
                ("GEMVP_LANE_COLS", 2),
            ]),
        ] {
            let c = run_checked(&rt, &call, &t, &case.name);
            assert_eq!(c.plan.variant, case.expect, "{} ({call}, {t:?})", case.name);
            assert!(!c.plan.f16_accumulation(), "{}", case.name);
            eprintln!(
                "gemvp_f32_variants: {} ({call}, {t:?}): err {:.3e}",
                case.name, c.y_err
            );
            reached.insert(c.plan.variant.clone());
        }
    }
    assert_eq!(reached.len(), 16, "gemvp_f32 variants reached: {reached:?}");

    // Every row count 2-16 about twice (the cycle), the tiles drawn through every value of their
    // tunables; then a few row counts beyond, to the last (`GEMVP_F32_MAX_ROWS`), once each at
    // the default tile (every count of the range, or row groups of 16 at many rows, would take
    // far longer to compile and run on a software adapter); the other lists drawn around them.
    const RUNS: usize = 28;
    let last = *gemvp_f32_rows().end();
    let few: Vec<usize> = gemvp_f32_rows().filter(|r| *r <= 16).collect();
    let many: Vec<usize> = gemvp_f32_rows()
        .filter(|r| [20, 31, 32, 33, 48, last - 1, last].contains(r))
        .collect();
    assert_eq!(few.len() + many.len(), 22, "{few:?} {many:?}");
    let ks = [8, 72, 104, 200, 256, 520, 1000, 1032];
    let ns = [1, 17, 37, 130, 300];
    let mut rng = Rng(0x9e3f);
    let mut lists = SpecCycles::new(&ks, &ns, &few);
    let mut more = SpecCycles::new(&ks, &ns, &many);
    let mut tiles = TileCycles::new();
    let mut gemvp = 0;
    let mut seen_rows = BTreeSet::new();
    for i in 0..RUNS + many.len() {
        let mut shape = if i < RUNS {
            lists.next(&mut rng, 3)
        } else {
            more.next(&mut rng, 3)
        };
        shape.dtype = DType::F32;
        if i % 6 == 5 {
            // Blocks of 256 (a block spanning four 64-code tiles), beside the cycle's 16-128.
            shape.block_size = 256;
        }
        let (pairs, fits) = if i < RUNS {
            tiles.next(&mut rng, &rt, shape.rows())
        } else {
            (Vec::new(), true)
        };
        let t = overrides(&pairs);
        let call = if i % 5 == 4 {
            Call::rank3(shape, seed(44, i))
        } else {
            Call::rank2(shape, seed(44, i))
        };
        // Every K here is a multiple of 8 and every row count at most `GEMVP_F32_MAX_ROWS`: all
        // fit where the workgroup's memory and size allow (the default tile everywhere).
        let c = run_checked(&rt, &call, &t, &format!("gemvp_f32 #{i} {t:?}"));
        if took(
            &c,
            "gemvp_f32_",
            fits,
            &format!("gemvp_f32 #{i:<3} {call} {t:?}"),
        ) {
            gemvp += 1;
            seen_rows.insert(call.rows());
        }
    }
    assert!(
        gemvp >= RUNS * 2 / 3 + many.len(),
        "only {gemvp} of {} runs took gemvp_f32",
        RUNS + many.len()
    );
    assert!(
        few.iter().filter(|r| seen_rows.contains(*r)).count() >= few.len() - 2
            && many.iter().all(|r| seen_rows.contains(r)),
        "row counts run on gemvp_f32: {seen_rows:?}"
    );

    // The planner's boundaries: the last row count it takes; one past it, one row, K not a
    // multiple of 8 and the tunable at 0 go elsewhere (and are right).
    for (i, (rows, k, t, expected)) in [
        (last, 200, overrides(&[]), true),
        (last + 1, 200, overrides(&[]), false),
        (1, 200, overrides(&[]), false),
        (4, 204, overrides(&[]), false),
        (4, 200, overrides(&[("GEMVP_F32_MAX_ROWS", 0)]), false),
        (4, 200, overrides(&[("GEMVP_MAX_ROWS", 0)]), true),
    ]
    .into_iter()
    .enumerate()
    {
        let mut shape = shape_of(&gemvp_f32_matrix()[0]);
        shape.lead = vec![rows];
        shape.k = k;
        let call = Call::rank2(shape, seed(45, i));
        let c = run_checked(&rt, &call, &t, &format!("boundary {call} {t:?}"));
        took(&c, "gemvp_", expected, &format!("boundary {call} {t:?}"));
    }
    // The one-wave tile (2-8 rows; 6 in two workgroups of 3, 8 in two of 4): the cores set, so that
    // small calls make the odd column and slice counts of large GPUs.
    let mut rng = Rng(0xf32a);
    let mut lists = SpecCycles::new(
        &[8, 136, 448, 960, 1216, 2056],
        &[1, 23, 100, 300, 777],
        &[2, 3, 4, 5, 6, 7, 8],
    );
    let mut cores = Cycle::new(&[1usize, 2, 3, 5, 7, 13]);
    let mut waves = 0;
    for i in 0..21 {
        let mut shape = lists.next(&mut rng, 3);
        shape.dtype = DType::F32;
        let n_cores = cores.next(&mut rng);
        let (rows, n) = (shape.rows(), shape.n);
        let tile = gemvp_f32_wave_tile(rows, shape.k, n, &WaveLimits::of(rt.profile(), n_cores));
        let t = overrides(&[("SHADER_CORES", n_cores as i64)]);
        let call = if i % 4 == 3 {
            Call::rank3(shape, seed(46, i))
        } else {
            Call::rank2(shape, seed(46, i))
        };
        let what = format!("gemvp_f32 wave #{i:<2} {n_cores} cores {tile:?} {call}");
        let c = run_checked(&rt, &call, &t, &what);
        took(&c, "gemvp_f32_", true, &what);
        let main = c.plan.passes.iter().find(|p| p.id == "main").unwrap();
        if let Some((rg, cols, slices)) = tile {
            assert_eq!(
                main.workgroup_size,
                [(cols * slices) as u32, 1, 1],
                "{what}"
            );
            let groups = rows.div_ceil(rg) as u32;
            assert_eq!(
                main.dispatch,
                [groups, n.div_ceil(cols) as u32, 1],
                "{what}"
            );
            waves += 1;
        }
    }
    assert!(waves >= 15, "only {waves} of 21 runs on the one-wave tile");

    prepared_device_tensors_of(&rt, "gemvp_f32_", 5, DType::F32);
}

/// The sweeps' workgroup shapes: rows per group, invocations along the columns, slices and
/// columns per invocation, and the float32 form's fold, each cycled through every value its tunable allows.
struct TileCycles {
    groups: Cycle<i64>,
    cols: Cycle<i64>,
    slices: Cycle<i64>,
    lane_cols: Cycle<i64>,
    fold: Cycle<i64>,
}

impl TileCycles {
    fn new() -> Self {
        TileCycles {
            groups: Cycle::new(&[1, 2, 3, 8, 16]),
            cols: Cycle::new(&[16, 32, 64]),
            slices: Cycle::new(&[1, 2, 4, 8, 16]),
            lane_cols: Cycle::new(&[1, 2, 4]),
            fold: Cycle::new(&[0, 1, 2]),
        }
    }

    /// The next shape as tunables, and whether its workgroup fits `rt`'s adapter for a call of
    /// `rows` rows: the slices' sums in workgroup memory (8 bytes per slice, row of the group and
    /// column) and the invocations per workgroup within the limits.
    fn next(
        &mut self,
        rng: &mut Rng,
        rt: &nbits_mlp_gpu::Runtime,
        rows: usize,
    ) -> (Vec<(&'static str, i64)>, bool) {
        let (g, w, sl, lc) = (
            self.groups.next(rng),
            self.cols.next(rng),
            self.slices.next(rng),
            self.lane_cols.next(rng),
        );
        let group = (g as usize).min(rows) as u64;
        let shared = 8 * (sl * w * lc) as u64 * group;
        let limit = |name| rt.profile().limit(name).unwrap_or(0);
        let fits = shared <= limit("maxComputeWorkgroupStorageSize")
            && (w * sl) as u64 <= limit("maxComputeInvocationsPerWorkgroup")
            && (w * sl) as u64 <= limit("maxComputeWorkgroupSizeX");
        let pairs = vec![
            ("GEMVP_ROWS", g),
            ("GEMVP_COLS", w),
            ("GEMVP_SLICES", sl),
            ("GEMVP_LANE_COLS", lc),
            // The float32 form's scales folded or not (the f16 form reads no such thing).
            ("GEMVP_F32_FOLD", self.fold.next(rng)),
        ];
        (pairs, fits)
    }
}
