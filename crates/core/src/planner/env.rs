//! One plan's evaluation environment ([`Ctx`]): the call's attributes, tunables and tensors, and
//! the derive entries evaluated lazily, at most once per plan (global entries once for all
//! variants unless the current variant shadows a name they depend on).

use super::lookup::{Lookup, VariantLookup};
use crate::device::DeviceProfile;
use crate::expr::{Env, ErrorKind, Expr, ExprError, Value};
use crate::manifest::{Manifest, Variant};
use crate::tensor::{DType, TensorInfo};
use indexmap::IndexMap;

/// Where a derive value is cached during a plan.
#[derive(Clone, Copy)]
enum Slot {
    /// A global entry whose value is the same in every variant, by position.
    Global(usize),
    /// A global entry whose value may differ in the current variant, by position.
    Shadowed(usize),
    /// A local entry of the current variant, by position.
    Local(usize),
}

/// The state of one plan: what the call gave, and the derive values computed so far.
pub(super) struct Ctx<'a> {
    pub(super) m: &'a Manifest,
    pub(super) lookup: &'a Lookup,
    pub(super) device: &'a DeviceProfile,
    pub(super) attrs: IndexMap<String, Value>,
    pub(super) tunables: IndexMap<String, i64>,
    /// Inputs then outputs, in manifest order.
    pub(super) tensors: Vec<Option<TensorInfo>>,
    pub(super) t1: DType,
    /// Values of global derive entries the variant cannot change, by position.
    global: Vec<Option<Value>>,
    /// Values, in the current variant, of the global entries it may change, by position.
    shadowed: Vec<Option<Value>>,
    /// Positions set in `shadowed` (cleared when the variant changes).
    shadowed_set: Vec<usize>,
    /// Values of the current variant's local entries, by position.
    local: Vec<Option<Value>>,
    pub(super) variant: Option<&'a Variant>,
    /// The current variant's lookup tables.
    vlookup: Option<&'a VariantLookup>,
    /// Derive entries being evaluated (cycle detection).
    in_progress: Vec<&'a str>,
}

impl<'a> Ctx<'a> {
    /// A context with no derive value computed yet and no current variant.
    pub(super) fn fresh(
        m: &'a Manifest,
        lookup: &'a Lookup,
        device: &'a DeviceProfile,
        attrs: IndexMap<String, Value>,
        tunables: IndexMap<String, i64>,
        tensors: Vec<Option<TensorInfo>>,
        t1: DType,
    ) -> Ctx<'a> {
        Ctx {
            m,
            lookup,
            device,
            attrs,
            tunables,
            tensors,
            t1,
            global: vec![None; m.derive.len()],
            shadowed: vec![None; m.derive.len()],
            shadowed_set: Vec::new(),
            local: Vec::new(),
            variant: None,
            vlookup: None,
            in_progress: Vec::new(),
        }
    }

    /// The position of tensor `arg` in [`Ctx::tensors`] (inputs then outputs).
    pub(super) fn tensor_index(&self, arg: &str) -> Option<usize> {
        self.m
            .inputs
            .iter()
            .chain(self.m.outputs.iter())
            .position(|t| t.arg == arg)
    }

    /// Makes variant `vi` (or none) current: its local entries and shadowed global entries are
    /// evaluated afresh.
    pub(super) fn set_variant(&mut self, vi: Option<usize>) {
        self.variant = vi.map(|i| &self.m.variants[i]);
        self.vlookup = vi.map(|i| &self.lookup.variants[i]);
        self.local.clear();
        self.local
            .resize(self.variant.map_or(0, |v| v.derive.len()), None);
        for i in self.shadowed_set.drain(..) {
            self.shadowed[i] = None;
        }
    }

    /// Evaluates derive entry `name` (expression `e`) and caches its value in `slot`; cycles and
    /// chains deeper than the manifest allows are errors.
    fn eval_derive(&mut self, name: &'a str, e: &'a Expr, slot: Slot) -> Result<Value, ExprError> {
        // Loading bounds derive chains (`MAX_DERIVE_DEPTH`); this bound keeps evaluation's
        // recursion and the cycle search below bounded whatever the manifest.
        if self.in_progress.len() > crate::manifest::MAX_DERIVE_DEPTH {
            return Err(e
                .error(
                    ErrorKind::Cycle,
                    format!(
                        "derive chain deeper than {} entries",
                        crate::manifest::MAX_DERIVE_DEPTH
                    ),
                )
                .within(format!("derive `{name}`")));
        }
        if self.in_progress.contains(&name) {
            let mut chain = self.in_progress.clone();
            chain.push(name);
            return Err(e
                .error(
                    ErrorKind::Cycle,
                    format!("derive cycle: {}", chain.join(" -> ")),
                )
                .within(format!("derive `{name}`")));
        }
        self.in_progress.push(name);
        let r = e.eval(self);
        self.in_progress.pop();
        let v = r.map_err(|err| err.within(format!("derive `{name}`")))?;
        let cache = match slot {
            Slot::Global(i) => &mut self.global[i],
            Slot::Shadowed(i) => {
                self.shadowed_set.push(i);
                &mut self.shadowed[i]
            }
            Slot::Local(i) => &mut self.local[i],
        };
        *cache = Some(v.clone());
        Ok(v)
    }

    /// The value of derive entry `name` in the current variant (its local entry first, then the
    /// global one), evaluated at most once; `None` when no entry has that name.
    pub(super) fn derive_value(&mut self, name: &str) -> Result<Option<Value>, ExprError> {
        let (m, vlookup) = (self.m, self.vlookup);
        if let (Some(v), Some(vl)) = (self.variant, vlookup) {
            if let Some(&i) = vl.local.get(name) {
                if let Some(x) = &self.local[i] {
                    return Ok(Some(x.clone()));
                }
                let (key, e) = v.derive.get_index(i).expect("local derive position");
                return self.eval_derive(key, e, Slot::Local(i)).map(Some);
            }
        }
        let Some(&i) = self.lookup.global.get(name) else {
            return Ok(None);
        };
        let (slot, cached) = if vlookup.is_some_and(|vl| vl.shadow[i]) {
            (Slot::Shadowed(i), &self.shadowed[i])
        } else {
            (Slot::Global(i), &self.global[i])
        };
        if let Some(x) = cached {
            return Ok(Some(x.clone()));
        }
        let (key, e) = m.derive.get_index(i).expect("global derive position");
        self.eval_derive(key, e, slot).map(Some)
    }
}

/// A shape value (a list of non-negative ints) as dimensions; `None` for anything else.
pub(super) fn shape_of(v: &Value) -> Option<Vec<usize>> {
    match v {
        Value::List(l) => l
            .iter()
            .map(|d| d.as_int().filter(|d| *d >= 0).map(|d| d as usize))
            .collect(),
        _ => None,
    }
}

impl Env for Ctx<'_> {
    fn derive(&mut self, name: &str) -> Result<Option<Value>, ExprError> {
        self.derive_value(name)
    }

    fn path(&mut self, path: &[String]) -> Result<Value, (ErrorKind, String)> {
        let unknown = || {
            (
                ErrorKind::UnknownName,
                format!("unknown name `{}`", path.join(".")),
            )
        };
        match (path[0].as_str(), path.len()) {
            ("attrs", 2) => self.attrs.get(&path[1]).cloned().ok_or_else(|| {
                if self.m.file.attributes.contains_key(&path[1]) {
                    (
                        ErrorKind::UnknownName,
                        format!("attribute `{}` is not set and has no default", path[1]),
                    )
                } else {
                    unknown()
                }
            }),
            ("tunables", 2) => self
                .tunables
                .get(&path[1])
                .map(|v| Value::Int(*v))
                .ok_or_else(unknown),
            ("device", 3) if path[1] == "limits" => self
                .device
                .limit(&path[2])
                .map(|v| Value::Int(v.min(i64::MAX as u64) as i64))
                .ok_or_else(unknown),
            ("shapes" | "ranks" | "tensorDtypes" | "present", 2) => {
                let i = self.tensor_index(&path[1]).ok_or_else(unknown)?;
                let t = &self.tensors[i];
                if path[0] == "present" {
                    return Ok(Value::Bool(t.is_some()));
                }
                let t = t.as_ref().ok_or_else(|| {
                    (
                        ErrorKind::AbsentTensor,
                        format!(
                            "tensor `{}` is not present (guard with present.{})",
                            path[1], path[1]
                        ),
                    )
                })?;
                Ok(match path[0].as_str() {
                    "shapes" => Value::shape(&t.shape),
                    "ranks" => Value::Int(t.shape.len() as i64),
                    _ => Value::Str(t.dtype.name().into()),
                })
            }
            _ => Err(unknown()),
        }
    }

    fn has_feature(&mut self, name: &str) -> bool {
        self.device.has_feature(name)
    }
}
