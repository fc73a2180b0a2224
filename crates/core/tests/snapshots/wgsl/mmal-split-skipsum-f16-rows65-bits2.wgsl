// snapshot mmal-split-skipsum-f16-rows65-bits2: variant mmal_split_skipsum_nogb_noub, float16 K 896 N 2048 rows 65 bits 2 block 16, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier), tunables [("MMAL_MIN_ROWS", 65)]
// ==== pass `norm`: matmul-nbits-fused-rms-norm.wgsl.jinja, dispatch [65, 1, 1], workgroup size [1024, 1, 1] ====
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
const K: u32 = 896u;
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
        residual[base + t + 0u] = f16(s0);
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
        normed[base + k] = f16(s0 * inv * f32(norm_scale[k]));
    }
}
// ==== pass `main`: mlp-mmal.wgsl.jinja, dispatch [1, 32, 3], workgroup size [256, 1, 1] ====
enable f16;
enable wgpu_cooperative_matrix;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> normed: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(3) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> up_scales: array<f16>;
@group(0) @binding(5) var<storage, read_write> partials: array<f32>;
// ---- template ----
const K: u32 = 896u;
const N: u32 = 2048u;
const KB: u32 = 56u;             // blocks (scales) per weight row
const RV: u32 = 14u;  // 16-byte vectors per weight row
const ROWS: u32 = 65u;
const TN: u32 = 64u;                  // columns of gate (and of up) per workgroup
const TM: u32 = 96u;                  // rows per workgroup
const LDQ: u32 = 10u;                // row stride of slab and tile, in 4-half quads

// Two buffers of 2 * TN weight rows (TN of gate, then TN of up) x 32 codes (+ padding).
var<workgroup> slab: array<vec4<f16>, 2560>;
// Two buffers of the activation chunk, f16 [row][k] in the slab's code order.
var<workgroup> act: array<vec4<f16>, 1920>;
// Per subgroup: one 16 x 16 f32 block (column-major, 16 floats per column).
var<workgroup> cscr: array<vec4<f32>, 512>;

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let sg = t / 32u;
    let lane = t % 32u;
    let gcol = (sg % 4u) * 16u;   // this subgroup's first column in the tile
    let grow = (sg / 4u) * 48u;   // and its first row
    let m0 = wid.x * TM;
    let n0 = wid.y * TN;
    let scr = sg * 64u;        // this subgroup's f32 scratch

    // Zero accumulators, loaded from zeroed workgroup memory.
    if (t + 0u < 64u) {
        cscr[t + 0u] = vec4<f32>(0.0);
    }
    workgroupBarrier();
    // 0x64006400 as a value the driver's compiler cannot fold (`magic` of dequant.wgsl.jinja).
    let magic = 0x64006400u | bitcast<u32>(cscr[0].x);
    var acc_g0_0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_u0_0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_g0_1 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_u0_1 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_g0_2 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_u0_2 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);

    // The chunk in flight, as loaded: weight rows, their scales, activation groups.
    var w0_0: vec4<u32>;
    var s0_0: f16;
    var s0_1: f16;
    var a0_0: vec4<f16>;
    var a0_1: vec4<f16>;
    var a0_2: vec4<f16>;
    var a0_3: vec4<f16>;
    let kbeg = wid.z * 320u;
    let kend = min(K, kbeg + 320u);
    // Prologue: chunk 0 staged into buffer 0, chunk 1 requested.
        {
            let rr = t + 0u;
            let nn = min(n0 + rr % TN, N - 1u);
            let vi = min(nn * RV + ((kbeg) * 2u) / 128u, nn * RV + RV - 1u);
if (rr < TN) {
                w0_0 = gate_b[vi];
                s0_0 = gate_scales[nn * KB + min(((kbeg) + 0u) / 16u, KB - 1u)];
                s0_1 = gate_scales[nn * KB + min(((kbeg) + 16u) / 16u, KB - 1u)];
            }
else if (rr < 128u) {
                w0_0 = up_b[vi];
                s0_0 = up_scales[nn * KB + min(((kbeg) + 0u) / 16u, KB - 1u)];
                s0_1 = up_scales[nn * KB + min(((kbeg) + 16u) / 16u, KB - 1u)];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 2u;
            let k = kbeg + (gi % 2u) * 16u;
            a0_0 = vec4<f16>(0.0);
            if (gi < 192u && row < ROWS && k + 0u < kend) {
                a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            a0_1 = vec4<f16>(0.0);
            if (gi < 192u && row < ROWS && k + 4u < kend) {
                a0_1 = normed[(row * K + k + 4u) / 4u];
            }
            a0_2 = vec4<f16>(0.0);
            if (gi < 192u && row < ROWS && k + 8u < kend) {
                a0_2 = normed[(row * K + k + 8u) / 4u];
            }
            a0_3 = vec4<f16>(0.0);
            if (gi < 192u && row < ROWS && k + 12u < kend) {
                a0_3 = normed[(row * K + k + 12u) / 4u];
            }
        }

        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 192u) {
                let base = (0u) * 960u + (gi / 2u) * LDQ + (gi % 2u) * 4u;
                act[base + 0u] = vec4<f16>(a0_0[0], a0_2[0], a0_0[1], a0_2[1]);
                act[base + 1u] = vec4<f16>(a0_0[2], a0_2[2], a0_0[3], a0_2[3]);
                act[base + 2u] = vec4<f16>(a0_1[0], a0_3[0], a0_1[1], a0_3[1]);
                act[base + 3u] = vec4<f16>(a0_1[2], a0_3[2], a0_1[3], a0_3[3]);
            }
        }
        // ... and dequantise this lane's weight rows into the slab.
        {
            let rr = t + 0u;
            if (rr < 128u) {
                let base = (0u) * 1280u + rr * LDQ;
                let sc0 = vec2<f16>(s0_0, s0_0);
                let sc1 = vec2<f16>(s0_1, s0_1);
                let v0 = select(w0_0[0], w0_0[2], (((kbeg) / 32u) & 1u) == 1u);
                let vs0 = v0 >> 8u;
                let d0_0 = (vec2<f16>(unpack2x16float((v0 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc0;
                let d0_1 = (vec2<f16>(unpack2x16float((v0 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
                let d0_2 = (vec2<f16>(unpack2x16float((v0 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
                let d0_3 = (vec2<f16>(unpack2x16float((v0 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
                let d0_4 = (vec2<f16>(unpack2x16float((v0 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc0;
                let d0_5 = (vec2<f16>(unpack2x16float((vs0 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
                let d0_6 = (vec2<f16>(unpack2x16float((vs0 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
                let d0_7 = (vec2<f16>(unpack2x16float((vs0 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
                let v1 = select(w0_0[1], w0_0[3], (((kbeg) / 32u) & 1u) == 1u);
                let vs1 = v1 >> 8u;
                let d1_0 = (vec2<f16>(unpack2x16float((v1 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc1;
                let d1_1 = (vec2<f16>(unpack2x16float((v1 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc1;
                let d1_2 = (vec2<f16>(unpack2x16float((v1 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc1;
                let d1_3 = (vec2<f16>(unpack2x16float((v1 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc1;
                let d1_4 = (vec2<f16>(unpack2x16float((v1 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc1;
                let d1_5 = (vec2<f16>(unpack2x16float((vs1 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc1;
                let d1_6 = (vec2<f16>(unpack2x16float((vs1 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc1;
                let d1_7 = (vec2<f16>(unpack2x16float((vs1 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc1;
                slab[base + 0u] = vec4<f16>(d0_0, d0_1);
                slab[base + 1u] = vec4<f16>(d0_2, d0_3);
                slab[base + 2u] = vec4<f16>(d0_4, d0_5);
                slab[base + 3u] = vec4<f16>(d0_6, d0_7);
                slab[base + 4u] = vec4<f16>(d1_0, d1_1);
                slab[base + 5u] = vec4<f16>(d1_2, d1_3);
                slab[base + 6u] = vec4<f16>(d1_4, d1_5);
                slab[base + 7u] = vec4<f16>(d1_6, d1_7);
            }
        }

    if (kbeg + 32u < kend) {
        {
            let rr = t + 0u;
            let nn = min(n0 + rr % TN, N - 1u);
            let vi = min(nn * RV + ((kbeg + 32u) * 2u) / 128u, nn * RV + RV - 1u);
if (rr < TN) {
                w0_0 = gate_b[vi];
                s0_0 = gate_scales[nn * KB + min(((kbeg + 32u) + 0u) / 16u, KB - 1u)];
                s0_1 = gate_scales[nn * KB + min(((kbeg + 32u) + 16u) / 16u, KB - 1u)];
            }
else if (rr < 128u) {
                w0_0 = up_b[vi];
                s0_0 = up_scales[nn * KB + min(((kbeg + 32u) + 0u) / 16u, KB - 1u)];
                s0_1 = up_scales[nn * KB + min(((kbeg + 32u) + 16u) / 16u, KB - 1u)];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 2u;
            let k = kbeg + 32u + (gi % 2u) * 16u;
            a0_0 = vec4<f16>(0.0);
            if (gi < 192u && row < ROWS && k + 0u < kend) {
                a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            a0_1 = vec4<f16>(0.0);
            if (gi < 192u && row < ROWS && k + 4u < kend) {
                a0_1 = normed[(row * K + k + 4u) / 4u];
            }
            a0_2 = vec4<f16>(0.0);
            if (gi < 192u && row < ROWS && k + 8u < kend) {
                a0_2 = normed[(row * K + k + 8u) / 4u];
            }
            a0_3 = vec4<f16>(0.0);
            if (gi < 192u && row < ROWS && k + 12u < kend) {
                a0_3 = normed[(row * K + k + 12u) / 4u];
            }
        }

    }
    workgroupBarrier();
    for (var k0 = kbeg; k0 < kend; k0 = k0 + 32u) {
        // The buffers in turns, from the chunk's number (not a variable carried across
        // iterations, which the index proof of crates/core/src/bounds.rs cannot bound).
        let cur = ((k0 - kbeg) / 32u) % 2u;
        let nxt = 1u - cur;
        if (k0 + 32u < kend) {
            // Stage the next chunk into the other buffer, then request the one after it, while
            // the tensor cores work on this one.
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 192u) {
                let base = (nxt) * 960u + (gi / 2u) * LDQ + (gi % 2u) * 4u;
                act[base + 0u] = vec4<f16>(a0_0[0], a0_2[0], a0_0[1], a0_2[1]);
                act[base + 1u] = vec4<f16>(a0_0[2], a0_2[2], a0_0[3], a0_2[3]);
                act[base + 2u] = vec4<f16>(a0_1[0], a0_3[0], a0_1[1], a0_3[1]);
                act[base + 3u] = vec4<f16>(a0_1[2], a0_3[2], a0_1[3], a0_3[3]);
            }
        }
        // ... and dequantise this lane's weight rows into the slab.
        {
            let rr = t + 0u;
            if (rr < 128u) {
                let base = (nxt) * 1280u + rr * LDQ;
                let sc0 = vec2<f16>(s0_0, s0_0);
                let sc1 = vec2<f16>(s0_1, s0_1);
                let v0 = select(w0_0[0], w0_0[2], (((k0 + 32u) / 32u) & 1u) == 1u);
                let vs0 = v0 >> 8u;
                let d0_0 = (vec2<f16>(unpack2x16float((v0 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc0;
                let d0_1 = (vec2<f16>(unpack2x16float((v0 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
                let d0_2 = (vec2<f16>(unpack2x16float((v0 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
                let d0_3 = (vec2<f16>(unpack2x16float((v0 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
                let d0_4 = (vec2<f16>(unpack2x16float((v0 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc0;
                let d0_5 = (vec2<f16>(unpack2x16float((vs0 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
                let d0_6 = (vec2<f16>(unpack2x16float((vs0 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
                let d0_7 = (vec2<f16>(unpack2x16float((vs0 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
                let v1 = select(w0_0[1], w0_0[3], (((k0 + 32u) / 32u) & 1u) == 1u);
                let vs1 = v1 >> 8u;
                let d1_0 = (vec2<f16>(unpack2x16float((v1 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc1;
                let d1_1 = (vec2<f16>(unpack2x16float((v1 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc1;
                let d1_2 = (vec2<f16>(unpack2x16float((v1 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc1;
                let d1_3 = (vec2<f16>(unpack2x16float((v1 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc1;
                let d1_4 = (vec2<f16>(unpack2x16float((v1 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc1;
                let d1_5 = (vec2<f16>(unpack2x16float((vs1 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc1;
                let d1_6 = (vec2<f16>(unpack2x16float((vs1 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc1;
                let d1_7 = (vec2<f16>(unpack2x16float((vs1 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc1;
                slab[base + 0u] = vec4<f16>(d0_0, d0_1);
                slab[base + 1u] = vec4<f16>(d0_2, d0_3);
                slab[base + 2u] = vec4<f16>(d0_4, d0_5);
                slab[base + 3u] = vec4<f16>(d0_6, d0_7);
                slab[base + 4u] = vec4<f16>(d1_0, d1_1);
                slab[base + 5u] = vec4<f16>(d1_2, d1_3);
                slab[base + 6u] = vec4<f16>(d1_4, d1_5);
                slab[base + 7u] = vec4<f16>(d1_6, d1_7);
            }
        }

            if (k0 + 64u < kend) {
        {
            let rr = t + 0u;
            let nn = min(n0 + rr % TN, N - 1u);
            let vi = min(nn * RV + ((k0 + 64u) * 2u) / 128u, nn * RV + RV - 1u);
if (rr < TN) {
                w0_0 = gate_b[vi];
                s0_0 = gate_scales[nn * KB + min(((k0 + 64u) + 0u) / 16u, KB - 1u)];
                s0_1 = gate_scales[nn * KB + min(((k0 + 64u) + 16u) / 16u, KB - 1u)];
            }
else if (rr < 128u) {
                w0_0 = up_b[vi];
                s0_0 = up_scales[nn * KB + min(((k0 + 64u) + 0u) / 16u, KB - 1u)];
                s0_1 = up_scales[nn * KB + min(((k0 + 64u) + 16u) / 16u, KB - 1u)];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 2u;
            let k = k0 + 64u + (gi % 2u) * 16u;
            a0_0 = vec4<f16>(0.0);
            if (gi < 192u && row < ROWS && k + 0u < kend) {
                a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            a0_1 = vec4<f16>(0.0);
            if (gi < 192u && row < ROWS && k + 4u < kend) {
                a0_1 = normed[(row * K + k + 4u) / 4u];
            }
            a0_2 = vec4<f16>(0.0);
            if (gi < 192u && row < ROWS && k + 8u < kend) {
                a0_2 = normed[(row * K + k + 8u) / 4u];
            }
            a0_3 = vec4<f16>(0.0);
            if (gi < 192u && row < ROWS && k + 12u < kend) {
                a0_3 = normed[(row * K + k + 12u) / 4u];
            }
        }

            }
        }
        {
            let wg0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[(cur) * 1280u + (gcol + 0u) * LDQ + 0u], LDQ);
            let wu0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[(cur) * 1280u + (TN + gcol + 0u) * LDQ + 0u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 960u + (grow + 0u) * LDQ + 0u], LDQ);
            acc_g0_0 = coopMultiplyAdd(wg0, x0, acc_g0_0);
            acc_u0_0 = coopMultiplyAdd(wu0, x0, acc_u0_0);
            let x1 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 960u + (grow + 16u) * LDQ + 0u], LDQ);
            acc_g0_1 = coopMultiplyAdd(wg0, x1, acc_g0_1);
            acc_u0_1 = coopMultiplyAdd(wu0, x1, acc_u0_1);
            let x2 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 960u + (grow + 32u) * LDQ + 0u], LDQ);
            acc_g0_2 = coopMultiplyAdd(wg0, x2, acc_g0_2);
            acc_u0_2 = coopMultiplyAdd(wu0, x2, acc_u0_2);
        }
        {
            let wg0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[(cur) * 1280u + (gcol + 0u) * LDQ + 4u], LDQ);
            let wu0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[(cur) * 1280u + (TN + gcol + 0u) * LDQ + 4u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 960u + (grow + 0u) * LDQ + 4u], LDQ);
            acc_g0_0 = coopMultiplyAdd(wg0, x0, acc_g0_0);
            acc_u0_0 = coopMultiplyAdd(wu0, x0, acc_u0_0);
            let x1 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 960u + (grow + 16u) * LDQ + 4u], LDQ);
            acc_g0_1 = coopMultiplyAdd(wg0, x1, acc_g0_1);
            acc_u0_1 = coopMultiplyAdd(wu0, x1, acc_u0_1);
            let x2 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 960u + (grow + 32u) * LDQ + 4u], LDQ);
            acc_g0_2 = coopMultiplyAdd(wg0, x2, acc_g0_2);
            acc_u0_2 = coopMultiplyAdd(wu0, x2, acc_u0_2);
        }

        workgroupBarrier();
    }

    // Epilogue, one 16 x 16 block at a time through this subgroup's scratch: element (n, m) of a
    // block at float m * 16 + n. Lane e handles (n, m) = (e % 16, e / 16) for e = lane + 32 i.
    {
        workgroupBarrier();
        coopStore(acc_g0_0, &cscr[scr], 4u);
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
        coopStore(acc_u0_0, &cscr[scr], 4u);
        workgroupBarrier();
        let n = n0 + gcol + 0u + lane % 16u;
        {
            let row = m0 + grow + 0u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g0;
                var u = cscr[scr + 0u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 2u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 4u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 6u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 8u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 10u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 12u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 14u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = cscr[scr + 56u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
    }
    {
        workgroupBarrier();
        coopStore(acc_g0_1, &cscr[scr], 4u);
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
        coopStore(acc_u0_1, &cscr[scr], 4u);
        workgroupBarrier();
        let n = n0 + gcol + 0u + lane % 16u;
        {
            let row = m0 + grow + 16u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g0;
                var u = cscr[scr + 0u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 18u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 20u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 22u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 24u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 26u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 28u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 30u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = cscr[scr + 56u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
    }
    {
        workgroupBarrier();
        coopStore(acc_g0_2, &cscr[scr], 4u);
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
        coopStore(acc_u0_2, &cscr[scr], 4u);
        workgroupBarrier();
        let n = n0 + gcol + 0u + lane % 16u;
        {
            let row = m0 + grow + 32u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g0;
                var u = cscr[scr + 0u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 34u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 36u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 38u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 40u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 42u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 44u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + grow + 46u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = cscr[scr + 56u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
    }
}
// ==== pass `reduce`: mlp-splitk-reduce.wgsl.jinja, dispatch [520, 1, 1], workgroup size [256, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> partials: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f16>;
// ---- template ----
const N: u32 = 2048u;
const ROWS: u32 = 65u;
const SPLIT: u32 = 3u;

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
    y[i] = f16(silu_mul(g, u));
}