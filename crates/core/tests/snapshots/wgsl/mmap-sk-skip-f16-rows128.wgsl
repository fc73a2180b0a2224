// snapshot mmap-sk-skip-f16-rows128: variant mmap_sk_skip_gb_ub, float16 K 4096 N 14336 rows 128 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `norm`: matmul-nbits-fused-rms-norm.wgsl.jinja, dispatch [128, 1, 1], workgroup size [1024, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
struct Params {
    rows: u32,
};
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> skip: array<f16>;
@group(0) @binding(2) var<storage, read> norm_scale: array<f16>;
@group(0) @binding(3) var<storage, read_write> normed: array<f16>;
@group(0) @binding(4) var<uniform> params: Params;
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
    }
    ss = ss + s0 * s0;
    var s1 = 0.0;
    if (t + 1024u < K) {
        s1 = load_s(base + t + 1024u);
    }
    ss = ss + s1 * s1;
    var s2 = 0.0;
    if (t + 2048u < K) {
        s2 = load_s(base + t + 2048u);
    }
    ss = ss + s2 * s2;
    var s3 = 0.0;
    if (t + 3072u < K) {
        s3 = load_s(base + t + 3072u);
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
// ==== pass `main`: mlp-mma.wgsl.jinja, dispatch [2, 132, 1], workgroup size [128, 1, 1] ====
enable f16;
enable wgpu_cooperative_matrix;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> normed: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(3) var<storage, read> gate_bias: array<f16>;
@group(0) @binding(4) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read> up_scales: array<f16>;
@group(0) @binding(6) var<storage, read> up_bias: array<f16>;
@group(0) @binding(7) var<storage, read_write> y: array<f16>;
@group(0) @binding(8) var<storage, read_write> partials: array<f32>;
// ---- template ----
const K: u32 = 4096u;
const N: u32 = 14336u;
const KB: u32 = 128u;             // blocks (scales) per weight row
const RV: u32 = 128u;  // 16-byte vectors per weight row
const ROWS: u32 = 128u;
const TM: u32 = 64u;                  // rows of the tile
const LDQ: u32 = 18u;                // row stride of slab and tile, in 4-half quads
const SLAB: u32 = 288u;          // quads per subgroup slab (16 rows)
const CW: u32 = 64u;                  // columns (of gate and of up) per tile
const RT: u32 = 2u;         // row tiles
const KI: u32 = 32u;          // iterations (of FG chunks) per tile
const TOT: u32 = 7168u;  // iterations of every column range
const G: u32 = 132u;                   // groups (of RT workgroups) of the stream-K grid
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
    var p0w1: vec4<u32>;
    var p0s1_0: f16;
    var p0a0_0: vec4<f16>;
    var p0a0_1: vec4<f16>;
    var p0a1_0: vec4<f16>;
    var p0a1_1: vec4<f16>;
    var p0a2_0: vec4<f16>;
    var p0a2_1: vec4<f16>;
    var p0a3_0: vec4<f16>;
    var p0a3_1: vec4<f16>;
    var p1w0: vec4<u32>;
    var p1s0_0: f16;
    var p1w1: vec4<u32>;
    var p1s1_0: f16;
    var p1a0_0: vec4<f16>;
    var p1a0_1: vec4<f16>;
    var p1a1_0: vec4<f16>;
    var p1a1_1: vec4<f16>;
    var p1a2_0: vec4<f16>;
    var p1a2_1: vec4<f16>;
    var p1a3_0: vec4<f16>;
    var p1a3_1: vec4<f16>;
    let nl = sg * 16u + lane % 16u;  // this lane's column within the tile
    // This group's share of the iterations, segment by segment (one per column range it meets),
    // for this workgroup's row tile.
    let it_end = ((wid.y + 1u) * TOT) / G;
    var it = (wid.y * TOT) / G;
    loop {
    if (it >= it_end) {
        break;
    }
    let cr = it / KI;
    let c0 = it % KI;
    let c1 = min(KI, c0 + (it_end - it));
    let whole = c0 == 0u && c1 == KI;
    let n0 = cr * CW + sg * 16u;
    let kbeg = c0 * 128u;
    let kend = min(K, c1 * 128u);
    // A cut segment's sums go to boundary b's slot for this row tile: its head (from chunk 0)
    // ends this group's share (b = g + 1, part 0), its tail starts it (b = g, part 1).
    let slot = select(wid.y + 1u, wid.y, c0 > 0u) * RT + wid.x;
    let sbase = (slot * 2u + select(0u, 1u, c0 > 0u)) * 8192u;
    // Fresh accumulators once the previous segment's epilogue has read its scratch.
    workgroupBarrier();
    if (t < 64u) {
        cscr[t] = vec4<f32>(0.0);
    }
    workgroupBarrier();
    acc_g0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    acc_u0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    acc_g1 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    acc_u1 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    acc_g2 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    acc_u2 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    acc_g3 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    acc_u3 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
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
                let vi = tile * 32u + f % 32u;
                let si = tile * 32u + ((f / 2u) % 16u) * 2u;
                p0w0 = gate_b[vi];
                p0s0_0 = gate_scales[si + (sir * 32u + 0u) / 32u];
            }
            {
                let f = 32u + lane;
                let sir = f % 2u;
                let vi = tile * 32u + f % 32u;
                let si = tile * 32u + ((f / 2u) % 16u) * 2u;
                p0w1 = up_b[vi];
                p0s1_0 = up_scales[si + (sir * 32u + 0u) / 32u];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 0u + (gi % 8u) * 8u;
            p0a0_0 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p0a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            p0a0_1 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p0a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }
        {
            let gi = t + 128u;
            let row = m0 + gi / 8u;
            let k = k0 + 0u + (gi % 8u) * 8u;
            p0a1_0 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p0a1_0 = normed[(row * K + k + 0u) / 4u];
            }
            p0a1_1 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p0a1_1 = normed[(row * K + k + 4u) / 4u];
            }
        }
        {
            let gi = t + 256u;
            let row = m0 + gi / 8u;
            let k = k0 + 0u + (gi % 8u) * 8u;
            p0a2_0 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p0a2_0 = normed[(row * K + k + 0u) / 4u];
            }
            p0a2_1 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p0a2_1 = normed[(row * K + k + 4u) / 4u];
            }
        }
        {
            let gi = t + 384u;
            let row = m0 + gi / 8u;
            let k = k0 + 0u + (gi % 8u) * 8u;
            p0a3_0 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p0a3_0 = normed[(row * K + k + 0u) / 4u];
            }
            p0a3_1 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p0a3_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 64u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let sir = f % 2u;
                let vi = tile * 32u + f % 32u;
                let si = tile * 32u + ((f / 2u) % 16u) * 2u;
                p1w0 = gate_b[vi];
                p1s0_0 = gate_scales[si + (sir * 32u + 0u) / 32u];
            }
            {
                let f = 32u + lane;
                let sir = f % 2u;
                let vi = tile * 32u + f % 32u;
                let si = tile * 32u + ((f / 2u) % 16u) * 2u;
                p1w1 = up_b[vi];
                p1s1_0 = up_scales[si + (sir * 32u + 0u) / 32u];
            }
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 64u + (gi % 8u) * 8u;
            p1a0_0 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p1a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            p1a0_1 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p1a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }
        {
            let gi = t + 128u;
            let row = m0 + gi / 8u;
            let k = k0 + 64u + (gi % 8u) * 8u;
            p1a1_0 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p1a1_0 = normed[(row * K + k + 0u) / 4u];
            }
            p1a1_1 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p1a1_1 = normed[(row * K + k + 4u) / 4u];
            }
        }
        {
            let gi = t + 256u;
            let row = m0 + gi / 8u;
            let k = k0 + 64u + (gi % 8u) * 8u;
            p1a2_0 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p1a2_0 = normed[(row * K + k + 0u) / 4u];
            }
            p1a2_1 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p1a2_1 = normed[(row * K + k + 4u) / 4u];
            }
        }
        {
            let gi = t + 384u;
            let row = m0 + gi / 8u;
            let k = k0 + 64u + (gi % 8u) * 8u;
            p1a3_0 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 0u < kend) {
                p1a3_0 = normed[(row * K + k + 0u) / 4u];
            }
            p1a3_1 = vec4<f16>(0.0);
            if (gi < 512u && row < ROWS && k + 4u < kend) {
                p1a3_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

        {
        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 512u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                act[base + 0u] = vec4<f16>(p0a0_0[0], p0a0_0[1], p0a0_0[2], p0a0_0[3]);
                act[base + 1u] = vec4<f16>(p0a0_1[0], p0a0_1[1], p0a0_1[2], p0a0_1[3]);
            }
        }
        {
            let gi = t + 128u;
            if (gi < 512u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                act[base + 0u] = vec4<f16>(p0a1_0[0], p0a1_0[1], p0a1_0[2], p0a1_0[3]);
                act[base + 1u] = vec4<f16>(p0a1_1[0], p0a1_1[1], p0a1_1[2], p0a1_1[3]);
            }
        }
        {
            let gi = t + 256u;
            if (gi < 512u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                act[base + 0u] = vec4<f16>(p0a2_0[0], p0a2_0[1], p0a2_0[2], p0a2_0[3]);
                act[base + 1u] = vec4<f16>(p0a2_1[0], p0a2_1[1], p0a2_1[2], p0a2_1[3]);
            }
        }
        {
            let gi = t + 384u;
            if (gi < 512u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                act[base + 0u] = vec4<f16>(p0a3_0[0], p0a3_0[1], p0a3_0[2], p0a3_0[3]);
                act[base + 1u] = vec4<f16>(p0a3_1[0], p0a3_1[1], p0a3_1[2], p0a3_1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + ((f / 2u) % 16u) * LDQ + (f % 2u) * 8u;
            let sc0 = vec2<f16>(p0s0_0, p0s0_0);
            let v0 = p0w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d0_1 = (vec2<f16>(unpack2x16float((v0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let d0_2 = (vec2<f16>(unpack2x16float((vs0 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d0_3 = (vec2<f16>(unpack2x16float((vs0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let v1 = p0w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d1_1 = (vec2<f16>(unpack2x16float((v1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let d1_2 = (vec2<f16>(unpack2x16float((vs1 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d1_3 = (vec2<f16>(unpack2x16float((vs1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let v2 = p0w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d2_1 = (vec2<f16>(unpack2x16float((v2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let d2_2 = (vec2<f16>(unpack2x16float((vs2 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d2_3 = (vec2<f16>(unpack2x16float((vs2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let v3 = p0w0[3];
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
            let f = 32u + lane;
            let base = own + ((f / 2u) % 16u) * LDQ + (f % 2u) * 8u;
            let sc0 = vec2<f16>(p0s1_0, p0s1_0);
            let v0 = p0w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d0_1 = (vec2<f16>(unpack2x16float((v0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let d0_2 = (vec2<f16>(unpack2x16float((vs0 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d0_3 = (vec2<f16>(unpack2x16float((vs0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let v1 = p0w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d1_1 = (vec2<f16>(unpack2x16float((v1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let d1_2 = (vec2<f16>(unpack2x16float((vs1 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d1_3 = (vec2<f16>(unpack2x16float((vs1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let v2 = p0w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d2_1 = (vec2<f16>(unpack2x16float((v2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let d2_2 = (vec2<f16>(unpack2x16float((vs2 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d2_3 = (vec2<f16>(unpack2x16float((vs2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let v3 = p0w1[3];
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
            if (gi < 512u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                act[base + 0u] = vec4<f16>(p1a0_0[0], p1a0_0[1], p1a0_0[2], p1a0_0[3]);
                act[base + 1u] = vec4<f16>(p1a0_1[0], p1a0_1[1], p1a0_1[2], p1a0_1[3]);
            }
        }
        {
            let gi = t + 128u;
            if (gi < 512u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                act[base + 0u] = vec4<f16>(p1a1_0[0], p1a1_0[1], p1a1_0[2], p1a1_0[3]);
                act[base + 1u] = vec4<f16>(p1a1_1[0], p1a1_1[1], p1a1_1[2], p1a1_1[3]);
            }
        }
        {
            let gi = t + 256u;
            if (gi < 512u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                act[base + 0u] = vec4<f16>(p1a2_0[0], p1a2_0[1], p1a2_0[2], p1a2_0[3]);
                act[base + 1u] = vec4<f16>(p1a2_1[0], p1a2_1[1], p1a2_1[2], p1a2_1[3]);
            }
        }
        {
            let gi = t + 384u;
            if (gi < 512u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                act[base + 0u] = vec4<f16>(p1a3_0[0], p1a3_0[1], p1a3_0[2], p1a3_0[3]);
                act[base + 1u] = vec4<f16>(p1a3_1[0], p1a3_1[1], p1a3_1[2], p1a3_1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + ((f / 2u) % 16u) * LDQ + (f % 2u) * 8u;
            let sc0 = vec2<f16>(p1s0_0, p1s0_0);
            let v0 = p1w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d0_1 = (vec2<f16>(unpack2x16float((v0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let d0_2 = (vec2<f16>(unpack2x16float((vs0 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d0_3 = (vec2<f16>(unpack2x16float((vs0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let v1 = p1w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d1_1 = (vec2<f16>(unpack2x16float((v1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let d1_2 = (vec2<f16>(unpack2x16float((vs1 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d1_3 = (vec2<f16>(unpack2x16float((vs1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let v2 = p1w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d2_1 = (vec2<f16>(unpack2x16float((v2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let d2_2 = (vec2<f16>(unpack2x16float((vs2 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d2_3 = (vec2<f16>(unpack2x16float((vs2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let v3 = p1w0[3];
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
            let f = 32u + lane;
            let base = own + ((f / 2u) % 16u) * LDQ + (f % 2u) * 8u;
            let sc0 = vec2<f16>(p1s1_0, p1s1_0);
            let v0 = p1w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d0_1 = (vec2<f16>(unpack2x16float((v0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let d0_2 = (vec2<f16>(unpack2x16float((vs0 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d0_3 = (vec2<f16>(unpack2x16float((vs0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let v1 = p1w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d1_1 = (vec2<f16>(unpack2x16float((v1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let d1_2 = (vec2<f16>(unpack2x16float((vs1 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d1_3 = (vec2<f16>(unpack2x16float((vs1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let v2 = p1w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d2_1 = (vec2<f16>(unpack2x16float((v2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let d2_2 = (vec2<f16>(unpack2x16float((vs2 & 983055u) | magic)) - vec2<f16>(1032.0h)) * sc0;
            let d2_3 = (vec2<f16>(unpack2x16float((vs2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h)) * sc0;
            let v3 = p1w1[3];
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
            if (!whole) {
                let p = sbase + (0u + lane / 16u) * CW + nl;
                partials[p] = g0;
                partials[p + 4096u] = cscr[scr + 0u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g0;
                var u = cscr[scr + 0u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 2u + lane / 16u;
            if (!whole) {
                let p = sbase + (2u + lane / 16u) * CW + nl;
                partials[p] = g1;
                partials[p + 4096u] = cscr[scr + 8u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 4u + lane / 16u;
            if (!whole) {
                let p = sbase + (4u + lane / 16u) * CW + nl;
                partials[p] = g2;
                partials[p + 4096u] = cscr[scr + 16u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 6u + lane / 16u;
            if (!whole) {
                let p = sbase + (6u + lane / 16u) * CW + nl;
                partials[p] = g3;
                partials[p + 4096u] = cscr[scr + 24u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 8u + lane / 16u;
            if (!whole) {
                let p = sbase + (8u + lane / 16u) * CW + nl;
                partials[p] = g4;
                partials[p + 4096u] = cscr[scr + 32u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 10u + lane / 16u;
            if (!whole) {
                let p = sbase + (10u + lane / 16u) * CW + nl;
                partials[p] = g5;
                partials[p + 4096u] = cscr[scr + 40u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 12u + lane / 16u;
            if (!whole) {
                let p = sbase + (12u + lane / 16u) * CW + nl;
                partials[p] = g6;
                partials[p + 4096u] = cscr[scr + 48u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 14u + lane / 16u;
            if (!whole) {
                let p = sbase + (14u + lane / 16u) * CW + nl;
                partials[p] = g7;
                partials[p + 4096u] = cscr[scr + 56u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
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
            if (!whole) {
                let p = sbase + (16u + lane / 16u) * CW + nl;
                partials[p] = g0;
                partials[p + 4096u] = cscr[scr + 0u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g0;
                var u = cscr[scr + 0u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 18u + lane / 16u;
            if (!whole) {
                let p = sbase + (18u + lane / 16u) * CW + nl;
                partials[p] = g1;
                partials[p + 4096u] = cscr[scr + 8u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 20u + lane / 16u;
            if (!whole) {
                let p = sbase + (20u + lane / 16u) * CW + nl;
                partials[p] = g2;
                partials[p + 4096u] = cscr[scr + 16u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 22u + lane / 16u;
            if (!whole) {
                let p = sbase + (22u + lane / 16u) * CW + nl;
                partials[p] = g3;
                partials[p + 4096u] = cscr[scr + 24u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 24u + lane / 16u;
            if (!whole) {
                let p = sbase + (24u + lane / 16u) * CW + nl;
                partials[p] = g4;
                partials[p + 4096u] = cscr[scr + 32u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 26u + lane / 16u;
            if (!whole) {
                let p = sbase + (26u + lane / 16u) * CW + nl;
                partials[p] = g5;
                partials[p + 4096u] = cscr[scr + 40u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 28u + lane / 16u;
            if (!whole) {
                let p = sbase + (28u + lane / 16u) * CW + nl;
                partials[p] = g6;
                partials[p + 4096u] = cscr[scr + 48u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 30u + lane / 16u;
            if (!whole) {
                let p = sbase + (30u + lane / 16u) * CW + nl;
                partials[p] = g7;
                partials[p + 4096u] = cscr[scr + 56u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
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
            if (!whole) {
                let p = sbase + (32u + lane / 16u) * CW + nl;
                partials[p] = g0;
                partials[p + 4096u] = cscr[scr + 0u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g0;
                var u = cscr[scr + 0u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 34u + lane / 16u;
            if (!whole) {
                let p = sbase + (34u + lane / 16u) * CW + nl;
                partials[p] = g1;
                partials[p + 4096u] = cscr[scr + 8u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 36u + lane / 16u;
            if (!whole) {
                let p = sbase + (36u + lane / 16u) * CW + nl;
                partials[p] = g2;
                partials[p + 4096u] = cscr[scr + 16u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 38u + lane / 16u;
            if (!whole) {
                let p = sbase + (38u + lane / 16u) * CW + nl;
                partials[p] = g3;
                partials[p + 4096u] = cscr[scr + 24u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 40u + lane / 16u;
            if (!whole) {
                let p = sbase + (40u + lane / 16u) * CW + nl;
                partials[p] = g4;
                partials[p + 4096u] = cscr[scr + 32u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 42u + lane / 16u;
            if (!whole) {
                let p = sbase + (42u + lane / 16u) * CW + nl;
                partials[p] = g5;
                partials[p + 4096u] = cscr[scr + 40u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 44u + lane / 16u;
            if (!whole) {
                let p = sbase + (44u + lane / 16u) * CW + nl;
                partials[p] = g6;
                partials[p + 4096u] = cscr[scr + 48u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 46u + lane / 16u;
            if (!whole) {
                let p = sbase + (46u + lane / 16u) * CW + nl;
                partials[p] = g7;
                partials[p + 4096u] = cscr[scr + 56u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
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
            if (!whole) {
                let p = sbase + (48u + lane / 16u) * CW + nl;
                partials[p] = g0;
                partials[p + 4096u] = cscr[scr + 0u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g0;
                var u = cscr[scr + 0u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 50u + lane / 16u;
            if (!whole) {
                let p = sbase + (50u + lane / 16u) * CW + nl;
                partials[p] = g1;
                partials[p + 4096u] = cscr[scr + 8u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g1;
                var u = cscr[scr + 8u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 52u + lane / 16u;
            if (!whole) {
                let p = sbase + (52u + lane / 16u) * CW + nl;
                partials[p] = g2;
                partials[p + 4096u] = cscr[scr + 16u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g2;
                var u = cscr[scr + 16u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 54u + lane / 16u;
            if (!whole) {
                let p = sbase + (54u + lane / 16u) * CW + nl;
                partials[p] = g3;
                partials[p + 4096u] = cscr[scr + 24u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g3;
                var u = cscr[scr + 24u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 56u + lane / 16u;
            if (!whole) {
                let p = sbase + (56u + lane / 16u) * CW + nl;
                partials[p] = g4;
                partials[p + 4096u] = cscr[scr + 32u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g4;
                var u = cscr[scr + 32u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 58u + lane / 16u;
            if (!whole) {
                let p = sbase + (58u + lane / 16u) * CW + nl;
                partials[p] = g5;
                partials[p + 4096u] = cscr[scr + 40u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g5;
                var u = cscr[scr + 40u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 60u + lane / 16u;
            if (!whole) {
                let p = sbase + (60u + lane / 16u) * CW + nl;
                partials[p] = g6;
                partials[p + 4096u] = cscr[scr + 48u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g6;
                var u = cscr[scr + 48u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 62u + lane / 16u;
            if (!whole) {
                let p = sbase + (62u + lane / 16u) * CW + nl;
                partials[p] = g7;
                partials[p + 4096u] = cscr[scr + 56u + lane / 4u][lane % 4u];
            } else if (row < ROWS && n < N) {
                var g = g7;
                var u = cscr[scr + 56u + lane / 4u][lane % 4u];
                g = g + f32(gate_bias[n]);
                u = u + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(g, u));
            }
        }
    }
    it = it + (c1 - c0);
    }
}
// ==== pass `fixup`: mlp-streamk-fixup.wgsl.jinja, dispatch [2, 132, 1], workgroup size [256, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> partials: array<f32>;
@group(0) @binding(1) var<storage, read> gate_bias: array<f16>;
@group(0) @binding(2) var<storage, read> up_bias: array<f16>;
@group(0) @binding(3) var<storage, read_write> y: array<f16>;
// ---- template ----
const N: u32 = 14336u;
const ROWS: u32 = 128u;
const TM: u32 = 64u;                  // rows of a tile
const CW: u32 = 64u;                  // columns (of gate and of up) of a tile
const RT: u32 = 2u;         // row tiles
const KI: u32 = 32u;          // iterations per tile
const TOT: u32 = 7168u;  // iterations of every column range
const G: u32 = 132u;           // groups of the main pass

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let b = wid.y;
    let it = (b * TOT) / G;
    if (b == 0u || it % KI == 0u) {
        return;
    }
    let m0 = wid.x * TM;
    let n0 = (it / KI) * CW;
    let head = ((b * RT + wid.x) * 2u) * 8192u;
    let tail = head + 8192u;
    for (var e = t; e < 4096u; e = e + 256u) {
        let row = m0 + e / CW;
        let n = n0 + e % CW;
        if (row < ROWS && n < N) {
            var g = partials[head + e] + partials[tail + e];
            var u = partials[head + 4096u + e] + partials[tail + 4096u + e];
            g = g + f32(gate_bias[n]);
            u = u + f32(up_bias[n]);
            y[row * N + n] = f16(silu_mul(g, u));
        }
    }
}