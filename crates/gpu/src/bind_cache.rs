//! A bounded LRU cache of bind groups, keyed by a prepared pass and the buffers it binds.
//!
//! A bind group is an immutable object naming a layout and buffers; two calls binding the same
//! buffers to the same prepared pass can share one. Buffers are compared by identity
//! (`wgpu::Buffer`'s `Eq`/`Hash` are those of the underlying object), and a cached bind group
//! holds its buffers alive, so an identity cannot be reused while its entry exists. Binding
//! offsets and sizes are fixed per prepared pass, so the buffers alone complete the key.
//!
//! The cost: a cached bind group keeps its buffers alive after their owners dropped them, until
//! it is evicted (least recently used first, beyond [`MAX_ENTRIES`] entries or [`MAX_BYTES`]
//! bytes referenced) or [`crate::Runtime::clear_caches`] runs.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Bind groups kept at most.
pub(crate) const MAX_ENTRIES: usize = 256;
/// Bytes the cached bind groups may reference at most (each entry counts the sizes of every
/// buffer it binds), like the buffer pool's 1 GiB of idle buffers.
pub(crate) const MAX_BYTES: u64 = 1 << 30;

struct Entry {
    prep: u64,
    pass: usize,
    buffers: Vec<wgpu::Buffer>,
    group: wgpu::BindGroup,
    bytes: u64,
    used: u64,
}

/// The cache (not synchronised: the runtime keeps it behind a mutex).
#[derive(Default)]
pub(crate) struct BindGroupCache {
    map: HashMap<u64, Vec<Entry>>,
    entries: usize,
    bytes: u64,
    tick: u64,
}

/// The hash of a key: prepared plan id, pass index, bound buffers.
pub(crate) fn key_hash(prep: u64, pass: usize, buffers: &[&wgpu::Buffer]) -> u64 {
    let mut h = DefaultHasher::new();
    (prep, pass).hash(&mut h);
    for b in buffers {
        b.hash(&mut h);
    }
    h.finish()
}

impl BindGroupCache {
    /// The cached bind group of `(prep, pass, buffers)` (`hash` from [`key_hash`]), marked used.
    pub fn get(
        &mut self,
        hash: u64,
        prep: u64,
        pass: usize,
        buffers: &[&wgpu::Buffer],
    ) -> Option<wgpu::BindGroup> {
        self.tick += 1;
        let tick = self.tick;
        let e = self.map.get_mut(&hash)?.iter_mut().find(|e| {
            e.prep == prep
                && e.pass == pass
                && e.buffers.len() == buffers.len()
                && e.buffers.iter().zip(buffers).all(|(a, b)| a == *b)
        })?;
        e.used = tick;
        Some(e.group.clone())
    }

    /// Caches a bind group, evicting the least recently used entries beyond the bounds. An
    /// entry that alone exceeds [`MAX_BYTES`] is not cached.
    pub fn insert(
        &mut self,
        hash: u64,
        prep: u64,
        pass: usize,
        buffers: &[&wgpu::Buffer],
        group: wgpu::BindGroup,
    ) {
        let bytes: u64 = buffers.iter().map(|b| b.size()).sum();
        if bytes > MAX_BYTES {
            return;
        }
        while self.entries > 0 && (self.entries + 1 > MAX_ENTRIES || self.bytes + bytes > MAX_BYTES)
        {
            self.evict_oldest();
        }
        self.tick += 1;
        self.map.entry(hash).or_default().push(Entry {
            prep,
            pass,
            buffers: buffers.iter().map(|b| (*b).clone()).collect(),
            group,
            bytes,
            used: self.tick,
        });
        self.entries += 1;
        self.bytes += bytes;
    }

    fn evict_oldest(&mut self) {
        let oldest = self
            .map
            .iter()
            .flat_map(|(h, v)| v.iter().enumerate().map(move |(i, e)| (e.used, *h, i)))
            .min();
        let Some((_, h, i)) = oldest else {
            self.entries = 0;
            self.bytes = 0;
            return;
        };
        if let Some(v) = self.map.get_mut(&h) {
            let e = v.swap_remove(i);
            self.entries -= 1;
            self.bytes -= e.bytes;
            if v.is_empty() {
                self.map.remove(&h);
            }
        }
    }

    /// Drops every entry.
    pub fn clear(&mut self) {
        self.map.clear();
        self.entries = 0;
        self.bytes = 0;
    }

    /// Entries cached.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_least_recently_used_first() {
        let Some(gpu) = crate::testing::gpu() else {
            return;
        };
        let device = gpu.device();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let buffer = || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 16,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        };
        let group = |b: &wgpu::Buffer| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: b.as_entire_binding(),
                }],
            })
        };
        let mut c = BindGroupCache::default();
        let first = buffer();
        let h = key_hash(0, 0, &[&first]);
        c.insert(h, 0, 0, &[&first], group(&first));
        assert!(c.get(h, 0, 0, &[&first]).is_some());
        assert!(c.get(h, 1, 0, &[&first]).is_none(), "another prepared plan");
        assert!(c.get(h, 0, 1, &[&first]).is_none(), "another pass");
        let mut last = Vec::new();
        for i in 0..MAX_ENTRIES + 10 {
            // Keep the first entry recently used: it survives.
            assert!(c.get(h, 0, 0, &[&first]).is_some(), "after {i} inserts");
            let b = buffer();
            let hb = key_hash(0, 0, &[&b]);
            c.insert(hb, 0, 0, &[&b], group(&b));
            last.push((hb, b));
        }
        assert_eq!(c.len(), MAX_ENTRIES);
        let (h0, b0) = &last[0];
        assert!(c.get(*h0, 0, 0, &[b0]).is_none(), "the oldest was evicted");
        let (hl, bl) = last.last().unwrap();
        assert!(c.get(*hl, 0, 0, &[bl]).is_some());
        c.clear();
        assert_eq!(c.len(), 0);
        assert!(c.get(h, 0, 0, &[&first]).is_none());
    }
}
