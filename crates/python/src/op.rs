//! The operator call as the planner sees it, built from the Python arguments.

use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, OpCall, TensorInfo};

/// The node's attributes: `K`, `N`, `bits`, `block_size`, `epsilon`, and `activation = "silu"`
/// (the only one the operator has). Values are passed as given; the planner checks them.
pub(crate) fn op_attrs(
    k: i64,
    n: i64,
    bits: i64,
    block_size: i64,
    epsilon: f64,
) -> IndexMap<String, AttrValue> {
    let mut attrs = IndexMap::new();
    attrs.insert("K".into(), AttrValue::Int(k));
    attrs.insert("N".into(), AttrValue::Int(n));
    attrs.insert("bits".into(), AttrValue::Int(bits));
    attrs.insert("block_size".into(), AttrValue::Int(block_size));
    attrs.insert("activation".into(), AttrValue::Str("silu".into()));
    attrs.insert("epsilon".into(), AttrValue::Float(epsilon));
    attrs
}

/// The call: attributes, the 9 inputs' descriptions in ONNX order (`None` where omitted), and
/// the outputs requested (`Y`, and `input_skip_bias_sum` when `residual`).
pub(crate) fn call_of(
    attrs: &IndexMap<String, AttrValue>,
    inputs: &[Option<TensorInfo>],
    residual: bool,
) -> OpCall {
    OpCall {
        attrs: attrs.clone(),
        inputs: inputs.to_vec(),
        outputs: vec![true, residual],
    }
}
