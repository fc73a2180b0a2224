// snapshot gemvp-skipsum-f32-rows5-bits8-block64: variant gemvp_f32_skipsum_gb_ub, float32 K 1000 N 300 rows 5 bits 8 block 64, discrete-gpu (shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `norm`: matmul-nbits-fused-rms-norm.wgsl.jinja, dispatch [5, 1, 1], workgroup size [1024, 1, 1] ====
// ---- bindings generated from the manifest ----
struct Params {
    rows: u32,
};
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> skip: array<f32>;
@group(0) @binding(2) var<storage, read> norm_scale: array<f32>;
@group(0) @binding(3) var<storage, read_write> normed: array<f32>;
@group(0) @binding(4) var<storage, read_write> residual: array<f32>;
@group(0) @binding(5) var<uniform> params: Params;
// ---- template ----
const K: u32 = 1000u;
const WG: u32 = 1024u;
const EPS: f32 = f32(0.00001);
// Two-level reduction: WG partial sums, then 32 sums of 32 (strided: thread g adds
// partial[g], partial[g + NG], ...), then every thread adds the 32: two barriers.
const NG: u32 = 32u;

var<workgroup> partial: array<f32, 1024>;
var<workgroup> partial2: array<f32, 32>;

fn load_s(i: u32) -> f32 {
    var s = f32(a[i]);
    s = s + f32(skip[i]);
    return s;
}

@compute @workgroup_size(1024)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let row = wid.y * 65535u + wid.x;
    if (row >= params.rows) {
        return;
    }
    let base = row * K;
    var ss = 0.0;
    // This thread's 1 values of S, held in registers between the two walks.
    var s0 = 0.0;
    if (t + 0u < K) {
        s0 = load_s(base + t + 0u);
        residual[base + t + 0u] = f32(s0);
    }
    ss = ss + s0 * s0;
    partial[t] = ss;
    workgroupBarrier();
    if (t < NG) {
        var p = 0.0;
        for (var i = t; i < WG; i = i + NG) {
            p = p + partial[i];
        }
        partial2[t] = p;
    }
    workgroupBarrier();
    var tot = 0.0;
    for (var i = 0u; i < NG; i = i + 1u) {
        tot = tot + partial2[i];
    }
    let inv = inverseSqrt(tot / f32(K) + EPS);
    if (t + 0u < K) {
        let k = t + 0u;
        normed[base + k] = s0 * inv * f32(norm_scale[k]);
    }
}
// ==== pass `main`: mlp-gemvp.wgsl.jinja, dispatch [1, 19, 1], workgroup size [256, 1, 1] ====
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> normed: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f32>;
@group(0) @binding(3) var<storage, read> gate_bias: array<f32>;
@group(0) @binding(4) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read> up_scales: array<f32>;
@group(0) @binding(6) var<storage, read> up_bias: array<f32>;
@group(0) @binding(7) var<storage, read_write> y: array<f32>;
// ---- template ----
const K: u32 = 1000u;
const K4: u32 = 250u;              // 16-byte activation vectors (4 f32) per row
const N: u32 = 300u;
const ROWS: u32 = 5u;
const NT: u32 = 19u;      // prepared layout: stripes of 16 weight rows
const KC: u32 = 16u;  // tiles of 64 codes per stripe
const CW: u32 = 16u;                  // invocations along the columns
const NC: u32 = 16u;              // columns per workgroup (1 per invocation)
const S: u32 = 16u;
const WG: u32 = 256u;

// Per slice, row and matrix (gate, up): the workgroup's NC columns' f32 sums.
var<workgroup> red: array<f32, 2560>;

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
    let ra0 = min(wid.x * 5u + 0u, ROWS - 1u) * K4;
    var fg0_0 = 0.0;
    var fu0_0 = 0.0;
    let ra1 = min(wid.x * 5u + 1u, ROWS - 1u) * K4;
    var fg1_0 = 0.0;
    var fu1_0 = 0.0;
    let ra2 = min(wid.x * 5u + 2u, ROWS - 1u) * K4;
    var fg2_0 = 0.0;
    var fu2_0 = 0.0;
    let ra3 = min(wid.x * 5u + 3u, ROWS - 1u) * K4;
    var fg3_0 = 0.0;
    var fu3_0 = 0.0;
    let ra4 = min(wid.x * 5u + 4u, ROWS - 1u) * K4;
    var fg4_0 = 0.0;
    var fu4_0 = 0.0;
    for (var c = slice; c < KC; c = c + S) {
        // This chunk's codes and scales of gate and up, for each column.
        let cg0_0 = gate_b[(st0 + c) * 64u + r0 * 4u + 0u];
        let cg0_1 = gate_b[(st0 + c) * 64u + r0 * 4u + 1u];
        let cg0_2 = gate_b[(st0 + c) * 64u + r0 * 4u + 2u];
        let cg0_3 = gate_b[(st0 + c) * 64u + r0 * 4u + 3u];
        let sg0_0 = f32(gate_scales[(st0 + c) * 16u + r0 * 1u + 0u]);
        let cu0_0 = up_b[(st0 + c) * 64u + r0 * 4u + 0u];
        let cu0_1 = up_b[(st0 + c) * 64u + r0 * 4u + 1u];
        let cu0_2 = up_b[(st0 + c) * 64u + r0 * 4u + 2u];
        let cu0_3 = up_b[(st0 + c) * 64u + r0 * 4u + 3u];
        let su0_0 = f32(up_scales[(st0 + c) * 16u + r0 * 1u + 0u]);
        {
            // Codes 0 .. 31 of the chunk (one scale, folded into each weight): into the f32 totals.
            {
                // Codes 0 .. 7: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_0[0] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_1 = fma(unpack2x16float(((cg0_0[0] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_2 = fma(unpack2x16float((cg0_0[1] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_3 = fma(unpack2x16float(((cg0_0[1] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let du0_0 = fma(unpack2x16float((cu0_0[0] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_1 = fma(unpack2x16float(((cu0_0[0] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_2 = fma(unpack2x16float((cu0_0[1] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_3 = fma(unpack2x16float(((cu0_0[1] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 0u < K) {
                        xl = normed[ra0 + c * 16u + 0u];
                        xh = normed[ra0 + c * 16u + 1u];
                    }
                    let x0 = xl.xy;
                    fg0_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg0_0));
                    fu0_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu0_0));
                    let x1 = xl.zw;
                    fg0_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg0_0));
                    fu0_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu0_0));
                    let x2 = xh.xy;
                    fg0_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg0_0));
                    fu0_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu0_0));
                    let x3 = xh.zw;
                    fg0_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg0_0));
                    fu0_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu0_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 0u < K) {
                        xl = normed[ra1 + c * 16u + 0u];
                        xh = normed[ra1 + c * 16u + 1u];
                    }
                    let x0 = xl.xy;
                    fg1_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg1_0));
                    fu1_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu1_0));
                    let x1 = xl.zw;
                    fg1_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg1_0));
                    fu1_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu1_0));
                    let x2 = xh.xy;
                    fg1_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg1_0));
                    fu1_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu1_0));
                    let x3 = xh.zw;
                    fg1_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg1_0));
                    fu1_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu1_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 0u < K) {
                        xl = normed[ra2 + c * 16u + 0u];
                        xh = normed[ra2 + c * 16u + 1u];
                    }
                    let x0 = xl.xy;
                    fg2_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg2_0));
                    fu2_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu2_0));
                    let x1 = xl.zw;
                    fg2_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg2_0));
                    fu2_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu2_0));
                    let x2 = xh.xy;
                    fg2_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg2_0));
                    fu2_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu2_0));
                    let x3 = xh.zw;
                    fg2_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg2_0));
                    fu2_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu2_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 0u < K) {
                        xl = normed[ra3 + c * 16u + 0u];
                        xh = normed[ra3 + c * 16u + 1u];
                    }
                    let x0 = xl.xy;
                    fg3_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg3_0));
                    fu3_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu3_0));
                    let x1 = xl.zw;
                    fg3_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg3_0));
                    fu3_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu3_0));
                    let x2 = xh.xy;
                    fg3_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg3_0));
                    fu3_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu3_0));
                    let x3 = xh.zw;
                    fg3_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg3_0));
                    fu3_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu3_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 0u < K) {
                        xl = normed[ra4 + c * 16u + 0u];
                        xh = normed[ra4 + c * 16u + 1u];
                    }
                    let x0 = xl.xy;
                    fg4_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg4_0));
                    fu4_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu4_0));
                    let x1 = xl.zw;
                    fg4_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg4_0));
                    fu4_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu4_0));
                    let x2 = xh.xy;
                    fg4_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg4_0));
                    fu4_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu4_0));
                    let x3 = xh.zw;
                    fg4_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg4_0));
                    fu4_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu4_0));
                }
            }
            {
                // Codes 8 .. 15: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_0[2] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_1 = fma(unpack2x16float(((cg0_0[2] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_2 = fma(unpack2x16float((cg0_0[3] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_3 = fma(unpack2x16float(((cg0_0[3] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let du0_0 = fma(unpack2x16float((cu0_0[2] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_1 = fma(unpack2x16float(((cu0_0[2] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_2 = fma(unpack2x16float((cu0_0[3] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_3 = fma(unpack2x16float(((cu0_0[3] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 8u < K) {
                        xl = normed[ra0 + c * 16u + 2u];
                        xh = normed[ra0 + c * 16u + 3u];
                    }
                    let x0 = xl.xy;
                    fg0_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg0_0));
                    fu0_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu0_0));
                    let x1 = xl.zw;
                    fg0_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg0_0));
                    fu0_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu0_0));
                    let x2 = xh.xy;
                    fg0_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg0_0));
                    fu0_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu0_0));
                    let x3 = xh.zw;
                    fg0_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg0_0));
                    fu0_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu0_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 8u < K) {
                        xl = normed[ra1 + c * 16u + 2u];
                        xh = normed[ra1 + c * 16u + 3u];
                    }
                    let x0 = xl.xy;
                    fg1_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg1_0));
                    fu1_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu1_0));
                    let x1 = xl.zw;
                    fg1_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg1_0));
                    fu1_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu1_0));
                    let x2 = xh.xy;
                    fg1_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg1_0));
                    fu1_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu1_0));
                    let x3 = xh.zw;
                    fg1_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg1_0));
                    fu1_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu1_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 8u < K) {
                        xl = normed[ra2 + c * 16u + 2u];
                        xh = normed[ra2 + c * 16u + 3u];
                    }
                    let x0 = xl.xy;
                    fg2_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg2_0));
                    fu2_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu2_0));
                    let x1 = xl.zw;
                    fg2_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg2_0));
                    fu2_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu2_0));
                    let x2 = xh.xy;
                    fg2_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg2_0));
                    fu2_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu2_0));
                    let x3 = xh.zw;
                    fg2_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg2_0));
                    fu2_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu2_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 8u < K) {
                        xl = normed[ra3 + c * 16u + 2u];
                        xh = normed[ra3 + c * 16u + 3u];
                    }
                    let x0 = xl.xy;
                    fg3_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg3_0));
                    fu3_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu3_0));
                    let x1 = xl.zw;
                    fg3_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg3_0));
                    fu3_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu3_0));
                    let x2 = xh.xy;
                    fg3_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg3_0));
                    fu3_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu3_0));
                    let x3 = xh.zw;
                    fg3_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg3_0));
                    fu3_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu3_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 8u < K) {
                        xl = normed[ra4 + c * 16u + 2u];
                        xh = normed[ra4 + c * 16u + 3u];
                    }
                    let x0 = xl.xy;
                    fg4_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg4_0));
                    fu4_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu4_0));
                    let x1 = xl.zw;
                    fg4_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg4_0));
                    fu4_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu4_0));
                    let x2 = xh.xy;
                    fg4_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg4_0));
                    fu4_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu4_0));
                    let x3 = xh.zw;
                    fg4_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg4_0));
                    fu4_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu4_0));
                }
            }
            {
                // Codes 16 .. 23: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_1[0] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_1 = fma(unpack2x16float(((cg0_1[0] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_2 = fma(unpack2x16float((cg0_1[1] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_3 = fma(unpack2x16float(((cg0_1[1] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let du0_0 = fma(unpack2x16float((cu0_1[0] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_1 = fma(unpack2x16float(((cu0_1[0] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_2 = fma(unpack2x16float((cu0_1[1] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_3 = fma(unpack2x16float(((cu0_1[1] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 16u < K) {
                        xl = normed[ra0 + c * 16u + 4u];
                        xh = normed[ra0 + c * 16u + 5u];
                    }
                    let x0 = xl.xy;
                    fg0_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg0_0));
                    fu0_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu0_0));
                    let x1 = xl.zw;
                    fg0_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg0_0));
                    fu0_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu0_0));
                    let x2 = xh.xy;
                    fg0_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg0_0));
                    fu0_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu0_0));
                    let x3 = xh.zw;
                    fg0_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg0_0));
                    fu0_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu0_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 16u < K) {
                        xl = normed[ra1 + c * 16u + 4u];
                        xh = normed[ra1 + c * 16u + 5u];
                    }
                    let x0 = xl.xy;
                    fg1_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg1_0));
                    fu1_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu1_0));
                    let x1 = xl.zw;
                    fg1_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg1_0));
                    fu1_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu1_0));
                    let x2 = xh.xy;
                    fg1_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg1_0));
                    fu1_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu1_0));
                    let x3 = xh.zw;
                    fg1_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg1_0));
                    fu1_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu1_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 16u < K) {
                        xl = normed[ra2 + c * 16u + 4u];
                        xh = normed[ra2 + c * 16u + 5u];
                    }
                    let x0 = xl.xy;
                    fg2_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg2_0));
                    fu2_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu2_0));
                    let x1 = xl.zw;
                    fg2_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg2_0));
                    fu2_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu2_0));
                    let x2 = xh.xy;
                    fg2_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg2_0));
                    fu2_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu2_0));
                    let x3 = xh.zw;
                    fg2_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg2_0));
                    fu2_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu2_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 16u < K) {
                        xl = normed[ra3 + c * 16u + 4u];
                        xh = normed[ra3 + c * 16u + 5u];
                    }
                    let x0 = xl.xy;
                    fg3_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg3_0));
                    fu3_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu3_0));
                    let x1 = xl.zw;
                    fg3_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg3_0));
                    fu3_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu3_0));
                    let x2 = xh.xy;
                    fg3_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg3_0));
                    fu3_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu3_0));
                    let x3 = xh.zw;
                    fg3_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg3_0));
                    fu3_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu3_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 16u < K) {
                        xl = normed[ra4 + c * 16u + 4u];
                        xh = normed[ra4 + c * 16u + 5u];
                    }
                    let x0 = xl.xy;
                    fg4_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg4_0));
                    fu4_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu4_0));
                    let x1 = xl.zw;
                    fg4_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg4_0));
                    fu4_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu4_0));
                    let x2 = xh.xy;
                    fg4_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg4_0));
                    fu4_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu4_0));
                    let x3 = xh.zw;
                    fg4_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg4_0));
                    fu4_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu4_0));
                }
            }
            {
                // Codes 24 .. 31: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_1[2] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_1 = fma(unpack2x16float(((cg0_1[2] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_2 = fma(unpack2x16float((cg0_1[3] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_3 = fma(unpack2x16float(((cg0_1[3] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let du0_0 = fma(unpack2x16float((cu0_1[2] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_1 = fma(unpack2x16float(((cu0_1[2] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_2 = fma(unpack2x16float((cu0_1[3] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_3 = fma(unpack2x16float(((cu0_1[3] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 24u < K) {
                        xl = normed[ra0 + c * 16u + 6u];
                        xh = normed[ra0 + c * 16u + 7u];
                    }
                    let x0 = xl.xy;
                    fg0_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg0_0));
                    fu0_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu0_0));
                    let x1 = xl.zw;
                    fg0_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg0_0));
                    fu0_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu0_0));
                    let x2 = xh.xy;
                    fg0_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg0_0));
                    fu0_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu0_0));
                    let x3 = xh.zw;
                    fg0_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg0_0));
                    fu0_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu0_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 24u < K) {
                        xl = normed[ra1 + c * 16u + 6u];
                        xh = normed[ra1 + c * 16u + 7u];
                    }
                    let x0 = xl.xy;
                    fg1_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg1_0));
                    fu1_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu1_0));
                    let x1 = xl.zw;
                    fg1_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg1_0));
                    fu1_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu1_0));
                    let x2 = xh.xy;
                    fg1_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg1_0));
                    fu1_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu1_0));
                    let x3 = xh.zw;
                    fg1_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg1_0));
                    fu1_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu1_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 24u < K) {
                        xl = normed[ra2 + c * 16u + 6u];
                        xh = normed[ra2 + c * 16u + 7u];
                    }
                    let x0 = xl.xy;
                    fg2_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg2_0));
                    fu2_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu2_0));
                    let x1 = xl.zw;
                    fg2_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg2_0));
                    fu2_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu2_0));
                    let x2 = xh.xy;
                    fg2_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg2_0));
                    fu2_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu2_0));
                    let x3 = xh.zw;
                    fg2_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg2_0));
                    fu2_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu2_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 24u < K) {
                        xl = normed[ra3 + c * 16u + 6u];
                        xh = normed[ra3 + c * 16u + 7u];
                    }
                    let x0 = xl.xy;
                    fg3_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg3_0));
                    fu3_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu3_0));
                    let x1 = xl.zw;
                    fg3_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg3_0));
                    fu3_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu3_0));
                    let x2 = xh.xy;
                    fg3_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg3_0));
                    fu3_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu3_0));
                    let x3 = xh.zw;
                    fg3_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg3_0));
                    fu3_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu3_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 24u < K) {
                        xl = normed[ra4 + c * 16u + 6u];
                        xh = normed[ra4 + c * 16u + 7u];
                    }
                    let x0 = xl.xy;
                    fg4_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg4_0));
                    fu4_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu4_0));
                    let x1 = xl.zw;
                    fg4_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg4_0));
                    fu4_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu4_0));
                    let x2 = xh.xy;
                    fg4_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg4_0));
                    fu4_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu4_0));
                    let x3 = xh.zw;
                    fg4_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg4_0));
                    fu4_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu4_0));
                }
            }
        }
        {
            // Codes 32 .. 63 of the chunk (one scale, folded into each weight): into the f32 totals.
            {
                // Codes 32 .. 39: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_2[0] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_1 = fma(unpack2x16float(((cg0_2[0] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_2 = fma(unpack2x16float((cg0_2[1] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_3 = fma(unpack2x16float(((cg0_2[1] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let du0_0 = fma(unpack2x16float((cu0_2[0] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_1 = fma(unpack2x16float(((cu0_2[0] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_2 = fma(unpack2x16float((cu0_2[1] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_3 = fma(unpack2x16float(((cu0_2[1] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 32u < K) {
                        xl = normed[ra0 + c * 16u + 8u];
                        xh = normed[ra0 + c * 16u + 9u];
                    }
                    let x0 = xl.xy;
                    fg0_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg0_0));
                    fu0_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu0_0));
                    let x1 = xl.zw;
                    fg0_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg0_0));
                    fu0_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu0_0));
                    let x2 = xh.xy;
                    fg0_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg0_0));
                    fu0_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu0_0));
                    let x3 = xh.zw;
                    fg0_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg0_0));
                    fu0_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu0_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 32u < K) {
                        xl = normed[ra1 + c * 16u + 8u];
                        xh = normed[ra1 + c * 16u + 9u];
                    }
                    let x0 = xl.xy;
                    fg1_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg1_0));
                    fu1_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu1_0));
                    let x1 = xl.zw;
                    fg1_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg1_0));
                    fu1_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu1_0));
                    let x2 = xh.xy;
                    fg1_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg1_0));
                    fu1_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu1_0));
                    let x3 = xh.zw;
                    fg1_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg1_0));
                    fu1_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu1_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 32u < K) {
                        xl = normed[ra2 + c * 16u + 8u];
                        xh = normed[ra2 + c * 16u + 9u];
                    }
                    let x0 = xl.xy;
                    fg2_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg2_0));
                    fu2_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu2_0));
                    let x1 = xl.zw;
                    fg2_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg2_0));
                    fu2_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu2_0));
                    let x2 = xh.xy;
                    fg2_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg2_0));
                    fu2_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu2_0));
                    let x3 = xh.zw;
                    fg2_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg2_0));
                    fu2_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu2_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 32u < K) {
                        xl = normed[ra3 + c * 16u + 8u];
                        xh = normed[ra3 + c * 16u + 9u];
                    }
                    let x0 = xl.xy;
                    fg3_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg3_0));
                    fu3_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu3_0));
                    let x1 = xl.zw;
                    fg3_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg3_0));
                    fu3_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu3_0));
                    let x2 = xh.xy;
                    fg3_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg3_0));
                    fu3_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu3_0));
                    let x3 = xh.zw;
                    fg3_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg3_0));
                    fu3_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu3_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 32u < K) {
                        xl = normed[ra4 + c * 16u + 8u];
                        xh = normed[ra4 + c * 16u + 9u];
                    }
                    let x0 = xl.xy;
                    fg4_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg4_0));
                    fu4_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu4_0));
                    let x1 = xl.zw;
                    fg4_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg4_0));
                    fu4_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu4_0));
                    let x2 = xh.xy;
                    fg4_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg4_0));
                    fu4_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu4_0));
                    let x3 = xh.zw;
                    fg4_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg4_0));
                    fu4_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu4_0));
                }
            }
            {
                // Codes 40 .. 47: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_2[2] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_1 = fma(unpack2x16float(((cg0_2[2] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_2 = fma(unpack2x16float((cg0_2[3] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_3 = fma(unpack2x16float(((cg0_2[3] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let du0_0 = fma(unpack2x16float((cu0_2[2] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_1 = fma(unpack2x16float(((cu0_2[2] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_2 = fma(unpack2x16float((cu0_2[3] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_3 = fma(unpack2x16float(((cu0_2[3] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 40u < K) {
                        xl = normed[ra0 + c * 16u + 10u];
                        xh = normed[ra0 + c * 16u + 11u];
                    }
                    let x0 = xl.xy;
                    fg0_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg0_0));
                    fu0_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu0_0));
                    let x1 = xl.zw;
                    fg0_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg0_0));
                    fu0_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu0_0));
                    let x2 = xh.xy;
                    fg0_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg0_0));
                    fu0_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu0_0));
                    let x3 = xh.zw;
                    fg0_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg0_0));
                    fu0_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu0_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 40u < K) {
                        xl = normed[ra1 + c * 16u + 10u];
                        xh = normed[ra1 + c * 16u + 11u];
                    }
                    let x0 = xl.xy;
                    fg1_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg1_0));
                    fu1_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu1_0));
                    let x1 = xl.zw;
                    fg1_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg1_0));
                    fu1_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu1_0));
                    let x2 = xh.xy;
                    fg1_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg1_0));
                    fu1_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu1_0));
                    let x3 = xh.zw;
                    fg1_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg1_0));
                    fu1_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu1_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 40u < K) {
                        xl = normed[ra2 + c * 16u + 10u];
                        xh = normed[ra2 + c * 16u + 11u];
                    }
                    let x0 = xl.xy;
                    fg2_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg2_0));
                    fu2_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu2_0));
                    let x1 = xl.zw;
                    fg2_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg2_0));
                    fu2_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu2_0));
                    let x2 = xh.xy;
                    fg2_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg2_0));
                    fu2_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu2_0));
                    let x3 = xh.zw;
                    fg2_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg2_0));
                    fu2_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu2_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 40u < K) {
                        xl = normed[ra3 + c * 16u + 10u];
                        xh = normed[ra3 + c * 16u + 11u];
                    }
                    let x0 = xl.xy;
                    fg3_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg3_0));
                    fu3_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu3_0));
                    let x1 = xl.zw;
                    fg3_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg3_0));
                    fu3_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu3_0));
                    let x2 = xh.xy;
                    fg3_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg3_0));
                    fu3_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu3_0));
                    let x3 = xh.zw;
                    fg3_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg3_0));
                    fu3_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu3_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 40u < K) {
                        xl = normed[ra4 + c * 16u + 10u];
                        xh = normed[ra4 + c * 16u + 11u];
                    }
                    let x0 = xl.xy;
                    fg4_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg4_0));
                    fu4_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu4_0));
                    let x1 = xl.zw;
                    fg4_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg4_0));
                    fu4_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu4_0));
                    let x2 = xh.xy;
                    fg4_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg4_0));
                    fu4_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu4_0));
                    let x3 = xh.zw;
                    fg4_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg4_0));
                    fu4_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu4_0));
                }
            }
            {
                // Codes 48 .. 55: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_3[0] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_1 = fma(unpack2x16float(((cg0_3[0] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_2 = fma(unpack2x16float((cg0_3[1] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_3 = fma(unpack2x16float(((cg0_3[1] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let du0_0 = fma(unpack2x16float((cu0_3[0] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_1 = fma(unpack2x16float(((cu0_3[0] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_2 = fma(unpack2x16float((cu0_3[1] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_3 = fma(unpack2x16float(((cu0_3[1] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 48u < K) {
                        xl = normed[ra0 + c * 16u + 12u];
                        xh = normed[ra0 + c * 16u + 13u];
                    }
                    let x0 = xl.xy;
                    fg0_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg0_0));
                    fu0_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu0_0));
                    let x1 = xl.zw;
                    fg0_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg0_0));
                    fu0_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu0_0));
                    let x2 = xh.xy;
                    fg0_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg0_0));
                    fu0_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu0_0));
                    let x3 = xh.zw;
                    fg0_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg0_0));
                    fu0_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu0_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 48u < K) {
                        xl = normed[ra1 + c * 16u + 12u];
                        xh = normed[ra1 + c * 16u + 13u];
                    }
                    let x0 = xl.xy;
                    fg1_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg1_0));
                    fu1_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu1_0));
                    let x1 = xl.zw;
                    fg1_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg1_0));
                    fu1_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu1_0));
                    let x2 = xh.xy;
                    fg1_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg1_0));
                    fu1_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu1_0));
                    let x3 = xh.zw;
                    fg1_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg1_0));
                    fu1_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu1_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 48u < K) {
                        xl = normed[ra2 + c * 16u + 12u];
                        xh = normed[ra2 + c * 16u + 13u];
                    }
                    let x0 = xl.xy;
                    fg2_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg2_0));
                    fu2_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu2_0));
                    let x1 = xl.zw;
                    fg2_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg2_0));
                    fu2_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu2_0));
                    let x2 = xh.xy;
                    fg2_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg2_0));
                    fu2_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu2_0));
                    let x3 = xh.zw;
                    fg2_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg2_0));
                    fu2_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu2_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 48u < K) {
                        xl = normed[ra3 + c * 16u + 12u];
                        xh = normed[ra3 + c * 16u + 13u];
                    }
                    let x0 = xl.xy;
                    fg3_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg3_0));
                    fu3_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu3_0));
                    let x1 = xl.zw;
                    fg3_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg3_0));
                    fu3_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu3_0));
                    let x2 = xh.xy;
                    fg3_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg3_0));
                    fu3_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu3_0));
                    let x3 = xh.zw;
                    fg3_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg3_0));
                    fu3_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu3_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 48u < K) {
                        xl = normed[ra4 + c * 16u + 12u];
                        xh = normed[ra4 + c * 16u + 13u];
                    }
                    let x0 = xl.xy;
                    fg4_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg4_0));
                    fu4_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu4_0));
                    let x1 = xl.zw;
                    fg4_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg4_0));
                    fu4_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu4_0));
                    let x2 = xh.xy;
                    fg4_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg4_0));
                    fu4_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu4_0));
                    let x3 = xh.zw;
                    fg4_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg4_0));
                    fu4_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu4_0));
                }
            }
            {
                // Codes 56 .. 63: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_3[2] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_1 = fma(unpack2x16float(((cg0_3[2] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_2 = fma(unpack2x16float((cg0_3[3] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let dg0_3 = fma(unpack2x16float(((cg0_3[3] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sg0_0;
                let du0_0 = fma(unpack2x16float((cu0_3[2] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_1 = fma(unpack2x16float(((cu0_3[2] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_2 = fma(unpack2x16float((cu0_3[3] & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                let du0_3 = fma(unpack2x16float(((cu0_3[3] >> 8u) & 16711935u) | magic), vec2<f32>(1.0), vec2<f32>(-1152.0)) * su0_0;
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 56u < K) {
                        xl = normed[ra0 + c * 16u + 14u];
                        xh = normed[ra0 + c * 16u + 15u];
                    }
                    let x0 = xl.xy;
                    fg0_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg0_0));
                    fu0_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu0_0));
                    let x1 = xl.zw;
                    fg0_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg0_0));
                    fu0_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu0_0));
                    let x2 = xh.xy;
                    fg0_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg0_0));
                    fu0_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu0_0));
                    let x3 = xh.zw;
                    fg0_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg0_0));
                    fu0_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu0_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 56u < K) {
                        xl = normed[ra1 + c * 16u + 14u];
                        xh = normed[ra1 + c * 16u + 15u];
                    }
                    let x0 = xl.xy;
                    fg1_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg1_0));
                    fu1_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu1_0));
                    let x1 = xl.zw;
                    fg1_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg1_0));
                    fu1_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu1_0));
                    let x2 = xh.xy;
                    fg1_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg1_0));
                    fu1_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu1_0));
                    let x3 = xh.zw;
                    fg1_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg1_0));
                    fu1_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu1_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 56u < K) {
                        xl = normed[ra2 + c * 16u + 14u];
                        xh = normed[ra2 + c * 16u + 15u];
                    }
                    let x0 = xl.xy;
                    fg2_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg2_0));
                    fu2_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu2_0));
                    let x1 = xl.zw;
                    fg2_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg2_0));
                    fu2_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu2_0));
                    let x2 = xh.xy;
                    fg2_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg2_0));
                    fu2_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu2_0));
                    let x3 = xh.zw;
                    fg2_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg2_0));
                    fu2_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu2_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 56u < K) {
                        xl = normed[ra3 + c * 16u + 14u];
                        xh = normed[ra3 + c * 16u + 15u];
                    }
                    let x0 = xl.xy;
                    fg3_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg3_0));
                    fu3_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu3_0));
                    let x1 = xl.zw;
                    fg3_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg3_0));
                    fu3_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu3_0));
                    let x2 = xh.xy;
                    fg3_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg3_0));
                    fu3_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu3_0));
                    let x3 = xh.zw;
                    fg3_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg3_0));
                    fu3_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu3_0));
                }
                {
                    var xl = vec4<f32>(0.0);
                    var xh = vec4<f32>(0.0);
                    if (c * 64u + 56u < K) {
                        xl = normed[ra4 + c * 16u + 14u];
                        xh = normed[ra4 + c * 16u + 15u];
                    }
                    let x0 = xl.xy;
                    fg4_0 = fma(dg0_0.y, x0.y, fma(dg0_0.x, x0.x, fg4_0));
                    fu4_0 = fma(du0_0.y, x0.y, fma(du0_0.x, x0.x, fu4_0));
                    let x1 = xl.zw;
                    fg4_0 = fma(dg0_1.y, x1.y, fma(dg0_1.x, x1.x, fg4_0));
                    fu4_0 = fma(du0_1.y, x1.y, fma(du0_1.x, x1.x, fu4_0));
                    let x2 = xh.xy;
                    fg4_0 = fma(dg0_2.y, x2.y, fma(dg0_2.x, x2.x, fg4_0));
                    fu4_0 = fma(du0_2.y, x2.y, fma(du0_2.x, x2.x, fu4_0));
                    let x3 = xh.zw;
                    fg4_0 = fma(dg0_3.y, x3.y, fma(dg0_3.x, x3.x, fg4_0));
                    fu4_0 = fma(du0_3.y, x3.y, fma(du0_3.x, x3.x, fu4_0));
                }
            }
        }
    }

    // Sum the slices: red[((slice * RG + r) * 2 + m) * NC + column of the workgroup].
    red[(slice * 10u + 0u) * NC + col + 0u] = fg0_0;
    red[(slice * 10u + 1u) * NC + col + 0u] = fu0_0;
    red[(slice * 10u + 2u) * NC + col + 0u] = fg1_0;
    red[(slice * 10u + 3u) * NC + col + 0u] = fu1_0;
    red[(slice * 10u + 4u) * NC + col + 0u] = fg2_0;
    red[(slice * 10u + 5u) * NC + col + 0u] = fu2_0;
    red[(slice * 10u + 6u) * NC + col + 0u] = fg3_0;
    red[(slice * 10u + 7u) * NC + col + 0u] = fu3_0;
    red[(slice * 10u + 8u) * NC + col + 0u] = fg4_0;
    red[(slice * 10u + 9u) * NC + col + 0u] = fu4_0;
    workgroupBarrier();
    for (var o = t; o < 5u * NC; o = o + WG) {
        let r = o / NC;
        let oc = o % NC;
        var gs = 0.0;
        var us = 0.0;
        for (var s = 0u; s < S; s = s + 1u) {
            gs = gs + red[(s * 10u + 2u * r) * NC + oc];
            us = us + red[(s * 10u + 2u * r + 1u) * NC + oc];
        }
        let on = wid.y * NC + oc;
        let row = wid.x * 5u + r;
        if (on < N && row < ROWS) {
            gs = gs + f32(gate_bias[on]);
            us = us + f32(up_bias[on]);
            y[row * N + on] = f32(silu_mul(gs, us));
        }
    }
}