//! A model as `fuse` sees it: the file's bytes, the fields of its `ModelProto` and `GraphProto`,
//! each node decoded (and its encoded bytes kept), each initializer's header, and the names
//! every value has. Writing ([`write`]) puts the kept bytes back around what was rewritten.

mod write;

pub(crate) use write::{OutInit, OutNode, Rewrite};

use crate::wire::{self, Field, LEN};
use crate::FuseError;
use nbits_mlp_onnx::proto::{
    DataLocation, DimensionValue, NodeProto, StringStringEntryProto, TensorProto, TypeProtoValue,
    ValueInfoProto,
};
use prost::Message;
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Component, Path, PathBuf};

// ModelProto fields.
const MODEL_OPSET_IMPORT: u32 = 8;
const MODEL_GRAPH: u32 = 7;
// GraphProto fields.
const GRAPH_NODE: u32 = 1;
const GRAPH_INITIALIZER: u32 = 5;
const GRAPH_INPUT: u32 = 11;
const GRAPH_OUTPUT: u32 = 12;
const GRAPH_VALUE_INFO: u32 = 13;
// NodeProto / AttributeProto fields used to find subgraphs.
const NODE_INPUT: u32 = 1;
const NODE_ATTRIBUTE: u32 = 5;
const ATTR_G: u32 = 6;
const ATTR_GRAPHS: u32 = 11;
// TensorProto fields.
const TENSOR_DIMS: u32 = 1;
const TENSOR_DATA_TYPE: u32 = 2;
const TENSOR_NAME: u32 = 8;
const TENSOR_RAW_DATA: u32 = 9;
const TENSOR_EXTERNAL_DATA: u32 = 13;
const TENSOR_DATA_LOCATION: u32 = 14;

/// Tensors of at least this many bytes go to the external data file when the output uses one
/// (the `onnx` package's default threshold).
const EXTERNAL_THRESHOLD: usize = 1024;
/// Tensors of at least this many bytes start at a multiple of [`EXTERNAL_ALIGN`] in the
/// external data file (so that runtimes can map them).
const ALIGN_THRESHOLD: usize = 1 << 20;
const EXTERNAL_ALIGN: u64 = 4096;
/// Protobuf's message size limit.
const PROTO_LIMIT: usize = i32::MAX as usize;

/// Dimension of a value, as its type declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Dim {
    /// A fixed size.
    Fixed(i64),
    /// A named symbolic size.
    Param(String),
    /// Unknown.
    Unknown,
}

/// Element type and shape of a value, where its type says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ValueType {
    /// `TensorProto.DataType` (0: unknown).
    pub elem_type: i32,
    /// Dimensions; `None` when even the rank is unknown.
    pub shape: Option<Vec<Dim>>,
}

/// One node: decoded (attributes of kinds this crate does not declare are skipped) and located.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    /// The node, decoded.
    pub proto: NodeProto,
    /// Its encoded bytes in the file.
    pub span: Range<usize>,
    /// Names its subgraphs (If/Loop/Scan bodies) read, at any depth.
    pub subgraph_refs: Vec<String>,
}

/// Where an initializer's data is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Data {
    /// In `raw_data` (offsets into the file's bytes).
    Raw(Range<usize>),
    /// In a typed field (`float_data`, `int32_data`, ...): small tensors; decoded with prost.
    Typed,
    /// In an external file: path relative to the model's directory, offset, length.
    External {
        location: String,
        offset: u64,
        length: Option<u64>,
    },
}

/// One initializer's header.
#[derive(Clone, Debug)]
pub(crate) struct Init {
    /// Its name.
    pub name: String,
    /// Dimensions.
    pub dims: Vec<i64>,
    /// `TensorProto.DataType`.
    pub data_type: i32,
    /// Where its data is.
    pub data: Data,
    /// Its encoded field (key and length included) in the file.
    pub span: Range<usize>,
    /// Its message bytes in the file.
    pub value: Range<usize>,
}

impl Init {
    /// Number of elements, or `None` for a negative dimension or an overflow.
    pub fn numel(&self) -> Option<usize> {
        self.dims.iter().try_fold(1usize, |acc, &d| {
            usize::try_from(d).ok().and_then(|d| acc.checked_mul(d))
        })
    }
}

/// A loaded model.
#[derive(Debug)]
pub(crate) struct Graph {
    /// The model file.
    pub path: PathBuf,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Fields of the `ModelProto`.
    pub model_fields: Vec<Field>,
    /// Fields of the `GraphProto`.
    pub graph_fields: Vec<Field>,
    /// Opset imports: domain, version.
    pub opsets: Vec<(String, i64)>,
    /// Nodes in file order.
    pub nodes: Vec<Node>,
    /// Initializer headers in file order.
    pub inits: Vec<Init>,
    /// Initializer index by name.
    pub init_index: HashMap<String, usize>,
    /// Graph input names (with the initializers listed there by IR < 4 models).
    pub inputs: Vec<String>,
    /// Graph output names.
    pub outputs: Vec<String>,
    /// Types of graph inputs, outputs and `value_info` entries, by name.
    pub types: HashMap<String, ValueType>,
}

fn bad(path: &Path, what: impl std::fmt::Display) -> FuseError {
    FuseError::Model {
        path: path.to_path_buf(),
        reason: what.to_string(),
    }
}

impl Graph {
    /// Reads and indexes the model at `path`.
    pub fn load(path: &Path) -> Result<Graph, FuseError> {
        let bytes = std::fs::read(path).map_err(|source| FuseError::Io {
            path: path.to_path_buf(),
            action: "read",
            source,
        })?;
        Graph::from_bytes(path, bytes)
    }

    /// Indexes the model `bytes` (read from `path`, which names it in errors and anchors its
    /// external data).
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<Graph, FuseError> {
        let err = |what: String| bad(path, what);
        let model_fields = wire::fields(&bytes, 0..bytes.len())
            .map_err(|e| err(format!("not a ModelProto: {e}")))?;
        let mut opsets = Vec::new();
        let mut graph_field = None;
        for f in &model_fields {
            match (f.number, f.wire) {
                (MODEL_OPSET_IMPORT, LEN) => {
                    let o =
                        nbits_mlp_onnx::proto::OperatorSetIdProto::decode(&bytes[f.value.clone()])
                            .map_err(|e| err(format!("opset_import: {e}")))?;
                    opsets.push((o.domain, o.version));
                }
                (MODEL_GRAPH, LEN) => graph_field = Some(f.value.clone()),
                _ => {}
            }
        }
        let graph_range = graph_field.ok_or_else(|| err("the model has no graph".into()))?;
        let graph_fields =
            wire::fields(&bytes, graph_range).map_err(|e| err(format!("graph: {e}")))?;

        let mut g = Graph {
            path: path.to_path_buf(),
            bytes: Vec::new(),
            model_fields,
            graph_fields,
            opsets,
            nodes: Vec::new(),
            inits: Vec::new(),
            init_index: HashMap::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            types: HashMap::new(),
        };
        for f in &g.graph_fields {
            if f.wire != LEN {
                continue;
            }
            let body = &bytes[f.value.clone()];
            match f.number {
                GRAPH_NODE => {
                    let proto = NodeProto::decode(body)
                        .map_err(|e| err(format!("node {}: {e}", g.nodes.len())))?;
                    let mut subgraph_refs = Vec::new();
                    subgraph_inputs(&bytes, f.value.clone(), 0, &mut subgraph_refs)
                        .map_err(|e| err(format!("node '{}': subgraph: {e}", proto.name)))?;
                    g.nodes.push(Node {
                        proto,
                        span: f.span.clone(),
                        subgraph_refs,
                    });
                }
                GRAPH_INITIALIZER => {
                    let init = init_header(&bytes, f)
                        .map_err(|e| err(format!("initializer {}: {e}", g.inits.len())))?;
                    if g.init_index
                        .insert(init.name.clone(), g.inits.len())
                        .is_some()
                    {
                        return Err(err(format!("two initializers are named '{}'", init.name)));
                    }
                    g.inits.push(init);
                }
                GRAPH_INPUT | GRAPH_OUTPUT | GRAPH_VALUE_INFO => {
                    let vi = ValueInfoProto::decode(body)
                        .map_err(|e| err(format!("graph input/output/value_info: {e}")))?;
                    if f.number == GRAPH_INPUT {
                        g.inputs.push(vi.name.clone());
                    } else if f.number == GRAPH_OUTPUT {
                        g.outputs.push(vi.name.clone());
                    }
                    if let Some(t) = value_type(&vi) {
                        g.types.entry(vi.name.clone()).or_insert(t);
                    }
                }
                _ => {}
            }
        }
        g.bytes = bytes;
        Ok(g)
    }

    /// The directory the model's external data paths are relative to.
    pub fn dir(&self) -> &Path {
        parent_dir(&self.path)
    }

    /// The initializer named `name`.
    pub fn init(&self, name: &str) -> Option<&Init> {
        self.init_index.get(name).map(|&i| &self.inits[i])
    }

    /// The data of initializer `init` as little-endian bytes.
    pub fn init_bytes(&self, init: &Init) -> Result<Vec<u8>, FuseError> {
        match &init.data {
            Data::Raw(r) => Ok(self.bytes[r.clone()].to_vec()),
            Data::External {
                location,
                offset,
                length,
            } => {
                let want = match length {
                    Some(l) => *l,
                    None => expected_bytes(init).ok_or_else(|| {
                        bad(
                            &self.path,
                            format!("initializer '{}': cannot size its data", init.name),
                        )
                    })? as u64,
                };
                read_external(self.dir(), location, *offset, want)
                    .map_err(|e| bad(&self.path, format!("initializer '{}': {e}", init.name)))
            }
            Data::Typed => {
                let p = TensorProto::decode(&self.bytes[init.value.clone()])
                    .map_err(|e| bad(&self.path, format!("initializer '{}': {e}", init.name)))?;
                typed_bytes(&p)
                    .map_err(|e| bad(&self.path, format!("initializer '{}': {e}", init.name)))
            }
        }
    }
}

/// Bytes a tensor of `init`'s type and dims holds, for the element types with a fixed size.
fn expected_bytes(init: &Init) -> Option<usize> {
    let size = match init.data_type {
        1 | 6 | 12 => 4, // FLOAT, INT32, UINT32
        2 | 3 | 9 => 1,  // UINT8, INT8, BOOL
        4 | 5 | 10 | 16 => 2,
        7 | 11 | 13 => 8,
        _ => return None,
    };
    init.numel()?.checked_mul(size)
}

/// Little-endian bytes of a tensor whose data is in a typed field (the types `fuse` reads:
/// FLOAT, FLOAT16, UINT8, INT64).
fn typed_bytes(p: &TensorProto) -> Result<Vec<u8>, String> {
    match p.data_type {
        1 => Ok(p.float_data.iter().flat_map(|v| v.to_le_bytes()).collect()),
        10 => Ok(p
            .int32_data
            .iter()
            .flat_map(|&v| (v as u16).to_le_bytes())
            .collect()),
        2 => Ok(p.int32_data.iter().map(|&v| v as u8).collect()),
        7 => Ok(p.int64_data.iter().flat_map(|v| v.to_le_bytes()).collect()),
        t => Err(format!(
            "data type {t} in a typed field is not supported here"
        )),
    }
}

/// The directory holding `path` (`.` for a bare file name).
pub(crate) fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Checks that an external data location is a relative path inside the model's directory.
fn safe_location(location: &str) -> Result<&Path, String> {
    let rel = Path::new(location);
    if location.is_empty()
        || !rel
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!(
            "external data location '{location}' must be a relative path inside the model's directory"
        ));
    }
    Ok(rel)
}

/// Reads `len` bytes at `offset` of external data file `location` (relative to `dir`).
fn read_external(dir: &Path, location: &str, offset: u64, len: u64) -> Result<Vec<u8>, String> {
    let path = dir.join(safe_location(location)?);
    let mut file = File::open(&path)
        .map_err(|e| format!("external data {}: cannot open: {e}", path.display()))?;
    let file_len = file
        .metadata()
        .map_err(|e| format!("external data {}: {e}", path.display()))?
        .len();
    if offset.checked_add(len).is_none_or(|end| end > file_len) {
        return Err(format!(
            "external data {}: {len} bytes at offset {offset} run past the end of the file ({file_len} bytes)",
            path.display()
        ));
    }
    let len = usize::try_from(len).map_err(|_| "external data too large".to_string())?;
    let mut data = vec![0u8; len];
    file.seek(SeekFrom::Start(offset))
        .and_then(|_| file.read_exact(&mut data))
        .map_err(|e| format!("external data {}: cannot read: {e}", path.display()))?;
    Ok(data)
}

/// The header of the initializer in field `f`.
fn init_header(bytes: &[u8], f: &Field) -> Result<Init, String> {
    let mut init = Init {
        name: String::new(),
        dims: Vec::new(),
        data_type: 0,
        data: Data::Typed,
        span: f.span.clone(),
        value: f.value.clone(),
    };
    let mut raw = None;
    let mut external = Vec::new();
    let mut location = 0;
    for tf in wire::fields(bytes, f.value.clone())? {
        match tf.number {
            TENSOR_DIMS => init
                .dims
                .extend(wire::varints(bytes, &tf)?.into_iter().map(|v| v as i64)),
            TENSOR_DATA_TYPE => init.data_type = tf.varint as i32,
            TENSOR_NAME => init.name = wire::string(bytes, &tf)?,
            TENSOR_RAW_DATA => raw = Some(tf.value.clone()),
            TENSOR_EXTERNAL_DATA => external.push(
                StringStringEntryProto::decode(&bytes[tf.value.clone()])
                    .map_err(|e| e.to_string())?,
            ),
            TENSOR_DATA_LOCATION => location = tf.varint,
            _ => {}
        }
    }
    let empty = init.numel() == Some(0);
    init.data = if location == DataLocation::External as u64 {
        let mut loc = None;
        let mut offset = 0;
        let mut length = None;
        for e in &external {
            let num = || {
                e.value
                    .parse::<u64>()
                    .map_err(|_| format!("external_data {} '{}' is not a number", e.key, e.value))
            };
            match e.key.as_str() {
                "location" => loc = Some(e.value.clone()),
                "offset" => offset = num()?,
                "length" => length = Some(num()?),
                _ => {}
            }
        }
        Data::External {
            location: loc.ok_or("data_location is EXTERNAL but external_data has no 'location'")?,
            offset,
            length,
        }
    } else if let Some(r) = raw {
        Data::Raw(r)
    } else if empty {
        Data::Raw(0..0)
    } else {
        Data::Typed
    };
    Ok(init)
}

/// Appends the names the subgraphs of the node in `bytes[node]` read (their nodes' inputs, at
/// any depth; names the subgraph defines itself are included, which only makes the caller more
/// careful).
fn subgraph_inputs(
    bytes: &[u8],
    node: Range<usize>,
    depth: usize,
    out: &mut Vec<String>,
) -> Result<(), String> {
    if depth > 64 {
        return Err("subgraphs nested more than 64 deep".into());
    }
    for nf in wire::fields(bytes, node)? {
        if depth > 0 && nf.number == NODE_INPUT && nf.wire == LEN {
            out.push(wire::string(bytes, &nf)?);
        }
        if nf.number != NODE_ATTRIBUTE || nf.wire != LEN {
            continue;
        }
        for af in wire::fields(bytes, nf.value.clone())? {
            if (af.number == ATTR_G || af.number == ATTR_GRAPHS) && af.wire == LEN {
                for gf in wire::fields(bytes, af.value.clone())? {
                    if gf.number == GRAPH_NODE && gf.wire == LEN {
                        subgraph_inputs(bytes, gf.value.clone(), depth + 1, out)?;
                    }
                    if gf.number == GRAPH_OUTPUT && gf.wire == LEN {
                        // A subgraph output may name an outer value directly.
                        let vi = ValueInfoProto::decode(&bytes[gf.value.clone()])
                            .map_err(|e| e.to_string())?;
                        out.push(vi.name);
                    }
                }
            }
        }
    }
    Ok(())
}

fn value_type(vi: &ValueInfoProto) -> Option<ValueType> {
    let Some(TypeProtoValue::TensorType(t)) = vi.r#type.as_ref()?.value.as_ref() else {
        return None;
    };
    Some(ValueType {
        elem_type: t.elem_type,
        shape: t.shape.as_ref().map(|s| {
            s.dim
                .iter()
                .map(|d| match &d.value {
                    Some(DimensionValue::DimValue(v)) => Dim::Fixed(*v),
                    Some(DimensionValue::DimParam(p)) if !p.is_empty() => Dim::Param(p.clone()),
                    _ => Dim::Unknown,
                })
                .collect()
        }),
    })
}
