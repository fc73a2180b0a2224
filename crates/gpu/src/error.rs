//! [`GpuError`], and the error scopes that turn wgpu's asynchronous errors into it.
//!
//! wgpu reports validation, out-of-memory and internal errors through error scopes (or, if no
//! scope catches them, through an "uncaptured error" handler whose default panics). Every
//! operation of this crate that can fail on the device runs inside [`Scopes`], so such errors come
//! back as a [`GpuError`] naming what was being done; the uncaptured handler installed by
//! [`crate::Gpu`] only records errors, it never panics.

use nbits_mlp_core::PlanError;
use std::sync::{Arc, Mutex};

/// An error of the GPU runtime. Each names what failed: the adapter, the tensor (ONNX index and
/// name), the pass and template, or the binding.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter of the requested backends exists.
    #[error("no GPU adapter found for backends {backends} (set NBITS_MLP_BACKENDS=vulkan|gl|metal|dx12|all; on a machine without a GPU install Mesa lavapipe for software Vulkan)")]
    NoAdapter {
        /// The backends searched.
        backends: String,
    },
    /// No adapter's name contains the requested filter.
    #[error("no adapter name contains `{filter}` (case-insensitive); adapters: {}", if available.is_empty() { "none".to_string() } else { available.join("; ") })]
    AdapterNotFound {
        /// The filter given.
        filter: String,
        /// Every adapter found, as `name (backend, device type)`.
        available: Vec<String>,
    },
    /// An option (or the environment variable setting it) has a bad value.
    #[error("{name}: {message}")]
    BadOption {
        /// Option or environment variable name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// The adapter refused the device request.
    #[error("adapter `{adapter}` refused the device request: {message}")]
    RequestDevice {
        /// Adapter name.
        adapter: String,
        /// wgpu's message.
        message: String,
    },
    /// A device profile given to the runtime promises more than the device granted.
    #[error("device profile `{profile}` is not a restriction of the device: {message}")]
    Profile {
        /// Profile name.
        profile: String,
        /// The limit or feature the device lacks.
        message: String,
    },
    /// Planning failed.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// A plan is inconsistent (it was not made by the planner, or for other tensors).
    #[error("invalid plan (variant `{variant}`): {message}")]
    InvalidPlan {
        /// The plan's variant.
        variant: String,
        /// What is wrong.
        message: String,
    },
    /// A pass's shader failed to parse, validate or compile into a pipeline.
    #[error("pass `{pass}` (template `{template}`): WGSL {stage} error{}: {message}", line.map(|l| format!(" at line {l}")).unwrap_or_default())]
    Shader {
        /// Pass id.
        pass: String,
        /// Template the WGSL was rendered from.
        template: String,
        /// `parse`, `validation` or `pipeline`.
        stage: &'static str,
        /// 1-based line of the rendered WGSL, when known.
        line: Option<u32>,
        /// The message, with the offending WGSL line when known.
        message: String,
    },
    /// A caller's input tensor is missing or does not fit the plan.
    #[error("input {index} `{name}`: {message}")]
    Input {
        /// ONNX input index.
        index: usize,
        /// ONNX name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A caller's output tensor is missing or does not fit the plan.
    #[error("output {index} `{name}`: {message}")]
    Output {
        /// ONNX output index.
        index: usize,
        /// ONNX name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A tensor whose bytes or buffer do not fit its dtype and shape.
    #[error("{what}: {message}")]
    Tensor {
        /// The tensor.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// A buffer over a device limit (`maxBufferSize`, `maxStorageBufferBindingSize`, ...).
    #[error("{what}: {bytes} bytes exceed the device's {limit_name} ({limit})")]
    BufferTooLarge {
        /// The tensor, intermediate or binding.
        what: String,
        /// Its size in bytes.
        bytes: u64,
        /// WebGPU limit name.
        limit_name: &'static str,
        /// The limit's value.
        limit: u64,
    },
    /// A wgpu validation error.
    #[error("{what}: wgpu validation error: {message}")]
    Validation {
        /// What was being done.
        what: String,
        /// wgpu's message (it names resources by their labels: passes, bindings, tensors).
        message: String,
    },
    /// The device ran out of memory.
    #[error("{what}: out of GPU memory")]
    OutOfMemory {
        /// What was being done.
        what: String,
    },
    /// An internal error of wgpu or the driver.
    #[error("{what}: wgpu internal error: {message}")]
    Internal {
        /// What was being done.
        what: String,
        /// wgpu's message.
        message: String,
    },
    /// The device was lost (driver reset, destroyed).
    #[error("GPU device lost: {reason}")]
    DeviceLost {
        /// The reason wgpu gave.
        reason: String,
    },
    /// Mapping a buffer for reading failed.
    #[error("{what}: mapping the read-back buffer failed: {message}")]
    Map {
        /// What was read back.
        what: String,
        /// Why.
        message: String,
    },
    /// Waiting for the device failed.
    #[error("waiting for the GPU failed: {message}")]
    Poll {
        /// wgpu's message.
        message: String,
    },
    /// Run `index` of several recorded together ([`crate::Runtime::run_many`]) failed; the
    /// source says how. Several runs are wrapped once, here, whatever the error.
    #[error("run {index}: {source}")]
    InRun {
        /// The run's index in the list given.
        index: usize,
        /// The run's error.
        #[source]
        source: Box<GpuError>,
    },
    /// The operation needs a device feature the device lacks.
    #[error("{what} needs the device feature `{feature}`, which this device lacks")]
    Unsupported {
        /// The operation.
        what: String,
        /// WebGPU feature name.
        feature: &'static str,
    },
}

impl GpuError {
    /// The error itself, past any [`GpuError::InRun`] wrapper: what to classify an error by
    /// (the caller's input, the device, ...).
    pub fn innermost(&self) -> &GpuError {
        match self {
            GpuError::InRun { source, .. } => source.innermost(),
            e => e,
        }
    }

    /// Whether the caller is at fault (a planning error of the call,
    /// [`PlanError::is_caller_error`](nbits_mlp_core::PlanError::is_caller_error), or tensors
    /// that do not fit: [`GpuError::Input`], [`GpuError::Tensor`]) rather than the device: the
    /// CLI's "bad input" (exit 2), Python's `ValueError`.
    pub fn is_caller_error(&self) -> bool {
        match self.innermost() {
            GpuError::Plan(p) => p.is_caller_error(),
            GpuError::Input { .. } | GpuError::Tensor { .. } => true,
            _ => false,
        }
    }
}

/// Shared state the device callbacks write to.
#[derive(Debug, Default)]
pub(crate) struct DeviceEvents {
    /// Why the device was lost, once it was.
    pub lost: Mutex<Option<String>>,
    /// Errors no scope caught (recorded, never panicking).
    pub uncaptured: Mutex<Vec<String>>,
}

impl DeviceEvents {
    /// Installs the callbacks on `device`.
    pub fn install(device: &wgpu::Device) -> Arc<DeviceEvents> {
        let ev = Arc::new(DeviceEvents::default());
        let e = ev.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut l) = e.lost.lock() {
                *l = Some(if message.is_empty() {
                    format!("{reason:?}")
                } else {
                    format!("{reason:?}: {message}")
                });
            }
        });
        let e = ev.clone();
        device.on_uncaptured_error(Arc::new(move |err: wgpu::Error| {
            if let Ok(mut u) = e.uncaptured.lock() {
                u.push(err.to_string());
            }
        }));
        ev
    }

    /// `Err(DeviceLost)` once the device is lost.
    pub fn check_lost(&self) -> Result<(), GpuError> {
        match self.lost.lock().ok().and_then(|l| l.clone()) {
            Some(reason) => Err(GpuError::DeviceLost { reason }),
            None => Ok(()),
        }
    }

    /// Takes the errors recorded by the uncaptured-error handler.
    pub fn take_uncaptured(&self) -> Vec<String> {
        self.uncaptured
            .lock()
            .map(|mut u| std::mem::take(&mut *u))
            .unwrap_or_default()
    }
}

/// Out-of-memory, validation and internal error scopes pushed together on the current thread.
///
/// Pop them with [`Scopes::pop`]. Dropping them (an early return) pops and discards them, in
/// reverse order: wgpu panics on scopes popped out of order.
pub(crate) struct Scopes {
    // Pushed in this order; popped in reverse.
    guards: Vec<wgpu::ErrorScopeGuard>,
}

impl Scopes {
    /// Pushes the three scopes.
    pub fn push(device: &wgpu::Device) -> Scopes {
        let guards = [
            wgpu::ErrorFilter::OutOfMemory,
            wgpu::ErrorFilter::Validation,
            wgpu::ErrorFilter::Internal,
        ]
        .into_iter()
        .map(|f| device.push_error_scope(f))
        .collect();
        Scopes { guards }
    }

    /// Pops the scopes and returns the first error caught (validation first), attributed to
    /// `what()`. Also reports a lost device, and any error that escaped every scope meanwhile.
    pub fn pop(
        mut self,
        events: &DeviceEvents,
        what: impl FnOnce() -> String,
    ) -> Result<(), GpuError> {
        let mut caught = Vec::new();
        while let Some(g) = self.guards.pop() {
            if let Some(e) = pollster::block_on(g.pop()) {
                caught.push(e);
            }
        }
        let first = caught
            .iter()
            .find(|e| matches!(e, wgpu::Error::Validation { .. }))
            .or_else(|| caught.first());
        if let Some(e) = first {
            let what = what();
            return Err(match e {
                wgpu::Error::OutOfMemory { .. } => GpuError::OutOfMemory { what },
                wgpu::Error::Validation { description, .. } => GpuError::Validation {
                    what,
                    message: error_chain(e, description),
                },
                wgpu::Error::Internal { description, .. } => GpuError::Internal {
                    what,
                    message: error_chain(e, description),
                },
            });
        }
        events.check_lost()?;
        let stray = events.take_uncaptured();
        if !stray.is_empty() {
            return Err(GpuError::Validation {
                what: format!("{} (uncaptured)", what()),
                message: stray.join("\n"),
            });
        }
        Ok(())
    }
}

impl Drop for Scopes {
    fn drop(&mut self) {
        while let Some(g) = self.guards.pop() {
            drop(g);
        }
    }
}

/// wgpu's description followed by the error's source chain, without repeating lines.
fn error_chain(e: &wgpu::Error, description: &str) -> String {
    let mut s = description.trim_end().to_string();
    let mut src = std::error::Error::source(e);
    while let Some(x) = src {
        let line = x.to_string();
        if !s.contains(line.trim()) {
            s.push_str("\n  caused by: ");
            s.push_str(line.trim_end());
        }
        src = x.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::GpuError;

    #[test]
    fn a_run_error_is_wrapped_once_around_the_error_itself() {
        let inner = GpuError::Input {
            index: 3,
            name: "gate_B".into(),
            message: "not given".into(),
        };
        let text = inner.to_string();
        let e = GpuError::InRun {
            index: 2,
            source: Box::new(inner),
        };
        assert_eq!(e.to_string(), format!("run 2: {text}"));
        assert!(matches!(
            e.innermost(),
            GpuError::Input { index: 3, name, .. } if name == "gate_B"
        ));
        let source = std::error::Error::source(&e).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some(text.as_str()));
        // An error that is not wrapped is its own innermost.
        let lost = GpuError::DeviceLost {
            reason: "reset".into(),
        };
        assert!(std::ptr::eq(lost.innermost(), &lost));
    }
}
