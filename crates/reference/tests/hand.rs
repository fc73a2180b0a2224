//! Tiny cases whose expected values are worked out by hand from op-semantics.md.

use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, DType, Tensor};
use nbits_mlp_reference::{run, MlpAttrs};

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn attrs(k: usize, n: usize, bits: u32, block_size: usize, epsilon: f64) -> MlpAttrs {
    MlpAttrs {
        k,
        n,
        bits,
        block_size,
        epsilon,
    }
}

fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "got {got:?}, want {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-15 * (1.0 + w.abs()),
            "got {got:?}, want {want:?}"
        );
    }
}

/// K = 4, N = 2, 4 bits, block 16: one blob of 8 bytes per row, codes 4..15 are padding
/// (filled with arbitrary bytes, which must not matter).
struct Tiny {
    a: Vec<f32>,
    gate_b: Vec<u8>,
    gate_scales: Vec<f32>,
    up_b: Vec<u8>,
    up_scales: Vec<f32>,
}

fn tiny() -> Tiny {
    Tiny {
        a: vec![1.0, 2.0, -1.0, 0.5],
        // gate row 0 codes [9, 7, 8, 12] -> [1, -1, 0, 4] * 0.5  = [0.5, -0.5, 0, 2]
        // gate row 1 codes [10, 8, 6, 8] -> [2, 0, -2, 0] * 0.25 = [0.5, 0, -0.5, 0]
        gate_b: vec![
            0x79, 0xC8, 0x5A, 0xFF, 0x00, 0x13, 0x77, 0xE1, //
            0x8A, 0x86, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        ],
        gate_scales: vec![0.5, 0.25],
        // up row 0 codes [8, 9, 8, 8]  -> [0, 1, 0, 0] * 2      = [0, 2, 0, 0]
        // up row 1 codes [0, 8, 8, 15] -> [-8, 0, 0, 7] * 0.125 = [-1, 0, 0, 0.875]
        up_b: vec![
            0x98, 0x88, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, //
            0x80, 0xF8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ],
        up_scales: vec![2.0, 0.125],
    }
}

#[test]
fn tiny_no_options() {
    for dtype in [DType::F32, DType::F16] {
        let t = tiny();
        let a = Tensor::from_floats(dtype, vec![1, 4], &t.a);
        let gb = Tensor::from_u8(vec![2, 1, 8], t.gate_b);
        let gs = Tensor::from_floats(dtype, vec![2, 1], &t.gate_scales);
        let ub = Tensor::from_u8(vec![2, 1, 8], t.up_b);
        let us = Tensor::from_floats(dtype, vec![2, 1], &t.up_scales);
        let inputs = [
            Some(&a),
            None,
            None,
            Some(&gb),
            Some(&gs),
            None,
            Some(&ub),
            Some(&us),
        ];
        let out = run(&attrs(4, 2, 4, 16, 1e-5), &inputs, false).unwrap();
        // g = [1*0.5 + 2*-0.5 + 0 + 0.5*2, 1*0.5 + 0 + -1*-0.5 + 0] = [0.5, 1]
        // u = [2*2, 1*-1 + 0.5*0.875] = [4, -0.5625]
        let want = [0.5 * sigmoid(0.5) * 4.0, 1.0 * sigmoid(1.0) * -0.5625];
        assert_close(&out.y_f64, &want);
        assert_eq!(out.y.shape, vec![1, 2]);
        assert_eq!(out.y.dtype, dtype);
        let rounded: Vec<f64> = match dtype {
            DType::F32 => want.iter().map(|&v| f64::from(v as f32)).collect(),
            _ => want
                .iter()
                .map(|&v| half::f16::from_f32(v as f32).to_f64())
                .collect(),
        };
        assert_eq!(out.y.to_f64(), rounded);
        assert_eq!(out.residual, None);
        assert_eq!(out.residual_f64, None);
    }
}

#[test]
fn tiny_with_biases() {
    let t = tiny();
    let a = Tensor::from_f32(vec![1, 4], &t.a);
    let gb = Tensor::from_u8(vec![2, 1, 8], t.gate_b);
    let gs = Tensor::from_f32(vec![2, 1], &t.gate_scales);
    let gbias = Tensor::from_f32(vec![2], &[0.25, -1.0]);
    let ub = Tensor::from_u8(vec![2, 1, 8], t.up_b);
    let us = Tensor::from_f32(vec![2, 1], &t.up_scales);
    let ubias = Tensor::from_f32(vec![2], &[0.5, 0.0625]);
    let inputs = [
        Some(&a),
        None,
        None,
        Some(&gb),
        Some(&gs),
        Some(&gbias),
        Some(&ub),
        Some(&us),
        Some(&ubias),
    ];
    let out = run(&attrs(4, 2, 4, 16, 1e-5), &inputs, false).unwrap();
    // g = [0.75, 0], u = [4.5, -0.5]
    assert_close(&out.y_f64, &[0.75 * sigmoid(0.75) * 4.5, 0.0]);
}

#[test]
fn tiny_skip_norm_residual_rank3() {
    let t = tiny();
    // Two rows, rank 3: row 0 is the tiny A, row 1 = [0, 0, 4, 0].
    let mut a_vals = t.a.clone();
    a_vals.extend([0.0, 0.0, 4.0, 0.0]);
    let a = Tensor::from_f32(vec![1, 2, 4], &a_vals);
    let skip = Tensor::from_f32(vec![1, 2, 4], &[1.0, 0.0, 1.0, -0.5, 0.0, 0.0, -2.0, 0.0]);
    let norm = Tensor::from_f32(vec![4], &[1.0, 0.5, 2.0, 1.0]);
    let gb = Tensor::from_u8(vec![2, 1, 8], t.gate_b);
    let gs = Tensor::from_f32(vec![2, 1], &t.gate_scales);
    let ub = Tensor::from_u8(vec![2, 1, 8], t.up_b);
    let us = Tensor::from_f32(vec![2, 1], &t.up_scales);
    let inputs = [
        Some(&a),
        Some(&skip),
        Some(&norm),
        Some(&gb),
        Some(&gs),
        None,
        Some(&ub),
        Some(&us),
        None,
    ];
    let out = run(&attrs(4, 2, 4, 16, 0.0), &inputs, true).unwrap();
    // Row 0: S = [2, 2, 0, 0], rms = sqrt(8/4) = sqrt2, A_n = [sqrt2, sqrt2/2, 0, 0].
    //   g = [sqrt2*0.5 + sqrt2/2*-0.5, sqrt2*0.5] = [sqrt2/4, sqrt2/2]; u = [sqrt2, -sqrt2].
    // Row 1: S = [0, 0, 2, 0], rms = sqrt(4/4) = 1, A_n = [0, 0, 4, 0].
    //   g = [0, 4*-0.5] = [0, -2]; u = [0, 0].
    let r2 = 2f64.sqrt();
    let want = [
        (r2 / 4.0) * sigmoid(r2 / 4.0) * r2,
        (r2 / 2.0) * sigmoid(r2 / 2.0) * -r2,
        0.0,
        0.0,
    ];
    assert_close(&out.y_f64, &want);
    assert_eq!(out.y.shape, vec![1, 2, 2]);
    let residual = out.residual.unwrap();
    assert_eq!(residual.shape, vec![1, 2, 4]);
    assert_eq!(
        residual.to_f64(),
        vec![2.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0]
    );
    assert_eq!(
        out.residual_f64.unwrap(),
        vec![2.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0]
    );
}

#[test]
fn norm_without_skip_uses_epsilon() {
    let t = tiny();
    let a = Tensor::from_f32(vec![1, 4], &t.a);
    let norm = Tensor::from_f32(vec![4], &[1.0, 1.0, 1.0, 1.0]);
    let gb = Tensor::from_u8(vec![2, 1, 8], t.gate_b);
    let gs = Tensor::from_f32(vec![2, 1], &t.gate_scales);
    let ub = Tensor::from_u8(vec![2, 1, 8], t.up_b);
    let us = Tensor::from_f32(vec![2, 1], &t.up_scales);
    let inputs = [
        Some(&a),
        None,
        Some(&norm),
        Some(&gb),
        Some(&gs),
        None,
        Some(&ub),
        Some(&us),
    ];
    let eps = 0.25;
    let out = run(&attrs(4, 2, 4, 16, eps), &inputs, false).unwrap();
    // mean(A^2) = (1 + 4 + 1 + 0.25) / 4 = 1.5625; A_n = A / sqrt(1.5625 + 0.25); linear in A.
    let f = 1.0 / (1.5625f64 + eps).sqrt();
    let (g0, g1, u0, u1) = (0.5 * f, 1.0 * f, 4.0 * f, -0.5625 * f);
    assert_close(&out.y_f64, &[g0 * sigmoid(g0) * u0, g1 * sigmoid(g1) * u1]);
}

#[test]
fn two_and_eight_bits() {
    // 2 bits, K = 4, block 16 (blob 4 bytes): codes [3, 1, 2, 0] -> [1, -1, 0, -2] * 0.5.
    // 0b00_10_01_11 = 0x27; the other 3 bytes are padding.
    let a = Tensor::from_f32(vec![1, 4], &[1.0, 2.0, 3.0, 4.0]);
    let gb = Tensor::from_u8(vec![1, 1, 4], vec![0x27, 0xFF, 0x00, 0x5A]);
    let gs = Tensor::from_f32(vec![1, 1], &[0.5]);
    // up codes [2, 2, 3, 2] -> [0, 0, 1, 0] * 1: 0b10_11_10_10 = 0xBA.
    let ub = Tensor::from_u8(vec![1, 1, 4], vec![0xBA, 0x12, 0x34, 0x56]);
    let us = Tensor::from_f32(vec![1, 1], &[1.0]);
    let inputs = [
        Some(&a),
        None,
        None,
        Some(&gb),
        Some(&gs),
        None,
        Some(&ub),
        Some(&us),
    ];
    let out = run(&attrs(4, 1, 2, 16, 1e-5), &inputs, false).unwrap();
    // g = (1 - 2 + 0 - 8) * 0.5 = -4.5, u = 3
    assert_close(&out.y_f64, &[-4.5 * sigmoid(-4.5) * 3.0]);

    // 8 bits, K = 3, block 16: codes [130, 126, 128] -> [2, -2, 0] * 0.25; up [129, 128, 100] * 1.
    let a = Tensor::from_f32(vec![1, 3], &[1.0, -1.0, 5.0]);
    let mut g = vec![0xEEu8; 16];
    g[..3].copy_from_slice(&[130, 126, 128]);
    let mut u = vec![0x11u8; 16];
    u[..3].copy_from_slice(&[129, 128, 100]);
    let gb = Tensor::from_u8(vec![1, 1, 16], g);
    let gs = Tensor::from_f32(vec![1, 1], &[0.25]);
    let ub = Tensor::from_u8(vec![1, 1, 16], u);
    let us = Tensor::from_f32(vec![1, 1], &[1.0]);
    let inputs = [
        Some(&a),
        None,
        None,
        Some(&gb),
        Some(&gs),
        None,
        Some(&ub),
        Some(&us),
    ];
    let out = run(&attrs(3, 1, 8, 16, 1e-5), &inputs, false).unwrap();
    // g = (2 + 2 + 0) * 0.25 = 1, u = 1 + 0 + 5 * -28 = -139
    assert_close(&out.y_f64, &[sigmoid(1.0) * -139.0]);
}

#[test]
fn empty_a_gives_empty_y() {
    let t = tiny();
    let a = Tensor::from_f32(vec![0, 4], &[]);
    let skip = Tensor::from_f32(vec![0, 4], &[]);
    let norm = Tensor::from_f32(vec![4], &[1.0; 4]);
    let gb = Tensor::from_u8(vec![2, 1, 8], t.gate_b);
    let gs = Tensor::from_f32(vec![2, 1], &t.gate_scales);
    let ub = Tensor::from_u8(vec![2, 1, 8], t.up_b);
    let us = Tensor::from_f32(vec![2, 1], &t.up_scales);
    let inputs = [
        Some(&a),
        Some(&skip),
        Some(&norm),
        Some(&gb),
        Some(&gs),
        None,
        Some(&ub),
        Some(&us),
    ];
    let out = run(&attrs(4, 2, 4, 16, 1e-5), &inputs, true).unwrap();
    assert_eq!(out.y.shape, vec![0, 2]);
    assert!(out.y.data.is_empty() && out.y_f64.is_empty());
    assert_eq!(out.residual.unwrap().shape, vec![0, 4]);
    // Rank 3 with a zero middle dimension.
    let a = Tensor::from_f32(vec![3, 0, 4], &[]);
    let out = run(
        &attrs(4, 2, 4, 16, 1e-5),
        &[
            Some(&a),
            None,
            None,
            Some(&gb),
            Some(&gs),
            None,
            Some(&ub),
            Some(&us),
        ],
        false,
    )
    .unwrap();
    assert_eq!(out.y.shape, vec![3, 0, 2]);
}

#[test]
fn attrs_defaults() {
    let mut m = IndexMap::new();
    m.insert("K".to_string(), AttrValue::Int(4));
    m.insert("N".to_string(), AttrValue::Int(2));
    m.insert("block_size".to_string(), AttrValue::Int(16));
    m.insert("activation".to_string(), AttrValue::Str("silu".into()));
    assert_eq!(MlpAttrs::from_attrs(&m).unwrap(), attrs(4, 2, 4, 16, 1e-5));
    m.insert("bits".to_string(), AttrValue::Int(8));
    m.insert("epsilon".to_string(), AttrValue::Float(0.5));
    m.insert("accuracy_level".to_string(), AttrValue::Int(0));
    assert_eq!(MlpAttrs::from_attrs(&m).unwrap(), attrs(4, 2, 8, 16, 0.5));
    // An integer epsilon widens.
    m.insert("epsilon".to_string(), AttrValue::Int(0));
    assert_eq!(MlpAttrs::from_attrs(&m).unwrap().epsilon, 0.0);
}
