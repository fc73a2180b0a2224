//! A matrix of calls that reaches every variant of the project manifest by natural selection,
//! shared by the planner tests, the GPU-free WGSL validation and the GPU tests.

use crate::op::MlpShape;
use crate::tensor::DType;

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

/// Which norm inputs a case has: none, norm_scale, skip + norm_scale, skip + norm_scale + residual.
const NORMS: &[(&str, bool, bool, bool)] = &[
    ("plain", false, false, false),
    ("norm", false, true, false),
    ("skip", true, true, false),
    ("skipsum", true, true, true),
];

/// Every variant of the seed manifest, each reached by at least one case (rows 1 with a
/// non-vector blob for `fused_*`; rows 1 with a vector blob and rows 9 for `staged_*`; rows 7
/// for `plain_*`). `fused_skipsum_gb_ub` does not exist: that case selects the staged variant.
pub fn variant_matrix(dtype: DType) -> Vec<CoverageCase> {
    let mut out = Vec::new();
    for (gb, ub) in [(false, false), (false, true), (true, false), (true, true)] {
        let bias = format!(
            "{}_{}",
            if gb { "gb" } else { "nogb" },
            if ub { "ub" } else { "noub" }
        );
        for (norm_name, skip, norm, residual) in NORMS {
            let base = |k: usize, n: usize, rows: usize, bits: usize, block: usize| MlpShape {
                k,
                n,
                lead: vec![rows],
                dtype,
                bits,
                block_size: block,
                skip: *skip,
                norm: *norm,
                residual: *residual,
                gate_bias: gb,
                up_bias: ub,
            };
            if *norm_name == "plain" {
                out.push(CoverageCase {
                    name: format!("plain rows 7 {bias}"),
                    shape: base(93, 37, 7, 4, 32),
                    expect: format!("plain_{bias}"),
                });
                out.push(CoverageCase {
                    name: format!("plain rows 1 {bias}"),
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
            let fused = if *norm_name == "skipsum" && gb && ub {
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
/// `gemvr_*` 2 to 16 rows (float16) or 2 to 20 (float32); `tiled_*` take every other call of two
/// rows or more; other single rows keep the seed's choice.
pub fn project_expect(case: &CoverageCase) -> String {
    project_expect_with(case, case.shape.dtype == DType::F16)
}

/// `<kind>_<bias>` of the gemv variants' names: `plain`/`norm`/`skip`/`skipsum`, then bias
/// presence.
fn gemv_form(s: &MlpShape) -> String {
    let kind = match (s.norm, s.skip, s.residual) {
        (false, _, _) => "plain",
        (true, false, _) => "norm",
        (true, true, false) => "skip",
        (true, true, true) => "skipsum",
    };
    format!(
        "{kind}_{}_{}",
        if s.gate_bias { "gb" } else { "nogb" },
        if s.up_bias { "ub" } else { "noub" }
    )
}

/// [`project_expect`] with the tunable `GEMV_INLINE_NORM` on (1) or off (0) rather than its
/// default (2: on for float16 models): off, single-row norm forms take the two-pass `gemv_norm_*`,
/// `gemv_skip_*` and `gemv_skipsum_*` (the seed's RMSNorm pass, then the gemv).
pub fn project_expect_with(case: &CoverageCase, inline_norm: bool) -> String {
    let s = &case.shape;
    let rest = case
        .expect
        .split_once('_')
        .map(|(_, r)| r)
        .unwrap_or("")
        .to_string();
    let padded_k = s.k.div_ceil(s.block_size) * s.block_size;
    let gemv_k = padded_k.is_multiple_of(32) && s.block_size.is_multiple_of(16);
    // GEMV_MAX_ROWS's default: 16 rows for float16 models, 20 for float32.
    let gemvr_rows = if s.dtype == DType::F16 { 16 } else { 20 };
    if (2..=gemvr_rows).contains(&s.rows()) && gemv_k {
        return format!("gemvr_{}", gemv_form(s));
    }
    if s.rows() >= 2 {
        return format!("tiled_{rest}");
    }
    if s.rows() == 1 && gemv_k {
        if inline_norm && s.norm {
            return format!("gemv_fused_{}", gemv_form(s));
        }
        return format!("gemv_{}", gemv_form(s));
    }
    case.expect.clone()
}

/// Calls that reach each of the overlay's 16 `coop_*` variants (cooperative matrices; f16, 16
/// rows or more) on a device with `coop-f16-16x16x16-f32` and `subgroup-size-32`, at awkward
/// sizes: rows not a multiple of the 32-, 64- or 128-row tile (each tile size reached), N not a
/// multiple of the 64 or 128 columns, K a partial
/// block and not a multiple of the 32-code chunk (once not even of a u32 word's codes), each
/// code width. On other devices the same calls take `tiled_*`.
pub fn coop_matrix() -> Vec<CoverageCase> {
    // (K, N, rows, bits, block_size)
    const SHAPES: &[(usize, usize, usize, usize, usize)] = &[
        (200, 150, 19, 4, 32),
        (100, 37, 70, 4, 16),
        (96, 130, 16, 2, 64),
        (72, 200, 33, 8, 32),
    ];
    let mut out = Vec::new();
    let mut i = 0;
    for (gb, ub) in [(false, false), (false, true), (true, false), (true, true)] {
        let bias = format!(
            "{}_{}",
            if gb { "gb" } else { "nogb" },
            if ub { "ub" } else { "noub" }
        );
        for (norm_name, skip, norm, residual) in NORMS {
            let (k, n, rows, bits, block_size) = SHAPES[i % SHAPES.len()];
            i += 1;
            let expect = if *norm_name == "plain" {
                format!("coop_{bias}")
            } else {
                format!("coop_{norm_name}_{bias}")
            };
            out.push(CoverageCase {
                name: format!("coop {norm_name} rows {rows} K {k} N {n} bits {bits} {bias}"),
                shape: MlpShape {
                    k,
                    n,
                    lead: vec![rows],
                    dtype: DType::F16,
                    bits,
                    block_size,
                    skip: *skip,
                    norm: *norm,
                    residual: *residual,
                    gate_bias: gb,
                    up_bias: ub,
                },
                expect,
            });
        }
    }
    out
}

/// Calls that reach each of the overlay's 16 `mma_*` variants (the tensor-core kernel that reads
/// the weights once per row tile; f16, 8 rows or more by default) on a device with
/// `coop-f16-16x16x16-f32` and `subgroup-size-32`, at awkward sizes: rows not a multiple of the
/// 16-row blocks (one block to four), N not a multiple of a workgroup's 64 or 128 columns nor
/// of a subgroup's 16, K not a
/// multiple of the 64-code chunk and a partial last block, each code width, blocks of 16 to 128
/// (two scales per 16-byte segment for 4 bits in blocks of 16, four for 2 bits). On devices
/// without cooperative matrices the same calls take what [`project_expect`] says.
pub fn mma_matrix() -> Vec<CoverageCase> {
    // (K, N, rows, bits, block_size)
    const SHAPES: &[(usize, usize, usize, usize, usize)] = &[
        (200, 150, 19, 4, 32),
        (120, 130, 9, 2, 16),
        (72, 200, 33, 8, 32),
        (136, 300, 64, 4, 128),
        (256, 40, 8, 4, 16),
        (328, 17, 50, 2, 64),
    ];
    let mut out = Vec::new();
    let mut i = 0;
    for (gb, ub) in [(false, false), (false, true), (true, false), (true, true)] {
        let bias = format!(
            "{}_{}",
            if gb { "gb" } else { "nogb" },
            if ub { "ub" } else { "noub" }
        );
        for (norm_name, skip, norm, residual) in NORMS {
            let (k, n, rows, bits, block_size) = SHAPES[i % SHAPES.len()];
            i += 1;
            let expect = if *norm_name == "plain" {
                format!("mma_{bias}")
            } else {
                format!("mma_{norm_name}_{bias}")
            };
            out.push(CoverageCase {
                name: format!("mma {norm_name} rows {rows} K {k} N {n} bits {bits} {bias}"),
                shape: MlpShape {
                    k,
                    n,
                    lead: vec![rows],
                    dtype: DType::F16,
                    bits,
                    block_size,
                    skip: *skip,
                    norm: *norm,
                    residual: *residual,
                    gate_bias: gb,
                    up_bias: ub,
                },
                expect,
            });
        }
    }
    out
}
