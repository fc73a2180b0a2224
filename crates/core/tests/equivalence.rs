//! Equivalence harness: plans a large, fixed set of calls and hashes every outcome (the plan's
//! JSON, every pass's rendered WGSL, or the error text), so that a refactoring that must not
//! change behaviour (the overlay generated from `manifest/nbits-mlp.overlay.toml`, template
//! headers, ...) is shown to change nothing, byte for byte.
//!
//! The set is self-contained on purpose (it does not use `coverage`, which such refactorings
//! edit). Input forms: plain / norm / skip / skipsum x bias presence (16); shapes: the list
//! below; rows 0-33 and beyond; f32 and f16; the built-in device profiles and one without
//! cooperative matrices; the seed-only and the project planners; eight tunable sets; explained
//! verdicts. Two sizes: `quick` (a regular test, about 1,500 plans) and `full` (about 45,000
//! plans, several minutes in a debug build: an ignored test,
//! `cargo test -p nbits-mlp-core --test equivalence -- --ignored`).
//!
//! The expected hashes are in `tests/golden/plan-set.hash`. When a change is meant to alter
//! plans or shaders, rewrite them with `UPDATE_SNAPSHOTS=1 cargo test -p nbits-mlp-core --test
//! equivalence -- --include-ignored` and say why in the commit.

use nbits_mlp_core::{DType, DeviceProfile, Manifest, MlpShape, Planner, Tunables};
use std::sync::Arc;

/// 64-bit FNV-1a, stable across builds and platforms.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        // A separator, so that ("ab", "c") and ("a", "bc") differ.
        self.0 = (self.0 ^ 0xff).wrapping_mul(0x0100_0000_01b3);
    }
}

/// (K, N, bits, block_size): odd and aligned K, partial blocks, every code width, vector and
/// non-vector blobs, model sizes where split K and the tile choice matter.
const SHAPES: &[(usize, usize, u32, usize)] = &[
    (93, 37, 4, 32),
    (128, 40, 4, 32),
    (256, 40, 4, 32),
    (100, 37, 4, 16),
    (200, 150, 4, 32),
    (96, 130, 2, 64),
    (72, 200, 8, 32),
    (20, 16, 4, 16),
    (4096, 14336, 4, 32),
    (4096, 1024, 2, 32),
    (2048, 8192, 8, 128),
    (896, 4864, 4, 32),
];

/// (skip, norm, residual, gate_bias, up_bias): every input form.
fn all_forms() -> Vec<(bool, bool, bool, bool, bool)> {
    let mut out = Vec::new();
    for (skip, norm, residual) in [
        (false, false, false),
        (false, true, false),
        (true, true, false),
        (true, true, true),
    ] {
        for (gb, ub) in [(false, false), (false, true), (true, false), (true, true)] {
            out.push((skip, norm, residual, gb, ub));
        }
    }
    out
}

/// Four forms that between them take every norm form and every bias input once.
fn some_forms() -> Vec<(bool, bool, bool, bool, bool)> {
    vec![
        (false, false, false, false, false),
        (false, true, false, false, true),
        (true, true, false, true, false),
        (true, true, true, true, true),
    ]
}

/// Rows 0 to 33 (the gemv / tiled / coop boundaries lie there), then larger counts.
fn rows_sweep() -> Vec<usize> {
    let mut r: Vec<usize> = (0..=33).collect();
    r.extend([48, 64, 65, 100, 128, 129, 257, 1000]);
    r
}

/// Every call for `shapes` x `forms` x `rows` x f32/f16.
fn calls(
    shapes: &[(usize, usize, u32, usize)],
    forms: &[(bool, bool, bool, bool, bool)],
    rows: &[usize],
) -> Vec<MlpShape> {
    let mut out = Vec::new();
    for dtype in [DType::F32, DType::F16] {
        for &(k, n, bits, block_size) in shapes {
            for &(skip, norm, residual, gate_bias, up_bias) in forms {
                for &r in rows {
                    out.push(MlpShape {
                        k,
                        n,
                        lead: vec![r],
                        dtype,
                        bits,
                        block_size,
                        skip,
                        norm,
                        residual,
                        gate_bias,
                        up_bias,
                    });
                }
            }
        }
    }
    out
}

fn tunables(pairs: &[(&str, i64)]) -> Tunables {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// Tunable sets other than the defaults (the seed-only planner rejects the overlay's names:
/// that error is hashed too).
fn tunable_sets() -> Vec<Tunables> {
    vec![
        tunables(&[
            ("TILE_N", 4),
            ("LANES", 16),
            ("ROW_TILE", 4),
            ("DECODE_WORKGROUP_SIZE", 128),
            ("NORM_WORKGROUP_SIZE", 256),
        ]),
        tunables(&[("COOP_WARPS_M", 4), ("COOP_ROW_BLOCKS", 1)]),
        tunables(&[("GEMV_INLINE_NORM", 0), ("GEMV_F16_MATH", 0)]),
        tunables(&[("GEMV_MAX_ROWS", 1), ("COOP_F32", 0)]),
        tunables(&[
            ("TILED_SPLIT_K", 3),
            ("COOP_SPLIT_K", 3),
            ("GEMV_MAX_ROWS", 1),
        ]),
        tunables(&[
            ("GEMV_ROWS", 4),
            ("GEMV_COLS", 8),
            ("GEMV_BATCH", 4),
            ("GEMV_WORKGROUP_SIZE", 128),
            ("GEMV_NORM_WORKGROUP_SIZE", 256),
        ]),
        tunables(&[("GEMV_MAX_ROWS", 32), ("GEMV_INLINE_NORM", 1)]),
    ]
}

/// The built-in profiles and one without cooperative matrices.
fn profiles() -> Vec<DeviceProfile> {
    vec![
        DeviceProfile::webgpu_default(),
        DeviceProfile::discrete_gpu(),
        DeviceProfile::builtin("discrete-gpu-8sb").unwrap(),
        DeviceProfile::discrete_gpu().without_feature("coop-f16-16x16x16-f32"),
    ]
}

fn seed_planner(dev: DeviceProfile) -> Planner {
    Planner::new(
        Arc::new(Manifest::seed()),
        Arc::new(nbits_mlp_core::render::Templates::builtin()),
        dev,
    )
}

/// Hashes one planner's outcomes for `calls` under `t` (planned without the cache, so every
/// call renders).
fn hash_into(h: &mut Fnv, planner: &Planner, calls: &[MlpShape], t: &Tunables) -> usize {
    for s in calls {
        match planner.plan_uncached(&s.call(), t) {
            Ok(plan) => {
                h.write(serde_json::to_string(&plan).unwrap().as_bytes());
                for p in &plan.passes {
                    h.write(p.wgsl.as_bytes());
                }
            }
            Err(e) => h.write(format!("error: {e}").as_bytes()),
        }
    }
    calls.len()
}

/// The hash of a set and the number of outcomes hashed.
fn plan_set_hash(full: bool) -> (u64, usize) {
    let mut h = Fnv::new();
    let mut n = 0;
    let project = |dev: &DeviceProfile| Planner::project(dev.clone());
    let discrete = DeviceProfile::discrete_gpu();
    // Rows swept on a few shapes (every form when full).
    let (sweep_shapes, sweep_forms) = if full {
        (&SHAPES[..4], all_forms())
    } else {
        (&SHAPES[..1], some_forms())
    };
    let sweep = calls(sweep_shapes, &sweep_forms, &rows_sweep());
    let sweep_planners: Vec<Planner> = if full {
        vec![
            project(&discrete),
            project(&DeviceProfile::webgpu_default()),
            seed_planner(discrete.clone()),
        ]
    } else {
        vec![project(&discrete)]
    };
    for p in &sweep_planners {
        n += hash_into(&mut h, p, &sweep, &Tunables::new());
    }
    // Shapes and forms at the rows around the boundaries, on every profile.
    let spread = if full {
        calls(SHAPES, &all_forms(), &[1, 2, 16, 17, 33, 129])
    } else {
        calls(&SHAPES[1..4], &all_forms(), &[1, 17])
    };
    for dev in profiles() {
        n += hash_into(&mut h, &project(&dev), &spread, &Tunables::new());
        if full || dev.name == "webgpu-default" {
            n += hash_into(
                &mut h,
                &seed_planner(dev.clone()),
                &spread,
                &Tunables::new(),
            );
        }
    }
    // Tunable sets.
    let tuned = if full {
        calls(SHAPES, &some_forms(), &[1, 2, 9, 16, 17, 21, 33, 65])
    } else {
        calls(&SHAPES[4..6], &some_forms()[..2], &[1, 9, 21])
    };
    for t in tunable_sets() {
        n += hash_into(&mut h, &project(&discrete), &tuned, &t);
        if full {
            n += hash_into(&mut h, &seed_planner(discrete.clone()), &tuned, &t);
        }
    }
    // Explained verdicts (why each rejected variant's term is false).
    let explained = project(&discrete).with_explained_verdicts(true);
    let few = calls(&SHAPES[6..8], &some_forms(), &[1, 17, 33]);
    n += hash_into(&mut h, &explained, &few, &Tunables::new());
    (h.0, n)
}

fn golden() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/plan-set.hash")
}

/// Checks (or, with `UPDATE_SNAPSHOTS` set, rewrites) the golden line that starts with `label`.
fn check(label: &str, full: bool) {
    let (hash, n) = plan_set_hash(full);
    let fingerprint = nbits_mlp_core::tuning::manifest_fingerprint(&Manifest::project());
    let line = format!("{label} {hash:016x} ({n} outcomes; manifest fingerprint {fingerprint})");
    let path = golden();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let old = text.lines().find(|l| l.starts_with(&format!("{label} ")));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| !l.starts_with(&format!("{label} ")))
            .map(str::to_string)
            .collect();
        lines.push(line);
        lines.sort();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        return;
    }
    assert_eq!(
        old,
        Some(line.as_str()),
        "the {label} plan set changed (plans, WGSL or errors). If that is intended, rewrite {} \
         with UPDATE_SNAPSHOTS=1 cargo test -p nbits-mlp-core --test equivalence -- \
         --include-ignored",
        path.display()
    );
}

#[test]
fn quick_plan_set_is_unchanged() {
    check("quick", false);
}

#[test]
#[ignore = "several minutes in a debug build; run with -- --ignored"]
fn full_plan_set_is_unchanged() {
    check("full", true);
}
