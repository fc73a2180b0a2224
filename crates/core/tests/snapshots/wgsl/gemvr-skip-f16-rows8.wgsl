// snapshot gemvr-skip-f16-rows8: variant gemvr_skip_nogb_ub, float16 K 4096 N 14336 rows 8 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier), tunables [("MMA_MAX_ROWS", 1), ("GEMVP_MAX_ROWS", 0)]
// ==== pass `norm`: matmul-nbits-fused-rms-norm.wgsl.jinja, dispatch [8, 1, 1], workgroup size [1024, 1, 1] ====
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
// ==== pass `main`: mlp-gemv.wgsl.jinja, dispatch [4, 896, 1], workgroup size [128, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> normed: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(3) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> up_scales: array<f16>;
@group(0) @binding(5) var<storage, read> up_bias: array<f16>;
@group(0) @binding(6) var<storage, read_write> y: array<f16>;
// ---- template ----
const K: u32 = 4096u;
const N: u32 = 14336u;
const KB: u32 = 128u;          // blocks (scales) per weight row
const UNITS: u32 = 128u;         // 32-code units per weight row
const ROWE: u32 = 128u;           // weight elements (4 words) per row
const WG: u32 = 128u;
const COLS: u32 = 16u;             // columns per workgroup
const ROWS: u32 = 8u;       // rows of A (2 per workgroup: workgroup_id.x)
const MAGIC: u32 = 0x4B000000u;          // the exponent of 2^23

var<workgroup> red: array<f32, 1024>;
var<workgroup> red2: array<f32, 128>;

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

    // The decode's exponent bits stay a literal here: with packed f16 math and no inline norm,
    // the one-LOP3 form made Llama-3.1-8B 12 % slower on the H200 and the other models no
    // faster (notes/PERF.md row 163).

    // This thread's activations: unit t + j * WG, slot q = codes 4q .. 4q+3, pre-scaled; from
    // `normed` (f32, norm_scale and 1/rms applied by the norm pass) or from `a` (+ `skip`, times
    // norm_scale and 1/rms below, for the inline norm). Each thread reads 32 consecutive values,
    // so a scalar load of a subgroup touches 32 strided places: where K allows, `a`, `skip` and
    // `norm_scale` are bound as arrays of 16-byte vectors (gemvActElement: 8 f16 packed in a
    // vec4<u32>, or a vec4<f32>) and a unit is 4 or 8 contiguous 16-byte loads.
    // Row 0 of this workgroup's group (a row past A's rows reads the last one; its results
    // are not written).
    let row0 = wid.x * 2u + 0u;
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
    // Row 1 of this workgroup's group (a row past A's rows reads the last one; its results
    // are not written).
    let row1 = wid.x * 2u + 1u;
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
        if (k0 + 32u <= K) {
            x1_0_0 = normed[((rowk1 + k0) >> 2u) + 0u];
            x1_0_1 = normed[((rowk1 + k0) >> 2u) + 1u];
            x1_0_2 = normed[((rowk1 + k0) >> 2u) + 2u];
            x1_0_3 = normed[((rowk1 + k0) >> 2u) + 3u];
            x1_0_4 = normed[((rowk1 + k0) >> 2u) + 4u];
            x1_0_5 = normed[((rowk1 + k0) >> 2u) + 5u];
            x1_0_6 = normed[((rowk1 + k0) >> 2u) + 6u];
            x1_0_7 = normed[((rowk1 + k0) >> 2u) + 7u];
        } else {
            // The unit that straddles K (or lies past it): element by element.
            if (k0 + 0u < K) {
                x1_0_0[0] = normed[((rowk1 + k0) >> 2u) + 0u][0];
            }
            if (k0 + 1u < K) {
                x1_0_0[1] = normed[((rowk1 + k0) >> 2u) + 0u][1];
            }
            if (k0 + 2u < K) {
                x1_0_0[2] = normed[((rowk1 + k0) >> 2u) + 0u][2];
            }
            if (k0 + 3u < K) {
                x1_0_0[3] = normed[((rowk1 + k0) >> 2u) + 0u][3];
            }
            if (k0 + 4u < K) {
                x1_0_1[0] = normed[((rowk1 + k0) >> 2u) + 1u][0];
            }
            if (k0 + 5u < K) {
                x1_0_1[1] = normed[((rowk1 + k0) >> 2u) + 1u][1];
            }
            if (k0 + 6u < K) {
                x1_0_1[2] = normed[((rowk1 + k0) >> 2u) + 1u][2];
            }
            if (k0 + 7u < K) {
                x1_0_1[3] = normed[((rowk1 + k0) >> 2u) + 1u][3];
            }
            if (k0 + 8u < K) {
                x1_0_2[0] = normed[((rowk1 + k0) >> 2u) + 2u][0];
            }
            if (k0 + 9u < K) {
                x1_0_2[1] = normed[((rowk1 + k0) >> 2u) + 2u][1];
            }
            if (k0 + 10u < K) {
                x1_0_2[2] = normed[((rowk1 + k0) >> 2u) + 2u][2];
            }
            if (k0 + 11u < K) {
                x1_0_2[3] = normed[((rowk1 + k0) >> 2u) + 2u][3];
            }
            if (k0 + 12u < K) {
                x1_0_3[0] = normed[((rowk1 + k0) >> 2u) + 3u][0];
            }
            if (k0 + 13u < K) {
                x1_0_3[1] = normed[((rowk1 + k0) >> 2u) + 3u][1];
            }
            if (k0 + 14u < K) {
                x1_0_3[2] = normed[((rowk1 + k0) >> 2u) + 3u][2];
            }
            if (k0 + 15u < K) {
                x1_0_3[3] = normed[((rowk1 + k0) >> 2u) + 3u][3];
            }
            if (k0 + 16u < K) {
                x1_0_4[0] = normed[((rowk1 + k0) >> 2u) + 4u][0];
            }
            if (k0 + 17u < K) {
                x1_0_4[1] = normed[((rowk1 + k0) >> 2u) + 4u][1];
            }
            if (k0 + 18u < K) {
                x1_0_4[2] = normed[((rowk1 + k0) >> 2u) + 4u][2];
            }
            if (k0 + 19u < K) {
                x1_0_4[3] = normed[((rowk1 + k0) >> 2u) + 4u][3];
            }
            if (k0 + 20u < K) {
                x1_0_5[0] = normed[((rowk1 + k0) >> 2u) + 5u][0];
            }
            if (k0 + 21u < K) {
                x1_0_5[1] = normed[((rowk1 + k0) >> 2u) + 5u][1];
            }
            if (k0 + 22u < K) {
                x1_0_5[2] = normed[((rowk1 + k0) >> 2u) + 5u][2];
            }
            if (k0 + 23u < K) {
                x1_0_5[3] = normed[((rowk1 + k0) >> 2u) + 5u][3];
            }
            if (k0 + 24u < K) {
                x1_0_6[0] = normed[((rowk1 + k0) >> 2u) + 6u][0];
            }
            if (k0 + 25u < K) {
                x1_0_6[1] = normed[((rowk1 + k0) >> 2u) + 6u][1];
            }
            if (k0 + 26u < K) {
                x1_0_6[2] = normed[((rowk1 + k0) >> 2u) + 6u][2];
            }
            if (k0 + 27u < K) {
                x1_0_6[3] = normed[((rowk1 + k0) >> 2u) + 6u][3];
            }
            if (k0 + 28u < K) {
                x1_0_7[0] = normed[((rowk1 + k0) >> 2u) + 7u][0];
            }
            if (k0 + 29u < K) {
                x1_0_7[1] = normed[((rowk1 + k0) >> 2u) + 7u][1];
            }
            if (k0 + 30u < K) {
                x1_0_7[2] = normed[((rowk1 + k0) >> 2u) + 7u][2];
            }
            if (k0 + 31u < K) {
                x1_0_7[3] = normed[((rowk1 + k0) >> 2u) + 7u][3];
            }
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
    let xp1_0_0_0 = vec2<f16>(vec2<f32>(x1_0_0[0], x1_0_1[0]) * 1.0);
    let xp1_0_0_1 = vec2<f16>(vec2<f32>(x1_0_0[1], x1_0_1[1]) * 1.0);
    let xp1_0_0_2 = vec2<f16>(vec2<f32>(x1_0_0[2], x1_0_1[2]) * 256.0);
    let xp1_0_0_3 = vec2<f16>(vec2<f32>(x1_0_0[3], x1_0_1[3]) * 256.0);
    let xp1_0_1_0 = vec2<f16>(vec2<f32>(x1_0_2[0], x1_0_3[0]) * 1.0);
    let xp1_0_1_1 = vec2<f16>(vec2<f32>(x1_0_2[1], x1_0_3[1]) * 1.0);
    let xp1_0_1_2 = vec2<f16>(vec2<f32>(x1_0_2[2], x1_0_3[2]) * 256.0);
    let xp1_0_1_3 = vec2<f16>(vec2<f32>(x1_0_2[3], x1_0_3[3]) * 256.0);
    let xp1_0_2_0 = vec2<f16>(vec2<f32>(x1_0_4[0], x1_0_5[0]) * 1.0);
    let xp1_0_2_1 = vec2<f16>(vec2<f32>(x1_0_4[1], x1_0_5[1]) * 1.0);
    let xp1_0_2_2 = vec2<f16>(vec2<f32>(x1_0_4[2], x1_0_5[2]) * 256.0);
    let xp1_0_2_3 = vec2<f16>(vec2<f32>(x1_0_4[3], x1_0_5[3]) * 256.0);
    let xp1_0_3_0 = vec2<f16>(vec2<f32>(x1_0_6[0], x1_0_7[0]) * 1.0);
    let xp1_0_3_1 = vec2<f16>(vec2<f32>(x1_0_6[1], x1_0_7[1]) * 1.0);
    let xp1_0_3_2 = vec2<f16>(vec2<f32>(x1_0_6[2], x1_0_7[2]) * 256.0);
    let xp1_0_3_3 = vec2<f16>(vec2<f32>(x1_0_6[3], x1_0_7[3]) * 256.0);

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
        {
            var acc0_0 = vec2<f16>(0.0h);
            var acc1_0 = vec2<f16>(0.0h);
            {
                let v = cg0_0_0[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_0_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_0_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_0_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_0_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_0_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_0_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_0_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_0_3, acc1_0);
            }
            {
                let v = cg0_0_0[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_1_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_1_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_1_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_1_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_1_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_1_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_1_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_1_3, acc1_0);
            }
            {
                let v = cg0_0_0[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_2_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_2_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_2_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_2_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_2_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_2_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_2_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_2_3, acc1_0);
            }
            {
                let v = cg0_0_0[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_3_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_3_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_3_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_3_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_3_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_3_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_3_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_3_3, acc1_0);
            }
            g0_0 = fma(csg0_0_0, f32(acc0_0.x) + f32(acc0_0.y), g0_0);
            g1_0 = fma(csg0_0_0, f32(acc1_0.x) + f32(acc1_0.y), g1_0);
        }
        {
            var acc0_0 = vec2<f16>(0.0h);
            var acc1_0 = vec2<f16>(0.0h);
            {
                let v = cu0_0_0[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_0_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_0_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_0_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_0_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_0_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_0_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_0_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_0_3, acc1_0);
            }
            {
                let v = cu0_0_0[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_1_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_1_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_1_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_1_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_1_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_1_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_1_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_1_3, acc1_0);
            }
            {
                let v = cu0_0_0[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_2_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_2_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_2_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_2_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_2_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_2_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_2_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_2_3, acc1_0);
            }
            {
                let v = cu0_0_0[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_3_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_3_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_3_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_3_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_3_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_3_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_3_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_3_3, acc1_0);
            }
            u0_0 = fma(csu0_0_0, f32(acc0_0.x) + f32(acc0_0.y), u0_0);
            u1_0 = fma(csu0_0_0, f32(acc1_0.x) + f32(acc1_0.y), u1_0);
        }
        {
            var acc0_0 = vec2<f16>(0.0h);
            var acc1_0 = vec2<f16>(0.0h);
            {
                let v = cg1_0_0[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_0_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_0_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_0_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_0_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_0_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_0_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_0_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_0_3, acc1_0);
            }
            {
                let v = cg1_0_0[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_1_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_1_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_1_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_1_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_1_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_1_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_1_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_1_3, acc1_0);
            }
            {
                let v = cg1_0_0[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_2_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_2_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_2_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_2_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_2_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_2_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_2_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_2_3, acc1_0);
            }
            {
                let v = cg1_0_0[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_3_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_3_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_3_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_3_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_3_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_3_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_3_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_3_3, acc1_0);
            }
            g0_1 = fma(csg1_0_0, f32(acc0_0.x) + f32(acc0_0.y), g0_1);
            g1_1 = fma(csg1_0_0, f32(acc1_0.x) + f32(acc1_0.y), g1_1);
        }
        {
            var acc0_0 = vec2<f16>(0.0h);
            var acc1_0 = vec2<f16>(0.0h);
            {
                let v = cu1_0_0[0];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_0_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_0_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_0_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_0_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_0_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_0_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_0_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_0_3, acc1_0);
            }
            {
                let v = cu1_0_0[1];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_1_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_1_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_1_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_1_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_1_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_1_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_1_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_1_3, acc1_0);
            }
            {
                let v = cu1_0_0[2];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_2_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_2_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_2_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_2_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_2_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_2_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_2_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_2_3, acc1_0);
            }
            {
                let v = cu1_0_0[3];
                let vs = v >> 8u;
                let d0 = vec2<f16>(unpack2x16float((v & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d0, xp0_0_3_0, acc0_0);
                acc1_0 = fma(d0, xp1_0_3_0, acc1_0);
                let d1 = vec2<f16>(unpack2x16float((v & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d1, xp0_0_3_1, acc0_0);
                acc1_0 = fma(d1, xp1_0_3_1, acc1_0);
                let d2 = vec2<f16>(unpack2x16float((vs & 983055u) | 0x64006400u)) - vec2<f16>(1032.0h);
                acc0_0 = fma(d2, xp0_0_3_2, acc0_0);
                acc1_0 = fma(d2, xp1_0_3_2, acc1_0);
                let d3 = vec2<f16>(unpack2x16float((vs & 15728880u) | 0x64006400u)) - vec2<f16>(1152.0h);
                acc0_0 = fma(d3, xp0_0_3_3, acc0_0);
                acc1_0 = fma(d3, xp1_0_3_3, acc1_0);
            }
            u0_1 = fma(csu1_0_0, f32(acc0_0.x) + f32(acc0_0.y), u0_1);
            u1_1 = fma(csu1_0_0, f32(acc1_0.x) + f32(acc1_0.y), u1_1);
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
        workgroupBarrier();
        for (var r = t; r < 128u; r = r + WG) {
            let i = r * 8u;
            red2[r] = ((red[i] + red[i + 1u]) + (red[i + 2u] + red[i + 3u])) + ((red[i + 4u] + red[i + 5u]) + (red[i + 6u] + red[i + 7u]));
        }
        workgroupBarrier();
        if (t < 4u) {
            let c = t % 2u;
            let n = wid.y * COLS + b * 2u + c;
            var gs = 0.0;
            var us = 0.0;
            for (var i = 0u; i < WG / 8u; i = i + 1u) {
                gs = gs + red2[(2u * t) * (WG / 8u) + i];
                us = us + red2[(2u * t + 1u) * (WG / 8u) + i];
            }
            let row = wid.x * 2u + t / 2u;
            if (b * 2u + c < COLS && n < N && row < ROWS) {
                us = us + f32(up_bias[n]);
                y[row * N + n] = f16(silu_mul(gs, us));
            }
        }
    }
}