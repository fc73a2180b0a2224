//! Tree-walking evaluator. Lazy `and` / `or` / `if-else`; derive entries and namespaces are
//! resolved through an [`Env`].

use super::ast::{BinOp, Func, Node, NodeKind};
use super::error::{ErrorKind, ExprError};
use super::value::Value;
use std::cmp::Ordering;
use std::sync::Arc;

/// Where names come from.
pub trait Env {
    /// The value of derive entry `name`. An error from evaluating that entry is returned as it
    /// is (it quotes that entry's own expression); an unknown name returns `Ok(None)`.
    fn derive(&mut self, name: &str) -> Result<Option<Value>, ExprError>;
    /// The value of a namespace path (`["attrs", "K"]`), or a message saying why there is none
    /// (with the kind of error).
    fn path(&mut self, path: &[String]) -> Result<Value, (ErrorKind, String)>;
    /// Whether the device has a WebGPU feature.
    fn has_feature(&mut self, name: &str) -> bool;
}

pub(crate) struct Eval<'e> {
    pub env: &'e mut dyn Env,
    pub src: &'e Arc<str>,
}

type R = Result<Value, ExprError>;

impl Eval<'_> {
    fn err(&self, kind: ErrorKind, msg: impl Into<String>, n: &Node) -> ExprError {
        ExprError::new(kind, msg, self.src, n.span.clone())
    }
    fn type_err(&self, msg: impl Into<String>, n: &Node) -> ExprError {
        self.err(ErrorKind::TypeMismatch, msg, n)
    }

    fn bool_of(&mut self, n: &Node, what: &str) -> Result<bool, ExprError> {
        match self.eval(n)? {
            Value::Bool(b) => Ok(b),
            v => Err(self.type_err(format!("{what} needs a bool, got {} {v}", v.kind()), n)),
        }
    }
    fn int_of(&mut self, n: &Node, what: &str) -> Result<i64, ExprError> {
        match self.eval(n)? {
            Value::Int(i) => Ok(i),
            v => Err(self.type_err(format!("{what} needs an int, got {} {v}", v.kind()), n)),
        }
    }
    fn list_of(&mut self, n: &Node, what: &str) -> Result<Vec<Value>, ExprError> {
        match self.eval(n)? {
            Value::List(l) => Ok(l),
            v => Err(self.type_err(format!("{what} needs a list, got {} {v}", v.kind()), n)),
        }
    }

    pub fn eval(&mut self, n: &Node) -> R {
        match &n.kind {
            NodeKind::Int(v) => Ok(Value::Int(*v)),
            NodeKind::Float(v) => Ok(Value::Float(*v)),
            NodeKind::Bool(v) => Ok(Value::Bool(*v)),
            NodeKind::Str(v) => Ok(Value::Str(v.clone())),
            NodeKind::List(items) => Ok(Value::List(items.iter().map(|i| self.eval(i)).collect::<Result<_, _>>()?)),
            NodeKind::Derive(name) => match self.env.derive(name)? {
                Some(v) => Ok(v),
                None => Err(self.err(ErrorKind::UnknownName, format!("unknown name `{name}` (not a derive entry)"), n)),
            },
            NodeKind::Path(p) => self.env.path(p).map_err(|(k, m)| self.err(k, m, n)),
            NodeKind::Neg(x) => match self.eval(x)? {
                Value::Int(v) => v.checked_neg().map(Value::Int).ok_or_else(|| self.err(ErrorKind::Overflow, "integer overflow", n)),
                Value::Float(v) => Ok(Value::Float(-v)),
                v => Err(self.type_err(format!("unary `-` needs a number, got {} {v}", v.kind()), x)),
            },
            NodeKind::Not(x) => Ok(Value::Bool(!self.bool_of(x, "`not`")?)),
            NodeKind::And(a, b) => Ok(Value::Bool(self.bool_of(a, "`and`")? && self.bool_of(b, "`and`")?)),
            NodeKind::Or(a, b) => Ok(Value::Bool(self.bool_of(a, "`or`")? || self.bool_of(b, "`or`")?)),
            NodeKind::IfElse { then, cond, otherwise } => {
                if self.bool_of(cond, "the condition of `if`")? {
                    self.eval(then)
                } else {
                    self.eval(otherwise)
                }
            }
            NodeKind::Bin(op, a, b) => {
                let l = self.eval(a)?;
                let r = self.eval(b)?;
                self.binary(*op, l, r, n)
            }
            NodeKind::Chain(first, rest) => {
                let mut l = self.eval(first)?;
                for (op, rn) in rest {
                    let r = self.eval(rn)?;
                    if self.binary(*op, l, r.clone(), n)? != Value::Bool(true) {
                        return Ok(Value::Bool(false));
                    }
                    l = r;
                }
                Ok(Value::Bool(true))
            }
            NodeKind::Index(s, i) => {
                let seq = self.eval(s)?;
                let idx = self.int_of(i, "a subscript")?;
                match seq {
                    Value::List(l) => {
                        let k = norm_index(idx, l.len()).ok_or_else(|| {
                            self.err(ErrorKind::IndexOutOfRange, format!("index {idx} out of range for a list of length {}", l.len()), n)
                        })?;
                        Ok(l[k].clone())
                    }
                    Value::Str(st) => {
                        let chars: Vec<char> = st.chars().collect();
                        let k = norm_index(idx, chars.len()).ok_or_else(|| {
                            self.err(ErrorKind::IndexOutOfRange, format!("index {idx} out of range for a string of length {}", chars.len()), n)
                        })?;
                        Ok(Value::Str(chars[k].to_string()))
                    }
                    v => Err(self.type_err(format!("cannot subscript {} {v}", v.kind()), s)),
                }
            }
            NodeKind::Slice(s, lo, hi) => {
                let seq = self.eval(s)?;
                let lo = match lo {
                    Some(x) => Some(self.int_of(x, "a slice bound")?),
                    None => None,
                };
                let hi = match hi {
                    Some(x) => Some(self.int_of(x, "a slice bound")?),
                    None => None,
                };
                match seq {
                    Value::List(l) => {
                        let (a, b) = slice_bounds(lo, hi, l.len());
                        Ok(Value::List(l[a..b].to_vec()))
                    }
                    Value::Str(st) => {
                        let chars: Vec<char> = st.chars().collect();
                        let (a, b) = slice_bounds(lo, hi, chars.len());
                        Ok(Value::Str(chars[a..b].iter().collect()))
                    }
                    v => Err(self.type_err(format!("cannot slice {} {v}", v.kind()), s)),
                }
            }
            NodeKind::Call(f, args) => self.call(*f, args, n),
        }
    }

    fn binary(&self, op: BinOp, l: Value, r: Value, n: &Node) -> R {
        use Value::*;
        let sym = op.symbol();
        match op {
            BinOp::Eq | BinOp::Ne => {
                let eq = values_equal(&l, &r).ok_or_else(|| {
                    self.type_err(format!("cannot compare {} {l} {sym} {} {r}", l.kind(), r.kind()), n)
                })?;
                Ok(Bool(eq == (op == BinOp::Eq)))
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let ord = values_order(&l, &r).ok_or_else(|| {
                    self.type_err(format!("cannot order {} {l} {sym} {} {r}", l.kind(), r.kind()), n)
                })?;
                Ok(Bool(match op {
                    BinOp::Lt => ord == Ordering::Less,
                    BinOp::Le => ord != Ordering::Greater,
                    BinOp::Gt => ord == Ordering::Greater,
                    _ => ord != Ordering::Less,
                }))
            }
            _ => {
                let overflow = || self.err(ErrorKind::Overflow, format!("integer overflow in {l} {sym} {r}"), n);
                match (&l, &r) {
                    (Int(a), Int(b)) => {
                        let (a, b) = (*a, *b);
                        let v = match op {
                            BinOp::Add => a.checked_add(b),
                            BinOp::Sub => a.checked_sub(b),
                            BinOp::Mul => a.checked_mul(b),
                            BinOp::Div | BinOp::Mod => {
                                if b == 0 {
                                    return Err(self.err(ErrorKind::DivisionByZero, format!("division by zero in {a} {sym} {b}"), n));
                                }
                                if a == i64::MIN && b == -1 {
                                    None
                                } else if op == BinOp::Div {
                                    Some(floor_div(a, b))
                                } else {
                                    Some(a - b * floor_div(a, b))
                                }
                            }
                            _ => unreachable!("comparisons handled above"),
                        };
                        v.map(Int).ok_or_else(overflow)
                    }
                    (Int(_) | Float(_), Int(_) | Float(_)) => {
                        let a = as_f64(&l);
                        let b = as_f64(&r);
                        Ok(Float(match op {
                            BinOp::Add => a + b,
                            BinOp::Sub => a - b,
                            BinOp::Mul => a * b,
                            BinOp::Div | BinOp::Mod => {
                                if b == 0.0 {
                                    return Err(self.err(ErrorKind::DivisionByZero, format!("division by zero in {l} {sym} {r}"), n));
                                }
                                if op == BinOp::Div {
                                    a / b
                                } else {
                                    a - b * (a / b).floor()
                                }
                            }
                            _ => unreachable!("comparisons handled above"),
                        }))
                    }
                    (List(a), List(b)) if op == BinOp::Add => {
                        let mut v = a.clone();
                        v.extend(b.iter().cloned());
                        Ok(List(v))
                    }
                    (Str(a), Str(b)) if op == BinOp::Add => Ok(Str(format!("{a}{b}"))),
                    _ => Err(self.type_err(format!("unsupported operands for `{sym}`: {} {l} and {} {r}", l.kind(), r.kind()), n)),
                }
            }
        }
    }

    fn call(&mut self, f: Func, args: &[Node], n: &Node) -> R {
        let arity = |want: usize| -> Result<(), ExprError> {
            if args.len() != want {
                Err(ExprError::new(
                    ErrorKind::BadArgument,
                    format!("{}() takes {want} argument{}, got {}", f.name(), if want == 1 { "" } else { "s" }, args.len()),
                    self.src,
                    n.span.clone(),
                ))
            } else {
                Ok(())
            }
        };
        let bad = |this: &Self, msg: String| this.err(ErrorKind::BadArgument, msg, n);
        match f {
            Func::Numel => {
                arity(1)?;
                let shape = self.list_of(&args[0], "numel()")?;
                let mut p: i64 = 1;
                for d in &shape {
                    let d = d.as_int().ok_or_else(|| bad(self, format!("numel() needs a list of ints, got {}", Value::List(shape.clone()))))?;
                    p = p.checked_mul(d).ok_or_else(|| self.err(ErrorKind::Overflow, "integer overflow in numel()", n))?;
                }
                Ok(Value::Int(p))
            }
            Func::Dim => {
                arity(2)?;
                let shape = self.list_of(&args[0], "dim()")?;
                let i = self.int_of(&args[1], "dim()")?;
                let k = norm_index(i, shape.len()).ok_or_else(|| {
                    self.err(ErrorKind::IndexOutOfRange, format!("dim(): axis {i} out of range for a shape of rank {}", shape.len()), n)
                })?;
                Ok(shape[k].clone())
            }
            Func::Prefix => {
                arity(2)?;
                let shape = self.list_of(&args[0], "prefix()")?;
                let k = self.int_of(&args[1], "prefix()")?;
                let (a, b) = slice_bounds(None, Some(k), shape.len());
                Ok(Value::List(shape[a..b].to_vec()))
            }
            Func::SameShape => {
                arity(2)?;
                let a = self.list_of(&args[0], "sameShape()")?;
                let b = self.list_of(&args[1], "sameShape()")?;
                Ok(Value::Bool(values_equal(&Value::List(a), &Value::List(b)).unwrap_or(false)))
            }
            Func::CeilDiv => {
                arity(2)?;
                let a = self.int_of(&args[0], "ceilDiv()")?;
                let b = self.int_of(&args[1], "ceilDiv()")?;
                if b == 0 {
                    return Err(self.err(ErrorKind::DivisionByZero, format!("division by zero in ceilDiv({a}, {b})"), n));
                }
                let q = floor_div(a, b);
                Ok(Value::Int(if q.checked_mul(b) == Some(a) { q } else { q + 1 }))
            }
            Func::Min | Func::Max => {
                let vals: Vec<Value> = if args.len() == 1 {
                    self.list_of(&args[0], f.name())?
                } else {
                    args.iter().map(|a| self.eval(a)).collect::<Result<_, _>>()?
                };
                let mut best: Option<Value> = None;
                for v in vals {
                    if !matches!(v, Value::Int(_) | Value::Float(_)) {
                        return Err(self.type_err(format!("{}() needs numbers, got {} {v}", f.name(), v.kind()), n));
                    }
                    best = Some(match best {
                        None => v,
                        Some(b) => {
                            let ord = values_order(&v, &b).unwrap_or(Ordering::Equal);
                            let take = if f == Func::Min { ord == Ordering::Less } else { ord == Ordering::Greater };
                            if take {
                                v
                            } else {
                                b
                            }
                        }
                    });
                }
                best.ok_or_else(|| bad(self, format!("{}() needs at least one value", f.name())))
            }
            Func::Pow2Ceil => {
                arity(1)?;
                let x = self.int_of(&args[0], "pow2ceil()")?;
                if x <= 1 {
                    return Ok(Value::Int(1));
                }
                (x as u64).checked_next_power_of_two().filter(|p| *p <= i64::MAX as u64).map(|p| Value::Int(p as i64)).ok_or_else(|| self.err(ErrorKind::Overflow, "integer overflow in pow2ceil()", n))
            }
            Func::F16Ok => {
                arity(1)?;
                let v = self.eval(&args[0])?;
                let dt = v.as_str().ok_or_else(|| self.type_err(format!("f16Ok() needs a dtype string, got {} {v}", v.kind()), &args[0]))?;
                Ok(Value::Bool(dt != "float16" || self.env.has_feature("shader-f16")))
            }
            Func::HasFeature => {
                arity(1)?;
                let v = self.eval(&args[0])?;
                let name = v.as_str().ok_or_else(|| self.type_err(format!("device.features.has() needs a feature name string, got {} {v}", v.kind()), &args[0]))?;
                Ok(Value::Bool(self.env.has_feature(name)))
            }
        }
    }
}

fn floor_div(a: i64, b: i64) -> i64 {
    let q = a.wrapping_div(b);
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    }
}

fn norm_index(i: i64, len: usize) -> Option<usize> {
    let len = len as i64;
    let k = if i < 0 { i + len } else { i };
    (0..len).contains(&k).then_some(k as usize)
}

fn slice_bounds(lo: Option<i64>, hi: Option<i64>, len: usize) -> (usize, usize) {
    let n = len as i64;
    let fix = |x: i64| if x < 0 { (x + n).max(0) } else { x.min(n) };
    let a = lo.map(fix).unwrap_or(0);
    let b = hi.map(fix).unwrap_or(n);
    (a as usize, (b.max(a)) as usize)
}

/// Equality; `None` when the kinds cannot be compared. Ints and floats compare numerically.
pub(crate) fn values_equal(a: &Value, b: &Value) -> Option<bool> {
    use Value::*;
    Some(match (a, b) {
        (Int(x), Int(y)) => x == y,
        (Int(_) | Float(_), Int(_) | Float(_)) => as_f64(a) == as_f64(b),
        (Bool(x), Bool(y)) => x == y,
        (Str(x), Str(y)) => x == y,
        (List(x), List(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            for (p, q) in x.iter().zip(y) {
                if !values_equal(p, q)? {
                    return Some(false);
                }
            }
            true
        }
        _ => return None,
    })
}

/// Ordering of numbers (numerically) and strings; `None` otherwise (or for NaN).
pub(crate) fn values_order(a: &Value, b: &Value) -> Option<Ordering> {
    use Value::*;
    match (a, b) {
        (Int(x), Int(y)) => Some(x.cmp(y)),
        (Int(_) | Float(_), Int(_) | Float(_)) => as_f64(a).partial_cmp(&as_f64(b)),
        (Str(x), Str(y)) => Some(x.cmp(y)),
        _ => None,
    }
}
