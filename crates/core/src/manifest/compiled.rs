//! The compiled manifest: the JSON model with every expression parsed ([`Manifest`], its
//! variants, passes, bindings and tensor arguments).

use super::model::{
    BindingDecl, IntermediateDecl, ManifestFile, PassDecl, TensorDecl, TunableLimit, VariantDecl,
};
use crate::expr::Expr;
use indexmap::IndexMap;
use std::collections::BTreeSet;

/// An input check, compiled.
#[derive(Clone, Debug)]
pub struct InputCheck {
    /// The tensor at fault.
    pub what: String,
    /// The condition.
    pub when: Expr,
    /// The message.
    pub why: String,
}

/// An attribute check, compiled.
#[derive(Clone, Debug)]
pub struct AttrCheck {
    /// The attribute it checks.
    pub attr: String,
    /// Its kind (`int`, `float`, `string`), when the check states one.
    pub kind: Option<String>,
    /// The condition.
    pub when: Expr,
    /// What the attribute must be.
    pub why: String,
}

/// A uniform struct field, compiled.
#[derive(Clone, Debug)]
pub struct StructField {
    /// WGSL field name.
    pub name: String,
    /// WGSL scalar type.
    pub ty: String,
    /// Value.
    pub value: Expr,
}

/// A binding, compiled.
#[derive(Clone, Debug)]
pub struct Binding {
    /// The declaration.
    pub decl: BindingDecl,
    /// `length` as an expression (`$X` becomes the derive `X`).
    pub length: Option<Expr>,
    /// Uniform struct fields.
    pub fields: Vec<StructField>,
}

/// A pass, compiled.
#[derive(Clone, Debug)]
pub struct Pass {
    /// The declaration.
    pub decl: PassDecl,
    /// Dispatch x, y, z.
    pub dispatch: [Expr; 3],
}

/// A variant, compiled.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The declaration.
    pub decl: VariantDecl,
    /// `when` items.
    pub when: Vec<Expr>,
    /// Variant-local derive entries.
    pub derive: IndexMap<String, Expr>,
    /// Intermediate shapes.
    pub intermediates: Vec<(IntermediateDecl, Expr)>,
    /// Passes.
    pub passes: Vec<Pass>,
    /// Global derive names whose value may differ in this variant (they depend, directly or not,
    /// on a name the variant shadows).
    pub shadow_sensitive: BTreeSet<String>,
    /// Per `when` item: true when its value cannot depend on the variant (it names no derive
    /// entry the variant shadows, directly or through global entries), so the planner may
    /// reuse its value from another variant with the same text.
    pub when_shared: Vec<bool>,
}

/// A tensor argument, compiled.
#[derive(Clone, Debug)]
pub struct TensorArg {
    /// Argument name (`aT`).
    pub arg: String,
    /// The declaration.
    pub decl: TensorDecl,
    /// Rank expression.
    pub rank: Option<Expr>,
    /// Output shape expression.
    pub shape: Option<Expr>,
}

/// A loaded manifest: the JSON model with every expression parsed.
#[derive(Clone, Debug)]
pub struct Manifest {
    /// The file as loaded (after any overlay is merged).
    pub file: ManifestFile,
    /// Inputs, ONNX order.
    pub inputs: Vec<TensorArg>,
    /// Outputs, ONNX order.
    pub outputs: Vec<TensorArg>,
    /// Global derive entries.
    pub derive: IndexMap<String, Expr>,
    /// Top-level `when`.
    pub when: Vec<Expr>,
    /// Bindings.
    pub bindings: IndexMap<String, Binding>,
    /// Variants, in file order.
    pub variants: Vec<Variant>,
    /// Candidate values per tunable (for `tune`).
    pub tunable_values: IndexMap<String, Vec<i64>>,
    /// Checks on attribute values (overlay `attributeChecks`), evaluated before any `when`.
    pub attribute_checks: Vec<AttrCheck>,
    /// The values each tunable may take (overlay `tunableLimits`).
    pub tunable_limits: IndexMap<String, TunableLimit>,
    /// Checks on the call's tensors (overlay `inputChecks`), evaluated before the top-level
    /// `when`.
    pub input_checks: Vec<InputCheck>,
}
