//! `Runtime` (one GPU adapter): a thin wrapper over `nbits_mlp_gpu::Runtime`, which creates
//! `Mlp` layers (`crate::mlp`) and explains plans; the plan-as-dict and planning-error helpers
//! both share.

use crate::arrays::input_tensor;
use crate::errors::{gpu_err, guard, map_err, plan_err, ref_err, value_err};
use crate::mlp::PyMlp;
use nbits_mlp_core::map::{map_lines, MapLine, MapRequest};
use nbits_mlp_core::op::node_attrs;
use nbits_mlp_core::plan::Verdict;
use nbits_mlp_core::{DType, MlpShape, OpCall, Plan, PlanError, Tensor, TensorInfo, Tunables};
use nbits_mlp_gpu::{list_adapters, parse_backends, AdapterSummary, GpuError, GpuOptions, Runtime};
use nbits_mlp_reference::mlp::{check_call, MlpAttrs, INPUT_NAMES};
use nbits_mlp_reference::RefError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex};

/// `float16` / `float32` (numpy's names, or the short ones) as a dtype; `ValueError` otherwise.
fn float_dtype(name: &str) -> PyResult<DType> {
    DType::from_name(name)
        .filter(|d| *d != DType::U8)
        .ok_or_else(|| value_err(format!("dtype: expected float16 or float32, got {name}")))
}

/// A JSON value as a Python object (through `json.loads`: dicts, lists, numbers, strings).
pub(crate) fn json_to_py<'py>(
    py: Python<'py>,
    v: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

/// A plan as a dict: the plan's JSON (`nbits-mlp plan --json` without the template contexts),
/// plus `f16_accumulation` and `ranges` (what the plan's float16 staging holds, one line per
/// kind, `op::describe_ranges`); with `verdicts`, those replace the plan's own (which do not say
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
        o.insert(
            "ranges".into(),
            nbits_mlp_core::op::describe_ranges(plan).into(),
        );
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
/// `vendor`, `device`, subgroup sizes, `features`, `limits` (WebGPU names) and `shader_cores`
/// (NVIDIA: the SM count; `None` where the driver does not say).
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
    /// `tunables`: the manifest's tunables to override for every call of this layer, e.g.
    /// `{"MMA_PAIRS": 2}` (the CLI's `--tunable`; `nbits-mlp tune --dry-run` lists them with
    /// their candidates, `docs/DESIGN.md` says what each does): how kernel authors try another
    /// form of a kernel from Python. Without them the defaults apply (and a tuning cache, where
    /// the runtime has one).
    ///
    /// Raises `ValueError` (with the CLI's message, naming the tensor, attribute or tunable at
    /// fault) for bad shapes, dtypes, attributes or tunables.
    #[pyo3(signature = (
        gate_B, gate_scales, up_B, up_scales, *, K, N = None, bits = 4, block_size,
        norm_scale = None, gate_bias = None, up_bias = None, epsilon = 1e-5, tunables = None
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
        tunables: Option<Tunables>,
    ) -> PyResult<PyMlp> {
        let tunables = tunables.unwrap_or_default();
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
        let attrs = node_attrs(K, n, bits, block_size, Some(epsilon));
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
        let probe = OpCall::from_infos(attrs.clone(), probe, &[true, false]);
        if let Err(e) = guard(|| Ok(self.rt.plan(&probe, &tunables)))? {
            if e.is_caller_error() {
                return Err(gpu_err(e));
            }
            if let Some(reason) = reference_check(&probe) {
                return Err(ref_err(reason));
            }
        }
        // Non-finite scales, biases or norm_scale are refused, as every backend refuses them
        // (the device tensors are not read back later).
        let refs: Vec<Option<&Tensor>> = host.iter().map(Option::as_ref).collect();
        nbits_mlp_gpu::Runtime::check_parameters(&refs).map_err(gpu_err)?;
        let magnitudes = nbits_mlp_core::op::Magnitudes::of_parameters(&refs);
        // Kept on the host for the float16 sums' range of each call's normalised rows.
        let norm_scale = host.get(2).cloned().flatten();
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
            tunables,
            magnitudes,
            norm_scale,
            slots: Mutex::new(Vec::new()),
        })
    }

    /// The plan for a call of this shape on this device, as a dict (`variant`, `passes` with
    /// their `dispatch`, workgroup sizes and bindings, `outputs`, `intermediates`,
    /// `f16_accumulation`) with `verdicts`: every variant, whether it applies, and if not, the
    /// first rejecting term and why (`nbits-mlp plan --shape ... --explain`). No weights
    /// needed. `tunables` as for `mlp`. Raises (as the CLI) when the call is invalid or no
    /// variant applies.
    #[pyo3(signature = (
        *, K, N, rows = 1, batch = None, dtype = "float16", bits = 4, block_size = 32,
        skip = false, norm = false, residual = false, gate_bias = false, up_bias = false,
        tunables = None
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
        bits: u32,
        block_size: usize,
        skip: bool,
        norm: bool,
        residual: bool,
        gate_bias: bool,
        up_bias: bool,
        tunables: Option<Tunables>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let shape = MlpShape {
            k: K,
            n: N,
            lead: batch.map_or(vec![rows], |b| vec![b, rows]),
            dtype: float_dtype(dtype)?,
            bits,
            block_size,
            skip,
            norm,
            residual,
            gate_bias,
            up_bias,
        };
        explain_call(
            py,
            &self.rt,
            &shape.call(),
            true,
            &tunables.unwrap_or_default(),
        )
    }

    /// The kernel map of a shape on this device (`nbits-mlp map`): the row counts of `rows`
    /// (ascending after sorting; default 1-512) grouped into spans that take one kernel, as a
    /// list of dicts `{first, last, variant, family, passes: [{id, threads, min_workgroups,
    /// max_workgroups}], form}` (`form`, the tensor-core tile's form, only for the `mma` and
    /// `mmap` families). A span ends where the variant changes, a pass appears, disappears or
    /// changes its workgroup size, or the tile's form changes. The other arguments as for
    /// `explain` (no `batch`: the rows are rank 2). `why=True` adds to each span but the first a
    /// `why`: the rule that moved the boundary (`nbits-mlp map --why`). Raises `ValueError`
    /// naming the row count whose call is invalid.
    #[pyo3(signature = (
        *, K, N, rows = None, dtype = "float16", bits = 4, block_size = 32, skip = false,
        norm = false, residual = false, gate_bias = false, up_bias = false, tunables = None,
        why = false
    ))]
    #[allow(non_snake_case, clippy::too_many_arguments)]
    fn map<'py>(
        &self,
        py: Python<'py>,
        K: usize,
        N: usize,
        rows: Option<Bound<'py, PyAny>>,
        dtype: &str,
        bits: u32,
        block_size: usize,
        skip: bool,
        norm: bool,
        residual: bool,
        gate_bias: bool,
        up_bias: bool,
        tunables: Option<Tunables>,
        why: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let rows = row_list(rows.as_ref())?;
        let shape = MlpShape {
            k: K,
            n: N,
            lead: vec![1],
            dtype: float_dtype(dtype)?,
            bits,
            block_size,
            skip,
            norm,
            residual,
            gate_bias,
            up_bias,
        };
        let request = MapRequest {
            lines: vec![(format!("K={K} N={N}"), shape)],
            rows,
            tunables: tunables.unwrap_or_default(),
            why,
        };
        let mut lines = map_request(py, &self.rt, &request)?;
        json_to_py(
            py,
            &serde_json::to_value(lines.remove(0).spans).map_err(|e| value_err(e.to_string()))?,
        )
    }

    /// The kernel map of each distinct MatMulNBitsMlp node of an ONNX model (a fused LLM, as
    /// `fuse` writes it) on this device (`nbits-mlp map MODEL.onnx`): a list of dicts, one per
    /// node shape, `{model: "node 'NAME' and 15 more like it", k, n, dtype, form, bits,
    /// block_size, gate_bias, up_bias, spans}`, spans as `map` gives them. Raises `ValueError`
    /// for a model without such nodes or with a malformed one (naming it).
    #[pyo3(signature = (path, *, rows = None, tunables = None, why = false))]
    fn map_model<'py>(
        &self,
        py: Python<'py>,
        path: std::path::PathBuf,
        rows: Option<Bound<'py, PyAny>>,
        tunables: Option<Tunables>,
        why: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let rows = row_list(rows.as_ref())?;
        let lines = py
            .detach(|| nbits_mlp_fuse::distinct_mlp_shapes(&path))
            .map_err(|e| value_err(e.to_string()))?;
        let request = MapRequest {
            lines,
            rows,
            tunables: tunables.unwrap_or_default(),
            why,
        };
        let lines = map_request(py, &self.rt, &request)?;
        json_to_py(
            py,
            &serde_json::to_value(&lines).map_err(|e| value_err(e.to_string()))?,
        )
    }

    fn __repr__(&self) -> String {
        let i = self.rt.gpu().info();
        format!(
            "nbits_mlp.Runtime(adapter={:?}, backend={:?}, type={:?})",
            i.name, i.backend, i.device_type
        )
    }
}

/// `rows=` of `map` / `map_model`: 1-512 when not given, else the counts of any iterable
/// (each from 1 to `MAX_MAP_ROWS`, at most that many: read one by one, so a huge range is
/// refused before it is held) ascending without repeats.
fn row_list(rows: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<usize>> {
    const MAX: usize = nbits_mlp_core::map::MAX_MAP_ROWS;
    let Some(rows) = rows else {
        return Ok((1..=512).collect());
    };
    let mut out = Vec::new();
    for item in rows.try_iter()? {
        let r: i64 = item?.extract()?;
        let r = usize::try_from(r)
            .ok()
            .filter(|r| (1..=MAX).contains(r))
            .ok_or_else(|| value_err(format!("rows: {r} is not a row count from 1 to {MAX}")))?;
        if out.len() == MAX {
            return Err(value_err(format!("rows: more than {MAX} row counts")));
        }
        out.push(r);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// A kernel map on the runtime's planner, every core planning, the GIL released.
fn map_request(py: Python<'_>, rt: &Runtime, request: &MapRequest) -> PyResult<Vec<MapLine>> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    py.detach(|| guard(|| map_lines(rt.planner(), request, threads, &|| {}).map_err(map_err)))
}

/// The plan of `call` with `tunables` as a dict, with explained verdicts when `explain`.
pub(crate) fn explain_call<'py>(
    py: Python<'py>,
    rt: &Arc<Runtime>,
    call: &OpCall,
    explain: bool,
    tunables: &Tunables,
) -> PyResult<Bound<'py, PyAny>> {
    let (plan, verdicts) = py.detach(|| {
        guard(|| {
            let verdicts = if explain {
                Some(rt.planner().explain(call, tunables).map_err(plan_err)?)
            } else {
                None
            };
            let plan = plan_or_reason(rt, call, tunables)?;
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
pub(crate) fn plan_or_reason(
    rt: &Runtime,
    call: &OpCall,
    tunables: &Tunables,
) -> PyResult<Arc<Plan>> {
    match rt.plan(call, tunables) {
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
