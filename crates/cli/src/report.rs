//! Human-readable and JSON renderings: plans, variant verdicts, adapters, measurements.

use nbits_mlp_core::manifest::BufferKind;
use nbits_mlp_core::plan::{BindingPlan, Resource, Verdict};
use nbits_mlp_core::{DType, Plan};
use nbits_mlp_gpu::AdapterSummary;
use nbits_mlp_reference::compare::{self, max_abs};
use std::fmt::Write as _;

/// `read`, `read_write` or `uniform`.
fn access(kind: BufferKind) -> &'static str {
    match kind {
        BufferKind::ReadOnlyStorage => "read",
        BufferKind::Storage => "read_write",
        BufferKind::Uniform => "uniform",
    }
}

fn join_display<T: std::fmt::Display>(items: impl IntoIterator<Item = T>, sep: &str) -> String {
    items
        .into_iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

/// `@binding(0) a: read array<f16> <- A (input 0)`.
pub fn binding_line(b: &BindingPlan) -> String {
    let ty = match b.access {
        BufferKind::Uniform => b.element_type.clone(),
        _ => format!("array<{}>", b.element_type),
    };
    let source = match &b.resource {
        Resource::Input { index, onnx, .. } => format!("{onnx} (input {index})"),
        Resource::Prepared {
            index,
            onnx,
            weights,
            ..
        } => format!(
            "{onnx} (input {index}) in the prepared layout {} (built once by the runtime)",
            weights.layout
        ),
        Resource::Output { index, onnx, .. } => format!("{onnx} (output {index})"),
        Resource::Scratch { index, id } => format!("scratch {id} (intermediate {index})"),
        Resource::Uniform { fields, .. } => {
            format!(
                "uniform {{{}}}",
                join_display(
                    fields.iter().map(|f| format!("{}={}", f.name, f.value)),
                    ", "
                )
            )
        }
    };
    format!(
        "@binding({}) {}: {} {ty} <- {source}",
        b.binding,
        b.name,
        access(b.access)
    )
}

/// `[x, y, z]`.
fn dims(d: &[u32; 3]) -> String {
    format!("[{}, {}, {}]", d[0], d[1], d[2])
}

/// The readable plan of one node (`title` names it), indented by two spaces under the title.
pub fn plan_text(title: &str, plan: &Plan) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{title}");
    let _ = writeln!(
        s,
        "  variant:   {} (priority {})",
        plan.variant, plan.priority
    );
    let _ = writeln!(s, "  device:    {}", plan.device);
    let _ = writeln!(
        s,
        "  dtype:     {}, {} row{}",
        plan.dtype,
        plan.rows,
        if plan.rows == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        s,
        "  attrs:     {}",
        join_display(plan.attrs.iter().map(|(k, v)| format!("{k}={v}")), " ")
    );
    let _ = writeln!(
        s,
        "  tunables:  {}",
        join_display(plan.tunables.iter().map(|(k, v)| format!("{k}={v}")), " ")
    );
    if plan.f16_accumulation() {
        let _ = writeln!(
            s,
            "  precision: float16 partial sums (checked per element against 2e-3·max|Y| + 2^-24 + {}·error scale)",
            compare::F16_ACCUMULATION_SCALE_TOLERANCE
        );
    }
    for line in nbits_mlp_core::op::describe_ranges(plan) {
        let _ = writeln!(
            s,
            "  range:     {line} (other calls are planned without such kernels)"
        );
    }
    let _ = writeln!(s, "  passes:");
    for (i, p) in plan.passes.iter().enumerate() {
        let _ = writeln!(
            s,
            "    [{i}] {}  shader {}  dispatch {}  workgroup_size {}  subgroups {}{}",
            p.id,
            p.shader,
            dims(&p.dispatch),
            dims(&p.workgroup_size),
            if p.subgroups { "yes" } else { "no" },
            if p.skipped {
                "  (skipped: empty dispatch)"
            } else {
                ""
            }
        );
        let _ = match nbits_mlp_core::bounds::prove_wgsl(&p.wgsl) {
            Ok(()) => writeln!(
                s,
                "        indices: proven in range (compiled without index clamps on Vulkan)"
            ),
            Err(e) => writeln!(
                s,
                "        indices: not proven, wgpu's index clamps kept ({})",
                e.lines().next().unwrap_or("")
            ),
        };
        for b in &p.bindings {
            let _ = writeln!(s, "        {}", binding_line(b));
        }
    }
    let _ = writeln!(
        s,
        "  intermediates:{}",
        if plan.intermediates.is_empty() {
            " none"
        } else {
            ""
        }
    );
    for t in &plan.intermediates {
        let _ = writeln!(
            s,
            "    {}: {} {:?} ({} bytes)",
            t.id, t.dtype, t.shape, t.bytes
        );
    }
    let _ = writeln!(s, "  outputs:");
    for o in &plan.outputs {
        if o.present {
            let _ = writeln!(
                s,
                "    {} (output {}): {} {:?}",
                o.onnx, o.index, o.dtype, o.shape
            );
        } else {
            let _ = writeln!(s, "    {} (output {}): not requested", o.onnx, o.index);
        }
    }
    s
}

/// Every variant's verdict, one per line; `chosen` is marked with `*`.
pub fn verdicts_text(verdicts: &[Verdict], chosen: Option<&str>) -> String {
    let width = verdicts.iter().map(|v| v.variant.len()).max().unwrap_or(0);
    let mut s = String::new();
    for v in verdicts {
        let mark = if Some(v.variant.as_str()) == chosen {
            '*'
        } else {
            ' '
        };
        let what = match (&v.rejected_by, &v.why) {
            (Some(r), Some(w)) => format!("rejected by {r}: {w}"),
            (Some(r), None) => format!("rejected by {r}"),
            _ => "applies".to_string(),
        };
        let _ = writeln!(
            s,
            "    {mark} {:<width$}  priority {:>3}  {what}",
            v.variant, v.priority
        );
    }
    s
}

/// The plan as JSON, with a `node` key first; passes' template `context` only when
/// `context`, `verdicts` only when `verdicts`.
pub fn plan_json(node: &str, plan: &Plan, context: bool, verdicts: bool) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    out.insert("node".into(), node.into());
    let serde_json::Value::Object(fields) = serde_json::to_value(plan).unwrap_or_default() else {
        return out.into();
    };
    for (k, mut v) in fields {
        match k.as_str() {
            "verdicts" if !verdicts => continue,
            "passes" if !context => {
                for p in v.as_array_mut().into_iter().flatten() {
                    if let Some(p) = p.as_object_mut() {
                        p.remove("context");
                    }
                }
            }
            _ => {}
        }
        out.insert(k, v);
    }
    out.into()
}

/// Limits shown by `devices`.
const KEY_LIMITS: &[&str] = &[
    "maxStorageBuffersPerShaderStage",
    "maxStorageBufferBindingSize",
    "maxBufferSize",
    "maxComputeWorkgroupStorageSize",
    "maxComputeInvocationsPerWorkgroup",
    "maxComputeWorkgroupSizeX",
    "maxComputeWorkgroupsPerDimension",
];

/// Features the manifest's variants can use.
const KEY_FEATURES: &[&str] = &["shader-f16", "subgroups", "timestamp-query"];

/// One adapter, several lines.
pub fn adapter_text(index: usize, a: &AdapterSummary) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "[{index}] {}", a.name);
    let _ = writeln!(
        s,
        "    backend {}, type {}, driver {} {}",
        a.backend, a.device_type, a.driver, a.driver_info
    );
    if a.subgroup_max_size > 0 {
        let _ = writeln!(
            s,
            "    subgroup size {}..{}",
            a.subgroup_min_size, a.subgroup_max_size
        );
    }
    if let Some(c) = a.shader_cores {
        let _ = writeln!(s, "    shader cores (SMs) {c}");
    }
    for l in KEY_LIMITS {
        if let Some(v) = a.limits.get(*l) {
            let _ = writeln!(s, "    {l:<36} {v}");
        }
    }
    let key: Vec<String> = KEY_FEATURES
        .iter()
        .map(|f| format!("{f} {}", if a.features.contains(*f) { "yes" } else { "no" }))
        .collect();
    let _ = writeln!(s, "    {}", key.join(", "));
    let (project, rest): (Vec<&str>, Vec<&str>) = a
        .features
        .iter()
        .map(String::as_str)
        .filter(|f| !KEY_FEATURES.contains(f))
        .partition(|f| f.starts_with("coop-") || f.starts_with("subgroup-size-"));
    if !project.is_empty() {
        let _ = writeln!(
            s,
            "    cooperative matrices / subgroup width: {}",
            project.join(" ")
        );
    }
    let (native, others): (Vec<&str>, Vec<&str>) =
        rest.into_iter().partition(|f| f.starts_with("wgpu-"));
    if !others.is_empty() {
        let _ = writeln!(s, "    other WebGPU features: {}", others.join(" "));
    }
    if !native.is_empty() {
        let _ = writeln!(
            s,
            "    and {} wgpu-native features (see --json)",
            native.len()
        );
    }
    s
}

/// The tolerance of an output whose expected values are `expected`: `atol + rtol *
/// max|expected|` for an override `(rtol, atol)`, else the reference's for `dtype` and the way
/// the kernel accumulated (float32 `1e-5 * max|Y| + 1e-6`, float16 `2e-3 * max|Y| + 2^-24`, float16 from
/// a kernel with float16 partial sums `8e-3 * max|Y| + 2^-24`; `compare::tolerance`).
pub fn tolerance(
    dtype: DType,
    expected: &[f64],
    rtol_atol: Option<(f64, f64)>,
    f16_accumulation: bool,
) -> f64 {
    let max_y = max_abs(expected);
    match rtol_atol {
        Some((rtol, atol)) => atol + rtol * max_y,
        None => compare::tolerance(dtype, max_y, f16_accumulation),
    }
}

/// `123 ns`, `4.56 µs`, `7.89 ms`, `1.23 s` from microseconds.
pub fn duration_us(us: f64) -> String {
    if us < 1.0 {
        format!("{:.0} ns", us * 1e3)
    } else if us < 1e3 {
        format!("{us:.2} µs")
    } else if us < 1e6 {
        format!("{:.2} ms", us / 1e3)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

/// Median of non-empty `v` (0 for an empty one).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nbits_mlp_core::{MlpShape, Planner, Tunables};

    #[test]
    fn plan_rendering() {
        let planner = Planner::project(nbits_mlp_core::DeviceProfile::discrete_gpu());
        let mut shape = MlpShape::new(256, 64, 1);
        shape.skip = true;
        shape.norm = true;
        let plan = planner.plan(&shape.call(), &Tunables::new()).unwrap();
        let text = plan_text("node 'x'", &plan);
        assert!(text.contains(&plan.variant), "{text}");
        assert!(text.contains("<- A (input 0)"), "{text}");
        let j = plan_json("x", &plan, false, false);
        assert_eq!(j["node"], "x");
        assert_eq!(j["variant"], plan.variant.as_str());
        assert!(j.get("verdicts").is_none());
        assert!(j["passes"][0].get("context").is_none());
        let j = plan_json("x", &plan, true, true);
        assert!(j["verdicts"].is_array() && j["passes"][0]["context"].is_object());
        let v = verdicts_text(&plan.verdicts, Some(&plan.variant));
        assert_eq!(v.lines().count(), plan.verdicts.len());
        assert!(v.lines().any(|l| l.trim_start().starts_with('*')));
    }

    #[test]
    fn numbers() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(duration_us(1500.0), "1.50 ms");
        assert_eq!(duration_us(0.5), "500 ns");
    }
}
