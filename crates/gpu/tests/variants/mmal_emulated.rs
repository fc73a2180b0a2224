//! The large-tile tensor-core kernel (`mmal_*`; and, in the ignored `mma_emulated`, the
//! weights-once kernel `mma_*` / `mmap_*`) where no tensor cores run: its rendered shader
//! with each cooperative-matrix operation replaced by plain WGSL that computes what the operation
//! is defined to compute, run on any adapter with shader-f16 (lavapipe on CI) and checked against
//! the float64 reference with poisoned outputs.
//!
//! What this checks: everything of the kernel but the tensor cores themselves — the weight and
//! activation loads, the packed-f16 dequantisation and its code order, the double-buffered
//! staging with one barrier per chunk, the fragment offsets (which rows and codes each
//! subgroup's fragments cover), the epilogue's mapping of accumulator elements to rows and
//! columns, split K and the reduce pass, the norm forms, biases, and the bounds (rows past the
//! call, N and K not multiples of the tiles). The replacements follow the semantics the `mma`
//! kernel relies on and that run right on the H200 (`mma_variants`): `coopLoadT` reads a
//! row-major 16 x 16 matrix (row i at `ptr + i * stride` elements of the array), `coopLoad` a
//! column-major one (column j at `ptr + j * stride`), `coopStore` writes column-major
//! (`coopStoreT` row-major: the float32 form's flush since session 41, notes/PERF.md row 241),
//! `coopMultiplyAdd(a, b, c)` is `a · b + c`. A fragment becomes the offset it was loaded from
//! (the workgroup memory under it does not change before the multiply-add: the kernel's
//! barriers guarantee it), an accumulator 8 floats per invocation (elements `lane + 32 i`, as
//! the epilogue reads them), the product a loop over workgroup memory. The `mma` template's
//! float32 form adds three: a product from a zero accumulator (`czero`: each unit's first), a
//! weight fragment times 2^-11 (`let w = v * RLOH;`: the same offset, marked scaled), and the
//! product of a scaled fragment with a fragment of the activations' low parts (`act_lo`), which
//! must go together; an accumulator added into another (`x = x + y`) and sums read back from the
//! scratch (`let x = coopLoad<..., C>>(&cscr[at], 4u)`, K pairs) are emulated too. What it
//! cannot check: the real operations' layouts and uniformity on a driver (the `mmal_variants`
//! test on a GPU with cooperative matrices does).

use crate::calls::{fuzz_seed, overrides, seed, shape_of, Call, Cycle, Rng, SkGrid, SpecCycles};
use crate::common::check::check_outputs;
use nbits_mlp_core::{DType, DeviceProfile, Plan, Planner, Tunables};
use nbits_mlp_gpu::{testing, RunOptions, Runtime};
use std::sync::Arc;

/// Plain WGSL for the cooperative-matrix operations of the `mmal` shader.
const EMULATION: &str = r#"
// ---- cooperative-matrix operations emulated (tests only) ----
fn emu_mma(a: u32, b: u32, acc: ptr<function, array<f32, 8>>, lane: u32) {
    for (var i = 0u; i < 8u; i = i + 1u) {
        let e = lane + 32u * i;
        let n = e % 16u;
        let m = e / 16u;
        var s = 0.0;
        for (var k = 0u; k < 16u; k = k + 1u) {
            s = s + f32(slab[a + n * LDQ + k / 4u][k % 4u]) * f32(act[b + m * LDQ + k / 4u][k % 4u]);
        }
        (*acc)[i] = (*acc)[i] + s;
    }
}

fn emu_store(acc: array<f32, 8>, o: u32, lane: u32, rows: bool) {
    // Column-major (`coopStore`), or row-major where `rows` (`coopStoreT`).
    var v = acc;
    for (var i = 0u; i < 8u; i = i + 1u) {
        let e = lane + 32u * i;
        let t = select(e, (e % 16u) * 16u + e / 16u, rows);
        cscr[o + t / 4u][t % 4u] = v[i];
    }
}

fn emu_load(o: u32, lane: u32) -> array<f32, 8> {
    var v: array<f32, 8>;
    for (var i = 0u; i < 8u; i = i + 1u) {
        let e = lane + 32u * i;
        v[i] = cscr[o + e / 4u][e % 4u];
    }
    return v;
}

fn emu_add(acc: ptr<function, array<f32, 8>>, b: array<f32, 8>) {
    var v = b;
    for (var i = 0u; i < 8u; i = i + 1u) {
        (*acc)[i] = (*acc)[i] + v[i];
    }
}
"#;

/// The float32 form's scale of its low-part products (its shaders alone have `act_lo`; those
/// products, `emu_mma_lo`, are `emu_mma` reading `act_lo` with the weights times 2^-11:
/// [`emulate`]).
const EMULATION_F32: &str = r#"
const RLO: f32 = 0.00048828125;
"#;

/// The text between `open` and `close` in `line` (both must be there).
fn between<'a>(line: &'a str, open: &str, close: &str) -> &'a str {
    let s = line
        .find(open)
        .unwrap_or_else(|| panic!("no `{open}` in {line}"))
        + open.len();
    let e = line[s..]
        .rfind(close)
        .unwrap_or_else(|| panic!("no `{close}` in {line}"));
    &line[s..s + e]
}

/// The `mmal` main pass's WGSL with every cooperative-matrix operation emulated (see the module
/// doc). Panics on a line it does not know, so a template change cannot slip past it.
pub fn emulate(wgsl: &str) -> String {
    let mut out = String::new();
    // Fragments loaded from the float32 form's low-part tile (`act_lo`).
    let mut lo = std::collections::BTreeSet::new();
    // Accumulators (declared from zeroed scratch).
    let mut accs = std::collections::BTreeSet::new();
    // Weight fragments times 2^-11 (the float32 form's, for its low-part products).
    let mut scaled = std::collections::BTreeSet::new();
    for line in wgsl.lines() {
        let indent = &line[..line.len() - line.trim_start().len()];
        let l = line.trim();
        let new = if l == "enable wgpu_cooperative_matrix;" {
            continue;
        } else if l == "subgroupBarrier();" {
            // An emulated fragment reads workgroup memory when multiplied, by every invocation
            // of the 32 it stands for, and those span several of lavapipe's subgroups of 8: the
            // workgroup barrier orders what the subgroup barrier orders on a GPU.
            "workgroupBarrier();".to_string()
        } else if l.contains("coopLoadT<coop_mat16x16<f16, A>>(&slab[") {
            let name = between(l, "let ", " = ");
            let at = between(l, "(&slab[", "], LDQ);");
            format!("let {name} = {at};")
        } else if l.starts_with("let ") && l.ends_with(" * RLOH;") {
            // A weight fragment times 2^-11: the same offset, its products scaled.
            let name = between(l, "let ", " = ");
            let of = between(l, " = ", " * RLOH;");
            scaled.insert(name.to_string());
            format!("let {name} = {of};")
        } else if l.contains("coopLoad<coop_mat16x16<f16, B>>(&act[") {
            // Activation fragments: the chunk's tile (stride LDQ) or the `mma` kernel's
            // activation block (stride LDA, the only stride of `act` in such a shader).
            let name = between(l, "let ", " = ");
            let close = if l.ends_with("], LDA);") {
                "], LDA);"
            } else {
                "], LDQ);"
            };
            let at = between(l, "(&act[", close);
            format!("let {name} = {at};")
        } else if l.contains("coopLoad<coop_mat16x16<f16, B>>(&act_lo[") {
            // The float32 form's low parts: the chunk's tile or the activation block, as `act`.
            let name = between(l, "let ", " = ");
            let close = if l.ends_with("], LDA);") {
                "], LDA);"
            } else {
                "], LDQ);"
            };
            let at = between(l, "(&act_lo[", close);
            lo.insert(name.to_string());
            format!("let {name} = {at};")
        } else if l.contains("coopLoad<coop_mat16x16<f32, C>>(&cscr[0], 4u)") {
            if let Some(name) = l.strip_prefix("var ") {
                let name = name.split(" = ").next().unwrap();
                accs.insert(name.to_string());
                format!("var {name}: array<f32, 8>;")
            } else {
                // A zeroed accumulator again (stream-K: each segment starts from zero).
                let name = l.split(" = ").next().unwrap();
                format!("{name} = array<f32, 8>();")
            }
        } else if l.starts_with("let ") && l.contains(" = coopLoad<coop_mat16x16<f32, C>>(&cscr[") {
            // Sums read back from the scratch (K pairs: the odd chunks' sums, added next).
            let name = between(l, "let ", " = ");
            let at = between(l, "(&cscr[", "], 4u);");
            accs.insert(name.to_string());
            format!("let {name} = emu_load({at}, lane);")
        } else if l.contains("coopMultiplyAdd(") {
            let target = l.split(" = ").next().unwrap();
            let args: Vec<&str> = between(l, "coopMultiplyAdd(", ");").split(", ").collect();
            assert_eq!(args.len(), 3, "{l}");
            // Low parts meet the scaled weights, and only they do.
            assert_eq!(lo.contains(args[1]), scaled.contains(args[0]), "{l}");
            let f = if lo.contains(args[1]) {
                "emu_mma_lo"
            } else {
                "emu_mma"
            };
            let call = format!("{f}({}, {}, &{target}, lane);", args[0], args[1]);
            if args[2] == "czero" {
                // A unit's first product (the float32 form): from a zero accumulator.
                format!("{target} = array<f32, 8>(); {call}")
            } else {
                assert_eq!(args[2], target, "{l}");
                call
            }
        } else if let Some(op) = ["coopStore(", "coopStoreT("]
            .into_iter()
            .find(|op| l.starts_with(op))
        {
            // coopStore(matrix, &cscr[at], 4u) (column-major; coopStoreT row-major: row i at
            // `ptr + i * stride`, the stride 4 vec4s: 16 floats); `at` may hold commas.
            let inner = between(l, op, "], 4u);");
            let (matrix, at) = inner
                .split_once(", &cscr[")
                .unwrap_or_else(|| panic!("{l}"));
            assert!(accs.contains(matrix), "{l}");
            let rows = op == "coopStoreT(";
            format!("emu_store({matrix}, {at}, lane, {rows});")
        } else if let Some((target, b)) = l
            .strip_suffix(';')
            .and_then(|e| e.split_once(" = "))
            .and_then(|(t, e)| Some((t, e.strip_prefix(t)?.strip_prefix(" + ")?)))
            .filter(|(t, b)| accs.contains(*t) && accs.contains(*b))
        {
            // One accumulator added into another (`x = x + y`).
            format!("emu_add(&{target}, {b});")
        } else {
            assert!(
                l.starts_with("//") || !l.contains("coop"),
                "a cooperative operation not emulated: {l}"
            );
            l.to_string()
        };
        out.push_str(indent);
        out.push_str(&new);
        out.push('\n');
    }
    // The `mma` kernel's activation blocks: `act` (and `act_lo`) rows LDA quads apart.
    let emulation = if wgsl.contains("const LDA: u32") {
        EMULATION.replace("act[b + m * LDQ", "act[b + m * LDA")
    } else {
        EMULATION.to_string()
    };
    out.push_str(&emulation);
    if wgsl.contains("var<workgroup> act_lo") {
        let mma = &emulation
            [emulation.find("fn emu_mma(").unwrap()..emulation.find("fn emu_store(").unwrap()];
        out.push_str(
            &mma.replace("fn emu_mma(", "fn emu_mma_lo(")
                .replace("act[b", "act_lo[b")
                .replace("(*acc)[i] + s;", "(*acc)[i] + s * RLO;"),
        );
        out.push_str(EMULATION_F32);
    }
    out
}

/// Plans `call` with `planner` (the plan must be of `family`, a variant-id prefix: `mmal_`,
/// `mma_`, `mmap_`; or "" for any), emulates the main pass (where it has cooperative
/// operations), runs it here with poisoned outputs and checks them
/// against the reference (`check_outputs`, as every other GPU test). Returns the plan's variant
/// and Y's largest error.
pub(crate) fn run_emulated(
    rt: &Runtime,
    planner: &Planner,
    call: &Call,
    t: &Tunables,
    what: &str,
    family: &str,
) -> (String, f64) {
    let case = call.case();
    let residual = call.shape.residual;
    let inputs = case.input_refs();
    let plan = planner
        .plan(&case.call(), t)
        .unwrap_or_else(|e| panic!("{what} ({call}): {e}"));
    let mut plan: Plan = (*plan).clone();
    assert!(
        plan.variant.starts_with(family),
        "{what} ({call}): {}",
        plan.variant
    );
    for p in &mut plan.passes {
        // A main pass without cooperative operations (a few-rows kernel the planner took) runs
        // as it is.
        if p.id == "main" && p.wgsl.contains("enable wgpu_cooperative_matrix;") {
            p.wgsl = emulate(&p.wgsl).into();
            nbits_mlp_core::render::validate_wgsl(&p.wgsl)
                .unwrap_or_else(|e| panic!("{what}: emulated WGSL does not validate:\n{e}"));
        }
    }
    let out = rt
        .run_plan(&plan, &inputs, &RunOptions { poison: true })
        .unwrap_or_else(|e| panic!("{what} ({call}, {}): {e}", plan.variant));
    let c = check_outputs(
        rt,
        Arc::new(plan),
        out,
        &case.attrs,
        &inputs,
        residual,
        &format!("{what} ({call})"),
    );
    (c.plan.variant.clone(), c.y_err)
}

/// The runtime, a planner for the `discrete-gpu` profile within this device's workgroup storage
/// (at most 49 152 bytes) and that storage, for a test of emulated shaders (`test` names it in
/// the note printed when it is skipped: no adapter, or no shader-f16).
pub(crate) fn emulation_setup(test: &str) -> Option<(Runtime, Planner, u64)> {
    let rt = testing::runtime()?;
    if !rt.profile().has_feature("shader-f16") {
        eprintln!("{test}: skipped: no shader-f16 on {}", rt.gpu().info().name);
        return None;
    }
    let storage = rt
        .profile()
        .limit("maxComputeWorkgroupStorageSize")
        .unwrap_or(16384)
        .min(49152);
    let planner = Planner::project(
        DeviceProfile::discrete_gpu().with_limit("maxComputeWorkgroupStorageSize", storage),
    );
    Some((rt, planner, storage))
}

/// [`emulation_setup`] for a test whose tiles need `min_storage` bytes of workgroup storage:
/// `None`, with a note naming `test`, where this device has less.
fn emulation_setup_at_least(test: &str, min_storage: u64) -> Option<(Runtime, Planner, u64)> {
    let setup = emulation_setup(test)?;
    if setup.2 < min_storage {
        eprintln!("{test}: skipped: {} bytes of workgroup storage", setup.2);
        return None;
    }
    Some(setup)
}

/// Every `mmal` variant (16 forms, K whole and in 3 slices) at the coverage matrix's awkward
/// sizes, then a sweep of shapes and tile shapes (one to eight subgroups, one or two weight rows
/// per invocation, 1-4 row blocks, K slices), each with the cooperative operations emulated
/// (module doc). Runs wherever shader-f16 does (lavapipe on CI); tiles that do not fit this
/// device's workgroup storage are planned smaller by the tunables.
#[test]
fn mmal_emulated() {
    let Some((rt, planner, storage)) = emulation_setup("mmal_emulated") else {
        return;
    };
    // The default tile (4 x 2 subgroups, 64 columns x 32-128 rows: 33 792-49 152 bytes) where
    // the device holds it, else 2 x 2 subgroups of 16 columns x 16 rows (19 456 bytes; two
    // invocations per weight row, as the default tile has).
    let small = storage < 49152;
    let tile: Vec<(&str, i64)> = if small {
        vec![("MMAL_COL_GROUPS", 2), ("MMAL_ROW_BLOCKS", 1)]
    } else {
        vec![]
    };
    let with = |pairs: &[(&str, i64)]| {
        let mut t = overrides(&[("MMAL_MIN_ROWS", 2)]);
        for (k, v) in tile.iter().chain(pairs) {
            t.insert(k.to_string(), *v);
        }
        t
    };
    let mut reached = std::collections::BTreeSet::new();
    for (i, case) in nbits_mlp_core::coverage::mmal_matrix().iter().enumerate() {
        let shape = shape_of(case);
        let call = if i % 4 == 1 {
            Call::rank3(shape, seed(32, i))
        } else {
            Call::rank2(shape, seed(32, i))
        };
        for (split, expect) in [
            (1, case.expect.clone()),
            (3, case.expect.replacen("mmal_", "mmal_split_", 1)),
        ] {
            let t = with(&[("MMAL_SPLIT_K", split)]);
            let (v, err) = run_emulated(&rt, &planner, &call, &t, &case.name, "mmal_");
            assert_eq!(v, expect, "{} ({call})", case.name);
            eprintln!("mmal_emulated: {} ({call}): {v} err {err:.3e}", case.name);
            reached.insert(v);
        }
    }
    assert_eq!(reached.len(), 32, "{reached:?}");
    // Tile shapes: (col blocks, col groups, row groups, row blocks); all fit 32 KiB.
    let mut tiles = Cycle::new(&[
        (2i64, 2i64, 2i64, 1i64),
        (2, 1, 2, 4),
        (1, 2, 2, 2),
        (1, 1, 1, 1),
        (2, 1, 1, 3),
        (1, 2, 4, 1),
        (1, 4, 1, 2),
    ]);
    let mut splits = Cycle::new(&[0i64, 1, 2, 5]);
    let mut rng = Rng(0x3d3d);
    let mut lists = SpecCycles::new(
        &[64, 200, 328, 1000],
        &[16, 37, 130, 300],
        &[2, 17, 31, 48, 63, 64, 65, 129, 200],
    );
    const RUNS: usize = 28;
    let mut ran = 0;
    for i in 0..RUNS {
        let mut spec = lists.next(&mut rng, 3);
        spec.dtype = DType::F16;
        if !(spec.k_blocks() * spec.blob_size()).is_multiple_of(16) {
            continue;
        }
        let (cb, wc, wr, rb) = tiles.next(&mut rng);
        let t = overrides(&[
            ("MMAL_MIN_ROWS", 2),
            ("MMAL_COL_BLOCKS", cb),
            ("MMAL_COL_GROUPS", wc),
            ("MMAL_ROW_GROUPS", wr),
            ("MMAL_ROW_BLOCKS", rb),
            ("MMAL_SPLIT_K", splits.next(&mut rng)),
        ]);
        let call = if i % 5 == 4 {
            Call::rank3(spec, seed(33, i))
        } else {
            Call::rank2(spec, seed(33, i))
        };
        let what = format!("mmal_emulated #{i} {t:?}");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, "mmal_");
        println!("{what} {call}: {v} (err {err:.2e})");
        ran += 1;
    }
    assert!(
        ran >= RUNS / 2,
        "only {ran} of {RUNS} sweep calls had whole 16-byte weight rows"
    );
}

/// The weights-once tensor-core kernel (`templates/mlp-mma.wgsl.jinja`: `mma_*` on the op's
/// layout, `mmap_*` on the prepared one) where no tensor cores run, its float16 form with each
/// cooperative operation emulated as for `mmal` (the same replacements: the template uses the
/// same slab, activation tile and scratch names and layouts): every form of both families (16
/// each, K whole or in 3 slices, gate and up together or in turns) at the coverage matrices'
/// awkward sizes, then a short sweep of rows around the 16-row blocks, row blocks, fetch groups,
/// K slices and gate and up in turns. Tiles are planned with 4 subgroups where this device's
/// workgroup storage is below the default tile's, else by tile or with 7, 5 or 6 subgroups by
/// coverage case. Ignored by default (about 18 minutes on a
/// 2-core machine's lavapipe with a cold shader cache, too long for CI):
/// `cargo test --release -p nbits-mlp-gpu --test variants -- --ignored mma_emulated`.
#[test]
#[ignore = "about 18 minutes on lavapipe with a cold shader cache: run with --ignored"]
fn mma_emulated() {
    let Some((rt, planner, storage)) = emulation_setup("mma_emulated") else {
        return;
    };
    // 8 subgroups of 16-row tiles take 47 360 bytes; 4 subgroups with up to 4 row blocks 32 512.
    let subgroups = if storage < 47360 { 4 } else { 0 };
    let mut reached = std::collections::BTreeSet::new();
    for (family, matrix, open) in [
        ("mma_", nbits_mlp_core::coverage::mma_matrix(), 0i64),
        ("mmap_", nbits_mlp_core::coverage::mmap_matrix(), 32),
    ] {
        for (i, case) in matrix.iter().enumerate() {
            let shape = shape_of(case);
            let call = if i % 4 == 1 {
                Call::rank3(shape, seed(34, i))
            } else {
                Call::rank2(shape, seed(34, i))
            };
            // K whole for even cases, in 3 slices for odd ones.
            let split = if i % 2 == 0 { 1i64 } else { 3 };
            let expect = if split == 1 {
                case.expect.clone()
            } else {
                case.expect.replacen(family, &format!("{family}split_"), 1)
            };
            // Gate and up in turns (tiles of 2 row blocks, which that form needs) for cases 0, 1
            // mod 4 (whole and split), together for 2, 3.
            let (seq, row_blocks) = if i % 4 < 2 { (0, 2) } else { (65535, 0) };
            let t = overrides(&[
                ("MMAP_MAX_ROWS", open),
                ("MMA_SPLIT_K", split),
                ("MMAP_SPLIT_K", split),
                // Subgroups: by tile (7-8 or 4), 7, 5 or 6 where the device holds them.
                (
                    "MMA_SUBGROUPS",
                    if subgroups == 4 {
                        4
                    } else {
                        [0, 7, 5, 6][i % 4]
                    },
                ),
                ("MMA_SEQ_MIN_TILES", seq),
                ("MMA_ROW_BLOCKS", row_blocks),
                // In turns: two activation tiles on case 0, one on case 1 (mod 4).
                ("MMA_ACT_BUFFERS", if i % 4 == 0 { 2 } else { 1 }),
            ]);
            let (v, err) = run_emulated(&rt, &planner, &call, &t, &case.name, family);
            assert_eq!(v, expect, "{} ({call})", case.name);
            eprintln!("mma_emulated: {} ({call}): {v} err {err:.3e}", case.name);
            reached.insert(v);
        }
    }
    // Every form (norm x bias) of both families, whole or split.
    for family in ["mma_", "mmap_"] {
        let forms: std::collections::BTreeSet<String> = reached
            .iter()
            .filter(|v| v.starts_with(family))
            .map(|v| v.replacen(family, "", 1).replacen("split_", "", 1))
            .collect();
        assert_eq!(forms.len(), 16, "{family}: {forms:?}");
    }
    assert!(reached.iter().any(|v| v.contains("_split_")));
    let mut row_blocks = Cycle::new(&[0i64, 1, 2, 4]);
    let mut splits = Cycle::new(&[0i64, 1, 2, 5]);
    let mut groups = Cycle::new(&[0i64, 1, 2, 4]);
    let mut seqs = Cycle::new(&[0i64, 65535]);
    let mut act_tiles = Cycle::new(&[2i64, 1]);
    let mut rng = Rng(0x3e3e);
    let mut lists = SpecCycles::new(&[64, 200, 328], &[16, 37], &[2, 17, 33, 48]);
    const RUNS: usize = 6;
    for i in 0..RUNS {
        let mut spec = lists.next(&mut rng, 3);
        spec.dtype = DType::F16;
        let prepared = i % 2 == 0;
        let rows = row_blocks.next(&mut rng);
        let t = overrides(&[
            ("MMA_MIN_ROWS", 2),
            ("MMAP_MAX_ROWS", if prepared { 65535 } else { 0 }),
            ("MMAL_MIN_ROWS", 0),
            ("MMA_ROW_BLOCKS", rows),
            ("MMA_SPLIT_K", splits.next(&mut rng)),
            ("MMAP_SPLIT_K", splits.next(&mut rng)),
            ("MMA_FETCH_GROUP", groups.next(&mut rng)),
            ("MMA_SUBGROUPS", subgroups),
            ("MMA_SEQ_MIN_TILES", seqs.next(&mut rng)),
            ("MMA_ACT_BUFFERS", act_tiles.next(&mut rng)),
        ]);
        // The op's layout needs whole 16-byte weight rows; the prepared one pads.
        if !prepared && !(spec.k_blocks() * spec.blob_size()).is_multiple_of(16) {
            continue;
        }
        let call = if i % 5 == 4 {
            Call::rank3(spec, seed(35, i))
        } else {
            Call::rank2(spec, seed(35, i))
        };
        let family = if prepared { "mmap_" } else { "mma_" };
        let what = format!("mma_emulated #{i} {t:?}");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, family);
        println!("{what} {call}: {v} (err {err:.2e})");
    }
}

/// The 16-row tiles' activation blocks (`mlp-mma`'s ACTB, `mmaActBlock`: the activations of
/// several chunks staged at a time, each subgroup's weights in turns between subgroup barriers),
/// emulated as above, against the reference with poisoned outputs: four calls, each planned with
/// the blocks (checked in the plan): one block holding the whole of a K that ends mid-chunk; K in
/// 4 slices of 4 chunks, blocks of 2 (the last cut by K), 2-bit codes in blocks of 16 with skip +
/// norm; blocks of 3 chunks over K in 3 slices of 5 (each slice's blocks from its own start, the
/// second cut by the slice), 8-bit codes with the residual output; and 9 rows of a 16-row tile
/// with N past the last column range.
#[test]
fn mmap_block_emulated() {
    let Some((rt, planner, storage)) = emulation_setup("mmap_block_emulated") else {
        return;
    };
    // 7 subgroups and a block of 8 chunks take 39 936 bytes; 4 subgroups 29 952.
    let subgroups = if storage < 39936 { 4 } else { 0 };
    let matrix = nbits_mlp_core::coverage::mmap_matrix();
    // (matrix case: form and bias; K, N, rows, bits, block; chunks per block, K slices)
    let calls: [(usize, [usize; 5], [i64; 2]); 4] = [
        (0, [200, 150, 16, 4, 32], [4, 0]),
        (6, [1000, 130, 12, 2, 16], [2, 4]),
        (11, [832, 100, 16, 8, 64], [3, 3]),
        (13, [136, 300, 9, 4, 128], [2, 0]),
    ];
    let mut forms = std::collections::BTreeSet::new();
    for (i, (c, [k, n, rows, bits, block], [per_block, split])) in calls.into_iter().enumerate() {
        let case = &matrix[c];
        let shape = nbits_mlp_core::MlpShape {
            k,
            n,
            lead: vec![rows],
            bits: bits as u32,
            block_size: block,
            ..shape_of(case)
        };
        let t = overrides(&[
            ("MMAP_SPLIT_K", split),
            ("MMA_SUBGROUPS", subgroups),
            ("MMA_ACT_BLOCK", per_block),
        ]);
        let call = if i % 2 == 1 {
            Call::rank3(shape, seed(37, i))
        } else {
            Call::rank2(shape, seed(37, i))
        };
        let plan = planner.plan(&call.case().call(), &t).unwrap();
        let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
        let blocks = main.context.get("mmaActBlock").and_then(|v| v.as_i64());
        assert_eq!(
            blocks,
            Some(per_block),
            "call {i} ({call}): {}",
            plan.variant
        );
        let what = format!("mmap_block_emulated #{i} (blocks of {per_block} chunks)");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, "mmap_");
        println!("{what} {call}: {v} (err {err:.2e})");
        forms.insert(v);
    }
    assert_eq!(forms.len(), 4, "{forms:?}");
}

/// A call of the `mmap` coverage matrix's case `c` (its form and biases) with K, N, rows, bits
/// and block size as given; rank-3 activations (`[2, rows / 2, K]`) where `rank3`.
fn matrix_call(c: usize, [k, n, rows, bits, block]: [usize; 5], rank3: bool, seed: u64) -> Call {
    let shape = nbits_mlp_core::MlpShape {
        k,
        n,
        lead: if rank3 { vec![2, rows / 2] } else { vec![rows] },
        bits: bits as u32,
        block_size: block,
        ..shape_of(&nbits_mlp_core::coverage::mmap_matrix()[c])
    };
    if rank3 {
        Call::rank3(shape, seed)
    } else {
        Call::rank2(shape, seed)
    }
}

/// Subgroup pairs (`mlp-mma`'s PAIR, `mmaPairs`: two subgroups per column range, one for its
/// gate rows and one for its up rows, the epilogue passing gate's sums through the pair's
/// scratch; and K pairs, `mmaPairs` 2: one for the even chunks and one for the odd ones, gate
/// and up in turns, the odd chunks' sums added into the even ones' at the end), emulated as
/// above, against the reference with poisoned outputs: six calls planned with each kind of pairs
/// (checked in the plan; 4 pairs, the shader cores given so that the column ranges make one
/// wave): 4-bit codes with K in 4 blocks of 4 chunks and N past the last column range; 8-bit
/// codes in blocks of 64 with K ending mid-block (11 chunks: the last block cut, and for K pairs
/// the odd subgroup's last chunk past K), skip + norm with the residual output and the gate bias
/// at 9 rows; 4-bit codes in blocks of 16 with the norm, both biases and rank-3 activations; the
/// same three with 2-bit codes. K pairs are asked for blocks of 5 chunks and must take 4 (an even
/// number: the loop walks two chunks a step).
#[test]
fn mmap_pairs_emulated() {
    // 4 pairs: 2 x 4 slabs of 2304 bytes, 5 scratch blocks of 1024, a block of 4 chunks 8448.
    let Some((rt, planner, _)) = emulation_setup_at_least("mmap_pairs_emulated", 32000) else {
        return;
    };
    // (matrix case: form and bias; K, N, rows, bits, block)
    let calls: [(usize, [usize; 5]); 6] = [
        (0, [1024, 150, 16, 4, 32]),
        (11, [648, 100, 9, 8, 64]),
        (13, [1000, 130, 12, 4, 16]),
        (0, [1000, 150, 16, 2, 16]),
        (11, [648, 100, 12, 2, 64]),
        (13, [1096, 130, 10, 2, 32]),
    ];
    let mut forms = std::collections::BTreeSet::new();
    let kinds = [(1i64, 4i64, 4i64), (2, 5, 4)];
    for (j, (pairs, asked, per_block)) in kinds.into_iter().enumerate() {
        for (i, &(c, [k, n, rows, bits, block])) in calls.iter().enumerate() {
            let t = overrides(&[
                ("SHADER_CORES", 132),
                ("MMA_PAIRS", pairs),
                ("MMA_SUBGROUPS", 4),
                ("MMA_ACT_BLOCK", asked),
                ("MMAP_SPLIT_K", 1),
            ]);
            let call = matrix_call(
                c,
                [k, n, rows, bits, block],
                i % 3 == 2,
                seed(38 + j as u64, i),
            );
            let plan = planner.plan(&call.case().call(), &t).unwrap();
            let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
            let got = |key: &str| main.context.get(key).and_then(|v| v.as_i64());
            assert_eq!(
                (got("mmaPairs"), got("mmaActBlock")),
                (Some(pairs), Some(per_block)),
                "call {i} ({call}): {}",
                plan.variant
            );
            assert_eq!(main.workgroup_size, [256, 1, 1], "call {i}");
            let what = format!("mmap_pairs_emulated #{i} (pairs {pairs})");
            let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, "mmap_");
            println!("{what} {call}: {v} (err {err:.2e})");
            forms.insert(v);
        }
    }
    assert!(forms.len() >= 3, "{forms:?}");
}

/// Early fetch deeper than the measured two chunks (`MMA_EARLY_FETCH_CHUNKS` 3 and 4: the
/// register sets p0 .. p3 / p4 and the prologue's guarded requests), emulated as above, against
/// the reference with poisoned outputs, early fetch forced on with one chunk per request: K of 1,
/// 2 and 3 chunks without pairs (fewer chunks than the depth: requests past the slice's end must
/// not land), K of 5 and 11 chunks in matrix pairs (a chunk's registers must move down in
/// order), 2-, 4- and 8-bit codes, every form; and K pairs (every other chunk) at both depths.
/// Each plan must carry the depth asked and render its request that many chunks ahead.
#[test]
fn mmap_early_fetch_depth_emulated() {
    let Some((rt, planner, _)) = emulation_setup_at_least("mmap_early_fetch_depth_emulated", 32000)
    else {
        return;
    };
    // (matrix case: form and bias; K, N, rows, bits, block; pairs, depth)
    let calls: [(usize, [usize; 5], i64, i64); 7] = [
        (0, [64, 150, 16, 4, 32], 0, 4),
        (11, [128, 100, 9, 8, 64], 0, 3),
        (13, [192, 130, 12, 4, 16], 0, 4),
        (0, [296, 150, 16, 2, 16], 1, 3),
        (11, [648, 100, 12, 4, 64], 1, 4),
        (13, [1000, 130, 10, 2, 32], 2, 3),
        (0, [712, 100, 16, 4, 32], 2, 4),
    ];
    for (i, &(c, [k, n, rows, bits, block], pairs, depth)) in calls.iter().enumerate() {
        let t = overrides(&[
            ("SHADER_CORES", 132),
            ("MMA_PAIRS", pairs),
            ("MMA_SUBGROUPS", 4),
            ("MMA_ACT_BLOCK", 4),
            ("MMAP_SPLIT_K", 1),
            ("MMA_EARLY_FETCH", 2),
            ("MMA_EARLY_FETCH_CHUNKS", depth),
            ("MMA_FETCH_GROUP", 1),
        ]);
        let call = matrix_call(c, [k, n, rows, bits, block], i % 3 == 2, seed(47, i));
        let plan = planner.plan(&call.case().call(), &t).unwrap();
        let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
        let got = |key: &str| main.context.get(key).and_then(|v| v.as_i64());
        assert_eq!(
            (
                got("mmaPairs"),
                got("mmaFetchGroup"),
                got("mmaEarlyFetch"),
                got("mmaEarlyFetchChunks")
            ),
            (Some(pairs), Some(1), Some(1), Some(depth)),
            "call {i} ({call}): {}",
            plan.variant
        );
        let ahead = format!("Request chunk + {depth} into its own registers");
        assert!(main.wgsl.contains(&ahead), "call {i}: no '{ahead}'");
        let what = format!("mmap_early_fetch_depth_emulated #{i} (pairs {pairs}, depth {depth})");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, "mmap_");
        println!("{what} {call}: {v} (err {err:.2e})");
    }
}

/// Ping-pong (`MMA_PING_PONG=2`, `mlp-mma`'s PP: 16-row tiles in turns with activation blocks,
/// each subgroup's slab of 32 rows, one half staged beside the other half's products), emulated
/// as above, against the reference with poisoned outputs: six calls, 4 subgroups without pairs,
/// blocks of 4 chunks (as many as fit beside the 32-row slabs in lavapipe's 32 KiB; asked, not
/// left to fit, so that a GPU with more workgroup storage plans the same blocks): 4-bit codes
/// with K in 4 blocks and N past the last column range; 8-bit codes in blocks of 64 with K
/// ending mid-block (11 chunks: the last block cut, the next chunk's gate rows staged from
/// registers past K), skip + norm with the residual output and the gate bias; 4-bit codes in
/// blocks of 16 with the norm, both biases and rank-3 activations; 2-bit codes (half rows of
/// gate and of up per lane) with K in two slices, and rank 3; the early fetch three chunks
/// ahead. Then five calls in matrix pairs (4 pairs), where ping-pong stages each chunk in two
/// halves of K in the one slab: 4-bit codes in the plain form, skip + norm, the norm with rank 3;
/// 2-bit codes (each lane keeps half of its row's piece), plain and skip + norm. Each
/// must plan ping-pong with a block of 4 and the early fetch.
#[test]
fn mmap_ping_pong_emulated() {
    // 4 subgroups: 4 slabs of 32 rows (4 x 4608 bytes), 4 scratch blocks, a block of 4 chunks.
    let Some((rt, planner, _)) = emulation_setup_at_least("mmap_ping_pong_emulated", 32000) else {
        return;
    };
    // (matrix case: form and bias; K, N, rows, bits, block, K slices, early fetch depth, pairs)
    let calls: [(usize, [usize; 8]); 11] = [
        (0, [1024, 150, 16, 4, 32, 1, 2, 0]),
        (11, [648, 100, 9, 8, 64, 1, 2, 0]),
        (13, [1000, 130, 12, 4, 16, 1, 2, 0]),
        (0, [2048, 70, 16, 2, 64, 2, 2, 0]),
        (11, [1096, 100, 10, 8, 128, 1, 3, 0]),
        (13, [520, 130, 14, 2, 32, 1, 3, 0]),
        (0, [1024, 150, 16, 4, 32, 1, 2, 1]),
        (11, [712, 100, 9, 4, 64, 1, 3, 1]),
        (13, [1000, 130, 12, 4, 16, 1, 2, 1]),
        (0, [1000, 150, 16, 2, 16, 1, 2, 1]),
        (11, [648, 100, 12, 2, 64, 1, 3, 1]),
    ];
    for (i, &(c, [k, n, rows, bits, block, slices, depth, pairs])) in calls.iter().enumerate() {
        let t = overrides(&[
            ("SHADER_CORES", 132),
            ("MMA_PAIRS", pairs as i64),
            ("MMA_PING_PONG", 2),
            ("MMA_SUBGROUPS", 4),
            ("MMA_ACT_BLOCK", 4),
            ("MMAP_SPLIT_K", slices as i64),
            ("MMA_EARLY_FETCH_CHUNKS", depth as i64),
        ]);
        let call = matrix_call(c, [k, n, rows, bits, block], i % 3 == 2, seed(48, i));
        let plan = planner.plan(&call.case().call(), &t).unwrap();
        let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
        let got = |key: &str| main.context.get(key).and_then(|v| v.as_i64());
        assert_eq!(
            (
                got("mmaPingPong"),
                got("mmaPairs"),
                got("mmaActBlock"),
                got("mmaEarlyFetch"),
                got("mmaEarlyFetchChunks")
            ),
            (
                Some(1),
                Some(pairs as i64),
                Some(4),
                Some(1),
                Some(depth as i64)
            ),
            "call {i} ({call}): {}",
            plan.variant
        );
        assert_eq!(main.workgroup_size, [128 << pairs, 1, 1], "call {i}");
        assert_eq!(main.dispatch[2] as usize, slices, "call {i}: K slices");
        let what = format!("mmap_ping_pong_emulated #{i}");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, "mmap_");
        println!("{what} {call}: {v} (err {err:.2e})");
    }
}

/// K pairs (`MMA_PAIRS=2`) over random calls, emulated as above, against the reference with
/// poisoned outputs: twelve f16 calls of 2-16 rows, K of 1-24 chunks (one chunk: the odd
/// subgroup's every chunk past K; odd counts, ends mid-chunk and mid-block), N past the column ranges, 2-, 4- and 8-bit codes in blocks of
/// 16-128, random forms and biases, 4-7 pairs (as many as the workgroup memory holds), blocks
/// of 4-8 chunks asked (K pairs take the
/// largest even block that fits), the early fetch by rule, never or always. Each must plan K
/// pairs. `NBITS_MLP_FUZZ_SEED` draws another set.
#[test]
fn mmap_kpairs_emulated_sweep() {
    let Some((rt, planner, storage)) =
        emulation_setup_at_least("mmap_kpairs_emulated_sweep", 32000)
    else {
        return;
    };
    let seed = fuzz_seed(0x4b50);
    let mut rng = Rng(seed);
    let mut lists = SpecCycles::new(
        &[40, 64, 136, 200, 328, 648, 1000, 1096, 1480],
        &[16, 37, 130, 300],
        &[2, 5, 6, 7, 9, 12, 16],
    );
    // Pairs whose slabs, scratch blocks and a block of 4 chunks fit the device's workgroup
    // memory (7 pairs: 48 896 bytes; lavapipe's 32 KiB hold 4).
    let fits = |p: i64| 2 * p * 16 * 144 + (p + 1) * 1024 + 16 * (128 * 4 + 16) <= storage as i64;
    let counts: Vec<i64> = (4..=7).filter(|&p| fits(p)).collect();
    let mut subgroups = Cycle::new(&counts);
    let mut blocks = Cycle::new(&[4i64, 5, 6, 8]);
    let mut fetch = Cycle::new(&[0i64, 1, 2]);
    for i in 0..12 {
        let mut shape = lists.next(&mut rng, 3);
        shape.dtype = DType::F16;
        let t = overrides(&[
            ("SHADER_CORES", 132),
            ("MMA_MIN_ROWS", 2),
            ("MMAP_SPLIT_K", 1),
            ("MMA_PAIRS", 2),
            ("MMA_SUBGROUPS", subgroups.next(&mut rng)),
            ("MMA_ACT_BLOCK", blocks.next(&mut rng)),
            ("MMA_EARLY_FETCH", fetch.next(&mut rng)),
        ]);
        let call = if i % 4 == 3 {
            Call::rank3(shape, seed.wrapping_add(i as u64))
        } else {
            Call::rank2(shape, seed.wrapping_add(i as u64))
        };
        let plan = planner.plan(&call.case().call(), &t).unwrap();
        let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
        let got = |key: &str| main.context.get(key).and_then(|v| v.as_i64());
        assert_eq!(
            got("mmaPairs"),
            Some(2),
            "#{i} ({call}, {t:?}): {}",
            plan.variant
        );
        assert_eq!(
            got("mmaActBlock").map(|b| b % 2),
            Some(0),
            "#{i} ({call}, {t:?})"
        );
        let what = format!("mmap_kpairs_emulated_sweep #{i} (seed {seed}) {t:?}");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, "mmap_");
        println!("{what} {call}: {v} (err {err:.2e})");
    }
}

/// The weights-once kernel's float32 form (`mlp-mma`'s SPL: codes minus zero staged once, exact
/// in f16; the activations' hi and lo parts in two tiles; each unit of min(block, 64) codes
/// summed by the (emulated) products from zero, then times its scale into f32 totals) where no
/// tensor cores run, with the cooperative operations emulated as above plus the form's own two
/// (products with the low parts, the store of a unit's hi + lo * 2^-11), against the float32
/// tolerance with poisoned outputs: two calls, a 16-row tile staged together (units of 32 codes,
/// the prepared layout, plain form) and a 32-row tile in turns (units of 16 codes, 2 bits, K in
/// slices, skip + norm with the residual output). `mma_f32_emulated_more` (ignored: about 10
/// minutes on lavapipe with a cold shader cache) runs four more.
#[test]
fn mma_f32_emulated() {
    f32_emulated("mma_f32_emulated", 0..2);
}

/// Four more calls of the float32 form, emulated as in `mma_f32_emulated`: both layouts and every
/// form of call, 32-row tiles in turns (subgroup or workgroup barriers) or together, units of 16,
/// 32 and 64 codes (blocks 16-256), fetch groups 1-4, K whole or in slices, bits 2/4/8, rows, N
/// and K past the tiles. `cargo test --release -p nbits-mlp-gpu --test variants -- --ignored
/// mma_f32_emulated_more`.
#[test]
#[ignore = "about 10 minutes on lavapipe with a cold shader cache: run with --ignored"]
fn mma_f32_emulated_more() {
    f32_emulated("mma_f32_emulated_more", 2..6);
}

/// The float32 form with activation blocks (`MMA_F32_ACT_BLOCK`: the hi and lo parts of
/// several chunks staged at a time, gate and up in turns through each subgroup's own slab, one
/// chunk per request), emulated as above, against the float32 tolerance with poisoned outputs:
/// three calls planned with the blocks (checked in the plan): 4-bit codes in blocks of 32 over a
/// K that ends mid-chunk (16 chunks, blocks of 4, the early fetch by its rule); 2-bit codes in
/// blocks of 16, K in 2 slices of 6 chunks with blocks of 4 (each slice's second block cut),
/// skip + norm with the residual output and the gate bias at 9 rows, no early fetch; 8-bit codes
/// in blocks of 64 over 4 chunks in blocks of 2, the norm and the up bias at 12 rows.
#[test]
fn mma_f32_block_emulated() {
    let Some((rt, planner, storage)) = emulation_setup("mma_f32_block_emulated") else {
        return;
    };
    // 7 subgroups with a block of 4 chunks take 40 192 bytes, 4 subgroups 29 376.
    let subgroups = if storage >= 40192 { 7 } else { 4 };
    // (K, N, rows, bits, block; chunks per block, K slices, early fetch; form, biases)
    type Case = ([usize; 5], [i64; 3], (bool, bool, bool), (bool, bool));
    let cases: [Case; 3] = [
        (
            [1000, 130, 16, 4, 32],
            [4, 1, 0],
            (false, false, false),
            (false, false),
        ),
        (
            [648, 100, 9, 2, 16],
            [4, 2, 1],
            (true, true, true),
            (true, false),
        ),
        (
            [200, 37, 12, 8, 64],
            [2, 1, 2],
            (true, false, false),
            (false, true),
        ),
    ];
    for (i, ([k, n, rows, bits, block], [per_block, split, fetch], form, bias)) in
        cases.into_iter().enumerate()
    {
        let shape = f32_shape([k, n, rows, bits, block], form, bias);
        let t = overrides(&[
            ("MMA_MIN_ROWS", 2),
            ("MMA_F32_MIN_ROWS", 2),
            ("MMAP_MAX_ROWS", 65535),
            ("MMA_SUBGROUPS", subgroups),
            ("MMAP_SPLIT_K", split),
            ("MMA_F32_ACT_BLOCK", per_block),
            ("MMA_EARLY_FETCH", fetch),
        ]);
        let call = if i == 2 {
            Call::rank3(shape, seed(39, 10 + i))
        } else {
            Call::rank2(shape, seed(39, 10 + i))
        };
        let plan = planner.plan(&call.case().call(), &t).unwrap();
        let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
        let got = |key: &str| main.context.get(key).and_then(|v| v.as_i64());
        assert_eq!(
            (got("mmaActBlock"), got("mmaFetchGroup")),
            (Some(per_block), Some(1)),
            "call {i} ({call}): {}",
            plan.variant
        );
        let what = format!("mma_f32_block_emulated #{i} (blocks of {per_block} chunks)");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, "mmap_");
        assert_eq!(v.contains("_split_"), split > 1, "{what} ({call}): {v}");
        println!("{what} {call}: {v} (err {err:.2e})");
    }
}

/// The float32 form's activation blocks over random calls, emulated as above, against the
/// float32 tolerance with poisoned outputs: six calls of 2-16 rows, K of 3-24 chunks, every code
/// width, block and form, K whole or in 2 slices, blocks of 2-4 chunks with as many subgroups
/// (4-7) as the workgroup memory holds beside them, the early fetch by rule or never. Each must
/// plan the blocks asked. `NBITS_MLP_FUZZ_SEED` draws another set.
#[test]
fn mma_f32_block_emulated_sweep() {
    let Some((rt, planner, storage)) = emulation_setup("mma_f32_block_emulated_sweep") else {
        return;
    };
    let seed = fuzz_seed(0x4632);
    let mut rng = Rng(seed);
    let mut lists = SpecCycles::new(
        &[328, 648, 1000, 1096, 1480],
        &[16, 37, 130, 300],
        &[2, 5, 9, 12, 16],
    );
    let mut blocks = Cycle::new(&[2i64, 3, 4]);
    let mut splits = Cycle::new(&[1i64, 2]);
    let mut fetch = Cycle::new(&[0i64, 1]);
    let mut taken = 0;
    for i in 0..6 {
        let mut shape = lists.next(&mut rng, 3);
        shape.dtype = DType::F32;
        let block = blocks.next(&mut rng);
        // 7 slabs of 16 rows and scratch blocks per subgroup, two block tiles (hi, lo).
        let fits = |sg: i64| sg * (16 * 144 + 1024) + 16 * (128 * block + 16) * 2 <= storage as i64;
        let Some(sg) = (4..=7).rev().find(|&sg| fits(sg)) else {
            continue;
        };
        let split = splits.next(&mut rng);
        let t = overrides(&[
            ("MMA_MIN_ROWS", 2),
            ("MMA_F32_MIN_ROWS", 2),
            ("MMAP_MAX_ROWS", 65535),
            ("MMA_SUBGROUPS", sg),
            ("MMAP_SPLIT_K", split),
            ("MMA_F32_ACT_BLOCK", block),
            ("MMA_EARLY_FETCH", fetch.next(&mut rng)),
        ]);
        let call = if i % 3 == 2 {
            Call::rank3(shape, seed.wrapping_add(i as u64))
        } else {
            Call::rank2(shape, seed.wrapping_add(i as u64))
        };
        let plan = planner.plan(&call.case().call(), &t).unwrap();
        let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
        let got = main.context.get("mmaActBlock").and_then(|v| v.as_i64());
        // A slice shorter than the block (K of 3 chunks in 2 slices) takes none.
        let chunks = call.shape.k.div_ceil(64);
        let slice = chunks.div_ceil((split as usize).min(chunks)) as i64;
        let want = if slice >= block { block } else { 0 };
        assert_eq!(got, Some(want), "#{i} ({call}, {t:?}): {}", plan.variant);
        taken += usize::from(want > 0);
        let what = format!("mma_f32_block_emulated_sweep #{i} (seed {seed}) {t:?}");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, "mmap_");
        println!("{what} {call}: {v} (err {err:.2e})");
    }
    assert!(taken >= 4, "only {taken} of 6 calls took activation blocks");
}

/// The float32 form with gate and up in workgroups of their own (`MMA_F32_SEPARATE=2`,
/// `mlp-mma`'s ONE: workgroup_id.z = slice * 2 + matrix, each workgroup one matrix's columns in
/// tiles of up to 4 row blocks, its raw sums to the partials, silu(gate) * up in the reduce pass),
/// emulated as above, against the float32 tolerance with poisoned outputs: 4-bit codes in blocks
/// of 32 over a K that ends mid-chunk, 40 rows (one tile of 3 row blocks), N past the column
/// ranges; 8-bit codes in blocks of 64, K in 2 slices, 64 rows (4 row blocks), skip + norm with the
/// residual output and both biases, rank 3; 4-bit codes in blocks of 128 at 100 rows (two tiles of
/// 4 row blocks, the second cut), the norm and the up bias, 4 subgroups, fetch groups of 1. Each
/// must plan the matrices apart, with the grid's depth twice its slices.
#[test]
fn mmap_f32_separate_emulated() {
    let Some((rt, planner, _)) = emulation_setup("mmap_f32_separate_emulated") else {
        return;
    };
    // (K, N, rows, bits, block; K slices, subgroups (0: the rule), fetch group (0: the rule);
    // form, biases)
    type Case = ([usize; 5], [i64; 3], (bool, bool, bool), (bool, bool));
    let cases: [Case; 3] = [
        (
            [1000, 130, 40, 4, 32],
            [1, 0, 0],
            (false, false, false),
            (false, false),
        ),
        (
            [512, 37, 64, 8, 64],
            [2, 0, 0],
            (true, true, true),
            (true, true),
        ),
        (
            [256, 70, 100, 4, 128],
            [1, 4, 1],
            (true, false, false),
            (false, true),
        ),
    ];
    for (i, ([k, n, rows, bits, block], [split, subgroups, fetch], form, bias)) in
        cases.into_iter().enumerate()
    {
        let shape = f32_shape([k, n, rows, bits, block], form, bias);
        let t = overrides(&[
            ("MMA_F32_SEPARATE", 2),
            ("MMAP_SPLIT_K", split),
            ("MMA_SUBGROUPS", subgroups),
            ("MMA_FETCH_GROUP", fetch),
        ]);
        let call = if i == 1 {
            Call::rank3(shape, seed(41, i))
        } else {
            Call::rank2(shape, seed(41, i))
        };
        let plan = planner.plan(&call.case().call(), &t).unwrap();
        let main = plan.passes.iter().find(|p| p.id == "main").unwrap();
        let got = |key: &str| main.context.get(key).and_then(|v| v.as_i64());
        assert_eq!(
            (got("mmaSeparate"), main.dispatch[2]),
            (Some(1), 2 * split as u32),
            "call {i} ({call}): {}",
            plan.variant
        );
        let what = format!("mmap_f32_separate_emulated #{i} {t:?}");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, "mmap_split_");
        println!("{what} {call}: {v} (err {err:.2e})");
    }
}

/// Float32 calls at the fewest-rows rule's boundaries on the planner's defaults, emulated as in
/// `mma_f32_emulated`, on a 4-core profile whose grid fills (K 256 unsplit, N 3 short of 4 column
/// ranges of the 16-row tile's subgroups: 7, or 4 where this device's workgroup storage holds no
/// more): each call takes the weights-once tile's float32 form exactly from the rule's rows (5
/// for 4- and 8-bit codes in blocks of 128+, 6 for 2-bit codes and blocks of 64, 9 in blocks of
/// 32: `mmaF32MinRows`) and the few-rows kernel's float32 form below, and matches the float64
/// reference against the float32 tolerance with poisoned outputs. The GPU test
/// `mmap_f32_fewest_rows` runs the same boundaries on a full 132-core grid on tensor cores.
#[test]
fn mmap_f32_fewest_rows_emulated() {
    let Some((rt, planner, storage)) = emulation_setup("mmap_f32_fewest_rows_emulated") else {
        return;
    };
    let subgroups = if storage >= 44032 { 7 } else { 4 };
    let (k, n) = (256, 4 * 16 * subgroups - 3);
    // (bits, block, rows, the rule's fewest rows; form, biases)
    type Case = ([usize; 4], (bool, bool, bool), (bool, bool));
    let plain = (false, false, false);
    let cases: [Case; 8] = [
        ([4, 128, 4, 5], plain, (false, false)),
        ([4, 128, 5, 5], plain, (false, false)),
        ([8, 256, 5, 5], (true, true, true), (false, true)),
        ([2, 128, 5, 6], (true, false, false), (false, false)),
        ([2, 128, 6, 6], (true, false, false), (false, false)),
        ([4, 64, 6, 6], plain, (true, false)),
        ([4, 32, 8, 9], (true, true, false), (false, false)),
        ([4, 32, 9, 9], (true, true, false), (false, false)),
    ];
    let t = overrides(&[("SHADER_CORES", 4), ("MMA_SUBGROUPS", subgroups as i64)]);
    for (i, ([bits, block, rows, from], form, bias)) in cases.into_iter().enumerate() {
        let family = if rows >= from { "mmap_" } else { "gemvp_f32_" };
        let call = Call::rank2(
            f32_shape([k, n, rows, bits, block], form, bias),
            seed(58, i),
        );
        let what = format!("mmap_f32_fewest_rows_emulated #{i} ({bits}-bit blocks of {block})");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, family);
        println!("{what} {call}: {v} (err {err:.2e})");
    }
}

/// Float32 calls past 384 rows on the planner's defaults (the 132-core profile of the tensor-core
/// GPUs), emulated as in `mma_f32_emulated`: since session 51 they take the weights-once tile's
/// float32 form (`MMA_F32_MAX_ROWS` no cap; `coop` took them before), in several 32-row tiles;
/// 4-bit codes in blocks of 32 (a unit per 32 codes), 8-bit in blocks of 128 with skip + norm,
/// the residual output and the up bias (units of two chunks), each against the float32
/// tolerance with poisoned outputs. The GPU test `mmap_f32_many_rows` runs larger ones on
/// tensor cores. `cargo test --release -p nbits-mlp-gpu --test variants -- --ignored
/// mmap_f32_many_rows_emulated` (passed on lavapipe in session 51: errors 5.9e-7 / 2.3e-6).
#[test]
#[ignore = "about 12 minutes on lavapipe: run with --ignored"]
fn mmap_f32_many_rows_emulated() {
    let Some((rt, planner, _)) = emulation_setup("mmap_f32_many_rows_emulated") else {
        return;
    };
    // (K, N, rows, bits, block; form, biases)
    type Case = ([usize; 5], (bool, bool, bool), (bool, bool));
    let cases: [Case; 2] = [
        ([256, 70, 400, 4, 32], (false, false, false), (false, false)),
        ([384, 37, 449, 8, 128], (true, true, true), (false, true)),
    ];
    for (i, (dims, form, bias)) in cases.into_iter().enumerate() {
        let call = Call::rank2(f32_shape(dims, form, bias), seed(54, i));
        let t = overrides(&[("SHADER_CORES", 132)]);
        let what = format!("mmap_f32_many_rows_emulated #{i}");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, "mmap_");
        println!("{what} {call}: {v} (err {err:.2e})");
    }
}

/// A float32 call of `[K, N, rows, bits, block]` with the form (norm, skip, residual) and the
/// biases (gate, up).
fn f32_shape(
    [k, n, rows, bits, block]: [usize; 5],
    form: (bool, bool, bool),
    bias: (bool, bool),
) -> nbits_mlp_core::MlpShape {
    let mut shape = nbits_mlp_core::MlpShape::new(k, n, rows);
    shape.dtype = DType::F32;
    shape.bits = bits as u32;
    shape.block_size = block;
    (shape.norm, shape.skip, shape.residual) = form;
    (shape.gate_bias, shape.up_bias) = bias;
    shape
}

/// Runs calls `which` of the float32 form's emulated cases (see `mma_f32_emulated`).
fn f32_emulated(test: &str, which: std::ops::Range<usize>) {
    let Some((rt, planner, storage)) = emulation_setup(test) else {
        return;
    };
    // 16-row tiles of 7 subgroups (the default) take 44 032 bytes, 4 subgroups 26 112; 32-row
    // tiles in turns 22 528 (4 subgroups) or 25 856 (5), together 31 744 (4).
    let sixteen = if storage >= 44032 { 7 } else { 4 };
    // (prepared, K, N, rows, bits, block, in turns, row blocks, subgroups, K slices, fetch
    // group, form (norm, skip, residual), biases (gate, up))
    type F32Case = (
        bool,
        usize,
        usize,
        usize,
        u32,
        usize,
        bool,
        i64,
        i64,
        i64,
        i64,
        (bool, bool, bool),
        (bool, bool),
    );
    let cases: [F32Case; 6] = [
        (
            true,
            328,
            37,
            9,
            4,
            32,
            false,
            1,
            sixteen,
            1,
            2,
            (false, false, false),
            (false, true),
        ),
        (
            true,
            200,
            130,
            33,
            2,
            16,
            true,
            2,
            4,
            2,
            1,
            (true, true, true),
            (true, false),
        ),
        (
            false,
            256,
            37,
            20,
            8,
            128,
            false,
            2,
            4,
            1,
            2,
            (true, false, false),
            (true, true),
        ),
        (
            true,
            1000,
            16,
            17,
            4,
            64,
            true,
            2,
            5,
            1,
            1,
            (true, true, false),
            (false, false),
        ),
        (
            false,
            512,
            130,
            12,
            4,
            256,
            false,
            1,
            4,
            3,
            4,
            (false, false, false),
            (true, false),
        ),
        (
            true,
            192,
            300,
            40,
            8,
            32,
            true,
            2,
            4,
            1,
            2,
            (true, false, false),
            (false, true),
        ),
    ];
    for (i, c) in cases.into_iter().enumerate() {
        if !which.contains(&i) {
            continue;
        }
        let (prepared, k, n, rows, bits, block, in_turns, rb, sg, split, fg, form, bias) = c;
        let shape = f32_shape([k, n, rows, bits as usize, block], form, bias);
        let t = overrides(&[
            ("MMA_MIN_ROWS", 2),
            ("MMA_F32_MIN_ROWS", 2),
            ("MMA_F32_MAX_ROWS", 65535),
            ("MMAP_MAX_ROWS", if prepared { 65535 } else { 0 }),
            ("MMAL_MIN_ROWS", 0),
            ("MMA_ROW_BLOCKS", rb),
            ("MMA_SUBGROUPS", sg),
            ("MMA_SPLIT_K", split),
            ("MMAP_SPLIT_K", split),
            ("MMA_FETCH_GROUP", fg),
            ("MMA_SEQ_MIN_TILES", if in_turns { 0 } else { 65535 }),
            ("MMA_SUBGROUP_BARRIER", (i % 2) as i64),
            // Gate and up together (apart, the rule's at 33-48 rows, has its own test).
            ("MMA_F32_SEPARATE", 1),
        ]);
        let call = if i % 3 == 2 {
            Call::rank3(shape, seed(37, i))
        } else {
            Call::rank2(shape, seed(37, i))
        };
        let family = if prepared { "mmap_" } else { "mma_" };
        let what = format!("{test} #{i} {t:?}");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, family);
        assert_eq!(v.contains("_split_"), split > 1, "{what} ({call}): {v}");
        println!("{what} {call}: {v} (err {err:.2e})");
    }
}

/// Stream-K on prepared weights (`mmap_sk_*`: a fixed grid of workgroups walking equal shares of
/// the tiles' K iterations, the tiles cut between two shares finished by the fix-up pass) where
/// no tensor cores run, the cooperative operations emulated as above. Four calls, one per form
/// and per bias combination, on grids of 2-4 groups (`SHADER_CORES` x `MMA_SK_PER_CORE`
/// workgroups over the row tiles) chosen so that some tiles are cut and some are not: 16-row
/// tiles with one chunk per iteration, 32-row tiles in turns with two chunks per iteration and a
/// partial last column range, 64 rows in four 16-row tiles; rows and N past the tiles, K past
/// the chunks; then two float32 calls (16-row tiles: the cut tiles' partials carry the rows in
/// the order of the float32 flush's permuted lanes), the second in blocks of 128, whose units of
/// two chunks a cut splits (a share that ends after a unit's first chunk flushes its part, the
/// next starts mid-unit). Each call's cuts are counted here by the kernel's arithmetic, so a call
/// that cut nothing, or the blocks-of-128 call cutting no unit, would fail the test.
#[test]
fn mmap_sk_emulated() {
    let Some((rt, planner, _)) = emulation_setup("mmap_sk_emulated") else {
        return;
    };
    let matrix = nbits_mlp_core::coverage::mmap_matrix();
    // (matrix case: form and bias; K, N, rows, bits, block; cores, per core, row blocks, fetch
    // group, gate and up in turns; float32)
    let calls: [(usize, [usize; 5], [i64; 5], bool); 6] = [
        (3, [200, 150, 19, 4, 32], [2, 2, 1, 1, 0], false),
        (6, [328, 200, 33, 2, 16], [6, 1, 2, 2, 1], false),
        (9, [136, 300, 13, 4, 128], [2, 2, 1, 1, 0], false),
        (12, [200, 150, 64, 8, 32], [4, 2, 1, 2, 0], false),
        (10, [264, 150, 21, 4, 32], [2, 2, 1, 1, 0], true),
        (10, [392, 150, 21, 4, 128], [2, 2, 1, 1, 0], true),
    ];
    let mut forms = std::collections::BTreeSet::new();
    for (i, (c, [k, n, rows, bits, block], [cores, per_core, rb, fg, seq], f32)) in
        calls.into_iter().enumerate()
    {
        let case = &matrix[c];
        let shape = nbits_mlp_core::MlpShape {
            k,
            n,
            lead: vec![rows],
            bits: bits as u32,
            block_size: block,
            dtype: if f32 { DType::F32 } else { DType::F16 },
            ..shape_of(case)
        };
        let grid = SkGrid {
            cores,
            per_core,
            row_blocks: rb,
            fetch_group: fg,
            in_turns: seq == 1,
        };
        let (cuts, tiles, _) = grid.cuts(rows, k, n);
        assert!(cuts > 0, "call {i} cuts no tile");
        if f32 && block >= 128 {
            // The float32 form's units of 128 codes (two chunks): some share must start at an
            // odd chunk of its tile's K.
            assert!(
                grid.share_starts(rows, k, n).1.iter().any(|c| c % 2 == 1),
                "call {i} cuts no unit of 128 codes"
            );
        }
        let mut t = grid.tunables();
        if f32 {
            t.extend(overrides(&[
                ("MMA_F32_MAX_ROWS", 65535),
                ("MMA_F32_MIN_ROWS", 1),
            ]));
        }
        let call = if i % 2 == 1 {
            Call::rank3(shape, seed(36, i))
        } else {
            Call::rank2(shape, seed(36, i))
        };
        let what = format!("mmap_sk_emulated #{i} ({cuts} of {tiles} tiles cut)");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, "mmap_sk_");
        println!("{what} {call}: {v} (err {err:.2e})");
        if !f32 {
            forms.insert(v);
        }
    }
    // One form per float16 call.
    assert_eq!(forms.len(), 4, "{forms:?}");
}

/// A kernel author's check of edited templates where no tensor cores run (lavapipe included):
/// a sweep of calls around the tensor-core tiles' boundaries (7-64 rows, 2-, 4- and 8-bit codes,
/// blocks of 16-128, K and N off every tile, every form, rank-3 A), each planned for the
/// `discrete-gpu` profile (132 shader cores, tiles of 4 column ranges) with the templates of
/// `NBITS_MLP_EMULATE_TEMPLATES` (a directory as `--templates` takes: a copy of `templates/`
/// with edits), the overlay of `NBITS_MLP_EMULATE_OVERLAY` (a JSON file as `--overlay` takes) and
/// the tunables of `NBITS_MLP_EMULATE_TUNABLES` (`NAME=VALUE,...`) where set, the project's
/// otherwise; its main pass run with the cooperative operations emulated ([`emulate`]) and
/// poisoned outputs, and checked against the float64 reference. With none set it checks the
/// project's own templates. Session 44 checked its probes of the 16-row tile this way (in
/// temporary tests) before timing them (`notes/runs/2026-12-06-s44-h100/`).
#[test]
fn edited_templates_emulated() {
    // Tiles of 4 pairs with blocks of 4 chunks: 32 000 bytes (as `mmap_pairs_emulated`).
    let Some((rt, project, _)) = emulation_setup_at_least("edited_templates_emulated", 32000)
    else {
        return;
    };
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let templates = match var("NBITS_MLP_EMULATE_TEMPLATES") {
        Some(dir) => nbits_mlp_core::render::Templates::with_dir(std::path::Path::new(&dir))
            .unwrap_or_else(|e| panic!("NBITS_MLP_EMULATE_TEMPLATES={dir}: {e}")),
        None => nbits_mlp_core::render::Templates::builtin(),
    };
    let manifest = match var("NBITS_MLP_EMULATE_OVERLAY") {
        Some(file) => {
            let ov = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("NBITS_MLP_EMULATE_OVERLAY={file}: {e}"));
            nbits_mlp_core::manifest::Manifest::with_overlay(
                nbits_mlp_core::manifest::SEED_MANIFEST,
                "seed manifest",
                &ov,
                &file,
            )
            .unwrap_or_else(|e| panic!("NBITS_MLP_EMULATE_OVERLAY={file}: {e}"))
        }
        None => nbits_mlp_core::manifest::Manifest::project(),
    };
    // Tiles of 4 column ranges and K whole, so that the small N and K below, which keep the
    // emulation quick, still reach the 16-row tile in pairs (as the large models do).
    let mut t = overrides(&[
        ("SHADER_CORES", 132),
        ("MMA_SUBGROUPS", 4),
        ("MMA_ACT_BLOCK", 4),
        ("MMAP_SPLIT_K", 1),
    ]);
    for pair in var("NBITS_MLP_EMULATE_TUNABLES")
        .iter()
        .flat_map(|s| s.split(','))
    {
        let (k, v) = nbits_mlp_core::tuning::parse_tunable(pair)
            .unwrap_or_else(|e| panic!("NBITS_MLP_EMULATE_TUNABLES: {e}"));
        t.insert(k, v);
    }
    // The emulated tests' device profile, with the templates and overlay asked for.
    let planner = Planner::new(
        Arc::new(manifest),
        Arc::new(templates),
        project.device().clone(),
    );
    // (matrix case: form and bias; K, N, rows, bits, block; rank-3 A)
    let calls: [(usize, [usize; 5], bool); 8] = [
        (0, [512, 150, 16, 4, 32], false),
        (11, [1000, 100, 9, 4, 32], false),
        (13, [1096, 130, 12, 4, 32], true),
        (0, [320, 224, 7, 4, 32], false),
        (13, [600, 150, 16, 2, 16], true),
        (11, [648, 100, 12, 8, 64], false),
        (13, [520, 130, 32, 4, 32], true),
        (0, [256, 200, 64, 4, 128], false),
    ];
    let edited = ["TEMPLATES", "OVERLAY", "TUNABLES"]
        .iter()
        .any(|v| var(&format!("NBITS_MLP_EMULATE_{v}")).is_some());
    for (i, &(c, shape, rank3)) in calls.iter().enumerate() {
        let call = matrix_call(c, shape, rank3, seed(44, i));
        let what = format!("edited_templates_emulated #{i}");
        let plan = planner
            .plan(&call.case().call(), &t)
            .unwrap_or_else(|e| panic!("{what} ({call}): {e}"));
        let tiles = plan
            .passes
            .iter()
            .any(|p| p.wgsl.contains("coopMultiplyAdd"));
        // The project's templates reach a tensor-core tile with every call of the sweep.
        assert!(
            tiles || edited,
            "{what} ({call}): {} has no tile",
            plan.variant
        );
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, "");
        let kind = if tiles { "emulated" } else { "as it is" };
        println!("{what} {call}: {v}, {kind} (err {err:.2e})");
    }
}
