//! The tuning module's unit tests: shape classes, the cache file and its location, tuned
//! planning, and the search.

use super::*;
use crate::manifest::Manifest;
use crate::op::OpCall;
use crate::op::{AttrValue, MlpShape};
use crate::plan::Plan;
use crate::planner::Tunables;
use crate::planner::{PlanError, Planner};
use crate::tensor::DType;
use crate::DeviceProfile;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn device() -> DeviceId {
    DeviceId {
        adapter: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
        backend: "Vulkan".into(),
        driver: "llvmpipe".into(),
        driver_info: "Mesa 22.3.6 (LLVM 15.0.6)".into(),
    }
}

fn shape(k: usize, n: usize, rows: usize) -> MlpShape {
    let mut s = MlpShape::new(k, n, rows);
    s.dtype = DType::F16;
    s
}

fn entry(class: ShapeClass, t: &[(&str, i64)]) -> TuningEntry {
    TuningEntry {
        class,
        variant: "plain_nogb_noub".into(),
        tunables: t.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        default_us: 10.0,
        tuned_us: 8.0,
        trials: 3,
        tuned_on: String::new(),
    }
}

#[test]
fn rows_buckets() {
    assert_eq!(RowsBucket::of(0), None);
    assert_eq!(RowsBucket::of(1), Some(RowsBucket::One));
    assert_eq!(RowsBucket::of(2), Some(RowsBucket::Few));
    assert_eq!(RowsBucket::of(16), Some(RowsBucket::Few));
    assert_eq!(RowsBucket::of(17), Some(RowsBucket::Some));
    assert_eq!(RowsBucket::of(128), Some(RowsBucket::Some));
    assert_eq!(RowsBucket::of(129), Some(RowsBucket::Many));
    assert_eq!(
        serde_json::to_string(&RowsBucket::Many).unwrap(),
        "\">128\""
    );
}

#[test]
fn class_of_a_call() {
    let m = Manifest::project();
    let mut s = shape(4096, 14336, 1);
    s.skip = true;
    s.norm = true;
    s.residual = true;
    let c = ShapeClass::of(&s.call(), &m).unwrap();
    assert_eq!(
        c,
        ShapeClass {
            dtype: DType::F16,
            bits: 4,
            block_size: 32,
            k: 4096,
            n: 14336,
            rows: RowsBucket::One,
            skip: true,
            norm: true,
        }
    );
    assert_eq!(
        c.to_string(),
        "float16 q4 b32 K=4096 N=14336 rows 1 skip+norm"
    );
    // Rank 3 counts every leading dimension; residual and biases do not matter.
    let mut r3 = s.clone();
    r3.lead = vec![1, 1];
    r3.residual = false;
    r3.gate_bias = true;
    assert_eq!(ShapeClass::of(&r3.call(), &m), Some(c.clone()));
    // bits left out takes the manifest's default (4).
    let mut call = s.call();
    call.attrs.shift_remove("bits");
    assert_eq!(ShapeClass::of(&call, &m), Some(c));
    // No rows, no A, no K: no class.
    assert_eq!(ShapeClass::of(&shape(64, 64, 0).call(), &m), None);
    assert_eq!(ShapeClass::of(&OpCall::default(), &m), None);
    let mut no_k = shape(64, 64, 1).call();
    no_k.attrs.shift_remove("K");
    assert_eq!(ShapeClass::of(&no_k, &m), None);
    no_k.attrs.insert("K".into(), AttrValue::Str("x".into()));
    assert_eq!(ShapeClass::of(&no_k, &m), None);
}

#[test]
fn lookup_is_exact() {
    let m = Manifest::project();
    let fp = manifest_fingerprint(&m);
    let mut cache = TuningCache::new(device(), fp);
    let c16 = ShapeClass::of(&shape(256, 320, 16).call(), &m).unwrap();
    cache.insert(entry(c16.clone(), &[("ROW_TILE", 4)]));
    let c1 = ShapeClass::of(&shape(256, 320, 1).call(), &m).unwrap();
    cache.insert(entry(c1, &[]));
    // Same bucket (rows 2..16): applies.
    let t = cache.tunables_for(&shape(256, 320, 9).call(), &m).unwrap();
    assert_eq!(t["ROW_TILE"], 4);
    // Other bucket, other K, other dtype: nothing.
    assert!(cache
        .tunables_for(&shape(256, 320, 17).call(), &m)
        .is_none());
    assert!(cache.tunables_for(&shape(512, 320, 9).call(), &m).is_none());
    let mut f32 = shape(256, 320, 9);
    f32.dtype = DType::F32;
    assert!(cache.tunables_for(&f32.call(), &m).is_none());
    let mut norm = shape(256, 320, 9);
    norm.norm = true;
    assert!(cache.tunables_for(&norm.call(), &m).is_none());
    // An entry with no tuned values (defaults were best) applies nothing.
    assert!(cache.lookup(&shape(256, 320, 1).call(), &m).is_some());
    assert!(cache.tunables_for(&shape(256, 320, 1).call(), &m).is_none());
    // insert replaces the entry of the same class.
    cache.insert(entry(c16, &[("ROW_TILE", 2)]));
    assert_eq!(cache.entries.len(), 2);
    let t = cache.tunables_for(&shape(256, 320, 2).call(), &m).unwrap();
    assert_eq!(t["ROW_TILE"], 2);
}

#[test]
fn serde_round_trip_and_files() {
    let m = Manifest::project();
    let mut cache = TuningCache::new(device(), manifest_fingerprint(&m));
    let mut s = shape(4096, 14336, 1);
    s.norm = true;
    s.skip = true;
    cache.insert(entry(
        ShapeClass::of(&s.call(), &m).unwrap(),
        &[("DECODE_WORKGROUP_SIZE", 32), ("NORM_WORKGROUP_SIZE", 256)],
    ));
    let text = cache.to_json();
    assert!(text.contains("\"rows\": \"1\""), "{text}");
    assert!(text.contains("\"dtype\": \"float16\""), "{text}");
    let back = TuningCache::from_json(&text, Path::new("x.json")).unwrap();
    assert_eq!(back.entries, cache.entries);
    assert_eq!(back.source.as_deref(), Some(Path::new("x.json")));

    let d = std::env::temp_dir().join(format!("nbits-mlp-tuning-{}", std::process::id()));
    let path = d.join("sub").join(device().file_name());
    assert!(TuningCache::read(&path).unwrap().is_none());
    cache.write(&path).unwrap();
    let loaded = TuningCache::load(&path, &device(), &manifest_fingerprint(&m))
        .unwrap()
        .unwrap();
    assert_eq!(loaded.entries, cache.entries);
    assert_eq!(loaded.source.as_deref(), Some(path.as_path()));
    // Nothing but the file is left in the directory.
    assert_eq!(
        std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
        1
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn stale_caches_are_refused_with_the_reason() {
    let m = Manifest::project();
    let fp = manifest_fingerprint(&m);
    let mut cache = TuningCache::new(device(), fp.clone());
    cache.source = Some(PathBuf::from("c.json"));
    assert!(cache.check(&device(), &fp).is_ok());
    let mut other = device();
    other.adapter = "NVIDIA H200".into();
    let e = cache.check(&other, &fp).unwrap_err().to_string();
    assert!(
        e.contains("c.json") && e.contains("stale") && e.contains("NVIDIA H200"),
        "{e}"
    );
    let mut newer = device();
    newer.driver_info = "Mesa 24".into();
    assert!(cache.check(&newer, &fp).is_err());
    let e = cache
        .check(&device(), "0123456789abcdef")
        .unwrap_err()
        .to_string();
    assert!(e.contains("manifest") && e.contains("re-run"), "{e}");
    cache.format = 99;
    let e = cache.check(&device(), &fp).unwrap_err().to_string();
    assert!(e.contains("format 99"), "{e}");
}

#[test]
fn fingerprints_follow_the_manifest() {
    let a = manifest_fingerprint(&Manifest::project());
    assert_eq!(a, manifest_fingerprint(&Manifest::project()));
    assert_eq!(a.len(), 16);
    assert_ne!(a, manifest_fingerprint(&Manifest::seed()));
    let mut m = Manifest::project();
    if let Some(v) = m.tunable_values.values_mut().next() {
        v.push(4096);
    }
    assert_ne!(a, manifest_fingerprint(&m));
}

#[test]
fn corrupt_files_are_errors_naming_the_file() {
    let p = Path::new("/tmp/cache.json");
    for (text, want) in [
        ("", "EOF"),
        ("{", "EOF"),
        ("[]", "TuningCache"),
        ("{\"format\": 1}", "missing field"),
        ("\u{0}\u{1}garbage", "expected value"),
        (
            "{\"format\":1,\"device\":{\"adapter\":\"a\",\"backend\":\"b\",\"driver\":\"c\",\"driver_info\":\"d\"},\"manifest\":\"x\",\"entries\":[{\"class\":{\"dtype\":\"float16\",\"bits\":4,\"block_size\":32,\"k\":1,\"n\":1,\"rows\":\"7\",\"skip\":false,\"norm\":false},\"variant\":\"v\",\"tunables\":{},\"default_us\":1,\"tuned_us\":1}]}",
            "entries[0].class.rows",
        ),
        (
            "{\"format\":1,\"device\":{\"adapter\":\"a\",\"backend\":\"b\",\"driver\":\"c\",\"driver_info\":\"d\"},\"manifest\":\"x\",\"entries\":[{\"class\":{\"dtype\":\"float16\",\"bits\":4,\"block_size\":32,\"k\":1,\"n\":1,\"rows\":\"1\",\"skip\":false,\"norm\":false},\"variant\":\"v\",\"tunables\":{\"A\":\"x\"},\"default_us\":1,\"tuned_us\":1}]}",
            "tunables",
        ),
    ] {
        let e = TuningCache::from_json(text, p).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, TuningError::Corrupt { .. }), "{msg}");
        assert!(msg.contains("/tmp/cache.json"), "{msg}");
        assert!(msg.contains(want), "{text:?}: {msg}");
    }
    // A directory where the file should be: an I/O error naming it, no panic.
    let d = std::env::temp_dir();
    let e = TuningCache::read(&d).unwrap_err().to_string();
    assert!(e.contains(&d.display().to_string()), "{e}");
}

#[test]
fn locations() {
    let dev = device();
    let name = dev.file_name();
    assert_eq!(name, "llvmpipe-llvm-15-0-6-256-bits--llvmpipe.json");
    assert_eq!(
        DeviceId {
            adapter: "???".into(),
            driver: String::new(),
            ..dev.clone()
        }
        .file_name(),
        "unknown--unknown.json"
    );
    let f = |t, x, h| cache_path_from(t, x, h, &dev);
    assert_eq!(
        f(None, None, Some("/home/u")),
        Some(PathBuf::from("/home/u/.cache/nbits-mlp").join(&name))
    );
    assert_eq!(
        f(None, Some("/xdg"), Some("/home/u")),
        Some(PathBuf::from("/xdg/nbits-mlp").join(&name))
    );
    // A relative XDG_CACHE_HOME is invalid (XDG spec): HOME is used.
    assert_eq!(
        f(None, Some("rel"), Some("/home/u")),
        Some(PathBuf::from("/home/u/.cache/nbits-mlp").join(&name))
    );
    assert_eq!(f(None, None, None), None);
    assert_eq!(f(Some(" "), None, None), None);
    for off in ["off", "OFF", "0", "none"] {
        assert_eq!(f(Some(off), Some("/xdg"), Some("/h")), None);
    }
    assert_eq!(
        f(Some("/t/my.json"), None, None),
        Some(PathBuf::from("/t/my.json"))
    );
    assert_eq!(
        f(Some("/t/dir"), None, None),
        Some(PathBuf::from("/t/dir").join(&name))
    );
}

fn planner() -> Planner {
    Planner::project(DeviceProfile::discrete_gpu())
}

/// The seed manifest (shipped unchanged) with test candidates: results that do not move
/// when the project overlay gains variants and tunables.
fn seed_planner(values: &str) -> Planner {
    let overlay = format!("{{\"tunableValues\": {values}}}");
    let m = Manifest::with_overlay(
        crate::manifest::SEED_MANIFEST,
        "seed",
        &overlay,
        "test overlay",
    )
    .unwrap();
    Planner::new(
        Arc::new(m),
        Arc::new(crate::render::Templates::builtin()),
        DeviceProfile::discrete_gpu(),
    )
}

/// A fake device: a time from the plan's work alone (what a GPU would see).
fn fake_us(plan: &Plan) -> f64 {
    let mut h = Fnv::default();
    h.write(&PlanSignature::of(plan).0);
    50.0 + (h.0 % 1000) as f64 / 10.0
}

#[test]
fn search_space_is_the_manifests() {
    let m = Manifest::project();
    let space = search_space(&m);
    assert!(!space.is_empty());
    for d in &space {
        assert_eq!(d.values[0], d.default, "{d:?}");
        assert_eq!(m.file.tunables[&d.name].default, d.default);
        for v in &m.tunable_values[&d.name] {
            assert!(d.values.contains(v));
        }
        let mut u = d.values.clone();
        u.sort();
        u.dedup();
        assert_eq!(u.len(), d.values.len());
    }
    // The seed alone has no candidates: nothing to search.
    assert!(search_space(&Manifest::seed()).is_empty());
    let p = seed_planner(r#"{"DECODE_WORKGROUP_SIZE": [32, 64, 32]}"#);
    let space = search_space(p.manifest());
    assert_eq!(space.len(), 1);
    assert_eq!(space[0].values, vec![64, 32]);
}

#[test]
fn candidates_tell_what_changes_the_plan() {
    let p = seed_planner(
        r#"{"DECODE_WORKGROUP_SIZE": [32, 128, 3, 1048576], "NORM_WORKGROUP_SIZE": [256]}"#,
    );
    let space = search_space(p.manifest());
    // Rows 1 (f16, vector blobs), no norm: the norm workgroup does not matter; illegal
    // sizes do not plan.
    let call = shape(4096, 1024, 1).call();
    let r = candidates(&space, &mut |t| p.plan(&call, t).map_err(|e| e.to_string())).unwrap();
    let get = |n: &str, v: i64| r.iter().find(|c| c.name == n && c.value == v).unwrap();
    assert_eq!(get("DECODE_WORKGROUP_SIZE", 64).outcome, Candidate::Default);
    assert_eq!(
        get("DECODE_WORKGROUP_SIZE", 32).outcome,
        Candidate::Distinct {
            variant: "plain_nogb_noub".into()
        }
    );
    assert!(matches!(
        get("DECODE_WORKGROUP_SIZE", 3).outcome,
        Candidate::Illegal(_)
    ));
    assert!(matches!(
        get("DECODE_WORKGROUP_SIZE", 1048576).outcome,
        Candidate::Illegal(_)
    ));
    assert_eq!(get("NORM_WORKGROUP_SIZE", 128).outcome, Candidate::Default);
    assert_eq!(
        get("NORM_WORKGROUP_SIZE", 256).outcome,
        Candidate::SameAsDefault
    );
    // Two values that give the same plan: the second is reported as the first's.
    let p = seed_planner(r#"{"TILE_N": [4, 16]}"#);
    let space = search_space(p.manifest());
    let r = candidates(&space, &mut |t| p.plan(&call, t).map_err(|e| e.to_string())).unwrap();
    assert!(r
        .iter()
        .all(|c| matches!(c.outcome, Candidate::Default | Candidate::SameAsDefault)));
    // A defaults plan that fails is an error.
    let e = candidates(&space, &mut |_| Err("no".into())).unwrap_err();
    assert_eq!(e, "no");
}

#[test]
fn descent_on_the_seed_finds_the_fastest() {
    let p = seed_planner(
        r#"{"DECODE_WORKGROUP_SIZE": [32, 128, 256], "NORM_WORKGROUP_SIZE": [64, 256]}"#,
    );
    let space = search_space(p.manifest());
    let mut s = shape(4096, 1024, 1);
    s.norm = true;
    let call = s.call();
    // Faster with small decode workgroups and large norm workgroups.
    let r = descend(
        &space,
        DescentLimits::default(),
        &mut |t| p.plan(&call, t).map_err(|e| e.to_string()),
        &mut |plan| {
            Ok(100.0 + plan.tunables["DECODE_WORKGROUP_SIZE"] as f64 / 8.0
                - plan.tunables["NORM_WORKGROUP_SIZE"] as f64 / 16.0)
        },
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(
        r.best,
        Tunables::from([
            ("DECODE_WORKGROUP_SIZE".to_string(), 32),
            ("NORM_WORKGROUP_SIZE".to_string(), 256)
        ]),
        "{r:?}"
    );
    assert_eq!(r.best_us, 100.0 + 4.0 - 16.0);
    assert_eq!(r.default_us, 100.0 + 8.0 - 8.0);
    assert_eq!(r.sweeps, 2);
}

#[test]
fn descent_ends_in_a_local_optimum_and_times_each_plan_once() {
    let p = planner();
    let m = Manifest::project();
    let space = search_space(&m);
    for (rows, norm) in [(1, true), (1, false), (9, true), (200, false)] {
        let mut s = shape(4096, 1024, rows);
        s.skip = norm;
        s.norm = norm;
        let call = s.call();
        let mut measured: Vec<PlanSignature> = Vec::new();
        let limits = DescentLimits {
            max_trials: 1000,
            max_sweeps: 100,
        };
        let mut lines = Vec::new();
        let r = descend(
            &space,
            limits,
            &mut |t| p.plan(&call, t).map_err(|e| e.to_string()),
            &mut |plan| {
                measured.push(PlanSignature::of(plan));
                Ok(fake_us(plan))
            },
            &mut |l| lines.push(l.to_string()),
        )
        .unwrap();
        assert!(!r.capped && r.sweeps < limits.max_sweeps);
        assert!(r.best_us <= r.default_us);
        assert!(!lines.is_empty());
        // Each distinct plan timed once.
        let n = measured.len();
        measured.sort_by(|a, b| a.0.cmp(&b.0));
        measured.dedup();
        assert_eq!(measured.len(), n, "rows {rows} norm {norm}");
        assert_eq!(r.trials.len(), n);
        // No single tunable change from the winner is faster.
        for d in &space {
            for &v in &d.values {
                let mut t = r.best.clone();
                t.insert(d.name.clone(), v);
                if let Ok(plan) = p.plan(&call, &t) {
                    assert!(fake_us(&plan) >= r.best_us, "{t:?} beats {r:?}");
                }
            }
        }
        // The winner's overrides hold no default values, and plan as timed.
        for (k, v) in &r.best {
            assert_ne!(m.file.tunables[k].default, *v);
        }
        let best = p.plan(&call, &r.best).unwrap();
        assert_eq!(fake_us(&best), r.best_us);
        assert_eq!(best.variant, r.best_variant);
    }
}

#[test]
fn descent_respects_the_cap_and_skips_failures() {
    let p = planner();
    let call = shape(4096, 1024, 1).call();
    let space = search_space(&Manifest::project());
    let mut n = 0;
    let r = descend(
        &space,
        DescentLimits {
            max_trials: 2,
            max_sweeps: 10,
        },
        &mut |t| p.plan(&call, t).map_err(|e| e.to_string()),
        &mut |_| {
            n += 1;
            if n == 2 {
                Err("device says no".into())
            } else {
                Ok(50.0 - n as f64)
            }
        },
        &mut |_| {},
    )
    .unwrap();
    assert!(r.trials.len() <= 2);
    assert!(r.capped);
    assert_eq!(r.trials[1].us, None);
    assert_eq!(r.best, Tunables::new());
    // The defaults failing to time is an error.
    let e = descend(
        &space,
        DescentLimits::default(),
        &mut |t| p.plan(&call, t).map_err(|e| e.to_string()),
        &mut |_| Err("lost".into()),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(e.contains("defaults") && e.contains("lost"), "{e}");
}

#[test]
fn non_default_tunables_of_a_plan() {
    let p = planner();
    let m = Manifest::project();
    let call = shape(256, 64, 1).call();
    let plan = p.plan(&call, &Tunables::new()).unwrap();
    assert!(non_default_tunables(&plan, &m).is_empty());
    let t = Tunables::from([("DECODE_WORKGROUP_SIZE".to_string(), 32)]);
    let plan: Arc<Plan> = p.plan(&call, &t).unwrap();
    assert_eq!(non_default_tunables(&plan, &m), t);
    assert_eq!(tunables_text(&t), "DECODE_WORKGROUP_SIZE=32");
    assert_eq!(tunables_text(&Tunables::new()), "defaults");
}

#[test]
fn tuned_planning_follows_one_rule() {
    let p = planner();
    let m = p.manifest().clone();
    let call = shape(256, 64, 1).call();
    let tuned = Tunables::from([("DECODE_WORKGROUP_SIZE".to_string(), 32)]);
    let mut cache = TuningCache::new(device(), manifest_fingerprint(&m));
    cache.insert(entry(
        ShapeClass::of(&call, &m).unwrap(),
        &[("DECODE_WORKGROUP_SIZE", 32)],
    ));
    let defaults = p.plan(&call, &Tunables::new()).unwrap();
    assert_ne!(defaults.tunables["DECODE_WORKGROUP_SIZE"], 32);

    // No overrides: the class's tuned values.
    let t = plan_tuned(&p, &call, &Tunables::new(), Some(&cache)).unwrap();
    assert_eq!(t.tuned, tuned);
    assert_eq!(t.plan.tunables["DECODE_WORKGROUP_SIZE"], 32);
    assert!(t.ignored.is_none() && t.warning().is_none());

    // Overrides win, whole: the cache is not consulted.
    let (first, decl) = m.file.tunables.first().unwrap();
    let explicit = Tunables::from([(first.clone(), decl.default)]);
    let t = plan_tuned(&p, &call, &explicit, Some(&cache)).unwrap();
    assert!(t.tuned.is_empty() && t.ignored.is_none());
    assert_eq!(
        t.plan.tunables["DECODE_WORKGROUP_SIZE"],
        defaults.tunables["DECODE_WORKGROUP_SIZE"]
    );
    // Bad overrides are the caller's error, not a fallback.
    let bad = Tunables::from([("NO_SUCH_TUNABLE".to_string(), 1)]);
    assert!(plan_tuned(&p, &call, &bad, Some(&cache)).is_err());

    // No cache, or no entry for the class: the defaults.
    for c in [None, Some(&TuningCache::new(device(), String::new()))] {
        let t = plan_tuned(&p, &call, &Tunables::new(), c).unwrap();
        assert!(t.tuned.is_empty() && t.ignored.is_none());
        assert_eq!(t.plan.tunables, defaults.tunables);
    }

    // Tuned values that do not plan: the defaults, and the values and the error reported.
    cache.insert(entry(
        ShapeClass::of(&call, &m).unwrap(),
        &[("NO_SUCH_TUNABLE", 1)],
    ));
    let t = plan_tuned(&p, &call, &Tunables::new(), Some(&cache)).unwrap();
    assert!(t.tuned.is_empty());
    assert_eq!(t.plan.tunables, defaults.tunables);
    let (values, error) = t.ignored.as_ref().unwrap();
    assert_eq!(values, &bad);
    assert!(matches!(error, PlanError::UnknownTunable { .. }), "{error}");
    let w = t.warning().unwrap();
    assert!(
        w.starts_with(
            "the tuned values NO_SUCH_TUNABLE=1 do not plan for this call (unknown tunable"
        ) && w.ends_with("; using the defaults"),
        "{w}"
    );
}

#[test]
fn a_cache_to_update_replaces_corrupt_and_stale_files() {
    let m = Manifest::project();
    let fp = manifest_fingerprint(&m);
    let d = std::env::temp_dir().join(format!("nbits-mlp-update-{}", std::process::id()));
    let path = d.join("c.json");
    // No file: a new cache, nothing to say.
    let (c, replaced) = TuningCache::for_update(&path, &device(), &fp).unwrap();
    assert!(c.entries.is_empty() && replaced.is_none());
    // A valid file: its entries.
    let mut cache = TuningCache::new(device(), fp.clone());
    cache.insert(entry(
        ShapeClass::of(&shape(256, 64, 1).call(), &m).unwrap(),
        &[("DECODE_WORKGROUP_SIZE", 32)],
    ));
    cache.write(&path).unwrap();
    let (c, replaced) = TuningCache::for_update(&path, &device(), &fp).unwrap();
    assert_eq!(c.entries, cache.entries);
    assert!(replaced.is_none());
    // Another manifest: stale, replaced by an empty cache for this one.
    let (c, replaced) = TuningCache::for_update(&path, &device(), "0000").unwrap();
    assert!(c.entries.is_empty() && c.manifest == "0000");
    assert!(
        matches!(replaced, Some(TuningError::Stale { .. })),
        "{replaced:?}"
    );
    // Not a cache: corrupt, replaced.
    std::fs::write(&path, "{\"format\": 1}").unwrap();
    let (c, replaced) = TuningCache::for_update(&path, &device(), &fp).unwrap();
    assert!(c.entries.is_empty());
    assert!(
        matches!(replaced, Some(TuningError::Corrupt { .. })),
        "{replaced:?}"
    );
    // Unreadable (a directory): an error.
    let e = TuningCache::for_update(&d, &device(), &fp).unwrap_err();
    assert!(matches!(e, TuningError::Io { .. }), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}
