//! `Runtime` (one GPU adapter) and `Mlp` (one layer's weights on it, callable on activations):
//! thin wrappers over `nbits_mlp_gpu::Runtime`'s device API. Weights are uploaded once; each
//! call writes the activations into device tensors kept per plan, runs the cached plan, and
//! reads the outputs back, with the GIL released while the GPU works.

use crate::arrays::{check_out, input_tensor, new_array, one_or_pair, Writable};
use crate::errors::{gpu_err, gpu_error_is_invalid, guard, plan_err, ref_err, value_err};
use crate::op::{call_of, op_attrs};
use indexmap::IndexMap;
use nbits_mlp_core::plan::Verdict;
use nbits_mlp_core::{
    AttrValue, DType, MlpShape, OpCall, Plan, PlanError, Tensor, TensorInfo, Tunables,
};
use nbits_mlp_gpu::{
    list_adapters, parse_backends, AdapterSummary, GpuError, GpuOptions, GpuTensor, Runtime,
};
use nbits_mlp_reference::mlp::{check_call, MlpAttrs, INPUT_NAMES};
use nbits_mlp_reference::RefError;
use numpy::PyUntypedArray;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// Device tensors an `Mlp` keeps per plan (call shape), most recently used first.
const SLOTS: usize = 4;

/// A JSON value as a Python object (through `json.loads`: dicts, lists, numbers, strings).
pub(crate) fn json_to_py<'py>(
    py: Python<'py>,
    v: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

/// A plan as a dict: the plan's JSON (`nbits-mlp plan --json` without the template contexts),
/// plus `f16_accumulation`; with `verdicts`, those replace the plan's own (which do not say
/// why a term is false).
fn plan_dict<'py>(
    py: Python<'py>,
    plan: &Plan,
    verdicts: Option<&[Verdict]>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut v = serde_json::to_value(plan).map_err(|e| value_err(e.to_string()))?;
    if let Some(o) = v.as_object_mut() {
        if let Some(passes) = o.get_mut("passes").and_then(|p| p.as_array_mut()) {
            for p in passes.iter_mut().filter_map(|p| p.as_object_mut()) {
                p.remove("context");
            }
        }
        o.insert("f16_accumulation".into(), plan.f16_accumulation().into());
        if let Some(vs) = verdicts {
            o.insert(
                "verdicts".into(),
                serde_json::to_value(vs).map_err(|e| value_err(e.to_string()))?,
            );
        }
    }
    json_to_py(py, &v)
}

/// An adapter as a dict: `name`, `backend`, `type` (device type), `driver`, `driver_info`,
/// `vendor`, `device`, subgroup sizes, `features` and `limits` (WebGPU names).
fn adapter_dict<'py>(py: Python<'py>, a: &AdapterSummary) -> PyResult<Bound<'py, PyAny>> {
    let mut v = serde_json::to_value(a).map_err(|e| value_err(e.to_string()))?;
    if let Some(o) = v.as_object_mut() {
        if let Some(t) = o.remove("device_type") {
            o.insert("type".into(), t);
        }
    }
    json_to_py(py, &v)
}

/// GPU options: the environment's (`NBITS_MLP_BACKENDS`, `NBITS_MLP_ADAPTER`; Vulkan by
/// default), overridden by the arguments given.
fn gpu_options(adapter: Option<String>, backends: Option<&str>) -> PyResult<GpuOptions> {
    let mut opts = GpuOptions::from_env().map_err(gpu_err)?;
    if let Some(b) = backends {
        opts.backends = parse_backends(b).map_err(|m| value_err(format!("backends: {m}")))?;
    }
    if adapter.is_some() {
        opts.adapter = adapter;
    }
    Ok(opts)
}

/// Every GPU adapter of the backends (Vulkan unless `backends` or `NBITS_MLP_BACKENDS` says
/// otherwise: `"vulkan"`, `"gl"`, `"metal"`, `"dx12"`, `"all"`, or a comma-separated mix), best
/// first, as dicts with `name`, `backend`, `type`, `driver`, `features`, `limits`, ...
#[pyfunction]
#[pyo3(signature = (backends = None))]
pub(crate) fn adapters<'py>(
    py: Python<'py>,
    backends: Option<&str>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let opts = gpu_options(None, backends)?;
    let list = py.detach(|| guard(|| Ok(list_adapters(&opts))))?;
    list.iter().map(|a| adapter_dict(py, a)).collect()
}

/// A GPU adapter and its device, planning for everything the device granted.
///
/// `Runtime(adapter=None)` opens the best adapter (discrete, then integrated, virtual, CPU)
/// of the Vulkan backend (`backends=` or `NBITS_MLP_BACKENDS` choose others); `adapter` is a
/// case-insensitive substring of the adapter's name (`nbits_mlp.adapters()` lists them).
/// Raises `GpuError` when no adapter matches or the device cannot be opened.
#[pyclass(name = "Runtime", module = "nbits_mlp", frozen)]
pub(crate) struct PyRuntime {
    rt: Arc<Runtime>,
}

#[pymethods]
impl PyRuntime {
    #[new]
    #[pyo3(signature = (adapter = None, *, backends = None))]
    fn new(py: Python<'_>, adapter: Option<String>, backends: Option<&str>) -> PyResult<Self> {
        let opts = gpu_options(adapter, backends)?;
        let rt = py.detach(|| guard(|| Runtime::open(&opts).map_err(gpu_err)))?;
        Ok(PyRuntime { rt: Arc::new(rt) })
    }

    /// The adapter in use, as a dict (see `nbits_mlp.adapters()`).
    #[getter]
    fn adapter<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        adapter_dict(py, &self.rt.gpu().summary())
    }

    /// The device features plans are made for (WebGPU names, plus the project's `coop-*` and
    /// `subgroup-size-32`), sorted.
    #[getter]
    fn features(&self) -> Vec<String> {
        self.rt.profile().features.iter().cloned().collect()
    }

    /// Whether the device has timestamp queries (needed by `Mlp.time`).
    #[getter]
    fn has_timestamps(&self) -> bool {
        self.rt.gpu().has_timestamps()
    }

    /// Counters: compiled pipelines, prepared plans, plans in the planner's cache.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.rt.stats();
        let d = PyDict::new(py);
        d.set_item("pipelines", s.pipelines)?;
        d.set_item("prepared_plans", s.prepared_plans)?;
        d.set_item("cached_plans", self.rt.planner().cached())?;
        Ok(d)
    }

    /// Checks one MLP layer's weights and uploads them to the GPU once; returns an `Mlp` to call
    /// on activations.
    ///
    /// Arguments are the ONNX operator's, by name: `gate_B`, `up_B` uint8 `[N, k_blocks,
    /// block_size * bits / 8]`; `gate_scales`, `up_scales` `[N, k_blocks]` of the model's float
    /// type T1 (float32 or float16; activations must match it); optional `norm_scale` `[K]`
    /// (RMSNorm of the activations first) and `gate_bias`, `up_bias` `[N]`, of T1. Attributes:
    /// `K` (hidden size), `N` (default `gate_B.shape[0]`), `bits` (2, 4 or 8), `block_size`,
    /// `epsilon` (RMSNorm's). `nbits_mlp.quantize` makes `B` and scales from float weights.
    ///
    /// Raises `ValueError` (with the CLI's message, naming the tensor or attribute at fault)
    /// for bad shapes, dtypes or attributes.
    #[pyo3(signature = (
        gate_B, gate_scales, up_B, up_scales, *, K, N = None, bits = 4, block_size,
        norm_scale = None, gate_bias = None, up_bias = None, epsilon = 1e-5
    ))]
    #[allow(non_snake_case, clippy::too_many_arguments)]
    fn mlp(
        &self,
        py: Python<'_>,
        gate_B: &Bound<'_, PyAny>,
        gate_scales: &Bound<'_, PyAny>,
        up_B: &Bound<'_, PyAny>,
        up_scales: &Bound<'_, PyAny>,
        K: i64,
        N: Option<i64>,
        bits: i64,
        block_size: i64,
        norm_scale: Option<&Bound<'_, PyAny>>,
        gate_bias: Option<&Bound<'_, PyAny>>,
        up_bias: Option<&Bound<'_, PyAny>>,
        epsilon: f64,
    ) -> PyResult<PyMlp> {
        let m = self.rt.planner().manifest();
        let given = [
            (2, norm_scale),
            (3, Some(gate_B)),
            (4, Some(gate_scales)),
            (5, gate_bias),
            (6, Some(up_B)),
            (7, Some(up_scales)),
            (8, up_bias),
        ];
        let mut host: Vec<Option<Tensor>> = vec![None; INPUT_NAMES.len()];
        for (i, obj) in given {
            host[i] = obj.map(|o| input_tensor(m, i, o)).transpose()?;
        }
        let n = N.unwrap_or_else(|| {
            host[3]
                .as_ref()
                .and_then(|t| t.shape.first())
                .map_or(0, |&d| d as i64)
        });
        let attrs = op_attrs(K, n, bits, block_size, epsilon);
        // T1 is the scales' type; activations of another type are refused at call time.
        let dtype = match host[4].as_ref().map(|t| t.dtype) {
            Some(d @ (DType::F32 | DType::F16)) => d,
            _ => DType::F32,
        };
        let infos: Vec<Option<TensorInfo>> =
            host.iter().map(|t| t.as_ref().map(Tensor::info)).collect();
        // Check everything now with a one-row call: bad weights fail here, not at the first
        // call. Only the caller's errors count: a device that cannot run this call raises at
        // call time, for the rows it is called with.
        let mut probe = infos.clone();
        probe[0] = Some(TensorInfo::new(dtype, vec![1, K.max(0) as usize]));
        let probe = call_of(&attrs, &probe, false);
        if let Err(e) = guard(|| Ok(self.rt.plan(&probe, &Tunables::new())))? {
            if gpu_error_is_invalid(&e) {
                return Err(gpu_err(e));
            }
            if let Some(reason) = reference_check(&probe) {
                return Err(ref_err(reason));
            }
        }
        let rt = &self.rt;
        let weights = py.detach(|| {
            guard(|| {
                host.iter()
                    .zip(INPUT_NAMES)
                    .map(|(t, name)| t.as_ref().map(|t| rt.upload_labeled(t, name)).transpose())
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(gpu_err)
            })
        })?;
        Ok(PyMlp {
            rt: self.rt.clone(),
            attrs,
            k: K,
            n,
            bits,
            block_size,
            epsilon,
            dtype,
            weights,
            infos,
            slots: Mutex::new(Vec::new()),
        })
    }

    /// The plan for a call of this shape on this device, as a dict (`variant`, `passes` with
    /// their `dispatch`, workgroup sizes and bindings, `outputs`, `intermediates`,
    /// `f16_accumulation`) with `verdicts`: every variant, whether it applies, and if not, the
    /// first rejecting term and why (`nbits-mlp plan --shape ... --explain`). No weights
    /// needed. Raises (as the CLI) when the call is invalid or no variant applies.
    #[pyo3(signature = (
        *, K, N, rows = 1, batch = None, dtype = "float16", bits = 4, block_size = 32,
        skip = false, norm = false, residual = false, gate_bias = false, up_bias = false
    ))]
    #[allow(non_snake_case, clippy::too_many_arguments)]
    fn explain<'py>(
        &self,
        py: Python<'py>,
        K: usize,
        N: usize,
        rows: usize,
        batch: Option<usize>,
        dtype: &str,
        bits: usize,
        block_size: usize,
        skip: bool,
        norm: bool,
        residual: bool,
        gate_bias: bool,
        up_bias: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let dtype = DType::from_name(dtype)
            .filter(|d| *d != DType::U8)
            .ok_or_else(|| value_err(format!("dtype: expected float16 or float32, got {dtype}")))?;
        let shape = MlpShape {
            k: K,
            n: N,
            lead: batch.map_or(vec![rows], |b| vec![b, rows]),
            dtype,
            bits,
            block_size,
            skip,
            norm,
            residual,
            gate_bias,
            up_bias,
        };
        explain_call(py, &self.rt, &shape.call(), true)
    }

    fn __repr__(&self) -> String {
        let i = self.rt.gpu().info();
        format!(
            "nbits_mlp.Runtime(adapter={:?}, backend={:?}, type={:?})",
            i.name, i.backend, i.device_type
        )
    }
}

/// The plan of `call` as a dict, with explained verdicts when `explain`.
fn explain_call<'py>(
    py: Python<'py>,
    rt: &Arc<Runtime>,
    call: &OpCall,
    explain: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let (plan, verdicts) = py.detach(|| {
        guard(|| {
            let verdicts = if explain {
                Some(
                    rt.planner()
                        .explain(call, &Tunables::new())
                        .map_err(plan_err)?,
                )
            } else {
                None
            };
            let plan = plan_or_reason(rt, call)?;
            Ok((plan, verdicts))
        })
    })?;
    plan_dict(py, &plan, verdicts.as_deref())
}

/// The plan of `call`. When no variant applies, the call may still be invalid in a way a
/// manifest checks only in its variants' conditions (the project's manifest checks the
/// operator's input rules up front, a custom one need not): the reference's check of the call
/// (`nbits_mlp_reference::mlp::check_call`, the CLI's `--backend cpu` messages) then says so as
/// a `ValueError`; otherwise the device cannot run it (`GpuError`, with every variant's reason).
fn plan_or_reason(rt: &Runtime, call: &OpCall) -> PyResult<Arc<Plan>> {
    match rt.plan(call, &Tunables::new()) {
        Ok(plan) => Ok(plan),
        Err(e @ GpuError::Plan(PlanError::NoVariant(_))) => match reference_check(call) {
            Some(reason) => Err(ref_err(reason)),
            None => Err(gpu_err(e)),
        },
        Err(e) => Err(gpu_err(e)),
    }
}

/// What the reference says is wrong with `call` (zero-filled tensors of its inputs' shapes).
fn reference_check(call: &OpCall) -> Option<RefError> {
    let attrs = match MlpAttrs::from_attrs(&call.attrs) {
        Ok(a) => a,
        Err(e) => return Some(e),
    };
    let tensors: Vec<Option<Tensor>> = call
        .inputs
        .iter()
        .map(|i| {
            i.as_ref().map(|i| Tensor {
                dtype: i.dtype,
                shape: i.shape.clone(),
                data: vec![0; i.numel() * i.dtype.size()],
            })
        })
        .collect();
    let refs: Vec<Option<&Tensor>> = tensors.iter().map(Option::as_ref).collect();
    let residual = call.outputs.get(1).copied().unwrap_or(false);
    check_call(&attrs, &refs, residual).err()
}

/// Device tensors for one plan: the activations' inputs, the outputs, and host tensors the
/// outputs are read back into (reused across calls).
struct Slot {
    plan: Arc<Plan>,
    a: GpuTensor,
    skip: Option<GpuTensor>,
    outs: Vec<Option<GpuTensor>>,
    host: Vec<Tensor>,
}

/// One MLP layer's weights on the GPU (from `Runtime.mlp`), callable on activations:
///
///     y = mlp(a)                                  # a: [rows, K] or [batch, seq, K]
///     y = mlp(a, skip)                            # with the layer's norm_scale
///     y, residual = mlp(a, skip, residual=True)   # residual = a + skip
///     mlp(a, out=y)                               # into a preallocated array
///
/// `Y = silu(A_n W_gate^T + gate_bias) * (A_n W_up^T + up_bias)`, `A_n` the RMSNorm of
/// `a + skip` (times `norm_scale`) when the layer has `norm_scale`, else `a`. `a` and `skip`
/// are of the layer's float type (`dtype`); rows may be 0. `residual=True` also returns
/// `a + skip` (the op's `input_skip_bias_sum`; needs `skip`). `out`: a C-contiguous array of
/// Y's dtype and shape, written and returned instead of a new one (with `residual=True`, a
/// tuple `(y_out, residual_out)`, either may be None). The plan is cached per call shape, the
/// device buffers of the last few shapes are kept, and the GIL is released while the GPU works.
///
/// `plan(rows)` says what runs, `time(rows, iters)` how long it takes on the GPU.
#[pyclass(name = "Mlp", module = "nbits_mlp", frozen)]
pub(crate) struct PyMlp {
    rt: Arc<Runtime>,
    attrs: IndexMap<String, AttrValue>,
    k: i64,
    n: i64,
    bits: i64,
    block_size: i64,
    epsilon: f64,
    /// T1: the scales' type.
    dtype: DType,
    /// Device tensors of the inputs given at creation, ONNX order (`A` and `skip` are `None`).
    weights: Vec<Option<GpuTensor>>,
    /// Their descriptions.
    infos: Vec<Option<TensorInfo>>,
    /// Per-plan device tensors, most recently used first.
    slots: Mutex<Vec<Slot>>,
}

impl PyMlp {
    /// The call for activations `a` (and `skip`), requesting the residual output when asked.
    fn call(&self, a: TensorInfo, skip: Option<TensorInfo>, residual: bool) -> OpCall {
        let mut infos = self.infos.clone();
        infos[0] = Some(a);
        infos[1] = skip;
        call_of(&self.attrs, &infos, residual)
    }

    fn plan_of(&self, call: &OpCall) -> PyResult<Arc<Plan>> {
        guard(|| plan_or_reason(&self.rt, call))
    }

    /// The call of a synthetic activation of `rows` rows (`[batch, rows, K]` with `batch`).
    fn shape_call(&self, rows: usize, batch: Option<usize>, skip: bool, residual: bool) -> OpCall {
        let k = self.k.max(0) as usize;
        let shape = batch.map_or(vec![rows, k], |b| vec![b, rows, k]);
        let info = TensorInfo::new(self.dtype, shape);
        let skip = skip.then(|| info.clone());
        self.call(info, skip, residual)
    }

    /// The 9 inputs of a run, ONNX order: `a`, `skip`, then the weights.
    fn inputs<'s>(
        &'s self,
        a: &'s GpuTensor,
        skip: Option<&'s GpuTensor>,
    ) -> Vec<Option<&'s GpuTensor>> {
        let mut ins: Vec<Option<&GpuTensor>> = self.weights.iter().map(Option::as_ref).collect();
        ins[0] = Some(a);
        ins[1] = skip;
        ins
    }

    /// Runs `f` on the slot of `plan` (created on first use for activations `a` and `skip`;
    /// the least recently used slot is dropped beyond [`SLOTS`]).
    fn with_slot<T>(
        &self,
        plan: &Arc<Plan>,
        a: &TensorInfo,
        skip: Option<&TensorInfo>,
        f: impl FnOnce(&mut Slot) -> Result<T, GpuError>,
    ) -> Result<T, GpuError> {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let at = match slots.iter().position(|s| Arc::ptr_eq(&s.plan, plan)) {
            Some(i) => i,
            None => {
                let outs = self.rt.alloc_outputs(plan)?;
                let host = outs
                    .iter()
                    .flatten()
                    .map(|t| Tensor {
                        dtype: t.info().dtype,
                        shape: t.info().shape.clone(),
                        data: Vec::new(),
                    })
                    .collect();
                let slot = Slot {
                    plan: plan.clone(),
                    a: self.rt.alloc(a.clone())?,
                    skip: skip.map(|s| self.rt.alloc(s.clone())).transpose()?,
                    outs,
                    host,
                };
                slots.truncate(SLOTS - 1);
                slots.push(slot);
                slots.len() - 1
            }
        };
        slots[..=at].rotate_right(1);
        f(&mut slots[0])
    }

    /// One synchronous run: writes `a` (and `skip`) into the plan's device tensors, runs the
    /// plan, reads its outputs back and copies them into `dst` (one byte slice per output the
    /// plan produces, in order).
    fn execute(
        &self,
        plan: &Arc<Plan>,
        a: &Tensor,
        skip: Option<&Tensor>,
        dst: &mut [&mut [u8]],
    ) -> Result<(), GpuError> {
        let skip_info = skip.map(Tensor::info);
        let rt = &self.rt;
        self.with_slot(plan, &a.info(), skip_info.as_ref(), |slot| {
            rt.write_tensor(&slot.a, a)?;
            if let (Some(d), Some(s)) = (&slot.skip, skip) {
                rt.write_tensor(d, s)?;
            }
            let ins = self.inputs(&slot.a, slot.skip.as_ref());
            let outs: Vec<Option<&GpuTensor>> = slot.outs.iter().map(Option::as_ref).collect();
            rt.run_on_device(plan, &ins, &outs)?;
            let present: Vec<&GpuTensor> = slot.outs.iter().flatten().collect();
            rt.download_into(&present, &mut slot.host)?;
            for (h, d) in slot.host.iter().zip(dst.iter_mut()) {
                d.copy_from_slice(&h.data);
            }
            Ok(())
        })
    }

    /// Synthetic activations of `info` (values in [-1, 1], deterministic).
    fn synthetic(info: &TensorInfo, seed: u32) -> Tensor {
        let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(12_345);
        let values: Vec<f32> = (0..info.numel())
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 8) as f32 / (1u32 << 23) as f32 - 1.0
            })
            .collect();
        Tensor::from_floats(info.dtype, info.shape.clone(), &values)
    }
}

/// The median of `v` (which must not be empty).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

#[pymethods]
impl PyMlp {
    /// Runs the layer: `Y = silu(A_n W_gate^T + gate_bias) * (A_n W_up^T + up_bias)`, `A_n` the
    /// RMSNorm of `a + skip` (when the layer has `norm_scale`) or `a + skip` / `a`.
    ///
    /// `a`: `[rows, K]` or `[batch, seq, K]`, the layer's float type (rows may be 0). `skip`:
    /// like `a` (needs `norm_scale`). `residual=True` also returns `a + skip` (the op's
    /// `input_skip_bias_sum`; needs `skip`): `y, residual = mlp(a, skip, residual=True)`. `out`:
    /// a preallocated C-contiguous array for `Y` (a tuple `(y_out, residual_out)` with
    /// `residual=True`, either may be None) that is written and returned instead of a new one.
    ///
    /// The plan is cached per call shape, the activations' and outputs' device buffers are kept
    /// for the last few shapes, and the GIL is released while the GPU works.
    #[pyo3(signature = (a, skip = None, *, residual = false, out = None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        skip: Option<&Bound<'py, PyAny>>,
        residual: bool,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let m = self.rt.planner().manifest();
        let a_t = input_tensor(m, 0, a)?;
        let skip_t = skip.map(|s| input_tensor(m, 1, s)).transpose()?;
        let call = self.call(a_t.info(), skip_t.as_ref().map(Tensor::info), residual);
        let plan = self.plan_of(&call)?;
        // Output arrays: the caller's (checked) or new ones, one per output the plan produces.
        let infos: Vec<TensorInfo> = plan
            .outputs
            .iter()
            .filter(|o| o.present)
            .map(|o| TensorInfo::new(o.dtype, o.shape.clone()))
            .collect();
        let given: Vec<Option<Bound<'py, PyAny>>> = match out {
            None => vec![None; infos.len()],
            Some(o) if o.is_none() => vec![None; infos.len()],
            Some(o) => match o.cast::<PyTuple>() {
                Ok(t) if residual => {
                    if t.len() != 2 {
                        return Err(value_err(
                            "out: with residual=True, a tuple (y_out, residual_out)",
                        ));
                    }
                    t.iter().map(|x| (!x.is_none()).then_some(x)).collect()
                }
                Ok(_) => return Err(value_err("out: a tuple needs residual=True")),
                Err(_) if residual => {
                    let mut v = vec![Some(o.clone())];
                    v.resize(infos.len(), None);
                    v
                }
                Err(_) => vec![Some(o.clone())],
            },
        };
        let names = ["out (Y)", "out (residual)"];
        let mut arrays: Vec<Bound<'py, PyUntypedArray>> = Vec::with_capacity(infos.len());
        for (i, info) in infos.iter().enumerate() {
            arrays.push(match given.get(i).cloned().flatten() {
                Some(o) => check_out(&o, names[i.min(1)], info)?,
                None => new_array(py, info),
            });
        }
        let mut guards = arrays
            .iter()
            .enumerate()
            .map(|(i, a)| Writable::of(a, names[i.min(1)]))
            .collect::<PyResult<Vec<_>>>()?;
        let mut dst = guards
            .iter_mut()
            .map(Writable::bytes_mut)
            .collect::<PyResult<Vec<&mut [u8]>>>()?;
        py.detach(|| {
            guard(|| {
                self.execute(&plan, &a_t, skip_t.as_ref(), &mut dst)
                    .map_err(gpu_err)
            })
        })?;
        drop(dst);
        drop(guards);
        let mut it = arrays.into_iter().map(Bound::into_any);
        let y = it
            .next()
            .ok_or_else(|| value_err("the plan produced no Y"))?;
        one_or_pair(py, y, if residual { it.next() } else { None })
    }

    /// The plan a call with `rows` rows (`[batch, rows, K]` with `batch`) would run, as a dict:
    /// `variant`, `passes` (each with `dispatch`, `workgroup_size`, `bindings`), `outputs`,
    /// `intermediates`, `f16_accumulation`, and `verdicts` (every variant and, if rejected, the
    /// term that rejected it; with `explain=True` also why that term is false).
    #[pyo3(signature = (rows = 1, *, batch = None, skip = false, residual = false, explain = false))]
    fn plan<'py>(
        &self,
        py: Python<'py>,
        rows: usize,
        batch: Option<usize>,
        skip: bool,
        residual: bool,
        explain: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        explain_call(
            py,
            &self.rt,
            &self.shape_call(rows, batch, skip, residual),
            explain,
        )
    }

    /// GPU time of one call with `rows` rows, in microseconds: the median of `iters` runs timed
    /// with timestamp queries (each submitted alone, after a warm-up), on synthetic activations.
    /// Raises `GpuError` when the device has no timestamp queries.
    #[pyo3(signature = (rows = 1, iters = 20, *, skip = false, residual = false))]
    fn time(
        &self,
        py: Python<'_>,
        rows: usize,
        iters: usize,
        skip: bool,
        residual: bool,
    ) -> PyResult<f64> {
        if iters == 0 {
            return Err(value_err("iters must be > 0"));
        }
        let call = self.shape_call(rows, None, skip, residual);
        let plan = self.plan_of(&call)?;
        let a = call.inputs[0]
            .as_ref()
            .map(|i| Self::synthetic(i, 1))
            .ok_or_else(|| value_err("no activations"))?;
        let s = call.inputs[1].as_ref().map(|i| Self::synthetic(i, 2));
        let times = py.detach(|| {
            guard(|| {
                let rt = &self.rt;
                let run = || -> Result<Vec<f64>, GpuError> {
                    let a_dev = rt.upload_labeled(&a, "A")?;
                    let s_dev = s
                        .as_ref()
                        .map(|s| rt.upload_labeled(s, "skip"))
                        .transpose()?;
                    let outs = rt.alloc_outputs(&plan)?;
                    let ins = self.inputs(&a_dev, s_dev.as_ref());
                    let outs: Vec<Option<&GpuTensor>> = outs.iter().map(Option::as_ref).collect();
                    rt.time_plan(&plan, &ins, &outs, iters)
                };
                run().map_err(gpu_err)
            })
        })?;
        if times.is_empty() {
            return Err(value_err("nothing was timed"));
        }
        Ok(median(times))
    }

    /// Host timings of the Rust side on a cached plan, in microseconds per call (for
    /// `examples/host_overhead.py`): `call_us`, `reps` synchronous calls as `__call__` makes
    /// them but from Rust (plan lookup, write the activations, run, read back; no numpy
    /// conversion); `submit_us`, the Rust API's host cost per call (validate, record, submit;
    /// no wait: `Runtime::host_overhead_us`, bursts of 16; left empty with `submit=False`).
    /// Each measurement is preceded by one untimed call.
    #[pyo3(signature = (a, skip = None, *, reps = 1000, submit = true))]
    fn _host_timings<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        skip: Option<&Bound<'py, PyAny>>,
        reps: usize,
        submit: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let m = self.rt.planner().manifest();
        let a_t = input_tensor(m, 0, a)?;
        let skip_t = skip.map(|s| input_tensor(m, 1, s)).transpose()?;
        let call = self.call(a_t.info(), skip_t.as_ref().map(Tensor::info), false);
        let plan = self.plan_of(&call)?;
        let (call_us, submit_us) = py.detach(|| {
            guard(|| {
                let timed = || -> Result<(Vec<f64>, Vec<f64>), GpuError> {
                    let y_bytes = plan.outputs[0].shape.iter().product::<usize>()
                        * plan.outputs[0].dtype.size();
                    let mut y = vec![0u8; y_bytes];
                    let mut call_us = Vec::with_capacity(reps);
                    for _ in 0..=reps {
                        let t0 = Instant::now();
                        let plan = self.rt.plan(&call, &Tunables::new())?;
                        self.execute(&plan, &a_t, skip_t.as_ref(), &mut [&mut y])?;
                        call_us.push(t0.elapsed().as_secs_f64() * 1e6);
                    }
                    call_us.remove(0); // the first call may compile and allocate
                    if !submit {
                        return Ok((call_us, Vec::new()));
                    }
                    let s_info = skip_t.as_ref().map(Tensor::info);
                    let submit_us =
                        self.with_slot(&plan, &a_t.info(), s_info.as_ref(), |slot| {
                            let ins = self.inputs(&slot.a, slot.skip.as_ref());
                            let outs: Vec<Option<&GpuTensor>> =
                                slot.outs.iter().map(Option::as_ref).collect();
                            self.rt.host_overhead_us(&plan, &ins, &outs, reps)
                        })?;
                    Ok((call_us, submit_us))
                };
                timed().map_err(gpu_err)
            })
        })?;
        let d = PyDict::new(py);
        d.set_item("call_us", call_us)?;
        d.set_item("submit_us", submit_us)?;
        d.set_item("variant", plan.variant.clone())?;
        Ok(d)
    }

    /// Hidden size `K`.
    #[getter(K)]
    fn k(&self) -> i64 {
        self.k
    }
    /// Output size `N`.
    #[getter(N)]
    fn n(&self) -> i64 {
        self.n
    }
    /// Bits per weight code.
    #[getter]
    fn bits(&self) -> i64 {
        self.bits
    }
    /// Codes per quantization block.
    #[getter]
    fn block_size(&self) -> i64 {
        self.block_size
    }
    /// RMSNorm epsilon.
    #[getter]
    fn epsilon(&self) -> f64 {
        self.epsilon
    }
    /// The layer's float type (T1): `"float16"` or `"float32"`.
    #[getter]
    fn dtype(&self) -> &'static str {
        self.dtype.name()
    }
    /// Whether the layer has `norm_scale` (RMSNorm before the projections).
    #[getter]
    fn has_norm(&self) -> bool {
        self.infos[2].is_some()
    }

    fn __repr__(&self) -> String {
        let opt = |i: usize, name: &str| {
            if self.infos[i].is_some() {
                format!(", {name}")
            } else {
                String::new()
            }
        };
        format!(
            "nbits_mlp.Mlp(K={}, N={}, bits={}, block_size={}, dtype={}{}{}{})",
            self.k,
            self.n,
            self.bits,
            self.block_size,
            self.dtype,
            opt(2, "norm_scale"),
            opt(5, "gate_bias"),
            opt(8, "up_bias")
        )
    }
}
