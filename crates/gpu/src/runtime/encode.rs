//! Encoding: a plan with the caller's buffers bound ([`Bound`]) recorded into a command encoder,
//! bind groups from the runtime's cache; and the attribution of a validation error of a whole
//! run to the pass that fails alone.

use super::checks::{binding_name, pass_name};
use super::prepare::{Prepared, PreparedPass};
use super::tensor::{padded, Arg};
use super::Runtime;
use crate::bind_cache::key_hash;
use crate::error::{GpuError, Scopes};
use nbits_mlp_core::plan::{PassPlan, Resource};
use nbits_mlp_core::Plan;

/// A plan with everything bound: what [`Runtime::encode`] records.
#[derive(Clone, Copy)]
pub(super) struct Bound<'a> {
    pub(super) plan: &'a Plan,
    pub(super) prep: &'a Prepared,
    pub(super) inputs: &'a [Option<Arg<'a>>],
    /// The prepared copies of inputs the plan binds (`Resource::Prepared`).
    pub(super) prepared: &'a [super::prepared::PreparedBinding],
    pub(super) outputs: &'a [Option<Arg<'a>>],
    pub(super) scratch: &'a [wgpu::Buffer],
}

/// Timestamp writes for one recorded run: `begin` at the start of its first pass, `end` at the
/// end of its last pass (query indices in `set`).
pub(super) struct Stamps<'a> {
    pub(super) set: &'a wgpu::QuerySet,
    pub(super) begin: Option<u32>,
    pub(super) end: Option<u32>,
}

/// One dispatch of a recorded run: the prepared pass, its bind group, its workgroup counts.
type Dispatch<'a> = (&'a PreparedPass, wgpu::BindGroup, [u32; 3]);

impl Runtime {
    /// Records every active pass of the plan (or only pass `only`) as one dispatch each, in
    /// order, in a single compute pass, with the timestamp writes of `timestamps`. Bind groups
    /// come from the runtime's cache, except with `only` (attributing an error: every bind
    /// group is created anew, inside its own error scopes).
    pub(super) fn encode(
        &self,
        enc: &mut wgpu::CommandEncoder,
        bound: &Bound,
        timestamps: Option<Stamps<'_>>,
        only: Option<usize>,
    ) -> Result<(), GpuError> {
        // Bind groups first (cached, or created inside error scopes), then every active pass
        // is one dispatch of a single compute pass: wgpu orders dependent dispatches of a pass
        // with the same barriers it puts between passes, and one pass per run records and
        // submits faster than one per plan pass.
        let mut dispatches: Vec<Dispatch<'_>> = Vec::new();
        let mut buffers: Vec<&wgpu::Buffer> = Vec::new();
        for (i, pass) in bound.plan.passes.iter().enumerate() {
            if only.is_some_and(|o| o != i) {
                continue;
            }
            let Some(pp) = bound.prep.passes[i].as_ref() else {
                continue;
            };
            bound_buffers(bound, i, &mut buffers)?;
            let bind_group = self.bind_group(bound.prep, (i, pass), &buffers, only.is_none())?;
            dispatches.push((pp, bind_group, pass.dispatch));
        }
        record_dispatches(enc, &bound.prep.label, &dispatches, timestamps);
        Ok(())
    }

    /// The bind group of pass `i` (`pass`, prepared in `prep`) binding `buffers`: from the
    /// runtime's cache when `cached`, otherwise created inside its own error scopes (and then
    /// cached when `cached`).
    fn bind_group(
        &self,
        prep: &Prepared,
        (i, pass): (usize, &PassPlan),
        buffers: &[&wgpu::Buffer],
        cached: bool,
    ) -> Result<wgpu::BindGroup, GpuError> {
        let hash = key_hash(prep.id, i, buffers);
        if cached {
            let hit = self
                .bind_groups
                .lock()
                .ok()
                .and_then(|mut c| c.get(hash, prep.id, i, buffers));
            if let Some(g) = hit {
                return Ok(g);
            }
        }
        let pp = prep.passes[i].as_ref().expect("an active pass");
        let entries: Vec<wgpu::BindGroupEntry> = pass
            .bindings
            .iter()
            .zip(buffers)
            .map(|(b, buffer)| wgpu::BindGroupEntry {
                binding: b.binding,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset: 0,
                    size: wgpu::BufferSize::new(padded(b.bytes)),
                }),
            })
            .collect();
        let device = self.gpu.device();
        let scopes = Scopes::push(device);
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&pp.label),
            layout: &pp.compiled.layout,
            entries: &entries,
        });
        scopes.pop(&self.gpu.events, || {
            format!("binding the buffers of {}", pass_name(pass))
        })?;
        if cached {
            if let Ok(mut c) = self.bind_groups.lock() {
                c.insert(hash, prep.id, i, buffers, group.clone());
            }
        }
        Ok(group)
    }

    /// Attributes a validation error of a whole run to the first pass that fails alone: each
    /// active pass is recorded again into its own encoder (never submitted) inside its own
    /// error scopes. Other errors, or one no single pass reproduces, are returned as they are.
    pub(super) fn refine(&self, bound: &Bound, err: GpuError) -> GpuError {
        if !matches!(err, GpuError::Validation { .. }) {
            return err;
        }
        self.attribute(bound).unwrap_or(err)
    }

    /// The validation error of the first active pass of `bound` that fails when recorded alone
    /// (see [`Runtime::refine`]), if any.
    pub(super) fn attribute(&self, bound: &Bound) -> Option<GpuError> {
        let device = self.gpu.device();
        for (i, pass) in bound.plan.passes.iter().enumerate() {
            if bound.prep.passes[i].is_none() {
                continue;
            }
            let scopes = Scopes::push(device);
            let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(&format!("checking pass `{}`", pass.id)),
            });
            let recorded = self.encode(&mut enc, bound, None, Some(i));
            drop(enc.finish());
            if let Err(GpuError::Validation { message, .. }) =
                scopes.pop(&self.gpu.events, String::new).and(recorded)
            {
                return Some(GpuError::Validation {
                    what: pass_name(pass),
                    message,
                });
            }
        }
        None
    }
}

/// The buffers pass `i` of `bound` binds, in binding order, into `out` (cleared first); an
/// error when a prepared copy the pass binds is missing.
fn bound_buffers<'a>(
    bound: &Bound<'a>,
    i: usize,
    out: &mut Vec<&'a wgpu::Buffer>,
) -> Result<(), GpuError> {
    let pp = bound.prep.passes[i].as_ref().expect("an active pass");
    out.clear();
    for (bi, b) in bound.plan.passes[i].bindings.iter().enumerate() {
        out.push(match &b.resource {
            Resource::Input { index, .. } => bound.inputs[*index].expect("checked").buffer,
            Resource::Prepared { index, weights, .. } => {
                super::prepared::find_prepared(bound.prepared, *index, weights).ok_or_else(
                    || GpuError::InvalidPlan {
                        variant: bound.plan.variant.clone(),
                        message: format!(
                            "{}: no prepared copy was bound",
                            binding_name(&bound.plan.passes[i], b)
                        ),
                    },
                )?
            }
            Resource::Output { index, .. } => bound.outputs[*index].expect("checked").buffer,
            Resource::Scratch { index, .. } => &bound.scratch[*index],
            Resource::Uniform { .. } => pp.uniforms[bi].as_ref().expect("uniform buffer prepared"),
        });
    }
    Ok(())
}

/// Records the dispatches as one compute pass, labelled by its single pass or else by the plan
/// (`plan_label`), each dispatch in a debug group of its own when there are several; with the
/// timestamp writes of `timestamps` when it asks for any. Records nothing without dispatches.
fn record_dispatches(
    enc: &mut wgpu::CommandEncoder,
    plan_label: &str,
    dispatches: &[Dispatch<'_>],
    timestamps: Option<Stamps<'_>>,
) {
    let Some(first) = dispatches.first() else {
        return;
    };
    let timestamp_writes = timestamps.as_ref().and_then(|st| {
        (st.begin.is_some() || st.end.is_some()).then_some(wgpu::ComputePassTimestampWrites {
            query_set: st.set,
            beginning_of_pass_write_index: st.begin,
            end_of_pass_write_index: st.end,
        })
    });
    let label = if dispatches.len() == 1 {
        first.0.label.as_str()
    } else {
        plan_label
    };
    let mut cp = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes,
    });
    for (pp, bind_group, [x, y, z]) in dispatches {
        if dispatches.len() > 1 {
            cp.push_debug_group(&pp.label);
        }
        cp.set_pipeline(&pp.compiled.pipeline);
        cp.set_bind_group(0, bind_group, &[]);
        cp.dispatch_workgroups(*x, *y, *z);
        if dispatches.len() > 1 {
            cp.pop_debug_group();
        }
    }
}
