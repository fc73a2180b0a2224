//! Property tests of the manifest expression language: random expression trees are rendered to
//! text, parsed and evaluated by `Expr`, and compared with a small independent evaluator over the
//! generated tree; algebraic laws; printing a parsed tree and parsing it again; and the parser
//! never panicking on arbitrary text.

mod reference;
mod render;
mod tree;

use nbits_mlp_core::expr::{ErrorKind, Expr, Node, NodeKind, Value};
use proptest::prelude::*;
use reference::{py_divmod, reference, R};
use render::{full, minimal, print};
use tree::{env, int_leaf, tree, Arith, T};

// ---------------------------------------------------------------------------------------------
// Running the real thing

fn run(text: &str) -> Result<R, ErrorKind> {
    let e = Expr::parse(text).unwrap_or_else(|e| panic!("`{text}` does not parse: {e}"));
    e.eval(&mut env()).map(|v| R::from_value(&v)).map_err(|e| {
        // Every error points into the text at char boundaries and renders.
        assert!(
            e.span.start <= e.span.end && e.span.end <= text.len(),
            "{e:?}"
        );
        assert!(text.get(e.span.clone()).is_some(), "{e:?}");
        assert!(!e.to_string().is_empty());
        e.kind
    })
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(1024))]

    /// The parser and evaluator agree with the reference evaluator, value and error kind.
    #[test]
    fn agrees_with_reference(t in tree()) {
        let text = full(&t);
        let want = reference(&t);
        prop_assert_eq!(run(&text), want, "`{}`", text);
    }

    /// Minimal parentheses (precedence and associativity doing the work) give the same tree.
    #[test]
    fn precedence_matches_full_parentheses(t in tree()) {
        let full_text = full(&t);
        let (min_text, _) = minimal(&t);
        let a = Expr::parse(&full_text).unwrap();
        let b = Expr::parse(&min_text).unwrap_or_else(|e| panic!("`{min_text}`: {e}"));
        prop_assert_eq!(print(a.root()), print(b.root()), "`{}` vs `{}`", full_text, min_text);
        prop_assert_eq!(run(&min_text), reference(&t), "`{}`", min_text);
    }

    /// Printing a parsed tree and parsing the print gives the same tree (and value).
    #[test]
    fn print_parse_round_trip(t in tree()) {
        let (text, _) = minimal(&t);
        let a = Expr::parse(&text).unwrap();
        let printed = print(a.root());
        let b = Expr::parse(&printed).unwrap_or_else(|e| panic!("`{printed}`: {e}"));
        prop_assert_eq!(&print(b.root()), &printed);
        prop_assert_eq!(run(&printed), run(&text));
        // The spans of the tree nest: each child lies within its parent.
        fn spans_nest(n: &Node, outer: &std::ops::Range<usize>) -> bool {
            let inner = &n.span;
            outer.start <= inner.start && inner.end <= outer.end && children(n).iter().all(|c| spans_nest(c, inner))
        }
        prop_assert!(spans_nest(a.root(), &(0..text.len())), "`{}`", text);
    }

    /// `a + b == b + a` and `a * b == b * a` on ints (or both overflow).
    #[test]
    fn commutative(a in int_leaf(), b in int_leaf()) {
        let (a, b) = (full(&T::Int(a)), full(&T::Int(b)));
        for op in ["+", "*"] {
            let ab = run(&format!("{a} {op} {b}"));
            let ba = run(&format!("{b} {op} {a}"));
            prop_assert_eq!(&ab, &ba);
            if ab.is_ok() {
                prop_assert_eq!(run(&format!("{a} {op} {b} == {b} {op} {a}")), Ok(R::B(true)));
            }
        }
    }

    /// Python's division identity: `(a / b) * b + a % b == a`, with `a % b` between 0 and `b`.
    #[test]
    fn division_identity(a in int_leaf(), b in int_leaf()) {
        let (sa, sb) = (full(&T::Int(a)), full(&T::Int(b)));
        let q = run(&format!("{sa} / {sb}"));
        let r = run(&format!("{sa} % {sb}"));
        if b == 0 {
            prop_assert_eq!(q, Err(ErrorKind::DivisionByZero));
            prop_assert_eq!(r, Err(ErrorKind::DivisionByZero));
        } else {
            let R::I(r) = r.unwrap() else { unreachable!() };
            let in_range = if b > 0 { 0 <= r && r < b } else { b < r && r <= 0 };
            prop_assert!(in_range, "{} % {} = {}", a, b, r);
            match q {
                Ok(R::I(q)) => prop_assert_eq!(q as i128 * b as i128 + r as i128, a as i128),
                other => {
                    prop_assert_eq!(other, Err(ErrorKind::Overflow));
                    prop_assert_eq!((a, b), (i64::MIN, -1));
                }
            }
            // ceilDiv is the ceiling of the same quotient.
            match run(&format!("ceilDiv({sa}, {sb})")) {
                Ok(R::I(c)) => prop_assert_eq!(c as i128, -py_divmod(-(a as i128), b as i128).0),
                other => prop_assert_eq!((other, a, b), (Err(ErrorKind::Overflow), i64::MIN, -1)),
            }
        }
    }

    /// `not not x == x` and De Morgan, for any tree (both sides fail together).
    #[test]
    fn boolean_laws(x in tree(), y in tree()) {
        let (x, y) = (full(&x), full(&y));
        prop_assert_eq!(run(&format!("not not {x}")), run(&x).and_then(|v| match v {
            R::B(b) => Ok(R::B(b)),
            _ => Err(ErrorKind::TypeMismatch),
        }));
        let lhs = run(&format!("not ({x} and {y})"));
        let rhs = run(&format!("not {x} or not {y}"));
        prop_assert_eq!(lhs.is_ok(), rhs.is_ok(), "`{}` / `{}`", x, y);
        if lhs.is_ok() {
            prop_assert_eq!(lhs, rhs);
        }
    }

    /// Slicing agrees with Python's on lists of ints, and `s[:n] + s[n:] == s`.
    #[test]
    fn slices(items in prop::collection::vec(-5i64..5, 0..6), lo in prop::option::of(-8i64..8), hi in prop::option::of(-8i64..8)) {
        let list = T::List(items.iter().map(|&v| T::Int(v)).collect());
        let s = |b: Option<i64>| b.map(|v| Box::new(T::Int(v)));
        let t = T::Slice(Box::new(list.clone()), s(lo), s(hi));
        prop_assert_eq!(run(&full(&t)), reference(&t));
        if let Some(n) = lo {
            let l = full(&list);
            prop_assert_eq!(run(&format!("{l}[:{}] + {l}[{}:] == {l}", full(&T::Int(n)), full(&T::Int(n)))), Ok(R::B(true)));
            prop_assert_eq!(run(&format!("prefix({l}, {}) == {l}[:{}]", full(&T::Int(n)), full(&T::Int(n)))), Ok(R::B(true)));
        }
    }
}

/// The children of a node, in source order.
fn children(n: &Node) -> Vec<&Node> {
    match &n.kind {
        NodeKind::Int(_)
        | NodeKind::Float(_)
        | NodeKind::Bool(_)
        | NodeKind::Str(_)
        | NodeKind::Derive(_)
        | NodeKind::Path(_) => vec![],
        NodeKind::List(v) | NodeKind::Call(_, v) => v.iter().collect(),
        NodeKind::Neg(a) | NodeKind::Not(a) => vec![a],
        NodeKind::And(a, b)
        | NodeKind::Or(a, b)
        | NodeKind::Bin(_, a, b)
        | NodeKind::Index(a, b) => vec![a, b],
        NodeKind::IfElse {
            then,
            cond,
            otherwise,
        } => vec![then, cond, otherwise],
        NodeKind::Chain(a, rest) => std::iter::once(&**a)
            .chain(rest.iter().map(|(_, r)| r))
            .collect(),
        NodeKind::Slice(a, lo, hi) => std::iter::once(&**a)
            .chain(lo.as_deref())
            .chain(hi.as_deref())
            .collect(),
    }
}

// ---------------------------------------------------------------------------------------------
// The parser on arbitrary text

/// Tokens of the language (and a few near misses) to build plausible garbage from.
const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    ".",
    "+",
    "-",
    "*",
    "/",
    "%",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "=",
    "!",
    "not",
    "and",
    "or",
    "if",
    "else",
    "true",
    "false",
    "0",
    "1",
    "7",
    "-1",
    "2.5",
    ".5",
    "1e-5",
    "1e",
    "1.",
    "9223372036854775807",
    "9223372036854775808",
    "\"f16\"",
    "\"",
    "'a'",
    "\\",
    "x",
    "xs",
    "t",
    "nil",
    "big",
    "attrs",
    "attrs.N",
    "shapes.aT",
    "device",
    "features",
    "has",
    "device.features.has",
    "limits",
    "numel",
    "dim",
    "prefix",
    "sameShape",
    "ceilDiv",
    "min",
    "max",
    "pow2ceil",
    "f16Ok",
    " ",
    "\t",
    "\n",
    "é",
    "_",
    "#",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec((0..TOKENS.len(), any::<bool>()), 0..40).prop_map(|v| {
        v.into_iter()
            .map(|(i, space)| {
                if space {
                    format!("{} ", TOKENS[i])
                } else {
                    TOKENS[i].to_string()
                }
            })
            .collect()
    })
}

/// Parses `text`; when it parses, evaluates it in an environment holding a few values. Neither
/// may panic, and every error must point into the text.
fn parse_and_eval(text: &str) {
    let mut e = env();
    e.paths.insert("attrs.N".into(), Value::Int(20));
    e.paths.insert(
        "shapes.aT".into(),
        Value::List(vec![Value::Int(2), Value::Int(16)]),
    );
    e.features.insert("subgroups".into());
    let check = |err: &nbits_mlp_core::expr::ExprError| {
        assert!(
            err.span.start <= err.span.end && err.span.end <= text.len(),
            "`{text}`: {err:?}"
        );
        assert!(text.get(err.span.clone()).is_some(), "`{text}`: {err:?}");
        assert_eq!(&*err.source, text);
        let _ = err.to_string();
    };
    match Expr::parse(text) {
        Ok(expr) => {
            let _ = print(expr.root());
            let _ = expr.refs();
            if let Err(err) = expr.eval(&mut e) {
                check(&err);
            }
        }
        Err(err) => {
            assert_eq!(err.kind, ErrorKind::Syntax);
            check(&err);
        }
    }
}

proptest! {
    #![proptest_config(config(2048))]

    #[test]
    fn parse_never_panics_on_any_string(s in any::<String>()) {
        parse_and_eval(&s);
    }

    #[test]
    fn parse_never_panics_on_token_soup(s in token_soup()) {
        parse_and_eval(&s);
    }

    #[test]
    fn parse_never_panics_on_mutated_expressions(t in tree(), cut in any::<prop::sample::Index>(), ins in 0..TOKENS.len()) {
        // A valid expression with a token spliced in somewhere.
        let text = full(&t);
        let mut at = cut.index(text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        parse_and_eval(&format!("{}{}{}", &text[..at], TOKENS[ins], &text[at..]));
        parse_and_eval(&text[..at]);
    }
}

#[test]
fn reference_sanity() {
    // The reference itself on a few hand-checked cases.
    let i = |v| Box::new(T::Int(v));
    assert_eq!(reference(&T::Arith(Arith::Div, i(-7), i(2))), Ok(R::I(-4)));
    assert_eq!(reference(&T::Arith(Arith::Mod, i(-7), i(2))), Ok(R::I(1)));
    assert_eq!(
        reference(&T::Arith(Arith::Mod, i(i64::MIN), i(-1))),
        Ok(R::I(0))
    );
    assert_eq!(
        reference(&T::Arith(Arith::Div, i(i64::MIN), i(-1))),
        Err(ErrorKind::Overflow)
    );
    assert_eq!(
        reference(&T::Arith(Arith::Mod, i(1), i(0))),
        Err(ErrorKind::DivisionByZero)
    );
    assert_eq!(full(&T::Arith(Arith::Sub, i(1), i(-2))), "(1 - (-2))");
    assert_eq!(
        minimal(&T::Arith(
            Arith::Sub,
            i(1),
            Box::new(T::Arith(Arith::Sub, i(2), i(3)))
        ))
        .0,
        "1 - (2 - 3)"
    );
    assert_eq!(minimal(&T::Neg(i(-2))).0, "--2");
    assert_eq!(run("--2"), Ok(R::I(2)));
}
