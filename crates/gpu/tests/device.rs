//! Adapter selection, the granted profile, buffers, and the runtime's error paths, on the real
//! adapter (lavapipe on a machine without a GPU). Independent of the manifest's templates.
//! `NBITS_MLP_SKIP_GPU=1` skips them where no adapter exists.

use nbits_mlp_core::{DType, Tensor, TensorInfo};
use nbits_mlp_gpu::{list_adapters, testing, wgpu, Gpu, GpuError, GpuOptions, Runtime};

#[test]
fn adapter_selection() {
    let Some(gpu) = testing::gpu() else { return };
    let opts = GpuOptions::from_env().unwrap();
    let all = list_adapters(&opts);
    assert!(!all.is_empty());
    let info = gpu.info();
    println!(
        "selected: {} ({:?}, {:?}, driver {} {})",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    );
    for a in &all {
        println!("adapter: {} ({}, {})", a.name, a.backend, a.device_type);
    }
    // The best adapter is chosen: none listed is of a better device type.
    assert_eq!(all[0].name, info.name);
    if opts.backends == wgpu::Backends::VULKAN {
        assert_eq!(info.backend, wgpu::Backend::Vulkan);
    }
    // The name filter is a case-insensitive substring.
    if let Some(lvp) = all
        .iter()
        .find(|a| a.name.to_lowercase().contains("llvmpipe"))
    {
        let g = Gpu::new(&GpuOptions {
            adapter: Some("LLVMPIPE".into()),
            ..opts.clone()
        })
        .unwrap();
        assert_eq!(g.info().name, lvp.name);
        assert_eq!(g.info().device_type, wgpu::DeviceType::Cpu);
    }
    match Gpu::new(&GpuOptions {
        adapter: Some("no-such-adapter-xyz".into()),
        ..opts
    }) {
        Err(e @ GpuError::AdapterNotFound { .. }) => {
            let m = e.to_string();
            assert!(
                m.contains("no-such-adapter-xyz") && m.contains(&info.name),
                "{m}"
            );
        }
        other => panic!("expected AdapterNotFound, got {other:?}"),
    }
}

#[test]
fn profile_is_what_was_granted() {
    let Some(gpu) = testing::gpu() else { return };
    let p = gpu.profile();
    println!("{}", serde_json::to_string_pretty(&p).unwrap());
    for f in ["shader-f16", "subgroups"] {
        assert!(p.has_feature(f), "{f} missing from {:?}", p.features);
    }
    assert_eq!(
        p.limits.len(),
        nbits_mlp_core::device::WEBGPU_DEFAULT_LIMITS.len()
    );
    // All of the adapter's limits were requested.
    let adapter = nbits_mlp_gpu::webgpu_limits(&gpu.adapter().limits());
    assert_eq!(p.limits, adapter);
    assert!(p.limit("maxStorageBuffersPerShaderStage").unwrap() >= 8);
    assert_eq!(
        p.limit("maxStorageBufferBindingSize").unwrap(),
        gpu.limits().max_storage_buffer_binding_size
    );
    // The runtime plans for exactly this profile by default.
    let rt = Runtime::new(gpu.clone());
    assert_eq!(rt.profile(), &p);
}

#[test]
fn upload_download_round_trip() {
    let Some(rt) = testing::runtime() else { return };
    let cases = [
        Tensor::from_f32(
            vec![2, 3],
            &[1.0, -2.0, 3.5, f32::MAX, f32::MIN_POSITIVE, -0.0],
        ),
        Tensor::from_f32_as_f16(vec![3], &[1.0, 65504.0, -0.1]), // 6 bytes: padded
        Tensor::from_u8(vec![5], vec![1, 2, 3, 254, 255]),       // 5 bytes: padded
        Tensor::from_f32(vec![0, 4], &[]),                       // empty
        Tensor::from_u8(
            vec![300_001],
            (0..300_001u32).map(|i| (i * 7) as u8).collect(),
        ),
    ];
    for t in &cases {
        let g = rt.upload(t).unwrap();
        assert_eq!(g.info(), &t.info());
        assert!(g.buffer().size() >= 4 && g.buffer().size() % 4 == 0);
        assert_eq!(&rt.download(&g).unwrap(), t, "{:?}", t.info());
    }
    let z = rt.alloc(TensorInfo::new(DType::F16, vec![7])).unwrap();
    assert_eq!(rt.download(&z).unwrap().data, vec![0u8; 14]);
    rt.fill(&z, 0xFF).unwrap();
    assert!(rt.download(&z).unwrap().to_f32().iter().all(|v| v.is_nan()));
    assert!(rt.gpu().take_uncaptured_errors().is_empty());
}

#[test]
fn tensor_over_a_limit_is_an_error() {
    let Some(rt) = testing::runtime_with(|p| p.with_limit("maxStorageBufferBindingSize", 64))
    else {
        return;
    };
    let rt = rt.unwrap();
    let t = Tensor::from_f32(vec![32], &[0.5; 32]); // 128 bytes
    match rt.upload_labeled(&t, "input 3 `gate_B`") {
        Err(GpuError::BufferTooLarge {
            what,
            bytes,
            limit_name,
            limit,
        }) => {
            assert_eq!(
                (what.as_str(), bytes, limit_name, limit),
                ("input 3 `gate_B`", 128, "maxStorageBufferBindingSize", 64)
            );
        }
        other => panic!("expected BufferTooLarge, got {other:?}"),
    }
    // At the limit it fits.
    rt.upload(&Tensor::from_f32(vec![16], &[0.5; 16])).unwrap();
    match rt.alloc(TensorInfo::new(DType::F32, vec![1000])) {
        Err(e @ GpuError::BufferTooLarge { .. }) => assert!(
            e.to_string().contains("maxStorageBufferBindingSize (64)"),
            "{e}"
        ),
        other => panic!("expected BufferTooLarge, got {other:?}"),
    }
    let Some(rt) = testing::runtime_with(|p| p.with_limit("maxBufferSize", 100)) else {
        return;
    };
    let e = rt.unwrap().upload(&t).unwrap_err();
    assert!(
        matches!(
            e,
            GpuError::BufferTooLarge {
                limit_name: "maxBufferSize",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn profile_must_restrict_the_device() {
    let Some(gpu) = testing::gpu() else { return };
    let p = gpu.profile();
    let more = p.with_limit(
        "maxStorageBuffersPerShaderStage",
        p.limit("maxStorageBuffersPerShaderStage").unwrap() + 1,
    );
    let e = Runtime::with_profile(gpu.clone(), more).unwrap_err();
    assert!(
        matches!(&e, GpuError::Profile { message, .. } if message.contains("maxStorageBuffersPerShaderStage")),
        "{e}"
    );
    let mut feat = p.clone();
    feat.features.insert("wgpu-ray-query-never".into());
    assert!(matches!(
        Runtime::with_profile(gpu.clone(), feat),
        Err(GpuError::Profile { .. })
    ));
    let align = p.with_limit("minStorageBufferOffsetAlignment", 1);
    assert!(matches!(
        Runtime::with_profile(gpu.clone(), align),
        Err(GpuError::Profile { .. })
    ));
    // Restrictions are fine.
    let less = p
        .without_feature("subgroups")
        .with_limit("maxStorageBuffersPerShaderStage", 8);
    let rt = Runtime::with_profile(gpu, less).unwrap();
    assert!(!rt.profile().has_feature("subgroups"));
    assert_eq!(
        rt.profile().limit("maxStorageBuffersPerShaderStage"),
        Some(8)
    );
}

#[test]
fn a_destroyed_device_gives_errors_not_panics() {
    let Some(shared) = testing::gpu() else { return };
    // A device of its own: destroying it must not disturb the other tests.
    let gpu = Gpu::from_adapter(shared.instance().clone(), shared.adapter().clone()).unwrap();
    let rt = Runtime::new(gpu);
    let t = Tensor::from_f32(vec![4], &[1.0, 2.0, 3.0, 4.0]);
    let g = rt.upload(&t).unwrap();
    rt.gpu().device().destroy();
    let _ = rt.wait_idle();
    for r in [
        rt.upload(&t).map(|_| ()),
        rt.download(&g).map(|_| ()),
        rt.alloc(t.info()).map(|_| ()),
    ] {
        let e = r.unwrap_err();
        println!("{e}");
        assert!(
            matches!(e, GpuError::DeviceLost { .. } | GpuError::Validation { .. }),
            "{e}"
        );
    }
}

#[test]
fn storage_binding_limit_of_the_device() {
    let Some(rt) = testing::runtime() else { return };
    let max = rt.profile().limit("maxStorageBufferBindingSize").unwrap();
    let e = rt
        .alloc(TensorInfo::new(DType::U8, vec![max as usize + 4]))
        .unwrap_err();
    assert!(
        matches!(
            e,
            GpuError::BufferTooLarge {
                limit_name: "maxStorageBufferBindingSize",
                ..
            }
        ),
        "{e}"
    );
}
