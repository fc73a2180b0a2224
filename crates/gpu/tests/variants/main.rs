//! End-to-end verification of the real planner, manifest and templates on the GPU (lavapipe on
//! CI) against the float64 reference: every variant of the seed manifest, restricted device
//! profiles (8 storage buffers, no subgroups), a sweep of shapes, tunables, repeatability, and
//! empty inputs.
//!
//! Every check generates a case with its own seed, runs it with `RunOptions { poison: true }`
//! (outputs pre-filled with NaN bytes, so an element a kernel never writes fails), checks the
//! output shapes and compares `Y` (and `input_skip_bias_sum` when requested) with the
//! reference's unrounded float64 values through `compare::check` (float32
//! `1e-5 * max|Y| + 1e-6`, float16 `2e-3 * max|Y| + 2^-24`).
//!
//! Without a WebGPU adapter these tests fail with a message saying why, unless
//! `NBITS_MLP_SKIP_GPU=1`. `cargo test -p nbits-mlp-gpu --test variants -- --nocapture` prints
//! which case reached each variant, the 8-storage-buffer differences and the sweep.
//!
//! The tests are grouped by topic: `seed` (every variant of the seed manifest, restricted
//! profiles), `sweeps` (shapes, tunables), `runs` (repeatability, empty input, a real size) and
//! `families` (the project manifest's kernel families); `calls` and `check` are what they share.

#[path = "../common/mod.rs"]
mod common;

mod calls;
mod check;
mod families;
mod gemvp;
mod mmal;
mod mmal_emulated;
mod random_emulated;
mod runs;
mod seed;
mod sweeps;
