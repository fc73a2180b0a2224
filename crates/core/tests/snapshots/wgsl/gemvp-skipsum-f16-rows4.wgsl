// snapshot gemvp-skipsum-f16-rows4: variant gemvp_skipsum_nogb_noub, float16 K 4096 N 14336 rows 4 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier), tunables [("GEMVP_INLINE_NORM", 0)]
// ==== pass `norm`: matmul-nbits-fused-rms-norm.wgsl.jinja, dispatch [4, 1, 1], workgroup size [1024, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
struct Params {
    rows: u32,
};
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> skip: array<f16>;
@group(0) @binding(2) var<storage, read> norm_scale: array<f16>;
@group(0) @binding(3) var<storage, read_write> normed: array<f16>;
@group(0) @binding(4) var<storage, read_write> residual: array<f16>;
@group(0) @binding(5) var<uniform> params: Params;
// ---- template ----
const K: u32 = 4096u;
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
    // This thread's 4 values of S, held in registers between the two walks.
    var s0 = 0.0;
    if (t + 0u < K) {
        s0 = load_s(base + t + 0u);
        residual[base + t + 0u] = f16(s0);
    }
    ss = ss + s0 * s0;
    var s1 = 0.0;
    if (t + 1024u < K) {
        s1 = load_s(base + t + 1024u);
        residual[base + t + 1024u] = f16(s1);
    }
    ss = ss + s1 * s1;
    var s2 = 0.0;
    if (t + 2048u < K) {
        s2 = load_s(base + t + 2048u);
        residual[base + t + 2048u] = f16(s2);
    }
    ss = ss + s2 * s2;
    var s3 = 0.0;
    if (t + 3072u < K) {
        s3 = load_s(base + t + 3072u);
        residual[base + t + 3072u] = f16(s3);
    }
    ss = ss + s3 * s3;
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
        normed[base + k] = f16(s0 * inv * f32(norm_scale[k]));
    }
    if (t + 1024u < K) {
        let k = t + 1024u;
        normed[base + k] = f16(s1 * inv * f32(norm_scale[k]));
    }
    if (t + 2048u < K) {
        let k = t + 2048u;
        normed[base + k] = f16(s2 * inv * f32(norm_scale[k]));
    }
    if (t + 3072u < K) {
        let k = t + 3072u;
        normed[base + k] = f16(s3 * inv * f32(norm_scale[k]));
    }
}
// ==== pass `main`: mlp-gemvp.wgsl.jinja, dispatch [1, 896, 1], workgroup size [256, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> normed: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(3) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> up_scales: array<f16>;
@group(0) @binding(5) var<storage, read_write> y: array<f16>;
// ---- template ----
const K: u32 = 4096u;
const K8: u32 = 512u;              // 16-byte activation vectors (8 f16) per row
const N: u32 = 14336u;
const ROWS: u32 = 4u;
const NT: u32 = 896u;      // prepared layout: stripes of 16 weight rows
const KC: u32 = 64u;  // tiles of 64 codes per stripe
const CW: u32 = 16u;                  // invocations along the columns
const NC: u32 = 16u;              // columns per workgroup (1 per invocation)
const S: u32 = 16u;
const WG: u32 = 256u;

// Per slice, row and matrix (gate, up): the workgroup's NC columns' f32 sums.
var<workgroup> red: array<f32, 2048>;

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
    let ra0 = min(wid.x * 4u + 0u, ROWS - 1u) * K8;
    var fg0_0 = 0.0;
    var fu0_0 = 0.0;
    let ra1 = min(wid.x * 4u + 1u, ROWS - 1u) * K8;
    var fg1_0 = 0.0;
    var fu1_0 = 0.0;
    let ra2 = min(wid.x * 4u + 2u, ROWS - 1u) * K8;
    var fg2_0 = 0.0;
    var fu2_0 = 0.0;
    let ra3 = min(wid.x * 4u + 3u, ROWS - 1u) * K8;
    var fg3_0 = 0.0;
    var fu3_0 = 0.0;
    for (var c = slice; c < KC; c = c + S) {
        // This chunk's codes and scales of gate and up, for each column.
        let cg0_0 = gate_b[(st0 + c) * 32u + r0 * 2u + 0u];
        let cg0_1 = gate_b[(st0 + c) * 32u + r0 * 2u + 1u];
        let sg0_0 = f32(gate_scales[(st0 + c) * 32u + r0 * 2u + 0u]);
        let sg0_1 = f32(gate_scales[(st0 + c) * 32u + r0 * 2u + 1u]);
        let cu0_0 = up_b[(st0 + c) * 32u + r0 * 2u + 0u];
        let cu0_1 = up_b[(st0 + c) * 32u + r0 * 2u + 1u];
        let su0_0 = f32(up_scales[(st0 + c) * 32u + r0 * 2u + 0u]);
        let su0_1 = f32(up_scales[(st0 + c) * 32u + r0 * 2u + 1u]);
        {
            // Codes 0 .. 31 of the chunk (one scale): f16 sums per row and column.
            var ag0_0 = vec2<f16>(0.0h);
            var au0_0 = vec2<f16>(0.0h);
            var ag1_0 = vec2<f16>(0.0h);
            var au1_0 = vec2<f16>(0.0h);
            var ag2_0 = vec2<f16>(0.0h);
            var au2_0 = vec2<f16>(0.0h);
            var ag3_0 = vec2<f16>(0.0h);
            var au3_0 = vec2<f16>(0.0h);
            {
                // Codes 0 .. 7: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[0] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_0[0] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_0[0] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[0] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[0] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_0[0] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_0[0] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[0] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                {
                    let x = normed[ra0 + c * 8u + 0u];
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
                    let x = normed[ra1 + c * 8u + 0u];
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
                    let x = normed[ra2 + c * 8u + 0u];
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
                {
                    let x = normed[ra3 + c * 8u + 0u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
            }
            {
                // Codes 8 .. 15: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[1] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_0[1] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_0[1] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[1] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[1] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_0[1] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_0[1] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[1] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                {
                    let x = normed[ra0 + c * 8u + 1u];
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
                    let x = normed[ra1 + c * 8u + 1u];
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
                    let x = normed[ra2 + c * 8u + 1u];
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
                {
                    let x = normed[ra3 + c * 8u + 1u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
            }
            {
                // Codes 16 .. 23: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[2] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_0[2] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_0[2] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[2] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[2] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_0[2] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_0[2] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[2] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                {
                    let x = normed[ra0 + c * 8u + 2u];
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
                    let x = normed[ra1 + c * 8u + 2u];
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
                    let x = normed[ra2 + c * 8u + 2u];
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
                {
                    let x = normed[ra3 + c * 8u + 2u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
            }
            {
                // Codes 24 .. 31: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[3] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_0[3] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_0[3] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[3] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[3] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_0[3] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_0[3] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[3] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                {
                    let x = normed[ra0 + c * 8u + 3u];
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
                    let x = normed[ra1 + c * 8u + 3u];
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
                    let x = normed[ra2 + c * 8u + 3u];
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
                {
                    let x = normed[ra3 + c * 8u + 3u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
            }
            fg0_0 = fma(sg0_0, f32(ag0_0.x) + f32(ag0_0.y), fg0_0);
            fu0_0 = fma(su0_0, f32(au0_0.x) + f32(au0_0.y), fu0_0);
            fg1_0 = fma(sg0_0, f32(ag1_0.x) + f32(ag1_0.y), fg1_0);
            fu1_0 = fma(su0_0, f32(au1_0.x) + f32(au1_0.y), fu1_0);
            fg2_0 = fma(sg0_0, f32(ag2_0.x) + f32(ag2_0.y), fg2_0);
            fu2_0 = fma(su0_0, f32(au2_0.x) + f32(au2_0.y), fu2_0);
            fg3_0 = fma(sg0_0, f32(ag3_0.x) + f32(ag3_0.y), fg3_0);
            fu3_0 = fma(su0_0, f32(au3_0.x) + f32(au3_0.y), fu3_0);
        }
        {
            // Codes 32 .. 63 of the chunk (one scale): f16 sums per row and column.
            var ag0_0 = vec2<f16>(0.0h);
            var au0_0 = vec2<f16>(0.0h);
            var ag1_0 = vec2<f16>(0.0h);
            var au1_0 = vec2<f16>(0.0h);
            var ag2_0 = vec2<f16>(0.0h);
            var au2_0 = vec2<f16>(0.0h);
            var ag3_0 = vec2<f16>(0.0h);
            var au3_0 = vec2<f16>(0.0h);
            {
                // Codes 32 .. 39: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_1[0] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_1[0] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_1[0] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_1[0] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_1[0] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_1[0] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_1[0] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_1[0] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                {
                    let x = normed[ra0 + c * 8u + 4u];
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
                    let x = normed[ra1 + c * 8u + 4u];
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
                    let x = normed[ra2 + c * 8u + 4u];
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
                {
                    let x = normed[ra3 + c * 8u + 4u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
            }
            {
                // Codes 40 .. 47: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_1[1] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_1[1] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_1[1] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_1[1] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_1[1] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_1[1] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_1[1] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_1[1] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                {
                    let x = normed[ra0 + c * 8u + 5u];
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
                    let x = normed[ra1 + c * 8u + 5u];
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
                    let x = normed[ra2 + c * 8u + 5u];
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
                {
                    let x = normed[ra3 + c * 8u + 5u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
            }
            {
                // Codes 48 .. 55: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_1[2] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_1[2] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_1[2] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_1[2] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_1[2] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_1[2] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_1[2] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_1[2] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                {
                    let x = normed[ra0 + c * 8u + 6u];
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
                    let x = normed[ra1 + c * 8u + 6u];
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
                    let x = normed[ra2 + c * 8u + 6u];
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
                {
                    let x = normed[ra3 + c * 8u + 6u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
            }
            {
                // Codes 56 .. 63: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_1[3] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_1[3] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_1[3] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_1[3] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_1[3] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_1[3] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_1[3] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_1[3] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                {
                    let x = normed[ra0 + c * 8u + 7u];
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
                    let x = normed[ra1 + c * 8u + 7u];
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
                    let x = normed[ra2 + c * 8u + 7u];
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
                {
                    let x = normed[ra3 + c * 8u + 7u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
            }
            fg0_0 = fma(sg0_1, f32(ag0_0.x) + f32(ag0_0.y), fg0_0);
            fu0_0 = fma(su0_1, f32(au0_0.x) + f32(au0_0.y), fu0_0);
            fg1_0 = fma(sg0_1, f32(ag1_0.x) + f32(ag1_0.y), fg1_0);
            fu1_0 = fma(su0_1, f32(au1_0.x) + f32(au1_0.y), fu1_0);
            fg2_0 = fma(sg0_1, f32(ag2_0.x) + f32(ag2_0.y), fg2_0);
            fu2_0 = fma(su0_1, f32(au2_0.x) + f32(au2_0.y), fu2_0);
            fg3_0 = fma(sg0_1, f32(ag3_0.x) + f32(ag3_0.y), fg3_0);
            fu3_0 = fma(su0_1, f32(au3_0.x) + f32(au3_0.y), fu3_0);
        }
    }

    // Sum the slices: red[((slice * RG + r) * 2 + m) * NC + column of the workgroup].
    red[(slice * 8u + 0u) * NC + col + 0u] = fg0_0;
    red[(slice * 8u + 1u) * NC + col + 0u] = fu0_0;
    red[(slice * 8u + 2u) * NC + col + 0u] = fg1_0;
    red[(slice * 8u + 3u) * NC + col + 0u] = fu1_0;
    red[(slice * 8u + 4u) * NC + col + 0u] = fg2_0;
    red[(slice * 8u + 5u) * NC + col + 0u] = fu2_0;
    red[(slice * 8u + 6u) * NC + col + 0u] = fg3_0;
    red[(slice * 8u + 7u) * NC + col + 0u] = fu3_0;
    workgroupBarrier();
    for (var o = t; o < 4u * NC; o = o + WG) {
        let r = o / NC;
        let oc = o % NC;
        var gs = 0.0;
        var us = 0.0;
        for (var s = 0u; s < S; s = s + 1u) {
            gs = gs + red[(s * 8u + 2u * r) * NC + oc];
            us = us + red[(s * 8u + 2u * r + 1u) * NC + oc];
        }
        let on = wid.y * NC + oc;
        let row = wid.x * 4u + r;
        if (on < N && row < ROWS) {
            y[row * N + on] = f16(silu_mul(gs, us));
        }
    }
}