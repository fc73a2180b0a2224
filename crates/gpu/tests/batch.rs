//! Several runs in one submission (`Runtime::run_many`), many tensors read back at once
//! (`Runtime::download_many`), device tensors overwritten (`Runtime::write_tensor`), and the
//! bind group cache: the same results as separate calls, every output element written.

mod common;

use common::*;
use nbits_mlp_core::{DType, MlpShape, Tensor, TensorInfo, Tunables};
use nbits_mlp_gpu::{testing, GpuError, GpuTensor, PlanRun};
use nbits_mlp_reference::{compare, generate};

/// Values on a 2^-10 grid, so `a * factor` is exact for the tests' factors and `a * f + b` rounds
/// the same whether or not the GPU's compiler fuses it into an FMA (NVIDIA's does; exact
/// comparisons with the CPU's separate multiply and add failed there for factor 3).
fn vals(n: usize, seed: f32) -> Tensor {
    let v: Vec<f32> = (0..n)
        .map(|i| ((i as f32 * 0.37 + seed).sin() * 1024.0).round() / 1024.0)
        .collect();
    Tensor::from_f32(vec![n], &v)
}

#[test]
fn run_many_matches_separate_runs_and_writes_every_element() {
    let Some(rt) = testing::runtime() else { return };
    let n = 301;
    let plans = [
        axpy_plan(n, 2.0, "true"),
        axpy_plan(n, -0.5, "true"),
        axpy_plan(n, 2.0, "true"),
    ];
    let host: Vec<(Tensor, Tensor)> = (0..3)
        .map(|i| (vals(n, i as f32), vals(n, 10.0 + i as f32)))
        .collect();
    let dev: Vec<(GpuTensor, GpuTensor)> = host
        .iter()
        .map(|(a, b)| (rt.upload(a).unwrap(), rt.upload(b).unwrap()))
        .collect();
    let ys: Vec<GpuTensor> = (0..3)
        .map(|_| rt.alloc(TensorInfo::new(DType::F32, vec![n])).unwrap())
        .collect();
    for y in &ys {
        rt.fill(y, 0xFF).unwrap();
    }
    let ins: Vec<Vec<Option<&GpuTensor>>> =
        dev.iter().map(|(a, b)| vec![Some(a), Some(b)]).collect();
    let outs: Vec<Vec<Option<&GpuTensor>>> = ys.iter().map(|y| vec![Some(y)]).collect();
    let runs: Vec<PlanRun<'_>> = (0..3)
        .map(|i| (&plans[i], ins[i].as_slice(), outs[i].as_slice()))
        .collect();
    rt.run_many(&runs).unwrap();
    let got = rt.download_many(&ys.iter().collect::<Vec<_>>()).unwrap();
    for (i, ((a, b), y)) in host.iter().zip(&got).enumerate() {
        let f = [2.0, -0.5, 2.0][i];
        assert_eq!(y.to_f32(), axpy_ref(a, b, f), "run {i}");
        assert_eq!(y.shape, vec![n]);
    }
    // Separate calls give the same bytes.
    for (i, y) in ys.iter().enumerate() {
        rt.fill(y, 0xFF).unwrap();
        rt.run_on_device(&plans[i], &ins[i], &outs[i]).unwrap();
        assert_eq!(rt.download(y).unwrap(), got[i], "run {i} alone");
    }
    // Nothing to run: nothing submitted, no error.
    rt.run_many(&[]).unwrap();
    assert!(rt.download_many(&[]).unwrap().is_empty());
}

#[test]
fn run_many_checks_every_run_before_running_any() {
    let Some(rt) = testing::runtime() else { return };
    let n = 64;
    let plan = axpy_plan(n, 1.0, "true");
    let (a, b) = (
        rt.upload(&vals(n, 0.0)).unwrap(),
        rt.upload(&vals(n, 1.0)).unwrap(),
    );
    let y = rt.alloc(TensorInfo::new(DType::F32, vec![n])).unwrap();
    let bad = rt.alloc(TensorInfo::new(DType::F32, vec![n + 1])).unwrap();
    rt.fill(&y, 0xFF).unwrap();
    let ins = [Some(&a), Some(&b)];
    let (good_out, bad_out) = ([Some(&y)], [Some(&bad)]);
    let runs: [PlanRun<'_>; 2] = [(&plan, &ins, &good_out), (&plan, &ins, &bad_out)];
    let err = rt.run_many(&runs).unwrap_err();
    // Wrapped once: the run's index around the error run_on_device gives for that run.
    let GpuError::InRun { index: 1, source } = &err else {
        panic!("not an error of run 1: {err:?}");
    };
    assert!(
        matches!(err.innermost(), GpuError::Output { index: 0, .. }),
        "{err}"
    );
    assert_eq!(err.to_string(), format!("run 1: {source}"));
    assert!(std::error::Error::source(&err).is_some());
    // Run 0 did not run: its output is still poison.
    assert!(rt.download(&y).unwrap().to_f32().iter().all(|v| v.is_nan()));
    // One run: the same error as run_on_device, no run index.
    let one = rt.run_many(&runs[1..]).unwrap_err().to_string();
    let direct = rt
        .run_on_device(&plan, &ins, &bad_out)
        .unwrap_err()
        .to_string();
    assert_eq!(one, direct);
    assert_eq!(source.to_string(), direct);
    assert!(!one.contains("run 1"), "{one}");
}

#[test]
fn download_many_matches_download_for_odd_and_empty_tensors() {
    let Some(rt) = testing::runtime() else { return };
    let tensors = [
        Tensor::from_f32_as_f16(vec![3], &[1.0, -2.0, 3.5]),
        Tensor::from_f32(vec![0, 4], &[]),
        Tensor::from_u8(vec![5], vec![1, 2, 3, 4, 5]),
        vals(1000, 3.0),
        Tensor::from_f32_as_f16(vec![1], &[0.25]),
        // Large enough (2.4 MB) for the read-back's multi-threaded copy, an odd length.
        vals(600_001, 5.0),
    ];
    let dev: Vec<GpuTensor> = tensors.iter().map(|t| rt.upload(t).unwrap()).collect();
    let refs: Vec<&GpuTensor> = dev.iter().collect();
    let many = rt.download_many(&refs).unwrap();
    assert_eq!(many, tensors.to_vec());
    for (d, m) in dev.iter().zip(&many) {
        assert_eq!(&rt.download(d).unwrap(), m);
    }
    // The same tensor twice.
    let twice = rt.download_many(&[&dev[3], &dev[3]]).unwrap();
    assert_eq!(twice, vec![tensors[3].clone(), tensors[3].clone()]);
    // Into existing host tensors: of other shapes and sizes, some holding stale data.
    let mut into: Vec<Tensor> = vec![
        vals(7, 9.0),
        Tensor::from_f32(vec![2], &[1.0, 2.0]),
        Tensor::from_u8(vec![0], vec![]),
        vals(2000, -1.0),
        vals(1, 4.0),
        vals(3, 0.0),
    ];
    rt.download_into(&refs, &mut into).unwrap();
    assert_eq!(into, tensors.to_vec());
    // A count mismatch is an error that leaves the host tensors alone.
    let err = rt.download_into(&refs[..2], &mut into).unwrap_err();
    assert!(matches!(err, GpuError::Tensor { .. }), "{err}");
    assert_eq!(into, tensors.to_vec());
}

#[test]
fn write_tensor_overwrites_and_checks_shape() {
    let Some(rt) = testing::runtime() else { return };
    let n = 9;
    let d = rt.upload(&vals(n, 0.0)).unwrap();
    let new = vals(n, 5.0);
    rt.write_tensor(&d, &new).unwrap();
    assert_eq!(rt.download(&d).unwrap(), new);
    let err = rt.write_tensor(&d, &vals(n + 1, 0.0)).unwrap_err();
    assert!(matches!(err, GpuError::Tensor { .. }), "{err}");
    let mut short = vals(n, 0.0);
    short.data.pop();
    assert!(rt.write_tensor(&d, &short).is_err());
    assert_eq!(
        rt.download(&d).unwrap(),
        new,
        "unchanged by the failed writes"
    );
}

/// The bind group cache keys on the buffers: alternating buffer sets, and a set rebuilt after
/// the old one was dropped, give the current buffers' results.
#[test]
fn cached_bind_groups_follow_the_buffers() {
    let Some(rt) = testing::runtime() else { return };
    let n = 128;
    let plan = axpy_plan(n, 3.0, "true");
    let sets: Vec<(Tensor, Tensor)> = (0..3)
        .map(|i| (vals(n, i as f32), vals(n, -(i as f32))))
        .collect();
    let dev: Vec<(GpuTensor, GpuTensor)> = sets
        .iter()
        .map(|(a, b)| (rt.upload(a).unwrap(), rt.upload(b).unwrap()))
        .collect();
    let y = rt.alloc(TensorInfo::new(DType::F32, vec![n])).unwrap();
    for round in 0..3 {
        for (i, ((a, b), (ga, gb))) in sets.iter().zip(&dev).enumerate() {
            rt.run_on_device(&plan, &[Some(ga), Some(gb)], &[Some(&y)])
                .unwrap();
            assert_eq!(
                rt.download(&y).unwrap().to_f32(),
                axpy_ref(a, b, 3.0),
                "round {round}, set {i}"
            );
        }
    }
    drop(dev);
    for round in 0..3 {
        let (a, b) = (vals(n, 7.0 + round as f32), vals(n, 1.0));
        let (ga, gb) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
        rt.run_on_device(&plan, &[Some(&ga), Some(&gb)], &[Some(&y)])
            .unwrap();
        assert_eq!(rt.download(&y).unwrap().to_f32(), axpy_ref(&a, &b, 3.0));
    }
    rt.clear_caches();
    let (ga, gb) = (
        rt.upload(&sets[0].0).unwrap(),
        rt.upload(&sets[0].1).unwrap(),
    );
    rt.run_on_device(&plan, &[Some(&ga), Some(&gb)], &[Some(&y)])
        .unwrap();
    assert_eq!(
        rt.download(&y).unwrap().to_f32(),
        axpy_ref(&sets[0].0, &sets[0].1, 3.0)
    );
}

/// A 2-pass operator plan (skip + norm + residual), four layers with their own weights in one
/// submission, shared A and skip rewritten between iterations: each layer's outputs equal a
/// separate run's, bit for bit, and match the float64 reference.
#[test]
fn layer_stack_in_one_submission() {
    let Some(rt) = testing::runtime() else { return };
    let layers = 4;
    let shape = MlpShape {
        k: 96,
        n: 40,
        lead: vec![2],
        dtype: DType::F16,
        skip: true,
        norm: true,
        residual: true,
        ..MlpShape::default()
    };
    let cases: Vec<_> = (0..layers).map(|l| generate(&shape, l as u64)).collect();
    let plan = rt.plan(&cases[0].call(), &Tunables::new()).unwrap();
    assert!(plan.active_passes().count() >= 1);
    // Shared A, skip, norm_scale from case 0; weights per layer.
    let shared: Vec<Option<GpuTensor>> = cases[0]
        .inputs
        .iter()
        .take(3)
        .map(|t| t.as_ref().map(|t| rt.upload(t).unwrap()))
        .collect();
    let weights: Vec<Vec<Option<GpuTensor>>> = cases
        .iter()
        .map(|c| {
            c.inputs
                .iter()
                .skip(3)
                .map(|t| t.as_ref().map(|t| rt.upload(t).unwrap()))
                .collect()
        })
        .collect();
    let outputs: Vec<Vec<Option<GpuTensor>>> = (0..layers)
        .map(|_| rt.alloc_outputs(&plan).unwrap())
        .collect();
    let ins: Vec<Vec<Option<&GpuTensor>>> = weights
        .iter()
        .map(|w| shared.iter().chain(w).map(Option::as_ref).collect())
        .collect();
    let outs: Vec<Vec<Option<&GpuTensor>>> = outputs
        .iter()
        .map(|o| o.iter().map(Option::as_ref).collect())
        .collect();
    let runs: Vec<PlanRun<'_>> = ins
        .iter()
        .zip(&outs)
        .map(|(i, o)| (&*plan, i.as_slice(), o.as_slice()))
        .collect();
    let all: Vec<&GpuTensor> = outs.iter().flatten().flatten().copied().collect();
    for iteration in 0..2 {
        // A different A per iteration, written into the shared tensor.
        let a = if iteration == 0 {
            cases[0].inputs[0].clone().unwrap()
        } else {
            cases[1].inputs[0].clone().unwrap()
        };
        rt.write_tensor(shared[0].as_ref().unwrap(), &a).unwrap();
        for t in &all {
            rt.fill(t, 0xFF).unwrap();
        }
        rt.run_many(&runs).unwrap();
        let got = rt.download_many(&all).unwrap();
        for (l, case) in cases.iter().enumerate() {
            // The reference: this layer's weights on the shared A, skip, norm_scale.
            let mut inputs = case.inputs.clone();
            inputs[0] = Some(a.clone());
            inputs[1..3].clone_from_slice(&cases[0].inputs[1..3]);
            let c = nbits_mlp_reference::Case {
                attrs: case.attrs.clone(),
                inputs,
                want_residual: true,
            };
            let want = c.run_reference().unwrap();
            compare::check_scaled(
                &want.y_f64,
                &want.y_err_scale,
                &got[2 * l],
                plan.f16_accumulation(),
            )
            .unwrap_or_else(|e| panic!("iteration {iteration} layer {l}: Y {e}"));
            compare::check(want.residual_f64.as_ref().unwrap(), &got[2 * l + 1])
                .unwrap_or_else(|e| panic!("iteration {iteration} layer {l}: residual {e}"));
            // Bit for bit what a separate run gives.
            for t in outs[l].iter().flatten() {
                rt.fill(t, 0xFF).unwrap();
            }
            rt.run_on_device(&plan, &ins[l], &outs[l]).unwrap();
            let alone: Vec<Tensor> = outs[l]
                .iter()
                .flatten()
                .map(|t| rt.download(t).unwrap())
                .collect();
            assert_eq!(alone, got[2 * l..2 * l + 2].to_vec(), "layer {l}");
        }
    }
}
