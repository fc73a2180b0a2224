//! The GPU-free half of `nbits-mlp tune`: which values to try ([`search_space`]), which of them
//! change what runs ([`PlanSignature`], [`candidates`]), and the coordinate descent over them
//! ([`descend`]), with the timing left to a caller's closure.

use super::tunables_text;
use crate::manifest::Manifest;
use crate::plan::Plan;
use crate::planner::Tunables;
use std::collections::{BTreeMap, HashMap};

/// One tunable of the search: its default and the values to try (the default first, then the
/// manifest's candidates in order, without repeats).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dimension {
    /// Tunable name.
    pub name: String,
    /// Its default.
    pub default: i64,
    /// Values to try, the default first.
    pub values: Vec<i64>,
}

/// Every tunable of the manifest that has candidate values besides its default (overlay
/// `tunableValues`, or a tunable's own `values`), in the manifest's tunable order.
pub fn search_space(manifest: &Manifest) -> Vec<Dimension> {
    manifest
        .file
        .tunables
        .iter()
        .filter_map(|(name, decl)| {
            let mut values = vec![decl.default];
            for &v in manifest.tunable_values.get(name).into_iter().flatten() {
                if !values.contains(&v) {
                    values.push(v);
                }
            }
            (values.len() > 1).then(|| Dimension {
                name: name.clone(),
                default: decl.default,
                values,
            })
        })
        .collect()
}

/// What the GPU runs for a plan: every pass's WGSL, dispatch, skip flag and bindings (uniform
/// values included), and the intermediates. Two plans with equal signatures do the same work,
/// whatever their tunables or variant names.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlanSignature(pub(super) Vec<u8>);

impl PlanSignature {
    /// The signature of a plan.
    pub fn of(plan: &Plan) -> PlanSignature {
        let mut k = Vec::new();
        for p in &plan.passes {
            k.extend_from_slice(p.wgsl.as_bytes());
            k.push(0);
            for d in p.dispatch {
                k.extend_from_slice(&d.to_le_bytes());
            }
            k.push(u8::from(p.skipped));
            k.extend_from_slice(
                serde_json::to_string(&p.bindings)
                    .unwrap_or_default()
                    .as_bytes(),
            );
            k.push(0);
        }
        k.extend_from_slice(
            serde_json::to_string(&plan.intermediates)
                .unwrap_or_default()
                .as_bytes(),
        );
        PlanSignature(k)
    }
}

/// What planning one candidate value gave, compared with the default plan.
#[derive(Clone, Debug, PartialEq)]
pub enum Candidate {
    /// The default value.
    Default,
    /// A plan different from the default's and from every earlier candidate's.
    Distinct {
        /// Its variant.
        variant: String,
    },
    /// The same plan as the default's: the value does not matter for this call.
    SameAsDefault,
    /// The same plan as an earlier candidate value's.
    SameAs(i64),
    /// Planning failed (an illegal value for this call or device).
    Illegal(String),
}

/// One value of one tunable, and what planning it gave.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateReport {
    /// Tunable name.
    pub name: String,
    /// The value.
    pub value: i64,
    /// What it gave.
    pub outcome: Candidate,
}

/// Plans every candidate of every tunable with the other tunables at their defaults and says
/// which give a plan of their own (the values worth timing at the default point), which give
/// the default's plan, duplicate an earlier value, or do not plan. `plan` plans a call with
/// tunable overrides; an error planning the defaults is returned.
pub fn candidates(
    space: &[Dimension],
    plan: &mut dyn FnMut(&Tunables) -> Result<std::sync::Arc<Plan>, String>,
) -> Result<Vec<CandidateReport>, String> {
    let default = plan(&Tunables::new())?;
    let default_sig = PlanSignature::of(&default);
    let mut out = Vec::new();
    for dim in space {
        let mut seen: Vec<(PlanSignature, i64)> = Vec::new();
        for &value in &dim.values {
            let outcome = if value == dim.default {
                Candidate::Default
            } else {
                let t = Tunables::from([(dim.name.clone(), value)]);
                match plan(&t) {
                    Err(e) => Candidate::Illegal(e),
                    Ok(p) => {
                        let sig = PlanSignature::of(&p);
                        if sig == default_sig {
                            Candidate::SameAsDefault
                        } else if let Some((_, v)) = seen.iter().find(|(s, _)| *s == sig) {
                            Candidate::SameAs(*v)
                        } else {
                            seen.push((sig, value));
                            Candidate::Distinct {
                                variant: p.variant.clone(),
                            }
                        }
                    }
                }
            };
            out.push(CandidateReport {
                name: dim.name.clone(),
                value,
                outcome,
            });
        }
    }
    Ok(out)
}

/// Limits of the coordinate descent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescentLimits {
    /// Distinct plans timed at most (the defaults included).
    pub max_trials: usize,
    /// Sweeps over every tunable at most.
    pub max_sweeps: usize,
}

impl Default for DescentLimits {
    fn default() -> Self {
        DescentLimits {
            max_trials: 40,
            max_sweeps: 4,
        }
    }
}

/// One plan timed by the descent.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// The tunable overrides (non-default values only).
    pub tunables: Tunables,
    /// The plan's variant.
    pub variant: String,
    /// Median µs per call; `None` when timing it failed.
    pub us: Option<f64>,
}

/// What the coordinate descent found.
#[derive(Clone, Debug, PartialEq)]
pub struct Descent {
    /// The defaults' variant.
    pub default_variant: String,
    /// The defaults' time, µs.
    pub default_us: f64,
    /// The best point found (non-default values only; empty: the defaults).
    pub best: Tunables,
    /// Its variant.
    pub best_variant: String,
    /// Its time, µs.
    pub best_us: f64,
    /// Every distinct plan timed, in order (the defaults first).
    pub trials: Vec<Trial>,
    /// Sweeps run.
    pub sweeps: usize,
    /// Whether the search stopped at [`DescentLimits::max_trials`].
    pub capped: bool,
}

/// Coordinate descent over `space`: starting from the defaults, for one tunable at a time, plan
/// each of its values with the others at the current point and move to the fastest if it beats
/// the current time; sweep over all tunables until a sweep moves nothing, at most
/// `limits.max_sweeps` sweeps and `limits.max_trials` timed plans.
///
/// `plan` plans the call with tunable overrides (an error marks the value illegal: skipped).
/// `measure` times a plan, µs per call (an error marks the value unusable: skipped, logged).
/// Values whose plan equals one timed before (see [`PlanSignature`]) reuse that time, so
/// tunables that do not change what runs cost nothing. Errors planning or timing the defaults
/// are returned. `log` receives one line per event.
pub fn descend(
    space: &[Dimension],
    limits: DescentLimits,
    plan: &mut dyn FnMut(&Tunables) -> Result<std::sync::Arc<Plan>, String>,
    measure: &mut dyn FnMut(&Plan) -> Result<f64, String>,
    log: &mut dyn FnMut(&str),
) -> Result<Descent, String> {
    let defaults: BTreeMap<&str, i64> =
        space.iter().map(|d| (d.name.as_str(), d.default)).collect();
    let default_plan = plan(&Tunables::new()).map_err(|e| format!("planning the defaults: {e}"))?;
    let default_us = measure(&default_plan).map_err(|e| format!("timing the defaults: {e}"))?;
    log(&format!(
        "defaults: {default_us:.1} us ({})",
        default_plan.variant
    ));
    let mut timed: HashMap<PlanSignature, Option<f64>> = HashMap::new();
    timed.insert(PlanSignature::of(&default_plan), Some(default_us));
    let mut trials = vec![Trial {
        tunables: Tunables::new(),
        variant: default_plan.variant.clone(),
        us: Some(default_us),
    }];
    let mut cur = Tunables::new();
    let mut cur_us = default_us;
    let mut cur_variant = default_plan.variant.clone();
    let mut sweeps = 0;
    let mut capped = false;
    'sweeps: while sweeps < limits.max_sweeps {
        sweeps += 1;
        let mut moved = false;
        for dim in space {
            let now = cur.get(&dim.name).copied().unwrap_or(dim.default);
            let mut best_here: Option<(Tunables, f64, String)> = None;
            for &value in &dim.values {
                if value == now {
                    continue;
                }
                let mut t = cur.clone();
                if Some(&value) == defaults.get(dim.name.as_str()) {
                    t.remove(&dim.name);
                } else {
                    t.insert(dim.name.clone(), value);
                }
                let p = match plan(&t) {
                    Ok(p) => p,
                    Err(_) => continue,
                };
                let sig = PlanSignature::of(&p);
                let us = match timed.get(&sig) {
                    Some(us) => *us,
                    None => {
                        if trials.len() >= limits.max_trials {
                            if !capped {
                                log(&format!(
                                    "stopping after {} timed plans (the cap)",
                                    trials.len()
                                ));
                            }
                            capped = true;
                            continue;
                        }
                        let us = match measure(&p) {
                            Ok(us) => {
                                log(&format!(
                                    "{}: {us:.1} us ({})",
                                    tunables_text(&t),
                                    p.variant
                                ));
                                Some(us)
                            }
                            Err(e) => {
                                log(&format!("{}: skipped: {e}", tunables_text(&t)));
                                None
                            }
                        };
                        timed.insert(sig, us);
                        trials.push(Trial {
                            tunables: t.clone(),
                            variant: p.variant.clone(),
                            us,
                        });
                        us
                    }
                };
                if let Some(us) = us {
                    if best_here.as_ref().is_none_or(|b| us < b.1) {
                        best_here = Some((t, us, p.variant.clone()));
                    }
                }
            }
            if let Some((t, us, variant)) = best_here {
                if us < cur_us {
                    cur = t;
                    cur_us = us;
                    cur_variant = variant;
                    moved = true;
                }
            }
            if capped {
                break 'sweeps;
            }
        }
        if !moved {
            break;
        }
    }
    Ok(Descent {
        default_variant: default_plan.variant.clone(),
        default_us,
        best: cur,
        best_variant: cur_variant,
        best_us: cur_us,
        trials,
        sweeps,
        capped,
    })
}
