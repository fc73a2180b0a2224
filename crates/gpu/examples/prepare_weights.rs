//! The time to build the prepared (`mma-tiles`) copies of one MLP layer's weights from device
//! tensors, as `Runtime::prepare_weights` does it (the runtime's repack kernels on the GPU),
//! beside the path it replaced (download, `nbits_mlp_core::layout` on one core, upload), for
//! `SETS` weight sets of gate and up (4 copies each: codes and scales of both). Both results
//! are compared byte for byte. Works on any adapter: unlike the bench's `prepare_ms`, it needs
//! no variant that reads the prepared layout (lavapipe has none).
//!
//! ```sh
//! cargo run --release -p nbits-mlp-gpu --example prepare_weights -- 4096 14336 4   # Llama-3.1-8B, 4 sets
//! cargo run --release -p nbits-mlp-gpu --example prepare_weights -- 8192 28672 1   # Llama-70B, 1 set
//! ```
//!
//! Arguments: `[K N [SETS]]` (default 1024 2816 1), 4-bit weights in blocks of 32, f16 scales.

use nbits_mlp_core::layout::{PreparedLayout, PreparedWeights};
use nbits_mlp_core::{DType, Tensor};
use nbits_mlp_gpu::{GpuOptions, GpuTensor, Runtime};
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Random bytes (seeded): the copies move bits, whatever they are.
fn bytes(len: usize, seed: u64) -> Vec<u8> {
    use rand::{RngCore, SeedableRng};
    let mut v = vec![0u8; len];
    rand_chacha::ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut v);
    v
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse::<usize>()
                .map_err(|e| format!("argument `{a}`: {e}"))
        })
        .collect::<Result<_, _>>()?;
    let arg = |i: usize, default: usize| args.get(i).copied().unwrap_or(default);
    let (k, n, sets) = (arg(0, 1024), arg(1, 2816), arg(2, 1).max(1));
    let (bits, block_size) = (4, 32);

    let rt = Runtime::open(&GpuOptions::from_env()?)?;
    println!("adapter: {}", rt.gpu().info().name);
    let geometry = |layout, elem_bytes| PreparedWeights {
        layout,
        n,
        k,
        bits,
        block_size,
        elem_bytes,
    };
    let codes = geometry(PreparedLayout::MmaTileCodes, 1);
    let scales = geometry(PreparedLayout::MmaTileScales, 2);
    let kb = codes.k_blocks();

    // Per set: gate_B, gate_scales, up_B, up_scales, on the device.
    let mut tensors: Vec<(PreparedWeights, Tensor, GpuTensor)> = Vec::new();
    for set in 0..sets as u64 {
        for (w, dtype, shape) in [
            (codes, DType::U8, vec![n, kb, codes.blob_size()]),
            (scales, DType::F16, vec![n, kb]),
        ] {
            for part in 0..2 {
                let host = Tensor {
                    dtype,
                    shape: shape.clone(),
                    data: bytes(w.original_bytes(), 4 * set + part + 1),
                };
                let dev = rt.upload(&host)?;
                tensors.push((w, host, dev));
            }
        }
    }
    let total: usize = tensors.iter().map(|(w, _, _)| w.original_bytes()).sum();
    rt.gpu().queue().submit([]);
    rt.wait_idle()?;

    // On the GPU (the runtime's path): submit every copy, then wait once.
    let started = Instant::now();
    let mut copies = Vec::new();
    for (w, _, dev) in &tensors {
        copies.push(rt.prepare_weights(dev, w)?.0);
    }
    let submitted = started.elapsed();
    rt.wait_idle()?;
    let gpu = started.elapsed();

    // The former path: download, rearrange on one core, upload.
    let started = Instant::now();
    let mut cpu_copies = Vec::new();
    for (w, _, dev) in &tensors {
        let host = rt.download(dev)?;
        let prepared = w.repack(&host.data)?;
        cpu_copies.push(rt.upload(&Tensor {
            dtype: host.dtype,
            shape: vec![prepared.len() / w.elem_bytes],
            data: prepared,
        })?);
    }
    rt.gpu().queue().submit([]);
    rt.wait_idle()?;
    let cpu = started.elapsed();

    for ((gpu_copy, cpu_copy), (w, _, _)) in copies.iter().zip(&cpu_copies).zip(&tensors) {
        if rt.download(gpu_copy)?.data != rt.download(cpu_copy)?.data {
            return Err(format!("{}: the GPU copy differs from core::layout's", w.layout).into());
        }
    }
    println!(
        "{} copies of K={k} N={n} ({sets} set(s), {:.0} MB): GPU {:.1} ms (submitted in {:.1} ms), download + CPU + upload {:.1} ms; identical",
        tensors.len(),
        total as f64 / 1e6,
        gpu.as_secs_f64() * 1e3,
        submitted.as_secs_f64() * 1e3,
        cpu.as_secs_f64() * 1e3,
    );
    Ok(())
}
