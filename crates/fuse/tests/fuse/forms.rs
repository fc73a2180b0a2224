//! Every form `fuse` fuses, and what the fused node and the rewritten graph hold.

use crate::build::*;
use crate::run::*;
use nbits_mlp_fuse::{rules, FuseOptions};

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
