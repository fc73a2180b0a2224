//! Graph fusion for ONNX Runtime LLM models: every gate/up MLP built from
//! `com.microsoft::MatMulNBits` nodes becomes one `com.microsoft::MatMulNBitsMlp` node.
//!
//! The pattern (what ONNX Runtime GenAI's model builder writes per decoder layer, and what
//! ONNX Runtime's own `MatMulNBitsMlpFusion` looks for, in more forms):
//!
//! ```text
//! [Skip]SimplifiedLayerNormalization ─┬─ MatMulNBits (gate) [─ Add bias] ─┬─ Sigmoid ─ Mul ─┐
//!   (or RMSNormalization, or none)    │                                  └──────────┘      Mul ─ Y
//!                                     └─ MatMulNBits (up)   [─ Add bias] ──────────────────┘
//! ```
//!
//! - the SiLU as `Sigmoid` + `Mul` in either operand order, or `QuickGelu` with `alpha` 1;
//! - biases as `MatMulNBits` input 5 or as an `Add` of an initializer, folded into
//!   `gate_bias` / `up_bias`;
//! - the packed form (one `MatMulNBits` of 2N columns, then `Split` into gate and up along the
//!   last axis) when its weights are initializers, by splitting them;
//! - the norm absorbed when its normalized output feeds only the two projections; the skip
//!   norm's `input_skip_bias_sum` (output 3) becomes the fused node's output 1 when read;
//! - the down projection is never touched.
//!
//! A candidate that breaks a rule is left as it was; [`FuseReport::skipped`] names the rule
//! ([`rules`]). Every byte of the model the rewrite does not concern is copied as it was read
//! (metadata, doc strings, functions, opsets, value_info of kept values); external data is read
//! and written (see [`fuse_file`]).
//!
//! `accuracy_level`: the fused node records 0. The builder's models carry 4 (ONNX Runtime's CPU
//! kernel may then quantize A to int8); the operator contract this project implements accepts
//! only 0, and 0 ("unset": full precision) is always allowed, since this kernel computes with
//! the activations at full precision and accumulates in float32.
#![warn(missing_docs)]

mod graph;
mod nodes;
mod pattern;
mod wire;

use serde::Serialize;
use std::path::{Path, PathBuf};

pub use nodes::{distinct_mlp_shapes, mlp_node_shapes, NodeShape};
pub use pattern::rules;

/// The domain ONNX Runtime registers `MatMulNBitsMlp` in.
pub const DEFAULT_DOMAIN: &str = "com.microsoft";
/// The fused operator's name.
pub const OP_TYPE: &str = "MatMulNBitsMlp";

/// Options of [`fuse_file`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuseOptions {
    /// The domain the fused nodes are written in ([`DEFAULT_DOMAIN`] by default; an opset
    /// import of version 1 is added for it when the model has none).
    pub domain: String,
}

impl Default for FuseOptions {
    fn default() -> Self {
        FuseOptions {
            domain: DEFAULT_DOMAIN.to_string(),
        }
    }
}

/// What [`fuse_file`] did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FuseReport {
    /// The model read.
    pub input: PathBuf,
    /// The model written.
    pub output: PathBuf,
    /// The external data file written beside it, if any.
    pub external_data: Option<PathBuf>,
    /// The domain of the fused nodes.
    pub domain: String,
    /// Whether an opset import for that domain was added.
    pub opset_added: bool,
    /// Every MLP fused, in graph order.
    pub fused: Vec<Fused>,
    /// Every candidate left as it was, in graph order.
    pub skipped: Vec<Skipped>,
}

/// One fused MLP.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fused {
    /// The decoder layer (`layers.3`, from the node names), or the fused node's name.
    pub layer: String,
    /// The fused node's name.
    pub node: String,
    /// The gate projection (`MatMulNBits`) it replaces.
    pub gate: String,
    /// The up projection it replaces (the same node as `gate` for the packed form).
    pub up: String,
    /// Input features.
    pub k: i64,
    /// Output features of gate and of up.
    pub n: i64,
    /// Bits per weight.
    pub bits: i64,
    /// Block size.
    pub block_size: i64,
    /// `float32` or `float16` (from the scales), when known.
    pub dtype: Option<String>,
    /// Whether gate and up came packed in one `MatMulNBits` + `Split` (weights split).
    pub packed: bool,
    /// How the SiLU was written (`Sigmoid+Mul`, `QuickGelu(alpha=1)`).
    pub activation: String,
    /// The norm absorbed (`SkipSimplifiedLayerNormalization`, `SimplifiedLayerNormalization`,
    /// `RMSNormalization`), if any.
    pub norm: Option<String>,
    /// The norm's epsilon, when one was absorbed.
    pub epsilon: Option<f32>,
    /// Whether the skip norm's `input_skip_bias_sum` became the fused node's output 1.
    pub residual: bool,
    /// Why the node producing A was not absorbed, when it is a norm.
    pub norm_kept: Option<String>,
    /// Whether a gate bias was folded.
    pub gate_bias: bool,
    /// Whether an up bias was folded.
    pub up_bias: bool,
    /// The `accuracy_level` of the projections (the fused node records 0).
    pub accuracy_level: i64,
    /// Names of the nodes removed.
    pub removed: Vec<String>,
}

/// One candidate that was not fused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The decoder layer (`layers.3`), or the gating `Mul`'s name.
    pub layer: String,
    /// The gating `Mul` node (`act(gate) * up`).
    pub at: String,
    /// The rule that stopped it (one of [`rules`]).
    pub rule: String,
    /// Why, with the nodes and values at fault.
    pub reason: String,
}

/// Everything that can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum FuseError {
    /// A file could not be read or written.
    #[error("{}: cannot {action}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The model is malformed, or the output cannot be written as asked.
    #[error("{}: {reason}", .path.display())]
    Model {
        /// The model file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// Reads the ONNX model `input`, fuses every fusable MLP, and writes the result to `output`
/// (atomically; `output` may be `input`).
///
/// External data: initializers stored outside the model file are read (paths relative to the
/// input's directory, which must stay inside it). When the input has any, or the output would
/// exceed protobuf's 2 GiB limit, the output's external tensors (and new tensors of 1 KiB or
/// more) are written to `<output file name>.data` beside `output`; otherwise the output is one
/// file.
pub fn fuse_file(input: &Path, output: &Path, opts: &FuseOptions) -> Result<FuseReport, FuseError> {
    if opts.domain.trim().is_empty() {
        return Err(FuseError::Model {
            path: input.to_path_buf(),
            reason: "the domain for the fused nodes is empty".into(),
        });
    }
    let g = graph::Graph::load(input)?;
    let plan = pattern::plan(&g, &opts.domain)?;
    let written = g.write(&plan.rewrite, output)?;
    Ok(FuseReport {
        input: input.to_path_buf(),
        output: output.to_path_buf(),
        external_data: written.external_data,
        domain: opts.domain.clone(),
        opset_added: !plan.rewrite.add_opsets.is_empty(),
        fused: plan.fused,
        skipped: plan.skipped,
    })
}

/// Plans the fusion of the model in `bytes` (read from `path`) without writing anything: what
/// [`fuse_file`] would report, less the output paths.
pub fn analyze(path: &Path, bytes: Vec<u8>, opts: &FuseOptions) -> Result<FuseReport, FuseError> {
    let g = graph::Graph::from_bytes(path, bytes)?;
    let plan = pattern::plan(&g, &opts.domain)?;
    Ok(FuseReport {
        input: path.to_path_buf(),
        output: PathBuf::new(),
        external_data: None,
        domain: opts.domain.clone(),
        opset_added: !plan.rewrite.add_opsets.is_empty(),
        fused: plan.fused,
        skipped: plan.skipped,
    })
}
