//! Manifest loading and the static check on arbitrary bytes (and on mutations of the seed,
//! through the corpus): errors are fine, panics are not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nbits_mlp_core::Manifest;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(m) = Manifest::from_json(text, "fuzz") {
            let _ = m.check(&[
                "mlp-gate-up.wgsl.jinja",
                "matmul-nbits-fused-rms-norm.wgsl.jinja",
            ]);
        }
    }
});
