//! Preparation: what a plan needs on the device besides the caller's tensors (pipelines,
//! uniform buffers), cached per plan and recognised again by its signature; and the plan's
//! intermediates, leased from the buffer pool.

use super::checks::binding_name;
use super::tensor::padded;
use super::Runtime;
use crate::error::{GpuError, Scopes};
use crate::pipeline::CompiledPass;
use crate::pool::{BufferPool, STORAGE};
use nbits_mlp_core::plan::{BindingPlan, IntermediatePlan, Resource};
use nbits_mlp_core::Plan;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use wgpu::util::DeviceExt as _;

/// Everything about a plan that does not depend on the caller's buffers.
pub(super) struct Prepared {
    /// Unique per runtime (keys the bind group cache).
    pub(super) id: u64,
    /// Label of the command encoder of a run: "plan `variant`".
    pub(super) label: String,
    sig: PlanSig,
    /// Per pass of the plan; `None` for a skipped pass.
    pub(super) passes: Vec<Option<PreparedPass>>,
}

pub(super) struct PreparedPass {
    pub(super) compiled: Arc<CompiledPass>,
    /// Per binding: the uniform buffer of a uniform binding.
    pub(super) uniforms: Vec<Option<wgpu::Buffer>>,
    /// Label of the pass and its bind group: "pass `id` (template)".
    pub(super) label: String,
}

/// What a prepared plan was prepared from, to recognise the same plan again. The shaders are
/// kept as the plan's own `Arc<str>`s: a call with the same plan (the planner's cached one) finds
/// its text by pointer, without comparing tens of KB of WGSL on every call; other plans are
/// compared byte by byte.
struct PlanSig {
    passes: Vec<PassSig>,
    intermediates: Vec<IntermediatePlan>,
}

/// [`PlanSig`]'s record of one pass.
struct PassSig {
    wgsl: Arc<str>,
    dispatch: [u32; 3],
    skipped: bool,
    bindings: Vec<BindingPlan>,
}

impl PlanSig {
    fn of(plan: &Plan) -> PlanSig {
        PlanSig {
            passes: plan
                .passes
                .iter()
                .map(|p| PassSig {
                    wgsl: p.wgsl.clone(),
                    dispatch: p.dispatch,
                    skipped: p.skipped,
                    bindings: p.bindings.clone(),
                })
                .collect(),
            intermediates: plan.intermediates.clone(),
        }
    }
    fn matches(&self, plan: &Plan) -> bool {
        self.intermediates == plan.intermediates
            && self.passes.len() == plan.passes.len()
            && self.passes.iter().zip(&plan.passes).all(|(a, p)| {
                a.dispatch == p.dispatch
                    && a.skipped == p.skipped
                    && (Arc::ptr_eq(&a.wgsl, &p.wgsl) || a.wgsl == p.wgsl)
                    && a.bindings == p.bindings
            })
    }
}

/// A cheap hash of a plan (full equality is checked by [`PlanSig::matches`]).
fn fingerprint(plan: &Plan) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    plan.variant.hash(&mut h);
    for p in &plan.passes {
        (&p.id, p.dispatch, p.skipped, p.wgsl.len(), p.bindings.len()).hash(&mut h);
        for b in &p.bindings {
            (b.binding, b.bytes).hash(&mut h);
        }
    }
    for i in &plan.intermediates {
        i.bytes.hash(&mut h);
    }
    h.finish()
}

/// Pooled buffers handed back to the pool when dropped.
pub(super) struct Leased<'a> {
    pub(super) pool: &'a BufferPool,
    pub(super) buffers: Vec<wgpu::Buffer>,
}

impl Drop for Leased<'_> {
    fn drop(&mut self) {
        for b in self.buffers.drain(..) {
            self.pool.release(b);
        }
    }
}

impl Runtime {
    /// The prepared form of a plan (pipelines compiled, uniform buffers written), cached.
    pub(super) fn prepare(&self, plan: &Plan) -> Result<Arc<Prepared>, GpuError> {
        let fp = fingerprint(plan);
        let find = |m: &HashMap<u64, Vec<Arc<Prepared>>>| {
            m.get(&fp)
                .and_then(|v| v.iter().find(|p| p.sig.matches(plan)).cloned())
        };
        if let Some(p) = self.prepared.lock().ok().and_then(|m| find(&m)) {
            return Ok(p);
        }
        self.check_plan(plan)?;
        let device = self.gpu.device();
        let mut passes = Vec::with_capacity(plan.passes.len());
        for pass in &plan.passes {
            if pass.skipped {
                passes.push(None);
                continue;
            }
            let compiled = self
                .pipelines
                .get(device, &self.gpu.events, self.profile(), pass)?;
            let scopes = Scopes::push(device);
            let uniforms = pass
                .bindings
                .iter()
                .map(|b| match &b.resource {
                    Resource::Uniform { bytes, .. } => Some(device.create_buffer_init(
                        &wgpu::util::BufferInitDescriptor {
                            label: Some(&binding_name(pass, b)),
                            contents: bytes,
                            usage: wgpu::BufferUsages::UNIFORM,
                        },
                    )),
                    _ => None,
                })
                .collect();
            scopes.pop(&self.gpu.events, || {
                format!("creating the uniform buffers of pass `{}`", pass.id)
            })?;
            passes.push(Some(PreparedPass {
                compiled,
                uniforms,
                label: format!("pass `{}` ({})", pass.id, pass.shader),
            }));
        }
        let prepared = Arc::new(Prepared {
            id: self.next_prepared_id.fetch_add(1, Ordering::Relaxed),
            label: format!("plan `{}`", plan.variant),
            sig: PlanSig::of(plan),
            passes,
        });
        let mut m = self.prepared.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = find(&m) {
            return Ok(p);
        }
        m.entry(fp).or_default().push(prepared.clone());
        Ok(prepared)
    }

    /// Pooled buffers for the plan's intermediates, in plan order.
    pub(super) fn acquire_scratch(&self, plan: &Plan) -> Result<Leased<'_>, GpuError> {
        let mut leased = Leased {
            pool: &self.pool,
            buffers: Vec::with_capacity(plan.intermediates.len()),
        };
        let max_buffer = self.limit("maxBufferSize");
        for s in &plan.intermediates {
            let b = self.pool.acquire(
                self.gpu.device(),
                &self.gpu.events,
                padded(s.bytes),
                STORAGE,
                max_buffer,
                &|| format!("intermediate `{}` ({} {:?})", s.id, s.dtype, s.shape),
            )?;
            leased.buffers.push(b);
        }
        Ok(leased)
    }
}
