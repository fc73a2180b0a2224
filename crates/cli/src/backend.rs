//! The two implementations of the operator behind one interface: the WebGPU runtime and the CPU
//! float64 reference. Everything GPU-specific that `run` and `test` need lives in
//! [`Backend::open`] and [`Backend::run_node`].

use crate::args::{gpu_options, BackendArgs, BackendKind};
use anyhow::anyhow;
use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, DeviceProfile, OpCall, Planner, Tensor, Tunables};
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
    Cpu(Box<Planner>),
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

impl FailureKind {
    /// `Invalid` where the caller is at fault (`PlanError::is_caller_error`,
    /// `GpuError::is_caller_error`), else `Failed`.
    fn of(caller_error: bool) -> FailureKind {
        if caller_error {
            FailureKind::Invalid
        } else {
            FailureKind::Failed
        }
    }
}

/// The call the CPU backend validates: the same, with A (and skip) cut to at most one row. The
/// contract's checks do not depend on the row count except the GPU's dispatch limits (at most
/// 65535 rows per dispatch), which the CPU reference does not have. A skip of another shape
/// than A is left as it is, so the contract still refuses it.
fn row_limits_lifted(mut call: OpCall) -> OpCall {
    let same = match (call.inputs.first(), call.inputs.get(1)) {
        (Some(Some(a)), Some(Some(s))) => a.shape == s.shape,
        _ => true,
    };
    if !same {
        return call;
    }
    for t in call.inputs.iter_mut().take(2).flatten() {
        let rank = t.shape.len();
        if rank >= 2 && t.shape[..rank - 1].iter().product::<usize>() > 1 {
            for d in &mut t.shape[..rank - 1] {
                *d = 1;
            }
        }
    }
    call
}

/// What one node produced.
pub struct NodeOutput {
    /// Outputs in ONNX order, `Some` for each requested one.
    pub outputs: Vec<Option<Tensor>>,
    /// The variant that ran ([`REFERENCE_VARIANT`] on the CPU).
    pub variant: String,
    /// Tunables the tuning cache applied (empty: none).
    pub tuned: Tunables,
    /// Whether the kernel kept partial sums in float16 ([`nbits_mlp_core::Plan::f16_accumulation`]).
    pub f16_accumulation: bool,
}

/// What running a model produced.
pub struct ModelRun {
    /// The graph outputs.
    pub outputs: Vec<Tensor>,
    /// The variant of each node, in order.
    pub variants: Vec<String>,
    /// Per node, the tunables a tuning cache applied (empty: none).
    pub tuned: Vec<Tunables>,
    /// Whether any node's kernel kept partial sums in float16.
    pub f16_accumulation: bool,
}

impl Backend {
    /// Opens the backend `args` selects (for the GPU: the adapter, planning for everything it
    /// granted, with its tuning cache from the default location when there is one; a corrupt or
    /// stale cache is ignored with a warning).
    pub fn open(args: &BackendArgs) -> anyhow::Result<Backend> {
        match args.backend {
            BackendKind::Cpu => {
                if args.adapter.is_some() {
                    return Err(anyhow!("--adapter applies to --backend gpu only"));
                }
                Ok(Backend::Cpu(Box::new(Planner::project(
                    DeviceProfile::discrete_gpu(),
                ))))
            }
            BackendKind::Gpu => {
                let rt = Runtime::open(&gpu_options(args.adapter.as_deref())?)?;
                let (rt, warning) = rt.with_default_tuning();
                if let Some(w) = warning {
                    eprintln!("warning: {w}");
                }
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

    /// A description for reports: the CPU reference, or the adapter's name, backend and type
    /// (and the tuning cache in use).
    pub fn describe(&self) -> String {
        match self {
            Backend::Cpu(_) => "cpu float64 reference".into(),
            Backend::Gpu(rt) => {
                let i = rt.gpu().info();
                let tuned = self
                    .tuning_cache()
                    .map(|p| format!(", tuned cache {p}"))
                    .unwrap_or_default();
                format!("{} ({:?}, {:?}{tuned})", i.name, i.backend, i.device_type)
            }
        }
    }

    /// The tuning cache file the GPU runtime uses, if any.
    pub fn tuning_cache(&self) -> Option<String> {
        match self {
            Backend::Cpu(_) => None,
            Backend::Gpu(rt) => rt
                .tuning()
                .and_then(|t| t.source.as_ref())
                .map(|p| p.display().to_string()),
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
                let call = row_limits_lifted(OpCall::from_tensors(attrs, inputs, want));
                planner.explain(&call, tunables).map_err(|e| NodeError {
                    kind: FailureKind::of(e.is_caller_error()),
                    error: e.into(),
                })?;
                let a = MlpAttrs::from_attrs(attrs).map_err(NodeError::invalid)?;
                let want_residual = want.get(1).copied().unwrap_or(false);
                let out = mlp::run(&a, inputs, want_residual).map_err(NodeError::invalid)?;
                Ok(NodeOutput {
                    outputs: vec![Some(out.y), out.residual],
                    variant: REFERENCE_VARIANT.into(),
                    tuned: Tunables::new(),
                    f16_accumulation: false,
                })
            }
            Backend::Gpu(rt) => {
                let gpu_error = |e: GpuError| NodeError {
                    kind: FailureKind::of(e.is_caller_error()),
                    error: e.into(),
                };
                let call = OpCall::from_tensors(attrs, inputs, want);
                // Values past what a kernel's float16 staging holds take other kernels (as the
                // GPU runtime's `run` does).
                let planned = nbits_mlp_core::op::plan_for_values(
                    rt.plan_tuned(&call, tunables).map_err(gpu_error)?,
                    tunables,
                    |p| nbits_mlp_core::op::values_overflow(&p.plan, inputs),
                    |t| rt.plan_tuned(&call, t).map_err(gpu_error),
                )?;
                if let Some(w) = planned.warning() {
                    eprintln!("warning: {w}");
                }
                let plan = planned.plan;
                let outputs = rt
                    .run_plan(&plan, inputs, &RunOptions::default())
                    .map_err(gpu_error)?;
                Ok(NodeOutput {
                    outputs,
                    variant: plan.variant.clone(),
                    tuned: planned.tuned,
                    f16_accumulation: plan.f16_accumulation(),
                })
            }
        }
    }

    /// Runs every node of `model` on `inputs` (one per graph input): the graph outputs and, per
    /// node in order, the variant and the tunables a tuning cache applied.
    pub fn run_model_tuned(
        &self,
        model: &Model,
        inputs: &[Tensor],
        tunables: &Tunables,
    ) -> Result<ModelRun, NodeError> {
        let mut variants = Vec::new();
        let mut tuned = Vec::new();
        let mut f16_accumulation = false;
        let outputs = nbits_mlp_onnx::run_graph(model, inputs, |node, args, want| {
            let refs: Vec<Option<&Tensor>> = args.iter().map(Option::as_ref).collect();
            let out = self.run_node(&node.attrs, &refs, &want, tunables)?;
            variants.push(out.variant);
            tuned.push(out.tuned);
            f16_accumulation |= out.f16_accumulation;
            Ok::<_, NodeError>(out.outputs)
        });
        match outputs {
            Ok(outputs) => Ok(ModelRun {
                outputs,
                variants,
                tuned,
                f16_accumulation,
            }),
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
