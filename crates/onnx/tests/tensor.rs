//! TensorProto <-> Tensor and single-tensor .pb files.

mod common;

use common::assert_err;
use half::f16;
use nbits_mlp_core::{DType, Tensor};
use nbits_mlp_onnx::proto::{DataLocation, DataType, StringStringEntryProto, TensorProto};
use nbits_mlp_onnx::{read_tensor_file, tensor_from_proto, tensor_to_proto, write_tensor_file};
use prost::Message;
use std::fs;

fn samples() -> Vec<Tensor> {
    vec![
        Tensor::from_f32(vec![2, 3], &[1.0, -2.5, 3.25, 0.0, f32::MAX, -0.0]),
        Tensor::from_f32_as_f16(vec![3, 1], &[1.0, 65504.0, -0.1]),
        Tensor::from_u8(vec![2, 2, 2], vec![0, 1, 127, 128, 200, 255, 3, 4]),
        Tensor::from_f32(vec![], &[7.0]),
        Tensor::from_f32_as_f16(vec![0, 4], &[]),
        Tensor::from_u8(vec![3, 0], vec![]),
    ]
}

fn proto(name: &str, data_type: DataType, dims: &[i64]) -> TensorProto {
    TensorProto {
        name: name.to_string(),
        data_type: data_type as i32,
        dims: dims.to_vec(),
        ..Default::default()
    }
}

#[test]
fn raw_data_round_trip_in_memory_and_through_files() {
    let dir = tempfile::tempdir().unwrap();
    for (i, t) in samples().into_iter().enumerate() {
        let p = tensor_to_proto("x", &t);
        assert!(p.float_data.is_empty() && p.int32_data.is_empty());
        let decoded = TensorProto::decode(p.encode_to_vec().as_slice()).unwrap();
        assert_eq!(tensor_from_proto(&decoded, None).unwrap(), t);

        let path = dir.path().join(format!("t{i}.pb"));
        write_tensor_file(&path, &format!("name{i}"), &t).unwrap();
        assert_eq!(read_tensor_file(&path).unwrap(), (format!("name{i}"), t));
    }
    // Only the written files are left: the temporary files were renamed.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), samples().len());
}

#[test]
fn typed_fields_for_all_three_dtypes() {
    let mut p = proto("f", DataType::Float, &[2, 2]);
    p.float_data = vec![1.5, -2.0, 0.25, 1e-30];
    assert_eq!(
        tensor_from_proto(&p, None).unwrap(),
        Tensor::from_f32(vec![2, 2], &[1.5, -2.0, 0.25, 1e-30])
    );

    // float16: one uint16 bit pattern per int32 entry.
    let halves = [
        f16::from_f32(1.0),
        f16::from_f32(-0.5),
        f16::MAX,
        f16::NEG_INFINITY,
        f16::from_bits(0x7E00),
    ];
    let mut p = proto("h", DataType::Float16, &[5]);
    p.int32_data = halves.iter().map(|h| h.to_bits() as i32).collect();
    let t = tensor_from_proto(&p, None).unwrap();
    assert_eq!(t, Tensor::from_f16(vec![5], &halves));
    assert_eq!(t.data[6..8], [0x00, 0xFC]); // -inf, little-endian

    let mut p = proto("u", DataType::Uint8, &[1, 4]);
    p.int32_data = vec![0, 1, 128, 255];
    assert_eq!(
        tensor_from_proto(&p, None).unwrap(),
        Tensor::from_u8(vec![1, 4], vec![0, 1, 128, 255])
    );

    // Typed forms survive protobuf encoding too (packed repeated fields).
    let decoded = TensorProto::decode(p.encode_to_vec().as_slice()).unwrap();
    assert_eq!(
        tensor_from_proto(&decoded, None).unwrap().data,
        vec![0, 1, 128, 255]
    );
}

#[test]
fn malformed_protos_are_errors_naming_the_tensor() {
    let mut p = proto("w64", DataType::Int64, &[2]);
    p.int64_data = vec![1, 2];
    assert_err(
        tensor_from_proto(&p, None),
        &["tensor 'w64'", "unsupported data type INT64"],
    );
    assert_err(
        tensor_from_proto(&proto("bf", DataType::Bfloat16, &[1]), None),
        &["'bf'", "BFLOAT16"],
    );
    let mut p = proto("odd", DataType::Float, &[1]);
    p.data_type = 999;
    assert_err(
        tensor_from_proto(&p, None),
        &["'odd'", "unknown data type 999"],
    );

    let mut p = proto("neg", DataType::Float, &[2, -1]);
    p.raw_data = vec![0; 8];
    assert_err(
        tensor_from_proto(&p, None),
        &["'neg'", "negative dimension -1"],
    );
    let mut p = proto("huge", DataType::Float, &[i64::MAX, i64::MAX]);
    p.raw_data = vec![0; 4];
    assert_err(tensor_from_proto(&p, None), &["'huge'", "too large"]);

    let mut p = proto("short", DataType::Float16, &[2, 3]);
    p.raw_data = vec![0; 11];
    assert_err(
        tensor_from_proto(&p, None),
        &["'short'", "raw_data holds 11 bytes", "needs 12"],
    );
    let mut p = proto("few", DataType::Float, &[3]);
    p.float_data = vec![1.0, 2.0];
    assert_err(
        tensor_from_proto(&p, None),
        &["'few'", "float_data holds 2 elements", "needs 3"],
    );
    assert_err(
        tensor_from_proto(&proto("empty", DataType::Uint8, &[3]), None),
        &["'empty'", "holds no data"],
    );

    let mut p = proto("wrongfield", DataType::Float16, &[1]);
    p.float_data = vec![1.0];
    assert_err(
        tensor_from_proto(&p, None),
        &[
            "'wrongfield'",
            "must be in raw_data or int32_data, found float_data",
        ],
    );
    let mut p = proto("both", DataType::Float, &[1]);
    p.float_data = vec![1.0];
    p.raw_data = vec![0; 4];
    assert_err(
        tensor_from_proto(&p, None),
        &["'both'", "both raw_data and float_data"],
    );

    let mut p = proto("bits", DataType::Float16, &[2]);
    p.int32_data = vec![1, 0x10000];
    assert_err(
        tensor_from_proto(&p, None),
        &["'bits'", "int32_data[1] = 65536"],
    );
    let mut p = proto("byte", DataType::Uint8, &[2]);
    p.int32_data = vec![-1, 3];
    assert_err(
        tensor_from_proto(&p, None),
        &["'byte'", "int32_data[0] = -1"],
    );

    let mut p = proto("loc", DataType::Uint8, &[1]);
    p.raw_data = vec![1];
    p.data_location = 7;
    assert_err(
        tensor_from_proto(&p, None),
        &["'loc'", "unknown data_location 7"],
    );
}

fn external(name: &str, location: &str, offset: Option<u64>, length: Option<u64>) -> TensorProto {
    let mut p = proto(name, DataType::Float, &[2, 2]);
    p.data_location = DataLocation::External as i32;
    let entry = |k: &str, v: String| StringStringEntryProto {
        key: k.to_string(),
        value: v,
    };
    p.external_data
        .push(entry("location", location.to_string()));
    p.external_data
        .extend(offset.map(|o| entry("offset", o.to_string())));
    p.external_data
        .extend(length.map(|l| entry("length", l.to_string())));
    p
}

#[test]
fn external_data_relative_to_base_dir() {
    let dir = tempfile::tempdir().unwrap();
    let values = [1.0f32, 2.0, -3.0, 4.5];
    let mut blob = vec![0xEE; 8];
    blob.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    blob.extend([0xEE; 3]);
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::write(dir.path().join("sub/w.bin"), &blob).unwrap();
    let want = Tensor::from_f32(vec![2, 2], &values);
    let base = Some(dir.path());

    assert_eq!(
        tensor_from_proto(&external("w", "sub/w.bin", Some(8), Some(16)), base).unwrap(),
        want
    );
    assert_eq!(
        tensor_from_proto(&external("w", "./sub/w.bin", Some(8), None), base).unwrap(),
        want
    );
    // Whole file from offset 0 without a length: the file is 27 bytes, the tensor 16, so only
    // the first 16 are read.
    assert_eq!(
        tensor_from_proto(&external("w", "sub/w.bin", None, None), base)
            .unwrap()
            .data,
        blob[..16]
    );

    // The same through a .pb file: external data resolves against the .pb's directory.
    let pb = dir.path().join("ext.pb");
    fs::write(
        &pb,
        external("w", "sub/w.bin", Some(8), Some(16)).encode_to_vec(),
    )
    .unwrap();
    assert_eq!(read_tensor_file(&pb).unwrap().1, want);

    assert_err(
        tensor_from_proto(&external("w", "sub/w.bin", Some(8), Some(12)), base),
        &["'w'", "length 12", "16 bytes"],
    );
    assert_err(
        tensor_from_proto(&external("w", "sub/w.bin", Some(12), None), base),
        &["'w'", "w.bin", "past the end"],
    );
    assert_err(
        tensor_from_proto(&external("w", "sub/nope.bin", None, None), base),
        &["'w'", "nope.bin", "cannot open"],
    );
    assert_err(
        tensor_from_proto(&external("w", "../w.bin", None, None), base),
        &["'w'", "'../w.bin'", "relative path inside"],
    );
    assert_err(
        tensor_from_proto(&external("w", "/etc/passwd", None, None), base),
        &["'w'", "relative path inside"],
    );
    assert_err(
        tensor_from_proto(&external("w", "sub/w.bin", None, None), None),
        &["'w'", "no base directory"],
    );
    // A symbolic link inside the folder that points outside it is not followed out; a FIFO (or
    // any other non-regular file) is refused without being opened, so nothing blocks.
    #[cfg(unix)]
    {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.bin"), [7u8; 64]).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.bin"),
            dir.path().join("sub/link.bin"),
        )
        .unwrap();
        assert_err(
            tensor_from_proto(&external("w", "sub/link.bin", None, None), base),
            &["'w'", "link.bin", "outside the model's folder"],
        );
        // A link to a file inside the folder is fine.
        std::os::unix::fs::symlink(dir.path().join("sub/w.bin"), dir.path().join("sub/in.bin"))
            .unwrap();
        assert_eq!(
            tensor_from_proto(&external("w", "sub/in.bin", Some(8), Some(16)), base).unwrap(),
            want
        );
        let fifo = dir.path().join("sub/fifo.bin");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert_err(
                tensor_from_proto(&external("w", "sub/fifo.bin", None, None), base),
                &["'w'", "fifo.bin", "not a regular file"],
            );
        }
        assert_err(
            tensor_from_proto(&external("w", "sub", None, None), base),
            &["'w'", "not a regular file"],
        );
    }
    assert_err(
        tensor_from_proto(&external("w", "sub/w.bin", Some(u64::MAX), None), base),
        &["'w'", "past the end"],
    );
    let mut bad = external("w", "sub/w.bin", None, None);
    bad.external_data[0].key = "place".to_string();
    assert_err(tensor_from_proto(&bad, base), &["'w'", "no 'location'"]);
    let mut bad = external("w", "sub/w.bin", None, None);
    bad.external_data.push(StringStringEntryProto {
        key: "offset".into(),
        value: "x1".into(),
    });
    assert_err(
        tensor_from_proto(&bad, base),
        &["'w'", "offset 'x1' is not a number"],
    );
    let mut bad = external("w", "sub/w.bin", None, None);
    bad.raw_data = vec![0; 16];
    assert_err(
        tensor_from_proto(&bad, base),
        &["'w'", "EXTERNAL but raw_data"],
    );
}

#[test]
fn bad_files_are_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.pb");
    assert_err(read_tensor_file(&missing), &["missing.pb", "cannot read"]);

    // Every strict prefix of a valid file is rejected (decode error or missing data).
    let t = Tensor::from_f32_as_f16(vec![2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let full = tensor_to_proto("trunc", &t).encode_to_vec();
    let path = dir.path().join("trunc.pb");
    for cut in 0..full.len() {
        fs::write(&path, &full[..cut]).unwrap();
        assert_err(read_tensor_file(&path), &["trunc.pb"]);
    }

    let garbage = dir.path().join("garbage.pb");
    fs::write(&garbage, [0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x01, 0x02]).unwrap();
    assert_err(
        read_tensor_file(&garbage),
        &["garbage.pb", "not a valid ONNX TensorProto file"],
    );

    let wrong = dir.path().join("wrong.pb");
    let mut p = proto("ints", DataType::Int32, &[1]);
    p.int32_data = vec![5];
    fs::write(&wrong, p.encode_to_vec()).unwrap();
    assert_err(
        read_tensor_file(&wrong),
        &["wrong.pb", "tensor 'ints'", "INT32"],
    );
}

#[test]
fn writing_a_tensor_whose_data_does_not_fit_fails_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = Tensor {
        dtype: DType::F32,
        shape: vec![3],
        data: vec![0; 8],
    };
    let path = dir.path().join("bad.pb");
    assert_err(
        write_tensor_file(&path, "bad", &bad),
        &["bad.pb", "tensor 'bad'", "8 bytes", "needs 12"],
    );
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    assert_err(
        write_tensor_file(dir.path().join("no/such/dir/x.pb"), "x", &samples()[0]),
        &["x.pb"],
    );
}
