// snapshot mmap-blocks-skip-f32-rows16: variant mmap_skip_nogb_noub, float32 K 4096 N 14336 rows 16 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `norm`: matmul-nbits-fused-rms-norm.wgsl.jinja, dispatch [16, 1, 1], workgroup size [1024, 1, 1] ====
// ---- bindings generated from the manifest ----
struct Params {
    rows: u32,
};
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> skip: array<f32>;
@group(0) @binding(2) var<storage, read> norm_scale: array<f32>;
@group(0) @binding(3) var<storage, read_write> normed: array<f32>;
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
// ==== pass `main`: mlp-mma.wgsl.jinja, dispatch [1, 128, 1], workgroup size [224, 1, 1] ====
enable f16;
enable wgpu_cooperative_matrix;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> normed: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f32>;
@group(0) @binding(3) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> up_scales: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;
// ---- template ----
const K: u32 = 4096u;
const N: u32 = 14336u;
const KB: u32 = 128u;             // blocks (scales) per weight row
const RV: u32 = 128u;  // 16-byte vectors per weight row
const ROWS: u32 = 16u;
const TM: u32 = 16u;                  // rows of the tile
const LDQ: u32 = 18u;                // row stride of slab and tile, in 4-half quads
const SLAB: u32 = 288u;          // quads per subgroup slab (16 rows)
const LDA: u32 = 98u;                // row stride of the activation block, in quads
const NT: u32 = 896u;      // prepared layout: stripes of 16 weight rows
const KC: u32 = 64u;  // tiles of 64 codes per stripe

// Per subgroup: the chunk's 16 gate rows, then (in turns) its 16 up rows, of 64 halves (+ padding).
var<workgroup> slab: array<vec4<f16>, 2016>;
// The activations of 6 chunks, f16 [row][k] in K order (98 quads per row).
var<workgroup> act: array<vec4<f16>, 1568>;
// The activations' low parts (times 2^11), in the tile's layout; the weight fragments times
// 2^-11 (RLOH) meet them, so hi and lo products add into one accumulator.
var<workgroup> act_lo: array<vec4<f16>, 1568>;
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

    // The chunks in flight, as loaded: FG chunks of 64 codes per request (prefixes p0, p1, ...):
    // weight segments, their scales, activation groups.
    var p0w0: vec4<u32>;
    var p0w1: vec4<u32>;
    var p0fg0: f32;
    var p0fu0: f32;
    var p0fg1: f32;
    var p0fu1: f32;
    var p1w0: vec4<u32>;
    var p1w1: vec4<u32>;
    var p1fg0: f32;
    var p1fu0: f32;
    var p1fg1: f32;
    var p1fu1: f32;
    var p2w0: vec4<u32>;
    var p2w1: vec4<u32>;
    var p2fg0: f32;
    var p2fu0: f32;
    var p2fg1: f32;
    var p2fu1: f32;
    let kbeg = 0u;
    let kend = K;
    // The activations of the first block, requested before the loop.
    var aq0: vec4<f32>;
    var aq1: vec4<f32>;
    var aq2: vec4<f32>;
    var aq3: vec4<f32>;
    var aq4: vec4<f32>;
    var aq5: vec4<f32>;
    var aq6: vec4<f32>;
        {
            let q = t + 0u;
            let row = m0 + q / 96u;
            let k = kbeg + (q % 96u) * 4u;
            aq0 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq0 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 224u;
            let row = m0 + q / 96u;
            let k = kbeg + (q % 96u) * 4u;
            aq1 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq1 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 448u;
            let row = m0 + q / 96u;
            let k = kbeg + (q % 96u) * 4u;
            aq2 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq2 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 672u;
            let row = m0 + q / 96u;
            let k = kbeg + (q % 96u) * 4u;
            aq3 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq3 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 896u;
            let row = m0 + q / 96u;
            let k = kbeg + (q % 96u) * 4u;
            aq4 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq4 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 1120u;
            let row = m0 + q / 96u;
            let k = kbeg + (q % 96u) * 4u;
            aq5 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq5 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 1344u;
            let row = m0 + q / 96u;
            let k = kbeg + (q % 96u) * 4u;
            aq6 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq6 = normed[(row * K + k) / 4u];
            }
        }

        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((kbeg) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let vi = tile * 32u + f % 32u;
                p0w0 = gate_b[vi];
            }
            {
                let f = 32u + lane;
                let vi = tile * 32u + f % 32u;
                p0w1 = up_b[vi];
            }
            // The float32 form's scales: this lane's column of the epilogue (fc), one
            // per unit of FU codes, for gate and for up.
            let fsi = tile * 32u + fc * 2u;
            p0fg0 = gate_scales[fsi + 0u];
            p0fu0 = up_scales[fsi + 0u];
            p0fg1 = gate_scales[fsi + 1u];
            p0fu1 = up_scales[fsi + 1u];
        }

    if (kbeg + 64u < kend) {
        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((kbeg + 64u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let vi = tile * 32u + f % 32u;
                p1w0 = gate_b[vi];
            }
            {
                let f = 32u + lane;
                let vi = tile * 32u + f % 32u;
                p1w1 = up_b[vi];
            }
            // The float32 form's scales: this lane's column of the epilogue (fc), one
            // per unit of FU codes, for gate and for up.
            let fsi = tile * 32u + fc * 2u;
            p1fg0 = gate_scales[fsi + 0u];
            p1fu0 = up_scales[fsi + 0u];
            p1fg1 = gate_scales[fsi + 1u];
            p1fu1 = up_scales[fsi + 1u];
        }

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
                let vi = tile * 32u + f % 32u;
                p2w0 = gate_b[vi];
            }
            {
                let f = 32u + lane;
                let vi = tile * 32u + f % 32u;
                p2w1 = up_b[vi];
            }
            // The float32 form's scales: this lane's column of the epilogue (fc), one
            // per unit of FU codes, for gate and for up.
            let fsi = tile * 32u + fc * 2u;
            p2fg0 = gate_scales[fsi + 0u];
            p2fu0 = up_scales[fsi + 0u];
            p2fg1 = gate_scales[fsi + 1u];
            p2fu1 = up_scales[fsi + 1u];
        }

        }
        // This chunk's quads in the activation block; at a block's first chunk, once every
        // subgroup is done with the block before, the block is staged and the next requested.
        let cq = ((k0 - kbeg) / 64u) % 6u * 16u;
        if (cq == 0u) {
            workgroupBarrier();
            {
                let q = t + 0u;
                if (q < 1536u) {
                    // The float32 form: hi and lo parts, as the chunk tile's staging splits them.
                    let h = hi4(aq0);
                    act[(q / 96u) * LDA + q % 96u] = vec4<f16>(h);
                    act_lo[(q / 96u) * LDA + q % 96u] = vec4<f16>((aq0 - h) * LO);
                }
            }
            {
                let q = t + 224u;
                if (q < 1536u) {
                    // The float32 form: hi and lo parts, as the chunk tile's staging splits them.
                    let h = hi4(aq1);
                    act[(q / 96u) * LDA + q % 96u] = vec4<f16>(h);
                    act_lo[(q / 96u) * LDA + q % 96u] = vec4<f16>((aq1 - h) * LO);
                }
            }
            {
                let q = t + 448u;
                if (q < 1536u) {
                    // The float32 form: hi and lo parts, as the chunk tile's staging splits them.
                    let h = hi4(aq2);
                    act[(q / 96u) * LDA + q % 96u] = vec4<f16>(h);
                    act_lo[(q / 96u) * LDA + q % 96u] = vec4<f16>((aq2 - h) * LO);
                }
            }
            {
                let q = t + 672u;
                if (q < 1536u) {
                    // The float32 form: hi and lo parts, as the chunk tile's staging splits them.
                    let h = hi4(aq3);
                    act[(q / 96u) * LDA + q % 96u] = vec4<f16>(h);
                    act_lo[(q / 96u) * LDA + q % 96u] = vec4<f16>((aq3 - h) * LO);
                }
            }
            {
                let q = t + 896u;
                if (q < 1536u) {
                    // The float32 form: hi and lo parts, as the chunk tile's staging splits them.
                    let h = hi4(aq4);
                    act[(q / 96u) * LDA + q % 96u] = vec4<f16>(h);
                    act_lo[(q / 96u) * LDA + q % 96u] = vec4<f16>((aq4 - h) * LO);
                }
            }
            {
                let q = t + 1120u;
                if (q < 1536u) {
                    // The float32 form: hi and lo parts, as the chunk tile's staging splits them.
                    let h = hi4(aq5);
                    act[(q / 96u) * LDA + q % 96u] = vec4<f16>(h);
                    act_lo[(q / 96u) * LDA + q % 96u] = vec4<f16>((aq5 - h) * LO);
                }
            }
            {
                let q = t + 1344u;
                if (q < 1536u) {
                    // The float32 form: hi and lo parts, as the chunk tile's staging splits them.
                    let h = hi4(aq6);
                    act[(q / 96u) * LDA + q % 96u] = vec4<f16>(h);
                    act_lo[(q / 96u) * LDA + q % 96u] = vec4<f16>((aq6 - h) * LO);
                }
            }
            workgroupBarrier();
        {
            let q = t + 0u;
            let row = m0 + q / 96u;
            let k = k0 + 384u + (q % 96u) * 4u;
            aq0 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq0 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 224u;
            let row = m0 + q / 96u;
            let k = k0 + 384u + (q % 96u) * 4u;
            aq1 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq1 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 448u;
            let row = m0 + q / 96u;
            let k = k0 + 384u + (q % 96u) * 4u;
            aq2 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq2 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 672u;
            let row = m0 + q / 96u;
            let k = k0 + 384u + (q % 96u) * 4u;
            aq3 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq3 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 896u;
            let row = m0 + q / 96u;
            let k = k0 + 384u + (q % 96u) * 4u;
            aq4 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq4 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 1120u;
            let row = m0 + q / 96u;
            let k = k0 + 384u + (q % 96u) * 4u;
            aq5 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq5 = normed[(row * K + k) / 4u];
            }
        }
        {
            let q = t + 1344u;
            let row = m0 + q / 96u;
            let k = k0 + 384u + (q % 96u) * 4u;
            aq6 = vec4<f32>(0.0);
            if (q < 1536u && row < ROWS && k < kend) {
                aq6 = normed[(row * K + k) / 4u];
            }
        }

        }
        subgroupBarrier();
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

        subgroupBarrier();
        let uw1 = p0w1;

        let ufg0 = p0fg0;
        let ufu0 = p0fu0;
        let ufg1 = p0fg1;
        let ufu1 = p0fu1;
        let w0_0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
        let wl0_0 = w0_0 * RLOH;
        let x0_0 = coopLoad<coop_mat16x16<f16, B>>(&act[cq + 0u], LDA);
        let xl0_0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[cq + 0u], LDA);
        acc_g0 = coopMultiplyAdd(w0_0, x0_0, czero);
        acc_g0 = coopMultiplyAdd(wl0_0, xl0_0, acc_g0);
        let w0_1 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
        let wl0_1 = w0_1 * RLOH;
        let x1_0 = coopLoad<coop_mat16x16<f16, B>>(&act[cq + 4u], LDA);
        let xl1_0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[cq + 4u], LDA);
        acc_g0 = coopMultiplyAdd(w0_1, x1_0, acc_g0);
        acc_g0 = coopMultiplyAdd(wl0_1, xl1_0, acc_g0);
        // Unit 0 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStoreT(acc_g0, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg0_0 = fma(ufg0, fv0[0], tg0_0);
            tg0_1 = fma(ufg0, fv0[1], tg0_1);
            tg0_2 = fma(ufg0, fv0[2], tg0_2);
            tg0_3 = fma(ufg0, fv0[3], tg0_3);
            tg0_4 = fma(ufg0, fv1[0], tg0_4);
            tg0_5 = fma(ufg0, fv1[1], tg0_5);
            tg0_6 = fma(ufg0, fv1[2], tg0_6);
            tg0_7 = fma(ufg0, fv1[3], tg0_7);
        }
        let w0_2 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
        let wl0_2 = w0_2 * RLOH;
        let x2_0 = coopLoad<coop_mat16x16<f16, B>>(&act[cq + 8u], LDA);
        let xl2_0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[cq + 8u], LDA);
        acc_g0 = coopMultiplyAdd(w0_2, x2_0, czero);
        acc_g0 = coopMultiplyAdd(wl0_2, xl2_0, acc_g0);
        let w0_3 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
        let wl0_3 = w0_3 * RLOH;
        let x3_0 = coopLoad<coop_mat16x16<f16, B>>(&act[cq + 12u], LDA);
        let xl3_0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[cq + 12u], LDA);
        acc_g0 = coopMultiplyAdd(w0_3, x3_0, acc_g0);
        acc_g0 = coopMultiplyAdd(wl0_3, xl3_0, acc_g0);
        // Unit 1 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStoreT(acc_g0, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tg0_0 = fma(ufg1, fv0[0], tg0_0);
            tg0_1 = fma(ufg1, fv0[1], tg0_1);
            tg0_2 = fma(ufg1, fv0[2], tg0_2);
            tg0_3 = fma(ufg1, fv0[3], tg0_3);
            tg0_4 = fma(ufg1, fv1[0], tg0_4);
            tg0_5 = fma(ufg1, fv1[1], tg0_5);
            tg0_6 = fma(ufg1, fv1[2], tg0_6);
            tg0_7 = fma(ufg1, fv1[3], tg0_7);
        }

        subgroupBarrier();
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 32u + lane;
            let base = own + ((f / 2u) % 16u) * LDQ + (f % 2u) * 8u;
            let v0 = uw1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((v0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let d0_2 = (vec2<f16>(unpack2x16float((vs0 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d0_3 = (vec2<f16>(unpack2x16float((vs0 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let v1 = uw1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((v1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let d1_2 = (vec2<f16>(unpack2x16float((vs1 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d1_3 = (vec2<f16>(unpack2x16float((vs1 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let v2 = uw1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((v2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let d2_2 = (vec2<f16>(unpack2x16float((vs2 & 983055u) | magic)) - vec2<f16>(1032.0h));
            let d2_3 = (vec2<f16>(unpack2x16float((vs2 & 15728880u) | (magic - 268439552u))) - vec2<f16>(72.0h));
            let v3 = uw1[3];
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

        subgroupBarrier();
        let w1_0 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
        let wl1_0 = w1_0 * RLOH;
        acc_u0 = coopMultiplyAdd(w1_0, x0_0, czero);
        acc_u0 = coopMultiplyAdd(wl1_0, xl0_0, acc_u0);
        let w1_1 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
        let wl1_1 = w1_1 * RLOH;
        acc_u0 = coopMultiplyAdd(w1_1, x1_0, acc_u0);
        acc_u0 = coopMultiplyAdd(wl1_1, xl1_0, acc_u0);
        // Unit 0 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStoreT(acc_u0, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tu0_0 = fma(ufu0, fv0[0], tu0_0);
            tu0_1 = fma(ufu0, fv0[1], tu0_1);
            tu0_2 = fma(ufu0, fv0[2], tu0_2);
            tu0_3 = fma(ufu0, fv0[3], tu0_3);
            tu0_4 = fma(ufu0, fv1[0], tu0_4);
            tu0_5 = fma(ufu0, fv1[1], tu0_5);
            tu0_6 = fma(ufu0, fv1[2], tu0_6);
            tu0_7 = fma(ufu0, fv1[3], tu0_7);
        }
        let w1_2 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
        let wl1_2 = w1_2 * RLOH;
        acc_u0 = coopMultiplyAdd(w1_2, x2_0, czero);
        acc_u0 = coopMultiplyAdd(wl1_2, xl2_0, acc_u0);
        let w1_3 = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
        let wl1_3 = w1_3 * RLOH;
        acc_u0 = coopMultiplyAdd(w1_3, x3_0, acc_u0);
        acc_u0 = coopMultiplyAdd(wl1_3, xl3_0, acc_u0);
        // Unit 1 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStoreT(acc_u0, &cscr[scr], 4u);
        subgroupBarrier();
        {
            // Transposed: this lane's column fc at rows 8 * fh + 4 * fv + 0..3, then the other
            // 4 (the epilogue's rows follow the same order).
            let fv0 = cscr[scr + 4u * fc + 2u * fh + fv];
            let fv1 = cscr[scr + 4u * fc + 2u * fh + 1u - fv];
            tu0_0 = fma(ufu1, fv0[0], tu0_0);
            tu0_1 = fma(ufu1, fv0[1], tu0_1);
            tu0_2 = fma(ufu1, fv0[2], tu0_2);
            tu0_3 = fma(ufu1, fv0[3], tu0_3);
            tu0_4 = fma(ufu1, fv1[0], tu0_4);
            tu0_5 = fma(ufu1, fv1[1], tu0_5);
            tu0_6 = fma(ufu1, fv1[2], tu0_6);
            tu0_7 = fma(ufu1, fv1[3], tu0_7);
        }

        p0w0 = p1w0;
        p0w1 = p1w1;
        p0fg0 = p1fg0;
        p0fu0 = p1fu0;
        p0fg1 = p1fg1;
        p0fu1 = p1fu1;

        p1w0 = p2w0;
        p1w1 = p2w1;
        p1fg0 = p2fg0;
        p1fu0 = p2fu0;
        p1fg1 = p2fg1;
        p1fu1 = p2fu1;

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
                var u = tu0_0;
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 1u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = tu0_1;
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 2u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = tu0_2;
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 3u + 8u * fh + 4u * fv;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = tu0_3;
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 0u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g4;
                var u = tu0_4;
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 1u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g5;
                var u = tu0_5;
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 2u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g6;
                var u = tu0_6;
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 3u + 8u * fh + 4u * (1u - fv);
            if (row < ROWS && n < N) {
                var g = g7;
                var u = tu0_7;
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
    }
}
