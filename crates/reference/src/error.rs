//! The one error type of this crate.

/// Everything the reference can refuse: bad attributes, bad inputs, bad packing arguments.
///
/// Messages name the attribute or tensor at fault (ONNX names: `A`, `skip`, `norm_scale`,
/// `gate_B`, `gate_scales`, `gate_bias`, `up_B`, `up_scales`, `up_bias`) and, where ONNX Runtime
/// has one, follow its wording.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RefError {
    /// `bits` is not 2, 4 or 8.
    #[error("Only 4b/8b/2b quantization is supported for MatMulNBitsMlp op (bits = {0}).")]
    UnsupportedBits(i64),
    /// A required attribute is absent.
    #[error("Required attribute '{0}' is missing.")]
    MissingAttribute(&'static str),
    /// An attribute is present but has the wrong kind or an unsupported value.
    #[error("attribute '{name}': {reason}")]
    BadAttribute {
        /// Attribute name.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A required input is absent (`None` or past the end of the input list).
    #[error("missing required input {0}")]
    MissingInput(&'static str),
    /// More than the operator's 9 inputs were given.
    #[error("MatMulNBitsMlp has 9 inputs, {0} were given")]
    TooManyInputs(usize),
    /// An input tensor is malformed: wrong dtype, shape or byte length.
    #[error("{message}")]
    BadInput {
        /// ONNX name of the input at fault.
        name: &'static str,
        /// Full message, naming the input.
        message: String,
    },
    /// Two tensors that share the type parameter T1 have different dtypes.
    #[error("Type parameter (T1) bound to different types: {first} is {first_dtype} but {second} is {second_dtype}")]
    TypeMismatch {
        /// The tensor that fixed T1 (always `A`).
        first: &'static str,
        /// Its dtype name.
        first_dtype: &'static str,
        /// The tensor that disagrees.
        second: &'static str,
        /// Its dtype name.
        second_dtype: &'static str,
    },
    /// `skip` is given without `norm_scale`.
    #[error("skip requires norm_scale: MatMulNBitsMlp requires norm_scale when skip is present.")]
    SkipWithoutNorm,
    /// Output 1 (`input_skip_bias_sum`) is requested but `skip` is absent.
    #[error("input_skip_bias_sum requested without skip: skip input must be present when input_skip_bias_sum output is requested")]
    ResidualWithoutSkip,
    /// An argument of a [`crate::pack`] function is inconsistent (sizes, non-finite values).
    #[error("{0}")]
    BadArgument(String),
}
