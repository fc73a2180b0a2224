//! Random, reproducible test cases for the operator, shared by every test, the CLI and the
//! benchmarks.
//!
//! A case is a function of its [`CaseSpec`] alone. Each input draws from its own ChaCha8 stream
//! (seeded by `seed`, stream = the input's ONNX index), so switching an optional input on or off
//! leaves the other inputs' values unchanged.
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
use nbits_mlp_core::{AttrValue, DType, MlpShape, Tensor};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CaseSpec {
    /// Inner dimension `K`.
    pub k: usize,
    /// Output features `N`.
    pub n: usize,
    /// Rows of A (all leading dimensions flattened); may be 0.
    pub rows: usize,
    /// A is `[1, rows, K]` (rank 3) instead of `[rows, K]`.
    pub rank3: bool,
    /// T1: float32 or float16.
    pub dtype: DType,
    /// Bits per code: 2, 4 or 8.
    pub bits: u32,
    /// Codes per quantization block.
    pub block_size: usize,
    /// Give the `skip` input.
    pub skip: bool,
    /// Give the `norm_scale` input.
    pub norm: bool,
    /// Request output 1 (`input_skip_bias_sum`).
    pub residual: bool,
    /// Give `gate_bias`.
    pub gate_bias: bool,
    /// Give `up_bias`.
    pub up_bias: bool,
    /// Seed of every random value.
    pub seed: u64,
}

impl Default for CaseSpec {
    /// K=64, N=32, 1 row, rank 2, float32, 4 bits, block 32, no optional input, seed 0.
    fn default() -> Self {
        CaseSpec {
            k: 64,
            n: 32,
            rows: 1,
            rank3: false,
            dtype: DType::F32,
            bits: 4,
            block_size: 32,
            skip: false,
            norm: false,
            residual: false,
            gate_bias: false,
            up_bias: false,
            seed: 0,
        }
    }
}

impl CaseSpec {
    /// The spec of a call of `shape`, every random value from `seed`. A is `[rows, K]` when
    /// `shape.lead` has one dimension, else `[1, rows, K]` (rows = the product of the leading
    /// dimensions).
    pub fn from_shape(shape: &MlpShape, seed: u64) -> CaseSpec {
        CaseSpec {
            k: shape.k,
            n: shape.n,
            rows: shape.rows(),
            rank3: shape.lead.len() > 1,
            dtype: shape.dtype,
            bits: shape.bits as u32,
            block_size: shape.block_size,
            skip: shape.skip,
            norm: shape.norm,
            residual: shape.residual,
            gate_bias: shape.gate_bias,
            up_bias: shape.up_bias,
            seed,
        }
    }

    /// The planner's shape of this spec (the inverse of [`CaseSpec::from_shape`]).
    pub fn shape(&self) -> MlpShape {
        MlpShape {
            k: self.k,
            n: self.n,
            lead: if self.rank3 {
                vec![1, self.rows]
            } else {
                vec![self.rows]
            },
            dtype: self.dtype,
            bits: self.bits as usize,
            block_size: self.block_size,
            skip: self.skip,
            norm: self.norm,
            residual: self.residual,
            gate_bias: self.gate_bias,
            up_bias: self.up_bias,
        }
    }

    /// The shape of A: `[rows, K]`, or `[1, rows, K]` when `rank3`.
    pub fn a_shape(&self) -> Vec<usize> {
        if self.rank3 {
            vec![1, self.rows, self.k]
        } else {
            vec![self.rows, self.k]
        }
    }
    /// The shape of Y: `[rows, N]`, or `[1, rows, N]` when `rank3`.
    pub fn y_shape(&self) -> Vec<usize> {
        let mut s = self.a_shape();
        *s.last_mut().expect("A has rank 2 or 3") = self.n;
        s
    }
    /// The weight layout; errors as [`Layout::new`].
    pub fn layout(&self) -> Result<Layout, RefError> {
        Layout::new(self.n, self.k, self.bits, self.block_size)
    }
    /// The node attributes: `K`, `N`, `bits`, `block_size`, `activation = "silu"` and
    /// `epsilon = 1e-5` (the float32 value an ONNX FLOAT attribute holds, widened).
    pub fn attrs(&self) -> IndexMap<String, AttrValue> {
        let int = |v: usize| AttrValue::Int(i64::try_from(v).unwrap_or(i64::MAX));
        IndexMap::from([
            ("K".to_string(), int(self.k)),
            ("N".to_string(), int(self.n)),
            ("bits".to_string(), AttrValue::Int(i64::from(self.bits))),
            ("block_size".to_string(), int(self.block_size)),
            ("activation".to_string(), AttrValue::Str("silu".into())),
            ("epsilon".to_string(), AttrValue::Float(f64::from(1e-5_f32))),
        ])
    }
}

/// A generated operator call.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Node attributes (see [`CaseSpec::attrs`]).
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
    /// Runs the float64 reference on this case.
    pub fn run_reference(&self) -> Result<MlpOutput, RefError> {
        let attrs = MlpAttrs::from_attrs(&self.attrs)?;
        mlp::run(&attrs, &self.input_refs(), self.want_residual)
    }
}

/// A generator for input `index`: its own stream of the spec's seed.
fn stream(spec: &CaseSpec, index: usize) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    rng.set_stream(index as u64);
    rng
}

/// A float tensor of `spec.dtype` with values uniform in `[lo, hi]`.
fn uniform(spec: &CaseSpec, index: usize, shape: Vec<usize>, lo: f32, hi: f32) -> Tensor {
    let mut rng = stream(spec, index);
    let values: Vec<f32> = (0..shape.iter().product())
        .map(|_| rng.gen_range(lo..=hi))
        .collect();
    Tensor::from_floats(spec.dtype, shape, &values)
}

/// Random packed weights: every byte uniform.
fn packed(spec: &CaseSpec, index: usize, layout: &Layout) -> Tensor {
    let mut rng = stream(spec, index);
    let mut bytes = vec![0u8; layout.packed_len()];
    rng.fill(&mut bytes[..]);
    Tensor::from_u8(layout.packed_shape(), bytes)
}

/// Random scales of random sign, magnitude `[0.5, 1.5] * sqrt(3) / (2^(bits-1) * sqrt(K))`.
fn scales(spec: &CaseSpec, index: usize, layout: &Layout) -> Tensor {
    let mut rng = stream(spec, index);
    let unit = 3f64.sqrt() / (f64::from(layout.zero_point()) * (spec.k as f64).sqrt());
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
    Tensor::from_floats(spec.dtype, layout.scales_shape(), &values)
}

/// Generates the case `spec` describes.
///
/// The combination of optional inputs is taken as given, even where the operator refuses it
/// (skip without norm, residual without skip), so error paths can be generated too.
///
/// # Panics
/// If the geometry is invalid (bits not 2, 4 or 8; block_size 0 or not filling whole bytes) or
/// `dtype` is not float32 or float16.
pub fn generate(spec: &CaseSpec) -> Case {
    assert!(
        matches!(spec.dtype, DType::F32 | DType::F16),
        "generate: T1 must be float32 or float16, got {}",
        spec.dtype
    );
    let layout = spec.layout().unwrap_or_else(|e| panic!("generate: {e}"));
    let a_shape = spec.a_shape();
    let optional = |given: bool, make: &dyn Fn() -> Tensor| given.then(make);
    let inputs = vec![
        Some(uniform(spec, mlp::A, a_shape.clone(), -1.0, 1.0)),
        optional(spec.skip, &|| {
            uniform(spec, mlp::SKIP, a_shape.clone(), -1.0, 1.0)
        }),
        optional(spec.norm, &|| {
            uniform(spec, mlp::NORM_SCALE, vec![spec.k], 0.5, 1.5)
        }),
        Some(packed(spec, mlp::GATE_B, &layout)),
        Some(scales(spec, mlp::GATE_SCALES, &layout)),
        optional(spec.gate_bias, &|| {
            uniform(spec, mlp::GATE_BIAS, vec![spec.n], -0.5, 0.5)
        }),
        Some(packed(spec, mlp::UP_B, &layout)),
        Some(scales(spec, mlp::UP_SCALES, &layout)),
        optional(spec.up_bias, &|| {
            uniform(spec, mlp::UP_BIAS, vec![spec.n], -0.5, 0.5)
        }),
    ];
    Case {
        attrs: spec.attrs(),
        inputs,
        want_residual: spec.residual,
    }
}

/// Bytes of the weights of a case: gate and up packed codes plus their scales in T1.
///
/// # Panics
/// If the geometry is invalid (as [`generate`]).
pub fn weight_bytes(spec: &CaseSpec) -> usize {
    let layout = spec
        .layout()
        .unwrap_or_else(|e| panic!("weight_bytes: {e}"));
    2 * (layout.packed_len() + layout.scales_len() * spec.dtype.size())
}

/// Host memory that [`generate`] and a reference run of the case take, in bytes: the inputs, the
/// outputs and the reference's float64 copies of the activations and of Y. `None` when the count
/// overflows 64 bits or the geometry is invalid, so callers can refuse absurd sizes before
/// allocating anything.
pub fn host_bytes(spec: &CaseSpec) -> Option<u64> {
    let layout = spec.layout().ok()?;
    let d = spec.dtype.size() as u64;
    let (k, n, rows) = (spec.k as u64, spec.n as u64, spec.rows as u64);
    let a = rows.checked_mul(k)?;
    let y = rows.checked_mul(n)?;
    let weights = 2 * (layout.packed_len() as u64 + layout.scales_len() as u64 * d);
    // A (+ skip) in T1, their float64 sum (+ the residual copy), Y in T1, Y and its error scale
    // in float64.
    let act = a.checked_mul(d * (1 + spec.skip as u64) + 8 * (1 + spec.residual as u64))?;
    let out = y.checked_mul(d + 16)?;
    act.checked_add(out)?.checked_add(weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_bytes_refuse_overflow() {
        let spec = CaseSpec::default();
        let b = host_bytes(&spec).unwrap();
        assert!(b > 64 * 4 && b < 1 << 20, "{b}");
        let huge = CaseSpec {
            rows: usize::MAX,
            ..CaseSpec::default()
        };
        assert_eq!(host_bytes(&huge), None);
    }

    #[test]
    fn shape_round_trip() {
        let spec = CaseSpec {
            k: 93,
            n: 5,
            rows: 3,
            rank3: true,
            dtype: DType::F16,
            bits: 2,
            block_size: 16,
            skip: true,
            norm: true,
            residual: true,
            up_bias: true,
            seed: 7,
            ..Default::default()
        };
        let shape = spec.shape();
        assert_eq!(shape.lead, vec![1, 3]);
        assert_eq!(CaseSpec::from_shape(&shape, 7), spec);
        // The planner's call and the generated case agree on every input's shape and dtype.
        let case = generate(&spec);
        let call = shape.call();
        let infos: Vec<_> = case
            .inputs
            .iter()
            .map(|t| t.as_ref().map(Tensor::info))
            .collect();
        assert_eq!(call.inputs, infos);
        let flat = CaseSpec::from_shape(&MlpShape::new(64, 32, 2), 0);
        assert!(!flat.rank3);
        assert_eq!(flat.shape(), MlpShape::new(64, 32, 2));
    }

    #[test]
    fn shapes_and_attrs() {
        let spec = CaseSpec {
            k: 93,
            n: 5,
            rows: 3,
            rank3: true,
            skip: true,
            norm: true,
            up_bias: true,
            ..Default::default()
        };
        let case = generate(&spec);
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
        assert_eq!(spec.y_shape(), vec![1, 3, 5]);
        let attrs = MlpAttrs::from_attrs(&case.attrs).unwrap();
        assert_eq!(
            (attrs.k, attrs.n, attrs.bits, attrs.block_size),
            (93, 5, 4, 32)
        );
        assert_eq!(attrs.epsilon, f64::from(1e-5f32));
        assert_eq!(case.attrs["activation"], AttrValue::Str("silu".into()));
        assert_eq!(weight_bytes(&spec), 2 * (5 * 3 * 16 + 5 * 3 * 4));
        let f16 = CaseSpec {
            dtype: DType::F16,
            ..spec
        };
        assert_eq!(weight_bytes(&f16), 2 * (5 * 3 * 16 + 5 * 3 * 2));
        assert!(generate(&f16)
            .inputs
            .iter()
            .flatten()
            .all(|t| t.dtype != DType::F32));
    }

    #[test]
    fn deterministic_and_independent_streams() {
        let spec = CaseSpec {
            k: 40,
            n: 9,
            rows: 2,
            block_size: 16,
            ..Default::default()
        };
        assert_eq!(generate(&spec), generate(&spec));
        let other_seed = generate(&CaseSpec {
            seed: 1,
            ..spec.clone()
        });
        assert_ne!(other_seed.inputs[0], generate(&spec).inputs[0]);
        // Optional inputs do not shift the other inputs' values.
        let full = generate(&CaseSpec {
            skip: true,
            norm: true,
            gate_bias: true,
            up_bias: true,
            ..spec.clone()
        });
        let bare = generate(&spec);
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
        let spec = CaseSpec {
            k: 300,
            n: 64,
            rows: 4,
            skip: true,
            norm: true,
            gate_bias: true,
            up_bias: true,
            bits: 2,
            block_size: 16,
            ..Default::default()
        };
        let case = generate(&spec);
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
        let layout = spec.layout().unwrap();
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
            let spec = CaseSpec {
                k: 512,
                n: 64,
                rows: 8,
                bits,
                dtype,
                norm,
                skip: norm,
                ..Default::default()
            };
            let y = generate(&spec).run_reference().unwrap().y_f64;
            let max = y.iter().fold(0f64, |m, v| m.max(v.abs()));
            assert!((0.3..30.0).contains(&max), "bits {bits}: max|Y| = {max}");
        }
    }
}
