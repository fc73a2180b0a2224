//! The folder the model-reading targets write their input into: it also holds a small
//! external-data file, a symbolic link pointing out of the folder and a subfolder, so mutated
//! `external_data` locations reach every refusal.

use std::sync::OnceLock;

/// The folder, made once per process.
pub fn folder() -> &'static std::path::Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().expect("temp dir");
        std::fs::write(d.path().join("w.bin"), [0x5Au8; 4096]).unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        #[cfg(unix)]
        let _ = std::os::unix::fs::symlink("/etc/hostname", d.path().join("out.bin"));
        d
    })
    .path()
}
