//! Table-driven tests of the manifest expression language (`nbits_mlp_core::expr`): every
//! literal, operator, precedence level, built-in and namespace, laziness, every error kind with
//! its failing sub-term and rendering, deep nesting, and every expression of the seed manifest.

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

/// Evaluates every `(expression, expected value)` pair and reports all mismatches at once.
fn check_table(env: &mut dyn Env, table: &[(&str, Value)]) {
    let mut failures = Vec::new();
    for (src, want) in table {
        match eval_in(src, env) {
            Ok(got) if same_value(&got, want) => {}
            Ok(got) => failures.push(format!("`{src}`: got {got:?}, want {want:?}")),
            Err(e) => failures.push(format!("`{src}`: error {:?}: {e}, want {want:?}", e.kind)),
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
    check_table(
        &mut env(),
        &[
            ("0", i(0)),
            ("42", i(42)),
            ("9223372036854775807", i(i64::MAX)),
            ("1.5", f(1.5)),
            ("1e-5", f(1e-5)),
            ("1E3", f(1000.0)),
            ("2.5e+2", f(250.0)),
            (".5", f(0.5)),
            ("5.", f(5.0)),
            ("0.0", f(0.0)),
            ("true", b(true)),
            ("false", b(false)),
            ("\"f16\"", s("f16")),
            ("\"\"", s("")),
            ("\"a\\\"b\"", s("a\"b")),
            ("\"héllo wörld\"", s("héllo wörld")),
            ("[]", l(&[])),
            ("[1, 2]", l(&[1, 2])),
            ("[1, 2,]", l(&[1, 2])),
            ("[1, [2, 3], []]", lv(vec![i(1), l(&[2, 3]), l(&[])])),
            (
                "[1, 2.5, \"x\", true]",
                lv(vec![i(1), f(2.5), s("x"), b(true)]),
            ),
            ("  \t 7 \n ", i(7)),
            ("(((7)))", i(7)),
        ],
    );
}

#[test]
fn arithmetic() {
    check_table(
        &mut env(),
        &[
            ("1 + 2", i(3)),
            ("1 - 2", i(-1)),
            ("3 * 4", i(12)),
            ("7 / 2", i(3)),
            ("7 / 2 == 3", b(true)),
            ("7 / 2.0", f(3.5)),
            ("7.0 / 2", f(3.5)),
            ("7 / 2.0 == 3.5", b(true)),
            ("-7 / 2", i(-4)),
            ("-7 / 2 == -4", b(true)),
            ("7 / -2", i(-4)),
            ("-7 / -2", i(3)),
            ("8 / 2", i(4)),
            ("-8 / 2", i(-4)),
            ("0 / 5", i(0)),
            ("7 % 3", i(1)),
            ("-7 % 3", i(2)),
            ("7 % -3", i(-2)),
            ("-7 % -3", i(-1)),
            ("6 % 3", i(0)),
            ("-6 % 3", i(0)),
            ("7.5 % 2", f(1.5)),
            ("-7.5 % 2", f(0.5)),
            ("7.5 % -2", f(-0.5)),
            ("1e20 % 3.0", f(1.0)), // exact: 10^20 = 1 (mod 3)
            ("-1e-20 % 1.0", f(1.0)),
            ("1 + 2.5", f(3.5)),
            ("2 * 3.0", f(6.0)),
            ("2.5 - 1", f(1.5)),
            ("-half", f(-0.5)),
            ("- -3", i(3)),
            ("-(-9223372036854775807)", i(9223372036854775807)),
            ("-9223372036854775807 - 1", i(i64::MIN)),
            ("(-9223372036854775807 - 1) / 2", i(i64::MIN / 2)),
            ("(-9223372036854775807 - 1) % 3", i(1)),
            ("(-9223372036854775807 - 1) % -3", i(-2)),
            ("(-9223372036854775807 - 1) % 2", i(0)),
            ("9223372036854775807 % -2", i(-1)),
            ("(-9223372036854775807 - 1) / 3", i(-3074457345618258603)),
            (
                "(-9223372036854775807 - 1) % (-9223372036854775807 - 1)",
                i(0),
            ),
            ("\"ab\" + \"cd\"", s("abcd")),
            ("n * n - n", i(6)),
        ],
    );
}

#[test]
fn precedence() {
    check_table(
        &mut env(),
        &[
            ("1 + 2 * 3", i(7)),
            ("(1 + 2) * 3", i(9)),
            ("10 - 3 - 2", i(5)),
            ("100 / 10 / 5", i(2)),
            ("2 * 3 % 4", i(2)),
            ("2 + 3 % 2", i(3)),
            ("1 + 1 == 2", b(true)),
            ("2 == 1 + 1", b(true)),
            // `not` is below comparisons: `not (1 == 2)`; `(not 1) == 2` would be a type error.
            ("not 1 == 2", b(true)),
            ("not t == fa", b(true)),
            // ... and above `and`: `(not false) and false`.
            ("not false and false", b(false)),
            ("not not true", b(true)),
            // `and` above `or`.
            ("true or false and false", b(true)),
            ("t or fa and fa", b(true)),
            ("false and true or true", b(true)),
            // `x if c else y` is the lowest.
            ("1 + 2 if false else 3 + 4", i(7)),
            ("true or false if false else false", b(false)),
            ("[1] + [2] if true else []", l(&[1, 2])),
            ("1 if n > 2 else 0", i(1)),
            // nested ternaries are right-associative.
            ("1 if true else 2 if false else 3", i(1)),
            ("1 if false else 2 if true else 3", i(2)),
            ("1 if false else 2 if false else 3", i(3)),
            ("(1 if true else 2) if false else 3", i(3)),
            ("1 if (2 if true else 3) == 2 else 4", i(1)),
            // unary minus binds tighter than `*` and `/`, looser than postfix.
            ("-7 / 2", i(-4)),
            ("-(7 / 2)", i(-3)),
            ("-2 * 3", i(-6)),
            ("2 * -3", i(-6)),
            ("3 - -2", i(5)),
            ("-sh[0]", i(-2)),
            ("-dim(sh, 1)", i(-3)),
            ("-n % 2", i(1)),
            ("-(n % 2)", i(-1)),
            ("not 1 < 2 and 3 > 4 or 5 == 5", b(true)),
        ],
    );
}

#[test]
fn comparisons() {
    check_table(
        &mut env(),
        &[
            ("1 == 1", b(true)),
            ("1 != 1", b(false)),
            ("1 < 2", b(true)),
            ("2 <= 2", b(true)),
            ("3 > 2", b(true)),
            ("2 >= 3", b(false)),
            ("1 == 1.0", b(true)),
            ("1.0 == 1", b(true)),
            ("1 != 1.0", b(false)),
            ("1 < 1.5", b(true)),
            ("2.0 >= 2", b(true)),
            ("-0.5 < 0", b(true)),
            ("9007199254740993 == 9007199254740992.0", b(false)),
            ("9007199254740993 > 9007199254740992.0", b(true)),
            ("9223372036854775807 < 9223372036854775808.0", b(true)),
            ("true == true", b(true)),
            ("true != false", b(true)),
            ("\"a\" == \"a\"", b(true)),
            ("\"a\" < \"b\"", b(true)),
            ("[1, 2] == [1, 2]", b(true)),
            ("[1, 2] == [1.0, 2]", b(true)),
            ("[1, 2] == [1, 2, 3]", b(false)),
            ("[] == []", b(true)),
            ("[[1], [2]] == [[1], [2]]", b(true)),
            ("sh == [2, 3, 4]", b(true)),
            // chained comparisons (Python semantics).
            ("1 < 2 < 3", b(true)),
            ("1 < 3 < 2", b(false)),
            ("3 > 2 > 1", b(true)),
            ("1 == 1 == 1", b(true)),
            ("1 < 2 == 2", b(true)),
            ("1 <= 1 < 2 <= 2 != 3", b(true)),
            ("0 < n <= 3", b(true)),
            ("0 < n < 3", b(false)),
            ("2 > 1 < 3", b(true)),
        ],
    );
}

#[test]
fn lists_subscripts_slices() {
    check_table(
        &mut env(),
        &[
            ("[1] + [2, 3]", l(&[1, 2, 3])),
            ("[] + []", l(&[])),
            ("sh + [5]", l(&[2, 3, 4, 5])),
            ("sh[0]", i(2)),
            ("sh[2]", i(4)),
            ("sh[-1]", i(4)),
            ("sh[-3]", i(2)),
            ("sh[n - 1]", i(4)),
            ("[[1, 2], [3]][0][1]", i(2)),
            ("[10, 20, 30][-2]", i(20)),
            ("sh[:]", l(&[2, 3, 4])),
            ("sh[1:]", l(&[3, 4])),
            ("sh[:1]", l(&[2])),
            ("sh[:-1]", l(&[2, 3])),
            ("sh[-2:]", l(&[3, 4])),
            ("sh[-2:-1]", l(&[3])),
            ("sh[1:2]", l(&[3])),
            ("sh[2:1]", l(&[])),
            ("sh[5:]", l(&[])),
            ("sh[:100]", l(&[2, 3, 4])),
            ("sh[-100:]", l(&[2, 3, 4])),
            ("sh[-100:-50]", l(&[])),
            ("sh[100:200]", l(&[])),
            ("sh[0:0]", l(&[])),
            ("empty[:]", l(&[])),
            ("empty[-1:]", l(&[])),
            ("sh[:-1][-1]", i(3)),
            (
                "sh[(-9223372036854775807 - 1):9223372036854775807]",
                l(&[2, 3, 4]),
            ),
            ("shapes.aT[:-1] + [attrs.N]", l(&[2, 5, 20])),
            ("word[1]", s("é")),
            ("word[-1]", s("o")),
            ("word[1:3]", s("él")),
            ("\"abc\"[:-1]", s("ab")),
        ],
    );
}

#[test]
fn builtins() {
    let mut e = env();
    check_table(
        &mut e,
        &[
            ("numel([2, 3, 4])", i(24)),
            ("numel([])", i(1)),
            ("numel([7])", i(7)),
            ("numel([2, 0, 4])", i(0)),
            ("numel(sh)", i(24)),
            ("numel(shapes.aT)", i(160)),
            ("dim(sh, 0)", i(2)),
            ("dim(sh, 2)", i(4)),
            ("dim(sh, -1)", i(4)),
            ("dim(sh, -3)", i(2)),
            ("prefix(sh, 2)", l(&[2, 3])),
            ("prefix(sh, 0)", l(&[])),
            ("prefix(sh, -1)", l(&[2, 3])),
            ("prefix(sh, 10)", l(&[2, 3, 4])),
            ("prefix(sh, 2) == sh[:2]", b(true)),
            ("sameShape(sh, [2, 3, 4])", b(true)),
            ("sameShape(sh, [2, 3])", b(false)),
            ("sameShape(sh, [2, 3, 5])", b(false)),
            ("sameShape([], [])", b(true)),
            ("ceilDiv(7, 2)", i(4)),
            ("ceilDiv(8, 2)", i(4)),
            ("ceilDiv(0, 5)", i(0)),
            ("ceilDiv(1, 64)", i(1)),
            ("ceilDiv(-7, 2)", i(-3)),
            ("ceilDiv(7, -2)", i(-3)),
            ("ceilDiv(9223372036854775807, 2)", i(4611686018427387904)),
            (
                "ceilDiv(-9223372036854775807 - 1, 2)",
                i(-4611686018427387904),
            ),
            ("min(3, 1)", i(1)),
            ("min(3, 1, 2)", i(1)),
            ("max(3, 1)", i(3)),
            ("max(3, 1, 2)", i(3)),
            ("max(1, 2, 3, 4, 5)", i(5)),
            ("min([4, 2, 8])", i(2)),
            ("max([4, 2, 8])", i(8)),
            ("min(sh)", i(2)),
            ("max([7])", i(7)),
            ("max(1, 2.5)", f(2.5)),
            ("min(1, 2.5)", i(1)),
            ("min(-1, -2)", i(-2)),
            ("pow2ceil(-5)", i(1)),
            ("pow2ceil(0)", i(1)),
            ("pow2ceil(1)", i(1)),
            ("pow2ceil(2)", i(2)),
            ("pow2ceil(3)", i(4)),
            ("pow2ceil(5)", i(8)),
            ("pow2ceil(64)", i(64)),
            ("pow2ceil(65)", i(128)),
            ("pow2ceil(4611686018427387904)", i(4611686018427387904)),
            ("f16Ok(\"float32\")", b(true)),
            ("f16Ok(\"float16\")", b(false)),
            ("f16Ok(tensorDtypes.aT)", b(false)),
            ("f16Ok(\"uint8\")", b(true)),
            ("device.features.has(\"subgroups\")", b(true)),
            ("device.features.has(\"shader-f16\")", b(false)),
            ("device.features.has(\"sub\" + \"groups\")", b(true)),
        ],
    );
    e.features.insert("shader-f16".into());
    check_table(
        &mut e,
        &[
            ("f16Ok(\"float16\")", b(true)),
            ("f16Ok(tensorDtypes.aT)", b(true)),
            ("f16Ok(\"float32\")", b(true)),
            ("device.features.has(\"shader-f16\")", b(true)),
        ],
    );
}

#[test]
fn namespaces_through_map_env() {
    check_table(
        &mut env(),
        &[
            ("attrs.N", i(20)),
            ("attrs.epsilon", f(1e-5)),
            ("tunables.ROW_TILE", i(8)),
            ("shapes.aT", l(&[2, 5, 16])),
            ("ranks.aT", i(3)),
            ("tensorDtypes.aT", s("float16")),
            ("tensorDtypes.gateBT == \"uint8\"", b(true)),
            ("present.aT", b(true)),
            ("present.skipT", b(false)),
            ("not present.skipT", b(true)),
            ("device.limits.maxComputeInvocationsPerWorkgroup", i(256)),
            (
                "device.limits.maxComputeWorkgroupsPerDimension >= ceilDiv(attrs.N, 8)",
                b(true),
            ),
            ("numel(shapes.aT) / max(1, attrs.K)", i(10)),
            ("dim(shapes.gateBT, 1) * 2", i(2)),
            ("attrs . N", i(20)),
            ("ceilDiv(attrs.N, 8) if n > 1 else 0", i(3)),
        ],
    );
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
    let lazy: &[(&str, Value)] = &[
        ("false and boom", b(false)),
        ("fa and boom", b(false)),
        ("true or boom", b(true)),
        ("t or boom", b(true)),
        ("1 if true else boom", i(1)),
        ("boom if false else 2", i(2)),
        ("1 if t else boom + 1", i(1)),
        ("1 > 2 < boom", b(false)),
        ("1 < 2 > 3 == boom", b(false)),
        ("false and boom and boom", b(false)),
        ("true or boom or boom", b(true)),
        ("(false and boom) or true", b(true)),
        ("not (false and boom)", b(true)),
        ("present.absentT and numel(shapes.absentT) > 0", b(false)),
        ("ranks.absentT if present.absentT else 0", i(0)),
        ("[1 if true else boom, 2]", l(&[1, 2])),
    ];
    for (src, want) in lazy {
        let mut e = Boom::new();
        let got = eval_in(src, &mut e).unwrap_or_else(|err| panic!("`{src}`: {err}"));
        assert_eq!(&got, want, "`{src}`");
        assert_eq!(e.booms, 0, "`{src}` evaluated `boom`");
    }
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

/// `(expression, kind, failing sub-term)`.
const ERRORS: &[(&str, ErrorKind, &str)] = &[
    // Syntax: the term is the offending token (empty at the end of the text).
    ("1 +", ErrorKind::Syntax, ""),
    ("", ErrorKind::Syntax, ""),
    ("(1", ErrorKind::Syntax, ""),
    ("1)", ErrorKind::Syntax, ")"),
    ("1 2", ErrorKind::Syntax, "2"),
    ("[1 2]", ErrorKind::Syntax, "2"),
    ("1 $ 2", ErrorKind::Syntax, "$"),
    ("1 + é", ErrorKind::Syntax, "é"),
    ("\"abc", ErrorKind::Syntax, "\"abc"),
    ("foo(1)", ErrorKind::Syntax, "foo"),
    ("attrs.N(1)", ErrorKind::Syntax, "attrs.N"),
    ("n.x", ErrorKind::Syntax, "n.x"),
    ("attrs.", ErrorKind::Syntax, ""),
    ("attrs.1", ErrorKind::Syntax, ".1"),
    (
        "99999999999999999999",
        ErrorKind::Syntax,
        "99999999999999999999",
    ),
    (
        "9223372036854775808",
        ErrorKind::Syntax,
        "9223372036854775808",
    ),
    ("12abc", ErrorKind::Syntax, "12a"),
    ("1 if true", ErrorKind::Syntax, ""),
    ("1 if true 2", ErrorKind::Syntax, "2"),
    ("if", ErrorKind::Syntax, "if"),
    ("1 + and", ErrorKind::Syntax, "and"),
    ("not", ErrorKind::Syntax, ""),
    ("1 == not 2", ErrorKind::Syntax, "not"),
    ("sh[]", ErrorKind::Syntax, "]"),
    ("sh[1", ErrorKind::Syntax, ""),
    ("min(1 2)", ErrorKind::Syntax, "2"),
    ("1 = 2", ErrorKind::Syntax, "="),
    ("1 ! 2", ErrorKind::Syntax, "!"),
    ("a && b", ErrorKind::Syntax, "&"),
    // Unknown names.
    ("1 + nope", ErrorKind::UnknownName, "nope"),
    ("numel", ErrorKind::UnknownName, "numel"),
    ("attrs.missing", ErrorKind::UnknownName, "attrs.missing"),
    ("attrs", ErrorKind::UnknownName, "attrs"),
    (
        "2 * device.limits.maxNothing",
        ErrorKind::UnknownName,
        "device.limits.maxNothing",
    ),
    // Absent tensors (the Boom env).
    (
        "numel(shapes.absentT) > 0",
        ErrorKind::AbsentTensor,
        "shapes.absentT",
    ),
    (
        "ranks.absentT + 1",
        ErrorKind::AbsentTensor,
        "ranks.absentT",
    ),
    (
        "f16Ok(tensorDtypes.absentT)",
        ErrorKind::AbsentTensor,
        "tensorDtypes.absentT",
    ),
    // Index out of range.
    ("sh[3]", ErrorKind::IndexOutOfRange, "sh[3]"),
    ("sh[-4]", ErrorKind::IndexOutOfRange, "sh[-4]"),
    ("empty[0]", ErrorKind::IndexOutOfRange, "empty[0]"),
    (
        "1 + sh[(-9223372036854775807 - 1)]",
        ErrorKind::IndexOutOfRange,
        "sh[(-9223372036854775807 - 1)]",
    ),
    ("\"ab\"[2]", ErrorKind::IndexOutOfRange, "\"ab\"[2]"),
    ("1 + dim(sh, 5)", ErrorKind::IndexOutOfRange, "dim(sh, 5)"),
    ("dim(sh, -4)", ErrorKind::IndexOutOfRange, "dim(sh, -4)"),
    ("dim([], 0)", ErrorKind::IndexOutOfRange, "dim([], 0)"),
    // Division by zero.
    ("1 + 4 / 0", ErrorKind::DivisionByZero, "4 / 0"),
    ("5 % 0", ErrorKind::DivisionByZero, "5 % 0"),
    ("n / zero", ErrorKind::DivisionByZero, "n / zero"),
    ("1.0 / 0", ErrorKind::DivisionByZero, "1.0 / 0"),
    ("1 / 0.0", ErrorKind::DivisionByZero, "1 / 0.0"),
    ("2.5 % 0.0", ErrorKind::DivisionByZero, "2.5 % 0.0"),
    ("ceilDiv(3, 0)", ErrorKind::DivisionByZero, "ceilDiv(3, 0)"),
    (
        "(-9223372036854775807 - 1) % 0",
        ErrorKind::DivisionByZero,
        "(-9223372036854775807 - 1) % 0",
    ),
    // Type mismatches.
    ("1 + \"a\"", ErrorKind::TypeMismatch, "1 + \"a\""),
    ("true + 1", ErrorKind::TypeMismatch, "true + 1"),
    ("[1] + 1", ErrorKind::TypeMismatch, "[1] + 1"),
    ("[1] * 2", ErrorKind::TypeMismatch, "[1] * 2"),
    ("\"a\" - \"b\"", ErrorKind::TypeMismatch, "\"a\" - \"b\""),
    ("not 3", ErrorKind::TypeMismatch, "3"),
    ("1 and true", ErrorKind::TypeMismatch, "1"),
    ("true and 1", ErrorKind::TypeMismatch, "1"),
    ("false or [1]", ErrorKind::TypeMismatch, "[1]"),
    ("1 if 2 else 3", ErrorKind::TypeMismatch, "2"),
    ("-\"a\"", ErrorKind::TypeMismatch, "\"a\""),
    ("-t", ErrorKind::TypeMismatch, "t"),
    ("sh[\"a\"]", ErrorKind::TypeMismatch, "\"a\""),
    ("sh[1.0]", ErrorKind::TypeMismatch, "1.0"),
    ("n[0]", ErrorKind::TypeMismatch, "n"),
    ("n[1:]", ErrorKind::TypeMismatch, "n"),
    ("sh[t:]", ErrorKind::TypeMismatch, "t"),
    ("1 < \"a\"", ErrorKind::TypeMismatch, "1 < \"a\""),
    ("1 == \"a\"", ErrorKind::TypeMismatch, "1 == \"a\""),
    ("1 == true", ErrorKind::TypeMismatch, "1 == true"),
    ("[1] < [2]", ErrorKind::TypeMismatch, "[1] < [2]"),
    ("true < false", ErrorKind::TypeMismatch, "true < false"),
    ("1 < 2 < \"x\"", ErrorKind::TypeMismatch, "2 < \"x\""),
    ("0 < n < \"x\" < 9", ErrorKind::TypeMismatch, "n < \"x\""),
    ("numel(3)", ErrorKind::TypeMismatch, "3"),
    ("dim(sh, \"a\")", ErrorKind::TypeMismatch, "\"a\""),
    ("ceilDiv(1.5, 2)", ErrorKind::TypeMismatch, "1.5"),
    ("pow2ceil(2.0)", ErrorKind::TypeMismatch, "2.0"),
    ("min(1, \"a\")", ErrorKind::TypeMismatch, "min(1, \"a\")"),
    ("f16Ok(1)", ErrorKind::TypeMismatch, "1"),
    ("device.features.has(1)", ErrorKind::TypeMismatch, "1"),
    ("1 + (n > 2)", ErrorKind::TypeMismatch, "1 + (n > 2)"),
    // Overflow.
    (
        "9223372036854775807 + 1",
        ErrorKind::Overflow,
        "9223372036854775807 + 1",
    ),
    (
        "-9223372036854775807 - 2",
        ErrorKind::Overflow,
        "-9223372036854775807 - 2",
    ),
    (
        "4611686018427387904 * 2",
        ErrorKind::Overflow,
        "4611686018427387904 * 2",
    ),
    (
        "-(-9223372036854775807 - 1)",
        ErrorKind::Overflow,
        "-(-9223372036854775807 - 1)",
    ),
    (
        "(-9223372036854775807 - 1) / -1",
        ErrorKind::Overflow,
        "(-9223372036854775807 - 1) / -1",
    ),
    (
        "numel([4294967296, 4294967296])",
        ErrorKind::Overflow,
        "numel([4294967296, 4294967296])",
    ),
    (
        "pow2ceil(4611686018427387905)",
        ErrorKind::Overflow,
        "pow2ceil(4611686018427387905)",
    ),
    (
        "ceilDiv(-9223372036854775807 - 1, -1)",
        ErrorKind::Overflow,
        "ceilDiv(-9223372036854775807 - 1, -1)",
    ),
    // Bad arguments.
    ("numel(sh, sh)", ErrorKind::BadArgument, "numel(sh, sh)"),
    ("numel()", ErrorKind::BadArgument, "numel()"),
    ("dim(sh)", ErrorKind::BadArgument, "dim(sh)"),
    ("1 + prefix(sh)", ErrorKind::BadArgument, "prefix(sh)"),
    ("sameShape(sh)", ErrorKind::BadArgument, "sameShape(sh)"),
    (
        "ceilDiv(1, 2, 3)",
        ErrorKind::BadArgument,
        "ceilDiv(1, 2, 3)",
    ),
    ("pow2ceil()", ErrorKind::BadArgument, "pow2ceil()"),
    ("f16Ok()", ErrorKind::BadArgument, "f16Ok()"),
    (
        "device.features.has()",
        ErrorKind::BadArgument,
        "device.features.has()",
    ),
    ("min()", ErrorKind::BadArgument, "min()"),
    ("max([])", ErrorKind::BadArgument, "max([])"),
    (
        "numel([1, \"a\"])",
        ErrorKind::BadArgument,
        "numel([1, \"a\"])",
    ),
];

#[test]
fn error_kinds_and_terms() {
    let mut failures = Vec::new();
    for &(src, kind, term) in ERRORS {
        let mut e = Boom::new();
        match eval_in(src, &mut e) {
            Ok(v) => failures.push(format!(
                "`{src}`: evaluated to {v}, want {kind:?} at `{term}`"
            )),
            Err(err) => {
                if err.kind != kind || err.term() != term || &*err.source != src {
                    failures.push(format!(
                        "`{src}`: got {:?} at `{}`, want {kind:?} at `{term}` ({err})",
                        err.kind,
                        err.term()
                    ));
                }
                if err.message.is_empty() {
                    failures.push(format!("`{src}`: empty message"));
                }
                if !err.context.is_empty() {
                    failures.push(format!("`{src}`: unexpected context {:?}", err.context));
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
    // Every kind a caller can get from the language itself is covered by the table.
    for kind in [
        ErrorKind::Syntax,
        ErrorKind::UnknownName,
        ErrorKind::AbsentTensor,
        ErrorKind::IndexOutOfRange,
        ErrorKind::DivisionByZero,
        ErrorKind::TypeMismatch,
        ErrorKind::Overflow,
        ErrorKind::BadArgument,
    ] {
        assert!(ERRORS.iter().any(|e| e.1 == kind), "{kind:?} not covered");
    }
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
    for &(src, kind, term) in ERRORS {
        let err = eval_in(src, &mut Boom::new())
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
                "`{src}` rendered as:\n{shown}\nwant carets:\n{want_carets}"
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
// Nesting

/// Runs `f` on a thread with a 2 MiB stack (what `cargo test` gives each test by default, made
/// explicit so a larger `RUST_MIN_STACK` cannot hide an overflow).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// Shapes of deep input: each maps a count to an expression nested (or chained) that many times.
type Pattern = (&'static str, fn(usize) -> String);

fn deep_patterns() -> Vec<Pattern> {
    vec![
        ("parens", |k| format!("{}1{}", "(".repeat(k), ")".repeat(k))),
        ("lists", |k| format!("{}1{}", "[".repeat(k), "]".repeat(k))),
        ("negations", |k| format!("{}1", "-".repeat(k))),
        ("spaced negations", |k| format!("{}1", "- ".repeat(k))),
        ("nots", |k| format!("{}true", "not ".repeat(k))),
        ("if-else", |k| format!("{}1", "1 if true else ".repeat(k))),
        ("if-else conditions", |k| {
            format!("{}true{}", "(true if ".repeat(k), " else false)".repeat(k))
        }),
        ("subscripts", |k| {
            format!("{}0{}", "sh[0 * ".repeat(k), "]".repeat(k))
        }),
        ("calls", |k| {
            format!("{}1{}", "numel([".repeat(k), "])".repeat(k))
        }),
        ("calls 2", |k| {
            format!("{}1{}", "max(0, ".repeat(k), ")".repeat(k))
        }),
        ("slice bounds", |k| {
            format!("{}0{}", "numel(sh[:".repeat(k), "])".repeat(k))
        }),
        ("right-nested sums", |k| {
            format!("1{}{}", " + (1".repeat(k), ")".repeat(k))
        }),
        ("left-nested sums", |k| {
            format!("{}1{}", "(1 + ".repeat(k), ")".repeat(k))
        }),
        ("sum then parens", |k| {
            format!("{}1{}", "(".repeat(k), " + 1)".repeat(k))
        }),
        ("mixed", |k| {
            format!("{}1{}", "[-(-(".repeat(k), "))][0]".repeat(k))
        }),
        // Left-associative chains build deep trees without deep parser recursion.
        ("sum chain", |k| format!("1{}", " + 1".repeat(k))),
        ("product chain", |k| format!("1{}", " * 1".repeat(k))),
        ("difference chain", |k| format!("1{}", " - 1".repeat(k))),
        ("and chain", |k| format!("true{}", " and true".repeat(k))),
        ("or chain", |k| format!("false{}", " or false".repeat(k))),
        ("subscript chain", |k| {
            format!("{}0{}{}", "[".repeat(k), "]".repeat(k), "[0]".repeat(k))
        }),
        ("slice chain", |k| format!("sh{}", "[:]".repeat(k))),
        ("call subscript chain", |k| {
            format!("prefix(sh, 3){}", "[1:][0:]".repeat(k))
        }),
        ("chains in parens", |k| {
            format!("{}1{}", "(".repeat(k), " + 1 + 1)".repeat(k))
        }),
        // Calls, conditionals and comparisons at every level, a long chain at the bottom: the
        // tallest trees the parser lets through.
        ("combined", |k| {
            format!(
                "{}1{}{}",
                "max(0, 1 if 0 < ".repeat(k),
                " + 1".repeat(120),
                " else 0)".repeat(k)
            )
        }),
        ("negated sum chain", |k| {
            format!("{}(1{})", "-(".repeat(k), " + 1".repeat(k) + &")".repeat(k))
        }),
    ]
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for (name, pattern) in deep_patterns() {
        // 100000 levels for the brief's `(((...`; fewer for the rest, to keep the test quick.
        let n = if name == "parens" { 100_000 } else { 20_000 };
        let err = on_small_stack(move || Expr::parse(&pattern(n)).map(|_| ())).expect_err(name);
        assert_eq!(err.kind, ErrorKind::Syntax, "{name}");
        assert!(
            err.message.contains("nested too deeply"),
            "{name}: {}",
            err.message
        );
        // The caret line points into the text.
        assert!(err.span.start < err.source.len(), "{name}");
    }
    // A flat comparison chain or a long flat list is not deep: it parses and evaluates.
    let chain = format!("0 < 1{}", " <= 1".repeat(100_000));
    assert_eq!(
        on_small_stack(move || eval_in(&chain, &mut env()).unwrap()),
        b(true)
    );
    let list = format!("numel([{}])", "1, ".repeat(100_000));
    assert_eq!(
        on_small_stack(move || eval_in(&list, &mut env()).unwrap()),
        i(1)
    );
}

#[test]
fn deepest_accepted_expressions_evaluate_clone_and_drop() {
    for (name, pattern) in deep_patterns() {
        let (k, value) = on_small_stack(move || {
            let mut k = 1;
            while k < 1000 && Expr::parse(&pattern(k + 1)).is_ok() {
                k += 1;
            }
            let e = Expr::parse(&pattern(k)).unwrap();
            let v = e.eval(&mut env());
            let c = e.clone();
            assert_eq!(c.root(), e.root());
            assert!(!format!("{:?}", c.root()).is_empty());
            let _ = c.refs();
            (k, v.map(|v| v.to_string()).map_err(|e| e.to_string()))
        });
        // Every shape allows realistic nesting (at least 15 repeats, 31 levels of brackets).
        let min = if name == "mixed" { 6 } else { 15 }; // "mixed" nests 5 levels per repeat
        assert!(k >= min, "{name}: only {k} repeats accepted");
        assert!(value.is_ok(), "{name} at {k}: {value:?}");
    }
}

#[test]
fn moderate_nesting_works() {
    // Depths a manifest could plausibly use parse and evaluate (and drop) fine.
    let d = 25;
    let cases: Vec<(String, Value)> = vec![
        (format!("{}1{}", "(".repeat(d), ")".repeat(d)), i(1)),
        (
            format!("{}1{}", "[".repeat(d), "]".repeat(d)),
            (0..d).fold(i(1), |v, _| lv(vec![v])),
        ),
        (format!("{}1", "-".repeat(d)), i(-1)),
        (format!("{}true", "not ".repeat(d)), b(false)),
        (format!("{}1", "0 if false else ".repeat(d)), i(1)),
        (format!("1{}", " + 1".repeat(d)), i(d as i64 + 1)),
        (
            format!("1{}", " + (1".repeat(d)) + &")".repeat(d),
            i(d as i64 + 1),
        ),
        (
            format!("{}1{}", "(1 + ".repeat(d), ")".repeat(d)),
            i(d as i64 + 1),
        ),
        (format!("true{}", " and true".repeat(d)), b(true)),
        (format!("{}1{}", "max(0, ".repeat(d), ")".repeat(d)), i(1)),
        (format!("[1]{}", "[0:]".repeat(d)), l(&[1])),
        (format!("1{}", " + 1".repeat(100)), i(101)),
    ];
    for (src, want) in &cases {
        assert_eq!(
            &eval_in(src, &mut env()).unwrap_or_else(|e| panic!("{e}")),
            want,
            "{src}"
        );
    }
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
