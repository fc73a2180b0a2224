//! Finding the MLPs, judging each against the rules, and planning the rewrite.

use crate::graph::{Dim, Graph, Init, OutInit, OutNode, Rewrite};
use crate::{FuseError, Fused, Skipped, OP_TYPE};
use nbits_mlp_onnx::proto::{AttributeProto, AttributeType, NodeProto};
use nbits_mlp_reference::pack::Layout;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap, HashSet};

/// The rules a candidate can break; [`crate::Skipped::rule`] is one of these.
pub mod rules {
    /// The gating activation is not SiLU (`Sigmoid`+`Mul`, `QuickGelu` with alpha 1).
    pub const ACTIVATION: &str = "activation";
    /// A projection has zero points (the fused op's zero point is always `2^(bits-1)`).
    pub const ZERO_POINTS: &str = "zero-points";
    /// A projection has `g_idx` (act-order).
    pub const G_IDX: &str = "g-idx";
    /// A projection's attributes are outside what the op accepts (bits 2/4/8, block_size a
    /// power of two >= 16, no prepacked weights).
    pub const ATTRIBUTES: &str = "attributes";
    /// Gate and up differ: input, K, N, bits, block size or element type.
    pub const MISMATCH: &str = "mismatch";
    /// An intermediate value is read by a node outside the MLP, or is a graph output.
    pub const INTERMEDIATE: &str = "intermediate";
    /// A bias cannot be folded (not an initializer, wrong size or type, two of them).
    pub const BIAS: &str = "bias";
    /// The packed form cannot be split (weights not initializers, Split not into two equal
    /// halves along the last axis).
    pub const PACKED: &str = "packed";
    /// The element type is not float32 or float16.
    pub const DTYPE: &str = "dtype";
    /// Weights or scales have a size, type or shape the op cannot take.
    pub const WEIGHTS: &str = "weights";
    /// The candidate shares a node with an MLP fused before it.
    pub const OVERLAP: &str = "overlap";
    /// Every rule, in the order they are checked.
    pub const ALL: [&str; 11] = [
        ACTIVATION,
        OVERLAP,
        PACKED,
        ZERO_POINTS,
        G_IDX,
        ATTRIBUTES,
        MISMATCH,
        DTYPE,
        WEIGHTS,
        BIAS,
        INTERMEDIATE,
    ];
}

const MS: &str = "com.microsoft";
const FLOAT: i32 = 1;
const UINT8: i32 = 2;
const INT64: i32 = 7;
const FLOAT16: i32 = 10;
/// Single-input activations recognised (to say why a gated MLP with one of them is not fused).
const OTHER_ACTIVATIONS: [&str; 17] = [
    "Sigmoid",
    "Gelu",
    "FastGelu",
    "BiasGelu",
    "Relu",
    "LeakyRelu",
    "Elu",
    "Selu",
    "Celu",
    "Tanh",
    "Softplus",
    "Softsign",
    "HardSigmoid",
    "HardSwish",
    "Mish",
    "Swish",
    "Erf",
];

/// The outcome of planning.
pub(crate) struct Planned {
    pub rewrite: Rewrite,
    pub fused: Vec<Fused>,
    pub skipped: Vec<Skipped>,
}

fn is_onnx(n: &NodeProto) -> bool {
    n.domain.is_empty() || n.domain == "ai.onnx"
}

fn attr<'a>(n: &'a NodeProto, name: &str) -> Option<&'a AttributeProto> {
    n.attribute.iter().find(|a| a.name == name)
}

fn attr_i(n: &NodeProto, name: &str) -> Option<i64> {
    attr(n, name).map(|a| a.i)
}

fn attr_f(n: &NodeProto, name: &str) -> Option<f32> {
    attr(n, name).map(|a| a.f)
}

fn dtype_name(t: i32) -> String {
    match t {
        FLOAT => "float32".into(),
        FLOAT16 => "float16".into(),
        16 => "bfloat16".into(),
        other => format!("data type {other}"),
    }
}

fn label(n: &NodeProto) -> String {
    if n.name.is_empty() {
        format!(
            "{} (output '{}')",
            n.op_type,
            n.output.first().map_or("", String::as_str)
        )
    } else {
        format!("'{}'", n.name)
    }
}

/// `layers.<i>` from a node name such as `/model/layers.3/mlp/gate_proj/MatMul_Q4`.
fn layer_of(name: &str) -> Option<String> {
    let at = name.find("layers.")?;
    let digits: String = name[at + 7..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    (!digits.is_empty()).then(|| format!("layers.{digits}"))
}

/// A projection feeding the gating `Mul`.
#[derive(Clone, Debug, PartialEq)]
struct Proj {
    /// The `MatMulNBits` node.
    mm: usize,
    /// The packed form's `Split` node and which of its outputs this is.
    split: Option<(usize, usize)>,
    /// An `Add` between the packed `MatMulNBits` and the `Split`, and its other operand.
    pre_add: Option<(usize, String)>,
    /// An `Add` after the projection, and its other operand.
    add: Option<(usize, String)>,
}

/// The gating activation.
struct Act {
    /// Its nodes.
    nodes: Vec<usize>,
    /// How it is written.
    label: String,
    /// Whether it is SiLU.
    silu: bool,
}

/// The graph's values: who produces and who reads each.
struct Index<'g> {
    g: &'g Graph,
    producer: HashMap<&'g str, (usize, usize)>,
    consumers: HashMap<&'g str, Vec<usize>>,
    graph_outputs: HashSet<&'g str>,
    subgraph_refs: HashSet<&'g str>,
}

impl<'g> Index<'g> {
    fn new(g: &'g Graph) -> Index<'g> {
        let mut producer = HashMap::new();
        let mut consumers: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut subgraph_refs = HashSet::new();
        for (i, n) in g.nodes.iter().enumerate() {
            for (j, o) in n.proto.output.iter().enumerate() {
                if !o.is_empty() {
                    producer.insert(o.as_str(), (i, j));
                }
            }
            for v in &n.proto.input {
                if !v.is_empty() {
                    let c = consumers.entry(v.as_str()).or_default();
                    if c.last() != Some(&i) {
                        c.push(i);
                    }
                }
            }
            subgraph_refs.extend(n.subgraph_refs.iter().map(String::as_str));
        }
        Index {
            g,
            producer,
            consumers,
            graph_outputs: g.outputs.iter().map(String::as_str).collect(),
            subgraph_refs,
        }
    }

    fn node(&self, i: usize) -> &'g NodeProto {
        &self.g.nodes[i].proto
    }

    fn producer(&self, v: &str) -> Option<(usize, usize)> {
        self.producer.get(v).copied()
    }

    fn is_mm(&self, i: usize) -> bool {
        let n = self.node(i);
        n.domain == MS && n.op_type == "MatMulNBits"
    }

    /// The `MatMulNBits` (and packed `Split`, and `Add` before it) producing `v`.
    #[allow(clippy::type_complexity)]
    fn proj_source(
        &self,
        v: &str,
    ) -> Option<(usize, Option<(usize, usize)>, Option<(usize, String)>)> {
        let (p, out) = self.producer(v)?;
        if self.is_mm(p) {
            return Some((p, None, None));
        }
        let n = self.node(p);
        if !(is_onnx(n) && n.op_type == "Split") {
            return None;
        }
        let input = n.input.first()?;
        let (q, _) = self.producer(input)?;
        if self.is_mm(q) {
            return Some((q, Some((p, out)), None));
        }
        let add = self.node(q);
        if is_onnx(add) && add.op_type == "Add" && add.input.len() == 2 {
            for (a, b) in [(0, 1), (1, 0)] {
                if let Some((mm, _)) = self.producer(&add.input[a]) {
                    if self.is_mm(mm) {
                        return Some((mm, Some((p, out)), Some((q, add.input[b].clone()))));
                    }
                }
            }
        }
        None
    }

    /// The projection producing `v` (through a bias `Add`, or a packed `Split`).
    fn trace_proj(&self, v: &str) -> Option<Proj> {
        if let Some((mm, split, pre_add)) = self.proj_source(v) {
            return Some(Proj {
                mm,
                split,
                pre_add,
                add: None,
            });
        }
        let (p, _) = self.producer(v)?;
        let n = self.node(p);
        if is_onnx(n) && n.op_type == "Add" && n.input.len() == 2 {
            for (a, b) in [(0, 1), (1, 0)] {
                if let Some((mm, split, pre_add)) = self.proj_source(&n.input[a]) {
                    return Some(Proj {
                        mm,
                        split,
                        pre_add,
                        add: Some((p, n.input[b].clone())),
                    });
                }
            }
        }
        None
    }

    /// The activation producing `x`, and the value it activates.
    fn trace_act(&self, x: &str) -> Option<(Act, String)> {
        let (p, _) = self.producer(x)?;
        let n = self.node(p);
        if is_onnx(n) && n.op_type == "Mul" && n.input.len() == 2 {
            for (g, s) in [(0, 1), (1, 0)] {
                if let Some((q, _)) = self.producer(&n.input[s]) {
                    let sig = self.node(q);
                    if is_onnx(sig)
                        && sig.op_type == "Sigmoid"
                        && sig.input.first() == Some(&n.input[g])
                    {
                        return Some((
                            Act {
                                nodes: vec![q, p],
                                label: "Sigmoid+Mul".into(),
                                silu: true,
                            },
                            n.input[g].clone(),
                        ));
                    }
                }
            }
            return None;
        }
        let input = n.input.first().filter(|i| !i.is_empty())?.clone();
        if n.domain == MS && n.op_type == "QuickGelu" {
            let alpha = attr_f(n, "alpha").unwrap_or(1.702);
            let silu = alpha == 1.0;
            let label = if silu {
                "QuickGelu(alpha=1)".to_string()
            } else {
                format!("QuickGelu with alpha {alpha}")
            };
            return Some((
                Act {
                    nodes: vec![p],
                    label,
                    silu,
                },
                input,
            ));
        }
        if n.input.iter().filter(|i| !i.is_empty()).count() == 1
            && OTHER_ACTIVATIONS.contains(&n.op_type.as_str())
        {
            return Some((
                Act {
                    nodes: vec![p],
                    label: n.op_type.clone(),
                    silu: false,
                },
                input,
            ));
        }
        None
    }

    /// Whether every reader of `v` is in `set` (and `v` is neither a graph output nor read by
    /// a subgraph). `Err` names the outside reader.
    fn only_read_by(&self, v: &str, set: &BTreeSet<usize>) -> Result<(), String> {
        if self.graph_outputs.contains(v) {
            return Err(format!("'{v}' is a graph output"));
        }
        if self.subgraph_refs.contains(v) {
            return Err(format!("'{v}' is read inside a subgraph"));
        }
        if let Some(c) = self.consumers.get(v) {
            if let Some(&other) = c.iter().find(|c| !set.contains(c)) {
                return Err(format!("'{v}' is also read by {}", label(self.node(other))));
            }
        }
        Ok(())
    }

    /// Whether `v` is read at all (by a node, a subgraph, or as a graph output).
    fn is_read(&self, v: &str) -> bool {
        self.graph_outputs.contains(v)
            || self.subgraph_refs.contains(v)
            || self.consumers.get(v).is_some_and(|c| !c.is_empty())
    }

    /// The element type of value `v`: an initializer's, or a declared type's.
    fn elem_type(&self, v: &str) -> Option<i32> {
        if let Some(i) = self.g.init(v) {
            return Some(i.data_type);
        }
        self.g.types.get(v).map(|t| t.elem_type).filter(|&t| t != 0)
    }

    /// The rank of value `v`, when its type declares one.
    fn rank(&self, v: &str) -> Option<usize> {
        if let Some(i) = self.g.init(v) {
            return Some(i.dims.len());
        }
        self.g.types.get(v)?.shape.as_ref().map(Vec::len)
    }
}

/// A candidate stopped by a rule.
struct Stop {
    rule: &'static str,
    reason: String,
}

fn stop(rule: &'static str, reason: impl Into<String>) -> Stop {
    Stop {
        rule,
        reason: reason.into(),
    }
}

/// The attributes of one `MatMulNBits` node.
struct MmAttrs {
    k: i64,
    n: i64,
    bits: i64,
    block_size: i64,
    accuracy_level: i64,
}

fn mm_attrs(n: &NodeProto) -> Result<MmAttrs, Stop> {
    let who = label(n);
    if let Some(zp) = n.input.get(3).filter(|v| !v.is_empty()) {
        return Err(stop(
            rules::ZERO_POINTS,
            format!("MatMulNBits {who} has zero points (input 3 '{zp}'); MatMulNBitsMlp's zero point is always 2^(bits-1)"),
        ));
    }
    if let Some(g) = n.input.get(4).filter(|v| !v.is_empty()) {
        return Err(stop(
            rules::G_IDX,
            format!("MatMulNBits {who} has g_idx (input 4 '{g}'); MatMulNBitsMlp has none"),
        ));
    }
    if n.input.len() > 6 {
        return Err(stop(
            rules::ATTRIBUTES,
            format!("MatMulNBits {who} has {} inputs", n.input.len()),
        ));
    }
    let int_attr = |name: &str| -> Result<Option<i64>, Stop> {
        match attr(n, name) {
            None => Ok(None),
            Some(a) if a.r#type == AttributeType::Int as i32 || a.r#type == 0 => Ok(Some(a.i)),
            Some(_) => Err(stop(
                rules::ATTRIBUTES,
                format!("MatMulNBits {who}: attribute '{name}' is not an INT"),
            )),
        }
    };
    let required = |name: &str| -> Result<i64, Stop> {
        int_attr(name)?.ok_or_else(|| {
            stop(
                rules::ATTRIBUTES,
                format!("MatMulNBits {who} has no attribute '{name}'"),
            )
        })
    };
    let a = MmAttrs {
        k: required("K")?,
        n: required("N")?,
        bits: int_attr("bits")?.unwrap_or(4),
        block_size: required("block_size")?,
        accuracy_level: int_attr("accuracy_level")?.unwrap_or(0),
    };
    if a.k <= 0 || a.n <= 0 {
        return Err(stop(
            rules::ATTRIBUTES,
            format!("MatMulNBits {who}: K={} N={}", a.k, a.n),
        ));
    }
    if ![2, 4, 8].contains(&a.bits) {
        return Err(stop(
            rules::ATTRIBUTES,
            format!(
                "MatMulNBits {who}: bits {} (MatMulNBitsMlp takes 2, 4 or 8)",
                a.bits
            ),
        ));
    }
    if a.block_size < 16 || (a.block_size & (a.block_size - 1)) != 0 {
        return Err(stop(
            rules::ATTRIBUTES,
            format!(
                "MatMulNBits {who}: block_size {} is not a power of two >= 16",
                a.block_size
            ),
        ));
    }
    if int_attr("weight_prepacked")?.unwrap_or(0) != 0 {
        return Err(stop(
            rules::ATTRIBUTES,
            format!("MatMulNBits {who}: weights are prepacked (weight_prepacked != 0)"),
        ));
    }
    Ok(a)
}

/// A bias to fold: a value name as it is, or one half of a packed bias.
enum Bias {
    /// Use this value (an initializer or any value of shape [N]).
    Value(String),
    /// Half `part` (0 or 1) of the 2N-element initializer.
    Half(String, usize),
}

/// One fusion, decided.
struct Decision {
    fused: Fused,
    node: NodeProto,
    removed: BTreeSet<usize>,
    /// Initializer dims to rewrite (index, dims).
    reshape: Vec<(usize, Vec<i64>)>,
    /// New initializers.
    new_inits: Vec<OutInit>,
}

/// Names already taken in the graph (values, initializers, node names).
struct Names {
    taken: HashSet<String>,
}

impl Names {
    fn unique(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut i = 1;
        while self.taken.contains(&name) {
            name = format!("{base}_{i}");
            i += 1;
        }
        self.taken.insert(name.clone());
        name
    }
}

/// Plans the fusion of every candidate of `g`.
pub(crate) fn plan(g: &Graph, domain: &str) -> Result<Planned, FuseError> {
    let ix = Index::new(g);
    let mut names = Names {
        taken: g
            .nodes
            .iter()
            .flat_map(|n| {
                n.proto
                    .output
                    .iter()
                    .chain(n.proto.input.iter())
                    .chain([&n.proto.name])
            })
            .chain(g.inits.iter().map(|i| &i.name))
            .chain(g.inputs.iter())
            .chain(g.outputs.iter())
            .chain(g.types.keys())
            .filter(|s| !s.is_empty())
            .cloned()
            .collect(),
    };
    let mut used: BTreeSet<usize> = BTreeSet::new();
    let mut decisions: Vec<Decision> = Vec::new();
    let mut skipped = Vec::new();

    for (m, node) in g.nodes.iter().enumerate() {
        let n = &node.proto;
        if !(is_onnx(n) && n.op_type == "Mul" && n.input.len() == 2)
            || n.output.first().is_none_or(String::is_empty)
        {
            continue;
        }
        let mut found = None;
        for (x, y) in [(0, 1), (1, 0)] {
            let Some((act, gv)) = ix.trace_act(&n.input[x]) else {
                continue;
            };
            let (Some(gate), Some(up)) = (ix.trace_proj(&gv), ix.trace_proj(&n.input[y])) else {
                continue;
            };
            let same = gate.mm == up.mm && gate.split.map(|s| s.1) == up.split.map(|s| s.1);
            if !same {
                found = Some((act, gate, up));
                break;
            }
        }
        let Some((act, gate, up)) = found else {
            continue;
        };
        let at = label(n);
        let layer = layer_of(&ix.node(gate.mm).name)
            .or_else(|| layer_of(&n.name))
            .unwrap_or_else(|| at.trim_matches('\'').to_string());
        match decide(&ix, m, &act, &gate, &up, &used, domain, &mut names) {
            Ok(d) => {
                used.extend(d.removed.iter().copied());
                decisions.push(Decision {
                    fused: Fused { layer, ..d.fused },
                    ..d
                });
            }
            Err(s) => skipped.push(Skipped {
                layer,
                at: at.trim_matches('\'').to_string(),
                rule: s.rule.to_string(),
                reason: s.reason,
            }),
        }
    }

    let rewrite = rewrite(g, &ix, &decisions, domain)?;
    Ok(Planned {
        rewrite,
        fused: decisions.into_iter().map(|d| d.fused).collect(),
        skipped,
    })
}

/// Judges one candidate: the fused node and what it replaces, or the rule it breaks.
#[allow(clippy::too_many_arguments)]
fn decide(
    ix: &Index<'_>,
    m: usize,
    act: &Act,
    gate: &Proj,
    up: &Proj,
    used: &BTreeSet<usize>,
    domain: &str,
    names: &mut Names,
) -> Result<Decision, Stop> {
    let g = ix.g;
    if !act.silu {
        return Err(stop(
            rules::ACTIVATION,
            format!(
                "the gate's activation is {}, not SiLU (Sigmoid+Mul, or QuickGelu with alpha 1)",
                act.label
            ),
        ));
    }
    // The nodes of the MLP (the norm comes later).
    let mut set: BTreeSet<usize> = BTreeSet::new();
    set.insert(m);
    set.extend(act.nodes.iter().copied());
    for p in [gate, up] {
        set.insert(p.mm);
        set.extend(p.split.map(|s| s.0));
        set.extend(p.pre_add.as_ref().map(|a| a.0));
        set.extend(p.add.as_ref().map(|a| a.0));
    }
    if let Some(&n) = set.iter().find(|n| used.contains(n)) {
        return Err(stop(
            rules::OVERLAP,
            format!("node {} belongs to an MLP fused before", label(ix.node(n))),
        ));
    }

    // Packed or not.
    let packed = match (gate.split, up.split) {
        (None, None) => false,
        (Some((s1, o1)), Some((s2, o2))) if s1 == s2 && gate.mm == up.mm && o1 != o2 => true,
        _ => {
            return Err(stop(
                rules::PACKED,
                "gate and up are not the two outputs of one Split of one MatMulNBits",
            ))
        }
    };
    let gate_mm = ix.node(gate.mm);
    let up_mm = ix.node(up.mm);
    let ga = mm_attrs(gate_mm)?;
    let ua = if packed { None } else { Some(mm_attrs(up_mm)?) };
    let a_in = gate_mm.input.first().cloned().unwrap_or_default();
    if a_in.is_empty() {
        return Err(stop(
            rules::ATTRIBUTES,
            format!("MatMulNBits {} has no input A", label(gate_mm)),
        ));
    }
    let (k, n) = match &ua {
        None => {
            if ga.n % 2 != 0 {
                return Err(stop(
                    rules::PACKED,
                    format!(
                        "packed MatMulNBits {} has an odd N = {}",
                        label(gate_mm),
                        ga.n
                    ),
                ));
            }
            (ga.k, ga.n / 2)
        }
        Some(ua) => {
            let b = up_mm.input.first().cloned().unwrap_or_default();
            if b != a_in {
                return Err(stop(
                    rules::MISMATCH,
                    format!(
                        "gate {} reads '{a_in}' but up {} reads '{b}'",
                        label(gate_mm),
                        label(up_mm)
                    ),
                ));
            }
            for (what, x, y) in [
                ("K", ga.k, ua.k),
                ("N", ga.n, ua.n),
                ("bits", ga.bits, ua.bits),
                ("block_size", ga.block_size, ua.block_size),
            ] {
                if x != y {
                    return Err(stop(
                        rules::MISMATCH,
                        format!(
                            "gate {} has {what} {x} but up {} has {y}",
                            label(gate_mm),
                            label(up_mm)
                        ),
                    ));
                }
            }
            (ga.k, ga.n)
        }
    };
    let layout = |rows: i64| {
        Layout::new(
            rows as usize,
            k as usize,
            ga.bits as u32,
            ga.block_size as usize,
        )
        .map_err(|e| stop(rules::ATTRIBUTES, e.to_string()))
    };
    let lay = layout(n)?;
    let (kb, blob) = (lay.k_blocks() as i64, lay.blob_size() as i64);

    // Element type, from the scales.
    let scales_of = |mm: &NodeProto| mm.input.get(2).cloned().unwrap_or_default();
    let t1 = ix.elem_type(&scales_of(gate_mm));
    if let Some(t) = t1 {
        if t != FLOAT && t != FLOAT16 {
            return Err(stop(
                rules::DTYPE,
                format!(
                    "the scales of {} are {}; MatMulNBitsMlp takes float32 or float16",
                    label(gate_mm),
                    dtype_name(t)
                ),
            ));
        }
    }
    if !packed {
        let tu = ix.elem_type(&scales_of(up_mm));
        if let (Some(a), Some(b)) = (t1, tu) {
            if a != b {
                return Err(stop(
                    rules::MISMATCH,
                    format!(
                        "gate scales are {} but up scales are {}",
                        dtype_name(a),
                        dtype_name(b)
                    ),
                ));
            }
        }
    }

    // Intermediates stay inside the MLP.
    for &i in &set {
        if i == m {
            continue;
        }
        for o in ix.node(i).output.iter().filter(|o| !o.is_empty()) {
            ix.only_read_by(o, &set).map_err(|e| {
                stop(
                    rules::INTERMEDIATE,
                    format!("{e} (output of {})", label(ix.node(i))),
                )
            })?;
        }
    }
    if packed {
        check_split(ix, gate.split.expect("packed").0, n)?;
    }

    // Weights and scales.
    let mut reshape: Vec<(usize, Vec<i64>)> = Vec::new();
    let mut new_inits: Vec<OutInit> = Vec::new();
    let mut removed = set.clone();
    let exclusive = |v: &str, removed: &BTreeSet<usize>| ix.only_read_by(v, removed).is_ok();
    let mut weight_names: Vec<(String, String)> = Vec::new(); // (B, scales) for gate, up
    if packed {
        let (b, sc) = (
            gate_mm.input.get(1).cloned().unwrap_or_default(),
            scales_of(gate_mm),
        );
        let (Some(bi), Some(si)) = (g.init(&b), g.init(&sc)) else {
            return Err(stop(
                rules::PACKED,
                format!("the packed weights ('{b}', '{sc}') of {} are not both initializers, so they cannot be split", label(gate_mm)),
            ));
        };
        check_weight(bi, si, 2 * n, kb, blob)?;
        let b_bytes = g
            .init_bytes(bi)
            .map_err(|e| stop(rules::PACKED, e.to_string()))?;
        let s_bytes = g
            .init_bytes(si)
            .map_err(|e| stop(rules::PACKED, e.to_string()))?;
        let (b_row, s_row) = (
            (kb * blob) as usize,
            (kb as usize) * elem_size(si.data_type),
        );
        for (proj, what) in [(gate, "gate"), (up, "up")] {
            let part = proj.split.expect("packed").1;
            let rows = part * n as usize..(part + 1) * n as usize;
            let bn = names.unique(&format!("{b}_{what}"));
            let sn = names.unique(&format!("{sc}_{what}"));
            new_inits.push(OutInit::New {
                name: bn.clone(),
                data_type: UINT8,
                dims: vec![n, kb, blob],
                data: b_bytes[rows.start * b_row..rows.end * b_row].to_vec(),
            });
            new_inits.push(OutInit::New {
                name: sn.clone(),
                data_type: si.data_type,
                dims: vec![n, kb],
                data: s_bytes[rows.start * s_row..rows.end * s_row].to_vec(),
            });
            weight_names.push((bn, sn));
        }
    } else {
        for mm in [gate_mm, up_mm] {
            let (b, sc) = (mm.input.get(1).cloned().unwrap_or_default(), scales_of(mm));
            if let (Some(bi), Some(si)) = (g.init(&b), g.init(&sc)) {
                check_weight(bi, si, n, kb, blob)?;
                for (init, dims) in [(bi, vec![n, kb, blob]), (si, vec![n, kb])] {
                    if init.dims != dims {
                        if !exclusive(&init.name, &removed) {
                            return Err(stop(
                                rules::WEIGHTS,
                                format!("'{}' has dims {:?}, not {dims:?}, and other nodes read it, so it cannot be reshaped", init.name, init.dims),
                            ));
                        }
                        reshape.push((g.init_index[&init.name], dims));
                    }
                }
            }
            weight_names.push((b, sc));
        }
    }

    // Biases.
    let mut biases: Vec<Option<Bias>> = Vec::new();
    for (proj, mm, what) in [(gate, gate_mm, "gate"), (up, up_mm, "up")] {
        let mut found: Vec<(Bias, i64, String)> = Vec::new(); // (bias, its length, where from)
        let part = proj.split.map(|s| s.1);
        if let Some(b) = mm.input.get(5).filter(|v| !v.is_empty()) {
            match part {
                None => found.push((
                    Bias::Value(b.clone()),
                    n,
                    format!("input 5 of {}", label(mm)),
                )),
                Some(p) => found.push((
                    Bias::Half(b.clone(), p),
                    2 * n,
                    format!("input 5 of {}", label(mm)),
                )),
            }
        }
        if let (Some((add, b)), Some(p)) = (&proj.pre_add, part) {
            found.push((
                Bias::Half(b.clone(), p),
                2 * n,
                format!("Add {}", label(ix.node(*add))),
            ));
        }
        if let Some((add, b)) = &proj.add {
            found.push((
                Bias::Value(b.clone()),
                n,
                format!("Add {}", label(ix.node(*add))),
            ));
        }
        if found.len() > 1 {
            let from: Vec<&str> = found.iter().map(|f| f.2.as_str()).collect();
            return Err(stop(
                rules::BIAS,
                format!("two biases on one projection: {}", from.join(" and ")),
            ));
        }
        let Some((bias, len, from)) = found.pop() else {
            biases.push(None);
            continue;
        };
        let (Bias::Value(name) | Bias::Half(name, _)) = &bias;
        let from_add = from.starts_with("Add");
        let init = g.init(name);
        if let Some(i) = init {
            if let Some(t) = t1 {
                if i.data_type != t {
                    return Err(stop(
                        rules::BIAS,
                        format!(
                            "bias '{name}' ({from}) is {} but the scales are {}",
                            dtype_name(i.data_type),
                            dtype_name(t)
                        ),
                    ));
                }
            }
            let ok_shape = i.numel() == Some(len as usize)
                && i.dims.iter().rev().skip(1).all(|&d| d == 1)
                && i.dims.last() == Some(&len);
            if !ok_shape {
                return Err(stop(
                    rules::BIAS,
                    format!("bias '{name}' ({from}) has dims {:?}, not [{len}]", i.dims),
                ));
            }
        } else if from_add || matches!(bias, Bias::Half(..)) {
            return Err(stop(
                rules::BIAS,
                format!("'{name}' ({from}) is not an initializer, so it is not known to be a bias of [{len}]"),
            ));
        }
        match bias {
            Bias::Half(name, p) => {
                let i = init.expect("checked above");
                let bytes = g
                    .init_bytes(i)
                    .map_err(|e| stop(rules::BIAS, e.to_string()))?;
                let half = bytes.len() / 2;
                let nn = names.unique(&format!("{name}_{what}"));
                new_inits.push(OutInit::New {
                    name: nn.clone(),
                    data_type: i.data_type,
                    dims: vec![n],
                    data: bytes[p * half..(p + 1) * half].to_vec(),
                });
                biases.push(Some(Bias::Value(nn)));
            }
            Bias::Value(name) => {
                if let Some(i) = init {
                    if i.dims != [n] {
                        if !exclusive(name.as_str(), &removed) {
                            return Err(stop(rules::BIAS, format!("bias '{name}' has dims {:?} and other nodes read it, so it cannot be reshaped", i.dims)));
                        }
                        reshape.push((g.init_index[&name], vec![n]));
                    }
                }
                biases.push(Some(Bias::Value(name)));
            }
        }
    }

    // The norm feeding A.
    let mut norm = None;
    let mut norm_kept = None;
    if let Some((p, out)) = ix.producer(&a_in) {
        let pn = ix.node(p);
        let kind = if pn.domain == MS && pn.op_type == "SkipSimplifiedLayerNormalization" {
            Some((true, 1e-12f32))
        } else if is_onnx(pn)
            && (pn.op_type == "SimplifiedLayerNormalization" || pn.op_type == "RMSNormalization")
        {
            Some((false, 1e-5f32))
        } else {
            None
        };
        if let Some((skip, default_eps)) = kind {
            match absorb_norm(ix, p, out, skip, k, t1, &set) {
                Ok(()) => {
                    let residual = if skip {
                        pn.output
                            .get(3)
                            .filter(|v| !v.is_empty() && ix.is_read(v))
                            .cloned()
                    } else {
                        None
                    };
                    norm = Some((
                        p,
                        skip,
                        attr_f(pn, "epsilon").unwrap_or(default_eps),
                        residual,
                    ));
                }
                Err(why) => norm_kept = Some(format!("{} {}: {why}", pn.op_type, label(pn))),
            }
        }
    }

    // The fused node.
    let mut inputs = vec![a_in.clone(), String::new(), String::new()];
    let mut outputs = vec![ix.node(m).output.first().cloned().unwrap_or_default()];
    let mut attrs = vec![
        int_attr("K", k),
        int_attr("N", n),
        int_attr("bits", ga.bits),
        int_attr("block_size", ga.block_size),
        int_attr("accuracy_level", 0),
        AttributeProto {
            name: "activation".into(),
            r#type: AttributeType::String as i32,
            s: b"silu".to_vec(),
            ..Default::default()
        },
    ];
    let mut norm_name = None;
    let mut epsilon = None;
    let mut residual = false;
    if let Some((p, skip, eps, res)) = &norm {
        let pn = ix.node(*p);
        removed.insert(*p);
        inputs[0] = pn.input[0].clone();
        if *skip {
            inputs[1] = pn.input[1].clone();
            inputs[2] = pn.input[2].clone();
        } else {
            inputs[2] = pn.input[1].clone();
        }
        if let Some(r) = res {
            outputs.push(r.clone());
            residual = true;
        }
        attrs.push(AttributeProto {
            name: "epsilon".into(),
            r#type: AttributeType::Float as i32,
            f: *eps,
            ..Default::default()
        });
        norm_name = Some(pn.op_type.clone());
        epsilon = Some(*eps);
    }
    for (w, bias) in weight_names.iter().zip(&biases) {
        inputs.push(w.0.clone());
        inputs.push(w.1.clone());
        inputs.push(match bias {
            Some(Bias::Value(b)) => b.clone(),
            _ => String::new(),
        });
    }
    while inputs.last().is_some_and(String::is_empty) {
        inputs.pop();
    }
    let prefix = common_prefix(&gate_mm.name, &up_mm.name);
    let base = match prefix.rfind('/') {
        Some(i) if i > 0 => format!("{}/{OP_TYPE}", &prefix[..i]),
        _ => format!("{OP_TYPE}_{}", outputs[0]),
    };
    let name = names.unique(&base);
    let node = NodeProto {
        input: inputs,
        output: outputs,
        name: name.clone(),
        op_type: OP_TYPE.to_string(),
        attribute: attrs,
        domain: domain.to_string(),
    };
    let fused = Fused {
        layer: String::new(),
        node: name,
        gate: gate_mm.name.clone(),
        up: up_mm.name.clone(),
        k,
        n,
        bits: ga.bits,
        block_size: ga.block_size,
        dtype: t1.map(dtype_name),
        packed,
        activation: act.label.clone(),
        norm: norm_name,
        epsilon,
        residual,
        norm_kept,
        gate_bias: biases[0].is_some(),
        up_bias: biases[1].is_some(),
        accuracy_level: ga
            .accuracy_level
            .max(ua.as_ref().map_or(0, |u| u.accuracy_level)),
        removed: removed
            .iter()
            .map(|&i| {
                let n = ix.node(i);
                if n.name.is_empty() {
                    label(n)
                } else {
                    n.name.clone()
                }
            })
            .collect(),
    };
    Ok(Decision {
        fused,
        node,
        removed,
        reshape,
        new_inits,
    })
}

/// Checks that Split node `s` cuts its input into two halves of `n` along the last axis.
fn check_split(ix: &Index<'_>, s: usize, n: i64) -> Result<(), Stop> {
    let node = ix.node(s);
    let who = label(node);
    if node.output.len() != 2 {
        return Err(stop(
            rules::PACKED,
            format!("Split {who} has {} outputs, not 2", node.output.len()),
        ));
    }
    let axis = attr_i(node, "axis").unwrap_or(0);
    let last = node
        .input
        .first()
        .and_then(|v| ix.rank(v))
        .map(|r| r as i64 - 1);
    if axis != -1 && Some(axis) != last {
        return Err(stop(
            rules::PACKED,
            format!("Split {who} cuts axis {axis}, which is not known to be the last axis"),
        ));
    }
    if let Some(k) = attr_i(node, "num_outputs") {
        if k != 2 {
            return Err(stop(
                rules::PACKED,
                format!("Split {who} has num_outputs {k}"),
            ));
        }
    }
    let sizes: Option<Vec<i64>> = match node.input.get(1).filter(|v| !v.is_empty()) {
        Some(v) => {
            let init =
                ix.g.init(v)
                    .filter(|i| i.data_type == INT64)
                    .ok_or_else(|| {
                        stop(
                            rules::PACKED,
                            format!("Split {who}: sizes '{v}' are not an int64 initializer"),
                        )
                    })?;
            let bytes =
                ix.g.init_bytes(init)
                    .map_err(|e| stop(rules::PACKED, e.to_string()))?;
            Some(
                bytes
                    .chunks_exact(8)
                    .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
                    .collect(),
            )
        }
        None => attr(node, "split").map(|a| a.ints.clone()),
    };
    if let Some(sizes) = sizes {
        if sizes != [n, n] {
            return Err(stop(
                rules::PACKED,
                format!("Split {who} cuts {sizes:?}, not two halves [{n}, {n}]"),
            ));
        }
    }
    Ok(())
}

fn int_attr(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Int as i32,
        i: v,
        ..Default::default()
    }
}

fn common_prefix<'a>(a: &'a str, b: &str) -> &'a str {
    let len = a
        .char_indices()
        .zip(b.chars())
        .take_while(|((_, x), y)| x == y)
        .last()
        .map_or(0, |((i, c), _)| i + c.len_utf8());
    &a[..len]
}

fn elem_size(t: i32) -> usize {
    if t == FLOAT16 {
        2
    } else {
        4
    }
}

/// Checks packed weights `b` and scales `s` for `rows` rows of `kb` blocks of `blob` bytes.
fn check_weight(b: &Init, s: &Init, rows: i64, kb: i64, blob: i64) -> Result<(), Stop> {
    if b.data_type != UINT8 {
        return Err(stop(
            rules::WEIGHTS,
            format!(
                "weights '{}' are {}, not uint8",
                b.name,
                dtype_name(b.data_type)
            ),
        ));
    }
    let want = rows
        .checked_mul(kb)
        .and_then(|x| x.checked_mul(blob))
        .and_then(|x| usize::try_from(x).ok());
    if want.is_none() || b.numel() != want {
        return Err(stop(
            rules::WEIGHTS,
            format!(
                "weights '{}' have dims {:?}, not [{rows}, {kb}, {blob}]",
                b.name, b.dims
            ),
        ));
    }
    if rows.checked_mul(kb).and_then(|x| usize::try_from(x).ok()) != s.numel() {
        return Err(stop(
            rules::WEIGHTS,
            format!(
                "scales '{}' have dims {:?}, not [{rows}, {kb}]",
                s.name, s.dims
            ),
        ));
    }
    if s.data_type != FLOAT && s.data_type != FLOAT16 {
        return Err(stop(
            rules::DTYPE,
            format!("scales '{}' are {}", s.name, dtype_name(s.data_type)),
        ));
    }
    Ok(())
}

/// Whether the norm node `p` (output `out` feeding the projections in `set`) can become part
/// of the fused node; `Err` says why not.
fn absorb_norm(
    ix: &Index<'_>,
    p: usize,
    out: usize,
    skip: bool,
    k: i64,
    t1: Option<i32>,
    set: &BTreeSet<usize>,
) -> Result<(), String> {
    let n = ix.node(p);
    if out != 0 {
        return Err(format!(
            "A is its output {out}, not its normalized output 0"
        ));
    }
    ix.only_read_by(&n.output[0], set)?;
    let stats: &[usize] = if skip { &[1, 2] } else { &[1] };
    for &i in stats {
        if let Some(v) = n.output.get(i).filter(|v| !v.is_empty()) {
            if ix.is_read(v) {
                return Err(format!("its output {i} '{v}' (statistics) is read"));
            }
        }
    }
    if n.input.first().is_none_or(String::is_empty) {
        return Err("it has no input".into());
    }
    let (x, scale) = if skip {
        if n.input.len() < 3 || n.input[1].is_empty() || n.input[2].is_empty() {
            return Err("it lacks skip or gamma".into());
        }
        if n.input.get(3).is_some_and(|b| !b.is_empty()) {
            return Err(format!(
                "it adds a bias '{}' (input 3), which MatMulNBitsMlp has no input for",
                n.input[3]
            ));
        }
        (&n.input[0], &n.input[2])
    } else {
        if n.input.len() < 2 || n.input[1].is_empty() {
            return Err("it lacks a scale".into());
        }
        let axis = attr_i(n, "axis").unwrap_or(-1);
        let last = ix.rank(&n.input[0]).map(|r| r as i64 - 1);
        if axis != -1 && Some(axis) != last {
            return Err(format!("it normalizes over axis {axis}, not the last one"));
        }
        (&n.input[0], &n.input[1])
    };
    if let Some(i) = ix.g.init(scale) {
        if i.numel() != Some(k as usize) || i.dims.len() != 1 {
            return Err(format!(
                "its scale '{scale}' has dims {:?}, not [{k}]",
                i.dims
            ));
        }
    }
    if let Some(t) = t1 {
        for v in [x, scale] {
            if let Some(tv) = ix.elem_type(v) {
                if tv != t {
                    return Err(format!(
                        "'{v}' is {} but the MLP is {}",
                        dtype_name(tv),
                        dtype_name(t)
                    ));
                }
            }
        }
    }
    if skip {
        // MatMulNBitsMlp needs skip of A's shape; ONNX Runtime's skip norm also broadcasts.
        let shape = |v: &str| ix.g.types.get(v).and_then(|t| t.shape.clone());
        if let (Some(a), Some(s)) = (shape(&n.input[0]), shape(&n.input[1])) {
            let differ = a.len() != s.len()
                || a.iter().zip(&s).any(|(x, y)| match (x, y) {
                    (Dim::Fixed(x), Dim::Fixed(y)) => x != y,
                    (Dim::Param(x), Dim::Param(y)) => x != y,
                    (Dim::Fixed(_), Dim::Param(_)) | (Dim::Param(_), Dim::Fixed(_)) => true,
                    _ => false,
                });
            if differ {
                return Err(format!(
                    "its skip '{}' may have another shape than its input '{}' (MatMulNBitsMlp needs the same)",
                    n.input[1], n.input[0]
                ));
            }
        }
    }
    Ok(())
}

/// The rewrite of `g` that the decisions make.
fn rewrite(
    g: &Graph,
    ix: &Index<'_>,
    decisions: &[Decision],
    domain: &str,
) -> Result<Rewrite, FuseError> {
    let removed: HashSet<usize> = decisions
        .iter()
        .flat_map(|d| d.removed.iter().copied())
        .collect();
    // Each fused node goes where the first node it replaces was; then a stable topological order.
    let mut at: HashMap<usize, usize> = HashMap::new();
    for (i, d) in decisions.iter().enumerate() {
        at.insert(
            *d.removed.iter().next().expect("a decision removes nodes"),
            i,
        );
    }
    let mut nodes: Vec<OutNode> = Vec::new();
    for i in 0..g.nodes.len() {
        if let Some(&d) = at.get(&i) {
            nodes.push(OutNode::New(decisions[d].node.clone()));
        }
        if !removed.contains(&i) {
            nodes.push(OutNode::Kept(i));
        }
    }
    let nodes = topo_sort(g, nodes)?;

    // Values that still exist.
    let node_proto = |n: &OutNode| -> NodeProto {
        match n {
            OutNode::Kept(i) => g.nodes[*i].proto.clone(),
            OutNode::New(p) => p.clone(),
        }
    };
    let protos: Vec<NodeProto> = nodes.iter().map(node_proto).collect();
    let mut read: HashSet<&str> = g.outputs.iter().map(String::as_str).collect();
    for (n, p) in nodes.iter().zip(&protos) {
        read.extend(p.input.iter().map(String::as_str));
        if let OutNode::Kept(i) = n {
            read.extend(g.nodes[*i].subgraph_refs.iter().map(String::as_str));
        }
    }
    let produced: HashSet<&str> = protos
        .iter()
        .flat_map(|p| p.output.iter().map(String::as_str))
        .collect();
    // Initializers the removed nodes read and nothing reads any more are dropped.
    let was_read_by_removed: HashSet<&str> = removed
        .iter()
        .flat_map(|&i| g.nodes[i].proto.input.iter().map(String::as_str))
        .collect();
    let reshape: HashMap<usize, Vec<i64>> = decisions
        .iter()
        .flat_map(|d| d.reshape.iter().cloned())
        .collect();
    let mut inits = Vec::new();
    let mut drop_values: HashSet<String> = HashSet::new();
    for (i, init) in g.inits.iter().enumerate() {
        if was_read_by_removed.contains(init.name.as_str()) && !read.contains(init.name.as_str()) {
            drop_values.insert(init.name.clone());
            continue;
        }
        inits.push(OutInit::Kept {
            index: i,
            dims: reshape.get(&i).cloned(),
        });
    }
    inits.extend(decisions.iter().flat_map(|d| d.new_inits.iter().cloned()));
    // value_info of values no node produces any more.
    for i in &removed {
        for o in &g.nodes[*i].proto.output {
            if !o.is_empty() && !produced.contains(o.as_str()) {
                drop_values.insert(o.clone());
            }
        }
    }
    let _ = ix;
    let add_opsets = if decisions.is_empty() || g.opsets.iter().any(|(d, _)| d == domain) {
        Vec::new()
    } else {
        vec![(domain.to_string(), 1)]
    };
    Ok(Rewrite {
        nodes,
        inits,
        drop_values,
        add_opsets,
    })
}

/// Orders `nodes` so that every node comes after the producers of what it reads (inputs and
/// subgraph references), keeping the given order wherever it already is one.
fn topo_sort(g: &Graph, nodes: Vec<OutNode>) -> Result<Vec<OutNode>, FuseError> {
    let reads = |n: &OutNode| -> Vec<String> {
        match n {
            OutNode::Kept(i) => g.nodes[*i]
                .proto
                .input
                .iter()
                .chain(&g.nodes[*i].subgraph_refs)
                .cloned()
                .collect(),
            OutNode::New(p) => p.input.clone(),
        }
    };
    let outputs = |n: &OutNode| -> Vec<String> {
        match n {
            OutNode::Kept(i) => g.nodes[*i].proto.output.clone(),
            OutNode::New(p) => p.output.clone(),
        }
    };
    let mut producer: HashMap<String, usize> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        for o in outputs(n).into_iter().filter(|o| !o.is_empty()) {
            producer.insert(o, i);
        }
    }
    let mut indegree = vec![0usize; nodes.len()];
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        let deps: BTreeSet<usize> = reads(n)
            .iter()
            .filter_map(|v| producer.get(v).copied())
            .filter(|&p| p != i)
            .collect();
        indegree[i] = deps.len();
        for p in deps {
            dependents[p].push(i);
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..nodes.len())
        .filter(|&i| indegree[i] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for &d in &dependents[i] {
            indegree[d] -= 1;
            if indegree[d] == 0 {
                ready.push(Reverse(d));
            }
        }
    }
    if order.len() != nodes.len() {
        return Err(FuseError::Model {
            path: g.path.clone(),
            reason: "the graph has a cycle (its nodes cannot be ordered)".into(),
        });
    }
    let mut slots: Vec<Option<OutNode>> = nodes.into_iter().map(Some).collect();
    Ok(order
        .into_iter()
        .map(|i| slots[i].take().expect("each index once"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_names() {
        assert_eq!(
            layer_of("/model/layers.12/mlp/gate_proj/MatMul_Q4").as_deref(),
            Some("layers.12")
        );
        assert_eq!(layer_of("gate"), None);
        assert_eq!(layer_of("layers.x"), None);
    }

    #[test]
    fn prefixes() {
        assert_eq!(common_prefix("/a/b/gate", "/a/b/up"), "/a/b/");
        assert_eq!(common_prefix("", "x"), "");
        assert_eq!(common_prefix("é/x", "é/y"), "é/");
    }
}
