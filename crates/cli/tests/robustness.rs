//! Bad input, as a hostile user would give it, through the binary: every row of a table is one
//! fault; each must exit 2 with a message naming what is at fault, on both backends with the same
//! message, and leave nothing half-written. Plus the checks that must be able to fail (an
//! infinity in an expected output) and the output plumbing (a closed pipe, all-or-nothing
//! output folders).

mod common;

use common::{gen_case, gpu_available, nbits};
use nbits_mlp_core::{AttrValue, Tensor};
use nbits_mlp_onnx::ModelSpec;
use std::path::{Path, PathBuf};

/// A float32 case with every optional input (inputs: A, skip, norm_scale, gate_B, gate_scales,
/// gate_bias, up_B, up_scales, up_bias).
fn case(root: &Path) -> PathBuf {
    let dir = root.join("case");
    gen_case(
        &dir,
        &[
            "--k",
            "64",
            "--n",
            "24",
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

/// Runs `test` on `case` with `backend`: (exit code, the `error:` line of stderr).
fn test_case(case: &Path, backend: &str) -> (i32, String) {
    let out = nbits()
        .args(["test", "--backend", backend])
        .arg(case)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let line = stderr
        .lines()
        .find(|l| l.starts_with("error:"))
        .unwrap_or("")
        .to_string();
    (out.status.code().unwrap_or(-1), line)
}

type Edit = fn(&mut ModelSpec);

#[test]
fn bad_attributes_are_exit_2_with_the_same_message_on_both_backends() {
    let rows: &[(&str, Edit, &str)] = &[
        (
            "block_size 12",
            |s| {
                s.nodes[0]
                    .attrs
                    .insert("block_size".into(), AttrValue::Int(12));
            },
            "attribute `block_size`: must be a power of two",
        ),
        (
            "block_size 0",
            |s| {
                s.nodes[0]
                    .attrs
                    .insert("block_size".into(), AttrValue::Int(0));
            },
            "attribute `block_size`",
        ),
        (
            "N negative",
            |s| {
                s.nodes[0].attrs.insert("N".into(), AttrValue::Int(-24));
            },
            "attribute `N`",
        ),
        (
            "K as a float",
            |s| {
                s.nodes[0].attrs.insert("K".into(), AttrValue::Float(64.0));
            },
            "attribute `K`: expected int, got float",
        ),
        (
            "K as a string",
            |s| {
                s.nodes[0]
                    .attrs
                    .insert("K".into(), AttrValue::Str("64".into()));
            },
            "attribute `K`",
        ),
        (
            "epsilon NaN",
            |s| {
                s.nodes[0]
                    .attrs
                    .insert("epsilon".into(), AttrValue::Float(f64::NAN));
            },
            "attribute `epsilon`",
        ),
        (
            "epsilon negative",
            |s| {
                s.nodes[0]
                    .attrs
                    .insert("epsilon".into(), AttrValue::Float(-1e-5));
            },
            "attribute `epsilon`",
        ),
        (
            "epsilon infinite",
            |s| {
                s.nodes[0]
                    .attrs
                    .insert("epsilon".into(), AttrValue::Float(f64::INFINITY));
            },
            "attribute `epsilon`",
        ),
    ];
    let gpu = gpu_available();
    for (what, edit, want) in rows {
        let t = tempfile::tempdir().unwrap();
        let case = case(t.path());
        let model = case.join("model.onnx");
        let mut spec = nbits_mlp_onnx::load_model(&model).unwrap().to_spec();
        edit(&mut spec);
        nbits_mlp_onnx::write_model(&model, &spec).unwrap();
        let (code, cpu) = test_case(&case, "cpu");
        assert_eq!(code, 2, "{what}: cpu exit ({cpu})");
        assert!(cpu.contains(want), "{what}: cpu said `{cpu}`");
        if gpu {
            let (code, gpu) = test_case(&case, "gpu");
            assert_eq!(code, 2, "{what}: gpu exit ({gpu})");
            assert_eq!(gpu, cpu, "{what}: the backends' messages differ");
        }
    }
}

#[test]
fn inconsistent_inputs_name_the_tensor() {
    for (flags, want) in [
        (
            &["--skip"][..],
            "input 1 `skip`: MatMulNBitsMlp requires norm_scale when skip is present.",
        ),
        (
            &["--residual"][..],
            "output 1 `input_skip_bias_sum`: skip input must be present",
        ),
        (&["--block-size", "48"][..], "attribute `block_size`"),
        (
            &["--tunable", "GEMV_COLS=100000"][..],
            "tunable `GEMV_COLS`: 100000 is not allowed",
        ),
        (
            &["--tunable", "GEMV_NORM_WORKGROUP_SIZE=0"][..],
            "tunable `GEMV_NORM_WORKGROUP_SIZE`",
        ),
        (&["--tunable", "TILE_N=0"][..], "tunable `TILE_N`"),
    ] {
        let out = nbits()
            .args(["plan", "--shape", "64,16,2", "--device", "discrete-gpu"])
            .args(flags)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {stderr}");
        assert!(stderr.contains(want), "{flags:?}: {stderr}");
    }
}

#[test]
fn non_finite_scales_are_refused_by_both_backends_alike() {
    let gpu = gpu_available();
    let t = tempfile::tempdir().unwrap();
    let case = case(t.path());
    let f = case.join("test_data_set_0/input_4.pb");
    let (name, s) = nbits_mlp_onnx::read_tensor_file(&f).unwrap();
    assert_eq!(name, "gate_scales");
    let mut v = s.to_f32();
    v[3] = f32::INFINITY;
    nbits_mlp_onnx::write_tensor_file(&f, &name, &Tensor::from_f32(s.shape.clone(), &v)).unwrap();
    let (code, cpu) = test_case(&case, "cpu");
    assert_eq!(code, 2, "{cpu}");
    assert!(
        cpu.contains("input 4 `gate_scales`: gate_scales[") && cpu.contains("must be finite"),
        "{cpu}"
    );
    if gpu {
        let (code, g) = test_case(&case, "gpu");
        assert_eq!((code, g), (2, cpu));
    }
}

#[test]
fn an_infinity_in_the_expected_output_does_not_make_every_output_pass() {
    let t = tempfile::tempdir().unwrap();
    let case = case(t.path());
    let f = case.join("test_data_set_0/output_0.pb");
    let (name, y) = nbits_mlp_onnx::read_tensor_file(&f).unwrap();
    let mut v = y.to_f32();
    v[0] = f32::INFINITY;
    nbits_mlp_onnx::write_tensor_file(&f, &name, &Tensor::from_f32(y.shape.clone(), &v)).unwrap();
    let out = nbits()
        .args(["test", "--backend", "cpu"])
        .arg(&case)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("FAIL") && !stdout.contains("tol=inf"),
        "{stdout}"
    );
}

#[test]
fn models_without_the_com_microsoft_opset_are_refused() {
    use nbits_mlp_onnx::proto::ModelProto;
    use prost::Message as _;
    let t = tempfile::tempdir().unwrap();
    let case = case(t.path());
    let model = case.join("model.onnx");
    let mut p = ModelProto::decode(std::fs::read(&model).unwrap().as_slice()).unwrap();
    for (version, want) in [
        (None, "no opset_import for `com.microsoft`"),
        (Some(0), "version 0"),
    ] {
        p.opset_import.retain(|o| o.domain != "com.microsoft");
        if let Some(v) = version {
            p.opset_import
                .push(nbits_mlp_onnx::proto::OperatorSetIdProto {
                    domain: "com.microsoft".into(),
                    version: v,
                });
        }
        std::fs::write(&model, p.encode_to_vec()).unwrap();
        let (code, line) = test_case(&case, "cpu");
        assert_eq!(code, 2, "{line}");
        assert!(line.contains(want), "{line}");
    }
}

#[test]
fn run_out_is_all_or_nothing() {
    let t = tempfile::tempdir().unwrap();
    let case = case(t.path());
    let out = t.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("output_0.pb"), b"earlier").unwrap();
    // output_1.pb cannot be written (a folder stands there): nothing may be replaced.
    std::fs::create_dir(out.join("output_1.pb")).unwrap();
    let o = nbits()
        .args(["run", "--backend", "cpu"])
        .arg(case.join("model.onnx"))
        .arg("--inputs")
        .arg(case.join("test_data_set_0"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("output_1.pb"));
    assert_eq!(std::fs::read(out.join("output_0.pb")).unwrap(), b"earlier");
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let t = tempfile::tempdir().unwrap();
    let case = case(t.path());
    let bin = assert_cmd::cargo::cargo_bin!("nbits-mlp");
    let script = format!(
        "NBITS_MLP_TUNE_CACHE=off '{}' test --backend cpu '{}' '{}' '{}' | head -c 1 >/dev/null; echo \"exit=${{PIPESTATUS[0]}}\"",
        bin.display(),
        case.display(),
        case.display(),
        case.display()
    );
    let o = std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stdout.contains("exit=101"), "{stdout} {stderr}");
}

#[test]
fn the_cpu_backend_has_no_gpu_row_limit_and_gen_case_refuses_absurd_sizes() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("big");
    nbits()
        .arg("gen-case")
        .arg(&dir)
        .args(["--k", "32", "--n", "4", "--rows", "70000"])
        .assert()
        .success();
    nbits()
        .args(["test", "--backend", "cpu"])
        .arg(&dir)
        .assert()
        .success();
    for (k, rows, want) in [
        ("2147483648", "1", "GB of memory"),
        ("64", "18446744073709551615", "does not fit in 64 bits"),
    ] {
        let d = t.path().join(format!("absurd{k}"));
        let o = nbits()
            .arg("gen-case")
            .arg(&d)
            .args(["--k", k, "--n", "4", "--rows", rows])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(want), "{stderr}");
        assert!(!d.exists());
    }
}
