//! The benchmarked shapes: the LLM gate/up shapes of the spec, the named suites built from
//! them, and the same shapes at other row counts.

use anyhow::{anyhow, Result};
use nbits_mlp_core::{DType, MlpShape};
use serde::{Deserialize, Serialize};

/// The LLM gate/up shapes of the spec (model, K, N).
pub const LLM_SHAPES: &[(&str, usize, usize)] = &[
    ("Qwen2.5-0.5B", 896, 4864),
    ("Llama-3.2-1B", 2048, 8192),
    ("Qwen3-1.7B", 2048, 6144),
    ("Phi-3-mini", 3072, 8192),
    ("Qwen2.5-7B", 3584, 18944),
    ("Llama-3.1-8B", 4096, 14336),
    ("Llama-3.1-70B", 8192, 28672),
];

/// One benchmarked configuration: a model's name and the shape of its call. The suites'
/// shapes are rank 2, without biases, and either plain or with skip + norm_scale + the residual
/// output (the "norm" form).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "ShapeRecord", into = "ShapeRecord")]
pub struct BenchShape {
    /// Model the shape comes from.
    pub model: String,
    /// The call's shape.
    pub mlp: MlpShape,
}

/// A [`BenchShape`] as reports store it (`measurements[].shape` of `bench --out`'s JSON): the
/// fields reports have always had, `rows` the product of A's leading dimensions and `norm` the
/// norm form (skip and the residual output with it); and, only where a shape departs from
/// rank 2 and those forms, the fields that say how. Reports of every version read back into
/// the same shapes.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct ShapeRecord {
    model: String,
    k: usize,
    n: usize,
    rows: usize,
    dtype: DType,
    bits: u32,
    block_size: usize,
    norm: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lead: Option<Vec<usize>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    skip: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    residual: Option<bool>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    gate_bias: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    up_bias: bool,
}

impl From<ShapeRecord> for BenchShape {
    fn from(r: ShapeRecord) -> BenchShape {
        BenchShape {
            model: r.model,
            mlp: MlpShape {
                k: r.k,
                n: r.n,
                lead: r.lead.unwrap_or_else(|| vec![r.rows]),
                dtype: r.dtype,
                bits: r.bits,
                block_size: r.block_size,
                skip: r.skip.unwrap_or(r.norm),
                norm: r.norm,
                residual: r.residual.unwrap_or(r.norm),
                gate_bias: r.gate_bias,
                up_bias: r.up_bias,
            },
        }
    }
}

impl From<BenchShape> for ShapeRecord {
    fn from(b: BenchShape) -> ShapeRecord {
        let m = b.mlp;
        let rows = m.rows();
        ShapeRecord {
            model: b.model,
            k: m.k,
            n: m.n,
            rows,
            dtype: m.dtype,
            bits: m.bits,
            block_size: m.block_size,
            norm: m.norm,
            lead: (m.lead != [rows]).then_some(m.lead),
            skip: (m.skip != m.norm).then_some(m.skip),
            residual: (m.residual != m.norm).then_some(m.residual),
            gate_bias: m.gate_bias,
            up_bias: m.up_bias,
        }
    }
}

impl BenchShape {
    /// A rank-2 shape of `model` without biases: plain, or with skip + norm_scale + the residual
    /// output when `norm`.
    pub fn new(
        model: &str,
        (k, n, rows): (usize, usize, usize),
        dtype: DType,
        bits: u32,
        block_size: usize,
        norm: bool,
    ) -> BenchShape {
        BenchShape {
            model: model.into(),
            mlp: MlpShape {
                dtype,
                bits,
                block_size,
                skip: norm,
                norm,
                residual: norm,
                ..MlpShape::new(k, n, rows)
            },
        }
    }
    /// A short label (`Llama-3.1-8B r1 f16 q4 norm`; `q4b128` for blocks other than 32).
    pub fn label(&self) -> String {
        let m = &self.mlp;
        format!(
            "{} r{} {} q{}{}{}",
            self.model,
            m.rows(),
            m.dtype.short_name(),
            m.bits,
            self.block_label("b"),
            if m.norm { " norm" } else { "" }
        )
    }
    /// The Markdown table columns of [`BenchShape::table_cells`].
    pub const TABLE_COLUMNS: &'static str = "model (K x N) | rows | dtype | bits | form";
    /// The shape as the leading cells of a Markdown table row (without the outer bars), under
    /// [`BenchShape::TABLE_COLUMNS`]: `Llama-3.1-8B (4096 x 14336) | 1 | f16 | 4 | plain`.
    pub fn table_cells(&self) -> String {
        let m = &self.mlp;
        format!(
            "{} ({} x {}) | {} | {} | {} | {}",
            self.model,
            m.k,
            m.n,
            m.rows(),
            m.dtype.short_name(),
            self.bits_label(),
            self.form_label()
        )
    }
    /// The form as a word: `skip+norm` (the norm form) or `plain`.
    pub fn form_label(&self) -> &'static str {
        if self.mlp.norm {
            "skip+norm"
        } else {
            "plain"
        }
    }
    /// The bits per code as a table cell: `4`, or `4, blocks of 128` for blocks other than 32.
    pub fn bits_label(&self) -> String {
        format!("{}{}", self.mlp.bits, self.block_label(", blocks of "))
    }
    /// `{prefix}{block size}` where the block size is not the suites' 32, else nothing.
    fn block_label(&self, prefix: &str) -> String {
        match self.mlp.block_size {
            32 => String::new(),
            b => format!("{prefix}{b}"),
        }
    }
}

/// A named suite of shapes: `decode` (Llama-3.1-8B at rows 1 and 128, f16, with norm: the
/// targets), `llama8b` (that shape at rows 1, 16, 128, 512, with and without norm), `quick` (every LLM shape at rows 1 and 128, f16, with norm, plus bits 2/8 at rows 1),
/// `full` (every LLM shape at rows 1, 16, 128, 512, f16 and f32, with and without norm, 4-bit
/// block 32, plus 2- and 8-bit for the decode shape), or `few` (every LLM shape at rows 2, 4, 8
/// and 12, f16 and f32, with norm: small batches and speculative decoding, the multi-row gemv's
/// range).
pub fn suite(name: &str) -> Result<Vec<BenchShape>> {
    let mk = |model: &str, k, n, rows, dtype, bits, norm| {
        BenchShape::new(model, (k, n, rows), dtype, bits, 32, norm)
    };
    let mut v = Vec::new();
    match name {
        "smoke" => {
            for rows in [1, 16] {
                v.push(mk("small", 512, 1024, rows, DType::F16, 4, true));
            }
        }
        "decode" => {
            for rows in [1, 128] {
                v.push(mk("Llama-3.1-8B", 4096, 14336, rows, DType::F16, 4, true));
            }
        }
        "llama8b" => {
            for rows in [1, 16, 128, 512] {
                for norm in [true, false] {
                    v.push(mk("Llama-3.1-8B", 4096, 14336, rows, DType::F16, 4, norm));
                }
            }
        }
        "quick" => {
            for &(m, k, n) in LLM_SHAPES {
                for rows in [1, 128] {
                    v.push(mk(m, k, n, rows, DType::F16, 4, true));
                }
            }
            for bits in [2, 8] {
                v.push(mk("Llama-3.1-8B", 4096, 14336, 1, DType::F16, bits, true));
            }
        }
        "full" => {
            for &(m, k, n) in LLM_SHAPES {
                for rows in [1, 16, 128, 512] {
                    for dtype in [DType::F16, DType::F32] {
                        for norm in [true, false] {
                            v.push(mk(m, k, n, rows, dtype, 4, norm));
                        }
                    }
                }
            }
            for bits in [2, 8] {
                for norm in [true, false] {
                    v.push(mk("Llama-3.1-8B", 4096, 14336, 1, DType::F16, bits, norm));
                }
            }
        }
        "few" => {
            for &(m, k, n) in LLM_SHAPES {
                for rows in [2, 4, 8, 12] {
                    for dtype in [DType::F16, DType::F32] {
                        v.push(mk(m, k, n, rows, dtype, 4, true));
                    }
                }
            }
        }
        other => {
            return Err(anyhow!(
                "unknown suite `{other}` (smoke, decode, llama8b, quick, full, few)"
            ))
        }
    }
    Ok(v)
}

/// One shape K x N of no suite (`nbits-mlp bench --shape K,N`), in the `full` suite's grid:
/// rows 1, 16, 128 and 512, f16 and f32, with and without norm, 4-bit blocks of 32; its model
/// name is `K{k}xN{n}`. The filters and `at_*` transforms then select and move it as they do a
/// suite's shapes. An error names K or N where either is zero.
pub fn shape_suite(k: usize, n: usize) -> Result<Vec<BenchShape>> {
    if k == 0 || n == 0 {
        return Err(anyhow!(
            "--shape {k},{n}: K (the activations' last dimension) and N (the weights' rows) must \
             be at least 1"
        ));
    }
    let model = format!("K{k}xN{n}");
    let mut v = Vec::new();
    for rows in [1, 16, 128, 512] {
        for dtype in [DType::F16, DType::F32] {
            for norm in [true, false] {
                v.push(BenchShape::new(&model, (k, n, rows), dtype, 4, 32, norm));
            }
        }
    }
    Ok(v)
}

/// The distinct shapes of `shapes` (block size aside), in their first order, each at every
/// block size of `sizes` (codes per quantization block): a suite's shapes at block sizes it
/// does not have (`nbits-mlp bench --at-block-size 64,128`).
pub fn at_block_size(shapes: &[BenchShape], sizes: &[usize]) -> Vec<BenchShape> {
    at_each(shapes, sizes, |m, s| m.block_size = s.unwrap_or(0))
}

/// The distinct shapes of `shapes` (rows aside: model and every other field of the call's
/// shape), in their first order, each at every row count of `rows` (rank 2): a suite's shapes
/// at row counts it does not have (`nbits-mlp bench --at-rows 24,32`).
pub fn at_rows(shapes: &[BenchShape], rows: &[usize]) -> Vec<BenchShape> {
    at_each(shapes, rows, |m, r| {
        m.lead = r.map(|r| vec![r]).unwrap_or_default()
    })
}

/// The distinct shapes of `shapes` (bits aside), in their first order, each at every width of
/// `bits` (2, 4 or 8 bits per code): a suite's shapes at widths it does not have
/// (`nbits-mlp bench --at-bits 2,8`).
pub fn at_bits(shapes: &[BenchShape], bits: &[u32]) -> Vec<BenchShape> {
    at_each(shapes, bits, |m, b| m.bits = b.unwrap_or(0))
}

/// The distinct shapes of `shapes` with one field aside (`set(shape, None)` clears it for the
/// comparison), in their first order, each with that field at every value of `values`
/// (`set(shape, Some(v))`).
fn at_each<V: Copy>(
    shapes: &[BenchShape],
    values: &[V],
    set: impl Fn(&mut MlpShape, Option<V>),
) -> Vec<BenchShape> {
    let with = |s: &BenchShape, v: Option<V>| {
        let mut mlp = s.mlp.clone();
        set(&mut mlp, v);
        BenchShape {
            model: s.model.clone(),
            mlp,
        }
    };
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for s in shapes {
        let k = with(s, None);
        if seen.contains(&k) {
            continue;
        }
        seen.push(k);
        out.extend(values.iter().map(|&v| with(s, Some(v))));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_bits_keeps_each_shape_once_per_width() {
        let full = suite("full").unwrap();
        let v = at_bits(&full, &[8, 2]);
        // The 2- and 8-bit decode forms are the 4-bit ones at another width: one shape each.
        assert_eq!(v.len(), LLM_SHAPES.len() * 16 * 2);
        assert!(v.iter().all(|s| s.mlp.bits == 8 || s.mlp.bits == 2));
        assert_eq!((v[0].mlp.bits, v[1].mlp.bits), (8, 2));
        assert_eq!(
            (v[0].model.as_str(), v[0].mlp.rows(), v[0].mlp.norm),
            (full[0].model.as_str(), full[0].mlp.rows(), full[0].mlp.norm)
        );
        assert!(at_bits(&full, &[]).is_empty());
    }

    #[test]
    fn at_rows_keeps_each_shape_once_per_row_count() {
        let full = suite("full").unwrap();
        let v = at_rows(&full, &[24, 3]);
        // 16 forms per LLM shape over 4 row counts, plus the 2- and 8-bit decode forms.
        assert_eq!(v.len(), (LLM_SHAPES.len() * 4 + 4) * 2);
        assert!(v.iter().all(|s| s.mlp.lead == [24] || s.mlp.lead == [3]));
        assert_eq!((v[0].mlp.rows(), v[1].mlp.rows()), (24, 3));
        assert_eq!(
            (v[0].model.as_str(), v[0].mlp.dtype, v[0].mlp.norm),
            (full[0].model.as_str(), full[0].mlp.dtype, full[0].mlp.norm)
        );
        assert!(at_rows(&full, &[]).is_empty());
    }

    #[test]
    fn shape_suite_is_the_full_grid_of_one_shape() {
        let v = shape_suite(5120, 13824).unwrap();
        assert_eq!(v.len(), 16);
        assert!(v.iter().all(|s| s.model == "K5120xN13824"
            && (s.mlp.k, s.mlp.n, s.mlp.bits, s.mlp.block_size) == (5120, 13824, 4, 32)));
        let full_llama: Vec<_> = suite("full")
            .unwrap()
            .into_iter()
            .filter(|s| s.model == "Llama-3.1-8B" && s.mlp.bits == 4)
            .collect();
        // The same rows, dtypes and forms in the same order as a model of the `full` suite.
        let key = |s: &BenchShape| (s.mlp.rows(), s.mlp.dtype, s.mlp.norm);
        assert_eq!(
            v.iter().map(key).collect::<Vec<_>>(),
            full_llama.iter().map(key).collect::<Vec<_>>()
        );
        for (k, n) in [(0, 8), (8, 0)] {
            let e = shape_suite(k, n).unwrap_err().to_string();
            assert!(
                e.contains(&format!("--shape {k},{n}")) && e.contains("at least 1"),
                "{e}"
            );
        }
    }

    #[test]
    fn at_block_size_keeps_each_shape_once_per_size() {
        let decode = suite("decode").unwrap();
        let v = at_block_size(&decode, &[128, 16]);
        assert_eq!(v.len(), 4);
        assert_eq!(
            v.iter()
                .map(|s| (s.mlp.rows(), s.mlp.block_size))
                .collect::<Vec<_>>(),
            [(1, 128), (1, 16), (128, 128), (128, 16)]
        );
        // Labels and table cells name a block size only where it is not the suites' 32.
        assert_eq!(v[0].label(), "Llama-3.1-8B r1 f16 q4b128 norm");
        assert_eq!(v[0].bits_label(), "4, blocks of 128");
        assert_eq!(decode[0].label(), "Llama-3.1-8B r1 f16 q4 norm");
        assert_eq!(decode[0].bits_label(), "4");
    }

    #[test]
    fn suites() {
        // `few`: every LLM shape at rows 2, 4, 8 and 12, both dtypes, with norm.
        let few = suite("few").unwrap();
        assert_eq!(few.len(), LLM_SHAPES.len() * 4 * 2);
        assert!(few
            .iter()
            .all(|s| [2, 4, 8, 12].contains(&s.mlp.rows()) && s.mlp.norm && s.mlp.bits == 4));
        // `full`: rows 1/16/128/512 x dtype x norm for every shape, plus 2 widths x 2 forms.
        assert_eq!(suite("full").unwrap().len(), LLM_SHAPES.len() * 16 + 4);
        let e = suite("nope").unwrap_err().to_string();
        assert!(
            e.contains("unknown suite `nope`") && e.contains("few"),
            "{e}"
        );
    }

    #[test]
    fn report_form_is_unchanged_and_round_trips() {
        // The suites' shapes serialise with exactly the fields reports have always had.
        let s = &suite("smoke").unwrap()[0];
        assert_eq!(
            serde_json::to_value(s).unwrap(),
            serde_json::json!({"model": "small", "k": 512, "n": 1024, "rows": 1,
                "dtype": "float16", "bits": 4, "block_size": 32, "norm": true})
        );
        // A report's shape reads back as the call it measured: the norm form has skip and the
        // residual output, the plain form none.
        let old = r#"{"model":"m","k":64,"n":32,"rows":3,"dtype":"float32","bits":8,"block_size":16,"norm":false}"#;
        let b: BenchShape = serde_json::from_str(old).unwrap();
        assert_eq!(
            b.mlp,
            MlpShape {
                bits: 8,
                block_size: 16,
                ..MlpShape::new(64, 32, 3)
            }
        );
        assert_eq!(
            b,
            BenchShape::new("m", (64, 32, 3), DType::F32, 8, 16, false)
        );
        // Shapes outside the suites' forms keep what sets them apart.
        let odd = BenchShape {
            model: "m".into(),
            mlp: MlpShape {
                lead: vec![2, 3],
                skip: true,
                gate_bias: true,
                ..MlpShape::default()
            },
        };
        let json = serde_json::to_value(&odd).unwrap();
        assert_eq!(
            (json["rows"].as_u64(), json["norm"].as_bool()),
            (Some(6), Some(false))
        );
        assert_eq!(serde_json::from_value::<BenchShape>(json).unwrap(), odd);
        for s in suite("full").unwrap() {
            let back: BenchShape =
                serde_json::from_value(serde_json::to_value(&s).unwrap()).unwrap();
            assert_eq!(back, s);
        }
    }
}
