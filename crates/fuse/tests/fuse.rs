//! `fuse` on graphs built here: every form it fuses, every rule that stops it, and what it keeps.

use nbits_mlp_fuse::{fuse_file, rules, FuseOptions, FuseReport};
use nbits_mlp_onnx::proto::{
    AttributeProto, AttributeType, DataLocation, GraphProto, ModelProto, NodeProto,
    OperatorSetIdProto, StringStringEntryProto, TensorProto,
};
use prost::Message;
use std::path::{Path, PathBuf};

const MS: &str = "com.microsoft";
const K: i64 = 64;
const N: i64 = 48;

fn int(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Int as i32,
        i: v,
        ..Default::default()
    }
}

fn float(name: &str, v: f32) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Float as i32,
        f: v,
        ..Default::default()
    }
}

fn ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Ints as i32,
        ints: v.to_vec(),
        ..Default::default()
    }
}

fn node(
    op: &str,
    domain: &str,
    name: &str,
    inputs: &[&str],
    outputs: &[&str],
    attrs: Vec<AttributeProto>,
) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        name: name.into(),
        op_type: op.into(),
        attribute: attrs,
        domain: domain.into(),
    }
}

fn tensor(name: &str, data_type: i32, dims: &[i64], data: Vec<u8>) -> TensorProto {
    TensorProto {
        dims: dims.to_vec(),
        data_type,
        name: name.into(),
        raw_data: data,
        ..Default::default()
    }
}

/// A graph under construction.
#[derive(Default)]
struct G {
    nodes: Vec<NodeProto>,
    inits: Vec<TensorProto>,
    outputs: Vec<String>,
}

impl G {
    fn n(
        &mut self,
        op: &str,
        domain: &str,
        name: &str,
        inputs: &[&str],
        outputs: &[&str],
        attrs: Vec<AttributeProto>,
    ) {
        self.nodes
            .push(node(op, domain, name, inputs, outputs, attrs));
    }

    /// Packed weights `<p>.B` ([rows, kb, blob], byte i = row-dependent pattern) and `<p>.S`.
    fn weights(&mut self, p: &str, rows: i64, bits: i64, block: i64) {
        let kb = (K + block - 1) / block;
        let blob = block * bits / 8;
        let b: Vec<u8> = (0..rows * kb * blob)
            .map(|i| (i / (kb * blob) * 7 + i) as u8)
            .collect();
        let s: Vec<u8> = (0..rows * kb)
            .flat_map(|i| (0.01 * (1 + i) as f32).to_le_bytes())
            .collect();
        self.inits
            .push(tensor(&format!("{p}.B"), 2, &[rows, kb, blob], b));
        self.inits
            .push(tensor(&format!("{p}.S"), 1, &[rows, kb], s));
    }

    fn matmul(&mut self, p: &str, a: &str, out: &str, rows: i64, bits: i64, block: i64) {
        self.weights(p, rows, bits, block);
        let b = format!("{p}.B");
        let s = format!("{p}.S");
        self.n(
            "MatMulNBits",
            MS,
            &format!("{p}/MatMul_Q4"),
            &[a, &b, &s],
            &[out],
            vec![
                int("K", K),
                int("N", rows),
                int("bits", bits),
                int("block_size", block),
                int("accuracy_level", 4),
            ],
        );
    }

    fn f32s(&mut self, name: &str, dims: &[i64]) {
        let n: i64 = dims.iter().product();
        let data = (0..n)
            .flat_map(|i| (1.0 + i as f32 / 100.0).to_le_bytes())
            .collect();
        self.inits.push(tensor(name, 1, dims, data));
    }

    fn model(&self) -> ModelProto {
        let vi = |name: &str| nbits_mlp_onnx::proto::ValueInfoProto {
            name: name.into(),
            r#type: None,
        };
        ModelProto {
            ir_version: 10,
            opset_import: vec![
                OperatorSetIdProto {
                    domain: String::new(),
                    version: 21,
                },
                OperatorSetIdProto {
                    domain: MS.into(),
                    version: 1,
                },
            ],
            producer_name: "test".into(),
            producer_version: String::new(),
            graph: Some(GraphProto {
                node: self.nodes.clone(),
                name: "g".into(),
                initializer: self.inits.clone(),
                input: vec![vi("x"), vi("res")],
                output: self.outputs.iter().map(|o| vi(o)).collect(),
            }),
        }
    }
}

/// The builder's MLP with a skip norm in front: `x + res` normalized, gate/up, SiLU, Mul; the
/// residual read by a node after the MLP, the MLP output read by `down`.
fn builder_layer(g: &mut G, bits: i64, block: i64) {
    g.f32s("gamma", &[K]);
    g.n(
        "SkipSimplifiedLayerNormalization",
        MS,
        "/model/layers.0/post_attention_layernorm/SkipLayerNorm",
        &["x", "res", "gamma"],
        &["normed", "", "", "residual"],
        vec![float("epsilon", 1e-6)],
    );
    g.matmul(
        "/model/layers.0/mlp/gate_proj",
        "normed",
        "gate",
        N,
        bits,
        block,
    );
    g.matmul(
        "/model/layers.0/mlp/up_proj",
        "normed",
        "up",
        N,
        bits,
        block,
    );
    g.n(
        "Sigmoid",
        "",
        "/model/layers.0/mlp/act_fn/Sigmoid",
        &["gate"],
        &["sig"],
        vec![],
    );
    g.n(
        "Mul",
        "",
        "/model/layers.0/mlp/act_fn/Mul",
        &["gate", "sig"],
        &["act"],
        vec![],
    );
    g.n(
        "Mul",
        "",
        "/model/layers.0/mlp/Mul",
        &["act", "up"],
        &["y"],
        vec![],
    );
    tail(g);
}

/// The down projection and a reader of the residual, and the graph outputs.
fn tail(g: &mut G) {
    g.inits
        .push(tensor("dB", 2, &[K, 2, 16], vec![0x88; (K * 32) as usize]));
    g.inits
        .push(tensor("dS", 1, &[K, 2], vec![0; (K * 2 * 4) as usize]));
    g.n(
        "MatMulNBits",
        MS,
        "/model/layers.0/mlp/down_proj/MatMul_Q4",
        &["y", "dB", "dS"],
        &["down"],
        vec![
            int("K", N),
            int("N", K),
            int("bits", 4),
            int("block_size", 32),
        ],
    );
    if g.nodes
        .iter()
        .any(|n| n.output.iter().any(|o| o == "residual"))
    {
        g.n("Add", "", "next", &["residual", "down"], &["out"], vec![]);
    } else {
        g.n("Identity", "", "next", &["down"], &["out"], vec![]);
    }
    g.outputs = vec!["out".into()];
}

struct Run {
    report: FuseReport,
    out: ModelProto,
    out_bytes: Vec<u8>,
    _dir: tempfile::TempDir,
}

fn write(dir: &Path, m: &ModelProto, extra: &[u8]) -> PathBuf {
    let p = dir.join("in.onnx");
    let mut bytes = m.encode_to_vec();
    bytes.extend_from_slice(extra);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn fuse_bytes(m: &ModelProto, extra: &[u8], opts: &FuseOptions) -> Run {
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

fn fuse(g: &G) -> Run {
    fuse_bytes(&g.model(), &[], &FuseOptions::default())
}

fn graph(r: &Run) -> &GraphProto {
    r.out.graph.as_ref().unwrap()
}

fn ops(r: &Run) -> Vec<String> {
    graph(r).node.iter().map(|n| n.op_type.clone()).collect()
}

fn fused_node(r: &Run) -> &NodeProto {
    let found: Vec<&NodeProto> = graph(r)
        .node
        .iter()
        .filter(|n| n.op_type == "MatMulNBitsMlp")
        .collect();
    assert_eq!(found.len(), 1, "{:?}", ops(r));
    found[0]
}

fn attr<'a>(n: &'a NodeProto, name: &str) -> &'a AttributeProto {
    n.attribute
        .iter()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("no attribute {name}"))
}

fn init<'a>(r: &'a Run, name: &str) -> &'a TensorProto {
    graph(r)
        .initializer
        .iter()
        .find(|i| i.name == name)
        .unwrap_or_else(|| panic!("no initializer {name}"))
}

fn skipped_rule(r: &Run) -> String {
    assert!(r.report.fused.is_empty(), "{:?}", r.report.fused);
    assert_eq!(r.report.skipped.len(), 1, "{:?}", r.report.skipped);
    r.report.skipped[0].rule.clone()
}

#[test]
fn builder_layer_fuses_with_norm_and_residual() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    let r = fuse(&g);
    assert_eq!(ops(&r), ["MatMulNBitsMlp", "MatMulNBits", "Add"]);
    let n = fused_node(&r);
    assert_eq!(n.domain, MS);
    assert_eq!(n.name, "/model/layers.0/mlp/MatMulNBitsMlp");
    let gp = "/model/layers.0/mlp/gate_proj";
    let up = "/model/layers.0/mlp/up_proj";
    let want: Vec<String> = [
        "x".into(),
        "res".into(),
        "gamma".into(),
        format!("{gp}.B"),
        format!("{gp}.S"),
        String::new(),
        format!("{up}.B"),
        format!("{up}.S"),
    ]
    .into();
    assert_eq!(n.input, want);
    assert_eq!(n.output, ["y", "residual"]);
    for (a, v) in [
        ("K", K),
        ("N", N),
        ("bits", 4),
        ("block_size", 32),
        ("accuracy_level", 0),
    ] {
        assert_eq!(attr(n, a).i, v, "{a}");
    }
    assert_eq!(attr(n, "activation").s, b"silu");
    assert_eq!(attr(n, "epsilon").f, 1e-6);
    let f = &r.report.fused[0];
    assert_eq!(f.layer, "layers.0");
    assert_eq!(f.norm.as_deref(), Some("SkipSimplifiedLayerNormalization"));
    assert!(f.residual && !f.packed && !f.gate_bias && !f.up_bias);
    assert_eq!(f.accuracy_level, 4);
    assert_eq!(f.removed.len(), 6);
    assert!(!r.report.opset_added);
    // Every initializer is still used, so all are kept, unchanged.
    assert_eq!(graph(&r).initializer, g.model().graph.unwrap().initializer);
}

#[test]
fn every_bits_and_block_size() {
    for bits in [2, 4, 8] {
        for block in [16, 32, 64, 128, 256] {
            let mut g = G::default();
            builder_layer(&mut g, bits, block);
            let r = fuse(&g);
            let n = fused_node(&r);
            assert_eq!((attr(n, "bits").i, attr(n, "block_size").i), (bits, block));
        }
    }
}

#[test]
fn unknown_fields_and_metadata_survive() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    // metadata_props (ModelProto field 14) and a doc_string (field 6), which this crate's
    // messages do not declare, appended to the encoded model.
    let mut extra = Vec::new();
    let meta = StringStringEntryProto {
        key: "k".into(),
        value: "v".into(),
    };
    prost::encoding::message::encode(14, &meta, &mut extra);
    prost::encoding::string::encode(6, &"model doc".to_string(), &mut extra);
    let r = fuse_bytes(&g.model(), &extra, &FuseOptions::default());
    assert!(r.out_bytes.ends_with(&extra[..0]));
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    assert!(
        find(&r.out_bytes, &extra),
        "metadata and doc string copied byte for byte"
    );
    // The down projection's bytes are copied as they were.
    let down = g
        .nodes
        .iter()
        .find(|n| n.name.contains("down_proj"))
        .unwrap()
        .encode_to_vec();
    assert!(find(&r.out_bytes, &down));
}

#[test]
fn silu_operand_orders_and_quickgelu() {
    for (sig_first, act_first) in [(true, true), (true, false), (false, true), (false, false)] {
        let mut g = G::default();
        builder_layer(&mut g, 4, 32);
        let m = g
            .nodes
            .iter_mut()
            .find(|n| n.name.ends_with("act_fn/Mul"))
            .unwrap();
        if sig_first {
            m.input.reverse();
        }
        let m = g
            .nodes
            .iter_mut()
            .find(|n| n.name.ends_with("mlp/Mul"))
            .unwrap();
        if !act_first {
            m.input.reverse();
        }
        let r = fuse(&g);
        assert_eq!(
            r.report.fused.len(),
            1,
            "{sig_first} {act_first}: {:?}",
            r.report.skipped
        );
        assert_eq!(
            fused_node(&r).input[3],
            "/model/layers.0/mlp/gate_proj.B",
            "gate stays gate"
        );
    }
    for (alpha, fused) in [(Some(1.0), true), (None, false), (Some(1.702), false)] {
        let mut g = G::default();
        builder_layer(&mut g, 4, 32);
        g.nodes.retain(|n| !n.name.ends_with("act_fn/Sigmoid"));
        let m = g
            .nodes
            .iter_mut()
            .find(|n| n.name.ends_with("act_fn/Mul"))
            .unwrap();
        *m = node(
            "QuickGelu",
            MS,
            "qg",
            &["gate"],
            &["act"],
            alpha.map(|a| vec![float("alpha", a)]).unwrap_or_default(),
        );
        let r = fuse(&g);
        if fused {
            assert_eq!(r.report.fused[0].activation, "QuickGelu(alpha=1)");
        } else {
            assert_eq!(skipped_rule(&r), rules::ACTIVATION);
            assert!(
                r.report.skipped[0].reason.contains("1.702"),
                "{}",
                r.report.skipped[0].reason
            );
        }
    }
}

#[test]
fn other_activations_are_named() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    g.nodes.retain(|n| !n.name.ends_with("act_fn/Sigmoid"));
    let m = g
        .nodes
        .iter_mut()
        .find(|n| n.name.ends_with("act_fn/Mul"))
        .unwrap();
    *m = node("Gelu", MS, "gelu", &["gate"], &["act"], vec![]);
    let r = fuse(&g);
    assert_eq!(skipped_rule(&r), rules::ACTIVATION);
    assert_eq!(r.report.skipped[0].at, "/model/layers.0/mlp/Mul");
    assert_eq!(r.report.skipped[0].layer, "layers.0");
    assert_eq!(
        ops(&r),
        g.model()
            .graph
            .unwrap()
            .node
            .iter()
            .map(|n| n.op_type.clone())
            .collect::<Vec<_>>()
    );
}

#[test]
fn bias_adds_and_matmul_bias_fold() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    // gate: Add(bias, gate_mm) with a [1, N] bias; up: MatMulNBits input 5.
    g.f32s("gbias", &[1, N]);
    g.f32s("ubias", &[N]);
    for n in &mut g.nodes {
        if n.name.ends_with("gate_proj/MatMul_Q4") {
            n.output[0] = "gate_mm".into();
        }
        if n.name.ends_with("up_proj/MatMul_Q4") {
            n.input.extend(["".into(), "".into(), "ubias".into()]);
        }
    }
    g.nodes.insert(
        3,
        node("Add", "", "gadd", &["gbias", "gate_mm"], &["gate"], vec![]),
    );
    let r = fuse(&g);
    let n = fused_node(&r);
    assert_eq!(n.input[5], "gbias");
    assert_eq!(n.input[8], "ubias");
    assert_eq!(init(&r, "gbias").dims, [N], "reshaped to [N]");
    assert!(r.report.fused[0].gate_bias && r.report.fused[0].up_bias);
    assert!(
        !ops(&r).contains(&"Add".to_string())
            || ops(&r).iter().filter(|o| *o == "Add").count() == 1
    );
}

#[test]
fn bias_rules() {
    // An Add of a non-initializer is not a bias.
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    for n in &mut g.nodes {
        if n.name.ends_with("gate_proj/MatMul_Q4") {
            n.output[0] = "gate_mm".into();
        }
    }
    g.nodes.insert(
        3,
        node("Add", "", "gadd", &["gate_mm", "x"], &["gate"], vec![]),
    );
    assert_eq!(skipped_rule(&fuse(&g)), rules::BIAS);
    // Two biases on one projection.
    let mut g2 = G::default();
    builder_layer(&mut g2, 4, 32);
    g2.f32s("b1", &[N]);
    g2.f32s("b2", &[N]);
    for n in &mut g2.nodes {
        if n.name.ends_with("gate_proj/MatMul_Q4") {
            n.output[0] = "gate_mm".into();
            n.input.extend(["".into(), "".into(), "b1".into()]);
        }
    }
    g2.nodes.insert(
        3,
        node("Add", "", "gadd", &["gate_mm", "b2"], &["gate"], vec![]),
    );
    let r = fuse(&g2);
    assert_eq!(skipped_rule(&r), rules::BIAS);
    assert!(r.report.skipped[0].reason.contains("two biases"));
    // A bias of the wrong length.
    let mut g3 = G::default();
    builder_layer(&mut g3, 4, 32);
    g3.f32s("b3", &[N + 1]);
    for n in &mut g3.nodes {
        if n.name.ends_with("up_proj/MatMul_Q4") {
            n.input.extend(["".into(), "".into(), "b3".into()]);
        }
    }
    assert_eq!(skipped_rule(&fuse(&g3)), rules::BIAS);
}

/// The packed form: one MatMulNBits of 2N, Split into gate and up (order `gate_first`).
fn packed_layer(
    g: &mut G,
    gate_first: bool,
    split_attrs: Vec<AttributeProto>,
    sizes: Option<&[i64]>,
) {
    g.f32s("gamma", &[K]);
    g.n(
        "SimplifiedLayerNormalization",
        "",
        "/model/layers.1/post_attention_layernorm/LayerNorm",
        &["x", "gamma"],
        &["normed"],
        vec![int("axis", -1)],
    );
    g.matmul(
        "/model/layers.1/mlp/gate_up_proj",
        "normed",
        "gu",
        2 * N,
        4,
        32,
    );
    g.f32s("gubias", &[2 * N]);
    g.n("Add", "", "guadd", &["gu", "gubias"], &["gub"], vec![]);
    let outs: [&str; 2] = if gate_first {
        ["gate", "up"]
    } else {
        ["up", "gate"]
    };
    let mut ins = vec!["gub"];
    if let Some(s) = sizes {
        g.inits.push(tensor(
            "sizes",
            7,
            &[2],
            s.iter().flat_map(|v| v.to_le_bytes()).collect(),
        ));
        ins.push("sizes");
    }
    g.n("Split", "", "split", &ins, &outs, split_attrs);
    g.n("Sigmoid", "", "sig", &["gate"], &["s"], vec![]);
    g.n("Mul", "", "silu", &["gate", "s"], &["act"], vec![]);
    g.n(
        "Mul",
        "",
        "/model/layers.1/mlp/Mul",
        &["up", "act"],
        &["y"],
        vec![],
    );
    tail(g);
}

#[test]
fn packed_gate_up_is_split() {
    for gate_first in [true, false] {
        let mut g = G::default();
        packed_layer(&mut g, gate_first, vec![int("axis", -1)], Some(&[N, N]));
        let r = fuse(&g);
        assert_eq!(r.report.fused.len(), 1, "{:?}", r.report.skipped);
        let f = &r.report.fused[0];
        assert!(f.packed && f.gate_bias && f.up_bias);
        assert_eq!((f.k, f.n), (K, N));
        assert_eq!(f.norm.as_deref(), Some("SimplifiedLayerNormalization"));
        assert_eq!(
            f.epsilon,
            Some(1e-5),
            "SimplifiedLayerNormalization's default epsilon"
        );
        let n = fused_node(&r);
        assert_eq!(
            n.input[..3],
            ["x".to_string(), String::new(), "gamma".into()]
        );
        let orig = g.model().graph.unwrap();
        let whole = |name: &str| {
            orig.initializer
                .iter()
                .find(|i| i.name == name)
                .unwrap()
                .raw_data
                .clone()
        };
        let b = whole("/model/layers.1/mlp/gate_up_proj.B");
        let s = whole("/model/layers.1/mlp/gate_up_proj.S");
        let bias = whole("gubias");
        let (gate_half, up_half) = if gate_first { (0, 1) } else { (1, 0) };
        let half = |v: &[u8], h: usize| v[h * v.len() / 2..(h + 1) * v.len() / 2].to_vec();
        let gb = init(&r, &n.input[3]);
        assert_eq!(gb.dims, [N, 2, 16]);
        assert_eq!(gb.raw_data, half(&b, gate_half));
        assert_eq!(init(&r, &n.input[4]).raw_data, half(&s, gate_half));
        assert_eq!(init(&r, &n.input[5]).raw_data, half(&bias, gate_half));
        assert_eq!(init(&r, &n.input[6]).raw_data, half(&b, up_half));
        assert_eq!(init(&r, &n.input[7]).raw_data, half(&s, up_half));
        assert_eq!(init(&r, &n.input[8]).raw_data, half(&bias, up_half));
        assert_eq!(n.input[3], "/model/layers.1/mlp/gate_up_proj.B_gate");
        // The packed tensors are gone.
        for name in [
            "/model/layers.1/mlp/gate_up_proj.B",
            "/model/layers.1/mlp/gate_up_proj.S",
            "gubias",
            "sizes",
        ] {
            assert!(
                graph(&r).initializer.iter().all(|i| i.name != name),
                "{name} dropped"
            );
        }
        assert_eq!(ops(&r), ["MatMulNBitsMlp", "MatMulNBits", "Identity"]);
    }
}

#[test]
fn packed_split_rules() {
    // The split attribute (opset < 13), or an equal split: fused.
    for (attrs, sizes) in [
        (vec![int("axis", -1), ints("split", &[N, N])], None),
        (vec![int("axis", -1)], None),
        (vec![int("axis", -1), int("num_outputs", 2)], None),
    ] {
        let mut g = G::default();
        packed_layer(&mut g, true, attrs, sizes);
        assert_eq!(fuse(&g).report.fused.len(), 1);
    }
    // Axis 0 (the default), unequal sizes: not.
    for (attrs, sizes) in [
        (vec![], None),
        (vec![int("axis", 0)], None),
        (vec![int("axis", -1)], Some(&[N - 16, N + 16][..])),
    ] {
        let mut g = G::default();
        packed_layer(&mut g, true, attrs, sizes);
        assert_eq!(skipped_rule(&fuse(&g)), rules::PACKED);
    }
}

#[test]
fn projection_rules() {
    type Edit = Box<dyn Fn(&mut G)>;
    let cases: Vec<(&str, Edit)> = vec![
        (
            rules::ZERO_POINTS,
            Box::new(|g: &mut G| {
                g.inits
                    .push(tensor("zp", 2, &[N, 1], vec![0x88; N as usize]));
                let n = g
                    .nodes
                    .iter_mut()
                    .find(|n| n.name.ends_with("up_proj/MatMul_Q4"))
                    .unwrap();
                n.input.push("zp".into());
            }),
        ),
        (
            rules::G_IDX,
            Box::new(|g: &mut G| {
                let n = g
                    .nodes
                    .iter_mut()
                    .find(|n| n.name.ends_with("gate_proj/MatMul_Q4"))
                    .unwrap();
                n.input.extend(["".into(), "gidx".into()]);
                g.inits
                    .push(tensor("gidx", 6, &[K], vec![0; (K * 4) as usize]));
            }),
        ),
        (
            rules::ATTRIBUTES,
            Box::new(|g: &mut G| {
                for n in g
                    .nodes
                    .iter_mut()
                    .filter(|n| n.op_type == "MatMulNBits" && !n.name.contains("down"))
                {
                    n.attribute.iter_mut().find(|a| a.name == "bits").unwrap().i = 3;
                }
            }),
        ),
        (
            rules::ATTRIBUTES,
            Box::new(|g: &mut G| {
                for n in g
                    .nodes
                    .iter_mut()
                    .filter(|n| n.op_type == "MatMulNBits" && !n.name.contains("down"))
                {
                    n.attribute
                        .iter_mut()
                        .find(|a| a.name == "block_size")
                        .unwrap()
                        .i = 8;
                }
            }),
        ),
        (
            rules::ATTRIBUTES,
            Box::new(|g: &mut G| {
                // Absurd sizes are a rule, not an overflow.
                for n in g
                    .nodes
                    .iter_mut()
                    .filter(|n| n.op_type == "MatMulNBits" && !n.name.contains("down"))
                {
                    n.attribute
                        .iter_mut()
                        .find(|a| a.name == "block_size")
                        .unwrap()
                        .i = 1 << 60;
                }
            }),
        ),
        (
            rules::MISMATCH,
            Box::new(|g: &mut G| {
                let n = g
                    .nodes
                    .iter_mut()
                    .find(|n| n.name.ends_with("up_proj/MatMul_Q4"))
                    .unwrap();
                n.input[0] = "x".into();
            }),
        ),
        (
            rules::MISMATCH,
            Box::new(|g: &mut G| {
                let n = g
                    .nodes
                    .iter_mut()
                    .find(|n| n.name.ends_with("up_proj/MatMul_Q4"))
                    .unwrap();
                n.attribute
                    .iter_mut()
                    .find(|a| a.name == "block_size")
                    .unwrap()
                    .i = 64;
            }),
        ),
        (
            rules::INTERMEDIATE,
            Box::new(|g: &mut G| g.outputs.push("gate".into())),
        ),
        (
            rules::INTERMEDIATE,
            Box::new(|g: &mut G| {
                g.n("Identity", "", "spy", &["sig"], &["spied"], vec![]);
                g.outputs.push("spied".into());
            }),
        ),
        (
            rules::WEIGHTS,
            Box::new(|g: &mut G| {
                let b = g
                    .inits
                    .iter_mut()
                    .find(|i| i.name.ends_with("up_proj.B"))
                    .unwrap();
                b.dims = vec![N, 2, 15];
                b.raw_data.truncate((N * 30) as usize);
            }),
        ),
        (
            rules::DTYPE,
            Box::new(|g: &mut G| {
                for i in g.inits.iter_mut().filter(|i| i.name.ends_with("proj.S")) {
                    i.data_type = 16; // bfloat16
                    i.raw_data.truncate(i.raw_data.len() / 2);
                }
            }),
        ),
    ];
    for (rule, edit) in cases {
        let mut g = G::default();
        builder_layer(&mut g, 4, 32);
        edit(&mut g);
        let r = fuse(&g);
        assert_eq!(skipped_rule(&r), rule, "{:?}", r.report.skipped);
        assert!(!r.report.skipped[0].reason.is_empty());
    }
}

#[test]
fn norm_is_kept_when_something_else_reads_it() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    g.n(
        "Identity",
        "",
        "other",
        &["normed"],
        &["normed_copy"],
        vec![],
    );
    g.outputs.push("normed_copy".into());
    let r = fuse(&g);
    let f = &r.report.fused[0];
    assert_eq!(f.norm, None);
    assert!(
        f.norm_kept
            .as_deref()
            .unwrap()
            .contains("also read by 'other'"),
        "{:?}",
        f.norm_kept
    );
    let n = fused_node(&r);
    assert_eq!(
        n.input[..3],
        ["normed".to_string(), String::new(), String::new()]
    );
    assert_eq!(n.output, ["y"]);
    assert!(n.attribute.iter().all(|a| a.name != "epsilon"));
    assert!(ops(&r).contains(&"SkipSimplifiedLayerNormalization".to_string()));
}

#[test]
fn skip_norm_defaults_and_unread_residual() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    let norm = g
        .nodes
        .iter_mut()
        .find(|n| n.op_type == "SkipSimplifiedLayerNormalization")
        .unwrap();
    norm.attribute.clear();
    g.nodes.retain(|n| n.name != "next");
    g.n("Identity", "", "next", &["down"], &["out"], vec![]);
    let r = fuse(&g);
    let f = &r.report.fused[0];
    assert_eq!(
        f.epsilon,
        Some(1e-12),
        "SkipSimplifiedLayerNormalization's default epsilon"
    );
    assert!(!f.residual);
    assert_eq!(fused_node(&r).output, ["y"]);
    // A skip norm with a bias input is not absorbed.
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    g.f32s("nbias", &[K]);
    g.nodes[0].input.push("nbias".into());
    let r = fuse(&g);
    assert!(r.report.fused[0].norm.is_none());
    assert!(r.report.fused[0]
        .norm_kept
        .as_deref()
        .unwrap()
        .contains("bias"));
}

#[test]
fn fused_node_is_placed_before_residual_readers() {
    // The residual is read by a node that comes before the MLP's last Mul.
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    let early = node("Identity", "", "early", &["residual"], &["r2"], vec![]);
    g.nodes.insert(2, early);
    g.outputs.push("r2".into());
    let r = fuse(&g);
    let names: Vec<&str> = graph(&r).node.iter().map(|n| n.name.as_str()).collect();
    let pos = |n: &str| names.iter().position(|x| *x == n).unwrap();
    assert!(
        pos("/model/layers.0/mlp/MatMulNBitsMlp") < pos("early"),
        "{names:?}"
    );
}

#[test]
fn other_domain_adds_its_opset() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    let r = fuse_bytes(
        &g.model(),
        &[],
        &FuseOptions {
            domain: "nbits_mlp".into(),
        },
    );
    assert_eq!(fused_node(&r).domain, "nbits_mlp");
    assert!(r.report.opset_added);
    assert!(r
        .out
        .opset_import
        .iter()
        .any(|o| o.domain == "nbits_mlp" && o.version == 1));
    assert_eq!(r.out.opset_import.len(), 3);
}

#[test]
fn scales_in_one_dimension_are_reshaped() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    for i in g.inits.iter_mut().filter(|i| i.name.ends_with("proj.S")) {
        i.dims = vec![N * 2];
    }
    let r = fuse(&g);
    assert_eq!(init(&r, "/model/layers.0/mlp/gate_proj.S").dims, [N, 2]);
    assert_eq!(init(&r, "/model/layers.0/mlp/up_proj.S").dims, [N, 2]);
}

#[test]
fn external_data_is_read_and_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = G::default();
    packed_layer(&mut g, true, vec![int("axis", -1)], None);
    // Every initializer to an external file, at some offset.
    let mut blob = vec![0u8; 10];
    let mut inits = Vec::new();
    for t in &g.inits {
        let offset = blob.len();
        blob.extend_from_slice(&t.raw_data);
        let entry = |k: &str, v: String| StringStringEntryProto {
            key: k.into(),
            value: v,
        };
        inits.push(TensorProto {
            raw_data: Vec::new(),
            external_data: vec![
                entry("location", "w.bin".into()),
                entry("offset", offset.to_string()),
                entry("length", t.raw_data.len().to_string()),
            ],
            data_location: DataLocation::External as i32,
            ..t.clone()
        });
    }
    std::fs::write(dir.path().join("w.bin"), &blob).unwrap();
    let mut m = g.model();
    m.graph.as_mut().unwrap().initializer = inits;
    let src = write(dir.path(), &m, &[]);
    let out_dir = dir.path().join("sub");
    std::fs::create_dir(&out_dir).unwrap();
    let dst = out_dir.join("f.onnx");
    let report = fuse_file(&src, &dst, &FuseOptions::default()).unwrap();
    assert_eq!(
        report.external_data.as_deref(),
        Some(out_dir.join("f.onnx.data").as_path())
    );
    let out = ModelProto::decode(std::fs::read(&dst).unwrap().as_slice()).unwrap();
    let data = std::fs::read(out_dir.join("f.onnx.data")).unwrap();
    let orig = g.model().graph.unwrap();
    // Every tensor of the output reads back: kept ones equal the input's, split ones are halves
    // of their packed tensor; external from 1 KiB on, inline below.
    for t in &out.graph.unwrap().initializer {
        let bytes = if t.data_location == DataLocation::External as i32 {
            let get = |k: &str| {
                t.external_data
                    .iter()
                    .find(|e| e.key == k)
                    .unwrap()
                    .value
                    .clone()
            };
            assert_eq!(get("location"), "f.onnx.data");
            let (off, len): (usize, usize) = (
                get("offset").parse().unwrap(),
                get("length").parse().unwrap(),
            );
            data[off..off + len].to_vec()
        } else {
            assert!(t.raw_data.len() < 1024, "{} inline", t.name);
            t.raw_data.clone()
        };
        match orig.initializer.iter().find(|o| o.name == t.name) {
            Some(o) => {
                let external = t.data_location == DataLocation::External as i32;
                assert_eq!(
                    external,
                    o.raw_data.len() >= 1024,
                    "{}: only small tensors move inline",
                    t.name
                );
                assert_eq!(bytes, o.raw_data, "{}", t.name);
            }
            None => {
                let whole = &orig
                    .initializer
                    .iter()
                    .find(|o| t.name.starts_with(&o.name))
                    .unwrap()
                    .raw_data;
                let half = whole.len() / 2;
                assert!(
                    bytes == whole[..half] || bytes == whole[half..],
                    "{} is a half of its packed tensor",
                    t.name
                );
            }
        }
    }
}

#[test]
fn malformed_models_are_errors() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    let bytes = g.model().encode_to_vec();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("m.onnx");
    let dst = dir.path().join("o.onnx");
    let mut errors = 0;
    for cut in (1..bytes.len()).step_by(7) {
        std::fs::write(&src, &bytes[..cut]).unwrap();
        if let Err(e) = fuse_file(&src, &dst, &FuseOptions::default()) {
            errors += 1;
            assert!(e.to_string().contains("m.onnx"), "{e}");
        }
    }
    assert!(errors > 0);
    std::fs::write(&src, b"\x3a\x05abc").unwrap();
    let e = fuse_file(&src, &dst, &FuseOptions::default()).unwrap_err();
    assert!(e.to_string().contains("m.onnx"), "{e}");
    let e = fuse_file(
        &dir.path().join("missing.onnx"),
        &dst,
        &FuseOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("missing.onnx: cannot read"), "{e}");
}

#[test]
fn analyze_reports_without_writing() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    let bytes = g.model().encode_to_vec();
    let r = nbits_mlp_fuse::analyze(Path::new("mem.onnx"), bytes, &FuseOptions::default()).unwrap();
    assert_eq!(r.fused.len(), 1);
    assert_eq!(r.fused[0].node, "/model/layers.0/mlp/MatMulNBitsMlp");
    assert_eq!(r.output, PathBuf::new());
    let e = nbits_mlp_fuse::analyze(Path::new("mem.onnx"), vec![0xff], &FuseOptions::default())
        .unwrap_err();
    assert!(e.to_string().starts_with("mem.onnx: "), "{e}");
}
