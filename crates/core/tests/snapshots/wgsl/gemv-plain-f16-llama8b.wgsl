// snapshot gemv-plain-f16-llama8b: variant gemv_plain_nogb_noub, float16 K 4096 N 14336 rows 1 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `main`: mlp-gemv.wgsl.jinja, dispatch [896, 1, 1], workgroup size [128, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(3) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> up_scales: array<f16>;
@group(0) @binding(5) var<storage, read_write> y: array<f16>;
// ---- template ----
const K: u32 = 4096u;
const N: u32 = 14336u;
const KB: u32 = 128u;          // blocks (scales) per weight row
const UNITS: u32 = 128u;         // 32-code units per weight row
const ROWE: u32 = 128u;           // weight elements (4 words) per row
const WG: u32 = 128u;
const COLS: u32 = 16u;             // columns per workgroup
const MAGIC: u32 = 0x4B000000u;          // the exponent of 2^23

var<workgroup> red: array<f32, 512>;
var<workgroup> red2: array<f32, 64>;

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}@compute @workgroup_size(128)
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
            let n = min(wid.x * COLS + (0u) * 2u + 0u, N - 1u);
            {
                let u = min(t + 0u, UNITS - 1u);
                wg0_0_0 = gate_b[n * ROWE + u * 1u + 0u];
                wsg0_0_0 = f32(gate_scales[n * KB + (u * 32u + 0u) / 32u]);
                wu0_0_0 = up_b[n * ROWE + u * 1u + 0u];
                wsu0_0_0 = f32(up_scales[n * KB + (u * 32u + 0u) / 32u]);
            }
        }
        {
            let n = min(wid.x * COLS + (0u) * 2u + 1u, N - 1u);
            {
                let u = min(t + 0u, UNITS - 1u);
                wg1_0_0 = gate_b[n * ROWE + u * 1u + 0u];
                wsg1_0_0 = f32(gate_scales[n * KB + (u * 32u + 0u) / 32u]);
                wu1_0_0 = up_b[n * ROWE + u * 1u + 0u];
                wsu1_0_0 = f32(up_scales[n * KB + (u * 32u + 0u) / 32u]);
            }
        }

    // The decode's exponent bits stay a literal here: with packed f16 math and no inline norm,
    // the one-LOP3 form made Llama-3.1-8B 12 % slower on the H200 and the other models no
    // faster (notes/PERF.md row 163).

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

    // Pre-scaled by 2^-o (o the code's bit offset in its half word).
    x0_0_0 = x0_0_0 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_1 = x0_0_1 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_2 = x0_0_2 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_3 = x0_0_3 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_4 = x0_0_4 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_5 = x0_0_5 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_6 = x0_0_6 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    x0_0_7 = x0_0_7 * vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
    // Packed f16: pair i of word w holds the codes i and i + CPH of the word (one per 16-bit
    // half); its activations, pre-scaled by 2^-o' (o' the code's offset in its half after the
    // optional >> 8), as one vec2<f16>. The f32 slots above were pre-scaled by 2^-o (o the offset
    // before the shift), so the scale is corrected by 2^(o - o').
    let xp0_0_0_0 = vec2<f16>(vec2<f32>(x0_0_0[0], x0_0_1[0]) * 1.0);
    let xp0_0_0_1 = vec2<f16>(vec2<f32>(x0_0_0[1], x0_0_1[1]) * 1.0);
    let xp0_0_0_2 = vec2<f16>(vec2<f32>(x0_0_0[2], x0_0_1[2]) * 256.0);
    let xp0_0_0_3 = vec2<f16>(vec2<f32>(x0_0_0[3], x0_0_1[3]) * 256.0);
    let xp0_0_1_0 = vec2<f16>(vec2<f32>(x0_0_2[0], x0_0_3[0]) * 1.0);
    let xp0_0_1_1 = vec2<f16>(vec2<f32>(x0_0_2[1], x0_0_3[1]) * 1.0);
    let xp0_0_1_2 = vec2<f16>(vec2<f32>(x0_0_2[2], x0_0_3[2]) * 256.0);
    let xp0_0_1_3 = vec2<f16>(vec2<f32>(x0_0_2[3], x0_0_3[3]) * 256.0);
    let xp0_0_2_0 = vec2<f16>(vec2<f32>(x0_0_4[0], x0_0_5[0]) * 1.0);
    let xp0_0_2_1 = vec2<f16>(vec2<f32>(x0_0_4[1], x0_0_5[1]) * 1.0);
    let xp0_0_2_2 = vec2<f16>(vec2<f32>(x0_0_4[2], x0_0_5[2]) * 256.0);
    let xp0_0_2_3 = vec2<f16>(vec2<f32>(x0_0_4[3], x0_0_5[3]) * 256.0);
    let xp0_0_3_0 = vec2<f16>(vec2<f32>(x0_0_6[0], x0_0_7[0]) * 1.0);
    let xp0_0_3_1 = vec2<f16>(vec2<f32>(x0_0_6[1], x0_0_7[1]) * 1.0);
    let xp0_0_3_2 = vec2<f16>(vec2<f32>(x0_0_6[2], x0_0_7[2]) * 256.0);
    let xp0_0_3_3 = vec2<f16>(vec2<f32>(x0_0_6[3], x0_0_7[3]) * 256.0);

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
            let n = min(wid.x * COLS + (b + 1u) * 2u + 0u, N - 1u);
            {
                let u = min(t + 0u, UNITS - 1u);
                wg0_0_0 = gate_b[n * ROWE + u * 1u + 0u];
                wsg0_0_0 = f32(gate_scales[n * KB + (u * 32u + 0u) / 32u]);
                wu0_0_0 = up_b[n * ROWE + u * 1u + 0u];
                wsu0_0_0 = f32(up_scales[n * KB + (u * 32u + 0u) / 32u]);
            }
        }
        {
            let n = min(wid.x * COLS + (b + 1u) * 2u + 1u, N - 1u);
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
        {
            var acc0_0 = vec2<f16>(0.0h);
            {
                let v = cg0_0_0[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_0_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_0_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_0_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_0_3, acc0_0);
            }
            {
                let v = cg0_0_0[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_1_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_1_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_1_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_1_3, acc0_0);
            }
            {
                let v = cg0_0_0[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_2_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_2_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_2_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_2_3, acc0_0);
            }
            {
                let v = cg0_0_0[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_3_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_3_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_3_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_3_3, acc0_0);
            }
            g0_0 = fma(csg0_0_0, f32(acc0_0.x) + f32(acc0_0.y), g0_0);
        }
        {
            var acc0_0 = vec2<f16>(0.0h);
            {
                let v = cu0_0_0[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_0_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_0_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_0_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_0_3, acc0_0);
            }
            {
                let v = cu0_0_0[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_1_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_1_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_1_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_1_3, acc0_0);
            }
            {
                let v = cu0_0_0[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_2_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_2_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_2_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_2_3, acc0_0);
            }
            {
                let v = cu0_0_0[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_3_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_3_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_3_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_3_3, acc0_0);
            }
            u0_0 = fma(csu0_0_0, f32(acc0_0.x) + f32(acc0_0.y), u0_0);
        }
        {
            var acc0_0 = vec2<f16>(0.0h);
            {
                let v = cg1_0_0[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_0_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_0_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_0_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_0_3, acc0_0);
            }
            {
                let v = cg1_0_0[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_1_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_1_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_1_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_1_3, acc0_0);
            }
            {
                let v = cg1_0_0[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_2_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_2_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_2_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_2_3, acc0_0);
            }
            {
                let v = cg1_0_0[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_3_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_3_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_3_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_3_3, acc0_0);
            }
            g0_1 = fma(csg1_0_0, f32(acc0_0.x) + f32(acc0_0.y), g0_1);
        }
        {
            var acc0_0 = vec2<f16>(0.0h);
            {
                let v = cu1_0_0[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_0_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_0_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_0_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_0_3, acc0_0);
            }
            {
                let v = cu1_0_0[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_1_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_1_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_1_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_1_3, acc0_0);
            }
            {
                let v = cu1_0_0[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_2_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_2_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_2_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_2_3, acc0_0);
            }
            {
                let v = cu1_0_0[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_3_0, acc0_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_3_1, acc0_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_3_2, acc0_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_3_3, acc0_0);
            }
            u0_1 = fma(csu1_0_0, f32(acc0_0.x) + f32(acc0_0.y), u0_1);
        }

        // Reduce the batch over the workgroup: red[o * WG + t] for o = 2 (r * CB + c) (gate) and
        // 2 (r * CB + c) + 1 (up); sums of 8 consecutive entries; then one thread per output
        // (row r of the group, column c of the batch) adds WG / 8 of those.
        red[0u * WG + t] = g0_0;
        red[1u * WG + t] = u0_0;
        red[2u * WG + t] = g0_1;
        red[3u * WG + t] = u0_1;
        workgroupBarrier();
        for (var r = t; r < 64u; r = r + WG) {
            let i = r * 8u;
            red2[r] = ((red[i] + red[i + 1u]) + (red[i + 2u] + red[i + 3u])) + ((red[i + 4u] + red[i + 5u]) + (red[i + 6u] + red[i + 7u]));
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
            if (b * 2u + c < COLS && n < N) {
                y[n] = f16(silu_mul(gs, us));
            }
        }
    }
}