//! Errors. Every message names the file (or directory) and the tensor, attribute, node or graph
//! value at fault.

use std::fmt;
use std::path::{Path, PathBuf};

/// Everything that can go wrong reading or writing ONNX files.
#[derive(Debug, thiserror::Error)]
pub enum OnnxError {
    /// A file or directory could not be read, written, created or renamed.
    #[error("{}: cannot {action}: {source}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done (`"read"`, `"write"`, ...).
        action: &'static str,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A file is not a valid protobuf encoding of the expected ONNX message.
    #[error("{}: not a valid ONNX {kind} file: {source}", .path.display())]
    Decode {
        /// The file.
        path: PathBuf,
        /// The message expected (`"ModelProto"`, `"TensorProto"`).
        kind: &'static str,
        /// What the protobuf decoder found.
        source: prost::DecodeError,
    },
    /// A tensor is malformed or of an unsupported type.
    #[error("{}tensor '{name}': {reason}", FilePrefix(.file.as_deref()))]
    Tensor {
        /// The file the tensor was read from or written to; `None` for an in-memory proto.
        file: Option<PathBuf>,
        /// The tensor's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A node is unsupported or does not fit the graph.
    #[error("{}: node {node}: {reason}", .file.display())]
    Node {
        /// The model file.
        file: PathBuf,
        /// The node, as [`crate::MlpNode::label`] names it.
        node: String,
        /// What is wrong.
        reason: String,
    },
    /// A node attribute is of an unsupported kind or malformed.
    #[error("{}: node {node}: attribute '{name}': {reason}", .file.display())]
    Attribute {
        /// The model file.
        file: PathBuf,
        /// The node, as [`crate::MlpNode::label`] names it.
        node: String,
        /// The attribute's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A graph input or output is malformed, or a tensor given for it does not match.
    #[error("{}: graph {kind} '{name}': {reason}", .file.display())]
    Value {
        /// The model file (or the test data file / directory holding the tensor).
        file: PathBuf,
        /// `"input"` or `"output"`.
        kind: &'static str,
        /// The value's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// Anything else wrong with a model, a test case directory or a data set.
    #[error("{}: {reason}", .path.display())]
    Invalid {
        /// The model file or directory.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// Displays `"<file>: "`, or nothing without a file.
struct FilePrefix<'a>(Option<&'a Path>);

impl fmt::Display for FilePrefix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, "{}: ", p.display()),
            None => Ok(()),
        }
    }
}

impl OnnxError {
    /// Attaches `file` to a [`OnnxError::Tensor`] error that has none yet.
    pub(crate) fn in_file(mut self, path: &Path) -> Self {
        if let OnnxError::Tensor {
            file: file @ None, ..
        } = &mut self
        {
            *file = Some(path.to_path_buf());
        }
        self
    }

    /// An [`OnnxError::Io`] error, as a `map_err` argument.
    pub(crate) fn io<'a>(
        path: &'a Path,
        action: &'static str,
    ) -> impl FnOnce(std::io::Error) -> OnnxError + 'a {
        move |source| OnnxError::Io {
            path: path.to_path_buf(),
            action,
            source,
        }
    }

    /// An [`OnnxError::Invalid`] error.
    pub(crate) fn invalid(path: &Path, reason: impl Into<String>) -> OnnxError {
        OnnxError::Invalid {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }
}

/// Error of [`crate::run_graph`], generic over the node callback's error `E`.
///
/// `E` only needs `Debug + Display` (so `anyhow::Error` works); the callback's error is shown in
/// the message rather than chained as a `source`.
#[derive(Debug, thiserror::Error)]
pub enum RunError<E> {
    /// The graph inputs given do not match the model, or the model itself is inconsistent.
    #[error(transparent)]
    Onnx(#[from] OnnxError),
    /// The node callback failed.
    #[error("{}: node {node}: {error}", .file.display())]
    Node {
        /// The model file.
        file: PathBuf,
        /// The node, as [`crate::MlpNode::label`] names it.
        node: String,
        /// The callback's error.
        error: E,
    },
}
