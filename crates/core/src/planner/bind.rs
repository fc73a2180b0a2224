//! What the winning variant's passes bind: its intermediates (scratch buffers) and, per pass,
//! every binding with its resource (an input, an output, a scratch buffer or a uniform struct:
//! [`super::uniforms`]), its element type and its size, checked against the manifest's `length`
//! and the device's `maxStorageBufferBindingSize`.

use super::env::{shape_of, Ctx};
use super::PlanError;
use crate::expr::{ErrorKind, Value};
use crate::manifest::{Binding, BufferKind, Pass, Variant};
use crate::plan::{BindingPlan, IntermediatePlan, Resource};
use crate::tensor::{DType, TensorInfo};

impl Ctx<'_> {
    /// The variant's intermediates: dtype, shape from its expression, and size in bytes.
    pub(super) fn intermediates(
        &mut self,
        v: &Variant,
    ) -> Result<Vec<IntermediatePlan>, PlanError> {
        let vid = &v.decl.id;
        let mut intermediates = Vec::with_capacity(v.intermediates.len());
        for (d, e) in &v.intermediates {
            let val = e.eval(self).map_err(|err| {
                err.within(format!("variant `{vid}` intermediates.{}.shape", d.id))
            })?;
            let shape = shape_of(&val).ok_or_else(|| {
                e.error(
                    ErrorKind::TypeMismatch,
                    format!("shape must be a list of non-negative ints, got {val}"),
                )
            })?;
            let dtype = self.resolve_dtype(&d.dtype).ok_or_else(|| {
                e.error(
                    ErrorKind::TypeMismatch,
                    format!(
                        "unknown dtype `{}` (neither a dtype nor one of the manifest's type constraints)",
                        d.dtype
                    ),
                )
                .within(format!("variant `{vid}` intermediates.{}.dtype", d.id))
            })?;
            let bytes = shape
                .iter()
                .try_fold(dtype.size() as u64, |acc, d| acc.checked_mul(*d as u64))
                .ok_or_else(|| {
                    e.error(
                        ErrorKind::Overflow,
                        format!(
                            "intermediate `{}` of shape {shape:?} is larger than 2^64 bytes",
                            d.id
                        ),
                    )
                    .within(format!("variant `{vid}` intermediates.{}.shape", d.id))
                })?;
            intermediates.push(IntermediatePlan {
                id: d.id.clone(),
                dtype,
                shape,
                bytes,
            });
        }
        Ok(intermediates)
    }

    /// The type a tensor or intermediate declares: a dtype name (`float32`, `float16`, ...), or
    /// the name of one of the manifest's type constraints, which resolves to the type this call
    /// binds to it (`T1`, the manifest's one type parameter; for intermediates a project
    /// extension of the manifest language). `None` for any other name.
    pub(super) fn resolve_dtype(&self, name: &str) -> Option<DType> {
        if self.m.file.type_constraints.contains_key(name) {
            Some(self.t1)
        } else {
            DType::from_name(name)
        }
    }

    /// Every binding of `pass` (of variant `v`), in declaration order (its position is its
    /// `@binding`).
    pub(super) fn bindings(
        &mut self,
        v: &Variant,
        pass: &Pass,
        intermediates: &[IntermediatePlan],
    ) -> Result<Vec<BindingPlan>, PlanError> {
        let max_binding = self
            .device
            .limit("maxStorageBufferBindingSize")
            .unwrap_or(u64::MAX);
        let mut bindings = Vec::with_capacity(pass.decl.bindings.len());
        for (bi, key) in pass.decl.bindings.iter().enumerate() {
            let site = Site {
                key,
                pass: &pass.decl.id,
                variant: &v.decl.id,
            };
            let b = self
                .m
                .bindings
                .get(key)
                .ok_or_else(|| site.error("no such binding in the manifest".into()))?;
            let element_type = self.element_type(b, &site)?;
            let min_elements = self.min_elements(b, key)?;
            let (resource, bytes, elements) = self.resource(b, &site, intermediates)?;
            if let Some(min) = min_elements {
                if elements < min {
                    return Err(site.error(format!(
                        "holds {elements} elements, the manifest requires at least {min} (`{}`)",
                        b.decl.length.clone().unwrap_or_default()
                    )));
                }
            }
            if b.decl.buffer != BufferKind::Uniform && bytes > max_binding {
                return Err(site.error(format!(
                    "{bytes} bytes exceed the device's maxStorageBufferBindingSize ({max_binding})"
                )));
            }
            bindings.push(BindingPlan {
                binding: bi as u32,
                key: key.clone(),
                name: b.decl.name.clone().unwrap_or_else(|| key.clone()),
                access: b.decl.buffer,
                element_type: if b.decl.buffer == BufferKind::Uniform {
                    crate::render::uniform_struct_name(b.decl.name.as_deref().unwrap_or(key))
                } else {
                    element_type
                },
                resource,
                bytes: bytes.div_ceil(4) * 4,
                min_elements,
            });
        }
        Ok(bindings)
    }

    /// A binding's WGSL element type: as declared, or the string value of the derive entry a
    /// `$name` declaration names; empty when none is declared.
    fn element_type(&mut self, b: &Binding, site: &Site) -> Result<String, PlanError> {
        let Some(t) = &b.decl.element_type else {
            return Ok(String::new());
        };
        let Some(d) = t.strip_prefix('$') else {
            return Ok(t.clone());
        };
        match self.derive_value(d)? {
            Some(Value::Str(s)) => Ok(s),
            other => Err(site.error(format!(
                "elementType `{t}` must name a string derive, got {other:?}"
            ))),
        }
    }

    /// The element count the manifest's `length` requires of a binding, if it has one.
    fn min_elements(&mut self, b: &Binding, key: &str) -> Result<Option<u64>, PlanError> {
        let Some(e) = &b.length else {
            return Ok(None);
        };
        let n = e
            .eval_int(self)
            .map_err(|err| err.within(format!("bindings.{key}.length")))?;
        Ok(Some(n.max(0) as u64))
    }

    /// What a binding binds, its size in bytes and its element count: the caller's tensor, an
    /// intermediate of the variant, or a uniform struct.
    fn resource(
        &mut self,
        b: &Binding,
        site: &Site,
        intermediates: &[IntermediatePlan],
    ) -> Result<(Resource, u64, u64), PlanError> {
        if let (Some(arg), Some(layout)) = (&b.decl.arg, &b.decl.layout) {
            self.prepared_resource(arg, layout, site)
        } else if let Some(arg) = &b.decl.arg {
            self.tensor_resource(arg, site)
        } else if let Some(s) = &b.decl.scratch {
            scratch_resource(s, site, intermediates)
        } else {
            self.uniform_resource(b, site)
        }
    }

    /// The caller's input or output `arg`, which must be present.
    fn tensor_resource(&self, arg: &str, site: &Site) -> Result<(Resource, u64, u64), PlanError> {
        let m = self.m;
        let (ti, t) = self.present_tensor(arg, site)?;
        let n_in = m.inputs.len();
        let res = if ti < n_in {
            Resource::Input {
                index: ti,
                arg: arg.to_string(),
                onnx: m.inputs[ti].decl.onnx.clone(),
            }
        } else {
            Resource::Output {
                index: ti - n_in,
                arg: arg.to_string(),
                onnx: m.outputs[ti - n_in].decl.onnx.clone(),
            }
        };
        let bytes = (t.numel() * t.dtype.size()) as u64;
        Ok((res, bytes, t.numel() as u64))
    }

    /// The index and description of the caller's input or output `arg`, which must be present.
    fn present_tensor(&self, arg: &str, site: &Site) -> Result<(usize, TensorInfo), PlanError> {
        let ti = self
            .tensor_index(arg)
            .ok_or_else(|| site.error(format!("arg `{arg}` is not a tensor of the operator")))?;
        let t = self.tensors[ti]
            .clone()
            .ok_or_else(|| site.error(format!("tensor `{arg}` is not present")))?;
        Ok((ti, t))
    }

    /// The runtime's copy of the caller's input `arg` in the prepared layout `name`: its size
    /// comes from the op's geometry ([`Ctx::prepared_weights`]).
    fn prepared_resource(
        &self,
        arg: &str,
        name: &str,
        site: &Site,
    ) -> Result<(Resource, u64, u64), PlanError> {
        let (ti, t) = self.present_tensor(arg, site)?;
        let layout = crate::layout::PreparedLayout::from_name(name)
            .ok_or_else(|| site.error(format!("layout `{name}` is not a prepared layout")))?;
        let weights = self.prepared_weights(layout, &t)?;
        weights.check().map_err(|e| site.error(e.to_string()))?;
        let bytes = weights.prepared_bytes() as u64;
        let res = Resource::Prepared {
            index: ti,
            arg: arg.to_string(),
            onnx: self.m.inputs[ti].decl.onnx.clone(),
            weights,
        };
        Ok((res, bytes, bytes / weights.elem_bytes as u64))
    }

    /// The geometry of a prepared weight tensor: the op's N, K, bits and block size, and the
    /// tensor's element size.
    fn prepared_weights(
        &self,
        layout: crate::layout::PreparedLayout,
        t: &TensorInfo,
    ) -> Result<crate::layout::PreparedWeights, PlanError> {
        let int = |name: &str| -> Result<usize, PlanError> {
            match self.attrs.get(name) {
                Some(Value::Int(i)) if *i > 0 => Ok(*i as usize),
                other => Err(PlanError::Attribute {
                    name: name.to_string(),
                    message: format!(
                        "prepared layout {layout} needs a positive int, got {other:?}"
                    ),
                }),
            }
        };
        Ok(crate::layout::PreparedWeights {
            layout,
            n: int("N")?,
            k: int("K")?,
            bits: int("bits")? as u32,
            block_size: int("block_size")?,
            elem_bytes: t.dtype.size(),
        })
    }
}

/// The intermediate `s` of the variant.
fn scratch_resource(
    s: &str,
    site: &Site,
    intermediates: &[IntermediatePlan],
) -> Result<(Resource, u64, u64), PlanError> {
    let idx = intermediates
        .iter()
        .position(|x| x.id == s)
        .ok_or_else(|| {
            site.error(format!(
                "scratch `{s}` is not an intermediate of variant `{}`",
                site.variant
            ))
        })?;
    let it = &intermediates[idx];
    Ok((
        Resource::Scratch {
            index: idx,
            id: s.to_string(),
        },
        it.bytes,
        it.shape.iter().product::<usize>() as u64,
    ))
}

/// Where a binding is planned, for its errors.
pub(super) struct Site<'s> {
    /// The binding key.
    pub(super) key: &'s str,
    /// The pass id.
    pub(super) pass: &'s str,
    /// The variant id.
    pub(super) variant: &'s str,
}

impl Site<'_> {
    /// A [`PlanError::Binding`] for this binding.
    pub(super) fn error(&self, message: String) -> PlanError {
        PlanError::Binding {
            binding: self.key.to_string(),
            pass: self.pass.to_string(),
            message,
        }
    }
}
