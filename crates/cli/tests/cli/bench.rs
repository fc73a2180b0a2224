//! `bench`: a suite run, and the tables, plots and results document made from reports.

use crate::common::{gpu_available, nbits, table};
use predicates::prelude::*;
use predicates::str::contains;

/// The standard output of a command that must succeed, as text.
fn stdout_of(cmd: &mut assert_cmd::Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

#[test]
fn bench_table_prints_a_report_beside_the_peers_lines() {
    let report = table::root().join("notes/runs/2026-11-30-s6-full/full.json");
    let t = tempfile::tempdir().unwrap();
    let peers = t.path().join("ort.jsonl");
    std::fs::write(
        &peers,
        "warming up\n{\"peer\": \"ort-webgpu-ep\", \"m\": 1, \"k\": 4096, \"n\": 14336, \"bs\": 32, \"dtype\": \"f16\", \"norm\": \"none\", \"per_node_us\": 700.0}\n",
    )
    .unwrap();
    let text = stdout_of(
        nbits()
            .args(["bench", "--table"])
            .arg(&report)
            .arg("--peers")
            .arg(&peers),
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("| model (K x N) | rows |") && lines[0].ends_with("| ratio |"));
    // Every shape of the report is a row; exactly the Llama-3.1-8B f16 plain 4-bit row at one
    // row has the peer's line.
    let rows: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("| ") && l.contains('`'))
        .collect();
    assert_eq!(rows.len(), 116);
    let with_peer: Vec<&&&str> = rows.iter().filter(|l| l.contains("µs [1]")).collect();
    assert_eq!(with_peer.len(), 1, "{with_peer:?}");
    assert!(with_peer[0].contains("Llama-3.1-8B (4096 x 14336) | 1 | f16 | 4 | plain"));
    assert!(text.contains("ort.jsonl"));
}

#[test]
fn bench_runs_a_suite_at_other_rows_and_its_report_makes_a_table() {
    if !gpu_available() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let run = nbits()
        .args([
            "bench",
            "--suite",
            "smoke",
            "--at-rows",
            "2",
            "--layers",
            "2",
            "--rounds",
            "2",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success()
        .stdout(contains("small r2 f16 q4 norm"))
        .stderr(contains("shapes timed in this one process").not())
        .get_output()
        .clone();
    let json = out.join("bench.json");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let ms = report["measurements"].as_array().unwrap();
    // The smoke suite's one shape (rows 1 and 16) once, at 2 rows: f16, so the few-rows kernel
    // on prepared weights.
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0]["shape"]["rows"], 2);
    assert!(
        ms[0]["variant"].as_str().unwrap().starts_with("gemvp_"),
        "{}",
        ms[0]["variant"]
    );
    assert!(ms[0]["max_abs_err"].as_f64().unwrap() <= ms[0]["tolerance"].as_f64().unwrap());
    assert!(ms[0]["wall_per_node_us"].as_f64().unwrap() > 0.0);
    // The plot's font is compiled in: both pictures come out without system fonts.
    assert!(
        out.join("bench.svg").exists() && out.join("bench.png").exists(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    nbits()
        .args(["bench", "--table"])
        .arg(&json)
        .assert()
        .success()
        .stdout(contains(
            "| small (512 x 1024) | 2 | f16 | 4 | skip+norm | `gemvp_",
        ));
}

#[test]
fn bench_plot_rows_and_results_read_the_committed_reports() {
    let root = table::root();
    let report = root.join("notes/runs/2026-11-30-s6-full/full.json");
    let t = tempfile::tempdir().unwrap();
    let torch = t.path().join("torch.jsonl");
    std::fs::write(
        &torch,
        "{\"peer\": \"torch-int4-tinygemm+silu\", \"m\": 1, \"k\": 4096, \"n\": 14336, \"us\": 48.9, \"GBps\": 1.0}\n{\"peer\": \"torch-int4-tinygemm+silu\", \"m\": 128, \"k\": 4096, \"n\": 14336, \"us\": 1064.9, \"GBps\": 1.0}\n{\"peer\": \"d2d-copy\", \"GBps_read_plus_write\": 4246.0}\n",
    )
    .unwrap();
    let svg = t.path().join("rows.svg");
    nbits()
        .args(["bench", "--plot-rows"])
        .arg(&report)
        .args(["--model", "llama-3.1-8b", "--dtype", "f16", "--bits", "4"])
        .arg("--peers")
        .arg(&torch)
        .arg("--peers")
        .arg(root.join("notes/runs/2026-11-30-s6-full/ort.jsonl"))
        .arg("--out")
        .arg(&svg)
        .assert()
        .success()
        .stderr(contains("rows.svg (6 curves)"));
    let text = std::fs::read_to_string(&svg).unwrap();
    for name in [
        "nbits-mlp skip+norm f16: GPU time",
        "nbits-mlp plain f16: wall per node",
        "torch-int4-tinygemm+silu: GPU time",
        "ort-webgpu-ep plain f16: wall per node",
    ] {
        assert!(text.contains(name), "{name} not in the SVG");
    }
    // The results document of the committed runs is the committed one.
    let doc = stdout_of(
        nbits()
            .current_dir(&root)
            .args(["bench", "--results", "notes/runs"]),
    );
    let committed = std::fs::read_to_string(root.join("docs/RESULTS.md")).unwrap();
    assert!(
        doc == committed,
        "docs/RESULTS.md is stale: nbits-mlp bench --results notes/runs --out docs/RESULTS.md"
    );
}

/// `--shape K,N`: a weight shape of no suite, narrowed to one form and moved to other widths and
/// block sizes; every shape checked against the reference, its labels and table cells naming the
/// block size where it is not 32.
#[test]
fn bench_times_a_shape_of_no_suite_at_other_bits_and_block_sizes() {
    if !gpu_available() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    nbits()
        .args([
            "bench",
            "--shape",
            "320,96",
            "--dtype",
            "f16",
            "--form",
            "plain",
            "--at-rows",
            "3",
            "--at-bits",
            "2,8",
            "--at-block-size",
            "16,64",
            "--layers",
            "0",
            "--sets",
            "1",
            "--rounds",
            "1",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success()
        .stdout(contains("K320xN96 r3 f16 q2b16"))
        .stdout(contains("K320xN96 r3 f16 q8b64"));
    let json = out.join("bench.json");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let got: Vec<(u64, u64, u64)> = report["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert!(m["max_abs_err"].as_f64().unwrap() <= m["tolerance"].as_f64().unwrap());
            let s = &m["shape"];
            (
                s["rows"].as_u64().unwrap(),
                s["bits"].as_u64().unwrap(),
                s["block_size"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, [(3, 2, 16), (3, 2, 64), (3, 8, 16), (3, 8, 64)]);
    nbits()
        .args(["bench", "--table"])
        .arg(&json)
        .assert()
        .success()
        .stdout(contains(
            "| K320xN96 (320 x 96) | 3 | f16 | 8, blocks of 64 | plain |",
        ));
}

/// `--isolate`: each shape of the selection timed by a process of its own, one merged report, the
/// children's folders removed; both shapes checked against the reference as usual.
#[test]
fn bench_isolate_times_each_shape_in_its_own_process_and_merges_the_reports() {
    if !gpu_available() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    bench_smoke_rows_2_3(&["--rounds", "2", "--isolate"], &out)
        .success()
        .stderr(contains("shape 1 of 2: a process of its own"))
        .stderr(contains("shape 2 of 2: a process of its own"))
        .stderr(contains("shapes timed in this one process").not())
        .stdout(contains("small r2 f16 q4 norm"))
        .stdout(contains("small r3 f16 q4 norm"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("bench.json")).unwrap()).unwrap();
    let rows: Vec<u64> = report["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["shape"]["rows"].as_u64().unwrap())
        .collect();
    assert_eq!(rows, [2, 3]);
    let left: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("shape-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Several shapes timed in one process (no `--isolate`): the bench says that the later ones can
/// read long (notes/PERF.md row 116) and names `--isolate`, and still times them all.
#[test]
fn bench_in_one_process_says_the_later_shapes_can_read_long() {
    if !gpu_available() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    bench_smoke_rows_2_3(&["--rounds", "1"], &out)
        .success()
        .stderr(contains(
            "note: 2 shapes timed in this one process; those after the first can read 2-5x long",
        ))
        .stderr(contains("time comparisons with --isolate"))
        .stdout(contains("small r2 f16 q4 norm"))
        .stdout(contains("small r3 f16 q4 norm"));
}

/// `bench` on the smoke suite's shape at 2 and 3 rows, one weight set, no layer stack, with
/// `extra` options, its report written to `out`.
fn bench_smoke_rows_2_3(extra: &[&str], out: &std::path::Path) -> assert_cmd::assert::Assert {
    nbits()
        .args([
            "bench",
            "--suite",
            "smoke",
            "--at-rows",
            "2,3",
            "--layers",
            "0",
            "--sets",
            "1",
        ])
        .args(extra)
        .arg("--out")
        .arg(out)
        .assert()
}

/// `bench --compare R R --across dtype=f16`: one committed report (the full suite on the H200,
/// float16 and float32 at every shape) against itself, each float16 shape beside its float32
/// twin; the count of pairs is the report's shapes that have a twin.
#[test]
fn bench_compare_across_pairs_float32_with_float16() {
    let full = table::root().join("notes/runs/2026-11-30-s6-full/full.json");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&full).unwrap()).unwrap();
    let key = |m: &serde_json::Value, dtype: &str| {
        let s = &m["shape"];
        format!(
            "{} {} {} {} {dtype} {} {} {}",
            s["model"], s["k"], s["n"], s["rows"], s["bits"], s["block_size"], s["norm"]
        )
    };
    let ms = r["measurements"].as_array().unwrap();
    let f32s: std::collections::BTreeSet<String> = ms
        .iter()
        .filter(|m| m["shape"]["dtype"] == "float32")
        .map(|m| key(m, "-"))
        .collect();
    let f16s: std::collections::BTreeSet<String> = ms
        .iter()
        .filter(|m| m["shape"]["dtype"] == "float16")
        .map(|m| key(m, "-"))
        .collect();
    let twins = f16s.intersection(&f32s).count();
    assert!(twins > 0 && twins < f16s.len(), "{twins}");
    let text = stdout_of(
        nbits()
            .args(["bench", "--compare"])
            .arg(&full)
            .arg(&full)
            .args(["--across", "dtype=f16"]),
    );
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains(" µs"))
        .collect();
    assert_eq!(rows.len(), twins, "{text}");
    assert!(
        rows.iter()
            .all(|l| l.contains(" | f16 | ") && l.contains(" | f32 | ")),
        "{text}"
    );
    assert!(text.contains("| other dtype | weight bytes |"), "{text}");
    assert!(
        text.contains(&format!(
            "{twins} pairs that differ in dtype only: other / base "
        )),
        "{text}"
    );
    assert!(text.contains(&format!(
        "Without a partner in the base report ({}):",
        f16s.len() - twins
    )));
    assert!(
        !text.contains("Without a partner in the other report"),
        "{text}"
    );
}

/// `bench --compare`: two committed reports of one GPU side by side, each shape timed in both
/// one row (as many as the reports' JSON has shapes in common), the summary and the shapes of
/// one report only; a report against itself changes nothing.
#[test]
fn bench_compare_sets_two_reports_side_by_side() {
    let root = table::root();
    let full = root.join("notes/runs/2026-11-30-s6-full/full.json");
    let curve = root.join("notes/runs/2026-12-01-s8-merged/curve.json");
    let key = |m: &serde_json::Value| {
        let s = &m["shape"];
        format!(
            "{} {} {} {} {} {} {} {}",
            s["model"],
            s["k"],
            s["n"],
            s["rows"],
            s["dtype"],
            s["bits"],
            s["block_size"],
            s["norm"]
        )
    };
    let shapes = |p: &std::path::Path| -> std::collections::BTreeSet<String> {
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        r["measurements"]
            .as_array()
            .unwrap()
            .iter()
            .map(key)
            .collect()
    };
    let (a, b) = (shapes(&full), shapes(&curve));
    let common = a.intersection(&b).count();
    assert!(common > 0 && common < b.len(), "{common}");
    // `bench --compare BASE OTHER` that succeeds: its output.
    let compare = |base: &std::path::Path, other: &std::path::Path| -> String {
        stdout_of(nbits().args(["bench", "--compare"]).arg(base).arg(other))
    };
    let text = compare(&full, &curve);
    let rows = text
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains(" µs"))
        .count();
    assert_eq!(rows, common, "{text}");
    assert!(
        text.contains(&format!("{common} shapes in both: other / base")),
        "{text}"
    );
    // (more than twelve: a count of the rest)
    assert!(text.contains(&format!("Only in the base report ({}):", a.len() - common)));
    assert!(text.contains(&format!(" and {} more.", a.len() - common - 12)));
    assert!(text.contains(&format!("Only in the other report ({}):", b.len() - common)));
    assert!(!text.contains("Different GPUs"), "{text}");
    assert!(text.contains("commit 5da016166ee6-dirty") && text.contains("commit 9433c857d2a5"));

    let same = compare(&curve, &curve);
    assert!(
        same.contains(&format!(
            "{} shapes in both: other / base 1.000x (geometric mean); 0 faster, {} within 2 %, 0 slower.",
            b.len(),
            b.len()
        )),
        "{same}"
    );
    assert!(
        same.contains("| = | ") && same.contains("| +0.0 % |"),
        "{same}"
    );
    assert!(!same.contains("Only in"), "{same}");

    // Run directories stand for their bench.json (what `--out DIR` writes): the same table as
    // the files; a directory without one is named in the error.
    let t = tempfile::tempdir().unwrap();
    for (dir, report) in [("base", &full), ("other", &curve)] {
        std::fs::create_dir(t.path().join(dir)).unwrap();
        std::fs::copy(report, t.path().join(dir).join("bench.json")).unwrap();
    }
    std::fs::create_dir(t.path().join("empty")).unwrap();
    let by_dir = compare(&t.path().join("base"), &t.path().join("other"));
    let body = |text: &str| -> String {
        // (the last lines name the reports' paths, which differ)
        text.lines()
            .filter(|l| !l.starts_with("base: ") && !l.starts_with("other: "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&by_dir), body(&text));
    nbits()
        .args(["bench", "--compare"])
        .arg(t.path().join("base"))
        .arg(t.path().join("empty"))
        .assert()
        .code(2)
        .stderr(contains("empty/bench.json"));
}
