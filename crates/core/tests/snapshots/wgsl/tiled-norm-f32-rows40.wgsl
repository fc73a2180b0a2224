// snapshot tiled-norm-f32-rows40: variant tiled_norm_gb_noub, float32 K 4096 N 1024 rows 40 bits 4 block 32, discrete-gpu (shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier), tunables [("TILED_SPLIT_K", 1), ("GEMVP_F32_MAX_ROWS", 0)]
// ==== pass `norm`: matmul-nbits-fused-rms-norm.wgsl.jinja, dispatch [40, 1, 1], workgroup size [128, 1, 1] ====
// ---- bindings generated from the manifest ----
struct Params {
    rows: u32,
};
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> norm_scale: array<f32>;
@group(0) @binding(2) var<storage, read_write> normed: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;
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
// ==== pass `main`: mlp-tiled.wgsl.jinja, dispatch [16, 1, 1], workgroup size [256, 1, 1] ====
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> normed: array<f32>;
@group(0) @binding(1) var<storage, read> gate_b: array<u32>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f32>;
@group(0) @binding(3) var<storage, read> gate_bias: array<f32>;
@group(0) @binding(4) var<storage, read> up_b: array<u32>;
@group(0) @binding(5) var<storage, read> up_scales: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;
// ---- template ----
const K: u32 = 4096u;
const N: u32 = 1024u;
const BS: u32 = 32u;
const KB: u32 = 128u;
const WPB: u32 = 4u;      // u32 words per blob
const WPR: u32 = 512u;  // u32 words per weight row
const CPW: u32 = 8u;                // codes per u32 word
const BITS: u32 = 4u;
const MASK: u32 = 15u;
const ZERO: f32 = 8.0;
const ROW_COUNT: u32 = 40u;
const TM: u32 = 64u;
const TN: u32 = 64u;
const TK: u32 = 32u;
const WORDS_PER_CHUNK_COL: u32 = 4u;   // TK codes of one column = BITS u32 words

var<workgroup> a_tile: array<f32, 2112>;            // [row][kk], rows padded to 33 (no bank conflicts)
var<workgroup> g_tile: array<vec4<f32>, 512>;      // [kk][col / 4]
var<workgroup> u_tile: array<vec4<f32>, 512>;

fn load_act(row: u32, k: u32) -> f32 {
    return normed[row * K + k];
}

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let tx = t % 16u;          // column group: columns 4*tx .. 4*tx+3 of the tile
    let ty = t / 16u;          // row group: rows ty*RM .. ty*RM+RM-1 of the tile
    let n0 = wid.x * TN;
    let m0 = wid.y * TM;
    var acc_g0 = vec4<f32>(0.0);
    var acc_u0 = vec4<f32>(0.0);
    var acc_g1 = vec4<f32>(0.0);
    var acc_u1 = vec4<f32>(0.0);
    var acc_g2 = vec4<f32>(0.0);
    var acc_u2 = vec4<f32>(0.0);
    var acc_g3 = vec4<f32>(0.0);
    var acc_u3 = vec4<f32>(0.0);
    let kbeg = 0u;
    let kend = K;
    for (var k0 = kbeg; k0 < kend; k0 = k0 + TK) {
        // Activations: TM x TK, coalesced along k.
        for (var idx = t; idx < TM * TK; idx = idx + 256u) {
            let r = idx / TK;
            let kk = idx % TK;
            let row = m0 + r;
            let k = k0 + kk;
            var v = 0.0;
            if (row < ROW_COUNT && k < K) {
                v = load_act(row, k);
            }
            a_tile[r * 33u + kk] = v;
        }
        // Weights: TN columns x TK codes of gate and up, dequantized once.
        for (var w = t; w < TN * WORDS_PER_CHUNK_COL; w = w + 256u) {
            let c = w / WORDS_PER_CHUNK_COL;
            let kq = (w % WORDS_PER_CHUNK_COL) * CPW;   // first code of this word in the chunk
            let k = k0 + kq;
            let n = min(n0 + c, N - 1u);
            let b = min(k / BS, KB - 1u);
            let word = n * WPR + b * WPB + (k % BS) / CPW;
            let gw = gate_b[word];
            let uw = up_b[word];
            let gs = f32(gate_scales[n * KB + b]);
            let us = f32(up_scales[n * KB + b]);
            for (var j = 0u; j < CPW; j = j + 1u) {
                var gv = 0.0;
                var uv = 0.0;
                if (k + j < K) {
                    gv = (f32((gw >> (BITS * j)) & MASK) - ZERO) * gs;
                    uv = (f32((uw >> (BITS * j)) & MASK) - ZERO) * us;
                }
                let slot = (kq + j) * 16u + c / 4u;
                g_tile[slot][c % 4u] = gv;
                u_tile[slot][c % 4u] = uv;
            }
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk = kk + 1u) {
            let wg = g_tile[kk * 16u + tx];
            let wu = u_tile[kk * 16u + tx];
            let av0 = a_tile[(ty * 4u + 0u) * 33u + kk];
            acc_g0 = acc_g0 + av0 * wg;
            acc_u0 = acc_u0 + av0 * wu;
            let av1 = a_tile[(ty * 4u + 1u) * 33u + kk];
            acc_g1 = acc_g1 + av1 * wg;
            acc_u1 = acc_u1 + av1 * wu;
            let av2 = a_tile[(ty * 4u + 2u) * 33u + kk];
            acc_g2 = acc_g2 + av2 * wg;
            acc_u2 = acc_u2 + av2 * wu;
            let av3 = a_tile[(ty * 4u + 3u) * 33u + kk];
            acc_g3 = acc_g3 + av3 * wg;
            acc_u3 = acc_u3 + av3 * wu;
        }
        workgroupBarrier();
    }
    {
        let row = m0 + ty * 4u + 0u;
        if (row < ROW_COUNT) {
            for (var j = 0u; j < 4u; j = j + 1u) {
                let n = n0 + tx * 4u + j;
                if (n < N) {
                    var g = acc_g0[j];
                    var u = acc_u0[j];
                    g = g + f32(gate_bias[n]);
                    y[row * N + n] = f32(silu_mul(g, u));
                }
            }
        }
    }
    {
        let row = m0 + ty * 4u + 1u;
        if (row < ROW_COUNT) {
            for (var j = 0u; j < 4u; j = j + 1u) {
                let n = n0 + tx * 4u + j;
                if (n < N) {
                    var g = acc_g1[j];
                    var u = acc_u1[j];
                    g = g + f32(gate_bias[n]);
                    y[row * N + n] = f32(silu_mul(g, u));
                }
            }
        }
    }
    {
        let row = m0 + ty * 4u + 2u;
        if (row < ROW_COUNT) {
            for (var j = 0u; j < 4u; j = j + 1u) {
                let n = n0 + tx * 4u + j;
                if (n < N) {
                    var g = acc_g2[j];
                    var u = acc_u2[j];
                    g = g + f32(gate_bias[n]);
                    y[row * N + n] = f32(silu_mul(g, u));
                }
            }
        }
    }
    {
        let row = m0 + ty * 4u + 3u;
        if (row < ROW_COUNT) {
            for (var j = 0u; j < 4u; j = j + 1u) {
                let n = n0 + tx * 4u + j;
                if (n < N) {
                    var g = acc_g3[j];
                    var u = acc_u3[j];
                    g = g + f32(gate_bias[n]);
                    y[row * N + n] = f32(silu_mul(g, u));
                }
            }
        }
    }
}