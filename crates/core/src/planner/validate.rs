//! The call against the operator's contract, before any variant is looked at: what the manifest
//! declares directly (attributes, tunable overrides, input presence, dtypes and constant ranks,
//! the overlay's `attributeChecks`, output shapes), then its `inputChecks` and top-level `when`.
//! Each fault is reported naming the attribute, tunable or tensor.

use super::env::{shape_of, Ctx};
use super::lookup::Lookup;
use super::{PlanError, Tunables};
use crate::device::DeviceProfile;
use crate::expr::{ErrorKind, NodeKind, Value};
use crate::manifest::Manifest;
use crate::op::{AttrValue, OpCall};
use crate::tensor::{DType, TensorInfo};
use indexmap::IndexMap;

impl<'a> Ctx<'a> {
    /// The context of a plan for `call` with tunable `overrides`, once the call passes the
    /// checks of what the manifest declares directly (the contract's `when` comes after:
    /// [`Ctx::check_contract`]).
    pub(super) fn new(
        m: &'a Manifest,
        lookup: &'a Lookup,
        device: &'a DeviceProfile,
        call: &OpCall,
        overrides: &Tunables,
    ) -> Result<Ctx<'a>, PlanError> {
        let attrs = attributes(m, call)?;
        let tunables = tunables(m, device, overrides)?;
        let (tensors, t1) = inputs(m, call)?;
        let mut ctx = Ctx::fresh(m, lookup, device, attrs, tunables, tensors, t1);
        ctx.check_attribute_values()?;
        ctx.shape_outputs(call)?;
        Ok(ctx)
    }

    /// The overlay's `attributeChecks`, before anything computes with the attributes.
    fn check_attribute_values(&mut self) -> Result<(), PlanError> {
        for c in &self.m.attribute_checks {
            let given = self.attrs.get(&c.attr);
            let got = given.map_or("nothing".to_string(), |v| v.to_string());
            if let (Some(kind), Some(v)) = (c.kind.as_deref(), given) {
                let same = v.kind() == kind || (kind == "float" && v.kind() == "int");
                if !same {
                    return Err(PlanError::Attribute {
                        name: c.attr.clone(),
                        message: format!("expected {kind}, got {} {got}", v.kind()),
                    });
                }
            }
            // A value the check cannot even evaluate (a NaN that cannot be ordered) fails it.
            if !c.when.eval_bool(self).unwrap_or(false) {
                return Err(PlanError::Attribute {
                    name: c.attr.clone(),
                    message: format!("{} (got {got})", c.why),
                });
            }
        }
        Ok(())
    }

    /// The requested outputs: presence, dtype and shape from their expressions.
    fn shape_outputs(&mut self, call: &OpCall) -> Result<(), PlanError> {
        let m = self.m;
        if call.outputs.len() > m.outputs.len() {
            return Err(PlanError::Tensor {
                what: format!("output {}", m.outputs.len()),
                message: format!(
                    "the operator has {} outputs, {} requested",
                    m.outputs.len(),
                    call.outputs.len()
                ),
            });
        }
        for (i, arg) in m.outputs.iter().enumerate() {
            let present = !arg.decl.optional || call.outputs.get(i).copied().unwrap_or(false);
            if !present {
                continue;
            }
            let dtype = self.resolve_dtype(&arg.decl.dtype).unwrap_or(self.t1);
            let shape = match &arg.shape {
                Some(e) => {
                    let v = e
                        .eval(self)
                        .map_err(|e| e.within(format!("outputs.{}.shape", arg.arg)))?;
                    shape_of(&v).ok_or_else(|| {
                        e.error(
                            ErrorKind::TypeMismatch,
                            format!("output shape must be a list of non-negative ints, got {v}"),
                        )
                        .within(format!("outputs.{}.shape", arg.arg))
                    })?
                }
                None => Vec::new(),
            };
            self.tensors[m.inputs.len() + i] = Some(TensorInfo::new(dtype, shape));
        }
        Ok(())
    }

    /// The manifest's `inputChecks`, then its top-level `when`: a false item is a violated
    /// contract, explained down to the failing term.
    pub(super) fn check_contract(&mut self) -> Result<(), PlanError> {
        let m = self.m;
        for (i, c) in m.input_checks.iter().enumerate() {
            if !c
                .when
                .eval_bool(self)
                .map_err(|e| e.within(format!("inputChecks[{i}]")))?
            {
                return Err(PlanError::Tensor {
                    what: c.what.clone(),
                    message: c.why.clone(),
                });
            }
        }
        for (i, w) in m.when.iter().enumerate() {
            if !w
                .eval_bool(self)
                .map_err(|e| e.within(format!("when[{i}]")))?
            {
                return Err(PlanError::Contract {
                    item: w.source().to_string(),
                    why: self.why_false(w, w.root()),
                });
            }
        }
        Ok(())
    }
}

/// The call's attributes with the manifest's defaults filled in: unknown names, required ones,
/// kinds (as the default's) and `attributeConstraints.values` checked.
fn attributes(m: &Manifest, call: &OpCall) -> Result<IndexMap<String, Value>, PlanError> {
    for name in call.attrs.keys() {
        if !m.file.attributes.contains_key(name) {
            return Err(PlanError::Attribute {
                name: name.clone(),
                message: format!(
                    "unknown attribute (known: {})",
                    m.file
                        .attributes
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
    }
    let mut attrs = IndexMap::new();
    for (name, decl) in &m.file.attributes {
        let c = m.file.attribute_constraints.get(name);
        let given = call.attrs.get(name).map(attr_to_value);
        let v = match given {
            Some(v) => Some(v),
            None if c.is_some_and(|c| c.required) => {
                return Err(PlanError::Attribute {
                    name: name.clone(),
                    message: "required attribute is missing".into(),
                })
            }
            None => decl.default.as_ref().and_then(json_to_value),
        };
        if let Some(v) = &v {
            if let Some(def) = decl.default.as_ref().and_then(json_to_value) {
                check_attribute_kind(name, &def, v)?;
            }
            if let Some(allowed) = c.and_then(|c| c.values.as_ref()) {
                check_allowed_value(name, allowed, v)?;
            }
            attrs.insert(name.clone(), v.clone());
        }
    }
    Ok(attrs)
}

/// An attribute's value must be of its default's kind (an int where a float is expected is
/// fine).
fn check_attribute_kind(name: &str, def: &Value, v: &Value) -> Result<(), PlanError> {
    let same_kind = matches!(
        (def, v),
        (Value::Int(_), Value::Int(_))
            | (Value::Float(_), Value::Float(_) | Value::Int(_))
            | (Value::Str(_), Value::Str(_))
    );
    if same_kind {
        return Ok(());
    }
    Err(PlanError::Attribute {
        name: name.to_string(),
        message: format!(
            "expected {} like the default {def}, got {} {v}",
            def.kind(),
            v.kind()
        ),
    })
}

/// An attribute's value must be one of `attributeConstraints.values`.
fn check_allowed_value(
    name: &str,
    allowed: &[serde_json::Value],
    v: &Value,
) -> Result<(), PlanError> {
    let allowed: Vec<Value> = allowed.iter().filter_map(json_to_value).collect();
    if allowed.iter().any(|a| {
        crate::expr::Value::eq(a, v)
            || matches!((a, v), (Value::Int(x), Value::Float(y)) if *x as f64 == *y)
    }) {
        return Ok(());
    }
    Err(PlanError::Attribute {
        name: name.to_string(),
        message: format!(
            "value {v} is not allowed (allowed: {})",
            Value::List(allowed)
        ),
    })
}

/// Every tunable of the manifest at its default (the device's default where its profile sets one
/// the manifest declares and allows, [`DeviceProfile::tunables`]), with `overrides` applied: an
/// unknown name or a value outside the overlay's `tunableLimits` is an error naming the tunable.
fn tunables(
    m: &Manifest,
    device: &DeviceProfile,
    overrides: &Tunables,
) -> Result<IndexMap<String, i64>, PlanError> {
    let mut tunables: IndexMap<String, i64> = m
        .file
        .tunables
        .iter()
        .map(|(k, t)| {
            let allowed = |v: &i64| m.tunable_limits.get(k).is_none_or(|l| l.allows(*v));
            let default = device.tunables.get(k).copied().filter(allowed);
            (k.clone(), default.unwrap_or(t.default))
        })
        .collect();
    for (k, v) in overrides {
        let Some(slot) = tunables.get_mut(k) else {
            return Err(PlanError::UnknownTunable {
                name: k.clone(),
                known: m
                    .file
                    .tunables
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        if let Some(limit) = m.tunable_limits.get(k).filter(|l| !l.allows(*v)) {
            return Err(PlanError::Tunable {
                name: k.clone(),
                message: format!(
                    "{v} is not allowed: it must be {} ({})",
                    limit.describe(),
                    limit.why
                ),
            });
        }
        *slot = *v
    }
    Ok(tunables)
}

/// The inputs in manifest order followed by a slot per output (filled later), and the type
/// `T1` is bound to (f32 when no input binds it): count, presence, dtypes against the type
/// constraints, and constant declared ranks checked.
fn inputs(m: &Manifest, call: &OpCall) -> Result<(Vec<Option<TensorInfo>>, DType), PlanError> {
    if call.inputs.len() > m.inputs.len() {
        return Err(PlanError::Tensor {
            what: format!("input {}", m.inputs.len()),
            message: format!(
                "the operator takes at most {} inputs, got {}",
                m.inputs.len(),
                call.inputs.len()
            ),
        });
    }
    let mut tensors: Vec<Option<TensorInfo>> = Vec::with_capacity(m.inputs.len() + m.outputs.len());
    let mut t1: Option<(DType, String)> = None;
    for (i, arg) in m.inputs.iter().enumerate() {
        let what = format!("input {i} `{}`", arg.decl.onnx);
        let t = call.inputs.get(i).cloned().flatten();
        match &t {
            None if !arg.decl.optional => {
                return Err(PlanError::Tensor {
                    what,
                    message: "required input is missing".into(),
                })
            }
            None => {}
            Some(t) => {
                check_input_dtype(m, arg, t, &mut t1).map_err(|message| PlanError::Tensor {
                    what: what.clone(),
                    message,
                })?;
                check_input_rank(arg, t).map_err(|message| PlanError::Tensor { what, message })?;
            }
        }
        tensors.push(t);
    }
    let t1 = t1.map(|x| x.0).unwrap_or(DType::F32);
    for _ in &m.outputs {
        tensors.push(None);
    }
    Ok((tensors, t1))
}

/// An input's dtype against its type constraint (binding the type parameter on first use, in
/// `t1`: the type and the input that bound it) or its fixed dtype.
fn check_input_dtype(
    m: &Manifest,
    arg: &crate::manifest::TensorArg,
    t: &TensorInfo,
    t1: &mut Option<(DType, String)>,
) -> Result<(), String> {
    let Some(allowed) = m.file.type_constraints.get(&arg.decl.dtype) else {
        if DType::from_name(&arg.decl.dtype) != Some(t.dtype) {
            return Err(format!(
                "expected dtype {}, got {}",
                arg.decl.dtype, t.dtype
            ));
        }
        return Ok(());
    };
    if !allowed.iter().any(|a| a == t.dtype.name()) {
        return Err(format!(
            "dtype {} is not allowed for {} (allowed: {})",
            t.dtype,
            arg.decl.dtype,
            allowed.join(", ")
        ));
    }
    match t1 {
        None => *t1 = Some((t.dtype, arg.decl.onnx.clone())),
        Some((d, first)) if *d != t.dtype => {
            return Err(format!(
                "type parameter {} is bound to different types: `{first}` is {d}, `{}` is {}",
                arg.decl.dtype, arg.decl.onnx, t.dtype
            ))
        }
        _ => {}
    }
    Ok(())
}

/// An input's rank against its declared rank when that is a constant.
fn check_input_rank(arg: &crate::manifest::TensorArg, t: &TensorInfo) -> Result<(), String> {
    let rank = arg.rank.as_ref().and_then(|r| {
        if let NodeKind::Int(r) = r.root().kind {
            Some(r)
        } else {
            None
        }
    });
    match rank {
        Some(r) if t.shape.len() as i64 != r => {
            Err(format!("expected rank {r}, got shape {:?}", t.shape))
        }
        _ => Ok(()),
    }
}

/// An attribute value as an expression value.
fn attr_to_value(v: &AttrValue) -> Value {
    match v {
        AttrValue::Int(i) => Value::Int(*i),
        AttrValue::Float(f) => Value::Float(*f),
        AttrValue::Str(s) => Value::Str(s.clone()),
        AttrValue::Ints(v) => Value::List(v.iter().map(|i| Value::Int(*i)).collect()),
        AttrValue::Floats(v) => Value::List(v.iter().map(|f| Value::Float(*f)).collect()),
    }
}

/// A JSON value (a manifest default or allowed value) as an expression value; `None` for
/// objects and null.
fn json_to_value(v: &serde_json::Value) -> Option<Value> {
    Some(match v {
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64()?),
        },
        serde_json::Value::String(s) => Value::Str(s.clone()),
        serde_json::Value::Array(a) => {
            Value::List(a.iter().map(json_to_value).collect::<Option<_>>()?)
        }
        serde_json::Value::Object(_) | serde_json::Value::Null => return None,
    })
}
