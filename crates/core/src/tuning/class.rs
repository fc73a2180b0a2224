//! Shape classes ([`ShapeClass`]): what tuned values are keyed by.

use crate::manifest::Manifest;
use crate::op::OpCall;
use crate::tensor::DType;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Rows of A, bucketed: the tuned values of one bucket apply to every row count in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RowsBucket {
    /// One row (decode).
    #[serde(rename = "1")]
    One,
    /// 2 to 16 rows.
    #[serde(rename = "2-16")]
    Few,
    /// 17 to 128 rows.
    #[serde(rename = "17-128")]
    Some,
    /// More than 128 rows (prefill).
    #[serde(rename = ">128")]
    Many,
}

impl RowsBucket {
    /// The bucket of `rows`; `None` for 0 rows (nothing runs).
    pub fn of(rows: u64) -> Option<RowsBucket> {
        match rows {
            0 => None,
            1 => Some(RowsBucket::One),
            2..=16 => Some(RowsBucket::Few),
            17..=128 => Some(RowsBucket::Some),
            _ => Some(RowsBucket::Many),
        }
    }
    /// `1`, `2-16`, `17-128` or `>128`.
    pub fn name(self) -> &'static str {
        match self {
            RowsBucket::One => "1",
            RowsBucket::Few => "2-16",
            RowsBucket::Some => "17-128",
            RowsBucket::Many => ">128",
        }
    }
}

/// What tuned values are keyed by. Biases and the residual output are left out: they change only
/// the kernels' epilogues, not their shape.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeClass {
    /// T1 (the type of A).
    pub dtype: DType,
    /// Bits per weight.
    pub bits: i64,
    /// Quantization block size.
    pub block_size: i64,
    /// Hidden size K.
    pub k: i64,
    /// Output size N.
    pub n: i64,
    /// Rows of A, bucketed.
    pub rows: RowsBucket,
    /// `skip` given.
    pub skip: bool,
    /// `norm_scale` given.
    pub norm: bool,
}

impl ShapeClass {
    /// The class of a call: attributes as given, else the manifest's defaults (`bits`); `None`
    /// when the call lacks what a class needs (A, K, N, bits, block size) or has no rows.
    pub fn of(call: &OpCall, manifest: &Manifest) -> Option<ShapeClass> {
        let attr = |name: &str| -> Option<i64> {
            match call.attrs.get(name) {
                Some(v) => v.as_int(),
                None => manifest
                    .file
                    .attributes
                    .get(name)?
                    .default
                    .as_ref()?
                    .as_i64(),
            }
        };
        let input_index = |onnx: &str| manifest.inputs.iter().position(|a| a.decl.onnx == onnx);
        let present = |onnx: &str| {
            input_index(onnx)
                .and_then(|i| call.inputs.get(i))
                .is_some_and(Option::is_some)
        };
        let a = call.inputs.get(input_index("A").unwrap_or(0))?.as_ref()?;
        let (_, lead) = a.shape.split_last()?;
        let rows = lead
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))?;
        Some(ShapeClass {
            dtype: a.dtype,
            bits: attr("bits")?,
            block_size: attr("block_size")?,
            k: attr("K")?,
            n: attr("N")?,
            rows: RowsBucket::of(rows)?,
            skip: present("skip"),
            norm: present("norm_scale"),
        })
    }
}

impl fmt::Display for ShapeClass {
    /// `float16 q4 b32 K=4096 N=14336 rows 1 skip+norm`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} q{} b{} K={} N={} rows {}",
            self.dtype,
            self.bits,
            self.block_size,
            self.k,
            self.n,
            self.rows.name()
        )?;
        match (self.skip, self.norm) {
            (true, true) => f.write_str(" skip+norm"),
            (true, false) => f.write_str(" skip"),
            (false, true) => f.write_str(" norm"),
            (false, false) => f.write_str(" plain"),
        }
    }
}
