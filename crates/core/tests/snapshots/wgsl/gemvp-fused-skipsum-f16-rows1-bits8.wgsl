// snapshot gemvp-fused-skipsum-f16-rows1-bits8: variant gemvp_fused_skipsum_gb_ub, float16 K 2048 N 512 rows 1 bits 8 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `main`: mlp-gemvp.wgsl.jinja, dispatch [1, 8, 1], workgroup size [512, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> skip: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> norm_scale: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> residual: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(6) var<storage, read> gate_bias: array<f16>;
@group(0) @binding(7) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read> up_scales: array<f16>;
@group(0) @binding(9) var<storage, read> up_bias: array<f16>;
@group(0) @binding(10) var<storage, read_write> y: array<f16>;
// ---- template ----
const K: u32 = 2048u;
const K8: u32 = 256u;              // 16-byte activation vectors (8 f16) per row
const N: u32 = 512u;
const ROWS: u32 = 1u;
const NT: u32 = 32u;      // prepared layout: stripes of 16 weight rows
const KC: u32 = 32u;  // tiles of 64 codes per stripe
const CW: u32 = 64u;                  // invocations along the columns
const NC: u32 = 64u;              // columns per workgroup (1 per invocation)
const S: u32 = 8u;
const WG: u32 = 512u;

// The workgroup's RG rows (row r at r * K8), 8 halves per vector: A_n, as the norm pass would write them.
// The same memory holds, before the rows, the sum of squares' partials and, after the walk,
// the slices' sums (`red` of the two-pass form, as f32 bits: element i in word i % 4 of vector
// i / 4), so the workgroup needs the larger of the two, not both.
var<workgroup> xs: array<vec4<u32>, 256>;
const EPS: f32 = f32(0.00001);
const NG: u32 = 16u;                  // second level of the sum of squares' reduction
var<workgroup> xss: array<f32, 16>;
var<workgroup> xst: array<f32, 1>;    // the rows' sums of squares

// Eight values in f32: halves 0-3 (lo) and 4-7 (hi) of a 16-byte vector.
struct S8 {
    lo: vec4<f32>,
    hi: vec4<f32>,
}

// The 8 halves of a 16-byte vector, in f32.
fn unpack8(v: vec4<u32>) -> S8 {
    return S8(vec4<f32>(unpack2x16float(v.x), unpack2x16float(v.y)), vec4<f32>(unpack2x16float(v.z), unpack2x16float(v.w)));
}

// S = A (+ skip) of one 16-byte vector (8 values), in f32.
fn load_s(i: u32) -> S8 {
    var s = unpack8(a[i]);
    let sk = unpack8(skip[i]);
    s.lo = s.lo + sk.lo;
    s.hi = s.hi + sk.hi;
    return s;
}

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}

@compute @workgroup_size(512)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let col = t % CW;
    let slice = t / CW;
    // 0x64006400 (1024 twice in half precision: `code_pair`'s exponent bits) as a value the
    // driver's compiler cannot fold (no workgroup id is 2^32 - 1, which it does not assume):
    // each code pair's mask and or then take one LOP3 (`v & imm | reg`) instead of two
    // (notes/PERF.md row 163).
    let magic = select(0x64006400u, 0u, wid.x == 0xFFFFFFFFu);
    // Column 0 of this invocation: 0 * CW further on.
    let n0 = wid.y * NC + col + 0u;
    let st0 = min(n0 / 16u, NT - 1u) * KC;
    let r0 = n0 % 16u;

    // The inline RMSNorm of the group's rows (rows past A's last normalise the last row; they
    // are not written): sums of squares, ...
    let rb0 = min(wid.x * 1u + 0u, ROWS - 1u) * K8;
    var ss0 = 0.0;
    // Each thread's 1 vectors of S per row, held in registers for the normalisation, and
    // of norm_scale, loaded with them (not after the reduction: its latency then overlaps).
    let v0 = t + 0u;
    var s0_0 = S8(vec4<f32>(0.0), vec4<f32>(0.0));
    var gv0 = vec4<u32>(0u);
    if (v0 < K8) {
        gv0 = norm_scale[v0];
        s0_0 = load_s(rb0 + v0);
    }
    ss0 = ss0 + dot(s0_0.lo, s0_0.lo) + dot(s0_0.hi, s0_0.hi);
    if (v0 < K8) {
            if (wid.y == 0u && wid.x * 1u + 0u < ROWS) {
                residual[rb0 + v0] = vec4<u32>(pack2x16float(s0_0.lo.xy), pack2x16float(s0_0.lo.zw), pack2x16float(s0_0.hi.xy), pack2x16float(s0_0.hi.zw));
            }

    }
    // ... reduced over the workgroup in three levels (the WG partials; NG sums of every NG-th;
    // one thread per row adds its NG, so every thread then reads one total per row), ...
    xs[(0u * WG + t) / 4u][(0u * WG + t) % 4u] = bitcast<u32>(ss0);
    workgroupBarrier();
    if (t < 1u * NG) {
        let r = t / NG;
        var p = 0.0;
        for (var i = t % NG; i < WG; i = i + NG) {
            p = p + bitcast<f32>(xs[(r * WG + i) / 4u][(r * WG + i) % 4u]);
        }
        xss[t] = p;
    }
    workgroupBarrier();
    if (t < 1u) {
        var q = 0.0;
        for (var i = 0u; i < NG; i = i + 1u) {
            q = q + xss[t * NG + i];
        }
        xst[t] = q;
    }
    workgroupBarrier();
    // ... then S * (1/rms) * norm_scale, rounded to f16, into `xs`.
    let inv0 = inverseSqrt(xst[0u] / f32(K) + EPS);
    if (v0 < K8) {
        let g = unpack8(gv0);
        {
            let lo = s0_0.lo * inv0 * g.lo;
            let hi = s0_0.hi * inv0 * g.hi;
            xs[0u * K8 + v0] = vec4<u32>(pack2x16float(lo.xy), pack2x16float(lo.zw), pack2x16float(hi.xy), pack2x16float(hi.zw));
        }

    }
    workgroupBarrier();
    let ra0 = 0u * K8;
    var fg0_0 = 0.0;
    var fu0_0 = 0.0;
    for (var c = slice; c < KC; c = c + S) {
        // This chunk's codes and scales of gate and up, for each column.
        let cg0_0 = gate_b[(st0 + c) * 64u + r0 * 4u + 0u];
        let cg0_1 = gate_b[(st0 + c) * 64u + r0 * 4u + 1u];
        let cg0_2 = gate_b[(st0 + c) * 64u + r0 * 4u + 2u];
        let cg0_3 = gate_b[(st0 + c) * 64u + r0 * 4u + 3u];
        let sg0_0 = f32(gate_scales[(st0 + c) * 32u + r0 * 2u + 0u]);
        let sg0_1 = f32(gate_scales[(st0 + c) * 32u + r0 * 2u + 1u]);
        let cu0_0 = up_b[(st0 + c) * 64u + r0 * 4u + 0u];
        let cu0_1 = up_b[(st0 + c) * 64u + r0 * 4u + 1u];
        let cu0_2 = up_b[(st0 + c) * 64u + r0 * 4u + 2u];
        let cu0_3 = up_b[(st0 + c) * 64u + r0 * 4u + 3u];
        let su0_0 = f32(up_scales[(st0 + c) * 32u + r0 * 2u + 0u]);
        let su0_1 = f32(up_scales[(st0 + c) * 32u + r0 * 2u + 1u]);
        {
            // Codes 0 .. 31 of the chunk (one scale): f16 sums per row and column.
            var ag0_0 = vec2<f16>(0.0h);
            var au0_0 = vec2<f16>(0.0h);
            {
                // Codes 0 .. 7: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[0] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float(((cg0_0[0] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float((cg0_0[1] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[1] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[0] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float(((cu0_0[0] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float((cu0_0[1] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[1] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                {
                    let x = xs[ra0 + c * 8u + 0u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
            }
            {
                // Codes 8 .. 15: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[2] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float(((cg0_0[2] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float((cg0_0[3] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[3] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[2] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float(((cu0_0[2] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float((cu0_0[3] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[3] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                {
                    let x = xs[ra0 + c * 8u + 1u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
            }
            {
                // Codes 16 .. 23: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_1[0] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float(((cg0_1[0] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float((cg0_1[1] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_1[1] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_1[0] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float(((cu0_1[0] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float((cu0_1[1] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_1[1] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                {
                    let x = xs[ra0 + c * 8u + 2u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
            }
            {
                // Codes 24 .. 31: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_1[2] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float(((cg0_1[2] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float((cg0_1[3] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_1[3] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_1[2] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float(((cu0_1[2] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float((cu0_1[3] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_1[3] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                {
                    let x = xs[ra0 + c * 8u + 3u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
            }
            fg0_0 = fma(sg0_0, f32(ag0_0.x) + f32(ag0_0.y), fg0_0);
            fu0_0 = fma(su0_0, f32(au0_0.x) + f32(au0_0.y), fu0_0);
        }
        {
            // Codes 32 .. 63 of the chunk (one scale): f16 sums per row and column.
            var ag0_0 = vec2<f16>(0.0h);
            var au0_0 = vec2<f16>(0.0h);
            {
                // Codes 32 .. 39: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_2[0] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float(((cg0_2[0] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float((cg0_2[1] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_2[1] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_2[0] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float(((cu0_2[0] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float((cu0_2[1] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_2[1] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                {
                    let x = xs[ra0 + c * 8u + 4u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
            }
            {
                // Codes 40 .. 47: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_2[2] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float(((cg0_2[2] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float((cg0_2[3] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_2[3] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_2[2] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float(((cu0_2[2] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float((cu0_2[3] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_2[3] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                {
                    let x = xs[ra0 + c * 8u + 5u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
            }
            {
                // Codes 48 .. 55: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_3[0] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float(((cg0_3[0] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float((cg0_3[1] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_3[1] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_3[0] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float(((cu0_3[0] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float((cu0_3[1] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_3[1] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                {
                    let x = xs[ra0 + c * 8u + 6u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
            }
            {
                // Codes 56 .. 63: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_3[2] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float(((cg0_3[2] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float((cg0_3[3] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_3[3] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_3[2] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float(((cu0_3[2] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float((cu0_3[3] & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_3[3] >> 8u) & 16711935u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1152.0h));
                {
                    let x = xs[ra0 + c * 8u + 7u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
            }
            fg0_0 = fma(sg0_1, f32(ag0_0.x) + f32(ag0_0.y), fg0_0);
            fu0_0 = fma(su0_1, f32(au0_0.x) + f32(au0_0.y), fu0_0);
        }
    }

    // (`red` shares `xs`: every invocation is done with the rows first.)
    workgroupBarrier();
    // Sum the slices: red[((slice * RG + r) * 2 + m) * NC + column of the workgroup].
    xs[((slice * 2u + 0u) * NC + col + 0u) / 4u][((slice * 2u + 0u) * NC + col + 0u) % 4u] = bitcast<u32>(fg0_0);
    xs[((slice * 2u + 1u) * NC + col + 0u) / 4u][((slice * 2u + 1u) * NC + col + 0u) % 4u] = bitcast<u32>(fu0_0);
    workgroupBarrier();
    for (var o = t; o < 1u * NC; o = o + WG) {
        let r = o / NC;
        let oc = o % NC;
        var gs = 0.0;
        var us = 0.0;
        for (var s = 0u; s < S; s = s + 1u) {
            gs = gs + bitcast<f32>(xs[((s * 2u + 2u * r) * NC + oc) / 4u][((s * 2u + 2u * r) * NC + oc) % 4u]);
            us = us + bitcast<f32>(xs[((s * 2u + 2u * r + 1u) * NC + oc) / 4u][((s * 2u + 2u * r + 1u) * NC + oc) % 4u]);
        }
        let on = wid.y * NC + oc;
        let row = wid.x * 1u + r;
        if (on < N && row < ROWS) {
            gs = gs + f32(gate_bias[on]);
            us = us + f32(up_bias[on]);
            y[row * N + on] = f16(silu_mul(gs, us));
        }
    }
}