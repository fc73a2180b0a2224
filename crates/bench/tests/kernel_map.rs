//! `docs/KERNELS.md` and `docs/img/kernel-map.svg` are what `nbits-mlp map --model all --device
//! discrete-gpu --tunable SHADER_CORES=132 --why --plot docs/img/kernel-map.svg` prints and draws: the
//! kernel each suite model takes at 1-512 rows with today's planner rules. With
//! `UPDATE_SNAPSHOTS=1` this test rewrites both instead of failing.

use nbits_mlp_bench::plot::map_svg;
use nbits_mlp_bench::suites::LLM_SHAPES;
use nbits_mlp_core::coverage::forms;
use nbits_mlp_core::families::splice_between;
use nbits_mlp_core::map::{map_lines, map_text, product_lines, MapRequest};
use nbits_mlp_core::{DType, DeviceProfile, Planner, Tunables};
use std::path::PathBuf;

const BEGIN: &str = "<!-- kernel map: generated, see the top of this file -->";
const END: &str = "<!-- end of kernel map -->";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_kernel_map_document_is_what_the_command_prints() {
    let planner = Planner::project(DeviceProfile::discrete_gpu());
    let models: Vec<(String, usize, usize)> = LLM_SHAPES
        .iter()
        .map(|(m, k, n)| (m.to_string(), *k, *n))
        .collect();
    let forms: Vec<_> = forms()
        .into_iter()
        .filter(|f| f.name == "plain" || f.name == "skipsum")
        .collect();
    let request = MapRequest {
        lines: product_lines(&models, &[DType::F16, DType::F32], &forms, 4, 32, false),
        rows: (1..=512).collect(),
        tunables: Tunables::from([("SHADER_CORES".to_string(), 132)]),
        why: true,
    };
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let lines = map_lines(&planner, &request, threads, &|| {}).unwrap();
    let device = "discrete-gpu (SHADER_CORES=132)";
    let text = format!("```text\n{}```\n", map_text(&lines, device));
    let svg = map_svg(&lines, device).unwrap();

    let doc_path = root().join("docs/KERNELS.md");
    let svg_path = root().join("docs/img/kernel-map.svg");
    let doc = std::fs::read_to_string(&doc_path).unwrap();
    let want = splice_between(&doc, BEGIN, END, &text)
        .unwrap_or_else(|| panic!("docs/KERNELS.md lacks the lines `{BEGIN}` and `{END}`"));
    let committed_svg = std::fs::read_to_string(&svg_path).unwrap_or_default();
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&doc_path, &want).unwrap();
        std::fs::write(&svg_path, &svg).unwrap();
        return;
    }
    assert!(
        want == doc,
        "docs/KERNELS.md is stale (a planner rule or default changed which kernel some rows \
         take): run `UPDATE_SNAPSHOTS=1 cargo test -p nbits-mlp-bench --test kernel_map` and \
         read the difference"
    );
    assert!(
        svg == committed_svg,
        "docs/img/kernel-map.svg is stale: run `UPDATE_SNAPSHOTS=1 cargo test -p \
         nbits-mlp-bench --test kernel_map`"
    );
    // The map says something: every model reaches the tensor cores, and one row takes a gemv.
    for l in &lines {
        assert!(l.spans.iter().any(|s| s.family == "mmap"), "{}", l.title());
        assert!(l.spans[0].family.starts_with("gemv"), "{}", l.title());
        assert_eq!((l.spans[0].first, l.spans.last().unwrap().last), (1, 512));
    }
}
