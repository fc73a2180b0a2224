//! What needs no GPU: packing (`quantize`, `dequantize`), the float64 reference and the
//! comparison with it. Thin wrappers over `nbits_mlp_reference`; the reference's calls are
//! validated by the planner first, as the CLI's `--backend cpu` does, so bad calls fail with the
//! same messages on both paths.

use crate::arrays::{array_from_bytes, as_array, dtype_name, dtype_of, input_tensor, tensor_of};
use crate::errors::{guard, plan_err, ref_err, value_err};
use nbits_mlp_core::op::node_attrs;
use nbits_mlp_core::{DType, DeviceProfile, OpCall, Planner, Tensor, TensorInfo, Tunables};
use nbits_mlp_reference::compare as cmp;
use nbits_mlp_reference::mlp::{self, MlpAttrs};
use nbits_mlp_reference::pack::{self, Layout};
use numpy::prelude::*;
use numpy::{IntoPyArray, PyArrayDyn, PyUntypedArray};
use pyo3::prelude::*;
use std::sync::OnceLock;

/// The planner that validates reference calls: the project's manifest on the `discrete-gpu`
/// profile (the CLI's CPU backend uses the same).
pub(crate) fn cpu_planner() -> &'static Planner {
    static PLANNER: OnceLock<Planner> = OnceLock::new();
    PLANNER.get_or_init(|| Planner::project(DeviceProfile::discrete_gpu()))
}

/// `w` as `(N, K, values as f32, dtype)`: a 2-D float32 or float16 array.
fn weights_of(w: &Bound<'_, PyAny>) -> PyResult<(usize, usize, Vec<f32>, DType)> {
    let a = as_array(w, "w")?;
    let py = w.py();
    let dtype = dtype_of(py, &a.dtype());
    let bad = || {
        value_err(format!(
            "w: expected a 2-D float32 or float16 array [N, K], got {} {:?}",
            dtype_name(&a.dtype()),
            a.shape()
        ))
    };
    if a.ndim() != 2 || !matches!(dtype, Some(DType::F32 | DType::F16)) {
        return Err(bad());
    }
    let t = tensor_of(&a)?.ok_or_else(bad)?;
    Ok((a.shape()[0], a.shape()[1], t.to_f32(), t.dtype))
}

/// Quantizes weights to the MatMulNBits layout, symmetrically, as ONNX Runtime's
/// `MatMulNBitsQuantizer` (`is_symmetric=True`) does for the same input.
///
/// `w` is `[N, K]` (PyTorch's `Linear.weight` layout; pass `B.T` for an ONNX MatMul's `B`),
/// float32 or float16. Returns `(B, scales)`: `B` uint8 `[N, k_blocks, block_size * bits / 8]`,
/// `scales` `[N, k_blocks]` of `w`'s dtype, `k_blocks = ceil(K / block_size)`. The zero point
/// is `2^(bits-1)` (the op has no zero-point input). Per block, the value of largest magnitude
/// `m` sets `scale = -m / 2^(bits-1)` (so `m` is exact, code 0) and each code is
/// `round(v / scale) + 2^(bits-1)`, clamped; padding codes past K are the zero point.
#[pyfunction]
#[pyo3(signature = (w, bits = 4, block_size = 32))]
pub(crate) fn quantize<'py>(
    py: Python<'py>,
    w: &Bound<'py, PyAny>,
    bits: u32,
    block_size: usize,
) -> PyResult<(Bound<'py, PyUntypedArray>, Bound<'py, PyUntypedArray>)> {
    let (n, k, values, dtype) = weights_of(w)?;
    let layout = Layout::new(n, k, bits, block_size).map_err(ref_err)?;
    let q = py.detach(|| {
        guard(|| pack::quantize_to(&values, n, k, bits, block_size, dtype).map_err(ref_err))
    })?;
    let b = array_from_bytes(
        py,
        &TensorInfo::new(DType::U8, layout.packed_shape()),
        &q.packed,
    )?;
    let scales = Tensor::from_floats(dtype, layout.scales_shape(), &q.scales);
    let scales = array_from_bytes(py, &scales.info(), &scales.data)?;
    Ok((b, scales))
}

/// Dequantizes MatMulNBits weights: `W[n, k] = (code - 2^(bits-1)) * scales[n, k // block_size]`,
/// exactly, as a float64 `[N, K]` array (padding codes past K ignored).
///
/// `B` is uint8 `[N, k_blocks, blob_size]`, `scales` float32 or float16 `[N, k_blocks]`.
#[pyfunction]
#[pyo3(signature = (B, scales, K, bits = 4, block_size = 32))]
#[allow(non_snake_case)]
pub(crate) fn dequantize<'py>(
    py: Python<'py>,
    B: &Bound<'py, PyAny>,
    scales: &Bound<'py, PyAny>,
    K: usize,
    bits: u32,
    block_size: usize,
) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    let b = as_array(B, "B")?;
    let s = as_array(scales, "scales")?;
    let n = b.shape().first().copied().unwrap_or(0);
    let layout = Layout::new(n, K, bits, block_size).map_err(ref_err)?;
    let b_t = tensor_of(&b)?;
    if b_t.as_ref().map(|t| t.dtype) != Some(DType::U8) || b.shape() != layout.packed_shape() {
        return Err(value_err(format!(
            "B: expected uint8 {:?} ([N, k_blocks, blob_size] for K={K}, bits={bits}, \
             block_size={block_size}), got {} {:?}",
            layout.packed_shape(),
            dtype_name(&b.dtype()),
            b.shape()
        )));
    }
    let s_t = tensor_of(&s)?;
    let s_ok = s_t
        .as_ref()
        .is_some_and(|t| matches!(t.dtype, DType::F32 | DType::F16));
    if !s_ok || s.shape() != layout.scales_shape() {
        return Err(value_err(format!(
            "scales: expected float32 or float16 {:?} ([N, k_blocks]), got {} {:?}",
            layout.scales_shape(),
            dtype_name(&s.dtype()),
            s.shape()
        )));
    }
    let (b_t, s_t) = (b_t.expect("checked"), s_t.expect("checked"));
    let w = py.detach(|| {
        guard(|| {
            pack::dequantize(&b_t.data, &s_t.to_f64(), n, K, bits, block_size).map_err(ref_err)
        })
    })?;
    let w = numpy::ndarray::ArrayD::from_shape_vec(vec![n, K], w)
        .map_err(|e| value_err(e.to_string()))?;
    Ok(w.into_pyarray(py))
}

/// The float64 CPU reference of the operator, with the arguments of `Runtime.mlp` and of the
/// call together: `Y` as float64 (unrounded), shaped like the GPU's; `(Y, residual)` with
/// `residual=True`; and each element's error scale appended with `error_scale=True` (how far
/// the element moves when every product of its dot products moves by its own size: the
/// float16-accumulation tolerance is relative to it, see `compare`).
///
/// Multi-threaded; the GIL is released while it runs. Invalid calls raise `ValueError` with
/// the same message as the GPU path.
#[pyfunction]
#[pyo3(signature = (
    a, gate_B, gate_scales, up_B, up_scales, *, K, N = None, bits = 4, block_size,
    skip = None, norm_scale = None, gate_bias = None, up_bias = None, epsilon = 1e-5,
    residual = false, error_scale = false
))]
#[allow(non_snake_case, clippy::too_many_arguments)]
pub(crate) fn reference<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    gate_B: &Bound<'py, PyAny>,
    gate_scales: &Bound<'py, PyAny>,
    up_B: &Bound<'py, PyAny>,
    up_scales: &Bound<'py, PyAny>,
    K: i64,
    N: Option<i64>,
    bits: i64,
    block_size: i64,
    skip: Option<&Bound<'py, PyAny>>,
    norm_scale: Option<&Bound<'py, PyAny>>,
    gate_bias: Option<&Bound<'py, PyAny>>,
    up_bias: Option<&Bound<'py, PyAny>>,
    epsilon: f64,
    residual: bool,
    error_scale: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let planner = cpu_planner();
    let m = planner.manifest();
    let given = [
        Some(a),
        skip,
        norm_scale,
        Some(gate_B),
        Some(gate_scales),
        gate_bias,
        Some(up_B),
        Some(up_scales),
        up_bias,
    ];
    let mut inputs: Vec<Option<Tensor>> = Vec::with_capacity(given.len());
    for (i, obj) in given.iter().enumerate() {
        inputs.push(obj.map(|o| input_tensor(m, i, o)).transpose()?);
    }
    let n = match N {
        Some(n) => n,
        None => inputs[3]
            .as_ref()
            .and_then(|t| t.shape.first())
            .map_or(0, |&d| d as i64),
    };
    let attrs = node_attrs(K, n, bits, block_size, Some(epsilon));
    let refs: Vec<Option<&Tensor>> = inputs.iter().map(Option::as_ref).collect();
    let call = OpCall::from_tensors(&attrs, &refs, &[true, residual]);
    let out = py.detach(|| {
        guard(|| {
            planner.explain(&call, &Tunables::new()).map_err(plan_err)?;
            let mlp_attrs = MlpAttrs::from_attrs(&attrs).map_err(ref_err)?;
            mlp::run(&mlp_attrs, &refs, residual).map_err(ref_err)
        })
    })?;
    let f64_array = |shape: Vec<usize>, v: Vec<f64>| -> PyResult<Bound<'py, PyAny>> {
        Ok(numpy::ndarray::ArrayD::from_shape_vec(shape, v)
            .map_err(|e| value_err(e.to_string()))?
            .into_pyarray(py)
            .into_any())
    };
    let mut items = vec![f64_array(out.y.shape.clone(), out.y_f64)?];
    if let (Some(r), Some(r64)) = (&out.residual, out.residual_f64) {
        items.push(f64_array(r.shape.clone(), r64)?);
    }
    if error_scale {
        items.push(f64_array(out.y.shape, out.y_err_scale)?);
    }
    Ok(if items.len() == 1 {
        items.pop().expect("one item")
    } else {
        pyo3::types::PyTuple::new(py, items)?.into_any()
    })
}

/// Compares a result with the float64 reference: `(error, tolerance)` for the element whose
/// error is largest relative to its tolerance; the result is within tolerance when
/// `error <= tolerance`.
///
/// Tolerances (against the unrounded reference): float32 `1e-5 * max|Y| + 1e-6`; float16
/// `2e-3 * max|Y| + 2^-24` (float16's smallest step); float16 from a kernel that accumulates in
/// float16 (`f16_accumulation=True`, `Mlp.plan()["f16_accumulation"]`) `2e-3 * max|Y| + 2^-24 +
/// 2^-9 * error_scale[i]` per element, which
/// needs `error_scale` (from `reference(..., error_scale=True)`).
#[pyfunction]
#[pyo3(signature = (got, expected, error_scale = None, f16_accumulation = false))]
pub(crate) fn compare<'py>(
    got: &Bound<'py, PyAny>,
    expected: &Bound<'py, PyAny>,
    error_scale: Option<&Bound<'py, PyAny>>,
    f16_accumulation: bool,
) -> PyResult<(f64, f64)> {
    let g = as_array(got, "got")?;
    let got_t = tensor_of(&g)?
        .filter(|t| matches!(t.dtype, DType::F32 | DType::F16))
        .ok_or_else(|| {
            value_err(format!(
                "got: expected a float32 or float16 array, got {}",
                dtype_name(&g.dtype())
            ))
        })?;
    let f64s = |obj: &Bound<'py, PyAny>, what: &str| -> PyResult<Vec<f64>> {
        let a = as_array(obj, what)?;
        let a = a
            .call_method1("astype", ("float64",))?
            .cast_into::<PyArrayDyn<f64>>()
            .map_err(|e| value_err(format!("{what}: {e}")))?;
        let ro = a.readonly();
        Ok(ro.as_array().iter().copied().collect())
    };
    let expected = f64s(expected, "expected")?;
    if expected.len() != got_t.numel() {
        return Err(value_err(format!(
            "expected holds {} elements, got holds {}",
            expected.len(),
            got_t.numel()
        )));
    }
    let scale = match error_scale {
        Some(s) => f64s(s, "error_scale")?,
        None if f16_accumulation && got_t.dtype == DType::F16 => {
            return Err(value_err(
                "f16_accumulation=True needs error_scale (reference(..., error_scale=True))",
            ))
        }
        None => Vec::new(),
    };
    guard(|| cmp::worst_error(&expected, &scale, &got_t, f16_accumulation).map_err(value_err))
}
