//! Prepared weights on any adapter (lavapipe included, which has no cooperative matrices and so
//! cannot run the `mmap_*` kernel itself): the planner's choice of the prepared layout on a
//! profile with cooperative matrices, the runtime building each prepared copy from device
//! tensors (on the GPU, its repack kernels) byte for byte as the layout's definition
//! (`core::layout`) says, once per tensor, shared by its clones, rebuilt after `write_tensor`,
//! and its errors; and the kernels' copies against `core::layout` into poisoned buffers for
//! every bits and block size, awkward N and K, f16 and f32 scales, past the dispatch limits.

use nbits_mlp_core::layout::{PreparedLayout, PreparedWeights};
use nbits_mlp_core::plan::Resource;
use nbits_mlp_core::{DType, DeviceProfile, MlpShape, Planner, Tensor, Tunables};
use nbits_mlp_gpu::{testing, GpuError, Runtime};
use nbits_mlp_reference::gen::generate;

/// An f16 call of 19 rows, 2-bit weights in blocks of 16 (weight rows of 52 bytes, not whole
/// 16-byte vectors; N and K off the 16 x 64 tiles).
fn geometry() -> MlpShape {
    MlpShape {
        k: 200,
        n: 130,
        lead: vec![19],
        dtype: DType::F16,
        bits: 2,
        block_size: 16,
        ..MlpShape::default()
    }
}

fn download_bytes(rt: &Runtime, t: &nbits_mlp_gpu::GpuTensor) -> Vec<u8> {
    rt.download(t).expect("download").data
}

#[test]
fn prepared_copies_are_the_layout_built_once_per_tensor() {
    let Some(rt) = testing::runtime() else { return };
    let case = generate(&geometry(), 1);
    let refs = case.input_refs();
    // The planner chooses the prepared-weights kernel on a profile with cooperative matrices
    // and says which inputs it reads in which layout.
    let mut shape = MlpShape::new(200, 130, 19);
    shape.dtype = DType::F16;
    shape.bits = 2;
    shape.block_size = 16;
    let plan = Planner::project(DeviceProfile::discrete_gpu())
        .plan(&shape.call(), &Tunables::new())
        .expect("plan");
    assert!(plan.variant.starts_with("mmap_"), "{}", plan.variant);
    let prepared: Vec<(usize, PreparedWeights)> = plan
        .passes
        .iter()
        .flat_map(|p| &p.bindings)
        .filter_map(|b| match &b.resource {
            Resource::Prepared { index, weights, .. } => Some((*index, *weights)),
            _ => None,
        })
        .collect();
    assert_eq!(prepared.len(), 4, "{prepared:?}");
    let dev: Vec<Option<nbits_mlp_gpu::GpuTensor>> = refs
        .iter()
        .map(|t| t.map(|t| rt.upload(t).expect("upload")))
        .collect();
    let dev_refs: Vec<Option<&nbits_mlp_gpu::GpuTensor>> = dev.iter().map(Option::as_ref).collect();
    assert_eq!(rt.prepare_inputs(&plan, &dev_refs).expect("prepare"), 4);
    assert_eq!(
        rt.prepare_inputs(&plan, &dev_refs).expect("again"),
        0,
        "kept"
    );
    for (index, w) in &prepared {
        let t = dev_refs[*index].expect("weights given");
        let (copy, built) = rt.prepare_weights(t, w).expect("copy");
        assert!(!built, "input {index}: built once");
        assert_eq!(copy.bytes(), w.prepared_bytes() as u64);
        let want = w.repack(&refs[*index].expect("host").data).expect("repack");
        assert_eq!(
            download_bytes(&rt, &copy),
            want,
            "input {index} in {}",
            w.layout
        );
        assert_eq!(w.unpack(&want).unwrap(), refs[*index].unwrap().data);
        // A clone shares the copies.
        assert!(!rt.prepare_weights(&t.clone(), w).expect("clone").1);
    }
    // Overwriting gate_B drops its copies (the others stay); the rebuilt copy is the new bytes'.
    let other = generate(&geometry(), 2);
    let new_gate_b: &Tensor = other.inputs[3].as_ref().expect("gate_B");
    rt.write_tensor(dev_refs[3].unwrap(), new_gate_b)
        .expect("write");
    assert_eq!(rt.prepare_inputs(&plan, &dev_refs).expect("after write"), 1);
    let w = prepared.iter().find(|(i, _)| *i == 3).unwrap().1;
    let (copy, _) = rt.prepare_weights(dev_refs[3].unwrap(), &w).unwrap();
    assert_eq!(
        download_bytes(&rt, &copy),
        w.repack(&new_gate_b.data).unwrap()
    );
}

#[test]
fn prepared_copies_refuse_tensors_of_another_geometry() {
    let Some(rt) = testing::runtime() else { return };
    let codes = rt
        .upload(&Tensor {
            dtype: DType::U8,
            shape: vec![130, 13, 4],
            data: vec![7; 130 * 13 * 4],
        })
        .expect("upload");
    let w = PreparedWeights {
        layout: PreparedLayout::MmaTileCodes,
        n: 130,
        k: 200,
        bits: 4, // the tensor holds 2-bit rows
        block_size: 16,
        elem_bytes: 1,
    };
    let e = rt.prepare_weights(&codes, &w).unwrap_err();
    assert!(matches!(e, GpuError::Input { .. }), "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("mma-tiles:codes") && text.contains("6760 bytes"),
        "{text}"
    );
    // The public GPU copy checks its source too: into a destination of the right size, only
    // the source can be at fault.
    let dst = rt
        .alloc(nbits_mlp_core::TensorInfo::new(
            DType::U8,
            vec![w.prepared_bytes()],
        ))
        .expect("alloc");
    let e = rt.repack_into(&codes, &w, &dst).unwrap_err();
    assert!(matches!(e, GpuError::Input { .. }), "{e:?}");
    assert!(e.to_string().contains("6760 bytes"), "{e}");
    // The right geometry builds.
    let w = PreparedWeights { bits: 2, ..w };
    assert!(rt.prepare_weights(&codes, &w).expect("2 bits").1);
}

/// A deterministic random byte stream (seeded): no pattern a wrong index could match by chance, and no
/// zero runs a missed write could hide in.
fn bytes(len: usize, seed: u64) -> Vec<u8> {
    use rand::{RngCore, SeedableRng};
    let mut v = vec![0u8; len];
    rand_chacha::ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut v);
    v
}

/// The caller's tensor for geometry `w` (MatMulNBits layout, random bytes), as uploaded.
fn source(w: &PreparedWeights, seed: u64) -> Tensor {
    let kb = w.k_blocks();
    let (dtype, shape) = match (w.layout, w.elem_bytes) {
        (PreparedLayout::MmaTileCodes, _) => (DType::U8, vec![w.n, kb, w.blob_size()]),
        (PreparedLayout::MmaTileScales, 2) => (DType::F16, vec![w.n, kb]),
        _ => (DType::F32, vec![w.n, kb]),
    };
    Tensor {
        dtype,
        shape,
        data: bytes(w.original_bytes(), seed),
    }
}

/// Builds the copy of a random tensor of geometry `w` on the GPU into a destination poisoned
/// with 0xFF first, and checks it byte for byte against `core::layout` (the CPU definition),
/// so every byte the kernel should write, padding included, was written.
fn check_gpu_copy(rt: &Runtime, w: &PreparedWeights, seed: u64) {
    let host = source(w, seed);
    let src = rt.upload(&host).expect("upload");
    let dst = rt
        .alloc(nbits_mlp_core::TensorInfo::new(
            host.dtype,
            vec![w.prepared_bytes() / w.elem_bytes],
        ))
        .expect("alloc");
    rt.fill(&dst, 0xFF).expect("poison");
    rt.repack_into(&src, w, &dst).expect("repack on the GPU");
    let want = w.repack(&host.data).expect("repack on the CPU");
    let got = download_bytes(rt, &dst);
    if got != want {
        let at = got.iter().zip(&want).position(|(a, b)| a != b).unwrap();
        panic!(
            "{w:?}: {} of {} bytes differ, the first at byte {at} (GPU {:#04x}, CPU {:#04x})",
            got.iter().zip(&want).filter(|(a, b)| a != b).count(),
            want.len(),
            got[at],
            want[at]
        );
    }
}

/// Every (bits, block size) the layout takes, with N off the 16-row stripes and K off the
/// 64-code chunks and off the block (and one whole-tile shape), for codes and f16 and f32 scales.
#[test]
fn gpu_copies_are_the_layouts_bytes_for_every_geometry() {
    let Some(rt) = testing::runtime() else { return };
    let mut checked = 0;
    for bits in [2u32, 4, 8] {
        for bs in [16usize, 32, 64, 128, 256] {
            for (n, k) in [
                (1, 8),
                (16, 64),
                (17, 100),
                (33, 3 * bs + 8),
                (5, 4096 + 16),
            ] {
                for (layout, elem_bytes) in [
                    (PreparedLayout::MmaTileCodes, 1),
                    (PreparedLayout::MmaTileScales, 2),
                    (PreparedLayout::MmaTileScales, 4),
                ] {
                    let w = PreparedWeights {
                        layout,
                        n,
                        k,
                        bits,
                        block_size: bs,
                        elem_bytes,
                    };
                    check_gpu_copy(&rt, &w, (n * 7919 + k * 31 + bs) as u64 ^ u64::from(bits));
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 3 * 5 * 5 * 3);
}

/// A profile allowing 3 workgroups per dimension: the copies run on a 3 x 3 grid whose
/// invocations stride over the words, and still write every word.
#[test]
fn gpu_copies_past_the_dispatch_limit_stride_over_a_2d_grid() {
    let Some(rt) = testing::runtime_with(|p| p.with_limit("maxComputeWorkgroupsPerDimension", 3))
    else {
        return;
    };
    let rt = rt.expect("a restriction of the device");
    for (layout, elem_bytes, bits) in [
        (PreparedLayout::MmaTileCodes, 1, 8), // 19 x 16 tiles x 256 words: 304 workgroups
        (PreparedLayout::MmaTileCodes, 1, 2),
        (PreparedLayout::MmaTileScales, 2, 4),
        (PreparedLayout::MmaTileScales, 4, 4),
    ] {
        let w = PreparedWeights {
            layout,
            n: 300,
            k: 1000,
            bits,
            block_size: 16,
            elem_bytes,
        };
        check_gpu_copy(&rt, &w, 11);
    }
}

/// A copy of more words than one dimension of workgroups holds at the device's own limit
/// (65535 x 256 words on lavapipe and the H200): 8-bit codes, N = 16400, K = 4096, 67 MB.
#[test]
fn gpu_copy_bigger_than_one_dispatch_dimension() {
    let Some(rt) = testing::runtime() else { return };
    let w = PreparedWeights {
        layout: PreparedLayout::MmaTileCodes,
        n: 16400,
        k: 4096,
        bits: 8,
        block_size: 32,
        elem_bytes: 1,
    };
    let per_dim = rt
        .profile()
        .limit("maxComputeWorkgroupsPerDimension")
        .expect("limit");
    assert!(
        (w.prepared_bytes() / 4) as u64 > per_dim * 256,
        "{} words fit one dimension of {per_dim} workgroups",
        w.prepared_bytes() / 4
    );
    check_gpu_copy(&rt, &w, 5);
}

/// A copy the device cannot bind (it is larger than the tensor, by its padding rows) is an
/// error naming the copy and the limit, not a partial copy.
#[test]
fn gpu_copies_past_the_binding_limit_are_errors() {
    // N = 17: two 16-row stripes, the copy (1024 bytes) near twice the tensor (544 bytes).
    let Some(rt) = testing::runtime_with(|p| p.with_limit("maxStorageBufferBindingSize", 600))
    else {
        return;
    };
    let rt = rt.expect("a restriction of the device");
    let w = PreparedWeights {
        layout: PreparedLayout::MmaTileCodes,
        n: 17,
        k: 64,
        bits: 4,
        block_size: 32,
        elem_bytes: 1,
    };
    let src = rt.upload(&source(&w, 3)).expect("the tensor fits");
    let e = rt.prepare_weights(&src, &w).unwrap_err();
    assert!(matches!(e, GpuError::BufferTooLarge { .. }), "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("mma-tiles:codes") && text.contains("maxStorageBufferBindingSize"),
        "{text}"
    );
}

/// The destination must be the copy's size, and another buffer than the source.
#[test]
fn gpu_copies_check_their_destination() {
    let Some(rt) = testing::runtime() else { return };
    let w = PreparedWeights {
        layout: PreparedLayout::MmaTileScales,
        n: 17,
        k: 64,
        bits: 4,
        block_size: 32,
        elem_bytes: 2,
    };
    let src = rt.upload(&source(&w, 9)).expect("upload");
    let small = rt
        .alloc(nbits_mlp_core::TensorInfo::new(DType::F16, vec![8]))
        .expect("alloc");
    let e = rt.repack_into(&src, &w, &small).unwrap_err().to_string();
    assert!(e.contains("mma-tiles:scales") && e.contains("needs"), "{e}");
    let e = rt.repack_into(&src, &PreparedWeights { elem_bytes: 4, ..w }, &small);
    assert!(matches!(e, Err(GpuError::Input { .. })), "{e:?}");
    // N = 16, K = 64: the copy is as large as the tensor, yet cannot be built in place.
    let w = PreparedWeights { n: 16, ..w };
    let src = rt.upload(&source(&w, 9)).expect("upload");
    let alias = nbits_mlp_gpu::GpuTensor::from_buffer(
        src.buffer().clone(),
        nbits_mlp_core::TensorInfo::new(DType::F16, vec![w.prepared_bytes() / 2]),
    )
    .expect("same size");
    let e = rt.repack_into(&src, &w, &alias).unwrap_err().to_string();
    assert!(e.contains("a buffer of its own"), "{e}");
}
