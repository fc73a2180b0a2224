//! Arbitrary bytes and arbitrary protos never make the readers panic.

mod common;

use common::spec;
use nbits_mlp_core::DType;
use nbits_mlp_onnx::proto::{StringStringEntryProto, TensorProto};
use nbits_mlp_onnx::{load_model, read_tensor_file, tensor_from_proto, write_model};
use proptest::prelude::*;
use std::fs;
use std::sync::OnceLock;

/// A valid model file's bytes, to mutate.
fn valid_model() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.onnx");
        write_model(&path, &spec(DType::F16, None)).unwrap();
        fs::read(path).unwrap()
    })
}

fn check_file(bytes: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.pb");
    fs::write(&path, bytes).unwrap();
    // Errors must name the file; success is fine too.
    if let Err(e) = read_tensor_file(&path) {
        assert!(e.to_string().contains("f.pb"), "{e}");
    }
    if let Err(e) = load_model(&path) {
        assert!(e.to_string().contains("f.pb"), "{e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        check_file(&bytes);
    }

    #[test]
    fn mutated_valid_model(edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
                           cut in any::<prop::sample::Index>()) {
        let mut bytes = valid_model().to_vec();
        for (at, value) in edits {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        bytes.truncate(cut.index(bytes.len() + 1).max(bytes.len() / 2));
        check_file(&bytes);
    }

    #[test]
    fn arbitrary_tensor_protos(
        dims in proptest::collection::vec(prop_oneof![-2i64..6, Just(i64::MAX), Just(1i64 << 40)], 0..4),
        data_type in -1i32..30,
        raw_data in proptest::collection::vec(any::<u8>(), 0..64),
        float_data in proptest::collection::vec(any::<f32>(), 0..8),
        int32_data in proptest::collection::vec(prop_oneof![0i32..300, any::<i32>()], 0..8),
        data_location in -1i32..3,
        external in proptest::collection::vec(
            (prop::sample::select(vec!["location", "offset", "length", "checksum"]),
             prop::sample::select(vec!["w.bin", "../w.bin", "/w.bin", "", "0", "4", "18446744073709551615", "x"])),
            0..4),
    ) {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("w.bin"), [7u8; 40]).unwrap();
        let p = TensorProto {
            dims, data_type, raw_data, float_data, int32_data, data_location,
            external_data: external.into_iter().map(|(k, v)| StringStringEntryProto { key: k.into(), value: v.into() }).collect(),
            name: "t".into(),
            ..Default::default()
        };
        if let Ok(t) = tensor_from_proto(&p, Some(dir.path())) {
            prop_assert_eq!(t.data.len(), t.numel() * t.dtype.size());
        }
    }
}
