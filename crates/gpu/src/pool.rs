//! A pool of reusable buffers keyed by size class and usage.
//!
//! Intermediates, uploaded inputs and outputs of host runs, and read-back buffers come from
//! here and go back after the submission that uses them. Reuse across submissions is safe
//! without waiting: every use is ordered on the one queue (WebGPU's queue-order guarantee,
//! including `write_buffer`). Repeated runs of the same plan therefore create no new buffers.

use crate::error::{DeviceEvents, GpuError, Scopes};
use std::collections::HashMap;
use std::sync::Mutex;

/// Usage of storage buffers: bound by passes, written by uploads, read back by copies.
pub(crate) const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);
/// Usage of read-back buffers.
pub(crate) const READBACK: wgpu::BufferUsages =
    wgpu::BufferUsages::MAP_READ.union(wgpu::BufferUsages::COPY_DST);

/// Counters of the pool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Buffers created by the pool since the runtime started.
    pub created: u64,
    /// Bytes of those buffers.
    pub created_bytes: u64,
    /// Buffers idle in the pool now.
    pub free: u64,
    /// Bytes of the idle buffers.
    pub free_bytes: u64,
}

#[derive(Default)]
struct Inner {
    free: HashMap<(u64, wgpu::BufferUsages), Vec<wgpu::Buffer>>,
    stats: PoolStats,
}

/// The pool.
pub(crate) struct BufferPool {
    inner: Mutex<Inner>,
    /// Idle bytes kept at most; buffers released beyond this are dropped.
    max_free_bytes: u64,
}

/// The size class of a request of `n` bytes: the next power of two (at least 256), or `n`
/// rounded up to 4 where that power of two would exceed `max` (the device's maxBufferSize).
pub(crate) fn size_class(n: u64, max: u64) -> u64 {
    let n = n.max(4).div_ceil(4) * 4;
    match n.checked_next_power_of_two() {
        Some(c) if c.max(256) <= max => c.max(256),
        _ => n,
    }
}

impl BufferPool {
    pub fn new(max_free_bytes: u64) -> BufferPool {
        BufferPool {
            inner: Mutex::new(Inner::default()),
            max_free_bytes,
        }
    }

    /// A buffer of at least `bytes` bytes with `usage`, reused when one is idle. `what` names
    /// the buffer's purpose in errors (creation runs inside its own error scopes).
    pub fn acquire(
        &self,
        device: &wgpu::Device,
        events: &DeviceEvents,
        bytes: u64,
        usage: wgpu::BufferUsages,
        max_buffer_size: u64,
        what: &dyn Fn() -> String,
    ) -> Result<wgpu::Buffer, GpuError> {
        let size = size_class(bytes, max_buffer_size);
        if size > max_buffer_size {
            return Err(GpuError::BufferTooLarge {
                what: what(),
                bytes,
                limit_name: "maxBufferSize",
                limit: max_buffer_size,
            });
        }
        if let Ok(mut g) = self.inner.lock() {
            if let Some(b) = g.free.get_mut(&(size, usage)).and_then(Vec::pop) {
                g.stats.free -= 1;
                g.stats.free_bytes -= size;
                return Ok(b);
            }
        }
        let scopes = Scopes::push(device);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&format!("nbits-mlp pool {size} B {usage:?}")),
            size,
            usage,
            mapped_at_creation: false,
        });
        scopes.pop(events, || {
            format!("creating a {size}-byte buffer for {}", what())
        })?;
        if let Ok(mut g) = self.inner.lock() {
            g.stats.created += 1;
            g.stats.created_bytes += size;
        }
        Ok(buffer)
    }

    /// Returns a buffer from [`BufferPool::acquire`] for reuse.
    pub fn release(&self, buffer: wgpu::Buffer) {
        let size = buffer.size();
        if let Ok(mut g) = self.inner.lock() {
            if g.stats.free_bytes + size <= self.max_free_bytes {
                g.stats.free += 1;
                g.stats.free_bytes += size;
                g.free
                    .entry((size, buffer.usage()))
                    .or_default()
                    .push(buffer);
            }
        }
    }

    /// Drops every idle buffer.
    pub fn trim(&self) {
        if let Ok(mut g) = self.inner.lock() {
            g.free.clear();
            g.stats.free = 0;
            g.stats.free_bytes = 0;
        }
    }

    pub fn stats(&self) -> PoolStats {
        self.inner.lock().map(|g| g.stats).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::size_class;

    #[test]
    fn size_classes() {
        assert_eq!(size_class(0, 1 << 30), 256);
        assert_eq!(size_class(257, 1 << 30), 512);
        assert_eq!(size_class(1 << 20, 1 << 30), 1 << 20);
        assert_eq!(size_class((1 << 20) + 1, 1 << 30), 1 << 21);
        // Near the limit: no rounding past it.
        assert_eq!(size_class(1001, 1024), 1024);
        assert_eq!(size_class(1001, 1023), 1004);
    }
}
