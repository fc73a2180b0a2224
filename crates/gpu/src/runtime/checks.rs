//! Checks before anything is recorded: a device profile against the device, a plan against the
//! device profile, the caller's tensors against the plan; and the names errors give passes,
//! bindings and resources.

use super::tensor::{describe, padded, tensor_bytes};
use super::Runtime;
use crate::error::GpuError;
use crate::gpu::limit_is_minimum;
use nbits_mlp_core::device::WEBGPU_DEFAULT_LIMITS;
use nbits_mlp_core::manifest::BufferKind;
use nbits_mlp_core::plan::{BindingPlan, PassPlan, Resource};
use nbits_mlp_core::{DeviceProfile, Plan, Tensor, TensorInfo};

/// Whether an active pass of the plan binds input `index`.
pub(super) fn binds_input(plan: &Plan, index: usize) -> bool {
    plan.active_passes()
        .flat_map(|p| &p.bindings)
        .any(|b| matches!(b.resource, Resource::Input { index: i, .. } if i == index))
}

/// A pass for messages: `pass \`main\` (template \`t\`; bindings 0=input 0 \`A\`, ...)`.
pub(super) fn pass_name(pass: &PassPlan) -> String {
    let names: Vec<String> = pass
        .bindings
        .iter()
        .map(|b| format!("{}={}", b.binding, resource_name(&b.resource)))
        .collect();
    format!(
        "pass `{}` (template `{}`; bindings {})",
        pass.id,
        pass.shader,
        names.join(", ")
    )
}

/// What a binding is bound to, for messages: `input 3 \`gate_B\``.
pub(super) fn resource_name(r: &Resource) -> String {
    match r {
        Resource::Input { index, onnx, .. } => format!("input {index} `{onnx}`"),
        Resource::Prepared {
            index,
            onnx,
            weights,
            ..
        } => format!(
            "input {index} `{onnx}` in the prepared layout {}",
            weights.layout
        ),
        Resource::Output { index, onnx, .. } => format!("output {index} `{onnx}`"),
        Resource::Scratch { id, .. } => format!("intermediate `{id}`"),
        Resource::Uniform { .. } => "uniforms".into(),
    }
}

/// A binding for messages: `pass \`main\` binding 3 \`gate_B\` (input 3 \`gate_B\`)`.
pub(super) fn binding_name(pass: &PassPlan, b: &BindingPlan) -> String {
    format!(
        "pass `{}` binding {} `{}` ({})",
        pass.id,
        b.binding,
        b.key,
        resource_name(&b.resource)
    )
}

/// Whether the plan has nothing to compute: every output it produces is empty.
pub(super) fn nothing_to_do(plan: &Plan) -> bool {
    plan.outputs
        .iter()
        .filter(|o| o.present)
        .all(|o| o.shape.iter().product::<usize>() == 0)
}

/// Checks that `profile` asks no more of the device than `device` (its granted profile) offers.
pub(super) fn check_restriction(
    profile: &DeviceProfile,
    device: &DeviceProfile,
) -> Result<(), GpuError> {
    let err = |message: String| GpuError::Profile {
        profile: profile.name.clone(),
        message,
    };
    for name in WEBGPU_DEFAULT_LIMITS
        .iter()
        .map(|(k, _)| *k)
        .chain(profile.limits.keys().map(String::as_str))
    {
        let want = profile
            .limit(name)
            .ok_or_else(|| err(format!("unknown limit `{name}`")))?;
        let have = device
            .limit(name)
            .ok_or_else(|| err(format!("unknown limit `{name}`")))?;
        let ok = if limit_is_minimum(name) {
            want >= have
        } else {
            want <= have
        };
        if !ok {
            return Err(err(format!("{name} = {want}, the device granted {have}")));
        }
    }
    for f in &profile.features {
        if !device.has_feature(f) {
            return Err(err(format!("feature `{f}` was not granted")));
        }
    }
    Ok(())
}

impl Runtime {
    /// Checks host tensors before a host run: each holds the bytes its dtype and shape need,
    /// and the parameters that must be finite are.
    pub(super) fn check_host_inputs(
        &self,
        plan: &Plan,
        inputs: &[Option<&Tensor>],
    ) -> Result<(), GpuError> {
        for (index, t) in inputs.iter().enumerate() {
            if let Some(t) = t {
                let want = tensor_bytes(&t.info());
                if t.data.len() as u64 != want {
                    return Err(self.input_error(
                        plan,
                        index,
                        format!(
                            "holds {} bytes, {} needs {want}",
                            t.data.len(),
                            describe(&t.info())
                        ),
                    ));
                }
            }
        }
        Self::check_parameters(inputs)
    }

    /// Checks that the op's float parameters given in `inputs` (ONNX order: `norm_scale`, the
    /// scales and the biases; the others are not looked at) are finite, the op's semantics
    /// ([`nbits_mlp_core::op::non_finite_parameter`]): an [`GpuError::Input`] naming the tensor
    /// and the first non-finite element otherwise. [`Runtime::run`] calls it on its host
    /// tensors; device tensors are never read back, so whoever uploads parameters for
    /// [`Runtime::run_on_device`] calls it on the host tensors first (the Python package and the
    /// ONNX Runtime custom op do).
    pub fn check_parameters(inputs: &[Option<&Tensor>]) -> Result<(), GpuError> {
        match nbits_mlp_core::op::non_finite_parameter(inputs) {
            Some((index, name, message)) => Err(GpuError::Input {
                index,
                name: name.into(),
                message,
            }),
            None => Ok(()),
        }
    }

    /// An error of input `index`, named as the plan's bindings name it.
    pub(super) fn input_error(&self, plan: &Plan, index: usize, message: String) -> GpuError {
        let name = plan
            .passes
            .iter()
            .flat_map(|p| &p.bindings)
            .find_map(|b| match &b.resource {
                Resource::Input { index: i, onnx, .. }
                | Resource::Prepared { index: i, onnx, .. }
                    if *i == index =>
                {
                    Some(onnx.clone())
                }
                _ => None,
            })
            .unwrap_or_else(|| format!("#{index}"));
        GpuError::Input {
            index,
            name,
            message,
        }
    }

    /// Checks a plan's own consistency against this device profile.
    pub(super) fn check_plan(&self, plan: &Plan) -> Result<(), GpuError> {
        let bad = |message: String| GpuError::InvalidPlan {
            variant: plan.variant.clone(),
            message,
        };
        let max_wg = self.limit("maxComputeWorkgroupsPerDimension");
        let max_uniform = self.limit("maxUniformBufferBindingSize");
        for p in plan.active_passes() {
            if let Some(d) = p.dispatch.iter().find(|&&d| u64::from(d) > max_wg) {
                return Err(bad(format!("pass `{}` dispatches {d} workgroups in one dimension, maxComputeWorkgroupsPerDimension is {max_wg}", p.id)));
            }
            for (i, b) in p.bindings.iter().enumerate() {
                if b.binding as usize != i {
                    return Err(bad(format!(
                        "{}: bindings must be numbered 0, 1, ... in order",
                        binding_name(p, b)
                    )));
                }
                if !access_fits(plan, p, b, max_uniform)? {
                    return Err(bad(format!(
                        "{}: access {:?} does not fit the resource, or the resource does not exist",
                        binding_name(p, b),
                        b.access
                    )));
                }
            }
        }
        Ok(())
    }

    /// Checks the caller's tensors against the plan: the outputs given are those it produces,
    /// and every tensor an active pass binds was given, with the bytes the binding binds.
    pub(super) fn check_args(
        &self,
        plan: &Plan,
        inputs: &[Option<&TensorInfo>],
        outputs: &[Option<&TensorInfo>],
    ) -> Result<(), GpuError> {
        check_outputs(plan, outputs)?;
        let max_binding = self.limit("maxStorageBufferBindingSize");
        for p in plan.active_passes() {
            for b in &p.bindings {
                self.check_binding(plan, p, b, (inputs, outputs), max_binding)?;
            }
        }
        Ok(())
    }

    /// Checks the caller's tensor bound by binding `b` of pass `p` (none for intermediates and
    /// uniforms): given, as many bytes as the binding binds, within `max_binding`.
    fn check_binding(
        &self,
        plan: &Plan,
        p: &PassPlan,
        b: &BindingPlan,
        (inputs, outputs): (&[Option<&TensorInfo>], &[Option<&TensorInfo>]),
        max_binding: u64,
    ) -> Result<(), GpuError> {
        let (index, given, input) = match &b.resource {
            Resource::Input { index, .. } | Resource::Prepared { index, .. } => {
                (*index, inputs.get(*index).copied().flatten(), true)
            }
            Resource::Output { index, .. } => {
                (*index, outputs.get(*index).copied().flatten(), false)
            }
            _ => return Ok(()),
        };
        let Some(a) = given else {
            return Err(if input {
                self.input_error(
                    plan,
                    index,
                    format!("{} needs it but it was not given", binding_name(p, b)),
                )
            } else {
                GpuError::Output {
                    index,
                    name: resource_name(&b.resource),
                    message: "not given".into(),
                }
            });
        };
        let have = padded(tensor_bytes(a));
        // A prepared copy is made from the caller's tensor: that must be the size the layout's
        // geometry rearranges; the binding holds the copy.
        let (want, bound) = match &b.resource {
            Resource::Prepared { weights, .. } => {
                (padded(weights.original_bytes() as u64), padded(b.bytes))
            }
            _ => (padded(b.bytes), have),
        };
        if have != want {
            let message = format!(
                "{} ({have} bytes padded) does not fit {}, which binds {} bytes: the plan was made for other tensors",
                describe(a),
                binding_name(p, b),
                b.bytes
            );
            return Err(match &b.resource {
                Resource::Output { onnx, .. } => GpuError::Output {
                    index,
                    name: onnx.clone(),
                    message,
                },
                _ => self.input_error(plan, index, message),
            });
        }
        if bound > max_binding {
            return Err(GpuError::BufferTooLarge {
                what: binding_name(p, b),
                bytes: bound,
                limit_name: "maxStorageBufferBindingSize",
                limit: max_binding,
            });
        }
        Ok(())
    }
}

/// Whether binding `b` of pass `p` has an access that fits its resource, and the resource
/// exists in the plan. A uniform block over `max_uniform` bytes is an error of its own.
fn access_fits(
    plan: &Plan,
    p: &PassPlan,
    b: &BindingPlan,
    max_uniform: u64,
) -> Result<bool, GpuError> {
    Ok(match &b.resource {
        Resource::Input { .. } => b.access != BufferKind::Uniform,
        Resource::Prepared { weights, .. } => {
            b.access == BufferKind::ReadOnlyStorage && b.bytes == weights.prepared_bytes() as u64
        }
        Resource::Output { index, .. } => {
            b.access == BufferKind::Storage && plan.outputs.get(*index).is_some_and(|o| o.present)
        }
        Resource::Scratch { index, .. } => {
            b.access != BufferKind::Uniform
                && plan
                    .intermediates
                    .get(*index)
                    .is_some_and(|s| padded(s.bytes) >= b.bytes)
        }
        Resource::Uniform { bytes, .. } => {
            if bytes.len() as u64 > max_uniform {
                return Err(GpuError::BufferTooLarge {
                    what: binding_name(p, b),
                    bytes: bytes.len() as u64,
                    limit_name: "maxUniformBufferBindingSize",
                    limit: max_uniform,
                });
            }
            b.access == BufferKind::Uniform && !bytes.is_empty() && bytes.len() % 16 == 0
        }
    })
}

/// Checks the outputs given against those the plan produces: each produced one given with the
/// plan's dtype and shape, none given that it does not produce.
fn check_outputs(plan: &Plan, outputs: &[Option<&TensorInfo>]) -> Result<(), GpuError> {
    for (index, o) in plan.outputs.iter().enumerate() {
        let given = outputs.get(index).copied().flatten();
        let err = |message: String| GpuError::Output {
            index,
            name: o.onnx.clone(),
            message,
        };
        match (o.present, given) {
            (true, None) => return Err(err("the plan produces it but no tensor was given".into())),
            (false, Some(_)) => {
                return Err(err(
                    "a tensor was given but the plan does not produce this output".into(),
                ))
            }
            (true, Some(a)) if a.dtype != o.dtype || a.shape != o.shape => {
                return Err(err(format!(
                    "{} given, the plan produces {} {:?}",
                    describe(a),
                    o.dtype,
                    o.shape
                )))
            }
            _ => {}
        }
    }
    if outputs.len() > plan.outputs.len()
        && outputs[plan.outputs.len()..].iter().any(Option::is_some)
    {
        return Err(GpuError::Output {
            index: plan.outputs.len(),
            name: String::new(),
            message: format!("the operator has {} outputs", plan.outputs.len()),
        });
    }
    Ok(())
}
