//! Running `fuse` on a built model, and reading what it wrote.

use crate::build::G;
use nbits_mlp_fuse::{fuse_file, FuseOptions, FuseReport};
use nbits_mlp_onnx::proto::{AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto};
use prost::Message;
use std::path::{Path, PathBuf};

pub struct Run {
    pub report: FuseReport,
    pub out: ModelProto,
    pub out_bytes: Vec<u8>,
    pub _dir: tempfile::TempDir,
}

pub fn write(dir: &Path, m: &ModelProto, extra: &[u8]) -> PathBuf {
    let p = dir.join("in.onnx");
    let mut bytes = m.encode_to_vec();
    bytes.extend_from_slice(extra);
    std::fs::write(&p, bytes).unwrap();
    p
}

pub fn fuse_bytes(m: &ModelProto, extra: &[u8], opts: &FuseOptions) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), m, extra);
    let dst = dir.path().join("out.onnx");
    let report = fuse_file(&src, &dst, opts).unwrap();
    let out_bytes = std::fs::read(&dst).unwrap();
    let out = ModelProto::decode(out_bytes.as_slice()).unwrap();
    Run {
        report,
        out,
        out_bytes,
        _dir: dir,
    }
}

pub fn fuse(g: &G) -> Run {
    fuse_bytes(&g.model(), &[], &FuseOptions::default())
}

pub fn graph(r: &Run) -> &GraphProto {
    r.out.graph.as_ref().unwrap()
}

pub fn ops(r: &Run) -> Vec<String> {
    graph(r).node.iter().map(|n| n.op_type.clone()).collect()
}

pub fn fused_node(r: &Run) -> &NodeProto {
    let found: Vec<&NodeProto> = graph(r)
        .node
        .iter()
        .filter(|n| n.op_type == "MatMulNBitsMlp")
        .collect();
    assert_eq!(found.len(), 1, "{:?}", ops(r));
    found[0]
}

pub fn attr<'a>(n: &'a NodeProto, name: &str) -> &'a AttributeProto {
    n.attribute
        .iter()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("no attribute {name}"))
}

pub fn init<'a>(r: &'a Run, name: &str) -> &'a TensorProto {
    graph(r)
        .initializer
        .iter()
        .find(|i| i.name == name)
        .unwrap_or_else(|| panic!("no initializer {name}"))
}

pub fn skipped_rule(r: &Run) -> String {
    assert!(r.report.fused.is_empty(), "{:?}", r.report.fused);
    assert_eq!(r.report.skipped.len(), 1, "{:?}", r.report.skipped);
    r.report.skipped[0].rule.clone()
}
