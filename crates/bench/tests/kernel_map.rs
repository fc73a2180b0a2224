//! `docs/KERNELS.md` and `docs/img/kernel-map.svg` are what `nbits-mlp map --model all --device
//! discrete-gpu --tunable SHADER_CORES=132 --why --plot docs/img/kernel-map.svg` prints and draws: the
//! kernel each suite model takes at 1-512 rows with today's planner rules; its second map and
//! `docs/img/kernel-map-b128.svg` the same with `--block-size 128` (the block size of exported
//! models). With `UPDATE_SNAPSHOTS=1` this test rewrites them instead of failing.

use nbits_mlp_bench::plot::map_svg;
use nbits_mlp_bench::suites::LLM_SHAPES;
use nbits_mlp_core::coverage::forms;
use nbits_mlp_core::families::splice_between;
use nbits_mlp_core::map::{map_lines, map_text, product_lines, MapRequest};
use nbits_mlp_core::{DType, DeviceProfile, Planner, Tunables};
use std::path::PathBuf;

/// The two maps: block size, the markers around its text in `docs/KERNELS.md`, its picture.
const MAPS: [(usize, &str, &str, &str); 2] = [
    (
        32,
        "<!-- kernel map: generated, see the top of this file -->",
        "<!-- end of kernel map -->",
        "docs/img/kernel-map.svg",
    ),
    (
        128,
        "<!-- kernel map, blocks of 128: generated, see the top of this file -->",
        "<!-- end of kernel map, blocks of 128 -->",
        "docs/img/kernel-map-b128.svg",
    ),
];

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
    let doc_path = root().join("docs/KERNELS.md");
    let mut doc = std::fs::read_to_string(&doc_path).unwrap();
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    for (block, begin, end, svg_file) in MAPS {
        let request = MapRequest {
            lines: product_lines(&models, &[DType::F16, DType::F32], &forms, 4, block, false),
            rows: (1..=512).collect(),
            tunables: Tunables::from([("SHADER_CORES".to_string(), 132)]),
            why: true,
        };
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
        let lines = map_lines(&planner, &request, threads, &|| {}).unwrap();
        let device = "discrete-gpu (SHADER_CORES=132)";
        let text = format!("```text\n{}```\n", map_text(&lines, device));
        let svg = map_svg(&lines, device).unwrap();

        let svg_path = root().join(svg_file);
        let want = splice_between(&doc, begin, end, &text)
            .unwrap_or_else(|| panic!("docs/KERNELS.md lacks the lines `{begin}` and `{end}`"));
        let committed_svg = std::fs::read_to_string(&svg_path).unwrap_or_default();
        if update {
            doc = want;
            std::fs::write(&svg_path, &svg).unwrap();
        } else {
            assert!(
                want == doc,
                "docs/KERNELS.md's map in blocks of {block} is stale (a planner rule or default \
                 changed which kernel some rows take): run `UPDATE_SNAPSHOTS=1 cargo test -p \
                 nbits-mlp-bench --test kernel_map` and read the difference"
            );
            assert!(
                svg == committed_svg,
                "{svg_file} is stale: run `UPDATE_SNAPSHOTS=1 cargo test -p nbits-mlp-bench \
                 --test kernel_map`"
            );
        }
        // The map says something: every model reaches the tensor cores, and one row takes a
        // gemv (or the few-rows kernel's one-row form).
        for l in &lines {
            assert!(l.spans.iter().any(|s| s.family == "mmap"), "{}", l.title());
            assert!(l.spans[0].family.starts_with("gemv"), "{}", l.title());
            assert_eq!((l.spans[0].first, l.spans.last().unwrap().last), (1, 512));
        }
    }
    if update {
        std::fs::write(&doc_path, &doc).unwrap();
    }
}
