//! The tuning cache file: one JSON file per device ([`DeviceId`]), stamped with the manifest's
//! [`manifest_fingerprint`], holding a [`TuningEntry`] per shape class.

use super::ShapeClass;
use crate::manifest::Manifest;
use crate::op::OpCall;
use crate::planner::Tunables;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Version of the cache file format written by this build.
pub const CACHE_FORMAT: u32 = 1;

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
pub(super) struct Fnv(pub(super) u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Hashes `bytes`.
    pub(super) fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

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

    /// The cache at `path` to add entries to, for `device` and the manifest fingerprint
    /// `manifest`: the file's cache when it is a valid one for them, else a new empty one
    /// (nothing there yet, or a corrupt or stale file, which is then replaced: its error is
    /// returned beside, for a warning). A file that cannot be read is an error.
    pub fn for_update(
        path: &Path,
        device: &DeviceId,
        manifest: &str,
    ) -> Result<(TuningCache, Option<TuningError>), TuningError> {
        let fresh = || TuningCache::new(device.clone(), manifest.to_string());
        match TuningCache::read(path) {
            Ok(Some(c)) => match c.check(device, manifest) {
                Ok(()) => Ok((c, None)),
                Err(e) => Ok((fresh(), Some(e))),
            },
            Ok(None) => Ok((fresh(), None)),
            Err(e @ TuningError::Corrupt { .. }) => Ok((fresh(), Some(e))),
            Err(e) => Err(e),
        }
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
