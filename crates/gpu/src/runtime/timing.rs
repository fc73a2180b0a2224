//! Timing: GPU time of a plan from timestamp queries, and the host cost of recording and
//! submitting a run.

use super::checks::nothing_to_do;
use super::encode::{Bound, Stamps};
use super::prepare::Prepared;
use super::tensor::{device_args, Arg};
use super::{GpuTensor, Runtime, TensorSet};
use crate::error::{GpuError, Scopes};
use crate::pool::READBACK;
use nbits_mlp_core::Plan;
use std::time::Instant;

/// How long [`Runtime::time_plan_sets`] keeps the GPU busy with untimed runs before it times:
/// long enough for a GPU that was idle to raise its clocks (on the H200, spans timed after a few
/// seconds of host work read up to twice the time of the same kernel timed after sustained load).
pub const TIMING_WARMUP: std::time::Duration = std::time::Duration::from_millis(300);

/// Calls per burst in [`Runtime::host_overhead_us`] (the layers of one step of a 16-layer stack).
pub const HOST_BURST: usize = 16;

/// One tensor set as its passes bind it: inputs and outputs.
type SetArgs<'a> = (
    Vec<Option<Arg<'a>>>,
    Vec<Option<Arg<'a>>>,
    Vec<super::prepared::PreparedBinding>,
);

impl Runtime {
    /// GPU time of `reps` runs of a plan on device tensors, in µs per run, from timestamp
    /// queries written at the start of the first and the end of the last pass of each run, each
    /// run submitted alone on an idle device (see [`Runtime::time_plan_sets`]). One untimed
    /// warm-up comes first ([`TIMING_WARMUP`]). Errors without the `timestamp-query` feature.
    pub fn time_plan(
        &self,
        plan: &Plan,
        inputs: &[Option<&GpuTensor>],
        outputs: &[Option<&GpuTensor>],
        reps: usize,
    ) -> Result<Vec<f64>, GpuError> {
        self.time_plan_sets(plan, &[(inputs, outputs)], reps)
    }

    /// GPU time per call over several tensor sets (e.g. independent weight sets, so the weights
    /// come from memory, not from the L2 cache). Each of the `rounds` rounds is one submission
    /// that runs every set once, back to back, on an idle device; its time is the span from the
    /// first run's start timestamp to the last run's end timestamp divided by the number of
    /// sets. Returns one value (µs per call) per round. Untimed warm-up runs come first: every
    /// set at least once, repeated for [`TIMING_WARMUP`].
    ///
    /// A span over a whole submission started on an idle device is used, not the two
    /// timestamps of each run, because a start-of-pass timestamp may be written before the
    /// previous run's work has finished (seen on NVIDIA's Vulkan driver), which inflates
    /// per-run intervals.
    pub fn time_plan_sets(
        &self,
        plan: &Plan,
        sets: &[TensorSet<'_>],
        rounds: usize,
    ) -> Result<Vec<f64>, GpuError> {
        if !self.gpu.has_timestamps() {
            return Err(GpuError::Unsupported {
                what: "time_plan".into(),
                feature: "timestamp-query",
            });
        }
        if plan.active_passes().next().is_none() || nothing_to_do(plan) || sets.is_empty() {
            return Err(GpuError::InvalidPlan {
                variant: plan.variant.clone(),
                message: "nothing to time: no pass runs".into(),
            });
        }
        self.warm_up(plan, sets)?;
        let args: Vec<SetArgs<'_>> = sets
            .iter()
            .map(|(i, o)| {
                Ok((
                    device_args(i),
                    device_args(o),
                    self.device_prepared(plan, i)?,
                ))
            })
            .collect::<Result<_, GpuError>>()?;
        let prep = self.prepare(plan)?;
        let mut times = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            if let Some(t) = self.time_round(plan, &prep, &args)? {
                times.push(t);
            }
        }
        Ok(times)
    }

    /// Untimed runs of every set, at least once each, keeping the GPU busy for
    /// [`TIMING_WARMUP`] so its clocks have ramped up (a GPU that idled, e.g. while the host
    /// generated weights or checked a reference, otherwise runs the first rounds at lower
    /// clocks); then waits for the device to be idle.
    fn warm_up(&self, plan: &Plan, sets: &[TensorSet<'_>]) -> Result<(), GpuError> {
        let start = Instant::now();
        let mut since_wait = 0;
        loop {
            for (inputs, outputs) in sets {
                self.run_on_device(plan, inputs, outputs)?;
            }
            since_wait += sets.len();
            if start.elapsed() >= TIMING_WARMUP {
                break;
            }
            if since_wait >= 64 {
                // Keep the queue short: the host records faster than a small plan runs.
                self.wait_idle()?;
                since_wait = 0;
            }
        }
        self.wait_idle()
    }

    /// One timed round: every set once, back to back, in one submission on an idle device,
    /// timestamps written at the start of the first run and the end of the last. Returns the
    /// span in µs divided by the number of sets (`None` if no timestamp came back).
    fn time_round<'a>(
        &self,
        plan: &'a Plan,
        prep: &'a Prepared,
        args: &'a [SetArgs<'a>],
    ) -> Result<Option<f64>, GpuError> {
        let device = self.gpu.device();
        let queue = self.gpu.queue();
        let n = args.len();
        let scratch = self.acquire_scratch(plan)?;
        let bytes = 2 * u64::from(wgpu::QUERY_SIZE);
        let scopes = Scopes::push(device);
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("time_plan"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("time_plan resolve"),
            size: bytes,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let rb = self
            .pool
            .acquire(device, &self.gpu.events, bytes, READBACK, u64::MAX, &|| {
                "timestamp read-back".into()
            })?;
        let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("time_plan"),
        });
        let bound = |(inputs, outputs, prepared): &'a SetArgs<'a>| Bound {
            plan,
            prep,
            inputs,
            prepared,
            outputs,
            scratch: &scratch.buffers,
        };
        for (i, set) in args.iter().enumerate() {
            // Only the round's first start and last end are written: a timestamp per run
            // would add its own cost to every run.
            let stamps = Stamps {
                set: &queries,
                begin: (i == 0).then_some(0),
                end: (i + 1 == n).then_some(1),
            };
            self.encode(&mut enc, &bound(set), Some(stamps), None)?;
        }
        enc.resolve_query_set(&queries, 0..2, &resolve, 0);
        enc.copy_buffer_to_buffer(&resolve, 0, &rb, 0, bytes);
        queue.submit([enc.finish()]);
        let popped = scopes.pop(&self.gpu.events, || {
            format!("timing plan `{}`", plan.variant)
        });
        if let Err(e) = popped {
            // Every set binds the same plan: the first set's bindings attribute the error.
            return Err(self.refine(&bound(&args[0]), e));
        }
        drop(scratch);
        self.read_span_us(rb, bytes, n)
    }

    /// Reads the two timestamps of a round back from `rb` (handed back to the pool) and
    /// returns the span between them in µs divided by `n`, the runs of the round (`None` if
    /// no timestamp came back).
    fn read_span_us(
        &self,
        rb: wgpu::Buffer,
        bytes: u64,
        n: usize,
    ) -> Result<Option<f64>, GpuError> {
        let data = self
            .read_back(&[(&rb, bytes)], &|_| "timestamps".into())?
            .pop()
            .unwrap_or_default();
        self.pool.release(rb);
        let ticks: Vec<u64> = data
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let period_ns = f64::from(self.gpu.queue().get_timestamp_period());
        Ok(match (ticks.first(), ticks.last()) {
            (Some(first), Some(last)) => {
                Some(last.saturating_sub(*first) as f64 * period_ns / 1000.0 / n as f64)
            }
            _ => None,
        })
    }

    /// Host cost of [`Runtime::run_on_device`] on a prepared plan: wall time in µs of each of
    /// `reps` calls (validate, record, submit; no wait), after one warm-up call. The calls come
    /// in bursts of [`HOST_BURST`], as the layers of one inference step would, with an untimed
    /// wait for the device between bursts, so no call is timed while the host is held back by
    /// a queue the GPU has not drained.
    pub fn host_overhead_us(
        &self,
        plan: &Plan,
        inputs: &[Option<&GpuTensor>],
        outputs: &[Option<&GpuTensor>],
        reps: usize,
    ) -> Result<Vec<f64>, GpuError> {
        self.run_on_device(plan, inputs, outputs)?;
        self.wait_idle()?;
        let mut v = Vec::with_capacity(reps);
        for i in 0..reps {
            if i > 0 && i % HOST_BURST == 0 {
                self.wait_idle()?;
            }
            let t0 = Instant::now();
            self.run_on_device(plan, inputs, outputs)?;
            v.push(t0.elapsed().as_secs_f64() * 1e6);
        }
        self.wait_idle()?;
        Ok(v)
    }
}
