//! Template rendering on arbitrary template text (what `--templates DIR` lets a user supply):
//! a template that does not parse, fails, or loops is an error within the render fuel, never a
//! panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("fuzz.wgsl.jinja"), text).unwrap();
    let Ok(t) = nbits_mlp_core::render::Templates::with_dir(dir.path()) else {
        return;
    };
    let mut ctx = serde_json::Map::new();
    for (k, v) in [
        ("K", 64),
        ("N", 16),
        ("blockSize", 32),
        ("bits", 4),
        ("workgroupSize", 64),
    ] {
        ctx.insert(k.into(), serde_json::json!(v));
    }
    ctx.insert("attrs".into(), serde_json::json!({"K": 64, "N": 16}));
    let _ = t.render(
        "fuzz.wgsl.jinja",
        &std::sync::Arc::new(ctx),
        &[],
        false,
        nbits_mlp_core::render::Target::Wgpu,
    );
});
