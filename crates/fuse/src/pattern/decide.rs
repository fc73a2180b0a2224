//! Judging one candidate against every rule: the fused node and what it replaces, or the rule
//! it breaks.

use super::checks::{absorb_norm, check_split, check_weight, mm_attrs, stop, Stop};
use super::index::{Act, Index, Proj};
use super::{
    attr_f, common_prefix, dtype_name, elem_size, int_attr, is_onnx, label, rules, FLOAT, FLOAT16,
    MS, UINT8,
};
use crate::graph::OutInit;
use crate::{Fused, OP_TYPE};
use nbits_mlp_onnx::proto::{AttributeProto, AttributeType, NodeProto};
use nbits_mlp_reference::pack::Layout;
use std::collections::{BTreeSet, HashSet};

/// A bias to fold: a value name as it is, or one half of a packed bias.
pub(super) enum Bias {
    /// Use this value (an initializer or any value of shape [N]).
    Value(String),
    /// Half `part` (0 or 1) of the 2N-element initializer.
    Half(String, usize),
}

/// One fusion, decided.
pub(super) struct Decision {
    pub(super) fused: Fused,
    pub(super) node: NodeProto,
    pub(super) removed: BTreeSet<usize>,
    /// Initializer dims to rewrite (index, dims).
    pub(super) reshape: Vec<(usize, Vec<i64>)>,
    /// New initializers.
    pub(super) new_inits: Vec<OutInit>,
}

/// Names already taken in the graph (values, initializers, node names).
pub(super) struct Names {
    pub(super) taken: HashSet<String>,
}

impl Names {
    pub(super) fn unique(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut i = 1;
        while self.taken.contains(&name) {
            name = format!("{base}_{i}");
            i += 1;
        }
        self.taken.insert(name.clone());
        name
    }
}

/// Judges one candidate: the fused node and what it replaces, or the rule it breaks.
#[allow(clippy::too_many_arguments)]
pub(super) fn decide(
    ix: &Index<'_>,
    m: usize,
    act: &Act,
    gate: &Proj,
    up: &Proj,
    used: &BTreeSet<usize>,
    domain: &str,
    names: &mut Names,
) -> Result<Decision, Stop> {
    let g = ix.g;
    if !act.silu {
        return Err(stop(
            rules::ACTIVATION,
            format!(
                "the gate's activation is {}, not SiLU (Sigmoid+Mul, or QuickGelu with alpha 1)",
                act.label
            ),
        ));
    }
    // The nodes of the MLP (the norm comes later).
    let mut set: BTreeSet<usize> = BTreeSet::new();
    set.insert(m);
    set.extend(act.nodes.iter().copied());
    for p in [gate, up] {
        set.insert(p.mm);
        set.extend(p.split.map(|s| s.0));
        set.extend(p.pre_add.as_ref().map(|a| a.0));
        set.extend(p.add.as_ref().map(|a| a.0));
    }
    if let Some(&n) = set.iter().find(|n| used.contains(n)) {
        return Err(stop(
            rules::OVERLAP,
            format!("node {} belongs to an MLP fused before", label(ix.node(n))),
        ));
    }

    // Packed or not.
    let packed = match (gate.split, up.split) {
        (None, None) => false,
        (Some((s1, o1)), Some((s2, o2))) if s1 == s2 && gate.mm == up.mm && o1 != o2 => true,
        _ => {
            return Err(stop(
                rules::PACKED,
                "gate and up are not the two outputs of one Split of one MatMulNBits",
            ))
        }
    };
    let gate_mm = ix.node(gate.mm);
    let up_mm = ix.node(up.mm);
    let ga = mm_attrs(gate_mm)?;
    let ua = if packed { None } else { Some(mm_attrs(up_mm)?) };
    let a_in = gate_mm.input.first().cloned().unwrap_or_default();
    if a_in.is_empty() {
        return Err(stop(
            rules::ATTRIBUTES,
            format!("MatMulNBits {} has no input A", label(gate_mm)),
        ));
    }
    let (k, n) = match &ua {
        None => {
            if ga.n % 2 != 0 {
                return Err(stop(
                    rules::PACKED,
                    format!(
                        "packed MatMulNBits {} has an odd N = {}",
                        label(gate_mm),
                        ga.n
                    ),
                ));
            }
            (ga.k, ga.n / 2)
        }
        Some(ua) => {
            let b = up_mm.input.first().cloned().unwrap_or_default();
            if b != a_in {
                return Err(stop(
                    rules::MISMATCH,
                    format!(
                        "gate {} reads '{a_in}' but up {} reads '{b}'",
                        label(gate_mm),
                        label(up_mm)
                    ),
                ));
            }
            for (what, x, y) in [
                ("K", ga.k, ua.k),
                ("N", ga.n, ua.n),
                ("bits", ga.bits, ua.bits),
                ("block_size", ga.block_size, ua.block_size),
            ] {
                if x != y {
                    return Err(stop(
                        rules::MISMATCH,
                        format!(
                            "gate {} has {what} {x} but up {} has {y}",
                            label(gate_mm),
                            label(up_mm)
                        ),
                    ));
                }
            }
            (ga.k, ga.n)
        }
    };
    let layout = |rows: i64| {
        Layout::new(
            rows as usize,
            k as usize,
            ga.bits as u32,
            ga.block_size as usize,
        )
        .map_err(|e| stop(rules::ATTRIBUTES, e.to_string()))
    };
    let lay = layout(n)?;
    let (kb, blob) = (lay.k_blocks() as i64, lay.blob_size() as i64);

    // Element type, from the scales.
    let scales_of = |mm: &NodeProto| mm.input.get(2).cloned().unwrap_or_default();
    let t1 = ix.elem_type(&scales_of(gate_mm));
    if let Some(t) = t1 {
        if t != FLOAT && t != FLOAT16 {
            return Err(stop(
                rules::DTYPE,
                format!(
                    "the scales of {} are {}; MatMulNBitsMlp takes float32 or float16",
                    label(gate_mm),
                    dtype_name(t)
                ),
            ));
        }
    }
    if !packed {
        let tu = ix.elem_type(&scales_of(up_mm));
        if let (Some(a), Some(b)) = (t1, tu) {
            if a != b {
                return Err(stop(
                    rules::MISMATCH,
                    format!(
                        "gate scales are {} but up scales are {}",
                        dtype_name(a),
                        dtype_name(b)
                    ),
                ));
            }
        }
    }

    // Intermediates stay inside the MLP.
    for &i in &set {
        if i == m {
            continue;
        }
        for o in ix.node(i).output.iter().filter(|o| !o.is_empty()) {
            ix.only_read_by(o, &set).map_err(|e| {
                stop(
                    rules::INTERMEDIATE,
                    format!("{e} (output of {})", label(ix.node(i))),
                )
            })?;
        }
    }
    if packed {
        check_split(ix, gate.split.expect("packed").0, n)?;
    }

    // Weights and scales.
    let mut reshape: Vec<(usize, Vec<i64>)> = Vec::new();
    let mut new_inits: Vec<OutInit> = Vec::new();
    let mut removed = set.clone();
    let exclusive = |v: &str, removed: &BTreeSet<usize>| ix.only_read_by(v, removed).is_ok();
    let mut weight_names: Vec<(String, String)> = Vec::new(); // (B, scales) for gate, up
    if packed {
        let (b, sc) = (
            gate_mm.input.get(1).cloned().unwrap_or_default(),
            scales_of(gate_mm),
        );
        let (Some(bi), Some(si)) = (g.init(&b), g.init(&sc)) else {
            return Err(stop(
                rules::PACKED,
                format!("the packed weights ('{b}', '{sc}') of {} are not both initializers, so they cannot be split", label(gate_mm)),
            ));
        };
        check_weight(bi, si, 2 * n, kb, blob)?;
        let b_bytes = g
            .init_bytes(bi)
            .map_err(|e| stop(rules::PACKED, e.to_string()))?;
        let s_bytes = g
            .init_bytes(si)
            .map_err(|e| stop(rules::PACKED, e.to_string()))?;
        let (b_row, s_row) = (
            (kb * blob) as usize,
            (kb as usize) * elem_size(si.data_type),
        );
        for (proj, what) in [(gate, "gate"), (up, "up")] {
            let part = proj.split.expect("packed").1;
            let rows = part * n as usize..(part + 1) * n as usize;
            let bn = names.unique(&format!("{b}_{what}"));
            let sn = names.unique(&format!("{sc}_{what}"));
            new_inits.push(OutInit::New {
                name: bn.clone(),
                data_type: UINT8,
                dims: vec![n, kb, blob],
                data: b_bytes[rows.start * b_row..rows.end * b_row].to_vec(),
            });
            new_inits.push(OutInit::New {
                name: sn.clone(),
                data_type: si.data_type,
                dims: vec![n, kb],
                data: s_bytes[rows.start * s_row..rows.end * s_row].to_vec(),
            });
            weight_names.push((bn, sn));
        }
    } else {
        for mm in [gate_mm, up_mm] {
            let (b, sc) = (mm.input.get(1).cloned().unwrap_or_default(), scales_of(mm));
            if let (Some(bi), Some(si)) = (g.init(&b), g.init(&sc)) {
                check_weight(bi, si, n, kb, blob)?;
                for (init, dims) in [(bi, vec![n, kb, blob]), (si, vec![n, kb])] {
                    if init.dims != dims {
                        if !exclusive(&init.name, &removed) {
                            return Err(stop(
                                rules::WEIGHTS,
                                format!("'{}' has dims {:?}, not {dims:?}, and other nodes read it, so it cannot be reshaped", init.name, init.dims),
                            ));
                        }
                        reshape.push((g.init_index[&init.name], dims));
                    }
                }
            }
            weight_names.push((b, sc));
        }
    }

    // Biases.
    let mut biases: Vec<Option<Bias>> = Vec::new();
    for (proj, mm, what) in [(gate, gate_mm, "gate"), (up, up_mm, "up")] {
        let mut found: Vec<(Bias, i64, String)> = Vec::new(); // (bias, its length, where from)
        let part = proj.split.map(|s| s.1);
        if let Some(b) = mm.input.get(5).filter(|v| !v.is_empty()) {
            match part {
                None => found.push((
                    Bias::Value(b.clone()),
                    n,
                    format!("input 5 of {}", label(mm)),
                )),
                Some(p) => found.push((
                    Bias::Half(b.clone(), p),
                    2 * n,
                    format!("input 5 of {}", label(mm)),
                )),
            }
        }
        if let (Some((add, b)), Some(p)) = (&proj.pre_add, part) {
            found.push((
                Bias::Half(b.clone(), p),
                2 * n,
                format!("Add {}", label(ix.node(*add))),
            ));
        }
        if let Some((add, b)) = &proj.add {
            found.push((
                Bias::Value(b.clone()),
                n,
                format!("Add {}", label(ix.node(*add))),
            ));
        }
        if found.len() > 1 {
            let from: Vec<&str> = found.iter().map(|f| f.2.as_str()).collect();
            return Err(stop(
                rules::BIAS,
                format!("two biases on one projection: {}", from.join(" and ")),
            ));
        }
        let Some((bias, len, from)) = found.pop() else {
            biases.push(None);
            continue;
        };
        let (Bias::Value(name) | Bias::Half(name, _)) = &bias;
        let from_add = from.starts_with("Add");
        let init = g.init(name);
        if let Some(i) = init {
            if let Some(t) = t1 {
                if i.data_type != t {
                    return Err(stop(
                        rules::BIAS,
                        format!(
                            "bias '{name}' ({from}) is {} but the scales are {}",
                            dtype_name(i.data_type),
                            dtype_name(t)
                        ),
                    ));
                }
            }
            let ok_shape = i.numel() == Some(len as usize)
                && i.dims.iter().rev().skip(1).all(|&d| d == 1)
                && i.dims.last() == Some(&len);
            if !ok_shape {
                return Err(stop(
                    rules::BIAS,
                    format!("bias '{name}' ({from}) has dims {:?}, not [{len}]", i.dims),
                ));
            }
        } else if from_add || matches!(bias, Bias::Half(..)) {
            return Err(stop(
                rules::BIAS,
                format!("'{name}' ({from}) is not an initializer, so it is not known to be a bias of [{len}]"),
            ));
        }
        match bias {
            Bias::Half(name, p) => {
                let i = init.expect("checked above");
                let bytes = g
                    .init_bytes(i)
                    .map_err(|e| stop(rules::BIAS, e.to_string()))?;
                let half = bytes.len() / 2;
                let nn = names.unique(&format!("{name}_{what}"));
                new_inits.push(OutInit::New {
                    name: nn.clone(),
                    data_type: i.data_type,
                    dims: vec![n],
                    data: bytes[p * half..(p + 1) * half].to_vec(),
                });
                biases.push(Some(Bias::Value(nn)));
            }
            Bias::Value(name) => {
                if let Some(i) = init {
                    if i.dims != [n] {
                        if !exclusive(name.as_str(), &removed) {
                            return Err(stop(rules::BIAS, format!("bias '{name}' has dims {:?} and other nodes read it, so it cannot be reshaped", i.dims)));
                        }
                        reshape.push((g.init_index[&name], vec![n]));
                    }
                }
                biases.push(Some(Bias::Value(name)));
            }
        }
    }

    // The norm feeding A.
    let mut norm = None;
    let mut norm_kept = None;
    if let Some((p, out)) = ix.producer(&a_in) {
        let pn = ix.node(p);
        let kind = if pn.domain == MS && pn.op_type == "SkipSimplifiedLayerNormalization" {
            Some((true, 1e-12f32))
        } else if is_onnx(pn)
            && (pn.op_type == "SimplifiedLayerNormalization" || pn.op_type == "RMSNormalization")
        {
            Some((false, 1e-5f32))
        } else {
            None
        };
        if let Some((skip, default_eps)) = kind {
            match absorb_norm(ix, p, out, skip, k, t1, &set) {
                Ok(()) => {
                    let residual = if skip {
                        pn.output
                            .get(3)
                            .filter(|v| !v.is_empty() && ix.is_read(v))
                            .cloned()
                    } else {
                        None
                    };
                    norm = Some((
                        p,
                        skip,
                        attr_f(pn, "epsilon").unwrap_or(default_eps),
                        residual,
                    ));
                }
                Err(why) => norm_kept = Some(format!("{} {}: {why}", pn.op_type, label(pn))),
            }
        }
    }

    // The fused node.
    let mut inputs = vec![a_in.clone(), String::new(), String::new()];
    let mut outputs = vec![ix.node(m).output.first().cloned().unwrap_or_default()];
    let mut attrs = vec![
        int_attr("K", k),
        int_attr("N", n),
        int_attr("bits", ga.bits),
        int_attr("block_size", ga.block_size),
        int_attr("accuracy_level", 0),
        AttributeProto {
            name: "activation".into(),
            r#type: AttributeType::String as i32,
            s: b"silu".to_vec(),
            ..Default::default()
        },
    ];
    let mut norm_name = None;
    let mut epsilon = None;
    let mut residual = false;
    if let Some((p, skip, eps, res)) = &norm {
        let pn = ix.node(*p);
        removed.insert(*p);
        inputs[0] = pn.input[0].clone();
        if *skip {
            inputs[1] = pn.input[1].clone();
            inputs[2] = pn.input[2].clone();
        } else {
            inputs[2] = pn.input[1].clone();
        }
        if let Some(r) = res {
            outputs.push(r.clone());
            residual = true;
        }
        attrs.push(AttributeProto {
            name: "epsilon".into(),
            r#type: AttributeType::Float as i32,
            f: *eps,
            ..Default::default()
        });
        norm_name = Some(pn.op_type.clone());
        epsilon = Some(*eps);
    }
    for (w, bias) in weight_names.iter().zip(&biases) {
        inputs.push(w.0.clone());
        inputs.push(w.1.clone());
        inputs.push(match bias {
            Some(Bias::Value(b)) => b.clone(),
            _ => String::new(),
        });
    }
    while inputs.last().is_some_and(String::is_empty) {
        inputs.pop();
    }
    let prefix = common_prefix(&gate_mm.name, &up_mm.name);
    let base = match prefix.rfind('/') {
        Some(i) if i > 0 => format!("{}/{OP_TYPE}", &prefix[..i]),
        _ => format!("{OP_TYPE}_{}", outputs[0]),
    };
    let name = names.unique(&base);
    let node = NodeProto {
        input: inputs,
        output: outputs,
        name: name.clone(),
        op_type: OP_TYPE.to_string(),
        attribute: attrs,
        domain: domain.to_string(),
    };
    let fused = Fused {
        layer: String::new(),
        node: name,
        gate: gate_mm.name.clone(),
        up: up_mm.name.clone(),
        k,
        n,
        bits: ga.bits,
        block_size: ga.block_size,
        dtype: t1.map(dtype_name),
        packed,
        activation: act.label.clone(),
        norm: norm_name,
        epsilon,
        residual,
        norm_kept,
        gate_bias: biases[0].is_some(),
        up_bias: biases[1].is_some(),
        accuracy_level: ga
            .accuracy_level
            .max(ua.as_ref().map_or(0, |u| u.accuracy_level)),
        removed: removed
            .iter()
            .map(|&i| {
                let n = ix.node(i);
                if n.name.is_empty() {
                    label(n)
                } else {
                    n.name.clone()
                }
            })
            .collect(),
    };
    Ok(Decision {
        fused,
        node,
        removed,
        reshape,
        new_inits,
    })
}
