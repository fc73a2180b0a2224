//! The planner: (attributes, input descriptions, requested outputs, tunables, device) -> [`Plan`].
//!
//! Variant selection follows the spec: every `when` of the manifest, then per variant its `when`
//! items and `requires.limits`; the highest priority wins and ties are errors. Every derive entry
//! is evaluated lazily, at most once per plan (global entries once for all variants unless they
//! depend on a name the variant shadows). Plans are cached by everything they depend on.
//!
//! One module per step of a plan, in the order they run:
//! - `validate`: the call against what the manifest declares (attributes, tunables, tensors,
//!   output shapes), then its `inputChecks` and top-level `when`;
//! - `select`: every variant's verdict, the winner, and why a term is false (`explain`);
//! - `bind`: the winner's intermediates and each pass's bindings, with `uniforms` packing the
//!   uniform structs;
//! - `dispatch`: each pass's workgroup counts;
//! - `context`: the template context;
//! - `build`: the steps above put together, the WGSL rendered, the [`Plan`] assembled.
//!
//! Under them: `env` (one plan's evaluation state: derive values, the expression environment),
//! `lookup` (per-manifest tables built once) and `cache` (the plan cache's key).

mod bind;
mod build;
mod cache;
mod context;
mod dispatch;
mod env;
mod error;
mod lookup;
mod select;
mod uniforms;
mod validate;

pub use error::PlanError;

use crate::device::DeviceProfile;
use crate::manifest::Manifest;
use crate::op::OpCall;
use crate::plan::*;
use crate::render::{RenderError, Target, Templates};
use cache::{cache_key, FastMap};
use env::Ctx;
use lookup::Lookup;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Makes plans for one device, with a cache.
pub struct Planner {
    manifest: Arc<Manifest>,
    lookup: Lookup,
    templates: Arc<Templates>,
    /// The templates' `inputs` headers checked against the manifest once, here; an error is
    /// returned by every plan (boxed: the planner stays small).
    inputs: Result<(), Box<RenderError>>,
    device: DeviceProfile,
    target: Target,
    why: bool,
    cache: Mutex<FastMap<Vec<u8>, Arc<Plan>>>,
}

impl std::fmt::Debug for Planner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Planner")
            .field("device", &self.device.name)
            .finish()
    }
}

/// Tunable overrides by name.
pub type Tunables = BTreeMap<String, i64>;

impl Planner {
    /// A planner for `device` over a manifest and templates. The templates' `inputs` headers
    /// are checked against the manifest here, once; if a variant lacks a name its template
    /// reads, every plan fails with that error ([`RenderError::Inputs`]).
    pub fn new(
        manifest: Arc<Manifest>,
        templates: Arc<Templates>,
        device: DeviceProfile,
    ) -> Planner {
        Planner {
            lookup: Lookup::new(&manifest),
            inputs: templates.check_inputs(&manifest).map_err(Box::new),
            manifest,
            templates,
            device,
            target: Target::Wgpu,
            why: false,
            cache: Mutex::new(FastMap::default()),
        }
    }
    /// A planner with the project's manifest (seed + overlay) and built-in templates.
    pub fn project(device: DeviceProfile) -> Planner {
        Planner::new(
            Arc::new(Manifest::project()),
            Arc::new(Templates::builtin()),
            device,
        )
    }
    /// Sets the WGSL target (enables differ between wgpu and browsers).
    pub fn with_target(mut self, target: Target) -> Planner {
        self.target = target;
        self
    }
    /// Whether plans explain why each rejected variant's term is false (`Verdict::why`); off by
    /// default to keep cold planning cheap. [`Planner::explain`] always explains.
    pub fn with_explained_verdicts(mut self, on: bool) -> Planner {
        self.why = on;
        self
    }
    /// The device profile.
    pub fn device(&self) -> &DeviceProfile {
        &self.device
    }
    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }
    /// Number of cached plans.
    pub fn cached(&self) -> usize {
        self.cache.lock().map(|c| c.len()).unwrap_or(0)
    }

    /// A plan for `call`, from the cache when the same call was planned before.
    pub fn plan(&self, call: &OpCall, tunables: &Tunables) -> Result<Arc<Plan>, PlanError> {
        let key = cache_key(call, tunables);
        if let Some(p) = self.cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(p);
        }
        let plan = Arc::new(self.plan_uncached(call, tunables)?);
        if let Ok(mut c) = self.cache.lock() {
            c.insert(key, plan.clone());
        }
        Ok(plan)
    }

    /// Every variant's verdict for `call` (what `explain` prints). Errors that stop planning
    /// before variant selection (bad attributes, a false top-level `when`) are returned as such.
    pub fn explain(&self, call: &OpCall, tunables: &Tunables) -> Result<Vec<Verdict>, PlanError> {
        self.inputs.clone().map_err(|e| *e)?;
        let mut ctx = Ctx::new(&self.manifest, &self.lookup, &self.device, call, tunables)?;
        ctx.check_contract()?;
        ctx.verdicts(true)
    }

    /// A plan without the cache.
    pub fn plan_uncached(&self, call: &OpCall, tunables: &Tunables) -> Result<Plan, PlanError> {
        self.inputs.clone().map_err(|e| *e)?;
        let mut ctx = Ctx::new(&self.manifest, &self.lookup, &self.device, call, tunables)?;
        ctx.check_contract()?;
        let verdicts = ctx.verdicts(self.why)?;
        let Some(wi) = select::winner(&verdicts)? else {
            let explained = if self.why {
                verdicts
            } else {
                ctx.verdicts(true)?
            };
            return Err(PlanError::NoVariant(explained));
        };
        ctx.build(wi, verdicts, &self.templates, self.target)
    }
}
