//! [`PlanError`]: why a call could not be planned, naming the attribute, tensor, tunable or
//! manifest expression at fault.

use crate::expr::ExprError;
use crate::plan::Verdict;
use crate::render::RenderError;
use std::fmt::Write as _;

/// An error making a plan. Each names the attribute, tensor, tunable or manifest expression at
/// fault.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A bad attribute (unknown, missing, wrong type, not an allowed value).
    #[error("attribute `{name}`: {message}")]
    Attribute {
        /// Attribute name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A bad input or output tensor (missing, wrong dtype, wrong rank, too large).
    #[error("{what}: {message}")]
    Tensor {
        /// `input 3 gate_B` or `output 1 input_skip_bias_sum`.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// An unknown tunable override.
    #[error("unknown tunable `{name}` (known: {known})")]
    UnknownTunable {
        /// The name given.
        name: String,
        /// Known tunables.
        known: String,
    },
    /// A tunable override outside the values its templates accept (overlay `tunableLimits`).
    #[error("tunable `{name}`: {message}")]
    Tunable {
        /// The tunable.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A top-level `when` item is false: the operator's contract is violated.
    #[error("contract violated (top-level when `{item}`): {why}")]
    Contract {
        /// The `when` item.
        item: String,
        /// Why it is false, down to the failing term.
        why: String,
    },
    /// An expression failed to evaluate.
    #[error("{0}")]
    Eval(#[from] ExprError),
    /// No variant applies; the list says why, per variant.
    #[error("no variant applies:\n{}", verdict_lines(.0))]
    NoVariant(Vec<Verdict>),
    /// Two applying variants share the top priority.
    #[error("variants {a} and {b} both apply with priority {priority}; the manifest must not tie")]
    Tie {
        /// One variant.
        a: String,
        /// The other.
        b: String,
        /// Their priority.
        priority: i64,
    },
    /// A dispatch dimension over the device's limit.
    #[error("pass `{pass}` dispatch.{axis} = {value} (`{expr}`) exceeds maxComputeWorkgroupsPerDimension = {limit}")]
    Dispatch {
        /// Pass id.
        pass: String,
        /// `x`, `y` or `z`.
        axis: char,
        /// The value.
        value: i64,
        /// The expression.
        expr: String,
        /// The device limit.
        limit: u64,
    },
    /// A bound buffer is too small or too large.
    #[error("binding `{binding}` of pass `{pass}`: {message}")]
    Binding {
        /// Binding key.
        binding: String,
        /// Pass id.
        pass: String,
        /// What is wrong.
        message: String,
    },
    /// A template failed to render.
    #[error(transparent)]
    Render(#[from] RenderError),
}

impl PlanError {
    /// Whether the call is at fault (a bad attribute or tensor, an unknown tunable or one outside
    /// its limits, a violated contract) rather than the device or the manifest: the CLI's "bad
    /// input" (exit 2), Python's `ValueError`, ONNX Runtime's invalid argument.
    pub fn is_caller_error(&self) -> bool {
        matches!(
            self,
            PlanError::Attribute { .. }
                | PlanError::Tensor { .. }
                | PlanError::UnknownTunable { .. }
                | PlanError::Tunable { .. }
                | PlanError::Contract { .. }
        )
    }
}

fn verdict_lines(v: &[Verdict]) -> String {
    let mut s = String::new();
    for x in v {
        let _ = write!(s, "  {:<28} (priority {}) ", x.variant, x.priority);
        match (&x.rejected_by, &x.why) {
            (Some(r), Some(w)) => {
                let _ = writeln!(s, "rejected by {r}: {w}");
            }
            (Some(r), None) => {
                let _ = writeln!(s, "rejected by {r}");
            }
            _ => {
                let _ = writeln!(s, "applies");
            }
        }
    }
    s.trim_end().to_string()
}
