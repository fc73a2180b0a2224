//! Adapter selection and the device: [`GpuOptions`], [`list_adapters`], [`Gpu`].

use crate::error::{DeviceEvents, GpuError};
use nbits_mlp_core::DeviceProfile;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Environment variable overriding the backends searched: `vulkan`, `gl`, `metal`, `dx12` or
/// `all` (comma-separated combinations allowed). Read by [`GpuOptions::from_env`].
pub const ENV_BACKENDS: &str = "NBITS_MLP_BACKENDS";
/// Environment variable giving an adapter-name filter (case-insensitive substring). Read by
/// [`GpuOptions::from_env`].
pub const ENV_ADAPTER: &str = "NBITS_MLP_ADAPTER";

/// The optional device features the manifest can use, requested whenever the adapter has them
/// (`SUBGROUP_BARRIER`, native: `wgpu-subgroup-barrier` in the profile, lets the tensor-core
/// kernels order one subgroup's own workgroup memory without stopping the others).
pub const WANTED_FEATURES: wgpu::Features = wgpu::Features::SHADER_F16
    .union(wgpu::Features::SUBGROUP)
    .union(wgpu::Features::SUBGROUP_BARRIER)
    .union(wgpu::Features::TIMESTAMP_QUERY)
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);

/// Experimental device features requested whenever the adapter has them (unless
/// [`ENV_COOP`] is `off`): cooperative matrices, for the overlay's `coop_*` variants.
pub const WANTED_EXPERIMENTAL_FEATURES: wgpu::Features =
    wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX;

/// Environment variable: `off` (or `0`) leaves cooperative matrices unrequested, so the device
/// profile has no `coop-*` feature and the planner falls back to the variants without them.
pub const ENV_COOP: &str = "NBITS_MLP_COOP";

/// Whether [`ENV_COOP`] leaves cooperative matrices on (the default).
fn coop_wanted() -> bool {
    !matches!(
        std::env::var(ENV_COOP).as_deref().map(str::trim),
        Ok("off" | "0" | "no" | "false")
    )
}

/// The device-profile feature name of one cooperative matrix configuration:
/// `coop-{ab}-{M}x{N}x{K}-{cr}`, e.g. `coop-f16-16x16x16-f32` (f16 inputs, f32 accumulator).
pub fn coop_feature_name(p: &wgpu::CooperativeMatrixProperties) -> String {
    let t = |t: wgpu::CooperativeScalarType| match t {
        wgpu::CooperativeScalarType::F32 => "f32",
        wgpu::CooperativeScalarType::F16 => "f16",
        wgpu::CooperativeScalarType::I32 => "i32",
        wgpu::CooperativeScalarType::U32 => "u32",
    };
    format!(
        "coop-{}-{}x{}x{}-{}",
        t(p.ab_type),
        p.m_size,
        p.n_size,
        p.k_size,
        t(p.cr_type)
    )
}

/// The profile feature names an adapter adds beside wgpu's own when `coop` (cooperative
/// matrices granted): one [`coop_feature_name`] per configuration, and `subgroup-size-32` when
/// every subgroup of the adapter has exactly 32 invocations (the `coop_*` kernels split a
/// workgroup into subgroups of 32).
fn extra_feature_names(a: &wgpu::Adapter, coop: bool) -> BTreeSet<String> {
    let mut s = BTreeSet::new();
    let i = a.get_info();
    if i.subgroup_min_size == 32 && i.subgroup_max_size == 32 {
        s.insert("subgroup-size-32".to_string());
    }
    if coop {
        s.extend(
            a.cooperative_matrix_properties()
                .iter()
                .map(coop_feature_name),
        );
    }
    s
}

/// Which adapter to use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// Case-insensitive substring of the adapter name; `None` takes the best adapter.
    pub adapter: Option<String>,
    /// Backends searched. The default is Vulkan alone: on Linux the GL adapter lacks shader-f16
    /// and subgroups.
    pub backends: wgpu::Backends,
}

impl Default for GpuOptions {
    /// Vulkan, best adapter. (Does not read the environment; see [`GpuOptions::from_env`].)
    fn default() -> Self {
        GpuOptions {
            adapter: None,
            backends: wgpu::Backends::VULKAN,
        }
    }
}

impl GpuOptions {
    /// The defaults, overridden by [`ENV_BACKENDS`] and [`ENV_ADAPTER`] when set (and not
    /// empty). Errors on an unknown backend name.
    pub fn from_env() -> Result<GpuOptions, GpuError> {
        let mut o = GpuOptions::default();
        if let Some(b) = std::env::var(ENV_BACKENDS)
            .ok()
            .filter(|s| !s.trim().is_empty())
        {
            o.backends = parse_backends(&b).map_err(|message| GpuError::BadOption {
                name: ENV_BACKENDS.into(),
                message,
            })?;
        }
        if let Some(a) = std::env::var(ENV_ADAPTER)
            .ok()
            .filter(|s| !s.trim().is_empty())
        {
            o.adapter = Some(a);
        }
        Ok(o)
    }
}

/// Parses `vulkan`, `gl`, `metal`, `dx12`, `all` (case-insensitive; `,` or `|` separated
/// combinations) into backends.
pub fn parse_backends(s: &str) -> Result<wgpu::Backends, String> {
    let mut b = wgpu::Backends::empty();
    for part in s.split([',', '|']).map(str::trim).filter(|p| !p.is_empty()) {
        b |= match part.to_ascii_lowercase().as_str() {
            "vulkan" | "vk" => wgpu::Backends::VULKAN,
            "gl" | "gles" | "opengl" => wgpu::Backends::GL,
            "metal" | "mtl" => wgpu::Backends::METAL,
            "dx12" | "d3d12" => wgpu::Backends::DX12,
            "all" => wgpu::Backends::all(),
            other => {
                return Err(format!(
                    "unknown backend `{other}` (expected vulkan, gl, metal, dx12 or all)"
                ))
            }
        };
    }
    if b.is_empty() {
        return Err(format!("no backend in `{s}`"));
    }
    Ok(b)
}

/// One adapter, as [`list_adapters`] reports it.
#[derive(Clone, Debug, Serialize)]
pub struct AdapterSummary {
    /// Adapter name (`llvmpipe (LLVM 15.0.6, 256 bits)`).
    pub name: String,
    /// Backend (`Vulkan`, `Gl`, ...).
    pub backend: String,
    /// Device type (`DiscreteGpu`, `IntegratedGpu`, `VirtualGpu`, `Cpu`, `Other`).
    pub device_type: String,
    /// Driver name.
    pub driver: String,
    /// Driver version / details.
    pub driver_info: String,
    /// PCI vendor id (0 when unknown).
    pub vendor: u32,
    /// PCI device id (0 when unknown).
    pub device: u32,
    /// Smallest subgroup size (0 when unknown).
    pub subgroup_min_size: u32,
    /// Largest subgroup size (0 when unknown).
    pub subgroup_max_size: u32,
    /// The adapter's limits by WebGPU name (a device requested from it can get all of them).
    pub limits: BTreeMap<String, u64>,
    /// The adapter's features by WebGPU / wgpu name (`shader-f16`, `subgroups`, ...), plus the
    /// project's: `coop-{ab}-{M}x{N}x{K}-{cr}` per cooperative matrix configuration and
    /// `subgroup-size-32` (see [`coop_feature_name`]).
    pub features: BTreeSet<String>,
    /// The GPU's shader cores (NVIDIA: SMs) where the driver reports them
    /// ([`crate::compiled::shader_cores`]); a device's profile carries it as the `SHADER_CORES`
    /// tunable default.
    pub shader_cores: Option<u32>,
}

impl AdapterSummary {
    fn of(a: &wgpu::Adapter) -> AdapterSummary {
        let i = a.get_info();
        AdapterSummary {
            name: i.name.clone(),
            backend: format!("{:?}", i.backend),
            device_type: format!("{:?}", i.device_type),
            driver: i.driver.clone(),
            driver_info: i.driver_info.clone(),
            vendor: i.vendor,
            device: i.device,
            subgroup_min_size: i.subgroup_min_size,
            subgroup_max_size: i.subgroup_max_size,
            limits: webgpu_limits(&a.limits()),
            features: {
                let f = a.features();
                let coop = f.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX);
                let mut names = feature_names(f);
                names.extend(extra_feature_names(a, coop));
                names
            },
            shader_cores: crate::compiled::shader_cores(a).map(|c| c.sm_count),
        }
    }

    fn short(&self) -> String {
        format!("{} ({}, {})", self.name, self.backend, self.device_type)
    }
}

/// Backends as `vulkan|gl` (lowercase names joined by `|`).
pub fn backends_name(b: wgpu::Backends) -> String {
    let names: Vec<String> = b
        .iter_names()
        .map(|(n, _)| n.to_ascii_lowercase())
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join("|")
    }
}

/// Preference of a device type: DiscreteGpu > IntegratedGpu > VirtualGpu > Cpu > Other.
fn rank(t: wgpu::DeviceType) -> u8 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    }
}

fn instance(backends: wgpu::Backends) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    desc.flags = wgpu::InstanceFlags::default().with_env();
    wgpu::Instance::new(desc)
}

/// Every adapter of the backends, best first (the order [`Gpu::new`] considers them in).
fn adapters(instance: &wgpu::Instance, backends: wgpu::Backends) -> Vec<wgpu::Adapter> {
    let mut v = pollster::block_on(instance.enumerate_adapters(backends));
    v.sort_by_key(|a| rank(a.get_info().device_type));
    v
}

/// Every adapter of `opts.backends`, best first. The `adapter` filter is not applied.
pub fn list_adapters(opts: &GpuOptions) -> Vec<AdapterSummary> {
    adapters(&instance(opts.backends), opts.backends)
        .iter()
        .map(AdapterSummary::of)
        .collect()
}

/// The WebGPU limits (every name of [`nbits_mlp_core::device::WEBGPU_DEFAULT_LIMITS`]) of a
/// wgpu [`wgpu::Limits`], by WebGPU name.
pub fn webgpu_limits(l: &wgpu::Limits) -> BTreeMap<String, u64> {
    let v: [(&str, u64); 31] = [
        ("maxTextureDimension1D", l.max_texture_dimension_1d.into()),
        ("maxTextureDimension2D", l.max_texture_dimension_2d.into()),
        ("maxTextureDimension3D", l.max_texture_dimension_3d.into()),
        ("maxTextureArrayLayers", l.max_texture_array_layers.into()),
        ("maxBindGroups", l.max_bind_groups.into()),
        (
            "maxBindGroupsPlusVertexBuffers",
            l.max_bind_groups_plus_vertex_buffers.into(),
        ),
        (
            "maxBindingsPerBindGroup",
            l.max_bindings_per_bind_group.into(),
        ),
        (
            "maxDynamicUniformBuffersPerPipelineLayout",
            l.max_dynamic_uniform_buffers_per_pipeline_layout.into(),
        ),
        (
            "maxDynamicStorageBuffersPerPipelineLayout",
            l.max_dynamic_storage_buffers_per_pipeline_layout.into(),
        ),
        (
            "maxSampledTexturesPerShaderStage",
            l.max_sampled_textures_per_shader_stage.into(),
        ),
        (
            "maxSamplersPerShaderStage",
            l.max_samplers_per_shader_stage.into(),
        ),
        (
            "maxStorageBuffersPerShaderStage",
            l.max_storage_buffers_per_shader_stage.into(),
        ),
        (
            "maxStorageTexturesPerShaderStage",
            l.max_storage_textures_per_shader_stage.into(),
        ),
        (
            "maxUniformBuffersPerShaderStage",
            l.max_uniform_buffers_per_shader_stage.into(),
        ),
        (
            "maxUniformBufferBindingSize",
            l.max_uniform_buffer_binding_size,
        ),
        (
            "maxStorageBufferBindingSize",
            l.max_storage_buffer_binding_size,
        ),
        (
            "minUniformBufferOffsetAlignment",
            l.min_uniform_buffer_offset_alignment.into(),
        ),
        (
            "minStorageBufferOffsetAlignment",
            l.min_storage_buffer_offset_alignment.into(),
        ),
        ("maxVertexBuffers", l.max_vertex_buffers.into()),
        ("maxBufferSize", l.max_buffer_size),
        ("maxVertexAttributes", l.max_vertex_attributes.into()),
        (
            "maxVertexBufferArrayStride",
            l.max_vertex_buffer_array_stride.into(),
        ),
        (
            "maxInterStageShaderVariables",
            l.max_inter_stage_shader_variables.into(),
        ),
        ("maxColorAttachments", l.max_color_attachments.into()),
        (
            "maxColorAttachmentBytesPerSample",
            l.max_color_attachment_bytes_per_sample.into(),
        ),
        (
            "maxComputeWorkgroupStorageSize",
            l.max_compute_workgroup_storage_size.into(),
        ),
        (
            "maxComputeInvocationsPerWorkgroup",
            l.max_compute_invocations_per_workgroup.into(),
        ),
        (
            "maxComputeWorkgroupSizeX",
            l.max_compute_workgroup_size_x.into(),
        ),
        (
            "maxComputeWorkgroupSizeY",
            l.max_compute_workgroup_size_y.into(),
        ),
        (
            "maxComputeWorkgroupSizeZ",
            l.max_compute_workgroup_size_z.into(),
        ),
        (
            "maxComputeWorkgroupsPerDimension",
            l.max_compute_workgroups_per_dimension.into(),
        ),
    ];
    v.into_iter().map(|(k, x)| (k.to_string(), x)).collect()
}

/// Whether a WebGPU limit is a minimum (an alignment: smaller is better) rather than a maximum.
pub fn limit_is_minimum(name: &str) -> bool {
    name.starts_with("min")
}

/// Names of a feature set: WebGPU names (`shader-f16`, `subgroups`, `timestamp-query`) for
/// WebGPU features, wgpu's `wgpu-...` names for native ones.
pub fn feature_names(f: wgpu::Features) -> BTreeSet<String> {
    f.iter()
        .filter_map(|x| x.as_str())
        .map(str::to_string)
        .collect()
}

/// An open device: the adapter chosen, the device and its queue.
///
/// Cloning shares the device (wgpu handles are reference counted).
#[derive(Clone, Debug)]
pub struct Gpu {
    instance: wgpu::Instance,
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    pub(crate) events: Arc<DeviceEvents>,
}

impl Gpu {
    /// Opens the best adapter of `opts.backends` whose name contains `opts.adapter`
    /// (case-insensitive) when given. Best: DiscreteGpu, then IntegratedGpu, VirtualGpu, Cpu,
    /// Other; the first in enumeration order among equals. Requests all of the adapter's limits
    /// and the [`WANTED_FEATURES`] it has.
    pub fn new(opts: &GpuOptions) -> Result<Gpu, GpuError> {
        let instance = instance(opts.backends);
        let all = adapters(&instance, opts.backends);
        if all.is_empty() {
            return Err(GpuError::NoAdapter {
                backends: backends_name(opts.backends),
            });
        }
        let chosen = match &opts.adapter {
            None => all.into_iter().next(),
            Some(f) => {
                let needle = f.to_lowercase();
                let pos = all
                    .iter()
                    .position(|a| a.get_info().name.to_lowercase().contains(&needle));
                match pos {
                    Some(p) => all.into_iter().nth(p),
                    None => {
                        return Err(GpuError::AdapterNotFound {
                            filter: f.clone(),
                            available: all.iter().map(|a| AdapterSummary::of(a).short()).collect(),
                        })
                    }
                }
            }
        };
        let adapter = chosen.ok_or_else(|| GpuError::NoAdapter {
            backends: backends_name(opts.backends),
        })?;
        Gpu::from_adapter(instance, adapter)
    }

    /// Opens a device on a given adapter (all of its limits, the [`WANTED_FEATURES`] it has,
    /// and the [`WANTED_EXPERIMENTAL_FEATURES`] it has unless [`ENV_COOP`] says `off`).
    pub fn from_adapter(instance: wgpu::Instance, adapter: wgpu::Adapter) -> Result<Gpu, GpuError> {
        let info = adapter.get_info();
        let mut wanted = WANTED_FEATURES;
        if coop_wanted() {
            wanted |= WANTED_EXPERIMENTAL_FEATURES;
        }
        let required_features = adapter.features() & wanted;
        let experimental_features = if required_features.intersects(WANTED_EXPERIMENTAL_FEATURES) {
            // SAFETY: the one experimental feature requested is cooperative matrices; only the
            // `coop_*` templates use them, in uniform control flow, on workgroup memory indices
            // they keep in bounds (and wgpu's bounds checks stay on by default).
            unsafe { wgpu::ExperimentalFeatures::enabled() }
        } else {
            wgpu::ExperimentalFeatures::disabled()
        };
        let desc = wgpu::DeviceDescriptor {
            label: Some("nbits-mlp"),
            required_features,
            required_limits: adapter.limits(),
            experimental_features,
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc)).map_err(|e| {
            GpuError::RequestDevice {
                adapter: info.name.clone(),
                message: e.to_string(),
            }
        })?;
        let events = DeviceEvents::install(&device);
        Ok(Gpu {
            instance,
            adapter,
            device,
            queue,
            info,
            events,
        })
    }

    /// The adapter's description (name, backend, device type, driver, subgroup sizes).
    pub fn info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }

    /// The adapter, as [`list_adapters`] would summarize it.
    pub fn summary(&self) -> AdapterSummary {
        AdapterSummary::of(&self.adapter)
    }

    /// What the device granted, by WebGPU names: every limit of
    /// [`nbits_mlp_core::device::WEBGPU_DEFAULT_LIMITS`] and every enabled feature, plus
    /// `coop-{ab}-{M}x{N}x{K}-{cr}` per cooperative matrix configuration when cooperative
    /// matrices were granted and `subgroup-size-32` (see [`AdapterSummary::features`]). Named
    /// after the adapter. Where the driver reports the GPU's shader cores
    /// ([`crate::compiled::shader_cores`]: NVIDIA), their count is the profile's
    /// `SHADER_CORES` tunable default.
    pub fn profile(&self) -> DeviceProfile {
        let f = self.device.features();
        let coop = f.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX);
        let mut features = feature_names(f);
        features.extend(extra_feature_names(&self.adapter, coop));
        let mut tunables = std::collections::BTreeMap::new();
        if let Some(cores) = crate::compiled::shader_cores(&self.adapter) {
            tunables.insert(
                nbits_mlp_core::device::SHADER_CORES.to_string(),
                i64::from(cores.sm_count),
            );
        }
        DeviceProfile {
            name: self.info.name.clone(),
            limits: webgpu_limits(&self.device.limits()),
            features,
            tunables,
        }
    }

    /// The wgpu instance.
    pub fn instance(&self) -> &wgpu::Instance {
        &self.instance
    }
    /// The wgpu adapter.
    pub fn adapter(&self) -> &wgpu::Adapter {
        &self.adapter
    }
    /// The wgpu device.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }
    /// The device's queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }
    /// Features granted.
    pub fn features(&self) -> wgpu::Features {
        self.device.features()
    }
    /// Limits granted.
    pub fn limits(&self) -> wgpu::Limits {
        self.device.limits()
    }
    /// Whether timestamp queries are available (needed by [`crate::Runtime::time_plan`]).
    pub fn has_timestamps(&self) -> bool {
        self.device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
    }
    /// Errors that escaped every error scope since the last call (normally none: every
    /// operation of this crate runs inside scopes). Recorded instead of panicking.
    pub fn take_uncaptured_errors(&self) -> Vec<String> {
        self.events.take_uncaptured()
    }
    /// `Err(DeviceLost)` once the device is lost.
    pub fn check_lost(&self) -> Result<(), GpuError> {
        self.events.check_lost()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nbits_mlp_core::device::WEBGPU_DEFAULT_LIMITS;

    #[test]
    fn limit_names_are_exactly_the_webgpu_ones() {
        let m = webgpu_limits(&wgpu::Limits::default());
        let want: BTreeSet<&str> = WEBGPU_DEFAULT_LIMITS.iter().map(|(k, _)| *k).collect();
        let got: BTreeSet<&str> = m.keys().map(String::as_str).collect();
        assert_eq!(got, want);
        // wgpu's defaults are WebGPU's defaults.
        for (k, v) in WEBGPU_DEFAULT_LIMITS {
            assert_eq!(m[*k], *v, "{k}");
        }
    }

    #[test]
    fn coop_feature_names() {
        let p = wgpu::CooperativeMatrixProperties {
            m_size: 16,
            n_size: 16,
            k_size: 16,
            ab_type: wgpu::CooperativeScalarType::F16,
            cr_type: wgpu::CooperativeScalarType::F32,
            saturating_accumulation: false,
        };
        assert_eq!(coop_feature_name(&p), "coop-f16-16x16x16-f32");
        let q = wgpu::CooperativeMatrixProperties {
            n_size: 8,
            k_size: 8,
            cr_type: wgpu::CooperativeScalarType::F16,
            ..p
        };
        assert_eq!(coop_feature_name(&q), "coop-f16-16x8x8-f16");
        // The built-in profile that plans the coop variants names what `Gpu::profile` exposes.
        let d = nbits_mlp_core::DeviceProfile::discrete_gpu();
        assert!(d.has_feature(&coop_feature_name(&p)) && d.has_feature("subgroup-size-32"));
    }

    #[test]
    fn feature_and_backend_names() {
        let names = feature_names(WANTED_FEATURES);
        for n in ["shader-f16", "subgroups", "timestamp-query"] {
            assert!(names.contains(n), "{names:?}");
        }
        assert_eq!(parse_backends("Vulkan").unwrap(), wgpu::Backends::VULKAN);
        assert_eq!(
            parse_backends("vulkan,gl").unwrap(),
            wgpu::Backends::VULKAN | wgpu::Backends::GL
        );
        assert_eq!(parse_backends("all").unwrap(), wgpu::Backends::all());
        assert!(parse_backends("cuda").unwrap_err().contains("cuda"));
        assert!(parse_backends(" ").is_err());
        assert_eq!(
            backends_name(wgpu::Backends::VULKAN | wgpu::Backends::GL),
            "vulkan|gl"
        );
    }
}
