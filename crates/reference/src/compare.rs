//! Comparing an implementation's output with the float64 reference.
//!
//! Tolerances (op-semantics.md, "Precision"), against the unrounded float64 Y:
//! float32 `|d| <= 1e-5 * max|Y| + 1e-6`; float16 `|d| <= 2e-3 * max|Y| + 2^-24` (the spec
//! suggests `2e-3 * max|Y|`; the absolute part, float16's smallest step, keeps outputs in
//! float16's subnormal range checkable: [`F16_ABSOLUTE_TOLERANCE`]).

use nbits_mlp_core::{DType, Tensor};

/// The largest `|expected - got|` over all elements.
///
/// `got` is widened exactly to f64. A non-finite expected element must be matched exactly (NaN by
/// NaN, an infinity by the same infinity) and then counts as no error; so does an infinity of
/// the expected value's sign where that value is at or past the largest finite value of `got`'s
/// dtype (65504 for float16: the exact result rounded to the output type, as it must be). Any
/// other difference involving a non-finite value (NaN or an infinity on either side) counts as
/// an infinite error, and so does an element-count mismatch.
pub fn max_abs_error(expected_f64: &[f64], got: &Tensor) -> f64 {
    let limit = largest_finite(got.dtype);
    let got = got.to_f64();
    if got.len() != expected_f64.len() {
        return f64::INFINITY;
    }
    expected_f64.iter().zip(&got).fold(0f64, |worst, (e, g)| {
        worst.max(element_error(*e, *g, limit))
    })
}

/// The largest finite value of a float `dtype` (infinity for the others: no output of theirs
/// overflows).
fn largest_finite(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => f64::from(half::f16::MAX),
        DType::F32 => f64::from(f32::MAX),
        _ => f64::INFINITY,
    }
}

/// `|e - g|` for finite values; for non-finite ones 0 when they are the same (NaN and NaN, or
/// equal infinities) or when `g` is the infinity of `e`'s sign and `|e|` is at least `limit`
/// (the output type's largest finite value: `e` overflows it), else infinity.
fn element_error(e: f64, g: f64, limit: f64) -> f64 {
    if e.is_finite() && g.is_finite() {
        (e - g).abs()
    } else if (e.is_nan() && g.is_nan())
        || e == g
        || (g.is_infinite() && e.abs() >= limit && e.signum() == g.signum())
    {
        0.0
    } else {
        f64::INFINITY
    }
}

/// `max |v|` over the finite values (0 for an empty slice): a tolerance scaled by it stays finite
/// when the expected output holds an infinity or NaN (those elements must match exactly, see
/// [`max_abs_error`]).
pub fn max_abs(values: &[f64]) -> f64 {
    values
        .iter()
        .filter(|v| v.is_finite())
        .fold(0f64, |m, v| m.max(v.abs()))
}

/// The absolute part of every float16 tolerance: 2^-24, float16's smallest step (a subnormal).
/// Where `|Y|` is that small, no float16 value lies nearer the exact result than about this, so
/// a tolerance relative to `max|Y|` alone would fail an output that is right to the last bit
/// (`max|Y|` 3e-7, for instance: relative 2e-3 of it is 6e-10). Float32's `1e-6` plays the same
/// part for float32 outputs.
pub const F16_ABSOLUTE_TOLERANCE: f64 = 1.0 / 16_777_216.0;

/// The suggested tolerance for an output of `dtype` whose largest magnitude is `max_abs_y`:
/// float16 `2e-3 * max_abs_y +` [`F16_ABSOLUTE_TOLERANCE`]; float32 (and anything else)
/// `1e-5 * max_abs_y + 1e-6`.
pub fn default_tolerance(dtype: DType, max_abs_y: f64) -> f64 {
    match dtype {
        DType::F16 => 2e-3 * max_abs_y + F16_ABSOLUTE_TOLERANCE,
        _ => 1e-5 * max_abs_y + 1e-6,
    }
}

/// Relative tolerance (times max|Y|) for float16 results of a kernel that keeps partial sums in
/// float16 (a plan whose `f16Accumulation` is true: the overlay's `gemv_*` variants on float16
/// models with `GEMV_F16_MATH=1`): activations rounded to float16 and each 32-code unit's
/// products summed in float16 before float32 takes over. The spec allows float16 accumulation
/// (ORT's WebGPU kernel accumulates float16 models in float16) when a measured speed gain asks
/// for it, with its tolerance stated: this one where only the expected `Y` is known (`nbits-mlp
/// test` against stored outputs); with the reference's error scale, [`check_scaled`] applies
/// [`F16_ACCUMULATION_SCALE_TOLERANCE`] per element instead.
pub const F16_ACCUMULATION_TOLERANCE: f64 = 8e-3;

/// Float16 accumulation, per element: `|d| <= 2e-3 * max|Y| + this * scale`, `scale` the
/// reference's [`crate::mlp::MlpOutput::y_err_scale`] (how far the element moves when every
/// product of its dot products moves by its own size). 2^-9: a few float16 roundings of the
/// summed products; a wrong code, scale or row moves an element by a large fraction of its scale.
pub const F16_ACCUMULATION_SCALE_TOLERANCE: f64 = 1.0 / 512.0;

/// The tolerance for an output of `dtype` whose largest magnitude is `max_abs_y`, computed by a
/// kernel that accumulates in float16 (`f16_accumulation`, float16 outputs only:
/// [`F16_ACCUMULATION_TOLERANCE`] `* max_abs_y +` [`F16_ABSOLUTE_TOLERANCE`]) or in float32
/// ([`default_tolerance`]). Used where only the expected values are known; with a reference run,
/// [`worst_error`] is tighter.
pub fn tolerance(dtype: DType, max_abs_y: f64, f16_accumulation: bool) -> f64 {
    match dtype {
        DType::F16 if f16_accumulation => {
            F16_ACCUMULATION_TOLERANCE * max_abs_y + F16_ABSOLUTE_TOLERANCE
        }
        _ => default_tolerance(dtype, max_abs_y),
    }
}

/// Checks `got` against `expected_f64` with [`default_tolerance`] for `got.dtype`; on failure
/// the message gives the error, the tolerance and max|Y|.
pub fn check(expected_f64: &[f64], got: &Tensor) -> Result<(), String> {
    let err = max_abs_error(expected_f64, got);
    let max_y = max_abs(expected_f64);
    let tol = default_tolerance(got.dtype, max_y);
    if err <= tol {
        Ok(())
    } else {
        Err(format!(
            "max abs error {err:e} exceeds the {} tolerance {tol:e} (max|Y| = {max_y:e}, {} elements, {} expected)",
            got.dtype,
            got.numel(),
            expected_f64.len()
        ))
    }
}

/// The element of `got` with the largest error relative to its tolerance, as `(error,
/// tolerance)`. Float32 accumulation (or a float32 output): the largest error and
/// [`default_tolerance`]. Float16 accumulation on a float16 output: element i's tolerance is
/// [`default_tolerance`] `+` [`F16_ACCUMULATION_SCALE_TOLERANCE`] `* scale[i]`. A non-finite element that
/// does not match the expected one exactly (see [`max_abs_error`]) is the worst, an infinite error.
/// Errors when the lengths differ.
pub fn worst_error(
    expected_f64: &[f64],
    scale: &[f64],
    got: &Tensor,
    f16_accumulation: bool,
) -> Result<(f64, f64), String> {
    let max_y = max_abs(expected_f64);
    let base = default_tolerance(got.dtype, max_y);
    if !(f16_accumulation && got.dtype == DType::F16) {
        return Ok((max_abs_error(expected_f64, got), base));
    }
    let got64 = got.to_f64();
    if got64.len() != expected_f64.len() || scale.len() != expected_f64.len() {
        return Err(format!(
            "{} elements, {} expected, {} error scales",
            got64.len(),
            expected_f64.len(),
            scale.len()
        ));
    }
    let limit = largest_finite(got.dtype);
    let mut worst = (0.0, base);
    for ((g, e), s) in got64.iter().zip(expected_f64).zip(scale) {
        let err = element_error(*e, *g, limit);
        let tol = base + F16_ACCUMULATION_SCALE_TOLERANCE * s;
        if err.is_infinite() {
            return Ok((err, tol));
        }
        if err * worst.1 > worst.0 * tol {
            worst = (err, tol);
        }
    }
    Ok(worst)
}

/// Checks `got` against `expected_f64` with the tolerance of [`worst_error`] (per element, from
/// the reference's error `scale`, when the kernel accumulated in float16); on failure the
/// message gives the worst element's error and tolerance.
pub fn check_scaled(
    expected_f64: &[f64],
    scale: &[f64],
    got: &Tensor,
    f16_accumulation: bool,
) -> Result<(), String> {
    if !(f16_accumulation && got.dtype == DType::F16) {
        return check(expected_f64, got);
    }
    let (err, tol) = worst_error(expected_f64, scale, got, true)?;
    if err <= tol {
        Ok(())
    } else {
        Err(format!(
            "error {err:e} exceeds the float16 (float16 accumulation) tolerance {tol:e} = 2e-3 max|Y| ({:e}) + 2^-24 + {:e} x the element's error scale",
            max_abs(expected_f64),
            F16_ACCUMULATION_SCALE_TOLERANCE
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors() {
        let got = Tensor::from_f32(vec![3], &[1.0, 2.5, -3.0]);
        assert_eq!(max_abs_error(&[1.0, 2.0, -3.25], &got), 0.5);
        assert_eq!(max_abs_error(&[1.0, 2.5, -3.0], &got), 0.0);
        assert_eq!(max_abs_error(&[1.0, 2.5], &got), f64::INFINITY);
        let nan = Tensor::from_f32(vec![2], &[f32::NAN, 0.0]);
        assert_eq!(max_abs_error(&[0.0, 0.0], &nan), f64::INFINITY);
        let inf = Tensor::from_f32(vec![1], &[f32::INFINITY]);
        assert_eq!(max_abs_error(&[1.0], &inf), f64::INFINITY);
        // Non-finite expected values must be matched exactly.
        assert_eq!(max_abs_error(&[f64::INFINITY], &inf), 0.0);
        assert_eq!(max_abs_error(&[f64::NEG_INFINITY], &inf), f64::INFINITY);
        assert_eq!(max_abs_error(&[f64::NAN, 0.0], &nan), 0.0);
        assert_eq!(max_abs_error(&[f64::INFINITY, 0.0], &nan), f64::INFINITY);
        assert_eq!(max_abs_error(&[f64::NAN], &inf), f64::INFINITY);
        let h = Tensor::from_f32_as_f16(vec![1], &[0.1]);
        assert_eq!(
            max_abs_error(&[0.1], &h),
            (0.1 - half::f16::from_f32(0.1).to_f64()).abs()
        );
        assert_eq!(max_abs_error(&[], &Tensor::from_f32(vec![0, 4], &[])), 0.0);
    }

    #[test]
    fn tolerances() {
        assert_eq!(default_tolerance(DType::F32, 2.0), 1e-5 * 2.0 + 1e-6);
        assert_eq!(
            default_tolerance(DType::F16, 2.0),
            4e-3 + F16_ABSOLUTE_TOLERANCE
        );
        assert_eq!(default_tolerance(DType::F16, 0.0), 2f64.powi(-24));
        assert_eq!(max_abs(&[1.0, -3.0, f64::NAN]), 3.0);
        // An infinity in the expected output does not make the tolerance infinite.
        assert_eq!(max_abs(&[1.0, f64::NEG_INFINITY, -2.0]), 2.0);
        let y = [1.0, f64::INFINITY];
        assert!(check(&y, &Tensor::from_f32(vec![2], &[1.0, f32::INFINITY])).is_ok());
        assert!(check(&y, &Tensor::from_f32(vec![2], &[500.0, f32::INFINITY])).is_err());
        assert!(check(&y, &Tensor::from_f32(vec![2], &[1.0, 3.0e38])).is_err());
        let y = [1.0, -2.0];
        assert!(check(&y, &Tensor::from_f32(vec![2], &[1.0, -2.00001])).is_ok());
        let msg = check(&y, &Tensor::from_f32(vec![2], &[1.0, -2.001])).unwrap_err();
        assert!(msg.contains("float32"), "{msg}");
        assert!(check(&y, &Tensor::from_f32_as_f16(vec![2], &[1.001, -2.0])).is_ok());
        assert!(check(&y, &Tensor::from_f32_as_f16(vec![2], &[1.01, -2.0])).is_err());
    }

    #[test]
    fn float16_accumulation_tolerances() {
        assert_eq!(
            tolerance(DType::F16, 2.0, true),
            F16_ACCUMULATION_TOLERANCE * 2.0 + F16_ABSOLUTE_TOLERANCE
        );
        assert_eq!(
            tolerance(DType::F16, 2.0, false),
            default_tolerance(DType::F16, 2.0)
        );
        // float32 outputs never get the float16-accumulation tolerance.
        assert_eq!(
            tolerance(DType::F32, 2.0, true),
            default_tolerance(DType::F32, 2.0)
        );

        let want = [1.0, 0.001];
        let f16 = |v: &[f32]| Tensor::from_f32_as_f16(vec![v.len()], v);
        // Element 1 is off by 0.01: over 2e-3 max|Y| = 2e-3, so float32 accumulation fails it.
        let got = f16(&[1.0, 0.011]);
        assert!(check_scaled(&want, &[1.0, 1.0], &got, false).is_err());
        assert_eq!(
            worst_error(&want, &[], &got, false).unwrap(),
            (max_abs_error(&want, &got), 2e-3 + F16_ABSOLUTE_TOLERANCE)
        );
        // With float16 accumulation it depends on the element's own scale: 2e-3 + 8 / 512
        // passes, 2e-3 + 1 / 512 does not.
        assert!(check_scaled(&want, &[0.0, 8.0], &got, true).is_ok());
        let msg = check_scaled(&want, &[8.0, 1.0], &got, true).unwrap_err();
        assert!(msg.contains("float16 accumulation"), "{msg}");
        let (err, tol) = worst_error(&want, &[8.0, 1.0], &got, true).unwrap();
        assert_eq!(
            tol,
            2e-3 + F16_ABSOLUTE_TOLERANCE + F16_ACCUMULATION_SCALE_TOLERANCE
        );
        assert!(
            (err - (0.011f32 as f64 - 0.001).abs()).abs() < 1e-5,
            "{err}"
        );
        // The worst element is the one furthest over its own tolerance, not the largest error.
        let got = f16(&[1.004, 0.003]);
        let (err, _) = worst_error(&want, &[100.0, 0.0], &got, true).unwrap();
        assert!((err - 0.002).abs() < 1e-4, "{err}");
        // A NaN where a number was expected is the worst; lengths must agree.
        let nan = f16(&[f32::NAN, 0.001]);
        assert!(worst_error(&want, &[1.0, 1.0], &nan, true)
            .unwrap()
            .0
            .is_infinite());
        assert!(check_scaled(&want, &[1.0, 1.0], &nan, true).is_err());
        assert!(worst_error(&want, &[1.0], &got, true).is_err());
        // float32 outputs ignore the flag.
        let got32 = Tensor::from_f32(vec![2], &[1.0, 0.011]);
        assert!(check_scaled(&want, &[8.0, 8.0], &got32, true).is_err());
    }

    /// Outputs in float16's subnormal range: the float16 nearest the exact value passes (the
    /// relative tolerance alone would be below one float16 step), two steps further does not.
    #[test]
    fn float16_subnormal_outputs() {
        let step = F16_ABSOLUTE_TOLERANCE; // 2^-24
        let want = [2.9e-7, -1.1e-7, 0.0];
        let nearest: Vec<f32> = want
            .iter()
            .map(|v| half::f16::from_f64(*v).to_f32())
            .collect();
        let f16 = |v: &[f32]| Tensor::from_f32_as_f16(vec![v.len()], v);
        assert!(check(&want, &f16(&nearest)).is_ok());
        let mut off = nearest.clone();
        off[0] += 2.0 * step as f32;
        assert!(check(&want, &f16(&off)).is_err());
        // Relative 2e-3 of max|Y| alone: 5.8e-10, far below the 3e-8 of rounding to float16.
        assert!(max_abs_error(&want, &f16(&nearest)) > 2e-3 * 2.9e-7);
    }

    /// Outputs past the output type's largest finite value: the infinity of the expected
    /// value's sign is the exact result rounded to that type, no error; the other infinity, NaN,
    /// or an infinity where the exact value is within range are.
    #[test]
    fn outputs_past_the_range_round_to_infinity() {
        let f16 = |v: &[f32]| Tensor::from_f32_as_f16(vec![v.len()], v);
        let want = [1e5, -7e4, 3.0];
        assert_eq!(
            max_abs_error(&want, &f16(&[f32::INFINITY, f32::NEG_INFINITY, 3.0])),
            0.0
        );
        assert!(check(&want, &f16(&[f32::INFINITY, f32::NEG_INFINITY, 3.0])).is_ok());
        assert!(
            max_abs_error(&want, &f16(&[f32::NEG_INFINITY, f32::NEG_INFINITY, 3.0])).is_infinite()
        );
        assert!(max_abs_error(&want, &f16(&[f32::NAN, f32::NEG_INFINITY, 3.0])).is_infinite());
        // 60000 is within float16's range: an infinity there is an error.
        assert!(max_abs_error(&[6e4], &f16(&[f32::INFINITY])).is_infinite());
        // Between 65504 and the rounding threshold 65520 either 65504 or infinity passes.
        assert!(check(&[65510.0], &f16(&[65504.0])).is_ok());
        assert!(check(&[65510.0], &f16(&[f32::INFINITY])).is_ok());
        // The same per element with float16 accumulation, and for float32 past f32::MAX.
        let (err, _) = worst_error(
            &want,
            &[1.0; 3],
            &f16(&[f32::INFINITY, f32::NEG_INFINITY, 3.0]),
            true,
        )
        .unwrap();
        assert_eq!(err, 0.0);
        let f32t = Tensor::from_f32(vec![2], &[f32::INFINITY, 1.0]);
        assert!(check(&[1e39, 1.0], &f32t).is_ok());
        assert!(check(&[1e38, 1.0], &f32t).is_err());
    }
}
