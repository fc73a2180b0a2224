//! `nbits-mlp map`: which kernel a shape takes at every row count, per dtype and input form
//! (`nbits_mlp_core::map`), as text, JSON or a picture.

use crate::args::{load_profile, parse_kn, ManifestArgs, TemplateArgs, TunableArgs};
use anyhow::{bail, Result};
use clap::Args;
use nbits_mlp_bench::plot::{check_picture_path, plot_map};
use nbits_mlp_bench::suites::LLM_SHAPES;
use nbits_mlp_core::coverage::{forms, Form};
use nbits_mlp_core::map::{map_lines, map_text, parse_rows, product_lines, MapRequest};
use nbits_mlp_core::{DType, Planner};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Show which kernel (variant, passes, workgroup sizes) the planner takes for a shape at every
/// row count, for each dtype and input form: where the few-rows kernels hand over to the
/// tensor-core tiles, where pairs, K slices or a reduce pass start.
#[derive(Args, Debug)]
#[command(after_help = "EXAMPLES:
  nbits-mlp map --model llama-3.1-8b --device discrete-gpu --tunable SHADER_CORES=132   # as on the H200
  nbits-mlp map --shape 4096,14336 --dtype f16 --form plain --rows 1-64 --device gpu
  nbits-mlp map --model qwen --device discrete-gpu --plot map.svg     # every Qwen model, a picture
  nbits-mlp map fused.onnx --device gpu                  # each distinct MatMulNBitsMlp node of a model
  nbits-mlp map --model llama-3.1-8b --device discrete-gpu --tunable MMA_PAIRS=2 --json
  nbits-mlp map --model 70b --dtype f16 --form plain --device discrete-gpu --why   # the rule at each boundary

A span is one kernel: it ends where the variant changes, or where a pass appears, disappears or
changes its workgroup size (subgroup pairs, a K-slice reduce pass). `nbits-mlp plan --shape
K,N,ROWS ... --explain` says why at one row count. Forms: plain (no norm), norm (norm_scale),
skip (skip + norm_scale), skipsum (skip + norm_scale + the residual output).

The map is of the defaults and the --tunable overrides: a tuning cache (`nbits-mlp tune`) is not
applied (`nbits-mlp plan --device gpu` shows what it changes for one call).")]
pub struct MapArgs {
    /// An ONNX model (a whole LLM, as `nbits-mlp fuse` writes it): map each distinct
    /// MatMulNBitsMlp node (its K, N, bits, block size, T1, optional inputs and outputs).
    #[arg(value_name = "MODEL.onnx", conflicts_with_all = ["model", "shape"])]
    pub onnx: Option<PathBuf>,
    /// Models of the benchmark suites whose name contains this (case-insensitive; `all` for
    /// every one): Qwen2.5-0.5B, Llama-3.2-1B, Qwen3-1.7B, Phi-3-mini, Qwen2.5-7B,
    /// Llama-3.1-8B, Llama-3.1-70B.
    #[arg(
        long,
        value_name = "NAME",
        required_unless_present_any = ["shape", "onnx"],
        conflicts_with = "shape"
    )]
    pub model: Option<String>,
    /// A shape instead of a model: K (hidden size) and N (intermediate size).
    #[arg(long, value_name = "K,N", value_parser = parse_kn)]
    pub shape: Option<(usize, usize)>,
    /// Device profile: webgpu-default, discrete-gpu, discrete-gpu-8sb, gpu, or a JSON file.
    #[arg(long, value_name = "PROFILE")]
    pub device: String,
    /// Row counts: counts and inclusive ranges, comma-separated.
    #[arg(long, value_name = "LIST", default_value = "1-512")]
    pub rows: String,
    /// Float types, comma-separated [default: f16,f32] (not with a model file: its nodes say).
    #[arg(long, value_name = "f16,f32")]
    pub dtype: Option<String>,
    /// Input forms, comma-separated: plain, norm, skip, skipsum, or all [default:
    /// plain,skipsum].
    #[arg(long, value_name = "FORMS")]
    pub form: Option<String>,
    /// Bits per weight code: 2, 4 or 8 [default: 4].
    #[arg(long)]
    pub bits: Option<u32>,
    /// Codes per quantization block [default: 32].
    #[arg(long, value_name = "S")]
    pub block_size: Option<usize>,
    /// Give gate_bias and up_bias.
    #[arg(long)]
    pub bias: bool,
    #[command(flatten)]
    pub tunables: TunableArgs,
    /// Say under each span why its kernel takes over from the one before: the decisive
    /// variant's verdict at the boundary (the rule that moved it).
    #[arg(long)]
    pub why: bool,
    /// Print the map as JSON (one object per model, dtype and form, with its spans).
    #[arg(long)]
    pub json: bool,
    /// Also draw the map: rows on a log axis, one band per model, dtype and form, each span
    /// coloured by kernel family (`.svg` or `.png`).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub manifest: ManifestArgs,
    #[command(flatten)]
    pub templates: TemplateArgs,
}

/// The models `--model` names: a case-insensitive substring of the suites' names, or `all`.
fn models(name: &str) -> Result<Vec<(&'static str, usize, usize)>> {
    let m = name.to_lowercase();
    let found: Vec<_> = LLM_SHAPES
        .iter()
        .filter(|(model, _, _)| m == "all" || model.to_lowercase().contains(&m))
        .copied()
        .collect();
    if found.is_empty() {
        let names: Vec<&str> = LLM_SHAPES.iter().map(|(n, _, _)| *n).collect();
        bail!(
            "--model {name}: no model of the suites matches (known: {}, or all)",
            names.join(", ")
        );
    }
    Ok(found)
}

fn list<'a>(text: &'a str, what: &str, known: &[&str]) -> Result<Vec<&'a str>> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim) {
        if !known.contains(&item) {
            bail!(
                "{what} {text}: unknown `{item}` (known: {})",
                known.join(", ")
            );
        }
        if !out.contains(&item) {
            out.push(item);
        }
    }
    Ok(out)
}

pub fn run(args: MapArgs) -> Result<ExitCode> {
    if let Some(path) = &args.plot {
        check_picture_path(path).map_err(|e| anyhow::anyhow!("--plot: {e}"))?;
    }
    let rows = parse_rows(&args.rows).map_err(|e| anyhow::anyhow!("--rows: {e}"))?;
    let lines = match &args.onnx {
        Some(path) => {
            let given: Vec<&str> = [
                (args.dtype.is_some(), "--dtype"),
                (args.form.is_some(), "--form"),
                (args.bits.is_some(), "--bits"),
                (args.block_size.is_some(), "--block-size"),
                (args.bias, "--bias"),
            ]
            .into_iter()
            .filter_map(|(set, name)| set.then_some(name))
            .collect();
            if !given.is_empty() {
                bail!(
                    "{}: allowed only with --model or --shape (a model's nodes give their own)",
                    given.join(", ")
                );
            }
            nbits_mlp_fuse::distinct_mlp_shapes(path)?
        }
        None => {
            let dtypes: Vec<DType> = list(
                args.dtype.as_deref().unwrap_or("f16,f32"),
                "--dtype",
                &["f16", "f32"],
            )?
            .into_iter()
            .map(|d| if d == "f16" { DType::F16 } else { DType::F32 })
            .collect();
            let all_forms = forms();
            let form_names: Vec<&str> = all_forms.iter().map(|f| f.name.as_str()).collect();
            let chosen = match args.form.as_deref().unwrap_or("plain,skipsum") {
                "all" => form_names.clone(),
                text => list(text, "--form", &form_names)?,
            };
            let chosen_forms: Vec<Form> = all_forms
                .iter()
                .filter(|f| chosen.contains(&f.name.as_str()))
                .cloned()
                .collect();
            let shapes: Vec<(String, usize, usize)> = match (&args.model, args.shape) {
                (_, Some((k, n))) => vec![("shape".to_string(), k, n)],
                (Some(m), None) => models(m)?
                    .into_iter()
                    .map(|(name, k, n)| (name.to_string(), k, n))
                    .collect(),
                (None, None) => bail!("give MODEL.onnx, --model NAME or --shape K,N"),
            };
            product_lines(
                &shapes,
                &dtypes,
                &chosen_forms,
                args.bits.unwrap_or(4),
                args.block_size.unwrap_or(32),
                args.bias,
            )
        }
    };
    let manifest = args.manifest.load()?;
    let tunables = args.tunables.resolve(&manifest)?;
    let templates = args.templates.load()?;
    let profile = load_profile(&args.device, None)?;
    let planner = Planner::new(Arc::new(manifest), Arc::new(templates), profile.clone());
    let request = MapRequest {
        lines,
        rows,
        tunables,
        why: args.why,
    };
    // Each plan renders its WGSL (~2-3 ms): the lines on every core, a bar on a terminal.
    let bar = indicatif::ProgressBar::new((request.lines.len() * request.rows.len()) as u64)
        .with_style(
            indicatif::ProgressStyle::with_template("planning {bar:30} {pos}/{len} plans {eta}")
                .expect("a valid template"),
        );
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let lines = map_lines(&planner, &request, threads, &|| bar.inc(1));
    bar.finish_and_clear();
    let lines = lines?;
    let device = format!(
        "{}{}",
        profile.name,
        tunables_suffix(&profile, &request.tunables)
    );

    // The picture first: where it cannot be written, the command fails before printing.
    if let Some(path) = &args.plot {
        plot_map(&lines, &device, path)?;
        eprintln!("wrote {}", path.display());
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&lines)?);
    } else {
        print!("{}", map_text(&lines, &device));
    }
    Ok(ExitCode::SUCCESS)
}

/// ` (SHADER_CORES=132, MMA_PAIRS=2)`: the profile's own tunables and the overrides, or
/// nothing.
fn tunables_suffix(
    profile: &nbits_mlp_core::DeviceProfile,
    tunables: &nbits_mlp_core::Tunables,
) -> String {
    let mut all: Vec<String> = profile
        .tunables
        .iter()
        .filter(|(k, _)| !tunables.contains_key(*k))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    all.extend(tunables.iter().map(|(k, v)| format!("{k}={v}")));
    if all.is_empty() {
        String::new()
    } else {
        format!(" ({})", all.join(", "))
    }
}
