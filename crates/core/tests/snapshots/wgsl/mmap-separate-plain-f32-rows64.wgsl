// snapshot mmap-separate-plain-f32-rows64: variant mmap_split_nogb_noub, float32 K 4096 N 14336 rows 64 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `main`: mlp-mma.wgsl.jinja, dispatch [1, 128, 2], workgroup size [224, 1, 1] ====
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
const TM: u32 = 64u;                  // rows of the tile
const LDQ: u32 = 18u;                // row stride of slab and tile, in 4-half quads
const SLAB: u32 = 288u;          // quads per subgroup slab (16 rows)
const NT: u32 = 896u;      // prepared layout: stripes of 16 weight rows
const KC: u32 = 64u;  // tiles of 64 codes per stripe

// Per subgroup: the chunk's 16 gate rows, then (in turns) its 16 up rows, of 64 halves (+ padding).
var<workgroup> slab: array<vec4<f16>, 2016>;
// The activation chunk, f16 [row][k] in the slab's code order.
var<workgroup> act: array<vec4<f16>, 1152>;
// The activations' low parts (times 2^11), in the tile's layout; the weight fragments times
// 2^-11 (RLOH) meet them, so hi and lo products add into one accumulator.
var<workgroup> act_lo: array<vec4<f16>, 1152>;
const LO: f32 = 2048.0;
const RLOH: f16 = f16(0.00048828125);      // 2^-11: code - zero times it is exact in f16

// v with its mantissa cut to f16's 10 bits: exact in f16 (normal range), v - hi exact in f32.
fn hi4(v: vec4<f32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(bitcast<vec4<u32>>(v) & vec4<u32>(0xFFFFE000u));
}
// Per subgroup: one 16 x 16 f32 block (column-major, 16 floats per column).
var<workgroup> cscr: array<vec4<f32>, 448>;

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}
@compute @workgroup_size(224)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let sg = t / 32u;          // subgroup: columns n0 .. n0 + 15 of gate and of up
    let lane = t % 32u;
    // The float32 form's flush reads the subgroup's scratch row-major (coopStoreT: 16 floats per
    // column of the tile): this lane's column (fc), its half of the tile's 16 rows (fh) and which
    // of its two 16-byte reads comes first (fv), so that the 8 lanes of each quarter subgroup
    // meet 8 different bank groups (4 * (fc % 2) + 2 * fh + vector).
    let fc = 4u * (lane / 8u) + 2u * ((lane / 4u) % 2u) + lane % 2u;
    let fh = (lane / 2u) % 2u;
    let fv = (lane / 4u) % 2u;
    let mz = wid.z % 2u;       // gate and up apart: this workgroup's matrix (0 gate, 1 up)
    let sl = wid.z / 2u;       // and its slice of K
    let m0 = wid.x * TM;
    let n0 = wid.y * 112u + sg * 16u;
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
    let czero = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    // The float32 form's totals: element i of each 16 x 16 block (as the epilogue reads it).
    var tg0_0 = 0.0;
    var tu0_0 = 0.0;
    var tg0_1 = 0.0;
    var tu0_1 = 0.0;
    var tg0_2 = 0.0;
    var tu0_2 = 0.0;
    var tg0_3 = 0.0;
    var tu0_3 = 0.0;
    var tg0_4 = 0.0;
    var tu0_4 = 0.0;
    var tg0_5 = 0.0;
    var tu0_5 = 0.0;
    var tg0_6 = 0.0;
    var tu0_6 = 0.0;
    var tg0_7 = 0.0;
    var tu0_7 = 0.0;
    var tg1_0 = 0.0;
    var tu1_0 = 0.0;
    var tg1_1 = 0.0;
    var tu1_1 = 0.0;
    var tg1_2 = 0.0;
    var tu1_2 = 0.0;
    var tg1_3 = 0.0;
    var tu1_3 = 0.0;
    var tg1_4 = 0.0;
    var tu1_4 = 0.0;
    var tg1_5 = 0.0;
    var tu1_5 = 0.0;
    var tg1_6 = 0.0;
    var tu1_6 = 0.0;
    var tg1_7 = 0.0;
    var tu1_7 = 0.0;
    var tg2_0 = 0.0;
    var tu2_0 = 0.0;
    var tg2_1 = 0.0;
    var tu2_1 = 0.0;
    var tg2_2 = 0.0;
    var tu2_2 = 0.0;
    var tg2_3 = 0.0;
    var tu2_3 = 0.0;
    var tg2_4 = 0.0;
    var tu2_4 = 0.0;
    var tg2_5 = 0.0;
    var tu2_5 = 0.0;
    var tg2_6 = 0.0;
    var tu2_6 = 0.0;
    var tg2_7 = 0.0;
    var tu2_7 = 0.0;
    var tg3_0 = 0.0;
    var tu3_0 = 0.0;
    var tg3_1 = 0.0;
    var tu3_1 = 0.0;
    var tg3_2 = 0.0;
    var tu3_2 = 0.0;
    var tg3_3 = 0.0;
    var tu3_3 = 0.0;
    var tg3_4 = 0.0;
    var tu3_4 = 0.0;
    var tg3_5 = 0.0;
    var tu3_5 = 0.0;
    var tg3_6 = 0.0;
    var tu3_6 = 0.0;
    var tg3_7 = 0.0;
    var tu3_7 = 0.0;

    // The chunks in flight, as loaded: FG chunks of 64 codes per request (prefixes p0, p1, ...):
    // weight segments, their scales, activation groups.
    var p0w0: vec4<u32>;
    var p0w1: vec4<u32>;
    var p0a0_0: vec4<f32>;
    var p0a0_1: vec4<f32>;
    var p0a1_0: vec4<f32>;
    var p0a1_1: vec4<f32>;
    var p0a2_0: vec4<f32>;
    var p0a2_1: vec4<f32>;
    var p0fg0: f32;
    var p0fu0: f32;
    var p0fg1: f32;
    var p0fu1: f32;
    var p1w0: vec4<u32>;
    var p1w1: vec4<u32>;
    var p1a0_0: vec4<f32>;
    var p1a0_1: vec4<f32>;
    var p1a1_0: vec4<f32>;
    var p1a1_1: vec4<f32>;
    var p1a2_0: vec4<f32>;
    var p1a2_1: vec4<f32>;
    var p1fg0: f32;
    var p1fu0: f32;
    var p1fg1: f32;
    var p1fu1: f32;
    let kbeg = 0u;
    let kend = K;
    // FG consecutive chunks requested together (each lane's 16-byte pieces of a row for FG
    // chunks back to back: longer runs of one weight row per request), then staged and
    // multiplied one by one. A chunk at or past kend has zero activations (the fetch's guard)
    // and adds nothing, so the cooperative operations need no branch around them.
    for (var k0 = kbeg; k0 < kend; k0 = k0 + 128u) {
        {
            // Prepared layout, gate and up apart: this subgroup's tile of 16 rows x 64 codes of
            // the workgroup's matrix (gate for mz 0, up for mz 1), in gate's registers.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 0u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let vi = tile * 32u + f;
                if (mz == 0u) {
                    p0w0 = gate_b[vi];
                } else {
                    p0w0 = up_b[vi];
                }
            }
            // The float32 form's scales: this lane's column of the epilogue (fc), one
            // per unit of FU codes, this workgroup's matrix's (gate and up apart).
            let fsi = tile * 32u + fc * 2u;
            if (mz == 0u) {
                p0fg0 = gate_scales[fsi + 0u];
            } else {
                p0fg0 = up_scales[fsi + 0u];
            }
            if (mz == 0u) {
                p0fg1 = gate_scales[fsi + 1u];
            } else {
                p0fg1 = up_scales[fsi + 1u];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 0u + (gi % 8u) * 8u;
            p0a0_0 = vec4<f32>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p0a0_0 = a[(row * K + k + 0u) / 4u];
            }
            p0a0_1 = vec4<f32>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p0a0_1 = a[(row * K + k + 4u) / 4u];
            }
        }
        {
            let gi = t + 224u;
            let row = m0 + gi / 8u;
            let k = k0 + 0u + (gi % 8u) * 8u;
            p0a1_0 = vec4<f32>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p0a1_0 = a[(row * K + k + 0u) / 4u];
            }
            p0a1_1 = vec4<f32>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p0a1_1 = a[(row * K + k + 4u) / 4u];
            }
        }
        {
            let gi = t + 448u;
            let row = m0 + gi / 8u;
            let k = k0 + 0u + (gi % 8u) * 8u;
            p0a2_0 = vec4<f32>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p0a2_0 = a[(row * K + k + 0u) / 4u];
            }
            p0a2_1 = vec4<f32>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p0a2_1 = a[(row * K + k + 4u) / 4u];
            }
        }

        {
            // Prepared layout, gate and up apart: this subgroup's tile of 16 rows x 64 codes of
            // the workgroup's matrix (gate for mz 0, up for mz 1), in gate's registers.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 64u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let vi = tile * 32u + f;
                if (mz == 0u) {
                    p1w0 = gate_b[vi];
                } else {
                    p1w0 = up_b[vi];
                }
            }
            // The float32 form's scales: this lane's column of the epilogue (fc), one
            // per unit of FU codes, this workgroup's matrix's (gate and up apart).
            let fsi = tile * 32u + fc * 2u;
            if (mz == 0u) {
                p1fg0 = gate_scales[fsi + 0u];
            } else {
                p1fg0 = up_scales[fsi + 0u];
            }
            if (mz == 0u) {
                p1fg1 = gate_scales[fsi + 1u];
            } else {
                p1fg1 = up_scales[fsi + 1u];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 64u + (gi % 8u) * 8u;
            p1a0_0 = vec4<f32>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p1a0_0 = a[(row * K + k + 0u) / 4u];
            }
            p1a0_1 = vec4<f32>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p1a0_1 = a[(row * K + k + 4u) / 4u];
            }
        }
        {
            let gi = t + 224u;
            let row = m0 + gi / 8u;
            let k = k0 + 64u + (gi % 8u) * 8u;
            p1a1_0 = vec4<f32>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p1a1_0 = a[(row * K + k + 0u) / 4u];
            }
            p1a1_1 = vec4<f32>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p1a1_1 = a[(row * K + k + 4u) / 4u];
            }
        }
        {
            let gi = t + 448u;
            let row = m0 + gi / 8u;
            let k = k0 + 64u + (gi % 8u) * 8u;
            p1a2_0 = vec4<f32>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p1a2_0 = a[(row * K + k + 0u) / 4u];
            }
            p1a2_1 = vec4<f32>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p1a2_1 = a[(row * K + k + 4u) / 4u];
            }
        }

        {
        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 512u) {
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
        {
            let gi = t + 224u;
            if (gi < 512u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                let h0 = hi4(p0a1_0);
                let hh0 = vec4<f16>(h0);
                let hl0 = vec4<f16>((p0a1_0 - h0) * LO);
                let h1 = hi4(p0a1_1);
                let hh1 = vec4<f16>(h1);
                let hl1 = vec4<f16>((p0a1_1 - h1) * LO);
                act[base + 0u] = vec4<f16>(hh0[0], hh0[1], hh0[2], hh0[3]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl0[1], hl0[2], hl0[3]);
                act[base + 1u] = vec4<f16>(hh1[0], hh1[1], hh1[2], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl1[0], hl1[1], hl1[2], hl1[3]);
            }
        }
        {
            let gi = t + 448u;
            if (gi < 512u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                let h0 = hi4(p0a2_0);
                let hh0 = vec4<f16>(h0);
                let hl0 = vec4<f16>((p0a2_0 - h0) * LO);
                let h1 = hi4(p0a2_1);
                let hh1 = vec4<f16>(h1);
                let hl1 = vec4<f16>((p0a2_1 - h1) * LO);
                act[base + 0u] = vec4<f16>(hh0[0], hh0[1], hh0[2], hh0[3]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl0[1], hl0[2], hl0[3]);
                act[base + 1u] = vec4<f16>(hh1[0], hh1[1], hh1[2], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl1[0], hl1[1], hl1[2], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + ((f / 2u) % 16u) * LDQ + (f % 2u) * 8u;
            let v0 = p0w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((v0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let d0_2 = (vec2<f16>(unpack2x16float((vs0 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d0_3 = (vec2<f16>(unpack2x16float((vs0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let v1 = p0w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((v1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let d1_2 = (vec2<f16>(unpack2x16float((vs1 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d1_3 = (vec2<f16>(unpack2x16float((vs1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let v2 = p0w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((v2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let d2_2 = (vec2<f16>(unpack2x16float((vs2 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d2_3 = (vec2<f16>(unpack2x16float((vs2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let v3 = p0w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((v3 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let d3_2 = (vec2<f16>(unpack2x16float((vs3 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d3_3 = (vec2<f16>(unpack2x16float((vs3 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d0_2, d0_3);
            slab[base + 2u] = vec4<f16>(d1_0, d1_1);
            slab[base + 3u] = vec4<f16>(d1_2, d1_3);
            slab[base + 4u] = vec4<f16>(d2_0, d2_1);
            slab[base + 5u] = vec4<f16>(d2_2, d2_3);
            slab[base + 6u] = vec4<f16>(d3_0, d3_1);
            slab[base + 7u] = vec4<f16>(d3_2, d3_3);
        }

        workgroupBarrier();
        let w0_0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
        let wl0_0 = w0_0 * RLOH;
        let x0_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 0u], LDQ);
        let xl0_0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 0u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_0, x0_0, czero);
        acc_g0 = coopMultiplyAdd(wl0_0, xl0_0, acc_g0);
        let x0_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 0u], LDQ);
        let xl0_1 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[16u * LDQ + 0u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_0, x0_1, czero);
        acc_g1 = coopMultiplyAdd(wl0_0, xl0_1, acc_g1);
        let x0_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 0u], LDQ);
        let xl0_2 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[32u * LDQ + 0u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_0, x0_2, czero);
        acc_g2 = coopMultiplyAdd(wl0_0, xl0_2, acc_g2);
        let x0_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 0u], LDQ);
        let xl0_3 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[48u * LDQ + 0u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_0, x0_3, czero);
        acc_g3 = coopMultiplyAdd(wl0_0, xl0_3, acc_g3);
        let w0_1 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
        let wl0_1 = w0_1 * RLOH;
        let x1_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 4u], LDQ);
        let xl1_0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 4u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_1, x1_0, acc_g0);
        acc_g0 = coopMultiplyAdd(wl0_1, xl1_0, acc_g0);
        let x1_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 4u], LDQ);
        let xl1_1 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[16u * LDQ + 4u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_1, x1_1, acc_g1);
        acc_g1 = coopMultiplyAdd(wl0_1, xl1_1, acc_g1);
        let x1_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 4u], LDQ);
        let xl1_2 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[32u * LDQ + 4u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_1, x1_2, acc_g2);
        acc_g2 = coopMultiplyAdd(wl0_1, xl1_2, acc_g2);
        let x1_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 4u], LDQ);
        let xl1_3 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[48u * LDQ + 4u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_1, x1_3, acc_g3);
        acc_g3 = coopMultiplyAdd(wl0_1, xl1_3, acc_g3);
        // Unit 0 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStoreT(acc_g0, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg0_0 = fma(p0fg0, fv0[0], tg0_0);
            tg0_1 = fma(p0fg0, fv0[1], tg0_1);
            tg0_2 = fma(p0fg0, fv0[2], tg0_2);
            tg0_3 = fma(p0fg0, fv0[3], tg0_3);
            tg0_4 = fma(p0fg0, fv1[0], tg0_4);
            tg0_5 = fma(p0fg0, fv1[1], tg0_5);
            tg0_6 = fma(p0fg0, fv1[2], tg0_6);
            tg0_7 = fma(p0fg0, fv1[3], tg0_7);
        }
        subgroupBarrier();
        coopStoreT(acc_g1, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg1_0 = fma(p0fg0, fv0[0], tg1_0);
            tg1_1 = fma(p0fg0, fv0[1], tg1_1);
            tg1_2 = fma(p0fg0, fv0[2], tg1_2);
            tg1_3 = fma(p0fg0, fv0[3], tg1_3);
            tg1_4 = fma(p0fg0, fv1[0], tg1_4);
            tg1_5 = fma(p0fg0, fv1[1], tg1_5);
            tg1_6 = fma(p0fg0, fv1[2], tg1_6);
            tg1_7 = fma(p0fg0, fv1[3], tg1_7);
        }
        subgroupBarrier();
        coopStoreT(acc_g2, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg2_0 = fma(p0fg0, fv0[0], tg2_0);
            tg2_1 = fma(p0fg0, fv0[1], tg2_1);
            tg2_2 = fma(p0fg0, fv0[2], tg2_2);
            tg2_3 = fma(p0fg0, fv0[3], tg2_3);
            tg2_4 = fma(p0fg0, fv1[0], tg2_4);
            tg2_5 = fma(p0fg0, fv1[1], tg2_5);
            tg2_6 = fma(p0fg0, fv1[2], tg2_6);
            tg2_7 = fma(p0fg0, fv1[3], tg2_7);
        }
        subgroupBarrier();
        coopStoreT(acc_g3, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg3_0 = fma(p0fg0, fv0[0], tg3_0);
            tg3_1 = fma(p0fg0, fv0[1], tg3_1);
            tg3_2 = fma(p0fg0, fv0[2], tg3_2);
            tg3_3 = fma(p0fg0, fv0[3], tg3_3);
            tg3_4 = fma(p0fg0, fv1[0], tg3_4);
            tg3_5 = fma(p0fg0, fv1[1], tg3_5);
            tg3_6 = fma(p0fg0, fv1[2], tg3_6);
            tg3_7 = fma(p0fg0, fv1[3], tg3_7);
        }
        let w0_2 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
        let wl0_2 = w0_2 * RLOH;
        let x2_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 8u], LDQ);
        let xl2_0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 8u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_2, x2_0, czero);
        acc_g0 = coopMultiplyAdd(wl0_2, xl2_0, acc_g0);
        let x2_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 8u], LDQ);
        let xl2_1 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[16u * LDQ + 8u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_2, x2_1, czero);
        acc_g1 = coopMultiplyAdd(wl0_2, xl2_1, acc_g1);
        let x2_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 8u], LDQ);
        let xl2_2 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[32u * LDQ + 8u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_2, x2_2, czero);
        acc_g2 = coopMultiplyAdd(wl0_2, xl2_2, acc_g2);
        let x2_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 8u], LDQ);
        let xl2_3 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[48u * LDQ + 8u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_2, x2_3, czero);
        acc_g3 = coopMultiplyAdd(wl0_2, xl2_3, acc_g3);
        let w0_3 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
        let wl0_3 = w0_3 * RLOH;
        let x3_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 12u], LDQ);
        let xl3_0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 12u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_3, x3_0, acc_g0);
        acc_g0 = coopMultiplyAdd(wl0_3, xl3_0, acc_g0);
        let x3_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 12u], LDQ);
        let xl3_1 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[16u * LDQ + 12u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_3, x3_1, acc_g1);
        acc_g1 = coopMultiplyAdd(wl0_3, xl3_1, acc_g1);
        let x3_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 12u], LDQ);
        let xl3_2 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[32u * LDQ + 12u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_3, x3_2, acc_g2);
        acc_g2 = coopMultiplyAdd(wl0_3, xl3_2, acc_g2);
        let x3_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 12u], LDQ);
        let xl3_3 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[48u * LDQ + 12u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_3, x3_3, acc_g3);
        acc_g3 = coopMultiplyAdd(wl0_3, xl3_3, acc_g3);
        // Unit 1 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStoreT(acc_g0, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg0_0 = fma(p0fg1, fv0[0], tg0_0);
            tg0_1 = fma(p0fg1, fv0[1], tg0_1);
            tg0_2 = fma(p0fg1, fv0[2], tg0_2);
            tg0_3 = fma(p0fg1, fv0[3], tg0_3);
            tg0_4 = fma(p0fg1, fv1[0], tg0_4);
            tg0_5 = fma(p0fg1, fv1[1], tg0_5);
            tg0_6 = fma(p0fg1, fv1[2], tg0_6);
            tg0_7 = fma(p0fg1, fv1[3], tg0_7);
        }
        subgroupBarrier();
        coopStoreT(acc_g1, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg1_0 = fma(p0fg1, fv0[0], tg1_0);
            tg1_1 = fma(p0fg1, fv0[1], tg1_1);
            tg1_2 = fma(p0fg1, fv0[2], tg1_2);
            tg1_3 = fma(p0fg1, fv0[3], tg1_3);
            tg1_4 = fma(p0fg1, fv1[0], tg1_4);
            tg1_5 = fma(p0fg1, fv1[1], tg1_5);
            tg1_6 = fma(p0fg1, fv1[2], tg1_6);
            tg1_7 = fma(p0fg1, fv1[3], tg1_7);
        }
        subgroupBarrier();
        coopStoreT(acc_g2, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg2_0 = fma(p0fg1, fv0[0], tg2_0);
            tg2_1 = fma(p0fg1, fv0[1], tg2_1);
            tg2_2 = fma(p0fg1, fv0[2], tg2_2);
            tg2_3 = fma(p0fg1, fv0[3], tg2_3);
            tg2_4 = fma(p0fg1, fv1[0], tg2_4);
            tg2_5 = fma(p0fg1, fv1[1], tg2_5);
            tg2_6 = fma(p0fg1, fv1[2], tg2_6);
            tg2_7 = fma(p0fg1, fv1[3], tg2_7);
        }
        subgroupBarrier();
        coopStoreT(acc_g3, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg3_0 = fma(p0fg1, fv0[0], tg3_0);
            tg3_1 = fma(p0fg1, fv0[1], tg3_1);
            tg3_2 = fma(p0fg1, fv0[2], tg3_2);
            tg3_3 = fma(p0fg1, fv0[3], tg3_3);
            tg3_4 = fma(p0fg1, fv1[0], tg3_4);
            tg3_5 = fma(p0fg1, fv1[1], tg3_5);
            tg3_6 = fma(p0fg1, fv1[2], tg3_6);
            tg3_7 = fma(p0fg1, fv1[3], tg3_7);
        }

        }
        {
        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 512u) {
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
        {
            let gi = t + 224u;
            if (gi < 512u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                let h0 = hi4(p1a1_0);
                let hh0 = vec4<f16>(h0);
                let hl0 = vec4<f16>((p1a1_0 - h0) * LO);
                let h1 = hi4(p1a1_1);
                let hh1 = vec4<f16>(h1);
                let hl1 = vec4<f16>((p1a1_1 - h1) * LO);
                act[base + 0u] = vec4<f16>(hh0[0], hh0[1], hh0[2], hh0[3]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl0[1], hl0[2], hl0[3]);
                act[base + 1u] = vec4<f16>(hh1[0], hh1[1], hh1[2], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl1[0], hl1[1], hl1[2], hl1[3]);
            }
        }
        {
            let gi = t + 448u;
            if (gi < 512u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                let h0 = hi4(p1a2_0);
                let hh0 = vec4<f16>(h0);
                let hl0 = vec4<f16>((p1a2_0 - h0) * LO);
                let h1 = hi4(p1a2_1);
                let hh1 = vec4<f16>(h1);
                let hl1 = vec4<f16>((p1a2_1 - h1) * LO);
                act[base + 0u] = vec4<f16>(hh0[0], hh0[1], hh0[2], hh0[3]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl0[1], hl0[2], hl0[3]);
                act[base + 1u] = vec4<f16>(hh1[0], hh1[1], hh1[2], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl1[0], hl1[1], hl1[2], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + ((f / 2u) % 16u) * LDQ + (f % 2u) * 8u;
            let v0 = p1w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((v0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let d0_2 = (vec2<f16>(unpack2x16float((vs0 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d0_3 = (vec2<f16>(unpack2x16float((vs0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let v1 = p1w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((v1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let d1_2 = (vec2<f16>(unpack2x16float((vs1 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d1_3 = (vec2<f16>(unpack2x16float((vs1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let v2 = p1w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((v2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let d2_2 = (vec2<f16>(unpack2x16float((vs2 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d2_3 = (vec2<f16>(unpack2x16float((vs2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let v3 = p1w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((v3 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let d3_2 = (vec2<f16>(unpack2x16float((vs3 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d3_3 = (vec2<f16>(unpack2x16float((vs3 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d0_2, d0_3);
            slab[base + 2u] = vec4<f16>(d1_0, d1_1);
            slab[base + 3u] = vec4<f16>(d1_2, d1_3);
            slab[base + 4u] = vec4<f16>(d2_0, d2_1);
            slab[base + 5u] = vec4<f16>(d2_2, d2_3);
            slab[base + 6u] = vec4<f16>(d3_0, d3_1);
            slab[base + 7u] = vec4<f16>(d3_2, d3_3);
        }

        workgroupBarrier();
        let w0_0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
        let wl0_0 = w0_0 * RLOH;
        let x0_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 0u], LDQ);
        let xl0_0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 0u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_0, x0_0, czero);
        acc_g0 = coopMultiplyAdd(wl0_0, xl0_0, acc_g0);
        let x0_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 0u], LDQ);
        let xl0_1 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[16u * LDQ + 0u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_0, x0_1, czero);
        acc_g1 = coopMultiplyAdd(wl0_0, xl0_1, acc_g1);
        let x0_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 0u], LDQ);
        let xl0_2 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[32u * LDQ + 0u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_0, x0_2, czero);
        acc_g2 = coopMultiplyAdd(wl0_0, xl0_2, acc_g2);
        let x0_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 0u], LDQ);
        let xl0_3 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[48u * LDQ + 0u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_0, x0_3, czero);
        acc_g3 = coopMultiplyAdd(wl0_0, xl0_3, acc_g3);
        let w0_1 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
        let wl0_1 = w0_1 * RLOH;
        let x1_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 4u], LDQ);
        let xl1_0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 4u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_1, x1_0, acc_g0);
        acc_g0 = coopMultiplyAdd(wl0_1, xl1_0, acc_g0);
        let x1_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 4u], LDQ);
        let xl1_1 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[16u * LDQ + 4u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_1, x1_1, acc_g1);
        acc_g1 = coopMultiplyAdd(wl0_1, xl1_1, acc_g1);
        let x1_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 4u], LDQ);
        let xl1_2 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[32u * LDQ + 4u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_1, x1_2, acc_g2);
        acc_g2 = coopMultiplyAdd(wl0_1, xl1_2, acc_g2);
        let x1_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 4u], LDQ);
        let xl1_3 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[48u * LDQ + 4u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_1, x1_3, acc_g3);
        acc_g3 = coopMultiplyAdd(wl0_1, xl1_3, acc_g3);
        // Unit 0 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStoreT(acc_g0, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg0_0 = fma(p1fg0, fv0[0], tg0_0);
            tg0_1 = fma(p1fg0, fv0[1], tg0_1);
            tg0_2 = fma(p1fg0, fv0[2], tg0_2);
            tg0_3 = fma(p1fg0, fv0[3], tg0_3);
            tg0_4 = fma(p1fg0, fv1[0], tg0_4);
            tg0_5 = fma(p1fg0, fv1[1], tg0_5);
            tg0_6 = fma(p1fg0, fv1[2], tg0_6);
            tg0_7 = fma(p1fg0, fv1[3], tg0_7);
        }
        subgroupBarrier();
        coopStoreT(acc_g1, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg1_0 = fma(p1fg0, fv0[0], tg1_0);
            tg1_1 = fma(p1fg0, fv0[1], tg1_1);
            tg1_2 = fma(p1fg0, fv0[2], tg1_2);
            tg1_3 = fma(p1fg0, fv0[3], tg1_3);
            tg1_4 = fma(p1fg0, fv1[0], tg1_4);
            tg1_5 = fma(p1fg0, fv1[1], tg1_5);
            tg1_6 = fma(p1fg0, fv1[2], tg1_6);
            tg1_7 = fma(p1fg0, fv1[3], tg1_7);
        }
        subgroupBarrier();
        coopStoreT(acc_g2, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg2_0 = fma(p1fg0, fv0[0], tg2_0);
            tg2_1 = fma(p1fg0, fv0[1], tg2_1);
            tg2_2 = fma(p1fg0, fv0[2], tg2_2);
            tg2_3 = fma(p1fg0, fv0[3], tg2_3);
            tg2_4 = fma(p1fg0, fv1[0], tg2_4);
            tg2_5 = fma(p1fg0, fv1[1], tg2_5);
            tg2_6 = fma(p1fg0, fv1[2], tg2_6);
            tg2_7 = fma(p1fg0, fv1[3], tg2_7);
        }
        subgroupBarrier();
        coopStoreT(acc_g3, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg3_0 = fma(p1fg0, fv0[0], tg3_0);
            tg3_1 = fma(p1fg0, fv0[1], tg3_1);
            tg3_2 = fma(p1fg0, fv0[2], tg3_2);
            tg3_3 = fma(p1fg0, fv0[3], tg3_3);
            tg3_4 = fma(p1fg0, fv1[0], tg3_4);
            tg3_5 = fma(p1fg0, fv1[1], tg3_5);
            tg3_6 = fma(p1fg0, fv1[2], tg3_6);
            tg3_7 = fma(p1fg0, fv1[3], tg3_7);
        }
        let w0_2 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
        let wl0_2 = w0_2 * RLOH;
        let x2_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 8u], LDQ);
        let xl2_0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 8u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_2, x2_0, czero);
        acc_g0 = coopMultiplyAdd(wl0_2, xl2_0, acc_g0);
        let x2_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 8u], LDQ);
        let xl2_1 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[16u * LDQ + 8u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_2, x2_1, czero);
        acc_g1 = coopMultiplyAdd(wl0_2, xl2_1, acc_g1);
        let x2_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 8u], LDQ);
        let xl2_2 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[32u * LDQ + 8u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_2, x2_2, czero);
        acc_g2 = coopMultiplyAdd(wl0_2, xl2_2, acc_g2);
        let x2_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 8u], LDQ);
        let xl2_3 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[48u * LDQ + 8u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_2, x2_3, czero);
        acc_g3 = coopMultiplyAdd(wl0_2, xl2_3, acc_g3);
        let w0_3 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
        let wl0_3 = w0_3 * RLOH;
        let x3_0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 12u], LDQ);
        let xl3_0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 12u], LDQ);
        acc_g0 = coopMultiplyAdd(w0_3, x3_0, acc_g0);
        acc_g0 = coopMultiplyAdd(wl0_3, xl3_0, acc_g0);
        let x3_1 = coopLoad<coop_mat16x16<f16, B>>(&act[16u * LDQ + 12u], LDQ);
        let xl3_1 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[16u * LDQ + 12u], LDQ);
        acc_g1 = coopMultiplyAdd(w0_3, x3_1, acc_g1);
        acc_g1 = coopMultiplyAdd(wl0_3, xl3_1, acc_g1);
        let x3_2 = coopLoad<coop_mat16x16<f16, B>>(&act[32u * LDQ + 12u], LDQ);
        let xl3_2 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[32u * LDQ + 12u], LDQ);
        acc_g2 = coopMultiplyAdd(w0_3, x3_2, acc_g2);
        acc_g2 = coopMultiplyAdd(wl0_3, xl3_2, acc_g2);
        let x3_3 = coopLoad<coop_mat16x16<f16, B>>(&act[48u * LDQ + 12u], LDQ);
        let xl3_3 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[48u * LDQ + 12u], LDQ);
        acc_g3 = coopMultiplyAdd(w0_3, x3_3, acc_g3);
        acc_g3 = coopMultiplyAdd(wl0_3, xl3_3, acc_g3);
        // Unit 1 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStoreT(acc_g0, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg0_0 = fma(p1fg1, fv0[0], tg0_0);
            tg0_1 = fma(p1fg1, fv0[1], tg0_1);
            tg0_2 = fma(p1fg1, fv0[2], tg0_2);
            tg0_3 = fma(p1fg1, fv0[3], tg0_3);
            tg0_4 = fma(p1fg1, fv1[0], tg0_4);
            tg0_5 = fma(p1fg1, fv1[1], tg0_5);
            tg0_6 = fma(p1fg1, fv1[2], tg0_6);
            tg0_7 = fma(p1fg1, fv1[3], tg0_7);
        }
        subgroupBarrier();
        coopStoreT(acc_g1, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg1_0 = fma(p1fg1, fv0[0], tg1_0);
            tg1_1 = fma(p1fg1, fv0[1], tg1_1);
            tg1_2 = fma(p1fg1, fv0[2], tg1_2);
            tg1_3 = fma(p1fg1, fv0[3], tg1_3);
            tg1_4 = fma(p1fg1, fv1[0], tg1_4);
            tg1_5 = fma(p1fg1, fv1[1], tg1_5);
            tg1_6 = fma(p1fg1, fv1[2], tg1_6);
            tg1_7 = fma(p1fg1, fv1[3], tg1_7);
        }
        subgroupBarrier();
        coopStoreT(acc_g2, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg2_0 = fma(p1fg1, fv0[0], tg2_0);
            tg2_1 = fma(p1fg1, fv0[1], tg2_1);
            tg2_2 = fma(p1fg1, fv0[2], tg2_2);
            tg2_3 = fma(p1fg1, fv0[3], tg2_3);
            tg2_4 = fma(p1fg1, fv1[0], tg2_4);
            tg2_5 = fma(p1fg1, fv1[1], tg2_5);
            tg2_6 = fma(p1fg1, fv1[2], tg2_6);
            tg2_7 = fma(p1fg1, fv1[3], tg2_7);
        }
        subgroupBarrier();
        coopStoreT(acc_g3, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg3_0 = fma(p1fg1, fv0[0], tg3_0);
            tg3_1 = fma(p1fg1, fv0[1], tg3_1);
            tg3_2 = fma(p1fg1, fv0[2], tg3_2);
            tg3_3 = fma(p1fg1, fv0[3], tg3_3);
            tg3_4 = fma(p1fg1, fv1[0], tg3_4);
            tg3_5 = fma(p1fg1, fv1[1], tg3_5);
            tg3_6 = fma(p1fg1, fv1[2], tg3_6);
            tg3_7 = fma(p1fg1, fv1[3], tg3_7);
        }

        }
    }

    // Epilogue, one 16-row block at a time from the totals: element (n, m) of a block as the
    // scratch held it (float m * 16 + n). Lane e handles (n, m) = (e % 16, e / 16) for
    // e = lane + 32 i.
    {
        let g0 = tg0_0;
        let g1 = tg0_1;
        let g2 = tg0_2;
        let g3 = tg0_3;
        let g4 = tg0_4;
        let g5 = tg0_5;
        let g6 = tg0_6;
        let g7 = tg0_7;
        let n = n0 + fc;
        {
            let row = m0 + 0u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g0;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 1u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g1;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 2u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g2;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 3u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g3;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 0u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g4;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 1u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g5;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 2u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g6;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 3u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g7;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
    }
    {
        let g0 = tg1_0;
        let g1 = tg1_1;
        let g2 = tg1_2;
        let g3 = tg1_3;
        let g4 = tg1_4;
        let g5 = tg1_5;
        let g6 = tg1_6;
        let g7 = tg1_7;
        let n = n0 + fc;
        {
            let row = m0 + 16u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g0;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 17u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g1;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 18u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g2;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 19u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g3;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 16u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g4;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 17u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g5;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 18u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g6;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 19u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g7;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
    }
    {
        let g0 = tg2_0;
        let g1 = tg2_1;
        let g2 = tg2_2;
        let g3 = tg2_3;
        let g4 = tg2_4;
        let g5 = tg2_5;
        let g6 = tg2_6;
        let g7 = tg2_7;
        let n = n0 + fc;
        {
            let row = m0 + 32u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g0;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 33u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g1;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 34u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g2;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 35u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g3;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 32u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g4;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 33u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g5;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 34u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g6;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 35u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g7;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
    }
    {
        let g0 = tg3_0;
        let g1 = tg3_1;
        let g2 = tg3_2;
        let g3 = tg3_3;
        let g4 = tg3_4;
        let g5 = tg3_5;
        let g6 = tg3_6;
        let g7 = tg3_7;
        let n = n0 + fc;
        {
            let row = m0 + 48u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g0;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 49u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g1;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 50u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g2;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 51u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g3;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 48u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g4;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 49u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g5;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 50u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g6;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
            }
        }
        {
            let row = m0 + 51u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g7;
                partials[((sl * ROWS + row) * 2u + mz) * N + n] = g;
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
const SPLIT: u32 = 1u;

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