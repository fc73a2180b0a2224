//! Finding the MLPs, judging each against the rules, and planning the rewrite: [`plan`] walks
//! the graph's gating `Mul`s, [`index`] traces each back to its activation and projections,
//! [`decide`] judges the candidate (with the rule checks of [`checks`]) and [`rewrite`] turns
//! the decisions into the graph's [`Rewrite`].

mod checks;
mod decide;
mod index;
mod rewrite;

use crate::graph::{Graph, Rewrite};
use crate::{FuseError, Fused, Skipped};
use decide::{decide, Decision, Names};
use index::Index;
use nbits_mlp_onnx::proto::{AttributeProto, AttributeType, NodeProto};
use rewrite::rewrite;
use std::collections::BTreeSet;

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
pub(crate) const FLOAT: i32 = 1;
const UINT8: i32 = 2;
const INT64: i32 = 7;
pub(crate) const FLOAT16: i32 = 10;

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

pub(crate) fn label(n: &NodeProto) -> String {
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
