// mma-tiles:scales, built on the GPU: the scales of a MatMulNBits weight tensor ([N, k_blocks]
// elements of g.elem_bytes bytes: f16 or f32, moved as bits, never read as numbers) in the
// tile order of the codes, as nbits_mlp_core::layout::repack_scales builds them on the CPU
// (that function and its module docs are the layout's definition; this kernel is tested byte
// for byte against it).
//
// The runtime prepends `struct Geometry` (nbits_mlp_core::layout::TileGeometry::wgsl_struct:
// the CPU function's numbers, one u32 each) and `const WORKGROUP_SIZE: u32`.
//
// One invocation writes one u32 word of the prepared buffer (one f32 scale or two f16 ones),
// every word of it: padding slots (rows past N, slots past the last block) are written 0.
// Invocations are numbered over a 2D grid of workgroups (maxComputeWorkgroupsPerDimension)
// and stride by the grid's size, so any size is covered by whatever grid the runtime
// dispatches.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> g: Geometry;

// Prepared scale `x` (element index): its tile (stripe s, chunk c), row r and slot j; the
// element's bits (16 or 32 of them, in the low bits), 0 for padding.
fn prepared_scale(x: u32) -> u32 {
    let j = x % g.scales_per_tile_row;
    let r = (x / g.scales_per_tile_row) % g.tile_rows;
    let t = x / (g.scales_per_tile_row * g.tile_rows);
    let s = t / g.chunks;
    let c = t % g.chunks;
    let n = s * g.tile_rows + r;
    let b = (c * g.tile_codes + j * g.slot_codes) / g.block_size;
    if n >= g.rows || b >= g.k_blocks {
        return 0u; // padding: scale 0
    }
    let e = n * g.k_blocks + b;
    if g.elem_bytes == 4u {
        return src[e];
    }
    return (src[e / 2u] >> ((e & 1u) * 16u)) & 0xFFFFu;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let stride = groups.x * groups.y * WORKGROUP_SIZE;
    for (var o = (wid.y * groups.x + wid.x) * WORKGROUP_SIZE + lid; o < g.prepared_words; o += stride) {
        if g.elem_bytes == 4u {
            dst[o] = prepared_scale(o);
        } else {
            dst[o] = prepared_scale(2u * o) | (prepared_scale(2u * o + 1u) << 16u);
        }
    }
}
