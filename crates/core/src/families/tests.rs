//! Unit tests of the generator: expansion, pass-through, errors, the docs table.

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
