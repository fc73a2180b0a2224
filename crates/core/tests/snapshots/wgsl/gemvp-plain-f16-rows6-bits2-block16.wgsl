// snapshot gemvp-plain-f16-rows6-bits2-block16: variant gemvp_plain_gb_ub, float16 K 1000 N 300 rows 6 bits 2 block 16, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `main`: mlp-gemvp.wgsl.jinja, dispatch [2, 19, 1], workgroup size [256, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(3) var<storage, read> gate_bias: array<f16>;
@group(0) @binding(4) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read> up_scales: array<f16>;
@group(0) @binding(6) var<storage, read> up_bias: array<f16>;
@group(0) @binding(7) var<storage, read_write> y: array<f16>;
// ---- template ----
const K: u32 = 1000u;
const K8: u32 = 125u;              // 16-byte activation vectors (8 f16) per row
const N: u32 = 300u;
const ROWS: u32 = 6u;
const NT: u32 = 19u;      // prepared layout: stripes of 16 weight rows
const KC: u32 = 16u;  // tiles of 64 codes per stripe
const CW: u32 = 16u;                  // invocations along the columns
const NC: u32 = 16u;              // columns per workgroup (1 per invocation)
const S: u32 = 16u;
const WG: u32 = 256u;

// Per slice, row and matrix (gate, up): the workgroup's NC columns' f32 sums.
var<workgroup> red: array<f32, 1536>;

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let col = t % CW;
    let slice = t / CW;
    // 0x64006400 (1024 twice in half precision: `code_pair`'s exponent bits) as a value the
    // driver's compiler cannot fold (no workgroup id is 2^32 - 1, which it does not assume):
    // each code pair's mask and or then take one LOP3 (`v & imm | reg`) instead of two
    // (notes/PERF.md row 163).
    let magic = select(0x64006400u, 0u, wid.x == 0xFFFFFFFFu);
    // Column 0 of this invocation: 0 * CW further on.
    let n0 = wid.y * NC + col + 0u;
    let st0 = min(n0 / 16u, NT - 1u) * KC;
    let r0 = n0 % 16u;
    let ra0 = min(wid.x * 3u + 0u, ROWS - 1u) * K8;
    var fg0_0 = 0.0;
    var fu0_0 = 0.0;
    let ra1 = min(wid.x * 3u + 1u, ROWS - 1u) * K8;
    var fg1_0 = 0.0;
    var fu1_0 = 0.0;
    let ra2 = min(wid.x * 3u + 2u, ROWS - 1u) * K8;
    var fg2_0 = 0.0;
    var fu2_0 = 0.0;
    for (var c = slice; c < KC; c = c + S) {
        // This chunk's codes and scales of gate and up, for each column.
        let cg0_0 = gate_b[(st0 + c) * 16u + r0 * 1u + 0u];
        let sg0_0 = f32(gate_scales[(st0 + c) * 64u + r0 * 4u + 0u]);
        let sg0_1 = f32(gate_scales[(st0 + c) * 64u + r0 * 4u + 1u]);
        let sg0_2 = f32(gate_scales[(st0 + c) * 64u + r0 * 4u + 2u]);
        let sg0_3 = f32(gate_scales[(st0 + c) * 64u + r0 * 4u + 3u]);
        let cu0_0 = up_b[(st0 + c) * 16u + r0 * 1u + 0u];
        let su0_0 = f32(up_scales[(st0 + c) * 64u + r0 * 4u + 0u]);
        let su0_1 = f32(up_scales[(st0 + c) * 64u + r0 * 4u + 1u]);
        let su0_2 = f32(up_scales[(st0 + c) * 64u + r0 * 4u + 2u]);
        let su0_3 = f32(up_scales[(st0 + c) * 64u + r0 * 4u + 3u]);
        {
            // Codes 0 .. 15 of the chunk (one scale): f16 sums per row and column.
            var ag0_0 = vec2<f16>(0.0h);
            var au0_0 = vec2<f16>(0.0h);
            var ag1_0 = vec2<f16>(0.0h);
            var au1_0 = vec2<f16>(0.0h);
            var ag2_0 = vec2<f16>(0.0h);
            var au2_0 = vec2<f16>(0.0h);
            {
                // Codes 0 .. 7: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[0] & 196611u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1026.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_0[0] & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float((cg0_0[0] & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float((cg0_0[0] & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[0] & 196611u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1026.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_0[0] & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float((cu0_0[0] & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float((cu0_0[0] & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 0u < K) {
                        x = a[ra0 + c * 8u + 0u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 0u < K) {
                        x = a[ra1 + c * 8u + 0u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 0u < K) {
                        x = a[ra2 + c * 8u + 0u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
            }
            {
                // Codes 8 .. 15: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[0] & 50332416u) | magic)), vec2<f16>(0.00390625h), vec2<f16>(-6.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float(((cg0_0[0] >> 8u) & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_0[0] >> 8u) & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[0] >> 8u) & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[0] & 50332416u) | magic)), vec2<f16>(0.00390625h), vec2<f16>(-6.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float(((cu0_0[0] >> 8u) & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_0[0] >> 8u) & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[0] >> 8u) & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 8u < K) {
                        x = a[ra0 + c * 8u + 1u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 8u < K) {
                        x = a[ra1 + c * 8u + 1u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 8u < K) {
                        x = a[ra2 + c * 8u + 1u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
            }
            fg0_0 = fma(sg0_0, f32(ag0_0.x) + f32(ag0_0.y), fg0_0);
            fu0_0 = fma(su0_0, f32(au0_0.x) + f32(au0_0.y), fu0_0);
            fg1_0 = fma(sg0_0, f32(ag1_0.x) + f32(ag1_0.y), fg1_0);
            fu1_0 = fma(su0_0, f32(au1_0.x) + f32(au1_0.y), fu1_0);
            fg2_0 = fma(sg0_0, f32(ag2_0.x) + f32(ag2_0.y), fg2_0);
            fu2_0 = fma(su0_0, f32(au2_0.x) + f32(au2_0.y), fu2_0);
        }
        {
            // Codes 16 .. 31 of the chunk (one scale): f16 sums per row and column.
            var ag0_0 = vec2<f16>(0.0h);
            var au0_0 = vec2<f16>(0.0h);
            var ag1_0 = vec2<f16>(0.0h);
            var au1_0 = vec2<f16>(0.0h);
            var ag2_0 = vec2<f16>(0.0h);
            var au2_0 = vec2<f16>(0.0h);
            {
                // Codes 16 .. 23: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[1] & 196611u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1026.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_0[1] & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float((cg0_0[1] & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float((cg0_0[1] & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[1] & 196611u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1026.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_0[1] & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float((cu0_0[1] & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float((cu0_0[1] & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 16u < K) {
                        x = a[ra0 + c * 8u + 2u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 16u < K) {
                        x = a[ra1 + c * 8u + 2u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 16u < K) {
                        x = a[ra2 + c * 8u + 2u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
            }
            {
                // Codes 24 .. 31: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[1] & 50332416u) | magic)), vec2<f16>(0.00390625h), vec2<f16>(-6.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float(((cg0_0[1] >> 8u) & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_0[1] >> 8u) & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[1] >> 8u) & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[1] & 50332416u) | magic)), vec2<f16>(0.00390625h), vec2<f16>(-6.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float(((cu0_0[1] >> 8u) & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_0[1] >> 8u) & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[1] >> 8u) & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 24u < K) {
                        x = a[ra0 + c * 8u + 3u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 24u < K) {
                        x = a[ra1 + c * 8u + 3u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 24u < K) {
                        x = a[ra2 + c * 8u + 3u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
            }
            fg0_0 = fma(sg0_1, f32(ag0_0.x) + f32(ag0_0.y), fg0_0);
            fu0_0 = fma(su0_1, f32(au0_0.x) + f32(au0_0.y), fu0_0);
            fg1_0 = fma(sg0_1, f32(ag1_0.x) + f32(ag1_0.y), fg1_0);
            fu1_0 = fma(su0_1, f32(au1_0.x) + f32(au1_0.y), fu1_0);
            fg2_0 = fma(sg0_1, f32(ag2_0.x) + f32(ag2_0.y), fg2_0);
            fu2_0 = fma(su0_1, f32(au2_0.x) + f32(au2_0.y), fu2_0);
        }
        {
            // Codes 32 .. 47 of the chunk (one scale): f16 sums per row and column.
            var ag0_0 = vec2<f16>(0.0h);
            var au0_0 = vec2<f16>(0.0h);
            var ag1_0 = vec2<f16>(0.0h);
            var au1_0 = vec2<f16>(0.0h);
            var ag2_0 = vec2<f16>(0.0h);
            var au2_0 = vec2<f16>(0.0h);
            {
                // Codes 32 .. 39: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[2] & 196611u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1026.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_0[2] & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float((cg0_0[2] & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float((cg0_0[2] & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[2] & 196611u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1026.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_0[2] & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float((cu0_0[2] & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float((cu0_0[2] & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 32u < K) {
                        x = a[ra0 + c * 8u + 4u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 32u < K) {
                        x = a[ra1 + c * 8u + 4u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 32u < K) {
                        x = a[ra2 + c * 8u + 4u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
            }
            {
                // Codes 40 .. 47: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[2] & 50332416u) | magic)), vec2<f16>(0.00390625h), vec2<f16>(-6.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float(((cg0_0[2] >> 8u) & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_0[2] >> 8u) & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[2] >> 8u) & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[2] & 50332416u) | magic)), vec2<f16>(0.00390625h), vec2<f16>(-6.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float(((cu0_0[2] >> 8u) & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_0[2] >> 8u) & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[2] >> 8u) & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 40u < K) {
                        x = a[ra0 + c * 8u + 5u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 40u < K) {
                        x = a[ra1 + c * 8u + 5u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 40u < K) {
                        x = a[ra2 + c * 8u + 5u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
            }
            fg0_0 = fma(sg0_2, f32(ag0_0.x) + f32(ag0_0.y), fg0_0);
            fu0_0 = fma(su0_2, f32(au0_0.x) + f32(au0_0.y), fu0_0);
            fg1_0 = fma(sg0_2, f32(ag1_0.x) + f32(ag1_0.y), fg1_0);
            fu1_0 = fma(su0_2, f32(au1_0.x) + f32(au1_0.y), fu1_0);
            fg2_0 = fma(sg0_2, f32(ag2_0.x) + f32(ag2_0.y), fg2_0);
            fu2_0 = fma(su0_2, f32(au2_0.x) + f32(au2_0.y), fu2_0);
        }
        {
            // Codes 48 .. 63 of the chunk (one scale): f16 sums per row and column.
            var ag0_0 = vec2<f16>(0.0h);
            var au0_0 = vec2<f16>(0.0h);
            var ag1_0 = vec2<f16>(0.0h);
            var au1_0 = vec2<f16>(0.0h);
            var ag2_0 = vec2<f16>(0.0h);
            var au2_0 = vec2<f16>(0.0h);
            {
                // Codes 48 .. 55: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[3] & 196611u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1026.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_0[3] & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float((cg0_0[3] & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float((cg0_0[3] & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[3] & 196611u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1026.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_0[3] & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float((cu0_0[3] & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float((cu0_0[3] & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 48u < K) {
                        x = a[ra0 + c * 8u + 6u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 48u < K) {
                        x = a[ra1 + c * 8u + 6u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 48u < K) {
                        x = a[ra2 + c * 8u + 6u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
            }
            {
                // Codes 56 .. 63: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[3] & 50332416u) | magic)), vec2<f16>(0.00390625h), vec2<f16>(-6.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float(((cg0_0[3] >> 8u) & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_0[3] >> 8u) & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[3] >> 8u) & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[3] & 50332416u) | magic)), vec2<f16>(0.00390625h), vec2<f16>(-6.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float(((cu0_0[3] >> 8u) & 786444u) | magic)), vec2<f16>(0.25h), vec2<f16>(-258.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_0[3] >> 8u) & 3145776u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-66.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[3] >> 8u) & 12583104u) | magic)), vec2<f16>(0.015625h), vec2<f16>(-18.0h));
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 56u < K) {
                        x = a[ra0 + c * 8u + 7u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 56u < K) {
                        x = a[ra1 + c * 8u + 7u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    var x = vec4<u32>(0u);
                    if (c * 64u + 56u < K) {
                        x = a[ra2 + c * 8u + 7u];
                    }
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
            }
            fg0_0 = fma(sg0_3, f32(ag0_0.x) + f32(ag0_0.y), fg0_0);
            fu0_0 = fma(su0_3, f32(au0_0.x) + f32(au0_0.y), fu0_0);
            fg1_0 = fma(sg0_3, f32(ag1_0.x) + f32(ag1_0.y), fg1_0);
            fu1_0 = fma(su0_3, f32(au1_0.x) + f32(au1_0.y), fu1_0);
            fg2_0 = fma(sg0_3, f32(ag2_0.x) + f32(ag2_0.y), fg2_0);
            fu2_0 = fma(su0_3, f32(au2_0.x) + f32(au2_0.y), fu2_0);
        }
    }

    // Sum the slices: red[((slice * RG + r) * 2 + m) * NC + column of the workgroup].
    red[(slice * 6u + 0u) * NC + col + 0u] = fg0_0;
    red[(slice * 6u + 1u) * NC + col + 0u] = fu0_0;
    red[(slice * 6u + 2u) * NC + col + 0u] = fg1_0;
    red[(slice * 6u + 3u) * NC + col + 0u] = fu1_0;
    red[(slice * 6u + 4u) * NC + col + 0u] = fg2_0;
    red[(slice * 6u + 5u) * NC + col + 0u] = fu2_0;
    workgroupBarrier();
    for (var o = t; o < 3u * NC; o = o + WG) {
        let r = o / NC;
        let oc = o % NC;
        var gs = 0.0;
        var us = 0.0;
        for (var s = 0u; s < S; s = s + 1u) {
            gs = gs + red[(s * 6u + 2u * r) * NC + oc];
            us = us + red[(s * 6u + 2u * r + 1u) * NC + oc];
        }
        let on = wid.y * NC + oc;
        let row = wid.x * 3u + r;
        if (on < N && row < ROWS) {
            gs = gs + f32(gate_bias[on]);
            us = us + f32(up_bias[on]);
            y[row * N + on] = f16(silu_mul(gs, us));
        }
    }
}