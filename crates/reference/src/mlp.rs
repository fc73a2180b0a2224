//! The operator on the CPU in float64: the oracle every other implementation is checked against.
//!
//! ```text
//! S   = A + skip                                   (S = A without skip; output 1 is S rounded)
//! A_n = S / sqrt(mean_k(S^2) + epsilon) * norm_scale   (A_n = S without norm_scale)
//! W   = (code - 2^(bits-1)) * scale                (codes past K ignored)
//! g   = A_n . W_gate^T (+ gate_bias),  u = A_n . W_up^T (+ up_bias)
//! Y   = g * sigmoid(g) * u
//! ```
//!
//! Every input is widened exactly to f64 and everything is computed in f64; only the returned
//! tensors are rounded (correctly, see [`crate::round`]) to T1.

use crate::pack::Layout;
use crate::round::tensor_from_f64;
use crate::RefError;
use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, DType, Tensor};
use rayon::prelude::*;

/// ONNX names of the 9 inputs, in ONNX order (the op's, from the core).
pub use nbits_mlp_core::op::INPUT_NAMES;

/// Index of input `A`.
pub const A: usize = 0;
/// Index of input `skip`.
pub const SKIP: usize = 1;
/// Index of input `norm_scale`.
pub const NORM_SCALE: usize = 2;
/// Index of input `gate_B`.
pub const GATE_B: usize = 3;
/// Index of input `gate_scales`.
pub const GATE_SCALES: usize = 4;
/// Index of input `gate_bias`.
pub const GATE_BIAS: usize = 5;
/// Index of input `up_B`.
pub const UP_B: usize = 6;
/// Index of input `up_scales`.
pub const UP_SCALES: usize = 7;
/// Index of input `up_bias`.
pub const UP_BIAS: usize = 8;

/// Default of attribute `bits`.
pub const DEFAULT_BITS: u32 = 4;
/// Default of attribute `epsilon`.
pub const DEFAULT_EPSILON: f64 = 1e-5;

/// The operator's attributes, defaults applied and checked.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MlpAttrs {
    /// Inner dimension (`K`, last dimension of A).
    pub k: usize,
    /// Output features (`N`).
    pub n: usize,
    /// Bits per weight code: 2, 4 or 8.
    pub bits: u32,
    /// Codes per quantization block along K.
    pub block_size: usize,
    /// RMSNorm epsilon.
    pub epsilon: f64,
}

impl MlpAttrs {
    /// Reads the node's attributes: `K`, `N`, `block_size`, `activation` are required;
    /// `bits` defaults to 4, `epsilon` to 1e-5, `accuracy_level` to 0.
    ///
    /// Errors: a missing required attribute (named); a value of the wrong kind; `K`, `N` or
    /// `block_size` not positive; `activation` not `"silu"`; `bits` not 2, 4 or 8;
    /// `accuracy_level` not 0; `block_size * bits` not a multiple of 8. Unknown attributes are
    /// ignored.
    pub fn from_attrs(attrs: &IndexMap<String, AttrValue>) -> Result<MlpAttrs, RefError> {
        let int = |name: &'static str| -> Result<Option<i64>, RefError> {
            match attrs.get(name) {
                None => Ok(None),
                Some(AttrValue::Int(v)) => Ok(Some(*v)),
                Some(other) => Err(RefError::BadAttribute {
                    name,
                    reason: format!("must be an integer, got {other:?}"),
                }),
            }
        };
        let positive = |name: &'static str| -> Result<usize, RefError> {
            let v = int(name)?.ok_or(RefError::MissingAttribute(name))?;
            usize::try_from(v)
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(|| RefError::BadAttribute {
                    name,
                    reason: format!("must be > 0, got {v}"),
                })
        };
        let k = positive("K")?;
        let n = positive("N")?;
        let block_size = positive("block_size")?;
        match attrs.get("activation") {
            None => return Err(RefError::MissingAttribute("activation")),
            Some(AttrValue::Str(s)) if s == "silu" => {}
            Some(other) => {
                return Err(RefError::BadAttribute {
                    name: "activation",
                    reason: format!("only \"silu\" is supported, got {other:?}"),
                })
            }
        }
        let bits = match int("bits")? {
            None => DEFAULT_BITS,
            Some(v @ (2 | 4 | 8)) => v as u32,
            Some(v) => return Err(RefError::UnsupportedBits(v)),
        };
        match int("accuracy_level")? {
            None | Some(0) => {}
            Some(v) => {
                return Err(RefError::BadAttribute {
                    name: "accuracy_level",
                    reason: format!("only 0 is supported, got {v}"),
                })
            }
        }
        let epsilon = match attrs.get("epsilon") {
            None => DEFAULT_EPSILON,
            Some(v) => v.as_float().ok_or_else(|| RefError::BadAttribute {
                name: "epsilon",
                reason: format!("must be a float, got {v:?}"),
            })?,
        };
        let attrs = MlpAttrs {
            k,
            n,
            bits,
            block_size,
            epsilon,
        };
        attrs.layout()?;
        Ok(attrs)
    }

    /// The weight layout (`[N, k_blocks, blob_size]`) these attributes describe, after checking
    /// them again (the fields are public): `K > 0`, `N > 0`, supported bits and block_size.
    pub fn layout(&self) -> Result<Layout, RefError> {
        if self.k == 0 {
            return Err(RefError::BadAttribute {
                name: "K",
                reason: "must be > 0, got 0".into(),
            });
        }
        if self.n == 0 {
            return Err(RefError::BadAttribute {
                name: "N",
                reason: "must be > 0, got 0".into(),
            });
        }
        if self
            .n
            .checked_mul(self.k)
            .and_then(|nk| nk.checked_mul(8))
            .is_none()
        {
            return Err(RefError::BadAttribute {
                name: "N",
                reason: format!(
                    "N={} times K={} weights do not fit in memory",
                    self.n, self.k
                ),
            });
        }
        // What Layout::new can still refuse is down to block_size (and bits, reported as such).
        Layout::new(self.n, self.k, self.bits, self.block_size).map_err(|e| match e {
            RefError::BadArgument(reason) => RefError::BadAttribute {
                name: "block_size",
                reason,
            },
            other => other,
        })
    }
}

/// What [`run`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct MlpOutput {
    /// Output 0, `Y`: shape `A.shape[:-1] + [N]`, T1, correctly rounded from `y_f64`.
    pub y: Tensor,
    /// Output 1, `input_skip_bias_sum` (`A + skip`, shape of A, T1), when requested.
    pub residual: Option<Tensor>,
    /// `Y` before rounding, row-major.
    pub y_f64: Vec<f64>,
    /// `A + skip` before rounding, when requested.
    pub residual_f64: Option<Vec<f64>>,
    /// Per element of `Y` (row-major), how much it moves when every product of its two dot
    /// products moves by its own size: `|dY/dg| * sum_k |x_k w_gate,k| + |dY/du| * sum_k |x_k
    /// w_up,k|` (`g`, `u` the gate and up sums). Errors of reduced-precision accumulation are
    /// proportional to this, not to `Y`, which cancellation can make arbitrarily small
    /// ([`crate::compare::check_scaled`]).
    pub y_err_scale: Vec<f64>,
}

/// Output features computed per parallel task: their dequantized gate and up rows
/// (`2 * TILE_N * K` f64, 256 KiB at K = 4096) stay in a core's L2 cache while every row of A_n
/// passes by.
const TILE_N: usize = 4;

/// Runs the operator.
///
/// `inputs` are in ONNX order (see [`INPUT_NAMES`]), `None` for an omitted optional input; a
/// shorter list means the trailing inputs are omitted. `want_residual` requests output 1
/// (`input_skip_bias_sum`), which needs `skip`.
///
/// Errors (never panics on bad input): a missing required input, more than 9 inputs, a tensor
/// whose bytes do not match its shape, wrong dtypes (T1 must be float32 or float16 and shared by
/// every float input; weights uint8), wrong shapes (A rank 2 or 3 with last dimension K; skip
/// like A; norm_scale `[K]`; weights `[N, k_blocks, blob_size]`; scales `[N, k_blocks]`; biases
/// `[N]`), skip without norm_scale, output 1 without skip, bad attributes.
///
/// Multi-threaded with rayon (over tiles of output columns); the result does not depend on the
/// number of threads.
pub fn run(
    attrs: &MlpAttrs,
    inputs: &[Option<&Tensor>],
    want_residual: bool,
) -> Result<MlpOutput, RefError> {
    let v = validate(attrs, inputs, want_residual)?;
    let k = attrs.k;
    let n = attrs.n;
    let a = v.a;
    let dtype = a.dtype;
    let rows = a.numel() / k;

    // Residual sum, in float32 as ONNX Runtime computes it (exact for float16 inputs; a sum
    // past float32's range is an infinity, as on every kernel).
    let mut x = a.to_f64();
    if let Some(skip) = v.skip {
        for (x, s) in x.iter_mut().zip(skip.to_f64()) {
            *x = (*x + s) as f32 as f64;
        }
    }
    let residual_f64 = want_residual.then(|| x.clone());

    // RMSNorm over the last axis.
    if let Some(norm) = v.norm_scale {
        let gamma = norm.to_f64();
        x.par_chunks_mut(k).for_each(|row| {
            let inv_rms = inverse_rms(row, attrs.epsilon);
            for (v, g) in row.iter_mut().zip(&gamma) {
                *v = *v * inv_rms * g;
            }
        });
    }

    let gate = Weights::new(v.gate_b, v.gate_scales, v.gate_bias);
    let up = Weights::new(v.up_b, v.up_scales, v.up_bias);
    let (y_f64, y_err_scale) = if rows == 0 {
        (Vec::new(), Vec::new())
    } else {
        gate_up(&v.layout, &x, rows, &gate, &up)
    };

    let mut y_shape = a.shape[..a.shape.len() - 1].to_vec();
    y_shape.push(n);
    let y = tensor_from_f64(dtype, y_shape, &y_f64);
    let residual = residual_f64
        .as_ref()
        .map(|r| tensor_from_f64(dtype, a.shape.clone(), r));
    Ok(MlpOutput {
        y,
        residual,
        y_f64,
        residual_f64,
        y_err_scale,
    })
}

/// `1 / sqrt(mean(row^2) + epsilon)`, with ONNX Runtime's float32 overflow semantics (its CPU
/// and WebGPU kernels accumulate the sum of squares in float32): a row whose sum of squares
/// exceeds float32's range has an infinite mean square, so its inverse RMS is 0 and the row
/// normalises to zeros (NaN where an element itself is infinite); a NaN anywhere gives NaN.
/// Below that, the sum is exact in float64 (the kernels' float32 rounding is within tolerance).
pub fn inverse_rms(row: &[f64], epsilon: f64) -> f64 {
    let sum_sq = row.iter().map(|v| v * v).sum::<f64>();
    if sum_sq.is_nan() {
        f64::NAN
    } else if sum_sq > f32::MAX as f64 {
        0.0
    } else {
        1.0 / (sum_sq / row.len() as f64 + epsilon).sqrt()
    }
}

/// Checks a call as [`run`] does before computing anything, and returns the error `run` would
/// return for it, if any: the same arguments, no result. A caller that plans elsewhere (the GPU
/// path) uses it to tell an invalid call from one the device cannot run.
pub fn check_call(
    attrs: &MlpAttrs,
    inputs: &[Option<&Tensor>],
    want_residual: bool,
) -> Result<(), RefError> {
    validate(attrs, inputs, want_residual).map(|_| ())
}

/// One projection's packed weights, with scales and bias widened to f64.
struct Weights<'a> {
    packed: &'a [u8],
    scales: Vec<f64>,
    bias: Option<Vec<f64>>,
}

impl<'a> Weights<'a> {
    fn new(packed: &'a Tensor, scales: &Tensor, bias: Option<&Tensor>) -> Self {
        Weights {
            packed: &packed.data,
            scales: scales.to_f64(),
            bias: bias.map(Tensor::to_f64),
        }
    }
    /// Dequantizes weight row `col` into `out` (`K` values).
    fn dequantize_row(&self, layout: &Layout, col: usize, out: &mut [f64]) {
        let rb = layout.row_bytes();
        let kb = layout.k_blocks();
        layout.dequantize_row(
            &self.packed[col * rb..(col + 1) * rb],
            &self.scales[col * kb..(col + 1) * kb],
            out,
        );
    }
    /// The bias of output `col` (0 without bias).
    fn bias(&self, col: usize) -> f64 {
        self.bias.as_ref().map_or(0.0, |b| b[col])
    }
}

/// `Y[r, c] = silu(x_r . W_gate[c] + gb[c]) * (x_r . W_up[c] + ub[c])` for all rows and columns,
/// in parallel over tiles of columns; returns Y `[rows, N]` row-major and, per element, its
/// error scale ([`MlpOutput::y_err_scale`]).
fn gate_up(
    layout: &Layout,
    x: &[f64],
    rows: usize,
    gate: &Weights,
    up: &Weights,
) -> (Vec<f64>, Vec<f64>) {
    let k = layout.k();
    let n = layout.n();
    // Column-major while computing ([N, rows]) so each task owns a contiguous chunk; each entry
    // is (Y, its error scale).
    let mut y_t = vec![(0f64, 0f64); n * rows];
    y_t.par_chunks_mut(TILE_N * rows).enumerate().for_each_init(
        || (vec![0f64; TILE_N * k], vec![0f64; TILE_N * k]),
        |(wg, wu), (tile, out)| {
            let c0 = tile * TILE_N;
            let cols = out.len() / rows;
            for c in 0..cols {
                gate.dequantize_row(layout, c0 + c, &mut wg[c * k..(c + 1) * k]);
                up.dequantize_row(layout, c0 + c, &mut wu[c * k..(c + 1) * k]);
            }
            for (r, xr) in x.chunks_exact(k).enumerate() {
                for c in 0..cols {
                    let (wgc, wuc) = (&wg[c * k..(c + 1) * k], &wu[c * k..(c + 1) * k]);
                    let (g, u) = dot2(xr, wgc, wuc);
                    let (g, u) = (g + gate.bias(c0 + c), u + up.bias(c0 + c));
                    let (ga, ua) = dot2_abs(xr, wgc, wuc);
                    let s = sigmoid(g);
                    let silu_g = g * s;
                    let dg = s * (1.0 + g * (1.0 - s)) * u;
                    out[c * rows + r] = (silu_g * u, dg.abs() * ga + silu_g.abs() * ua);
                }
            }
        },
    );
    let mut y = vec![0f64; rows * n];
    let mut scale = vec![0f64; rows * n];
    for (c, col) in y_t.chunks_exact(rows).enumerate() {
        for (r, &(v, e)) in col.iter().enumerate() {
            y[r * n + c] = v;
            scale[r * n + c] = e;
        }
    }
    (y, scale)
}

/// `1 / (1 + exp(-g))`; `silu(g) = g * sigmoid(g)`.
fn sigmoid(g: f64) -> f64 {
    1.0 / (1.0 + (-g).exp())
}

/// `(sum |x_k a_k|, sum |x_k b_k|)`.
fn dot2_abs(x: &[f64], a: &[f64], b: &[f64]) -> (f64, f64) {
    x.iter()
        .zip(a.iter().zip(b))
        .fold((0.0, 0.0), |(sa, sb), (x, (a, b))| {
            (sa + (x * a).abs(), sb + (x * b).abs())
        })
}

/// Two dot products sharing `x`: `(x . a, x . b)`.
///
/// Uses AVX where the CPU has it: wider vectors, but the same operations in the same order for
/// every partial sum, so the same result bit for bit (no FMA contraction).
fn dot2(x: &[f64], a: &[f64], b: &[f64]) -> (f64, f64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU supports AVX, checked just above.
        return unsafe { dot2_avx(x, a, b) };
    }
    dot2_portable(x, a, b)
}

/// [`dot2_portable`] compiled for AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn dot2_avx(x: &[f64], a: &[f64], b: &[f64]) -> (f64, f64) {
    dot2_portable(x, a, b)
}

/// [`dot2`] with `L` independent partial sums per product so that the loop vectorizes.
#[inline(always)]
fn dot2_portable(x: &[f64], a: &[f64], b: &[f64]) -> (f64, f64) {
    const L: usize = 8;
    let mut sa = [0f64; L];
    let mut sb = [0f64; L];
    let xc = x.chunks_exact(L);
    let tail = x.len() / L * L;
    let (xr, ar, br) = (xc.remainder(), &a[tail..x.len()], &b[tail..x.len()]);
    for ((xc, ac), bc) in xc.zip(a.chunks_exact(L)).zip(b.chunks_exact(L)) {
        for i in 0..L {
            sa[i] += xc[i] * ac[i];
            sb[i] += xc[i] * bc[i];
        }
    }
    for i in 0..xr.len() {
        sa[i] += xr[i] * ar[i];
        sb[i] += xr[i] * br[i];
    }
    (sa.iter().sum(), sb.iter().sum())
}

/// The inputs after validation.
struct Validated<'a> {
    layout: Layout,
    a: &'a Tensor,
    skip: Option<&'a Tensor>,
    norm_scale: Option<&'a Tensor>,
    gate_b: &'a Tensor,
    gate_scales: &'a Tensor,
    gate_bias: Option<&'a Tensor>,
    up_b: &'a Tensor,
    up_scales: &'a Tensor,
    up_bias: Option<&'a Tensor>,
}

fn bad(name: &'static str, message: String) -> RefError {
    RefError::BadInput { name, message }
}

/// Checks a shape, naming the tensor and what the dimensions mean.
fn expect_shape(
    name: &'static str,
    got: &[usize],
    want: &[usize],
    meaning: &str,
) -> Result<(), RefError> {
    if got == want {
        Ok(())
    } else {
        Err(bad(
            name,
            format!("{name}: expected shape {want:?} ({meaning}), got {got:?}"),
        ))
    }
}

fn validate<'a>(
    attrs: &MlpAttrs,
    inputs: &[Option<&'a Tensor>],
    want_residual: bool,
) -> Result<Validated<'a>, RefError> {
    if inputs.len() > INPUT_NAMES.len() {
        return Err(RefError::TooManyInputs(inputs.len()));
    }
    let layout = attrs.layout()?;
    let (k, n) = (attrs.k, attrs.n);
    let get = |i: usize| inputs.get(i).copied().flatten();
    let required = |i: usize| get(i).ok_or(RefError::MissingInput(INPUT_NAMES[i]));

    // Presence, then byte lengths of everything present.
    let a = required(A)?;
    let gate_b = required(GATE_B)?;
    let gate_scales = required(GATE_SCALES)?;
    let up_b = required(UP_B)?;
    let up_scales = required(UP_SCALES)?;
    for (i, name) in INPUT_NAMES.iter().enumerate() {
        if let Some(t) = get(i) {
            let want = t
                .shape
                .iter()
                .try_fold(t.dtype.size(), |acc, &d| acc.checked_mul(d));
            if want != Some(t.data.len()) {
                let want =
                    want.map_or_else(|| "more than fits in memory".to_string(), |w| w.to_string());
                return Err(bad(
                    name,
                    format!(
                        "{name}: data holds {} bytes but {} {:?} needs {want}",
                        t.data.len(),
                        t.dtype,
                        t.shape
                    ),
                ));
            }
        }
    }

    // Types.
    let t1 = a.dtype;
    if !matches!(t1, DType::F32 | DType::F16) {
        return Err(bad(
            "A",
            format!("A: T1 must be float32 or float16, got {t1}"),
        ));
    }
    for i in [SKIP, NORM_SCALE, GATE_SCALES, GATE_BIAS, UP_SCALES, UP_BIAS] {
        if let Some(t) = get(i) {
            if t.dtype != t1 {
                return Err(RefError::TypeMismatch {
                    first: "A",
                    first_dtype: t1.name(),
                    second: INPUT_NAMES[i],
                    second_dtype: t.dtype.name(),
                });
            }
        }
    }
    for i in [GATE_B, UP_B] {
        let t = required(i)?;
        if t.dtype != DType::U8 {
            let name = INPUT_NAMES[i];
            return Err(bad(
                name,
                format!("{name}: expected uint8, got {}", t.dtype),
            ));
        }
    }

    // Parameters must be finite (the op's semantics, shared with every backend), in the GPU
    // runtime's words (`input i `name`: ...`), so every backend refuses them alike.
    if let Some((index, name, message)) = nbits_mlp_core::op::non_finite_parameter(inputs) {
        return Err(bad(name, format!("input {index} `{name}`: {message}")));
    }

    // Shapes.
    if !matches!(a.shape.len(), 2 | 3) {
        return Err(bad(
            "A",
            format!("A: rank must be 2 or 3, got shape {:?}", a.shape),
        ));
    }
    if a.shape.last() != Some(&k) {
        return Err(bad(
            "A",
            format!("A: last dimension must be K={k}, got shape {:?}", a.shape),
        ));
    }
    let skip = get(SKIP);
    let norm_scale = get(NORM_SCALE);
    if skip.is_some() && norm_scale.is_none() {
        return Err(RefError::SkipWithoutNorm);
    }
    if want_residual && skip.is_none() {
        return Err(RefError::ResidualWithoutSkip);
    }
    if let Some(skip) = skip {
        expect_shape("skip", &skip.shape, &a.shape, "the shape of A")?;
    }
    if let Some(norm) = norm_scale {
        if norm.shape != [k] {
            return Err(bad(
                "norm_scale",
                format!("norm_scale must have shape [K]=[{k}], got {:?}", norm.shape),
            ));
        }
    }
    let kb = layout.k_blocks();
    let blob = layout.blob_size();
    let weight_meaning = format!(
        "[N, k_blocks, blob_size] for N={n}, K={k}, block_size={}, bits={}",
        attrs.block_size, attrs.bits
    );
    let scale_meaning = format!(
        "[N, k_blocks] for N={n}, K={k}, block_size={}",
        attrs.block_size
    );
    for (i, want, meaning) in [
        (GATE_B, layout.packed_shape(), &weight_meaning),
        (UP_B, layout.packed_shape(), &weight_meaning),
        (GATE_SCALES, vec![n, kb], &scale_meaning),
        (UP_SCALES, vec![n, kb], &scale_meaning),
    ] {
        expect_shape(INPUT_NAMES[i], &required(i)?.shape, &want, meaning)?;
    }
    debug_assert_eq!(layout.packed_shape(), vec![n, kb, blob]);
    for i in [GATE_BIAS, UP_BIAS] {
        if let Some(t) = get(i) {
            expect_shape(
                INPUT_NAMES[i],
                &t.shape,
                &[n],
                &format!("[N] where N = {n}"),
            )?;
        }
    }
    let rows = a.numel() / k;
    if rows.checked_mul(n).is_none() {
        return Err(bad(
            "A",
            format!("A: {rows} rows times N={n} outputs do not fit in memory"),
        ));
    }

    Ok(Validated {
        layout,
        a,
        skip,
        norm_scale,
        gate_b,
        gate_scales,
        gate_bias: get(GATE_BIAS),
        up_b,
        up_scales,
        up_bias: get(UP_BIAS),
    })
}
