//! `tune` and the tuning cache `plan`, `run` and `test` apply.

use crate::common::{data_set, gen_case, gpu_available, nbits};
use predicates::prelude::*;
use predicates::str::contains;

/// `NAME=VALUE` of the first candidate `tune --dry-run` says changes the plan of `shape`.
fn plan_changing_candidate(shape: &str) -> Option<String> {
    let out = nbits()
        .args(["tune", "--dry-run", "--shape", shape])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.contains("changes the plan"))
        .and_then(|l| l.split_whitespace().next())
        .map(str::to_string)
}

#[test]
fn tune_writes_a_cache_that_plan_and_run_apply() {
    if !gpu_available() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let cache = t.path().join("tuned.json");
    let cache_s = cache.display().to_string();
    nbits()
        .args([
            "tune",
            "--shape",
            "256,320,1",
            "--rounds",
            "2",
            "--sets",
            "1",
        ])
        .args(["--max-trials", "6", "--out"])
        .arg(&cache)
        .assert()
        .success()
        .stdout(contains("default us").and(contains(format!("tuning cache: {cache_s}"))));
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    assert_eq!(v["format"], 1);
    assert!(!v["device"]["adapter"].as_str().unwrap().is_empty());
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{v}");
    let e = &entries[0];
    assert_eq!(
        (&e["class"]["k"], &e["class"]["n"], &e["class"]["rows"]),
        (
            &serde_json::json!(256),
            &serde_json::json!(320),
            &serde_json::json!("1")
        )
    );
    assert!(e["default_us"].as_f64().unwrap() > 0.0);
    assert!(e["tuned_us"].as_f64().unwrap() > 0.0);
    let plan_with = |cache: &str, extra: &[&str]| {
        nbits()
            .env("NBITS_MLP_TUNE_CACHE", cache)
            .args(["plan", "--device", "gpu", "--shape", "256,320,1"])
            .args(extra)
            .assert()
            .success()
    };
    // Whatever tune stored is what plan applies.
    let stored: Vec<String> = e["tunables"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if !stored.is_empty() {
        plan_with(&cache_s, &[]).stdout(contains(format!(
            "{} (tuned cache {cache_s})",
            stored.join(" ")
        )));
    }

    // A cache entry with a value that changes the plan (tune's winner depends on timing).
    let pick =
        plan_changing_candidate("256,320,1").unwrap_or_else(|| "DECODE_WORKGROUP_SIZE=32".into());
    let (name, value) = pick.split_once('=').unwrap();
    v["entries"][0]["tunables"] = serde_json::json!({ name: value.parse::<i64>().unwrap() });
    std::fs::write(&cache, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let want = format!("tuned:     {pick} (tuned cache {cache_s})");
    plan_with(&cache_s, &[]).stdout(contains(want.clone()));
    let json = plan_with(&cache_s, &["--json"]);
    let plans: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    assert_eq!(plans[0]["tuned"]["cache"], cache_s.as_str());
    assert_eq!(plans[0]["tunables"][name].to_string(), value);
    // Explicit tunables win; `off` disables the cache; other shapes are another class.
    plan_with(&cache_s, &["--tunable", "TILE_N=8"]).stdout(contains("tuned cache").not());
    plan_with("off", &[]).stdout(contains("tuned cache").not());
    nbits()
        .env("NBITS_MLP_TUNE_CACHE", &cache_s)
        .args(["plan", "--device", "gpu", "--shape", "256,320,2"])
        .assert()
        .success()
        .stdout(contains("tuned cache").not());
    // run applies it too, and still matches the reference.
    let case = t.path().join("case");
    gen_case(&case, &["--k", "256", "--n", "320", "--rows", "1"]);
    let out = t.path().join("out");
    nbits()
        .env("NBITS_MLP_TUNE_CACHE", &cache_s)
        .arg("run")
        .arg(case.join("model.onnx"))
        .arg("--inputs")
        .arg(data_set(&case))
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(contains(format!(
            "node 0: tunables {pick} (tuned cache {cache_s})"
        )));
    nbits()
        .env("NBITS_MLP_TUNE_CACHE", &cache_s)
        .arg("test")
        .arg(&case)
        .assert()
        .success()
        .stdout(contains("PASS"))
        .stderr(contains(format!("tuned cache {cache_s}")));

    // A cache for another manifest is stale, a corrupt one is corrupt: both are ignored with a
    // warning naming the file, and planning goes on with the defaults.
    v["manifest"] = "0000000000000000".into();
    std::fs::write(&cache, serde_json::to_string(&v).unwrap()).unwrap();
    plan_with(&cache_s, &[])
        .stdout(contains("tuned cache").not())
        .stderr(
            contains("warning")
                .and(contains(cache_s.as_str()))
                .and(contains("stale")),
        );
    std::fs::write(&cache, "{ not json").unwrap();
    plan_with(&cache_s, &[])
        .stdout(contains("tuned cache").not())
        .stderr(
            contains("warning")
                .and(contains(cache_s.as_str()))
                .and(contains("not a tuning cache")),
        );
    // tune replaces a corrupt cache (with a warning) instead of failing.
    nbits()
        .args([
            "tune",
            "--shape",
            "256,320,1",
            "--rounds",
            "1",
            "--sets",
            "1",
        ])
        .args(["--max-trials", "2", "--out"])
        .arg(&cache)
        .assert()
        .success()
        .stderr(contains("replacing it"));
    let back: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    assert_eq!(back["entries"].as_array().unwrap().len(), 1);
}

#[test]
fn tune_default_location_follows_xdg_cache_home() {
    if !gpu_available() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    nbits()
        .env_remove("NBITS_MLP_TUNE_CACHE")
        .env("XDG_CACHE_HOME", t.path())
        .args(["tune", "--shape", "64,32,1", "--rounds", "1", "--sets", "1"])
        .args(["--max-trials", "2"])
        .assert()
        .success();
    let dir = t.path().join("nbits-mlp");
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(files.len(), 1, "one file per adapter in {}", dir.display());
    let name = files[0].as_ref().unwrap().file_name();
    assert!(name.to_string_lossy().ends_with(".json"), "{name:?}");
}
