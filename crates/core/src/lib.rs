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
