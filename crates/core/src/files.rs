//! Reading the project's input files safely: only regular files (a FIFO would block for ever, a
//! device like `/dev/zero` never ends), and never more than a stated size, checked before the
//! bytes are read. One home for that rule, used for manifests, overlays, device profiles,
//! templates, tuning caches and ONNX files.

use std::io::Read;
use std::path::Path;

/// Size limit for JSON files the project reads (manifests, overlays, device profiles, tuning
/// caches, reports): far above any real one (the overlay is ~250 KB).
pub const MAX_JSON_BYTES: u64 = 64 << 20;

/// Size limit for one WGSL template.
pub const MAX_TEMPLATE_BYTES: u64 = 4 << 20;

/// Size limit for one protobuf file (an ONNX model or TensorProto): protobuf's own 2 GiB limit.
pub const MAX_PROTOBUF_BYTES: u64 = 2 << 30;

/// Reads `path` whole if it is a regular file (after following symbolic links) of at most
/// `limit` bytes. Errors say which of those failed; the file is not opened when it is not a
/// regular file, so a FIFO cannot block.
pub fn read_limited(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    if meta.len() > limit {
        return Err(too_large(meta.len(), limit));
    }
    let mut data = Vec::with_capacity(meta.len() as usize);
    // The file may grow between the check and the read: read at most one byte past the limit.
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut data)?;
    if data.len() as u64 > limit {
        return Err(too_large(data.len() as u64, limit));
    }
    Ok(data)
}

/// [`read_limited`] as UTF-8 text.
pub fn read_text_limited(path: &Path, limit: u64) -> std::io::Result<String> {
    String::from_utf8(read_limited(path, limit)?)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not valid UTF-8 text"))
}

fn too_large(len: u64, limit: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("larger than the {limit}-byte limit ({len} bytes or more)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_within_the_limit_only() {
        let dir = std::env::temp_dir().join(format!("nbits-mlp-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.json");
        std::fs::write(&f, b"{\"x\": 1}").unwrap();
        assert_eq!(read_text_limited(&f, 100).unwrap(), "{\"x\": 1}");
        let e = read_limited(&f, 3).unwrap_err().to_string();
        assert!(e.contains("3-byte limit"), "{e}");
        let e = read_limited(&dir, 100).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
        #[cfg(unix)]
        {
            let e = read_limited(Path::new("/dev/zero"), 100)
                .unwrap_err()
                .to_string();
            assert!(e.contains("not a regular file"), "{e}");
        }
        std::fs::write(&f, [0xff, 0xfe]).unwrap();
        assert!(read_text_limited(&f, 100).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
