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
        // Only the cheap arms are written inline: in unoptimised builds every temporary of this
        // function takes stack space in each level of the recursion, so the bulky arms live in
        // their own functions (which keeps deep expressions from overflowing a 2 MiB stack).
        match &n.kind {
            NodeKind::Int(v) => Ok(Value::Int(*v)),
            NodeKind::Float(v) => Ok(Value::Float(*v)),
            NodeKind::Bool(v) => Ok(Value::Bool(*v)),
            NodeKind::Str(v) => Ok(Value::Str(v.clone())),
            NodeKind::List(items) => self.list(items),
            NodeKind::Derive(name) => self.derive(name, n),
            NodeKind::Path(p) => self.path(p, n),
            NodeKind::Neg(x) => self.neg(x, n),
            NodeKind::Not(x) => self.bool_of(x, "`not`").map(|b| Value::Bool(!b)),
            NodeKind::And(a, b) => self.and_or(true, a, b),
            NodeKind::Or(a, b) => self.and_or(false, a, b),
            NodeKind::IfElse {
                then,
                cond,
                otherwise,
            } => match self.bool_of(cond, "the condition of `if`") {
                Ok(true) => self.eval(then),
                Ok(false) => self.eval(otherwise),
                Err(e) => Err(e),
            },
            NodeKind::Bin(op, a, b) => self.bin(*op, a, b, n),
            NodeKind::Chain(first, rest) => self.chain(first, rest, n),
            NodeKind::Index(s, i) => self.index(s, i, n),
            NodeKind::Slice(s, lo, hi) => self.slice(s, lo.as_deref(), hi.as_deref()),
            NodeKind::Call(f, args) => self.call(*f, args, n),
        }
    }

    fn list(&mut self, items: &[Node]) -> R {
        Ok(Value::List(
            items
                .iter()
                .map(|i| self.eval(i))
                .collect::<Result<_, _>>()?,
        ))
    }

    fn derive(&mut self, name: &str, n: &Node) -> R {
        match self.env.derive(name)? {
            Some(v) => Ok(v),
            None => Err(self.err(
                ErrorKind::UnknownName,
                format!("unknown name `{name}` (not a derive entry)"),
                n,
            )),
        }
    }

    fn path(&mut self, p: &[String], n: &Node) -> R {
        self.env.path(p).map_err(|(k, m)| self.err(k, m, n))
    }

    fn neg(&mut self, x: &Node, n: &Node) -> R {
        match self.eval(x)? {
            Value::Int(v) => v
                .checked_neg()
                .map(Value::Int)
                .ok_or_else(|| self.err(ErrorKind::Overflow, "integer overflow", n)),
            Value::Float(v) => Ok(Value::Float(-v)),
            v => Err(self.type_err(format!("unary `-` needs a number, got {} {v}", v.kind()), x)),
        }
    }

    /// `a and b` (`is_and`) or `a or b`, lazily.
    fn and_or(&mut self, is_and: bool, a: &Node, b: &Node) -> R {
        let what = if is_and { "`and`" } else { "`or`" };
        if self.bool_of(a, what)? != is_and {
            return Ok(Value::Bool(!is_and));
        }
        self.bool_of(b, what).map(Value::Bool)
    }

    fn bin(&mut self, op: BinOp, a: &Node, b: &Node, n: &Node) -> R {
        let l = self.eval(a)?;
        let r = self.eval(b)?;
        self.binary(op, l, r, n)
    }

    fn chain(&mut self, first: &Node, rest: &[(BinOp, Node)], n: &Node) -> R {
        let mut l = self.eval(first)?;
        let mut start = first.span.start;
        for (op, rn) in rest {
            let r = self.eval(rn)?;
            // An error names the one comparison that failed (`b < "x"` of `a < b < "x"`).
            let holds = self.binary(*op, l, r.clone(), n).map_err(|mut e| {
                e.span = start..rn.span.end;
                e
            })?;
            if holds != Value::Bool(true) {
                return Ok(Value::Bool(false));
            }
            l = r;
            start = rn.span.start;
        }
        Ok(Value::Bool(true))
    }

    fn index(&mut self, s: &Node, i: &Node, n: &Node) -> R {
        let seq = self.eval(s)?;
        let idx = self.int_of(i, "a subscript")?;
        match seq {
            Value::List(l) => {
                let k = norm_index(idx, l.len()).ok_or_else(|| {
                    self.err(
                        ErrorKind::IndexOutOfRange,
                        format!("index {idx} out of range for a list of length {}", l.len()),
                        n,
                    )
                })?;
                Ok(l[k].clone())
            }
            Value::Str(st) => {
                let chars: Vec<char> = st.chars().collect();
                let k = norm_index(idx, chars.len()).ok_or_else(|| {
                    self.err(
                        ErrorKind::IndexOutOfRange,
                        format!(
                            "index {idx} out of range for a string of length {}",
                            chars.len()
                        ),
                        n,
                    )
                })?;
                Ok(Value::Str(chars[k].to_string()))
            }
            v => Err(self.type_err(format!("cannot subscript {} {v}", v.kind()), s)),
        }
    }

    fn slice(&mut self, s: &Node, lo: Option<&Node>, hi: Option<&Node>) -> R {
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

    fn binary(&self, op: BinOp, l: Value, r: Value, n: &Node) -> R {
        use Value::*;
        let sym = op.symbol();
        match op {
            BinOp::Eq | BinOp::Ne => {
                let eq = values_equal(&l, &r).ok_or_else(|| {
                    self.type_err(
                        format!("cannot compare {} {l} {sym} {} {r}", l.kind(), r.kind()),
                        n,
                    )
                })?;
                Ok(Bool(eq == (op == BinOp::Eq)))
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let ord = values_order(&l, &r).ok_or_else(|| {
                    self.type_err(
                        format!("cannot order {} {l} {sym} {} {r}", l.kind(), r.kind()),
                        n,
                    )
                })?;
                Ok(Bool(match op {
                    BinOp::Lt => ord == Ordering::Less,
                    BinOp::Le => ord != Ordering::Greater,
                    BinOp::Gt => ord == Ordering::Greater,
                    _ => ord != Ordering::Less,
                }))
            }
            _ => {
                let overflow = || {
                    self.err(
                        ErrorKind::Overflow,
                        format!("integer overflow in {l} {sym} {r}"),
                        n,
                    )
                };
                match (&l, &r) {
                    (Int(a), Int(b)) => {
                        let (a, b) = (*a, *b);
                        let v = match op {
                            BinOp::Add => a.checked_add(b),
                            BinOp::Sub => a.checked_sub(b),
                            BinOp::Mul => a.checked_mul(b),
                            BinOp::Div | BinOp::Mod => {
                                if b == 0 {
                                    return Err(self.err(
                                        ErrorKind::DivisionByZero,
                                        format!("division by zero in {a} {sym} {b}"),
                                        n,
                                    ));
                                }
                                if op == BinOp::Div {
                                    floor_div(a, b)
                                } else {
                                    Some(floor_mod(a, b))
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
                                    return Err(self.err(
                                        ErrorKind::DivisionByZero,
                                        format!("division by zero in {l} {sym} {r}"),
                                        n,
                                    ));
                                }
                                if op == BinOp::Div {
                                    a / b
                                } else {
                                    // Python's float `%`: fmod, moved to the sign of the divisor.
                                    let m = a % b;
                                    if m == 0.0 {
                                        0.0f64.copysign(b)
                                    } else if (m < 0.0) != (b < 0.0) {
                                        m + b
                                    } else {
                                        m
                                    }
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
                    _ => Err(self.type_err(
                        format!(
                            "unsupported operands for `{sym}`: {} {l} and {} {r}",
                            l.kind(),
                            r.kind()
                        ),
                        n,
                    )),
                }
            }
        }
    }

    fn call(&mut self, f: Func, args: &[Node], n: &Node) -> R {
        let arity = |want: usize| -> Result<(), ExprError> {
            if args.len() != want {
                Err(ExprError::new(
                    ErrorKind::BadArgument,
                    format!(
                        "{}() takes {want} argument{}, got {}",
                        f.name(),
                        if want == 1 { "" } else { "s" },
                        args.len()
                    ),
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
                    let d = d.as_int().ok_or_else(|| {
                        bad(
                            self,
                            format!(
                                "numel() needs a list of ints, got {}",
                                Value::List(shape.clone())
                            ),
                        )
                    })?;
                    p = p.checked_mul(d).ok_or_else(|| {
                        self.err(ErrorKind::Overflow, "integer overflow in numel()", n)
                    })?;
                }
                Ok(Value::Int(p))
            }
            Func::Dim => {
                arity(2)?;
                let shape = self.list_of(&args[0], "dim()")?;
                let i = self.int_of(&args[1], "dim()")?;
                let k = norm_index(i, shape.len()).ok_or_else(|| {
                    self.err(
                        ErrorKind::IndexOutOfRange,
                        format!(
                            "dim(): axis {i} out of range for a shape of rank {}",
                            shape.len()
                        ),
                        n,
                    )
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
                Ok(Value::Bool(
                    values_equal(&Value::List(a), &Value::List(b)).unwrap_or(false),
                ))
            }
            Func::CeilDiv => {
                arity(2)?;
                let a = self.int_of(&args[0], "ceilDiv()")?;
                let b = self.int_of(&args[1], "ceilDiv()")?;
                if b == 0 {
                    return Err(self.err(
                        ErrorKind::DivisionByZero,
                        format!("division by zero in ceilDiv({a}, {b})"),
                        n,
                    ));
                }
                let q = floor_div(a, b).ok_or_else(|| {
                    self.err(ErrorKind::Overflow, "integer overflow in ceilDiv()", n)
                })?;
                Ok(Value::Int(if floor_mod(a, b) == 0 { q } else { q + 1 }))
            }
            Func::Min | Func::Max => {
                let vals: Vec<Value> = if args.len() == 1 {
                    self.list_of(&args[0], f.name())?
                } else {
                    args.iter()
                        .map(|a| self.eval(a))
                        .collect::<Result<_, _>>()?
                };
                let mut best: Option<Value> = None;
                for v in vals {
                    if !matches!(v, Value::Int(_) | Value::Float(_)) {
                        return Err(self.type_err(
                            format!("{}() needs numbers, got {} {v}", f.name(), v.kind()),
                            n,
                        ));
                    }
                    best = Some(match best {
                        None => v,
                        Some(b) => {
                            let ord = values_order(&v, &b).unwrap_or(Ordering::Equal);
                            let take = if f == Func::Min {
                                ord == Ordering::Less
                            } else {
                                ord == Ordering::Greater
                            };
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
                (x as u64)
                    .checked_next_power_of_two()
                    .filter(|p| *p <= i64::MAX as u64)
                    .map(|p| Value::Int(p as i64))
                    .ok_or_else(|| {
                        self.err(ErrorKind::Overflow, "integer overflow in pow2ceil()", n)
                    })
            }
            Func::F16Ok => {
                arity(1)?;
                let v = self.eval(&args[0])?;
                let dt = v.as_str().ok_or_else(|| {
                    self.type_err(
                        format!("f16Ok() needs a dtype string, got {} {v}", v.kind()),
                        &args[0],
                    )
                })?;
                Ok(Value::Bool(
                    dt != "float16" || self.env.has_feature("shader-f16"),
                ))
            }
            Func::HasFeature => {
                arity(1)?;
                let v = self.eval(&args[0])?;
                let name = v.as_str().ok_or_else(|| {
                    self.type_err(
                        format!(
                            "device.features.has() needs a feature name string, got {} {v}",
                            v.kind()
                        ),
                        &args[0],
                    )
                })?;
                Ok(Value::Bool(self.env.has_feature(name)))
            }
        }
    }
}

/// Floor division (Python's `//`); `None` on overflow (`i64::MIN / -1`). `b` must not be 0.
fn floor_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    // No overflow below: `a % b` is safe once `checked_div` passed, and a non-zero remainder
    // means |b| >= 2, so |q| < 2^62.
    Some(if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// Python's `%` on ints: the remainder takes the sign of the divisor. `b` must not be 0.
fn floor_mod(a: i64, b: i64) -> i64 {
    // `wrapping_rem` only wraps for `i64::MIN % -1`, whose remainder is 0 anyway; `r + b` cannot
    // overflow since `r` and `b` have opposite signs.
    let r = a.wrapping_rem(b);
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

/// Exact numeric ordering of two numbers (ints and floats mixed); `None` for NaN.
fn num_order(a: &Value, b: &Value) -> Option<Ordering> {
    use Value::*;
    match (a, b) {
        (Int(x), Int(y)) => Some(x.cmp(y)),
        (Float(x), Float(y)) => x.partial_cmp(y),
        (Int(x), Float(y)) => int_float_order(*x, *y),
        (Float(x), Int(y)) => int_float_order(*y, *x).map(Ordering::reverse),
        _ => None,
    }
}

/// Orders an int against a float without rounding the int (`2^53 + 1 > 2^53 as f64`).
fn int_float_order(i: i64, f: f64) -> Option<Ordering> {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() {
        return None;
    }
    if f >= TWO_63 {
        return Some(Ordering::Less);
    }
    if f < -TWO_63 {
        return Some(Ordering::Greater);
    }
    // `t` is an integer in [-2^63, 2^63), so the cast is exact.
    let t = f.trunc();
    Some(
        i.cmp(&(t as i64))
            .then_with(|| 0.0f64.partial_cmp(&(f - t)).unwrap_or(Ordering::Equal)),
    )
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
        (Int(_) | Float(_), Int(_) | Float(_)) => num_order(a, b) == Some(Ordering::Equal),
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
        (Int(_) | Float(_), Int(_) | Float(_)) => num_order(a, b),
        (Str(x), Str(y)) => Some(x.cmp(y)),
        _ => None,
    }
}
