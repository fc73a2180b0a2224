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
