//! The inputs of a benchmarked call: random but deterministic host tensors (several weight
//! sets, so the weights come from device memory, not the L2 cache) and their device copies.

use anyhow::Result;
use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, MlpShape, OpCall, Plan, Tensor};
use nbits_mlp_gpu::{GpuTensor, Runtime};
use rayon::prelude::*;

/// Fast deterministic fill (SplitMix64), parallel over chunks.
fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut out = vec![0u8; len];
    out.par_chunks_mut(1 << 16)
        .enumerate()
        .for_each(|(ci, chunk)| {
            let mut s = seed ^ (ci as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            for c in chunk.chunks_mut(8) {
                s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = s;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                c.copy_from_slice(&z.to_le_bytes()[..c.len()]);
            }
        });
    out
}

/// Uniform floats in [lo, hi) from random bytes.
fn random_floats(n: usize, lo: f32, hi: f32, seed: u64) -> Vec<f32> {
    random_bytes(n * 4, seed)
        .chunks_exact(4)
        .map(|c| {
            lo + (hi - lo) * (u32::from_le_bytes([c[0], c[1], c[2], c[3]]) >> 8) as f32
                / (1u32 << 24) as f32
        })
        .collect()
}

/// Host inputs of one call shape: the activations, norm scale and biases shared by every set,
/// and `sets` independent weight sets (packed weights and scales of gate and up), random but
/// deterministic, with scales that keep `Y` of order one.
pub struct ShapeInputs {
    /// The call's shape.
    pub shape: MlpShape,
    /// The node's attributes.
    pub attrs: IndexMap<String, AttrValue>,
    /// A, skip, norm_scale, gate_bias, up_bias (`None` where the shape has none).
    pub(crate) shared: [Option<Tensor>; 5],
    /// gate_B, gate_scales, up_B, up_scales per set.
    weights: Vec<[Tensor; 4]>,
}

impl ShapeInputs {
    /// Generates the inputs of `shape` with `sets` weight sets (at least one).
    pub fn new(shape: &MlpShape, sets: usize) -> ShapeInputs {
        let s = shape;
        let kb = s.k_blocks();
        let blob = s.blob_size();
        let scale =
            3f32.sqrt() / ((1u32 << (s.bits.max(1) - 1)) as f32 * (s.k.max(1) as f32).sqrt());
        let f = s.dtype;
        let rows = s.rows();
        let mut a_shape = s.lead.clone();
        a_shape.push(s.k);
        let act = |seed| {
            Tensor::from_floats(
                f,
                a_shape.clone(),
                &random_floats(rows * s.k, -1.0, 1.0, seed),
            )
        };
        let vec_of = |len: usize, lo, hi, seed| {
            Tensor::from_floats(f, vec![len], &random_floats(len, lo, hi, seed))
        };
        let shared = [
            Some(act(1)),
            s.skip.then(|| act(2)),
            s.norm.then(|| vec_of(s.k, 0.5, 1.5, 3)),
            s.gate_bias.then(|| vec_of(s.n, -0.5, 0.5, 4)),
            s.up_bias.then(|| vec_of(s.n, -0.5, 0.5, 5)),
        ];
        let weights = (0..sets.max(1))
            .map(|i| {
                let seed = 100 + 10 * i as u64;
                let w = |o: u64| {
                    Tensor::from_u8(vec![s.n, kb, blob], random_bytes(s.n * kb * blob, seed + o))
                };
                let sc = |o: u64| {
                    let v: Vec<f32> = random_floats(s.n * kb, -1.5, 1.5, seed + o)
                        .into_iter()
                        .map(|x| x.signum() * (0.5 + x.abs() * 0.667) * scale)
                        .collect();
                    Tensor::from_floats(f, vec![s.n, kb], &v)
                };
                [w(1), sc(2), w(3), sc(4)]
            })
            .collect();
        ShapeInputs {
            shape: s.clone(),
            attrs: s.call().attrs,
            shared,
            weights,
        }
    }

    /// Number of weight sets.
    pub fn sets(&self) -> usize {
        self.weights.len()
    }

    /// The requested outputs (`Y`, and the residual when the shape asks for it).
    pub fn want(&self) -> [bool; 2] {
        [true, self.shape.residual]
    }

    /// The operator call.
    pub fn call(&self) -> OpCall {
        OpCall::from_tensors(&self.attrs, &self.host_refs(0), &self.want())
    }

    /// The inputs of weight set `set` (taken modulo the number of sets), ONNX order.
    pub fn host_refs(&self, set: usize) -> Vec<Option<&Tensor>> {
        let w = &self.weights[set % self.weights.len()];
        let [a, skip, norm, gb, ub] = &self.shared;
        vec![
            a.as_ref(),
            skip.as_ref(),
            norm.as_ref(),
            Some(&w[0]),
            Some(&w[1]),
            gb.as_ref(),
            Some(&w[2]),
            Some(&w[3]),
            ub.as_ref(),
        ]
    }
}

/// Device copies of a [`ShapeInputs`]: the shared inputs once, every weight set, and one set of
/// outputs per weight set.
pub struct DeviceInputs {
    pub(crate) shared: Vec<Option<GpuTensor>>,
    weights: Vec<Vec<GpuTensor>>,
    outputs: Vec<Vec<Option<GpuTensor>>>,
}

impl DeviceInputs {
    /// Uploads `inputs` and allocates the outputs of `plan` (any plan of the same call: the
    /// outputs do not depend on tunables) for every weight set.
    pub fn upload(rt: &Runtime, inputs: &ShapeInputs, plan: &Plan) -> Result<DeviceInputs> {
        let shared = inputs
            .shared
            .iter()
            .map(|t| t.as_ref().map(|t| rt.upload(t)).transpose())
            .collect::<Result<_, _>>()?;
        let weights = inputs
            .weights
            .iter()
            .map(|w| {
                w.iter()
                    .map(|t| rt.upload(t))
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<_, _>>()?;
        let outputs = (0..inputs.sets())
            .map(|_| rt.alloc_outputs(plan))
            .collect::<Result<_, _>>()?;
        Ok(DeviceInputs {
            shared,
            weights,
            outputs,
        })
    }

    /// Number of weight sets.
    pub fn sets(&self) -> usize {
        self.weights.len()
    }

    /// The device inputs of weight set `set` (modulo the number of sets), ONNX order.
    pub fn inputs(&self, set: usize) -> Vec<Option<&GpuTensor>> {
        let w = &self.weights[set % self.weights.len()];
        let sh = |i: usize| self.shared[i].as_ref();
        vec![
            sh(0),
            sh(1),
            sh(2),
            Some(&w[0]),
            Some(&w[1]),
            sh(3),
            Some(&w[2]),
            Some(&w[3]),
            sh(4),
        ]
    }

    /// The device outputs of weight set `set` (modulo the number of sets), ONNX order.
    pub fn outputs(&self, set: usize) -> Vec<Option<&GpuTensor>> {
        self.outputs[set % self.outputs.len()]
            .iter()
            .map(Option::as_ref)
            .collect()
    }
}
