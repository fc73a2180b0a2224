// snapshot mmap-split-plain-f16-rows16-bits2: variant mmap_split_gb_noub, float16 K 896 N 4864 rows 16 bits 2 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `main`: mlp-mma.wgsl.jinja, dispatch [1, 38, 3], workgroup size [256, 1, 1] ====
enable f16;
enable wgpu_cooperative_matrix;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> a: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(3) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> up_scales: array<f16>;
@group(0) @binding(5) var<storage, read_write> partials: array<f32>;
// ---- template ----
const K: u32 = 896u;
const N: u32 = 4864u;
const KB: u32 = 28u;             // blocks (scales) per weight row
const RV: u32 = 14u;  // 16-byte vectors per weight row
const ROWS: u32 = 16u;
const TM: u32 = 16u;                  // rows of the tile
const LDQ: u32 = 18u;                // row stride of slab and tile, in 4-half quads
const SLAB: u32 = 576u;          // quads per subgroup slab (32 rows)
const NT: u32 = 304u;      // prepared layout: stripes of 16 weight rows
const KC: u32 = 14u;  // tiles of 64 codes per stripe

// Per subgroup: 16 gate rows then 16 up rows of 64 halves (+ padding).
var<workgroup> slab: array<vec4<f16>, 4608>;
// The activation chunk, f16 [row][k] in the slab's code order.
var<workgroup> act: array<vec4<f16>, 288>;
// Per subgroup: one 16 x 16 f32 block (column-major, 16 floats per column).
var<workgroup> cscr: array<vec4<f32>, 512>;

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let sg = t / 32u;          // subgroup: columns n0 .. n0 + 15 of gate and of up
    let lane = t % 32u;
    let m0 = wid.x * TM;
    let n0 = wid.y * 128u + sg * 16u;
    let own = sg * SLAB;       // this subgroup's slab
    let scr = sg * 64u;        // this subgroup's f32 scratch

    // Zero accumulators, loaded from zeroed workgroup memory.
    if (t < 64u) {
        cscr[t] = vec4<f32>(0.0);
    }
    workgroupBarrier();
    // 0x64006400 (two f16 of 1024: the staging's exponent bits, `code_pair`) as a value read
    // back from workgroup memory, where it is or-ed with zero: a register the driver's compiler
    // cannot fold, so each code pair's mask and or take one LOP3 (a & imm | reg) instead of two
    // (notes/PERF.md row 162).
    let magic = 0x64006400u | bitcast<u32>(cscr[0].x);
    var acc_g0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_u0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);

    // The chunks in flight, as loaded: FG chunks of 64 codes per request (prefixes p0, p1, ...):
    // weight segments, their scales, activation groups.
    var p0w0: vec4<u32>;
    var p0s0_0: f16;
    var p0s0_1: f16;
    var p0a0_0: vec4<f16>;
    var p0a0_1: vec4<f16>;
    var p0a0_2: vec4<f16>;
    var p0a0_3: vec4<f16>;
    let kbeg = wid.z * 320u;
    let kend = min(K, kbeg + 320u);
        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((kbeg) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let sir = f % 1u;
                let vi = tile * 16u + f % 16u;
                let si = tile * 32u + ((f / 1u) % 16u) * 2u;
                if (f < 16u) {
                    p0w0 = gate_b[vi];
                    p0s0_0 = gate_scales[si + (sir * 64u + 0u) / 32u];
                    p0s0_1 = gate_scales[si + (sir * 64u + 32u) / 32u];
                } else {
                    p0w0 = up_b[vi];
                    p0s0_0 = up_scales[si + (sir * 64u + 0u) / 32u];
                    p0s0_1 = up_scales[si + (sir * 64u + 32u) / 32u];
                }
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 4u;
            let k = kbeg + (gi % 4u) * 16u;
            p0a0_0 = vec4<f16>(0.0);
            if (gi < 64u && row < ROWS && k + 0u < kend) {
                p0a0_0 = a[(row * K + k + 0u) / 4u];
            }
            p0a0_1 = vec4<f16>(0.0);
            if (gi < 64u && row < ROWS && k + 4u < kend) {
                p0a0_1 = a[(row * K + k + 4u) / 4u];
            }
            p0a0_2 = vec4<f16>(0.0);
            if (gi < 64u && row < ROWS && k + 8u < kend) {
                p0a0_2 = a[(row * K + k + 8u) / 4u];
            }
            p0a0_3 = vec4<f16>(0.0);
            if (gi < 64u && row < ROWS && k + 12u < kend) {
                p0a0_3 = a[(row * K + k + 12u) / 4u];
            }
        }

    for (var k0 = kbeg; k0 < kend; k0 = k0 + 64u) {
        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 64u) {
                let base = (gi / 4u) * LDQ + (gi % 4u) * 4u;
                act[base + 0u] = vec4<f16>(p0a0_0[0], p0a0_0[1], p0a0_0[2], p0a0_0[3]);
                act[base + 1u] = vec4<f16>(p0a0_1[0], p0a0_1[1], p0a0_1[2], p0a0_1[3]);
                act[base + 2u] = vec4<f16>(p0a0_2[0], p0a0_2[1], p0a0_2[2], p0a0_2[3]);
                act[base + 3u] = vec4<f16>(p0a0_3[0], p0a0_3[1], p0a0_3[2], p0a0_3[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 1u) * LDQ + (f % 1u) * 16u;
            let sc0 = vec2<f16>(p0s0_0, p0s0_0);
            let sc1 = vec2<f16>(p0s0_1, p0s0_1);
            let v0 = p0w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc0;
            let d0_1 = (vec2<f16>(unpack2x16float((v0 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d0_2 = (vec2<f16>(unpack2x16float((v0 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d0_3 = (vec2<f16>(unpack2x16float((v0 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            let d0_4 = (vec2<f16>(unpack2x16float((v0 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc0;
            let d0_5 = (vec2<f16>(unpack2x16float((vs0 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d0_6 = (vec2<f16>(unpack2x16float((vs0 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d0_7 = (vec2<f16>(unpack2x16float((vs0 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            let v1 = p0w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc0;
            let d1_1 = (vec2<f16>(unpack2x16float((v1 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d1_2 = (vec2<f16>(unpack2x16float((v1 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d1_3 = (vec2<f16>(unpack2x16float((v1 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            let d1_4 = (vec2<f16>(unpack2x16float((v1 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc0;
            let d1_5 = (vec2<f16>(unpack2x16float((vs1 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d1_6 = (vec2<f16>(unpack2x16float((vs1 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d1_7 = (vec2<f16>(unpack2x16float((vs1 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            let v2 = p0w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc1;
            let d2_1 = (vec2<f16>(unpack2x16float((v2 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc1;
            let d2_2 = (vec2<f16>(unpack2x16float((v2 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc1;
            let d2_3 = (vec2<f16>(unpack2x16float((v2 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc1;
            let d2_4 = (vec2<f16>(unpack2x16float((v2 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc1;
            let d2_5 = (vec2<f16>(unpack2x16float((vs2 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc1;
            let d2_6 = (vec2<f16>(unpack2x16float((vs2 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc1;
            let d2_7 = (vec2<f16>(unpack2x16float((vs2 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc1;
            let v3 = p0w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc1;
            let d3_1 = (vec2<f16>(unpack2x16float((v3 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc1;
            let d3_2 = (vec2<f16>(unpack2x16float((v3 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc1;
            let d3_3 = (vec2<f16>(unpack2x16float((v3 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc1;
            let d3_4 = (vec2<f16>(unpack2x16float((v3 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc1;
            let d3_5 = (vec2<f16>(unpack2x16float((vs3 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc1;
            let d3_6 = (vec2<f16>(unpack2x16float((vs3 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc1;
            let d3_7 = (vec2<f16>(unpack2x16float((vs3 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc1;
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d0_2, d0_3);
            slab[base + 2u] = vec4<f16>(d0_4, d0_5);
            slab[base + 3u] = vec4<f16>(d0_6, d0_7);
            slab[base + 4u] = vec4<f16>(d1_0, d1_1);
            slab[base + 5u] = vec4<f16>(d1_2, d1_3);
            slab[base + 6u] = vec4<f16>(d1_4, d1_5);
            slab[base + 7u] = vec4<f16>(d1_6, d1_7);
            slab[base + 8u] = vec4<f16>(d2_0, d2_1);
            slab[base + 9u] = vec4<f16>(d2_2, d2_3);
            slab[base + 10u] = vec4<f16>(d2_4, d2_5);
            slab[base + 11u] = vec4<f16>(d2_6, d2_7);
            slab[base + 12u] = vec4<f16>(d3_0, d3_1);
            slab[base + 13u] = vec4<f16>(d3_2, d3_3);
            slab[base + 14u] = vec4<f16>(d3_4, d3_5);
            slab[base + 15u] = vec4<f16>(d3_6, d3_7);
        }

        workgroupBarrier();
        // Request the next chunk while the tensor cores work on this one.
        if (k0 + 64u < kend) {
        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 64u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let sir = f % 1u;
                let vi = tile * 16u + f % 16u;
                let si = tile * 32u + ((f / 1u) % 16u) * 2u;
                if (f < 16u) {
                    p0w0 = gate_b[vi];
                    p0s0_0 = gate_scales[si + (sir * 64u + 0u) / 32u];
                    p0s0_1 = gate_scales[si + (sir * 64u + 32u) / 32u];
                } else {
                    p0w0 = up_b[vi];
                    p0s0_0 = up_scales[si + (sir * 64u + 0u) / 32u];
                    p0s0_1 = up_scales[si + (sir * 64u + 32u) / 32u];
                }
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 4u;
            let k = k0 + 64u + (gi % 4u) * 16u;
            p0a0_0 = vec4<f16>(0.0);
            if (gi < 64u && row < ROWS && k + 0u < kend) {
                p0a0_0 = a[(row * K + k + 0u) / 4u];
            }
            p0a0_1 = vec4<f16>(0.0);
            if (gi < 64u && row < ROWS && k + 4u < kend) {
                p0a0_1 = a[(row * K + k + 4u) / 4u];
            }
            p0a0_2 = vec4<f16>(0.0);
            if (gi < 64u && row < ROWS && k + 8u < kend) {
                p0a0_2 = a[(row * K + k + 8u) / 4u];
            }
            p0a0_3 = vec4<f16>(0.0);
            if (gi < 64u && row < ROWS && k + 12u < kend) {
                p0a0_3 = a[(row * K + k + 12u) / 4u];
            }
        }

        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 0u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 0u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, acc_g0);
            acc_u0 = coopMultiplyAdd(wu, x0, acc_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 4u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 4u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, acc_g0);
            acc_u0 = coopMultiplyAdd(wu, x0, acc_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 8u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 8u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, acc_g0);
            acc_u0 = coopMultiplyAdd(wu, x0, acc_u0);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 12u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 12u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, acc_g0);
            acc_u0 = coopMultiplyAdd(wu, x0, acc_u0);
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
        coopStore(acc_u0, &cscr[scr], 4u);
        workgroupBarrier();
        let n = n0 + lane % 16u;
        {
            let row = m0 + 0u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g0;
                var u = cscr[scr + 0u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 2u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 4u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 6u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 8u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 10u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 12u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                let p = ((wid.z * ROWS + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + 14u + lane / 16u;
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
// ==== pass `reduce`: mlp-splitk-reduce.wgsl.jinja, dispatch [304, 1, 1], workgroup size [256, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> partials: array<f32>;
@group(0) @binding(1) var<storage, read> gate_bias: array<f16>;
@group(0) @binding(2) var<storage, read_write> y: array<f16>;
// ---- template ----
const N: u32 = 4864u;
const ROWS: u32 = 16u;
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
    g = g + f32(gate_bias[n]);
    y[i] = f16(silu_mul(g, u));
}