//! Plans the Llama-3.1-8B decode call, prints the plan and one shader, times cold and cached
//! planning and shows two error messages: `cargo run --release -p nbits-mlp-core --example smoke`.
use nbits_mlp_core::*;
use std::collections::BTreeMap;
fn main() {
    let m = Manifest::project();
    m.check(&nbits_mlp_core::render::Templates::builtin().names())
        .unwrap();
    let p = Planner::project(DeviceProfile::discrete_gpu());
    let (k, n, bs, bits) = (4096usize, 14336usize, 32usize, 4usize);
    let kb = k.div_ceil(bs);
    let blob = bs * bits / 8;
    let mut call = OpCall::default();
    call.attrs.insert("K".into(), AttrValue::Int(k as i64));
    call.attrs.insert("N".into(), AttrValue::Int(n as i64));
    call.attrs
        .insert("block_size".into(), AttrValue::Int(bs as i64));
    call.attrs
        .insert("activation".into(), AttrValue::Str("silu".into()));
    let f = DType::F16;
    call.inputs = vec![
        Some(TensorInfo::new(f, vec![1, k])),
        Some(TensorInfo::new(f, vec![1, k])),
        Some(TensorInfo::new(f, vec![k])),
        Some(TensorInfo::new(DType::U8, vec![n, kb, blob])),
        Some(TensorInfo::new(f, vec![n, kb])),
        None,
        Some(TensorInfo::new(DType::U8, vec![n, kb, blob])),
        Some(TensorInfo::new(f, vec![n, kb])),
    ];
    call.outputs = vec![true, true];
    let t = BTreeMap::new();
    let plan = p.plan(&call, &t).unwrap();
    let mut j = serde_json::to_value(&*plan).unwrap();
    for pass in j["passes"].as_array_mut().unwrap() {
        pass.as_object_mut().unwrap().remove("context");
    }
    println!("{}", serde_json::to_string_pretty(&j).unwrap());
    println!("{}", plan.passes[1].wgsl);
    let t0 = std::time::Instant::now();
    for _ in 0..1000 {
        let _ = p.plan_uncached(&call, &t).unwrap();
    }
    println!("cold {:?}", t0.elapsed() / 1000);
    let tm = nbits_mlp_core::render::Templates::builtin();
    for pi in 0..2 {
        let ctx = std::sync::Arc::new(plan.passes[pi].context.clone());
        let t0 = std::time::Instant::now();
        for _ in 0..1000 {
            let _ = tm
                .render(
                    &plan.passes[pi].shader,
                    &ctx,
                    &plan.passes[pi].bindings,
                    false,
                    nbits_mlp_core::render::Target::Wgpu,
                )
                .unwrap();
        }
        println!(
            "render{pi} {:?} {} bytes",
            t0.elapsed() / 1000,
            plan.passes[pi].wgsl.len()
        );
        let t0 = std::time::Instant::now();
        for _ in 0..1000 {
            let _ = minijinja::Value::from_serialize(&plan.passes[pi].context);
        }
        println!("ctxconv{pi} {:?}", t0.elapsed() / 1000);
    }
    let t0 = std::time::Instant::now();
    for _ in 0..1000 {
        let _ = p.explain(&call, &t).unwrap();
    }
    println!("explain {:?}", t0.elapsed() / 1000);
    let t0 = std::time::Instant::now();
    for _ in 0..100000 {
        let _ = p.plan(&call, &t).unwrap();
    }
    println!("cached {:?}", t0.elapsed() / 100000);
    call.inputs[2] = None;
    println!("{}", p.plan(&call, &t).unwrap_err());
    call.inputs[2] = Some(TensorInfo::new(f, vec![k]));
    call.inputs[3] = Some(TensorInfo::new(DType::U8, vec![n, kb, blob - 1]));
    println!("{}", p.plan(&call, &t).unwrap_err());
    let mut c2 = call.clone();
    c2.inputs[3] = Some(TensorInfo::new(DType::U8, vec![n, kb, blob]));
    let tt: BTreeMap<String, i64> = [("TILE_N".to_string(), 0)].into_iter().collect();
    c2.inputs[0] = Some(TensorInfo::new(f, vec![3, k]));
    c2.inputs[1] = Some(TensorInfo::new(f, vec![3, k]));
    println!("{}", p.plan(&c2, &tt).unwrap_err());
}
