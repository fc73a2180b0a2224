//! Tuned tunables in the runtime: a [`TuningCache`] attached to a [`Runtime`] gives every call
//! planned without tunable overrides the tuned values of its shape class
//! by the core's one rule ([`nbits_mlp_core::tuning::plan_tuned`]): overrides given by the
//! caller always win (the cache is then not consulted at all), and tuned values that do not
//! plan for a call fall back to the defaults ([`Runtime::plan_tuned`] reports it).
//!
//! Nothing is attached by default: [`Runtime::with_tuning`] attaches a cache,
//! [`Runtime::with_default_tuning`] the live adapter's cache from its default location
//! ([`nbits_mlp_core::tuning::cache_path`]; `NBITS_MLP_TUNE_CACHE=off` disables it).

use crate::runtime::Runtime;
use crate::GpuError;
use nbits_mlp_core::tuning::{self, DeviceId, TunedPlan, TuningCache};
use nbits_mlp_core::{OpCall, Tunables};
use std::sync::Arc;

/// The identity of an adapter for tuning caches: name, backend, driver and driver version.
pub fn device_id(info: &wgpu::AdapterInfo) -> DeviceId {
    DeviceId {
        adapter: info.name.clone(),
        backend: format!("{:?}", info.backend),
        driver: info.driver.clone(),
        driver_info: info.driver_info.clone(),
    }
}

impl Runtime {
    /// This runtime's device, as tuning caches name it.
    pub fn device_id(&self) -> DeviceId {
        device_id(self.gpu().info())
    }

    /// Attaches a tuning cache: from now on a call planned with no tunable overrides gets its
    /// class's tuned values. The cache is used as given; [`TuningCache::load`] checks one
    /// against the device ([`Runtime::device_id`]) and the manifest
    /// ([`tuning::manifest_fingerprint`]).
    pub fn with_tuning(mut self, cache: TuningCache) -> Runtime {
        self.tuning = Some(Arc::new(cache));
        self
    }

    /// Attaches this device's tuning cache from its default location
    /// ([`tuning::cache_path`]) when there is one for this device and manifest. Returns a
    /// warning (and attaches nothing) when the file exists but is unreadable, corrupt or stale.
    pub fn with_default_tuning(self) -> (Runtime, Option<String>) {
        let (cache, warning) = tuning::load_default(&self.device_id(), self.planner().manifest());
        match cache {
            Some(c) => (self.with_tuning(c), warning),
            None => (self, warning),
        }
    }

    /// The attached tuning cache.
    pub fn tuning(&self) -> Option<&TuningCache> {
        self.tuning.as_deref()
    }

    /// The tuned tunables the cache holds for `call`'s class, if a cache is attached and has
    /// non-default values for it.
    pub fn tuned_tunables(&self, call: &OpCall) -> Option<&Tunables> {
        self.tuning
            .as_ref()?
            .tunables_for(call, self.planner().manifest())
    }

    /// The plan of `call` by the one tuning rule ([`tuning::plan_tuned`]): `overrides` when
    /// any are given, else the attached cache's tuned values for the call's class, else the
    /// defaults. Tuned values that do not plan fall back to the defaults; the result says so
    /// ([`TunedPlan::ignored`]) and what was applied ([`TunedPlan::tuned`]).
    /// [`Runtime::plan`] is this without the report.
    pub fn plan_tuned(&self, call: &OpCall, overrides: &Tunables) -> Result<TunedPlan, GpuError> {
        Ok(tuning::plan_tuned(
            self.planner(),
            call,
            overrides,
            self.tuning(),
        )?)
    }
}
