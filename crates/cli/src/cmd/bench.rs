//! `nbits-mlp bench`: GPU-timestamp benchmark of a suite of LLM shapes, with the copy ceiling
//! measured in the same run, a JSON report and its plot (SVG and PNG); and the reports as data:
//! plots redrawn, the rows plot beside the peers, Markdown tables, two reports compared, the
//! results document.

use crate::args::{gpu_options, TunableArgs};
use anyhow::{bail, Context as _, Result};
use clap::Args;
use nbits_mlp_bench::compare::Across;
use nbits_mlp_bench::{BenchConfig, Report};
use nbits_mlp_gpu::Runtime;
use std::path::PathBuf;
use std::process::ExitCode;

/// Benchmark the operator on the GPU: median GPU time (timestamp queries) over rotating weight
/// sets, weight GB/s against the measured copy bandwidth, host overhead per call, and the
/// peers' wall-clock-per-node measure; every shape is checked against the float64 reference.
#[derive(Args, Debug)]
#[command(after_help = "EXAMPLES:
  nbits-mlp bench --suite decode --out out/        # Llama-3.1-8B at rows 1 and 128, f16, skip+norm
  nbits-mlp bench --suite quick --out out/         # every LLM shape of the spec at rows 1 and 128
  nbits-mlp bench --suite full --out out/          # rows 1/16/128/512, f16/f32, with/without norm
  nbits-mlp bench --suite full --rows 1 --layers 0 # only the single-row shapes, no wall-clock measure
  nbits-mlp bench --suite full --model llama-3.1-8b --rows 16,128  # one model's shapes
  nbits-mlp bench --suite full --rows 512 --dtype f32 --form norm   # one form of every model
  nbits-mlp bench --suite few --out out/           # rows 2, 4, 8, 12 of every LLM shape (small batches)
  nbits-mlp bench --suite few --at-rows 24,32 --dtype f16  # the same shapes at other row counts
  nbits-mlp bench --suite full --rows 1 --dtype f16 --at-bits 8 --out q8/  # every model's decode shapes at 8 bits
  nbits-mlp bench --suite llama8b --at-rows 1,2,4,8,16 --isolate --out rows/  # each shape in its own process
  nbits-mlp bench --shape 5120,13824 --rows 1 --dtype f16 --at-bits 2,4  # your own model's gate/up shape
  nbits-mlp bench --suite decode --rows 1 --at-block-size 64,128  # other quantization block sizes
  nbits-mlp bench --plot out/bench.json            # redraw out/bench.svg and out/bench.png from a report
  nbits-mlp bench --table out/bench.json --peers ort.jsonl  # Markdown table beside ONNX Runtime's lines
  nbits-mlp bench --compare base/ tuned/          # two runs' directories (or their bench.json) side by side: each shape's change
  nbits-mlp bench --compare f16/ f32/ --across dtype  # float32 against float16 at each shape (also bits, block-size, form)
  nbits-mlp bench --compare run/ run/ --across bits=4  # 2- and 8-bit codes against 4-bit, in one report
  nbits-mlp bench --plot-rows out/bench.json --model llama-3.1-8b --dtype f16 --bits 4 \
      --peers torch.jsonl --peers ort.jsonl --out rows.svg   # time against rows, log-log, beside the peers
  nbits-mlp bench --results notes/runs --out docs/RESULTS.md  # every committed run's tables (repository root)

Writes OUT/bench.json (GPU, driver, commit, date, every measurement with its TFLOP/s) and its
plot, OUT/bench.svg and OUT/bench.png (the font is compiled in: no system fonts needed).
Without --tunable, the adapter's tuning cache applies (see `nbits-mlp tune`); the values it
changed are listed per shape. NBITS_MLP_TUNE_CACHE=off benchmarks the defaults.
A timestamp median more than 20 % above its host-clock check is timed again (up to twice);
NBITS_MLP_BENCH_PER_SET=1 also times each weight set alone (a diagnostic, kept in the JSON).
Exit 1 if any shape's result is outside the reference tolerance.")]
pub struct BenchArgs {
    /// Suite: smoke, decode, llama8b, quick, full or few (rows 2/4/8/12 of every LLM shape).
    #[arg(long, default_value = "decode")]
    pub suite: String,
    /// Time one weight shape K x N of no suite instead (your own model's gate/up), in the
    /// `full` suite's grid: rows 1/16/128/512, f16 and f32, plain and skip+norm, 4-bit blocks
    /// of 32, named `K{K}xN{N}`; narrow and move it with the options below (e.g. `--rows 1
    /// --dtype f16 --form plain --at-bits 2,4`).
    #[arg(long, value_name = "K,N", value_parser = crate::args::parse_kn, conflicts_with = "suite")]
    pub shape: Option<(usize, usize)>,
    /// Where to write: a run's directory (bench.json, bench.svg, bench.png) [default: out];
    /// with --plot-rows the picture (.svg or .png) [default: REPORT-rows.svg beside the
    /// report]; with --results the document [default: standard output].
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Independent weight sets rotated through (>= 4 keeps weights out of the L2 cache).
    #[arg(long, default_value_t = 4)]
    pub sets: usize,
    /// Timed rounds (each runs every weight set once).
    #[arg(long, default_value_t = 50)]
    pub rounds: usize,
    /// Layers in the peers' wall-clock-per-node measure (0 skips it).
    #[arg(long, default_value_t = 16)]
    pub layers: usize,
    /// GPU adapter: case-insensitive substring of its name [default: the best adapter].
    #[arg(long, value_name = "NAME")]
    pub adapter: Option<String>,
    /// Keep only the suite's shapes with these row counts (comma-separated, e.g. `1,128`).
    #[arg(long, value_name = "ROWS", value_delimiter = ',')]
    pub rows: Vec<usize>,
    /// Run the suite's shapes (after the other filters) at these row counts instead of the
    /// suite's own, each distinct shape once per count (comma-separated, e.g. `24,32`).
    #[arg(
        long,
        value_name = "ROWS",
        value_delimiter = ',',
        conflicts_with = "rows"
    )]
    pub at_rows: Vec<usize>,
    /// Run the suite's shapes (after the other filters) at these bits per code instead of their
    /// own, each distinct shape once per width (comma-separated, e.g. `2,8`).
    #[arg(long, value_name = "BITS", value_delimiter = ',', value_parser = ["2", "4", "8"])]
    pub at_bits: Vec<String>,
    /// Run the suite's shapes (after the other filters) at these block sizes (codes per
    /// quantization block, a power of two of at least 16) instead of 32, each distinct shape
    /// once per size (comma-separated, e.g. `64,128`).
    #[arg(long, value_name = "SIZES", value_delimiter = ',')]
    pub at_block_size: Vec<usize>,
    /// Keep only the suite's shapes whose model name contains this (case-insensitive).
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// Keep only the suite's shapes of this activation type.
    #[arg(long, value_parser = ["f16", "f32"])]
    pub dtype: Option<String>,
    /// Keep only the suite's shapes of this form: `norm` (skip + norm_scale + residual output)
    /// or `plain`.
    #[arg(long, value_parser = ["norm", "plain"])]
    pub form: Option<String>,
    /// Keep only the suite's shapes with this many bits per weight.
    #[arg(long, value_parser = ["2", "4", "8"])]
    pub bits: Option<String>,
    /// Templates replacing the built-in ones (to benchmark an edited kernel without rebuilding).
    #[command(flatten)]
    pub templates: crate::args::TemplateArgs,
    /// Overlay JSON used in place of the project's (e.g. a copy of
    /// `manifest/nbits-mlp.overlay.json` regenerated from an edited
    /// `manifest/nbits-mlp.overlay.toml` with `cargo xtask gen-overlay`), to benchmark an edited
    /// rule, derive or tunable without rebuilding.
    #[arg(long, value_name = "FILE")]
    pub overlay: Option<PathBuf>,
    /// Only redraw an existing report's plot: REPORT.svg and REPORT.png beside it. Here and in
    /// the options below that read reports, a run's directory (`--out`) stands for its
    /// `bench.json`.
    #[arg(long, value_name = "REPORT.json")]
    pub plot: Option<PathBuf>,
    /// Only print an existing report as a Markdown table (with `--peers`: beside the peers'
    /// wall per node).
    #[arg(long, value_name = "REPORT.json", conflicts_with = "plot")]
    pub table: Option<PathBuf>,
    /// Only print two existing reports side by side as a Markdown table: each shape timed in
    /// both, its variant and GPU time in each and the change (negative: faster), then how many
    /// got faster, stayed within 2 % or got slower (e.g. a run with `--tunable` against one
    /// without, or two commits' runs; the GPUs should be the same). Reports or run directories.
    #[arg(long, num_args = 2, value_names = ["BASE", "OTHER"], conflicts_with_all = ["plot", "table"])]
    pub compare: Vec<PathBuf>,
    /// With `--compare`: pair the shapes that differ in this one respect, everything else equal,
    /// instead of equal shapes: `dtype` (float32 against float16), `bits`, `block-size` or
    /// `form` (skip, norm_scale and the residual output); `KEY=VALUE` takes only base shapes
    /// of that value (`dtype=f16`, `bits=4`, `form=plain`), so BASE and OTHER may be one
    /// report. The table adds the other's value and the weight bytes' ratio; the summary the
    /// range of the time ratios (for bits: how many stay within the weight bytes' ratio).
    #[arg(long, value_name = "KEY[=VALUE]", requires = "compare")]
    pub across: Option<Across>,
    /// Only draw an existing report's time against rows (log-log) for one shape, selected with
    /// --model, --dtype, --form and --bits, beside the peers' lines of the same K and N (--peers:
    /// PyTorch's GPU times; ONNX Runtime's wall per node, then ours too). Repeatable: the
    /// reports of one binary on one GPU (e.g. one row count per process) are drawn as one.
    #[arg(long, value_name = "REPORT.json", conflicts_with_all = ["plot", "table", "compare"])]
    pub plot_rows: Vec<PathBuf>,
    /// Only write the results document of a folder of run folders (each described by an
    /// INDEX.md; e.g. notes/runs): every report as a table beside the peers its index names.
    /// Paths are read relative to the current directory (the repository root).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["plot", "table", "plot_rows", "compare"])]
    pub results: Option<PathBuf>,
    /// With `--table` or `--plot-rows`: JSON-lines files of the peers' scripts
    /// (`../shared/peers/ort_webgpu_layers.py`, `torch_baselines.py`); for each shape the last
    /// matching line of the last file that has one counts (repeatable).
    #[arg(long, value_name = "FILE.jsonl")]
    pub peers: Vec<PathBuf>,
    /// Run each shape of the selection in a process of its own (this program, started once per
    /// shape with the same options), then merge their reports into OUT/bench.json. In one
    /// process the shapes after the first can read 2-5x long for all their rounds
    /// (notes/PERF.md row 116); curves meant for comparison are timed this way.
    #[arg(long, conflicts_with_all = ["plot", "table", "plot_rows", "results", "compare"])]
    pub isolate: bool,
    /// Internal (`--isolate`'s child processes): keep only the shape of this index in the
    /// selection, counted after every filter.
    #[arg(long, hide = true, value_name = "I")]
    pub only_shape: Option<usize>,
    #[command(flatten)]
    pub tunables: TunableArgs,
}

pub fn run(a: BenchArgs) -> Result<ExitCode> {
    if !a.peers.is_empty() && a.table.is_none() && a.plot_rows.is_empty() {
        bail!("--peers goes with --table or --plot-rows");
    }
    if let Some(path) = &a.table {
        let report = read_report(path)?;
        let (peers, names) = read_peers(&a.peers)?;
        print!(
            "{}",
            nbits_mlp_bench::table::markdown(&report, &peers, &names)
        );
        return Ok(ExitCode::SUCCESS);
    }
    if let [base, other] = &a.compare[..] {
        let names = [base, other].map(|p| p.display().to_string());
        print!(
            "{}",
            nbits_mlp_bench::compare::markdown_across(
                &read_report(base)?,
                &read_report(other)?,
                [&names[0], &names[1]],
                a.across.as_ref()
            )?
        );
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(path) = &a.plot {
        let path = &report_path(path);
        let report = read_report(path)?;
        for ext in ["svg", "png"] {
            let pic = path.with_extension(ext);
            nbits_mlp_bench::plot(&report, &pic)?;
            eprintln!("wrote {}", pic.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(path) = a.plot_rows.first() {
        let reports = a
            .plot_rows
            .iter()
            .map(|p| read_report(p))
            .collect::<Result<Vec<_>>>()?;
        let report = Report::merge(reports)?;
        let (peers, _) = read_peers(&a.peers)?;
        let filter = nbits_mlp_bench::plot::RowsFilter {
            model: a.model.clone(),
            dtype: a
                .dtype
                .as_deref()
                .and_then(nbits_mlp_core::tensor::DType::from_name),
            norm: a.form.as_deref().map(|f| f == "norm"),
            bits: a.bits.as_deref().map(str::parse).transpose()?,
        };
        let plot = nbits_mlp_bench::plot::rows_curves(&report, &peers, &filter)
            .with_context(|| path.display().to_string())?;
        let out = a.out.clone().unwrap_or_else(|| {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            path.with_file_name(format!("{stem}-rows.svg"))
        });
        nbits_mlp_bench::plot::plot_rows(&plot, &out)?;
        eprintln!("wrote {} ({} curves)", out.display(), plot.curves.len());
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(dir) = &a.results {
        let doc = nbits_mlp_bench::results::document(
            std::path::Path::new("."),
            &dir.display().to_string(),
        )?;
        match &a.out {
            Some(out) => {
                std::fs::write(out, doc).with_context(|| format!("writing {}", out.display()))?;
                eprintln!("wrote {}", out.display());
            }
            None => print!("{doc}"),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let out_dir = a.out.clone().unwrap_or_else(|| PathBuf::from("out"));
    let (mut shapes, source) = match a.shape {
        Some((k, n)) => (
            nbits_mlp_bench::shape_suite(k, n)?,
            format!("shape {k},{n}"),
        ),
        None => (
            nbits_mlp_bench::suite(&a.suite)?,
            format!("suite `{}`", a.suite),
        ),
    };
    if !a.rows.is_empty() {
        let rows = a.rows.iter().map(|r| r.to_string()).collect::<Vec<_>>();
        let option = format!("--rows {}", rows.join(","));
        let hint = "`--at-rows` runs them at other row counts";
        narrow(&mut shapes, &source, &option, ("rows", hint), |s| {
            (a.rows.contains(&s.mlp.rows()), s.mlp.rows().to_string())
        })?;
    }
    if let Some(m) = &a.model {
        let lower = m.to_lowercase();
        narrow(
            &mut shapes,
            &source,
            &format!("--model {m}"),
            ("models", ""),
            |s| (s.model.to_lowercase().contains(&lower), s.model.clone()),
        )?;
    }
    if let Some(d) = &a.dtype {
        let want = nbits_mlp_core::tensor::DType::from_name(d);
        let hint = "the `full` suite has f16 and f32 shapes of every model";
        narrow(
            &mut shapes,
            &source,
            &format!("--dtype {d}"),
            ("dtypes", hint),
            |s| {
                (
                    Some(s.mlp.dtype) == want,
                    s.mlp.dtype.short_name().to_string(),
                )
            },
        )?;
    }
    if let Some(f) = &a.form {
        narrow(
            &mut shapes,
            &source,
            &format!("--form {f}"),
            ("forms", ""),
            |s| {
                let form = if s.mlp.norm { "norm" } else { "plain" };
                (form == f, form.to_string())
            },
        )?;
    }
    if let Some(b) = &a.bits {
        let bits: u32 = b.parse()?;
        let hint = "`--at-bits` runs them at other widths";
        narrow(
            &mut shapes,
            &source,
            &format!("--bits {b}"),
            ("bits", hint),
            |s| (s.mlp.bits == bits, s.mlp.bits.to_string()),
        )?;
    }
    if !a.at_rows.is_empty() {
        shapes = nbits_mlp_bench::at_rows(&shapes, &a.at_rows);
    }
    if !a.at_bits.is_empty() {
        let bits: Vec<u32> = a
            .at_bits
            .iter()
            .map(|b| b.parse())
            .collect::<Result<_, _>>()?;
        shapes = nbits_mlp_bench::at_bits(&shapes, &bits);
    }
    if !a.at_block_size.is_empty() {
        shapes = nbits_mlp_bench::at_block_size(&shapes, &a.at_block_size);
    }
    // The manifest and templates, read once (before the GPU opens: a bad file is the error,
    // not the adapter) for the check below and the runtime's planner.
    let manifest = std::sync::Arc::new(crate::args::load_manifest(None, a.overlay.as_deref())?);
    let templates = std::sync::Arc::new(a.templates.load()?);
    // A shape the operator does not accept (a block size that is no power of two of at least
    // 16, say) is the error before any GPU work, as the manifest's contract words it.
    {
        let checker = nbits_mlp_core::Planner::new(
            manifest.clone(),
            templates.clone(),
            nbits_mlp_core::DeviceProfile::discrete_gpu(),
        );
        for s in &shapes {
            match checker.plan(&s.mlp.call(), &Default::default()) {
                Err(e) if e.is_caller_error() => {
                    let m = &s.mlp;
                    bail!(
                        "{} (K={} N={} bits={} block_size={}): {e}",
                        s.label(),
                        m.k,
                        m.n,
                        m.bits,
                        m.block_size
                    )
                }
                _ => {}
            }
        }
    }
    if let Some(i) = a.only_shape {
        if i >= shapes.len() {
            bail!(
                "--only-shape {i}: the selection has {} shape(s)",
                shapes.len()
            );
        }
        shapes = vec![shapes.swap_remove(i)];
    }
    if a.isolate && shapes.len() > 1 {
        return isolated(&out_dir, shapes.len());
    }
    // (An `--isolate` child holds one shape: `--only-shape` kept only that one above.)
    if shapes.len() > 1 {
        eprintln!("{}", one_process_note(shapes.len()));
    }
    let gpu = nbits_mlp_gpu::Gpu::new(&gpu_options(a.adapter.as_deref())?)?;
    let planner = nbits_mlp_core::Planner::new(manifest, templates, gpu.profile());
    let rt = Runtime::with_planner(gpu, planner)?;
    // The adapter's tuning cache applies unless tunables are given explicitly.
    let rt = if a.tunables.tunables.is_empty() {
        let (rt, warning) = rt.with_default_tuning();
        if let Some(w) = warning {
            eprintln!("warning: {w}");
        }
        rt
    } else {
        rt
    };
    let manifest = rt.planner().manifest().clone();
    let cfg = BenchConfig {
        weight_sets: a.sets.max(1),
        rounds: a.rounds.max(1),
        layers: a.layers,
        host_reps: 200,
        tunables: a.tunables.resolve(&manifest)?,
    };
    let date = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    eprintln!(
        "adapter: {} ({:?})",
        rt.gpu().info().name,
        rt.gpu().info().backend
    );
    if let Some(p) = rt.tuning().and_then(|t| t.source.as_ref()) {
        eprintln!("tuning cache: {}", p.display());
    }
    let report = nbits_mlp_bench::run(&rt, &shapes, &cfg, &date, &mut |m| eprintln!("{m}"))?;
    write_and_print(&report, &out_dir)
}

/// What `bench` says when it times several shapes in one process: readings after the first
/// shape can come out 2-5x long for all their rounds (notes/PERF.md rows 116 and 226), so
/// comparisons want `--isolate`.
fn one_process_note(n: usize) -> String {
    format!(
        "note: {n} shapes timed in this one process; those after the first can read 2-5x long \
         for all their rounds (notes/PERF.md row 116): time comparisons with --isolate"
    )
}

/// `--isolate`: each of the selection's `n` shapes timed by a process of its own, the reports
/// merged into `out_dir`. A child whose shape is outside the reference tolerance (exit 1) still
/// counts (the merged report says so, and so does the exit code); any other failure stops.
fn isolated(out_dir: &std::path::Path, n: usize) -> Result<ExitCode> {
    let exe = std::env::current_exe().context("locating this program to run each shape")?;
    let args = child_args(std::env::args_os().skip(1));
    let mut reports = Vec::with_capacity(n);
    let mut dirs = Vec::with_capacity(n);
    for i in 0..n {
        let dir = out_dir.join(format!("shape-{i}"));
        eprintln!("shape {} of {n}: a process of its own", i + 1);
        let status = std::process::Command::new(&exe)
            .args(&args)
            .arg("--only-shape")
            .arg(i.to_string())
            .arg("--out")
            .arg(&dir)
            .status()
            .with_context(|| format!("starting {}", exe.display()))?;
        if !status.success() && status.code() != Some(crate::EXIT_FAILED.into()) {
            bail!(
                "the process timing shape {} of {n} failed ({status})",
                i + 1
            );
        }
        reports.push(read_report(&dir.join("bench.json"))?);
        dirs.push(dir);
    }
    let report = Report::merge(reports)?;
    let code = write_and_print(&report, out_dir)?;
    for dir in dirs {
        // Each child's report is in the merged one; its folder (report and plots) goes.
        std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    Ok(code)
}

/// This program's arguments for an `--isolate` child: all but `--isolate` and `--out`.
fn child_args(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut out = Vec::new();
    let mut skip_value = false;
    for arg in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        match arg.to_str() {
            Some("--isolate") => {}
            Some("--out") => skip_value = true,
            Some(s) if s.starts_with("--out=") => {}
            _ => out.push(arg),
        }
    }
    out
}

/// Writes `report` (OUT/bench.json and its plots) and prints its table and flags; exit 1 when a
/// shape is outside the reference tolerance.
fn write_and_print(report: &Report, out_dir: &std::path::Path) -> Result<ExitCode> {
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let json = out_dir.join("bench.json");
    std::fs::write(&json, serde_json::to_string_pretty(report)?)
        .with_context(|| format!("writing {}", json.display()))?;
    for pic in ["bench.svg", "bench.png"] {
        if let Err(e) = nbits_mlp_bench::plot(report, &out_dir.join(pic)) {
            eprintln!("plot {pic} skipped: {e:#}");
        }
    }
    println!(
        "{:<36} {:>26} {:>10} {:>8} {:>9} {:>7} {:>9} {:>9} {:>10}",
        "shape", "variant", "GPU us", "TFLOP/s", "GB/s", "copy%", "sust us", "host us", "wall/node"
    );
    for m in &report.measurements {
        println!(
            "{:<36} {:>26} {:>10.1} {:>8.2} {:>9.0} {:>6.0}% {:>9} {:>9.1} {:>10}",
            m.shape.label(),
            m.variant,
            m.gpu_us,
            m.tflops(),
            m.weight_gbps,
            100.0 * m.copy_fraction,
            m.gpu_us_sustained
                .map(|w| format!("{w:.1}{}", if m.inflated() { "!" } else { "" }))
                .unwrap_or_else(|| "-".into()),
            m.host_us,
            m.wall_per_node_us
                .map(|w| format!("{w:.1}{}", if m.above_wall() { "!" } else { "" }))
                .unwrap_or_else(|| "-".into())
        );
    }
    let flagged = |suspect: fn(&nbits_mlp_bench::Measurement) -> bool| -> Vec<String> {
        report
            .measurements
            .iter()
            .filter(|m| suspect(m))
            .map(|m| m.shape.label())
            .collect()
    };
    let inflated = flagged(nbits_mlp_bench::Measurement::inflated);
    if !inflated.is_empty() {
        println!(
            "! timestamp median more than 20 % above the host-clock cross-check (sust us) for: {}; \
             trust the cross-check and the wall measure for these",
            inflated.join(", ")
        );
    }
    for m in report
        .measurements
        .iter()
        .filter(|m| !m.discarded_gpu_us.is_empty())
    {
        let set_aside: Vec<String> = m
            .discarded_gpu_us
            .iter()
            .map(|v| format!("{v:.1}"))
            .collect();
        println!(
            "{}: timed {} times; set aside the timestamp medians {} us (above the host-clock cross-check)",
            m.shape.label(),
            m.discarded_gpu_us.len() + 1,
            set_aside.join(", ")
        );
    }
    let above_wall = flagged(nbits_mlp_bench::Measurement::above_wall);
    if !above_wall.is_empty() {
        println!(
            "! GPU time per call above the wall time per node (wall/node), which holds the same \
             kernel, for: {}; one of the two measures is wrong for these",
            above_wall.join(", ")
        );
    }
    for m in report.measurements.iter().filter(|m| !m.tuned.is_empty()) {
        println!(
            "{}: tunables {} (tuned cache {})",
            m.shape.label(),
            nbits_mlp_core::tuning::tunables_text(&m.tuned),
            report.tuning_cache.as_deref().unwrap_or_default()
        );
    }
    println!(
        "copy bandwidth (read+write): {:.0} GB/s; report: {}",
        report.copy_gbps,
        json.display()
    );
    let bad = report
        .measurements
        .iter()
        .filter(|m| m.off_reference())
        .count();
    Ok(if bad > 0 {
        eprintln!("{bad} shape(s) outside the reference tolerance");
        ExitCode::from(crate::EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Peer lines, each with the index of the file it came from.
type Peers = Vec<(usize, nbits_mlp_bench::table::PeerLine)>;

/// The peers' lines of JSON-lines files, and the files' names (for the table's legend).
fn read_peers(paths: &[PathBuf]) -> Result<(Peers, Vec<String>)> {
    let files = paths
        .iter()
        .map(|p| {
            nbits_mlp_core::files::read_text_limited(p, nbits_mlp_core::files::MAX_JSON_BYTES)
                .with_context(|| format!("reading {}", p.display()))
                .map(|t| (p.display().to_string(), t))
        })
        .collect::<Result<Vec<_>>>()?;
    let peers = nbits_mlp_bench::table::read_peer_lines(&files)?;
    Ok((peers, files.into_iter().map(|(n, _)| n).collect()))
}

/// The report a path names: the file itself, or where it is a directory (a run's `--out`), the
/// `bench.json` the bench writes there.
fn report_path(path: &std::path::Path) -> PathBuf {
    if path.is_dir() {
        path.join("bench.json")
    } else {
        path.to_path_buf()
    }
}

/// Reads the bench report `path` names ([`report_path`]: a report, or a run's directory).
fn read_report(path: &std::path::Path) -> Result<Report> {
    let path = report_path(path);
    let text =
        nbits_mlp_core::files::read_text_limited(&path, nbits_mlp_core::files::MAX_JSON_BYTES)
            .with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a bench report", path.display()))
}

/// Keeps the shapes for which `test` says true (its first value); where that leaves none, the
/// error names `source`, the option that emptied the selection (`option`), the values (`what.0`:
/// what they are; the second value of `test`, in the suite's order) of the shapes the options
/// before it had left, and `what.1`, a hint where not empty, so that the user sees what to ask
/// for instead.
fn narrow(
    shapes: &mut Vec<nbits_mlp_bench::BenchShape>,
    source: &str,
    option: &str,
    what: (&str, &str),
    test: impl Fn(&nbits_mlp_bench::BenchShape) -> (bool, String),
) -> Result<()> {
    let mut seen: Vec<String> = Vec::new();
    shapes.retain(|s| {
        let (keep, value) = test(s);
        if !seen.contains(&value) {
            seen.push(value);
        }
        keep
    });
    if shapes.is_empty() {
        let hint = if what.1.is_empty() {
            String::new()
        } else {
            format!("; {}", what.1)
        };
        bail!(
            "{source} has no shape with {option} (its {} by then: {}){hint}",
            what.0,
            seen.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::child_args;
    use std::ffi::OsString;

    fn args(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn a_child_gets_every_option_but_isolate_and_out() {
        let given = args(&[
            "bench",
            "--suite",
            "llama8b",
            "--isolate",
            "--out",
            "rows",
            "--at-rows",
            "1,2",
            "--tunable",
            "MMA_SPLIT_K=1",
        ]);
        assert_eq!(
            child_args(given.into_iter()),
            args(&[
                "bench",
                "--suite",
                "llama8b",
                "--at-rows",
                "1,2",
                "--tunable",
                "MMA_SPLIT_K=1"
            ])
        );
        let given = args(&["bench", "--out=x", "--isolate", "--rows", "1"]);
        assert_eq!(
            child_args(given.into_iter()),
            args(&["bench", "--rows", "1"])
        );
    }
}
