//! Generated expression trees: their shape, the derive entries they may name, and the
//! strategies that draw them.

use crate::reference::R;
use nbits_mlp_core::expr::MapEnv;
use proptest::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Debug)]
pub enum T {
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
pub type Var = (&'static str, fn() -> R);

pub const VARS: &[Var] = &[
    ("x", || R::I(7)),
    ("y", || R::I(-3)),
    ("big", || R::I(i64::MAX)),
    ("t", || R::B(true)),
    ("f", || R::B(false)),
    ("xs", || R::L(vec![R::I(1), R::I(2), R::I(3)])),
    ("nil", || R::L(vec![])),
];

pub fn env() -> MapEnv {
    let mut e = MapEnv::default();
    for (name, v) in VARS {
        e.derives.insert(name.to_string(), v().to_value());
    }
    e
}

pub fn int_leaf() -> impl Strategy<Value = i64> {
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

pub fn leaf() -> impl Strategy<Value = T> {
    prop_oneof![
        4 => int_leaf().prop_map(T::Int),
        1 => any::<bool>().prop_map(T::Bool),
        2 => (0..VARS.len()).prop_map(|i| T::Var(VARS[i].0)),
    ]
}

pub fn arith_op() -> impl Strategy<Value = Arith> {
    prop_oneof![
        Just(Arith::Add),
        Just(Arith::Sub),
        Just(Arith::Mul),
        Just(Arith::Div),
        Just(Arith::Mod)
    ]
}

pub fn cmp_op() -> impl Strategy<Value = Cmp> {
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
pub fn tree() -> impl Strategy<Value = T> {
    prop_oneof![
        3 => int_tree(4),
        3 => bool_tree(4),
        2 => list_tree(3),
        2 => untyped_tree(),
    ]
}

/// Trees of any shape: mostly type mismatches.
pub fn untyped_tree() -> impl Strategy<Value = T> {
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

pub fn small_int() -> impl Strategy<Value = T> {
    (-5i64..5).prop_map(T::Int)
}

/// Int-valued trees of at most `d` levels (errors come from overflow, division by zero and
/// indexing only).
pub fn int_tree(d: u32) -> BoxedStrategy<T> {
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
pub fn bool_tree(d: u32) -> BoxedStrategy<T> {
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
pub fn list_tree(d: u32) -> BoxedStrategy<T> {
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
