//! GPU-free core of nbits-mlp.
//!
//! - [`tensor`]: plain host tensors exchanged by every part of the project;
//! - [`expr`]: the manifest's expression language (parse once, evaluate many times);
//! - [`manifest`]: the kernel manifest (JSON model, parsed expressions, static check);
//! - [`planner`] and [`plan`]: variant selection and the plan, plain data;
//! - [`map`]: the kernel map, which variant a shape takes at every row count;
//! - [`render`]: WGSL generation from the templates;
//! - [`bounds`]: the static proof that a shader's array indices stay in range (no index clamps);
//! - [`op`]: one operator call (attributes, input descriptions, requested outputs);
//! - [`families`]: the project overlay generated from a description of its kernel families;
//! - [`coverage`]: calls that reach every variant (shared by the tests);
//! - [`device`]: WebGPU device profiles (limits and features) plans are made for;
//! - [`tuning`]: the per-device cache of tuned tunables and the GPU-free half of `tune`;
//! - [`layout`]: prepared weight layouts (the MatMulNBits weights rearranged for a kernel).
//!
//! # Example
//!
//! What runs for a call, without a GPU: the Llama-3.1-8B gate/up layer at 16 rows (float16,
//! 4-bit weights in blocks of 32) planned for a discrete GPU with tensor cores, as
//! `nbits-mlp plan --explain` prints it. The plan is plain data: the chosen variant, its passes
//! with their rendered WGSL, dispatch sizes and bindings, and the verdict on every variant.
//!
//! ```
//! use nbits_mlp_core::{DType, DeviceProfile, MlpShape, Planner, Tunables};
//!
//! let planner = Planner::project(DeviceProfile::discrete_gpu());
//! let shape = MlpShape { dtype: DType::F16, ..MlpShape::new(4096, 14336, 16) };
//! let plan = planner.plan(&shape.call(), &Tunables::new())?;
//! println!("variant {} (priority {})", plan.variant, plan.priority);
//! for pass in plan.active_passes() {
//!     println!("  {} dispatch {:?} x {:?}, {} bytes of WGSL",
//!         pass.shader, pass.dispatch, pass.workgroup_size, pass.wgsl.len());
//! }
//! // Why not the one-row gemv, which has a higher priority: the term of its condition that failed.
//! let gemv = plan.verdicts.iter().find(|v| v.variant == "gemv_plain_nogb_noub").unwrap();
//! assert!(!gemv.applies);
//! println!("not {}: {}", gemv.variant, gemv.rejected_by.as_deref().unwrap_or("-"));
//! assert!(plan.variant.starts_with("mmap"), "16 rows go to the tensor-core tile");
//! # Ok::<(), nbits_mlp_core::PlanError>(())
//! ```
#![warn(missing_docs)]

pub mod bounds;
pub mod coverage;
pub mod device;
pub mod expr;
pub mod families;
pub mod files;
pub mod layout;
pub mod manifest;
pub mod map;
pub mod op;
pub mod plan;
pub mod planner;
pub mod ranges;
pub mod render;
pub mod tensor;
pub mod tuning;

pub use device::DeviceProfile;
pub use manifest::Manifest;
pub use op::{AttrValue, MlpShape, OpCall};
pub use plan::Plan;
pub use planner::{PlanError, Planner, Tunables};
pub use tensor::{max_finite_abs, DType, Tensor, TensorInfo};
