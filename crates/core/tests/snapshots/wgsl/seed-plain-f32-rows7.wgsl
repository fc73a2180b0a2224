// snapshot seed-plain-f32-rows7: variant plain_nogb_ub, float32 K 93 N 37 rows 7 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `main`: mlp-gate-up.wgsl.jinja, dispatch [5, 1, 1], workgroup size [64, 1, 1] ====
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> gate_b: array<u32>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f32>;
@group(0) @binding(3) var<storage, read> up_b: array<u32>;
@group(0) @binding(4) var<storage, read> up_scales: array<f32>;
@group(0) @binding(5) var<storage, read> up_bias: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;
// ---- template ----
const K: u32 = 93u;
const N: u32 = 37u;
const BLOCK: u32 = 32u;
const KB: u32 = 3u;          // blocks per weight row
const WPB: u32 = 4u;             // u32 words per blob
const WPR: u32 = 12u;             // u32 words per weight row
const UPR: u32 = 12u;             // load units per weight row (1 word(s) each)
const CPW: u32 = 8u;             // codes per u32 word
const BITS: u32 = 4u;
const MASK: u32 = 15u;
const ZERO: f32 = 8.0;
const WG: u32 = 64u;
const COLS: u32 = 8u;
const LPC: u32 = 8u;             // lanes per column
const ROWS: u32 = 7u;           // rows per workgroup
const ROW_COUNT: u32 = 7u;

var<workgroup> red: array<f32, 128>;

// One activation value, before the inline norm's 1/rms (applied to the sums).
fn load_act(row: u32, k: u32) -> f32 {
    let i = row * K + k;
    return f32(a[i]);
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

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let c = t / LPC;
    let l = t % LPC;
    let n = wid.x * COLS + c;
    let col_ok = n < N;
    let nn = min(n, N - 1u);
    let row_base = wid.y * ROWS;

    let row0 = min(row_base + 0u, ROW_COUNT - 1u);
    var acc_g0 = 0.0;
    var acc_u0 = 0.0;
    let row1 = min(row_base + 1u, ROW_COUNT - 1u);
    var acc_g1 = 0.0;
    var acc_u1 = 0.0;
    let row2 = min(row_base + 2u, ROW_COUNT - 1u);
    var acc_g2 = 0.0;
    var acc_u2 = 0.0;
    let row3 = min(row_base + 3u, ROW_COUNT - 1u);
    var acc_g3 = 0.0;
    var acc_u3 = 0.0;
    let row4 = min(row_base + 4u, ROW_COUNT - 1u);
    var acc_g4 = 0.0;
    var acc_u4 = 0.0;
    let row5 = min(row_base + 5u, ROW_COUNT - 1u);
    var acc_g5 = 0.0;
    var acc_u5 = 0.0;
    let row6 = min(row_base + 6u, ROW_COUNT - 1u);
    var acc_g6 = 0.0;
    var acc_u6 = 0.0;
    for (var unit = l; unit < UPR; unit = unit + LPC) {
        let gv = vec4<u32>(gate_b[nn * WPR + unit]);
        let uv = vec4<u32>(up_b[nn * WPR + unit]);
        // Unrolled here (not WGSL loops) so accumulators and vector lanes stay in registers.
        {
            let w = unit * 1u + 0u;
            let b = w / WPB;
            let k0 = b * BLOCK + (w % WPB) * CPW;
            let gs = f32(gate_scales[nn * KB + b]);
            let us = f32(up_scales[nn * KB + b]);
            {
                let sh = vec4<u32>(0u, 4u, 8u, 12u);
                let gc = (vec4<f32>((vec4<u32>(gv[0]) >> sh) & vec4<u32>(MASK)) - vec4<f32>(ZERO)) * gs;
                let uc = (vec4<f32>((vec4<u32>(uv[0]) >> sh) & vec4<u32>(MASK)) - vec4<f32>(ZERO)) * us;
                let k = k0 + 0u;
                if (k + 4u <= K) {
                    let av0 = act4(row0, k);
                    acc_g0 = acc_g0 + dot(av0, gc);
                    acc_u0 = acc_u0 + dot(av0, uc);
                    let av1 = act4(row1, k);
                    acc_g1 = acc_g1 + dot(av1, gc);
                    acc_u1 = acc_u1 + dot(av1, uc);
                    let av2 = act4(row2, k);
                    acc_g2 = acc_g2 + dot(av2, gc);
                    acc_u2 = acc_u2 + dot(av2, uc);
                    let av3 = act4(row3, k);
                    acc_g3 = acc_g3 + dot(av3, gc);
                    acc_u3 = acc_u3 + dot(av3, uc);
                    let av4 = act4(row4, k);
                    acc_g4 = acc_g4 + dot(av4, gc);
                    acc_u4 = acc_u4 + dot(av4, uc);
                    let av5 = act4(row5, k);
                    acc_g5 = acc_g5 + dot(av5, gc);
                    acc_u5 = acc_u5 + dot(av5, uc);
                    let av6 = act4(row6, k);
                    acc_g6 = acc_g6 + dot(av6, gc);
                    acc_u6 = acc_u6 + dot(av6, uc);
                } else if (k < K) {
                    let av0 = act4_tail(row0, k);
                    acc_g0 = acc_g0 + dot(av0, gc);
                    acc_u0 = acc_u0 + dot(av0, uc);
                    let av1 = act4_tail(row1, k);
                    acc_g1 = acc_g1 + dot(av1, gc);
                    acc_u1 = acc_u1 + dot(av1, uc);
                    let av2 = act4_tail(row2, k);
                    acc_g2 = acc_g2 + dot(av2, gc);
                    acc_u2 = acc_u2 + dot(av2, uc);
                    let av3 = act4_tail(row3, k);
                    acc_g3 = acc_g3 + dot(av3, gc);
                    acc_u3 = acc_u3 + dot(av3, uc);
                    let av4 = act4_tail(row4, k);
                    acc_g4 = acc_g4 + dot(av4, gc);
                    acc_u4 = acc_u4 + dot(av4, uc);
                    let av5 = act4_tail(row5, k);
                    acc_g5 = acc_g5 + dot(av5, gc);
                    acc_u5 = acc_u5 + dot(av5, uc);
                    let av6 = act4_tail(row6, k);
                    acc_g6 = acc_g6 + dot(av6, gc);
                    acc_u6 = acc_u6 + dot(av6, uc);
                }
            }
            {
                let sh = vec4<u32>(16u, 20u, 24u, 28u);
                let gc = (vec4<f32>((vec4<u32>(gv[0]) >> sh) & vec4<u32>(MASK)) - vec4<f32>(ZERO)) * gs;
                let uc = (vec4<f32>((vec4<u32>(uv[0]) >> sh) & vec4<u32>(MASK)) - vec4<f32>(ZERO)) * us;
                let k = k0 + 4u;
                if (k + 4u <= K) {
                    let av0 = act4(row0, k);
                    acc_g0 = acc_g0 + dot(av0, gc);
                    acc_u0 = acc_u0 + dot(av0, uc);
                    let av1 = act4(row1, k);
                    acc_g1 = acc_g1 + dot(av1, gc);
                    acc_u1 = acc_u1 + dot(av1, uc);
                    let av2 = act4(row2, k);
                    acc_g2 = acc_g2 + dot(av2, gc);
                    acc_u2 = acc_u2 + dot(av2, uc);
                    let av3 = act4(row3, k);
                    acc_g3 = acc_g3 + dot(av3, gc);
                    acc_u3 = acc_u3 + dot(av3, uc);
                    let av4 = act4(row4, k);
                    acc_g4 = acc_g4 + dot(av4, gc);
                    acc_u4 = acc_u4 + dot(av4, uc);
                    let av5 = act4(row5, k);
                    acc_g5 = acc_g5 + dot(av5, gc);
                    acc_u5 = acc_u5 + dot(av5, uc);
                    let av6 = act4(row6, k);
                    acc_g6 = acc_g6 + dot(av6, gc);
                    acc_u6 = acc_u6 + dot(av6, uc);
                } else if (k < K) {
                    let av0 = act4_tail(row0, k);
                    acc_g0 = acc_g0 + dot(av0, gc);
                    acc_u0 = acc_u0 + dot(av0, uc);
                    let av1 = act4_tail(row1, k);
                    acc_g1 = acc_g1 + dot(av1, gc);
                    acc_u1 = acc_u1 + dot(av1, uc);
                    let av2 = act4_tail(row2, k);
                    acc_g2 = acc_g2 + dot(av2, gc);
                    acc_u2 = acc_u2 + dot(av2, uc);
                    let av3 = act4_tail(row3, k);
                    acc_g3 = acc_g3 + dot(av3, gc);
                    acc_u3 = acc_u3 + dot(av3, uc);
                    let av4 = act4_tail(row4, k);
                    acc_g4 = acc_g4 + dot(av4, gc);
                    acc_u4 = acc_u4 + dot(av4, uc);
                    let av5 = act4_tail(row5, k);
                    acc_g5 = acc_g5 + dot(av5, gc);
                    acc_u5 = acc_u5 + dot(av5, uc);
                    let av6 = act4_tail(row6, k);
                    acc_g6 = acc_g6 + dot(av6, gc);
                    acc_u6 = acc_u6 + dot(av6, uc);
                }
            }
        }
    }

    // Reduce the LPC lanes of each column, one row at a time, and write y.
    red[t] = acc_g0;
    red[WG + t] = acc_u0;
    workgroupBarrier();
    for (var step = LPC / 2u; step > 0u; step = step >> 1u) {
        if (l < step) {
            red[t] = red[t] + red[t + step];
            red[WG + t] = red[WG + t] + red[WG + t + step];
        }
        workgroupBarrier();
    }
    if (l == 0u && col_ok && row_base + 0u < ROW_COUNT) {
        var g = red[t];
        var u = red[WG + t];
        u = u + f32(up_bias[n]);
        y[(row_base + 0u) * N + n] = f32(silu_mul(g, u));
    }
    workgroupBarrier();
    red[t] = acc_g1;
    red[WG + t] = acc_u1;
    workgroupBarrier();
    for (var step = LPC / 2u; step > 0u; step = step >> 1u) {
        if (l < step) {
            red[t] = red[t] + red[t + step];
            red[WG + t] = red[WG + t] + red[WG + t + step];
        }
        workgroupBarrier();
    }
    if (l == 0u && col_ok && row_base + 1u < ROW_COUNT) {
        var g = red[t];
        var u = red[WG + t];
        u = u + f32(up_bias[n]);
        y[(row_base + 1u) * N + n] = f32(silu_mul(g, u));
    }
    workgroupBarrier();
    red[t] = acc_g2;
    red[WG + t] = acc_u2;
    workgroupBarrier();
    for (var step = LPC / 2u; step > 0u; step = step >> 1u) {
        if (l < step) {
            red[t] = red[t] + red[t + step];
            red[WG + t] = red[WG + t] + red[WG + t + step];
        }
        workgroupBarrier();
    }
    if (l == 0u && col_ok && row_base + 2u < ROW_COUNT) {
        var g = red[t];
        var u = red[WG + t];
        u = u + f32(up_bias[n]);
        y[(row_base + 2u) * N + n] = f32(silu_mul(g, u));
    }
    workgroupBarrier();
    red[t] = acc_g3;
    red[WG + t] = acc_u3;
    workgroupBarrier();
    for (var step = LPC / 2u; step > 0u; step = step >> 1u) {
        if (l < step) {
            red[t] = red[t] + red[t + step];
            red[WG + t] = red[WG + t] + red[WG + t + step];
        }
        workgroupBarrier();
    }
    if (l == 0u && col_ok && row_base + 3u < ROW_COUNT) {
        var g = red[t];
        var u = red[WG + t];
        u = u + f32(up_bias[n]);
        y[(row_base + 3u) * N + n] = f32(silu_mul(g, u));
    }
    workgroupBarrier();
    red[t] = acc_g4;
    red[WG + t] = acc_u4;
    workgroupBarrier();
    for (var step = LPC / 2u; step > 0u; step = step >> 1u) {
        if (l < step) {
            red[t] = red[t] + red[t + step];
            red[WG + t] = red[WG + t] + red[WG + t + step];
        }
        workgroupBarrier();
    }
    if (l == 0u && col_ok && row_base + 4u < ROW_COUNT) {
        var g = red[t];
        var u = red[WG + t];
        u = u + f32(up_bias[n]);
        y[(row_base + 4u) * N + n] = f32(silu_mul(g, u));
    }
    workgroupBarrier();
    red[t] = acc_g5;
    red[WG + t] = acc_u5;
    workgroupBarrier();
    for (var step = LPC / 2u; step > 0u; step = step >> 1u) {
        if (l < step) {
            red[t] = red[t] + red[t + step];
            red[WG + t] = red[WG + t] + red[WG + t + step];
        }
        workgroupBarrier();
    }
    if (l == 0u && col_ok && row_base + 5u < ROW_COUNT) {
        var g = red[t];
        var u = red[WG + t];
        u = u + f32(up_bias[n]);
        y[(row_base + 5u) * N + n] = f32(silu_mul(g, u));
    }
    workgroupBarrier();
    red[t] = acc_g6;
    red[WG + t] = acc_u6;
    workgroupBarrier();
    for (var step = LPC / 2u; step > 0u; step = step >> 1u) {
        if (l < step) {
            red[t] = red[t] + red[t + step];
            red[WG + t] = red[WG + t] + red[WG + t + step];
        }
        workgroupBarrier();
    }
    if (l == 0u && col_ok && row_base + 6u < ROW_COUNT) {
        var g = red[t];
        var u = red[WG + t];
        u = u + f32(up_bias[n]);
        y[(row_base + 6u) * N + n] = f32(silu_mul(g, u));
    }
    workgroupBarrier();
}
