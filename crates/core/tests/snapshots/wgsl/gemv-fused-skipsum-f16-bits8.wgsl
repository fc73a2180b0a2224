// snapshot gemv-fused-skipsum-f16-bits8: variant gemv_fused_skipsum_gb_ub, float16 K 2048 N 512 rows 1 bits 8 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier), tunables [("GEMVP_ONE_ROW", 1)]
// ==== pass `main`: mlp-gemv.wgsl.jinja, dispatch [32, 1, 1], workgroup size [64, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> skip: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> norm_scale: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> residual: array<f16>;
@group(0) @binding(4) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(6) var<storage, read> gate_bias: array<f16>;
@group(0) @binding(7) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read> up_scales: array<f16>;
@group(0) @binding(9) var<storage, read> up_bias: array<f16>;
@group(0) @binding(10) var<storage, read_write> y: array<f16>;
// ---- template ----
const K: u32 = 2048u;
const N: u32 = 512u;
const KB: u32 = 64u;          // blocks (scales) per weight row
const UNITS: u32 = 64u;         // 32-code units per weight row
const ROWE: u32 = 128u;           // weight elements (4 words) per row
const WG: u32 = 64u;
const COLS: u32 = 16u;             // columns per workgroup
const MAGIC: u32 = 0x4B000000u;          // the exponent of 2^23

var<workgroup> red: array<f32, 256>;
var<workgroup> red2: array<f32, 32>;
var<workgroup> nrm: array<f32, 64>;
var<workgroup> nrm2: array<f32, 8>;
const EPS: f32 = f32(0.00001);

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    // Weights of the first batch: requested first, so their latency overlaps the activations.
    var wg0_0_0: vec4<u32>;
    var wg0_0_1: vec4<u32>;
    var wsg0_0_0: f32;
    var wu0_0_0: vec4<u32>;
    var wu0_0_1: vec4<u32>;
    var wsu0_0_0: f32;
    var wg1_0_0: vec4<u32>;
    var wg1_0_1: vec4<u32>;
    var wsg1_0_0: f32;
    var wu1_0_0: vec4<u32>;
    var wu1_0_1: vec4<u32>;
    var wsu1_0_0: f32;
        {
            let n = min(wid.x * COLS + (0u) * 2u + 0u, N - 1u);
            {
                let u = min(t + 0u, UNITS - 1u);
                wg0_0_0 = gate_b[n * ROWE + u * 2u + 0u];
                wg0_0_1 = gate_b[n * ROWE + u * 2u + 1u];
                wsg0_0_0 = f32(gate_scales[n * KB + (u * 32u + 0u) / 32u]);
                wu0_0_0 = up_b[n * ROWE + u * 2u + 0u];
                wu0_0_1 = up_b[n * ROWE + u * 2u + 1u];
                wsu0_0_0 = f32(up_scales[n * KB + (u * 32u + 0u) / 32u]);
            }
        }
        {
            let n = min(wid.x * COLS + (0u) * 2u + 1u, N - 1u);
            {
                let u = min(t + 0u, UNITS - 1u);
                wg1_0_0 = gate_b[n * ROWE + u * 2u + 0u];
                wg1_0_1 = gate_b[n * ROWE + u * 2u + 1u];
                wsg1_0_0 = f32(gate_scales[n * KB + (u * 32u + 0u) / 32u]);
                wu1_0_0 = up_b[n * ROWE + u * 2u + 0u];
                wu1_0_1 = up_b[n * ROWE + u * 2u + 1u];
                wsu1_0_0 = f32(up_scales[n * KB + (u * 32u + 0u) / 32u]);
            }
        }

    // The decode's exponent bits (0x64006400) as a value the driver's
    // compiler cannot fold (no workgroup id is 2^32 - 1, which it does not assume):
    // each code's mask and or then take one LOP3 (`v & imm | reg`) instead of two
    // (dequant.wgsl.jinja's `magic`; notes/PERF.md row 163).
    let magic = select(0x64006400u, 0u, wid.x == 0xFFFFFFFFu);

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
        var r0 = vec4<u32>(0u);
        if (k0 + 0u < K) {
            r0 = a[((rowk0 + k0) >> 3u) + 0u];
        }
        x0_0_0 = vec4<f32>(unpack2x16float(r0.x), unpack2x16float(r0.y));
        x0_0_1 = vec4<f32>(unpack2x16float(r0.z), unpack2x16float(r0.w));
        var r1 = vec4<u32>(0u);
        if (k0 + 8u < K) {
            r1 = a[((rowk0 + k0) >> 3u) + 1u];
        }
        x0_0_2 = vec4<f32>(unpack2x16float(r1.x), unpack2x16float(r1.y));
        x0_0_3 = vec4<f32>(unpack2x16float(r1.z), unpack2x16float(r1.w));
        var r2 = vec4<u32>(0u);
        if (k0 + 16u < K) {
            r2 = a[((rowk0 + k0) >> 3u) + 2u];
        }
        x0_0_4 = vec4<f32>(unpack2x16float(r2.x), unpack2x16float(r2.y));
        x0_0_5 = vec4<f32>(unpack2x16float(r2.z), unpack2x16float(r2.w));
        var r3 = vec4<u32>(0u);
        if (k0 + 24u < K) {
            r3 = a[((rowk0 + k0) >> 3u) + 3u];
        }
        x0_0_6 = vec4<f32>(unpack2x16float(r3.x), unpack2x16float(r3.y));
        x0_0_7 = vec4<f32>(unpack2x16float(r3.z), unpack2x16float(r3.w));
    }

    var sk0_0 = vec4<f32>(0.0);
    var sk0_1 = vec4<f32>(0.0);
    var sk0_2 = vec4<f32>(0.0);
    var sk0_3 = vec4<f32>(0.0);
    var sk0_4 = vec4<f32>(0.0);
    var sk0_5 = vec4<f32>(0.0);
    var sk0_6 = vec4<f32>(0.0);
    var sk0_7 = vec4<f32>(0.0);
    {
        let k0 = (t + 0u) * 32u;
        var r0 = vec4<u32>(0u);
        if (k0 + 0u < K) {
            r0 = skip[((0u + k0) >> 3u) + 0u];
        }
        sk0_0 = vec4<f32>(unpack2x16float(r0.x), unpack2x16float(r0.y));
        sk0_1 = vec4<f32>(unpack2x16float(r0.z), unpack2x16float(r0.w));
        var r1 = vec4<u32>(0u);
        if (k0 + 8u < K) {
            r1 = skip[((0u + k0) >> 3u) + 1u];
        }
        sk0_2 = vec4<f32>(unpack2x16float(r1.x), unpack2x16float(r1.y));
        sk0_3 = vec4<f32>(unpack2x16float(r1.z), unpack2x16float(r1.w));
        var r2 = vec4<u32>(0u);
        if (k0 + 16u < K) {
            r2 = skip[((0u + k0) >> 3u) + 2u];
        }
        sk0_4 = vec4<f32>(unpack2x16float(r2.x), unpack2x16float(r2.y));
        sk0_5 = vec4<f32>(unpack2x16float(r2.z), unpack2x16float(r2.w));
        var r3 = vec4<u32>(0u);
        if (k0 + 24u < K) {
            r3 = skip[((0u + k0) >> 3u) + 3u];
        }
        sk0_6 = vec4<f32>(unpack2x16float(r3.x), unpack2x16float(r3.y));
        sk0_7 = vec4<f32>(unpack2x16float(r3.z), unpack2x16float(r3.w));
    }

    x0_0_0 = x0_0_0 + sk0_0;
    x0_0_1 = x0_0_1 + sk0_1;
    x0_0_2 = x0_0_2 + sk0_2;
    x0_0_3 = x0_0_3 + sk0_3;
    x0_0_4 = x0_0_4 + sk0_4;
    x0_0_5 = x0_0_5 + sk0_5;
    x0_0_6 = x0_0_6 + sk0_6;
    x0_0_7 = x0_0_7 + sk0_7;

    // Inline RMSNorm of the row (the gemv_fused_* variants): the threads' units cover all of K,
    // so the sum of squares of S = A (+ skip) is a workgroup reduction of what the threads
    // hold. Workgroup 0 writes the residual output S. 1/rms is a factor of every dot product,
    // so it is applied to the sums at the end: the reduction of the squares rides on the first
    // batch's barriers (nrm -> nrm2 -> the output threads) and no barrier holds up the weights
    // before the loop (Llama-8B skip+norm 36.6 -> 32.5 us on the H200, notes/PERF.md row 119).
    // Meanwhile each thread scales its units x = S * norm_scale by its own estimate
    // lsc = 1/rms of its 32 * UPT values, which bounds them as the normalised row is bounded
    // (f16 packed math keeps its relative precision and range), and takes lsc out of its
    // partial sums again (* ilsc) before the batch reduction.
    var ss = 0.0;
    ss = ss + dot(x0_0_0, x0_0_0);
    ss = ss + dot(x0_0_1, x0_0_1);
    ss = ss + dot(x0_0_2, x0_0_2);
    ss = ss + dot(x0_0_3, x0_0_3);
    ss = ss + dot(x0_0_4, x0_0_4);
    ss = ss + dot(x0_0_5, x0_0_5);
    ss = ss + dot(x0_0_6, x0_0_6);
    ss = ss + dot(x0_0_7, x0_0_7);
    if (wid.x == 0u) {
        {
            let k0 = (t + 0u) * 32u;
            if (k0 + 0u < K) {
                residual[k0 + 0u] = f16(x0_0_0[0]);
            }
            if (k0 + 1u < K) {
                residual[k0 + 1u] = f16(x0_0_0[1]);
            }
            if (k0 + 2u < K) {
                residual[k0 + 2u] = f16(x0_0_0[2]);
            }
            if (k0 + 3u < K) {
                residual[k0 + 3u] = f16(x0_0_0[3]);
            }
            if (k0 + 4u < K) {
                residual[k0 + 4u] = f16(x0_0_1[0]);
            }
            if (k0 + 5u < K) {
                residual[k0 + 5u] = f16(x0_0_1[1]);
            }
            if (k0 + 6u < K) {
                residual[k0 + 6u] = f16(x0_0_1[2]);
            }
            if (k0 + 7u < K) {
                residual[k0 + 7u] = f16(x0_0_1[3]);
            }
            if (k0 + 8u < K) {
                residual[k0 + 8u] = f16(x0_0_2[0]);
            }
            if (k0 + 9u < K) {
                residual[k0 + 9u] = f16(x0_0_2[1]);
            }
            if (k0 + 10u < K) {
                residual[k0 + 10u] = f16(x0_0_2[2]);
            }
            if (k0 + 11u < K) {
                residual[k0 + 11u] = f16(x0_0_2[3]);
            }
            if (k0 + 12u < K) {
                residual[k0 + 12u] = f16(x0_0_3[0]);
            }
            if (k0 + 13u < K) {
                residual[k0 + 13u] = f16(x0_0_3[1]);
            }
            if (k0 + 14u < K) {
                residual[k0 + 14u] = f16(x0_0_3[2]);
            }
            if (k0 + 15u < K) {
                residual[k0 + 15u] = f16(x0_0_3[3]);
            }
            if (k0 + 16u < K) {
                residual[k0 + 16u] = f16(x0_0_4[0]);
            }
            if (k0 + 17u < K) {
                residual[k0 + 17u] = f16(x0_0_4[1]);
            }
            if (k0 + 18u < K) {
                residual[k0 + 18u] = f16(x0_0_4[2]);
            }
            if (k0 + 19u < K) {
                residual[k0 + 19u] = f16(x0_0_4[3]);
            }
            if (k0 + 20u < K) {
                residual[k0 + 20u] = f16(x0_0_5[0]);
            }
            if (k0 + 21u < K) {
                residual[k0 + 21u] = f16(x0_0_5[1]);
            }
            if (k0 + 22u < K) {
                residual[k0 + 22u] = f16(x0_0_5[2]);
            }
            if (k0 + 23u < K) {
                residual[k0 + 23u] = f16(x0_0_5[3]);
            }
            if (k0 + 24u < K) {
                residual[k0 + 24u] = f16(x0_0_6[0]);
            }
            if (k0 + 25u < K) {
                residual[k0 + 25u] = f16(x0_0_6[1]);
            }
            if (k0 + 26u < K) {
                residual[k0 + 26u] = f16(x0_0_6[2]);
            }
            if (k0 + 27u < K) {
                residual[k0 + 27u] = f16(x0_0_6[3]);
            }
            if (k0 + 28u < K) {
                residual[k0 + 28u] = f16(x0_0_7[0]);
            }
            if (k0 + 29u < K) {
                residual[k0 + 29u] = f16(x0_0_7[1]);
            }
            if (k0 + 30u < K) {
                residual[k0 + 30u] = f16(x0_0_7[2]);
            }
            if (k0 + 31u < K) {
                residual[k0 + 31u] = f16(x0_0_7[3]);
            }
        }
    }
    // norm_scale of an f16 call stays as loaded (8 halves per 16-byte vector, 4 vectors a
    // unit) until lsc is known, and meets x then, at the same step (Llama-8B skip+norm at one
    // row 34.4 -> 30.7 us on the H200 against unpacking it into 8 vec4<f32> and multiplying
    // first, the same arithmetic; no other model slower; notes/PERF.md row 143).
    var nsp0_0 = vec4<u32>(0u);
    var nsp0_1 = vec4<u32>(0u);
    var nsp0_2 = vec4<u32>(0u);
    var nsp0_3 = vec4<u32>(0u);
    {
        let k0 = (t + 0u) * 32u;
        if (k0 + 0u < K) {
            nsp0_0 = norm_scale[((0u + k0) >> 3u) + 0u];
        }
        if (k0 + 8u < K) {
            nsp0_1 = norm_scale[((0u + k0) >> 3u) + 1u];
        }
        if (k0 + 16u < K) {
            nsp0_2 = norm_scale[((0u + k0) >> 3u) + 2u];
        }
        if (k0 + 24u < K) {
            nsp0_3 = norm_scale[((0u + k0) >> 3u) + 3u];
        }
    }

    nrm[t] = ss;
    let lsc = inverseSqrt(max(ss, 1e-30) / f32(32));
    let ilsc = 1.0 / lsc;
    x0_0_0 = x0_0_0 * (vec4<f32>(unpack2x16float(nsp0_0.x), unpack2x16float(nsp0_0.y)) * lsc);
    x0_0_1 = x0_0_1 * (vec4<f32>(unpack2x16float(nsp0_0.z), unpack2x16float(nsp0_0.w)) * lsc);
    x0_0_2 = x0_0_2 * (vec4<f32>(unpack2x16float(nsp0_1.x), unpack2x16float(nsp0_1.y)) * lsc);
    x0_0_3 = x0_0_3 * (vec4<f32>(unpack2x16float(nsp0_1.z), unpack2x16float(nsp0_1.w)) * lsc);
    x0_0_4 = x0_0_4 * (vec4<f32>(unpack2x16float(nsp0_2.x), unpack2x16float(nsp0_2.y)) * lsc);
    x0_0_5 = x0_0_5 * (vec4<f32>(unpack2x16float(nsp0_2.z), unpack2x16float(nsp0_2.w)) * lsc);
    x0_0_6 = x0_0_6 * (vec4<f32>(unpack2x16float(nsp0_3.x), unpack2x16float(nsp0_3.y)) * lsc);
    x0_0_7 = x0_0_7 * (vec4<f32>(unpack2x16float(nsp0_3.z), unpack2x16float(nsp0_3.w)) * lsc);
    var inv_rms = 0.0;          // 1/rms of the row: the output threads set it in batch 0
    // Pre-scaled by 2^-o (o the code's bit offset in its half word).
    x0_0_0 = x0_0_0 * vec4<f32>(1.0, 0.00390625, 1.0, 0.00390625);
    x0_0_1 = x0_0_1 * vec4<f32>(1.0, 0.00390625, 1.0, 0.00390625);
    x0_0_2 = x0_0_2 * vec4<f32>(1.0, 0.00390625, 1.0, 0.00390625);
    x0_0_3 = x0_0_3 * vec4<f32>(1.0, 0.00390625, 1.0, 0.00390625);
    x0_0_4 = x0_0_4 * vec4<f32>(1.0, 0.00390625, 1.0, 0.00390625);
    x0_0_5 = x0_0_5 * vec4<f32>(1.0, 0.00390625, 1.0, 0.00390625);
    x0_0_6 = x0_0_6 * vec4<f32>(1.0, 0.00390625, 1.0, 0.00390625);
    x0_0_7 = x0_0_7 * vec4<f32>(1.0, 0.00390625, 1.0, 0.00390625);
    // Packed f16: pair i of word w holds the codes i and i + CPH of the word (one per 16-bit
    // half); its activations, pre-scaled by 2^-o' (o' the code's offset in its half after the
    // optional >> 8), as one vec2<f16>. The f32 slots above were pre-scaled by 2^-o (o the offset
    // before the shift), so the scale is corrected by 2^(o - o').
    let xp0_0_0_0 = vec2<f16>(vec2<f32>(x0_0_0[0], x0_0_0[2]) * 1.0);
    let xp0_0_0_1 = vec2<f16>(vec2<f32>(x0_0_0[1], x0_0_0[3]) * 256.0);
    let xp0_0_1_0 = vec2<f16>(vec2<f32>(x0_0_1[0], x0_0_1[2]) * 1.0);
    let xp0_0_1_1 = vec2<f16>(vec2<f32>(x0_0_1[1], x0_0_1[3]) * 256.0);
    let xp0_0_2_0 = vec2<f16>(vec2<f32>(x0_0_2[0], x0_0_2[2]) * 1.0);
    let xp0_0_2_1 = vec2<f16>(vec2<f32>(x0_0_2[1], x0_0_2[3]) * 256.0);
    let xp0_0_3_0 = vec2<f16>(vec2<f32>(x0_0_3[0], x0_0_3[2]) * 1.0);
    let xp0_0_3_1 = vec2<f16>(vec2<f32>(x0_0_3[1], x0_0_3[3]) * 256.0);
    let xp0_0_4_0 = vec2<f16>(vec2<f32>(x0_0_4[0], x0_0_4[2]) * 1.0);
    let xp0_0_4_1 = vec2<f16>(vec2<f32>(x0_0_4[1], x0_0_4[3]) * 256.0);
    let xp0_0_5_0 = vec2<f16>(vec2<f32>(x0_0_5[0], x0_0_5[2]) * 1.0);
    let xp0_0_5_1 = vec2<f16>(vec2<f32>(x0_0_5[1], x0_0_5[3]) * 256.0);
    let xp0_0_6_0 = vec2<f16>(vec2<f32>(x0_0_6[0], x0_0_6[2]) * 1.0);
    let xp0_0_6_1 = vec2<f16>(vec2<f32>(x0_0_6[1], x0_0_6[3]) * 256.0);
    let xp0_0_7_0 = vec2<f16>(vec2<f32>(x0_0_7[0], x0_0_7[2]) * 1.0);
    let xp0_0_7_1 = vec2<f16>(vec2<f32>(x0_0_7[1], x0_0_7[3]) * 256.0);

    for (var b = 0u; b < 8u; b = b + 1u) {
        // Take this batch's weights, request the next batch's.
        let cg0_0_0 = wg0_0_0;
        let cg0_0_1 = wg0_0_1;
        let csg0_0_0 = wsg0_0_0;
        let cu0_0_0 = wu0_0_0;
        let cu0_0_1 = wu0_0_1;
        let csu0_0_0 = wsu0_0_0;
        let cg1_0_0 = wg1_0_0;
        let cg1_0_1 = wg1_0_1;
        let csg1_0_0 = wsg1_0_0;
        let cu1_0_0 = wu1_0_0;
        let cu1_0_1 = wu1_0_1;
        let csu1_0_0 = wsu1_0_0;
        if (b + 1u < 8u) {
        {
            let n = min(wid.x * COLS + (b + 1u) * 2u + 0u, N - 1u);
            {
                let u = min(t + 0u, UNITS - 1u);
                wg0_0_0 = gate_b[n * ROWE + u * 2u + 0u];
                wg0_0_1 = gate_b[n * ROWE + u * 2u + 1u];
                wsg0_0_0 = f32(gate_scales[n * KB + (u * 32u + 0u) / 32u]);
                wu0_0_0 = up_b[n * ROWE + u * 2u + 0u];
                wu0_0_1 = up_b[n * ROWE + u * 2u + 1u];
                wsu0_0_0 = f32(up_scales[n * KB + (u * 32u + 0u) / 32u]);
            }
        }
        {
            let n = min(wid.x * COLS + (b + 1u) * 2u + 1u, N - 1u);
            {
                let u = min(t + 0u, UNITS - 1u);
                wg1_0_0 = gate_b[n * ROWE + u * 2u + 0u];
                wg1_0_1 = gate_b[n * ROWE + u * 2u + 1u];
                wsg1_0_0 = f32(gate_scales[n * KB + (u * 32u + 0u) / 32u]);
                wu1_0_0 = up_b[n * ROWE + u * 2u + 0u];
                wu1_0_1 = up_b[n * ROWE + u * 2u + 1u];
                wsu1_0_0 = f32(up_scales[n * KB + (u * 32u + 0u) / 32u]);
            }
        }

        }
        var g0_0 = 0.0;
        var u0_0 = 0.0;
        var g0_1 = 0.0;
        var u0_1 = 0.0;
        {
            var acc0_0 = vec2<f16>(0.0h);
            {
                let v = cg0_0_0[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_0_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_0_1, acc0_0);
            }
            {
                let v = cg0_0_0[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_1_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_1_1, acc0_0);
            }
            {
                let v = cg0_0_0[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_2_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_2_1, acc0_0);
            }
            {
                let v = cg0_0_0[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_3_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_3_1, acc0_0);
            }
            {
                let v = cg0_0_1[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_4_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_4_1, acc0_0);
            }
            {
                let v = cg0_0_1[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_5_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_5_1, acc0_0);
            }
            {
                let v = cg0_0_1[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_6_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_6_1, acc0_0);
            }
            {
                let v = cg0_0_1[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_7_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_7_1, acc0_0);
            }
            g0_0 = fma(csg0_0_0, f32(acc0_0.x) + f32(acc0_0.y), g0_0);
        }
        {
            var acc0_0 = vec2<f16>(0.0h);
            {
                let v = cu0_0_0[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_0_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_0_1, acc0_0);
            }
            {
                let v = cu0_0_0[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_1_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_1_1, acc0_0);
            }
            {
                let v = cu0_0_0[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_2_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_2_1, acc0_0);
            }
            {
                let v = cu0_0_0[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_3_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_3_1, acc0_0);
            }
            {
                let v = cu0_0_1[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_4_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_4_1, acc0_0);
            }
            {
                let v = cu0_0_1[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_5_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_5_1, acc0_0);
            }
            {
                let v = cu0_0_1[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_6_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_6_1, acc0_0);
            }
            {
                let v = cu0_0_1[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_7_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_7_1, acc0_0);
            }
            u0_0 = fma(csu0_0_0, f32(acc0_0.x) + f32(acc0_0.y), u0_0);
        }
        {
            var acc0_0 = vec2<f16>(0.0h);
            {
                let v = cg1_0_0[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_0_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_0_1, acc0_0);
            }
            {
                let v = cg1_0_0[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_1_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_1_1, acc0_0);
            }
            {
                let v = cg1_0_0[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_2_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_2_1, acc0_0);
            }
            {
                let v = cg1_0_0[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_3_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_3_1, acc0_0);
            }
            {
                let v = cg1_0_1[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_4_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_4_1, acc0_0);
            }
            {
                let v = cg1_0_1[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_5_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_5_1, acc0_0);
            }
            {
                let v = cg1_0_1[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_6_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_6_1, acc0_0);
            }
            {
                let v = cg1_0_1[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_7_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_7_1, acc0_0);
            }
            g0_1 = fma(csg1_0_0, f32(acc0_0.x) + f32(acc0_0.y), g0_1);
        }
        {
            var acc0_0 = vec2<f16>(0.0h);
            {
                let v = cu1_0_0[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_0_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_0_1, acc0_0);
            }
            {
                let v = cu1_0_0[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_1_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_1_1, acc0_0);
            }
            {
                let v = cu1_0_0[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_2_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_2_1, acc0_0);
            }
            {
                let v = cu1_0_0[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_3_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_3_1, acc0_0);
            }
            {
                let v = cu1_0_1[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_4_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_4_1, acc0_0);
            }
            {
                let v = cu1_0_1[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_5_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_5_1, acc0_0);
            }
            {
                let v = cu1_0_1[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_6_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_6_1, acc0_0);
            }
            {
                let v = cu1_0_1[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d0, xp0_0_7_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((vs & 16711935u) | magic)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_7_1, acc0_0);
            }
            u0_1 = fma(csu1_0_0, f32(acc0_0.x) + f32(acc0_0.y), u0_1);
        }

        // Reduce the batch over the workgroup: red[o * WG + t] for o = 2 (r * CB + c) (gate) and
        // 2 (r * CB + c) + 1 (up); sums of 8 consecutive entries; then one thread per output
        // (row r of the group, column c of the batch) adds WG / 8 of those.
        red[0u * WG + t] = g0_0 * ilsc;
        red[1u * WG + t] = u0_0 * ilsc;
        red[2u * WG + t] = g0_1 * ilsc;
        red[3u * WG + t] = u0_1 * ilsc;
        workgroupBarrier();
        for (var r = t; r < 32u; r = r + WG) {
            let i = r * 8u;
            red2[r] = ((red[i] + red[i + 1u]) + (red[i + 2u] + red[i + 3u])) + ((red[i + 4u] + red[i + 5u]) + (red[i + 6u] + red[i + 7u]));
        }
        if (b == 0u && t < WG / 8u) {
            // Batch 0 also reduces the row's squares (nrm, written before the loop).
            let i = t * 8u;
            nrm2[t] = ((nrm[i] + nrm[i + 1u]) + (nrm[i + 2u] + nrm[i + 3u])) + ((nrm[i + 4u] + nrm[i + 5u]) + (nrm[i + 6u] + nrm[i + 7u]));
        }
        workgroupBarrier();
        if (t < 2u) {
            let c = t % 2u;
            let n = wid.x * COLS + b * 2u + c;
            var gs = 0.0;
            var us = 0.0;
            for (var i = 0u; i < WG / 8u; i = i + 1u) {
                gs = gs + red2[(2u * t) * (WG / 8u) + i];
                us = us + red2[(2u * t + 1u) * (WG / 8u) + i];
            }
            if (b == 0u) {
                var sst = 0.0;
                for (var i = 0u; i < WG / 8u; i = i + 1u) {
                    sst = sst + nrm2[i];
                }
                inv_rms = inverseSqrt(sst / f32(K) + EPS);
            }
            gs = gs * inv_rms;
            us = us * inv_rms;
            if (b * 2u + c < COLS && n < N) {
                gs = gs + f32(gate_bias[n]);
                us = us + f32(up_bias[n]);
                y[n] = f16(silu_mul(gs, us));
            }
        }
    }
}