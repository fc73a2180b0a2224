//! The rewrite the decisions make: fused nodes in place of what they replace, in a stable
//! topological order, and the initializers and value types nothing uses any more dropped.

use super::decide::Decision;
use super::index::Index;
use crate::graph::{Graph, OutInit, OutNode, Rewrite};
use crate::FuseError;
use nbits_mlp_onnx::proto::NodeProto;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap, HashSet};

/// The rewrite of `g` that the decisions make.
pub(super) fn rewrite(
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
pub(super) fn topo_sort(g: &Graph, nodes: Vec<OutNode>) -> Result<Vec<OutNode>, FuseError> {
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
