//! The kernel manifest: its JSON model (serde, key order kept, unknown keys rejected with their
//! JSON path), every expression parsed once at load, and a static check.
//!
//! - `model`: the JSON model of the seed manifest and the overlay (the serde types);
//! - `compiled`: [`Manifest`], the model with its expressions parsed;
//! - `load`: JSON text (and an overlay) to a [`Manifest`];
//! - `derive`: derive scopes, cycles and the depth bound ([`MAX_DERIVE_DEPTH`]);
//! - `check`: the static check ([`Manifest::check`]);
//! - `error`: [`ManifestError`].

mod check;
mod compiled;
mod derive;
mod error;
mod load;
mod model;

pub use compiled::*;
pub use derive::MAX_DERIVE_DEPTH;
pub use error::ManifestError;
pub use model::*;

/// The seed manifest shipped with the project (byte for byte the spec's).
pub const SEED_MANIFEST: &str = include_str!("../../../../manifest/matmul_nbits_mlp.manifest.json");

/// The project's overlay: its own variants and tunable candidates, merged beside the seed.
pub const PROJECT_OVERLAY: &str = include_str!("../../../../manifest/nbits-mlp.overlay.json");
