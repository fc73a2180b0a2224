//! The seed manifest's variants: every one reached and right, on the full profile, with 8
//! storage buffers and without subgroups.

use crate::calls::{seed, shape_of, Call};
use crate::check::{max_diff, run_checked, same_wgsl, storage_needed};
use crate::common::check::STORAGE_LIMIT;
use nbits_mlp_core::coverage::{variant_matrix, CoverageCase};
use nbits_mlp_core::{DType, Manifest, Tunables};
use nbits_mlp_gpu::testing;
use std::collections::{BTreeMap, BTreeSet};

// ---- 1. every variant -----------------------------------------------------------------------

/// Every case of the coverage matrix, float32 and float16, rank 2 (and rank 3 for every other
/// case), selects its expected variant and matches the reference; together they reach all 27
/// variants of the seed manifest.
#[test]
fn all_variants_reached_and_correct() {
    let Some(rt) = testing::seed_runtime() else {
        return;
    };
    let seed_manifest = Manifest::seed();
    let all: BTreeSet<String> = seed_manifest
        .variants
        .iter()
        .map(|v| v.decl.id.clone())
        .collect();
    assert_eq!(all.len(), 27, "the seed manifest has 27 variants");
    let need = all
        .iter()
        .map(|v| storage_needed(&seed_manifest, v))
        .max()
        .unwrap();
    let have = rt.profile().limit(STORAGE_LIMIT).unwrap();
    assert!(
        have >= need,
        "the device grants {have} storage buffers per stage; reaching every fused variant needs {need}"
    );

    let mut reached: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut i = 0;
    for dtype in [DType::F32, DType::F16] {
        for (j, case) in variant_matrix(dtype).iter().enumerate() {
            let shape = shape_of(case);
            let mut calls = vec![Call::rank2(shape.clone(), seed(1, i))];
            if j % 2 == 1 {
                calls.push(Call::rank3(shape, seed(1, i + 1)));
            }
            for call in calls {
                i += 2;
                let c = run_checked(&rt, &call, &Tunables::new(), &case.name);
                assert_eq!(
                    c.plan.variant, case.expect,
                    "{} ({call}): wrong variant",
                    case.name
                );
                reached
                    .entry(c.plan.variant.clone())
                    .or_default()
                    .push(format!(
                        "{} rank {} ({dtype})",
                        case.name,
                        call.shape.lead.len() + 1
                    ));
            }
        }
    }
    println!("variant                       reached by");
    for (v, cases) in &reached {
        println!("{v:<29} {}", cases.join("; "));
    }
    let missing: Vec<&String> = all.iter().filter(|v| !reached.contains_key(*v)).collect();
    assert!(missing.is_empty(), "variants never reached: {missing:?}");
    let unknown: Vec<&String> = reached.keys().filter(|v| !all.contains(*v)).collect();
    assert!(
        unknown.is_empty(),
        "variants outside the seed manifest reached: {unknown:?}"
    );
}

// ---- 2. 8 storage buffers ------------------------------------------------------------------

/// On a profile with 8 storage buffers per stage, every fused variant that needs more gives way
/// to its staged counterpart; results match the reference and the full profile's.
#[test]
fn eight_storage_buffers() {
    let Some(full) = testing::seed_runtime() else {
        return;
    };
    let Some(eight) = testing::seed_runtime_with(|p| p.with_limit(STORAGE_LIMIT, 8)) else {
        return;
    };
    let eight = eight.expect("a profile with 8 storage buffers is a restriction of the device");
    assert_eq!(eight.profile().limit(STORAGE_LIMIT), Some(8));
    // Both restrictions at once, on the float32 fused cases.
    let both =
        testing::seed_runtime_with(|p| p.with_limit(STORAGE_LIMIT, 8).without_feature("subgroups"))
            .expect("checked above")
            .expect("8 storage buffers without subgroups is a restriction of the device");
    let manifest = Manifest::seed();
    let mut cases: Vec<CoverageCase> = variant_matrix(DType::F32);
    cases.extend(
        variant_matrix(DType::F16)
            .into_iter()
            .filter(|c| c.expect.starts_with("fused_")),
    );
    let (mut gave_way, mut stayed_fused) = (BTreeSet::new(), BTreeSet::new());
    for (i, case) in cases.iter().enumerate() {
        let call = Call::rank2(shape_of(case), seed(2, i));
        let needs = storage_needed(&manifest, &case.expect);
        let expect8 = if needs > 8 {
            case.expect.replacen("fused_", "staged_", 1)
        } else {
            case.expect.clone()
        };
        let what = format!("{} ({})", case.name, call.shape.dtype);
        let a = run_checked(
            &full,
            &call,
            &Tunables::new(),
            &format!("{what}, full profile"),
        );
        let b = run_checked(
            &eight,
            &call,
            &Tunables::new(),
            &format!("{what}, 8 storage buffers"),
        );
        assert_eq!(a.plan.variant, case.expect, "{what}: full profile");
        assert_eq!(
            b.plan.variant, expect8,
            "{what}: 8 storage buffers (needs {needs})"
        );
        if call.shape.dtype == DType::F32 && case.expect.starts_with("fused_") {
            let c = run_checked(
                &both,
                &call,
                &Tunables::new(),
                &format!("{what}, 8 storage buffers, no subgroups"),
            );
            assert_eq!(
                c.plan.variant, expect8,
                "{what}: 8 storage buffers, no subgroups"
            );
            assert!(
                c.plan.passes.iter().all(|p| !p.subgroups),
                "{what}: subgroups"
            );
        }
        if b.plan.variant.starts_with("fused_") {
            stayed_fused.insert(b.plan.variant.clone());
        } else if a.plan.variant.starts_with("fused_") {
            gave_way.insert(a.plan.variant.clone());
        }
        let dy = max_diff(&a.y, &b.y);
        let dr = match (&a.residual, &b.residual) {
            (Some(x), Some(y)) => max_diff(x, y),
            _ => 0.0,
        };
        if same_wgsl(&a.plan, &b.plan) {
            assert_eq!(
                a.y.data, b.y.data,
                "{what}: the same shaders gave different Y"
            );
        }
        if a.plan.variant != b.plan.variant {
            println!(
                "{what}: {} -> {}: max|Y_full - Y_8| = {dy:.3e} (vs reference {:.3e} / {:.3e}), residual {dr:.3e}",
                a.plan.variant, b.plan.variant, a.y_err, b.y_err
            );
        }
    }
    // Both outcomes happened: some fused variants fit 8 buffers, the others gave way.
    let fits: BTreeSet<String> = manifest
        .variants
        .iter()
        .filter(|v| v.decl.id.starts_with("fused_"))
        .filter(|v| storage_needed(&manifest, &v.decl.id) <= 8)
        .map(|v| v.decl.id.clone())
        .collect();
    let fused = manifest
        .variants
        .iter()
        .filter(|v| v.decl.id.starts_with("fused_"))
        .count();
    assert_eq!(stayed_fused, fits);
    assert!(!fits.is_empty() && !gave_way.is_empty());
    assert_eq!(gave_way.len() + fits.len(), fused, "{gave_way:?}");
}

// ---- 3. no subgroups ------------------------------------------------------------------------

/// Without the `subgroups` feature the matrix selects the same variants, no pass is marked for
/// subgroups, and results match the reference.
#[test]
fn subgroups_off() {
    let Some(full) = testing::seed_runtime() else {
        return;
    };
    let Some(rt) = testing::seed_runtime_with(|p| p.without_feature("subgroups")) else {
        return;
    };
    let rt = rt.expect("a profile without subgroups is a restriction of the device");
    assert!(!rt.profile().has_feature("subgroups"));
    let mut cases = variant_matrix(DType::F32);
    cases.extend(variant_matrix(DType::F16).into_iter().step_by(5));
    let mut marked_on_full = 0;
    for (i, case) in cases.iter().enumerate() {
        let call = Call::rank2(shape_of(case), seed(3, i));
        let what = format!("{} ({}), no subgroups", case.name, call.shape.dtype);
        let c = run_checked(&rt, &call, &Tunables::new(), &what);
        assert_eq!(c.plan.variant, case.expect, "{what}");
        assert!(
            c.plan.passes.iter().all(|p| !p.subgroups),
            "{what}: a pass is marked for subgroups"
        );
        // The same call on the full profile does mark passes (when the device has subgroups):
        // the restriction changes something.
        let case_in = call.case();
        let on = full.plan(&case_in.call(), &Tunables::new()).unwrap();
        assert_eq!(on.variant, c.plan.variant, "{what}");
        marked_on_full += on.passes.iter().filter(|p| p.subgroups).count();
    }
    if full.profile().has_feature("subgroups") {
        assert!(marked_on_full > 0, "no pass is ever marked for subgroups");
    }
}
