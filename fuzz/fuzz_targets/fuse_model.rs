//! The fusion's model reader and rewriter on arbitrary bytes (a hand-written protobuf wire
//! reader: `crates/fuse/src/wire.rs`, `graph/`): `analyze` (what `nbits-mlp fuse` would do),
//! `fuse_file` into the same folder, and `mlp_node_shapes` (what `nbits-mlp map MODEL.onnx`
//! reads), whose shapes are then mapped at a few row counts. Errors are fine; panics, hangs and
//! reads outside the folder are not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nbits_mlp_fuse::FuseOptions;

#[path = "folder.rs"]
mod folder;
use folder::folder;

fuzz_target!(|data: &[u8]| {
    let path = folder().join("model.onnx");
    std::fs::write(&path, data).unwrap();
    let _ = nbits_mlp_fuse::analyze(&path, data.to_vec(), &FuseOptions::default());
    let _ = nbits_mlp_fuse::fuse_file(&path, &folder().join("fused.onnx"), &FuseOptions::default());
    if let Ok(lines) = nbits_mlp_fuse::distinct_mlp_shapes(&path) {
        let planner =
            nbits_mlp_core::Planner::project(nbits_mlp_core::DeviceProfile::discrete_gpu());
        for (_, shape) in lines.iter().take(4) {
            let _ = nbits_mlp_core::map::row_map(
                &planner,
                shape,
                [1, 7, 64],
                &nbits_mlp_core::Tunables::new(),
            );
        }
    }
});
