//! Hand-written plans (independent of the manifest's templates) for the runtime's tests, and
//! ([`check`]) real plans' runs checked against the reference.
// Each test file uses a different subset of these helpers.
#![allow(dead_code)]

pub mod check;

use indexmap::IndexMap;
use nbits_mlp_core::manifest::BufferKind;
use nbits_mlp_core::plan::{
    BindingPlan, IntermediatePlan, OutputPlan, PassPlan, Resource, UniformField,
};
use nbits_mlp_core::render::{binding_declarations, workgroup_size};
use nbits_mlp_core::{DType, Plan, Tensor};

/// The environment variable `name` as a number (`NBITS_MLP_FUZZ_SEED`, `NBITS_MLP_FUZZ_CASES` of
/// the random tests), `default` when it is unset or not a number.
pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// A storage binding.
pub fn storage(
    key: &str,
    access: BufferKind,
    element_type: &str,
    resource: Resource,
    bytes: u64,
) -> BindingPlan {
    BindingPlan {
        binding: 0,
        key: key.into(),
        name: key.into(),
        access,
        element_type: element_type.into(),
        resource,
        bytes: bytes.div_ceil(4) * 4,
        min_elements: None,
    }
}

pub fn input(index: usize, name: &str) -> Resource {
    Resource::Input {
        index,
        arg: name.into(),
        onnx: name.into(),
    }
}

pub fn output(index: usize, name: &str) -> Resource {
    Resource::Output {
        index,
        arg: name.into(),
        onnx: name.into(),
    }
}

pub fn scratch(index: usize, id: &str) -> Resource {
    Resource::Scratch {
        index,
        id: id.into(),
    }
}

/// A uniform binding `params` of u32 / f32 fields.
pub fn params(fields: &[(&str, &str, f64)]) -> BindingPlan {
    let mut bytes = Vec::new();
    let mut fs = Vec::new();
    for (name, ty, v) in fields {
        fs.push(UniformField {
            name: name.to_string(),
            ty: ty.to_string(),
            value: serde_json::json!(v),
            offset: bytes.len() as u32,
        });
        match *ty {
            "u32" => bytes.extend_from_slice(&(*v as u32).to_le_bytes()),
            "f32" => bytes.extend_from_slice(&(*v as f32).to_le_bytes()),
            other => panic!("field type {other}"),
        }
    }
    bytes.resize(bytes.len().div_ceil(16) * 16, 0);
    let n = bytes.len() as u64;
    BindingPlan {
        binding: 0,
        key: "params".into(),
        name: "params".into(),
        access: BufferKind::Uniform,
        element_type: "Params".into(),
        resource: Resource::Uniform { fields: fs, bytes },
        bytes: n,
        min_elements: None,
    }
}

/// A pass: numbers the bindings, prepends the generated declarations to `body`.
pub fn pass(
    id: &str,
    dispatch: [u32; 3],
    mut bindings: Vec<BindingPlan>,
    f16: bool,
    body: &str,
) -> PassPlan {
    for (i, b) in bindings.iter_mut().enumerate() {
        b.binding = i as u32;
    }
    let mut wgsl = if f16 {
        "enable f16;\n".to_string()
    } else {
        String::new()
    };
    wgsl.push_str(&binding_declarations(&bindings));
    wgsl.push_str(body);
    let wg = workgroup_size(&wgsl).unwrap_or([1, 1, 1]);
    PassPlan {
        id: id.into(),
        name: format!("test.{id}"),
        shader: format!("test-{id}.wgsl"),
        dispatch,
        skipped: dispatch.contains(&0),
        workgroup_size: wg,
        subgroups: false,
        bindings,
        context: serde_json::Map::new(),
        wgsl: wgsl.into(),
    }
}

/// A plan with the given passes, outputs (`(name, dtype, shape)`, all present) and
/// intermediates (`(id, dtype, shape)`).
pub fn plan(
    passes: Vec<PassPlan>,
    outputs: &[(&str, DType, Vec<usize>)],
    intermediates: &[(&str, DType, Vec<usize>)],
) -> Plan {
    Plan {
        variant: "test".into(),
        priority: 0,
        dtype: outputs.first().map(|o| o.1).unwrap_or(DType::F32),
        device: "test".into(),
        attrs: IndexMap::new(),
        tunables: IndexMap::new(),
        rows: 1,
        outputs: outputs
            .iter()
            .enumerate()
            .map(|(index, (name, dtype, shape))| OutputPlan {
                index,
                arg: name.to_string(),
                onnx: name.to_string(),
                present: true,
                dtype: *dtype,
                shape: shape.clone(),
            })
            .collect(),
        intermediates: intermediates
            .iter()
            .map(|(id, dtype, shape)| IntermediatePlan {
                id: id.to_string(),
                dtype: *dtype,
                shape: shape.clone(),
                bytes: (shape.iter().product::<usize>() * dtype.size()) as u64,
            })
            .collect(),
        passes,
        verdicts: Vec::new(),
    }
}

/// `y[i] = a[i] * factor + b[i]` over n f32 elements (`cond` restricts which i are written).
pub fn axpy_plan(n: usize, factor: f32, cond: &str) -> Plan {
    let bytes = (n * 4) as u64;
    let body = format!(
        "@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let i = gid.x;
    if (i < params.n && ({cond})) {{
        y[i] = a[i] * params.factor + b[i];
    }}
}}
"
    );
    let p = pass(
        "axpy",
        [n.div_ceil(64) as u32, 1, 1],
        vec![
            storage(
                "a",
                BufferKind::ReadOnlyStorage,
                "f32",
                input(0, "a"),
                bytes,
            ),
            storage(
                "b",
                BufferKind::ReadOnlyStorage,
                "f32",
                input(1, "b"),
                bytes,
            ),
            storage("y", BufferKind::Storage, "f32", output(0, "y"), bytes),
            params(&[("n", "u32", n as f64), ("factor", "f32", factor as f64)]),
        ],
        false,
        &body,
    );
    plan(vec![p], &[("y", DType::F32, vec![n])], &[])
}

/// What [`axpy_plan`] computes: `a * factor + b`, element by element.
pub fn axpy_ref(a: &Tensor, b: &Tensor, factor: f32) -> Vec<f32> {
    a.to_f32()
        .iter()
        .zip(b.to_f32())
        .map(|(a, b)| a * factor + b)
        .collect()
}
