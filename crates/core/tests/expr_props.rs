//! Property tests of the manifest expression language: random expression trees are rendered to
//! text, parsed and evaluated by `Expr`, and compared with a small independent evaluator over the
//! generated tree; algebraic laws; printing a parsed tree and parsing it again; and the parser
//! never panicking on arbitrary text.

use nbits_mlp_core::expr::{ErrorKind, Expr, MapEnv, Node, NodeKind, Value};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Generated trees

#[derive(Clone, Copy, Debug, PartialEq)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Debug)]
enum T {
    Int(i64),
    Bool(bool),
    /// A derive entry of [`env`].
    Var(&'static str),
    List(Vec<T>),
    Neg(Box<T>),
    Not(Box<T>),
    Arith(Arith, Box<T>, Box<T>),
    /// `a op b op c ...` (one or more comparisons, chained).
    Cmp(Box<T>, Vec<(Cmp, T)>),
    And(Box<T>, Box<T>),
    Or(Box<T>, Box<T>),
    /// `then if cond else otherwise`
    If(Box<T>, Box<T>, Box<T>),
    Index(Box<T>, Box<T>),
    Slice(Box<T>, Option<Box<T>>, Option<Box<T>>),
}

/// The derive entries of [`env`]: name and value.
type Var = (&'static str, fn() -> R);

const VARS: &[Var] = &[
    ("x", || R::I(7)),
    ("y", || R::I(-3)),
    ("big", || R::I(i64::MAX)),
    ("t", || R::B(true)),
    ("f", || R::B(false)),
    ("xs", || R::L(vec![R::I(1), R::I(2), R::I(3)])),
    ("nil", || R::L(vec![])),
];

fn env() -> MapEnv {
    let mut e = MapEnv::default();
    for (name, v) in VARS {
        e.derives.insert(name.to_string(), v().to_value());
    }
    e
}

fn int_leaf() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => -4i64..8,
        1 => any::<i64>(),
        1 => prop_oneof![
            Just(i64::MAX),
            Just(i64::MIN),
            Just(i64::MIN + 1),
            Just(-1i64),
            Just(1i64 << 32),
            Just(3037000500i64),
        ],
    ]
}

fn leaf() -> impl Strategy<Value = T> {
    prop_oneof![
        4 => int_leaf().prop_map(T::Int),
        1 => any::<bool>().prop_map(T::Bool),
        2 => (0..VARS.len()).prop_map(|i| T::Var(VARS[i].0)),
    ]
}

fn arith_op() -> impl Strategy<Value = Arith> {
    prop_oneof![
        Just(Arith::Add),
        Just(Arith::Sub),
        Just(Arith::Mul),
        Just(Arith::Div),
        Just(Arith::Mod)
    ]
}

fn cmp_op() -> impl Strategy<Value = Cmp> {
    prop_oneof![
        Just(Cmp::Eq),
        Just(Cmp::Ne),
        Just(Cmp::Lt),
        Just(Cmp::Le),
        Just(Cmp::Gt),
        Just(Cmp::Ge)
    ]
}

/// Any tree: mostly well-typed ones (so evaluation goes deep instead of stopping at the first
/// type mismatch), some built without regard to types.
fn tree() -> impl Strategy<Value = T> {
    prop_oneof![
        3 => int_tree(4),
        3 => bool_tree(4),
        2 => list_tree(3),
        2 => untyped_tree(),
    ]
}

/// Trees of any shape: mostly type mismatches.
fn untyped_tree() -> impl Strategy<Value = T> {
    leaf().prop_recursive(5, 48, 4, |inner| {
        let b = || inner.clone().prop_map(Box::new);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(T::List),
            b().prop_map(T::Neg),
            b().prop_map(T::Not),
            (arith_op(), b(), b()).prop_map(|(o, a, c)| T::Arith(o, a, c)),
            (b(), prop::collection::vec((cmp_op(), inner.clone()), 1..4))
                .prop_map(|(a, r)| T::Cmp(a, r)),
            (b(), b()).prop_map(|(a, c)| T::And(a, c)),
            (b(), b()).prop_map(|(a, c)| T::Or(a, c)),
            (b(), b(), b()).prop_map(|(a, c, d)| T::If(a, c, d)),
            (b(), b()).prop_map(|(a, c)| T::Index(a, c)),
            (b(), prop::option::of(b()), prop::option::of(b()))
                .prop_map(|(a, lo, hi)| T::Slice(a, lo, hi)),
        ]
    })
}

fn small_int() -> impl Strategy<Value = T> {
    (-5i64..5).prop_map(T::Int)
}

/// Int-valued trees of at most `d` levels (errors come from overflow, division by zero and
/// indexing only).
fn int_tree(d: u32) -> BoxedStrategy<T> {
    let leaf = prop_oneof![
        4 => int_leaf().prop_map(T::Int),
        1 => prop_oneof![Just("x"), Just("y"), Just("big")].prop_map(T::Var),
    ];
    if d == 0 {
        return leaf.boxed();
    }
    let b = |s: BoxedStrategy<T>| s.prop_map(Box::new);
    prop_oneof![
        3 => leaf,
        4 => (arith_op(), b(int_tree(d - 1)), b(int_tree(d - 1))).prop_map(|(o, a, c)| T::Arith(o, a, c)),
        1 => b(int_tree(d - 1)).prop_map(T::Neg),
        1 => (b(int_tree(d - 1)), b(bool_tree(d - 1)), b(int_tree(d - 1))).prop_map(|(a, c, e)| T::If(a, c, e)),
        1 => (b(list_tree(d - 1)), b(small_int().boxed())).prop_map(|(s, i)| T::Index(s, i)),
    ]
    .boxed()
}

/// Bool-valued trees of at most `d` levels.
fn bool_tree(d: u32) -> BoxedStrategy<T> {
    let leaf = prop_oneof![
        2 => any::<bool>().prop_map(T::Bool),
        1 => prop_oneof![Just("t"), Just("f")].prop_map(T::Var),
    ];
    if d == 0 {
        return leaf.boxed();
    }
    let b = |s: BoxedStrategy<T>| s.prop_map(Box::new);
    prop_oneof![
        2 => leaf,
        1 => b(bool_tree(d - 1)).prop_map(T::Not),
        2 => (b(bool_tree(d - 1)), b(bool_tree(d - 1))).prop_map(|(a, c)| T::And(a, c)),
        2 => (b(bool_tree(d - 1)), b(bool_tree(d - 1))).prop_map(|(a, c)| T::Or(a, c)),
        3 => (b(int_tree(d - 1)), prop::collection::vec((cmp_op(), int_tree(d - 1)), 1..4)).prop_map(|(a, r)| T::Cmp(a, r)),
        1 => (b(list_tree(d - 1)), prop::collection::vec((prop_oneof![Just(Cmp::Eq), Just(Cmp::Ne)], list_tree(d - 1)), 1..3))
            .prop_map(|(a, r)| T::Cmp(a, r)),
        1 => (b(bool_tree(d - 1)), prop_oneof![Just(Cmp::Eq), Just(Cmp::Ne)], bool_tree(d - 1)).prop_map(|(a, o, c)| T::Cmp(a, vec![(o, c)])),
        1 => (b(bool_tree(d - 1)), b(bool_tree(d - 1)), b(bool_tree(d - 1))).prop_map(|(a, c, e)| T::If(a, c, e)),
    ]
    .boxed()
}

/// List-valued trees (lists of ints) of at most `d` levels.
fn list_tree(d: u32) -> BoxedStrategy<T> {
    let leaf = prop_oneof![
        2 => prop::collection::vec(small_int(), 0..5).prop_map(T::List),
        1 => prop_oneof![Just("xs"), Just("nil")].prop_map(T::Var),
    ];
    if d == 0 {
        return leaf.boxed();
    }
    let b = |s: BoxedStrategy<T>| s.prop_map(Box::new);
    let bound = || prop::option::of(b(small_int().boxed()));
    prop_oneof![
        2 => leaf,
        1 => prop::collection::vec(int_tree(d - 1), 0..4).prop_map(T::List),
        2 => (b(list_tree(d - 1)), b(list_tree(d - 1))).prop_map(|(a, c)| T::Arith(Arith::Add, a, c)),
        2 => (b(list_tree(d - 1)), bound(), bound()).prop_map(|(s, lo, hi)| T::Slice(s, lo, hi)),
        1 => (b(list_tree(d - 1)), b(bool_tree(d - 1)), b(list_tree(d - 1))).prop_map(|(a, c, e)| T::If(a, c, e)),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------------------------
// Rendering

fn arith_sym(o: Arith) -> &'static str {
    match o {
        Arith::Add => "+",
        Arith::Sub => "-",
        Arith::Mul => "*",
        Arith::Div => "/",
        Arith::Mod => "%",
    }
}

fn cmp_sym(o: Cmp) -> &'static str {
    match o {
        Cmp::Eq => "==",
        Cmp::Ne => "!=",
        Cmp::Lt => "<",
        Cmp::Le => "<=",
        Cmp::Gt => ">",
        Cmp::Ge => ">=",
    }
}

/// Renders with every compound term in parentheses.
fn full(t: &T) -> String {
    match t {
        T::Int(v) if *v == i64::MIN => "(-9223372036854775807 - 1)".into(),
        T::Int(v) if *v < 0 => format!("(-{})", -v),
        T::Int(v) => v.to_string(),
        T::Bool(v) => v.to_string(),
        T::Var(n) => n.to_string(),
        T::List(items) => format!(
            "[{}]",
            items.iter().map(full).collect::<Vec<_>>().join(", ")
        ),
        T::Neg(x) => format!("(-{})", full(x)),
        T::Not(x) => format!("(not {})", full(x)),
        T::Arith(o, a, b) => format!("({} {} {})", full(a), arith_sym(*o), full(b)),
        T::Cmp(a, rest) => {
            let mut s = format!("({}", full(a));
            for (o, r) in rest {
                s += &format!(" {} {}", cmp_sym(*o), full(r));
            }
            s + ")"
        }
        T::And(a, b) => format!("({} and {})", full(a), full(b)),
        T::Or(a, b) => format!("({} or {})", full(a), full(b)),
        T::If(a, c, e) => format!("({} if {} else {})", full(a), full(c), full(e)),
        T::Index(s, i) => format!("({}[{}])", full(s), full(i)),
        T::Slice(s, lo, hi) => format!(
            "({}[{}:{}])",
            full(s),
            lo.as_deref().map(full).unwrap_or_default(),
            hi.as_deref().map(full).unwrap_or_default()
        ),
    }
}

// Precedence levels, lowest first (the spec's order).
const IF: u8 = 0;
const OR: u8 = 1;
const AND: u8 = 2;
const NOT: u8 = 3;
const CMP: u8 = 4;
const ADD: u8 = 5;
const MUL: u8 = 6;
const UNARY: u8 = 7;
const POSTFIX: u8 = 8;

/// Renders with as few parentheses as the precedence rules allow; returns the text and the
/// precedence level of its top operator.
fn minimal(t: &T) -> (String, u8) {
    // `x` as an operand that must bind at least as tightly as `need`.
    fn at(x: &T, need: u8) -> String {
        let (s, level) = minimal(x);
        if level >= need {
            s
        } else {
            format!("({s})")
        }
    }
    match t {
        T::Int(v) if *v == i64::MIN => ("-9223372036854775807 - 1".into(), ADD),
        T::Int(v) if *v < 0 => (format!("-{}", -v), UNARY),
        T::Int(v) => (v.to_string(), POSTFIX),
        T::Bool(v) => (v.to_string(), POSTFIX),
        T::Var(n) => (n.to_string(), POSTFIX),
        T::List(items) => (
            format!(
                "[{}]",
                items
                    .iter()
                    .map(|i| at(i, IF))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            POSTFIX,
        ),
        T::Neg(x) => (format!("-{}", at(x, UNARY)), UNARY),
        T::Not(x) => (format!("not {}", at(x, NOT)), NOT),
        T::Arith(o, a, b) => {
            let p = if matches!(o, Arith::Add | Arith::Sub) {
                ADD
            } else {
                MUL
            };
            (
                format!("{} {} {}", at(a, p), arith_sym(*o), at(b, p + 1)),
                p,
            )
        }
        T::Cmp(a, rest) => {
            let mut s = at(a, ADD);
            for (o, r) in rest {
                s += &format!(" {} {}", cmp_sym(*o), at(r, ADD));
            }
            (s, CMP)
        }
        T::And(a, b) => (format!("{} and {}", at(a, AND), at(b, NOT)), AND),
        T::Or(a, b) => (format!("{} or {}", at(a, OR), at(b, AND)), OR),
        T::If(a, c, e) => (
            format!("{} if {} else {}", at(a, OR), at(c, OR), at(e, IF)),
            IF,
        ),
        T::Index(s, i) => (format!("{}[{}]", at(s, POSTFIX), at(i, IF)), POSTFIX),
        T::Slice(s, lo, hi) => (
            format!(
                "{}[{}:{}]",
                at(s, POSTFIX),
                lo.as_deref().map(|x| at(x, IF)).unwrap_or_default(),
                hi.as_deref().map(|x| at(x, IF)).unwrap_or_default()
            ),
            POSTFIX,
        ),
    }
}

/// Prints a parsed tree back to text, fully parenthesised (the test's own printer, over the
/// public syntax tree).
fn print(n: &Node) -> String {
    match &n.kind {
        NodeKind::Int(v) => v.to_string(),
        NodeKind::Float(v) => format!("{v:?}"),
        NodeKind::Bool(v) => v.to_string(),
        NodeKind::Str(s) => format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")),
        NodeKind::List(items) => format!(
            "[{}]",
            items.iter().map(print).collect::<Vec<_>>().join(", ")
        ),
        NodeKind::Derive(name) => name.clone(),
        NodeKind::Path(p) => p.join("."),
        NodeKind::Neg(x) => format!("(-{})", print(x)),
        NodeKind::Not(x) => format!("(not {})", print(x)),
        NodeKind::And(a, b) => format!("({} and {})", print(a), print(b)),
        NodeKind::Or(a, b) => format!("({} or {})", print(a), print(b)),
        NodeKind::IfElse {
            then,
            cond,
            otherwise,
        } => format!(
            "({} if {} else {})",
            print(then),
            print(cond),
            print(otherwise)
        ),
        NodeKind::Bin(op, a, b) => format!("({} {} {})", print(a), op.symbol(), print(b)),
        NodeKind::Chain(a, rest) => {
            let mut s = format!("({}", print(a));
            for (op, r) in rest {
                s += &format!(" {} {}", op.symbol(), print(r));
            }
            s + ")"
        }
        NodeKind::Call(f, args) => format!(
            "{}({})",
            f.name(),
            args.iter().map(print).collect::<Vec<_>>().join(", ")
        ),
        NodeKind::Index(s, i) => format!("({}[{}])", print(s), print(i)),
        NodeKind::Slice(s, lo, hi) => format!(
            "({}[{}:{}])",
            print(s),
            lo.as_deref().map(print).unwrap_or_default(),
            hi.as_deref().map(print).unwrap_or_default()
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// The reference evaluator: written from the spec over the generated tree, with i128 arithmetic.

#[derive(Clone, Debug, PartialEq)]
enum R {
    I(i64),
    B(bool),
    L(Vec<R>),
}

impl R {
    fn to_value(&self) -> Value {
        match self {
            R::I(v) => Value::Int(*v),
            R::B(v) => Value::Bool(*v),
            R::L(v) => Value::List(v.iter().map(R::to_value).collect()),
        }
    }
    fn from_value(v: &Value) -> R {
        match v {
            Value::Int(v) => R::I(*v),
            Value::Bool(v) => R::B(*v),
            Value::List(v) => R::L(v.iter().map(R::from_value).collect()),
            other => panic!("the generated language has no {other:?}"),
        }
    }
}

type Res = Result<R, ErrorKind>;

fn fits(v: i128) -> Result<R, ErrorKind> {
    i64::try_from(v).map(R::I).map_err(|_| ErrorKind::Overflow)
}

/// Python's floor division and modulo, in i128.
fn py_divmod(a: i128, b: i128) -> (i128, i128) {
    let mut q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q -= 1;
    }
    (q, a - q * b)
}

fn eq(a: &R, b: &R) -> Option<bool> {
    match (a, b) {
        (R::I(x), R::I(y)) => Some(x == y),
        (R::B(x), R::B(y)) => Some(x == y),
        (R::L(x), R::L(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            for (p, q) in x.iter().zip(y) {
                if !eq(p, q)? {
                    return Some(false);
                }
            }
            Some(true)
        }
        _ => None,
    }
}

fn compare(o: Cmp, a: &R, b: &R) -> Result<bool, ErrorKind> {
    match o {
        Cmp::Eq => eq(a, b).ok_or(ErrorKind::TypeMismatch),
        Cmp::Ne => eq(a, b).map(|e| !e).ok_or(ErrorKind::TypeMismatch),
        _ => match (a, b) {
            (R::I(x), R::I(y)) => Ok(match o {
                Cmp::Lt => x < y,
                Cmp::Le => x <= y,
                Cmp::Gt => x > y,
                _ => x >= y,
            }),
            _ => Err(ErrorKind::TypeMismatch),
        },
    }
}

fn as_bool(r: R) -> Result<bool, ErrorKind> {
    match r {
        R::B(b) => Ok(b),
        _ => Err(ErrorKind::TypeMismatch),
    }
}

fn as_int(r: R) -> Result<i64, ErrorKind> {
    match r {
        R::I(v) => Ok(v),
        _ => Err(ErrorKind::TypeMismatch),
    }
}

fn reference(t: &T) -> Res {
    match t {
        T::Int(v) => Ok(R::I(*v)),
        T::Bool(v) => Ok(R::B(*v)),
        T::Var(n) => Ok(VARS.iter().find(|(k, _)| k == n).unwrap().1()),
        T::List(items) => items
            .iter()
            .map(reference)
            .collect::<Result<Vec<_>, _>>()
            .map(R::L),
        T::Neg(x) => match reference(x)? {
            R::I(v) => fits(-(v as i128)),
            _ => Err(ErrorKind::TypeMismatch),
        },
        T::Not(x) => Ok(R::B(!as_bool(reference(x)?)?)),
        T::Arith(o, a, b) => {
            let (l, r) = (reference(a)?, reference(b)?);
            match (l, r) {
                (R::I(x), R::I(y)) => {
                    let (x, y) = (x as i128, y as i128);
                    match o {
                        Arith::Add => fits(x + y),
                        Arith::Sub => fits(x - y),
                        Arith::Mul => fits(x * y),
                        Arith::Div | Arith::Mod if y == 0 => Err(ErrorKind::DivisionByZero),
                        Arith::Div => fits(py_divmod(x, y).0),
                        Arith::Mod => fits(py_divmod(x, y).1),
                    }
                }
                (R::L(mut x), R::L(y)) if *o == Arith::Add => {
                    x.extend(y);
                    Ok(R::L(x))
                }
                _ => Err(ErrorKind::TypeMismatch),
            }
        }
        T::Cmp(a, rest) => {
            let mut l = reference(a)?;
            for (o, rt) in rest {
                let r = reference(rt)?;
                if !compare(*o, &l, &r)? {
                    return Ok(R::B(false));
                }
                l = r;
            }
            Ok(R::B(true))
        }
        T::And(a, b) => {
            if !as_bool(reference(a)?)? {
                return Ok(R::B(false));
            }
            Ok(R::B(as_bool(reference(b)?)?))
        }
        T::Or(a, b) => {
            if as_bool(reference(a)?)? {
                return Ok(R::B(true));
            }
            Ok(R::B(as_bool(reference(b)?)?))
        }
        T::If(then, cond, otherwise) => {
            if as_bool(reference(cond)?)? {
                reference(then)
            } else {
                reference(otherwise)
            }
        }
        T::Index(s, i) => {
            let seq = reference(s)?;
            let i = as_int(reference(i)?)? as i128;
            let R::L(items) = seq else {
                return Err(ErrorKind::TypeMismatch);
            };
            let n = items.len() as i128;
            let k = if i < 0 { i + n } else { i };
            if (0..n).contains(&k) {
                Ok(items[k as usize].clone())
            } else {
                Err(ErrorKind::IndexOutOfRange)
            }
        }
        T::Slice(s, lo, hi) => {
            let seq = reference(s)?;
            let bound = |b: &Option<Box<T>>| -> Result<Option<i128>, ErrorKind> {
                match b {
                    Some(x) => Ok(Some(as_int(reference(x)?)? as i128)),
                    None => Ok(None),
                }
            };
            let (lo, hi) = (bound(lo)?, bound(hi)?);
            let R::L(items) = seq else {
                return Err(ErrorKind::TypeMismatch);
            };
            let n = items.len() as i128;
            let clamp = |v: i128| if v < 0 { (v + n).max(0) } else { v.min(n) };
            let a = lo.map(clamp).unwrap_or(0);
            let b = hi.map(clamp).unwrap_or(n);
            Ok(R::L(if a < b {
                items[a as usize..b as usize].to_vec()
            } else {
                vec![]
            }))
        }
    }
}

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
