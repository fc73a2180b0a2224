// snapshot coop-split-skip-f16-rows24: variant coop_split_skip_gb_noub, float16 K 4096 N 14336 rows 24 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier), tunables [("MMA_MAX_ROWS", 1)]
// ==== pass `norm`: matmul-nbits-fused-rms-norm.wgsl.jinja, dispatch [24, 1, 1], workgroup size [128, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
struct Params {
    rows: u32,
};
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> skip: array<f16>;
@group(0) @binding(2) var<storage, read> norm_scale: array<f16>;
@group(0) @binding(3) var<storage, read_write> normed: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;
// ---- template ----
const K: u32 = 4096u;
const WG: u32 = 128u;
const EPS: f32 = f32(0.00001);
// Two-level reduction: WG partial sums, then 4 sums of 32 (strided: thread g adds
// partial[g], partial[g + NG], ...), then every thread adds the 4: two barriers.
const NG: u32 = 4u;

var<workgroup> partial: array<f32, 128>;
var<workgroup> partial2: array<f32, 4>;

fn load_s(i: u32) -> f32 {
    var s = f32(a[i]);
    s = s + f32(skip[i]);
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
    for (var k = t; k < K; k = k + WG) {
        let s = load_s(base + k);
        ss = ss + s * s;
    }
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
    for (var k = t; k < K; k = k + WG) {
        normed[base + k] = load_s(base + k) * inv * f32(norm_scale[k]);
    }
}
// ==== pass `main`: mlp-coop.wgsl.jinja, dispatch [112, 1, 10], workgroup size [256, 1, 1] ====
enable f16;
enable wgpu_cooperative_matrix;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> normed: array<f32>;
@group(0) @binding(1) var<storage, read> gate_b: array<u32>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(3) var<storage, read> up_b: array<u32>;
@group(0) @binding(4) var<storage, read> up_scales: array<f16>;
@group(0) @binding(5) var<storage, read_write> partials: array<f32>;
// ---- template ----
const K: u32 = 4096u;
const N: u32 = 14336u;
const BS: u32 = 32u;
const KB: u32 = 128u;
const WPB: u32 = 4u;      // u32 words per blob
const WPR: u32 = 512u;  // u32 words per weight row
const CPW: u32 = 8u;                // codes per u32 word
const ROW_COUNT: u32 = 24u;
const TM: u32 = 32u;
const TN: u32 = 128u;
const TK: u32 = 32u;
const LDA: u32 = 40u;                       // row stride (halves) of the activation tile
const LDN: u32 = 136u;                // row stride (halves) of the weight tiles
const NWM: u32 = 512u;                // u32 words of one matrix in a chunk (TN x TK codes)
const UP: u32 = 4352u;            // offset of the up tile in b_tile
// (code | 0x4B000000) as f32 is 2^23 + code; subtracting 2^23 + zero point leaves code - zero.
const MAGIC: u32 = 0x4B000000u;
const MASK: u32 = 15u;
const OFFSET: f32 = 8388608.0 + 8.0;

var<workgroup> a_tile: array<f16, 1280>;       // [row][k]
var<workgroup> b_tile: array<f16, 8704>;  // gate [k][col], then up [k][col]
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
    let wm = sg / 4u;   // rows wm * 16 .. of the tile
    let wn = sg % 4u;   // columns wn * 32 .. wn * 32 + 31 of the tile
    let n0 = wid.x * TN;
    let m0 = wid.y * TM;

    // Zero accumulators: loaded from zeroed scratch.
    for (var i = t; i < 2560u; i = i + 256u) {
        c_out[i] = 0.0;
    }
    workgroupBarrier();
    var acc_g00 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var acc_u00 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var acc_g01 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);
    var acc_u01 = coopLoadT<coop_mat16x16<f32, C>>(&c_out[0], 20u);

    // Registers holding the next chunk as loaded: activations, weight words and their scales.
    var pa0: f32;
    var pa1: f32;
    var pa2: f32;
    var pa3: f32;
    var pw0: u32;
    var ps0: f16;
    var pw1: u32;
    var ps1: f16;
    var pw2: u32;
    var ps2: f16;
    var pw3: u32;
    var ps3: f16;
    let kbeg = wid.z * 416u;
    let kend = min(K, kbeg + 416u);
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
            let w = s;
            let c = w % TN;
            let k = kbeg + (w / TN) * CPW;
            let n = min(n0 + c, N - 1u);
            let b = min(k / BS, KB - 1u);
            let word = n * WPR + b * WPB + (k % BS) / CPW;

            pw1 = gate_b[word];
            ps1 = gate_scales[n * KB + b];
        }
        {
            let s = t + 512u;
            let w = s - NWM;
            let c = w % TN;
            let k = kbeg + (w / TN) * CPW;
            let n = min(n0 + c, N - 1u);
            let b = min(k / BS, KB - 1u);
            let word = n * WPR + b * WPB + (k % BS) / CPW;

            pw2 = up_b[word];
            ps2 = up_scales[n * KB + b];
        }
        {
            let s = t + 768u;
            let w = s - NWM;
            let c = w % TN;
            let k = kbeg + (w / TN) * CPW;
            let n = min(n0 + c, N - 1u);
            let b = min(k / BS, KB - 1u);
            let word = n * WPR + b * WPB + (k % BS) / CPW;

            pw3 = up_b[word];
            ps3 = up_scales[n * KB + b];
        }

    for (var k0 = kbeg; k0 < kend; k0 = k0 + TK) {
        workgroupBarrier();
        // Stage this chunk: activations as f16, weights dequantised to f16.
        {
            let idx = t + 0u;
            a_tile[(idx / TK) * LDA + idx % TK] = f16(pa0);
        }
        {
            let idx = t + 256u;
            a_tile[(idx / TK) * LDA + idx % TK] = f16(pa1);
        }
        {
            let idx = t + 512u;
            a_tile[(idx / TK) * LDA + idx % TK] = f16(pa2);
        }
        {
            let idx = t + 768u;
            a_tile[(idx / TK) * LDA + idx % TK] = f16(pa3);
        }
        {
            let s = t + 0u;
            let w = s % NWM;
            let kq = (w / TN) * CPW;
            let base = select(0u, UP, s >= NWM) + kq * LDN + w % TN;
            let scale = f32(ps0);
            {
                var v = (bitcast<f32>(((pw0 >> 0u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 0u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 4u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 136u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 8u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 272u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 12u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 408u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 16u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 544u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 20u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 680u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 24u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 816u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw0 >> 28u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 952u] = f16(v);
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
                b_tile[base + 0u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 4u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 136u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 8u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 272u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 12u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 408u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 16u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 544u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 20u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 680u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 24u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 816u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw1 >> 28u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 952u] = f16(v);
            }
        }
        {
            let s = t + 512u;
            let w = s % NWM;
            let kq = (w / TN) * CPW;
            let base = select(0u, UP, s >= NWM) + kq * LDN + w % TN;
            let scale = f32(ps2);
            {
                var v = (bitcast<f32>(((pw2 >> 0u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 0u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw2 >> 4u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 136u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw2 >> 8u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 272u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw2 >> 12u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 408u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw2 >> 16u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 544u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw2 >> 20u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 680u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw2 >> 24u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 816u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw2 >> 28u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 952u] = f16(v);
            }
        }
        {
            let s = t + 768u;
            let w = s % NWM;
            let kq = (w / TN) * CPW;
            let base = select(0u, UP, s >= NWM) + kq * LDN + w % TN;
            let scale = f32(ps3);
            {
                var v = (bitcast<f32>(((pw3 >> 0u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 0u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw3 >> 4u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 136u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw3 >> 8u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 272u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw3 >> 12u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 408u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw3 >> 16u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 544u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw3 >> 20u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 680u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw3 >> 24u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 816u] = f16(v);
            }
            {
                var v = (bitcast<f32>(((pw3 >> 28u) & MASK) | MAGIC) - OFFSET) * scale;
                b_tile[base + 952u] = f16(v);
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
            let w = s;
            let c = w % TN;
            let k = k0 + TK + (w / TN) * CPW;
            let n = min(n0 + c, N - 1u);
            let b = min(k / BS, KB - 1u);
            let word = n * WPR + b * WPB + (k % BS) / CPW;

            pw1 = gate_b[word];
            ps1 = gate_scales[n * KB + b];
        }
        {
            let s = t + 512u;
            let w = s - NWM;
            let c = w % TN;
            let k = k0 + TK + (w / TN) * CPW;
            let n = min(n0 + c, N - 1u);
            let b = min(k / BS, KB - 1u);
            let word = n * WPR + b * WPB + (k % BS) / CPW;

            pw2 = up_b[word];
            ps2 = up_scales[n * KB + b];
        }
        {
            let s = t + 768u;
            let w = s - NWM;
            let c = w % TN;
            let k = k0 + TK + (w / TN) * CPW;
            let n = min(n0 + c, N - 1u);
            let b = min(k / BS, KB - 1u);
            let word = n * WPR + b * WPB + (k % BS) / CPW;

            pw3 = up_b[word];
            ps3 = up_scales[n * KB + b];
        }

        {
            let fa0 = coopLoadT<coop_mat16x16<f16, A>>(&a_tile[(wm * 16u + 0u) * LDA + 0u], LDA);
            let fg0 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[0u * LDN + wn * 32u + 0u], LDN);
            let fu0 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[UP + 0u * LDN + wn * 32u + 0u], LDN);
            acc_g00 = coopMultiplyAdd(fa0, fg0, acc_g00);
            acc_u00 = coopMultiplyAdd(fa0, fu0, acc_u00);
            let fg1 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[0u * LDN + wn * 32u + 16u], LDN);
            let fu1 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[UP + 0u * LDN + wn * 32u + 16u], LDN);
            acc_g01 = coopMultiplyAdd(fa0, fg1, acc_g01);
            acc_u01 = coopMultiplyAdd(fa0, fu1, acc_u01);
        }
        {
            let fa0 = coopLoadT<coop_mat16x16<f16, A>>(&a_tile[(wm * 16u + 0u) * LDA + 16u], LDA);
            let fg0 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[16u * LDN + wn * 32u + 0u], LDN);
            let fu0 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[UP + 16u * LDN + wn * 32u + 0u], LDN);
            acc_g00 = coopMultiplyAdd(fa0, fg0, acc_g00);
            acc_u00 = coopMultiplyAdd(fa0, fu0, acc_u00);
            let fg1 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[16u * LDN + wn * 32u + 16u], LDN);
            let fu1 = coopLoadT<coop_mat16x16<f16, B>>(&b_tile[UP + 16u * LDN + wn * 32u + 16u], LDN);
            acc_g01 = coopMultiplyAdd(fa0, fg1, acc_g01);
            acc_u01 = coopMultiplyAdd(fa0, fu1, acc_u01);
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
        coopStoreT(acc_u00, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        let n = n0 + wn * 32u + 0u + lane % 16u;
        {
            let row = m0 + wm * 16u + 0u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g0;
                var u = c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 2u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g1;
                var u = c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 4u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g2;
                var u = c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 6u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g3;
                var u = c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 8u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g4;
                var u = c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 10u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g5;
                var u = c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 12u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g6;
                var u = c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 14u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g7;
                var u = c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
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
        coopStoreT(acc_u01, &c_out[sg * 320u], 20u);
        workgroupBarrier();
        let n = n0 + wn * 32u + 16u + lane % 16u;
        {
            let row = m0 + wm * 16u + 0u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g0;
                var u = c_out[sg * 320u + 0u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 2u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g1;
                var u = c_out[sg * 320u + 2u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 4u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g2;
                var u = c_out[sg * 320u + 4u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 6u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g3;
                var u = c_out[sg * 320u + 6u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 8u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g4;
                var u = c_out[sg * 320u + 8u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 10u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g5;
                var u = c_out[sg * 320u + 10u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 12u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g6;
                var u = c_out[sg * 320u + 12u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
        {
            let row = m0 + wm * 16u + 14u + lane / 16u;
            if (row < ROW_COUNT && n < N) {
                var g = g7;
                var u = c_out[sg * 320u + 14u * 20u + (lane / 16u) * 20u + lane % 16u];
                let p = ((wid.z * ROW_COUNT + row) * 2u) * N + n;
                partials[p] = g;
                partials[p + N] = u;
            }
        }
    }
}
// ==== pass `reduce`: mlp-splitk-reduce.wgsl.jinja, dispatch [1344, 1, 1], workgroup size [256, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> partials: array<f32>;
@group(0) @binding(1) var<storage, read> gate_bias: array<f16>;
@group(0) @binding(2) var<storage, read_write> y: array<f16>;
// ---- template ----
const N: u32 = 14336u;
const ROWS: u32 = 24u;
const SPLIT: u32 = 10u;

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