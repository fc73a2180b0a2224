//! `Mlp` (one layer's weights on a `Runtime`, callable on activations): weights are uploaded
//! once; each call writes the activations into device tensors kept per plan, runs the cached
//! plan, and reads the outputs back, with the GIL released while the GPU works.

use crate::arrays::{check_out, input_tensor, new_array, one_or_pair, Writable};
use crate::errors::{gpu_err, guard, value_err};
use crate::runtime::{explain_call, plan_or_reason};
use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, DType, OpCall, Plan, Tensor, TensorInfo, Tunables};
use nbits_mlp_gpu::{GpuError, GpuTensor, Runtime};
use numpy::PyUntypedArray;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// Device tensors an `Mlp` keeps per plan (call shape), most recently used first.
const SLOTS: usize = 4;

/// Device tensors for one plan: the activations' inputs, the outputs, and host tensors the
/// outputs are read back into (reused across calls).
pub(crate) struct Slot {
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
    pub(crate) rt: Arc<Runtime>,
    pub(crate) attrs: IndexMap<String, AttrValue>,
    pub(crate) k: i64,
    pub(crate) n: i64,
    pub(crate) bits: i64,
    pub(crate) block_size: i64,
    pub(crate) epsilon: f64,
    /// T1: the scales' type.
    pub(crate) dtype: DType,
    /// Device tensors of the inputs given at creation, ONNX order (`A` and `skip` are `None`).
    pub(crate) weights: Vec<Option<GpuTensor>>,
    /// Their descriptions.
    pub(crate) infos: Vec<Option<TensorInfo>>,
    /// The tunables every call is planned with (`Runtime.mlp(..., tunables=...)`).
    pub(crate) tunables: Tunables,
    /// The parameters' largest magnitudes (from the upload), for the range of the kernels'
    /// float16 staging (`op::values_fault`).
    pub(crate) magnitudes: nbits_mlp_core::op::Magnitudes,
    /// `norm_scale` on the host (when the layer has it), for the float16 sums' range of the
    /// normalised rows.
    pub(crate) norm_scale: Option<Tensor>,
    /// Per-plan device tensors, most recently used first.
    pub(crate) slots: Mutex<Vec<Slot>>,
}

impl PyMlp {
    /// The call for activations `a` (and `skip`), requesting the residual output when asked.
    fn call(&self, a: TensorInfo, skip: Option<TensorInfo>, residual: bool) -> OpCall {
        let mut infos = self.infos.clone();
        infos[0] = Some(a);
        infos[1] = skip;
        OpCall::from_infos(self.attrs.clone(), infos, &[true, residual])
    }

    fn plan_of(&self, call: &OpCall) -> PyResult<Arc<Plan>> {
        guard(|| plan_or_reason(&self.rt, call, &self.tunables))
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
        // Values past what a kernel's float16 staging holds take other kernels (as the GPU
        // runtime's `run` does).
        let plan = nbits_mlp_core::op::plan_for_values(
            self.plan_of(&call)?,
            &self.tunables,
            |p| {
                // The parameters' magnitudes from the upload, A's read here.
                let m = nbits_mlp_core::op::Magnitudes::read(
                    p,
                    |i| match i {
                        0 => Some(a_t.max_finite_abs()),
                        _ => self.magnitudes.of_input(i),
                    },
                    || {
                        nbits_mlp_core::op::ActivationRange::of_plan(
                            p,
                            &a_t,
                            skip_t.as_ref(),
                            self.norm_scale.as_ref(),
                        )
                    },
                );
                nbits_mlp_core::op::values_fault(p, &m)
            },
            |t| guard(|| plan_or_reason(&self.rt, &call, t)),
        )?;
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
    /// `intermediates`, `f16_accumulation`, `ranges` (what its float16 staging holds of a
    /// call's values, one line per kind; calls past them are planned without such kernels), and
    /// `verdicts` (every variant and, if rejected, the term that rejected it; with
    /// `explain=True` also why that term is false).
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
            &self.tunables,
        )
    }

    /// What the driver compiles the passes of a call with `rows` rows to, as a dict: `adapter`,
    /// `cores` (`sm_count`, `warps_per_sm`: NVIDIA's, else None), `passes` (each `pass`,
    /// `checks` and `executables` with `subgroup_size` and the driver's `statistics`, e.g.
    /// NVIDIA's `Register Count`), and `note`, which says why `passes` is empty where the driver
    /// reports nothing (not Vulkan, or no VK_KHR_pipeline_executable_properties, as lavapipe).
    #[pyo3(signature = (rows = 1, *, batch = None, skip = false, residual = false))]
    fn compiled<'py>(
        &self,
        py: Python<'py>,
        rows: usize,
        batch: Option<usize>,
        skip: bool,
        residual: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let plan = self.plan_of(&self.shape_call(rows, batch, skip, residual))?;
        let report =
            nbits_mlp_gpu::compiled::driver_report(self.rt.gpu(), self.rt.profile(), &plan)
                .map_err(gpu_err)?;
        let v = serde_json::to_value(&report).map_err(|e| value_err(e.to_string()))?;
        crate::runtime::json_to_py(py, &v)
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
    /// The tunables every call is planned with (`Runtime.mlp(..., tunables=...)`), a new dict.
    #[getter]
    fn tunables(&self) -> Tunables {
        self.tunables.clone()
    }

    fn __repr__(&self) -> String {
        let opt = |i: usize, name: &str| {
            if self.infos[i].is_some() {
                format!(", {name}")
            } else {
                String::new()
            }
        };
        let tunables = if self.tunables.is_empty() {
            String::new()
        } else {
            format!(", tunables={:?}", self.tunables)
        };
        format!(
            "nbits_mlp.Mlp(K={}, N={}, bits={}, block_size={}, dtype={}{}{}{}{tunables})",
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
