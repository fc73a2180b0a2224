// snapshot seed-fused-skipsum-f16-rows1: variant fused_skipsum_gb_noub, float16 K 100 N 37 rows 1 bits 4 block 16, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `main`: mlp-gate-up.wgsl.jinja, dispatch [10, 1, 1], workgroup size [64, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> skip: array<f16>;
@group(0) @binding(2) var<storage, read> norm_scale: array<f16>;
@group(0) @binding(3) var<storage, read> gate_b: array<u32>;
@group(0) @binding(4) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(5) var<storage, read> gate_bias: array<f16>;
@group(0) @binding(6) var<storage, read> up_b: array<u32>;
@group(0) @binding(7) var<storage, read> up_scales: array<f16>;
@group(0) @binding(8) var<storage, read_write> y: array<f16>;
@group(0) @binding(9) var<storage, read_write> residual: array<f16>;
// ---- template ----
const K: u32 = 100u;
const N: u32 = 37u;
const BLOCK: u32 = 16u;
const KB: u32 = 7u;          // blocks per weight row
const WPB: u32 = 2u;             // u32 words per blob
const WPR: u32 = 14u;             // u32 words per weight row
const UPR: u32 = 14u;             // load units per weight row (1 word(s) each)
const CPW: u32 = 8u;             // codes per u32 word
const BITS: u32 = 4u;
const MASK: u32 = 15u;
const ZERO: f32 = 8.0;
const WG: u32 = 64u;
const COLS: u32 = 4u;
const LPC: u32 = 16u;             // lanes per column
const ROWS: u32 = 1u;           // rows per workgroup
const ROW_COUNT: u32 = 1u;
const EPS: f32 = f32(0.00001);

var<workgroup> red: array<f32, 128>;

// One activation value, before the inline norm's 1/rms (applied to the sums).
fn load_act(row: u32, k: u32) -> f32 {
    let i = row * K + k;
    var s = f32(a[i]);
    s = s + f32(skip[i]);
    return s * f32(norm_scale[k]);
}

// Four activations at k, k+1, k+2, k+3 (k is a multiple of 4 and k + 3 < K).
fn act4(row: u32, k: u32) -> vec4<f32> {
    return vec4<f32>(load_act(row, k), load_act(row, k + 1u), load_act(row, k + 2u), load_act(row, k + 3u));
}

// Four activations where some of k..k+3 may be >= K (those read as 0).
fn act4_tail(row: u32, k: u32) -> vec4<f32> {
    var v = vec4<f32>(0.0);
    for (var i = 0u; i < 4u; i = i + 1u) {
        if (k + i < K) {
            v[i] = load_act(row, k + i);
        }
    }
    return v;
}

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}

// Decode walk (one row per workgroup): the WG threads form CG groups of TPC lanes; the lanes of a
// group walk K together and every lane handles all CPG columns of its group, so each activation
// load serves 2 * CPG dot products and each lane has 2 * CPG independent weight loads in flight.
// TPC is the smallest power of two covering the row's load units (at least WG / COLS), so short
// rows still keep every lane busy.
const TPC: u32 = 16u;             // lanes per column group
const CPG: u32 = 1u;             // columns per group
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let grp = t / TPC;
    let l = t % TPC;
    let n0 = wid.x * COLS + grp * CPG;
    let row_base = wid.y;
    let row0 = min(row_base, ROW_COUNT - 1u);

    // Inline RMSNorm of the single row: 1/rms over all of K by the whole workgroup.
    var ss = 0.0;
    for (var k = t; k < K; k = k + WG) {
        let i = row0 * K + k;
        var s = f32(a[i]);
        s = s + f32(skip[i]);
        if (wid.x == 0u) {
            residual[i] = f16(s);
        }
        ss = ss + s * s;
    }
    red[t] = ss;
    workgroupBarrier();
    for (var step = WG / 2u; step > 0u; step = step >> 1u) {
        if (t < step) {
            red[t] = red[t] + red[t + step];
        }
        workgroupBarrier();
    }
    let inv_rms = inverseSqrt(red[0] / f32(K) + EPS);
    workgroupBarrier();
    let nn0 = min(n0 + 0u, N - 1u);
    var acc_g0 = 0.0;
    var acc_u0 = 0.0;
    for (var unit = l; unit < UPR; unit = unit + TPC) {
        let gv0 = vec4<u32>(gate_b[nn0 * WPR + unit]);
        let uv0 = vec4<u32>(up_b[nn0 * WPR + unit]);
        for (var wi = 0u; wi < 1u; wi = wi + 1u) {
            let w = unit * 1u + wi;
            let b = w / WPB;
            let k0 = b * BLOCK + (w % WPB) * CPW;
            let gs0 = f32(gate_scales[nn0 * KB + b]);
            let us0 = f32(up_scales[nn0 * KB + b]);
            let gw0 = vec4<u32>(gv0[wi]);
            let uw0 = vec4<u32>(uv0[wi]);
            for (var q = 0u; q < CPW / 4u; q = q + 1u) {
                let k = k0 + 4u * q;
                var av = vec4<f32>(0.0);
                if (k + 4u <= K) {
                    av = act4(row0, k);
                } else if (k < K) {
                    av = act4_tail(row0, k);
                }
                let sh = vec4<u32>(0u, BITS, 2u * BITS, 3u * BITS) + vec4<u32>(4u * q * BITS);
                acc_g0 = acc_g0 + gs0 * dot(av, vec4<f32>((gw0 >> sh) & vec4<u32>(MASK)) - vec4<f32>(ZERO));
                acc_u0 = acc_u0 + us0 * dot(av, vec4<f32>((uw0 >> sh) & vec4<u32>(MASK)) - vec4<f32>(ZERO));
            }
        }
    }

    // Reduce each column's sums over the workgroup and write y.
    red[t] = acc_g0;
    red[WG + t] = acc_u0;
    workgroupBarrier();
    for (var step = TPC / 2u; step > 0u; step = step >> 1u) {
        if (l < step) {
            red[t] = red[t] + red[t + step];
            red[WG + t] = red[WG + t] + red[WG + t + step];
        }
        workgroupBarrier();
    }
    if (l == 0u && n0 + 0u < N && row_base < ROW_COUNT) {
        let n = n0 + 0u;
        var g = red[t];
        var u = red[WG + t];
        g = g * inv_rms;
        u = u * inv_rms;
        g = g + f32(gate_bias[n]);
        y[row_base * N + n] = f16(silu_mul(g, u));
    }
    workgroupBarrier();
}
