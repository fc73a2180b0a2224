//! The static check (`nbits-mlp check`): unknown names, derive cycles, missing bindings,
//! scratch ids and templates, `$refs` to missing derive entries, overlay checks and tunable
//! limits.

use super::derive::{derive_walk, DeriveFault};
use super::*;
use crate::expr::{Expr, Ref, NAMESPACES};
use std::collections::BTreeSet;

impl Manifest {
    /// Finds an input or output argument by name.
    pub fn tensor_arg(&self, arg: &str) -> Option<&TensorArg> {
        self.inputs
            .iter()
            .chain(self.outputs.iter())
            .find(|t| t.arg == arg)
    }

    /// Whether `name`, a tensor's or intermediate's declared type, is a dtype or one of the
    /// manifest's type constraints (the planner resolves it: `resolve_dtype`).
    fn names_a_type(&self, name: &str) -> bool {
        self.file.type_constraints.contains_key(name)
            || crate::tensor::DType::from_name(name).is_some()
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
            if !self.names_a_type(&t.decl.dtype) {
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
                if !self.names_a_type(&d.dtype) {
                    problems.push(format!(
                        "{p} intermediates.{}: dtype `{}` is neither a type constraint nor a dtype",
                        d.id, d.dtype
                    ));
                }
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
