//! The template context: what a pass's template may read. The base, shared by the variant's
//! passes, is every derive value that evaluates for the variant plus `attrs`, `tunables` and
//! `variant`; each pass adds `pass`, `subgroupCollectivesWidth`, `subgroups` and
//! `bindingNames`.

use super::env::Ctx;
use crate::manifest::{Pass, Variant};
use crate::plan::BindingPlan;

/// A template context (JSON object).
pub(super) type Context = serde_json::Map<String, serde_json::Value>;

impl Ctx<'_> {
    /// The context every pass of variant `v` starts from. A derive entry that fails to
    /// evaluate is left out (templates that need it fail to render).
    pub(super) fn base_context(&mut self, v: &Variant) -> Context {
        let m = self.m;
        let mut base = Context::with_capacity(m.derive.len() + v.derive.len() + 8);
        for n in m.derive.keys().chain(v.derive.keys()) {
            if let Ok(Some(val)) = self.derive_value(n) {
                base.insert(n.clone(), val.to_json());
            }
        }
        base.insert(
            "attrs".into(),
            serde_json::Value::Object(
                self.attrs
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        );
        base.insert(
            "tunables".into(),
            serde_json::Value::Object(
                self.tunables
                    .iter()
                    .map(|(k, v)| (k.clone(), (*v).into()))
                    .collect(),
            ),
        );
        base.insert("variant".into(), v.decl.id.clone().into());
        base
    }
}

/// Whether `pass` uses subgroup operations: the device has them and the pass is marked
/// `portable`.
pub(super) fn uses_subgroups(ctx: &Ctx, pass: &Pass) -> bool {
    ctx.device.has_feature("subgroups")
        && pass.decl.subgroup_collectives_width.as_deref() == Some("portable")
}

/// `base` completed for one pass.
pub(super) fn pass_context(
    mut context: Context,
    pass: &Pass,
    subgroups: bool,
    bindings: &[BindingPlan],
) -> Context {
    context.insert("pass".into(), pass.decl.id.clone().into());
    context.insert(
        "subgroupCollectivesWidth".into(),
        pass.decl
            .subgroup_collectives_width
            .clone()
            .map(Into::into)
            .unwrap_or(serde_json::Value::Null),
    );
    context.insert("subgroups".into(), subgroups.into());
    context.insert(
        "bindingNames".into(),
        bindings
            .iter()
            .map(|b| serde_json::Value::from(b.name.clone()))
            .collect(),
    );
    context
}
