//! Per-device tuning: the cache of tuned tunable values (`nbits-mlp tune` writes it, the runtime
//! reads it) and the GPU-free half of the search.
//!
//! - [`ShapeClass`]: what a tuned value is keyed by: T1, bits, block size, K, N, a bucket of rows
//!   ([`RowsBucket`]) and whether the call has `skip` / `norm_scale`.
//! - [`TuningCache`]: one JSON file per device ([`DeviceId`]), stamped with the manifest's
//!   [`manifest_fingerprint`]; a file for another device or another manifest is stale and is
//!   ignored ([`TuningCache::load`] says why).
//! - [`cache_path`]: where the file lives (`$NBITS_MLP_TUNE_CACHE`, `$XDG_CACHE_HOME/nbits-mlp/`
//!   or `~/.cache/nbits-mlp/`).
//! - [`search_space`], [`PlanSignature`], [`candidates`] and [`descend`]: which values to try,
//!   which of them change what runs, and the coordinate descent over them, with the timing
//!   left to a caller's closure.

use crate::manifest::Manifest;
use crate::op::OpCall;
use crate::plan::Plan;
use crate::planner::Tunables;
use crate::tensor::DType;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

/// Environment variable naming the tuning cache: `off` disables it, a path ending in `.json`
/// (or an existing file) is the cache file itself, anything else a directory holding one file
/// per device.
pub const ENV_TUNE_CACHE: &str = "NBITS_MLP_TUNE_CACHE";

/// Version of the cache file format written by this build.
pub const CACHE_FORMAT: u32 = 1;

// ---------------------------------------------------------------------------------------------
// Shape classes

/// Rows of A, bucketed: the tuned values of one bucket apply to every row count in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RowsBucket {
    /// One row (decode).
    #[serde(rename = "1")]
    One,
    /// 2 to 16 rows.
    #[serde(rename = "2-16")]
    Few,
    /// 17 to 128 rows.
    #[serde(rename = "17-128")]
    Some,
    /// More than 128 rows (prefill).
    #[serde(rename = ">128")]
    Many,
}

impl RowsBucket {
    /// The bucket of `rows`; `None` for 0 rows (nothing runs).
    pub fn of(rows: u64) -> Option<RowsBucket> {
        match rows {
            0 => None,
            1 => Some(RowsBucket::One),
            2..=16 => Some(RowsBucket::Few),
            17..=128 => Some(RowsBucket::Some),
            _ => Some(RowsBucket::Many),
        }
    }
    /// `1`, `2-16`, `17-128` or `>128`.
    pub fn name(self) -> &'static str {
        match self {
            RowsBucket::One => "1",
            RowsBucket::Few => "2-16",
            RowsBucket::Some => "17-128",
            RowsBucket::Many => ">128",
        }
    }
}

/// What tuned values are keyed by. Biases and the residual output are left out: they change only
/// the kernels' epilogues, not their shape.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeClass {
    /// T1 (the type of A).
    pub dtype: DType,
    /// Bits per weight.
    pub bits: i64,
    /// Quantization block size.
    pub block_size: i64,
    /// Hidden size K.
    pub k: i64,
    /// Output size N.
    pub n: i64,
    /// Rows of A, bucketed.
    pub rows: RowsBucket,
    /// `skip` given.
    pub skip: bool,
    /// `norm_scale` given.
    pub norm: bool,
}

impl ShapeClass {
    /// The class of a call: attributes as given, else the manifest's defaults (`bits`); `None`
    /// when the call lacks what a class needs (A, K, N, bits, block size) or has no rows.
    pub fn of(call: &OpCall, manifest: &Manifest) -> Option<ShapeClass> {
        let attr = |name: &str| -> Option<i64> {
            match call.attrs.get(name) {
                Some(v) => v.as_int(),
                None => manifest
                    .file
                    .attributes
                    .get(name)?
                    .default
                    .as_ref()?
                    .as_i64(),
            }
        };
        let input_index = |onnx: &str| manifest.inputs.iter().position(|a| a.decl.onnx == onnx);
        let present = |onnx: &str| {
            input_index(onnx)
                .and_then(|i| call.inputs.get(i))
                .is_some_and(Option::is_some)
        };
        let a = call.inputs.get(input_index("A").unwrap_or(0))?.as_ref()?;
        let (_, lead) = a.shape.split_last()?;
        let rows = lead
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))?;
        Some(ShapeClass {
            dtype: a.dtype,
            bits: attr("bits")?,
            block_size: attr("block_size")?,
            k: attr("K")?,
            n: attr("N")?,
            rows: RowsBucket::of(rows)?,
            skip: present("skip"),
            norm: present("norm_scale"),
        })
    }
}

impl fmt::Display for ShapeClass {
    /// `float16 q4 b32 K=4096 N=14336 rows 1 skip+norm`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} q{} b{} K={} N={} rows {}",
            self.dtype,
            self.bits,
            self.block_size,
            self.k,
            self.n,
            self.rows.name()
        )?;
        match (self.skip, self.norm) {
            (true, true) => f.write_str(" skip+norm"),
            (true, false) => f.write_str(" skip"),
            (false, true) => f.write_str(" norm"),
            (false, false) => f.write_str(" plain"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Devices and manifests

/// The device a cache belongs to, as the adapter describes itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceId {
    /// Adapter name (`NVIDIA H200`, `llvmpipe (LLVM 15.0.6, 256 bits)`).
    pub adapter: String,
    /// Backend (`Vulkan`).
    pub backend: String,
    /// Driver name.
    pub driver: String,
    /// Driver version information.
    pub driver_info: String,
}

impl DeviceId {
    /// The cache file name for this device: the sanitised adapter name and driver
    /// (`llvmpipe-llvm-15-0-6-256-bits--llvmpipe.json`).
    pub fn file_name(&self) -> String {
        format!(
            "{}--{}.json",
            sanitise(&self.adapter),
            sanitise(&self.driver)
        )
    }
}

/// Lower-case ASCII letters and digits, every other run of characters one `-`, at most 80
/// characters; `unknown` when nothing is left.
fn sanitise(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let mut out: String = out.trim_end_matches('-').chars().take(80).collect();
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        "unknown".into()
    } else {
        out
    }
}

/// A fingerprint of a loaded manifest (seed and overlay merged, tunable candidates included):
/// 16 hex digits of a 64-bit FNV-1a hash of its JSON model. Any change to a variant, derive
/// entry, tunable or candidate list changes it; whitespace and key formatting do not.
pub fn manifest_fingerprint(manifest: &Manifest) -> String {
    let mut h = Fnv::default();
    h.write(
        serde_json::to_string(&manifest.file)
            .unwrap_or_default()
            .as_bytes(),
    );
    h.write(b"\n");
    h.write(
        serde_json::to_string(&manifest.tunable_values)
            .unwrap_or_default()
            .as_bytes(),
    );
    format!("{:016x}", h.0)
}

/// 64-bit FNV-1a (stable across builds and platforms, unlike std's hasher).
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The cache file

/// The tuned values of one shape class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuningEntry {
    /// The class.
    pub class: ShapeClass,
    /// The variant the tuned shape ran.
    pub variant: String,
    /// The tunables applied to the class (only those that differ from the manifest's
    /// defaults); empty when no candidate beat the defaults by enough.
    pub tunables: Tunables,
    /// Median GPU time per call with the defaults, µs.
    pub default_us: f64,
    /// Median GPU time per call with `tunables`, µs (the default time when empty).
    pub tuned_us: f64,
    /// Distinct plans timed during the search.
    #[serde(default)]
    pub trials: usize,
    /// The shape the class was tuned on (`K=4096 N=14336 rows=1`), for people.
    #[serde(default)]
    pub tuned_on: String,
}

/// A per-device tuning cache (the JSON file `nbits-mlp tune` writes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuningCache {
    /// [`CACHE_FORMAT`].
    pub format: u32,
    /// The device the values were measured on.
    pub device: DeviceId,
    /// [`manifest_fingerprint`] of the manifest the values were measured with.
    pub manifest: String,
    /// One entry per class (a later entry of the same class replaces an earlier one).
    pub entries: Vec<TuningEntry>,
    /// Where the cache was read from or last written to.
    #[serde(skip)]
    pub source: Option<PathBuf>,
}

/// An error reading or writing a tuning cache; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum TuningError {
    /// The file cannot be read or written.
    #[error("tuning cache {path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// The file is not a tuning cache (malformed JSON, unknown or missing keys).
    #[error("tuning cache {path}: not a tuning cache: at `{at}`: {message}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// JSON path of the fault.
        at: String,
        /// The parser's message.
        message: String,
    },
    /// The file is for another device, manifest or format.
    #[error("tuning cache {path}: stale: {reason}")]
    Stale {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

impl TuningCache {
    /// An empty cache for `device` and a manifest fingerprint.
    pub fn new(device: DeviceId, manifest: String) -> TuningCache {
        TuningCache {
            format: CACHE_FORMAT,
            device,
            manifest,
            entries: Vec::new(),
            source: None,
        }
    }

    /// Parses a cache; `path` names it in errors (nothing is read from it).
    pub fn from_json(text: &str, path: &Path) -> Result<TuningCache, TuningError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let mut c: TuningCache =
            serde_path_to_error::deserialize(de).map_err(|e| TuningError::Corrupt {
                path: path.to_path_buf(),
                at: e.path().to_string(),
                message: e.inner().to_string(),
            })?;
        c.source = Some(path.to_path_buf());
        Ok(c)
    }

    /// The cache as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Reads a cache file; `Ok(None)` when it does not exist. The device and manifest are not
    /// checked (see [`TuningCache::load`]).
    pub fn read(path: &Path) -> Result<Option<TuningCache>, TuningError> {
        match crate::files::read_text_limited(path, crate::files::MAX_JSON_BYTES) {
            Ok(text) => TuningCache::from_json(&text, path).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(TuningError::Io {
                path: path.to_path_buf(),
                message: format!("cannot read: {e}"),
            }),
        }
    }

    /// Reads the cache at `path` for `device` and a manifest fingerprint: `Ok(None)` when there
    /// is no file, an error when it is unreadable, corrupt or stale (another device, manifest or
    /// format; callers ignore it with a warning).
    pub fn load(
        path: &Path,
        device: &DeviceId,
        manifest: &str,
    ) -> Result<Option<TuningCache>, TuningError> {
        let Some(c) = TuningCache::read(path)? else {
            return Ok(None);
        };
        c.check(device, manifest)?;
        Ok(Some(c))
    }

    /// Whether the cache is for `device` and the manifest fingerprint `manifest`; the error says
    /// what differs.
    pub fn check(&self, device: &DeviceId, manifest: &str) -> Result<(), TuningError> {
        let stale = |reason: String| TuningError::Stale {
            path: self.source.clone().unwrap_or_default(),
            reason,
        };
        if self.format != CACHE_FORMAT {
            return Err(stale(format!(
                "format {} (this build reads format {CACHE_FORMAT}); re-run `nbits-mlp tune`",
                self.format
            )));
        }
        if &self.device != device {
            let d = &self.device;
            return Err(stale(format!(
                "made on {} ({}, {} {}), not on this device {} ({}, {} {})",
                d.adapter,
                d.backend,
                d.driver,
                d.driver_info,
                device.adapter,
                device.backend,
                device.driver,
                device.driver_info
            )));
        }
        if self.manifest != manifest {
            return Err(stale(format!(
                "made with manifest {} but the manifest is now {manifest} (it changed since); \
                 re-run `nbits-mlp tune`",
                self.manifest
            )));
        }
        Ok(())
    }

    /// Writes the cache to `path` atomically (a temporary file beside it, then a rename),
    /// creating its directory; records `path` as the source.
    pub fn write(&mut self, path: &Path) -> Result<(), TuningError> {
        let io = |what: &str, e: std::io::Error| TuningError::Io {
            path: path.to_path_buf(),
            message: format!("{what}: {e}"),
        };
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir).map_err(|e| io("cannot create its directory", e))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "cache".into());
        let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
        std::fs::write(&tmp, self.to_json()).map_err(|e| io("cannot write", e))?;
        if let Err(e) = std::fs::rename(&tmp, path) {
            let _ = std::fs::remove_file(&tmp);
            return Err(io("cannot write", e));
        }
        self.source = Some(path.to_path_buf());
        Ok(())
    }

    /// Adds `entry`, replacing an entry of the same class.
    pub fn insert(&mut self, entry: TuningEntry) {
        self.entries.retain(|e| e.class != entry.class);
        self.entries.push(entry);
        self.entries.sort_by(|a, b| a.class.cmp(&b.class));
    }

    /// The entry of a class (the last one when the file lists it twice).
    pub fn entry(&self, class: &ShapeClass) -> Option<&TuningEntry> {
        self.entries.iter().rev().find(|e| &e.class == class)
    }

    /// The entry for a call's class (exact match), if any.
    pub fn lookup(&self, call: &OpCall, manifest: &Manifest) -> Option<&TuningEntry> {
        self.entry(&ShapeClass::of(call, manifest)?)
    }

    /// The tunables to apply to a call: its class's tuned values when there are any, else
    /// `None` (plan with the defaults).
    pub fn tunables_for(&self, call: &OpCall, manifest: &Manifest) -> Option<&Tunables> {
        self.lookup(call, manifest)
            .map(|e| &e.tunables)
            .filter(|t| !t.is_empty())
    }
}

/// Where a device's cache file lives, from [`ENV_TUNE_CACHE`], `XDG_CACHE_HOME` and `HOME`;
/// `None` when the cache is off or no location is known.
pub fn cache_path(device: &DeviceId) -> Option<PathBuf> {
    let var = |k: &str| std::env::var(k).ok();
    cache_path_from(
        var(ENV_TUNE_CACHE).as_deref(),
        var("XDG_CACHE_HOME").as_deref(),
        var("HOME").as_deref(),
        device,
    )
}

/// [`cache_path`] from explicit values of [`ENV_TUNE_CACHE`], `XDG_CACHE_HOME` and `HOME`
/// (empty values count as unset): `off` (or `0`, `none`, `false`) disables the cache; a path
/// ending in `.json` or naming an existing file is the file; any other path is a directory
/// holding [`DeviceId::file_name`]; unset, `$XDG_CACHE_HOME/nbits-mlp/` (absolute paths only) or
/// `$HOME/.cache/nbits-mlp/`.
pub fn cache_path_from(
    tune_cache: Option<&str>,
    xdg_cache_home: Option<&str>,
    home: Option<&str>,
    device: &DeviceId,
) -> Option<PathBuf> {
    fn set(v: Option<&str>) -> Option<&str> {
        v.map(str::trim).filter(|s| !s.is_empty())
    }
    if let Some(v) = set(tune_cache) {
        if matches!(
            v.to_ascii_lowercase().as_str(),
            "off" | "0" | "none" | "false"
        ) {
            return None;
        }
        let p = PathBuf::from(v);
        if v.ends_with(".json") || p.is_file() {
            return Some(p);
        }
        return Some(p.join(device.file_name()));
    }
    let dir = match (set(xdg_cache_home), set(home)) {
        (Some(x), _) if Path::new(x).is_absolute() => PathBuf::from(x),
        (_, Some(h)) => Path::new(h).join(".cache"),
        _ => return None,
    };
    Some(dir.join("nbits-mlp").join(device.file_name()))
}

/// The cache for a device from its default location ([`cache_path`]), checked against the
/// device and the manifest: `(None, None)` when there is none or the cache is off, `(None,
/// Some(warning))` when the file exists but is corrupt or stale.
pub fn load_default(
    device: &DeviceId,
    manifest: &Manifest,
) -> (Option<TuningCache>, Option<String>) {
    let Some(path) = cache_path(device) else {
        return (None, None);
    };
    match TuningCache::load(&path, device, &manifest_fingerprint(manifest)) {
        Ok(c) => (c, None),
        Err(e) => (None, Some(format!("{e}; ignored"))),
    }
}

/// The tunables of a plan that differ from the manifest's defaults (what tuning or overrides
/// changed).
pub fn non_default_tunables(plan: &Plan, manifest: &Manifest) -> Tunables {
    plan.tunables
        .iter()
        .filter(|(k, v)| manifest.file.tunables.get(*k).map(|t| t.default) != Some(**v))
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

/// `A=1 B=2`.
pub fn tunables_text(t: &Tunables) -> String {
    if t.is_empty() {
        return "defaults".into();
    }
    t.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

// ---------------------------------------------------------------------------------------------
// The search

/// One tunable of the search: its default and the values to try (the default first, then the
/// manifest's candidates in order, without repeats).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dimension {
    /// Tunable name.
    pub name: String,
    /// Its default.
    pub default: i64,
    /// Values to try, the default first.
    pub values: Vec<i64>,
}

/// Every tunable of the manifest that has candidate values besides its default (overlay
/// `tunableValues`, or a tunable's own `values`), in the manifest's tunable order.
pub fn search_space(manifest: &Manifest) -> Vec<Dimension> {
    manifest
        .file
        .tunables
        .iter()
        .filter_map(|(name, decl)| {
            let mut values = vec![decl.default];
            for &v in manifest.tunable_values.get(name).into_iter().flatten() {
                if !values.contains(&v) {
                    values.push(v);
                }
            }
            (values.len() > 1).then(|| Dimension {
                name: name.clone(),
                default: decl.default,
                values,
            })
        })
        .collect()
}

/// What the GPU runs for a plan: every pass's WGSL, dispatch, skip flag and bindings (uniform
/// values included), and the intermediates. Two plans with equal signatures do the same work,
/// whatever their tunables or variant names.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlanSignature(Vec<u8>);

impl PlanSignature {
    /// The signature of a plan.
    pub fn of(plan: &Plan) -> PlanSignature {
        let mut k = Vec::new();
        for p in &plan.passes {
            k.extend_from_slice(p.wgsl.as_bytes());
            k.push(0);
            for d in p.dispatch {
                k.extend_from_slice(&d.to_le_bytes());
            }
            k.push(u8::from(p.skipped));
            k.extend_from_slice(
                serde_json::to_string(&p.bindings)
                    .unwrap_or_default()
                    .as_bytes(),
            );
            k.push(0);
        }
        k.extend_from_slice(
            serde_json::to_string(&plan.intermediates)
                .unwrap_or_default()
                .as_bytes(),
        );
        PlanSignature(k)
    }
}

/// What planning one candidate value gave, compared with the default plan.
#[derive(Clone, Debug, PartialEq)]
pub enum Candidate {
    /// The default value.
    Default,
    /// A plan different from the default's and from every earlier candidate's.
    Distinct {
        /// Its variant.
        variant: String,
    },
    /// The same plan as the default's: the value does not matter for this call.
    SameAsDefault,
    /// The same plan as an earlier candidate value's.
    SameAs(i64),
    /// Planning failed (an illegal value for this call or device).
    Illegal(String),
}

/// One value of one tunable, and what planning it gave.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateReport {
    /// Tunable name.
    pub name: String,
    /// The value.
    pub value: i64,
    /// What it gave.
    pub outcome: Candidate,
}

/// Plans every candidate of every tunable with the other tunables at their defaults and says
/// which give a plan of their own (the values worth timing at the default point), which give
/// the default's plan, duplicate an earlier value, or do not plan. `plan` plans a call with
/// tunable overrides; an error planning the defaults is returned.
pub fn candidates(
    space: &[Dimension],
    plan: &mut dyn FnMut(&Tunables) -> Result<std::sync::Arc<Plan>, String>,
) -> Result<Vec<CandidateReport>, String> {
    let default = plan(&Tunables::new())?;
    let default_sig = PlanSignature::of(&default);
    let mut out = Vec::new();
    for dim in space {
        let mut seen: Vec<(PlanSignature, i64)> = Vec::new();
        for &value in &dim.values {
            let outcome = if value == dim.default {
                Candidate::Default
            } else {
                let t = Tunables::from([(dim.name.clone(), value)]);
                match plan(&t) {
                    Err(e) => Candidate::Illegal(e),
                    Ok(p) => {
                        let sig = PlanSignature::of(&p);
                        if sig == default_sig {
                            Candidate::SameAsDefault
                        } else if let Some((_, v)) = seen.iter().find(|(s, _)| *s == sig) {
                            Candidate::SameAs(*v)
                        } else {
                            seen.push((sig, value));
                            Candidate::Distinct {
                                variant: p.variant.clone(),
                            }
                        }
                    }
                }
            };
            out.push(CandidateReport {
                name: dim.name.clone(),
                value,
                outcome,
            });
        }
    }
    Ok(out)
}

/// Limits of the coordinate descent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescentLimits {
    /// Distinct plans timed at most (the defaults included).
    pub max_trials: usize,
    /// Sweeps over every tunable at most.
    pub max_sweeps: usize,
}

impl Default for DescentLimits {
    fn default() -> Self {
        DescentLimits {
            max_trials: 40,
            max_sweeps: 4,
        }
    }
}

/// One plan timed by the descent.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// The tunable overrides (non-default values only).
    pub tunables: Tunables,
    /// The plan's variant.
    pub variant: String,
    /// Median µs per call; `None` when timing it failed.
    pub us: Option<f64>,
}

/// What the coordinate descent found.
#[derive(Clone, Debug, PartialEq)]
pub struct Descent {
    /// The defaults' variant.
    pub default_variant: String,
    /// The defaults' time, µs.
    pub default_us: f64,
    /// The best point found (non-default values only; empty: the defaults).
    pub best: Tunables,
    /// Its variant.
    pub best_variant: String,
    /// Its time, µs.
    pub best_us: f64,
    /// Every distinct plan timed, in order (the defaults first).
    pub trials: Vec<Trial>,
    /// Sweeps run.
    pub sweeps: usize,
    /// Whether the search stopped at [`DescentLimits::max_trials`].
    pub capped: bool,
}

/// Coordinate descent over `space`: starting from the defaults, for one tunable at a time, plan
/// each of its values with the others at the current point and move to the fastest if it beats
/// the current time; sweep over all tunables until a sweep moves nothing, at most
/// `limits.max_sweeps` sweeps and `limits.max_trials` timed plans.
///
/// `plan` plans the call with tunable overrides (an error marks the value illegal: skipped).
/// `measure` times a plan, µs per call (an error marks the value unusable: skipped, logged).
/// Values whose plan equals one timed before (see [`PlanSignature`]) reuse that time, so
/// tunables that do not change what runs cost nothing. Errors planning or timing the defaults
/// are returned. `log` receives one line per event.
pub fn descend(
    space: &[Dimension],
    limits: DescentLimits,
    plan: &mut dyn FnMut(&Tunables) -> Result<std::sync::Arc<Plan>, String>,
    measure: &mut dyn FnMut(&Plan) -> Result<f64, String>,
    log: &mut dyn FnMut(&str),
) -> Result<Descent, String> {
    let defaults: BTreeMap<&str, i64> =
        space.iter().map(|d| (d.name.as_str(), d.default)).collect();
    let default_plan = plan(&Tunables::new()).map_err(|e| format!("planning the defaults: {e}"))?;
    let default_us = measure(&default_plan).map_err(|e| format!("timing the defaults: {e}"))?;
    log(&format!(
        "defaults: {default_us:.1} us ({})",
        default_plan.variant
    ));
    let mut timed: HashMap<PlanSignature, Option<f64>> = HashMap::new();
    timed.insert(PlanSignature::of(&default_plan), Some(default_us));
    let mut trials = vec![Trial {
        tunables: Tunables::new(),
        variant: default_plan.variant.clone(),
        us: Some(default_us),
    }];
    let mut cur = Tunables::new();
    let mut cur_us = default_us;
    let mut cur_variant = default_plan.variant.clone();
    let mut sweeps = 0;
    let mut capped = false;
    'sweeps: while sweeps < limits.max_sweeps {
        sweeps += 1;
        let mut moved = false;
        for dim in space {
            let now = cur.get(&dim.name).copied().unwrap_or(dim.default);
            let mut best_here: Option<(Tunables, f64, String)> = None;
            for &value in &dim.values {
                if value == now {
                    continue;
                }
                let mut t = cur.clone();
                if Some(&value) == defaults.get(dim.name.as_str()) {
                    t.remove(&dim.name);
                } else {
                    t.insert(dim.name.clone(), value);
                }
                let p = match plan(&t) {
                    Ok(p) => p,
                    Err(_) => continue,
                };
                let sig = PlanSignature::of(&p);
                let us = match timed.get(&sig) {
                    Some(us) => *us,
                    None => {
                        if trials.len() >= limits.max_trials {
                            if !capped {
                                log(&format!(
                                    "stopping after {} timed plans (the cap)",
                                    trials.len()
                                ));
                            }
                            capped = true;
                            continue;
                        }
                        let us = match measure(&p) {
                            Ok(us) => {
                                log(&format!(
                                    "{}: {us:.1} us ({})",
                                    tunables_text(&t),
                                    p.variant
                                ));
                                Some(us)
                            }
                            Err(e) => {
                                log(&format!("{}: skipped: {e}", tunables_text(&t)));
                                None
                            }
                        };
                        timed.insert(sig, us);
                        trials.push(Trial {
                            tunables: t.clone(),
                            variant: p.variant.clone(),
                            us,
                        });
                        us
                    }
                };
                if let Some(us) = us {
                    if best_here.as_ref().is_none_or(|b| us < b.1) {
                        best_here = Some((t, us, p.variant.clone()));
                    }
                }
            }
            if let Some((t, us, variant)) = best_here {
                if us < cur_us {
                    cur = t;
                    cur_us = us;
                    cur_variant = variant;
                    moved = true;
                }
            }
            if capped {
                break 'sweeps;
            }
        }
        if !moved {
            break;
        }
    }
    Ok(Descent {
        default_variant: default_plan.variant.clone(),
        default_us,
        best: cur,
        best_variant: cur_variant,
        best_us: cur_us,
        trials,
        sweeps,
        capped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::{AttrValue, MlpShape};
    use crate::planner::Planner;
    use crate::DeviceProfile;
    use std::sync::Arc;

    fn device() -> DeviceId {
        DeviceId {
            adapter: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
            backend: "Vulkan".into(),
            driver: "llvmpipe".into(),
            driver_info: "Mesa 22.3.6 (LLVM 15.0.6)".into(),
        }
    }

    fn shape(k: usize, n: usize, rows: usize) -> MlpShape {
        let mut s = MlpShape::new(k, n, rows);
        s.dtype = DType::F16;
        s
    }

    fn entry(class: ShapeClass, t: &[(&str, i64)]) -> TuningEntry {
        TuningEntry {
            class,
            variant: "plain_nogb_noub".into(),
            tunables: t.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            default_us: 10.0,
            tuned_us: 8.0,
            trials: 3,
            tuned_on: String::new(),
        }
    }

    #[test]
    fn rows_buckets() {
        assert_eq!(RowsBucket::of(0), None);
        assert_eq!(RowsBucket::of(1), Some(RowsBucket::One));
        assert_eq!(RowsBucket::of(2), Some(RowsBucket::Few));
        assert_eq!(RowsBucket::of(16), Some(RowsBucket::Few));
        assert_eq!(RowsBucket::of(17), Some(RowsBucket::Some));
        assert_eq!(RowsBucket::of(128), Some(RowsBucket::Some));
        assert_eq!(RowsBucket::of(129), Some(RowsBucket::Many));
        assert_eq!(
            serde_json::to_string(&RowsBucket::Many).unwrap(),
            "\">128\""
        );
    }

    #[test]
    fn class_of_a_call() {
        let m = Manifest::project();
        let mut s = shape(4096, 14336, 1);
        s.skip = true;
        s.norm = true;
        s.residual = true;
        let c = ShapeClass::of(&s.call(), &m).unwrap();
        assert_eq!(
            c,
            ShapeClass {
                dtype: DType::F16,
                bits: 4,
                block_size: 32,
                k: 4096,
                n: 14336,
                rows: RowsBucket::One,
                skip: true,
                norm: true,
            }
        );
        assert_eq!(
            c.to_string(),
            "float16 q4 b32 K=4096 N=14336 rows 1 skip+norm"
        );
        // Rank 3 counts every leading dimension; residual and biases do not matter.
        let mut r3 = s.clone();
        r3.lead = vec![1, 1];
        r3.residual = false;
        r3.gate_bias = true;
        assert_eq!(ShapeClass::of(&r3.call(), &m), Some(c.clone()));
        // bits left out takes the manifest's default (4).
        let mut call = s.call();
        call.attrs.shift_remove("bits");
        assert_eq!(ShapeClass::of(&call, &m), Some(c));
        // No rows, no A, no K: no class.
        assert_eq!(ShapeClass::of(&shape(64, 64, 0).call(), &m), None);
        assert_eq!(ShapeClass::of(&OpCall::default(), &m), None);
        let mut no_k = shape(64, 64, 1).call();
        no_k.attrs.shift_remove("K");
        assert_eq!(ShapeClass::of(&no_k, &m), None);
        no_k.attrs.insert("K".into(), AttrValue::Str("x".into()));
        assert_eq!(ShapeClass::of(&no_k, &m), None);
    }

    #[test]
    fn lookup_is_exact() {
        let m = Manifest::project();
        let fp = manifest_fingerprint(&m);
        let mut cache = TuningCache::new(device(), fp);
        let c16 = ShapeClass::of(&shape(256, 320, 16).call(), &m).unwrap();
        cache.insert(entry(c16.clone(), &[("ROW_TILE", 4)]));
        let c1 = ShapeClass::of(&shape(256, 320, 1).call(), &m).unwrap();
        cache.insert(entry(c1, &[]));
        // Same bucket (rows 2..16): applies.
        let t = cache.tunables_for(&shape(256, 320, 9).call(), &m).unwrap();
        assert_eq!(t["ROW_TILE"], 4);
        // Other bucket, other K, other dtype: nothing.
        assert!(cache
            .tunables_for(&shape(256, 320, 17).call(), &m)
            .is_none());
        assert!(cache.tunables_for(&shape(512, 320, 9).call(), &m).is_none());
        let mut f32 = shape(256, 320, 9);
        f32.dtype = DType::F32;
        assert!(cache.tunables_for(&f32.call(), &m).is_none());
        let mut norm = shape(256, 320, 9);
        norm.norm = true;
        assert!(cache.tunables_for(&norm.call(), &m).is_none());
        // An entry with no tuned values (defaults were best) applies nothing.
        assert!(cache.lookup(&shape(256, 320, 1).call(), &m).is_some());
        assert!(cache.tunables_for(&shape(256, 320, 1).call(), &m).is_none());
        // insert replaces the entry of the same class.
        cache.insert(entry(c16, &[("ROW_TILE", 2)]));
        assert_eq!(cache.entries.len(), 2);
        let t = cache.tunables_for(&shape(256, 320, 2).call(), &m).unwrap();
        assert_eq!(t["ROW_TILE"], 2);
    }

    #[test]
    fn serde_round_trip_and_files() {
        let m = Manifest::project();
        let mut cache = TuningCache::new(device(), manifest_fingerprint(&m));
        let mut s = shape(4096, 14336, 1);
        s.norm = true;
        s.skip = true;
        cache.insert(entry(
            ShapeClass::of(&s.call(), &m).unwrap(),
            &[("DECODE_WORKGROUP_SIZE", 32), ("NORM_WORKGROUP_SIZE", 256)],
        ));
        let text = cache.to_json();
        assert!(text.contains("\"rows\": \"1\""), "{text}");
        assert!(text.contains("\"dtype\": \"float16\""), "{text}");
        let back = TuningCache::from_json(&text, Path::new("x.json")).unwrap();
        assert_eq!(back.entries, cache.entries);
        assert_eq!(back.source.as_deref(), Some(Path::new("x.json")));

        let d = std::env::temp_dir().join(format!("nbits-mlp-tuning-{}", std::process::id()));
        let path = d.join("sub").join(device().file_name());
        assert!(TuningCache::read(&path).unwrap().is_none());
        cache.write(&path).unwrap();
        let loaded = TuningCache::load(&path, &device(), &manifest_fingerprint(&m))
            .unwrap()
            .unwrap();
        assert_eq!(loaded.entries, cache.entries);
        assert_eq!(loaded.source.as_deref(), Some(path.as_path()));
        // Nothing but the file is left in the directory.
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn stale_caches_are_refused_with_the_reason() {
        let m = Manifest::project();
        let fp = manifest_fingerprint(&m);
        let mut cache = TuningCache::new(device(), fp.clone());
        cache.source = Some(PathBuf::from("c.json"));
        assert!(cache.check(&device(), &fp).is_ok());
        let mut other = device();
        other.adapter = "NVIDIA H200".into();
        let e = cache.check(&other, &fp).unwrap_err().to_string();
        assert!(
            e.contains("c.json") && e.contains("stale") && e.contains("NVIDIA H200"),
            "{e}"
        );
        let mut newer = device();
        newer.driver_info = "Mesa 24".into();
        assert!(cache.check(&newer, &fp).is_err());
        let e = cache
            .check(&device(), "0123456789abcdef")
            .unwrap_err()
            .to_string();
        assert!(e.contains("manifest") && e.contains("re-run"), "{e}");
        cache.format = 99;
        let e = cache.check(&device(), &fp).unwrap_err().to_string();
        assert!(e.contains("format 99"), "{e}");
    }

    #[test]
    fn fingerprints_follow_the_manifest() {
        let a = manifest_fingerprint(&Manifest::project());
        assert_eq!(a, manifest_fingerprint(&Manifest::project()));
        assert_eq!(a.len(), 16);
        assert_ne!(a, manifest_fingerprint(&Manifest::seed()));
        let mut m = Manifest::project();
        if let Some(v) = m.tunable_values.values_mut().next() {
            v.push(4096);
        }
        assert_ne!(a, manifest_fingerprint(&m));
    }

    #[test]
    fn corrupt_files_are_errors_naming_the_file() {
        let p = Path::new("/tmp/cache.json");
        for (text, want) in [
            ("", "EOF"),
            ("{", "EOF"),
            ("[]", "TuningCache"),
            ("{\"format\": 1}", "missing field"),
            ("\u{0}\u{1}garbage", "expected value"),
            (
                "{\"format\":1,\"device\":{\"adapter\":\"a\",\"backend\":\"b\",\"driver\":\"c\",\"driver_info\":\"d\"},\"manifest\":\"x\",\"entries\":[{\"class\":{\"dtype\":\"float16\",\"bits\":4,\"block_size\":32,\"k\":1,\"n\":1,\"rows\":\"7\",\"skip\":false,\"norm\":false},\"variant\":\"v\",\"tunables\":{},\"default_us\":1,\"tuned_us\":1}]}",
                "entries[0].class.rows",
            ),
            (
                "{\"format\":1,\"device\":{\"adapter\":\"a\",\"backend\":\"b\",\"driver\":\"c\",\"driver_info\":\"d\"},\"manifest\":\"x\",\"entries\":[{\"class\":{\"dtype\":\"float16\",\"bits\":4,\"block_size\":32,\"k\":1,\"n\":1,\"rows\":\"1\",\"skip\":false,\"norm\":false},\"variant\":\"v\",\"tunables\":{\"A\":\"x\"},\"default_us\":1,\"tuned_us\":1}]}",
                "tunables",
            ),
        ] {
            let e = TuningCache::from_json(text, p).unwrap_err();
            let msg = e.to_string();
            assert!(matches!(e, TuningError::Corrupt { .. }), "{msg}");
            assert!(msg.contains("/tmp/cache.json"), "{msg}");
            assert!(msg.contains(want), "{text:?}: {msg}");
        }
        // A directory where the file should be: an I/O error naming it, no panic.
        let d = std::env::temp_dir();
        let e = TuningCache::read(&d).unwrap_err().to_string();
        assert!(e.contains(&d.display().to_string()), "{e}");
    }

    #[test]
    fn locations() {
        let dev = device();
        let name = dev.file_name();
        assert_eq!(name, "llvmpipe-llvm-15-0-6-256-bits--llvmpipe.json");
        assert_eq!(
            DeviceId {
                adapter: "???".into(),
                driver: String::new(),
                ..dev.clone()
            }
            .file_name(),
            "unknown--unknown.json"
        );
        let f = |t, x, h| cache_path_from(t, x, h, &dev);
        assert_eq!(
            f(None, None, Some("/home/u")),
            Some(PathBuf::from("/home/u/.cache/nbits-mlp").join(&name))
        );
        assert_eq!(
            f(None, Some("/xdg"), Some("/home/u")),
            Some(PathBuf::from("/xdg/nbits-mlp").join(&name))
        );
        // A relative XDG_CACHE_HOME is invalid (XDG spec): HOME is used.
        assert_eq!(
            f(None, Some("rel"), Some("/home/u")),
            Some(PathBuf::from("/home/u/.cache/nbits-mlp").join(&name))
        );
        assert_eq!(f(None, None, None), None);
        assert_eq!(f(Some(" "), None, None), None);
        for off in ["off", "OFF", "0", "none"] {
            assert_eq!(f(Some(off), Some("/xdg"), Some("/h")), None);
        }
        assert_eq!(
            f(Some("/t/my.json"), None, None),
            Some(PathBuf::from("/t/my.json"))
        );
        assert_eq!(
            f(Some("/t/dir"), None, None),
            Some(PathBuf::from("/t/dir").join(&name))
        );
    }

    fn planner() -> Planner {
        Planner::project(DeviceProfile::discrete_gpu())
    }

    /// The seed manifest (shipped unchanged) with test candidates: results that do not move
    /// when the project overlay gains variants and tunables.
    fn seed_planner(values: &str) -> Planner {
        let overlay = format!("{{\"tunableValues\": {values}}}");
        let m = Manifest::with_overlay(
            crate::manifest::SEED_MANIFEST,
            "seed",
            &overlay,
            "test overlay",
        )
        .unwrap();
        Planner::new(
            Arc::new(m),
            Arc::new(crate::render::Templates::builtin()),
            DeviceProfile::discrete_gpu(),
        )
    }

    /// A fake device: a time from the plan's work alone (what a GPU would see).
    fn fake_us(plan: &Plan) -> f64 {
        let mut h = Fnv::default();
        h.write(&PlanSignature::of(plan).0);
        50.0 + (h.0 % 1000) as f64 / 10.0
    }

    #[test]
    fn search_space_is_the_manifests() {
        let m = Manifest::project();
        let space = search_space(&m);
        assert!(!space.is_empty());
        for d in &space {
            assert_eq!(d.values[0], d.default, "{d:?}");
            assert_eq!(m.file.tunables[&d.name].default, d.default);
            for v in &m.tunable_values[&d.name] {
                assert!(d.values.contains(v));
            }
            let mut u = d.values.clone();
            u.sort();
            u.dedup();
            assert_eq!(u.len(), d.values.len());
        }
        // The seed alone has no candidates: nothing to search.
        assert!(search_space(&Manifest::seed()).is_empty());
        let p = seed_planner(r#"{"DECODE_WORKGROUP_SIZE": [32, 64, 32]}"#);
        let space = search_space(p.manifest());
        assert_eq!(space.len(), 1);
        assert_eq!(space[0].values, vec![64, 32]);
    }

    #[test]
    fn candidates_tell_what_changes_the_plan() {
        let p = seed_planner(
            r#"{"DECODE_WORKGROUP_SIZE": [32, 128, 3, 1048576], "NORM_WORKGROUP_SIZE": [256]}"#,
        );
        let space = search_space(p.manifest());
        // Rows 1 (f16, vector blobs), no norm: the norm workgroup does not matter; illegal
        // sizes do not plan.
        let call = shape(4096, 1024, 1).call();
        let r = candidates(&space, &mut |t| p.plan(&call, t).map_err(|e| e.to_string())).unwrap();
        let get = |n: &str, v: i64| r.iter().find(|c| c.name == n && c.value == v).unwrap();
        assert_eq!(get("DECODE_WORKGROUP_SIZE", 64).outcome, Candidate::Default);
        assert_eq!(
            get("DECODE_WORKGROUP_SIZE", 32).outcome,
            Candidate::Distinct {
                variant: "plain_nogb_noub".into()
            }
        );
        assert!(matches!(
            get("DECODE_WORKGROUP_SIZE", 3).outcome,
            Candidate::Illegal(_)
        ));
        assert!(matches!(
            get("DECODE_WORKGROUP_SIZE", 1048576).outcome,
            Candidate::Illegal(_)
        ));
        assert_eq!(get("NORM_WORKGROUP_SIZE", 128).outcome, Candidate::Default);
        assert_eq!(
            get("NORM_WORKGROUP_SIZE", 256).outcome,
            Candidate::SameAsDefault
        );
        // Two values that give the same plan: the second is reported as the first's.
        let p = seed_planner(r#"{"TILE_N": [4, 16]}"#);
        let space = search_space(p.manifest());
        let r = candidates(&space, &mut |t| p.plan(&call, t).map_err(|e| e.to_string())).unwrap();
        assert!(r
            .iter()
            .all(|c| matches!(c.outcome, Candidate::Default | Candidate::SameAsDefault)));
        // A defaults plan that fails is an error.
        let e = candidates(&space, &mut |_| Err("no".into())).unwrap_err();
        assert_eq!(e, "no");
    }

    #[test]
    fn descent_on_the_seed_finds_the_fastest() {
        let p = seed_planner(
            r#"{"DECODE_WORKGROUP_SIZE": [32, 128, 256], "NORM_WORKGROUP_SIZE": [64, 256]}"#,
        );
        let space = search_space(p.manifest());
        let mut s = shape(4096, 1024, 1);
        s.norm = true;
        let call = s.call();
        // Faster with small decode workgroups and large norm workgroups.
        let r = descend(
            &space,
            DescentLimits::default(),
            &mut |t| p.plan(&call, t).map_err(|e| e.to_string()),
            &mut |plan| {
                Ok(100.0 + plan.tunables["DECODE_WORKGROUP_SIZE"] as f64 / 8.0
                    - plan.tunables["NORM_WORKGROUP_SIZE"] as f64 / 16.0)
            },
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(
            r.best,
            Tunables::from([
                ("DECODE_WORKGROUP_SIZE".to_string(), 32),
                ("NORM_WORKGROUP_SIZE".to_string(), 256)
            ]),
            "{r:?}"
        );
        assert_eq!(r.best_us, 100.0 + 4.0 - 16.0);
        assert_eq!(r.default_us, 100.0 + 8.0 - 8.0);
        assert_eq!(r.sweeps, 2);
    }

    #[test]
    fn descent_ends_in_a_local_optimum_and_times_each_plan_once() {
        let p = planner();
        let m = Manifest::project();
        let space = search_space(&m);
        for (rows, norm) in [(1, true), (1, false), (9, true), (200, false)] {
            let mut s = shape(4096, 1024, rows);
            s.skip = norm;
            s.norm = norm;
            let call = s.call();
            let mut measured: Vec<PlanSignature> = Vec::new();
            let limits = DescentLimits {
                max_trials: 1000,
                max_sweeps: 100,
            };
            let mut lines = Vec::new();
            let r = descend(
                &space,
                limits,
                &mut |t| p.plan(&call, t).map_err(|e| e.to_string()),
                &mut |plan| {
                    measured.push(PlanSignature::of(plan));
                    Ok(fake_us(plan))
                },
                &mut |l| lines.push(l.to_string()),
            )
            .unwrap();
            assert!(!r.capped && r.sweeps < limits.max_sweeps);
            assert!(r.best_us <= r.default_us);
            assert!(!lines.is_empty());
            // Each distinct plan timed once.
            let n = measured.len();
            measured.sort_by(|a, b| a.0.cmp(&b.0));
            measured.dedup();
            assert_eq!(measured.len(), n, "rows {rows} norm {norm}");
            assert_eq!(r.trials.len(), n);
            // No single tunable change from the winner is faster.
            for d in &space {
                for &v in &d.values {
                    let mut t = r.best.clone();
                    t.insert(d.name.clone(), v);
                    if let Ok(plan) = p.plan(&call, &t) {
                        assert!(fake_us(&plan) >= r.best_us, "{t:?} beats {r:?}");
                    }
                }
            }
            // The winner's overrides hold no default values, and plan as timed.
            for (k, v) in &r.best {
                assert_ne!(m.file.tunables[k].default, *v);
            }
            let best = p.plan(&call, &r.best).unwrap();
            assert_eq!(fake_us(&best), r.best_us);
            assert_eq!(best.variant, r.best_variant);
        }
    }

    #[test]
    fn descent_respects_the_cap_and_skips_failures() {
        let p = planner();
        let call = shape(4096, 1024, 1).call();
        let space = search_space(&Manifest::project());
        let mut n = 0;
        let r = descend(
            &space,
            DescentLimits {
                max_trials: 2,
                max_sweeps: 10,
            },
            &mut |t| p.plan(&call, t).map_err(|e| e.to_string()),
            &mut |_| {
                n += 1;
                if n == 2 {
                    Err("device says no".into())
                } else {
                    Ok(50.0 - n as f64)
                }
            },
            &mut |_| {},
        )
        .unwrap();
        assert!(r.trials.len() <= 2);
        assert!(r.capped);
        assert_eq!(r.trials[1].us, None);
        assert_eq!(r.best, Tunables::new());
        // The defaults failing to time is an error.
        let e = descend(
            &space,
            DescentLimits::default(),
            &mut |t| p.plan(&call, t).map_err(|e| e.to_string()),
            &mut |_| Err("lost".into()),
            &mut |_| {},
        )
        .unwrap_err();
        assert!(e.contains("defaults") && e.contains("lost"), "{e}");
    }

    #[test]
    fn non_default_tunables_of_a_plan() {
        let p = planner();
        let m = Manifest::project();
        let call = shape(256, 64, 1).call();
        let plan = p.plan(&call, &Tunables::new()).unwrap();
        assert!(non_default_tunables(&plan, &m).is_empty());
        let t = Tunables::from([("DECODE_WORKGROUP_SIZE".to_string(), 32)]);
        let plan: Arc<Plan> = p.plan(&call, &t).unwrap();
        assert_eq!(non_default_tunables(&plan, &m), t);
        assert_eq!(tunables_text(&t), "DECODE_WORKGROUP_SIZE=32");
        assert_eq!(tunables_text(&Tunables::new()), "defaults");
    }
}
