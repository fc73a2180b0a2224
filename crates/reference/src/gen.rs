//! Random, reproducible test cases for the operator, shared by every test, the CLI and the
//! benchmarks.
//!
//! A case is a function of its shape ([`MlpShape`]) and a seed alone. Each input draws from its
//! own ChaCha8 stream (seeded by the seed, stream = the input's ONNX index), so switching an
//! optional input on or off leaves the other inputs' values unchanged, and the values do not
//! depend on how the rows are split into leading dimensions.
//!
//! Value ranges: A and skip uniform in [-1, 1]; norm_scale in [0.5, 1.5]; biases in
//! [-0.5, 0.5]; every weight byte uniform (so codes are uniform over all `2^bits` values and the
//! padding past K holds random bits, catching a kernel that reads it); scales of random sign
//! with magnitude uniform in `[0.5, 1.5] * sqrt(3) / (2^(bits-1) * sqrt(K))`, which gives the
//! weights about unit variance times `1/K`, so that `g`, `u` and `Y` are of order 1 for every
//! bits and K (and float16 never overflows). Float16 inputs are these values rounded to float16.

use crate::mlp::{self, MlpAttrs, MlpOutput};
use crate::pack::Layout;
use crate::RefError;
use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, DType, MlpShape, OpCall, Tensor};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The node attributes of a case of `shape`: [`MlpShape::attrs`] (`K`, `N`, `bits`,
/// `block_size`, `activation = "silu"`) and `epsilon = 1e-5` (the float32 value an ONNX FLOAT
/// attribute holds, widened).
pub fn attrs(shape: &MlpShape) -> IndexMap<String, AttrValue> {
    let mut attrs = shape.attrs();
    attrs.insert("epsilon".to_string(), AttrValue::Float(f64::from(1e-5_f32)));
    attrs
}

/// The attributes of a case of `shape` as the reference reads them: an error names what makes
/// the geometry invalid (bits, block size, K, N), where [`generate`] would panic.
pub fn check(shape: &MlpShape) -> Result<MlpAttrs, RefError> {
    MlpAttrs::from_attrs(&attrs(shape))
}

/// The weight layout of `shape`; errors as [`Layout::new`].
pub fn layout(shape: &MlpShape) -> Result<Layout, RefError> {
    Layout::new(shape.n, shape.k, shape.bits, shape.block_size)
}

/// A generated operator call.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Node attributes (see [`attrs`]).
    pub attrs: IndexMap<String, AttrValue>,
    /// The 9 inputs in ONNX order (see [`mlp::INPUT_NAMES`]), `None` where omitted.
    pub inputs: Vec<Option<Tensor>>,
    /// Whether output 1 (`input_skip_bias_sum`) is requested.
    pub want_residual: bool,
}

impl Case {
    /// The inputs as [`mlp::run`] takes them.
    pub fn input_refs(&self) -> Vec<Option<&Tensor>> {
        self.inputs.iter().map(Option::as_ref).collect()
    }
    /// The operator call of this case: its attributes, its inputs' descriptions, `Y` and the
    /// residual output when requested.
    pub fn call(&self) -> OpCall {
        OpCall::from_tensors(&self.attrs, &self.input_refs(), &[true, self.want_residual])
    }
    /// Runs the float64 reference on this case.
    pub fn run_reference(&self) -> Result<MlpOutput, RefError> {
        let attrs = MlpAttrs::from_attrs(&self.attrs)?;
        mlp::run(&attrs, &self.input_refs(), self.want_residual)
    }
}

/// What the value generators share: the call's shape and the seed.
struct Spec<'a> {
    shape: &'a MlpShape,
    seed: u64,
}

/// A generator for input `index`: its own stream of the seed.
fn stream(spec: &Spec, index: usize) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    rng.set_stream(index as u64);
    rng
}

/// A float tensor of the shape's T1 with values uniform in `[lo, hi]`.
fn uniform(spec: &Spec, index: usize, shape: Vec<usize>, lo: f32, hi: f32) -> Tensor {
    let mut rng = stream(spec, index);
    let values: Vec<f32> = (0..shape.iter().product())
        .map(|_| rng.gen_range(lo..=hi))
        .collect();
    Tensor::from_floats(spec.shape.dtype, shape, &values)
}

/// Random packed weights: every byte uniform.
fn packed(spec: &Spec, index: usize, layout: &Layout) -> Tensor {
    let mut rng = stream(spec, index);
    let mut bytes = vec![0u8; layout.packed_len()];
    rng.fill(&mut bytes[..]);
    Tensor::from_u8(layout.packed_shape(), bytes)
}

/// Random scales of random sign, magnitude `[0.5, 1.5] * sqrt(3) / (2^(bits-1) * sqrt(K))`.
fn scales(spec: &Spec, index: usize, layout: &Layout) -> Tensor {
    let mut rng = stream(spec, index);
    let unit = 3f64.sqrt() / (f64::from(layout.zero_point()) * (spec.shape.k as f64).sqrt());
    let values: Vec<f32> = (0..layout.scales_len())
        .map(|_| {
            let magnitude = rng.gen_range(0.5..=1.5) * unit;
            (if rng.gen::<bool>() {
                magnitude
            } else {
                -magnitude
            }) as f32
        })
        .collect();
    Tensor::from_floats(spec.shape.dtype, layout.scales_shape(), &values)
}

/// Generates a case of `shape`, every random value from `seed`. A and skip have the shape's
/// leading dimensions (`[rows, K]` or `[b, s, K]`).
///
/// The combination of optional inputs is taken as given, even where the operator refuses it
/// (skip without norm, residual without skip), so error paths can be generated too.
///
/// # Panics
/// If the geometry is invalid (bits not 2, 4 or 8; block_size 0 or not filling whole bytes) or
/// `dtype` is not float32 or float16.
pub fn generate(shape: &MlpShape, seed: u64) -> Case {
    assert!(
        matches!(shape.dtype, DType::F32 | DType::F16),
        "generate: T1 must be float32 or float16, got {}",
        shape.dtype
    );
    let layout = layout(shape).unwrap_or_else(|e| panic!("generate: {e}"));
    let spec = &Spec { shape, seed };
    let a_shape = shape.a_shape();
    let optional = |given: bool, make: &dyn Fn() -> Tensor| given.then(make);
    let inputs = vec![
        Some(uniform(spec, mlp::A, a_shape.clone(), -1.0, 1.0)),
        optional(shape.skip, &|| {
            uniform(spec, mlp::SKIP, a_shape.clone(), -1.0, 1.0)
        }),
        optional(shape.norm, &|| {
            uniform(spec, mlp::NORM_SCALE, vec![shape.k], 0.5, 1.5)
        }),
        Some(packed(spec, mlp::GATE_B, &layout)),
        Some(scales(spec, mlp::GATE_SCALES, &layout)),
        optional(shape.gate_bias, &|| {
            uniform(spec, mlp::GATE_BIAS, vec![shape.n], -0.5, 0.5)
        }),
        Some(packed(spec, mlp::UP_B, &layout)),
        Some(scales(spec, mlp::UP_SCALES, &layout)),
        optional(shape.up_bias, &|| {
            uniform(spec, mlp::UP_BIAS, vec![shape.n], -0.5, 0.5)
        }),
    ];
    Case {
        attrs: attrs(shape),
        inputs,
        want_residual: shape.residual,
    }
}

/// Host memory that [`generate`] and a reference run of the case take, in bytes: the inputs, the
/// outputs and the reference's float64 copies of the activations and of Y. `None` when the count
/// overflows 64 bits or the geometry is invalid, so callers can refuse absurd sizes before
/// allocating anything.
pub fn host_bytes(shape: &MlpShape) -> Option<u64> {
    let layout = layout(shape).ok()?;
    let d = shape.dtype.size() as u64;
    let rows = shape
        .lead
        .iter()
        .try_fold(1u64, |p, &r| p.checked_mul(r as u64))?;
    let (k, n) = (shape.k as u64, shape.n as u64);
    let a = rows.checked_mul(k)?;
    let y = rows.checked_mul(n)?;
    let weights = 2 * (layout.packed_len() as u64 + layout.scales_len() as u64 * d);
    // A (+ skip) in T1, their float64 sum (+ the residual copy), Y in T1, Y and its error scale
    // in float64.
    let act = a.checked_mul(d * (1 + shape.skip as u64) + 8 * (1 + shape.residual as u64))?;
    let out = y.checked_mul(d + 16)?;
    act.checked_add(out)?.checked_add(weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_bytes_refuse_overflow() {
        let b = host_bytes(&MlpShape::default()).unwrap();
        assert!(b > 64 * 4 && b < 1 << 20, "{b}");
        let huge = MlpShape {
            lead: vec![usize::MAX],
            ..MlpShape::default()
        };
        assert_eq!(host_bytes(&huge), None);
        let huge3 = MlpShape {
            lead: vec![1 << 40, 1 << 40],
            ..MlpShape::default()
        };
        assert_eq!(host_bytes(&huge3), None);
    }

    #[test]
    fn planner_call_matches_generated_case() {
        let shape = MlpShape {
            k: 93,
            n: 5,
            lead: vec![2, 3],
            dtype: DType::F16,
            bits: 2,
            block_size: 16,
            skip: true,
            norm: true,
            residual: true,
            up_bias: true,
            ..Default::default()
        };
        // The planner's call and the generated case agree on every input's shape and dtype.
        let case = generate(&shape, 7);
        let call = shape.call();
        assert_eq!(case.call().inputs, call.inputs);
        assert_eq!(case.call().outputs, call.outputs);
        // The attributes are the planner's plus epsilon.
        let mut attrs = case.attrs.clone();
        assert!(attrs.shift_remove("epsilon").is_some());
        assert_eq!(attrs, call.attrs);
        // The values do not depend on how the rows are split into leading dimensions.
        let flat = generate(
            &MlpShape {
                lead: vec![6],
                ..shape.clone()
            },
            7,
        );
        for (a, b) in case.inputs.iter().zip(&flat.inputs) {
            assert_eq!(a.as_ref().map(|t| &t.data), b.as_ref().map(|t| &t.data));
        }
    }

    #[test]
    fn shapes_and_attrs() {
        let shape = MlpShape {
            k: 93,
            n: 5,
            lead: vec![1, 3],
            skip: true,
            norm: true,
            up_bias: true,
            ..Default::default()
        };
        let case = generate(&shape, 0);
        let shapes: Vec<Option<Vec<usize>>> = case
            .inputs
            .iter()
            .map(|t| t.as_ref().map(|t| t.shape.clone()))
            .collect();
        assert_eq!(
            shapes,
            vec![
                Some(vec![1, 3, 93]),
                Some(vec![1, 3, 93]),
                Some(vec![93]),
                Some(vec![5, 3, 16]),
                Some(vec![5, 3]),
                None,
                Some(vec![5, 3, 16]),
                Some(vec![5, 3]),
                Some(vec![5]),
            ]
        );
        assert_eq!(case.inputs[0].as_ref().unwrap().dtype, DType::F32);
        assert_eq!(case.inputs[3].as_ref().unwrap().dtype, DType::U8);
        assert_eq!(shape.y_shape(), vec![1, 3, 5]);
        let attrs = MlpAttrs::from_attrs(&case.attrs).unwrap();
        assert_eq!(
            (attrs.k, attrs.n, attrs.bits, attrs.block_size),
            (93, 5, 4, 32)
        );
        assert_eq!(attrs.epsilon, f64::from(1e-5f32));
        assert_eq!(case.attrs["activation"], AttrValue::Str("silu".into()));
        // The packed weights and scales of gate and up, as the generated tensors hold them.
        let weight_bytes = |case: &Case| -> u64 {
            [mlp::GATE_B, mlp::GATE_SCALES, mlp::UP_B, mlp::UP_SCALES]
                .iter()
                .map(|&i| case.inputs[i].as_ref().unwrap().data.len() as u64)
                .sum()
        };
        assert_eq!(shape.weight_bytes(), 2 * (5 * 3 * 16 + 5 * 3 * 4));
        assert_eq!(shape.weight_bytes(), weight_bytes(&case));
        let f16 = MlpShape {
            dtype: DType::F16,
            ..shape
        };
        assert_eq!(f16.weight_bytes(), 2 * (5 * 3 * 16 + 5 * 3 * 2));
        let f16_case = generate(&f16, 0);
        assert_eq!(f16.weight_bytes(), weight_bytes(&f16_case));
        assert!(f16_case
            .inputs
            .iter()
            .flatten()
            .all(|t| t.dtype != DType::F32));
    }

    #[test]
    fn deterministic_and_independent_streams() {
        let shape = MlpShape {
            k: 40,
            n: 9,
            lead: vec![2],
            block_size: 16,
            ..Default::default()
        };
        assert_eq!(generate(&shape, 0), generate(&shape, 0));
        let other_seed = generate(&shape, 1);
        assert_ne!(other_seed.inputs[0], generate(&shape, 0).inputs[0]);
        // Optional inputs do not shift the other inputs' values.
        let full = generate(
            &MlpShape {
                skip: true,
                norm: true,
                gate_bias: true,
                up_bias: true,
                ..shape.clone()
            },
            0,
        );
        let bare = generate(&shape, 0);
        for i in [
            mlp::A,
            mlp::GATE_B,
            mlp::GATE_SCALES,
            mlp::UP_B,
            mlp::UP_SCALES,
        ] {
            assert_eq!(full.inputs[i], bare.inputs[i], "input {i}");
        }
        assert_ne!(full.inputs[mlp::GATE_B], full.inputs[mlp::UP_B]);
    }

    #[test]
    fn value_ranges() {
        let shape = MlpShape {
            k: 300,
            n: 64,
            lead: vec![4],
            skip: true,
            norm: true,
            gate_bias: true,
            up_bias: true,
            bits: 2,
            block_size: 16,
            ..Default::default()
        };
        let case = generate(&shape, 0);
        let values = |i: usize| case.inputs[i].as_ref().unwrap().to_f64();
        assert!(values(mlp::A).iter().all(|v| v.abs() <= 1.0));
        assert!(values(mlp::SKIP).iter().all(|v| v.abs() <= 1.0));
        assert!(values(mlp::NORM_SCALE)
            .iter()
            .all(|v| (0.5..=1.5).contains(v)));
        assert!(values(mlp::GATE_BIAS).iter().all(|v| v.abs() <= 0.5));
        let unit = 3f64.sqrt() / (2.0 * 300f64.sqrt());
        let s = values(mlp::UP_SCALES);
        assert!(s
            .iter()
            .all(|v| (0.5 * unit * 0.999..=1.5 * unit * 1.001).contains(&v.abs())));
        assert!(s.iter().any(|&v| v < 0.0) && s.iter().any(|&v| v > 0.0));
        // Every 2-bit code value occurs, also in the padding (k >= 300).
        let layout = layout(&shape).unwrap();
        let packed = &case.inputs[mlp::GATE_B].as_ref().unwrap().data;
        let mut seen = [false; 4];
        let mut seen_pad = [false; 4];
        for n in 0..64 {
            for k in 0..304 {
                let c = layout.code_at(packed, n, k) as usize;
                if k < 300 {
                    seen[c] = true
                } else {
                    seen_pad[c] = true
                }
            }
        }
        assert_eq!((seen, seen_pad), ([true; 4], [true; 4]));
    }

    #[test]
    fn output_magnitude_is_order_one() {
        for (bits, dtype, norm) in [
            (2, DType::F32, false),
            (4, DType::F16, true),
            (8, DType::F32, true),
        ] {
            let shape = MlpShape {
                k: 512,
                n: 64,
                lead: vec![8],
                bits,
                dtype,
                norm,
                skip: norm,
                ..Default::default()
            };
            let y = generate(&shape, 0).run_reference().unwrap().y_f64;
            let max = y.iter().fold(0f64, |m, v| m.max(v.abs()));
            assert!((0.3..30.0).contains(&max), "bits {bits}: max|Y| = {max}");
        }
    }
}
