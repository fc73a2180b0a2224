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
//! (skipsum), `gb`, `ub` (bias inputs), `split`, `whole`, `seedNormWorkgroup` (families
//! whose norm pass runs the seed's NORM_WORKGROUP_SIZE threads, so they check
//! `normDispatchFits`), `f16`, `f32` (the values of `gemvp`'s own `dtype` axis), `f16Row`
//! (variants whose norm pass writes an f16 row: `gemvp`'s `f16` value sets it) and `t1Row`
//! (variants whose norm pass writes its row in the call's type T1: the families `gemv`, `mma`,
//! `mmap` and `mmal`).
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

mod expand;
mod parse;
#[cfg(test)]
mod tests;

use expand::{combinations, storage_buffers, Scope};
use indexmap::IndexMap;
use parse::{move_inline_limits, parse_axes, parse_family, toml_to_json};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// A fault while reading or expanding: (place, message).
type Fault = (String, String);

/// The description shipped with the project.
pub const OVERLAY_SOURCE: &str = include_str!("../../../../manifest/nbits-mlp.overlay.toml");
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
    splice_between(doc, TABLE_BEGIN, TABLE_END, table)
}

/// `doc` with the text between the line `begin` and the line `end` replaced by `text` (a
/// generated part of a hand-written document); `None` when either marker is missing.
pub fn splice_between(doc: &str, begin: &str, end: &str, text: &str) -> Option<String> {
    let from = doc.find(begin)? + begin.len();
    let to = from + doc[from..].find(end)?;
    Some(format!("{}\n{}{}", &doc[..from], text, &doc[to..]))
}
