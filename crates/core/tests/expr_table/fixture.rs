//! The fixture files `tests/fixtures/expr/*.txt`: reading them, and the expected values and
//! errors they hold.

use super::{b, f, i, lv, s};
use nbits_mlp_core::expr::{ErrorKind, Value};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// One case of a fixture file.
pub struct Case {
    /// `file:line`, for messages.
    pub at: String,
    /// The expression.
    pub src: String,
    /// What follows ` => `.
    pub want: String,
}

/// The cases of `tests/fixtures/expr/<name>`, by table (`""` before the first `[table]` line).
fn fixture(name: &str) -> Vec<(String, Vec<Case>)> {
    let path = format!("{}/tests/fixtures/expr/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut tables: Vec<(String, Vec<Case>)> = vec![(String::new(), Vec::new())];
    for (n, line) in text.lines().enumerate() {
        let at = format!("tests/fixtures/expr/{name}:{}", n + 1);
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match line.rfind(" => ") {
            Some(k) => tables.last_mut().unwrap().1.push(Case {
                at,
                src: line[..k].trim().to_string(),
                want: line[k + 4..].trim().to_string(),
            }),
            None => {
                let table = trimmed
                    .strip_prefix('[')
                    .and_then(|t| t.strip_suffix(']'))
                    .unwrap_or_else(|| panic!("{at}: neither `EXPRESSION => ...` nor `[table]`"));
                tables.push((table.to_string(), Vec::new()));
            }
        }
    }
    tables.retain(|(name, cases)| !name.is_empty() || !cases.is_empty());
    tables
}

/// The value a fixture's JSON stands for (integers are Ints, other numbers Floats).
fn value_of(json: &serde_json::Value) -> Result<Value, String> {
    Ok(match json {
        serde_json::Value::Bool(v) => b(*v),
        serde_json::Value::Number(n) if n.is_i64() => i(n.as_i64().unwrap()),
        serde_json::Value::Number(n) if n.is_f64() => f(n.as_f64().unwrap()),
        serde_json::Value::String(v) => s(v),
        serde_json::Value::Array(items) => {
            lv(items.iter().map(value_of).collect::<Result<_, _>>()?)
        }
        other => return Err(format!("no expression value is written `{other}`")),
    })
}

/// The cases of `values.txt`'s table `table`, with their expected values.
pub fn values_table(table: &str) -> Vec<(Case, Value)> {
    static TABLES: OnceLock<Vec<(String, Vec<Case>)>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| fixture("values.txt"));
    let (_, cases) = tables
        .iter()
        .find(|(name, _)| name == table)
        .unwrap_or_else(|| panic!("no table [{table}] in values.txt"));
    assert!(!cases.is_empty(), "table [{table}] is empty");
    cases
        .iter()
        .map(|c| {
            let want = serde_json::from_str(&c.want)
                .map_err(|e| e.to_string())
                .and_then(|j| value_of(&j))
                .unwrap_or_else(|e| panic!("{}: {}: {e}", c.at, c.want));
            (
                Case {
                    at: c.at.clone(),
                    src: c.src.clone(),
                    want: c.want.clone(),
                },
                want,
            )
        })
        .collect()
}

/// The tables of `values.txt` the tests below run; a table no test runs is an error.
const VALUE_TABLES: &[&str] = &[
    "literals",
    "arithmetic",
    "precedence",
    "comparisons",
    "lists_subscripts_slices",
    "builtins",
    "builtins_with_shader_f16",
    "namespaces",
    "laziness",
];

#[test]
fn every_values_table_is_run() {
    let in_file: BTreeSet<String> = fixture("values.txt").into_iter().map(|t| t.0).collect();
    let run: BTreeSet<String> = VALUE_TABLES.iter().map(|t| t.to_string()).collect();
    assert_eq!(in_file, run);
}

/// `(expression, kind, failing sub-term)` of every case of `errors.txt`, with where it is.
pub fn error_cases() -> Vec<(String, String, ErrorKind, String)> {
    const KINDS: &[ErrorKind] = &[
        ErrorKind::Syntax,
        ErrorKind::UnknownName,
        ErrorKind::AbsentTensor,
        ErrorKind::IndexOutOfRange,
        ErrorKind::DivisionByZero,
        ErrorKind::TypeMismatch,
        ErrorKind::Overflow,
        ErrorKind::BadArgument,
    ];
    let tables = fixture("errors.txt");
    assert_eq!(tables.len(), 1, "errors.txt has no tables");
    let mut out = Vec::new();
    for c in &tables[0].1 {
        let parsed = c.want.split_once(" at `").and_then(|(kind, term)| {
            let kind = KINDS.iter().find(|k| format!("{k:?}") == kind)?;
            Some((*kind, term.strip_suffix('`')?.to_string()))
        });
        let (kind, term) =
            parsed.unwrap_or_else(|| panic!("{}: `{}` is not KIND at `TERM`", c.at, c.want));
        out.push((c.at.clone(), c.src.clone(), kind, term));
    }
    // Every kind a caller can get from the language itself is covered by the table.
    for kind in KINDS {
        assert!(out.iter().any(|e| e.2 == *kind), "{kind:?} not covered");
    }
    out
}
