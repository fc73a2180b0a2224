//! The plan cache's key and the planner's own fast hash map.

use super::Tunables;
use crate::op::{AttrValue, OpCall};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A small multiplicative hasher for the planner's own maps (short string and byte keys, no
/// untrusted-input concerns: a slow SipHash showed up in cold-plan profiles).
#[derive(Default)]
pub(super) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub(super) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// The cache key of a call planned with `tunables`: every attribute, input dtype and shape,
/// requested output and tunable override, length-prefixed.
pub(super) fn cache_key(call: &OpCall, tunables: &Tunables) -> Vec<u8> {
    let mut k = Vec::with_capacity(256);
    let mut s = |b: &[u8]| {
        k.extend_from_slice(&(b.len() as u32).to_le_bytes());
        k.extend_from_slice(b);
    };
    for (name, v) in &call.attrs {
        s(name.as_bytes());
        match v {
            AttrValue::Int(i) => s(&[&[0u8][..], &i.to_le_bytes()].concat()),
            AttrValue::Float(f) => s(&[&[1u8][..], &f.to_bits().to_le_bytes()].concat()),
            AttrValue::Str(x) => s(&[&[2u8][..], x.as_bytes()].concat()),
            AttrValue::Ints(v) => s(&[3u8]
                .into_iter()
                .chain(v.iter().flat_map(|i| i.to_le_bytes()))
                .collect::<Vec<_>>()),
            AttrValue::Floats(v) => s(&[4u8]
                .into_iter()
                .chain(v.iter().flat_map(|i| i.to_bits().to_le_bytes()))
                .collect::<Vec<_>>()),
        }
    }
    s(b"|inputs");
    for t in &call.inputs {
        match t {
            None => s(&[0xff]),
            Some(t) => s(&[t.dtype as u8]
                .into_iter()
                .chain(t.shape.iter().flat_map(|d| (*d as u64).to_le_bytes()))
                .collect::<Vec<_>>()),
        }
    }
    s(b"|outputs");
    s(&call.outputs.iter().map(|b| *b as u8).collect::<Vec<_>>());
    s(b"|tunables");
    for (n, v) in tunables {
        s(n.as_bytes());
        s(&v.to_le_bytes());
    }
    k
}
