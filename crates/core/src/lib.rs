//! GPU-free core of nbits-mlp.
//!
//! - [`tensor`]: plain host tensors exchanged by every part of the project;
//! - [`device`]: WebGPU device profiles (limits and features) plans are made for.
#![warn(missing_docs)]

pub mod device;
pub mod tensor;

pub use device::DeviceProfile;
pub use tensor::{DType, Tensor, TensorInfo};
