//! Deep nesting: an error, not a stack overflow; the deepest accepted expressions work.

use super::{b, env, eval_in, i, l, lv};
use nbits_mlp_core::expr::{ErrorKind, Expr, Value};

/// Runs `f` on a thread with a 2 MiB stack (what `cargo test` gives each test by default, made
/// explicit so a larger `RUST_MIN_STACK` cannot hide an overflow).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// Shapes of deep input: each maps a count to an expression nested (or chained) that many times.
type Pattern = (&'static str, fn(usize) -> String);

fn deep_patterns() -> Vec<Pattern> {
    vec![
        ("parens", |k| format!("{}1{}", "(".repeat(k), ")".repeat(k))),
        ("lists", |k| format!("{}1{}", "[".repeat(k), "]".repeat(k))),
        ("negations", |k| format!("{}1", "-".repeat(k))),
        ("spaced negations", |k| format!("{}1", "- ".repeat(k))),
        ("nots", |k| format!("{}true", "not ".repeat(k))),
        ("if-else", |k| format!("{}1", "1 if true else ".repeat(k))),
        ("if-else conditions", |k| {
            format!("{}true{}", "(true if ".repeat(k), " else false)".repeat(k))
        }),
        ("subscripts", |k| {
            format!("{}0{}", "sh[0 * ".repeat(k), "]".repeat(k))
        }),
        ("calls", |k| {
            format!("{}1{}", "numel([".repeat(k), "])".repeat(k))
        }),
        ("calls 2", |k| {
            format!("{}1{}", "max(0, ".repeat(k), ")".repeat(k))
        }),
        ("slice bounds", |k| {
            format!("{}0{}", "numel(sh[:".repeat(k), "])".repeat(k))
        }),
        ("right-nested sums", |k| {
            format!("1{}{}", " + (1".repeat(k), ")".repeat(k))
        }),
        ("left-nested sums", |k| {
            format!("{}1{}", "(1 + ".repeat(k), ")".repeat(k))
        }),
        ("sum then parens", |k| {
            format!("{}1{}", "(".repeat(k), " + 1)".repeat(k))
        }),
        ("mixed", |k| {
            format!("{}1{}", "[-(-(".repeat(k), "))][0]".repeat(k))
        }),
        // Left-associative chains build deep trees without deep parser recursion.
        ("sum chain", |k| format!("1{}", " + 1".repeat(k))),
        ("product chain", |k| format!("1{}", " * 1".repeat(k))),
        ("difference chain", |k| format!("1{}", " - 1".repeat(k))),
        ("and chain", |k| format!("true{}", " and true".repeat(k))),
        ("or chain", |k| format!("false{}", " or false".repeat(k))),
        ("subscript chain", |k| {
            format!("{}0{}{}", "[".repeat(k), "]".repeat(k), "[0]".repeat(k))
        }),
        ("slice chain", |k| format!("sh{}", "[:]".repeat(k))),
        ("call subscript chain", |k| {
            format!("prefix(sh, 3){}", "[1:][0:]".repeat(k))
        }),
        ("chains in parens", |k| {
            format!("{}1{}", "(".repeat(k), " + 1 + 1)".repeat(k))
        }),
        // Calls, conditionals and comparisons at every level, a long chain at the bottom: the
        // tallest trees the parser lets through.
        ("combined", |k| {
            format!(
                "{}1{}{}",
                "max(0, 1 if 0 < ".repeat(k),
                " + 1".repeat(120),
                " else 0)".repeat(k)
            )
        }),
        ("negated sum chain", |k| {
            format!("{}(1{})", "-(".repeat(k), " + 1".repeat(k) + &")".repeat(k))
        }),
    ]
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for (name, pattern) in deep_patterns() {
        // 100000 levels for the brief's `(((...`; fewer for the rest, to keep the test quick.
        let n = if name == "parens" { 100_000 } else { 20_000 };
        let err = on_small_stack(move || Expr::parse(&pattern(n)).map(|_| ())).expect_err(name);
        assert_eq!(err.kind, ErrorKind::Syntax, "{name}");
        assert!(
            err.message.contains("nested too deeply"),
            "{name}: {}",
            err.message
        );
        // The caret line points into the text.
        assert!(err.span.start < err.source.len(), "{name}");
    }
    // A flat comparison chain or a long flat list is not deep: it parses and evaluates.
    let chain = format!("0 < 1{}", " <= 1".repeat(100_000));
    assert_eq!(
        on_small_stack(move || eval_in(&chain, &mut env()).unwrap()),
        b(true)
    );
    let list = format!("numel([{}])", "1, ".repeat(100_000));
    assert_eq!(
        on_small_stack(move || eval_in(&list, &mut env()).unwrap()),
        i(1)
    );
}

#[test]
fn deepest_accepted_expressions_evaluate_clone_and_drop() {
    for (name, pattern) in deep_patterns() {
        let (k, value) = on_small_stack(move || {
            let mut k = 1;
            while k < 1000 && Expr::parse(&pattern(k + 1)).is_ok() {
                k += 1;
            }
            let e = Expr::parse(&pattern(k)).unwrap();
            let v = e.eval(&mut env());
            let c = e.clone();
            assert_eq!(c.root(), e.root());
            assert!(!format!("{:?}", c.root()).is_empty());
            let _ = c.refs();
            (k, v.map(|v| v.to_string()).map_err(|e| e.to_string()))
        });
        // Every shape allows realistic nesting (at least 15 repeats, 31 levels of brackets).
        let min = if name == "mixed" { 6 } else { 15 }; // "mixed" nests 5 levels per repeat
        assert!(k >= min, "{name}: only {k} repeats accepted");
        assert!(value.is_ok(), "{name} at {k}: {value:?}");
    }
}

#[test]
fn moderate_nesting_works() {
    // Depths a manifest could plausibly use parse and evaluate (and drop) fine.
    let d = 25;
    let cases: Vec<(String, Value)> = vec![
        (format!("{}1{}", "(".repeat(d), ")".repeat(d)), i(1)),
        (
            format!("{}1{}", "[".repeat(d), "]".repeat(d)),
            (0..d).fold(i(1), |v, _| lv(vec![v])),
        ),
        (format!("{}1", "-".repeat(d)), i(-1)),
        (format!("{}true", "not ".repeat(d)), b(false)),
        (format!("{}1", "0 if false else ".repeat(d)), i(1)),
        (format!("1{}", " + 1".repeat(d)), i(d as i64 + 1)),
        (
            format!("1{}", " + (1".repeat(d)) + &")".repeat(d),
            i(d as i64 + 1),
        ),
        (
            format!("{}1{}", "(1 + ".repeat(d), ")".repeat(d)),
            i(d as i64 + 1),
        ),
        (format!("true{}", " and true".repeat(d)), b(true)),
        (format!("{}1{}", "max(0, ".repeat(d), ")".repeat(d)), i(1)),
        (format!("[1]{}", "[0:]".repeat(d)), l(&[1])),
        (format!("1{}", " + 1".repeat(100)), i(101)),
    ];
    for (src, want) in &cases {
        assert_eq!(
            &eval_in(src, &mut env()).unwrap_or_else(|e| panic!("{e}")),
            want,
            "{src}"
        );
    }
}
