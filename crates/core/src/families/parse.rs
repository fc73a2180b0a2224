//! Reading a description: TOML to JSON values, axes, `[[family]]` blocks, inline tunable
//! limits.

use super::{Axis, AxisValue, Family, Fault, Loop, FAMILY_KEYS, VARIANT_KEYS};
use indexmap::IndexMap;
use serde_json::{Map, Value};

/// Moves the `limits` a tunable carries inline (`[tunables]`) into the `tunableLimits`
/// section, after the entries written there (the section is added at the end when absent).
pub(super) fn move_inline_limits(sections: &mut Map<String, Value>) -> Result<(), Fault> {
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

pub(super) fn toml_to_json(v: toml::Value) -> Result<Value, String> {
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

pub(super) fn strings(v: &Value, place: &str) -> Result<Vec<String>, Fault> {
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

pub(super) fn parse_axes(v: &Value, place: &str) -> Result<IndexMap<String, Axis>, Fault> {
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

pub(super) fn parse_family(
    v: &Value,
    i: usize,
    global: &IndexMap<String, Axis>,
) -> Result<Family, Fault> {
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
