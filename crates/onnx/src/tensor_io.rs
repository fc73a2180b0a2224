//! `TensorProto` <-> [`Tensor`], and single-tensor `.pb` files.

use crate::error::OnnxError;
use crate::proto::{DataLocation, DataType, TensorProto};
use nbits_mlp_core::{DType, Tensor};
use prost::Message;
use std::borrow::Cow;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Component, Path};

/// The ONNX `TensorProto.DataType` value of `dtype`.
pub(crate) fn onnx_data_type(dtype: DType) -> i32 {
    (match dtype {
        DType::F32 => DataType::Float,
        DType::F16 => DataType::Float16,
        DType::U8 => DataType::Uint8,
    }) as i32
}

/// The [`DType`] of an ONNX `TensorProto.DataType` value; `Err` names an unsupported one.
pub(crate) fn dtype_from_onnx(data_type: i32) -> Result<DType, String> {
    match DataType::try_from(data_type) {
        Ok(DataType::Float) => Ok(DType::F32),
        Ok(DataType::Float16) => Ok(DType::F16),
        Ok(DataType::Uint8) => Ok(DType::U8),
        Ok(other) => Err(format!(
            "unsupported data type {} ({data_type}); only FLOAT, FLOAT16 and UINT8 are supported",
            other.as_str_name()
        )),
        Err(_) => Err(format!("unknown data type {data_type}")),
    }
}

/// `numel * dtype.size()`, or `None` on overflow.
pub(crate) fn byte_len(dtype: DType, shape: &[usize]) -> Option<usize> {
    shape
        .iter()
        .try_fold(dtype.size(), |acc, &d| acc.checked_mul(d))
}

/// Why `t`'s data length does not fit its dtype and shape, if it does not.
pub(crate) fn size_problem(t: &Tensor) -> Option<String> {
    match byte_len(t.dtype, &t.shape) {
        Some(want) if want == t.data.len() => None,
        Some(want) => Some(format!(
            "data holds {} bytes but {} {:?} needs {want}",
            t.data.len(),
            t.dtype,
            t.shape
        )),
        None => Some(format!("shape {:?} is too large", t.shape)),
    }
}

/// Converts a `TensorProto` to a [`Tensor`].
///
/// Supports `FLOAT`, `FLOAT16` and `UINT8`, with the data in `raw_data` (little-endian), in the
/// typed field ONNX uses for the type (`float_data` for `FLOAT`; `int32_data` for `FLOAT16`, one
/// `uint16` bit pattern per entry, and for `UINT8`), or in an external file
/// (`data_location = EXTERNAL`, `external_data` keys `location`, `offset`, `length`), whose
/// `location` is resolved against `base_dir` and must stay inside it (no absolute paths, no `..`).
///
/// Errors name the tensor: unsupported or unknown data types, negative dimensions, data whose size
/// does not match the shape, data in a field the type does not use or in two fields at once,
/// typed values out of range, and unreadable or short external data.
pub fn tensor_from_proto(p: &TensorProto, base_dir: Option<&Path>) -> Result<Tensor, OnnxError> {
    decode_tensor(Cow::Borrowed(p), base_dir)
}

/// [`tensor_from_proto`], moving `raw_data` out of an owned proto instead of copying it.
pub(crate) fn decode_tensor(
    p: Cow<'_, TensorProto>,
    base_dir: Option<&Path>,
) -> Result<Tensor, OnnxError> {
    let name = p.name.clone();
    let err = |reason: String| OnnxError::Tensor {
        file: None,
        name: name.clone(),
        reason,
    };
    let dtype = dtype_from_onnx(p.data_type).map_err(err)?;
    let shape = p
        .dims
        .iter()
        .map(|&d| {
            usize::try_from(d)
                .map_err(|_| err(format!("negative dimension {d} in dims {:?}", p.dims)))
        })
        .collect::<Result<Vec<usize>, _>>()?;
    let want =
        byte_len(dtype, &shape).ok_or_else(|| err(format!("dims {:?} are too large", p.dims)))?;
    let numel = want / dtype.size();

    let stored: Vec<&str> = [
        ("raw_data", p.raw_data.is_empty()),
        ("float_data", p.float_data.is_empty()),
        ("int32_data", p.int32_data.is_empty()),
        ("int64_data", p.int64_data.is_empty()),
    ]
    .into_iter()
    .filter(|&(_, empty)| !empty)
    .map(|(field, _)| field)
    .collect();

    let data = match DataLocation::try_from(p.data_location) {
        Err(_) => return Err(err(format!("unknown data_location {}", p.data_location))),
        Ok(DataLocation::External) => {
            if let Some(field) = stored.first() {
                return Err(err(format!(
                    "data_location is EXTERNAL but {field} is also set"
                )));
            }
            read_external(&p, base_dir, want).map_err(err)?
        }
        Ok(DataLocation::Default) => match stored.as_slice() {
            [] if want == 0 => Vec::new(),
            [] => {
                return Err(err(format!(
                    "holds no data but {dtype} {shape:?} needs {numel} elements"
                )))
            }
            [a, b, ..] => return Err(err(format!("holds data in both {a} and {b}"))),
            ["raw_data"] => {
                if p.raw_data.len() != want {
                    return Err(err(format!(
                        "raw_data holds {} bytes but {dtype} {shape:?} needs {want}",
                        p.raw_data.len()
                    )));
                }
                match p {
                    Cow::Owned(p) => p.raw_data,
                    Cow::Borrowed(p) => p.raw_data.clone(),
                }
            }
            [field] => typed_data(&p, dtype, field, numel).map_err(err)?,
        },
    };
    Tensor::from_bytes(dtype, shape, data).map_err(|e| err(e.to_string()))
}

/// The little-endian bytes of the typed field `field` of `p`, checking that `dtype` uses it.
fn typed_data(p: &TensorProto, dtype: DType, field: &str, numel: usize) -> Result<Vec<u8>, String> {
    let expected = match dtype {
        DType::F32 => "float_data",
        DType::F16 | DType::U8 => "int32_data",
    };
    if field != expected {
        return Err(format!(
            "{dtype} data must be in raw_data or {expected}, found {field}"
        ));
    }
    let count = match dtype {
        DType::F32 => p.float_data.len(),
        DType::F16 | DType::U8 => p.int32_data.len(),
    };
    if count != numel {
        return Err(format!(
            "{field} holds {count} elements but {dtype} {:?} needs {numel}",
            p.dims
        ));
    }
    let ints = |max: i32| {
        p.int32_data.iter().enumerate().map(move |(i, &v)| {
            if (0..=max).contains(&v) {
                Ok(v)
            } else {
                Err(format!(
                    "int32_data[{i}] = {v} is not a valid {dtype} value (0..={max})"
                ))
            }
        })
    };
    match dtype {
        DType::F32 => Ok(p.float_data.iter().flat_map(|v| v.to_le_bytes()).collect()),
        DType::F16 => {
            let mut out = Vec::with_capacity(numel * 2);
            for v in ints(0xFFFF) {
                out.extend_from_slice(&(v? as u16).to_le_bytes());
            }
            Ok(out)
        }
        DType::U8 => ints(0xFF).map(|v| v.map(|v| v as u8)).collect(),
    }
}

/// Reads `want` bytes of external data described by `p.external_data`, relative to `base_dir`.
fn read_external(p: &TensorProto, base_dir: Option<&Path>, want: usize) -> Result<Vec<u8>, String> {
    let mut location = None;
    let mut offset = 0u64;
    let mut length = None;
    for entry in &p.external_data {
        let number = || {
            entry.value.parse::<u64>().map_err(|_| {
                format!(
                    "external_data {} '{}' is not a number",
                    entry.key, entry.value
                )
            })
        };
        match entry.key.as_str() {
            "location" => location = Some(entry.value.as_str()),
            "offset" => offset = number()?,
            "length" => length = Some(number()?),
            _ => {}
        }
    }
    let location =
        location.ok_or("data_location is EXTERNAL but external_data has no 'location'")?;
    let rel = Path::new(location);
    if location.is_empty()
        || !rel
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!("external data location '{location}' must be a relative path inside the model's directory"));
    }
    let base_dir = base_dir
        .ok_or_else(|| format!("external data '{location}' but no base directory to resolve it"))?;
    let path = base_dir.join(rel);
    let shown = path.display();
    if let Some(length) = length {
        if length != want as u64 {
            return Err(format!(
                "external data {shown}: length {length} but the tensor needs {want} bytes"
            ));
        }
    }
    // The location is relative and has no `..`, but a symbolic link inside the folder can still
    // point outside it, and a FIFO would block the open for ever: resolve the path and refuse
    // anything that is not a regular file inside the model's folder.
    let real = path
        .canonicalize()
        .map_err(|e| format!("external data {shown}: cannot open: {e}"))?;
    let real_base = base_dir
        .canonicalize()
        .map_err(|e| format!("external data {shown}: cannot resolve the model's folder: {e}"))?;
    if !real.starts_with(&real_base) {
        return Err(format!(
            "external data {shown}: resolves to {}, outside the model's folder {}",
            real.display(),
            real_base.display()
        ));
    }
    if !std::fs::metadata(&real).is_ok_and(|m| m.is_file()) {
        return Err(format!("external data {shown}: not a regular file"));
    }
    let mut file =
        File::open(&real).map_err(|e| format!("external data {shown}: cannot open: {e}"))?;
    let file_len = file
        .metadata()
        .map_err(|e| format!("external data {shown}: {e}"))?
        .len();
    if offset
        .checked_add(want as u64)
        .is_none_or(|end| end > file_len)
    {
        return Err(format!(
            "external data {shown}: {want} bytes at offset {offset} run past the end of the file ({file_len} bytes)"
        ));
    }
    let mut data = vec![0u8; want];
    file.seek(SeekFrom::Start(offset))
        .and_then(|_| file.read_exact(&mut data))
        .map_err(|e| format!("external data {shown}: cannot read: {e}"))?;
    Ok(data)
}

/// Converts a [`Tensor`] to a `TensorProto` named `name`, with the data in `raw_data`.
///
/// The data is copied as is; [`write_tensor_file`] and [`crate::write_model`] check that its
/// length fits the dtype and shape.
pub fn tensor_to_proto(name: &str, t: &Tensor) -> TensorProto {
    TensorProto {
        dims: t.shape.iter().map(|&d| d as i64).collect(),
        data_type: onnx_data_type(t.dtype),
        name: name.to_string(),
        raw_data: t.data.clone(),
        ..Default::default()
    }
}

/// Reads a file holding one serialized `TensorProto` (the ONNX test-data `.pb` format); returns
/// its name and value. External data is resolved against the file's directory. Errors name the
/// file.
pub fn read_tensor_file(path: impl AsRef<Path>) -> Result<(String, Tensor), OnnxError> {
    let path = path.as_ref();
    let proto = {
        let bytes =
            nbits_mlp_core::files::read_limited(path, nbits_mlp_core::files::MAX_PROTOBUF_BYTES)
                .map_err(OnnxError::io(path, "read"))?;
        TensorProto::decode(bytes.as_slice()).map_err(|source| OnnxError::Decode {
            path: path.to_path_buf(),
            kind: "TensorProto",
            source,
        })?
    };
    let name = proto.name.clone();
    let t =
        decode_tensor(Cow::Owned(proto), Some(parent_dir(path))).map_err(|e| e.in_file(path))?;
    Ok((name, t))
}

/// Writes `t` named `name` as one serialized `TensorProto` (raw data) to `path`, atomically: a
/// temporary file beside it is renamed over `path` once complete.
pub fn write_tensor_file(path: impl AsRef<Path>, name: &str, t: &Tensor) -> Result<(), OnnxError> {
    let path = path.as_ref();
    let tmp = encode_tensor_to_temp(path, name, t)?;
    persist(tmp, path)
}

/// Encodes `t` into a new temporary file beside `path` (not yet renamed to it).
pub(crate) fn encode_tensor_to_temp(
    path: &Path,
    name: &str,
    t: &Tensor,
) -> Result<tempfile::NamedTempFile<File>, OnnxError> {
    if let Some(reason) = size_problem(t) {
        return Err(OnnxError::Tensor {
            file: Some(path.to_path_buf()),
            name: name.to_string(),
            reason,
        });
    }
    temp_file_with(path, &tensor_to_proto(name, t).encode_to_vec())
}

/// The directory holding `path` (`.` for a bare file name).
pub(crate) fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A new temporary file beside `path` holding `bytes`. It is created like an ordinary file (the
/// umask applies) so that renaming it to `path` leaves ordinary permissions.
pub(crate) fn temp_file_with(
    path: &Path,
    bytes: &[u8],
) -> Result<tempfile::NamedTempFile<File>, OnnxError> {
    let mut tmp = tempfile::Builder::new()
        .prefix(".nbits-mlp-tmp")
        .make_in(parent_dir(path), |p| {
            File::options().write(true).create_new(true).open(p)
        })
        .map_err(OnnxError::io(path, "create a temporary file for"))?;
    tmp.write_all(bytes).map_err(OnnxError::io(path, "write"))?;
    Ok(tmp)
}

/// Renames a complete temporary file to `path`.
pub(crate) fn persist(tmp: tempfile::NamedTempFile<File>, path: &Path) -> Result<(), OnnxError> {
    tmp.persist(path)
        .map(drop)
        .map_err(|e| OnnxError::io(path, "write")(e.error))
}
