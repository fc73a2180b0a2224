//! Runs on the CPU whose output needs reading: JSON, tensors, files.

use crate::common::{data_set, full_case, gen_case, nbits, read_tensor};
use nbits_mlp_core::DType;
use predicates::prelude::*;
use predicates::str::contains;

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
fn gen_case_writes_a_model_and_its_data_set() {
    let t = tempfile::tempdir().unwrap();
    let case = full_case(t.path());
    assert!(case.join("model.onnx").is_file());
    assert!(data_set(&case).join("output_1.pb").is_file());
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

/// `plan --json` (with and without `--explain --context`) and `plan --wgsl`.
#[test]
fn plan_model_json_and_wgsl() {
    let t = tempfile::tempdir().unwrap();
    let case = full_case(t.path());
    let model = case.join("model.onnx");
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
fn plan_shape_json() {
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

/// `plan` says where a plan keeps values in float16 and the bounds on them: a float32 plan that
/// stages its values as float16 pairs (the tensor-core kernels' float32 forms, here `mmap_*` at
/// 64 rows), a float16 plan that stages its weights as float16 (the same kernels' float16 form),
/// one that sums products in float16 (the gemv at one row), a float16 norm form that holds the
/// normalised rows as float16; the float32 ALU kernels (`MMA_F32_MAX_ROWS=0`) and the float32
/// gemv, plain or normalised, carry no such line.
#[test]
fn plan_names_the_float16_pairs_range() {
    let plan_rows = |rows: &str, dtype: &str, extra: &[&str]| {
        let out = nbits()
            .args([
                "plan",
                "--shape",
                &format!("4096,14336,{rows}"),
                "--device",
                "discrete-gpu",
            ])
            .args(["--dtype", dtype])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let plan = |dtype: &str, extra: &[&str]| plan_rows("64", dtype, extra);
    let pairs = plan("f32", &[]);
    assert!(
        pairs.contains("variant:   mmap_") && pairs.contains("activations below 32768"),
        "{pairs}"
    );
    let weights = plan("f16", &[]);
    assert!(
        weights.contains("range:     dequantised weights staged as float16: the scales times 8"),
        "{weights}"
    );
    let sums = plan_rows("1", "f16", &[]);
    assert!(
        sums.contains("variant:   gemv_")
            && sums.contains("range:     float16 sums of up to 16 products")
            && sums.contains("at least 2.44140625e-4"),
        "{sums}"
    );
    let rows = plan("f16", &["--norm"]);
    assert!(
        rows.contains("range:     normalised rows held as float16: sqrt(K) times norm_scale's"),
        "{rows}"
    );
    for text in [
        plan("f32", &["--tunable", "MMA_F32_MAX_ROWS=0"]),
        plan_rows("1", "f32", &[]),
        plan_rows("1", "f16", &["--tunable", "GEMV_F16_MATH=0"]),
        plan_rows("1", "f32", &["--norm"]),
    ] {
        assert!(!text.contains("range:"), "{text}");
    }
}
