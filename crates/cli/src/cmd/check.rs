//! `nbits-mlp check`: load a manifest and run its static check.

use crate::args::{load_manifest, TemplateArgs};
use anyhow::{anyhow, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Load a kernel manifest and run its static check (unknown names, derive cycles, missing
/// bindings, scratch buffers and templates, names a template's `inputs` header reads that a
/// variant does not provide).
#[derive(Args, Debug)]
#[command(after_help = "EXAMPLES:
  nbits-mlp check                                   # the project's manifest (seed + overlay)
  nbits-mlp check my.manifest.json
  nbits-mlp check --overlay my-overlay.json         # the seed with another overlay
  nbits-mlp check --templates ./templates           # with templates from a directory

Prints `ok: N variants, M derive entries`, or the problems found (exit 2).")]
pub struct CheckArgs {
    /// Manifest JSON file [default: the project's: the seed manifest with the project overlay].
    #[arg(value_name = "MANIFEST")]
    pub manifest: Option<PathBuf>,
    /// Overlay JSON merged beside the manifest (extra variants, derive entries, bindings,
    /// tunables) [default: the project overlay when no MANIFEST is given].
    #[arg(long, value_name = "FILE")]
    pub overlay: Option<PathBuf>,
    #[command(flatten)]
    pub templates: TemplateArgs,
}

pub fn run(args: CheckArgs) -> Result<ExitCode> {
    let manifest = load_manifest(args.manifest.as_deref(), args.overlay.as_deref())?;
    let templates = args.templates.load()?;
    let origin = match (&args.manifest, &args.overlay) {
        (Some(m), _) => m.display().to_string(),
        (None, Some(o)) => format!("seed manifest + {}", o.display()),
        (None, None) => "project manifest".to_string(),
    };
    manifest
        .check(&templates.names())
        .map_err(|e| anyhow!("{origin}: {e}"))?;
    // What each template's `inputs` header says it reads, against every variant using it.
    templates
        .check_inputs(&manifest)
        .map_err(|e| anyhow!("{origin}: {e}"))?;
    println!(
        "ok: {} variants, {} derive entries",
        manifest.variants.len(),
        manifest.derive.len()
    );
    Ok(ExitCode::SUCCESS)
}
