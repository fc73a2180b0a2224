//! The node-test layout: write_case / load_case, load_inputs_dir, write_outputs_dir.

mod common;

use common::{assert_err, floats, spec, K, N};
use nbits_mlp_core::{DType, Tensor};
use nbits_mlp_onnx::{
    load_case, load_inputs_dir, load_model, read_tensor_file, write_case, write_outputs_dir,
    write_tensor_file, ModelSpec, ValueInfo,
};
use std::fs;
use std::path::Path;

fn io(dtype: DType, rows: usize) -> (Vec<Tensor>, Vec<Tensor>) {
    (
        vec![Tensor::from_floats(
            dtype,
            vec![rows, K],
            &floats(rows * K, 0.3),
        )],
        vec![Tensor::from_floats(
            dtype,
            vec![rows, N],
            &floats(rows * N, 0.7),
        )],
    )
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn write_then_load_case() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("case");
    let spec = spec(DType::F16, None);
    let (inputs, outputs) = io(DType::F16, 3);
    write_case(&dir, &spec, &inputs, &outputs).unwrap();
    assert_eq!(
        names(root.path()),
        ["case"],
        "no staging directory is left behind"
    );
    assert_eq!(names(&dir), ["model.onnx", "test_data_set_0"]);
    assert_eq!(
        names(&dir.join("test_data_set_0")),
        ["input_0.pb", "output_0.pb"]
    );
    assert_eq!(
        read_tensor_file(dir.join("test_data_set_0/input_0.pb"))
            .unwrap()
            .0,
        "A"
    );

    let case = load_case(&dir).unwrap();
    assert_eq!(case.dir, dir);
    assert_eq!(case.model.to_spec(), spec);
    assert_eq!(case.data_sets.len(), 1);
    assert_eq!(case.data_sets[0].dir, dir.join("test_data_set_0"));
    assert_eq!(case.data_sets[0].inputs, inputs);
    assert_eq!(case.data_sets[0].outputs, outputs);

    // Writing again replaces the previous case.
    let (inputs2, outputs2) = io(DType::F16, 5);
    write_case(&dir, &spec, &inputs2, &outputs2).unwrap();
    let case = load_case(&dir).unwrap();
    assert_eq!(
        (
            case.data_sets[0].inputs.clone(),
            case.data_sets[0].outputs.clone()
        ),
        (inputs2, outputs2)
    );
    assert_eq!(names(root.path()), ["case"]);
}

#[test]
fn data_sets_and_tensor_files_are_in_numeric_order() {
    // Eleven graph inputs X0..X10 of shapes [1, i + 1]: input_10.pb must come after input_9.pb.
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("many");
    let mut spec: ModelSpec = spec(DType::F32, Some(1));
    let extra: Vec<Tensor> = (0..10)
        .map(|i| Tensor::from_f32(vec![1, i + 1], &vec![i as f32; i + 1]))
        .collect();
    for (i, t) in extra.iter().enumerate() {
        spec.inputs.push(ValueInfo::new(format!("X{i}"), &t.info()));
    }
    let (mut inputs, outputs) = io(DType::F32, 1);
    inputs.extend(extra);
    write_case(&dir, &spec, &inputs, &outputs).unwrap();

    // More data sets, numbered so that lexical order would differ: 0, 1, 2, 10.
    for n in [10, 2, 1] {
        let set = dir.join(format!("test_data_set_{n}"));
        fs::create_dir(&set).unwrap();
        for (i, t) in inputs.iter().enumerate() {
            write_tensor_file(set.join(format!("input_{i}.pb")), "", t).unwrap();
        }
        let marker = Tensor::from_f32(vec![1, N], &[n as f32; N]);
        write_tensor_file(set.join("output_0.pb"), "Y", &marker).unwrap();
    }
    fs::create_dir(dir.join("test_data_set_x")).unwrap(); // not a data set: ignored
    fs::write(dir.join("test_data_set_0/notes.txt"), "ignored").unwrap();

    let case = load_case(&dir).unwrap();
    assert_eq!(case.data_sets[0].inputs, inputs);
    let order: Vec<f32> = case.data_sets[1..]
        .iter()
        .map(|d| d.outputs[0].to_f32()[0])
        .collect();
    assert_eq!(order, [1.0, 2.0, 10.0]);
    assert_eq!(
        load_inputs_dir(dir.join("test_data_set_10"), &case.model).unwrap(),
        inputs
    );
}

#[test]
fn broken_cases_are_errors_naming_the_file() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("case");
    let (inputs, outputs) = io(DType::F32, 2);
    write_case(&dir, &spec(DType::F32, Some(2)), &inputs, &outputs).unwrap();
    let set = dir.join("test_data_set_0");

    fs::rename(set.join("output_0.pb"), set.join("output_1.pb")).unwrap();
    assert_err(
        load_case(&dir),
        &["test_data_set_0", "output_0.pb is missing", "output_1.pb"],
    );
    fs::copy(set.join("output_1.pb"), set.join("output_0.pb")).unwrap();
    assert_err(
        load_case(&dir),
        &["test_data_set_0", "got 2 output tensors", "1 graph outputs"],
    );
    fs::remove_file(set.join("output_1.pb")).unwrap();
    fs::copy(set.join("input_0.pb"), set.join("input_00.pb")).unwrap();
    assert_err(
        load_case(&dir),
        &["test_data_set_0", "two files are numbered input_0.pb"],
    );
    fs::remove_file(set.join("input_00.pb")).unwrap();
    fs::write(set.join("input_0.pb"), b"\xff\xff").unwrap();
    assert_err(
        load_case(&dir),
        &["input_0.pb", "not a valid ONNX TensorProto"],
    );
    write_tensor_file(
        set.join("input_0.pb"),
        "A",
        &Tensor::from_f32(vec![2, 3], &[0.0; 6]),
    )
    .unwrap();
    assert_err(
        load_case(&dir),
        &["test_data_set_0", "graph input 'A'", "[2, 3]"],
    );
    assert_err(
        load_inputs_dir(&set, &load_model(dir.join("model.onnx")).unwrap()),
        &["graph input 'A'", "[2, 3]"],
    );
    fs::remove_file(dir.join("model.onnx")).unwrap();
    assert_err(load_case(&dir), &["model.onnx", "cannot read"]);
    assert_err(load_case(root.path().join("absent")), &["absent"]);
}

#[test]
fn write_case_writes_nothing_on_error() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("case");
    let spec = spec(DType::F32, Some(2));
    let (inputs, outputs) = io(DType::F32, 2);

    let (wrong_rows, _) = io(DType::F32, 3);
    assert_err(
        write_case(&dir, &spec, &wrong_rows, &outputs),
        &["case", "graph input 'A'", "[3, 32]"],
    );
    assert_err(
        write_case(&dir, &spec, &inputs, &[]),
        &["got 0 output tensors"],
    );
    let mut bad = spec.clone();
    bad.nodes[0].inputs[3] = "missing".into();
    assert_err(
        write_case(&dir, &bad, &inputs, &outputs),
        &["model.onnx", "input 3 'missing'"],
    );
    assert!(names(root.path()).is_empty());

    // An existing directory that is not a test case is never replaced.
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("precious.txt"), "keep").unwrap();
    assert_err(
        write_case(&dir, &spec, &inputs, &outputs),
        &["case", "not a test case"],
    );
    assert_eq!(names(&dir), ["precious.txt"]);
    assert_eq!(names(root.path()), ["case"]);

    // An empty directory is filled.
    fs::remove_file(dir.join("precious.txt")).unwrap();
    write_case(&dir, &spec, &inputs, &outputs).unwrap();
    assert_eq!(load_case(&dir).unwrap().data_sets[0].inputs, inputs);
}

#[test]
fn load_inputs_dir_reads_one_file_per_graph_input() {
    let root = tempfile::tempdir().unwrap();
    let path = root.path().join("m.onnx");
    let spec = spec(DType::F16, None);
    nbits_mlp_onnx::write_model(&path, &spec).unwrap();
    let model = load_model(&path).unwrap();
    let a = Tensor::from_f32_as_f16(vec![7, K], &floats(7 * K, 1.0));
    let dir = root.path().join("in");
    fs::create_dir(&dir).unwrap();
    assert_err(
        load_inputs_dir(&dir, &model),
        &["input_0.pb", "cannot read"],
    );
    write_tensor_file(dir.join("input_0.pb"), "A", &a).unwrap();
    write_tensor_file(dir.join("input_1.pb"), "extra", &a).unwrap(); // beyond the model's inputs: ignored
    assert_eq!(load_inputs_dir(&dir, &model).unwrap(), vec![a]);
    write_tensor_file(
        dir.join("input_0.pb"),
        "A",
        &Tensor::from_f32(vec![7, K], &floats(7 * K, 1.0)),
    )
    .unwrap();
    assert_err(
        load_inputs_dir(&dir, &model),
        &[
            "graph input 'A'",
            "got float32 but the model declares float16",
        ],
    );
}

#[test]
fn write_outputs_dir_is_all_or_nothing() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("out");
    let y = Tensor::from_f32(vec![2, N], &floats(2 * N, 0.0));
    let s = Tensor::from_f32(vec![2, K], &floats(2 * K, 0.5));
    let three = [
        ("Y".to_string(), y.clone()),
        ("S".to_string(), s.clone()),
        ("Z".to_string(), y.clone()),
    ];
    write_outputs_dir(&dir, &three).unwrap();
    assert_eq!(names(&dir), ["output_0.pb", "output_1.pb", "output_2.pb"]);

    // Fewer outputs: the stale output_2.pb goes.
    write_outputs_dir(&dir, &three[..2]).unwrap();
    assert_eq!(names(&dir), ["output_0.pb", "output_1.pb"]);
    assert_eq!(
        read_tensor_file(dir.join("output_1.pb")).unwrap(),
        ("S".to_string(), s)
    );

    // A bad second tensor: the first is not written either, and no temporary file is left.
    let bad = Tensor {
        dtype: DType::F16,
        shape: vec![4],
        data: vec![0; 7],
    };
    let fresh = root.path().join("fresh");
    assert_err(
        write_outputs_dir(
            &fresh,
            &[("Y".into(), y.clone()), ("B".into(), bad.clone())],
        ),
        &["output_1.pb", "tensor 'B'"],
    );
    assert!(names(&fresh).is_empty());
    let before = fs::read(dir.join("output_0.pb")).unwrap();
    assert_err(
        write_outputs_dir(
            &dir,
            &[
                ("Q".into(), Tensor::from_f32(vec![1], &[9.0])),
                ("B".into(), bad),
            ],
        ),
        &["tensor 'B'"],
    );
    assert_eq!(names(&dir), ["output_0.pb", "output_1.pb"]);
    assert_eq!(fs::read(dir.join("output_0.pb")).unwrap(), before);

    let file = root.path().join("plain");
    fs::write(&file, "x").unwrap();
    assert_err(
        write_outputs_dir(&file, &[("Y".into(), y)]),
        &["plain", "cannot create"],
    );
}
