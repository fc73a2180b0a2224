//! `nbits-mlp run`: run a model on input files, write its outputs.

use crate::args::{load_manifest, BackendArgs, TunableArgs};
use crate::backend::Backend;
use anyhow::Result;
use clap::Args;
use nbits_mlp_core::tuning::tunables_text;
use std::path::PathBuf;
use std::process::ExitCode;

/// Run every MatMulNBitsMlp node of a model on `input_<i>.pb` files and write the model's
/// outputs as `output_<i>.pb`.
#[derive(Args, Debug)]
#[command(after_help = "EXAMPLES:
  nbits-mlp run case/model.onnx --inputs case/test_data_set_0 --out /tmp/out
  nbits-mlp run case/model.onnx --inputs case/test_data_set_0 --out /tmp/out --backend cpu
  nbits-mlp run model.onnx --inputs in --out out --adapter llvmpipe --tunable TILE_N=16

Inputs are checked against the model's declared graph inputs (dtype, shape). Outputs are written
only once every node has run (all of them, or none). On the GPU with no --tunable, the adapter's
tuning cache applies (see `nbits-mlp tune`; NBITS_MLP_TUNE_CACHE=off disables it); the values it
changed are listed per node.")]
pub struct RunArgs {
    /// ONNX model whose nodes are all com.microsoft::MatMulNBitsMlp.
    #[arg(value_name = "MODEL.onnx")]
    pub model: PathBuf,
    /// Directory holding `input_0.pb` ... one per graph input, in order.
    #[arg(long, value_name = "DIR")]
    pub inputs: PathBuf,
    /// Directory to write `output_0.pb` ... into (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    #[command(flatten)]
    pub backend: BackendArgs,
    #[command(flatten)]
    pub tunables: TunableArgs,
}

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let tunables = args.tunables.resolve(&load_manifest(None, None)?)?;
    let model = nbits_mlp_onnx::load_model(&args.model)?;
    let inputs = nbits_mlp_onnx::load_inputs_dir(&args.inputs, &model)?;
    let backend = Backend::open(&args.backend)?;
    let crate::backend::ModelRun {
        outputs,
        variants,
        tuned,
        ..
    } = backend
        .run_model_tuned(&model, &inputs, &tunables)
        .map_err(|e| e.error)?;
    let named: Vec<(String, _)> = model
        .outputs
        .iter()
        .map(|vi| vi.name.clone())
        .zip(outputs)
        .collect();
    nbits_mlp_onnx::write_outputs_dir(&args.out, &named)?;
    println!(
        "wrote {} output{} to {} ({}, variant {})",
        named.len(),
        if named.len() == 1 { "" } else { "s" },
        args.out.display(),
        backend.describe(),
        variants.join(", ")
    );
    for (i, t) in tuned.iter().enumerate().filter(|(_, t)| !t.is_empty()) {
        println!(
            "node {i}: tunables {} (tuned cache {})",
            tunables_text(t),
            backend.tuning_cache().unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}
