//! What a plan's float16 staging can hold of a call's values, and what to plan with when a
//! call's values do not fit (docs/DESIGN.md, "Edge values and the legal space").
//!
//! Four kinds of kernels keep values in float16 where the op's semantics do not round them:
//!
//! - the float32 forms of the tensor-core kernels stage float32 values as float16 hi / lo pairs
//!   ([`Plan::f16_pairs`]), exact below [`F16_PAIR_LIMIT`];
//! - the float16 ALU kernels that accumulate in float16 ([`Plan::f16_accumulation`]: the gemv
//!   with `GEMV_F16_MATH`, the few-rows kernel) sum up to [`F16_SUM_TERMS`] products of an
//!   activation and a code offset in one float16 accumulator: past float16's range such a sum is
//!   an infinity, and products of activations in float16's subnormal range lose the relative
//!   precision the float16-accumulation tolerance counts on;
//! - the float16 forms of the tensor-core kernels stage dequantised weights,
//!   `(code - zero) * scale`, as float16 ([`Plan::f16_weights`]): scales past float16's largest
//!   value over the code offset make them infinities;
//! - the norm forms of float16 calls hold the normalised rows as float16 on most kernels
//!   ([`Plan::f16_norm_rows`]): an element past float16's largest value is an infinity there,
//!   which a norm_scale of more than 65504 / sqrt(K) allows (1024 at K 4096).
//!
//! [`values_fault`] says whether a call's [`Magnitudes`] fit a plan, naming the input at fault
//! and the tunables that plan the call without the kernels at fault; [`plan_for_values`] plans
//! again until they fit. Every runner of host values goes through it (the GPU runtime's `run`,
//! the CLI, the Python package, the ONNX Runtime custom op); `run_plan` refuses a plan whose
//! values do not fit.

use crate::op::INPUT_NAMES;
use crate::{Plan, Tensor, Tunables};

/// The magnitude from which float32 values staged as float16 hi / lo pairs (the float32 forms
/// of the tensor-core kernels: hi is the value with its mantissa cut to 10 bits, lo is
/// `(value - hi) * 2^11`, both float16) are no longer held: 2^15, where lo can pass float16's
/// largest finite value (hi does from 2^16).
pub const F16_PAIR_LIMIT: f64 = 32768.0;

/// The tunables with which no kernel stages float32 values as float16 pairs (`COOP_F32` 0,
/// `MMA_F32_MAX_ROWS` 0): the float32 ALU kernels take those calls instead.
pub fn without_f16_pairs(tunables: &Tunables) -> Tunables {
    let mut t = tunables.clone();
    t.insert("COOP_F32".into(), 0);
    t.insert("MMA_F32_MAX_ROWS".into(), 0);
    t
}

/// The magnitudes of a call's values that a plan's float16 staging must hold
/// ([`f16_pair_fault`], [`f16_range_fault`], [`f16_norm_fault`]): A's largest finite value (read
/// only for the plain forms of plans with float16 pairs: the norm forms' pairs hold normalised
/// rows), norm_scale's,
/// the two scales tensors' (ONNX inputs 0, 2, 4, 7), and the activations' range for plans that
/// sum in float16.
/// Callers that upload the parameters once (the Python package, the ONNX Runtime custom op)
/// keep theirs from that upload and read A's at each call.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Magnitudes {
    /// A's largest finite magnitude.
    pub a: f64,
    /// norm_scale's, when the call has it.
    pub norm_scale: Option<f64>,
    /// gate_scales' and up_scales'.
    pub scales: [f64; 2],
    /// The activations' range the float16 sums need ([`f16_range_fault`]), where it was read
    /// (plans that accumulate in float16); `None`: not read.
    pub act: Option<ActivationRange>,
}

impl Magnitudes {
    /// The magnitudes `plan`'s checks read ([`values_fault`]), each read only where one does:
    /// `largest(i)` gives ONNX input `i`'s largest finite magnitude (`None` where the call has
    /// no such input): A's (plain forms with float16 pairs) and norm_scale's (float16 pairs or
    /// float16 normalised rows),
    /// the scales' (weights staged in float16: millions of values in a large layer, read for no
    /// other plan); `act` the activations' range (float16 sums). A plan without float16 staging
    /// reads nothing.
    pub fn read(
        plan: &Plan,
        largest: impl Fn(usize) -> Option<f64>,
        act: impl FnOnce() -> ActivationRange,
    ) -> Magnitudes {
        let mut m = Magnitudes::default();
        if plan.f16_pairs() || plan.f16_norm_rows() {
            m.norm_scale = largest(2);
        }
        if plan.f16_pairs() && m.norm_scale.is_none() {
            m.a = largest(0).unwrap_or(0.0);
        }
        if plan.f16_pair_weights() || plan.f16_weights() {
            m.scales = [largest(4).unwrap_or(0.0), largest(7).unwrap_or(0.0)];
        }
        if plan.f16_accumulation() {
            m.act = Some(act());
        }
        m
    }

    /// ONNX input `index`'s largest magnitude as these magnitudes hold it (A, norm_scale and the
    /// two scales tensors; `None` for the others and for an absent norm_scale): what callers
    /// that keep the parameters' magnitudes from an upload give [`Magnitudes::read`].
    pub fn of_input(&self, index: usize) -> Option<f64> {
        match index {
            0 => Some(self.a),
            2 => self.norm_scale,
            4 => Some(self.scales[0]),
            7 => Some(self.scales[1]),
            _ => None,
        }
    }

    /// The parameters' magnitudes of `inputs` (ONNX order), A's left 0.
    pub fn of_parameters(inputs: &[Option<&Tensor>]) -> Magnitudes {
        let largest = |index: usize| {
            inputs
                .get(index)
                .copied()
                .flatten()
                .map(Tensor::max_finite_abs)
        };
        Magnitudes {
            a: 0.0,
            norm_scale: largest(2),
            scales: [largest(4).unwrap_or(0.0), largest(7).unwrap_or(0.0)],
            act: None,
        }
    }
}

/// Whether values of magnitudes `m` fit a plan that stages float32 values as float16 hi / lo
/// pairs: `None` when they do (or the plan stages none), else `(ONNX input index, message)` for
/// the input at fault, the message starting with its name. The activations the pairs hold are
/// A's values in the plain forms (non-finite values propagate as IEEE arithmetic gives and are
/// not counted) and the normalised rows in the norm forms, bounded by sqrt(K) times
/// norm_scale's largest magnitude (each element of a row is at most sqrt(K) times the row's
/// root mean square); where the dequantised weights are staged as pairs too
/// ([`Plan::f16_pair_weights`]), the scales times the largest code offset, 2^(bits - 1).
pub fn f16_pair_fault(plan: &Plan, m: &Magnitudes) -> Option<(usize, String)> {
    if !plan.f16_pairs() {
        return None;
    }
    let limit = F16_PAIR_LIMIT;
    let why = |what: String| {
        format!(
            "{what}, which plan `{}` cannot hold (it stages float32 values as float16 hi / lo \
             pairs, exact below {limit}): plan with COOP_F32=0 and MMA_F32_MAX_ROWS=0 (the GPU \
             runtime's `run`, the Python package and the ONNX Runtime custom op do)",
            plan.variant
        )
    };
    match m.norm_scale {
        Some(g) if normalised_bound(plan, g) >= limit => {
            return Some((
                2,
                why(format!(
                    "norm_scale's largest magnitude {g} bounds the normalised activations at \
                     sqrt(K) times it, {:e}",
                    normalised_bound(plan, g)
                )),
            ));
        }
        None if m.a >= limit => {
            return Some((0, why(format!("A holds a magnitude of {:e}", m.a))));
        }
        _ => {}
    }
    if plan.f16_pair_weights() {
        let (_, offset) = code_offset(plan);
        for (index, s) in [4, 7].into_iter().zip(m.scales) {
            if s * offset >= limit {
                return Some((
                    index,
                    why(format!(
                        "{} times the largest code offset ({offset}) reaches {:e}",
                        INPUT_NAMES[index],
                        s * offset
                    )),
                ));
            }
        }
    }
    None
}

/// float16's largest finite value.
pub const F16_MAX: f64 = 65504.0;

/// The most products of an activation and a code offset that a float16-accumulating kernel
/// ([`Plan::f16_accumulation`]) sums in one float16 accumulator before float32 takes over: the
/// gemv's packed pairs hold 16 per half and 32-code unit, the few-rows kernel's 16 per half and
/// segment of at most 32 codes (templates `mlp-gemv`, `mlp-gemvp`).
pub const F16_SUM_TERMS: usize = 16;

/// The bound below which such a sum stays: 2^15, half of float16's range (the sum's own
/// roundings and the bound's f64 arithmetic stay far inside the other half).
pub const F16_SUM_LIMIT: f64 = 32768.0;

/// The smallest mean activation magnitude of a row (after the norm) at which a kernel that
/// accumulates in float16 keeps the float16-accumulation tolerance, for `bits`-bit codes.
///
/// The gemv multiplies activations pre-scaled by 2^-o (o up to 8 / 4 / 0 for 2- / 4- / 8-bit
/// codes, the bit offset its decode leaves on a code) in float16, so an activation below
/// 2^(o - 14) is a subnormal float16 there, rounded to 2^(o - 25) absolute instead of 2^-11
/// relative. Summed over a dot product those roundings stay below the tolerance's 2^-9 of
/// `sum |a w|` while a row's mean `|a|` times its mean code offset (2^(bits - 2)) is at least
/// about 2^(o - 16); this floor is four times that, 2^(o - 12 - bits). A float16 row whose mean
/// magnitude is below it (4-bit codes: 2.4e-4) is planned without float16 accumulation.
pub fn f16_sum_floor(bits: u32) -> f64 {
    let o: i32 = match bits {
        2 => 8,
        4 => 4,
        _ => 0,
    };
    2f64.powi(o - 12 - bits as i32)
}

/// The tunables with which no kernel accumulates in float16 (`GEMV_F16_MATH` 0: the gemv in
/// float32; `GEMVP_MAX_ROWS` 0: no few-rows kernel).
pub fn without_f16_sums(tunables: &Tunables) -> Tunables {
    let mut t = tunables.clone();
    t.insert("GEMV_F16_MATH".into(), 0);
    t.insert("GEMVP_MAX_ROWS".into(), 0);
    t
}

/// The tunables with which no kernel holds the normalised rows of a float16 call as float16
/// ([`without_f16_weights`]: no tensor-core kernel on float16 calls; `GEMVP_MAX_ROWS` 0: no
/// few-rows kernel; `GEMV_F16_MATH` 0 and `GEMV_INLINE_NORM` 1: the single-row gemv in float32
/// with its norm inline): the seed's RMSNorm pass writes float32 rows for the kernels left.
pub fn without_f16_norm_rows(tunables: &Tunables) -> Tunables {
    let mut t = without_f16_weights(tunables);
    t.insert("GEMVP_MAX_ROWS".into(), 0);
    t.insert("GEMV_F16_MATH".into(), 0);
    t.insert("GEMV_INLINE_NORM".into(), 1);
    t
}

/// Whether a call's norm_scale (magnitudes `m`) fits a plan that holds the normalised rows as
/// float16 ([`Plan::f16_norm_rows`]): `None` when it does (or the plan holds none), else
/// `(2, message)`, naming norm_scale. Below [`F16_MAX`] the bound on a normalised row's
/// elements (`normalised_bound`: sqrt(K) times norm_scale's largest magnitude) no row can
/// overflow; past it one can (a row with one large value does), and the call is planned with
/// float32 rows.
pub fn f16_norm_fault(plan: &Plan, m: &Magnitudes) -> Option<(usize, String)> {
    if !plan.f16_norm_rows() {
        return None;
    }
    let g = m.norm_scale?;
    let bound = normalised_bound(plan, g);
    (bound >= F16_MAX).then(|| {
        (
            2,
            format!(
                "norm_scale's largest magnitude {g} bounds the normalised activations at sqrt(K) \
                 times it, {bound:e}, past float16's largest value, which plan `{}` cannot hold \
                 (it holds the normalised rows as float16, where such an element is an \
                 infinity): plan with MMA_MIN_ROWS=65535, MMAL_MIN_ROWS=0, COOP_F16=0, \
                 GEMVP_MAX_ROWS=0, GEMV_F16_MATH=0 and GEMV_INLINE_NORM=1 (the GPU runtime's \
                 `run`, the Python package and the ONNX Runtime custom op do)",
                plan.variant
            ),
        )
    })
}

/// The tunables with which no kernel stages dequantised weights as float16 (`MMA_MIN_ROWS`
/// 65535: no weights-once tensor-core kernel takes a float16 call; `MMAL_MIN_ROWS` 0: no
/// large-tile kernel; `COOP_F16` 0: no `coop_*` on float16 models).
pub fn without_f16_weights(tunables: &Tunables) -> Tunables {
    let mut t = tunables.clone();
    t.insert("MMA_MIN_ROWS".into(), 65535);
    t.insert("MMAL_MIN_ROWS".into(), 0);
    t.insert("COOP_F16".into(), 0);
    t
}

/// The range of a call's activations, as the kernels multiply them (A, plus skip, normalised and
/// times norm_scale where the call has the norm), that float16 sums must hold
/// ([`f16_range_fault`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActivationRange {
    /// Over the rows, the largest sum of a row's [`F16_SUM_TERMS`] largest finite magnitudes
    /// (for a row where 16 times its largest magnitude stays below 256, that bound instead: no
    /// code offset, at most 128, takes it to [`F16_SUM_LIMIT`], and the exact sum costs a
    /// second read of the row).
    pub top_sum: f64,
    /// The smallest mean finite magnitude of a row that is not all zeros (infinity when every
    /// row is).
    pub row_mean_min: f64,
}

impl ActivationRange {
    /// The range of the activations of a call of K `k` on host tensors: `a` (`[..., K]`), `skip`
    /// (like `a`, added in float32 as the op does), `norm_scale` (`[K]`; with it each row is
    /// normalised by its root mean square, `epsilon` added, a row whose float32 sum of squares
    /// overflows normalising to zeros as the kernels do). Non-finite values are not counted
    /// (they propagate as IEEE arithmetic gives).
    pub fn of(
        k: usize,
        epsilon: f64,
        a: &Tensor,
        skip: Option<&Tensor>,
        norm_scale: Option<&Tensor>,
    ) -> ActivationRange {
        let mut range = ActivationRange {
            top_sum: 0.0,
            row_mean_min: f64::INFINITY,
        };
        if k == 0 {
            return range;
        }
        // K values of norm_scale (a shorter tensor, which no valid call has, reads as ones past
        // its end; nothing here panics on tensors that do not match the call).
        let gamma: Option<Vec<f32>> = norm_scale.map(|g| {
            let mut v = vec![1f32; k];
            values_into(g, 0, &mut v);
            v
        });
        // One row at a time, in place (a call of the float16-accumulating kernels has at most
        // 16 rows of K values: a row of 4096 float16 values takes ~5 us plain and ~7 us with
        // the norm on this project's 2-core build machine).
        let mut x = vec![0f32; k];
        let mut s = vec![0f32; if skip.is_some() { k } else { 0 }];
        for r in 0..a.numel() / k {
            x.fill(0.0);
            values_into(a, r * k, &mut x);
            if let Some(skip) = skip {
                s.fill(0.0);
                values_into(skip, r * k, &mut s);
                x.iter_mut().zip(&s).for_each(|(x, s)| *x += s);
            }
            let inv_rms = match &gamma {
                None => 1.0,
                Some(_) => {
                    // The kernels' float32 mean square: a row whose sum overflows normalises
                    // to zeros.
                    let ms = sum_of_squares(&x) / k as f64;
                    if (ms as f32).is_finite() {
                        (1.0 / (ms + epsilon).sqrt()) as f32
                    } else {
                        0.0
                    }
                }
            };
            // |x * norm_scale| (|x| without the norm), times inv_rms after the sums.
            let (sum, max, count) = match &gamma {
                None => lanes(&x, f32::abs),
                Some(g) => lanes_with(&x, g, |v, g| (v * g).abs()),
            };
            if count == 0 || inv_rms == 0.0 {
                continue;
            }
            let mean = sum * inv_rms as f64 / count as f64;
            if mean > 0.0 {
                range.row_mean_min = range.row_mean_min.min(mean);
            }
            let max = max as f64 * inv_rms as f64;
            // 16 times the largest bounds the sum of the 16 largest; below TOP_EXACT no code
            // offset (at most 128) takes it to F16_SUM_LIMIT, so only rows at or past it are
            // read again for their 16 largest.
            let bound = F16_SUM_TERMS as f64 * max;
            let top_sum = if bound < TOP_EXACT {
                bound
            } else {
                let mut top = [0f64; F16_SUM_TERMS];
                let mut low = 0;
                for (i, v) in x.iter().enumerate() {
                    let g = gamma.as_ref().map_or(1.0, |g| g[i]);
                    let m = (*v * g).abs() as f64 * inv_rms as f64;
                    if m.is_finite() && m > top[low] {
                        top[low] = m;
                        low = (0..F16_SUM_TERMS)
                            .min_by(|p, q| top[*p].total_cmp(&top[*q]))
                            .unwrap_or(0);
                    }
                }
                top.iter().sum()
            };
            range.top_sum = range.top_sum.max(top_sum);
        }
        range
    }
}

/// Below this bound on a row's sum of its [`F16_SUM_TERMS`] largest magnitudes no code offset
/// (at most 128, 8-bit codes) takes the float16 sums to [`F16_SUM_LIMIT`], so
/// [`ActivationRange::of`] keeps the bound (16 times the largest) instead of the exact sum.
const TOP_EXACT: f64 = F16_SUM_LIMIT / 128.0;

/// Over `x` mapped by `f` (a magnitude: not negative, or NaN): the sum of the finite values, the
/// largest, and their count, in 8 independent lanes (so that the compiler vectorises it).
fn lanes(x: &[f32], f: impl Fn(f32) -> f32) -> (f64, f32, usize) {
    lanes_with(x, x, |v, _| f(v))
}

/// The sum of `x`'s squares in float64 (infinite where a value is), in 8 lanes.
fn sum_of_squares(x: &[f32]) -> f64 {
    let mut sum = [0f64; 8];
    let chunks = x.chunks_exact(8);
    let rest: f64 = chunks
        .remainder()
        .iter()
        .map(|v| *v as f64 * *v as f64)
        .sum();
    for c in chunks {
        for j in 0..8 {
            sum[j] += c[j] as f64 * c[j] as f64;
        }
    }
    sum.iter().sum::<f64>() + rest
}

/// [`lanes`] over `f(x[i], y[i])`.
fn lanes_with(x: &[f32], y: &[f32], f: impl Fn(f32, f32) -> f32) -> (f64, f32, usize) {
    // Float32 lanes over blocks of 64 values, each block's sums added in float64 (a block of
    // finite float32 values can overflow float32 only past 5e36 on average: the row's mean is
    // then an infinity, which no floor is above). Compares rather than `f32::max` and
    // `is_finite` so that the compiler vectorises the loop.
    let (mut total, mut max, mut bad) = (0f64, [0f32; 8], [0u32; 8]);
    let (xb, yb) = (x.chunks_exact(64), y.chunks_exact(64));
    let (xr, yr) = (xb.remainder(), yb.remainder());
    for (xs, ys) in xb.zip(yb) {
        let mut sum = [0f32; 8];
        for (xc, yc) in xs.chunks_exact(8).zip(ys.chunks_exact(8)) {
            for j in 0..8 {
                let m = f(xc[j], yc[j]);
                let ok = m < f32::INFINITY;
                let v = if ok { m } else { 0.0 };
                sum[j] += v;
                max[j] = if v > max[j] { v } else { max[j] };
                bad[j] += u32::from(!ok);
            }
        }
        total += sum.iter().map(|v| *v as f64).sum::<f64>();
    }
    let mut m = max.iter().fold(0f32, |a, b| if *b > a { *b } else { a });
    let mut n = x.len() - bad.iter().sum::<u32>() as usize;
    for (xv, yv) in xr.iter().zip(yr) {
        let v = f(*xv, *yv);
        if v < f32::INFINITY {
            total += v as f64;
            m = m.max(v);
        } else {
            n -= 1;
        }
    }
    (total, m, n)
}

/// `t`'s values from element `at` on, as float32, into `out` (float16 and float32 tensors;
/// others, and elements past the tensor's end, leave `out` as it is).
fn values_into(t: &Tensor, at: usize, out: &mut [f32]) {
    let n = out
        .len()
        .min((t.data.len() / t.dtype.size().max(1)).saturating_sub(at));
    if n == 0 {
        return;
    }
    let out = &mut out[..n];
    match t.dtype {
        crate::DType::F16 => {
            use half::slice::HalfFloatSliceExt;
            let bytes = &t.data[2 * at..2 * (at + n)];
            let halves: Vec<half::f16> = bytes
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]))
                .collect();
            // Vectorised where the CPU converts float16 (F16C).
            halves.convert_to_f32_slice(out);
        }
        crate::DType::F32 => {
            let bytes = &t.data[4 * at..4 * (at + n)];
            for (o, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                *o = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        }
        _ => {}
    }
}

impl ActivationRange {
    /// [`ActivationRange::of`] with the plan's K and epsilon.
    pub fn of_plan(
        plan: &Plan,
        a: &Tensor,
        skip: Option<&Tensor>,
        norm_scale: Option<&Tensor>,
    ) -> ActivationRange {
        let k = attr(plan, "K").unwrap_or(0.0) as usize;
        ActivationRange::of(
            k,
            attr(plan, "epsilon").unwrap_or(1e-5),
            a,
            skip,
            norm_scale,
        )
    }
}

/// The plan's code width (attribute `bits`, 4 where absent) and its largest code offset
/// `2^(bits - 1)` (the zero point is `2^(bits - 1)`: codes minus it lie in
/// `[-2^(bits - 1), 2^(bits - 1) - 1]`).
fn code_offset(plan: &Plan) -> (u32, f64) {
    let bits = attr(plan, "bits").unwrap_or(4.0) as u32;
    (bits, 2f64.powi(bits as i32 - 1))
}

/// The plan's attribute `name` as a number (`None` where absent or not a number).
fn attr(plan: &Plan, name: &str) -> Option<f64> {
    plan.attrs.get(name).and_then(|v| v.as_f64())
}

/// The bound on every element of a normalised row of a call of `plan` whose norm_scale's
/// largest magnitude is `norm_scale`: sqrt(K) times it (a row's root mean square is at least its
/// largest magnitude over sqrt(K), epsilon only adding to it). The float16 pairs
/// ([`f16_pair_fault`]) and the float16 normalised rows ([`f16_norm_fault`]) hold it or not.
fn normalised_bound(plan: &Plan, norm_scale: f64) -> f64 {
    attr(plan, "K").unwrap_or(0.0).sqrt() * norm_scale
}

/// Whether values of magnitudes `m` fit the float16 staging of a float16 plan: `None` when they
/// do, else `(ONNX input index, message)` for the input at fault, the message starting with its
/// name. Where the plan accumulates in float16 ([`Plan::f16_accumulation`], and `m.act` was
/// read), the largest [`F16_SUM_TERMS`] activation magnitudes of a row times the largest code
/// offset must stay below [`F16_SUM_LIMIT`] and every row's mean magnitude at or above
/// [`f16_sum_floor`]; where it stages dequantised weights as float16 ([`Plan::f16_weights`]),
/// each scales tensor's largest magnitude times the largest code offset must stay below
/// [`F16_MAX`].
pub fn f16_range_fault(plan: &Plan, m: &Magnitudes) -> Option<(usize, String)> {
    f16_sum_fault(plan, m).or_else(|| f16_weight_fault(plan, m))
}

/// [`f16_range_fault`]'s float16 sums (index 0, A).
fn f16_sum_fault(plan: &Plan, m: &Magnitudes) -> Option<(usize, String)> {
    let (bits, offset) = code_offset(plan);
    if plan.f16_accumulation() {
        if let Some(act) = &m.act {
            let what = "A: its activations (after the norm, where the call has it)";
            let sum = act.top_sum * offset;
            if sum >= F16_SUM_LIMIT {
                return Some((
                    0,
                    format!(
                        "{what} hold a row whose {F16_SUM_TERMS} largest magnitudes sum to {:e}, \
                         times the largest code offset ({offset}) {sum:e}, which plan `{}` cannot \
                         hold (it sums {F16_SUM_TERMS} such products in float16, below \
                         {F16_SUM_LIMIT}): plan with GEMV_F16_MATH=0 and GEMVP_MAX_ROWS=0 (the GPU \
                         runtime's `run`, the Python package and the ONNX Runtime custom op do)",
                        act.top_sum, plan.variant
                    ),
                ));
            }
            let floor = f16_sum_floor(bits);
            if act.row_mean_min < floor {
                return Some((
                    0,
                    format!(
                        "{what} hold a row whose mean magnitude is {:e}, below {floor:e}, where \
                         plan `{}` (products summed in float16) would multiply subnormal float16 \
                         values and lose the precision its tolerance counts on: plan with \
                         GEMV_F16_MATH=0 and GEMVP_MAX_ROWS=0 (the GPU runtime's `run`, the \
                         Python package and the ONNX Runtime custom op do)",
                        act.row_mean_min, plan.variant
                    ),
                ));
            }
        }
    }
    None
}

/// [`f16_range_fault`]'s float16 weights (index 4 or 7, the scales).
fn f16_weight_fault(plan: &Plan, m: &Magnitudes) -> Option<(usize, String)> {
    let (_, offset) = code_offset(plan);
    if plan.f16_weights() {
        for (index, s) in [4, 7].into_iter().zip(m.scales) {
            if s * offset >= F16_MAX {
                return Some((
                    index,
                    format!(
                        "{}'s largest magnitude {s} times the largest code offset ({offset}) \
                         reaches {:e}, past float16's largest value, which plan `{}` cannot hold \
                         (it stages the dequantised weights as float16): plan with \
                         MMA_MIN_ROWS=65535, MMAL_MIN_ROWS=0 and COOP_F16=0 (the GPU runtime's \
                         `run`, the Python package and the ONNX Runtime custom op do)",
                        INPUT_NAMES[index],
                        s * offset,
                        plan.variant
                    ),
                ));
            }
        }
    }
    None
}

/// A call's values that a plan cannot hold: the ONNX input at fault, a message that starts with
/// its name, and the tunables that plan the call without the kernels at fault.
#[derive(Clone, Debug)]
pub struct ValueFault {
    /// ONNX index of the input at fault.
    pub index: usize,
    /// What does not fit, naming the input first.
    pub message: String,
    /// The caller's tunables changed so that no kernel of the fault's kind is planned
    /// ([`without_f16_pairs`], [`without_f16_sums`], [`without_f16_weights`] or
    /// [`without_f16_norm_rows`]).
    pub without: fn(&Tunables) -> Tunables,
}

/// Whether values of magnitudes `m` fit `plan` ([`f16_pair_fault`], then [`f16_range_fault`],
/// then [`f16_norm_fault`]): `None` when they do.
pub fn values_fault(plan: &Plan, m: &Magnitudes) -> Option<ValueFault> {
    if let Some((index, message)) = f16_pair_fault(plan, m) {
        return Some(ValueFault {
            index,
            message,
            without: without_f16_pairs,
        });
    }
    let fault = |(index, message), without| ValueFault {
        index,
        message,
        without,
    };
    f16_sum_fault(plan, m)
        .map(|f| fault(f, without_f16_sums as fn(&Tunables) -> Tunables))
        .or_else(|| f16_weight_fault(plan, m).map(|f| fault(f, without_f16_weights)))
        .or_else(|| f16_norm_fault(plan, m).map(|f| fault(f, without_f16_norm_rows)))
}

/// Whether the values of a call (`inputs` in ONNX order, host tensors) fit `plan`:
/// [`values_fault`] on their magnitudes, each read only where the plan needs it
/// ([`Magnitudes::read`]).
pub fn values_overflow(plan: &Plan, inputs: &[Option<&Tensor>]) -> Option<ValueFault> {
    let a = inputs.first().copied().flatten()?;
    let at = |i: usize| inputs.get(i).copied().flatten();
    let m = Magnitudes::read(
        plan,
        |i| at(i).map(Tensor::max_finite_abs),
        || ActivationRange::of_plan(plan, a, at(1), at(2)),
    );
    values_fault(plan, &m)
}

/// Plans a call until its values fit: `plan` (a [`Plan`], or whatever a runner plans: the CLI's
/// tuned plan) when `fault_of` finds nothing, else the plan `replan` makes with the fault's
/// tunables (each kind of fault at most once: four rounds at most, the tunables of one round
/// kept in the next). The one home of the re-plan loop of every runner of host values.
pub fn plan_for_values<P, E>(
    plan: P,
    tunables: &Tunables,
    mut fault_of: impl FnMut(&P) -> Option<ValueFault>,
    mut replan: impl FnMut(&Tunables) -> Result<P, E>,
) -> Result<P, E> {
    let mut plan = plan;
    let mut t = tunables.clone();
    for _ in 0..4 {
        match fault_of(&plan) {
            None => break,
            Some(f) => {
                t = (f.without)(&t);
                plan = replan(&t)?;
            }
        }
    }
    Ok(plan)
}

/// What `plan`'s float16 staging holds of a call's values, one line per kind it has (none for a
/// plan that keeps every value as the op does): for `nbits-mlp plan` and kernel authors. Calls
/// past a line's bound are planned without such kernels ([`plan_for_values`]).
pub fn describe(plan: &Plan) -> Vec<String> {
    let (bits, offset) = code_offset(plan);
    let mut lines = Vec::new();
    if plan.f16_pairs() {
        lines.push(format!(
            "float32 values staged as float16 hi / lo pairs: activations below {F16_PAIR_LIMIT}"
        ));
    }
    if plan.f16_accumulation() {
        lines.push(format!(
            "float16 sums of up to {F16_SUM_TERMS} products: a row's {F16_SUM_TERMS} largest \
             activation magnitudes times {offset} (the largest code offset) below \
             {F16_SUM_LIMIT}, every row's mean magnitude at least {:e}",
            f16_sum_floor(bits)
        ));
    }
    if plan.f16_weights() {
        lines.push(format!(
            "dequantised weights staged as float16: the scales times {offset} (the largest code \
             offset) below {F16_MAX}"
        ));
    }
    if plan.f16_norm_rows() {
        lines.push(format!(
            "normalised rows held as float16: sqrt(K) times norm_scale's largest magnitude below \
             {F16_MAX}"
        ));
    }
    lines
}
