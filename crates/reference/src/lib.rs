//! CPU float64 reference for `com.microsoft::MatMulNBitsMlp` (see op-semantics.md): the oracle
//! every other implementation is checked against.
//!
//! - [`pack`]: the MatMulNBits weight layout (quantize, dequantize, code access);
//! - [`mlp`]: the operator itself, in float64, multi-threaded;
//! - [`gen`]: random, reproducible test cases;
//! - [`compare`]: errors and tolerances against the reference;
//! - [`round`]: correctly rounded float64 → float32/float16 conversion.
#![warn(missing_docs)]

pub mod compare;
mod error;
pub mod gen;
pub mod mlp;
pub mod pack;
pub mod round;

pub use error::RefError;
pub use gen::{generate, Case};
pub use mlp::{run, MlpAttrs, MlpOutput};
