//! The Python package `nbits_mlp` (its extension module `nbits_mlp._nbits_mlp`): ONNX Runtime's
//! fused quantized MLP operator (`com.microsoft::MatMulNBitsMlp`) on numpy arrays, through the
//! project's crates and nothing else:
//!
//! - `quantize` / `dequantize`: the MatMulNBits packing of `nbits_mlp_reference::pack`;
//! - `reference` / `compare`: the float64 oracle and its tolerances (`nbits_mlp_reference`);
//! - `Runtime`, `Mlp`: the WebGPU runtime's device API (`nbits_mlp_gpu::Runtime`): weights
//!   uploaded once, plans cached, the GIL released while the GPU works;
//! - `adapters`, `Runtime.explain`, `Mlp.plan`: adapters and plans (the planner's), as dicts;
//! - `fuse`: `nbits-mlp fuse` (crates/fuse) on a model file, the report as a dict;
//! - `GpuError`: device failures; bad arguments raise `ValueError` with the CLI's messages.
//!
//! Built with maturin as one abi3 wheel (CPython 3.9+) per platform: `pip install
//! ./crates/python`.
#![warn(missing_docs)]

mod arrays;
mod cpu;
mod errors;
mod fuse;
mod mlp;
mod runtime;

use pyo3::prelude::*;

/// The extension module; `python/nbits_mlp/__init__.py` re-exports it.
#[pymodule]
fn _nbits_mlp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("GpuError", py.get_type::<errors::GpuError>())?;
    m.add_function(wrap_pyfunction!(cpu::quantize, m)?)?;
    m.add_function(wrap_pyfunction!(cpu::dequantize, m)?)?;
    m.add_function(wrap_pyfunction!(cpu::reference, m)?)?;
    m.add_function(wrap_pyfunction!(cpu::compare, m)?)?;
    m.add_function(wrap_pyfunction!(runtime::adapters, m)?)?;
    m.add_function(wrap_pyfunction!(fuse::fuse, m)?)?;
    m.add_class::<runtime::PyRuntime>()?;
    m.add_class::<mlp::PyMlp>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
