// snapshot gemvr-plain-f32-rows20-rg4: variant gemvr_plain_nogb_noub, float32 K 896 N 4864 rows 20 bits 4 block 32, webgpu-default (), tunables [("GEMV_ROWS", 4), ("GEMVP_F32_MAX_ROWS", 0)]
// ==== pass `main`: mlp-gemv.wgsl.jinja, dispatch [5, 304, 1], workgroup size [32, 1, 1] ====
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f32>;
@group(0) @binding(3) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> up_scales: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;
// ---- template ----
const K: u32 = 896u;
const N: u32 = 4864u;
const KB: u32 = 28u;          // blocks (scales) per weight row
const UNITS: u32 = 28u;         // 32-code units per weight row
const ROWE: u32 = 28u;           // weight elements (4 words) per row
const WG: u32 = 32u;
const COLS: u32 = 16u;             // columns per workgroup
const ROWS: u32 = 20u;       // rows of A (4 per workgroup: workgroup_id.x)
const MAGIC: u32 = 0x4B000000u;          // the exponent of 2^23

var<workgroup> red: array<f32, 512>;
var<workgroup> red2: array<f32, 64>;

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    // Weights of the first batch: requested first, so their latency overlaps the activations.
    var wg0_0_0: vec4<u32>;
    var wsg0_0_0: f32;
    var wu0_0_0: vec4<u32>;
    var wsu0_0_0: f32;
    var wg1_0_0: vec4<u32>;
    var wsg1_0_0: f32;
    var wu1_0_0: vec4<u32>;
    var wsu1_0_0: f32;
        {
            let n = min(wid.y * COLS + (0u) * 2u + 0u, N - 1u);
            {
                let u = min(t + 0u, UNITS - 1u);
                wg0_0_0 = gate_b[n * ROWE + u * 1u + 0u];
                wsg0_0_0 = f32(gate_scales[n * KB + (u * 32u + 0u) / 32u]);
                wu0_0_0 = up_b[n * ROWE + u * 1u + 0u];
                wsu0_0_0 = f32(up_scales[n * KB + (u * 32u + 0u) / 32u]);
            }
        }
        {
            let n = min(wid.y * COLS + (0u) * 2u + 1u, N - 1u);
            {
                let u = min(t + 0u, UNITS - 1u);
                wg1_0_0 = gate_b[n * ROWE + u * 1u + 0u];
                wsg1_0_0 = f32(gate_scales[n * KB + (u * 32u + 0u) / 32u]);
                wu1_0_0 = up_b[n * ROWE + u * 1u + 0u];
                wsu1_0_0 = f32(up_scales[n * KB + (u * 32u + 0u) / 32u]);
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
    // Row 0 of this workgroup's group (a row past A's rows reads the last one; its results
    // are not written).
    let row0 = wid.x * 4u + 0u;
    let rowk0 = min(row0, ROWS - 1u) * K;
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
        if (k0 + 0u < K) {
            x0_0_0 = a[((rowk0 + k0) >> 2u) + 0u];
        }
        if (k0 + 4u < K) {
            x0_0_1 = a[((rowk0 + k0) >> 2u) + 1u];
        }
        if (k0 + 8u < K) {
            x0_0_2 = a[((rowk0 + k0) >> 2u) + 2u];
        }
        if (k0 + 12u < K) {
            x0_0_3 = a[((rowk0 + k0) >> 2u) + 3u];
        }
        if (k0 + 16u < K) {
            x0_0_4 = a[((rowk0 + k0) >> 2u) + 4u];
        }
        if (k0 + 20u < K) {
            x0_0_5 = a[((rowk0 + k0) >> 2u) + 5u];
        }
        if (k0 + 24u < K) {
            x0_0_6 = a[((rowk0 + k0) >> 2u) + 6u];
        }
        if (k0 + 28u < K) {
            x0_0_7 = a[((rowk0 + k0) >> 2u) + 7u];
        }
    }

    // Row 1 of this workgroup's group (a row past A's rows reads the last one; its results
    // are not written).
    let row1 = wid.x * 4u + 1u;
    let rowk1 = min(row1, ROWS - 1u) * K;
    var x1_0_0 = vec4<f32>(0.0);
    var x1_0_1 = vec4<f32>(0.0);
    var x1_0_2 = vec4<f32>(0.0);
    var x1_0_3 = vec4<f32>(0.0);
    var x1_0_4 = vec4<f32>(0.0);
    var x1_0_5 = vec4<f32>(0.0);
    var x1_0_6 = vec4<f32>(0.0);
    var x1_0_7 = vec4<f32>(0.0);
    {
        let k0 = (t + 0u) * 32u;
        if (k0 + 0u < K) {
            x1_0_0 = a[((rowk1 + k0) >> 2u) + 0u];
        }
        if (k0 + 4u < K) {
            x1_0_1 = a[((rowk1 + k0) >> 2u) + 1u];
        }
        if (k0 + 8u < K) {
            x1_0_2 = a[((rowk1 + k0) >> 2u) + 2u];
        }
        if (k0 + 12u < K) {
            x1_0_3 = a[((rowk1 + k0) >> 2u) + 3u];
        }
        if (k0 + 16u < K) {
            x1_0_4 = a[((rowk1 + k0) >> 2u) + 4u];
        }
        if (k0 + 20u < K) {
            x1_0_5 = a[((rowk1 + k0) >> 2u) + 5u];
        }
        if (k0 + 24u < K) {
            x1_0_6 = a[((rowk1 + k0) >> 2u) + 6u];
        }
        if (k0 + 28u < K) {
            x1_0_7 = a[((rowk1 + k0) >> 2u) + 7u];
        }
    }

    // Row 2 of this workgroup's group (a row past A's rows reads the last one; its results
    // are not written).
    let row2 = wid.x * 4u + 2u;
    let rowk2 = min(row2, ROWS - 1u) * K;
    var x2_0_0 = vec4<f32>(0.0);
    var x2_0_1 = vec4<f32>(0.0);
    var x2_0_2 = vec4<f32>(0.0);
    var x2_0_3 = vec4<f32>(0.0);
    var x2_0_4 = vec4<f32>(0.0);
    var x2_0_5 = vec4<f32>(0.0);
    var x2_0_6 = vec4<f32>(0.0);
    var x2_0_7 = vec4<f32>(0.0);
    {
        let k0 = (t + 0u) * 32u;
        if (k0 + 0u < K) {
            x2_0_0 = a[((rowk2 + k0) >> 2u) + 0u];
        }
        if (k0 + 4u < K) {
            x2_0_1 = a[((rowk2 + k0) >> 2u) + 1u];
        }
        if (k0 + 8u < K) {
            x2_0_2 = a[((rowk2 + k0) >> 2u) + 2u];
        }
        if (k0 + 12u < K) {
            x2_0_3 = a[((rowk2 + k0) >> 2u) + 3u];
        }
        if (k0 + 16u < K) {
            x2_0_4 = a[((rowk2 + k0) >> 2u) + 4u];
        }
        if (k0 + 20u < K) {
            x2_0_5 = a[((rowk2 + k0) >> 2u) + 5u];
        }
        if (k0 + 24u < K) {
            x2_0_6 = a[((rowk2 + k0) >> 2u) + 6u];
        }
        if (k0 + 28u < K) {
            x2_0_7 = a[((rowk2 + k0) >> 2u) + 7u];
        }
    }

    // Row 3 of this workgroup's group (a row past A's rows reads the last one; its results
    // are not written).
    let row3 = wid.x * 4u + 3u;
    let rowk3 = min(row3, ROWS - 1u) * K;
    var x3_0_0 = vec4<f32>(0.0);
    var x3_0_1 = vec4<f32>(0.0);
    var x3_0_2 = vec4<f32>(0.0);
    var x3_0_3 = vec4<f32>(0.0);
    var x3_0_4 = vec4<f32>(0.0);
    var x3_0_5 = vec4<f32>(0.0);
    var x3_0_6 = vec4<f32>(0.0);
    var x3_0_7 = vec4<f32>(0.0);
    {
        let k0 = (t + 0u) * 32u;
        if (k0 + 0u < K) {
            x3_0_0 = a[((rowk3 + k0) >> 2u) + 0u];
        }
        if (k0 + 4u < K) {
            x3_0_1 = a[((rowk3 + k0) >> 2u) + 1u];
        }
        if (k0 + 8u < K) {
            x3_0_2 = a[((rowk3 + k0) >> 2u) + 2u];
        }
        if (k0 + 12u < K) {
            x3_0_3 = a[((rowk3 + k0) >> 2u) + 3u];
        }
        if (k0 + 16u < K) {
            x3_0_4 = a[((rowk3 + k0) >> 2u) + 4u];
        }
        if (k0 + 20u < K) {
            x3_0_5 = a[((rowk3 + k0) >> 2u) + 5u];
        }
        if (k0 + 24u < K) {
            x3_0_6 = a[((rowk3 + k0) >> 2u) + 6u];
        }
        if (k0 + 28u < K) {
            x3_0_7 = a[((rowk3 + k0) >> 2u) + 7u];
        }
    }

    // Pre-scaled by 2^-o (o the code's bit offset in its half word).
    x0_0_0 = x0_0_0 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_1 = x0_0_1 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_2 = x0_0_2 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_3 = x0_0_3 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_4 = x0_0_4 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_5 = x0_0_5 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_6 = x0_0_6 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_7 = x0_0_7 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x1_0_0 = x1_0_0 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x1_0_1 = x1_0_1 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x1_0_2 = x1_0_2 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x1_0_3 = x1_0_3 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x1_0_4 = x1_0_4 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x1_0_5 = x1_0_5 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x1_0_6 = x1_0_6 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x1_0_7 = x1_0_7 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x2_0_0 = x2_0_0 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x2_0_1 = x2_0_1 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x2_0_2 = x2_0_2 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x2_0_3 = x2_0_3 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x2_0_4 = x2_0_4 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x2_0_5 = x2_0_5 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x2_0_6 = x2_0_6 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x2_0_7 = x2_0_7 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x3_0_0 = x3_0_0 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x3_0_1 = x3_0_1 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x3_0_2 = x3_0_2 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x3_0_3 = x3_0_3 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x3_0_4 = x3_0_4 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x3_0_5 = x3_0_5 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x3_0_6 = x3_0_6 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x3_0_7 = x3_0_7 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);

    for (var b = 0u; b < 8u; b = b + 1u) {
        // Take this batch's weights, request the next batch's.
        let cg0_0_0 = wg0_0_0;
        let csg0_0_0 = wsg0_0_0;
        let cu0_0_0 = wu0_0_0;
        let csu0_0_0 = wsu0_0_0;
        let cg1_0_0 = wg1_0_0;
        let csg1_0_0 = wsg1_0_0;
        let cu1_0_0 = wu1_0_0;
        let csu1_0_0 = wsu1_0_0;
        if (b + 1u < 8u) {
        {
            let n = min(wid.y * COLS + (b + 1u) * 2u + 0u, N - 1u);
            {
                let u = min(t + 0u, UNITS - 1u);
                wg0_0_0 = gate_b[n * ROWE + u * 1u + 0u];
                wsg0_0_0 = f32(gate_scales[n * KB + (u * 32u + 0u) / 32u]);
                wu0_0_0 = up_b[n * ROWE + u * 1u + 0u];
                wsu0_0_0 = f32(up_scales[n * KB + (u * 32u + 0u) / 32u]);
            }
        }
        {
            let n = min(wid.y * COLS + (b + 1u) * 2u + 1u, N - 1u);
            {
                let u = min(t + 0u, UNITS - 1u);
                wg1_0_0 = gate_b[n * ROWE + u * 1u + 0u];
                wsg1_0_0 = f32(gate_scales[n * KB + (u * 32u + 0u) / 32u]);
                wu1_0_0 = up_b[n * ROWE + u * 1u + 0u];
                wsu1_0_0 = f32(up_scales[n * KB + (u * 32u + 0u) / 32u]);
            }
        }

        }
        var g0_0 = 0.0;
        var u0_0 = 0.0;
        var g0_1 = 0.0;
        var u0_1 = 0.0;
        var g1_0 = 0.0;
        var u1_0 = 0.0;
        var g1_1 = 0.0;
        var u1_1 = 0.0;
        var g2_0 = 0.0;
        var u2_0 = 0.0;
        var g2_1 = 0.0;
        var u2_1 = 0.0;
        var g3_0 = 0.0;
        var u3_0 = 0.0;
        var g3_1 = 0.0;
        var u3_1 = 0.0;
        {
            var acc0_0 = vec4<f32>(0.0);
            var acc1_0 = vec4<f32>(0.0);
            var acc2_0 = vec4<f32>(0.0);
            var acc3_0 = vec4<f32>(0.0);
            {
                let lo = cg0_0_0[0];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_0, acc0_0);
                acc1_0 = fma(d0, x1_0_0, acc1_0);
                acc2_0 = fma(d0, x2_0_0, acc2_0);
                acc3_0 = fma(d0, x3_0_0, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_1, acc0_0);
                acc1_0 = fma(d1, x1_0_1, acc1_0);
                acc2_0 = fma(d1, x2_0_1, acc2_0);
                acc3_0 = fma(d1, x3_0_1, acc3_0);
            }
            {
                let lo = cg0_0_0[1];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_2, acc0_0);
                acc1_0 = fma(d0, x1_0_2, acc1_0);
                acc2_0 = fma(d0, x2_0_2, acc2_0);
                acc3_0 = fma(d0, x3_0_2, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_3, acc0_0);
                acc1_0 = fma(d1, x1_0_3, acc1_0);
                acc2_0 = fma(d1, x2_0_3, acc2_0);
                acc3_0 = fma(d1, x3_0_3, acc3_0);
            }
            {
                let lo = cg0_0_0[2];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_4, acc0_0);
                acc1_0 = fma(d0, x1_0_4, acc1_0);
                acc2_0 = fma(d0, x2_0_4, acc2_0);
                acc3_0 = fma(d0, x3_0_4, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_5, acc0_0);
                acc1_0 = fma(d1, x1_0_5, acc1_0);
                acc2_0 = fma(d1, x2_0_5, acc2_0);
                acc3_0 = fma(d1, x3_0_5, acc3_0);
            }
            {
                let lo = cg0_0_0[3];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_6, acc0_0);
                acc1_0 = fma(d0, x1_0_6, acc1_0);
                acc2_0 = fma(d0, x2_0_6, acc2_0);
                acc3_0 = fma(d0, x3_0_6, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_7, acc0_0);
                acc1_0 = fma(d1, x1_0_7, acc1_0);
                acc2_0 = fma(d1, x2_0_7, acc2_0);
                acc3_0 = fma(d1, x3_0_7, acc3_0);
            }
            g0_0 = fma(csg0_0_0, (acc0_0.x + acc0_0.y) + (acc0_0.z + acc0_0.w), g0_0);
            g1_0 = fma(csg0_0_0, (acc1_0.x + acc1_0.y) + (acc1_0.z + acc1_0.w), g1_0);
            g2_0 = fma(csg0_0_0, (acc2_0.x + acc2_0.y) + (acc2_0.z + acc2_0.w), g2_0);
            g3_0 = fma(csg0_0_0, (acc3_0.x + acc3_0.y) + (acc3_0.z + acc3_0.w), g3_0);
        }
        {
            var acc0_0 = vec4<f32>(0.0);
            var acc1_0 = vec4<f32>(0.0);
            var acc2_0 = vec4<f32>(0.0);
            var acc3_0 = vec4<f32>(0.0);
            {
                let lo = cu0_0_0[0];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_0, acc0_0);
                acc1_0 = fma(d0, x1_0_0, acc1_0);
                acc2_0 = fma(d0, x2_0_0, acc2_0);
                acc3_0 = fma(d0, x3_0_0, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_1, acc0_0);
                acc1_0 = fma(d1, x1_0_1, acc1_0);
                acc2_0 = fma(d1, x2_0_1, acc2_0);
                acc3_0 = fma(d1, x3_0_1, acc3_0);
            }
            {
                let lo = cu0_0_0[1];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_2, acc0_0);
                acc1_0 = fma(d0, x1_0_2, acc1_0);
                acc2_0 = fma(d0, x2_0_2, acc2_0);
                acc3_0 = fma(d0, x3_0_2, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_3, acc0_0);
                acc1_0 = fma(d1, x1_0_3, acc1_0);
                acc2_0 = fma(d1, x2_0_3, acc2_0);
                acc3_0 = fma(d1, x3_0_3, acc3_0);
            }
            {
                let lo = cu0_0_0[2];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_4, acc0_0);
                acc1_0 = fma(d0, x1_0_4, acc1_0);
                acc2_0 = fma(d0, x2_0_4, acc2_0);
                acc3_0 = fma(d0, x3_0_4, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_5, acc0_0);
                acc1_0 = fma(d1, x1_0_5, acc1_0);
                acc2_0 = fma(d1, x2_0_5, acc2_0);
                acc3_0 = fma(d1, x3_0_5, acc3_0);
            }
            {
                let lo = cu0_0_0[3];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_6, acc0_0);
                acc1_0 = fma(d0, x1_0_6, acc1_0);
                acc2_0 = fma(d0, x2_0_6, acc2_0);
                acc3_0 = fma(d0, x3_0_6, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_7, acc0_0);
                acc1_0 = fma(d1, x1_0_7, acc1_0);
                acc2_0 = fma(d1, x2_0_7, acc2_0);
                acc3_0 = fma(d1, x3_0_7, acc3_0);
            }
            u0_0 = fma(csu0_0_0, (acc0_0.x + acc0_0.y) + (acc0_0.z + acc0_0.w), u0_0);
            u1_0 = fma(csu0_0_0, (acc1_0.x + acc1_0.y) + (acc1_0.z + acc1_0.w), u1_0);
            u2_0 = fma(csu0_0_0, (acc2_0.x + acc2_0.y) + (acc2_0.z + acc2_0.w), u2_0);
            u3_0 = fma(csu0_0_0, (acc3_0.x + acc3_0.y) + (acc3_0.z + acc3_0.w), u3_0);
        }
        {
            var acc0_0 = vec4<f32>(0.0);
            var acc1_0 = vec4<f32>(0.0);
            var acc2_0 = vec4<f32>(0.0);
            var acc3_0 = vec4<f32>(0.0);
            {
                let lo = cg1_0_0[0];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_0, acc0_0);
                acc1_0 = fma(d0, x1_0_0, acc1_0);
                acc2_0 = fma(d0, x2_0_0, acc2_0);
                acc3_0 = fma(d0, x3_0_0, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_1, acc0_0);
                acc1_0 = fma(d1, x1_0_1, acc1_0);
                acc2_0 = fma(d1, x2_0_1, acc2_0);
                acc3_0 = fma(d1, x3_0_1, acc3_0);
            }
            {
                let lo = cg1_0_0[1];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_2, acc0_0);
                acc1_0 = fma(d0, x1_0_2, acc1_0);
                acc2_0 = fma(d0, x2_0_2, acc2_0);
                acc3_0 = fma(d0, x3_0_2, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_3, acc0_0);
                acc1_0 = fma(d1, x1_0_3, acc1_0);
                acc2_0 = fma(d1, x2_0_3, acc2_0);
                acc3_0 = fma(d1, x3_0_3, acc3_0);
            }
            {
                let lo = cg1_0_0[2];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_4, acc0_0);
                acc1_0 = fma(d0, x1_0_4, acc1_0);
                acc2_0 = fma(d0, x2_0_4, acc2_0);
                acc3_0 = fma(d0, x3_0_4, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_5, acc0_0);
                acc1_0 = fma(d1, x1_0_5, acc1_0);
                acc2_0 = fma(d1, x2_0_5, acc2_0);
                acc3_0 = fma(d1, x3_0_5, acc3_0);
            }
            {
                let lo = cg1_0_0[3];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_6, acc0_0);
                acc1_0 = fma(d0, x1_0_6, acc1_0);
                acc2_0 = fma(d0, x2_0_6, acc2_0);
                acc3_0 = fma(d0, x3_0_6, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_7, acc0_0);
                acc1_0 = fma(d1, x1_0_7, acc1_0);
                acc2_0 = fma(d1, x2_0_7, acc2_0);
                acc3_0 = fma(d1, x3_0_7, acc3_0);
            }
            g0_1 = fma(csg1_0_0, (acc0_0.x + acc0_0.y) + (acc0_0.z + acc0_0.w), g0_1);
            g1_1 = fma(csg1_0_0, (acc1_0.x + acc1_0.y) + (acc1_0.z + acc1_0.w), g1_1);
            g2_1 = fma(csg1_0_0, (acc2_0.x + acc2_0.y) + (acc2_0.z + acc2_0.w), g2_1);
            g3_1 = fma(csg1_0_0, (acc3_0.x + acc3_0.y) + (acc3_0.z + acc3_0.w), g3_1);
        }
        {
            var acc0_0 = vec4<f32>(0.0);
            var acc1_0 = vec4<f32>(0.0);
            var acc2_0 = vec4<f32>(0.0);
            var acc3_0 = vec4<f32>(0.0);
            {
                let lo = cu1_0_0[0];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_0, acc0_0);
                acc1_0 = fma(d0, x1_0_0, acc1_0);
                acc2_0 = fma(d0, x2_0_0, acc2_0);
                acc3_0 = fma(d0, x3_0_0, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_1, acc0_0);
                acc1_0 = fma(d1, x1_0_1, acc1_0);
                acc2_0 = fma(d1, x2_0_1, acc2_0);
                acc3_0 = fma(d1, x3_0_1, acc3_0);
            }
            {
                let lo = cu1_0_0[1];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_2, acc0_0);
                acc1_0 = fma(d0, x1_0_2, acc1_0);
                acc2_0 = fma(d0, x2_0_2, acc2_0);
                acc3_0 = fma(d0, x3_0_2, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_3, acc0_0);
                acc1_0 = fma(d1, x1_0_3, acc1_0);
                acc2_0 = fma(d1, x2_0_3, acc2_0);
                acc3_0 = fma(d1, x3_0_3, acc3_0);
            }
            {
                let lo = cu1_0_0[2];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_4, acc0_0);
                acc1_0 = fma(d0, x1_0_4, acc1_0);
                acc2_0 = fma(d0, x2_0_4, acc2_0);
                acc3_0 = fma(d0, x3_0_4, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_5, acc0_0);
                acc1_0 = fma(d1, x1_0_5, acc1_0);
                acc2_0 = fma(d1, x2_0_5, acc2_0);
                acc3_0 = fma(d1, x3_0_5, acc3_0);
            }
            {
                let lo = cu1_0_0[3];
                let hi = lo >> 16u;
                let d0 = bitcast<vec4<f32>>((vec4<u32>(lo, lo, lo, lo) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d0, x0_0_6, acc0_0);
                acc1_0 = fma(d0, x1_0_6, acc1_0);
                acc2_0 = fma(d0, x2_0_6, acc2_0);
                acc3_0 = fma(d0, x3_0_6, acc3_0);
                let d1 = bitcast<vec4<f32>>((vec4<u32>(hi, hi, hi, hi) & vec4<u32>(15u, 240u, 3840u, 61440u)) | vec4<u32>(magic)) - vec4<f32>(8388616.0, 8388736.0, 8390656.0, 8421376.0);
                acc0_0 = fma(d1, x0_0_7, acc0_0);
                acc1_0 = fma(d1, x1_0_7, acc1_0);
                acc2_0 = fma(d1, x2_0_7, acc2_0);
                acc3_0 = fma(d1, x3_0_7, acc3_0);
            }
            u0_1 = fma(csu1_0_0, (acc0_0.x + acc0_0.y) + (acc0_0.z + acc0_0.w), u0_1);
            u1_1 = fma(csu1_0_0, (acc1_0.x + acc1_0.y) + (acc1_0.z + acc1_0.w), u1_1);
            u2_1 = fma(csu1_0_0, (acc2_0.x + acc2_0.y) + (acc2_0.z + acc2_0.w), u2_1);
            u3_1 = fma(csu1_0_0, (acc3_0.x + acc3_0.y) + (acc3_0.z + acc3_0.w), u3_1);
        }

        // Reduce the batch over the workgroup: red[o * WG + t] for o = 2 (r * CB + c) (gate) and
        // 2 (r * CB + c) + 1 (up); sums of 8 consecutive entries; then one thread per output
        // (row r of the group, column c of the batch) adds WG / 8 of those.
        red[0u * WG + t] = g0_0;
        red[1u * WG + t] = u0_0;
        red[2u * WG + t] = g0_1;
        red[3u * WG + t] = u0_1;
        red[4u * WG + t] = g1_0;
        red[5u * WG + t] = u1_0;
        red[6u * WG + t] = g1_1;
        red[7u * WG + t] = u1_1;
        red[8u * WG + t] = g2_0;
        red[9u * WG + t] = u2_0;
        red[10u * WG + t] = g2_1;
        red[11u * WG + t] = u2_1;
        red[12u * WG + t] = g3_0;
        red[13u * WG + t] = u3_0;
        red[14u * WG + t] = g3_1;
        red[15u * WG + t] = u3_1;
        workgroupBarrier();
        for (var r = t; r < 64u; r = r + WG) {
            let i = r * 8u;
            red2[r] = ((red[i] + red[i + 1u]) + (red[i + 2u] + red[i + 3u])) + ((red[i + 4u] + red[i + 5u]) + (red[i + 6u] + red[i + 7u]));
        }
        workgroupBarrier();
        if (t < 8u) {
            let c = t % 2u;
            let n = wid.y * COLS + b * 2u + c;
            var gs = 0.0;
            var us = 0.0;
            for (var i = 0u; i < WG / 8u; i = i + 1u) {
                gs = gs + red2[(2u * t) * (WG / 8u) + i];
                us = us + red2[(2u * t + 1u) * (WG / 8u) + i];
            }
            let row = wid.x * 4u + t / 2u;
            if (b * 2u + c < COLS && n < N && row < ROWS) {
                y[row * N + n] = f32(silu_mul(gs, us));
            }
        }
    }
}