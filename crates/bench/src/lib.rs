//! Benchmarks of nbits-mlp on a real GPU.
//!
//! - Kernel GPU time from timestamp queries, median of many runs after warm-up, rotating several
//!   independent weight sets so the weights come from device memory, not the L2 cache.
//! - Weight GB/s (packed weights + scales read per call) and its fraction of the copy bandwidth
//!   measured in the same run (a large buffer-to-buffer copy, read + write).
//! - Host overhead per call on a cached plan (validate + record + submit).
//! - The peers' measurement: wall-clock per node of a stack of independent layers through the
//!   public API (what `ort_webgpu_layers.py` measures for ONNX Runtime).
//! - Every shape is checked against the float64 reference on a few rows of one weight set.
//!
//! One module per job:
//!
//! - [`suites`]: the benchmarked shapes ([`BenchShape`]: a model name and its call's
//!   [`nbits_mlp_core::MlpShape`]) and the named suites;
//! - [`inputs`]: random host inputs of a shape with several weight sets, and their device copies;
//! - [`measure`]: timestamp samples, the host-clock cross-check, the wall clock per node, the
//!   reference check;
//! - [`bandwidth`]: the copy bandwidth the weight GB/s are compared with;
//! - [`report`]: what a run records ([`Measurement`], [`Report`], the JSON of `bench --out`);
//! - [`run`](mod@run): one shape or a whole suite, measured into a report;
//! - [`table`], [`plot`](mod@plot), [`results`]: reports as Markdown tables, SVG plots and the
//!   generated results document;
//! - [`tune`]: the search behind `nbits-mlp tune`, built from the pieces of [`inputs`] and
//!   [`measure`] ([`ShapeInputs`], [`DeviceInputs`], [`time_plan`], [`check_reference`]).
#![warn(missing_docs)]

pub mod bandwidth;
pub mod compare;
pub mod inputs;
pub mod measure;
pub mod plot;
pub mod report;
pub mod results;
pub mod run;
pub mod suites;
pub mod table;
pub mod tune;

pub use bandwidth::copy_bandwidth;
pub use inputs::{DeviceInputs, ShapeInputs};
pub use measure::{
    check_reference, median, percentile, sustained_gpu_us, time_plan, wall_per_node, RefCheck,
    RETIME_ATTEMPTS, SUSTAINED_SPAN_US, SUSTAINED_TRIALS, WALL_ITERS, WALL_WARMUP,
};
pub use plot::plot;
pub use report::{BenchConfig, Measurement, Report};
pub use run::{bench_shape, run};
pub use suites::{at_bits, at_block_size, at_rows, shape_suite, suite, BenchShape, LLM_SHAPES};

/// The commit this crate was built from (`git describe --dirty`).
pub const COMMIT: &str = env!("NBITS_MLP_COMMIT");
