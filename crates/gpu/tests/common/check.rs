//! One call run on the GPU and checked against the float64 reference, for the tests that check
//! real plans (`differential.rs`, `variants/`).

use indexmap::IndexMap;
use nbits_mlp_core::manifest::BufferKind;
use nbits_mlp_core::plan::PassPlan;
use nbits_mlp_core::{AttrValue, DType, Plan, Tensor, Tunables};
use nbits_mlp_gpu::{RunOptions, Runtime};
use nbits_mlp_reference::{compare, mlp, MlpAttrs};
use std::sync::Arc;

/// The limit on storage buffers per shader stage.
pub const STORAGE_LIMIT: &str = "maxStorageBuffersPerShaderStage";

/// What a checked run gives back.
pub struct Checked {
    /// The plan that ran.
    pub plan: Arc<Plan>,
    /// Output 0.
    pub y: Tensor,
    /// Output 1 (`input_skip_bias_sum`), when requested.
    pub residual: Option<Tensor>,
    /// Max |Y - reference|.
    pub y_err: f64,
}

/// Storage buffers (everything but uniforms) bound by a pass.
pub fn storage_buffers(pass: &PassPlan) -> usize {
    pass.bindings
        .iter()
        .filter(|b| b.access != BufferKind::Uniform)
        .count()
}

/// Checks an output's dtype and shape.
pub fn check_tensor(t: &Tensor, dtype: DType, shape: &[usize], what: &str) {
    assert_eq!(t.dtype, dtype, "{what}: dtype");
    assert_eq!(t.shape, shape, "{what}: shape");
    assert_eq!(
        t.data.len(),
        shape.iter().product::<usize>() * dtype.size(),
        "{what}: bytes"
    );
}

/// Runs the op on `inputs` (A first, at any rank) on the GPU with poisoned outputs (an element
/// a kernel never writes fails) and checks it against the float64 reference
/// ([`check_outputs`]). Panics naming `what`, the variant and what failed.
pub fn run_checked(
    rt: &Runtime,
    attrs: &IndexMap<String, AttrValue>,
    inputs: &[Option<&Tensor>],
    residual: bool,
    tunables: &Tunables,
    what: &str,
) -> Checked {
    let out = rt
        .run(
            attrs,
            inputs,
            &[true, residual],
            tunables,
            &RunOptions { poison: true },
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    check_outputs(rt, out.plan, out.outputs, attrs, inputs, residual, what)
}

/// Checks the outputs a run of `plan` gave for `inputs` (run with poisoned outputs) against the
/// float64 reference: every pass within the profile's storage-buffer limit, the plan's rows,
/// Y's dtype, shape and values (through `compare::check_scaled`), and `input_skip_bias_sum`
/// (A's dtype and shape, its values) when `residual` asks for it, absent otherwise. Panics
/// naming `what`, the variant and what failed.
pub fn check_outputs(
    rt: &Runtime,
    plan: Arc<Plan>,
    outputs: Vec<Option<Tensor>>,
    attrs: &IndexMap<String, AttrValue>,
    inputs: &[Option<&Tensor>],
    residual: bool,
    what: &str,
) -> Checked {
    let a = inputs[0].unwrap_or_else(|| panic!("{what}: no A"));
    let mlp_attrs = MlpAttrs::from_attrs(attrs).unwrap_or_else(|e| panic!("{what}: {e}"));
    let want =
        mlp::run(&mlp_attrs, inputs, residual).unwrap_or_else(|e| panic!("{what}: reference: {e}"));
    let at = format!("{what} (variant {})", plan.variant);
    // The plan fits the profile it was made for.
    let limit = rt.profile().limit(STORAGE_LIMIT).unwrap_or(u64::MAX) as usize;
    for p in &plan.passes {
        assert!(
            storage_buffers(p) <= limit,
            "{at}: pass `{}` binds {} storage buffers, the profile allows {limit}",
            p.id,
            storage_buffers(p)
        );
    }
    let lead = &a.shape[..a.shape.len() - 1];
    assert_eq!(
        plan.rows as usize,
        lead.iter().product::<usize>(),
        "{at}: plan rows"
    );
    assert_eq!(outputs.len(), 2, "{at}: outputs");
    let y = outputs[0].clone().unwrap_or_else(|| panic!("{at}: no Y"));
    let mut y_shape = lead.to_vec();
    y_shape.push(mlp_attrs.n);
    check_tensor(&y, a.dtype, &y_shape, &format!("{at}: Y"));
    assert_eq!(want.y.shape, y.shape, "{at}: Y shape vs reference");
    compare::check_scaled(&want.y_f64, &want.y_err_scale, &y, plan.f16_accumulation())
        .unwrap_or_else(|e| panic!("{at}: Y {e}"));
    let y_err = compare::max_abs_error(&want.y_f64, &y);
    let got_residual = outputs[1].clone();
    match (&got_residual, &want.residual_f64) {
        (Some(r), Some(r64)) => {
            let what = format!("{at}: input_skip_bias_sum");
            check_tensor(r, a.dtype, &a.shape, &what);
            compare::check(r64, r).unwrap_or_else(|e| panic!("{what} {e}"));
        }
        (None, None) => {}
        (got, _) => panic!(
            "{at}: input_skip_bias_sum requested: {residual}, produced: {}",
            got.is_some()
        ),
    }
    Checked {
        plan,
        y,
        residual: got_residual,
        y_err,
    }
}
