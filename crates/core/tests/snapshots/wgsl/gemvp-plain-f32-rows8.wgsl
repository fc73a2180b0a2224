// snapshot gemvp-plain-f32-rows8: variant gemvp_f32_plain_nogb_noub, float32 K 4096 N 14336 rows 8 bits 4 block 32, discrete-gpu (coop-f16-16x16x16-f32 shader-f16 subgroup-size-32 subgroups timestamp-query wgpu-subgroup-barrier)
// ==== pass `main`: mlp-gemvp.wgsl.jinja, dispatch [1, 896, 1], workgroup size [256, 1, 1] ====
// ---- bindings generated from the manifest ----
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gate_b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gate_scales: array<f32>;
@group(0) @binding(3) var<storage, read> up_b: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> up_scales: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;
// ---- template ----
const K: u32 = 4096u;
const K4: u32 = 1024u;              // 16-byte activation vectors (4 f32) per row
const N: u32 = 14336u;
const ROWS: u32 = 8u;
const NT: u32 = 896u;      // prepared layout: stripes of 16 weight rows
const KC: u32 = 64u;  // tiles of 64 codes per stripe
const CW: u32 = 16u;                  // invocations along the columns
const NC: u32 = 16u;              // columns per workgroup (1 per invocation)
const S: u32 = 16u;
const WG: u32 = 256u;

// Per slice, row and matrix (gate, up): the workgroup's NC columns' f32 sums.
var<workgroup> red: array<f32, 4096>;

fn silu_mul(g: f32, u: f32) -> f32 {
    return g / (1.0 + exp(-g)) * u;
}

@compute @workgroup_size(256)
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
    let ra0 = min(wid.x * 8u + 0u, ROWS - 1u) * K4;
    var fg0_0 = 0.0;
    var fu0_0 = 0.0;
    let ra1 = min(wid.x * 8u + 1u, ROWS - 1u) * K4;
    var fg1_0 = 0.0;
    var fu1_0 = 0.0;
    let ra2 = min(wid.x * 8u + 2u, ROWS - 1u) * K4;
    var fg2_0 = 0.0;
    var fu2_0 = 0.0;
    let ra3 = min(wid.x * 8u + 3u, ROWS - 1u) * K4;
    var fg3_0 = 0.0;
    var fu3_0 = 0.0;
    let ra4 = min(wid.x * 8u + 4u, ROWS - 1u) * K4;
    var fg4_0 = 0.0;
    var fu4_0 = 0.0;
    let ra5 = min(wid.x * 8u + 5u, ROWS - 1u) * K4;
    var fg5_0 = 0.0;
    var fu5_0 = 0.0;
    let ra6 = min(wid.x * 8u + 6u, ROWS - 1u) * K4;
    var fg6_0 = 0.0;
    var fu6_0 = 0.0;
    let ra7 = min(wid.x * 8u + 7u, ROWS - 1u) * K4;
    var fg7_0 = 0.0;
    var fu7_0 = 0.0;
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
            // Codes 0 .. 31 of the chunk (one scale): f32 sums per row and column.
            var ag0_0 = vec2<f32>(0.0);
            var au0_0 = vec2<f32>(0.0);
            var ag1_0 = vec2<f32>(0.0);
            var au1_0 = vec2<f32>(0.0);
            var ag2_0 = vec2<f32>(0.0);
            var au2_0 = vec2<f32>(0.0);
            var ag3_0 = vec2<f32>(0.0);
            var au3_0 = vec2<f32>(0.0);
            var ag4_0 = vec2<f32>(0.0);
            var au4_0 = vec2<f32>(0.0);
            var ag5_0 = vec2<f32>(0.0);
            var au5_0 = vec2<f32>(0.0);
            var ag6_0 = vec2<f32>(0.0);
            var au6_0 = vec2<f32>(0.0);
            var ag7_0 = vec2<f32>(0.0);
            var au7_0 = vec2<f32>(0.0);
            {
                // Codes 0 .. 7: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_0[0] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_1 = fma(unpack2x16float((cg0_0[0] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let dg0_2 = fma(unpack2x16float(((cg0_0[0] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_3 = fma(unpack2x16float(((cg0_0[0] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_0 = fma(unpack2x16float((cu0_0[0] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_1 = fma(unpack2x16float((cu0_0[0] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_2 = fma(unpack2x16float(((cu0_0[0] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_3 = fma(unpack2x16float(((cu0_0[0] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                {
                    let xl = a[ra0 + c * 16u + 0u];
                    let xh = a[ra0 + c * 16u + 1u];
                    let x0 = xl.xy;
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = xl.zw;
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = xh.xy;
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = xh.zw;
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    let xl = a[ra1 + c * 16u + 0u];
                    let xh = a[ra1 + c * 16u + 1u];
                    let x0 = xl.xy;
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = xl.zw;
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = xh.xy;
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = xh.zw;
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let xl = a[ra2 + c * 16u + 0u];
                    let xh = a[ra2 + c * 16u + 1u];
                    let x0 = xl.xy;
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = xl.zw;
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = xh.xy;
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = xh.zw;
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let xl = a[ra3 + c * 16u + 0u];
                    let xh = a[ra3 + c * 16u + 1u];
                    let x0 = xl.xy;
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = xl.zw;
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = xh.xy;
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = xh.zw;
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let xl = a[ra4 + c * 16u + 0u];
                    let xh = a[ra4 + c * 16u + 1u];
                    let x0 = xl.xy;
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = xl.zw;
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = xh.xy;
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = xh.zw;
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
                {
                    let xl = a[ra5 + c * 16u + 0u];
                    let xh = a[ra5 + c * 16u + 1u];
                    let x0 = xl.xy;
                    ag5_0 = fma(dg0_0, x0, ag5_0);
                    au5_0 = fma(du0_0, x0, au5_0);
                    let x1 = xl.zw;
                    ag5_0 = fma(dg0_1, x1, ag5_0);
                    au5_0 = fma(du0_1, x1, au5_0);
                    let x2 = xh.xy;
                    ag5_0 = fma(dg0_2, x2, ag5_0);
                    au5_0 = fma(du0_2, x2, au5_0);
                    let x3 = xh.zw;
                    ag5_0 = fma(dg0_3, x3, ag5_0);
                    au5_0 = fma(du0_3, x3, au5_0);
                }
                {
                    let xl = a[ra6 + c * 16u + 0u];
                    let xh = a[ra6 + c * 16u + 1u];
                    let x0 = xl.xy;
                    ag6_0 = fma(dg0_0, x0, ag6_0);
                    au6_0 = fma(du0_0, x0, au6_0);
                    let x1 = xl.zw;
                    ag6_0 = fma(dg0_1, x1, ag6_0);
                    au6_0 = fma(du0_1, x1, au6_0);
                    let x2 = xh.xy;
                    ag6_0 = fma(dg0_2, x2, ag6_0);
                    au6_0 = fma(du0_2, x2, au6_0);
                    let x3 = xh.zw;
                    ag6_0 = fma(dg0_3, x3, ag6_0);
                    au6_0 = fma(du0_3, x3, au6_0);
                }
                {
                    let xl = a[ra7 + c * 16u + 0u];
                    let xh = a[ra7 + c * 16u + 1u];
                    let x0 = xl.xy;
                    ag7_0 = fma(dg0_0, x0, ag7_0);
                    au7_0 = fma(du0_0, x0, au7_0);
                    let x1 = xl.zw;
                    ag7_0 = fma(dg0_1, x1, ag7_0);
                    au7_0 = fma(du0_1, x1, au7_0);
                    let x2 = xh.xy;
                    ag7_0 = fma(dg0_2, x2, ag7_0);
                    au7_0 = fma(du0_2, x2, au7_0);
                    let x3 = xh.zw;
                    ag7_0 = fma(dg0_3, x3, ag7_0);
                    au7_0 = fma(du0_3, x3, au7_0);
                }
            }
            {
                // Codes 8 .. 15: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_0[1] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_1 = fma(unpack2x16float((cg0_0[1] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let dg0_2 = fma(unpack2x16float(((cg0_0[1] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_3 = fma(unpack2x16float(((cg0_0[1] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_0 = fma(unpack2x16float((cu0_0[1] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_1 = fma(unpack2x16float((cu0_0[1] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_2 = fma(unpack2x16float(((cu0_0[1] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_3 = fma(unpack2x16float(((cu0_0[1] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                {
                    let xl = a[ra0 + c * 16u + 2u];
                    let xh = a[ra0 + c * 16u + 3u];
                    let x0 = xl.xy;
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = xl.zw;
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = xh.xy;
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = xh.zw;
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    let xl = a[ra1 + c * 16u + 2u];
                    let xh = a[ra1 + c * 16u + 3u];
                    let x0 = xl.xy;
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = xl.zw;
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = xh.xy;
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = xh.zw;
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let xl = a[ra2 + c * 16u + 2u];
                    let xh = a[ra2 + c * 16u + 3u];
                    let x0 = xl.xy;
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = xl.zw;
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = xh.xy;
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = xh.zw;
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let xl = a[ra3 + c * 16u + 2u];
                    let xh = a[ra3 + c * 16u + 3u];
                    let x0 = xl.xy;
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = xl.zw;
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = xh.xy;
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = xh.zw;
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let xl = a[ra4 + c * 16u + 2u];
                    let xh = a[ra4 + c * 16u + 3u];
                    let x0 = xl.xy;
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = xl.zw;
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = xh.xy;
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = xh.zw;
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
                {
                    let xl = a[ra5 + c * 16u + 2u];
                    let xh = a[ra5 + c * 16u + 3u];
                    let x0 = xl.xy;
                    ag5_0 = fma(dg0_0, x0, ag5_0);
                    au5_0 = fma(du0_0, x0, au5_0);
                    let x1 = xl.zw;
                    ag5_0 = fma(dg0_1, x1, ag5_0);
                    au5_0 = fma(du0_1, x1, au5_0);
                    let x2 = xh.xy;
                    ag5_0 = fma(dg0_2, x2, ag5_0);
                    au5_0 = fma(du0_2, x2, au5_0);
                    let x3 = xh.zw;
                    ag5_0 = fma(dg0_3, x3, ag5_0);
                    au5_0 = fma(du0_3, x3, au5_0);
                }
                {
                    let xl = a[ra6 + c * 16u + 2u];
                    let xh = a[ra6 + c * 16u + 3u];
                    let x0 = xl.xy;
                    ag6_0 = fma(dg0_0, x0, ag6_0);
                    au6_0 = fma(du0_0, x0, au6_0);
                    let x1 = xl.zw;
                    ag6_0 = fma(dg0_1, x1, ag6_0);
                    au6_0 = fma(du0_1, x1, au6_0);
                    let x2 = xh.xy;
                    ag6_0 = fma(dg0_2, x2, ag6_0);
                    au6_0 = fma(du0_2, x2, au6_0);
                    let x3 = xh.zw;
                    ag6_0 = fma(dg0_3, x3, ag6_0);
                    au6_0 = fma(du0_3, x3, au6_0);
                }
                {
                    let xl = a[ra7 + c * 16u + 2u];
                    let xh = a[ra7 + c * 16u + 3u];
                    let x0 = xl.xy;
                    ag7_0 = fma(dg0_0, x0, ag7_0);
                    au7_0 = fma(du0_0, x0, au7_0);
                    let x1 = xl.zw;
                    ag7_0 = fma(dg0_1, x1, ag7_0);
                    au7_0 = fma(du0_1, x1, au7_0);
                    let x2 = xh.xy;
                    ag7_0 = fma(dg0_2, x2, ag7_0);
                    au7_0 = fma(du0_2, x2, au7_0);
                    let x3 = xh.zw;
                    ag7_0 = fma(dg0_3, x3, ag7_0);
                    au7_0 = fma(du0_3, x3, au7_0);
                }
            }
            {
                // Codes 16 .. 23: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_0[2] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_1 = fma(unpack2x16float((cg0_0[2] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let dg0_2 = fma(unpack2x16float(((cg0_0[2] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_3 = fma(unpack2x16float(((cg0_0[2] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_0 = fma(unpack2x16float((cu0_0[2] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_1 = fma(unpack2x16float((cu0_0[2] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_2 = fma(unpack2x16float(((cu0_0[2] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_3 = fma(unpack2x16float(((cu0_0[2] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                {
                    let xl = a[ra0 + c * 16u + 4u];
                    let xh = a[ra0 + c * 16u + 5u];
                    let x0 = xl.xy;
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = xl.zw;
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = xh.xy;
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = xh.zw;
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    let xl = a[ra1 + c * 16u + 4u];
                    let xh = a[ra1 + c * 16u + 5u];
                    let x0 = xl.xy;
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = xl.zw;
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = xh.xy;
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = xh.zw;
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let xl = a[ra2 + c * 16u + 4u];
                    let xh = a[ra2 + c * 16u + 5u];
                    let x0 = xl.xy;
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = xl.zw;
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = xh.xy;
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = xh.zw;
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let xl = a[ra3 + c * 16u + 4u];
                    let xh = a[ra3 + c * 16u + 5u];
                    let x0 = xl.xy;
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = xl.zw;
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = xh.xy;
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = xh.zw;
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let xl = a[ra4 + c * 16u + 4u];
                    let xh = a[ra4 + c * 16u + 5u];
                    let x0 = xl.xy;
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = xl.zw;
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = xh.xy;
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = xh.zw;
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
                {
                    let xl = a[ra5 + c * 16u + 4u];
                    let xh = a[ra5 + c * 16u + 5u];
                    let x0 = xl.xy;
                    ag5_0 = fma(dg0_0, x0, ag5_0);
                    au5_0 = fma(du0_0, x0, au5_0);
                    let x1 = xl.zw;
                    ag5_0 = fma(dg0_1, x1, ag5_0);
                    au5_0 = fma(du0_1, x1, au5_0);
                    let x2 = xh.xy;
                    ag5_0 = fma(dg0_2, x2, ag5_0);
                    au5_0 = fma(du0_2, x2, au5_0);
                    let x3 = xh.zw;
                    ag5_0 = fma(dg0_3, x3, ag5_0);
                    au5_0 = fma(du0_3, x3, au5_0);
                }
                {
                    let xl = a[ra6 + c * 16u + 4u];
                    let xh = a[ra6 + c * 16u + 5u];
                    let x0 = xl.xy;
                    ag6_0 = fma(dg0_0, x0, ag6_0);
                    au6_0 = fma(du0_0, x0, au6_0);
                    let x1 = xl.zw;
                    ag6_0 = fma(dg0_1, x1, ag6_0);
                    au6_0 = fma(du0_1, x1, au6_0);
                    let x2 = xh.xy;
                    ag6_0 = fma(dg0_2, x2, ag6_0);
                    au6_0 = fma(du0_2, x2, au6_0);
                    let x3 = xh.zw;
                    ag6_0 = fma(dg0_3, x3, ag6_0);
                    au6_0 = fma(du0_3, x3, au6_0);
                }
                {
                    let xl = a[ra7 + c * 16u + 4u];
                    let xh = a[ra7 + c * 16u + 5u];
                    let x0 = xl.xy;
                    ag7_0 = fma(dg0_0, x0, ag7_0);
                    au7_0 = fma(du0_0, x0, au7_0);
                    let x1 = xl.zw;
                    ag7_0 = fma(dg0_1, x1, ag7_0);
                    au7_0 = fma(du0_1, x1, au7_0);
                    let x2 = xh.xy;
                    ag7_0 = fma(dg0_2, x2, ag7_0);
                    au7_0 = fma(du0_2, x2, au7_0);
                    let x3 = xh.zw;
                    ag7_0 = fma(dg0_3, x3, ag7_0);
                    au7_0 = fma(du0_3, x3, au7_0);
                }
            }
            {
                // Codes 24 .. 31: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_0[3] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_1 = fma(unpack2x16float((cg0_0[3] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let dg0_2 = fma(unpack2x16float(((cg0_0[3] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_3 = fma(unpack2x16float(((cg0_0[3] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_0 = fma(unpack2x16float((cu0_0[3] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_1 = fma(unpack2x16float((cu0_0[3] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_2 = fma(unpack2x16float(((cu0_0[3] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_3 = fma(unpack2x16float(((cu0_0[3] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                {
                    let xl = a[ra0 + c * 16u + 6u];
                    let xh = a[ra0 + c * 16u + 7u];
                    let x0 = xl.xy;
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = xl.zw;
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = xh.xy;
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = xh.zw;
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    let xl = a[ra1 + c * 16u + 6u];
                    let xh = a[ra1 + c * 16u + 7u];
                    let x0 = xl.xy;
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = xl.zw;
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = xh.xy;
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = xh.zw;
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let xl = a[ra2 + c * 16u + 6u];
                    let xh = a[ra2 + c * 16u + 7u];
                    let x0 = xl.xy;
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = xl.zw;
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = xh.xy;
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = xh.zw;
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let xl = a[ra3 + c * 16u + 6u];
                    let xh = a[ra3 + c * 16u + 7u];
                    let x0 = xl.xy;
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = xl.zw;
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = xh.xy;
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = xh.zw;
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let xl = a[ra4 + c * 16u + 6u];
                    let xh = a[ra4 + c * 16u + 7u];
                    let x0 = xl.xy;
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = xl.zw;
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = xh.xy;
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = xh.zw;
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
                {
                    let xl = a[ra5 + c * 16u + 6u];
                    let xh = a[ra5 + c * 16u + 7u];
                    let x0 = xl.xy;
                    ag5_0 = fma(dg0_0, x0, ag5_0);
                    au5_0 = fma(du0_0, x0, au5_0);
                    let x1 = xl.zw;
                    ag5_0 = fma(dg0_1, x1, ag5_0);
                    au5_0 = fma(du0_1, x1, au5_0);
                    let x2 = xh.xy;
                    ag5_0 = fma(dg0_2, x2, ag5_0);
                    au5_0 = fma(du0_2, x2, au5_0);
                    let x3 = xh.zw;
                    ag5_0 = fma(dg0_3, x3, ag5_0);
                    au5_0 = fma(du0_3, x3, au5_0);
                }
                {
                    let xl = a[ra6 + c * 16u + 6u];
                    let xh = a[ra6 + c * 16u + 7u];
                    let x0 = xl.xy;
                    ag6_0 = fma(dg0_0, x0, ag6_0);
                    au6_0 = fma(du0_0, x0, au6_0);
                    let x1 = xl.zw;
                    ag6_0 = fma(dg0_1, x1, ag6_0);
                    au6_0 = fma(du0_1, x1, au6_0);
                    let x2 = xh.xy;
                    ag6_0 = fma(dg0_2, x2, ag6_0);
                    au6_0 = fma(du0_2, x2, au6_0);
                    let x3 = xh.zw;
                    ag6_0 = fma(dg0_3, x3, ag6_0);
                    au6_0 = fma(du0_3, x3, au6_0);
                }
                {
                    let xl = a[ra7 + c * 16u + 6u];
                    let xh = a[ra7 + c * 16u + 7u];
                    let x0 = xl.xy;
                    ag7_0 = fma(dg0_0, x0, ag7_0);
                    au7_0 = fma(du0_0, x0, au7_0);
                    let x1 = xl.zw;
                    ag7_0 = fma(dg0_1, x1, ag7_0);
                    au7_0 = fma(du0_1, x1, au7_0);
                    let x2 = xh.xy;
                    ag7_0 = fma(dg0_2, x2, ag7_0);
                    au7_0 = fma(du0_2, x2, au7_0);
                    let x3 = xh.zw;
                    ag7_0 = fma(dg0_3, x3, ag7_0);
                    au7_0 = fma(du0_3, x3, au7_0);
                }
            }
            fg0_0 = fma(sg0_0, ag0_0.x + ag0_0.y, fg0_0);
            fu0_0 = fma(su0_0, au0_0.x + au0_0.y, fu0_0);
            fg1_0 = fma(sg0_0, ag1_0.x + ag1_0.y, fg1_0);
            fu1_0 = fma(su0_0, au1_0.x + au1_0.y, fu1_0);
            fg2_0 = fma(sg0_0, ag2_0.x + ag2_0.y, fg2_0);
            fu2_0 = fma(su0_0, au2_0.x + au2_0.y, fu2_0);
            fg3_0 = fma(sg0_0, ag3_0.x + ag3_0.y, fg3_0);
            fu3_0 = fma(su0_0, au3_0.x + au3_0.y, fu3_0);
            fg4_0 = fma(sg0_0, ag4_0.x + ag4_0.y, fg4_0);
            fu4_0 = fma(su0_0, au4_0.x + au4_0.y, fu4_0);
            fg5_0 = fma(sg0_0, ag5_0.x + ag5_0.y, fg5_0);
            fu5_0 = fma(su0_0, au5_0.x + au5_0.y, fu5_0);
            fg6_0 = fma(sg0_0, ag6_0.x + ag6_0.y, fg6_0);
            fu6_0 = fma(su0_0, au6_0.x + au6_0.y, fu6_0);
            fg7_0 = fma(sg0_0, ag7_0.x + ag7_0.y, fg7_0);
            fu7_0 = fma(su0_0, au7_0.x + au7_0.y, fu7_0);
        }
        {
            // Codes 32 .. 63 of the chunk (one scale): f32 sums per row and column.
            var ag0_0 = vec2<f32>(0.0);
            var au0_0 = vec2<f32>(0.0);
            var ag1_0 = vec2<f32>(0.0);
            var au1_0 = vec2<f32>(0.0);
            var ag2_0 = vec2<f32>(0.0);
            var au2_0 = vec2<f32>(0.0);
            var ag3_0 = vec2<f32>(0.0);
            var au3_0 = vec2<f32>(0.0);
            var ag4_0 = vec2<f32>(0.0);
            var au4_0 = vec2<f32>(0.0);
            var ag5_0 = vec2<f32>(0.0);
            var au5_0 = vec2<f32>(0.0);
            var ag6_0 = vec2<f32>(0.0);
            var au6_0 = vec2<f32>(0.0);
            var ag7_0 = vec2<f32>(0.0);
            var au7_0 = vec2<f32>(0.0);
            {
                // Codes 32 .. 39: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_1[0] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_1 = fma(unpack2x16float((cg0_1[0] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let dg0_2 = fma(unpack2x16float(((cg0_1[0] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_3 = fma(unpack2x16float(((cg0_1[0] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_0 = fma(unpack2x16float((cu0_1[0] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_1 = fma(unpack2x16float((cu0_1[0] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_2 = fma(unpack2x16float(((cu0_1[0] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_3 = fma(unpack2x16float(((cu0_1[0] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                {
                    let xl = a[ra0 + c * 16u + 8u];
                    let xh = a[ra0 + c * 16u + 9u];
                    let x0 = xl.xy;
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = xl.zw;
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = xh.xy;
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = xh.zw;
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    let xl = a[ra1 + c * 16u + 8u];
                    let xh = a[ra1 + c * 16u + 9u];
                    let x0 = xl.xy;
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = xl.zw;
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = xh.xy;
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = xh.zw;
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let xl = a[ra2 + c * 16u + 8u];
                    let xh = a[ra2 + c * 16u + 9u];
                    let x0 = xl.xy;
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = xl.zw;
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = xh.xy;
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = xh.zw;
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let xl = a[ra3 + c * 16u + 8u];
                    let xh = a[ra3 + c * 16u + 9u];
                    let x0 = xl.xy;
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = xl.zw;
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = xh.xy;
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = xh.zw;
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let xl = a[ra4 + c * 16u + 8u];
                    let xh = a[ra4 + c * 16u + 9u];
                    let x0 = xl.xy;
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = xl.zw;
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = xh.xy;
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = xh.zw;
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
                {
                    let xl = a[ra5 + c * 16u + 8u];
                    let xh = a[ra5 + c * 16u + 9u];
                    let x0 = xl.xy;
                    ag5_0 = fma(dg0_0, x0, ag5_0);
                    au5_0 = fma(du0_0, x0, au5_0);
                    let x1 = xl.zw;
                    ag5_0 = fma(dg0_1, x1, ag5_0);
                    au5_0 = fma(du0_1, x1, au5_0);
                    let x2 = xh.xy;
                    ag5_0 = fma(dg0_2, x2, ag5_0);
                    au5_0 = fma(du0_2, x2, au5_0);
                    let x3 = xh.zw;
                    ag5_0 = fma(dg0_3, x3, ag5_0);
                    au5_0 = fma(du0_3, x3, au5_0);
                }
                {
                    let xl = a[ra6 + c * 16u + 8u];
                    let xh = a[ra6 + c * 16u + 9u];
                    let x0 = xl.xy;
                    ag6_0 = fma(dg0_0, x0, ag6_0);
                    au6_0 = fma(du0_0, x0, au6_0);
                    let x1 = xl.zw;
                    ag6_0 = fma(dg0_1, x1, ag6_0);
                    au6_0 = fma(du0_1, x1, au6_0);
                    let x2 = xh.xy;
                    ag6_0 = fma(dg0_2, x2, ag6_0);
                    au6_0 = fma(du0_2, x2, au6_0);
                    let x3 = xh.zw;
                    ag6_0 = fma(dg0_3, x3, ag6_0);
                    au6_0 = fma(du0_3, x3, au6_0);
                }
                {
                    let xl = a[ra7 + c * 16u + 8u];
                    let xh = a[ra7 + c * 16u + 9u];
                    let x0 = xl.xy;
                    ag7_0 = fma(dg0_0, x0, ag7_0);
                    au7_0 = fma(du0_0, x0, au7_0);
                    let x1 = xl.zw;
                    ag7_0 = fma(dg0_1, x1, ag7_0);
                    au7_0 = fma(du0_1, x1, au7_0);
                    let x2 = xh.xy;
                    ag7_0 = fma(dg0_2, x2, ag7_0);
                    au7_0 = fma(du0_2, x2, au7_0);
                    let x3 = xh.zw;
                    ag7_0 = fma(dg0_3, x3, ag7_0);
                    au7_0 = fma(du0_3, x3, au7_0);
                }
            }
            {
                // Codes 40 .. 47: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_1[1] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_1 = fma(unpack2x16float((cg0_1[1] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let dg0_2 = fma(unpack2x16float(((cg0_1[1] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_3 = fma(unpack2x16float(((cg0_1[1] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_0 = fma(unpack2x16float((cu0_1[1] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_1 = fma(unpack2x16float((cu0_1[1] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_2 = fma(unpack2x16float(((cu0_1[1] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_3 = fma(unpack2x16float(((cu0_1[1] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                {
                    let xl = a[ra0 + c * 16u + 10u];
                    let xh = a[ra0 + c * 16u + 11u];
                    let x0 = xl.xy;
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = xl.zw;
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = xh.xy;
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = xh.zw;
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    let xl = a[ra1 + c * 16u + 10u];
                    let xh = a[ra1 + c * 16u + 11u];
                    let x0 = xl.xy;
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = xl.zw;
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = xh.xy;
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = xh.zw;
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let xl = a[ra2 + c * 16u + 10u];
                    let xh = a[ra2 + c * 16u + 11u];
                    let x0 = xl.xy;
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = xl.zw;
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = xh.xy;
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = xh.zw;
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let xl = a[ra3 + c * 16u + 10u];
                    let xh = a[ra3 + c * 16u + 11u];
                    let x0 = xl.xy;
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = xl.zw;
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = xh.xy;
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = xh.zw;
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let xl = a[ra4 + c * 16u + 10u];
                    let xh = a[ra4 + c * 16u + 11u];
                    let x0 = xl.xy;
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = xl.zw;
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = xh.xy;
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = xh.zw;
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
                {
                    let xl = a[ra5 + c * 16u + 10u];
                    let xh = a[ra5 + c * 16u + 11u];
                    let x0 = xl.xy;
                    ag5_0 = fma(dg0_0, x0, ag5_0);
                    au5_0 = fma(du0_0, x0, au5_0);
                    let x1 = xl.zw;
                    ag5_0 = fma(dg0_1, x1, ag5_0);
                    au5_0 = fma(du0_1, x1, au5_0);
                    let x2 = xh.xy;
                    ag5_0 = fma(dg0_2, x2, ag5_0);
                    au5_0 = fma(du0_2, x2, au5_0);
                    let x3 = xh.zw;
                    ag5_0 = fma(dg0_3, x3, ag5_0);
                    au5_0 = fma(du0_3, x3, au5_0);
                }
                {
                    let xl = a[ra6 + c * 16u + 10u];
                    let xh = a[ra6 + c * 16u + 11u];
                    let x0 = xl.xy;
                    ag6_0 = fma(dg0_0, x0, ag6_0);
                    au6_0 = fma(du0_0, x0, au6_0);
                    let x1 = xl.zw;
                    ag6_0 = fma(dg0_1, x1, ag6_0);
                    au6_0 = fma(du0_1, x1, au6_0);
                    let x2 = xh.xy;
                    ag6_0 = fma(dg0_2, x2, ag6_0);
                    au6_0 = fma(du0_2, x2, au6_0);
                    let x3 = xh.zw;
                    ag6_0 = fma(dg0_3, x3, ag6_0);
                    au6_0 = fma(du0_3, x3, au6_0);
                }
                {
                    let xl = a[ra7 + c * 16u + 10u];
                    let xh = a[ra7 + c * 16u + 11u];
                    let x0 = xl.xy;
                    ag7_0 = fma(dg0_0, x0, ag7_0);
                    au7_0 = fma(du0_0, x0, au7_0);
                    let x1 = xl.zw;
                    ag7_0 = fma(dg0_1, x1, ag7_0);
                    au7_0 = fma(du0_1, x1, au7_0);
                    let x2 = xh.xy;
                    ag7_0 = fma(dg0_2, x2, ag7_0);
                    au7_0 = fma(du0_2, x2, au7_0);
                    let x3 = xh.zw;
                    ag7_0 = fma(dg0_3, x3, ag7_0);
                    au7_0 = fma(du0_3, x3, au7_0);
                }
            }
            {
                // Codes 48 .. 55: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_1[2] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_1 = fma(unpack2x16float((cg0_1[2] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let dg0_2 = fma(unpack2x16float(((cg0_1[2] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_3 = fma(unpack2x16float(((cg0_1[2] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_0 = fma(unpack2x16float((cu0_1[2] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_1 = fma(unpack2x16float((cu0_1[2] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_2 = fma(unpack2x16float(((cu0_1[2] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_3 = fma(unpack2x16float(((cu0_1[2] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                {
                    let xl = a[ra0 + c * 16u + 12u];
                    let xh = a[ra0 + c * 16u + 13u];
                    let x0 = xl.xy;
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = xl.zw;
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = xh.xy;
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = xh.zw;
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    let xl = a[ra1 + c * 16u + 12u];
                    let xh = a[ra1 + c * 16u + 13u];
                    let x0 = xl.xy;
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = xl.zw;
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = xh.xy;
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = xh.zw;
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let xl = a[ra2 + c * 16u + 12u];
                    let xh = a[ra2 + c * 16u + 13u];
                    let x0 = xl.xy;
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = xl.zw;
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = xh.xy;
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = xh.zw;
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let xl = a[ra3 + c * 16u + 12u];
                    let xh = a[ra3 + c * 16u + 13u];
                    let x0 = xl.xy;
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = xl.zw;
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = xh.xy;
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = xh.zw;
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let xl = a[ra4 + c * 16u + 12u];
                    let xh = a[ra4 + c * 16u + 13u];
                    let x0 = xl.xy;
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = xl.zw;
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = xh.xy;
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = xh.zw;
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
                {
                    let xl = a[ra5 + c * 16u + 12u];
                    let xh = a[ra5 + c * 16u + 13u];
                    let x0 = xl.xy;
                    ag5_0 = fma(dg0_0, x0, ag5_0);
                    au5_0 = fma(du0_0, x0, au5_0);
                    let x1 = xl.zw;
                    ag5_0 = fma(dg0_1, x1, ag5_0);
                    au5_0 = fma(du0_1, x1, au5_0);
                    let x2 = xh.xy;
                    ag5_0 = fma(dg0_2, x2, ag5_0);
                    au5_0 = fma(du0_2, x2, au5_0);
                    let x3 = xh.zw;
                    ag5_0 = fma(dg0_3, x3, ag5_0);
                    au5_0 = fma(du0_3, x3, au5_0);
                }
                {
                    let xl = a[ra6 + c * 16u + 12u];
                    let xh = a[ra6 + c * 16u + 13u];
                    let x0 = xl.xy;
                    ag6_0 = fma(dg0_0, x0, ag6_0);
                    au6_0 = fma(du0_0, x0, au6_0);
                    let x1 = xl.zw;
                    ag6_0 = fma(dg0_1, x1, ag6_0);
                    au6_0 = fma(du0_1, x1, au6_0);
                    let x2 = xh.xy;
                    ag6_0 = fma(dg0_2, x2, ag6_0);
                    au6_0 = fma(du0_2, x2, au6_0);
                    let x3 = xh.zw;
                    ag6_0 = fma(dg0_3, x3, ag6_0);
                    au6_0 = fma(du0_3, x3, au6_0);
                }
                {
                    let xl = a[ra7 + c * 16u + 12u];
                    let xh = a[ra7 + c * 16u + 13u];
                    let x0 = xl.xy;
                    ag7_0 = fma(dg0_0, x0, ag7_0);
                    au7_0 = fma(du0_0, x0, au7_0);
                    let x1 = xl.zw;
                    ag7_0 = fma(dg0_1, x1, ag7_0);
                    au7_0 = fma(du0_1, x1, au7_0);
                    let x2 = xh.xy;
                    ag7_0 = fma(dg0_2, x2, ag7_0);
                    au7_0 = fma(du0_2, x2, au7_0);
                    let x3 = xh.zw;
                    ag7_0 = fma(dg0_3, x3, ag7_0);
                    au7_0 = fma(du0_3, x3, au7_0);
                }
            }
            {
                // Codes 56 .. 63: each pair decoded once, for every row.
                let dg0_0 = fma(unpack2x16float((cg0_1[3] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_1 = fma(unpack2x16float((cg0_1[3] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let dg0_2 = fma(unpack2x16float(((cg0_1[3] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let dg0_3 = fma(unpack2x16float(((cg0_1[3] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_0 = fma(unpack2x16float((cu0_1[3] & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_1 = fma(unpack2x16float((cu0_1[3] & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                let du0_2 = fma(unpack2x16float(((cu0_1[3] >> 8u) & 983055u) | magic), vec2<f32>(1.0), vec2<f32>(-1032.0));
                let du0_3 = fma(unpack2x16float(((cu0_1[3] >> 8u) & 15728880u) | magic), vec2<f32>(0.0625), vec2<f32>(-72.0));
                {
                    let xl = a[ra0 + c * 16u + 14u];
                    let xh = a[ra0 + c * 16u + 15u];
                    let x0 = xl.xy;
                    ag0_0 = fma(dg0_0, x0, ag0_0);
                    au0_0 = fma(du0_0, x0, au0_0);
                    let x1 = xl.zw;
                    ag0_0 = fma(dg0_1, x1, ag0_0);
                    au0_0 = fma(du0_1, x1, au0_0);
                    let x2 = xh.xy;
                    ag0_0 = fma(dg0_2, x2, ag0_0);
                    au0_0 = fma(du0_2, x2, au0_0);
                    let x3 = xh.zw;
                    ag0_0 = fma(dg0_3, x3, ag0_0);
                    au0_0 = fma(du0_3, x3, au0_0);
                }
                {
                    let xl = a[ra1 + c * 16u + 14u];
                    let xh = a[ra1 + c * 16u + 15u];
                    let x0 = xl.xy;
                    ag1_0 = fma(dg0_0, x0, ag1_0);
                    au1_0 = fma(du0_0, x0, au1_0);
                    let x1 = xl.zw;
                    ag1_0 = fma(dg0_1, x1, ag1_0);
                    au1_0 = fma(du0_1, x1, au1_0);
                    let x2 = xh.xy;
                    ag1_0 = fma(dg0_2, x2, ag1_0);
                    au1_0 = fma(du0_2, x2, au1_0);
                    let x3 = xh.zw;
                    ag1_0 = fma(dg0_3, x3, ag1_0);
                    au1_0 = fma(du0_3, x3, au1_0);
                }
                {
                    let xl = a[ra2 + c * 16u + 14u];
                    let xh = a[ra2 + c * 16u + 15u];
                    let x0 = xl.xy;
                    ag2_0 = fma(dg0_0, x0, ag2_0);
                    au2_0 = fma(du0_0, x0, au2_0);
                    let x1 = xl.zw;
                    ag2_0 = fma(dg0_1, x1, ag2_0);
                    au2_0 = fma(du0_1, x1, au2_0);
                    let x2 = xh.xy;
                    ag2_0 = fma(dg0_2, x2, ag2_0);
                    au2_0 = fma(du0_2, x2, au2_0);
                    let x3 = xh.zw;
                    ag2_0 = fma(dg0_3, x3, ag2_0);
                    au2_0 = fma(du0_3, x3, au2_0);
                }
                {
                    let xl = a[ra3 + c * 16u + 14u];
                    let xh = a[ra3 + c * 16u + 15u];
                    let x0 = xl.xy;
                    ag3_0 = fma(dg0_0, x0, ag3_0);
                    au3_0 = fma(du0_0, x0, au3_0);
                    let x1 = xl.zw;
                    ag3_0 = fma(dg0_1, x1, ag3_0);
                    au3_0 = fma(du0_1, x1, au3_0);
                    let x2 = xh.xy;
                    ag3_0 = fma(dg0_2, x2, ag3_0);
                    au3_0 = fma(du0_2, x2, au3_0);
                    let x3 = xh.zw;
                    ag3_0 = fma(dg0_3, x3, ag3_0);
                    au3_0 = fma(du0_3, x3, au3_0);
                }
                {
                    let xl = a[ra4 + c * 16u + 14u];
                    let xh = a[ra4 + c * 16u + 15u];
                    let x0 = xl.xy;
                    ag4_0 = fma(dg0_0, x0, ag4_0);
                    au4_0 = fma(du0_0, x0, au4_0);
                    let x1 = xl.zw;
                    ag4_0 = fma(dg0_1, x1, ag4_0);
                    au4_0 = fma(du0_1, x1, au4_0);
                    let x2 = xh.xy;
                    ag4_0 = fma(dg0_2, x2, ag4_0);
                    au4_0 = fma(du0_2, x2, au4_0);
                    let x3 = xh.zw;
                    ag4_0 = fma(dg0_3, x3, ag4_0);
                    au4_0 = fma(du0_3, x3, au4_0);
                }
                {
                    let xl = a[ra5 + c * 16u + 14u];
                    let xh = a[ra5 + c * 16u + 15u];
                    let x0 = xl.xy;
                    ag5_0 = fma(dg0_0, x0, ag5_0);
                    au5_0 = fma(du0_0, x0, au5_0);
                    let x1 = xl.zw;
                    ag5_0 = fma(dg0_1, x1, ag5_0);
                    au5_0 = fma(du0_1, x1, au5_0);
                    let x2 = xh.xy;
                    ag5_0 = fma(dg0_2, x2, ag5_0);
                    au5_0 = fma(du0_2, x2, au5_0);
                    let x3 = xh.zw;
                    ag5_0 = fma(dg0_3, x3, ag5_0);
                    au5_0 = fma(du0_3, x3, au5_0);
                }
                {
                    let xl = a[ra6 + c * 16u + 14u];
                    let xh = a[ra6 + c * 16u + 15u];
                    let x0 = xl.xy;
                    ag6_0 = fma(dg0_0, x0, ag6_0);
                    au6_0 = fma(du0_0, x0, au6_0);
                    let x1 = xl.zw;
                    ag6_0 = fma(dg0_1, x1, ag6_0);
                    au6_0 = fma(du0_1, x1, au6_0);
                    let x2 = xh.xy;
                    ag6_0 = fma(dg0_2, x2, ag6_0);
                    au6_0 = fma(du0_2, x2, au6_0);
                    let x3 = xh.zw;
                    ag6_0 = fma(dg0_3, x3, ag6_0);
                    au6_0 = fma(du0_3, x3, au6_0);
                }
                {
                    let xl = a[ra7 + c * 16u + 14u];
                    let xh = a[ra7 + c * 16u + 15u];
                    let x0 = xl.xy;
                    ag7_0 = fma(dg0_0, x0, ag7_0);
                    au7_0 = fma(du0_0, x0, au7_0);
                    let x1 = xl.zw;
                    ag7_0 = fma(dg0_1, x1, ag7_0);
                    au7_0 = fma(du0_1, x1, au7_0);
                    let x2 = xh.xy;
                    ag7_0 = fma(dg0_2, x2, ag7_0);
                    au7_0 = fma(du0_2, x2, au7_0);
                    let x3 = xh.zw;
                    ag7_0 = fma(dg0_3, x3, ag7_0);
                    au7_0 = fma(du0_3, x3, au7_0);
                }
            }
            fg0_0 = fma(sg0_1, ag0_0.x + ag0_0.y, fg0_0);
            fu0_0 = fma(su0_1, au0_0.x + au0_0.y, fu0_0);
            fg1_0 = fma(sg0_1, ag1_0.x + ag1_0.y, fg1_0);
            fu1_0 = fma(su0_1, au1_0.x + au1_0.y, fu1_0);
            fg2_0 = fma(sg0_1, ag2_0.x + ag2_0.y, fg2_0);
            fu2_0 = fma(su0_1, au2_0.x + au2_0.y, fu2_0);
            fg3_0 = fma(sg0_1, ag3_0.x + ag3_0.y, fg3_0);
            fu3_0 = fma(su0_1, au3_0.x + au3_0.y, fu3_0);
            fg4_0 = fma(sg0_1, ag4_0.x + ag4_0.y, fg4_0);
            fu4_0 = fma(su0_1, au4_0.x + au4_0.y, fu4_0);
            fg5_0 = fma(sg0_1, ag5_0.x + ag5_0.y, fg5_0);
            fu5_0 = fma(su0_1, au5_0.x + au5_0.y, fu5_0);
            fg6_0 = fma(sg0_1, ag6_0.x + ag6_0.y, fg6_0);
            fu6_0 = fma(su0_1, au6_0.x + au6_0.y, fu6_0);
            fg7_0 = fma(sg0_1, ag7_0.x + ag7_0.y, fg7_0);
            fu7_0 = fma(su0_1, au7_0.x + au7_0.y, fu7_0);
        }
    }

    // Sum the slices: red[((slice * RG + r) * 2 + m) * NC + column of the workgroup].
    red[(slice * 16u + 0u) * NC + col + 0u] = fg0_0;
    red[(slice * 16u + 1u) * NC + col + 0u] = fu0_0;
    red[(slice * 16u + 2u) * NC + col + 0u] = fg1_0;
    red[(slice * 16u + 3u) * NC + col + 0u] = fu1_0;
    red[(slice * 16u + 4u) * NC + col + 0u] = fg2_0;
    red[(slice * 16u + 5u) * NC + col + 0u] = fu2_0;
    red[(slice * 16u + 6u) * NC + col + 0u] = fg3_0;
    red[(slice * 16u + 7u) * NC + col + 0u] = fu3_0;
    red[(slice * 16u + 8u) * NC + col + 0u] = fg4_0;
    red[(slice * 16u + 9u) * NC + col + 0u] = fu4_0;
    red[(slice * 16u + 10u) * NC + col + 0u] = fg5_0;
    red[(slice * 16u + 11u) * NC + col + 0u] = fu5_0;
    red[(slice * 16u + 12u) * NC + col + 0u] = fg6_0;
    red[(slice * 16u + 13u) * NC + col + 0u] = fu6_0;
    red[(slice * 16u + 14u) * NC + col + 0u] = fg7_0;
    red[(slice * 16u + 15u) * NC + col + 0u] = fu7_0;
    workgroupBarrier();
    for (var o = t; o < 8u * NC; o = o + WG) {
        let r = o / NC;
        let oc = o % NC;
        var gs = 0.0;
        var us = 0.0;
        for (var s = 0u; s < S; s = s + 1u) {
            gs = gs + red[(s * 16u + 2u * r) * NC + oc];
            us = us + red[(s * 16u + 2u * r + 1u) * NC + oc];
        }
        let on = wid.y * NC + oc;
        let row = wid.x * 8u + r;
        if (on < N && row < ROWS) {
            y[row * N + on] = f32(silu_mul(gs, us));
        }
    }
}