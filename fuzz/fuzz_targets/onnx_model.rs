//! The ONNX model reader on arbitrary bytes: `load_model` on a `model.onnx` holding them, in a
//! folder that also holds a small external-data file, a symbolic link pointing out of the folder
//! and a subfolder (so mutated `external_data` locations reach every refusal). Errors are fine;
//! panics, hangs and reads outside the folder are not. A model that loads is planned for every
//! node, which must not panic either.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "folder.rs"]
mod folder;
use folder::folder;

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
