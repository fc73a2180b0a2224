//! Where a device's cache file lives ([`ENV_TUNE_CACHE`], `$XDG_CACHE_HOME/nbits-mlp/`,
//! `~/.cache/nbits-mlp/`) and loading it from there.

use super::{manifest_fingerprint, DeviceId, TuningCache, ENV_TUNE_CACHE};
use crate::manifest::Manifest;
use std::path::{Path, PathBuf};

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
