//! The kernel map: which variant the planner chooses for one shape at every row count, as
//! spans of rows that take the same kernel. Plain data for `nbits-mlp map` (text, JSON, SVG),
//! the Python package's `Runtime.map` and the generated table in `docs/KERNELS.md`.
//!
//! A span ends where the variant changes, where one of its passes changes its workgroup size
//! or appears or disappears (e.g. the tensor-core tile's subgroup pairs, 448 invocations
//! instead of 224, or a split-K reduce pass), or where the tensor-core tile changes its form
//! ([`tile_form`]: 16- to 32-row tiles, activation blocks, early fetch), so a span is one
//! kernel whose only difference from row to row is how many workgroups it dispatches.

use crate::coverage::Form;
use crate::families::Description;
use crate::op::MlpShape;
use crate::plan::Plan;
use crate::planner::{PlanError, Planner, Tunables};
use crate::tensor::DType;
use serde::Serialize;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One pass of a span's kernel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpanPass {
    /// The pass id (`norm`, `main`, `reduce`).
    pub id: String,
    /// Invocations per workgroup.
    pub threads: u32,
    /// The fewest workgroups it dispatches in the span.
    pub min_workgroups: u64,
    /// The most workgroups it dispatches in the span.
    pub max_workgroups: u64,
}

/// Rows `first..=last` that take one kernel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    /// The span's first row count.
    pub first: usize,
    /// Its last row count (inclusive; the last of the rows asked for when the map ends there).
    pub last: usize,
    /// The chosen variant's id.
    pub variant: String,
    /// The overlay family it belongs to (`docs/DESIGN.md`, "Kernel families"), or `seed` for
    /// the seed manifest's variants (and a custom overlay's).
    pub family: String,
    /// The passes that run, in order.
    pub passes: Vec<SpanPass>,
    /// The tensor-core tile's form ([`tile_form`]), for the `mma` and `mmap` families.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form: Option<String>,
    /// Why this span's kernel takes over from the span before it ([`explain_spans`]): the
    /// decisive verdict at the boundary. `None` for the first span, or where not asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

impl Span {
    /// `7` or `7-16`.
    pub fn rows_text(&self) -> String {
        if self.first == self.last {
            self.first.to_string()
        } else {
            format!("{}-{}", self.first, self.last)
        }
    }

    /// The passes' ids and invocations: what a span keeps while its workgroup counts vary.
    fn pass_shapes(&self) -> Vec<(&str, u32)> {
        self.passes
            .iter()
            .map(|p| (p.id.as_str(), p.threads))
            .collect()
    }

    /// Whether `other` runs the same kernel: the variant, the passes' ids and invocations and
    /// the tile's form all equal (where a span may grow into the next row count).
    fn same_kernel(&self, other: &Span) -> bool {
        self.variant == other.variant
            && self.form == other.form
            && self.pass_shapes() == other.pass_shapes()
    }

    /// The passes in one line: `norm 1 x 256, main 128-132 x 448` (workgroups x invocations).
    pub fn passes_text(&self) -> String {
        self.passes
            .iter()
            .map(|p| {
                let wg = if p.min_workgroups == p.max_workgroups {
                    p.min_workgroups.to_string()
                } else {
                    format!("{}-{}", p.min_workgroups, p.max_workgroups)
                };
                format!("{} {wg} x {}", p.id, p.threads)
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A row count the planner could not plan.
#[derive(Debug, thiserror::Error)]
#[error("{}rows {rows}: {error}", line.as_ref().map(|l| format!("{l}, ")).unwrap_or_default())]
pub struct MapError {
    /// The map's line (`Llama-3.1-8B float16 plain`), where the error came from [`map_lines`].
    pub line: Option<String>,
    /// The row count.
    pub rows: usize,
    /// The planner's error.
    #[source]
    pub error: PlanError,
}

/// The family of a variant id: its overlay family, else `seed`.
pub fn family_of(variant: &str) -> &'static str {
    Description::project()
        .variants
        .iter()
        .find(|g| g.id == variant)
        .map(|g| g.family.as_str())
        .unwrap_or("seed")
}

/// The spans of `shape` (its row count ignored) at each row count of `rows`, planned with
/// `tunables` over the planner's defaults. `rows` should ascend; a span covers the row counts
/// from its first to its last, so a gap in `rows` joins the rows around it where the kernel
/// is the same on both sides (a sparse list can hide a short span between them). An empty row
/// count list gives no spans; 0 rows is skipped (the empty call runs nothing). The plans are
/// made for the map alone, not kept in the planner's cache.
pub fn row_map(
    planner: &Planner,
    shape: &MlpShape,
    rows: impl IntoIterator<Item = usize>,
    tunables: &Tunables,
) -> Result<Vec<Span>, MapError> {
    let mut spans: Vec<Span> = Vec::new();
    for r in rows {
        if r == 0 {
            continue;
        }
        // Rank 3 and up: the rows go in the last leading dimension.
        let s = at_rows(shape, r);
        // Not the planner's cache: a map plans thousands of calls once each, and a cached plan
        // keeps its rendered WGSL (gigabytes for the suite's map).
        let plan = planner
            .plan_uncached(&s.call(), tunables)
            .map_err(|error| MapError {
                line: None,
                rows: r,
                error,
            })?;
        let passes: Vec<SpanPass> = plan
            .active_passes()
            .map(|p| {
                let wg = p.dispatch.iter().map(|&d| u64::from(d)).product();
                SpanPass {
                    id: p.id.clone(),
                    threads: p.workgroup_size.iter().product(),
                    min_workgroups: wg,
                    max_workgroups: wg,
                }
            })
            .collect();
        let form = tile_form(&plan);
        let span = Span {
            first: r,
            last: r,
            family: family_of(&plan.variant).to_string(),
            variant: plan.variant.clone(),
            passes,
            form,
            why: None,
        };
        match spans.last_mut() {
            Some(last) if last.same_kernel(&span) => {
                last.last = r;
                for (a, b) in last.passes.iter_mut().zip(&span.passes) {
                    a.min_workgroups = a.min_workgroups.min(b.min_workgroups);
                    a.max_workgroups = a.max_workgroups.max(b.max_workgroups);
                }
            }
            _ => spans.push(span),
        }
    }
    Ok(spans)
}

/// The form of a plan's tensor-core tile (`mlp-mma`, the `mma` and `mmap` families) in a few
/// words, from its main pass's context (the manifest's derives of those names): `mmaRowBlocks`
/// (16-row blocks per tile), `mmaSeq` (gate and up in turns or together), `mmaPairs` (1 matrix
/// pairs, 2 K pairs), `mmaPingPong`, `mmaActBlock` (chunks of activations staged at a time),
/// `mmaFetchGroup` (chunks per request), `mmaEarlyFetch` (with `mmaEarlyFetchChunks`, its
/// depth, where not 2), `mmaSplit` (K slices), e.g.
/// `16-row tile, in turns, matrix pairs, blocks of 4, early fetch`. `None` for other families.
pub fn tile_form(plan: &Plan) -> Option<String> {
    if !matches!(family_of(&plan.variant), "mma" | "mmap") {
        return None;
    }
    let context = &plan.active_passes().find(|p| p.id == "main")?.context;
    let int = |key: &str| context.get(key).and_then(|v| v.as_i64());
    let mut parts = vec![format!("{}-row tile", 16 * int("mmaRowBlocks")?)];
    match context.get("mmaSeq").and_then(|v| v.as_bool()) {
        Some(true) => parts.push("in turns".into()),
        Some(false) => parts.push("together".into()),
        None => {}
    }
    match int("mmaPairs") {
        Some(1) => parts.push("matrix pairs".into()),
        Some(2) => parts.push("K pairs".into()),
        _ => {}
    }
    if int("mmaPingPong") == Some(1) {
        parts.push("ping-pong".into());
    }
    if int("mmaSeparate") == Some(1) {
        parts.push("gate and up apart".into());
    }
    if let Some(n) = int("mmaActBlock").filter(|&n| n > 0) {
        parts.push(format!("blocks of {n}"));
    }
    if let Some(n) = int("mmaFetchGroup").filter(|&n| n > 1) {
        parts.push(format!("fetch groups of {n}"));
    }
    if int("mmaEarlyFetch") == Some(1) {
        // With one chunk per request its depth, where it is not the measured 2.
        match int("mmaEarlyFetchChunks").filter(|&n| n != 2) {
            Some(n) if int("mmaFetchGroup") == Some(1) => {
                parts.push(format!("early fetch {n} chunks ahead"))
            }
            _ => parts.push("early fetch".into()),
        }
    }
    if let Some(n) = int("mmaSplit").filter(|&n| n > 1) {
        parts.push(format!("K in {n} slices"));
    }
    Some(parts.join(", "))
}

/// `shape` at `rows` rows (in its last leading dimension, as [`row_map`] places them).
fn at_rows(shape: &MlpShape, rows: usize) -> MlpShape {
    let mut s = shape.clone();
    let n = s.lead.len().max(1);
    s.lead = vec![1; n - 1];
    s.lead.push(rows);
    s
}

/// Fills each span's [`Span::why`] but the first: why its kernel takes over from the span
/// before it. Between the previous span's last row count p and this span's first r, of the
/// two variants the one of higher priority decides: where the new one ranks higher, why it was
/// rejected at p (`from 7: at 6 rows mmap_nogb_noub was rejected by when[5] ...`); where the
/// old one ranks higher, why it is rejected at r. The same variant on both sides changed its
/// passes (a workgroup size, a pass more or less), which no verdict says.
pub fn explain_spans(
    planner: &Planner,
    shape: &MlpShape,
    spans: &mut [Span],
    tunables: &Tunables,
) -> Result<(), MapError> {
    for i in 1..spans.len() {
        let (p, r) = (spans[i - 1].last, spans[i].first);
        let (old, new) = (spans[i - 1].variant.clone(), spans[i].variant.clone());
        if old == new {
            let (before, now) = (&spans[i - 1], &spans[i]);
            let mut changed = Vec::new();
            if before.pass_shapes() != now.pass_shapes() {
                changed.push(format!(
                    "its passes changed ({} before)",
                    before.passes_text()
                ));
            }
            if before.form != now.form {
                let was = before.form.as_deref().unwrap_or("none");
                changed.push(format!("its tile changed ({was} before)"));
            }
            spans[i].why = Some(format!(
                "from {r}: the same variant, {}",
                changed.join("; ")
            ));
            continue;
        }
        let verdicts = |rows: usize| {
            planner
                .explain(&at_rows(shape, rows).call(), tunables)
                .map_err(|error| MapError {
                    line: None,
                    rows,
                    error,
                })
        };
        let (at_p, at_r) = (verdicts(p)?, verdicts(r)?);
        let find =
            |vs: &[crate::plan::Verdict], id: &str| vs.iter().find(|v| v.variant == id).cloned();
        let (old_v, new_v) = (find(&at_r, &old), find(&at_p, &new));
        let why = |v: &crate::plan::Verdict, rows: usize| match (&v.applies, &v.rejected_by, &v.why)
        {
            (false, Some(by), Some(w)) => {
                format!("at {rows} rows {} was rejected by {by}: {w}", v.variant)
            }
            (false, Some(by), None) => format!("at {rows} rows {} was rejected by {by}", v.variant),
            _ => format!("at {rows} rows {} applied", v.variant),
        };
        let text = match (old_v, new_v) {
            (Some(o), Some(n)) if n.priority > o.priority => {
                format!(
                    "from {r}: {} (priority {} over {})",
                    why(&n, p),
                    n.priority,
                    o.priority
                )
            }
            (Some(o), Some(n)) => {
                format!(
                    "from {r}: {} (priority {} over {})",
                    why(&o, r),
                    o.priority,
                    n.priority
                )
            }
            _ => format!("from {r}: {new} takes over from {old}"),
        };
        spans[i].why = Some(text);
    }
    Ok(())
}

/// One line of a kernel map: a model (or a bare shape, or a model's node), a dtype and an
/// input form, with its spans.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MapLine {
    /// The model's name (`shape` for a bare shape: `nbits-mlp map --shape`; a node's label
    /// for `nbits-mlp map MODEL.onnx`).
    pub model: String,
    /// Hidden size.
    pub k: usize,
    /// Output size.
    pub n: usize,
    /// T1.
    pub dtype: DType,
    /// The input form ([`form_name`]: `plain`, `norm`, `skip`, `skipsum`).
    pub form: String,
    /// Bits per weight code.
    pub bits: u32,
    /// Codes per block.
    pub block_size: usize,
    /// Whether gate_bias is given.
    pub gate_bias: bool,
    /// Whether up_bias is given.
    pub up_bias: bool,
    /// The spans, ascending.
    pub spans: Vec<Span>,
}

impl MapLine {
    /// `Llama-3.1-8B float16 plain`.
    pub fn title(&self) -> String {
        format!("{} {} {}", self.model, self.dtype, self.form)
    }

    /// `4-bit blocks of 32, gate_bias`: the line's quantization and biases.
    pub fn weights_text(&self) -> String {
        format!(
            "{}-bit blocks of {}{}{}",
            self.bits,
            self.block_size,
            if self.gate_bias { ", gate_bias" } else { "" },
            if self.up_bias { ", up_bias" } else { "" },
        )
    }
}

/// The name of a shape's input form: the overlay's `form` axis value whose flags it has
/// ([`crate::coverage::forms`]: `plain`, `norm`, `skip`, `skipsum`), else its flags spelled out.
pub fn form_name(shape: &MlpShape) -> String {
    crate::coverage::forms()
        .into_iter()
        .find(|f| (f.skip, f.norm, f.residual) == (shape.skip, shape.norm, shape.residual))
        .map(|f| f.name)
        .unwrap_or_else(|| {
            format!(
                "skip={} norm={} residual={}",
                shape.skip, shape.norm, shape.residual
            )
        })
}

/// What a kernel map covers: its lines (a label and a shape, rows aside), the row counts, the
/// tunables.
#[derive(Clone, Debug)]
pub struct MapRequest {
    /// The lines: a label (a model's name, `shape`, a node) and the call's shape (its rows
    /// ignored).
    pub lines: Vec<(String, MlpShape)>,
    /// Row counts, ascending ([`parse_rows`]).
    pub rows: Vec<usize>,
    /// Tunable overrides.
    pub tunables: Tunables,
    /// Whether to say why each span takes over ([`explain_spans`]).
    pub why: bool,
}

/// The lines of every model x dtype x form (in that order), at the same bits, block size and
/// biases: models are (name, K, N).
pub fn product_lines(
    models: &[(String, usize, usize)],
    dtypes: &[DType],
    forms: &[Form],
    bits: u32,
    block_size: usize,
    bias: bool,
) -> Vec<(String, MlpShape)> {
    let mut lines = Vec::new();
    for (model, k, n) in models {
        for &dtype in dtypes {
            for form in forms {
                lines.push((
                    model.clone(),
                    MlpShape {
                        dtype,
                        bits,
                        block_size,
                        skip: form.skip,
                        norm: form.norm,
                        residual: form.residual,
                        gate_bias: bias,
                        up_bias: bias,
                        ..MlpShape::new(*k, *n, 1)
                    },
                ));
            }
        }
    }
    lines
}

/// Every line of `request`, in its order, planned on up to `threads` threads that share
/// `planner`; `progress` is called once per planned row count.
pub fn map_lines(
    planner: &Planner,
    request: &MapRequest,
    threads: usize,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<MapLine>, MapError> {
    let jobs = &request.lines;
    let next = AtomicUsize::new(0);
    let line = |i: usize| -> Result<MapLine, MapError> {
        let (model, shape) = &jobs[i];
        let mut l = MapLine {
            model: model.clone(),
            k: shape.k,
            n: shape.n,
            dtype: shape.dtype,
            form: form_name(shape),
            bits: shape.bits,
            block_size: shape.block_size,
            gate_bias: shape.gate_bias,
            up_bias: shape.up_bias,
            spans: Vec::new(),
        };
        let rows = request.rows.iter().copied().inspect(|_| progress());
        let named = |mut e: MapError| {
            e.line = Some(l.title());
            e
        };
        let mut spans = row_map(planner, shape, rows, &request.tunables).map_err(named)?;
        if request.why {
            explain_spans(planner, shape, &mut spans, &request.tunables).map_err(named)?;
        }
        l.spans = spans;
        Ok(l)
    };
    let mut done: Vec<(usize, Result<MapLine, MapError>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.clamp(1, jobs.len().max(1)))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= jobs.len() {
                            return mine;
                        }
                        mine.push((i, line(i)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, l)| l).collect()
}

/// The map as text: per model a heading (`NAME: K 4096, N 14336, 4-bit blocks of 32, device
/// DEVICE`), per dtype and form a line of its own, then one row per span: rows, variant,
/// family, passes (workgroups x invocations).
pub fn map_text(lines: &[MapLine], device: &str) -> String {
    let mut out = String::new();
    let mut last_model = None;
    for l in lines {
        if last_model != Some(&l.model) {
            if last_model.is_some() {
                out.push('\n');
            }
            let _ = writeln!(
                out,
                "{}: K {}, N {}, {}, device {device}",
                l.model,
                l.k,
                l.n,
                l.weights_text(),
            );
            last_model = Some(&l.model);
        }
        let _ = writeln!(out, "  {} {}", l.dtype, l.form);
        let rw = l
            .spans
            .iter()
            .map(|s| s.rows_text().len())
            .max()
            .unwrap_or(0);
        let vw = l.spans.iter().map(|s| s.variant.len()).max().unwrap_or(0);
        let fw = l.spans.iter().map(|s| s.family.len()).max().unwrap_or(0);
        for s in &l.spans {
            let form = s
                .form
                .as_ref()
                .map(|f| format!("  ({f})"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "    {:<rw$}  {:<vw$}  {:<fw$}  {}{form}",
                s.rows_text(),
                s.variant,
                s.family,
                s.passes_text()
            );
            if let Some(why) = &s.why {
                let _ = writeln!(out, "    {:<rw$}    {why}", "");
            }
        }
    }
    out
}

/// The largest row count, and the most row counts, a row list may hold ([`parse_rows`]): a map
/// plans every one (~2-3 ms each), so a list stays within minutes.
pub const MAX_MAP_ROWS: usize = 1 << 16;

/// Parses a row list: comma-separated counts and inclusive ranges (`1-64,128,256-512`), in any
/// order; the result ascends without repeats. Counts from 1 to [`MAX_MAP_ROWS`], at most that
/// many in all (counted with repeats, so no list costs more than that to read).
pub fn parse_rows(text: &str) -> Result<Vec<usize>, String> {
    const MAX: usize = MAX_MAP_ROWS;
    let mut rows = std::collections::BTreeSet::new();
    let mut read = 0usize;
    for item in text.split(',').map(str::trim) {
        let num = |s: &str| -> Result<usize, String> {
            let v: usize = s
                .trim()
                .parse()
                .map_err(|_| format!("`{s}` in `{item}` is not a row count"))?;
            if v == 0 || v > MAX {
                return Err(format!("row count {v} in `{item}` is outside 1-{MAX}"));
            }
            Ok(v)
        };
        if item.is_empty() {
            return Err(format!("empty item in row list `{text}`"));
        }
        let (a, b) = match item.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => {
                let v = num(item)?;
                (v, v)
            }
        };
        if a > b {
            return Err(format!("range `{item}` runs backwards"));
        }
        read += b - a + 1;
        if read > MAX {
            return Err(format!(
                "row list `{text}` holds more than {MAX} row counts"
            ));
        }
        rows.extend(a..=b);
    }
    Ok(rows.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::DeviceProfile;
    use crate::tensor::DType;

    #[test]
    fn row_lists() {
        assert_eq!(parse_rows("3, 1-2,2").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_rows("512").unwrap(), vec![512]);
        assert_eq!(parse_rows(" 5 - 7 ").unwrap(), vec![5, 6, 7]);
        for bad in [
            "",
            "0",
            "1-",
            "-3",
            "4-2",
            "x",
            "1,,2",
            "1-2000000",
            "65537",
            "1--2",
        ] {
            assert!(parse_rows(bad).is_err(), "{bad:?} parsed");
        }
        // Repeats count toward the limit: no list reads more than MAX_MAP_ROWS counts.
        assert_eq!(parse_rows("1-65536").unwrap().len(), MAX_MAP_ROWS);
        assert!(parse_rows("1-40000,1-40000").is_err());
    }

    proptest::proptest! {
        /// Any text either parses into ascending, distinct counts in range, or is refused in
        /// words; never a panic.
        #[test]
        fn any_text_parses_or_is_refused(text in "[0-9 ,-]{0,40}|\\PC{0,40}") {
            match parse_rows(&text) {
                Ok(rows) => {
                    proptest::prop_assert!(!rows.is_empty());
                    proptest::prop_assert!(rows.windows(2).all(|w| w[0] < w[1]));
                    proptest::prop_assert!(rows.iter().all(|&r| (1..=MAX_MAP_ROWS).contains(&r)));
                }
                Err(e) => proptest::prop_assert!(!e.is_empty()),
            }
        }

        /// A list written from counts and ranges parses back to their union.
        #[test]
        fn written_lists_parse_back(items in proptest::collection::vec((1usize..3000, 0usize..40), 1..12)) {
            let text: Vec<String> = items
                .iter()
                .map(|&(a, len)| if len == 0 { a.to_string() } else { format!("{a}-{}", a + len) })
                .collect();
            let want: std::collections::BTreeSet<usize> =
                items.iter().flat_map(|&(a, len)| a..=a + len).collect();
            let got = parse_rows(&text.join(",")).unwrap();
            proptest::prop_assert_eq!(got, want.into_iter().collect::<Vec<_>>());
        }
    }

    /// The spans agree with planning each row count on its own: every row count of the list
    /// lies in exactly one span whose variant and pass sizes are its plan's.
    #[test]
    fn spans_agree_with_single_plans() {
        let planner = Planner::project(
            DeviceProfile::discrete_gpu().with_tunable(crate::device::SHADER_CORES, 132),
        );
        let mut shape = MlpShape::new(4096, 14336, 1);
        shape.dtype = DType::F16;
        let rows: Vec<usize> = (1..=40).chain([64, 65, 128, 129, 512]).collect();
        let spans = row_map(&planner, &shape, rows.iter().copied(), &Tunables::new()).unwrap();
        assert!(spans.len() >= 3, "{spans:?}");
        for w in spans.windows(2) {
            assert!(w[0].last < w[1].first);
            assert!(
                !w[0].same_kernel(&w[1]),
                "neighbouring spans are one kernel: {w:?}"
            );
        }
        for &r in &rows {
            let span: Vec<&Span> = spans
                .iter()
                .filter(|s| (s.first..=s.last).contains(&r))
                .collect();
            assert_eq!(span.len(), 1, "rows {r}");
            let mut s = shape.clone();
            s.lead = vec![r];
            let plan = planner.plan(&s.call(), &Tunables::new()).unwrap();
            assert_eq!(plan.variant, span[0].variant, "rows {r}");
            let threads: Vec<u32> = plan
                .active_passes()
                .map(|p| p.workgroup_size.iter().product())
                .collect();
            let span_threads: Vec<u32> = span[0].passes.iter().map(|p| p.threads).collect();
            assert_eq!(threads, span_threads, "rows {r}");
            for (p, sp) in plan.active_passes().zip(&span[0].passes) {
                let wg: u64 = p.dispatch.iter().map(|&d| u64::from(d)).product();
                assert!((sp.min_workgroups..=sp.max_workgroups).contains(&wg));
            }
            assert_eq!(tile_form(&plan), span[0].form, "rows {r}");
        }
        // The tile's form shows where the variant and its workgroups stay: 16-row tiles in
        // pairs with activation blocks up to 16 rows, 32-row tiles from 17, K slices from 65.
        let form_at = |r: usize| {
            let s = spans
                .iter()
                .find(|s| (s.first..=s.last).contains(&r))
                .unwrap();
            s.form.clone().unwrap_or_default()
        };
        assert!(form_at(16).starts_with("16-row tile, in turns, matrix pairs, blocks of"));
        assert!(form_at(17).starts_with("32-row tile"), "{}", form_at(17));
        assert!(form_at(65).contains("K in "), "{}", form_at(65));
        assert_eq!(spans[0].form, None, "gemv");
        assert_eq!(spans[0].first, 1);
        assert_eq!(spans.last().unwrap().last, 512);
        assert_eq!(spans[0].family, "gemv");
        assert!(spans.iter().any(|s| s.family == "mmap"), "{spans:?}");
    }

    /// The tile's form of Llama-3.1-8B's gate/up at 16 rows, f16, on a discrete GPU of 132
    /// shader cores, with `tunables` beside.
    fn llama_f16_16_rows_form(tunables: &[(&str, i64)]) -> String {
        let planner = Planner::project(DeviceProfile::discrete_gpu());
        let mut t = Tunables::new();
        t.insert("SHADER_CORES".into(), 132);
        for &(k, v) in tunables {
            t.insert(k.into(), v);
        }
        let mut s = MlpShape::new(4096, 14336, 16);
        s.dtype = DType::F16;
        tile_form(&planner.plan(&s.call(), &t).unwrap()).unwrap()
    }

    /// Gate and up apart (`MMA_F32_SEPARATE` 2) shows in the float32 form's name with its
    /// 64-row tile; the default's 32-row tiles do not carry it.
    #[test]
    fn tile_form_names_gate_and_up_apart() {
        let planner = Planner::project(DeviceProfile::discrete_gpu());
        let form = |x: i64| {
            let mut t = Tunables::new();
            t.insert("SHADER_CORES".into(), 132);
            t.insert("MMA_F32_SEPARATE".into(), x);
            let mut s = MlpShape::new(4096, 14336, 64);
            s.dtype = DType::F32;
            tile_form(&planner.plan(&s.call(), &t).unwrap()).unwrap()
        };
        assert_eq!(
            form(2),
            "64-row tile, in turns, gate and up apart, fetch groups of 2"
        );
        assert!(!form(0).contains("apart"), "{}", form(0));
        assert!(form(0).starts_with("32-row tile"), "{}", form(0));
    }

    /// The early fetch's depth shows where it is not the measured two chunks: Llama-3.1-8B's
    /// 16-row tile (matrix pairs, one chunk per request) with `MMA_EARLY_FETCH_CHUNKS` 3 and 4.
    #[test]
    fn tile_form_names_a_deeper_early_fetch() {
        let form = |d: i64| llama_f16_16_rows_form(&[("MMA_EARLY_FETCH_CHUNKS", d)]);
        let default = llama_f16_16_rows_form(&[]);
        assert!(default.ends_with("early fetch"), "{default}");
        assert_eq!(form(2), default);
        assert!(
            form(3).ends_with("early fetch 3 chunks ahead"),
            "{}",
            form(3)
        );
        assert!(
            form(4).ends_with("early fetch 4 chunks ahead"),
            "{}",
            form(4)
        );
    }

    /// Ping-pong shows in the form where it runs (by default in turns, 4-bit codes):
    /// Llama-3.1-8B's 16-row tile in turns with 32-row slabs and blocks of 4.
    #[test]
    fn tile_form_names_ping_pong() {
        let form = llama_f16_16_rows_form(&[("MMA_PAIRS", 0)]);
        assert_eq!(
            form, "16-row tile, in turns, ping-pong, blocks of 4, early fetch",
            "{form}"
        );
    }

    /// Each boundary says the rule that moved it, with the operands' values: the tensor-core
    /// tile's least rows for f16 calls (Llama-3.1-8B: 7 where pairs make one wave of 132 SMs),
    /// and both ends of the float32 form's rows (an `or` explained down to each side; its top,
    /// no cap by default, set to 384 here; its least, 9, or in blocks of 128 on this grid 5 for
    /// 4-bit codes and 6 for 2-bit codes).
    #[test]
    fn boundaries_name_their_rule() {
        let planner = Planner::project(DeviceProfile::discrete_gpu());
        let tunables = Tunables::from([(crate::device::SHADER_CORES.to_string(), 132)]);
        let mut shape = MlpShape::new(4096, 14336, 1);
        shape.dtype = DType::F16;
        let mut spans = row_map(&planner, &shape, [1, 6, 7, 16, 17], &tunables).unwrap();
        explain_spans(&planner, &shape, &mut spans, &tunables).unwrap();
        assert!(spans[0].why.is_none());
        let at7 = spans.iter().find(|s| s.first == 7).unwrap();
        let why = at7.why.as_deref().unwrap();
        assert!(
            why.starts_with("from 7: at 6 rows mmap_") && why.contains("(6 vs 7)"),
            "{why}"
        );
        let at17 = spans.iter().find(|s| s.first == 17).unwrap();
        assert!(at17
            .why
            .as_deref()
            .unwrap()
            .contains("the same variant, its passes changed"));

        shape.dtype = DType::F32;
        let mut tunables = tunables;
        tunables.insert("MMA_F32_MAX_ROWS".to_string(), 384);
        let mut spans = row_map(&planner, &shape, [8, 9, 384, 385], &tunables).unwrap();
        explain_spans(&planner, &shape, &mut spans, &tunables).unwrap();
        let whys: Vec<&str> = spans.iter().filter_map(|s| s.why.as_deref()).collect();
        assert!(
            whys.iter().any(|w| w.starts_with("from 9: ")
                && w.contains("`aRows >= mmaF32MinRows` is false (8 vs 9)")),
            "{whys:?}"
        );
        // Blocks of 128 on Llama-8B's full grid: the tile from 5 rows for 4-bit codes, from 6
        // for 2-bit codes.
        for (bits, from) in [(4, 5), (2, 6)] {
            let mut b128 = shape.clone();
            (b128.bits, b128.block_size) = (bits, 128);
            let mut spans = row_map(&planner, &b128, [from - 1, from], &tunables).unwrap();
            explain_spans(&planner, &b128, &mut spans, &tunables).unwrap();
            let why = spans[1].why.as_deref().unwrap();
            let gap = format!("`aRows >= mmaF32MinRows` is false ({} vs {from})", from - 1);
            assert!(
                why.starts_with(&format!("from {from}: at {} rows mmap_", from - 1))
                    && why.contains(&gap),
                "{bits}-bit: {why}"
            );
        }
        assert!(
            whys.iter().any(|w| w.starts_with("from 385: ")
                && w.contains("MMA_F32_MAX_ROWS` is false (385 vs 384)")),
            "{whys:?}"
        );
        // Float32 16 / 17 rows: one variant, the same workgroups, another tile (activation
        // blocks up to 16 rows); the boundary says what the tile was.
        let mut spans = row_map(&planner, &shape, [16, 17], &tunables).unwrap();
        explain_spans(&planner, &shape, &mut spans, &tunables).unwrap();
        assert_eq!(spans.len(), 2, "{spans:?}");
        assert_eq!(spans[0].passes_text(), spans[1].passes_text());
        let why = spans[1].why.as_deref().unwrap();
        assert!(
            why.starts_with("from 17: the same variant, its tile changed (16-row tile")
                && why.contains("blocks of 4"),
            "{why}"
        );
    }

    #[test]
    fn a_row_count_that_does_not_plan_is_named() {
        let planner = Planner::project(DeviceProfile::discrete_gpu());
        // K not a multiple of the block size is legal; N = 0 is not.
        let shape = MlpShape::new(64, 0, 1);
        let e = row_map(&planner, &shape, [3], &Tunables::new()).unwrap_err();
        assert_eq!(e.rows, 3);
        assert!(e.to_string().starts_with("rows 3: "), "{e}");
    }

    /// `map_lines` on two threads gives the lines in the request's order, each what
    /// `row_map` gives alone, and counts every planned row; an error names its line.
    #[test]
    fn lines_in_order_on_threads() {
        let planner = Planner::project(DeviceProfile::discrete_gpu());
        let forms = crate::coverage::forms();
        let models = [("a".to_string(), 256, 64), ("b".to_string(), 512, 96)];
        let request = MapRequest {
            lines: product_lines(&models, &[DType::F16, DType::F32], &forms, 4, 32, false),
            rows: vec![1, 2, 3, 8, 9, 16, 17, 64, 65],
            tunables: Tunables::new(),
            why: false,
        };
        let count = AtomicUsize::new(0);
        let lines = map_lines(&planner, &request, 2, &|| {
            count.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(lines.len(), 2 * 2 * forms.len());
        assert_eq!(count.into_inner(), lines.len() * request.rows.len());
        let mut i = 0;
        for (model, k, n) in &models {
            for dtype in [DType::F16, DType::F32] {
                for form in &forms {
                    let l = &lines[i];
                    i += 1;
                    assert_eq!((&l.model, l.k, l.n, l.dtype), (model, *k, *n, dtype));
                    assert_eq!(l.form, form.name);
                    assert_eq!(l.form, form_name(&request.lines[i - 1].1));
                    let shape = MlpShape {
                        dtype,
                        skip: form.skip,
                        norm: form.norm,
                        residual: form.residual,
                        ..MlpShape::new(*k, *n, 1)
                    };
                    let alone =
                        row_map(&planner, &shape, request.rows.clone(), &Tunables::new()).unwrap();
                    assert_eq!(l.spans, alone, "{}", l.title());
                }
            }
        }
        let text = map_text(&lines, "discrete-gpu");
        assert!(text.starts_with("a: K 256, N 64, 4-bit blocks of 32, device discrete-gpu\n"));
        assert!(text.contains("\nb: K 512, N 96,"), "{text}");
        // One row per span, a title per line, a heading per model, a blank line between models.
        let spans: usize = lines.iter().map(|l| l.spans.len()).sum();
        assert_eq!(text.lines().count(), spans + lines.len() + 2 + 1);

        let mut bad = request.clone();
        for (_, shape) in &mut bad.lines {
            shape.bits = 3;
        }
        let e = map_lines(&planner, &bad, 2, &|| {}).unwrap_err();
        assert_eq!(e.line.as_deref(), Some("a float16 plain"));
        assert!(
            e.to_string().starts_with("a float16 plain, rows 1: "),
            "{e}"
        );
    }
}
