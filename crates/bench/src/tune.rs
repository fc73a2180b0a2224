//! `nbits-mlp tune` on one shape: coordinate descent over the manifest's tunable candidates
//! ([`nbits_mlp_core::tuning::descend`]) timed with GPU timestamps on rotating weight sets,
//! a back-to-back confirmation of the winner against the defaults, and a float64 reference
//! check of the winner before it may be stored.

use crate::{check_reference, median, time_plan, DeviceInputs, RefCheck, ShapeInputs};
use anyhow::{anyhow, Context as _, Result};
use nbits_mlp_core::tuning::{
    self, CandidateReport, Descent, DescentLimits, ShapeClass, TuningEntry,
};
use nbits_mlp_core::{MlpShape, Tunables};
use nbits_mlp_gpu::Runtime;

/// Settings of a tuning run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TuneConfig {
    /// Independent weight sets rotated through in each timed round.
    pub weight_sets: usize,
    /// Timed rounds per candidate (the median is its time).
    pub rounds: usize,
    /// Limits of the coordinate descent.
    pub limits: DescentLimits,
    /// Smallest gain over the defaults (a fraction: 0.02 is 2 %) for a winner to be applied.
    pub min_gain: f64,
}

impl Default for TuneConfig {
    fn default() -> Self {
        TuneConfig {
            weight_sets: 4,
            rounds: 20,
            limits: DescentLimits::default(),
            min_gain: 0.02,
        }
    }
}

/// What tuning one shape found.
#[derive(Clone, Debug)]
pub struct TuneResult {
    /// The shape's label.
    pub label: String,
    /// Its class (the cache key).
    pub class: ShapeClass,
    /// The search.
    pub descent: Descent,
    /// The defaults' time in the confirmation, µs.
    pub default_us: f64,
    /// The best point's time in the confirmation, µs (the default time when the best point is
    /// the defaults).
    pub best_us: f64,
    /// The winner's check against the float64 reference.
    pub check: RefCheck,
    /// Whether the winner is applied: it differs from the defaults, beats them by more than
    /// [`TuneConfig::min_gain`] in the confirmation, and passed the reference check.
    pub applied: bool,
}

impl TuneResult {
    /// The gain of the best point over the defaults (a fraction; negative when slower).
    pub fn gain(&self) -> f64 {
        (self.default_us - self.best_us) / self.default_us
    }

    /// The cache entry for the class (no tunables when the winner is not applied), or `None`
    /// when the winner failed the reference check (nothing may be stored).
    pub fn entry(&self, shape: &MlpShape) -> Option<TuningEntry> {
        if !self.check.passed() {
            return None;
        }
        let applied = self.applied;
        Some(TuningEntry {
            class: self.class.clone(),
            variant: if applied {
                self.descent.best_variant.clone()
            } else {
                self.descent.default_variant.clone()
            },
            tunables: if applied {
                self.descent.best.clone()
            } else {
                Tunables::new()
            },
            default_us: self.default_us,
            tuned_us: if applied {
                self.best_us
            } else {
                self.default_us
            },
            trials: self.descent.trials.len(),
            tuned_on: format!("{} (rows {})", self.label, shape.rows()),
        })
    }
}

/// The class of a shape under the runtime's manifest; an error for a shape without rows.
pub fn shape_class(rt: &Runtime, shape: &MlpShape) -> Result<ShapeClass> {
    ShapeClass::of(&shape.call(), rt.planner().manifest())
        .ok_or_else(|| anyhow!("a shape with no rows has nothing to tune"))
}

/// Which candidate values change the plan of `shape` (with the other tunables at their
/// defaults), without timing anything: what `tune --dry-run` lists.
pub fn dry_run(rt: &Runtime, shape: &MlpShape) -> Result<Vec<CandidateReport>> {
    let call = shape.call();
    let space = tuning::search_space(rt.planner().manifest());
    tuning::candidates(&space, &mut |t| {
        rt.planner().plan(&call, t).map_err(|e| e.to_string())
    })
    .map_err(|e| anyhow!("planning the defaults: {e}"))
}

/// Tunes one shape: uploads its inputs once, runs the coordinate descent (each distinct plan
/// timed once: median of `cfg.rounds` rounds over `cfg.weight_sets` sets), times the defaults
/// and the winner again back to back (two interleaved halves each), and checks the winner
/// against the float64 reference. Plans come from the runtime's planner directly, so a tuning
/// cache attached to the runtime plays no part. `log` receives progress lines.
pub fn tune_shape(
    rt: &Runtime,
    shape: &MlpShape,
    label: &str,
    cfg: &TuneConfig,
    log: &mut dyn FnMut(&str),
) -> Result<TuneResult> {
    if !rt.gpu().has_timestamps() {
        return Err(anyhow!(
            "the adapter has no timestamp queries: tuning needs GPU timestamps"
        ));
    }
    let class = shape_class(rt, shape)?;
    let planner = rt.planner();
    let space = tuning::search_space(planner.manifest());
    let inputs = ShapeInputs::new(shape, cfg.weight_sets.max(1));
    let call = inputs.call();
    let default_plan = planner
        .plan(&call, &Tunables::new())
        .with_context(|| format!("planning {label}"))?;
    log(&format!(
        "{label}: uploading {} weight set{}",
        inputs.sets(),
        if inputs.sets() == 1 { "" } else { "s" }
    ));
    let dev = DeviceInputs::upload(rt, &inputs, &default_plan)?;
    let sets = inputs.sets();
    let rounds = cfg.rounds.max(1);
    let descent = tuning::descend(
        &space,
        cfg.limits,
        &mut |t| planner.plan(&call, t).map_err(|e| e.to_string()),
        &mut |plan| {
            let mut v = time_plan(rt, plan, &dev, sets, rounds).map_err(|e| format!("{e:#}"))?;
            Ok(median(&mut v))
        },
        &mut |line| log(&format!("{label}: {line}")),
    )
    .map_err(|e| anyhow!("{label}: {e}"))?;
    let best_plan = planner
        .plan(&call, &descent.best)
        .with_context(|| format!("planning {label} with the winner"))?;
    let (default_us, best_us) = if descent.best.is_empty() {
        (descent.default_us, descent.default_us)
    } else {
        log(&format!(
            "{label}: confirming {} against the defaults",
            tuning::tunables_text(&descent.best)
        ));
        let half = rounds.div_ceil(2);
        let (mut d, mut b) = (Vec::new(), Vec::new());
        for _ in 0..2 {
            d.extend(time_plan(rt, &default_plan, &dev, sets, half)?);
            b.extend(time_plan(rt, &best_plan, &dev, sets, half)?);
        }
        (median(&mut d), median(&mut b))
    };
    log(&format!(
        "{label}: checking the winner against the reference"
    ));
    let check = check_reference(rt, &best_plan, &inputs, &dev)?;
    let gain = (default_us - best_us) / default_us;
    let applied = !descent.best.is_empty() && gain > cfg.min_gain && check.passed();
    Ok(TuneResult {
        label: label.to_string(),
        class,
        descent,
        default_us,
        best_us,
        check,
        applied,
    })
}
