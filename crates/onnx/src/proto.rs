//! Hand-written `prost` messages for the subset of `onnx.proto` this crate reads and writes.
//!
//! Field numbers and wire types follow `onnx.proto` (IR version 10). Only the fields this crate
//! needs are declared; prost skips every other field while decoding, so models carrying doc
//! strings, value_info, metadata, functions or training info still load.
//!
//! Scalar fields are declared proto3-style (no presence): a zero value is not written, which the
//! ONNX readers treat exactly like the proto2 default they expect.

/// `ModelProto`: the top-level ONNX model.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelProto {
    /// IR version of the model format.
    #[prost(int64, tag = "1")]
    pub ir_version: i64,
    /// Operator sets the model uses, one per domain.
    #[prost(message, repeated, tag = "8")]
    pub opset_import: Vec<OperatorSetIdProto>,
    /// Name of the tool that wrote the model.
    #[prost(string, tag = "2")]
    pub producer_name: String,
    /// Version of the tool that wrote the model.
    #[prost(string, tag = "3")]
    pub producer_version: String,
    /// The computation graph.
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
}

/// `OperatorSetIdProto`: one opset import.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OperatorSetIdProto {
    /// Operator domain (`""` is the default ONNX domain).
    #[prost(string, tag = "1")]
    pub domain: String,
    /// Opset version of that domain.
    #[prost(int64, tag = "2")]
    pub version: i64,
}

/// `GraphProto`: nodes, initializers, inputs and outputs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphProto {
    /// Nodes in topological order.
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeProto>,
    /// Graph name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// Constant tensors.
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorProto>,
    /// Graph inputs (before IR 4 these also list the initializers).
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    /// Graph outputs.
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
}

/// `NodeProto`: one operator call.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeProto {
    /// Input value names (`""` for an omitted optional input).
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    /// Output value names (`""` for an output that is not requested).
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    /// Node name (may be empty).
    #[prost(string, tag = "3")]
    pub name: String,
    /// Operator name.
    #[prost(string, tag = "4")]
    pub op_type: String,
    /// Attributes.
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
    /// Operator domain (`""` is the default ONNX domain).
    #[prost(string, tag = "7")]
    pub domain: String,
}

/// `AttributeProto`: a named attribute value. Only the scalar and list-of-scalar kinds are
/// declared; the others (tensors, graphs, ...) are recognised by their `type` alone.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    /// Attribute name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Set only inside function bodies: the attribute refers to a function attribute.
    #[prost(string, tag = "21")]
    pub ref_attr_name: String,
    /// Which of the value fields holds the value.
    #[prost(enumeration = "AttributeType", tag = "20")]
    pub r#type: i32,
    /// `FLOAT` value.
    #[prost(float, tag = "2")]
    pub f: f32,
    /// `INT` value.
    #[prost(int64, tag = "3")]
    pub i: i64,
    /// `STRING` value (bytes; UTF-8 by convention).
    #[prost(bytes = "vec", tag = "4")]
    pub s: Vec<u8>,
    /// `FLOATS` value.
    #[prost(float, repeated, tag = "7")]
    pub floats: Vec<f32>,
    /// `INTS` value.
    #[prost(int64, repeated, tag = "8")]
    pub ints: Vec<i64>,
}

/// `AttributeProto.AttributeType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum AttributeType {
    /// No type given.
    Undefined = 0,
    /// `f`.
    Float = 1,
    /// `i`.
    Int = 2,
    /// `s`.
    String = 3,
    /// `t`.
    Tensor = 4,
    /// `g`.
    Graph = 5,
    /// `sparse_tensor`.
    SparseTensor = 11,
    /// `tp`.
    TypeProto = 13,
    /// `floats`.
    Floats = 6,
    /// `ints`.
    Ints = 7,
    /// `strings`.
    Strings = 8,
    /// `tensors`.
    Tensors = 9,
    /// `graphs`.
    Graphs = 10,
    /// `sparse_tensors`.
    SparseTensors = 12,
    /// `type_protos`.
    TypeProtos = 14,
}

impl AttributeType {
    /// The name `onnx.proto` gives the value (`"TENSOR"`, ...).
    pub fn as_str_name(self) -> &'static str {
        match self {
            AttributeType::Undefined => "UNDEFINED",
            AttributeType::Float => "FLOAT",
            AttributeType::Int => "INT",
            AttributeType::String => "STRING",
            AttributeType::Tensor => "TENSOR",
            AttributeType::Graph => "GRAPH",
            AttributeType::SparseTensor => "SPARSE_TENSOR",
            AttributeType::TypeProto => "TYPE_PROTO",
            AttributeType::Floats => "FLOATS",
            AttributeType::Ints => "INTS",
            AttributeType::Strings => "STRINGS",
            AttributeType::Tensors => "TENSORS",
            AttributeType::Graphs => "GRAPHS",
            AttributeType::SparseTensors => "SPARSE_TENSORS",
            AttributeType::TypeProtos => "TYPE_PROTOS",
        }
    }
}

/// `TensorProto`: a tensor's type, shape and data (inline or external).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    /// Dimensions, outermost first.
    #[prost(int64, repeated, tag = "1")]
    pub dims: Vec<i64>,
    /// Element type, a [`DataType`] value.
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    /// `FLOAT` (and complex64) elements.
    #[prost(float, repeated, tag = "4")]
    pub float_data: Vec<f32>,
    /// Elements of the small integer types, `BOOL` and `FLOAT16` (its bits as `uint16`), one per
    /// entry.
    #[prost(int32, repeated, tag = "5")]
    pub int32_data: Vec<i32>,
    /// `INT64` elements.
    #[prost(int64, repeated, tag = "7")]
    pub int64_data: Vec<i64>,
    /// Tensor name.
    #[prost(string, tag = "8")]
    pub name: String,
    /// Elements as little-endian bytes, row-major.
    #[prost(bytes = "vec", tag = "9")]
    pub raw_data: Vec<u8>,
    /// With `data_location = EXTERNAL`: `location`, `offset`, `length` (and `checksum`).
    #[prost(message, repeated, tag = "13")]
    pub external_data: Vec<StringStringEntryProto>,
    /// Where the data lives, a [`DataLocation`] value.
    #[prost(enumeration = "DataLocation", tag = "14")]
    pub data_location: i32,
}

/// `TensorProto.DataType` (the element types ONNX defines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
#[allow(missing_docs)]
pub enum DataType {
    Undefined = 0,
    Float = 1,
    Uint8 = 2,
    Int8 = 3,
    Uint16 = 4,
    Int16 = 5,
    Int32 = 6,
    Int64 = 7,
    String = 8,
    Bool = 9,
    Float16 = 10,
    Double = 11,
    Uint32 = 12,
    Uint64 = 13,
    Complex64 = 14,
    Complex128 = 15,
    Bfloat16 = 16,
    Float8e4m3fn = 17,
    Float8e4m3fnuz = 18,
    Float8e5m2 = 19,
    Float8e5m2fnuz = 20,
    Uint4 = 21,
    Int4 = 22,
    Float4e2m1 = 23,
    Float8e8m0 = 24,
    Uint2 = 25,
    Int2 = 26,
}

impl DataType {
    /// The name `onnx.proto` gives the value (`"FLOAT16"`, ...).
    pub fn as_str_name(self) -> &'static str {
        match self {
            DataType::Undefined => "UNDEFINED",
            DataType::Float => "FLOAT",
            DataType::Uint8 => "UINT8",
            DataType::Int8 => "INT8",
            DataType::Uint16 => "UINT16",
            DataType::Int16 => "INT16",
            DataType::Int32 => "INT32",
            DataType::Int64 => "INT64",
            DataType::String => "STRING",
            DataType::Bool => "BOOL",
            DataType::Float16 => "FLOAT16",
            DataType::Double => "DOUBLE",
            DataType::Uint32 => "UINT32",
            DataType::Uint64 => "UINT64",
            DataType::Complex64 => "COMPLEX64",
            DataType::Complex128 => "COMPLEX128",
            DataType::Bfloat16 => "BFLOAT16",
            DataType::Float8e4m3fn => "FLOAT8E4M3FN",
            DataType::Float8e4m3fnuz => "FLOAT8E4M3FNUZ",
            DataType::Float8e5m2 => "FLOAT8E5M2",
            DataType::Float8e5m2fnuz => "FLOAT8E5M2FNUZ",
            DataType::Uint4 => "UINT4",
            DataType::Int4 => "INT4",
            DataType::Float4e2m1 => "FLOAT4E2M1",
            DataType::Float8e8m0 => "FLOAT8E8M0",
            DataType::Uint2 => "UINT2",
            DataType::Int2 => "INT2",
        }
    }
}

/// `TensorProto.DataLocation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum DataLocation {
    /// Data is in `raw_data` or a typed field.
    Default = 0,
    /// Data is in a file named by `external_data`.
    External = 1,
}

/// `StringStringEntryProto`: a key/value pair.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StringStringEntryProto {
    /// Key.
    #[prost(string, tag = "1")]
    pub key: String,
    /// Value.
    #[prost(string, tag = "2")]
    pub value: String,
}

/// `ValueInfoProto`: a graph input or output's name and type.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueInfoProto {
    /// Value name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Value type (required for graph inputs).
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<TypeProto>,
}

/// `TypeProto`: the type of a value.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeProto {
    /// Which kind of type this is.
    #[prost(oneof = "TypeProtoValue", tags = "1, 4, 5, 8, 9")]
    pub value: Option<TypeProtoValue>,
}

/// `TypeProto.value`: the kind of type. Only tensors are decoded; the other kinds are kept as
/// undecoded message bytes so that they can be recognised and rejected.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum TypeProtoValue {
    /// `tensor_type`.
    #[prost(message, tag = "1")]
    TensorType(TypeProtoTensor),
    /// `sequence_type` (undecoded).
    #[prost(bytes = "vec", tag = "4")]
    SequenceType(Vec<u8>),
    /// `map_type` (undecoded).
    #[prost(bytes = "vec", tag = "5")]
    MapType(Vec<u8>),
    /// `sparse_tensor_type` (undecoded).
    #[prost(bytes = "vec", tag = "8")]
    SparseTensorType(Vec<u8>),
    /// `optional_type` (undecoded).
    #[prost(bytes = "vec", tag = "9")]
    OptionalType(Vec<u8>),
}

/// `TypeProto.Tensor`: element type and (optional) shape of a tensor value.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeProtoTensor {
    /// Element type, a [`DataType`] value (0: unknown).
    #[prost(int32, tag = "1")]
    pub elem_type: i32,
    /// Shape; absent when even the rank is unknown.
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
}

/// `TensorShapeProto`: a list of dimensions.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorShapeProto {
    /// Dimensions, outermost first.
    #[prost(message, repeated, tag = "1")]
    pub dim: Vec<Dimension>,
}

/// `TensorShapeProto.Dimension`: a fixed size, a named symbolic size, or unknown.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Dimension {
    /// The size; `None` when unknown.
    #[prost(oneof = "DimensionValue", tags = "1, 2")]
    pub value: Option<DimensionValue>,
}

/// `TensorShapeProto.Dimension.value`.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum DimensionValue {
    /// A fixed size.
    #[prost(int64, tag = "1")]
    DimValue(i64),
    /// A named symbolic size.
    #[prost(string, tag = "2")]
    DimParam(String),
}
