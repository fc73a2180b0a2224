//! Property tests of `ranges::ActivationRange` (the activations' range that float16 sums must
//! hold, read from a call's host tensors): for any tensors, of any float or other dtype, any
//! bytes (infinities and NaN included), any K and lengths that need not match the call, it never
//! panics and returns a range that bounds what it describes: `top_sum` at least the sum of any
//! row's 16 largest finite magnitudes (within float32 rounding) and at most 16 times the largest,
//! `row_mean_min` a row's mean or infinity.

use nbits_mlp_core::op::ActivationRange;
use nbits_mlp_core::{DType, Tensor};
use proptest::prelude::*;

/// A tensor of `dtype` (float16, float32 or uint8) from raw bytes, its length a whole number of
/// elements.
fn tensor(dtype: DType, mut bytes: Vec<u8>) -> Tensor {
    let size = dtype.size();
    bytes.truncate(bytes.len() / size * size);
    let n = bytes.len() / size;
    Tensor::from_bytes(dtype, vec![n], bytes).unwrap()
}

fn dtype() -> impl Strategy<Value = DType> {
    prop_oneof![Just(DType::F16), Just(DType::F32), Just(DType::U8)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_panics_and_bounds_hold(
        k in 0usize..70,
        eps in prop_oneof![Just(0.0), Just(1e-5), Just(1.0)],
        (ad, a) in (dtype(), proptest::collection::vec(any::<u8>(), 0..600)),
        skip in proptest::option::of((dtype(), proptest::collection::vec(any::<u8>(), 0..600))),
        ns in proptest::option::of((dtype(), proptest::collection::vec(any::<u8>(), 0..300))),
    ) {
        let a = tensor(ad, a);
        let skip = skip.map(|(d, b)| tensor(d, b));
        let ns = ns.map(|(d, b)| tensor(d, b));
        let r = ActivationRange::of(k, eps, &a, skip.as_ref(), ns.as_ref());
        prop_assert!(r.top_sum >= 0.0 && !r.top_sum.is_nan(), "{r:?}");
        prop_assert!(r.row_mean_min > 0.0, "{r:?}");
        // Plain float rows (no skip, no norm): the bounds against the values themselves.
        if k > 0 && skip.is_none() && ns.is_none() && ad != DType::U8 {
            let v = a.to_f64();
            for row in v.chunks_exact(k) {
                let mut m: Vec<f64> = row
                    .iter()
                    .map(|x| (*x as f32).abs() as f64)
                    .filter(|x| x.is_finite())
                    .collect();
                m.sort_by(|p, q| q.total_cmp(p));
                let top: f64 = m.iter().take(16).sum();
                let max = m.first().copied().unwrap_or(0.0);
                prop_assert!(r.top_sum >= top * (1.0 - 1e-6), "{r:?} top {top}");
                if !m.is_empty() {
                    let mean = m.iter().sum::<f64>() / m.len() as f64;
                    // (A row whose float32 sums overflow, mean past ~5e36, reads as infinite.)
                    if mean > 0.0 && mean < 1e36 {
                        prop_assert!(r.row_mean_min <= mean * (1.0 + 1e-5), "{r:?} mean {mean}");
                    }
                }
                prop_assert!(r.top_sum <= 16.0 * max.max(r.top_sum / 16.0) + 1e-9);
            }
        }
    }
}
