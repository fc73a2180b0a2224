//! The manifest's expression language: a Python-like subset over ints, floats, bools, strings
//! and lists (see `docs/DESIGN.md` and the spec's `manifest-language.md`).
//!
//! An [`Expr`] is parsed once (when the manifest is loaded) and evaluated many times against an
//! [`Env`] that supplies derive entries, namespaces (`attrs.K`, `shapes.aT`, `device.limits.X`, ...)
//! and device features.
//!
//! ```
//! use nbits_mlp_core::expr::{Expr, MapEnv, Value};
//! let e = Expr::parse("ceilDiv(attrs.N, 8) if n > 1 else 0").unwrap();
//! let mut env = MapEnv::default();
//! env.derives.insert("n".into(), Value::Int(3));
//! env.paths.insert("attrs.N".into(), Value::Int(20));
//! assert_eq!(e.eval(&mut env).unwrap(), Value::Int(3));
//! ```

mod ast;
mod error;
mod eval;
mod parse;
mod value;

pub use ast::{BinOp, Func, Node, NodeKind, NAMESPACES};
pub use error::{ErrorKind, ExprError};
pub use eval::Env;
pub use value::Value;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A parsed expression with its source text.
#[derive(Clone, Debug)]
pub struct Expr {
    source: Arc<str>,
    root: Node,
}

/// A name an expression refers to (for static checks).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ref {
    /// A bare identifier (derive entry) and its byte span.
    Derive(String),
    /// A namespace path such as `attrs.K`.
    Path(Vec<String>),
}

impl Expr {
    /// Parses an expression.
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        let source: Arc<str> = Arc::from(text);
        let root = parse::parse(&source)?;
        Ok(Expr { source, root })
    }
    /// A constant (for JSON numbers such as `"z": 1`).
    pub fn constant(v: i64) -> Expr {
        let source: Arc<str> = Arc::from(v.to_string());
        let span = 0..source.len();
        Expr {
            source,
            root: Node {
                kind: NodeKind::Int(v),
                span,
            },
        }
    }
    /// The source text.
    pub fn source(&self) -> &str {
        &self.source
    }
    /// The syntax tree.
    pub fn root(&self) -> &Node {
        &self.root
    }
    /// Evaluates against `env`.
    pub fn eval(&self, env: &mut dyn Env) -> Result<Value, ExprError> {
        eval::Eval {
            env,
            src: &self.source,
        }
        .eval(&self.root)
    }
    /// Evaluates one sub-tree of this expression (for explanations of a result).
    pub fn eval_node(&self, node: &Node, env: &mut dyn Env) -> Result<Value, ExprError> {
        eval::Eval {
            env,
            src: &self.source,
        }
        .eval(node)
    }
    /// The source text of a sub-tree.
    pub fn text_of(&self, node: &Node) -> &str {
        self.source.get(node.span.clone()).unwrap_or("")
    }
    /// Evaluates and requires a bool.
    pub fn eval_bool(&self, env: &mut dyn Env) -> Result<bool, ExprError> {
        match self.eval(env)? {
            Value::Bool(b) => Ok(b),
            v => Err(ExprError::new(
                ErrorKind::TypeMismatch,
                format!("expected a bool, got {} {v}", v.kind()),
                &self.source,
                self.root.span.clone(),
            )),
        }
    }
    /// Evaluates and requires an int.
    pub fn eval_int(&self, env: &mut dyn Env) -> Result<i64, ExprError> {
        match self.eval(env)? {
            Value::Int(i) => Ok(i),
            v => Err(ExprError::new(
                ErrorKind::TypeMismatch,
                format!("expected an int, got {} {v}", v.kind()),
                &self.source,
                self.root.span.clone(),
            )),
        }
    }
    /// An error of `kind` pointing at the whole expression (for checks made on its value).
    pub fn error(&self, kind: ErrorKind, message: impl Into<String>) -> ExprError {
        ExprError::new(kind, message, &self.source, self.root.span.clone())
    }
    /// Every derive name and namespace path the expression mentions (on any branch).
    pub fn refs(&self) -> BTreeSet<Ref> {
        fn walk(n: &Node, out: &mut BTreeSet<Ref>) {
            match &n.kind {
                NodeKind::Derive(d) => {
                    out.insert(Ref::Derive(d.clone()));
                }
                NodeKind::Path(p) => {
                    out.insert(Ref::Path(p.clone()));
                }
                NodeKind::Call(Func::HasFeature, args) => args.iter().for_each(|a| walk(a, out)),
                NodeKind::List(v) | NodeKind::Call(_, v) => v.iter().for_each(|a| walk(a, out)),
                NodeKind::Neg(a) | NodeKind::Not(a) => walk(a, out),
                NodeKind::And(a, b)
                | NodeKind::Or(a, b)
                | NodeKind::Bin(_, a, b)
                | NodeKind::Index(a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
                NodeKind::IfElse {
                    then,
                    cond,
                    otherwise,
                } => {
                    walk(then, out);
                    walk(cond, out);
                    walk(otherwise, out);
                }
                NodeKind::Chain(a, rest) => {
                    walk(a, out);
                    rest.iter().for_each(|(_, r)| walk(r, out));
                }
                NodeKind::Slice(a, lo, hi) => {
                    walk(a, out);
                    lo.iter().chain(hi.iter()).for_each(|x| walk(x, out));
                }
                NodeKind::Int(_) | NodeKind::Float(_) | NodeKind::Bool(_) | NodeKind::Str(_) => {}
            }
        }
        let mut out = BTreeSet::new();
        walk(&self.root, &mut out);
        out
    }
}

/// A simple [`Env`] over maps, for tests, docs and tools: derive values by name, paths by their
/// dotted form (`"attrs.K"`), features by name.
#[derive(Clone, Debug, Default)]
pub struct MapEnv {
    /// Derive values.
    pub derives: BTreeMap<String, Value>,
    /// Namespace values by dotted path.
    pub paths: BTreeMap<String, Value>,
    /// Device features.
    pub features: BTreeSet<String>,
}

impl Env for MapEnv {
    fn derive(&mut self, name: &str) -> Result<Option<Value>, ExprError> {
        Ok(self.derives.get(name).cloned())
    }
    fn path(&mut self, path: &[String]) -> Result<Value, (ErrorKind, String)> {
        let key = path.join(".");
        self.paths
            .get(&key)
            .cloned()
            .ok_or((ErrorKind::UnknownName, format!("unknown name `{key}`")))
    }
    fn has_feature(&mut self, name: &str) -> bool {
        self.features.contains(name)
    }
}
