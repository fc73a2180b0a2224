//! Shared fixtures: a small MatMulNBitsMlp model.
#![allow(dead_code)]

use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, DType, Tensor, TensorInfo};
use nbits_mlp_onnx::{MlpNode, ModelSpec, ValueInfo};

pub const K: usize = 32;
pub const N: usize = 8;

pub fn attrs() -> IndexMap<String, AttrValue> {
    let mut a = IndexMap::new();
    a.insert("K".to_string(), AttrValue::Int(K as i64));
    a.insert("N".to_string(), AttrValue::Int(N as i64));
    a.insert("bits".to_string(), AttrValue::Int(4));
    a.insert("block_size".to_string(), AttrValue::Int(32));
    a.insert("activation".to_string(), AttrValue::Str("silu".to_string()));
    // 0.5 is exact in f32, so it survives the f32 storage of FLOAT attributes.
    a.insert("epsilon".to_string(), AttrValue::Float(0.5));
    a
}

/// Deterministic bytes.
pub fn bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(37).wrapping_add(seed))
        .collect()
}

pub fn floats(n: usize, seed: f32) -> Vec<f32> {
    (0..n).map(|i| ((i as f32) * 0.37 + seed).sin()).collect()
}

/// One node: A [rows, K] (`rows` None: symbolic) -> Y [rows, N], gate/up weights as initializers.
pub fn spec(dtype: DType, rows: Option<usize>) -> ModelSpec {
    let mut initializers = IndexMap::new();
    initializers.insert(
        "gate_B".to_string(),
        Tensor::from_u8(vec![N, 1, 16], bytes(N * 16, 1)),
    );
    initializers.insert(
        "gate_scales".to_string(),
        Tensor::from_floats(dtype, vec![N, 1], &floats(N, 0.1)),
    );
    initializers.insert(
        "up_B".to_string(),
        Tensor::from_u8(vec![N, 1, 16], bytes(N * 16, 2)),
    );
    initializers.insert(
        "up_scales".to_string(),
        Tensor::from_floats(dtype, vec![N, 1], &floats(N, 0.2)),
    );
    let node = MlpNode {
        name: "mlp0".to_string(),
        inputs: [
            "A",
            "",
            "",
            "gate_B",
            "gate_scales",
            "",
            "up_B",
            "up_scales",
        ]
        .map(String::from)
        .to_vec(),
        outputs: vec!["Y".to_string()],
        attrs: attrs(),
    };
    ModelSpec {
        nodes: vec![node],
        inputs: vec![ValueInfo {
            name: "A".to_string(),
            dtype: Some(dtype),
            shape: Some(vec![rows, Some(K)]),
        }],
        outputs: vec![ValueInfo {
            name: "Y".to_string(),
            dtype: Some(dtype),
            shape: Some(vec![rows, Some(N)]),
        }],
        initializers,
    }
}

pub fn info(dtype: DType, shape: &[usize]) -> TensorInfo {
    TensorInfo::new(dtype, shape.to_vec())
}

/// Asserts `r` failed with a message containing every one of `needles`.
#[track_caller]
pub fn assert_err<T: std::fmt::Debug, E: std::fmt::Display>(r: Result<T, E>, needles: &[&str]) {
    match r {
        Ok(v) => panic!("expected an error containing {needles:?}, got Ok({v:?})"),
        Err(e) => {
            let msg = e.to_string();
            for n in needles {
                assert!(msg.contains(n), "error {msg:?} does not contain {n:?}");
            }
        }
    }
}
