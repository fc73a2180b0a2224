//! The two implementations of the operator behind one interface: the WebGPU runtime and the CPU
//! float64 reference. Everything GPU-specific that `run` and `test` need lives in
//! [`Backend::open`] and [`Backend::run_node`].

use crate::args::{gpu_options, BackendArgs, BackendKind};
use anyhow::anyhow;
use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, DeviceProfile, PlanError, Planner, Tensor, Tunables};
use nbits_mlp_gpu::{GpuError, RunOptions, Runtime};
use nbits_mlp_onnx::{Model, RunError};
use nbits_mlp_reference::{mlp, MlpAttrs};
use std::fmt;

/// Variant name reported for the CPU reference.
pub const REFERENCE_VARIANT: &str = "reference";

/// An opened backend.
pub enum Backend {
    /// The CPU reference; the planner (project manifest) validates each call against the
    /// operator's contract first, exactly as the GPU path would.
    Cpu(Planner),
    /// The WebGPU runtime on one adapter.
    Gpu(Box<Runtime>),
}

/// Why a node could not be run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The call itself is invalid (attributes, tensors, tunables, contract): bad input.
    Invalid,
    /// A valid call the implementation failed to run (device, shader, limits).
    Failed,
}

/// The error of one node, classified.
#[derive(Debug)]
pub struct NodeError {
    /// Bad input or implementation failure.
    pub kind: FailureKind,
    /// What happened.
    pub error: anyhow::Error,
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::error_message(&self.error))
    }
}

impl NodeError {
    fn invalid(error: impl Into<anyhow::Error>) -> NodeError {
        NodeError {
            kind: FailureKind::Invalid,
            error: error.into(),
        }
    }
}

/// Whether a planning error is the caller's fault (rather than the device's or the manifest's).
fn plan_error_kind(e: &PlanError) -> FailureKind {
    match e {
        PlanError::Attribute { .. }
        | PlanError::Tensor { .. }
        | PlanError::UnknownTunable { .. }
        | PlanError::Contract { .. } => FailureKind::Invalid,
        _ => FailureKind::Failed,
    }
}

fn gpu_error_kind(e: &GpuError) -> FailureKind {
    match e {
        GpuError::Plan(p) => plan_error_kind(p),
        GpuError::Input { .. } | GpuError::Tensor { .. } => FailureKind::Invalid,
        _ => FailureKind::Failed,
    }
}

/// What one node produced.
pub struct NodeOutput {
    /// Outputs in ONNX order, `Some` for each requested one.
    pub outputs: Vec<Option<Tensor>>,
    /// The variant that ran ([`REFERENCE_VARIANT`] on the CPU).
    pub variant: String,
}

impl Backend {
    /// Opens the backend `args` selects (for the GPU: the adapter, planning for everything it
    /// granted).
    pub fn open(args: &BackendArgs) -> anyhow::Result<Backend> {
        match args.backend {
            BackendKind::Cpu => {
                if args.adapter.is_some() {
                    return Err(anyhow!("--adapter applies to --backend gpu only"));
                }
                Ok(Backend::Cpu(
                    Planner::project(DeviceProfile::discrete_gpu()),
                ))
            }
            BackendKind::Gpu => {
                let rt = Runtime::open(&gpu_options(args.adapter.as_deref())?)?;
                Ok(Backend::Gpu(Box::new(rt)))
            }
        }
    }

    /// `cpu` or `gpu`.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Cpu(_) => "cpu",
            Backend::Gpu(_) => "gpu",
        }
    }

    /// A description for reports: the CPU reference, or the adapter's name, backend and type.
    pub fn describe(&self) -> String {
        match self {
            Backend::Cpu(_) => "cpu float64 reference".into(),
            Backend::Gpu(rt) => {
                let i = rt.gpu().info();
                format!("{} ({:?}, {:?})", i.name, i.backend, i.device_type)
            }
        }
    }

    /// Runs one operator call: attributes as on the node, inputs in ONNX order (`None` where
    /// omitted), requested outputs in ONNX order.
    pub fn run_node(
        &self,
        attrs: &IndexMap<String, AttrValue>,
        inputs: &[Option<&Tensor>],
        want: &[bool],
        tunables: &Tunables,
    ) -> Result<NodeOutput, NodeError> {
        match self {
            Backend::Cpu(planner) => {
                let call = Runtime::op_call(attrs, inputs, want);
                planner.explain(&call, tunables).map_err(|e| NodeError {
                    kind: plan_error_kind(&e),
                    error: e.into(),
                })?;
                let a = MlpAttrs::from_attrs(attrs).map_err(NodeError::invalid)?;
                let want_residual = want.get(1).copied().unwrap_or(false);
                let out = mlp::run(&a, inputs, want_residual).map_err(NodeError::invalid)?;
                Ok(NodeOutput {
                    outputs: vec![Some(out.y), out.residual],
                    variant: REFERENCE_VARIANT.into(),
                })
            }
            Backend::Gpu(rt) => {
                let out = rt
                    .run(attrs, inputs, want, tunables, &RunOptions::default())
                    .map_err(|e| NodeError {
                        kind: gpu_error_kind(&e),
                        error: e.into(),
                    })?;
                Ok(NodeOutput {
                    outputs: out.outputs,
                    variant: out.plan.variant.clone(),
                })
            }
        }
    }

    /// Runs every node of `model` on `inputs` (one per graph input); returns the graph outputs
    /// and the variant of each node, in order.
    pub fn run_model(
        &self,
        model: &Model,
        inputs: &[Tensor],
        tunables: &Tunables,
    ) -> Result<(Vec<Tensor>, Vec<String>), NodeError> {
        let mut variants = Vec::new();
        let outputs = nbits_mlp_onnx::run_graph(model, inputs, |node, args, want| {
            let refs: Vec<Option<&Tensor>> = args.iter().map(Option::as_ref).collect();
            let out = self.run_node(&node.attrs, &refs, &want, tunables)?;
            variants.push(out.variant);
            Ok::<_, NodeError>(out.outputs)
        });
        match outputs {
            Ok(o) => Ok((o, variants)),
            // Graph-level problems (inputs that do not fit the model) are bad input; a node's
            // error keeps its kind, with the file and node named.
            Err(RunError::Onnx(e)) => Err(NodeError::invalid(e)),
            Err(RunError::Node { file, node, error }) => Err(NodeError {
                kind: error.kind,
                error: error
                    .error
                    .context(format!("{}: node {node}", file.display())),
            }),
        }
    }
}
