//! Prepared weights: the caller's weight tensors rearranged once for the kernels that read a
//! prepared layout (`nbits_mlp_core::layout`; a plan binds such a copy as
//! [`Resource::Prepared`], e.g. the `mmap_*` variants' `mma-tiles` codes and scales).
//!
//! A device tensor keeps its prepared copies, shared by its clones: the first device run that
//! binds one (or [`Runtime::prepare_inputs`] / [`Runtime::prepare_weights`] beforehand) builds
//! the copy on the GPU from the tensor's buffer (the `repack` module's copy kernels, byte for
//! byte what `core::layout` builds; submitted, no host round trip, no wait); later runs bind
//! the copy. [`Runtime::write_tensor`] drops the copies of the tensor it overwrites
//! (the next run rebuilds them); a tensor's buffer changed by other means (the caller's own
//! queue writes into [`GpuTensor::buffer`]) keeps stale copies. Host runs
//! ([`Runtime::run_plan`]) rearrange the host tensor and upload the copy with the other inputs,
//! every call.

use super::tensor::{describe, padded, tensor_bytes, GpuTensor};
use super::Runtime;
use crate::error::GpuError;
use nbits_mlp_core::layout::PreparedWeights;
use nbits_mlp_core::plan::Resource;
use nbits_mlp_core::{Plan, Tensor, TensorInfo};
use std::sync::{Arc, Mutex};

/// The prepared copies of one device tensor (shared by its clones), by layout and geometry.
#[derive(Clone, Debug, Default)]
pub(super) struct PreparedCopies(Arc<Mutex<Vec<(PreparedWeights, wgpu::Buffer)>>>);

impl PreparedCopies {
    /// The copy for `w`, if built.
    fn get(&self, w: &PreparedWeights) -> Option<wgpu::Buffer> {
        let copies = self.0.lock().ok()?;
        copies.iter().find(|(k, _)| k == w).map(|(_, b)| b.clone())
    }

    fn insert(&self, w: PreparedWeights, buffer: wgpu::Buffer) {
        if let Ok(mut copies) = self.0.lock() {
            copies.retain(|(k, _)| *k != w);
            copies.push((w, buffer));
        }
    }

    /// Drops every copy (the tensor's bytes changed).
    pub(super) fn clear(&self) {
        if let Ok(mut copies) = self.0.lock() {
            copies.clear();
        }
    }
}

/// A prepared copy a run binds: input `index` in the layout and geometry `weights`.
pub(super) struct PreparedBinding {
    pub(super) index: usize,
    pub(super) weights: PreparedWeights,
    pub(super) buffer: wgpu::Buffer,
}

/// A prepared copy of a host input, rearranged for a host run: input `index` in `weights`,
/// its bytes, and the size of the buffer to upload them into.
pub(super) struct HostCopy {
    pub(super) index: usize,
    pub(super) weights: PreparedWeights,
    pub(super) bytes: Vec<u8>,
    pub(super) size: u64,
}

/// The prepared copy bound for input `index` in `weights`, among a run's.
pub(super) fn find_prepared<'a>(
    list: &'a [PreparedBinding],
    index: usize,
    weights: &PreparedWeights,
) -> Option<&'a wgpu::Buffer> {
    list.iter()
        .find(|p| p.index == index && p.weights == *weights)
        .map(|p| &p.buffer)
}

/// The prepared copies the active passes of a plan bind: (input index, ONNX name, weights),
/// each once.
pub(super) fn prepared_resources(plan: &Plan) -> Vec<(usize, String, PreparedWeights)> {
    let mut out: Vec<(usize, String, PreparedWeights)> = Vec::new();
    for b in plan.active_passes().flat_map(|p| &p.bindings) {
        if let Resource::Prepared {
            index,
            onnx,
            weights,
            ..
        } = &b.resource
        {
            if !out.iter().any(|(i, _, w)| i == index && w == weights) {
                out.push((*index, onnx.clone(), *weights));
            }
        }
    }
    out
}

/// Checks that a tensor is what the layout's geometry rearranges (its bytes and element size).
pub(super) fn check_source(
    info: &TensorInfo,
    index: usize,
    name: &str,
    w: &PreparedWeights,
) -> Result<(), GpuError> {
    let bytes = tensor_bytes(info);
    if bytes != w.original_bytes() as u64 || info.dtype.size() != w.elem_bytes {
        return Err(GpuError::Input {
            index,
            name: name.into(),
            message: format!(
                "{} ({bytes} bytes) is not what the prepared layout {} was planned for ({} bytes of {}-byte elements: N={} K={} bits={} block_size={})",
                describe(info),
                w.layout,
                w.original_bytes(),
                w.elem_bytes,
                w.n,
                w.k,
                w.bits,
                w.block_size
            ),
        });
    }
    Ok(())
}

/// The prepared bytes of a tensor's bytes, or an error naming the input.
pub(super) fn repack_bytes(
    data: &[u8],
    index: usize,
    name: &str,
    w: &PreparedWeights,
) -> Result<Vec<u8>, GpuError> {
    w.repack(data).map_err(|e| GpuError::Input {
        index,
        name: name.into(),
        message: e.to_string(),
    })
}

impl Runtime {
    /// The prepared copy of a device weight tensor in the layout and geometry `weights` (a
    /// plan's [`Resource::Prepared`] binding names them), as a 1-D device tensor of the
    /// tensor's dtype (`uint8` codes, the scales' dtype), and whether this call built it.
    /// Built once, on the GPU ([`Runtime::repack_into`]: a copy kernel submitted to the queue,
    /// ordered before every later submission; nothing waits, nothing is read back), and kept
    /// with the tensor, shared by its clones, until [`Runtime::write_tensor`] overwrites it.
    /// Errors when the tensor is not what `weights` describes.
    pub fn prepare_weights(
        &self,
        t: &GpuTensor,
        weights: &PreparedWeights,
    ) -> Result<(GpuTensor, bool), GpuError> {
        self.prepare_weights_named(t, 0, "weights", weights)
    }

    fn prepare_weights_named(
        &self,
        t: &GpuTensor,
        index: usize,
        name: &str,
        w: &PreparedWeights,
    ) -> Result<(GpuTensor, bool), GpuError> {
        let info = TensorInfo::new(t.info.dtype, vec![w.prepared_bytes() / w.elem_bytes]);
        if let Some(buffer) = t.prepared.get(w) {
            return Ok((GpuTensor::from_buffer(buffer, info)?, false));
        }
        // Checked here, before the copy is allocated; `repack_checked` does not check again.
        check_source(&t.info, index, name, w)?;
        let label = format!("{name} in the prepared layout {}", w.layout);
        let copy = self.create_tensor_buffer(&|| label.clone(), &info, None)?;
        self.repack_checked(t, index, name, w, &copy)?;
        t.prepared.insert(*w, copy.buffer.clone());
        Ok((copy, true))
    }

    /// Builds the prepared copies `plan` binds from `inputs` (device tensors, ONNX order, as
    /// [`Runtime::run_on_device`] takes them) that they do not hold yet, and returns how many
    /// were built (0 for plans of the original layout). Device runs build missing copies on
    /// their own; call this to pay for it up front (before timing, or when loading a model).
    /// The copies are built on the GPU and only submitted: [`Runtime::wait_idle`] waits for
    /// them (later runs are ordered after them on the queue either way).
    pub fn prepare_inputs(
        &self,
        plan: &Plan,
        inputs: &[Option<&GpuTensor>],
    ) -> Result<usize, GpuError> {
        let mut built = 0;
        for (index, name, w) in prepared_resources(plan) {
            let t = inputs
                .get(index)
                .copied()
                .flatten()
                .ok_or_else(|| GpuError::Input {
                    index,
                    name: name.clone(),
                    message: format!(
                        "the prepared layout {} needs it but it was not given",
                        w.layout
                    ),
                })?;
            if self.prepare_weights_named(t, index, &name, &w)?.1 {
                built += 1;
            }
        }
        Ok(built)
    }

    /// The prepared copies a device run of `plan` binds, built where the tensors lack them.
    pub(super) fn device_prepared(
        &self,
        plan: &Plan,
        inputs: &[Option<&GpuTensor>],
    ) -> Result<Vec<PreparedBinding>, GpuError> {
        let mut out = Vec::new();
        for (index, name, w) in prepared_resources(plan) {
            let Some(t) = inputs.get(index).copied().flatten() else {
                continue; // the argument checks name the missing input
            };
            let (copy, _) = self.prepare_weights_named(t, index, &name, &w)?;
            out.push(PreparedBinding {
                index,
                weights: w,
                buffer: copy.buffer,
            });
        }
        Ok(out)
    }

    /// The prepared copies of the host inputs a host run of `plan` binds.
    pub(super) fn host_prepared(
        &self,
        plan: &Plan,
        inputs: &[Option<&Tensor>],
    ) -> Result<Vec<HostCopy>, GpuError> {
        let mut out = Vec::new();
        for (index, name, w) in prepared_resources(plan) {
            let Some(t) = inputs.get(index).copied().flatten() else {
                continue; // the argument checks name the missing input
            };
            check_source(&t.info(), index, &name, &w)?;
            let bytes = repack_bytes(&t.data, index, &name, &w)?;
            let size = padded(bytes.len() as u64);
            out.push(HostCopy {
                index,
                weights: w,
                bytes,
                size,
            });
        }
        Ok(out)
    }
}
