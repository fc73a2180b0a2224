//! The prepared weight layouts (`core::layout`): round trip over every legal bits and block size
//! with awkward N and K, and each prepared code and scale where the documented formula puts it.

use nbits_mlp_core::layout::{PreparedLayout, PreparedWeights, MMA_TILE_CODES, MMA_TILE_ROWS};

/// A deterministic random byte stream (seeded): no pattern a wrong index could match by chance.
fn bytes(len: usize, seed: u64) -> Vec<u8> {
    use rand::{RngCore, SeedableRng};
    let mut v = vec![0u8; len];
    rand::rngs::StdRng::seed_from_u64(seed).fill_bytes(&mut v);
    v
}

fn code_of(row: &[u8], k: usize, bits: u32) -> u32 {
    let bit = k * bits as usize;
    (u32::from(row[bit / 8]) >> (bit % 8)) & ((1 << bits) - 1)
}

/// Every legal (bits, block) with N not a multiple of 16 and K not a multiple of 64 or of the block.
fn cases() -> Vec<(usize, usize, u32, usize)> {
    let mut v = Vec::new();
    for bits in [2u32, 4, 8] {
        for bs in [16usize, 32, 64, 128, 256] {
            for (n, k) in [
                (1, 8),
                (16, 64),
                (17, 100),
                (33, 4096 + 16),
                (5, 3 * bs + 8),
                (48, 200),
            ] {
                v.push((n, k, bits, bs));
            }
        }
    }
    v
}

#[test]
fn codes_round_trip_and_sit_where_the_layout_says() {
    for (n, k, bits, bs) in cases() {
        let w = PreparedWeights {
            layout: PreparedLayout::MmaTileCodes,
            n,
            k,
            bits,
            block_size: bs,
            elem_bytes: 1,
        };
        let orig = bytes(
            w.original_bytes(),
            (n * 7919 + k * 31 + bs) as u64 ^ u64::from(bits),
        );
        let prep = w.repack(&orig).unwrap();
        assert_eq!(prep.len(), w.prepared_bytes());
        assert_eq!(prep.len() % 16, 0, "whole 16-byte vectors");
        assert_eq!(
            w.unpack(&prep).unwrap(),
            orig,
            "round trip n={n} k={k} bits={bits} bs={bs}"
        );
        // Each code where the docs put it: tile (n / 16, k / 64), row n % 16, word, bit.
        let row_bytes = w.k_blocks() * w.blob_size();
        let kp = w.k_blocks() * bs;
        let cpw = 32 / bits as usize;
        let trb = MMA_TILE_CODES * bits as usize / 8;
        for nn in 0..w.stripes() * MMA_TILE_ROWS {
            for kk in 0..w.chunks() * MMA_TILE_CODES {
                let (s, c) = (nn / MMA_TILE_ROWS, kk / MMA_TILE_CODES);
                let within = kk % MMA_TILE_CODES;
                let (wi, j) = (within / cpw, within % cpw);
                let off =
                    ((s * w.chunks() + c) * MMA_TILE_ROWS + nn % MMA_TILE_ROWS) * trb + 4 * wi;
                let word = u32::from_le_bytes(prep[off..off + 4].try_into().unwrap());
                let bit = (j / 2) * bits as usize + if j % 2 == 1 { 16 } else { 0 };
                let got = (word >> bit) & ((1 << bits) - 1);
                let want = if nn < n && kk < kp {
                    code_of(&orig[nn * row_bytes..], kk, bits)
                } else {
                    0
                };
                assert_eq!(
                    got, want,
                    "code ({nn}, {kk}) n={n} k={k} bits={bits} bs={bs}"
                );
            }
        }
    }
}

#[test]
fn scales_round_trip_and_sit_where_the_layout_says() {
    for (n, k, bits, bs) in cases() {
        for e in [2usize, 4] {
            let w = PreparedWeights {
                layout: PreparedLayout::MmaTileScales,
                n,
                k,
                bits,
                block_size: bs,
                elem_bytes: e,
            };
            let orig = bytes(w.original_bytes(), (n * 131 + k + bs * e) as u64);
            let prep = w.repack(&orig).unwrap();
            assert_eq!(prep.len(), w.prepared_bytes());
            assert_eq!(
                w.unpack(&prep).unwrap(),
                orig,
                "round trip n={n} k={k} bs={bs} e={e}"
            );
            let spr = w.scales_per_tile_row();
            for nn in 0..w.stripes() * MMA_TILE_ROWS {
                for c in 0..w.chunks() {
                    for j in 0..spr {
                        let off = (((nn / 16) * w.chunks() + c) * 16 + nn % 16) * spr + j;
                        let got = &prep[off * e..(off + 1) * e];
                        // The block that holds code 64 c + j * block_size (first code of the slot).
                        let b = (c * MMA_TILE_CODES + j * bs.min(MMA_TILE_CODES)) / bs;
                        if nn < n && b < w.k_blocks() {
                            let src = (nn * w.k_blocks() + b) * e;
                            assert_eq!(
                                got,
                                &orig[src..src + e],
                                "scale ({nn}, chunk {c}, slot {j}) bs={bs}"
                            );
                        } else {
                            assert!(got.iter().all(|&x| x == 0), "padding scale is zero");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn llama8b_prepared_sizes_equal_the_originals() {
    // N a multiple of 16 and K of 64: no padding, the same bytes rearranged.
    for (layout, e) in [
        (PreparedLayout::MmaTileCodes, 1),
        (PreparedLayout::MmaTileScales, 2),
    ] {
        let w = PreparedWeights {
            layout,
            n: 14336,
            k: 4096,
            bits: 4,
            block_size: 32,
            elem_bytes: e,
        };
        assert_eq!(w.prepared_bytes(), w.original_bytes());
    }
}

#[test]
fn bad_inputs_name_the_layout() {
    let w = PreparedWeights {
        layout: PreparedLayout::MmaTileScales,
        n: 4,
        k: 64,
        bits: 4,
        block_size: 24,
        elem_bytes: 2,
    };
    let e = w.repack(&[0; 24]).unwrap_err().to_string();
    assert!(
        e.contains("mma-tiles:scales") && e.contains("block_size"),
        "{e}"
    );
    let w = PreparedWeights {
        block_size: 32,
        ..w
    };
    let e = w.unpack(&[0; 10]).unwrap_err().to_string();
    assert!(e.contains("prepared tensor holds 10 bytes"), "{e}");
}

#[test]
fn tile_geometry_holds_the_numbers_both_builds_index_with() {
    // N = 17 (two stripes), K = 100 in blocks of 32 (4 blocks, 128 codes: two chunks), 4 bits.
    let w = PreparedWeights {
        layout: PreparedLayout::MmaTileCodes,
        n: 17,
        k: 100,
        bits: 4,
        block_size: 32,
        elem_bytes: 1,
    };
    let g = w.tile_geometry();
    assert_eq!((g.rows, g.k_blocks, g.stripes, g.chunks), (17, 4, 2, 2));
    assert_eq!((g.tile_rows, g.tile_codes), (MMA_TILE_ROWS, MMA_TILE_CODES));
    assert_eq!((g.scales_per_tile_row, g.slot_codes), (2, 32));
    // A tile row is 64 codes of 4 bits (8 words); a MatMulNBits row 4 blobs of 16 bytes.
    assert_eq!((g.tile_row_words, g.source_row_words), (8, 16));
    assert_eq!(4 * g.prepared_words, w.prepared_bytes());
    // Blocks of 128+ codes: one slot per tile row, covering the chunk's 64 codes.
    let big = PreparedWeights {
        block_size: 256,
        layout: PreparedLayout::MmaTileScales,
        elem_bytes: 2,
        ..w
    }
    .tile_geometry();
    assert_eq!(
        (big.scales_per_tile_row, big.slot_codes, big.chunks),
        (1, 64, 4)
    );
    // The kernels' uniform: one u32 per field, declared in the same order.
    let words = g.uniform_words().unwrap();
    let fields = g.fields();
    assert_eq!(words.len(), fields.len());
    for ((name, v), word) in fields.iter().zip(&words) {
        assert_eq!(*v as u32, *word, "{name}");
    }
    let decl = nbits_mlp_core::layout::TileGeometry::wgsl_struct("Geometry");
    let members: Vec<&str> = decl
        .lines()
        .filter_map(|l| l.trim().strip_suffix(": u32,"))
        .collect();
    let names: Vec<&str> = fields.iter().map(|(n, _)| *n).collect();
    assert_eq!(members, names, "{decl}");
    // A copy too large for the kernels' 32-bit indices is an error naming the number.
    let huge = nbits_mlp_core::layout::TileGeometry {
        prepared_words: 1 << 32,
        ..g
    };
    let e = huge.uniform_words().unwrap_err().to_string();
    assert!(e.contains("prepared_words"), "{e}");
}
