//! Models: write -> load, external initializers, node_call and malformed models.

mod common;

use common::{assert_err, info, spec, K, N};
use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, DType, Tensor};
use nbits_mlp_onnx::proto::{
    AttributeProto, AttributeType, DataLocation, DataType, ModelProto, NodeProto,
    StringStringEntryProto, TypeProto, TypeProtoTensor, TypeProtoValue, ValueInfoProto,
};
use nbits_mlp_onnx::{
    load_model, node_call, tensor_to_proto, write_model, MlpNode, ModelSpec, ValueInfo,
};
use prost::Message;
use std::fs;
use std::path::{Path, PathBuf};

/// Writes `spec`, then lets `edit` change the decoded proto before writing it back.
fn write_edited(dir: &Path, spec: &ModelSpec, edit: impl FnOnce(&mut ModelProto)) -> PathBuf {
    let path = dir.join("model.onnx");
    write_model(&path, spec).unwrap();
    let mut proto = ModelProto::decode(fs::read(&path).unwrap().as_slice()).unwrap();
    edit(&mut proto);
    fs::write(&path, proto.encode_to_vec()).unwrap();
    path
}

#[test]
fn write_then_load_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    for (dtype, rows) in [(DType::F32, Some(3)), (DType::F16, None)] {
        let spec = spec(dtype, rows);
        let path = dir.path().join(format!("{dtype}.onnx"));
        write_model(&path, &spec).unwrap();
        let model = load_model(&path).unwrap();
        assert_eq!(model.path, path);
        assert_eq!(model.opset_ms, Some(1));
        assert_eq!(model.to_spec(), spec);

        let proto = ModelProto::decode(fs::read(&path).unwrap().as_slice()).unwrap();
        assert_eq!(proto.ir_version, 10);
        assert_eq!(proto.producer_name, "nbits-mlp");
        let opsets: Vec<(&str, i64)> = proto
            .opset_import
            .iter()
            .map(|o| (o.domain.as_str(), o.version))
            .collect();
        assert_eq!(opsets, [("", 21), ("com.microsoft", 1)]);
        let node = &proto.graph.as_ref().unwrap().node[0];
        assert_eq!(
            (node.domain.as_str(), node.op_type.as_str()),
            ("com.microsoft", "MatMulNBitsMlp")
        );
    }
}

#[test]
fn float_attributes_are_stored_as_f32() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = spec(DType::F32, Some(1));
    let attrs = &mut spec.nodes[0].attrs;
    attrs.insert("epsilon".into(), AttrValue::Float(1e-5));
    attrs.insert("list".into(), AttrValue::Ints(vec![1, -2, 3]));
    attrs.insert("flist".into(), AttrValue::Floats(vec![0.25, -1.5]));
    attrs.insert("zero".into(), AttrValue::Int(0));
    let path = dir.path().join("m.onnx");
    write_model(&path, &spec).unwrap();
    let got = &load_model(&path).unwrap().nodes[0].attrs;
    assert_eq!(got["epsilon"], AttrValue::Float(1e-5f32 as f64));
    assert_eq!(got["list"], AttrValue::Ints(vec![1, -2, 3]));
    assert_eq!(got["flist"], AttrValue::Floats(vec![0.25, -1.5]));
    assert_eq!(got["zero"], AttrValue::Int(0));
    assert_eq!(got["activation"], AttrValue::Str("silu".into()));
}

#[test]
fn static_input_infos_and_symbolic_dims() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fixed.onnx");
    write_model(&path, &spec(DType::F16, Some(4))).unwrap();
    assert_eq!(
        load_model(&path).unwrap().static_input_infos().unwrap(),
        vec![info(DType::F16, &[4, K])]
    );

    let path = dir.path().join("symbolic.onnx");
    write_model(&path, &spec(DType::F16, None)).unwrap();
    let model = load_model(&path).unwrap();
    assert_eq!(model.inputs[0].shape, Some(vec![None, Some(K)]));
    assert_err(
        model.static_input_infos(),
        &[
            "symbolic.onnx",
            "graph input 'A'",
            "dimension 0 of [?, 32] is symbolic",
        ],
    );

    // A dimension with neither dim_value nor dim_param, no shape, no element type.
    let path = write_edited(dir.path(), &spec(DType::F32, Some(1)), |m| {
        let input = &mut m.graph.as_mut().unwrap().input[0];
        let Some(TypeProtoValue::TensorType(t)) = input.r#type.as_mut().unwrap().value.as_mut()
        else {
            panic!()
        };
        t.shape.as_mut().unwrap().dim[1].value = None;
    });
    let model = load_model(&path).unwrap();
    assert_eq!(model.inputs[0].shape, Some(vec![Some(1), None]));
    assert_err(model.static_input_infos(), &["'A'", "dimension 1"]);
    let mut m = model.clone();
    m.inputs[0].shape = None;
    assert_err(m.static_input_infos(), &["'A'", "shape is unknown"]);
    m.inputs[0].dtype = None;
    assert_err(m.static_input_infos(), &["'A'", "element type is unknown"]);
}

#[test]
fn node_call_describes_inputs_and_requested_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = spec(DType::F32, None);
    spec.nodes[0].inputs.push("".into()); // up_bias omitted explicitly
    spec.nodes[0].outputs.push("".into()); // input_skip_bias_sum not requested
    let path = dir.path().join("m.onnx");
    write_model(&path, &spec).unwrap();
    let model = load_model(&path).unwrap();
    let node = &model.nodes[0];
    let mut known = IndexMap::new();
    known.insert("A".to_string(), info(DType::F32, &[5, K]));
    let call = node_call(&model, node, &known).unwrap();
    assert_eq!(call.attrs, node.attrs);
    let blob = Some(info(DType::U8, &[N, 1, 16]));
    let scales = Some(info(DType::F32, &[N, 1]));
    assert_eq!(
        call.inputs,
        vec![
            Some(info(DType::F32, &[5, K])),
            None,
            None,
            blob.clone(),
            scales.clone(),
            None,
            blob,
            scales,
            None
        ]
    );
    assert_eq!(call.outputs, vec![true, false]);

    assert_err(
        node_call(&model, node, &IndexMap::new()),
        &["m.onnx", "node 'mlp0'", "input 0 'A'"],
    );
}

#[test]
fn external_initializer_relative_to_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(DType::F16, Some(2));
    let gate_b = spec.initializers["gate_B"].clone();
    let mut blob = b"header!!".to_vec();
    blob.extend(&gate_b.data);
    fs::create_dir(dir.path().join("data")).unwrap();
    fs::write(dir.path().join("data/weights.bin"), &blob).unwrap();
    let make_external = |location: &'static str| {
        move |m: &mut ModelProto| {
            let t = m
                .graph
                .as_mut()
                .unwrap()
                .initializer
                .iter_mut()
                .find(|t| t.name == "gate_B")
                .unwrap();
            t.raw_data.clear();
            t.data_location = DataLocation::External as i32;
            for (key, value) in [("location", location), ("offset", "8"), ("length", "128")] {
                t.external_data.push(StringStringEntryProto {
                    key: key.into(),
                    value: value.into(),
                });
            }
        }
    };
    let path = write_edited(dir.path(), &spec, make_external("data/weights.bin"));
    let model = load_model(&path).unwrap();
    assert_eq!(model.initializers["gate_B"], gate_b);
    assert_eq!(model.to_spec(), spec);

    let path = write_edited(dir.path(), &spec, make_external("data/missing.bin"));
    assert_err(
        load_model(&path),
        &[
            "model.onnx",
            "tensor 'gate_B'",
            "missing.bin",
            "cannot open",
        ],
    );
}

fn node(op_type: &str, domain: &str) -> NodeProto {
    NodeProto {
        name: "n1".into(),
        op_type: op_type.into(),
        domain: domain.into(),
        input: vec!["A".into()],
        output: vec!["Y".into()],
        ..Default::default()
    }
}

#[test]
fn unsupported_nodes_and_attributes_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(DType::F32, Some(1));
    let path = write_edited(dir.path(), &spec, |m| {
        m.graph.as_mut().unwrap().node.push(node("Relu", ""))
    });
    assert_err(
        load_model(&path),
        &[
            "model.onnx",
            "node 'n1'",
            "unsupported operator 'Relu' (domain 'ai.onnx')",
        ],
    );
    let path = write_edited(dir.path(), &spec, |m| {
        m.graph.as_mut().unwrap().node[0].domain = "".into()
    });
    assert_err(
        load_model(&path),
        &["node 'mlp0'", "'MatMulNBitsMlp' (domain 'ai.onnx')"],
    );
    let path = write_edited(dir.path(), &spec, |m| {
        m.graph
            .as_mut()
            .unwrap()
            .node
            .push(node("MatMulNBits", "com.microsoft"))
    });
    assert_err(
        load_model(&path),
        &["'MatMulNBits' (domain 'com.microsoft')"],
    );

    let with_attr = |a: AttributeProto| {
        move |m: &mut ModelProto| m.graph.as_mut().unwrap().node[0].attribute.push(a)
    };
    let attr = |name: &str, ty: AttributeType| AttributeProto {
        name: name.into(),
        r#type: ty as i32,
        ..Default::default()
    };
    let path = write_edited(
        dir.path(),
        &spec,
        with_attr(attr("w", AttributeType::Tensor)),
    );
    assert_err(
        load_model(&path),
        &[
            "node 'mlp0'",
            "attribute 'w'",
            "unsupported attribute type TENSOR",
        ],
    );
    let path = write_edited(
        dir.path(),
        &spec,
        with_attr(attr("u", AttributeType::Undefined)),
    );
    assert_err(load_model(&path), &["attribute 'u'", "has no type"]);
    let path = write_edited(
        dir.path(),
        &spec,
        with_attr(attr("bits", AttributeType::Int)),
    );
    assert_err(load_model(&path), &["attribute 'bits'", "given twice"]);
    let mut bad_utf8 = attr("s", AttributeType::String);
    bad_utf8.s = vec![0xFF, 0xFE];
    let path = write_edited(dir.path(), &spec, with_attr(bad_utf8));
    assert_err(load_model(&path), &["attribute 's'", "not UTF-8"]);
    let mut by_ref = attr("r", AttributeType::Int);
    by_ref.ref_attr_name = "outer".into();
    let path = write_edited(dir.path(), &spec, with_attr(by_ref));
    assert_err(
        load_model(&path),
        &["attribute 'r'", "function attribute 'outer'"],
    );
}

#[test]
fn graph_structure_errors_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let good = spec(DType::F32, Some(1));
    let path = dir.path().join("g.onnx");

    let mut s = good.clone();
    s.nodes[0].inputs[4] = "nowhere".into();
    assert_err(
        write_model(&path, &s),
        &[
            "g.onnx",
            "node 'mlp0'",
            "input 4 'nowhere' is not a graph input",
        ],
    );
    let mut s = good.clone();
    s.outputs[0].name = "Z".into();
    assert_err(
        write_model(&path, &s),
        &["graph output 'Z'", "not produced"],
    );
    let mut s = good.clone();
    s.nodes.push(s.nodes[0].clone());
    s.nodes[1].name = String::new();
    assert_err(
        write_model(&path, &s),
        &[
            "node (unnamed, output 'Y')",
            "output 0 'Y' is already defined",
        ],
    );
    let mut s = good.clone();
    s.inputs
        .push(ValueInfo::new("gate_B", &info(DType::U8, &[N, 1, 16])));
    assert_err(
        write_model(&path, &s),
        &["graph input 'gate_B'", "defined twice"],
    );
    let mut s = good.clone();
    s.nodes[0].inputs.resize(10, String::new());
    assert_err(write_model(&path, &s), &["node 'mlp0'", "has 10 inputs"]);
    let mut s = good.clone();
    s.nodes[0].outputs = vec!["".into(), "S".into()];
    assert_err(
        write_model(&path, &s),
        &["node 'mlp0'", "output 0 (Y) has no name"],
    );
    let mut s = good.clone();
    s.inputs[0].dtype = None;
    assert_err(write_model(&path, &s), &["graph input 'A'", "has no dtype"]);
    let mut s = good.clone();
    s.initializers.insert(
        "bad".into(),
        Tensor {
            dtype: DType::F16,
            shape: vec![2],
            data: vec![0; 3],
        },
    );
    assert_err(
        write_model(&path, &s),
        &["g.onnx", "tensor 'bad'", "3 bytes"],
    );
    assert!(
        !path.exists(),
        "no model is written when the spec is invalid"
    );

    // Load-side checks on hand-edited files.
    let p = write_edited(dir.path(), &good, |m| {
        m.graph.as_mut().unwrap().node[0].input[0] = "B".into()
    });
    assert_err(load_model(&p), &["node 'mlp0'", "input 0 'B'"]);
    let p = write_edited(dir.path(), &good, |m| {
        let g = m.graph.as_mut().unwrap();
        g.initializer.push(g.initializer[0].clone());
    });
    assert_err(load_model(&p), &["tensor 'gate_B'", "two initializers"]);
    let p = write_edited(dir.path(), &good, |m| {
        let t = TypeProtoTensor {
            elem_type: DataType::Int64 as i32,
            shape: None,
        };
        m.graph.as_mut().unwrap().input[0].r#type = Some(TypeProto {
            value: Some(TypeProtoValue::TensorType(t)),
        });
    });
    assert_err(
        load_model(&p),
        &["graph input 'A'", "unsupported data type INT64"],
    );
    let p = write_edited(dir.path(), &good, |m| {
        let seq = TypeProto {
            value: Some(TypeProtoValue::SequenceType(vec![])),
        };
        m.graph.as_mut().unwrap().output[0].r#type = Some(seq);
    });
    assert_err(load_model(&p), &["graph output 'Y'", "is a sequence"]);
    let p = write_edited(dir.path(), &good, |m| {
        let g = m.graph.as_mut().unwrap();
        let mut t = tensor_to_proto("w", &Tensor::from_u8(vec![1], vec![1]));
        t.data_type = DataType::Double as i32;
        g.initializer.push(t);
    });
    assert_err(load_model(&p), &["model.onnx", "tensor 'w'", "DOUBLE"]);
    let p = write_edited(dir.path(), &good, |m| m.graph = None);
    assert_err(load_model(&p), &["model.onnx", "has no graph"]);
}

#[test]
fn initializers_listed_as_inputs_are_not_graph_inputs() {
    // IR < 4 models list every initializer among the graph inputs as well.
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(DType::F32, Some(2));
    let path = write_edited(dir.path(), &spec, |m| {
        m.ir_version = 3;
        let g = m.graph.as_mut().unwrap();
        let listed: Vec<ValueInfoProto> = g
            .initializer
            .iter()
            .map(|t| ValueInfoProto {
                name: t.name.clone(),
                r#type: None,
            })
            .collect();
        g.input.extend(listed);
    });
    let model = load_model(&path).unwrap();
    assert_eq!(model.inputs, spec.inputs);
    assert_eq!(model.initializers.len(), 4);
}

#[test]
fn unknown_fields_are_skipped() {
    // A ModelProto carrying fields this crate does not declare (doc_string 6, metadata_props 14,
    // graph value_info 13, node doc_string 6) still loads.
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(DType::F32, Some(1));
    let path = dir.path().join("m.onnx");
    write_model(&path, &spec).unwrap();
    let mut bytes = fs::read(&path).unwrap();
    // Field 6 (doc_string), wire type 2, length 3, "doc"; field 14, wire type 2, empty message.
    bytes.extend([0x32, 3, b'd', b'o', b'c', 0x72, 0]);
    fs::write(&path, &bytes).unwrap();
    assert_eq!(load_model(&path).unwrap().to_spec(), spec);
}

#[test]
fn bad_model_files_are_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    assert_err(
        load_model(dir.path().join("absent.onnx")),
        &["absent.onnx", "cannot read"],
    );
    let path = dir.path().join("m.onnx");
    write_model(&path, &spec(DType::F32, Some(1))).unwrap();
    let full = fs::read(&path).unwrap();
    let cut = dir.path().join("cut.onnx");
    for len in [1, 10, full.len() / 2, full.len() - 1] {
        fs::write(&cut, &full[..len]).unwrap();
        assert_err(load_model(&cut), &["cut.onnx"]);
    }
    fs::write(&cut, b"\x08\x96\x01\x3a\xff\xff\xff\xff\x0f").unwrap();
    assert_err(
        load_model(&cut),
        &["cut.onnx", "not a valid ONNX ModelProto file"],
    );
}

#[test]
fn unnamed_node_label_uses_its_output() {
    let n = MlpNode {
        name: String::new(),
        inputs: vec![],
        outputs: vec!["Y".into()],
        attrs: IndexMap::new(),
    };
    assert_eq!(n.label(), "(unnamed, output 'Y')");
}
