//! A matrix of calls that reaches every variant of the project manifest by natural selection,
//! shared by the planner tests, the GPU-free WGSL validation and the GPU tests.
//!
//! The input forms and bias combinations are the `form` and `bias` axes of the overlay's
//! description ([`crate::families`]), the overlay variants' ids are looked up there, and
//! `GEMV_MAX_ROWS`'s default is evaluated from the loaded manifest; what this module states on
//! its own is which family a call should land in (the tests' independent expectation).

use crate::device::DeviceProfile;
use crate::expr::{MapEnv, Value};
use crate::families::Description;
use crate::manifest::Manifest;
use crate::op::MlpShape;
use crate::tensor::DType;
use std::sync::OnceLock;

/// One call and the variant it must select.
#[derive(Clone, Debug)]
pub struct CoverageCase {
    /// Readable case name.
    pub name: String,
    /// The call's shape.
    pub shape: MlpShape,
    /// The variant the planner must choose on a device with enough storage buffers.
    pub expect: String,
}

/// One input form of the description's `form` axis: its name and whether the call has skip,
/// norm_scale and the residual output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Form {
    /// `plain`, `norm`, `skip`, `skipsum`.
    pub name: String,
    /// skip given.
    pub skip: bool,
    /// norm_scale given.
    pub norm: bool,
    /// The residual output requested.
    pub residual: bool,
}

/// One bias combination of the description's `bias` axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bias {
    /// `nogb_noub`, `nogb_ub`, `gb_noub`, `gb_ub`.
    pub name: String,
    /// gate_bias given.
    pub gate: bool,
    /// up_bias given.
    pub up: bool,
}

/// The input forms, in the description's order (flags `skip`, `normed`, `residual`).
pub fn forms() -> Vec<Form> {
    Description::project().axes["form"]
        .values
        .values()
        .map(|v| Form {
            name: v.name.clone(),
            skip: v.sets("skip"),
            norm: v.sets("normed"),
            residual: v.sets("residual"),
        })
        .collect()
}

/// The bias combinations, in the description's order (flags `gb`, `ub`).
pub fn biases() -> Vec<Bias> {
    Description::project().axes["bias"]
        .values
        .values()
        .map(|v| Bias {
            name: v.name.clone(),
            gate: v.sets("gb"),
            up: v.sets("ub"),
        })
        .collect()
}

/// The form and bias of a call.
fn form_and_bias(s: &MlpShape) -> (Form, Bias) {
    let form = forms()
        .into_iter()
        .find(|f| (f.skip, f.norm, f.residual) == (s.skip, s.norm, s.residual))
        .expect("every call's norm inputs are one of the description's forms");
    let bias = biases()
        .into_iter()
        .find(|b| (b.gate, b.up) == (s.gate_bias, s.up_bias))
        .expect("every bias combination is one of the description's");
    (form, bias)
}

/// The id of the overlay variant of `family` for a call's form, bias and dtype (the `dtype`
/// axis, `f16` or `f32`, where the family has one: `gemvp`; axes of the family beyond those
/// take their first value: `split` -> not split).
fn overlay_id(family: &str, s: &MlpShape) -> String {
    let (form, bias) = form_and_bias(s);
    let dtype = match s.dtype {
        DType::F16 => "f16",
        _ => "f32",
    };
    Description::project()
        .variant_id(
            family,
            &[("form", &form.name), ("bias", &bias.name), ("dtype", dtype)],
        )
        .unwrap_or_else(|| {
            panic!(
                "family `{family}` has no variant for {} {}",
                form.name, bias.name
            )
        })
        .to_string()
}

/// The project manifest, loaded once.
fn project_manifest() -> &'static Manifest {
    static M: OnceLock<Manifest> = OnceLock::new();
    M.get_or_init(Manifest::project)
}

/// The most rows the multi-row gemv takes with the default tunables: the manifest's
/// `gemvMaxRows` evaluated for `dtype`.
pub fn gemv_max_rows(dtype: DType) -> usize {
    let m = project_manifest();
    let mut env = MapEnv::default();
    for (name, t) in &m.file.tunables {
        env.paths
            .insert(format!("tunables.{name}"), Value::Int(t.default));
    }
    env.paths
        .insert("tensorDtypes.aT".into(), Value::Str(dtype.name().into()));
    m.derive["gemvMaxRows"]
        .eval_int(&mut env)
        .unwrap_or_else(|e| panic!("gemvMaxRows for {dtype}: {e}")) as usize
}

/// The default row range of the few-rows kernel on prepared weights (`gemvp_*`, float16 models
/// with K a multiple of 8) on a device without cooperative matrices: 2 to the tunable
/// `GEMVP_MAX_ROWS` at its default (with them, the tensor-core kernels take the calls from
/// `MMA_MIN_ROWS`, 7), and one row where [`gemvp_one_row`] says so.
pub fn gemvp_rows() -> std::ops::RangeInclusive<usize> {
    2..=tunable_default("GEMVP_MAX_ROWS")
}

/// Whether the few-rows kernel on prepared weights (`gemvp_*`, float16 models with K a multiple
/// of 8) takes a one-row call by default (tunable `GEMVP_ONE_ROW` 0) instead of the one-row
/// gemv: for 2-bit codes always; for 4- and 8-bit codes unless the gemv's units of 32 codes (K
/// padded to whole blocks, / 32) number 128 or 256, where its workgroups give each thread exactly
/// one unit (K 4096 and 8192); 4-bit codes there in blocks other than 32 take it too. Stated here
/// on its own, as the tests' expectation of the manifest's `gemvpOneRowFaster`.
pub fn gemvp_one_row(bits: u32, k: usize, block_size: usize) -> bool {
    let units = (k.div_ceil(block_size) * block_size).div_ceil(32);
    bits == 2 || !matches!(units, 128 | 256) || (bits == 4 && block_size != 32)
}

/// The default row range of the few-rows kernel's float32 form (`gemvp_f32_*`, float32 models
/// with K a multiple of 8), with or without cooperative matrices: 2 to the tunable
/// `GEMVP_F32_MAX_ROWS` at its default (64), the choice without cooperative matrices (with them
/// the weights-once tensor-core kernels take float32 calls from [`mma_f32_min_rows`], 9, 6 or 5, on;
/// `MMA_F32_MAX_ROWS` caps them, no cap by default, and the older tensor-core kernel `coop_*`
/// takes the rows past a cap).
pub fn gemvp_f32_rows() -> std::ops::RangeInclusive<usize> {
    2..=tunable_default("GEMVP_F32_MAX_ROWS")
}

/// The most bytes of normalised rows (rows per workgroup x K x 2) a workgroup of the one-pass
/// norm forms (`gemvp_fused_*`) holds with their fixed tile (64 x 8, the default where the
/// device does not report its shader cores) at the default of the tunable
/// `GEMVP_FUSED_ROW_BYTES` (0: this with the fixed tile, no cap but the workgroup memory with the
/// one-wave tile; on the H200 more was slower than the two passes with the fixed tile); above,
/// the two passes take the call.
pub const GEMVP_FUSED_ROW_BYTES: usize = 20480;

/// Workgroup storage, in bytes, that a workgroup of the one-pass forms (`gemvp_staged_*` and
/// `gemvp_fused_*`) needs, holding `rg` rows of `k` values, with `cols` invocations along the
/// columns, `slices` slices of K and `lane_cols` columns per invocation: the rows of A (or A_n) in
/// f16 (2 bytes a value), which the slices' f32 sums of gate and up take over after the walk (so
/// the larger of the two, in 16-byte vectors). The norm forms' reduction needs nothing more: its
/// second and third levels go into the same memory where they do not fit beside it
/// ([`gemvp_fused_alias`]). Stated here on its own, as the tests' expectation of the manifest's
/// `gemvpFusedBytes`.
pub fn gemvp_fused_tile_bytes(
    rg: usize,
    k: usize,
    cols: usize,
    slices: usize,
    lane_cols: usize,
) -> usize {
    16 * (rg * k / 8).max((8 * slices * rg * cols * lane_cols).div_ceil(16))
}

/// Whether a workgroup of the one-pass norm forms keeps its reduction's second and third levels
/// (one f32 per row and 32 invocations, and one per row) in the rows' memory rather than beside
/// it (the manifest's `gemvpFusedAlias`): where both would not fit `storage` bytes together.
pub fn gemvp_fused_alias(rg: usize, k: usize, cols: usize, slices: usize, storage: usize) -> bool {
    gemvp_fused_tile_bytes(rg, k, cols, slices, 1) + 4 * rg * ((cols * slices).div_ceil(32) + 1)
        > storage
}

/// What sizes the few-rows kernel's one-wave tiles on a device: the shader cores it reports (the
/// tunable `SHADER_CORES`, read from the driver; the H200 132) and its limits on invocations per
/// workgroup and on workgroup memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaveLimits {
    /// Shader cores (SMs): the one-wave tiles make at most one workgroup per core.
    pub cores: usize,
    /// Invocations per workgroup: the least of `maxComputeInvocationsPerWorkgroup` and
    /// `maxComputeWorkgroupSizeX`.
    pub max_invocations: usize,
    /// Bytes of workgroup memory: `maxComputeWorkgroupStorageSize`.
    pub storage: usize,
}

impl WaveLimits {
    /// `profile`'s limits (WebGPU's defaults where it does not give them, as the planner reads
    /// them) with `cores` shader cores.
    pub fn of(profile: &DeviceProfile, cores: usize) -> WaveLimits {
        let limit = |name: &str| profile.limit(name).unwrap_or(0) as usize;
        WaveLimits {
            cores,
            max_invocations: limit("maxComputeInvocationsPerWorkgroup")
                .min(limit("maxComputeWorkgroupSizeX")),
            storage: limit("maxComputeWorkgroupStorageSize"),
        }
    }
}

/// The default of the tunable `GEMVP_STAGE_MIN_COLS` (96): the fewest columns per workgroup of
/// the one-wave tile at which the plain one pass (`gemvp_staged_*`) takes f16 calls.
pub fn gemvp_stage_min_cols() -> usize {
    tunable_default("GEMVP_STAGE_MIN_COLS")
}

/// The one-pass norm forms' one-wave tile (`GEMVP_FUSED_COLS` and `GEMVP_FUSED_SLICES` at their
/// default, 0, on a device of `limits`) for a float16 call of `rows` rows, `k` values per row
/// and `n` columns: the fewest stripes of 16 columns per workgroup that make at most
/// `limits.cores` workgroups over the row groups (at most `limits.max_invocations` columns), and
/// the fewest K slices that walk K's chunks of 64 in as few rounds as the most slices the
/// invocations allow (up to 16). Whether the tile fits the workgroup memory is the caller's
/// check ([`gemvp_fused_tile_bytes`]). Returns (columns, slices).
/// Stated here on its own, as the tests' expectation of the manifest's `gemvpFusedCols` and
/// `gemvpFusedSlices`.
pub fn gemvp_fused_wave_tile(
    rows: usize,
    k: usize,
    n: usize,
    limits: &WaveLimits,
) -> (usize, usize) {
    wave_tile_of_groups(rows.div_ceil(gemvp_group_rows(rows)), k, n, limits)
}

/// The one-wave tile (columns, slices) of `groups` row groups: [`one_wave_cols`] and as many K
/// slices as the invocations allow, up to 16, evened over K's chunks.
fn wave_tile_of_groups(groups: usize, k: usize, n: usize, limits: &WaveLimits) -> (usize, usize) {
    let cols = one_wave_cols(n, groups, limits);
    (
        cols,
        even_slices(k, (limits.max_invocations / cols).min(16)),
    )
}

/// The plain one pass's (`gemvp_staged_*`) rows per workgroup and one-wave tile for a float16
/// call of `rows` rows, `k` values per row and `n` columns on a device of `limits`, with the
/// tunable `GEMVP_STAGE_MIN_COLS` at `min_cols` ([`gemvp_stage_min_cols`] by default): 6 rows in
/// one group where that group's tile has at least `min_cols` columns and its
/// [`gemvp_fused_tile_bytes`] fit `limits.storage` (the manifest's `gemvpStagedSix`), else
/// [`gemvp_group_rows`] with [`gemvp_fused_wave_tile`]. Returns (rows per workgroup, columns,
/// slices). Whether the staged form then takes the call is the caller's check (the tile's
/// columns against `min_cols`, its bytes against `limits.storage`).
pub fn gemvp_staged_wave_tile(
    rows: usize,
    k: usize,
    n: usize,
    limits: &WaveLimits,
    min_cols: usize,
) -> (usize, usize, usize) {
    if rows == 6 && min_cols > 0 {
        let (cols, slices) = wave_tile_of_groups(1, k, n, limits);
        if cols >= min_cols && gemvp_fused_tile_bytes(6, k, cols, slices, 1) <= limits.storage {
            return (6, cols, slices);
        }
    }
    let (cols, slices) = gemvp_fused_wave_tile(rows, k, n, limits);
    (gemvp_group_rows(rows), cols, slices)
}

/// The one-wave tile's columns per workgroup (both forms): the fewest stripes of 16 that make at
/// most `limits.cores` workgroups over `groups` row groups of `n` columns, at most
/// `limits.max_invocations`.
fn one_wave_cols(n: usize, groups: usize, limits: &WaveLimits) -> usize {
    (16 * (n.div_ceil(16) * groups).div_ceil(limits.cores))
        .min(16 * (limits.max_invocations / 16).max(1))
}

/// The fewest K slices that walk the chunks of 64 of a row of `k` values in as few rounds as
/// `most` slices would.
fn even_slices(k: usize, most: usize) -> usize {
    let chunks = k.div_ceil(64);
    chunks.div_ceil(chunks.div_ceil(most))
}

/// The float32 form's one-wave tile (`GEMVP_COLS` and `GEMVP_SLICES` at their default, 0, on a
/// device of `limits`) for a float32 call of `rows` rows, `k` values per row and `n`
/// columns, where it applies (2-8 rows: in one workgroup but 6 rows in two of 3 and 8 in two of 4;
/// `None` elsewhere, or where one slice's sums would not fit or a slice would walk more than 32 of
/// K's chunks of 64): the fewest stripes of 16 columns per workgroup that make at most `cores`
/// workgroups over the row groups, and as many K slices as the invocations and the slices' sums
/// (8 bytes per slice, row of the group and column) allow, up to 16, evened over K's chunks of 64.
/// Returns (rows per workgroup, columns, slices). Stated here on its own, as the tests'
/// expectation of the manifest's `gemvpF32WaveCols` and `gemvpF32WaveSlices`.
pub fn gemvp_f32_wave_tile(
    rows: usize,
    k: usize,
    n: usize,
    limits: &WaveLimits,
) -> Option<(usize, usize, usize)> {
    let rg = match rows {
        2..=5 | 7 => rows,
        6 => 3,
        8 => 4,
        _ => return None,
    };
    let cols = one_wave_cols(n, rows.div_ceil(rg), limits);
    if 8 * rg * cols > limits.storage {
        return None;
    }
    let most = (limits.max_invocations / cols)
        .min(limits.storage / (8 * rg * cols))
        .clamp(1, 16);
    let slices = even_slices(k, most);
    (k.div_ceil(64).div_ceil(slices) <= 32).then_some((rg, cols, slices))
}

/// [`gemvp_fused_tile_bytes`] for a float16 call of `rows` rows and `k` values per row with the
/// fixed tile (the default tunables on a device that does not report its shader cores):
/// [`gemvp_group_rows`] rows per workgroup, 64 columns x 8 slices, one column per invocation.
pub fn gemvp_fused_bytes(rows: usize, k: usize) -> usize {
    gemvp_fused_tile_bytes(gemvp_group_rows(rows), k, 64, 8, 1)
}

/// Whether the tensor-core kernels' 16-row tile of a float16 call of `k` values per row and `n`
/// columns, at the default tunables on a device reporting `cores` shader cores, has a short grid
/// (the manifest's `mmaGridShort`): its column ranges (7 subgroups of 16 columns where that still
/// makes 128 ranges, else 8) split K (the slices that make about 128 workgroups, at most one per
/// 4 chunks of 64), or their last wave of `cores` is at most three quarters full. Where it
/// holds and the tile does not run in subgroup pairs, the few-rows kernel takes 7-8 rows too
/// (`mmaMinRows` 9).
pub fn mma_grid_short(k: usize, n: usize, cores: usize) -> bool {
    let cols = if n.div_ceil(112) >= 128 { 112 } else { 128 };
    let tiles = n.div_ceil(cols);
    let chunks = k.div_ceil(64);
    let wanted = (128 / tiles).max(1).min((chunks / 4).max(1));
    let split = chunks.div_ceil(chunks.div_ceil(wanted));
    grid_short(tiles, split, cores)
}

/// The manifest's `mmaGridShort` given the tile's workgroups (`tiles`), its K slices and the
/// device's shader cores (0: unknown, never short): K split, or the last wave of `cores` at
/// most three quarters full.
fn grid_short(tiles: usize, split: usize, cores: usize) -> bool {
    let last = if cores > 0 { tiles % cores } else { 0 };
    cores > 0 && (split > 1 || (last > 0 && 4 * last <= 3 * cores))
}

/// Whether the tensor-core kernels' 16-row tile of a float32 call of `k` values per row and `n`
/// columns, at the default tunables on a device reporting `cores` shader cores and 48 KiB of
/// workgroup memory, has a short grid (the manifest's `mmaGridShort` for float32 calls): its
/// column ranges of 112 (7 subgroups) split K (the 1-4 slices whose workgroups make the fewest
/// waves per slice, the fewest on a tie, at most one per 4 chunks of 64), or their last wave of
/// `cores` is at most three quarters full.
pub fn mma_f32_grid_short(k: usize, n: usize, cores: usize) -> bool {
    if cores == 0 {
        return false;
    }
    let tiles = n.div_ceil(112);
    let chunks = k.div_ceil(64);
    // Cost of s slices in twelfths of a slice's waves: (12 / s) * ceil(s * tiles / cores).
    let cost = |s: usize| (12 / s) * (s * tiles).div_ceil(cores);
    let best = (1..=4).min_by_key(|&s| (cost(s), s)).unwrap();
    let wanted = best.min((chunks / 4).max(1));
    let split = chunks.div_ceil(chunks.div_ceil(wanted));
    grid_short(tiles, split, cores)
}

/// The fewest rows of a float32 call the weights-once tensor-core kernels take at the default
/// tunables (the manifest's `mmaF32MinRows`, `MMA_F32_MIN_ROWS` 0) for `bits`-bit codes on a
/// device reporting `cores` shader cores (0: unknown): where the tile's grid is not short
/// ([`mma_f32_grid_short`]; its units of 64 / 128 codes flush the float32 sums less often than
/// blocks of 32 do) 5 for 4- and 8-bit codes in blocks of 128 or more, 6 for the rest in blocks
/// of 64 or more; else 9. Below it the few-rows kernel's float32 form takes them.
pub fn mma_f32_min_rows(k: usize, n: usize, bits: u32, block_size: usize, cores: usize) -> usize {
    if block_size < 64 || cores == 0 || mma_f32_grid_short(k, n, cores) {
        9
    } else if block_size >= 128 && bits >= 4 {
        5
    } else {
        6
    }
}

/// Rows per workgroup of the few-rows kernel for a float16 call of `rows` rows at the default
/// tunables: up to 8, 6 rows in two groups of 3 (but the plain one pass's 6 rows in one group
/// where its one-wave tile fits: [`gemvp_staged_wave_tile`]).
pub fn gemvp_group_rows(rows: usize) -> usize {
    if rows == 6 {
        3
    } else {
        rows.min(8)
    }
}

/// Whether the one-pass norm forms (`gemvp_fused_*`) take a float16 norm call of `rows` rows
/// and `k` values per row at the default tunables on a device with `storage` bytes of
/// workgroup memory that does not report its shader cores (the fixed tile): the workgroup's
/// normalised rows at most [`GEMVP_FUSED_ROW_BYTES`] and
/// [`gemvp_fused_bytes`] within `storage`.
pub fn gemvp_fused_takes(rows: usize, k: usize, storage: usize) -> bool {
    2 * gemvp_group_rows(rows) * k <= GEMVP_FUSED_ROW_BYTES && gemvp_fused_bytes(rows, k) <= storage
}

/// The workgroup storage of the devices [`project_expect`] assumes: 48 KiB (the `discrete-gpu`
/// profile's; [`gemvp_fused_matrix`]'s calls fit lavapipe's 32 KiB too).
pub const PROJECT_EXPECT_STORAGE: usize = 49152;

/// The default of one of the project manifest's tunables.
fn tunable_default(name: &str) -> usize {
    project_manifest()
        .file
        .tunables
        .get(name)
        .unwrap_or_else(|| panic!("the overlay declares {name}"))
        .default as usize
}

/// Every variant of the seed manifest, each reached by at least one case (rows 1 with a
/// non-vector blob for `fused_*`; rows 1 with a vector blob and rows 9 for `staged_*`; rows 7
/// for `plain_*`). `fused_skipsum_gb_ub` does not exist: that case selects the staged variant.
pub fn variant_matrix(dtype: DType) -> Vec<CoverageCase> {
    let mut out = Vec::new();
    for b in biases() {
        let bias = &b.name;
        for f in forms() {
            let base = |k: usize, n: usize, rows: usize, bits: u32, block: usize| MlpShape {
                k,
                n,
                lead: vec![rows],
                dtype,
                bits,
                block_size: block,
                skip: f.skip,
                norm: f.norm,
                residual: f.residual,
                gate_bias: b.gate,
                up_bias: b.up,
            };
            let norm_name = &f.name;
            if !f.norm {
                out.push(CoverageCase {
                    name: format!("{norm_name} rows 7 {bias}"),
                    shape: base(93, 37, 7, 4, 32),
                    expect: format!("plain_{bias}"),
                });
                out.push(CoverageCase {
                    name: format!("{norm_name} rows 1 {bias}"),
                    shape: base(128, 40, 1, 4, 32),
                    expect: format!("plain_{bias}"),
                });
                continue;
            }
            let staged = format!("staged_{norm_name}_{bias}");
            out.push(CoverageCase {
                name: format!("{norm_name} rows 9 {bias}"),
                shape: base(93, 37, 9, 4, 32),
                expect: staged.clone(),
            });
            out.push(CoverageCase {
                name: format!("{norm_name} rows 1 vec-blob {bias}"),
                shape: base(256, 40, 1, 4, 32),
                expect: staged.clone(),
            });
            let fused = if f.residual && b.gate && b.up {
                staged
            } else {
                format!("fused_{norm_name}_{bias}")
            };
            out.push(CoverageCase {
                name: format!("{norm_name} rows 1 small-blob {bias}"),
                shape: base(100, 37, 1, 4, 16),
                expect: fused,
            });
        }
    }
    out
}

/// The variant the project manifest (seed + overlay) chooses for a case, with the default
/// tunables, on a device with enough workgroup storage and storage buffers for the overlay's
/// variants, for calls whose padded K is a multiple of 32 (blocks of 16 or more): `gemv_*` take
/// single rows (the float16 norm forms `gemv_fused_*`, one pass with an inline RMSNorm),
/// `gemvp_*` float16 calls of [`gemvp_rows`] rows with K a multiple of 8 (their norm forms in one
/// pass, `gemvp_fused_*`, where [`gemvp_fused_takes`] them with [`PROJECT_EXPECT_STORAGE`];
/// `gemvp_f32_*` float32 calls of [`gemvp_f32_rows`] rows, likewise), `gemvr_*` other calls
/// of 2 to [`gemv_max_rows`] rows; `tiled_*` take every other call of two rows or more; other
/// single rows keep the seed's choice. (That is the choice without cooperative matrices: with
/// them the tensor-core families take float16 calls from 7 rows.)
pub fn project_expect(case: &CoverageCase) -> String {
    project_expect_with(case, case.shape.dtype == DType::F16)
}

/// [`project_expect`] with the tunable `GEMV_INLINE_NORM` on (1) or off (0) rather than its
/// default (2: on for float16 models): off, single-row norm forms take the two-pass `gemv_norm_*`,
/// `gemv_skip_*` and `gemv_skipsum_*` (the seed's RMSNorm pass, then the gemv).
pub fn project_expect_with(case: &CoverageCase, inline_norm: bool) -> String {
    expect(case, inline_norm, true)
}

/// [`project_expect_with`] with the tunable `GEMVP_ONE_ROW` 1: single rows on the gemv (the
/// few-rows kernel takes no one-row call).
pub fn project_expect_gemv(case: &CoverageCase, inline_norm: bool) -> String {
    expect(case, inline_norm, false)
}

/// What [`project_expect_with`] and [`project_expect_gemv`] say: `one_row_rule` is whether the
/// few-rows kernel takes the one-row calls [`gemvp_one_row`] names.
fn expect(case: &CoverageCase, inline_norm: bool, one_row_rule: bool) -> String {
    let s = &case.shape;
    let padded_k = s.k.div_ceil(s.block_size) * s.block_size;
    let gemv_k = padded_k.is_multiple_of(32) && s.block_size.is_multiple_of(16);
    let gemvp_range = if s.dtype == DType::F16 {
        gemvp_rows()
    } else {
        gemvp_f32_rows()
    };
    let one_row = one_row_rule
        && s.dtype == DType::F16
        && s.rows() == 1
        && gemvp_one_row(s.bits, s.k, s.block_size);
    if s.k.is_multiple_of(8) && (gemvp_range.contains(&s.rows()) || one_row) {
        if s.dtype == DType::F16
            && s.norm
            && gemvp_fused_takes(s.rows(), s.k, PROJECT_EXPECT_STORAGE)
        {
            return overlay_id("gemvp_fused", s);
        }
        return overlay_id("gemvp", s);
    }
    if (2..=gemv_max_rows(s.dtype)).contains(&s.rows()) && gemv_k {
        return overlay_id("gemvr", s);
    }
    if s.rows() >= 2 {
        return overlay_id("tiled", s);
    }
    if s.rows() == 1 && gemv_k {
        if inline_norm && s.norm {
            return overlay_id("gemv_fused", s);
        }
        return overlay_id("gemv", s);
    }
    case.expect.clone()
}

/// Calls that reach each `coop_*` variant (cooperative matrices; f16, 16 rows or more; one
/// per form and bias) on a device with `coop-f16-16x16x16-f32` and `subgroup-size-32`, at
/// awkward sizes: rows not a multiple of the 32-, 64- or 128-row tile (each tile size reached),
/// N not a multiple of the 64 or 128 columns, K a partial block and not a multiple of the
/// 32-code chunk (once not even of a u32 word's codes), each code width. On other devices the
/// same calls take `tiled_*`.
pub fn coop_matrix() -> Vec<CoverageCase> {
    // (K, N, rows, bits, block_size)
    family_matrix(
        "coop",
        &[
            (200, 150, 19, 4, 32),
            (100, 37, 70, 4, 16),
            (96, 130, 16, 2, 64),
            (72, 200, 33, 8, 32),
        ],
    )
}

/// One f16 call per form and bias combination (biases outer, forms inner) for the unsplit
/// variants of `family`, cycling through `shapes` `(K, N, rows, bits, block_size)`.
fn family_matrix(family: &str, shapes: &[(usize, usize, usize, u32, usize)]) -> Vec<CoverageCase> {
    family_matrix_of(family, DType::F16, shapes)
}

/// [`family_matrix`] for calls of `dtype`.
fn family_matrix_of(
    family: &str,
    dtype: DType,
    shapes: &[(usize, usize, usize, u32, usize)],
) -> Vec<CoverageCase> {
    family_matrix_forms(family, dtype, &forms(), shapes)
}

/// [`family_matrix_of`] over the forms `forms` only (for families without every form).
fn family_matrix_forms(
    family: &str,
    dtype: DType,
    forms: &[Form],
    shapes: &[(usize, usize, usize, u32, usize)],
) -> Vec<CoverageCase> {
    let mut out = Vec::new();
    let mut i = 0;
    for b in biases() {
        for f in forms {
            let (k, n, rows, bits, block_size) = shapes[i % shapes.len()];
            i += 1;
            let shape = MlpShape {
                k,
                n,
                lead: vec![rows],
                dtype,
                bits,
                block_size,
                skip: f.skip,
                norm: f.norm,
                residual: f.residual,
                gate_bias: b.gate,
                up_bias: b.up,
            };
            let dt = if dtype == DType::F16 { "" } else { " f32" };
            out.push(CoverageCase {
                name: format!(
                    "{family}{dt} {} rows {rows} K {k} N {n} bits {bits} {}",
                    f.name, b.name
                ),
                expect: overlay_id(family, &shape),
                shape,
            });
        }
    }
    out
}

/// Calls that reach each of the overlay's 16 `gemvp_*` variants (a few rows of a float16 model
/// on the prepared `mma-tiles` weights, one invocation per column; [`gemvp_rows`] rows by
/// default) on a device with `shader-f16` and without cooperative matrices (with them, where
/// `MMA_MIN_ROWS` is above the rows), at awkward sizes: one row (K 264: [`gemvp_one_row`]), rows
/// that do not fill the 8-row groups (2, 3, 7, 9, 16), N not a multiple of the 16 columns of a
/// workgroup nor of the 16-row stripes (padded stripes), K not a multiple of the 64-code tiles
/// nor of the block, weight rows
/// that are not whole 16-byte vectors (K 200 with 2 bits in blocks of 16, K 104 with 4 bits in
/// blocks of 16), fewer 64-code tiles than slices (K 72), each code width, blocks of 16 to 256
/// (a block spanning several tiles).
pub fn gemvp_matrix() -> Vec<CoverageCase> {
    // (K, N, rows, bits, block_size)
    family_matrix(
        "gemvp",
        &[
            (264, 40, 1, 4, 64),
            (200, 150, 9, 4, 32),
            (200, 130, 3, 2, 16),
            (72, 200, 16, 8, 32),
            (136, 300, 2, 4, 128),
            (104, 17, 7, 4, 16),
            (520, 33, 12, 2, 256),
        ],
    )
}

/// Calls that reach each of the overlay's 12 `gemvp_fused_*` variants (the few-rows kernel's
/// norm forms of float16 calls in one pass, each workgroup normalising its rows into workgroup
/// memory; [`gemvp_rows`] rows by default, where [`gemvp_fused_takes`] them) on a
/// device with `shader-f16` and 32 KiB of workgroup storage (with cooperative matrices, where
/// `MMA_MIN_ROWS` is above the rows), at awkward sizes: 1 to 7 rows (one row of 2-bit codes, K
/// 3080; 6 in two groups of 3; at 8 rows a group's sums and rows take more than 32 KiB), N not a
/// multiple of the 64 columns of a workgroup nor of the 16-row stripes, K a multiple of 8 but
/// not of the 64-code tiles nor of the block (K 200, 104, 72: fewer tiles than slices), K not a
/// multiple of 8 x 256 invocations (so some threads normalise one vector more than others, K 1032
/// with 3 rows) and a multiple of 64 (no bound check, K 256), each code width, blocks of 16 to
/// 256.
pub fn gemvp_fused_matrix() -> Vec<CoverageCase> {
    let normed: Vec<Form> = forms().into_iter().filter(|f| f.norm).collect();
    // (K, N, rows, bits, block_size)
    family_matrix_forms(
        "gemvp_fused",
        DType::F16,
        &normed,
        &[
            (200, 150, 7, 4, 32),
            (200, 130, 3, 2, 16),
            (72, 200, 5, 8, 32),
            (1032, 33, 3, 4, 128),
            (104, 17, 6, 4, 16),
            (256, 40, 4, 8, 256),
            (520, 300, 2, 2, 64),
            (3080, 100, 1, 2, 32),
        ],
    )
}

/// Tunables under which [`gemvp_staged_matrix`]'s calls take the plain forms with their rows
/// staged (`gemvp_staged_*`) on any device with `shader-f16` (without cooperative matrices, or
/// with them below `MMA_MIN_ROWS`, and within lavapipe's 32 KiB of workgroup memory): a device
/// of four shader cores (`SHADER_CORES` 4, so the one-wave tile gives each workgroup a quarter
/// of the columns) and the staging from 16 columns (`GEMVP_STAGE_MIN_COLS`). By default only
/// devices that report their shader cores stage, and only tiles of 96 columns or more.
pub const GEMVP_STAGED_TUNABLES: [(&str, i64); 2] =
    [("SHADER_CORES", 4), ("GEMVP_STAGE_MIN_COLS", 16)];

/// Calls that reach each of the overlay's 4 `gemvp_staged_*` variants (the plain forms of the
/// few-rows kernel with each workgroup's rows of A in workgroup memory) under
/// [`GEMVP_STAGED_TUNABLES`], at awkward sizes as [`gemvp_fused_matrix`]'s: one row (K 256)
/// and rows that do not fill a group (2, 5, 7), N not a multiple of 16, K not a multiple of the
/// tiles nor of the block, fewer tiles than slices, each code width, blocks of 16 to 256.
pub fn gemvp_staged_matrix() -> Vec<CoverageCase> {
    let plain: Vec<Form> = forms().into_iter().filter(|f| !f.norm).collect();
    // (K, N, rows, bits, block_size)
    family_matrix_forms(
        "gemvp_staged",
        DType::F16,
        &plain,
        &[
            (200, 150, 7, 4, 32),
            (72, 33, 2, 2, 16),
            (1032, 200, 5, 8, 128),
            (256, 17, 1, 4, 256),
        ],
    )
}

/// Calls that reach each of the overlay's 16 `gemvp_f32_*` variants (the few-rows kernel's
/// float32 form for float32 models; [`gemvp_f32_rows`] rows by default) on any device with the
/// workgroup size and storage (no `shader-f16` needed), with or without cooperative matrices,
/// at awkward sizes: rows that do not fill the 8-row groups (2, 3, 5, 7, 9, 12, 15), N not a
/// multiple of the 16 columns of a workgroup nor of the 16-row stripes, K a multiple of 8 but
/// not of the 64-code tiles nor of the block, and once a multiple of 64 (no bound check
/// rendered), weight rows that are not whole 16-byte vectors, fewer 64-code tiles than slices
/// (K 72), each code width, blocks of 16 to 256.
pub fn gemvp_f32_matrix() -> Vec<CoverageCase> {
    // (K, N, rows, bits, block_size)
    family_matrix_of(
        "gemvp",
        DType::F32,
        &[
            (200, 150, 9, 4, 32),
            (200, 130, 3, 2, 16),
            (72, 200, 15, 8, 32),
            (136, 300, 2, 4, 128),
            (104, 17, 7, 4, 16),
            (520, 33, 12, 2, 256),
            (256, 40, 5, 8, 64),
        ],
    )
}

/// Calls that reach each of the overlay's 16 unsplit `mma_*` variants (the tensor-core kernel
/// that reads the weights once per row tile; f16, 7 rows or more by default) on a device with
/// `coop-f16-16x16x16-f32` and `subgroup-size-32`, at awkward sizes: rows not a multiple of the
/// 16-row blocks (one block to four), N not a multiple of a workgroup's 64 or 128 columns nor
/// of a subgroup's 16, K not a multiple of the 64-code chunk and a partial last block, each code
/// width, blocks of 16 to 128 (two scales per 16-byte segment for 4 bits in blocks of 16, four
/// for 2 bits). On devices without cooperative matrices the same calls take what
/// [`project_expect`] says.
pub fn mma_matrix() -> Vec<CoverageCase> {
    // (K, N, rows, bits, block_size)
    family_matrix(
        "mma",
        &[
            (200, 150, 19, 4, 32),
            (120, 130, 9, 2, 16),
            (72, 200, 33, 8, 32),
            (136, 300, 64, 4, 128),
            (256, 40, 10, 4, 16),
            (328, 17, 50, 2, 64),
        ],
    )
}

/// Calls that reach each of the overlay's 16 unsplit `mmap_*` variants (the `mma` kernel on
/// prepared weights, `core::layout`'s `mma-tiles`; f16, 7 to `MMAP_MAX_ROWS` rows, no limit by
/// default) on a device with `coop-f16-16x16x16-f32` and `subgroup-size-32`, at awkward sizes:
/// N not a multiple of the 16-row stripes (padded stripes), K not a multiple of the 64-code
/// tiles nor of the block, weight rows that are not whole 16-byte vectors (which `mma_*`
/// cannot read and the prepared layout pads: K 200 with 2 bits in blocks of 16, K 104 with 4
/// bits in blocks of 16), each code width, blocks of 16 to 256 (a block spanning several
/// tiles). Rows 9 to 32 (one and two 16-row blocks).
pub fn mmap_matrix() -> Vec<CoverageCase> {
    // (K, N, rows, bits, block_size)
    family_matrix(
        "mmap",
        &[
            (200, 150, 19, 4, 32),
            (200, 130, 9, 2, 16),
            (72, 200, 32, 8, 32),
            (136, 300, 13, 4, 128),
            (104, 17, 24, 4, 16),
            (520, 33, 31, 2, 256),
        ],
    )
}

/// Calls that reach each of the overlay's 16 unsplit `mmal_*` variants (the large-tile
/// tensor-core kernel; f16, from `MMAL_MIN_ROWS` rows, which is 0 = off by default: callers set
/// it) on a device with `coop-f16-16x16x16-f32` and `subgroup-size-32`, at awkward sizes: rows
/// around the 16-row blocks and the 64- and 128-row tiles (one block to two tiles and a bit),
/// N not a multiple of a workgroup's 64 columns nor of a subgroup's 32 or a block's 16, K not a
/// multiple of the 32-code chunk and a partial last block (8 bits: the last chunk runs past the
/// weight row), each code width (2 bits: two chunks per 16-byte vector), blocks of 16 to 128
/// (two scales per chunk for blocks of 16).
pub fn mmal_matrix() -> Vec<CoverageCase> {
    // (K, N, rows, bits, block_size)
    family_matrix(
        "mmal",
        &[
            (200, 150, 70, 4, 32),
            (120, 130, 33, 2, 16),
            (72, 200, 129, 8, 32),
            (136, 300, 64, 4, 128),
            (256, 40, 19, 4, 16),
            (328, 17, 130, 2, 64),
            (208, 45, 200, 8, 16),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_come_from_the_description_and_the_manifest() {
        let names: Vec<String> = forms().into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["plain", "norm", "skip", "skipsum"]);
        let skipsum = &forms()[3];
        assert!(skipsum.skip && skipsum.norm && skipsum.residual);
        assert_eq!(
            biases()[2],
            Bias {
                name: "gb_noub".into(),
                gate: true,
                up: false
            }
        );
        // The multi-row gemv takes exactly up to gemv_max_rows rows with the default tunables
        // (on a device without cooperative matrices, and with the few-rows kernel on prepared
        // weights off: else `mma_*` takes f16 calls from 7 rows, see mma_matrix, and `gemvp_*`
        // f16 calls of gemvp_rows rows, below).
        let planner = crate::Planner::project(
            crate::DeviceProfile::discrete_gpu().without_feature("coop-f16-16x16x16-f32"),
        );
        let no_gemvp: crate::Tunables = [
            ("GEMVP_MAX_ROWS".to_string(), 0),
            ("GEMVP_F32_MAX_ROWS".to_string(), 0),
        ]
        .into();
        for dtype in [DType::F16, DType::F32] {
            let max = gemv_max_rows(dtype);
            assert!(max >= 2, "{dtype}: {max}");
            for (rows, gemvr) in [(max, true), (max + 1, false)] {
                let mut s = MlpShape::new(256, 64, rows);
                s.dtype = dtype;
                let v = planner.plan(&s.call(), &no_gemvp).unwrap().variant.clone();
                assert_eq!(v.starts_with("gemvr_"), gemvr, "{dtype} rows {rows}: {v}");
            }
        }
        // The few-rows kernel takes exactly gemvp_rows rows of f16 models (without cooperative
        // matrices; with them, 2-6 rows) in its f16 form, and exactly gemvp_f32_rows rows of f32
        // models in its float32 form.
        assert_eq!(gemvp_f32_rows(), 2..=64);
        for (dtype, range, prefix) in [
            (DType::F16, gemvp_rows(), "gemvp_"),
            (DType::F32, gemvp_f32_rows(), "gemvp_f32_"),
        ] {
            for rows in [
                *range.start() - 1,
                *range.start(),
                *range.end(),
                range.end() + 1,
            ] {
                let mut s = MlpShape::new(256, 64, rows);
                s.dtype = dtype;
                let v = planner
                    .plan(&s.call(), &Default::default())
                    .unwrap()
                    .variant
                    .clone();
                // One row of K 256 (8 units of 32 codes): the few-rows kernel for f16 models.
                let want = range.contains(&rows)
                    || (dtype == DType::F16
                        && rows == 1
                        && gemvp_one_row(s.bits, s.k, s.block_size));
                assert_eq!(v.starts_with("gemvp_"), want, "{dtype} rows {rows}: {v}");
                assert_eq!(v.starts_with(prefix), want, "{dtype} rows {rows}: {v}");
                assert!(!(dtype == DType::F16 && v.starts_with("gemvp_f32_")), "{v}");
            }
        }
        // One row: the few-rows kernel where gemvp_one_row says (K 4096 and 8192 keep the gemv
        // at 8 bits and at 4 bits in blocks of 32, 2-bit codes take the few-rows kernel at every
        // K), the gemv elsewhere, and GEMVP_ONE_ROW 1 / 2 (never / wherever it applies) as they
        // say; f32 models keep the gemv.
        for (k, bits, block) in [
            (4096, 4, 32),
            (4096, 8, 32),
            (4096, 2, 32),
            (8192, 4, 32),
            (4064, 4, 32),
            (2048, 4, 32),
            (3584, 8, 32),
            (16384, 4, 32),
            (16384, 8, 32),
            (4096, 4, 128),
            (4064, 8, 128),
            (8192, 4, 16),
        ] {
            let mut s = MlpShape::new(k, 64, 1);
            s.dtype = DType::F16;
            s.bits = bits;
            s.block_size = block;
            for (t, want) in [
                (0, gemvp_one_row(bits, k, s.block_size)),
                (1, false),
                (2, true),
            ] {
                let tunables: crate::Tunables = [("GEMVP_ONE_ROW".to_string(), t)].into();
                let v = planner.plan(&s.call(), &tunables).unwrap().variant.clone();
                assert_eq!(
                    v.starts_with("gemvp_"),
                    want,
                    "K {k} bits {bits} block {block} GEMVP_ONE_ROW {t}: {v}"
                );
                assert_eq!(
                    v.starts_with("gemv_"),
                    !want,
                    "K {k} bits {bits} block {block}: {v}"
                );
            }
            s.dtype = DType::F32;
            let v = planner
                .plan(&s.call(), &Default::default())
                .unwrap()
                .variant
                .clone();
            assert!(v.starts_with("gemv_"), "f32 K {k} bits {bits}: {v}");
        }
        assert!(!gemvp_one_row(4, 4096, 32) && !gemvp_one_row(8, 8192, 128));
        assert!(!gemvp_one_row(8, 4064, 128) && !gemvp_one_row(8, 4096, 16));
        assert!(gemvp_one_row(2, 4096, 32) && gemvp_one_row(4, 4064, 32));
        assert!(gemvp_one_row(4, 2048, 32) && gemvp_one_row(4, 16384, 32));
        assert!(gemvp_one_row(8, 16384, 32) && gemvp_one_row(8, 2048, 64));
        assert!(gemvp_one_row(4, 4096, 64) && gemvp_one_row(4, 8192, 16));
        // Every gemvp variant is reached once by gemvp_matrix (f16) and gemvp_f32_matrix (f32),
        // and those are all of the family's 32.
        let gemvp: std::collections::BTreeSet<String> =
            gemvp_matrix().into_iter().map(|c| c.expect).collect();
        assert_eq!(gemvp.len(), 16, "{gemvp:?}");
        assert!(
            gemvp.iter().all(|v| !v.starts_with("gemvp_f32_")),
            "{gemvp:?}"
        );
        let gemvp_f32: std::collections::BTreeSet<String> =
            gemvp_f32_matrix().into_iter().map(|c| c.expect).collect();
        assert_eq!(gemvp_f32.len(), 16, "{gemvp_f32:?}");
        assert!(
            gemvp_f32.iter().all(|v| v.starts_with("gemvp_f32_")),
            "{gemvp_f32:?}"
        );
        let family: std::collections::BTreeSet<String> = Description::project()
            .family_variants("gemvp")
            .map(|g| g.id.clone())
            .collect();
        assert_eq!(
            family,
            gemvp.union(&gemvp_f32).cloned().collect(),
            "the gemvp family's variants"
        );
        // The one pass's tile and cap are the manifest's rules by default (0), which the planner
        // tests hold to GEMVP_FUSED_ROW_BYTES and gemvp_fused_wave_tile.
        for name in [
            "GEMVP_FUSED_ROW_BYTES",
            "GEMVP_FUSED_COLS",
            "GEMVP_FUSED_SLICES",
        ] {
            assert_eq!(tunable_default(name), 0, "{name}");
        }
        // Every gemvp_fused variant is reached once by gemvp_fused_matrix (whose calls fit
        // lavapipe's 32 KiB), and those are all of the family's 12.
        let fused: std::collections::BTreeSet<String> = gemvp_fused_matrix()
            .into_iter()
            .inspect(|c| {
                assert!(
                    gemvp_fused_takes(c.shape.rows(), c.shape.k, 32768),
                    "{}",
                    c.name
                );
                assert_eq!(project_expect(c), c.expect, "{}", c.name);
            })
            .map(|c| c.expect)
            .collect();
        let family: std::collections::BTreeSet<String> = Description::project()
            .family_variants("gemvp_fused")
            .map(|g| g.id.clone())
            .collect();
        assert_eq!(family.len(), 12, "{family:?}");
        assert_eq!(fused, family, "the gemvp_fused family's variants");
        // Every gemvp_staged variant is reached once by gemvp_staged_matrix (with its
        // tunables; by default `project_expect`'s devices report no shader cores: `gemvp`), and
        // those are all of the family's 4.
        let staged: std::collections::BTreeSet<String> = gemvp_staged_matrix()
            .into_iter()
            .inspect(|c| {
                assert!(c.expect.starts_with("gemvp_staged_"), "{}", c.name);
                assert!(project_expect(c).starts_with("gemvp_plain_"), "{}", c.name);
            })
            .map(|c| c.expect)
            .collect();
        let family: std::collections::BTreeSet<String> = Description::project()
            .family_variants("gemvp_staged")
            .map(|g| g.id.clone())
            .collect();
        assert_eq!(family.len(), 4, "{family:?}");
        assert_eq!(staged, family, "the gemvp_staged family's variants");
        assert_eq!(tunable_default("GEMVP_STAGE_MIN_COLS"), 96);
        // Every coop variant that is not split is reached once.
        let coop: std::collections::BTreeSet<String> =
            coop_matrix().into_iter().map(|c| c.expect).collect();
        let whole: std::collections::BTreeSet<String> = Description::project()
            .family_variants("coop")
            .filter(|g| !g.flags.contains("split"))
            .map(|g| g.id.clone())
            .collect();
        assert_eq!(coop, whole);
    }
}
