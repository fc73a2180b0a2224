// snapshot mmap-seq-plain-f16-rows64-bits2: variant mmap_nogb_noub, float16 K 4096 N 14336 rows 64 bits 2 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `main`: mlp-mma.wgsl.jinja, dispatch [1, 224, 1], workgroup size [128, 1, 1] ====
enable f16;
enable wgpu_cooperative_matrix;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> a: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(3) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> up_scales: array<f16>;
@group(0) @binding(5) var<storage, read_write> y: array<f16>;
// ---- template ----
const K: u32 = 4096u;
const N: u32 = 14336u;
const KB: u32 = 128u;             // blocks (scales) per weight row
const RV: u32 = 64u;  // 16-byte vectors per weight row
const ROWS: u32 = 64u;
const TM: u32 = 64u;                  // rows of the tile
const LDQ: u32 = 18u;                // row stride of slab and tile, in 4-half quads
const SLAB: u32 = 288u;          // quads per subgroup slab (16 rows)
const NT: u32 = 896u;      // prepared layout: stripes of 16 weight rows
const KC: u32 = 64u;  // tiles of 64 codes per stripe

// Per subgroup: the chunk's 16 gate rows, then (in turns) its 16 up rows, of 64 halves (+ padding).
var<workgroup> slab: array<vec4<f16>, 1152>;
// The activation chunk, f16 [row][k] in the slab's code order.
var<workgroup> act: array<vec4<f16>, 1152>;
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
    // 0x64006400 (two f16 of 1024: the staging's exponent bits, `code_pair`) as a value read
    // back from workgroup memory, where it is or-ed with zero: a register the driver's compiler
    // cannot fold, so each code pair's mask and or take one LOP3 (a & imm | reg) instead of two
    // (notes/PERF.md row 162).
    let magic = 0x64006400u | bitcast<u32>(cscr[0].x);
    var acc_g0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_u0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_g1 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_u1 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_g2 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_u2 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_g3 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_u3 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);

    // The chunks in flight, as loaded: FG chunks of 64 codes per request (prefixes p0, p1, ...):
    // weight segments, their scales, activation groups.
    var p0w0: vec4<u32>;
    var p0s0_0: f16;
    var p0s0_1: f16;
    var p0a0_0: vec4<f16>;
    var p0a0_1: vec4<f16>;
    var p0a0_2: vec4<f16>;
    var p0a0_3: vec4<f16>;
    var p0a1_0: vec4<f16>;
    var p0a1_1: vec4<f16>;
    var p0a1_2: vec4<f16>;
    var p0a1_3: vec4<f16>;
    var p1w0: vec4<u32>;
    var p1s0_0: f16;
    var p1s0_1: f16;
    var p1a0_0: vec4<f16>;
    var p1a0_1: vec4<f16>;
    var p1a0_2: vec4<f16>;
    var p1a0_3: vec4<f16>;
    var p1a1_0: vec4<f16>;
    var p1a1_1: vec4<f16>;
    var p1a1_2: vec4<f16>;
    var p1a1_3: vec4<f16>;
    let kbeg = 0u;
    let kend = K;
    // FG consecutive chunks requested together (each lane's 16-byte pieces of a row for FG
    // chunks back to back: longer runs of one weight row per request), then staged and
    // multiplied one by one. A chunk at or past kend has zero activations (the fetch's guard)
    // and adds nothing, so the cooperative operations need no branch around them.
    for (var k0 = kbeg; k0 < kend; k0 = k0 + 128u) {
        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 0u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let sir = f % 2u;
                let vi = tile * 16u + f / 2u;
                let si = tile * 32u + ((f / 2u) % 16u) * 2u;
                // In turns, 2 bits: this lane holds half sir of row f / 2 of gate and of up
                // (words 2 sir, 2 sir + 1 of each), so all 32 lanes stage each turn.
                let g4 = gate_b[vi];
                let u4 = up_b[vi];
                p0w0 = select(vec4<u32>(g4.xy, u4.xy), vec4<u32>(g4.zw, u4.zw), sir == 1u);
                p0s0_0 = gate_scales[si + (sir * 32u + 0u) / 32u];
                p0s0_1 = up_scales[si + (sir * 32u + 0u) / 32u];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 4u;
            let k = k0 + 0u + (gi % 4u) * 16u;
            p0a0_0 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 0u < kend) {
                p0a0_0 = a[(row * K + k + 0u) / 4u];
            }
            p0a0_1 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 4u < kend) {
                p0a0_1 = a[(row * K + k + 4u) / 4u];
            }
            p0a0_2 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 8u < kend) {
                p0a0_2 = a[(row * K + k + 8u) / 4u];
            }
            p0a0_3 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 12u < kend) {
                p0a0_3 = a[(row * K + k + 12u) / 4u];
            }
        }
        {
            let gi = t + 128u;
            let row = m0 + gi / 4u;
            let k = k0 + 0u + (gi % 4u) * 16u;
            p0a1_0 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 0u < kend) {
                p0a1_0 = a[(row * K + k + 0u) / 4u];
            }
            p0a1_1 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 4u < kend) {
                p0a1_1 = a[(row * K + k + 4u) / 4u];
            }
            p0a1_2 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 8u < kend) {
                p0a1_2 = a[(row * K + k + 8u) / 4u];
            }
            p0a1_3 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 12u < kend) {
                p0a1_3 = a[(row * K + k + 12u) / 4u];
            }
        }

        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 64u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let sir = f % 2u;
                let vi = tile * 16u + f / 2u;
                let si = tile * 32u + ((f / 2u) % 16u) * 2u;
                // In turns, 2 bits: this lane holds half sir of row f / 2 of gate and of up
                // (words 2 sir, 2 sir + 1 of each), so all 32 lanes stage each turn.
                let g4 = gate_b[vi];
                let u4 = up_b[vi];
                p1w0 = select(vec4<u32>(g4.xy, u4.xy), vec4<u32>(g4.zw, u4.zw), sir == 1u);
                p1s0_0 = gate_scales[si + (sir * 32u + 0u) / 32u];
                p1s0_1 = up_scales[si + (sir * 32u + 0u) / 32u];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 4u;
            let k = k0 + 64u + (gi % 4u) * 16u;
            p1a0_0 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 0u < kend) {
                p1a0_0 = a[(row * K + k + 0u) / 4u];
            }
            p1a0_1 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 4u < kend) {
                p1a0_1 = a[(row * K + k + 4u) / 4u];
            }
            p1a0_2 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 8u < kend) {
                p1a0_2 = a[(row * K + k + 8u) / 4u];
            }
            p1a0_3 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 12u < kend) {
                p1a0_3 = a[(row * K + k + 12u) / 4u];
            }
        }
        {
            let gi = t + 128u;
            let row = m0 + gi / 4u;
            let k = k0 + 64u + (gi % 4u) * 16u;
            p1a1_0 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 0u < kend) {
                p1a1_0 = a[(row * K + k + 0u) / 4u];
            }
            p1a1_1 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 4u < kend) {
                p1a1_1 = a[(row * K + k + 4u) / 4u];
            }
            p1a1_2 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 8u < kend) {
                p1a1_2 = a[(row * K + k + 8u) / 4u];
            }
            p1a1_3 = vec4<f16>(0.0);
            if (gi < 256u && row < ROWS && k + 12u < kend) {
                p1a1_3 = a[(row * K + k + 12u) / 4u];
            }
        }

        {
        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 256u) {
                let base = (gi / 4u) * LDQ + (gi % 4u) * 4u;
                act[base + 0u] = vec4<f16>(p0a0_0[0], p0a0_0[1], p0a0_0[2], p0a0_0[3]);
                act[base + 1u] = vec4<f16>(p0a0_1[0], p0a0_1[1], p0a0_1[2], p0a0_1[3]);
                act[base + 2u] = vec4<f16>(p0a0_2[0], p0a0_2[1], p0a0_2[2], p0a0_2[3]);
                act[base + 3u] = vec4<f16>(p0a0_3[0], p0a0_3[1], p0a0_3[2], p0a0_3[3]);
            }
        }
        {
            let gi = t + 128u;
            if (gi < 256u) {
                let base = (gi / 4u) * LDQ + (gi % 4u) * 4u;
                act[base + 0u] = vec4<f16>(p0a1_0[0], p0a1_0[1], p0a1_0[2], p0a1_0[3]);
                act[base + 1u] = vec4<f16>(p0a1_1[0], p0a1_1[1], p0a1_1[2], p0a1_1[3]);
                act[base + 2u] = vec4<f16>(p0a1_2[0], p0a1_2[1], p0a1_2[2], p0a1_2[3]);
                act[base + 3u] = vec4<f16>(p0a1_3[0], p0a1_3[1], p0a1_3[2], p0a1_3[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            // Half lane % 2 of row lane / 2 of gate: words 0, 1 of the registers.
            let base = own + (lane / 2u) * LDQ + (lane % 2u) * 8u;
            let sc0 = vec2<f16>(p0s0_0, p0s0_0);
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
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d0_2, d0_3);
            slab[base + 2u] = vec4<f16>(d0_4, d0_5);
            slab[base + 3u] = vec4<f16>(d0_6, d0_7);
            slab[base + 4u] = vec4<f16>(d1_0, d1_1);
            slab[base + 5u] = vec4<f16>(d1_2, d1_3);
            slab[base + 6u] = vec4<f16>(d1_4, d1_5);
            slab[base + 7u] = vec4<f16>(d1_6, d1_7);
        }

        workgroupBarrier();
        let w0_0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
        let x0_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 0u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_0, x0_0, acc_g0);
        let x0_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 0u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_0, x0_1, acc_g1);
        let x0_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 0u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_0, x0_2, acc_g2);
        let x0_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 0u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_0, x0_3, acc_g3);
        let w0_1 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
        let x1_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 4u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_1, x1_0, acc_g0);
        let x1_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 4u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_1, x1_1, acc_g1);
        let x1_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 4u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_1, x1_2, acc_g2);
        let x1_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 4u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_1, x1_3, acc_g3);
        let w0_2 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
        let x2_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 8u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_2, x2_0, acc_g0);
        let x2_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 8u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_2, x2_1, acc_g1);
        let x2_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 8u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_2, x2_2, acc_g2);
        let x2_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 8u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_2, x2_3, acc_g3);
        let w0_3 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
        let x3_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 12u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_3, x3_0, acc_g0);
        let x3_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 12u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_3, x3_1, acc_g1);
        let x3_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 12u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_3, x3_2, acc_g2);
        let x3_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 12u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_3, x3_3, acc_g3);

        subgroupBarrier();
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            // Half lane % 2 of row lane / 2 of up: words 2, 3 of the registers.
            let base = own + (lane / 2u) * LDQ + (lane % 2u) * 8u;
            let sc0 = vec2<f16>(p0s0_1, p0s0_1);
            let v0 = p0w0[2];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc0;
            let d0_1 = (vec2<f16>(unpack2x16float((v0 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d0_2 = (vec2<f16>(unpack2x16float((v0 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d0_3 = (vec2<f16>(unpack2x16float((v0 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            let d0_4 = (vec2<f16>(unpack2x16float((v0 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc0;
            let d0_5 = (vec2<f16>(unpack2x16float((vs0 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d0_6 = (vec2<f16>(unpack2x16float((vs0 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d0_7 = (vec2<f16>(unpack2x16float((vs0 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            let v1 = p0w0[3];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc0;
            let d1_1 = (vec2<f16>(unpack2x16float((v1 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d1_2 = (vec2<f16>(unpack2x16float((v1 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d1_3 = (vec2<f16>(unpack2x16float((v1 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            let d1_4 = (vec2<f16>(unpack2x16float((v1 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc0;
            let d1_5 = (vec2<f16>(unpack2x16float((vs1 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d1_6 = (vec2<f16>(unpack2x16float((vs1 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d1_7 = (vec2<f16>(unpack2x16float((vs1 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d0_2, d0_3);
            slab[base + 2u] = vec4<f16>(d0_4, d0_5);
            slab[base + 3u] = vec4<f16>(d0_6, d0_7);
            slab[base + 4u] = vec4<f16>(d1_0, d1_1);
            slab[base + 5u] = vec4<f16>(d1_2, d1_3);
            slab[base + 6u] = vec4<f16>(d1_4, d1_5);
            slab[base + 7u] = vec4<f16>(d1_6, d1_7);
        }

        subgroupBarrier();
        let w1_0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
        acc_u0 = coopMultiplyAdd(w1_0, x0_0, acc_u0);
        acc_u1 = coopMultiplyAdd(w1_0, x0_1, acc_u1);
        acc_u2 = coopMultiplyAdd(w1_0, x0_2, acc_u2);
        acc_u3 = coopMultiplyAdd(w1_0, x0_3, acc_u3);
        let w1_1 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
        acc_u0 = coopMultiplyAdd(w1_1, x1_0, acc_u0);
        acc_u1 = coopMultiplyAdd(w1_1, x1_1, acc_u1);
        acc_u2 = coopMultiplyAdd(w1_1, x1_2, acc_u2);
        acc_u3 = coopMultiplyAdd(w1_1, x1_3, acc_u3);
        let w1_2 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
        acc_u0 = coopMultiplyAdd(w1_2, x2_0, acc_u0);
        acc_u1 = coopMultiplyAdd(w1_2, x2_1, acc_u1);
        acc_u2 = coopMultiplyAdd(w1_2, x2_2, acc_u2);
        acc_u3 = coopMultiplyAdd(w1_2, x2_3, acc_u3);
        let w1_3 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
        acc_u0 = coopMultiplyAdd(w1_3, x3_0, acc_u0);
        acc_u1 = coopMultiplyAdd(w1_3, x3_1, acc_u1);
        acc_u2 = coopMultiplyAdd(w1_3, x3_2, acc_u2);
        acc_u3 = coopMultiplyAdd(w1_3, x3_3, acc_u3);

        }
        {
        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 256u) {
                let base = (gi / 4u) * LDQ + (gi % 4u) * 4u;
                act[base + 0u] = vec4<f16>(p1a0_0[0], p1a0_0[1], p1a0_0[2], p1a0_0[3]);
                act[base + 1u] = vec4<f16>(p1a0_1[0], p1a0_1[1], p1a0_1[2], p1a0_1[3]);
                act[base + 2u] = vec4<f16>(p1a0_2[0], p1a0_2[1], p1a0_2[2], p1a0_2[3]);
                act[base + 3u] = vec4<f16>(p1a0_3[0], p1a0_3[1], p1a0_3[2], p1a0_3[3]);
            }
        }
        {
            let gi = t + 128u;
            if (gi < 256u) {
                let base = (gi / 4u) * LDQ + (gi % 4u) * 4u;
                act[base + 0u] = vec4<f16>(p1a1_0[0], p1a1_0[1], p1a1_0[2], p1a1_0[3]);
                act[base + 1u] = vec4<f16>(p1a1_1[0], p1a1_1[1], p1a1_1[2], p1a1_1[3]);
                act[base + 2u] = vec4<f16>(p1a1_2[0], p1a1_2[1], p1a1_2[2], p1a1_2[3]);
                act[base + 3u] = vec4<f16>(p1a1_3[0], p1a1_3[1], p1a1_3[2], p1a1_3[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            // Half lane % 2 of row lane / 2 of gate: words 0, 1 of the registers.
            let base = own + (lane / 2u) * LDQ + (lane % 2u) * 8u;
            let sc0 = vec2<f16>(p1s0_0, p1s0_0);
            let v0 = p1w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc0;
            let d0_1 = (vec2<f16>(unpack2x16float((v0 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d0_2 = (vec2<f16>(unpack2x16float((v0 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d0_3 = (vec2<f16>(unpack2x16float((v0 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            let d0_4 = (vec2<f16>(unpack2x16float((v0 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc0;
            let d0_5 = (vec2<f16>(unpack2x16float((vs0 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d0_6 = (vec2<f16>(unpack2x16float((vs0 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d0_7 = (vec2<f16>(unpack2x16float((vs0 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            let v1 = p1w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc0;
            let d1_1 = (vec2<f16>(unpack2x16float((v1 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d1_2 = (vec2<f16>(unpack2x16float((v1 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d1_3 = (vec2<f16>(unpack2x16float((v1 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            let d1_4 = (vec2<f16>(unpack2x16float((v1 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc0;
            let d1_5 = (vec2<f16>(unpack2x16float((vs1 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d1_6 = (vec2<f16>(unpack2x16float((vs1 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d1_7 = (vec2<f16>(unpack2x16float((vs1 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d0_2, d0_3);
            slab[base + 2u] = vec4<f16>(d0_4, d0_5);
            slab[base + 3u] = vec4<f16>(d0_6, d0_7);
            slab[base + 4u] = vec4<f16>(d1_0, d1_1);
            slab[base + 5u] = vec4<f16>(d1_2, d1_3);
            slab[base + 6u] = vec4<f16>(d1_4, d1_5);
            slab[base + 7u] = vec4<f16>(d1_6, d1_7);
        }

        workgroupBarrier();
        let w0_0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
        let x0_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 0u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_0, x0_0, acc_g0);
        let x0_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 0u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_0, x0_1, acc_g1);
        let x0_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 0u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_0, x0_2, acc_g2);
        let x0_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 0u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_0, x0_3, acc_g3);
        let w0_1 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
        let x1_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 4u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_1, x1_0, acc_g0);
        let x1_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 4u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_1, x1_1, acc_g1);
        let x1_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 4u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_1, x1_2, acc_g2);
        let x1_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 4u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_1, x1_3, acc_g3);
        let w0_2 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
        let x2_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 8u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_2, x2_0, acc_g0);
        let x2_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 8u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_2, x2_1, acc_g1);
        let x2_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 8u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_2, x2_2, acc_g2);
        let x2_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 8u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_2, x2_3, acc_g3);
        let w0_3 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
        let x3_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 12u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_3, x3_0, acc_g0);
        let x3_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 12u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_3, x3_1, acc_g1);
        let x3_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 12u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_3, x3_2, acc_g2);
        let x3_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 12u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_3, x3_3, acc_g3);

        subgroupBarrier();
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            // Half lane % 2 of row lane / 2 of up: words 2, 3 of the registers.
            let base = own + (lane / 2u) * LDQ + (lane % 2u) * 8u;
            let sc0 = vec2<f16>(p1s0_1, p1s0_1);
            let v0 = p1w0[2];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc0;
            let d0_1 = (vec2<f16>(unpack2x16float((v0 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d0_2 = (vec2<f16>(unpack2x16float((v0 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d0_3 = (vec2<f16>(unpack2x16float((v0 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            let d0_4 = (vec2<f16>(unpack2x16float((v0 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc0;
            let d0_5 = (vec2<f16>(unpack2x16float((vs0 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d0_6 = (vec2<f16>(unpack2x16float((vs0 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d0_7 = (vec2<f16>(unpack2x16float((vs0 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            let v1 = p1w0[3];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 196611u) | magic)) - vec2<f16>(1026.0h)) * sc0;
            let d1_1 = (vec2<f16>(unpack2x16float((v1 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d1_2 = (vec2<f16>(unpack2x16float((v1 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d1_3 = (vec2<f16>(unpack2x16float((v1 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            let d1_4 = (vec2<f16>(unpack2x16float((v1 & 50332416u) | (magic - 536879104u))) - vec2<f16>(6.0h)) * sc0;
            let d1_5 = (vec2<f16>(unpack2x16float((vs1 & 786444u) | (magic - 134219776u))) - vec2<f16>(258.0h)) * sc0;
            let d1_6 = (vec2<f16>(unpack2x16float((vs1 & 3145776u) | (magic - 268439552u))) - vec2<f16>(66.0h)) * sc0;
            let d1_7 = (vec2<f16>(unpack2x16float((vs1 & 12583104u) | (magic - 402659328u))) - vec2<f16>(18.0h)) * sc0;
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d0_2, d0_3);
            slab[base + 2u] = vec4<f16>(d0_4, d0_5);
            slab[base + 3u] = vec4<f16>(d0_6, d0_7);
            slab[base + 4u] = vec4<f16>(d1_0, d1_1);
            slab[base + 5u] = vec4<f16>(d1_2, d1_3);
            slab[base + 6u] = vec4<f16>(d1_4, d1_5);
            slab[base + 7u] = vec4<f16>(d1_6, d1_7);
        }

        subgroupBarrier();
        let w1_0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
        acc_u0 = coopMultiplyAdd(w1_0, x0_0, acc_u0);
        acc_u1 = coopMultiplyAdd(w1_0, x0_1, acc_u1);
        acc_u2 = coopMultiplyAdd(w1_0, x0_2, acc_u2);
        acc_u3 = coopMultiplyAdd(w1_0, x0_3, acc_u3);
        let w1_1 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
        acc_u0 = coopMultiplyAdd(w1_1, x1_0, acc_u0);
        acc_u1 = coopMultiplyAdd(w1_1, x1_1, acc_u1);
        acc_u2 = coopMultiplyAdd(w1_1, x1_2, acc_u2);
        acc_u3 = coopMultiplyAdd(w1_1, x1_3, acc_u3);
        let w1_2 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
        acc_u0 = coopMultiplyAdd(w1_2, x2_0, acc_u0);
        acc_u1 = coopMultiplyAdd(w1_2, x2_1, acc_u1);
        acc_u2 = coopMultiplyAdd(w1_2, x2_2, acc_u2);
        acc_u3 = coopMultiplyAdd(w1_2, x2_3, acc_u3);
        let w1_3 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
        acc_u0 = coopMultiplyAdd(w1_3, x3_0, acc_u0);
        acc_u1 = coopMultiplyAdd(w1_3, x3_1, acc_u1);
        acc_u2 = coopMultiplyAdd(w1_3, x3_2, acc_u2);
        acc_u3 = coopMultiplyAdd(w1_3, x3_3, acc_u3);

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
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 2u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 4u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 6u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 8u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 10u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 12u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 14u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = cscr[scr + 56u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
    }
    {
        workgroupBarrier();
        coopStore(acc_g1, &cscr[scr], 4u);
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
        coopStore(acc_u1, &cscr[scr], 4u);
        workgroupBarrier();
        let n = n0 + lane % 16u;
        {
            let row = m0 + 16u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g0;
                var u = cscr[scr + 0u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 18u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 20u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 22u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 24u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 26u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 28u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 30u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = cscr[scr + 56u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
    }
    {
        workgroupBarrier();
        coopStore(acc_g2, &cscr[scr], 4u);
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
        coopStore(acc_u2, &cscr[scr], 4u);
        workgroupBarrier();
        let n = n0 + lane % 16u;
        {
            let row = m0 + 32u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g0;
                var u = cscr[scr + 0u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 34u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 36u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 38u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 40u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 42u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 44u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 46u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = cscr[scr + 56u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
    }
    {
        workgroupBarrier();
        coopStore(acc_g3, &cscr[scr], 4u);
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
        coopStore(acc_u3, &cscr[scr], 4u);
        workgroupBarrier();
        let n = n0 + lane % 16u;
        {
            let row = m0 + 48u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g0;
                var u = cscr[scr + 0u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 50u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 52u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 54u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 56u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 58u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 60u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 62u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = cscr[scr + 56u + lane / 4u][lane % 4u];
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
    }
}
