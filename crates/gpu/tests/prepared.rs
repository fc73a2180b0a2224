//! Prepared weights on any adapter (lavapipe included, which has no cooperative matrices and so
//! cannot run the `mmap_*` kernel itself): the planner's choice of the prepared layout on a
//! profile with cooperative matrices, the runtime building each prepared copy from device
//! tensors (download, `core::layout`, upload) byte for byte as the layout's definition says,
//! once per tensor, shared by its clones, rebuilt after `write_tensor`, and its errors.

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
    // The right geometry builds.
    let w = PreparedWeights { bits: 2, ..w };
    assert!(rt.prepare_weights(&codes, &w).expect("2 bits").1);
}
