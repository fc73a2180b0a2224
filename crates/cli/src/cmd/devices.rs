//! `nbits-mlp devices`: the WebGPU adapters, and their granted device profiles.

use crate::args::gpu_options;
use crate::files::write_all_atomically;
use crate::report::adapter_text;
use anyhow::{Context as _, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// List the WebGPU adapters (name, backend, type, driver, key limits, features), best first.
#[derive(Args, Debug)]
#[command(after_help = "EXAMPLES:
  nbits-mlp devices
  nbits-mlp devices --json
  nbits-mlp devices --adapter llvmpipe --write-profile llvmpipe.json
  nbits-mlp plan case/model.onnx --device llvmpipe.json

The adapter marked * is the one run, test and demo use (the best one, or the first whose name
contains --adapter). NBITS_MLP_BACKENDS (vulkan, gl, metal, dx12, all) selects the backends
searched [default: vulkan]; NBITS_MLP_ADAPTER is a default for --adapter.")]
pub struct DevicesArgs {
    /// Print the adapters as JSON.
    #[arg(long)]
    pub json: bool,
    /// Write the chosen adapter's granted device profile (limits and features by WebGPU
    /// names) to FILE, for `plan --device FILE`.
    #[arg(long, value_name = "FILE")]
    pub write_profile: Option<PathBuf>,
    /// Adapter: case-insensitive substring of its name [default: the best adapter].
    #[arg(long, value_name = "NAME")]
    pub adapter: Option<String>,
}

pub fn run(args: DevicesArgs) -> Result<ExitCode> {
    let opts = gpu_options(args.adapter.as_deref())?;
    let adapters = nbits_mlp_gpu::list_adapters(&opts);
    let chosen = match &opts.adapter {
        None => (!adapters.is_empty()).then_some(0),
        Some(f) => adapters
            .iter()
            .position(|a| a.name.to_lowercase().contains(&f.to_lowercase())),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&adapters)?);
    } else if adapters.is_empty() {
        println!(
            "no WebGPU adapter found (backends {:?}; set NBITS_MLP_BACKENDS to search others)",
            opts.backends
        );
    } else {
        for (i, a) in adapters.iter().enumerate() {
            let text = adapter_text(i, a);
            print!("{}{}", if chosen == Some(i) { "*" } else { " " }, text);
        }
    }
    if let Some(path) = &args.write_profile {
        let gpu = nbits_mlp_gpu::Gpu::new(&opts).context("--write-profile")?;
        let profile = gpu.profile();
        let mut text = serde_json::to_string_pretty(&profile)?;
        text.push('\n');
        write_all_atomically(&[(path.clone(), text.into_bytes())])?;
        eprintln!(
            "wrote the device profile of {} to {}",
            gpu.info().name,
            path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
