"""Runs a model and its fused form in ONNX Runtime on the same random inputs and says how far
each output moved (`nbits-mlp fuse --verify` runs this).

    python3 verify_fused.py ORIGINAL.onnx FUSED.onnx --library libnbits_mlp_ort_op.so
        [--dim NAME=SIZE ...] [--tolerance 0.05] [--seed 0]

The original runs on the CPU execution provider; the fused one too, with this project's
custom-op library registered (its MatMulNBitsMlp nodes run on the GPU). Symbolic input
dimensions: `--dim`, else sequence_length 1, past_sequence_length 3, total_sequence_length
their sum, anything else 1. Inputs: float tensors standard normal; integer inputs named like
`*mask*` ones, `*position*` 0, 1, 2, ... along the last axis, other integers (token ids)
uniform in [0, 8). The last line printed is a JSON summary. Exit 0 when every output moved at
most `tolerance * max|original|`, 1 otherwise, 2 on errors.
"""

from __future__ import annotations

import argparse
import json
import sys


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("original")
    p.add_argument("fused")
    p.add_argument("--library", required=True)
    p.add_argument("--dim", action="append", default=[])
    p.add_argument("--tolerance", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    try:
        import numpy as np
        import onnxruntime as ort
    except ImportError as e:
        print(f"error: --verify needs numpy and onnxruntime: {e}", file=sys.stderr)
        return 2

    dims = {"sequence_length": 1, "past_sequence_length": 3}
    for d in a.dim:
        name, _, size = d.partition("=")
        if not size.strip().isdigit():
            print(f"error: --dim {d}: expected NAME=SIZE", file=sys.stderr)
            return 2
        dims[name.strip()] = int(size)
    dims.setdefault("total_sequence_length", dims["sequence_length"] + dims["past_sequence_length"])

    try:
        orig = ort.InferenceSession(a.original, providers=["CPUExecutionProvider"])
        so = ort.SessionOptions()
        so.register_custom_ops_library(a.library)
        fused = ort.InferenceSession(a.fused, so, providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 - ONNX Runtime's errors are plain exceptions
        print(f"error: {e}", file=sys.stderr)
        return 2

    rng = np.random.default_rng(a.seed)
    types = {
        "tensor(float)": np.float32,
        "tensor(float16)": np.float16,
        "tensor(double)": np.float64,
        "tensor(int64)": np.int64,
        "tensor(int32)": np.int32,
        "tensor(bool)": np.bool_,
    }
    feeds = {}
    for i in orig.get_inputs():
        if i.type not in types:
            print(f"error: input '{i.name}' has type {i.type}, which --verify cannot make up", file=sys.stderr)
            return 2
        shape = [d if isinstance(d, int) else dims.get(d, 1) if d else 1 for d in i.shape]
        t = types[i.type]
        name = i.name.lower()
        if np.issubdtype(t, np.floating):
            v = rng.standard_normal(shape).astype(t)
        elif t == np.bool_:
            v = np.ones(shape, dtype=t)
        elif "mask" in name:
            v = np.ones(shape, dtype=t)
        elif "position" in name:
            v = np.broadcast_to(np.arange(shape[-1] if shape else 1, dtype=t), shape).copy()
        else:
            v = rng.integers(0, 8, size=shape).astype(t)
        feeds[i.name] = v

    try:
        want = orig.run(None, feeds)
        got = fused.run(None, feeds)
    except Exception as e:  # noqa: BLE001
        print(f"error: {e}", file=sys.stderr)
        return 2

    names = [o.name for o in orig.get_outputs()]
    fused_names = [o.name for o in fused.get_outputs()]
    if names != fused_names:
        print(f"error: outputs differ: {names} vs {fused_names}", file=sys.stderr)
        return 2
    rows = []
    ok = True
    for name, w, g in zip(names, want, got):
        w64 = np.asarray(w, dtype=np.float64)
        g64 = np.asarray(g, dtype=np.float64)
        if w64.shape != g64.shape:
            print(f"error: output '{name}': shape {g64.shape}, expected {w64.shape}", file=sys.stderr)
            return 2
        scale = float(np.abs(w64).max()) if w64.size else 0.0
        diff = float(np.abs(w64 - g64).max()) if w64.size else 0.0
        rel = diff / scale if scale > 0 else diff
        passed = bool(np.isfinite(g64).all()) and rel <= a.tolerance
        ok &= passed
        rows.append({"output": name, "shape": list(w64.shape), "max_abs_diff": diff, "max_abs": scale, "relative": rel, "ok": passed})
        print(f"{name:40s} {str(list(w64.shape)):22s} max|diff| {diff:.3e}  max|original| {scale:.3e}  relative {rel:.2e}  {'ok' if passed else 'MOVED'}")
    print(json.dumps({"ok": ok, "tolerance": a.tolerance, "dims": dims, "outputs": rows}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
