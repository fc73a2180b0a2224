// snapshot mmap-skipsum-f16-rows16: variant mmap_skipsum_nogb_noub, float16 K 4096 N 14336 rows 16 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `norm`: matmul-nbits-fused-rms-norm.wgsl.jinja, dispatch [16, 1, 1], workgroup size [1024, 1, 1] ====
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
// ==== pass `main`: mlp-mma.wgsl.jinja, dispatch [1, 128, 1], workgroup size [224, 1, 1] ====
enable f16;
enable wgpu_cooperative_matrix;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> normed: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(3) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> up_scales: array<f16>;
@group(0) @binding(5) var<storage, read_write> y: array<f16>;
// ---- template ----
const K: u32 = 4096u;
const N: u32 = 14336u;
const KB: u32 = 128u;             // blocks (scales) per weight row
const RV: u32 = 128u;  // 16-byte vectors per weight row
const ROWS: u32 = 16u;
const TM: u32 = 16u;                  // rows of the tile
const LDQ: u32 = 18u;                // row stride of slab and tile, in 4-half quads
const SLAB: u32 = 576u;          // quads per subgroup slab (32 rows)
const LDA: u32 = 66u;                // row stride of the activation block, in quads
const NT: u32 = 896u;      // prepared layout: stripes of 16 weight rows
const KC: u32 = 64u;  // tiles of 64 codes per stripe

// Per subgroup: the chunk's 16 gate rows, then its 16 up rows, of 64 halves (+ padding), staged in
// turns beside the other half's products.
var<workgroup> slab: array<vec4<f16>, 4032>;
// The activations of 4 chunks, f16 [row][k] in K order (66 quads per row).
var<workgroup> act: array<vec4<f16>, 1056>;
// Per subgroup: one 16 x 16 f32 block (column-major, 16 floats per column).
var<workgroup> cscr: array<vec4<f32>, 448>;

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}
@compute @workgroup_size(224)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let sg = t / 32u;          // subgroup: columns n0 .. n0 + 15 of gate and of up
    let lane = t % 32u;
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

    // The chunks in flight, as loaded: FG chunks of 64 codes per request (prefixes p0, p1, ...):
    // weight segments, their scales, activation groups.
    var p0w0: vec4<u32>;
    var p0s0_0: f16;
    var p0w1: vec4<u32>;
    var p0s1_0: f16;
    var p1w0: vec4<u32>;
    var p1s0_0: f16;
    var p1w1: vec4<u32>;
    var p1s1_0: f16;
    var p2w0: vec4<u32>;
    var p2s0_0: f16;
    var p2w1: vec4<u32>;
    var p2s1_0: f16;
    let kbeg = 0u;
    let kend = K;
    // The activations of the first block, requested before the loop.
    var aq0: vec4<f16>;
    var aq1: vec4<f16>;
    var aq2: vec4<f16>;
    var aq3: vec4<f16>;
    var aq4: vec4<f16>;
        {
            let q = t + 0u;
            let row = m0 + q / 64u;
            let k = kbeg + (q % 64u) * 4u;
            aq0 = vec4<f16>(0.0);
            if (q < 1024u && row < ROWS && k < kend) {
                aq0 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 224u;
            let row = m0 + q / 64u;
            let k = kbeg + (q % 64u) * 4u;
            aq1 = vec4<f16>(0.0);
            if (q < 1024u && row < ROWS && k < kend) {
                aq1 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 448u;
            let row = m0 + q / 64u;
            let k = kbeg + (q % 64u) * 4u;
            aq2 = vec4<f16>(0.0);
            if (q < 1024u && row < ROWS && k < kend) {
                aq2 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 672u;
            let row = m0 + q / 64u;
            let k = kbeg + (q % 64u) * 4u;
            aq3 = vec4<f16>(0.0);
            if (q < 1024u && row < ROWS && k < kend) {
                aq3 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 896u;
            let row = m0 + q / 64u;
            let k = kbeg + (q % 64u) * 4u;
            aq4 = vec4<f16>(0.0);
            if (q < 1024u && row < ROWS && k < kend) {
                aq4 = normed[(row * K + k) / 4u];
            }
        }

        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((kbeg) / 64u, KC - 1u);
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

    if (kbeg + 64u < kend) {
        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((kbeg + 64u) / 64u, KC - 1u);
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

    }
    // Ping-pong: the first chunk's gate rows, before the loop (the first block's barriers order
    // them before their products).
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 2u) * LDQ + (f % 2u) * 8u;
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

    for (var k0 = kbeg; k0 < kend; k0 = k0 + 64u) {
        // Request chunk + 2 into its own registers before this chunk is staged.
        if (k0 + 128u < kend) {
        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 128u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let sir = f % 2u;
                let vi = tile * 32u + f % 32u;
                let si = tile * 32u + ((f / 2u) % 16u) * 2u;
                p2w0 = gate_b[vi];
                p2s0_0 = gate_scales[si + (sir * 32u + 0u) / 32u];
            }
            {
                let f = 32u + lane;
                let sir = f % 2u;
                let vi = tile * 32u + f % 32u;
                let si = tile * 32u + ((f / 2u) % 16u) * 2u;
                p2w1 = up_b[vi];
                p2s1_0 = up_scales[si + (sir * 32u + 0u) / 32u];
            }
        }

        }
        // This chunk's quads in the activation block; at a block's first chunk, once every
        // subgroup is done with the block before, the block is staged and the next requested.
        let cq = ((k0 - kbeg) / 64u) % 4u * 16u;
        if (cq == 0u) {
            workgroupBarrier();
            {
                let q = t + 0u;
                if (q < 1024u) {
                    act[(q / 64u) * LDA + q % 64u] = aq0;
                }
            }
            {
                let q = t + 224u;
                if (q < 1024u) {
                    act[(q / 64u) * LDA + q % 64u] = aq1;
                }
            }
            {
                let q = t + 448u;
                if (q < 1024u) {
                    act[(q / 64u) * LDA + q % 64u] = aq2;
                }
            }
            {
                let q = t + 672u;
                if (q < 1024u) {
                    act[(q / 64u) * LDA + q % 64u] = aq3;
                }
            }
            {
                let q = t + 896u;
                if (q < 1024u) {
                    act[(q / 64u) * LDA + q % 64u] = aq4;
                }
            }
            workgroupBarrier();
        {
            let q = t + 0u;
            let row = m0 + q / 64u;
            let k = k0 + 256u + (q % 64u) * 4u;
            aq0 = vec4<f16>(0.0);
            if (q < 1024u && row < ROWS && k < kend) {
                aq0 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 224u;
            let row = m0 + q / 64u;
            let k = k0 + 256u + (q % 64u) * 4u;
            aq1 = vec4<f16>(0.0);
            if (q < 1024u && row < ROWS && k < kend) {
                aq1 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 448u;
            let row = m0 + q / 64u;
            let k = k0 + 256u + (q % 64u) * 4u;
            aq2 = vec4<f16>(0.0);
            if (q < 1024u && row < ROWS && k < kend) {
                aq2 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 672u;
            let row = m0 + q / 64u;
            let k = k0 + 256u + (q % 64u) * 4u;
            aq3 = vec4<f16>(0.0);
            if (q < 1024u && row < ROWS && k < kend) {
                aq3 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 896u;
            let row = m0 + q / 64u;
            let k = k0 + 256u + (q % 64u) * 4u;
            aq4 = vec4<f16>(0.0);
            if (q < 1024u && row < ROWS && k < kend) {
                aq4 = normed[(row * K + k) / 4u];
            }
        }

        }
        // Gate's products, and up's rows staged beside them.
        let w0_0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
        let x0_0 = coopLoad<coop_mat16x16<f16, B>>(&act[cq + 0u], LDA);
        acc_g0 = coopMultiplyAdd(w0_0, x0_0, acc_g0);
        let w0_1 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
        let x1_0 = coopLoad<coop_mat16x16<f16, B>>(&act[cq + 4u], LDA);
        acc_g0 = coopMultiplyAdd(w0_1, x1_0, acc_g0);
        let w0_2 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
        let x2_0 = coopLoad<coop_mat16x16<f16, B>>(&act[cq + 8u], LDA);
        acc_g0 = coopMultiplyAdd(w0_2, x2_0, acc_g0);
        let w0_3 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
        let x3_0 = coopLoad<coop_mat16x16<f16, B>>(&act[cq + 12u], LDA);
        acc_g0 = coopMultiplyAdd(w0_3, x3_0, acc_g0);

        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 32u + lane;
            let base = own + (f / 2u) * LDQ + (f % 2u) * 8u;
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
        // Up's products, and the next chunk's gate rows staged beside them.
        let w1_0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 0u], LDQ);
        acc_u0 = coopMultiplyAdd(w1_0, x0_0, acc_u0);
        let w1_1 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 4u], LDQ);
        acc_u0 = coopMultiplyAdd(w1_1, x1_0, acc_u0);
        let w1_2 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 8u], LDQ);
        acc_u0 = coopMultiplyAdd(w1_2, x2_0, acc_u0);
        let w1_3 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 12u], LDQ);
        acc_u0 = coopMultiplyAdd(w1_3, x3_0, acc_u0);

        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 2u) * LDQ + (f % 2u) * 8u;
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

        subgroupBarrier();
        p0w0 = p1w0;
        p0s0_0 = p1s0_0;
        p0w1 = p1w1;
        p0s1_0 = p1s1_0;

        p1w0 = p2w0;
        p1s0_0 = p2s0_0;
        p1w1 = p2w1;
        p1s1_0 = p2s1_0;

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
}
