//! `nbits-mlp fuse`: rewrite the gate/up MLPs of an ONNX model into MatMulNBitsMlp nodes.

use anyhow::{anyhow, bail, Context as _, Result};
use clap::Args;
use nbits_mlp_fuse::{fuse_file, FuseOptions, FuseReport, DEFAULT_DOMAIN};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The Python side of `--verify` (ONNX Runtime runs both models).
const VERIFY_SCRIPT: &str = include_str!("../../../ort-op/python/verify_fused.py");

/// Fuse every MatMulNBits gate/up MLP of an ONNX model (ONNX Runtime GenAI's model-builder
/// layout and its variants) into one com.microsoft::MatMulNBitsMlp node per layer.
#[derive(Args, Debug)]
#[command(after_help = "EXAMPLES:
  nbits-mlp fuse model.onnx -o fused.onnx
  nbits-mlp fuse model.onnx -o fused.onnx --explain          # why each candidate was or was not fused
  nbits-mlp fuse model.onnx -o fused.onnx --domain nbits_mlp # fused nodes in another domain
  nbits-mlp fuse model.onnx -o fused.onnx --verify --dim sequence_length=4
                     # run both in ONNX Runtime (CPU; the fused one with this project's custom-op
                     # library) on random inputs and say how far the outputs moved

Fused: the SiLU as Sigmoid+Mul (either operand order) or QuickGelu with alpha 1; bias Adds and
MatMulNBits biases; the packed form (MatMulNBits of 2N columns + Split) when its weights are
initializers; a SimplifiedLayerNormalization / RMSNormalization / SkipSimplifiedLayerNormalization
feeding only the two projections (its residual output 3 kept as input_skip_bias_sum). Left
alone, with the rule named: zero points, g_idx, gate/up differences, intermediates read
elsewhere, other activations. The fused nodes record accuracy_level 0 (full precision; the
projections' level, usually 4, is reported). External data, opsets, metadata and every other
part of the model are kept.

--verify needs python3 with numpy and onnxruntime (>= 1.16), and the custom-op library
(`cargo build -p nbits-mlp-ort-op`; found beside this executable, or --op-library, or
$NBITS_MLP_ORT_OP). Exit 1 when an output moved more than --tolerance (relative to its largest
value).")]
pub struct FuseArgs {
    /// The model to fuse.
    #[arg(value_name = "IN.onnx")]
    pub input: PathBuf,
    /// Where to write the fused model (its external data, if any, goes to OUT.onnx.data).
    #[arg(short, long, value_name = "OUT.onnx")]
    pub output: PathBuf,
    /// Say, per candidate, what was fused and which rule stopped the others.
    #[arg(long)]
    pub explain: bool,
    /// The domain of the fused nodes.
    #[arg(long, value_name = "NAME", default_value = DEFAULT_DOMAIN)]
    pub domain: String,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Run the input and the output in ONNX Runtime on random inputs and compare them.
    #[arg(long)]
    pub verify: bool,
    /// The custom-op library for --verify.
    #[arg(long, value_name = "PATH")]
    pub op_library: Option<PathBuf>,
    /// Size of a symbolic input dimension for --verify (default: sequence_length 1,
    /// past_sequence_length 3, total_sequence_length their sum, others 1); repeatable.
    #[arg(long = "dim", value_name = "NAME=SIZE")]
    pub dims: Vec<String>,
    /// Largest change allowed by --verify, relative to each output's largest magnitude.
    #[arg(long, default_value_t = 0.05)]
    pub tolerance: f64,
    /// Seed of --verify's random inputs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The Python interpreter for --verify.
    #[arg(long, value_name = "PYTHON", default_value = "python3")]
    pub python: String,
}

pub fn run(args: FuseArgs) -> Result<ExitCode> {
    let opts = FuseOptions {
        domain: args.domain.clone(),
    };
    let report = fuse_file(&args.input, &args.output, &opts)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text_report(&report, args.explain));
    }
    if !args.verify {
        return Ok(ExitCode::SUCCESS);
    }
    let lib = find_library(args.op_library.as_deref())?;
    verify(&args, &lib)
}

/// The report as text: one line per fused layer; with `explain`, the details and every
/// candidate left alone with its rule.
pub fn text_report(r: &FuseReport, explain: bool) -> String {
    let mut s = String::new();
    for f in &r.fused {
        let mut what = vec![format!(
            "K={} N={} {}-bit blocks of {}{}",
            f.k,
            f.n,
            f.bits,
            f.block_size,
            f.dtype
                .as_deref()
                .map(|d| format!(", {d}"))
                .unwrap_or_default()
        )];
        if let Some(n) = &f.norm {
            what.push(format!(
                "{n} (epsilon {:e}{})",
                f.epsilon.unwrap_or_default(),
                if f.residual {
                    ", residual output kept"
                } else {
                    ""
                }
            ));
        }
        if f.packed {
            what.push("packed gate_up split".into());
        }
        match (f.gate_bias, f.up_bias) {
            (true, true) => what.push("gate and up biases".into()),
            (true, false) => what.push("gate bias".into()),
            (false, true) => what.push("up bias".into()),
            _ => {}
        }
        s += &format!("{}: fused -> {} ({})\n", f.layer, f.node, what.join("; "));
        if explain {
            s += &format!(
                "    gate {} + up {}, activation {}\n",
                f.gate, f.up, f.activation
            );
            s += &format!("    removed: {}\n", f.removed.join(", "));
            s += &format!(
                "    accuracy_level {} on the projections -> 0 on the fused node (full precision)\n",
                f.accuracy_level
            );
            if let Some(k) = &f.norm_kept {
                s += &format!("    norm kept as a separate node: {k}\n");
            }
        }
    }
    for k in &r.skipped {
        s += &format!(
            "{}: not fused at {} [{}]: {}\n",
            k.layer, k.at, k.rule, k.reason
        );
    }
    s += &format!(
        "fused {} MLP{} into {}::MatMulNBitsMlp, left {} candidate{}; wrote {}{}{}\n",
        r.fused.len(),
        if r.fused.len() == 1 { "" } else { "s" },
        r.domain,
        r.skipped.len(),
        if r.skipped.len() == 1 { "" } else { "s" },
        r.output.display(),
        r.external_data
            .as_ref()
            .map(|p| format!(" (external data {})", p.display()))
            .unwrap_or_default(),
        if r.opset_added {
            format!(", opset import {} 1 added", r.domain)
        } else {
            String::new()
        }
    );
    if explain && r.fused.iter().any(|f| f.accuracy_level != 0) {
        s += "note: accuracy_level is recorded as 0 on the fused nodes: MatMulNBitsMlp's contract here \
accepts only 0, and 0 (full precision) is always allowed; ONNX Runtime's CPU MatMulNBits may \
quantize A to int8 at level 4, so the unfused model can differ slightly from the fused one.\n";
    }
    s
}

/// The custom-op library: `explicit`, else `$NBITS_MLP_ORT_OP`, else beside this executable.
fn find_library(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = explicit {
        if !p.is_file() {
            bail!("--op-library {}: no such file", p.display());
        }
        return Ok(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("NBITS_MLP_ORT_OP") {
        let p = PathBuf::from(p);
        if !p.is_file() {
            bail!("NBITS_MLP_ORT_OP={}: no such file", p.display());
        }
        return Ok(p);
    }
    let name = format!(
        "{}nbits_mlp_ort_op{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let exe = std::env::current_exe().context("locating this executable")?;
    let beside = exe.parent().map(|d| d.join(&name));
    match beside {
        Some(p) if p.is_file() => Ok(p),
        _ => Err(anyhow!(
            "the custom-op library {name} is not beside {} (build it with `cargo build -p nbits-mlp-ort-op`, or pass --op-library)",
            exe.display()
        )),
    }
}

/// Runs the verification script; its last line is a JSON summary.
fn verify(args: &FuseArgs, lib: &Path) -> Result<ExitCode> {
    let dir = tempfile::tempdir().context("creating a temporary directory")?;
    let script = dir.path().join("verify_fused.py");
    std::fs::write(&script, VERIFY_SCRIPT).context("writing the verification script")?;
    let mut cmd = std::process::Command::new(&args.python);
    cmd.arg(&script)
        .arg(&args.input)
        .arg(&args.output)
        .arg("--library")
        .arg(lib)
        .arg("--tolerance")
        .arg(args.tolerance.to_string())
        .arg("--seed")
        .arg(args.seed.to_string());
    for d in &args.dims {
        cmd.arg("--dim").arg(d);
    }
    let status = cmd
        .status()
        .with_context(|| format!("running {} (needed by --verify)", args.python))?;
    match status.code() {
        Some(0) => Ok(ExitCode::SUCCESS),
        Some(1) => Ok(ExitCode::from(crate::EXIT_FAILED)),
        _ => bail!(
            "--verify: {} {} failed ({status})",
            args.python,
            script.display()
        ),
    }
}
