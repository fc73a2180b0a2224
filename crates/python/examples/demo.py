"""The Python counterpart of `nbits-mlp demo`: one realistic layer (Llama-3.1-8B gate/up:
K=4096, N=14336, float16, 4-bit weights in blocks of 32, skip + norm_scale + residual output),
quantized with nbits_mlp.quantize, run on the best adapter, checked against the float64
reference, with its GPU time and weight bandwidth.

    python crates/python/examples/demo.py [--rows 8] [--dtype f32] [--k 896 --n 4864]

Exit 1 if a result is outside the tolerance (as the CLI's demo).
"""

import argparse
import sys
import time

import numpy as np

import nbits_mlp


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--adapter", help="case-insensitive substring of the adapter's name")
    p.add_argument("--rows", type=int, default=1, help="rows of A (tokens)")
    p.add_argument("--dtype", choices=["f16", "f32"], default="f16")
    p.add_argument("--k", type=int, help="hidden size instead of Llama-3.1-8B's (with --n)")
    p.add_argument("--n", type=int, help="output size instead of Llama-3.1-8B's (with --k)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--iters", type=int, default=20, help="timed runs")
    args = p.parse_args()
    if (args.k is None) != (args.n is None):
        p.error("--k and --n go together")
    K, N, label = (args.k, args.n, "custom shape") if args.k else (4096, 14336, "Llama-3.1-8B gate/up")
    dtype = np.float16 if args.dtype == "f16" else np.float32
    bits, block_size = 4, 32

    t0 = time.perf_counter()
    rt = nbits_mlp.Runtime(args.adapter)
    info = rt.adapter
    step("open adapter", t0, f"{info['name']} ({info['backend']}, {info['type']})")

    t0 = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    # Weights of about unit variance / K: g, u and Y of order 1.
    w_gate = (rng.standard_normal((N, K), dtype=np.float32) / np.sqrt(K)).astype(dtype)
    w_up = (rng.standard_normal((N, K), dtype=np.float32) / np.sqrt(K)).astype(dtype)
    gate_B, gate_scales = nbits_mlp.quantize(w_gate, bits, block_size)
    up_B, up_scales = nbits_mlp.quantize(w_up, bits, block_size)
    del w_gate, w_up
    norm_scale = rng.uniform(0.5, 1.5, K).astype(dtype)
    a = rng.uniform(-1, 1, (args.rows, K)).astype(dtype)
    skip = rng.uniform(-1, 1, (args.rows, K)).astype(dtype)
    wbytes = gate_B.nbytes + gate_scales.nbytes + up_B.nbytes + up_scales.nbytes
    step("quantize", t0, f"{wbytes / 1e6:.1f} MB of 4-bit weights and scales")

    t0 = time.perf_counter()
    mlp = rt.mlp(gate_B, gate_scales, up_B, up_scales, K=K, N=N, bits=bits,
                 block_size=block_size, norm_scale=norm_scale)
    y, residual = mlp(a, skip, residual=True)
    plan = mlp.plan(args.rows, skip=True, residual=True)
    step("upload + plan + compile + run", t0, f"variant {plan['variant']}")

    t0 = time.perf_counter()
    ry, rres, scale = nbits_mlp.reference(
        a, gate_B, gate_scales, up_B, up_scales, K=K, N=N, bits=bits, block_size=block_size,
        skip=skip, norm_scale=norm_scale, residual=True, error_scale=True)
    checks = [
        ("Y",) + nbits_mlp.compare(y, ry, scale, plan["f16_accumulation"]),
        ("input_skip_bias_sum",) + nbits_mlp.compare(residual, rres),
    ]
    step("CPU reference + compare", t0, f"max|Y| = {np.abs(ry).max():.4f}")

    t0 = time.perf_counter()
    if rt.has_timestamps:
        gpu_us, method = mlp.time(args.rows, args.iters, skip=True, residual=True), "timestamp queries"
    else:
        walls = []
        for _ in range(args.iters):
            t = time.perf_counter()
            mlp(a, skip, residual=True)
            walls.append((time.perf_counter() - t) * 1e6)
        gpu_us, method = float(np.median(walls)), "wall clock of whole calls"
    step("GPU time", t0, f"{gpu_us:.1f} us ({method})")

    ok = all(err <= tol for _, err, tol in checks)
    print(f"adapter:   {info['name']} ({info['backend']}, {info['type']})")
    print(f"layer:     {label}: K={K} N={N} rows={args.rows} {np.dtype(dtype).name}, "
          f"4-bit weights block 32, skip + norm_scale + residual")
    print(f"variant:   {plan['variant']}")
    for name, err, tol in checks:
        print(f"check:     {name} max_abs_err={err:.3e} tol={tol:.3e} {'ok' if err <= tol else 'FAIL'}")
    print(f"GPU time:  {gpu_us:.1f} us (median of {args.iters} runs, {method})")
    print(f"weights:   {wbytes / 1e6:.1f} MB, {wbytes / (gpu_us * 1e-6) / 1e9:.1f} GB/s")
    print(f"result:    {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


def step(name, t0, detail):
    print(f"[{name}] {detail} ({time.perf_counter() - t0:.2f} s)", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
