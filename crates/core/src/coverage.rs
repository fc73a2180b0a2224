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

/// The variant the project manifest (seed + overlay) chooses for a case on a device with enough
/// workgroup storage for the overlay's `tiled_*` variants: those take every call of two rows or
/// more; single rows keep the seed's choice.
pub fn project_expect(case: &CoverageCase) -> String {
    if case.shape.rows() >= 2 {
        let rest = case.expect.split_once('_').map(|(_, r)| r).unwrap_or("");
        format!("tiled_{rest}")
    } else {
        case.expect.clone()
    }
}
