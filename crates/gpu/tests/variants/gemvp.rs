//! The few-rows kernel on prepared weights (`gemvp_*`, overlay family `gemvp`): every variant
//! reached where its `when` rules say, and right, on any adapter with `shader-f16` (lavapipe
//! included: the kernel needs no cooperative matrices nor subgroups).

use crate::calls::{overrides, seed, shape_of, Call, Cycle, Rng, SpecCycles};
use crate::check::{run_checked, took};
use crate::families::prepared_device_tensors;
use nbits_mlp_core::coverage::{gemvp_matrix, gemvp_rows};
use nbits_mlp_core::DType;
use nbits_mlp_gpu::testing;
use std::collections::BTreeSet;

/// The overlay's 16 `gemvp_*` variants (every form and bias) reached and right against the
/// reference with poisoned outputs at the coverage matrix's awkward sizes (rank 3 for some),
/// with the default tunables and with row groups of 3, one stripe per workgroup, K unsplit and
/// two columns per invocation; then a sweep: rows 2-16 around the row groups, K with a partial
/// 64-code tile and block (and fewer tiles than slices), N not a multiple of 16 or 32, bits
/// 2/4/8, blocks 16-128, every norm form, every value of the tunables (rows per group,
/// invocations along the columns, slices, columns per invocation); the planner boundaries
/// (`GEMVP_MAX_ROWS` and one past it, one row, float32 models, K not a multiple of 8); and
/// device tensors whose prepared copies the runtime builds on the GPU and rebuilds after a
/// write. `MMA_MIN_ROWS=17` throughout, so adapters with cooperative matrices (whose kernels
/// take f16 calls from 8 rows by default) run `gemvp` on the same rows as the others. Skipped,
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
            overrides(&[("MMA_MIN_ROWS", 17)]),
            overrides(&[
                ("MMA_MIN_ROWS", 17),
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
    let mut groups = Cycle::new(&[1i64, 2, 3, 8, 16]);
    let mut cols = Cycle::new(&[16i64, 32, 64]);
    let mut slices = Cycle::new(&[1i64, 2, 4, 8, 16]);
    let mut lane_cols = Cycle::new(&[1i64, 2, 4]);
    let mut gemvp = 0;
    for i in 0..RUNS {
        let mut shape = lists.next(&mut rng, 3);
        shape.dtype = DType::F16;
        let (g, w, sl, lc) = (
            groups.next(&mut rng),
            cols.next(&mut rng),
            slices.next(&mut rng),
            lane_cols.next(&mut rng),
        );
        let t = overrides(&[
            ("MMA_MIN_ROWS", 17),
            ("GEMVP_ROWS", g),
            ("GEMVP_COLS", w),
            ("GEMVP_SLICES", sl),
            ("GEMVP_LANE_COLS", lc),
        ]);
        // The slices' sums in workgroup memory: 8 bytes per slice, row of the group and column.
        let group = (g as usize).min(shape.rows()) as u64;
        let shared = 8 * (sl * w * lc) as u64 * group;
        let limit = |name| rt.profile().limit(name).unwrap_or(0);
        let fits = shared <= limit("maxComputeWorkgroupStorageSize")
            && (w * sl) as u64 <= limit("maxComputeInvocationsPerWorkgroup");
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

    // The planner's boundaries: the last row count it takes; one past it, one row, float32
    // models, K not a multiple of 8 go elsewhere (and are right).
    let last = *gemvp_rows().end();
    for (i, (rows, dtype, k, expected)) in [
        (last, DType::F16, 200, true),
        (last + 1, DType::F16, 200, false),
        (1, DType::F16, 200, false),
        (4, DType::F32, 200, false),
        (4, DType::F16, 204, false),
    ]
    .into_iter()
    .enumerate()
    {
        let mut shape = shape_of(&gemvp_matrix()[0]);
        shape.lead = vec![rows];
        shape.dtype = dtype;
        shape.k = k;
        let call = Call::rank2(shape, seed(42, i));
        let t = overrides(&[("MMA_MIN_ROWS", 17)]);
        let c = run_checked(&rt, &call, &t, &format!("boundary {call}"));
        took(&c, "gemvp_", expected, &format!("boundary {call}"));
    }
    prepared_device_tensors(&rt, "gemvp_", 5);
}

/// K a multiple of 64 whose last block is padded past K by a whole 64-code tile or more (K 192
/// in blocks of 128, K 320 and 384 in blocks of 256; K 256 in blocks of 256 has no padding):
/// the tiles past K must meet zero activations (the bound check), not the next row's, nor the
/// padding codes' nonzero value times the block's scale. Every norm form, both biases. Skipped,
/// with a note, without `shader-f16`.
#[test]
fn gemvp_padded_tiles() {
    let Some(rt) = testing::runtime() else { return };
    if rt.profile().has_feature("shader-f16") {
        padded_tiles(&rt, DType::F16, "gemvp_");
    } else {
        eprintln!("gemvp_padded_tiles: f16 skipped: no `shader-f16`");
    }
}

/// [`gemvp_padded_tiles`] for one dtype; `family`: the variant prefix the calls must take.
fn padded_tiles(rt: &nbits_mlp_gpu::Runtime, dtype: DType, family: &str) {
    for (i, (k, block, bits)) in [(192, 128, 4), (320, 256, 2), (384, 256, 8), (256, 256, 4)]
        .into_iter()
        .enumerate()
    {
        let mut shape = shape_of(&gemvp_matrix()[0]);
        shape.dtype = dtype;
        shape.lead = vec![5];
        shape.k = k;
        shape.block_size = block;
        shape.bits = bits;
        (shape.norm, shape.skip, shape.residual) = [
            (false, false, false),
            (true, false, false),
            (true, true, false),
            (true, true, true),
        ][i];
        shape.gate_bias = i % 2 == 0;
        shape.up_bias = i >= 2;
        let call = Call::rank2(shape, seed(46, i));
        let t = overrides(&[("MMA_MIN_ROWS", 17)]);
        let c = run_checked(rt, &call, &t, &format!("padded tiles {call}"));
        took(&c, family, true, &format!("padded tiles {call}"));
    }
}
