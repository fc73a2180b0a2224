//! `mlp_node_shapes`: the fused nodes of a model read back as call shapes (what `nbits-mlp map
//! MODEL.onnx` plans).

use crate::build::*;
use crate::run::*;
use nbits_mlp_core::DType;
use nbits_mlp_fuse::{distinct_mlp_shapes, mlp_node_shapes, FuseOptions};
use prost::Message;

#[test]
fn fused_nodes_read_back_as_shapes() {
    for (bits, block) in [(2, 16), (4, 32), (8, 128)] {
        let mut g = G::default();
        builder_layer(&mut g, bits, block);
        let r = fuse(&g);
        let path = r._dir.path().join("out.onnx");
        let nodes = mlp_node_shapes(&path).unwrap();
        assert_eq!(nodes.len(), 1);
        let s = &nodes[0].shape;
        assert_eq!(nodes[0].label, "'/model/layers.0/mlp/MatMulNBitsMlp'");
        assert_eq!(
            (s.k, s.n, s.bits, s.block_size),
            (K as usize, N as usize, bits as u32, block as usize)
        );
        assert_eq!(s.lead, [1]);
        // The builder layer: float32 scales, skip + norm with the residual output, no biases.
        assert_eq!(s.dtype, DType::F32);
        assert!(s.skip && s.norm && s.residual && !s.gate_bias && !s.up_bias);
    }
    // Two layers of one shape are one line, labelled by the first.
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    let r = fuse(&g);
    let mut m = r.out.clone();
    let graph = m.graph.as_mut().unwrap();
    let mut second = graph
        .node
        .iter()
        .find(|n| n.op_type == "MatMulNBitsMlp")
        .unwrap()
        .clone();
    second.name = "second".into();
    second.output = vec!["y2".into(), String::new()];
    graph.node.push(second);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("two.onnx");
    std::fs::write(&p, m.encode_to_vec()).unwrap();
    let nodes = mlp_node_shapes(&p).unwrap();
    assert_eq!(nodes.len(), 2);
    assert!(nodes[0].shape.residual && !nodes[1].shape.residual);
    let lines = distinct_mlp_shapes(&p).unwrap();
    assert_eq!(lines.len(), 2, "the residual output makes another shape");
    assert_eq!(lines[0].0, "node '/model/layers.0/mlp/MatMulNBitsMlp'");
    let graph = m.graph.as_mut().unwrap();
    graph.node.last_mut().unwrap().output = vec!["y2".into(), "r2".into()];
    std::fs::write(&p, m.encode_to_vec()).unwrap();
    let lines = distinct_mlp_shapes(&p).unwrap();
    assert_eq!(lines.len(), 1);
    assert_eq!(
        lines[0].0,
        "node '/model/layers.0/mlp/MatMulNBitsMlp' and 1 more like it"
    );
    // A model the fusion did not touch has no such node.
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), &g.model(), &[]);
    assert!(mlp_node_shapes(&src).unwrap().is_empty());
    // ... so it has nothing to map.
    let e = distinct_mlp_shapes(&src).unwrap_err().to_string();
    assert!(e.contains("no MatMulNBitsMlp node"), "{e}");
}

#[test]
fn biases_and_another_domain_are_read() {
    let mut g = G::default();
    packed_layer(&mut g, true, vec![int("axis", -1)], Some(&[N, N]));
    let opts = FuseOptions {
        domain: "nbits_mlp".into(),
    };
    let r = fuse_bytes(&g.model(), &[], &opts);
    let path = r._dir.path().join("out.onnx");
    let nodes = mlp_node_shapes(&path).unwrap();
    assert_eq!(nodes.len(), 1);
    let s = &nodes[0].shape;
    assert!(s.gate_bias && s.up_bias, "{s:?}");
}

/// The model's (first) MatMulNBitsMlp node, to break.
fn fused_node(m: &mut nbits_mlp_onnx::proto::ModelProto) -> &mut nbits_mlp_onnx::proto::NodeProto {
    let graph = m.graph.as_mut().unwrap();
    graph
        .node
        .iter_mut()
        .find(|n| n.op_type == "MatMulNBitsMlp")
        .unwrap()
}

#[test]
fn a_node_without_its_attributes_is_named() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    let r = fuse(&g);
    let mut m = r.out.clone();
    let node = fused_node(&mut m);
    node.attribute.retain(|a| a.name != "N");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("m.onnx");
    std::fs::write(&p, m.encode_to_vec()).unwrap();
    let e = mlp_node_shapes(&p).unwrap_err().to_string();
    assert!(
        e.contains("node '/model/layers.0/mlp/MatMulNBitsMlp': no attribute `N`"),
        "{e}"
    );
    // A negative size is refused, not wrapped.
    let node = fused_node(&mut m);
    node.attribute.push(int("N", -5));
    std::fs::write(&p, m.encode_to_vec()).unwrap();
    let e = mlp_node_shapes(&p).unwrap_err().to_string();
    assert!(e.contains("attribute `N` is -5"), "{e}");
}
