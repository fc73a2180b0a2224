//! run_graph: name resolution, input checks, callback errors and missing outputs.

mod common;

use common::{assert_err, spec, K, N};
use nbits_mlp_core::{DType, Tensor};
use nbits_mlp_onnx::{load_model, run_graph, write_model, MlpNode, Model, ValueInfo};
use std::convert::Infallible;

/// Two chained nodes: A [rows, K] -> H [rows, N] -> Y [rows, N] (+ S from the second node).
fn chain(dir: &std::path::Path, rows: Option<usize>) -> Model {
    let mut s = spec(DType::F32, rows);
    let mut second = s.nodes[0].clone();
    second.name = "mlp1".into();
    second.inputs[0] = "H".into();
    second.inputs[1] = "A2".into();
    second.outputs = vec!["Y".into(), "S".into()];
    s.nodes[0].outputs[0] = "H".into();
    s.nodes.push(second);
    s.inputs.push(ValueInfo {
        name: "A2".into(),
        dtype: Some(DType::F32),
        shape: None,
    });
    s.outputs.push(ValueInfo {
        name: "S".into(),
        dtype: Some(DType::F32),
        shape: Some(vec![rows, Some(N)]),
    });
    let path = dir.join("chain.onnx");
    write_model(&path, &s).unwrap();
    load_model(&path).unwrap()
}

/// A fake node runner: Y = first N columns of input 0 plus 1 (or input 0 itself when it is
/// already N wide); S = input 1.
fn fake(node: &MlpNode, args: Vec<Option<Tensor>>, requested: Vec<bool>) -> Vec<Option<Tensor>> {
    let a = args[0].as_ref().unwrap();
    let cols = a.shape[1];
    let y: Vec<f32> = a
        .to_f32()
        .chunks(cols)
        .flat_map(|r| r[..N].iter().map(|v| v + 1.0).collect::<Vec<_>>())
        .collect();
    let mut out = vec![Some(Tensor::from_f32(vec![a.shape[0], N], &y))];
    if requested.get(1) == Some(&true) {
        out.push(args[1].clone());
    }
    assert_eq!(requested.len(), node.outputs.len());
    out
}

#[test]
fn resolves_inputs_by_name_and_returns_outputs_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let model = chain(dir.path(), None);
    let a = Tensor::from_f32(
        vec![2, K],
        &(0..2 * K).map(|i| i as f32).collect::<Vec<_>>(),
    );
    let a2 = Tensor::from_f32(vec![2, N], &[5.0; 2 * N]);
    let mut seen = Vec::new();
    let outs = run_graph(&model, &[a.clone(), a2.clone()], |node, args, requested| {
        seen.push((
            node.name.clone(),
            args.iter().map(Option::is_some).collect::<Vec<_>>(),
            requested.clone(),
        ));
        if node.name == "mlp0" {
            assert_eq!(args[0].as_ref(), Some(&a));
            assert_eq!(args[3].as_ref(), Some(&model.initializers["gate_B"]));
        }
        Ok::<_, Infallible>(fake(node, args, requested))
    })
    .unwrap();
    assert_eq!(
        seen,
        vec![
            (
                "mlp0".to_string(),
                vec![true, false, false, true, true, false, true, true],
                vec![true]
            ),
            (
                "mlp1".to_string(),
                vec![true, true, false, true, true, false, true, true],
                vec![true, true]
            ),
        ]
    );
    let want_y: Vec<f32> = (0..2)
        .flat_map(|r| (0..N).map(move |c| (r * K + c) as f32 + 2.0))
        .collect();
    assert_eq!(outs, vec![Tensor::from_f32(vec![2, N], &want_y), a2]);
}

#[test]
fn graph_inputs_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let model = chain(dir.path(), Some(2));
    let ok = |_: &MlpNode, _: Vec<Option<Tensor>>, _: Vec<bool>| Ok::<_, Infallible>(vec![]);
    let a = Tensor::from_f32(vec![2, K], &vec![0.0; 2 * K]);
    let a2 = Tensor::from_f32(vec![1], &[0.0]);

    assert_err(
        run_graph(&model, std::slice::from_ref(&a), ok),
        &["chain.onnx", "got 1 input tensors", "2 graph inputs"],
    );
    let half = Tensor::from_f32_as_f16(vec![2, K], &vec![0.0; 2 * K]);
    assert_err(
        run_graph(&model, &[half, a2.clone()], ok),
        &["graph input 'A'", "got float16", "declares float32"],
    );
    let wide = Tensor::from_f32(vec![2, K + 1], &vec![0.0; 2 * (K + 1)]);
    assert_err(
        run_graph(&model, &[wide, a2.clone()], ok),
        &["graph input 'A'", "[2, 33]", "[2, 32]"],
    );
    let flat = Tensor::from_f32(vec![2 * K], &vec![0.0; 2 * K]);
    assert_err(
        run_graph(&model, &[flat, a2.clone()], ok),
        &["graph input 'A'", "[64]"],
    );
    let broken = Tensor {
        dtype: DType::F32,
        shape: vec![2, K],
        data: vec![0; 3],
    };
    assert_err(
        run_graph(&model, &[broken, a2], ok),
        &["graph input 'A'", "3 bytes"],
    );
}

#[test]
fn node_failures_and_missing_outputs_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let model = chain(dir.path(), None);
    let inputs = [
        Tensor::from_f32(vec![1, K], &[1.0; K]),
        Tensor::from_f32(vec![1, N], &[2.0; N]),
    ];

    let failing = run_graph(&model, &inputs, |node, args, req| {
        if node.name == "mlp1" {
            Err(format!("no kernel for {}", args.len()))
        } else {
            Ok(fake(node, args, req))
        }
    });
    assert_err(failing, &["chain.onnx", "node 'mlp1'", "no kernel for 8"]);

    let dropping = run_graph(&model, &inputs, |node, args, req| {
        let mut out = fake(node, args, req);
        out.truncate(1);
        Ok::<_, Infallible>(out)
    });
    assert_err(dropping, &["node 'mlp1'", "no tensor for output 1 'S'"]);

    let wrong_type = run_graph(&model, &inputs, |_, _, req| {
        Ok::<_, Infallible>(
            req.iter()
                .map(|_| Some(Tensor::from_u8(vec![1, N], vec![0; N])))
                .collect(),
        )
    });
    assert_err(wrong_type, &["graph output 'Y'", "got uint8"]);

    // A hand-built model (not checked by load_model) naming values nothing produces.
    let mut bad = model.clone();
    bad.outputs[0].name = "ghost".into();
    let r = run_graph(&bad, &inputs, |node, args, req| {
        Ok::<_, Infallible>(fake(node, args, req))
    });
    assert_err(r, &["graph output 'ghost'", "never produced"]);
    bad.nodes[1].inputs[0] = "ghost".into();
    let r = run_graph(&bad, &inputs, |node, args, req| {
        Ok::<_, Infallible>(fake(node, args, req))
    });
    assert_err(r, &["node 'mlp1'", "input 0 'ghost'"]);
}

#[test]
fn run_error_works_with_non_std_errors() {
    // The callback's error only needs Display + Debug, and RunError is then a std error.
    #[derive(Debug)]
    struct Plain;
    impl std::fmt::Display for Plain {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("plain failure")
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let model = chain(dir.path(), Some(1));
    let inputs = [
        Tensor::from_f32(vec![1, K], &[1.0; K]),
        Tensor::from_f32(vec![3], &[2.0; 3]),
    ];
    let err = run_graph(&model, &inputs, |_, _, _| Err(Plain)).unwrap_err();
    let boxed: Box<dyn std::error::Error> = Box::new(err);
    assert!(boxed.to_string().contains("node 'mlp0': plain failure"));
}
