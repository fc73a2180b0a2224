//! Correctly rounded conversion of float64 results to the operator's T1 (float32 or float16).
//!
//! `f64 as f32` is correctly rounded (to nearest, ties to even). `half::f16::from_f64` is not
//! always: with the F16C instruction set it goes through f32 (double rounding), and its software
//! path drops the low 32 mantissa bits before rounding. Near a tie either can land one ulp off,
//! so the oracle rounds to float16 itself.

use half::f16;
use nbits_mlp_core::{DType, Tensor};

/// Rounds `x` to the nearest float16 (ties to even), overflowing to ±infinity like IEEE 754.
pub fn f16_from_f64(x: f64) -> f16 {
    if x.is_nan() {
        return f16::NAN;
    }
    // Halfway between 65504 (f16::MAX) and 65536 rounds to even, i.e. up and out of range.
    if x.abs() >= 65520.0 {
        return if x > 0.0 {
            f16::INFINITY
        } else {
            f16::NEG_INFINITY
        };
    }
    // The spacing of float16 values around x: 2^(e - 10) for x in [2^e, 2^(e+1)), never below
    // the subnormal spacing 2^-24.
    let exponent = (((x.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(-14);
    let ulp = 2f64.powi(exponent - 10);
    // Both scalings are exact (powers of two in range); the result is a float16 value, so the
    // final conversion is exact whatever path `half` takes.
    f16::from_f64((x / ulp).round_ties_even() * ulp)
}

/// Rounds `x` to `dtype`: float32 or float16 (anything else is treated as float32).
pub fn round_to(dtype: DType, x: f64) -> f64 {
    match dtype {
        DType::F16 => f16_from_f64(x).to_f64(),
        _ => f64::from(x as f32),
    }
}

/// A float32 or float16 tensor holding `values` correctly rounded.
///
/// # Panics
/// If `dtype` is uint8 or `shape` does not hold `values.len()` elements.
pub fn tensor_from_f64(dtype: DType, shape: Vec<usize>, values: &[f64]) -> Tensor {
    match dtype {
        DType::F32 => {
            let v: Vec<f32> = values.iter().map(|&x| x as f32).collect();
            Tensor::from_f32(shape, &v)
        }
        DType::F16 => {
            let v: Vec<f16> = values.iter().map(|&x| f16_from_f64(x)).collect();
            Tensor::from_f16(shape, &v)
        }
        DType::U8 => panic!("tensor_from_f64: uint8 is not a float type"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: the two float16 neighbours of x, by walking the bit patterns.
    fn nearest_by_search(x: f64) -> f16 {
        let mut best = f16::from_bits(0);
        let mut best_err = f64::INFINITY;
        for bits in 0..0x7c00u16 {
            for sign in [0u16, 0x8000] {
                let h = f16::from_bits(bits | sign);
                let err = (h.to_f64() - x).abs();
                let better = err < best_err
                    || (err == best_err && h.to_bits() & 1 == 0 && best.to_bits() & 1 == 1);
                if better {
                    best = h;
                    best_err = err;
                }
            }
        }
        best
    }

    #[test]
    fn ties_and_sticky_bits() {
        // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: to even, 1.
        assert_eq!(f16_from_f64(1.0 + 2f64.powi(-11)).to_f64(), 1.0);
        // A hair above the tie must round up; going through f32 loses the hair.
        assert_eq!(
            f16_from_f64(1.0 + 2f64.powi(-11) + 2f64.powi(-40)).to_f64(),
            1.0 + 2f64.powi(-10)
        );
        // 1 + 3 * 2^-11 is a tie between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
        assert_eq!(
            f16_from_f64(1.0 + 3.0 * 2f64.powi(-11)).to_f64(),
            1.0 + 2f64.powi(-9)
        );
        assert_eq!(f16_from_f64(65504.0).to_f64(), 65504.0);
        assert_eq!(f16_from_f64(65519.99).to_f64(), 65504.0);
        assert!(f16_from_f64(65520.0).is_infinite());
        assert!(f16_from_f64(-1e300).is_infinite());
        assert!(f16_from_f64(f64::NAN).is_nan());
        assert_eq!(f16_from_f64(-0.0).to_bits(), 0x8000);
        assert_eq!(f16_from_f64(1e-300).to_bits(), 0);
        // Smallest subnormal 2^-24; half of it ties to 0, a hair more rounds up.
        assert_eq!(f16_from_f64(2f64.powi(-25)).to_bits(), 0);
        assert_eq!(f16_from_f64(2f64.powi(-25) * 1.0001).to_bits(), 1);
        assert_eq!(f16_from_f64(2f64.powi(-24) * 1.5).to_bits(), 2);
    }

    #[test]
    fn matches_exhaustive_nearest() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..40 {
            let x: f64 = rng.gen_range(-1.0..1.0) * 2f64.powi(rng.gen_range(-26..16));
            assert_eq!(f16_from_f64(x), nearest_by_search(x), "x = {x}");
        }
    }

    #[test]
    fn tensors() {
        let t = tensor_from_f64(
            DType::F16,
            vec![2],
            &[1.0 + 2f64.powi(-11) + 2f64.powi(-40), -2.0],
        );
        assert_eq!(t.to_f64(), vec![1.0 + 2f64.powi(-10), -2.0]);
        let t = tensor_from_f64(DType::F32, vec![1, 1], &[0.1]);
        assert_eq!(t.to_f32(), vec![0.1f32]);
        assert_eq!(round_to(DType::F32, 0.1), f64::from(0.1f32));
        assert_eq!(round_to(DType::F16, 65504.0), 65504.0);
    }
}
