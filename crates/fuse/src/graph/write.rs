//! Writing a model: the kept bytes of the input around the rewritten nodes, initializers and
//! value entries, tensors inline or in an external data file, atomically.

use super::{
    bad, parent_dir, Data, Graph, ALIGN_THRESHOLD, EXTERNAL_ALIGN, EXTERNAL_THRESHOLD,
    GRAPH_INITIALIZER, GRAPH_INPUT, GRAPH_NODE, GRAPH_VALUE_INFO, MODEL_GRAPH, MODEL_OPSET_IMPORT,
    PROTO_LIMIT, TENSOR_DATA_LOCATION, TENSOR_DATA_TYPE, TENSOR_DIMS, TENSOR_EXTERNAL_DATA,
    TENSOR_NAME, TENSOR_RAW_DATA,
};
use crate::wire::{self, LEN};
use crate::FuseError;
use nbits_mlp_onnx::proto::{
    DataLocation, NodeProto, StringStringEntryProto, TensorProto, ValueInfoProto,
};
use prost::Message;
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// An initializer of the output: one kept from the input (its header possibly rewritten), or a
/// new one.
#[derive(Clone, Debug)]
pub(crate) enum OutInit {
    /// Input initializer `index`, with new dims when `dims` is `Some`.
    Kept {
        index: usize,
        dims: Option<Vec<i64>>,
    },
    /// A new tensor.
    New {
        name: String,
        data_type: i32,
        dims: Vec<i64>,
        data: Vec<u8>,
    },
}

/// A node of the output: one kept from the input, or a new one.
#[derive(Clone, Debug)]
pub(crate) enum OutNode {
    /// Input node `index`, as it was.
    Kept(usize),
    /// A new node.
    New(NodeProto),
}

/// What to write: the input's graph with its nodes, initializers, graph inputs and value_info
/// entries replaced.
#[derive(Debug)]
pub(crate) struct Rewrite {
    /// Nodes, in order.
    pub nodes: Vec<OutNode>,
    /// Initializers, in order.
    pub inits: Vec<OutInit>,
    /// Names of graph inputs and value_info entries to drop.
    pub drop_values: HashSet<String>,
    /// Opset imports to add.
    pub add_opsets: Vec<(String, i64)>,
}

/// Where the output's tensors went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Written {
    /// The external data file, when one was written.
    pub external_data: Option<PathBuf>,
}

/// External data of the output: a file written as tensors arrive.
struct ExternalOut {
    file: BufWriter<tempfile::NamedTempFile<File>>,
    /// Its name relative to the model's directory.
    location: String,
    len: u64,
}

impl ExternalOut {
    /// Appends `data`; returns the offset it starts at.
    fn append(&mut self, data: &[u8]) -> std::io::Result<u64> {
        if data.len() >= ALIGN_THRESHOLD {
            let pad = (EXTERNAL_ALIGN - self.len % EXTERNAL_ALIGN) % EXTERNAL_ALIGN;
            self.file.write_all(&vec![0u8; pad as usize])?;
            self.len += pad;
        }
        let offset = self.len;
        self.file.write_all(data)?;
        self.len += data.len() as u64;
        Ok(offset)
    }
}

/// An initializer field whose external data entries point into the output's data file.
fn external_header(
    kept_fields: &[u8],
    location: &str,
    offset: u64,
    len: usize,
    dims: Option<&[i64]>,
) -> Vec<u8> {
    let mut msg = kept_fields.to_vec();
    if let Some(d) = dims {
        put_dims(&mut msg, d);
    }
    for (k, v) in [
        ("location", location.to_string()),
        ("offset", offset.to_string()),
        ("length", len.to_string()),
    ] {
        let e = StringStringEntryProto {
            key: k.into(),
            value: v,
        };
        wire::put_len(&mut msg, TENSOR_EXTERNAL_DATA, &e.encode_to_vec());
    }
    wire::put_varint(
        &mut msg,
        TENSOR_DATA_LOCATION,
        DataLocation::External as u64,
    );
    msg
}

fn put_dims(msg: &mut Vec<u8>, dims: &[i64]) {
    for &d in dims {
        wire::put_varint(msg, TENSOR_DIMS, d as u64);
    }
}

impl Graph {
    /// Writes the model with `rw` applied to `path` (atomically: temporary files renamed once
    /// complete). External data: when the input used any, or when the output would not fit in
    /// one protobuf message, every tensor that was external and every new tensor of at least
    /// 1 KiB go to `<file name>.data` beside `path`; all other tensors stay inline.
    pub fn write(&self, rw: &Rewrite, path: &Path) -> Result<Written, FuseError> {
        let io = |action: &'static str| {
            let path = path.to_path_buf();
            move |source: std::io::Error| FuseError::Io {
                path: path.clone(),
                action,
                source,
            }
        };
        let input_external = self
            .inits
            .iter()
            .any(|i| matches!(i.data, Data::External { .. }));
        let inline_estimate: usize = self.bytes.len()
            + rw.inits
                .iter()
                .map(|i| match i {
                    OutInit::New { data, .. } => data.len() + 64,
                    OutInit::Kept { .. } => 0,
                })
                .sum::<usize>();
        let use_external = input_external || inline_estimate > PROTO_LIMIT;
        let dir = parent_dir(path);
        let file_name = path
            .file_name()
            .ok_or_else(|| bad(path, "the output path names no file"))?
            .to_string_lossy()
            .into_owned();
        let data_name = format!("{file_name}.data");
        let mut ext = if use_external {
            let tmp = tempfile::Builder::new()
                .prefix(".nbits-mlp-fuse")
                .make_in(dir, |p| {
                    File::options().write(true).create_new(true).open(p)
                })
                .map_err(io("create a temporary file beside"))?;
            Some(ExternalOut {
                file: BufWriter::with_capacity(1 << 20, tmp),
                location: data_name.clone(),
                len: 0,
            })
        } else {
            None
        };

        // The graph: fields other than the rewritten ones as they were, then the rest.
        let mut graph = Vec::with_capacity(self.bytes.len().min(PROTO_LIMIT));
        for f in &self.graph_fields {
            match f.number {
                GRAPH_NODE | GRAPH_INITIALIZER => {}
                GRAPH_INPUT | GRAPH_VALUE_INFO if f.wire == LEN => {
                    let vi = ValueInfoProto::decode(&self.bytes[f.value.clone()])
                        .map_err(|e| bad(&self.path, e))?;
                    if !rw.drop_values.contains(&vi.name) {
                        graph.extend_from_slice(&self.bytes[f.span.clone()]);
                    }
                }
                _ => graph.extend_from_slice(&self.bytes[f.span.clone()]),
            }
        }
        for n in &rw.nodes {
            match n {
                OutNode::Kept(i) => {
                    graph.extend_from_slice(&self.bytes[self.nodes[*i].span.clone()])
                }
                OutNode::New(p) => wire::put_len(&mut graph, GRAPH_NODE, &p.encode_to_vec()),
            }
        }
        for oi in &rw.inits {
            let msg = match oi {
                OutInit::Kept { index, dims } => {
                    let init = &self.inits[*index];
                    let value = init.value.clone();
                    let external = matches!(init.data, Data::External { .. });
                    // External tensors move to the output's data file, or into the model when
                    // small (ONNX Runtime reads small shape-like constants only inline).
                    let data = if external {
                        Some(self.init_bytes(init)?)
                    } else {
                        None
                    };
                    let inline = data.as_ref().is_some_and(|d| d.len() < EXTERNAL_THRESHOLD);
                    let relocate = external && (ext.is_some() || inline);
                    if dims.is_none() && !relocate {
                        graph.extend_from_slice(&self.bytes[init.span.clone()]);
                        continue;
                    }
                    // Keep every field but those rewritten.
                    let mut kept = Vec::new();
                    for tf in wire::fields(&self.bytes, value).map_err(|e| bad(&self.path, e))? {
                        let drop = (dims.is_some() && tf.number == TENSOR_DIMS)
                            || (relocate
                                && matches!(
                                    tf.number,
                                    TENSOR_EXTERNAL_DATA | TENSOR_DATA_LOCATION
                                ));
                        if !drop {
                            kept.extend_from_slice(&self.bytes[tf.span.clone()]);
                        }
                    }
                    if let Some(d) = dims {
                        put_dims(&mut kept, d);
                    }
                    match data {
                        Some(data) if relocate && inline => {
                            wire::put_len(&mut kept, TENSOR_RAW_DATA, &data);
                            kept
                        }
                        Some(data) if relocate => {
                            let e = ext.as_mut().expect("relocating into the data file");
                            let offset =
                                e.append(&data).map_err(io("write the external data of"))?;
                            external_header(&kept, &e.location, offset, data.len(), None)
                        }
                        _ => kept,
                    }
                }
                OutInit::New {
                    name,
                    data_type,
                    dims,
                    data,
                } => {
                    let header = TensorProto {
                        dims: dims.clone(),
                        data_type: *data_type,
                        name: name.clone(),
                        ..Default::default()
                    };
                    match ext.as_mut() {
                        Some(e) if data.len() >= EXTERNAL_THRESHOLD => {
                            let mut base = Vec::new();
                            wire::put_varint(&mut base, TENSOR_DATA_TYPE, *data_type as u64);
                            wire::put_len(&mut base, TENSOR_NAME, name.as_bytes());
                            let offset =
                                e.append(data).map_err(io("write the external data of"))?;
                            external_header(&base, &e.location, offset, data.len(), Some(dims))
                        }
                        _ => TensorProto {
                            raw_data: data.clone(),
                            ..header
                        }
                        .encode_to_vec(),
                    }
                }
            };
            wire::put_len(&mut graph, GRAPH_INITIALIZER, &msg);
        }
        if graph.len() > PROTO_LIMIT {
            return Err(bad(
                path,
                format!(
                    "the graph would be {} bytes, over protobuf's 2 GiB limit",
                    graph.len()
                ),
            ));
        }

        // The model: its fields as they were, the graph replaced, opsets added.
        let mut model = Vec::with_capacity(graph.len() + 4096);
        for f in &self.model_fields {
            if f.number == MODEL_GRAPH {
                wire::put_len(&mut model, MODEL_GRAPH, &graph);
            } else {
                model.extend_from_slice(&self.bytes[f.span.clone()]);
            }
        }
        for (domain, version) in &rw.add_opsets {
            let o = nbits_mlp_onnx::proto::OperatorSetIdProto {
                domain: domain.clone(),
                version: *version,
            };
            wire::put_len(&mut model, MODEL_OPSET_IMPORT, &o.encode_to_vec());
        }

        let external_data = match ext {
            Some(e) => {
                let tmp = e
                    .file
                    .into_inner()
                    .map_err(|e| io("write the external data of")(e.into_error()))?;
                let data_path = dir.join(&data_name);
                tmp.persist(&data_path).map_err(|e| FuseError::Io {
                    path: data_path.clone(),
                    action: "write",
                    source: e.error,
                })?;
                Some(data_path)
            }
            None => None,
        };
        let mut tmp = tempfile::Builder::new()
            .prefix(".nbits-mlp-fuse")
            .make_in(dir, |p| {
                File::options().write(true).create_new(true).open(p)
            })
            .map_err(io("create a temporary file beside"))?;
        tmp.write_all(&model).map_err(io("write"))?;
        tmp.persist(path).map_err(|e| io("write")(e.error))?;
        Ok(Written { external_data })
    }
}
