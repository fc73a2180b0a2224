//! What the driver makes of a plan's passes: the statistics its compiler reports for each
//! shader (registers per invocation, shared memory, binary size, ...; Vulkan's
//! `VK_KHR_pipeline_executable_properties`) and, on NVIDIA, the shader cores they run on (SM
//! count and warps per SM, `VK_NV_shader_sm_builtins`). `nbits-mlp plan --device gpu
//! --compiled` prints them beside the plan, for kernel authors: a register count decides how
//! many workgroups share an SM, which no timing shows directly.
//!
//! The passes are compiled on a second, private Vulkan device of the same physical device (wgpu
//! does not enable the extension on its own), from SPIR-V written by the naga that wgpu uses,
//! with the options wgpu would use for the pass's shader checks ([`ShaderChecks`]). Drivers
//! without the extension (Mesa lavapipe among them) report nothing: [`DriverReport::note`]
//! says so, and that is not an error.

use crate::error::GpuError;
use crate::gpu::Gpu;
use crate::pipeline::{checked_for, ShaderChecks};
use nbits_mlp_core::manifest::BufferKind;
use nbits_mlp_core::plan::PassPlan;
use nbits_mlp_core::{DeviceProfile, Plan};
use std::ffi::{c_char, c_void, CStr};

/// One value a driver reports.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum StatisticValue {
    /// A yes / no.
    Bool(bool),
    /// A signed count.
    Int(i64),
    /// An unsigned count (register counts, byte sizes).
    UInt(u64),
    /// A ratio or a time.
    Float(f64),
}

impl std::fmt::Display for StatisticValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StatisticValue::Bool(b) => write!(f, "{b}"),
            StatisticValue::Int(v) => write!(f, "{v}"),
            StatisticValue::UInt(v) => write!(f, "{v}"),
            StatisticValue::Float(v) => write!(f, "{v}"),
        }
    }
}

/// One statistic of a compiled shader, as the driver names it (e.g. NVIDIA's `Register Count`,
/// `Shared Memory Size`, `Binary Size`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct DriverStatistic {
    /// The driver's name for it.
    pub name: String,
    /// The driver's description of it.
    pub description: String,
    /// Its value.
    pub value: StatisticValue,
}

/// One executable of a pass's pipeline (a compute pipeline compiles to one).
#[derive(Clone, Debug, serde::Serialize)]
pub struct CompiledExecutable {
    /// The driver's name for it (NVIDIA: `CS`).
    pub name: String,
    /// The subgroup size it runs with.
    pub subgroup_size: u32,
    /// What the driver reports about it.
    pub statistics: Vec<DriverStatistic>,
}

impl CompiledExecutable {
    /// The value of the statistic named `name` (case-insensitive), if reported.
    pub fn statistic(&self, name: &str) -> Option<&StatisticValue> {
        self.statistics
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
            .map(|s| &s.value)
    }
}

/// One pass of a plan as the driver compiled it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CompiledPassStats {
    /// The pass's id in the plan.
    pub pass: String,
    /// The shader checks it was compiled with (those the runtime would use).
    #[serde(serialize_with = "checks_name")]
    pub checks: ShaderChecks,
    /// Its executables.
    pub executables: Vec<CompiledExecutable>,
}

fn checks_name<S: serde::Serializer>(c: &ShaderChecks, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(c.name())
}

/// The shader cores of an NVIDIA GPU (`VK_NV_shader_sm_builtins`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ShaderCores {
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Warps (subgroups of 32) one SM holds at once.
    pub warps_per_sm: u32,
}

/// 32-bit registers per SM of every NVIDIA GPU since Kepler (not reported through Vulkan).
pub const NVIDIA_REGISTERS_PER_SM: u32 = 65536;

impl ShaderCores {
    /// Workgroups of `threads` invocations using `registers` registers each that one SM holds at
    /// once, as far as registers and warp slots decide (NVIDIA: registers are allocated per warp
    /// in units of 256, i.e. per invocation in multiples of 8; shared memory is not counted, its
    /// size per SM is not reported): `(workgroups, limited by registers?)`.
    pub fn workgroups_per_sm(&self, threads: u32, registers: u32) -> (u32, bool) {
        let warps = threads.div_ceil(32).max(1);
        let per_warp = registers.max(1).div_ceil(8) * 8 * 32;
        let by_registers = NVIDIA_REGISTERS_PER_SM / (per_warp * warps);
        let by_warps = self.warps_per_sm / warps;
        (by_registers.min(by_warps), by_registers < by_warps)
    }
}

/// The adapter's shader cores where its driver reports them: NVIDIA's SM count and warps per SM
/// through `VK_NV_shader_sm_builtins` (Vulkan only; `None` elsewhere). A few property queries,
/// no device; [`Gpu::profile`] puts the SM count in the profile as the `SHADER_CORES` tunable.
pub fn shader_cores(adapter: &wgpu::Adapter) -> Option<ShaderCores> {
    // SAFETY: the hal adapter is only read while the guard lives.
    let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
    let instance = hal.shared_instance().raw_instance();
    let pd = hal.raw_physical_device();
    // SAFETY: plain queries of a live physical device of a live instance.
    let exts = unsafe { instance.enumerate_device_extension_properties(pd) }.ok()?;
    unsafe { sm_builtins(instance, pd, &exts) }
}

/// `VK_NV_shader_sm_builtins`' properties when `exts` (the device's extensions) has it.
///
/// # Safety
/// `pd` is a live physical device of the live `instance`.
unsafe fn sm_builtins(
    instance: &ash::Instance,
    pd: ash::vk::PhysicalDevice,
    exts: &[ash::vk::ExtensionProperties],
) -> Option<ShaderCores> {
    use ash::vk;
    let name = ash::nv::shader_sm_builtins::NAME.to_bytes();
    if !exts
        .iter()
        .any(|e| cstr(&e.extension_name).as_bytes() == name)
    {
        return None;
    }
    let mut sm = vk::PhysicalDeviceShaderSMBuiltinsPropertiesNV::default();
    let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut sm);
    unsafe { instance.get_physical_device_properties2(pd, &mut p2) };
    (sm.shader_sm_count > 0).then_some(ShaderCores {
        sm_count: sm.shader_sm_count,
        warps_per_sm: sm.shader_warps_per_sm,
    })
}

/// What the driver reports for a plan ([`driver_report`]).
#[derive(Clone, Debug, serde::Serialize)]
pub struct DriverReport {
    /// The adapter's name.
    pub adapter: String,
    /// The shader cores, where the driver reports them (NVIDIA).
    pub cores: Option<ShaderCores>,
    /// Each pass as compiled, in the plan's order (empty when [`note`](Self::note) is set).
    pub passes: Vec<CompiledPassStats>,
    /// Why nothing was reported (not Vulkan, or a driver without the extension).
    pub note: Option<String>,
}

fn cstr(b: &[c_char]) -> String {
    // SAFETY: Vulkan fills these fixed arrays with NUL-terminated strings.
    unsafe { CStr::from_ptr(b.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

fn vk_error(what: &str, e: ash::vk::Result) -> GpuError {
    GpuError::Internal {
        what: format!("compiler statistics: {what}"),
        message: format!("{e:?}"),
    }
}

/// The SPIR-V wgpu would hand the driver for `pass` (checked and validated as `module`, `info`)
/// compiled with `checks` (Vulkan `api`).
fn spirv(
    pass: &PassPlan,
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    checks: ShaderChecks,
    api: u32,
) -> Result<Vec<u32>, GpuError> {
    use naga::back::spv;
    use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};
    let full = checks == ShaderChecks::Full;
    let index = if matches!(checks, ShaderChecks::Full | ShaderChecks::Bounds) {
        BoundsCheckPolicy::Restrict
    } else {
        BoundsCheckPolicy::Unchecked
    };
    let mut opts = spv::Options {
        lang_version: match api {
            v if v >= ash::vk::API_VERSION_1_3 => (1, 6),
            v if v >= ash::vk::API_VERSION_1_2 => (1, 5),
            v if v >= ash::vk::API_VERSION_1_1 => (1, 3),
            _ => (1, 0),
        },
        flags: spv::WriterFlags::empty(),
        ..Default::default()
    };
    // Storage buffers: robust buffer access bounds them in the driver (wgpu's choice where the
    // device has robustBufferAccess2, which every device we compile statistics on has).
    opts.bounds_check_policies = BoundsCheckPolicies {
        index,
        buffer: BoundsCheckPolicy::Unchecked,
        image_load: BoundsCheckPolicy::Unchecked,
        binding_array: BoundsCheckPolicy::Unchecked,
    };
    opts.zero_initialize_workgroup_memory = if full {
        spv::ZeroInitializeWorkgroupMemoryMode::Native
    } else {
        spv::ZeroInitializeWorkgroupMemoryMode::None
    };
    opts.force_loop_bounding = full;
    opts.emit_int_div_checks = full;
    opts.ray_query_initialization_tracking = false;
    let popts = spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: "main".into(),
    };
    spv::write_vec(module, info, &opts, Some(&popts)).map_err(|e| GpuError::Shader {
        pass: pass.id.clone(),
        template: pass.shader.clone(),
        stage: "SPIR-V",
        line: None,
        message: e.to_string(),
    })
}

/// Compiles every pass of `plan` for `gpu`'s adapter on a private Vulkan device and collects
/// what the driver reports about each, with the shader checks the runtime would use
/// (`profile`: the profile the plan was made for, for the index proofs). A backend other than
/// Vulkan, or a driver without `VK_KHR_pipeline_executable_properties`, gives a report with a
/// [`note`](DriverReport::note) and no passes.
pub fn driver_report(
    gpu: &Gpu,
    profile: &DeviceProfile,
    plan: &Plan,
) -> Result<DriverReport, GpuError> {
    use ash::vk;
    let adapter = gpu.info().name.clone();
    let mut report = DriverReport {
        adapter: adapter.clone(),
        cores: None,
        passes: Vec::new(),
        note: None,
    };
    // SAFETY: the hal adapter is only read, and the guard lives to the end of this function,
    // which destroys everything it creates on it.
    let Some(hal) = (unsafe { gpu.adapter().as_hal::<wgpu::hal::api::Vulkan>() }) else {
        report.note = Some(format!(
            "the adapter runs on {:?}, not Vulkan: no compiler statistics",
            gpu.info().backend
        ));
        return Ok(report);
    };
    let instance = hal.shared_instance().raw_instance();
    let pd = hal.raw_physical_device();
    // SAFETY: plain queries of a live physical device of a live instance.
    let exts = unsafe { instance.enumerate_device_extension_properties(pd) }
        .map_err(|e| vk_error("vkEnumerateDeviceExtensionProperties", e))?;
    let has = |n: &CStr| {
        exts.iter()
            .any(|e| cstr(&e.extension_name).as_bytes() == n.to_bytes())
    };
    let props = unsafe { instance.get_physical_device_properties(pd) };
    let api = props.api_version;
    report.cores = unsafe { sm_builtins(instance, pd, &exts) };
    if !has(ash::khr::pipeline_executable_properties::NAME) {
        report.note = Some(
            "this driver reports no compiler statistics (it lacks VK_KHR_pipeline_executable_properties)"
                .into(),
        );
        return Ok(report);
    }
    let queue_family = unsafe { instance.get_physical_device_queue_family_properties(pd) }
        .iter()
        .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
        .unwrap_or(0) as u32;

    // The device: every feature the shaders may use that the physical device has, and the
    // statistics.
    let coop = has(ash::khr::cooperative_matrix::NAME);
    let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut fpe = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
    let mut fcm = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut fpe);
    if api >= vk::API_VERSION_1_1 {
        f2 = f2.push_next(&mut f11);
    }
    if api >= vk::API_VERSION_1_2 {
        f2 = f2.push_next(&mut f12);
    }
    if api >= vk::API_VERSION_1_3 {
        f2 = f2.push_next(&mut f13);
    }
    if coop {
        f2 = f2.push_next(&mut fcm);
    }
    unsafe { instance.get_physical_device_features2(pd, &mut f2) };
    let mut names = vec![ash::khr::pipeline_executable_properties::NAME.as_ptr()];
    if coop {
        names.push(ash::khr::cooperative_matrix::NAME.as_ptr());
    }
    let priorities = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(queue_family)
        .queue_priorities(&priorities)];
    let mut dci = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&names);
    dci.p_next = &f2 as *const vk::PhysicalDeviceFeatures2 as *const c_void;
    // SAFETY: the create info and its chain live across the call.
    let device = unsafe { instance.create_device(pd, &dci, None) }
        .map_err(|e| vk_error("vkCreateDevice", e))?;
    let pe = ash::khr::pipeline_executable_properties::Device::new(instance, &device);
    let result = plan
        .passes
        .iter()
        .map(|pass| {
            let (checked, checks) = checked_for(gpu, profile, pass)?;
            let words = spirv(pass, &checked.module, &checked.info, checks, api)?;
            // SAFETY: every object is created and destroyed on `device` within this closure.
            let executables = unsafe { compile_stats(&device, &pe, pass, &words) }?;
            Ok(CompiledPassStats {
                pass: pass.id.clone(),
                checks,
                executables,
            })
        })
        .collect::<Result<Vec<_>, GpuError>>();
    // SAFETY: nothing created on the device outlives it.
    unsafe { device.destroy_device(None) };
    report.passes = result?;
    Ok(report)
}

/// Compiles one pass's SPIR-V into a compute pipeline with statistics and reads them.
unsafe fn compile_stats(
    device: &ash::Device,
    pe: &ash::khr::pipeline_executable_properties::Device,
    pass: &PassPlan,
    words: &[u32],
) -> Result<Vec<CompiledExecutable>, GpuError> {
    use ash::vk;
    let module = device
        .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
        .map_err(|e| vk_error("vkCreateShaderModule", e))?;
    let bindings: Vec<_> = pass
        .bindings
        .iter()
        .map(|b| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b.binding)
                .descriptor_type(match b.access {
                    BufferKind::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
                    _ => vk::DescriptorType::STORAGE_BUFFER,
                })
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        })
        .collect();
    let set_layout = device
        .create_descriptor_set_layout(
            &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
            None,
        )
        .map_err(|e| vk_error("vkCreateDescriptorSetLayout", e));
    let set_layout = match set_layout {
        Ok(l) => l,
        Err(e) => {
            device.destroy_shader_module(module, None);
            return Err(e);
        }
    };
    let set_layouts = [set_layout];
    let layout = device
        .create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
            None,
        )
        .map_err(|e| vk_error("vkCreatePipelineLayout", e));
    let out = layout.and_then(|layout| {
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout)
            .flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR)];
        let out = match device.create_compute_pipelines(vk::PipelineCache::null(), &info, None) {
            Ok(p) => {
                let pipeline = p[0];
                let read = read_stats(pe, pipeline);
                device.destroy_pipeline(pipeline, None);
                read
            }
            Err((_, e)) => Err(vk_error(
                &format!("pass `{}`: vkCreateComputePipelines", pass.id),
                e,
            )),
        };
        device.destroy_pipeline_layout(layout, None);
        out
    });
    device.destroy_descriptor_set_layout(set_layout, None);
    device.destroy_shader_module(module, None);
    out
}

unsafe fn read_stats(
    pe: &ash::khr::pipeline_executable_properties::Device,
    pipeline: ash::vk::Pipeline,
) -> Result<Vec<CompiledExecutable>, GpuError> {
    use ash::vk;
    let pinfo = vk::PipelineInfoKHR::default().pipeline(pipeline);
    let props = pe
        .get_pipeline_executable_properties(&pinfo)
        .map_err(|e| vk_error("vkGetPipelineExecutablePropertiesKHR", e))?;
    let mut out = Vec::new();
    for (i, p) in props.iter().enumerate() {
        let einfo = vk::PipelineExecutableInfoKHR::default()
            .pipeline(pipeline)
            .executable_index(i as u32);
        let stats = pe
            .get_pipeline_executable_statistics(&einfo)
            .map_err(|e| vk_error("vkGetPipelineExecutableStatisticsKHR", e))?;
        let statistics = stats
            .iter()
            .map(|s| DriverStatistic {
                name: cstr(&s.name),
                description: cstr(&s.description),
                value: match s.format {
                    vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                        StatisticValue::Bool(s.value.b32 != 0)
                    }
                    vk::PipelineExecutableStatisticFormatKHR::INT64 => {
                        StatisticValue::Int(s.value.i64)
                    }
                    vk::PipelineExecutableStatisticFormatKHR::UINT64 => {
                        StatisticValue::UInt(s.value.u64)
                    }
                    _ => StatisticValue::Float(s.value.f64),
                },
            })
            .collect();
        out.push(CompiledExecutable {
            name: cstr(&p.name),
            subgroup_size: p.subgroup_size,
            statistics,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::ShaderCores;

    #[test]
    fn workgroups_per_sm_follow_registers_and_warp_slots() {
        let h200 = ShaderCores {
            sm_count: 132,
            warps_per_sm: 64,
        };
        // 72 registers x 128 invocations: 9216 registers a workgroup, 7 in 65536.
        assert_eq!(h200.workgroups_per_sm(128, 72), (7, true));
        // 70 registers round up to 72 (allocation in multiples of 8 per invocation).
        assert_eq!(h200.workgroups_per_sm(128, 70), (7, true));
        // 102 registers x 7 warps: 2; 234 x 4 warps: 2.
        assert_eq!(h200.workgroups_per_sm(224, 102), (2, true));
        assert_eq!(h200.workgroups_per_sm(128, 234), (2, true));
        // Few registers: the 64 warp slots decide (16 workgroups of 4 warps).
        assert_eq!(h200.workgroups_per_sm(128, 16), (16, false));
        // A partial warp takes a whole warp's registers and slot.
        assert_eq!(h200.workgroups_per_sm(33, 32), (32, false));
    }
}
