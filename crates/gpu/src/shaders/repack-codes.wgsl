// mma-tiles:codes, built on the GPU: the packed codes of a MatMulNBits weight tensor
// ([N, k_blocks, blob_size] bytes) rearranged into tiles of `g.tile_rows` rows x `g.tile_codes`
// codes, as nbits_mlp_core::layout::repack_codes builds them on the CPU (that function and its
// module docs are the layout's definition; this kernel is tested byte for byte against it).
//
// The runtime prepends `struct Geometry` (nbits_mlp_core::layout::TileGeometry::wgsl_struct:
// the CPU function's numbers, one u32 each) and `const WORKGROUP_SIZE: u32`.
//
// One invocation writes one u32 word of the prepared buffer, every word of it: padding words
// (rows past N, codes past k_blocks * block_size) are written 0. The 32 / bits codes of a
// prepared word are those of one source word (a MatMulNBits row is whole words and the codes
// of a word are all inside k_blocks * block_size or all past it), so each word is one load and
// a shuffle of its codes: code j of the word to bit (j / 2) * bits + (j odd ? 16 : 0).
// Invocations are numbered over a 2D grid of workgroups (maxComputeWorkgroupsPerDimension)
// and stride by the grid's size, so any size is covered by whatever grid the runtime
// dispatches.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> g: Geometry;

// Prepared word `o`: its tile (stripe s, chunk c), row r within the tile and word wi within the row.
fn prepared_word(o: u32) -> u32 {
    let wi = o % g.tile_row_words;
    let r = (o / g.tile_row_words) % g.tile_rows;
    let t = o / (g.tile_row_words * g.tile_rows);
    let s = t / g.chunks;
    let c = t % g.chunks;
    let n = s * g.tile_rows + r;
    let per_word = 32u / g.bits;
    let k0 = c * g.tile_codes + wi * per_word;
    if n >= g.rows || k0 >= g.k_blocks * g.block_size {
        return 0u; // padding: code 0
    }
    let v = src[n * g.source_row_words + k0 * g.bits / 32u];
    let mask = (1u << g.bits) - 1u;
    var out = 0u;
    for (var j = 0u; j < per_word; j++) {
        out |= ((v >> (j * g.bits)) & mask) << ((j / 2u) * g.bits + (j & 1u) * 16u);
    }
    return out;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let stride = groups.x * groups.y * WORKGROUP_SIZE;
    for (var o = (wid.y * groups.x + wid.x) * WORKGROUP_SIZE + lid; o < g.prepared_words; o += stride) {
        dst[o] = prepared_word(o);
    }
}
