//! The plan of the winning variant, step by step: intermediates ([`super::bind`]), the base
//! template context ([`super::context`]), then per pass its dispatch ([`super::dispatch`]), its
//! bindings and uniforms ([`super::bind`], [`super::uniforms`]), its context and its rendered
//! WGSL; last the outputs.

use super::context::{pass_context, uses_subgroups, Context};
use super::env::Ctx;
use super::PlanError;
use crate::expr::Value;
use crate::manifest::Pass;
use crate::plan::{BindingPlan, OutputPlan, PassPlan, Plan, Verdict};
use crate::render::{RenderError, Target, Templates};
use std::sync::Arc;

impl Ctx<'_> {
    /// The plan of variant `wi` (the winner among `verdicts`), its passes rendered from
    /// `templates` for `target`.
    pub(super) fn build(
        &mut self,
        wi: usize,
        verdicts: Vec<Verdict>,
        templates: &Templates,
        target: Target,
    ) -> Result<Plan, PlanError> {
        let m = self.m;
        let v = &m.variants[wi];
        self.set_variant(Some(wi));
        let intermediates = self.intermediates(v)?;
        let rows = self.rows();
        let mut base = self.base_context(v);
        let mut passes = Vec::with_capacity(v.passes.len());
        for (pi, pass) in v.passes.iter().enumerate() {
            let dispatch = self.dispatch(&v.decl.id, pass)?;
            let bindings = self.bindings(v, pass, &intermediates)?;
            // The last pass takes the base context; earlier ones copy it.
            let base = if pi + 1 == v.passes.len() {
                std::mem::take(&mut base)
            } else {
                base.clone()
            };
            passes.push(self.render_pass(pass, dispatch, bindings, base, templates, target)?);
        }
        Ok(Plan {
            variant: v.decl.id.clone(),
            priority: v.decl.priority,
            dtype: self.t1,
            device: self.device.name.clone(),
            attrs: self
                .attrs
                .iter()
                .map(|(k, v)| (k.clone(), v.to_json()))
                .collect(),
            tunables: self.tunables.clone(),
            rows,
            outputs: self.outputs(),
            intermediates,
            passes,
            verdicts,
        })
    }

    /// Rows of A: the derive `aRows` where it evaluates to a non-negative int, else the product
    /// of A's leading dimensions.
    fn rows(&mut self) -> u64 {
        match self.derive_value("aRows") {
            Ok(Some(Value::Int(r))) if r >= 0 => r as u64,
            _ => {
                let a = self.tensors[0]
                    .as_ref()
                    .map(|t| t.shape.clone())
                    .unwrap_or_default();
                a.iter().rev().skip(1).product::<usize>() as u64
            }
        }
    }

    /// One pass: its context completed from `base`, its template rendered, and the rendered
    /// workgroup size checked against `maxComputeInvocationsPerWorkgroup`.
    fn render_pass(
        &self,
        pass: &Pass,
        dispatch: [u32; 3],
        bindings: Vec<BindingPlan>,
        base: Context,
        templates: &Templates,
        target: Target,
    ) -> Result<PassPlan, PlanError> {
        let pid = &pass.decl.id;
        let subgroups = uses_subgroups(self, pass);
        let context = Arc::new(pass_context(base, pass, subgroups, &bindings));
        let (wgsl, workgroup_size) =
            templates.render(&pass.decl.shader, &context, &bindings, subgroups, target)?;
        // The template's values are gone once it has rendered: take the map back.
        let context = Arc::try_unwrap(context).unwrap_or_else(|shared| (*shared).clone());
        let limit_inv = self
            .device
            .limit("maxComputeInvocationsPerWorkgroup")
            .unwrap_or(256);
        if (workgroup_size.iter().map(|&d| d as u64).product::<u64>()) > limit_inv {
            return Err(PlanError::Render(RenderError::Template {
                template: pass.decl.shader.clone(),
                message: format!("workgroup size {workgroup_size:?} exceeds maxComputeInvocationsPerWorkgroup ({limit_inv})"),
            }));
        }
        Ok(PassPlan {
            id: pid.clone(),
            name: pass.decl.name.clone().unwrap_or_else(|| pid.clone()),
            shader: pass.decl.shader.clone(),
            dispatch,
            skipped: dispatch.contains(&0),
            workgroup_size,
            subgroups,
            bindings,
            context,
            wgsl: wgsl.into(),
        })
    }

    /// Every output of the operator: present or not, its dtype and shape.
    fn outputs(&self) -> Vec<OutputPlan> {
        let m = self.m;
        m.outputs
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let t = &self.tensors[m.inputs.len() + i];
                OutputPlan {
                    index: i,
                    arg: a.arg.clone(),
                    onnx: a.decl.onnx.clone(),
                    present: t.is_some(),
                    dtype: t.as_ref().map(|t| t.dtype).unwrap_or(self.t1),
                    shape: t.as_ref().map(|t| t.shape.clone()).unwrap_or_default(),
                }
            })
            .collect()
    }
}
