//! Uniform packing: a uniform binding's `struct` fields evaluated and laid out by WGSL's
//! uniform rules (scalar fields of 4 bytes in order, the size rounded up to 16 bytes).

use super::bind::Site;
use super::env::Ctx;
use super::PlanError;
use crate::expr::Value;
use crate::manifest::{Binding, StructField};
use crate::plan::{Resource, UniformField};

impl Ctx<'_> {
    /// A uniform binding's resource, its size in bytes and its element count (1).
    pub(super) fn uniform_resource(
        &mut self,
        b: &Binding,
        site: &Site,
    ) -> Result<(Resource, u64, u64), PlanError> {
        let mut fields = Vec::with_capacity(b.fields.len());
        let mut bytes = Vec::new();
        for f in &b.fields {
            let val = f
                .value
                .eval(self)
                .map_err(|err| err.within(format!("bindings.{}.struct.{}", site.key, f.name)))?;
            let (json, raw) = pack_field(f, val).map_err(|m| site.error(m))?;
            fields.push(UniformField {
                name: f.name.clone(),
                ty: f.ty.clone(),
                value: json,
                offset: bytes.len() as u32,
            });
            bytes.extend_from_slice(&raw);
        }
        bytes.resize(bytes.len().div_ceil(16).max(1) * 16, 0);
        let n = bytes.len() as u64;
        Ok((Resource::Uniform { fields, bytes }, n, 1))
    }
}

/// A field's value as the plan shows it and as the GPU reads it (4 little-endian bytes); an
/// error when the value does not fit the field's WGSL type.
fn pack_field(f: &StructField, val: Value) -> Result<(serde_json::Value, [u8; 4]), String> {
    match (f.ty.as_str(), &val) {
        ("u32", Value::Int(i)) if (0..=u32::MAX as i64).contains(i) => {
            Ok(((*i).into(), (*i as u32).to_le_bytes()))
        }
        ("i32", Value::Int(i)) if (i32::MIN as i64..=i32::MAX as i64).contains(i) => {
            Ok(((*i).into(), (*i as i32).to_le_bytes()))
        }
        ("f32", Value::Int(_) | Value::Float(_)) => {
            let x = match val {
                Value::Int(i) => i as f64,
                Value::Float(x) => x,
                _ => 0.0,
            };
            Ok((serde_json::json!(x), (x as f32).to_le_bytes()))
        }
        _ => Err(format!(
            "field `{}`: value {val} does not fit WGSL type {}",
            f.name, f.ty
        )),
    }
}
