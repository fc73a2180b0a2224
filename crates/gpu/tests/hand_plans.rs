//! The runtime on hand-written plans (independent of the manifest's templates): host and device
//! runs, poison, intermediates across passes, caches and the pool, shader errors, timing.

mod common;

use common::*;
use nbits_mlp_core::manifest::BufferKind;
use nbits_mlp_core::{DType, Tensor};
use nbits_mlp_gpu::{check_wgsl, testing, GpuError, RunOptions};

fn ab(n: usize) -> (Tensor, Tensor) {
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 3.0).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    (Tensor::from_f32(vec![n], &a), Tensor::from_f32(vec![n], &b))
}

#[test]
fn host_run_and_poison() {
    let Some(rt) = testing::runtime() else { return };
    let n = 1000;
    let (a, b) = ab(n);
    let poison = RunOptions { poison: true };
    // Every element written: nothing of the poison is left.
    let out = rt
        .run_plan(&axpy_plan(n, 2.0, "true"), &[Some(&a), Some(&b)], &poison)
        .unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].as_ref().unwrap().to_f32(), axpy_ref(&a, &b, 2.0));
    // A shader that skips the odd elements: poison shows them.
    let out = rt
        .run_plan(
            &axpy_plan(n, 2.0, "i % 2u == 0u"),
            &[Some(&a), Some(&b)],
            &poison,
        )
        .unwrap();
    let y = out[0].as_ref().unwrap().to_f32();
    assert!(y.iter().step_by(2).all(|v| v.is_finite()));
    assert!(y.iter().skip(1).step_by(2).all(|v| v.is_nan()));
    assert!(out[0].as_ref().unwrap().data[4..8]
        .iter()
        .all(|&x| x == 0xFF));
}

#[test]
fn device_run_reuses_everything() {
    let Some(rt) = testing::runtime() else { return };
    let n = 777;
    let (a, b) = ab(n);
    let plan = axpy_plan(n, -1.5, "true");
    let (ga, gb) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
    let outs = rt.alloc_outputs(&plan).unwrap();
    let y = outs[0].as_ref().unwrap();
    rt.run_on_device(&plan, &[Some(&ga), Some(&gb)], &[Some(y)])
        .unwrap();
    assert_eq!(rt.download(y).unwrap().to_f32(), axpy_ref(&a, &b, -1.5));
    let s0 = rt.stats();
    assert_eq!((s0.pipelines, s0.prepared_plans), (1, 1));
    for _ in 0..20 {
        rt.run_on_device(&plan, &[Some(&ga), Some(&gb)], &[Some(y)])
            .unwrap();
        rt.run_plan(&plan, &[Some(&a), Some(&b)], &RunOptions::default())
            .unwrap();
    }
    rt.wait_idle().unwrap();
    let s1 = rt.stats();
    assert_eq!((s1.pipelines, s1.prepared_plans), (1, 1));
    // The pool created buffers for the first host run only.
    let host_once = {
        rt.run_plan(&plan, &[Some(&a), Some(&b)], &RunOptions::default())
            .unwrap();
        rt.stats().pool.created
    };
    for _ in 0..5 {
        rt.run_plan(&plan, &[Some(&a), Some(&b)], &RunOptions::default())
            .unwrap();
    }
    assert_eq!(rt.stats().pool.created, host_once, "{:?}", rt.stats());
    // The same plan rebuilt (equal, not the same object) is recognised.
    rt.run_on_device(
        &axpy_plan(n, -1.5, "true"),
        &[Some(&ga), Some(&gb)],
        &[Some(y)],
    )
    .unwrap();
    assert_eq!(rt.stats().prepared_plans, 1);
    // A different uniform value is a different plan with the same pipeline.
    rt.run_on_device(
        &axpy_plan(n, 3.0, "true"),
        &[Some(&ga), Some(&gb)],
        &[Some(y)],
    )
    .unwrap();
    assert_eq!(rt.download(y).unwrap().to_f32(), axpy_ref(&a, &b, 3.0));
    assert_eq!((rt.stats().pipelines, rt.stats().prepared_plans), (1, 2));
}

/// Two passes through an intermediate: s = a * 2 (f16), y = s + b; f16 with odd counts.
#[test]
fn passes_see_earlier_passes_through_intermediates() {
    let Some(rt) = testing::runtime() else { return };
    let n = 333;
    let bytes = (n * 2) as u64;
    let a = Tensor::from_f32_as_f16(
        vec![n],
        &(0..n).map(|i| i as f32 * 0.25).collect::<Vec<_>>(),
    );
    let b = Tensor::from_f32_as_f16(vec![n], &(0..n).map(|i| -(i as f32)).collect::<Vec<_>>());
    let p1 = pass(
        "double",
        [n.div_ceil(32) as u32, 1, 1],
        vec![
            storage("a", BufferKind::ReadOnlyStorage, "f16", input(0, "a"), bytes),
            storage("s", BufferKind::Storage, "f16", scratch(0, "s"), bytes),
        ],
        true,
        &format!("@compute @workgroup_size(32)\nfn main(@builtin(global_invocation_id) g: vec3<u32>) {{\n    if (g.x < {n}u) {{ s[g.x] = a[g.x] * 2.0h; }}\n}}\n"),
    );
    let p2 = pass(
        "add",
        [n.div_ceil(32) as u32, 1, 1],
        vec![
            storage("s", BufferKind::ReadOnlyStorage, "f16", scratch(0, "s"), bytes),
            storage("b", BufferKind::ReadOnlyStorage, "f16", input(1, "b"), bytes),
            storage("y", BufferKind::Storage, "f16", output(0, "y"), bytes),
        ],
        true,
        &format!("@compute @workgroup_size(32)\nfn main(@builtin(global_invocation_id) g: vec3<u32>) {{\n    if (g.x < {n}u) {{ y[g.x] = s[g.x] + b[g.x]; }}\n}}\n"),
    );
    let plan = plan(
        vec![p1, p2],
        &[("y", DType::F16, vec![n])],
        &[("s", DType::F16, vec![n])],
    );
    let out = rt
        .run_plan(&plan, &[Some(&a), Some(&b)], &RunOptions { poison: true })
        .unwrap();
    let want: Vec<f32> = a
        .to_f32()
        .iter()
        .zip(b.to_f32())
        .map(|(a, b)| a * 2.0 + b)
        .collect();
    let y = out[0].as_ref().unwrap();
    assert_eq!(y.data.len(), n * 2);
    assert_eq!(y.to_f32(), want);
}

#[test]
fn empty_output_runs_nothing_and_skipped_passes_are_skipped() {
    let Some(rt) = testing::runtime() else { return };
    let (a, b) = ab(0);
    let plan = axpy_plan(0, 1.0, "true");
    assert!(plan.passes[0].skipped);
    let out = rt
        .run_plan(&plan, &[Some(&a), Some(&b)], &RunOptions { poison: true })
        .unwrap();
    assert_eq!(out[0].as_ref().unwrap().shape, vec![0]);
    assert_eq!(rt.stats().pipelines, 0);
}

#[test]
fn bad_inputs_are_named() {
    let Some(rt) = testing::runtime() else { return };
    let (a, b) = ab(64);
    let plan = axpy_plan(64, 1.0, "true");
    match rt.run_plan(&plan, &[Some(&a)], &RunOptions::default()) {
        Err(GpuError::Input {
            index: 1,
            name,
            message,
        }) => assert!(name == "b" && message.contains("pass `axpy`"), "{message}"),
        other => panic!("{other:?}"),
    }
    let (short, _) = ab(63);
    match rt.run_plan(&plan, &[Some(&short), Some(&b)], &RunOptions::default()) {
        Err(e @ GpuError::Input { index: 0, .. }) => {
            assert!(e.to_string().contains("other tensors"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    let bad = Tensor {
        dtype: DType::F32,
        shape: vec![64],
        data: vec![0; 10],
    };
    assert!(matches!(
        rt.run_plan(&plan, &[Some(&bad), Some(&b)], &RunOptions::default()),
        Err(GpuError::Input { index: 0, .. })
    ));
    // Device API: wrong output tensor.
    let (ga, gb) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
    let wrong = rt
        .alloc(nbits_mlp_core::TensorInfo::new(DType::F16, vec![64]))
        .unwrap();
    match rt.run_on_device(&plan, &[Some(&ga), Some(&gb)], &[Some(&wrong)]) {
        Err(GpuError::Output {
            index: 0, message, ..
        }) => assert!(message.contains("float16"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn errors_inside_a_run_unwind_cleanly() {
    // Inputs fit the binding limit but not the (restricted) buffer size: the error comes from
    // inside the run's error scopes, which must be dropped in order (wgpu panics otherwise).
    let Some(rt) = testing::runtime_with(|p| p.with_limit("maxBufferSize", 128)) else {
        return;
    };
    let rt = rt.unwrap();
    let (a, b) = ab(64);
    match rt.run_plan(
        &axpy_plan(64, 1.0, "true"),
        &[Some(&a), Some(&b)],
        &RunOptions::default(),
    ) {
        Err(GpuError::BufferTooLarge {
            what,
            limit_name: "maxBufferSize",
            ..
        }) => assert!(what.starts_with("input 0"), "{what}"),
        other => panic!("{other:?}"),
    }
    // The runtime still works.
    let (a, b) = ab(16);
    let y = rt
        .run_plan(
            &axpy_plan(16, 1.0, "true"),
            &[Some(&a), Some(&b)],
            &RunOptions::default(),
        )
        .unwrap();
    assert_eq!(y[0].as_ref().unwrap().to_f32(), axpy_ref(&a, &b, 1.0));
    assert!(rt.gpu().take_uncaptured_errors().is_empty());
}

#[test]
fn wgpu_validation_errors_come_back_as_errors() {
    // The shader's uniform struct is larger than the plan's uniform bytes: only wgpu notices
    // (at dispatch), inside the run's error scopes.
    let Some(rt) = testing::runtime() else { return };
    let (a, b) = ab(64);
    let mut plan = axpy_plan(64, 1.0, "true");
    plan.passes[0].wgsl = plan.passes[0]
        .wgsl
        .replace(
            "    factor: f32,\n",
            "    factor: f32,\n    extra: vec4<u32>,\n",
        )
        .into();
    assert!(plan.passes[0].wgsl.contains("extra"));
    match rt.run_plan(&plan, &[Some(&a), Some(&b)], &RunOptions::default()) {
        Err(e @ GpuError::Validation { .. }) => {
            println!("{e}");
            assert!(e.to_string().contains("axpy"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert!(rt.gpu().take_uncaptured_errors().is_empty());
}

#[test]
fn shader_errors_name_pass_template_and_line() {
    let Some(rt) = testing::runtime() else { return };
    let (a, b) = ab(8);
    let mut plan = axpy_plan(8, 1.0, "true");
    plan.passes[0].wgsl = plan.passes[0]
        .wgsl
        .replace(
            "y[i] = a[i] * params.factor + b[i];",
            "y[i] = a[i] * params.factr + b[i];",
        )
        .into();
    let line = plan.passes[0]
        .wgsl
        .lines()
        .position(|l| l.contains("factr"))
        .unwrap() as u32
        + 1;
    match rt.run_plan(&plan, &[Some(&a), Some(&b)], &RunOptions::default()) {
        Err(e @ GpuError::Shader { .. }) => {
            let GpuError::Shader {
                pass,
                template,
                line: l,
                message,
                ..
            } = &e
            else {
                unreachable!()
            };
            assert_eq!(
                (pass.as_str(), template.as_str(), *l),
                ("axpy", "test-axpy.wgsl", Some(line))
            );
            assert!(message.contains("factr"), "{message}");
            println!("{e}");
        }
        other => panic!("{other:?}"),
    }
    // A syntax error.
    let mut plan = axpy_plan(8, 1.0, "true");
    plan.passes[0].wgsl = format!("{}fn broken( {{", plan.passes[0].wgsl).into();
    assert!(matches!(
        rt.run_plan(&plan, &[Some(&a), Some(&b)], &RunOptions::default()),
        Err(GpuError::Shader { stage: "parse", .. })
    ));
    // A workgroup size that disagrees with the plan.
    let mut plan = axpy_plan(8, 1.0, "true");
    plan.passes[0].workgroup_size = [128, 1, 1];
    let e = rt
        .run_plan(&plan, &[Some(&a), Some(&b)], &RunOptions::default())
        .unwrap_err();
    assert!(e.to_string().contains("workgroup size"), "{e}");
    assert!(rt.gpu().take_uncaptured_errors().is_empty());
}

#[test]
fn shader_features_follow_the_profile() {
    let Some(gpu) = testing::gpu() else { return };
    let n = 256;
    let (a, b) = ab(n);
    // Width-independent subgroup use: the subgroup max of a is >= a, so y = 1 everywhere.
    let mut plan = axpy_plan(n, 0.0, "true");
    let body_at = plan.passes[0].wgsl.find("@compute").unwrap();
    plan.passes[0].wgsl = (plan.passes[0].wgsl[..body_at].to_string()
        + "@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let m = subgroupMax(a[min(i, params.n - 1u)]);
    if (i < params.n) {
        y[i] = select(0.0, 1.0, m >= a[i]) + b[i] * params.factor;
    }
}
")
    .into();
    let with = gpu.profile();
    check_wgsl(&with, &plan.passes[0]).unwrap();
    let without = with.without_feature("subgroups");
    let e = check_wgsl(&without, &plan.passes[0]).unwrap_err();
    assert!(
        matches!(
            e,
            GpuError::Shader {
                stage: "validation",
                ..
            }
        ),
        "{e}"
    );
    let rt = nbits_mlp_gpu::Runtime::new(gpu.clone());
    let y = rt
        .run_plan(&plan, &[Some(&a), Some(&b)], &RunOptions { poison: true })
        .unwrap()
        .remove(0)
        .unwrap();
    assert!(y.to_f32().iter().all(|&v| v == 1.0));
    let rt = nbits_mlp_gpu::Runtime::with_profile(gpu, without).unwrap();
    assert!(matches!(
        rt.run_plan(&plan, &[Some(&a), Some(&b)], &RunOptions::default()),
        Err(GpuError::Shader { .. })
    ));
}

#[test]
fn timing() {
    let Some(rt) = testing::runtime() else { return };
    let n = 4096;
    let (a, b) = ab(n);
    let plan = axpy_plan(n, 1.0, "true");
    let (ga, gb) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
    let outs = rt.alloc_outputs(&plan).unwrap();
    let outs: Vec<_> = outs.iter().map(Option::as_ref).collect();
    let host = rt
        .host_overhead_us(&plan, &[Some(&ga), Some(&gb)], &outs, 20)
        .unwrap();
    assert_eq!(host.len(), 20);
    assert!(host.iter().all(|&t| t > 0.0));
    let mut sorted = host.clone();
    sorted.sort_by(f64::total_cmp);
    println!("host overhead per run: median {:.1} us", sorted[10]);
    if !rt.gpu().has_timestamps() {
        assert!(matches!(
            rt.time_plan(&plan, &[Some(&ga), Some(&gb)], &outs, 3),
            Err(GpuError::Unsupported { .. })
        ));
        return;
    }
    let t = rt
        .time_plan(&plan, &[Some(&ga), Some(&gb)], &outs, 600)
        .unwrap();
    assert_eq!(t.len(), 600);
    assert!(t.iter().all(|&x| x.is_finite() && x >= 0.0));
    let mut sorted = t.clone();
    sorted.sort_by(f64::total_cmp);
    println!("gpu time per run: median {:.1} us", sorted[300]);
    assert_eq!(
        rt.download(outs[0].unwrap()).unwrap().to_f32(),
        axpy_ref(&a, &b, 1.0)
    );
}

#[test]
fn one_runtime_many_threads() {
    let Some(rt) = testing::runtime() else { return };
    std::thread::scope(|s| {
        for t in 0..4 {
            let rt = &rt;
            s.spawn(move || {
                for i in 0..10 {
                    let n = 100 + 37 * t + i;
                    let (a, b) = ab(n);
                    let f = t as f32 - 1.5;
                    let y = rt
                        .run_plan(
                            &axpy_plan(n, f, "true"),
                            &[Some(&a), Some(&b)],
                            &RunOptions { poison: true },
                        )
                        .unwrap();
                    assert_eq!(y[0].as_ref().unwrap().to_f32(), axpy_ref(&a, &b, f));
                }
            });
        }
    });
    // n and the factor are uniforms: one shader, one pipeline, for all of them.
    assert_eq!(rt.stats().pipelines, 1);
    assert!(rt.gpu().take_uncaptured_errors().is_empty());
}

/// What the driver reports for a plan's passes: nothing, with a note, on a driver without the
/// statistics extension (Mesa lavapipe); else every pass compiled, each with statistics and
/// NVIDIA's register count among them where the SM count is reported too.
#[test]
fn driver_report_covers_every_pass() {
    let Some(rt) = testing::runtime() else { return };
    let plan = axpy_plan(1000, 2.0, "true");
    let report = nbits_mlp_gpu::compiled::driver_report(rt.gpu(), rt.profile(), &plan).unwrap();
    println!("{report:?}");
    assert_eq!(report.adapter, rt.gpu().info().name);
    match &report.note {
        Some(note) => {
            assert!(report.passes.is_empty(), "{report:?}");
            assert!(
                note.contains("no compiler statistics") || note.contains("not Vulkan"),
                "{note}"
            );
        }
        None => {
            assert_eq!(report.passes.len(), plan.passes.len());
            for (p, pass) in report.passes.iter().zip(&plan.passes) {
                assert_eq!(p.pass, pass.id);
                assert!(!p.executables.is_empty(), "{p:?}");
                for e in &p.executables {
                    assert!(!e.statistics.is_empty(), "{e:?}");
                    if report.cores.is_some() {
                        assert!(e.statistic("register count").is_some(), "{e:?}");
                    }
                }
            }
        }
    }
}
