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
#![warn(missing_docs)]

mod plot;

pub use plot::plot;

use anyhow::{anyhow, Context, Result};
use nbits_mlp_core::{AttrValue, DType, Plan, Tensor, Tunables};
use nbits_mlp_gpu::{GpuTensor, Runtime};
use nbits_mlp_reference::{compare, mlp};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The commit this crate was built from (`git describe --dirty`).
pub const COMMIT: &str = env!("NBITS_MLP_COMMIT");

/// The LLM gate/up shapes of the spec (model, K, N).
pub const LLM_SHAPES: &[(&str, usize, usize)] = &[
    ("Qwen2.5-0.5B", 896, 4864),
    ("Llama-3.2-1B", 2048, 8192),
    ("Qwen3-1.7B", 2048, 6144),
    ("Phi-3-mini", 3072, 8192),
    ("Qwen2.5-7B", 3584, 18944),
    ("Llama-3.1-8B", 4096, 14336),
    ("Llama-3.1-70B", 8192, 28672),
];

/// One benchmarked configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchShape {
    /// Model the shape comes from.
    pub model: String,
    /// K.
    pub k: usize,
    /// N.
    pub n: usize,
    /// Rows of A.
    pub rows: usize,
    /// T1.
    pub dtype: DType,
    /// Bits per weight.
    pub bits: usize,
    /// Block size.
    pub block_size: usize,
    /// With skip + norm_scale + residual output (else plain).
    pub norm: bool,
}

impl BenchShape {
    /// Packed weight + scale bytes read per call (gate and up).
    pub fn weight_bytes(&self) -> u64 {
        let kb = self.k.div_ceil(self.block_size) as u64;
        let blob = (self.block_size * self.bits / 8) as u64;
        2 * self.n as u64 * kb * (blob + self.dtype.size() as u64)
    }
    /// A short label (`Llama-3.1-8B r1 f16 q4 norm`).
    pub fn label(&self) -> String {
        format!(
            "{} r{} {} q{}{}",
            self.model,
            self.rows,
            if self.dtype == DType::F16 {
                "f16"
            } else {
                "f32"
            },
            self.bits,
            if self.norm { " norm" } else { "" }
        )
    }
}

/// A named suite of shapes: `decode` (Llama-3.1-8B at rows 1 and 128, f16, with norm: the
/// targets), `llama8b` (that shape at rows 1, 16, 128, 512, with and without norm), `quick` (every LLM shape at rows 1 and 128, f16, with norm, plus bits 2/8 at rows 1),
/// or `full` (every LLM shape at rows 1, 16, 128, 512, f16 and f32, with and without norm, 4-bit
/// block 32, plus 2- and 8-bit for the decode shape).
pub fn suite(name: &str) -> Result<Vec<BenchShape>> {
    let mk = |model: &str, k, n, rows, dtype, bits, norm| BenchShape {
        model: model.into(),
        k,
        n,
        rows,
        dtype,
        bits,
        block_size: 32,
        norm,
    };
    let mut v = Vec::new();
    match name {
        "smoke" => {
            for rows in [1, 16] {
                v.push(mk("small", 512, 1024, rows, DType::F16, 4, true));
            }
        }
        "decode" => {
            for rows in [1, 128] {
                v.push(mk("Llama-3.1-8B", 4096, 14336, rows, DType::F16, 4, true));
            }
        }
        "llama8b" => {
            for rows in [1, 16, 128, 512] {
                for norm in [true, false] {
                    v.push(mk("Llama-3.1-8B", 4096, 14336, rows, DType::F16, 4, norm));
                }
            }
        }
        "quick" => {
            for &(m, k, n) in LLM_SHAPES {
                for rows in [1, 128] {
                    v.push(mk(m, k, n, rows, DType::F16, 4, true));
                }
            }
            for bits in [2, 8] {
                v.push(mk("Llama-3.1-8B", 4096, 14336, 1, DType::F16, bits, true));
            }
        }
        "full" => {
            for &(m, k, n) in LLM_SHAPES {
                for rows in [1, 16, 128, 512] {
                    for dtype in [DType::F16, DType::F32] {
                        for norm in [true, false] {
                            v.push(mk(m, k, n, rows, dtype, 4, norm));
                        }
                    }
                }
            }
            for bits in [2, 8] {
                for norm in [true, false] {
                    v.push(mk("Llama-3.1-8B", 4096, 14336, 1, DType::F16, bits, norm));
                }
            }
        }
        other => {
            return Err(anyhow!(
                "unknown suite `{other}` (smoke, decode, llama8b, quick, full)"
            ))
        }
    }
    Ok(v)
}

/// Benchmark settings.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchConfig {
    /// Independent weight sets rotated through (at least 4 so the weights exceed the L2).
    pub weight_sets: usize,
    /// Timed rounds (each one submission running every weight set once, back to back).
    pub rounds: usize,
    /// Layers in the peers' wall-clock measurement (0 to skip it).
    pub layers: usize,
    /// Calls for the host-overhead measurement.
    pub host_reps: usize,
    /// Tunable overrides.
    pub tunables: Tunables,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            weight_sets: 4,
            rounds: 50,
            layers: 16,
            host_reps: 200,
            tunables: Tunables::new(),
        }
    }
}

/// Result for one shape.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measurement {
    /// The shape.
    pub shape: BenchShape,
    /// Variant that ran.
    pub variant: String,
    /// Median GPU time per call, µs.
    pub gpu_us: f64,
    /// 10th percentile, µs.
    pub gpu_us_p10: f64,
    /// 90th percentile, µs.
    pub gpu_us_p90: f64,
    /// Timed calls.
    pub samples: usize,
    /// Weight + scale bytes per call.
    pub weight_bytes: u64,
    /// Weight GB/s at the median.
    pub weight_gbps: f64,
    /// Fraction of the measured copy bandwidth (read + write).
    pub copy_fraction: f64,
    /// Median host time per call on a cached plan (record + submit), µs.
    pub host_us: f64,
    /// Peers' measure: wall-clock per node of a stack of `layers` layers, µs.
    pub wall_per_node_us: Option<f64>,
    /// Max abs error of the checked rows against the float64 reference.
    pub max_abs_err: f64,
    /// Tolerance used.
    pub tolerance: f64,
    /// Rows checked against the reference.
    pub checked_rows: usize,
}

/// A whole benchmark run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// Adapter name.
    pub gpu: String,
    /// Backend.
    pub backend: String,
    /// Driver and its info.
    pub driver: String,
    /// Commit the binary was built from.
    pub commit: String,
    /// UTC date and time of the run.
    pub date: String,
    /// Settings.
    pub config: BenchConfig,
    /// Buffer-to-buffer copy bandwidth, read + write, GB/s.
    pub copy_gbps: f64,
    /// How the copy was timed.
    pub copy_method: String,
    /// One entry per shape.
    pub measurements: Vec<Measurement>,
}

fn median(v: &mut [f64]) -> f64 {
    percentile(v, 0.5)
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// Fast deterministic fill (SplitMix64), parallel over chunks.
fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut out = vec![0u8; len];
    out.par_chunks_mut(1 << 16)
        .enumerate()
        .for_each(|(ci, chunk)| {
            let mut s = seed ^ (ci as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            for c in chunk.chunks_mut(8) {
                s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = s;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                c.copy_from_slice(&z.to_le_bytes()[..c.len()]);
            }
        });
    out
}

/// Uniform floats in [lo, hi) from random bytes.
fn random_floats(n: usize, lo: f32, hi: f32, seed: u64) -> Vec<f32> {
    random_bytes(n * 4, seed)
        .chunks_exact(4)
        .map(|c| {
            lo + (hi - lo) * (u32::from_le_bytes([c[0], c[1], c[2], c[3]]) >> 8) as f32
                / (1u32 << 24) as f32
        })
        .collect()
}

/// Inputs of one shape: activations shared, `sets` independent weight sets (ONNX order).
struct Inputs {
    attrs: indexmap::IndexMap<String, AttrValue>,
    shared: Vec<Option<Tensor>>,
    weights: Vec<[Tensor; 4]>,
}

fn make_inputs(s: &BenchShape, sets: usize) -> Inputs {
    let kb = s.k.div_ceil(s.block_size);
    let blob = s.block_size * s.bits / 8;
    let scale = 3f32.sqrt() / ((1u32 << (s.bits - 1)) as f32 * (s.k as f32).sqrt());
    let f = s.dtype;
    let a = Tensor::from_floats(
        f,
        vec![s.rows, s.k],
        &random_floats(s.rows * s.k, -1.0, 1.0, 1),
    );
    let shared = vec![
        Some(a),
        s.norm.then(|| {
            Tensor::from_floats(
                f,
                vec![s.rows, s.k],
                &random_floats(s.rows * s.k, -1.0, 1.0, 2),
            )
        }),
        s.norm
            .then(|| Tensor::from_floats(f, vec![s.k], &random_floats(s.k, 0.5, 1.5, 3))),
    ];
    let weights = (0..sets)
        .map(|i| {
            let seed = 100 + 10 * i as u64;
            let w = |o: u64| {
                Tensor::from_u8(vec![s.n, kb, blob], random_bytes(s.n * kb * blob, seed + o))
            };
            let sc = |o: u64| {
                let v: Vec<f32> = random_floats(s.n * kb, -1.5, 1.5, seed + o)
                    .into_iter()
                    .map(|x| x.signum() * (0.5 + x.abs() * 0.667) * scale)
                    .collect();
                Tensor::from_floats(f, vec![s.n, kb], &v)
            };
            [w(1), sc(2), w(3), sc(4)]
        })
        .collect();
    let mut shape = nbits_mlp_core::MlpShape::new(s.k, s.n, s.rows);
    shape.bits = s.bits;
    shape.block_size = s.block_size;
    let attrs = shape.call().attrs;
    Inputs {
        attrs,
        shared,
        weights,
    }
}

impl Inputs {
    fn host_refs(&self, set: usize) -> Vec<Option<&Tensor>> {
        let w = &self.weights[set];
        vec![
            self.shared[0].as_ref(),
            self.shared[1].as_ref(),
            self.shared[2].as_ref(),
            Some(&w[0]),
            Some(&w[1]),
            None,
            Some(&w[2]),
            Some(&w[3]),
            None,
        ]
    }
}

const COPY_WGSL: &str = "
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let stride = nwg.x * 256u;
    for (var i = gid.x; i < arrayLength(&src); i = i + stride) {
        dst[i] = src[i];
    }
}
";

fn read_ticks(
    rt: &Runtime,
    qs: &wgpu::QuerySet,
    count: u32,
    mut enc: wgpu::CommandEncoder,
) -> Result<Vec<u64>> {
    let device = rt.gpu().device();
    let bytes = 8 * count as u64;
    let resolve = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let rb = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    enc.resolve_query_set(qs, 0..count, &resolve, 0);
    enc.copy_buffer_to_buffer(&resolve, 0, &rb, 0, bytes);
    rt.gpu().queue().submit([enc.finish()]);
    rb.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| anyhow!("poll: {e}"))?;
    let data = rb
        .slice(..)
        .get_mapped_range()
        .map_err(|e| anyhow!("map: {e:?}"))?
        .to_vec();
    Ok(data
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

/// GB/s of `bytes` moved by what `record` records between timestamp 0 and timestamp 1 of a
/// fresh query set: one submission per round on an idle device, first round dropped as warm-up,
/// median of the other five.
fn copy_span_gbps(
    rt: &Runtime,
    bytes: u64,
    record: impl Fn(&mut wgpu::CommandEncoder, &wgpu::QuerySet),
) -> Result<f64> {
    let device = rt.gpu().device();
    let period = rt.gpu().queue().get_timestamp_period() as f64;
    let mut spans = Vec::new();
    for round in 0..6 {
        let qs = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: None,
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let mut enc = device.create_command_encoder(&Default::default());
        record(&mut enc, &qs);
        let t = read_ticks(rt, &qs, 2, enc)?;
        if round > 0 {
            spans.push(bytes as f64 / (t[1].saturating_sub(t[0]) as f64 * period));
        }
    }
    Ok(median(&mut spans))
}

/// Copy bandwidth (read + write, GB/s): the better of a large buffer-to-buffer copy (timed with
/// encoder timestamps, when the device allows them) and a compute-shader copy (timed with pass
/// timestamps); each is a span over 10 back-to-back copies started on an idle device, median of
/// 5 such spans. Returns the bandwidth and how it was measured.
pub fn copy_bandwidth(rt: &Runtime) -> Result<(f64, String)> {
    let gpu = rt.gpu();
    let device = gpu.device();
    let size: u64 = (1u64 << 30)
        .min(gpu.limits().max_buffer_size)
        .min(gpu.limits().max_storage_buffer_binding_size)
        / 16
        * 16;
    let mk = |usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("copy bench"),
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let src = mk(wgpu::BufferUsages::COPY_SRC
        | wgpu::BufferUsages::COPY_DST
        | wgpu::BufferUsages::STORAGE);
    let dst = mk(wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::STORAGE);
    let reps = 10u32;
    let mut results: Vec<(f64, String)> = Vec::new();
    if !gpu.has_timestamps() {
        return Err(anyhow!(
            "the device has no timestamp queries: cannot time the copy"
        ));
    }
    if gpu
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    {
        let gbps = copy_span_gbps(rt, 2 * size * u64::from(reps), |enc, qs| {
            enc.write_timestamp(qs, 0);
            for _ in 0..reps {
                enc.copy_buffer_to_buffer(&src, 0, &dst, 0, size);
            }
            enc.write_timestamp(qs, 1);
        })?;
        results.push((
            gbps,
            format!(
                "{} MiB buffer-to-buffer copy x{reps}, encoder timestamps",
                size >> 20
            ),
        ));
    }
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("copy"),
        source: wgpu::ShaderSource::Wgsl(COPY_WGSL.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("copy"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: src.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: dst.as_entire_binding(),
            },
        ],
    });
    let groups = (size / 16 / 256).min(65535) as u32;
    let gbps = copy_span_gbps(rt, 2 * size * u64::from(reps), |enc, qs| {
        for i in 0..reps {
            let (begin, end) = ((i == 0).then_some(0), (i + 1 == reps).then_some(1));
            let tw =
                (begin.is_some() || end.is_some()).then_some(wgpu::ComputePassTimestampWrites {
                    query_set: qs,
                    beginning_of_pass_write_index: begin,
                    end_of_pass_write_index: end,
                });
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("copy"),
                timestamp_writes: tw,
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bg, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
        }
    })?;
    results.push((
        gbps,
        format!(
            "{} MiB compute-shader copy x{reps}, pass timestamps",
            size >> 20
        ),
    ));
    let note = results
        .iter()
        .map(|(g, m)| format!("{m}: {g:.0} GB/s"))
        .collect::<Vec<_>>()
        .join("; ");
    let best = results.iter().map(|r| r.0).fold(0.0, f64::max);
    Ok((best, format!("best of: {note}")))
}

/// Benchmarks one shape.
pub fn bench_shape(
    rt: &Runtime,
    s: &BenchShape,
    cfg: &BenchConfig,
    copy_gbps: f64,
    log: &mut dyn FnMut(&str),
) -> Result<Measurement> {
    let sets = cfg.weight_sets.max(cfg.layers).max(1);
    log(&format!(
        "{}: generating {} weight sets ({:.0} MB each)",
        s.label(),
        sets,
        s.weight_bytes() as f64 / 1e6
    ));
    let inputs = make_inputs(s, sets);
    let want = [true, s.norm];
    let call = Runtime::op_call(&inputs.attrs, &inputs.host_refs(0), &want);
    let plan: std::sync::Arc<Plan> = rt
        .plan(&call, &cfg.tunables)
        .with_context(|| format!("planning {}", s.label()))?;
    log(&format!(
        "{}: variant {}, uploading",
        s.label(),
        plan.variant
    ));
    let shared: Vec<Option<GpuTensor>> = inputs
        .shared
        .iter()
        .map(|t| t.as_ref().map(|t| rt.upload(t)).transpose())
        .collect::<Result<_, _>>()?;
    let weights: Vec<Vec<GpuTensor>> = inputs
        .weights
        .iter()
        .map(|w| {
            w.iter()
                .map(|t| rt.upload(t))
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<_, _>>()?;
    let outputs: Vec<Vec<Option<GpuTensor>>> = (0..sets)
        .map(|_| rt.alloc_outputs(&plan))
        .collect::<Result<_, _>>()?;
    let ins = |i: usize| -> Vec<Option<&GpuTensor>> {
        let w = &weights[i];
        vec![
            shared[0].as_ref(),
            shared[1].as_ref(),
            shared[2].as_ref(),
            Some(&w[0]),
            Some(&w[1]),
            None,
            Some(&w[2]),
            Some(&w[3]),
            None,
        ]
    };
    let outs =
        |i: usize| -> Vec<Option<&GpuTensor>> { outputs[i].iter().map(Option::as_ref).collect() };
    let in_lists: Vec<Vec<Option<&GpuTensor>>> = (0..cfg.weight_sets.max(1)).map(ins).collect();
    let out_lists: Vec<Vec<Option<&GpuTensor>>> = (0..cfg.weight_sets.max(1)).map(outs).collect();
    let set_refs: Vec<nbits_mlp_gpu::TensorSet<'_>> = in_lists
        .iter()
        .zip(&out_lists)
        .map(|(i, o)| (i.as_slice(), o.as_slice()))
        .collect();
    log(&format!("{}: timing", s.label()));
    let mut times = rt.time_plan_sets(&plan, &set_refs, cfg.rounds)?;
    let gpu_us = median(&mut times);
    let p10 = percentile(&mut times, 0.1);
    let p90 = percentile(&mut times, 0.9);
    let mut host = rt.host_overhead_us(&plan, &in_lists[0], &out_lists[0], cfg.host_reps)?;
    let host_us = median(&mut host);
    // Peers' measure: `layers` independent layers back to back through the public API, outputs
    // read back, wall clock per node.
    let wall_per_node_us = if cfg.layers > 0 {
        let mut per = Vec::new();
        for it in 0..6 {
            let t0 = Instant::now();
            for l in 0..cfg.layers {
                rt.run_on_device(&plan, &ins(l), &outs(l))?;
            }
            for o in outputs.iter().take(cfg.layers) {
                rt.download(o[0].as_ref().expect("Y"))?;
            }
            if it > 0 {
                per.push(t0.elapsed().as_secs_f64() * 1e6 / cfg.layers as f64);
            }
        }
        Some(median(&mut per))
    } else {
        None
    };
    // Check a few rows of set 0 against the float64 reference.
    log(&format!("{}: checking against the reference", s.label()));
    rt.run_on_device(&plan, &in_lists[0], &out_lists[0])?;
    let y = rt.download(outputs[0][0].as_ref().expect("Y"))?;
    let check_rows: Vec<usize> = if s.rows <= 4 {
        (0..s.rows).collect()
    } else {
        vec![0, 1, s.rows / 2, s.rows - 1]
    };
    let f = s.dtype;
    let pick = |t: &Tensor, w: usize| -> Tensor {
        let es = f.size();
        let mut data = Vec::with_capacity(check_rows.len() * w * es);
        for &r in &check_rows {
            data.extend_from_slice(&t.data[r * w * es..(r + 1) * w * es]);
        }
        Tensor::from_bytes(f, vec![check_rows.len(), w], data).expect("slice")
    };
    let a_sub = pick(inputs.shared[0].as_ref().expect("A"), s.k);
    let skip_sub = inputs.shared[1].as_ref().map(|t| pick(t, s.k));
    let mut refs = inputs.host_refs(0);
    refs[0] = Some(&a_sub);
    refs[1] = skip_sub.as_ref();
    let attrs = mlp::MlpAttrs::from_attrs(&inputs.attrs)?;
    let want_y = mlp::run(&attrs, &refs, false)?;
    let got = pick(&y, s.n);
    let max_abs_err = compare::max_abs_error(&want_y.y_f64, &got);
    let tolerance = compare::default_tolerance(f, compare::max_abs(&want_y.y_f64));
    let weight_gbps = s.weight_bytes() as f64 / (gpu_us * 1e3);
    Ok(Measurement {
        shape: s.clone(),
        variant: plan.variant.clone(),
        gpu_us,
        gpu_us_p10: p10,
        gpu_us_p90: p90,
        samples: times.len(),
        weight_bytes: s.weight_bytes(),
        weight_gbps,
        copy_fraction: weight_gbps / copy_gbps,
        host_us,
        wall_per_node_us,
        max_abs_err,
        tolerance,
        checked_rows: check_rows.len(),
    })
}

/// Runs a suite.
pub fn run(
    rt: &Runtime,
    shapes: &[BenchShape],
    cfg: &BenchConfig,
    date: &str,
    log: &mut dyn FnMut(&str),
) -> Result<Report> {
    let info = rt.gpu().info().clone();
    log("measuring the copy bandwidth");
    let (copy_gbps, copy_method) = copy_bandwidth(rt)?;
    log(&format!(
        "copy bandwidth {copy_gbps:.0} GB/s (read + write)"
    ));
    let mut measurements = Vec::new();
    for s in shapes {
        let m = bench_shape(rt, s, cfg, copy_gbps, log)?;
        log(&format!(
            "{}: {} {:.1} us  {:.0} GB/s ({:.0}% of copy)  host {:.1} us  wall/node {}  err {:.2e} (tol {:.2e})",
            s.label(),
            m.variant,
            m.gpu_us,
            m.weight_gbps,
            100.0 * m.copy_fraction,
            m.host_us,
            m.wall_per_node_us.map(|w| format!("{w:.1} us")).unwrap_or_else(|| "-".into()),
            m.max_abs_err,
            m.tolerance
        ));
        measurements.push(m);
        rt.clear_caches();
    }
    Ok(Report {
        gpu: info.name.clone(),
        backend: format!("{:?}", info.backend),
        driver: format!("{} {}", info.driver, info.driver_info),
        commit: COMMIT.into(),
        date: date.into(),
        config: cfg.clone(),
        copy_gbps,
        copy_method,
        measurements,
    })
}
