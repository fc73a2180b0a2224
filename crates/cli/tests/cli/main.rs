//! End-to-end tests of the `nbits-mlp` binary: every subcommand's happy path and its bad-input
//! paths (exit code 2, a message naming the thing at fault, nothing left behind).
//!
//! Most runs are rows of a table (`common::table`: arguments, exit code, text that must and must
//! not be printed, paths that must not be created); the other tests need more than that (JSON to
//! read, outputs to compare, several commands in a row).
//!
//! GPU tests run on any WebGPU adapter (software Vulkan included); without one they fail, unless
//! `NBITS_MLP_SKIP_GPU=1`, which turns them into skips.
//!
//! The tables are here; `setups` prepares their rows' scratch folders. The other tests, by
//! topic: `runs` (reading JSON, comparing outputs), `gpu`, `tune` (the tuning cache) and `bench`
//! (reports, tables and plots).

#[path = "../common/mod.rs"]
mod common;

mod bench;
mod gpu;
mod runs;
mod setups;
mod tune;

use common::table::{self, fails, ok, Row};
use setups::*;

#[test]
fn happy_paths() {
    let mut rows: Vec<Row> = [
        "check", "plan", "map", "run", "test", "gen-case", "devices", "demo", "bench", "tune",
        "fuse",
    ]
    .into_iter()
    .map(|sub| ok(format!("{sub} --help"), &format!("{sub} --help")).out(&["EXAMPLES:"]))
    .collect();
    rows.extend([
        ok("test a case on the cpu", "test --backend cpu {case}")
            .with_case()
            .out(&["PASS", "variant=reference (cpu)", "1 passed, 0 failed"]),
        ok("plan a model", "plan {model} --device discrete-gpu")
            .with_case()
            .out(&[
                "variant:   gemvr_skipsum_gb_ub",
                "@binding(0) a: read array<f32> <- A (input 0)",
            ]),
        ok(
            "plan --explain",
            "plan {model} --device discrete-gpu --explain",
        )
        .with_case()
        .out(&[
            "* gemvr_skipsum_gb_ub",
            "fused_norm_nogb_noub",
            "rejected by when[",
        ]),
        ok(
            "plan with an inputs folder and a tunable",
            "plan {model} --device webgpu-default --tunable TILE_N=16 --inputs {data}",
        )
        .with_case()
        .out(&["TILE_N=16", "3 rows"]),
        fails(
            "plan a symbolic model without inputs",
            2,
            "plan {model} --device discrete-gpu",
        )
        .with_case()
        .setup(symbolic_rows)
        .err(&["'A'", "--inputs"]),
        ok(
            "plan a symbolic model with inputs",
            "plan {model} --device discrete-gpu --inputs {data}",
        )
        .with_case()
        .setup(symbolic_rows)
        .out(&["3 rows"]),
        ok(
            "plan --shape",
            "plan --shape 4096,14336,1 --dtype f16 --skip --norm --residual --device discrete-gpu",
        )
        .out(&["shape K=4096 N=14336 rows=1", "float16, 1 row", "variant:"]),
        // The kernel map: a span per kernel, the gemv at one row, the tensor-core tile from 7
        // rows in subgroup pairs (448 invocations) where the SM count makes one wave.
        ok(
            "map a model",
            "map --model llama-3.1-8b --dtype f16 --form plain --rows 1-20 --device discrete-gpu --tunable SHADER_CORES=132",
        )
        .out(&[
            "Llama-3.1-8B: K 4096, N 14336, 4-bit blocks of 32, device discrete-gpu (SHADER_CORES=132)",
            "  float16 plain\n",
            "    1      gemv_plain_nogb_noub",
            "    7-16   mmap_nogb_noub          mmap          main 128 x 448",
            "    17-20  mmap_nogb_noub",
        ])
        .out_lacks(&["float32", "skipsum"]),
        ok(
            "map a model's nodes",
            "map {model} --device discrete-gpu --rows 1-8 --why",
        )
        .with_case()
        .out(&["node 'mlp': K ", "  float32 ", "    1  ", "from "]),
        ok(
            "map a shape on WebGPU's default limits, every form, with a picture",
            "map --shape 256,64 --rows 1-3,9 --form all --dtype f32 --device webgpu-default --plot {tmp}/map.svg",
        )
        .out(&[
            "shape: K 256, N 64, 4-bit blocks of 32, device webgpu-default\n",
            "float32 plain",
            "float32 norm",
            "float32 skip\n",
            "float32 skipsum",
            "    2-9  gemvp_f32_plain_nogb_noub  gemvp  main 4-8 x 256",
        ])
        .err(&["wrote", "map.svg"]),
        ok(
            "plan --explain, f32 few rows",
            "plan --shape 4096,14336,8 --dtype f32 --device discrete-gpu --explain",
        )
        .out(&[
            "variant:   gemvp_f32_plain_nogb_noub",
            "* gemvp_f32_plain_nogb_noub",
        ]),
        ok(
            "plan --explain, f32 past the few-rows kernel",
            "plan --shape 4096,14336,65 --dtype f32 --device discrete-gpu --explain",
        )
        .out(&[
            "variant:   mmap_nogb_noub",
            "gemvp_f32_plain_nogb_noub",
            "aRows <= tunables.GEMVP_F32_MAX_ROWS",
            "(65 vs 64)",
        ]),
        ok(
            "plan --explain, f32 past the tensor-core kernel's float32 form (capped at 384 rows)",
            "plan --shape 4096,14336,385 --dtype f32 --device discrete-gpu --tunable MMA_F32_MAX_ROWS=384 --explain",
        )
        .out(&[
            "variant:   coop_nogb_noub",
            "mmap_nogb_noub",
            "aRows <= tunables.MMA_F32_MAX_ROWS",
        ]),
        ok(
            "plan with a device profile file",
            "plan --shape 64,32,1 --device {tmp}/p.json",
        )
        .setup(profile_file)
        .out(&["device:    mine"]),
        ok(
            "a loose enough tolerance accepts a tampered output",
            "test --backend cpu --atol 0.3 {case}",
        )
        .with_case()
        .setup(tampered_expected_output)
        .out(&["PASS"]),
    ]);
    table::run(rows);
}

#[test]
fn gpu_paths() {
    table::run(vec![
        ok("devices", "devices")
            .gpu()
            .out(&["maxStorageBuffersPerShaderStage"]),
        ok(
            "plan for the live device",
            "plan --shape 256,64,1 --device gpu",
        )
        .gpu()
        .out(&["variant:"]),
        ok("demo", "demo --k 256 --n 64 --rows 2")
            .gpu()
            .out(&["result:    PASS", "GPU time:", "GB/s"])
            .err(&["[7/7] compare"]),
    ]);
}

/// Bad input: exit 2, the thing at fault named, nothing written.
#[test]
fn bad_input() {
    let mut rows = vec![
        // Missing files.
        fails(
            "run a missing model",
            2,
            "run nope.onnx --inputs in --out {out} --backend cpu",
        )
        .err(&["nope.onnx"])
        .absent(&["{out}"]),
        fails("test a missing case", 2, "test --backend cpu {tmp}/no-case").err(&["no-case"]),
        fails(
            "plan a missing model",
            2,
            "plan nope.onnx --device discrete-gpu",
        )
        .err(&["nope.onnx"]),
        fails("check a missing manifest", 2, "check nope.json").err(&["nope.json"]),
        fails(
            "test a case without input 2",
            2,
            "test --backend cpu {case}",
        )
        .with_case()
        .setup(remove_input_2)
        .err(&["input_2.pb"]),
        // A truncated tensor file.
        fails("test a truncated input", 2, "test --backend cpu {case}")
            .with_case()
            .setup(truncate_input_0)
            .err(&["input_0.pb"]),
        fails(
            "run a truncated input",
            2,
            "run {model} --inputs {data} --out {out} --backend cpu",
        )
        .with_case()
        .setup(truncate_input_0)
        .err(&["input_0.pb"])
        .absent(&["{out}"]),
    ];
    // An input that does not match the model: `run` and `plan --inputs` name input 'A'.
    for (what, setup, why) in [
        (
            "of the wrong dtype",
            a_of_wrong_dtype as table::Setup,
            "float16",
        ),
        ("of the wrong shape", a_of_wrong_shape, "shape"),
    ] {
        rows.push(
            fails(
                format!("run with A {what}"),
                2,
                "run {model} --inputs {data} --out {out} --backend cpu",
            )
            .with_case()
            .setup(setup)
            .err(&["'A'", why])
            .absent(&["{out}"]),
        );
        rows.push(
            fails(
                format!("plan --inputs with A {what}"),
                2,
                "plan {model} --device discrete-gpu --inputs {data}",
            )
            .with_case()
            .setup(setup)
            .err(&["'A'"]),
        );
    }
    rows.extend([
        // An unknown attribute in the model.
        fails(
            "plan a model with an unknown attribute",
            2,
            "plan {model} --device discrete-gpu",
        )
        .with_case()
        .setup(unknown_attribute)
        .err(&["colour", "model.onnx"]),
        fails(
            "run a model with an unknown attribute",
            2,
            "run {model} --inputs {data} --out {out} --backend cpu",
        )
        .with_case()
        .setup(unknown_attribute)
        .err(&["colour"])
        .absent(&["{out}"]),
        fails(
            "test a model with an unknown attribute",
            2,
            "test --backend cpu {case}",
        )
        .with_case()
        .setup(unknown_attribute)
        .err(&["colour"]),
        // Unknown tunables.
        fails(
            "plan an unknown tunable",
            2,
            "plan --shape 64,32,1 --device discrete-gpu --tunable TILES=4 --wgsl {wgsl}",
        )
        .err(&["TILES", "TILE_N"])
        .absent(&["{wgsl}"]),
        fails(
            "plan a tunable without a value",
            2,
            "plan --shape 64,32,1 --device discrete-gpu --tunable TILE_N",
        )
        .err(&["TILE_N"]),
        fails(
            "run an unknown tunable",
            2,
            "run {model} --inputs {data} --out {out} --backend cpu --tunable TILES=4",
        )
        .with_case()
        .err(&["TILES"])
        .absent(&["{out}"]),
        // Unknown device profiles.
        fails(
            "plan an unknown device",
            2,
            "plan --shape 64,32,1 --device rtx-9090 --wgsl {wgsl}",
        )
        .err(&["rtx-9090"])
        .absent(&["{wgsl}"]),
        fails(
            "plan a profile with an unknown limit",
            2,
            "plan --shape 64,32,1 --device {tmp}/bad.json",
        )
        .setup(misspelled_limit_profile)
        .err(&["maxStorageBufers"]),
        // 65 norm rows on WebGPU's default limits with a 1024-thread norm pass: the seed's norm
        // variants need the norm pass to fit the device, the overlay's kernels more workgroup
        // storage or fewer rows (the few-rows kernel's float32 form at most 64), so no variant
        // applies; the error lists the variants.
        fails(
            "no variant applies",
            2,
            "plan --shape 64,32,65 --norm --device webgpu-default --tunable NORM_WORKGROUP_SIZE=1024 --wgsl {wgsl}",
        )
        .err(&[
            "no variant applies",
            "staged_norm_nogb_noub",
            "normDispatchFits",
        ])
        .absent(&["{wgsl}"]),
    ]);
    // gen-case: bad arguments write nothing, not even a temporary (the runner checks that the
    // scratch folder is left as it was).
    for (flags, want) in [
        ("--skip", "norm_scale"),
        ("--bits 3", "bits"),
        ("--block-size 0", "block_size"),
        ("--dtype uint8", "uint8"),
    ] {
        let args = format!("gen-case {{tmp}}/c --k 64 --n 8 --rows 1 {flags}");
        rows.push(
            fails(format!("gen-case {flags}"), 2, &args)
                .err(&[want])
                .absent(&["{tmp}/c"]),
        );
    }
    rows.extend([
        // Manifest problems.
        fails("check a misspelled key", 2, "check {tmp}/typo.json")
            .setup(manifest_with_typo)
            .err(&["typo.json", "variants[0]", "pririty"]),
        fails("check a missing template", 2, "check {tmp}/missing.json")
            .setup(manifest_with_missing_template)
            .err(&["missing.json", "nope.wgsl.jinja"]),
        // An edited template whose WGSL naga rejects: `plan` names the pass, the template and
        // the line, and writes no WGSL.
        fails(
            "plan with a broken template",
            2,
            "plan --shape 4096,14336,4 --dtype f16 --device discrete-gpu --templates {tmp}/broken --wgsl {wgsl}",
        )
        .setup(broken_template)
        .err(&["pass `main`", "mlp-gemvp.wgsl.jinja", "parse error", "t % CW +"])
        .absent(&["{wgsl}"]),
        ok("check the seed alone", "check {tmp}/seed.json")
            .setup(seed_manifest_file)
            .out(&["ok: 27 variants"]),
        // A wrong expected output fails the test (exit 1).
        fails(
            "test a tampered expected output",
            1,
            "test --backend cpu {case}",
        )
        .with_case()
        .setup(tampered_expected_output)
        .out(&["FAIL", "output 'Y'", "0 passed, 1 failed"]),
    ]);
    // tune: bad arguments.
    for (flags, want) in [
        ("--skip", "allowed only with --shape"),
        ("--suite nope", "unknown suite"),
        ("--shape 1,2", "K,N,ROWS"),
        ("--shape 64,32,1 --bits 3", "bits"),
    ] {
        rows.push(
            fails(
                format!("tune {flags}"),
                2,
                &format!("tune {flags} --out {{tmp}}/c.json"),
            )
            .err(&[want])
            .absent(&["{tmp}/c.json"]),
        );
    }
    table::run(rows);
}

/// Usage errors (clap's and the commands' own): exit 2.
#[test]
fn usage_errors() {
    table::run(vec![
        fails(
            "plan needs a model or --shape",
            2,
            "plan --device discrete-gpu",
        ),
        fails(
            "plan takes a model or --shape, not both",
            2,
            "plan m.onnx --shape 1,2,3 --device discrete-gpu",
        ),
        fails(
            "plan --shape with two numbers",
            2,
            "plan --shape 1,2 --device discrete-gpu",
        )
        .err(&["K,N,ROWS"]),
        fails("a negative --rtol", 2, "test x --rtol=-1").err(&["rtol"]),
        fails("map needs a model or --shape", 2, "map --device discrete-gpu"),
        fails(
            "map a model file with --bits",
            2,
            "map {model} --bits 2 --device discrete-gpu",
        )
        .with_case()
        .err(&["--bits", "allowed only with --model or --shape"]),
        fails(
            "map a model file that is not there",
            2,
            "map {tmp}/nope.onnx --device discrete-gpu",
        )
        .err(&["nope.onnx"]),
        fails(
            "map a model nobody benchmarks",
            2,
            "map --model gpt-9 --device discrete-gpu",
        )
        .err(&["--model gpt-9", "Llama-3.1-8B"]),
        fails(
            "map rows of 0",
            2,
            "map --model 8b --rows 0-4 --device discrete-gpu",
        )
        .err(&["--rows", "0-4"]),
        fails(
            "map a backwards range",
            2,
            "map --model 8b --rows 9-4 --device discrete-gpu",
        )
        .err(&["--rows", "9-4", "backwards"]),
        fails(
            "map an unknown form",
            2,
            "map --model 8b --form fancy --device discrete-gpu",
        )
        .err(&["--form", "fancy", "skipsum"]),
        fails(
            "map an unknown dtype",
            2,
            "map --model 8b --dtype bf16 --device discrete-gpu",
        )
        .err(&["--dtype", "bf16"]),
        fails(
            "map bits the op does not take",
            2,
            "map --model 8b --bits 3 --rows 1-4 --device discrete-gpu",
        )
        .err(&["Llama-3.1-8B float16 plain, rows 1", "bits"]),
        fails(
            "map a picture of another format",
            2,
            "map --model 8b --rows 1-4 --device discrete-gpu --plot {tmp}/map.gif",
        )
        .err(&["map.gif", ".svg or .png"])
        .absent(&["{tmp}/map.gif"]),
        fails(
            "map a picture into a folder that is not there",
            2,
            "map --model 8b --rows 1-2 --device discrete-gpu --plot {tmp}/no/map.svg",
        )
        .err(&["map.svg"])
        .out_lacks(&["Llama"]),
        fails("map --shape with three numbers", 2, "map --shape 1,2,3 --device discrete-gpu")
            .err(&["K,N"]),
        fails("an unknown subcommand", 2, "frobnicate"),
        fails("demo --rows 0", 2, "demo --rows 0").err(&["--rows"]),
        fails(
            "--adapter with a named profile",
            2,
            "plan --shape 64,32,1 --device discrete-gpu --adapter x",
        )
        .err(&["--adapter"]),
        fails(
            "--compiled with a named profile",
            2,
            "plan --shape 64,32,1 --device discrete-gpu --compiled",
        )
        .err(&["--compiled", "--device gpu"]),
        fails(
            "--skip with a model",
            2,
            "plan {model} --device discrete-gpu --skip",
        )
        .with_case()
        .err(&["--skip"]),
        // bench: filters that select nothing, and bad report arguments.
        fails(
            "bench a model not in the suite",
            2,
            "bench --suite full --model no-such-model --out {out}",
        )
        .err(&["no shape", "no-such-model"])
        .absent(&["{out}"]),
        // An overlay that cannot be read or parsed: named, before any GPU work, nothing written.
        fails(
            "bench with a missing overlay",
            2,
            "bench --suite decode --rows 1 --overlay {tmp}/nope.json --out {out}",
        )
        .err(&["overlay", "nope.json"])
        .absent(&["{out}"]),
        fails(
            "bench with a truncated overlay",
            2,
            "bench --suite decode --rows 1 --overlay {tmp}/badov.json --out {out}",
        )
        .setup(truncated_overlay)
        .err(&["badov.json", "variants"])
        .absent(&["{out}"]),
        // `--shape` and `--at-block-size`: a shape outside the operator's contract is the error
        // before any GPU work, as the contract words it; nothing written.
        fails(
            "bench a block size outside the contract",
            2,
            "bench --suite decode --rows 1 --at-block-size 24 --out {out}",
        )
        .err(&["q4b24", "block_size", "power of two and at least 16"])
        .absent(&["{out}"]),
        fails(
            "bench a shape with no K",
            2,
            "bench --shape 0,64 --out {out}",
        )
        .err(&["--shape 0,64", "at least 1"])
        .absent(&["{out}"]),
        fails(
            "bench a shape that is not K,N",
            2,
            "bench --shape 4096,14336,16 --out {out}",
        )
        .err(&["--shape", "expected K,N"])
        .absent(&["{out}"]),
        fails(
            "bench a shape and a suite",
            2,
            "bench --shape 64,64 --suite full --out {out}",
        )
        .err(&["--shape", "cannot be used with", "--suite"])
        .absent(&["{out}"]),
        fails(
            "bench a shape at rows it does not have",
            2,
            "bench --shape 64,64 --rows 7 --out {out}",
        )
        .err(&[
            "shape 64,64 has no shape with --rows 7",
            "its rows by then: 1, 16, 128, 512",
            "--at-rows",
        ])
        .absent(&["{out}"]),
        fails(
            "bench rows not in the suite",
            2,
            "bench --suite decode --rows 7 --out {out}",
        )
        .err(&["no shape with --rows 7", "its rows by then: 1, 128"])
        .absent(&["{out}"]),
        fails(
            "bench a dtype the suite does not have",
            2,
            "bench --suite llama8b --rows 16 --dtype f32 --out {out}",
        )
        .err(&[
            "suite `llama8b` has no shape with --dtype f32",
            "its dtypes by then: f16",
            "`full` suite",
        ])
        .absent(&["{out}"]),
        fails(
            "bench a model the suite does not have",
            2,
            "bench --suite full --model nosuch --out {out}",
        )
        .err(&["--model nosuch", "Llama-3.1-8B"])
        .absent(&["{out}"]),
        fails(
            "bench --table with a bad peer line",
            2,
            "bench --table {runs}/2026-11-30-s6-full/full.json --peers {tmp}/ort.jsonl",
        )
        .setup(bad_peers_file)
        .err(&["ort.jsonl, line 1"]),
        // Two runs of no shape in common.
        fails(
            "bench --compare of no shape in common",
            2,
            "bench --compare {runs}/2026-12-03-s21-f32/call2-d32_512.json {runs}/2026-12-01-s8-merged/curve.json",
        )
        .err(&["call2-d32_512.json and ", "curve.json have no shape in common"]),
        fails(
            "bench --compare of one report",
            2,
            "bench --compare {runs}/2026-12-01-s8-merged/curve.json",
        )
        .err(&["--compare"]),
        fails(
            "bench --compare a missing report",
            2,
            "bench --compare {runs}/2026-12-01-s8-merged/curve.json {tmp}/no.json",
        )
        .err(&["no.json"]),
        fails(
            "bench --compare --across of an unknown key",
            2,
            "bench --compare {runs}/2026-12-01-s8-merged/curve.json {runs}/2026-12-01-s8-merged/curve.json --across colour",
        )
        .err(&["--across", "unknown key `colour`", "dtype, bits, block-size, form"]),
        fails(
            "bench --compare --across of a value the key cannot take",
            2,
            "bench --compare {runs}/2026-12-01-s8-merged/curve.json {runs}/2026-12-01-s8-merged/curve.json --across bits=3",
        )
        .err(&["`3` is no value of bits (2, 4 or 8)"]),
        fails(
            "bench --compare --across of no pair",
            2,
            "bench --compare {runs}/2026-12-01-s8-merged/curve.json {runs}/2026-12-01-s8-merged/curve.json --across dtype",
        )
        .err(&["no two shapes that differ in dtype only"]),
        fails(
            "bench --across without --compare",
            2,
            "bench --across dtype",
        )
        .err(&["--compare"]),
        fails(
            "bench --peers without --table",
            2,
            "bench --peers {tmp}/ort.jsonl",
        )
        .setup(bad_peers_file)
        .err(&["--table"]),
        // Seven models in the report: the rows plot asks for one.
        fails(
            "bench --plot-rows without --model",
            2,
            "bench --plot-rows {runs}/2026-11-30-s6-full/full.json --dtype f16 --out {tmp}/x.svg",
        )
        .err(&["--model", "full.json"]),
        // Runs of two binaries do not merge into one curve.
        fails(
            "bench --plot-rows of two commits",
            2,
            "bench --plot-rows {runs}/2026-11-30-s6-full/full.json --plot-rows {runs}/2026-12-01-s8-merged/curve.json --model llama-3.1-8b --out {tmp}/x.svg",
        )
        .err(&["report 2", "commit", "one binary on one GPU"]),
        fails(
            "bench --plot-rows to a .pdf",
            2,
            "bench --plot-rows {runs}/2026-11-30-s6-full/full.json --model llama-3.1-8b --out {tmp}/x.pdf",
        )
        .err(&[".svg or .png"]),
    ]);
}
