//! The runtime for tests: opened once per test binary, or skipped when no GPU adapter exists
//! and the environment says so.
//!
//! ```no_run
//! let Some(rt) = nbits_mlp_gpu::testing::runtime() else { return }; // skipped
//! assert!(rt.profile().has_feature("shader-f16"));
//! ```

use crate::{Gpu, GpuError, GpuOptions, Runtime};
use std::sync::OnceLock;

/// Environment variable that turns "no GPU adapter" from a test failure into a skip: `1`.
pub const ENV_SKIP: &str = "NBITS_MLP_SKIP_GPU";

/// Whether [`ENV_SKIP`] is set to `1`.
pub fn skip_allowed() -> bool {
    std::env::var(ENV_SKIP).is_ok_and(|v| v.trim() == "1")
}

fn opened() -> &'static Result<Gpu, String> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    GPU.get_or_init(|| {
        GpuOptions::from_env()
            .and_then(|o| Gpu::new(&o))
            .map_err(|e| e.to_string())
    })
}

/// The device of this test binary (opened once, with [`GpuOptions::from_env`]), or `None` when
/// it cannot be opened and [`ENV_SKIP`]`=1` (a note is printed).
///
/// # Panics
/// When the device cannot be opened and skipping is not allowed, with a message saying why and
/// how to skip.
pub fn gpu() -> Option<Gpu> {
    match opened() {
        Ok(g) => Some(g.clone()),
        Err(e) if skip_allowed() => {
            eprintln!("note: skipping a GPU test ({ENV_SKIP}=1): {e}");
            None
        }
        Err(e) => panic!("GPU tests need a WebGPU adapter: {e}\n(set {ENV_SKIP}=1 to skip GPU tests on a machine without one)"),
    }
}

/// A runtime on the test binary's device planning for everything it granted (see [`gpu`]).
/// Each call gives a fresh runtime (own caches) sharing the one device.
pub fn runtime() -> Option<Runtime> {
    gpu().map(Runtime::new)
}

/// A runtime on the test binary's device planning for `profile(granted profile)` (see [`gpu`]).
pub fn runtime_with(
    profile: impl FnOnce(nbits_mlp_core::DeviceProfile) -> nbits_mlp_core::DeviceProfile,
) -> Option<Result<Runtime, GpuError>> {
    gpu().map(|g| {
        let p = profile(g.profile());
        Runtime::with_profile(g, p)
    })
}

/// Like [`runtime`], but planning with the seed manifest alone (no project overlay), so tests can
/// pin the seed's 27 variants.
pub fn seed_runtime() -> Option<Runtime> {
    seed_runtime_with(|p| p).map(|r| r.expect("the granted profile is no restriction"))
}

/// Like [`runtime_with`], planning with the seed manifest alone.
pub fn seed_runtime_with(
    profile: impl FnOnce(nbits_mlp_core::DeviceProfile) -> nbits_mlp_core::DeviceProfile,
) -> Option<Result<Runtime, GpuError>> {
    gpu().map(|g| {
        let p = profile(g.profile());
        let planner = nbits_mlp_core::Planner::new(
            std::sync::Arc::new(nbits_mlp_core::Manifest::seed()),
            std::sync::Arc::new(nbits_mlp_core::render::Templates::builtin()),
            p,
        );
        Runtime::with_planner(g, planner)
    })
}
