//! Writing text files all-or-nothing (WGSL dumps, device profiles). Tensor files and test cases
//! are written by the onnx crate's atomic helpers.

use anyhow::{Context as _, Result};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The directory holding `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Writes every `(path, bytes)`: each is first written in full to a temporary file beside its
/// path, and only when all are written are they renamed into place. Directories are not created
/// here (see [`create_dir_for_output`]).
pub fn write_all_atomically(files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
    let mut staged = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        let mut tmp = tempfile::Builder::new()
            .prefix(".nbits-mlp-tmp")
            .tempfile_in(parent_dir(path))
            .with_context(|| {
                format!(
                    "{}: cannot create a temporary file beside it",
                    path.display()
                )
            })?;
        tmp.write_all(bytes)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        staged.push((tmp, path));
    }
    for (tmp, path) in staged {
        tmp.persist(path)
            .map_err(|e| e.error)
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    Ok(())
}

/// Creates the output directory `dir` if missing; returns whether it was created (so that a
/// caller can remove it again when writing fails).
pub fn create_dir_for_output(dir: &Path) -> Result<bool> {
    if dir.is_dir() {
        return Ok(false);
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{}: cannot create the directory", dir.display()))?;
    Ok(true)
}

/// A file-name-safe form of `s` (letters, digits, `-`, `_`, `.`; everything else `_`).
pub fn safe_file_stem(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if t.is_empty() || t.starts_with('.') {
        format!("_{t}")
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_names() {
        assert_eq!(safe_file_stem("mlp/0 x"), "mlp_0_x");
        assert_eq!(safe_file_stem(""), "_");
        assert_eq!(safe_file_stem(".."), "_..");
    }

    #[test]
    fn writes_all_or_nothing() {
        let d = tempfile::tempdir().unwrap();
        let ok = vec![
            (d.path().join("a.txt"), b"a".to_vec()),
            (d.path().join("b.txt"), b"b".to_vec()),
        ];
        write_all_atomically(&ok).unwrap();
        assert_eq!(std::fs::read(d.path().join("b.txt")).unwrap(), b"b");
        let bad = vec![
            (d.path().join("c.txt"), b"c".to_vec()),
            (d.path().join("missing/d.txt"), b"d".to_vec()),
        ];
        assert!(write_all_atomically(&bad).is_err());
        assert!(!d.path().join("c.txt").exists());
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 2);
    }
}
