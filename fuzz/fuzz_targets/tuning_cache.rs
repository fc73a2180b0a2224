//! Tuning-cache files on arbitrary bytes: parsing, the staleness check, lookups for a few calls
//! and the JSON round trip. Errors are fine, panics are not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nbits_mlp_core::tuning::TuningCache;
use nbits_mlp_core::{DType, Manifest, MlpShape};
use std::path::Path;
use std::sync::OnceLock;

fn manifest() -> &'static Manifest {
    static M: OnceLock<Manifest> = OnceLock::new();
    M.get_or_init(Manifest::project)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(cache) = TuningCache::from_json(text, Path::new("fuzz.json")) else {
        return;
    };
    let _ = cache.check(&cache.device.clone(), "0000000000000000");
    for rows in [0usize, 1, 16, 512] {
        let mut s = MlpShape::new(4096, 14336, rows);
        s.dtype = DType::F16;
        let _ = cache.tunables_for(&s.call(), manifest());
    }
    let again = TuningCache::from_json(&cache.to_json(), Path::new("again.json"))
        .expect("a cache's own JSON parses");
    assert_eq!(again.entries.len(), cache.entries.len());
});
