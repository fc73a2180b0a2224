// snapshot gemv-norm-f32-bits2: variant gemv_norm_gb_ub, float32 K 4096 N 1024 rows 1 bits 2 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `norm`: matmul-nbits-fused-rms-norm.wgsl.jinja, dispatch [1, 1, 1], workgroup size [1024, 1, 1] ====
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
const WG: u32 = 1024u;
const EPS: f32 = f32(0.00001);
// Two-level reduction: WG partial sums, then 32 sums of 32 (strided: thread g adds
// partial[g], partial[g + NG], ...), then every thread adds the 32: two barriers.
const NG: u32 = 32u;

var<workgroup> partial: array<f32, 1024>;
var<workgroup> partial2: array<f32, 32>;

fn load_s(i: u32) -> f32 {
    var s = f32(a[i]);
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
// ==== pass `main`: mlp-gemv.wgsl.jinja, dispatch [64, 1, 1], workgroup size [128, 1, 1] ====
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> normed: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f32>;
@group(0) @binding(3) var<storage, read> gate_bias: array<f32>;
@group(0) @binding(4) var<storage, read> up_b: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read> up_scales: array<f32>;
@group(0) @binding(6) var<storage, read> up_bias: array<f32>;
@group(0) @binding(7) var<storage, read_write> y: array<f32>;
// ---- template ----
const K: u32 = 4096u;
const N: u32 = 1024u;
const KB: u32 = 128u;          // blocks (scales) per weight row
const UNITS: u32 = 128u;         // 32-code units per weight row
const ROWE: u32 = 128u;           // weight elements (2 words) per row
const WG: u32 = 128u;
const COLS: u32 = 16u;             // columns per workgroup
const MAGIC: u32 = 0x4B000000u;          // the exponent of 2^23

var<workgroup> red: array<f32, 256>;
var<workgroup> red2: array<f32, 32>;

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    // Weights of the first batch: requested first, so their latency overlaps the activations.
    var wg0_0_0: vec2<u32>;
    var wsg0_0_0: f32;
    var wu0_0_0: vec2<u32>;
    var wsu0_0_0: f32;
        {
            let n = min(wid.x * COLS + (0u) * 1u + 0u, N - 1u);
            {
                let u = min(t + 0u, UNITS - 1u);
                wg0_0_0 = gate_b[n * ROWE + u * 1u + 0u];
                wsg0_0_0 = f32(gate_scales[n * KB + (u * 32u + 0u) / 32u]);
                wu0_0_0 = up_b[n * ROWE + u * 1u + 0u];
                wsu0_0_0 = f32(up_scales[n * KB + (u * 32u + 0u) / 32u]);
            }
        }

    // The decode's exponent bits (MAGIC) as a value the driver's
    // compiler cannot fold (no workgroup id is 2^32 - 1, which it does not assume):
    // each code's mask and or then take one LOP3 (`v & imm | reg`) instead of two
    // (dequant.wgsl.jinja's `magic`; notes/PERF.md row 163).
    let magic = select(MAGIC, 0u, wid.x == 0xFFFFFFFFu);

    // This thread's activations: unit t + j * WG, slot q = codes 4q .. 4q+3, pre-scaled; from
    // `normed` (f32, norm_scale and 1/rms applied by the norm pass) or from `a` (+ `skip`, times
    // norm_scale and 1/rms below, for the inline norm). Each thread reads 32 consecutive values,
    // so a scalar load of a subgroup touches 32 strided places: where K allows, `a`, `skip` and
    // `norm_scale` are bound as arrays of 16-byte vectors (gemvActElement: 8 f16 packed in a
    // vec4<u32>, or a vec4<f32>) and a unit is 4 or 8 contiguous 16-byte loads.
    let rowk0 = 0u;
    var x0_0_0 = vec4<f32>(0.0);
    var x0_0_1 = vec4<f32>(0.0);
    var x0_0_2 = vec4<f32>(0.0);
    var x0_0_3 = vec4<f32>(0.0);
    var x0_0_4 = vec4<f32>(0.0);
    var x0_0_5 = vec4<f32>(0.0);
    var x0_0_6 = vec4<f32>(0.0);
    var x0_0_7 = vec4<f32>(0.0);
    {
        let k0 = (t + 0u) * 32u;
        if (k0 + 32u <= K) {
            x0_0_0 = normed[((rowk0 + k0) >> 2u) + 0u];
            x0_0_1 = normed[((rowk0 + k0) >> 2u) + 1u];
            x0_0_2 = normed[((rowk0 + k0) >> 2u) + 2u];
            x0_0_3 = normed[((rowk0 + k0) >> 2u) + 3u];
            x0_0_4 = normed[((rowk0 + k0) >> 2u) + 4u];
            x0_0_5 = normed[((rowk0 + k0) >> 2u) + 5u];
            x0_0_6 = normed[((rowk0 + k0) >> 2u) + 6u];
            x0_0_7 = normed[((rowk0 + k0) >> 2u) + 7u];
        } else {
            // The unit that straddles K (or lies past it): element by element.
            if (k0 + 0u < K) {
                x0_0_0[0] = normed[((rowk0 + k0) >> 2u) + 0u][0];
            }
            if (k0 + 1u < K) {
                x0_0_0[1] = normed[((rowk0 + k0) >> 2u) + 0u][1];
            }
            if (k0 + 2u < K) {
                x0_0_0[2] = normed[((rowk0 + k0) >> 2u) + 0u][2];
            }
            if (k0 + 3u < K) {
                x0_0_0[3] = normed[((rowk0 + k0) >> 2u) + 0u][3];
            }
            if (k0 + 4u < K) {
                x0_0_1[0] = normed[((rowk0 + k0) >> 2u) + 1u][0];
            }
            if (k0 + 5u < K) {
                x0_0_1[1] = normed[((rowk0 + k0) >> 2u) + 1u][1];
            }
            if (k0 + 6u < K) {
                x0_0_1[2] = normed[((rowk0 + k0) >> 2u) + 1u][2];
            }
            if (k0 + 7u < K) {
                x0_0_1[3] = normed[((rowk0 + k0) >> 2u) + 1u][3];
            }
            if (k0 + 8u < K) {
                x0_0_2[0] = normed[((rowk0 + k0) >> 2u) + 2u][0];
            }
            if (k0 + 9u < K) {
                x0_0_2[1] = normed[((rowk0 + k0) >> 2u) + 2u][1];
            }
            if (k0 + 10u < K) {
                x0_0_2[2] = normed[((rowk0 + k0) >> 2u) + 2u][2];
            }
            if (k0 + 11u < K) {
                x0_0_2[3] = normed[((rowk0 + k0) >> 2u) + 2u][3];
            }
            if (k0 + 12u < K) {
                x0_0_3[0] = normed[((rowk0 + k0) >> 2u) + 3u][0];
            }
            if (k0 + 13u < K) {
                x0_0_3[1] = normed[((rowk0 + k0) >> 2u) + 3u][1];
            }
            if (k0 + 14u < K) {
                x0_0_3[2] = normed[((rowk0 + k0) >> 2u) + 3u][2];
            }
            if (k0 + 15u < K) {
                x0_0_3[3] = normed[((rowk0 + k0) >> 2u) + 3u][3];
            }
            if (k0 + 16u < K) {
                x0_0_4[0] = normed[((rowk0 + k0) >> 2u) + 4u][0];
            }
            if (k0 + 17u < K) {
                x0_0_4[1] = normed[((rowk0 + k0) >> 2u) + 4u][1];
            }
            if (k0 + 18u < K) {
                x0_0_4[2] = normed[((rowk0 + k0) >> 2u) + 4u][2];
            }
            if (k0 + 19u < K) {
                x0_0_4[3] = normed[((rowk0 + k0) >> 2u) + 4u][3];
            }
            if (k0 + 20u < K) {
                x0_0_5[0] = normed[((rowk0 + k0) >> 2u) + 5u][0];
            }
            if (k0 + 21u < K) {
                x0_0_5[1] = normed[((rowk0 + k0) >> 2u) + 5u][1];
            }
            if (k0 + 22u < K) {
                x0_0_5[2] = normed[((rowk0 + k0) >> 2u) + 5u][2];
            }
            if (k0 + 23u < K) {
                x0_0_5[3] = normed[((rowk0 + k0) >> 2u) + 5u][3];
            }
            if (k0 + 24u < K) {
                x0_0_6[0] = normed[((rowk0 + k0) >> 2u) + 6u][0];
            }
            if (k0 + 25u < K) {
                x0_0_6[1] = normed[((rowk0 + k0) >> 2u) + 6u][1];
            }
            if (k0 + 26u < K) {
                x0_0_6[2] = normed[((rowk0 + k0) >> 2u) + 6u][2];
            }
            if (k0 + 27u < K) {
                x0_0_6[3] = normed[((rowk0 + k0) >> 2u) + 6u][3];
            }
            if (k0 + 28u < K) {
                x0_0_7[0] = normed[((rowk0 + k0) >> 2u) + 7u][0];
            }
            if (k0 + 29u < K) {
                x0_0_7[1] = normed[((rowk0 + k0) >> 2u) + 7u][1];
            }
            if (k0 + 30u < K) {
                x0_0_7[2] = normed[((rowk0 + k0) >> 2u) + 7u][2];
            }
            if (k0 + 31u < K) {
                x0_0_7[3] = normed[((rowk0 + k0) >> 2u) + 7u][3];
            }
        }
    }
    // Pre-scaled by 2^-o (o the code's bit offset in its half word).
    x0_0_0 = x0_0_0 * vec4<f32>(1.0, 0.25, 0.0625, 0.015625);
    x0_0_1 = x0_0_1 * vec4<f32>(0.00390625, 0.0009765625, 0.000244140625, 0.00006103515625);
    x0_0_2 = x0_0_2 * vec4<f32>(1.0, 0.25, 0.0625, 0.015625);
    x0_0_3 = x0_0_3 * vec4<f32>(0.00390625, 0.0009765625, 0.000244140625, 0.00006103515625);
    x0_0_4 = x0_0_4 * vec4<f32>(1.0, 0.25, 0.0625, 0.015625);
    x0_0_5 = x0_0_5 * vec4<f32>(0.00390625, 0.0009765625, 0.000244140625, 0.00006103515625);
    x0_0_6 = x0_0_6 * vec4<f32>(1.0, 0.25, 0.0625, 0.015625);
    x0_0_7 = x0_0_7 * vec4<f32>(0.00390625, 0.0009765625, 0.000244140625, 0.00006103515625);

    for (var b = 0u; b < 16u; b = b + 1u) {
        // Take this batch's weights, request the next batch's.
        let cg0_0_0 = wg0_0_0;
        let csg0_0_0 = wsg0_0_0;
        let cu0_0_0 = wu0_0_0;
        let csu0_0_0 = wsu0_0_0;
        if (b + 1u < 16u) {
        {
            let n = min(wid.x * COLS + (b + 1u) * 1u + 0u, N - 1u);
            {
                let u = min(t + 0u, UNITS - 1u);
                wg0_0_0 = gate_b[n * ROWE + u * 1u + 0u];
                wsg0_0_0 = f32(gate_scales[n * KB + (u * 32u + 0u) / 32u]);
                wu0_0_0 = up_b[n * ROWE + u * 1u + 0u];
                wsu0_0_0 = f32(up_scales[n * KB + (u * 32u + 0u) / 32u]);
            }
        }

        }
        var g0_0 = 0.0;
        var u0_0 = 0.0;
        {
            var acc0_0 = vec4<f32>(0.0);
            {
                let lo = cg0_0_0[0];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(3u, 12u, 48u, 192u)) | vec4<u32>(magic)) - vec4<f32>(8388610.0, 8388616.0, 8388640.0, 8388736.0);
                acc0_0 = fma(d0, x0_0_0, acc0_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(768u, 3072u, 12288u, 49152u)) | vec4<u32>(magic)) - vec4<f32>(8389120.0, 8390656.0, 8396800.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_1, acc0_0);
                let d2 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(3u, 12u, 48u, 192u)) | vec4<u32>(magic)) - vec4<f32>(8388610.0, 8388616.0, 8388640.0, 8388736.0);
                acc0_0 = fma(d2, x0_0_2, acc0_0);
                let d3 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(768u, 3072u, 12288u, 49152u)) | vec4<u32>(magic)) - vec4<f32>(8389120.0, 8390656.0, 8396800.0, 8421376.0);
                acc0_0 = fma(d3, x0_0_3, acc0_0);
            }
            {
                let lo = cg0_0_0[1];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(3u, 12u, 48u, 192u)) | vec4<u32>(magic)) - vec4<f32>(8388610.0, 8388616.0, 8388640.0, 8388736.0);
                acc0_0 = fma(d0, x0_0_4, acc0_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(768u, 3072u, 12288u, 49152u)) | vec4<u32>(magic)) - vec4<f32>(8389120.0, 8390656.0, 8396800.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_5, acc0_0);
                let d2 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(3u, 12u, 48u, 192u)) | vec4<u32>(magic)) - vec4<f32>(8388610.0, 8388616.0, 8388640.0, 8388736.0);
                acc0_0 = fma(d2, x0_0_6, acc0_0);
                let d3 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(768u, 3072u, 12288u, 49152u)) | vec4<u32>(magic)) - vec4<f32>(8389120.0, 8390656.0, 8396800.0, 8421376.0);
                acc0_0 = fma(d3, x0_0_7, acc0_0);
            }
            g0_0 = fma(csg0_0_0, (acc0_0.x + acc0_0.y) + (acc0_0.z + acc0_0.w), g0_0);
        }
        {
            var acc0_0 = vec4<f32>(0.0);
            {
                let lo = cu0_0_0[0];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(3u, 12u, 48u, 192u)) | vec4<u32>(magic)) - vec4<f32>(8388610.0, 8388616.0, 8388640.0, 8388736.0);
                acc0_0 = fma(d0, x0_0_0, acc0_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(768u, 3072u, 12288u, 49152u)) | vec4<u32>(magic)) - vec4<f32>(8389120.0, 8390656.0, 8396800.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_1, acc0_0);
                let d2 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(3u, 12u, 48u, 192u)) | vec4<u32>(magic)) - vec4<f32>(8388610.0, 8388616.0, 8388640.0, 8388736.0);
                acc0_0 = fma(d2, x0_0_2, acc0_0);
                let d3 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(768u, 3072u, 12288u, 49152u)) | vec4<u32>(magic)) - vec4<f32>(8389120.0, 8390656.0, 8396800.0, 8421376.0);
                acc0_0 = fma(d3, x0_0_3, acc0_0);
            }
            {
                let lo = cu0_0_0[1];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(3u, 12u, 48u, 192u)) | vec4<u32>(magic)) - vec4<f32>(8388610.0, 8388616.0, 8388640.0, 8388736.0);
                acc0_0 = fma(d0, x0_0_4, acc0_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(768u, 3072u, 12288u, 49152u)) | vec4<u32>(magic)) - vec4<f32>(8389120.0, 8390656.0, 8396800.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_5, acc0_0);
                let d2 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(3u, 12u, 48u, 192u)) | vec4<u32>(magic)) - vec4<f32>(8388610.0, 8388616.0, 8388640.0, 8388736.0);
                acc0_0 = fma(d2, x0_0_6, acc0_0);
                let d3 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(768u, 3072u, 12288u, 49152u)) | vec4<u32>(magic)) - vec4<f32>(8389120.0, 8390656.0, 8396800.0, 8421376.0);
                acc0_0 = fma(d3, x0_0_7, acc0_0);
            }
            u0_0 = fma(csu0_0_0, (acc0_0.x + acc0_0.y) + (acc0_0.z + acc0_0.w), u0_0);
        }

        // Reduce the batch over the workgroup: red[o * WG + t] for o = 2 (r * CB + c) (gate) and
        // 2 (r * CB + c) + 1 (up); sums of 8 consecutive entries; then one thread per output
        // (row r of the group, column c of the batch) adds WG / 8 of those.
        red[0u * WG + t] = g0_0;
        red[1u * WG + t] = u0_0;
        workgroupBarrier();
        for (var r = t; r < 32u; r = r + WG) {
            let i = r * 8u;
            red2[r] = ((red[i] + red[i + 1u]) + (red[i + 2u] + red[i + 3u])) + ((red[i + 4u] + red[i + 5u]) + (red[i + 6u] + red[i + 7u]));
        }
        workgroupBarrier();
        if (t < 1u) {
            let c = t % 1u;
            let n = wid.x * COLS + b * 1u + c;
            var gs = 0.0;
            var us = 0.0;
            for (var i = 0u; i < WG / 8u; i = i + 1u) {
                gs = gs + red2[(2u * t) * (WG / 8u) + i];
                us = us + red2[(2u * t + 1u) * (WG / 8u) + i];
            }
            if (b * 1u + c < COLS && n < N) {
                gs = gs + f32(gate_bias[n]);
                us = us + f32(up_bias[n]);
                y[n] = f32(silu_mul(gs, us));
            }
        }
    }
}