// snapshot mmap-skipsum-f32-rows16-bits8: variant mmap_skipsum_gb_noub, float32 K 4096 N 14336 rows 16 bits 8 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier), tunables [("MMA_F32_MAX_ROWS", 32)]
// ==== pass `norm`: matmul-nbits-fused-rms-norm.wgsl.jinja, dispatch [16, 1, 1], workgroup size [1024, 1, 1] ====
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
        residual[base + t + 0u] = f32(s0);
    }
    ss = ss + s0 * s0;
    var s1 = 0.0;
    if (t + 1024u < K) {
        s1 = load_s(base + t + 1024u);
        residual[base + t + 1024u] = f32(s1);
    }
    ss = ss + s1 * s1;
    var s2 = 0.0;
    if (t + 2048u < K) {
        s2 = load_s(base + t + 2048u);
        residual[base + t + 2048u] = f32(s2);
    }
    ss = ss + s2 * s2;
    var s3 = 0.0;
    if (t + 3072u < K) {
        s3 = load_s(base + t + 3072u);
        residual[base + t + 3072u] = f32(s3);
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
        normed[base + k] = s0 * inv * f32(norm_scale[k]);
    }
    if (t + 1024u < K) {
        let k = t + 1024u;
        normed[base + k] = s1 * inv * f32(norm_scale[k]);
    }
    if (t + 2048u < K) {
        let k = t + 2048u;
        normed[base + k] = s2 * inv * f32(norm_scale[k]);
    }
    if (t + 3072u < K) {
        let k = t + 3072u;
        normed[base + k] = s3 * inv * f32(norm_scale[k]);
    }
}
// ==== pass `main`: mlp-mma.wgsl.jinja, dispatch [1, 224, 1], workgroup size [128, 1, 1] ====
enable f16;
enable wgpu_cooperative_matrix;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> normed: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f32>;
@group(0) @binding(3) var<storage, read> gate_bias: array<f32>;
@group(0) @binding(4) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read> up_scales: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;
// ---- template ----
const K: u32 = 4096u;
const N: u32 = 14336u;
const KB: u32 = 128u;             // blocks (scales) per weight row
const RV: u32 = 256u;  // 16-byte vectors per weight row
const ROWS: u32 = 16u;
const TM: u32 = 16u;                  // rows of the tile
const LDQ: u32 = 18u;                // row stride of slab and tile, in 4-half quads
const SLAB: u32 = 576u;          // quads per subgroup slab (32 rows)
const NT: u32 = 896u;      // prepared layout: stripes of 16 weight rows
const KC: u32 = 64u;  // tiles of 64 codes per stripe

// Per subgroup: 16 gate rows then 16 up rows of 64 halves (+ padding).
var<workgroup> slab: array<vec4<f16>, 2304>;
// The activation chunk, f16 [row][k] in the slab's code order.
var<workgroup> act: array<vec4<f16>, 288>;
// The low parts of the split (times 2^11): slab and activation tile of the same layouts.
var<workgroup> slab_lo: array<vec4<f16>, 2304>;
var<workgroup> act_lo: array<vec4<f16>, 288>;
const LO: f32 = 2048.0;
const RLO: f32 = 0.00048828125;             // 2^-11

// v with its mantissa cut to f16's 10 bits: exact in f16 (normal range), v - hi exact in f32.
fn hi2(v: vec2<f32>) -> vec2<f32> {
    return bitcast<vec2<f32>>(bitcast<vec2<u32>>(v) & vec2<u32>(0xFFFFE000u));
}

fn hi4(v: vec4<f32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(bitcast<vec4<u32>>(v) & vec4<u32>(0xFFFFE000u));
}
// Per subgroup: one 16 x 16 f32 block (column-major, 16 floats per column).
var<workgroup> cscr: array<vec4<f32>, 256>;

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}
@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let sg = t / 32u;          // subgroup: columns n0 .. n0 + 15 of gate and of up
    let lane = t % 32u;
    let m0 = wid.x * TM;
    let n0 = wid.y * 64u + sg * 16u;
    let own = sg * SLAB;       // this subgroup's slab
    let scr = sg * 64u;        // this subgroup's f32 scratch

    // Zero accumulators, loaded from zeroed workgroup memory.
    if (t < 64u) {
        cscr[t] = vec4<f32>(0.0);
    }
    workgroupBarrier();
    var acc_g0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_u0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var accx_g0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var accx_u0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    let czero = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);

    // The chunks in flight, as loaded: FG chunks of 64 codes per request (prefixes p0, p1, ...):
    // weight segments, their scales, activation groups.
    var p0w0: vec4<u32>;
    var p0s0_0: f32;
    var p0w1: vec4<u32>;
    var p0s1_0: f32;
    var p0w2: vec4<u32>;
    var p0s2_0: f32;
    var p0w3: vec4<u32>;
    var p0s3_0: f32;
    var p0a0_0: vec4<f32>;
    var p0a0_1: vec4<f32>;
    var p1w0: vec4<u32>;
    var p1s0_0: f32;
    var p1w1: vec4<u32>;
    var p1s1_0: f32;
    var p1w2: vec4<u32>;
    var p1s2_0: f32;
    var p1w3: vec4<u32>;
    var p1s3_0: f32;
    var p1a0_0: vec4<f32>;
    var p1a0_1: vec4<f32>;
    var p2w0: vec4<u32>;
    var p2s0_0: f32;
    var p2w1: vec4<u32>;
    var p2s1_0: f32;
    var p2w2: vec4<u32>;
    var p2s2_0: f32;
    var p2w3: vec4<u32>;
    var p2s3_0: f32;
    var p2a0_0: vec4<f32>;
    var p2a0_1: vec4<f32>;
    var p3w0: vec4<u32>;
    var p3s0_0: f32;
    var p3w1: vec4<u32>;
    var p3s1_0: f32;
    var p3w2: vec4<u32>;
    var p3s2_0: f32;
    var p3w3: vec4<u32>;
    var p3s3_0: f32;
    var p3a0_0: vec4<f32>;
    var p3a0_1: vec4<f32>;
    let kbeg = 0u;
    let kend = K;
    // FG consecutive chunks requested together (each lane's 16-byte pieces of a row for FG
    // chunks back to back: longer runs of one weight row per request), then staged and
    // multiplied one by one. A chunk at or past kend has zero activations (the fetch's guard)
    // and adds nothing, so the cooperative operations need no branch around them.
    for (var k0 = kbeg; k0 < kend; k0 = k0 + 256u) {
        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 0u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p0w0 = gate_b[vi];
                p0s0_0 = gate_scales[si + (sir * 16u + 0u) / 32u];
            }
            {
                let f = 32u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p0w1 = gate_b[vi];
                p0s1_0 = gate_scales[si + (sir * 16u + 0u) / 32u];
            }
            {
                let f = 64u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p0w2 = up_b[vi];
                p0s2_0 = up_scales[si + (sir * 16u + 0u) / 32u];
            }
            {
                let f = 96u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p0w3 = up_b[vi];
                p0s3_0 = up_scales[si + (sir * 16u + 0u) / 32u];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 0u + (gi % 8u) * 8u;
            p0a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                p0a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            p0a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                p0a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 64u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p1w0 = gate_b[vi];
                p1s0_0 = gate_scales[si + (sir * 16u + 0u) / 32u];
            }
            {
                let f = 32u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p1w1 = gate_b[vi];
                p1s1_0 = gate_scales[si + (sir * 16u + 0u) / 32u];
            }
            {
                let f = 64u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p1w2 = up_b[vi];
                p1s2_0 = up_scales[si + (sir * 16u + 0u) / 32u];
            }
            {
                let f = 96u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p1w3 = up_b[vi];
                p1s3_0 = up_scales[si + (sir * 16u + 0u) / 32u];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 64u + (gi % 8u) * 8u;
            p1a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                p1a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            p1a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                p1a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 128u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p2w0 = gate_b[vi];
                p2s0_0 = gate_scales[si + (sir * 16u + 0u) / 32u];
            }
            {
                let f = 32u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p2w1 = gate_b[vi];
                p2s1_0 = gate_scales[si + (sir * 16u + 0u) / 32u];
            }
            {
                let f = 64u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p2w2 = up_b[vi];
                p2s2_0 = up_scales[si + (sir * 16u + 0u) / 32u];
            }
            {
                let f = 96u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p2w3 = up_b[vi];
                p2s3_0 = up_scales[si + (sir * 16u + 0u) / 32u];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 128u + (gi % 8u) * 8u;
            p2a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                p2a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            p2a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                p2a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 192u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p3w0 = gate_b[vi];
                p3s0_0 = gate_scales[si + (sir * 16u + 0u) / 32u];
            }
            {
                let f = 32u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p3w1 = gate_b[vi];
                p3s1_0 = gate_scales[si + (sir * 16u + 0u) / 32u];
            }
            {
                let f = 64u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p3w2 = up_b[vi];
                p3s2_0 = up_scales[si + (sir * 16u + 0u) / 32u];
            }
            {
                let f = 96u + lane;
                let sir = f % 4u;
                let vi = tile * 64u + f % 64u;
                let si = tile * 32u + ((f / 4u) % 16u) * 2u;
                p3w3 = up_b[vi];
                p3s3_0 = up_scales[si + (sir * 16u + 0u) / 32u];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 192u + (gi % 8u) * 8u;
            p3a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                p3a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            p3a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                p3a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 128u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                let h0 = hi4(p0a0_0);
                let hh0 = vec4<f16>(h0);
                let hl0 = vec4<f16>((p0a0_0 - h0) * LO);
                let h1 = hi4(p0a0_1);
                let hh1 = vec4<f16>(h1);
                let hl1 = vec4<f16>((p0a0_1 - h1) * LO);
                act[base + 0u] = vec4<f16>(hh0[0], hh0[1], hh0[2], hh0[3]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl0[1], hl0[2], hl0[3]);
                act[base + 1u] = vec4<f16>(hh1[0], hh1[1], hh1[2], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl1[0], hl1[1], hl1[2], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p0s0_0);
            let v0 = p0w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p0w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p0w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p0w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }
        {
            let f = 32u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p0s1_0);
            let v0 = p0w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p0w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p0w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p0w1[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }
        {
            let f = 64u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p0s2_0);
            let v0 = p0w2[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p0w2[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p0w2[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p0w2[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }
        {
            let f = 96u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p0s3_0);
            let v0 = p0w3[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p0w3[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p0w3[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p0w3[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }

        workgroupBarrier();
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 0u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 0u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 0u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 0u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 0u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 4u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 4u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 4u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 4u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 4u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 8u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 8u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 8u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 8u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 8u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 12u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 12u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 12u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 12u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 12u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }

        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 128u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                let h0 = hi4(p1a0_0);
                let hh0 = vec4<f16>(h0);
                let hl0 = vec4<f16>((p1a0_0 - h0) * LO);
                let h1 = hi4(p1a0_1);
                let hh1 = vec4<f16>(h1);
                let hl1 = vec4<f16>((p1a0_1 - h1) * LO);
                act[base + 0u] = vec4<f16>(hh0[0], hh0[1], hh0[2], hh0[3]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl0[1], hl0[2], hl0[3]);
                act[base + 1u] = vec4<f16>(hh1[0], hh1[1], hh1[2], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl1[0], hl1[1], hl1[2], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p1s0_0);
            let v0 = p1w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p1w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p1w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p1w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }
        {
            let f = 32u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p1s1_0);
            let v0 = p1w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p1w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p1w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p1w1[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }
        {
            let f = 64u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p1s2_0);
            let v0 = p1w2[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p1w2[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p1w2[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p1w2[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }
        {
            let f = 96u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p1s3_0);
            let v0 = p1w3[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p1w3[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p1w3[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p1w3[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }

        workgroupBarrier();
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 0u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 0u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 0u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 0u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 0u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 4u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 4u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 4u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 4u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 4u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 8u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 8u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 8u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 8u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 8u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 12u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 12u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 12u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 12u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 12u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }

        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 128u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                let h0 = hi4(p2a0_0);
                let hh0 = vec4<f16>(h0);
                let hl0 = vec4<f16>((p2a0_0 - h0) * LO);
                let h1 = hi4(p2a0_1);
                let hh1 = vec4<f16>(h1);
                let hl1 = vec4<f16>((p2a0_1 - h1) * LO);
                act[base + 0u] = vec4<f16>(hh0[0], hh0[1], hh0[2], hh0[3]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl0[1], hl0[2], hl0[3]);
                act[base + 1u] = vec4<f16>(hh1[0], hh1[1], hh1[2], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl1[0], hl1[1], hl1[2], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p2s0_0);
            let v0 = p2w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p2w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p2w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p2w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }
        {
            let f = 32u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p2s1_0);
            let v0 = p2w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p2w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p2w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p2w1[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }
        {
            let f = 64u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p2s2_0);
            let v0 = p2w2[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p2w2[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p2w2[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p2w2[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }
        {
            let f = 96u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p2s3_0);
            let v0 = p2w3[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p2w3[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p2w3[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p2w3[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }

        workgroupBarrier();
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 0u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 0u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 0u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 0u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 0u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 4u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 4u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 4u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 4u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 4u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 8u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 8u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 8u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 8u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 8u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 12u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 12u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 12u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 12u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 12u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }

        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 128u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                let h0 = hi4(p3a0_0);
                let hh0 = vec4<f16>(h0);
                let hl0 = vec4<f16>((p3a0_0 - h0) * LO);
                let h1 = hi4(p3a0_1);
                let hh1 = vec4<f16>(h1);
                let hl1 = vec4<f16>((p3a0_1 - h1) * LO);
                act[base + 0u] = vec4<f16>(hh0[0], hh0[1], hh0[2], hh0[3]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl0[1], hl0[2], hl0[3]);
                act[base + 1u] = vec4<f16>(hh1[0], hh1[1], hh1[2], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl1[0], hl1[1], hl1[2], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p3s0_0);
            let v0 = p3w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p3w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p3w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p3w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }
        {
            let f = 32u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p3s1_0);
            let v0 = p3w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p3w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p3w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p3w1[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }
        {
            let f = 64u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p3s2_0);
            let v0 = p3w2[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p3w2[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p3w2[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p3w2[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }
        {
            let f = 96u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let sc0 = vec2<f32>(p3s3_0);
            let v0 = p3w3[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((vs0 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let v1 = p3w3[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((vs1 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let v2 = p3w3[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((vs2 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let v3 = p3w3[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((vs3 & 16711935u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1152.0)) * sc0;
            let e3_1 = hi2(d3_1);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
        }

        workgroupBarrier();
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 0u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 0u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 0u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 0u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 0u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 4u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 4u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 4u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 4u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 4u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 8u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 8u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 8u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 8u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 8u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 12u], LDQ);
            let wgl = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 12u], LDQ);
            let wul = coopLoadT<coop_mat16x16<f16, A>>(&slab_lo[own + 16u * LDQ + 12u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 12u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 12u], LDQ);
            acc_g0 = acc_g0 + coopMultiplyAdd(wg, x0, czero);
            acc_u0 = acc_u0 + coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_g0 = coopMultiplyAdd(wgl, x0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
            accx_u0 = coopMultiplyAdd(wul, x0, accx_u0);
        }

    }

    // Epilogue, one 16-row block at a time through this subgroup's scratch: element (n, m) of a
    // block at float m * 16 + n. Lane e handles (n, m) = (e % 16, e / 16) for e = lane + 32 i.
    {
        workgroupBarrier();
        coopStore(acc_g0, &cscr[scr], 4u);
        workgroupBarrier();
        var g0 = cscr[scr + 0u + lane / 4u][lane % 4u];
        var g1 = cscr[scr + 8u + lane / 4u][lane % 4u];
        var g2 = cscr[scr + 16u + lane / 4u][lane % 4u];
        var g3 = cscr[scr + 24u + lane / 4u][lane % 4u];
        var g4 = cscr[scr + 32u + lane / 4u][lane % 4u];
        var g5 = cscr[scr + 40u + lane / 4u][lane % 4u];
        var g6 = cscr[scr + 48u + lane / 4u][lane % 4u];
        var g7 = cscr[scr + 56u + lane / 4u][lane % 4u];
        workgroupBarrier();
        coopStore(accx_g0, &cscr[scr], 4u);
        workgroupBarrier();
        g0 = g0 + cscr[scr + 0u + lane / 4u][lane % 4u] * RLO;
        g1 = g1 + cscr[scr + 8u + lane / 4u][lane % 4u] * RLO;
        g2 = g2 + cscr[scr + 16u + lane / 4u][lane % 4u] * RLO;
        g3 = g3 + cscr[scr + 24u + lane / 4u][lane % 4u] * RLO;
        g4 = g4 + cscr[scr + 32u + lane / 4u][lane % 4u] * RLO;
        g5 = g5 + cscr[scr + 40u + lane / 4u][lane % 4u] * RLO;
        g6 = g6 + cscr[scr + 48u + lane / 4u][lane % 4u] * RLO;
        g7 = g7 + cscr[scr + 56u + lane / 4u][lane % 4u] * RLO;
        workgroupBarrier();
        coopStore(acc_u0, &cscr[scr], 4u);
        workgroupBarrier();
        let uh0 = cscr[scr + 0u + lane / 4u][lane % 4u];
        let uh1 = cscr[scr + 8u + lane / 4u][lane % 4u];
        let uh2 = cscr[scr + 16u + lane / 4u][lane % 4u];
        let uh3 = cscr[scr + 24u + lane / 4u][lane % 4u];
        let uh4 = cscr[scr + 32u + lane / 4u][lane % 4u];
        let uh5 = cscr[scr + 40u + lane / 4u][lane % 4u];
        let uh6 = cscr[scr + 48u + lane / 4u][lane % 4u];
        let uh7 = cscr[scr + 56u + lane / 4u][lane % 4u];
        workgroupBarrier();
        coopStore(accx_u0, &cscr[scr], 4u);
        workgroupBarrier();
        let n = n0 + lane % 16u;
        {
            let row = m0 + 0u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g0;
                var u = uh0 + cscr[scr + 0u + lane / 4u][lane % 4u] * RLO;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 2u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = uh1 + cscr[scr + 8u + lane / 4u][lane % 4u] * RLO;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 4u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = uh2 + cscr[scr + 16u + lane / 4u][lane % 4u] * RLO;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 6u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = uh3 + cscr[scr + 24u + lane / 4u][lane % 4u] * RLO;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 8u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = uh4 + cscr[scr + 32u + lane / 4u][lane % 4u] * RLO;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 10u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = uh5 + cscr[scr + 40u + lane / 4u][lane % 4u] * RLO;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 12u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = uh6 + cscr[scr + 48u + lane / 4u][lane % 4u] * RLO;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 14u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = uh7 + cscr[scr + 56u + lane / 4u][lane % 4u] * RLO;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
    }
}
