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
//!
//! One module per job; this one holds the [`Runtime`] type, its construction, planning and
//! caches:
//!
//! - `tensor`: [`GpuTensor`], byte sizes, and the caller's tensors as passes bind them;
//! - `checks`: a plan against the device profile, the caller's tensors against the plan, and
//!   the names errors give passes, bindings and resources;
//! - `prepare`: a plan's device objects (pipelines, uniform buffers), cached per plan, and its
//!   intermediates from the pool;
//! - `encode`: recording a bound plan's passes into a command encoder, and attributing a
//!   validation error to the pass at fault;
//! - `run`: the host and device runs, from checks to submission;
//! - `transfer`: device tensors in and out: uploads, allocation, writes, read-backs;
//! - `timing`: GPU time from timestamp queries, and the host cost of a run;
//! - `prepared`: prepared weights, the caller's weight tensors rearranged once for the kernels
//!   that read another layout (`nbits_mlp_core::layout`);
//! - `repack`: the copy kernels that build the prepared copies of device tensors on the GPU.

mod checks;
mod encode;
mod prepare;
mod prepared;
mod repack;
mod run;
mod tensor;
mod timing;
mod transfer;

pub use tensor::GpuTensor;
pub use timing::{HOST_BURST, TIMING_WARMUP};

use crate::bind_cache::BindGroupCache;
use crate::error::GpuError;
use crate::gpu::{Gpu, GpuOptions};
use crate::pipeline::PipelineCache;
use crate::pool::{BufferPool, PoolStats};
use checks::check_restriction;
use nbits_mlp_core::{DeviceProfile, OpCall, Plan, Planner, Tensor, Tunables};
use prepare::Prepared;
use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

/// Idle bytes the buffer pool keeps at most.
const POOL_MAX_FREE_BYTES: u64 = 1 << 30;

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
    /// The repack kernels (prepared copies of device tensors), compiled on first use.
    repack: Mutex<Option<Arc<repack::RepackPipelines>>>,
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
            repack: Mutex::new(None),
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
        if let Ok(mut r) = self.repack.lock() {
            *r = None;
        }
        if let Ok(mut m) = self.prepared.lock() {
            m.clear();
        }
        if let Ok(mut c) = self.bind_groups.lock() {
            c.clear();
        }
        self.pool.trim();
    }

    // ---- planning ---------------------------------------------------------------------------

    /// The plan for `call` (cached by the planner). With no overrides, the tuned tunables of
    /// the call's class apply when a tuning cache is attached ([`Runtime::with_tuning`]).
    pub fn plan(&self, call: &OpCall, tunables: &Tunables) -> Result<Arc<Plan>, GpuError> {
        Ok(self.plan_tuned(call, tunables)?.plan)
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
}
