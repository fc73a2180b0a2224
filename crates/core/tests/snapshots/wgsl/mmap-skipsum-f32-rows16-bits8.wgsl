// snapshot mmap-skipsum-f32-rows16-bits8: variant mmap_skipsum_gb_noub, float32 K 4096 N 14336 rows 16 bits 8 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier), tunables [("MMA_F32_MAX_ROWS", 32)]
// ==== pass `norm`: matmul-nbits-fused-rms-norm.wgsl.jinja, dispatch [16, 1, 1], workgroup size [1024, 1, 1] ====
// ---- bindings generated from the manifest ----
struct Params {
    rows: u32,
};
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> skip: array<f32>;
@group(0) @binding(2) var<storage, read> norm_scale: array<f32>;
@group(0) @binding(3) var<storage, read_write> normed: array<f32>;
@group(0) @binding(4) var<storage, read_write> residual: array<f32>;
@group(0) @binding(5) var<uniform> params: Params;
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
        residual[base + t + 0u] = f32(s0);
    }
    ss = ss + s0 * s0;
    var s1 = 0.0;
    if (t + 1024u < K) {
        s1 = load_s(base + t + 1024u);
        residual[base + t + 1024u] = f32(s1);
    }
    ss = ss + s1 * s1;
    var s2 = 0.0;
    if (t + 2048u < K) {
        s2 = load_s(base + t + 2048u);
        residual[base + t + 2048u] = f32(s2);
    }
    ss = ss + s2 * s2;
    var s3 = 0.0;
    if (t + 3072u < K) {
        s3 = load_s(base + t + 3072u);
        residual[base + t + 3072u] = f32(s3);
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
// ==== pass `main`: mlp-mma.wgsl.jinja, dispatch [1, 128, 1], workgroup size [224, 1, 1] ====
enable f16;
enable wgpu_cooperative_matrix;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> normed: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f32>;
@group(0) @binding(3) var<storage, read> gate_bias: array<f32>;
@group(0) @binding(4) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read> up_scales: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;
// ---- template ----
const K: u32 = 4096u;
const N: u32 = 14336u;
const KB: u32 = 128u;             // blocks (scales) per weight row
const RV: u32 = 256u;  // 16-byte vectors per weight row
const ROWS: u32 = 16u;
const TM: u32 = 16u;                  // rows of the tile
const LDQ: u32 = 18u;                // row stride of slab and tile, in 4-half quads
const SLAB: u32 = 576u;          // quads per subgroup slab (32 rows)
const NT: u32 = 896u;      // prepared layout: stripes of 16 weight rows
const KC: u32 = 64u;  // tiles of 64 codes per stripe

// Per subgroup: 16 gate rows then 16 up rows of 64 halves (+ padding).
var<workgroup> slab: array<vec4<f16>, 4032>;
// The activation chunk, f16 [row][k] in the slab's code order.
var<workgroup> act: array<vec4<f16>, 288>;
// The activations' low parts (times 2^11), in the tile's layout.
var<workgroup> act_lo: array<vec4<f16>, 288>;
const LO: f32 = 2048.0;
const RLO: f32 = 0.00048828125;             // 2^-11

// v with its mantissa cut to f16's 10 bits: exact in f16 (normal range), v - hi exact in f32.
fn hi4(v: vec4<f32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(bitcast<vec4<u32>>(v) & vec4<u32>(0xFFFFE000u));
}
// Per subgroup: one 16 x 16 f32 block (column-major, 16 floats per column).
var<workgroup> cscr: array<vec4<f32>, 448>;

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}
@compute @workgroup_size(224)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let sg = t / 32u;          // subgroup: columns n0 .. n0 + 15 of gate and of up
    let lane = t % 32u;
    let m0 = wid.x * TM;
    let n0 = wid.y * 112u + sg * 16u;
    let own = sg * SLAB;       // this subgroup's slab
    let scr = sg * 64u;        // this subgroup's f32 scratch

    // Zero accumulators, loaded from zeroed workgroup memory.
    if (t < 64u) {
        cscr[t] = vec4<f32>(0.0);
    }
    workgroupBarrier();
    // 0x64006400 (two f16 of 1024: the staging's exponent bits, `code_pair`) as a value read
    // back from workgroup memory, where it is or-ed with zero: a register the driver's compiler
    // cannot fold, so each code pair's mask and or take one LOP3 (a & imm | reg) instead of two
    // (notes/PERF.md row 162).
    let magic = 0x64006400u | bitcast<u32>(cscr[0].x);
    var acc_g0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var acc_u0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var accx_g0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    var accx_u0 = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    let czero = coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u);
    // The float32 form's totals: element i of each 16 x 16 block (as the epilogue reads it).
    var tg0_0 = 0.0;
    var tu0_0 = 0.0;
    var tg0_1 = 0.0;
    var tu0_1 = 0.0;
    var tg0_2 = 0.0;
    var tu0_2 = 0.0;
    var tg0_3 = 0.0;
    var tu0_3 = 0.0;
    var tg0_4 = 0.0;
    var tu0_4 = 0.0;
    var tg0_5 = 0.0;
    var tu0_5 = 0.0;
    var tg0_6 = 0.0;
    var tu0_6 = 0.0;
    var tg0_7 = 0.0;
    var tu0_7 = 0.0;

    // The chunks in flight, as loaded: FG chunks of 64 codes per request (prefixes p0, p1, ...):
    // weight segments, their scales, activation groups.
    var p0w0: vec4<u32>;
    var p0w1: vec4<u32>;
    var p0w2: vec4<u32>;
    var p0w3: vec4<u32>;
    var p0a0_0: vec4<f32>;
    var p0a0_1: vec4<f32>;
    var p0fg0: f32;
    var p0fu0: f32;
    var p0fg1: f32;
    var p0fu1: f32;
    var p1w0: vec4<u32>;
    var p1w1: vec4<u32>;
    var p1w2: vec4<u32>;
    var p1w3: vec4<u32>;
    var p1a0_0: vec4<f32>;
    var p1a0_1: vec4<f32>;
    var p1fg0: f32;
    var p1fu0: f32;
    var p1fg1: f32;
    var p1fu1: f32;
    var p2w0: vec4<u32>;
    var p2w1: vec4<u32>;
    var p2w2: vec4<u32>;
    var p2w3: vec4<u32>;
    var p2a0_0: vec4<f32>;
    var p2a0_1: vec4<f32>;
    var p2fg0: f32;
    var p2fu0: f32;
    var p2fg1: f32;
    var p2fu1: f32;
    var p3w0: vec4<u32>;
    var p3w1: vec4<u32>;
    var p3w2: vec4<u32>;
    var p3w3: vec4<u32>;
    var p3a0_0: vec4<f32>;
    var p3a0_1: vec4<f32>;
    var p3fg0: f32;
    var p3fu0: f32;
    var p3fg1: f32;
    var p3fu1: f32;
    var n0w0: vec4<u32>;
    var n0w1: vec4<u32>;
    var n0w2: vec4<u32>;
    var n0w3: vec4<u32>;
    var n0a0_0: vec4<f32>;
    var n0a0_1: vec4<f32>;
    var n0fg0: f32;
    var n0fu0: f32;
    var n0fg1: f32;
    var n0fu1: f32;
    var n1w0: vec4<u32>;
    var n1w1: vec4<u32>;
    var n1w2: vec4<u32>;
    var n1w3: vec4<u32>;
    var n1a0_0: vec4<f32>;
    var n1a0_1: vec4<f32>;
    var n1fg0: f32;
    var n1fu0: f32;
    var n1fg1: f32;
    var n1fu1: f32;
    var n2w0: vec4<u32>;
    var n2w1: vec4<u32>;
    var n2w2: vec4<u32>;
    var n2w3: vec4<u32>;
    var n2a0_0: vec4<f32>;
    var n2a0_1: vec4<f32>;
    var n2fg0: f32;
    var n2fu0: f32;
    var n2fg1: f32;
    var n2fu1: f32;
    var n3w0: vec4<u32>;
    var n3w1: vec4<u32>;
    var n3w2: vec4<u32>;
    var n3w3: vec4<u32>;
    var n3a0_0: vec4<f32>;
    var n3a0_1: vec4<f32>;
    var n3fg0: f32;
    var n3fu0: f32;
    var n3fg1: f32;
    var n3fu1: f32;
    let kbeg = 0u;
    let kend = K;
    // FG consecutive chunks requested together (each lane's 16-byte pieces of a row for FG
    // chunks back to back: longer runs of one weight row per request), then staged and
    // multiplied one by one. A chunk at or past kend has zero activations (the fetch's guard)
    // and adds nothing, so the cooperative operations need no branch around them.
        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((kbeg + 0u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let vi = tile * 64u + f % 64u;
                p0w0 = gate_b[vi];
            }
            {
                let f = 32u + lane;
                let vi = tile * 64u + f % 64u;
                p0w1 = gate_b[vi];
            }
            {
                let f = 64u + lane;
                let vi = tile * 64u + f % 64u;
                p0w2 = up_b[vi];
            }
            {
                let f = 96u + lane;
                let vi = tile * 64u + f % 64u;
                p0w3 = up_b[vi];
            }
            // The float32 form's scales: this lane's column of the epilogue (lane % 16), one
            // per unit of FU codes, for gate and for up.
            let fsi = tile * 32u + (lane % 16u) * 2u;
            p0fg0 = gate_scales[fsi + 0u];
            p0fu0 = up_scales[fsi + 0u];
            p0fg1 = gate_scales[fsi + 1u];
            p0fu1 = up_scales[fsi + 1u];
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = kbeg + 0u + (gi % 8u) * 8u;
            p0a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                p0a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            p0a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                p0a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((kbeg + 64u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let vi = tile * 64u + f % 64u;
                p1w0 = gate_b[vi];
            }
            {
                let f = 32u + lane;
                let vi = tile * 64u + f % 64u;
                p1w1 = gate_b[vi];
            }
            {
                let f = 64u + lane;
                let vi = tile * 64u + f % 64u;
                p1w2 = up_b[vi];
            }
            {
                let f = 96u + lane;
                let vi = tile * 64u + f % 64u;
                p1w3 = up_b[vi];
            }
            // The float32 form's scales: this lane's column of the epilogue (lane % 16), one
            // per unit of FU codes, for gate and for up.
            let fsi = tile * 32u + (lane % 16u) * 2u;
            p1fg0 = gate_scales[fsi + 0u];
            p1fu0 = up_scales[fsi + 0u];
            p1fg1 = gate_scales[fsi + 1u];
            p1fu1 = up_scales[fsi + 1u];
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = kbeg + 64u + (gi % 8u) * 8u;
            p1a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                p1a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            p1a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                p1a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((kbeg + 128u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let vi = tile * 64u + f % 64u;
                p2w0 = gate_b[vi];
            }
            {
                let f = 32u + lane;
                let vi = tile * 64u + f % 64u;
                p2w1 = gate_b[vi];
            }
            {
                let f = 64u + lane;
                let vi = tile * 64u + f % 64u;
                p2w2 = up_b[vi];
            }
            {
                let f = 96u + lane;
                let vi = tile * 64u + f % 64u;
                p2w3 = up_b[vi];
            }
            // The float32 form's scales: this lane's column of the epilogue (lane % 16), one
            // per unit of FU codes, for gate and for up.
            let fsi = tile * 32u + (lane % 16u) * 2u;
            p2fg0 = gate_scales[fsi + 0u];
            p2fu0 = up_scales[fsi + 0u];
            p2fg1 = gate_scales[fsi + 1u];
            p2fu1 = up_scales[fsi + 1u];
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = kbeg + 128u + (gi % 8u) * 8u;
            p2a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                p2a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            p2a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                p2a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((kbeg + 192u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let vi = tile * 64u + f % 64u;
                p3w0 = gate_b[vi];
            }
            {
                let f = 32u + lane;
                let vi = tile * 64u + f % 64u;
                p3w1 = gate_b[vi];
            }
            {
                let f = 64u + lane;
                let vi = tile * 64u + f % 64u;
                p3w2 = up_b[vi];
            }
            {
                let f = 96u + lane;
                let vi = tile * 64u + f % 64u;
                p3w3 = up_b[vi];
            }
            // The float32 form's scales: this lane's column of the epilogue (lane % 16), one
            // per unit of FU codes, for gate and for up.
            let fsi = tile * 32u + (lane % 16u) * 2u;
            p3fg0 = gate_scales[fsi + 0u];
            p3fu0 = up_scales[fsi + 0u];
            p3fg1 = gate_scales[fsi + 1u];
            p3fu1 = up_scales[fsi + 1u];
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = kbeg + 192u + (gi % 8u) * 8u;
            p3a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                p3a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            p3a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                p3a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

    for (var k0 = kbeg; k0 < kend; k0 = k0 + 256u) {
        // Request the next group into its own registers before this group is staged.
        if (k0 + 256u < kend) {
        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 256u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let vi = tile * 64u + f % 64u;
                n0w0 = gate_b[vi];
            }
            {
                let f = 32u + lane;
                let vi = tile * 64u + f % 64u;
                n0w1 = gate_b[vi];
            }
            {
                let f = 64u + lane;
                let vi = tile * 64u + f % 64u;
                n0w2 = up_b[vi];
            }
            {
                let f = 96u + lane;
                let vi = tile * 64u + f % 64u;
                n0w3 = up_b[vi];
            }
            // The float32 form's scales: this lane's column of the epilogue (lane % 16), one
            // per unit of FU codes, for gate and for up.
            let fsi = tile * 32u + (lane % 16u) * 2u;
            n0fg0 = gate_scales[fsi + 0u];
            n0fu0 = up_scales[fsi + 0u];
            n0fg1 = gate_scales[fsi + 1u];
            n0fu1 = up_scales[fsi + 1u];
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 256u + (gi % 8u) * 8u;
            n0a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                n0a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            n0a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                n0a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 320u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let vi = tile * 64u + f % 64u;
                n1w0 = gate_b[vi];
            }
            {
                let f = 32u + lane;
                let vi = tile * 64u + f % 64u;
                n1w1 = gate_b[vi];
            }
            {
                let f = 64u + lane;
                let vi = tile * 64u + f % 64u;
                n1w2 = up_b[vi];
            }
            {
                let f = 96u + lane;
                let vi = tile * 64u + f % 64u;
                n1w3 = up_b[vi];
            }
            // The float32 form's scales: this lane's column of the epilogue (lane % 16), one
            // per unit of FU codes, for gate and for up.
            let fsi = tile * 32u + (lane % 16u) * 2u;
            n1fg0 = gate_scales[fsi + 0u];
            n1fu0 = up_scales[fsi + 0u];
            n1fg1 = gate_scales[fsi + 1u];
            n1fu1 = up_scales[fsi + 1u];
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 320u + (gi % 8u) * 8u;
            n1a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                n1a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            n1a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                n1a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 384u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let vi = tile * 64u + f % 64u;
                n2w0 = gate_b[vi];
            }
            {
                let f = 32u + lane;
                let vi = tile * 64u + f % 64u;
                n2w1 = gate_b[vi];
            }
            {
                let f = 64u + lane;
                let vi = tile * 64u + f % 64u;
                n2w2 = up_b[vi];
            }
            {
                let f = 96u + lane;
                let vi = tile * 64u + f % 64u;
                n2w3 = up_b[vi];
            }
            // The float32 form's scales: this lane's column of the epilogue (lane % 16), one
            // per unit of FU codes, for gate and for up.
            let fsi = tile * 32u + (lane % 16u) * 2u;
            n2fg0 = gate_scales[fsi + 0u];
            n2fu0 = up_scales[fsi + 0u];
            n2fg1 = gate_scales[fsi + 1u];
            n2fu1 = up_scales[fsi + 1u];
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 384u + (gi % 8u) * 8u;
            n2a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                n2a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            n2a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                n2a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

        {
            // Prepared layout: this subgroup's tile of 16 rows x 64 codes of gate and of up
            // for the chunk, each one contiguous run (codes and scales), read whole.
            let tile = min(n0 / 16u, NT - 1u) * KC + min((k0 + 448u) / 64u, KC - 1u);
            {
                let f = 0u + lane;
                let vi = tile * 64u + f % 64u;
                n3w0 = gate_b[vi];
            }
            {
                let f = 32u + lane;
                let vi = tile * 64u + f % 64u;
                n3w1 = gate_b[vi];
            }
            {
                let f = 64u + lane;
                let vi = tile * 64u + f % 64u;
                n3w2 = up_b[vi];
            }
            {
                let f = 96u + lane;
                let vi = tile * 64u + f % 64u;
                n3w3 = up_b[vi];
            }
            // The float32 form's scales: this lane's column of the epilogue (lane % 16), one
            // per unit of FU codes, for gate and for up.
            let fsi = tile * 32u + (lane % 16u) * 2u;
            n3fg0 = gate_scales[fsi + 0u];
            n3fu0 = up_scales[fsi + 0u];
            n3fg1 = gate_scales[fsi + 1u];
            n3fu1 = up_scales[fsi + 1u];
        }
        {
            let gi = t + 0u;
            let row = m0 + gi / 8u;
            let k = k0 + 448u + (gi % 8u) * 8u;
            n3a0_0 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 0u < kend) {
                n3a0_0 = normed[(row * K + k + 0u) / 4u];
            }
            n3a0_1 = vec4<f32>(0.0);
            if (gi < 128u && row < ROWS && k + 4u < kend) {
                n3a0_1 = normed[(row * K + k + 4u) / 4u];
            }
        }

        }
        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 128u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                let h0 = hi4(p0a0_0);
                let hh0 = vec4<f16>(h0);
                let hl0 = vec4<f16>((p0a0_0 - h0) * LO);
                let h1 = hi4(p0a0_1);
                let hh1 = vec4<f16>(h1);
                let hl1 = vec4<f16>((p0a0_1 - h1) * LO);
                act[base + 0u] = vec4<f16>(hh0[0], hh0[1], hh0[2], hh0[3]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl0[1], hl0[2], hl0[3]);
                act[base + 1u] = vec4<f16>(hh1[0], hh1[1], hh1[2], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl1[0], hl1[1], hl1[2], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p0w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p0w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p0w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p0w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }
        {
            let f = 32u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p0w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p0w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p0w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p0w1[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }
        {
            let f = 64u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p0w2[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p0w2[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p0w2[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p0w2[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }
        {
            let f = 96u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p0w3[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p0w3[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p0w3[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p0w3[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }

        workgroupBarrier();
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 0u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 0u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 0u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, czero);
            acc_u0 = coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, czero);
            accx_u0 = coopMultiplyAdd(wu, xl0, czero);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 4u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 4u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 4u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, acc_g0);
            acc_u0 = coopMultiplyAdd(wu, x0, acc_u0);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
        }
        // Unit 0 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStore(acc_g0 + accx_g0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tg0_0 = fma(p0fg0, cscr[scr + 0u + lane / 4u][lane % 4u], tg0_0);
        tg0_1 = fma(p0fg0, cscr[scr + 8u + lane / 4u][lane % 4u], tg0_1);
        tg0_2 = fma(p0fg0, cscr[scr + 16u + lane / 4u][lane % 4u], tg0_2);
        tg0_3 = fma(p0fg0, cscr[scr + 24u + lane / 4u][lane % 4u], tg0_3);
        tg0_4 = fma(p0fg0, cscr[scr + 32u + lane / 4u][lane % 4u], tg0_4);
        tg0_5 = fma(p0fg0, cscr[scr + 40u + lane / 4u][lane % 4u], tg0_5);
        tg0_6 = fma(p0fg0, cscr[scr + 48u + lane / 4u][lane % 4u], tg0_6);
        tg0_7 = fma(p0fg0, cscr[scr + 56u + lane / 4u][lane % 4u], tg0_7);
        subgroupBarrier();
        coopStore(acc_u0 + accx_u0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tu0_0 = fma(p0fu0, cscr[scr + 0u + lane / 4u][lane % 4u], tu0_0);
        tu0_1 = fma(p0fu0, cscr[scr + 8u + lane / 4u][lane % 4u], tu0_1);
        tu0_2 = fma(p0fu0, cscr[scr + 16u + lane / 4u][lane % 4u], tu0_2);
        tu0_3 = fma(p0fu0, cscr[scr + 24u + lane / 4u][lane % 4u], tu0_3);
        tu0_4 = fma(p0fu0, cscr[scr + 32u + lane / 4u][lane % 4u], tu0_4);
        tu0_5 = fma(p0fu0, cscr[scr + 40u + lane / 4u][lane % 4u], tu0_5);
        tu0_6 = fma(p0fu0, cscr[scr + 48u + lane / 4u][lane % 4u], tu0_6);
        tu0_7 = fma(p0fu0, cscr[scr + 56u + lane / 4u][lane % 4u], tu0_7);
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 8u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 8u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 8u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, czero);
            acc_u0 = coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, czero);
            accx_u0 = coopMultiplyAdd(wu, xl0, czero);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 12u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 12u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 12u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, acc_g0);
            acc_u0 = coopMultiplyAdd(wu, x0, acc_u0);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
        }
        // Unit 1 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStore(acc_g0 + accx_g0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tg0_0 = fma(p0fg1, cscr[scr + 0u + lane / 4u][lane % 4u], tg0_0);
        tg0_1 = fma(p0fg1, cscr[scr + 8u + lane / 4u][lane % 4u], tg0_1);
        tg0_2 = fma(p0fg1, cscr[scr + 16u + lane / 4u][lane % 4u], tg0_2);
        tg0_3 = fma(p0fg1, cscr[scr + 24u + lane / 4u][lane % 4u], tg0_3);
        tg0_4 = fma(p0fg1, cscr[scr + 32u + lane / 4u][lane % 4u], tg0_4);
        tg0_5 = fma(p0fg1, cscr[scr + 40u + lane / 4u][lane % 4u], tg0_5);
        tg0_6 = fma(p0fg1, cscr[scr + 48u + lane / 4u][lane % 4u], tg0_6);
        tg0_7 = fma(p0fg1, cscr[scr + 56u + lane / 4u][lane % 4u], tg0_7);
        subgroupBarrier();
        coopStore(acc_u0 + accx_u0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tu0_0 = fma(p0fu1, cscr[scr + 0u + lane / 4u][lane % 4u], tu0_0);
        tu0_1 = fma(p0fu1, cscr[scr + 8u + lane / 4u][lane % 4u], tu0_1);
        tu0_2 = fma(p0fu1, cscr[scr + 16u + lane / 4u][lane % 4u], tu0_2);
        tu0_3 = fma(p0fu1, cscr[scr + 24u + lane / 4u][lane % 4u], tu0_3);
        tu0_4 = fma(p0fu1, cscr[scr + 32u + lane / 4u][lane % 4u], tu0_4);
        tu0_5 = fma(p0fu1, cscr[scr + 40u + lane / 4u][lane % 4u], tu0_5);
        tu0_6 = fma(p0fu1, cscr[scr + 48u + lane / 4u][lane % 4u], tu0_6);
        tu0_7 = fma(p0fu1, cscr[scr + 56u + lane / 4u][lane % 4u], tu0_7);

        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 128u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                let h0 = hi4(p1a0_0);
                let hh0 = vec4<f16>(h0);
                let hl0 = vec4<f16>((p1a0_0 - h0) * LO);
                let h1 = hi4(p1a0_1);
                let hh1 = vec4<f16>(h1);
                let hl1 = vec4<f16>((p1a0_1 - h1) * LO);
                act[base + 0u] = vec4<f16>(hh0[0], hh0[1], hh0[2], hh0[3]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl0[1], hl0[2], hl0[3]);
                act[base + 1u] = vec4<f16>(hh1[0], hh1[1], hh1[2], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl1[0], hl1[1], hl1[2], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p1w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p1w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p1w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p1w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }
        {
            let f = 32u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p1w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p1w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p1w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p1w1[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }
        {
            let f = 64u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p1w2[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p1w2[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p1w2[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p1w2[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }
        {
            let f = 96u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p1w3[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p1w3[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p1w3[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p1w3[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }

        workgroupBarrier();
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 0u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 0u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 0u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, czero);
            acc_u0 = coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, czero);
            accx_u0 = coopMultiplyAdd(wu, xl0, czero);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 4u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 4u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 4u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, acc_g0);
            acc_u0 = coopMultiplyAdd(wu, x0, acc_u0);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
        }
        // Unit 0 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStore(acc_g0 + accx_g0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tg0_0 = fma(p1fg0, cscr[scr + 0u + lane / 4u][lane % 4u], tg0_0);
        tg0_1 = fma(p1fg0, cscr[scr + 8u + lane / 4u][lane % 4u], tg0_1);
        tg0_2 = fma(p1fg0, cscr[scr + 16u + lane / 4u][lane % 4u], tg0_2);
        tg0_3 = fma(p1fg0, cscr[scr + 24u + lane / 4u][lane % 4u], tg0_3);
        tg0_4 = fma(p1fg0, cscr[scr + 32u + lane / 4u][lane % 4u], tg0_4);
        tg0_5 = fma(p1fg0, cscr[scr + 40u + lane / 4u][lane % 4u], tg0_5);
        tg0_6 = fma(p1fg0, cscr[scr + 48u + lane / 4u][lane % 4u], tg0_6);
        tg0_7 = fma(p1fg0, cscr[scr + 56u + lane / 4u][lane % 4u], tg0_7);
        subgroupBarrier();
        coopStore(acc_u0 + accx_u0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tu0_0 = fma(p1fu0, cscr[scr + 0u + lane / 4u][lane % 4u], tu0_0);
        tu0_1 = fma(p1fu0, cscr[scr + 8u + lane / 4u][lane % 4u], tu0_1);
        tu0_2 = fma(p1fu0, cscr[scr + 16u + lane / 4u][lane % 4u], tu0_2);
        tu0_3 = fma(p1fu0, cscr[scr + 24u + lane / 4u][lane % 4u], tu0_3);
        tu0_4 = fma(p1fu0, cscr[scr + 32u + lane / 4u][lane % 4u], tu0_4);
        tu0_5 = fma(p1fu0, cscr[scr + 40u + lane / 4u][lane % 4u], tu0_5);
        tu0_6 = fma(p1fu0, cscr[scr + 48u + lane / 4u][lane % 4u], tu0_6);
        tu0_7 = fma(p1fu0, cscr[scr + 56u + lane / 4u][lane % 4u], tu0_7);
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 8u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 8u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 8u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, czero);
            acc_u0 = coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, czero);
            accx_u0 = coopMultiplyAdd(wu, xl0, czero);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 12u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 12u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 12u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, acc_g0);
            acc_u0 = coopMultiplyAdd(wu, x0, acc_u0);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
        }
        // Unit 1 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStore(acc_g0 + accx_g0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tg0_0 = fma(p1fg1, cscr[scr + 0u + lane / 4u][lane % 4u], tg0_0);
        tg0_1 = fma(p1fg1, cscr[scr + 8u + lane / 4u][lane % 4u], tg0_1);
        tg0_2 = fma(p1fg1, cscr[scr + 16u + lane / 4u][lane % 4u], tg0_2);
        tg0_3 = fma(p1fg1, cscr[scr + 24u + lane / 4u][lane % 4u], tg0_3);
        tg0_4 = fma(p1fg1, cscr[scr + 32u + lane / 4u][lane % 4u], tg0_4);
        tg0_5 = fma(p1fg1, cscr[scr + 40u + lane / 4u][lane % 4u], tg0_5);
        tg0_6 = fma(p1fg1, cscr[scr + 48u + lane / 4u][lane % 4u], tg0_6);
        tg0_7 = fma(p1fg1, cscr[scr + 56u + lane / 4u][lane % 4u], tg0_7);
        subgroupBarrier();
        coopStore(acc_u0 + accx_u0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tu0_0 = fma(p1fu1, cscr[scr + 0u + lane / 4u][lane % 4u], tu0_0);
        tu0_1 = fma(p1fu1, cscr[scr + 8u + lane / 4u][lane % 4u], tu0_1);
        tu0_2 = fma(p1fu1, cscr[scr + 16u + lane / 4u][lane % 4u], tu0_2);
        tu0_3 = fma(p1fu1, cscr[scr + 24u + lane / 4u][lane % 4u], tu0_3);
        tu0_4 = fma(p1fu1, cscr[scr + 32u + lane / 4u][lane % 4u], tu0_4);
        tu0_5 = fma(p1fu1, cscr[scr + 40u + lane / 4u][lane % 4u], tu0_5);
        tu0_6 = fma(p1fu1, cscr[scr + 48u + lane / 4u][lane % 4u], tu0_6);
        tu0_7 = fma(p1fu1, cscr[scr + 56u + lane / 4u][lane % 4u], tu0_7);

        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 128u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                let h0 = hi4(p2a0_0);
                let hh0 = vec4<f16>(h0);
                let hl0 = vec4<f16>((p2a0_0 - h0) * LO);
                let h1 = hi4(p2a0_1);
                let hh1 = vec4<f16>(h1);
                let hl1 = vec4<f16>((p2a0_1 - h1) * LO);
                act[base + 0u] = vec4<f16>(hh0[0], hh0[1], hh0[2], hh0[3]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl0[1], hl0[2], hl0[3]);
                act[base + 1u] = vec4<f16>(hh1[0], hh1[1], hh1[2], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl1[0], hl1[1], hl1[2], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p2w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p2w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p2w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p2w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }
        {
            let f = 32u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p2w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p2w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p2w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p2w1[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }
        {
            let f = 64u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p2w2[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p2w2[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p2w2[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p2w2[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }
        {
            let f = 96u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p2w3[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p2w3[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p2w3[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p2w3[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }

        workgroupBarrier();
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 0u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 0u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 0u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, czero);
            acc_u0 = coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, czero);
            accx_u0 = coopMultiplyAdd(wu, xl0, czero);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 4u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 4u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 4u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, acc_g0);
            acc_u0 = coopMultiplyAdd(wu, x0, acc_u0);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
        }
        // Unit 0 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStore(acc_g0 + accx_g0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tg0_0 = fma(p2fg0, cscr[scr + 0u + lane / 4u][lane % 4u], tg0_0);
        tg0_1 = fma(p2fg0, cscr[scr + 8u + lane / 4u][lane % 4u], tg0_1);
        tg0_2 = fma(p2fg0, cscr[scr + 16u + lane / 4u][lane % 4u], tg0_2);
        tg0_3 = fma(p2fg0, cscr[scr + 24u + lane / 4u][lane % 4u], tg0_3);
        tg0_4 = fma(p2fg0, cscr[scr + 32u + lane / 4u][lane % 4u], tg0_4);
        tg0_5 = fma(p2fg0, cscr[scr + 40u + lane / 4u][lane % 4u], tg0_5);
        tg0_6 = fma(p2fg0, cscr[scr + 48u + lane / 4u][lane % 4u], tg0_6);
        tg0_7 = fma(p2fg0, cscr[scr + 56u + lane / 4u][lane % 4u], tg0_7);
        subgroupBarrier();
        coopStore(acc_u0 + accx_u0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tu0_0 = fma(p2fu0, cscr[scr + 0u + lane / 4u][lane % 4u], tu0_0);
        tu0_1 = fma(p2fu0, cscr[scr + 8u + lane / 4u][lane % 4u], tu0_1);
        tu0_2 = fma(p2fu0, cscr[scr + 16u + lane / 4u][lane % 4u], tu0_2);
        tu0_3 = fma(p2fu0, cscr[scr + 24u + lane / 4u][lane % 4u], tu0_3);
        tu0_4 = fma(p2fu0, cscr[scr + 32u + lane / 4u][lane % 4u], tu0_4);
        tu0_5 = fma(p2fu0, cscr[scr + 40u + lane / 4u][lane % 4u], tu0_5);
        tu0_6 = fma(p2fu0, cscr[scr + 48u + lane / 4u][lane % 4u], tu0_6);
        tu0_7 = fma(p2fu0, cscr[scr + 56u + lane / 4u][lane % 4u], tu0_7);
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 8u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 8u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 8u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, czero);
            acc_u0 = coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, czero);
            accx_u0 = coopMultiplyAdd(wu, xl0, czero);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 12u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 12u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 12u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, acc_g0);
            acc_u0 = coopMultiplyAdd(wu, x0, acc_u0);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
        }
        // Unit 1 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStore(acc_g0 + accx_g0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tg0_0 = fma(p2fg1, cscr[scr + 0u + lane / 4u][lane % 4u], tg0_0);
        tg0_1 = fma(p2fg1, cscr[scr + 8u + lane / 4u][lane % 4u], tg0_1);
        tg0_2 = fma(p2fg1, cscr[scr + 16u + lane / 4u][lane % 4u], tg0_2);
        tg0_3 = fma(p2fg1, cscr[scr + 24u + lane / 4u][lane % 4u], tg0_3);
        tg0_4 = fma(p2fg1, cscr[scr + 32u + lane / 4u][lane % 4u], tg0_4);
        tg0_5 = fma(p2fg1, cscr[scr + 40u + lane / 4u][lane % 4u], tg0_5);
        tg0_6 = fma(p2fg1, cscr[scr + 48u + lane / 4u][lane % 4u], tg0_6);
        tg0_7 = fma(p2fg1, cscr[scr + 56u + lane / 4u][lane % 4u], tg0_7);
        subgroupBarrier();
        coopStore(acc_u0 + accx_u0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tu0_0 = fma(p2fu1, cscr[scr + 0u + lane / 4u][lane % 4u], tu0_0);
        tu0_1 = fma(p2fu1, cscr[scr + 8u + lane / 4u][lane % 4u], tu0_1);
        tu0_2 = fma(p2fu1, cscr[scr + 16u + lane / 4u][lane % 4u], tu0_2);
        tu0_3 = fma(p2fu1, cscr[scr + 24u + lane / 4u][lane % 4u], tu0_3);
        tu0_4 = fma(p2fu1, cscr[scr + 32u + lane / 4u][lane % 4u], tu0_4);
        tu0_5 = fma(p2fu1, cscr[scr + 40u + lane / 4u][lane % 4u], tu0_5);
        tu0_6 = fma(p2fu1, cscr[scr + 48u + lane / 4u][lane % 4u], tu0_6);
        tu0_7 = fma(p2fu1, cscr[scr + 56u + lane / 4u][lane % 4u], tu0_7);

        workgroupBarrier();
        // Stage the activation chunk (f16, the slab's code order) ...
        {
            let gi = t + 0u;
            if (gi < 128u) {
                let base = (gi / 8u) * LDQ + (gi % 8u) * 2u;
                let h0 = hi4(p3a0_0);
                let hh0 = vec4<f16>(h0);
                let hl0 = vec4<f16>((p3a0_0 - h0) * LO);
                let h1 = hi4(p3a0_1);
                let hh1 = vec4<f16>(h1);
                let hl1 = vec4<f16>((p3a0_1 - h1) * LO);
                act[base + 0u] = vec4<f16>(hh0[0], hh0[1], hh0[2], hh0[3]);
                act_lo[base + 0u] = vec4<f16>(hl0[0], hl0[1], hl0[2], hl0[3]);
                act[base + 1u] = vec4<f16>(hh1[0], hh1[1], hh1[2], hh1[3]);
                act_lo[base + 1u] = vec4<f16>(hl1[0], hl1[1], hl1[2], hl1[3]);
            }
        }
        // ... and dequantise this lane's weight segments into the subgroup's slab.
        {
            let f = 0u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p3w0[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p3w0[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p3w0[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p3w0[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }
        {
            let f = 32u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p3w1[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p3w1[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p3w1[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p3w1[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }
        {
            let f = 64u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p3w2[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p3w2[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p3w2[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p3w2[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }
        {
            let f = 96u + lane;
            let base = own + (f / 4u) * LDQ + (f % 4u) * 4u;
            let v0 = p3w3[0];
            let vs0 = v0 >> 8u;
            let d0_0 = (vec2<f16>(unpack2x16float((v0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d0_1 = (vec2<f16>(unpack2x16float((vs0 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v1 = p3w3[1];
            let vs1 = v1 >> 8u;
            let d1_0 = (vec2<f16>(unpack2x16float((v1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d1_1 = (vec2<f16>(unpack2x16float((vs1 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v2 = p3w3[2];
            let vs2 = v2 >> 8u;
            let d2_0 = (vec2<f16>(unpack2x16float((v2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d2_1 = (vec2<f16>(unpack2x16float((vs2 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let v3 = p3w3[3];
            let vs3 = v3 >> 8u;
            let d3_0 = (vec2<f16>(unpack2x16float((v3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            let d3_1 = (vec2<f16>(unpack2x16float((vs3 & 16711935u) | magic)) - vec2<f16>(1152.0h));
            slab[base + 0u] = vec4<f16>(d0_0, d0_1);
            slab[base + 1u] = vec4<f16>(d1_0, d1_1);
            slab[base + 2u] = vec4<f16>(d2_0, d2_1);
            slab[base + 3u] = vec4<f16>(d3_0, d3_1);
        }

        workgroupBarrier();
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 0u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 0u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 0u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 0u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, czero);
            acc_u0 = coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, czero);
            accx_u0 = coopMultiplyAdd(wu, xl0, czero);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 4u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 4u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 4u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 4u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, acc_g0);
            acc_u0 = coopMultiplyAdd(wu, x0, acc_u0);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
        }
        // Unit 0 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStore(acc_g0 + accx_g0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tg0_0 = fma(p3fg0, cscr[scr + 0u + lane / 4u][lane % 4u], tg0_0);
        tg0_1 = fma(p3fg0, cscr[scr + 8u + lane / 4u][lane % 4u], tg0_1);
        tg0_2 = fma(p3fg0, cscr[scr + 16u + lane / 4u][lane % 4u], tg0_2);
        tg0_3 = fma(p3fg0, cscr[scr + 24u + lane / 4u][lane % 4u], tg0_3);
        tg0_4 = fma(p3fg0, cscr[scr + 32u + lane / 4u][lane % 4u], tg0_4);
        tg0_5 = fma(p3fg0, cscr[scr + 40u + lane / 4u][lane % 4u], tg0_5);
        tg0_6 = fma(p3fg0, cscr[scr + 48u + lane / 4u][lane % 4u], tg0_6);
        tg0_7 = fma(p3fg0, cscr[scr + 56u + lane / 4u][lane % 4u], tg0_7);
        subgroupBarrier();
        coopStore(acc_u0 + accx_u0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tu0_0 = fma(p3fu0, cscr[scr + 0u + lane / 4u][lane % 4u], tu0_0);
        tu0_1 = fma(p3fu0, cscr[scr + 8u + lane / 4u][lane % 4u], tu0_1);
        tu0_2 = fma(p3fu0, cscr[scr + 16u + lane / 4u][lane % 4u], tu0_2);
        tu0_3 = fma(p3fu0, cscr[scr + 24u + lane / 4u][lane % 4u], tu0_3);
        tu0_4 = fma(p3fu0, cscr[scr + 32u + lane / 4u][lane % 4u], tu0_4);
        tu0_5 = fma(p3fu0, cscr[scr + 40u + lane / 4u][lane % 4u], tu0_5);
        tu0_6 = fma(p3fu0, cscr[scr + 48u + lane / 4u][lane % 4u], tu0_6);
        tu0_7 = fma(p3fu0, cscr[scr + 56u + lane / 4u][lane % 4u], tu0_7);
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 8u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 8u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 8u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 8u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, czero);
            acc_u0 = coopMultiplyAdd(wu, x0, czero);
            accx_g0 = coopMultiplyAdd(wg, xl0, czero);
            accx_u0 = coopMultiplyAdd(wu, xl0, czero);
        }
        {
            let wg = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 12u], LDQ);
            let wu = coopLoadT<coop_mat16x16<f16, A>>(&slab[own + 16u * LDQ + 12u], LDQ);
            let x0 = coopLoad<coop_mat16x16<f16, B>>(&act[0u * LDQ + 12u], LDQ);
            let xl0 = coopLoad<coop_mat16x16<f16, B>>(&act_lo[0u * LDQ + 12u], LDQ);
            acc_g0 = coopMultiplyAdd(wg, x0, acc_g0);
            acc_u0 = coopMultiplyAdd(wu, x0, acc_u0);
            accx_g0 = coopMultiplyAdd(wg, xl0, accx_g0);
            accx_u0 = coopMultiplyAdd(wu, xl0, accx_u0);
        }
        // Unit 1 of the chunk: its sums times the unit's scales into the totals.
        subgroupBarrier();
        coopStore(acc_g0 + accx_g0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tg0_0 = fma(p3fg1, cscr[scr + 0u + lane / 4u][lane % 4u], tg0_0);
        tg0_1 = fma(p3fg1, cscr[scr + 8u + lane / 4u][lane % 4u], tg0_1);
        tg0_2 = fma(p3fg1, cscr[scr + 16u + lane / 4u][lane % 4u], tg0_2);
        tg0_3 = fma(p3fg1, cscr[scr + 24u + lane / 4u][lane % 4u], tg0_3);
        tg0_4 = fma(p3fg1, cscr[scr + 32u + lane / 4u][lane % 4u], tg0_4);
        tg0_5 = fma(p3fg1, cscr[scr + 40u + lane / 4u][lane % 4u], tg0_5);
        tg0_6 = fma(p3fg1, cscr[scr + 48u + lane / 4u][lane % 4u], tg0_6);
        tg0_7 = fma(p3fg1, cscr[scr + 56u + lane / 4u][lane % 4u], tg0_7);
        subgroupBarrier();
        coopStore(acc_u0 + accx_u0 * RLO, &cscr[scr], 4u);
        subgroupBarrier();
        tu0_0 = fma(p3fu1, cscr[scr + 0u + lane / 4u][lane % 4u], tu0_0);
        tu0_1 = fma(p3fu1, cscr[scr + 8u + lane / 4u][lane % 4u], tu0_1);
        tu0_2 = fma(p3fu1, cscr[scr + 16u + lane / 4u][lane % 4u], tu0_2);
        tu0_3 = fma(p3fu1, cscr[scr + 24u + lane / 4u][lane % 4u], tu0_3);
        tu0_4 = fma(p3fu1, cscr[scr + 32u + lane / 4u][lane % 4u], tu0_4);
        tu0_5 = fma(p3fu1, cscr[scr + 40u + lane / 4u][lane % 4u], tu0_5);
        tu0_6 = fma(p3fu1, cscr[scr + 48u + lane / 4u][lane % 4u], tu0_6);
        tu0_7 = fma(p3fu1, cscr[scr + 56u + lane / 4u][lane % 4u], tu0_7);

        p0w0 = n0w0;
        p0w1 = n0w1;
        p0w2 = n0w2;
        p0w3 = n0w3;
        p0a0_0 = n0a0_0;
        p0a0_1 = n0a0_1;
        p0fg0 = n0fg0;
        p0fu0 = n0fu0;
        p0fg1 = n0fg1;
        p0fu1 = n0fu1;

        p1w0 = n1w0;
        p1w1 = n1w1;
        p1w2 = n1w2;
        p1w3 = n1w3;
        p1a0_0 = n1a0_0;
        p1a0_1 = n1a0_1;
        p1fg0 = n1fg0;
        p1fu0 = n1fu0;
        p1fg1 = n1fg1;
        p1fu1 = n1fu1;

        p2w0 = n2w0;
        p2w1 = n2w1;
        p2w2 = n2w2;
        p2w3 = n2w3;
        p2a0_0 = n2a0_0;
        p2a0_1 = n2a0_1;
        p2fg0 = n2fg0;
        p2fu0 = n2fu0;
        p2fg1 = n2fg1;
        p2fu1 = n2fu1;

        p3w0 = n3w0;
        p3w1 = n3w1;
        p3w2 = n3w2;
        p3w3 = n3w3;
        p3a0_0 = n3a0_0;
        p3a0_1 = n3a0_1;
        p3fg0 = n3fg0;
        p3fu0 = n3fu0;
        p3fg1 = n3fg1;
        p3fu1 = n3fu1;

    }

    // Epilogue, one 16-row block at a time from the totals: element (n, m) of a block as the
    // scratch held it (float m * 16 + n). Lane e handles (n, m) = (e % 16, e / 16) for
    // e = lane + 32 i.
    {
        let g0 = tg0_0;
        let g1 = tg0_1;
        let g2 = tg0_2;
        let g3 = tg0_3;
        let g4 = tg0_4;
        let g5 = tg0_5;
        let g6 = tg0_6;
        let g7 = tg0_7;
        let n = n0 + lane % 16u;
        {
            let row = m0 + 0u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g0;
                var u = tu0_0;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 2u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g1;
                var u = tu0_1;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 4u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g2;
                var u = tu0_2;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 6u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g3;
                var u = tu0_3;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 8u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g4;
                var u = tu0_4;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 10u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g5;
                var u = tu0_5;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 12u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g6;
                var u = tu0_6;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
        {
            let row = m0 + 14u + lane / 16u;
            if (row < ROWS && n < N) {
                var g = g7;
                var u = tu0_7;
                g = g + f32(gate_bias[n]);
                y[row * N + n] = f32(silu_mul(g, u));
            }
        }
    }
}
