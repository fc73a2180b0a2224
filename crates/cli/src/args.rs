//! Arguments shared by several subcommands, and loading what they name: manifests, templates,
//! device profiles, tunables, operator shapes.

use anyhow::{anyhow, bail, Context as _, Result};
use clap::{Args, ValueEnum};
use nbits_mlp_core::device::BUILTIN_PROFILES;
use nbits_mlp_core::manifest::{ManifestError, PROJECT_OVERLAY, SEED_MANIFEST};
use nbits_mlp_core::render::Templates;
use nbits_mlp_core::{DType, DeviceProfile, Manifest, MlpShape, Tunables};
use std::path::{Path, PathBuf};

/// The `--device` value naming the live adapter's granted profile.
pub const LIVE_PROFILE: &str = "gpu";

/// Parses a float dtype: `f32`, `float32`, `float`, `f16`, `float16`.
pub fn parse_float_dtype(s: &str) -> Result<DType, String> {
    match DType::from_name(s) {
        Some(d @ (DType::F32 | DType::F16)) => Ok(d),
        _ => Err(format!("`{s}` is not a float dtype (expected f32 or f16)")),
    }
}

/// Parses `NAME=VALUE` with an integer value (`--tunable`; its one home is in core, where the
/// GPU tests' `NBITS_MLP_EMULATE_TUNABLES` reads it too).
pub use nbits_mlp_core::tuning::parse_tunable;

/// `--tunable NAME=VALUE`, repeatable.
#[derive(Args, Debug, Clone, Default)]
pub struct TunableArgs {
    /// Override a manifest tunable (the seed's TILE_N, LANES, ROW_TILE, DECODE_WORKGROUP_SIZE,
    /// NORM_WORKGROUP_SIZE, the overlay's GEMV_*, COOP_* and TILED_SPLIT_K; `nbits-mlp tune
    /// --dry-run` lists them with their candidates); repeatable.
    #[arg(long = "tunable", value_name = "NAME=VALUE", value_parser = parse_tunable)]
    pub tunables: Vec<(String, i64)>,
}

impl TunableArgs {
    /// The overrides, each checked against the manifest's tunables (an unknown name is an error
    /// listing the known ones; a name given twice is an error).
    pub fn resolve(&self, manifest: &Manifest) -> Result<Tunables> {
        let mut out = Tunables::new();
        for (name, value) in &self.tunables {
            if !manifest.file.tunables.contains_key(name) {
                let known: Vec<&str> = manifest.file.tunables.keys().map(String::as_str).collect();
                bail!(
                    "--tunable {name}={value}: unknown tunable `{name}` (known: {})",
                    known.join(", ")
                );
            }
            if out.insert(name.clone(), *value).is_some() {
                bail!("--tunable {name}: given twice");
            }
        }
        Ok(out)
    }
}

/// Which implementation runs the operator.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackendKind {
    /// WebGPU (wgpu): plans from the manifest, run on an adapter.
    #[default]
    Gpu,
    /// The CPU float64 reference (results rounded to the model's dtype).
    Cpu,
}

/// `--backend` and `--adapter`.
#[derive(Args, Debug, Clone)]
pub struct BackendArgs {
    /// Implementation to run.
    #[arg(long, value_enum, default_value_t = BackendKind::Gpu)]
    pub backend: BackendKind,
    /// GPU adapter: case-insensitive substring of its name (default: the best adapter; see
    /// `nbits-mlp devices`).
    #[arg(long, value_name = "NAME")]
    pub adapter: Option<String>,
}

/// `--templates DIR`.
#[derive(Args, Debug, Clone, Default)]
pub struct TemplateArgs {
    /// Directory of `*.jinja` WGSL templates replacing or adding to the built-in ones.
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
}

impl TemplateArgs {
    /// The built-in templates, overridden from `--templates`.
    pub fn load(&self) -> Result<Templates> {
        match &self.templates {
            None => Ok(Templates::builtin()),
            Some(dir) => Ok(Templates::with_dir(dir)?),
        }
    }
}

fn read_text(path: &Path, what: &str) -> Result<String> {
    nbits_mlp_core::files::read_text_limited(path, nbits_mlp_core::files::MAX_JSON_BYTES)
        .with_context(|| format!("{what} {}: cannot read", path.display()))
}

/// Names the manifest in errors that do not name it themselves.
fn manifest_error(origin: &str, e: ManifestError) -> anyhow::Error {
    match e {
        ManifestError::Json { .. } => anyhow!("{e}"),
        _ => anyhow!("{origin}: {e}"),
    }
}

/// `--manifest FILE` and `--overlay FILE`: the manifest a command plans with (`plan`, `map`).
#[derive(Args, Debug)]
pub struct ManifestArgs {
    /// Manifest JSON file [default: the project's].
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Overlay JSON merged beside the manifest [default: the project overlay with the default
    /// manifest].
    #[arg(long, value_name = "FILE")]
    pub overlay: Option<PathBuf>,
}

impl ManifestArgs {
    /// The manifest they name ([`load_manifest`]).
    pub fn load(&self) -> Result<Manifest> {
        load_manifest(self.manifest.as_deref(), self.overlay.as_deref())
    }
}

/// A manifest: `manifest` (default: the seed) with `overlay` merged (default: the project's
/// overlay when no manifest is given, none otherwise).
pub fn load_manifest(manifest: Option<&Path>, overlay: Option<&Path>) -> Result<Manifest> {
    let (text, origin) = match manifest {
        Some(p) => (read_text(p, "manifest")?, p.display().to_string()),
        None => (SEED_MANIFEST.to_string(), "seed manifest".to_string()),
    };
    let overlay = match (overlay, manifest) {
        (Some(p), _) => Some((read_text(p, "overlay")?, p.display().to_string())),
        (None, None) => Some((PROJECT_OVERLAY.to_string(), "project overlay".to_string())),
        (None, Some(_)) => None,
    };
    match overlay {
        None => Manifest::from_json(&text, &origin).map_err(|e| manifest_error(&origin, e)),
        Some((ov, ov_origin)) => Manifest::with_overlay(&text, &origin, &ov, &ov_origin)
            .map_err(|e| manifest_error(&origin, e)),
    }
}

/// The GPU options from the environment (`NBITS_MLP_BACKENDS`, `NBITS_MLP_ADAPTER`), with
/// `--adapter` taking precedence.
pub fn gpu_options(adapter: Option<&str>) -> Result<nbits_mlp_gpu::GpuOptions> {
    let mut o = nbits_mlp_gpu::GpuOptions::from_env()?;
    if let Some(a) = adapter {
        o.adapter = Some(a.to_string());
    }
    Ok(o)
}

/// A device profile: a built-in name, [`LIVE_PROFILE`] (the live adapter's granted profile) or
/// a JSON file.
pub fn load_profile(name: &str, adapter: Option<&str>) -> Result<DeviceProfile> {
    if name == LIVE_PROFILE {
        let gpu = nbits_mlp_gpu::Gpu::new(&gpu_options(adapter)?).context("--device gpu")?;
        return Ok(gpu.profile());
    }
    if DeviceProfile::builtin(name).is_none() && !Path::new(name).exists() {
        bail!(
            "unknown device profile `{name}`: not a built-in profile ({}, {LIVE_PROFILE}) nor an existing JSON file",
            BUILTIN_PROFILES.join(", ")
        );
    }
    Ok(DeviceProfile::load(name)?)
}

/// The shape of an operator call without a model (`plan --shape`, `gen-case`, `demo`).
#[derive(Args, Debug, Clone, Default)]
pub struct ShapeFlags {
    /// Rank of A: 2 (`[rows, K]`) or 3 (`[1, rows, K]`) [default: 2].
    #[arg(long, value_name = "2|3", value_parser = clap::value_parser!(u8).range(2..=3))]
    pub rank: Option<u8>,
    /// T1, the float type of A and every float input [default: f32].
    #[arg(long, value_name = "f32|f16", value_parser = parse_float_dtype)]
    pub dtype: Option<DType>,
    /// Bits per weight code: 2, 4 or 8 [default: 4].
    #[arg(long)]
    pub bits: Option<u32>,
    /// Codes per quantization block [default: 32].
    #[arg(long, value_name = "S")]
    pub block_size: Option<usize>,
    /// Give the `skip` input (residual add before the norm).
    #[arg(long)]
    pub skip: bool,
    /// Give the `norm_scale` input (RMSNorm).
    #[arg(long)]
    pub norm: bool,
    /// Request output 1, `input_skip_bias_sum` (needs --skip).
    #[arg(long)]
    pub residual: bool,
    /// Give `gate_bias`.
    #[arg(long)]
    pub gate_bias: bool,
    /// Give `up_bias`.
    #[arg(long)]
    pub up_bias: bool,
}

impl ShapeFlags {
    /// The flags given explicitly, by option name (to reject them where they do not apply).
    pub fn given(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        for (set, name) in [
            (self.rank.is_some(), "--rank"),
            (self.dtype.is_some(), "--dtype"),
            (self.bits.is_some(), "--bits"),
            (self.block_size.is_some(), "--block-size"),
            (self.skip, "--skip"),
            (self.norm, "--norm"),
            (self.residual, "--residual"),
            (self.gate_bias, "--gate-bias"),
            (self.up_bias, "--up-bias"),
        ] {
            if set {
                v.push(name);
            }
        }
        v
    }

    /// The call's shape: K, N and rows as given, the flags' values, defaults for the flags
    /// not given (rank 2, float32, 4 bits, block 32). The one conversion of these flags.
    pub fn shape(&self, k: usize, n: usize, rows: usize) -> MlpShape {
        MlpShape {
            lead: if self.rank == Some(3) {
                vec![1, rows]
            } else {
                vec![rows]
            },
            dtype: self.dtype.unwrap_or(DType::F32),
            bits: self.bits.unwrap_or(4),
            block_size: self.block_size.unwrap_or(32),
            skip: self.skip,
            norm: self.norm,
            residual: self.residual,
            gate_bias: self.gate_bias,
            up_bias: self.up_bias,
            ..MlpShape::new(k, n, rows)
        }
    }

    /// [`ShapeFlags::shape`], after checking its geometry (K, N, bits, block size) so that a
    /// reference case of it can be generated.
    pub fn checked_shape(&self, k: usize, n: usize, rows: usize) -> Result<MlpShape> {
        let shape = self.shape(k, n, rows);
        nbits_mlp_reference::gen::check(&shape).map_err(|e| {
            anyhow!(
                "shape K={k} N={n} bits={} block_size={}: {e}",
                shape.bits,
                shape.block_size
            )
        })?;
        Ok(shape)
    }
}

/// Parses `K,N,ROWS`.
pub fn parse_shape(s: &str) -> Result<(usize, usize, usize), String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let [k, n, rows] = parts.as_slice() else {
        return Err(format!("`{s}` is not K,N,ROWS"));
    };
    let num = |what: &str, v: &str| {
        v.parse::<usize>()
            .map_err(|_| format!("`{s}`: {what} `{v}` is not a non-negative integer"))
    };
    Ok((num("K", k)?, num("N", n)?, num("ROWS", rows)?))
}

/// `K,N`: a weight shape without rows (`map --shape`, `bench --shape`).
pub fn parse_kn(s: &str) -> Result<(usize, usize), String> {
    let v: Vec<&str> = s.split(',').collect();
    let [k, n] = v.as_slice() else {
        return Err(format!("`{s}`: expected K,N (two numbers)"));
    };
    let num = |x: &str, what: &str| {
        x.trim()
            .parse::<usize>()
            .map_err(|_| format!("`{s}`: {what} `{x}` is not a size"))
    };
    Ok((num(k, "K")?, num(n, "N")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsers() {
        assert_eq!(parse_tunable("TILE_N=16"), Ok(("TILE_N".into(), 16)));
        assert!(parse_tunable("TILE_N").is_err());
        assert!(parse_tunable("TILE_N=x").unwrap_err().contains("TILE_N"));
        assert_eq!(parse_shape("4096, 14336,1"), Ok((4096, 14336, 1)));
        assert!(parse_shape("1,2").is_err());
        assert!(parse_shape("1,2,-3").is_err());
        assert_eq!(parse_float_dtype("f16"), Ok(DType::F16));
        assert!(parse_float_dtype("uint8").is_err());
    }

    #[test]
    fn manifests_and_tunables() {
        let m = load_manifest(None, None).unwrap();
        assert_eq!(m.variants.len(), Manifest::project().variants.len());
        let t = TunableArgs {
            tunables: vec![("TILE_N".into(), 4)],
        };
        assert_eq!(t.resolve(&m).unwrap()["TILE_N"], 4);
        let bad = TunableArgs {
            tunables: vec![("NOPE".into(), 4)],
        };
        assert!(bad.resolve(&m).unwrap_err().to_string().contains("NOPE"));
        assert!(load_profile("no-such-profile", None)
            .unwrap_err()
            .to_string()
            .contains("no-such-profile"));
        assert_eq!(
            load_profile("discrete-gpu", None).unwrap().name,
            "discrete-gpu"
        );
    }
}
