//! The large-tile tensor-core family (`mmal_*`, overlay family `mmal`): every variant reached
//! where its `when` rules say, and right, on adapters with cooperative matrices (the H200);
//! `mmal_emulated` checks the same shader on any adapter.

use crate::calls::{overrides, seed, shape_of, Call, Cycle, Rng, SpecCycles};
use crate::check::{run_checked, tensor_core_runtime, took};
use nbits_mlp_core::{DType, MlpShape};
use std::collections::BTreeSet;

/// The overlay's `mmal_*` variants (the large-tile tensor-core kernel; off by default,
/// from 2 here with `MMAL_MIN_ROWS`): all 32 (16 forms, K whole and in 3 slices) reached and right
/// against the reference with poisoned outputs at the coverage matrix's awkward sizes (rank 3
/// for some), then a sweep: rows around the 16-row blocks and the 64- and 128-row tiles (2 to
/// 257), N not a multiple of 16, 32 or 64, K with a partial chunk and block, bits 2/4/8, blocks
/// 16-128, every tile shape the tunables allow (row and column blocks per subgroup, subgroups
/// along rows and columns: one to eight subgroups, one or two weight rows per lane) and K
/// slices, every norm form; and at the planner boundary (`MMAL_MIN_ROWS=64`: 63 rows take
/// another kernel, 64 this one).
/// Skipped, with a note, on an adapter without cooperative matrices (lavapipe).
#[test]
fn mmal_variants() {
    let Some(rt) = tensor_core_runtime("mmal_variants") else {
        return;
    };
    let mut reached = BTreeSet::new();
    for (i, case) in nbits_mlp_core::coverage::mmal_matrix().iter().enumerate() {
        let shape = shape_of(case);
        let call = if i % 4 == 1 {
            Call::rank3(shape, seed(29, i))
        } else {
            Call::rank2(shape, seed(29, i))
        };
        let runs = [
            (
                overrides(&[("MMAL_MIN_ROWS", 2), ("MMAL_SPLIT_K", 1)]),
                case.expect.clone(),
            ),
            (
                overrides(&[("MMAL_MIN_ROWS", 2), ("MMAL_SPLIT_K", 3)]),
                case.expect.replacen("mmal_", "mmal_split_", 1),
            ),
        ];
        for (t, expect) in runs {
            let c = run_checked(&rt, &call, &t, &case.name);
            assert_eq!(c.plan.variant, expect, "{} ({call}, {t:?})", case.name);
            eprintln!(
                "mmal_variants: {} ({call}): {} err {:.3e}",
                case.name, c.plan.variant, c.y_err
            );
            reached.insert(c.plan.variant.clone());
        }
    }
    assert_eq!(reached.len(), 32, "mmal variants reached: {reached:?}");
    const RUNS: usize = 40;
    let mut rng = Rng(0x3c3c);
    let mut lists = SpecCycles::new(
        &[64, 200, 328, 1000, 4096],
        &[16, 37, 130, 300],
        &[2, 17, 31, 48, 63, 64, 65, 127, 128, 129, 200, 257],
    );
    let mut row_blocks = Cycle::new(&[0i64, 1, 2, 3, 4]);
    let mut col_blocks = Cycle::new(&[0i64, 1, 2]);
    let mut row_groups = Cycle::new(&[0i64, 1, 2, 4]);
    let mut col_groups = Cycle::new(&[0i64, 1, 2, 4]);
    let mut splits = Cycle::new(&[0i64, 1, 2, 5]);
    let mut mmal = 0;
    for i in 0..RUNS {
        let mut spec = lists.next(&mut rng, 3);
        spec.dtype = DType::F16;
        let t = overrides(&[
            ("MMAL_MIN_ROWS", 2),
            ("MMAL_ROW_BLOCKS", row_blocks.next(&mut rng)),
            ("MMAL_COL_BLOCKS", col_blocks.next(&mut rng)),
            ("MMAL_ROW_GROUPS", row_groups.next(&mut rng)),
            ("MMAL_COL_GROUPS", col_groups.next(&mut rng)),
            ("MMAL_SPLIT_K", splits.next(&mut rng)),
        ]);
        // Whether the tile fits, worked out here from the tunables: at most 8 subgroups, the
        // double-buffered tiles and the scratch within the workgroup storage, and a weight row
        // a whole number of 16-byte vectors (every K here is a multiple of 8).
        let pick = |name: &str, auto: usize| match t[name] {
            0 => auto,
            v => v as usize,
        };
        let (cb, wc, wr) = (
            pick("MMAL_COL_BLOCKS", 1),
            pick("MMAL_COL_GROUPS", 4),
            pick("MMAL_ROW_GROUPS", 2),
        );
        let rb = pick("MMAL_ROW_BLOCKS", spec.rows().div_ceil(16 * wr).clamp(1, 4));
        let shared = 160 * (2 * 16 * cb * wc + 16 * rb * wr) + 1024 * wc * wr;
        let storage = rt
            .profile()
            .limit("maxComputeWorkgroupStorageSize")
            .unwrap_or(0) as usize;
        let fits = wc * wr <= 8
            && shared <= storage
            && (spec.k_blocks() * spec.blob_size()).is_multiple_of(16);
        let call = if i % 5 == 4 {
            Call::rank3(spec, seed(30, i))
        } else {
            Call::rank2(spec, seed(30, i))
        };
        let c = run_checked(&rt, &call, &t, &format!("mmal #{i} {t:?}"));
        if took(&c, "mmal_", fits, &format!("mmal #{i:<3} {call} {t:?}")) {
            mmal += 1;
        }
    }
    assert!(mmal >= RUNS / 2, "only {mmal} of {RUNS} runs took mmal");
    // The planner boundary: from MMAL_MIN_ROWS rows on, not below.
    for (rows, is) in [(63, false), (64, true)] {
        let mut spec = MlpShape::new(512, 200, rows);
        spec.dtype = DType::F16;
        let call = Call::rank2(spec, seed(31, rows));
        let t = overrides(&[("MMAL_MIN_ROWS", 64)]);
        let c = run_checked(&rt, &call, &t, &format!("mmal boundary rows {rows}"));
        took(&c, "mmal_", is, &format!("mmal boundary {call}"));
    }
}
