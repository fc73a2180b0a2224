//! Transfers: device tensors created, uploaded, written, filled and read back; read-back buffers
//! mapped and copied out.

use super::tensor::{describe, empty_host, padded, tensor_bytes};
use super::{GpuTensor, Runtime};
use crate::error::{GpuError, Scopes};
use crate::pool::{READBACK, STORAGE};
use nbits_mlp_core::{Plan, Tensor, TensorInfo};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Largest read-back buffer [`Runtime::download_into`] packs several tensors into.
const STAGING_CHUNK: u64 = 16 << 20;

/// Bytes per thread below which [`par_copy`] copies on the calling thread.
const PAR_COPY_PIECE: usize = 1 << 20;

/// `dst.copy_from_slice(src)`, split over up to 8 scoped threads for large copies: reading a
/// large output back is otherwise bound by one core's memcpy (~10 GB/s), which at 128+ rows
/// costs more than the GPU's copy to host memory.
fn par_copy(dst: &mut [u8], src: &[u8]) {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8)
        .min(dst.len() / PAR_COPY_PIECE);
    if threads < 2 {
        dst.copy_from_slice(src);
        return;
    }
    let piece = dst.len().div_ceil(threads);
    std::thread::scope(|s| {
        for (d, c) in dst.chunks_mut(piece).zip(src.chunks(piece)) {
            s.spawn(move || d.copy_from_slice(c));
        }
    });
}

/// Writes `data` at the start of `buffer`, zero-padding the last word.
pub(super) fn write_padded(queue: &wgpu::Queue, buffer: &wgpu::Buffer, data: &[u8]) {
    let aligned = data.len() / 4 * 4;
    if aligned > 0 {
        queue.write_buffer(buffer, 0, &data[..aligned]);
    }
    if aligned < data.len() {
        let mut tail = [0u8; 4];
        tail[..data.len() - aligned].copy_from_slice(&data[aligned..]);
        queue.write_buffer(buffer, aligned as u64, &tail);
    }
}

impl Runtime {
    fn check_tensor_size(
        &self,
        what: &dyn Fn() -> String,
        info: &TensorInfo,
    ) -> Result<u64, GpuError> {
        let bytes = padded(tensor_bytes(info));
        for name in ["maxBufferSize", "maxStorageBufferBindingSize"] {
            let limit = self.limit(name);
            if bytes > limit {
                return Err(GpuError::BufferTooLarge {
                    what: what(),
                    bytes,
                    limit_name: name,
                    limit,
                });
            }
        }
        Ok(bytes)
    }

    pub(super) fn create_tensor_buffer(
        &self,
        what: &dyn Fn() -> String,
        info: &TensorInfo,
        data: Option<&[u8]>,
    ) -> Result<GpuTensor, GpuError> {
        self.gpu.check_lost()?;
        let bytes = self.check_tensor_size(what, info)?;
        let device = self.gpu.device();
        let scopes = Scopes::push(device);
        let label = what();
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&label),
            size: bytes,
            usage: STORAGE,
            mapped_at_creation: false,
        });
        if let Some(d) = data {
            write_padded(self.gpu.queue(), &buffer, d);
        }
        scopes.pop(&self.gpu.events, || {
            format!("creating the buffer of {label}")
        })?;
        Ok(GpuTensor {
            buffer,
            info: info.clone(),
            prepared: Default::default(),
        })
    }

    /// Uploads a host tensor into a new device buffer (zero-padded to a multiple of 4 bytes).
    /// Errors if it exceeds the profile's maxBufferSize or maxStorageBufferBindingSize.
    pub fn upload(&self, t: &Tensor) -> Result<GpuTensor, GpuError> {
        self.upload_labeled(t, &describe(&t.info()))
    }

    /// [`Runtime::upload`] with a label naming the tensor in errors and in wgpu's messages.
    pub fn upload_labeled(&self, t: &Tensor, label: &str) -> Result<GpuTensor, GpuError> {
        let info = t.info();
        if t.data.len() as u64 != tensor_bytes(&info) {
            return Err(GpuError::Tensor {
                what: label.into(),
                message: format!(
                    "holds {} bytes, {} needs {}",
                    t.data.len(),
                    describe(&info),
                    tensor_bytes(&info)
                ),
            });
        }
        self.create_tensor_buffer(&|| label.to_string(), &info, Some(&t.data))
    }

    /// A new zero-filled device tensor.
    pub fn alloc(&self, info: TensorInfo) -> Result<GpuTensor, GpuError> {
        let label = describe(&info);
        self.create_tensor_buffer(&|| label.clone(), &info, None)
    }

    /// Device tensors for every output the plan produces (ONNX order, `None` where not).
    pub fn alloc_outputs(&self, plan: &Plan) -> Result<Vec<Option<GpuTensor>>, GpuError> {
        plan.outputs
            .iter()
            .map(|o| {
                if !o.present {
                    return Ok(None);
                }
                let info = TensorInfo::new(o.dtype, o.shape.clone());
                let label = format!("output {} `{}` ({})", o.index, o.onnx, describe(&info));
                self.create_tensor_buffer(&|| label.clone(), &info, None)
                    .map(Some)
            })
            .collect()
    }

    /// Fills a device tensor's buffer with `byte` (0xFF: NaN poison).
    pub fn fill(&self, t: &GpuTensor, byte: u8) -> Result<(), GpuError> {
        let scopes = Scopes::push(self.gpu.device());
        self.gpu
            .queue()
            .write_buffer(&t.buffer, 0, &vec![byte; padded(t.bytes()) as usize]);
        self.gpu.queue().submit([]);
        scopes.pop(&self.gpu.events, || {
            format!("filling {}", describe(&t.info))
        })
    }

    /// Reads a device tensor back (waits for all work submitted before).
    pub fn download(&self, t: &GpuTensor) -> Result<Tensor, GpuError> {
        let mut out = empty_host(&t.info);
        self.download_into(&[t], std::slice::from_mut(&mut out))?;
        Ok(out)
    }

    /// Reads several device tensors back, in the order given (empty tensors with no data),
    /// with one copy submission and one wait ([`Runtime::download_into`] into new host
    /// tensors). For outputs read back again and again, [`Runtime::download_into`] with host
    /// tensors that live across calls avoids allocating and first-touching fresh memory, which
    /// dominates for large outputs (16 x 14.7 MB: 250 ms fresh vs 100 ms reused on lavapipe).
    pub fn download_many(&self, tensors: &[&GpuTensor]) -> Result<Vec<Tensor>, GpuError> {
        let mut out: Vec<Tensor> = tensors.iter().map(|t| empty_host(&t.info)).collect();
        self.download_into(tensors, &mut out)?;
        Ok(out)
    }

    /// Reads device tensors back into existing host tensors (`dst[i]` gets `src[i]`: dtype,
    /// shape and data replaced, the data's allocation reused when it is large enough), with one
    /// copy submission and one wait: tensors are packed into pooled read-back buffers of at
    /// most 16 MiB (a larger tensor gets its own). For outputs read back again and again (a
    /// decode loop), this avoids allocating and first-touching fresh host memory on every call.
    /// Waits for all work submitted before. On error the host tensors' contents are
    /// unspecified (their count must match `src`, checked first, which leaves them alone).
    pub fn download_into(&self, src: &[&GpuTensor], dst: &mut [Tensor]) -> Result<(), GpuError> {
        if src.len() != dst.len() {
            return Err(GpuError::Tensor {
                what: "download_into".into(),
                message: format!(
                    "{} device tensors but {} host tensors",
                    src.len(),
                    dst.len()
                ),
            });
        }
        self.gpu.check_lost()?;
        let (place, chunks) = pack_staging(src);
        shape_hosts(src, dst);
        if chunks.is_empty() {
            return Ok(());
        }
        // Errors name the tensors of the read-back buffer at fault.
        let what = |c: usize| staging_name(src, &place, c);
        let max = self.limit("maxBufferSize");
        let device = self.gpu.device();
        let mut staging = Vec::with_capacity(chunks.len());
        for (i, &n) in chunks.iter().enumerate() {
            staging.push(self.pool.acquire(
                device,
                &self.gpu.events,
                n,
                READBACK,
                max.max(n),
                &|| what(i),
            )?);
        }
        let scopes = Scopes::push(device);
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("download_into"),
        });
        for (t, p) in src.iter().zip(&place) {
            if let Some((c, off)) = *p {
                enc.copy_buffer_to_buffer(&t.buffer, 0, &staging[c], off, padded(t.bytes()));
            }
        }
        self.gpu.queue().submit([enc.finish()]);
        let popped = scopes.pop(&self.gpu.events, || match src {
            [t] => format!("download of {}", describe(&t.info)),
            _ => format!("downloading {} tensors", src.len()),
        });
        let read = popped.and_then(|()| {
            let items: Vec<(&wgpu::Buffer, u64)> =
                staging.iter().zip(&chunks).map(|(b, n)| (b, *n)).collect();
            self.read_back_each(&items, &what, &mut |c, data| {
                for (p, out) in place.iter().zip(dst.iter_mut()) {
                    if let Some((pc, off)) = *p {
                        if pc == c {
                            let off = off as usize;
                            let len = out.data.len();
                            par_copy(&mut out.data, &data[off..off + len]);
                        }
                    }
                }
            })
        });
        for rb in staging {
            self.pool.release(rb);
        }
        read
    }

    /// Overwrites a device tensor with a host tensor of the same dtype and shape (zero-padded
    /// to a multiple of 4 bytes), through the queue: ordered before every later submission,
    /// nothing submitted, no wait. The device tensor's buffer needs COPY_DST usage (every
    /// tensor this runtime creates has it).
    pub fn write_tensor(&self, dst: &GpuTensor, src: &Tensor) -> Result<(), GpuError> {
        self.gpu.check_lost()?;
        let info = src.info();
        if info != dst.info || src.data.len() as u64 != tensor_bytes(&info) {
            return Err(GpuError::Tensor {
                what: describe(&dst.info),
                message: format!(
                    "cannot be overwritten by {} holding {} bytes",
                    describe(&info),
                    src.data.len()
                ),
            });
        }
        if src.data.is_empty() {
            return Ok(());
        }
        let scopes = Scopes::push(self.gpu.device());
        write_padded(self.gpu.queue(), &dst.buffer, &src.data);
        // The tensor's prepared copies were made from its old bytes.
        dst.prepared.clear();
        scopes.pop(&self.gpu.events, || {
            format!("writing {}", describe(&dst.info))
        })
    }

    /// Maps read-back buffers (`(buffer, bytes)`), waits, and copies their contents out.
    pub(super) fn read_back(
        &self,
        items: &[(&wgpu::Buffer, u64)],
        what: &dyn Fn(usize) -> String,
    ) -> Result<Vec<Vec<u8>>, GpuError> {
        let mut out = vec![Vec::new(); items.len()];
        self.read_back_each(items, what, &mut |i, data| out[i] = data.to_vec())?;
        Ok(out)
    }

    /// Polls the device until every map callback has run (or 30 s have passed).
    fn wait_for_maps(&self, slots: &[MapSlot]) -> Result<(), GpuError> {
        self.wait_idle()?;
        // With several threads on one device, another thread's poll may be the one running our
        // callbacks, and may still be running them when our poll returns: poll again, briefly.
        let deadline = Instant::now() + std::time::Duration::from_secs(30);
        while slots
            .iter()
            .any(|s| s.lock().map(|s| s.is_none()).unwrap_or(false))
            && Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_micros(200));
            self.wait_idle()?;
        }
        Ok(())
    }

    /// Maps read-back buffers (`(buffer, bytes)`), waits once, and hands each mapped range to
    /// `f(index, bytes)` before unmapping it.
    pub(super) fn read_back_each(
        &self,
        items: &[(&wgpu::Buffer, u64)],
        what: &dyn Fn(usize) -> String,
        f: &mut dyn FnMut(usize, &[u8]),
    ) -> Result<(), GpuError> {
        let slots = map_for_reading(items);
        self.wait_for_maps(&slots)?;
        for (i, ((b, n), slot)) in items.iter().zip(&slots).enumerate() {
            let state = slot.lock().ok().and_then(|mut s| s.take());
            match state {
                Some(Ok(())) => {
                    let view = b.get_mapped_range(0..*n).map_err(|e| GpuError::Map {
                        what: what(i),
                        message: e.to_string(),
                    })?;
                    f(i, &view);
                    drop(view);
                    b.unmap();
                }
                Some(Err(e)) => {
                    return Err(GpuError::Map {
                        what: what(i),
                        message: e.to_string(),
                    })
                }
                None => {
                    return Err(GpuError::Map {
                        what: what(i),
                        message: "the map callback never ran".into(),
                    })
                }
            }
        }
        Ok(())
    }
}

/// The outcome of one buffer's `map_async`, set by its callback.
type MapSlot = Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>;

/// Starts mapping each read-back buffer (`(buffer, bytes)`) for reading; its slot is set when
/// its callback runs.
fn map_for_reading(items: &[(&wgpu::Buffer, u64)]) -> Vec<MapSlot> {
    let slots: Vec<MapSlot> = items.iter().map(|_| Arc::new(Mutex::new(None))).collect();
    for ((b, n), slot) in items.iter().zip(&slots) {
        let slot = slot.clone();
        b.map_async(wgpu::MapMode::Read, 0..*n, move |r| {
            if let Ok(mut s) = slot.lock() {
                *s = Some(r);
            }
        });
    }
    slots
}

/// Where [`Runtime::download_into`] puts each tensor: `(read-back buffer, offset)`, `None` for
/// an empty tensor; and the size of each read-back buffer. Tensors are packed into buffers of
/// at most [`STAGING_CHUNK`] bytes (a larger tensor gets its own), so there is one copy
/// submission, one wait, and every buffer mapped once.
fn pack_staging(src: &[&GpuTensor]) -> (Vec<Option<(usize, u64)>>, Vec<u64>) {
    let mut place: Vec<Option<(usize, u64)>> = Vec::with_capacity(src.len());
    let mut chunks: Vec<u64> = Vec::new();
    for t in src {
        if t.bytes() == 0 {
            place.push(None);
            continue;
        }
        let n = padded(t.bytes());
        let last = chunks.len().wrapping_sub(1);
        match chunks.last_mut() {
            Some(size) if *size + n <= STAGING_CHUNK => {
                place.push(Some((last, *size)));
                *size += n;
            }
            _ => {
                place.push(Some((chunks.len(), 0)));
                chunks.push(n);
            }
        }
    }
    (place, chunks)
}

/// Gives each host tensor its device tensor's dtype and shape, and data of its size (the
/// allocation reused when it is large enough).
fn shape_hosts(src: &[&GpuTensor], dst: &mut [Tensor]) {
    for (t, out) in src.iter().zip(dst.iter_mut()) {
        out.dtype = t.info.dtype;
        out.shape.clone_from(&t.info.shape);
        let bytes = t.bytes() as usize;
        if out.data.capacity() < bytes {
            // Zeroed by the allocator (no separate fill of memory about to be overwritten).
            out.data = vec![0; bytes];
        } else {
            out.data.resize(bytes, 0);
        }
    }
}

/// Read-back buffer `c` of [`pack_staging`]'s `place`, for messages: `download of tensor f32
/// [8] and 3 more tensors`.
fn staging_name(src: &[&GpuTensor], place: &[Option<(usize, u64)>], c: usize) -> String {
    let mut held = src
        .iter()
        .zip(place)
        .filter(|(_, p)| matches!(p, Some((pc, _)) if *pc == c));
    let first = held
        .next()
        .map(|(t, _)| describe(&t.info))
        .unwrap_or_default();
    match held.count() {
        0 => format!("download of {first}"),
        more => format!("download of {first} and {more} more tensors"),
    }
}
