//! numpy arrays in and out: host [`Tensor`]s from arrays (any layout, copied), new arrays and
//! caller-provided `out=` arrays written from tensor bytes.

use crate::errors::value_err;
use half::f16;
use nbits_mlp_core::manifest::Manifest;
use nbits_mlp_core::{DType, Tensor, TensorInfo};
use numpy::prelude::*;
use numpy::{Element, IxDyn, PyArrayDescr, PyArrayDyn, PyReadwriteArrayDyn, PyUntypedArray};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// The project's dtype of a numpy dtype, when it has one.
pub(crate) fn dtype_of(py: Python<'_>, descr: &Bound<'_, PyArrayDescr>) -> Option<DType> {
    if descr.is_equiv_to(&numpy::dtype::<f32>(py)) {
        Some(DType::F32)
    } else if descr.is_equiv_to(&numpy::dtype::<f16>(py)) {
        Some(DType::F16)
    } else if descr.is_equiv_to(&numpy::dtype::<u8>(py)) {
        Some(DType::U8)
    } else {
        None
    }
}

/// numpy's name of a dtype (`float64`, `>f4`, ...).
pub(crate) fn dtype_name(descr: &Bound<'_, PyArrayDescr>) -> String {
    descr
        .str()
        .map(|s| s.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// `obj` as a numpy array: itself when it is one, else `numpy.asarray(obj)` (lists, buffers,
/// CPU tensors of other libraries). `what` names the argument in the error.
pub(crate) fn as_array<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        return Ok(a.clone());
    }
    let py = obj.py();
    let converted = py
        .import("numpy")?
        .call_method1("asarray", (obj,))
        .map_err(|e| value_err(format!("{what}: not an array ({e})")))?;
    converted
        .cast_into::<PyUntypedArray>()
        .map_err(|_| value_err(format!("{what}: not an array")))
}

/// The elements of a typed array as little-endian bytes, in C order (a copy; any strides).
fn bytes_of<T: Element + bytemuck::Pod>(a: &Bound<'_, PyUntypedArray>) -> PyResult<Vec<u8>> {
    let a = a
        .cast::<PyArrayDyn<T>>()
        .map_err(|e| value_err(e.to_string()))?;
    let ro = a.try_readonly().map_err(|e| value_err(e.to_string()))?;
    // `as_slice` also takes Fortran-ordered arrays (in memory order): only C order is copied
    // as is, everything else element by element in C order.
    match ro.as_slice() {
        Ok(s) if a.is_c_contiguous() => return Ok(bytemuck::cast_slice(s).to_vec()),
        _ => {}
    }
    let v: Vec<T> = ro.as_array().iter().copied().collect();
    Ok(bytemuck::cast_slice(&v).to_vec())
}

/// A host tensor holding a copy of `a`'s elements; `None` when numpy's dtype has no
/// counterpart here (the caller words the error).
pub(crate) fn tensor_of(a: &Bound<'_, PyUntypedArray>) -> PyResult<Option<Tensor>> {
    let py = a.py();
    let Some(dtype) = dtype_of(py, &a.dtype()) else {
        return Ok(None);
    };
    let data = match dtype {
        DType::F32 => bytes_of::<f32>(a)?,
        DType::F16 => bytes_of::<f16>(a)?,
        DType::U8 => bytes_of::<u8>(a)?,
    };
    Ok(Some(Tensor {
        dtype,
        shape: a.shape().to_vec(),
        data,
    }))
}

/// The operator's input `index` (ONNX order) from a Python object, as a host tensor. A numpy
/// dtype the project has no type for is refused with the planner's wording for a wrong dtype
/// (`input 0 `A`: dtype float64 is not allowed for T1 (allowed: float32, float16)`); one it
/// has but the input does not take is left to the planner, which says the same.
pub(crate) fn input_tensor(
    manifest: &Manifest,
    index: usize,
    obj: &Bound<'_, PyAny>,
) -> PyResult<Tensor> {
    let decl = &manifest.inputs[index].decl;
    let what = format!("input {index} `{}`", decl.onnx);
    let a = as_array(obj, &what)?;
    if let Some(t) = tensor_of(&a)? {
        return Ok(t);
    }
    let got = dtype_name(&a.dtype());
    Err(value_err(
        match manifest.file.type_constraints.get(&decl.dtype) {
            Some(allowed) => format!(
                "{what}: dtype {got} is not allowed for {} (allowed: {})",
                decl.dtype,
                allowed.join(", ")
            ),
            None => format!("{what}: expected dtype {}, got {got}", decl.dtype),
        },
    ))
}

/// A new, uninitialized C-order array of `info`'s dtype and shape (float32, float16 or uint8).
pub(crate) fn new_array<'py>(py: Python<'py>, info: &TensorInfo) -> Bound<'py, PyUntypedArray> {
    let dims = IxDyn(&info.shape);
    // SAFETY: every element is written (from a tensor of this size) before Python sees it.
    unsafe {
        match info.dtype {
            DType::F32 => PyArrayDyn::<f32>::new(py, dims, false).into_any(),
            DType::F16 => PyArrayDyn::<f16>::new(py, dims, false).into_any(),
            DType::U8 => PyArrayDyn::<u8>::new(py, dims, false).into_any(),
        }
        .cast_into::<PyUntypedArray>()
        .expect("a new array is an ndarray")
    }
}

/// A new array of `info`'s dtype and shape holding `data` (its little-endian bytes).
pub(crate) fn array_from_bytes<'py>(
    py: Python<'py>,
    info: &TensorInfo,
    data: &[u8],
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let a = new_array(py, info);
    Writable::of(&a, "result")?
        .bytes_mut()?
        .copy_from_slice(data);
    Ok(a)
}

/// A borrowed, writeable, C-contiguous float array whose bytes Rust may fill (also while
/// detached from the interpreter: the borrow keeps numpy's other Rust users out).
pub(crate) enum Writable<'py> {
    /// float32 elements.
    F32(PyReadwriteArrayDyn<'py, f32>),
    /// float16 elements.
    F16(PyReadwriteArrayDyn<'py, f16>),
    /// uint8 elements.
    U8(PyReadwriteArrayDyn<'py, u8>),
}

impl<'py> Writable<'py> {
    /// Borrows `a` for writing; errors (naming `what`) when it is not writeable, not
    /// C-contiguous, or of another dtype.
    pub(crate) fn of(a: &Bound<'py, PyUntypedArray>, what: &str) -> PyResult<Writable<'py>> {
        let py = a.py();
        let bad = |why: String| value_err(format!("{what}: {why}"));
        if !a.is_c_contiguous() {
            return Err(bad("must be C-contiguous".into()));
        }
        let w = match dtype_of(py, &a.dtype()) {
            Some(DType::F32) => a
                .cast::<PyArrayDyn<f32>>()
                .map_err(|e| bad(e.to_string()))?
                .try_readwrite()
                .map(Writable::F32),
            Some(DType::F16) => a
                .cast::<PyArrayDyn<f16>>()
                .map_err(|e| bad(e.to_string()))?
                .try_readwrite()
                .map(Writable::F16),
            Some(DType::U8) => a
                .cast::<PyArrayDyn<u8>>()
                .map_err(|e| bad(e.to_string()))?
                .try_readwrite()
                .map(Writable::U8),
            None => return Err(bad(format!("unsupported dtype {}", dtype_name(&a.dtype())))),
        };
        w.map_err(|e| bad(format!("cannot be written ({e})")))
    }

    /// The elements as bytes.
    pub(crate) fn bytes_mut(&mut self) -> PyResult<&mut [u8]> {
        let err = |e: numpy::AsSliceError| value_err(e.to_string());
        Ok(match self {
            Writable::F32(a) => bytemuck::cast_slice_mut(a.as_slice_mut().map_err(err)?),
            Writable::F16(a) => bytemuck::cast_slice_mut(a.as_slice_mut().map_err(err)?),
            Writable::U8(a) => a.as_slice_mut().map_err(err)?,
        })
    }
}

/// Checks a caller's `out=` array against the output it is to receive: an ndarray of exactly
/// this dtype and shape, writeable and C-contiguous.
pub(crate) fn check_out<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    info: &TensorInfo,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let py = obj.py();
    let a = obj
        .cast::<PyUntypedArray>()
        .map_err(|_| value_err(format!("{what}: expected a numpy array")))?;
    let dtype = dtype_of(py, &a.dtype());
    if dtype != Some(info.dtype) || a.shape() != info.shape.as_slice() {
        return Err(value_err(format!(
            "{what}: expected {} {:?}, got {} {:?}",
            info.dtype,
            info.shape,
            dtype_name(&a.dtype()),
            a.shape()
        )));
    }
    Ok(a.clone())
}

/// `(a, b)` as a Python tuple, or `a` alone.
pub(crate) fn one_or_pair<'py>(
    py: Python<'py>,
    first: Bound<'py, PyAny>,
    second: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match second {
        Some(s) => PyTuple::new(py, [first, s])?.into_any(),
        None => first,
    })
}
