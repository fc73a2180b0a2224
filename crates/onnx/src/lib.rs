//! ONNX I/O for nbits-mlp: models made of `com.microsoft::MatMulNBitsMlp` nodes, their tensors,
//! and the ONNX node-test directory layout.
//!
//! - [`proto`]: hand-written `prost` messages for the part of `onnx.proto` used here;
//! - tensors: [`tensor_from_proto`], [`tensor_to_proto`], [`read_tensor_file`],
//!   [`write_tensor_file`] (float32, float16 and uint8; raw, typed-field and external data);
//! - models: [`load_model`], [`write_model`], [`node_call`] (the planner's [`OpCall`] of a node);
//! - execution: [`run_graph`] resolves each node's inputs by name and calls back a node runner;
//! - test cases: [`load_case`], [`write_case`], [`load_inputs_dir`], [`write_outputs_dir`].
//!
//! Every error is an [`OnnxError`] (or [`RunError`]) whose message names the file and the tensor,
//! attribute, node or graph value at fault. No input file, however malformed, makes these
//! functions panic.
//!
//! [`OpCall`]: nbits_mlp_core::OpCall
#![warn(missing_docs)]

mod case;
mod error;
mod model;
pub mod proto;
mod run;
mod tensor_io;

pub use case::{load_case, load_inputs_dir, write_case, write_outputs_dir, DataSet, TestCase};
pub use error::{OnnxError, RunError};
pub use model::{
    load_model, node_call, write_model, MlpNode, Model, ModelSpec, ValueInfo, DOMAIN, OP_TYPE,
};
pub use run::run_graph;
pub use tensor_io::{read_tensor_file, tensor_from_proto, tensor_to_proto, write_tensor_file};
