//! Helpers shared by the binary's test files (`cli.rs`, `robustness.rs`): the binary itself,
//! generated cases, whether a GPU is there, and the table runner of `cli.rs`.
// Each test file uses a different subset of these helpers.
#![allow(dead_code)]

pub mod table;

use assert_cmd::cargo::cargo_bin_cmd;
use assert_cmd::Command;
use nbits_mlp_core::Tensor;
use predicates::str::contains;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The binary, with the tuning cache off (no user cache leaks into the tests; tests of the
/// cache set `NBITS_MLP_TUNE_CACHE` again).
pub fn nbits() -> Command {
    let mut c = cargo_bin_cmd!("nbits-mlp");
    c.env("NBITS_MLP_TUNE_CACHE", "off");
    c
}

/// Generates a case into `dir` (must succeed).
pub fn gen_case(dir: &Path, args: &[&str]) {
    nbits()
        .arg("gen-case")
        .arg(dir)
        .args(args)
        .assert()
        .success()
        .stdout(contains("wrote"));
}

/// The flags of [`full_case`]: a small float32 case with every optional input and both outputs.
pub const FULL_CASE: &[&str] = &[
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
];

/// A small float32 case with every optional input and both outputs, in `root/case`.
pub fn full_case(root: &Path) -> PathBuf {
    let dir = root.join("case");
    gen_case(&dir, FULL_CASE);
    dir
}

/// The case's one data set.
pub fn data_set(case: &Path) -> PathBuf {
    case.join("test_data_set_0")
}

/// The tensor stored in a `.pb` file.
pub fn read_tensor(path: &Path) -> Tensor {
    nbits_mlp_onnx::read_tensor_file(path).unwrap().1
}

/// A finished command's stderr, as text.
pub fn stderr_of(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

/// Whether a GPU adapter exists (asked once); panics without one unless `NBITS_MLP_SKIP_GPU=1`.
pub fn gpu_available() -> bool {
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
