//! Errors as Python exceptions: `ValueError` for what the caller got wrong (the CLI's "bad
//! input"), `nbits_mlp.GpuError` for what the device could not do, and no panic ever crossing
//! into Python.

use nbits_mlp_core::PlanError;
use nbits_mlp_reference::RefError;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

pyo3::create_exception!(
    nbits_mlp,
    GpuError,
    PyRuntimeError,
    "A failure of the GPU device or its driver: no adapter, a shader that does not compile, a \
     buffer over a device limit, no variant for this device, a lost device. Bad arguments raise \
     ValueError instead."
);

/// A planning error: `ValueError` when the call is invalid (bad attributes, tensors, tunables, a
/// violated contract: [`PlanError::is_caller_error`], the CLI's classification too, so the same
/// call fails the same way in both), `GpuError` otherwise; the message is the error's text, as
/// the CLI prints it.
pub(crate) fn plan_err(e: PlanError) -> PyErr {
    by_fault(e.is_caller_error(), e.to_string())
}

/// A kernel map's planning error: as [`plan_err`], the row count named.
pub(crate) fn map_err(e: nbits_mlp_core::map::MapError) -> PyErr {
    by_fault(e.error.is_caller_error(), e.to_string())
}

/// `ValueError` where the caller is at fault, `GpuError` otherwise.
fn by_fault(caller: bool, message: String) -> PyErr {
    if caller {
        PyValueError::new_err(message)
    } else {
        GpuError::new_err(message)
    }
}

/// A runtime error: `ValueError` for a planning error of the caller and for tensors that do not
/// fit (`Input`, `Tensor`), `GpuError` for everything else.
pub(crate) fn gpu_err(e: nbits_mlp_gpu::GpuError) -> PyErr {
    use nbits_mlp_gpu::GpuError as E;
    match e {
        E::Plan(p) => plan_err(p),
        e if e.is_caller_error() => PyValueError::new_err(e.to_string()),
        e => GpuError::new_err(e.to_string()),
    }
}

/// A reference (or packing) error: always the caller's arguments.
pub(crate) fn ref_err(e: RefError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A `ValueError` with this message.
pub(crate) fn value_err(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// Runs `f`, turning a panic into a `GpuError` ("internal error") instead of letting PyO3 raise
/// its `PanicException` (a `BaseException` that `except Exception` does not catch).
pub(crate) fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(GpuError::new_err(format!(
                "internal error in nbits_mlp (please report it): {what}"
            )))
        }
    }
}
