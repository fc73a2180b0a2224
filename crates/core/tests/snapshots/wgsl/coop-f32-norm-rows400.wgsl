// snapshot coop-f32-norm-rows400: variant coop_norm_nogb_ub, float32 K 200 N 150 rows 400 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier), tunables [("MMA_F32_MAX_ROWS", 384)]
// ==== pass `norm`: matmul-nbits-fused-rms-norm.wgsl.jinja, dispatch [400, 1, 1], workgroup size [128, 1, 1] ====
// ---- bindings generated from the manifest ----
struct Params {
    rows: u32,
};
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> norm_scale: array<f32>;
@group(0) @binding(2) var<storage, read_write> normed: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;
// ---- template ----
const K: u32 = 200u;
const WG: u32 = 128u;
const EPS: f32 = f32(0.00001);
// Two-level reduction: WG partial sums, then 4 sums of 32 (strided: thread g adds
// partial[g], partial[g + NG], ...), then every thread adds the 4: two barriers.
const NG: u32 = 4u;

var<workgroup> partial: array<f32, 128>;
var<workgroup> partial2: array<f32, 4>;

fn load_s(i: u32) -> f32 {
    var s = f32(a[i]);
    return s;
}

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let row = wid.y * 65535u + wid.x;
    if (row >= params.rows) {
        return;
    }
    let base = row * K;
    var ss = 0.0;
    // This thread's 2 values of S, held in registers between the two walks.
    var s0 = 0.0;
    if (t + 0u < K) {
        s0 = load_s(base + t + 0u);
    }
    ss = ss + s0 * s0;
    var s1 = 0.0;
    if (t + 128u < K) {
        s1 = load_s(base + t + 128u);
    }
    ss = ss + s1 * s1;
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
    if (t + 128u < K) {
        let k = t + 128u;
        normed[base + k] = s1 * inv * f32(norm_scale[k]);
    }
}
// ==== pass `main`: mlp-coop.wgsl.jinja, dispatch [3, 4, 1], workgroup size [256, 1, 1] ====
enable f16;
enable wgpu_cooperative_matrix;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> normed: array<f32>;
@group(0) @binding(1) var<storage, read> gate_b: array<u32>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f32>;
@group(0) @binding(3) var<storage, read> up_b: array<u32>;
@group(0) @binding(4) var<storage, read> up_scales: array<f32>;
@group(0) @binding(5) var<storage, read> up_bias: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;
// ---- template ----
const K: u32 = 200u;
const N: u32 = 150u;
const BS: u32 = 32u;
const KB: u32 = 7u;
const WPB: u32 = 4u;      // u32 words per blob
const WPR: u32 = 28u;  // u32 words per weight row
const CPW: u32 = 8u;                // codes per u32 word
const ROW_COUNT: u32 = 400u;
const TM: u32 = 128u;
const TN: u32 = 64u;
const TK: u32 = 32u;
const LDA: u32 = 40u;                       // row stride (halves) of the activation tile
const LDN: u32 = 72u;                // row stride (halves) of the weight tiles
const NWM: u32 = 256u;                // u32 words of one matrix in a chunk (TN x TK codes)
const UP: u32 = 2304u;            // offset of the up tile in b_tile
// (code | 0x4B000000) as f32 is 2^23 + code; subtracting 2^23 + zero point leaves code - zero.
const MAGIC: u32 = 0x4B000000u;
const MASK: u32 = 15u;
const OFFSET: f32 = 8388608.0 + 8.0;

var<workgroup> a_tile: array<f16, 5120>;       // [row][k]
var<workgroup> b_tile: array<f16, 4608>;  // gate [k][col], then up [k][col]
// The low parts of the split (times 2^11), same layouts.
var<workgroup> a_lo: array<f16, 5120>;
var<workgroup> b_lo: array<f16, 4608>;
const LO: f32 = 2048.0;
const RLO: f32 = 0.00048828125;             // 2^-11

// v with its mantissa cut to f16's 10 bits: exact in f16 (normal range), v - hi exact in f32.
// (Bits, not f32(f16(v)): a compiler may fold that round trip away, and the low parts with it.)
fn hi_part(v: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(v) & 0xFFFFE000u);
}
var<workgroup> c_out: array<f32, 2560>;       // per subgroup: 16 rows x 20 (16 used)

// Activations as loaded (converted to f16 only when staged, so the load's latency stays hidden).
fn load_act(row: u32, k: u32) -> f32 {
    return normed[row * K + k];
}

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let sg = t / 32u;          // subgroup (of 32 invocations)
    let lane = t % 32u;
    let wm = sg / 2u;   // rows wm * 32 .. of the tile
    let wn = sg % 2u;   // columns wn * 32 .. wn * 32 + 31 of the tile
    let n0 = wid.x * TN;
    let m0 = wid.y * TM;

    // Zero accumulators: loaded from zeroed scratch.
    for (var i = t; i < 2560u; i = i + 256u) {
        c_out[i] = 0.0;
    }
    workgroupBarrier();
    var acc_g00 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var acc_u00 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var accx_g00 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var accx_u00 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var acc_g01 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var acc_u01 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var accx_g01 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var accx_u01 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var acc_g10 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var acc_u10 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var accx_g10 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var accx_u10 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var acc_g11 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var acc_u11 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var accx_g11 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var accx_u11 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    let czero = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);

    // Registers holding the next chunk as loaded: activations, weight words and their scales.
    var pa0: f32;
    var pa1: f32;
    var pa2: f32;
    var pa3: f32;
    var pa4: f32;
    var pa5: f32;
    var pa6: f32;
    var pa7: f32;
    var pa8: f32;
    var pa9: f32;
    var pa10: f32;
    var pa11: f32;
    var pa12: f32;
    var pa13: f32;
    var pa14: f32;
    var pa15: f32;
    var pw0: u32;
    var ps0: f32;
    var pw1: u32;
    var ps1: f32;
    let kbeg = 0u;
    let kend = K;
        {
            let idx = t + 0u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa0 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa0 = load_act(row, k);
            }
        }
        {
            let idx = t + 256u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa1 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa1 = load_act(row, k);
            }
        }
        {
            let idx = t + 512u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa2 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa2 = load_act(row, k);
            }
        }
        {
            let idx = t + 768u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa3 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa3 = load_act(row, k);
            }
        }
        {
            let idx = t + 1024u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa4 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa4 = load_act(row, k);
            }
        }
        {
            let idx = t + 1280u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa5 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa5 = load_act(row, k);
            }
        }
        {
            let idx = t + 1536u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa6 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa6 = load_act(row, k);
            }
        }
        {
            let idx = t + 1792u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa7 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa7 = load_act(row, k);
            }
        }
        {
            let idx = t + 2048u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa8 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa8 = load_act(row, k);
            }
        }
        {
            let idx = t + 2304u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa9 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa9 = load_act(row, k);
            }
        }
        {
            let idx = t + 2560u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa10 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa10 = load_act(row, k);
            }
        }
        {
            let idx = t + 2816u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa11 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa11 = load_act(row, k);
            }
        }
        {
            let idx = t + 3072u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa12 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa12 = load_act(row, k);
            }
        }
        {
            let idx = t + 3328u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa13 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa13 = load_act(row, k);
            }
        }
        {
            let idx = t + 3584u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa14 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa14 = load_act(row, k);
            }
        }
        {
            let idx = t + 3840u;
            let row = m0 + idx / TK;
            let k = kbeg + idx % TK;
            pa15 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa15 = load_act(row, k);
            }
        }
        {
            let s = t + 0u;
            let w = s;
            let c = w % TN;
            let k = kbeg + (w / TN) * CPW;
            let n = min(n0 + c, N - 1u);
            let b = min(k / BS, KB - 1u);
            let word = n * WPR + b * WPB + (k % BS) / CPW;

            pw0 = gate_b[word];
            ps0 = gate_scales[n * KB + b];
        }
        {
            let s = t + 256u;
            let w = s - NWM;
            let c = w % TN;
            let k = kbeg + (w / TN) * CPW;
            let n = min(n0 + c, N - 1u);
            let b = min(k / BS, KB - 1u);
            let word = n * WPR + b * WPB + (k % BS) / CPW;

            pw1 = up_b[word];
            ps1 = up_scales[n * KB + b];
        }

    for (var k0 = kbeg; k0 < kend; k0 = k0 + TK) {
        workgroupBarrier();
        // Stage this chunk: activations as f16, weights dequantised to f16.
        {
            let idx = t + 0u;
            let h = hi_part(pa0);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa0 - h) * LO);
        }
        {
            let idx = t + 256u;
            let h = hi_part(pa1);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa1 - h) * LO);
        }
        {
            let idx = t + 512u;
            let h = hi_part(pa2);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa2 - h) * LO);
        }
        {
            let idx = t + 768u;
            let h = hi_part(pa3);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa3 - h) * LO);
        }
        {
            let idx = t + 1024u;
            let h = hi_part(pa4);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa4 - h) * LO);
        }
        {
            let idx = t + 1280u;
            let h = hi_part(pa5);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa5 - h) * LO);
        }
        {
            let idx = t + 1536u;
            let h = hi_part(pa6);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa6 - h) * LO);
        }
        {
            let idx = t + 1792u;
            let h = hi_part(pa7);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa7 - h) * LO);
        }
        {
            let idx = t + 2048u;
            let h = hi_part(pa8);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa8 - h) * LO);
        }
        {
            let idx = t + 2304u;
            let h = hi_part(pa9);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa9 - h) * LO);
        }
        {
            let idx = t + 2560u;
            let h = hi_part(pa10);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa10 - h) * LO);
        }
        {
            let idx = t + 2816u;
            let h = hi_part(pa11);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa11 - h) * LO);
        }
        {
            let idx = t + 3072u;
            let h = hi_part(pa12);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa12 - h) * LO);
        }
        {
            let idx = t + 3328u;
            let h = hi_part(pa13);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa13 - h) * LO);
        }
        {
            let idx = t + 3584u;
            let h = hi_part(pa14);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa14 - h) * LO);
        }
        {
            let idx = t + 3840u;
            let h = hi_part(pa15);
            a_tile[(idx / TK) * LDA + idx % TK] = f16(h);
            a_lo[(idx / TK) * LDA + idx % TK] = f16((pa15 - h) * LO);
        }
        {
            let s = t + 0u;
            let w = s % NWM;
            let kq = (w / TN) * CPW;
            let base = select(0u, UP, s >= NWM) + kq * LDN + w % TN;
            let scale = f32(ps0);
            {
                var v = (bitcast<f32>(((pw0 >> 0u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 0u] = f16(h);
                b_lo[base + 0u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 4u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 72u] = f16(h);
                b_lo[base + 72u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 8u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 144u] = f16(h);
                b_lo[base + 144u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 12u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 216u] = f16(h);
                b_lo[base + 216u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 16u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 288u] = f16(h);
                b_lo[base + 288u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 20u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 360u] = f16(h);
                b_lo[base + 360u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 24u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 432u] = f16(h);
                b_lo[base + 432u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 28u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 504u] = f16(h);
                b_lo[base + 504u] = f16((v - h) * LO);
            }
        }
        {
            let s = t + 256u;
            let w = s % NWM;
            let kq = (w / TN) * CPW;
            let base = select(0u, UP, s >= NWM) + kq * LDN + w % TN;
            let scale = f32(ps1);
            {
                var v = (bitcast<f32>(((pw1 >> 0u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 0u] = f16(h);
                b_lo[base + 0u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 4u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 72u] = f16(h);
                b_lo[base + 72u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 8u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 144u] = f16(h);
                b_lo[base + 144u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 12u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 216u] = f16(h);
                b_lo[base + 216u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 16u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 288u] = f16(h);
                b_lo[base + 288u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 20u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 360u] = f16(h);
                b_lo[base + 360u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 24u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 432u] = f16(h);
                b_lo[base + 432u] = f16((v - h) * LO);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 28u) & MASK) | MAGIC) - OFFSET) * scale;
                let h = hi_part(v);
                b_tile[base + 504u] = f16(h);
                b_lo[base + 504u] = f16((v - h) * LO);
            }
        }
        workgroupBarrier();
        // Load the next chunk while the tensor cores work on this one.
        {
            let idx = t + 0u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa0 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa0 = load_act(row, k);
            }
        }
        {
            let idx = t + 256u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa1 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa1 = load_act(row, k);
            }
        }
        {
            let idx = t + 512u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa2 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa2 = load_act(row, k);
            }
        }
        {
            let idx = t + 768u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa3 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa3 = load_act(row, k);
            }
        }
        {
            let idx = t + 1024u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa4 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa4 = load_act(row, k);
            }
        }
        {
            let idx = t + 1280u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa5 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa5 = load_act(row, k);
            }
        }
        {
            let idx = t + 1536u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa6 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa6 = load_act(row, k);
            }
        }
        {
            let idx = t + 1792u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa7 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa7 = load_act(row, k);
            }
        }
        {
            let idx = t + 2048u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa8 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa8 = load_act(row, k);
            }
        }
        {
            let idx = t + 2304u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa9 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa9 = load_act(row, k);
            }
        }
        {
            let idx = t + 2560u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa10 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa10 = load_act(row, k);
            }
        }
        {
            let idx = t + 2816u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa11 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa11 = load_act(row, k);
            }
        }
        {
            let idx = t + 3072u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa12 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa12 = load_act(row, k);
            }
        }
        {
            let idx = t + 3328u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa13 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa13 = load_act(row, k);
            }
        }
        {
            let idx = t + 3584u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa14 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa14 = load_act(row, k);
            }
        }
        {
            let idx = t + 3840u;
            let row = m0 + idx / TK;
            let k = k0 + TK + idx % TK;
            pa15 = f32(0.0);
            if (row < ROW_COUNT && k < K) {
                pa15 = load_act(row, k);
            }
        }
        {
            let s = t + 0u;
            let w = s;
            let c = w % TN;
            let k = k0 + TK + (w / TN) * CPW;
            let n = min(n0 + c, N - 1u);
            let b = min(k / BS, KB - 1u);
            let word = n * WPR + b * WPB + (k % BS) / CPW;

            pw0 = gate_b[word];
            ps0 = gate_scales[n * KB + b];
        }
        {
            let s = t + 256u;
            let w = s - NWM;
            let c = w % TN;
            let k = k0 + TK + (w / TN) * CPW;
            let n = min(n0 + c, N - 1u);
            let b = min(k / BS, KB - 1u);
            let word = n * WPR + b * WPB + (k % BS) / CPW;

            pw1 = up_b[word];
            ps1 = up_scales[n * KB + b];
        }

        {
            let fa0 = coopLoadT<coop_mat16x16<f16, A>>(&a_tile[(wm * 32u + 0u) * LDA + 0u], LDA);
            let fal0 = coopLoadT<coop_mat16x16<f16, A>>(&a_lo[(wm * 32u + 0u) * LDA + 0u], LDA);
            let fa1 = coopLoadT<coop_mat16x16<f16, A>>(&a_tile[(wm * 32u + 16u) * LDA + 0u], LDA);
            let fal1 = coopLoadT<coop_mat16x16<f16, A>>(&a_lo[(wm * 32u + 16u) * LDA + 0u], LDA);
            let fg0 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[0u * LDN + wn * 32u + 0u], LDN);
            let fu0 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[UP + 0u * LDN + wn * 32u + 0u], LDN);
            let fgl0 = coopLoadT<coop_mat16x16<f16, B>>(&b_lo[0u * LDN + wn * 32u + 0u], LDN);
            let ful0 = coopLoadT<coop_mat16x16<f16, B>>(&b_lo[UP + 0u * LDN + wn * 32u + 0u], LDN);
            acc_g00 = acc_g00 + coopMultiplyAdd(fa0, fg0, czero);
            acc_u00 = acc_u00 + coopMultiplyAdd(fa0, fu0, czero);
            accx_g00 = coopMultiplyAdd(fa0, fgl0, accx_g00);
            accx_g00 = coopMultiplyAdd(fal0, fg0, accx_g00);
            accx_u00 = coopMultiplyAdd(fa0, ful0, accx_u00);
            accx_u00 = coopMultiplyAdd(fal0, fu0, accx_u00);
            acc_g10 = acc_g10 + coopMultiplyAdd(fa1, fg0, czero);
            acc_u10 = acc_u10 + coopMultiplyAdd(fa1, fu0, czero);
            accx_g10 = coopMultiplyAdd(fa1, fgl0, accx_g10);
            accx_g10 = coopMultiplyAdd(fal1, fg0, accx_g10);
            accx_u10 = coopMultiplyAdd(fa1, ful0, accx_u10);
            accx_u10 = coopMultiplyAdd(fal1, fu0, accx_u10);
            let fg1 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[0u * LDN + wn * 32u + 16u], LDN);
            let fu1 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[UP + 0u * LDN + wn * 32u + 16u], LDN);
            let fgl1 = coopLoadT<coop_mat16x16<f16, B>>(&b_lo[0u * LDN + wn * 32u + 16u], LDN);
            let ful1 = coopLoadT<coop_mat16x16<f16, B>>(&b_lo[UP + 0u * LDN + wn * 32u + 16u], LDN);
            acc_g01 = acc_g01 + coopMultiplyAdd(fa0, fg1, czero);
            acc_u01 = acc_u01 + coopMultiplyAdd(fa0, fu1, czero);
            accx_g01 = coopMultiplyAdd(fa0, fgl1, accx_g01);
            accx_g01 = coopMultiplyAdd(fal0, fg1, accx_g01);
            accx_u01 = coopMultiplyAdd(fa0, ful1, accx_u01);
            accx_u01 = coopMultiplyAdd(fal0, fu1, accx_u01);
            acc_g11 = acc_g11 + coopMultiplyAdd(fa1, fg1, czero);
            acc_u11 = acc_u11 + coopMultiplyAdd(fa1, fu1, czero);
            accx_g11 = coopMultiplyAdd(fa1, fgl1, accx_g11);
            accx_g11 = coopMultiplyAdd(fal1, fg1, accx_g11);
            accx_u11 = coopMultiplyAdd(fa1, ful1, accx_u11);
            accx_u11 = coopMultiplyAdd(fal1, fu1, accx_u11);
        }
        {
            let fa0 = coopLoadT<coop_mat16x16<f16, A>>(&a_tile[(wm * 32u + 0u) * LDA + 16u], LDA);
            let fal0 = coopLoadT<coop_mat16x16<f16, A>>(&a_lo[(wm * 32u + 0u) * LDA + 16u], LDA);
            let fa1 = coopLoadT<coop_mat16x16<f16, A>>(&a_tile[(wm * 32u + 16u) * LDA + 16u], LDA);
            let fal1 = coopLoadT<coop_mat16x16<f16, A>>(&a_lo[(wm * 32u + 16u) * LDA + 16u], LDA);
            let fg0 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[16u * LDN + wn * 32u + 0u], LDN);
            let fu0 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[UP + 16u * LDN + wn * 32u + 0u], LDN);
            let fgl0 = coopLoadT<coop_mat16x16<f16, B>>(&b_lo[16u * LDN + wn * 32u + 0u], LDN);
            let ful0 = coopLoadT<coop_mat16x16<f16, B>>(&b_lo[UP + 16u * LDN + wn * 32u + 0u], LDN);
            acc_g00 = acc_g00 + coopMultiplyAdd(fa0, fg0, czero);
            acc_u00 = acc_u00 + coopMultiplyAdd(fa0, fu0, czero);
            accx_g00 = coopMultiplyAdd(fa0, fgl0, accx_g00);
            accx_g00 = coopMultiplyAdd(fal0, fg0, accx_g00);
            accx_u00 = coopMultiplyAdd(fa0, ful0, accx_u00);
            accx_u00 = coopMultiplyAdd(fal0, fu0, accx_u00);
            acc_g10 = acc_g10 + coopMultiplyAdd(fa1, fg0, czero);
            acc_u10 = acc_u10 + coopMultiplyAdd(fa1, fu0, czero);
            accx_g10 = coopMultiplyAdd(fa1, fgl0, accx_g10);
            accx_g10 = coopMultiplyAdd(fal1, fg0, accx_g10);
            accx_u10 = coopMultiplyAdd(fa1, ful0, accx_u10);
            accx_u10 = coopMultiplyAdd(fal1, fu0, accx_u10);
            let fg1 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[16u * LDN + wn * 32u + 16u], LDN);
            let fu1 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[UP + 16u * LDN + wn * 32u + 16u], LDN);
            let fgl1 = coopLoadT<coop_mat16x16<f16, B>>(&b_lo[16u * LDN + wn * 32u + 16u], LDN);
            let ful1 = coopLoadT<coop_mat16x16<f16, B>>(&b_lo[UP + 16u * LDN + wn * 32u + 16u], LDN);
            acc_g01 = acc_g01 + coopMultiplyAdd(fa0, fg1, czero);
            acc_u01 = acc_u01 + coopMultiplyAdd(fa0, fu1, czero);
            accx_g01 = coopMultiplyAdd(fa0, fgl1, accx_g01);
            accx_g01 = coopMultiplyAdd(fal0, fg1, accx_g01);
            accx_u01 = coopMultiplyAdd(fa0, ful1, accx_u01);
            accx_u01 = coopMultiplyAdd(fal0, fu1, accx_u01);
            acc_g11 = acc_g11 + coopMultiplyAdd(fa1, fg1, czero);
            acc_u11 = acc_u11 + coopMultiplyAdd(fa1, fu1, czero);
            accx_g11 = coopMultiplyAdd(fa1, fgl1, accx_g11);
            accx_g11 = coopMultiplyAdd(fal1, fg1, accx_g11);
            accx_u11 = coopMultiplyAdd(fa1, ful1, accx_u11);
            accx_u11 = coopMultiplyAdd(fal1, fu1, accx_u11);
        }
    }

    // Epilogue: one 16 x 16 block at a time through this subgroup's scratch (gate, then up).
    {
        workgroupBarrier();
        coopStoreT(acc_g00, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        var g0 = c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g1 = c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g2 = c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g3 = c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g4 = c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g5 = c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g6 = c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g7 = c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u];
        workgroupBarrier();
        coopStoreT(accx_g00, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        g0 = g0 + c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g1 = g1 + c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g2 = g2 + c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g3 = g3 + c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g4 = g4 + c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g5 = g5 + c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g6 = g6 + c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g7 = g7 + c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        workgroupBarrier();
        coopStoreT(acc_u00, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        let uh0 = c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh1 = c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh2 = c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh3 = c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh4 = c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh5 = c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh6 = c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh7 = c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u];
        workgroupBarrier();
        coopStoreT(accx_u00, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        let n = n0 + wn * 32u + 0u + lane % 16u;
        {
            let row = m0 + wm * 32u + 0u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g0;
                var u = uh0 + c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 2u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g1;
                var u = uh1 + c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 4u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g2;
                var u = uh2 + c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 6u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g3;
                var u = uh3 + c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 8u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g4;
                var u = uh4 + c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 10u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g5;
                var u = uh5 + c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 12u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g6;
                var u = uh6 + c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 14u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g7;
                var u = uh7 + c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
    }
    {
        workgroupBarrier();
        coopStoreT(acc_g01, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        var g0 = c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g1 = c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g2 = c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g3 = c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g4 = c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g5 = c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g6 = c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g7 = c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u];
        workgroupBarrier();
        coopStoreT(accx_g01, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        g0 = g0 + c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g1 = g1 + c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g2 = g2 + c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g3 = g3 + c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g4 = g4 + c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g5 = g5 + c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g6 = g6 + c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g7 = g7 + c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        workgroupBarrier();
        coopStoreT(acc_u01, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        let uh0 = c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh1 = c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh2 = c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh3 = c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh4 = c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh5 = c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh6 = c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh7 = c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u];
        workgroupBarrier();
        coopStoreT(accx_u01, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        let n = n0 + wn * 32u + 16u + lane % 16u;
        {
            let row = m0 + wm * 32u + 0u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g0;
                var u = uh0 + c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 2u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g1;
                var u = uh1 + c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 4u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g2;
                var u = uh2 + c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 6u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g3;
                var u = uh3 + c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 8u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g4;
                var u = uh4 + c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 10u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g5;
                var u = uh5 + c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 12u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g6;
                var u = uh6 + c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 14u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g7;
                var u = uh7 + c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
    }
    {
        workgroupBarrier();
        coopStoreT(acc_g10, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        var g0 = c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g1 = c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g2 = c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g3 = c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g4 = c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g5 = c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g6 = c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g7 = c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u];
        workgroupBarrier();
        coopStoreT(accx_g10, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        g0 = g0 + c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g1 = g1 + c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g2 = g2 + c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g3 = g3 + c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g4 = g4 + c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g5 = g5 + c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g6 = g6 + c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g7 = g7 + c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        workgroupBarrier();
        coopStoreT(acc_u10, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        let uh0 = c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh1 = c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh2 = c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh3 = c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh4 = c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh5 = c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh6 = c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh7 = c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u];
        workgroupBarrier();
        coopStoreT(accx_u10, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        let n = n0 + wn * 32u + 0u + lane % 16u;
        {
            let row = m0 + wm * 32u + 16u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g0;
                var u = uh0 + c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 18u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g1;
                var u = uh1 + c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 20u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g2;
                var u = uh2 + c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 22u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g3;
                var u = uh3 + c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 24u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g4;
                var u = uh4 + c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 26u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g5;
                var u = uh5 + c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 28u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g6;
                var u = uh6 + c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 30u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g7;
                var u = uh7 + c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
    }
    {
        workgroupBarrier();
        coopStoreT(acc_g11, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        var g0 = c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g1 = c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g2 = c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g3 = c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g4 = c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g5 = c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g6 = c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u];
        var g7 = c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u];
        workgroupBarrier();
        coopStoreT(accx_g11, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        g0 = g0 + c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g1 = g1 + c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g2 = g2 + c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g3 = g3 + c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g4 = g4 + c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g5 = g5 + c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g6 = g6 + c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        g7 = g7 + c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
        workgroupBarrier();
        coopStoreT(acc_u11, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        let uh0 = c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh1 = c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh2 = c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh3 = c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh4 = c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh5 = c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh6 = c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u];
        let uh7 = c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u];
        workgroupBarrier();
        coopStoreT(accx_u11, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        let n = n0 + wn * 32u + 16u + lane % 16u;
        {
            let row = m0 + wm * 32u + 16u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g0;
                var u = uh0 + c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 18u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g1;
                var u = uh1 + c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 20u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g2;
                var u = uh2 + c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 22u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g3;
                var u = uh3 + c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 24u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g4;
                var u = uh4 + c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 26u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g5;
                var u = uh5 + c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 28u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g6;
                var u = uh6 + c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + wm * 32u + 30u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g7;
                var u = uh7 + c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u] * RLO;
                u = u + f32(up_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
    }
}
