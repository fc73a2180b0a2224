//! One call of the operator as the planner sees it: attributes, input tensor descriptions (in
//! ONNX order, `None` for an omitted optional input) and which outputs are requested.

use crate::tensor::TensorInfo;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// An ONNX attribute value (the kinds this operator's attributes can take).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AttrValue {
    /// `INT`.
    Int(i64),
    /// `FLOAT` (ONNX stores f32; kept widened).
    Float(f64),
    /// `STRING` (UTF-8).
    Str(String),
    /// `INTS`.
    Ints(Vec<i64>),
    /// `FLOATS`.
    Floats(Vec<f64>),
}

impl AttrValue {
    /// The value as an integer, if it is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            AttrValue::Int(v) => Some(*v),
            _ => None,
        }
    }
    /// The value as a float (ints widen), if it is a number.
    pub fn as_float(&self) -> Option<f64> {
        match self {
            AttrValue::Int(v) => Some(*v as f64),
            AttrValue::Float(v) => Some(*v),
            _ => None,
        }
    }
    /// The value as a string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            AttrValue::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Everything about one operator call that a plan depends on, except the device and tunables.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct OpCall {
    /// Attributes as given on the node (defaults are applied by the planner).
    pub attrs: IndexMap<String, AttrValue>,
    /// Inputs in ONNX order; `None` for an omitted optional input. Missing trailing entries are
    /// omitted inputs.
    pub inputs: Vec<Option<TensorInfo>>,
    /// Which outputs are requested, in ONNX order. Missing trailing entries are not requested;
    /// output 0 (`Y`) is always produced.
    pub outputs: Vec<bool>,
}

impl OpCall {
    /// The call of input descriptions `inputs` (ONNX order, `None` where omitted), the
    /// attributes as given and the outputs requested (ONNX order; output 0 is always produced).
    /// Every caller that has descriptions rather than a shape (the Python package, the ONNX
    /// Runtime library) builds its calls here.
    pub fn from_infos(
        attrs: IndexMap<String, AttrValue>,
        inputs: Vec<Option<TensorInfo>>,
        want_outputs: &[bool],
    ) -> OpCall {
        OpCall {
            attrs,
            inputs,
            outputs: want_outputs.to_vec(),
        }
    }

    /// The call for host tensors: their dtypes and shapes, the attributes as given, the outputs
    /// requested (ONNX order; output 0 is always produced).
    pub fn from_tensors(
        attrs: &IndexMap<String, AttrValue>,
        inputs: &[Option<&crate::Tensor>],
        want_outputs: &[bool],
    ) -> OpCall {
        OpCall::from_infos(
            attrs.clone(),
            inputs.iter().map(|t| t.map(crate::Tensor::info)).collect(),
            want_outputs,
        )
    }
}

/// A node's attributes in the order the project writes them: `K`, `N`, `bits`, `block_size`,
/// `activation = "silu"` (the only activation the operator has) and, when given, `epsilon`.
/// Values are passed as given; the planner and the reference check them.
pub fn node_attrs(
    k: i64,
    n: i64,
    bits: i64,
    block_size: i64,
    epsilon: Option<f64>,
) -> IndexMap<String, AttrValue> {
    let mut attrs = IndexMap::new();
    attrs.insert("K".into(), AttrValue::Int(k));
    attrs.insert("N".into(), AttrValue::Int(n));
    attrs.insert("bits".into(), AttrValue::Int(bits));
    attrs.insert("block_size".into(), AttrValue::Int(block_size));
    attrs.insert("activation".into(), AttrValue::Str("silu".into()));
    if let Some(e) = epsilon {
        attrs.insert("epsilon".into(), AttrValue::Float(e));
    }
    attrs
}

/// The shape of one MatMulNBitsMlp call: the one description of a call's shape without its
/// data, used to build an [`OpCall`] without a model (tests, `plan --shape`, benchmarks), to
/// generate a reference case (`nbits_mlp_reference::generate`), and as the benchmarks' shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MlpShape {
    /// Hidden size K.
    pub k: usize,
    /// Output size N.
    pub n: usize,
    /// Leading dimensions of A (`[rows]` for rank 2, `[b, s]` for rank 3); may hold 0.
    pub lead: Vec<usize>,
    /// T1: float32 or float16.
    pub dtype: crate::tensor::DType,
    /// Bits per weight code (2, 4, 8).
    pub bits: u32,
    /// Codes per quantization block.
    pub block_size: usize,
    /// skip input present.
    pub skip: bool,
    /// norm_scale input present.
    pub norm: bool,
    /// input_skip_bias_sum output requested.
    pub residual: bool,
    /// gate_bias present.
    pub gate_bias: bool,
    /// up_bias present.
    pub up_bias: bool,
}

impl Default for MlpShape {
    /// `MlpShape::new(64, 32, 1)`: K=64, N=32, one row, rank 2, float32, 4 bits, block 32, no
    /// optional input.
    fn default() -> Self {
        MlpShape::new(64, 32, 1)
    }
}

impl MlpShape {
    /// A plain call: `rows` rows, float32, 4 bits, block 32, no optional inputs.
    pub fn new(k: usize, n: usize, rows: usize) -> MlpShape {
        MlpShape {
            k,
            n,
            lead: vec![rows],
            dtype: crate::tensor::DType::F32,
            bits: 4,
            block_size: 32,
            skip: false,
            norm: false,
            residual: false,
            gate_bias: false,
            up_bias: false,
        }
    }
    /// Rows of A (the product of the leading dimensions).
    pub fn rows(&self) -> usize {
        self.lead.iter().product()
    }
    /// The shape of A (and skip): the leading dimensions, then K.
    pub fn a_shape(&self) -> Vec<usize> {
        let mut s = self.lead.clone();
        s.push(self.k);
        s
    }
    /// The shape of Y: the leading dimensions, then N.
    pub fn y_shape(&self) -> Vec<usize> {
        let mut s = self.lead.clone();
        s.push(self.n);
        s
    }
    /// Quantization blocks per row of a weight (`ceil(K / block_size)`; a block size of 0
    /// counts as 1).
    pub fn k_blocks(&self) -> usize {
        self.k.div_ceil(self.block_size.max(1))
    }
    /// Bytes of one packed block, `block_size * bits / 8`.
    pub fn blob_size(&self) -> usize {
        self.block_size * self.bits as usize / 8
    }
    /// Packed weight + scale bytes of gate and up together: what one call reads of its weights.
    pub fn weight_bytes(&self) -> u64 {
        let kb = self.k_blocks() as u64;
        2 * self.n as u64 * kb * (self.blob_size() as u64 + self.dtype.size() as u64)
    }
    /// Floating-point operations per call: 2 per multiply-add, rows x K x N of them for each of
    /// gate and up (the norm, silu and product are left out).
    pub fn flops(&self) -> f64 {
        4.0 * self.rows() as f64 * self.k as f64 * self.n as f64
    }
    /// The node's attributes ([`node_attrs`] without `epsilon`, so the planner's default
    /// applies); sizes beyond `i64` saturate.
    pub fn attrs(&self) -> IndexMap<String, AttrValue> {
        let int = |v: usize| i64::try_from(v).unwrap_or(i64::MAX);
        node_attrs(
            int(self.k),
            int(self.n),
            i64::from(self.bits),
            int(self.block_size),
            None,
        )
    }
    /// The operator call: [`MlpShape::attrs`], input descriptions in ONNX order, requested
    /// outputs.
    pub fn call(&self) -> OpCall {
        use crate::tensor::DType;
        let kb = self.k_blocks();
        let blob = self.blob_size();
        let f = self.dtype;
        let a_shape = self.a_shape();
        let t = |shape: Vec<usize>| Some(TensorInfo::new(f, shape));
        let w = || Some(TensorInfo::new(DType::U8, vec![self.n, kb, blob]));
        let inputs = vec![
            t(a_shape.clone()),
            if self.skip { t(a_shape.clone()) } else { None },
            if self.norm { t(vec![self.k]) } else { None },
            w(),
            t(vec![self.n, kb]),
            if self.gate_bias {
                t(vec![self.n])
            } else {
                None
            },
            w(),
            t(vec![self.n, kb]),
            if self.up_bias { t(vec![self.n]) } else { None },
        ];
        OpCall::from_infos(self.attrs(), inputs, &[true, self.residual])
    }
}

/// ONNX names of the operator's 9 inputs, in ONNX order (`com.microsoft::MatMulNBitsMlp`'s
/// schema; the manifest's `inputs` name the same tensors by their `onnx` field).
pub const INPUT_NAMES: [&str; 9] = [
    "A",
    "skip",
    "norm_scale",
    "gate_B",
    "gate_scales",
    "gate_bias",
    "up_B",
    "up_scales",
    "up_bias",
];

// What a plan's float16 staging holds of a call's values lives in `crate::ranges`; its items
// are re-exported here, beside the op's inputs they name.
pub use crate::ranges::{
    describe as describe_ranges, f16_norm_fault, f16_pair_fault, f16_range_fault, f16_sum_floor,
    plan_for_values, values_fault, values_overflow, without_f16_norm_rows, without_f16_pairs,
    without_f16_sums, without_f16_weights, ActivationRange, Magnitudes, ValueFault, F16_MAX,
    F16_PAIR_LIMIT, F16_SUM_LIMIT, F16_SUM_TERMS,
};

/// ONNX input indices of the operator's float parameters: `norm_scale`, `gate_scales`,
/// `gate_bias`, `up_scales`, `up_bias` (names in [`INPUT_NAMES`]).
pub const PARAMETER_INPUTS: [usize; 5] = [2, 4, 5, 7, 8];

/// The op's semantics for non-finite parameters (docs/DESIGN.md, "Edge values and the legal
/// space"): scales,
/// biases and norm_scale must be finite, or the kernels' different but equally valid orders of
/// operations (scale times block sum, or scale times each code) would give NaN in one and an
/// infinity in another. Returns `(ONNX input index, name, message)` for the first non-finite element
/// of a parameter given in `inputs` (ONNX order), naming the element's index (the message
/// starts with the tensor's name; callers put `input <index>` before it);
/// `None` when all are finite. Every backend calls this before computing.
pub fn non_finite_parameter(
    inputs: &[Option<&crate::Tensor>],
) -> Option<(usize, &'static str, String)> {
    PARAMETER_INPUTS.iter().find_map(|&index| {
        let name = INPUT_NAMES[index];
        let t = inputs.get(index).copied().flatten()?;
        let values = t.to_f64();
        let at = values.iter().position(|v| !v.is_finite())?;
        let value = values[at];
        let mut idx = Vec::with_capacity(t.shape.len());
        let mut rest = at;
        for d in t.shape.iter().rev() {
            idx.push(rest % d.max(&1));
            rest /= d.max(&1);
        }
        idx.reverse();
        Some((
            index,
            name,
            format!("{name}{idx:?} is {value}: scales, biases and norm_scale must be finite"),
        ))
    })
}
