//! Sweeps of shapes and of tunables.

use crate::calls::{overrides, seed, Call, Cycle, Rng, SpecCycles};
use crate::check::run_checked;
use nbits_mlp_core::MlpShape;
use nbits_mlp_core::{DType, Tunables};
use nbits_mlp_gpu::testing;
use std::collections::{BTreeMap, BTreeSet};

// ---- 4. shapes ------------------------------------------------------------------------------

/// Bits, block sizes, K not a multiple of the block (and one that is), N not a multiple of any
/// tile, rows around the row tile, rank 2 and 3, both dtypes, random optional inputs: cycled
/// through so that every value meets several partners of every other list.
#[test]
fn shapes_sweep() {
    let Some(rt) = testing::runtime() else { return };
    const RUNS: usize = 84;
    let mut rng = Rng(0x5eed_5eed);
    // K: 93, 200, 1234 are multiples of none of the block sizes; 256 is of all of them (the
    // vectorised activation path of single rows).
    let mut lists = SpecCycles::new(&[93, 200, 1234, 256], &[37, 9, 1], &[0, 1, 2, 7, 8, 9, 33]);
    let mut rank3 = Cycle::new(&[false, true]);
    // Per list, the values each of its values met in the other lists.
    let mut seen: BTreeMap<(usize, String), BTreeSet<(usize, String)>> = BTreeMap::new();
    let mut variants: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..RUNS {
        // A norm two times in three: more calls reach the staged and fused variants.
        let spec = lists.next(&mut rng, 3);
        let r3 = rank3.next(&mut rng);
        let values = [
            spec.bits.to_string(),
            spec.block_size.to_string(),
            spec.k.to_string(),
            spec.n.to_string(),
            spec.rows().to_string(),
            r3.to_string(),
            spec.dtype.to_string(),
        ];
        for (a, va) in values.iter().enumerate() {
            for (b, vb) in values.iter().enumerate() {
                if a != b {
                    seen.entry((a, va.clone()))
                        .or_default()
                        .insert((b, vb.clone()));
                }
            }
        }
        let call = if r3 {
            Call::rank3(spec, seed(4, i))
        } else {
            Call::rank2(spec, seed(4, i))
        };
        let c = run_checked(&rt, &call, &Tunables::new(), &format!("sweep #{i}"));
        if call.rows() == 0 {
            assert_eq!(c.plan.active_passes().count(), 0, "sweep #{i}: {call}");
        }
        println!("#{i:<3} {call}: {} (err {:.2e})", c.plan.variant, c.y_err);
        *variants.entry(c.plan.variant.clone()).or_default() += 1;
    }
    // Every value came several times, with at least two partners from each other list.
    let lens = [3, 4, 4, 3, 7, 2, 2];
    for ((list, value), partners) in &seen {
        for (other, len) in lens.iter().enumerate() {
            if other == *list {
                continue;
            }
            let met = partners.iter().filter(|(o, _)| *o == other).count();
            assert!(
                met >= 2.min(*len),
                "value {value} of list {list} met only {met} values of list {other}"
            );
        }
    }
    println!("variants: {variants:?}");
}

// ---- 5. tunables ----------------------------------------------------------------------------

/// Workgroup size and columns per workgroup of the `main` pass, and rows per workgroup, as the
/// manifest derives them.
fn expected_main(call: &Call, t: &BTreeMap<&str, i64>) -> ([u32; 3], [u32; 3]) {
    let s = &call.shape;
    let rows = call.rows();
    let (wg, cols, row_groups) = if rows <= 1 {
        let blob = s.blob_size();
        let vec = blob.is_multiple_of(16);
        let kb = s.k.div_ceil(s.block_size);
        let d = t["DECODE_WORKGROUP_SIZE"] as usize;
        let split = vec && kb * blob <= d * 16;
        (
            d * if split { 2 } else { 1 },
            if split { 8 } else { 4 },
            rows,
        )
    } else {
        let tile = t["TILE_N"] as usize;
        let row_tile = rows.min(t["ROW_TILE"] as usize);
        (tile * t["LANES"] as usize, tile, rows.div_ceil(row_tile))
    };
    (
        [wg as u32, 1, 1],
        [s.n.div_ceil(cols) as u32, row_groups as u32, 1],
    )
}

/// Tunable overrides, alone and combined, on multi-row and single-row calls with a norm: results
/// are right and the plan's workgroup sizes and dispatches follow them.
#[test]
fn tunables() {
    let Some(rt) = testing::seed_runtime() else {
        return;
    };
    let defaults: BTreeMap<&str, i64> = [
        ("TILE_N", 8),
        ("LANES", 8),
        ("ROW_TILE", 8),
        ("DECODE_WORKGROUP_SIZE", 64),
        ("NORM_WORKGROUP_SIZE", 128),
    ]
    .into_iter()
    .collect();
    let settings: Vec<Vec<(&str, i64)>> = vec![
        vec![],
        vec![("TILE_N", 4)],
        vec![("TILE_N", 16)],
        vec![("LANES", 4)],
        vec![("LANES", 16)],
        vec![("ROW_TILE", 1)],
        vec![("ROW_TILE", 4)],
        vec![("DECODE_WORKGROUP_SIZE", 32)],
        vec![("DECODE_WORKGROUP_SIZE", 128)],
        vec![("NORM_WORKGROUP_SIZE", 64)],
        vec![("NORM_WORKGROUP_SIZE", 256)],
        vec![("TILE_N", 16), ("LANES", 16), ("ROW_TILE", 4)],
        vec![
            ("TILE_N", 4),
            ("LANES", 4),
            ("ROW_TILE", 1),
            ("DECODE_WORKGROUP_SIZE", 32),
            ("NORM_WORKGROUP_SIZE", 64),
        ],
        vec![
            ("TILE_N", 16),
            ("LANES", 4),
            ("DECODE_WORKGROUP_SIZE", 128),
            ("NORM_WORKGROUP_SIZE", 256),
        ],
    ];
    let norm = MlpShape {
        norm: true,
        ..Default::default()
    };
    let calls = [
        // Multi-row, staged: a norm pass and a row-tiled main pass.
        Call::rank2(
            MlpShape {
                k: 200,
                n: 37,
                lead: vec![9],
                skip: true,
                residual: true,
                gate_bias: true,
                ..norm.clone()
            },
            0,
        ),
        Call::rank3(
            MlpShape {
                k: 93,
                n: 9,
                lead: vec![33],
                dtype: DType::F16,
                bits: 8,
                block_size: 16,
                up_bias: true,
                ..norm.clone()
            },
            0,
        ),
        // Single row, fused (8-byte blobs: the scalar decode walk).
        Call::rank2(
            MlpShape {
                k: 100,
                n: 37,
                block_size: 16,
                skip: true,
                ..norm.clone()
            },
            0,
        ),
        // Single row, staged (16-byte blobs: vectorised decode; K = 1234 has 39 blocks, so the
        // lane split depends on DECODE_WORKGROUP_SIZE).
        Call::rank2(
            MlpShape {
                k: 1234,
                n: 37,
                dtype: DType::F16,
                gate_bias: true,
                up_bias: true,
                ..norm.clone()
            },
            0,
        ),
        Call::rank2(
            MlpShape {
                k: 256,
                n: 9,
                ..norm
            },
            0,
        ),
    ];
    let mut i = 0;
    for setting in &settings {
        let t = overrides(setting);
        let mut values = defaults.clone();
        values.extend(setting.iter().copied());
        for call in &calls {
            let call = Call {
                seed: seed(5, i),
                ..call.clone()
            };
            i += 1;
            let what = format!("tunables {setting:?}");
            let c = run_checked(&rt, &call, &t, &what);
            let at = format!("{what}: {call} (variant {})", c.plan.variant);
            for (name, v) in setting {
                assert_eq!(c.plan.tunables.get(*name), Some(v), "{at}: plan.tunables");
            }
            let main = c
                .plan
                .passes
                .iter()
                .find(|p| p.id == "main")
                .unwrap_or_else(|| panic!("{at}: no main pass"));
            let (wg, dispatch) = expected_main(&call, &values);
            assert_eq!(main.workgroup_size, wg, "{at}: main workgroup size");
            if !c.plan.variant.starts_with("fused_") {
                assert_eq!(main.dispatch, dispatch, "{at}: main dispatch");
            }
            match c.plan.passes.iter().find(|p| p.id == "norm") {
                Some(norm) => {
                    let n = values["NORM_WORKGROUP_SIZE"] as u32;
                    assert_eq!(norm.workgroup_size, [n, 1, 1], "{at}: norm workgroup size");
                }
                None => assert!(c.plan.variant.starts_with("fused_"), "{at}: no norm pass"),
            }
        }
    }
}
