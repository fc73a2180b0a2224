//! What a table row does to its scratch folder (`tmp`) before its command runs.

use crate::common::{data_set, read_tensor};
use nbits_mlp_core::{AttrValue, Tensor};
use std::path::Path;

/// Makes A's and skip's first dimension symbolic in `{model}`.
pub fn symbolic_rows(tmp: &Path) {
    let model_path = tmp.join("case/model.onnx");
    let mut spec = nbits_mlp_onnx::load_model(&model_path).unwrap().to_spec();
    for vi in spec
        .inputs
        .iter_mut()
        .filter(|vi| vi.name == "A" || vi.name == "skip")
    {
        vi.shape = Some(vec![None, Some(93)]);
    }
    nbits_mlp_onnx::write_model(&model_path, &spec).unwrap();
}

/// `{tmp}/p.json`: a device profile file.
pub fn profile_file(tmp: &Path) {
    std::fs::write(tmp.join("p.json"), r#"{"name":"mine","limits":{"maxStorageBuffersPerShaderStage":10},"features":["shader-f16"]}"#).unwrap();
}

/// `{tmp}/bad.json`: a device profile file with an unknown limit.
pub fn misspelled_limit_profile(tmp: &Path) {
    std::fs::write(
        tmp.join("bad.json"),
        r#"{"name":"b","limits":{"maxStorageBufers":8}}"#,
    )
    .unwrap();
}

pub fn remove_input_2(tmp: &Path) {
    std::fs::remove_file(data_set(&tmp.join("case")).join("input_2.pb")).unwrap();
}

pub fn truncate_input_0(tmp: &Path) {
    let f = data_set(&tmp.join("case")).join("input_0.pb");
    let bytes = std::fs::read(&f).unwrap();
    std::fs::write(&f, &bytes[..bytes.len() / 2]).unwrap();
}

pub fn write_a(tmp: &Path, a: Tensor) {
    nbits_mlp_onnx::write_tensor_file(data_set(&tmp.join("case")).join("input_0.pb"), "A", &a)
        .unwrap();
}

/// A of float16 where the model says float32.
pub fn a_of_wrong_dtype(tmp: &Path) {
    write_a(tmp, Tensor::from_f32_as_f16(vec![3, 93], &[0.5; 3 * 93]));
}

/// A of 2 rows where the model says 3.
pub fn a_of_wrong_shape(tmp: &Path) {
    write_a(tmp, Tensor::from_f32(vec![2, 93], &[0.5; 2 * 93]));
}

/// An attribute `colour` on the model's node.
pub fn unknown_attribute(tmp: &Path) {
    let model_path = tmp.join("case/model.onnx");
    let mut spec = nbits_mlp_onnx::load_model(&model_path).unwrap().to_spec();
    spec.nodes[0]
        .attrs
        .insert("colour".into(), AttrValue::Int(3));
    nbits_mlp_onnx::write_model(&model_path, &spec).unwrap();
}

/// Y's element 5 off by 0.25 in the expected output.
pub fn tampered_expected_output(tmp: &Path) {
    let f = data_set(&tmp.join("case")).join("output_0.pb");
    let y = read_tensor(&f);
    let mut v = y.to_f32();
    v[5] += 0.25;
    nbits_mlp_onnx::write_tensor_file(&f, "Y", &Tensor::from_f32(y.shape.clone(), &v)).unwrap();
}

pub fn seed_manifest() -> serde_json::Value {
    serde_json::from_str(nbits_mlp_core::manifest::SEED_MANIFEST).unwrap()
}

/// `{tmp}/typo.json`: the seed manifest with a misspelled key in variant 0.
pub fn manifest_with_typo(tmp: &Path) {
    let mut typo = seed_manifest();
    typo["variants"][0]["pririty"] = 1.into();
    std::fs::write(tmp.join("typo.json"), serde_json::to_string(&typo).unwrap()).unwrap();
}

/// `{tmp}/missing.json`: the seed manifest naming a template that does not exist.
pub fn manifest_with_missing_template(tmp: &Path) {
    let mut missing = seed_manifest();
    missing["variants"][0]["passes"][0]["shader"] = "nope.wgsl.jinja".into();
    std::fs::write(
        tmp.join("missing.json"),
        serde_json::to_string(&missing).unwrap(),
    )
    .unwrap();
}

/// `{tmp}/broken/mlp-gemvp.wgsl.jinja`: the few-rows kernel's template with a WGSL syntax
/// error in its first statement (`let col = t % CW +;`), as an edited template might have.
pub fn broken_template(tmp: &Path) {
    let src = include_str!("../../../../templates/mlp-gemvp.wgsl.jinja");
    let good = "let col = t % CW;";
    assert!(src.contains(good), "the template still has `{good}`");
    std::fs::create_dir_all(tmp.join("broken")).unwrap();
    std::fs::write(
        tmp.join("broken/mlp-gemvp.wgsl.jinja"),
        src.replacen(good, "let col = t % CW +;", 1),
    )
    .unwrap();
}

/// `{tmp}/badov.json`: an overlay whose JSON ends in the middle of its variants.
pub fn truncated_overlay(tmp: &Path) {
    std::fs::write(tmp.join("badov.json"), "{\"variants\": [").unwrap();
}

/// `{tmp}/seed.json`: the seed manifest as it is.
pub fn seed_manifest_file(tmp: &Path) {
    std::fs::write(
        tmp.join("seed.json"),
        nbits_mlp_core::manifest::SEED_MANIFEST,
    )
    .unwrap();
}

/// `{tmp}/ort.jsonl`: a line that is not a peer result.
pub fn bad_peers_file(tmp: &Path) {
    std::fs::write(tmp.join("ort.jsonl"), "{\"peer\": 1}\n").unwrap();
}
