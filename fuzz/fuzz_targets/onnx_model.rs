//! The ONNX model reader on arbitrary bytes: `load_model` on a `model.onnx` holding them, in a
//! folder that also holds a small external-data file, a symbolic link pointing out of the folder
//! and a subfolder (so mutated `external_data` locations reach every refusal). Errors are fine;
//! panics, hangs and reads outside the folder are not. A model that loads is planned for every
//! node, which must not panic either.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn folder() -> &'static std::path::Path {
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

fuzz_target!(|data: &[u8]| {
    let path = folder().join("model.onnx");
    std::fs::write(&path, data).unwrap();
    if let Ok(model) = nbits_mlp_onnx::load_model(&path) {
        let planner =
            nbits_mlp_core::Planner::project(nbits_mlp_core::DeviceProfile::discrete_gpu());
        for node in &model.nodes {
            if let Ok(call) = nbits_mlp_onnx::node_call(&model, node, &Default::default()) {
                let _ = planner.plan(&call, &Default::default());
            }
        }
    }
});
