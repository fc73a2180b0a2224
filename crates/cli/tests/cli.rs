//! End-to-end tests of the `nbits-mlp` binary: every subcommand's happy path and its bad-input
//! paths (exit code 2, a message naming the thing at fault, nothing left behind).
//!
//! GPU tests run on any WebGPU adapter (software Vulkan included); without one they fail, unless
//! `NBITS_MLP_SKIP_GPU=1`, which turns them into skips.

use assert_cmd::cargo::cargo_bin_cmd;
use assert_cmd::Command;
use nbits_mlp_core::{AttrValue, DType, Tensor};
use predicates::prelude::*;
use predicates::str::contains;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The binary, with the tuning cache off (no user cache leaks into the tests; tests of the
/// cache set `NBITS_MLP_TUNE_CACHE` again).
fn nbits() -> Command {
    let mut c = cargo_bin_cmd!("nbits-mlp");
    c.env("NBITS_MLP_TUNE_CACHE", "off");
    c
}

/// Generates a case into `dir` (must succeed).
fn gen_case(dir: &Path, args: &[&str]) {
    nbits()
        .arg("gen-case")
        .arg(dir)
        .args(args)
        .assert()
        .success()
        .stdout(contains("wrote"));
}

/// A small float32 case with every optional input and both outputs.
fn full_case(root: &Path) -> PathBuf {
    let dir = root.join("case");
    gen_case(
        &dir,
        &[
            "--k",
            "93",
            "--n",
            "37",
            "--rows",
            "3",
            "--skip",
            "--norm",
            "--residual",
            "--gate-bias",
            "--up-bias",
        ],
    );
    dir
}

fn data_set(case: &Path) -> PathBuf {
    case.join("test_data_set_0")
}

fn read_tensor(path: &Path) -> Tensor {
    nbits_mlp_onnx::read_tensor_file(path).unwrap().1
}

fn stderr_of(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

/// Whether a GPU adapter exists; panics without one unless `NBITS_MLP_SKIP_GPU=1`.
fn gpu_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    let available = *AVAILABLE.get_or_init(|| {
        let out = nbits().args(["devices", "--json"]).output().unwrap();
        assert!(
            out.status.success(),
            "devices --json failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("devices --json prints JSON");
        !v.as_array().expect("an array").is_empty()
    });
    if !available {
        assert!(
            nbits_mlp_gpu::testing::skip_allowed(),
            "GPU tests need a WebGPU adapter (set NBITS_MLP_SKIP_GPU=1 to skip them)"
        );
        eprintln!("note: skipping a GPU test (NBITS_MLP_SKIP_GPU=1, no adapter)");
    }
    available
}

// ---------------------------------------------------------------------------------------------
// Happy paths

#[test]
fn help_has_examples_for_every_subcommand() {
    for sub in [
        "check", "plan", "run", "test", "gen-case", "devices", "demo", "bench", "tune", "fuse",
    ] {
        nbits()
            .args([sub, "--help"])
            .assert()
            .success()
            .stdout(contains("EXAMPLES:"));
    }
}

#[test]
fn check_project_manifest() {
    nbits().arg("check").assert().success().stdout(
        predicate::str::is_match(format!(
            r"^ok: {} variants, \d+ derive entries\n$",
            nbits_mlp_core::Manifest::project().variants.len()
        ))
        .unwrap(),
    );
}

#[test]
fn gen_case_then_test_cpu_passes() {
    let t = tempfile::tempdir().unwrap();
    let case = full_case(t.path());
    assert!(case.join("model.onnx").is_file());
    assert!(data_set(&case).join("output_1.pb").is_file());
    nbits()
        .args(["test", "--backend", "cpu"])
        .arg(&case)
        .assert()
        .success()
        .stdout(
            contains("PASS")
                .and(contains("variant=reference (cpu)"))
                .and(contains("1 passed, 0 failed")),
        );
}

#[test]
fn gen_case_rank3_f16_bits8() {
    let t = tempfile::tempdir().unwrap();
    let case = t.path().join("c");
    gen_case(
        &case,
        &[
            "--k",
            "64",
            "--n",
            "16",
            "--rows",
            "2",
            "--rank",
            "3",
            "--dtype",
            "f16",
            "--bits",
            "8",
            "--block-size",
            "16",
            "--seed",
            "7",
        ],
    );
    let a = read_tensor(&data_set(&case).join("input_0.pb"));
    assert_eq!((a.dtype, a.shape.clone()), (DType::F16, vec![1, 2, 64]));
    let w = read_tensor(&data_set(&case).join("input_1.pb"));
    assert_eq!(w.shape, vec![16, 4, 16]);
    nbits()
        .args(["test", "--backend", "cpu"])
        .arg(&case)
        .assert()
        .success()
        .stdout(contains("PASS"));
}

#[test]
fn run_cpu_writes_outputs() {
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
        .args(["--backend", "cpu"])
        .assert()
        .success()
        .stdout(contains("wrote 2 outputs"));
    for i in 0..2 {
        let name = format!("output_{i}.pb");
        assert_eq!(
            read_tensor(&out.join(&name)),
            read_tensor(&data_set(&case).join(&name)),
            "{name}"
        );
    }
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        2,
        "only the outputs are left in --out"
    );
}

#[test]
fn plan_model_text_json_explain_wgsl() {
    let t = tempfile::tempdir().unwrap();
    let case = full_case(t.path());
    let model = case.join("model.onnx");
    nbits()
        .arg("plan")
        .arg(&model)
        .args(["--device", "discrete-gpu"])
        .assert()
        .success()
        .stdout(
            contains("variant:   gemvr_skipsum_gb_ub")
                .and(contains("@binding(0) a: read array<f32> <- A (input 0)")),
        );

    let out = nbits()
        .arg("plan")
        .arg(&model)
        .args(["--device", "discrete-gpu", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("plan --json prints JSON");
    assert_eq!(v[0]["node"], "mlp");
    assert_eq!(v[0]["variant"], "gemvr_skipsum_gb_ub");
    assert!(v[0]["passes"][0]["bindings"].is_array());
    assert!(v[0].get("verdicts").is_none() && v[0]["passes"][0].get("context").is_none());

    let out = nbits()
        .arg("plan")
        .arg(&model)
        .args([
            "--device",
            "discrete-gpu",
            "--json",
            "--explain",
            "--context",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // One verdict per variant of the seed and the overlay.
    assert_eq!(
        v[0]["verdicts"].as_array().unwrap().len(),
        nbits_mlp_core::Manifest::project().variants.len()
    );
    assert!(v[0]["passes"][0]["context"].is_object());

    nbits()
        .arg("plan")
        .arg(&model)
        .args(["--device", "discrete-gpu", "--explain"])
        .assert()
        .success()
        .stdout(
            contains("* gemvr_skipsum_gb_ub")
                .and(contains("fused_norm_nogb_noub"))
                .and(contains("rejected by when[")),
        );

    let wgsl = t.path().join("wgsl");
    nbits()
        .arg("plan")
        .arg(&model)
        .args(["--device", "discrete-gpu", "--wgsl"])
        .arg(&wgsl)
        .assert()
        .success();
    let mut files: Vec<String> = std::fs::read_dir(&wgsl)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["mlp_main.wgsl", "mlp_norm.wgsl"]);
    assert!(std::fs::read_to_string(wgsl.join("mlp_main.wgsl"))
        .unwrap()
        .contains("@workgroup_size"));
}

#[test]
fn plan_with_inputs_dir_and_tunable() {
    let t = tempfile::tempdir().unwrap();
    let case = full_case(t.path());
    nbits()
        .arg("plan")
        .arg(case.join("model.onnx"))
        .args([
            "--device",
            "webgpu-default",
            "--tunable",
            "TILE_N=16",
            "--inputs",
        ])
        .arg(data_set(&case))
        .assert()
        .success()
        .stdout(contains("TILE_N=16").and(contains("3 rows")));
}

#[test]
fn plan_symbolic_model_needs_inputs_dir() {
    let t = tempfile::tempdir().unwrap();
    let case = full_case(t.path());
    let model_path = case.join("model.onnx");
    let mut spec = nbits_mlp_onnx::load_model(&model_path).unwrap().to_spec();
    for vi in spec
        .inputs
        .iter_mut()
        .filter(|vi| vi.name == "A" || vi.name == "skip")
    {
        vi.shape = Some(vec![None, Some(93)]);
    }
    nbits_mlp_onnx::write_model(&model_path, &spec).unwrap();
    nbits()
        .arg("plan")
        .arg(&model_path)
        .args(["--device", "discrete-gpu"])
        .assert()
        .code(2)
        .stderr(contains("'A'").and(contains("--inputs")));
    nbits()
        .arg("plan")
        .arg(&model_path)
        .args(["--device", "discrete-gpu", "--inputs"])
        .arg(data_set(&case))
        .assert()
        .success()
        .stdout(contains("3 rows"));
}

#[test]
fn plan_shape() {
    nbits()
        .args([
            "plan",
            "--shape",
            "4096,14336,1",
            "--dtype",
            "f16",
            "--skip",
            "--norm",
            "--residual",
            "--device",
            "discrete-gpu",
        ])
        .assert()
        .success()
        .stdout(
            contains("shape K=4096 N=14336 rows=1")
                .and(contains("float16, 1 row"))
                .and(contains("variant:")),
        );
    let out = nbits()
        .args([
            "plan",
            "--shape",
            "100,37,1",
            "--block-size",
            "16",
            "--norm",
            "--device",
            "discrete-gpu",
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["variant"], "fused_norm_nogb_noub");
}

#[test]
fn plan_device_from_json_file() {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("p.json");
    std::fs::write(&p, r#"{"name":"mine","limits":{"maxStorageBuffersPerShaderStage":10},"features":["shader-f16"]}"#).unwrap();
    nbits()
        .args(["plan", "--shape", "64,32,1", "--device"])
        .arg(&p)
        .assert()
        .success()
        .stdout(contains("device:    mine"));
}

// ---------------------------------------------------------------------------------------------
// GPU

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
    nbits()
        .arg("devices")
        .assert()
        .success()
        .stdout(contains("maxStorageBuffersPerShaderStage"));
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
    nbits()
        .args(["plan", "--shape", "256,64,1", "--device", "gpu"])
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

#[test]
fn demo_small_shape() {
    if !gpu_available() {
        return;
    }
    nbits()
        .args(["demo", "--k", "256", "--n", "64", "--rows", "2"])
        .assert()
        .success()
        .stdout(
            contains("result:    PASS")
                .and(contains("GPU time:"))
                .and(contains("GB/s")),
        )
        .stderr(contains("[7/7] compare"));
}

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

// ---------------------------------------------------------------------------------------------
// Bad input: exit 2, the thing at fault named, nothing written

#[test]
fn tune_bad_arguments() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("c.json");
    for (args, want) in [
        (vec!["tune", "--skip"], "allowed only with --shape"),
        (vec!["tune", "--suite", "nope"], "unknown suite"),
        (vec!["tune", "--shape", "1,2"], "K,N,ROWS"),
        (vec!["tune", "--shape", "64,32,1", "--bits", "3"], "bits"),
    ] {
        nbits()
            .args(&args)
            .arg("--out")
            .arg(&out)
            .assert()
            .code(2)
            .stderr(contains(want));
    }
    assert!(!out.exists());
}

#[test]
fn missing_files() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let a = nbits()
        .args(["run", "nope.onnx", "--inputs", "in", "--out"])
        .arg(&out)
        .args(["--backend", "cpu"])
        .assert()
        .code(2);
    assert!(stderr_of(&a).contains("nope.onnx"), "{}", stderr_of(&a));
    assert!(!out.exists());
    nbits()
        .args(["test", "--backend", "cpu"])
        .arg(t.path().join("no-case"))
        .assert()
        .code(2)
        .stderr(contains("no-case"));
    nbits()
        .args(["plan", "nope.onnx", "--device", "discrete-gpu"])
        .assert()
        .code(2)
        .stderr(contains("nope.onnx"));
    nbits()
        .args(["check", "nope.json"])
        .assert()
        .code(2)
        .stderr(contains("nope.json"));
    // A case whose input file is missing.
    let case = full_case(t.path());
    std::fs::remove_file(data_set(&case).join("input_2.pb")).unwrap();
    nbits()
        .args(["test", "--backend", "cpu"])
        .arg(&case)
        .assert()
        .code(2)
        .stderr(contains("input_2.pb"));
}

#[test]
fn truncated_pb() {
    let t = tempfile::tempdir().unwrap();
    let case = full_case(t.path());
    let f = data_set(&case).join("input_0.pb");
    let bytes = std::fs::read(&f).unwrap();
    std::fs::write(&f, &bytes[..bytes.len() / 2]).unwrap();
    nbits()
        .args(["test", "--backend", "cpu"])
        .arg(&case)
        .assert()
        .code(2)
        .stderr(contains("input_0.pb"));
    let out = t.path().join("out");
    nbits()
        .arg("run")
        .arg(case.join("model.onnx"))
        .arg("--inputs")
        .arg(data_set(&case))
        .arg("--out")
        .arg(&out)
        .args(["--backend", "cpu"])
        .assert()
        .code(2)
        .stderr(contains("input_0.pb"));
    assert!(!out.exists());
}

/// Runs `run --backend cpu` with `input_0.pb` replaced by `a`; asserts exit 2, that stderr
/// names input 'A' and holds `what`, and that nothing was written.
fn run_with_bad_a(a: Tensor, what: &str) {
    let t = tempfile::tempdir().unwrap();
    let case = full_case(t.path());
    nbits_mlp_onnx::write_tensor_file(data_set(&case).join("input_0.pb"), "A", &a).unwrap();
    let out = t.path().join("out");
    let r = nbits()
        .arg("run")
        .arg(case.join("model.onnx"))
        .arg("--inputs")
        .arg(data_set(&case))
        .arg("--out")
        .arg(&out)
        .args(["--backend", "cpu"])
        .assert()
        .code(2);
    let err = stderr_of(&r);
    assert!(err.contains("'A'") && err.contains(what), "{err}");
    assert!(!out.exists());
    // plan --inputs checks the same.
    nbits()
        .arg("plan")
        .arg(case.join("model.onnx"))
        .args(["--device", "discrete-gpu", "--inputs"])
        .arg(data_set(&case))
        .assert()
        .code(2)
        .stderr(contains("'A'"));
}

#[test]
fn wrong_dtype() {
    run_with_bad_a(
        Tensor::from_f32_as_f16(vec![3, 93], &[0.5; 3 * 93]),
        "float16",
    );
}

#[test]
fn shape_mismatch_between_inputs_and_model() {
    run_with_bad_a(Tensor::from_f32(vec![2, 93], &[0.5; 2 * 93]), "shape");
}

#[test]
fn unknown_attribute_in_model() {
    let t = tempfile::tempdir().unwrap();
    let case = full_case(t.path());
    let model_path = case.join("model.onnx");
    let mut spec = nbits_mlp_onnx::load_model(&model_path).unwrap().to_spec();
    spec.nodes[0]
        .attrs
        .insert("colour".into(), AttrValue::Int(3));
    nbits_mlp_onnx::write_model(&model_path, &spec).unwrap();

    nbits()
        .arg("plan")
        .arg(&model_path)
        .args(["--device", "discrete-gpu"])
        .assert()
        .code(2)
        .stderr(contains("colour").and(contains("model.onnx")));
    let out = t.path().join("out");
    nbits()
        .arg("run")
        .arg(&model_path)
        .arg("--inputs")
        .arg(data_set(&case))
        .arg("--out")
        .arg(&out)
        .args(["--backend", "cpu"])
        .assert()
        .code(2)
        .stderr(contains("colour"));
    assert!(!out.exists());
    nbits()
        .args(["test", "--backend", "cpu"])
        .arg(&case)
        .assert()
        .code(2)
        .stderr(contains("colour"));
}

#[test]
fn unknown_tunable() {
    let t = tempfile::tempdir().unwrap();
    let wgsl = t.path().join("wgsl");
    nbits()
        .args([
            "plan",
            "--shape",
            "64,32,1",
            "--device",
            "discrete-gpu",
            "--tunable",
            "TILES=4",
            "--wgsl",
        ])
        .arg(&wgsl)
        .assert()
        .code(2)
        .stderr(contains("TILES").and(contains("TILE_N")));
    assert!(!wgsl.exists());
    nbits()
        .args([
            "plan",
            "--shape",
            "64,32,1",
            "--device",
            "discrete-gpu",
            "--tunable",
            "TILE_N",
        ])
        .assert()
        .code(2)
        .stderr(contains("TILE_N"));
    let case = full_case(t.path());
    let out = t.path().join("out");
    nbits()
        .arg("run")
        .arg(case.join("model.onnx"))
        .arg("--inputs")
        .arg(data_set(&case))
        .arg("--out")
        .arg(&out)
        .args(["--backend", "cpu", "--tunable", "TILES=4"])
        .assert()
        .code(2)
        .stderr(contains("TILES"));
    assert!(!out.exists());
}

#[test]
fn unknown_device_profile() {
    let t = tempfile::tempdir().unwrap();
    let wgsl = t.path().join("wgsl");
    nbits()
        .args([
            "plan", "--shape", "64,32,1", "--device", "rtx-9090", "--wgsl",
        ])
        .arg(&wgsl)
        .assert()
        .code(2)
        .stderr(contains("rtx-9090"));
    assert!(!wgsl.exists());
    // A profile file with an unknown limit.
    let p = t.path().join("bad.json");
    std::fs::write(&p, r#"{"name":"b","limits":{"maxStorageBufers":8}}"#).unwrap();
    nbits()
        .args(["plan", "--shape", "64,32,1", "--device"])
        .arg(&p)
        .assert()
        .code(2)
        .stderr(contains("maxStorageBufers"));
}

#[test]
fn planning_error_lists_variants_and_writes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let wgsl = t.path().join("wgsl");
    // 40 norm rows on WebGPU's default limits with a 1024-thread norm pass: the seed's norm
    // variants need the norm pass to fit the device, the overlay's kernels more workgroup storage
    // or fewer rows, so no variant applies.
    let a = nbits()
        .args([
            "plan",
            "--shape",
            "64,32,40",
            "--norm",
            "--device",
            "webgpu-default",
            "--tunable",
            "NORM_WORKGROUP_SIZE=1024",
            "--wgsl",
        ])
        .arg(&wgsl)
        .assert()
        .code(2);
    let err = stderr_of(&a);
    assert!(
        err.contains("no variant applies")
            && err.contains("staged_norm_nogb_noub")
            && err.contains("normDispatchFits"),
        "{err}"
    );
    assert!(!wgsl.exists());
}

#[test]
fn gen_case_bad_arguments_write_nothing() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("c");
    nbits()
        .arg("gen-case")
        .arg(&dir)
        .args(["--k", "64", "--n", "8", "--rows", "1", "--skip"])
        .assert()
        .code(2)
        .stderr(contains("norm_scale"));
    nbits()
        .arg("gen-case")
        .arg(&dir)
        .args(["--k", "64", "--n", "8", "--rows", "1", "--bits", "3"])
        .assert()
        .code(2)
        .stderr(contains("bits"));
    nbits()
        .arg("gen-case")
        .arg(&dir)
        .args(["--k", "64", "--n", "8", "--rows", "1", "--block-size", "0"])
        .assert()
        .code(2)
        .stderr(contains("block_size"));
    nbits()
        .arg("gen-case")
        .arg(&dir)
        .args(["--k", "64", "--n", "8", "--rows", "1", "--dtype", "uint8"])
        .assert()
        .code(2)
        .stderr(contains("uint8"));
    assert!(!dir.exists());
    assert_eq!(
        std::fs::read_dir(t.path()).unwrap().count(),
        0,
        "no temporary left behind"
    );
}

#[test]
fn check_reports_manifest_problems() {
    let t = tempfile::tempdir().unwrap();
    let seed: serde_json::Value =
        serde_json::from_str(nbits_mlp_core::manifest::SEED_MANIFEST).unwrap();
    // A misspelled key: the JSON path is named.
    let mut typo = seed.clone();
    typo["variants"][0]["pririty"] = 1.into();
    let p = t.path().join("typo.json");
    std::fs::write(&p, serde_json::to_string(&typo).unwrap()).unwrap();
    nbits().arg("check").arg(&p).assert().code(2).stderr(
        contains("typo.json")
            .and(contains("variants[0]"))
            .and(contains("pririty")),
    );
    // A missing template: found by the static check.
    let mut missing = seed.clone();
    missing["variants"][0]["passes"][0]["shader"] = "nope.wgsl.jinja".into();
    let p = t.path().join("missing.json");
    std::fs::write(&p, serde_json::to_string(&missing).unwrap()).unwrap();
    nbits()
        .arg("check")
        .arg(&p)
        .assert()
        .code(2)
        .stderr(contains("missing.json").and(contains("nope.wgsl.jinja")));
    // The seed alone is fine.
    let p = t.path().join("seed.json");
    std::fs::write(&p, nbits_mlp_core::manifest::SEED_MANIFEST).unwrap();
    nbits()
        .arg("check")
        .arg(&p)
        .assert()
        .success()
        .stdout(contains("ok: 27 variants"));
}

#[test]
fn tampered_expected_output_fails() {
    let t = tempfile::tempdir().unwrap();
    let case = full_case(t.path());
    let f = data_set(&case).join("output_0.pb");
    let y = read_tensor(&f);
    let mut v = y.to_f32();
    v[5] += 0.25;
    nbits_mlp_onnx::write_tensor_file(&f, "Y", &Tensor::from_f32(y.shape.clone(), &v)).unwrap();
    nbits()
        .args(["test", "--backend", "cpu"])
        .arg(&case)
        .assert()
        .code(1)
        .stdout(
            contains("FAIL")
                .and(contains("output 'Y'"))
                .and(contains("0 passed, 1 failed")),
        );
    // A loose enough tolerance accepts it.
    nbits()
        .args(["test", "--backend", "cpu", "--atol", "0.3"])
        .arg(&case)
        .assert()
        .success()
        .stdout(contains("PASS"));
}

#[test]
fn usage_errors_exit_2() {
    nbits()
        .arg("plan")
        .arg("--device")
        .arg("discrete-gpu")
        .assert()
        .code(2);
    nbits()
        .args([
            "plan",
            "m.onnx",
            "--shape",
            "1,2,3",
            "--device",
            "discrete-gpu",
        ])
        .assert()
        .code(2);
    nbits()
        .args(["plan", "--shape", "1,2", "--device", "discrete-gpu"])
        .assert()
        .code(2)
        .stderr(contains("K,N,ROWS"));
    nbits()
        .args(["test", "x", "--rtol=-1"])
        .assert()
        .code(2)
        .stderr(contains("rtol"));
    nbits().args(["frobnicate"]).assert().code(2);
    nbits()
        .args(["demo", "--rows", "0"])
        .assert()
        .code(2)
        .stderr(contains("--rows"));
    nbits()
        .args([
            "plan",
            "--shape",
            "64,32,1",
            "--device",
            "discrete-gpu",
            "--adapter",
            "x",
        ])
        .assert()
        .code(2)
        .stderr(contains("--adapter"));
    let t = tempfile::tempdir().unwrap();
    let case = full_case(t.path());
    nbits()
        .arg("plan")
        .arg(case.join("model.onnx"))
        .args(["--device", "discrete-gpu", "--skip"])
        .assert()
        .code(2)
        .stderr(contains("--skip"));
}

#[test]
fn bench_filters_that_select_nothing_are_errors_and_write_nothing() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    nbits()
        .args([
            "bench",
            "--suite",
            "full",
            "--model",
            "no-such-model",
            "--out",
        ])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(contains("no shape").and(contains("no-such-model")));
    nbits()
        .args(["bench", "--suite", "decode", "--rows", "7", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(contains("no shape").and(contains("[7]")));
    assert!(!out.exists(), "nothing written");
}

#[test]
fn bench_table_prints_a_report_beside_the_peers_lines_and_names_a_bad_peer_file() {
    let report =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../notes/runs/2026-11-30-s6-full/full.json");
    let t = tempfile::tempdir().unwrap();
    let peers = t.path().join("ort.jsonl");
    std::fs::write(
        &peers,
        "warming up\n{\"peer\": \"ort-webgpu-ep\", \"m\": 1, \"k\": 4096, \"n\": 14336, \"bs\": 32, \"dtype\": \"f16\", \"norm\": \"none\", \"per_node_us\": 700.0}\n",
    )
    .unwrap();
    let out = nbits()
        .args(["bench", "--table"])
        .arg(&report)
        .arg("--peers")
        .arg(&peers)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("| model (K x N) | rows |") && lines[0].ends_with("| ratio |"));
    // Every shape of the report is a row; exactly the Llama-3.1-8B f16 plain 4-bit row at one
    // row has the peer's line.
    let rows: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("| ") && l.contains('`'))
        .collect();
    assert_eq!(rows.len(), 116);
    let with_peer: Vec<&&&str> = rows.iter().filter(|l| l.contains("µs [1]")).collect();
    assert_eq!(with_peer.len(), 1, "{with_peer:?}");
    assert!(with_peer[0].contains("Llama-3.1-8B (4096 x 14336) | 1 | f16 | 4 | plain"));
    assert!(text.contains("ort.jsonl"));
    // A line that is not a peer result: an error naming the file and line.
    std::fs::write(&peers, "{\"peer\": 1}\n").unwrap();
    nbits()
        .args(["bench", "--table"])
        .arg(&report)
        .arg("--peers")
        .arg(&peers)
        .assert()
        .code(2)
        .stderr(contains("ort.jsonl, line 1"));
    // --peers needs --table.
    nbits()
        .args(["bench", "--peers"])
        .arg(&peers)
        .assert()
        .code(2)
        .stderr(contains("--table"));
}

#[test]
fn bench_runs_a_suite_at_other_rows_and_its_report_makes_a_table() {
    if !gpu_available() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let run = nbits()
        .args([
            "bench",
            "--suite",
            "smoke",
            "--at-rows",
            "2",
            "--layers",
            "2",
            "--rounds",
            "2",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success()
        .stdout(contains("small r2 f16 q4 norm"))
        .get_output()
        .clone();
    let json = out.join("bench.json");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let ms = report["measurements"].as_array().unwrap();
    // The smoke suite's one shape (rows 1 and 16) once, at 2 rows: the multi-row gemv.
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0]["shape"]["rows"], 2);
    assert!(
        ms[0]["variant"].as_str().unwrap().starts_with("gemvr_"),
        "{}",
        ms[0]["variant"]
    );
    assert!(ms[0]["max_abs_err"].as_f64().unwrap() <= ms[0]["tolerance"].as_f64().unwrap());
    assert!(ms[0]["wall_per_node_us"].as_f64().unwrap() > 0.0);
    // The plot's font is compiled in: both pictures come out without system fonts.
    assert!(
        out.join("bench.svg").exists() && out.join("bench.png").exists(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    nbits()
        .args(["bench", "--table"])
        .arg(&json)
        .assert()
        .success()
        .stdout(contains(
            "| small (512 x 1024) | 2 | f16 | 4 | skip+norm | `gemvr_",
        ));
}

#[test]
fn bench_plot_rows_and_results_read_the_committed_reports() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let report = root.join("notes/runs/2026-11-30-s6-full/full.json");
    let t = tempfile::tempdir().unwrap();
    let torch = t.path().join("torch.jsonl");
    std::fs::write(
        &torch,
        "{\"peer\": \"torch-int4-tinygemm+silu\", \"m\": 1, \"k\": 4096, \"n\": 14336, \"us\": 48.9, \"GBps\": 1.0}\n{\"peer\": \"torch-int4-tinygemm+silu\", \"m\": 128, \"k\": 4096, \"n\": 14336, \"us\": 1064.9, \"GBps\": 1.0}\n{\"peer\": \"d2d-copy\", \"GBps_read_plus_write\": 4246.0}\n",
    )
    .unwrap();
    let svg = t.path().join("rows.svg");
    nbits()
        .args(["bench", "--plot-rows"])
        .arg(&report)
        .args(["--model", "llama-3.1-8b", "--dtype", "f16", "--bits", "4"])
        .arg("--peers")
        .arg(&torch)
        .arg("--peers")
        .arg(root.join("notes/runs/2026-11-30-s6-full/ort.jsonl"))
        .arg("--out")
        .arg(&svg)
        .assert()
        .success()
        .stderr(contains("rows.svg (6 curves)"));
    let text = std::fs::read_to_string(&svg).unwrap();
    for name in [
        "nbits-mlp skip+norm f16: GPU time",
        "nbits-mlp plain f16: wall per node",
        "torch-int4-tinygemm+silu: GPU time",
        "ort-webgpu-ep plain f16: wall per node",
    ] {
        assert!(text.contains(name), "{name} not in the SVG");
    }
    // Seven models in the report: the rows plot asks for one.
    nbits()
        .args(["bench", "--plot-rows"])
        .arg(&report)
        .args(["--dtype", "f16", "--out"])
        .arg(t.path().join("x.svg"))
        .assert()
        .code(2)
        .stderr(contains("--model").and(contains("full.json")));
    // Only .svg and .png.
    nbits()
        .args(["bench", "--plot-rows"])
        .arg(&report)
        .args(["--model", "llama-3.1-8b", "--out"])
        .arg(t.path().join("x.pdf"))
        .assert()
        .code(2)
        .stderr(contains(".svg or .png"));
    // The results document of the committed runs is the committed one.
    let doc = nbits()
        .current_dir(&root)
        .args(["bench", "--results", "notes/runs"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let committed = std::fs::read_to_string(root.join("docs/RESULTS.md")).unwrap();
    assert!(
        String::from_utf8(doc).unwrap() == committed,
        "docs/RESULTS.md is stale: nbits-mlp bench --results notes/runs --out docs/RESULTS.md"
    );
}
