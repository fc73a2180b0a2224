//! The index proof (`nbits_mlp_core::bounds`): accesses it must prove, accesses it must refuse.

use nbits_mlp_core::bounds::prove_wgsl;

/// A compute shader of 64 invocations with a workgroup array `half` of 32 floats, `full` of 64
/// and a storage buffer `buf`, around `body`.
fn shader(body: &str) -> String {
    format!(
        "var<workgroup> half: array<f32, 32>;\n\
         var<workgroup> full: array<f32, 64>;\n\
         @group(0) @binding(0) var<storage, read_write> buf: array<f32>;\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {{\n{body}\n}}\n"
    )
}

fn proven(body: &str) {
    let w = shader(body);
    prove_wgsl(&w).unwrap_or_else(|e| panic!("not proven: {e}\n{w}"));
}

fn refused(body: &str, expect: &str) {
    let w = shader(body);
    let e = prove_wgsl(&w).expect_err(&format!("proven, but may be out of range:\n{w}"));
    assert!(e.contains(expect), "{e} does not mention {expect}");
}

#[test]
fn invocation_index_arithmetic() {
    proven(
        "full[t] = 1.0; half[t % 32u] = 1.0; half[t / 2u] = 1.0; half[(t >> 2u) * 2u + 1u] = 1.0;",
    );
    proven("half[min(t, 31u)] = 1.0; half[t & 31u] = 1.0; full[select(t, 0u, t > 3u)] = 1.0;");
    refused("full[t + 1u] = 1.0;", "`full` (length 64) may take 1..=64");
    refused("half[t] = 1.0;", "`half`");
    refused("half[t % 33u] = 1.0;", "`half`");
    // u32 subtraction may wrap.
    refused("half[t - 1u] = 1.0;", "`half`");
    // Workgroup ids are bounded only by the dispatch limit.
    refused("full[wid.x] = 1.0;", "`full`");
}

#[test]
fn conditions_bound_their_operands() {
    proven("if (t < 32u) { half[t] = 1.0; }");
    // naga lowers `&&` and `||` to a variable set by an `if`; the proof follows it.
    proven("if (t < 32u && wid.x == 0u) { half[t] = 1.0; }");
    proven("if (wid.x == 0u && t < 32u && wid.y == 1u) { half[t] = 1.0; }");
    proven("if (wid.x == 0u || t >= 32u) { return; } half[t] = 1.0;");
    proven("if (t >= 32u) { return; } half[t] = 1.0;");
    proven("if (!(t >= 32u)) { half[t] = 1.0; }");
    proven("if (t >= 32u || wid.x > 2u) { } else { half[t] = 1.0; }");
    refused("if (t <= 32u) { half[t] = 1.0; }", "`half`");
    refused("if (t < 32u || wid.x == 0u) { half[t] = 1.0; }", "`half`");
    refused("if (t >= 32u) { half[0] = 1.0; } half[t] = 1.0;", "`half`");
}

#[test]
fn loops_and_variables() {
    proven("for (var i = 0u; i < 32u; i = i + 1u) { half[i] = 1.0; }");
    proven("for (var r = t; r < 32u; r = r + 64u) { half[r] = 1.0; }");
    proven("var v = t % 32u; half[v] = 1.0;");
    refused(
        "for (var i = 0u; i <= 32u; i = i + 1u) { half[i] = 1.0; }",
        "`half`",
    );
    // A store in the body: the guard no longer holds.
    refused(
        "for (var i = 0u; i < 32u; i = i + 1u) { i = i + 40u; half[i] = 1.0; }",
        "`half`",
    );
    // A value loaded before the variable changed is not what a later test of it bounds.
    refused(
        "var v = t; let x = v; v = 5u; if (v < 10u) { half[x] = 1.0; }",
        "`half`",
    );
    // A store inside a branch makes the value unknown after it.
    refused(
        "var v = t % 32u; if (wid.x == 1u) { v = t; } half[v] = 1.0;",
        "`half`",
    );
}

#[test]
fn vectors_and_storage() {
    proven("let v = vec4<f32>(1.0); half[0] = v[t % 4u];");
    refused(
        "let v = vec4<f32>(1.0); half[0] = v[t % 5u];",
        "index into a value (length 4)",
    );
    // Storage buffers are bounded by the driver (robust buffer access), not by the proof.
    proven("buf[t + 100000u] = 1.0;");
}

#[test]
fn cooperative_matrix_extents() {
    let w = |offset: u32, stride: u32| {
        format!(
            "enable f16;\nenable wgpu_cooperative_matrix;\n\
             var<workgroup> s: array<vec4<f16>, 64>;\n\
             @group(0) @binding(0) var<storage, read_write> buf: array<f32>;\n\
             @compute @workgroup_size(32)\n\
             fn main(@builtin(local_invocation_index) t: u32) {{\n\
               let m = coopLoad<coop_mat16x16<f16, A>>(&s[{offset}u], {stride}u);\n\
               coopStore(m, &s[{offset}u], {stride}u);\n\
             }}\n"
        )
    };
    // 16 rows of 16 halves (4 vec4) 4 elements apart: elements offset ..= offset + 63.
    prove_wgsl(&w(0, 4)).unwrap();
    let e = prove_wgsl(&w(1, 4)).unwrap_err();
    assert!(e.contains("may reach element 64"), "{e}");
    let e = prove_wgsl(&w(0, 5)).unwrap_err();
    assert!(e.contains("`s`"), "{e}");
}
