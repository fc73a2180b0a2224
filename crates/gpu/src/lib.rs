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
//!
//! # Example
//!
//! One call on host tensors, checked against the float64 reference (`nbits-mlp-reference`
//! makes the random inputs and the expected output; an engine passes its own tensors in ONNX
//! order instead). For weights uploaded once and many calls, see [`Runtime::upload`],
//! [`Runtime::run_many`] and `examples/decode_loop.rs`.
//!
//! ```
//! use nbits_mlp_core::{DType, MlpShape, Tunables};
//! use nbits_mlp_gpu::{GpuOptions, RunOptions, Runtime};
//! use nbits_mlp_reference::{compare, gen::generate};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let rt = Runtime::open(&GpuOptions::from_env()?)?;
//! // 2 rows of K = 256, N = 64, float16, 4-bit weights in blocks of 32, skip + RMSNorm.
//! let shape = MlpShape { dtype: DType::F16, skip: true, norm: true, ..MlpShape::new(256, 64, 2) };
//! let case = generate(&shape, 7);
//! let out = rt.run(
//!     &case.attrs,
//!     &case.input_refs(),
//!     &[true, false], // Y; not input_skip_bias_sum
//!     &Tunables::new(),
//!     &RunOptions::default(),
//! )?;
//! println!("variant {}", out.plan.variant);
//! let y = out.outputs[0].as_ref().expect("Y was requested");
//! let want = case.run_reference()?;
//! compare::check_scaled(&want.y_f64, &want.y_err_scale, y, out.plan.f16_accumulation())?;
//! # Ok(())
//! # }
//! ```
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
