//! Tuned planning, the one rule every caller uses ([`plan_tuned`]): explicit overrides, else the
//! tuned values of the call's class, else the defaults. What the cache did is returned as data
//! ([`TunedPlan`]); whether to print it is the caller's choice.

use super::TuningCache;
use crate::manifest::Manifest;
use crate::op::OpCall;
use crate::plan::Plan;
use crate::planner::{PlanError, Planner, Tunables};
use std::sync::Arc;

/// A plan made by [`plan_tuned`], and what the tuning cache contributed to it.
#[derive(Debug)]
pub struct TunedPlan {
    /// The plan.
    pub plan: Arc<Plan>,
    /// The tuned values the plan was made with; empty when it was made from the caller's
    /// overrides or the defaults.
    pub tuned: Tunables,
    /// Tuned values the cache holds for the call's class that did not plan for this call, and
    /// the planner's error: the plan was made with the defaults instead.
    pub ignored: Option<(Tunables, PlanError)>,
}

impl TunedPlan {
    /// The warning a command line prints for [`TunedPlan::ignored`]: `the tuned values A=1 do
    /// not plan for this call (why); using the defaults`.
    pub fn warning(&self) -> Option<String> {
        let (t, e) = self.ignored.as_ref()?;
        Some(format!(
            "the tuned values {} do not plan for this call ({e}); using the defaults",
            tunables_text(t)
        ))
    }
}

/// Plans `call` with the tunables the rule picks:
///
/// 1. `overrides` when any are given (the cache is not consulted: tuned values are tuned
///    jointly, so they are not mixed with hand-picked ones);
/// 2. else, when `cache` holds non-default values for the call's class
///    ([`TuningCache::tunables_for`]), those values;
/// 3. else the manifest's defaults.
///
/// Tuned values that do not plan for this call (the class was tuned on another shape of the
/// bucket, or a value this call refuses) fall back to the defaults and are reported in
/// [`TunedPlan::ignored`], never as an error: the cache is advice. Errors planning the
/// overrides or the defaults are returned.
pub fn plan_tuned(
    planner: &Planner,
    call: &OpCall,
    overrides: &Tunables,
    cache: Option<&TuningCache>,
) -> Result<TunedPlan, PlanError> {
    let mut ignored = None;
    if overrides.is_empty() {
        if let Some(t) = cache.and_then(|c| c.tunables_for(call, planner.manifest())) {
            match planner.plan(call, t) {
                Ok(plan) => {
                    return Ok(TunedPlan {
                        plan,
                        tuned: t.clone(),
                        ignored: None,
                    })
                }
                Err(e) => ignored = Some((t.clone(), e)),
            }
        }
    }
    Ok(TunedPlan {
        plan: planner.plan(call, overrides)?,
        tuned: Tunables::new(),
        ignored,
    })
}

/// The tunables of a plan that differ from the manifest's defaults (what tuning or overrides
/// changed).
pub fn non_default_tunables(plan: &Plan, manifest: &Manifest) -> Tunables {
    plan.tunables
        .iter()
        .filter(|(k, v)| manifest.file.tunables.get(*k).map(|t| t.default) != Some(**v))
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

/// `A=1 B=2`.
pub fn tunables_text(t: &Tunables) -> String {
    if t.is_empty() {
        return "defaults".into();
    }
    t.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}
