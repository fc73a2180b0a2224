//! Template `inputs` headers: each built-in header lists exactly what its template reads, the
//! project manifest provides it for every variant, and a variant that does not is named when
//! the planner is made.

use nbits_mlp_core::render::{
    imports, TemplateInputs, Templates, BUILTIN_TEMPLATES, PLANNER_CONTEXT,
};
use nbits_mlp_core::{DeviceProfile, Manifest, MlpShape, Planner, Tunables};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The names a template's source reads, by minijinja's static analysis: context names, with
/// `tunables.X` / `attrs.X` kept whole, minijinja's own globals (`range`, `namespace`) left out.
fn analysed(name: &str, src: &str) -> BTreeSet<String> {
    let mut env = minijinja::Environment::new();
    env.add_template(name, src).unwrap();
    let globals: BTreeSet<String> = env.globals().map(|(n, _)| n.to_string()).collect();
    env.get_template(name)
        .unwrap()
        .undeclared_variables(true)
        .into_iter()
        .map(|n| match n.split_once('.') {
            Some((ns, _)) if ns == "tunables" || ns == "attrs" => n,
            Some((root, _)) => root.to_string(),
            None => n,
        })
        .filter(|n| !globals.contains(n))
        .collect()
}

#[test]
fn builtin_headers_list_exactly_what_templates_read() {
    for (name, src) in BUILTIN_TEMPLATES {
        let h = TemplateInputs::parse(src)
            .unwrap()
            .unwrap_or_else(|| panic!("{name} has no inputs header"));
        let declared: BTreeSet<String> = h.reads.iter().chain(&h.optional).cloned().collect();
        assert_eq!(
            declared.len(),
            h.reads.len() + h.optional.len(),
            "{name}: a name listed twice"
        );
        let read = analysed(name, src);
        let undeclared: Vec<_> = read.difference(&declared).collect();
        let unread: Vec<_> = declared.difference(&read).collect();
        assert!(
            undeclared.is_empty() && unread.is_empty(),
            "{name}: the header does not match the template: read but not declared {undeclared:?}, \
             declared but not read {unread:?}"
        );
    }
}

#[test]
fn project_and_seed_manifests_provide_every_input() {
    let t = Templates::builtin();
    t.check_inputs(&Manifest::project())
        .unwrap_or_else(|e| panic!("{e}"));
    t.check_inputs(&Manifest::seed())
        .unwrap_or_else(|e| panic!("{e}"));
    // Every built-in template is used and checked by some variant, or is a macro library
    // that a used template imports (and then reads nothing from the context itself).
    let used: BTreeSet<String> = Manifest::project()
        .variants
        .iter()
        .flat_map(|v| v.passes.iter().map(|p| p.decl.shader.clone()))
        .collect();
    for (name, _) in BUILTIN_TEMPLATES {
        let inputs = t
            .inputs(name)
            .unwrap_or_else(|| panic!("{name} has no inputs header"));
        if used.contains(*name) {
            continue;
        }
        let imported = BUILTIN_TEMPLATES
            .iter()
            .any(|(n, src)| used.contains(*n) && imports(src).contains(name));
        assert!(
            imported,
            "{name} is used by no variant and imported by no template a variant uses"
        );
        assert!(
            inputs.reads.is_empty() && inputs.optional.is_empty(),
            "{name}, a macro library, reads context names: {inputs:?}"
        );
    }
}

/// A directory holding one template file (removed on drop).
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn with(file: &str, text: &str) -> TempDir {
        // Tests run in parallel: one directory per call.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "nbits-mlp-inputs-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(file), text).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn builtin_src(name: &str) -> &'static str {
    BUILTIN_TEMPLATES
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap()
        .1
}

#[test]
fn a_missing_input_names_template_variant_and_name() {
    let name = "mlp-splitk-reduce.wgsl.jinja";
    let src =
        builtin_src(name).replacen("  reads: ", "  reads: reduceLanes tunables.SPLIT_LANES ", 1);
    let dir = TempDir::with(name, &src);
    let t = Templates::with_dir(&dir.0).unwrap();
    assert_eq!(
        t.inputs(name).unwrap().reads[..2],
        ["reduceLanes", "tunables.SPLIT_LANES"]
    );
    let e = t
        .check_inputs(&Manifest::project())
        .unwrap_err()
        .to_string();
    // Every split variant of every family runs the reduce pass.
    let split = Manifest::project()
        .variants
        .iter()
        .filter(|v| v.passes.iter().any(|p| p.decl.shader == name))
        .count();
    let first = format!(
        "template `mlp-splitk-reduce.wgsl.jinja` reads `reduceLanes`, which {split} variants do not provide"
    );
    for want in [
        first.as_str(),
        "no derive entry `reduceLanes`",
        "`tiled_split_nogb_noub` (pass `reduce`)",
        "`coop_split_skipsum_gb_ub` (pass `reduce`)",
        "reads `tunables.SPLIT_LANES`",
    ] {
        assert!(e.contains(want), "missing {want:?} in:\n{e}");
    }
    // The seed's variants do not use the template: nothing to provide.
    t.check_inputs(&Manifest::seed()).unwrap();
    // A planner made with them refuses every plan (and explanation) with that error.
    let p = Planner::new(
        Arc::new(Manifest::project()),
        Arc::new(t),
        DeviceProfile::discrete_gpu(),
    );
    let call = MlpShape::new(64, 64, 1).call();
    let e = p.plan(&call, &Tunables::new()).unwrap_err().to_string();
    assert!(e.contains("reads `reduceLanes`"), "{e}");
    let e = p.explain(&call, &Tunables::new()).unwrap_err().to_string();
    assert!(e.contains("reads `reduceLanes`"), "{e}");
}

#[test]
fn a_variant_level_name_is_checked_per_variant() {
    // `fromNormed` is a derive entry of each variant, not a global one: a variant without it
    // is named, the others are not.
    let overlay =
        nbits_mlp_core::manifest::PROJECT_OVERLAY.replacen("\"fromNormed\": \"0\",", "", 1);
    assert_ne!(overlay, nbits_mlp_core::manifest::PROJECT_OVERLAY);
    let m = Manifest::with_overlay(
        nbits_mlp_core::manifest::SEED_MANIFEST,
        "seed",
        &overlay,
        "edited overlay",
    )
    .unwrap();
    let e = Templates::builtin()
        .check_inputs(&m)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(
            "template `mlp-gemv.wgsl.jinja` reads `fromNormed`, which 1 variant does not provide"
        ) && e.contains("`gemv_plain_nogb_noub` (pass `main`)"),
        "{e}"
    );
}

#[test]
fn header_parsing() {
    let ok = "{#- inputs: prose\n  on two lines: with a colon\n  reads: a b,c tunables.T\n  reads: attrs.K\n  optional: d\n-#}\nbody";
    let h = TemplateInputs::parse(ok).unwrap().unwrap();
    assert_eq!(h.reads, ["a", "b", "c", "tunables.T", "attrs.K"]);
    assert_eq!(h.optional, ["d"]);
    assert_eq!(TemplateInputs::parse("{# no header #}x").unwrap(), None);
    let e = TemplateInputs::parse("{#- inputs:\n  reads: a").unwrap_err();
    assert!(e.contains("not closed"), "{e}");
    let e = TemplateInputs::parse("{#- inputs:\n  reads: a-b\n-#}").unwrap_err();
    assert!(e.contains("`a-b` is not a name"), "{e}");
    let e = TemplateInputs::parse("{#- inputs:\n  reads: device.limits\n-#}").unwrap_err();
    assert!(e.contains("`device.limits`"), "{e}");
    // A malformed header in a template directory is an error naming the file.
    let dir = TempDir::with("bad.wgsl.jinja", "{#- inputs:\n  reads: a-b\n-#}\n");
    let e = Templates::with_dir(&dir.0).unwrap_err().to_string();
    assert!(e.contains("bad.wgsl.jinja") && e.contains("`a-b`"), "{e}");
    // Planner context names are always provided.
    assert!(PLANNER_CONTEXT.contains(&"bindingNames"));
}

#[test]
fn a_replacement_without_header_is_not_checked() {
    let name = "mlp-splitk-reduce.wgsl.jinja";
    let src = builtin_src(name);
    let body = &src[src.find("-#}").unwrap() + 3..];
    let dir = TempDir::with(name, body);
    let t = Templates::with_dir(&dir.0).unwrap();
    assert!(t.inputs(name).is_none());
    t.check_inputs(&Manifest::project()).unwrap();
}

#[test]
fn the_header_renders_as_nothing() {
    // The same template with and without its header renders the same bytes.
    let name = "mlp-splitk-reduce.wgsl.jinja";
    let src = builtin_src(name);
    let body = &src[src.find("-#}").unwrap() + 3..];
    let dir = TempDir::with(name, body);
    let mut s = MlpShape::new(4096, 1024, 20);
    s.gate_bias = true;
    let plan = |t: Templates| {
        let p = Planner::new(
            Arc::new(Manifest::project()),
            Arc::new(t),
            DeviceProfile::discrete_gpu().without_feature("coop-f16-16x16x16-f32"),
        );
        // (off the multi-row gemv, and off the few-rows kernel's float32 form, which takes
        // f32 calls of up to 64 rows by default)
        let t: Tunables = [
            ("GEMV_MAX_ROWS".to_string(), 1),
            ("GEMVP_F32_MAX_ROWS".to_string(), 0),
        ]
        .into_iter()
        .collect();
        p.plan(&s.call(), &t).unwrap()
    };
    let with = plan(Templates::builtin());
    let without = plan(Templates::with_dir(&dir.0).unwrap());
    assert_eq!(with.variant, "tiled_split_gb_noub");
    let reduce = |p: &nbits_mlp_core::Plan| {
        p.passes
            .iter()
            .find(|x| x.id == "reduce")
            .unwrap()
            .wgsl
            .clone()
    };
    assert_eq!(reduce(&with), reduce(&without));
}
