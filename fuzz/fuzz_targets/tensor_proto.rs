//! The TensorProto reader (`.pb` test data) on arbitrary bytes, with external data resolved
//! against a folder holding a data file, a link pointing out of it and a subfolder: errors are
//! fine, panics and hangs are not; a tensor that decodes has exactly the bytes its dtype and
//! shape need.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn folder() -> &'static std::path::Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().expect("temp dir");
        std::fs::write(d.path().join("w.bin"), [0xA5u8; 4096]).unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        #[cfg(unix)]
        let _ = std::os::unix::fs::symlink("/etc/hostname", d.path().join("out.bin"));
        d
    })
    .path()
}

fuzz_target!(|data: &[u8]| {
    let path = folder().join("t.pb");
    std::fs::write(&path, data).unwrap();
    if let Ok((_, t)) = nbits_mlp_onnx::read_tensor_file(&path) {
        let want = t
            .shape
            .iter()
            .try_fold(t.dtype.size(), |a, d| a.checked_mul(*d));
        assert_eq!(want, Some(t.data.len()), "{:?} {:?}", t.dtype, t.shape);
    }
});
