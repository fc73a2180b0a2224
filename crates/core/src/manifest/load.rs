//! Loading: a manifest's JSON (and an overlay merged beside it, names not colliding) compiled
//! into a [`Manifest`], every expression parsed once, shadowing computed per variant, derive
//! depth bounded.

use super::error::{from_json, ManifestError};
use super::*;
use crate::expr::{Expr, Ref};
use indexmap::IndexMap;
use std::collections::{BTreeMap, BTreeSet};

/// The overlay's value checks, carried from the overlay file into [`Manifest::compile`].
#[derive(Default)]
struct OverlayChecks {
    attributes: IndexMap<String, AttrCheckDecl>,
    tunables: IndexMap<String, TunableLimit>,
    inputs: Vec<InputCheckDecl>,
}

/// Parses the expression at JSON path `path`.
fn compile(path: &str, text: &str) -> Result<Expr, ManifestError> {
    Expr::parse(text).map_err(|error| ManifestError::Expr {
        path: path.into(),
        error,
    })
}

/// Parses an expression that may be written `$name` (a derive entry).
fn compile_dollar(path: &str, text: &str) -> Result<Expr, ManifestError> {
    compile(path, text.strip_prefix('$').unwrap_or(text))
}

impl Manifest {
    /// The seed manifest.
    pub fn seed() -> Manifest {
        Manifest::from_json(SEED_MANIFEST, "seed manifest").expect("the seed manifest loads")
    }

    /// The seed manifest with the project's overlay (extra variants) merged.
    pub fn project() -> Manifest {
        Manifest::with_overlay(
            SEED_MANIFEST,
            "seed manifest",
            PROJECT_OVERLAY,
            "project overlay",
        )
        .expect("the project manifest loads")
    }

    /// Loads a manifest from JSON text; `origin` names it in errors.
    pub fn from_json(text: &str, origin: &str) -> Result<Manifest, ManifestError> {
        let file: ManifestFile = from_json(text, origin)?;
        Manifest::compile(file, IndexMap::new(), OverlayChecks::default())
    }

    /// Loads a manifest and merges an overlay file into it.
    pub fn with_overlay(
        text: &str,
        origin: &str,
        overlay: &str,
        overlay_origin: &str,
    ) -> Result<Manifest, ManifestError> {
        let mut file: ManifestFile = from_json(text, origin)?;
        let ov: OverlayFile = from_json(overlay, overlay_origin)?;
        let mut clashes = Vec::new();
        for (k, v) in ov.tunables {
            if file.tunables.insert(k.clone(), v).is_some() {
                clashes.push(format!("{overlay_origin}: tunable `{k}` already exists"));
            }
        }
        for (k, v) in ov.derive {
            if file.derive.insert(k.clone(), v).is_some() {
                clashes.push(format!("{overlay_origin}: derive `{k}` already exists"));
            }
        }
        for (k, v) in ov.bindings {
            if file.bindings.insert(k.clone(), v).is_some() {
                clashes.push(format!("{overlay_origin}: binding `{k}` already exists"));
            }
        }
        for v in ov.variants {
            if file.variants.iter().any(|x| x.id == v.id) {
                clashes.push(format!(
                    "{overlay_origin}: variant `{}` already exists",
                    v.id
                ));
            }
            file.variants.push(v);
        }
        if !clashes.is_empty() {
            return Err(ManifestError::Check(clashes));
        }
        let mut values = ov.tunable_values;
        for (k, t) in &file.tunables {
            if let Some(v) = &t.values {
                values.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        let checks = OverlayChecks {
            attributes: ov.attribute_checks,
            tunables: ov.tunable_limits,
            inputs: ov.input_checks,
        };
        Manifest::compile(file, values, checks)
    }

    fn compile(
        file: ManifestFile,
        tunable_values: IndexMap<String, Vec<i64>>,
        checks: OverlayChecks,
    ) -> Result<Manifest, ManifestError> {
        let tensor_args = |which: &str,
                           decls: &IndexMap<String, TensorDecl>|
         -> Result<Vec<TensorArg>, ManifestError> {
            decls
                .iter()
                .map(|(arg, d)| {
                    Ok(TensorArg {
                        arg: arg.clone(),
                        decl: d.clone(),
                        rank: d
                            .rank
                            .as_ref()
                            .map(|r| compile(&format!("{which}.{arg}.rank"), &r.text()))
                            .transpose()?,
                        shape: d
                            .shape
                            .as_ref()
                            .map(|s| compile(&format!("{which}.{arg}.shape"), s))
                            .transpose()?,
                    })
                })
                .collect()
        };
        let inputs = tensor_args("inputs", &file.inputs)?;
        let outputs = tensor_args("outputs", &file.outputs)?;
        let derive = file
            .derive
            .iter()
            .map(|(k, v)| Ok((k.clone(), compile(&format!("derive.{k}"), &v.text())?)))
            .collect::<Result<IndexMap<_, _>, ManifestError>>()?;
        let when = file
            .when
            .iter()
            .enumerate()
            .map(|(i, w)| compile(&format!("when[{i}]"), w))
            .collect::<Result<Vec<_>, _>>()?;
        let bindings = file
            .bindings
            .iter()
            .map(|(k, b)| {
                let length = b
                    .length
                    .as_ref()
                    .map(|l| compile_dollar(&format!("bindings.{k}.length"), l))
                    .transpose()?;
                let fields = b
                    .fields
                    .iter()
                    .flatten()
                    .enumerate()
                    .map(|(i, f)| {
                        Ok(StructField {
                            name: f.name.clone(),
                            ty: f.ty.clone(),
                            value: compile(
                                &format!("bindings.{k}.struct[{i}].value"),
                                &f.value.text(),
                            )?,
                        })
                    })
                    .collect::<Result<Vec<_>, ManifestError>>()?;
                Ok((
                    k.clone(),
                    Binding {
                        decl: b.clone(),
                        length,
                        fields,
                    },
                ))
            })
            .collect::<Result<IndexMap<_, _>, ManifestError>>()?;

        // Which global derives use which (reversed: name -> the entries naming it), for
        // shadowing: a variant's sensitive entries are those that reach a shadowed name. Walked
        // per variant from its shadowed names, so a long chain costs linear time, not a closure
        // per entry.
        let mut users: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for (k, e) in &derive {
            for r in e.refs() {
                if let Ref::Derive(d) = r {
                    users.entry(d).or_default().push(k.as_str());
                }
            }
        }
        let sensitive_to = |shadowed: &IndexMap<String, Expr>| -> BTreeSet<String> {
            let mut stack: Vec<&str> = shadowed.keys().map(String::as_str).collect();
            let mut reached: BTreeSet<&str> = stack.iter().copied().collect();
            while let Some(n) = stack.pop() {
                for u in users.get(n).into_iter().flatten() {
                    if reached.insert(u) {
                        stack.push(u);
                    }
                }
            }
            reached
                .into_iter()
                .filter(|k| derive.contains_key(*k))
                .map(str::to_string)
                .collect()
        };

        let mut variants = Vec::new();
        for (vi, v) in file.variants.iter().enumerate() {
            let p = format!("variants[{vi}]");
            let when = v
                .when
                .iter()
                .enumerate()
                .map(|(i, w)| compile(&format!("{p}.when[{i}]"), w))
                .collect::<Result<Vec<_>, _>>()?;
            let vderive = v
                .derive
                .iter()
                .map(|(k, e)| Ok((k.clone(), compile(&format!("{p}.derive.{k}"), &e.text())?)))
                .collect::<Result<IndexMap<_, _>, ManifestError>>()?;
            let intermediates = v
                .intermediates
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    Ok((
                        d.clone(),
                        compile(&format!("{p}.intermediates[{i}].shape"), &d.shape)?,
                    ))
                })
                .collect::<Result<Vec<_>, ManifestError>>()?;
            let passes = v
                .passes
                .iter()
                .enumerate()
                .map(|(i, pd)| {
                    let dp = format!("{p}.passes[{i}].dispatch");
                    let one = || Expr::constant(1);
                    Ok(Pass {
                        decl: pd.clone(),
                        dispatch: [
                            compile(&format!("{dp}.x"), &pd.dispatch.x.text())?,
                            pd.dispatch
                                .y
                                .as_ref()
                                .map(|y| compile(&format!("{dp}.y"), &y.text()))
                                .transpose()?
                                .unwrap_or_else(one),
                            pd.dispatch
                                .z
                                .as_ref()
                                .map(|z| compile(&format!("{dp}.z"), &z.text()))
                                .transpose()?
                                .unwrap_or_else(one),
                        ],
                    })
                })
                .collect::<Result<Vec<_>, ManifestError>>()?;
            let shadow_sensitive = sensitive_to(&vderive);
            let when_shared = when
                .iter()
                .map(|w| {
                    w.refs().iter().all(|r| match r {
                        Ref::Derive(d) => !vderive.contains_key(d) && !shadow_sensitive.contains(d),
                        Ref::Path(_) => true,
                    })
                })
                .collect();
            variants.push(Variant {
                decl: v.clone(),
                when,
                derive: vderive,
                intermediates,
                passes,
                shadow_sensitive,
                when_shared,
            });
        }
        let attribute_checks = checks
            .attributes
            .into_iter()
            .map(|(attr, c)| {
                Ok(AttrCheck {
                    when: compile(&format!("attributeChecks.{attr}.when"), &c.when)?,
                    kind: c.kind,
                    attr,
                    why: c.why,
                })
            })
            .collect::<Result<Vec<_>, ManifestError>>()?;
        let input_checks = checks
            .inputs
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                Ok(InputCheck {
                    when: compile(&format!("inputChecks[{i}].when"), &c.when)?,
                    what: c.what,
                    why: c.why,
                })
            })
            .collect::<Result<Vec<_>, ManifestError>>()?;
        let manifest = Manifest {
            file,
            inputs,
            outputs,
            derive,
            when,
            bindings,
            variants,
            tunable_values,
            attribute_checks,
            tunable_limits: checks.tunables,
            input_checks,
        };
        manifest.check_depth()?;
        Ok(manifest)
    }
}
