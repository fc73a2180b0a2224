// snapshot mmal-plain-f16-rows512: variant mmal_gb_ub, float16 K 4096 N 14336 rows 512 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier), tunables [("MMAL_MIN_ROWS", 65)]
// ==== pass `main`: mlp-mmal.wgsl.jinja, dispatch [4, 224, 1], workgroup size [256, 1, 1] ====
enable f16;
enable wgpu_cooperative_matrix;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> a: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(3) var<storage, read> gate_bias: array<f16>;
@group(0) @binding(4) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read> up_scales: array<f16>;
@group(0) @binding(6) var<storage, read> up_bias: array<f16>;
@group(0) @binding(7) var<storage, read_write> y: array<f16>;
// ---- template ----
const K: u32 = 4096u;
const N: u32 = 14336u;
const KB: u32 = 128u;             // blocks (scales) per weight row
const RV: u32 = 128u;  // 16-byte vectors per weight row
const ROWS: u32 = 512u;
const TN: u32 = 64u;                  // columns of gate (and of up) per workgroup
const TM: u32 = 128u;                  // rows per workgroup
const LDQ: u32 = 10u;                // row stride of slab and tile, in 4-half quads

// Two buffers of 2 * TN weight rows (TN of gate, then TN of up) x 32 codes (+ padding).
var<workgroup> slab: array<vec4<f16>, 2560>;
// Two buffers of the activation chunk, f16 [row][k] in the slab's code order.
var<workgroup> act: array<vec4<f16>, 2560>;
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
    let grow = (sg / 4u) * 64u;   // and its first row
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
    var acc_g0_3 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_u0_3 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);

    // The chunk in flight, as loaded: weight rows, their scales, activation groups.
    var w0_0: vec4<u32>;
    var s0_0: f16;
    var a0_0: vec4<f16>;
    var a0_1: vec4<f16>;
    var a1_0: vec4<f16>;
    var a1_1: vec4<f16>;
    let kbeg = 0u;
    let kend = K;
    // Prologue: chunk 0 staged into buffer 0, chunk 1 requested.
        {
            let rr = t + 0u;
            let nn = min(n0 + rr % TN, N - 1u);
            let vi = min(nn * RV + ((kbeg) * 4u) / 128u, nn * RV + RV - 1u);
if (rr < TN) {
                w0_0 = gate_b[vi];
                s0_0 = gate_scales[nn * KB + min(((kbeg) + 0u) / 32u, KB - 1u)];
            }
else if (rr < 128u) {
                w0_0 = up_b[vi];
                s0_0 = up_scales[nn * KB + min(((kbeg) + 0u) / 32u, KB - 1u)];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 4u;
            let k = kbeg + (gi % 4u) * 8u;
            a0_0 = vec4<f16>(0.0);
            if (row < ROWS && k + 0u < kend) {
                a0_0 = a[(row * K + k + 0u) / 4u];
            }
            a0_1 = vec4<f16>(0.0);
            if (row < ROWS && k + 4u < kend) {
                a0_1 = a[(row * K + k + 4u) / 4u];
            }
        }
        {
            let gi = t + 256u;
            let row = m0 + gi / 4u;
            let k = kbeg + (gi % 4u) * 8u;
            a1_0 = vec4<f16>(0.0);
            if (row < ROWS && k + 0u < kend) {
                a1_0 = a[(row * K + k + 0u) / 4u];
            }
            a1_1 = vec4<f16>(0.0);
            if (row < ROWS && k + 4u < kend) {
                a1_1 = a[(row * K + k + 4u) / 4u];
            }
        }

        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            {
                let base = (0u) * 1280u + (gi / 4u) * LDQ + (gi % 4u) * 2u;
                act[base + 0u] = vec4<f16>(a0_0[0], a0_1[0], a0_0[1], a0_1[1]);
                act[base + 1u] = vec4<f16>(a0_0[2], a0_1[2], a0_0[3], a0_1[3]);
            }
        }
        {
            let gi = t + 256u;
            {
                let base = (0u) * 1280u + (gi / 4u) * LDQ + (gi % 4u) * 2u;
                act[base + 0u] = vec4<f16>(a1_0[0], a1_1[0], a1_0[1], a1_1[1]);
                act[base + 1u] = vec4<f16>(a1_0[2], a1_1[2], a1_0[3], a1_1[3]);
            }
        }
        // ... and dequantise this lane's weight rows into the slab.
        {
            let rr = t + 0u;
            if (rr < 128u) {
                let base = (0u) * 1280u + rr * LDQ;
                let sc0 = vec2<f16>(s0_0, s0_0);
                let v0 = w0_0[0];
                let vs0 = v0 >> 8u;
                let d0_0 = (vec2<f16>(unpack2x16float((v0 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d0_1 = (vec2<f16>(unpack2x16float((v0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let d0_2 = (vec2<f16>(unpack2x16float((vs0 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d0_3 = (vec2<f16>(unpack2x16float((vs0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let v1 = w0_0[1];
                let vs1 = v1 >> 8u;
                let d1_0 = (vec2<f16>(unpack2x16float((v1 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d1_1 = (vec2<f16>(unpack2x16float((v1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let d1_2 = (vec2<f16>(unpack2x16float((vs1 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d1_3 = (vec2<f16>(unpack2x16float((vs1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let v2 = w0_0[2];
                let vs2 = v2 >> 8u;
                let d2_0 = (vec2<f16>(unpack2x16float((v2 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d2_1 = (vec2<f16>(unpack2x16float((v2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let d2_2 = (vec2<f16>(unpack2x16float((vs2 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d2_3 = (vec2<f16>(unpack2x16float((vs2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let v3 = w0_0[3];
                let vs3 = v3 >> 8u;
                let d3_0 = (vec2<f16>(unpack2x16float((v3 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d3_1 = (vec2<f16>(unpack2x16float((v3 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let d3_2 = (vec2<f16>(unpack2x16float((vs3 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d3_3 = (vec2<f16>(unpack2x16float((vs3 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                slab[base + 0u] = vec4<f16>(d0_0, d0_1);
                slab[base + 1u] = vec4<f16>(d0_2, d0_3);
                slab[base + 2u] = vec4<f16>(d1_0, d1_1);
                slab[base + 3u] = vec4<f16>(d1_2, d1_3);
                slab[base + 4u] = vec4<f16>(d2_0, d2_1);
                slab[base + 5u] = vec4<f16>(d2_2, d2_3);
                slab[base + 6u] = vec4<f16>(d3_0, d3_1);
                slab[base + 7u] = vec4<f16>(d3_2, d3_3);
            }
        }

    if (kbeg + 32u < kend) {
        {
            let rr = t + 0u;
            let nn = min(n0 + rr % TN, N - 1u);
            let vi = min(nn * RV + ((kbeg + 32u) * 4u) / 128u, nn * RV + RV - 1u);
if (rr < TN) {
                w0_0 = gate_b[vi];
                s0_0 = gate_scales[nn * KB + min(((kbeg + 32u) + 0u) / 32u, KB - 1u)];
            }
else if (rr < 128u) {
                w0_0 = up_b[vi];
                s0_0 = up_scales[nn * KB + min(((kbeg + 32u) + 0u) / 32u, KB - 1u)];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 4u;
            let k = kbeg + 32u + (gi % 4u) * 8u;
            a0_0 = vec4<f16>(0.0);
            if (row < ROWS && k + 0u < kend) {
                a0_0 = a[(row * K + k + 0u) / 4u];
            }
            a0_1 = vec4<f16>(0.0);
            if (row < ROWS && k + 4u < kend) {
                a0_1 = a[(row * K + k + 4u) / 4u];
            }
        }
        {
            let gi = t + 256u;
            let row = m0 + gi / 4u;
            let k = kbeg + 32u + (gi % 4u) * 8u;
            a1_0 = vec4<f16>(0.0);
            if (row < ROWS && k + 0u < kend) {
                a1_0 = a[(row * K + k + 0u) / 4u];
            }
            a1_1 = vec4<f16>(0.0);
            if (row < ROWS && k + 4u < kend) {
                a1_1 = a[(row * K + k + 4u) / 4u];
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
            {
                let base = (nxt) * 1280u + (gi / 4u) * LDQ + (gi % 4u) * 2u;
                act[base + 0u] = vec4<f16>(a0_0[0], a0_1[0], a0_0[1], a0_1[1]);
                act[base + 1u] = vec4<f16>(a0_0[2], a0_1[2], a0_0[3], a0_1[3]);
            }
        }
        {
            let gi = t + 256u;
            {
                let base = (nxt) * 1280u + (gi / 4u) * LDQ + (gi % 4u) * 2u;
                act[base + 0u] = vec4<f16>(a1_0[0], a1_1[0], a1_0[1], a1_1[1]);
                act[base + 1u] = vec4<f16>(a1_0[2], a1_1[2], a1_0[3], a1_1[3]);
            }
        }
        // ... and dequantise this lane's weight rows into the slab.
        {
            let rr = t + 0u;
            if (rr < 128u) {
                let base = (nxt) * 1280u + rr * LDQ;
                let sc0 = vec2<f16>(s0_0, s0_0);
                let v0 = w0_0[0];
                let vs0 = v0 >> 8u;
                let d0_0 = (vec2<f16>(unpack2x16float((v0 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d0_1 = (vec2<f16>(unpack2x16float((v0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let d0_2 = (vec2<f16>(unpack2x16float((vs0 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d0_3 = (vec2<f16>(unpack2x16float((vs0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let v1 = w0_0[1];
                let vs1 = v1 >> 8u;
                let d1_0 = (vec2<f16>(unpack2x16float((v1 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d1_1 = (vec2<f16>(unpack2x16float((v1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let d1_2 = (vec2<f16>(unpack2x16float((vs1 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d1_3 = (vec2<f16>(unpack2x16float((vs1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let v2 = w0_0[2];
                let vs2 = v2 >> 8u;
                let d2_0 = (vec2<f16>(unpack2x16float((v2 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d2_1 = (vec2<f16>(unpack2x16float((v2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let d2_2 = (vec2<f16>(unpack2x16float((vs2 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d2_3 = (vec2<f16>(unpack2x16float((vs2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let v3 = w0_0[3];
                let vs3 = v3 >> 8u;
                let d3_0 = (vec2<f16>(unpack2x16float((v3 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d3_1 = (vec2<f16>(unpack2x16float((v3 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                let d3_2 = (vec2<f16>(unpack2x16float((vs3 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
                let d3_3 = (vec2<f16>(unpack2x16float((vs3 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
                slab[base + 0u] = vec4<f16>(d0_0, d0_1);
                slab[base + 1u] = vec4<f16>(d0_2, d0_3);
                slab[base + 2u] = vec4<f16>(d1_0, d1_1);
                slab[base + 3u] = vec4<f16>(d1_2, d1_3);
                slab[base + 4u] = vec4<f16>(d2_0, d2_1);
                slab[base + 5u] = vec4<f16>(d2_2, d2_3);
                slab[base + 6u] = vec4<f16>(d3_0, d3_1);
                slab[base + 7u] = vec4<f16>(d3_2, d3_3);
            }
        }

            if (k0 + 64u < kend) {
        {
            let rr = t + 0u;
            let nn = min(n0 + rr % TN, N - 1u);
            let vi = min(nn * RV + ((k0 + 64u) * 4u) / 128u, nn * RV + RV - 1u);
if (rr < TN) {
                w0_0 = gate_b[vi];
                s0_0 = gate_scales[nn * KB + min(((k0 + 64u) + 0u) / 32u, KB - 1u)];
            }
else if (rr < 128u) {
                w0_0 = up_b[vi];
                s0_0 = up_scales[nn * KB + min(((k0 + 64u) + 0u) / 32u, KB - 1u)];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 4u;
            let k = k0 + 64u + (gi % 4u) * 8u;
            a0_0 = vec4<f16>(0.0);
            if (row < ROWS && k + 0u < kend) {
                a0_0 = a[(row * K + k + 0u) / 4u];
            }
            a0_1 = vec4<f16>(0.0);
            if (row < ROWS && k + 4u < kend) {
                a0_1 = a[(row * K + k + 4u) / 4u];
            }
        }
        {
            let gi = t + 256u;
            let row = m0 + gi / 4u;
            let k = k0 + 64u + (gi % 4u) * 8u;
            a1_0 = vec4<f16>(0.0);
            if (row < ROWS && k + 0u < kend) {
                a1_0 = a[(row * K + k + 0u) / 4u];
            }
            a1_1 = vec4<f16>(0.0);
            if (row < ROWS && k + 4u < kend) {
                a1_1 = a[(row * K + k + 4u) / 4u];
            }
        }

            }
        }
        {
            let wg0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[(cur) * 1280u + (gcol + 0u) * LDQ + 0u], LDQ);
            let wu0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[(cur) * 1280u + (TN + gcol + 0u) * LDQ + 0u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 1280u + (grow + 0u) * LDQ + 0u], LDQ);
            acc_g0_0 = coopMultiplyAdd(wg0, x0, acc_g0_0);
            acc_u0_0 = coopMultiplyAdd(wu0, x0, acc_u0_0);
            let x1 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 1280u + (grow + 16u) * LDQ + 0u], LDQ);
            acc_g0_1 = coopMultiplyAdd(wg0, x1, acc_g0_1);
            acc_u0_1 = coopMultiplyAdd(wu0, x1, acc_u0_1);
            let x2 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 1280u + (grow + 32u) * LDQ + 0u], LDQ);
            acc_g0_2 = coopMultiplyAdd(wg0, x2, acc_g0_2);
            acc_u0_2 = coopMultiplyAdd(wu0, x2, acc_u0_2);
            let x3 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 1280u + (grow + 48u) * LDQ + 0u], LDQ);
            acc_g0_3 = coopMultiplyAdd(wg0, x3, acc_g0_3);
            acc_u0_3 = coopMultiplyAdd(wu0, x3, acc_u0_3);
        }
        {
            let wg0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[(cur) * 1280u + (gcol + 0u) * LDQ + 4u], LDQ);
            let wu0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[(cur) * 1280u + (TN + gcol + 0u) * LDQ + 4u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 1280u + (grow + 0u) * LDQ + 4u], LDQ);
            acc_g0_0 = coopMultiplyAdd(wg0, x0, acc_g0_0);
            acc_u0_0 = coopMultiplyAdd(wu0, x0, acc_u0_0);
            let x1 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 1280u + (grow + 16u) * LDQ + 4u], LDQ);
            acc_g0_1 = coopMultiplyAdd(wg0, x1, acc_g0_1);
            acc_u0_1 = coopMultiplyAdd(wu0, x1, acc_u0_1);
            let x2 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 1280u + (grow + 32u) * LDQ + 4u], LDQ);
            acc_g0_2 = coopMultiplyAdd(wg0, x2, acc_g0_2);
            acc_u0_2 = coopMultiplyAdd(wu0, x2, acc_u0_2);
            let x3 = coopLoad<coop_mat16x16<f16, B>>(&act[(cur) * 1280u + (grow + 48u) * LDQ + 4u], LDQ);
            acc_g0_3 = coopMultiplyAdd(wg0, x3, acc_g0_3);
            acc_u0_3 = coopMultiplyAdd(wu0, x3, acc_u0_3);
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
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 2u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 4u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 6u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 8u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 10u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 12u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 14u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = cscr[scr + 56u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
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
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 18u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 20u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 22u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 24u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 26u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 28u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 30u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = cscr[scr + 56u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
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
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 34u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 36u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 38u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 40u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 42u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 44u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 46u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = cscr[scr + 56u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
    }
    {
        workgroupBarrier();
        coopStore(acc_g0_3, &cscr[scr], 4u);
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
        coopStore(acc_u0_3, &cscr[scr], 4u);
        workgroupBarrier();
        let n = n0 + gcol + 0u + lane % 16u;
        {
            let row = m0 + grow + 48u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g0;
                var u = cscr[scr + 0u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 50u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 52u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 54u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 56u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 58u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 60u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + grow + 62u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = cscr[scr + 56u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
    }
}
