// snapshot mma-split-plain-f32-rows64: variant mma_split_nogb_noub, float32 K 4096 N 14336 rows 64 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier), tunables [("MMA_F32_MAX_ROWS", 64), ("MMAP_MAX_ROWS", 0)]
// ==== pass `main`: mlp-mma.wgsl.jinja, dispatch [4, 224, 2], workgroup size [128, 1, 1] ====
enable f16;
enable wgpu_cooperative_matrix;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f32>;
@group(0) @binding(3) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> up_scales: array<f32>;
@group(0) @binding(5) var<storage, read_write> partials: array<f32>;
// ---- template ----
const K: u32 = 4096u;
const N: u32 = 14336u;
const KB: u32 = 128u;             // blocks (scales) per weight row
const RV: u32 = 128u;  // 16-byte vectors per weight row
const ROWS: u32 = 64u;
const TM: u32 = 16u;                  // rows of the tile
const LDQ: u32 = 18u;                // row stride of slab and tile, in 4-half quads
const SLAB: u32 = 576u;          // quads per subgroup slab (32 rows)

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
    var p0a0_0: vec4<f32>;
    var p0a0_1: vec4<f32>;
    var p1w0: vec4<u32>;
    var p1s0_0: f32;
    var p1w1: vec4<u32>;
    var p1s1_0: f32;
    var p1a0_0: vec4<f32>;
    var p1a0_1: vec4<f32>;
    var p2w0: vec4<u32>;
    var p2s0_0: f32;
    var p2w1: vec4<u32>;
    var p2s1_0: f32;
    var p2a0_0: vec4<f32>;
    var p2a0_1: vec4<f32>;
    var p3w0: vec4<u32>;
    var p3s0_0: f32;
    var p3w1: vec4<u32>;
    var p3s1_0: f32;
    var p3a0_0: vec4<f32>;
    var p3a0_1: vec4<f32>;
    let kbeg = wid.z * 2048u;
    let kend = min(K, kbeg + 2048u);
    // FG consecutive chunks requested together (each lane's 16-byte pieces of a row for FG
    // chunks back to back: longer runs of one weight row per request), then staged and
    // multiplied one by one. A chunk at or past kend has zero activations (the fetch's guard)
    // and adds nothing, so the cooperative operations need no branch around them.
    for (var k0 = kbeg; k0 < kend; k0 = k0 + 256u) {
        {
            let f = 0u + lane;
            let r = f / 2u;
            let sir = f % 2u;
            let n = min(n0 + r % 16u, N - 1u);
            let ks = k0 + 0u + sir * 32u;
            let vi = min(n * RV + ((k0 + 0u) * 4u) / 128u + sir, n * RV + RV - 1u);
            p0w0 = gate_b[vi];
            p0s0_0 = gate_scales[n * KB + min((ks + 0u) / 32u, KB - 1u)];
        }
        {
            let f = 32u + lane;
            let r = f / 2u;
            let sir = f % 2u;
            let n = min(n0 + r % 16u, N - 1u);
            let ks = k0 + 0u + sir * 32u;
            let vi = min(n * RV + ((k0 + 0u) * 4u) / 128u + sir, n * RV + RV - 1u);
            p0w1 = up_b[vi];
            p0s1_0 = up_scales[n * KB + min((ks + 0u) / 32u, KB - 1u)];
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 0u + (gi % 8u) * 8u;
            p0a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                p0a0_0 = a[(row * K + k + 0u) / 4u];
            }
            p0a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                p0a0_1 = a[(row * K + k + 4u) / 4u];
            }
        }

        {
            let f = 0u + lane;
            let r = f / 2u;
            let sir = f % 2u;
            let n = min(n0 + r % 16u, N - 1u);
            let ks = k0 + 64u + sir * 32u;
            let vi = min(n * RV + ((k0 + 64u) * 4u) / 128u + sir, n * RV + RV - 1u);
            p1w0 = gate_b[vi];
            p1s0_0 = gate_scales[n * KB + min((ks + 0u) / 32u, KB - 1u)];
        }
        {
            let f = 32u + lane;
            let r = f / 2u;
            let sir = f % 2u;
            let n = min(n0 + r % 16u, N - 1u);
            let ks = k0 + 64u + sir * 32u;
            let vi = min(n * RV + ((k0 + 64u) * 4u) / 128u + sir, n * RV + RV - 1u);
            p1w1 = up_b[vi];
            p1s1_0 = up_scales[n * KB + min((ks + 0u) / 32u, KB - 1u)];
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 64u + (gi % 8u) * 8u;
            p1a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                p1a0_0 = a[(row * K + k + 0u) / 4u];
            }
            p1a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                p1a0_1 = a[(row * K + k + 4u) / 4u];
            }
        }

        {
            let f = 0u + lane;
            let r = f / 2u;
            let sir = f % 2u;
            let n = min(n0 + r % 16u, N - 1u);
            let ks = k0 + 128u + sir * 32u;
            let vi = min(n * RV + ((k0 + 128u) * 4u) / 128u + sir, n * RV + RV - 1u);
            p2w0 = gate_b[vi];
            p2s0_0 = gate_scales[n * KB + min((ks + 0u) / 32u, KB - 1u)];
        }
        {
            let f = 32u + lane;
            let r = f / 2u;
            let sir = f % 2u;
            let n = min(n0 + r % 16u, N - 1u);
            let ks = k0 + 128u + sir * 32u;
            let vi = min(n * RV + ((k0 + 128u) * 4u) / 128u + sir, n * RV + RV - 1u);
            p2w1 = up_b[vi];
            p2s1_0 = up_scales[n * KB + min((ks + 0u) / 32u, KB - 1u)];
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 128u + (gi % 8u) * 8u;
            p2a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                p2a0_0 = a[(row * K + k + 0u) / 4u];
            }
            p2a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                p2a0_1 = a[(row * K + k + 4u) / 4u];
            }
        }

        {
            let f = 0u + lane;
            let r = f / 2u;
            let sir = f % 2u;
            let n = min(n0 + r % 16u, N - 1u);
            let ks = k0 + 192u + sir * 32u;
            let vi = min(n * RV + ((k0 + 192u) * 4u) / 128u + sir, n * RV + RV - 1u);
            p3w0 = gate_b[vi];
            p3s0_0 = gate_scales[n * KB + min((ks + 0u) / 32u, KB - 1u)];
        }
        {
            let f = 32u + lane;
            let r = f / 2u;
            let sir = f % 2u;
            let n = min(n0 + r % 16u, N - 1u);
            let ks = k0 + 192u + sir * 32u;
            let vi = min(n * RV + ((k0 + 192u) * 4u) / 128u + sir, n * RV + RV - 1u);
            p3w1 = up_b[vi];
            p3s1_0 = up_scales[n * KB + min((ks + 0u) / 32u, KB - 1u)];
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 192u + (gi % 8u) * 8u;
            p3a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                p3a0_0 = a[(row * K + k + 0u) / 4u];
            }
            p3a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                p3a0_1 = a[(row * K + k + 4u) / 4u];
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
                act[base + 0u] = vec4<f16>(hh0[0], hh1[0], hh0[1], hh1[1]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl1[0], hl0[1], hl1[1]);
                act[base + 1u] = vec4<f16>(hh0[2], hh1[2], hh0[3], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl0[2], hl1[2], hl0[3], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 2u) * LDQ + (f % 2u) * 8u;
            let sc0 = vec2<f32>(p0s0_0);
            let v0 = p0w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((v0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let d0_2 = fma(unpack2x16float((vs0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_2 = hi2(d0_2);
            let d0_3 = fma(unpack2x16float((vs0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_3 = hi2(d0_3);
            let v1 = p0w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((v1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let d1_2 = fma(unpack2x16float((vs1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_2 = hi2(d1_2);
            let d1_3 = fma(unpack2x16float((vs1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_3 = hi2(d1_3);
            let v2 = p0w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((v2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let d2_2 = fma(unpack2x16float((vs2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_2 = hi2(d2_2);
            let d2_3 = fma(unpack2x16float((vs2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_3 = hi2(d2_3);
            let v3 = p0w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((v3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_1 = hi2(d3_1);
            let d3_2 = fma(unpack2x16float((vs3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_2 = hi2(d3_2);
            let d3_3 = fma(unpack2x16float((vs3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_3 = hi2(d3_3);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e0_2), vec2<f16>(e0_3));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d0_2 - e0_2) * LO), vec2<f16>((d0_3 - e0_3) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e1_2), vec2<f16>(e1_3));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d1_2 - e1_2) * LO), vec2<f16>((d1_3 - e1_3) * LO));
            slab[base + 4u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 4u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 5u] = vec4<f16>(vec2<f16>(e2_2), vec2<f16>(e2_3));
            slab_lo[base + 5u] = vec4<f16>(vec2<f16>((d2_2 - e2_2) * LO), vec2<f16>((d2_3 - e2_3) * LO));
            slab[base + 6u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 6u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
            slab[base + 7u] = vec4<f16>(vec2<f16>(e3_2), vec2<f16>(e3_3));
            slab_lo[base + 7u] = vec4<f16>(vec2<f16>((d3_2 - e3_2) * LO), vec2<f16>((d3_3 - e3_3) * LO));
        }
        {
            let f = 32u + lane;
            let base = own + (f / 2u) * LDQ + (f % 2u) * 8u;
            let sc0 = vec2<f32>(p0s1_0);
            let v0 = p0w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((v0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let d0_2 = fma(unpack2x16float((vs0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_2 = hi2(d0_2);
            let d0_3 = fma(unpack2x16float((vs0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_3 = hi2(d0_3);
            let v1 = p0w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((v1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let d1_2 = fma(unpack2x16float((vs1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_2 = hi2(d1_2);
            let d1_3 = fma(unpack2x16float((vs1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_3 = hi2(d1_3);
            let v2 = p0w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((v2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let d2_2 = fma(unpack2x16float((vs2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_2 = hi2(d2_2);
            let d2_3 = fma(unpack2x16float((vs2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_3 = hi2(d2_3);
            let v3 = p0w1[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((v3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_1 = hi2(d3_1);
            let d3_2 = fma(unpack2x16float((vs3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_2 = hi2(d3_2);
            let d3_3 = fma(unpack2x16float((vs3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_3 = hi2(d3_3);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e0_2), vec2<f16>(e0_3));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d0_2 - e0_2) * LO), vec2<f16>((d0_3 - e0_3) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e1_2), vec2<f16>(e1_3));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d1_2 - e1_2) * LO), vec2<f16>((d1_3 - e1_3) * LO));
            slab[base + 4u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 4u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 5u] = vec4<f16>(vec2<f16>(e2_2), vec2<f16>(e2_3));
            slab_lo[base + 5u] = vec4<f16>(vec2<f16>((d2_2 - e2_2) * LO), vec2<f16>((d2_3 - e2_3) * LO));
            slab[base + 6u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 6u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
            slab[base + 7u] = vec4<f16>(vec2<f16>(e3_2), vec2<f16>(e3_3));
            slab_lo[base + 7u] = vec4<f16>(vec2<f16>((d3_2 - e3_2) * LO), vec2<f16>((d3_3 - e3_3) * LO));
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
                act[base + 0u] = vec4<f16>(hh0[0], hh1[0], hh0[1], hh1[1]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl1[0], hl0[1], hl1[1]);
                act[base + 1u] = vec4<f16>(hh0[2], hh1[2], hh0[3], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl0[2], hl1[2], hl0[3], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 2u) * LDQ + (f % 2u) * 8u;
            let sc0 = vec2<f32>(p1s0_0);
            let v0 = p1w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((v0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let d0_2 = fma(unpack2x16float((vs0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_2 = hi2(d0_2);
            let d0_3 = fma(unpack2x16float((vs0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_3 = hi2(d0_3);
            let v1 = p1w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((v1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let d1_2 = fma(unpack2x16float((vs1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_2 = hi2(d1_2);
            let d1_3 = fma(unpack2x16float((vs1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_3 = hi2(d1_3);
            let v2 = p1w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((v2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let d2_2 = fma(unpack2x16float((vs2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_2 = hi2(d2_2);
            let d2_3 = fma(unpack2x16float((vs2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_3 = hi2(d2_3);
            let v3 = p1w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((v3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_1 = hi2(d3_1);
            let d3_2 = fma(unpack2x16float((vs3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_2 = hi2(d3_2);
            let d3_3 = fma(unpack2x16float((vs3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_3 = hi2(d3_3);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e0_2), vec2<f16>(e0_3));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d0_2 - e0_2) * LO), vec2<f16>((d0_3 - e0_3) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e1_2), vec2<f16>(e1_3));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d1_2 - e1_2) * LO), vec2<f16>((d1_3 - e1_3) * LO));
            slab[base + 4u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 4u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 5u] = vec4<f16>(vec2<f16>(e2_2), vec2<f16>(e2_3));
            slab_lo[base + 5u] = vec4<f16>(vec2<f16>((d2_2 - e2_2) * LO), vec2<f16>((d2_3 - e2_3) * LO));
            slab[base + 6u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 6u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
            slab[base + 7u] = vec4<f16>(vec2<f16>(e3_2), vec2<f16>(e3_3));
            slab_lo[base + 7u] = vec4<f16>(vec2<f16>((d3_2 - e3_2) * LO), vec2<f16>((d3_3 - e3_3) * LO));
        }
        {
            let f = 32u + lane;
            let base = own + (f / 2u) * LDQ + (f % 2u) * 8u;
            let sc0 = vec2<f32>(p1s1_0);
            let v0 = p1w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((v0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let d0_2 = fma(unpack2x16float((vs0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_2 = hi2(d0_2);
            let d0_3 = fma(unpack2x16float((vs0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_3 = hi2(d0_3);
            let v1 = p1w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((v1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let d1_2 = fma(unpack2x16float((vs1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_2 = hi2(d1_2);
            let d1_3 = fma(unpack2x16float((vs1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_3 = hi2(d1_3);
            let v2 = p1w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((v2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let d2_2 = fma(unpack2x16float((vs2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_2 = hi2(d2_2);
            let d2_3 = fma(unpack2x16float((vs2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_3 = hi2(d2_3);
            let v3 = p1w1[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((v3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_1 = hi2(d3_1);
            let d3_2 = fma(unpack2x16float((vs3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_2 = hi2(d3_2);
            let d3_3 = fma(unpack2x16float((vs3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_3 = hi2(d3_3);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e0_2), vec2<f16>(e0_3));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d0_2 - e0_2) * LO), vec2<f16>((d0_3 - e0_3) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e1_2), vec2<f16>(e1_3));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d1_2 - e1_2) * LO), vec2<f16>((d1_3 - e1_3) * LO));
            slab[base + 4u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 4u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 5u] = vec4<f16>(vec2<f16>(e2_2), vec2<f16>(e2_3));
            slab_lo[base + 5u] = vec4<f16>(vec2<f16>((d2_2 - e2_2) * LO), vec2<f16>((d2_3 - e2_3) * LO));
            slab[base + 6u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 6u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
            slab[base + 7u] = vec4<f16>(vec2<f16>(e3_2), vec2<f16>(e3_3));
            slab_lo[base + 7u] = vec4<f16>(vec2<f16>((d3_2 - e3_2) * LO), vec2<f16>((d3_3 - e3_3) * LO));
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
                act[base + 0u] = vec4<f16>(hh0[0], hh1[0], hh0[1], hh1[1]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl1[0], hl0[1], hl1[1]);
                act[base + 1u] = vec4<f16>(hh0[2], hh1[2], hh0[3], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl0[2], hl1[2], hl0[3], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 2u) * LDQ + (f % 2u) * 8u;
            let sc0 = vec2<f32>(p2s0_0);
            let v0 = p2w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((v0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let d0_2 = fma(unpack2x16float((vs0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_2 = hi2(d0_2);
            let d0_3 = fma(unpack2x16float((vs0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_3 = hi2(d0_3);
            let v1 = p2w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((v1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let d1_2 = fma(unpack2x16float((vs1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_2 = hi2(d1_2);
            let d1_3 = fma(unpack2x16float((vs1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_3 = hi2(d1_3);
            let v2 = p2w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((v2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let d2_2 = fma(unpack2x16float((vs2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_2 = hi2(d2_2);
            let d2_3 = fma(unpack2x16float((vs2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_3 = hi2(d2_3);
            let v3 = p2w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((v3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_1 = hi2(d3_1);
            let d3_2 = fma(unpack2x16float((vs3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_2 = hi2(d3_2);
            let d3_3 = fma(unpack2x16float((vs3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_3 = hi2(d3_3);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e0_2), vec2<f16>(e0_3));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d0_2 - e0_2) * LO), vec2<f16>((d0_3 - e0_3) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e1_2), vec2<f16>(e1_3));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d1_2 - e1_2) * LO), vec2<f16>((d1_3 - e1_3) * LO));
            slab[base + 4u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 4u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 5u] = vec4<f16>(vec2<f16>(e2_2), vec2<f16>(e2_3));
            slab_lo[base + 5u] = vec4<f16>(vec2<f16>((d2_2 - e2_2) * LO), vec2<f16>((d2_3 - e2_3) * LO));
            slab[base + 6u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 6u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
            slab[base + 7u] = vec4<f16>(vec2<f16>(e3_2), vec2<f16>(e3_3));
            slab_lo[base + 7u] = vec4<f16>(vec2<f16>((d3_2 - e3_2) * LO), vec2<f16>((d3_3 - e3_3) * LO));
        }
        {
            let f = 32u + lane;
            let base = own + (f / 2u) * LDQ + (f % 2u) * 8u;
            let sc0 = vec2<f32>(p2s1_0);
            let v0 = p2w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((v0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let d0_2 = fma(unpack2x16float((vs0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_2 = hi2(d0_2);
            let d0_3 = fma(unpack2x16float((vs0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_3 = hi2(d0_3);
            let v1 = p2w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((v1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let d1_2 = fma(unpack2x16float((vs1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_2 = hi2(d1_2);
            let d1_3 = fma(unpack2x16float((vs1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_3 = hi2(d1_3);
            let v2 = p2w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((v2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let d2_2 = fma(unpack2x16float((vs2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_2 = hi2(d2_2);
            let d2_3 = fma(unpack2x16float((vs2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_3 = hi2(d2_3);
            let v3 = p2w1[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((v3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_1 = hi2(d3_1);
            let d3_2 = fma(unpack2x16float((vs3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_2 = hi2(d3_2);
            let d3_3 = fma(unpack2x16float((vs3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_3 = hi2(d3_3);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e0_2), vec2<f16>(e0_3));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d0_2 - e0_2) * LO), vec2<f16>((d0_3 - e0_3) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e1_2), vec2<f16>(e1_3));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d1_2 - e1_2) * LO), vec2<f16>((d1_3 - e1_3) * LO));
            slab[base + 4u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 4u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 5u] = vec4<f16>(vec2<f16>(e2_2), vec2<f16>(e2_3));
            slab_lo[base + 5u] = vec4<f16>(vec2<f16>((d2_2 - e2_2) * LO), vec2<f16>((d2_3 - e2_3) * LO));
            slab[base + 6u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 6u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
            slab[base + 7u] = vec4<f16>(vec2<f16>(e3_2), vec2<f16>(e3_3));
            slab_lo[base + 7u] = vec4<f16>(vec2<f16>((d3_2 - e3_2) * LO), vec2<f16>((d3_3 - e3_3) * LO));
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
                act[base + 0u] = vec4<f16>(hh0[0], hh1[0], hh0[1], hh1[1]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl1[0], hl0[1], hl1[1]);
                act[base + 1u] = vec4<f16>(hh0[2], hh1[2], hh0[3], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl0[2], hl1[2], hl0[3], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 2u) * LDQ + (f % 2u) * 8u;
            let sc0 = vec2<f32>(p3s0_0);
            let v0 = p3w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((v0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let d0_2 = fma(unpack2x16float((vs0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_2 = hi2(d0_2);
            let d0_3 = fma(unpack2x16float((vs0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_3 = hi2(d0_3);
            let v1 = p3w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((v1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let d1_2 = fma(unpack2x16float((vs1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_2 = hi2(d1_2);
            let d1_3 = fma(unpack2x16float((vs1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_3 = hi2(d1_3);
            let v2 = p3w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((v2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let d2_2 = fma(unpack2x16float((vs2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_2 = hi2(d2_2);
            let d2_3 = fma(unpack2x16float((vs2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_3 = hi2(d2_3);
            let v3 = p3w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((v3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_1 = hi2(d3_1);
            let d3_2 = fma(unpack2x16float((vs3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_2 = hi2(d3_2);
            let d3_3 = fma(unpack2x16float((vs3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_3 = hi2(d3_3);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e0_2), vec2<f16>(e0_3));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d0_2 - e0_2) * LO), vec2<f16>((d0_3 - e0_3) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e1_2), vec2<f16>(e1_3));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d1_2 - e1_2) * LO), vec2<f16>((d1_3 - e1_3) * LO));
            slab[base + 4u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 4u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 5u] = vec4<f16>(vec2<f16>(e2_2), vec2<f16>(e2_3));
            slab_lo[base + 5u] = vec4<f16>(vec2<f16>((d2_2 - e2_2) * LO), vec2<f16>((d2_3 - e2_3) * LO));
            slab[base + 6u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 6u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
            slab[base + 7u] = vec4<f16>(vec2<f16>(e3_2), vec2<f16>(e3_3));
            slab_lo[base + 7u] = vec4<f16>(vec2<f16>((d3_2 - e3_2) * LO), vec2<f16>((d3_3 - e3_3) * LO));
        }
        {
            let f = 32u + lane;
            let base = own + (f / 2u) * LDQ + (f % 2u) * 8u;
            let sc0 = vec2<f32>(p3s1_0);
            let v0 = p3w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = fma(unpack2x16float((v0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_0 = hi2(d0_0);
            let d0_1 = fma(unpack2x16float((v0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_1 = hi2(d0_1);
            let d0_2 = fma(unpack2x16float((vs0 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e0_2 = hi2(d0_2);
            let d0_3 = fma(unpack2x16float((vs0 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e0_3 = hi2(d0_3);
            let v1 = p3w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = fma(unpack2x16float((v1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_0 = hi2(d1_0);
            let d1_1 = fma(unpack2x16float((v1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_1 = hi2(d1_1);
            let d1_2 = fma(unpack2x16float((vs1 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e1_2 = hi2(d1_2);
            let d1_3 = fma(unpack2x16float((vs1 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e1_3 = hi2(d1_3);
            let v2 = p3w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = fma(unpack2x16float((v2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_0 = hi2(d2_0);
            let d2_1 = fma(unpack2x16float((v2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_1 = hi2(d2_1);
            let d2_2 = fma(unpack2x16float((vs2 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e2_2 = hi2(d2_2);
            let d2_3 = fma(unpack2x16float((vs2 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e2_3 = hi2(d2_3);
            let v3 = p3w1[3];
            let vs3 = v3 >> 8u;
            let d3_0 = fma(unpack2x16float((v3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_0 = hi2(d3_0);
            let d3_1 = fma(unpack2x16float((v3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_1 = hi2(d3_1);
            let d3_2 = fma(unpack2x16float((vs3 & 983055u) | 0x64006400u), vec2<f32>(1.0), vec2<f32>(-1032.0)) * sc0;
            let e3_2 = hi2(d3_2);
            let d3_3 = fma(unpack2x16float((vs3 & 15728880u) | 0x64006400u), vec2<f32>(0.0625), vec2<f32>(-72.0)) * sc0;
            let e3_3 = hi2(d3_3);
            slab[base + 0u] = vec4<f16>(vec2<f16>(e0_0), vec2<f16>(e0_1));
            slab_lo[base + 0u] = vec4<f16>(vec2<f16>((d0_0 - e0_0) * LO), vec2<f16>((d0_1 - e0_1) * LO));
            slab[base + 1u] = vec4<f16>(vec2<f16>(e0_2), vec2<f16>(e0_3));
            slab_lo[base + 1u] = vec4<f16>(vec2<f16>((d0_2 - e0_2) * LO), vec2<f16>((d0_3 - e0_3) * LO));
            slab[base + 2u] = vec4<f16>(vec2<f16>(e1_0), vec2<f16>(e1_1));
            slab_lo[base + 2u] = vec4<f16>(vec2<f16>((d1_0 - e1_0) * LO), vec2<f16>((d1_1 - e1_1) * LO));
            slab[base + 3u] = vec4<f16>(vec2<f16>(e1_2), vec2<f16>(e1_3));
            slab_lo[base + 3u] = vec4<f16>(vec2<f16>((d1_2 - e1_2) * LO), vec2<f16>((d1_3 - e1_3) * LO));
            slab[base + 4u] = vec4<f16>(vec2<f16>(e2_0), vec2<f16>(e2_1));
            slab_lo[base + 4u] = vec4<f16>(vec2<f16>((d2_0 - e2_0) * LO), vec2<f16>((d2_1 - e2_1) * LO));
            slab[base + 5u] = vec4<f16>(vec2<f16>(e2_2), vec2<f16>(e2_3));
            slab_lo[base + 5u] = vec4<f16>(vec2<f16>((d2_2 - e2_2) * LO), vec2<f16>((d2_3 - e2_3) * LO));
            slab[base + 6u] = vec4<f16>(vec2<f16>(e3_0), vec2<f16>(e3_1));
            slab_lo[base + 6u] = vec4<f16>(vec2<f16>((d3_0 - e3_0) * LO), vec2<f16>((d3_1 - e3_1) * LO));
            slab[base + 7u] = vec4<f16>(vec2<f16>(e3_2), vec2<f16>(e3_3));
            slab_lo[base + 7u] = vec4<f16>(vec2<f16>((d3_2 - e3_2) * LO), vec2<f16>((d3_3 - e3_3) * LO));
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
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 2u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = uh1 + cscr[scr + 8u + lane / 4u][lane % 4u] * RLO;
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 4u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = uh2 + cscr[scr + 16u + lane / 4u][lane % 4u] * RLO;
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 6u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = uh3 + cscr[scr + 24u + lane / 4u][lane % 4u] * RLO;
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 8u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = uh4 + cscr[scr + 32u + lane / 4u][lane % 4u] * RLO;
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 10u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = uh5 + cscr[scr + 40u + lane / 4u][lane % 4u] * RLO;
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 12u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = uh6 + cscr[scr + 48u + lane / 4u][lane % 4u] * RLO;
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 14u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = uh7 + cscr[scr + 56u + lane / 4u][lane % 4u] * RLO;
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
    }
}
// ==== pass `reduce`: mlp-splitk-reduce.wgsl.jinja, dispatch [3584, 1, 1], workgroup size [256, 1, 1] ====
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> partials: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
// ---- template ----
const N: u32 = 14336u;
const ROWS: u32 = 64u;
const SPLIT: u32 = 2u;

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let i = (wid.y * 65535u + wid.x) * 256u + t;
    if (i >= ROWS * N) {
        return;
    }
    let row = i / N;
    let n = i % N;
    var g = 0.0;
    var u = 0.0;
    for (var z = 0u; z < SPLIT; z = z + 1u) {
        let p = ((z * ROWS + row) * 2u) * N + n;
        g = g + partials[p];
        u = u + partials[p + N];
    }
    y[i] = f32(silu_mul(g, u));
}