//! The copy bandwidth a measurement is compared with: a large buffer-to-buffer copy and a
//! compute-shader copy, timed with timestamp queries.

use crate::measure::median;
use anyhow::{anyhow, Result};
use nbits_mlp_gpu::Runtime;

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

const READ_WGSL: &str = "
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let stride = nwg.x * 256u;
    var acc = vec4<u32>(0u);
    for (var i = gid.x; i < arrayLength(&src); i = i + stride) {
        acc = acc ^ src[i];
    }
    if (all(acc == vec4<u32>(0x9e3779b9u, 0x7f4a7c15u, 0x85ebca6bu, 0xc2b2ae35u))) {
        dst[gid.x] = acc;
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
    // A compute-shader copy (read + write) and a compute-shader read (every byte read once,
    // folded into a value that is practically never written).
    let compute_span = |wgsl: &str, bytes: u64| -> Result<f64> {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("bandwidth"),
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("bandwidth"),
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
        copy_span_gbps(rt, bytes * u64::from(reps), |enc, qs| {
            for i in 0..reps {
                let (begin, end) = ((i == 0).then_some(0), (i + 1 == reps).then_some(1));
                let tw = (begin.is_some() || end.is_some()).then_some(
                    wgpu::ComputePassTimestampWrites {
                        query_set: qs,
                        beginning_of_pass_write_index: begin,
                        end_of_pass_write_index: end,
                    },
                );
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("bandwidth"),
                    timestamp_writes: tw,
                });
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &bg, &[]);
                pass.dispatch_workgroups(groups, 1, 1);
            }
        })
    };
    let gbps = compute_span(COPY_WGSL, 2 * size)?;
    results.push((
        gbps,
        format!(
            "{} MiB compute-shader copy x{reps}, pass timestamps",
            size >> 20
        ),
    ));
    let read_gbps = compute_span(READ_WGSL, size)?;
    let note = results
        .iter()
        .map(|(g, m)| format!("{m}: {g:.0} GB/s"))
        .collect::<Vec<_>>()
        .join("; ");
    let best = results.iter().map(|r| r.0).fold(0.0, f64::max);
    Ok((
        best,
        format!(
            "best of: {note}; read only (compute shader, {} MiB x{reps}): {read_gbps:.0} GB/s",
            size >> 20
        ),
    ))
}
