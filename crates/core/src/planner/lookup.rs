//! Lookup tables over one manifest, built once per planner: derive entries and shared `when`
//! values are found by position during a plan, not by hashing names and texts.

use super::cache::FastMap;
use crate::manifest::Manifest;

/// Lookup tables over one manifest, built with the planner so that a plan finds derive entries
/// and shared `when` values by position rather than by hashing and comparing names and texts.
pub(super) struct Lookup {
    /// Global derive name -> its position in [`Manifest::derive`].
    pub(super) global: FastMap<String, usize>,
    /// Per variant, in manifest order.
    pub(super) variants: Vec<VariantLookup>,
    /// Number of distinct `when` texts that some variant may share.
    pub(super) when_slots: usize,
}

/// [`Lookup`]'s tables for one variant.
pub(super) struct VariantLookup {
    /// Local derive name -> its position in [`crate::manifest::Variant::derive`].
    pub(super) local: FastMap<String, usize>,
    /// Per global derive position: whether its value may differ in this variant
    /// ([`crate::manifest::Variant::shadow_sensitive`]).
    pub(super) shadow: Vec<bool>,
    /// Per `when` item: the slot of its text when its value cannot depend on the variant
    /// ([`crate::manifest::Variant::when_shared`]), shared by every such item with the same text.
    pub(super) when_slot: Vec<Option<usize>>,
}

impl Lookup {
    pub(super) fn new(m: &Manifest) -> Lookup {
        let global: FastMap<String, usize> = m
            .derive
            .keys()
            .enumerate()
            .map(|(i, k)| (k.clone(), i))
            .collect();
        let mut slots: FastMap<&str, usize> = FastMap::default();
        let variants = m
            .variants
            .iter()
            .map(|v| VariantLookup {
                local: v
                    .derive
                    .keys()
                    .enumerate()
                    .map(|(i, k)| (k.clone(), i))
                    .collect(),
                shadow: m
                    .derive
                    .keys()
                    .map(|k| v.shadow_sensitive.contains(k))
                    .collect(),
                when_slot: v
                    .when
                    .iter()
                    .enumerate()
                    .map(|(i, w)| {
                        v.when_shared.get(i).copied().unwrap_or(false).then(|| {
                            let next = slots.len();
                            *slots.entry(w.source()).or_insert(next)
                        })
                    })
                    .collect(),
            })
            .collect();
        Lookup {
            global,
            variants,
            when_slots: slots.len(),
        }
    }
}
