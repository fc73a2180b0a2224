//! Prepared weight layouts: the MatMulNBits weights rearranged once, when a weight tensor is
//! first used, for a kernel that reads them faster (ONNX Runtime calls this "prepacking").
//!
//! The op's contract stays the MatMulNBits layout (`B` as `[N, k_blocks, blob_size]` bytes,
//! `scales` as `[N, k_blocks]`; see the reference crate's `pack` module); every seed variant
//! reads it. A variant that reads a prepared layout says so in its bindings (`layout` in the
//! manifest's binding declaration, e.g. `"mma-tiles:codes"`), the plan records it
//! ([`crate::plan::Resource::Prepared`]), and the GPU runtime builds the prepared buffer from the
//! caller's tensor (a host tensor with [`repack_codes`] / [`repack_scales`]; a device tensor
//! with its copy kernels, which index with [`TileGeometry`], below) and keeps it with the tensor.
//!
//! # `mma-tiles`: tiles of 16 weight rows x 64 codes (the `mmap_*` kernel)
//!
//! A weight matrix `[N, K]` is cut into stripes of 16 rows (`NT = ceil(N / 16)`) and each
//! stripe along K into chunks of 64 codes (`KC = ceil(k_blocks * block_size / 64)`). Tile
//! `(s, c)` is rows `16 s .. 16 s + 15`, codes `64 c .. 64 c + 63`; tiles are stored stripe by
//! stripe, each stripe's chunks in K order, so the tiles one subgroup of the kernel walks are
//! one contiguous run:
//!
//! ```text
//! codes:  [ tile(0,0) | tile(0,1) | ... | tile(0,KC-1) | tile(1,0) | ... | tile(NT-1,KC-1) ]
//! tile:   [ row 0: 8*bits bytes | row 1 | ... | row 15 ]          (16 * 8 * bits bytes)
//! row:    [ word 0 | word 1 | ... ]   little-endian u32 words, 32/bits codes each
//! word w: codes k0 .. k0 + 32/bits - 1 (k0 = 64 c + w * 32/bits), code j at bit
//!         (j / 2) * bits + (j odd ? 16 : 0): even codes in the low half word, odd codes in
//!         the high half, each half from its least significant bits up
//! scales: [ tile(0,0) | tile(0,1) | ... ]  same tile order; a tile is 16 rows x SPR scales,
//!         SPR = 64 / block_size for blocks under 64 codes (slot j: block 64 c / block_size + j),
//!         else 1 (the block holding code 64 c: a block of 128+ codes is repeated per chunk)
//! ```
//!
//! With that order the kernel's packed-f16 decode (`(word & mask) | 0x64006400` read as two
//! f16) yields codes `(2 i, 2 i + 1)` as pair `i` of a word: the dequantised weights come out
//! in K order. Rows past N and codes past `k_blocks * block_size` are padding: code 0 with
//! scale 0, so a padded weight is exactly zero (`(0 - zero point) * 0`). Codes between K and
//! `k_blocks * block_size` (the last blob's padding in the MatMulNBits layout) are copied as
//! they are; kernels give them zero activations. Zero points: the op has none (the zero point
//! is always `2^(bits-1)`), so the layout carries none.
//!
//! The functions here are the one definition of the layout: the runtime builds prepared buffers
//! of host tensors with them and the tests check the round trip ([`unpack_codes`],
//! [`unpack_scales`]). The GPU runtime builds the prepared copies of device tensors with a copy
//! kernel per part (codes, scales) that indexes with the same numbers: [`TileGeometry`] holds
//! every number of the geometry that either side needs, the functions here index with it, and
//! the kernels receive it as their uniform, their WGSL struct declared by
//! [`TileGeometry::wgsl_struct`] from the same field list ([`TileGeometry::fields`]), so the two
//! cannot drift apart. Its GPU build is byte for byte the build of the functions here (tested).

use serde::{Deserialize, Serialize};
use std::fmt;

/// Rows per tile of the `mma-tiles` layout.
pub const MMA_TILE_ROWS: usize = 16;
/// Codes (along K) per tile of the `mma-tiles` layout.
pub const MMA_TILE_CODES: usize = 64;

/// A prepared layout of one weight tensor (codes or scales) of the op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PreparedLayout {
    /// `mma-tiles:codes`: the packed codes (`gate_B`, `up_B`) in tiles of 16 rows x 64 codes.
    MmaTileCodes,
    /// `mma-tiles:scales`: the scales (`gate_scales`, `up_scales`) in the same tile order.
    MmaTileScales,
}

impl PreparedLayout {
    /// Every prepared layout, for messages and tests.
    pub const ALL: [PreparedLayout; 2] =
        [PreparedLayout::MmaTileCodes, PreparedLayout::MmaTileScales];

    /// The name used in the manifest (`layout` of a binding) and in plans.
    pub fn name(self) -> &'static str {
        match self {
            PreparedLayout::MmaTileCodes => "mma-tiles:codes",
            PreparedLayout::MmaTileScales => "mma-tiles:scales",
        }
    }

    /// The layout of a manifest name, if it is one.
    pub fn from_name(name: &str) -> Option<PreparedLayout> {
        PreparedLayout::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Whether the layout rearranges packed codes (`uint8`), not scales.
    pub fn is_codes(self) -> bool {
        matches!(self, PreparedLayout::MmaTileCodes)
    }
}

impl fmt::Display for PreparedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything needed to build one prepared buffer from the caller's tensor: the layout and the
/// weight matrix's geometry (the op's attributes) and element size. Plans carry it
/// ([`crate::plan::Resource::Prepared`]); the runtime keys its prepared buffers by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PreparedWeights {
    /// The layout.
    pub layout: PreparedLayout,
    /// Weight rows (the op's `N`).
    pub n: usize,
    /// Codes per row (the op's `K`).
    pub k: usize,
    /// Bits per code (2, 4 or 8).
    pub bits: u32,
    /// Codes per block (a power of two, at least 16).
    pub block_size: usize,
    /// Bytes per element of the tensor: 1 for codes, the scales' dtype size (2 or 4) for scales.
    pub elem_bytes: usize,
}

/// The numbers of one weight tensor's `mma-tiles` geometry (module docs), in the units the
/// rearrangement indexes with: the CPU functions of this module index with them, and the GPU
/// runtime's repack kernels receive them as their uniform (one `u32` per field, in the order of
/// [`TileGeometry::fields`], declared in WGSL by [`TileGeometry::wgsl_struct`]). Built by
/// [`PreparedWeights::tile_geometry`].
///
/// Two facts the kernels rely on, both following from the layout's limits (bits 2, 4 or 8,
/// blocks of at least 16 codes): a MatMulNBits row is a whole number of 32-bit words (a blob is
/// `block_size * bits / 8 >= 4` bytes), and the `32 / bits` codes of one prepared word are the
/// codes of one source word, all inside `k_blocks * block_size` or all past it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TileGeometry {
    /// Weight rows of the caller's tensor (the op's `N`).
    pub rows: usize,
    /// Blocks per weight row: `ceil(K / block_size)`.
    pub k_blocks: usize,
    /// Codes per block.
    pub block_size: usize,
    /// Bits per code (2, 4 or 8).
    pub bits: usize,
    /// Bytes per scale (2 or 4; 1 for a codes geometry, where it is unused).
    pub elem_bytes: usize,
    /// Rows per tile: [`MMA_TILE_ROWS`].
    pub tile_rows: usize,
    /// Codes per tile row: [`MMA_TILE_CODES`].
    pub tile_codes: usize,
    /// Stripes of `tile_rows` rows: `ceil(N / tile_rows)`.
    pub stripes: usize,
    /// Tiles per stripe: `ceil(k_blocks * block_size / tile_codes)`.
    pub chunks: usize,
    /// Scale slots per tile row: `tile_codes / block_size` for blocks under `tile_codes`
    /// codes, else 1.
    pub scales_per_tile_row: usize,
    /// Codes one scale slot covers: `min(block_size, tile_codes)`; slot `j` of chunk `c`
    /// holds block `(c * tile_codes + j * slot_codes) / block_size` (one formula for both
    /// cases of [`TileGeometry::scales_per_tile_row`]).
    pub slot_codes: usize,
    /// 32-bit words per tile row of codes: `tile_codes * bits / 32`.
    pub tile_row_words: usize,
    /// 32-bit words per MatMulNBits row of codes: `k_blocks * block_size * bits / 32`.
    pub source_row_words: usize,
    /// 32-bit words of the prepared buffer (its bytes are a multiple of 4).
    pub prepared_words: usize,
}

impl TileGeometry {
    /// Every field, by name, in the order of the kernels' uniform: the one list both the WGSL
    /// declaration ([`TileGeometry::wgsl_struct`]) and the uniform's values
    /// ([`TileGeometry::uniform_words`]) come from.
    pub fn fields(&self) -> [(&'static str, usize); 14] {
        [
            ("rows", self.rows),
            ("k_blocks", self.k_blocks),
            ("block_size", self.block_size),
            ("bits", self.bits),
            ("elem_bytes", self.elem_bytes),
            ("tile_rows", self.tile_rows),
            ("tile_codes", self.tile_codes),
            ("stripes", self.stripes),
            ("chunks", self.chunks),
            ("scales_per_tile_row", self.scales_per_tile_row),
            ("slot_codes", self.slot_codes),
            ("tile_row_words", self.tile_row_words),
            ("source_row_words", self.source_row_words),
            ("prepared_words", self.prepared_words),
        ]
    }

    /// The WGSL declaration of the uniform struct `name`: one `u32` member per field of
    /// [`TileGeometry::fields`], in that order (a uniform struct of `u32`s has no padding, so
    /// [`TileGeometry::uniform_words`] is its byte image).
    pub fn wgsl_struct(name: &str) -> String {
        let mut s = format!("struct {name} {{\n");
        for (field, _) in TileGeometry::default().fields() {
            s.push_str(&format!("    {field}: u32,\n"));
        }
        s.push_str("}\n");
        s
    }

    /// The uniform's values, one `u32` per field in the order of [`TileGeometry::fields`];
    /// an error when a number does not fit 32 bits (a prepared buffer of 16 GiB or more).
    pub fn uniform_words(&self) -> Result<Vec<u32>, LayoutError> {
        self.fields()
            .iter()
            .map(|&(name, v)| {
                u32::try_from(v).map_err(|_| LayoutError::Geometry {
                    layout: "mma-tiles",
                    message: format!("{name} = {v} does not fit the repack kernel's 32 bits"),
                })
            })
            .collect()
    }
}

/// Why a prepared layout cannot be built: the tensor or the geometry does not fit it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// The geometry is outside what the layout supports (bits, block size, element size).
    #[error("{layout}: {message}")]
    Geometry {
        /// The layout's name.
        layout: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The tensor holds another number of bytes than the geometry needs.
    #[error("{layout}: the {what} tensor holds {got} bytes, the geometry needs {want}")]
    Size {
        /// The layout's name.
        layout: &'static str,
        /// `original` or `prepared`.
        what: &'static str,
        /// Bytes given.
        got: usize,
        /// Bytes expected.
        want: usize,
    },
}

impl PreparedWeights {
    fn geometry_error(&self, message: String) -> LayoutError {
        LayoutError::Geometry {
            layout: self.layout.name(),
            message,
        }
    }

    /// Checks bits, block size, sizes and element size.
    pub fn check(&self) -> Result<(), LayoutError> {
        if !matches!(self.bits, 2 | 4 | 8) {
            return Err(self.geometry_error(format!("bits must be 2, 4 or 8, got {}", self.bits)));
        }
        if self.block_size < 16 || !self.block_size.is_power_of_two() {
            return Err(self.geometry_error(format!(
                "block_size must be a power of two and at least 16, got {}",
                self.block_size
            )));
        }
        if self.n == 0 || self.k == 0 {
            return Err(self.geometry_error(format!(
                "N and K must be positive, got N={} K={}",
                self.n, self.k
            )));
        }
        let want = if self.layout.is_codes() {
            [1, 1]
        } else {
            [2, 4]
        };
        if !want.contains(&self.elem_bytes) {
            return Err(self.geometry_error(format!(
                "elements of {} bytes (codes are 1 byte, scales 2 or 4)",
                self.elem_bytes
            )));
        }
        Ok(())
    }

    /// Blocks per weight row: `ceil(K / block_size)`.
    pub fn k_blocks(&self) -> usize {
        self.k.div_ceil(self.block_size)
    }

    /// Bytes per block in the MatMulNBits layout: `block_size * bits / 8`.
    pub fn blob_size(&self) -> usize {
        self.block_size * self.bits as usize / 8
    }

    /// Stripes of 16 rows: `ceil(N / 16)`.
    pub fn stripes(&self) -> usize {
        self.n.div_ceil(MMA_TILE_ROWS)
    }

    /// Chunks of 64 codes per stripe: `ceil(k_blocks * block_size / 64)`.
    pub fn chunks(&self) -> usize {
        (self.k_blocks() * self.block_size).div_ceil(MMA_TILE_CODES)
    }

    /// Scales per tile row: `64 / block_size` for blocks under 64 codes, else 1.
    pub fn scales_per_tile_row(&self) -> usize {
        if self.block_size < MMA_TILE_CODES {
            MMA_TILE_CODES / self.block_size
        } else {
            1
        }
    }

    /// Bytes of one tile row of codes: `64 * bits / 8`.
    fn tile_row_bytes(&self) -> usize {
        MMA_TILE_CODES * self.bits as usize / 8
    }

    /// The geometry's numbers as the rearrangement indexes with them (CPU here, the GPU
    /// runtime's repack kernels as their uniform). Meaningful for a geometry that passes
    /// [`PreparedWeights::check`].
    pub fn tile_geometry(&self) -> TileGeometry {
        TileGeometry {
            rows: self.n,
            k_blocks: self.k_blocks(),
            block_size: self.block_size,
            bits: self.bits as usize,
            elem_bytes: self.elem_bytes,
            tile_rows: MMA_TILE_ROWS,
            tile_codes: MMA_TILE_CODES,
            stripes: self.stripes(),
            chunks: self.chunks(),
            scales_per_tile_row: self.scales_per_tile_row(),
            slot_codes: self.block_size.min(MMA_TILE_CODES),
            tile_row_words: self.tile_row_bytes() / 4,
            source_row_words: self.k_blocks() * self.blob_size() / 4,
            prepared_words: self.prepared_bytes() / 4,
        }
    }

    /// Bytes of the caller's tensor in the MatMulNBits layout.
    pub fn original_bytes(&self) -> usize {
        if self.layout.is_codes() {
            self.n * self.k_blocks() * self.blob_size()
        } else {
            self.n * self.k_blocks() * self.elem_bytes
        }
    }

    /// Bytes of the prepared buffer.
    pub fn prepared_bytes(&self) -> usize {
        let tiles = self.stripes() * self.chunks();
        if self.layout.is_codes() {
            tiles * MMA_TILE_ROWS * self.tile_row_bytes()
        } else {
            tiles * MMA_TILE_ROWS * self.scales_per_tile_row() * self.elem_bytes
        }
    }

    /// Builds the prepared buffer from the caller's tensor bytes (MatMulNBits layout).
    pub fn repack(&self, original: &[u8]) -> Result<Vec<u8>, LayoutError> {
        if self.layout.is_codes() {
            repack_codes(original, self)
        } else {
            repack_scales(original, self)
        }
    }

    /// The inverse of [`PreparedWeights::repack`]: the caller's tensor bytes back.
    pub fn unpack(&self, prepared: &[u8]) -> Result<Vec<u8>, LayoutError> {
        if self.layout.is_codes() {
            unpack_codes(prepared, self)
        } else {
            unpack_scales(prepared, self)
        }
    }

    fn check_len(&self, what: &'static str, got: usize, want: usize) -> Result<(), LayoutError> {
        self.check()?;
        if got != want {
            return Err(LayoutError::Size {
                layout: self.layout.name(),
                what,
                got,
                want,
            });
        }
        Ok(())
    }

    fn expect_layout(&self, codes: bool) -> Result<(), LayoutError> {
        if self.layout.is_codes() != codes {
            return Err(self.geometry_error(format!(
                "called for {} but the layout rearranges {}",
                if codes { "codes" } else { "scales" },
                if self.layout.is_codes() {
                    "codes"
                } else {
                    "scales"
                }
            )));
        }
        Ok(())
    }
}

/// Reads code `k` (0-based) of a MatMulNBits row (`row` = the row's blobs, LSB first).
fn read_code(row: &[u8], k: usize, bits: u32) -> u32 {
    let bit = k * bits as usize;
    (u32::from(row[bit / 8]) >> (bit % 8)) & ((1 << bits) - 1)
}

/// Writes code `k` of a MatMulNBits row (the bits there must be zero).
fn write_code(row: &mut [u8], k: usize, bits: u32, code: u32) {
    let bit = k * bits as usize;
    row[bit / 8] |= (code << (bit % 8)) as u8;
}

/// Bit position of code `j` (0-based within its 32-bit word) in the `mma-tiles` layout.
fn word_bit(j: usize, bits: u32) -> usize {
    (j / 2) * bits as usize + if j % 2 == 1 { 16 } else { 0 }
}

/// `mma-tiles:codes`: the packed codes `[N, k_blocks, blob_size]` (MatMulNBits) rearranged into
/// tiles of 16 rows x 64 codes (module docs). `w.layout` must be [`PreparedLayout::MmaTileCodes`].
pub fn repack_codes(codes: &[u8], w: &PreparedWeights) -> Result<Vec<u8>, LayoutError> {
    w.expect_layout(true)?;
    w.check_len("original", codes.len(), w.original_bytes())?;
    let g = w.tile_geometry();
    let row_bytes = 4 * g.source_row_words;
    let kp = g.k_blocks * g.block_size;
    let trb = 4 * g.tile_row_words;
    let cpw = 32 / g.bits;
    let (bits, kc) = (w.bits, g.chunks);
    let mut out = vec![0u8; 4 * g.prepared_words];
    for s in 0..g.stripes {
        for r in 0..g.tile_rows {
            let n = s * g.tile_rows + r;
            if n >= g.rows {
                break;
            }
            let row = &codes[n * row_bytes..(n + 1) * row_bytes];
            for c in 0..kc {
                let base = ((s * kc + c) * g.tile_rows + r) * trb;
                for (wi, word) in out[base..base + trb].chunks_exact_mut(4).enumerate() {
                    let k0 = c * g.tile_codes + wi * cpw;
                    let mut v = 0u32;
                    for j in 0..cpw {
                        if k0 + j < kp {
                            v |= read_code(row, k0 + j, bits) << word_bit(j, bits);
                        }
                    }
                    word.copy_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    Ok(out)
}

/// The inverse of [`repack_codes`]: the MatMulNBits bytes `[N, k_blocks, blob_size]` back.
pub fn unpack_codes(prepared: &[u8], w: &PreparedWeights) -> Result<Vec<u8>, LayoutError> {
    w.expect_layout(true)?;
    w.check_len("prepared", prepared.len(), w.prepared_bytes())?;
    let g = w.tile_geometry();
    let row_bytes = 4 * g.source_row_words;
    let kp = g.k_blocks * g.block_size;
    let trb = 4 * g.tile_row_words;
    let cpw = 32 / g.bits;
    let (bits, kc) = (w.bits, g.chunks);
    let mask = (1u32 << bits) - 1;
    let mut out = vec![0u8; w.original_bytes()];
    for n in 0..g.rows {
        let (s, r) = (n / g.tile_rows, n % g.tile_rows);
        let row = &mut out[n * row_bytes..(n + 1) * row_bytes];
        for c in 0..kc {
            let base = ((s * kc + c) * g.tile_rows + r) * trb;
            for (wi, word) in prepared[base..base + trb].chunks_exact(4).enumerate() {
                let v = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
                let k0 = c * g.tile_codes + wi * cpw;
                for j in 0..cpw {
                    if k0 + j < kp {
                        write_code(row, k0 + j, bits, (v >> word_bit(j, bits)) & mask);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Block (index along K) of scale slot `j` of chunk `c`, if the slot holds a block.
fn slot_block(g: &TileGeometry, c: usize, j: usize) -> Option<usize> {
    let b = (c * g.tile_codes + j * g.slot_codes) / g.block_size;
    (b < g.k_blocks).then_some(b)
}

/// `mma-tiles:scales`: the scales `[N, k_blocks]` (elements of `w.elem_bytes` bytes, any
/// dtype: they are moved, not read) in the tile order of [`repack_codes`] (module docs).
pub fn repack_scales(scales: &[u8], w: &PreparedWeights) -> Result<Vec<u8>, LayoutError> {
    w.expect_layout(false)?;
    w.check_len("original", scales.len(), w.original_bytes())?;
    let g = w.tile_geometry();
    let (e, kb, kc, spr) = (g.elem_bytes, g.k_blocks, g.chunks, g.scales_per_tile_row);
    let mut out = vec![0u8; 4 * g.prepared_words];
    for n in 0..g.rows {
        let (s, r) = (n / g.tile_rows, n % g.tile_rows);
        for c in 0..kc {
            for j in 0..spr {
                if let Some(b) = slot_block(&g, c, j) {
                    let dst = (((s * kc + c) * g.tile_rows + r) * spr + j) * e;
                    let src = (n * kb + b) * e;
                    out[dst..dst + e].copy_from_slice(&scales[src..src + e]);
                }
            }
        }
    }
    Ok(out)
}

/// The inverse of [`repack_scales`]: the scales `[N, k_blocks]` back.
pub fn unpack_scales(prepared: &[u8], w: &PreparedWeights) -> Result<Vec<u8>, LayoutError> {
    w.expect_layout(false)?;
    w.check_len("prepared", prepared.len(), w.prepared_bytes())?;
    let g = w.tile_geometry();
    let (e, kb, kc, spr) = (g.elem_bytes, g.k_blocks, g.chunks, g.scales_per_tile_row);
    let mut out = vec![0u8; w.original_bytes()];
    for n in 0..g.rows {
        let (s, r) = (n / g.tile_rows, n % g.tile_rows);
        for b in 0..kb {
            // The first slot holding block b: the one covering its first code.
            let first = b * g.block_size;
            let (c, j) = (first / g.tile_codes, first % g.tile_codes / g.slot_codes);
            let src = (((s * kc + c) * g.tile_rows + r) * spr + j) * e;
            let dst = (n * kb + b) * e;
            out[dst..dst + e].copy_from_slice(&prepared[src..src + e]);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry(
        layout: PreparedLayout,
        n: usize,
        k: usize,
        bits: u32,
        bs: usize,
    ) -> PreparedWeights {
        PreparedWeights {
            layout,
            n,
            k,
            bits,
            block_size: bs,
            elem_bytes: if layout.is_codes() { 1 } else { 2 },
        }
    }

    #[test]
    fn names_round_trip() {
        for l in PreparedLayout::ALL {
            assert_eq!(PreparedLayout::from_name(l.name()), Some(l));
        }
        assert_eq!(PreparedLayout::from_name("mma-tiles"), None);
    }

    #[test]
    fn one_word_holds_even_codes_low_and_odd_codes_high() {
        // 4 bits, one row, K = 64 (one tile): codes 0..15 then 0..15 ...
        let w = geometry(PreparedLayout::MmaTileCodes, 1, 64, 4, 64);
        let row: Vec<u8> = (0..32u8)
            .map(|i| (2 * i % 16) | ((2 * i + 1) % 16) << 4)
            .collect();
        let p = repack_codes(&row, &w).unwrap();
        assert_eq!(p.len(), 16 * 32);
        let v = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
        // Codes 0..7 of the row are 0, 1, ..., 7: even ones (0, 2, 4, 6) low, odd ones high.
        assert_eq!(v & 0xFFFF, 0x6420);
        assert_eq!(v >> 16, 0x7531);
        // Padding rows 1..15 are zero.
        assert!(p[32..].iter().all(|&b| b == 0));
    }

    #[test]
    fn wrong_sizes_and_geometry_are_errors() {
        let w = geometry(PreparedLayout::MmaTileCodes, 3, 64, 4, 32);
        assert!(matches!(
            repack_codes(&[0; 5], &w),
            Err(LayoutError::Size { .. })
        ));
        let bad = PreparedWeights { bits: 3, ..w };
        assert!(matches!(
            repack_codes(&[0; 96], &bad),
            Err(LayoutError::Geometry { .. })
        ));
        assert!(
            repack_scales(&[0; 12], &w).is_err(),
            "codes layout given scales"
        );
    }
}
