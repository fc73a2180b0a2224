//! Prepared copies of device tensors built on the GPU: one copy kernel per part of the
//! `mma-tiles` layout (`shaders/repack-codes.wgsl`, `shaders/repack-scales.wgsl`), recorded
//! and submitted to the queue with no host round trip (ordered before every later submission,
//! no wait).
//!
//! The layout's definition stays `nbits_mlp_core::layout` (its CPU functions build the copies
//! of host tensors and are the reference the kernels are tested against byte for byte). The
//! kernels index with the same numbers as those functions: the runtime prepends the WGSL
//! declaration of [`TileGeometry`] ([`TileGeometry::wgsl_struct`]) to each kernel and binds
//! the tensor's [`TileGeometry::uniform_words`] as its uniform, so one compiled pipeline per
//! part serves every geometry (bits, block size, N, K, f16 or f32 scales).
//!
//! Sizes: one invocation per 32-bit word of the copy, workgroups of [`WORKGROUP_SIZE`] on a 2D
//! grid within `maxComputeWorkgroupsPerDimension`, the kernels striding by the grid's size
//! past it. Both buffers are bound whole: the copy is at least as large as the tensor it is
//! built from (padding only adds), and the copy itself was created within
//! `maxStorageBufferBindingSize` (the kernel that reads it binds it whole too), so a tensor
//! whose copy is past the limit fails when its copy is created, on either path, with
//! [`GpuError::BufferTooLarge`] naming the copy; the planner never plans such a binding.

use super::tensor::{describe, padded, GpuTensor};
use super::Runtime;
use crate::error::{GpuError, Scopes};
use nbits_mlp_core::layout::{PreparedLayout, PreparedWeights, TileGeometry};
use std::sync::Arc;
use wgpu::util::DeviceExt as _;

/// Invocations per workgroup of the repack kernels (every WebGPU device allows 256).
pub(crate) const WORKGROUP_SIZE: u32 = 256;

const CODES_BODY: &str = include_str!("../shaders/repack-codes.wgsl");
const SCALES_BODY: &str = include_str!("../shaders/repack-scales.wgsl");

/// The WGSL of the repack kernel of `layout`'s part (codes or scales): the declaration of
/// [`TileGeometry`] as `struct Geometry`, the workgroup size, and the kernel's body.
pub(crate) fn repack_wgsl(layout: PreparedLayout) -> String {
    let body = if layout.is_codes() {
        CODES_BODY
    } else {
        SCALES_BODY
    };
    format!(
        "{}const WORKGROUP_SIZE: u32 = {WORKGROUP_SIZE}u;\n\n{body}",
        TileGeometry::wgsl_struct("Geometry")
    )
}

/// The workgroup grid `[x, y]` for a copy of `words` 32-bit words: enough workgroups for one
/// word per invocation, at most `max_per_dim` per dimension (the kernels stride past the grid).
pub(crate) fn repack_grid(words: u64, max_per_dim: u64) -> [u32; 2] {
    let max = max_per_dim.clamp(1, u64::from(u32::MAX));
    let groups = words.div_ceil(u64::from(WORKGROUP_SIZE)).max(1);
    let x = groups.min(max);
    let y = groups.div_ceil(x).min(max);
    [x as u32, y as u32]
}

/// The two repack pipelines and their bind group layout (source, copy, geometry).
pub(super) struct RepackPipelines {
    layout: wgpu::BindGroupLayout,
    codes: wgpu::ComputePipeline,
    scales: wgpu::ComputePipeline,
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The first `bytes` of `buffer` (rounded up to whole words) as a binding.
fn binding(buffer: &wgpu::Buffer, bytes: u64) -> wgpu::BindingResource<'_> {
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer,
        offset: 0,
        size: wgpu::BufferSize::new(padded(bytes)),
    })
}

impl Runtime {
    /// The repack pipelines, compiled on first use (once per runtime).
    fn repack_pipelines(&self) -> Result<Arc<RepackPipelines>, GpuError> {
        let mut slot = self.repack.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = slot.as_ref() {
            return Ok(p.clone());
        }
        let device = self.gpu.device();
        let scopes = Scopes::push(device);
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("repack"),
            entries: &[
                storage_entry(0, true),
                storage_entry(1, false),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("repack"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = |part: PreparedLayout| {
            let label = format!("repack {part}");
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(&label),
                source: wgpu::ShaderSource::Wgsl(repack_wgsl(part).into()),
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&label),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: None,
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let codes = pipeline(PreparedLayout::MmaTileCodes);
        let scales = pipeline(PreparedLayout::MmaTileScales);
        scopes.pop(&self.gpu.events, || {
            "compiling the repack kernels (prepared weights)".to_string()
        })?;
        let p = Arc::new(RepackPipelines {
            layout,
            codes,
            scales,
        });
        *slot = Some(p.clone());
        Ok(p)
    }

    /// Builds the prepared copy of the weight tensor `src` in the layout and geometry
    /// `weights` into `dst` on the GPU (one compute pass, submitted to the queue: ordered
    /// after every earlier submission and write, before every later one; nothing waits).
    /// Every byte of the copy is written, padding included (code 0, scale 0), byte for byte
    /// what `nbits_mlp_core::layout` builds on the CPU. `dst` must hold exactly
    /// `weights.prepared_bytes()` bytes and be another buffer than `src`'s.
    /// [`Runtime::prepare_weights`] builds its copies with it; call it directly to build a
    /// copy into a buffer of your own. Errors when `src` is not what `weights` describes.
    pub fn repack_into(
        &self,
        src: &GpuTensor,
        weights: &PreparedWeights,
        dst: &GpuTensor,
    ) -> Result<(), GpuError> {
        super::prepared::check_source(&src.info, 0, "weights", weights)?;
        self.repack_checked(src, 0, "weights", weights, dst)
    }

    /// [`Runtime::repack_into`] with errors naming input `index` (`name`), for a source its
    /// caller has already checked against `w` (`prepared::check_source`: `repack_into`, and
    /// `prepare_weights` before it allocates the copy), so that each path checks it once.
    pub(super) fn repack_checked(
        &self,
        src: &GpuTensor,
        index: usize,
        name: &str,
        w: &PreparedWeights,
        dst: &GpuTensor,
    ) -> Result<(), GpuError> {
        self.gpu.check_lost()?;
        let input_error = |message: String| GpuError::Input {
            index,
            name: name.into(),
            message,
        };
        w.check().map_err(|e| input_error(e.to_string()))?;
        if dst.bytes() != w.prepared_bytes() as u64 {
            return Err(GpuError::Tensor {
                what: describe(&dst.info),
                message: format!(
                    "holds {} bytes, the prepared layout {} of input {index} `{name}` needs {}",
                    dst.bytes(),
                    w.layout,
                    w.prepared_bytes()
                ),
            });
        }
        if dst.buffer == src.buffer {
            return Err(GpuError::Tensor {
                what: describe(&dst.info),
                message: format!(
                    "is the buffer of input {index} `{name}` itself: the prepared copy needs a buffer of its own"
                ),
            });
        }
        let g = w.tile_geometry();
        let words = g.uniform_words().map_err(|e| input_error(e.to_string()))?;
        let pipelines = self.repack_pipelines()?;
        let device = self.gpu.device();
        let what = || {
            format!(
                "building input {index} `{name}` in the prepared layout {} on the GPU",
                w.layout
            )
        };
        let scopes = Scopes::push(device);
        let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("repack geometry"),
            contents: bytemuck::cast_slice(&words),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("repack"),
            layout: &pipelines.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: binding(&src.buffer, w.original_bytes() as u64),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: binding(&dst.buffer, w.prepared_bytes() as u64),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: uniform.as_entire_binding(),
                },
            ],
        });
        let [x, y] = repack_grid(
            g.prepared_words as u64,
            self.limit("maxComputeWorkgroupsPerDimension"),
        );
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("repack"),
        });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("repack"),
                timestamp_writes: None,
            });
            pass.set_pipeline(if w.layout.is_codes() {
                &pipelines.codes
            } else {
                &pipelines.scales
            });
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        self.gpu.queue().submit([enc.finish()]);
        scopes.pop(&self.gpu.events, what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_stay_within_the_limit_and_cover_the_words() {
        assert_eq!(repack_grid(0, 65535), [1, 1]);
        assert_eq!(repack_grid(256, 65535), [1, 1]);
        assert_eq!(repack_grid(257, 65535), [2, 1]);
        // Llama-70B's gate_B at 4 bits: 28672 x 8192 codes, 29.4 M words, 114688 workgroups.
        let [x, y] = repack_grid(28672 * 8192 / 8, 65535);
        assert_eq!([x, y], [65535, 2]);
        // Past a restricted grid the kernels stride: the grid is capped, never larger.
        assert_eq!(repack_grid(1 << 20, 4), [4, 4]);
    }

    #[test]
    fn both_kernels_are_valid_wgsl_on_the_webgpu_baseline() {
        for part in PreparedLayout::ALL {
            let src = repack_wgsl(part);
            let module = naga::front::wgsl::parse_str(&src)
                .unwrap_or_else(|e| panic!("{part}: {}", e.emit_to_string(&src)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::empty(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{part}: {}", e.emit_to_string(&src)));
            // The uniform is exactly the geometry's words: 4 bytes per field, no padding.
            let geometry = module
                .types
                .iter()
                .find(|(_, t)| t.name.as_deref() == Some("Geometry"))
                .expect("struct Geometry");
            let naga::TypeInner::Struct { members, span } = &geometry.1.inner else {
                panic!("Geometry is a struct");
            };
            let fields = TileGeometry::default().fields();
            assert_eq!(*span as usize, 4 * fields.len());
            for (m, (name, _)) in members.iter().zip(fields) {
                assert_eq!(m.name.as_deref(), Some(name));
            }
        }
    }
}
