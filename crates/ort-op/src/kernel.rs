//! One `MatMulNBitsMlp` node's kernel: constant inputs uploaded at creation, one GPU run per
//! call.

use crate::{Api, INPUTS, OUTPUTS};
use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, DType, Tensor, TensorInfo, Tunables};
use nbits_mlp_gpu::{GpuOptions, GpuTensor, Runtime};
use ort_sys::{
    ONNXTensorElementDataType as ElemType, OrtErrorCode, OrtKernelContext, OrtKernelInfo,
    OrtTensorTypeAndShapeInfo, OrtValue,
};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;
use std::sync::{Mutex, OnceLock};

/// An error for ONNX Runtime: its code and this project's message.
pub(crate) struct KernelError {
    pub code: OrtErrorCode,
    pub message: String,
}

fn fail(message: String) -> KernelError {
    KernelError {
        code: OrtErrorCode::ORT_FAIL,
        message,
    }
}

/// Input `index`'s host tensor checked as the op's parameters are
/// ([`Runtime::check_parameters`]: scales, biases and norm_scale finite; other inputs pass).
fn check_parameter(index: usize, t: &Tensor) -> Result<(), nbits_mlp_gpu::GpuError> {
    let mut one: [Option<&Tensor>; INPUTS] = [None; INPUTS];
    one[index] = Some(t);
    Runtime::check_parameters(&one)
}

fn invalid(message: String) -> KernelError {
    KernelError {
        code: OrtErrorCode::ORT_INVALID_ARGUMENT,
        message,
    }
}

/// The process's GPU runtime, opened by the first kernel (`Err`: why there is none).
fn runtime() -> Result<&'static Runtime, String> {
    static RT: OnceLock<Result<Runtime, String>> = OnceLock::new();
    RT.get_or_init(|| {
        let opts = GpuOptions::from_env().map_err(|e| e.to_string())?;
        let rt = Runtime::open(&opts).map_err(|e| e.to_string())?;
        let (rt, _warning) = rt.with_default_tuning();
        Ok(rt)
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// The outputs of the last plan: their infos, device tensors and host tensors.
type OutputBuffers = (Vec<Option<TensorInfo>>, Vec<Option<GpuTensor>>, Vec<Tensor>);

/// Per-call device buffers, kept while the call shape stays the same.
#[derive(Default)]
struct Buffers {
    /// Non-constant inputs: (info, device tensor) per input index.
    inputs: Vec<Option<(TensorInfo, GpuTensor)>>,
    /// Outputs of the last plan.
    outputs: Option<OutputBuffers>,
}

/// The kernel of one node.
pub(crate) struct Kernel {
    api: Api,
    name: String,
    attrs: IndexMap<String, AttrValue>,
    /// Constant inputs, uploaded once.
    consts: Vec<Option<GpuTensor>>,
    /// The constant parameters' largest magnitudes (norm_scale, the scales), for the range of
    /// the kernels' float16 staging (`op::values_fault`).
    const_magnitudes: nbits_mlp_core::op::Magnitudes,
    /// A constant norm_scale on the host, for the float16 sums' range of the normalised rows.
    const_norm_scale: Option<Tensor>,
    /// Whether output 1 (input_skip_bias_sum) is requested by the node.
    want_residual: bool,
    rt: &'static Runtime,
    buffers: Mutex<Buffers>,
}

/// A tensor ONNX Runtime owns: element type, shape, data pointer.
struct View {
    dtype: DType,
    shape: Vec<usize>,
    data: *const u8,
}

impl View {
    fn info(&self) -> TensorInfo {
        TensorInfo::new(self.dtype, self.shape.clone())
    }

    fn bytes(&self) -> usize {
        self.shape.iter().product::<usize>() * self.dtype.size()
    }

    /// Its bytes, in place.
    fn as_slice(&self) -> &[u8] {
        let n = self.bytes();
        if n == 0 {
            &[]
        } else {
            // SAFETY: ONNX Runtime's tensor holds `n` bytes at `data` while the call lasts,
            // which the view does not outlive.
            unsafe { std::slice::from_raw_parts(self.data, n) }
        }
    }

    /// A host copy.
    fn to_tensor(&self) -> Tensor {
        Tensor::from_bytes(self.dtype, self.shape.clone(), self.as_slice().to_vec())
            .expect("size matches shape")
    }
}

use nbits_mlp_core::op::INPUT_NAMES;

impl Kernel {
    pub(crate) fn api(&self) -> Api {
        self.api
    }

    /// `'node name'` for messages.
    pub(crate) fn label(&self) -> String {
        format!("'{}'", self.name)
    }

    /// Reads the node's attributes and constant inputs and uploads the constants.
    pub(crate) fn create(
        api: Api,
        info: *const OrtKernelInfo,
        t1: ElemType,
    ) -> Result<Kernel, KernelError> {
        let a = api.0;
        let name = unsafe { node_name(api, info) }.unwrap_or_default();
        let label = format!("'{name}'");
        let ort = |e: String| fail(format!("nbits-mlp: node {label}: {e}"));
        let mut attrs = IndexMap::new();
        for key in ["K", "N", "bits", "block_size", "accuracy_level"] {
            let c = std::ffi::CString::new(key).expect("no NUL");
            let mut v: i64 = 0;
            // SAFETY: a valid info pointer and out pointer.
            let s = unsafe { (a.KernelInfoGetAttribute_int64)(info, c.as_ptr(), &mut v) };
            if api.check(s, key).is_ok() {
                attrs.insert(key.to_string(), AttrValue::Int(v));
            }
        }
        {
            let mut v: f32 = 0.0;
            // SAFETY: as above.
            let s = unsafe { (a.KernelInfoGetAttribute_float)(info, c"epsilon".as_ptr(), &mut v) };
            if api.check(s, "epsilon").is_ok() {
                attrs.insert("epsilon".into(), AttrValue::Float(f64::from(v)));
            }
        }
        if let Some(s) = unsafe { string_attr(api, info, c"activation".as_ptr()) } {
            attrs.insert("activation".into(), AttrValue::Str(s));
        }
        let rt = runtime().map_err(|e| ort(format!("no GPU runtime: {e}")))?;

        let mut n_inputs = 0usize;
        let mut n_outputs = 0usize;
        // SAFETY: valid pointers.
        unsafe {
            api.check(
                (a.KernelInfo_GetInputCount)(info, &mut n_inputs),
                "KernelInfo_GetInputCount",
            )
            .map_err(ort)?;
            api.check(
                (a.KernelInfo_GetOutputCount)(info, &mut n_outputs),
                "KernelInfo_GetOutputCount",
            )
            .map_err(ort)?;
        }
        let want_residual = n_outputs >= 2
            && unsafe { io_name(api, info, 1, false) }.is_some_and(|n| !n.is_empty());
        let mut consts: Vec<Option<GpuTensor>> = vec![None; INPUTS];
        let mut host_consts: Vec<Option<Tensor>> = vec![None; INPUTS];
        for (i, slot) in consts
            .iter_mut()
            .enumerate()
            .take(n_inputs.min(INPUTS))
            .skip(2)
        {
            let mut is_const: c_int = 0;
            let mut value: *const OrtValue = ptr::null();
            // SAFETY: valid pointers; `value` is owned by ONNX Runtime and lives while the
            // kernel is being created.
            unsafe {
                api.check(
                    (a.KernelInfoGetConstantInput_tensor)(info, i, &mut is_const, &mut value),
                    "KernelInfoGetConstantInput_tensor",
                )
                .map_err(ort)?;
            }
            if is_const == 0 || value.is_null() {
                continue;
            }
            let view = unsafe { view(api, value) }
                .map_err(|e| ort(format!("input {i} ({}): {e}", INPUT_NAMES[i])))?;
            let t = view.to_tensor();
            check_parameter(i, &t).map_err(|e| invalid(format!("nbits-mlp: node {label}: {e}")))?;
            let tensor = rt
                .upload_labeled(&t, &format!("{label} input {i} ({})", INPUT_NAMES[i]))
                .map_err(|e| ort(e.to_string()))?;
            *slot = Some(tensor);
            if matches!(i, 2 | 4 | 7) {
                host_consts[i] = Some(t);
            }
        }
        let const_magnitudes = nbits_mlp_core::op::Magnitudes::of_parameters(
            &host_consts.iter().map(Option::as_ref).collect::<Vec<_>>(),
        );
        let const_norm_scale = host_consts[2].take();
        let _ = t1;
        Ok(Kernel {
            api,
            name,
            attrs,
            consts,
            const_magnitudes,
            const_norm_scale,
            want_residual,
            rt,
            buffers: Mutex::new(Buffers::default()),
        })
    }

    /// Runs the node on one call's tensors.
    pub(crate) fn compute(&self, ctx: *mut OrtKernelContext) -> Result<(), KernelError> {
        let a = self.api.0;
        let label = self.label();
        let ort = |e: String| fail(format!("nbits-mlp: node {label}: {e}"));
        let mut n_inputs = 0usize;
        // SAFETY: valid context.
        unsafe {
            self.api
                .check(
                    (a.KernelContext_GetInputCount)(ctx, &mut n_inputs),
                    "KernelContext_GetInputCount",
                )
                .map_err(ort)?;
        }
        let mut views: Vec<Option<View>> = Vec::with_capacity(INPUTS);
        for (i, input_name) in INPUT_NAMES.iter().enumerate() {
            if i >= n_inputs {
                views.push(None);
                continue;
            }
            let mut v: *const OrtValue = ptr::null();
            // SAFETY: valid context, index below the input count.
            unsafe {
                self.api
                    .check(
                        (a.KernelContext_GetInput)(ctx, i, &mut v),
                        "KernelContext_GetInput",
                    )
                    .map_err(ort)?;
            }
            if v.is_null() {
                views.push(None);
                continue;
            }
            let view = unsafe { view(self.api, v) }.map_err(|e| {
                invalid(format!(
                    "nbits-mlp: node {label}: input {i} ({}): {e}",
                    input_name
                ))
            })?;
            views.push(Some(view));
        }
        let infos: Vec<Option<TensorInfo>> =
            views.iter().map(|v| v.as_ref().map(View::info)).collect();
        let call = nbits_mlp_core::OpCall::from_infos(
            self.attrs.clone(),
            infos,
            &[true, self.want_residual],
        );
        let plan_with = |t: &Tunables| {
            self.rt.plan(&call, t).map_err(|e| {
                // The call's fault (the CLI's exit 2, Python's ValueError) or the device's.
                let kind = if e.is_caller_error() {
                    OrtErrorCode::ORT_INVALID_ARGUMENT
                } else {
                    OrtErrorCode::ORT_FAIL
                };
                KernelError {
                    code: kind,
                    message: format!("nbits-mlp: node {label}: {e}"),
                }
            })
        };
        // Values past what a kernel's float16 staging holds take other kernels (as the GPU
        // runtime's `run` does): the constant parameters' magnitudes from the upload, the
        // others' and A's read in place where a plan needs them, the activations' range (float16
        // sums only) from copies of A, skip and a norm_scale that is not constant.
        let largest = |i: usize| {
            if i != 0 && self.consts[i].is_some() {
                self.const_magnitudes.of_input(i)
            } else {
                views[i]
                    .as_ref()
                    .map(|v| nbits_mlp_core::max_finite_abs(v.dtype, v.as_slice()))
            }
        };
        let copy = |i: usize| views[i].as_ref().map(View::to_tensor);
        let plan = nbits_mlp_core::op::plan_for_values(
            plan_with(&Tunables::new())?,
            &Tunables::new(),
            |p| {
                let m = nbits_mlp_core::op::Magnitudes::read(p, largest, || {
                    // A is present (the call planned); an empty row set else.
                    let a = copy(0).unwrap_or_else(|| Tensor::from_f32(vec![0], &[]));
                    let given = if self.const_norm_scale.is_none() {
                        copy(2)
                    } else {
                        None
                    };
                    nbits_mlp_core::op::ActivationRange::of_plan(
                        p,
                        &a,
                        copy(1).as_ref(),
                        self.const_norm_scale.as_ref().or(given.as_ref()),
                    )
                });
                nbits_mlp_core::op::values_fault(p, &m)
            },
            plan_with,
        )?;

        let mut guard = self.buffers.lock().unwrap_or_else(|p| p.into_inner());
        let bufs = &mut *guard;
        bufs.inputs.resize_with(INPUTS, || None);
        // Inputs that are not constant: written into device tensors kept across calls.
        for (i, view) in views.iter().enumerate() {
            let Some(view) = view else {
                bufs.inputs[i] = None;
                continue;
            };
            if self.consts[i].is_some() {
                continue;
            }
            let info = view.info();
            let fits = matches!(&bufs.inputs[i], Some((have, _)) if *have == info);
            if !fits {
                let t = self
                    .rt
                    .alloc(info.clone())
                    .map_err(|e| ort(e.to_string()))?;
                bufs.inputs[i] = Some((info, t));
            }
            let (_, dev) = bufs.inputs[i].as_ref().expect("just set");
            let t = view.to_tensor();
            check_parameter(i, &t).map_err(|e| invalid(format!("nbits-mlp: node {label}: {e}")))?;
            self.rt
                .write_tensor(dev, &t)
                .map_err(|e| ort(e.to_string()))?;
        }
        // Outputs: device and host tensors kept while the shapes stay.
        let out_infos: Vec<Option<TensorInfo>> = plan
            .outputs
            .iter()
            .map(|o| o.present.then(|| TensorInfo::new(o.dtype, o.shape.clone())))
            .collect();
        if !matches!(&bufs.outputs, Some((have, _, _)) if *have == out_infos) {
            let dev = self
                .rt
                .alloc_outputs(&plan)
                .map_err(|e| ort(e.to_string()))?;
            let host = out_infos
                .iter()
                .flatten()
                .map(|i| Tensor {
                    dtype: i.dtype,
                    shape: i.shape.clone(),
                    data: Vec::new(),
                })
                .collect();
            bufs.outputs = Some((out_infos.clone(), dev, host));
        }
        let inputs: Vec<Option<&GpuTensor>> = (0..INPUTS)
            .map(|i| {
                if views[i].is_none() {
                    None
                } else {
                    self.consts[i]
                        .as_ref()
                        .or(bufs.inputs[i].as_ref().map(|(_, t)| t))
                }
            })
            .collect();
        let (_, dev_outs, host_outs) = bufs.outputs.as_mut().expect("just set");
        let out_refs: Vec<Option<&GpuTensor>> = dev_outs.iter().map(Option::as_ref).collect();
        self.rt
            .run_on_device(&plan, &inputs, &out_refs)
            .map_err(|e| ort(e.to_string()))?;
        let produced: Vec<&GpuTensor> = dev_outs.iter().flatten().collect();
        self.rt
            .download_into(&produced, host_outs)
            .map_err(|e| ort(e.to_string()))?;

        // Into ONNX Runtime's outputs.
        let mut host = host_outs.iter();
        for (i, info) in out_infos.iter().enumerate().take(OUTPUTS) {
            let Some(info) = info else { continue };
            let t = host.next().expect("one host tensor per produced output");
            let dims: Vec<i64> = info.shape.iter().map(|&d| d as i64).collect();
            let mut out: *mut OrtValue = ptr::null_mut();
            // SAFETY: valid context; ONNX Runtime allocates the output of these dims.
            unsafe {
                self.api
                    .check(
                        (a.KernelContext_GetOutput)(ctx, i, dims.as_ptr(), dims.len(), &mut out),
                        "KernelContext_GetOutput",
                    )
                    .map_err(ort)?;
            }
            if out.is_null() {
                continue; // not requested after all
            }
            if t.data.is_empty() {
                continue;
            }
            let mut p: *mut c_void = ptr::null_mut();
            // SAFETY: `out` is a tensor of `t.data.len()` bytes (same dtype and dims).
            unsafe {
                self.api
                    .check(
                        (a.GetTensorMutableData)(out, &mut p),
                        "GetTensorMutableData",
                    )
                    .map_err(ort)?;
                if p.is_null() {
                    return Err(ort("ONNX Runtime gave no buffer for an output".into()));
                }
                ptr::copy_nonoverlapping(t.data.as_ptr(), p as *mut u8, t.data.len());
            }
        }
        Ok(())
    }
}

/// The element type, shape and data of an ONNX Runtime tensor.
///
/// # Safety
/// `v` must be a live tensor value.
unsafe fn view(api: Api, v: *const OrtValue) -> Result<View, String> {
    let a = api.0;
    let mut info: *mut OrtTensorTypeAndShapeInfo = ptr::null_mut();
    api.check(
        (a.GetTensorTypeAndShape)(v, &mut info),
        "GetTensorTypeAndShape",
    )?;
    let result = (|| {
        let mut t = ElemType::ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
        api.check(
            (a.GetTensorElementType)(info, &mut t),
            "GetTensorElementType",
        )?;
        let mut n = 0usize;
        api.check((a.GetDimensionsCount)(info, &mut n), "GetDimensionsCount")?;
        let mut dims = vec![0i64; n];
        api.check(
            (a.GetDimensions)(info, dims.as_mut_ptr(), n),
            "GetDimensions",
        )?;
        let dtype = match t {
            ElemType::ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT => DType::F32,
            ElemType::ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 => DType::F16,
            ElemType::ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 => DType::U8,
            other => {
                return Err(format!(
                    "element type {other:?} is not float32, float16 or uint8"
                ))
            }
        };
        let shape = dims
            .iter()
            .map(|&d| usize::try_from(d).map_err(|_| format!("negative dimension in {dims:?}")))
            .collect::<Result<Vec<_>, _>>()?;
        let mut p: *mut c_void = ptr::null_mut();
        api.check(
            (a.GetTensorMutableData)(v as *mut OrtValue, &mut p),
            "GetTensorMutableData",
        )?;
        Ok(View {
            dtype,
            shape,
            data: p as *const u8,
        })
    })();
    (a.ReleaseTensorTypeAndShapeInfo)(info);
    result
}

/// A string attribute, or `None` when absent.
///
/// # Safety
/// Valid info and NUL-terminated name.
unsafe fn string_attr(api: Api, info: *const OrtKernelInfo, name: *const c_char) -> Option<String> {
    let a = api.0;
    let mut size = 0usize;
    api.check(
        (a.KernelInfoGetAttribute_string)(info, name, ptr::null_mut(), &mut size),
        "attr",
    )
    .ok()?;
    let mut buf = vec![0u8; size.max(1)];
    api.check(
        (a.KernelInfoGetAttribute_string)(info, name, buf.as_mut_ptr() as *mut c_char, &mut size),
        "attr",
    )
    .ok()?;
    CStr::from_bytes_until_nul(&buf)
        .ok()
        .map(|c| c.to_string_lossy().into_owned())
}

/// The node's name.
///
/// # Safety
/// Valid info.
unsafe fn node_name(api: Api, info: *const OrtKernelInfo) -> Option<String> {
    let a = api.0;
    let mut size = 0usize;
    api.check(
        (a.KernelInfo_GetNodeName)(info, ptr::null_mut(), &mut size),
        "name",
    )
    .ok()?;
    let mut buf = vec![0u8; size.max(1)];
    api.check(
        (a.KernelInfo_GetNodeName)(info, buf.as_mut_ptr() as *mut c_char, &mut size),
        "name",
    )
    .ok()?;
    CStr::from_bytes_until_nul(&buf)
        .ok()
        .map(|c| c.to_string_lossy().into_owned())
}

/// The name of input (or output) `i` of the node.
///
/// # Safety
/// Valid info.
unsafe fn io_name(api: Api, info: *const OrtKernelInfo, i: usize, input: bool) -> Option<String> {
    let a = api.0;
    let f = if input {
        a.KernelInfo_GetInputName
    } else {
        a.KernelInfo_GetOutputName
    };
    let mut size = 0usize;
    api.check(f(info, i, ptr::null_mut(), &mut size), "io name")
        .ok()?;
    let mut buf = vec![0u8; size.max(1)];
    api.check(
        f(info, i, buf.as_mut_ptr() as *mut c_char, &mut size),
        "io name",
    )
    .ok()?;
    CStr::from_bytes_until_nul(&buf)
        .ok()
        .map(|c| c.to_string_lossy().into_owned())
}
