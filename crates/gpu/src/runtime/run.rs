//! Runs: a plan on host tensors (upload, record, submit, read back) and plans on device tensors
//! (check and prepare every run, then record them into one encoder and submit once).

use super::checks::{binds_input, nothing_to_do};
use super::encode::Bound;
use super::prepare::{Leased, Prepared};
use super::prepared::{HostCopy, PreparedBinding};
use super::tensor::{
    arg_infos, describe, device_args, empty_host, infos_of, output_infos, padded, slot_args,
    tensor_bytes, Arg,
};
use super::transfer::write_padded;
use super::{GpuTensor, PlanRun, RunOptions, RunOutput, Runtime};
use crate::error::{GpuError, Scopes};
use crate::pool::{READBACK, STORAGE};
use indexmap::IndexMap;
use nbits_mlp_core::{AttrValue, Plan, Tensor, TensorInfo, Tunables};
use std::sync::Arc;

/// An error of run `index` of several in [`Runtime::run_many`]: `run <index>: ` before what
/// failed.
fn in_run(index: usize, e: GpuError) -> GpuError {
    GpuError::InRun {
        index,
        source: Box::new(e),
    }
}

/// A read-back of a host run: the output's index, the pooled read-back buffer, its bytes.
type Readback = (usize, wgpu::Buffer, u64);

/// The intermediates of [`Runtime::run_many`]'s runs: one lease per distinct prepared plan (with
/// the prepared plan's id), and per run the index of its lease.
type RunLeases<'a> = (Vec<(u64, Leased<'a>)>, Vec<usize>);

/// One run of [`Runtime::run_many`] once checked: its index in the list, its prepared plan and
/// the caller's tensors as its passes bind them.
struct CheckedRun<'a> {
    index: usize,
    prep: Arc<Prepared>,
    inputs: Vec<Option<Arg<'a>>>,
    outputs: Vec<Option<Arg<'a>>>,
    /// The prepared copies the plan binds.
    prepared: Vec<PreparedBinding>,
}

impl Runtime {
    /// Runs the operator on host tensors.
    ///
    /// Where the chosen plan keeps values in float16 that the call's values do not fit
    /// ([`nbits_mlp_core::op::values_overflow`]: float32 activations of 32 768 or more for the
    /// float16 hi / lo pairs, float16 activations whose sums or subnormal products a
    /// float16-accumulating kernel cannot hold, scales that overflow float16 weights), the call
    /// is planned again without such kernels ([`nbits_mlp_core::op::plan_for_values`]), so every
    /// legal input gets a result within its tolerance.
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
        let call = nbits_mlp_core::OpCall::from_tensors(attrs, inputs, want_outputs);
        let plan = nbits_mlp_core::op::plan_for_values(
            self.plan(&call, tunables)?,
            tunables,
            |p| nbits_mlp_core::op::values_overflow(p, inputs),
            |t| self.plan(&call, t),
        )?;
        // The plan holds the call's values now: no second scan.
        let outputs = self.run_plan_fitting(&plan, inputs, opts)?;
        Ok(RunOutput { plan, outputs })
    }

    /// Runs a plan on host tensors (ONNX order, as [`Runtime::run`]): uploads the inputs the
    /// plan binds, records every pass that is not skipped in one command encoder, submits once,
    /// and reads the outputs back. Returns the outputs in ONNX order, `None` where the plan does
    /// not produce one. When every output is empty nothing runs. A plan that keeps values in
    /// float16 refuses values it cannot hold ([`nbits_mlp_core::op::values_overflow`];
    /// [`GpuError::Input`] naming the tensor; [`Runtime::run`] plans such calls without those
    /// kernels).
    pub fn run_plan(
        &self,
        plan: &Plan,
        inputs: &[Option<&Tensor>],
        opts: &RunOptions,
    ) -> Result<Vec<Option<Tensor>>, GpuError> {
        // (The values are read robustly whatever the tensors; a tensor that does not match its
        // shape is named before their range.)
        if let Some(f) = nbits_mlp_core::op::values_overflow(plan, inputs) {
            self.check_host_inputs(plan, inputs)?;
            return Err(self.input_error(plan, f.index, f.message));
        }
        self.run_plan_fitting(plan, inputs, opts)
    }

    /// [`Runtime::run_plan`] for a plan whose float16 staging, if any, holds the call's values.
    fn run_plan_fitting(
        &self,
        plan: &Plan,
        inputs: &[Option<&Tensor>],
        opts: &RunOptions,
    ) -> Result<Vec<Option<Tensor>>, GpuError> {
        self.gpu.check_lost()?;
        self.check_host_inputs(plan, inputs)?;
        let out_infos = output_infos(plan);
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

        let scopes = Scopes::push(device);
        let mut leased = Leased {
            pool: &self.pool,
            buffers: Vec::new(),
        };
        let in_slots = self.stage_inputs(plan, inputs, &mut leased)?;
        let out_slots = self.stage_outputs(&out_infos, opts, &mut leased)?;
        let prepared = self.stage_prepared(plan, inputs, &mut leased)?;
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
        let readback = self.record_readback(&mut enc, &outs)?;
        self.gpu.queue().submit([enc.finish()]);
        let popped = scopes.pop(&self.gpu.events, || {
            format!("running plan `{}`", plan.variant)
        });
        popped.map_err(|e| self.refine(&bound, e))?;
        drop(scratch);
        self.read_outputs(plan, readback, &out_infos)
    }

    /// Uploads the host inputs the plan binds into pooled buffers, added to `leased`; returns
    /// each input's index in `leased` (`None` for one not uploaded).
    fn stage_inputs(
        &self,
        plan: &Plan,
        inputs: &[Option<&Tensor>],
        leased: &mut Leased<'_>,
    ) -> Result<Vec<Option<usize>>, GpuError> {
        let mut slots = vec![None; inputs.len()];
        for (index, t) in inputs.iter().enumerate() {
            let Some(t) = t else { continue };
            if !binds_input(plan, index) {
                continue;
            }
            let what = || format!("input {index} ({})", describe(&t.info()));
            let size = padded(t.data.len() as u64);
            slots[index] = Some(self.upload_leased(&t.data, size, &what, leased)?);
        }
        Ok(slots)
    }

    /// Uploads `data` into a pooled storage buffer of at least `size` bytes, added to `leased`;
    /// returns its index in `leased`.
    fn upload_leased(
        &self,
        data: &[u8],
        size: u64,
        what: &dyn Fn() -> String,
        leased: &mut Leased<'_>,
    ) -> Result<usize, GpuError> {
        let b = self.pool.acquire(
            self.gpu.device(),
            &self.gpu.events,
            size,
            STORAGE,
            self.limit("maxBufferSize"),
            what,
        )?;
        write_padded(self.gpu.queue(), &b, data);
        leased.buffers.push(b);
        Ok(leased.buffers.len() - 1)
    }

    /// The prepared copies of the host inputs the plan reads in another layout, rearranged
    /// here and uploaded into pooled buffers added to `leased`.
    fn stage_prepared(
        &self,
        plan: &Plan,
        inputs: &[Option<&Tensor>],
        leased: &mut Leased<'_>,
    ) -> Result<Vec<PreparedBinding>, GpuError> {
        let mut prepared = Vec::new();
        for HostCopy {
            index,
            weights,
            bytes,
            size,
        } in self.host_prepared(plan, inputs)?
        {
            let what = || format!("input {index} in the prepared layout {}", weights.layout);
            let slot = self.upload_leased(&bytes, size, &what, leased)?;
            prepared.push(PreparedBinding {
                index,
                weights,
                buffer: leased.buffers[slot].clone(),
            });
        }
        Ok(prepared)
    }

    /// Pooled buffers for the outputs, added to `leased` and filled with 0xFF when
    /// `opts.poison`; returns each output's index in `leased` (`None` for one not produced).
    fn stage_outputs(
        &self,
        out_infos: &[Option<TensorInfo>],
        opts: &RunOptions,
        leased: &mut Leased<'_>,
    ) -> Result<Vec<Option<usize>>, GpuError> {
        let max_buffer = self.limit("maxBufferSize");
        let mut slots = vec![None; out_infos.len()];
        for (index, info) in out_infos.iter().enumerate() {
            let Some(info) = info else { continue };
            let bytes = padded(tensor_bytes(info));
            let what = || format!("output {index} ({})", describe(info));
            let b = self.pool.acquire(
                self.gpu.device(),
                &self.gpu.events,
                bytes,
                STORAGE,
                max_buffer,
                &what,
            )?;
            if opts.poison {
                self.gpu
                    .queue()
                    .write_buffer(&b, 0, &vec![0xFF; bytes as usize]);
            }
            slots[index] = Some(leased.buffers.len());
            leased.buffers.push(b);
        }
        Ok(slots)
    }

    /// Records copies of the outputs into pooled read-back buffers, in the run's submission.
    fn record_readback(
        &self,
        enc: &mut wgpu::CommandEncoder,
        outs: &[Option<Arg<'_>>],
    ) -> Result<Vec<Readback>, GpuError> {
        let max_buffer = self.limit("maxBufferSize");
        let mut readback = Vec::new();
        for (index, a) in outs.iter().enumerate() {
            let Some(a) = a else { continue };
            let bytes = padded(tensor_bytes(a.info));
            let rb = self.pool.acquire(
                self.gpu.device(),
                &self.gpu.events,
                bytes,
                READBACK,
                max_buffer,
                &|| format!("read-back of output {index}"),
            )?;
            enc.copy_buffer_to_buffer(a.buffer, 0, &rb, 0, bytes);
            readback.push((index, rb, bytes));
        }
        Ok(readback)
    }

    /// Maps the read-back buffers, hands them back to the pool, and returns the outputs in ONNX
    /// order (`None` where the plan does not produce one).
    fn read_outputs(
        &self,
        plan: &Plan,
        readback: Vec<Readback>,
        out_infos: &[Option<TensorInfo>],
    ) -> Result<Vec<Option<Tensor>>, GpuError> {
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
    /// When every output is empty nothing runs. Device tensors are not read back: check the
    /// parameters' host tensors with [`Runtime::check_parameters`] before uploading them.
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
    /// invalid, nothing runs and the error names it ([`GpuError::InRun`], `run <i>: ...`, when
    /// there are several). Runs whose outputs are all empty are skipped; an empty list submits
    /// nothing.
    pub fn run_many(&self, runs: &[PlanRun<'_>]) -> Result<(), GpuError> {
        self.gpu.check_lost()?;
        let several = runs.len() > 1;
        let at = |i: usize, e: GpuError| if several { in_run(i, e) } else { e };
        let checked = self.check_runs(runs, &at)?;
        if checked.is_empty() {
            return Ok(());
        }
        let (leases, lease_of) = self.lease_run_scratch(runs, &checked, &at)?;
        let bounds: Vec<(usize, Bound<'_>)> = checked
            .iter()
            .zip(&lease_of)
            .map(|(c, &k)| {
                (
                    c.index,
                    Bound {
                        plan: runs[c.index].0,
                        prep: &c.prep,
                        inputs: &c.inputs,
                        prepared: &c.prepared,
                        outputs: &c.outputs,
                        scratch: &leases[k].1.buffers,
                    },
                )
            })
            .collect();
        self.submit_runs(runs, &bounds, &at)
    }

    /// Checks every run's tensors against its plan and prepares the plan; the runs with
    /// something to compute, in order. `at` names the run in an error.
    fn check_runs<'a>(
        &self,
        runs: &[PlanRun<'a>],
        at: &dyn Fn(usize, GpuError) -> GpuError,
    ) -> Result<Vec<CheckedRun<'a>>, GpuError> {
        let mut checked = Vec::with_capacity(runs.len());
        for (index, (plan, given, outputs)) in runs.iter().enumerate() {
            let inputs = device_args(given);
            let outputs = device_args(outputs);
            self.check_args(plan, &arg_infos(&inputs), &arg_infos(&outputs))
                .map_err(|e| at(index, e))?;
            if nothing_to_do(plan) {
                continue;
            }
            let prep = self.prepare(plan).map_err(|e| at(index, e))?;
            let prepared = self
                .device_prepared(plan, given)
                .map_err(|e| at(index, e))?;
            checked.push(CheckedRun {
                index,
                prep,
                inputs,
                outputs,
                prepared,
            });
        }
        Ok(checked)
    }

    /// Intermediates for checked runs: one lease per distinct prepared plan, shared by its runs.
    /// Returns the leases (with the prepared plan's id) and, per run, the index of its lease.
    fn lease_run_scratch(
        &self,
        runs: &[PlanRun<'_>],
        checked: &[CheckedRun<'_>],
        at: &dyn Fn(usize, GpuError) -> GpuError,
    ) -> Result<RunLeases<'_>, GpuError> {
        let mut leases: Vec<(u64, Leased<'_>)> = Vec::new();
        let mut lease_of = Vec::with_capacity(checked.len());
        for c in checked {
            let k = match leases.iter().position(|(id, _)| *id == c.prep.id) {
                Some(k) => k,
                None => {
                    let plan = runs[c.index].0;
                    let lease = self.acquire_scratch(plan).map_err(|e| at(c.index, e))?;
                    leases.push((c.prep.id, lease));
                    leases.len() - 1
                }
            };
            lease_of.push(k);
        }
        Ok((leases, lease_of))
    }

    /// Records bound runs (with their indices in `runs`) into one command encoder and submits
    /// it. A validation error of the submission is attributed to the first run and pass that
    /// fail alone, when one does.
    fn submit_runs(
        &self,
        runs: &[PlanRun<'_>],
        bounds: &[(usize, Bound<'_>)],
        at: &dyn Fn(usize, GpuError) -> GpuError,
    ) -> Result<(), GpuError> {
        let several = runs.len() > 1;
        let device = self.gpu.device();
        let scopes = Scopes::push(device);
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some(if several {
                "run_many"
            } else {
                &bounds[0].1.prep.label
            }),
        });
        for (i, bound) in bounds {
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
                .find_map(|(i, b)| self.attribute(b).map(|a| in_run(*i, a)))
                .unwrap_or(e)),
            Err(e) => Err(e),
        }
    }
}
