//! The kernel manifest: its JSON model (serde, key order kept, unknown keys rejected with their
//! JSON path), every expression parsed once at load, and a static check.

use crate::expr::{Expr, ExprError, Ref, NAMESPACES};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The seed manifest shipped with the project (byte for byte the spec's).
pub const SEED_MANIFEST: &str = include_str!("../../../manifest/matmul_nbits_mlp.manifest.json");

/// The project's overlay: its own variants and tunable candidates, merged beside the seed.
pub const PROJECT_OVERLAY: &str = include_str!("../../../manifest/nbits-mlp.overlay.json");

// ---------------------------------------------------------------------------------------------
// JSON model

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
    fn text(&self) -> String {
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

/// The overlay's value checks, carried from the overlay file into [`Manifest::compile`].
#[derive(Default)]
struct OverlayChecks {
    attributes: IndexMap<String, AttrCheckDecl>,
    tunables: IndexMap<String, TunableLimit>,
    inputs: Vec<InputCheckDecl>,
}

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

// ---------------------------------------------------------------------------------------------
// Errors

/// An error loading or checking a manifest.
#[derive(Debug)]
pub enum ManifestError {
    /// Malformed JSON or an unknown/misspelled key, with its JSON path.
    Json {
        /// Where the text came from.
        origin: String,
        /// JSON path of the fault (`variants[3].passes[0].dispatch`).
        path: String,
        /// The serde message.
        message: String,
    },
    /// An expression that does not parse, with its JSON path.
    Expr {
        /// JSON path of the expression.
        path: String,
        /// The parse error.
        error: ExprError,
    },
    /// A static-check finding.
    Check(Vec<String>),
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Json {
                origin,
                path,
                message,
            } => write!(f, "{origin}: at `{path}`: {message}"),
            ManifestError::Expr { path, error } => {
                write!(f, "manifest expression at `{path}`: {error}")
            }
            ManifestError::Check(items) => {
                write!(
                    f,
                    "manifest check found {} problem{}:",
                    items.len(),
                    if items.len() == 1 { "" } else { "s" }
                )?;
                for i in items {
                    write!(f, "\n  - {i}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ManifestError {}

fn from_json<T: serde::de::DeserializeOwned>(text: &str, origin: &str) -> Result<T, ManifestError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut *de).map_err(|e| ManifestError::Json {
        origin: origin.into(),
        path: e.path().to_string(),
        message: e.inner().to_string(),
    })?;
    // Only whitespace may follow the document: trailing text is a damaged or concatenated file.
    de.end().map_err(|e| ManifestError::Json {
        origin: origin.into(),
        path: "(after the document)".into(),
        message: e.to_string(),
    })?;
    Ok(value)
}

// ---------------------------------------------------------------------------------------------
// Compiled manifest

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

fn compile(path: &str, text: &str) -> Result<Expr, ManifestError> {
    Expr::parse(text).map_err(|error| ManifestError::Expr {
        path: path.into(),
        error,
    })
}

fn compile_dollar(path: &str, text: &str) -> Result<Expr, ManifestError> {
    compile(path, text.strip_prefix('$').unwrap_or(text))
}

impl Manifest {
    /// The seed manifest.
    pub fn seed() -> Manifest {
        Manifest::from_json(SEED_MANIFEST, "seed manifest").expect("the seed manifest loads")
    }

    /// The seed manifest with the project's overlay (extra variants) merged.
    pub fn project() -> Manifest {
        Manifest::with_overlay(
            SEED_MANIFEST,
            "seed manifest",
            PROJECT_OVERLAY,
            "project overlay",
        )
        .expect("the project manifest loads")
    }

    /// Loads a manifest from JSON text; `origin` names it in errors.
    pub fn from_json(text: &str, origin: &str) -> Result<Manifest, ManifestError> {
        let file: ManifestFile = from_json(text, origin)?;
        Manifest::compile(file, IndexMap::new(), OverlayChecks::default())
    }

    /// Loads a manifest and merges an overlay file into it.
    pub fn with_overlay(
        text: &str,
        origin: &str,
        overlay: &str,
        overlay_origin: &str,
    ) -> Result<Manifest, ManifestError> {
        let mut file: ManifestFile = from_json(text, origin)?;
        let ov: OverlayFile = from_json(overlay, overlay_origin)?;
        let mut clashes = Vec::new();
        for (k, v) in ov.tunables {
            if file.tunables.insert(k.clone(), v).is_some() {
                clashes.push(format!("{overlay_origin}: tunable `{k}` already exists"));
            }
        }
        for (k, v) in ov.derive {
            if file.derive.insert(k.clone(), v).is_some() {
                clashes.push(format!("{overlay_origin}: derive `{k}` already exists"));
            }
        }
        for (k, v) in ov.bindings {
            if file.bindings.insert(k.clone(), v).is_some() {
                clashes.push(format!("{overlay_origin}: binding `{k}` already exists"));
            }
        }
        for v in ov.variants {
            if file.variants.iter().any(|x| x.id == v.id) {
                clashes.push(format!(
                    "{overlay_origin}: variant `{}` already exists",
                    v.id
                ));
            }
            file.variants.push(v);
        }
        if !clashes.is_empty() {
            return Err(ManifestError::Check(clashes));
        }
        let mut values = ov.tunable_values;
        for (k, t) in &file.tunables {
            if let Some(v) = &t.values {
                values.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        let checks = OverlayChecks {
            attributes: ov.attribute_checks,
            tunables: ov.tunable_limits,
            inputs: ov.input_checks,
        };
        Manifest::compile(file, values, checks)
    }

    fn compile(
        file: ManifestFile,
        tunable_values: IndexMap<String, Vec<i64>>,
        checks: OverlayChecks,
    ) -> Result<Manifest, ManifestError> {
        let tensor_args = |which: &str,
                           decls: &IndexMap<String, TensorDecl>|
         -> Result<Vec<TensorArg>, ManifestError> {
            decls
                .iter()
                .map(|(arg, d)| {
                    Ok(TensorArg {
                        arg: arg.clone(),
                        decl: d.clone(),
                        rank: d
                            .rank
                            .as_ref()
                            .map(|r| compile(&format!("{which}.{arg}.rank"), &r.text()))
                            .transpose()?,
                        shape: d
                            .shape
                            .as_ref()
                            .map(|s| compile(&format!("{which}.{arg}.shape"), s))
                            .transpose()?,
                    })
                })
                .collect()
        };
        let inputs = tensor_args("inputs", &file.inputs)?;
        let outputs = tensor_args("outputs", &file.outputs)?;
        let derive = file
            .derive
            .iter()
            .map(|(k, v)| Ok((k.clone(), compile(&format!("derive.{k}"), &v.text())?)))
            .collect::<Result<IndexMap<_, _>, ManifestError>>()?;
        let when = file
            .when
            .iter()
            .enumerate()
            .map(|(i, w)| compile(&format!("when[{i}]"), w))
            .collect::<Result<Vec<_>, _>>()?;
        let bindings = file
            .bindings
            .iter()
            .map(|(k, b)| {
                let length = b
                    .length
                    .as_ref()
                    .map(|l| compile_dollar(&format!("bindings.{k}.length"), l))
                    .transpose()?;
                let fields = b
                    .fields
                    .iter()
                    .flatten()
                    .enumerate()
                    .map(|(i, f)| {
                        Ok(StructField {
                            name: f.name.clone(),
                            ty: f.ty.clone(),
                            value: compile(
                                &format!("bindings.{k}.struct[{i}].value"),
                                &f.value.text(),
                            )?,
                        })
                    })
                    .collect::<Result<Vec<_>, ManifestError>>()?;
                Ok((
                    k.clone(),
                    Binding {
                        decl: b.clone(),
                        length,
                        fields,
                    },
                ))
            })
            .collect::<Result<IndexMap<_, _>, ManifestError>>()?;

        // Which global derives use which (reversed: name -> the entries naming it), for
        // shadowing: a variant's sensitive entries are those that reach a shadowed name. Walked
        // per variant from its shadowed names, so a long chain costs linear time, not a closure
        // per entry.
        let mut users: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for (k, e) in &derive {
            for r in e.refs() {
                if let Ref::Derive(d) = r {
                    users.entry(d).or_default().push(k.as_str());
                }
            }
        }
        let sensitive_to = |shadowed: &IndexMap<String, Expr>| -> BTreeSet<String> {
            let mut stack: Vec<&str> = shadowed.keys().map(String::as_str).collect();
            let mut reached: BTreeSet<&str> = stack.iter().copied().collect();
            while let Some(n) = stack.pop() {
                for u in users.get(n).into_iter().flatten() {
                    if reached.insert(u) {
                        stack.push(u);
                    }
                }
            }
            reached
                .into_iter()
                .filter(|k| derive.contains_key(*k))
                .map(str::to_string)
                .collect()
        };

        let mut variants = Vec::new();
        for (vi, v) in file.variants.iter().enumerate() {
            let p = format!("variants[{vi}]");
            let when = v
                .when
                .iter()
                .enumerate()
                .map(|(i, w)| compile(&format!("{p}.when[{i}]"), w))
                .collect::<Result<Vec<_>, _>>()?;
            let vderive = v
                .derive
                .iter()
                .map(|(k, e)| Ok((k.clone(), compile(&format!("{p}.derive.{k}"), &e.text())?)))
                .collect::<Result<IndexMap<_, _>, ManifestError>>()?;
            let intermediates = v
                .intermediates
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    Ok((
                        d.clone(),
                        compile(&format!("{p}.intermediates[{i}].shape"), &d.shape)?,
                    ))
                })
                .collect::<Result<Vec<_>, ManifestError>>()?;
            let passes = v
                .passes
                .iter()
                .enumerate()
                .map(|(i, pd)| {
                    let dp = format!("{p}.passes[{i}].dispatch");
                    let one = || Expr::constant(1);
                    Ok(Pass {
                        decl: pd.clone(),
                        dispatch: [
                            compile(&format!("{dp}.x"), &pd.dispatch.x.text())?,
                            pd.dispatch
                                .y
                                .as_ref()
                                .map(|y| compile(&format!("{dp}.y"), &y.text()))
                                .transpose()?
                                .unwrap_or_else(one),
                            pd.dispatch
                                .z
                                .as_ref()
                                .map(|z| compile(&format!("{dp}.z"), &z.text()))
                                .transpose()?
                                .unwrap_or_else(one),
                        ],
                    })
                })
                .collect::<Result<Vec<_>, ManifestError>>()?;
            let shadow_sensitive = sensitive_to(&vderive);
            let when_shared = when
                .iter()
                .map(|w| {
                    w.refs().iter().all(|r| match r {
                        Ref::Derive(d) => !vderive.contains_key(d) && !shadow_sensitive.contains(d),
                        Ref::Path(_) => true,
                    })
                })
                .collect();
            variants.push(Variant {
                decl: v.clone(),
                when,
                derive: vderive,
                intermediates,
                passes,
                shadow_sensitive,
                when_shared,
            });
        }
        let attribute_checks = checks
            .attributes
            .into_iter()
            .map(|(attr, c)| {
                Ok(AttrCheck {
                    when: compile(&format!("attributeChecks.{attr}.when"), &c.when)?,
                    kind: c.kind,
                    attr,
                    why: c.why,
                })
            })
            .collect::<Result<Vec<_>, ManifestError>>()?;
        let input_checks = checks
            .inputs
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                Ok(InputCheck {
                    when: compile(&format!("inputChecks[{i}].when"), &c.when)?,
                    what: c.what,
                    why: c.why,
                })
            })
            .collect::<Result<Vec<_>, ManifestError>>()?;
        let manifest = Manifest {
            file,
            inputs,
            outputs,
            derive,
            when,
            bindings,
            variants,
            tunable_values,
            attribute_checks,
            tunable_limits: checks.tunables,
            input_checks,
        };
        manifest.check_depth()?;
        Ok(manifest)
    }

    /// The derive scopes: the global entries, and for each variant with local entries the
    /// global ones with its own on top.
    fn derive_scopes(&self) -> Vec<(String, Vec<(&str, &Expr)>)> {
        let mut scopes: Vec<(String, Vec<(&str, &Expr)>)> = vec![(
            "derive".into(),
            self.derive.iter().map(|(k, e)| (k.as_str(), e)).collect(),
        )];
        for v in self.variants.iter().filter(|v| !v.derive.is_empty()) {
            let mut m: IndexMap<&str, &Expr> =
                self.derive.iter().map(|(k, e)| (k.as_str(), e)).collect();
            for (k, e) in &v.derive {
                m.insert(k.as_str(), e);
            }
            scopes.push((format!("variant `{}`", v.decl.id), m.into_iter().collect()));
        }
        scopes
    }

    /// Refuses derive chains deeper than [`MAX_DERIVE_DEPTH`] when a manifest loads, so that
    /// evaluation (recursive, one level per entry) is bounded and `check` stays linear in the
    /// manifest's size. Cycles are `check`'s to report (and an evaluation error).
    fn check_depth(&self) -> Result<(), ManifestError> {
        let problems: BTreeSet<String> = self
            .derive_scopes()
            .iter()
            .filter_map(|(place, scope)| match derive_walk(scope) {
                Err(DeriveFault::TooDeep(p)) => Some(format!("{place}: {p}")),
                _ => None,
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ManifestError::Check(problems.into_iter().collect()))
        }
    }

    /// Finds an input or output argument by name.
    pub fn tensor_arg(&self, arg: &str) -> Option<&TensorArg> {
        self.inputs
            .iter()
            .chain(self.outputs.iter())
            .find(|t| t.arg == arg)
    }

    /// The static check: unknown names, derive cycles, missing bindings / scratch ids / templates,
    /// `$refs` to missing derives. `templates` lists the template names that exist.
    pub fn check(&self, templates: &[&str]) -> Result<(), ManifestError> {
        let mut problems = Vec::new();
        let args: BTreeSet<&str> = self
            .inputs
            .iter()
            .chain(&self.outputs)
            .map(|t| t.arg.as_str())
            .collect();
        let attrs: BTreeSet<&str> = self.file.attributes.keys().map(String::as_str).collect();
        let tunables: BTreeSet<&str> = self.file.tunables.keys().map(String::as_str).collect();
        let check_expr = |place: &str,
                          e: &Expr,
                          local: Option<&Variant>,
                          problems: &mut Vec<String>| {
            for r in e.refs() {
                match r {
                    Ref::Derive(d) => {
                        let known = self.derive.contains_key(&d)
                            || local.is_some_and(|v| v.derive.contains_key(&d));
                        // Variant-local names may be referenced by global derives evaluated in a
                        // variant; accept a name some variant defines.
                        let some_variant = self.variants.iter().any(|v| v.derive.contains_key(&d));
                        if !known && !some_variant {
                            problems
                                .push(format!("{place}: unknown name `{d}` in `{}`", e.source()));
                        }
                    }
                    Ref::Path(p) => {
                        let ok = match (p[0].as_str(), p.len()) {
                            ("attrs", 2) => attrs.contains(p[1].as_str()),
                            ("tunables", 2) => tunables.contains(p[1].as_str()),
                            ("shapes" | "ranks" | "tensorDtypes" | "present", 2) => {
                                args.contains(p[1].as_str())
                            }
                            ("device", 3) => {
                                p[1] == "limits"
                                    && crate::device::WEBGPU_DEFAULT_LIMITS
                                        .iter()
                                        .any(|(k, _)| *k == p[2])
                                    || (p[1] == "features" && p[2] == "has")
                            }
                            _ => false,
                        };
                        if !ok {
                            problems.push(format!(
                                "{place}: unknown name `{}` in `{}` (namespaces: {})",
                                p.join("."),
                                e.source(),
                                NAMESPACES.join(", ")
                            ));
                        }
                    }
                }
            }
        };
        for (k, e) in &self.derive {
            check_expr(&format!("derive.{k}"), e, None, &mut problems);
        }
        for (i, e) in self.when.iter().enumerate() {
            check_expr(&format!("when[{i}]"), e, None, &mut problems);
        }
        for t in self.inputs.iter().chain(&self.outputs) {
            for e in t.rank.iter().chain(t.shape.iter()) {
                check_expr(&t.arg, e, None, &mut problems);
            }
            if !self.file.type_constraints.contains_key(&t.decl.dtype)
                && crate::tensor::DType::from_name(&t.decl.dtype).is_none()
            {
                problems.push(format!(
                    "{}: dtype `{}` is neither a type constraint nor a dtype",
                    t.arg, t.decl.dtype
                ));
            }
        }
        for (k, b) in &self.bindings {
            if let Some(a) = &b.decl.arg {
                if !args.contains(a.as_str()) {
                    problems.push(format!("bindings.{k}: arg `{a}` is not an input or output"));
                }
            }
            if let Some(l) = &b.decl.layout {
                if crate::layout::PreparedLayout::from_name(l).is_none() {
                    let known: Vec<&str> = crate::layout::PreparedLayout::ALL
                        .iter()
                        .map(|l| l.name())
                        .collect();
                    problems.push(format!(
                        "bindings.{k}: layout `{l}` is not a prepared layout (known: {})",
                        known.join(", ")
                    ));
                }
                let is_input = b
                    .decl
                    .arg
                    .as_deref()
                    .is_some_and(|a| self.inputs.iter().any(|t| t.arg == a));
                if !is_input || b.decl.buffer != BufferKind::ReadOnlyStorage {
                    problems.push(format!(
                        "bindings.{k}: a prepared `layout` needs `arg` naming an input, bound read-only"
                    ));
                }
            }
            if b.decl.arg.is_some() == b.decl.scratch.is_some()
                && b.decl.buffer != BufferKind::Uniform
            {
                problems.push(format!(
                    "bindings.{k}: a storage binding needs exactly one of `arg` and `scratch`"
                ));
            }
            if b.decl.buffer == BufferKind::Uniform && b.fields.is_empty() {
                problems.push(format!(
                    "bindings.{k}: a uniform binding needs `struct` fields"
                ));
            }
            for (what, text) in [
                ("elementType", &b.decl.element_type),
                ("length", &b.decl.length),
            ] {
                if let Some(name) = text.as_deref().and_then(|t| t.strip_prefix('$')) {
                    if !self.derive.contains_key(name) {
                        problems.push(format!(
                            "bindings.{k}.{what}: `${name}` refers to a missing derive entry"
                        ));
                    }
                }
            }
            for f in &b.fields {
                check_expr(
                    &format!("bindings.{k}.struct.{}", f.name),
                    &f.value,
                    None,
                    &mut problems,
                );
                if !matches!(f.ty.as_str(), "u32" | "i32" | "f32") {
                    problems.push(format!(
                        "bindings.{k}.struct.{}: unsupported uniform field type `{}`",
                        f.name, f.ty
                    ));
                }
            }
        }
        let mut ids = BTreeSet::new();
        for v in &self.variants {
            let p = format!("variant `{}`", v.decl.id);
            if !ids.insert(v.decl.id.as_str()) {
                problems.push(format!("{p}: duplicate variant id"));
            }
            for (i, e) in v.when.iter().enumerate() {
                check_expr(&format!("{p} when[{i}]"), e, Some(v), &mut problems);
            }
            for (k, e) in &v.derive {
                check_expr(&format!("{p} derive.{k}"), e, Some(v), &mut problems);
            }
            for (d, e) in &v.intermediates {
                check_expr(
                    &format!("{p} intermediates.{}", d.id),
                    e,
                    Some(v),
                    &mut problems,
                );
            }
            for lim in v.decl.requires.iter().flat_map(|r| r.limits.keys()) {
                if !crate::device::WEBGPU_DEFAULT_LIMITS
                    .iter()
                    .any(|(k, _)| k == lim)
                {
                    problems.push(format!("{p}: requires unknown limit `{lim}`"));
                }
            }
            for pass in &v.passes {
                let pp = format!("{p} pass `{}`", pass.decl.id);
                if !templates.contains(&pass.decl.shader.as_str()) {
                    problems.push(format!(
                        "{pp}: template `{}` does not exist",
                        pass.decl.shader
                    ));
                }
                for (axis, e) in ["x", "y", "z"].iter().zip(&pass.dispatch) {
                    check_expr(&format!("{pp} dispatch.{axis}"), e, Some(v), &mut problems);
                }
                let mut bound = BTreeSet::new();
                for b in &pass.decl.bindings {
                    if !bound.insert(b.as_str()) {
                        problems.push(format!(
                            "{pp}: binding `{b}` is listed twice (each binding is declared once)"
                        ));
                    }
                    match self.bindings.get(b) {
                        None => problems.push(format!("{pp}: binding `{b}` does not exist")),
                        Some(bd) => {
                            if let Some(s) = &bd.decl.scratch {
                                if !v.intermediates.iter().any(|(d, _)| &d.id == s) {
                                    problems.push(format!("{pp}: binding `{b}` uses scratch `{s}`, which the variant does not declare"));
                                }
                            }
                        }
                    }
                }
            }
        }
        for c in &self.attribute_checks {
            let place = format!("attributeChecks.{}", c.attr);
            if !attrs.contains(c.attr.as_str()) {
                problems.push(format!("{place}: `{}` is not an attribute", c.attr));
            }
            if let Some(k) = c
                .kind
                .as_deref()
                .filter(|k| !matches!(*k, "int" | "float" | "string"))
            {
                problems.push(format!("{place}: kind `{k}` is not int, float or string"));
            }
            for r in c.when.refs() {
                let only_attrs = matches!(&r, Ref::Path(p) if p.len() == 2 && p[0] == "attrs" && attrs.contains(p[1].as_str()));
                if !only_attrs {
                    problems.push(format!(
                        "{place}: `{}` may name only attributes (`attrs.NAME`)",
                        c.when.source()
                    ));
                }
            }
        }
        for (i, c) in self.input_checks.iter().enumerate() {
            check_expr(&format!("inputChecks[{i}]"), &c.when, None, &mut problems);
        }
        for (name, limit) in &self.tunable_limits {
            let place = format!("tunableLimits.{name}");
            let Some(t) = self.file.tunables.get(name) else {
                problems.push(format!("{place}: `{name}` is not a tunable"));
                continue;
            };
            for v in std::iter::once(&t.default)
                .chain(self.tunable_values.get(name).into_iter().flatten())
            {
                if !limit.allows(*v) {
                    problems.push(format!(
                        "{place}: the default or candidate value {v} is not {}",
                        limit.describe()
                    ));
                }
            }
        }
        for name in self.file.tunables.keys() {
            if !self.tunable_limits.is_empty() && !self.tunable_limits.contains_key(name) {
                problems.push(format!(
                    "tunable `{name}` has no entry in tunableLimits (every tunable states what its templates accept)"
                ));
            }
        }
        // Derive cycles (global, and global + each variant's local entries).
        let cycles: BTreeSet<String> = self
            .derive_scopes()
            .iter()
            .filter_map(|(_, scope)| match derive_walk(scope) {
                Err(DeriveFault::Cycle(c)) => Some(c),
                _ => None,
            })
            .collect();
        for c in cycles {
            problems.push(format!("derive cycle: {c}"));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ManifestError::Check(problems))
        }
    }
}

/// The longest derive chain a manifest may have (entry -> entry it names -> ...). The seed and
/// the overlay use fewer than 20 levels.
pub const MAX_DERIVE_DEPTH: usize = 128;

/// What [`derive_walk`] found wrong in a derive scope.
enum DeriveFault {
    /// A cycle, as `a -> b -> a`.
    Cycle(String),
    /// A chain deeper than [`MAX_DERIVE_DEPTH`].
    TooDeep(String),
}

/// Walks a derive scope depth-first with an explicit stack (a hostile chain cannot overflow the
/// call stack): the first cycle or chain deeper than [`MAX_DERIVE_DEPTH`] found.
fn derive_walk(scope: &[(&str, &Expr)]) -> Result<(), DeriveFault> {
    let index: BTreeMap<&str, usize> = scope
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (*k, i))
        .collect();
    let deps: Vec<Vec<usize>> = scope
        .iter()
        .map(|(_, e)| {
            e.refs()
                .into_iter()
                .filter_map(|r| match r {
                    Ref::Derive(d) => index.get(d.as_str()).copied(),
                    Ref::Path(_) => None,
                })
                .collect()
        })
        .collect();
    // 0 = unvisited, 1 = on the stack, 2 = done; depth[i] = longest chain from i.
    let mut state = vec![0u8; scope.len()];
    let mut depth = vec![0usize; scope.len()];
    for start in 0..scope.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some(&mut (n, ref mut next)) = stack.last_mut() {
            if let Some(&d) = deps[n].get(*next) {
                *next += 1;
                match state[d] {
                    0 => {
                        if stack.len() > MAX_DERIVE_DEPTH {
                            let chain: Vec<&str> =
                                stack.iter().take(4).map(|(i, _)| scope[*i].0).collect();
                            return Err(DeriveFault::TooDeep(format!(
                                "derive chain deeper than {MAX_DERIVE_DEPTH} entries ({} -> ...)",
                                chain.join(" -> ")
                            )));
                        }
                        state[d] = 1;
                        stack.push((d, 0));
                    }
                    1 => {
                        let pos = stack.iter().position(|(i, _)| *i == d).unwrap_or(0);
                        let mut c: Vec<&str> =
                            stack[pos..].iter().map(|(i, _)| scope[*i].0).collect();
                        c.push(scope[d].0);
                        return Err(DeriveFault::Cycle(c.join(" -> ")));
                    }
                    _ => {}
                }
            } else {
                stack.pop();
                state[n] = 2;
                depth[n] = 1 + deps[n].iter().map(|d| depth[*d]).max().unwrap_or(0);
                if depth[n] > MAX_DERIVE_DEPTH {
                    return Err(DeriveFault::TooDeep(format!(
                        "derive chain deeper than {MAX_DERIVE_DEPTH} entries (from `{}`)",
                        scope[n].0
                    )));
                }
            }
        }
    }
    Ok(())
}
