//! Repository tasks, run as `cargo xtask TASK` (an alias in `.cargo/config.toml`).
//!
//! - `gen-overlay`: regenerates `manifest/nbits-mlp.overlay.json` from its description,
//!   `manifest/nbits-mlp.overlay.toml`, and the families table in `docs/DESIGN.md`
//!   (`nbits_mlp_core::families`). `--check` writes nothing and exits 1 when either is stale.
//!
//! A separate crate rather than a `nbits-mlp` subcommand: it writes files of the source tree,
//! which the shipped command line has no business doing, and it builds from the GPU-free core
//! alone (no wgpu), so it is quick to build.

use nbits_mlp_core::families::{
    splice_table, Description, DESIGN_PATH, OVERLAY_PATH, OVERLAY_SOURCE_PATH, TABLE_BEGIN,
    TABLE_END,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask gen-overlay [--check]

  gen-overlay          regenerate manifest/nbits-mlp.overlay.json from
                       manifest/nbits-mlp.overlay.toml, and the families table in docs/DESIGN.md
  gen-overlay --check  write nothing; exit 1 when either file is not what the description gives";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["gen-overlay"] => report(gen_overlay(false)),
        ["gen-overlay", "--check"] => report(gen_overlay(true)),
        ["-h" | "--help" | "help"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn report(r: Result<bool, String>) -> ExitCode {
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// The repository root (this crate lives in `xtask/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ has a parent")
        .to_path_buf()
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Regenerates (or, with `check`, compares) the overlay and the families table. `Ok(false)`:
/// something was stale (check) — nothing else fails silently.
fn gen_overlay(check: bool) -> Result<bool, String> {
    let root = root();
    let source = read(&root.join(OVERLAY_SOURCE_PATH))?;
    let d = Description::parse(&source, OVERLAY_SOURCE_PATH).map_err(|e| e.to_string())?;
    let design_path = root.join(DESIGN_PATH);
    let design = read(&design_path)?;
    let design_new = splice_table(&design, &d.families_table()).ok_or_else(|| {
        format!("{DESIGN_PATH}: the lines `{TABLE_BEGIN}` and `{TABLE_END}` are missing")
    })?;
    let outputs = [
        (root.join(OVERLAY_PATH), d.overlay_json()),
        (design_path, design_new),
    ];
    let mut fresh = true;
    for (path, text) in &outputs {
        let old = std::fs::read_to_string(path).unwrap_or_default();
        let rel = path.strip_prefix(&root).unwrap_or(path).display();
        if &old == text {
            println!("{rel}: up to date");
            continue;
        }
        if check {
            println!("{rel}: stale (run `cargo xtask gen-overlay`)");
            fresh = false;
        } else {
            std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            println!("{rel}: written");
        }
    }
    println!(
        "{} variants in {} families",
        d.variants.len(),
        d.families.len()
    );
    Ok(fresh)
}
