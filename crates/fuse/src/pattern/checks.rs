//! The rules' checks on the parts of a candidate: a projection's attributes, the packed form's
//! `Split`, packed weights and scales, and whether the norm can be absorbed.

use super::index::Index;
use super::{attr, attr_i, dtype_name, label, rules, FLOAT, FLOAT16, INT64, UINT8};
use crate::graph::{Dim, Init};
use nbits_mlp_onnx::proto::{AttributeType, NodeProto};
use std::collections::BTreeSet;

/// A candidate stopped by a rule.
pub(super) struct Stop {
    pub(super) rule: &'static str,
    pub(super) reason: String,
}

pub(super) fn stop(rule: &'static str, reason: impl Into<String>) -> Stop {
    Stop {
        rule,
        reason: reason.into(),
    }
}

/// The attributes of one `MatMulNBits` node.
pub(super) struct MmAttrs {
    pub(super) k: i64,
    pub(super) n: i64,
    pub(super) bits: i64,
    pub(super) block_size: i64,
    pub(super) accuracy_level: i64,
}

pub(super) fn mm_attrs(n: &NodeProto) -> Result<MmAttrs, Stop> {
    let who = label(n);
    if let Some(zp) = n.input.get(3).filter(|v| !v.is_empty()) {
        return Err(stop(
            rules::ZERO_POINTS,
            format!("MatMulNBits {who} has zero points (input 3 '{zp}'); MatMulNBitsMlp's zero point is always 2^(bits-1)"),
        ));
    }
    if let Some(g) = n.input.get(4).filter(|v| !v.is_empty()) {
        return Err(stop(
            rules::G_IDX,
            format!("MatMulNBits {who} has g_idx (input 4 '{g}'); MatMulNBitsMlp has none"),
        ));
    }
    if n.input.len() > 6 {
        return Err(stop(
            rules::ATTRIBUTES,
            format!("MatMulNBits {who} has {} inputs", n.input.len()),
        ));
    }
    let int_attr = |name: &str| -> Result<Option<i64>, Stop> {
        match attr(n, name) {
            None => Ok(None),
            Some(a) if a.r#type == AttributeType::Int as i32 || a.r#type == 0 => Ok(Some(a.i)),
            Some(_) => Err(stop(
                rules::ATTRIBUTES,
                format!("MatMulNBits {who}: attribute '{name}' is not an INT"),
            )),
        }
    };
    let required = |name: &str| -> Result<i64, Stop> {
        int_attr(name)?.ok_or_else(|| {
            stop(
                rules::ATTRIBUTES,
                format!("MatMulNBits {who} has no attribute '{name}'"),
            )
        })
    };
    let a = MmAttrs {
        k: required("K")?,
        n: required("N")?,
        bits: int_attr("bits")?.unwrap_or(4),
        block_size: required("block_size")?,
        accuracy_level: int_attr("accuracy_level")?.unwrap_or(0),
    };
    if a.k <= 0 || a.n <= 0 {
        return Err(stop(
            rules::ATTRIBUTES,
            format!("MatMulNBits {who}: K={} N={}", a.k, a.n),
        ));
    }
    if ![2, 4, 8].contains(&a.bits) {
        return Err(stop(
            rules::ATTRIBUTES,
            format!(
                "MatMulNBits {who}: bits {} (MatMulNBitsMlp takes 2, 4 or 8)",
                a.bits
            ),
        ));
    }
    if a.block_size < 16 || (a.block_size & (a.block_size - 1)) != 0 {
        return Err(stop(
            rules::ATTRIBUTES,
            format!(
                "MatMulNBits {who}: block_size {} is not a power of two >= 16",
                a.block_size
            ),
        ));
    }
    if int_attr("weight_prepacked")?.unwrap_or(0) != 0 {
        return Err(stop(
            rules::ATTRIBUTES,
            format!("MatMulNBits {who}: weights are prepacked (weight_prepacked != 0)"),
        ));
    }
    Ok(a)
}

/// Checks that Split node `s` cuts its input into two halves of `n` along the last axis.
pub(super) fn check_split(ix: &Index<'_>, s: usize, n: i64) -> Result<(), Stop> {
    let node = ix.node(s);
    let who = label(node);
    if node.output.len() != 2 {
        return Err(stop(
            rules::PACKED,
            format!("Split {who} has {} outputs, not 2", node.output.len()),
        ));
    }
    let axis = attr_i(node, "axis").unwrap_or(0);
    let last = node
        .input
        .first()
        .and_then(|v| ix.rank(v))
        .map(|r| r as i64 - 1);
    if axis != -1 && Some(axis) != last {
        return Err(stop(
            rules::PACKED,
            format!("Split {who} cuts axis {axis}, which is not known to be the last axis"),
        ));
    }
    if let Some(k) = attr_i(node, "num_outputs") {
        if k != 2 {
            return Err(stop(
                rules::PACKED,
                format!("Split {who} has num_outputs {k}"),
            ));
        }
    }
    let sizes: Option<Vec<i64>> = match node.input.get(1).filter(|v| !v.is_empty()) {
        Some(v) => {
            let init =
                ix.g.init(v)
                    .filter(|i| i.data_type == INT64)
                    .ok_or_else(|| {
                        stop(
                            rules::PACKED,
                            format!("Split {who}: sizes '{v}' are not an int64 initializer"),
                        )
                    })?;
            let bytes =
                ix.g.init_bytes(init)
                    .map_err(|e| stop(rules::PACKED, e.to_string()))?;
            Some(
                bytes
                    .chunks_exact(8)
                    .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
                    .collect(),
            )
        }
        None => attr(node, "split").map(|a| a.ints.clone()),
    };
    if let Some(sizes) = sizes {
        if sizes != [n, n] {
            return Err(stop(
                rules::PACKED,
                format!("Split {who} cuts {sizes:?}, not two halves [{n}, {n}]"),
            ));
        }
    }
    Ok(())
}

/// Checks packed weights `b` and scales `s` for `rows` rows of `kb` blocks of `blob` bytes.
pub(super) fn check_weight(b: &Init, s: &Init, rows: i64, kb: i64, blob: i64) -> Result<(), Stop> {
    if b.data_type != UINT8 {
        return Err(stop(
            rules::WEIGHTS,
            format!(
                "weights '{}' are {}, not uint8",
                b.name,
                dtype_name(b.data_type)
            ),
        ));
    }
    let want = rows
        .checked_mul(kb)
        .and_then(|x| x.checked_mul(blob))
        .and_then(|x| usize::try_from(x).ok());
    if want.is_none() || b.numel() != want {
        return Err(stop(
            rules::WEIGHTS,
            format!(
                "weights '{}' have dims {:?}, not [{rows}, {kb}, {blob}]",
                b.name, b.dims
            ),
        ));
    }
    if rows.checked_mul(kb).and_then(|x| usize::try_from(x).ok()) != s.numel() {
        return Err(stop(
            rules::WEIGHTS,
            format!(
                "scales '{}' have dims {:?}, not [{rows}, {kb}]",
                s.name, s.dims
            ),
        ));
    }
    if s.data_type != FLOAT && s.data_type != FLOAT16 {
        return Err(stop(
            rules::DTYPE,
            format!("scales '{}' are {}", s.name, dtype_name(s.data_type)),
        ));
    }
    Ok(())
}

/// Whether the norm node `p` (output `out` feeding the projections in `set`) can become part
/// of the fused node; `Err` says why not.
pub(super) fn absorb_norm(
    ix: &Index<'_>,
    p: usize,
    out: usize,
    skip: bool,
    k: i64,
    t1: Option<i32>,
    set: &BTreeSet<usize>,
) -> Result<(), String> {
    let n = ix.node(p);
    if out != 0 {
        return Err(format!(
            "A is its output {out}, not its normalized output 0"
        ));
    }
    ix.only_read_by(&n.output[0], set)?;
    let stats: &[usize] = if skip { &[1, 2] } else { &[1] };
    for &i in stats {
        if let Some(v) = n.output.get(i).filter(|v| !v.is_empty()) {
            if ix.is_read(v) {
                return Err(format!("its output {i} '{v}' (statistics) is read"));
            }
        }
    }
    if n.input.first().is_none_or(String::is_empty) {
        return Err("it has no input".into());
    }
    let (x, scale) = if skip {
        if n.input.len() < 3 || n.input[1].is_empty() || n.input[2].is_empty() {
            return Err("it lacks skip or gamma".into());
        }
        if n.input.get(3).is_some_and(|b| !b.is_empty()) {
            return Err(format!(
                "it adds a bias '{}' (input 3), which MatMulNBitsMlp has no input for",
                n.input[3]
            ));
        }
        (&n.input[0], &n.input[2])
    } else {
        if n.input.len() < 2 || n.input[1].is_empty() {
            return Err("it lacks a scale".into());
        }
        let axis = attr_i(n, "axis").unwrap_or(-1);
        let last = ix.rank(&n.input[0]).map(|r| r as i64 - 1);
        if axis != -1 && Some(axis) != last {
            return Err(format!("it normalizes over axis {axis}, not the last one"));
        }
        (&n.input[0], &n.input[1])
    };
    if let Some(i) = ix.g.init(scale) {
        if i.numel() != Some(k as usize) || i.dims.len() != 1 {
            return Err(format!(
                "its scale '{scale}' has dims {:?}, not [{k}]",
                i.dims
            ));
        }
    }
    if let Some(t) = t1 {
        for v in [x, scale] {
            if let Some(tv) = ix.elem_type(v) {
                if tv != t {
                    return Err(format!(
                        "'{v}' is {} but the MLP is {}",
                        dtype_name(tv),
                        dtype_name(t)
                    ));
                }
            }
        }
    }
    if skip {
        // MatMulNBitsMlp needs skip of A's shape; ONNX Runtime's skip norm also broadcasts.
        let shape = |v: &str| ix.g.types.get(v).and_then(|t| t.shape.clone());
        if let (Some(a), Some(s)) = (shape(&n.input[0]), shape(&n.input[1])) {
            let differ = a.len() != s.len()
                || a.iter().zip(&s).any(|(x, y)| match (x, y) {
                    (Dim::Fixed(x), Dim::Fixed(y)) => x != y,
                    (Dim::Param(x), Dim::Param(y)) => x != y,
                    (Dim::Fixed(_), Dim::Param(_)) | (Dim::Param(_), Dim::Fixed(_)) => true,
                    _ => false,
                });
            if differ {
                return Err(format!(
                    "its skip '{}' may have another shape than its input '{}' (MatMulNBitsMlp needs the same)",
                    n.input[1], n.input[0]
                ));
            }
        }
    }
    Ok(())
}
