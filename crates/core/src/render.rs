//! WGSL generation: binding declarations from the plan, then the pass's Jinja template.
//!
//! The binding declarations are generated here from the manifest's bindings, never written in
//! the templates, so the two cannot drift apart. Target differences (which `enable` directives a
//! WGSL consumer wants) live in [`Target`] alone.
//!
//! Each template declares what it reads from the plan's context in a header, a Jinja comment
//! at its top (rendered as nothing):
//!
//! ```text
//! {#- inputs: prose ...
//!   reads: K N aScalar bits ...
//!   optional: splitK splitSpan
//! -#}
//! ```
//!
//! Lines starting with `reads:` list names every variant rendering the template must provide
//! (a derive entry, global or the variant's own, a name the planner adds to every context
//! ([`PLANNER_CONTEXT`]), `tunables.NAME` or `attrs.NAME`); `optional:` lists names the
//! template reads only where defined (`{% if splitK is defined %}`); other lines are prose; both
//! keys may repeat to wrap. [`Templates::check_inputs`] checks a manifest against the headers
//! once, when a [`crate::Planner`] is made (and `nbits-mlp check`); a test checks that each
//! built-in header lists exactly the names its template reads (minijinja's static analysis).
//! Templates without a header are not checked.

use crate::manifest::{BufferKind, Manifest};
use crate::plan::{BindingPlan, Resource};
use std::collections::BTreeMap;
use std::path::Path;

/// Names the planner puts in every pass's context besides the derive values.
pub const PLANNER_CONTEXT: &[&str] = &[
    "attrs",
    "tunables",
    "variant",
    "pass",
    "subgroupCollectivesWidth",
    "subgroups",
    "bindingNames",
];

/// What a template reads from the plan's context, as its `inputs` header declares it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TemplateInputs {
    /// Names every variant rendering the template must provide.
    pub reads: Vec<String>,
    /// Names read only where defined.
    pub optional: Vec<String>,
}

impl TemplateInputs {
    /// The `inputs` header of a template's source: `Ok(None)` when it has none; an error for a
    /// malformed one (an unclosed comment, a name that is not `name`, `tunables.NAME` or
    /// `attrs.NAME`).
    pub fn parse(src: &str) -> Result<Option<TemplateInputs>, String> {
        let start = ["{#- inputs:", "{# inputs:"]
            .iter()
            .filter_map(|m| src.find(m).map(|i| (i, m.len())))
            .min();
        let Some((start, len)) = start else {
            return Ok(None);
        };
        let body = &src[start + len..];
        let end = body
            .find("#}")
            .ok_or("the `inputs` header comment is not closed")?;
        let body = body[..end].trim_end_matches('-');
        let mut inputs = TemplateInputs::default();
        let ident = |p: &str| {
            p.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        for line in body.lines() {
            let line = line.trim();
            let (list, names) = if let Some(rest) = line.strip_prefix("reads:") {
                (&mut inputs.reads, rest)
            } else if let Some(rest) = line.strip_prefix("optional:") {
                (&mut inputs.optional, rest)
            } else {
                continue;
            };
            for name in names.split([' ', ',']).filter(|n| !n.is_empty()) {
                let ok = match name.split_once('.') {
                    Some((ns, n)) => (ns == "tunables" || ns == "attrs") && ident(n),
                    None => ident(name),
                };
                if !ok {
                    return Err(format!(
                        "`inputs` header: `{name}` is not a name (`name`, `tunables.NAME` or \
                         `attrs.NAME`)"
                    ));
                }
                list.push(name.to_string());
            }
        }
        Ok(Some(inputs))
    }
}

/// The templates shipped with the project: those the passes render, and macro libraries they
/// import (`{% from "NAME" import ... %}`), which no pass renders and which take what they need
/// as macro arguments (their `inputs` header reads nothing).
pub const BUILTIN_TEMPLATES: &[(&str, &str)] = &[
    (
        "mlp-gate-up.wgsl.jinja",
        include_str!("../../../templates/mlp-gate-up.wgsl.jinja"),
    ),
    (
        "matmul-nbits-fused-rms-norm.wgsl.jinja",
        include_str!("../../../templates/matmul-nbits-fused-rms-norm.wgsl.jinja"),
    ),
    (
        "mlp-tiled.wgsl.jinja",
        include_str!("../../../templates/mlp-tiled.wgsl.jinja"),
    ),
    (
        "mlp-gemv.wgsl.jinja",
        include_str!("../../../templates/mlp-gemv.wgsl.jinja"),
    ),
    (
        "mlp-streamk-fixup.wgsl.jinja",
        include_str!("../../../templates/mlp-streamk-fixup.wgsl.jinja"),
    ),
    (
        "mlp-coop.wgsl.jinja",
        include_str!("../../../templates/mlp-coop.wgsl.jinja"),
    ),
    (
        "mlp-splitk-reduce.wgsl.jinja",
        include_str!("../../../templates/mlp-splitk-reduce.wgsl.jinja"),
    ),
    (
        "mlp-mma.wgsl.jinja",
        include_str!("../../../templates/mlp-mma.wgsl.jinja"),
    ),
    (
        "mlp-mmal.wgsl.jinja",
        include_str!("../../../templates/mlp-mmal.wgsl.jinja"),
    ),
    (
        "mlp-gemvp.wgsl.jinja",
        include_str!("../../../templates/mlp-gemvp.wgsl.jinja"),
    ),
    // Macros only (no pass renders them): `dequant`, imported by `mlp-mma`, `mlp-mmal` and
    // `mlp-gemvp`; `epilogue` (the gating function), by every template that writes Y.
    (
        "dequant.wgsl.jinja",
        include_str!("../../../templates/dequant.wgsl.jinja"),
    ),
    (
        "epilogue.wgsl.jinja",
        include_str!("../../../templates/epilogue.wgsl.jinja"),
    ),
];

/// The names of the templates a template's source imports macros from: `{% from "NAME" import
/// ... %}` and `{% import "NAME" as ... %}` with a string literal name, in order, each once. A
/// pass that renders the template renders their macros too.
pub fn imports(src: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for (at, _) in src.match_indices("{%") {
        let tag = src[at + 2..].trim_start_matches(['-', '+']).trim_start();
        let Some(rest) = tag
            .strip_prefix("from ")
            .or_else(|| tag.strip_prefix("import "))
        else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue;
        };
        if let Some(end) = rest[1..].find(quote) {
            let name = &rest[1..1 + end];
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// minijinja's fuel for one render (about one unit per template instruction): a bound on the
/// time a (user-supplied, `--templates`) template can take.
pub const RENDER_FUEL: u64 = 50_000_000;

/// The naga capabilities rendered WGSL is validated with: f16, f16-in-f32 unpacking, subgroups,
/// subgroup barriers and cooperative matrices, which the templates may use.
pub const NAGA_CAPABILITIES: naga::valid::Capabilities = naga::valid::Capabilities::SHADER_FLOAT16
    .union(naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32)
    .union(naga::valid::Capabilities::SUBGROUP)
    .union(naga::valid::Capabilities::SUBGROUP_BARRIER)
    .union(naga::valid::Capabilities::COOPERATIVE_MATRIX);

/// Parses and validates rendered WGSL with naga (every validation flag; capabilities f16,
/// f16-in-f32 unpacking, subgroups, subgroup barriers and cooperative matrices, which the
/// templates may use): the check tests and fuzzers hold every plan to, without a GPU. `Err` is
/// naga's report with the failing source lines.
pub fn validate_wgsl(wgsl: &str) -> Result<(), String> {
    validate_wgsl_module(wgsl).map(drop)
}

/// [`validate_wgsl`], keeping the module and naga's analysis of it (what
/// [`crate::bounds::prove_indices`] reads).
pub fn validate_wgsl_module(wgsl: &str) -> Result<(naga::Module, naga::valid::ModuleInfo), String> {
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| e.emit_to_string(wgsl))?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), NAGA_CAPABILITIES)
        .subgroup_stages(naga::valid::ShaderStages::COMPUTE)
        .subgroup_operations(naga::valid::SubgroupOperationSet::all())
        .validate(&module)
        .map_err(|e| e.emit_to_string(wgsl))?;
    Ok((module, info))
}

/// The WGSL consumer the shader is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Target {
    /// wgpu / naga: `enable f16;` where f16 is used; subgroup operations need no directive
    /// (naga rejects `enable subgroups;`).
    #[default]
    Wgpu,
    /// Browsers and Dawn: `enable f16;` and `enable subgroups;` where used.
    Browser,
}

impl Target {
    /// The `enable` directives for a shader that uses f16 and/or subgroups.
    pub fn enables(self, f16: bool, subgroups: bool) -> String {
        let mut s = String::new();
        if f16 {
            s.push_str("enable f16;\n");
        }
        if subgroups && self == Target::Browser {
            s.push_str("enable subgroups;\n");
        }
        s
    }
}

/// Error rendering a template.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RenderError {
    /// The template failed (syntax error, undefined variable, ...).
    #[error("template `{template}`: {message}")]
    Template {
        /// Template name.
        template: String,
        /// minijinja's message with its line.
        message: String,
    },
    /// A template directory could not be read.
    #[error("templates dir {path}: {message}")]
    Io {
        /// Directory.
        path: String,
        /// Cause.
        message: String,
    },
    /// Variants of the manifest do not provide what a template's `inputs` header says it reads.
    #[error("templates read names their variants do not provide:\n  - {}", .0.join("\n  - "))]
    Inputs(Vec<String>),
    /// The rendered shader has no literal `@workgroup_size(...)`.
    #[error(
        "template `{template}`: the rendered shader has no literal @workgroup_size(x[, y[, z]])"
    )]
    NoWorkgroupSize {
        /// Template name.
        template: String,
    },
}

/// A set of templates (the built-in ones, optionally overridden from a directory).
pub struct Templates {
    env: minijinja::Environment<'static>,
    names: Vec<String>,
    inputs: BTreeMap<String, TemplateInputs>,
}

impl std::fmt::Debug for Templates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Templates")
            .field("names", &self.names)
            .finish()
    }
}

impl Default for Templates {
    fn default() -> Self {
        Templates::builtin()
    }
}

impl Templates {
    fn new_env() -> minijinja::Environment<'static> {
        let mut env = minijinja::Environment::new();
        env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_formatter(format_value);
        // A template that loops for ever (or nearly) fails instead of hanging the planner. The
        // largest built-in render (the unrolled multi-row gemv) takes well under a tenth of it.
        env.set_fuel(Some(RENDER_FUEL));
        env
    }

    /// The templates shipped with the project.
    pub fn builtin() -> Templates {
        let mut env = Templates::new_env();
        let mut names = Vec::new();
        let mut inputs = BTreeMap::new();
        for (n, src) in BUILTIN_TEMPLATES {
            env.add_template_owned(n.to_string(), src.to_string())
                .expect("built-in templates parse");
            names.push(n.to_string());
            if let Some(i) = TemplateInputs::parse(src).expect("built-in template headers parse") {
                inputs.insert(n.to_string(), i);
            }
        }
        Templates { env, names, inputs }
    }

    /// The built-in templates, with any `*.jinja` file in `dir` replacing or adding to them
    /// (for kernel authors trying a change without rebuilding).
    pub fn with_dir(dir: &Path) -> Result<Templates, RenderError> {
        let mut t = Templates::builtin();
        let io = |e: std::io::Error| RenderError::Io {
            path: dir.display().to_string(),
            message: e.to_string(),
        };
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let p = entry.map_err(io)?.path();
            let Some(name) = p.file_name().and_then(|n| n.to_str()).map(str::to_string) else {
                continue;
            };
            if !name.ends_with(".jinja") {
                continue;
            }
            let src = crate::files::read_text_limited(&p, crate::files::MAX_TEMPLATE_BYTES)
                .map_err(|e| RenderError::Io {
                    path: p.display().to_string(),
                    message: e.to_string(),
                })?;
            let header = TemplateInputs::parse(&src).map_err(|message| RenderError::Template {
                template: name.clone(),
                message,
            })?;
            t.env
                .add_template_owned(name.clone(), src)
                .map_err(|e| RenderError::Template {
                    template: name.clone(),
                    message: format!("{e:#}"),
                })?;
            // A replacement without a header is not checked (its old header no longer holds).
            match header {
                Some(i) => t.inputs.insert(name.clone(), i),
                None => t.inputs.remove(&name),
            };
            if !t.names.contains(&name) {
                t.names.push(name);
            }
        }
        Ok(t)
    }

    /// Names of the templates present.
    pub fn names(&self) -> Vec<&str> {
        self.names.iter().map(String::as_str).collect()
    }

    /// What a template's `inputs` header declares (`None`: no header).
    pub fn inputs(&self, template: &str) -> Option<&TemplateInputs> {
        self.inputs.get(template)
    }

    /// Checks that every variant of `manifest` provides what the templates of its passes read
    /// (their `inputs` headers): each `reads` name must be a derive entry (global or the
    /// variant's), a name of [`PLANNER_CONTEXT`], or `tunables.NAME` / `attrs.NAME` of a
    /// declared tunable / attribute. One problem per template and missing name, naming the
    /// variants (and passes) that lack it.
    pub fn check_inputs(&self, manifest: &Manifest) -> Result<(), RenderError> {
        // (template, name) -> variants lacking it, in manifest order.
        let mut missing: BTreeMap<(&str, &str), Vec<String>> = BTreeMap::new();
        for v in &manifest.variants {
            for pass in &v.passes {
                let template = pass.decl.shader.as_str();
                let Some(inputs) = self.inputs.get(template) else {
                    continue;
                };
                for name in &inputs.reads {
                    let provided = match name.split_once('.') {
                        Some(("tunables", t)) => manifest.file.tunables.contains_key(t),
                        Some(("attrs", a)) => manifest.file.attributes.contains_key(a),
                        _ => {
                            manifest.derive.contains_key(name)
                                || v.derive.contains_key(name)
                                || PLANNER_CONTEXT.contains(&name.as_str())
                        }
                    };
                    if !provided {
                        missing
                            .entry((template, name))
                            .or_default()
                            .push(format!("`{}` (pass `{}`)", v.decl.id, pass.decl.id));
                    }
                }
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        Err(RenderError::Inputs(
            missing
                .into_iter()
                .map(|((template, name), variants)| {
                    format!(
                        "template `{template}` reads `{name}`, which {} variant{} do{} not \
                         provide (no derive entry `{name}`, global or the variant's): {}",
                        variants.len(),
                        if variants.len() == 1 { "" } else { "s" },
                        if variants.len() == 1 { "es" } else { "" },
                        variants.join(", ")
                    )
                })
                .collect(),
        ))
    }

    /// Renders one pass: enables, generated binding declarations, then the template body.
    /// `enable f16;` is written when the declarations or the body use f16 (in code, not in
    /// comments); `enable ...;` lines the template writes itself (e.g. `enable
    /// wgpu_cooperative_matrix;`) are moved to the top with the target's. Returns the WGSL and
    /// its workgroup size as written in the shader.
    pub fn render(
        &self,
        template: &str,
        context: &std::sync::Arc<serde_json::Map<String, serde_json::Value>>,
        bindings: &[BindingPlan],
        subgroups: bool,
        target: Target,
    ) -> Result<(String, [u32; 3]), RenderError> {
        let tmpl = self
            .env
            .get_template(template)
            .map_err(|e| RenderError::Template {
                template: template.into(),
                message: format!("{e:#}"),
            })?;
        // The context is looked up lazily (only the names the template uses are converted).
        let ctx = minijinja::Value::from_object(JsonContext(context.clone()));
        let body = tmpl.render(ctx).map_err(|e| RenderError::Template {
            template: template.into(),
            message: format!("{e:#}"),
        })?;
        let declarations = binding_declarations(bindings);
        let mut out = target.enables(uses_f16(&declarations) || uses_f16(&body), subgroups);
        let (enables, body) = split_enables(&body);
        out.push_str(&enables);
        out.push_str(&declarations);
        out.push_str(&body);
        let wg = workgroup_size(&out).ok_or_else(|| RenderError::NoWorkgroupSize {
            template: template.into(),
        })?;
        Ok((out, wg))
    }
}

/// Whether WGSL text uses the `f16` type: the token `f16` (not part of a longer identifier) in
/// code, `//` comments aside, so that a comment never enables f16 on a device without it.
fn uses_f16(body: &str) -> bool {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    body.lines().any(|line| {
        let code = line.split_once("//").map_or(line, |(c, _)| c);
        let b = code.as_bytes();
        code.match_indices("f16")
            .any(|(i, _)| (i == 0 || !ident(b[i - 1])) && b.get(i + 3).is_none_or(|&c| !ident(c)))
    })
}

/// Splits a rendered template body into its own `enable ...;` directive lines (which WGSL wants
/// before any declaration) and the rest. Bodies without directives come back unchanged.
fn split_enables(body: &str) -> (String, std::borrow::Cow<'_, str>) {
    let is_enable = |l: &str| {
        let l = l.trim();
        l.starts_with("enable ") && l.ends_with(';')
    };
    // A directive line contains `enable `: most bodies have none, and one substring search
    // settles that without walking the lines.
    if !body.contains("enable ") || !body.lines().any(is_enable) {
        return (String::new(), std::borrow::Cow::Borrowed(body));
    }
    let (mut enables, mut rest) = (String::new(), String::new());
    for l in body.lines() {
        let dst = if is_enable(l) {
            &mut enables
        } else {
            &mut rest
        };
        dst.push_str(l.trim_end());
        dst.push('\n');
    }
    (enables, std::borrow::Cow::Owned(rest))
}

/// The WGSL declarations of a pass's bindings (uniform structs first).
pub fn binding_declarations(bindings: &[BindingPlan]) -> String {
    let mut s = String::from("// ---- bindings generated from the manifest ----\n");
    for b in bindings {
        if let Resource::Uniform { fields, .. } = &b.resource {
            s.push_str(&format!("struct {} {{\n", uniform_struct_name(&b.name)));
            for f in fields {
                s.push_str(&format!("    {}: {},\n", f.name, f.ty));
            }
            s.push_str("};\n");
        }
    }
    for b in bindings {
        let ty = match b.access {
            BufferKind::Uniform => uniform_struct_name(&b.name),
            _ => format!("array<{}>", b.element_type),
        };
        s.push_str(&format!(
            "@group(0) @binding({}) var<{}> {}: {};\n",
            b.binding,
            b.access.wgsl(),
            b.name,
            ty
        ));
    }
    s.push_str("// ---- template ----\n");
    s
}

/// The WGSL struct name of a uniform binding (`params` -> `Params`).
pub fn uniform_struct_name(binding: &str) -> String {
    let mut c = binding.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => "Uniforms".into(),
    }
}

/// The literal `@workgroup_size(x, y, z)` of a shader, if it has one.
pub fn workgroup_size(wgsl: &str) -> Option<[u32; 3]> {
    let at = wgsl.find("@workgroup_size(")? + "@workgroup_size(".len();
    let end = at + wgsl[at..].find(')')?;
    let mut dims = [1u32; 3];
    for (i, part) in wgsl[at..end]
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .enumerate()
    {
        if i >= 3 {
            return None;
        }
        dims[i] = part
            .trim_end_matches('u')
            .trim_end_matches('i')
            .parse()
            .ok()?;
    }
    Some(dims)
}

/// Renders the template context as sorted `key = value` lines (for `plan --json` readers and
/// for debugging templates).
pub fn context_lines(context: &serde_json::Map<String, serde_json::Value>) -> String {
    let sorted: BTreeMap<_, _> = context.iter().collect();
    sorted.iter().map(|(k, v)| format!("{k} = {v}\n")).collect()
}

/// The template output formatter: `{{ x }}` writes strings and integers directly (the bulk of
/// a shader's expressions), byte for byte what minijinja's default formatter writes for them
/// without auto-escaping, which WGSL templates never use; every other value, and every value
/// under auto-escaping, goes to the default formatter.
fn format_value(
    out: &mut minijinja::Output,
    state: &minijinja::State,
    value: &minijinja::Value,
) -> Result<(), minijinja::Error> {
    if state.auto_escape() == minijinja::AutoEscape::None {
        if let Some(s) = value.as_str() {
            if value.kind() == minijinja::value::ValueKind::String {
                return out.write_str(s).map_err(minijinja::Error::from);
            }
        } else if value.is_integer() {
            if let Some(i) = value.as_i64() {
                return write!(out, "{i}").map_err(minijinja::Error::from);
            }
        }
    }
    minijinja::escape_formatter(out, state, value)
}

/// A template context backed by a JSON map: each name is converted to a template value only
/// when the template looks it up (most derive values are never used by a given template).
#[derive(Debug)]
struct JsonContext(std::sync::Arc<serde_json::Map<String, serde_json::Value>>);

impl minijinja::value::Object for JsonContext {
    fn get_value(self: &std::sync::Arc<Self>, key: &minijinja::Value) -> Option<minijinja::Value> {
        key.as_str().and_then(|k| self.get_value_by_str(k))
    }

    fn get_value_by_str(self: &std::sync::Arc<Self>, key: &str) -> Option<minijinja::Value> {
        // Every name a template reads that no `set` or loop defines lands here (the default
        // implementation would first copy `key` into a new value).
        self.0.get(key).map(minijinja::Value::from_serialize)
    }

    fn enumerate(self: &std::sync::Arc<Self>) -> minijinja::value::Enumerator {
        minijinja::value::Enumerator::Values(
            self.0
                .keys()
                .map(|k| minijinja::Value::from(k.as_str()))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{format_value, uses_f16};

    #[test]
    fn imports_are_the_imported_template_names() {
        let src = concat!(
            "{% from \"a.jinja\" import m %}\n{%- import 'b.jinja' as b -%}\n",
            "{% from \"a.jinja\" import n %}{% include \"c.jinja\" %}{% from x import y %}",
            "{# from \"d.jinja\" import z #}{{ 'from \"e.jinja\" import' }}"
        );
        assert_eq!(super::imports(src), ["a.jinja", "b.jinja"]);
        assert!(super::imports("{% set x = 1 %}{% from").is_empty());
    }

    #[test]
    fn f16_use_is_the_type_in_code() {
        assert!(uses_f16("var<workgroup> t: array<f16, 4>;"));
        assert!(uses_f16("let h = f16(x);\n"));
        assert!(uses_f16("// a comment\nlet v = vec2<f16>(0.0h);"));
        assert!(!uses_f16("let x = 1.0; // converted to f16 when staged"));
        assert!(!uses_f16("let f16x = 1u;\nlet af16 = 2u;\nlet f16_ = 3u;"));
        assert!(!uses_f16(""));
    }

    #[test]
    fn output_matches_the_default_formatter() {
        let src = concat!(
            "{{ a }}|{{ b }}|{{ c }}|{{ d }}|{{ e }}|{{ f }}|{{ g }}|{{ h }}|{{ i }}|{{ j }}|",
            "{{ a * 3 }}|{{ -a }}|{{ c ~ 'x' }}|{{ 2.0 ** -3 }}|{{ d | float }}|{{ none }}|",
            "{{ c | safe }}|{{ 10 // 3 }}|{{ 7 / 2 }}|{{ [a, c] }}"
        );
        let ctx = minijinja::context! {
            a => 42, b => -7, c => "vec4<f32>", d => 1.5, e => true, f => 18446744073709551615u64,
            g => i64::MIN, h => 1e300, i => vec![1, 2], j => "",
        };
        let render = |custom: bool| {
            let mut env = minijinja::Environment::new();
            if custom {
                env.set_formatter(format_value);
            }
            env.add_template("t.wgsl.jinja", src).unwrap();
            let t = env.get_template("t.wgsl.jinja").unwrap();
            t.render(&ctx).unwrap()
        };
        assert_eq!(render(true), render(false));
        // Under auto-escaping everything goes to the default formatter.
        let mut env = minijinja::Environment::new();
        env.set_formatter(format_value);
        env.add_template("t.html", "{{ c }}{{ a }}").unwrap();
        let html = env.get_template("t.html").unwrap().render(&ctx).unwrap();
        assert_eq!(html, "vec4&lt;f32&gt;42");
    }
}
