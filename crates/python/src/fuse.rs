//! `nbits_mlp.fuse`: the `nbits-mlp fuse` command's rewrite (crates/fuse) from Python.

use crate::errors::{guard, value_err};
use pyo3::prelude::*;
use std::path::PathBuf;

/// fuse(input, output, domain=None) -> dict
///
/// Rewrites every fusable MLP of the ONNX model `input` (an exported LLM in ONNX Runtime GenAI's
/// model-builder layout: norm, two MatMulNBits, Sigmoid/Mul/Mul, bias Adds, packed gate_up +
/// Split) into one `com.microsoft::MatMulNBitsMlp` node (or `domain`), writes `output` (with its
/// external data beside it when the model has some) and returns the report as a dict: what was
/// fused per layer, and for every candidate left alone, the rule that stopped it (what
/// `nbits-mlp fuse --explain --json` prints). Raises ValueError for a model that cannot be
/// read or written. The fused nodes record accuracy_level 0 (full precision).
#[pyfunction]
#[pyo3(signature = (input, output, domain = None))]
pub fn fuse<'py>(
    py: Python<'py>,
    input: PathBuf,
    output: PathBuf,
    domain: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    guard(|| {
        let mut opts = nbits_mlp_fuse::FuseOptions::default();
        if let Some(d) = domain {
            opts.domain = d;
        }
        let report = py
            .detach(|| nbits_mlp_fuse::fuse_file(&input, &output, &opts))
            .map_err(|e| value_err(e.to_string()))?;
        let json = serde_json::to_value(&report).map_err(|e| value_err(e.to_string()))?;
        crate::runtime::json_to_py(py, &json)
    })
}
