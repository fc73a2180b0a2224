//! Finding candidates: who produces and reads each value, and tracing a gating `Mul` back to
//! its activation and its two projections.

use super::{attr_f, is_onnx, label, MS};
use crate::graph::Graph;
use nbits_mlp_onnx::proto::NodeProto;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Single-input activations recognised (to say why a gated MLP with one of them is not fused).
pub(super) const OTHER_ACTIVATIONS: [&str; 17] = [
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

/// A projection feeding the gating `Mul`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Proj {
    /// The `MatMulNBits` node.
    pub(super) mm: usize,
    /// The packed form's `Split` node and which of its outputs this is.
    pub(super) split: Option<(usize, usize)>,
    /// An `Add` between the packed `MatMulNBits` and the `Split`, and its other operand.
    pub(super) pre_add: Option<(usize, String)>,
    /// An `Add` after the projection, and its other operand.
    pub(super) add: Option<(usize, String)>,
}

/// The gating activation.
pub(super) struct Act {
    /// Its nodes.
    pub(super) nodes: Vec<usize>,
    /// How it is written.
    pub(super) label: String,
    /// Whether it is SiLU.
    pub(super) silu: bool,
}

/// The graph's values: who produces and who reads each.
pub(super) struct Index<'g> {
    pub(super) g: &'g Graph,
    pub(super) producer: HashMap<&'g str, (usize, usize)>,
    pub(super) consumers: HashMap<&'g str, Vec<usize>>,
    pub(super) graph_outputs: HashSet<&'g str>,
    pub(super) subgraph_refs: HashSet<&'g str>,
}

impl<'g> Index<'g> {
    pub(super) fn new(g: &'g Graph) -> Index<'g> {
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

    pub(super) fn node(&self, i: usize) -> &'g NodeProto {
        &self.g.nodes[i].proto
    }

    pub(super) fn producer(&self, v: &str) -> Option<(usize, usize)> {
        self.producer.get(v).copied()
    }

    pub(super) fn is_mm(&self, i: usize) -> bool {
        let n = self.node(i);
        n.domain == MS && n.op_type == "MatMulNBits"
    }

    /// The `MatMulNBits` (and packed `Split`, and `Add` before it) producing `v`.
    #[allow(clippy::type_complexity)]
    pub(super) fn proj_source(
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
    pub(super) fn trace_proj(&self, v: &str) -> Option<Proj> {
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
    pub(super) fn trace_act(&self, x: &str) -> Option<(Act, String)> {
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
    pub(super) fn only_read_by(&self, v: &str, set: &BTreeSet<usize>) -> Result<(), String> {
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
    pub(super) fn is_read(&self, v: &str) -> bool {
        self.graph_outputs.contains(v)
            || self.subgraph_refs.contains(v)
            || self.consumers.get(v).is_some_and(|c| !c.is_empty())
    }

    /// The element type of value `v`: an initializer's, or a declared type's.
    pub(super) fn elem_type(&self, v: &str) -> Option<i32> {
        if let Some(i) = self.g.init(v) {
            return Some(i.data_type);
        }
        self.g.types.get(v).map(|t| t.elem_type).filter(|&t| t != 0)
    }

    /// The rank of value `v`, when its type declares one.
    pub(super) fn rank(&self, v: &str) -> Option<usize> {
        if let Some(i) = self.g.init(v) {
            return Some(i.dims.len());
        }
        self.g.types.get(v)?.shape.as_ref().map(Vec::len)
    }
}
