//! The ONNX node-test layout: `model.onnx` beside `test_data_set_<n>/input_<i>.pb` and
//! `output_<i>.pb`.

use crate::error::OnnxError;
use crate::model::{check_values, load_model, validate_spec, write_model, Model, ModelSpec};
use crate::tensor_io::{
    encode_tensor_to_temp, parent_dir, persist, read_tensor_file, write_tensor_file,
};
use nbits_mlp_core::Tensor;
use std::fs;
use std::path::{Path, PathBuf};

/// The model file of a test case.
const MODEL_FILE: &str = "model.onnx";
/// Prefix of a test case's data set directories.
const DATA_SET_PREFIX: &str = "test_data_set_";

/// A test case: a model and data sets of inputs with expected outputs.
#[derive(Clone, Debug, PartialEq)]
pub struct TestCase {
    /// The case directory.
    pub dir: PathBuf,
    /// `model.onnx`.
    pub model: Model,
    /// The `test_data_set_<n>` directories, in numeric order.
    pub data_sets: Vec<DataSet>,
}

/// One `test_data_set_<n>` directory.
#[derive(Clone, Debug, PartialEq)]
pub struct DataSet {
    /// The data set directory.
    pub dir: PathBuf,
    /// `input_<i>.pb`, one per graph input, in order.
    pub inputs: Vec<Tensor>,
    /// `output_<i>.pb`, one per graph output, in order (the expected outputs).
    pub outputs: Vec<Tensor>,
}

/// Loads a test case directory: `model.onnx` and every `test_data_set_<n>` directory in numeric
/// order (`test_data_set_10` after `test_data_set_9`), each holding `input_<i>.pb` and
/// `output_<i>.pb` numbered from 0 without gaps (again in numeric order).
///
/// Each data set must hold one tensor per graph input and per graph output, of the declared
/// dtype and fixed dimensions; errors name the file or directory and the value at fault. Other
/// files are ignored.
pub fn load_case(dir: impl AsRef<Path>) -> Result<TestCase, OnnxError> {
    let dir = dir.as_ref();
    let model = load_model(dir.join(MODEL_FILE))?;
    let data_sets = numbered(dir, DATA_SET_PREFIX, "")?
        .into_iter()
        .map(|(_, set_dir)| {
            let inputs = read_numbered(&set_dir, "input_")?;
            let outputs = read_numbered(&set_dir, "output_")?;
            check_values(&set_dir, "input", &model.inputs, &inputs)?;
            check_values(&set_dir, "output", &model.outputs, &outputs)?;
            Ok(DataSet {
                dir: set_dir,
                inputs,
                outputs,
            })
        })
        .collect::<Result<Vec<_>, OnnxError>>()?;
    Ok(TestCase {
        dir: dir.to_path_buf(),
        model,
        data_sets,
    })
}

/// The entries `<prefix><n><suffix>` of `dir` with their numbers, in numeric order. Entries whose
/// middle part is not a decimal number are left out.
fn numbered(dir: &Path, prefix: &str, suffix: &str) -> Result<Vec<(usize, PathBuf)>, OnnxError> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).map_err(OnnxError::io(dir, "list"))? {
        let entry = entry.map_err(OnnxError::io(dir, "list"))?;
        let name = entry.file_name();
        let number = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix)?.strip_suffix(suffix))
            .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|digits| digits.parse::<usize>().ok());
        if let Some(n) = number {
            found.push((n, entry.path()));
        }
    }
    found.sort();
    Ok(found)
}

/// Reads `<prefix>0.pb`, `<prefix>1.pb`, ... from `dir`: every such file, which must be numbered
/// from 0 without gaps or duplicates.
fn read_numbered(dir: &Path, prefix: &str) -> Result<Vec<Tensor>, OnnxError> {
    numbered(dir, prefix, ".pb")?
        .into_iter()
        .enumerate()
        .map(|(expected, (n, path))| {
            if n != expected {
                let reason = if n < expected {
                    format!("two files are numbered {prefix}{n}.pb")
                } else {
                    format!(
                        "{prefix}{expected}.pb is missing (found {})",
                        path.display()
                    )
                };
                return Err(OnnxError::invalid(dir, reason));
            }
            Ok(read_tensor_file(&path)?.1)
        })
        .collect()
}

/// Writes a test case directory holding `model.onnx` (see [`write_model`]) and
/// `test_data_set_0` with one `input_<i>.pb` per graph input and one `output_<i>.pb` per graph
/// output, each named after its graph value.
///
/// The tensors must match the declared graph inputs and outputs (count, dtype, fixed
/// dimensions). The case is written into a temporary directory beside `dir` and renamed into
/// place, so on error nothing is left half-written. An existing `dir` is replaced, but only if it
/// is empty or holds a `model.onnx` (a previous case); any other existing path is an error.
pub fn write_case(
    dir: impl AsRef<Path>,
    spec: &ModelSpec,
    inputs: &[Tensor],
    outputs: &[Tensor],
) -> Result<(), OnnxError> {
    let dir = dir.as_ref();
    if dir.file_name().is_none() {
        return Err(OnnxError::invalid(
            dir,
            "not a directory name a test case can be written to",
        ));
    }
    validate_spec(&dir.join(MODEL_FILE), spec)?;
    check_values(dir, "input", &spec.inputs, inputs)?;
    check_values(dir, "output", &spec.outputs, outputs)?;
    let replace = match fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() && !dir.join(MODEL_FILE).is_file() {
                return Err(OnnxError::invalid(
                    dir,
                    "exists and is not a test case; refusing to replace it",
                ));
            }
            true
        }
        Err(_) if !dir.exists() => false,
        Err(e) => return Err(OnnxError::io(dir, "replace")(e)),
    };

    let parent = parent_dir(dir);
    let staging = tempfile::Builder::new()
        .prefix(".nbits-mlp-case")
        .tempdir_in(parent)
        .map_err(OnnxError::io(parent, "create a temporary directory in"))?;
    let new = staging.path().join("case");
    let set_dir = new.join(format!("{DATA_SET_PREFIX}0"));
    fs::create_dir_all(&set_dir).map_err(OnnxError::io(&set_dir, "create"))?;
    write_model(new.join(MODEL_FILE), spec)?;
    for (kind, infos, tensors) in [
        ("input", &spec.inputs, inputs),
        ("output", &spec.outputs, outputs),
    ] {
        for (i, (vi, t)) in infos.iter().zip(tensors).enumerate() {
            write_tensor_file(set_dir.join(format!("{kind}_{i}.pb")), &vi.name, t)?;
        }
    }

    if replace {
        let old = staging.path().join("old");
        fs::rename(dir, &old).map_err(OnnxError::io(dir, "replace"))?;
        if let Err(e) = fs::rename(&new, dir) {
            // Put the previous case back; the staging directory (with the new case) is removed.
            let _ = fs::rename(&old, dir);
            return Err(OnnxError::io(dir, "replace")(e));
        }
    } else {
        fs::rename(&new, dir).map_err(OnnxError::io(dir, "create"))?;
    }
    Ok(())
}

/// Reads `input_0.pb` ... `input_<n-1>.pb` from `dir`, one per graph input of `model`, and checks
/// them against the declared inputs (dtype, fixed dimensions). Errors name the file or input.
pub fn load_inputs_dir(dir: impl AsRef<Path>, model: &Model) -> Result<Vec<Tensor>, OnnxError> {
    let dir = dir.as_ref();
    let inputs = (0..model.inputs.len())
        .map(|i| Ok(read_tensor_file(dir.join(format!("input_{i}.pb")))?.1))
        .collect::<Result<Vec<_>, OnnxError>>()?;
    check_values(dir, "input", &model.inputs, &inputs)?;
    Ok(inputs)
}

/// Moves every staged temporary file onto its path, all or nothing: a destination that is not a
/// regular file stops everything before any file is touched; existing files are first moved
/// aside, and if any rename fails the new files are removed and the old ones put back.
fn replace_all_or_nothing(
    dir: &Path,
    staged: Vec<(tempfile::NamedTempFile<fs::File>, PathBuf)>,
) -> Result<(), OnnxError> {
    for (_, path) in &staged {
        if path.symlink_metadata().is_ok_and(|m| !m.is_file()) {
            return Err(OnnxError::invalid(
                path,
                "exists and is not a regular file; no output was written",
            ));
        }
    }
    // Existing outputs move aside first (same folder: renames, no copies).
    let mut backups: Vec<(PathBuf, PathBuf)> = Vec::new();
    let restore = |backups: &[(PathBuf, PathBuf)]| {
        for (path, backup) in backups {
            let _ = fs::rename(backup, path);
        }
    };
    for (_, path) in &staged {
        if path.exists() {
            let backup = tempfile::Builder::new()
                .prefix(".nbits-mlp-old")
                .tempfile_in(dir)
                .map_err(OnnxError::io(dir, "write"))?
                .into_temp_path();
            let backup = backup
                .keep()
                .map_err(|e| OnnxError::io(dir, "write")(e.error))?;
            if let Err(e) = fs::rename(path, &backup) {
                let _ = fs::remove_file(&backup);
                restore(&backups);
                return Err(OnnxError::io(path, "replace")(e));
            }
            backups.push((path.clone(), backup));
        }
    }
    let mut placed: Vec<PathBuf> = Vec::new();
    for (tmp, path) in staged {
        if let Err(e) = persist(tmp, &path) {
            for p in &placed {
                let _ = fs::remove_file(p);
            }
            restore(&backups);
            return Err(e);
        }
        placed.push(path);
    }
    for (_, backup) in backups {
        let _ = fs::remove_file(backup);
    }
    Ok(())
}

/// Writes `output_<i>.pb` into `dir` (created if missing) for each `(name, tensor)`, in order.
///
/// Every file is first written in full to a temporary file in `dir`, and only then are they all
/// renamed into place, so an error (an unwritable directory, a tensor whose data does not fit
/// its shape) leaves no partial output. Stale `output_<k>.pb` files with `k >= tensors.len()`
/// from an earlier run are removed, so the directory holds exactly these outputs. When any
/// output cannot be put in place, no earlier output is replaced (see `replace_all_or_nothing`).
pub fn write_outputs_dir(
    dir: impl AsRef<Path>,
    tensors: &[(String, Tensor)],
) -> Result<(), OnnxError> {
    let dir = dir.as_ref();
    fs::create_dir_all(dir).map_err(OnnxError::io(dir, "create"))?;
    let staged = tensors
        .iter()
        .enumerate()
        .map(|(i, (name, t))| {
            let path = dir.join(format!("output_{i}.pb"));
            Ok((encode_tensor_to_temp(&path, name, t)?, path))
        })
        .collect::<Result<Vec<_>, OnnxError>>()?;
    replace_all_or_nothing(dir, staged)?;
    for (n, path) in numbered(dir, "output_", ".pb")? {
        if n >= tensors.len() {
            fs::remove_file(&path).map_err(OnnxError::io(&path, "remove"))?;
        }
    }
    Ok(())
}
