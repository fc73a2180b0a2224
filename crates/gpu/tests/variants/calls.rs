//! The calls the tests make: a shape with A of any leading dimensions, seeds, and the
//! reproducible random choices of the sweeps.

use nbits_mlp_core::coverage::CoverageCase;
use nbits_mlp_core::{DType, MlpShape, Tunables};
use nbits_mlp_reference::gen::{generate, Case};
use std::fmt;

/// One call: its shape (A of rank 2 or 3, any leading dimensions) and the seed of its values.
#[derive(Clone, Debug)]
pub struct Call {
    pub shape: MlpShape,
    pub seed: u64,
}

impl Call {
    /// `shape` with A of leading dimensions `lead` (the shape's own are replaced).
    pub fn new(shape: MlpShape, lead: Vec<usize>, seed: u64) -> Call {
        assert!(matches!(lead.len(), 1 | 2), "A has rank 2 or 3");
        Call {
            shape: MlpShape { lead, ..shape },
            seed,
        }
    }
    /// A of shape `[rows, K]`.
    pub fn rank2(shape: MlpShape, seed: u64) -> Call {
        let rows = shape.rows();
        Call::new(shape, vec![rows], seed)
    }
    /// A of shape `[b, rows / b, K]` with `b` the smallest divisor > 1 of `rows` (`[1, rows]` for
    /// a prime, `[2, 0]` for no rows).
    pub fn rank3(shape: MlpShape, seed: u64) -> Call {
        let rows = shape.rows();
        let lead = if rows == 0 {
            vec![2, 0]
        } else {
            let b = (2..rows).find(|d| rows.is_multiple_of(*d)).unwrap_or(1);
            vec![b, rows / b]
        };
        Call::new(shape, lead, seed)
    }
    pub fn rows(&self) -> usize {
        self.shape.rows()
    }
    pub fn shape_with(&self, last: usize) -> Vec<usize> {
        let mut s = self.shape.lead.clone();
        s.push(last);
        s
    }
    /// The generated case.
    pub fn case(&self) -> Case {
        generate(&self.shape, self.seed)
    }
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.shape;
        write!(
            f,
            "{} A{:?} N={} bits={} block={}",
            s.dtype,
            self.shape_with(s.k),
            s.n,
            s.bits,
            s.block_size
        )?;
        for (on, name) in [
            (s.norm, "norm"),
            (s.skip, "skip"),
            (s.residual, "residual"),
            (s.gate_bias, "gate_bias"),
            (s.up_bias, "up_bias"),
        ] {
            if on {
                write!(f, " +{name}")?;
            }
        }
        write!(f, " seed={}", self.seed)
    }
}

/// The shape of a coverage case, which is rank 2.
pub fn shape_of(case: &CoverageCase) -> MlpShape {
    assert_eq!(
        case.shape.lead.len(),
        1,
        "{}: coverage cases are rank 2",
        case.name
    );
    case.shape.clone()
}

/// A seed per check: distinct per test (`test`) and per check within it (`i`).
pub fn seed(test: u64, i: usize) -> u64 {
    test * 1_000_000 + i as u64
}

/// The random sweeps' seed: `NBITS_MLP_FUZZ_SEED` where set (another set of calls), else
/// `default` (the same calls on every run).
pub fn fuzz_seed(default: u64) -> u64 {
    std::env::var("NBITS_MLP_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Tunable overrides.
pub fn overrides(pairs: &[(&str, i64)]) -> Tunables {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// A forced stream-K grid of the tensor-core kernel on prepared weights (`mmap_sk_*`) with 4
/// subgroups (tiles of 64 columns): `cores` x `per_core` workgroups (`SHADER_CORES`,
/// `MMA_SK_PER_CORE`) in groups of one per row tile, tiles of `row_blocks` 16-row blocks,
/// iterations of `fetch_group` chunks of 64 codes, gate and up in turns or together.
#[derive(Clone, Copy, Debug)]
pub struct SkGrid {
    pub cores: i64,
    pub per_core: i64,
    pub row_blocks: i64,
    pub fetch_group: i64,
    pub in_turns: bool,
}

impl SkGrid {
    /// The overrides that plan it (`MMAP_STREAM_K` 2: wherever it applies).
    pub fn tunables(&self) -> Tunables {
        overrides(&[
            ("SHADER_CORES", self.cores),
            ("MMA_SK_PER_CORE", self.per_core),
            ("MMAP_STREAM_K", 2),
            ("MMA_SUBGROUPS", 4),
            ("MMA_ROW_BLOCKS", self.row_blocks),
            ("MMA_FETCH_GROUP", self.fetch_group),
            ("MMA_SEQ_MIN_TILES", if self.in_turns { 0 } else { 65535 }),
        ])
    }

    /// By the kernel's own arithmetic, for a call of `rows` rows, K `k` and N `n`: the row tiles
    /// and, for each group's share after the first, the chunk of its first tile's K where it
    /// starts (0: at a tile's start, no cut). Stream-K applies where the column ranges are at
    /// least the groups.
    pub fn share_starts(&self, rows: usize, k: usize, n: usize) -> (usize, Vec<usize>) {
        let row_tiles = rows.div_ceil(16 * self.row_blocks as usize);
        let ranges = n.div_ceil(64);
        let fg = self.fetch_group as usize;
        let ki = k.div_ceil(64).div_ceil(fg);
        let groups = ((self.cores * self.per_core) as usize / row_tiles).max(1);
        assert!(
            ranges >= groups,
            "{self:?}: {ranges} column ranges, {groups} groups"
        );
        let starts = (1..groups)
            .map(|b| (b * ranges * ki / groups) % ki * fg)
            .collect();
        (row_tiles, starts)
    }

    /// By the kernel's own arithmetic ([`SkGrid::share_starts`]): (tiles cut between two
    /// groups' shares, tiles, groups).
    pub fn cuts(&self, rows: usize, k: usize, n: usize) -> (usize, usize, usize) {
        let (row_tiles, starts) = self.share_starts(rows, k, n);
        let cut = starts.iter().filter(|&&c| c != 0).count();
        (
            cut * row_tiles,
            row_tiles * n.div_ceil(64),
            starts.len() + 1,
        )
    }
}

/// SplitMix64: the few random choices the tests make (shuffles, optional inputs), reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn coin(&mut self) -> bool {
        self.next() >> 63 == 1
    }
    /// `(norm, skip, residual)` of a random call: a norm `1 - 1/one_in` of the time, then skip
    /// half the time with a norm, the residual output half the time with skip.
    pub fn norm_flags(&mut self, one_in: usize) -> (bool, bool, bool) {
        let norm = self.below(one_in) != 0;
        let skip = norm && self.coin();
        let residual = skip && self.coin();
        (norm, skip, residual)
    }
}

/// Cycles through a list, each pass in a new random order: every value comes equally often and
/// meets different values of the other lists.
pub struct Cycle<T> {
    values: Vec<T>,
    order: Vec<usize>,
    pos: usize,
}

impl<T: Clone> Cycle<T> {
    pub fn new(values: &[T]) -> Cycle<T> {
        Cycle {
            values: values.to_vec(),
            order: (0..values.len()).collect(),
            pos: values.len(),
        }
    }
    pub fn next(&mut self, rng: &mut Rng) -> T {
        if self.pos == self.order.len() {
            for i in (1..self.order.len()).rev() {
                let j = rng.below(i + 1);
                self.order.swap(i, j);
            }
            self.pos = 0;
        }
        self.pos += 1;
        self.values[self.order[self.pos - 1]].clone()
    }
}

/// The lists a random sweep draws its calls from (each through a [`Cycle`]): code widths 2/4/8,
/// block sizes 16-128 and both dtypes always; K, N and rows per sweep.
pub struct SpecCycles {
    bits: Cycle<u32>,
    blocks: Cycle<usize>,
    ks: Cycle<usize>,
    ns: Cycle<usize>,
    rows: Cycle<usize>,
    dtypes: Cycle<DType>,
}

impl SpecCycles {
    pub fn new(ks: &[usize], ns: &[usize], rows: &[usize]) -> SpecCycles {
        SpecCycles {
            bits: Cycle::new(&[2, 4, 8]),
            blocks: Cycle::new(&[16, 32, 64, 128]),
            ks: Cycle::new(ks),
            ns: Cycle::new(ns),
            rows: Cycle::new(rows),
            dtypes: Cycle::new(&[DType::F32, DType::F16]),
        }
    }

    /// The next rank-2 call: the next value of every list, norm flags from
    /// [`Rng::norm_flags`]`(norm_one_in)`, each bias half the time.
    pub fn next(&mut self, rng: &mut Rng, norm_one_in: usize) -> MlpShape {
        let (norm, skip, residual) = rng.norm_flags(norm_one_in);
        MlpShape {
            bits: self.bits.next(rng),
            block_size: self.blocks.next(rng),
            k: self.ks.next(rng),
            n: self.ns.next(rng),
            lead: vec![self.rows.next(rng)],
            dtype: self.dtypes.next(rng),
            norm,
            skip,
            residual,
            gate_bias: rng.coin(),
            up_bias: rng.coin(),
        }
    }
}

/// The padded-tile cases `(K, block size, bits)`: K a multiple of 64 whose last block runs past
/// K by a whole 64-code tile or more (K 192 in blocks of 128, K 320 and 384 in blocks of 256),
/// where a kernel must give the padding codes zero activations, and K 256 in blocks of 256 (no
/// padding).
pub const PADDED_TILES: [(usize, usize, u32); 4] =
    [(192, 128, 4), (320, 256, 2), (384, 256, 8), (256, 256, 4)];

/// Case `i` of [`PADDED_TILES`] as a call shape of `n` columns and `rows` rows: form `i`
/// (plain, norm, skip + norm, skip + norm + residual), the gate bias on even `i`, the up bias
/// from `i` = 2.
pub fn padded_tile_shape(i: usize, n: usize, rows: usize, dtype: DType) -> MlpShape {
    let (k, block, bits) = PADDED_TILES[i];
    let mut shape = MlpShape::new(k, n, rows);
    shape.dtype = dtype;
    shape.block_size = block;
    shape.bits = bits;
    (shape.norm, shape.skip, shape.residual) = [
        (false, false, false),
        (true, false, false),
        (true, true, false),
        (true, true, true),
    ][i];
    shape.gate_bias = i.is_multiple_of(2);
    shape.up_bias = i >= 2;
    shape
}

/// A and skip of an f16 call with skip (inputs 0 and 1) made of very different magnitudes: every
/// 509th value near the f16 limit, +65000 or -64000 at random by `seed` (at different places in
/// A and in skip, so that A + skip stays finite in f16), the others scaled by 1e-3, so that most
/// threads of a norm hold only small values.
pub fn wide_magnitudes(case: &mut Case, seed: u64) {
    let mut rng = Rng(seed);
    for input in [0usize, 1] {
        let t = case.inputs[input].as_mut().expect("A and skip are given");
        let mut v = t.to_f32();
        for (j, x) in v.iter_mut().enumerate() {
            *x = if j % 509 == 7 + 200 * input {
                if rng.coin() {
                    65000.0
                } else {
                    -64000.0
                }
            } else {
                *x * 1e-3
            };
        }
        *t = nbits_mlp_core::Tensor::from_f32_as_f16(t.shape.clone(), &v);
    }
}
