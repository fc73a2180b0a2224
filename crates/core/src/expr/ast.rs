//! Syntax tree of a parsed expression.

use std::ops::Range;

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl BinOp {
    /// The operator's symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }
}

/// Built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `numel(shape)`
    Numel,
    /// `dim(shape, i)`
    Dim,
    /// `prefix(shape, n)`
    Prefix,
    /// `sameShape(a, b)`
    SameShape,
    /// `ceilDiv(a, b)`
    CeilDiv,
    /// `min(a, b, ...)`
    Min,
    /// `max(a, b, ...)`
    Max,
    /// `pow2ceil(x)`
    Pow2Ceil,
    /// `f16Ok(dtype)`
    F16Ok,
    /// `device.features.has(name)`
    HasFeature,
}

impl Func {
    /// Looks up a function by its name in the language.
    pub fn by_name(name: &str) -> Option<Func> {
        Some(match name {
            "numel" => Func::Numel,
            "dim" => Func::Dim,
            "prefix" => Func::Prefix,
            "sameShape" => Func::SameShape,
            "ceilDiv" => Func::CeilDiv,
            "min" => Func::Min,
            "max" => Func::Max,
            "pow2ceil" => Func::Pow2Ceil,
            "f16Ok" => Func::F16Ok,
            _ => return None,
        })
    }
    /// The function's name.
    pub fn name(self) -> &'static str {
        match self {
            Func::Numel => "numel",
            Func::Dim => "dim",
            Func::Prefix => "prefix",
            Func::SameShape => "sameShape",
            Func::CeilDiv => "ceilDiv",
            Func::Min => "min",
            Func::Max => "max",
            Func::Pow2Ceil => "pow2ceil",
            Func::F16Ok => "f16Ok",
            Func::HasFeature => "device.features.has",
        }
    }
}

/// The namespaces a dotted path may start with.
pub const NAMESPACES: &[&str] = &[
    "attrs",
    "tunables",
    "shapes",
    "ranks",
    "tensorDtypes",
    "present",
    "device",
];

/// A node of the tree with its byte span in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// What the node is.
    pub kind: NodeKind,
    /// Byte range in the source text.
    pub span: Range<usize>,
}

/// Node kinds.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// Integer literal.
    Int(i64),
    /// Float literal.
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// String literal.
    Str(String),
    /// `[a, b, ...]`
    List(Vec<Node>),
    /// A bare identifier: a derive entry.
    Derive(String),
    /// A dotted path from a namespace: `attrs.K`, `device.limits.maxX`.
    Path(Vec<String>),
    /// `-x`
    Neg(Box<Node>),
    /// `not x`
    Not(Box<Node>),
    /// `a and b` (lazy)
    And(Box<Node>, Box<Node>),
    /// `a or b` (lazy)
    Or(Box<Node>, Box<Node>),
    /// `then if cond else otherwise` (lazy)
    IfElse {
        /// Value when `cond` holds.
        then: Box<Node>,
        /// The condition.
        cond: Box<Node>,
        /// Value otherwise.
        otherwise: Box<Node>,
    },
    /// Binary arithmetic or a single comparison.
    Bin(BinOp, Box<Node>, Box<Node>),
    /// Chained comparison `a < b <= c` (Python semantics: each operand evaluated once, lazy).
    Chain(Box<Node>, Vec<(BinOp, Node)>),
    /// Built-in function call.
    Call(Func, Vec<Node>),
    /// `s[i]`
    Index(Box<Node>, Box<Node>),
    /// `s[a:b]`
    Slice(Box<Node>, Option<Box<Node>>, Option<Box<Node>>),
}
