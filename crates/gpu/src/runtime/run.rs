//! Runs: a plan on host tensors (upload, record, submit, read back) and plans on device tensors
//! (check and prepare every run, then record them into one encoder and submit once).

use super::checks::{binds_input, nothing_to_do};
use super::encode::Bound;
use super::prepare::Leased;
use super::tensor::{
    arg_infos, describe, device_args, empty_host, infos_of, padded, slot_args, tensor_bytes,
};
use super::transfer::write_padded;
use super::{GpuTensor, PlanRun, RunOptions, RunOutput, Runtime};
use crate::error::{GpuError, Scopes};
use crate::pool::{READBACK, STORAGE};
use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, Plan, Tensor, TensorInfo, Tunables};

/// An error of run `i` of [`Runtime::run_many`]: `run <i>: ` before what failed.
fn run_error(i: usize, e: GpuError) -> GpuError {
    let pre = |what: String| format!("run {i}: {what}");
    match e {
        GpuError::Validation { what, message } => GpuError::Validation {
            what: pre(what),
            message,
        },
        GpuError::Input {
            index,
            name,
            message,
        } => GpuError::Input {
            index,
            name,
            message: pre(message),
        },
        GpuError::Output {
            index,
            name,
            message,
        } => GpuError::Output {
            index,
            name,
            message: pre(message),
        },
        GpuError::InvalidPlan { variant, message } => GpuError::InvalidPlan {
            variant,
            message: pre(message),
        },
        GpuError::Internal { what, message } => GpuError::Internal {
            what: pre(what),
            message,
        },
        GpuError::OutOfMemory { what } => GpuError::OutOfMemory { what: pre(what) },
        GpuError::BufferTooLarge {
            what,
            bytes,
            limit_name,
            limit,
        } => GpuError::BufferTooLarge {
            what: pre(what),
            bytes,
            limit_name,
            limit,
        },
        other => other,
    }
}

impl Runtime {
    /// Runs the operator on host tensors.
    ///
    /// `inputs` are in ONNX order (`A, skip, norm_scale, gate_B, gate_scales, gate_bias, up_B,
    /// up_scales, up_bias`), `None` for an omitted optional input, trailing ones may be left
    /// out: exactly what `nbits_mlp_reference::mlp::run` takes. `want_outputs` requests outputs
    /// in ONNX order (`[true, want_residual]`).
    pub fn run(
        &self,
        attrs: &IndexMap<String, AttrValue>,
        inputs: &[Option<&Tensor>],
        want_outputs: &[bool],
        tunables: &Tunables,
        opts: &RunOptions,
    ) -> Result<RunOutput, GpuError> {
        let plan = self.plan(&Runtime::op_call(attrs, inputs, want_outputs), tunables)?;
        let outputs = self.run_plan(&plan, inputs, opts)?;
        Ok(RunOutput { plan, outputs })
    }

    /// Runs a plan on host tensors (ONNX order, as [`Runtime::run`]): uploads the inputs the
    /// plan binds, records every pass that is not skipped in one command encoder, submits once,
    /// and reads the outputs back. Returns the outputs in ONNX order, `None` where the plan does
    /// not produce one. When every output is empty nothing runs.
    pub fn run_plan(
        &self,
        plan: &Plan,
        inputs: &[Option<&Tensor>],
        opts: &RunOptions,
    ) -> Result<Vec<Option<Tensor>>, GpuError> {
        self.gpu.check_lost()?;
        for (index, t) in inputs.iter().enumerate() {
            if let Some(t) = t {
                let want = tensor_bytes(&t.info());
                if t.data.len() as u64 != want {
                    return Err(self.input_error(
                        plan,
                        index,
                        format!(
                            "holds {} bytes, {} needs {want}",
                            t.data.len(),
                            describe(&t.info())
                        ),
                    ));
                }
            }
        }
        if let Some((index, name, message)) = nbits_mlp_core::op::non_finite_parameter(inputs) {
            return Err(GpuError::Input {
                index,
                name: name.into(),
                message,
            });
        }
        let out_infos: Vec<Option<TensorInfo>> = plan
            .outputs
            .iter()
            .map(|o| o.present.then(|| TensorInfo::new(o.dtype, o.shape.clone())))
            .collect();
        if nothing_to_do(plan) {
            return Ok(out_infos
                .iter()
                .map(|i| i.as_ref().map(empty_host))
                .collect());
        }
        let in_infos: Vec<Option<TensorInfo>> =
            inputs.iter().map(|t| t.map(Tensor::info)).collect();
        self.check_args(plan, &infos_of(&in_infos), &infos_of(&out_infos))?;
        let prep = self.prepare(plan)?;
        let device = self.gpu.device();
        let queue = self.gpu.queue();
        let max_buffer = self.limit("maxBufferSize");

        let scopes = Scopes::push(device);
        // Inputs the plan binds, uploaded into pooled buffers.
        let mut leased = Leased {
            pool: &self.pool,
            buffers: Vec::new(),
        };
        let mut in_slots: Vec<Option<usize>> = vec![None; inputs.len()];
        for (index, t) in inputs.iter().enumerate() {
            let Some(t) = t else { continue };
            if !binds_input(plan, index) {
                continue;
            }
            let what = || format!("input {index} ({})", describe(&t.info()));
            let b = self.pool.acquire(
                device,
                &self.gpu.events,
                padded(t.data.len() as u64),
                STORAGE,
                max_buffer,
                &what,
            )?;
            write_padded(queue, &b, &t.data);
            in_slots[index] = Some(leased.buffers.len());
            leased.buffers.push(b);
        }
        // Outputs in pooled buffers, poisoned on request.
        let mut out_slots: Vec<Option<usize>> = vec![None; out_infos.len()];
        for (index, info) in out_infos.iter().enumerate() {
            let Some(info) = info else { continue };
            let bytes = padded(tensor_bytes(info));
            let what = || format!("output {index} ({})", describe(info));
            let b =
                self.pool
                    .acquire(device, &self.gpu.events, bytes, STORAGE, max_buffer, &what)?;
            if opts.poison {
                queue.write_buffer(&b, 0, &vec![0xFF; bytes as usize]);
            }
            out_slots[index] = Some(leased.buffers.len());
            leased.buffers.push(b);
        }
        // Prepared copies of the inputs the plan reads in another layout, rearranged here.
        let mut prepared = Vec::new();
        for super::prepared::HostCopy {
            index,
            weights,
            bytes,
            size,
        } in self.host_prepared(plan, inputs)?
        {
            let what = || format!("input {index} in the prepared layout {}", weights.layout);
            let b =
                self.pool
                    .acquire(device, &self.gpu.events, size, STORAGE, max_buffer, &what)?;
            write_padded(queue, &b, &bytes);
            prepared.push(super::prepared::PreparedBinding {
                index,
                weights,
                buffer: b.clone(),
            });
            leased.buffers.push(b);
        }
        let ins = slot_args(&leased.buffers, &in_slots, &in_infos);
        let outs = slot_args(&leased.buffers, &out_slots, &out_infos);

        let scratch = self.acquire_scratch(plan)?;
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some(&prep.label),
        });
        let bound = Bound {
            plan,
            prep: &prep,
            inputs: &ins,
            prepared: &prepared,
            outputs: &outs,
            scratch: &scratch.buffers,
        };
        self.encode(&mut enc, &bound, None, None)?;
        // Read-back copies, in the same submission.
        let mut readback = Vec::new();
        for (index, a) in outs.iter().enumerate() {
            let Some(a) = a else { continue };
            let bytes = padded(tensor_bytes(a.info));
            let rb = self.pool.acquire(
                device,
                &self.gpu.events,
                bytes,
                READBACK,
                max_buffer,
                &|| format!("read-back of output {index}"),
            )?;
            enc.copy_buffer_to_buffer(a.buffer, 0, &rb, 0, bytes);
            readback.push((index, rb, bytes));
        }
        queue.submit([enc.finish()]);
        let popped = scopes.pop(&self.gpu.events, || {
            format!("running plan `{}`", plan.variant)
        });
        popped.map_err(|e| self.refine(&bound, e))?;
        drop(scratch);
        let items: Vec<(&wgpu::Buffer, u64)> = readback.iter().map(|(_, b, n)| (b, *n)).collect();
        let data = self.read_back(&items, &|i| format!("output {}", readback[i].0))?;
        let mut outputs: Vec<Option<Tensor>> = vec![None; plan.outputs.len()];
        for ((index, rb, _), mut bytes) in readback.into_iter().zip(data) {
            self.pool.release(rb);
            if let Some(info) = &out_infos[index] {
                bytes.truncate(tensor_bytes(info) as usize);
                outputs[index] = Some(Tensor {
                    dtype: info.dtype,
                    shape: info.shape.clone(),
                    data: bytes,
                });
            }
        }
        Ok(outputs)
    }

    /// Records and submits a plan on device tensors, without waiting and without any host
    /// round trip. `inputs` and `outputs` are in ONNX order; each must match what the plan was
    /// made for (outputs: the plan's dtypes and shapes; inputs: the bytes the plan binds).
    /// When every output is empty nothing runs.
    pub fn run_on_device(
        &self,
        plan: &Plan,
        inputs: &[Option<&GpuTensor>],
        outputs: &[Option<&GpuTensor>],
    ) -> Result<(), GpuError> {
        self.run_many(&[(plan, inputs, outputs)])
    }

    /// Records several runs (plans on device tensors, as [`Runtime::run_on_device`] takes them)
    /// into one command encoder, in order, and submits them once, without waiting: one
    /// submission instead of one per run. Runs of the same plan share its intermediates
    /// (each run's passes are ordered after the previous run's on the queue).
    ///
    /// Every run is checked (and its plan prepared) before anything is recorded: when one is
    /// invalid, nothing runs and the error names it (`run <i>: ...` when there are several).
    /// Runs whose outputs are all empty are skipped; an empty list submits nothing.
    pub fn run_many(&self, runs: &[PlanRun<'_>]) -> Result<(), GpuError> {
        self.gpu.check_lost()?;
        let several = runs.len() > 1;
        let at = |i: usize, e: GpuError| if several { run_error(i, e) } else { e };
        let mut args = Vec::with_capacity(runs.len());
        for (i, (plan, inputs, outputs)) in runs.iter().enumerate() {
            let ins = device_args(inputs);
            let outs = device_args(outputs);
            self.check_args(plan, &arg_infos(&ins), &arg_infos(&outs))
                .map_err(|e| at(i, e))?;
            if nothing_to_do(plan) {
                continue;
            }
            let prep = self.prepare(plan).map_err(|e| at(i, e))?;
            let prepared = self.device_prepared(plan, inputs).map_err(|e| at(i, e))?;
            args.push((i, prep, ins, outs, prepared));
        }
        if args.is_empty() {
            return Ok(());
        }
        // Intermediates: one lease per distinct prepared plan, shared by its runs.
        let mut leases: Vec<(u64, Leased<'_>)> = Vec::new();
        let mut lease_of = Vec::with_capacity(args.len());
        for (i, prep, _, _, _) in &args {
            let k = match leases.iter().position(|(id, _)| *id == prep.id) {
                Some(k) => k,
                None => {
                    let plan = runs[*i].0;
                    leases.push((prep.id, self.acquire_scratch(plan).map_err(|e| at(*i, e))?));
                    leases.len() - 1
                }
            };
            lease_of.push(k);
        }
        let bounds: Vec<(usize, Bound<'_>)> = args
            .iter()
            .zip(&lease_of)
            .map(|((i, prep, ins, outs, prepared), &k)| {
                (
                    *i,
                    Bound {
                        plan: runs[*i].0,
                        prep,
                        inputs: ins,
                        prepared,
                        outputs: outs,
                        scratch: &leases[k].1.buffers,
                    },
                )
            })
            .collect();
        let device = self.gpu.device();
        let scopes = Scopes::push(device);
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some(if several {
                "run_many"
            } else {
                &bounds[0].1.prep.label
            }),
        });
        for (i, bound) in &bounds {
            self.encode(&mut enc, bound, None, None)
                .map_err(|e| at(*i, e))?;
        }
        self.gpu.queue().submit([enc.finish()]);
        let popped = scopes.pop(&self.gpu.events, || {
            if several {
                format!("running {} plans in one submission", runs.len())
            } else {
                format!("running plan `{}`", runs[0].0.variant)
            }
        });
        match popped {
            Ok(()) => Ok(()),
            Err(e) if !several => Err(self.refine(&bounds[0].1, e)),
            Err(e @ GpuError::Validation { .. }) => Err(bounds
                .iter()
                .find_map(|(i, b)| self.attribute(b).map(|a| run_error(*i, a)))
                .unwrap_or(e)),
            Err(e) => Err(e),
        }
    }
}
