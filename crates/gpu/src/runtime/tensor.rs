//! Device tensors ([`GpuTensor`]), byte sizes, and the caller's tensors as a pass binds them.

use crate::error::GpuError;
use nbits_mlp_core::{Plan, Tensor, TensorInfo};

/// A tensor in a device buffer: the buffer holds at least `max(4, bytes rounded up to 4)` bytes,
/// the tensor's little-endian elements first.
#[derive(Clone, Debug)]
pub struct GpuTensor {
    pub(super) buffer: wgpu::Buffer,
    pub(super) info: TensorInfo,
    /// Prepared copies of the tensor for kernels that read another weight layout
    /// (`prepared`), shared by the tensor's clones.
    pub(super) prepared: super::prepared::PreparedCopies,
}

impl GpuTensor {
    /// Wraps an existing buffer; it must have STORAGE usage (COPY_SRC to be downloaded,
    /// COPY_DST to be poisoned) and hold at least `max(4, bytes rounded up to 4)` bytes.
    pub fn from_buffer(buffer: wgpu::Buffer, info: TensorInfo) -> Result<GpuTensor, GpuError> {
        let need = padded(tensor_bytes(&info));
        if buffer.size() < need || !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
            return Err(GpuError::Tensor {
                what: describe(&info),
                message: format!(
                    "the buffer ({} bytes, {:?}) must hold {need} bytes and have STORAGE usage",
                    buffer.size(),
                    buffer.usage()
                ),
            });
        }
        Ok(GpuTensor {
            buffer,
            info,
            prepared: Default::default(),
        })
    }
    /// The buffer.
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }
    /// Dtype and shape.
    pub fn info(&self) -> &TensorInfo {
        &self.info
    }
    /// Bytes of the elements (`numel * dtype size`, before padding).
    pub fn bytes(&self) -> u64 {
        tensor_bytes(&self.info)
    }
}

/// Bytes of a tensor's elements (`numel * dtype size`, before padding).
pub(super) fn tensor_bytes(info: &TensorInfo) -> u64 {
    info.numel() as u64 * info.dtype.size() as u64
}

/// Bytes of a buffer (or binding) for `bytes` of data: rounded up to 4, at least 4.
pub(super) fn padded(bytes: u64) -> u64 {
    bytes.div_ceil(4).max(1) * 4
}

/// A tensor for messages: `tensor f16 [1, 4096]`.
pub(super) fn describe(info: &TensorInfo) -> String {
    format!("tensor {} {:?}", info.dtype, info.shape)
}

/// A caller's tensor as a pass binds it.
#[derive(Clone, Copy)]
pub(super) struct Arg<'a> {
    pub(super) buffer: &'a wgpu::Buffer,
    pub(super) info: &'a TensorInfo,
}

/// Device tensors as their passes bind them.
pub(super) fn device_args<'a>(ts: &[Option<&'a GpuTensor>]) -> Vec<Option<Arg<'a>>> {
    ts.iter()
        .map(|t| {
            t.map(|t| Arg {
                buffer: &t.buffer,
                info: &t.info,
            })
        })
        .collect()
}

/// Args from buffers by slot (`None` where either the slot or the info is).
pub(super) fn slot_args<'a>(
    buffers: &'a [wgpu::Buffer],
    slots: &[Option<usize>],
    infos: &'a [Option<TensorInfo>],
) -> Vec<Option<Arg<'a>>> {
    slots
        .iter()
        .zip(infos)
        .map(|(s, i)| {
            Some(Arg {
                buffer: &buffers[(*s)?],
                info: i.as_ref()?,
            })
        })
        .collect()
}

/// The dtype and shape of each arg.
pub(super) fn arg_infos<'a>(args: &[Option<Arg<'a>>]) -> Vec<Option<&'a TensorInfo>> {
    args.iter().map(|a| a.map(|a| a.info)).collect()
}

/// Borrows each info.
pub(super) fn infos_of(infos: &[Option<TensorInfo>]) -> Vec<Option<&TensorInfo>> {
    infos.iter().map(Option::as_ref).collect()
}

/// The dtype and shape of each output of the plan (ONNX order, `None` where not produced).
pub(super) fn output_infos(plan: &Plan) -> Vec<Option<TensorInfo>> {
    plan.outputs
        .iter()
        .map(|o| o.present.then(|| TensorInfo::new(o.dtype, o.shape.clone())))
        .collect()
}

/// A host tensor of `info`'s dtype and shape with no data (yet).
pub(super) fn empty_host(info: &TensorInfo) -> Tensor {
    Tensor {
        dtype: info.dtype,
        shape: info.shape.clone(),
        data: Vec::new(),
    }
}
