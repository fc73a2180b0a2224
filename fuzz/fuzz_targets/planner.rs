//! The planner over arbitrary calls: attributes (any kind and value), input shapes and dtypes
//! (including absent and mis-ranked ones), requested outputs, tunable overrides and device
//! limits. Planning either fails with an error or yields a plan, never a panic; and every plan it
//! yields is one the GPU could run: each pass's WGSL parses and validates with naga, and its
//! workgroup fits the device's limits.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use nbits_mlp_core::{AttrValue, DType, DeviceProfile, OpCall, Planner, TensorInfo, Tunables};
use std::sync::OnceLock;

#[derive(Arbitrary, Debug)]
enum Attr {
    Int(i64),
    Small(u16),
    Float(f64),
    Str(String),
    Absent,
}

#[derive(Arbitrary, Debug)]
struct Input {
    present: bool,
    dtype: u8,
    shape: Vec<u16>,
}

#[derive(Arbitrary, Debug)]
struct Call {
    k: Attr,
    n: Attr,
    bits: Attr,
    block: Attr,
    epsilon: Attr,
    extra: Option<(String, Attr)>,
    inputs: Vec<Input>,
    outputs: Vec<bool>,
    tunables: Vec<(u8, i64)>,
    profile: u8,
    limits: Vec<(u8, u32)>,
}

fn attr(a: &Attr) -> Option<AttrValue> {
    match a {
        Attr::Int(v) => Some(AttrValue::Int(*v)),
        Attr::Small(v) => Some(AttrValue::Int(*v as i64)),
        Attr::Float(v) => Some(AttrValue::Float(*v)),
        Attr::Str(s) => Some(AttrValue::Str(s.clone())),
        Attr::Absent => None,
    }
}

fn validate(wgsl: &str) {
    if let Err(e) = nbits_mlp_core::render::validate_wgsl(wgsl) {
        panic!("a plan's WGSL does not validate:\n{e}");
    }
}

fuzz_target!(|c: Call| {
    static MANIFEST: OnceLock<nbits_mlp_core::Manifest> = OnceLock::new();
    let m = MANIFEST.get_or_init(nbits_mlp_core::Manifest::project);
    let mut dev = match c.profile % 3 {
        0 => DeviceProfile::discrete_gpu(),
        1 => DeviceProfile::webgpu_default(),
        _ => DeviceProfile::discrete_gpu().without_feature("subgroups"),
    };
    let names: Vec<&str> = nbits_mlp_core::device::WEBGPU_DEFAULT_LIMITS
        .iter()
        .map(|(k, _)| *k)
        .collect();
    for (i, v) in &c.limits {
        let name = names[*i as usize % names.len()];
        let floor = dev.limit(name).unwrap_or(0);
        // Only raise limits: profiles below WebGPU's minimums are refused when loaded.
        dev.limits.insert(name.to_string(), floor.max(*v as u64));
    }
    let mut call = OpCall::default();
    for (name, a) in [
        ("K", &c.k),
        ("N", &c.n),
        ("bits", &c.bits),
        ("block_size", &c.block),
        ("epsilon", &c.epsilon),
    ] {
        if let Some(v) = attr(a) {
            call.attrs.insert(name.into(), v);
        }
    }
    call.attrs
        .insert("activation".into(), AttrValue::Str("silu".into()));
    if let Some((k, a)) = &c.extra {
        if let Some(v) = attr(a) {
            call.attrs.insert(k.clone(), v);
        }
    }
    for inp in c.inputs.iter().take(10) {
        call.inputs.push(inp.present.then(|| {
            let dtype = [DType::F32, DType::F16, DType::U8][inp.dtype as usize % 3];
            TensorInfo::new(
                dtype,
                inp.shape.iter().take(4).map(|d| *d as usize).collect(),
            )
        }));
    }
    call.outputs = c.outputs.iter().take(3).copied().collect();
    let tunable_names: Vec<&String> = m.file.tunables.keys().collect();
    let tunables: Tunables = c
        .tunables
        .iter()
        .take(4)
        .map(|(i, v)| (tunable_names[*i as usize % tunable_names.len()].clone(), *v))
        .collect();
    let planner = Planner::new(
        std::sync::Arc::new(m.clone()),
        std::sync::Arc::new(nbits_mlp_core::render::Templates::builtin()),
        dev.clone(),
    );
    if let Ok(plan) = planner.plan(&call, &tunables) {
        for p in &plan.passes {
            validate(&p.wgsl);
            let size: u64 = p.workgroup_size.iter().map(|x| *x as u64).product();
            assert!(
                size <= dev.limit("maxComputeInvocationsPerWorkgroup").unwrap(),
                "{}",
                p.id
            );
        }
    }
});
