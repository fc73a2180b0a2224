//! Every rule that stops a candidate, each named in the report.

use crate::build::*;
use crate::run::*;
use nbits_mlp_fuse::rules;

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
