//! Lexer and recursive-descent parser.
//!
//! Precedence, lowest first: `x if c else y`; `or`; `and`; `not`; comparisons (chainable);
//! `+ -`; `* / %`; unary `-`; postfix calls, subscripts, slices and member access.

use super::ast::{BinOp, Func, Node, NodeKind, NAMESPACES};
use super::error::{ErrorKind, ExprError};
use std::ops::Range;
use std::sync::Arc;

/// Deepest nesting accepted (brackets, parentheses, call arguments, subscripts, `if`-`else`,
/// `not`, unary `-`), so hostile input cannot overflow the stack. Each level of brackets costs
/// the parser about ten frames, some 30 KiB in an unoptimised build: 32 levels fit well within
/// the 2 MiB stack of a test thread.
const MAX_DEPTH: usize = 32;

/// Tallest tree that a left-associative chain (`1 + 1 + ...`, `a and b and ...`, `s[0][0]...`) may
/// build. Such chains are parsed in loops, not by recursion, so `MAX_DEPTH` does not bound them;
/// but evaluating, cloning, comparing or dropping a tree recurses over its height. (A whole tree
/// is at most about `3 * MAX_DEPTH + MAX_HEIGHT` tall.)
const MAX_HEIGHT: usize = 128;

/// The height of a tree (1 for a leaf).
fn height(n: &Node) -> usize {
    1 + match &n.kind {
        NodeKind::Int(_)
        | NodeKind::Float(_)
        | NodeKind::Bool(_)
        | NodeKind::Str(_)
        | NodeKind::Derive(_)
        | NodeKind::Path(_) => 0,
        NodeKind::List(v) | NodeKind::Call(_, v) => v.iter().map(height).max().unwrap_or(0),
        NodeKind::Neg(a) | NodeKind::Not(a) => height(a),
        NodeKind::And(a, b)
        | NodeKind::Or(a, b)
        | NodeKind::Bin(_, a, b)
        | NodeKind::Index(a, b) => height(a).max(height(b)),
        NodeKind::IfElse {
            then,
            cond,
            otherwise,
        } => height(then).max(height(cond)).max(height(otherwise)),
        NodeKind::Chain(a, rest) => rest
            .iter()
            .map(|(_, r)| height(r))
            .fold(height(a), usize::max),
        NodeKind::Slice(a, lo, hi) => lo
            .iter()
            .chain(hi.iter())
            .map(|x| height(x))
            .fold(height(a), usize::max),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(i64),
    Float(f64),
    Str(String),
    Ident(String),
    Punct(&'static str),
    End,
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    text: &'a Arc<str>,
}

const PUNCTS: &[&str] = &[
    "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%", "(", ")", "[", "]", ",", ".", ":",
];

impl<'a> Lexer<'a> {
    fn err(&self, msg: impl Into<String>, span: Range<usize>) -> ExprError {
        ExprError::new(ErrorKind::Syntax, msg, self.text, span)
    }

    fn tokens(mut self) -> Result<Vec<(Tok, Range<usize>)>, ExprError> {
        let mut out = Vec::new();
        let bytes = self.src.as_bytes();
        loop {
            while self.pos < bytes.len() && (bytes[self.pos] as char).is_ascii_whitespace() {
                self.pos += 1;
            }
            let start = self.pos;
            if self.pos >= bytes.len() {
                out.push((Tok::End, start..start));
                return Ok(out);
            }
            let c = bytes[self.pos] as char;
            if c.is_ascii_digit()
                || (c == '.' && bytes.get(self.pos + 1).is_some_and(|b| b.is_ascii_digit()))
            {
                let mut end = self.pos;
                let mut is_float = false;
                while end < bytes.len() && bytes[end].is_ascii_digit() {
                    end += 1;
                }
                if end < bytes.len() && bytes[end] == b'.' {
                    is_float = true;
                    end += 1;
                    while end < bytes.len() && bytes[end].is_ascii_digit() {
                        end += 1;
                    }
                }
                if end < bytes.len() && (bytes[end] == b'e' || bytes[end] == b'E') {
                    let mut e = end + 1;
                    if e < bytes.len() && (bytes[e] == b'+' || bytes[e] == b'-') {
                        e += 1;
                    }
                    if e < bytes.len() && bytes[e].is_ascii_digit() {
                        while e < bytes.len() && bytes[e].is_ascii_digit() {
                            e += 1;
                        }
                        is_float = true;
                        end = e;
                    }
                }
                let text = &self.src[start..end];
                let tok = if is_float {
                    Tok::Float(
                        text.parse()
                            .map_err(|_| self.err(format!("bad number `{text}`"), start..end))?,
                    )
                } else {
                    Tok::Int(text.parse().map_err(|_| {
                        self.err(
                            format!("integer `{text}` does not fit in 64 bits"),
                            start..end,
                        )
                    })?)
                };
                if end < bytes.len()
                    && ((bytes[end] as char).is_ascii_alphanumeric() || bytes[end] == b'_')
                {
                    return Err(self.err("a number runs into a name", start..end + 1));
                }
                self.pos = end;
                out.push((tok, start..end));
            } else if c.is_ascii_alphabetic() || c == '_' {
                let mut end = self.pos;
                while end < bytes.len()
                    && ((bytes[end] as char).is_ascii_alphanumeric() || bytes[end] == b'_')
                {
                    end += 1;
                }
                out.push((Tok::Ident(self.src[start..end].to_string()), start..end));
                self.pos = end;
            } else if c == '"' || c == '\'' {
                let mut s = String::new();
                let mut chars = self.src[self.pos + 1..].char_indices();
                let mut closed = None;
                while let Some((i, ch)) = chars.next() {
                    if ch == c {
                        closed = Some(self.pos + 1 + i + 1);
                        break;
                    }
                    if ch == '\\' {
                        match chars.next() {
                            Some((_, 'n')) => s.push('\n'),
                            Some((_, 't')) => s.push('\t'),
                            Some((_, e)) => s.push(e),
                            None => break,
                        }
                    } else {
                        s.push(ch);
                    }
                }
                match closed {
                    Some(end) => {
                        out.push((Tok::Str(s), start..end));
                        self.pos = end;
                    }
                    None => return Err(self.err("unterminated string", start..self.src.len())),
                }
            } else if let Some(p) = PUNCTS
                .iter()
                .find(|p| self.src[self.pos..].starts_with(**p))
            {
                self.pos += p.len();
                out.push((Tok::Punct(p), start..self.pos));
            } else {
                let ch = self.src[self.pos..].chars().next().unwrap_or('?');
                return Err(self.err(
                    format!("unexpected character `{ch}`"),
                    start..start + ch.len_utf8(),
                ));
            }
        }
    }
}

struct Parser<'a> {
    toks: Vec<(Tok, Range<usize>)>,
    i: usize,
    text: &'a Arc<str>,
    depth: usize,
}

fn node(kind: NodeKind, span: Range<usize>) -> Node {
    Node { kind, span }
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok {
        &self.toks[self.i].0
    }
    fn span(&self) -> Range<usize> {
        self.toks[self.i].1.clone()
    }
    fn bump(&mut self) -> (Tok, Range<usize>) {
        let t = self.toks[self.i].clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }
    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }
    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Tok::Ident(q) if q == k)
    }
    fn err(&self, msg: impl Into<String>, span: Range<usize>) -> ExprError {
        ExprError::new(ErrorKind::Syntax, msg, self.text, span)
    }
    fn expect(&mut self, p: &str) -> Result<Range<usize>, ExprError> {
        if self.is_punct(p) {
            Ok(self.bump().1)
        } else {
            Err(self.err(
                format!("expected `{p}`, found {}", self.describe()),
                self.span(),
            ))
        }
    }
    fn describe(&self) -> String {
        match self.peek() {
            Tok::End => "end of expression".into(),
            Tok::Int(v) => format!("`{v}`"),
            Tok::Float(v) => format!("`{v}`"),
            Tok::Str(s) => format!("{s:?}"),
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Punct(p) => format!("`{p}`"),
        }
    }
    /// Checks the height of a node about to be built in a loop on top of `l` (whose height is
    /// `*h`, computed on first use) and `others`, and records it in `*h`.
    fn grow(
        &self,
        h: &mut Option<usize>,
        l: &Node,
        others: &[&Node],
        at: Range<usize>,
    ) -> Result<(), ExprError> {
        let new = 1 + others
            .iter()
            .map(|n| height(n))
            .fold(h.unwrap_or_else(|| height(l)), usize::max);
        if new > MAX_HEIGHT {
            return Err(self.err("expression nested too deeply", at));
        }
        *h = Some(new);
        Ok(())
    }
    fn enter(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("expression nested too deeply", self.span()));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Node, ExprError> {
        self.enter()?;
        let then = self.or()?;
        let r = if self.is_kw("if") {
            self.bump();
            let cond = self.or()?;
            if !self.is_kw("else") {
                return Err(self.err(
                    format!("expected `else`, found {}", self.describe()),
                    self.span(),
                ));
            }
            self.bump();
            let otherwise = self.expr()?;
            let span = then.span.start..otherwise.span.end;
            node(
                NodeKind::IfElse {
                    then: Box::new(then),
                    cond: Box::new(cond),
                    otherwise: Box::new(otherwise),
                },
                span,
            )
        } else {
            then
        };
        self.depth -= 1;
        Ok(r)
    }
    fn or(&mut self) -> Result<Node, ExprError> {
        let mut l = self.and()?;
        let mut h = None;
        while self.is_kw("or") {
            let at = self.bump().1;
            let r = self.and()?;
            self.grow(&mut h, &l, &[&r], at)?;
            let span = l.span.start..r.span.end;
            l = node(NodeKind::Or(Box::new(l), Box::new(r)), span);
        }
        Ok(l)
    }
    fn and(&mut self) -> Result<Node, ExprError> {
        let mut l = self.not()?;
        let mut h = None;
        while self.is_kw("and") {
            let at = self.bump().1;
            let r = self.not()?;
            self.grow(&mut h, &l, &[&r], at)?;
            let span = l.span.start..r.span.end;
            l = node(NodeKind::And(Box::new(l), Box::new(r)), span);
        }
        Ok(l)
    }
    fn not(&mut self) -> Result<Node, ExprError> {
        if self.is_kw("not") {
            self.enter()?;
            let start = self.bump().1.start;
            let inner = self.not()?;
            self.depth -= 1;
            let span = start..inner.span.end;
            return Ok(node(NodeKind::Not(Box::new(inner)), span));
        }
        self.comparison()
    }
    fn cmp_op(&self) -> Option<BinOp> {
        match self.peek() {
            Tok::Punct("==") => Some(BinOp::Eq),
            Tok::Punct("!=") => Some(BinOp::Ne),
            Tok::Punct("<") => Some(BinOp::Lt),
            Tok::Punct("<=") => Some(BinOp::Le),
            Tok::Punct(">") => Some(BinOp::Gt),
            Tok::Punct(">=") => Some(BinOp::Ge),
            _ => None,
        }
    }
    fn comparison(&mut self) -> Result<Node, ExprError> {
        let first = self.additive()?;
        let mut rest = Vec::new();
        while let Some(op) = self.cmp_op() {
            self.bump();
            rest.push((op, self.additive()?));
        }
        Ok(match rest.len() {
            0 => first,
            1 => {
                let (op, r) = rest.pop().expect("one element");
                let span = first.span.start..r.span.end;
                node(NodeKind::Bin(op, Box::new(first), Box::new(r)), span)
            }
            _ => {
                let span = first.span.start..rest.last().expect("non-empty").1.span.end;
                node(NodeKind::Chain(Box::new(first), rest), span)
            }
        })
    }
    fn additive(&mut self) -> Result<Node, ExprError> {
        let mut l = self.multiplicative()?;
        let mut h = None;
        loop {
            let op = match self.peek() {
                Tok::Punct("+") => BinOp::Add,
                Tok::Punct("-") => BinOp::Sub,
                _ => return Ok(l),
            };
            let at = self.bump().1;
            let r = self.multiplicative()?;
            self.grow(&mut h, &l, &[&r], at)?;
            let span = l.span.start..r.span.end;
            l = node(NodeKind::Bin(op, Box::new(l), Box::new(r)), span);
        }
    }
    fn multiplicative(&mut self) -> Result<Node, ExprError> {
        let mut l = self.unary()?;
        let mut h = None;
        loop {
            let op = match self.peek() {
                Tok::Punct("*") => BinOp::Mul,
                Tok::Punct("/") => BinOp::Div,
                Tok::Punct("%") => BinOp::Mod,
                _ => return Ok(l),
            };
            let at = self.bump().1;
            let r = self.unary()?;
            self.grow(&mut h, &l, &[&r], at)?;
            let span = l.span.start..r.span.end;
            l = node(NodeKind::Bin(op, Box::new(l), Box::new(r)), span);
        }
    }
    fn unary(&mut self) -> Result<Node, ExprError> {
        if self.is_punct("-") {
            self.enter()?;
            let start = self.bump().1.start;
            let inner = self.unary()?;
            self.depth -= 1;
            let span = start..inner.span.end;
            return Ok(node(NodeKind::Neg(Box::new(inner)), span));
        }
        self.postfix()
    }
    fn postfix(&mut self) -> Result<Node, ExprError> {
        let mut n = self.primary()?;
        let mut h = None;
        loop {
            if self.is_punct(".") {
                self.bump();
                let (tok, span) = self.bump();
                let Tok::Ident(member) = tok else {
                    return Err(self.err("expected a member name after `.`", span));
                };
                let full = n.span.start..span.end;
                n = match n.kind {
                    NodeKind::Path(mut p) => {
                        p.push(member);
                        node(NodeKind::Path(p), full)
                    }
                    _ => {
                        return Err(self.err(
                            format!(
                                "member access `.{member}` is only allowed on a namespace ({})",
                                NAMESPACES.join(", ")
                            ),
                            full,
                        ))
                    }
                };
            } else if self.is_punct("(") {
                self.bump();
                let args = self.args(")")?;
                let end = self.expect(")")?.end;
                let full = n.span.start..end;
                let func = match &n.kind {
                    NodeKind::Derive(name) => Func::by_name(name).ok_or_else(|| {
                        self.err(format!("unknown function `{name}`"), n.span.clone())
                    })?,
                    NodeKind::Path(p)
                        if p.len() == 3
                            && p[0] == "device"
                            && p[1] == "features"
                            && p[2] == "has" =>
                    {
                        Func::HasFeature
                    }
                    _ => {
                        return Err(self.err(
                            "only built-in functions and device.features.has can be called",
                            n.span.clone(),
                        ))
                    }
                };
                n = node(NodeKind::Call(func, args), full);
                h = None;
            } else if self.is_punct("[") {
                let at = self.bump().1;
                let lo = if self.is_punct(":") {
                    None
                } else {
                    Some(Box::new(self.expr()?))
                };
                if self.is_punct(":") {
                    self.bump();
                    let hi = if self.is_punct("]") {
                        None
                    } else {
                        Some(Box::new(self.expr()?))
                    };
                    let end = self.expect("]")?.end;
                    let full = n.span.start..end;
                    let bounds: Vec<&Node> = lo.iter().chain(hi.iter()).map(|b| &**b).collect();
                    self.grow(&mut h, &n, &bounds, at)?;
                    n = node(NodeKind::Slice(Box::new(n), lo, hi), full);
                } else {
                    let end = self.expect("]")?.end;
                    let full = n.span.start..end;
                    let idx = lo.ok_or_else(|| self.err("empty subscript", full.clone()))?;
                    self.grow(&mut h, &n, &[&idx], at)?;
                    n = node(NodeKind::Index(Box::new(n), idx), full);
                }
            } else {
                return Ok(n);
            }
        }
    }
    fn args(&mut self, close: &str) -> Result<Vec<Node>, ExprError> {
        let mut args = Vec::new();
        while !self.is_punct(close) {
            args.push(self.expr()?);
            if self.is_punct(",") {
                self.bump();
            } else if !self.is_punct(close) {
                return Err(self.err(
                    format!("expected `,` or `{close}`, found {}", self.describe()),
                    self.span(),
                ));
            }
        }
        Ok(args)
    }
    fn primary(&mut self) -> Result<Node, ExprError> {
        let (tok, span) = self.bump();
        Ok(match tok {
            Tok::Int(v) => node(NodeKind::Int(v), span),
            Tok::Float(v) => node(NodeKind::Float(v), span),
            Tok::Str(s) => node(NodeKind::Str(s), span),
            Tok::Ident(name) => match name.as_str() {
                "true" => node(NodeKind::Bool(true), span),
                "false" => node(NodeKind::Bool(false), span),
                "and" | "or" | "not" | "if" | "else" => {
                    return Err(self.err(format!("unexpected keyword `{name}`"), span))
                }
                _ if NAMESPACES.contains(&name.as_str()) => node(NodeKind::Path(vec![name]), span),
                _ => node(NodeKind::Derive(name), span),
            },
            Tok::Punct("(") => {
                let mut inner = self.expr()?;
                let end = self.expect(")")?.end;
                // The term spans its parentheses, so a term built on it (`(a + b) * c`) quotes
                // them all.
                inner.span = span.start..end;
                inner
            }
            Tok::Punct("[") => {
                let items = self.args("]")?;
                let end = self.expect("]")?.end;
                node(NodeKind::List(items), span.start..end)
            }
            Tok::End => return Err(self.err("unexpected end of expression", span)),
            Tok::Punct(p) => return Err(self.err(format!("unexpected `{p}`"), span)),
        })
    }
}

/// Parses `text` into a tree. `text` is the shared source the errors quote.
pub(crate) fn parse(text: &Arc<str>) -> Result<Node, ExprError> {
    let toks = Lexer {
        src: text,
        pos: 0,
        text,
    }
    .tokens()?;
    let mut p = Parser {
        toks,
        i: 0,
        text,
        depth: 0,
    };
    let n = p.expr()?;
    if *p.peek() != Tok::End {
        return Err(p.err(
            format!("unexpected {} after the expression", p.describe()),
            p.span(),
        ));
    }
    Ok(n)
}
