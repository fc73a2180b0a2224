//! A plan: plain data saying exactly what runs for one operator call on one device.
//! Print it (`nbits-mlp plan --json`), dump its WGSL, or hand it to the GPU runtime.

use crate::manifest::BufferKind;
use crate::tensor::DType;
use indexmap::IndexMap;
use serde::Serialize;

/// What one binding is bound to.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Resource {
    /// The caller's input tensor `index` (ONNX order).
    Input {
        /// ONNX input index.
        index: usize,
        /// Manifest argument name.
        arg: String,
        /// ONNX name.
        onnx: String,
    },
    /// The caller's input tensor `index` in a prepared layout: a copy of its bytes rearranged
    /// for the kernel (`core::layout`), which the runtime builds once and keeps with the tensor.
    Prepared {
        /// ONNX input index.
        index: usize,
        /// Manifest argument name.
        arg: String,
        /// ONNX name.
        onnx: String,
        /// The layout and the geometry it is built for.
        weights: crate::layout::PreparedWeights,
    },
    /// The operator's output `index`.
    Output {
        /// ONNX output index.
        index: usize,
        /// Manifest argument name.
        arg: String,
        /// ONNX name.
        onnx: String,
    },
    /// An intermediate of the plan (index into [`Plan::intermediates`]).
    Scratch {
        /// Index into the plan's intermediates.
        index: usize,
        /// Scratch id.
        id: String,
    },
    /// A uniform struct with its values laid out by WGSL's uniform rules.
    Uniform {
        /// Fields, in order.
        fields: Vec<UniformField>,
        /// The bytes to upload (size rounded up to 16).
        #[serde(skip)]
        bytes: Vec<u8>,
    },
}

/// One uniform field with its value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UniformField {
    /// Field name.
    pub name: String,
    /// WGSL scalar type.
    pub ty: String,
    /// Value (as f64 for f32 fields, else integer).
    pub value: serde_json::Value,
    /// Byte offset.
    pub offset: u32,
}

/// One binding of a pass.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BindingPlan {
    /// `@binding(i)` in group 0.
    pub binding: u32,
    /// Manifest binding key (`normed_2`).
    pub key: String,
    /// WGSL variable name (`normed`).
    pub name: String,
    /// Access mode.
    pub access: BufferKind,
    /// WGSL element type (`f16`, `vec4<u32>`), or the struct name for a uniform.
    pub element_type: String,
    /// What it is bound to.
    pub resource: Resource,
    /// Bytes the bound buffer holds (rounded up to 4 for the GPU).
    pub bytes: u64,
    /// Minimum element count required by the manifest's `length`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_elements: Option<u64>,
}

/// One compute pass.
#[derive(Clone, Debug, Serialize)]
pub struct PassPlan {
    /// Pass id (`norm`, `main`).
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// Template the shader was rendered from.
    pub shader: String,
    /// Workgroups `[x, y, z]`.
    pub dispatch: [u32; 3],
    /// True when a dispatch dimension is zero: the pass is not run.
    pub skipped: bool,
    /// Workgroup size as written in the rendered shader.
    pub workgroup_size: [u32; 3],
    /// Whether the shader may use subgroup operations.
    pub subgroups: bool,
    /// Bindings in binding order.
    pub bindings: Vec<BindingPlan>,
    /// The template context (every derive value, attrs, tunables, pass id).
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    pub context: serde_json::Map<String, serde_json::Value>,
    /// The rendered WGSL. Shared (`Arc`): a runtime that keeps a plan's shaders can tell the
    /// same text again by pointer before comparing it byte by byte.
    #[serde(skip)]
    pub wgsl: std::sync::Arc<str>,
}

/// An output tensor of the plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OutputPlan {
    /// ONNX output index.
    pub index: usize,
    /// Manifest argument name.
    pub arg: String,
    /// ONNX name.
    pub onnx: String,
    /// Whether it is produced (requested, or not optional).
    pub present: bool,
    /// Element type.
    pub dtype: DType,
    /// Shape (empty when not present).
    pub shape: Vec<usize>,
}

/// An intermediate buffer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IntermediatePlan {
    /// Scratch id.
    pub id: String,
    /// Element type.
    pub dtype: DType,
    /// Shape.
    pub shape: Vec<usize>,
    /// Size in bytes (`numel * sizeof(dtype)`).
    pub bytes: u64,
}

/// Why a variant did or did not apply.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// Variant id.
    pub variant: String,
    /// Its priority.
    pub priority: i64,
    /// Whether it applies.
    pub applies: bool,
    /// The first rejecting term (`when[2]: present.skipT` ...) or unmet limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejected_by: Option<String>,
    /// Why that term is false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// Everything that runs for one call.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// Chosen variant id.
    pub variant: String,
    /// Its priority.
    pub priority: i64,
    /// The bound type T1 (float32 or float16).
    pub dtype: DType,
    /// Device profile name.
    pub device: String,
    /// Attribute values after defaults.
    pub attrs: IndexMap<String, serde_json::Value>,
    /// Tunable values after overrides.
    pub tunables: IndexMap<String, i64>,
    /// Rows of A (`aRows`).
    pub rows: u64,
    /// Outputs, ONNX order.
    pub outputs: Vec<OutputPlan>,
    /// Intermediate buffers.
    pub intermediates: Vec<IntermediatePlan>,
    /// Passes, in order.
    pub passes: Vec<PassPlan>,
    /// Every variant's verdict, in manifest order.
    pub verdicts: Vec<Verdict>,
}

impl Plan {
    /// The passes that actually run.
    pub fn active_passes(&self) -> impl Iterator<Item = &PassPlan> {
        self.passes.iter().filter(|p| !p.skipped)
    }

    /// Whether an active pass keeps partial sums in float16: its variant derives
    /// `f16Accumulation` true (the overlay's `gemv_*` variants on float16 models with
    /// `GEMV_F16_MATH=1`). Such results are checked with the reference's float16-accumulation
    /// tolerance (`nbits_mlp_reference::compare::worst_error`, per element).
    pub fn f16_accumulation(&self) -> bool {
        self.flag("f16Accumulation")
    }

    /// Whether an active pass stages float32 values as float16 hi / lo pairs: its variant
    /// derives `f16Pairs` true (the float32 forms of the tensor-core kernels, `coop_*`, `mma_*`
    /// and `mmap_*` on float32 models). Such a pass holds activations (after the norm) only
    /// below [`crate::op::F16_PAIR_LIMIT`]; [`crate::op::values_overflow`] says which input a
    /// call's values put past it.
    pub fn f16_pairs(&self) -> bool {
        self.flag("f16Pairs")
    }

    /// Whether an active pass stages the dequantised weights as float16 hi / lo pairs too
    /// (`f16PairWeights`: `coop_*` on float32 models), so the scales times the largest code
    /// offset must stay below [`crate::op::F16_PAIR_LIMIT`].
    pub fn f16_pair_weights(&self) -> bool {
        self.flag("f16PairWeights")
    }

    /// Whether an active pass stages dequantised weights, `(code - zero) * scale`, as float16
    /// (`f16Weights`: the tensor-core kernels `coop_*`, `mma_*`, `mmap_*`, `mmal_*` on float16
    /// models), so the scales times the largest code offset must stay within float16's range
    /// ([`crate::op::f16_range_fault`]).
    pub fn f16_weights(&self) -> bool {
        self.flag("f16Weights")
    }

    /// Whether an active pass holds the normalised rows (`A (+ skip)` times 1/rms and
    /// norm_scale) as float16 (`f16NormRow`: the norm forms of float16 calls on the gemv with
    /// float16 math or from the norm pass's T1 row, the few-rows kernel and the tensor-core
    /// kernels), where an element past float16's largest value is an infinity;
    /// [`crate::op::values_overflow`] keeps calls whose norm_scale allows that away from them.
    pub fn f16_norm_rows(&self) -> bool {
        self.flag("f16NormRow")
    }

    /// Whether an active pass's context holds `key` true (or a non-zero integer).
    fn flag(&self, key: &str) -> bool {
        self.active_passes().any(|p| {
            p.context.get(key).is_some_and(|v| {
                v.as_bool()
                    .unwrap_or_else(|| v.as_i64().is_some_and(|i| i != 0))
            })
        })
    }
}
