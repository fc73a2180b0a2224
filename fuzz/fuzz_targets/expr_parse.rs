//! Fuzzes the manifest expression language: any UTF-8 text must either fail to parse with a
//! syntax error, or parse and then evaluate (to a value or an error) without panicking. Errors
//! must point into the text and render.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nbits_mlp_core::expr::{ErrorKind, Expr, ExprError, MapEnv, Value};

fn env() -> MapEnv {
    let ints = |v: &[i64]| Value::List(v.iter().map(|&x| Value::Int(x)).collect());
    let mut e = MapEnv::default();
    for (k, v) in [
        ("x", Value::Int(7)),
        ("y", Value::Int(-3)),
        ("big", Value::Int(i64::MAX)),
        ("half", Value::Float(0.5)),
        ("t", Value::Bool(true)),
        ("f", Value::Bool(false)),
        ("xs", ints(&[1, 2, 3])),
        ("nil", ints(&[])),
        ("name", Value::Str("float16".into())),
    ] {
        e.derives.insert(k.into(), v);
    }
    for (k, v) in [
        ("attrs.N", Value::Int(20)),
        ("attrs.K", Value::Int(16)),
        ("attrs.epsilon", Value::Float(1e-5)),
        ("tunables.ROW_TILE", Value::Int(8)),
        ("shapes.aT", ints(&[2, 5, 16])),
        ("ranks.aT", Value::Int(3)),
        ("tensorDtypes.aT", Value::Str("float16".into())),
        ("present.aT", Value::Bool(true)),
        ("present.skipT", Value::Bool(false)),
        (
            "device.limits.maxComputeWorkgroupsPerDimension",
            Value::Int(65535),
        ),
    ] {
        e.paths.insert(k.into(), v);
    }
    e.features.insert("subgroups".into());
    e
}

fn check(text: &str, err: &ExprError) {
    assert!(
        err.span.start <= err.span.end && err.span.end <= text.len(),
        "{err:?}"
    );
    assert!(
        text.get(err.span.clone()).is_some(),
        "span not on char boundaries: {err:?}"
    );
    assert_eq!(&*err.source, text);
    let _ = err.to_string();
}

fuzz_target!(|text: &str| {
    match Expr::parse(text) {
        Ok(expr) => {
            let _ = expr.refs();
            match expr.eval(&mut env()) {
                Ok(v) => {
                    let _ = v.to_string();
                    let _ = v.to_json();
                }
                Err(err) => check(text, &err),
            }
        }
        Err(err) => {
            assert_eq!(err.kind, ErrorKind::Syntax);
            check(text, &err);
        }
    }
});
