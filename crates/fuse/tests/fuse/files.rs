//! The file around the graph: unknown fields and metadata kept, external data read and
//! written, malformed models refused, and analysing without writing.

use crate::build::*;
use crate::run::*;
use nbits_mlp_fuse::{fuse_file, FuseOptions};
use nbits_mlp_onnx::proto::{DataLocation, ModelProto, StringStringEntryProto, TensorProto};
use prost::Message;
use std::path::{Path, PathBuf};

#[test]
fn unknown_fields_and_metadata_survive() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    // metadata_props (ModelProto field 14) and a doc_string (field 6), which this crate's
    // messages do not declare, appended to the encoded model.
    let mut extra = Vec::new();
    let meta = StringStringEntryProto {
        key: "k".into(),
        value: "v".into(),
    };
    prost::encoding::message::encode(14, &meta, &mut extra);
    prost::encoding::string::encode(6, &"model doc".to_string(), &mut extra);
    let r = fuse_bytes(&g.model(), &extra, &FuseOptions::default());
    assert!(r.out_bytes.ends_with(&extra[..0]));
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    assert!(
        find(&r.out_bytes, &extra),
        "metadata and doc string copied byte for byte"
    );
    // The down projection's bytes are copied as they were.
    let down = g
        .nodes
        .iter()
        .find(|n| n.name.contains("down_proj"))
        .unwrap()
        .encode_to_vec();
    assert!(find(&r.out_bytes, &down));
}

#[test]
fn external_data_is_read_and_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = G::default();
    packed_layer(&mut g, true, vec![int("axis", -1)], None);
    // Every initializer to an external file, at some offset.
    let mut blob = vec![0u8; 10];
    let mut inits = Vec::new();
    for t in &g.inits {
        let offset = blob.len();
        blob.extend_from_slice(&t.raw_data);
        let entry = |k: &str, v: String| StringStringEntryProto {
            key: k.into(),
            value: v,
        };
        inits.push(TensorProto {
            raw_data: Vec::new(),
            external_data: vec![
                entry("location", "w.bin".into()),
                entry("offset", offset.to_string()),
                entry("length", t.raw_data.len().to_string()),
            ],
            data_location: DataLocation::External as i32,
            ..t.clone()
        });
    }
    std::fs::write(dir.path().join("w.bin"), &blob).unwrap();
    let mut m = g.model();
    m.graph.as_mut().unwrap().initializer = inits;
    let src = write(dir.path(), &m, &[]);
    let out_dir = dir.path().join("sub");
    std::fs::create_dir(&out_dir).unwrap();
    let dst = out_dir.join("f.onnx");
    let report = fuse_file(&src, &dst, &FuseOptions::default()).unwrap();
    assert_eq!(
        report.external_data.as_deref(),
        Some(out_dir.join("f.onnx.data").as_path())
    );
    let out = ModelProto::decode(std::fs::read(&dst).unwrap().as_slice()).unwrap();
    let data = std::fs::read(out_dir.join("f.onnx.data")).unwrap();
    let orig = g.model().graph.unwrap();
    // Every tensor of the output reads back: kept ones equal the input's, split ones are halves
    // of their packed tensor; external from 1 KiB on, inline below.
    for t in &out.graph.unwrap().initializer {
        let bytes = if t.data_location == DataLocation::External as i32 {
            let get = |k: &str| {
                t.external_data
                    .iter()
                    .find(|e| e.key == k)
                    .unwrap()
                    .value
                    .clone()
            };
            assert_eq!(get("location"), "f.onnx.data");
            let (off, len): (usize, usize) = (
                get("offset").parse().unwrap(),
                get("length").parse().unwrap(),
            );
            data[off..off + len].to_vec()
        } else {
            assert!(t.raw_data.len() < 1024, "{} inline", t.name);
            t.raw_data.clone()
        };
        match orig.initializer.iter().find(|o| o.name == t.name) {
            Some(o) => {
                let external = t.data_location == DataLocation::External as i32;
                assert_eq!(
                    external,
                    o.raw_data.len() >= 1024,
                    "{}: only small tensors move inline",
                    t.name
                );
                assert_eq!(bytes, o.raw_data, "{}", t.name);
            }
            None => {
                let whole = &orig
                    .initializer
                    .iter()
                    .find(|o| t.name.starts_with(&o.name))
                    .unwrap()
                    .raw_data;
                let half = whole.len() / 2;
                assert!(
                    bytes == whole[..half] || bytes == whole[half..],
                    "{} is a half of its packed tensor",
                    t.name
                );
            }
        }
    }
}

#[test]
fn malformed_models_are_errors() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    let bytes = g.model().encode_to_vec();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("m.onnx");
    let dst = dir.path().join("o.onnx");
    let mut errors = 0;
    for cut in (1..bytes.len()).step_by(7) {
        std::fs::write(&src, &bytes[..cut]).unwrap();
        if let Err(e) = fuse_file(&src, &dst, &FuseOptions::default()) {
            errors += 1;
            assert!(e.to_string().contains("m.onnx"), "{e}");
        }
    }
    assert!(errors > 0);
    std::fs::write(&src, b"\x3a\x05abc").unwrap();
    let e = fuse_file(&src, &dst, &FuseOptions::default()).unwrap_err();
    assert!(e.to_string().contains("m.onnx"), "{e}");
    let e = fuse_file(
        &dir.path().join("missing.onnx"),
        &dst,
        &FuseOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("missing.onnx: cannot read"), "{e}");
}

#[test]
fn analyze_reports_without_writing() {
    let mut g = G::default();
    builder_layer(&mut g, 4, 32);
    let bytes = g.model().encode_to_vec();
    let r = nbits_mlp_fuse::analyze(Path::new("mem.onnx"), bytes, &FuseOptions::default()).unwrap();
    assert_eq!(r.fused.len(), 1);
    assert_eq!(r.fused[0].node, "/model/layers.0/mlp/MatMulNBitsMlp");
    assert_eq!(r.output, PathBuf::new());
    let e = nbits_mlp_fuse::analyze(Path::new("mem.onnx"), vec![0xff], &FuseOptions::default())
        .unwrap_err();
    assert!(e.to_string().starts_with("mem.onnx: "), "{e}");
}
