//! `nbits-mlp gen-case`: a random test case with expected outputs from the CPU reference.

use crate::args::ShapeFlags;
use anyhow::{anyhow, Result};
use clap::Args;
use nbits_mlp_core::Tensor;
use nbits_mlp_onnx::{MlpNode, ModelSpec, ValueInfo};
use nbits_mlp_reference::{mlp::INPUT_NAMES, Case, MlpOutput};
use std::path::PathBuf;
use std::process::ExitCode;

/// ONNX names of the outputs.
const OUTPUT_NAMES: [&str; 2] = ["Y", "input_skip_bias_sum"];

/// Generate an ONNX node-test case: a model with one MatMulNBitsMlp node (every present input a
/// graph input), random reproducible inputs, and the expected outputs from the float64 CPU
/// reference (rounded to the dtype).
#[derive(Args, Debug)]
#[command(after_help = "EXAMPLES:
  nbits-mlp gen-case /tmp/c1 --k 256 --n 64 --rows 3
  nbits-mlp gen-case /tmp/c2 --k 93 --n 37 --rows 9 --dtype f16 --bits 8 --block-size 16 --gate-bias
  nbits-mlp gen-case /tmp/c3 --k 4096 --n 14336 --rows 1 --rank 3 --dtype f16 --skip --norm --residual

Writes DIR/model.onnx and DIR/test_data_set_0/{input,output}_<i>.pb (replacing a previous case
in DIR; an existing directory that is not a case is an error). Nothing is written on error.")]
pub struct GenCaseArgs {
    /// Directory to write the case into.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Hidden size K.
    #[arg(long)]
    pub k: usize,
    /// Output size N.
    #[arg(long)]
    pub n: usize,
    /// Rows of A (all leading dimensions; may be 0).
    #[arg(long)]
    pub rows: usize,
    #[command(flatten)]
    pub shape: ShapeFlags,
    /// Seed of every random value (same seed, same case).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// The one-node model of a generated case and its graph inputs and outputs.
pub fn case_model(case: &Case, out: &MlpOutput) -> (ModelSpec, Vec<Tensor>, Vec<Tensor>) {
    let present = case
        .inputs
        .iter()
        .rposition(Option::is_some)
        .map_or(0, |i| i + 1);
    let node_inputs: Vec<String> = case.inputs[..present]
        .iter()
        .zip(INPUT_NAMES)
        .map(|(t, name)| {
            if t.is_some() {
                name.to_string()
            } else {
                String::new()
            }
        })
        .collect();
    let mut inputs = Vec::new();
    let mut input_infos = Vec::new();
    for (t, name) in case.inputs.iter().zip(INPUT_NAMES) {
        if let Some(t) = t {
            input_infos.push(ValueInfo::new(name, &t.info()));
            inputs.push(t.clone());
        }
    }
    let outputs: Vec<Tensor> = std::iter::once(out.y.clone())
        .chain(out.residual.clone())
        .collect();
    let output_infos: Vec<ValueInfo> = outputs
        .iter()
        .zip(OUTPUT_NAMES)
        .map(|(t, name)| ValueInfo::new(name, &t.info()))
        .collect();
    let node = MlpNode {
        name: "mlp".into(),
        inputs: node_inputs,
        outputs: output_infos.iter().map(|vi| vi.name.clone()).collect(),
        attrs: case.attrs.clone(),
    };
    let spec = ModelSpec {
        nodes: vec![node],
        inputs: input_infos,
        outputs: output_infos,
        initializers: Default::default(),
    };
    (spec, inputs, outputs)
}

/// Memory this machine has available (`MemAvailable` of /proc/meminfo), if known.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

pub fn run(args: GenCaseArgs) -> Result<ExitCode> {
    let spec = args.shape.checked_shape(args.k, args.n, args.rows)?;
    // Absurd sizes are refused before anything is allocated (an allocation failure aborts).
    let shape = format!("K={} N={} rows={}", spec.k, spec.n, spec.rows());
    let need = nbits_mlp_reference::gen::host_bytes(&spec)
        .ok_or_else(|| anyhow!("{shape}: the case's size does not fit in 64 bits"))?;
    if let Some(avail) = available_memory() {
        if need > avail {
            return Err(anyhow!(
                "{shape}: the case and its reference need {:.1} GB of memory, {:.1} GB are available",
                need as f64 / 1e9,
                avail as f64 / 1e9
            ));
        }
    }
    let case = nbits_mlp_reference::generate(&spec, args.seed);
    let out = case
        .run_reference()
        .map_err(|e| anyhow!("the reference refuses this call: {e}"))?;
    let (model, inputs, outputs) = case_model(&case, &out);
    nbits_mlp_onnx::write_case(&args.dir, &model, &inputs, &outputs)?;
    println!(
        "wrote {}: K={} N={} A {:?} {} bits={} block_size={} inputs [{}] outputs [{}] max|Y|={:.4}",
        args.dir.display(),
        spec.k,
        spec.n,
        spec.a_shape(),
        spec.dtype,
        spec.bits,
        spec.block_size,
        model
            .inputs
            .iter()
            .map(|vi| vi.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        model
            .outputs
            .iter()
            .map(|vi| vi.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        nbits_mlp_reference::compare::max_abs(&out.y_f64),
    );
    Ok(ExitCode::SUCCESS)
}
