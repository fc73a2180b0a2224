//! The committed overlay (`manifest/nbits-mlp.overlay.json`) is exactly what its description
//! (`manifest/nbits-mlp.overlay.toml`) generates, it loads and checks clean, and the families
//! table in `docs/DESIGN.md` is current. `cargo xtask gen-overlay` fixes the first and the last.

use nbits_mlp_core::families::{
    splice_table, Description, DESIGN_PATH, OVERLAY_PATH, OVERLAY_SOURCE, OVERLAY_SOURCE_PATH,
    REGENERATE,
};
use nbits_mlp_core::manifest::{PROJECT_OVERLAY, SEED_MANIFEST};
use nbits_mlp_core::Manifest;
use serde_json::Value;

fn description() -> Description {
    Description::parse(OVERLAY_SOURCE, OVERLAY_SOURCE_PATH).unwrap_or_else(|e| panic!("{e}"))
}

/// What differs between two overlays, in words: sections, then variants by id.
fn differences(committed: &Value, generated: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let (c, g) = (
        committed.as_object().unwrap(),
        generated.as_object().unwrap(),
    );
    for k in c.keys().chain(g.keys().filter(|k| !c.contains_key(*k))) {
        match (c.get(k), g.get(k)) {
            (Some(_), None) => out.push(format!(
                "section `{k}` is in {OVERLAY_PATH} but not in {OVERLAY_SOURCE_PATH} (move it there)"
            )),
            (None, Some(_)) => out.push(format!("section `{k}` is not in {OVERLAY_PATH}")),
            (Some(a), Some(b)) if a != b && k != "variants" => {
                out.push(format!("section `{k}` differs"))
            }
            _ => {}
        }
    }
    let ids = |v: &Value| -> Vec<String> {
        v["variants"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|x| x["id"].as_str().unwrap_or("?").to_string())
            .collect()
    };
    let (ci, gi) = (ids(committed), ids(generated));
    let extra: Vec<&String> = ci.iter().filter(|i| !gi.contains(i)).collect();
    if !extra.is_empty() {
        out.push(format!(
            "variants in {OVERLAY_PATH} that no family generates (write their family in \
             {OVERLAY_SOURCE_PATH}): {extra:?}"
        ));
    }
    let missing: Vec<&String> = gi.iter().filter(|i| !ci.contains(i)).collect();
    if !missing.is_empty() {
        out.push(format!(
            "generated variants missing from {OVERLAY_PATH}: {missing:?}"
        ));
    }
    for (a, b) in c["variants"]
        .as_array()
        .into_iter()
        .flatten()
        .zip(g["variants"].as_array().into_iter().flatten())
    {
        if a != b && a["id"] == b["id"] {
            out.push(format!(
                "variant `{}` differs",
                a["id"].as_str().unwrap_or("?")
            ));
        }
    }
    if out.is_empty() && ci != gi {
        out.push("the variants' order differs".into());
    }
    if out.is_empty() {
        out.push("formatting or key order only".into());
    }
    out
}

#[test]
fn committed_overlay_is_generated() {
    let d = description();
    let generated = d.overlay_json();
    if generated != PROJECT_OVERLAY {
        let committed: Value = serde_json::from_str(PROJECT_OVERLAY).unwrap();
        let what = differences(&committed, &d.overlay());
        panic!(
            "{OVERLAY_PATH} is not what {OVERLAY_SOURCE_PATH} generates:\n  - {}\nEdit \
             {OVERLAY_SOURCE_PATH} and run `{REGENERATE}`.",
            what.join("\n  - ")
        );
    }
}

#[test]
fn generated_overlay_loads_and_checks_clean() {
    let d = description();
    let m = Manifest::with_overlay(
        SEED_MANIFEST,
        "seed",
        &d.overlay_json(),
        "generated overlay",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    m.check(&nbits_mlp_core::render::Templates::builtin().names())
        .unwrap_or_else(|e| panic!("{e}"));
    // Every generated variant is in the manifest, in order, after the seed's.
    let seed = Manifest::seed().variants.len();
    let ids: Vec<&str> = m.variants[seed..]
        .iter()
        .map(|v| v.decl.id.as_str())
        .collect();
    let generated: Vec<&str> = d.variants.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(ids, generated);
    // Each family generated something (ids are unique: the generator checks).
    for f in &d.families {
        assert!(d.family_variants(&f.name).count() > 0, "family {}", f.name);
    }
}

#[test]
fn docs_families_table_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(DESIGN_PATH);
    let doc = std::fs::read_to_string(&path).unwrap();
    let want = splice_table(&doc, &description().families_table())
        .unwrap_or_else(|| panic!("{DESIGN_PATH} has no families table markers"));
    assert!(
        want == doc,
        "the families table in {DESIGN_PATH} is stale: run `{REGENERATE}`"
    );
}

#[test]
fn a_stale_overlay_is_described() {
    // A variant appended by hand (as a family written straight into the JSON would be) and an
    // edited section are both named.
    let d = description();
    let mut committed = d.overlay();
    let mut extra = committed["variants"][0].clone();
    extra["id"] = "hand_written".into();
    committed["variants"].as_array_mut().unwrap().push(extra);
    committed["derive"]["gemvCols"] = "8".into();
    let what = differences(&committed, &d.overlay()).join("\n");
    assert!(
        what.contains("hand_written") && what.contains("no family generates"),
        "{what}"
    );
    assert!(what.contains("section `derive` differs"), "{what}");
}

/// A manifest and a planner from an edited description (the recipes in docs/DESIGN.md).
fn planner_from(description: &str) -> nbits_mlp_core::Planner {
    let d = Description::parse(description, "edited description").unwrap_or_else(|e| panic!("{e}"));
    let m = Manifest::with_overlay(SEED_MANIFEST, "seed", &d.overlay_json(), "edited overlay")
        .unwrap_or_else(|e| panic!("{e}"));
    let templates = nbits_mlp_core::render::Templates::builtin();
    m.check(&templates.names())
        .unwrap_or_else(|e| panic!("{e}"));
    nbits_mlp_core::Planner::new(
        std::sync::Arc::new(m),
        std::sync::Arc::new(templates),
        nbits_mlp_core::DeviceProfile::discrete_gpu(),
    )
}

#[test]
fn recipe_adding_a_tunable_is_one_line() {
    let line = "GEMV_MAX_ROWS = { default = 0,";
    let text = OVERLAY_SOURCE.replacen(
        line,
        &format!(
            "MY_TILE = {{ default = 4, values = [2, 4, 8], limits = {{ min = 1, max = 16, why = \
             \"a test\" }} }}\n{line}"
        ),
        1,
    );
    assert_ne!(text, OVERLAY_SOURCE);
    let p = planner_from(&text);
    let call = nbits_mlp_core::MlpShape::new(256, 64, 1).call();
    let t = |v: i64| [("MY_TILE".to_string(), v)].into_iter().collect();
    let plan = p.plan(&call, &t(8)).unwrap();
    assert_eq!(plan.tunables["MY_TILE"], 8);
    let e = p.plan(&call, &t(17)).unwrap_err().to_string();
    assert!(e.contains("MY_TILE"), "{e}");
    assert_eq!(
        p.manifest().tunable_values["MY_TILE"],
        [2, 4, 8],
        "its candidates for tune"
    );
}

#[test]
fn recipe_adding_a_family_is_one_block() {
    // A copy of the `gemvr` block under another name, for exactly 3 rows at a higher priority:
    // one block, and calls of 3 rows take it.
    let start = OVERLAY_SOURCE.find("[[family]]\nname = \"gemvr\"").unwrap();
    let end = start + OVERLAY_SOURCE[start..].find("\n# ----").unwrap();
    let block = OVERLAY_SOURCE[start..end]
        .replace("name = \"gemvr\"", "name = \"gemv3\"")
        .replace(
            "id = \"gemvr_{form}_{bias}\"",
            "id = \"gemv3_{form}_{bias}\"",
        )
        .replace("priority = 30", "priority = 31")
        .replace("\"gemvrFits\"]", "\"gemvrFits\", \"aRows == 3\"]");
    let text = format!(
        "{}\n{block}\n{}",
        &OVERLAY_SOURCE[..end],
        &OVERLAY_SOURCE[end..]
    );
    let p = planner_from(&text);
    let mut s = nbits_mlp_core::MlpShape::new(256, 64, 3);
    s.norm = true;
    s.up_bias = true;
    // (f32 calls of 2-64 rows take the few-rows kernel on prepared weights, priority above: off)
    let no_gemvp = [("GEMVP_F32_MAX_ROWS".to_string(), 0)]
        .into_iter()
        .collect();
    assert_eq!(
        p.plan(&s.call(), &no_gemvp).unwrap().variant,
        "gemv3_norm_nogb_ub"
    );
    s.lead = vec![4];
    assert_eq!(
        p.plan(&s.call(), &no_gemvp).unwrap().variant,
        "gemvr_norm_nogb_ub"
    );
}
