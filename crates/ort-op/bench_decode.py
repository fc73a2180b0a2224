"""One decode step of a fused decoder in ONNX Runtime: CPU alone, CPU with the MLPs on this
project's kernel (custom-op library), and ONNX Runtime's WebGPU execution provider where it runs.

    python3 crates/ort-op/bench_decode.py --model llama-3.2-1b --nbits-mlp target/release/nbits-mlp \
        --library target/release/libnbits_mlp_ort_op.so --out /tmp/bench [--iters 20] [--past 128]

Builds a decoder of the model's shape in the GenAI model builder's layout (random 4-bit weights,
blocks of 32, accuracy_level 4, `tests/decoder.py`), fuses it with `nbits-mlp fuse`, and times
`session.run` of one decode step (batch 1, one new token after `--past` cached ones): median of
`--iters` runs after 3 warm-up runs, wall clock. Prints one JSON line per configuration:

    {"model", "config", "status", "median_ms", "min_ms", "runs", "logits_rel_diff"}

`config`: `cpu` (the unfused model, ONNX Runtime's CPU kernels), `cpu+nbits-mlp` (the fused
model, MatMulNBitsMlp through the library, the rest on CPU), `webgpu` (the fused model on the
WebGPU plugin EP, `onnxruntime-ep-webgpu`; ONNX Runtime's own MatMulNBitsMlp kernel).
`logits_rel_diff`: max |logits - cpu logits| / max |cpu logits|.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))
from decoder import Config, build, feeds  # noqa: E402

# hidden, intermediate, layers, heads, kv_heads, vocab
SHAPES = {
    "tiny": (256, 512, 2, 4, 2, 512),
    "qwen2.5-0.5b": (896, 4864, 24, 14, 2, 151936),
    "llama-3.2-1b": (2048, 8192, 16, 32, 8, 128256),
    "qwen3-1.7b": (2048, 6144, 28, 16, 8, 151936),
    "llama-3.1-8b": (4096, 14336, 32, 32, 8, 128256),
}


def time_runs(sess, f, iters):
    for _ in range(3):
        out = sess.run(None, f)
    ts = []
    for _ in range(iters):
        t = time.perf_counter()
        out = sess.run(None, f)
        ts.append(time.perf_counter() - t)
    return out, ts


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="llama-3.2-1b", choices=sorted(SHAPES))
    p.add_argument("--dtype", default="f32", choices=["f32", "f16"])
    p.add_argument("--nbits-mlp", required=True, help="the nbits-mlp executable")
    p.add_argument("--library", required=True, help="libnbits_mlp_ort_op.so")
    p.add_argument("--out", default="/tmp/nbits-mlp-bench-decode")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--past", type=int, default=128)
    p.add_argument("--threads", type=int, default=0, help="intra-op threads of the CPU EP (0: ONNX Runtime's default)")
    p.add_argument("--skip", default="", help="comma-separated configs to leave out (cpu, cpu+nbits-mlp, webgpu)")
    a = p.parse_args()

    hidden, inter, layers, heads, kv, vocab = SHAPES[a.model]
    cfg = Config(
        layers=layers, hidden=hidden, intermediate=inter, heads=heads, kv_heads=kv, vocab=vocab,
        max_len=max(64, a.past + 8), quant=[(4, 32)], dtype=np.float16 if a.dtype == "f16" else np.float32,
        epsilon=1e-5, accuracy_level=4,
    )
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    src, dst = out / f"{a.model}-{a.dtype}.onnx", out / f"{a.model}-{a.dtype}-fused.onnx"
    if not src.exists():
        onnx.save(build(cfg), src, save_as_external_data=True, all_tensors_to_one_file=True,
                  location=src.name + ".data", size_threshold=1024)
    r = subprocess.run([a.nbits_mlp, "fuse", str(src), "-o", str(dst), "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr, file=sys.stderr)
        return 2
    fused_layers = len(json.loads(r.stdout)["fused"])

    f = feeds(cfg, 1, 1, a.past)
    skip = set(filter(None, a.skip.split(",")))
    base = {"model": a.model, "dtype": a.dtype, "past": a.past, "layers": layers, "fused_layers": fused_layers}
    ref = None

    def report(config, make):
        nonlocal ref
        if config in skip:
            return
        row = dict(base, config=config)
        try:
            sess = make()
            outs, ts = time_runs(sess, f, a.iters)
            logits = np.asarray(outs[0], np.float64)
            if ref is None and config == "cpu":
                ref = logits
            rel = None if ref is None else float(np.abs(logits - ref).max() / np.abs(ref).max())
            row.update(status="ok", median_ms=1e3 * statistics.median(ts), min_ms=1e3 * min(ts), runs=len(ts),
                       logits_rel_diff=rel, providers=sess.get_providers())
        except Exception as e:  # noqa: BLE001 - report and go on with the next configuration
            row.update(status=f"unavailable: {str(e).splitlines()[0][:300]}")
        print(json.dumps(row), flush=True)

    def cpu_options():
        so = ort.SessionOptions()
        if a.threads:
            so.intra_op_num_threads = a.threads
        return so

    report("cpu", lambda: ort.InferenceSession(str(src), cpu_options(), providers=["CPUExecutionProvider"]))

    def with_library():
        so = cpu_options()
        so.register_custom_ops_library(a.library)
        return ort.InferenceSession(str(dst), so, providers=["CPUExecutionProvider"])

    report("cpu+nbits-mlp", with_library)

    def webgpu():
        import onnxruntime_ep_webgpu as webgpu_ep  # the plugin EP's wheel

        ort.register_execution_provider_library("webgpu", webgpu_ep.get_library_path())
        devs = [d for d in ort.get_ep_devices() if d.ep_name == webgpu_ep.get_ep_name()]
        if not devs:
            raise RuntimeError("the WebGPU EP found no device")
        so = ort.SessionOptions()
        so.add_provider_for_devices(devs[:1], {"validationMode": "disabled"})
        return ort.InferenceSession(str(dst), sess_options=so)

    report("webgpu", webgpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
