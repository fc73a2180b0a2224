//! Snapshots of rendered WGSL: one plain file per (variant, shape, dtype, profile, tunables)
//! case under `tests/snapshots/wgsl/`, holding every pass of the plan (its template, dispatch and
//! workgroup size, then the shader). A template change then shows as a reviewable diff of these
//! files. `UPDATE_SNAPSHOTS=1 cargo test -p nbits-mlp-core --test wgsl_snapshots` rewrites them
//! (and removes files no case writes).

use nbits_mlp_core::render::Target;
use nbits_mlp_core::{DType, DeviceProfile, Manifest, MlpShape, Planner, Tunables};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One snapshot: a call, where it is planned, and the variant it must take.
struct Case {
    /// The file name (without `.wgsl`).
    file: &'static str,
    variant: &'static str,
    shape: MlpShape,
    profile: DeviceProfile,
    tunables: &'static [(&'static str, i64)],
    /// The seed manifest alone (the seed's variants).
    seed_only: bool,
    target: Target,
}

/// A call: K, N, rows, dtype, then the optional inputs by name.
fn shape(k: usize, n: usize, rows: usize, dtype: DType, inputs: &str) -> MlpShape {
    let mut s = MlpShape::new(k, n, rows);
    s.dtype = dtype;
    for i in inputs.split_whitespace() {
        match i {
            "skip" => s.skip = true,
            "norm" => s.norm = true,
            "residual" => s.residual = true,
            "gb" => s.gate_bias = true,
            "ub" => s.up_bias = true,
            b if b.starts_with("bits") => s.bits = b[4..].parse().unwrap(),
            b if b.starts_with("block") => s.block_size = b[5..].parse().unwrap(),
            other => panic!("unknown input {other}"),
        }
    }
    s
}

fn cases() -> Vec<Case> {
    use DType::{F16, F32};
    let discrete = DeviceProfile::discrete_gpu;
    let no_coop = || DeviceProfile::discrete_gpu().without_feature("coop-f16-16x16x16-f32");
    let case = |file, variant, shape, profile| Case {
        file,
        variant,
        shape,
        profile,
        tunables: &[],
        seed_only: false,
        target: Target::Wgpu,
    };
    vec![
        // The seed's variants: the row-tiled and the decode walk of its gate/up kernel, its norm
        // pass, and the inline norm.
        Case {
            seed_only: true,
            ..case(
                "seed-plain-f32-rows7",
                "plain_nogb_ub",
                shape(93, 37, 7, F32, "ub"),
                discrete(),
            )
        },
        Case {
            seed_only: true,
            ..case(
                "seed-fused-skipsum-f16-rows1",
                "fused_skipsum_gb_noub",
                shape(100, 37, 1, F16, "skip norm residual gb block16"),
                discrete(),
            )
        },
        Case {
            seed_only: true,
            ..case(
                "seed-staged-norm-f32-rows9-webgpu",
                "staged_norm_nogb_noub",
                shape(93, 37, 9, F32, "norm"),
                DeviceProfile::webgpu_default(),
            )
        },
        // gemv: packed f16 math, the two-pass norm (f32), the inline norm (f16), 2 and 8 bits.
        case(
            "gemv-plain-f16-llama8b",
            "gemv_plain_nogb_noub",
            shape(4096, 14336, 1, F16, ""),
            discrete(),
        ),
        case(
            "gemv-norm-f32-bits2",
            "gemv_norm_gb_ub",
            shape(4096, 1024, 1, F32, "norm gb ub bits2"),
            discrete(),
        ),
        // (K 2048 takes the few-rows kernel at one row by default: GEMVP_ONE_ROW 1 keeps the gemv.)
        Case {
            tunables: &[("GEMVP_ONE_ROW", 1)],
            ..case(
                "gemv-fused-skipsum-f16-bits8",
                "gemv_fused_skipsum_gb_ub",
                shape(2048, 512, 1, F16, "skip norm residual gb ub bits8"),
                discrete(),
            )
        },
        // The same call by default: one row on the few-rows kernel, the norm inline.
        case(
            "gemvp-fused-skipsum-f16-rows1-bits8",
            "gemvp_fused_skipsum_gb_ub",
            shape(2048, 512, 1, F16, "skip norm residual gb ub bits8"),
            discrete(),
        ),
        // gemvr: several rows per workgroup, from the norm pass and from A (kept from the
        // few-rows kernel on prepared weights, which takes these rows by default).
        Case {
            tunables: &[("MMA_MAX_ROWS", 1), ("GEMVP_MAX_ROWS", 0)],
            ..case(
                "gemvr-skip-f16-rows8",
                "gemvr_skip_nogb_ub",
                shape(4096, 14336, 8, F16, "skip norm ub"),
                discrete(),
            )
        },
        Case {
            tunables: &[("GEMV_ROWS", 4), ("GEMVP_F32_MAX_ROWS", 0)],
            ..case(
                "gemvr-plain-f32-rows20-rg4",
                "gemvr_plain_nogb_noub",
                shape(896, 4864, 20, F32, ""),
                DeviceProfile::webgpu_default(),
            )
        },
        // tiled: whole K and split K (with the reduce pass; kept from the few-rows kernel's
        // float32 form, which takes f32 calls of up to 64 rows by default).
        Case {
            tunables: &[("TILED_SPLIT_K", 1), ("GEMVP_F32_MAX_ROWS", 0)],
            ..case(
                "tiled-norm-f32-rows40",
                "tiled_norm_gb_noub",
                shape(4096, 1024, 40, F32, "norm gb"),
                no_coop(),
            )
        },
        Case {
            tunables: &[("GEMV_MAX_ROWS", 1), ("GEMVP_F32_MAX_ROWS", 0)],
            ..case(
                "tiled-split-skipsum-f32-rows16",
                "tiled_split_skipsum_gb_ub",
                shape(4096, 14336, 16, F32, "skip norm residual gb ub"),
                no_coop(),
            )
        },
        // coop: f16 (kept from the mma kernel by MMA_MAX_ROWS), split K, and the float32
        // (split f16) form.
        Case {
            tunables: &[("MMA_MAX_ROWS", 1)],
            ..case(
                "coop-plain-f16-rows64",
                "coop_nogb_noub",
                shape(4096, 14336, 64, F16, ""),
                discrete(),
            )
        },
        Case {
            tunables: &[("MMA_MAX_ROWS", 1)],
            ..case(
                "coop-split-skip-f16-rows24",
                "coop_split_skip_gb_noub",
                shape(4096, 14336, 24, F16, "skip norm gb"),
                discrete(),
            )
        },
        // mma: f16 from 9 rows, weights read once per row tile, K split by MMA_SPLIT_K (the
        // automatic rule keeps Llama-8B's 112 tiles whole; kept from the prepared-weights kernel
        // by MMAP_MAX_ROWS).
        Case {
            tunables: &[("MMAP_MAX_ROWS", 0), ("MMA_SPLIT_K", 10)],
            ..case(
                "mma-split-skipsum-f16-rows16",
                "mma_split_skipsum_nogb_noub",
                shape(4096, 14336, 16, F16, "skip norm residual"),
                discrete(),
            )
        },
        // gemvp: a few rows on the ALUs, on prepared weights (the norm forms in two passes: the
        // norm pass writes f16).
        Case {
            tunables: &[("GEMVP_INLINE_NORM", 0)],
            ..case(
                "gemvp-skipsum-f16-rows4",
                "gemvp_skipsum_nogb_noub",
                shape(4096, 14336, 4, F16, "skip norm residual"),
                discrete(),
            )
        },
        // The norm forms in one pass (the default where a workgroup's rows take at most 20 KiB):
        // each workgroup normalises its rows into workgroup memory; K a multiple of 64 (no bound
        // check) and not (with it).
        case(
            "gemvp-fused-skipsum-f16-rows2",
            "gemvp_fused_skipsum_nogb_noub",
            shape(4096, 14336, 2, F16, "skip norm residual"),
            discrete(),
        ),
        case(
            "gemvp-fused-norm-f16-rows5-k1000",
            "gemvp_fused_norm_gb_noub",
            shape(1000, 300, 5, F16, "norm gb"),
            discrete(),
        ),
        // The one-wave tile on Llama-8B's 4 rows (112 x 8, 132 cores), skip+norm in one pass and
        // plain with the rows staged (`gemvp_staged_*`).
        Case {
            tunables: &[("SHADER_CORES", 132)],
            ..case(
                "gemvp-fused-skipsum-f16-rows4-wave",
                "gemvp_fused_skipsum_nogb_noub",
                shape(4096, 14336, 4, F16, "skip norm residual"),
                discrete(),
            )
        },
        Case {
            tunables: &[("SHADER_CORES", 132)],
            ..case(
                "gemvp-staged-f16-rows5-wave",
                "gemvp_staged_nogb_ub",
                shape(4096, 14336, 5, F16, "ub"),
                discrete(),
            )
        },
        case(
            "gemvp-plain-f16-rows6-bits2-block16",
            "gemvp_plain_gb_ub",
            shape(1000, 300, 6, F16, "gb ub bits2 block16"),
            discrete(),
        ),
        // gemvp's float32 form (f32 models, 2-64 rows): f32 throughout, the norm pass writes
        // the ordinary f32 row; K a multiple of 64 (no bound check) and not (with it).
        case(
            "gemvp-plain-f32-rows8",
            "gemvp_f32_plain_nogb_noub",
            shape(4096, 14336, 8, F32, ""),
            discrete(),
        ),
        case(
            "gemvp-skipsum-f32-rows5-bits8-block64",
            "gemvp_f32_skipsum_gb_ub",
            shape(1000, 300, 5, F32, "skip norm residual gb ub bits8 block64"),
            no_coop(),
        ),
        // mmap: the mma kernel on prepared weights (tiles of 16 rows x 64 codes), from 9 rows;
        // 16-row tiles of 8 subgroups up to 16 rows, gate and up in turns in tiles of 2-4 row
        // blocks above (32 rows: one tile, fetch group 1; 80 rows: two tiles of 48, fetch group 2).
        case(
            "mmap-skipsum-f16-rows16",
            "mmap_skipsum_nogb_noub",
            shape(4096, 14336, 16, F16, "skip norm residual"),
            discrete(),
        ),
        // Subgroup pairs on an H200-like profile (132 shader cores): Llama-8B's 128 column
        // ranges of 16, each a gate subgroup and an up subgroup, blocks of 4 chunks; from 6 rows
        // where the few-rows kernel's one-wave tile does not take them (here: its fixed tile).
        case(
            "mmap-pairs-skip-f16-rows6",
            "mmap_skip_gb_noub",
            shape(4096, 14336, 6, F16, "skip norm gb"),
            discrete()
                .with_tunable("SHADER_CORES", 132)
                .with_tunable("GEMVP_FUSED_COLS", 64),
        ),
        // K pairs (MMA_PAIRS 2, off by default: measured slower, notes/PERF.md row 220): the
        // pair's subgroups take the even and the odd chunks, each with gate and up in turns, two
        // chunks a step.
        case(
            "mmap-kpairs-plain-f16-rows16",
            "mmap_nogb_noub",
            shape(4096, 14336, 16, F16, ""),
            discrete()
                .with_tunable("SHADER_CORES", 132)
                .with_tunable("MMA_PAIRS", 2),
        ),
        // Ping-pong (by default for 4-bit codes in turns) without pairs: 32-row slabs, gate's
        // products beside up's staging, up's beside the next chunk's gate staging.
        case(
            "mmap-pingpong-plain-f16-rows16",
            "mmap_nogb_noub",
            shape(4096, 14336, 16, F16, ""),
            discrete()
                .with_tunable("SHADER_CORES", 132)
                .with_tunable("MMA_PAIRS", 0),
        ),
        // Ping-pong in matrix pairs (4-bit codes, only where asked: MMA_PING_PONG 2): each
        // chunk staged in two halves of K (steps 0 and 2, then 1 and 3), one half's products
        // beside the other half's staging.
        case(
            "mmap-pingpong-pairs-plain-f16-rows16",
            "mmap_nogb_noub",
            shape(4096, 14336, 16, F16, ""),
            discrete()
                .with_tunable("SHADER_CORES", 132)
                .with_tunable("MMA_PING_PONG", 2),
        ),
        // The float32 form's activation blocks (MMA_F32_ACT_BLOCK, 4 chunks by default up to
        // 16 rows, as in `mmap-skipsum-f32-rows16-bits8`): here the hi and lo parts of 6 chunks
        // staged at a time, gate and up in turns.
        case(
            "mmap-blocks-skip-f32-rows16",
            "mmap_skip_nogb_noub",
            shape(4096, 14336, 16, F32, "skip norm"),
            discrete()
                .with_tunable("SHADER_CORES", 132)
                .with_tunable("MMA_F32_ACT_BLOCK", 6),
        ),
        // The float32 form with gate and up in workgroups of their own (MMA_F32_SEPARATE 2):
        // tiles of 4 row blocks, one matrix per workgroup (workgroup_id.z), the raw sums to
        // the partials and the reduce pass.
        case(
            "mmap-separate-plain-f32-rows64",
            "mmap_split_nogb_noub",
            shape(4096, 14336, 64, F32, ""),
            discrete()
                .with_tunable("SHADER_CORES", 132)
                .with_tunable("MMA_F32_SEPARATE", 2),
        ),
        case(
            "mmap-plain-f16-rows32",
            "mmap_nogb_noub",
            shape(4096, 14336, 32, F16, ""),
            discrete(),
        ),
        case(
            "mmap-skipsum-f16-rows80",
            "mmap_skipsum_nogb_noub",
            shape(4096, 14336, 80, F16, "skip norm residual"),
            discrete(),
        ),
        case(
            "mmap-split-plain-f16-rows16-bits2",
            "mmap_split_gb_noub",
            shape(896, 4864, 16, F16, "gb bits2"),
            discrete(),
        ),
        // Stream-K by its automatic rule on an H200-like profile (132 shader cores, the device's
        // tunable default): 224 column ranges of 2 64-row tiles on 132 groups of 2 workgroups,
        // then the fix-up of the tiles cut in two.
        case(
            "mmap-sk-skip-f16-rows128",
            "mmap_sk_skip_gb_ub",
            shape(4096, 14336, 128, F16, "skip norm gb ub"),
            discrete()
                .with_tunable("SHADER_CORES", 132)
                .with_tunable("MMAP_STREAM_K", 0),
        ),
        // (kept from the prepared-weights kernel, which takes these rows by default; gate and up
        // in turns)
        Case {
            tunables: &[("MMAP_MAX_ROWS", 0)],
            ..case(
                "mma-plain-f16-rows512",
                "mma_gb_ub",
                shape(4096, 14336, 512, F16, "gb ub"),
                discrete(),
            )
        },
        // mmal: large tiles (64 columns x 128 rows per workgroup, K double-buffered), opened by
        // MMAL_MIN_ROWS (none by default); and its split form with 2-bit codes in blocks of 16.
        Case {
            tunables: &[("MMAL_MIN_ROWS", 65)],
            ..case(
                "mmal-plain-f16-rows512",
                "mmal_gb_ub",
                shape(4096, 14336, 512, F16, "gb ub"),
                discrete(),
            )
        },
        Case {
            tunables: &[("MMAL_MIN_ROWS", 65)],
            ..case(
                "mmal-split-skipsum-f16-rows65-bits2",
                "mmal_split_skipsum_nogb_noub",
                shape(896, 2048, 65, F16, "skip norm residual bits2 block16"),
                discrete(),
            )
        },
        // coop's float32 form: f32 calls past MMA_F32_MAX_ROWS where it is set (no cap by
        // default since session 51).
        Case {
            tunables: &[("MMA_F32_MAX_ROWS", 384)],
            ..case(
                "coop-f32-norm-rows400",
                "coop_norm_nogb_ub",
                shape(200, 150, 400, F32, "norm ub"),
                discrete(),
            )
        },
        // The float32 form of the mma template (exact codes, hi and lo activation tiles, block
        // scales on each unit's sums): the original layout (K split in 2), prepared weights in
        // 16-row tiles, and 32-row tiles in turns (4 subgroups: where 7 staged together do not
        // fit).
        Case {
            tunables: &[("MMA_SPLIT_K", 2), ("MMAP_MAX_ROWS", 0)],
            ..case(
                "mma-split-plain-f32-rows64",
                "mma_split_nogb_noub",
                shape(4096, 14336, 64, F32, ""),
                discrete(),
            )
        },
        Case {
            tunables: &[("MMA_F32_MAX_ROWS", 32)],
            ..case(
                "mmap-skipsum-f32-rows16-bits8",
                "mmap_skipsum_gb_noub",
                shape(4096, 14336, 16, F32, "skip norm residual gb bits8"),
                discrete(),
            )
        },
        Case {
            // Gate and up together (at 48 rows of 4-bit codes they run apart by rule).
            tunables: &[("MMA_SUBGROUPS", 4), ("MMA_F32_SEPARATE", 1)],
            ..case(
                "mmap-seq-norm-f32-rows48-block16",
                "mmap_norm_nogb_noub",
                shape(4096, 14336, 48, F32, "norm block16"),
                discrete(),
            )
        },
        // Gate and up in turns with 2-bit codes: each lane stages half a row of gate, then half
        // a row of up (the lane split), on the prepared layout, f16, blocks of 32.
        case(
            "mmap-seq-plain-f16-rows64-bits2",
            "mmap_nogb_noub",
            shape(4096, 14336, 64, F16, "bits2"),
            discrete(),
        ),
        // A browser target (enable directives differ).
        Case {
            target: Target::Browser,
            ..case(
                "browser-gemv-fused-norm-f16",
                "gemv_fused_norm_nogb_noub",
                shape(4096, 14336, 1, F16, "norm"),
                discrete(),
            )
        },
    ]
}

/// The snapshot text of a case: a line saying what it is, then per pass a line with its
/// template, dispatch and workgroup size, and the shader.
fn render(c: &Case) -> String {
    let manifest = if c.seed_only {
        Manifest::seed()
    } else {
        Manifest::project()
    };
    let planner = Planner::new(
        Arc::new(manifest),
        Arc::new(nbits_mlp_core::render::Templates::builtin()),
        c.profile.clone(),
    )
    .with_target(c.target);
    let t: Tunables = c
        .tunables
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
    let plan = planner
        .plan(&c.shape.call(), &t)
        .unwrap_or_else(|e| panic!("{}: {e}", c.file));
    assert_eq!(plan.variant, c.variant, "{}", c.file);
    let s = &c.shape;
    let mut out = format!(
        "// snapshot {}: variant {}, {} K {} N {} rows {} bits {} block {}, {} ({}){}{}\n",
        c.file,
        plan.variant,
        s.dtype,
        s.k,
        s.n,
        s.rows(),
        s.bits,
        s.block_size,
        c.profile.name,
        c.profile
            .features
            .iter()
            .cloned()
            .collect::<Vec<_>>()
            .join(" "),
        if c.tunables.is_empty() {
            String::new()
        } else {
            format!(", tunables {:?}", c.tunables)
        },
        if c.target == Target::Browser {
            ", browser target"
        } else {
            ""
        },
    );
    for p in &plan.passes {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!(
            "// ==== pass `{}`: {}, dispatch {:?}, workgroup size {:?} ====\n{}",
            p.id, p.shader, p.dispatch, p.workgroup_size, p.wgsl
        ));
    }
    out
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/wgsl")
}

/// The first line where two texts differ, for the failure message.
fn first_difference(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    for i in 0..w.len().max(g.len()) {
        let (a, b) = (w.get(i).copied(), g.get(i).copied());
        if a != b {
            return format!(
                "line {}:\n      snapshot: {}\n      rendered: {}",
                i + 1,
                a.unwrap_or("(end of file)"),
                b.unwrap_or("(end of file)")
            );
        }
    }
    "only in line endings".into()
}

#[test]
fn rendered_wgsl_matches_the_snapshots() {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let dir = dir();
    let rendered: BTreeMap<String, String> = cases()
        .iter()
        .map(|c| (format!("{}.wgsl", c.file), render(c)))
        .collect();
    assert_eq!(rendered.len(), cases().len(), "two cases share a file name");
    let on_disk: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.ends_with(".wgsl"))
                .collect()
        })
        .unwrap_or_default();
    if update {
        std::fs::create_dir_all(&dir).unwrap();
        for stale in on_disk.iter().filter(|n| !rendered.contains_key(*n)) {
            std::fs::remove_file(dir.join(stale)).unwrap();
        }
        for (name, text) in &rendered {
            std::fs::write(dir.join(name), text).unwrap();
        }
        return;
    }
    let mut problems = Vec::new();
    for (name, text) in &rendered {
        match std::fs::read_to_string(dir.join(name)) {
            Ok(want) if &want == text => {}
            Ok(want) => problems.push(format!(
                "{name} differs at {}",
                first_difference(&want, text)
            )),
            Err(_) => problems.push(format!("{name} is missing")),
        }
    }
    for stale in on_disk.iter().filter(|n| !rendered.contains_key(*n)) {
        problems.push(format!("{stale} is written by no case"));
    }
    assert!(
        problems.is_empty(),
        "rendered WGSL differs from tests/snapshots/wgsl/:\n  - {}\nIf the change is intended, \
         rewrite them with UPDATE_SNAPSHOTS=1 cargo test -p nbits-mlp-core --test wgsl_snapshots \
         and review the diff.",
        problems.join("\n  - ")
    );
}

#[test]
fn every_template_has_a_snapshot() {
    use nbits_mlp_core::render::{imports, BUILTIN_TEMPLATES};
    let mut covered: std::collections::BTreeSet<String> = cases()
        .iter()
        .flat_map(|c| {
            render(c)
                .lines()
                .filter_map(|l| l.strip_prefix("// ==== pass `"))
                .filter_map(|l| l.split(": ").nth(1)?.split(',').next().map(str::to_string))
                .collect::<Vec<_>>()
        })
        .collect();
    // A macro library is rendered by the snapshots of the templates that import it (and so on,
    // for libraries importing libraries).
    loop {
        let before = covered.len();
        for (name, src) in BUILTIN_TEMPLATES {
            if covered.contains(*name) {
                covered.extend(imports(src).into_iter().map(str::to_string));
            }
        }
        if covered.len() == before {
            break;
        }
    }
    for (name, _) in BUILTIN_TEMPLATES {
        assert!(
            covered.contains(*name),
            "no snapshot renders {name}: {covered:?}"
        );
    }
}
