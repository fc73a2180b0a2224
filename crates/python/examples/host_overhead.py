"""Host cost per call from Python on a cached plan, beside the Rust API's, as one JSON line.

Measured in one process on one layer (default Llama-3.1-8B gate/up, float16, 4-bit, 1 row, a
norm_scale, called with skip like a decoder layer):

- python_call_us: `mlp(a, skip, out=out)` from Python, median per call (a synchronous call:
  numpy in, write, run, wait, read back, numpy out);
- rust_call_us: the same synchronous call made from Rust (plan lookup, write, run, wait, read
  back; no Python or numpy), median per call, each alternating with a Python call;
- python_layer_us: their difference, what the Python layer adds per call;
- the same three at 0 rows (`*_rows0_us`: nothing is submitted, so no GPU time in either; the
  whole host path of a call);
- rust_submit_us: the Rust API's host cost per call on the cached plan (validate, record,
  submit; no wait: `Runtime::host_overhead_us`, the README's "host per call"), median.

    python crates/python/examples/host_overhead.py [--k 896 --n 4864] [--reps 1000]
"""

import argparse
import json
import time

import numpy as np

import nbits_mlp


def paired_us(mlp, a, skip, out, reps):
    """Medians of `reps` Python calls and `reps` Rust calls, alternating one by one (so that
    drift and the neighbours' load hit both alike): (python, rust) in microseconds."""
    py, rust = [], []
    for _ in range(reps):
        t = time.perf_counter_ns()
        mlp(a, skip, out=out)
        py.append((time.perf_counter_ns() - t) / 1e3)
        rust.append(mlp._host_timings(a, skip, reps=1, submit=False)["call_us"][0])
    return float(np.median(py)), float(np.median(rust))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--adapter")
    p.add_argument("--k", type=int, default=4096)
    p.add_argument("--n", type=int, default=14336)
    p.add_argument("--rows", type=int, default=1)
    p.add_argument("--dtype", choices=["f16", "f32"], default="f16")
    p.add_argument("--reps", type=int, default=1000, help="calls per measurement")
    p.add_argument("--rounds", type=int, default=3, help="rounds; the best median is kept")
    args = p.parse_args()
    K, N = args.k, args.n
    dtype = np.float16 if args.dtype == "f16" else np.float32
    rng = np.random.default_rng(0)
    rt = nbits_mlp.Runtime(args.adapter)
    gate_B, gate_scales = nbits_mlp.quantize(
        (rng.standard_normal((N, K), dtype=np.float32) / np.sqrt(K)).astype(dtype), 4, 32)
    up_B, up_scales = nbits_mlp.quantize(
        (rng.standard_normal((N, K), dtype=np.float32) / np.sqrt(K)).astype(dtype), 4, 32)
    mlp = rt.mlp(gate_B, gate_scales, up_B, up_scales, K=K, block_size=32,
                 norm_scale=rng.uniform(0.5, 1.5, K).astype(dtype))

    result = {"adapter": rt.adapter["name"], "K": K, "N": N, "rows": args.rows,
              "dtype": np.dtype(dtype).name, "reps": args.reps, "rounds": args.rounds}
    for rows, suffix in ((args.rows, ""), (0, "_rows0")):
        a = rng.uniform(-1, 1, (rows, K)).astype(dtype)
        skip = rng.uniform(-1, 1, (rows, K)).astype(dtype)
        out = mlp(a, skip)  # plan, compile, allocate
        for _ in range(20):
            mlp(a, skip, out=out)
        rounds = [paired_us(mlp, a, skip, out, args.reps) for _ in range(args.rounds)]
        py, rust = min(r[0] for r in rounds), min(r[1] for r in rounds)
        result[f"python_call{suffix}_us"] = round(py, 2)
        result[f"rust_call{suffix}_us"] = round(rust, 2)
        result[f"python_layer{suffix}_us"] = round(py - rust, 2)
        if rows:
            t = mlp._host_timings(a, skip, reps=args.reps)
            result["rust_submit_us"] = round(float(np.median(t["submit_us"])), 2)
            result["variant"] = t["variant"]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
