//! Compute pipelines, compiled once per (WGSL source, bind group layout).
//!
//! Each pass's WGSL is first parsed and validated by naga against the features of the device
//! profile the plan was made for (so a shader using f16 or subgroup operations on a profile
//! without them is caught even where the real device has them), with errors that quote the WGSL
//! line; its workgroup size is checked against the plan's. wgpu then compiles it with an
//! explicit bind group layout built from the plan's bindings, inside error scopes.

use crate::error::{DeviceEvents, GpuError, Scopes};
use nbits_mlp_core::manifest::BufferKind;
use nbits_mlp_core::plan::PassPlan;
use nbits_mlp_core::DeviceProfile;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A compiled pass: pipeline and its bind group layout.
#[derive(Debug)]
pub(crate) struct CompiledPass {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

/// The cache.
#[derive(Default)]
pub(crate) struct PipelineCache {
    map: Mutex<HashMap<String, Arc<CompiledPass>>>,
}

fn kind_char(k: BufferKind) -> char {
    match k {
        BufferKind::ReadOnlyStorage => 'r',
        BufferKind::Storage => 'w',
        BufferKind::Uniform => 'u',
    }
}

/// naga capabilities for a profile's features.
fn capabilities(profile: &DeviceProfile) -> naga::valid::Capabilities {
    use naga::valid::Capabilities as C;
    // `pack2x16float` / `unpack2x16float` are core WGSL; wgpu grants this capability to every
    // adapter with the `SHADER_F16_IN_F32` downlevel flag, which every WebGPU adapter has.
    let mut c = C::SHADER_FLOAT16_IN_FLOAT32;
    c.set(C::SHADER_FLOAT16, profile.has_feature("shader-f16"));
    c.set(C::SUBGROUP, profile.has_feature("subgroups"));
    c.set(
        C::SUBGROUP_BARRIER,
        profile.has_feature("wgpu-subgroup-barrier"),
    );
    c.set(
        C::COOPERATIVE_MATRIX,
        profile.features.iter().any(|f| f.starts_with("coop-")),
    );
    c
}

impl PipelineCache {
    /// Number of compiled pipelines.
    pub fn len(&self) -> usize {
        self.map.lock().map(|m| m.len()).unwrap_or(0)
    }

    pub fn clear(&self) {
        if let Ok(mut m) = self.map.lock() {
            m.clear();
        }
    }

    /// The pipeline of `pass`, compiled on first use.
    pub fn get(
        &self,
        device: &wgpu::Device,
        events: &DeviceEvents,
        profile: &DeviceProfile,
        pass: &PassPlan,
    ) -> Result<Arc<CompiledPass>, GpuError> {
        let mut key: String = pass.bindings.iter().map(|b| kind_char(b.access)).collect();
        key.push('\n');
        key.push_str(&pass.wgsl);
        // Compiling under the lock keeps each shader compiled once even across threads.
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = map.get(&key) {
            return Ok(c.clone());
        }
        let c = Arc::new(compile(device, events, profile, pass)?);
        map.insert(key, c.clone());
        Ok(c)
    }
}

fn shader_error(
    pass: &PassPlan,
    stage: &'static str,
    line: Option<u32>,
    message: String,
) -> GpuError {
    GpuError::Shader {
        pass: pass.id.clone(),
        template: pass.shader.clone(),
        stage,
        line,
        message,
    }
}

/// naga's check of a pass's WGSL for a device profile, without a device: it parses, validates
/// with the profile's features (`shader-f16`, `subgroups`), has one compute entry point whose
/// workgroup size is the plan's, and binds no more storage buffers than the profile allows.
pub fn check_wgsl(profile: &DeviceProfile, pass: &PassPlan) -> Result<(), GpuError> {
    check_and_prove(profile, pass).map(drop)
}

/// [`check_wgsl`], then [`nbits_mlp_core::bounds::prove_indices`] on the module it validated:
/// `Ok(Err(..))` names the first access the proof could not bound (the runtime then keeps wgpu's
/// bounds checks in that shader).
pub fn check_wgsl_and_prove(
    profile: &DeviceProfile,
    pass: &PassPlan,
) -> Result<Result<(), nbits_mlp_core::bounds::Unproven>, GpuError> {
    check_and_prove(profile, pass).map(|c| c.proof)
}

/// A pass's shader as [`check_wgsl`] accepted it, with the verdict of its index proof.
pub(crate) struct CheckedShader {
    /// The parsed module.
    pub module: naga::Module,
    /// Its validation info (with the profile's capabilities).
    pub info: naga::valid::ModuleInfo,
    /// [`nbits_mlp_core::bounds::prove_indices`] on it: `Err` with the first access it could
    /// not bound.
    pub proof: Result<(), nbits_mlp_core::bounds::Unproven>,
}

/// [`check_wgsl`], then [`nbits_mlp_core::bounds::prove_indices`] on the validated module.
fn check_and_prove(profile: &DeviceProfile, pass: &PassPlan) -> Result<CheckedShader, GpuError> {
    let src = &pass.wgsl;
    let path = format!("{}.wgsl", pass.id);
    let module = naga::front::wgsl::parse_str(src).map_err(|e| {
        let line = e.location(src).map(|l| l.line_number);
        shader_error(pass, "parse", line, e.emit_to_string_with_path(src, &path))
    })?;
    let mut validator =
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities(profile));
    let info = validator.validate(&module).map_err(|e| {
        let line = e.location(src).map(|l| l.line_number);
        shader_error(
            pass,
            "validation",
            line,
            e.emit_to_string_with_path(src, &path),
        )
    })?;
    let eps: Vec<_> = module
        .entry_points
        .iter()
        .filter(|e| e.stage == naga::ShaderStage::Compute)
        .collect();
    let [ep] = eps.as_slice() else {
        return Err(shader_error(
            pass,
            "validation",
            None,
            format!(
                "expected exactly one compute entry point, found {}",
                eps.len()
            ),
        ));
    };
    if ep.workgroup_size != pass.workgroup_size {
        return Err(shader_error(
            pass,
            "validation",
            None,
            format!(
                "the compiled shader's workgroup size is {:?}, the plan says {:?}",
                ep.workgroup_size, pass.workgroup_size
            ),
        ));
    }
    let storage = pass
        .bindings
        .iter()
        .filter(|b| b.access != BufferKind::Uniform)
        .count() as u64;
    let max = profile
        .limit("maxStorageBuffersPerShaderStage")
        .unwrap_or(8);
    if storage > max {
        return Err(shader_error(
            pass,
            "validation",
            None,
            format!("binds {storage} storage buffers, the device profile allows {max} (maxStorageBuffersPerShaderStage)"),
        ));
    }
    let proof = nbits_mlp_core::bounds::prove_indices(&module, &info);
    Ok(CheckedShader {
        module,
        info,
        proof,
    })
}

fn compile(
    device: &wgpu::Device,
    events: &DeviceEvents,
    profile: &DeviceProfile,
    pass: &PassPlan,
) -> Result<CompiledPass, GpuError> {
    let proof = check_and_prove(profile, pass)?.proof;
    let checks = effective_checks(device, &proof);
    let label = format!("pass `{}` ({})", pass.id, pass.shader);
    let entries: Vec<wgpu::BindGroupLayoutEntry> = pass
        .bindings
        .iter()
        .map(|b| wgpu::BindGroupLayoutEntry {
            binding: b.binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match b.access {
                    BufferKind::ReadOnlyStorage => {
                        wgpu::BufferBindingType::Storage { read_only: true }
                    }
                    BufferKind::Storage => wgpu::BufferBindingType::Storage { read_only: false },
                    BufferKind::Uniform => wgpu::BufferBindingType::Uniform,
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    let scopes = Scopes::push(device);
    let desc = wgpu::ShaderModuleDescriptor {
        label: Some(&label),
        source: wgpu::ShaderSource::Wgsl((*pass.wgsl).into()),
    };
    let module = match checks {
        ShaderChecks::Full => device.create_shader_module(desc),
        checks => {
            // SAFETY: the templates write no unbounded loops, divide only by non-zero constants,
            // and keep every index inside the bound buffers: the planner checks each bound
            // buffer's size against the shapes the shader is rendered for and the runtime binds
            // exactly those buffers (`check_args`). `Bounds` keeps wgpu's bounds checks anyway;
            // `Proven` drops them only for a shader whose every index into workgroup and local
            // storage was proven in range (`effective_checks`), on Vulkan, whose robust buffer
            // access bounds the storage buffers in the driver.
            let mut rc = unsafe { wgpu::ShaderRuntimeChecks::all(false) };
            rc.bounds_checks = checks == ShaderChecks::Bounds;
            unsafe { device.create_shader_module_trusted(desc, rc) }
        }
    };
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(&label),
        entries: &entries,
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(&label),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(&label),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: None,
        compilation_options: wgpu::PipelineCompilationOptions {
            zero_initialize_workgroup_memory: checks == ShaderChecks::Full,
            ..Default::default()
        },
        cache: None,
    });
    scopes.pop(events, String::new).map_err(|e| {
        let message = match e {
            GpuError::Validation { message, .. } | GpuError::Internal { message, .. } => message,
            other => other.to_string(),
        };
        shader_error(pass, "pipeline", None, message)
    })?;
    Ok(CompiledPass { pipeline, layout })
}

/// Which of wgpu's shader runtime checks are compiled in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderChecks {
    /// wgpu's defaults: bounds checks on every array access, loop bounding, checked integer
    /// division, zero-initialised workgroup memory.
    Full,
    /// Bounds checks only (no loop bounding, raw integer division, no workgroup zeroing).
    Bounds,
    /// `Bounds`, except for shaders whose indices into workgroup arrays, local arrays, vectors
    /// and matrices are proven in range ([`nbits_mlp_core::bounds`]) on the Vulkan backend,
    /// whose robust buffer access bounds storage buffers in the driver: those run as `None`.
    Proven,
    /// None of them.
    None,
}

impl ShaderChecks {
    /// The setting's name, as `NBITS_MLP_SHADER_CHECKS` spells it.
    pub fn name(self) -> &'static str {
        match self {
            ShaderChecks::Full => "full",
            ShaderChecks::Bounds => "bounds",
            ShaderChecks::Proven => "proven",
            ShaderChecks::None => "none",
        }
    }
}

/// The shader checks asked for: `NBITS_MLP_SHADER_CHECKS=full|bounds|proven|none` (default
/// `proven`).
pub fn shader_checks() -> ShaderChecks {
    match std::env::var("NBITS_MLP_SHADER_CHECKS").as_deref() {
        Ok("full") => ShaderChecks::Full,
        Ok("bounds") => ShaderChecks::Bounds,
        Ok("none") => ShaderChecks::None,
        _ => ShaderChecks::Proven,
    }
}

/// `pass`'s shader checked against `profile` and its indices proven, as [`compile`] does, and
/// the checks the runtime compiles it with on `gpu`.
pub(crate) fn checked_for(
    gpu: &crate::Gpu,
    profile: &DeviceProfile,
    pass: &PassPlan,
) -> Result<(CheckedShader, ShaderChecks), GpuError> {
    let checked = check_and_prove(profile, pass)?;
    let checks = effective_checks(gpu.device(), &checked.proof);
    Ok((checked, checks))
}

/// The checks one shader is compiled with: [`shader_checks`], with `Proven` resolved by the
/// shader's index proof and the device's backend.
fn effective_checks(
    device: &wgpu::Device,
    proof: &Result<(), nbits_mlp_core::bounds::Unproven>,
) -> ShaderChecks {
    match shader_checks() {
        ShaderChecks::Proven
            if proof.is_ok() && device.adapter_info().backend == wgpu::Backend::Vulkan =>
        {
            ShaderChecks::None
        }
        ShaderChecks::Proven => ShaderChecks::Bounds,
        other => other,
    }
}
