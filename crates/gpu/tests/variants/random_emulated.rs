//! Random legal calls that the `discrete-gpu` profile plans on the tensor-core kernels (`mma_*`,
//! `mmap_*` with its pairs, activation blocks, stream-K and slices, `mmal_*`), each run with its
//! cooperative operations emulated (`mmal_emulated`'s module doc) and checked against the float64
//! reference with poisoned outputs: the differential test (`tests/differential.rs`) of the
//! kernels lavapipe cannot run for real.
//!
//! Unlike the other emulated tests, which force their tiles through tunables, these calls take
//! the planner's default rules (only the device's count of shader cores varies: none, 1-16 or
//! 132), so the choices a GPU with tensor cores gets at random shapes are the ones checked:
//! every bits, block sizes 16-512, awkward K and N, rows around the rules' boundaries (6-9, 16,
//! 32, 48, 64, 128, 256, 384), every form, bias and dtype, rank 2 and 3. The workgroup storage is
//! this device's (32 KiB on lavapipe), so tiles that need 48 KiB are planned as a 32 KiB device
//! would.
//!
//! Ignored by default (each call compiles a large emulated shader and runs emulated products on
//! lavapipe: about a minute): `cargo test --release -p nbits-mlp-gpu --test variants -- --ignored
//! random_emulated_calls --nocapture`; `NBITS_MLP_FUZZ_SEED=<n>` explores other calls and
//! `NBITS_MLP_FUZZ_CASES=<n>` runs more (default 12). A failure names the call, its seed and the
//! shader cores.

use crate::calls::{overrides, Call, Rng};
use crate::common::env_u64;
use crate::mmal_emulated::{emulation_setup, run_emulated};
use nbits_mlp_core::{DType, MlpShape, Tunables};

/// Row counts at and around the tensor-core rules' boundaries.
const ROWS: &[usize] = &[
    6, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 47, 48, 49, 63, 64, 65, 80, 96, 127, 128, 129, 160,
    255, 256, 257, 384, 385,
];

/// The variant families whose main pass the emulation covers.
const FAMILIES: &[&str] = &["mma_", "mmap_", "mmal_"];

/// A random legal call in the tensor cores' range (rank 2 or 3) and the shader cores the device
/// reports (none, 1-16 or 132).
fn random_call(rng: &mut Rng, seed: u64) -> (Call, Tunables) {
    let bits = [2u32, 4, 8][rng.below(3)];
    let block_size = [16usize, 32, 32, 64, 128, 256, 512][rng.below(7)];
    let k = match rng.below(4) {
        0 => 1 + rng.below(200),
        1 => (block_size * (1 + rng.below(8)) + rng.below(7)).saturating_sub(3),
        2 => 64 * (1 + rng.below(16)),
        _ => 200 + rng.below(900),
    }
    .max(1);
    let n = match rng.below(4) {
        0 => 1 + rng.below(15),
        1 => 16 + rng.below(80),
        2 => 16 * (1 + rng.below(8)),
        _ => 100 + rng.below(200),
    };
    let rows = ROWS[rng.below(ROWS.len())];
    let (norm, skip, residual) = rng.norm_flags(3);
    let shape = MlpShape {
        k,
        n,
        lead: vec![rows],
        dtype: if rng.below(10) < 7 {
            DType::F16
        } else {
            DType::F32
        },
        bits,
        block_size,
        skip,
        norm,
        residual,
        gate_bias: rng.below(10) < 3,
        up_bias: rng.below(10) < 3,
    };
    let call = if rng.below(4) == 0 {
        Call::rank3(shape, seed)
    } else {
        Call::rank2(shape, seed)
    };
    let cores = match rng.below(3) {
        0 => None,
        1 => Some(1 + rng.below(16) as i64),
        _ => Some(132),
    };
    let t = cores
        .map(|c| overrides(&[("SHADER_CORES", c)]))
        .unwrap_or_default();
    (call, t)
}

/// The most multiply-adds (rows x K x N) a call may take: the emulated products are loops over
/// workgroup memory, about a minute per 10^7 on lavapipe.
const MAX_WORK: usize = 8_000_000;

/// Random calls on the tensor-core kernels at the planner's defaults, emulated (module doc).
/// Calls past [`MAX_WORK`] or that the profile plans on another family are drawn again (up to
/// 200 times a case).
#[test]
#[ignore = "about a minute per call on lavapipe: run with --ignored"]
fn random_emulated_calls() {
    let Some((rt, planner, _storage)) = emulation_setup("random_emulated_calls") else {
        return;
    };
    let seed = env_u64("NBITS_MLP_FUZZ_SEED", 7);
    let cases = env_u64("NBITS_MLP_FUZZ_CASES", 12) as usize;
    let mut rng = Rng(seed ^ 0xe3a1_7ed0);
    let mut reached = std::collections::BTreeMap::<String, usize>::new();
    for i in 0..cases {
        let case_seed = seed.wrapping_mul(1000).wrapping_add(i as u64);
        let mut drawn = None;
        for _ in 0..200 {
            let (call, t) = random_call(&mut rng, case_seed);
            if call.rows() * call.shape.k * call.shape.n > MAX_WORK {
                continue;
            }
            let plan = planner
                .plan(&call.case().call(), &t)
                .unwrap_or_else(|e| panic!("case {i} ({call}, {t:?}): a legal call: {e}"));
            if FAMILIES.iter().any(|f| plan.variant.starts_with(f)) {
                drawn = Some((call, t));
                break;
            }
        }
        let Some((call, t)) = drawn else {
            panic!("case {i}: 200 draws and none planned on the tensor cores");
        };
        let what = format!("NBITS_MLP_FUZZ_SEED={seed} case {i} {t:?}");
        let (v, err) = run_emulated(&rt, &planner, &call, &t, &what, "");
        println!("{what} {call}: {v} (err {err:.2e})");
        *reached.entry(v).or_default() += 1;
    }
    println!("seed {seed}: {cases} calls, variants reached: {reached:?}");
}
