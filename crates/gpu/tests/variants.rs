//! End-to-end verification of the real planner, manifest and templates on the GPU (lavapipe on
//! CI) against the float64 reference: every variant of the seed manifest, restricted device
//! profiles (8 storage buffers, no subgroups), a sweep of shapes, tunables, repeatability, and
//! empty inputs.
//!
//! Every check generates a case with its own seed, runs it with `RunOptions { poison: true }`
//! (outputs pre-filled with NaN bytes, so an element a kernel never writes fails), checks the
//! output shapes and compares `Y` (and `input_skip_bias_sum` when requested) with the
//! reference's unrounded float64 values through `compare::check` (float32
//! `1e-5 * max|Y| + 1e-6`, float16 `2e-3 * max|Y|`).
//!
//! Without a WebGPU adapter these tests fail with a message saying why, unless
//! `NBITS_MLP_SKIP_GPU=1`. `cargo test -p nbits-mlp-gpu --test variants -- --nocapture` prints
//! which case reached each variant, the 8-storage-buffer differences and the sweep.

use nbits_mlp_core::coverage::{variant_matrix, CoverageCase};
use nbits_mlp_core::manifest::BufferKind;
use nbits_mlp_core::plan::PassPlan;
use nbits_mlp_core::{DType, Manifest, Plan, Tensor, Tunables};
use nbits_mlp_gpu::{testing, GpuTensor, RunOptions, Runtime, RuntimeStats};
use nbits_mlp_reference::compare;
use nbits_mlp_reference::gen::{generate, Case, CaseSpec};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

const STORAGE_LIMIT: &str = "maxStorageBuffersPerShaderStage";

// ---- calls ----------------------------------------------------------------------------------

/// One call: a case spec and the leading dimensions of A (`[rows]` for rank 2, `[b, s]` for
/// rank 3, any `b`, unlike `CaseSpec::rank3` which is always `[1, rows]`).
#[derive(Clone, Debug)]
struct Call {
    spec: CaseSpec,
    lead: Vec<usize>,
}

impl Call {
    /// `spec` with A of leading dimensions `lead` (the spec's `rows` and `rank3` are replaced).
    fn new(spec: CaseSpec, lead: Vec<usize>) -> Call {
        assert!(matches!(lead.len(), 1 | 2), "A has rank 2 or 3");
        let spec = CaseSpec {
            rows: lead.iter().product(),
            rank3: false,
            ..spec
        };
        Call { spec, lead }
    }
    /// A of shape `[rows, K]`.
    fn rank2(spec: CaseSpec) -> Call {
        let rows = spec.rows;
        Call::new(spec, vec![rows])
    }
    /// A of shape `[b, rows / b, K]` with `b` the smallest divisor > 1 of `rows` (`[1, rows]` for
    /// a prime, `[2, 0]` for no rows).
    fn rank3(spec: CaseSpec) -> Call {
        let rows = spec.rows;
        let lead = if rows == 0 {
            vec![2, 0]
        } else {
            let b = (2..rows).find(|d| rows.is_multiple_of(*d)).unwrap_or(1);
            vec![b, rows / b]
        };
        Call::new(spec, lead)
    }
    fn rows(&self) -> usize {
        self.spec.rows
    }
    fn shape_with(&self, last: usize) -> Vec<usize> {
        let mut s = self.lead.clone();
        s.push(last);
        s
    }
    /// The generated case, A and skip reshaped to the call's leading dimensions.
    fn case(&self) -> Case {
        let mut case = generate(&self.spec);
        let a_shape = self.shape_with(self.spec.k);
        for t in case.inputs.iter_mut().take(2).flatten() {
            assert_eq!(t.numel(), a_shape.iter().product::<usize>());
            t.shape = a_shape.clone();
        }
        case
    }
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.spec;
        write!(
            f,
            "{} A{:?} N={} bits={} block={}",
            s.dtype,
            self.shape_with(s.k),
            s.n,
            s.bits,
            s.block_size
        )?;
        for (on, name) in [
            (s.norm, "norm"),
            (s.skip, "skip"),
            (s.residual, "residual"),
            (s.gate_bias, "gate_bias"),
            (s.up_bias, "up_bias"),
        ] {
            if on {
                write!(f, " +{name}")?;
            }
        }
        write!(f, " seed={}", s.seed)
    }
}

/// The spec of a coverage case (its `MlpShape`), rank 2.
fn spec_of(case: &CoverageCase, seed: u64) -> CaseSpec {
    assert_eq!(
        case.shape.lead.len(),
        1,
        "{}: coverage cases are rank 2",
        case.name
    );
    CaseSpec::from_shape(&case.shape, seed)
}

/// A seed per check: distinct per test (`test`) and per check within it (`i`).
fn seed(test: u64, i: usize) -> u64 {
    test * 1_000_000 + i as u64
}

/// Tunable overrides.
fn overrides(pairs: &[(&str, i64)]) -> Tunables {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// SplitMix64: the few random choices the tests make (shuffles, optional inputs), reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn coin(&mut self) -> bool {
        self.next() >> 63 == 1
    }
    /// `(norm, skip, residual)` of a random call: a norm `1 - 1/one_in` of the time, then skip
    /// half the time with a norm, the residual output half the time with skip.
    fn norm_flags(&mut self, one_in: usize) -> (bool, bool, bool) {
        let norm = self.below(one_in) != 0;
        let skip = norm && self.coin();
        let residual = skip && self.coin();
        (norm, skip, residual)
    }
}

/// Cycles through a list, each pass in a new random order: every value comes equally often and
/// meets different values of the other lists.
struct Cycle<T> {
    values: Vec<T>,
    order: Vec<usize>,
    pos: usize,
}

impl<T: Clone> Cycle<T> {
    fn new(values: &[T]) -> Cycle<T> {
        Cycle {
            values: values.to_vec(),
            order: (0..values.len()).collect(),
            pos: values.len(),
        }
    }
    fn next(&mut self, rng: &mut Rng) -> T {
        if self.pos == self.order.len() {
            for i in (1..self.order.len()).rev() {
                let j = rng.below(i + 1);
                self.order.swap(i, j);
            }
            self.pos = 0;
        }
        self.pos += 1;
        self.values[self.order[self.pos - 1]].clone()
    }
}

/// The lists a random sweep draws its calls from (each through a [`Cycle`]): code widths 2/4/8,
/// block sizes 16-128 and both dtypes always; K, N and rows per sweep.
struct SpecCycles {
    bits: Cycle<u32>,
    blocks: Cycle<usize>,
    ks: Cycle<usize>,
    ns: Cycle<usize>,
    rows: Cycle<usize>,
    dtypes: Cycle<DType>,
}

impl SpecCycles {
    fn new(ks: &[usize], ns: &[usize], rows: &[usize]) -> SpecCycles {
        SpecCycles {
            bits: Cycle::new(&[2, 4, 8]),
            blocks: Cycle::new(&[16, 32, 64, 128]),
            ks: Cycle::new(ks),
            ns: Cycle::new(ns),
            rows: Cycle::new(rows),
            dtypes: Cycle::new(&[DType::F32, DType::F16]),
        }
    }

    /// The next rank-2 call: the next value of every list, norm flags from
    /// [`Rng::norm_flags`]`(norm_one_in)`, each bias half the time.
    fn next(&mut self, rng: &mut Rng, norm_one_in: usize, seed: u64) -> CaseSpec {
        let (norm, skip, residual) = rng.norm_flags(norm_one_in);
        CaseSpec {
            bits: self.bits.next(rng),
            block_size: self.blocks.next(rng),
            k: self.ks.next(rng),
            n: self.ns.next(rng),
            rows: self.rows.next(rng),
            dtype: self.dtypes.next(rng),
            norm,
            skip,
            residual,
            gate_bias: rng.coin(),
            up_bias: rng.coin(),
            seed,
            rank3: false,
        }
    }
}

// ---- running and checking -------------------------------------------------------------------

/// What a checked run gives back.
struct Checked {
    plan: Arc<Plan>,
    y: Tensor,
    residual: Option<Tensor>,
    /// Max |Y - reference|.
    y_err: f64,
}

/// A sweep's check of which kernel ran: asserts that the plan's variant is of `family` (a name
/// prefix) exactly when `expected`, prints the run (`what`, variant, error) and says whether it
/// was.
fn took(c: &Checked, family: &str, expected: bool, what: &str) -> bool {
    let is = c.plan.variant.starts_with(family);
    assert_eq!(is, expected, "{what}: {}", c.plan.variant);
    println!("{what}: {} (err {:.2e})", c.plan.variant, c.y_err);
    is
}

/// Storage buffers (everything but uniforms) bound by a pass.
fn storage_buffers(pass: &PassPlan) -> usize {
    pass.bindings
        .iter()
        .filter(|b| b.access != BufferKind::Uniform)
        .count()
}

/// Checks an output's dtype and shape.
fn check_tensor(t: &Tensor, dtype: DType, shape: &[usize], what: &str) {
    assert_eq!(t.dtype, dtype, "{what}: dtype");
    assert_eq!(t.shape, shape, "{what}: shape");
    assert_eq!(
        t.data.len(),
        shape.iter().product::<usize>() * dtype.size(),
        "{what}: bytes"
    );
}

/// Runs `call` on the GPU (host API, poisoned outputs) and checks shapes and values against the
/// reference; panics naming the call, the variant and what failed.
fn run_checked(rt: &Runtime, call: &Call, tunables: &Tunables, what: &str) -> Checked {
    let case = call.case();
    let want = case
        .run_reference()
        .unwrap_or_else(|e| panic!("{what}: {call}: reference: {e}"));
    let out = rt
        .run(
            &case.attrs,
            &case.input_refs(),
            &[true, call.spec.residual],
            tunables,
            &RunOptions { poison: true },
        )
        .unwrap_or_else(|e| panic!("{what}: {call}: {e}"));
    let plan = out.plan;
    let at = format!("{what}: {call} (variant {})", plan.variant);
    // The plan fits the profile it was made for.
    let limit = rt.profile().limit(STORAGE_LIMIT).unwrap_or(u64::MAX) as usize;
    for p in &plan.passes {
        assert!(
            storage_buffers(p) <= limit,
            "{at}: pass `{}` binds {} storage buffers, the profile allows {limit}",
            p.id,
            storage_buffers(p)
        );
    }
    assert_eq!(plan.rows as usize, call.rows(), "{at}: plan rows");
    assert_eq!(out.outputs.len(), 2, "{at}: outputs");
    let y = out.outputs[0]
        .clone()
        .unwrap_or_else(|| panic!("{at}: no Y"));
    check_tensor(
        &y,
        call.spec.dtype,
        &call.shape_with(call.spec.n),
        &format!("{at}: Y"),
    );
    assert_eq!(want.y.shape, y.shape, "{at}: Y shape vs reference");
    compare::check_scaled(&want.y_f64, &want.y_err_scale, &y, plan.f16_accumulation())
        .unwrap_or_else(|e| panic!("{at}: Y {e}"));
    let y_err = compare::max_abs_error(&want.y_f64, &y);
    let residual = out.outputs[1].clone();
    match (&residual, &want.residual_f64) {
        (Some(r), Some(r64)) => {
            check_tensor(
                r,
                call.spec.dtype,
                &call.shape_with(call.spec.k),
                &format!("{at}: input_skip_bias_sum"),
            );
            compare::check(r64, r).unwrap_or_else(|e| panic!("{at}: input_skip_bias_sum {e}"));
        }
        (None, None) => {}
        (got, _) => panic!(
            "{at}: input_skip_bias_sum requested: {}, produced: {}",
            call.spec.residual,
            got.is_some()
        ),
    }
    Checked {
        plan,
        y,
        residual,
        y_err,
    }
}

/// The manifest's `requires.limits.maxStorageBuffersPerShaderStage` of a variant (0 if none).
fn storage_needed(manifest: &Manifest, variant: &str) -> u64 {
    manifest
        .variants
        .iter()
        .find(|v| v.decl.id == variant)
        .unwrap_or_else(|| panic!("no variant `{variant}` in the manifest"))
        .decl
        .requires
        .as_ref()
        .and_then(|r| r.limits.get(STORAGE_LIMIT).copied())
        .unwrap_or(0)
}

/// Max |a - b| over two float tensors of equal size.
fn max_diff(a: &Tensor, b: &Tensor) -> f64 {
    assert_eq!(a.shape, b.shape);
    a.to_f64()
        .iter()
        .zip(b.to_f64())
        .fold(0f64, |m, (x, y)| m.max((x - y).abs()))
}

fn same_wgsl(a: &Plan, b: &Plan) -> bool {
    a.passes.len() == b.passes.len()
        && a.passes
            .iter()
            .zip(&b.passes)
            .all(|(p, q)| p.wgsl == q.wgsl)
}

// ---- 1. every variant -----------------------------------------------------------------------

/// Every case of the coverage matrix, float32 and float16, rank 2 (and rank 3 for every other
/// case), selects its expected variant and matches the reference; together they reach all 27
/// variants of the seed manifest.
#[test]
fn all_variants_reached_and_correct() {
    let Some(rt) = testing::seed_runtime() else {
        return;
    };
    let seed_manifest = Manifest::seed();
    let all: BTreeSet<String> = seed_manifest
        .variants
        .iter()
        .map(|v| v.decl.id.clone())
        .collect();
    assert_eq!(all.len(), 27, "the seed manifest has 27 variants");
    let need = all
        .iter()
        .map(|v| storage_needed(&seed_manifest, v))
        .max()
        .unwrap();
    let have = rt.profile().limit(STORAGE_LIMIT).unwrap();
    assert!(
        have >= need,
        "the device grants {have} storage buffers per stage; reaching every fused variant needs {need}"
    );

    let mut reached: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut i = 0;
    for dtype in [DType::F32, DType::F16] {
        for (j, case) in variant_matrix(dtype).iter().enumerate() {
            let spec = spec_of(case, seed(1, i));
            let mut calls = vec![Call::rank2(spec.clone())];
            if j % 2 == 1 {
                calls.push(Call::rank3(CaseSpec {
                    seed: seed(1, i + 1),
                    ..spec
                }));
            }
            for call in calls {
                i += 2;
                let c = run_checked(&rt, &call, &Tunables::new(), &case.name);
                assert_eq!(
                    c.plan.variant, case.expect,
                    "{} ({call}): wrong variant",
                    case.name
                );
                reached
                    .entry(c.plan.variant.clone())
                    .or_default()
                    .push(format!(
                        "{} rank {} ({dtype})",
                        case.name,
                        call.lead.len() + 1
                    ));
            }
        }
    }
    println!("variant                       reached by");
    for (v, cases) in &reached {
        println!("{v:<29} {}", cases.join("; "));
    }
    let missing: Vec<&String> = all.iter().filter(|v| !reached.contains_key(*v)).collect();
    assert!(missing.is_empty(), "variants never reached: {missing:?}");
    let unknown: Vec<&String> = reached.keys().filter(|v| !all.contains(*v)).collect();
    assert!(
        unknown.is_empty(),
        "variants outside the seed manifest reached: {unknown:?}"
    );
}

// ---- 2. 8 storage buffers ------------------------------------------------------------------

/// On a profile with 8 storage buffers per stage, every fused variant that needs more gives way
/// to its staged counterpart; results match the reference and the full profile's.
#[test]
fn eight_storage_buffers() {
    let Some(full) = testing::seed_runtime() else {
        return;
    };
    let Some(eight) = testing::seed_runtime_with(|p| p.with_limit(STORAGE_LIMIT, 8)) else {
        return;
    };
    let eight = eight.expect("a profile with 8 storage buffers is a restriction of the device");
    assert_eq!(eight.profile().limit(STORAGE_LIMIT), Some(8));
    // Both restrictions at once, on the float32 fused cases.
    let both =
        testing::seed_runtime_with(|p| p.with_limit(STORAGE_LIMIT, 8).without_feature("subgroups"))
            .expect("checked above")
            .expect("8 storage buffers without subgroups is a restriction of the device");
    let manifest = Manifest::seed();
    let mut cases: Vec<CoverageCase> = variant_matrix(DType::F32);
    cases.extend(
        variant_matrix(DType::F16)
            .into_iter()
            .filter(|c| c.expect.starts_with("fused_")),
    );
    let (mut gave_way, mut stayed_fused) = (BTreeSet::new(), BTreeSet::new());
    for (i, case) in cases.iter().enumerate() {
        let call = Call::rank2(spec_of(case, seed(2, i)));
        let needs = storage_needed(&manifest, &case.expect);
        let expect8 = if needs > 8 {
            case.expect.replacen("fused_", "staged_", 1)
        } else {
            case.expect.clone()
        };
        let what = format!("{} ({})", case.name, call.spec.dtype);
        let a = run_checked(
            &full,
            &call,
            &Tunables::new(),
            &format!("{what}, full profile"),
        );
        let b = run_checked(
            &eight,
            &call,
            &Tunables::new(),
            &format!("{what}, 8 storage buffers"),
        );
        assert_eq!(a.plan.variant, case.expect, "{what}: full profile");
        assert_eq!(
            b.plan.variant, expect8,
            "{what}: 8 storage buffers (needs {needs})"
        );
        if call.spec.dtype == DType::F32 && case.expect.starts_with("fused_") {
            let c = run_checked(
                &both,
                &call,
                &Tunables::new(),
                &format!("{what}, 8 storage buffers, no subgroups"),
            );
            assert_eq!(
                c.plan.variant, expect8,
                "{what}: 8 storage buffers, no subgroups"
            );
            assert!(
                c.plan.passes.iter().all(|p| !p.subgroups),
                "{what}: subgroups"
            );
        }
        if b.plan.variant.starts_with("fused_") {
            stayed_fused.insert(b.plan.variant.clone());
        } else if a.plan.variant.starts_with("fused_") {
            gave_way.insert(a.plan.variant.clone());
        }
        let dy = max_diff(&a.y, &b.y);
        let dr = match (&a.residual, &b.residual) {
            (Some(x), Some(y)) => max_diff(x, y),
            _ => 0.0,
        };
        if same_wgsl(&a.plan, &b.plan) {
            assert_eq!(
                a.y.data, b.y.data,
                "{what}: the same shaders gave different Y"
            );
        }
        if a.plan.variant != b.plan.variant {
            println!(
                "{what}: {} -> {}: max|Y_full - Y_8| = {dy:.3e} (vs reference {:.3e} / {:.3e}), residual {dr:.3e}",
                a.plan.variant, b.plan.variant, a.y_err, b.y_err
            );
        }
    }
    // Both outcomes happened: some fused variants fit 8 buffers, the others gave way.
    let fits: BTreeSet<String> = manifest
        .variants
        .iter()
        .filter(|v| v.decl.id.starts_with("fused_"))
        .filter(|v| storage_needed(&manifest, &v.decl.id) <= 8)
        .map(|v| v.decl.id.clone())
        .collect();
    let fused = manifest
        .variants
        .iter()
        .filter(|v| v.decl.id.starts_with("fused_"))
        .count();
    assert_eq!(stayed_fused, fits);
    assert!(!fits.is_empty() && !gave_way.is_empty());
    assert_eq!(gave_way.len() + fits.len(), fused, "{gave_way:?}");
}

// ---- 3. no subgroups ------------------------------------------------------------------------

/// Without the `subgroups` feature the matrix selects the same variants, no pass is marked for
/// subgroups, and results match the reference.
#[test]
fn subgroups_off() {
    let Some(full) = testing::seed_runtime() else {
        return;
    };
    let Some(rt) = testing::seed_runtime_with(|p| p.without_feature("subgroups")) else {
        return;
    };
    let rt = rt.expect("a profile without subgroups is a restriction of the device");
    assert!(!rt.profile().has_feature("subgroups"));
    let mut cases = variant_matrix(DType::F32);
    cases.extend(variant_matrix(DType::F16).into_iter().step_by(5));
    let mut marked_on_full = 0;
    for (i, case) in cases.iter().enumerate() {
        let call = Call::rank2(spec_of(case, seed(3, i)));
        let what = format!("{} ({}), no subgroups", case.name, call.spec.dtype);
        let c = run_checked(&rt, &call, &Tunables::new(), &what);
        assert_eq!(c.plan.variant, case.expect, "{what}");
        assert!(
            c.plan.passes.iter().all(|p| !p.subgroups),
            "{what}: a pass is marked for subgroups"
        );
        // The same call on the full profile does mark passes (when the device has subgroups):
        // the restriction changes something.
        let case_in = call.case();
        let on = full
            .plan(
                &Runtime::op_call(
                    &case_in.attrs,
                    &case_in.input_refs(),
                    &[true, call.spec.residual],
                ),
                &Tunables::new(),
            )
            .unwrap();
        assert_eq!(on.variant, c.plan.variant, "{what}");
        marked_on_full += on.passes.iter().filter(|p| p.subgroups).count();
    }
    if full.profile().has_feature("subgroups") {
        assert!(marked_on_full > 0, "no pass is ever marked for subgroups");
    }
}

// ---- 4. shapes ------------------------------------------------------------------------------

/// Bits, block sizes, K not a multiple of the block (and one that is), N not a multiple of any
/// tile, rows around the row tile, rank 2 and 3, both dtypes, random optional inputs: cycled
/// through so that every value meets several partners of every other list.
#[test]
fn shapes_sweep() {
    let Some(rt) = testing::runtime() else { return };
    const RUNS: usize = 84;
    let mut rng = Rng(0x5eed_5eed);
    // K: 93, 200, 1234 are multiples of none of the block sizes; 256 is of all of them (the
    // vectorised activation path of single rows).
    let mut lists = SpecCycles::new(&[93, 200, 1234, 256], &[37, 9, 1], &[0, 1, 2, 7, 8, 9, 33]);
    let mut rank3 = Cycle::new(&[false, true]);
    // Per list, the values each of its values met in the other lists.
    let mut seen: BTreeMap<(usize, String), BTreeSet<(usize, String)>> = BTreeMap::new();
    let mut variants: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..RUNS {
        // A norm two times in three: more calls reach the staged and fused variants.
        let spec = lists.next(&mut rng, 3, seed(4, i));
        let r3 = rank3.next(&mut rng);
        let values = [
            spec.bits.to_string(),
            spec.block_size.to_string(),
            spec.k.to_string(),
            spec.n.to_string(),
            spec.rows.to_string(),
            r3.to_string(),
            spec.dtype.to_string(),
        ];
        for (a, va) in values.iter().enumerate() {
            for (b, vb) in values.iter().enumerate() {
                if a != b {
                    seen.entry((a, va.clone()))
                        .or_default()
                        .insert((b, vb.clone()));
                }
            }
        }
        let call = if r3 {
            Call::rank3(spec)
        } else {
            Call::rank2(spec)
        };
        let c = run_checked(&rt, &call, &Tunables::new(), &format!("sweep #{i}"));
        if call.rows() == 0 {
            assert_eq!(c.plan.active_passes().count(), 0, "sweep #{i}: {call}");
        }
        println!("#{i:<3} {call}: {} (err {:.2e})", c.plan.variant, c.y_err);
        *variants.entry(c.plan.variant.clone()).or_default() += 1;
    }
    // Every value came several times, with at least two partners from each other list.
    let lens = [3, 4, 4, 3, 7, 2, 2];
    for ((list, value), partners) in &seen {
        for (other, len) in lens.iter().enumerate() {
            if other == *list {
                continue;
            }
            let met = partners.iter().filter(|(o, _)| *o == other).count();
            assert!(
                met >= 2.min(*len),
                "value {value} of list {list} met only {met} values of list {other}"
            );
        }
    }
    println!("variants: {variants:?}");
}

// ---- 5. tunables ----------------------------------------------------------------------------

/// Workgroup size and columns per workgroup of the `main` pass, and rows per workgroup, as the
/// manifest derives them.
fn expected_main(call: &Call, t: &BTreeMap<&str, i64>) -> ([u32; 3], [u32; 3]) {
    let s = &call.spec;
    let rows = call.rows();
    let (wg, cols, row_groups) = if rows <= 1 {
        let blob = s.block_size * s.bits as usize / 8;
        let vec = blob.is_multiple_of(16);
        let kb = s.k.div_ceil(s.block_size);
        let d = t["DECODE_WORKGROUP_SIZE"] as usize;
        let split = vec && kb * blob <= d * 16;
        (
            d * if split { 2 } else { 1 },
            if split { 8 } else { 4 },
            rows,
        )
    } else {
        let tile = t["TILE_N"] as usize;
        let row_tile = rows.min(t["ROW_TILE"] as usize);
        (tile * t["LANES"] as usize, tile, rows.div_ceil(row_tile))
    };
    (
        [wg as u32, 1, 1],
        [s.n.div_ceil(cols) as u32, row_groups as u32, 1],
    )
}

/// Tunable overrides, alone and combined, on multi-row and single-row calls with a norm: results
/// are right and the plan's workgroup sizes and dispatches follow them.
#[test]
fn tunables() {
    let Some(rt) = testing::seed_runtime() else {
        return;
    };
    let defaults: BTreeMap<&str, i64> = [
        ("TILE_N", 8),
        ("LANES", 8),
        ("ROW_TILE", 8),
        ("DECODE_WORKGROUP_SIZE", 64),
        ("NORM_WORKGROUP_SIZE", 128),
    ]
    .into_iter()
    .collect();
    let settings: Vec<Vec<(&str, i64)>> = vec![
        vec![],
        vec![("TILE_N", 4)],
        vec![("TILE_N", 16)],
        vec![("LANES", 4)],
        vec![("LANES", 16)],
        vec![("ROW_TILE", 1)],
        vec![("ROW_TILE", 4)],
        vec![("DECODE_WORKGROUP_SIZE", 32)],
        vec![("DECODE_WORKGROUP_SIZE", 128)],
        vec![("NORM_WORKGROUP_SIZE", 64)],
        vec![("NORM_WORKGROUP_SIZE", 256)],
        vec![("TILE_N", 16), ("LANES", 16), ("ROW_TILE", 4)],
        vec![
            ("TILE_N", 4),
            ("LANES", 4),
            ("ROW_TILE", 1),
            ("DECODE_WORKGROUP_SIZE", 32),
            ("NORM_WORKGROUP_SIZE", 64),
        ],
        vec![
            ("TILE_N", 16),
            ("LANES", 4),
            ("DECODE_WORKGROUP_SIZE", 128),
            ("NORM_WORKGROUP_SIZE", 256),
        ],
    ];
    let norm = CaseSpec {
        norm: true,
        ..Default::default()
    };
    let calls = [
        // Multi-row, staged: a norm pass and a row-tiled main pass.
        Call::rank2(CaseSpec {
            k: 200,
            n: 37,
            rows: 9,
            skip: true,
            residual: true,
            gate_bias: true,
            ..norm.clone()
        }),
        Call::rank3(CaseSpec {
            k: 93,
            n: 9,
            rows: 33,
            dtype: DType::F16,
            bits: 8,
            block_size: 16,
            up_bias: true,
            ..norm.clone()
        }),
        // Single row, fused (8-byte blobs: the scalar decode walk).
        Call::rank2(CaseSpec {
            k: 100,
            n: 37,
            block_size: 16,
            skip: true,
            ..norm.clone()
        }),
        // Single row, staged (16-byte blobs: vectorised decode; K = 1234 has 39 blocks, so the
        // lane split depends on DECODE_WORKGROUP_SIZE).
        Call::rank2(CaseSpec {
            k: 1234,
            n: 37,
            dtype: DType::F16,
            gate_bias: true,
            up_bias: true,
            ..norm.clone()
        }),
        Call::rank2(CaseSpec {
            k: 256,
            n: 9,
            ..norm
        }),
    ];
    let mut i = 0;
    for setting in &settings {
        let t = overrides(setting);
        let mut values = defaults.clone();
        values.extend(setting.iter().copied());
        for call in &calls {
            let call = Call {
                spec: CaseSpec {
                    seed: seed(5, i),
                    ..call.spec.clone()
                },
                ..call.clone()
            };
            i += 1;
            let what = format!("tunables {setting:?}");
            let c = run_checked(&rt, &call, &t, &what);
            let at = format!("{what}: {call} (variant {})", c.plan.variant);
            for (name, v) in setting {
                assert_eq!(c.plan.tunables.get(*name), Some(v), "{at}: plan.tunables");
            }
            let main = c
                .plan
                .passes
                .iter()
                .find(|p| p.id == "main")
                .unwrap_or_else(|| panic!("{at}: no main pass"));
            let (wg, dispatch) = expected_main(&call, &values);
            assert_eq!(main.workgroup_size, wg, "{at}: main workgroup size");
            if !c.plan.variant.starts_with("fused_") {
                assert_eq!(main.dispatch, dispatch, "{at}: main dispatch");
            }
            match c.plan.passes.iter().find(|p| p.id == "norm") {
                Some(norm) => {
                    let n = values["NORM_WORKGROUP_SIZE"] as u32;
                    assert_eq!(norm.workgroup_size, [n, 1, 1], "{at}: norm workgroup size");
                }
                None => assert!(c.plan.variant.starts_with("fused_"), "{at}: no norm pass"),
            }
        }
    }
}

// ---- 6. repeatability -----------------------------------------------------------------------

/// One plan run 1000 times on device tensors gives the same bits every time and grows nothing
/// in the runtime after the first run; 20 host runs of it give the same bits too.
#[test]
fn repeatable_and_no_growth() {
    let Some(rt) = testing::runtime() else { return };
    // Staged: two passes, an intermediate and a uniform buffer; both outputs.
    let call = Call::rank3(CaseSpec {
        k: 200,
        n: 37,
        rows: 9,
        norm: true,
        skip: true,
        residual: true,
        gate_bias: true,
        up_bias: true,
        seed: seed(6, 0),
        ..Default::default()
    });
    let case = call.case();
    let want = case.run_reference().unwrap();
    let plan = rt
        .plan(
            &Runtime::op_call(&case.attrs, &case.input_refs(), &[true, true]),
            &Tunables::new(),
        )
        .unwrap();
    // A two-pass plan with an intermediate and a uniform: `gemvr_*` (or `tiled_*`) with the
    // project overlay (`staged_*` on the seed manifest alone).
    assert!(
        (plan.variant.starts_with("staged_")
            || plan.variant.starts_with("tiled_")
            || plan.variant.starts_with("gemvr_"))
            && !plan.intermediates.is_empty(),
        "{}",
        plan.variant
    );
    let inputs: Vec<_> = case
        .inputs
        .iter()
        .map(|t| t.as_ref().map(|t| rt.upload(t).unwrap()))
        .collect();
    let outputs = rt.alloc_outputs(&plan).unwrap();
    let ins: Vec<_> = inputs.iter().map(Option::as_ref).collect();
    let outs: Vec<_> = outputs.iter().map(Option::as_ref).collect();
    for o in outs.iter().flatten() {
        rt.fill(o, 0xFF).unwrap();
    }
    let download = || -> Vec<Tensor> {
        outs.iter()
            .flatten()
            .map(|o| rt.download(o).unwrap())
            .collect()
    };
    rt.run_on_device(&plan, &ins, &outs).unwrap();
    let first = download();
    compare::check(&want.y_f64, &first[0]).unwrap_or_else(|e| panic!("{call}: Y {e}"));
    compare::check(want.residual_f64.as_ref().unwrap(), &first[1])
        .unwrap_or_else(|e| panic!("{call}: residual {e}"));
    let after_first: RuntimeStats = rt.stats();
    assert!(
        after_first.pipelines >= 2 && after_first.prepared_plans == 1,
        "{after_first:?}"
    );
    for i in 1..1000 {
        rt.run_on_device(&plan, &ins, &outs).unwrap();
        if i == 500 {
            assert_eq!(download(), first, "after {} runs", i + 1);
        }
    }
    assert_eq!(download(), first, "after 1000 runs");
    assert_eq!(download(), first, "downloaded again");
    assert_eq!(rt.stats(), after_first, "the runtime grew");

    // Host runs of the same plan: the same bits as on device tensors, no growth after the first.
    let run = || {
        rt.run_plan(&plan, &case.input_refs(), &RunOptions { poison: true })
            .unwrap()
            .into_iter()
            .map(|t| t.unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(run(), first, "host run vs device run");
    let after_host = rt.stats();
    assert_eq!(
        (after_host.pipelines, after_host.prepared_plans),
        (after_first.pipelines, after_first.prepared_plans)
    );
    for i in 0..20 {
        assert_eq!(run(), first, "host run {i}");
        assert_eq!(rt.stats(), after_host, "host run {i}: the runtime grew");
    }
}

// ---- 7. empty input -------------------------------------------------------------------------

/// No rows (`[0, K]`, `[2, 0, K]`): empty outputs of the right shapes, and nothing runs (no
/// pipeline compiled, no plan prepared, no pooled buffer), on host and device tensors.
#[test]
fn empty_input() {
    let Some(rt) = testing::runtime() else { return };
    let mut i = 0;
    for dtype in [DType::F32, DType::F16] {
        for (norm, skip, residual, gb, ub) in [
            (false, false, false, false, false),
            (true, false, false, true, false),
            (true, true, true, true, true),
        ] {
            let spec = CaseSpec {
                k: 93,
                n: 37,
                rows: 0,
                dtype,
                norm,
                skip,
                residual,
                gate_bias: gb,
                up_bias: ub,
                seed: seed(7, i),
                ..Default::default()
            };
            i += 1;
            for call in [Call::rank2(spec.clone()), Call::rank3(spec)] {
                let c = run_checked(&rt, &call, &Tunables::new(), "empty");
                let at = format!("{call} (variant {})", c.plan.variant);
                assert_eq!(c.plan.active_passes().count(), 0, "{at}: a pass would run");
                assert!(c.y.data.is_empty(), "{at}");
                assert_eq!(c.residual.is_some(), residual, "{at}");
                // Device tensors: nothing runs, downloads are empty.
                let case = call.case();
                let inputs: Vec<_> = case
                    .inputs
                    .iter()
                    .map(|t| t.as_ref().map(|t| rt.upload(t).unwrap()))
                    .collect();
                let outputs = rt.alloc_outputs(&c.plan).unwrap();
                let ins: Vec<_> = inputs.iter().map(Option::as_ref).collect();
                let outs: Vec<_> = outputs.iter().map(Option::as_ref).collect();
                rt.run_on_device(&c.plan, &ins, &outs).unwrap();
                let y = rt.download(outs[0].unwrap()).unwrap();
                check_tensor(
                    &y,
                    dtype,
                    &call.shape_with(37),
                    &format!("{at}: Y on device"),
                );
                if let Some(r) = outs[1] {
                    let r = rt.download(r).unwrap();
                    check_tensor(
                        &r,
                        dtype,
                        &call.shape_with(93),
                        &format!("{at}: residual on device"),
                    );
                }
            }
        }
    }
    let s = rt.stats();
    assert_eq!(
        (s.pipelines, s.prepared_plans, s.pool.created),
        (0, 0, 0),
        "something ran: {s:?}"
    );
}

// ---- real size (ignored) --------------------------------------------------------------------

/// A decode step at a real model's size (K 4096, N 14336, float16): correctness, and the GPU
/// time of the plan on device tensors where timestamps exist. Slow on a software device.
#[test]
#[ignore = "slow on a software device; run with --ignored"]
fn real_size_decode() {
    let Some(rt) = testing::runtime() else { return };
    let call = Call::rank2(CaseSpec {
        k: 4096,
        n: 14336,
        rows: 1,
        dtype: DType::F16,
        norm: true,
        skip: true,
        residual: true,
        seed: 1,
        ..Default::default()
    });
    let c = run_checked(&rt, &call, &Tunables::new(), "real size");
    let case = call.case();
    let inputs: Vec<_> = case
        .inputs
        .iter()
        .map(|t| t.as_ref().map(|t| rt.upload(t).unwrap()))
        .collect();
    let outputs = rt.alloc_outputs(&c.plan).unwrap();
    let ins: Vec<_> = inputs.iter().map(Option::as_ref).collect();
    let outs: Vec<_> = outputs.iter().map(Option::as_ref).collect();
    if rt.gpu().has_timestamps() {
        let mut t = rt.time_plan(&c.plan, &ins, &outs, 5).unwrap();
        t.sort_by(f64::total_cmp);
        println!(
            "{}: {:.0} us per decode step (median of 5)",
            c.plan.variant, t[2]
        );
    }
}

// ---- 8. the project's own variants -----------------------------------------------------------

/// With the project manifest (seed + overlay), every single row whose padded K is a multiple of
/// 32 takes a `gemv_*` variant (the float16 norm forms the one-pass `gemv_fused_*`; with
/// `GEMV_INLINE_NORM` 0 or 1 the two-pass or the one-pass ones for either dtype), 2-16 such rows
/// (2-20 for float32) the multi-row `gemvr_*`, and every call of two rows or more the
/// register-tiled `tiled_*` when the multi-row gemv is off (`GEMV_MAX_ROWS=1`; `tiled_split_*`
/// with K split in slices, `TILED_SPLIT_K=3`); all 76 are reached and right.
#[test]
fn project_overlay_variants() {
    let Some(rt) = testing::runtime() else { return };
    let ours: BTreeSet<String> = rt
        .planner()
        .manifest()
        .variants
        .iter()
        .map(|v| v.decl.id.clone())
        .filter(|v| v.starts_with("tiled_") || v.starts_with("gemv"))
        .collect();
    assert_eq!(
        ours.len(),
        76,
        "the overlay has 16 tiled, 16 split tiled, 16 gemv, 12 fused gemv and 16 multi-row gemv \
         variants"
    );
    let mut reached = BTreeSet::new();
    let mut i = 0;
    for dtype in [DType::F32, DType::F16] {
        for case in variant_matrix(dtype) {
            let s = &case.shape;
            // (tunables, expected variant): the defaults (no split: these K are small), then
            // each norm form both ways for single rows, or K split in 3 slices for many rows.
            let mut runs = vec![(
                overrides(&[("TILED_SPLIT_K", 1)]),
                nbits_mlp_core::coverage::project_expect(&case),
            )];
            if s.norm && s.rows() == 1 {
                for inline_norm in [false, true] {
                    runs.push((
                        overrides(&[("GEMV_INLINE_NORM", i64::from(inline_norm))]),
                        nbits_mlp_core::coverage::project_expect_with(&case, inline_norm),
                    ));
                }
            }
            if s.rows() >= 2 {
                let rest = case.expect.split_once('_').map_or("", |(_, r)| r);
                runs.push((
                    overrides(&[("TILED_SPLIT_K", 1), ("GEMV_MAX_ROWS", 1)]),
                    format!("tiled_{rest}"),
                ));
                if s.k > 32 {
                    runs.push((
                        overrides(&[("TILED_SPLIT_K", 3), ("GEMV_MAX_ROWS", 1)]),
                        format!("tiled_split_{rest}"),
                    ));
                }
            }
            for (t, expect) in runs {
                i += 1;
                let call = Call::rank2(spec_of(&case, seed(8, i)));
                let c = run_checked(&rt, &call, &t, &case.name);
                assert_eq!(c.plan.variant, expect, "{} ({call}, {t:?})", case.name);
                reached.insert(c.plan.variant.clone());
            }
        }
    }
    let missing: Vec<&String> = ours.difference(&reached).collect();
    assert!(
        missing.is_empty(),
        "overlay variants never reached: {missing:?}"
    );
}

/// The single-row `gemv_*` kernel across bit widths, block sizes, K not a multiple of the block,
/// N not a multiple of the columns per workgroup, both dtypes, every norm form, and its tunables
/// (workgroup size, columns per workgroup, columns per batch, inline norm or the norm pass),
/// against the reference with poisoned outputs.
#[test]
fn gemv_sweep() {
    let Some(rt) = testing::runtime() else { return };
    const RUNS: usize = 36;
    let mut rng = Rng(0x6e3f);
    let mut lists = SpecCycles::new(&[93, 200, 256, 1234, 4096, 5000], &[1, 9, 37, 300], &[1]);
    let mut wgs = Cycle::new(&[32i64, 64, 128, 256]);
    let mut cols = Cycle::new(&[1i64, 3, 8, 16, 24]);
    let mut batch = Cycle::new(&[1i64, 2, 4, 8]);
    let mut inline_norm = Cycle::new(&[0i64, 1]);
    let mut gemv = 0;
    for i in 0..RUNS {
        let spec = lists.next(&mut rng, 4, seed(9, i));
        let wg = wgs.next(&mut rng);
        let t = overrides(&[
            ("GEMV_WORKGROUP_SIZE", wg),
            ("GEMV_COLS", cols.next(&mut rng)),
            ("GEMV_BATCH", batch.next(&mut rng)),
            ("GEMV_INLINE_NORM", inline_norm.next(&mut rng)),
        ]);
        let padded_k = spec.k.div_ceil(spec.block_size) * spec.block_size;
        // The kernel takes up to 4 units of 32 codes per thread.
        let units = padded_k.div_ceil(32);
        let threads = (wg as usize).min(units.next_power_of_two().max(32));
        let fits = padded_k.is_multiple_of(32) && units.div_ceil(threads) <= 4;
        let call = Call::rank2(spec);
        let c = run_checked(&rt, &call, &t, &format!("gemv #{i} {t:?}"));
        if took(&c, "gemv_", fits, &format!("gemv #{i:<3} {call} {t:?}")) {
            gemv += 1;
        }
    }
    assert!(
        gemv >= RUNS / 2,
        "only {gemv} of {RUNS} runs took a gemv variant"
    );
}

/// The multi-row gemv (`gemvr_*`, 2-20 rows, `GEMV_MAX_ROWS=20`): row groups that do not divide
/// the rows, K not a multiple of the block, N not a multiple of the columns per workgroup, both
/// dtypes, every norm form, rank 3, its tunables, against the reference with poisoned outputs.
#[test]
fn gemvr_sweep() {
    let Some(rt) = testing::runtime() else { return };
    const RUNS: usize = 28;
    let mut rng = Rng(0x6e37);
    let mut lists = SpecCycles::new(
        &[93, 256, 1234, 4096, 5000],
        &[1, 9, 37, 300],
        &[2, 3, 7, 16, 20],
    );
    let mut groups = Cycle::new(&[1i64, 2, 4, 8]);
    let mut cols = Cycle::new(&[1i64, 3, 16, 24]);
    let mut batch = Cycle::new(&[0i64, 1, 2]);
    let mut gemvr = 0;
    for i in 0..RUNS {
        let spec = lists.next(&mut rng, 3, seed(23, i));
        let t = overrides(&[
            ("GEMV_ROWS", groups.next(&mut rng)),
            ("GEMV_COLS", cols.next(&mut rng)),
            ("GEMV_BATCH", batch.next(&mut rng)),
            // Up to 20 rows for both dtypes (the default stops float16 at 16); float16 calls
            // off the mma kernel, which takes them where cooperative matrices run.
            ("GEMV_MAX_ROWS", 20),
            ("MMA_MAX_ROWS", 1),
        ]);
        let padded_k = spec.k.div_ceil(spec.block_size) * spec.block_size;
        let call = if i % 5 == 4 {
            Call::rank3(spec)
        } else {
            Call::rank2(spec)
        };
        let c = run_checked(&rt, &call, &t, &format!("gemvr #{i} {t:?}"));
        // Every K here is at most 4 units of 32 codes per thread of 256.
        let what = format!("gemvr #{i:<3} {call} {t:?}");
        if took(&c, "gemvr_", padded_k.is_multiple_of(32), &what) {
            gemvr += 1;
        }
    }
    assert!(gemvr >= RUNS / 2, "only {gemvr} of {RUNS} runs took gemvr");
}

/// Split K (`tiled_split_*`, and `coop_split_*` where cooperative matrices run): K not a
/// multiple of the 32-code chunk or of the block, slices that do not divide the chunks, rows
/// around the tiles, N not a multiple of a tile, both dtypes, every norm form, against the
/// reference with poisoned outputs (the reduce pass must write every element).
#[test]
fn split_k_sweep() {
    let Some(rt) = testing::runtime() else { return };
    const RUNS: usize = 24;
    let mut rng = Rng(0x5711);
    let mut lists = SpecCycles::new(&[93, 200, 1234, 4096], &[1, 37, 300], &[2, 7, 16, 33, 70]);
    let mut splits = Cycle::new(&[2i64, 3, 5, 8]);
    for i in 0..RUNS {
        let spec = lists.next(&mut rng, 3, seed(22, i));
        let s = splits.next(&mut rng);
        let t = overrides(&[
            ("TILED_SPLIT_K", s),
            ("COOP_SPLIT_K", s),
            ("GEMV_MAX_ROWS", 1),
            ("MMA_MAX_ROWS", 1),
        ]);
        let call = Call::rank2(spec);
        let c = run_checked(&rt, &call, &t, &format!("split #{i} {t:?}"));
        assert!(
            c.plan.variant.starts_with("tiled_split_") || c.plan.variant.starts_with("coop_split_"),
            "split #{i} {call}: {}",
            c.plan.variant
        );
        println!(
            "#{i:<3} {call} {t:?}: {} (err {:.2e})",
            c.plan.variant, c.y_err
        );
    }
}

/// The overlay's `coop_*` variants (cooperative matrices, f16 16x16x16 with f32 accumulators):
/// all 16 reached and right against the reference with poisoned outputs at awkward sizes (rows
/// around the 32/64-row tiles, N not a multiple of 128, K a partial block and not a multiple of
/// the 32-code chunk, bits 2/4/8, rank 3), plus a few larger shapes, each unsplit and with K
/// split in 3 slices (the 16 `coop_split_*`); each result is also compared with the
/// register-tiled variant's on the same device (both within tolerance of the reference). Every
/// call runs with float16 and with float32 activations: the float32 form (`COOP_F32`, split f16
/// tiles) is held to the float32 tolerance.
/// Skipped, with a note, on an adapter without cooperative matrices (lavapipe).
#[test]
fn coop_variants() {
    let Some(rt) = testing::runtime() else { return };
    let feature = "coop-f16-16x16x16-f32";
    if !(rt.profile().has_feature(feature) && rt.profile().has_feature("subgroup-size-32")) {
        eprintln!(
            "coop_variants: skipped: {} has no `{feature}` with 32-wide subgroups (features: {:?})",
            rt.gpu().info().name,
            rt.profile().features
        );
        return;
    }
    let tiled = testing::runtime_with(|p| p.without_feature(feature))
        .expect("a GPU")
        .expect("a restriction of the device");
    let mut calls: Vec<(String, Call, String)> = Vec::new();
    for (i, case) in nbits_mlp_core::coverage::coop_matrix().iter().enumerate() {
        let spec = spec_of(case, seed(20, i));
        calls.push((
            case.name.clone(),
            Call::rank2(spec.clone()),
            case.expect.clone(),
        ));
        if i % 4 == 1 {
            calls.push((
                format!("{} rank 3", case.name),
                Call::rank3(spec),
                case.expect.clone(),
            ));
        }
    }
    // (K, N, rows, bits, block, norm): larger shapes, row counts around the tiles.
    let big: &[(usize, usize, usize, u32, usize, bool)] = &[
        (512, 1000, 100, 4, 32, true),
        (4096, 384, 128, 4, 32, true),
        (1024, 640, 65, 8, 32, false),
        (768, 256, 31, 2, 64, true),
        (4096, 512, 512, 4, 32, true),
    ];
    for (j, &(k, n, rows, bits, block_size, norm)) in big.iter().enumerate() {
        let spec = CaseSpec {
            k,
            n,
            rows,
            rank3: false,
            dtype: DType::F16,
            bits,
            block_size,
            skip: norm,
            norm,
            residual: norm,
            gate_bias: j % 2 == 1,
            up_bias: j % 3 == 1,
            seed: seed(21, j),
        };
        let call = Call::rank2(spec);
        let prefix = if norm { "coop_skipsum_" } else { "coop_" };
        let expect = format!(
            "{prefix}{}_{}",
            if call.spec.gate_bias { "gb" } else { "nogb" },
            if call.spec.up_bias { "ub" } else { "noub" }
        );
        calls.push((format!("big {j}"), call, expect));
    }
    // The same calls with float32 activations.
    let f32_calls: Vec<(String, Call, String)> = calls
        .iter()
        .map(|(name, call, expect)| {
            let mut c = call.clone();
            c.spec.dtype = DType::F32;
            (format!("{name} f32"), c, expect.clone())
        })
        .collect();
    calls.extend(f32_calls);
    let mut reached = BTreeSet::new();
    // Each call unsplit, and with K in 3 slices (`coop_split_*`) where K has 2 chunks or more;
    // the tiled variant it is compared with runs unsplit.
    let unsplit = overrides(&[
        ("COOP_SPLIT_K", 1),
        ("TILED_SPLIT_K", 1),
        ("GEMV_MAX_ROWS", 1),
        ("MMA_MAX_ROWS", 1),
    ]);
    let split = overrides(&[
        ("COOP_SPLIT_K", 3),
        ("GEMV_MAX_ROWS", 1),
        ("MMA_MAX_ROWS", 1),
    ]);
    let runs: Vec<(&String, &Call, String, &Tunables)> = calls
        .iter()
        .flat_map(|(name, call, expect)| {
            let mut v = vec![(name, call, expect.clone(), &unsplit)];
            if call.spec.k > 32 {
                v.push((
                    name,
                    call,
                    expect.replacen("coop_", "coop_split_", 1),
                    &split,
                ));
            }
            v
        })
        .collect();
    for (name, call, expect, tunables) in runs {
        let c = run_checked(&rt, call, tunables, name);
        assert_eq!(c.plan.variant, expect, "{name} ({call}, {tunables:?})");
        reached.insert(c.plan.variant.clone());
        let t = run_checked(&tiled, call, &unsplit, name);
        assert!(
            t.plan.variant.starts_with("tiled_"),
            "{name}: {}",
            t.plan.variant
        );
        let tol = compare::default_tolerance(call.spec.dtype, {
            let y = t.y.to_f64();
            y.iter().fold(0f64, |m, v| m.max(v.abs()))
        });
        eprintln!(
            "coop_variants: {name} ({call}): {} err {:.3e}, {} err {:.3e}, |coop - tiled| {:.3e}, tol {tol:.3e}",
            c.plan.variant,
            c.y_err,
            t.plan.variant,
            t.y_err,
            max_diff(&c.y, &t.y)
        );
    }
    assert_eq!(reached.len(), 32, "coop variants reached: {reached:?}");
}

/// The overlay's `mma_*` variants (float16 models from 8 rows on tensor cores, one pass over the
/// weights for every row of a tile): all 32 (16 forms, K whole and in 3 slices) reached and right
/// against the reference with poisoned outputs at the coverage matrix's awkward sizes (rank 3
/// for some), then a sweep: rows around the 16-row blocks and the 64-row tile (2 to 130, with
/// `MMA_MIN_ROWS=2`), N not a multiple of 16 or 128, K with a partial chunk and block, bits
/// 2/4/8, blocks 16-128, row blocks per tile, chunks per fetch and K slices by tunable (odd
/// chunk counts per slice for the fetch groups), every norm form.
/// Skipped, with a note, on an adapter without cooperative matrices (lavapipe).
#[test]
fn mma_variants() {
    let Some(rt) = testing::runtime() else { return };
    let feature = "coop-f16-16x16x16-f32";
    if !(rt.profile().has_feature(feature) && rt.profile().has_feature("subgroup-size-32")) {
        eprintln!(
            "mma_variants: skipped: {} has no `{feature}` with 32-wide subgroups (features: {:?})",
            rt.gpu().info().name,
            rt.profile().features
        );
        return;
    }
    let mut reached = BTreeSet::new();
    for (i, case) in nbits_mlp_core::coverage::mma_matrix().iter().enumerate() {
        let spec = spec_of(case, seed(24, i));
        let call = if i % 4 == 1 {
            Call::rank3(spec)
        } else {
            Call::rank2(spec)
        };
        let runs = [
            (overrides(&[("MMAP_MAX_ROWS", 0)]), case.expect.clone()),
            (
                overrides(&[("MMA_SPLIT_K", 3), ("MMAP_MAX_ROWS", 0)]),
                case.expect.replacen("mma_", "mma_split_", 1),
            ),
        ];
        for (t, expect) in runs {
            let c = run_checked(&rt, &call, &t, &case.name);
            assert_eq!(c.plan.variant, expect, "{} ({call}, {t:?})", case.name);
            eprintln!(
                "mma_variants: {} ({call}): {} err {:.3e}",
                case.name, c.plan.variant, c.y_err
            );
            reached.insert(c.plan.variant.clone());
        }
    }
    assert_eq!(reached.len(), 32, "mma variants reached: {reached:?}");
    const RUNS: usize = 30;
    let mut rng = Rng(0x3a3a);
    let mut lists = SpecCycles::new(
        &[64, 200, 328, 1000, 4096],
        &[16, 37, 130, 300],
        &[2, 15, 16, 17, 31, 48, 64, 65, 130],
    );
    let mut row_blocks = Cycle::new(&[0i64, 1, 2, 4]);
    let mut splits = Cycle::new(&[0i64, 1, 2, 5]);
    let mut groups = Cycle::new(&[0i64, 1, 2, 4]);
    let mut mma = 0;
    for i in 0..RUNS {
        let mut spec = lists.next(&mut rng, 3, seed(25, i));
        spec.dtype = DType::F16;
        let t = overrides(&[
            ("MMA_MIN_ROWS", 2),
            ("MMA_ROW_BLOCKS", row_blocks.next(&mut rng)),
            ("MMA_SPLIT_K", splits.next(&mut rng)),
            ("MMA_FETCH_GROUP", groups.next(&mut rng)),
            ("MMAP_MAX_ROWS", 0),
        ]);
        // A weight row must be a whole number of 16-byte vectors (every K here is a multiple
        // of 8, every block a power of two from 16).
        let row_bytes = spec.k.div_ceil(spec.block_size) * spec.block_size * spec.bits as usize / 8;
        let fits = row_bytes.is_multiple_of(16);
        let call = if i % 5 == 4 {
            Call::rank3(spec)
        } else {
            Call::rank2(spec)
        };
        let c = run_checked(&rt, &call, &t, &format!("mma #{i} {t:?}"));
        if took(&c, "mma_", fits, &format!("mma #{i:<3} {call} {t:?}")) {
            mma += 1;
        }
    }
    assert!(mma >= RUNS / 2, "only {mma} of {RUNS} runs took mma");
}

/// The overlay's `mmap_*` variants (the `mma` kernel on prepared weights, `core::layout`'s
/// `mma-tiles`, which the runtime builds from the caller's tensors): all 32 (16 forms, K whole
/// and in 3 slices) reached and right against the reference with poisoned outputs at the
/// coverage matrix's awkward sizes (N and K padded to the tiles, weight rows that are not whole
/// 16-byte vectors), then a sweep with `MMA_MIN_ROWS=2` and `MMAP_MAX_ROWS` open: rows around
/// every 16-row block and tile (2 to 130), N not a multiple of 16 or 128, K with a partial chunk
/// and block, bits 2/4/8, blocks 16-256, row blocks, fetch groups and K slices by tunable,
/// every norm form; then device tensors: the prepared copies are built on the first run, kept
/// with the weight tensors (none built on the next runs) and rebuilt after `write_tensor`.
/// Skipped, with a note, on an adapter without cooperative matrices (lavapipe).
#[test]
fn mmap_variants() {
    let Some(rt) = testing::runtime() else { return };
    let feature = "coop-f16-16x16x16-f32";
    if !(rt.profile().has_feature(feature) && rt.profile().has_feature("subgroup-size-32")) {
        eprintln!(
            "mmap_variants: skipped: {} has no `{feature}` with 32-wide subgroups (features: {:?})",
            rt.gpu().info().name,
            rt.profile().features
        );
        return;
    }
    let mut reached = BTreeSet::new();
    for (i, case) in nbits_mlp_core::coverage::mmap_matrix().iter().enumerate() {
        let spec = spec_of(case, seed(26, i));
        let call = if i % 4 == 1 {
            Call::rank3(spec)
        } else {
            Call::rank2(spec)
        };
        let runs = [
            (overrides(&[("MMAP_SPLIT_K", 1)]), case.expect.clone()),
            (
                overrides(&[("MMAP_SPLIT_K", 3)]),
                case.expect.replacen("mmap_", "mmap_split_", 1),
            ),
        ];
        for (t, expect) in runs {
            let c = run_checked(&rt, &call, &t, &case.name);
            assert_eq!(c.plan.variant, expect, "{} ({call}, {t:?})", case.name);
            eprintln!(
                "mmap_variants: {} ({call}): {} err {:.3e}",
                case.name, c.plan.variant, c.y_err
            );
            reached.insert(c.plan.variant.clone());
        }
    }
    assert_eq!(reached.len(), 32, "mmap variants reached: {reached:?}");
    const RUNS: usize = 30;
    let mut rng = Rng(0x3b3b);
    let mut lists = SpecCycles::new(
        &[64, 200, 328, 1000, 4096],
        &[16, 37, 130, 300],
        &[2, 15, 16, 17, 31, 33, 48, 64, 65, 130],
    );
    let mut row_blocks = Cycle::new(&[0i64, 1, 2, 4]);
    let mut splits = Cycle::new(&[0i64, 1, 2, 5]);
    let mut groups = Cycle::new(&[0i64, 1, 2, 4]);
    let mut mmap = 0;
    for i in 0..RUNS {
        let mut spec = lists.next(&mut rng, 3, seed(27, i));
        spec.dtype = DType::F16;
        let t = overrides(&[
            ("MMA_MIN_ROWS", 2),
            ("MMAP_MAX_ROWS", 65535),
            ("MMA_ROW_BLOCKS", row_blocks.next(&mut rng)),
            ("MMAP_SPLIT_K", splits.next(&mut rng)),
            ("MMA_FETCH_GROUP", groups.next(&mut rng)),
        ]);
        let call = if i % 5 == 4 {
            Call::rank3(spec)
        } else {
            Call::rank2(spec)
        };
        // Every K here is a multiple of 8 and every block a power of two from 16: all fit.
        let c = run_checked(&rt, &call, &t, &format!("mmap #{i} {t:?}"));
        if took(&c, "mmap_", true, &format!("mmap #{i:<3} {call} {t:?}")) {
            mmap += 1;
        }
    }
    assert_eq!(mmap, RUNS);
    mmap_device_tensors(&rt);
}

/// `mmap_*` on device tensors: prepared copies built once per weight tensor, rebuilt after the
/// tensor is overwritten, results right against the reference each time.
fn mmap_device_tensors(rt: &Runtime) {
    let spec = CaseSpec {
        k: 328,
        n: 130,
        rows: 19,
        dtype: DType::F16,
        bits: 2,
        block_size: 16,
        seed: seed(28, 0),
        ..CaseSpec::default()
    };
    let mut case = Call::rank2(spec.clone()).case();
    let plan = rt
        .plan(
            &Runtime::op_call(&case.attrs, &case.input_refs(), &[true, false]),
            &Tunables::new(),
        )
        .expect("plan");
    assert!(plan.variant.starts_with("mmap_"), "{}", plan.variant);
    let dev: Vec<Option<GpuTensor>> = case
        .input_refs()
        .iter()
        .map(|t| t.map(|t| rt.upload(t).expect("upload")))
        .collect();
    let dev_refs: Vec<Option<&GpuTensor>> = dev.iter().map(Option::as_ref).collect();
    assert_eq!(
        rt.prepare_inputs(&plan, &dev_refs).expect("prepare"),
        4,
        "gate_B, gate_scales, up_B, up_scales prepared"
    );
    assert_eq!(rt.prepare_inputs(&plan, &dev_refs).expect("again"), 0);
    let outs = rt.alloc_outputs(&plan).expect("outputs");
    let out_refs: Vec<Option<&GpuTensor>> = outs.iter().map(Option::as_ref).collect();
    let check = |what: &str, case: &Case| {
        let want = case.run_reference().expect("reference");
        let y = out_refs[0].expect("Y");
        rt.fill(y, 0xff).expect("poison");
        rt.run_on_device(&plan, &dev_refs, &out_refs).expect("run");
        let y = rt.download(y).expect("download");
        compare::check_scaled(&want.y_f64, &want.y_err_scale, &y, plan.f16_accumulation())
            .unwrap_or_else(|e| panic!("mmap on device tensors, {what}: {e}"));
    };
    check("first run", &case);
    check("second run", &case);
    // Overwriting a weight tensor drops its prepared copies: the next run rebuilds them.
    let other = Call::rank2(CaseSpec {
        seed: seed(28, 1),
        ..spec
    })
    .case();
    let gate_b = other.inputs[3].clone().expect("gate_B");
    rt.write_tensor(dev_refs[3].expect("gate_B"), &gate_b)
        .expect("write gate_B");
    case.inputs[3] = Some(gate_b);
    assert_eq!(rt.prepare_inputs(&plan, &dev_refs).expect("after write"), 1);
    check("after write_tensor", &case);
}
