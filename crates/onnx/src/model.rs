//! ONNX models made of `com.microsoft::MatMulNBitsMlp` nodes: loading, checking, writing.

use crate::error::OnnxError;
use crate::proto::{
    AttributeProto, AttributeType, Dimension, DimensionValue, GraphProto, ModelProto, NodeProto,
    OperatorSetIdProto, TensorShapeProto, TypeProto, TypeProtoTensor, TypeProtoValue,
    ValueInfoProto,
};
use crate::tensor_io::{
    decode_tensor, dtype_from_onnx, onnx_data_type, parent_dir, persist, size_problem,
    temp_file_with, tensor_to_proto,
};
use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, DType, OpCall, Tensor, TensorInfo};
use prost::Message;
use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The operator domain of the one supported node kind.
pub const DOMAIN: &str = "com.microsoft";
/// The operator name of the one supported node kind.
pub const OP_TYPE: &str = "MatMulNBitsMlp";
/// Most inputs a `MatMulNBitsMlp` node takes (A, skip, norm_scale, gate B/scales/bias, up B/scales/bias).
const MAX_INPUTS: usize = 9;
/// Most outputs a `MatMulNBitsMlp` node has (Y, input_skip_bias_sum).
const MAX_OUTPUTS: usize = 2;

/// Name, element type and shape of a graph input or output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueInfo {
    /// Value name.
    pub name: String,
    /// Element type; `None` when the model does not say.
    pub dtype: Option<DType>,
    /// Dimensions; `None` when even the rank is unknown. A `None` dimension is symbolic (a
    /// `dim_param`) or unknown.
    pub shape: Option<Vec<Option<usize>>>,
}

impl ValueInfo {
    /// A value of fully known dtype and shape.
    pub fn new(name: impl Into<String>, info: &TensorInfo) -> ValueInfo {
        ValueInfo {
            name: name.into(),
            dtype: Some(info.dtype),
            shape: Some(info.shape.iter().map(|&d| Some(d)).collect()),
        }
    }

    /// Why tensor `t` cannot be this value (wrong dtype, rank or fixed dimension, or data whose
    /// length does not fit its shape), if it cannot.
    pub(crate) fn mismatch(&self, t: &Tensor) -> Option<String> {
        if let Some(dtype) = self.dtype {
            if dtype != t.dtype {
                return Some(format!("got {} but the model declares {dtype}", t.dtype));
            }
        }
        if let Some(shape) = &self.shape {
            let fits = shape.len() == t.shape.len()
                && shape
                    .iter()
                    .zip(&t.shape)
                    .all(|(d, &n)| d.is_none_or(|d| d == n));
            if !fits {
                return Some(format!(
                    "got shape {:?} but the model declares {}",
                    t.shape,
                    show_shape(shape)
                ));
            }
        }
        size_problem(t)
    }
}

/// `[1, ?, 8]`.
fn show_shape(shape: &[Option<usize>]) -> String {
    let dims: Vec<String> = shape
        .iter()
        .map(|d| d.map_or("?".to_string(), |d| d.to_string()))
        .collect();
    format!("[{}]", dims.join(", "))
}

/// One `com.microsoft::MatMulNBitsMlp` node.
#[derive(Clone, Debug, PartialEq)]
pub struct MlpNode {
    /// Node name (may be empty).
    pub name: String,
    /// Input value names in ONNX order; `""` for an omitted optional input.
    pub inputs: Vec<String>,
    /// Output value names in ONNX order; `""` for an output that is not requested.
    pub outputs: Vec<String>,
    /// Attributes as written on the node (no defaults applied).
    pub attrs: IndexMap<String, AttrValue>,
}

impl MlpNode {
    /// How error messages name the node: `'name'`, or `(unnamed, output 'Y')` for a node without
    /// a name.
    pub fn label(&self) -> String {
        if !self.name.is_empty() {
            format!("'{}'", self.name)
        } else {
            format!(
                "(unnamed, output '{}')",
                self.outputs.first().map_or("", String::as_str)
            )
        }
    }
}

/// A loaded model: graph inputs and outputs, initializers and `MatMulNBitsMlp` nodes.
///
/// [`load_model`] checks that the graph is well formed: names are unique, every node input is a
/// graph input, an initializer or an output of an earlier node, and every graph output is
/// produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// The file the model was loaded from (error messages name it).
    pub path: PathBuf,
    /// Version of the `com.microsoft` opset import, if the model imports it.
    pub opset_ms: Option<i64>,
    /// Graph inputs that are not initializers, in order.
    pub inputs: Vec<ValueInfo>,
    /// Graph outputs, in order.
    pub outputs: Vec<ValueInfo>,
    /// Constant tensors by name, in file order.
    pub initializers: IndexMap<String, Tensor>,
    /// Nodes in topological (file) order.
    pub nodes: Vec<MlpNode>,
}

impl Model {
    /// The dtype and shape of every graph input; fails naming the first input whose dtype is
    /// unknown or whose shape is unknown or has a symbolic dimension.
    pub fn static_input_infos(&self) -> Result<Vec<TensorInfo>, OnnxError> {
        self.inputs
            .iter()
            .map(|vi| {
                let err = |reason: String| OnnxError::Value {
                    file: self.path.clone(),
                    kind: "input",
                    name: vi.name.clone(),
                    reason,
                };
                let dtype = vi
                    .dtype
                    .ok_or_else(|| err("element type is unknown".into()))?;
                let shape = vi
                    .shape
                    .as_ref()
                    .ok_or_else(|| err("shape is unknown".into()))?;
                let shape = shape
                    .iter()
                    .enumerate()
                    .map(|(i, d)| {
                        d.ok_or_else(|| {
                            err(format!(
                                "dimension {i} of {} is symbolic",
                                show_shape(shape)
                            ))
                        })
                    })
                    .collect::<Result<Vec<usize>, _>>()?;
                Ok(TensorInfo::new(dtype, shape))
            })
            .collect()
    }

    /// The graph of this model as a [`ModelSpec`] (for writing it again).
    pub fn to_spec(&self) -> ModelSpec {
        ModelSpec {
            nodes: self.nodes.clone(),
            inputs: self.inputs.clone(),
            outputs: self.outputs.clone(),
            initializers: self.initializers.clone(),
        }
    }
}

/// What [`write_model`] writes: a graph of `MatMulNBitsMlp` nodes.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ModelSpec {
    /// Nodes in topological order.
    pub nodes: Vec<MlpNode>,
    /// Graph inputs (not initializers), in order. Each needs a dtype.
    pub inputs: Vec<ValueInfo>,
    /// Graph outputs, in order.
    pub outputs: Vec<ValueInfo>,
    /// Constant tensors by name.
    pub initializers: IndexMap<String, Tensor>,
}

/// Loads an ONNX model whose nodes are all `com.microsoft::MatMulNBitsMlp`.
///
/// Initializers may use external data, resolved against the model's directory. Errors name the
/// file and the node (any other operator is rejected, naming its `op_type`), attribute (only
/// `INT`, `FLOAT`, `STRING`, `INTS` and `FLOATS` are supported), tensor or graph value at fault.
pub fn load_model(path: impl AsRef<Path>) -> Result<Model, OnnxError> {
    let path = path.as_ref();
    let proto = {
        let bytes =
            nbits_mlp_core::files::read_limited(path, nbits_mlp_core::files::MAX_PROTOBUF_BYTES)
                .map_err(OnnxError::io(path, "read"))?;
        ModelProto::decode(bytes.as_slice()).map_err(|source| OnnxError::Decode {
            path: path.to_path_buf(),
            kind: "ModelProto",
            source,
        })?
    };
    let opset_ms = proto
        .opset_import
        .iter()
        .find(|o| o.domain == DOMAIN)
        .map(|o| o.version);
    let graph = proto
        .graph
        .ok_or_else(|| OnnxError::invalid(path, "the model has no graph"))?;

    let mut initializers = IndexMap::new();
    for t in graph.initializer {
        let name = t.name.clone();
        let tensor =
            decode_tensor(Cow::Owned(t), Some(parent_dir(path))).map_err(|e| e.in_file(path))?;
        if initializers.insert(name.clone(), tensor).is_some() {
            return Err(OnnxError::Tensor {
                file: Some(path.to_path_buf()),
                name,
                reason: "two initializers have this name".into(),
            });
        }
    }
    let inputs = graph
        .input
        .iter()
        .filter(|vi| !initializers.contains_key(&vi.name))
        .map(|vi| value_info_from_proto(path, "input", vi))
        .collect::<Result<Vec<_>, _>>()?;
    let outputs = graph
        .output
        .iter()
        .map(|vi| value_info_from_proto(path, "output", vi))
        .collect::<Result<Vec<_>, _>>()?;
    let nodes = graph
        .node
        .into_iter()
        .map(|n| node_from_proto(path, n))
        .collect::<Result<Vec<_>, _>>()?;

    // Every node is a com.microsoft node (node_from_proto checked): the model must import that
    // opset, at a version that has the operator (it exists since version 1).
    if !nodes.is_empty() && opset_ms.is_none_or(|v| v < 1) {
        return Err(OnnxError::invalid(
            path,
            &match opset_ms {
                None => format!("the model has {DOMAIN} nodes but no opset_import for `{DOMAIN}`"),
                Some(v) => format!(
                    "opset_import `{DOMAIN}` version {v}: {OP_TYPE} needs version 1 or later"
                ),
            },
        ));
    }
    check_graph(path, &inputs, &initializers, &nodes, &outputs)?;
    Ok(Model {
        path: path.to_path_buf(),
        opset_ms,
        inputs,
        outputs,
        initializers,
        nodes,
    })
}

fn value_info_from_proto(
    file: &Path,
    kind: &'static str,
    vi: &ValueInfoProto,
) -> Result<ValueInfo, OnnxError> {
    let err = |reason: String| OnnxError::Value {
        file: file.to_path_buf(),
        kind,
        name: vi.name.clone(),
        reason,
    };
    let tensor_type = match vi.r#type.as_ref().and_then(|t| t.value.as_ref()) {
        None => {
            return Ok(ValueInfo {
                name: vi.name.clone(),
                dtype: None,
                shape: None,
            })
        }
        Some(TypeProtoValue::TensorType(t)) => t,
        Some(other) => {
            let what = match other {
                TypeProtoValue::SequenceType(_) => "a sequence",
                TypeProtoValue::MapType(_) => "a map",
                TypeProtoValue::SparseTensorType(_) => "a sparse tensor",
                _ => "an optional",
            };
            return Err(err(format!("is {what}; only tensors are supported")));
        }
    };
    let dtype = match tensor_type.elem_type {
        0 => None,
        t => Some(dtype_from_onnx(t).map_err(err)?),
    };
    let shape = tensor_type
        .shape
        .as_ref()
        .map(|s| {
            s.dim
                .iter()
                .map(|d| match d.value {
                    Some(DimensionValue::DimValue(v)) => usize::try_from(v)
                        .map(Some)
                        .map_err(|_| err(format!("negative dimension {v}"))),
                    Some(DimensionValue::DimParam(_)) | None => Ok(None),
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    Ok(ValueInfo {
        name: vi.name.clone(),
        dtype,
        shape,
    })
}

fn node_from_proto(file: &Path, n: NodeProto) -> Result<MlpNode, OnnxError> {
    let mut node = MlpNode {
        name: n.name,
        inputs: n.input,
        outputs: n.output,
        attrs: IndexMap::new(),
    };
    if n.domain != DOMAIN || n.op_type != OP_TYPE {
        let domain = if n.domain.is_empty() {
            "ai.onnx"
        } else {
            n.domain.as_str()
        };
        return Err(OnnxError::Node {
            file: file.to_path_buf(),
            node: node.label(),
            reason: format!(
                "unsupported operator '{}' (domain '{domain}'); only {DOMAIN}::{OP_TYPE} is supported",
                n.op_type
            ),
        });
    }
    for a in n.attribute {
        let err = |reason: &str| OnnxError::Attribute {
            file: file.to_path_buf(),
            node: node.label(),
            name: a.name.clone(),
            reason: reason.to_string(),
        };
        let value = attr_from_proto(&a).map_err(|r| err(&r))?;
        if node.attrs.contains_key(&a.name) {
            return Err(err("given twice"));
        }
        node.attrs.insert(a.name, value);
    }
    Ok(node)
}

fn attr_from_proto(a: &AttributeProto) -> Result<AttrValue, String> {
    if !a.ref_attr_name.is_empty() {
        return Err(format!(
            "refers to function attribute '{}'; only literal values are supported",
            a.ref_attr_name
        ));
    }
    match AttributeType::try_from(a.r#type) {
        Ok(AttributeType::Float) => Ok(AttrValue::Float(a.f as f64)),
        Ok(AttributeType::Int) => Ok(AttrValue::Int(a.i)),
        Ok(AttributeType::String) => String::from_utf8(a.s.clone())
            .map(AttrValue::Str)
            .map_err(|_| "STRING value is not UTF-8".to_string()),
        Ok(AttributeType::Floats) => Ok(AttrValue::Floats(
            a.floats.iter().map(|&f| f as f64).collect(),
        )),
        Ok(AttributeType::Ints) => Ok(AttrValue::Ints(a.ints.clone())),
        Ok(AttributeType::Undefined) => Err("has no type".to_string()),
        Ok(other) => Err(format!(
            "unsupported attribute type {}; only INT, FLOAT, STRING, INTS and FLOATS are supported",
            other.as_str_name()
        )),
        Err(_) => Err(format!("unknown attribute type {}", a.r#type)),
    }
}

/// Checks names and order: unique definitions, node inputs defined before use, node arity, graph
/// outputs produced.
fn check_graph(
    file: &Path,
    inputs: &[ValueInfo],
    initializers: &IndexMap<String, Tensor>,
    nodes: &[MlpNode],
    outputs: &[ValueInfo],
) -> Result<(), OnnxError> {
    let value_err = |kind, name: &str, reason: &str| OnnxError::Value {
        file: file.to_path_buf(),
        kind,
        name: name.to_string(),
        reason: reason.to_string(),
    };
    let mut defined: HashSet<&str> = initializers.keys().map(String::as_str).collect();
    for vi in inputs {
        if vi.name.is_empty() {
            return Err(value_err("input", "", "has an empty name"));
        }
        if !defined.insert(&vi.name) {
            return Err(value_err(
                "input",
                &vi.name,
                "is defined twice (as an input or initializer)",
            ));
        }
    }
    for node in nodes {
        let err = |reason: String| OnnxError::Node {
            file: file.to_path_buf(),
            node: node.label(),
            reason,
        };
        if node.inputs.len() > MAX_INPUTS {
            return Err(err(format!(
                "has {} inputs; {OP_TYPE} takes at most {MAX_INPUTS}",
                node.inputs.len()
            )));
        }
        if node.outputs.is_empty() || node.outputs.len() > MAX_OUTPUTS {
            return Err(err(format!(
                "has {} outputs; {OP_TYPE} has 1 to {MAX_OUTPUTS}",
                node.outputs.len()
            )));
        }
        if node.outputs[0].is_empty() {
            return Err(err("output 0 (Y) has no name".into()));
        }
        for (i, name) in node.inputs.iter().enumerate() {
            if !name.is_empty() && !defined.contains(name.as_str()) {
                return Err(err(format!(
                    "input {i} '{name}' is not a graph input, an initializer or an output of an earlier node"
                )));
            }
        }
        for (i, name) in node.outputs.iter().enumerate() {
            if !name.is_empty() && !defined.insert(name) {
                return Err(err(format!("output {i} '{name}' is already defined")));
            }
        }
    }
    for vi in outputs {
        if !defined.contains(vi.name.as_str()) {
            return Err(value_err(
                "output",
                &vi.name,
                "is not produced by any node, nor a graph input or initializer",
            ));
        }
    }
    Ok(())
}

/// Writes `spec` as an ONNX model (IR version 10; opsets `""` 21 and `com.microsoft` 1; producer
/// `nbits-mlp`) with every initializer inline in `raw_data`, atomically (a temporary file beside
/// `path` is renamed over it once complete).
///
/// The graph is checked as [`load_model`] checks it; every input needs a dtype; a symbolic (`None`)
/// dimension is written as the `dim_param` `<value name>_dim<i>`. Fails if the model would exceed
/// protobuf's 2 GiB message limit.
pub fn write_model(path: impl AsRef<Path>, spec: &ModelSpec) -> Result<(), OnnxError> {
    let path = path.as_ref();
    validate_spec(path, spec)?;
    let model = ModelProto {
        ir_version: 10,
        opset_import: vec![
            OperatorSetIdProto {
                domain: String::new(),
                version: 21,
            },
            OperatorSetIdProto {
                domain: DOMAIN.to_string(),
                version: 1,
            },
        ],
        producer_name: "nbits-mlp".to_string(),
        producer_version: env!("CARGO_PKG_VERSION").to_string(),
        graph: Some(GraphProto {
            node: spec.nodes.iter().map(node_to_proto).collect(),
            name: "nbits_mlp".to_string(),
            initializer: spec
                .initializers
                .iter()
                .map(|(name, t)| tensor_to_proto(name, t))
                .collect(),
            input: spec.inputs.iter().map(value_info_to_proto).collect(),
            output: spec.outputs.iter().map(value_info_to_proto).collect(),
        }),
    };
    let len = model.encoded_len();
    if len > i32::MAX as usize {
        return Err(OnnxError::invalid(
            path,
            format!("the model would be {len} bytes, over protobuf's 2 GiB limit (external data is not written)"),
        ));
    }
    persist(temp_file_with(path, &model.encode_to_vec())?, path)
}

/// The checks [`write_model`] makes before writing `spec` to `path` (errors name `path`).
pub(crate) fn validate_spec(path: &Path, spec: &ModelSpec) -> Result<(), OnnxError> {
    check_graph(
        path,
        &spec.inputs,
        &spec.initializers,
        &spec.nodes,
        &spec.outputs,
    )?;
    if let Some(vi) = spec.inputs.iter().find(|vi| vi.dtype.is_none()) {
        return Err(OnnxError::Value {
            file: path.to_path_buf(),
            kind: "input",
            name: vi.name.clone(),
            reason: "has no dtype; ONNX requires one for graph inputs".into(),
        });
    }
    for (name, t) in &spec.initializers {
        if let Some(reason) = size_problem(t) {
            return Err(OnnxError::Tensor {
                file: Some(path.to_path_buf()),
                name: name.clone(),
                reason,
            });
        }
    }
    Ok(())
}

fn value_info_to_proto(vi: &ValueInfo) -> ValueInfoProto {
    let r#type = (vi.dtype.is_some() || vi.shape.is_some()).then(|| TypeProto {
        value: Some(TypeProtoValue::TensorType(TypeProtoTensor {
            elem_type: vi.dtype.map_or(0, onnx_data_type),
            shape: vi.shape.as_ref().map(|shape| TensorShapeProto {
                dim: shape
                    .iter()
                    .enumerate()
                    .map(|(i, d)| Dimension {
                        value: Some(match d {
                            Some(d) => DimensionValue::DimValue(*d as i64),
                            None => DimensionValue::DimParam(format!("{}_dim{i}", vi.name)),
                        }),
                    })
                    .collect(),
            }),
        })),
    });
    ValueInfoProto {
        name: vi.name.clone(),
        r#type,
    }
}

fn node_to_proto(n: &MlpNode) -> NodeProto {
    NodeProto {
        input: n.inputs.clone(),
        output: n.outputs.clone(),
        name: n.name.clone(),
        op_type: OP_TYPE.to_string(),
        domain: DOMAIN.to_string(),
        attribute: n
            .attrs
            .iter()
            .map(|(name, v)| attr_to_proto(name, v))
            .collect(),
    }
}

fn attr_to_proto(name: &str, v: &AttrValue) -> AttributeProto {
    let mut a = AttributeProto {
        name: name.to_string(),
        ..Default::default()
    };
    let ty = match v {
        AttrValue::Int(i) => {
            a.i = *i;
            AttributeType::Int
        }
        AttrValue::Float(f) => {
            a.f = *f as f32;
            AttributeType::Float
        }
        AttrValue::Str(s) => {
            a.s = s.as_bytes().to_vec();
            AttributeType::String
        }
        AttrValue::Ints(v) => {
            a.ints = v.clone();
            AttributeType::Ints
        }
        AttrValue::Floats(v) => {
            a.floats = v.iter().map(|&f| f as f32).collect();
            AttributeType::Floats
        }
    };
    a.r#type = ty as i32;
    a
}

/// The planner's view of `node`: its attributes, the dtype and shape of each input (`None` for an
/// omitted `""` input) and which outputs are requested (those with a non-empty name).
///
/// Input descriptions come from `known` (graph inputs and outputs of earlier nodes, as the caller
/// has resolved them) and then from the model's initializers; an input found in neither is an
/// error naming the node and the input.
pub fn node_call(
    model: &Model,
    node: &MlpNode,
    known: &IndexMap<String, TensorInfo>,
) -> Result<OpCall, OnnxError> {
    let inputs = node
        .inputs
        .iter()
        .enumerate()
        .map(|(i, name)| {
            if name.is_empty() {
                Ok(None)
            } else if let Some(info) = known.get(name) {
                Ok(Some(info.clone()))
            } else if let Some(t) = model.initializers.get(name) {
                Ok(Some(t.info()))
            } else {
                Err(OnnxError::Node {
                    file: model.path.clone(),
                    node: node.label(),
                    reason: format!("input {i} '{name}' has no known dtype and shape"),
                })
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let want: Vec<bool> = node.outputs.iter().map(|o| !o.is_empty()).collect();
    Ok(OpCall::from_infos(node.attrs.clone(), inputs, &want))
}

/// Checks `tensors` against the declared graph `kind` values `infos` (count, dtype, fixed
/// dimensions, data length); errors name `file` and the value.
pub(crate) fn check_values(
    file: &Path,
    kind: &'static str,
    infos: &[ValueInfo],
    tensors: &[Tensor],
) -> Result<(), OnnxError> {
    if infos.len() != tensors.len() {
        let names: Vec<&str> = infos.iter().map(|vi| vi.name.as_str()).collect();
        return Err(OnnxError::invalid(
            file,
            format!(
                "got {} {kind} tensors but the model has {} graph {kind}s {names:?}",
                tensors.len(),
                infos.len()
            ),
        ));
    }
    for (vi, t) in infos.iter().zip(tensors) {
        if let Some(reason) = vi.mismatch(t) {
            return Err(OnnxError::Value {
                file: file.to_path_buf(),
                kind,
                name: vi.name.clone(),
                reason,
            });
        }
    }
    Ok(())
}
