//! Building graphs: attributes, nodes, tensors, and the layers ONNX Runtime GenAI's model
//! builder writes (plain and packed gate/up).

use nbits_mlp_onnx::proto::{
    AttributeProto, AttributeType, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorProto,
};

pub const MS: &str = "com.microsoft";

pub const K: i64 = 64;

pub const N: i64 = 48;

pub fn int(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Int as i32,
        i: v,
        ..Default::default()
    }
}

pub fn float(name: &str, v: f32) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Float as i32,
        f: v,
        ..Default::default()
    }
}

pub fn ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Ints as i32,
        ints: v.to_vec(),
        ..Default::default()
    }
}

pub fn node(
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

pub fn tensor(name: &str, data_type: i32, dims: &[i64], data: Vec<u8>) -> TensorProto {
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
pub struct G {
    pub nodes: Vec<NodeProto>,
    pub inits: Vec<TensorProto>,
    pub outputs: Vec<String>,
}

impl G {
    pub fn n(
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
    pub fn weights(&mut self, p: &str, rows: i64, bits: i64, block: i64) {
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

    pub fn matmul(&mut self, p: &str, a: &str, out: &str, rows: i64, bits: i64, block: i64) {
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

    pub fn f32s(&mut self, name: &str, dims: &[i64]) {
        let n: i64 = dims.iter().product();
        let data = (0..n)
            .flat_map(|i| (1.0 + i as f32 / 100.0).to_le_bytes())
            .collect();
        self.inits.push(tensor(name, 1, dims, data));
    }

    pub fn model(&self) -> ModelProto {
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
pub fn builder_layer(g: &mut G, bits: i64, block: i64) {
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
pub fn tail(g: &mut G) {
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

/// The packed form: one MatMulNBits of 2N, Split into gate and up (order `gate_first`).
pub fn packed_layer(
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
