//! An ONNX Runtime custom-op library: `MatMulNBitsMlp` nodes (what `nbits-mlp fuse` writes) run
//! on the GPU through nbits-mlp's runtime, inside any ONNX Runtime session, CPU execution
//! provider included.
//!
//! ```python
//! so = onnxruntime.SessionOptions()
//! so.register_custom_ops_library("libnbits_mlp_ort_op.so")
//! sess = onnxruntime.InferenceSession("fused.onnx", so, providers=["CPUExecutionProvider"])
//! ```
//!
//! [`RegisterCustomOps`] (ONNX Runtime's entry point for such libraries) registers the op in the
//! domains [`DOMAINS`], for float32 and float16 models. Each node's kernel is created once per
//! session: weights, scales, biases and norm scale that are initializers are read then, uploaded
//! and kept on the GPU; each call uploads A (and skip), runs the plan the manifest picks for
//! the call's shape, and reads Y (and the residual) back. Inputs that are not constant are
//! uploaded on every call.
//!
//! Failures (no adapter, a call the operator contract rejects, a device error) become ONNX
//! Runtime errors whose message is this project's (`nbits-mlp: node '...': ...`); a panic is
//! caught at the boundary and reported the same way, never unwound into the host process.
//!
//! Environment: `NBITS_MLP_BACKENDS` / `NBITS_MLP_ADAPTER` choose the adapter (as for the
//! command line); the adapter's tuning cache applies unless `NBITS_MLP_TUNE_CACHE=off`.
#![warn(missing_docs)]

mod kernel;

use ort_sys::{
    ONNXTensorElementDataType as ElemType, OrtApi, OrtApiBase, OrtCustomOp, OrtCustomOpDomain,
    OrtCustomOpInputOutputCharacteristic as Characteristic, OrtErrorCode, OrtKernelContext,
    OrtKernelInfo, OrtMemType, OrtSessionOptions, OrtStatus, OrtStatusPtr,
};
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

/// The operator's name.
pub const OP_NAME: &str = "MatMulNBitsMlp";
/// The domains the op is registered in: ONNX Runtime's own (what `nbits-mlp fuse` writes by
/// default), and this project's (`nbits-mlp fuse --domain nbits_mlp`).
pub const DOMAINS: [&str; 2] = ["com.microsoft", "nbits_mlp"];
/// The ONNX Runtime C API version this library asks for (ONNX Runtime 1.16 or newer):
/// `CreateKernelV2`/`KernelComputeV2` (errors as statuses) and constant inputs at kernel
/// creation.
pub const API_VERSION: u32 = 16;

/// Inputs of the op (ONNX order): A, skip, norm_scale, gate_B, gate_scales, gate_bias, up_B,
/// up_scales, up_bias.
pub const INPUTS: usize = 9;
/// Outputs of the op: Y, input_skip_bias_sum.
pub const OUTPUTS: usize = 2;
/// Which inputs are the uint8 packed weights.
const WEIGHT_INPUTS: [usize; 2] = [3, 6];
/// Which inputs are required.
const REQUIRED_INPUTS: [usize; 5] = [0, 3, 4, 6, 7];

/// The ONNX Runtime API table, shared by every kernel.
#[derive(Clone, Copy)]
pub(crate) struct Api(pub(crate) &'static OrtApi);

// The table is immutable and ONNX Runtime's functions are thread-safe where kernels call them.
unsafe impl Send for Api {}
unsafe impl Sync for Api {}

impl Api {
    /// A status carrying `msg` (ORT_FAIL, or ORT_INVALID_ARGUMENT for bad input).
    pub(crate) fn status(&self, code: OrtErrorCode, msg: &str) -> OrtStatusPtr {
        let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
        // SAFETY: CreateStatus copies the message.
        unsafe { (self.0.CreateStatus)(code, c.as_ptr()) }
    }

    /// `Err` with ONNX Runtime's message when `s` is an error status (which is released).
    pub(crate) fn check(&self, s: OrtStatusPtr, what: &str) -> Result<(), String> {
        if s.0.is_null() {
            return Ok(());
        }
        // SAFETY: a non-null status from the API; its message lives until it is released.
        let msg = unsafe {
            let m = (self.0.GetErrorMessage)(s.0 as *const OrtStatus);
            let text = if m.is_null() {
                String::from("(no message)")
            } else {
                CStr::from_ptr(m).to_string_lossy().into_owned()
            };
            (self.0.ReleaseStatus)(s.0);
            text
        };
        Err(format!("{what}: {msg}"))
    }
}

/// One registered op: ONNX Runtime's descriptor first (ONNX Runtime hands its address back to
/// every callback), then the element type it is for.
#[repr(C)]
struct OpDef {
    op: OrtCustomOp,
    t1: ElemType,
}

/// The op definition behind ONNX Runtime's `op` pointer.
///
/// # Safety
/// `op` must be the `op` field of an [`OpDef`] made by [`op_def`] (every pointer ONNX Runtime
/// passes to these callbacks is).
unsafe fn def<'a>(op: *const OrtCustomOp) -> &'a OpDef {
    &*(op as *const OpDef)
}

unsafe extern "system" fn get_name(_: *const OrtCustomOp) -> *const c_char {
    c"MatMulNBitsMlp".as_ptr()
}

unsafe extern "system" fn get_ep(_: *const OrtCustomOp) -> *const c_char {
    ptr::null() // the CPU execution provider: the kernel reads and writes host memory
}

unsafe extern "system" fn input_type(op: *const OrtCustomOp, i: usize) -> ElemType {
    if WEIGHT_INPUTS.contains(&i) {
        ElemType::ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8
    } else {
        def(op).t1
    }
}

unsafe extern "system" fn input_count(_: *const OrtCustomOp) -> usize {
    INPUTS
}

unsafe extern "system" fn output_type(op: *const OrtCustomOp, _: usize) -> ElemType {
    def(op).t1
}

unsafe extern "system" fn output_count(_: *const OrtCustomOp) -> usize {
    OUTPUTS
}

unsafe extern "system" fn input_characteristic(_: *const OrtCustomOp, i: usize) -> Characteristic {
    if REQUIRED_INPUTS.contains(&i) {
        Characteristic::INPUT_OUTPUT_REQUIRED
    } else {
        Characteristic::INPUT_OUTPUT_OPTIONAL
    }
}

unsafe extern "system" fn output_characteristic(_: *const OrtCustomOp, i: usize) -> Characteristic {
    if i == 0 {
        Characteristic::INPUT_OUTPUT_REQUIRED
    } else {
        Characteristic::INPUT_OUTPUT_OPTIONAL
    }
}

unsafe extern "system" fn input_memory(_: *const OrtCustomOp, _: usize) -> OrtMemType {
    OrtMemType::OrtMemTypeDefault
}

unsafe extern "system" fn variadic_zero(_: *const OrtCustomOp) -> i32 {
    0
}

unsafe extern "system" fn create_kernel_v1(
    _: *const OrtCustomOp,
    _: *const OrtApi,
    _: *const OrtKernelInfo,
) -> *mut c_void {
    ptr::null_mut() // never called: ONNX Runtime >= 1.16 calls create_kernel (V2)
}

unsafe extern "system" fn compute_v1(_: *mut c_void, _: *mut OrtKernelContext) {}

unsafe extern "system" fn create_kernel(
    op: *const OrtCustomOp,
    api: *const OrtApi,
    info: *const OrtKernelInfo,
    out: *mut *mut c_void,
) -> OrtStatusPtr {
    if api.is_null() || out.is_null() {
        return OrtStatusPtr(ptr::null_mut()); // cannot report without the API; ONNX Runtime never does this
    }
    let api = Api(&*api);
    let t1 = def(op).t1;
    match catch_unwind(AssertUnwindSafe(|| kernel::Kernel::create(api, info, t1))) {
        Ok(Ok(k)) => {
            *out = Box::into_raw(Box::new(k)) as *mut c_void;
            OrtStatusPtr(ptr::null_mut())
        }
        Ok(Err(e)) => api.status(e.code, &e.message),
        Err(p) => api.status(
            OrtErrorCode::ORT_FAIL,
            &format!(
                "nbits-mlp: creating the MatMulNBitsMlp kernel panicked: {}",
                panic_text(&p)
            ),
        ),
    }
}

unsafe extern "system" fn compute(k: *mut c_void, ctx: *mut OrtKernelContext) -> OrtStatusPtr {
    let kernel = &*(k as *const kernel::Kernel);
    match catch_unwind(AssertUnwindSafe(|| kernel.compute(ctx))) {
        Ok(Ok(())) => OrtStatusPtr(ptr::null_mut()),
        Ok(Err(e)) => kernel.api().status(e.code, &e.message),
        Err(p) => kernel.api().status(
            OrtErrorCode::ORT_FAIL,
            &format!(
                "nbits-mlp: node {}: the kernel panicked: {}",
                kernel.label(),
                panic_text(&p)
            ),
        ),
    }
}

unsafe extern "system" fn destroy(k: *mut c_void) {
    if !k.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| {
            drop(Box::from_raw(k as *mut kernel::Kernel))
        }));
    }
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

/// The descriptor of the op for element type `t1`.
fn op_def(t1: ElemType) -> OpDef {
    OpDef {
        op: OrtCustomOp {
            version: API_VERSION,
            CreateKernel: Some(create_kernel_v1),
            GetName: Some(get_name),
            GetExecutionProviderType: Some(get_ep),
            GetInputType: Some(input_type),
            GetInputTypeCount: Some(input_count),
            GetOutputType: Some(output_type),
            GetOutputTypeCount: Some(output_count),
            KernelCompute: Some(compute_v1),
            KernelDestroy: Some(destroy),
            GetInputCharacteristic: Some(input_characteristic),
            GetOutputCharacteristic: Some(output_characteristic),
            GetInputMemoryType: Some(input_memory),
            GetVariadicInputMinArity: Some(variadic_zero),
            GetVariadicInputHomogeneity: Some(variadic_zero),
            GetVariadicOutputMinArity: Some(variadic_zero),
            GetVariadicOutputHomogeneity: Some(variadic_zero),
            CreateKernelV2: Some(create_kernel),
            KernelComputeV2: Some(compute),
            InferOutputShapeFn: None,
            GetStartVersion: None,
            GetEndVersion: None,
            GetMayInplace: None,
            ReleaseMayInplace: None,
            GetAliasMap: None,
            ReleaseAliasMap: None,
        },
        t1,
    }
}

/// The two op descriptors (float32, float16), made once and never freed: ONNX Runtime keeps
/// pointers to them for as long as sessions use them.
fn op_defs() -> &'static [OpDef; 2] {
    static DEFS: std::sync::OnceLock<OpDefs> = std::sync::OnceLock::new();
    &DEFS
        .get_or_init(|| {
            OpDefs([
                op_def(ElemType::ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT),
                op_def(ElemType::ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16),
            ])
        })
        .0
}

struct OpDefs([OpDef; 2]);
// The descriptors are immutable after creation.
unsafe impl Send for OpDefs {}
unsafe impl Sync for OpDefs {}

/// ONNX Runtime's entry point for custom-op libraries
/// (`SessionOptions.register_custom_ops_library`, `RegisterCustomOpsLibrary_V2`): registers
/// `MatMulNBitsMlp` (float32 and float16) in each domain of [`DOMAINS`] on `options`.
///
/// # Safety
/// `options` and `api_base` must be what ONNX Runtime passes: a live session options object
/// and its API base.
#[no_mangle]
pub unsafe extern "C" fn RegisterCustomOps(
    options: *mut OrtSessionOptions,
    api_base: *const OrtApiBase,
) -> *mut OrtStatus {
    if api_base.is_null() {
        return ptr::null_mut();
    }
    let api = ((*api_base).GetApi)(API_VERSION);
    if api.is_null() {
        // An ONNX Runtime older than the API version asked for: no way to make a status.
        eprintln!("nbits-mlp: this ONNX Runtime does not offer C API version {API_VERSION} (1.16); MatMulNBitsMlp not registered");
        return ptr::null_mut();
    }
    let api = Api(&*api);
    match catch_unwind(AssertUnwindSafe(|| register(api, options))) {
        Ok(Ok(())) => ptr::null_mut(),
        Ok(Err(e)) => {
            api.status(OrtErrorCode::ORT_FAIL, &format!("nbits-mlp: {e}"))
                .0
        }
        Err(p) => {
            api.status(
                OrtErrorCode::ORT_FAIL,
                &format!(
                    "nbits-mlp: registering the custom ops panicked: {}",
                    panic_text(&p)
                ),
            )
            .0
        }
    }
}

fn register(api: Api, options: *mut OrtSessionOptions) -> Result<(), String> {
    for domain in DOMAINS {
        let name = CString::new(domain).expect("no NUL");
        let mut d: *mut OrtCustomOpDomain = ptr::null_mut();
        // SAFETY: API calls with valid pointers; the domain object is handed to the session
        // options and, like the op descriptors, never freed (ONNX Runtime reads it while
        // sessions live).
        unsafe {
            api.check(
                (api.0.CreateCustomOpDomain)(name.as_ptr(), &mut d),
                "CreateCustomOpDomain",
            )?;
            for def in op_defs() {
                api.check((api.0.CustomOpDomain_Add)(d, &def.op), "CustomOpDomain_Add")?;
            }
            api.check((api.0.AddCustomOpDomain)(options, d), "AddCustomOpDomain")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_declare_the_op_signature() {
        let [f32_def, f16_def] = op_defs();
        for (def, t1) in [
            (f32_def, ElemType::ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT),
            (f16_def, ElemType::ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16),
        ] {
            let op = &def.op as *const OrtCustomOp;
            // SAFETY: the callbacks only read the descriptor they are given.
            unsafe {
                assert_eq!(CStr::from_ptr(get_name(op)).to_str().unwrap(), OP_NAME);
                assert!(get_ep(op).is_null(), "the CPU execution provider");
                assert_eq!(input_count(op), 9);
                assert_eq!(output_count(op), 2);
                for i in 0..9 {
                    let want = if i == 3 || i == 6 {
                        ElemType::ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8
                    } else {
                        t1
                    };
                    assert_eq!(input_type(op, i), want, "input {i}");
                    let required = [0, 3, 4, 6, 7].contains(&i);
                    assert_eq!(
                        input_characteristic(op, i),
                        if required {
                            Characteristic::INPUT_OUTPUT_REQUIRED
                        } else {
                            Characteristic::INPUT_OUTPUT_OPTIONAL
                        },
                        "input {i}"
                    );
                }
                assert_eq!(output_type(op, 1), t1);
                assert_eq!(
                    output_characteristic(op, 0),
                    Characteristic::INPUT_OUTPUT_REQUIRED
                );
                assert_eq!(
                    output_characteristic(op, 1),
                    Characteristic::INPUT_OUTPUT_OPTIONAL
                );
            }
            assert_eq!(def.op.version, API_VERSION);
            assert!(def.op.CreateKernelV2.is_some() && def.op.KernelComputeV2.is_some());
        }
    }

    #[test]
    fn panic_messages_are_kept() {
        let p = std::panic::catch_unwind(|| panic!("boom {}", 7)).unwrap_err();
        assert_eq!(panic_text(&p), "boom 7");
        let p = std::panic::catch_unwind(|| panic!("static")).unwrap_err();
        assert_eq!(panic_text(&p), "static");
    }
}
