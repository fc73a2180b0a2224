//! WebGPU runtime of nbits-mlp: runs the plans of [`nbits_mlp_core`] with wgpu.
//!
//! - [`Gpu`]: adapter selection ([`GpuOptions`], [`list_adapters`]) and the device, requested
//!   with all of the adapter's limits and the features the manifest can use; [`Gpu::profile`]
//!   is what was granted, by WebGPU names.
//! - [`Runtime`]: plans (through a [`nbits_mlp_core::Planner`]), compiles each shader once,
//!   pools buffers, and runs plans on host tensors ([`Runtime::run`]) or device tensors
//!   ([`Runtime::run_on_device`]); times them with timestamp queries ([`Runtime::time_plan`]).
//! - [`GpuError`]: every failure, device errors included, naming what failed; nothing panics.
//! - [`testing`]: the runtime for tests, or a skip when no GPU exists and the user says so.
//! - [`tuning`]: tuned tunables from a per-device cache ([`Runtime::with_tuning`]).
//! - [`compiled`]: what the driver's compiler reports for each pass (registers, shared memory)
//!   and, on NVIDIA, the SM count ([`compiled::driver_report`]).
//!
//! The default backend is Vulkan (on a machine without a GPU, Mesa lavapipe); set
//! `NBITS_MLP_BACKENDS` to change it ([`GpuOptions::from_env`]).
#![warn(missing_docs)]

mod bind_cache;
pub mod compiled;
mod error;
mod gpu;
mod pipeline;
mod pool;
mod runtime;
pub mod testing;
pub mod tuning;

pub use error::GpuError;
pub use gpu::{
    backends_name, coop_feature_name, feature_names, limit_is_minimum, list_adapters,
    parse_backends, webgpu_limits, AdapterSummary, Gpu, GpuOptions, ENV_ADAPTER, ENV_BACKENDS,
    ENV_COOP, WANTED_EXPERIMENTAL_FEATURES, WANTED_FEATURES,
};
pub use pipeline::{check_wgsl, check_wgsl_and_prove, shader_checks, ShaderChecks};
pub use pool::PoolStats;
pub use runtime::{
    GpuTensor, PlanRun, RunOptions, RunOutput, Runtime, RuntimeStats, TensorSet, HOST_BURST,
    TIMING_WARMUP,
};
pub use wgpu;

// The runtime is meant to be shared between threads.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Runtime>();
    send_sync::<Gpu>();
    send_sync::<GpuTensor>();
    send_sync::<GpuError>();
};
