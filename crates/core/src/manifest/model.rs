//! The manifest's JSON model (seed and overlay files): serde types, key order kept, unknown
//! keys rejected.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// An expression field: a string holding an expression, or a JSON constant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ExprText {
    /// An expression (`"ceilDiv(attrs.N, tileCols)"`; `"0"` is the integer 0).
    Expr(String),
    /// A JSON integer constant.
    Int(i64),
    /// A JSON boolean constant.
    Bool(bool),
}

impl ExprText {
    /// The expression's source text (a constant as the expression it stands for).
    pub(super) fn text(&self) -> String {
        match self {
            ExprText::Expr(s) => s.clone(),
            ExprText::Int(i) => i.to_string(),
            ExprText::Bool(b) => b.to_string(),
        }
    }
}

/// A tensor argument (input or output).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TensorDecl {
    /// ONNX name.
    pub onnx: String,
    /// A type-constraint name (`T1`) or a concrete dtype (`uint8`).
    pub dtype: String,
    /// Whether the argument may be omitted.
    #[serde(default)]
    pub optional: bool,
    /// Rank: a constant or an expression.
    #[serde(default)]
    pub rank: Option<ExprText>,
    /// `"packed"` for MatMulNBits-packed weights.
    #[serde(default)]
    pub layout: Option<String>,
    /// Output shape expression.
    #[serde(default)]
    pub shape: Option<String>,
}

/// An attribute's declaration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttrDecl {
    /// Default value, if any.
    #[serde(default)]
    pub default: Option<serde_json::Value>,
}

/// Constraints on an attribute.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttrConstraint {
    /// The attribute must be given (no default applies).
    #[serde(default)]
    pub required: bool,
    /// The only values allowed.
    #[serde(default)]
    pub values: Option<Vec<serde_json::Value>>,
}

/// A tunable parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TunableDecl {
    /// Default value.
    pub default: i64,
    /// Candidate values for `nbits-mlp tune` (project extension; optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<i64>>,
}

/// How a binding is accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BufferKind {
    /// `var<storage, read>`
    ReadOnlyStorage,
    /// `var<storage, read_write>`
    Storage,
    /// `var<uniform>`
    Uniform,
}

impl BufferKind {
    /// The WGSL address space and access mode.
    pub fn wgsl(self) -> &'static str {
        match self {
            BufferKind::ReadOnlyStorage => "storage, read",
            BufferKind::Storage => "storage, read_write",
            BufferKind::Uniform => "uniform",
        }
    }
}

/// A uniform struct field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StructFieldDecl {
    /// WGSL field name.
    pub name: String,
    /// WGSL scalar type (`u32`, `i32`, `f32`).
    #[serde(rename = "type")]
    pub ty: String,
    /// Value expression.
    pub value: ExprText,
}

/// A buffer a pass may bind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BindingDecl {
    /// The caller's tensor (an input or output argument name).
    #[serde(default)]
    pub arg: Option<String>,
    /// An intermediate of the variant.
    #[serde(default)]
    pub scratch: Option<String>,
    /// WGSL variable name (default: the binding key).
    #[serde(default)]
    pub name: Option<String>,
    /// Access.
    pub buffer: BufferKind,
    /// WGSL element type or `$derive`.
    #[serde(default)]
    pub element_type: Option<String>,
    /// Minimum element count, `$derive` or an expression.
    #[serde(default)]
    pub length: Option<String>,
    /// Uniform struct fields.
    #[serde(default, rename = "struct")]
    pub fields: Option<Vec<StructFieldDecl>>,
    /// A prepared layout of the `arg` input (a [`crate::layout::PreparedLayout`] name, e.g.
    /// `mma-tiles:codes`): the pass reads the runtime's rearranged copy of the caller's weight
    /// tensor instead of the tensor itself. Absent: the caller's bytes as they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
}

/// Device requirements of a variant.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requires {
    /// `limit name -> minimum value`.
    #[serde(default)]
    pub limits: IndexMap<String, u64>,
}

/// An intermediate buffer of a variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntermediateDecl {
    /// Scratch id.
    pub id: String,
    /// Element dtype.
    pub dtype: String,
    /// Shape expression.
    pub shape: String,
}

/// Dispatch size expressions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DispatchDecl {
    /// Workgroups along x.
    pub x: ExprText,
    /// Along y (default 1).
    #[serde(default)]
    pub y: Option<ExprText>,
    /// Along z (default 1).
    #[serde(default)]
    pub z: Option<ExprText>,
}

/// One compute pass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PassDecl {
    /// Pass id.
    pub id: String,
    /// Human-readable name.
    #[serde(default)]
    pub name: Option<String>,
    /// Template file name.
    pub shader: String,
    /// Binding keys, in binding order.
    pub bindings: Vec<String>,
    /// Dispatch size.
    pub dispatch: DispatchDecl,
    /// `"portable"` when the pass may use subgroup operations.
    #[serde(default)]
    pub subgroup_collectives_width: Option<String>,
}

/// A candidate implementation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantDecl {
    /// Variant id.
    pub id: String,
    /// Higher wins among applying variants.
    pub priority: i64,
    /// Conditions that must all hold.
    #[serde(default)]
    pub when: Vec<String>,
    /// Device limits required.
    #[serde(default)]
    pub requires: Option<Requires>,
    /// Variant-local derive entries (shadow the global ones).
    #[serde(default)]
    pub derive: IndexMap<String, ExprText>,
    /// Intermediate buffers.
    #[serde(default)]
    pub intermediates: Vec<IntermediateDecl>,
    /// Passes, in order.
    pub passes: Vec<PassDecl>,
}

/// The manifest file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ManifestFile {
    /// ONNX domain.
    pub domain: String,
    /// ONNX op type.
    pub name: String,
    /// Opset version.
    pub since_version: i64,
    /// Inputs in ONNX order.
    pub inputs: IndexMap<String, TensorDecl>,
    /// Outputs in ONNX order.
    pub outputs: IndexMap<String, TensorDecl>,
    /// Attributes.
    pub attributes: IndexMap<String, AttrDecl>,
    /// Attribute constraints.
    #[serde(default)]
    pub attribute_constraints: IndexMap<String, AttrConstraint>,
    /// Type constraints: name -> allowed dtypes.
    #[serde(default)]
    pub type_constraints: IndexMap<String, Vec<String>>,
    /// Tunables.
    #[serde(default)]
    pub tunables: IndexMap<String, TunableDecl>,
    /// Global derive entries.
    #[serde(default)]
    pub derive: IndexMap<String, ExprText>,
    /// Conditions for every variant.
    #[serde(default)]
    pub when: Vec<String>,
    /// Buffers passes may bind.
    pub bindings: IndexMap<String, BindingDecl>,
    /// Variants.
    pub variants: Vec<VariantDecl>,
}

/// A project overlay: extra variants, derive entries, bindings and tunables added beside the
/// seed manifest (which is shipped unchanged). Keys must not collide with the seed's.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OverlayFile {
    /// What the overlay is for.
    #[serde(default)]
    pub description: Option<String>,
    /// Extra tunables.
    #[serde(default)]
    pub tunables: IndexMap<String, TunableDecl>,
    /// Candidate values for the seed's tunables (for `tune`).
    #[serde(default)]
    pub tunable_values: IndexMap<String, Vec<i64>>,
    /// Extra derive entries.
    #[serde(default)]
    pub derive: IndexMap<String, ExprText>,
    /// Extra bindings.
    #[serde(default)]
    pub bindings: IndexMap<String, BindingDecl>,
    /// Extra variants.
    #[serde(default)]
    pub variants: Vec<VariantDecl>,
    /// Checks on attribute values beyond the seed's `attributeConstraints` (which can only list
    /// allowed values): per attribute, a condition its value must meet and why.
    #[serde(default)]
    pub attribute_checks: IndexMap<String, AttrCheckDecl>,
    /// The values each tunable (seed or overlay) may take: what its templates can render. An
    /// override outside them is refused by the planner, naming the tunable.
    #[serde(default)]
    pub tunable_limits: IndexMap<String, TunableLimit>,
    /// Checks on the call's tensors that the seed states only inside variants' `when` (so a call
    /// breaking them would read "no variant applies"): evaluated before the seed's top-level
    /// `when`, each failure an error naming the tensor.
    #[serde(default)]
    pub input_checks: Vec<InputCheckDecl>,
}

/// A condition on the call's tensors (overlay `inputChecks`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputCheckDecl {
    /// The tensor at fault when it fails (`input 1 \`skip\``).
    pub what: String,
    /// A boolean expression (any name the manifest's expressions may use) that must hold.
    pub when: String,
    /// The message.
    pub why: String,
}

/// A condition on one attribute's value (overlay `attributeChecks`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttrCheckDecl {
    /// The value's kind, for attributes whose seed declaration has no default to take it from:
    /// `int`, `float` (an int is accepted and widened) or `string`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// A boolean expression over `attrs` (and nothing else) that must hold.
    pub when: String,
    /// What the attribute must be, for the error message (`must be a power of two, at least 16`).
    pub why: String,
}

/// The values a tunable may take (overlay `tunableLimits`): `min..=max`, powers of two only when
/// `pow2`, or exactly `values` when given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TunableLimit {
    /// Smallest value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    /// Largest value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
    /// Only powers of two.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pow2: bool,
    /// The only values allowed (instead of a range).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<i64>>,
    /// What the limit protects, for the error message.
    pub why: String,
}

impl TunableLimit {
    /// Whether `v` is allowed.
    pub fn allows(&self, v: i64) -> bool {
        if let Some(vals) = &self.values {
            return vals.contains(&v);
        }
        self.min.is_none_or(|m| v >= m)
            && self.max.is_none_or(|m| v <= m)
            && (!self.pow2 || (v > 0 && (v & (v - 1)) == 0))
    }

    /// The allowed values in words: `in 1..=64`, `a power of two in 4..=1024`, `one of [0, 2, 4]`.
    pub fn describe(&self) -> String {
        if let Some(vals) = &self.values {
            return format!("one of {vals:?}");
        }
        let range = match (self.min, self.max) {
            (Some(a), Some(b)) => format!("in {a}..={b}"),
            (Some(a), None) => format!(">= {a}"),
            (None, Some(b)) => format!("<= {b}"),
            (None, None) => "any value".into(),
        };
        if self.pow2 {
            format!("a power of two {range}")
        } else {
            range
        }
    }
}
