//! Rendering trees as text: fully parenthesised, with minimal parentheses, and printing a
//! parsed tree back.

use crate::tree::{Arith, Cmp, T};
use nbits_mlp_core::expr::{Node, NodeKind};

pub fn arith_sym(o: Arith) -> &'static str {
    match o {
        Arith::Add => "+",
        Arith::Sub => "-",
        Arith::Mul => "*",
        Arith::Div => "/",
        Arith::Mod => "%",
    }
}

pub fn cmp_sym(o: Cmp) -> &'static str {
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
pub fn full(t: &T) -> String {
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
pub const IF: u8 = 0;
pub const OR: u8 = 1;
pub const AND: u8 = 2;
pub const NOT: u8 = 3;
pub const CMP: u8 = 4;
pub const ADD: u8 = 5;
pub const MUL: u8 = 6;
pub const UNARY: u8 = 7;
pub const POSTFIX: u8 = 8;

/// Renders with as few parentheses as the precedence rules allow; returns the text and the
/// precedence level of its top operator.
pub fn minimal(t: &T) -> (String, u8) {
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
pub fn print(n: &Node) -> String {
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
