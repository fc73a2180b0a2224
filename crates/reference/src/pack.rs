//! The MatMulNBits weight layout: packing, unpacking, quantizing and dequantizing.
//!
//! Logical weights `W` are `[N, K]`. Row `n` is cut along K into `k_blocks = ceil(K / block_size)`
//! blocks; block `b` is stored as the `blob_size = block_size * bits / 8`-byte blob
//! `packed[n, b, :]` and has one scale `scales[n, b]`. Inside a blob, element `j`
//! (`k = b * block_size + j`) is stored least-significant bits first: byte `j * bits / 8`, shifted
//! right by `(j * bits) % 8`, masked to `bits` bits. The zero point is always `2^(bits-1)`, so
//! `W[n, k] = (code - 2^(bits-1)) * scales[n, k / block_size]`. Codes past K (in the last blob when
//! K is not a multiple of block_size) are padding and mean nothing.

use crate::RefError;
use nbits_mlp_core::DType;

/// Checks that `bits` is one of the supported widths (2, 4, 8).
pub fn check_bits(bits: u32) -> Result<(), RefError> {
    match bits {
        2 | 4 | 8 => Ok(()),
        other => Err(RefError::UnsupportedBits(i64::from(other))),
    }
}

/// Bytes per block: `block_size * bits / 8`.
///
/// Only meaningful when `block_size * bits` is a multiple of 8 (see [`Layout::new`]).
pub fn blob_size(block_size: usize, bits: u32) -> usize {
    block_size * bits as usize / 8
}

/// Blocks per weight row: `ceil(k / block_size)`.
///
/// # Panics
/// If `block_size` is 0 (like any division by zero); [`Layout::new`] checks it.
pub fn k_blocks(k: usize, block_size: usize) -> usize {
    k.div_ceil(block_size)
}

/// The zero point `2^(bits-1)` for a supported `bits` (2, 4 or 8; check with [`check_bits`]).
///
/// # Panics
/// If `bits` is 0 or above 8.
pub fn zero_point(bits: u32) -> u8 {
    assert!(
        (1..=8).contains(&bits),
        "zero_point: bits must be 1..=8, got {bits}"
    );
    1u8 << (bits - 1)
}

/// The `bits`-bit code of element `(n_idx, k_idx)` in packed weights `[N, k_blocks, blob_size]`.
///
/// # Panics
/// If the element lies outside `packed` (an index error, like slice indexing).
pub fn code_at(
    packed: &[u8],
    n_idx: usize,
    k_idx: usize,
    k_blocks: usize,
    blob_size: usize,
    bits: u32,
    block_size: usize,
) -> u8 {
    let (byte, shift) = code_position(n_idx, k_idx, k_blocks, blob_size, bits, block_size);
    (packed[byte] >> shift) & code_mask(bits)
}

/// The mask of one code: `2^bits - 1`.
fn code_mask(bits: u32) -> u8 {
    ((1u16 << bits) - 1) as u8
}

/// Byte index and bit shift of element `(n_idx, k_idx)`.
fn code_position(
    n_idx: usize,
    k_idx: usize,
    k_blocks: usize,
    blob_size: usize,
    bits: u32,
    block_size: usize,
) -> (usize, u32) {
    let b = k_idx / block_size;
    let j = k_idx % block_size;
    let bit = j * bits as usize;
    (
        (n_idx * k_blocks + b) * blob_size + bit / 8,
        (bit % 8) as u32,
    )
}

/// A validated packing geometry: `N`, `K`, `bits` and `block_size` of one weight matrix.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    n: usize,
    k: usize,
    bits: u32,
    block_size: usize,
    k_blocks: usize,
    blob_size: usize,
}

impl Layout {
    /// Checks the geometry: bits 2, 4 or 8; `block_size > 0`; `block_size * bits` a multiple of 8
    /// (whole-byte blobs); the packed size fits in memory.
    pub fn new(n: usize, k: usize, bits: u32, block_size: usize) -> Result<Layout, RefError> {
        check_bits(bits)?;
        if block_size == 0 {
            return Err(RefError::BadArgument("block_size must be > 0".into()));
        }
        let block_bits = block_size.checked_mul(bits as usize).ok_or_else(|| {
            RefError::BadArgument(format!("block_size {block_size} is too large"))
        })?;
        if block_bits % 8 != 0 {
            return Err(RefError::BadArgument(format!(
                "block_size {block_size} with {bits} bits does not fill whole bytes \
                 (block_size * bits must be a multiple of 8)"
            )));
        }
        let layout = Layout {
            n,
            k,
            bits,
            block_size,
            k_blocks: k_blocks(k, block_size),
            blob_size: block_bits / 8,
        };
        let fits = n
            .checked_mul(layout.k_blocks)
            .and_then(|x| x.checked_mul(layout.blob_size.max(std::mem::size_of::<f64>())))
            .is_some();
        if !fits {
            return Err(RefError::BadArgument(format!(
                "weights [N={n}, K={k}] with block_size {block_size} are too large"
            )));
        }
        Ok(layout)
    }
    /// Rows of W (`N`).
    pub fn n(&self) -> usize {
        self.n
    }
    /// Columns of W (`K`).
    pub fn k(&self) -> usize {
        self.k
    }
    /// Bits per code.
    pub fn bits(&self) -> u32 {
        self.bits
    }
    /// Codes per block.
    pub fn block_size(&self) -> usize {
        self.block_size
    }
    /// Blocks per row, `ceil(K / block_size)`.
    pub fn k_blocks(&self) -> usize {
        self.k_blocks
    }
    /// Bytes per block, `block_size * bits / 8`.
    pub fn blob_size(&self) -> usize {
        self.blob_size
    }
    /// Bytes of one packed row, `k_blocks * blob_size`.
    pub fn row_bytes(&self) -> usize {
        self.k_blocks * self.blob_size
    }
    /// The shape of the packed tensor, `[N, k_blocks, blob_size]`.
    pub fn packed_shape(&self) -> Vec<usize> {
        vec![self.n, self.k_blocks, self.blob_size]
    }
    /// The shape of the scales tensor, `[N, k_blocks]`.
    pub fn scales_shape(&self) -> Vec<usize> {
        vec![self.n, self.k_blocks]
    }
    /// Bytes of the packed tensor, `N * k_blocks * blob_size`.
    pub fn packed_len(&self) -> usize {
        self.n * self.row_bytes()
    }
    /// Number of scales, `N * k_blocks`.
    pub fn scales_len(&self) -> usize {
        self.n * self.k_blocks
    }
    /// The zero point, `2^(bits-1)`.
    pub fn zero_point(&self) -> u8 {
        zero_point(self.bits)
    }
    /// Largest code, `2^bits - 1`.
    pub fn max_code(&self) -> u8 {
        code_mask(self.bits)
    }
    /// The code of element `(n_idx, k_idx)`; `k_idx` may reach into the padding
    /// (`k_idx < k_blocks * block_size`).
    ///
    /// # Panics
    /// If the element lies outside `packed`.
    pub fn code_at(&self, packed: &[u8], n_idx: usize, k_idx: usize) -> u8 {
        code_at(
            packed,
            n_idx,
            k_idx,
            self.k_blocks,
            self.blob_size,
            self.bits,
            self.block_size,
        )
    }
    /// Overwrites the code of element `(n_idx, k_idx)` (only its low `bits` bits are used),
    /// leaving the other codes of the byte alone.
    ///
    /// # Panics
    /// If the element lies outside `packed`.
    pub fn set_code(&self, packed: &mut [u8], n_idx: usize, k_idx: usize, code: u8) {
        let (byte, shift) = code_position(
            n_idx,
            k_idx,
            self.k_blocks,
            self.blob_size,
            self.bits,
            self.block_size,
        );
        let mask = self.max_code() << shift;
        packed[byte] = (packed[byte] & !mask) | ((code << shift) & mask);
    }
    /// Dequantizes one row: `out[k] = (code - zero_point) * scales_row[k / block_size]` for
    /// `k < out.len()`; padding codes past `out.len()` are never read into `out`.
    ///
    /// `packed_row` is the row's `k_blocks * blob_size` bytes, `scales_row` its `k_blocks`
    /// scales, and `out` its `K` values.
    ///
    /// # Panics
    /// If the slices are shorter than the layout says.
    pub fn dequantize_row(&self, packed_row: &[u8], scales_row: &[f64], out: &mut [f64]) {
        let blobs = packed_row[..self.row_bytes()].chunks_exact(self.blob_size);
        let outs = out[..self.k].chunks_mut(self.block_size);
        for ((blob, &scale), out) in blobs.zip(&scales_row[..self.k_blocks]).zip(outs) {
            match self.bits {
                2 => dequantize_block::<2>(blob, scale, out),
                4 => dequantize_block::<4>(blob, scale, out),
                _ => dequantize_block::<8>(blob, scale, out),
            }
        }
    }
}

/// Dequantizes the first `out.len()` codes of one blob.
#[inline]
fn dequantize_block<const BITS: usize>(blob: &[u8], scale: f64, out: &mut [f64]) {
    let per_byte = 8 / BITS;
    let mask = ((1u16 << BITS) - 1) as u8;
    let zero = f64::from(1u8 << (BITS - 1));
    for (j, o) in out.iter_mut().enumerate() {
        let code = (blob[j / per_byte] >> ((j % per_byte) * BITS)) & mask;
        *o = (f64::from(code) - zero) * scale;
    }
}

/// Quantized weights in the MatMulNBits layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantized {
    /// Packed codes, `[N, k_blocks, blob_size]` row-major.
    pub packed: Vec<u8>,
    /// One scale per block, `[N, k_blocks]` row-major.
    pub scales: Vec<f32>,
}

/// Quantizes `w` (`[N, K]` row-major) to `bits`-bit codes with symmetric per-block scales and
/// float32 scales: [`quantize_to`] with [`DType::F32`].
pub fn quantize(
    w: &[f32],
    n: usize,
    k: usize,
    bits: u32,
    block_size: usize,
) -> Result<Quantized, RefError> {
    quantize_to(w, n, k, bits, block_size, DType::F32)
}

/// Quantizes `w` (`[N, K]` row-major) to `bits`-bit codes with symmetric per-block scales of
/// `scale_dtype` (float32 or float16), the way ONNX Runtime's `MatMulNBitsQuantizer` does with
/// `is_symmetric=True` (its blockwise quantizer, the same for 2, 4 and 8 bits), so that the same
/// weights give the same codes and scales:
///
/// - per block, `m` is the value of largest magnitude (of two of equal magnitude, the negative
///   one) and `scale = -m / 2^(bits-1)` in float32, rounded to `scale_dtype`: negative when `m`
///   is positive, so `m` itself gets code 0 and is exact; an all-zero block gets scale `-0.0`;
/// - `code = clamp(round(v * (1 / scale) + 2^(bits-1)), 0, 2^bits - 1)` in float32 with the
///   stored (rounded) scale, rounding half away from zero (0 instead of `1 / scale` when the
///   scale is 0). Only a value equal in magnitude to a negative `m` is clamped (one step low);
///   every other element is within `|scale| / 2` (plus float32 rounding).
///
/// Padding codes past K are the zero point (ONNX Runtime leaves them as the caller's buffer
/// had them; they mean nothing either way).
///
/// Errors: unsupported bits or block_size (see [`Layout::new`]), `w.len() != n * k`, a
/// non-finite value in `w`, a `scale_dtype` other than float32 or float16.
pub fn quantize_to(
    w: &[f32],
    n: usize,
    k: usize,
    bits: u32,
    block_size: usize,
    scale_dtype: DType,
) -> Result<Quantized, RefError> {
    let layout = Layout::new(n, k, bits, block_size)?;
    if n.checked_mul(k) != Some(w.len()) {
        return Err(RefError::BadArgument(format!(
            "w holds {} values, expected N*K = {n}*{k}",
            w.len()
        )));
    }
    if let Some(i) = w.iter().position(|v| !v.is_finite()) {
        return Err(RefError::BadArgument(format!(
            "w[{}, {}] = {} is not finite",
            i / k,
            i % k,
            w[i]
        )));
    }
    let round_scale: fn(f32) -> f32 = match scale_dtype {
        DType::F32 => |s| s,
        DType::F16 => |s| half::f16::from_f32(s).to_f32(),
        DType::U8 => {
            return Err(RefError::BadArgument(
                "scales must be float32 or float16, not uint8".into(),
            ))
        }
    };
    let zp = layout.zero_point();
    let per_byte = 8 / bits;
    let fill = (0..per_byte).fold(0u8, |acc, i| acc | (zp << (i * bits)));
    let mut packed = vec![fill; layout.packed_len()];
    let mut scales = vec![0f32; layout.scales_len()];
    let zp_f = f32::from(zp);
    let max_code = f32::from(layout.max_code());
    for row in 0..n {
        let w_row = &w[row * k..(row + 1) * k];
        for (b, block) in w_row.chunks(block_size).enumerate() {
            // Strict comparisons, as ONNX Runtime's: of 0.0 and -0.0 the first one seen stays.
            let (mut lo, mut hi) = (f32::MAX, -f32::MAX);
            for &v in block {
                if v < lo {
                    lo = v;
                }
                if v > hi {
                    hi = v;
                }
            }
            let m = if hi.abs() > lo.abs() { hi } else { lo };
            let scale = round_scale(-m / zp_f);
            scales[row * layout.k_blocks + b] = scale;
            let recip = if scale != 0.0 { 1.0 / scale } else { 0.0 };
            for (j, &v) in block.iter().enumerate() {
                let code = (v * recip + zp_f).round().clamp(0.0, max_code) as u8;
                layout.set_code(&mut packed, row, b * block_size + j, code);
            }
        }
    }
    Ok(Quantized { packed, scales })
}

/// Dequantizes packed weights to `[N, K]` row-major f64:
/// `W[n, k] = (code - 2^(bits-1)) * scales[n, k / block_size]`, padding codes ignored.
///
/// Errors: unsupported bits or block_size (see [`Layout::new`]), `packed` not
/// `N * k_blocks * blob_size` bytes, `scales` not `N * k_blocks` values.
pub fn dequantize(
    packed: &[u8],
    scales: &[f64],
    n: usize,
    k: usize,
    bits: u32,
    block_size: usize,
) -> Result<Vec<f64>, RefError> {
    let layout = Layout::new(n, k, bits, block_size)?;
    if packed.len() != layout.packed_len() {
        return Err(RefError::BadArgument(format!(
            "packed holds {} bytes, expected N*k_blocks*blob_size = {}*{}*{} = {}",
            packed.len(),
            n,
            layout.k_blocks,
            layout.blob_size,
            layout.packed_len()
        )));
    }
    if scales.len() != layout.scales_len() {
        return Err(RefError::BadArgument(format!(
            "scales holds {} values, expected N*k_blocks = {}*{} = {}",
            scales.len(),
            n,
            layout.k_blocks,
            layout.scales_len()
        )));
    }
    let mut w = vec![0f64; n * k];
    if k > 0 {
        for (row, out) in w.chunks_exact_mut(k).enumerate() {
            layout.dequantize_row(
                &packed[row * layout.row_bytes()..(row + 1) * layout.row_bytes()],
                &scales[row * layout.k_blocks..(row + 1) * layout.k_blocks],
                out,
            );
        }
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The worked example of op-semantics.md: 4 bits, block 16, K = 20, N = 1.
    const EXAMPLE: [u8; 16] = [
        0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE, // block 0: codes 0..15
        0x10, 0x32, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, // block 1: codes 0,1,2,3 then padding
    ];

    fn example_w() -> Vec<f64> {
        // Block 0: (0..16 - 8) * 0.5 = -4, -3.5, ..., 3.5; block 1: (0..4 - 8) * 2 = -16..-10.
        let mut w: Vec<f64> = (0..16).map(|c| (c as f64 - 8.0) * 0.5).collect();
        w.extend([-16.0, -14.0, -12.0, -10.0]);
        w
    }

    #[test]
    fn sizes() {
        assert_eq!(blob_size(32, 4), 16);
        assert_eq!(blob_size(16, 2), 4);
        assert_eq!(blob_size(128, 8), 128);
        assert_eq!(k_blocks(20, 16), 2);
        assert_eq!(k_blocks(32, 16), 2);
        assert_eq!(k_blocks(0, 16), 0);
        assert_eq!(zero_point(2), 2);
        assert_eq!(zero_point(4), 8);
        assert_eq!(zero_point(8), 128);
        let l = Layout::new(3, 20, 4, 16).unwrap();
        assert_eq!((l.k_blocks(), l.blob_size(), l.row_bytes()), (2, 8, 16));
        assert_eq!(l.packed_shape(), vec![3, 2, 8]);
        assert_eq!(l.scales_shape(), vec![3, 2]);
        assert_eq!((l.packed_len(), l.scales_len(), l.max_code()), (48, 6, 15));
    }

    #[test]
    fn worked_example_dequantizes() {
        let w = dequantize(&EXAMPLE, &[0.5, 2.0], 1, 20, 4, 16).unwrap();
        assert_eq!(w, example_w());
        let codes: Vec<u8> = (0..20)
            .map(|k| code_at(&EXAMPLE, 0, k, 2, 8, 4, 16))
            .collect();
        let mut expected: Vec<u8> = (0..16).collect();
        expected.extend([0, 1, 2, 3]);
        assert_eq!(codes, expected);
        // The padding codes read as 0xA.
        let l = Layout::new(1, 20, 4, 16).unwrap();
        assert!((20..32).all(|k| l.code_at(&EXAMPLE, 0, k) == 0xA));
    }

    #[test]
    fn worked_example_quantizes() {
        let w: Vec<f32> = example_w().iter().map(|&v| v as f32).collect();
        let q = quantize(&w, 1, 20, 4, 16).unwrap();
        assert_eq!(q.scales, vec![0.5, 2.0]);
        // Same bytes, except that padding holds the zero point (0x8 nibbles).
        let mut expected = EXAMPLE;
        expected[10..].fill(0x88);
        assert_eq!(q.packed, expected);
    }

    #[test]
    fn two_bit_example() {
        // 0xE4 = 0b11_10_01_00: codes (0, 1, 2, 3) = (-2, -1, 0, 1) * scale.
        let w = dequantize(&[0xE4], &[0.25], 1, 4, 2, 4).unwrap();
        assert_eq!(w, vec![-0.5, -0.25, 0.0, 0.25]);
        let q = quantize(&[-0.5, -0.25, 0.0, 0.25], 1, 4, 2, 4).unwrap();
        assert_eq!(q.packed, vec![0xE4]);
        assert_eq!(q.scales, vec![0.25]);
        // With block 16 and K = 4 the other 3 bytes are padding: zero point 2 = 0b10 each.
        let q = quantize(&[-0.5, -0.25, 0.0, 0.25], 1, 4, 2, 16).unwrap();
        assert_eq!(q.packed, vec![0xE4, 0xAA, 0xAA, 0xAA]);
        let w = dequantize(&[0xE4, 0x00, 0xFF, 0x12], &[0.25], 1, 4, 2, 16).unwrap();
        assert_eq!(w, vec![-0.5, -0.25, 0.0, 0.25]);
    }

    #[test]
    fn eight_bit_example() {
        // Byte = code; value = (code - 128) * scale.
        let bytes = [0u8, 127, 128, 129, 255, 64, 200, 1];
        let w = dequantize(&bytes, &[0.25], 1, 8, 8, 8).unwrap();
        assert_eq!(w, vec![-32.0, -0.25, 0.0, 0.25, 31.75, -16.0, 18.0, -31.75]);
        let wf: Vec<f32> = w.iter().map(|&v| v as f32).collect();
        let q = quantize(&wf, 1, 8, 8, 8).unwrap();
        assert_eq!(q.packed, bytes.to_vec());
        assert_eq!(q.scales, vec![0.25]);
    }

    #[test]
    fn zero_block_and_clamp() {
        let q = quantize(&[0.0; 4], 1, 4, 4, 4).unwrap();
        // -0.0, as ONNX Runtime stores it (-m / 8 with m = 0).
        assert_eq!(q.scales[0].to_bits(), (-0.0f32).to_bits());
        assert_eq!(q.packed, vec![0x88, 0x88]);
        assert_eq!(
            dequantize(&q.packed, &[0.0], 1, 4, 4, 4).unwrap(),
            vec![0.0; 4]
        );
        // 8 and -8 tie in magnitude: the negative one sets the scale (+1), so +8 maps to +8
        // steps, clamped to code 15 (+7 steps).
        let q = quantize(&[8.0, -8.0, 0.0, 3.0], 1, 4, 4, 4).unwrap();
        assert_eq!(q.scales, vec![1.0]);
        let codes: Vec<u8> = (0..4)
            .map(|k| code_at(&q.packed, 0, k, 1, 2, 4, 4))
            .collect();
        assert_eq!(codes, vec![15, 0, 8, 11]);
        // A positive largest magnitude gives a negative scale and code 0, exact.
        let q = quantize(&[8.0, -7.0, 0.0, 3.0], 1, 4, 4, 4).unwrap();
        assert_eq!(q.scales, vec![-1.0]);
        let codes: Vec<u8> = (0..4)
            .map(|k| code_at(&q.packed, 0, k, 1, 2, 4, 4))
            .collect();
        assert_eq!(codes, vec![0, 15, 8, 5]);
    }

    /// Codes and scales ONNX Runtime 1.32 produced for these weights
    /// (`onnxruntime.capi._pybind_state.quantize_matmul_{2,4,8}bits`, symmetric, block 16, the
    /// weights as one column of MatMul's B), unpacked per element: the padding is left out.
    #[test]
    fn matches_onnx_runtime_examples() {
        let w1 = [8.0f32, -4.0, 0.0, 3.0, 1.0, 0.5, -0.5, 1.5];
        let w2 = [-8.0f32, 4.0, 0.0, 3.0, 1.0, 0.5, -0.5, 1.5, 2.5];
        let cases: [(&[f32], u32, f32, &[u8]); 6] = [
            (&w1, 4, -1.0, &[0, 12, 8, 5, 7, 8, 9, 7]),
            (&w1, 8, -0.0625, &[0, 192, 128, 80, 112, 120, 136, 104]),
            (&w1, 2, -4.0, &[0, 3, 2, 1, 2, 2, 2, 2]),
            (&w2, 4, 1.0, &[0, 12, 8, 11, 9, 9, 8, 10, 11]),
            (&w2, 8, 0.0625, &[0, 192, 128, 176, 144, 136, 120, 152, 168]),
            (&w2, 2, 4.0, &[0, 3, 2, 3, 2, 2, 2, 2, 3]),
        ];
        for (w, bits, scale, codes) in cases {
            for dtype in [DType::F32, DType::F16] {
                let q = quantize_to(w, 1, w.len(), bits, 16, dtype).unwrap();
                assert_eq!(q.scales, vec![scale], "bits {bits} {dtype}");
                let l = Layout::new(1, w.len(), bits, 16).unwrap();
                let got: Vec<u8> = (0..w.len()).map(|k| l.code_at(&q.packed, 0, k)).collect();
                assert_eq!(got, codes, "bits {bits} {dtype}");
            }
        }
    }

    #[test]
    fn float16_scales_are_rounded_before_the_codes() {
        // max 1.0 / -8 = -0.125 is exact in f16; 0.1 / -8 is not: the stored f16 scale is the
        // one the codes are computed with, and is returned exactly.
        let w = [0.1f32, 0.05, -0.0375, 0.0];
        let q16 = quantize_to(&w, 1, 4, 4, 4, DType::F16).unwrap();
        let s16 = half::f16::from_f32(-0.1 / 8.0).to_f32();
        assert_eq!(q16.scales, vec![s16]);
        assert_ne!(s16, -0.1f32 / 8.0);
        let l = Layout::new(1, 4, 4, 4).unwrap();
        let codes: Vec<u8> = (0..4).map(|k| l.code_at(&q16.packed, 0, k)).collect();
        let want: Vec<u8> = w
            .iter()
            .map(|&v| (v * (1.0 / s16) + 8.0).round().clamp(0.0, 15.0) as u8)
            .collect();
        assert_eq!(codes, want);
        assert!(matches!(
            quantize_to(&w, 1, 4, 4, 4, DType::U8),
            Err(RefError::BadArgument(_))
        ));
    }

    #[test]
    fn set_code_keeps_neighbours() {
        for bits in [2u32, 4, 8] {
            let l = Layout::new(2, 10, bits, 8).unwrap();
            let mut packed = vec![0u8; l.packed_len()];
            for n in 0..2 {
                for k in 0..16 {
                    l.set_code(&mut packed, n, k, ((n * 16 + k) as u8) & l.max_code());
                }
            }
            for n in 0..2 {
                for k in 0..16 {
                    assert_eq!(
                        l.code_at(&packed, n, k),
                        ((n * 16 + k) as u8) & l.max_code()
                    );
                }
            }
        }
    }

    #[test]
    fn errors() {
        assert_eq!(Layout::new(1, 16, 3, 16), Err(RefError::UnsupportedBits(3)));
        assert!(matches!(
            Layout::new(1, 16, 4, 0),
            Err(RefError::BadArgument(_))
        ));
        assert!(matches!(
            Layout::new(1, 16, 2, 6),
            Err(RefError::BadArgument(_))
        ));
        assert!(matches!(
            Layout::new(usize::MAX, 16, 4, 16),
            Err(RefError::BadArgument(_))
        ));
        assert!(matches!(
            quantize(&[1.0; 5], 1, 4, 4, 4),
            Err(RefError::BadArgument(_))
        ));
        assert!(matches!(
            quantize(&[1.0, f32::NAN], 1, 2, 4, 4),
            Err(RefError::BadArgument(_))
        ));
        assert!(matches!(
            quantize(&[f32::INFINITY], 1, 1, 4, 4),
            Err(RefError::BadArgument(_))
        ));
        assert_eq!(
            quantize(&[1.0], 1, 1, 5, 4),
            Err(RefError::UnsupportedBits(5))
        );
        assert!(matches!(
            dequantize(&[0; 7], &[1.0; 2], 1, 20, 4, 16),
            Err(RefError::BadArgument(_))
        ));
        assert!(matches!(
            dequantize(&[0; 16], &[1.0; 3], 1, 20, 4, 16),
            Err(RefError::BadArgument(_))
        ));
        assert_eq!(
            dequantize(&[0; 16], &[1.0; 2], 1, 20, 7, 16),
            Err(RefError::UnsupportedBits(7))
        );
        let msg = dequantize(&[0; 15], &[1.0; 2], 1, 20, 4, 16)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("15 bytes") && msg.contains("16"), "{msg}");
    }

    /// Bits, block_size (whole bytes) and a K that is often not a multiple of it.
    fn geometry() -> impl Strategy<Value = (u32, usize, usize, usize)> {
        (
            prop_oneof![Just(2u32), Just(4), Just(8)],
            prop_oneof![Just(4usize), Just(8), Just(16), Just(32), Just(64)],
        )
            .prop_flat_map(|(bits, bs)| (Just(bits), Just(bs), 1usize..4, 1usize..150))
    }

    proptest! {
        #[test]
        fn round_trip_within_half_step(
            (bits, bs, n, k) in geometry(),
            seed in any::<u64>(),
            magnitude in prop_oneof![Just(1e-3f32), Just(1.0), Just(1e3)],
        ) {
            use rand::{Rng, SeedableRng};
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let w: Vec<f32> = (0..n * k).map(|_| rng.gen_range(-magnitude..=magnitude)).collect();
            let q = quantize(&w, n, k, bits, bs).unwrap();
            let scales: Vec<f64> = q.scales.iter().map(|&s| f64::from(s)).collect();
            let back = dequantize(&q.packed, &scales, n, k, bits, bs).unwrap();
            let kb = k_blocks(k, bs);
            let top = f64::from(zero_point(bits)) - 0.5;
            for (i, (&orig, &got)) in w.iter().zip(&back).enumerate() {
                let s = scales[(i / k) * kb + (i % k) / bs].abs();
                let err = (f64::from(orig) - got).abs();
                // Only a value as large as a negative largest magnitude is clamped (one step
                // low). The quantizer divides in float32, so a value within float32 rounding of
                // a tie (w / s = c + 0.5) may round the other way: at most a few float32 ulps
                // of |w| beyond the half step (seen: 1.5e-8 past it at |w| 0.17, 8 bits).
                let bound = if f64::from(orig).abs() >= top * s { s } else { s / 2.0 };
                let slack = (f64::from(orig).abs() + s) * 1e-6;
                prop_assert!(err <= bound + slack, "w[{i}]={orig} got {got} scale {s}");
            }
            // Padding codes are the zero point.
            let l = Layout::new(n, k, bits, bs).unwrap();
            for row in 0..n {
                for kk in k..kb * bs {
                    prop_assert_eq!(l.code_at(&q.packed, row, kk), l.zero_point());
                }
            }
        }

        #[test]
        fn representable_is_exact(
            (bits, bs, n, k) in geometry(),
            seed in any::<u64>(),
        ) {
            use rand::{Rng, SeedableRng};
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let l = Layout::new(n, k, bits, bs).unwrap();
            let kb = l.k_blocks();
            // Scales with few mantissa bits so that (code - zp) * scale is exact in f32.
            let scales: Vec<f32> = (0..n * kb)
                .map(|_| rng.gen_range(1..1024) as f32 * 2f32.powi(rng.gen_range(-20..0)))
                .collect();
            let mut codes: Vec<u8> = (0..n * k).map(|_| rng.gen_range(0..=l.max_code())).collect();
            // Each block holds code 0 (value -2^(bits-1) * scale), its largest magnitude, so that
            // quantize picks the same scale back.
            for row in 0..n {
                for b in 0..kb {
                    let len = (k - b * bs).min(bs);
                    codes[row * k + b * bs + rng.gen_range(0..len)] = 0;
                }
            }
            let zp = f32::from(l.zero_point());
            let w: Vec<f32> = codes
                .iter()
                .enumerate()
                .map(|(i, &c)| (f32::from(c) - zp) * scales[(i / k) * kb + (i % k) / bs])
                .collect();
            let q = quantize(&w, n, k, bits, bs).unwrap();
            prop_assert_eq!(&q.scales, &scales);
            for row in 0..n {
                for kk in 0..k {
                    prop_assert_eq!(l.code_at(&q.packed, row, kk), codes[row * k + kk]);
                }
            }
            let scales64: Vec<f64> = scales.iter().map(|&s| f64::from(s)).collect();
            let back = dequantize(&q.packed, &scales64, n, k, bits, bs).unwrap();
            let w64: Vec<f64> = w.iter().map(|&v| f64::from(v)).collect();
            prop_assert_eq!(back, w64);
        }
    }
}
