//! A tuning cache attached to the runtime: tuned values apply to calls planned without
//! overrides, explicit overrides win, values that do not plan fall back to the defaults, and
//! the tuned plan's result matches the float64 reference.

use nbits_mlp_core::tuning::{
    candidates, manifest_fingerprint, search_space, Candidate, ShapeClass, TuningCache, TuningEntry,
};
use nbits_mlp_core::{Manifest, MlpShape, Tunables};
use nbits_mlp_gpu::{testing, RunOptions};
use nbits_mlp_reference::compare::{default_tolerance, max_abs, max_abs_error};
use nbits_mlp_reference::gen::generate;

fn entry(class: ShapeClass, tunables: Tunables) -> TuningEntry {
    TuningEntry {
        class,
        variant: String::new(),
        tunables,
        default_us: 2.0,
        tuned_us: 1.0,
        trials: 2,
        tuned_on: "test".into(),
    }
}

#[test]
fn tuned_values_apply_to_calls_without_overrides() {
    let Some(rt) = testing::runtime() else { return };
    let shape = MlpShape::new(256, 320, 1);
    let case = generate(&shape, 0);
    let want = [true, false];
    let call = case.call();
    let m: Manifest = rt.planner().manifest().clone();
    let default = rt.plan(&call, &Tunables::new()).unwrap();
    // A candidate value that changes this call's plan, whatever the manifest's tunables are.
    let reports = candidates(&search_space(&m), &mut |t| {
        rt.planner().plan(&call, t).map_err(|e| e.to_string())
    })
    .unwrap();
    let Some(pick) = reports
        .iter()
        .find(|c| matches!(c.outcome, Candidate::Distinct { .. }))
    else {
        eprintln!("note: no tunable changes this call's plan; nothing to check");
        return;
    };
    let tuned = Tunables::from([(pick.name.clone(), pick.value)]);
    let class = ShapeClass::of(&call, &m).unwrap();
    let mut cache = TuningCache::new(rt.device_id(), manifest_fingerprint(&m));
    cache.insert(entry(class.clone(), tuned.clone()));
    // Another class whose tuned value is unknown: its calls fall back to the defaults.
    let mut other = class.clone();
    other.n = 64;
    cache.insert(entry(
        other,
        Tunables::from([("NO_SUCH_TUNABLE".into(), 1)]),
    ));
    let rt = rt.with_tuning(cache);
    assert_eq!(rt.tuned_tunables(&call), Some(&tuned));

    let plan = rt.plan(&call, &Tunables::new()).unwrap();
    assert_eq!(plan.tunables[&pick.name], pick.value);
    // Explicit overrides win: the cache is not consulted at all.
    let (first, decl) = m.file.tunables.first().unwrap();
    let explicit = Tunables::from([(first.clone(), decl.default)]);
    let plan_explicit = rt.plan(&call, &explicit).unwrap();
    assert_eq!(
        plan_explicit.tunables[&pick.name],
        default.tunables[&pick.name]
    );
    // The tuned plan is what `run` runs, and it is right.
    let out = rt
        .run(
            &case.attrs,
            &case.input_refs(),
            &want,
            &Tunables::new(),
            &RunOptions { poison: true },
        )
        .unwrap();
    assert_eq!(out.plan.tunables[&pick.name], pick.value);
    let reference = case.run_reference().unwrap();
    let y = out.outputs[0].as_ref().unwrap();
    let err = max_abs_error(&reference.y_f64, y);
    let tol = default_tolerance(shape.dtype, max_abs(&reference.y_f64));
    assert!(err <= tol, "max abs err {err} > {tol}");

    // A call of the class whose tuned value does not plan gets the defaults.
    let call64 = generate(&MlpShape { n: 64, ..shape }, 0).call();
    let plan64 = rt.plan(&call64, &Tunables::new()).unwrap();
    assert!(!plan64.tunables.contains_key("NO_SUCH_TUNABLE"));
    for (k, d) in &m.file.tunables {
        assert_eq!(plan64.tunables[k], d.default);
    }
}
