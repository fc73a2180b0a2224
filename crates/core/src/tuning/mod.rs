//! Per-device tuning: the cache of tuned tunable values (`nbits-mlp tune` writes it, the runtime
//! reads it), the rule that applies them, and the GPU-free half of the search. One concept per
//! file:
//!
//! - `class`: [`ShapeClass`], what a tuned value is keyed by: T1, bits, block size, K, N, a
//!   bucket of rows ([`RowsBucket`]) and whether the call has `skip` / `norm_scale`.
//! - `cache`: [`TuningCache`], the file format: one JSON file per device ([`DeviceId`]),
//!   stamped with the manifest's [`manifest_fingerprint`]; a file for another device or another
//!   manifest is stale and is ignored ([`TuningCache::load`] says why).
//! - `location`: [`cache_path`], where the file lives (`$NBITS_MLP_TUNE_CACHE`,
//!   `$XDG_CACHE_HOME/nbits-mlp/` or `~/.cache/nbits-mlp/`), and [`load_default`].
//! - `resolve`: [`plan_tuned`], the rule every caller plans by: explicit overrides, else the
//!   tuned values, else the defaults; tuned values that do not plan fall back to the defaults
//!   and say so ([`TunedPlan::ignored`]).
//! - `search`: [`search_space`], [`PlanSignature`], [`candidates`] and [`descend`]: which
//!   values to try, which of them change what runs, and the coordinate descent over them, with
//!   the timing left to a caller's closure.

mod cache;
mod class;
mod location;
mod resolve;
mod search;
#[cfg(test)]
mod tests;

pub use cache::*;
pub use class::*;
pub use location::*;
pub use resolve::*;
pub use search::*;

/// Environment variable naming the tuning cache: `off` disables it, a path ending in `.json`
/// (or an existing file) is the cache file itself, anything else a directory holding one file
/// per device.
pub const ENV_TUNE_CACHE: &str = "NBITS_MLP_TUNE_CACHE";

/// Parses a tunable override, `NAME=VALUE` with an integer value (the CLI's `--tunable`, the
/// emulated GPU tests' `NBITS_MLP_EMULATE_TUNABLES`); the error names what is wrong.
pub fn parse_tunable(s: &str) -> Result<(String, i64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{s}` has no tunable name"));
    }
    let value = value
        .trim()
        .parse::<i64>()
        .map_err(|_| format!("tunable `{name}`: `{}` is not an integer", value.trim()))?;
    Ok((name.to_string(), value))
}
