// snapshot gemvp-staged-f16-rows5-wave: variant gemvp_staged_nogb_ub, float16 K 4096 N 14336 rows 5 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier), tunables [("SHADER_CORES", 132)]
// ==== pass `main`: mlp-gemvp.wgsl.jinja, dispatch [1, 128, 1], workgroup size [896, 1, 1] ====
enable f16;
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f16>;
@group(0) @binding(3) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> up_scales: array<f16>;
@group(0) @binding(5) var<storage, read> up_bias: array<f16>;
@group(0) @binding(6) var<storage, read_write> y: array<f16>;
// ---- template ----
const K: u32 = 4096u;
const K8: u32 = 512u;              // 16-byte activation vectors (8 f16) per row
const N: u32 = 14336u;
const ROWS: u32 = 5u;
const NT: u32 = 896u;      // prepared layout: stripes of 16 weight rows
const KC: u32 = 64u;  // tiles of 64 codes per stripe
const CW: u32 = 112u;                  // invocations along the columns
const NC: u32 = 112u;              // columns per workgroup (1 per invocation)
const S: u32 = 8u;
const WG: u32 = 896u;

// The workgroup's RG rows (row r at r * K8), 8 halves per vector: A as it is.
// The same memory holds, after the walk,
// the slices' sums (`red` of the two-pass form, as f32 bits: element i in word i % 4 of vector
// i / 4), so the workgroup needs the larger of the two, not both.
var<workgroup> xs: array<vec4<u32>, 2560>;

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}

@compute @workgroup_size(896)
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

    // The group's rows of A into `xs` (rows past A's last copy the last row; they are not
    // written).
    let rb0 = min(wid.x * 5u + 0u, ROWS - 1u) * K8;
    let rb1 = min(wid.x * 5u + 1u, ROWS - 1u) * K8;
    let rb2 = min(wid.x * 5u + 2u, ROWS - 1u) * K8;
    let rb3 = min(wid.x * 5u + 3u, ROWS - 1u) * K8;
    let rb4 = min(wid.x * 5u + 4u, ROWS - 1u) * K8;
    for (var v = t; v < K8; v = v + WG) {
        xs[0u * K8 + v] = a[rb0 + v];
        xs[1u * K8 + v] = a[rb1 + v];
        xs[2u * K8 + v] = a[rb2 + v];
        xs[3u * K8 + v] = a[rb3 + v];
        xs[4u * K8 + v] = a[rb4 + v];
    }
    workgroupBarrier();
    let ra0 = 0u * K8;
    var fg0_0 = 0.0;
    var fu0_0 = 0.0;
    let ra1 = 1u * K8;
    var fg1_0 = 0.0;
    var fu1_0 = 0.0;
    let ra2 = 2u * K8;
    var fg2_0 = 0.0;
    var fu2_0 = 0.0;
    let ra3 = 3u * K8;
    var fg3_0 = 0.0;
    var fu3_0 = 0.0;
    let ra4 = 4u * K8;
    var fg4_0 = 0.0;
    var fu4_0 = 0.0;
    for (var c = slice; c < KC; c = c + S) {
        // This chunk's codes and scales of gate and up, for each column.
        let cg0_0 = gate_b[(st0 + c) * 32u + r0 * 2u + 0u];
        let cg0_1 = gate_b[(st0 + c) * 32u + r0 * 2u + 1u];
        let sg0_0 = f32(gate_scales[(st0 + c) * 32u + r0 * 2u + 0u]);
        let sg0_1 = f32(gate_scales[(st0 + c) * 32u + r0 * 2u + 1u]);
        let cu0_0 = up_b[(st0 + c) * 32u + r0 * 2u + 0u];
        let cu0_1 = up_b[(st0 + c) * 32u + r0 * 2u + 1u];
        let su0_0 = f32(up_scales[(st0 + c) * 32u + r0 * 2u + 0u]);
        let su0_1 = f32(up_scales[(st0 + c) * 32u + r0 * 2u + 1u]);
        {
            // Codes 0 .. 31 of the chunk (one scale): f16 sums per row and column.
            var ag0_0 = vec2<f16>(0.0h);
            var au0_0 = vec2<f16>(0.0h);
            var ag1_0 = vec2<f16>(0.0h);
            var au1_0 = vec2<f16>(0.0h);
            var ag2_0 = vec2<f16>(0.0h);
            var au2_0 = vec2<f16>(0.0h);
            var ag3_0 = vec2<f16>(0.0h);
            var au3_0 = vec2<f16>(0.0h);
            var ag4_0 = vec2<f16>(0.0h);
            var au4_0 = vec2<f16>(0.0h);
            {
                // Codes 0 .. 7: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[0] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_0[0] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_0[0] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[0] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[0] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_0[0] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_0[0] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[0] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
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
                {
                    let x = xs[ra1 + c * 8u + 0u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let x = xs[ra2 + c * 8u + 0u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let x = xs[ra3 + c * 8u + 0u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let x = xs[ra4 + c * 8u + 0u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
            }
            {
                // Codes 8 .. 15: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[1] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_0[1] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_0[1] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[1] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[1] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_0[1] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_0[1] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[1] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
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
                {
                    let x = xs[ra1 + c * 8u + 1u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let x = xs[ra2 + c * 8u + 1u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let x = xs[ra3 + c * 8u + 1u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let x = xs[ra4 + c * 8u + 1u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
            }
            {
                // Codes 16 .. 23: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[2] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_0[2] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_0[2] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[2] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[2] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_0[2] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_0[2] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[2] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
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
                {
                    let x = xs[ra1 + c * 8u + 2u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let x = xs[ra2 + c * 8u + 2u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let x = xs[ra3 + c * 8u + 2u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let x = xs[ra4 + c * 8u + 2u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
            }
            {
                // Codes 24 .. 31: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_0[3] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_0[3] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_0[3] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_0[3] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_0[3] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_0[3] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_0[3] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_0[3] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
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
                {
                    let x = xs[ra1 + c * 8u + 3u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let x = xs[ra2 + c * 8u + 3u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let x = xs[ra3 + c * 8u + 3u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let x = xs[ra4 + c * 8u + 3u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
            }
            fg0_0 = fma(sg0_0, f32(ag0_0.x) + f32(ag0_0.y), fg0_0);
            fu0_0 = fma(su0_0, f32(au0_0.x) + f32(au0_0.y), fu0_0);
            fg1_0 = fma(sg0_0, f32(ag1_0.x) + f32(ag1_0.y), fg1_0);
            fu1_0 = fma(su0_0, f32(au1_0.x) + f32(au1_0.y), fu1_0);
            fg2_0 = fma(sg0_0, f32(ag2_0.x) + f32(ag2_0.y), fg2_0);
            fu2_0 = fma(su0_0, f32(au2_0.x) + f32(au2_0.y), fu2_0);
            fg3_0 = fma(sg0_0, f32(ag3_0.x) + f32(ag3_0.y), fg3_0);
            fu3_0 = fma(su0_0, f32(au3_0.x) + f32(au3_0.y), fu3_0);
            fg4_0 = fma(sg0_0, f32(ag4_0.x) + f32(ag4_0.y), fg4_0);
            fu4_0 = fma(su0_0, f32(au4_0.x) + f32(au4_0.y), fu4_0);
        }
        {
            // Codes 32 .. 63 of the chunk (one scale): f16 sums per row and column.
            var ag0_0 = vec2<f16>(0.0h);
            var au0_0 = vec2<f16>(0.0h);
            var ag1_0 = vec2<f16>(0.0h);
            var au1_0 = vec2<f16>(0.0h);
            var ag2_0 = vec2<f16>(0.0h);
            var au2_0 = vec2<f16>(0.0h);
            var ag3_0 = vec2<f16>(0.0h);
            var au3_0 = vec2<f16>(0.0h);
            var ag4_0 = vec2<f16>(0.0h);
            var au4_0 = vec2<f16>(0.0h);
            {
                // Codes 32 .. 39: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_1[0] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_1[0] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_1[0] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_1[0] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_1[0] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_1[0] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_1[0] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_1[0] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
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
                {
                    let x = xs[ra1 + c * 8u + 4u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let x = xs[ra2 + c * 8u + 4u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let x = xs[ra3 + c * 8u + 4u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let x = xs[ra4 + c * 8u + 4u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
            }
            {
                // Codes 40 .. 47: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_1[1] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_1[1] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_1[1] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_1[1] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_1[1] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_1[1] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_1[1] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_1[1] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
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
                {
                    let x = xs[ra1 + c * 8u + 5u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let x = xs[ra2 + c * 8u + 5u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let x = xs[ra3 + c * 8u + 5u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let x = xs[ra4 + c * 8u + 5u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
            }
            {
                // Codes 48 .. 55: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_1[2] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_1[2] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_1[2] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_1[2] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_1[2] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_1[2] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_1[2] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_1[2] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
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
                {
                    let x = xs[ra1 + c * 8u + 6u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let x = xs[ra2 + c * 8u + 6u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let x = xs[ra3 + c * 8u + 6u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let x = xs[ra4 + c * 8u + 6u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
            }
            {
                // Codes 56 .. 63: each pair decoded once, for every row.
                let dg0_0 = fma(vec2<f16>(unpack2x16float((cg0_1[3] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_1 = fma(vec2<f16>(unpack2x16float((cg0_1[3] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let dg0_2 = fma(vec2<f16>(unpack2x16float(((cg0_1[3] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let dg0_3 = fma(vec2<f16>(unpack2x16float(((cg0_1[3] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_0 = fma(vec2<f16>(unpack2x16float((cu0_1[3] & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_1 = fma(vec2<f16>(unpack2x16float((cu0_1[3] & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
                let du0_2 = fma(vec2<f16>(unpack2x16float(((cu0_1[3] >> 8u) & 983055u) | magic)), vec2<f16>(1.0h), vec2<f16>(-1032.0h));
                let du0_3 = fma(vec2<f16>(unpack2x16float(((cu0_1[3] >> 8u) & 15728880u) | magic)), vec2<f16>(0.0625h), vec2<f16>(-72.0h));
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
                {
                    let x = xs[ra1 + c * 8u + 7u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let x = xs[ra2 + c * 8u + 7u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let x = xs[ra3 + c * 8u + 7u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let x = xs[ra4 + c * 8u + 7u];
                    let x0 = vec2<f16>(unpack2x16float(x[0]));
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = vec2<f16>(unpack2x16float(x[1]));
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = vec2<f16>(unpack2x16float(x[2]));
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = vec2<f16>(unpack2x16float(x[3]));
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
            }
            fg0_0 = fma(sg0_1, f32(ag0_0.x) + f32(ag0_0.y), fg0_0);
            fu0_0 = fma(su0_1, f32(au0_0.x) + f32(au0_0.y), fu0_0);
            fg1_0 = fma(sg0_1, f32(ag1_0.x) + f32(ag1_0.y), fg1_0);
            fu1_0 = fma(su0_1, f32(au1_0.x) + f32(au1_0.y), fu1_0);
            fg2_0 = fma(sg0_1, f32(ag2_0.x) + f32(ag2_0.y), fg2_0);
            fu2_0 = fma(su0_1, f32(au2_0.x) + f32(au2_0.y), fu2_0);
            fg3_0 = fma(sg0_1, f32(ag3_0.x) + f32(ag3_0.y), fg3_0);
            fu3_0 = fma(su0_1, f32(au3_0.x) + f32(au3_0.y), fu3_0);
            fg4_0 = fma(sg0_1, f32(ag4_0.x) + f32(ag4_0.y), fg4_0);
            fu4_0 = fma(su0_1, f32(au4_0.x) + f32(au4_0.y), fu4_0);
        }
    }

    // (`red` shares `xs`: every invocation is done with the rows first.)
    workgroupBarrier();
    // Sum the slices: red[((slice * RG + r) * 2 + m) * NC + column of the workgroup].
    xs[((slice * 10u + 0u) * NC + col + 0u) / 4u][((slice * 10u + 0u) * NC + col + 0u) % 4u] = bitcast<u32>(fg0_0);
    xs[((slice * 10u + 1u) * NC + col + 0u) / 4u][((slice * 10u + 1u) * NC + col + 0u) % 4u] = bitcast<u32>(fu0_0);
    xs[((slice * 10u + 2u) * NC + col + 0u) / 4u][((slice * 10u + 2u) * NC + col + 0u) % 4u] = bitcast<u32>(fg1_0);
    xs[((slice * 10u + 3u) * NC + col + 0u) / 4u][((slice * 10u + 3u) * NC + col + 0u) % 4u] = bitcast<u32>(fu1_0);
    xs[((slice * 10u + 4u) * NC + col + 0u) / 4u][((slice * 10u + 4u) * NC + col + 0u) % 4u] = bitcast<u32>(fg2_0);
    xs[((slice * 10u + 5u) * NC + col + 0u) / 4u][((slice * 10u + 5u) * NC + col + 0u) % 4u] = bitcast<u32>(fu2_0);
    xs[((slice * 10u + 6u) * NC + col + 0u) / 4u][((slice * 10u + 6u) * NC + col + 0u) % 4u] = bitcast<u32>(fg3_0);
    xs[((slice * 10u + 7u) * NC + col + 0u) / 4u][((slice * 10u + 7u) * NC + col + 0u) % 4u] = bitcast<u32>(fu3_0);
    xs[((slice * 10u + 8u) * NC + col + 0u) / 4u][((slice * 10u + 8u) * NC + col + 0u) % 4u] = bitcast<u32>(fg4_0);
    xs[((slice * 10u + 9u) * NC + col + 0u) / 4u][((slice * 10u + 9u) * NC + col + 0u) % 4u] = bitcast<u32>(fu4_0);
    workgroupBarrier();
    for (var o = t; o < 5u * NC; o = o + WG) {
        let r = o / NC;
        let oc = o % NC;
        var gs = 0.0;
        var us = 0.0;
        for (var s = 0u; s < S; s = s + 1u) {
            gs = gs + bitcast<f32>(xs[((s * 10u + 2u * r) * NC + oc) / 4u][((s * 10u + 2u * r) * NC + oc) % 4u]);
            us = us + bitcast<f32>(xs[((s * 10u + 2u * r + 1u) * NC + oc) / 4u][((s * 10u + 2u * r + 1u) * NC + oc) % 4u]);
        }
        let on = wid.y * NC + oc;
        let row = wid.x * 5u + r;
        if (on < N && row < ROWS) {
            us = us + f32(up_bias[on]);
            y[row * N + on] = f16(silu_mul(gs, us));
        }
    }
}