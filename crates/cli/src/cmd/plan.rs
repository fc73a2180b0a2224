//! `nbits-mlp plan`: what would run for each MatMulNBitsMlp node of a model (or for a shape) on
//! a device profile.

use crate::args::{
    gpu_options, load_profile, parse_shape, ManifestArgs, ShapeFlags, TemplateArgs, TunableArgs,
    LIVE_PROFILE,
};
use crate::files::{create_dir_for_output, safe_file_stem, write_all_atomically};
use crate::report::{plan_json, plan_text, verdicts_text};
use anyhow::{anyhow, bail, Context as _, Result};
use clap::Args;
use indexmap::IndexMap;
use nbits_mlp_core::tuning::{self, tunables_text, TuningCache};
use nbits_mlp_core::{OpCall, Plan, Planner, TensorInfo, Tunables};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Show the plan (variant, passes, dispatch, bindings, buffers) chosen for each MatMulNBitsMlp
/// node of a model, or for a shape given on the command line, on a device profile.
#[derive(Args, Debug)]
#[command(after_help = "EXAMPLES:
  nbits-mlp plan case/model.onnx --device discrete-gpu
  nbits-mlp plan case/model.onnx --device webgpu-default --explain
  nbits-mlp plan case/model.onnx --device gpu --json           # the live adapter's profile
  nbits-mlp plan case/model.onnx --device my-profile.json --inputs case/test_data_set_0
  nbits-mlp plan --shape 4096,14336,1 --dtype f16 --skip --norm --residual --device discrete-gpu
  nbits-mlp plan --shape 896,4864,8 --device discrete-gpu-8sb --tunable TILE_N=16 --wgsl /tmp/wgsl
  nbits-mlp plan --shape 4096,14336,16 --dtype f16 --device gpu --compiled   # registers per pass

Device profiles: webgpu-default, discrete-gpu, discrete-gpu-8sb, gpu (the live adapter), or a
JSON file {\"name\", \"limits\": {WebGPU limit: value}, \"features\": [...]} (see
`nbits-mlp devices --write-profile`). A planning error (e.g. no variant applies, with each
variant's reason) exits 2, as does a pass whose WGSL naga rejects (e.g. from an edited
template given with --templates: the pass, its template and the failing line are named).

With --device gpu and no --tunable, the adapter's tuning cache (see `nbits-mlp tune`) applies:
a `tuned:` line names the values it changed and the cache file. NBITS_MLP_TUNE_CACHE=off
disables it.")]
pub struct PlanArgs {
    /// ONNX model whose nodes are all com.microsoft::MatMulNBitsMlp.
    #[arg(
        value_name = "MODEL.onnx",
        required_unless_present = "shape",
        conflicts_with = "shape"
    )]
    pub model: Option<PathBuf>,
    /// Plan one call of this shape instead of a model (see --dtype, --bits, --skip, ...).
    #[arg(long, value_name = "K,N,ROWS", value_parser = parse_shape)]
    pub shape: Option<(usize, usize, usize)>,
    #[command(flatten)]
    pub shape_flags: ShapeFlags,
    /// Device profile: webgpu-default, discrete-gpu, discrete-gpu-8sb, gpu, or a JSON file.
    #[arg(long, value_name = "PROFILE")]
    pub device: String,
    /// Adapter for `--device gpu` (case-insensitive substring of its name).
    #[arg(long, value_name = "NAME")]
    pub adapter: Option<String>,
    /// Take input shapes from the `input_<i>.pb` files of DIR instead of the model's declared
    /// graph input shapes.
    #[arg(long, value_name = "DIR", conflicts_with = "shape")]
    pub inputs: Option<PathBuf>,
    #[command(flatten)]
    pub tunables: TunableArgs,
    /// Print the plans as JSON (an array, one object per node).
    #[arg(long)]
    pub json: bool,
    /// With --json: keep each pass's template context (every derive value).
    #[arg(long, requires = "json")]
    pub context: bool,
    /// List every variant: applies, or the first rejecting term and why.
    #[arg(long)]
    pub explain: bool,
    /// Write each pass's WGSL to `DIR/<node>_<pass>.wgsl`.
    #[arg(long, value_name = "DIR")]
    pub wgsl: Option<PathBuf>,
    /// With --device gpu: compile each pass for the adapter and show what its driver reports
    /// (Vulkan drivers with VK_KHR_pipeline_executable_properties, e.g. NVIDIA's: registers per
    /// invocation, shared memory, and the workgroups per SM the registers allow; not spilled
    /// registers, which scripts/nv-sass counts; others say they report nothing).
    #[arg(long)]
    pub compiled: bool,
    #[command(flatten)]
    pub manifest: ManifestArgs,
    #[command(flatten)]
    pub templates: TemplateArgs,
}

/// One planned node.
struct Planned {
    /// `node 'mlp'` / `shape K=.. N=.. rows=..`.
    title: String,
    /// Name for JSON and WGSL file names.
    name: String,
    plan: Arc<Plan>,
    /// Tunables the tuning cache applied (empty: none).
    tuned: Tunables,
}

/// Plans calls by the tuning rule ([`tuning::plan_tuned`]): the overrides when given, else the
/// tuning cache's values for the call's class when a cache is given, else the defaults; tuned
/// values that do not plan fall back to the defaults, with a warning.
struct CallPlanner<'a> {
    planner: &'a Planner,
    tunables: &'a Tunables,
    tuning: Option<TuningCache>,
}

impl CallPlanner<'_> {
    fn plan(&self, call: &OpCall) -> Result<(Arc<Plan>, Tunables), nbits_mlp_core::PlanError> {
        let planned = tuning::plan_tuned(self.planner, call, self.tunables, self.tuning.as_ref())?;
        if let Some(w) = planned.warning() {
            eprintln!("warning: {w}");
        }
        Ok((planned.plan, planned.tuned))
    }

    /// `tuned:     A=1 B=2 (tuned cache PATH)`, or nothing.
    fn tuned_line(&self, tuned: &Tunables) -> Option<String> {
        if tuned.is_empty() {
            return None;
        }
        let path = self
            .tuning
            .as_ref()
            .and_then(|c| c.source.as_ref())
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        Some(format!("{} (tuned cache {path})", tunables_text(tuned)))
    }
}

pub fn run(args: PlanArgs) -> Result<ExitCode> {
    if args.model.is_some() {
        let given = args.shape_flags.given();
        if !given.is_empty() {
            bail!(
                "{}: allowed only with --shape (a model's shapes come from the model or --inputs)",
                given.join(", ")
            );
        }
    }
    if args.adapter.is_some() && args.device != LIVE_PROFILE {
        bail!("--adapter applies to --device {LIVE_PROFILE} only");
    }
    let manifest = args.manifest.load()?;
    let tunables = args.tunables.resolve(&manifest)?;
    let templates = args.templates.load()?;
    if args.compiled && args.device != LIVE_PROFILE {
        bail!("--compiled needs --device {LIVE_PROFILE}: the live adapter's driver compiles the passes");
    }
    let mut live = None;
    let (profile, tuning) = if args.device == LIVE_PROFILE {
        let gpu = nbits_mlp_gpu::Gpu::new(&gpu_options(args.adapter.as_deref())?)
            .context("--device gpu")?;
        let tuning = if tunables.is_empty() {
            let (cache, warning) =
                tuning::load_default(&nbits_mlp_gpu::tuning::device_id(gpu.info()), &manifest);
            if let Some(w) = warning {
                eprintln!("warning: {w}");
            }
            cache
        } else {
            None
        };
        let profile = gpu.profile();
        live = Some(gpu);
        (profile, tuning)
    } else {
        (load_profile(&args.device, args.adapter.as_deref())?, None)
    };
    let planner = Planner::new(Arc::new(manifest), Arc::new(templates), profile.clone())
        .with_explained_verdicts(args.explain);
    let planner = CallPlanner {
        planner: &planner,
        tunables: &tunables,
        tuning,
    };

    let planned = match (&args.model, args.shape) {
        (_, Some((k, n, rows))) => {
            let shape = args.shape_flags.shape(k, n, rows);
            let (plan, tuned) = planner
                .plan(&shape.call())
                .with_context(|| format!("--shape {k},{n},{rows}"))?;
            vec![Planned {
                title: format!("shape K={k} N={n} rows={rows}"),
                name: "shape".into(),
                plan,
                tuned,
            }]
        }
        (Some(path), None) => plan_model(&planner, path, args.inputs.as_deref())?,
        (None, None) => bail!("give MODEL.onnx or --shape K,N,ROWS"),
    };

    // Every pass's WGSL through naga (parse, validation with the profile's features, the
    // plan's workgroup size), as `run` and `bench` check it before compiling: an edited
    // template (--templates) or manifest that renders a broken shader fails here, naming the
    // pass and its template, instead of later on a GPU.
    // The index proof as well (crates/core/src/bounds.rs): where it fails, the runtime keeps
    // wgpu's bounds checks in that shader, which an edited template's author wants to know.
    for p in &planned {
        for pass in &p.plan.passes {
            let proof = nbits_mlp_gpu::check_wgsl_and_prove(&profile, pass)
                .with_context(|| p.title.clone())?;
            if let Err(u) = proof {
                eprintln!(
                    "note: {}: pass `{}`: an index not proven in range ({u}): it runs with \
                     wgpu's bounds checks",
                    p.title, pass.id
                );
            }
        }
    }

    // What the driver makes of each plan's passes (--compiled).
    let compiled = match (&live, args.compiled) {
        (Some(gpu), true) => planned
            .iter()
            .map(|p| {
                nbits_mlp_gpu::compiled::driver_report(gpu, &profile, &p.plan)
                    .with_context(|| format!("--compiled: {}", p.title))
                    .map(Some)
            })
            .collect::<Result<Vec<_>>>()?,
        _ => planned.iter().map(|_| None).collect(),
    };

    if args.json {
        let v: Vec<serde_json::Value> = planned
            .iter()
            .zip(&compiled)
            .map(|(p, c)| {
                let mut v = plan_json(&p.name, &p.plan, args.context, args.explain);
                if let (Some(o), Some(c)) = (v.as_object_mut(), c) {
                    o.insert("compiled".into(), serde_json::json!(c));
                }
                if let (Some(o), false) = (v.as_object_mut(), p.tuned.is_empty()) {
                    o.insert(
                        "tuned".into(),
                        serde_json::json!({
                            "tunables": p.tuned,
                            "cache": planner.tuning.as_ref().and_then(|c| c.source.as_ref()),
                        }),
                    );
                }
                v
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        for (i, p) in planned.iter().enumerate() {
            if i > 0 {
                println!();
            }
            print!(
                "{}",
                with_tuned_line(plan_text(&p.title, &p.plan), planner.tuned_line(&p.tuned))
            );
            if let Some(c) = &compiled[i] {
                print!("{}", compiled_text(c, &p.plan));
            }
            if args.explain {
                println!("  variants (* chosen):");
                print!("{}", verdicts_text(&p.plan.verdicts, Some(&p.plan.variant)));
            }
        }
    }

    if let Some(dir) = &args.wgsl {
        let mut files = Vec::new();
        let mut stems = HashSet::new();
        for (i, p) in planned.iter().enumerate() {
            let mut stem = safe_file_stem(&p.name);
            if !stems.insert(stem.clone()) {
                stem = format!("{stem}_{i}");
                stems.insert(stem.clone());
            }
            for pass in &p.plan.passes {
                files.push((
                    dir.join(format!("{stem}_{}.wgsl", safe_file_stem(&pass.id))),
                    pass.wgsl.as_bytes().to_vec(),
                ));
            }
        }
        let created = create_dir_for_output(dir)?;
        if let Err(e) = write_all_atomically(&files) {
            if created {
                let _ = std::fs::remove_dir(dir);
            }
            return Err(e);
        }
        eprintln!(
            "wrote {} WGSL file{} to {}",
            files.len(),
            if files.len() == 1 { "" } else { "s" },
            dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The `compiled:` section of `plan --compiled`: per pass, what the driver reports, and with
/// NVIDIA's shader cores the workgroups per SM its registers allow.
fn compiled_text(report: &nbits_mlp_gpu::compiled::DriverReport, plan: &Plan) -> String {
    let mut out = String::new();
    let cores = report
        .cores
        .map(|c| format!(": {} SMs of {} warps", c.sm_count, c.warps_per_sm))
        .unwrap_or_default();
    out += &format!("  compiled:  by the driver of {}{cores}\n", report.adapter);
    if let Some(note) = &report.note {
        out += &format!("    {note}\n");
        return out;
    }
    for (i, (stats, pass)) in report.passes.iter().zip(&plan.passes).enumerate() {
        for exe in &stats.executables {
            let threads: u32 = pass.workgroup_size.iter().product();
            let regs = exe.statistic("Register Count").and_then(|v| match v {
                nbits_mlp_gpu::compiled::StatisticValue::UInt(r) => u32::try_from(*r).ok(),
                nbits_mlp_gpu::compiled::StatisticValue::Int(r) => u32::try_from(*r).ok(),
                _ => None,
            });
            let all: Vec<String> = exe
                .statistics
                .iter()
                .filter(|s| !s.name.eq_ignore_ascii_case("Local Memory Size"))
                .map(|s| format!("{} {}", s.name, s.value))
                .collect();
            out += &format!(
                "    [{i}] {:<5} {} (subgroup {}, shader checks {}): {}\n",
                stats.pass,
                exe.name,
                exe.subgroup_size,
                stats.checks.name(),
                all.join(", ")
            );
            if let (Some(c), Some(r)) = (report.cores, regs) {
                let (wgs, by_regs) = c.workgroups_per_sm(threads, r);
                out += &format!(
                    "          {wgs} workgroup{} of {threads} invocations per SM by {} (shared memory not counted)\n",
                    if wgs == 1 { "" } else { "s" },
                    if by_regs { "registers" } else { "warp slots" }
                );
            }
        }
    }
    if report.cores.is_some() {
        // NVIDIA's Stack Size stays 0 where registers spill (its Local Memory Size, left out
        // above, is a constant 64 GiB): notes/PERF.md row 270.
        out +=
            "    spilled registers are not in these statistics: scripts/nv-sass on the driver's \
                 shader cache counts its local-memory loads and stores (LDL / STL)\n";
    }
    out
}

/// The plan text with `  tuned:     LINE` after its `tunables:` line (at the end when it has
/// none).
fn with_tuned_line(text: String, line: Option<String>) -> String {
    let Some(line) = line else {
        return text;
    };
    let tuned = format!("  tuned:     {line}\n");
    match text.find("\n  tunables:") {
        Some(at) => {
            let end = text[at + 1..]
                .find('\n')
                .map_or(text.len(), |e| at + 1 + e + 1);
            format!("{}{tuned}{}", &text[..end], &text[end..])
        }
        None => text + &tuned,
    }
}

/// Plans every node in order; each node's outputs feed later nodes' input shapes.
fn plan_model(
    planner: &CallPlanner<'_>,
    path: &Path,
    inputs: Option<&Path>,
) -> Result<Vec<Planned>> {
    let model = nbits_mlp_onnx::load_model(path)?;
    let infos: Vec<TensorInfo> = match inputs {
        Some(dir) => nbits_mlp_onnx::load_inputs_dir(dir, &model)?
            .iter()
            .map(|t| t.info())
            .collect(),
        None => model
            .static_input_infos()
            .map_err(|e| anyhow!("{e} (give the input shapes with --inputs DIR)"))?,
    };
    let mut known: IndexMap<String, TensorInfo> = model
        .inputs
        .iter()
        .map(|vi| vi.name.clone())
        .zip(infos)
        .collect();
    let mut out = Vec::new();
    for (i, node) in model.nodes.iter().enumerate() {
        let call = nbits_mlp_onnx::node_call(&model, node, &known)?;
        let (plan, tuned) = planner
            .plan(&call)
            .with_context(|| format!("{}: node {}", path.display(), node.label()))?;
        for o in plan.outputs.iter().filter(|o| o.present) {
            if let Some(name) = node.outputs.get(o.index).filter(|n| !n.is_empty()) {
                known.insert(name.clone(), TensorInfo::new(o.dtype, o.shape.clone()));
            }
        }
        let name = if node.name.is_empty() {
            format!("node{i}")
        } else {
            node.name.clone()
        };
        out.push(Planned {
            title: format!(
                "node {} (outputs {})",
                node.label(),
                node.outputs
                    .iter()
                    .filter(|o| !o.is_empty())
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            name,
            plan,
            tuned,
        });
    }
    if out.is_empty() {
        bail!("{}: the model has no nodes", path.display());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nbits_mlp_core::MlpShape;
    use nbits_mlp_gpu::compiled::{
        CompiledExecutable, CompiledPassStats, DriverReport, DriverStatistic, ShaderCores,
        StatisticValue,
    };

    /// What NVIDIA's driver reports for a pass (session 45's spilling probe: 128 registers,
    /// Stack Size 0, the constant Local Memory Size), on an H100's shader cores or none.
    fn report(plan: &Plan, cores: Option<ShaderCores>) -> DriverReport {
        let stat = |name: &str, v: u64| DriverStatistic {
            name: name.to_string(),
            description: String::new(),
            value: StatisticValue::UInt(v),
        };
        DriverReport {
            adapter: "NVIDIA H100 80GB HBM3".to_string(),
            cores,
            passes: plan
                .passes
                .iter()
                .map(|p| CompiledPassStats {
                    pass: p.id.to_string(),
                    checks: nbits_mlp_gpu::ShaderChecks::Bounds,
                    executables: vec![CompiledExecutable {
                        name: "CS".to_string(),
                        subgroup_size: 32,
                        statistics: vec![
                            stat("Register Count", 128),
                            stat("Stack Size", 0),
                            stat("Local Memory Size", 68719476736),
                        ],
                    }],
                })
                .collect(),
            note: None,
        }
    }

    #[test]
    fn compiled_text_says_where_spills_are_counted() {
        let planner = Planner::project(nbits_mlp_core::DeviceProfile::discrete_gpu());
        let plan = planner
            .plan(&MlpShape::new(256, 64, 1).call(), &Tunables::new())
            .unwrap();
        let h100 = ShaderCores {
            sm_count: 132,
            warps_per_sm: 64,
        };
        let text = compiled_text(&report(&plan, Some(h100)), &plan);
        assert!(text.contains("Register Count 128, Stack Size 0"), "{text}");
        assert!(!text.contains("Local Memory Size"), "{text}");
        assert!(text.contains("invocations per SM by registers"), "{text}");
        assert_eq!(text.matches("scripts/nv-sass").count(), 1, "{text}");
        // Without shader cores (a driver that is not NVIDIA's) nothing is said about spills.
        let text = compiled_text(&report(&plan, None), &plan);
        assert!(text.contains("Register Count 128"), "{text}");
        assert!(!text.contains("nv-sass"), "{text}");
    }
}
