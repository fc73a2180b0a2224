//! The runtime: plans, pipelines, buffers, runs and timing on one [`Gpu`].
//!
//! Two ways to run a plan:
//!
//! - host API ([`Runtime::run`], [`Runtime::run_plan`]): host tensors in, host tensors out;
//!   uploads, one command encoder, one submission, read-back;
//! - device API ([`Runtime::upload`], [`Runtime::alloc`], [`Runtime::run_on_device`],
//!   [`Runtime::download`]): tensors stay on the device, a run records and submits only.
//!
//! Everything a plan needs besides the caller's tensors is cached: pipelines per (WGSL, layout),
//! uniform buffers per plan, and intermediates from a buffer pool.

use crate::bind_cache::{key_hash, BindGroupCache};
use crate::error::{GpuError, Scopes};
use crate::gpu::{limit_is_minimum, Gpu, GpuOptions};
use crate::pipeline::{CompiledPass, PipelineCache};
use crate::pool::{BufferPool, PoolStats, READBACK, STORAGE};
use indexmap::IndexMap;
use nbits_mlp_core::device::WEBGPU_DEFAULT_LIMITS;
use nbits_mlp_core::manifest::BufferKind;
use nbits_mlp_core::plan::{BindingPlan, IntermediatePlan, PassPlan, Resource};
use nbits_mlp_core::{
    AttrValue, DeviceProfile, OpCall, Plan, Planner, Tensor, TensorInfo, Tunables,
};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use wgpu::util::DeviceExt as _;

mod prepared;

/// Idle bytes the buffer pool keeps at most.
const POOL_MAX_FREE_BYTES: u64 = 1 << 30;
/// Largest read-back buffer [`Runtime::download_into`] packs several tensors into.
const STAGING_CHUNK: u64 = 16 << 20;
/// One set of device tensors for a run: inputs and outputs, ONNX order.
pub type TensorSet<'a> = (&'a [Option<&'a GpuTensor>], &'a [Option<&'a GpuTensor>]);
/// One run of [`Runtime::run_many`]: a plan, its inputs and its outputs (device tensors, ONNX
/// order, as [`Runtime::run_on_device`] takes them).
pub type PlanRun<'a> = (
    &'a Plan,
    &'a [Option<&'a GpuTensor>],
    &'a [Option<&'a GpuTensor>],
);

/// Options of a host run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Fill every output buffer with 0xFF bytes (a NaN in f32 and f16) before the run, so a test
    /// can check that every element was written.
    pub poison: bool,
}

/// What a host run returns.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// The plan that ran.
    pub plan: Arc<Plan>,
    /// Outputs in ONNX order (`Y`, `input_skip_bias_sum`), `None` where not produced.
    pub outputs: Vec<Option<Tensor>>,
}

/// A tensor in a device buffer: the buffer holds at least `max(4, bytes rounded up to 4)` bytes,
/// the tensor's little-endian elements first.
#[derive(Clone, Debug)]
pub struct GpuTensor {
    buffer: wgpu::Buffer,
    info: TensorInfo,
    /// Prepared copies of the tensor for kernels that read another weight layout
    /// (`prepared`), shared by the tensor's clones.
    prepared: prepared::PreparedCopies,
}

impl GpuTensor {
    /// Wraps an existing buffer; it must have STORAGE usage (COPY_SRC to be downloaded,
    /// COPY_DST to be poisoned) and hold at least `max(4, bytes rounded up to 4)` bytes.
    pub fn from_buffer(buffer: wgpu::Buffer, info: TensorInfo) -> Result<GpuTensor, GpuError> {
        let need = padded(tensor_bytes(&info));
        if buffer.size() < need || !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
            return Err(GpuError::Tensor {
                what: describe(&info),
                message: format!(
                    "the buffer ({} bytes, {:?}) must hold {need} bytes and have STORAGE usage",
                    buffer.size(),
                    buffer.usage()
                ),
            });
        }
        Ok(GpuTensor {
            buffer,
            info,
            prepared: Default::default(),
        })
    }
    /// The buffer.
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }
    /// Dtype and shape.
    pub fn info(&self) -> &TensorInfo {
        &self.info
    }
    /// Bytes of the elements (`numel * dtype size`, before padding).
    pub fn bytes(&self) -> u64 {
        tensor_bytes(&self.info)
    }
}

/// How long [`Runtime::time_plan_sets`] keeps the GPU busy with untimed runs before it times:
/// long enough for a GPU that was idle to raise its clocks (on the H200, spans timed after a few
/// seconds of host work read up to twice the time of the same kernel timed after sustained load).
pub const TIMING_WARMUP: std::time::Duration = std::time::Duration::from_millis(300);

/// Calls per burst in [`Runtime::host_overhead_us`] (the layers of one step of a 16-layer stack).
pub const HOST_BURST: usize = 16;

/// Counters of a runtime, for tests and diagnostics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuntimeStats {
    /// Compiled pipelines.
    pub pipelines: usize,
    /// Plans prepared (pipelines resolved, uniform buffers written).
    pub prepared_plans: usize,
    /// Buffer pool counters.
    pub pool: PoolStats,
}

fn tensor_bytes(info: &TensorInfo) -> u64 {
    info.numel() as u64 * info.dtype.size() as u64
}

/// Bytes of a buffer (or binding) for `bytes` of data: rounded up to 4, at least 4.
fn padded(bytes: u64) -> u64 {
    bytes.div_ceil(4).max(1) * 4
}

fn describe(info: &TensorInfo) -> String {
    format!("tensor {} {:?}", info.dtype, info.shape)
}

/// A caller's tensor as a pass binds it.
#[derive(Clone, Copy)]
struct Arg<'a> {
    buffer: &'a wgpu::Buffer,
    info: &'a TensorInfo,
}

fn device_args<'a>(ts: &[Option<&'a GpuTensor>]) -> Vec<Option<Arg<'a>>> {
    ts.iter()
        .map(|t| {
            t.map(|t| Arg {
                buffer: &t.buffer,
                info: &t.info,
            })
        })
        .collect()
}

/// Args from buffers by slot (`None` where either the slot or the info is).
fn slot_args<'a>(
    buffers: &'a [wgpu::Buffer],
    slots: &[Option<usize>],
    infos: &'a [Option<TensorInfo>],
) -> Vec<Option<Arg<'a>>> {
    slots
        .iter()
        .zip(infos)
        .map(|(s, i)| {
            Some(Arg {
                buffer: &buffers[(*s)?],
                info: i.as_ref()?,
            })
        })
        .collect()
}

fn arg_infos<'a>(args: &[Option<Arg<'a>>]) -> Vec<Option<&'a TensorInfo>> {
    args.iter().map(|a| a.map(|a| a.info)).collect()
}

fn infos_of(infos: &[Option<TensorInfo>]) -> Vec<Option<&TensorInfo>> {
    infos.iter().map(Option::as_ref).collect()
}

/// Whether an active pass of the plan binds input `index`.
fn binds_input(plan: &Plan, index: usize) -> bool {
    plan.active_passes()
        .flat_map(|p| &p.bindings)
        .any(|b| matches!(b.resource, Resource::Input { index: i, .. } if i == index))
}

/// A plan with everything bound: what [`Runtime::encode`] records.
#[derive(Clone, Copy)]
struct Bound<'a> {
    plan: &'a Plan,
    prep: &'a Prepared,
    inputs: &'a [Option<Arg<'a>>],
    /// The prepared copies of inputs the plan binds (`Resource::Prepared`).
    prepared: &'a [prepared::PreparedBinding],
    outputs: &'a [Option<Arg<'a>>],
    scratch: &'a [wgpu::Buffer],
}

/// A pass for messages: `pass \`main\` (template \`t\`; bindings 0=input 0 \`A\`, ...)`.
fn pass_name(pass: &PassPlan) -> String {
    let names: Vec<String> = pass
        .bindings
        .iter()
        .map(|b| format!("{}={}", b.binding, resource_name(&b.resource)))
        .collect();
    format!(
        "pass `{}` (template `{}`; bindings {})",
        pass.id,
        pass.shader,
        names.join(", ")
    )
}

/// Everything about a plan that does not depend on the caller's buffers.
struct Prepared {
    /// Unique per runtime (keys the bind group cache).
    id: u64,
    /// Label of the command encoder of a run: "plan `variant`".
    label: String,
    sig: PlanSig,
    /// Per pass of the plan; `None` for a skipped pass.
    passes: Vec<Option<PreparedPass>>,
}

struct PreparedPass {
    compiled: Arc<CompiledPass>,
    /// Per binding: the uniform buffer of a uniform binding.
    uniforms: Vec<Option<wgpu::Buffer>>,
    /// Label of the pass and its bind group: "pass `id` (template)".
    label: String,
}

/// What a prepared plan was prepared from, to recognise the same plan again. The shaders are
/// kept as the plan's own `Arc<str>`s: a call with the same plan (the planner's cached one) finds
/// its text by pointer, without comparing tens of KB of WGSL on every call; other plans are
/// compared byte by byte.
struct PlanSig {
    passes: Vec<PassSig>,
    intermediates: Vec<IntermediatePlan>,
}

/// [`PlanSig`]'s record of one pass.
struct PassSig {
    wgsl: Arc<str>,
    dispatch: [u32; 3],
    skipped: bool,
    bindings: Vec<BindingPlan>,
}

impl PlanSig {
    fn of(plan: &Plan) -> PlanSig {
        PlanSig {
            passes: plan
                .passes
                .iter()
                .map(|p| PassSig {
                    wgsl: p.wgsl.clone(),
                    dispatch: p.dispatch,
                    skipped: p.skipped,
                    bindings: p.bindings.clone(),
                })
                .collect(),
            intermediates: plan.intermediates.clone(),
        }
    }
    fn matches(&self, plan: &Plan) -> bool {
        self.intermediates == plan.intermediates
            && self.passes.len() == plan.passes.len()
            && self.passes.iter().zip(&plan.passes).all(|(a, p)| {
                a.dispatch == p.dispatch
                    && a.skipped == p.skipped
                    && (Arc::ptr_eq(&a.wgsl, &p.wgsl) || a.wgsl == p.wgsl)
                    && a.bindings == p.bindings
            })
    }
}

/// Bytes per thread below which [`par_copy`] copies on the calling thread.
const PAR_COPY_PIECE: usize = 1 << 20;

/// `dst.copy_from_slice(src)`, split over up to 8 scoped threads for large copies: reading a
/// large output back is otherwise bound by one core's memcpy (~10 GB/s), which at 128+ rows
/// costs more than the GPU's copy to host memory.
fn par_copy(dst: &mut [u8], src: &[u8]) {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8)
        .min(dst.len() / PAR_COPY_PIECE);
    if threads < 2 {
        dst.copy_from_slice(src);
        return;
    }
    let piece = dst.len().div_ceil(threads);
    std::thread::scope(|s| {
        for (d, c) in dst.chunks_mut(piece).zip(src.chunks(piece)) {
            s.spawn(move || d.copy_from_slice(c));
        }
    });
}

/// A cheap hash of a plan (full equality is checked by [`PlanSig::matches`]).
fn fingerprint(plan: &Plan) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    plan.variant.hash(&mut h);
    for p in &plan.passes {
        (&p.id, p.dispatch, p.skipped, p.wgsl.len(), p.bindings.len()).hash(&mut h);
        for b in &p.bindings {
            (b.binding, b.bytes).hash(&mut h);
        }
    }
    for i in &plan.intermediates {
        i.bytes.hash(&mut h);
    }
    h.finish()
}

/// What a binding is bound to, for messages: `input 3 \`gate_B\``.
fn resource_name(r: &Resource) -> String {
    match r {
        Resource::Input { index, onnx, .. } => format!("input {index} `{onnx}`"),
        Resource::Prepared {
            index,
            onnx,
            weights,
            ..
        } => format!(
            "input {index} `{onnx}` in the prepared layout {}",
            weights.layout
        ),
        Resource::Output { index, onnx, .. } => format!("output {index} `{onnx}`"),
        Resource::Scratch { id, .. } => format!("intermediate `{id}`"),
        Resource::Uniform { .. } => "uniforms".into(),
    }
}

fn binding_name(pass: &PassPlan, b: &BindingPlan) -> String {
    format!(
        "pass `{}` binding {} `{}` ({})",
        pass.id,
        b.binding,
        b.key,
        resource_name(&b.resource)
    )
}

/// Whether the plan has nothing to compute: every output it produces is empty.
fn nothing_to_do(plan: &Plan) -> bool {
    plan.outputs
        .iter()
        .filter(|o| o.present)
        .all(|o| o.shape.iter().product::<usize>() == 0)
}

/// An error of run `i` of [`Runtime::run_many`]: `run <i>: ` before what failed.
fn run_error(i: usize, e: GpuError) -> GpuError {
    let pre = |what: String| format!("run {i}: {what}");
    match e {
        GpuError::Validation { what, message } => GpuError::Validation {
            what: pre(what),
            message,
        },
        GpuError::Input {
            index,
            name,
            message,
        } => GpuError::Input {
            index,
            name,
            message: pre(message),
        },
        GpuError::Output {
            index,
            name,
            message,
        } => GpuError::Output {
            index,
            name,
            message: pre(message),
        },
        GpuError::InvalidPlan { variant, message } => GpuError::InvalidPlan {
            variant,
            message: pre(message),
        },
        GpuError::Internal { what, message } => GpuError::Internal {
            what: pre(what),
            message,
        },
        GpuError::OutOfMemory { what } => GpuError::OutOfMemory { what: pre(what) },
        GpuError::BufferTooLarge {
            what,
            bytes,
            limit_name,
            limit,
        } => GpuError::BufferTooLarge {
            what: pre(what),
            bytes,
            limit_name,
            limit,
        },
        other => other,
    }
}

/// Writes `data` at the start of `buffer`, zero-padding the last word.
fn write_padded(queue: &wgpu::Queue, buffer: &wgpu::Buffer, data: &[u8]) {
    let aligned = data.len() / 4 * 4;
    if aligned > 0 {
        queue.write_buffer(buffer, 0, &data[..aligned]);
    }
    if aligned < data.len() {
        let mut tail = [0u8; 4];
        tail[..data.len() - aligned].copy_from_slice(&data[aligned..]);
        queue.write_buffer(buffer, aligned as u64, &tail);
    }
}

/// Pooled buffers handed back to the pool when dropped.
struct Leased<'a> {
    pool: &'a BufferPool,
    buffers: Vec<wgpu::Buffer>,
}

impl Drop for Leased<'_> {
    fn drop(&mut self) {
        for b in self.buffers.drain(..) {
            self.pool.release(b);
        }
    }
}

/// Runs plans on one device. `Send + Sync`: share it between threads.
pub struct Runtime {
    gpu: Gpu,
    planner: Planner,
    pipelines: PipelineCache,
    prepared: Mutex<HashMap<u64, Vec<Arc<Prepared>>>>,
    /// Source of [`Prepared::id`].
    next_prepared_id: AtomicU64,
    /// Bind groups by prepared pass and bound buffers (see `crate::bind_cache`).
    bind_groups: Mutex<BindGroupCache>,
    pool: BufferPool,
    /// Tuned tunables applied to calls planned without overrides (see `crate::tuning`).
    pub(crate) tuning: Option<Arc<nbits_mlp_core::tuning::TuningCache>>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("adapter", &self.gpu.info().name)
            .field("profile", &self.planner.device().name)
            .finish()
    }
}

/// Checks that `profile` asks no more of the device than `device` (its granted profile) offers.
fn check_restriction(profile: &DeviceProfile, device: &DeviceProfile) -> Result<(), GpuError> {
    let err = |message: String| GpuError::Profile {
        profile: profile.name.clone(),
        message,
    };
    for name in WEBGPU_DEFAULT_LIMITS
        .iter()
        .map(|(k, _)| *k)
        .chain(profile.limits.keys().map(String::as_str))
    {
        let want = profile
            .limit(name)
            .ok_or_else(|| err(format!("unknown limit `{name}`")))?;
        let have = device
            .limit(name)
            .ok_or_else(|| err(format!("unknown limit `{name}`")))?;
        let ok = if limit_is_minimum(name) {
            want >= have
        } else {
            want <= have
        };
        if !ok {
            return Err(err(format!("{name} = {want}, the device granted {have}")));
        }
    }
    for f in &profile.features {
        if !device.has_feature(f) {
            return Err(err(format!("feature `{f}` was not granted")));
        }
    }
    Ok(())
}

/// A host tensor of `info`'s dtype and shape with no data (yet).
fn empty_host(info: &TensorInfo) -> Tensor {
    Tensor {
        dtype: info.dtype,
        shape: info.shape.clone(),
        data: Vec::new(),
    }
}

/// Timestamp writes for one recorded run: `begin` at the start of its first pass, `end` at the
/// end of its last pass (query indices in `set`).
struct Stamps<'a> {
    set: &'a wgpu::QuerySet,
    begin: Option<u32>,
    end: Option<u32>,
}

impl Runtime {
    /// A runtime planning for everything the device granted ([`Gpu::profile`]).
    pub fn new(gpu: Gpu) -> Runtime {
        let planner = Planner::project(gpu.profile());
        Runtime::build(gpu, planner)
    }

    /// Opens a device ([`Gpu::new`]) and a runtime on it.
    pub fn open(opts: &GpuOptions) -> Result<Runtime, GpuError> {
        Ok(Runtime::new(Gpu::new(opts)?))
    }

    /// A runtime planning for `profile` with the project's manifest and templates. The profile
    /// may restrict the device (fewer features, lower limits: e.g.
    /// `gpu.profile().without_feature("subgroups")`), never exceed it. The runtime also enforces
    /// the profile's buffer limits on uploads.
    pub fn with_profile(gpu: Gpu, profile: DeviceProfile) -> Result<Runtime, GpuError> {
        Runtime::with_planner(gpu, Planner::project(profile))
    }

    /// A runtime using a given planner (custom manifest or templates); its device profile must
    /// be a restriction of the device, as for [`Runtime::with_profile`].
    pub fn with_planner(gpu: Gpu, planner: Planner) -> Result<Runtime, GpuError> {
        check_restriction(planner.device(), &gpu.profile())?;
        Ok(Runtime::build(gpu, planner))
    }

    fn build(gpu: Gpu, planner: Planner) -> Runtime {
        Runtime {
            gpu,
            planner,
            pipelines: PipelineCache::default(),
            prepared: Mutex::new(HashMap::new()),
            next_prepared_id: AtomicU64::new(0),
            bind_groups: Mutex::new(BindGroupCache::default()),
            pool: BufferPool::new(POOL_MAX_FREE_BYTES),
            tuning: None,
        }
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }
    /// The planner.
    pub fn planner(&self) -> &Planner {
        &self.planner
    }
    /// The device profile plans are made for (the device's, or a restriction of it).
    pub fn profile(&self) -> &DeviceProfile {
        self.planner.device()
    }

    fn limit(&self, name: &str) -> u64 {
        self.profile().limit(name).unwrap_or(u64::MAX)
    }

    /// Counters: pipelines compiled, plans prepared, buffer pool.
    pub fn stats(&self) -> RuntimeStats {
        RuntimeStats {
            pipelines: self.pipelines.len(),
            prepared_plans: self
                .prepared
                .lock()
                .map(|m| m.values().map(Vec::len).sum())
                .unwrap_or(0),
            pool: self.pool.stats(),
        }
    }

    /// Drops every cached pipeline, prepared plan, bind group and idle pooled buffer. Cached
    /// bind groups keep the buffers they bind alive (at most 256 bind groups binding at most
    /// 1 GiB in all, least recently used evicted first); this releases them too.
    pub fn clear_caches(&self) {
        self.pipelines.clear();
        if let Ok(mut m) = self.prepared.lock() {
            m.clear();
        }
        if let Ok(mut c) = self.bind_groups.lock() {
            c.clear();
        }
        self.pool.trim();
    }

    // ---- planning ---------------------------------------------------------------------------

    /// The operator call for host tensors: their dtypes and shapes, the attributes as given,
    /// the outputs requested (ONNX order; output 0 is always produced).
    pub fn op_call(
        attrs: &IndexMap<String, AttrValue>,
        inputs: &[Option<&Tensor>],
        want_outputs: &[bool],
    ) -> OpCall {
        OpCall {
            attrs: attrs.clone(),
            inputs: inputs.iter().map(|t| t.map(Tensor::info)).collect(),
            outputs: want_outputs.to_vec(),
        }
    }

    /// The plan for `call` (cached by the planner). With no overrides, the tuned tunables of
    /// the call's class apply when a tuning cache is attached ([`Runtime::with_tuning`]).
    pub fn plan(&self, call: &OpCall, tunables: &Tunables) -> Result<Arc<Plan>, GpuError> {
        if tunables.is_empty() {
            if let Some(plan) = self.plan_tuned(call) {
                return Ok(plan);
            }
        }
        Ok(self.planner.plan(call, tunables)?)
    }

    // ---- host API ---------------------------------------------------------------------------

    /// Runs the operator on host tensors.
    ///
    /// `inputs` are in ONNX order (`A, skip, norm_scale, gate_B, gate_scales, gate_bias, up_B,
    /// up_scales, up_bias`), `None` for an omitted optional input, trailing ones may be left
    /// out: exactly what `nbits_mlp_reference::mlp::run` takes. `want_outputs` requests outputs
    /// in ONNX order (`[true, want_residual]`).
    pub fn run(
        &self,
        attrs: &IndexMap<String, AttrValue>,
        inputs: &[Option<&Tensor>],
        want_outputs: &[bool],
        tunables: &Tunables,
        opts: &RunOptions,
    ) -> Result<RunOutput, GpuError> {
        let plan = self.plan(&Runtime::op_call(attrs, inputs, want_outputs), tunables)?;
        let outputs = self.run_plan(&plan, inputs, opts)?;
        Ok(RunOutput { plan, outputs })
    }

    /// Runs a plan on host tensors (ONNX order, as [`Runtime::run`]): uploads the inputs the
    /// plan binds, records every pass that is not skipped in one command encoder, submits once,
    /// and reads the outputs back. Returns the outputs in ONNX order, `None` where the plan does
    /// not produce one. When every output is empty nothing runs.
    pub fn run_plan(
        &self,
        plan: &Plan,
        inputs: &[Option<&Tensor>],
        opts: &RunOptions,
    ) -> Result<Vec<Option<Tensor>>, GpuError> {
        self.gpu.check_lost()?;
        for (index, t) in inputs.iter().enumerate() {
            if let Some(t) = t {
                let want = tensor_bytes(&t.info());
                if t.data.len() as u64 != want {
                    return Err(self.input_error(
                        plan,
                        index,
                        format!(
                            "holds {} bytes, {} needs {want}",
                            t.data.len(),
                            describe(&t.info())
                        ),
                    ));
                }
            }
        }
        if let Some((index, name, message)) = nbits_mlp_core::op::non_finite_parameter(inputs) {
            return Err(GpuError::Input {
                index,
                name: name.into(),
                message,
            });
        }
        let out_infos: Vec<Option<TensorInfo>> = plan
            .outputs
            .iter()
            .map(|o| o.present.then(|| TensorInfo::new(o.dtype, o.shape.clone())))
            .collect();
        if nothing_to_do(plan) {
            return Ok(out_infos
                .iter()
                .map(|i| i.as_ref().map(empty_host))
                .collect());
        }
        let in_infos: Vec<Option<TensorInfo>> =
            inputs.iter().map(|t| t.map(Tensor::info)).collect();
        self.check_args(plan, &infos_of(&in_infos), &infos_of(&out_infos))?;
        let prep = self.prepare(plan)?;
        let device = self.gpu.device();
        let queue = self.gpu.queue();
        let max_buffer = self.limit("maxBufferSize");

        let scopes = Scopes::push(device);
        // Inputs the plan binds, uploaded into pooled buffers.
        let mut leased = Leased {
            pool: &self.pool,
            buffers: Vec::new(),
        };
        let mut in_slots: Vec<Option<usize>> = vec![None; inputs.len()];
        for (index, t) in inputs.iter().enumerate() {
            let Some(t) = t else { continue };
            if !binds_input(plan, index) {
                continue;
            }
            let what = || format!("input {index} ({})", describe(&t.info()));
            let b = self.pool.acquire(
                device,
                &self.gpu.events,
                padded(t.data.len() as u64),
                STORAGE,
                max_buffer,
                &what,
            )?;
            write_padded(queue, &b, &t.data);
            in_slots[index] = Some(leased.buffers.len());
            leased.buffers.push(b);
        }
        // Outputs in pooled buffers, poisoned on request.
        let mut out_slots: Vec<Option<usize>> = vec![None; out_infos.len()];
        for (index, info) in out_infos.iter().enumerate() {
            let Some(info) = info else { continue };
            let bytes = padded(tensor_bytes(info));
            let what = || format!("output {index} ({})", describe(info));
            let b =
                self.pool
                    .acquire(device, &self.gpu.events, bytes, STORAGE, max_buffer, &what)?;
            if opts.poison {
                queue.write_buffer(&b, 0, &vec![0xFF; bytes as usize]);
            }
            out_slots[index] = Some(leased.buffers.len());
            leased.buffers.push(b);
        }
        // Prepared copies of the inputs the plan reads in another layout, rearranged here.
        let mut prepared = Vec::new();
        for (index, weights, bytes, size) in self.host_prepared(plan, inputs)? {
            let what = || format!("input {index} in the prepared layout {}", weights.layout);
            let b =
                self.pool
                    .acquire(device, &self.gpu.events, size, STORAGE, max_buffer, &what)?;
            write_padded(queue, &b, &bytes);
            prepared.push(prepared::PreparedBinding {
                index,
                weights,
                buffer: b.clone(),
            });
            leased.buffers.push(b);
        }
        let ins = slot_args(&leased.buffers, &in_slots, &in_infos);
        let outs = slot_args(&leased.buffers, &out_slots, &out_infos);

        let scratch = self.acquire_scratch(plan)?;
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some(&prep.label),
        });
        let bound = Bound {
            plan,
            prep: &prep,
            inputs: &ins,
            prepared: &prepared,
            outputs: &outs,
            scratch: &scratch.buffers,
        };
        self.encode(&mut enc, &bound, None, None)?;
        // Read-back copies, in the same submission.
        let mut readback = Vec::new();
        for (index, a) in outs.iter().enumerate() {
            let Some(a) = a else { continue };
            let bytes = padded(tensor_bytes(a.info));
            let rb = self.pool.acquire(
                device,
                &self.gpu.events,
                bytes,
                READBACK,
                max_buffer,
                &|| format!("read-back of output {index}"),
            )?;
            enc.copy_buffer_to_buffer(a.buffer, 0, &rb, 0, bytes);
            readback.push((index, rb, bytes));
        }
        queue.submit([enc.finish()]);
        let popped = scopes.pop(&self.gpu.events, || {
            format!("running plan `{}`", plan.variant)
        });
        popped.map_err(|e| self.refine(&bound, e))?;
        drop(scratch);
        let items: Vec<(&wgpu::Buffer, u64)> = readback.iter().map(|(_, b, n)| (b, *n)).collect();
        let data = self.read_back(&items, &|i| format!("output {}", readback[i].0))?;
        let mut outputs: Vec<Option<Tensor>> = vec![None; plan.outputs.len()];
        for ((index, rb, _), mut bytes) in readback.into_iter().zip(data) {
            self.pool.release(rb);
            if let Some(info) = &out_infos[index] {
                bytes.truncate(tensor_bytes(info) as usize);
                outputs[index] = Some(Tensor {
                    dtype: info.dtype,
                    shape: info.shape.clone(),
                    data: bytes,
                });
            }
        }
        Ok(outputs)
    }

    fn input_error(&self, plan: &Plan, index: usize, message: String) -> GpuError {
        let name = plan
            .passes
            .iter()
            .flat_map(|p| &p.bindings)
            .find_map(|b| match &b.resource {
                Resource::Input { index: i, onnx, .. }
                | Resource::Prepared { index: i, onnx, .. }
                    if *i == index =>
                {
                    Some(onnx.clone())
                }
                _ => None,
            })
            .unwrap_or_else(|| format!("#{index}"));
        GpuError::Input {
            index,
            name,
            message,
        }
    }

    // ---- device API -------------------------------------------------------------------------

    fn check_tensor_size(
        &self,
        what: &dyn Fn() -> String,
        info: &TensorInfo,
    ) -> Result<u64, GpuError> {
        let bytes = padded(tensor_bytes(info));
        for name in ["maxBufferSize", "maxStorageBufferBindingSize"] {
            let limit = self.limit(name);
            if bytes > limit {
                return Err(GpuError::BufferTooLarge {
                    what: what(),
                    bytes,
                    limit_name: name,
                    limit,
                });
            }
        }
        Ok(bytes)
    }

    fn create_tensor_buffer(
        &self,
        what: &dyn Fn() -> String,
        info: &TensorInfo,
        data: Option<&[u8]>,
    ) -> Result<GpuTensor, GpuError> {
        self.gpu.check_lost()?;
        let bytes = self.check_tensor_size(what, info)?;
        let device = self.gpu.device();
        let scopes = Scopes::push(device);
        let label = what();
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&label),
            size: bytes,
            usage: STORAGE,
            mapped_at_creation: false,
        });
        if let Some(d) = data {
            write_padded(self.gpu.queue(), &buffer, d);
        }
        scopes.pop(&self.gpu.events, || {
            format!("creating the buffer of {label}")
        })?;
        Ok(GpuTensor {
            buffer,
            info: info.clone(),
            prepared: Default::default(),
        })
    }

    /// Uploads a host tensor into a new device buffer (zero-padded to a multiple of 4 bytes).
    /// Errors if it exceeds the profile's maxBufferSize or maxStorageBufferBindingSize.
    pub fn upload(&self, t: &Tensor) -> Result<GpuTensor, GpuError> {
        self.upload_labeled(t, &describe(&t.info()))
    }

    /// [`Runtime::upload`] with a label naming the tensor in errors and in wgpu's messages.
    pub fn upload_labeled(&self, t: &Tensor, label: &str) -> Result<GpuTensor, GpuError> {
        let info = t.info();
        if t.data.len() as u64 != tensor_bytes(&info) {
            return Err(GpuError::Tensor {
                what: label.into(),
                message: format!(
                    "holds {} bytes, {} needs {}",
                    t.data.len(),
                    describe(&info),
                    tensor_bytes(&info)
                ),
            });
        }
        self.create_tensor_buffer(&|| label.to_string(), &info, Some(&t.data))
    }

    /// A new zero-filled device tensor.
    pub fn alloc(&self, info: TensorInfo) -> Result<GpuTensor, GpuError> {
        let label = describe(&info);
        self.create_tensor_buffer(&|| label.clone(), &info, None)
    }

    /// Device tensors for every output the plan produces (ONNX order, `None` where not).
    pub fn alloc_outputs(&self, plan: &Plan) -> Result<Vec<Option<GpuTensor>>, GpuError> {
        plan.outputs
            .iter()
            .map(|o| {
                if !o.present {
                    return Ok(None);
                }
                let info = TensorInfo::new(o.dtype, o.shape.clone());
                let label = format!("output {} `{}` ({})", o.index, o.onnx, describe(&info));
                self.create_tensor_buffer(&|| label.clone(), &info, None)
                    .map(Some)
            })
            .collect()
    }

    /// Fills a device tensor's buffer with `byte` (0xFF: NaN poison).
    pub fn fill(&self, t: &GpuTensor, byte: u8) -> Result<(), GpuError> {
        let scopes = Scopes::push(self.gpu.device());
        self.gpu
            .queue()
            .write_buffer(&t.buffer, 0, &vec![byte; padded(t.bytes()) as usize]);
        self.gpu.queue().submit([]);
        scopes.pop(&self.gpu.events, || {
            format!("filling {}", describe(&t.info))
        })
    }

    /// Reads a device tensor back (waits for all work submitted before).
    pub fn download(&self, t: &GpuTensor) -> Result<Tensor, GpuError> {
        let mut out = empty_host(&t.info);
        self.download_into(&[t], std::slice::from_mut(&mut out))?;
        Ok(out)
    }

    /// Reads several device tensors back, in the order given (empty tensors with no data),
    /// with one copy submission and one wait ([`Runtime::download_into`] into new host
    /// tensors). For outputs read back again and again, [`Runtime::download_into`] with host
    /// tensors that live across calls avoids allocating and first-touching fresh memory, which
    /// dominates for large outputs (16 x 14.7 MB: 250 ms fresh vs 100 ms reused on lavapipe).
    pub fn download_many(&self, tensors: &[&GpuTensor]) -> Result<Vec<Tensor>, GpuError> {
        let mut out: Vec<Tensor> = tensors.iter().map(|t| empty_host(&t.info)).collect();
        self.download_into(tensors, &mut out)?;
        Ok(out)
    }

    /// Reads device tensors back into existing host tensors (`dst[i]` gets `src[i]`: dtype,
    /// shape and data replaced, the data's allocation reused when it is large enough), with one
    /// copy submission and one wait: tensors are packed into pooled read-back buffers of at
    /// most 16 MiB (a larger tensor gets its own). For outputs read back again and again (a
    /// decode loop), this avoids allocating and first-touching fresh host memory on every call.
    /// Waits for all work submitted before. On error the host tensors' contents are
    /// unspecified (their count must match `src`, checked first, which leaves them alone).
    pub fn download_into(&self, src: &[&GpuTensor], dst: &mut [Tensor]) -> Result<(), GpuError> {
        if src.len() != dst.len() {
            return Err(GpuError::Tensor {
                what: "download_into".into(),
                message: format!(
                    "{} device tensors but {} host tensors",
                    src.len(),
                    dst.len()
                ),
            });
        }
        self.gpu.check_lost()?;
        let device = self.gpu.device();
        // Tensors are packed into read-back buffers of at most STAGING_CHUNK bytes (a larger
        // tensor gets its own): one copy submission, one wait, every chunk mapped once.
        let mut place: Vec<Option<(usize, u64)>> = Vec::with_capacity(src.len());
        let mut chunks: Vec<u64> = Vec::new();
        for t in src {
            if t.bytes() == 0 {
                place.push(None);
                continue;
            }
            let n = padded(t.bytes());
            let last = chunks.len().wrapping_sub(1);
            match chunks.last_mut() {
                Some(size) if *size + n <= STAGING_CHUNK => {
                    place.push(Some((last, *size)));
                    *size += n;
                }
                _ => {
                    place.push(Some((chunks.len(), 0)));
                    chunks.push(n);
                }
            }
        }
        for (t, out) in src.iter().zip(dst.iter_mut()) {
            out.dtype = t.info.dtype;
            out.shape.clone_from(&t.info.shape);
            let bytes = t.bytes() as usize;
            if out.data.capacity() < bytes {
                // Zeroed by the allocator (no separate fill of memory about to be overwritten).
                out.data = vec![0; bytes];
            } else {
                out.data.resize(bytes, 0);
            }
        }
        if chunks.is_empty() {
            return Ok(());
        }
        // Errors name the tensors of the read-back buffer at fault.
        let what = |c: usize| {
            let mut held = src
                .iter()
                .zip(&place)
                .filter(|(_, p)| matches!(p, Some((pc, _)) if *pc == c));
            let first = held
                .next()
                .map(|(t, _)| describe(&t.info))
                .unwrap_or_default();
            match held.count() {
                0 => format!("download of {first}"),
                more => format!("download of {first} and {more} more tensors"),
            }
        };
        let max = self.limit("maxBufferSize");
        let mut staging = Vec::with_capacity(chunks.len());
        for (i, &n) in chunks.iter().enumerate() {
            staging.push(self.pool.acquire(
                device,
                &self.gpu.events,
                n,
                READBACK,
                max.max(n),
                &|| what(i),
            )?);
        }
        let scopes = Scopes::push(device);
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("download_into"),
        });
        for (t, p) in src.iter().zip(&place) {
            if let Some((c, off)) = *p {
                enc.copy_buffer_to_buffer(&t.buffer, 0, &staging[c], off, padded(t.bytes()));
            }
        }
        self.gpu.queue().submit([enc.finish()]);
        let popped = scopes.pop(&self.gpu.events, || match src {
            [t] => format!("download of {}", describe(&t.info)),
            _ => format!("downloading {} tensors", src.len()),
        });
        let read = popped.and_then(|()| {
            let items: Vec<(&wgpu::Buffer, u64)> =
                staging.iter().zip(&chunks).map(|(b, n)| (b, *n)).collect();
            self.read_back_each(&items, &what, &mut |c, data| {
                for (p, out) in place.iter().zip(dst.iter_mut()) {
                    if let Some((pc, off)) = *p {
                        if pc == c {
                            let off = off as usize;
                            let len = out.data.len();
                            par_copy(&mut out.data, &data[off..off + len]);
                        }
                    }
                }
            })
        });
        for rb in staging {
            self.pool.release(rb);
        }
        read
    }

    /// Overwrites a device tensor with a host tensor of the same dtype and shape (zero-padded
    /// to a multiple of 4 bytes), through the queue: ordered before every later submission,
    /// nothing submitted, no wait. The device tensor's buffer needs COPY_DST usage (every
    /// tensor this runtime creates has it).
    pub fn write_tensor(&self, dst: &GpuTensor, src: &Tensor) -> Result<(), GpuError> {
        self.gpu.check_lost()?;
        let info = src.info();
        if info != dst.info || src.data.len() as u64 != tensor_bytes(&info) {
            return Err(GpuError::Tensor {
                what: describe(&dst.info),
                message: format!(
                    "cannot be overwritten by {} holding {} bytes",
                    describe(&info),
                    src.data.len()
                ),
            });
        }
        if src.data.is_empty() {
            return Ok(());
        }
        let scopes = Scopes::push(self.gpu.device());
        write_padded(self.gpu.queue(), &dst.buffer, &src.data);
        // The tensor's prepared copies were made from its old bytes.
        dst.prepared.clear();
        scopes.pop(&self.gpu.events, || {
            format!("writing {}", describe(&dst.info))
        })
    }

    /// Records and submits a plan on device tensors, without waiting and without any host
    /// round trip. `inputs` and `outputs` are in ONNX order; each must match what the plan was
    /// made for (outputs: the plan's dtypes and shapes; inputs: the bytes the plan binds).
    /// When every output is empty nothing runs.
    pub fn run_on_device(
        &self,
        plan: &Plan,
        inputs: &[Option<&GpuTensor>],
        outputs: &[Option<&GpuTensor>],
    ) -> Result<(), GpuError> {
        self.run_many(&[(plan, inputs, outputs)])
    }

    /// Records several runs (plans on device tensors, as [`Runtime::run_on_device`] takes them)
    /// into one command encoder, in order, and submits them once, without waiting: one
    /// submission instead of one per run. Runs of the same plan share its intermediates
    /// (each run's passes are ordered after the previous run's on the queue).
    ///
    /// Every run is checked (and its plan prepared) before anything is recorded: when one is
    /// invalid, nothing runs and the error names it (`run <i>: ...` when there are several).
    /// Runs whose outputs are all empty are skipped; an empty list submits nothing.
    pub fn run_many(&self, runs: &[PlanRun<'_>]) -> Result<(), GpuError> {
        self.gpu.check_lost()?;
        let several = runs.len() > 1;
        let at = |i: usize, e: GpuError| if several { run_error(i, e) } else { e };
        let mut args = Vec::with_capacity(runs.len());
        for (i, (plan, inputs, outputs)) in runs.iter().enumerate() {
            let ins = device_args(inputs);
            let outs = device_args(outputs);
            self.check_args(plan, &arg_infos(&ins), &arg_infos(&outs))
                .map_err(|e| at(i, e))?;
            if nothing_to_do(plan) {
                continue;
            }
            let prep = self.prepare(plan).map_err(|e| at(i, e))?;
            let prepared = self.device_prepared(plan, inputs).map_err(|e| at(i, e))?;
            args.push((i, prep, ins, outs, prepared));
        }
        if args.is_empty() {
            return Ok(());
        }
        // Intermediates: one lease per distinct prepared plan, shared by its runs.
        let mut leases: Vec<(u64, Leased<'_>)> = Vec::new();
        let mut lease_of = Vec::with_capacity(args.len());
        for (i, prep, _, _, _) in &args {
            let k = match leases.iter().position(|(id, _)| *id == prep.id) {
                Some(k) => k,
                None => {
                    let plan = runs[*i].0;
                    leases.push((prep.id, self.acquire_scratch(plan).map_err(|e| at(*i, e))?));
                    leases.len() - 1
                }
            };
            lease_of.push(k);
        }
        let bounds: Vec<(usize, Bound<'_>)> = args
            .iter()
            .zip(&lease_of)
            .map(|((i, prep, ins, outs, prepared), &k)| {
                (
                    *i,
                    Bound {
                        plan: runs[*i].0,
                        prep,
                        inputs: ins,
                        prepared,
                        outputs: outs,
                        scratch: &leases[k].1.buffers,
                    },
                )
            })
            .collect();
        let device = self.gpu.device();
        let scopes = Scopes::push(device);
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some(if several {
                "run_many"
            } else {
                &bounds[0].1.prep.label
            }),
        });
        for (i, bound) in &bounds {
            self.encode(&mut enc, bound, None, None)
                .map_err(|e| at(*i, e))?;
        }
        self.gpu.queue().submit([enc.finish()]);
        let popped = scopes.pop(&self.gpu.events, || {
            if several {
                format!("running {} plans in one submission", runs.len())
            } else {
                format!("running plan `{}`", runs[0].0.variant)
            }
        });
        match popped {
            Ok(()) => Ok(()),
            Err(e) if !several => Err(self.refine(&bounds[0].1, e)),
            Err(e @ GpuError::Validation { .. }) => Err(bounds
                .iter()
                .find_map(|(i, b)| self.attribute(b).map(|a| run_error(*i, a)))
                .unwrap_or(e)),
            Err(e) => Err(e),
        }
    }

    /// Waits until the device has finished all submitted work.
    pub fn wait_idle(&self) -> Result<(), GpuError> {
        self.gpu
            .device()
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Poll {
                message: e.to_string(),
            })?;
        self.gpu.check_lost()
    }

    // ---- timing -----------------------------------------------------------------------------

    /// GPU time of `reps` runs of a plan on device tensors, in µs per run, from timestamp
    /// queries written at the start of the first and the end of the last pass of each run, each
    /// run submitted alone on an idle device (see [`Runtime::time_plan_sets`]). One untimed
    /// warm-up comes first ([`TIMING_WARMUP`]). Errors without the `timestamp-query` feature.
    pub fn time_plan(
        &self,
        plan: &Plan,
        inputs: &[Option<&GpuTensor>],
        outputs: &[Option<&GpuTensor>],
        reps: usize,
    ) -> Result<Vec<f64>, GpuError> {
        self.time_plan_sets(plan, &[(inputs, outputs)], reps)
    }

    /// GPU time per call over several tensor sets (e.g. independent weight sets, so the weights
    /// come from memory, not from the L2 cache). Each of the `rounds` rounds is one submission
    /// that runs every set once, back to back, on an idle device; its time is the span from the
    /// first run's start timestamp to the last run's end timestamp divided by the number of
    /// sets. Returns one value (µs per call) per round. Untimed warm-up runs come first: every
    /// set at least once, repeated for [`TIMING_WARMUP`].
    ///
    /// A span over a whole submission started on an idle device is used, not the two
    /// timestamps of each run, because a start-of-pass timestamp may be written before the
    /// previous run's work has finished (seen on NVIDIA's Vulkan driver), which inflates
    /// per-run intervals.
    pub fn time_plan_sets(
        &self,
        plan: &Plan,
        sets: &[TensorSet<'_>],
        rounds: usize,
    ) -> Result<Vec<f64>, GpuError> {
        if !self.gpu.has_timestamps() {
            return Err(GpuError::Unsupported {
                what: "time_plan".into(),
                feature: "timestamp-query",
            });
        }
        if plan.active_passes().next().is_none() || nothing_to_do(plan) || sets.is_empty() {
            return Err(GpuError::InvalidPlan {
                variant: plan.variant.clone(),
                message: "nothing to time: no pass runs".into(),
            });
        }
        // Warm-up: every set at least once, and the GPU kept busy for TIMING_WARMUP so its
        // clocks have ramped up; a GPU that idled (e.g. while the host generated weights or
        // checked a reference) otherwise runs the first rounds at lower clocks.
        let start = std::time::Instant::now();
        let mut since_wait = 0;
        loop {
            for (inputs, outputs) in sets {
                self.run_on_device(plan, inputs, outputs)?;
            }
            since_wait += sets.len();
            if start.elapsed() >= TIMING_WARMUP {
                break;
            }
            if since_wait >= 64 {
                // Keep the queue short: the host records faster than a small plan runs.
                self.wait_idle()?;
                since_wait = 0;
            }
        }
        self.wait_idle()?;
        let args: Vec<_> = sets
            .iter()
            .map(|(i, o)| {
                Ok((
                    device_args(i),
                    device_args(o),
                    self.device_prepared(plan, i)?,
                ))
            })
            .collect::<Result<_, GpuError>>()?;
        let prep = self.prepare(plan)?;
        let device = self.gpu.device();
        let queue = self.gpu.queue();
        let period_ns = f64::from(queue.get_timestamp_period());
        let total = rounds * sets.len();
        let mut times = Vec::with_capacity(rounds);
        let mut done = 0;
        while done < total {
            let n = sets.len();
            let scratch = self.acquire_scratch(plan)?;
            let bytes = 2 * u64::from(wgpu::QUERY_SIZE);
            let scopes = Scopes::push(device);
            let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("time_plan"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            let resolve = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("time_plan resolve"),
                size: bytes,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let rb =
                self.pool
                    .acquire(device, &self.gpu.events, bytes, READBACK, u64::MAX, &|| {
                        "timestamp read-back".into()
                    })?;
            let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("time_plan"),
            });
            let mut failed = None;
            for i in 0..n {
                let (ins, outs, prepared) = &args[(done + i) % sets.len()];
                let bound = Bound {
                    plan,
                    prep: &prep,
                    inputs: ins,
                    prepared,
                    outputs: outs,
                    scratch: &scratch.buffers,
                };
                // Only the round's first start and last end are written: a timestamp per run
                // would add its own cost to every run.
                let stamps = Stamps {
                    set: &queries,
                    begin: (i == 0).then_some(0),
                    end: (i + 1 == n).then_some(1),
                };
                self.encode(&mut enc, &bound, Some(stamps), None)?;
                failed.get_or_insert(done + i);
            }
            enc.resolve_query_set(&queries, 0..2, &resolve, 0);
            enc.copy_buffer_to_buffer(&resolve, 0, &rb, 0, bytes);
            queue.submit([enc.finish()]);
            let popped = scopes.pop(&self.gpu.events, || {
                format!("timing plan `{}`", plan.variant)
            });
            if let Err(e) = popped {
                let (ins, outs, prepared) = &args[failed.unwrap_or(0) % sets.len()];
                let bound = Bound {
                    plan,
                    prep: &prep,
                    inputs: ins,
                    prepared,
                    outputs: outs,
                    scratch: &scratch.buffers,
                };
                return Err(self.refine(&bound, e));
            }
            drop(scratch);
            let data = self
                .read_back(&[(&rb, bytes)], &|_| "timestamps".into())?
                .pop()
                .unwrap_or_default();
            self.pool.release(rb);
            let ticks: Vec<u64> = data
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect();
            if let (Some(first), Some(last)) = (ticks.first(), ticks.last()) {
                times.push(last.saturating_sub(*first) as f64 * period_ns / 1000.0 / n as f64);
            }
            done += n;
        }
        Ok(times)
    }

    /// Host cost of [`Runtime::run_on_device`] on a prepared plan: wall time in µs of each of
    /// `reps` calls (validate, record, submit; no wait), after one warm-up call. The calls come
    /// in bursts of [`HOST_BURST`], as the layers of one inference step would, with an untimed
    /// wait for the device between bursts, so no call is timed while the host is held back by
    /// a queue the GPU has not drained.
    pub fn host_overhead_us(
        &self,
        plan: &Plan,
        inputs: &[Option<&GpuTensor>],
        outputs: &[Option<&GpuTensor>],
        reps: usize,
    ) -> Result<Vec<f64>, GpuError> {
        self.run_on_device(plan, inputs, outputs)?;
        self.wait_idle()?;
        let mut v = Vec::with_capacity(reps);
        for i in 0..reps {
            if i > 0 && i % HOST_BURST == 0 {
                self.wait_idle()?;
            }
            let t0 = Instant::now();
            self.run_on_device(plan, inputs, outputs)?;
            v.push(t0.elapsed().as_secs_f64() * 1e6);
        }
        self.wait_idle()?;
        Ok(v)
    }

    // ---- internals --------------------------------------------------------------------------

    /// Checks a plan's own consistency against this device profile.
    fn check_plan(&self, plan: &Plan) -> Result<(), GpuError> {
        let bad = |message: String| GpuError::InvalidPlan {
            variant: plan.variant.clone(),
            message,
        };
        let max_wg = self.limit("maxComputeWorkgroupsPerDimension");
        let max_uniform = self.limit("maxUniformBufferBindingSize");
        for p in plan.active_passes() {
            if let Some(d) = p.dispatch.iter().find(|&&d| u64::from(d) > max_wg) {
                return Err(bad(format!("pass `{}` dispatches {d} workgroups in one dimension, maxComputeWorkgroupsPerDimension is {max_wg}", p.id)));
            }
            for (i, b) in p.bindings.iter().enumerate() {
                if b.binding as usize != i {
                    return Err(bad(format!(
                        "{}: bindings must be numbered 0, 1, ... in order",
                        binding_name(p, b)
                    )));
                }
                let ok = match &b.resource {
                    Resource::Input { .. } => b.access != BufferKind::Uniform,
                    Resource::Prepared { weights, .. } => {
                        b.access == BufferKind::ReadOnlyStorage
                            && b.bytes == weights.prepared_bytes() as u64
                    }
                    Resource::Output { index, .. } => {
                        b.access == BufferKind::Storage
                            && plan.outputs.get(*index).is_some_and(|o| o.present)
                    }
                    Resource::Scratch { index, .. } => {
                        b.access != BufferKind::Uniform
                            && plan
                                .intermediates
                                .get(*index)
                                .is_some_and(|s| padded(s.bytes) >= b.bytes)
                    }
                    Resource::Uniform { bytes, .. } => {
                        if bytes.len() as u64 > max_uniform {
                            return Err(GpuError::BufferTooLarge {
                                what: binding_name(p, b),
                                bytes: bytes.len() as u64,
                                limit_name: "maxUniformBufferBindingSize",
                                limit: max_uniform,
                            });
                        }
                        b.access == BufferKind::Uniform
                            && !bytes.is_empty()
                            && bytes.len() % 16 == 0
                    }
                };
                if !ok {
                    return Err(bad(format!(
                        "{}: access {:?} does not fit the resource, or the resource does not exist",
                        binding_name(p, b),
                        b.access
                    )));
                }
            }
        }
        Ok(())
    }

    /// Checks the caller's tensors against the plan.
    fn check_args(
        &self,
        plan: &Plan,
        inputs: &[Option<&TensorInfo>],
        outputs: &[Option<&TensorInfo>],
    ) -> Result<(), GpuError> {
        for (index, o) in plan.outputs.iter().enumerate() {
            let given = outputs.get(index).copied().flatten();
            let err = |message: String| GpuError::Output {
                index,
                name: o.onnx.clone(),
                message,
            };
            match (o.present, given) {
                (true, None) => {
                    return Err(err("the plan produces it but no tensor was given".into()))
                }
                (false, Some(_)) => {
                    return Err(err(
                        "a tensor was given but the plan does not produce this output".into(),
                    ))
                }
                (true, Some(a)) if a.dtype != o.dtype || a.shape != o.shape => {
                    return Err(err(format!(
                        "{} given, the plan produces {} {:?}",
                        describe(a),
                        o.dtype,
                        o.shape
                    )))
                }
                _ => {}
            }
        }
        if outputs.len() > plan.outputs.len()
            && outputs[plan.outputs.len()..].iter().any(Option::is_some)
        {
            return Err(GpuError::Output {
                index: plan.outputs.len(),
                name: String::new(),
                message: format!("the operator has {} outputs", plan.outputs.len()),
            });
        }
        let max_binding = self.limit("maxStorageBufferBindingSize");
        for p in plan.active_passes() {
            for b in &p.bindings {
                let (arg, input) = match &b.resource {
                    Resource::Input { index, .. } | Resource::Prepared { index, .. } => {
                        (inputs.get(*index).copied().flatten().ok_or(*index), true)
                    }
                    Resource::Output { index, .. } => {
                        (outputs.get(*index).copied().flatten().ok_or(*index), false)
                    }
                    _ => continue,
                };
                let a = match arg {
                    Ok(a) => a,
                    Err(index) if input => {
                        return Err(self.input_error(
                            plan,
                            index,
                            format!("{} needs it but it was not given", binding_name(p, b)),
                        ))
                    }
                    Err(index) => {
                        return Err(GpuError::Output {
                            index,
                            name: resource_name(&b.resource),
                            message: "not given".into(),
                        })
                    }
                };
                let have = padded(tensor_bytes(a));
                // A prepared copy is made from the caller's tensor: that must be the size the
                // layout's geometry rearranges; the binding holds the copy.
                let (want, bound) = match &b.resource {
                    Resource::Prepared { weights, .. } => {
                        (padded(weights.original_bytes() as u64), padded(b.bytes))
                    }
                    _ => (padded(b.bytes), have),
                };
                if have != want {
                    let message = format!(
                        "{} ({have} bytes padded) does not fit {}, which binds {} bytes: the plan was made for other tensors",
                        describe(a),
                        binding_name(p, b),
                        b.bytes
                    );
                    return Err(match &b.resource {
                        Resource::Input { index, .. } | Resource::Prepared { index, .. } => {
                            self.input_error(plan, *index, message)
                        }
                        Resource::Output { index, onnx, .. } => GpuError::Output {
                            index: *index,
                            name: onnx.clone(),
                            message,
                        },
                        _ => unreachable!("only inputs and outputs here"),
                    });
                }
                if bound > max_binding {
                    return Err(GpuError::BufferTooLarge {
                        what: binding_name(p, b),
                        bytes: bound,
                        limit_name: "maxStorageBufferBindingSize",
                        limit: max_binding,
                    });
                }
            }
        }
        Ok(())
    }

    /// The prepared form of a plan (pipelines compiled, uniform buffers written), cached.
    fn prepare(&self, plan: &Plan) -> Result<Arc<Prepared>, GpuError> {
        let fp = fingerprint(plan);
        let find = |m: &HashMap<u64, Vec<Arc<Prepared>>>| {
            m.get(&fp)
                .and_then(|v| v.iter().find(|p| p.sig.matches(plan)).cloned())
        };
        if let Some(p) = self.prepared.lock().ok().and_then(|m| find(&m)) {
            return Ok(p);
        }
        self.check_plan(plan)?;
        let device = self.gpu.device();
        let mut passes = Vec::with_capacity(plan.passes.len());
        for pass in &plan.passes {
            if pass.skipped {
                passes.push(None);
                continue;
            }
            let compiled = self
                .pipelines
                .get(device, &self.gpu.events, self.profile(), pass)?;
            let scopes = Scopes::push(device);
            let uniforms = pass
                .bindings
                .iter()
                .map(|b| match &b.resource {
                    Resource::Uniform { bytes, .. } => Some(device.create_buffer_init(
                        &wgpu::util::BufferInitDescriptor {
                            label: Some(&binding_name(pass, b)),
                            contents: bytes,
                            usage: wgpu::BufferUsages::UNIFORM,
                        },
                    )),
                    _ => None,
                })
                .collect();
            scopes.pop(&self.gpu.events, || {
                format!("creating the uniform buffers of pass `{}`", pass.id)
            })?;
            passes.push(Some(PreparedPass {
                compiled,
                uniforms,
                label: format!("pass `{}` ({})", pass.id, pass.shader),
            }));
        }
        let prepared = Arc::new(Prepared {
            id: self.next_prepared_id.fetch_add(1, Ordering::Relaxed),
            label: format!("plan `{}`", plan.variant),
            sig: PlanSig::of(plan),
            passes,
        });
        let mut m = self.prepared.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = find(&m) {
            return Ok(p);
        }
        m.entry(fp).or_default().push(prepared.clone());
        Ok(prepared)
    }

    /// Pooled buffers for the plan's intermediates, in plan order.
    fn acquire_scratch(&self, plan: &Plan) -> Result<Leased<'_>, GpuError> {
        let mut leased = Leased {
            pool: &self.pool,
            buffers: Vec::with_capacity(plan.intermediates.len()),
        };
        let max_buffer = self.limit("maxBufferSize");
        for s in &plan.intermediates {
            let b = self.pool.acquire(
                self.gpu.device(),
                &self.gpu.events,
                padded(s.bytes),
                STORAGE,
                max_buffer,
                &|| format!("intermediate `{}` ({} {:?})", s.id, s.dtype, s.shape),
            )?;
            leased.buffers.push(b);
        }
        Ok(leased)
    }

    /// Records every active pass of the plan (or only pass `only`): one compute pass each, in
    /// order. With `timestamps = (set, base)`, writes query `base` at the start of the first
    /// pass and `base + 1` at the end of the last. Bind groups come from the runtime's cache,
    /// except with `only` (attributing an error: every bind group is created anew, inside its
    /// own error scopes).
    fn encode(
        &self,
        enc: &mut wgpu::CommandEncoder,
        bound: &Bound,
        timestamps: Option<Stamps<'_>>,
        only: Option<usize>,
    ) -> Result<(), GpuError> {
        let Bound {
            plan,
            prep,
            inputs,
            prepared,
            outputs,
            scratch,
        } = *bound;
        let device = self.gpu.device();
        let is_active = |i: usize| prep.passes[i].is_some() && only.is_none_or(|o| o == i);
        // Bind groups first (cached, or created inside error scopes), then every active pass
        // is one dispatch of a single compute pass: wgpu orders dependent dispatches of a pass
        // with the same barriers it puts between passes, and one pass per run records and
        // submits faster than one per plan pass.
        let mut dispatches: Vec<(&PreparedPass, wgpu::BindGroup, [u32; 3])> = Vec::new();
        let mut buffers: Vec<&wgpu::Buffer> = Vec::new();
        for (i, pass) in plan.passes.iter().enumerate() {
            if !is_active(i) {
                continue;
            }
            let Some(pp) = prep.passes[i].as_ref() else {
                continue;
            };
            buffers.clear();
            for (bi, b) in pass.bindings.iter().enumerate() {
                let buffer = match &b.resource {
                    Resource::Input { index, .. } => inputs[*index].expect("checked").buffer,
                    Resource::Prepared { index, weights, .. } => {
                        prepared::find_prepared(prepared, *index, weights).ok_or_else(|| {
                            GpuError::InvalidPlan {
                                variant: plan.variant.clone(),
                                message: format!(
                                    "{}: no prepared copy was bound",
                                    binding_name(pass, b)
                                ),
                            }
                        })?
                    }
                    Resource::Output { index, .. } => outputs[*index].expect("checked").buffer,
                    Resource::Scratch { index, .. } => &scratch[*index],
                    Resource::Uniform { .. } => {
                        pp.uniforms[bi].as_ref().expect("uniform buffer prepared")
                    }
                };
                buffers.push(buffer);
            }
            let hash = key_hash(prep.id, i, &buffers);
            let cached = if only.is_none() {
                self.bind_groups
                    .lock()
                    .ok()
                    .and_then(|mut c| c.get(hash, prep.id, i, &buffers))
            } else {
                None
            };
            let bind_group = match cached {
                Some(g) => g,
                None => {
                    let entries: Vec<wgpu::BindGroupEntry> = pass
                        .bindings
                        .iter()
                        .zip(&buffers)
                        .map(|(b, buffer)| wgpu::BindGroupEntry {
                            binding: b.binding,
                            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer,
                                offset: 0,
                                size: wgpu::BufferSize::new(padded(b.bytes)),
                            }),
                        })
                        .collect();
                    let scopes = Scopes::push(device);
                    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some(&pp.label),
                        layout: &pp.compiled.layout,
                        entries: &entries,
                    });
                    scopes.pop(&self.gpu.events, || {
                        format!("binding the buffers of {}", pass_name(pass))
                    })?;
                    if only.is_none() {
                        if let Ok(mut c) = self.bind_groups.lock() {
                            c.insert(hash, prep.id, i, &buffers, group.clone());
                        }
                    }
                    group
                }
            };
            dispatches.push((pp, bind_group, pass.dispatch));
        }
        let Some(first) = dispatches.first() else {
            return Ok(());
        };
        let timestamp_writes = timestamps.as_ref().and_then(|st| {
            (st.begin.is_some() || st.end.is_some()).then_some(wgpu::ComputePassTimestampWrites {
                query_set: st.set,
                beginning_of_pass_write_index: st.begin,
                end_of_pass_write_index: st.end,
            })
        });
        let label = if dispatches.len() == 1 {
            first.0.label.as_str()
        } else {
            prep.label.as_str()
        };
        let mut cp = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes,
        });
        for (pp, bind_group, [x, y, z]) in &dispatches {
            if dispatches.len() > 1 {
                cp.push_debug_group(&pp.label);
            }
            cp.set_pipeline(&pp.compiled.pipeline);
            cp.set_bind_group(0, bind_group, &[]);
            cp.dispatch_workgroups(*x, *y, *z);
            if dispatches.len() > 1 {
                cp.pop_debug_group();
            }
        }
        Ok(())
    }

    /// Attributes a validation error of a whole run to the first pass that fails alone: each
    /// active pass is recorded again into its own encoder (never submitted) inside its own
    /// error scopes. Other errors, or one no single pass reproduces, are returned as they are.
    fn refine(&self, bound: &Bound, err: GpuError) -> GpuError {
        if !matches!(err, GpuError::Validation { .. }) {
            return err;
        }
        self.attribute(bound).unwrap_or(err)
    }

    /// The validation error of the first active pass of `bound` that fails when recorded alone
    /// (see [`Runtime::refine`]), if any.
    fn attribute(&self, bound: &Bound) -> Option<GpuError> {
        let device = self.gpu.device();
        for (i, pass) in bound.plan.passes.iter().enumerate() {
            if bound.prep.passes[i].is_none() {
                continue;
            }
            let scopes = Scopes::push(device);
            let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(&format!("checking pass `{}`", pass.id)),
            });
            let recorded = self.encode(&mut enc, bound, None, Some(i));
            drop(enc.finish());
            if let Err(GpuError::Validation { message, .. }) =
                scopes.pop(&self.gpu.events, String::new).and(recorded)
            {
                return Some(GpuError::Validation {
                    what: pass_name(pass),
                    message,
                });
            }
        }
        None
    }

    /// Maps read-back buffers (`(buffer, bytes)`), waits, and copies their contents out.
    fn read_back(
        &self,
        items: &[(&wgpu::Buffer, u64)],
        what: &dyn Fn(usize) -> String,
    ) -> Result<Vec<Vec<u8>>, GpuError> {
        let mut out = vec![Vec::new(); items.len()];
        self.read_back_each(items, what, &mut |i, data| out[i] = data.to_vec())?;
        Ok(out)
    }

    /// Maps read-back buffers (`(buffer, bytes)`), waits once, and hands each mapped range to
    /// `f(index, bytes)` before unmapping it.
    fn read_back_each(
        &self,
        items: &[(&wgpu::Buffer, u64)],
        what: &dyn Fn(usize) -> String,
        f: &mut dyn FnMut(usize, &[u8]),
    ) -> Result<(), GpuError> {
        type Slot = Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>;
        let slots: Vec<Slot> = items.iter().map(|_| Arc::new(Mutex::new(None))).collect();
        for ((b, n), slot) in items.iter().zip(&slots) {
            let slot = slot.clone();
            b.map_async(wgpu::MapMode::Read, 0..*n, move |r| {
                if let Ok(mut s) = slot.lock() {
                    *s = Some(r);
                }
            });
        }
        self.wait_idle()?;
        // With several threads on one device, another thread's poll may be the one running our
        // callbacks, and may still be running them when our poll returns: poll again, briefly.
        let deadline = Instant::now() + std::time::Duration::from_secs(30);
        while slots
            .iter()
            .any(|s| s.lock().map(|s| s.is_none()).unwrap_or(false))
            && Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_micros(200));
            self.wait_idle()?;
        }
        for (i, ((b, n), slot)) in items.iter().zip(&slots).enumerate() {
            let state = slot.lock().ok().and_then(|mut s| s.take());
            match state {
                Some(Ok(())) => {
                    let view = b.get_mapped_range(0..*n).map_err(|e| GpuError::Map {
                        what: what(i),
                        message: e.to_string(),
                    })?;
                    f(i, &view);
                    drop(view);
                    b.unmap();
                }
                Some(Err(e)) => {
                    return Err(GpuError::Map {
                        what: what(i),
                        message: e.to_string(),
                    })
                }
                None => {
                    return Err(GpuError::Map {
                        what: what(i),
                        message: "the map callback never ran".into(),
                    })
                }
            }
        }
        Ok(())
    }
}
