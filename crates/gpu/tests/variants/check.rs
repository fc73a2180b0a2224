//! Runs of a [`Call`] checked against the reference (`common::check`), and comparing runs.

use crate::calls::Call;
use crate::common::check::{self, Checked, STORAGE_LIMIT};
use nbits_mlp_core::{Manifest, Plan, Tensor, Tunables};
use nbits_mlp_gpu::Runtime;

/// Runs `call` on the GPU (host API, poisoned outputs) and checks shapes and values against the
/// reference ([`check::run_checked`]); panics naming `what`, the call, the variant and what
/// failed.
pub fn run_checked(rt: &Runtime, call: &Call, tunables: &Tunables, what: &str) -> Checked {
    let case = call.case();
    check::run_checked(
        rt,
        &case.attrs,
        &case.input_refs(),
        call.shape.residual,
        tunables,
        &format!("{what}: {call}"),
    )
}

/// A sweep's check of which kernel ran: asserts that the plan's variant is of `family` (a name
/// prefix) exactly when `expected`, prints the run (`what`, variant, error) and says whether it
/// was.
pub fn took(c: &Checked, family: &str, expected: bool, what: &str) -> bool {
    let is = c.plan.variant.starts_with(family);
    assert_eq!(is, expected, "{what}: {}", c.plan.variant);
    println!("{what}: {} (err {:.2e})", c.plan.variant, c.y_err);
    is
}

/// The manifest's `requires.limits.maxStorageBuffersPerShaderStage` of a variant (0 if none).
pub fn storage_needed(manifest: &Manifest, variant: &str) -> u64 {
    manifest
        .variants
        .iter()
        .find(|v| v.decl.id == variant)
        .unwrap_or_else(|| panic!("no variant `{variant}` in the manifest"))
        .decl
        .requires
        .as_ref()
        .and_then(|r| r.limits.get(STORAGE_LIMIT).copied())
        .unwrap_or(0)
}

/// Max |a - b| over two float tensors of equal size.
pub fn max_diff(a: &Tensor, b: &Tensor) -> f64 {
    assert_eq!(a.shape, b.shape);
    a.to_f64()
        .iter()
        .zip(b.to_f64())
        .fold(0f64, |m, (x, y)| m.max((x - y).abs()))
}

pub fn same_wgsl(a: &Plan, b: &Plan) -> bool {
    a.passes.len() == b.passes.len()
        && a.passes
            .iter()
            .zip(&b.passes)
            .all(|(p, q)| p.wgsl == q.wgsl)
}

/// The runtime for a test of the tensor-core kernels: `None`, with a note naming `test`, the
/// adapter and its features, where there is no adapter or it lacks f16 cooperative matrices
/// (`coop-f16-16x16x16-f32`) with 32-wide subgroups (lavapipe: the emulated tests run those
/// kernels there).
pub fn tensor_core_runtime(test: &str) -> Option<Runtime> {
    let rt = nbits_mlp_gpu::testing::runtime()?;
    let feature = "coop-f16-16x16x16-f32";
    if rt.profile().has_feature(feature) && rt.profile().has_feature("subgroup-size-32") {
        return Some(rt);
    }
    eprintln!(
        "{test}: skipped: {} has no `{feature}` with 32-wide subgroups (features: {:?})",
        rt.gpu().info().name,
        rt.profile().features
    );
    None
}
