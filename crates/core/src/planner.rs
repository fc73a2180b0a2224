//! The planner: (attributes, input descriptions, requested outputs, tunables, device) -> [`Plan`].
//!
//! Variant selection follows the spec: every `when` of the manifest, then per variant its `when`
//! items and `requires.limits`; the highest priority wins and ties are errors. Every derive entry
//! is evaluated lazily, at most once per plan (global entries once for all variants unless they
//! depend on a name the variant shadows). Plans are cached by everything they depend on.

use crate::device::DeviceProfile;
use crate::expr::{Env, ErrorKind, Expr, ExprError, Node, NodeKind, Value};
use crate::manifest::{BufferKind, Manifest, Variant};
use crate::op::{AttrValue, OpCall};
use crate::plan::*;
use crate::render::{RenderError, Target, Templates};
use crate::tensor::{DType, TensorInfo};
use indexmap::IndexMap;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex};

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

/// Makes plans for one device, with a cache.
pub struct Planner {
    manifest: Arc<Manifest>,
    lookup: Lookup,
    templates: Arc<Templates>,
    /// The templates' `inputs` headers checked against the manifest once, here; an error is
    /// returned by every plan (boxed: the planner stays small).
    inputs: Result<(), Box<RenderError>>,
    device: DeviceProfile,
    target: Target,
    why: bool,
    cache: Mutex<FastMap<Vec<u8>, Arc<Plan>>>,
}

impl std::fmt::Debug for Planner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Planner")
            .field("device", &self.device.name)
            .finish()
    }
}

/// A small multiplicative hasher for the planner's own maps (short string and byte keys, no
/// untrusted-input concerns: a slow SipHash showed up in cold-plan profiles).
#[derive(Default)]
struct FastHasher(u64);

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// Tunable overrides by name.
pub type Tunables = BTreeMap<String, i64>;

impl Planner {
    /// A planner for `device` over a manifest and templates. The templates' `inputs` headers
    /// are checked against the manifest here, once; if a variant lacks a name its template
    /// reads, every plan fails with that error ([`RenderError::Inputs`]).
    pub fn new(
        manifest: Arc<Manifest>,
        templates: Arc<Templates>,
        device: DeviceProfile,
    ) -> Planner {
        Planner {
            lookup: Lookup::new(&manifest),
            inputs: templates.check_inputs(&manifest).map_err(Box::new),
            manifest,
            templates,
            device,
            target: Target::Wgpu,
            why: false,
            cache: Mutex::new(FastMap::default()),
        }
    }
    /// A planner with the project's manifest (seed + overlay) and built-in templates.
    pub fn project(device: DeviceProfile) -> Planner {
        Planner::new(
            Arc::new(Manifest::project()),
            Arc::new(Templates::builtin()),
            device,
        )
    }
    /// Sets the WGSL target (enables differ between wgpu and browsers).
    pub fn with_target(mut self, target: Target) -> Planner {
        self.target = target;
        self
    }
    /// Whether plans explain why each rejected variant's term is false (`Verdict::why`); off by
    /// default to keep cold planning cheap. [`Planner::explain`] always explains.
    pub fn with_explained_verdicts(mut self, on: bool) -> Planner {
        self.why = on;
        self
    }
    /// The device profile.
    pub fn device(&self) -> &DeviceProfile {
        &self.device
    }
    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }
    /// Number of cached plans.
    pub fn cached(&self) -> usize {
        self.cache.lock().map(|c| c.len()).unwrap_or(0)
    }

    /// A plan for `call`, from the cache when the same call was planned before.
    pub fn plan(&self, call: &OpCall, tunables: &Tunables) -> Result<Arc<Plan>, PlanError> {
        let key = cache_key(call, tunables);
        if let Some(p) = self.cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(p);
        }
        let plan = Arc::new(self.plan_uncached(call, tunables)?);
        if let Ok(mut c) = self.cache.lock() {
            c.insert(key, plan.clone());
        }
        Ok(plan)
    }

    /// Every variant's verdict for `call` (what `explain` prints). Errors that stop planning
    /// before variant selection (bad attributes, a false top-level `when`) are returned as such.
    pub fn explain(&self, call: &OpCall, tunables: &Tunables) -> Result<Vec<Verdict>, PlanError> {
        self.inputs.clone().map_err(|e| *e)?;
        let mut ctx = Ctx::new(&self.manifest, &self.lookup, &self.device, call, tunables)?;
        ctx.check_contract()?;
        ctx.verdicts(true)
    }

    /// A plan without the cache.
    pub fn plan_uncached(&self, call: &OpCall, tunables: &Tunables) -> Result<Plan, PlanError> {
        self.inputs.clone().map_err(|e| *e)?;
        let mut ctx = Ctx::new(&self.manifest, &self.lookup, &self.device, call, tunables)?;
        ctx.check_contract()?;
        let verdicts = ctx.verdicts(self.why)?;
        let mut best: Option<(usize, i64)> = None;
        for (i, v) in verdicts.iter().enumerate() {
            if !v.applies {
                continue;
            }
            match best {
                Some((j, p)) if p == v.priority => {
                    return Err(PlanError::Tie {
                        a: verdicts[j].variant.clone(),
                        b: v.variant.clone(),
                        priority: p,
                    })
                }
                Some((_, p)) if p > v.priority => {}
                _ => best = Some((i, v.priority)),
            }
        }
        // A later variant with a higher priority may have replaced an earlier tie candidate;
        // check ties against the final winner too.
        let Some((wi, wp)) = best else {
            let explained = if self.why {
                verdicts
            } else {
                ctx.verdicts(true)?
            };
            return Err(PlanError::NoVariant(explained));
        };
        if let Some(other) = verdicts
            .iter()
            .enumerate()
            .find(|(i, v)| v.applies && v.priority == wp && *i != wi)
        {
            return Err(PlanError::Tie {
                a: verdicts[wi].variant.clone(),
                b: other.1.variant.clone(),
                priority: wp,
            });
        }
        ctx.build(wi, verdicts, &self.templates, self.target)
    }
}

fn cache_key(call: &OpCall, tunables: &Tunables) -> Vec<u8> {
    let mut k = Vec::with_capacity(256);
    let mut s = |b: &[u8]| {
        k.extend_from_slice(&(b.len() as u32).to_le_bytes());
        k.extend_from_slice(b);
    };
    for (name, v) in &call.attrs {
        s(name.as_bytes());
        match v {
            AttrValue::Int(i) => s(&[&[0u8][..], &i.to_le_bytes()].concat()),
            AttrValue::Float(f) => s(&[&[1u8][..], &f.to_bits().to_le_bytes()].concat()),
            AttrValue::Str(x) => s(&[&[2u8][..], x.as_bytes()].concat()),
            AttrValue::Ints(v) => s(&[3u8]
                .into_iter()
                .chain(v.iter().flat_map(|i| i.to_le_bytes()))
                .collect::<Vec<_>>()),
            AttrValue::Floats(v) => s(&[4u8]
                .into_iter()
                .chain(v.iter().flat_map(|i| i.to_bits().to_le_bytes()))
                .collect::<Vec<_>>()),
        }
    }
    s(b"|inputs");
    for t in &call.inputs {
        match t {
            None => s(&[0xff]),
            Some(t) => s(&[t.dtype as u8]
                .into_iter()
                .chain(t.shape.iter().flat_map(|d| (*d as u64).to_le_bytes()))
                .collect::<Vec<_>>()),
        }
    }
    s(b"|outputs");
    s(&call.outputs.iter().map(|b| *b as u8).collect::<Vec<_>>());
    s(b"|tunables");
    for (n, v) in tunables {
        s(n.as_bytes());
        s(&v.to_le_bytes());
    }
    k
}

// ---------------------------------------------------------------------------------------------

/// Lookup tables over one manifest, built with the planner so that a plan finds derive entries
/// and shared `when` values by position rather than by hashing and comparing names and texts.
struct Lookup {
    /// Global derive name -> its position in [`Manifest::derive`].
    global: FastMap<String, usize>,
    /// Per variant, in manifest order.
    variants: Vec<VariantLookup>,
    /// Number of distinct `when` texts that some variant may share.
    when_slots: usize,
}

/// [`Lookup`]'s tables for one variant.
struct VariantLookup {
    /// Local derive name -> its position in [`Variant::derive`].
    local: FastMap<String, usize>,
    /// Per global derive position: whether its value may differ in this variant
    /// ([`Variant::shadow_sensitive`]).
    shadow: Vec<bool>,
    /// Per `when` item: the slot of its text when its value cannot depend on the variant
    /// ([`Variant::when_shared`]), shared by every such item with the same text.
    when_slot: Vec<Option<usize>>,
}

impl Lookup {
    fn new(m: &Manifest) -> Lookup {
        let global: FastMap<String, usize> = m
            .derive
            .keys()
            .enumerate()
            .map(|(i, k)| (k.clone(), i))
            .collect();
        let mut slots: FastMap<&str, usize> = FastMap::default();
        let variants = m
            .variants
            .iter()
            .map(|v| VariantLookup {
                local: v
                    .derive
                    .keys()
                    .enumerate()
                    .map(|(i, k)| (k.clone(), i))
                    .collect(),
                shadow: m
                    .derive
                    .keys()
                    .map(|k| v.shadow_sensitive.contains(k))
                    .collect(),
                when_slot: v
                    .when
                    .iter()
                    .enumerate()
                    .map(|(i, w)| {
                        v.when_shared.get(i).copied().unwrap_or(false).then(|| {
                            let next = slots.len();
                            *slots.entry(w.source()).or_insert(next)
                        })
                    })
                    .collect(),
            })
            .collect();
        Lookup {
            global,
            variants,
            when_slots: slots.len(),
        }
    }
}

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

struct Ctx<'a> {
    m: &'a Manifest,
    lookup: &'a Lookup,
    device: &'a DeviceProfile,
    attrs: IndexMap<String, Value>,
    tunables: IndexMap<String, i64>,
    /// Inputs then outputs, in manifest order.
    tensors: Vec<Option<TensorInfo>>,
    t1: DType,
    /// Values of global derive entries the variant cannot change, by position.
    global: Vec<Option<Value>>,
    /// Values, in the current variant, of the global entries it may change, by position.
    shadowed: Vec<Option<Value>>,
    /// Positions set in `shadowed` (cleared when the variant changes).
    shadowed_set: Vec<usize>,
    /// Values of the current variant's local entries, by position.
    local: Vec<Option<Value>>,
    variant: Option<&'a Variant>,
    /// The current variant's lookup tables.
    vlookup: Option<&'a VariantLookup>,
    /// Derive entries being evaluated (cycle detection).
    in_progress: Vec<&'a str>,
}

fn attr_to_value(v: &AttrValue) -> Value {
    match v {
        AttrValue::Int(i) => Value::Int(*i),
        AttrValue::Float(f) => Value::Float(*f),
        AttrValue::Str(s) => Value::Str(s.clone()),
        AttrValue::Ints(v) => Value::List(v.iter().map(|i| Value::Int(*i)).collect()),
        AttrValue::Floats(v) => Value::List(v.iter().map(|f| Value::Float(*f)).collect()),
    }
}

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

impl<'a> Ctx<'a> {
    fn new(
        m: &'a Manifest,
        lookup: &'a Lookup,
        device: &'a DeviceProfile,
        call: &OpCall,
        overrides: &Tunables,
    ) -> Result<Ctx<'a>, PlanError> {
        // Attributes: unknown names, defaults, required, allowed values, kinds.
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
                    let same_kind = matches!(
                        (&def, v),
                        (Value::Int(_), Value::Int(_))
                            | (Value::Float(_), Value::Float(_) | Value::Int(_))
                            | (Value::Str(_), Value::Str(_))
                    );
                    if !same_kind {
                        return Err(PlanError::Attribute {
                            name: name.clone(),
                            message: format!(
                                "expected {} like the default {def}, got {} {v}",
                                def.kind(),
                                v.kind()
                            ),
                        });
                    }
                }
                if let Some(allowed) = c.and_then(|c| c.values.as_ref()) {
                    let allowed: Vec<Value> = allowed.iter().filter_map(json_to_value).collect();
                    if !allowed.iter().any(|a| {
                        crate::expr::Value::eq(a, v)
                            || matches!((a, v), (Value::Int(x), Value::Float(y)) if *x as f64 == *y)
                    }) {
                        return Err(PlanError::Attribute {
                            name: name.clone(),
                            message: format!(
                                "value {v} is not allowed (allowed: {})",
                                Value::List(allowed)
                            ),
                        });
                    }
                }
                attrs.insert(name.clone(), v.clone());
            }
        }
        // Tunables.
        let mut tunables: IndexMap<String, i64> = m
            .file
            .tunables
            .iter()
            .map(|(k, t)| (k.clone(), t.default))
            .collect();
        for (k, v) in overrides {
            match tunables.get_mut(k) {
                Some(slot) => {
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
                None => {
                    return Err(PlanError::UnknownTunable {
                        name: k.clone(),
                        known: m
                            .file
                            .tunables
                            .keys()
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", "),
                    })
                }
            }
        }
        // Inputs: count, presence, dtypes (type constraints), declared constant ranks.
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
        let mut tensors: Vec<Option<TensorInfo>> =
            Vec::with_capacity(m.inputs.len() + m.outputs.len());
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
                    if let Some(allowed) = m.file.type_constraints.get(&arg.decl.dtype) {
                        if !allowed.iter().any(|a| a == t.dtype.name()) {
                            return Err(PlanError::Tensor {
                                what,
                                message: format!(
                                    "dtype {} is not allowed for {} (allowed: {})",
                                    t.dtype,
                                    arg.decl.dtype,
                                    allowed.join(", ")
                                ),
                            });
                        }
                        match &t1 {
                            None => t1 = Some((t.dtype, arg.decl.onnx.clone())),
                            Some((d, first)) if *d != t.dtype => {
                                return Err(PlanError::Tensor {
                                    what,
                                    message: format!("type parameter {} is bound to different types: `{first}` is {d}, `{}` is {}", arg.decl.dtype, arg.decl.onnx, t.dtype),
                                })
                            }
                            _ => {}
                        }
                    } else if DType::from_name(&arg.decl.dtype) != Some(t.dtype) {
                        return Err(PlanError::Tensor {
                            what,
                            message: format!("expected dtype {}, got {}", arg.decl.dtype, t.dtype),
                        });
                    }
                    if let Some(r) = arg.rank.as_ref().and_then(|r| {
                        if let NodeKind::Int(r) = r.root().kind {
                            Some(r)
                        } else {
                            None
                        }
                    }) {
                        if t.shape.len() as i64 != r {
                            return Err(PlanError::Tensor {
                                what,
                                message: format!("expected rank {r}, got shape {:?}", t.shape),
                            });
                        }
                    }
                }
            }
            tensors.push(t);
        }
        let t1 = t1.map(|x| x.0).unwrap_or(DType::F32);
        for _ in &m.outputs {
            tensors.push(None);
        }
        let mut ctx = Ctx {
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
        };
        // Attribute values (overlay `attributeChecks`), before anything computes with them.
        for c in &m.attribute_checks {
            let given = ctx.attrs.get(&c.attr);
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
            if !c.when.eval_bool(&mut ctx).unwrap_or(false) {
                return Err(PlanError::Attribute {
                    name: c.attr.clone(),
                    message: format!("{} (got {got})", c.why),
                });
            }
        }
        // Outputs: presence, dtype, shape from their expressions.
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
            let dtype = if m.file.type_constraints.contains_key(&arg.decl.dtype) {
                t1
            } else {
                DType::from_name(&arg.decl.dtype).unwrap_or(t1)
            };
            let shape = match &arg.shape {
                Some(e) => {
                    let v = e
                        .eval(&mut ctx)
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
            ctx.tensors[m.inputs.len() + i] = Some(TensorInfo::new(dtype, shape));
        }
        Ok(ctx)
    }

    /// The geometry of a prepared weight tensor: the op's N, K, bits and block size, and the
    /// tensor's element size.
    fn prepared_weights(
        &self,
        layout: crate::layout::PreparedLayout,
        t: &TensorInfo,
    ) -> Result<crate::layout::PreparedWeights, PlanError> {
        let int = |name: &str| -> Result<usize, PlanError> {
            match self.attrs.get(name) {
                Some(Value::Int(i)) if *i > 0 => Ok(*i as usize),
                other => Err(PlanError::Attribute {
                    name: name.to_string(),
                    message: format!(
                        "prepared layout {layout} needs a positive int, got {other:?}"
                    ),
                }),
            }
        };
        Ok(crate::layout::PreparedWeights {
            layout,
            n: int("N")?,
            k: int("K")?,
            bits: int("bits")? as u32,
            block_size: int("block_size")?,
            elem_bytes: t.dtype.size(),
        })
    }

    fn tensor_index(&self, arg: &str) -> Option<usize> {
        self.m
            .inputs
            .iter()
            .chain(self.m.outputs.iter())
            .position(|t| t.arg == arg)
    }

    fn check_contract(&mut self) -> Result<(), PlanError> {
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

    /// Makes variant `vi` (or none) current: its local entries and shadowed global entries are
    /// evaluated afresh.
    fn set_variant(&mut self, vi: Option<usize>) {
        self.variant = vi.map(|i| &self.m.variants[i]);
        self.vlookup = vi.map(|i| &self.lookup.variants[i]);
        self.local.clear();
        self.local
            .resize(self.variant.map_or(0, |v| v.derive.len()), None);
        for i in self.shadowed_set.drain(..) {
            self.shadowed[i] = None;
        }
    }

    fn verdicts(&mut self, with_why: bool) -> Result<Vec<Verdict>, PlanError> {
        let m = self.m;
        let mut out = Vec::with_capacity(m.variants.len());
        // Values of `when` items that cannot depend on the variant, by the slot of their text.
        let mut shared: Vec<Option<bool>> = vec![None; self.lookup.when_slots];
        for (vi, v) in m.variants.iter().enumerate() {
            self.set_variant(Some(vi));
            let slots = &self.lookup.variants[vi].when_slot;
            let mut verdict = Verdict {
                variant: v.decl.id.clone(),
                priority: v.decl.priority,
                applies: true,
                rejected_by: None,
                why: None,
            };
            for (i, w) in v.when.iter().enumerate() {
                let slot = slots.get(i).copied().flatten();
                let ok = match slot.and_then(|s| shared[s]) {
                    Some(b) => b,
                    None => {
                        let b = w
                            .eval_bool(self)
                            .map_err(|e| e.within(format!("variant `{}` when[{i}]", v.decl.id)))?;
                        if let Some(s) = slot {
                            shared[s] = Some(b);
                        }
                        b
                    }
                };
                if !ok {
                    verdict.applies = false;
                    verdict.rejected_by = Some(format!("when[{i}] `{}`", w.source()));
                    if with_why {
                        let why = self.why_false(w, w.root());
                        if why != format!("`{}` is false", w.source()) {
                            verdict.why = Some(why);
                        }
                    }
                    break;
                }
            }
            if verdict.applies {
                for (lim, need) in v.decl.requires.iter().flat_map(|r| r.limits.iter()) {
                    let have = self.device.limit(lim).unwrap_or(0);
                    if have < *need {
                        verdict.applies = false;
                        verdict.rejected_by = Some(format!("requires.limits.{lim} >= {need}"));
                        verdict.why = Some(format!("the device has {have}"));
                        break;
                    }
                }
            }
            out.push(verdict);
        }
        self.set_variant(None);
        Ok(out)
    }

    /// Explains why `node` (part of `e`, known to be false) is false, down to a leaf term.
    fn why_false(&mut self, e: &Expr, node: &Node) -> String {
        let text = e.text_of(node).to_string();
        match &node.kind {
            NodeKind::And(a, b) => {
                if e.eval_node(a, self).ok() == Some(Value::Bool(false)) {
                    self.why_false(e, a)
                } else {
                    self.why_false(e, b)
                }
            }
            NodeKind::Or(a, b) => {
                format!("neither `{}` nor `{}` holds", e.text_of(a), e.text_of(b))
            }
            NodeKind::Not(a) => format!("`{}` is true", e.text_of(a)),
            NodeKind::IfElse {
                then,
                cond,
                otherwise,
            } => match e.eval_node(cond, self) {
                Ok(Value::Bool(true)) => self.why_false(e, then),
                Ok(Value::Bool(false)) => self.why_false(e, otherwise),
                _ => format!("`{text}` is false"),
            },
            NodeKind::Derive(name) => {
                let sub = self
                    .variant
                    .and_then(|v| v.derive.get(name))
                    .or_else(|| self.m.derive.get(name));
                match sub {
                    Some(sub) if !matches!(sub.root().kind, NodeKind::Bool(_)) => {
                        let sub = sub.clone();
                        format!("`{name}` is false: {}", self.why_false(&sub, sub.root()))
                    }
                    _ => format!("`{name}` is false"),
                }
            }
            NodeKind::Bin(_, a, b) => {
                let l = e
                    .eval_node(a, self)
                    .map(|v| v.to_string())
                    .unwrap_or_else(|_| "?".into());
                let r = e
                    .eval_node(b, self)
                    .map(|v| v.to_string())
                    .unwrap_or_else(|_| "?".into());
                format!("`{text}` is false ({l} vs {r})")
            }
            _ => format!("`{text}` is false"),
        }
    }

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

    fn derive_value(&mut self, name: &str) -> Result<Option<Value>, ExprError> {
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

    fn build(
        &mut self,
        wi: usize,
        verdicts: Vec<Verdict>,
        templates: &Templates,
        target: Target,
    ) -> Result<Plan, PlanError> {
        let m = self.m;
        let v = &m.variants[wi];
        self.set_variant(Some(wi));
        let vid = &v.decl.id;
        // Intermediates.
        let mut intermediates = Vec::new();
        for (d, e) in &v.intermediates {
            let val = e.eval(self).map_err(|err| {
                err.within(format!("variant `{vid}` intermediates.{}.shape", d.id))
            })?;
            let shape = shape_of(&val).ok_or_else(|| {
                e.error(
                    ErrorKind::TypeMismatch,
                    format!("shape must be a list of non-negative ints, got {val}"),
                )
            })?;
            let dtype = DType::from_name(&d.dtype).ok_or_else(|| {
                e.error(
                    ErrorKind::TypeMismatch,
                    format!("unknown dtype `{}`", d.dtype),
                )
            })?;
            let bytes = shape
                .iter()
                .try_fold(dtype.size() as u64, |acc, d| acc.checked_mul(*d as u64))
                .ok_or_else(|| {
                    e.error(
                        ErrorKind::Overflow,
                        format!(
                            "intermediate `{}` of shape {shape:?} is larger than 2^64 bytes",
                            d.id
                        ),
                    )
                    .within(format!("variant `{vid}` intermediates.{}.shape", d.id))
                })?;
            intermediates.push(IntermediatePlan {
                id: d.id.clone(),
                dtype,
                shape,
                bytes,
            });
        }
        let rows = match self.derive_value("aRows") {
            Ok(Some(Value::Int(r))) if r >= 0 => r as u64,
            _ => {
                let a = self.tensors[0]
                    .as_ref()
                    .map(|t| t.shape.clone())
                    .unwrap_or_default();
                a.iter().rev().skip(1).product::<usize>() as u64
            }
        };
        let max_wg = self
            .device
            .limit("maxComputeWorkgroupsPerDimension")
            .unwrap_or(65535);
        let max_binding = self
            .device
            .limit("maxStorageBufferBindingSize")
            .unwrap_or(u64::MAX);
        let use_subgroups = self.device.has_feature("subgroups");
        // Base template context: every derive value that evaluates, attrs, tunables.
        let mut base = serde_json::Map::with_capacity(m.derive.len() + v.derive.len() + 8);
        for n in m.derive.keys().chain(v.derive.keys()) {
            if let Ok(Some(val)) = self.derive_value(n) {
                base.insert(n.clone(), val.to_json());
            }
        }
        base.insert(
            "attrs".into(),
            serde_json::Value::Object(
                self.attrs
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        );
        base.insert(
            "tunables".into(),
            serde_json::Value::Object(
                self.tunables
                    .iter()
                    .map(|(k, v)| (k.clone(), (*v).into()))
                    .collect(),
            ),
        );
        base.insert("variant".into(), vid.clone().into());
        let mut passes = Vec::new();
        for (pi, pass) in v.passes.iter().enumerate() {
            let pid = &pass.decl.id;
            let mut dispatch = [1u32; 3];
            for (i, e) in pass.dispatch.iter().enumerate() {
                let axis = ['x', 'y', 'z'][i];
                let val = e.eval_int(self).map_err(|err| {
                    err.within(format!("variant `{vid}` pass `{pid}` dispatch.{axis}"))
                })?;
                if val < 0 || val as u64 > max_wg {
                    return Err(PlanError::Dispatch {
                        pass: pid.clone(),
                        axis,
                        value: val,
                        expr: e.source().into(),
                        limit: max_wg,
                    });
                }
                dispatch[i] = val as u32;
            }
            let mut bindings = Vec::new();
            for (bi, key) in pass.decl.bindings.iter().enumerate() {
                let b = m.bindings.get(key).ok_or_else(|| PlanError::Binding {
                    binding: key.clone(),
                    pass: pid.clone(),
                    message: "no such binding in the manifest".into(),
                })?;
                let berr = |message: String| PlanError::Binding {
                    binding: key.clone(),
                    pass: pid.clone(),
                    message,
                };
                let element_type = match &b.decl.element_type {
                    Some(t) => match t.strip_prefix('$') {
                        Some(d) => match self.derive_value(d)? {
                            Some(Value::Str(s)) => s,
                            other => {
                                return Err(berr(format!(
                                    "elementType `{t}` must name a string derive, got {other:?}"
                                )))
                            }
                        },
                        None => t.clone(),
                    },
                    None => String::new(),
                };
                let min_elements = match &b.length {
                    Some(e) => Some(
                        e.eval_int(self)
                            .map_err(|err| err.within(format!("bindings.{key}.length")))?
                            .max(0) as u64,
                    ),
                    None => None,
                };
                let (resource, bytes, elements) = if let Some(arg) = &b.decl.arg {
                    let ti = self.tensor_index(arg).ok_or_else(|| {
                        berr(format!("arg `{arg}` is not a tensor of the operator"))
                    })?;
                    let t = self.tensors[ti]
                        .clone()
                        .ok_or_else(|| berr(format!("tensor `{arg}` is not present")))?;
                    let n_in = m.inputs.len();
                    if let Some(name) = &b.decl.layout {
                        let layout =
                            crate::layout::PreparedLayout::from_name(name).ok_or_else(|| {
                                berr(format!("layout `{name}` is not a prepared layout"))
                            })?;
                        let weights = self.prepared_weights(layout, &t)?;
                        weights.check().map_err(|e| berr(e.to_string()))?;
                        let bytes = weights.prepared_bytes() as u64;
                        let res = Resource::Prepared {
                            index: ti,
                            arg: arg.clone(),
                            onnx: m.inputs[ti].decl.onnx.clone(),
                            weights,
                        };
                        (res, bytes, bytes / weights.elem_bytes as u64)
                    } else {
                        let res = if ti < n_in {
                            Resource::Input {
                                index: ti,
                                arg: arg.clone(),
                                onnx: m.inputs[ti].decl.onnx.clone(),
                            }
                        } else {
                            Resource::Output {
                                index: ti - n_in,
                                arg: arg.clone(),
                                onnx: m.outputs[ti - n_in].decl.onnx.clone(),
                            }
                        };
                        let bytes = (t.numel() * t.dtype.size()) as u64;
                        (res, bytes, t.numel() as u64)
                    }
                } else if let Some(s) = &b.decl.scratch {
                    let idx = intermediates
                        .iter()
                        .position(|x| &x.id == s)
                        .ok_or_else(|| {
                            berr(format!(
                                "scratch `{s}` is not an intermediate of variant `{vid}`"
                            ))
                        })?;
                    let it = &intermediates[idx];
                    (
                        Resource::Scratch {
                            index: idx,
                            id: s.clone(),
                        },
                        it.bytes,
                        it.shape.iter().product::<usize>() as u64,
                    )
                } else {
                    let mut fields = Vec::new();
                    let mut bytes = Vec::new();
                    for f in &b.fields {
                        let val = f.value.eval(self).map_err(|err| {
                            err.within(format!("bindings.{key}.struct.{}", f.name))
                        })?;
                        let (json, raw) = match (f.ty.as_str(), &val) {
                            ("u32", Value::Int(i)) if (0..=u32::MAX as i64).contains(i) => {
                                ((*i).into(), (*i as u32).to_le_bytes())
                            }
                            ("i32", Value::Int(i))
                                if (i32::MIN as i64..=i32::MAX as i64).contains(i) =>
                            {
                                ((*i).into(), (*i as i32).to_le_bytes())
                            }
                            ("f32", Value::Int(_) | Value::Float(_)) => {
                                let x = if let Value::Int(i) = val {
                                    i as f64
                                } else if let Value::Float(x) = val {
                                    x
                                } else {
                                    0.0
                                };
                                (serde_json::json!(x), (x as f32).to_le_bytes())
                            }
                            _ => {
                                return Err(berr(format!(
                                    "field `{}`: value {val} does not fit WGSL type {}",
                                    f.name, f.ty
                                )))
                            }
                        };
                        fields.push(UniformField {
                            name: f.name.clone(),
                            ty: f.ty.clone(),
                            value: json,
                            offset: bytes.len() as u32,
                        });
                        bytes.extend_from_slice(&raw);
                    }
                    bytes.resize(bytes.len().div_ceil(16).max(1) * 16, 0);
                    let n = bytes.len() as u64;
                    (Resource::Uniform { fields, bytes }, n, 1)
                };
                if let Some(min) = min_elements {
                    if elements < min {
                        return Err(berr(format!("holds {elements} elements, the manifest requires at least {min} (`{}`)", b.decl.length.clone().unwrap_or_default())));
                    }
                }
                if b.decl.buffer != BufferKind::Uniform && bytes > max_binding {
                    return Err(berr(format!("{bytes} bytes exceed the device's maxStorageBufferBindingSize ({max_binding})")));
                }
                bindings.push(BindingPlan {
                    binding: bi as u32,
                    key: key.clone(),
                    name: b.decl.name.clone().unwrap_or_else(|| key.clone()),
                    access: b.decl.buffer,
                    element_type: if b.decl.buffer == BufferKind::Uniform {
                        crate::render::uniform_struct_name(b.decl.name.as_deref().unwrap_or(key))
                    } else {
                        element_type
                    },
                    resource,
                    bytes: bytes.div_ceil(4) * 4,
                    min_elements,
                });
            }
            let subgroups = use_subgroups
                && pass.decl.subgroup_collectives_width.as_deref() == Some("portable");
            // The last pass takes the base context; earlier ones copy it.
            let mut context = if pi + 1 == v.passes.len() {
                std::mem::take(&mut base)
            } else {
                base.clone()
            };
            context.insert("pass".into(), pid.clone().into());
            context.insert(
                "subgroupCollectivesWidth".into(),
                pass.decl
                    .subgroup_collectives_width
                    .clone()
                    .map(Into::into)
                    .unwrap_or(serde_json::Value::Null),
            );
            context.insert("subgroups".into(), subgroups.into());
            context.insert(
                "bindingNames".into(),
                bindings
                    .iter()
                    .map(|b| serde_json::Value::from(b.name.clone()))
                    .collect(),
            );
            let context = Arc::new(context);
            let (wgsl, workgroup_size) =
                templates.render(&pass.decl.shader, &context, &bindings, subgroups, target)?;
            // The template's values are gone once it has rendered: take the map back.
            let context = Arc::try_unwrap(context).unwrap_or_else(|shared| (*shared).clone());
            let limit_inv = self
                .device
                .limit("maxComputeInvocationsPerWorkgroup")
                .unwrap_or(256);
            if (workgroup_size.iter().map(|&d| d as u64).product::<u64>()) > limit_inv {
                return Err(PlanError::Render(RenderError::Template {
                    template: pass.decl.shader.clone(),
                    message: format!("workgroup size {workgroup_size:?} exceeds maxComputeInvocationsPerWorkgroup ({limit_inv})"),
                }));
            }
            passes.push(PassPlan {
                id: pid.clone(),
                name: pass.decl.name.clone().unwrap_or_else(|| pid.clone()),
                shader: pass.decl.shader.clone(),
                dispatch,
                skipped: dispatch.contains(&0),
                workgroup_size,
                subgroups,
                bindings,
                context,
                wgsl: wgsl.into(),
            });
        }
        let outputs = m
            .outputs
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let t = &self.tensors[m.inputs.len() + i];
                OutputPlan {
                    index: i,
                    arg: a.arg.clone(),
                    onnx: a.decl.onnx.clone(),
                    present: t.is_some(),
                    dtype: t.as_ref().map(|t| t.dtype).unwrap_or(self.t1),
                    shape: t.as_ref().map(|t| t.shape.clone()).unwrap_or_default(),
                }
            })
            .collect();
        Ok(Plan {
            variant: vid.clone(),
            priority: v.decl.priority,
            dtype: self.t1,
            device: self.device.name.clone(),
            attrs: self
                .attrs
                .iter()
                .map(|(k, v)| (k.clone(), v.to_json()))
                .collect(),
            tunables: self.tunables.clone(),
            rows,
            outputs,
            intermediates,
            passes,
            verdicts,
        })
    }
}

fn shape_of(v: &Value) -> Option<Vec<usize>> {
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
