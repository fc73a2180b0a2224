//! Kernel families: the project overlay (`manifest/nbits-mlp.overlay.json`) is generated from a
//! short description of each family of variants (`manifest/nbits-mlp.overlay.toml`), so that a
//! family is written once, not once per combination of its inputs.
//!
//! `cargo xtask gen-overlay` rewrites the JSON (and the families table in `docs/DESIGN.md`);
//! `cargo xtask gen-overlay --check` only compares; the core's `overlay` test fails while the
//! committed JSON is not what the description generates. The JSON stays committed: it is what
//! ships, what [`crate::manifest::PROJECT_OVERLAY`] compiles in, and what `nbits-mlp check`
//! reads.
//!
//! # The description (TOML)
//!
//! **Pass-through sections.** Every top-level key other than `axes`, `parts` and `family` is
//! copied into the JSON unchanged, in file order: `description`, `tunables`, `tunableValues`,
//! `derive`, `bindings`, `attributeChecks`, `tunableLimits`, `inputChecks`, and any other
//! section (the generator need not know it). One exception, so that a tunable is one line: a
//! `[tunables]` entry may carry its limits, `NAME = { default = D, values = [...], limits = {
//! min = A, max = B, why = "..." } }` (`values`: candidates for `tune`, optional); the
//! generator moves `limits` into `tunableLimits`, after the entries written there. The generated
//! `variants` array is written where the `[[family]]` blocks are: sections before the first
//! block come before it, sections after the blocks after it. (The order of `tunables` and
//! `derive` is the order of every plan's tunables and template context, so it is kept as
//! written.)
//!
//! **Axes** (`[axes.AXIS.VALUE]`): what variants are expanded over. The project's are `form`
//! (`plain`, `norm`, `skip`, `skipsum`: which norm inputs a call has) and `bias` (`nogb_noub`,
//! `nogb_ub`, `gb_noub`, `gb_ub`). A value is a table: an optional `flags = [...]` and any other
//! fields, which blocks read as `{AXIS.FIELD}`; `{AXIS}` is the value's name. A family may add
//! axes of its own (`[family.axes.AXIS.VALUE]`, e.g. `split` for the split-K variants).
//!
//! **Flags**: a variant's flags are the names of its axis values, their `flags`, and its
//! family's `flags`. The project's: `plain`, `norm`, `skip`, `skipsum` (form names), `normed`
//! (norm_scale given: every form but plain), `skip` (skip given: skip and skipsum), `residual`
//! (skipsum), `gb`, `ub` (bias inputs), `split`, `whole`, and `seedNormWorkgroup` (families
//! whose norm pass runs the seed's NORM_WORKGROUP_SIZE threads, so they check
//! `normDispatchFits`).
//!
//! **Parts** (`[parts.NAME]`): tables several families share (the norm pass, the split-K
//! reduce pass, the `normedA` intermediate). In a list, the item `{ part = "NAME" }` stands
//! for the part.
//!
//! **Families** (`[[family]]`): one block per kernel family, with
//!
//! - `name`, `about` (one line for the docs' table), optional `flags`;
//! - `expand`: loop nests, outermost first, each a list of `"AXIS"` or `"AXIS:v1,v2"` (a subset
//!   of the values). One variant per combination, in this order (the variants' order is the
//!   order of every plan's verdicts, so it is kept as written);
//! - the variant's fields, as the manifest has them: `id`, `priority`, `when`, `requires`,
//!   `derive`, `intermediates`, `passes`. Written in that order; `when`, `derive` and
//!   `intermediates` are left out when empty.
//!
//! Inside those fields:
//!
//! - `{AXIS}`, `{AXIS.FIELD}` in a string are replaced by the value's name or field;
//!   `{storageBuffers}` is the most storage (non-uniform) bindings one pass of the variant
//!   binds (for `requires.limits.maxStorageBuffersPerShaderStage`). A string that is exactly
//!   one reference takes the referenced value as it is: a number (`priority =
//!   "{split.priority}"`), or a list, which a list item splices in (`when = ["{form.when}",
//!   "gemvFits"]`).
//! - A list item `"{if COND} text"` is kept, as `text`, only when COND holds; so is a table
//!   key `"{if COND} key"`, and a table item with `if = "COND"` (the `if` is dropped). COND is
//!   flags joined by ` and `, each optionally preceded by `not `. An unknown flag is an error
//!   (a misspelt condition would otherwise drop its item silently).
//!
//! Expression strings are never parsed here; the generated overlay is loaded and checked like
//! any manifest (the `overlay` test), and every error here names the family, the variant and
//! the place.
//!
//! # Adding a family
//!
//! One `[[family]]` block (copy the closest one), its template in `templates/` (listed in
//! [`crate::render::BUILTIN_TEMPLATES`], with its inputs header), then `cargo xtask
//! gen-overlay`, and a test that calls reach the new variants (`coverage`). `docs/DESIGN.md`,
//! "Kernel families", walks through it.

use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// The description shipped with the project.
pub const OVERLAY_SOURCE: &str = include_str!("../../../manifest/nbits-mlp.overlay.toml");
/// The description's path, relative to the repository root.
pub const OVERLAY_SOURCE_PATH: &str = "manifest/nbits-mlp.overlay.toml";
/// The generated overlay's path, relative to the repository root.
pub const OVERLAY_PATH: &str = "manifest/nbits-mlp.overlay.json";
/// The document holding the generated families table, relative to the repository root.
pub const DESIGN_PATH: &str = "docs/DESIGN.md";
/// The command that regenerates the overlay and the families table.
pub const REGENERATE: &str = "cargo xtask gen-overlay";
/// The line before the generated families table in [`DESIGN_PATH`].
pub const TABLE_BEGIN: &str =
    "<!-- families table: generated from manifest/nbits-mlp.overlay.toml by `cargo xtask gen-overlay` -->";
/// The line after it.
pub const TABLE_END: &str = "<!-- end of families table -->";

/// Keys of the description that drive the generator (everything else is copied).
const GENERATOR_KEYS: &[&str] = &["axes", "parts", "family"];
/// Keys a `[[family]]` block may have.
const FAMILY_KEYS: &[&str] = &[
    "name",
    "about",
    "flags",
    "expand",
    "axes",
    "id",
    "priority",
    "when",
    "requires",
    "derive",
    "intermediates",
    "passes",
];
/// The variant fields, in the order they are written.
const VARIANT_KEYS: &[&str] = &[
    "id",
    "priority",
    "when",
    "requires",
    "derive",
    "intermediates",
    "passes",
];

/// An error in a description: where (family, variant, field) and what.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{origin}: {place}: {message}")]
pub struct DescriptionError {
    /// Where the text came from.
    pub origin: String,
    /// The family, variant and field at fault (`family `tiled`, variant `tiled_split_gb_ub`
    /// (form=plain bias=gb_ub split=split), passes[1].bindings[4]`).
    pub place: String,
    /// What is wrong.
    pub message: String,
}

/// One value of an axis.
#[derive(Clone, Debug, PartialEq)]
pub struct AxisValue {
    /// The value's name (`skipsum`).
    pub name: String,
    /// The flags it sets besides its name.
    pub flags: Vec<String>,
    /// Its other fields, read as `{axis.field}`.
    pub fields: Map<String, Value>,
}

impl AxisValue {
    /// Whether the value sets `flag` (its name or one of its `flags`).
    pub fn sets(&self, flag: &str) -> bool {
        self.name == flag || self.flags.iter().any(|f| f == flag)
    }
}

/// An axis: named values, in declaration order.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The axis name (`form`).
    pub name: String,
    /// Its values.
    pub values: IndexMap<String, AxisValue>,
}

/// One loop of an `expand` nest: an axis and the values it takes (all, or a subset).
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    /// The axis.
    pub axis: String,
    /// The values, in order.
    pub values: Vec<String>,
}

/// A `[[family]]` block.
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    /// Its name (`tiled`).
    pub name: String,
    /// One line for the docs.
    pub about: String,
    /// Flags every variant of the family has.
    pub flags: Vec<String>,
    /// The loop nests, outermost loop first.
    pub expand: Vec<Vec<Loop>>,
    /// Axes of its own.
    pub axes: IndexMap<String, Axis>,
    /// The variant fields before expansion.
    fields: Map<String, Value>,
}

/// One generated variant.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    /// Its family.
    pub family: String,
    /// Its id.
    pub id: String,
    /// The value of each axis it was expanded with (`form` -> `norm`).
    pub selection: IndexMap<String, String>,
    /// Its flags.
    pub flags: BTreeSet<String>,
    /// The variant as written in the overlay.
    pub json: Value,
}

/// A parsed and expanded description.
#[derive(Clone, Debug, PartialEq)]
pub struct Description {
    /// The sections copied into the overlay, in order.
    pub sections: Map<String, Value>,
    /// How many of `sections` come before the generated `variants` (those written before the
    /// first `[[family]]` block).
    pub variants_at: usize,
    /// The shared axes.
    pub axes: IndexMap<String, Axis>,
    /// The shared parts.
    pub parts: Map<String, Value>,
    /// The families, in order.
    pub families: Vec<Family>,
    /// Every generated variant, in overlay order.
    pub variants: Vec<Generated>,
}

impl Description {
    /// The project's description ([`OVERLAY_SOURCE`]), parsed once.
    pub fn project() -> &'static Description {
        static D: OnceLock<Description> = OnceLock::new();
        D.get_or_init(|| {
            Description::parse(OVERLAY_SOURCE, OVERLAY_SOURCE_PATH)
                .unwrap_or_else(|e| panic!("the project's overlay description: {e}"))
        })
    }

    /// Parses a description and expands its families. `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Description, DescriptionError> {
        let err = |place: &str, message: String| DescriptionError {
            origin: origin.into(),
            place: place.into(),
            message,
        };
        let table: toml::Table = toml::from_str(text)
            .map_err(|e| err("TOML", e.to_string().trim_end().replace('\n', "\n    ")))?;
        let root = match toml_to_json(toml::Value::Table(table)).map_err(|m| err("TOML", m))? {
            Value::Object(m) => m,
            _ => unreachable!("a TOML document is a table"),
        };
        let mut sections = Map::new();
        let mut variants_at = None;
        for (k, v) in &root {
            if k == "family" {
                variants_at = Some(sections.len());
            }
            if !GENERATOR_KEYS.contains(&k.as_str()) {
                sections.insert(k.clone(), v.clone());
            }
        }
        let variants_at = variants_at.unwrap_or(sections.len());
        move_inline_limits(&mut sections).map_err(|(p, m)| err(&p, m))?;
        if sections.contains_key("variants") {
            return Err(err(
                "variants",
                "variants are generated from `family` blocks, not written".into(),
            ));
        }
        let axes = match root.get("axes") {
            None => IndexMap::new(),
            Some(v) => parse_axes(v, "axes").map_err(|(p, m)| err(&p, m))?,
        };
        let parts = match root.get("parts") {
            None => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err(err("parts", "must be a table of tables".into())),
        };
        let families = match root.get("family") {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, f)| parse_family(f, i, &axes).map_err(|(p, m)| err(&p, m)))
                .collect::<Result<Vec<_>, _>>()?,
            Some(_) => {
                return Err(err(
                    "family",
                    "must be an array of tables ([[family]])".into(),
                ))
            }
        };
        let mut d = Description {
            sections,
            variants_at,
            axes,
            parts,
            families,
            variants: Vec::new(),
        };
        d.variants = d.expand_all().map_err(|(p, m)| err(&p, m))?;
        Ok(d)
    }

    /// Binding keys declared uniform, in the seed manifest or in the description's `bindings`
    /// (they do not count as storage buffers).
    fn uniform_bindings(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let seed: Value = serde_json::from_str(crate::manifest::SEED_MANIFEST)
            .expect("the seed manifest is JSON");
        for b in [seed.get("bindings"), self.sections.get("bindings")]
            .into_iter()
            .flatten()
        {
            if let Value::Object(m) = b {
                for (k, v) in m {
                    if v.get("buffer").and_then(Value::as_str) == Some("uniform") {
                        out.insert(k.clone());
                    }
                }
            }
        }
        out
    }

    /// Every flag some variant can have (conditions may only name these).
    fn known_flags(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut add_axis = |a: &Axis| {
            for v in a.values.values() {
                out.insert(v.name.clone());
                out.extend(v.flags.iter().cloned());
            }
        };
        self.axes.values().for_each(&mut add_axis);
        for f in &self.families {
            f.axes.values().for_each(&mut add_axis);
        }
        for f in &self.families {
            out.extend(f.flags.iter().cloned());
        }
        out
    }

    fn expand_all(&self) -> Result<Vec<Generated>, (String, String)> {
        let uniform = self.uniform_bindings();
        let known = self.known_flags();
        let mut out: Vec<Generated> = Vec::new();
        for fam in &self.families {
            let axis = |name: &str| fam.axes.get(name).or_else(|| self.axes.get(name));
            for nest in &fam.expand {
                for selection in combinations(nest) {
                    let mut flags: BTreeSet<String> = fam.flags.iter().cloned().collect();
                    let mut vars: BTreeMap<String, Value> = BTreeMap::new();
                    for (a, val) in &selection {
                        let v = &axis(a).expect("checked when parsed").values[val];
                        flags.insert(v.name.clone());
                        flags.extend(v.flags.iter().cloned());
                        vars.insert(a.clone(), Value::String(v.name.clone()));
                        for (f, x) in &v.fields {
                            vars.insert(format!("{a}.{f}"), x.clone());
                        }
                    }
                    let what = selection
                        .iter()
                        .map(|(a, v)| format!("{a}={v}"))
                        .collect::<Vec<_>>()
                        .join(" ");
                    let mut scope = Scope {
                        vars,
                        flags: &flags,
                        known: &known,
                        parts: &self.parts,
                    };
                    let place = |id: &str, field: &str| {
                        format!("family `{}`, variant `{id}` ({what}), {field}", fam.name)
                    };
                    let id = match fam.fields.get("id").map(|v| scope.expand(v, "id")) {
                        Some(Ok(Value::String(s))) => s,
                        Some(Ok(v)) => {
                            return Err((place("?", "id"), format!("not a string: {v}")))
                        }
                        Some(Err((p, m))) => return Err((place("?", &p), m)),
                        None => unreachable!("checked when parsed"),
                    };
                    let mut fields = Map::new();
                    for key in VARIANT_KEYS {
                        if *key == "requires" {
                            continue;
                        }
                        if let Some(v) = fam.fields.get(*key) {
                            let x = scope.expand(v, key).map_err(|(p, m)| (place(&id, &p), m))?;
                            fields.insert(key.to_string(), x);
                        }
                    }
                    if !fields["priority"].is_i64() {
                        return Err((
                            place(&id, "priority"),
                            format!("must be an integer, got {}", fields["priority"]),
                        ));
                    }
                    let storage = storage_buffers(&fields["passes"], &uniform)
                        .map_err(|m| (place(&id, "passes"), m))?;
                    scope
                        .vars
                        .insert("storageBuffers".into(), Value::from(storage));
                    if let Some(v) = fam.fields.get("requires") {
                        let x = scope
                            .expand(v, "requires")
                            .map_err(|(p, m)| (place(&id, &p), m))?;
                        fields.insert("requires".into(), x);
                    }
                    let mut json = Map::new();
                    for key in VARIANT_KEYS {
                        match fields.shift_remove(*key) {
                            Some(Value::Array(a))
                                if a.is_empty() && matches!(*key, "when" | "intermediates") => {}
                            Some(Value::Object(o)) if o.is_empty() && *key == "derive" => {}
                            Some(v) => {
                                json.insert(key.to_string(), v);
                            }
                            None => {}
                        }
                    }
                    if let Some(other) = out.iter().find(|g| g.id == id) {
                        return Err((
                            place(&id, "id"),
                            format!("generated twice (also by family `{}`)", other.family),
                        ));
                    }
                    out.push(Generated {
                        family: fam.name.clone(),
                        id,
                        selection: selection.into_iter().collect(),
                        flags,
                        json: Value::Object(json),
                    });
                }
            }
        }
        Ok(out)
    }

    /// The overlay: the copied sections, with the generated variants where the families are.
    pub fn overlay(&self) -> Value {
        let mut m = Map::new();
        for (i, (k, v)) in self.sections.iter().enumerate() {
            if i == self.variants_at {
                m.insert("variants".into(), self.variants_json());
            }
            m.insert(k.clone(), v.clone());
        }
        if self.variants_at >= self.sections.len() {
            m.insert("variants".into(), self.variants_json());
        }
        Value::Object(m)
    }

    fn variants_json(&self) -> Value {
        Value::Array(self.variants.iter().map(|g| g.json.clone()).collect())
    }

    /// The overlay as the committed file is written: pretty JSON, two-space indent, a final
    /// newline.
    pub fn overlay_json(&self) -> String {
        serde_json::to_string_pretty(&self.overlay()).expect("JSON values serialise") + "\n"
    }

    /// The generated variants of `family`.
    pub fn family_variants<'a>(&'a self, family: &'a str) -> impl Iterator<Item = &'a Generated> {
        self.variants.iter().filter(move |g| g.family == family)
    }

    /// The id of the variant of `family` with the given axis values; axes not given take their
    /// first value (`split` -> `whole`). `None` when the family has no such variant.
    pub fn variant_id<'a>(
        &'a self,
        family: &'a str,
        selection: &[(&str, &str)],
    ) -> Option<&'a str> {
        let fam = self.families.iter().find(|f| f.name == family)?;
        self.family_variants(family)
            .find(|g| {
                g.selection.iter().all(|(axis, value)| {
                    match selection.iter().find(|(a, _)| a == axis) {
                        Some((_, v)) => v == value,
                        None => {
                            let first = fam
                                .axes
                                .get(axis)
                                .or_else(|| self.axes.get(axis))
                                .and_then(|a| a.values.keys().next());
                            first == Some(value)
                        }
                    }
                })
            })
            .map(|g| g.id.as_str())
    }

    /// The families as a Markdown table (variants, priorities, axes, templates), with a total.
    pub fn families_table(&self) -> String {
        let mut s = String::from(
            "| family | variants | priority | expanded over | templates (passes) | what |\n\
             |---|---|---|---|---|---|\n",
        );
        for fam in &self.families {
            let gens: Vec<&Generated> = self.family_variants(&fam.name).collect();
            let mut prios: Vec<i64> = gens
                .iter()
                .filter_map(|g| g.json["priority"].as_i64())
                .collect();
            prios.sort();
            prios.dedup();
            let mut axes: IndexMap<&str, Vec<&str>> = IndexMap::new();
            let mut shaders: Vec<&str> = Vec::new();
            for g in &gens {
                for (a, v) in &g.selection {
                    let vals = axes.entry(a.as_str()).or_default();
                    if !vals.contains(&v.as_str()) {
                        vals.push(v.as_str());
                    }
                }
                for p in g.json["passes"].as_array().into_iter().flatten() {
                    if let Some(sh) = p["shader"].as_str() {
                        let sh = sh.trim_end_matches(".wgsl.jinja");
                        if !shaders.contains(&sh) {
                            shaders.push(sh);
                        }
                    }
                }
            }
            // Shared axes by name (their values listed when only some are used), the
            // family's own with their values.
            let axes = axes
                .iter()
                .map(|(a, v)| match self.axes.get(*a) {
                    Some(shared) if shared.values.len() == v.len() => a.to_string(),
                    _ => format!("{a} ({})", v.join(", ")),
                })
                .collect::<Vec<_>>()
                .join(" x ");
            s.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} |\n",
                fam.name,
                gens.len(),
                prios
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                axes,
                shaders
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                fam.about
            ));
        }
        s.push_str(&format!(
            "\n{} variants in {} families.\n",
            self.variants.len(),
            self.families.len()
        ));
        s
    }
}

/// `doc` with the text between the [`TABLE_BEGIN`] and [`TABLE_END`] lines replaced by
/// `table`; `None` when the markers are missing.
pub fn splice_table(doc: &str, table: &str) -> Option<String> {
    let begin = doc.find(TABLE_BEGIN)? + TABLE_BEGIN.len();
    let end = begin + doc[begin..].find(TABLE_END)?;
    Some(format!("{}\n{}{}", &doc[..begin], table, &doc[end..]))
}

/// Moves the `limits` a tunable carries inline (`[tunables]`) into the `tunableLimits`
/// section, after the entries written there (the section is added at the end when absent).
fn move_inline_limits(sections: &mut Map<String, Value>) -> Result<(), Fault> {
    let mut inline = Vec::new();
    if let Some(Value::Object(tunables)) = sections.get_mut("tunables") {
        for (name, t) in tunables.iter_mut() {
            if let Some(limits) = t.as_object_mut().and_then(|t| t.shift_remove("limits")) {
                inline.push((name.clone(), limits));
            }
        }
    }
    if inline.is_empty() {
        return Ok(());
    }
    let Value::Object(limits) = sections
        .entry("tunableLimits")
        .or_insert_with(|| Value::Object(Map::new()))
    else {
        return Err(("tunableLimits".into(), "must be a table".into()));
    };
    for (name, l) in inline {
        if limits.insert(name.clone(), l).is_some() {
            return Err((
                format!("tunables.{name}.limits"),
                "limits written both here and in [tunableLimits]".into(),
            ));
        }
    }
    Ok(())
}

fn toml_to_json(v: toml::Value) -> Result<Value, String> {
    Ok(match v {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => {
            Value::from(serde_json::Number::from_f64(f).ok_or("a non-finite float")?)
        }
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => return Err(format!("dates are not manifest values ({d})")),
        toml::Value::Array(a) => Value::Array(
            a.into_iter()
                .map(toml_to_json)
                .collect::<Result<Vec<_>, _>>()?,
        ),
        toml::Value::Table(t) => {
            let mut m = Map::new();
            for (k, v) in t {
                m.insert(k, toml_to_json(v)?);
            }
            Value::Object(m)
        }
    })
}

type Fault = (String, String);

fn strings(v: &Value, place: &str) -> Result<Vec<String>, Fault> {
    match v {
        Value::Array(a) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| (place.to_string(), format!("not a string: {x}")))
            })
            .collect(),
        _ => Err((place.into(), "must be a list of strings".into())),
    }
}

fn parse_axes(v: &Value, place: &str) -> Result<IndexMap<String, Axis>, Fault> {
    let Value::Object(axes) = v else {
        return Err((place.into(), "must be a table of axes".into()));
    };
    let mut out = IndexMap::new();
    for (name, values) in axes {
        let at = format!("{place}.{name}");
        let Value::Object(values) = values else {
            return Err((at, "must be a table of values".into()));
        };
        if values.is_empty() {
            return Err((at, "an axis needs at least one value".into()));
        }
        let mut vals = IndexMap::new();
        for (vname, body) in values {
            let at = format!("{at}.{vname}");
            let Value::Object(body) = body else {
                return Err((at, "an axis value must be a table".into()));
            };
            let mut fields = body.clone();
            let flags = match fields.shift_remove("flags") {
                None => Vec::new(),
                Some(f) => strings(&f, &format!("{at}.flags"))?,
            };
            vals.insert(
                vname.clone(),
                AxisValue {
                    name: vname.clone(),
                    flags,
                    fields,
                },
            );
        }
        out.insert(
            name.clone(),
            Axis {
                name: name.clone(),
                values: vals,
            },
        );
    }
    Ok(out)
}

fn parse_family(v: &Value, i: usize, global: &IndexMap<String, Axis>) -> Result<Family, Fault> {
    let Value::Object(m) = v else {
        return Err((format!("family[{i}]"), "must be a table".into()));
    };
    let name = m
        .get("name")
        .and_then(Value::as_str)
        .ok_or((format!("family[{i}]"), "needs `name` (a string)".into()))?
        .to_string();
    let place = format!("family `{name}`");
    for k in m.keys() {
        if !FAMILY_KEYS.contains(&k.as_str()) {
            return Err((
                place,
                format!("unknown key `{k}` (known: {})", FAMILY_KEYS.join(", ")),
            ));
        }
    }
    for k in ["expand", "id", "priority", "passes"] {
        if !m.contains_key(k) {
            return Err((place, format!("needs `{k}`")));
        }
    }
    let about = m
        .get("about")
        .map(|a| {
            a.as_str()
                .map(str::to_string)
                .ok_or((format!("{place}.about"), "must be a string".to_string()))
        })
        .transpose()?
        .unwrap_or_default();
    let flags = match m.get("flags") {
        None => Vec::new(),
        Some(f) => strings(f, &format!("{place}.flags"))?,
    };
    let axes = match m.get("axes") {
        None => IndexMap::new(),
        Some(a) => parse_axes(a, &format!("{place}.axes"))?,
    };
    if let Some(a) = axes.keys().find(|a| global.contains_key(*a)) {
        return Err((
            format!("{place}.axes.{a}"),
            "a shared axis of that name exists".into(),
        ));
    }
    let Some(Value::Array(nests)) = m.get("expand") else {
        return Err((
            format!("{place}.expand"),
            "must be a list of loop nests (lists of \"axis\" or \"axis:v1,v2\")".into(),
        ));
    };
    let mut expand = Vec::new();
    for (j, nest) in nests.iter().enumerate() {
        let at = format!("{place}.expand[{j}]");
        let mut loops: Vec<Loop> = Vec::new();
        for spec in strings(nest, &at)? {
            let (axis, subset) = match spec.split_once(':') {
                Some((a, s)) => (a.trim(), Some(s)),
                None => (spec.trim(), None),
            };
            let Some(ax) = axes.get(axis).or_else(|| global.get(axis)) else {
                return Err((at, format!("unknown axis `{axis}`")));
            };
            if loops.iter().any(|l| l.axis == axis) {
                return Err((at, format!("axis `{axis}` twice in one nest")));
            }
            let values: Vec<String> = match subset {
                None => ax.values.keys().cloned().collect(),
                Some(s) => s.split(',').map(|x| x.trim().to_string()).collect(),
            };
            if let Some(bad) = values.iter().find(|x| !ax.values.contains_key(*x)) {
                return Err((
                    at,
                    format!(
                        "axis `{axis}` has no value `{bad}` (values: {})",
                        ax.values.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
            loops.push(Loop {
                axis: axis.to_string(),
                values,
            });
        }
        expand.push(loops);
    }
    let fields = VARIANT_KEYS
        .iter()
        .filter_map(|k| m.get(*k).map(|v| (k.to_string(), v.clone())))
        .collect();
    Ok(Family {
        name,
        about,
        flags,
        expand,
        axes,
        fields,
    })
}

/// Every combination of a loop nest, outermost loop slowest, as (axis, value) pairs.
fn combinations(nest: &[Loop]) -> Vec<Vec<(String, String)>> {
    let mut out: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for l in nest {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                l.values.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push((l.axis.clone(), v.clone()));
                    p
                })
            })
            .collect();
    }
    out
}

/// The most storage (non-uniform) bindings one pass binds.
fn storage_buffers(passes: &Value, uniform: &BTreeSet<String>) -> Result<u64, String> {
    let mut most = 0;
    for p in passes.as_array().ok_or("must be a list of passes")? {
        let n = p
            .get("bindings")
            .and_then(Value::as_array)
            .ok_or("every pass needs `bindings` (a list)")?
            .iter()
            .filter(|b| b.as_str().is_some_and(|b| !uniform.contains(b)))
            .count();
        most = most.max(n as u64);
    }
    Ok(most)
}

/// What a variant's fields are expanded with.
struct Scope<'a> {
    /// `axis` and `axis.field` values, and `storageBuffers`.
    vars: BTreeMap<String, Value>,
    flags: &'a BTreeSet<String>,
    known: &'a BTreeSet<String>,
    parts: &'a Map<String, Value>,
}

/// A `{name}` or `{name.field}` reference: the byte range of the braces and the name.
fn references(s: &str) -> Result<Vec<(std::ops::Range<usize>, &str)>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(open) = s[at..].find('{').map(|i| at + i) {
        let close = s[open..]
            .find('}')
            .map(|i| open + i)
            .ok_or_else(|| format!("`{{` without `}}` in \"{s}\""))?;
        let name = &s[open + 1..close];
        let ident = |p: &str| {
            p.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if name.starts_with("if ") {
            return Err(format!(
                "a condition (`{{if ...}}`) may only start a list item or a table key: \"{s}\""
            ));
        }
        if !(name.split('.').all(ident) && name.split('.').count() <= 2) {
            return Err(format!(
                "`{{{name}}}` is not a reference (`{{axis}}` or `{{axis.field}}`) in \"{s}\""
            ));
        }
        out.push((open..close + 1, name));
        at = close + 1;
    }
    Ok(out)
}

impl Scope<'_> {
    fn lookup(&self, name: &str) -> Result<&Value, String> {
        self.vars.get(name).ok_or_else(|| {
            format!(
                "unknown reference `{{{name}}}` (known here: {})",
                self.vars
                    .keys()
                    .map(|k| format!("{{{k}}}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        })
    }

    /// Whether a condition (`a and not b`) holds.
    fn holds(&self, cond: &str) -> Result<bool, String> {
        let mut all = true;
        for term in cond.split(" and ") {
            let term = term.trim();
            let (neg, flag) = match term.strip_prefix("not ") {
                Some(f) => (true, f.trim()),
                None => (false, term),
            };
            if !self.known.contains(flag) {
                return Err(format!(
                    "unknown flag `{flag}` in condition `{cond}` (flags: {})",
                    self.known.iter().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
            all &= self.flags.contains(flag) != neg;
        }
        Ok(all)
    }

    /// A `{if COND} rest` prefix: `Some(rest)` when it holds (or there is no condition).
    fn strip_condition<'s>(&self, s: &'s str) -> Result<Option<&'s str>, String> {
        let Some(body) = s.strip_prefix("{if ") else {
            return Ok(Some(s));
        };
        let end = body
            .find('}')
            .ok_or_else(|| format!("`{{if` without `}}` in \"{s}\""))?;
        Ok(self
            .holds(&body[..end])?
            .then(|| body[end + 1..].trim_start()))
    }

    /// The value a string that is exactly one reference stands for, if it is.
    fn whole_reference(&self, s: &str) -> Result<Option<&Value>, String> {
        let refs = references(s)?;
        match refs.as_slice() {
            [(r, name)] if r.start == 0 && r.end == s.len() => self.lookup(name).map(Some),
            _ => Ok(None),
        }
    }

    fn expand(&self, v: &Value, place: &str) -> Result<Value, Fault> {
        let fault = |m: String| (place.to_string(), m);
        match v {
            Value::String(s) => {
                if let Some(x) = self.whole_reference(s).map_err(fault)? {
                    return match x {
                        Value::String(_) | Value::Array(_) | Value::Object(_) => {
                            self.expand(&x.clone(), place)
                        }
                        other => Ok(other.clone()),
                    };
                }
                let mut out = String::new();
                let mut at = 0;
                for (r, name) in references(s).map_err(fault)? {
                    out.push_str(&s[at..r.start]);
                    match self.lookup(name).map_err(fault)? {
                        Value::String(x) => out.push_str(x),
                        Value::Number(n) => out.push_str(&n.to_string()),
                        other => {
                            return Err(fault(format!(
                                "`{{{name}}}` is {other}, which cannot be part of a string"
                            )))
                        }
                    }
                    at = r.end;
                }
                out.push_str(&s[at..]);
                Ok(Value::String(out))
            }
            Value::Array(items) => {
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let at = format!("{place}[{i}]");
                    self.expand_item(item, &at, &mut out)?;
                }
                Ok(Value::Array(out))
            }
            Value::Object(m) => {
                let mut out = Map::new();
                for (k, x) in m {
                    let Some(key) = self
                        .strip_condition(k)
                        .map_err(|e| (format!("{place}.{k}"), e))?
                    else {
                        continue;
                    };
                    let at = format!("{place}.{key}");
                    let x = self.expand(x, &at)?;
                    if out.insert(key.to_string(), x).is_some() {
                        return Err((at, "this key is written twice (conditions overlap)".into()));
                    }
                }
                Ok(Value::Object(out))
            }
            other => Ok(other.clone()),
        }
    }

    /// Expands one list item into `out`: conditions, parts, spliced lists.
    fn expand_item(&self, item: &Value, place: &str, out: &mut Vec<Value>) -> Result<(), Fault> {
        let fault = |m: String| (place.to_string(), m);
        match item {
            Value::String(s) => {
                let Some(rest) = self.strip_condition(s).map_err(fault)? else {
                    return Ok(());
                };
                if let Some(Value::Array(list)) = self.whole_reference(rest).map_err(fault)? {
                    for (j, x) in list.clone().iter().enumerate() {
                        self.expand_item(x, &format!("{place}({rest}[{j}])"), out)?;
                    }
                    return Ok(());
                }
                out.push(self.expand(&Value::String(rest.to_string()), place)?);
                Ok(())
            }
            Value::Object(m) => {
                let mut m = m.clone();
                if let Some(p) = m.shift_remove("part") {
                    let name = p
                        .as_str()
                        .ok_or_else(|| fault("`part` must be a part's name".into()))?;
                    let Some(Value::Object(part)) = self.parts.get(name) else {
                        return Err(fault(format!(
                            "unknown part `{name}` (parts: {})",
                            self.parts.keys().cloned().collect::<Vec<_>>().join(", ")
                        )));
                    };
                    if !m.is_empty() {
                        return Err(fault(format!(
                            "`{{ part = \"{name}\" }}` takes no other keys"
                        )));
                    }
                    m = part.clone();
                }
                if let Some(c) = m.shift_remove("if") {
                    let c = c
                        .as_str()
                        .ok_or_else(|| fault("`if` must be a condition string".into()))?;
                    if !self.holds(c).map_err(fault)? {
                        return Ok(());
                    }
                }
                out.push(self.expand(&Value::Object(m), place)?);
                Ok(())
            }
            other => {
                out.push(self.expand(other, place)?);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AXES: &str = r#"
[axes.form.plain]
prefix = ""
[axes.form.norm]
flags = ["normed"]
prefix = "norm_"
[axes.bias.no]
[axes.bias.yes]
flags = ["b"]
"#;

    fn parse(body: &str) -> Result<Description, DescriptionError> {
        Description::parse(&format!("{AXES}\n{body}"), "test")
    }

    #[test]
    fn expands_conditions_parts_and_references() {
        let d = parse(
            r#"
[parts.pre]
if = "normed"
id = "norm"
bindings = ["a", "params"]

[[family]]
name = "k"
flags = ["extra"]
expand = [["bias", "form", "split"]]
id = "k_{form.prefix}{bias}"
priority = "{split.priority}"
when = ["{if normed} normOk", "{if not normed and b} plainBias", "fits"]
requires = { limits = { maxStorageBuffersPerShaderStage = "{storageBuffers}" } }
[family.axes.split.one]
priority = 7
[family.derive]
"{if normed} from" = "1"
"{if plain} from" = "0"
"{if extra} tag" = "x"
[[family.passes]]
part = "pre"
[[family.passes]]
id = "main"
bindings = ["{if normed} normed", "{if plain} a", "{if b} bias", "y"]
dispatch = { x = "1", "{if b} z" = 2 }
"#,
        )
        .unwrap();
        let ids: Vec<&str> = d.variants.iter().map(|g| g.id.as_str()).collect();
        assert_eq!(ids, ["k_no", "k_norm_no", "k_yes", "k_norm_yes"]);
        let v = &d.variants[3].json;
        assert_eq!(v["priority"], 7);
        assert_eq!(v["when"], serde_json::json!(["normOk", "fits"]));
        assert_eq!(v["derive"], serde_json::json!({"from": "1", "tag": "x"}));
        assert_eq!(v["passes"][0]["id"], "norm");
        assert_eq!(
            v["passes"][1]["bindings"],
            serde_json::json!(["normed", "bias", "y"])
        );
        assert_eq!(v["passes"][1]["dispatch"]["z"], 2);
        // `params` is the seed's uniform: one storage buffer in the norm pass, three in main.
        assert_eq!(
            v["requires"]["limits"]["maxStorageBuffersPerShaderStage"],
            3
        );
        let plain_bias = &d.variants[2].json;
        assert_eq!(plain_bias["when"], serde_json::json!(["plainBias", "fits"]));
        assert_eq!(plain_bias["passes"].as_array().unwrap().len(), 1);
        assert_eq!(d.variant_id("k", &[("form", "norm")]), Some("k_norm_no"));
        assert_eq!(
            d.variant_id("k", &[("form", "norm"), ("bias", "yes")]),
            Some("k_norm_yes")
        );
        assert_eq!(d.variant_id("nope", &[]), None);
        // Keys come out in the manifest's order whatever the block's order.
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["id", "priority", "when", "requires", "derive", "passes"]
        );
    }

    #[test]
    fn lists_splice_and_sections_pass_through() {
        let d = Description::parse(
            r#"
description = "x"
[tunables]
T = { default = 4, values = [2, 4], limits = { min = 1, max = 64, why = "w" } }
U = { default = 1 }
[attributeChecks.block_size]
when = "attrs.block_size >= 16"
why = "blocks of 16 or more"
[axes.form.plain]
when = ["a", "b_{bias}"]
[axes.bias.nb]
[[family]]
name = "k"
expand = [["form", "bias"]]
id = "k"
priority = 1
when = ["first", "{form.when}", "last"]
passes = []
[after]
x = 1
"#,
            "test",
        )
        .unwrap();
        let o = d.overlay();
        let keys: Vec<&str> = o.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "description",
                "tunables",
                "attributeChecks",
                "variants",
                "after",
                "tunableLimits"
            ]
        );
        // Inline limits move to tunableLimits (added at the end: the description has none).
        assert_eq!(
            o["tunables"]["T"],
            serde_json::json!({"default": 4, "values": [2, 4]})
        );
        assert_eq!(
            o["tunableLimits"]["T"],
            serde_json::json!({"min": 1, "max": 64, "why": "w"})
        );
        assert_eq!(
            o["attributeChecks"]["block_size"]["why"],
            "blocks of 16 or more"
        );
        assert_eq!(
            o["variants"][0]["when"],
            serde_json::json!(["first", "a", "b_nb", "last"])
        );
        assert!(d.overlay_json().ends_with("}\n"));
    }

    #[test]
    fn errors_name_family_variant_and_place() {
        let base = |when: &str| {
            format!(
                "[[family]]\nname = \"k\"\nexpand = [[\"form\"]]\nid = \"k_{{form}}\"\npriority = 1\nwhen = [{when}]\npasses = []\n"
            )
        };
        let e = parse(&base("\"{form.prefx}\"")).unwrap_err().to_string();
        assert!(
            e.contains("family `k`, variant `k_plain` (form=plain), when[0]")
                && e.contains("unknown reference `{form.prefx}`")
                && e.contains("{form.prefix}"),
            "{e}"
        );
        let e = parse(&base("\"{if nromed} x\"")).unwrap_err().to_string();
        assert!(
            e.contains("unknown flag `nromed`") && e.contains("normed"),
            "{e}"
        );
        let e = parse(&base("\"a {if normed} x\"")).unwrap_err().to_string();
        assert!(e.contains("may only start a list item"), "{e}");
        let e = parse(&base("\"{form\"")).unwrap_err().to_string();
        assert!(e.contains("without `}`"), "{e}");
        let e = parse(&base("{ part = \"nope\" }")).unwrap_err().to_string();
        assert!(e.contains("unknown part `nope`"), "{e}");
        let e = parse(&base("\"x\"").replace("[[\"form\"]]", "[[\"shape\"]]"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("expand[0]") && e.contains("unknown axis `shape`"),
            "{e}"
        );
        let e = parse(&base("\"x\"").replace("[[\"form\"]]", "[[\"form:plain,nrm\"]]"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no value `nrm`") && e.contains("plain, norm"),
            "{e}"
        );
        let e = parse(&(base("\"x\"") + "priorty = 2\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("family `k`") && e.contains("unknown key `priorty`"),
            "{e}"
        );
        let e = parse(&base("\"x\"").replace("k_{form}", "k"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("variant `k` (form=norm), id") && e.contains("generated twice"),
            "{e}"
        );
        let e = parse(&base("\"x\"").replace("priority = 1", "priority = \"high\""))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("priority") && e.contains("must be an integer"),
            "{e}"
        );
        let e = Description::parse("variants = []", "test")
            .unwrap_err()
            .to_string();
        assert!(e.contains("generated from `family` blocks"), "{e}");
        let e = Description::parse(
            "[tunables]\nT = { default = 1, limits = { min = 1 } }\n[tunableLimits]\nT = { min = 1 }\n",
            "test",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("tunables.T.limits") && e.contains("both here and in [tunableLimits]"),
            "{e}"
        );
        let e = Description::parse("x = [", "t.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t.toml: TOML:"), "{e}");
    }

    #[test]
    fn table_splices_between_markers() {
        let doc = format!("a\n{TABLE_BEGIN}\nold\n{TABLE_END}\nb\n");
        let new = splice_table(&doc, "new\n").unwrap();
        assert_eq!(new, format!("a\n{TABLE_BEGIN}\nnew\n{TABLE_END}\nb\n"));
        assert_eq!(splice_table(&new, "new\n").unwrap(), new);
        assert!(splice_table("no markers", "x").is_none());
    }
}
