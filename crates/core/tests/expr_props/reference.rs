//! The reference evaluator: written from the spec over the generated tree, with i128
//! arithmetic.

use crate::tree::{Arith, Cmp, T, VARS};
use nbits_mlp_core::expr::{ErrorKind, Value};

#[derive(Clone, Debug, PartialEq)]
pub enum R {
    I(i64),
    B(bool),
    L(Vec<R>),
}

impl R {
    pub fn to_value(&self) -> Value {
        match self {
            R::I(v) => Value::Int(*v),
            R::B(v) => Value::Bool(*v),
            R::L(v) => Value::List(v.iter().map(R::to_value).collect()),
        }
    }
    pub fn from_value(v: &Value) -> R {
        match v {
            Value::Int(v) => R::I(*v),
            Value::Bool(v) => R::B(*v),
            Value::List(v) => R::L(v.iter().map(R::from_value).collect()),
            other => panic!("the generated language has no {other:?}"),
        }
    }
}

pub type Res = Result<R, ErrorKind>;

pub fn fits(v: i128) -> Result<R, ErrorKind> {
    i64::try_from(v).map(R::I).map_err(|_| ErrorKind::Overflow)
}

/// Python's floor division and modulo, in i128.
pub fn py_divmod(a: i128, b: i128) -> (i128, i128) {
    let mut q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q -= 1;
    }
    (q, a - q * b)
}

pub fn eq(a: &R, b: &R) -> Option<bool> {
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

pub fn compare(o: Cmp, a: &R, b: &R) -> Result<bool, ErrorKind> {
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

pub fn as_bool(r: R) -> Result<bool, ErrorKind> {
    match r {
        R::B(b) => Ok(b),
        _ => Err(ErrorKind::TypeMismatch),
    }
}

pub fn as_int(r: R) -> Result<i64, ErrorKind> {
    match r {
        R::I(v) => Ok(v),
        _ => Err(ErrorKind::TypeMismatch),
    }
}

pub fn reference(t: &T) -> Res {
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
