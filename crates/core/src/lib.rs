//! GPU-free core of nbits-mlp.
//!
//! - [`tensor`]: plain host tensors exchanged by every part of the project;
//! - [`op`]: one operator call (attributes, input descriptions, requested outputs);
//! - [`device`]: WebGPU device profiles (limits and features) plans are made for.
#![warn(missing_docs)]

pub mod device;
pub mod op;
pub mod tensor;

pub use device::DeviceProfile;
pub use op::{AttrValue, OpCall};
pub use tensor::{DType, Tensor, TensorInfo};
