//! GPU-free: every variant x dtype x subgroups on/off over a spread of shapes and tunables
//! renders to WGSL that naga accepts, so a template error is caught without a Vulkan driver; and
//! the index proof (`nbits_mlp_core::bounds`) holds for every shader but the seed's gate/up
//! kernel's, so the runtime runs them without wgpu's index clamps.

use nbits_mlp_core::coverage::{
    coop_matrix, gemvp_f32_matrix, gemvp_matrix, mma_matrix, mmal_matrix, mmap_matrix,
    variant_matrix,
};
use nbits_mlp_core::{DType, DeviceProfile, Planner, Tunables};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// Validates `wgsl` and returns whether its indices are proven in range (the runtime then
/// compiles it without wgpu's index clamps).
fn validate(wgsl: &str, what: &str) -> Result<(), nbits_mlp_core::bounds::Unproven> {
    let (module, info) = nbits_mlp_core::render::validate_wgsl_module(wgsl)
        .unwrap_or_else(|e| panic!("{what}: WGSL does not validate:\n{e}\n{wgsl}"));
    nbits_mlp_core::bounds::prove_indices(&module, &info)
}

/// Templates whose shaders the index proof may fail to prove: the seed's gate/up kernel (its
/// halving reductions loop over a shrinking `step`, which the proof does not bound). Every
/// other template's passes must be proven.
const UNPROVEN_ALLOWED: &[&str] = &["mlp-gate-up.wgsl.jinja"];

fn tunables(pairs: &[(&str, i64)]) -> Tunables {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect::<BTreeMap<_, _>>()
}

/// Renders, validates and proves every plan of the sweep for one device profile (`subgroups`:
/// the discrete-gpu profile with or without subgroups): the variants reached, the shaders
/// validated and how many of them were proven.
fn sweep(subgroups: bool) -> (BTreeSet<String>, usize, usize) {
    let mut reached = BTreeSet::new();
    let mut validated = 0;
    let mut proven = 0;
    // Each distinct shader (its text the key, shared with the plan: exact, no copy) and its
    // proof result.
    let mut seen: HashMap<Arc<str>, Result<(), nbits_mlp_core::bounds::Unproven>> = HashMap::new();
    let mut dev = DeviceProfile::discrete_gpu();
    if !subgroups {
        dev = dev.without_feature("subgroups");
    }
    let seed_only = Planner::new(
        std::sync::Arc::new(nbits_mlp_core::Manifest::seed()),
        std::sync::Arc::new(nbits_mlp_core::render::Templates::builtin()),
        dev.clone(),
    );
    for (planner, project) in [(Planner::project(dev), true), (seed_only, false)] {
        for dtype in [DType::F32, DType::F16] {
            // The coop calls with either dtype (float32: the split-f16 form).
            let coop = coop_matrix().into_iter().map(|mut c| {
                c.shape.dtype = dtype;
                c
            });
            // The mma calls (float32: the split-f16 form where MMA_F32_MAX_ROWS opens it,
            // else the others).
            let mma = mma_matrix().into_iter().map(|mut c| {
                c.shape.dtype = dtype;
                c
            });
            // The mmap calls (the mma kernel on prepared weights; float32 as for mma).
            let mmap = mmap_matrix().into_iter().map(|mut c| {
                c.shape.dtype = dtype;
                c
            });
            // The gemvp calls (a few rows on prepared weights; float16, and float32 in the
            // float32 form), both matrices in both dtypes.
            let gemvp = gemvp_matrix()
                .into_iter()
                .chain(gemvp_f32_matrix())
                .map(|mut c| {
                    c.shape.dtype = dtype;
                    c
                });
            // The mmal calls (large tiles; float16 only, off unless MMAL_MIN_ROWS is set).
            let mmal = mmal_matrix().into_iter().map(|mut c| {
                c.shape.dtype = dtype;
                c
            });
            for case in variant_matrix(dtype)
                .into_iter()
                .chain(coop)
                .chain(mma)
                .chain(mmap)
                .chain(mmal)
                .chain(gemvp)
            {
                let variations: Vec<(usize, usize, u32, usize)> = vec![
                    (
                        case.shape.k,
                        case.shape.n,
                        case.shape.bits,
                        case.shape.block_size,
                    ),
                    (case.shape.k, 33, 2, case.shape.block_size * 2),
                    (case.shape.k, 9, 8, case.shape.block_size),
                ];
                for (k, n, bits, block) in variations {
                    let mut s = case.shape.clone();
                    s.k = k;
                    s.n = n;
                    s.bits = bits;
                    s.block_size = block;
                    for t in [
                        tunables(&[]),
                        tunables(&[
                            ("TILE_N", 4),
                            ("LANES", 16),
                            ("ROW_TILE", 4),
                            ("DECODE_WORKGROUP_SIZE", 128),
                            ("NORM_WORKGROUP_SIZE", 256),
                        ]),
                        // The overlay's own tunables (the seed-only planner rejects them).
                        tunables(&[("COOP_WARPS_M", 4), ("COOP_ROW_BLOCKS", 1)]),
                        // Single-row norm forms through the norm pass + gemv.
                        tunables(&[("GEMV_INLINE_NORM", 0)]),
                        // 2-16 rows through the tiled and coop kernels, not the
                        // multi-row gemv or the mma kernel.
                        tunables(&[("GEMV_MAX_ROWS", 1), ("MMA_MAX_ROWS", 1)]),
                        // Split K: the split main passes and the reduce pass.
                        tunables(&[
                            ("TILED_SPLIT_K", 3),
                            ("COOP_SPLIT_K", 3),
                            ("GEMV_MAX_ROWS", 1),
                            ("MMA_MAX_ROWS", 1),
                        ]),
                        // The mma kernel's own: K in slices, row blocks per tile.
                        tunables(&[("MMA_SPLIT_K", 3), ("MMA_ROW_BLOCKS", 1)]),
                        tunables(&[("MMA_ROW_BLOCKS", 2)]),
                        tunables(&[("MMA_FETCH_GROUP", 1)]),
                        // The mma kernel where the prepared-weights or the large-tile one
                        // would take the rows, and the former's K slices.
                        tunables(&[
                            ("MMA_SPLIT_K", 3),
                            ("MMAP_MAX_ROWS", 0),
                            ("MMAL_MIN_ROWS", 0),
                        ]),
                        tunables(&[
                            ("MMA_SPLIT_K", 1),
                            ("MMAP_MAX_ROWS", 0),
                            ("MMAL_MIN_ROWS", 0),
                        ]),
                        tunables(&[("MMAP_SPLIT_K", 1)]),
                        tunables(&[("MMAP_SPLIT_K", 3), ("MMA_FETCH_GROUP", 2)]),
                        // Gate and up in turns (tiles of 2+ row blocks): prepared weights
                        // and the original layout, fetch groups 1, 2 and 4, K in slices,
                        // one or two activation tiles, subgroup or workgroup barriers.
                        tunables(&[("MMA_SEQ_MIN_TILES", 0), ("MMA_ROW_BLOCKS", 2)]),
                        tunables(&[
                            ("MMA_SEQ_MIN_TILES", 0),
                            ("MMA_ROW_BLOCKS", 2),
                            ("MMA_ACT_BUFFERS", 1),
                            ("MMA_SUBGROUP_BARRIER", 0),
                        ]),
                        tunables(&[
                            ("MMA_SEQ_MIN_TILES", 0),
                            ("MMA_ROW_BLOCKS", 3),
                            ("MMA_ACT_BUFFERS", 2),
                            ("MMA_FETCH_GROUP", 2),
                            ("MMAP_MAX_ROWS", 0),
                            ("MMAL_MIN_ROWS", 0),
                        ]),
                        tunables(&[
                            ("MMA_SEQ_MIN_TILES", 0),
                            ("MMA_ROW_BLOCKS", 4),
                            ("MMA_FETCH_GROUP", 4),
                            ("MMAP_SPLIT_K", 3),
                        ]),
                        // Stream-K on prepared weights, forced on grids of 2-8 workgroups:
                        // 16-row tiles, gate and up in turns with fetch group 2, the float32
                        // form.
                        tunables(&[("SHADER_CORES", 1), ("MMAP_STREAM_K", 2)]),
                        tunables(&[
                            ("SHADER_CORES", 2),
                            ("MMA_SK_PER_CORE", 1),
                            ("MMAP_STREAM_K", 2),
                            ("MMA_SEQ_MIN_TILES", 0),
                            ("MMA_ROW_BLOCKS", 2),
                            ("MMA_FETCH_GROUP", 2),
                        ]),
                        tunables(&[
                            ("SHADER_CORES", 4),
                            ("MMAP_STREAM_K", 2),
                            ("MMA_F32_MIN_ROWS", 1),
                            ("MMA_F32_MAX_ROWS", 65535),
                        ]),
                        // The float32 form of the mma template: prepared weights and the
                        // original layout, K whole and in slices, fetch groups.
                        tunables(&[("MMA_F32_MIN_ROWS", 1), ("MMA_F32_MAX_ROWS", 65535)]),
                        tunables(&[
                            ("MMA_F32_MIN_ROWS", 1),
                            ("MMA_F32_MAX_ROWS", 65535),
                            ("MMAP_MAX_ROWS", 0),
                            ("MMA_SPLIT_K", 3),
                        ]),
                        tunables(&[
                            ("MMA_F32_MIN_ROWS", 1),
                            ("MMA_F32_MAX_ROWS", 65535),
                            ("MMAP_SPLIT_K", 3),
                            ("MMA_FETCH_GROUP", 1),
                        ]),
                        // The 16-row tiles on prepared weights where the shader cores are
                        // known: subgroup pairs by matrix (the rule, early fetch for 4-bit
                        // codes) and by K (`MMA_PAIRS=2`, with and without the early fetch);
                        // the early fetch four chunks ahead; ping-pong in turns and in pairs;
                        // the float32 form's activation blocks (`MMA_F32_ACT_BLOCK`), K whole
                        // and in slices.
                        tunables(&[("SHADER_CORES", 132), ("MMA_PAIRS", 1)]),
                        tunables(&[("SHADER_CORES", 132), ("MMA_EARLY_FETCH_CHUNKS", 4)]),
                        tunables(&[
                            ("SHADER_CORES", 132),
                            ("MMA_PAIRS", 0),
                            ("MMA_PING_PONG", 2),
                        ]),
                        tunables(&[("SHADER_CORES", 132), ("MMA_PING_PONG", 2)]),
                        tunables(&[("SHADER_CORES", 132), ("MMA_PAIRS", 2)]),
                        tunables(&[
                            ("SHADER_CORES", 132),
                            ("MMA_PAIRS", 2),
                            ("MMA_EARLY_FETCH", 1),
                            ("MMA_ACT_BLOCK", 6),
                        ]),
                        tunables(&[
                            ("SHADER_CORES", 132),
                            ("MMA_F32_MIN_ROWS", 1),
                            ("MMA_F32_MAX_ROWS", 65535),
                            ("MMA_F32_ACT_BLOCK", 4),
                        ]),
                        tunables(&[
                            ("MMA_F32_MIN_ROWS", 1),
                            ("MMA_F32_MAX_ROWS", 65535),
                            ("MMA_F32_ACT_BLOCK", 2),
                            ("MMAP_SPLIT_K", 3),
                        ]),
                        // The float32 form with gate and up apart (`MMA_F32_SEPARATE`), K whole
                        // and in slices, fetch groups of 1.
                        tunables(&[
                            ("MMA_F32_MAX_ROWS", 65535),
                            ("MMA_SEQ_MIN_TILES", 0),
                            ("MMA_F32_SEPARATE", 2),
                        ]),
                        tunables(&[
                            ("MMA_F32_MAX_ROWS", 65535),
                            ("MMA_SEQ_MIN_TILES", 0),
                            ("MMA_F32_SEPARATE", 2),
                            ("MMAP_SPLIT_K", 3),
                            ("MMA_FETCH_GROUP", 1),
                        ]),
                        // The large-tile kernel (from 2 rows here): its default tiles, K
                        // in slices, and tiles of one to eight subgroups with one or two
                        // weight rows per lane.
                        tunables(&[("MMAL_MIN_ROWS", 2)]),
                        tunables(&[("MMAL_MIN_ROWS", 2), ("MMAL_SPLIT_K", 3)]),
                        tunables(&[
                            ("MMAL_MIN_ROWS", 2),
                            ("MMAL_COL_BLOCKS", 1),
                            ("MMAL_COL_GROUPS", 1),
                            ("MMAL_ROW_GROUPS", 1),
                            ("MMAL_ROW_BLOCKS", 3),
                        ]),
                        tunables(&[
                            ("MMAL_MIN_ROWS", 2),
                            ("MMAL_COL_BLOCKS", 2),
                            ("MMAL_COL_GROUPS", 1),
                            ("MMAL_ROW_GROUPS", 1),
                            ("MMAL_SPLIT_K", 2),
                        ]),
                        tunables(&[
                            ("MMAL_MIN_ROWS", 2),
                            ("MMAL_COL_BLOCKS", 1),
                            ("MMAL_COL_GROUPS", 2),
                            ("MMAL_ROW_GROUPS", 4),
                        ]),
                        // The few-rows kernel on prepared weights: row groups that do not
                        // divide the rows, one stripe or four per workgroup, K whole or in
                        // 16 slices.
                        // (MMA_MIN_ROWS above the rows: the tensor-core kernels, priority
                        // above, would take 9 rows and more.)
                        tunables(&[
                            ("MMA_MIN_ROWS", 17),
                            ("GEMVP_ROWS", 3),
                            ("GEMVP_COLS", 16),
                            ("GEMVP_SLICES", 1),
                            ("GEMVP_LANE_COLS", 2),
                        ]),
                        tunables(&[
                            ("MMA_MIN_ROWS", 17),
                            ("GEMVP_ROWS", 16),
                            ("GEMVP_COLS", 64),
                            ("GEMVP_SLICES", 16),
                            ("GEMVP_LANE_COLS", 4),
                        ]),
                        // Its norm forms in two passes (one pass, `gemvp_fused_*`, by default).
                        tunables(&[("MMA_MIN_ROWS", 17), ("GEMVP_INLINE_NORM", 0)]),
                        // Its one-wave tile (the device's shader cores known): the norm forms
                        // in one pass and the plain forms staged (`gemvp_staged_*`), whole
                        // columns per workgroup or a fifth of them.
                        tunables(&[
                            ("MMA_MIN_ROWS", 17),
                            ("SHADER_CORES", 1),
                            ("GEMVP_STAGE_MIN_COLS", 16),
                        ]),
                        tunables(&[
                            ("MMA_MIN_ROWS", 17),
                            ("SHADER_CORES", 5),
                            ("GEMVP_STAGE_MIN_COLS", 16),
                        ]),
                    ] {
                        if !project
                            && (t.contains_key("COOP_WARPS_M")
                                || t.contains_key("GEMV_INLINE_NORM")
                                || t.contains_key("GEMV_MAX_ROWS")
                                || t.keys()
                                    .any(|k| k.starts_with("MMA") || k.starts_with("GEMVP")))
                        {
                            continue;
                        }
                        // The sets aimed at other kernels keep the few-rows kernel on
                        // prepared weights (priority above theirs) off.
                        let mut t = t;
                        if !t.keys().any(|k| k.starts_with("GEMVP"))
                            && t.keys().any(|k| {
                                k.starts_with("MMA")
                                    || k.starts_with("COOP")
                                    || k == "GEMV_MAX_ROWS"
                            })
                        {
                            t.entry("GEMVP_MAX_ROWS".into()).or_insert(0);
                            t.entry("GEMVP_F32_MAX_ROWS".into()).or_insert(0);
                        }
                        let plan = planner
                            .plan(&s.call(), &t)
                            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
                        reached.insert(plan.variant.clone());
                        for p in &plan.passes {
                            let what = format!("{} {dtype} subgroups={subgroups} {k}x{n} bits {bits} block {block} pass {}", case.name, p.id);
                            // A shader met before (many tunable sets leave a pass's WGSL as it
                            // was) is validated and proven once: its result is the same.
                            let proof = seen
                                .entry(p.wgsl.clone())
                                .or_insert_with(|| validate(&p.wgsl, &what))
                                .clone();
                            validated += 1;
                            if let Err(e) = proof {
                                assert!(
                                    UNPROVEN_ALLOWED.contains(&p.shader.as_str()),
                                    "{what}: indices not proven in range: {e}\n{}",
                                    p.wgsl
                                );
                            } else {
                                proven += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    (reached, validated, proven)
}

#[test]
fn every_variant_renders_valid_wgsl() {
    // The two profiles in two threads: one of the workspace's longest tests (about 2 minutes on
    // two cores in the dev profile, each distinct shader validated once), and the machines it
    // runs on have two cores or more.
    let halves: Vec<(BTreeSet<String>, usize, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = [true, false]
            .into_iter()
            .map(|subgroups| s.spawn(move || sweep(subgroups)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut reached = BTreeSet::new();
    let (mut validated, mut proven) = (0, 0);
    for (r, v, p) in halves {
        reached.extend(r);
        validated += v;
        proven += p;
    }
    let all: BTreeSet<String> = nbits_mlp_core::Manifest::project()
        .variants
        .iter()
        .map(|v| v.decl.id.clone())
        .collect();
    let missing: Vec<_> = all.difference(&reached).collect();
    assert!(missing.is_empty(), "variants never reached: {missing:?}");
    assert!(validated > 1000, "validated only {validated} shaders");
    assert!(
        proven * 10 > validated * 9,
        "proven only {proven} of {validated} shaders"
    );
}
