//! Runs on the GPU whose output needs reading.

use crate::common::{data_set, full_case, gen_case, gpu_available, nbits, read_tensor};
use predicates::prelude::*;
use predicates::str::contains;

#[test]
fn devices_json_parses() {
    if !gpu_available() {
        return;
    }
    let out = nbits().args(["devices", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = &v[0];
    assert!(
        first["name"].is_string() && first["limits"]["maxStorageBuffersPerShaderStage"].is_u64(),
        "{first}"
    );
}

#[test]
fn devices_write_profile_then_plan_with_it() {
    if !gpu_available() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("live.json");
    nbits()
        .args(["devices", "--write-profile"])
        .arg(&p)
        .assert()
        .success();
    nbits()
        .args(["plan", "--shape", "256,64,1", "--norm", "--device"])
        .arg(&p)
        .assert()
        .success()
        .stdout(contains("variant:"));
}

#[test]
fn test_gpu_backend_f32_and_f16() {
    if !gpu_available() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let a = full_case(t.path());
    let b = t.path().join("f16");
    gen_case(
        &b,
        &[
            "--k",
            "100",
            "--n",
            "37",
            "--rows",
            "1",
            "--block-size",
            "16",
            "--dtype",
            "f16",
            "--skip",
            "--norm",
        ],
    );
    let c = t.path().join("plain");
    gen_case(
        &c,
        &[
            "--k",
            "64",
            "--n",
            "24",
            "--rows",
            "2",
            "--bits",
            "2",
            "--block-size",
            "16",
        ],
    );
    nbits()
        .arg("test")
        .args([&a, &b, &c])
        .assert()
        .success()
        .stdout(
            contains("(gpu)")
                .and(contains("variant=fused_skip_nogb_noub"))
                .and(contains("3 passed, 0 failed")),
        );
}

#[test]
fn run_gpu_matches_expected() {
    if !gpu_available() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let case = full_case(t.path());
    let out = t.path().join("out");
    nbits()
        .arg("run")
        .arg(case.join("model.onnx"))
        .arg("--inputs")
        .arg(data_set(&case))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let got = read_tensor(&out.join("output_0.pb"));
    let want = read_tensor(&data_set(&case).join("output_0.pb"));
    assert_eq!(got.shape, want.shape);
    let err = got
        .to_f64()
        .iter()
        .zip(want.to_f64())
        .map(|(a, b)| (a - b).abs())
        .fold(0f64, f64::max);
    assert!(err < 1e-4, "max abs error {err}");
}

/// `plan --compiled` on the live adapter: a `compiled:` section for every plan, with a line per
/// pass naming its register count where the driver reports statistics (NVIDIA), or the note
/// that it reports none (Mesa lavapipe); the same as JSON.
#[test]
fn plan_compiled_shows_what_the_driver_reports() {
    if !gpu_available() {
        return;
    }
    let out = nbits()
        .args([
            "plan",
            "--device",
            "gpu",
            "--shape",
            "256,96,3",
            "--skip",
            "--norm",
            "--compiled",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let section = text
        .split("  compiled:  by the driver of ")
        .nth(1)
        .expect("a compiled section");
    let passes = text.matches("shader ").count();
    assert!(passes >= 1, "{text}");
    if section.contains("reports no compiler statistics") {
        assert!(!section.contains("Register Count"), "{section}");
    } else {
        for i in 0..passes {
            assert!(
                section.contains(&format!("    [{i}] ")),
                "pass {i} missing: {section}"
            );
        }
    }
    let out = nbits()
        .args([
            "plan",
            "--device",
            "gpu",
            "--shape",
            "256,96,3",
            "--compiled",
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v[0]["compiled"];
    assert!(c["adapter"].is_string(), "{c}");
    let planned = v[0]["passes"].as_array().map(|p| p.len()).unwrap_or(0);
    let compiled = c["passes"].as_array().map(|p| p.len()).unwrap_or(0);
    assert!(
        (c["note"].is_string() && compiled == 0) || (c["note"].is_null() && compiled == planned),
        "{c}"
    );
}
