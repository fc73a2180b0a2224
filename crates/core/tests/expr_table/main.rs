//! Table-driven tests of the manifest expression language (`nbits_mlp_core::expr`): every
//! literal, operator, precedence level, built-in and namespace, laziness, every error kind with
//! its failing sub-term and rendering, deep nesting, and every expression of the seed manifest.
//!
//! The tables are text fixtures, `tests/fixtures/expr/values.txt` (expression => value, in
//! named tables) and `tests/fixtures/expr/errors.txt` (expression => error kind and term), their
//! formats written at their tops; the tests here say which environment each table runs in and
//! report every failing case as file:line.

mod fixture;
mod nesting;

use fixture::{error_cases, values_table};
use nbits_mlp_core::expr::{Env, ErrorKind, Expr, ExprError, MapEnv, Value};
use std::sync::Arc;

// ---------------------------------------------------------------------------------------------
// Helpers

fn i(v: i64) -> Value {
    Value::Int(v)
}
fn f(v: f64) -> Value {
    Value::Float(v)
}
fn b(v: bool) -> Value {
    Value::Bool(v)
}
fn s(v: &str) -> Value {
    Value::Str(v.into())
}
fn l(v: &[i64]) -> Value {
    Value::List(v.iter().map(|&x| Value::Int(x)).collect())
}
fn lv(v: Vec<Value>) -> Value {
    Value::List(v)
}

/// The environment most tables evaluate in.
fn env() -> MapEnv {
    let mut e = MapEnv::default();
    for (k, v) in [
        ("t", b(true)),
        ("fa", b(false)),
        ("n", i(3)),
        ("zero", i(0)),
        ("half", f(0.5)),
        ("sh", l(&[2, 3, 4])),
        ("empty", l(&[])),
        ("word", s("héllo")),
    ] {
        e.derives.insert(k.into(), v);
    }
    for (k, v) in [
        ("attrs.N", i(20)),
        ("attrs.K", i(16)),
        ("attrs.epsilon", f(1e-5)),
        ("tunables.ROW_TILE", i(8)),
        ("shapes.aT", l(&[2, 5, 16])),
        ("shapes.gateBT", l(&[20, 1, 8])),
        ("ranks.aT", i(3)),
        ("tensorDtypes.aT", s("float16")),
        ("tensorDtypes.gateBT", s("uint8")),
        ("present.aT", b(true)),
        ("present.skipT", b(false)),
        ("device.limits.maxComputeInvocationsPerWorkgroup", i(256)),
        ("device.limits.maxComputeWorkgroupsPerDimension", i(65535)),
    ] {
        e.paths.insert(k.into(), v);
    }
    e.features.insert("subgroups".into());
    e
}

fn eval_in(src: &str, env: &mut dyn Env) -> Result<Value, ExprError> {
    Expr::parse(src)?.eval(env)
}

/// Evaluates every case of `values.txt`'s table `table` in `env` and reports all mismatches at
/// once.
fn check_table(env: &mut dyn Env, table: &str) {
    let mut failures = Vec::new();
    for (c, want) in values_table(table) {
        let src = &c.src;
        match eval_in(src, env) {
            Ok(got) if same_value(&got, &want) => {}
            Ok(got) => failures.push(format!("{}: `{src}`: got {got:?}, want {want:?}", c.at)),
            Err(e) => failures.push(format!(
                "{}: `{src}`: error {:?}: {e}, want {want:?}",
                c.at, e.kind
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Structural equality that also requires the same kinds (Int vs Float) all the way down.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => {
            x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs())
        }
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q))
        }
        _ => a == b,
    }
}

// ---------------------------------------------------------------------------------------------
// Values

#[test]
fn literals() {
    check_table(&mut env(), "literals");
    // Whitespace around an expression (not expressible in the fixture, which trims it).
    assert_eq!(eval_in("  \t 7 \n ", &mut env()).unwrap(), i(7));
}

#[test]
fn arithmetic() {
    check_table(&mut env(), "arithmetic");
}

#[test]
fn precedence() {
    check_table(&mut env(), "precedence");
}

#[test]
fn comparisons() {
    check_table(&mut env(), "comparisons");
}

#[test]
fn lists_subscripts_slices() {
    check_table(&mut env(), "lists_subscripts_slices");
}

#[test]
fn builtins() {
    let mut e = env();
    check_table(&mut e, "builtins");
    e.features.insert("shader-f16".into());
    check_table(&mut e, "builtins_with_shader_f16");
}

#[test]
fn namespaces_through_map_env() {
    check_table(&mut env(), "namespaces");
}

#[test]
fn expr_api() {
    let e = Expr::parse("1 + n").unwrap();
    assert_eq!(e.source(), "1 + n");
    assert_eq!(e.root().span, 0..5);
    assert_eq!(e.eval_int(&mut env()).unwrap(), 4);
    let err = e.eval_bool(&mut env()).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TypeMismatch);
    assert_eq!(err.term(), "1 + n");
    assert!(Expr::parse("n > 1").unwrap().eval_bool(&mut env()).unwrap());
    assert_eq!(
        Expr::parse("t")
            .unwrap()
            .eval_int(&mut env())
            .unwrap_err()
            .kind,
        ErrorKind::TypeMismatch
    );
    let c = Expr::constant(-3);
    assert_eq!(c.source(), "-3");
    assert_eq!(c.eval(&mut MapEnv::default()).unwrap(), i(-3));
    let err = Expr::parse("a + b")
        .unwrap()
        .error(ErrorKind::BadArgument, "custom");
    assert_eq!(
        (err.kind, err.term(), err.message.as_str()),
        (ErrorKind::BadArgument, "a + b", "custom")
    );

    // Sub-trees: their text (parentheses included) and their value.
    use nbits_mlp_core::expr::NodeKind;
    let e = Expr::parse("(n + 1) * (n - 1) == 8").unwrap();
    let NodeKind::Bin(_, prod, _) = &e.root().kind else {
        panic!("{:?}", e.root())
    };
    let NodeKind::Bin(_, l, r) = &prod.kind else {
        panic!("{prod:?}")
    };
    assert_eq!(e.text_of(prod), "(n + 1) * (n - 1)");
    assert_eq!((e.text_of(l), e.text_of(r)), ("(n + 1)", "(n - 1)"));
    assert_eq!(e.eval_node(l, &mut env()).unwrap(), i(4));
    assert_eq!(e.eval_node(prod, &mut env()).unwrap(), i(8));

    use nbits_mlp_core::expr::Ref;
    let refs =
        Expr::parse("a + attrs.K if device.features.has(name) else [b, shapes.aT[c:d]][e] < f < g")
            .unwrap()
            .refs();
    let want: Vec<Ref> = vec![
        Ref::Derive("a".into()),
        Ref::Derive("b".into()),
        Ref::Derive("c".into()),
        Ref::Derive("d".into()),
        Ref::Derive("e".into()),
        Ref::Derive("f".into()),
        Ref::Derive("g".into()),
        Ref::Derive("name".into()),
        Ref::Path(vec!["attrs".into(), "K".into()]),
        Ref::Path(vec!["shapes".into(), "aT".into()]),
    ];
    assert_eq!(refs.into_iter().collect::<Vec<_>>(), want);
}

// ---------------------------------------------------------------------------------------------
// Laziness

/// Wraps [`env`]: derive `boom` counts its evaluations and fails like a derive entry whose own
/// expression divides by zero; `shapes.absentT` is an absent tensor.
struct Boom {
    inner: MapEnv,
    booms: usize,
}

impl Boom {
    fn new() -> Boom {
        Boom {
            inner: env(),
            booms: 0,
        }
    }
}

impl Env for Boom {
    fn derive(&mut self, name: &str) -> Result<Option<Value>, ExprError> {
        if name == "boom" {
            self.booms += 1;
            let own = Expr::parse("1 / 0").unwrap();
            return Err(own
                .eval(&mut MapEnv::default())
                .unwrap_err()
                .within("derive `boom`"));
        }
        self.inner.derive(name)
    }
    fn path(&mut self, path: &[String]) -> Result<Value, (ErrorKind, String)> {
        let key = path.join(".");
        if let Some(t) = key
            .strip_prefix("shapes.")
            .or(key.strip_prefix("ranks."))
            .or(key.strip_prefix("tensorDtypes."))
        {
            if t == "absentT" {
                return Err((
                    ErrorKind::AbsentTensor,
                    format!("`{key}`: tensor `absentT` is not present"),
                ));
            }
        }
        if key == "present.absentT" {
            return Ok(b(false));
        }
        self.inner.path(path)
    }
    fn has_feature(&mut self, name: &str) -> bool {
        self.inner.has_feature(name)
    }
}

#[test]
fn laziness() {
    // `boom` is never evaluated in the `laziness` table.
    let mut failures = Vec::new();
    for (c, want) in values_table("laziness") {
        let mut e = Boom::new();
        match eval_in(&c.src, &mut e) {
            Ok(got) if got == want && e.booms == 0 => {}
            got => failures.push(format!(
                "{}: `{}`: got {got:?} with {} evaluations of `boom`, want {want:?} with none",
                c.at, c.src, e.booms
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Positive controls: the other branch is taken, so `boom` runs (once) and its error comes
    // back as it is, quoting boom's own expression.
    for src in [
        "true and boom",
        "false or boom",
        "boom if true else 1",
        "1 if false else boom",
        "1 < 2 < boom",
        "boom and false",
    ] {
        let mut e = Boom::new();
        let err = eval_in(src, &mut e).unwrap_err();
        assert_eq!(e.booms, 1, "`{src}`");
        assert_eq!(err.kind, ErrorKind::DivisionByZero, "`{src}`");
        assert_eq!(&*err.source, "1 / 0", "`{src}`");
        assert_eq!(err.context, vec!["derive `boom`".to_string()], "`{src}`");
    }
    // Chained comparisons evaluate each operand once.
    let mut e = Counting {
        inner: env(),
        calls: 0,
    };
    assert_eq!(eval_in("1 < cnt < 10", &mut e).unwrap(), b(true));
    assert_eq!(e.calls, 1);
}

struct Counting {
    inner: MapEnv,
    calls: usize,
}

impl Env for Counting {
    fn derive(&mut self, name: &str) -> Result<Option<Value>, ExprError> {
        if name == "cnt" {
            self.calls += 1;
            return Ok(Some(i(5)));
        }
        self.inner.derive(name)
    }
    fn path(&mut self, path: &[String]) -> Result<Value, (ErrorKind, String)> {
        self.inner.path(path)
    }
    fn has_feature(&mut self, name: &str) -> bool {
        self.inner.has_feature(name)
    }
}

// ---------------------------------------------------------------------------------------------
// Errors

#[test]
fn error_kinds_and_terms() {
    // (`error_cases` checks that every kind the language itself gives is in the table.)
    let mut failures = Vec::new();
    for (at, src, kind, term) in error_cases() {
        let mut e = Boom::new();
        match eval_in(&src, &mut e) {
            Ok(v) => failures.push(format!(
                "{at}: `{src}`: evaluated to {v}, want {kind:?} at `{term}`"
            )),
            Err(err) => {
                if err.kind != kind || err.term() != term || *err.source != *src {
                    failures.push(format!(
                        "{at}: `{src}`: got {:?} at `{}`, want {kind:?} at `{term}` ({err})",
                        err.kind,
                        err.term()
                    ));
                }
                if err.message.is_empty() {
                    failures.push(format!("{at}: `{src}`: empty message"));
                }
                if !err.context.is_empty() {
                    failures.push(format!(
                        "{at}: `{src}`: unexpected context {:?}",
                        err.context
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The last two lines of a rendered error: the quoted expression and the caret line.
fn quote_lines(shown: &str) -> (String, String) {
    let lines: Vec<&str> = shown.lines().collect();
    assert!(lines.len() >= 3, "too few lines in:\n{shown}");
    (
        lines[lines.len() - 2].to_string(),
        lines[lines.len() - 1].to_string(),
    )
}

#[test]
fn error_display() {
    // Each error: the message names the context, quotes the expression, and puts carets under
    // exactly the failing term.
    let mut failures = Vec::new();
    for (at, src, kind, term) in error_cases() {
        let err = eval_in(&src, &mut Boom::new())
            .unwrap_err()
            .within("derive `x`");
        let shown = err.to_string();
        let first = shown.lines().next().unwrap();
        let want_first = format!("in derive `x`: {}", err.message);
        let (quoted, carets) = quote_lines(&shown);
        let flat: String = src
            .chars()
            .map(|c| if c.is_whitespace() { ' ' } else { c })
            .collect();
        let pad = src[..err.span.start].chars().count();
        let want_carets = format!(
            "    {}{}",
            " ".repeat(pad),
            "^".repeat(term.chars().count().max(1))
        );
        if first != want_first
            || quoted != format!("    {flat}")
            || carets != want_carets
            || err.kind != kind
        {
            failures.push(format!(
                "{at}: `{src}` rendered as:\n{shown}\nwant carets:\n{want_carets}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));

    // The example from the brief, exactly.
    let err = eval_in("1 + dim(sh, 5)", &mut env())
        .unwrap_err()
        .within("derive `x`");
    assert_eq!(err.term(), "dim(sh, 5)");
    assert_eq!(
        err.to_string(),
        "in derive `x`: dim(): axis 5 out of range for a shape of rank 3\n    1 + dim(sh, 5)\n        ^^^^^^^^^^"
    );
    // Several places: innermost first, the rest as "needed by".
    let err = err.within("derive `y`").within("when[0]");
    assert_eq!(err.context, vec!["derive `x`", "derive `y`", "when[0]"]);
    assert!(
        err.to_string()
            .starts_with("in derive `x` (needed by derive `y` <- when[0]): dim(): axis 5"),
        "{err}"
    );
    // No context: just the message and the quote.
    let err = eval_in("sh[7]", &mut env()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}\n    sh[7]\n    ^^^^^", err.message)
    );
    // A syntax error at the end of the text gets one caret past the last character.
    let err = Expr::parse("(1 + 2").unwrap_err().within("dispatch.x");
    assert_eq!(err.kind, ErrorKind::Syntax);
    assert!(err.to_string().starts_with("in dispatch.x: "), "{err}");
    assert!(
        err.to_string().ends_with("\n    (1 + 2\n          ^"),
        "{err}"
    );
    // Newlines and tabs in the source do not break the caret line; non-ASCII counts as one column.
    let err = eval_in("1 +\n\t\"é\" + 2", &mut env()).unwrap_err();
    assert_eq!(
        quote_lines(&err.to_string()),
        ("    1 +  \"é\" + 2".to_string(), "    ^^^^^^^^".to_string())
    );
    let err = eval_in("\"é\" + nope", &mut env()).unwrap_err();
    assert_eq!(quote_lines(&err.to_string()).1, "          ^^^^");
    // A hand-made error with an out-of-range span renders without panicking.
    let src: Arc<str> = Arc::from("abc");
    let shown = ExprError::new(ErrorKind::Syntax, "m", &src, 7..9).to_string();
    assert!(shown.starts_with("m\n    abc\n"), "{shown}");
    assert_eq!(
        ExprError::new(ErrorKind::Syntax, "m", &src, 7..9).term(),
        ""
    );
    // Errors coming back from a derive keep their own source and gain the outer context.
    let err = eval_in("2 * boom", &mut Boom::new())
        .unwrap_err()
        .within("derive `y`");
    assert_eq!(err.term(), "1 / 0");
    assert!(
        err.to_string()
            .starts_with("in derive `boom` (needed by derive `y`): "),
        "{err}"
    );
    // An absent tensor names the term and says why.
    let err = eval_in("1 + ranks.absentT", &mut Boom::new()).unwrap_err();
    assert!(err.to_string().contains("absentT"), "{err}");
    // ExprError is a std error.
    let _: &dyn std::error::Error = &err;
}

#[test]
fn other_error_kinds_from_env_pass_through() {
    struct CycleEnv;
    impl Env for CycleEnv {
        fn derive(&mut self, name: &str) -> Result<Option<Value>, ExprError> {
            Err(Expr::parse(name)
                .unwrap()
                .error(ErrorKind::Cycle, "derive cycle"))
        }
        fn path(&mut self, _: &[String]) -> Result<Value, (ErrorKind, String)> {
            Err((ErrorKind::Cycle, "no".into()))
        }
        fn has_feature(&mut self, _: &str) -> bool {
            false
        }
    }
    let err = eval_in("1 + loop", &mut CycleEnv).unwrap_err();
    assert_eq!((err.kind, err.term()), (ErrorKind::Cycle, "loop"));
    let err = eval_in("1 + attrs.K", &mut CycleEnv).unwrap_err();
    assert_eq!((err.kind, err.term()), (ErrorKind::Cycle, "attrs.K"));
}

// ---------------------------------------------------------------------------------------------
// The seed manifest

/// Every expression string of the manifest, with where it sits.
fn manifest_expressions() -> Vec<(String, String)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../manifest/matmul_nbits_mlp.manifest.json"
    );
    let text = std::fs::read_to_string(path).expect("read the manifest");
    let m: serde_json::Value = serde_json::from_str(&text).expect("manifest is JSON");
    let mut out = Vec::new();
    let mut push = |place: String, v: &serde_json::Value| {
        if let Some(s) = v.as_str() {
            out.push((place, s.to_string()));
        }
    };
    let obj = |v: &serde_json::Value| v.as_object().cloned().unwrap_or_default();
    let arr = |v: &serde_json::Value| v.as_array().cloned().unwrap_or_default();
    for section in ["inputs", "outputs"] {
        for (name, t) in obj(&m[section]) {
            push(format!("{section}.{name}.rank"), &t["rank"]);
            push(format!("{section}.{name}.shape"), &t["shape"]);
        }
    }
    for (name, v) in obj(&m["derive"]) {
        push(format!("derive.{name}"), &v);
    }
    for (k, v) in arr(&m["when"]).iter().enumerate() {
        push(format!("when[{k}]"), v);
    }
    for (key, bnd) in obj(&m["bindings"]) {
        for (k, field) in arr(&bnd["struct"]).iter().enumerate() {
            push(format!("bindings.{key}.struct[{k}].value"), &field["value"]);
        }
    }
    for v in arr(&m["variants"]) {
        let id = v["id"].as_str().unwrap_or("?").to_string();
        for (k, w) in arr(&v["when"]).iter().enumerate() {
            push(format!("variant {id} when[{k}]"), w);
        }
        for (name, d) in obj(&v["derive"]) {
            push(format!("variant {id} derive.{name}"), &d);
        }
        for im in arr(&v["intermediates"]) {
            push(
                format!("variant {id} intermediates.{}.shape", im["id"]),
                &im["shape"],
            );
        }
        for p in arr(&v["passes"]) {
            for axis in ["x", "y", "z"] {
                push(
                    format!("variant {id} pass {} dispatch.{axis}", p["id"]),
                    &p["dispatch"][axis],
                );
            }
        }
    }
    out
}

#[test]
fn every_manifest_expression_parses() {
    let exprs = manifest_expressions();
    assert!(exprs.len() > 100, "only {} expressions found", exprs.len());
    for needle in [
        "derive.aRows",
        "when[0]",
        "outputs.yT.shape",
        "dispatch.x",
        "struct[0].value",
        "variant plain_nogb_noub when[0]",
    ] {
        assert!(
            exprs.iter().any(|(p, _)| p.contains(needle)),
            "no expression at {needle}"
        );
    }
    let mut failures = Vec::new();
    for (place, text) in &exprs {
        if let Err(e) = Expr::parse(text) {
            failures.push(format!("{place}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
