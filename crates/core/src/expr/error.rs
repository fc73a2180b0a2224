//! Errors of the expression language: they quote the expression and point at the failing
//! sub-term, and carry the chain of derive entries / manifest places that led there.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text is not a valid expression.
    Syntax,
    /// A name that is neither a derive entry nor a namespace member.
    UnknownName,
    /// `shapes`/`ranks`/`tensorDtypes` of a tensor that is not present.
    AbsentTensor,
    /// Subscript out of range.
    IndexOutOfRange,
    /// Division or modulo by zero.
    DivisionByZero,
    /// An operand of the wrong kind (`1 + "a"`, `not 3`, ...).
    TypeMismatch,
    /// Integer overflow.
    Overflow,
    /// A function called with the wrong number or kind of arguments, or out of its domain.
    BadArgument,
    /// A derive entry that depends on itself.
    Cycle,
}

/// An error parsing or evaluating an expression.
#[derive(Clone, Debug)]
pub struct ExprError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// One line on what went wrong.
    pub message: String,
    /// The whole expression text.
    pub source: Arc<str>,
    /// Byte range of the failing sub-term within `source`.
    pub span: Range<usize>,
    /// Where the expression sits, innermost first: the derive entry that failed, then the derive
    /// entries or manifest places (`when[0]`, `dispatch.x`) that needed it.
    pub context: Vec<String>,
}

impl ExprError {
    /// Creates an error for `span` of `source`.
    pub fn new(
        kind: ErrorKind,
        message: impl Into<String>,
        source: &Arc<str>,
        span: Range<usize>,
    ) -> ExprError {
        ExprError {
            kind,
            message: message.into(),
            source: source.clone(),
            span,
            context: Vec::new(),
        }
    }
    /// Adds the place the failing expression was needed from (outermost last).
    pub fn within(mut self, place: impl Into<String>) -> ExprError {
        self.context.push(place.into());
        self
    }
    /// The failing sub-term's text.
    pub fn term(&self) -> &str {
        self.source.get(self.span.clone()).unwrap_or("")
    }
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.context.split_first() {
            Some((first, rest)) => {
                write!(f, "in {first}")?;
                if !rest.is_empty() {
                    write!(f, " (needed by {})", rest.join(" <- "))?;
                }
                write!(f, ": {}", self.message)?;
            }
            None => write!(f, "{}", self.message)?,
        }
        // Quote the expression on one line with a caret line under the failing term.
        let src: String = self
            .source
            .chars()
            .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
            .collect();
        let start = self.span.start.min(src.len());
        let end = self.span.end.clamp(start, src.len());
        let pad = src.get(..start).map(|s| s.chars().count()).unwrap_or(0);
        let width = src
            .get(start..end)
            .map(|s| s.chars().count())
            .unwrap_or(0)
            .max(1);
        write!(
            f,
            "\n    {src}\n    {}{}",
            " ".repeat(pad),
            "^".repeat(width)
        )
    }
}

impl std::error::Error for ExprError {}
