//! Every refusal of `MlpAttrs::from_attrs` and `run`: an error naming the culprit, never a panic.

use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, DType, MlpShape, Tensor};
use nbits_mlp_reference::gen::{self, generate, Case};
use nbits_mlp_reference::mlp::{self, MlpAttrs};
use nbits_mlp_reference::{run, RefError};

fn attrs_map() -> IndexMap<String, AttrValue> {
    gen::attrs(&MlpShape {
        k: 20,
        n: 8,
        bits: 8,
        block_size: 16,
        ..Default::default()
    })
}

fn attr_err(edit: impl FnOnce(&mut IndexMap<String, AttrValue>)) -> RefError {
    let mut m = attrs_map();
    edit(&mut m);
    MlpAttrs::from_attrs(&m).unwrap_err()
}

#[test]
fn attribute_errors() {
    for name in ["K", "N", "block_size", "activation"] {
        let e = attr_err(|m| {
            m.shift_remove(name);
        });
        assert_eq!(e, RefError::MissingAttribute(name));
        assert_eq!(
            e.to_string(),
            format!("Required attribute '{name}' is missing.")
        );
    }
    let e = attr_err(|m| {
        m.insert("activation".into(), AttrValue::Str("gelu".into()));
    });
    assert!(
        matches!(
            e,
            RefError::BadAttribute {
                name: "activation",
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("silu"), "{e}");
    let e = attr_err(|m| {
        m.insert("bits".into(), AttrValue::Int(3));
    });
    assert_eq!(e, RefError::UnsupportedBits(3));
    assert!(
        e.to_string()
            .contains("Only 4b/8b/2b quantization is supported"),
        "{e}"
    );
    let e = attr_err(|m| {
        m.insert("accuracy_level".into(), AttrValue::Int(4));
    });
    assert!(
        matches!(
            e,
            RefError::BadAttribute {
                name: "accuracy_level",
                ..
            }
        ),
        "{e}"
    );
    for (name, value) in [
        ("K", AttrValue::Int(0)),
        ("K", AttrValue::Int(-3)),
        ("N", AttrValue::Float(8.0)),
        ("block_size", AttrValue::Int(0)),
        ("block_size", AttrValue::Str("16".into())),
    ] {
        let e = attr_err(|m| {
            m.insert(name.into(), value.clone());
        });
        assert!(
            matches!(&e, RefError::BadAttribute { name: n, .. } if *n == name),
            "{name} = {value:?}: {e}"
        );
    }
    let e = attr_err(|m| {
        m.insert("epsilon".into(), AttrValue::Str("small".into()));
    });
    assert!(
        matches!(
            e,
            RefError::BadAttribute {
                name: "epsilon",
                ..
            }
        ),
        "{e}"
    );
    // 2 bits * block 6 = 12 bits: not whole bytes.
    let e = attr_err(|m| {
        m.insert("bits".into(), AttrValue::Int(2));
        m.insert("block_size".into(), AttrValue::Int(6));
    });
    assert!(
        matches!(
            e,
            RefError::BadAttribute {
                name: "block_size",
                ..
            }
        ),
        "{e}"
    );
}

/// K = 20, N = 8, 8 bits, block 16: weights [8, 2, 16], scales [8, 2]; every optional input.
fn valid() -> (MlpAttrs, Case) {
    let shape = MlpShape {
        k: 20,
        n: 8,
        lead: vec![3],
        bits: 8,
        block_size: 16,
        skip: true,
        norm: true,
        residual: true,
        gate_bias: true,
        up_bias: true,
        ..Default::default()
    };
    let case = generate(&shape, 0);
    (MlpAttrs::from_attrs(&case.attrs).unwrap(), case)
}

/// Runs the valid case after `edit`.
fn run_err(edit: impl FnOnce(&mut Case)) -> RefError {
    let (attrs, mut case) = valid();
    edit(&mut case);
    let e = run(&attrs, &case.input_refs(), case.want_residual).unwrap_err();
    // check_call refuses the same call with the same error, without computing.
    assert_eq!(
        mlp::check_call(&attrs, &case.input_refs(), case.want_residual),
        Err(e.clone())
    );
    e
}

fn set(case: &mut Case, i: usize, t: Option<Tensor>) {
    case.inputs[i] = t;
}

fn bad_input_name(e: &RefError) -> &'static str {
    match e {
        RefError::BadInput { name, .. } => name,
        other => panic!("not a BadInput: {other}"),
    }
}

#[test]
fn valid_case_runs() {
    let (attrs, case) = valid();
    assert_eq!(mlp::check_call(&attrs, &case.input_refs(), true), Ok(()));
    let out = run(&attrs, &case.input_refs(), true).unwrap();
    assert_eq!(out.y.shape, vec![3, 8]);
}

#[test]
fn missing_inputs() {
    for i in [
        mlp::A,
        mlp::GATE_B,
        mlp::GATE_SCALES,
        mlp::UP_B,
        mlp::UP_SCALES,
    ] {
        let e = run_err(|c| set(c, i, None));
        assert_eq!(e, RefError::MissingInput(mlp::INPUT_NAMES[i]));
        assert_eq!(
            e.to_string(),
            format!("missing required input {}", mlp::INPUT_NAMES[i])
        );
    }
    // A list cut short before the required up_scales.
    let (attrs, case) = valid();
    let refs = case.input_refs();
    assert_eq!(
        run(&attrs, &refs[..7], false).unwrap_err(),
        RefError::MissingInput("up_scales")
    );
    assert_eq!(
        run(&attrs, &[], false).unwrap_err(),
        RefError::MissingInput("A")
    );
    let mut ten = refs.clone();
    ten.push(None);
    assert_eq!(
        run(&attrs, &ten, true).unwrap_err(),
        RefError::TooManyInputs(10)
    );
}

#[test]
fn byte_length_mismatch() {
    for i in 0..9 {
        let e = run_err(|c| {
            c.inputs[i].as_mut().unwrap().data.pop();
        });
        assert_eq!(bad_input_name(&e), mlp::INPUT_NAMES[i], "{e}");
        assert!(e.to_string().starts_with(mlp::INPUT_NAMES[i]), "{e}");
    }
    // A shape whose element count overflows.
    let e = run_err(|c| c.inputs[mlp::A].as_mut().unwrap().shape = vec![usize::MAX, 2, 20]);
    assert_eq!(bad_input_name(&e), "A");
}

#[test]
fn dtype_errors() {
    let e = run_err(|c| {
        set(c, mlp::A, Some(Tensor::from_u8(vec![3, 20], vec![0; 60])));
    });
    assert_eq!(bad_input_name(&e), "A");
    assert!(e.to_string().contains("float32 or float16"), "{e}");
    for i in [
        mlp::SKIP,
        mlp::NORM_SCALE,
        mlp::GATE_SCALES,
        mlp::GATE_BIAS,
        mlp::UP_SCALES,
        mlp::UP_BIAS,
    ] {
        let e = run_err(|c| {
            let t = c.inputs[i].take().unwrap();
            set(
                c,
                i,
                Some(Tensor::from_f32_as_f16(t.shape.clone(), &t.to_f32())),
            );
        });
        let want = RefError::TypeMismatch {
            first: "A",
            first_dtype: "float32",
            second: mlp::INPUT_NAMES[i],
            second_dtype: "float16",
        };
        assert_eq!(e, want);
        let msg = e.to_string();
        assert!(
            msg.contains("T1") && msg.contains("A is float32") && msg.contains(mlp::INPUT_NAMES[i]),
            "{msg}"
        );
    }
    for i in [mlp::GATE_B, mlp::UP_B] {
        let e = run_err(|c| set(c, i, Some(Tensor::from_f32(vec![8, 2, 4], &[0.0; 64]))));
        assert_eq!(bad_input_name(&e), mlp::INPUT_NAMES[i]);
        assert!(e.to_string().contains("uint8"), "{e}");
    }
}

#[test]
fn a_shape_errors() {
    for shape in [vec![60], vec![1, 1, 3, 20]] {
        let e = run_err(|c| {
            let t = c.inputs[mlp::A].as_mut().unwrap();
            t.shape = shape.clone();
            // Keep skip consistent so the A check is the one that fires.
            c.inputs[mlp::SKIP].as_mut().unwrap().shape = shape.clone();
        });
        assert_eq!(bad_input_name(&e), "A");
        assert!(e.to_string().contains("rank must be 2 or 3"), "{e}");
    }
    let e = run_err(|c| c.inputs[mlp::A].as_mut().unwrap().shape = vec![4, 15]);
    assert_eq!(bad_input_name(&e), "A");
    assert!(e.to_string().contains("K=20"), "{e}");
}

#[test]
fn skip_norm_residual_rules() {
    let e = run_err(|c| set(c, mlp::NORM_SCALE, None));
    assert_eq!(e, RefError::SkipWithoutNorm);
    assert!(e.to_string().contains("skip requires norm_scale"), "{e}");
    let e = run_err(|c| set(c, mlp::SKIP, None));
    assert_eq!(e, RefError::ResidualWithoutSkip);
    assert!(
        e.to_string()
            .contains("input_skip_bias_sum requested without skip"),
        "{e}"
    );
    // Without residual, dropping skip is fine; dropping skip and norm too.
    let (attrs, mut case) = valid();
    case.inputs[mlp::SKIP] = None;
    assert!(run(&attrs, &case.input_refs(), false).is_ok());
    case.inputs[mlp::NORM_SCALE] = None;
    assert!(run(&attrs, &case.input_refs(), false).is_ok());

    let e = run_err(|c| c.inputs[mlp::SKIP].as_mut().unwrap().shape = vec![1, 3, 20]);
    assert_eq!(bad_input_name(&e), "skip");
    assert!(
        e.to_string().contains("[3, 20]") && e.to_string().contains("[1, 3, 20]"),
        "{e}"
    );
    let e = run_err(|c| {
        set(
            c,
            mlp::NORM_SCALE,
            Some(Tensor::from_f32(vec![19], &[1.0; 19])),
        )
    });
    assert_eq!(bad_input_name(&e), "norm_scale");
    assert_eq!(
        e.to_string(),
        "norm_scale must have shape [K]=[20], got [19]"
    );
    let e = run_err(|c| {
        set(
            c,
            mlp::NORM_SCALE,
            Some(Tensor::from_f32(vec![1, 20], &[1.0; 20])),
        )
    });
    assert_eq!(bad_input_name(&e), "norm_scale");
}

#[test]
fn weight_scale_bias_shape_errors() {
    for i in [mlp::GATE_B, mlp::UP_B] {
        let e = run_err(|c| set(c, i, Some(Tensor::from_u8(vec![8, 2, 15], vec![0; 240]))));
        assert_eq!(bad_input_name(&e), mlp::INPUT_NAMES[i]);
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!(
                "{}: expected shape [8, 2, 16]",
                mlp::INPUT_NAMES[i]
            )),
            "{msg}"
        );
        assert!(msg.ends_with("got [8, 2, 15]"), "{msg}");
        // Same bytes, other geometry; and rank 2.
        let e = run_err(|c| set(c, i, Some(Tensor::from_u8(vec![8, 1, 32], vec![0; 256]))));
        assert_eq!(bad_input_name(&e), mlp::INPUT_NAMES[i]);
        let e = run_err(|c| set(c, i, Some(Tensor::from_u8(vec![8, 32], vec![0; 256]))));
        assert_eq!(bad_input_name(&e), mlp::INPUT_NAMES[i]);
    }
    for i in [mlp::GATE_SCALES, mlp::UP_SCALES] {
        for shape in [vec![8, 3], vec![16], vec![7, 2]] {
            let e = run_err(|c| {
                let len = shape.iter().product();
                set(c, i, Some(Tensor::from_f32(shape.clone(), &vec![1.0; len])))
            });
            assert_eq!(bad_input_name(&e), mlp::INPUT_NAMES[i]);
            assert!(e.to_string().contains("expected shape [8, 2]"), "{e}");
        }
    }
    for i in [mlp::GATE_BIAS, mlp::UP_BIAS] {
        for shape in [vec![7], vec![1, 8]] {
            let e = run_err(|c| {
                let len = shape.iter().product();
                set(c, i, Some(Tensor::from_f32(shape.clone(), &vec![1.0; len])))
            });
            assert_eq!(bad_input_name(&e), mlp::INPUT_NAMES[i]);
            assert!(e.to_string().contains("N = 8"), "{e}");
        }
    }
}

#[test]
fn hand_built_attrs_are_checked() {
    let (attrs, case) = valid();
    let refs = case.input_refs();
    for (bad, what) in [
        (MlpAttrs { bits: 3, ..attrs }, "bits"),
        (MlpAttrs { k: 0, ..attrs }, "K"),
        (MlpAttrs { n: 0, ..attrs }, "N"),
        (
            MlpAttrs {
                block_size: 0,
                ..attrs
            },
            "block_size",
        ),
        (
            MlpAttrs {
                block_size: usize::MAX,
                ..attrs
            },
            "block_size",
        ),
        (
            MlpAttrs {
                block_size: 1 << 58,
                n: 64,
                ..attrs
            },
            "block_size",
        ),
        (
            MlpAttrs {
                n: usize::MAX / 4,
                ..attrs
            },
            "N",
        ),
    ] {
        let e = run(&bad, &refs, true).unwrap_err();
        match (&e, what) {
            (RefError::UnsupportedBits(3), "bits") => {}
            (RefError::BadAttribute { name, .. }, _) if *name == what => {}
            _ => panic!("{what}: {e}"),
        }
    }
    // Mismatched attributes against valid tensors name the tensor.
    let e = run(&MlpAttrs { n: 9, ..attrs }, &refs, true).unwrap_err();
    assert!(matches!(e, RefError::BadInput { .. }), "{e}");
    let e = run(&MlpAttrs { k: 21, ..attrs }, &refs, true).unwrap_err();
    assert_eq!(bad_input_name(&e), "A");
}

#[test]
fn f16_case_validates_too() {
    let shape = MlpShape {
        dtype: DType::F16,
        skip: true,
        norm: true,
        ..Default::default()
    };
    let case = generate(&shape, 0);
    let attrs = MlpAttrs::from_attrs(&case.attrs).unwrap();
    let mut refs = case.input_refs();
    let f32_scales = Tensor::from_f32(vec![32, 2], &[1.0; 64]);
    refs[mlp::UP_SCALES] = Some(&f32_scales);
    let e = run(&attrs, &refs, false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Type parameter (T1) bound to different types: A is float16 but up_scales is float32"
    );
}

#[test]
fn non_finite_parameters_are_refused_in_the_gpu_runtimes_words() {
    // The op's semantics: scales, biases and norm_scale must be finite. The message is the GPU
    // runtime's (`input i `name`: ...`), so the CLI's and Python's CPU paths need no check of
    // their own.
    for (i, value) in [
        (mlp::NORM_SCALE, f32::NAN),
        (mlp::GATE_SCALES, f32::INFINITY),
        (mlp::GATE_BIAS, f32::NEG_INFINITY),
        (mlp::UP_SCALES, f32::NAN),
        (mlp::UP_BIAS, f32::INFINITY),
    ] {
        let name = mlp::INPUT_NAMES[i];
        let e = run_err(|c| {
            let t = c.inputs[i].as_mut().unwrap();
            let mut v = t.to_f32();
            let last = v.len() - 1;
            v[last] = value;
            *t = Tensor::from_f32(t.shape.clone(), &v);
        });
        assert_eq!(bad_input_name(&e), name, "{e}");
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("input {i} `{name}`: {name}["))
                && text.ends_with("must be finite"),
            "{text}"
        );
    }
}
