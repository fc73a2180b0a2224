//! Plain host tensors: a dtype, a shape and little-endian bytes.
//!
//! Every part of the project (reference, ONNX I/O, GPU runtime, CLI) exchanges tensors in this
//! one form, so no part needs to know another's internals.

use half::f16;
use serde::{Deserialize, Serialize};

/// Element type of a tensor. Only the types the operator can see exist here.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DType {
    /// IEEE 754 binary32.
    #[serde(rename = "float32")]
    F32,
    /// IEEE 754 binary16.
    #[serde(rename = "float16")]
    F16,
    /// Unsigned byte (packed quantized weights).
    #[serde(rename = "uint8")]
    U8,
}

impl DType {
    /// The ONNX / manifest name: `"float32"`, `"float16"`, `"uint8"`.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F16 => "float16",
            DType::U8 => "uint8",
        }
    }
    /// The short name the CLI, bench labels and reports use: `"f32"`, `"f16"`, `"u8"` (which
    /// [`DType::from_name`] accepts too).
    pub fn short_name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::U8 => "u8",
        }
    }
    /// Parses an ONNX / manifest dtype name (also accepts the short forms `f32`, `f16`, `u8`).
    pub fn from_name(s: &str) -> Option<DType> {
        match s {
            "float32" | "float" | "f32" => Some(DType::F32),
            "float16" | "f16" => Some(DType::F16),
            "uint8" | "u8" => Some(DType::U8),
            _ => None,
        }
    }
    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            DType::F32 => 4,
            DType::F16 => 2,
            DType::U8 => 1,
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What the planner needs to know of a tensor: its dtype and shape, not its data.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TensorInfo {
    /// Element type.
    pub dtype: DType,
    /// Dimensions, outermost first.
    pub shape: Vec<usize>,
}

impl TensorInfo {
    /// Creates a tensor description.
    pub fn new(dtype: DType, shape: Vec<usize>) -> Self {
        TensorInfo { dtype, shape }
    }
    /// Number of elements (1 for a scalar shape `[]`).
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }
}

/// A host tensor: dtype, shape and `numel * dtype.size()` little-endian bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// Element type.
    pub dtype: DType,
    /// Dimensions, outermost first.
    pub shape: Vec<usize>,
    /// Little-endian element bytes, row-major.
    pub data: Vec<u8>,
}

/// Error for a tensor whose byte length does not match its dtype and shape.
#[derive(Debug, thiserror::Error)]
#[error("tensor data holds {got} bytes but {dtype} {shape:?} needs {want}")]
pub struct TensorSizeError {
    /// Element type.
    pub dtype: DType,
    /// Shape.
    pub shape: Vec<usize>,
    /// Bytes given.
    pub got: usize,
    /// Bytes needed.
    pub want: usize,
}

impl Tensor {
    /// The largest magnitude of the tensor's finite values (0 when it has none), read in place
    /// from its bytes without a copy ([`max_finite_abs`]).
    pub fn max_finite_abs(&self) -> f64 {
        max_finite_abs(self.dtype, &self.data)
    }

    /// Creates a tensor from raw bytes, checking the length.
    pub fn from_bytes(
        dtype: DType,
        shape: Vec<usize>,
        data: Vec<u8>,
    ) -> Result<Tensor, TensorSizeError> {
        let want = shape.iter().product::<usize>() * dtype.size();
        if data.len() != want {
            return Err(TensorSizeError {
                dtype,
                shape,
                got: data.len(),
                want,
            });
        }
        Ok(Tensor { dtype, shape, data })
    }
    /// A float32 tensor.
    pub fn from_f32(shape: Vec<usize>, values: &[f32]) -> Tensor {
        assert_eq!(
            shape.iter().product::<usize>(),
            values.len(),
            "shape/value count mismatch"
        );
        Tensor {
            dtype: DType::F32,
            shape,
            data: bytemuck::cast_slice(values).to_vec(),
        }
    }
    /// A float16 tensor, rounding each value to nearest-even.
    pub fn from_f32_as_f16(shape: Vec<usize>, values: &[f32]) -> Tensor {
        let h: Vec<f16> = values.iter().map(|&v| f16::from_f32(v)).collect();
        Tensor::from_f16(shape, &h)
    }
    /// A float16 tensor.
    pub fn from_f16(shape: Vec<usize>, values: &[f16]) -> Tensor {
        assert_eq!(
            shape.iter().product::<usize>(),
            values.len(),
            "shape/value count mismatch"
        );
        Tensor {
            dtype: DType::F16,
            shape,
            data: bytemuck::cast_slice(values).to_vec(),
        }
    }
    /// A float tensor of `dtype` (F32 or F16) from f32 values (rounded for F16).
    pub fn from_floats(dtype: DType, shape: Vec<usize>, values: &[f32]) -> Tensor {
        match dtype {
            DType::F32 => Tensor::from_f32(shape, values),
            DType::F16 => Tensor::from_f32_as_f16(shape, values),
            DType::U8 => panic!("from_floats: uint8 is not a float type"),
        }
    }
    /// A uint8 tensor.
    pub fn from_u8(shape: Vec<usize>, values: Vec<u8>) -> Tensor {
        assert_eq!(
            shape.iter().product::<usize>(),
            values.len(),
            "shape/value count mismatch"
        );
        Tensor {
            dtype: DType::U8,
            shape,
            data: values,
        }
    }
    /// The dtype and shape.
    pub fn info(&self) -> TensorInfo {
        TensorInfo {
            dtype: self.dtype,
            shape: self.shape.clone(),
        }
    }
    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }
    /// Every element widened to f64 (uint8 as its integer value).
    pub fn to_f64(&self) -> Vec<f64> {
        match self.dtype {
            DType::F32 => self
                .data
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
                .collect(),
            DType::F16 => self
                .data
                .chunks_exact(2)
                .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f64())
                .collect(),
            DType::U8 => self.data.iter().map(|&b| b as f64).collect(),
        }
    }
    /// Every element as f32 (uint8 as its integer value).
    pub fn to_f32(&self) -> Vec<f32> {
        match self.dtype {
            DType::F32 => self
                .data
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            DType::F16 => self
                .data
                .chunks_exact(2)
                .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
            DType::U8 => self.data.iter().map(|&b| b as f32).collect(),
        }
    }
    /// A float tensor of `dtype` holding `values` rounded from f64 (round to nearest).
    pub fn from_f64(dtype: DType, shape: Vec<usize>, values: &[f64]) -> Tensor {
        match dtype {
            DType::F32 => {
                let v: Vec<f32> = values.iter().map(|&x| x as f32).collect();
                Tensor::from_f32(shape, &v)
            }
            DType::F16 => {
                let v: Vec<f16> = values.iter().map(|&x| f16::from_f64(x)).collect();
                Tensor::from_f16(shape, &v)
            }
            DType::U8 => panic!("from_f64: uint8 is not a float type"),
        }
    }
}

/// The largest magnitude of the finite values of `data`, elements of `dtype` in little-endian
/// bytes (0 when there are none; uint8 elements as their values), read in place.
pub fn max_finite_abs(dtype: DType, data: &[u8]) -> f64 {
    let keep = |m: f32, v: f32| if v.is_finite() { m.max(v.abs()) } else { m };
    let m = match dtype {
        // On the bits: a finite magnitude's bits order as its value (a loop the compiler
        // vectorises, ~0.1 ms per million elements).
        DType::F32 => f32::from_bits(
            data.chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & 0x7fff_ffff)
                .fold(0, |m, a| if a < 0x7f80_0000 { m.max(a) } else { m }),
        ),
        DType::F16 => data
            .chunks_exact(2)
            .map(|b| f16::from_le_bytes([b[0], b[1]]).to_f32())
            .fold(0.0, keep),
        DType::U8 => data.iter().map(|&b| f32::from(b)).fold(0.0, keep),
    };
    f64::from(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_sizes() {
        let t = Tensor::from_f32(vec![2, 2], &[1.0, -2.5, 3.0, 0.0]);
        assert_eq!(t.to_f64(), vec![1.0, -2.5, 3.0, 0.0]);
        let h = Tensor::from_f32_as_f16(vec![3], &[1.0, 65504.0, 0.1]);
        assert_eq!(h.data.len(), 6);
        assert_eq!(h.to_f32()[1], 65504.0);
        assert!(Tensor::from_bytes(DType::F32, vec![3], vec![0; 11]).is_err());
        assert_eq!(DType::from_name("float16"), Some(DType::F16));
        assert_eq!(DType::F16.name(), "float16");
    }
}
