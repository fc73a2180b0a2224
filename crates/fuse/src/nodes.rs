//! The `MatMulNBitsMlp` nodes of any ONNX model (a fused LLM included) as call shapes, rows
//! aside: what `nbits-mlp map MODEL.onnx` plans. Only the graph is read; initializers are
//! looked at for their element type, never their data.

use crate::graph::Graph;
use crate::pattern::{label, FLOAT, FLOAT16};
use crate::{FuseError, OP_TYPE};
use nbits_mlp_core::{DType, MlpShape};
use nbits_mlp_onnx::proto::NodeProto;
use std::path::Path;

/// One `MatMulNBitsMlp` node (in any domain: `com.microsoft`, or another that `nbits-mlp fuse
/// --domain` wrote) as the shape of its calls; `shape.lead` is `[1]`, the rows left to the
/// caller.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeShape {
    /// How errors name the node: `'name'`, or `MatMulNBitsMlp (output 'Y')` when unnamed.
    pub label: String,
    /// Its calls' shape: attributes, T1, which optional inputs and outputs it has.
    pub shape: MlpShape,
}

/// Every `MatMulNBitsMlp` node of the model at `path`, in file order. T1 is the element type of
/// `gate_scales` (its initializer's, else its declared type), else of `A`. Errors name the node
/// and the attribute or input at fault; a model without such nodes gives an empty list.
pub fn mlp_node_shapes(path: &Path) -> Result<Vec<NodeShape>, FuseError> {
    let g = Graph::load(path)?;
    let bad = |n: &NodeProto, what: String| FuseError::Model {
        path: path.to_path_buf(),
        reason: format!("node {}: {what}", label(n)),
    };
    let mut out = Vec::new();
    for node in g.nodes.iter().map(|n| &n.proto) {
        if node.op_type != OP_TYPE || node.domain.is_empty() || node.domain == "ai.onnx" {
            continue;
        }
        let int = |name: &str, default: Option<i64>| -> Result<usize, FuseError> {
            let v = match node.attribute.iter().find(|a| a.name == name) {
                Some(a) => a.i,
                None => default.ok_or_else(|| bad(node, format!("no attribute `{name}`")))?,
            };
            usize::try_from(v).map_err(|_| bad(node, format!("attribute `{name}` is {v}")))
        };
        let input = |i: usize| node.input.get(i).filter(|s| !s.is_empty());
        let elem = |name: &String| {
            g.init_index
                .get(name)
                .map(|&i| g.inits[i].data_type)
                .or_else(|| g.types.get(name).map(|t| t.elem_type))
        };
        let t1 = [4, 0]
            .iter()
            .filter_map(|&i| input(i).and_then(elem))
            .find(|&t| t != 0);
        let dtype = match t1 {
            Some(FLOAT) => DType::F32,
            Some(FLOAT16) => DType::F16,
            Some(t) => {
                return Err(bad(
                    node,
                    format!(
                        "T1 (the type of gate_scales) is data type {t}, not float32 or float16"
                    ),
                ))
            }
            None => {
                return Err(bad(
                    node,
                    "the type of gate_scales and of A is not declared".into(),
                ))
            }
        };
        let bits = int("bits", Some(4))?;
        out.push(NodeShape {
            label: label(node),
            shape: MlpShape {
                k: int("K", None)?,
                n: int("N", None)?,
                lead: vec![1],
                dtype,
                bits: u32::try_from(bits)
                    .map_err(|_| bad(node, format!("attribute `bits` is {bits}")))?,
                block_size: int("block_size", None)?,
                skip: input(1).is_some(),
                norm: input(2).is_some(),
                residual: node.output.get(1).is_some_and(|s| !s.is_empty()),
                gate_bias: input(5).is_some(),
                up_bias: input(8).is_some(),
            },
        });
    }
    Ok(out)
}

/// The distinct shapes of a model's `MatMulNBitsMlp` nodes ([`mlp_node_shapes`]), in the order
/// of their first node, each labelled for a map line: `node 'NAME'`, or `node 'NAME' and 15 more
/// like it` where more nodes have that shape (an LLM's layers). A model without such nodes is
/// an error: it has nothing to map.
pub fn distinct_mlp_shapes(path: &Path) -> Result<Vec<(String, MlpShape)>, FuseError> {
    let nodes = mlp_node_shapes(path)?;
    if nodes.is_empty() {
        return Err(FuseError::Model {
            path: path.to_path_buf(),
            reason: "no MatMulNBitsMlp node (the fusion, `nbits-mlp fuse` or `nbits_mlp.fuse`, \
                     writes them into an exported LLM)"
                .into(),
        });
    }
    let mut groups: Vec<(String, MlpShape, usize)> = Vec::new();
    for n in nodes {
        match groups.iter_mut().find(|g| g.1 == n.shape) {
            Some(g) => g.2 += 1,
            None => groups.push((n.label, n.shape, 1)),
        }
    }
    Ok(groups
        .into_iter()
        .map(|(label, shape, count)| match count {
            1 => (format!("node {label}"), shape),
            c => (format!("node {label} and {} more like it", c - 1), shape),
        })
        .collect())
}
