//! Expanding a family's fields for one combination of axis values: references, conditions,
//! parts, spliced lists.

use super::{Fault, Loop};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Every combination of a loop nest, outermost loop slowest, as (axis, value) pairs.
pub(super) fn combinations(nest: &[Loop]) -> Vec<Vec<(String, String)>> {
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
pub(super) fn storage_buffers(passes: &Value, uniform: &BTreeSet<String>) -> Result<u64, String> {
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
pub(super) struct Scope<'a> {
    /// `axis` and `axis.field` values, and `storageBuffers`.
    pub(super) vars: BTreeMap<String, Value>,
    /// The variant's flags.
    pub(super) flags: &'a BTreeSet<String>,
    /// Every flag a condition may name.
    pub(super) known: &'a BTreeSet<String>,
    /// The shared parts.
    pub(super) parts: &'a Map<String, Value>,
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

    /// `v` with references, conditions and parts resolved; `place` names it in errors.
    pub(super) fn expand(&self, v: &Value, place: &str) -> Result<Value, Fault> {
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
