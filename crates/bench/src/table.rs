//! A bench report as a Markdown table, beside the peers' lines: JSON objects, one per line, as
//! `../shared/peers/ort_webgpu_layers.py` (ONNX Runtime, wall clock per node) and
//! `../shared/peers/torch_baselines.py` (PyTorch, GPU time per call) print them.

use crate::{Measurement, Report};
use anyhow::{Context, Result};
use serde::Deserialize;
use std::fmt::Write as _;

/// One line of a peer's JSON-lines output (the fields the table and the rows plot read; the
/// scripts print more).
#[derive(Clone, Debug, Deserialize)]
pub struct PeerLine {
    /// Peer name (e.g. `ort-webgpu-ep`, `torch-int4-tinygemm+silu`).
    pub peer: String,
    /// Rows of A (absent in lines that are not a timed call, e.g. PyTorch's copy bandwidth).
    pub m: Option<usize>,
    /// K.
    pub k: Option<usize>,
    /// N.
    pub n: Option<usize>,
    /// Block size (ONNX Runtime's lines; PyTorch's int4 kernel uses groups of 32 and says nothing).
    pub bs: Option<usize>,
    /// `f16` or `f32` (ONNX Runtime's lines).
    pub dtype: Option<String>,
    /// `none` (plain) or `skip` (skip + RMSNorm) (ONNX Runtime's lines).
    pub norm: Option<String>,
    /// Wall clock per node of the layer stack, µs (ONNX Runtime's lines).
    pub per_node_us: Option<f64>,
    /// GPU time per call, µs (PyTorch's lines: CUDA events over rotating weight sets).
    pub us: Option<f64>,
}

/// The peers' lines of several JSON-lines files, each tagged with the index of its file. Lines
/// that do not start with `{` are skipped (the scripts' progress output), and so are objects
/// that time no call (no `m`, `k`, `n`, or neither `per_node_us` nor `us`: a copy bandwidth,
/// a peer that failed and printed an `error`). A line that is not such an object is an error
/// naming the file and line.
pub fn read_peer_lines(files: &[(String, String)]) -> Result<Vec<(usize, PeerLine)>> {
    let mut out = Vec::new();
    for (i, (name, text)) in files.iter().enumerate() {
        for (no, line) in text.lines().enumerate() {
            let line = line.trim();
            if !line.starts_with('{') {
                continue;
            }
            let p: PeerLine = serde_json::from_str(line)
                .with_context(|| format!("{name}, line {}: not a peer result", no + 1))?;
            let timed = p.per_node_us.is_some() || p.us.is_some();
            if p.m.is_some() && p.k.is_some() && p.n.is_some() && timed {
                out.push((i, p));
            }
        }
    }
    Ok(out)
}

/// The last wall-per-node peer line (of the last file that has one) for a measurement's shape:
/// same rows, K, N, block size (32 when the line has none), dtype and form (skip + norm against
/// `skip`, plain against `none`); 4-bit only (the peers' script measures 4-bit weights).
pub fn peer_for<'a>(
    m: &Measurement,
    peers: &'a [(usize, PeerLine)],
) -> Option<&'a (usize, PeerLine)> {
    let s = &m.shape;
    let dtype = s.mlp.dtype.short_name();
    let norm = if s.mlp.norm { "skip" } else { "none" };
    peers.iter().rev().find(|(_, p)| {
        s.mlp.bits == 4
            && p.per_node_us.is_some()
            && p.m == Some(s.mlp.rows())
            && p.k == Some(s.mlp.k)
            && p.n == Some(s.mlp.n)
            && p.bs.unwrap_or(32) == s.mlp.block_size
            && p.dtype.as_deref() == Some(dtype)
            && p.norm.as_deref() == Some(norm)
    })
}

fn us(v: f64) -> String {
    format!("{v:.1} µs")
}

/// TFLOP/s with two decimals below 1, one from 1 on.
fn tflops(v: f64) -> String {
    if v < 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.1}")
    }
}

/// A Markdown table's header row and the rule under it, one `---` per cell of the header (its
/// cells are the text between its bars), each line ended.
pub(crate) fn head(header: &str) -> String {
    let cells = header.matches('|').count().saturating_sub(1);
    format!("{header}\n|{}\n", "---|".repeat(cells))
}

/// The report as a Markdown table: one row per shape with the variant, GPU time (marked `!` when
/// [`Measurement::inflated`] or [`Measurement::above_wall`]), the TFLOP/s achieved in it
/// ([`Measurement::tflops`]), the host-clock check, weight GB/s,
/// the host time per call, the wall per node and, with peer lines, the peer's wall per node (`[i]`: from file `i`) and
/// the ratio peer / ours. A legend of the files and a line on the flags follow.
pub fn markdown(report: &Report, peers: &[(usize, PeerLine)], files: &[String]) -> String {
    let with_peers = !peers.is_empty();
    let mut t = head(&format!(
        "| {} | variant | GPU time | TFLOP/s | host-clock check | weight GB/s | host per call | wall per node |{}",
        crate::BenchShape::TABLE_COLUMNS,
        if with_peers {
            " peer wall per node | ratio |"
        } else {
            ""
        }
    ));
    let mut flagged = 0;
    for m in &report.measurements {
        let s = &m.shape;
        let flag = m.distrusted();
        flagged += usize::from(flag);
        let _ = write!(
            t,
            "| {} | `{}` | {}{} | {} | {} | {:.0} | {} | {} |",
            s.table_cells(),
            m.variant,
            us(m.gpu_us),
            if flag { " !" } else { "" },
            tflops(m.tflops()),
            m.gpu_us_sustained.map_or("-".into(), us),
            m.weight_gbps,
            us(m.host_us),
            m.wall_per_node_us
                .map_or("-".into(), |w| format!("{w:.0} µs")),
        );
        if with_peers {
            match (peer_for(m, peers), m.wall_per_node_us) {
                (Some((i, p)), Some(w)) if w > 0.0 => {
                    let pw = p.per_node_us.unwrap_or(f64::NAN);
                    let _ = write!(t, " {pw:.0} µs [{}] | {:.1}x |", i + 1, pw / w);
                }
                (Some((i, p)), _) => {
                    let pw = p.per_node_us.unwrap_or(f64::NAN);
                    let _ = write!(t, " {pw:.0} µs [{}] | - |", i + 1);
                }
                _ => t.push_str(" - | - |"),
            }
        }
        t.push('\n');
    }
    if with_peers {
        t.push('\n');
        for (i, f) in files.iter().enumerate() {
            let _ = writeln!(t, "[{}] {f}  ", i + 1);
        }
    }
    if flagged > 0 {
        let _ = writeln!(
            t,
            "\n! {flagged} GPU time(s) above the host-clock check by more than 20 % or above the wall per node: a span to distrust."
        );
    }
    let _ = writeln!(
        t,
        "\n{} on {} ({}), commit {}, {}; copy ceiling {:.0} GB/s.",
        report.gpu, report.backend, report.driver, report.commit, report.date, report.copy_gbps
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite;

    fn report() -> Report {
        let shapes = suite("llama8b").unwrap();
        let measurements = shapes
            .iter()
            .take(2)
            .enumerate()
            .map(|(i, s)| Measurement {
                gpu_us_p10: 39.0,
                gpu_us_p90: 41.0,
                gpu_us_sustained: Some(if i == 0 { 41.0 } else { 20.0 }),
                samples: 10,
                weight_gbps: 1650.0,
                copy_fraction: 0.4,
                host_us: 12.0,
                host_us_p10: Some(11.0),
                wall_per_node_us: Some(80.0),
                ..crate::report::test_measurement(s, &format!("v{i}"), 40.0 + i as f64)
            })
            .collect();
        Report {
            copy_gbps: 4000.0,
            ..crate::report::test_report(measurements)
        }
    }

    #[test]
    fn rows_match_their_peer_lines_and_flag_contradicted_spans() {
        let files = vec![
            (
                "a.jsonl".to_string(),
                "progress\n{\"peer\": \"ort\", \"m\": 1, \"k\": 4096, \"n\": 14336, \"bs\": 32, \"dtype\": \"f16\", \"norm\": \"skip\", \"per_node_us\": 640.0}\n".to_string(),
            ),
            (
                "b.jsonl".to_string(),
                "{\"peer\": \"ort\", \"m\": 1, \"k\": 4096, \"n\": 14336, \"dtype\": \"f16\", \"norm\": \"skip\", \"per_node_us\": 800.0}\n{\"peer\": \"ort\", \"m\": 1, \"k\": 4096, \"n\": 14336, \"dtype\": \"f32\", \"norm\": \"none\", \"per_node_us\": 1.0}\n".to_string(),
            ),
            (
                // PyTorch's lines: GPU time, no form: never a wall-per-node peer; its copy
                // bandwidth and a failed kernel are skipped.
                "torch.jsonl".to_string(),
                "{\"peer\": \"torch-fp16-cublas+silu\", \"m\": 1, \"k\": 4096, \"n\": 14336, \"us\": 68.0, \"GBps\": 1.0}\n{\"peer\": \"d2d-copy\", \"GBps_read_plus_write\": 4246.0}\n{\"peer\": \"torch-int4-tinygemm\", \"error\": \"x\"}\n".to_string(),
            ),
        ];
        let peers = read_peer_lines(&files).unwrap();
        assert_eq!(peers.len(), 4);
        let r = report();
        // The first shape is rows 1 with norm: the later file's line wins; the second (plain)
        // has no f16 plain line.
        assert!(r.measurements[0].shape.mlp.norm && !r.measurements[1].shape.mlp.norm);
        let names: Vec<String> = files.iter().map(|f| f.0.clone()).collect();
        let md = markdown(&r, &peers, &names);
        let lines: Vec<&str> = md.lines().collect();
        assert!(lines[2].contains("| 800 µs [2] | 10.0x |"), "{}", lines[2]);
        // 2 x 1 x 4096 x 14336 x 2 flops in 40 µs: 5.87 TFLOP/s.
        assert!(
            lines[2].contains("| 40.0 µs | 5.9 | 41.0 µs |"),
            "{}",
            lines[2]
        );
        assert!(lines[3].ends_with("| - | - |"), "{}", lines[3]);
        // 41 us against a check of 20 us: flagged.
        assert!(lines[3].contains("41.0 µs !"), "{}", lines[3]);
        assert!(!lines[2].contains(" !"), "{}", lines[2]);
        assert!(md.contains("[1] a.jsonl") && md.contains("[2] b.jsonl"));
        assert!(md.contains("! 1 GPU time(s)"));
        let bad = vec![("c.jsonl".to_string(), "{\"peer\": 3}".to_string())];
        let e = read_peer_lines(&bad).unwrap_err().to_string();
        assert!(e.contains("c.jsonl, line 1"), "{e}");
    }
}
