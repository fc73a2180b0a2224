#!/usr/bin/env python3
"""Runs the PyTorch peer script (`../shared/peers/torch_baselines.py`) for several row counts and
weight shapes in ONE Python process, so torch and CUDA start once (on the device machine a cold
`import torch` costs seconds per call). Its JSON lines go to standard output unchanged.

    python3 scripts/torch_rows.py PEER_SCRIPT --rows 1,2,4 --shape 4096x14336 [--shape KxN ...]
"""
import argparse
import runpy
import sys


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("script", help="path of torch_baselines.py")
    p.add_argument("--rows", required=True, help="comma-separated row counts (M)")
    p.add_argument("--shape", action="append", required=True, help="K x N, e.g. 4096x14336")
    a = p.parse_args()
    rows = [int(r) for r in a.rows.split(",") if r]
    shapes = []
    for s in a.shape:
        k, _, n = s.lower().partition("x")
        shapes.append((int(k), int(n)))
    for k, n in shapes:
        for m in rows:
            sys.argv = [a.script, str(m), str(k), str(n)]
            runpy.run_path(a.script, run_name="__main__")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
